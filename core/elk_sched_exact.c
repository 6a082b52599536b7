#include "elk_sched_int.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_cost.h"

/* ------------------------------------------------------------------ */
/* Exact search over preload numbers                                    */

/* The paper calls its inductive scheduling provably optimal "assuming it can
 * obtain the optimal execution time for each preload number"; the reviewers
 * doubted it. This search tries every feasible preload number of every
 * operator (depth-first from the last, each candidate timed and allocated
 * exactly as Elk-Dyn does), pruned by a lower bound, so the greedy choice can
 * be compared with the best sequence of choices on small graphs. */

typedef struct {
    elk_sctx *x;
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
    elk_sctx *x = e->x;
    int N = x->N;
    memcpy(e->snap_d + (size_t)depth * 12 * N, x->es, (size_t)4 * N * sizeof(double));
    memcpy(e->snap_d + (size_t)depth * 12 * N + 4 * N, x->cold, (size_t)8 * N * sizeof(double));
    memcpy(e->snap_i + (size_t)depth * 4 * N, x->entry, (size_t)4 * N * sizeof(int));
    e->snap_lo[depth] = x->placed_lo;
}

static void ex_load(exact_ctx *e, int depth)
{
    elk_sctx *x = e->x;
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
    const elk_sctx *x = e->x;
    double b = -x->es[i] + (i > 0 ? e->minexe[i - 1] : 0);
    if (x->placed_lo < x->N && x->placed_lo > 0) b = fmax(b, -x->ps[x->placed_lo] + e->hbm_cycles[x->placed_lo - 1]);
    return b;
}

static void ex_dfs(exact_ctx *e, int i)
{
    elk_sctx *x = e->x;
    if (x->o->cancel && atomic_load_explicit(x->o->cancel, memory_order_relaxed)) {
        e->truncated = 1;
        return;
    }
    if (i < 0) {
        elk_sctx_place_preloads(x, 0);
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
    elk_sctx_schedule_op(x, i);
    x->list_mode = 0;
    x->cand = x->cand_e = NULL;
    int nc = x->ncand;
    ex_save(e, i);
    /* later preload numbers and larger plans first: they tend to be good */
    for (int k = nc - 1; k >= 0 && !e->truncated; k--) {
        ex_load(e, i);
        x->force_q = c[k];
        x->force_e = ce[k];
        int r = elk_sctx_schedule_op(x, i);
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
    elk_sctx x;
    if (elk_sctx_init(&x, pr, o, pol, order, N)) return elk_fail(err, ELK_ENOMEM, "out of memory");
    x.variant = price;
    x.price = price % ELK_PRICES;
    if (pol == ELK_POL_DYN && (pr->chip.profile & (1u << ELK_PSW_NOCCAP)))
        x.noc_share *= elk_sched_dyn_theta[price / ELK_PRICES] / 0.7;
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
        if (elk_sctx_fill(&x, e.best, s)) st = elk_fail(err, ELK_ENOMEM, "out of memory");
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
    elk_sctx_free(&x);
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
    /* the search's best, like the greedy's answer, is timed as its replay
     * (elk_schedule_run settles Elk-Dyn's): the greedy's when that is no
     * faster */
    if (st == ELK_OK && s->ops) {
        elk_schedule r;
        st = elk_schedule_replay(pr, s, ELK_POL_DYN, o, &r, err);
        elk_schedule_free(s);
        if (st == ELK_OK && r.ops && r.latency < g->greedy) {
            *s = r;
            g->exact = r.latency;
        } else {
            elk_schedule_free(&r);
            g->exact = g->greedy;
        }
    }
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
            /* timed as its replay, as Elk-Full's own answer is */
            elk_schedule rs = {0};
            if (s.ops && one.exact < g->exact) st = elk_schedule_replay(pr, &s, ELK_POL_FULL, o, &rs, err);
            if (st == ELK_OK && rs.ops && rs.latency < g->exact) {
                g->exact = rs.latency;
                g->best_order = c;
                g->best_edit = 0;
                for (int r = 0; r < N; r++) g->best_edit += abs(s.order[r] - r);
                g->best_edit /= N;
            }
            elk_schedule_free(&rs);
            elk_schedule_free(&s);
        }
    free(orders);
    return st;
}
