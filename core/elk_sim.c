#include "elk_sim.h"

#include "elk_cost.h"
#include "elk_tree.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const elk_phase_names[] = {"preload", "distribution", "compute", "shift", "sync", "reduce", "relayout", NULL};

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void elk_sim_opts_default(elk_sim_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = ELK_SIM_AUTO;
    o->block = 0;
    o->port_pause = -1;
    o->hbm_broadcast = -1;
    o->record = 0;
}

void elk_sim_job_free(elk_sim_job *j)
{
    free(j->ops);
    free(j->order);
    memset(j, 0, sizeof *j);
}

elk_status elk_sim_job_alloc(elk_sim_job *j, int n, elk_error *err)
{
    memset(j, 0, sizeof *j);
    j->ops = calloc((size_t)(n > 0 ? n : 1), sizeof *j->ops);
    j->order = malloc((size_t)(n > 0 ? n : 1) * sizeof *j->order);
    if (!j->ops || !j->order) {
        elk_sim_job_free(j);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    j->nops = n;
    for (int i = 0; i < n; i++) {
        j->order[i] = i;
        j->ops[i].dep = -1;
        j->ops[i].rd_group = 1;
        j->ops[i].rs_group = 1;
        j->ops[i].dist_group = 1;
    }
    j->check_sram = 1;
    return ELK_OK;
}

#ifndef NDEBUG
/* elk_menu's invariant: hot ascending, exe strictly descending. */
static int menu_is_front(const elk_menu *m)
{
    for (int i = 0; i + 1 < m->n; i++)
        if (!(m->e[i].hot < m->e[i + 1].hot) || !(m->e[i].exe > m->e[i + 1].exe)) return 0;
    return m->n >= 1;
}

static int order_is_permutation(const int *order, int n)
{
    char *seen = calloc((size_t)(n ? n : 1), 1);
    if (!seen) return 1; /* cannot check */
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        ok = order[i] >= 0 && order[i] < n && !seen[order[i]];
        if (ok) seen[order[i]] = 1;
    }
    free(seen);
    return ok;
}
#endif

elk_status elk_sim_job_from_schedule(const elk_problem *pr, const elk_schedule *s, elk_sim_job *j, elk_error *err)
{
    const elk_graph *g = &pr->graph;
    if (s->nops != g->nops || !s->ops || !s->order)
        return elk_fail(err, ELK_EINVAL, "simulate: the schedule has %d operators but the graph %d", s->nops, g->nops);
    ELK_TRY(elk_sim_job_alloc(j, s->nops, err));
    int N = s->nops;
    for (int i = 0; i < N; i++) {
        const elk_op *op = &g->ops[i];
        const elk_sched_op *so = &s->ops[i];
        const elk_menu *m = &pr->menus[op->shape_id];
        const elk_plan_set *set = pr->sets[op->shape_id];
        if (so->entry < 0 || so->entry >= m->n) {
            elk_sim_job_free(j);
            return elk_fail(err, ELK_EINVAL, "simulate: operator %d (%s) has no plan in the schedule", i, op->name);
        }
        assert(menu_is_front(m));
        const elk_menu_entry *e = &m->e[so->entry];
        const elk_plan *pl = &set->plans[e->plan];
        /* SRAM capacity: a policy's operator never holds more execution or
         * preload space than a core has (Ideal included: its plans come from
         * the same sets); only the sum over overlapping ops is the replay's
         * to check (sram_violations) */
        assert(so->hot <= pr->sram * (1 + 1e-9) + 1e-6);
        assert(so->cold <= pr->sram * (1 + 1e-9) + 1e-6);
        elk_sim_jop *jo = &j->ops[i];
        snprintf(jo->name, sizeof jo->name, "%s", op->name);
        jo->comp = e->comp;
        jo->syncs = pl->syncs;
        jo->shift_bytes = pl->shift_bytes;
        jo->rs_bytes = pl->rs_bytes;
        jo->rs_group = pl->rs_group;
        jo->rd_bytes = pl->rd_bytes;
        jo->rd_group = pr->chip.cores;
        if (op->hbm_bytes > 0 && so->copt >= 0 && so->dist > 0) {
            int k = so->copt - e->c0;
            if (k >= 0 && k < pl->nopt) {
                const elk_cold_opt *co = &set->opts[pl->opt0 + k];
                jo->dist_bytes = co->dist_bytes;
                jo->dist_group = co->dist_group;
                jo->dist_syncs = co->dist_bytes > 0 ? 1 : 0;
            }
        }
        jo->hbm_bytes = op->hbm_bytes;
        jo->deliv = op->hbm_bytes > 0 ? so->deliv : 0;
        if (jo->hbm_bytes > 0 && jo->deliv < jo->hbm_bytes) jo->deliv = jo->hbm_bytes;
        /* the throttle the planner priced the preload with (pre_share < 1
         * only under the paper profile's noccap and int55), held against
         * the planner's chip, not the replay's (--hbm-model) */
        if (jo->hbm_bytes > 0 && s->pre_share > 0 && s->pre_share < 1)
            jo->pre_cap = s->pre_share * elk_cost_preload_rate(&pr->chip, jo->deliv / jo->hbm_bytes);
        /* a paced preload (a replay's replay_pace) no faster than its pace */
        if (jo->hbm_bytes > 0 && so->pace > 0) {
            double cap = jo->hbm_bytes / so->pace;
            if (!(jo->pre_cap > 0) || cap < jo->pre_cap) jo->pre_cap = cap;
        }
        jo->hot = so->hot;
        jo->cold = so->cold;
        jo->flops = op->flops;
        jo->est_exe_start = so->exe_start;
        jo->est_exe_end = so->exe_end;
        jo->est_pre_start = so->pre_start;
        jo->est_pre_end = so->pre_end;
    }
    memcpy(j->order, s->order, (size_t)N * sizeof *j->order);
    assert(order_is_permutation(j->order, N));
    /* The op whose execution a preload waits for: the last one the plan
     * ended before the preload's start (its space is the one reused). */
    double tol = 1e-9 * (s->latency > 0 ? s->latency : 1) + 1e-6;
    int *sufmin = malloc((size_t)N * sizeof *sufmin);
    if (!sufmin) {
        elk_sim_job_free(j);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    int mn = N;
    for (int r = N - 1; r >= 0; r--) {
        if (j->order[r] < mn) mn = j->order[r];
        sufmin[r] = mn;
    }
    for (int r = 0; r < N; r++) {
        int op = j->order[r];
        double ps = s->ops[op].pre_start;
        int lo = -1, hi = N - 1; /* largest k with exe_end(k) <= ps */
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (s->ops[mid].exe_end <= ps + tol) lo = mid;
            else hi = mid - 1;
        }
        if (lo >= sufmin[r]) lo = sufmin[r] - 1;
        /* Ideal holds its preloads in a buffer of its own: they wait for the
         * HBM only, never for space (its fluid intervals would otherwise
         * chain each preload behind an execution it does not need) */
        j->ops[op].dep = s->policy == ELK_POL_IDEAL ? -1 : lo;
        /* elk_sim_job's invariant (no deadlock): the op a preload waits for
         * is below every op at this position or later */
        assert(j->ops[op].dep < sufmin[r]);
    }
    free(sufmin);
    j->separate_noc = s->policy == ELK_POL_IDEAL;
    j->check_sram = s->policy != ELK_POL_IDEAL;
    j->sram = pr->sram;
    j->est_latency = s->latency;
    memcpy(j->est_brk, s->brk, sizeof j->est_brk);
    return ELK_OK;
}

/* ------------------------------------------------------------------ */
/* Replay                                                               */

enum { SEG_FLOW, SEG_WORK, SEG_DELAY };

typedef struct {
    int type;
    elk_phase_kind kind;
    int tmpl;
    double amount; /* bytes per core, compute cycles or delay cycles */
} seg_t;

#define MAX_SEG 8

typedef struct {
    const elk_chip *c;
    const elk_sim_job *j;
    elk_noc nc;
    elk_tree tree; /* fast mode on grids: the preloads' exact trees */
    elk_sim_result *r;
    int record, pause;
    double now;
    int N;
    /* execution */
    int cur, running;
    seg_t seg[MAX_SEG];
    int nseg, si;
    double seg_start, seg_rem;
    int seg_flow;
    double rho; /* compute progress rate */
    /* preloads */
    int next_pos;
    int *pre_left;
    unsigned char *pre_done, *exe_done, *issued;
    int *ctrl_pos, *ctrl_flow;
    int kc; /* controllers serving each destination */
    int combined; /* one transfer for all controllers */
    double waiting_cold, exec_hot;
    /* flows */
    int *fop, *fctrl;
    int fcap;
    int *act, nact;
    double hbm_bpc, port_bpc;
    int dirty;
    /* logs */
    int phcap, smcap;
    double last_sram, last_h;
} sim_t;

static int log_phase(sim_t *s, int op, elk_phase_kind k, int ctrl, double a, double b, double bytes)
{
    if (!s->record) return 0;
    elk_sim_result *r = s->r;
    if (r->nphases == s->phcap) {
        int cap = s->phcap ? s->phcap * 2 : 1024;
        elk_sim_phase *p = realloc(r->phases, (size_t)cap * sizeof *p);
        if (!p) return -1;
        r->phases = p;
        s->phcap = cap;
    }
    r->phases[r->nphases++] = (elk_sim_phase){op, k, ctrl, a, b, bytes};
    return 0;
}

static int log_sample(sim_t *s, double h)
{
    if (!s->record) return 0;
    double sram = s->exec_hot + s->waiting_cold;
    if (s->r->nsamples > 0 && sram == s->last_sram && fabs(h - s->last_h) < 1e-9) return 0;
    elk_sim_result *r = s->r;
    if (r->nsamples == s->smcap) {
        int cap = s->smcap ? s->smcap * 2 : 1024;
        elk_sim_sample *p = realloc(r->samples, (size_t)cap * sizeof *p);
        if (!p) return -1;
        r->samples = p;
        s->smcap = cap;
    }
    r->samples[r->nsamples++] = (elk_sim_sample){s->now, sram, h};
    s->last_sram = sram;
    s->last_h = h;
    return 0;
}

static int start_flow(sim_t *s, int tmpl, double bytes, int op, int ctrl)
{
    int f = elk_net_start(s->nc.net, tmpl, bytes, op, s->now);
    if (f < 0) return -1;
    if (f >= s->fcap) {
        int cap = s->fcap ? s->fcap * 2 : 1024;
        while (cap <= f) cap *= 2;
        int *a = realloc(s->fop, (size_t)cap * sizeof *a);
        if (!a) return -1;
        s->fop = a;
        int *b = realloc(s->fctrl, (size_t)cap * sizeof *b);
        if (!b) return -1;
        s->fctrl = b;
        int *c = realloc(s->act, (size_t)cap * sizeof *c);
        if (!c) return -1;
        s->act = c;
        s->fcap = cap;
    }
    s->fop[f] = op;
    s->fctrl[f] = ctrl;
    s->act[s->nact++] = f;
    s->dirty = 1;
    return f;
}

/* Build the segments of op i's execution. */
static int build_segs(sim_t *s, int i)
{
    const elk_sim_jop *o = &s->j->ops[i];
    const elk_chip *c = s->c;
    int n = 0;
    if (o->dist_bytes > 0) {
        int t = elk_noc_exchange(&s->nc, o->dist_group);
        if (t < 0) return -1;
        s->seg[n++] = (seg_t){SEG_FLOW, ELK_PH_DIST, t, o->dist_bytes};
        if (o->dist_syncs > 0) s->seg[n++] = (seg_t){SEG_DELAY, ELK_PH_DIST, -1, o->dist_syncs * c->sync_cycles};
    }
    if (o->comp > 0) s->seg[n++] = (seg_t){SEG_WORK, ELK_PH_COMPUTE, -1, o->comp};
    if (o->shift_bytes > 0) {
        int t = elk_noc_shift(&s->nc);
        if (t < 0) return -1;
        s->seg[n++] = (seg_t){SEG_FLOW, ELK_PH_SHIFT, t, o->shift_bytes};
    }
    if (o->syncs > 0 && c->sync_cycles > 0) s->seg[n++] = (seg_t){SEG_DELAY, ELK_PH_SYNC, -1, o->syncs * c->sync_cycles};
    if (o->rs_bytes > 0 && o->rs_group > 1) {
        int t = elk_noc_exchange(&s->nc, o->rs_group);
        if (t < 0) return -1;
        s->seg[n++] = (seg_t){SEG_FLOW, ELK_PH_REDUCE, t, o->rs_bytes};
    }
    if (o->rd_bytes > 0 && o->rd_group > 1) {
        int t = elk_noc_exchange(&s->nc, o->rd_group);
        if (t < 0) return -1;
        s->seg[n++] = (seg_t){SEG_FLOW, ELK_PH_RELAYOUT, t, o->rd_bytes};
    }
    s->nseg = n;
    s->si = 0;
    /* nominal: every segment alone on an idle chip */
    double nom = 0;
    const elk_tmpl *tp = elk_net_tmpls(s->nc.net);
    for (int k = 0; k < n; k++) {
        if (s->seg[k].type == SEG_FLOW) nom += s->seg[k].amount / tp[s->seg[k].tmpl].solo_rate;
        else nom += s->seg[k].amount;
    }
    s->r->ops[i].nominal = nom;
    return 0;
}

static int start_seg(sim_t *s)
{
    seg_t *g = &s->seg[s->si];
    s->seg_start = s->now;
    s->seg_flow = -1;
    if (g->type == SEG_FLOW) {
        s->seg_flow = start_flow(s, g->tmpl, g->amount, s->cur, -1);
        if (s->seg_flow < 0) return -1;
    } else {
        s->seg_rem = g->amount;
    }
    return 0;
}

/* The current segment ended: log it, move on; returns 1 if the op ended. */
static int end_seg(sim_t *s)
{
    seg_t *g = &s->seg[s->si];
    if (log_phase(s, s->cur, g->kind, -1, s->seg_start, s->now, g->type == SEG_FLOW ? g->amount : 0)) return -1;
    if (g->kind == ELK_PH_DIST) s->r->ops[s->cur].dist += s->now - s->seg_start;
    s->si++;
    if (s->si < s->nseg) return start_seg(s) ? -1 : 0;
    elk_sim_op *ro = &s->r->ops[s->cur];
    ro->exe_end = s->now;
    ro->stall = ro->exe_end - ro->exe_start - ro->nominal;
    if (ro->stall < 0 && ro->stall > -1e-6 * (ro->nominal + 1)) ro->stall = 0;
    s->exe_done[s->cur] = 1;
    s->exec_hot = 0;
    s->running = 0;
    s->cur++;
    return 1;
}

static int controllers_serving(const elk_noc *nc) { return nc->grid ? nc->nctrl : nc->nctrl / nc->nchips; }

/* Queues the replay keeps: one per controller, or one for all (fast mode
 * on grids, where the controllers' trees are one transfer). */
static int queues(const sim_t *s) { return s->combined ? 1 : s->nc.nctrl; }

/* Start whatever can start now. Returns -1 on out of memory. */
static int progress(sim_t *s)
{
    const elk_sim_job *j = s->j;
    int changed = 1;
    while (changed) {
        changed = 0;
        /* issue preloads in order */
        while (s->next_pos < s->N) {
            int op = j->order[s->next_pos];
            int dep = j->ops[op].dep;
            if (dep >= 0 && !s->exe_done[dep]) break;
            s->issued[op] = 1;
            s->next_pos++;
            changed = 1;
            elk_sim_op *ro = &s->r->ops[op];
            if (j->ops[op].hbm_bytes <= 0) {
                s->pre_done[op] = 1;
                ro->pre_start = ro->pre_end = s->now;
            } else {
                s->pre_left[op] = queues(s);
                ro->pre_start = -1;
                s->waiting_cold += j->ops[op].cold;
            }
        }
        /* controllers take the next slice from their queue */
        for (int k = 0; k < queues(s); k++) {
            if (s->ctrl_flow[k] >= 0) continue;
            while (s->ctrl_pos[k] < s->next_pos && j->ops[j->order[s->ctrl_pos[k]]].hbm_bytes <= 0) s->ctrl_pos[k]++;
            if (s->ctrl_pos[k] >= s->next_pos) continue;
            int op = j->order[s->ctrl_pos[k]++];
            const elk_sim_jop *o = &j->ops[op];
            double r = o->deliv / o->hbm_bytes;
            /* a throttled preload's controllers share its cap evenly: in
             * bytes/cycle into each destination core, cap x r / (cores x kc) */
            double cap = o->pre_cap > 0 ? o->pre_cap * r / s->c->cores / s->kc : INFINITY;
            int plane = j->separate_noc ? 1 : 0;
            /* fast mode on grids: the trees summed router by router
             * (elk_tree); elk_noc's block-level trees spread a controller's
             * rows over a bundle and hid the busiest link where links bind
             * (fast mode up to 1.56x faster than detailed with 1-8
             * controllers, tests/test_sim.c fast_tree_exact) */
            int t = s->combined ? elk_tree_preload(&s->tree, &s->nc, -1, r, plane, cap)
                                : elk_noc_preload_capped(&s->nc, k, r, plane, cap);
            if (t < 0) return -1;
            double size = o->deliv / s->c->cores / s->kc;
            int f = start_flow(s, t, size, op, k);
            if (f < 0) return -1;
            s->ctrl_flow[k] = f;
            if (s->r->ops[op].pre_start < 0) s->r->ops[op].pre_start = s->now;
            changed = 1;
        }
        /* execution */
        if (!s->running && s->cur < s->N) {
            int i = s->cur;
            const elk_sim_jop *o = &j->ops[i];
            if (o->hbm_bytes <= 0 || s->pre_done[i]) {
                if (o->hbm_bytes > 0) s->waiting_cold -= o->cold;
                s->exec_hot = o->hot;
                s->r->ops[i].exe_start = s->now;
                if (build_segs(s, i)) return -1;
                s->running = 1;
                changed = 1;
                if (s->nseg == 0) {
                    s->r->ops[i].exe_end = s->now;
                    s->exe_done[i] = 1;
                    s->exec_hot = 0;
                    s->running = 0;
                    s->cur++;
                } else if (start_seg(s)) {
                    return -1;
                }
            }
        }
        /* zero-length delays end at once */
        while (s->running && s->seg[s->si].type != SEG_FLOW && s->seg_rem <= 0) {
            int e = end_seg(s);
            if (e < 0) return -1;
            changed = 1;
            if (e == 1) break;
        }
    }
    return 0;
}

static double hbm_fraction(const sim_t *s, double *in_rate)
{
    const elk_flow *fl = elk_net_flows(s->nc.net);
    const elk_tmpl *tp = elk_net_tmpls(s->nc.net);
    double h = 0, in = 0;
    for (int a = 0; a < s->nact; a++) {
        const elk_flow *f = &fl[s->act[a]];
        const elk_tmpl *t = &tp[f->tmpl];
        if (t->kind != ELK_XF_PRELOAD) continue;
        h += f->rate * t->ndest * t->src_ratio;
        in += f->rate * t->ndest / s->c->cores;
    }
    if (in_rate) *in_rate = in;
    return h / s->hbm_bpc;
}

static void account(sim_t *s, double dt, double h)
{
    double *b = s->r->brk;
    if (dt <= 0) return;
    if (h > 1) h = 1;
    if (!s->running) {
        b[ELK_BRK_PRELOAD] += h * dt;
        b[ELK_BRK_NOC] += (1 - h) * dt;
        return;
    }
    const seg_t *g = &s->seg[s->si];
    if (g->kind == ELK_PH_DIST) {
        b[ELK_BRK_DIST] += dt;
        return;
    }
    double phi = 1;
    if (g->type == SEG_WORK) phi = s->rho;
    else if (g->type == SEG_FLOW) {
        const elk_flow *f = &elk_net_flows(s->nc.net)[s->seg_flow];
        double solo = elk_net_tmpls(s->nc.net)[g->tmpl].solo_rate;
        phi = solo > 0 && isfinite(solo) ? fmin(1.0, f->rate / solo) : 1;
    }
    b[ELK_BRK_OVERLAP] += h * phi * dt;
    b[ELK_BRK_EXEC] += (1 - h) * phi * dt;
    b[ELK_BRK_NOC] += (1 - phi) * dt;
}

/* Copy each link's load into r->net (see elk_sim_net); out of memory
 * leaves the summary empty, never the replay failed. */
static void net_summary(sim_t *s, const double *sum, double L)
{
    elk_sim_net *n = &s->r->net;
    const elk_noc *nc = &s->nc;
    const elk_link *lk = elk_net_links(nc->net);
    if (!(L > 0)) return;
#define UTIL(l) ((l) >= 0 ? sum[l] / (lk[l].cap * lk[l].count * L) : -1.0)
    n->grid = nc->grid;
    n->ncell = nc->ncell;
    n->nctrl = nc->nctrl;
    n->port_in = malloc(sizeof(double) * (size_t)(nc->ncell > 0 ? nc->ncell : 1));
    n->ctrl = malloc(sizeof(double) * (size_t)(nc->nctrl > 0 ? nc->nctrl : 1));
    int ok = n->port_in && n->ctrl;
    if (ok && nc->nchips > 1) {
        n->nchips = nc->nchips;
        n->chip_out = malloc(sizeof(double) * (size_t)nc->nchips);
        n->chip_in = malloc(sizeof(double) * (size_t)nc->nchips);
        ok = n->chip_out && n->chip_in;
    }
    if (ok && nc->grid) {
        n->R = nc->R, n->C = nc->C, n->nbr = nc->nbr, n->nbc = nc->nbc;
        size_t nb = (size_t)nc->nbr * (size_t)nc->nbc;
        n->mesh = malloc(sizeof(double) * nb * ELK_DIR_COUNT);
        n->mesh_int = malloc(sizeof(double) * nb);
        n->br0 = malloc(sizeof(int) * (size_t)(nc->nbr + 1));
        n->bc0 = malloc(sizeof(int) * (size_t)(nc->nbc + 1));
        ok = n->mesh && n->mesh_int && n->br0 && n->bc0;
    }
    if (!ok) {
        elk_sim_net_free(n);
        return;
    }
    for (int i = 0; i < nc->ncell; i++) n->port_in[i] = UTIL(nc->port_in[0][i]);
    for (int k = 0; k < nc->nctrl; k++) n->ctrl[k] = UTIL(nc->hbm[k]);
    for (int k = 0; k < n->nchips; k++) {
        n->chip_out[k] = UTIL(nc->chip_out[k]);
        n->chip_in[k] = UTIL(nc->chip_in[k]);
    }
    if (nc->grid) {
        memcpy(n->br0, nc->br0, sizeof(int) * (size_t)(nc->nbr + 1));
        memcpy(n->bc0, nc->bc0, sizeof(int) * (size_t)(nc->nbc + 1));
        for (int b = 0; b < nc->nbr * nc->nbc; b++) {
            for (int d = 0; d < ELK_DIR_COUNT; d++) n->mesh[b * ELK_DIR_COUNT + d] = UTIL(nc->lk[0][d][b]);
            n->mesh_int[b] = UTIL(nc->lint[0][b]);
        }
    }
#undef UTIL
}

void elk_sim_net_free(elk_sim_net *n)
{
    free(n->br0);
    free(n->bc0);
    free(n->mesh);
    free(n->mesh_int);
    free(n->port_in);
    free(n->ctrl);
    free(n->chip_out);
    free(n->chip_in);
    memset(n, 0, sizeof *n);
}

static void finish_metrics(sim_t *s)
{
    elk_sim_result *r = s->r;
    const elk_chip *c = s->c;
    const elk_net *net = s->nc.net;
    int nl = elk_net_nlinks(net);
    const elk_link *lk = elk_net_links(net);
    double *sum = calloc((size_t)nl, sizeof *sum), *mx = calloc((size_t)nl, sizeof *mx);
    double *sp = calloc((size_t)nl, sizeof *sp);
    if (!sum || !mx || !sp) {
        free(sum);
        free(mx);
        free(sp);
        return;
    }
    double L = r->latency;
    elk_net_link_totals(net, -1, sum, mx);
    elk_net_link_totals(net, ELK_XF_PRELOAD, sp, NULL);
    double in_all = 0, in_pre = 0, hbm = 0, mesh = 0, mesh_members = 0, mesh_max = 0;
    for (int l = 0; l < nl; l++) {
        switch (lk[l].kind) {
        case ELK_LK_PORT_IN:
            in_all += sum[l];
            in_pre += sp[l];
            break;
        case ELK_LK_HBM: hbm += sum[l]; break;
        case ELK_LK_MESH:
        case ELK_LK_MESH_INT:
            mesh += sum[l];
            mesh_members += lk[l].count; /* Ideal's preload plane is capacity too */
            if (lk[l].kind == ELK_LK_MESH) mesh_max = fmax(mesh_max, mx[l] / lk[l].cap);
            break;
        default: break;
        }
    }
    r->hbm_bytes = hbm;
    r->pre_bytes = in_pre;
    r->exe_bytes = in_all - in_pre;
    r->recv = in_all;
    /* sources: HBM reads times their replication (multicast), egress ports */
    const elk_tmpl *tp = elk_net_tmpls(net);
    const elk_use *us = elk_net_uses(net);
    double sent = 0;
    for (int t = 0; t < elk_net_ntmpl(net); t++)
        for (int u = tp[t].u0; u < tp[t].u0 + tp[t].nu; u++) {
            elk_link_kind k = lk[us[u].link].kind;
            if (tp[t].kind == ELK_XF_PRELOAD && k == ELK_LK_HBM) sent += tp[t].units * us[u].csum / tp[t].src_ratio;
            if (tp[t].kind == ELK_XF_EXEC && k == ELK_LK_PORT_OUT) sent += tp[t].units * us[u].csum;
        }
    r->sent = sent;
    /* the capacity of every plane the traffic could use: Ideal's separate
     * preload NoC doubles it (counting one plane put Ideal's NoC% at 101%
     * and its mean link load at 108%) */
    double ports = c->cores * s->port_bpc * L * s->nc.planes;
    r->noc_util = ports > 0 ? in_all / ports : 0;
    r->noc_pre_util = ports > 0 ? in_pre / ports : 0;
    r->noc_exe_util = r->noc_util - r->noc_pre_util;
    r->hbm_util = L > 0 ? hbm / s->hbm_bpc / L : 0;
    r->grid = s->nc.grid;
    if (s->nc.grid && L > 0) {
        r->link_max = mesh_max / L;
        r->link_mean = mesh_members > 0 ? mesh / (mesh_members * elk_chip_mesh_link_bytes_per_cycle(c) * L) : 0;
    }
    net_summary(s, sum, L);
    double flops = 0;
    for (int i = 0; i < s->N; i++) flops += s->j->ops[i].flops;
    r->tflops = L > 0 ? flops / (L / (c->clock_ghz * 1e9)) / 1e12 : 0;
    free(sum);
    free(mx);
    free(sp);
}

/* The replay's state arrays, one entry per operator or controller; -1 when
 * out of memory (elk_sim_run_job frees what was allocated). */
static int sim_alloc(sim_t *s)
{
    int N = s->N;
    s->r->nops = N;
    s->r->ops = calloc((size_t)(N ? N : 1), sizeof *s->r->ops);
    s->pre_left = calloc((size_t)(N ? N : 1), sizeof *s->pre_left);
    s->pre_done = calloc((size_t)(N ? N : 1), 1);
    s->exe_done = calloc((size_t)(N ? N : 1), 1);
    s->issued = calloc((size_t)(N ? N : 1), 1);
    s->ctrl_pos = calloc((size_t)s->nc.nctrl, sizeof *s->ctrl_pos);
    s->ctrl_flow = malloc((size_t)s->nc.nctrl * sizeof *s->ctrl_flow);
    if (!s->r->ops || !s->pre_left || !s->pre_done || !s->exe_done || !s->issued || !s->ctrl_pos || !s->ctrl_flow)
        return -1;
    for (int k = 0; k < s->nc.nctrl; k++) s->ctrl_flow[k] = -1;
    s->rho = 1;
    return 0;
}

/* Before a step: the compute rate under the port's pauses, the SRAM
 * resident now (per operator, peak, against the capacity) and the samples'
 * log; *h is the HBM's busy fraction. -1 when out of memory. */
static int sample_state(sim_t *s, double *h)
{
    const elk_chip *c = s->c;
    elk_sim_result *r = s->r;
    double in_rate = 0;
    *h = hbm_fraction(s, &in_rate);
    s->rho = 1;
    if (s->pause && c->sram_port_bytes_per_cycle > 0) s->rho = fmax(0.1, 1 - in_rate / c->sram_port_bytes_per_cycle);
    if (s->running) {
        double res = s->exec_hot + s->waiting_cold;
        if (res > r->ops[s->cur].resident) r->ops[s->cur].resident = res;
    }
    double res = s->exec_hot + s->waiting_cold;
    if (res > r->peak_resident) r->peak_resident = res;
    if (s->j->check_sram && res > s->j->sram * (1 + 1e-9) + 1e-6) r->sram_violations++;
    return log_sample(s, *h);
}

/* After the network advanced: retire the flows that finished, logging a
 * preload's slice per controller and marking its operator's preload done
 * with its last one; an execution flow's end ends its segment. -1 when out
 * of memory. */
static int retire_flows(sim_t *s)
{
    s->dirty = 1;
    const elk_flow *fl = elk_net_flows(s->nc.net);
    int keep = 0;
    int exec_flow_done = 0;
    for (int a = 0; a < s->nact; a++) {
        int f = s->act[a];
        if (fl[f].active) {
            s->act[keep++] = f;
            continue;
        }
        int k = s->fctrl[f], op = s->fop[f];
        if (k >= 0) {
            s->ctrl_flow[k] = -1;
            /* one slice per controller (a combined transfer is every controller's) */
            int k0 = s->combined ? 0 : k, k1 = s->combined ? s->nc.nctrl : k + 1;
            for (int q = k0; q < k1; q++)
                if (log_phase(s, op, ELK_PH_PRELOAD, q, fl[f].start, s->now,
                              fl[f].size * (s->combined ? 1.0 / s->nc.nctrl : 1)))
                    return -1;
            if (--s->pre_left[op] == 0) {
                s->pre_done[op] = 1;
                s->r->ops[op].pre_end = s->now;
            }
        } else if (f == s->seg_flow) {
            exec_flow_done = 1;
        }
    }
    s->nact = keep;
    if (exec_flow_done && end_seg(s) < 0) return -1;
    return 0;
}

/* One event of the replay: start what can start, solve the network's
 * rates if they changed, advance to the next flow's end or the running
 * segment's, and retire what finished. */
static elk_status sim_step(sim_t *s, const elk_sim_opts *opts, elk_error *err)
{
    const elk_sim_job *j = s->j;
    elk_sim_result *r = s->r;
    if (opts->cancel && *opts->cancel) return elk_fail(err, ELK_ECANCEL, "cancelled");
    if (progress(s)) return elk_fail(err, ELK_ENOMEM, "out of memory simulating");
    if (s->cur >= s->N) return ELK_OK;
    if (s->dirty) {
        elk_net_solve(s->nc.net);
        s->dirty = 0;
        r->solves++;
    }
    double h;
    if (sample_state(s, &h)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    double dt = elk_net_next(s->nc.net);
    if (s->running && s->seg[s->si].type != SEG_FLOW) {
        double rate = s->seg[s->si].type == SEG_WORK ? s->rho : 1;
        dt = fmin(dt, s->seg_rem / rate);
    }
    if (!(dt < INFINITY))
        return elk_fail(err, ELK_EINVAL,
                        "simulate: the schedule deadlocks at operator %d (%s): it waits for its preload, which "
                        "waits for an execution that cannot start",
                        s->cur, j->ops[s->cur].name);
    if (dt < 0) dt = 0;
    account(s, dt, h);
    int fin = elk_net_advance(s->nc.net, dt, s->now);
    if (s->running && s->seg[s->si].type != SEG_FLOW) {
        double rate = s->seg[s->si].type == SEG_WORK ? s->rho : 1;
        s->seg_rem -= rate * dt;
        if (s->seg_rem <= 1e-9 * s->seg[s->si].amount) s->seg_rem = 0;
    }
    s->now += dt;
    r->events++;
    if (fin && retire_flows(s)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    if (s->running && s->seg[s->si].type != SEG_FLOW && s->seg_rem <= 0 && end_seg(s) < 0)
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    return ELK_OK;
}

/* After the last operator: the latency, the estimate's error, the metrics
 * and the network's counts. */
static void sim_finish(sim_t *s)
{
    const elk_chip *c = s->c;
    const elk_sim_job *j = s->j;
    elk_sim_result *r = s->r;
    /* preloads never waited for (none in a valid schedule) still count */
    r->latency = s->now;
    for (int i = 0; i < s->N; i++) {
        if (r->ops[i].exe_end > r->latency) r->latency = r->ops[i].exe_end;
        if (r->ops[i].pre_end > r->latency) r->latency = r->ops[i].pre_end;
    }
    s->exec_hot = s->waiting_cold = 0;
    log_sample(s, 0);
    r->latency_ms = r->latency / (c->clock_ghz * 1e6);
    r->est_latency = j->est_latency;
    r->est_latency_ms = j->est_latency / (c->clock_ghz * 1e6);
    r->err = r->latency > 0 && j->est_latency > 0 ? (j->est_latency - r->latency) / r->latency : 0;
    finish_metrics(s);
    const elk_flow *fl = elk_net_flows(s->nc.net);
    const elk_tmpl *tp = elk_net_tmpls(s->nc.net);
    for (int f = 0; f < elk_net_nflows(s->nc.net); f++) r->expect_recv += fl[f].size * tp[fl[f].tmpl].ndest;
    r->flows = elk_net_nflows(s->nc.net);
    elk_net_stats(s->nc.net, NULL, &r->memo_hits);
    r->mode_detailed = s->nc.detailed;
    r->block = s->nc.grid && !s->nc.detailed ? (s->nc.R + s->nc.nbr - 1) / s->nc.nbr : 1;
    r->nctrl = s->nc.nctrl;
    r->nlinks = elk_net_nlinks(s->nc.net);
}

elk_status elk_sim_run_job(const elk_chip *chip, const elk_sim_job *j, const elk_sim_opts *opts, elk_sim_result *r,
                           elk_error *err)
{
    double t0 = wall_ms();
    memset(r, 0, sizeof *r);
    elk_sim_opts od;
    if (!opts) {
        elk_sim_opts_default(&od);
        opts = &od;
    }
    elk_chip c = *chip;
    if (opts->hbm_broadcast >= 0) c.hbm_broadcast = opts->hbm_broadcast;
    sim_t s;
    memset(&s, 0, sizeof s);
    s.c = &c;
    s.j = j;
    s.r = r;
    s.N = j->nops;
    s.record = opts->record;
    s.pause = opts->port_pause >= 0 ? opts->port_pause : c.remote_access_pauses;
    if (j->separate_noc) s.pause = 0;
    s.hbm_bpc = elk_chip_hbm_bytes_per_cycle(&c);
    s.port_bpc = elk_chip_link_bytes_per_cycle(&c);
    ELK_TRY(elk_noc_build(&s.nc, &c, opts->mode, opts->block, j->separate_noc ? 2 : 1, err));
    s.combined = s.nc.grid && !s.nc.detailed;
    elk_tree_init(&s.tree);
    s.kc = s.combined ? 1 : controllers_serving(&s.nc);
    elk_status st = ELK_OK;
    if (sim_alloc(&s)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
    while (st == ELK_OK && s.cur < s.N) st = sim_step(&s, opts, err);
    if (st == ELK_OK) {
        sim_finish(&s);
        if (elk_net_oom(s.nc.net)) st = elk_fail(err, ELK_ENOMEM, "out of memory simulating");
    }
    elk_tree_free(&s.tree);
    elk_noc_free(&s.nc);
    free(s.pre_left);
    free(s.pre_done);
    free(s.exe_done);
    free(s.issued);
    free(s.ctrl_pos);
    free(s.ctrl_flow);
    free(s.fop);
    free(s.fctrl);
    free(s.act);
    r->wall_ms = wall_ms() - t0;
    if (st != ELK_OK) elk_sim_result_free(r);
    return st;
}

elk_status elk_sim_run(const elk_problem *pr, const elk_schedule *s, const elk_sim_opts *o, elk_sim_result *r,
                       elk_error *err)
{
    double t0 = wall_ms();
    elk_sim_job j;
    memset(r, 0, sizeof *r);
    ELK_TRY(elk_sim_job_from_schedule(pr, s, &j, err));
    elk_status st = elk_sim_run_job(&pr->chip, &j, o, r, err);
    elk_sim_job_free(&j);
    if (st == ELK_OK) r->wall_ms = wall_ms() - t0;
    return st;
}

void elk_sim_result_free(elk_sim_result *r)
{
    free(r->ops);
    free(r->phases);
    free(r->samples);
    elk_sim_net_free(&r->net);
    memset(r, 0, sizeof *r);
}
