#include "elk_sched_int.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cost.h"
#include "elk_plan_art.h"

/* ------------------------------------------------------------------ */
/* Preload orders (paper section 4.4)                                   */

typedef struct {
    int *perm;
    int G, disp, max, n;
    int *out; /* n x G */
} perm_ctx;

static void perm_rec(perm_ctx *p, int k, int *used)
{
    if (p->n >= p->max) return;
    if (k == p->G) {
        memcpy(p->out + (size_t)p->n * p->G, p->perm, (size_t)p->G * sizeof *p->perm);
        p->n++;
        return;
    }
    for (int g = 0; g < p->G; g++) {
        if (used[g] || abs(g - k) > p->disp) continue;
        /* a group left behind must still be placeable within its bound */
        int ok = 1;
        for (int h = 0; h < p->G && ok; h++)
            if (!used[h] && h != g && h < k + 1 - p->disp) ok = 0;
        if (!ok) continue;
        used[g] = 1;
        p->perm[k] = g;
        perm_rec(p, k + 1, used);
        used[g] = 0;
    }
}

int elk_orders_build(const elk_graph *g, const elk_sched_opts *o, int **orders, int max)
{
    int N = g->nops, L = g->per_layer;
    *orders = NULL;
    if (max < 1) return 0;
    /* groups of layer 0: each ends at an HBM-heavy op (above average bytes) */
    double avg = (g->weight_bytes + g->kv_bytes) / (N ? N : 1);
    int ends[256], G = 0;
    for (int k = 0; k < L && G < 255; k++)
        if (g->ops[g->head + k].hbm_bytes > o->heavy_factor * avg) ends[G++] = k;
    int start_of[257];
    if (G > 0) ends[G - 1] = L - 1; /* trailing small ops join the last group */
    start_of[0] = 0;
    for (int k = 1; k < G; k++) start_of[k] = ends[k - 1] + 1;
    int *perms = NULL, np = 1;
    if (G >= 2 && L > 0 && g->nlayers > 0) {
        perm_ctx p = {0};
        p.G = G;
        p.disp = o->max_disp;
        p.max = max;
        p.perm = calloc((size_t)G, sizeof *p.perm);
        int *used = calloc((size_t)G, sizeof *used);
        p.out = malloc((size_t)max * G * sizeof *p.out);
        if (!p.perm || !used || !p.out) {
            free(p.perm);
            free(used);
            free(p.out);
            return 0;
        }
        perm_rec(&p, 0, used);
        free(p.perm);
        free(used);
        perms = p.out;
        np = p.n;
    }
    int *out = malloc((size_t)np * N * sizeof *out);
    if (!out) {
        free(perms);
        return 0;
    }
    for (int c = 0; c < np; c++) {
        int *ord = out + (size_t)c * N;
        for (int r = 0; r < N; r++) ord[r] = r;
        if (!perms) continue;
        const int *pm = perms + (size_t)c * G;
        for (int l = 0; l < g->nlayers; l++) {
            int base = g->head + l * L, w = base;
            for (int k = 0; k < G; k++) {
                int grp = pm[k];
                for (int u = start_of[grp]; u <= ends[grp]; u++) ord[w++] = base + u;
            }
        }
    }
    free(perms);
    *orders = out;
    return np;
}

static double edit_dist(const int *order, int N)
{
    double s = 0;
    for (int r = 0; r < N; r++) s += abs(order[r] - r);
    return N ? s / N : 0;
}

/* ------------------------------------------------------------------ */
/* Policies                                                             */

/* The bound every run of Basic, Static and Elk-Dyn's own searches starts
 * from (elk_sched_opts.give_up_at). */
static double give_up(const elk_sched_opts *o) { return o->give_up_at > 0 ? o->give_up_at : INFINITY; }

/* The better of the allocator's price slots for Elk-Dyn in program order;
 * its run kept in *keep (if set). */
static int best_price(const elk_problem *pr, const elk_sched_opts *o, const int *ident, int N, elk_sched_keep *keep,
                      elk_status *st, elk_error *err)
{
    double best = give_up(o);
    int bv = 0;
    for (int v = 0; v < ELK_PRICES * DYN_THETAS(pr) && *st == ELK_OK; v++) {
        double m;
        *st = keep ? elk_sched_run_kept(pr, ELK_POL_DYN, o, ident, N, v, 0, best, &m, keep, err)
                   : elk_sched_run_one(pr, ELK_POL_DYN, o, ident, N, v, 0, best, &m, NULL, err);
        if (*st == ELK_OK && m < best) {
            best = m;
            bv = v;
        }
    }
    return bv;
}

static elk_status run_full(const elk_problem *pr, const elk_sched_opts *o, const elk_schedule *const *given,
                           elk_schedule *s, elk_error *err);

void elk_sched_opts_replay(elk_sched_opts *o, const elk_schedule *s, const int *entry, const int *window,
                           const int *copt, const double *pace, const double *len)
{
    o->replay_order = s->order;
    o->replay_entry = entry;
    o->replay_window = window;
    o->replay_variant = s->run_variant;
    o->replay_copt = copt;
    o->replay_pace = pace;
    o->replay_len = len;
}

int elk_schedule_rel_copt(const elk_problem *pr, const elk_schedule *s, int i)
{
    const elk_sched_op *op = &s->ops[i];
    return op->copt >= 0 ? op->copt - pr->menus[pr->graph.ops[i].shape_id].e[op->entry].c0 : -1;
}

elk_status elk_schedule_replay(const elk_problem *pr, const elk_schedule *s, elk_policy pol, const elk_sched_opts *o,
                               elk_schedule *out, elk_error *err)
{
    assert(pol == ELK_POL_DYN || pol == ELK_POL_FULL);
    memset(out, 0, sizeof *out);
    if (!s->ops) return ELK_OK;
    int N = s->nops;
    assert(N == pr->graph.nops);
    size_t N1 = (size_t)(N > 0 ? N : 1);
    int *entry = malloc(N1 * sizeof *entry), *window = malloc(N1 * sizeof *window), *copt = malloc(N1 * sizeof *copt);
    elk_status st = ELK_OK;
    if (!entry || !window || !copt) st = elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < N && st == ELK_OK; i++) {
        const elk_sched_op *op = &s->ops[i];
        entry[i] = op->entry;
        window[i] = op->window;
        copt[i] = elk_schedule_rel_copt(pr, s, i);
    }
    if (st == ELK_OK) {
        elk_sched_opts ro = *o;
        elk_sched_opts_replay(&ro, s, entry, window, copt, NULL, NULL);
        st = elk_schedule_run(pr, pol, &ro, out, err);
        if (st == ELK_OK) {
            out->policy = s->policy;
            out->static_variant = s->static_variant;
            out->orders_tried = s->orders_tried;
            out->adopted = s->adopted;
            out->avg_edit_dist = s->avg_edit_dist;
        } else if (st == ELK_ENOPLAN) {
            st = ELK_OK; /* out is empty: the decisions do not fit */
        }
    }
    free(entry);
    free(window);
    free(copt);
    return st;
}

/* Elk-Dyn's schedule, or Elk-Full's own search's, takes the timing of its
 * replay (elk_schedule_replay). The greedy times an op beside the layouts
 * of the ops still waiting at that moment, and a later commit may change
 * them (set_cold, shift_earlier), so the latency it computes is not the
 * time of the schedule it returns: from 1.8% faster to 3.7% slower on the
 * physical chips of `elk check` (docs/VALIDATION.md, session 23). The
 * replay is that time, and the one the event simulation runs. A replay
 * that does not fit leaves s as it is (none was seen). */
static elk_status settle(const elk_problem *pr, const elk_sched_opts *o, elk_policy pol, elk_schedule *s,
                         elk_error *err)
{
    elk_schedule r;
    elk_status st = elk_schedule_replay(pr, s, pol, o, &r, err);
    if (st == ELK_OK && r.ops) {
        elk_schedule_free(s);
        *s = r;
    }
    return st;
}

/* Most preload orders Elk-Full schedules: the paper searches 720 for
 * Llama2-70B (the paper); graphs whose cut operators make many heavy
 * groups per layer would otherwise enumerate thousands. */
#define ELK_FULL_MAX_ORDERS 720
/* Most finalists whose screen scores full_search keeps to abandon screening
 * runs early (more: every run screened to its end). */
#define ELK_FULL_MAX_FINALISTS 16

/* Elk-Full's own search: every candidate preload order (screened on a
 * prefix of identical layers, the best few and program order re-run on the
 * whole graph) at every allocator price slot, or only at o->price. Leaves the
 * winner in *s (s->ops NULL if nothing fits). */
static elk_status full_search(const elk_problem *pr, const elk_sched_opts *o, const elk_schedule *dyn,
                              elk_schedule *s, elk_error *err)
{
    int N = pr->graph.nops;
    int *orders = NULL;
    int no = elk_orders_build(&pr->graph, o, &orders, ELK_FULL_MAX_ORDERS);
    if (no <= 0) return elk_fail(err, ELK_ENOMEM, "out of memory building preload orders");
    const elk_graph *g = &pr->graph;
    int M = N;
    if (o->screen_layers > 0 && g->nlayers > o->screen_layers + 1) M = g->head + o->screen_layers * g->per_layer;
    double *score = malloc((size_t)no * sizeof *score);
    int *idx = malloc((size_t)no * sizeof *idx);
    if (!score || !idx) {
        free(score);
        free(idx);
        free(orders);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    elk_status st = ELK_OK;
    double best = INFINITY;
    int bc = -1, bv = 0;
    int fixed = o->price >= 0 && o->price < ELK_PRICES;
    /* Orders are screened at the price slot that suits program order (what
     * Elk-Dyn runs); the finalists are then re-run at every slot, since the
     * price that suits program order need not suit a reordered one (fixing
     * it made Elk-Full lose to Elk-Dyn's own price search at some points). */
    /* Elk-Dyn's own schedule, when given, is the run of that search's
     * winner (run_variant): its price search need not run twice */
    int pv = fixed ? o->price : dyn && dyn->ops ? dyn->run_variant : best_price(pr, o, orders, N, NULL, &st, err);
    for (int c = 0; c < no; c++) {
        idx[c] = c;
        score[c] = INFINITY;
    }
    int nf = o->finalists < no ? o->finalists : no;
    /* The screen keeps the nf best scores, so a run is abandoned once it
     * cannot beat the nf-th best so far (its score INFINITY then): at least
     * nf finite scores are below it, which keeps it out of the finalists as
     * its own score would, and a run that finishes scores as before. top:
     * the nf least scores so far, ascending. */
    double top[ELK_FULL_MAX_FINALISTS];
    int ntop = 0, keep_top = nf > 0 && nf <= ELK_FULL_MAX_FINALISTS;
    for (int c = 0; c < no && st == ELK_OK; c++) {
        double cut = keep_top && ntop == nf ? top[nf - 1] : INFINITY;
        st = elk_sched_run_one(pr, ELK_POL_FULL, o, orders + (size_t)c * N, M, pv, 0, cut, &score[c], NULL, err);
        if (st != ELK_OK || !keep_top || !(score[c] < cut)) continue;
        int t = ntop < nf ? ntop++ : nf - 1;
        while (t > 0 && top[t - 1] > score[c]) {
            top[t] = top[t - 1];
            t--;
        }
        top[t] = score[c];
    }
    /* stable selection of the finalists by score (identity is order 0) */
    for (int a = 1; a < no; a++)
        for (int b = a; b > 0 && score[idx[b]] < score[idx[b - 1]]; b--) {
            int t = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = t;
        }
    /* the winner's run, kept to fill s */
    elk_sched_keep kp;
    elk_sched_keep_init(&kp);
    for (int v = fixed ? pv : 0; v < (fixed ? pv + 1 : ELK_PRICES) && st == ELK_OK; v++)
        for (int f = -1; f < nf && st == ELK_OK; f++) {
            int c = f < 0 ? 0 : idx[f];
            if (f >= 0 && c == 0) continue;
            if (!isfinite(score[c]) && c != 0) continue;
            double m;
            st = elk_sched_run_kept(pr, ELK_POL_FULL, o, orders + (size_t)c * N, N, v, 0, best, &m, &kp, err);
            if (st == ELK_OK && m < best) {
                best = m;
                bc = c;
                bv = v;
            }
        }
    if (st == ELK_OK && bc >= 0) {
        st = elk_sched_keep_fill(&kp, s, err);
        s->static_variant = bv;
        s->orders_tried = no;
        if (st == ELK_OK && s->order) s->avg_edit_dist = edit_dist(s->order, N);
    }
    elk_sched_keep_free(&kp);
    free(score);
    free(idx);
    free(orders);
    return st;
}

/* Elk-Full as a compiler runs it: its own search, and the schedules of
 * Elk-Dyn, Static and Basic as further candidates. Every candidate is timed
 * by the same model, so keeping the fastest is sound, and it makes Elk-Full
 * never slower than any of them at the same point. given[p], when not NULL,
 * is policy p's schedule of this point already computed (elk_result_run);
 * the others are computed here. */
static elk_status run_full(const elk_problem *pr, const elk_sched_opts *o, const elk_schedule *const *given,
                           elk_schedule *s, elk_error *err)
{
    static const elk_policy cands[] = {ELK_POL_DYN, ELK_POL_STATIC, ELK_POL_BASIC};
    elk_schedule mine[3] = {{0}};
    const elk_schedule *c[3];
    for (int k = 0; k < 3; k++) {
        c[k] = given ? given[cands[k]] : NULL;
        if (c[k]) continue;
        elk_error e2;
        elk_status st = elk_schedule_run(pr, cands[k], o, &mine[k], &e2);
        if (st == ELK_ECANCEL) {
            for (int j = 0; j < 3; j++) elk_schedule_free(&mine[j]);
            *err = e2;
            return st;
        }
        if (st == ELK_OK) c[k] = &mine[k]; /* else that policy fits no schedule here */
    }
    elk_status st = full_search(pr, o, c[0], s, err);
    s->adopted = -1;
    if (st == ELK_OK) st = settle(pr, o, ELK_POL_FULL, s, err);
    for (int k = 0; k < 3 && st == ELK_OK; k++) {
        if (!c[k] || !c[k]->ops || (s->ops && c[k]->latency >= s->latency)) continue;
        int tried = s->orders_tried;
        double edit = s->avg_edit_dist;
        elk_schedule_free(s);
        if (elk_schedule_copy(s, c[k]) != ELK_OK) {
            st = elk_fail(err, ELK_ENOMEM, "out of memory");
            break;
        }
        s->orders_tried = tried;
        s->avg_edit_dist = edit;
        s->adopted = cands[k];
        s->policy = ELK_POL_FULL;
    }
    for (int k = 0; k < 3; k++) elk_schedule_free(&mine[k]);
    return st;
}

/* elk_schedule_run, with Elk-Full handed the candidates already scheduled
 * (given[p] or NULL; given itself may be NULL). */
static elk_status schedule_run(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o,
                               const elk_schedule *const *given, elk_schedule *s, elk_error *err)
{
    memset(s, 0, sizeof *s);
    double t0 = elk_sched_now_ms();
    int N = pr->graph.nops;
    int *ident = malloc((size_t)N * sizeof *ident);
    if (!ident) return elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int r = 0; r < N; r++) ident[r] = r;
    elk_status st = ELK_OK;
    double ms = INFINITY;

    switch (pol) {
    case ELK_POL_IDEAL:
        st = elk_sched_run_ideal(pr, o, ident, s, err);
        ms = s->latency;
        break;
    case ELK_POL_DYN:
    case ELK_POL_FULL:
        if (o->replay_entry) {
            st = elk_sched_run_one(pr, pol, o, o->replay_order ? o->replay_order : ident, N, o->replay_variant, 0, INFINITY,
                         &ms, s, err);
            s->static_variant = o->replay_variant % ELK_PRICES;
            break;
        }
        if (pol == ELK_POL_FULL) {
            st = run_full(pr, o, given, s, err);
            ms = s->ops ? s->latency : INFINITY;
            break;
        }
        {
        /* the allocator's price of replication traffic is searched, as the
         * artifact searches its NoC threshold for Elk-Dyn */
        elk_sched_keep kp;
        elk_sched_keep_init(&kp);
        int v = best_price(pr, o, ident, N, &kp, &st, err);
        ms = kp.ms;
        if (st == ELK_OK && isfinite(ms)) st = elk_sched_keep_fill(&kp, s, err);
        elk_sched_keep_free(&kp);
        s->static_variant = v % ELK_PRICES;
        if (st == ELK_OK && isfinite(ms)) {
            st = settle(pr, o, pol, s, err);
            ms = s->latency;
        }
        break;
    }
    case ELK_POL_BASIC: {
        /* the faster layout's run kept to fill s; the replicated one is
         * abandoned once it cannot beat the distributed one */
        double m0, m1;
        elk_sched_keep kp;
        elk_sched_keep_init(&kp);
        st = elk_sched_run_kept(pr, pol, o, ident, N, 0, 0, give_up(o), &m0, &kp, err);
        if (st == ELK_OK) st = elk_sched_run_kept(pr, pol, o, ident, N, 1, 0, fmin(m0, give_up(o)), &m1, &kp, err);
        if (st == ELK_OK) {
            int v = m1 < m0;
            ms = kp.ms;
            if (isfinite(ms)) st = elk_sched_keep_fill(&kp, s, err);
            s->static_variant = v;
        }
        elk_sched_keep_free(&kp);
        break;
    }
    case ELK_POL_STATIC: {
        double lo = 0;
        for (int k = 0; k < pr->graph.nshapes; k++) lo = fmax(lo, pr->menus[k].e[0].hot);
        /* launch.py's floor: the smallest plan under the least preload size */
        if ((pr->chip.profile & (1u << ELK_PSW_MINCOLD)) && (pr->chip.profile & (1u << ELK_PSW_PLANTABLES)))
            lo = fmax(lo, elk_plan_art_static_floor(pr->menus, pr->graph.nshapes));
        double step = o->static_step_kib * 1024.0;
        double bx = -1;
        int bv = 0;
        double best = give_up(o);
        elk_sched_keep kp; /* the run that set best */
        elk_sched_keep_init(&kp);
        /* X from the largest smallest plan up to all of SRAM, in steps */
        int nx = (int)floor((pr->sram - lo) / step) + 1;
        for (int v = 0; v < 2 && st == ELK_OK; v++) {
            /* the last run's comparisons with its X (elk_sched_run_static):
             * a larger X they all answer alike repeats that run, which
             * cannot beat best (it set it, or lost to it, or was abandoned
             * above a larger abort_at), so it is not run (most steps of
             * 10 KiB cross no menu's hot and no window's colds) */
            double xr_hot = -INFINITY, xr_cold = INFINITY;
            for (int k = 0; k <= nx && st == ELK_OK; k++) {
                double X = k < nx ? lo + k * step : pr->sram, m;
                if (X > pr->sram || (k == nx && lo + (nx - 1) * step >= pr->sram)) continue;
                if (X < xr_hot && !(xr_cold > pr->sram - X)) continue;
                st = elk_sched_run_static(pr, o, ident, N, v, X, best, &m, &xr_hot, &xr_cold, &kp, err);
                if (st == ELK_OK && m < best) {
                    best = m;
                    bx = X;
                    bv = v;
                }
            }
        }
        if (st == ELK_OK && bx > 0) {
            ms = kp.ms;
            st = elk_sched_keep_fill(&kp, s, err);
            s->static_exec_kib = bx / 1024.0;
            s->static_variant = bv;
        }
        elk_sched_keep_free(&kp);
        break;
    }
    default: st = elk_fail(err, ELK_EINVAL, "unknown policy %d", (int)pol);
    }
    free(ident);
    if (st == ELK_OK && !isfinite(ms)) {
        elk_schedule_free(s);
        return elk_fail(err, ELK_ENOPLAN,
                        "%s: no schedule fits in %.0f KiB of usable SRAM per core (an operator's smallest plan plus "
                        "the preloads it must hold exceed it)",
                        elk_policy_labels[pol], pr->sram / 1024.0);
    }
    if (st != ELK_OK) {
        elk_schedule_free(s);
        return st;
    }
    s->policy = pol;
    if (pol != ELK_POL_FULL) s->adopted = -1;
    s->solve_ms = elk_sched_now_ms() - t0;
    return ELK_OK;
}

elk_status elk_schedule_run(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o, elk_schedule *s,
                            elk_error *err)
{
    return schedule_run(pr, pol, o, NULL, s, err);
}

void elk_schedule_free(elk_schedule *s)
{
    free(s->ops);
    free(s->order);
    memset(s, 0, sizeof *s);
}

elk_status elk_schedule_copy(elk_schedule *dst, const elk_schedule *src)
{
    *dst = *src;
    dst->ops = malloc((size_t)src->nops * sizeof *dst->ops);
    dst->order = malloc((size_t)src->nops * sizeof *dst->order);
    if (!dst->ops || !dst->order) {
        free(dst->ops);
        free(dst->order);
        memset(dst, 0, sizeof *dst);
        return ELK_ENOMEM;
    }
    memcpy(dst->ops, src->ops, (size_t)src->nops * sizeof *dst->ops);
    memcpy(dst->order, src->order, (size_t)src->nops * sizeof *dst->order);
    return ELK_OK;
}

elk_status elk_result_run(const elk_problem *pr, const elk_sched_opts *o, unsigned mask, elk_result *r,
                          elk_error *err)
{
    memset(r, 0, sizeof *r);
    static const elk_policy run_order[] = {ELK_POL_IDEAL, ELK_POL_BASIC, ELK_POL_STATIC, ELK_POL_DYN, ELK_POL_FULL};
    for (int k = 0; k < ELK_POL_COUNT; k++) {
        elk_policy p = run_order[k];
        if (!(mask & (1u << p))) continue;
        /* Elk-Full takes the policies run before it as candidates */
        const elk_schedule *given[ELK_POL_COUNT] = {0};
        for (int q = 0; q < ELK_POL_COUNT; q++)
            if (r->have[q]) given[q] = &r->pol[q];
        elk_status st = schedule_run(pr, p, o, given, &r->pol[p], err);
        if (st != ELK_OK) {
            elk_result_free(r);
            return st;
        }
        r->have[p] = 1;
    }
    elk_result_finish(r);
    return ELK_OK;
}

void elk_result_finish(elk_result *r)
{
    for (int p = 0; p < ELK_POL_COUNT; p++)
        r->pct_ideal[p] = r->have[p] && r->have[ELK_POL_IDEAL]
                              ? 100.0 * r->pol[ELK_POL_IDEAL].latency / r->pol[p].latency
                              : 0;
}

void elk_result_free(elk_result *r)
{
    for (int p = 0; p < ELK_POL_COUNT; p++) elk_schedule_free(&r->pol[p]);
    memset(r, 0, sizeof *r);
}
