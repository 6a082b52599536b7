#include "elk_plan.h"

#include <assert.h>
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "elk_cost.h"
#include "elk_thread.h"

/* ------------------------------------------------------------------ */
/* Growable arrays                                                      */

typedef struct {
    elk_plan *v;
    int n, cap;
} plan_vec;

static int plan_push(plan_vec *a, const elk_plan *p)
{
    if (a->n == a->cap) {
        int cap = a->cap ? a->cap * 2 : 256;
        elk_plan *v = realloc(a->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = *p;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Enumeration state                                                    */

/* One temporal (rotation) choice for one input tensor. */
typedef struct {
    int t, ax;
} rot;

#define MAX_ROTS 256

/* The front kept so far, for dominance queries. Owns every array.
 * Invariants: h, c, x are the front's points sorted by hot ascending; the
 * Fenwick node i (1-based, points i - (i & -i) .. i - 1) is cx[off[i] ..
 * off[i] + (i & -i)), sorted by C ascending, its x the least X up to there. */
typedef struct {
    double c, x;
    int k;        /* the point of least X (an index into h, c, x) */
} front_cx;
#define FRONT_RECENT 4
typedef struct {
    int n, cap;
    int recent[FRONT_RECENT]; /* points that dominated lately, tried first */
    double *h, *c, *x;
    double *pmin;  /* 2 (n + 1): [2i], [2i + 1] the least C and X of points 0 .. i - 1 */
    int *off;
    front_cx *cx;
    size_t cxcap;
} front_idx;

/* A class of spatial plans that give the same plans (see twin_slot), and
 * the rotations of its varying tensor some member has already evaluated. */
#define TWIN_SLOTS 256 /* live classes are few (see twin_slot); a small table stays in cache */
#define TWIN_SEEN 16
typedef struct {
    long key[ELK_MAX_DIMS];
    int used, nseen;
    uint64_t seen_bits; /* bit rot_bit(r) of every r in seen: a clear bit rules r out */
    rot seen[TWIN_SEEN];
} twin_ent;

static unsigned rot_bit(rot r) { return ((unsigned)r.t * 0x9E3779B1u + (unsigned)r.ax * 0x85EBCA6Bu) >> 26; }

/* The last partial-sum add elk_plan_charge_output priced, for one chip: a
 * spatial plan's plans mostly share their copies and output tile. Owned by
 * one enumeration (enum_ctx). Invariant: when ok, val is the add's cost at
 * (kind, r0, n): elk_cost_partial_reduce(c, r0, n) for kind 1,
 * elk_cost_vector_add(c, n) for kind 2. */
typedef struct {
    int kind;
    double r0, n, val;
} add_memo;

/* Everything enumeration needs; lives on the stack of elk_plan_enumerate. */
typedef struct enum_ctx {
    const elk_chip *c;
    const elk_op *op;
    double sram;
    int cores;
    int nd;
    long D[ELK_MAX_DIMS];
    long suffix[ELK_MAX_DIMS + 1]; /* prod of min(D, cores) over dims >= d, capped */
    double util_cores;              /* least cores a plan that splits a reduced dim must use */
    double util_out;                /* least cores a plan that splits none must use (<= util_cores) */
    int is_out[ELK_MAX_DIMS];       /* dim d indexes the output (is not reduced) */
    unsigned axmask[ELK_MAX_TENSORS]; /* bit d: tensor v indexes dim d (in_axes) */
    add_memo add_memo;              /* eval_plan's last partial-sum add (kind 0: none) */
    double r0;                      /* the current spatial plan's partial-sum copies:
                                     * the product of p over dims the output does not index */
    long suffix_out[ELK_MAX_DIMS + 1]; /* suffix over the output dims only */
    int red_split;                  /* reduced dims split on spatial_rec's current path */
    double pad_thr;
    int grid, rows, cols;
    double cs, sync;
    double unf_comp, unf_syncs, unf_bytes; /* the paper profile's unfused charge */
    int p[ELK_MAX_DIMS];
    long sl[ELK_MAX_DIMS]; /* (D + p - 1) / p of the current p */
    plan_vec all;   /* survivors of per-spatial pruning */
    plan_vec local; /* plans of the current spatial plan */
    elk_plan_cb cb;
    void *ctx;
    long enumerated, spatial;
    double min_hot;   /* least execution space of any evaluated plan, fitting or not */
    int oom;
    /* Dominance pruning (off when exhaustive): fi indexes the Pareto front
     * of everything kept up to the last refresh_front; a rotation option
     * whose bound it strictly dominates is not evaluated, and neither is a
     * spatial plan left without options; a plan it strictly dominates is
     * not kept. */
    int prune;
    front_idx fi;
    /* Seeds: the front of the coarse space, a subset of this one (so each
     * is a plan here, with the same values), indexed as fi; used only to
     * bound, never kept. Owned by enumerate_space (the threads' copies
     * share its arrays, read only; each has its own recent). n 0: none. */
    front_idx fs;
    int next_prune;   /* all.n at which the kept plans are pruned again */
    int sorted;       /* all.v[0 .. sorted) is in global_prune's order (its last survivors) */
    long bounded;     /* spatial plans skipped on their bound */
    const atomic_int *cancel;
    long ticks;       /* spatial leaves visited, for polling cancel */
    long dv_of[ELK_MAX_TENSORS]; /* the replica count dv[v] lists the divisors of (0: none yet) */
    int ndv[ELK_MAX_TENSORS];
    long dv[ELK_MAX_TENSORS][512];
    double cpb, xf;   /* elk_cost_shift_cpb and elk_chip_xfactor of the chip */
    double a2a_rs, a2a_rd; /* the current spatial plan's reduce-scatter and re-layout cycles */
    int tid, nthr;    /* this thread takes the innermost loops numbered tid mod nthr */
    long chunk;       /* innermost loops met so far */
    int cancelled;
    /* Symmetry (off when exhaustive; twin_slot): free_mask's dims enter the
     * plans only through sl[d] and the rotations of tensor vary (0: none) */
    unsigned free_mask;
    int vary;
    twin_ent *twins;  /* TWIN_SLOTS, direct-mapped, allocated on first use */
    long twinned;     /* spatial plans whose every plan an earlier twin gave */
    int coarse;       /* elk_plan_opts.coarse */
    /* The fastest plan only (elk_plan_fastest): no front; a rotation
     * option or spatial plan whose lower bound on the menu's execution
     * passes best * (1 + ELK_PLAN_FASTEST_MARGIN) is not evaluated, and only plans
     * within that margin of best are kept (the set's own filter and the
     * menu's then run on those). */
    int fastest;
    double best;      /* least menu execution of a kept plan so far */
    double msc;       /* the menu's sync cycles per sync: sync_cycles, xfactor apart */
    long lb_sl[ELK_MAX_DIMS]; /* the slice fastest_spatial_lb last priced (lb_sl[0] 0: none) */
    double lb_comp;   /* and its compute */
    int split_up;     /* compute_splits_up of the chip and operator */
    double sub_syncs, sub_shb; /* fastest_subtree_bounded's syncs and shift bytes (the same for every subtree) */
    double rd_lb;              /* the fastest search's least output re-layout (fastest_rd_lb), every plan's */
} enum_ctx;

static int in_axes(const elk_tensor *t, int d)
{
    for (int a = 0; a < t->naxes; a++)
        if (t->axis[a] == d) return 1;
    return 0;
}

static int pad_ok(long len, long parts, double thr)
{
    long sub = (len + parts - 1) / parts;
    return (double)len / (double)(sub * parts) >= thr;
}

/* Dominance in (hot, C, X) with C = comp/cs + syncs*sync, X = xcyc. */
static double plan_C(const enum_ctx *e, const elk_plan *p) { return p->comp / e->cs + p->syncs * e->sync; }

static int dominates(const enum_ctx *e, const elk_plan *a, const elk_plan *b)
{
    return a->hot <= b->hot && plan_C(e, a) <= plan_C(e, b) && a->xcyc <= b->xcyc;
}

/* Whether a point of the front strictly dominates (h, c, x): no worse in
 * all three and better in one. Strictness matters: a plan equal to a front
 * point in all three may still be the one the final prune keeps (ties go to
 * the spatial plan), so only a strictly dominated plan is safe to drop.
 * The points with hot <= h are a prefix of the front; its Fenwick nodes
 * each hold their points sorted by C with the running least X, so a query
 * is O(log^2 n): in each node, the least X among points with C <= c. A
 * least X below x is a strict dominator; one equal to x is settled by a
 * scan (rare: it needs an exact tie in X). */
static int idx_dominates(front_idx *f, double h, double c, double x)
{
    /* neighbouring spatial plans tend to fall to the same point */
    for (int r = 0; r < FRONT_RECENT; r++) {
        int k = f->recent[r];
        if (k < f->n && f->h[k] <= h && f->c[k] <= c && f->x[k] <= x && (f->h[k] < h || f->c[k] < c || f->x[k] < x))
            return 1;
    }
    int lo = 0, hi = f->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (f->h[mid] <= h) lo = mid + 1;
        else hi = mid;
    }
    /* no point of the prefix is as good in C, or in X: none dominates */
    if (lo == 0 || f->pmin[2 * lo] > c || f->pmin[2 * lo + 1] > x) return 0;
    int tie = 0;
    for (int i = lo; i > 0; i -= i & -i) {
        const front_cx *nd = f->cx + f->off[i];
        int a = 0, b = i & -i;
        while (a < b) {
            int mid = (a + b) / 2;
            if (nd[mid].c <= c) a = mid + 1;
            else b = mid;
        }
        if (a == 0) continue;
        if (nd[a - 1].x < x) {
            memmove(f->recent + 1, f->recent, (FRONT_RECENT - 1) * sizeof *f->recent);
            f->recent[0] = nd[a - 1].k;
            return 1;
        }
        if (nd[a - 1].x == x) tie = 1;
    }
    if (!tie) return 0;
    for (int k = 0; k < lo; k++)
        if (f->c[k] <= c && f->x[k] <= x && (f->h[k] < h || f->c[k] < c || f->x[k] < x)) return 1;
    return 0;
}

/* The kept plans' front, then the seeds' (enum_ctx.fs): a seed is a plan
 * of this space, so a plan it strictly dominates is in no final set
 * whatever the order, as one the front strictly dominates is not. */
static int front_dominates(enum_ctx *e, double h, double c, double x)
{
    return idx_dominates(&e->fi, h, c, x) || (e->fs.n > 0 && idx_dominates(&e->fs, h, c, x));
}

static int cmp_cx(const void *pa, const void *pb)
{
    const front_cx *a = pa, *b = pb;
    if (a->c != b->c) return a->c < b->c ? -1 : 1;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    return a->k - b->k;
}

static int global_prune(struct enum_ctx *e);

static int front_index(const enum_ctx *e, front_idx *f, const elk_plan *v, int n);

/* Prune the kept plans to their front and index it for front_dominates.
 * Pruning a subset early changes nothing: the front of (front of A) + B is
 * the front of A + B under the same total order. */
static void refresh_front(enum_ctx *e)
{
    if (global_prune(e) || front_index(e, &e->fi, e->all.v, e->all.n)) {
        e->oom = 1;
        return;
    }
    /* re-prune once the plans kept since have doubled the set: the sorts
     * then cost O(log) per kept plan and the buffer stays a few fronts big */
    e->next_prune = 2 * e->all.n + 256;
}

/* Index the front v[0..n) (sorted by hot, as global_prune leaves it) into
 * f for idx_dominates. 0, or -1 when out of memory (f then holds none). */
static int front_index(const enum_ctx *e, front_idx *f, const elk_plan *v, int n)
{
    size_t need = 0;
    for (int i = 1; i <= n; i++) need += (size_t)(i & -i);
    if (n > f->cap || need > f->cxcap) {
        double *h = realloc(f->h, (size_t)n * sizeof *h), *c = h ? realloc(f->c, (size_t)n * sizeof *c) : NULL,
               *x = c ? realloc(f->x, (size_t)n * sizeof *x) : NULL;
        int *off = x ? realloc(f->off, (size_t)(n + 1) * sizeof *off) : NULL;
        front_cx *cx = off ? realloc(f->cx, need * sizeof *cx) : NULL;
        double *pmin = cx ? realloc(f->pmin, (size_t)(2 * n + 2) * sizeof *pmin) : NULL;
        if (h) f->h = h;
        if (c) f->c = c;
        if (x) f->x = x;
        if (off) f->off = off;
        if (cx) f->cx = cx;
        if (pmin) f->pmin = pmin;
        if (!pmin) {
            f->n = 0;
            return -1;
        }
        f->cap = n;
        f->cxcap = need;
    }
    if (n > 0) f->pmin[0] = f->pmin[1] = INFINITY;
    for (int i = 0; i < n; i++) {
        f->h[i] = v[i].hot;
        f->c[i] = plan_C(e, &v[i]);
        f->x[i] = v[i].xcyc;
        f->pmin[2 * i + 2] = f->c[i] < f->pmin[2 * i] ? f->c[i] : f->pmin[2 * i];
        f->pmin[2 * i + 3] = f->x[i] < f->pmin[2 * i + 1] ? f->x[i] : f->pmin[2 * i + 1];
    }
    /* every node's points in cmp_cx's order: the points sorted once, then
     * dealt in that order to the nodes holding them (point k is in nodes
     * k + 1, then up by i & -i), so each node fills already sorted; the
     * order is total, so these are the arrays sorting each node gives */
    front_cx *all = malloc((size_t)(n ? n : 1) * sizeof *all);
    int *fill = malloc((size_t)(n + 1) * sizeof *fill);
    if (!all || !fill) {
        free(all);
        free(fill);
        f->n = 0; /* its arrays are half rewritten */
        return -1;
    }
    for (int k = 0; k < n; k++) all[k] = (front_cx){f->c[k], f->x[k], k};
    qsort(all, (size_t)n, sizeof *all, cmp_cx);
    int o = 0;
    for (int i = 1; i <= n; i++) {
        f->off[i] = o;
        fill[i] = 0;
        o += i & -i;
    }
    for (int r = 0; r < n; r++)
        for (int i = all[r].k + 1; i <= n; i += i & -i) f->cx[f->off[i] + fill[i]++] = all[r];
    free(all);
    free(fill);
    for (int i = 1; i <= n; i++) {
        int w = i & -i;
        front_cx *nd = f->cx + f->off[i];
        for (int k = 1; k < w; k++)
            if (nd[k].x > nd[k - 1].x) nd[k] = (front_cx){nd[k].c, nd[k - 1].x, nd[k - 1].k}; /* running least X */
    }
    f->n = n;
    for (int r = 0; r < FRONT_RECENT; r++) f->recent[r] = 0;
    return 0;
}

/* The menu's execution of a plan (elk_menu_build_scaled's expression, whose
 * bits the fastest search must reproduce). */
static double menu_exe(const elk_chip *c, const elk_plan *p, double fcomp, double fxchg)
{
    return p->comp / c->compute_scale * fcomp +
           (elk_plan_xcycles(c, p) + p->syncs * c->sync_cycles * elk_chip_xfactor(c)) * fxchg;
}

/* The same from the plan's own xcyc (equal to elk_plan_xcycles at the chip
 * it was enumerated for, eval_plan's assert), for the margin tests. */
static double fast_exe(const enum_ctx *e, const elk_plan *p)
{
    return p->comp / e->cs + (p->xcyc + p->syncs * e->msc * e->xf);
}

/* Drop the kept plans outside the margin of best, keeping their order (ties
 * of the set's filter fall to the earlier). */
static void fastest_trim(enum_ctx *e)
{
    double lim = e->best * (1 + ELK_PLAN_FASTEST_MARGIN);
    int k = 0, sorted = 0;
    for (int i = 0; i < e->all.n; i++)
        if (fast_exe(e, &e->all.v[i]) <= lim) {
            e->all.v[k++] = e->all.v[i];
            if (i < e->sorted) sorted = k; /* a sorted prefix stays one */
        }
    e->all.n = k;
    e->sorted = sorted;
    e->next_prune = 2 * k + 256;
}

/* The fastest search's local_prune: every plan within the margin is kept
 * as it comes (the set's filter runs on them at the end, so the local
 * dominance filter, which it subsumes, is not needed). */
static void fastest_keep(enum_ctx *e)
{
    plan_vec *l = &e->local;
    for (int i = 0; i < l->n; i++) {
        double x = fast_exe(e, &l->v[i]);
        if (x > e->best * (1 + ELK_PLAN_FASTEST_MARGIN)) continue;
        if (x < e->best) e->best = x;
        if (plan_push(&e->all, &l->v[i])) e->oom = 1;
    }
    l->n = 0;
    if (!e->oom && e->all.n >= e->next_prune) fastest_trim(e);
}

static void local_prune(enum_ctx *e)
{
    plan_vec *l = &e->local;
    if (e->fastest) {
        fastest_keep(e);
        return;
    }
    int keep = 0;
    for (int i = 0; i < l->n; i++) {
        int dom = 0;
        for (int j = 0; j < l->n && !dom; j++) {
            if (i == j) continue;
            if (dominates(e, &l->v[j], &l->v[i]) &&
                (!dominates(e, &l->v[i], &l->v[j]) || j < i))
                dom = 1;
        }
        if (!dom) l->v[keep++] = l->v[i];
    }
    for (int i = 0; i < keep; i++) {
        if (e->prune && front_dominates(e, l->v[i].hot, plan_C(e, &l->v[i]), l->v[i].xcyc)) continue;
        if (plan_push(&e->all, &l->v[i])) e->oom = 1;
    }
    l->n = 0;
    if (e->prune && !e->oom && e->all.n >= e->next_prune) refresh_front(e);
}

/* The output's hand-over to its consumer: one sync, or under the paper
 * profile's relayout rule the artifact's six syncs and a port-rate shift of
 * the output slice (s0 elements) after a matmul or reduction. */
static void relayout_terms(const elk_op *op, unsigned prof, double s0, double *shift, double *syncs)
{
    if (!(prof & (1u << ELK_PSW_RELAYOUT)) || op->kind == ELK_OP_ELEMWISE || op->kind == ELK_OP_UNARY) {
        *syncs += 1;
        return;
    }
    *shift += s0;
    *syncs += 6;
}


static double memo_add(const elk_chip *c, add_memo *m, int kind, double r0, double n)
{
    if (m && m->kind == kind && m->r0 == r0 && m->n == n) return m->val;
    double v = kind == 1 ? elk_cost_partial_reduce(c, r0, n) : elk_cost_vector_add(c, n);
    if (m) *m = (add_memo){kind, r0, n, v};
    return v;
}

/* elk_plan_charge_output with the memo of its adds (NULL: none) */
static void charge_output(const elk_chip *c, const elk_op *op, double r0, const long *sub, double s0, elk_plan *pl,
                          double *shift_elems, double *syncs, add_memo *am)
{
    double dt = op->dtype_bytes;
    if (r0 > 1 && (c->profile & (1u << ELK_PSW_GATHER))) {
        /* the artifact's gather: one sync per copy, the per-iteration output
         * (half of it for two copies) through the port, then the adds */
        double o = 1;
        for (int a = 0; a < op->t[0].naxes; a++) o *= (double)sub[op->t[0].axis[a]];
        pl->comp += memo_add(c, am, 1, r0, o);
        *shift_elems += r0 < 3 ? floor(o / 2) : o;
        *syncs += r0;
    } else if (r0 > 1) {
        double rs = s0 * (r0 - 1) / r0;
        pl->comp += memo_add(c, am, 2, 0, rs);
        pl->rs_bytes = rs * dt;
        pl->rs_group = r0;
        *syncs += 1;
    }
    if (c->profile & (1u << ELK_PSW_RELAYOUT)) {
        /* the artifact's shuffle: an elementwise op's output stays put (one
         * sync); any other op's output shifts once and pays six syncs */
        if (op->kind == ELK_OP_ELEMWISE || op->kind == ELK_OP_UNARY) {
            *syncs += 1;
        } else {
            *shift_elems += s0;
            *syncs += 6;
        }
    } else {
        pl->rd_bytes = s0 / r0 * dt;
        *syncs += 1;
    }
}

void elk_plan_charge_output(const elk_chip *c, const elk_op *op, double r0, const long *sub, double s0, elk_plan *pl,
                            double *shift_elems, double *syncs)
{
    charge_output(c, op, r0, sub, s0, pl, shift_elems, syncs, NULL);
}

static void eval_plan(enum_ctx *e, const long *sl, const rot *r)
{
    const elk_op *op = e->op;
    int nt = op->ntensors, nd = e->nd;
    int T[ELK_MAX_DIMS];
    for (int d = 0; d < nd; d++) T[d] = 1;
    for (int v = 1; v < nt; v++)
        if (r[v].t > 1 && r[v].t > T[r[v].ax]) T[r[v].ax] = r[v].t;
    /* rotations along one dim must nest (a divisibility chain) */
    for (int v = 1; v < nt; v++)
        if (r[v].t > 1 && T[r[v].ax] % r[v].t) return;
    long sub[ELK_MAX_DIMS];
    double iters = 1, padded = 1, real = 1;
    for (int d = 0; d < nd; d++) {
        sub[d] = (sl[d] + T[d] - 1) / T[d];
        iters *= T[d];
        padded *= (double)sub[d] * T[d];
        real *= (double)sl[d];
    }
    if (real / padded < e->pad_thr) return;

    e->enumerated++;
    double dt = op->dtype_bytes;
    double s[ELK_MAX_TENSORS];
    elk_plan pl;
    /* every field set below or here (no memset: this runs millions of times) */
    for (int v = nt; v < ELK_MAX_TENSORS; v++) {
        pl.t[v] = 1;
        pl.ax[v] = -1;
    }
    for (int d = nd; d < ELK_MAX_DIMS; d++) pl.p[d] = 1;
    pl.rs_bytes = pl.rs_group = pl.rd_bytes = 0;
    pl.opt0 = pl.nopt = 0;
    double hot = 0;
    for (int v = 0; v < nt; v++) {
        double sz = 1;
        for (int a = 0; a < op->t[v].naxes; a++) {
            int d = op->t[v].axis[a];
            long len = sl[d];
            if (v > 0 && r[v].t > 1 && r[v].ax == d) len = (len + r[v].t - 1) / r[v].t;
            sz *= (double)len;
        }
        s[v] = sz;
        hot += sz * dt * ((v > 0 && r[v].t > 1) ? 2 : 1);
        pl.t[v] = v > 0 ? r[v].t : 1;
        pl.ax[v] = v > 0 && r[v].t > 1 ? r[v].ax : -1;
    }
    for (int d = 0; d < nd; d++) pl.p[d] = e->p[d];
    pl.hot = hot;
    if (hot < e->min_hot) e->min_hot = hot;
    if (hot > e->sram) {
        if (e->cb) e->cb(&pl, e->ctx);
        return;
    }
    pl.comp = elk_cost_compute(e->c, op, sub) * iters;

    /* Shift loops, biggest mover outermost (it then moves least often). */
    int order[ELK_MAX_DIMS], no = 0;
    double vol[ELK_MAX_DIMS] = {0};
    for (int d = 0; d < nd; d++) {
        if (T[d] == 1) continue;
        for (int v = 1; v < nt; v++)
            if (r[v].t > 1 && r[v].ax == d) vol[d] += s[v];
        order[no++] = d;
    }
    for (int i = 1; i < no; i++)
        for (int j = i; j > 0 && vol[order[j]] > vol[order[j - 1]]; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    unsigned prof = e->c->profile;
    double outer = 1, shift_elems = 0, syncs = 0, var_shifts = 0;
    for (int i = 0; i < no; i++) {
        int d = order[i];
        syncs += outer * T[d] - 1;
        for (int v = 1; v < nt; v++)
            if (r[v].t > 1 && r[v].ax == d) {
                shift_elems += (outer * r[v].t - 1) * s[v];
                var_shifts += outer * r[v].t - 1;
            }
        outer *= T[d];
    }
    /* the artifact's sync_shift: each rotating tensor's every step costs two */
    if (prof & (1u << ELK_PSW_ROTSYNC)) syncs = 2 * var_shifts;
    /* partial sums over split dims the output does not index */
    charge_output(e->c, op, e->r0, sub, s[0], &pl, &shift_elems, &syncs, &e->add_memo);
    pl.comp += e->unf_comp;
    syncs += e->unf_syncs;
    pl.shift_bytes = shift_elems * dt + e->unf_bytes;
    pl.syncs = syncs;
    /* elk_plan_xcycles, its terms in its order (the same bits) with the
     * spatial plan's two all-to-alls computed once */
    pl.xcyc = e->xf * (pl.shift_bytes * e->cpb + e->a2a_rs + e->a2a_rd);
    assert(pl.xcyc == elk_plan_xcycles(e->c, &pl));
    if (e->cb) e->cb(&pl, e->ctx);
    if (plan_push(&e->local, &pl)) e->oom = 1;
}

static long divisors(long n, long *out, int max)
{
    int k = 0;
    for (long i = 1; i * i <= n && k < max; i++)
        if (n % i == 0) {
            out[k++] = i;
            if (i != n / i && k < max) out[k++] = n / i;
        }
    return k;
}

/* On a mesh a plan is laid out on the two mesh axes: its split dims form at
 * most two groups (dims fused on one axis, e.g. batch x heads), each group's
 * product fitting its axis, so rotation rings run between neighbours. */
static int grid_fits(const enum_ctx *e, const int *p, int split)
{
    int sd[ELK_MAX_DIMS], k = 0;
    for (int d = 0; d < e->nd; d++)
        if (p[d] > 1) sd[k++] = d;
    (void)split;
    for (int mask = 0; mask < (1 << k); mask++) {
        double a = 1, b = 1;
        for (int i = 0; i < k; i++) {
            if (mask & (1 << i)) a *= p[sd[i]];
            else b *= p[sd[i]];
        }
        if ((a <= e->rows && b <= e->cols) || (a <= e->cols && b <= e->rows)) return 1;
    }
    return 0;
}

/* Whether splitting an operator's work over more iterations never makes its
 * compute cheaper: compute(sub) * iters >= compute(sl) whenever sub * T >=
 * sl along every dim. True of the parametric model and of the IPU matmul and
 * unary formulas with non-negative coefficients (each term is a product of
 * ceil(len/q) factors, one dim each, and T * ceil(ceil(len/T)/q) >=
 * ceil(len/q)); not of the IPU elementwise and reduce curves (caps, knees,
 * alignment), whose bound is then 0. */
static int compute_splits_up(const elk_chip *c, const elk_op *op)
{
    const elk_cost_coef *k = &c->cost;
    if (k->kind != ELK_COSTK_IPU) return k->op_overhead >= 0 && c->matmul_macs_per_cycle > 0 && c->vector_elems_per_cycle > 0;
    if (op->kind == ELK_OP_MATMUL)
        return k->mm_block >= 0 && k->mm_kn >= 0 && k->mm_n >= 0 && k->mm_fixed >= 0 && c->matmul_macs_per_cycle > 0;
    if (op->kind == ELK_OP_UNARY) return k->unary_slope >= 0 && k->unary_fixed >= 0 && c->vector_elems_per_cycle > 0;
    return 0;
}

/* Dominance pruning of rotation choices: for one input tensor's rotation
 * option, a lower bound on hot, C and X over every plan of the spatial plan
 * that takes it (eval_plan's terms, with the other tensors at their least
 * space and the rotation terms of the other tensors at 0, all of which are
 * >= 0), and whether the front kept so far strictly dominates that bound. If
 * so, every such plan is strictly dominated and none can reach the front,
 * so the option is dropped; a spatial plan left with no option for some
 * tensor is not evaluated at all. The bounds are shaded by 1e-9 so that
 * rounding can never lift one above the value eval_plan computes in another
 * order. Returns 0 if the spatial plan is dead, else 1 with opts compacted
 * (their order kept: ties among a spatial plan's plans go to the first). */
static int prune_options(enum_ctx *e, const long *sl, rot (*opts)[MAX_ROTS], int *nopt)
{
    const elk_op *op = e->op;
    int nd = e->nd, nt = op->ntensors;
    unsigned prof = e->c->profile;
    double dt = op->dtype_bytes;
    static _Thread_local double hv[ELK_MAX_TENSORS][MAX_ROTS], ev[ELK_MAX_TENSORS][MAX_ROTS];
    long Tmax[ELK_MAX_DIMS];
    for (int d = 0; d < nd; d++) Tmax[d] = 1;
    double s0 = 1;
    for (int a = 0; a < op->t[0].naxes; a++) s0 *= (double)sl[op->t[0].axis[a]];
    double hmin[ELK_MAX_TENSORS], hsum = s0 * dt;
    for (int v = 1; v < nt; v++) {
        hmin[v] = INFINITY;
        for (int i = 0; i < nopt[v]; i++) {
            const rot *r = &opts[v][i];
            double sz = 1;
            for (int a = 0; a < op->t[v].naxes; a++) {
                int d = op->t[v].axis[a];
                sz *= (double)(r->t > 1 && r->ax == d ? (sl[d] + r->t - 1) / r->t : sl[d]);
            }
            ev[v][i] = sz; /* elements per core of the rotating slice */
            if (r->t > 1) {
                sz *= 2;
                if (r->t > Tmax[r->ax]) Tmax[r->ax] = r->t;
            }
            hv[v][i] = sz * dt;
            if (hv[v][i] < hmin[v]) hmin[v] = hv[v][i];
        }
        hsum += hmin[v];
    }
    /* the terms no rotation choice changes (eval_plan's, in its order) */
    int split_up = e->split_up;
    int out_rot = 0;
    double osub = 1;
    for (int a = 0; a < op->t[0].naxes; a++) {
        int d = op->t[0].axis[a];
        out_rot |= Tmax[d] > 1;
        osub *= (double)((sl[d] + Tmax[d] - 1) / Tmax[d]);
    }
    double r0 = e->r0;
    double add = 0, shift = 0, syncs = 0;
    if (r0 > 1 && (prof & (1u << ELK_PSW_GATHER))) {
        if (!out_rot) add = elk_cost_partial_reduce(e->c, r0, s0);
        shift += r0 < 3 ? floor(osub / 2) : osub;
        syncs += r0;
    } else if (r0 > 1) {
        double rs = s0 * (r0 - 1) / r0;
        add = elk_cost_vector_add(e->c, rs);
        syncs += 1;
    }
    relayout_terms(op, prof, s0, &shift, &syncs);
    double sync_per = prof & (1u << ELK_PSW_ROTSYNC) ? 2 : 1;
    double comp_sl = 0;
    int have_sl = 0;
    for (int v = 1; v < nt; v++) {
        int k = 0;
        for (int i = 0; i < nopt[v]; i++) {
            const rot *r = &opts[v][i];
            double hot = (hsum - hmin[v] + hv[v][i]) * (1 - 1e-9);
            /* nothing with this option fits; once something does, the error
             * that would name the smallest plan cannot arise */
            int dead = hot > e->sram && (e->all.n > 0 || e->fastest);
            if (!dead && (e->fi.n > 0 || e->fs.n > 0 || (e->fastest && e->best < INFINITY))) {
                elk_plan pl;
                /* a rotation of t along d runs >= t - 1 shift steps of this
                 * slice, each a sync (two under rotsync), and splits the
                 * compute t ways, never for less (compute_splits_up) */
                double rsteps = r->t > 1 ? r->t - 1 : 0;
                pl.syncs = sync_per * rsteps + syncs + e->unf_syncs;
                pl.shift_bytes = (rsteps * ev[v][i] + shift) * dt + e->unf_bytes;
                double x = e->xf * (pl.shift_bytes * e->cpb + e->a2a_rs + e->a2a_rd) * (1 - 1e-9);
                double lim = e->best * (1 + ELK_PLAN_FASTEST_MARGIN);
                if (e->fastest && split_up && r->t > 1) {
                    /* the fastest search tries the unsplit slice's compute
                     * first (fastest_spatial_lb's, no more than the split
                     * one's, rounding apart, which the shading covers): about
                     * half the options that fall, fall to it, and need no
                     * compute of their own */
                    pl.comp = e->lb_comp;
                    pl.comp += add;
                    pl.comp += e->unf_comp;
                    dead = (plan_C(e, &pl) * (1 - 1e-9) + x) * (1 - 1e-9) > lim;
                }
                if (!dead) {
                    double cu = 0;
                    if (split_up && r->t > 1) {
                        long sub[ELK_MAX_DIMS];
                        for (int d = 0; d < nd; d++) sub[d] = sl[d];
                        sub[r->ax] = (sl[r->ax] + r->t - 1) / r->t;
                        cu = elk_cost_compute(e->c, op, sub) * r->t;
                    } else if (split_up) {
                        /* the unsplit slice, once per spatial plan (its
                         * compute times 1 is itself) */
                        if (!have_sl) comp_sl = elk_cost_compute(e->c, op, sl);
                        have_sl = 1;
                        cu = comp_sl;
                    }
                    pl.comp = cu;
                    pl.comp += add;
                    pl.comp += e->unf_comp;
                    double cc = plan_C(e, &pl) * (1 - 1e-9);
                    /* the fastest search: C + X bounds the menu's execution
                     * (shaded, the same sum in another order) */
                    dead = e->fastest ? (cc + x) * (1 - 1e-9) > lim : front_dominates(e, hot, cc, x);
                }
            }
            if (!dead) opts[v][k++] = *r;
        }
        if (k == 0) return 0;
        nopt[v] = k;
    }
    return 1;
}

/* Symmetry between spatial plans. A dim d is free when the output indexes
 * it and every input that does not is an activation: its split p[d] then
 * enters the plans only through sl[d] (volumes, compute) and the rotation
 * choices of those inputs, whose replica count it multiplies (not r0, the
 * output's partial sums, nor an HBM tensor's preload layouts). Two spatial
 * plans that agree on sl[d] for free dims and on p[d] for the others are
 * twins: every plan they share (the same rotations) is equal in every value
 * but p, and the final prune keeps the first in enumeration order, so a
 * later twin need only evaluate the rotations of the varying tensor no
 * earlier twin had. With two varying inputs the cross products would not
 * split that way, and only dims every tensor indexes stay free (twins then
 * share all their plans). */
static void twin_setup(enum_ctx *e)
{
    const elk_op *op = e->op;
    unsigned vary_of[ELK_MAX_DIMS] = {0}, all_vary = 0;
    e->free_mask = 0;
    for (int d = 0; d < e->nd; d++) {
        if (!in_axes(&op->t[0], d)) continue;
        int ok = 1;
        for (int v = 1; v < op->ntensors; v++) {
            if (in_axes(&op->t[v], d)) continue;
            if (op->t[v].role == ELK_TR_WEIGHT || op->t[v].role == ELK_TR_KV) ok = 0;
            vary_of[d] |= 1u << v;
        }
        if (!ok) continue;
        e->free_mask |= 1u << d;
        all_vary |= vary_of[d];
    }
    e->vary = 0;
    if (all_vary & (all_vary - 1)) {
        for (int d = 0; d < e->nd; d++)
            if (vary_of[d]) e->free_mask &= ~(1u << d);
    } else if (all_vary) {
        while (!(all_vary & (1u << e->vary))) e->vary++;
    }
}

/* The current spatial plan's class slot; *fresh is set if no twin is
 * recorded there (first of its class, or its slot was taken by another
 * class since: then it is evaluated again, which costs time, not
 * exactness). NULL if symmetry is off or out of memory. */
static twin_ent *twin_slot(enum_ctx *e, const long *sl, int *fresh)
{
    *fresh = 1;
    if (!e->free_mask) return NULL;
    if (!e->twins) {
        /* only used is read before a slot is filled: clearing it alone
         * (the whole table was most of a small enumeration's start) */
        if (!(e->twins = malloc(TWIN_SLOTS * sizeof *e->twins))) return NULL;
        for (int i = 0; i < TWIN_SLOTS; i++) e->twins[i].used = 0;
    }
    long key[ELK_MAX_DIMS] = {0};
    uint64_t h = 1469598103934665603ULL;
    for (int d = 0; d < e->nd; d++) {
        key[d] = e->free_mask & (1u << d) ? sl[d] : e->p[d];
        h = (h ^ (uint64_t)key[d]) * 1099511628211ULL;
    }
    twin_ent *t = &e->twins[(h ^ (h >> 29)) % TWIN_SLOTS];
    if (t->used && !memcmp(t->key, key, sizeof key)) {
        *fresh = 0;
        return t;
    }
    memcpy(t->key, key, sizeof key);
    t->used = 1;
    t->nseen = 0;
    t->seen_bits = 0;
    return t;
}

/* The fastest search's lower bound on the menu's execution of every plan of
 * the current spatial plan (output elements s0, r0 partial-sum copies):
 * prune_options' terms that no rotation changes, the rotations' own at 0
 * (the compute of the unsplit slice where splitting never lowers it,
 * compute_splits_up; the gather's adds and shift, which a rotated output
 * changes, at 0), shaded like prune_options'. */
static void fastest_spatial_lb(enum_ctx *e, const long *sl, double s0, double r0, double *cc, double *shb)
{
    const elk_op *op = e->op;
    unsigned prof = e->c->profile;
    double dt = op->dtype_bytes;
    /* neighbouring spatial plans often share the slice (ceil(D / p) for
     * consecutive p) */
    if (memcmp(e->lb_sl, sl, (size_t)e->nd * sizeof *sl)) {
        memcpy(e->lb_sl, sl, (size_t)e->nd * sizeof *sl);
        e->lb_comp = e->split_up ? elk_cost_compute(e->c, op, sl) : 0;
    }
    double comp = e->lb_comp;
    double shift = 0, syncs = 0;
    if (r0 > 1 && (prof & (1u << ELK_PSW_GATHER))) {
        syncs += r0;
    } else if (r0 > 1) {
        comp += elk_cost_vector_add(e->c, s0 * (r0 - 1) / r0);
        syncs += 1;
    }
    relayout_terms(op, prof, s0, &shift, &syncs);
    elk_plan pl;
    pl.comp = comp + e->unf_comp;
    pl.syncs = syncs + e->unf_syncs;
    *shb = shift * dt + e->unf_bytes;
    *cc = plan_C(e, &pl) * (1 - 1e-9);
}

/* The bound from those terms and the spatial plan's all-to-alls (a2a: their
 * sum, 0 before they are known: still a bound). */
static double fastest_lb(const enum_ctx *e, double cc, double shb, double a2a)
{
    double x = e->xf * (shb * e->cpb + a2a) * (1 - 1e-9);
    return (cc + x) * (1 - 1e-9);
}

/* The least output re-layout any spatial plan has: spatial_leaf prices it
 * at s0 / r0 elements a core, the output's per-core slice over its partial
 * copies, and s0 >= prod_out D / p, r0 = prod_other p, so s0 / r0 >= the
 * output's elements over the cores (prod p <= cores); the all-to-all is
 * linear in its bytes at a fixed group. Shaded: the two quotients round
 * apart. It binds the fastest search from the root where a small op's
 * re-layout outweighs its compute (decode's GEMVs at thousands of cores),
 * which the compute-only bound did not see. */
static double fastest_rd_lb(const elk_chip *c, const elk_op *op)
{
    if (c->profile & (1u << ELK_PSW_RELAYOUT)) return 0;
    double out = 1;
    for (int a = 0; a < op->t[0].naxes; a++) out *= (double)op->dim[op->t[0].axis[a]];
    return elk_cost_alltoall(c, out / c->cores * op->dtype_bytes, c->cores) * (1 - 1e-9);
}

/* All rotation choices of each input tensor for the current spatial plan,
 * then their cross product. */
static void spatial_leaf(enum_ctx *e)
{
    const elk_op *op = e->op;
    int nd = e->nd, nt = op->ntensors;
    long sl[ELK_MAX_DIMS];
    double used = 1, real = 1, padded = 1;
    int split = 0;
    for (int d = 0; d < nd; d++) {
        sl[d] = e->sl[d]; /* (D + p - 1) / p, set by spatial_rec */
        used *= e->p[d];
        real *= (double)e->D[d];
        padded *= (double)sl[d] * e->p[d];
        if (e->p[d] > 1) split++;
    }
    if (used < (e->red_split ? e->util_cores : e->util_out) || real / padded < e->pad_thr) return;
    if (e->grid && !grid_fits(e, e->p, split)) return;
    e->spatial++;
    int fresh = 1;
    twin_ent *tw = e->prune || e->fastest ? twin_slot(e, sl, &fresh) : NULL;
    if (tw && !fresh && !e->vary) {
        e->twinned++;
        return;
    }
    {
        /* eval_plan's reduce-scatter and re-layout volumes: the output is
         * never rotated, so they are the spatial plan's */
        double s0 = 1, r0 = 1, dt = op->dtype_bytes;
        for (int a = 0; a < op->t[0].naxes; a++) s0 *= (double)sl[op->t[0].axis[a]];
        for (int d = 0; d < nd; d++)
            if (!(e->axmask[0] >> d & 1)) r0 *= e->p[d];
        e->r0 = r0;
        unsigned prof = e->c->profile;
        double cc = 0, shb = 0, lim = e->best * (1 + ELK_PLAN_FASTEST_MARGIN);
        int bound = e->fastest && e->best < INFINITY;
        if (bound) {
            /* the compute and fixed terms alone first: most spatial plans
             * fall to them, before their all-to-alls are priced */
            fastest_spatial_lb(e, sl, s0, r0, &cc, &shb);
            if (fastest_lb(e, cc, shb, e->rd_lb) > lim) {
                e->bounded++;
                return;
            }
        }
        e->a2a_rs = r0 > 1 && !(prof & (1u << ELK_PSW_GATHER)) ? elk_cost_alltoall(e->c, s0 * (r0 - 1) / r0 * dt, r0)
                                                               : elk_cost_alltoall(e->c, 0, 0);
        e->a2a_rd = prof & (1u << ELK_PSW_RELAYOUT) ? elk_cost_alltoall(e->c, 0, e->c->cores)
                                                    : elk_cost_alltoall(e->c, s0 / r0 * dt, e->c->cores);
        if (bound && fastest_lb(e, cc, shb, e->a2a_rs + e->a2a_rd) > lim) {
            e->bounded++;
            return;
        }
    }

    static _Thread_local rot opts[ELK_MAX_TENSORS][MAX_ROTS];
    int nopt[ELK_MAX_TENSORS];
    for (int v = 1; v < nt; v++) {
        const elk_tensor *t = &op->t[v];
        long rep = 1;
        for (int d = 0; d < nd; d++)
            if (!(e->axmask[v] >> d & 1)) rep *= e->p[d];
        nopt[v] = 0;
        opts[v][nopt[v]++] = (rot){1, -1};
        if (rep <= 1) continue;
        /* the replica count of a tensor changes only with an outer dim's
         * split, so its divisors are usually the last ones computed */
        if (e->dv_of[v] != rep) {
            e->ndv[v] = (int)divisors(rep, e->dv[v], 512);
            e->dv_of[v] = rep;
        }
        const long *dv = e->dv[v];
        int ndv = e->ndv[v];
        for (int a = 0; a < t->naxes; a++) {
            int d = t->axis[a];
            for (int i = 0; i < ndv && nopt[v] < MAX_ROTS; i++) {
                long tv = dv[i];
                if (tv <= 1 || tv > sl[d] || !pad_ok(sl[d], tv, e->pad_thr)) continue;
                opts[v][nopt[v]++] = (rot){(int)tv, d};
            }
        }
    }
    if (tw && e->vary) {
        /* only the varying tensor's rotations no twin had; they are all
         * dealt with below (evaluated or bounded) */
        int v = e->vary, k = 0;
        for (int i = 0; i < nopt[v]; i++) {
            int seen = 0;
            unsigned bit = rot_bit(opts[v][i]);
            for (int j = 0; j < tw->nseen && !seen && (tw->seen_bits >> bit & 1); j++)
                seen = tw->seen[j].t == opts[v][i].t && tw->seen[j].ax == opts[v][i].ax;
            if (seen) continue;
            opts[v][k++] = opts[v][i];
            if (tw->nseen < TWIN_SEEN) {
                tw->seen[tw->nseen++] = opts[v][i];
                tw->seen_bits |= (uint64_t)1 << bit;
            }
        }
        nopt[v] = k;
        if (k == 0) {
            e->twinned++;
            return;
        }
    }
    if (e->prune || e->fastest) {
        double combos = 1;
        for (int v = 1; v < nt; v++) combos *= nopt[v];
        /* one plan: evaluating it costs what bounding it would */
        if (combos > 1 && !prune_options(e, sl, opts, nopt)) {
            e->bounded++;
            return;
        }
    }
    rot cur[ELK_MAX_TENSORS] = {{1, -1}};
    int idx[ELK_MAX_TENSORS] = {0};
    for (;;) {
        for (int v = 1; v < nt; v++) cur[v] = opts[v][idx[v]];
        eval_plan(e, sl, cur);
        int v = 1;
        while (v < nt && ++idx[v] == nopt[v]) idx[v++] = 0;
        if (v >= nt) break;
    }
    local_prune(e);
}

/* The least p >= 1 with prod * p >= thr, as the leaf compares them (prod
 * and p products of splits: exact in doubles). */
static long least_split(double thr, double prod)
{
    long p = (long)ceil(thr / prod);
    if (p < 1) p = 1;
    while (p > 1 && (double)(p - 1) * prod >= thr) p--;
    while ((double)p * prod < thr) p++;
    return p;
}

/* The fastest search's bound on every leaf below level d (splits prod so
 * far): fastest_spatial_lb's terms at their least. Each dim left is split
 * at most min(D, cores / prod) ways, so every slice below is at least that
 * split's, and where compute_splits_up holds compute is monotone in every
 * extent (each of its formulas is a non-decreasing function of the extents
 * with non-negative coefficients); the partial-sum terms are at least 0 and
 * the re-layout's shift too, its syncs are what they are. The same
 * expressions in the same order on smaller operands, so rounding keeps the
 * order: when this passes best's margin, so does every leaf's own bound,
 * and the leaves would each be bounded (best only falls). */
static int fastest_subtree_bounded(enum_ctx *e, int d, double prod)
{
    const elk_op *op = e->op;
    long sub[ELK_MAX_DIMS], cap = (long)(e->cores / prod);
    for (int i = 0; i < e->nd; i++) {
        long h = cap < e->D[i] ? cap : e->D[i];
        sub[i] = i < d ? e->sl[i] : (e->D[i] + h - 1) / h;
    }
    elk_plan pl;
    pl.comp = (e->split_up ? elk_cost_compute(e->c, op, sub) : 0) + e->unf_comp;
    pl.syncs = e->sub_syncs;
    return fastest_lb(e, plan_C(e, &pl) * (1 - 1e-9), e->sub_shb, e->rd_lb) > e->best * (1 + ELK_PLAN_FASTEST_MARGIN);
}

static void spatial_rec(enum_ctx *e, int d, double prod, double ratio)
{
    if (e->oom || e->cancelled) return;
    if (d == e->nd) {
        if ((++e->ticks & 1023) == 1 && e->cancel && atomic_load_explicit(e->cancel, memory_order_relaxed))
            e->cancelled = 1;
        else
            spatial_leaf(e);
        return;
    }
    /* threads split the work by whole innermost loops, dealt round-robin */
    if (e->nthr > 1 && d == e->nd - 1 && e->chunk++ % e->nthr != e->tid) return;
    /* a whole subtree the fastest search's best already beats */
    if (e->fastest && e->best < INFINITY && fastest_subtree_bounded(e, d, prod)) return;
    long hi = (long)(e->cores / prod);
    if (hi > e->D[d]) hi = e->D[d];
    double rest = (double)e->suffix[d + 1];
    long lo = (long)floor(e->util_cores / (prod * rest));
    /* a path that has split no reduced dim and need not: util_out's bound,
     * over the output dims still to come (a reduced dim left whole, p = 1) */
    long lo_out = e->red_split ? LONG_MAX
                               : e->is_out[d] ? (long)floor(e->util_out / (prod * (double)e->suffix_out[d + 1])) : 1;
    if (lo_out < lo) lo = lo_out;
    if (lo < 1) lo = 1;
    /* the coarse space steps the splits geometrically: by about a quarter,
     * the innermost (which fills the cores) by about a sixteenth */
    long geo = e->coarse ? (d < e->nd - 1 ? 4 : 16) : 0;
    int last = d == e->nd - 1;
    /* the innermost level starts where the leaf's utilisation test can
     * first pass when its threshold does not depend on p (a split path, or
     * an output dim): below it no p recurses, nor moves next (the coarse
     * space's steps start at lo, so it keeps lo) */
    if (last && !geo && (e->red_split || e->is_out[d])) {
        long least = least_split(e->red_split ? e->util_cores : e->util_out, prod);
        if (least > lo) lo = least;
    }
    for (long p = lo, next; p <= hi; p = next) {
        next = p + (geo && p >= geo ? p / geo : 1);
        e->p[d] = (int)p;
        e->sl[d] = (e->D[d] + p - 1) / p;
        /* padding only grows with the dims still to split (each keeps a
         * share D / (sl p) <= 1): a prefix already below the threshold has
         * no completion that passes spatial_leaf's test (the margin covers
         * rounding; spatial_leaf's own test decides) */
        double fill = ratio * ((double)e->D[d] / ((double)e->sl[d] * p));
        if (fill < e->pad_thr * (1 - 1e-9)) {
            /* and while the slice stays, the fill only falls as p grows:
             * go on at the first p of the next slice, ceil(D / (sl - 1)) */
            if (!geo && e->sl[d] > 1) {
                long nx = (e->D[d] + e->sl[d] - 2) / (e->sl[d] - 1);
                if (nx > next) next = nx;
            }
            continue;
        }
        int red = !e->is_out[d] && p > 1;
        /* spatial_leaf's utilisation test, before the call: lo is a floor
         * (and 1 for a reduced dim on util_out's path), so most innermost
         * loops start below it, and most leaves would fail it there (the
         * same product: prod * p is the leaf's used, exact in doubles) */
        if (!last || prod * p >= (e->red_split + red ? e->util_cores : e->util_out)) {
            e->red_split += red;
            spatial_rec(e, d + 1, prod * p, fill);
            e->red_split -= red;
        }
        /* a reduced dim split at p < the full floor's bound: only p = 1 was
         * wanted (util_out's path) */
        if (!e->is_out[d] && p == 1 && lo_out < LONG_MAX) {
            long full = last && !geo ? least_split(e->util_cores, prod) : (long)floor(e->util_cores / (prod * rest));
            if (full > next) next = full < 2 ? 2 : full;
        }
    }
    e->p[d] = 1;
    e->sl[d] = e->D[d];
}

static void *enum_thread(void *arg)
{
    spatial_rec(arg, 0, 1.0, 1.0);
    return NULL;
}

/* Threads for one enumeration: only big ones are worth it (a million cores
 * takes ~1 s per matmul shape on one core, 1472 cores a millisecond), and
 * only pruned ones (all_cb sees plans in enumeration order). The kept set
 * does not depend on the split: each thread drops only plans strictly
 * dominated by plans it kept, and the final prune orders ties by layout. */
#define ENUM_THREADS_MAX 4
#define ENUM_THREADS_CORES 65536
#define SEED_CORES 1024
static int enum_threads(const enum_ctx *e)
{
    if ((!e->prune && !e->fastest) || e->nd < 2 || e->cores < ENUM_THREADS_CORES) return 1;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 2 ? 1 : n > ENUM_THREADS_MAX ? ENUM_THREADS_MAX : (int)n;
}

static void idx_free(front_idx *f)
{
    free(f->h);
    free(f->c);
    free(f->x);
    free(f->off);
    free(f->pmin);
    free(f->cx);
    memset(f, 0, sizeof *f);
}

/* Free what enumeration allocated besides the kept plans (not the seeds:
 * the threads' copies share them). */
static void enum_free_scratch(enum_ctx *e)
{
    free(e->local.v);
    idx_free(&e->fi);
    free(e->twins);
    e->twins = NULL;
    e->local.v = NULL;
}

/* Enumerate on enum_threads threads, this one included, and gather what
 * they kept into e->all (the final prune sorts it, so the order of the
 * gathering does not matter). A thread that cannot start leaves its share
 * to this one. */
static void enum_run(enum_ctx *e)
{
    int nthr = enum_threads(e);
    enum_ctx *w = nthr > 1 ? calloc((size_t)nthr, sizeof *w) : NULL;
    if (!w) {
        spatial_rec(e, 0, 1.0, 1.0);
        enum_free_scratch(e);
        return;
    }
    pthread_t th[ENUM_THREADS_MAX];
    int ok[ENUM_THREADS_MAX] = {0};
    e->nthr = nthr;
    for (int k = 1; k < nthr; k++) {
        w[k] = *e;
        w[k].tid = k;
        ok[k] = elk_thread_start(&th[k], enum_thread, &w[k]) == 0;
    }
    spatial_rec(e, 0, 1.0, 1.0);
    for (int k = 1; k < nthr; k++)
        if (!ok[k]) {
            e->tid = k;
            e->chunk = 0;
            spatial_rec(e, 0, 1.0, 1.0);
        }
    enum_free_scratch(e);
    for (int k = 1; k < nthr; k++) {
        if (!ok[k]) continue;
        pthread_join(th[k], NULL);
        enum_ctx *x = &w[k];
        for (int i = 0; i < x->all.n && !e->oom; i++)
            if (plan_push(&e->all, &x->all.v[i])) e->oom = 1;
        e->enumerated += x->enumerated;
        e->spatial += x->spatial;
        e->bounded += x->bounded;
        e->twinned += x->twinned;
        if (x->best < e->best) e->best = x->best;
        if (x->min_hot < e->min_hot) e->min_hot = x->min_hot;
        e->oom |= x->oom;
        e->cancelled |= x->cancelled;
        free(x->all.v);
        enum_free_scratch(x);
    }
    free(w);
}

/* A depth-first search for out_reach: the most cores a split of the output
 * dims od[k..] can add to pa x pb cores at padding share fill, each split
 * dim joining group a (its product at most capa) or b (at most capb): on a
 * grid the two mesh axes (grid_fits), elsewhere one group of every core. */
typedef struct {
    const long *D;
    const int *od;
    int nod;
    double cap, capa, capb, thr, best;
    long budget; /* nodes left; the search gives up (best = cap) at 0 */
} reach_dfs;

static void reach_rec(reach_dfs *r, int k, double pa, double pb, double fill)
{
    double prod = pa * pb;
    if (prod > r->best) r->best = prod;
    if (k == r->nod || r->best >= r->cap || r->budget <= 0) return;
    double up = prod;
    for (int j = k; j < r->nod; j++) up *= (double)r->D[r->od[j]];
    if (fmin(up, r->cap) <= r->best) return;
    long D = r->D[r->od[k]];
    double room = fmin(r->cap / prod, fmax(r->capa / pa, r->capb / pb));
    long hi = (long)fmin((double)D, floor(room));
    for (long p = hi; p >= 1 && r->best < r->cap; p--) {
        if (--r->budget <= 0) {
            r->best = r->cap;
            return;
        }
        long sub = (D + p - 1) / p;
        double f = fill * ((double)D / ((double)sub * (double)p));
        if (f < r->thr * (1 - 1e-12)) continue;
        if (p == 1) {
            reach_rec(r, k + 1, pa, pb, f);
        } else {
            if (pa * (double)p <= r->capa) reach_rec(r, k + 1, pa * (double)p, pb, f);
            if (pb * (double)p <= r->capb && r->best < r->cap) reach_rec(r, k + 1, pa, pb * (double)p, f);
        }
        /* smaller p on this dim can only win by more cores elsewhere */
        if (prod * (double)p * (up / (prod * (double)D)) <= r->best) break;
    }
}

/* The most cores (at most cap) a plan that splits only the output's dims
 * can use within the padding threshold, and on a grid in two groups of
 * dims that fit the mesh's axes (grid_fits). A plan that splits no reduced
 * dim must use a share of this (util_out), not of every core: otherwise,
 * when the output has too little parallelism (a norm's statistics at
 * batch 1, a decode matmul at a small batch), the floor admits only plans
 * that split a reduced dim and pay its partial sums, while twice the batch
 * admits the plan without them, and Ideal got faster when the batch doubled
 * (docs/VALIDATION.md, batch-monotone; on a 128-core 8 x 16 mesh decode's
 * Q.K^T at batch 1, heads 2 x 2 x sequence 150, reaches 64 cores on the
 * axes, not 128, and was held to 115). A plan that splits a reduced dim
 * keeps the artifact's floor (util_cores): lowering it for those too made
 * a million-core enumeration 8x slower (0.56 s to 4.7 s) for nothing the
 * batch needs. */
static double out_reach(const enum_ctx *e, double cap)
{
    int od[ELK_MAX_DIMS], nod = 0;
    for (int d = 0; d < e->nd; d++)
        if (in_axes(&e->op->t[0], d)) od[nod++] = d;
    reach_dfs r = {e->D, od, nod, cap, e->grid ? e->rows : cap, e->grid ? e->cols : 1, e->pad_thr, 1, 200000};
    reach_rec(&r, 0, 1, 1, 1);
    return fmin(r.best, cap);
}

/* Artifact thresholds (docs/ARTIFACT.md): big ops must use ~90% of cores
 * and waste <= ~10% to padding; tiny ops may use fewer cores. */
static void thresholds(enum_ctx *e)
{
    double P = 1, M = 0;
    for (int d = 0; d < e->nd; d++) {
        P *= (double)e->D[d];
        if ((double)e->D[d] > M) M = (double)e->D[d];
    }
    M *= e->nd;
    double C = e->cores;
    double util = 0.9 * fmin(1.0, fmin(P / (P + 2 * C), M / 220.0));
    e->pad_thr = 0.9 * fmin(1.0, fmin(P / (P + C), M / 220.0));
    double reach = fmin(C, P);
    if (e->grid) {
        /* the most cores two axis groups of dims can cover */
        double best = 0;
        for (int mask = 0; mask < (1 << e->nd); mask++) {
            double a = 1, b = 1;
            for (int d = 0; d < e->nd; d++) {
                if (mask & (1 << d)) a *= (double)e->D[d];
                else b *= (double)e->D[d];
            }
            best = fmax(best, fmax(fmin(a, e->rows) * fmin(b, e->cols), fmin(a, e->cols) * fmin(b, e->rows)));
        }
        reach = fmin(reach, best);
    }
    e->util_cores = ceil(util * reach);
    if (e->util_cores < 1) e->util_cores = 1;
    e->util_out = fmin(e->util_cores, fmax(1, ceil(util * out_reach(e, reach))));
}

/* 3-D Pareto filter: sort by (hot, C, X), sweep with a staircase in (C, X). */
typedef struct {
    double c, x;
} stair_pt;

/* The plans are sorted through an index (the structs are large) with C
 * computed once per plan. Ties fall to the spatial plan, then to the order
 * they were kept in (never reached: one spatial plan's ties are settled by
 * local_prune), which makes the order total and independent of the sort
 * algorithm and of how the work was split over threads. */
typedef struct {
    const elk_plan *v;
    const double *c;
} sort_ctx;

/* Whether plan i sorts before plan j (i != j): the total order above. */
static inline int idx_before(const sort_ctx *t, int i, int j)
{
    const elk_plan *a = &t->v[i], *b = &t->v[j];
    if (a->hot != b->hot) return a->hot < b->hot;
    if (t->c[i] != t->c[j]) return t->c[i] < t->c[j];
    if (a->xcyc != b->xcyc) return a->xcyc < b->xcyc;
    /* enumeration order (spatial_rec's: lexicographic in p), which the
     * symmetry of twin_slot relies on: of twins' equal plans the first wins */
    for (int d = 0; d < ELK_MAX_DIMS; d++)
        if (a->p[d] != b->p[d]) return a->p[d] < b->p[d];
    return i < j;
}

/* Merge the sorted runs a[0..na) and b[0..nb) into out. */
static void merge_idx(const sort_ctx *t, const int *a, int na, const int *b, int nb, int *out)
{
    int i = 0, j = 0, k = 0;
    while (i < na && j < nb) out[k++] = idx_before(t, b[j], a[i]) ? b[j++] : a[i++];
    while (i < na) out[k++] = a[i++];
    while (j < nb) out[k++] = b[j++];
}

/* Sort a[0..n) by idx_before (a merge sort with the comparison inline:
 * qsort's calls through a pointer were most of the prune's time; the order
 * is total, so any correct sort gives the same one). tmp holds n. */
static void sort_idx(const sort_ctx *t, int *a, int *tmp, int n)
{
    if (n <= 16) {
        for (int i = 1; i < n; i++) {
            int x = a[i], j = i;
            for (; j > 0 && idx_before(t, x, a[j - 1]); j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    int h = n / 2;
    sort_idx(t, a, tmp, h);
    sort_idx(t, a + h, tmp, n - h);
    merge_idx(t, a, h, a + h, n - h, tmp);
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

static int global_prune(struct enum_ctx *e)
{
    plan_vec *a = &e->all;
    if (a->n == 0) return 0;
    int *idx = malloc((size_t)a->n * sizeof *idx), *tmp = malloc((size_t)a->n * sizeof *tmp);
    double *cv = malloc((size_t)a->n * sizeof *cv);
    stair_pt *st = malloc((size_t)(a->n + 1) * sizeof *st);
    if (!idx || !tmp || !cv || !st) {
        free(idx);
        free(tmp);
        free(cv);
        free(st);
        return -1;
    }
    for (int i = 0; i < a->n; i++) {
        idx[i] = i;
        cv[i] = plan_C(e, &a->v[i]);
    }
    /* the survivors of the last prune lead the buffer in order (indices
     * ascending in it, so the order's last tie-break agrees): only the
     * plans kept since are sorted, then merged in */
    sort_ctx t = {a->v, cv};
    int k0 = e->sorted < a->n ? e->sorted : a->n;
    sort_idx(&t, idx + k0, tmp, a->n - k0);
    if (k0 > 0 && k0 < a->n) {
        merge_idx(&t, idx, k0, idx + k0, a->n - k0, tmp);
        memcpy(idx, tmp, (size_t)a->n * sizeof *idx);
    }
    free(tmp);
    int ns = 0, keep = 0;
    for (int r = 0; r < a->n; r++) {
        double c = cv[idx[r]], x = a->v[idx[r]].xcyc;
        /* last stair point with C <= c */
        int lo = 0, hi = ns;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (st[mid].c <= c) lo = mid + 1;
            else hi = mid;
        }
        if (lo > 0 && st[lo - 1].x <= x) continue; /* dominated */
        /* remove stair points now dominated: C >= c and X >= x, contiguous after lo */
        int j = lo;
        while (j < ns && st[j].x >= x) j++;
        memmove(&st[lo + 1], &st[j], (size_t)(ns - j) * sizeof *st);
        ns -= j - lo - 1;
        st[lo] = (stair_pt){c, x};
        idx[keep++] = idx[r]; /* keep <= r: the survivors, in sorted order */
    }
    free(st);
    free(cv);
    elk_plan *out = malloc((size_t)(keep ? keep : 1) * sizeof *out);
    if (!out) {
        free(idx);
        return -1;
    }
    for (int r = 0; r < keep; r++) out[r] = a->v[idx[r]];
    free(idx);
    free(a->v);
    a->v = out;
    a->n = a->cap = keep;
    e->sorted = keep;
    return 0;
}

/* Preload-state options of one plan: coarsen the rotation of its HBM
 * tensors by a factor f (f divides the replicas left over), down to the fully
 * distributed layout. */
static int cold_options(const enum_ctx *e, const elk_plan *pl, elk_cold_opt **opts, int *nopts, int *cap)
{
    const elk_op *op = e->op;
    int nd = e->nd;
    double dt = op->dtype_bytes;
    long sl[ELK_MAX_DIMS];
    for (int d = 0; d < nd; d++) sl[d] = (e->D[d] + pl->p[d] - 1) / pl->p[d];
    int hv[ELK_MAX_TENSORS], nh = 0, prim = -1;
    double best = -1;
    for (int v = 1; v < op->ntensors; v++) {
        if (op->t[v].role != ELK_TR_WEIGHT && op->t[v].role != ELK_TR_KV) continue;
        hv[nh++] = v;
        double el = elk_op_tensor_elems(op, v);
        if (el > best) {
            best = el;
            prim = v;
        }
    }
    elk_cold_opt tmp[512];
    int nt = 0;
    if (nh == 0) {
        tmp[nt++] = (elk_cold_opt){0, 0, 1, 0, 1, 0};
    } else {
        long rep[ELK_MAX_TENSORS], base[ELK_MAX_TENSORS];
        int cax[ELK_MAX_TENSORS];
        for (int i = 0; i < nh; i++) {
            int v = hv[i];
            const elk_tensor *t = &op->t[v];
            rep[i] = 1;
            for (int d = 0; d < nd; d++)
                if (!in_axes(t, d)) rep[i] *= pl->p[d];
            base[i] = pl->t[v];
            cax[i] = pl->ax[v];
            if (cax[i] < 0) {
                cax[i] = t->axis[0];
                for (int a = 1; a < t->naxes; a++)
                    if (sl[t->axis[a]] > sl[cax[i]]) cax[i] = t->axis[a];
            }
        }
        int pi = 0;
        for (int i = 0; i < nh; i++)
            if (hv[i] == prim) pi = i;
        long dv[512];
        int ndv = (int)divisors(rep[pi] / base[pi], dv, 512);
        for (int k = 0; k < ndv && nt < 512; k++) {
            long f = dv[k];
            if (base[pi] * f > sl[cax[pi]]) continue;
            double cold = 0, dist = 0;
            for (int i = 0; i < nh; i++) {
                const elk_tensor *t = &op->t[hv[i]];
                long left = rep[i] / base[i], g = 1;
                for (long q = f; q >= 1; q--)
                    if (left % q == 0 && base[i] * q <= sl[cax[i]]) {
                        g = q;
                        break;
                    }
                double se = 1, sc = 1;
                for (int a = 0; a < t->naxes; a++) {
                    int d = t->axis[a];
                    long len = sl[d];
                    se *= (double)(d == cax[i] ? (len + base[i] - 1) / base[i] : len);
                    sc *= (double)(d == cax[i] ? (len + base[i] * g - 1) / (base[i] * g) : len);
                }
                cold += sc * dt;
                dist += (se - sc) * dt;
            }
            tmp[nt++] = (elk_cold_opt){cold, dist, (double)f, cold * e->cores, (int)f, 0};
        }
    }
    /* sort by cold ascending, then keep a strictly decreasing dist */
    for (int i = 1; i < nt; i++)
        for (int j = i; j > 0 && (tmp[j].cold < tmp[j - 1].cold ||
                                  (tmp[j].cold == tmp[j - 1].cold && tmp[j].dist_bytes < tmp[j - 1].dist_bytes));
             j--) {
            elk_cold_opt x = tmp[j];
            tmp[j] = tmp[j - 1];
            tmp[j - 1] = x;
        }
    int first = *nopts;
    double last = INFINITY;
    for (int i = 0; i < nt; i++) {
        if (tmp[i].dist_bytes >= last) continue;
        last = tmp[i].dist_bytes;
        if (*nopts == *cap) {
            int c2 = *cap ? *cap * 2 : 256;
            elk_cold_opt *o = realloc(*opts, (size_t)c2 * sizeof *o);
            if (!o) return -1;
            *opts = o;
            *cap = c2;
        }
        (*opts)[(*nopts)++] = tmp[i];
    }
    return *nopts - first;
}

/* Set up enumeration of the full or the coarse space and run it. */
static void enum_start(enum_ctx *e, const elk_chip *c, const elk_op *op, double sram_bytes, const elk_plan_opts *o,
                       int coarse, int fastest, double best0, const elk_plan *seeds, int nseeds)
{
    /* every field zeroed but the divisor lists, read only where dv_of says
     * they hold that replica count (they are most of the struct, and a
     * fastest search starts an enumeration per piece it asks for) */
    memset(e, 0, offsetof(enum_ctx, dv));
    memset((char *)e + offsetof(enum_ctx, dv) + sizeof e->dv, 0, sizeof *e - offsetof(enum_ctx, dv) - sizeof e->dv);
    e->c = c;
    e->op = op;
    e->sram = sram_bytes;
    e->cores = c->cores;
    e->nd = op->ndims;
    e->grid = c->topology == ELK_TOPO_MESH || c->topology == ELK_TOPO_TORUS;
    e->rows = c->mesh_rows;
    e->cols = c->mesh_cols;
    e->cs = c->compute_scale;
    e->cpb = elk_cost_shift_cpb(c);
    e->xf = elk_chip_xfactor(c);
    e->sync = c->sync_cycles * elk_chip_xfactor(c);
    elk_cost_unfused(c, op, &e->unf_comp, &e->unf_syncs, &e->unf_bytes);
    e->min_hot = INFINITY;
    e->cb = o->all_cb;
    e->ctx = o->ctx;
    e->fastest = fastest;
    e->best = best0;
    e->msc = c->sync_cycles;
    e->prune = !fastest && !o->exhaustive && !o->all_cb;
    e->next_prune = 256;
    e->cancel = o->cancel;
    e->coarse = coarse;
    for (int d = 0; d < e->nd; d++) {
        e->D[d] = op->dim[d];
        e->p[d] = 1;
        e->sl[d] = e->D[d];
    }
    e->suffix[e->nd] = 1;
    for (int d = e->nd - 1; d >= 0; d--) {
        double s = (double)e->suffix[d + 1] * (double)(e->D[d] < e->cores ? e->D[d] : e->cores);
        e->suffix[d] = (long)(s > e->cores ? e->cores : s);
    }
    e->suffix_out[e->nd] = 1;
    for (int d = e->nd - 1; d >= 0; d--) {
        e->is_out[d] = in_axes(&op->t[0], d);
        for (int v = 0; v < op->ntensors; v++)
            if (in_axes(&op->t[v], d)) e->axmask[v] |= 1u << d;
        double s = (double)e->suffix_out[d + 1] * (e->is_out[d] ? (double)(e->D[d] < e->cores ? e->D[d] : e->cores) : 1);
        e->suffix_out[d] = (long)(s > e->cores ? e->cores : s);
    }
    e->split_up = compute_splits_up(c, op);
    {
        double shift = 0, syncs = 0;
        relayout_terms(op, c->profile, 0, &shift, &syncs);
        e->sub_syncs = syncs + e->unf_syncs;
        e->sub_shb = shift * op->dtype_bytes + e->unf_bytes;
    }
    if (fastest) e->rd_lb = fastest_rd_lb(c, op);
    thresholds(e);
    if (e->prune || e->fastest) twin_setup(e);
    /* without memory for them, no seeds */
    if (nseeds > 0 && e->prune && front_index(e, &e->fs, seeds, nseeds)) idx_free(&e->fs);
    enum_run(e);
    idx_free(&e->fs);
}

/* The coarse space's kept plans, sorted by hot, to seed the full walk
 * (enum_ctx.fs; *visited the plans its walk evaluated): 0, or -1 when
 * there are none (no plan, out of memory, cancelled: *cancelled). The
 * caller frees *v. */
static int coarse_front(const elk_chip *c, const elk_op *op, double sram_bytes, const elk_plan_opts *o, elk_plan **v,
                        int *n, long *visited, int *cancelled)
{
    enum_ctx e;
    enum_start(&e, c, op, sram_bytes, o, 1, 0, INFINITY, NULL, 0);
    *visited = e.enumerated;
    *cancelled = e.cancelled;
    if (e.cancelled || e.oom || global_prune(&e) || e.all.n == 0) {
        free(e.all.v);
        return -1;
    }
    *v = e.all.v;
    *n = e.all.n;
    return 0;
}

/* The fastest plan of op on c, as elk_menu_build at c of the set
 * elk_plan_enumerate would build for c gives it in its last entry: the
 * least execution, and the least space at that execution. Every plan of
 * the set whose execution is within ELK_PLAN_FASTEST_MARGIN of the least is kept
 * (a pruned option or spatial plan's bound is above it), and so is every
 * plan that dominates one of those in (hot, C, X) (its execution is no
 * greater, rounding apart, so it is within the margin too); the set's own
 * filter (global_prune) on the kept plans therefore leaves exactly the
 * set's plans within the margin, the menu's fastest among them. */
elk_status elk_plan_fastest(const elk_chip *c, const elk_op *op, double sram_bytes, const elk_plan_opts *o, double lim,
                            double *exe, double *hot, long *spatial, elk_error *err)
{
    enum_ctx e;
    /* a finite lim is a best already known: everything the search would
     * prune once it had found a plan that fast is pruned from the start,
     * and the least at or below lim is found as it would be without it */
    enum_start(&e, c, op, sram_bytes, o, 0, 1, lim, NULL, 0);
    if (spatial) *spatial = e.spatial;
    if (e.cancelled) {
        free(e.all.v);
        return elk_fail(err, ELK_ECANCEL, "cancelled");
    }
    if (!e.oom && e.all.n > 0) fastest_trim(&e);
    if (e.oom || global_prune(&e)) {
        free(e.all.v);
        return elk_fail(err, ELK_ENOMEM, "out of memory enumerating plans of %s", op->name);
    }
    if (e.all.n == 0 && lim < INFINITY) {
        free(e.all.v);
        *exe = *hot = INFINITY; /* none at or below lim */
        return ELK_OK;
    }
    if (e.all.n == 0) {
        free(e.all.v);
        return elk_fail(err, ELK_ENOPLAN, "operator %s has no partition plan on %d cores", op->name, c->cores);
    }
    /* the menu: ascending hot (global_prune's order), the first of the
     * least execution */
    double be = INFINITY, bh = INFINITY;
    for (int i = 0; i < e.all.n; i++) {
        double x = menu_exe(c, &e.all.v[i], 1, 1);
        if (x < be || (x == be && e.all.v[i].hot < bh)) {
            be = x;
            bh = e.all.v[i].hot;
        }
    }
    free(e.all.v);
    *exe = be;
    *hot = bh;
    return ELK_OK;
}

/* One enumeration of the full or the coarse space (elk_plan_opts). */
static elk_status enumerate_space(const elk_chip *c, const elk_op *op, double sram_bytes, elk_plan_set *set,
                                  const elk_plan_opts *o, int coarse, elk_error *err)
{
    memset(set, 0, sizeof *set);
    /* Seeds: the coarse space is a subset of this one, so its kept plans
     * are plans here, and a plan one of them strictly dominates is in no
     * final set; bounding on them from the first spatial plan prunes what
     * the front found so far cannot yet. On fewer cores than SEED_CORES the
     * coarse space is most of the full one; at ENUM_THREADS_CORES and more
     * the walk's threads are its speed. The set is the same with seeds or
     * without (tests/test_plan.c); set->seeded counts the coarse walk. */
    elk_plan *sv = NULL;
    int sn = 0;
    long seeded = 0;
    if (!coarse && !o->exhaustive && !o->all_cb && c->cores >= SEED_CORES && c->cores < ENUM_THREADS_CORES &&
        !getenv("ELK_NOSEED")) {
        int cancelled = 0;
        if (coarse_front(c, op, sram_bytes, o, &sv, &sn, &seeded, &cancelled)) sn = 0;
        if (cancelled) return elk_fail(err, ELK_ECANCEL, "cancelled");
    }
    enum_ctx e;
    enum_start(&e, c, op, sram_bytes, o, coarse, 0, INFINITY, sv, sn);
    free(sv);
    set->seeded = seeded;
    if (e.cancelled) {
        free(e.all.v);
        return elk_fail(err, ELK_ECANCEL, "cancelled");
    }
    if (e.oom || global_prune(&e)) {
        free(e.all.v);
        return elk_fail(err, ELK_ENOMEM, "out of memory enumerating plans of %s", op->name);
    }
    set->enumerated = e.enumerated;
    set->spatial = e.spatial;
    set->bounded = e.bounded;
    set->twinned = e.twinned;
    set->hbm_bytes = op->hbm_bytes;
    if (e.all.n == 0) {
        free(e.all.v);
        if (isfinite(e.min_hot))
            return elk_fail(err, ELK_ENOPLAN,
                            "operator %s fits no partition plan in %.1f KiB of usable SRAM per core: its smallest plan "
                            "needs %.1f KiB per core (%s over %d cores)",
                            op->name, sram_bytes / 1024.0, e.min_hot / 1024.0, elk_op_kind_names[op->kind], c->cores);
        return elk_fail(err, ELK_ENOPLAN,
                        "operator %s has no partition plan on %d cores that meets the utilisation and padding "
                        "thresholds (%s, %.1f KiB of data in all)",
                        op->name, c->cores, elk_op_kind_names[op->kind],
                        (op->hbm_bytes + elk_op_tensor_elems(op, 0) * op->dtype_bytes) / 1024.0);
    }
    /* the enumeration's buffer held every plan kept before the global prune:
     * a cached set keeps only the survivors (a set's memory is what the
     * cache's byte budget counts) */
    elk_plan *shrunk = realloc(e.all.v, (size_t)e.all.n * sizeof *e.all.v);
    set->plans = shrunk ? shrunk : e.all.v;
    set->nplans = e.all.n;
    int cap = 0;
    for (int i = 0; i < set->nplans; i++) {
        int k = cold_options(&e, &set->plans[i], &set->opts, &set->nopts, &cap);
        if (k < 0) {
            elk_plan_set_free(set);
            return elk_fail(err, ELK_ENOMEM, "out of memory");
        }
        set->plans[i].opt0 = set->nopts - k;
        set->plans[i].nopt = k;
#ifndef NDEBUG
        /* elk_cold_opt's invariant: cold ascending, dist_bytes strictly descending */
        for (int q = set->plans[i].opt0 + 1; q < set->nopts; q++)
            assert(set->opts[q].cold >= set->opts[q - 1].cold && set->opts[q].dist_bytes < set->opts[q - 1].dist_bytes);
#endif
    }
#ifndef NDEBUG
    for (int i = 1; i < set->nplans; i++) assert(set->plans[i].hot >= set->plans[i - 1].hot); /* sorted by hot */
#endif
    if (set->nopts > 0 && set->nopts < cap) {
        elk_cold_opt *o = realloc(set->opts, (size_t)set->nopts * sizeof *o);
        if (o) set->opts = o;
    }
    return ELK_OK;
}

elk_status elk_plan_enumerate(const elk_chip *c, const elk_op *op, double sram_bytes,
                              elk_plan_set *set, const elk_plan_opts *o, elk_error *err)
{
    static const elk_plan_opts defaults = {0};
    if (!o) o = &defaults;
    int coarse = o->coarse && !o->all_cb && !o->exhaustive;
    elk_status st = enumerate_space(c, op, sram_bytes, set, o, coarse, err);
    /* nothing in the coarse space: the full space (and its error) */
    if (st == ELK_ENOPLAN && coarse) st = enumerate_space(c, op, sram_bytes, set, o, 0, err);
    return st;
}

void elk_plan_set_free(elk_plan_set *set)
{
    free(set->plans);
    free(set->opts);
    memset(set, 0, sizeof *set);
}

double elk_plan_xcycles(const elk_chip *c, const elk_plan *pl)
{
    return elk_chip_xfactor(c) * (pl->shift_bytes * elk_cost_shift_cpb(c) +
                                  elk_cost_alltoall(c, pl->rs_bytes, pl->rs_group) +
                                  elk_cost_alltoall(c, pl->rd_bytes, c->cores));
}

/* ------------------------------------------------------------------ */
/* Menus                                                                */

typedef struct {
    double hot, exe;
    int plan;
} menu_tmp;

static int cmp_menu(const void *pa, const void *pb)
{
    const menu_tmp *a = pa, *b = pb;
    if (a->hot != b->hot) return a->hot < b->hot ? -1 : 1;
    if (a->exe != b->exe) return a->exe < b->exe ? -1 : 1;
    return a->plan - b->plan;
}

elk_status elk_menu_build(const elk_chip *c, const elk_op *op, const elk_plan_set *set, elk_menu *m, elk_error *err)
{
    return elk_menu_build_scaled(c, op, set, 1, 1, m, err);
}

elk_status elk_menu_build_scaled(const elk_chip *c, const elk_op *op, const elk_plan_set *set, double fcomp,
                                 double fxchg, elk_menu *m, elk_error *err)
{
    (void)op;
    assert(fcomp > 0 && fxchg > 0);
    memset(m, 0, sizeof *m);
    menu_tmp *t = malloc((size_t)set->nplans * sizeof *t);
    if (!t) return elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < set->nplans; i++) {
        const elk_plan *p = &set->plans[i];
        t[i].hot = p->hot;
        t[i].exe = menu_exe(c, p, fcomp, fxchg);
        t[i].plan = i;
    }
    qsort(t, (size_t)set->nplans, sizeof *t, cmp_menu);
    int n = 0, nc = 0;
    double best = INFINITY;
    for (int i = 0; i < set->nplans; i++)
        if (t[i].exe < best) {
            best = t[i].exe;
            t[n++] = t[i];
            nc += set->plans[t[i].plan].nopt;
        }
    m->e = calloc((size_t)n, sizeof *m->e);
    m->cold = calloc((size_t)(nc ? nc : 1), sizeof *m->cold);
    if (!m->e || !m->cold) {
        free(t);
        elk_menu_free(m);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    m->n = n;
    m->min_cold = INFINITY;
    m->hbm_bytes = set->hbm_bytes;
    for (int i = 0; i < n; i++) {
        const elk_plan *p = &set->plans[t[i].plan];
        elk_menu_entry *en = &m->e[i];
        en->hot = p->hot;
        en->exe = t[i].exe;
        en->comp = p->comp / c->compute_scale * fcomp;
        en->xcyc = en->exe - en->comp;
        en->xbytes = p->shift_bytes + p->rs_bytes + p->rd_bytes;
        en->plan = t[i].plan;
        en->c0 = m->ncold;
        en->nc = p->nopt;
        for (int k = 0; k < p->nopt; k++) {
            const elk_cold_opt *o = &set->opts[p->opt0 + k];
            elk_menu_cold *mc = &m->cold[m->ncold++];
            mc->cold = o->cold;
            mc->dist_bytes = o->dist_bytes;
            if (o->dist_bytes <= 0) mc->dist = 0;
            else if (c->profile & (1u << ELK_PSW_WARMUP))
                /* the artifact's get_warm_up_time: factor steps, each shifting a
                 * preload-state slice (the execute-state slice in all) */
                mc->dist = (o->warm_bytes > 0 ? o->warm_bytes : o->dist_bytes + o->cold) * elk_cost_shift_cpb(c) +
                           o->factor * c->sync_cycles;
            else
                mc->dist = elk_cost_alltoall(c, o->dist_bytes, o->dist_group) + c->sync_cycles;
            mc->dist *= fxchg;
            mc->deliv = o->deliv;
            if (o->cold < m->min_cold) m->min_cold = o->cold;
            if (o->cold > m->max_cold) m->max_cold = o->cold;
        }
    }
    free(t);
    /* the paper profile's "plantables": the artifact preloads an operator's
     * least layout over every core, padding and all (its V = min cold x
     * cores), so its HBM time counts the padding. The least over the whole
     * table, not over the plans the time front keeps: the bytes are the
     * operator's, whatever the compute or NoC rates */
    if ((c->profile & (1u << ELK_PSW_PLANTABLES)) && m->hbm_bytes > 0 && set->nopts > 0) {
        double least = INFINITY;
        for (int k = 0; k < set->nopts; k++) least = fmin(least, set->opts[k].cold);
        if (least * c->cores > m->hbm_bytes) m->hbm_bytes = least * c->cores;
    }
    for (int k = 0; k < ELK_PRICES; k++) {
        m->eff[k] = malloc((size_t)(n ? n : 1) * sizeof *m->eff[k]);
        if (!m->eff[k]) {
            elk_menu_free(m);
            return elk_fail(err, ELK_ENOMEM, "out of memory");
        }
        double phi, psi;
        elk_menu_price(k, &phi, &psi);
        elk_menu_reprice(c, m, phi, psi, k);
    }
    return ELK_OK;
}

void elk_menu_reprice(const elk_chip *c, elk_menu *m, double phi, double psi, int slot)
{
    int n = m->n;
    double bestc = INFINITY;
    for (int i = 0; i < n; i++) {
        elk_menu_entry *en = &m->e[i];
        en->eopt[slot] = 0;
        en->ecost[slot] = en->exe;
        if (en->nc && m->hbm_bytes > 0) {
            double b = INFINITY;
            for (int k = 0; k < en->nc; k++) {
                double cc = elk_menu_cold_cost(c, m, i, k, phi, psi);
                if (cc < b) {
                    b = cc;
                    en->eopt[slot] = k;
                }
            }
            en->ecost[slot] += b;
        }
    }
    /* ascending space, keep an entry only if it is cheaper than every smaller one */
    int k2 = 0;
    for (int i = 0; i < n; i++)
        if (m->e[i].ecost[slot] < bestc) {
            bestc = m->e[i].ecost[slot];
            m->eff[slot][k2++] = i;
        }
    m->neff[slot] = k2;
}

/* The NoC time replication adds, priced from free (phi 0) to stalling
 * execution outright (1), each with the preload's own excess over its HBM
 * time charged (psi 1) and not (psi 0); Elk-Dyn searches this grid, the
 * charged half first. The excess grows as HBM gets faster (the NoC, not
 * HBM, then bounds a replicated preload) whether or not the preload
 * holds anything up: charged alone, it sent Elk-Dyn at a 3072-core
 * tt-galaxy training point to distributed layouts for every matmul with
 * 25% more HBM, 7% slower (0.1785 -> 0.1916 ms, elk check --seed 1,
 * point 1700), where the preloads hide behind execution (HBM 47% busy). */
_Static_assert(ELK_PRICES % 2 == 0, "price slots come in psi pairs");
void elk_menu_price(int k, double *phi, double *psi)
{
    enum { PHIS = ELK_PRICES / 2 };
    assert(k >= 0 && k < ELK_PRICES);
    *phi = (double)(k % PHIS) / (PHIS - 1);
    *psi = k < PHIS ? 1.0 : 0.0;
}

double elk_menu_cold_cost(const elk_chip *c, const elk_menu *m, int e, int k, double phi, double psi)
{
    const elk_menu_entry *en = &m->e[e];
    if (!en->nc || m->hbm_bytes <= 0) return 0;
    const elk_menu_cold *mc = &m->cold[en->c0 + k];
    double thbm = m->hbm_bytes / elk_chip_hbm_bytes_per_cycle(c);
    double pre = elk_cost_preload_cycles(c, m->hbm_bytes, mc->deliv);
    double extra = (mc->deliv - m->cold[en->c0].deliv) / elk_chip_noc_bytes_per_cycle(c);
    return mc->dist + psi * fmax(0.0, pre - thbm) + phi * fmax(0.0, extra);
}

void elk_menu_free(elk_menu *m)
{
    for (int k = 0; k < ELK_PRICES; k++) free(m->eff[k]);
    free(m->e);
    free(m->cold);
    memset(m, 0, sizeof *m);
}

int elk_menu_best(const elk_menu *m, double budget)
{
    int lo = 0, hi = m->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m->e[mid].hot <= budget) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}
