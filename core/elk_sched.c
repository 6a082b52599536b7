#include "elk_sched.h"
#include "elk_plan_art.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elk_cost.h"

const char *const elk_policy_names[] = {"basic", "static", "elk-dyn", "elk-full", "ideal", NULL};
const char *const elk_policy_labels[] = {"Basic", "Static", "Elk-Dyn", "Elk-Full", "Ideal", NULL};
const char *const elk_brk_names[] = {"execute", "overlapped", "preload", "interconnect", "distribution", NULL};

int elk_policy_find(const char *name)
{
    for (int p = 0; p < ELK_POL_COUNT; p++)
        if (!strcmp(name, elk_policy_names[p]) || !strcmp(name, elk_policy_labels[p])) return p;
    if (!strcmp(name, "dyn")) return ELK_POL_DYN;
    if (!strcmp(name, "full")) return ELK_POL_FULL;
    return -1;
}

void elk_sched_opts_default(elk_sched_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_disp = 4;
    o->heavy_factor = 1.0;
    o->screen_layers = 2;
    o->finalists = 4;
    o->alloc = ELK_ALLOC_PAPER;
    o->static_step_kib = 10;
    o->window = 0;
    o->price = -1;
    o->cancel = NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------ */
/* Problem                                                              */

elk_status elk_problem_init(elk_problem *pr, const elk_point *p, elk_plan_cache *pc, elk_error *err)
{
    memset(pr, 0, sizeof *pr);
    elk_chip c;
    elk_model m;
    elk_graph g;
    ELK_TRY(elk_point_resolve(p, &c, &m, err));
    ELK_TRY(elk_graph_build(&m, p->workload, p->batch, p->seq, p->layers, &g, err));
    elk_graph_apply_profile(&g, c.profile);
    elk_status st = elk_problem_init_graph(pr, &c, &m, &g, pc, err);
    pr->point = *p;
    return st;
}

/* Choosing the cut of an operator that outgrows SRAM: the least summed
 * execution of its pieces (and a reduced cut's adds), each at its fastest
 * plan. (Adding the largest piece's preload, which no schedule overlaps with
 * that piece, favoured cutting weights that fit whole, and the policies lost
 * up to 12% on Llama2-70B.) The plan sets are the cache's, so the chosen
 * cut's pieces are enumerated once. The candidates (elk_split_ladder) nest as
 * SRAM grows, so more SRAM never raises the least total, and with it Ideal,
 * which sees a cut operator only through its pieces' summed execution. Ties
 * go to the earlier candidate: the whole op, then fewer pieces. */
typedef struct {
    const elk_chip *c;
    elk_plan_cache *pc;
} split_ctx;

static double fastest_exe(const split_ctx *sc, const elk_op *op)
{
    const elk_plan_set *set;
    elk_error err;
    elk_menu m;
    if (elk_plan_cache_get(sc->pc, sc->c, op, &set, &err) != ELK_OK) return INFINITY;
    elk_status st = elk_menu_build(sc->c, op, set, &m, &err);
    elk_plan_cache_release(sc->pc, set);
    if (st != ELK_OK) return INFINITY;
    double e = m.n > 0 ? m.e[m.n - 1].exe : INFINITY;
    elk_menu_free(&m);
    return e;
}

static int pick_split(const elk_op *op, const elk_split *opt, int n, void *ctx)
{
    const split_ctx *sc = ctx;
    int best = -1, dim = -1;
    if ((sc->c->profile & (1u << ELK_PSW_PLANTABLES)) && (best = elk_plan_art_pick_split(op, opt, n)) >= 0) return best;
    double bestT = INFINITY, lastT = INFINITY;
    for (int k = 0; k < n; k++) {
        if (!opt[k].fits) continue;
        /* along one dim the total falls, then rises once pieces get too
         * small for the cores: stop at the first rise */
        if (opt[k].pieces > 1 && opt[k].dim == dim && lastT == -INFINITY) continue;
        if (opt[k].pieces == 1 || opt[k].dim != dim) lastT = INFINITY;
        dim = opt[k].pieces > 1 ? opt[k].dim : -1;
        double E;
        if (opt[k].pieces == 1) {
            E = fastest_exe(sc, op);
        } else {
            long D = op->dim[opt[k].dim];
            int K = opt[k].pieces, nlong = (int)(D % K);
            elk_op piece;
            elk_split_piece(op, &opt[k], K - 1, &piece);
            E = (K - nlong) * fastest_exe(sc, &piece);
            elk_split_piece(op, &opt[k], 0, &piece); /* a longer one */
            if (nlong > 0 && isfinite(E)) E += nlong * fastest_exe(sc, &piece);
            if (opt[k].kind == ELK_SPLIT_REDUCED && isfinite(E)) {
                elk_op add;
                elk_split_add(op, 1, &add);
                E += (K - 1) * fastest_exe(sc, &add);
            }
        }
        if (E < bestT * (1 - 1e-12)) {
            bestT = E;
            best = k;
        }
        lastT = E > lastT ? -INFINITY : E;
    }
    if (best >= 0) return best;
    /* nothing fits: the finest cut, and the planner names what does not fit */
    for (int k = 0; k < n; k++)
        if (best < 0 || opt[k].pieces > opt[best].pieces) best = k;
    return best;
}

elk_status elk_problem_init_graph(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g,
                                  elk_plan_cache *pc, elk_error *err)
{
    memset(pr, 0, sizeof *pr);
    elk_point_defaults(&pr->point);
    pr->chip = *c;
    if (m) pr->model = *m;
    pr->graph = *g;
    memset(g, 0, sizeof *g);
    pr->sram = elk_chip_sram_bytes(&pr->chip);
    /* operators whose data cannot fit half the chip's SRAM are split, the cut
     * chosen by the pieces' own fastest times */
    split_ctx sc = {&pr->chip, pc};
    pr->split_ops = elk_graph_split_large_ladder(&pr->graph, 0.5 * pr->sram * pr->chip.cores, pick_split, &sc);
    int ns = pr->graph.nshapes;
    pr->menus = calloc((size_t)ns, sizeof *pr->menus);
    pr->sets = calloc((size_t)ns, sizeof *pr->sets);
    int *rep = malloc((size_t)ns * sizeof *rep);
    if (!pr->menus || !pr->sets || !rep) {
        free(rep);
        elk_problem_free(pr);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    for (int s = 0; s < ns; s++) rep[s] = -1;
    for (int i = 0; i < pr->graph.nops; i++)
        if (rep[pr->graph.ops[i].shape_id] < 0) rep[pr->graph.ops[i].shape_id] = i;
    double t0 = now_ms();
    elk_status st = ELK_OK;
    pr->cache = pc;
    for (int s = 0; s < ns && st == ELK_OK; s++)
        st = elk_plan_cache_get(pc, &pr->chip, &pr->graph.ops[rep[s]], &pr->sets[s], err);
    double t1 = now_ms();
    for (int s = 0; s < ns && st == ELK_OK; s++)
        st = elk_menu_build(&pr->chip, &pr->graph.ops[rep[s]], pr->sets[s], &pr->menus[s], err);
    pr->plan_ms = t1 - t0;
    pr->menu_ms = now_ms() - t1;
    free(rep);
    if (st != ELK_OK) elk_problem_free(pr);
    return st;
}

double elk_problem_exec_floor(const elk_problem *pr)
{
    double s = 0;
    for (int i = 0; i < pr->graph.nops; i++) {
        const elk_menu *m = &pr->menus[pr->graph.ops[i].shape_id];
        s += m->e[m->n - 1].exe;
    }
    return s;
}

void elk_problem_free(elk_problem *pr)
{
    if (pr->menus)
        for (int s = 0; s < pr->graph.nshapes; s++) elk_menu_free(&pr->menus[s]);
    free(pr->menus);
    if (pr->sets)
        for (int s = 0; s < pr->graph.nshapes; s++) elk_plan_cache_release(pr->cache, pr->sets[s]);
    free(pr->sets);
    elk_graph_free(&pr->graph);
    memset(pr, 0, sizeof *pr);
}

/* ------------------------------------------------------------------ */
/* Schedule state                                                       */

/* The backward list scheduler's working state for one run. Times are
 * cycles, negative, with the last execution ending at 0.
 * Invariants: positions >= placed_lo have their preload placed; preloads are
 * serial in position order (pe[r] <= ps[r+1]); an op's preload ends before
 * its execution starts. */
typedef struct {
    const elk_problem *pr;
    const elk_chip *c;
    const elk_sched_opts *o;
    elk_policy pol;
    int N;              /* ops scheduled (a prefix when screening) */
    int window;
    int variant;        /* Basic/Static: 0 fully distributed, 1 replicated;
                           Elk: the allocator's price slot */
    double xlimit;      /* Static: execution region, bytes; Dyn: execution ceiling */
    int price;          /* Elk: which allocator price slot (elk_menu eff) */
    int force_q;        /* exact search: take only this candidate (-1: the policy's rule) */
    int force_e;        /* exact search: with this execute-state entry (-1: the allocator's) */
    int replay;         /* o->replay_*: force_e at every candidate, the furthest up to force_q */
    int list_mode;      /* exact search: list feasible candidates (1) or (candidate, plan) pairs (2) */
    int *cand, *cand_e; /* exact search: the listed pairs */
    int ncand, cand_cap;
    double abort_at;    /* give up once the makespan exceeds this */
    double noc_share;   /* paper profile: the share of the preload NoC rate this policy may use
                           (theta, and int(5.5)/5.5), else 1 */
    int artifact_noc;   /* paper profile's "contention" switch */
    int mincold;        /* paper profile's "mincold" switch, Basic and Static only */
    const int *order;   /* position -> op */
    int *pos;           /* op -> position */
    int *pmax;          /* max position over ops 0..i */
    double *es, *ee, *ps, *pe;
    int *entry, *copt, *pnum, *win;
    double *cold, *dist, *deliv, *dur, *nocT, *hbmT, *stall, *resident;
    int placed_lo;
    int lookback;       /* max over ops j of pmax[j] + 1 - pos[j]: how far before an op's first
                           candidate position a preload it must hold can sit */
    /* scratch */
    int *W, *Wc, *bestW, *bestWc;
    int wcap;
} sctx;

static const elk_menu *menu_of(const sctx *x, int i) { return &x->pr->menus[x->pr->graph.ops[i].shape_id]; }
static double hbm_of(const sctx *x, int i) { return x->pr->graph.ops[i].hbm_bytes; }

static double pre_noc_cycles(const elk_chip *c, double hbm, double deliv)
{
    if (hbm <= 0) return 0;
    double r = fmax(1.0, deliv / hbm);
    return hbm / elk_cost_preload_rate(c, r);
}

/* Preload duration and NoC time of op i with cold option k. */
static void set_cold(sctx *x, int i, int k)
{
    const elk_menu *m = menu_of(x, i);
    const elk_menu_entry *e = &m->e[x->entry[i]];
    double h = hbm_of(x, i);
    x->copt[i] = k;
    if (e->nc == 0 || h <= 0) {
        x->cold[i] = 0;
        x->dist[i] = 0;
        x->deliv[i] = 0;
        x->dur[i] = 0;
        x->nocT[i] = 0;
        x->hbmT[i] = 0;
        return;
    }
    const elk_menu_cold *mc = &m->cold[e->c0 + k];
    x->cold[i] = mc->cold;
    x->dist[i] = x->pol == ELK_POL_IDEAL ? 0 : mc->dist;
    x->deliv[i] = mc->deliv;
    x->nocT[i] = pre_noc_cycles(x->c, h, mc->deliv);
    x->hbmT[i] = h / elk_chip_hbm_bytes_per_cycle(x->c);
    x->dur[i] = x->noc_share < 1 ? fmax(x->hbmT[i], x->nocT[i] / x->noc_share)
                                 : elk_cost_preload_cycles(x->c, h, mc->deliv);
}

/* The cold option an op starts with: cheapest distribution plus the time its
 * preload would run past the HBM time because of replication. */
static int initial_cold(const sctx *x, int i, int entry)
{
    const elk_menu *m = menu_of(x, i);
    const elk_menu_entry *e = &m->e[entry];
    if (e->nc <= 1) return 0;
    if (x->pol == ELK_POL_BASIC || x->pol == ELK_POL_STATIC) return x->variant ? e->nc - 1 : 0;
    if (x->o->alloc == ELK_ALLOC_ARTIFACT) return 0; /* preloads charged fully distributed */
    return e->eopt[x->price];
}

/* The artifact's baseline_cold_hot (paper profile "mincold"; ARTIFACT-NOTES
 * 4.7): Basic's and Static's distributed variant takes the operator's least
 * preload size exactly and the fastest plan with that layout that fits the
 * budget; the replicated variant the largest preload size any fitting plan
 * has. Ours otherwise take the fastest fitting plan and its own least (or
 * most) replicated layout, which at 1472 cores avoids the artifact's slow
 * exactly-least-size plans of the attention matmuls (464k cycles against
 * 41k). Returns the entry (-1 if none) and its cold option in *kout. */
static int baseline_pick(const sctx *x, int i, double budget, int *kout)
{
    const elk_menu *m = menu_of(x, i);
    *kout = 0;
    if (hbm_of(x, i) <= 0) return elk_menu_best(m, budget);
    double want = m->min_cold;
    if (x->variant) {
        want = -1;
        for (int e = 0; e < m->n && m->e[e].hot <= budget; e++)
            for (int k = 0; k < m->e[e].nc; k++) want = fmax(want, m->cold[m->e[e].c0 + k].cold);
    }
    int best = -1;
    double bt = INFINITY;
    /* with the artifact's tables, its rule exactly: the largest hot that fits */
    int largest = (x->c->profile >> ELK_PSW_PLANTABLES) & 1u;
    for (int e = 0; e < m->n && m->e[e].hot <= budget; e++)
        for (int k = 0; k < m->e[e].nc; k++) {
            const elk_menu_cold *mc = &m->cold[m->e[e].c0 + k];
            if (mc->cold != want || (!largest && m->e[e].exe + mc->dist >= bt)) continue;
            bt = m->e[e].exe + mc->dist;
            best = e;
            *kout = k;
        }
    return best;
}

/* Execution length of op i ending at D, stretched by the preloads that
 * stream in its window. Two effects (paper section 2.3):
 *  - interconnect: BSP exchange phases share the cores' ports with preload
 *    traffic. If the preloads keep the network busy a fraction rho of the
 *    window, max-min sharing slows the op's exchange by that fraction
 *    (at most doubling it: the preload yields half the port);
 *  - SRAM port: on chips whose cores pause for remote accesses, every byte
 *    delivered into a core steals its share of the local port.
 * Preload intervals themselves are not stretched here; the event simulator
 * (elk_sim) shares links both ways and reports how far this estimate is off. */
/* NoC time the preloads placed at positions < q keep busy in [s, D], and
 * (if bytes) the bytes they deliver into cores meanwhile. */
static double window_noc(const sctx *x, double s, double D, int q, double *bytes)
{
    double B = 0, by = 0;
    for (int r = q - 1; r >= x->placed_lo; r--) {
        if (x->pe[r] <= s) break;
        int j = x->order[r];
        double d = x->pe[r] - x->ps[r];
        if (d <= 0) continue;
        double ov = fmin(x->pe[r], D) - fmax(x->ps[r], s);
        if (ov <= 0) continue;
        B += x->nocT[j] * ov / d;
        by += x->deliv[j] * ov / d;
    }
    if (bytes) *bytes = by;
    return B;
}

/* The artifact's rules (paper profile, "contention"; ARTIFACT-NOTES 4.3):
 * Basic, Static and Elk-Dyn delay an op until its exchange and syncs fit in
 * the NoC time its preloads leave, L = max(own, xc + busy); Elk-Full leaves
 * the op alone and pushes the preloads earlier (push_preloads). */
static double artifact_len(const sctx *x, double own, double xc, double D, int q)
{
    if (x->pol == ELK_POL_FULL) return own;
    double L = own;
    for (int it = 0; it < 8; it++) {
        double nl = fmax(own, xc + window_noc(x, D - L, D, q, NULL));
        if (fabs(nl - L) < 0.5) return nl;
        L = nl;
    }
    return L;
}

/* Elk-Full under the artifact's rules: the preload NoC time in op i's window
 * that its compute cannot hide moves those preloads, and every earlier one,
 * earlier by the excess. */
static void push_preloads(sctx *x, int i, int q)
{
    double s = x->es[i], D = x->ee[i];
    double excess = window_noc(x, s, D, q, NULL) - menu_of(x, i)->e[x->entry[i]].comp;
    if (excess <= 0) return;
    for (int r = q - 1; r >= x->placed_lo; r--) {
        x->ps[r] -= excess;
        x->pe[r] -= excess;
    }
}

static double contended_len(const sctx *x, double own, double xc, double D, int q)
{
    if (x->artifact_noc) return artifact_len(x, own, xc, D, q);
    const elk_chip *c = x->c;
    double L = own;
    double port = c->remote_access_pauses ? 1.0 / (c->cores * c->sram_port_bytes_per_cycle) : 0;
    for (int it = 0; it < 6; it++) {
        double bytes, B = window_noc(x, D - L, D, q, &bytes);
        double rho = L > 0 ? fmin(1.0, B / L) : 0;
        double nl = own + rho * xc + bytes * port;
        if (fabs(nl - L) < 0.5) {
            L = nl;
            break;
        }
        L = nl;
    }
    return L;
}

/* ------------------------------------------------------------------ */
/* Cost-aware allocation (paper section 4.3)                            */

/* Working copy of a candidate group's choices. */
typedef struct {
    int entry;       /* executing op's front entry */
    int n;           /* waiting ops */
    int *w, *k;      /* waiting op ids and their cold option indices */
    double delta;    /* distribution time added to waiting ops */
} alloc_t;

/* Shrink the group until it fits: repeatedly take the step with the most
 * space saved per unit of time added. Returns 0 if nothing fits. */
static int allocate(const sctx *x, int i, alloc_t *a)
{
    const elk_menu *mi = menu_of(x, i);
    const int *ef = mi->eff[x->price];
    double total = mi->e[ef[a->entry]].hot;
    for (int j = 0; j < a->n; j++) total += x->cold[a->w[j]];
    /* the waiting ops' current colds were summed; a->k may differ from copt */
    for (int j = 0; j < a->n; j++) {
        int w = a->w[j];
        const elk_menu *m = menu_of(x, w);
        const elk_menu_entry *e = &m->e[x->entry[w]];
        if (e->nc) total += m->cold[e->c0 + a->k[j]].cold - x->cold[w];
    }
    a->delta = 0;
    while (total > x->pr->sram) {
        double best = -1;
        int who = -2;
        if (a->entry > 0) {
            double ds = mi->e[ef[a->entry]].hot - mi->e[ef[a->entry - 1]].hot;
            double dt = mi->e[ef[a->entry - 1]].ecost[x->price] - mi->e[ef[a->entry]].ecost[x->price];
            double r = dt <= 0 ? INFINITY : ds / dt;
            if (r > best) {
                best = r;
                who = -1;
            }
        }
        if (x->o->alloc == ELK_ALLOC_PAPER)
            for (int j = 0; j < a->n; j++) {
                int w = a->w[j];
                if (a->k[j] == 0) continue;
                const elk_menu *m = menu_of(x, w);
                const elk_menu_entry *e = &m->e[x->entry[w]];
                const elk_menu_cold *c1 = &m->cold[e->c0 + a->k[j]], *c0 = &m->cold[e->c0 + a->k[j] - 1];
                double ds = c1->cold - c0->cold, dt = c0->dist - c1->dist;
                double r = dt <= 0 ? INFINITY : ds / dt;
                if (r > best) {
                    best = r;
                    who = j;
                }
            }
        if (who == -2) return 0;
        if (who == -1) {
            total -= mi->e[ef[a->entry]].hot - mi->e[ef[a->entry - 1]].hot;
            a->entry--;
        } else {
            int w = a->w[who];
            const elk_menu *m = menu_of(x, w);
            const elk_menu_entry *e = &m->e[x->entry[w]];
            const elk_menu_cold *c1 = &m->cold[e->c0 + a->k[who]], *c0 = &m->cold[e->c0 + a->k[who] - 1];
            total -= c1->cold - c0->cold;
            a->delta += c0->dist - c1->dist;
            a->k[who]--;
        }
    }
    return 1;
}

/* Move ops (i, j] earlier by d to make room for a longer distribution of
 * op j, keeping preloads serial. */
static void shift_earlier(sctx *x, int i, int j, double d)
{
    if (d <= 0) return;
    for (int k = i + 1; k <= j; k++) {
        if (k < j) x->ee[k] -= d;
        x->es[k] -= d;
        int r = x->pos[k];
        if (r >= x->placed_lo) {
            x->ps[r] -= d;
            x->pe[r] -= d;
        }
    }
    for (int r = x->N - 2; r >= x->placed_lo; r--)
        if (x->pe[r] > x->ps[r + 1]) {
            double s = x->pe[r] - x->ps[r + 1];
            x->pe[r] -= s;
            x->ps[r] -= s;
        }
}

/* ------------------------------------------------------------------ */
/* The backward pass                                                    */

static int grow(sctx *x, int n)
{
    if (n <= x->wcap) return 0;
    int cap = n * 2;
    int *a = realloc(x->W, (size_t)cap * sizeof *a), *b = realloc(x->Wc, (size_t)cap * sizeof *b);
    if (a) x->W = a;
    if (b) x->Wc = b;
    int *c2 = realloc(x->bestW, (size_t)cap * sizeof *c2), *d2 = realloc(x->bestWc, (size_t)cap * sizeof *d2);
    if (c2) x->bestW = c2;
    if (d2) x->bestWc = d2;
    if (!a || !b || !c2 || !d2) return -1;
    x->wcap = cap;
    return 0;
}

static void place_preloads(sctx *x, int i)
{
    while (x->placed_lo > 0 && x->order[x->placed_lo - 1] >= i) {
        int r = --x->placed_lo;
        int op = x->order[r];
        double end = x->es[op];
        if (r + 1 < x->N && x->ps[r + 1] < end) end = x->ps[r + 1];
        x->pe[r] = end;
        x->ps[r] = end - x->dur[op];
    }
}

/* Schedule op i given the fixed schedule after it. Returns -1 if nothing
 * fits (the run is infeasible). */
static int schedule_op(sctx *x, int i)
{
    assert(x->pol != ELK_POL_IDEAL); /* Ideal is run_ideal's closed form */
    if (x->replay) {
        x->force_e = x->o->replay_entry[i];
        x->force_q = x->o->replay_window[i];
    }
    const elk_menu *mi = menu_of(x, i);
    const elk_problem *pr = x->pr;
    double sram = pr->sram;
    double next = i == x->N - 1 ? 0 : x->es[i + 1];
    int qmin = x->pmax[i] + 1;
    int nw = 0;
    if (grow(x, x->window + 64)) return -1;
    for (int r = qmin - 1; r >= 0 && r >= qmin - x->lookback; r--)
        if (x->order[r] > i) {
            if (grow(x, nw + 1)) return -1;
            x->W[nw++] = x->order[r];
        }
    int nforced = nw;
    double cold_sum = 0;
    for (int k = 0; k < nw; k++) cold_sum += x->cold[x->W[k]];

    double best_start = -INFINITY, best_L = 0, best_D = 0;
    int best_q = -1, best_entry = -1, best_nw = 0, best_k = 0, cand_k = 0;
    int basic_target = -1;
    if (x->pol == ELK_POL_BASIC) {
        /* preload only up to the next operator that has HBM data */
        int unf = (pr->chip.profile >> ELK_PSW_UNFUSED) & 1u;
        for (int r = qmin; r < x->N; r++)
            if (hbm_of(x, x->order[r]) > 0 || (unf && pr->graph.ops[x->order[r]].unf_cold)) {
                basic_target = r + 1;
                break;
            }
        if (basic_target < 0) basic_target = x->N;
    }

    for (int q = qmin;; q++) {
        if (q > qmin) {
            int j = x->order[q - 1];
            if (grow(x, nw + 1)) return -1;
            x->W[nw++] = j;
            cold_sum += x->cold[j];
        }
        int last = q >= x->N || x->ps[q] >= next;
        double D = last ? next : x->ps[q];
        int feasible = 1, entry = -1;
        double L = 0, start = -INFINITY;
        alloc_t a = {0, 0, NULL, NULL, 0};

        switch (x->pol) {
        case ELK_POL_BASIC:
        case ELK_POL_STATIC: {
            for (int k = 0; k < nw; k++) x->Wc[k] = x->copt[x->W[k]];
            double budget = x->pol == ELK_POL_STATIC ? x->xlimit : sram - cold_sum;
            if (x->pol == ELK_POL_STATIC && cold_sum > sram - x->xlimit) feasible = 0;
            if (x->mincold) entry = baseline_pick(x, i, budget, &cand_k);
            else entry = elk_menu_best(mi, budget);
            if (entry < 0) feasible = 0;
            /* Basic and Static pick their candidate by rule, not by start
             * time: the contended length is computed once, at commit */
            if (feasible) L = mi->e[entry].exe;
            break;
        }
        default: { /* Elk-Dyn, Elk-Full */
            if (x->force_e >= 0 && (x->replay || x->force_q == q)) {
                /* the exact search's pair: this plan, waiting preloads as they are */
                for (int k = 0; k < nw; k++) x->Wc[k] = x->copt[x->W[k]];
                entry = x->force_e;
                const elk_menu_entry *e = &mi->e[entry];
                if (e->hot + cold_sum > sram) {
                    feasible = 0;
                    break;
                }
                int k = initial_cold(x, i, entry);
                double dist = e->nc && hbm_of(x, i) > 0 ? mi->cold[e->c0 + k].dist : 0;
                L = contended_len(x, e->exe + dist, e->xcyc + dist, D, q);
                break;
            }
            a.entry = mi->neff[x->price] - 1;
            a.n = nw;
            a.w = x->W;
            a.k = x->Wc;
            for (int k = 0; k < nw; k++) a.k[k] = x->copt[x->W[k]];
            if (!allocate(x, i, &a)) {
                feasible = 0;
                break;
            }
            entry = mi->eff[x->price][a.entry];
            int k = initial_cold(x, i, entry);
            const elk_menu_entry *e = &mi->e[entry];
            double dist = e->nc && hbm_of(x, i) > 0 ? mi->cold[e->c0 + k].dist : 0;
            L = contended_len(x, e->exe + dist, e->xcyc + dist, D, q) + a.delta;
            break;
        }
        }
        if (!feasible) {
            if (x->pol == ELK_POL_BASIC && q < basic_target && best_q >= 0) break;
            if (q == qmin && nforced) return -1;
            break;
        }
        start = D - L;
        if (x->list_mode == 1) {
            x->cand[x->ncand] = q;
            x->cand_e[x->ncand++] = -1;
            if (last || nw >= x->window) break;
            continue;
        }
        if (x->list_mode == 2) {
            /* every plan that fits beside the waiting preloads as they are */
            double room = sram - cold_sum;
            for (int k = mi->neff[x->price] - 1; k >= 0 && x->ncand < x->cand_cap; k--) {
                int en = mi->eff[x->price][k];
                if (mi->e[en].hot > room) continue;
                x->cand[x->ncand] = q;
                x->cand_e[x->ncand++] = en;
            }
            if (last || nw >= x->window) break;
            continue;
        }
        int take;
        if (x->replay) take = q <= x->force_q; /* the furthest the times allow */
        else if (x->force_q >= 0) take = q == x->force_q;
        else if (x->pol == ELK_POL_BASIC) take = q <= basic_target; /* the furthest allowed candidate */
        else if (x->pol == ELK_POL_STATIC) take = 1;          /* as many preloads as fit */
        else take = start > best_start;
        if (take) {
            best_start = start;
            best_q = q;
            best_L = L;
            best_D = D;
            best_entry = entry;
            best_k = cand_k;
            best_nw = nw;
            if (x->pol == ELK_POL_DYN || x->pol == ELK_POL_FULL)
                memcpy(x->bestWc, x->Wc, (size_t)nw * sizeof *x->Wc);
            memcpy(x->bestW, x->W, (size_t)nw * sizeof *x->W);
        }
        if (last || nw >= x->window) break;
        if (x->pol == ELK_POL_BASIC && q >= basic_target) break;
        if (x->replay && q >= x->force_q) break;
    }
    if (x->list_mode) return 0;
    if (best_q < 0) return -1;

    /* commit */
    x->entry[i] = best_entry;
    x->win[i] = best_q;
    const elk_menu_entry *e = &mi->e[best_entry];
    set_cold(x, i, x->mincold ? best_k : initial_cold(x, i, best_entry));
    double own = e->exe + x->dist[i];
    double D = best_D;
    if (x->pol == ELK_POL_BASIC || x->pol == ELK_POL_STATIC)
        best_L = contended_len(x, own, e->xcyc + x->dist[i], D, best_q);
    if (x->pol == ELK_POL_DYN || x->pol == ELK_POL_FULL) {
        int changed = 0;
        for (int k = 0; k < best_nw; k++) {
            int w = x->bestW[k];
            if (x->bestWc[k] != x->copt[w]) {
                double old = x->dist[w];
                set_cold(x, w, x->bestWc[k]);
                shift_earlier(x, i, w, x->dist[w] - old);
                int r = x->pos[w];
                if (r >= x->placed_lo) x->ps[r] = x->pe[r] - x->dur[w];
                changed = 1;
            }
        }
        if (changed) {
            next = i == x->N - 1 ? 0 : x->es[i + 1];
            D = (best_q >= x->N || x->ps[best_q] >= next) ? next : x->ps[best_q];
            best_L = contended_len(x, own, e->xcyc + x->dist[i], D, best_q);
        }
    }
    x->ee[i] = D;
    x->es[i] = D - best_L;
    x->stall[i] = best_L - own;
    int pn = 0;
    double res = e->hot;
    for (int k = 0; k < best_nw; k++) {
        pn += hbm_of(x, x->bestW[k]) > 0;
        res += x->cold[x->bestW[k]];
    }
    x->pnum[i] = pn;
    x->resident[i] = res;
    if (x->artifact_noc && x->pol == ELK_POL_FULL) push_preloads(x, i, best_q);
    place_preloads(x, i);
    return 0;
}

static void sctx_free(sctx *x)
{
    free(x->cand);
    free(x->pos);
    free(x->pmax);
    free(x->es);
    free(x->entry);
    free(x->cold);
    free(x->W);
    free(x->Wc);
    free(x->bestW);
    free(x->bestWc);
}

static int sctx_init(sctx *x, const elk_problem *pr, const elk_sched_opts *o, elk_policy pol, const int *order, int N)
{
    memset(x, 0, sizeof *x);
    x->pr = pr;
    x->c = &pr->chip;
    x->o = o;
    x->pol = pol;
    x->N = N;
    x->order = order;
    x->window = o->window > 0 ? o->window : 2 * (pr->graph.per_layer ? pr->graph.per_layer : 16);
    x->abort_at = INFINITY;
    x->pos = malloc((size_t)N * sizeof *x->pos);
    x->pmax = malloc((size_t)N * sizeof *x->pmax);
    x->es = malloc((size_t)N * 4 * sizeof *x->es);
    x->entry = malloc((size_t)N * 4 * sizeof *x->entry);
    x->cold = malloc((size_t)N * 8 * sizeof *x->cold);
    if (!x->pos || !x->pmax || !x->es || !x->entry || !x->cold) {
        sctx_free(x);
        return -1;
    }
    x->ee = x->es + N;
    x->ps = x->es + 2 * N;
    x->pe = x->es + 3 * N;
    x->copt = x->entry + N;
    x->pnum = x->entry + 2 * N;
    x->win = x->entry + 3 * N;
    x->dist = x->cold + N;
    x->deliv = x->cold + 2 * N;
    x->dur = x->cold + 3 * N;
    x->nocT = x->cold + 4 * N;
    x->hbmT = x->cold + 5 * N;
    x->stall = x->cold + 6 * N;
    x->resident = x->cold + 7 * N;
    for (int r = 0; r < N; r++) x->pos[order[r]] = r;
    int m = -1;
    x->lookback = 1;
    for (int i = 0; i < N; i++) {
        if (x->pos[i] > m) m = x->pos[i];
        x->pmax[i] = m;
        /* a preload moved ahead of its op's neighbours is held by every op
         * from the one whose candidates pass it: the scan for such preloads
         * must reach back this far (a fixed 64 missed the pieces of cut
         * operators, and SRAM overflowed) */
        if (m + 1 - x->pos[i] > x->lookback) x->lookback = m + 1 - x->pos[i];
    }
    x->placed_lo = N;
    x->force_q = x->force_e = -1;
    x->replay = o->replay_entry && (pol == ELK_POL_DYN || pol == ELK_POL_FULL);
    unsigned prof = pr->chip.profile;
    x->artifact_noc = (prof >> ELK_PSW_CONTENTION) & 1u;
    x->mincold = ((prof >> ELK_PSW_MINCOLD) & 1u) && (pol == ELK_POL_BASIC || pol == ELK_POL_STATIC);
    x->noc_share = 1;
    if (prof & (1u << ELK_PSW_NOCCAP)) x->noc_share = pol == ELK_POL_FULL ? 0.99 : 0.7; /* Dyn: run_one */
    if ((prof & (1u << ELK_PSW_INT55)) && (pol == ELK_POL_BASIC || pol == ELK_POL_STATIC || pol == ELK_POL_DYN)) {
        /* the artifact's GBPS_PER_CORE, in its MiB/ms, truncated by int() */
        double per = pr->chip.link_gbps * pr->chip.noc_scale / 1.048576;
        if (per >= 1) x->noc_share *= floor(per) / per;
    }
    return 0;
}

/* Elk-Dyn's NoC shares under the paper profile's "noccap" (the artifact
 * runs it at each and keeps the fastest). */
static const double dyn_theta[] = {0.9, 0.7, 0.5};
#define DYN_THETAS(pr) (((pr)->chip.profile & (1u << ELK_PSW_NOCCAP)) ? 3 : 1)

/* Run the backward pass; returns the makespan or INFINITY if infeasible. */
static double run_pass(sctx *x)
{
    for (int i = x->N - 1; i >= 0; i--) {
        if (x->o->cancel && atomic_load_explicit(x->o->cancel, memory_order_relaxed)) return NAN;
        if (schedule_op(x, i)) return INFINITY;
        if (-x->es[i] > x->abort_at) return INFINITY;
    }
    place_preloads(x, 0);
    double t0 = x->es[0];
    for (int r = 0; r < x->N; r++)
        if (x->ps[r] < t0) t0 = x->ps[r];
    return -t0;
}

/* ------------------------------------------------------------------ */
/* Metrics                                                              */

static int fill_schedule(const sctx *x, double makespan, elk_schedule *s)
{
    const elk_problem *pr = x->pr;
    const elk_chip *c = x->c;
    int N = x->N;
    s->nops = N;
    s->ops = calloc((size_t)N, sizeof *s->ops);
    s->order = malloc((size_t)N * sizeof *s->order);
    if (!s->ops || !s->order) return -1;
    double off = makespan; /* times were negative, ending at 0 */
    memcpy(s->order, x->order, (size_t)N * sizeof *s->order);
#ifndef NDEBUG
    /* the state's invariants (sctx): preloads serial in position order, each
     * ending before its op's execution starts; the order a permutation */
    if (x->pol != ELK_POL_IDEAL) {
        double tol = 1e-6 * (fabs(makespan) + 1);
        for (int r = x->placed_lo; r + 1 < N; r++) assert(x->pe[r] <= x->ps[r + 1] + tol);
        for (int r = x->placed_lo; r < N; r++)
            if (hbm_of(x, x->order[r]) > 0) assert(x->pe[r] <= x->es[x->order[r]] + tol);
    }
    for (int i = 0; i < N; i++) assert(x->order[x->pos[i]] == i);
#endif
    for (int i = 0; i < N; i++) {
        elk_sched_op *o = &s->ops[i];
        const elk_menu *m = menu_of(x, i);
        const elk_menu_entry *e = &m->e[x->entry[i]];
        int r = x->pos[i];
        o->exe_start = x->es[i] + off;
        o->exe_end = x->ee[i] + off;
        o->pre_start = x->ps[r] + off;
        o->pre_end = x->pe[r] + off;
        if (hbm_of(x, i) <= 0) o->pre_start = o->pre_end;
        o->entry = x->entry[i];
        o->copt = e->nc ? e->c0 + x->copt[i] : -1;
        o->hot = e->hot;
        o->cold = x->pol == ELK_POL_IDEAL ? m->min_cold * (hbm_of(x, i) > 0) : x->cold[i];
        o->preload_number = x->pnum[i];
        o->preload_pos = r;
        o->comp = e->comp;
        o->xcyc = e->xcyc;
        o->dist = x->dist[i];
        o->stall = x->stall[i] > 0 ? x->stall[i] : 0;
        o->hbm_cycles = x->hbmT[i];
        o->deliv = x->deliv[i];
        double db = o->copt >= 0 ? m->cold[o->copt].dist_bytes : 0;
        o->exe_noc_bytes = (e->xbytes + (x->pol == ELK_POL_IDEAL ? 0 : db)) * c->cores;
        o->resident = x->resident[i];
        if (o->resident > s->peak_resident) s->peak_resident = o->resident;
        o->plan = e->plan;
        o->window = x->pol == ELK_POL_IDEAL ? -1 : x->win[i];
    }
    s->latency = makespan;
    s->latency_ms = makespan / (c->clock_ghz * 1e6);

    /* breakdown: sweep executions against preloads */
    memset(s->brk, 0, sizeof s->brk);
    int ri = 0;
    double t = 0;
    int ei = 0;
    while (t < makespan - 1e-9) {
        while (ei < N && s->ops[ei].exe_end <= t + 1e-9) ei++;
        while (ri < N && s->ops[s->order[ri]].pre_end <= t + 1e-9) ri++;
        double nt = makespan;
        int ex = ei < N && s->ops[ei].exe_start <= t + 1e-9;
        nt = ex ? fmin(nt, s->ops[ei].exe_end) : (ei < N ? fmin(nt, s->ops[ei].exe_start) : nt);
        int pr_on = 0;
        double h = 0;
        if (ri < N) {
            const elk_sched_op *po = &s->ops[s->order[ri]];
            if (po->pre_start <= t + 1e-9 && po->pre_end > po->pre_start) {
                pr_on = 1;
                h = fmin(1.0, po->hbm_cycles / (po->pre_end - po->pre_start));
                nt = fmin(nt, po->pre_end);
            } else {
                nt = fmin(nt, po->pre_start > t ? po->pre_start : nt);
            }
        }
        if (nt <= t) nt = t + 1e-6;
        double dt = nt - t;
        if (ex) {
            const elk_sched_op *eo = &s->ops[ei];
            double len = eo->exe_end - eo->exe_start;
            double fw = len > 0 ? (eo->comp + eo->xcyc) / len : 1, fd = len > 0 ? eo->dist / len : 0;
            double fs = fmax(0.0, 1.0 - fw - fd);
            if (!pr_on) h = 0;
            s->brk[ELK_BRK_OVERLAP] += fw * h * dt;
            s->brk[ELK_BRK_EXEC] += fw * (1 - h) * dt;
            s->brk[ELK_BRK_DIST] += fd * dt;
            s->brk[ELK_BRK_NOC] += fs * dt;
        } else if (pr_on) {
            s->brk[ELK_BRK_PRELOAD] += h * dt;
            s->brk[ELK_BRK_NOC] += (1 - h) * dt;
        } else {
            s->brk[ELK_BRK_PRELOAD] += dt; /* waiting for the preload pipeline */
        }
        t = nt;
    }
    /* NoC utilisation: bytes the cores' ports carry over their capacity
     * times the latency, the same measure on every topology (grid link loads
     * come from the simulator). Each preload's bytes are spread evenly over
     * its interval; inside an operator's execution window the ports carry at
     * most the window's length, so where exchange and preload traffic ask
     * for more (the estimate's sharing rule is then optimistic, and the
     * simulator shows by how much) the excess is reported as demand
     * (noc_demand, which may exceed 1), not as utilisation. Ideal's preloads
     * travel on a second network of their own: twice the capacity. */
    double hb = 0, pre_bytes = 0, exe_bytes = 0;
    double cap = elk_chip_noc_bytes_per_cycle(c);
    double *win = calloc((size_t)N, sizeof *win); /* preload port time inside each window */
    if (!win) return -1;
    double pre_gap = 0; /* preload port time outside every window */
    int w0 = 0;
    for (int r = 0; r < N; r++) {
        const elk_sched_op *po = &s->ops[s->order[r]];
        int j = s->order[r];
        hb += po->hbm_cycles;
        double bytes = hbm_of(x, j) > 0 ? po->deliv : 0;
        pre_bytes += bytes;
        double d = po->pre_end - po->pre_start;
        if (bytes <= 0 || d <= 0 || cap <= 0) continue;
        double pt = bytes / cap, inside = 0;
        while (w0 < N && s->ops[w0].exe_end <= po->pre_start) w0++;
        for (int i = w0; i < N && s->ops[i].exe_start < po->pre_end; i++) {
            double ov = fmin(po->pre_end, s->ops[i].exe_end) - fmax(po->pre_start, s->ops[i].exe_start);
            if (ov <= 0) continue;
            win[i] += pt * ov / d;
            inside += ov;
        }
        pre_gap += pt * fmax(0.0, d - inside) / d;
    }
    double busy_pre = pre_gap, busy_exe = 0;
    for (int i = 0; i < N; i++) {
        double L = s->ops[i].exe_end - s->ops[i].exe_start;
        double xe = cap > 0 ? s->ops[i].exe_noc_bytes / cap : 0;
        exe_bytes += s->ops[i].exe_noc_bytes;
        double want = x->pol == ELK_POL_IDEAL ? xe : xe + win[i];
        double f = want > L && want > 0 ? L / want : 1.0;
        busy_exe += xe * f;
        busy_pre += x->pol == ELK_POL_IDEAL ? win[i] : win[i] * f;
    }
    free(win);
    double span = makespan * (x->pol == ELK_POL_IDEAL ? 2 : 1);
    s->hbm_util = makespan > 0 ? hb / makespan : 0;
    s->noc_pre_util = span > 0 ? busy_pre / span : 0;
    s->noc_exe_util = span > 0 ? busy_exe / span : 0;
    s->noc_util = s->noc_pre_util + s->noc_exe_util;
    s->noc_demand = span > 0 && cap > 0 ? (pre_bytes + exe_bytes) / cap / span : 0;
    assert(s->noc_util <= 1 + 1e-9 || makespan <= 0);
    s->tflops = makespan > 0 ? pr->graph.flops / (makespan / (c->clock_ghz * 1e9)) / 1e12 : 0;
    return 0;
}

static elk_status run_one(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o, const int *order, int N,
                          int variant, double xlimit, double abort_at, double *makespan, elk_schedule *out,
                          elk_error *err)
{
    sctx x;
    if (sctx_init(&x, pr, o, pol, order, N)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    x.variant = variant;
    if (pol == ELK_POL_DYN || pol == ELK_POL_FULL) x.price = variant % ELK_PRICES;
    if (pol == ELK_POL_DYN && (pr->chip.profile & (1u << ELK_PSW_NOCCAP)))
        x.noc_share *= dyn_theta[variant / ELK_PRICES] / 0.7;
    x.xlimit = xlimit;
    x.abort_at = abort_at;
    double ms = run_pass(&x);
    elk_status st = ELK_OK;
    if (isnan(ms)) st = elk_fail(err, ELK_ECANCEL, "cancelled");
    *makespan = ms;
    if (st == ELK_OK && out && isfinite(ms)) {
        out->policy = pol;
        out->run_variant = variant;
        if (fill_schedule(&x, ms, out)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    sctx_free(&x);
    return st;
}

/* ------------------------------------------------------------------ */
/* Ideal: the relaxation every schedule is measured against             */

/* Every policy here runs operators one at a time in program order, runs
 * preloads one at a time, starts an operator only after its own preload, and
 * gives operator i at least E_i (its fastest plan's execution with no
 * contention and no data distribution) and its preload at least P_i (its
 * bytes at full HBM rate, or through the NoC with no replica and no padding,
 * whichever is slower). Drop SRAM capacity and the shared NoC, and let an
 * operator even stream its own preload while it runs (as if cut into
 * infinitely many pieces): what is left is a fluid two-stage flow shop.
 * Operators k+1.. cannot start before the preloads of ops 0..k are done, and
 * the last cannot end before every preload has, so
 *     makespan >= max_k (sum_{j<=k} P_j + sum_{j>k} E_j),  k = -1 .. N-1,
 * for every preload order and every schedule, and the forward schedule below
 * reaches exactly that. So Ideal is a lower bound by construction, and it
 * moves only with the E_i and P_i: more bandwidth, SRAM or compute can only
 * shorten them, P is additive in bytes, and how an operator that outgrows
 * SRAM is cut into pieces (pick_split, never slower with more SRAM) enters
 * only through the pieces' summed execution. It is the paper's Ideal made
 * exact: not a realisable machine, since its preloads sit in a buffer of
 * their own, travel on a network of their own and overlap their own
 * operator, so the simulator's replay of it is a little slower. */
static elk_status run_ideal(const elk_problem *pr, const elk_sched_opts *o, const int *ident, elk_schedule *out,
                            elk_error *err)
{
    int N = pr->graph.nops;
    sctx x;
    if (sctx_init(&x, pr, o, ELK_POL_IDEAL, ident, N)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    const elk_chip *c = x.c;
    double cum = 0, t = 0;
    for (int i = 0; i < N; i++) {
        const elk_menu *m = menu_of(&x, i);
        double h = hbm_of(&x, i);
        x.entry[i] = m->n - 1;
        set_cold(&x, i, 0);
        if (h > 0 && x.dur[i] > 0) {
            x.deliv[i] = h;
            x.dur[i] = elk_cost_preload_cycles(c, h, h);
            x.nocT[i] = pre_noc_cycles(c, h, h);
        }
        double prev = cum, E = m->e[x.entry[i]].exe;
        x.ps[i] = cum;
        cum += x.dur[i];
        x.pe[i] = cum;
        /* as early as the earlier preloads allow, ending no sooner than its own */
        double start = fmax(t, fmax(prev, cum - E));
        x.es[i] = start;
        t = x.ee[i] = start + E;
        x.stall[i] = 0;
        x.dist[i] = 0;
    }
    double T = t;
    assert(T >= cum - 1e-6);
    for (int i = 0; i < N; i++) {
        x.es[i] -= T;
        x.ee[i] -= T;
        x.ps[i] -= T;
        x.pe[i] -= T;
    }
    /* preload number and residency as the intervals show them */
    for (int i = 0; i < N; i++) {
        int pn = 0;
        double res = menu_of(&x, i)->e[x.entry[i]].hot;
        for (int j = i + 1; j < N; j++)
            if (x.dur[j] > 0 && x.ps[j] < x.ee[i]) {
                pn++;
                res += menu_of(&x, j)->min_cold;
            }
        x.pnum[i] = pn;
        x.resident[i] = res;
    }
    x.placed_lo = 0;
    elk_status st = ELK_OK;
    out->policy = ELK_POL_IDEAL;
    if (fill_schedule(&x, T, out)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
    sctx_free(&x);
    return st;
}

/* ------------------------------------------------------------------ */
/* Exact search over preload numbers                                    */

/* The paper calls its inductive scheduling provably optimal "assuming it can
 * obtain the optimal execution time for each preload number"; the reviewers
 * doubted it. This search tries every feasible preload number of every
 * operator (depth-first from the last, each candidate timed and allocated
 * exactly as Elk-Dyn does), pruned by a lower bound, so the greedy choice can
 * be compared with the best sequence of choices on small graphs. */

typedef struct {
    sctx *x;
    double *snap_d;  /* per depth: es..pe (4N) and cold..resident (8N) */
    int *snap_i;     /* per depth: entry, copt, pnum, win (4N) */
    int *snap_lo;
    int *cands;      /* per depth: candidate preload numbers */
    int *cands_e;    /* per depth: their execute-state entries */
    int cap;         /* pairs per depth */
    double *minexe;  /* prefix sums of each op's fastest execution */
    double *hbm_cycles; /* prefix sums, by preload position, of HBM time */
    double best;
    double *best_d;
    int *best_i;
    int best_lo;
    long nodes, max_nodes;
    int truncated;
    int plans;       /* branch on execute-state plans too */
} exact_ctx;

static void ex_save(exact_ctx *e, int depth)
{
    sctx *x = e->x;
    int N = x->N;
    memcpy(e->snap_d + (size_t)depth * 12 * N, x->es, (size_t)4 * N * sizeof(double));
    memcpy(e->snap_d + (size_t)depth * 12 * N + 4 * N, x->cold, (size_t)8 * N * sizeof(double));
    memcpy(e->snap_i + (size_t)depth * 4 * N, x->entry, (size_t)4 * N * sizeof(int));
    e->snap_lo[depth] = x->placed_lo;
}

static void ex_load(exact_ctx *e, int depth)
{
    sctx *x = e->x;
    int N = x->N;
    memcpy(x->es, e->snap_d + (size_t)depth * 12 * N, (size_t)4 * N * sizeof(double));
    memcpy(x->cold, e->snap_d + (size_t)depth * 12 * N + 4 * N, (size_t)8 * N * sizeof(double));
    memcpy(x->entry, e->snap_i + (size_t)depth * 4 * N, (size_t)4 * N * sizeof(int));
    x->placed_lo = e->snap_lo[depth];
}

/* A lower bound on the makespan of any completion: executions of ops 0..i-1
 * at their fastest before es[i], and the HBM time of the unplaced preloads
 * before the first placed one. */
static double ex_bound(const exact_ctx *e, int i)
{
    const sctx *x = e->x;
    double b = -x->es[i] + (i > 0 ? e->minexe[i - 1] : 0);
    if (x->placed_lo < x->N && x->placed_lo > 0) b = fmax(b, -x->ps[x->placed_lo] + e->hbm_cycles[x->placed_lo - 1]);
    return b;
}

static void ex_dfs(exact_ctx *e, int i)
{
    sctx *x = e->x;
    if (x->o->cancel && atomic_load_explicit(x->o->cancel, memory_order_relaxed)) {
        e->truncated = 1;
        return;
    }
    if (i < 0) {
        place_preloads(x, 0);
        double t0 = x->es[0];
        for (int r = 0; r < x->N; r++)
            if (x->ps[r] < t0) t0 = x->ps[r];
        if (-t0 < e->best - 1e-9) {
            e->best = -t0;
            ex_save(e, x->N); /* the slot past the deepest holds the best */
            memcpy(e->best_d, e->snap_d + (size_t)x->N * 12 * x->N, (size_t)12 * x->N * sizeof(double));
            memcpy(e->best_i, e->snap_i + (size_t)x->N * 4 * x->N, (size_t)4 * x->N * sizeof(int));
            e->best_lo = x->placed_lo;
        }
        return;
    }
    if (++e->nodes > e->max_nodes) {
        e->truncated = 1;
        return;
    }
    int *c = e->cands + (size_t)i * e->cap, *ce = e->cands_e + (size_t)i * e->cap;
    x->list_mode = e->plans ? 2 : 1;
    x->ncand = 0;
    x->cand = c;
    x->cand_e = ce;
    x->cand_cap = e->cap;
    schedule_op(x, i);
    x->list_mode = 0;
    x->cand = x->cand_e = NULL;
    int nc = x->ncand;
    ex_save(e, i);
    /* later preload numbers and larger plans first: they tend to be good */
    for (int k = nc - 1; k >= 0 && !e->truncated; k--) {
        ex_load(e, i);
        x->force_q = c[k];
        x->force_e = ce[k];
        int r = schedule_op(x, i);
        x->force_q = x->force_e = -1;
        if (r) continue;
        if (ex_bound(e, i) >= e->best - 1e-9) continue;
        ex_dfs(e, i - 1);
    }
    ex_load(e, i);
}

/* The exhaustive search of policy pol's model (Elk-Dyn or Elk-Full) in one
 * preload order at one allocator price, pruned by the bound and by upper
 * (the makespan to beat). g->exact is the best found, or upper if nothing
 * beats it (s then empty, s->ops NULL). */
static elk_status exact_run(const elk_problem *pr, const elk_sched_opts *o, elk_policy pol, const int *order,
                            int price, double upper, long max_nodes, int plans, elk_gap *g, elk_schedule *s,
                            elk_error *err)
{
    int N = pr->graph.nops;
    memset(s, 0, sizeof *s);
    sctx x;
    if (sctx_init(&x, pr, o, pol, order, N)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    x.variant = price;
    x.price = price % ELK_PRICES;
    if (pol == ELK_POL_DYN && (pr->chip.profile & (1u << ELK_PSW_NOCCAP)))
        x.noc_share *= dyn_theta[price / ELK_PRICES] / 0.7;
    exact_ctx e;
    memset(&e, 0, sizeof e);
    e.x = &x;
    e.best = upper * (1 + 1e-12);
    e.max_nodes = max_nodes;
    e.plans = plans;
    e.best_lo = -1;
    e.snap_d = malloc((size_t)(N + 1) * 12 * N * sizeof(double));
    e.snap_i = malloc((size_t)(N + 1) * 4 * N * sizeof(int));
    e.snap_lo = malloc((size_t)(N + 1) * sizeof(int));
    int maxe = 1;
    for (int k = 0; k < pr->graph.nshapes; k++)
        if (pr->menus[k].neff[x.price] > maxe) maxe = pr->menus[k].neff[x.price];
    e.cap = (x.window + 2) * maxe;
    e.cands = malloc((size_t)N * e.cap * sizeof(int));
    e.cands_e = malloc((size_t)N * e.cap * sizeof(int));
    e.minexe = malloc((size_t)N * sizeof(double));
    e.hbm_cycles = malloc((size_t)N * sizeof(double));
    e.best_d = malloc((size_t)12 * N * sizeof(double));
    e.best_i = malloc((size_t)4 * N * sizeof(int));
    elk_status st = ELK_OK;
    if (!e.snap_d || !e.snap_i || !e.snap_lo || !e.cands || !e.cands_e || !e.minexe || !e.hbm_cycles || !e.best_d || !e.best_i) {
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
        goto out;
    }
    /* prefix sums: executions by op, HBM time by preload position (the
     * bound's preloads not yet placed are those before placed_lo) */
    for (int i = 0; i < N; i++) {
        const elk_menu *m = menu_of(&x, i);
        e.minexe[i] = (i ? e.minexe[i - 1] : 0) + m->e[m->n - 1].exe;
        e.hbm_cycles[i] = (i ? e.hbm_cycles[i - 1] : 0) + hbm_of(&x, order[i]) / elk_chip_hbm_bytes_per_cycle(x.c);
    }
    ex_dfs(&e, N - 1);
    if (o->cancel && atomic_load_explicit(o->cancel, memory_order_relaxed)) {
        st = elk_fail(err, ELK_ECANCEL, "cancelled");
        goto out;
    }
    g->nodes += e.nodes;
    g->complete = g->complete && !e.truncated;
    g->exact = e.best_lo >= 0 ? e.best : upper;
    if (e.best_lo >= 0) {
        memcpy(x.es, e.best_d, (size_t)4 * N * sizeof(double));
        memcpy(x.cold, e.best_d + 4 * N, (size_t)8 * N * sizeof(double));
        memcpy(x.entry, e.best_i, (size_t)4 * N * sizeof(int));
        x.placed_lo = e.best_lo;
        s->policy = pol;
        s->adopted = -1;
        if (fill_schedule(&x, e.best, s)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
        s->static_variant = price % ELK_PRICES;
        s->run_variant = price;
    }
out:
    free(e.snap_d);
    free(e.snap_i);
    free(e.snap_lo);
    free(e.cands);
    free(e.cands_e);
    free(e.minexe);
    free(e.hbm_cycles);
    free(e.best_d);
    free(e.best_i);
    sctx_free(&x);
    return st;
}

elk_status elk_schedule_exact(const elk_problem *pr, const elk_sched_opts *o, long max_nodes, int plans,
                              elk_gap *g, elk_schedule *s, elk_error *err)
{
    memset(g, 0, sizeof *g);
    memset(s, 0, sizeof *s);
    int N = pr->graph.nops;
    if (N > 512) return elk_fail(err, ELK_EINVAL, "the exact search is for small graphs (%d operators; at most 512)", N);
    /* the greedy answer is the first upper bound */
    elk_schedule greedy;
    ELK_TRY(elk_schedule_run(pr, ELK_POL_DYN, o, &greedy, err));
    int price = greedy.run_variant;
    g->greedy = greedy.latency;
    elk_schedule_free(&greedy);
    int *ident = malloc((size_t)N * sizeof *ident);
    if (!ident) return elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int r = 0; r < N; r++) ident[r] = r;
    g->complete = 1;
    elk_status st = exact_run(pr, o, ELK_POL_DYN, ident, price, g->greedy, max_nodes, plans, g, s, err);
    free(ident);
    if (st == ELK_OK && !s->ops) st = elk_schedule_run(pr, ELK_POL_DYN, o, s, err);
    return st;
}

elk_status elk_schedule_exact_orders(const elk_problem *pr, const elk_sched_opts *o, int max_orders, long max_nodes,
                                     int plans, elk_gap_orders *g, elk_error *err)
{
    memset(g, 0, sizeof *g);
    int N = pr->graph.nops;
    if (N > 512) return elk_fail(err, ELK_EINVAL, "the exact search is for small graphs (%d operators; at most 512)", N);
    elk_schedule full;
    ELK_TRY(elk_schedule_run(pr, ELK_POL_FULL, o, &full, err));
    g->heuristic = full.latency;
    g->adopted = full.adopted;
    /* the price Elk-Full's own search settled on; an adopted schedule's
     * policy had its own, so search at every price then */
    int p0 = full.adopted < 0 ? full.run_variant % ELK_PRICES : 0, p1 = full.adopted < 0 ? p0 + 1 : ELK_PRICES;
    elk_schedule_free(&full);
    int *orders = NULL;
    int no = elk_orders_build(&pr->graph, o, &orders, max_orders);
    if (no <= 0) return elk_fail(err, ELK_ENOMEM, "out of memory building preload orders");
    g->orders = no;
    g->exact = g->heuristic;
    g->complete = 1;
    g->best_order = -1;
    elk_status st = ELK_OK;
    for (int c = 0; c < no && st == ELK_OK; c++)
        for (int pv = p0; pv < p1 && st == ELK_OK; pv++) {
            elk_gap one = {0, 0, 0, 1};
            elk_schedule s;
            st = exact_run(pr, o, ELK_POL_FULL, orders + (size_t)c * N, pv, g->exact, max_nodes, plans, &one, &s, err);
            if (st != ELK_OK) break;
            g->nodes += one.nodes;
            if (!one.complete) g->complete = 0;
            if (s.ops && one.exact < g->exact) {
                g->exact = one.exact;
                g->best_order = c;
                g->best_edit = 0;
                for (int r = 0; r < N; r++) g->best_edit += abs(s.order[r] - r);
                g->best_edit /= N;
            }
            elk_schedule_free(&s);
        }
    free(orders);
    return st;
}

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

/* The better of the allocator's price slots for Elk-Dyn in program order. */
static int best_price(const elk_problem *pr, const elk_sched_opts *o, const int *ident, int N, elk_status *st,
                      elk_error *err)
{
    double best = INFINITY;
    int bv = 0;
    for (int v = 0; v < ELK_PRICES * DYN_THETAS(pr) && *st == ELK_OK; v++) {
        double m;
        *st = run_one(pr, ELK_POL_DYN, o, ident, N, v, 0, best, &m, NULL, err);
        if (*st == ELK_OK && m < best) {
            best = m;
            bv = v;
        }
    }
    return bv;
}

static elk_status run_full(const elk_problem *pr, const elk_sched_opts *o, const elk_schedule *const *given,
                           elk_schedule *s, elk_error *err);

/* Most preload orders Elk-Full schedules: the paper searches 720 for
 * Llama2-70B (PAPER-NOTES); graphs whose cut operators make many heavy
 * groups per layer would otherwise enumerate thousands. */
#define ELK_FULL_MAX_ORDERS 720

/* Elk-Full's own search: every candidate preload order (screened on a
 * prefix of identical layers, the best few and program order re-run on the
 * whole graph) at every allocator price slot, or only at o->price. Leaves the
 * winner in *s (s->ops NULL if nothing fits). */
static elk_status full_search(const elk_problem *pr, const elk_sched_opts *o, elk_schedule *s, elk_error *err)
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
    int pv = fixed ? o->price : best_price(pr, o, orders, N, &st, err);
    for (int c = 0; c < no; c++) {
        idx[c] = c;
        score[c] = INFINITY;
    }
    for (int c = 0; c < no && st == ELK_OK; c++)
        st = run_one(pr, ELK_POL_FULL, o, orders + (size_t)c * N, M, pv, 0, INFINITY, &score[c], NULL, err);
    /* stable selection of the finalists by score (identity is order 0) */
    for (int a = 1; a < no; a++)
        for (int b = a; b > 0 && score[idx[b]] < score[idx[b - 1]]; b--) {
            int t = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = t;
        }
    int nf = o->finalists < no ? o->finalists : no;
    for (int v = fixed ? pv : 0; v < (fixed ? pv + 1 : ELK_PRICES) && st == ELK_OK; v++)
        for (int f = -1; f < nf && st == ELK_OK; f++) {
            int c = f < 0 ? 0 : idx[f];
            if (f >= 0 && c == 0) continue;
            if (!isfinite(score[c]) && c != 0) continue;
            double m;
            st = run_one(pr, ELK_POL_FULL, o, orders + (size_t)c * N, N, v, 0, best, &m, NULL, err);
            if (st == ELK_OK && m < best) {
                best = m;
                bc = c;
                bv = v;
            }
        }
    if (st == ELK_OK && bc >= 0) {
        double ms;
        st = run_one(pr, ELK_POL_FULL, o, orders + (size_t)bc * N, N, bv, 0, INFINITY, &ms, s, err);
        s->static_variant = bv;
        s->orders_tried = no;
        if (st == ELK_OK && s->order) s->avg_edit_dist = edit_dist(s->order, N);
    }
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
    ELK_TRY(full_search(pr, o, s, err));
    s->adopted = -1;
    static const elk_policy cands[] = {ELK_POL_DYN, ELK_POL_STATIC, ELK_POL_BASIC};
    for (int k = 0; k < 3; k++) {
        elk_policy p = cands[k];
        elk_schedule mine = {0};
        const elk_schedule *c = given ? given[p] : NULL;
        if (!c) {
            elk_error e2;
            elk_status st = elk_schedule_run(pr, p, o, &mine, &e2);
            if (st == ELK_ECANCEL) {
                elk_schedule_free(s);
                *err = e2;
                return st;
            }
            if (st != ELK_OK) continue; /* that policy fits no schedule here */
            c = &mine;
        }
        if (c->ops && (!s->ops || c->latency < s->latency)) {
            int tried = s->orders_tried;
            double edit = s->avg_edit_dist;
            elk_schedule_free(s);
            elk_status st = elk_schedule_copy(s, c);
            elk_schedule_free(&mine);
            if (st != ELK_OK) return elk_fail(err, st, "out of memory");
            s->orders_tried = tried;
            s->avg_edit_dist = edit;
            s->adopted = p;
            s->policy = ELK_POL_FULL;
        } else {
            elk_schedule_free(&mine);
        }
    }
    return ELK_OK;
}

/* elk_schedule_run, with Elk-Full handed the candidates already scheduled
 * (given[p] or NULL; given itself may be NULL). */
static elk_status schedule_run(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o,
                               const elk_schedule *const *given, elk_schedule *s, elk_error *err)
{
    memset(s, 0, sizeof *s);
    double t0 = now_ms();
    int N = pr->graph.nops;
    int *ident = malloc((size_t)N * sizeof *ident);
    if (!ident) return elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int r = 0; r < N; r++) ident[r] = r;
    elk_status st = ELK_OK;
    double ms = INFINITY;

    switch (pol) {
    case ELK_POL_IDEAL:
        st = run_ideal(pr, o, ident, s, err);
        ms = s->latency;
        break;
    case ELK_POL_DYN:
    case ELK_POL_FULL:
        if (o->replay_entry) {
            st = run_one(pr, pol, o, o->replay_order ? o->replay_order : ident, N, o->replay_variant, 0, INFINITY,
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
        int v = best_price(pr, o, ident, N, &st, err);
        if (st == ELK_OK) st = run_one(pr, pol, o, ident, N, v, 0, INFINITY, &ms, s, err);
        s->static_variant = v % ELK_PRICES;
        break;
    }
    case ELK_POL_BASIC: {
        double m0, m1;
        st = run_one(pr, pol, o, ident, N, 0, 0, INFINITY, &m0, NULL, err);
        if (st == ELK_OK) st = run_one(pr, pol, o, ident, N, 1, 0, INFINITY, &m1, NULL, err);
        if (st == ELK_OK) {
            int v = m1 < m0;
            st = run_one(pr, pol, o, ident, N, v, 0, INFINITY, &ms, s, err);
            s->static_variant = v;
        }
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
        double best = INFINITY;
        /* X from the largest smallest plan up to all of SRAM, in steps */
        int nx = (int)floor((pr->sram - lo) / step) + 1;
        for (int v = 0; v < 2 && st == ELK_OK; v++)
            for (int k = 0; k <= nx && st == ELK_OK; k++) {
                double X = k < nx ? lo + k * step : pr->sram, m;
                if (X > pr->sram || (k == nx && lo + (nx - 1) * step >= pr->sram)) continue;
                st = run_one(pr, pol, o, ident, N, v, X, best, &m, NULL, err);
                if (st == ELK_OK && m < best) {
                    best = m;
                    bx = X;
                    bv = v;
                }
            }
        if (st == ELK_OK && bx > 0) {
            st = run_one(pr, pol, o, ident, N, bv, bx, INFINITY, &ms, s, err);
            s->static_exec_kib = bx / 1024.0;
            s->static_variant = bv;
        }
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
    s->solve_ms = now_ms() - t0;
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
