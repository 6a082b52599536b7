#include "elk_plan_art.h"

#include <assert.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elk_cost.h"
#include "elk_thread.h"

#define MD ELK_MAX_DIMS
#define MT ELK_MAX_TENSORS
#define MAX_DIV 512 /* divisors of a replica count (<= ELK_CHIP_CORES_MAX has at most 264) */

__extension__ typedef unsigned __int128 u128;

/* ------------------------------------------------------------------ */
/* Temporal enumeration (docs/ARTIFACT.md)                            */

/* One tuple (t_0..t_{V-1}): temporal slices of every tensor along one dim. */
typedef struct {
    int t[MT];
} tup;

/* A leaf: the matrix, its per-iteration extents, every tensor's per-core
 * slice (elements), which tensors rotate (bit v), and the iteration count. */
typedef void (*leaf_fn)(void *u, int tm[MD][MT], const long *sub, const double *s, unsigned rot, double iters);
/* Whether no leaf below a node can count: levels 0..d-1 are chosen (their
 * slices s, rotation bits, iterations and extents sub[0..d)); sub[d..] hold
 * the whole per-core extents, so sub is the tile of leaving the rest whole. */
typedef int (*cut_fn)(void *u, int d, const double *s, unsigned rot, double iters, const long *sub);

/* One tuple as level d of the tree applies it to dim d (which, with the
 * sort, need not be the dim whose list it came from): what it contributes
 * to the leaf's extents, padding, slices and rotation. */
typedef struct {
    int t[MT];
    long sub;       /* ceil(spatial_len[d] / max t) */
    double eff;     /* spatial_len[d] / (sub * max t) */
    double fac[MT]; /* ceil(spatial_len[d] / t_v) if tensor v indexes d, else 1 */
    unsigned rot;   /* bit v: t_v > 1 */
    int mx;         /* max t */
    int sidx;       /* index of sub among the level's distinct values */
    uint64_t inv[MT]; /* UINT64_MAX / t_v + 1 (t_v > 1): divisibility by t_v without a division */
} lent;

/* Divisor lists by value, computed once each: a replica count is the
 * product of other dims' splits, so few distinct ones recur across the
 * spatial plans of an operator. Owns its table and blocks. Invariant: slot
 * k holds n = key[k] > 0 and its cnt[k] ascending divisors at lst[k], in a
 * block that never moves. */
#define DIVBLK 65536
typedef struct {
    long *key;
    long **lst;
    int *cnt;
    long cap; /* slots, a power of two (0: none yet) */
    long used;
    long **blk; /* blocks of DIVBLK longs */
    int nblk, cblk;
    long fill; /* used in the last block */
} divmemo;

static int divisors_of(long n, long *out, int cap);

static void divmemo_free(divmemo *m)
{
    free(m->key);
    free(m->lst);
    free(m->cnt);
    for (int b = 0; b < m->nblk; b++) free(m->blk[b]);
    free(m->blk);
    memset(m, 0, sizeof *m);
}

static int divmemo_grow(divmemo *m)
{
    long nc = m->cap ? m->cap * 2 : 1024;
    long *key = calloc((size_t)nc, sizeof *key), **lst = malloc((size_t)nc * sizeof *lst);
    int *cnt = malloc((size_t)nc * sizeof *cnt);
    if (!key || !lst || !cnt) {
        free(key);
        free(lst);
        free(cnt);
        return -1;
    }
    for (long k = 0; k < m->cap; k++) {
        if (!m->key[k]) continue;
        long j = (long)(((unsigned long)m->key[k] * 0x9E3779B97F4A7C15ul) >> 20) & (nc - 1);
        while (key[j]) j = (j + 1) & (nc - 1);
        key[j] = m->key[k];
        lst[j] = m->lst[k];
        cnt[j] = m->cnt[k];
    }
    free(m->key);
    free(m->lst);
    free(m->cnt);
    m->key = key;
    m->lst = lst;
    m->cnt = cnt;
    m->cap = nc;
    return 0;
}

/* The ascending divisors of n >= 1 (at most MAX_DIV), or NULL when out of
 * memory; *k their count. The list lives as long as m. */
static const long *divmemo_get(divmemo *m, long n, int *k)
{
    if (m->used * 2 >= m->cap && divmemo_grow(m)) return NULL;
    long j = (long)(((unsigned long)n * 0x9E3779B97F4A7C15ul) >> 20) & (m->cap - 1);
    while (m->key[j] && m->key[j] != n) j = (j + 1) & (m->cap - 1);
    if (!m->key[j]) {
        if (m->nblk == 0 || m->fill + MAX_DIV > DIVBLK) {
            if (m->nblk == m->cblk) {
                int nc = m->cblk ? m->cblk * 2 : 8;
                long **v = realloc(m->blk, (size_t)nc * sizeof *v);
                if (!v) return NULL;
                m->blk = v;
                m->cblk = nc;
            }
            if (!(m->blk[m->nblk] = malloc(DIVBLK * sizeof(long)))) return NULL;
            m->nblk++;
            m->fill = 0;
        }
        long *at = m->blk[m->nblk - 1] + m->fill;
        m->key[j] = n;
        m->lst[j] = at;
        m->cnt[j] = divisors_of(n, at, MAX_DIV);
        m->fill += m->cnt[j];
        m->used++;
    }
    *k = m->cnt[j];
    return m->lst[j];
}

/* The temporal search of one spatial plan. Owns lists and levels (reused
 * across spatial plans). Invariant: the lists hold, after sorting, the
 * artifact's search_space in its order. */
typedef struct {
    const elk_op *op;
    int nd, nt;
    double pad;
    int sortbug;
    unsigned axm[MT]; /* bit d: tensor v indexes dim d (in_axes, set by temporal_run once axm_set) */
    int axm_set;
    long sl[MD];  /* spatial_len: per-core extent of each dim */
    long rep[MT]; /* replicas of each tensor */
    const long *div[MT]; /* their divisors, ascending (in dm, or in own) */
    int ndiv[MT];
    divmemo *dm; /* NULL: the divisors are computed into own */
    long own[MT][MAX_DIV];
    tup *list[MD]; /* dim d's list */
    int nlist[MD], clist[MD];
    int *perm; /* perm[d]: the list level d draws from (the sort) */
    lent *lv[MD]; /* level d's entries: list perm[d] applied to dim d */
    int clv[MD];
    int nds[MD]; /* level d's distinct extents */
    int tm[MD][MT];
    uint32_t quo[MD + 1][MT]; /* rep[v] over the product of the t[v] of levels < d (it divides) */
    /* Compute cycles with levels 0..d chosen and the rest whole, per distinct
     * extent of level d (lent.sidx): cmemo[d][k] holds for the current path
     * above level d iff cgen[d][k] == gen[d] */
    double *cmemo[MD];
    unsigned *cgen[MD], gen[MD];
    int ccap[MD];
    int cur[MD]; /* the entry chosen at each level on the current path */
    long dsub[MT * MAX_DIV]; /* levels' scratch: a level's distinct extents */
    leaf_fn leaf;
    cut_fn cut; /* NULL: every leaf is visited */
    void *u;
    double sfx[MD + 1][MT]; /* product over levels >= d of the least slice factor of tensor v */
    long leaves;
    int oom;
    uint64_t inv_small[1024]; /* UINT64_MAX / t + 1 for t > 1 once levels needed it, else 0 */
} tctx;

/* ceil(len / t) for 1 <= t: in 32 bits where the operands allow (the
 * cheap division; levels and dim_rec divide per tuple). */
static inline long ceil_div(long len, long t)
{
    if (len < (1L << 31) && t < (1L << 31)) return (long)(((uint32_t)len + (uint32_t)t - 1) / (uint32_t)t);
    return (len + t - 1) / t;
}

/* The divisibility test's inverse of t > 1 (tree_rec), through the memo. */
static inline uint64_t inv_of(tctx *x, int t)
{
    if (t < 1024) {
        if (!x->inv_small[t]) x->inv_small[t] = UINT64_MAX / (uint64_t)t + 1;
        return x->inv_small[t];
    }
    return UINT64_MAX / (uint64_t)t + 1;
}

static int in_axes(const elk_tensor *t, int d)
{
    for (int a = 0; a < t->naxes; a++)
        if (t->axis[a] == d) return 1;
    return 0;
}

static long gcdl(long a, long b)
{
    while (b) {
        long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static int list_push(tctx *x, int d, const int *t)
{
    if (x->nlist[d] == x->clist[d]) {
        int c = x->clist[d] ? x->clist[d] * 2 : 64;
        tup *v = realloc(x->list[d], (size_t)c * sizeof *v);
        if (!v) return -1;
        x->list[d] = v;
        x->clist[d] = c;
    }
    memcpy(x->list[d][x->nlist[d]++].t, t, sizeof(int) * MT);
    return 0;
}

/* Whether a tuple whose largest entry is m passes dim_list's padding test
 * against extent len. */
static inline int pad_ok(const tctx *x, long len, long m)
{
    return !(m > 1 && (double)len / ((double)m * (double)ceil_div(len, m)) < x->pad);
}

/* The factor lists of dim_list: f[k][0..nf[k]) are tensor vs[k]'s factors
 * up to the dim's extent, ok[k][i] their padding tests. Owns nothing. */
typedef struct {
    int nv, vs[MT], nf[MT];
    const long *f[MT];
    unsigned char ok[MT][MAX_DIV];
} dfac;

/* The product over tensors vs[k..] below a prefix whose largest entry is mx
 * (padding test mok); the last tensor's tuples are pushed without a call. */
static void dim_rec(tctx *x, int d, const dfac *F, int k, int *cur, long mx, int mok)
{
    if (k >= MT) return; /* nv <= MT */
    int v = F->vs[k], last = k == F->nv - 1;
    for (int i = 0; i < F->nf[k] && !x->oom; i++) {
        /* 32-bit remainders (a divisor of a replica count <= ELK_CHIP_CORES_MAX):
         * the cheap division */
        uint32_t a = (uint32_t)F->f[k][i];
        int ok = 1;
        for (int w = 0; w < k && ok && a > 1; w++) {
            uint32_t b = (uint32_t)cur[F->vs[w]];
            if (b > 1 && a % b && b % a) ok = 0;
        }
        if (!ok) continue;
        cur[v] = (int)a;
        int ok2 = (long)a > mx ? F->ok[k][i] : mok;
        if (!last) dim_rec(x, d, F, k + 1, cur, (long)a > mx ? (long)a : mx, ok2);
        else if (ok2 && list_push(x, d, cur)) x->oom = 1;
    }
    cur[v] = 1;
}

/* Dim d's list: itertools.product over the tensors' ascending factor lists,
 * kept when the entries above 1 form a divisibility chain (pairwise
 * comparable under divisibility is the same thing) and pass
 * is_temp_dim_valid_for_variables (only tensors that index d rotate along
 * it, by at most its per-core extent, padding within the threshold). The
 * product is walked over the tensors that index d (the others held at 1)
 * with factors above the extent left out, which visits the kept tuples in
 * the product's order; a tuple's padding test is its largest entry's, so
 * each factor's is taken once. */
static void dim_list(tctx *x, int d)
{
    dfac F;
    int cur[MT];
    long len = x->sl[d];
    F.nv = 0;
    for (int v = 0; v < MT; v++) cur[v] = 1;
    for (int v = 0; v < x->nt; v++)
        if ((x->axm[v] >> d) & 1u) F.vs[F.nv++] = v;
    if (F.nv == 0) {
        if (list_push(x, d, cur)) x->oom = 1;
        return;
    }
    for (int k = 0; k < F.nv; k++) {
        const long *dv = F.f[k] = x->div[F.vs[k]];
        int n = 0;
        while (n < x->ndiv[F.vs[k]] && dv[n] <= len) {
            F.ok[k][n] = (unsigned char)pad_ok(x, len, dv[n]);
            n++;
        }
        F.nf[k] = n;
    }
    if (F.nv != 2) {
        dim_rec(x, d, &F, 0, cur, 1, 1);
        return;
    }
    /* two tensors (a matmul's every dim): the product's two loops */
    for (int i = 0; i < F.nf[0] && !x->oom; i++) {
        uint32_t a = (uint32_t)F.f[0][i];
        cur[F.vs[0]] = (int)a;
        for (int j = 0; j < F.nf[1]; j++) {
            uint32_t b = (uint32_t)F.f[1][j];
            /* comparable iff the larger is a multiple of the smaller (the
             * smaller's remainder by the larger is itself, never 0) */
            if (a > 1 && b > 1 && (a < b ? b % a : a % b)) continue;
            if (!(b > a ? F.ok[1][j] : F.ok[0][i])) continue;
            cur[F.vs[1]] = (int)b;
            if (list_push(x, d, cur)) {
                x->oom = 1;
                break;
            }
        }
    }
}

/* Ascending divisors of n (at most cap). */
static int divisors_of(long n, long *out, int cap)
{
    int k = 0, m = 0;
    long hi[256];
    for (long i = 1; i * i <= n && k < cap && m < 256; i++)
        if (n % i == 0) {
            out[k++] = i;
            if (i != n / i) hi[m++] = n / i;
        }
    while (m > 0 && k < cap) out[k++] = hi[--m];
    return k;
}

/* Python's comparison of two lists of tuples. */
static int cmp_lists(const tctx *x, int a, int b)
{
    int n = x->nlist[a] < x->nlist[b] ? x->nlist[a] : x->nlist[b];
    for (int i = 0; i < n; i++) {
        const int *ta = x->list[a][i].t, *tb = x->list[b][i].t;
        for (int v = 0; v < x->nt; v++)
            if (ta[v] != tb[v]) return ta[v] < tb[v] ? -1 : 1;
    }
    return (x->nlist[a] > x->nlist[b]) - (x->nlist[a] < x->nlist[b]);
}

/* The tree over dims (OpTemporalPartitionSearch). Its own pruning never
 * fires (its root's running product is empty), so every combination reaches
 * the leaf check, replicas % product == 0; a partial product that does not
 * divide the replicas cannot become one that does, so pruning on it here
 * keeps the same leaves in the same order. Level d puts sub[d] back to the
 * whole extent when done (cut_fn's contract). */
static void tree_rec(tctx *x, int d, double eff, const double *s, unsigned rot, double iters, long *sub)
{
    if (x->oom) return;
    if (d < x->nd) x->gen[d]++; /* a new path above level d: its memo is stale */
    if (d == x->nd) {
        x->leaves++;
        x->leaf(x->u, x->tm, sub, s, rot, iters);
        return;
    }
    int L = x->perm[d];
    double s2[MT];
    for (int i = 0; i < x->nlist[L]; i++) {
        const lent *e = &x->lv[d][i];
        int ok = 1;
        for (int v = 0; v < x->nt && ok; v++) {
            /* a tensor this tuple leaves at 1 keeps a quotient that divides;
             * else Lemire, Kaser and Kurz's test and quotient by a
             * precomputed inverse (exact for 32-bit operands): the
             * divisions were the tree's main cost */
            uint32_t q = x->quo[d][v];
            if (e->t[v] > 1) {
                uint64_t c = e->inv[v];
                if (q * c > c - 1) ok = 0;
                q = (uint32_t)(((u128)c * q) >> 64);
            }
            x->quo[d + 1][v] = q;
        }
        /* the sub-op's padding efficiency is a product of factors <= 1,
         * checked at the leaf: below the threshold here, below it there */
        double eff2 = eff * e->eff;
        if (!ok || eff2 < x->pad) continue;
        for (int v = 0; v < x->nt; v++) s2[v] = s[v] * e->fac[v];
        memcpy(x->tm[d], e->t, sizeof(int) * MT);
        sub[d] = e->sub;
        x->cur[d] = i;
        if (x->cut && d + 1 < x->nd && x->cut(x->u, d + 1, s2, rot | e->rot, iters * e->mx, sub)) continue;
        tree_rec(x, d + 1, eff2, s2, rot | e->rot, iters * e->mx, sub);
    }
    sub[d] = x->sl[d];
}

/* Level d's entries from list perm[d], against dim d's extent. */
static int levels(tctx *x)
{
    double mf[MD][MT]; /* per level, the least fac[v] of its entries */
    for (int d = 0; d < x->nd; d++) {
        for (int v = 0; v < x->nt; v++) mf[d][v] = INFINITY;
        int L = x->perm[d], n = x->nlist[L];
        if (n > x->clv[d]) {
            lent *v = realloc(x->lv[d], (size_t)n * sizeof *v);
            if (!v) return -1;
            x->lv[d] = v;
            x->clv[d] = n;
        }
        long len = x->sl[d];
        long *ds = x->dsub;
        int nds = 0;
        for (int i = 0; i < n; i++) {
            lent *e = &x->lv[d][i];
            const int *t = x->list[L][i].t;
            memcpy(e->t, t, sizeof e->t);
            e->mx = 1;
            e->rot = 0;
            for (int v = 0; v < x->nt; v++) {
                e->mx = t[v] > e->mx ? t[v] : e->mx;
                if (t[v] > 1) e->rot |= 1u << v;
                e->fac[v] = (x->axm[v] >> d) & 1u ? (double)ceil_div(len, t[v]) : 1.0;
                e->inv[v] = t[v] > 1 ? inv_of(x, t[v]) : 0;
                if (e->fac[v] < mf[d][v]) mf[d][v] = e->fac[v];
            }
            e->sub = ceil_div(len, e->mx);
            e->eff = (double)len / ((double)e->sub * e->mx);
            /* distinct extents are few (one per distinct max t): search them */
            int k = 0;
            while (k < nds && ds[k] != e->sub) k++;
            if (k == nds) ds[nds++] = e->sub;
            e->sidx = k;
        }
        x->nds[d] = nds;
    }
    for (int v = 0; v < x->nt; v++) x->sfx[x->nd][v] = 1;
    for (int d = x->nd - 1; d >= 0; d--)
        for (int v = 0; v < x->nt; v++) x->sfx[d][v] = x->sfx[d + 1][v] * (isfinite(mf[d][v]) ? mf[d][v] : 1);
    for (int d = 0; d < x->nd; d++) {
        int n = x->nlist[x->perm[d]];
        if (n > x->ccap[d]) {
            double *m = realloc(x->cmemo[d], (size_t)n * sizeof *m);
            if (m) x->cmemo[d] = m;
            unsigned *g = realloc(x->cgen[d], (size_t)n * sizeof *g);
            if (g) x->cgen[d] = g;
            if (!m || !g) return -1;
            x->ccap[d] = n;
        }
        /* a new spatial plan: the memo of the last one is stale */
        x->gen[d]++;
        for (int i = 0; i < x->nds[d]; i++) x->cgen[d][i] = x->gen[d] - 1;
    }
    return 0;
}

/* The compute cycles of sub (levels 0..d chosen on the current path, the
 * rest whole), through the memo: below one path, siblings differ only in
 * level d's extent, and most of its tuples share one. */
static double path_compute(tctx *x, const elk_chip *c, int d, const long *sub)
{
    int k = x->lv[d][x->cur[d]].sidx;
    if (x->cgen[d][k] != x->gen[d]) {
        x->cmemo[d][k] = elk_cost_compute(c, x->op, sub);
        x->cgen[d][k] = x->gen[d];
    }
    return x->cmemo[d][k];
}

/* get_all_temporal_configs for spatial plan p (already validated). */
static int temporal_run(tctx *x, const long *D, const int *p)
{
    const elk_op *op = x->op;
    for (int d = 0; d < x->nd; d++) x->sl[d] = (D[d] + p[d] - 1) / p[d];
    if (!x->axm_set) { /* the operator's, the same for every spatial plan */
        for (int v = 0; v < x->nt; v++) {
            x->axm[v] = 0;
            for (int d = 0; d < x->nd; d++)
                if (in_axes(&op->t[v], d)) x->axm[v] |= 1u << d;
        }
        x->axm_set = 1;
    }
    for (int v = 0; v < x->nt; v++) {
        x->rep[v] = 1;
        for (int d = 0; d < x->nd; d++)
            if (!((x->axm[v] >> d) & 1u)) x->rep[v] *= p[d];
    }
    for (int v = 0; v < x->nt; v++) {
        if (x->dm) {
            x->div[v] = divmemo_get(x->dm, x->rep[v], &x->ndiv[v]);
            if (!x->div[v]) return -1;
        } else {
            x->ndiv[v] = divisors_of(x->rep[v], x->own[v], MAX_DIV);
            x->div[v] = x->own[v];
        }
    }
    for (int d = 0; d < x->nd && !x->oom; d++) {
        x->nlist[d] = 0;
        dim_list(x, d);
    }
    if (x->oom) return -1;
    int perm[MD];
    for (int d = 0; d < x->nd; d++) perm[d] = d;
    if (x->sortbug) /* search_space.sort(): a stable sort of the per-dim lists */
        for (int i = 1; i < x->nd; i++)
            for (int j = i; j > 0 && cmp_lists(x, perm[j - 1], perm[j]) > 0; j--) {
                int s = perm[j];
                perm[j] = perm[j - 1];
                perm[j - 1] = s;
            }
    x->perm = perm;
    if (levels(x)) {
        x->perm = NULL;
        x->oom = 1;
        return -1;
    }
    for (int v = 0; v < x->nt; v++) {
        assert(x->rep[v] >= 1 && x->rep[v] <= UINT32_MAX); /* <= ELK_CHIP_CORES_MAX */
        x->quo[0][v] = (uint32_t)x->rep[v];
    }
    memset(x->tm, 0, sizeof x->tm);
    double s0[MT];
    long sub[MD];
    for (int v = 0; v < MT; v++) s0[v] = 1;
    memcpy(sub, x->sl, sizeof sub);
    tree_rec(x, 0, 1.0, s0, 0, 1.0, sub);
    x->perm = NULL;
    return x->oom ? -1 : 0;
}

static void tctx_free(tctx *x)
{
    for (int d = 0; d < MD; d++) {
        free(x->cmemo[d]);
        free(x->cgen[d]);
    }
    for (int d = 0; d < MD; d++) {
        free(x->list[d]);
        free(x->lv[d]);
    }
}

/* ------------------------------------------------------------------ */
/* Spatial enumeration (docs/ARTIFACT.md)                             */

typedef void (*spatial_fn)(void *u, const int *p);

/* The spatial search of one operator. Owns cand and candf during
 * spatial_run, nothing after it. Invariant: p holds the plan being built (1
 * beyond the current level); fn sees only plans that pass the artifact's
 * utilisation and padding checks; chunk counts the innermost loops the
 * unpruned walk would begin (the plans' keys and the threads' shares). */
typedef struct {
    int nd, cores;
    long D[MD];
    double util, pad;
    double tot[MD];      /* min(cores, D[d]) */
    double rest[MD + 1]; /* product of tot over dims > d, uncapped */
    int p[MD];
    int coarse; /* elk_plan_opts.coarse: elk_plan.c's geometric steps */
    int tid, nthr; /* this thread visits the innermost loops chunk % nthr == tid */
    long chunk;    /* innermost loops begun so far (by every thread alike) */
    long idx;      /* spatial plans visited in the current one */
    spatial_fn fn;
    void *u;
    long spatial;
    /* the innermost dim's splits whose own padding factor (pad_factor)
     * meets pad, ascending, with those factors: only they can pass, since
     * the factors of the other dims are at most 1 (owned by spatial_run
     * while it runs; NULL: every split is tried) */
    long *cand;
    double *candf;
    long ncand;
} sctx;

static void thresholds(const elk_op *op, int cores, double *util, double *pad)
{
    double P = 1, M = 0;
    for (int d = 0; d < op->ndims; d++) {
        P *= (double)op->dim[d];
        if ((double)op->dim[d] > M) M = (double)op->dim[d];
    }
    M *= op->ndims;
    *util = 0.9 * fmin(P / (P + 2.0 * cores), M / 220.0);
    *pad = 0.9 * fmin(P / (P + cores), M / 220.0);
}

/* Dim d's share of the padding efficiency at split p, as
 * update_spatial_dim_parts_if_valid computes it: at most 1. */
static inline double pad_factor(long D, long p)
{
    long len = (D + p - 1) / p;
    return (double)D / ((double)len * p);
}

/* update_spatial_dim_parts_if_valid */
static int spatial_ok(const sctx *s)
{
    double used = 1, eff = 1;
    for (int d = 0; d < s->nd; d++) {
        used *= s->p[d];
        eff *= pad_factor(s->D[d], s->p[d]);
    }
    return used <= s->cores && used / s->cores >= s->util && eff >= s->pad;
}

/* The first split spatial_rec tries at level d under the splits' product
 * agg. */
static long spatial_lo(const sctx *s, int d, double agg)
{
    long lo = (long)floor(s->cores * s->util / agg / s->rest[d + 1]);
    if (lo < 1) lo = 1;
    if (lo > (long)s->tot[d]) lo = (long)s->tot[d];
    return lo;
}

/* The coarse space: a subset of the plans (so no better), stepped as
 * elk_plan.c steps its own; 0: every split. */
static long spatial_geo(const sctx *s, int d) { return s->coarse ? (d < s->nd - 1 ? 4 : 16) : 0; }

/* How many innermost loops spatial_rec(s, d, agg) begins: a subtree skipped
 * whole still counts them, so that the plans' keys and the threads' shares
 * are the unpruned walk's. */
static long spatial_chunks(const sctx *s, int d, double agg)
{
    if (d == s->nd - 1) return 1;
    long n = 0, geo = spatial_geo(s, d);
    for (long i = spatial_lo(s, d, agg); i <= (long)s->tot[d]; i += geo && i >= geo ? i / geo : 1) {
        if (i * agg > s->cores) break;
        n += spatial_chunks(s, d + 1, agg * (double)i);
    }
    return n;
}

/* ef is the padding efficiency of the splits above d, multiplied in
 * spatial_ok's order; each dim's factor is at most 1 (a correctly rounded
 * D / (len * p) with len * p >= D, and a rounded product does not grow),
 * so once ef is below pad no plan below passes. */
static void spatial_rec(sctx *s, int d, double agg, double ef)
{
    if (d == s->nd) {
        if (!spatial_ok(s)) return;
        s->spatial++;
        s->fn(s->u, s->p);
        s->idx++;
        return;
    }
    if (d == s->nd - 1) {
        /* threads split the work by whole innermost loops, dealt round-robin */
        long ch = s->chunk++;
        if (ch % s->nthr != s->tid) return;
        s->idx = 0;
        if (ef < s->pad) return;
        if (s->cand) {
            /* spatial_ok's tests on the splits that can pass, in the
             * loop's order and up to its end */
            long lo = spatial_lo(s, d, agg), k0 = 0, k1 = s->ncand;
            while (k0 < k1) {
                long mid = (k0 + k1) / 2;
                if (s->cand[mid] < lo) k0 = mid + 1;
                else k1 = mid;
            }
            for (long k = k0; k < s->ncand; k++) {
                long i = s->cand[k];
                if (i * agg > s->cores) break;
                double used = agg * (double)i;
                if (!(used / s->cores >= s->util && ef * s->candf[k] >= s->pad)) continue;
                s->p[d] = (int)i;
                s->spatial++;
                s->fn(s->u, s->p);
                s->idx++;
            }
            s->p[d] = 1;
            return;
        }
    }
    long geo = spatial_geo(s, d);
    for (long i = spatial_lo(s, d, agg); i <= (long)s->tot[d]; i += geo && i >= geo ? i / geo : 1) {
        if (i * agg > s->cores) break;
        s->p[d] = (int)i;
        double e2 = d < s->nd - 1 ? ef * pad_factor(s->D[d], i) : ef;
        if (e2 < s->pad) s->chunk += spatial_chunks(s, d + 1, agg * (double)i);
        else spatial_rec(s, d + 1, agg * (double)i, e2);
    }
    s->p[d] = 1;
}

static void spatial_run(sctx *s, const elk_op *op, int cores, int coarse, int tid, int nthr, spatial_fn fn, void *u)
{
    memset(s, 0, sizeof *s);
    s->coarse = coarse;
    s->tid = tid;
    s->nthr = nthr;
    s->nd = op->ndims;
    s->cores = cores;
    thresholds(op, cores, &s->util, &s->pad);
    for (int d = 0; d < s->nd; d++) {
        s->D[d] = op->dim[d];
        s->tot[d] = fmin((double)cores, (double)op->dim[d]);
        s->p[d] = 1;
    }
    s->rest[s->nd] = 1;
    for (int d = s->nd - 1; d >= 0; d--) s->rest[d] = s->rest[d + 1] * s->tot[d];
    s->fn = fn;
    s->u = u;
    /* the innermost dim's candidates (the walk's leaves were 80% rejects);
     * a huge dim or no memory: every split is tried */
    long nt = s->nd > 0 ? (long)s->tot[s->nd - 1] : 0;
    if (!coarse && nt > 0 && nt <= (1L << 20)) {
        s->cand = malloc((size_t)nt * sizeof *s->cand);
        s->candf = malloc((size_t)nt * sizeof *s->candf);
        if (!s->cand || !s->candf) {
            free(s->cand);
            free(s->candf);
            s->cand = NULL;
            s->candf = NULL;
        }
        for (long i = 1; s->cand && i <= nt; i++) {
            double f = pad_factor(s->D[s->nd - 1], i);
            if (f < s->pad) continue;
            s->cand[s->ncand] = i;
            s->candf[s->ncand++] = f;
        }
    }
    spatial_rec(s, 0, 1.0, 1.0);
    free(s->cand);
    free(s->candf);
    s->cand = NULL;
    s->candf = NULL;
}

/* ------------------------------------------------------------------ */
/* Per-plan metrics (docs/ARTIFACT.md)                                */

/* What the enumeration passes share. Owns t's buffers (tctx_free).
 * cpb and xf are the fixed rates the artifact ranks plans at. */
typedef struct {
    const elk_chip *c;
    const elk_op *op;
    double sram;
    double cpb;  /* the artifact's fixed exchange rate, cycles per byte */
    double xf;   /* its inter-chip factor */
    double unf_comp, unf_syncs, unf_bytes;
    int mono; /* elk_cost_split_monotone: p1_cut may bound compute */
    double comp_1; /* compute of a 1x..x1 tile over compute_scale (0 unless mono) */
    double base_x; /* the unfused parts' time, the same for every plan */
    int rotsync, gather, relayout, elemout; /* the profile switches and op kind evaluate reads */
    double kx, ks; /* time of an element through the port, of a sync (inter-chip factor in) */
    unsigned axm[MT]; /* bit d: tensor v indexes dim d */
    divmemo dm;
    tctx t;
    sctx s;
    struct bcache *bc; /* p1_cut_spatial's last options per tensor (owned; NULL: none) */
    /* p1_cut_spatial's last unsplit tile: csl is elk_cost_compute of the
     * extents csl_key once csl_set (neighbouring spatial plans of large
     * splits often share every extent) */
    long csl_key[MD];
    double csl;
    int csl_set;
} actx;

/* Per-core slice of every tensor (get_sub_op_var_sizes), elements. */
static void slices(const tctx *x, int tm[MD][MT], double *s)
{
    for (int v = 0; v < x->nt; v++) {
        double sz = 1;
        const elk_tensor *t = &x->op->t[v];
        for (int a = 0; a < t->naxes; a++) {
            int d = t->axis[a];
            sz *= (double)((x->sl[d] + tm[d][v] - 1) / tm[d][v]);
        }
        s[v] = sz;
    }
}

static int is_hbm(const elk_tensor *t) { return t->role == ELK_TR_WEIGHT || t->role == ELK_TR_KV; }

/* Hot and cold bytes from the slices and the rotating tensors (bit v). */
static void bytes_rot(const tctx *x, const double *s, unsigned rot, double *hot, double *cold)
{
    double dt = x->op->dtype_bytes;
    *hot = *cold = 0;
    for (int v = 0; v < x->nt; v++) {
        *hot += s[v] * dt * (((rot >> v) & 1u) ? 2 : 1);
        if (v > 0 && is_hbm(&x->op->t[v])) *cold += s[v] * dt;
    }
}

/* Hot and cold bytes: every tensor, double-buffered if it rotates, against
 * only the HBM tensors, unbuffered. */
static void bytes_of(const tctx *x, int tm[MD][MT], const double *s, double *hot, double *cold)
{
    double dt = x->op->dtype_bytes;
    *hot = *cold = 0;
    for (int v = 0; v < x->nt; v++) {
        int rot = 0;
        for (int d = 0; d < x->nd; d++) rot |= tm[d][v] > 1;
        *hot += s[v] * dt * (rot ? 2 : 1);
        if (v > 0 && is_hbm(&x->op->t[v])) *cold += s[v] * dt;
    }
}

/* The volumes of plan tm on elk_plan, under the profile's other switches
 * the way elk_plan.c's eval_plan maps our own plans; returns the plan's
 * execution time at the artifact's fixed rates (what its tables rank). */
static double evaluate(const actx *a, int tm[MD][MT], const long *sub, const double *s, double hot, double comp0,
                       elk_plan *pl)
{
    const tctx *x = &a->t;
    const elk_op *op = x->op;
    const elk_chip *c = a->c;
    int nd = x->nd, nt = x->nt;
    double dt = op->dtype_bytes;
    memset(pl, 0, sizeof *pl);
    double iters = 1;
    for (int d = 0; d < nd; d++) {
        int mx = 1;
        for (int v = 0; v < nt; v++) mx = tm[d][v] > mx ? tm[d][v] : mx;
        iters *= mx;
        pl->p[d] = a->s.p[d];
    }
    for (int v = 0; v < nt; v++) {
        long prod = 1, best = 1;
        pl->ax[v] = -1;
        for (int d = 0; d < nd; d++) {
            prod *= tm[d][v];
            if (tm[d][v] > best) {
                best = tm[d][v];
                pl->ax[v] = d;
            }
        }
        pl->t[v] = (int)prod;
    }
    pl->hot = hot;
    pl->comp = comp0 >= 0 ? comp0 : elk_cost_compute(c, op, sub) * iters;

    /* get_shift_info: per dim, gcd levels; biggest mover outermost */
    double lsize[MD * 32], liter[MD * 32];
    int lnv[MD * 32], nl = 0;
    for (int d = 0; d < nd; d++) {
        long w[MT];
        for (int v = 0; v < nt; v++) w[v] = tm[d][v];
        for (;;) {
            long g = 0;
            for (int v = 0; v < nt; v++)
                if (w[v] > 1) g = gcdl(g, w[v]);
            if (g == 0) break;
            assert(g > 1 && nl < MD * 32); /* the tuples are divisibility chains */
            double sz = 0;
            int nv = 0;
            for (int v = 0; v < nt; v++)
                if (w[v] > 1) {
                    sz += s[v];
                    nv++;
                    w[v] /= g;
                }
            lsize[nl] = sz;
            liter[nl] = (double)(g - 1);
            lnv[nl++] = nv;
        }
    }
    int ord[MD * 32];
    for (int i = 0; i < nl; i++) ord[i] = i;
    for (int i = 1; i < nl; i++)
        for (int j = i; j > 0 && lsize[ord[j]] > lsize[ord[j - 1]]; j--) {
            int tmp = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = tmp;
        }
    double outer = 1, shift_elems = 0, nshifts = 0;
    for (int i = 0; i < nl; i++) {
        int k = ord[i];
        shift_elems += outer * liter[k] * lsize[k];
        nshifts += outer * liter[k] * lnv[k];
        outer *= liter[k] + 1;
    }
    unsigned prof = c->profile;
    double syncs = (prof & (1u << ELK_PSW_ROTSYNC)) ? 2 * nshifts : outer - 1;

    /* get_shuffle_time: partial-sum copies left after the output's own
     * rotation, then the re-layout */
    double r0 = 1;
    for (int d = 0; d < nd; d++) r0 *= tm[d][0];
    r0 = round((double)x->rep[0] / r0);
    elk_plan_charge_output(c, op, r0, sub, s[0], pl, &shift_elems, &syncs);
    pl->comp += a->unf_comp;
    syncs += a->unf_syncs;
    pl->shift_bytes = shift_elems * dt + a->unf_bytes;
    pl->syncs = syncs;
    /* at the fixed rate, not the chip's: the cached set serves every topology */
    pl->xcyc = a->xf * (pl->shift_bytes + pl->rs_bytes + pl->rd_bytes) * a->cpb;
    return pl->comp / c->compute_scale +
           a->xf * ((pl->shift_bytes + pl->rs_bytes + pl->rd_bytes) * a->cpb + pl->syncs * c->sync_cycles);
}

/* ------------------------------------------------------------------ */
/* Pass 1: the hot Pareto front (docs/ARTIFACT.md)                    */

/* A plan that was on the (hot, time) staircase of the plans before it when
 * it was reached. The artifact's front keeps, per hot size, every plan that
 * lowered that size's best time (config_dict), then sweeps them by size
 * keeping strictly falling times. A plan some earlier plan matches or beats
 * at no more space can be neither (the sweep's bound for its size is at
 * most that plan's time), so only staircase plans are recorded, and the
 * sweep over them gives the artifact's front. */
typedef struct {
    double hot, exe;
    long seq;  /* enumeration order over the plans of its spatial plan visited */
    long sp;   /* its spatial plan's enumeration order (p1_sp_key) */
    int p[MD];
    int tm[MD][MT]; /* its temporal matrix: pass 2 finds it by this */
} improver;

/* Pass 1's state. Owns imp and the staircase st (hot ascending, exe
 * strictly descending: the plans seen so far that no other beats). */
typedef struct {
    actx *a;
    elk_plan_cb cb;
    void *ctx;
    improver *imp;
    long nimp, cimp;
    double *st_hot, *st_exe;
    long nst, cst;
    long seq; /* plans visited (p1_leaf) */
    long sp;  /* the current spatial plan's key (p1_sp_key) */
    long nsp; /* spatial plans seen */
    long bounded; /* spatial plans p1_cut_spatial skipped */
    int exhaustive; /* visit every plan (no p1_cut) */
    double min_hot;
    /* Seeds: the coarse space's staircase (hot ascending, exe strictly
     * descending), each point a plan of this space with the time evaluate
     * gives it here. A plan some seed of strictly less hot matches or beats
     * is on no front (front_sweep keeps strictly falling times in hot
     * order), so the cuts may use them; a seed of equal hot may come after
     * the plan in front_sweep's order and is not used. Owned (p1_seed);
     * sd_seq counts the plans the coarse walk visited. */
    double *sd_hot, *sd_exe;
    long nsd, sd_seq;
    int oom;
    const atomic_int *cancel; /* polled every 1024 spatial plans */
    int cancelled;
    /* p1_cut's least output exchange at level d, for spatial plan ox_sp[d]
     * and the (T0, s0) it was taken at: siblings that leave the output's
     * split alone ask for it again (the divisor scan was a third of p1_cut) */
    long ox_sp[MD + 1];
    uint32_t ox_T0[MD + 1];
    double ox_s0[MD + 1], ox_best[MD + 1];
    /* clb[d]: a lower bound on the compute time (over compute_scale) of
     * every plan below the current path's levels 0..d-1 (0: none known):
     * p1_cut's own compute bound there, or the one above it. Where
     * elk_cost_split_monotone holds, a level's split never lowers compute
     * times iterations, so a parent's bound holds for its children, and a
     * subtree or plan that loses on it loses on its own compute too (the
     * larger margin covers rounding): p1_cut and p1_leaf decide as before
     * without pricing it. */
    double clb[MD + 1];
} pass1;

/* Index of the last staircase point with hot <= h, or -1. */
static inline long st_find(const pass1 *q, double h)
{
    if (q->nst == 0) return -1;
    /* branch-free halving (a conditional move, not a mispredicted jump:
     * the searches were a tenth of the enumeration); invariant: the first
     * point above h lies in [b, b + n] */
    const double *b = q->st_hot;
    long n = q->nst;
    while (n > 1) {
        long half = n / 2;
        b = b[half] <= h ? b + half : b;
        n -= half;
    }
    return (b - q->st_hot) + (*b <= h) - 1;
}

/* Whether the staircase at hot h is at or below e (a plan of at least h
 * and e would not join it); the ends decide most queries without a search.
 * *at caches st_find's index for a caller that asks twice at one h (-2:
 * not yet searched), which the staircase keeps between calls. */
static inline int st_beats_at(const pass1 *q, double h, double e, long *at)
{
    if (q->nst == 0 || h < q->st_hot[0] || e < q->st_exe[q->nst - 1]) return 0;
    if (e >= q->st_exe[0]) return 1;
    if (*at == -2) *at = st_find(q, h);
    return e >= q->st_exe[*at];
}

/* The least time of the seeds of hot strictly below h (pass1's seeds), or
 * INFINITY: a plan of at least hot h and that time or more is on no front. */
static inline double sd_bound(const pass1 *q, double h)
{
    long n = q->nsd;
    if (n == 0 || !(q->sd_hot[0] < h)) return INFINITY;
    /* the last seed with hot < h: the times fall along the staircase */
    const double *b = q->sd_hot;
    while (n > 1) {
        long half = n / 2;
        b = b[half] < h ? b + half : b;
        n -= half;
    }
    return q->sd_exe[b - q->sd_hot];
}

static inline int sd_beats(const pass1 *q, double h, double e)
{
    if (q->nsd == 0 || e < q->sd_exe[q->nsd - 1]) return 0;
    return e >= sd_bound(q, h);
}

/* Whether the staircase or a seed beats (h, e): st_beats_at's question, the
 * seeds asked at h shaded (strictly below every plan of at least h). */
static inline int any_beats_at(const pass1 *q, double h, double e, long *at)
{
    return st_beats_at(q, h, e, at) || sd_beats(q, h * (1 - 1e-9), e);
}

static int st_insert(pass1 *q, long i, double hot, double exe)
{
    if (q->nst == q->cst) {
        long nc = q->cst ? q->cst * 2 : 64;
        double *h = realloc(q->st_hot, (size_t)nc * sizeof *h);
        if (!h) return -1;
        q->st_hot = h;
        double *e = realloc(q->st_exe, (size_t)nc * sizeof *e);
        if (!e) return -1;
        q->st_exe = e;
        q->cst = nc;
    }
    /* drop the points it beats: from i (same size) or i+1 on, while not faster */
    long from = i >= 0 && q->st_hot[i] == hot ? i : i + 1, to = from;
    while (to < q->nst && q->st_exe[to] >= exe) to++;
    memmove(q->st_hot + from + 1, q->st_hot + to, (size_t)(q->nst - to) * sizeof *q->st_hot);
    memmove(q->st_exe + from + 1, q->st_exe + to, (size_t)(q->nst - to) * sizeof *q->st_exe);
    q->nst -= to - from - 1;
    q->st_hot[from] = hot;
    q->st_exe[from] = exe;
    return 0;
}

/* A lower bound on the exchange time evaluate charges for tensor v, from
 * its slice sv (elements), its splits' product T and its replica count rep,
 * and (the output) the per-iteration output elements o: it shifts at least
 * T - 1 times (the shift schedule's levels multiply to T), each moving sv,
 * two syncs a shift under rotsync; the output's rep / T partial sums fix
 * elk_plan_charge_output's syncs and bound its bytes. */
static inline double term_xchg(const actx *a, int v, double sv, double T, double rep, double o)
{
    double kx = a->kx, ks = a->ks;
    double t = (T - 1) * (kx * sv + (a->rotsync ? 2 * ks : 0));
    if (v == 0) {
        double r0 = rep / T;
        if (r0 > 1 && a->gather) t += ks * r0 + kx * (r0 < 3 ? floor(o / 2) : o);
        else if (r0 > 1) t += ks + kx * sv * (r0 - 1) / r0;
        if (a->relayout) t += a->elemout ? ks : 6 * ks + kx * sv;
        else t += ks + kx * sv / r0;
    }
    return t;
}

static void p1_leaf(void *u, int tm[MD][MT], const long *sub, const double *s, unsigned rot, double iters)
{
    pass1 *q = u;
    actx *a = q->a;
    q->seq++;
    if (q->oom) return;
    double hot, cold;
    bytes_rot(&a->t, s, rot, &hot, &cold);
    if (hot < q->min_hot) q->min_hot = hot;
    if (hot > a->sram) return;
    long i = st_find(q, hot);
    double bound = i >= 0 ? q->st_exe[i] : INFINITY;
    /* a seed of less hot (sd_beats) bounds the tests below as the
     * staircase does, but a plan it beats is not recorded either (the
     * staircase is not lowered by it: recording is what the front needs) */
    double sbound = sd_bound(q, hot * (1 - 1e-9));
    if (sbound < bound) bound = sbound;
    if (!q->cb && q->clb[a->t.nd - 1] * (1 - 1e-9) >= bound) return; /* its compute alone too slow */
    double comp0 = path_compute(&a->t, a->c, a->t.nd - 1, sub) * iters;
    /* compute alone already too slow: skip the exchange terms */
    if (!q->cb && comp0 / a->c->compute_scale >= bound) return;
    if (!q->cb && isfinite(bound)) {
        /* nor with the exchange no plan of these splits can avoid */
        const tctx *x = &a->t;
        double o = 1, lb = comp0 / a->c->compute_scale + a->base_x;
        for (int k = 0; k < a->op->t[0].naxes; k++) o *= (double)sub[a->op->t[0].axis[k]];
        for (int v = 0; v < x->nt; v++)
            lb += term_xchg(a, v, s[v], (double)x->rep[v] / x->quo[x->nd][v], (double)x->rep[v], o);
        if (lb * (1 - 1e-9) >= bound) return;
    }
    elk_plan pl;
    double exe = evaluate(a, tm, sub, s, hot, comp0, &pl);
    if (q->cb) q->cb(&pl, q->ctx);
    if (exe >= bound) return;
    if (st_insert(q, i, hot, exe)) {
        q->oom = 1;
        return;
    }
    if (q->nimp == q->cimp) {
        long nc = q->cimp ? q->cimp * 2 : 256;
        improver *v = realloc(q->imp, (size_t)nc * sizeof *v);
        if (!v) {
            q->oom = 1;
            return;
        }
        q->imp = v;
        q->cimp = nc;
    }
    improver *im = &q->imp[q->nimp++];
    im->hot = hot;
    im->exe = exe;
    im->seq = q->seq - 1; /* within one thread, in its plans' order */
    im->sp = q->sp;
    memcpy(im->p, a->s.p, sizeof im->p);
    memcpy(im->tm, tm, sizeof im->tm);
}

/* Pass 1's bound on a subtree: every plan below has at least the slices of
 * the least factors still to come (tctx.sfx) and, where compute cannot fall
 * by splitting (elk_cost_split_monotone), at least the compute of leaving
 * the remaining dims whole. When that already loses to the staircase at
 * its least size, no plan below could join it (p1_leaf's own tests), so
 * the subtree is skipped: the set is the one of visiting every plan, and
 * set->enumerated counts the plans visited. The margin keeps rounding of
 * the bound (real-valued, exact) from cutting a tie. */
static int p1_cut(void *u, int d, const double *s, unsigned rot, double iters, const long *sub)
{
    pass1 *q = u;
    actx *a = q->a;
    const tctx *x = &a->t;
    if (q->exhaustive || (q->nst == 0 && q->nsd == 0)) {
        q->clb[d] = q->clb[d - 1];
        return 0;
    }
    double dt = x->op->dtype_bytes, hot = 0;
    for (int v = 0; v < x->nt; v++) hot += s[v] * x->sfx[d][v] * dt * (((rot >> v) & 1u) ? 2 : 1);
    if (hot > a->sram) return 1;
    double comp = q->clb[d - 1];
    if ((q->nst == 0 || hot < q->st_hot[0]) && (q->nsd == 0 || !(q->sd_hot[0] < hot * (1 - 1e-9)))) {
        q->clb[d] = comp;
        return 0;
    }
    long at = -2;
    if (a->mono) {
        if (any_beats_at(q, hot, comp * (1 - 2e-9), &at)) return 1; /* on clb above */
        comp = path_compute(&a->t, a->c, d - 1, sub) * iters / a->c->compute_scale;
        if (any_beats_at(q, hot, comp * (1 - 1e-9), &at)) return 1;
    } else {
        comp = 0;
    }
    /* and the exchange: each tensor's splits so far only grow (its slice
     * at least the one the hot bound took); the output's final product is
     * a multiple of the one so far that divides its replicas */
    double lb = comp + a->base_x;
    for (int v = 1; v < x->nt; v++)
        lb += term_xchg(a, v, s[v] * x->sfx[d][v], (double)x->rep[v] / x->quo[d][v], (double)x->rep[v], 1);
    uint32_t T0 = (uint32_t)(x->rep[0] / x->quo[d][0]);
    double best = INFINITY, s0 = s[0] * x->sfx[d][0];
    if (q->ox_sp[d] == q->sp && q->ox_T0[d] == T0 && q->ox_s0[d] == s0) {
        best = q->ox_best[d];
    } else {
        int k0 = 0, k1 = x->ndiv[0];
        while (k0 < k1) { /* the first divisor >= T0 */
            int mid = (k0 + k1) / 2;
            if (x->div[0][mid] < (long)T0) k0 = mid + 1;
            else k1 = mid;
        }
        for (int k = k0; k < x->ndiv[0]; k++) {
            uint32_t T = (uint32_t)x->div[0][k];
            if (T < T0 || T % T0) continue;
            double t = term_xchg(a, 0, s0, (double)T, (double)x->rep[0], 1);
            best = t < best ? t : best;
        }
        q->ox_sp[d] = q->sp;
        q->ox_T0[d] = T0;
        q->ox_s0[d] = s0;
        q->ox_best[d] = best;
    }
    if (any_beats_at(q, hot, (lb + best) * (1 - 1e-9), &at)) return 1;
    q->clb[d] = comp;
    return 0;
}

/* p1_cut for a whole spatial plan, before its lists are built. Tensor v's
 * temporal splits multiply to some T_v dividing its replica count (the
 * tree's leaf check), each split drawn from the list of a dim v indexes
 * (at most that dim's extent, each list on one level: dim_rec and the sort
 * permute whole lists), and every term of evaluate's time is at least a
 * sum of per-tensor terms in T_v alone:
 *  - its slice s_v is at least the least product of ceil(extent / split)
 *    over its axes for splits that multiply to T_v (slice_lb), so its hot
 *    bytes are at least that (twice it when T_v > 1);
 *  - the shift schedule's levels multiply to T_v, so it shifts at least
 *    T_v - 1 times, each moving s_v (with rotsync two syncs a shift);
 *  - the output's partial-sum copies are rep_0 / T_0 exactly, which fixes
 *    elk_plan_charge_output's syncs and bounds its bytes;
 *  - where elk_cost_split_monotone holds, compute is monotone in every
 *    extent and at least the unsplit tile's, and at least max T_v
 *    iterations of a 1x..x1 tile; the unfused parts are the same for all.
 * A plan of p can join the staircase only if some vector (T_v) has a bound
 * point (sum of hot bounds, sum of time bounds) that fits and beats the
 * staircase there (p1_leaf's tests; the staircase does not rise), so when
 * none does, p is skipped: p1_leaf would record none of its plans. The
 * search over vectors drops a prefix whose partial sums plus the rest's
 * least terms already lose; a search that grows too long keeps p. */
typedef struct {
    double h, e, T;
    int exact; /* h and e from slice_lb; else from the cheaper extent / T */
} bopt;

#define BOPT_MAX 128 /* options kept per tensor; more: not bounded */
#define BNODE_MAX 4096

/* Each tensor's options as p1_cut_spatial last built them, before any
 * bopt_refine: they depend only on its extents and replica count, which
 * neighbouring spatial plans often share (a tensor that does not index the
 * innermost dim keeps its extents while that dim's slice stays). Entry v is
 * valid iff ok[v]; then o[v][0..no[v]) are the options of (ext[v], rep[v]),
 * whose divisors are dv[v][0..ndv[v]). */
struct bcache {
    int ok[MT], na[MT], no[MT], ndv[MT];
    long ext[MT][MD], rep[MT];
    double hm[MT], em[MT]; /* the least h and e of the options */
    const long *dv[MT];
    bopt o[MT][BOPT_MAX];
};

/* The bound's search. Owns nothing; o[v][0..no[v]) are tensor v's options. */
typedef struct {
    const pass1 *q;
    int nt;
    bopt o[MT][BOPT_MAX];
    int no[MT];
    double hmin[MT + 1], emin[MT + 1]; /* sums of the least terms of tensors >= v */
    double comp_sl, comp_1; /* compute of the unsplit tile and of a 1x..x1 tile (0 unless monotone) */
    long nodes;
    double base; /* the time every plan pays (the unfused parts) */
    int pick[MT]; /* the option of each tensor on the current path */
    const actx *a;
    long ext[MT][MD]; /* each tensor's extents, na[v] of them */
    int na[MT];
    long rep[MT];
    const long *dv[MT]; /* the divisors of rep[v] */
    int ndv[MT];
} bsrch;

/* 1 if no plan with at least hot h and time e can join. */
static inline int lost(const bsrch *b, double h, double e)
{
    const pass1 *q = b->q;
    if (h * (1 - 1e-9) > q->a->sram) return 1;
    long at = -2;
    return any_beats_at(q, h * (1 - 1e-9), e * (1 - 1e-9), &at);
}

static double dmax(double x, double y) { return x > y ? x : y; }

/* 1 if some vector of options of tensors v.. joins (or the search gave up).
 * T is the largest T_w so far. */
static double slice_lb(const long *ext, int na, long T, const long *dv, int ndv);

/* Option i of tensor v from its least slice (slice_lb); hot and time only
 * grow, so what was pruned on the cheaper values stays pruned. */
static void bopt_refine(bsrch *b, int v, int i)
{
    bopt *o = &b->o[v][i];
    double sv = slice_lb(b->ext[v], b->na[v], (long)o->T, b->dv[v], b->ndv[v]);
    o->exact = 1;
    if (sv == 0) { /* no splits multiply to T */
        o->h = o->e = INFINITY;
        return;
    }
    o->h = sv * b->a->op->dtype_bytes * (o->T > 1 ? 2 : 1);
    o->e = term_xchg(b->a, v, sv, o->T, (double)b->rep[v], 1); /* o >= 1 */
}

/* bound_rec's node once counted and not lost: the vector's test at a leaf,
 * else its children, each counted and tested here before its own call
 * (the same nodes in the same order, without a call for the lost ones). */
static int bound_node(bsrch *b, int v, double h, double e, double T)
{
    if (v >= b->nt || v >= MT) {
        /* a vector that joins on the cheap slices: on the exact ones? */
        int refined = 0;
        for (int w = 0; w < b->nt; w++)
            if (!b->o[w][b->pick[w]].exact) {
                bopt_refine(b, w, b->pick[w]);
                refined = 1;
            }
        if (!refined) return 1;
        h = e = 0;
        for (int w = 0; w < b->nt; w++) {
            h += b->o[w][b->pick[w]].h;
            e += b->o[w][b->pick[w]].e;
        }
        return !lost(b, h, e + b->base + dmax(b->comp_sl, T * b->comp_1));
    }
    double hm = b->hmin[v + 1], em = b->emin[v + 1];
    for (int i = 0; i < b->no[v]; i++) {
        b->pick[v] = i;
        const bopt *o = &b->o[v][i];
        double h2 = h + o->h, e2 = e + o->e, T2 = dmax(T, o->T);
        if (++b->nodes > BNODE_MAX) return 1;
        if (lost(b, h2 + hm, e2 + em + dmax(b->comp_sl, T2 * b->comp_1))) continue;
        if (bound_node(b, v + 1, h2, e2, T2)) return 1;
    }
    return 0;
}

static int bound_rec(bsrch *b, int v, double h, double e, double T)
{
    if (++b->nodes > BNODE_MAX) return 1;
    if (lost(b, h + b->hmin[v], e + b->emin[v] + dmax(b->comp_sl, T * b->comp_1))) return 0;
    return bound_node(b, v, h, e, T);
}

/* The least slice of a tensor with extents ext[0..na) whose splits
 * multiply to T (a divisor of the replica count whose divisors are
 * dv[0..ndv)), each split from a list of one of its own dims (so at most
 * that dim's extent) on its own level, which may shrink either axis (the
 * sort) or none; 0 if no such splits exist. */
static double slice_lb(const long *ext, int na, long T, const long *dv, int ndv)
{
    if (na == 0) return T == 1 ? 1 : 0;
    if (na == 1) return T <= ext[0] ? (double)((ext[0] + T - 1) / T) : 0;
    if (na > 2) {
        double e = 1;
        for (int a = 0; a < na; a++) e *= (double)ext[a];
        return (double)T <= e ? dmax(1.0, e / (double)T) : 0;
    }
    /* f1 <= ext[0] and T / f1 <= ext[1]: f1 from ceil(T / ext[1]) up; the
     * values fit 32 bits (<= ELK_CHIP_CORES_MAX), whose divisions are the
     * cheap ones */
    if (ext[0] > UINT32_MAX / 2 || ext[1] > UINT32_MAX / 2) return (double)T <= (double)ext[0] * ext[1] ? 1 : 0;
    uint32_t t = (uint32_t)T, e0 = (uint32_t)ext[0], e1 = (uint32_t)ext[1];
    uint32_t from = (t + e1 - 1) / e1;
    int lo = 0, hi = ndv;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (dv[mid] < from) lo = mid + 1;
        else hi = mid;
    }
    uint64_t best = 0;
    for (int j = lo; j < ndv && dv[j] <= T && dv[j] <= ext[0]; j++) {
        uint32_t f1 = (uint32_t)dv[j];
        uint32_t f2 = t / f1;
        if (f2 * f1 != t) continue;
        uint64_t s1 = (uint64_t)((e0 + f1 - 1) / f1) * ((e1 + f2 - 1) / f2);
        uint64_t s2 = (uint64_t)((e0 + f2 - 1) / f2) * ((e1 + f1 - 1) / f1);
        uint64_t sm = s1 < s2 ? s1 : s2;
        if (!best || sm < best) best = sm;
    }
    return (double)best;
}

/* *comp_sl: the unsplit tile's compute time when it was priced, else 0
 * (p1_cut's clb[0]). */
static int p1_cut_spatial(const pass1 *q, const int *p, double *comp_sl)
{
    *comp_sl = 0;
    actx *a = q->a;
    const elk_op *op = a->t.op;
    const elk_chip *c = a->c;
    if (q->exhaustive || (q->nst == 0 && q->nsd == 0)) return 0;
    double dt = op->dtype_bytes;
    long sl[MD];
    for (int d = 0; d < op->ndims; d++) sl[d] = (a->s.D[d] + p[d] - 1) / p[d];
    bsrch b;
    b.q = q;
    b.a = a;
    b.nt = op->ntensors;
    b.nodes = 0;
    if (!a->bc) a->bc = calloc(1, sizeof *a->bc); /* NULL: built every time */
    struct bcache *bc = a->bc;
    double hmv[MT], emv[MT]; /* each tensor's least h and e */
    for (int v = 0; v < op->ntensors; v++) {
        long ext[MD] = {0};
        int na = 0;
        long rep = 1;
        for (int d = 0; d < op->ndims; d++)
            if ((a->axm[v] >> d) & 1u) ext[na++] = sl[d];
            else rep *= p[d];
        if (bc && bc->ok[v] && bc->rep[v] == rep && bc->na[v] == na && !memcmp(bc->ext[v], ext, sizeof ext)) {
            b.no[v] = bc->no[v];
            memcpy(b.o[v], bc->o[v], (size_t)bc->no[v] * sizeof b.o[v][0]);
            memcpy(b.ext[v], ext, sizeof ext);
            b.na[v] = na;
            b.rep[v] = rep;
            b.dv[v] = bc->dv[v];
            b.ndv[v] = bc->ndv[v];
            hmv[v] = bc->hm[v];
            emv[v] = bc->em[v];
            continue;
        }
        int ndv;
        const long *dv;
        if (bc && bc->ok[v] && bc->rep[v] == rep) { /* only the extents moved */
            dv = bc->dv[v];
            ndv = bc->ndv[v];
        } else {
            dv = divmemo_get(&a->dm, rep, &ndv);
        }
        if (bc) bc->ok[v] = 0;
        if (!dv || ndv > BOPT_MAX) return 0;
        b.no[v] = 0;
        memcpy(b.ext[v], ext, sizeof ext);
        b.na[v] = na;
        b.rep[v] = rep;
        b.dv[v] = dv;
        b.ndv[v] = ndv;
        double e = 1, hm = INFINITY, em = INFINITY;
        for (int k = 0; k < na; k++) e *= (double)ext[k];
        for (int i = 0; i < ndv; i++) {
            double T = (double)dv[i];
            /* two axes: extent / T until a search path needs slice_lb */
            int cheap = na == 2;
            double sv = cheap ? (T <= e ? dmax(1.0, e / T) : 0) : slice_lb(ext, na, dv[i], dv, ndv);
            if (sv == 0) continue; /* no splits multiply to T */
            double h = sv * dt * (T > 1 ? 2 : 1), ex = term_xchg(a, v, sv, T, (double)rep, 1); /* o >= 1 */
            b.o[v][b.no[v]++] = (bopt){h, ex, T, !cheap};
            hm = h < hm ? h : hm;
            em = ex < em ? ex : em;
        }
        if (b.no[v] == 0) return 0; /* cannot happen (T = 1); keep p */
        hmv[v] = hm;
        emv[v] = em;
        if (bc) {
            bc->ok[v] = 1;
            bc->na[v] = na;
            bc->no[v] = b.no[v];
            bc->ndv[v] = ndv;
            bc->rep[v] = rep;
            bc->dv[v] = dv;
            bc->hm[v] = hm;
            bc->em[v] = em;
            memcpy(bc->ext[v], ext, sizeof ext);
            memcpy(bc->o[v], b.o[v], (size_t)b.no[v] * sizeof b.o[v][0]);
        }
    }
    double base = a->base_x;
    b.base = base;
    if (a->mono && (!a->csl_set || memcmp(a->csl_key, sl, (size_t)op->ndims * sizeof *sl))) {
        a->csl = elk_cost_compute(c, op, sl);
        memcpy(a->csl_key, sl, (size_t)op->ndims * sizeof *sl);
        a->csl_set = 1;
    }
    b.comp_sl = a->mono ? a->csl / c->compute_scale : 0;
    *comp_sl = b.comp_sl;
    b.comp_1 = a->comp_1;
    b.hmin[b.nt] = b.emin[b.nt] = 0;
    for (int v = b.nt - 1; v >= 0; v--) {
        b.hmin[v] = b.hmin[v + 1] + hmv[v];
        b.emin[v] = b.emin[v + 1] + emv[v];
    }
    return !bound_rec(&b, 0, 0, base, 1);
}

/* A spatial plan's place in enumeration order whichever thread visits it:
 * its innermost loop's number, then its number in that loop. */
static long p1_sp_key(const sctx *s) { return (s->chunk - 1) << 32 | s->idx; }

static void p1_spatial(void *u, const int *p)
{
    pass1 *q = u;
    q->sp = p1_sp_key(&q->a->s);
    if (p1_cut_spatial(q, p, &q->clb[0])) {
        q->nsp++;
        q->bounded++;
        return;
    }
    if (q->cancel && !(q->nsp & 1023) && atomic_load_explicit(q->cancel, memory_order_relaxed)) q->cancelled = 1;
    if (!q->oom && !q->cancelled && temporal_run(&q->a->t, q->a->s.D, p)) q->oom = 1;
    q->nsp++;
}

static int cmp_imp(const void *pa, const void *pb)
{
    const improver *a = pa, *b = pb;
    if (a->hot != b->hot) return a->hot < b->hot ? -1 : 1;
    if (a->sp != b->sp) return a->sp < b->sp ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* ------------------------------------------------------------------ */
/* Pass 2: the cold->hot table (docs/ARTIFACT.md)                     */

/* One plan of a spatial plan that holds front plans. */
typedef struct {
    int tm[MD][MT];
    long sub[MD];
    double s[MT];
    double hot, cold;
} leafrec;

/* Pass 2's state: every plan of the current spatial plan, in enumeration
 * order. Owns v. */
typedef struct {
    actx *a;
    leafrec *v;
    long n, cap;
    int oom;
} pass2;

static void p2_leaf(void *u, int tm[MD][MT], const long *sub, const double *s, unsigned rot, double iters)
{
    (void)iters;
    pass2 *q = u;
    if (q->oom) return;
    if (q->n == q->cap) {
        long nc = q->cap ? q->cap * 2 : 256;
        leafrec *v = realloc(q->v, (size_t)nc * sizeof *v);
        if (!v) {
            q->oom = 1;
            return;
        }
        q->v = v;
        q->cap = nc;
    }
    leafrec *r = &q->v[q->n++];
    memcpy(r->tm, tm, sizeof r->tm);
    memcpy(r->sub, sub, sizeof r->sub);
    memcpy(r->s, s, sizeof r->s);
    bytes_rot(&q->a->t, s, rot, &r->hot, &r->cold);
}

/* A compatible (cold plan, front plan) pair. */
typedef struct {
    double cold, hot, time;
    long sp, ploc;
    int hrank;  /* the front plan's rank in the front */
    double warm_bytes;
    int msum, mmax;
} pair;

static int cmp_pair(const void *pa, const void *pb)
{
    const pair *a = pa, *b = pb;
    if (a->cold != b->cold) return a->cold < b->cold ? -1 : 1;
    if (a->hot != b->hot) return a->hot < b->hot ? -1 : 1;
    if (a->time != b->time) return a->time < b->time ? -1 : 1;
    if (a->sp != b->sp) return a->sp < b->sp ? -1 : 1;
    if (a->ploc != b->ploc) return a->ploc < b->ploc ? -1 : 1;
    return a->hrank - b->hrank;
}

static int cmp_opt(const void *pa, const void *pb)
{
    const elk_cold_opt *a = pa, *b = pb;
    if (a->cold != b->cold) return a->cold < b->cold ? -1 : 1;
    return (a->dist_bytes > b->dist_bytes) - (a->dist_bytes < b->dist_bytes);
}

/* is_cold_hot_plan_compatible (same spatial plan given) and
 * get_warm_up_time: m_v, the product over dims of cold/hot slices, counts
 * when above 1; the warm-up shifts m_v cold slices of every input and
 * syncs sum(m_v) times. */
static int compatible(const tctx *x, const leafrec *P, const leafrec *H, double *wb, int *msum, int *mmax)
{
    if (P->cold > H->hot) return 0;
    double dt = x->op->dtype_bytes, w = 0;
    *msum = 0;
    *mmax = 1;
    for (int v = 0; v < x->nt; v++) {
        long m = 1;
        for (int d = 0; d < x->nd; d++) {
            int h = H->tm[d][v], c = P->tm[d][v];
            if (h > c || c % h) return 0;
            m *= c / h;
        }
        if (m <= 1) continue;
        *msum += (int)m;
        if (m > *mmax) *mmax = (int)m;
        if (v > 0) w += (double)m * P->s[v];
    }
    *wb = w * dt;
    return 1;
}

/* ------------------------------------------------------------------ */

/* The growing list of compatible pairs. Owns v. */
typedef struct {
    pair *v;
    long n, cap;
} pairs_t;

static int pairs_push(pairs_t *pv, pair p)
{
    if (pv->n == pv->cap) {
        long nc = pv->cap ? pv->cap * 2 : 256;
        pair *v = realloc(pv->v, (size_t)nc * sizeof *v);
        if (!v) return -1;
        pv->v = v;
        pv->cap = nc;
    }
    pv->v[pv->n++] = p;
    return 0;
}

static void actx_init(actx *a, const elk_chip *c, const elk_op *op, double sram_bytes)
{
    a->c = c;
    a->op = op;
    a->sram = sram_bytes;
    /* ranked at the artifact's fixed exchange rate, so that a cached set does
     * not depend on the bandwidth it was first built at */
    a->cpb = c->cost.xchg_cycles_per_byte;
    a->xf = elk_chip_xfactor(c);
    elk_cost_unfused(c, op, &a->unf_comp, &a->unf_syncs, &a->unf_bytes);
    a->mono = elk_cost_split_monotone(c, op);
    long one[MD];
    for (int d = 0; d < MD; d++) one[d] = 1;
    a->comp_1 = a->mono ? elk_cost_compute(c, op, one) / c->compute_scale : 0;
    for (int v = 0; v < op->ntensors; v++) {
        a->axm[v] = 0;
        for (int d = 0; d < op->ndims; d++)
            if (in_axes(&op->t[v], d)) a->axm[v] |= 1u << d;
    }
    a->t.dm = &a->dm;
    unsigned prof = c->profile;
    a->rotsync = (prof >> ELK_PSW_ROTSYNC) & 1u;
    a->gather = (prof >> ELK_PSW_GATHER) & 1u;
    a->relayout = (prof >> ELK_PSW_RELAYOUT) & 1u;
    a->elemout = op->kind == ELK_OP_ELEMWISE || op->kind == ELK_OP_UNARY;
    a->kx = a->xf * a->cpb * op->dtype_bytes;
    a->ks = a->xf * c->sync_cycles;
    a->base_x = a->unf_comp / c->compute_scale + a->xf * (a->cpb * a->unf_bytes + c->sync_cycles * a->unf_syncs);
    a->t.op = op;
    a->t.nd = op->ndims;
    a->t.nt = op->ntensors;
    a->t.sortbug = 1;
    double util;
    thresholds(op, c->cores, &util, &a->t.pad);
}

/* Free what actx_init and the walks allocated, and a itself (calloc'd). */
static void actx_free(actx *a)
{
    tctx_free(&a->t);
    divmemo_free(&a->dm);
    free(a->bc);
    free(a);
}

/* Why pass 1 found no plan: none fits SRAM, or none meets the thresholds. */
static elk_status no_plan(const pass1 *q, const elk_chip *c, const elk_op *op, double sram_bytes, elk_error *err)
{
    if (isfinite(q->min_hot))
        return elk_fail(err, ELK_ENOPLAN,
                        "operator %s fits no partition plan in %.1f KiB of usable SRAM per core: its smallest plan "
                        "needs %.1f KiB per core (%s over %d cores)",
                        op->name, sram_bytes / 1024.0, q->min_hot / 1024.0, elk_op_kind_names[op->kind], c->cores);
    return elk_fail(err, ELK_ENOPLAN,
                    "operator %s has no partition plan on %d cores that meets the utilisation and padding "
                    "thresholds (%s, %.1f KiB of data in all)",
                    op->name, c->cores, elk_op_kind_names[op->kind],
                    (op->hbm_bytes + elk_op_tensor_elems(op, 0) * op->dtype_bytes) / 1024.0);
}

/* The front, in place over pass 1's improvers: sorted by hot (stably, in
 * insertion order), kept while the time falls strictly; several plans of
 * one hot size can survive. Returns its length. */
static int front_sweep(pass1 *q)
{
    improver *K = q->imp;
    qsort(K, (size_t)q->nimp, sizeof *K, cmp_imp);
    int nk = 0;
    double last = INFINITY;
    for (long i = 0; i < q->nimp; i++)
        if (i == 0 || K[i].exe < last) {
            last = K[i].exe;
            K[nk++] = K[i];
        }
    return nk;
}

/* The spatial plans of the front, each once, in enumeration order. */
static int front_spatials(const improver *K, int nk, long *sps)
{
    int ns = 0;
    for (int i = 0; i < nk; i++) {
        int seen = 0;
        for (int j = 0; j < ns; j++) seen |= sps[j] == K[i].sp;
        if (!seen) sps[ns++] = K[i].sp;
    }
    for (int i = 1; i < ns; i++)
        for (int j = i; j > 0 && sps[j] < sps[j - 1]; j--) {
            long t = sps[j];
            sps[j] = sps[j - 1];
            sps[j - 1] = t;
        }
    return ns;
}

/* Pass 2 over spatial plan sp: every front plan of it becomes set->plans[i]
 * (kcold[i] its own cold bytes), and every plan of it that fits as a cold
 * layout of one of them a pair. r's leaf is p2_leaf. */
static elk_status pair_spatial(actx *a, pass2 *r, const improver *K, int nk, long sp, elk_plan_set *set,
                               double *kcold, pairs_t *pv, elk_error *err)
{
    int h0 = -1;
    for (int i = 0; i < nk && h0 < 0; i++)
        if (K[i].sp == sp) h0 = i;
    memcpy(a->s.p, K[h0].p, sizeof a->s.p);
    r->n = 0;
    if (temporal_run(&a->t, a->s.D, K[h0].p) || r->oom)
        return elk_fail(err, ELK_ENOMEM, "out of memory enumerating plans of %s", a->op->name);
    for (int i = 0; i < nk; i++) {
        if (K[i].sp != sp) continue;
        const leafrec *H = NULL;
        for (long j = 0; j < r->n && !H; j++)
            if (!memcmp(r->v[j].tm, K[i].tm, sizeof K[i].tm)) H = &r->v[j];
        assert(H); /* pass 2 visits every plan of the spatial plan */
        assert(H->hot == K[i].hot);
        kcold[i] = H->cold;
        double exe = evaluate(a, (int(*)[MT])H->tm, H->sub, H->s, H->hot, -1, &set->plans[i]);
        assert(exe == K[i].exe); /* pass 1's time, recomputed */
        (void)exe;
        for (long j = 0; j < r->n; j++) {
            const leafrec *P = &r->v[j];
            double wb;
            int msum, mmax;
            if (P->cold > a->sram || !compatible(&a->t, P, H, &wb, &msum, &mmax)) continue;
            double warm = wb * a->cpb + msum * a->c->sync_cycles;
            if (pairs_push(pv, (pair){P->cold, H->hot, K[i].exe + warm, sp, j, i, wb, msum, mmax}))
                return elk_fail(err, ELK_ENOMEM, "out of memory");
        }
    }
    return ELK_OK;
}

/* The table: per (cold, hot size), the pair of least time; each entry
 * becomes a preload option of the front plan it pairs with. */
static elk_status table_opts(const elk_chip *c, pairs_t *pv, int nk, const double *kcold, elk_plan_set *set,
                             elk_error *err)
{
    pair *v = pv->v;
    qsort(v, (size_t)pv->n, sizeof *v, cmp_pair);
    long nwin = 0;
    for (long i = 0; i < pv->n; i++)
        if (i == 0 || v[i].cold != v[nwin - 1].cold || v[i].hot != v[nwin - 1].hot) v[nwin++] = v[i];
    set->opts = calloc((size_t)(nwin + nk), sizeof *set->opts);
    if (!set->opts) return elk_fail(err, ELK_ENOMEM, "out of memory");
    for (int i = 0; i < nk; i++) {
        elk_plan *pl = &set->plans[i];
        pl->opt0 = set->nopts;
        for (long w = 0; w < nwin; w++) {
            if (v[w].hrank != i) continue;
            double wb = v[w].warm_bytes;
            set->opts[set->nopts++] =
                (elk_cold_opt){v[w].cold, wb, (double)v[w].mmax, v[w].cold * c->cores, v[w].msum, wb};
        }
        pl->nopt = set->nopts - pl->opt0;
        if (pl->nopt == 0) {
            /* every pair of its hot size went to another plan of that size
             * (the front's duplicate sizes): it keeps its own layout, the
             * pair (H, H) of no warm-up the table passed over */
            set->opts[set->nopts++] = (elk_cold_opt){kcold[i], 0, 1, kcold[i] * c->cores, 0, 0};
            pl->nopt = 1;
        }
        qsort(set->opts + pl->opt0, (size_t)pl->nopt, sizeof *set->opts, cmp_opt);
    }
    return ELK_OK;
}

static void p1_init(pass1 *q, actx *a, const elk_plan_opts *o)
{
    memset(q, 0, sizeof *q);
    q->a = a;
    q->cb = o->all_cb;
    q->ctx = o->ctx;
    q->exhaustive = o->all_cb || o->exhaustive;
    q->min_hot = INFINITY;
    q->cancel = o->cancel;
    for (int d = 0; d <= MD; d++) q->ox_sp[d] = -1; /* no spatial plan's key (p1_sp_key >= 0) */
    a->t.leaf = p1_leaf;
    a->t.cut = p1_cut;
    a->t.u = q;
}

/* Seeds for q's walk (pass1.sd_hot), before it starts: the staircase of a
 * walk of the coarse space, which is a subset of this one, so each of its
 * points is a plan here with the same time, and the cuts bite from the
 * first spatial plans instead of once the staircase has filled (a perfect
 * staircase from the start halves the walk of Fig. 24's operators; the
 * coarse walk is a fraction of the full one's). On fewer cores than
 * ART_SEED_CORES the coarse space is most of the full one and is not
 * walked. The front is the same with seeds or without (tests/test_plan.c,
 * tests/test_plan_art.c); set->seeded counts the coarse walk's plans.
 * Without memory, no seeds. */
static void p1_seed(pass1 *q, const elk_chip *c, const elk_op *op, double sram_bytes, const elk_plan_opts *o)
{
    if (getenv("ELK_NOSEED")) return; /* A/B benchmarks (docs/PERFORMANCE.md): the same sets, unseeded */
    actx *ca = calloc(1, sizeof *ca);
    if (!ca) return;
    actx_init(ca, c, op, sram_bytes);
    pass1 qc;
    p1_init(&qc, ca, o);
    spatial_run(&ca->s, op, c->cores, 1, 0, 1, p1_spatial, &qc);
    q->sd_seq = qc.seq;
    if (qc.cancelled) q->cancelled = 1;
    if (!qc.oom && !ca->t.oom && !qc.cancelled && qc.nst > 0) {
        q->sd_hot = qc.st_hot;
        q->sd_exe = qc.st_exe;
        q->nsd = qc.nst;
        qc.st_hot = qc.st_exe = NULL;
    }
    free(qc.st_hot);
    free(qc.st_exe);
    free(qc.imp);
    actx_free(ca);
}

/* Pass 1 on threads for big enumerations (a million cores is seconds per
 * weight matmul on one core, 5,888 cores milliseconds), never when all_cb
 * must see the plans in order. Each thread keeps its own staircase over
 * its own share: a plan it records is one no earlier plan of its share
 * beats, so every plan of the front (which no earlier plan at all beats)
 * is recorded by its thread, and what else is recorded is beaten in the
 * (hot, spatial plan, seq) order front_sweep sorts by, so the front does
 * not depend on the split. The counts (enumerated, bounded) do. */
#define ART_THREADS_MAX 4
#define ART_SEED_CORES 1024
#define ART_THREADS_CORES 65536

typedef struct {
    actx *a; /* owned */
    pass1 q;
    int tid, nthr, coarse;
} p1_worker;

static void *p1_thread(void *arg)
{
    p1_worker *w = arg;
    spatial_run(&w->a->s, w->a->op, w->a->c->cores, w->coarse, w->tid, w->nthr, p1_spatial, &w->q);
    free(w->q.st_hot);
    free(w->q.st_exe);
    w->q.st_hot = w->q.st_exe = NULL;
    return NULL;
}

static int art_threads(const elk_chip *c, const elk_op *op, const pass1 *q)
{
    if (q->exhaustive || op->ndims < 2 || c->cores < ART_THREADS_CORES) return 1;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 2 ? 1 : n > ART_THREADS_MAX ? ART_THREADS_MAX : (int)n;
}

/* Move x's records into q (x keeps nothing). */
static void p1_merge(pass1 *q, pass1 *x)
{
    if (!q->oom && x->nimp) {
        if (q->nimp + x->nimp > q->cimp) {
            long nc = q->nimp + x->nimp;
            improver *v = realloc(q->imp, (size_t)nc * sizeof *v);
            if (!v) q->oom = 1;
            else {
                q->imp = v;
                q->cimp = nc;
            }
        }
        if (!q->oom) {
            memcpy(q->imp + q->nimp, x->imp, (size_t)x->nimp * sizeof *x->imp);
            q->nimp += x->nimp;
        }
    }
    free(x->imp);
    x->imp = NULL;
    x->nimp = 0;
    q->seq += x->seq;
    q->bounded += x->bounded;
    q->nsp += x->nsp;
    if (x->min_hot < q->min_hot) q->min_hot = x->min_hot;
    q->oom |= x->oom;
    q->cancelled |= x->cancelled;
}

elk_status elk_plan_art_enumerate(const elk_chip *c, const elk_op *op, double sram_bytes, elk_plan_set *set,
                                  const elk_plan_opts *o, elk_error *err)
{
    static const elk_plan_opts defaults = {0};
    if (!o) o = &defaults;
    memset(set, 0, sizeof *set);
    actx *a = calloc(1, sizeof *a);
    if (!a) return elk_fail(err, ELK_ENOMEM, "out of memory");
    actx_init(a, c, op, sram_bytes);

    pass1 q;
    p1_init(&q, a, o);
    int coarse = o->coarse && !q.exhaustive;
    int nthr = art_threads(c, op, &q);
    /* one walk (threads would each need the seeds first: at 65,536 cores
     * and more the shares are walked unseeded) */
    if (nthr == 1 && !coarse && !q.exhaustive && c->cores >= ART_SEED_CORES) p1_seed(&q, c, op, sram_bytes, o);
    p1_worker w[ART_THREADS_MAX];
    pthread_t th[ART_THREADS_MAX];
    int started[ART_THREADS_MAX] = {0};
    for (int k = 1; k < nthr; k++) {
        w[k].a = calloc(1, sizeof *w[k].a);
        if (!w[k].a) continue; /* its share falls to this thread */
        actx_init(w[k].a, c, op, sram_bytes);
        p1_init(&w[k].q, w[k].a, o);
        w[k].tid = k;
        w[k].nthr = nthr;
        w[k].coarse = coarse;
        started[k] = elk_thread_start(&th[k], p1_thread, &w[k]) == 0;
    }
    spatial_run(&a->s, op, c->cores, coarse, 0, nthr, p1_spatial, &q);
    long spatial = a->s.spatial;
    for (int k = 1; k < nthr; k++) {
        if (!started[k]) {
            if (!w[k].a) {
                spatial_run(&a->s, op, c->cores, coarse, k, nthr, p1_spatial, &q);
                spatial += a->s.spatial;
                continue;
            }
            p1_thread(&w[k]);
        } else {
            pthread_join(th[k], NULL);
        }
        p1_merge(&q, &w[k].q);
        spatial += w[k].a->s.spatial;
        q.oom |= w[k].a->t.oom;
        actx_free(w[k].a);
    }
    free(q.st_hot);
    free(q.st_exe);
    free(q.sd_hot);
    free(q.sd_exe);
    elk_status st = ELK_OK;
    pass2 r = {.a = a};
    pairs_t pv = {0};
    double *kcold = NULL;
    long *sps = NULL;
    int nk = 0;
    if (q.cancelled) st = elk_fail(err, ELK_ECANCEL, "cancelled");
    else if (q.oom || a->t.oom) st = elk_fail(err, ELK_ENOMEM, "out of memory enumerating plans of %s", op->name);
    else if (q.nimp == 0) st = no_plan(&q, c, op, sram_bytes, err);
    if (st != ELK_OK) goto done;
    set->enumerated = q.seq;
    set->seeded = q.sd_seq;
    set->bounded = q.bounded;
    set->spatial = spatial;
    set->hbm_bytes = op->hbm_bytes;
    nk = front_sweep(&q);
    set->plans = calloc((size_t)nk, sizeof *set->plans);
    kcold = malloc((size_t)nk * sizeof *kcold);
    sps = malloc((size_t)nk * sizeof *sps);
    if (!set->plans || !kcold || !sps) {
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
        goto done;
    }
    set->nplans = nk;
    int ns = front_spatials(q.imp, nk, sps);
    a->t.leaf = p2_leaf;
    a->t.cut = NULL;
    a->t.u = &r;
    for (int si = 0; si < ns && st == ELK_OK; si++) st = pair_spatial(a, &r, q.imp, nk, sps[si], set, kcold, &pv, err);
    if (st == ELK_OK) st = table_opts(c, &pv, nk, kcold, set, err);
#ifndef NDEBUG
    for (int i = 1; st == ELK_OK && i < nk; i++) assert(set->plans[i].hot >= set->plans[i - 1].hot); /* sorted by hot */
#endif

done:
    free(sps);
    free(kcold);
    free(pv.v);
    free(r.v);
    free(q.imp);
    actx_free(a);
    if (st != ELK_OK) elk_plan_set_free(set);
    return st;
}

double elk_plan_art_static_floor(const elk_menu *menus, int n)
{
    double lo = 0;
    for (int k = 0; k < n; k++) {
        const elk_menu *m = &menus[k];
        double h = INFINITY;
        for (int e = 0; e < m->n && !isfinite(h); e++)
            for (int j = 0; j < m->e[e].nc; j++)
                if (m->cold[m->e[e].c0 + j].cold == m->min_cold) h = m->e[e].hot;
        if (!isfinite(h) && m->n) h = m->e[0].hot;
        if (isfinite(h)) lo = fmax(lo, h);
    }
    return ceil(lo / 1024.0) * 1024.0;
}

int elk_plan_art_pick_split(const elk_op *op, const elk_split *opt, int n)
{
    int big = 0;
    for (int d = 1; d < op->ndims; d++)
        if (op->dim[d] > op->dim[big]) big = d;
    int best = -1;
    for (int k = 0; k < n; k++)
        if (opt[k].pieces == 1) return k; /* it fits whole */
    for (int k = 0; k < n; k++)
        if (opt[k].dim == big && opt[k].pieces > 1 && opt[k].fits && (best < 0 || opt[k].pieces < opt[best].pieces))
            best = k;
    return best;
}

/* ------------------------------------------------------------------ */

/* elk_plan_art_temporal's sink: the first max matrices, n counts all. */
typedef struct {
    int *out;
    long max, n;
} collect;

static void collect_leaf(void *u, int tm[MD][MT], const long *sub, const double *s, unsigned rot, double iters)
{
    (void)sub;
    (void)s;
    (void)rot;
    (void)iters;
    collect *k = u;
    if (k->n < k->max) memcpy(k->out + k->n * MD * MT, tm, sizeof(int) * MD * MT);
    k->n++;
}

long elk_plan_art_temporal(const elk_op *op, int cores, const int *p, int sortbug, int *out, long max)
{
    sctx s;
    memset(&s, 0, sizeof s);
    s.nd = op->ndims;
    s.cores = cores;
    thresholds(op, cores, &s.util, &s.pad);
    for (int d = 0; d < s.nd; d++) {
        s.D[d] = op->dim[d];
        s.p[d] = p[d];
        if (p[d] < 1 || p[d] > op->dim[d]) return -1;
    }
    if (!spatial_ok(&s)) return -1;
    tctx t;
    memset(&t, 0, sizeof t);
    t.op = op;
    t.nd = op->ndims;
    t.nt = op->ntensors;
    t.pad = s.pad;
    t.sortbug = sortbug;
    collect k = {out, max, 0};
    t.leaf = collect_leaf;
    t.u = &k;
    int rc = temporal_run(&t, s.D, p);
    tctx_free(&t);
    return rc ? -1 : k.n;
}

int elk_plan_art_pair(const elk_op *op, const int *p, const int *cold_tm, const int *hot_tm, double *warm_bytes,
                      int *syncs)
{
    tctx t;
    memset(&t, 0, sizeof t);
    t.op = op;
    t.nd = op->ndims;
    t.nt = op->ntensors;
    for (int d = 0; d < t.nd; d++) t.sl[d] = (op->dim[d] + p[d] - 1) / p[d];
    leafrec P, H;
    memset(&P, 0, sizeof P);
    memset(&H, 0, sizeof H);
    for (int d = 0; d < t.nd; d++)
        for (int v = 0; v < t.nt; v++) {
            P.tm[d][v] = cold_tm[d * MT + v];
            H.tm[d][v] = hot_tm[d * MT + v];
        }
    slices(&t, P.tm, P.s);
    slices(&t, H.tm, H.s);
    bytes_of(&t, P.tm, P.s, &P.hot, &P.cold);
    bytes_of(&t, H.tm, H.s, &H.hot, &H.cold);
    int mmax;
    *warm_bytes = 0;
    *syncs = 0;
    return compatible(&t, &P, &H, warm_bytes, syncs, &mmax);
}

elk_status elk_plan_art_set(const elk_chip *c, const elk_op *op, double sram_bytes, elk_plan_set *set,
                            const elk_plan_opts *o, elk_error *err)
{
    if (!(c->profile & (1u << ELK_PSW_PLANTABLES))) return elk_plan_enumerate(c, op, sram_bytes, set, o, err);
    static const elk_plan_opts defaults = {0};
    if (!o) o = &defaults;
    int coarse = o->coarse && !o->all_cb && !o->exhaustive;
    elk_status st = elk_plan_art_enumerate(c, op, sram_bytes, set, o, err);
    if (st == ELK_ENOPLAN && coarse) {
        elk_plan_opts full = *o;
        full.coarse = 0;
        st = elk_plan_art_enumerate(c, op, sram_bytes, set, &full, err);
    }
    return st;
}
