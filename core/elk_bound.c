#include "elk_bound.h"

#include <assert.h>
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elk_sched_int.h"

const char *const elk_bound_kind_names[] = {"lp", "milp", "reach", NULL};
const char *const elk_bound_status_names[] = {"optimal", "time-limit", "above-cap", NULL};

void elk_bound_opts_default(elk_bound_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kind = ELK_BOUND_LP;
    o->time_limit_s = 60;
}

void elk_bound_result_free(elk_bound_result *r)
{
    free(r->ops);
    r->ops = NULL;
}

/* ------------------------------------------------------------------ */
/* Each operator's choices                                              */

/* One (execute-state plan, preload-state option) pair of an operator, as
 * the scheduler prices it. own is the shortest its execution can be (the
 * plan's execution plus the layout's data distribution; contention only
 * lengthens it), dur its preload's length. */
typedef struct {
    double hot, own, cold, dur;
    int entry, copt;
} pair_t;

/* u is at least as good as t in every term the program sees: any schedule
 * using t stays valid, and no longer, with u. */
static int dominates(const pair_t *u, const pair_t *t)
{
    return u->hot <= t->hot && u->own <= t->own && u->cold <= t->cold && u->dur <= t->dur;
}

/* The undominated pairs of op i whose plan fits in SRAM alone; returns the
 * count (0: none fits), -1 when out of memory. */
static int op_pairs(const elk_problem *pr, int i, double share, pair_t **out)
{
    const elk_menu *m = &pr->menus[pr->graph.ops[i].shape_id];
    double h = pr->graph.ops[i].hbm_bytes;
    int n = 0, cap = 0;
    pair_t *p = NULL;
    for (int e = 0; e < m->n; e++) {
        const elk_menu_entry *me = &m->e[e];
        if (me->hot > pr->sram) continue;
        int nk = me->nc && h > 0 ? me->nc : 1;
        for (int k = 0; k < nk; k++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                pair_t *q = realloc(p, (size_t)cap * sizeof *q);
                if (!q) {
                    free(p);
                    return -1;
                }
                p = q;
            }
            pair_t t = {me->hot, me->exe, 0, 0, e, -1};
            if (me->nc && h > 0) {
                const elk_menu_cold *mc = &m->cold[me->c0 + k];
                double noc;
                t.own += mc->dist;
                t.cold = mc->cold;
                t.dur = elk_sched_preload_dur(&pr->chip, share, h, mc->deliv, &noc);
                t.copt = me->c0 + k;
            }
            p[n++] = t;
        }
    }
    /* drop dominated pairs; of equal ones keep the first */
    int kept = 0;
    for (int a = 0; a < n; a++) {
        int dom = 0;
        for (int b = 0; b < n && !dom; b++)
            if (b != a && dominates(&p[b], &p[a]) && (b < a || !dominates(&p[a], &p[b]))) dom = 1;
        if (!dom) p[kept++] = p[a];
    }
    *out = p;
    return kept;
}

/* The largest share of the preload NoC rate any policy of the scheduler
 * may use: preloads priced with it are the shortest any policy makes. */
static double max_noc_share(const elk_problem *pr, const elk_sched_opts *so, const int *ident, int N)
{
    double best = 0;
    for (int pol = ELK_POL_BASIC; pol <= ELK_POL_FULL; pol++) {
        elk_sctx x;
        if (elk_sctx_init(&x, pr, so, pol, ident, N)) return 1; /* the largest possible */
        double s = x.noc_share;
        if (pol == ELK_POL_DYN && (pr->chip.profile & (1u << ELK_PSW_NOCCAP))) {
            double th = 0;
            for (int k = 0; k < DYN_THETAS(pr); k++) th = fmax(th, elk_sched_dyn_theta[k]);
            s *= th / 0.7; /* as elk_sched_run_one scales it */
        }
        best = fmax(best, s);
        elk_sctx_free(&x);
    }
    return fmin(1.0, best);
}

/* ------------------------------------------------------------------ */
/* The program, built as triplets before GLPK sees it                   */

/* Rows, columns and nonzeros of the program. Owns every array; indices are
 * 1-based as GLPK's. Invariant: ia[k] <= nrows and ja[k] <= ncols. */
typedef struct {
    int *ia, *ja;
    double *ar;
    int nnz, zcap;
    int nrows, rcap;
    int *rtype;
    double *rlb, *rub;
    int ncols, ccap;
    int *cint;
    double *clb, *cub, *cobj;
    int oom;
} prog_t;

static void prog_free(prog_t *g)
{
    free(g->ia);
    free(g->ja);
    free(g->ar);
    free(g->rtype);
    free(g->rlb);
    free(g->rub);
    free(g->cint);
    free(g->clb);
    free(g->cub);
    free(g->cobj);
}

/* Room for need + 1 elements (index need) in each of n arrays of the given
 * element sizes sharing capacity *cap; -1 when out of memory. */
static int reserve(int *cap, int need, int n, void **a[], const size_t *elem)
{
    if (need < *cap) return 0;
    int nc = *cap ? *cap : 256;
    while (nc <= need) nc *= 2;
    for (int k = 0; k < n; k++) {
        void *p = realloc(*a[k], (size_t)nc * elem[k]);
        if (!p) return -1;
        *a[k] = p;
    }
    *cap = nc;
    return 0;
}

/* Column: bounds [lb, ub] (ub == lb fixes it), integer or not; its index. */
static int col(prog_t *g, double lb, double ub, int integer, double obj)
{
    void **a[] = {(void **)&g->cint, (void **)&g->clb, (void **)&g->cub, (void **)&g->cobj};
    const size_t el[] = {sizeof(int), sizeof(double), sizeof(double), sizeof(double)};
    if (g->oom || reserve(&g->ccap, g->ncols + 1, 4, a, el)) {
        g->oom = 1;
        return 0;
    }
    int j = ++g->ncols;
    g->cint[j] = integer;
    g->clb[j] = lb;
    g->cub[j] = ub;
    g->cobj[j] = obj;
    return j;
}

/* Row lb <= a.x (GLP_LO), a.x <= ub (GLP_UP) or a.x == lb (GLP_FX); its index. */
static int row(prog_t *g, int type, double lb, double ub)
{
    void **a[] = {(void **)&g->rtype, (void **)&g->rlb, (void **)&g->rub};
    const size_t el[] = {sizeof(int), sizeof(double), sizeof(double)};
    if (g->oom || reserve(&g->rcap, g->nrows + 1, 3, a, el)) {
        g->oom = 1;
        return 0;
    }
    int i = ++g->nrows;
    g->rtype[i] = type;
    g->rlb[i] = lb;
    g->rub[i] = ub;
    return i;
}

static void nz(prog_t *g, int i, int j, double v)
{
    void **a[] = {(void **)&g->ia, (void **)&g->ja, (void **)&g->ar};
    const size_t el[] = {sizeof(int), sizeof(int), sizeof(double)};
    if (g->oom || v == 0) return;
    if (reserve(&g->zcap, g->nnz + 1, 3, a, el)) {
        g->oom = 1;
        return;
    }
    int k = ++g->nnz;
    g->ia[k] = i;
    g->ja[k] = j;
    g->ar[k] = v;
}

/* Everything the program is built from. Owns every array. Invariants: ord
 * and pos are inverse permutations; pmax[i] is the largest position of ops
 * 0..i; pairs[i] holds npairs[i] >= 1 undominated pairs; ownmin..hotmin are
 * minima over them (cmax the maximum). */
typedef struct {
    const elk_problem *pr;
    int N;
    int *ord, *pos, *pmax, *nextc; /* nextc[r]: first preload position >= r with HBM data, N if none */
    pair_t **pairs;
    int *npairs;
    int *xc;               /* op -> its first pair column */
    int *sc, *pc;          /* op -> exec start column; position -> preload start column (0: none) */
    double *ownmin, *durmin, *cmin, *cmax, *hotmin;
    double ts, bs;         /* time and byte scales: program units are cycles/ts, bytes/bs */
    prog_t g;
    int T;                 /* the makespan column */
} model_t;

static void model_free(model_t *m)
{
    if (m->pairs)
        for (int i = 0; i < m->N; i++) free(m->pairs[i]);
    free(m->pairs);
    free(m->npairs);
    free(m->ord);
    free(m->pos);
    free(m->pmax);
    free(m->nextc);
    free(m->xc);
    free(m->sc);
    free(m->pc);
    free(m->ownmin);
    free(m->durmin);
    free(m->cmin);
    free(m->cmax);
    free(m->hotmin);
    prog_free(&m->g);
}

/* Which term of op i's chosen pair a row reads. */
enum { OWN, DUR, HOT, COLD };

/* f * (that term of op i's chosen pair) = f * sum_t v_t x_it into row k */
static void add_pairs(model_t *m, int k, int i, int what, double f)
{
    for (int t = 0; t < m->npairs[i]; t++) {
        const pair_t *p = &m->pairs[i][t];
        double v = what == OWN   ? p->own / m->ts
                   : what == DUR ? p->dur / m->ts
                   : what == HOT ? p->hot / m->bs
                                 : p->cold / m->bs;
        nz(&m->g, k, m->xc[i] + t, f * v);
    }
}

/* Building the program. The order of columns, rows and nonzeros is GLPK's
 * input order, which steers its pivots: reordering them can change which of
 * equal optima it returns. */

/* Pair columns (exactly one chosen per op) and start columns, then the
 * rows the two orders make: executions in program order, the last before
 * T; preloads serial in the preload order, each ending before its op
 * starts. capu: the makespan cap in program units. */
static void build_order(model_t *m, double capu, int binary)
{
    const elk_problem *pr = m->pr;
    prog_t *g = &m->g;
    int N = m->N;
    m->T = col(g, 0, capu, 0, 1);
    for (int i = 0; i < N; i++) {
        m->xc[i] = g->ncols + 1;
        for (int t = 0; t < m->npairs[i]; t++) col(g, 0, 1, binary, 0);
        int k = row(g, GLP_FX, 1, 1);
        for (int t = 0; t < m->npairs[i]; t++) nz(g, k, m->xc[i] + t, 1);
    }
    for (int i = 0; i < N; i++) m->sc[i] = col(g, 0, capu, 0, 0);
    for (int r = 0; r < N; r++) m->pc[r] = pr->graph.ops[m->ord[r]].hbm_bytes > 0 ? col(g, 0, capu, 0, 0) : 0;
    for (int i = 0; i < N; i++) {
        int k = row(g, GLP_LO, 0, 0);
        nz(g, k, i + 1 < N ? m->sc[i + 1] : m->T, 1);
        nz(g, k, m->sc[i], -1);
        add_pairs(m, k, i, OWN, -1);
    }
    for (int r = 0; r < N; r++) {
        if (!m->pc[r]) continue;
        int j = m->ord[r];
        int k = row(g, GLP_UP, 0, 0);
        nz(g, k, m->pc[r], 1);
        add_pairs(m, k, j, DUR, 1);
        nz(g, k, m->sc[j], -1);
        int nr = r + 1 < N ? m->nextc[r + 1] : N;
        if (nr < N) {
            k = row(g, GLP_LO, 0, 0);
            nz(g, k, m->pc[nr], 1);
            nz(g, k, m->pc[r], -1);
            add_pairs(m, k, j, DUR, -1);
        }
    }
}

/* The residency switches as build lays them out, and the terms of their
 * big-M constants. Owns every array, each ycol[i] too. Invariants: ycol[i]
 * has yn[i] entries, ycol[i][k] the switch of op i and position y0[i] + k
 * (0: none there); y0[i] = pmax[i] + 1, since the preloads before it come
 * before op i in every schedule; a later op's preload placed before
 * y0[i] stands at most lookback positions below it. */
typedef struct {
    double *tail; /* tail[i]: the executions after op i at their shortest */
    double *head; /* head[r]: the preloads before position r at their shortest */
    int lookback;
    int *y0, *yn;
    int **ycol;
} resid_t;

static void resid_free(resid_t *rs, int N)
{
    if (rs->ycol)
        for (int i = 0; i < N; i++) free(rs->ycol[i]);
    free(rs->ycol);
    free(rs->y0);
    free(rs->yn);
    free(rs->tail);
    free(rs->head);
}

/* With T <= cap, E_i - P_r <= cap - tail[i] - head[r]: the big-M of the
 * switch of op i and position r. Returns 0 or -1 (out of memory; rs is
 * then freed by resid_free all the same). */
static int resid_init(resid_t *rs, const model_t *m)
{
    int N = m->N;
    memset(rs, 0, sizeof *rs);
    rs->tail = malloc((size_t)(N + 1) * sizeof *rs->tail);
    rs->head = malloc((size_t)(N + 1) * sizeof *rs->head);
    if (!rs->tail || !rs->head) return -1;
    rs->tail[N - 1] = 0;
    for (int i = N - 2; i >= 0; i--) rs->tail[i] = rs->tail[i + 1] + m->ownmin[i + 1];
    rs->head[0] = 0;
    for (int r = 0; r < N; r++) rs->head[r + 1] = rs->head[r] + m->durmin[m->ord[r]];
    rs->lookback = 1;
    for (int i = 0; i < N; i++)
        if (m->pmax[i] + 1 - m->pos[i] > rs->lookback) rs->lookback = m->pmax[i] + 1 - m->pos[i];
    rs->y0 = malloc((size_t)N * sizeof *rs->y0);
    rs->yn = calloc((size_t)N, sizeof *rs->yn);
    rs->ycol = calloc((size_t)N, sizeof *rs->ycol);
    return rs->y0 && rs->yn && rs->ycol ? 0 : -1;
}

/* SRAM's reach: a preload that starts before op i ends is held with every
 * later op's preload before it in the order, so once op i's smallest plan
 * and those preloads at their smallest layouts outgrow SRAM, it starts
 * after op i ends. The first position from qmin on past op i's reach, at
 * most r0. */
static int reach_end(const model_t *m, int i, int qmin, int lookback, int r0)
{
    double held = m->hotmin[i];
    for (int r = qmin - 1; r >= 0 && r >= qmin - lookback; r--)
        if (m->ord[r] > i) held += m->cmin[m->ord[r]];
    for (int r = qmin; r < r0; r++) {
        held += m->cmin[m->ord[r]];
        if (held > m->pr->sram * (1 + 1e-12)) return r;
    }
    return r0;
}

/* The switch y of op i and position r (op j's preload) and w, the space the
 * preload takes in op i's SRAM row: held, w is at least its space; not
 * held, it starts after op i ends. prev_y is the switch of the position
 * before (0: none). Returns y's column, 0 when there is none. */
static int hold_switch(model_t *m, const resid_t *rs, int i, int r, int sram, double cap, int binary, int prev_y)
{
    prog_t *g = &m->g;
    int j = m->ord[r];
    double M = (cap - rs->tail[i] - rs->head[r]) / m->ts;
    if (M <= 0) return 0; /* it cannot start after op i ends anyway */
    int y = col(g, 0, 1, binary, 0), w = col(g, 0, m->cmax[j] / m->bs, 0, 0);
    nz(g, sram, w, 1);
    /* w >= cold_j - cmax_j (1 - y): the preload's space when held */
    int k = row(g, GLP_LO, -m->cmax[j] / m->bs, 0);
    nz(g, k, w, 1);
    add_pairs(m, k, j, COLD, -1);
    nz(g, k, y, -m->cmax[j] / m->bs);
    k = row(g, GLP_LO, 0, 0); /* w >= cmin_j y */
    nz(g, k, w, 1);
    nz(g, k, y, -m->cmin[j] / m->bs);
    /* not held: it starts after op i ends. P_r >= S_i + own_i - M y */
    k = row(g, GLP_LO, 0, 0);
    nz(g, k, m->pc[r], 1);
    nz(g, k, m->sc[i], -1);
    add_pairs(m, k, i, OWN, -1);
    nz(g, k, y, M);
    /* preloads are serial, so held ones form a prefix */
    if (prev_y) {
        k = row(g, GLP_LO, 0, 0);
        nz(g, k, prev_y, 1);
        nz(g, k, y, -1);
    }
    return y;
}

/* Op i's SRAM row (its plan and the preloads held with it) and what keeps
 * the preloads it does not hold out of its execution. */
static void build_sram(model_t *m, resid_t *rs, int i, int window, double cap, int binary, int with_y)
{
    prog_t *g = &m->g;
    int N = m->N;
    int qmin = m->pmax[i] + 1;
    int sram = row(g, GLP_UP, 0, m->pr->sram / m->bs);
    add_pairs(m, sram, i, HOT, 1);
    /* preloads of later ops placed before op i's candidates: always held */
    int nforced = 0;
    for (int r = qmin - 1; r >= 0 && r >= qmin - rs->lookback; r--)
        if (m->ord[r] > i) {
            nforced++;
            add_pairs(m, sram, m->ord[r], COLD, 1);
        }
    int nwin = window > nforced ? window - nforced : 0;
    int r0 = reach_end(m, i, qmin, rs->lookback, qmin + nwin < N ? qmin + nwin : N);
    int prev_y = 0;
    rs->y0[i] = qmin;
    rs->yn[i] = r0 - qmin;
    rs->ycol[i] = calloc((size_t)(rs->yn[i] > 0 ? rs->yn[i] : 1), sizeof **rs->ycol);
    if (!rs->ycol[i]) g->oom = 1;
    for (int r = qmin; r < r0 && !g->oom; r++) {
        int j = m->ord[r];
        if (!with_y || !m->pc[r] || m->cmax[j] <= 0) continue;
        int y = hold_switch(m, rs, i, r, sram, cap, binary, prev_y);
        if (y) rs->ycol[i][r - qmin] = prev_y = y;
    }
    /* past the window: the first preload with data starts after op i ends */
    int nr = r0 < N ? m->nextc[r0] : N;
    assert(nr >= N || m->pc[nr]);
    if (nr < N) {
        int k = row(g, GLP_LO, 0, 0);
        nz(g, k, m->pc[nr], 1);
        nz(g, k, m->sc[i], -1);
        add_pairs(m, k, i, OWN, -1);
    }
}

/* A preload held during op i has started before i ends, so before i+1
 * ends too: held during i+1 as well (or i+1's own). Taking y as "started
 * before the end" (which every schedule allows) satisfies this and the
 * prefix rows together, so both are valid at once. */
static void build_hold_chain(model_t *m, const resid_t *rs)
{
    prog_t *g = &m->g;
    for (int i = 0; i + 1 < m->N && !g->oom; i++)
        for (int k = 0; k < rs->yn[i]; k++) {
            int y = rs->ycol[i][k], r = rs->y0[i] + k;
            if (!y || m->ord[r] <= i + 1 || r < rs->y0[i + 1]) continue;
            int y2 = r - rs->y0[i + 1] < rs->yn[i + 1] ? rs->ycol[i + 1][r - rs->y0[i + 1]] : 0;
            int row_k = row(g, GLP_LO, 0, 0);
            nz(g, row_k, y, -1); /* y2 == 0: i+1 cannot hold it, so neither does i */
            if (y2) nz(g, row_k, y2, 1);
        }
}

/* Build the program; binary says whether the pair and residency variables
 * are integer, with_y whether there are residency variables at all (without,
 * a preload inside op i's window and SRAM reach may be held at no cost: the
 * reach relaxation). cap in cycles. Returns 0 or -1 (out of memory). */
static int build(model_t *m, int window, double cap, int binary, int with_y)
{
    build_order(m, cap / m->ts, binary);
    resid_t rs;
    if (resid_init(&rs, m)) {
        resid_free(&rs, m->N);
        return -1;
    }
    for (int i = 0; i < m->N; i++) build_sram(m, &rs, i, window, cap, binary, with_y);
    build_hold_chain(m, &rs);
    resid_free(&rs, m->N);
    return m->g.oom ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Solving                                                              */

/* Branch and bound's best proven bound, watched from its callback. */
typedef struct {
    double best;
} watch_t;

static void watch_cb(glp_tree *T, void *info)
{
    watch_t *w = info;
    int p = glp_ios_best_node(T);
    if (p) {
        double b = glp_ios_node_bound(T, p);
        if (b > w->best) w->best = b;
    }
}

/* A column of the incumbent, or of its earliest form when that was solved. */
static double val(glp_prob *lp, int early, int j)
{
    return early ? glp_get_col_prim(lp, j) : glp_mip_col_val(lp, j);
}

static int tm_ms(double s)
{
    if (s <= 0) return INT_MAX;
    return s * 1e3 >= INT_MAX ? INT_MAX : (int)(s * 1e3);
}

/* Allocate m's arrays and lay out the preload order (NULL: program order).
 * *forced_any: some op's preload comes before an earlier op's. On failure
 * the caller frees m with model_free. */
static elk_status model_init(model_t *m, const elk_problem *pr, int N, const int *order, int *forced_any,
                             elk_error *err)
{
    memset(m, 0, sizeof *m);
    m->pr = pr;
    m->N = N;
    m->ord = malloc((size_t)N * sizeof *m->ord);
    m->pos = malloc((size_t)N * sizeof *m->pos);
    m->pmax = malloc((size_t)N * sizeof *m->pmax);
    m->nextc = malloc((size_t)N * sizeof *m->nextc);
    m->pairs = calloc((size_t)N, sizeof *m->pairs);
    m->npairs = calloc((size_t)N, sizeof *m->npairs);
    m->xc = malloc((size_t)N * sizeof *m->xc);
    m->sc = malloc((size_t)N * sizeof *m->sc);
    m->pc = malloc((size_t)N * sizeof *m->pc);
    m->ownmin = malloc((size_t)N * sizeof *m->ownmin);
    m->durmin = malloc((size_t)N * sizeof *m->durmin);
    m->cmin = malloc((size_t)N * sizeof *m->cmin);
    m->cmax = malloc((size_t)N * sizeof *m->cmax);
    m->hotmin = malloc((size_t)N * sizeof *m->hotmin);
    if (!m->ord || !m->pos || !m->pmax || !m->nextc || !m->pairs || !m->npairs || !m->xc || !m->sc || !m->pc ||
        !m->ownmin || !m->durmin || !m->cmin || !m->cmax || !m->hotmin)
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < N; i++) m->pos[i] = -1;
    for (int k = 0; k < N; k++) {
        int op = order ? order[k] : k;
        if (op < 0 || op >= N || m->pos[op] >= 0)
            return elk_fail(err, ELK_EINVAL, "bound: the preload order is not a permutation of the %d operators", N);
        m->ord[k] = op;
        m->pos[op] = k;
    }
    *forced_any = 0;
    for (int i = 0, mx = -1; i < N; i++) {
        if (m->pos[i] > mx) mx = m->pos[i];
        m->pmax[i] = mx;
        *forced_any |= mx > i;
    }
    m->nextc[N - 1] = pr->graph.ops[m->ord[N - 1]].hbm_bytes > 0 ? N - 1 : N;
    for (int k = N - 2; k >= 0; k--) m->nextc[k] = pr->graph.ops[m->ord[k]].hbm_bytes > 0 ? k : m->nextc[k + 1];
    return ELK_OK;
}

/* Each op's pairs and their minima (r->pairs counts them); *smin_sum and
 * *smax_sum: the serial schedule's length (each op preloading then
 * executing alone) with each op's quickest pair and with its slowest. */
static elk_status model_pairs(model_t *m, const elk_sched_opts *so, elk_bound_result *r, double *smin_sum,
                              double *smax_sum, elk_error *err)
{
    const elk_problem *pr = m->pr;
    double share = max_noc_share(pr, so, m->ord, m->N);
    *smin_sum = *smax_sum = 0;
    for (int i = 0; i < m->N; i++) {
        int n = op_pairs(pr, i, share, &m->pairs[i]);
        if (n < 0) return elk_fail(err, ELK_ENOMEM, "out of memory");
        if (n == 0)
            return elk_fail(err, ELK_ENOPLAN, "bound: no plan of operator %d (%s) fits in %.0f bytes of SRAM", i,
                            pr->graph.ops[i].name, pr->sram);
        m->npairs[i] = n;
        r->pairs += n;
        double hm = INFINITY, om = INFINITY, dm = INFINITY, cmn = INFINITY, cmx = 0, smin = INFINITY, smax = 0;
        for (int t = 0; t < n; t++) {
            const pair_t *p = &m->pairs[i][t];
            hm = fmin(hm, p->hot);
            om = fmin(om, p->own);
            dm = fmin(dm, p->dur);
            cmn = fmin(cmn, p->cold);
            cmx = fmax(cmx, p->cold);
            smin = fmin(smin, p->own + p->dur);
            smax = fmax(smax, p->own + p->dur);
        }
        m->hotmin[i] = hm;
        m->ownmin[i] = om;
        m->durmin[i] = dm;
        m->cmin[i] = cmn;
        m->cmax[i] = cmx;
        *smin_sum += smin;
        *smax_sum += smax;
    }
    return ELK_OK;
}

/* The program as GLPK's problem, minimising T. */
static glp_prob *load_prob(const prog_t *g)
{
    glp_prob *lp = glp_create_prob();
    glp_set_obj_dir(lp, GLP_MIN);
    glp_add_rows(lp, g->nrows);
    glp_add_cols(lp, g->ncols);
    for (int i = 1; i <= g->nrows; i++) glp_set_row_bnds(lp, i, g->rtype[i], g->rlb[i], g->rub[i]);
    for (int j = 1; j <= g->ncols; j++) {
        glp_set_col_bnds(lp, j, g->clb[j] == g->cub[j] ? GLP_FX : GLP_DB, g->clb[j], g->cub[j]);
        glp_set_obj_coef(lp, j, g->cobj[j]);
        if (g->cint[j]) glp_set_col_kind(lp, j, GLP_BV);
    }
    glp_load_matrix(lp, g->nnz, g->ia, g->ja, g->ar);
    return lp;
}

/* The LP relaxation, into r's status and bound; sp keeps its parameters
 * for the earliest-schedule LP. cap in cycles, ts the time scale. */
static elk_status solve_relaxation(glp_prob *lp, glp_smcp *sp, const elk_bound_opts *bo, double cap, double ts,
                                   elk_bound_result *r, elk_error *err)
{
    glp_init_smcp(sp);
    sp->msg_lev = GLP_MSG_OFF;
    sp->presolve = GLP_ON;
    sp->meth = GLP_DUALP; /* on llama2-13b's full graph, 20 s against minutes for the primal */
    sp->tm_lim = tm_ms(bo->time_limit_s);
    glp_scale_prob(lp, GLP_SF_AUTO);
    int rc = glp_simplex(lp, sp);
    int lps = glp_get_status(lp);
    if (rc == GLP_ETMLIM)
        return elk_fail(err, ELK_ERANGE, "bound: the LP relaxation did not finish in %.0f s (--time-limit)",
                        bo->time_limit_s);
    if (rc == GLP_ENOPFS || (rc == 0 && lps == GLP_NOFEAS)) {
        r->status = ELK_BOUND_ABOVE_CAP;
        r->bound = cap;
    } else if (rc != 0 || lps != GLP_OPT) {
        return elk_fail(err, ELK_ETOOL, "bound: GLPK's simplex failed (code %d, status %d)", rc, lps);
    } else {
        r->status = ELK_BOUND_OPTIMAL;
        r->bound = glp_get_obj_val(lp) * ts;
    }
    return ELK_OK;
}

/* Branch and bound from the relaxation's optimum (the root, r->bound) in
 * what is left since t0 of the time limit: r's status, bound and
 * incumbent. */
static elk_status branch_and_bound(glp_prob *lp, const elk_bound_opts *bo, double t0, double cap, double ts,
                                   elk_bound_result *r, elk_error *err)
{
    double left = bo->time_limit_s > 0 ? bo->time_limit_s - (elk_sched_now_ms() - t0) / 1e3 : 0;
    watch_t w = {-INFINITY};
    glp_iocp ip;
    glp_init_iocp(&ip);
    ip.msg_lev = GLP_MSG_OFF;
    ip.presolve = GLP_OFF; /* the LP above is the root: bounds stay in its terms */
    ip.tm_lim = bo->time_limit_s > 0 ? tm_ms(fmax(left, 1e-3)) : INT_MAX;
    ip.cb_func = watch_cb;
    ip.cb_info = &w;
    ip.mir_cuts = GLP_ON;
    ip.gmi_cuts = GLP_ON;
    /* pseudocost branching: 2 s against 43 s for Driebeck-Tomlin on two
     * layers of Llama2-70B in physical, the same optimum */
    ip.br_tech = GLP_BR_PCH;
    int rc = glp_intopt(lp, &ip);
    int ms = glp_mip_status(lp);
    double root = r->bound;
    if (rc == 0 && ms == GLP_OPT) {
        r->status = ELK_BOUND_OPTIMAL;
        r->incumbent = r->bound = glp_mip_obj_val(lp) * ts;
    } else if (rc == 0 && ms == GLP_NOFEAS) {
        r->status = ELK_BOUND_ABOVE_CAP;
        r->bound = cap;
    } else if (rc == GLP_ETMLIM || rc == GLP_EMIPGAP || rc == GLP_ESTOP) {
        r->status = ELK_BOUND_TIMELIMIT;
        r->bound = fmax(root, w.best * ts);
        if (ms == GLP_FEAS) {
            r->incumbent = glp_mip_obj_val(lp) * ts;
            r->bound = fmin(r->bound, r->incumbent);
        }
    } else {
        return elk_fail(err, ELK_ETOOL, "bound: GLPK's branch and bound failed (code %d, status %d)", rc, ms);
    }
    return ELK_OK;
}

/* The solver may leave slack anywhere; with the choices fixed and the
 * makespan held, the earliest schedule is the least solution of difference
 * constraints: the one minimising the summed starts. Returns whether that
 * LP solved (else the incumbent is read as it is). */
static int earliest_schedule(glp_prob *lp, glp_smcp *sp, const model_t *m)
{
    const prog_t *g = &m->g;
    for (int j = 1; j <= g->ncols; j++) {
        if (g->cint[j]) {
            double v = glp_mip_col_val(lp, j) > 0.5;
            glp_set_col_kind(lp, j, GLP_CV);
            glp_set_col_bnds(lp, j, GLP_FX, v, v);
        }
        glp_set_obj_coef(lp, j, j == m->T ? 0 : j >= m->sc[0] ? 1 : 0);
    }
    double tv = glp_mip_obj_val(lp);
    glp_set_col_bnds(lp, m->T, GLP_FX, tv, tv);
    sp->presolve = GLP_OFF;
    glp_adv_basis(lp, 0);
    return glp_simplex(lp, sp) == 0 && glp_get_status(lp) == GLP_OPT;
}

/* r->ops from the solution (early: the earliest-schedule LP's), each op's
 * preload number counted as the scheduler does: the later preloads that
 * start before it ends. */
static elk_status read_schedule(glp_prob *lp, int early, const model_t *m, elk_bound_result *r, elk_error *err)
{
    int N = m->N;
    r->ops = calloc((size_t)N, sizeof *r->ops);
    if (!r->ops) return elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < N; i++) {
        elk_bound_op *o = &r->ops[i];
        int t = 0;
        for (int k = 0; k < m->npairs[i]; k++)
            if (val(lp, early, m->xc[i] + k) > 0.5) t = k;
        const pair_t *p = &m->pairs[i][t];
        o->entry = p->entry;
        o->copt = p->copt;
        o->exe_start = val(lp, early, m->sc[i]) * m->ts;
        o->exe_end = o->exe_start + p->own;
        int pc = m->pc[m->pos[i]];
        o->pre_start = pc ? val(lp, early, pc) * m->ts : o->exe_start;
        o->pre_end = o->pre_start + (pc ? p->dur : 0);
    }
    double tol = 1e-6 * (r->incumbent + 1);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            if (r->ops[j].pre_end > r->ops[j].pre_start && r->ops[j].pre_start < r->ops[i].exe_end - tol)
                r->ops[i].preload_number++;
    return ELK_OK;
}

elk_status elk_bound_solve(const elk_problem *pr, const elk_sched_opts *so, const elk_bound_opts *bo,
                           elk_bound_result *r, elk_error *err)
{
    memset(r, 0, sizeof *r);
    r->kind = bo->kind;
    r->incumbent = INFINITY;
    int N = pr->graph.nops;
    if (N <= 0) return elk_fail(err, ELK_EINVAL, "bound: the graph has no operators");
    elk_schedule ideal;
    memset(&ideal, 0, sizeof ideal);
    elk_status st = elk_schedule_run(pr, ELK_POL_IDEAL, so, &ideal, err);
    if (st != ELK_OK) return st;
    r->ideal = ideal.latency;
    elk_schedule_free(&ideal);

    model_t m;
    int forced_any = 0;
    double serial_min = 0, serial_max = 0;
    if ((st = model_init(&m, pr, N, bo->order, &forced_any, err)) != ELK_OK ||
        (st = model_pairs(&m, so, r, &serial_min, &serial_max, err)) != ELK_OK) {
        model_free(&m);
        return st;
    }
    /* Every op preloading then executing alone is a schedule of the model;
     * in program order (nothing held early) with each op's quickest pair,
     * otherwise with any pair. */
    double serial = forced_any ? serial_max : serial_min;
    double cap = bo->cap > 0 ? fmin(bo->cap, serial) : serial;
    int user_cap = bo->cap > 0 && bo->cap < serial;
    m.ts = r->ideal > 0 ? r->ideal : 1;
    m.bs = pr->sram > 0 ? pr->sram : 1;
    int window = bo->window > 0 ? bo->window
                 : so->window > 0 ? so->window
                                  : 2 * (pr->graph.per_layer ? pr->graph.per_layer : 16);
    int binary = bo->kind == ELK_BOUND_MILP;
    if (build(&m, window, cap, binary, bo->kind != ELK_BOUND_REACH)) {
        model_free(&m);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }

    const prog_t *g = &m.g;
    r->nops = N;
    r->rows = g->nrows;
    r->cols = g->ncols;
    for (int j = 1; j <= g->ncols; j++) r->ints += g->cint[j];
    glp_term_out(GLP_OFF);
    glp_prob *lp = load_prob(g);
    double t0 = elk_sched_now_ms();
    glp_smcp sp;
    elk_status out = solve_relaxation(lp, &sp, bo, cap, m.ts, r, err);
    if (out == ELK_OK && binary && r->status == ELK_BOUND_OPTIMAL) {
        out = branch_and_bound(lp, bo, t0, cap, m.ts, r, err);
        if (out == ELK_OK && isfinite(r->incumbent)) {
            int early = earliest_schedule(lp, &sp, &m);
            out = read_schedule(lp, early, &m, r, err);
        }
    }
    if (out == ELK_OK && r->status == ELK_BOUND_ABOVE_CAP && !user_cap)
        out = elk_fail(err, ELK_ENOPLAN, "bound: no schedule fits in SRAM in this preload order");
    assert(out != ELK_OK || !isfinite(r->incumbent) || r->bound <= r->incumbent * (1 + 1e-9));
    r->solve_s = (elk_sched_now_ms() - t0) / 1e3;
    glp_delete_prob(lp);
    model_free(&m);
    if (out != ELK_OK) elk_bound_result_free(r);
    return out;
}
