#include "elk_tree.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One tile shape's loads on one plane (per unit of bytes per tile). */
struct elk_tree_geom {
    int k, tr, tc, plane, n;
    int flat; /* the tile shape's routes (elk_tree_flat) */
    elk_use *u;
};

/* One cached template and its key. */
struct elk_tree_tmpl {
    int k, plane, tmpl;
    double r, cap;
};

void elk_tree_tile(int R, int C, double g, int *tr, int *tc)
{
    long n = (long)llround(g);
    if (n < 1) n = 1;
    if (n >= (long)R * C) {
        *tr = R;
        *tc = C;
        return;
    }
    long best_r = -1, best_c = -1;
    double best = INFINITY;
    for (long a = 1; a <= R && a <= n; a++) {
        if (n % a) continue;
        long b = n / a;
        if (b > C) continue;
        double s = fabs(log((double)a / (double)b));
        if (s < best) {
            best = s;
            best_r = a;
            best_c = b;
        }
    }
    if (best_r < 0) {
        best_c = n < C ? n : C;
        best_r = (n + best_c - 1) / best_c;
        if (best_r > R) best_r = R;
    }
    *tr = (int)best_r;
    *tc = (int)best_c;
}

/* Signed hops from a to b on a line of n routers: the shorter way round a
 * ring (at a tie forwards when tie > 0, else backwards), or force's way
 * (+1 / -1) when it is set; the only way on a line. */
static int hops(int a, int b, int n, int wrap, int tie, int force)
{
    int d = b - a;
    if (wrap && n > 1) {
        int fw = ((d % n) + n) % n;
        if (fw == 0) return 0;
        if (force) return force > 0 ? fw : -(n - fw);
        if (fw == n - fw) return tie > 0 ? fw : -fw;
        return fw < n - fw ? fw : -(n - fw);
    }
    return d;
}

/* The way round a tree takes to the members lo..hi of a ring from from:
 * the way of their centre for a tile shorter than half the ring that does
 * not hold from, else 0 (each member the shorter way). */
static int tree_way(int from, int lo, int hi, int n, int wrap, int tie)
{
    if (!wrap || n < 2 || 2 * (hi - lo + 1) >= n || (from >= lo && from <= hi)) return 0;
    int s = hops(from, (lo + hi) / 2, n, wrap, tie, 0);
    return s > 0 ? 1 : s < 0 ? -1 : 0;
}

#ifndef NDEBUG
/* reach by visiting every member: what the closed form below must give */
static void reach_members(int s, int lo, int hi, int n, int wrap, int tie, int force, int *f, int *b)
{
    *f = *b = 0;
    for (int v = lo; v <= hi; v++) {
        int h = hops(s, v, n, wrap, tie, force);
        if (h > *f) *f = h;
        if (-h > *b) *b = -h;
    }
}
#endif

/* The farthest member lo..hi reached forwards (*f hops) and backwards (*b)
 * from s: a tree's leg along the line is the union of its members' routes,
 * which all start at s. On a ring the members' forward distances are one
 * or two runs (two when s lies among them); a member goes forwards when
 * its distance is below half the ring (at half, by tie) unless force says
 * which way all go. In closed form: a wafer-long ring has 850,000 members
 * per broadcast and one run per tile. */
static void reach(int s, int lo, int hi, int n, int wrap, int tie, int force, int *f, int *b)
{
    *f = *b = 0;
    if (!wrap || n < 2) {
        *f = hi > s ? hi - s : 0;
        *b = lo < s ? s - lo : 0;
        return;
    }
    int p[2], q[2], m = 0;
    if (s < lo) p[m] = lo - s, q[m++] = hi - s;
    else if (s > hi) p[m] = lo - s + n, q[m++] = hi - s + n;
    else {
        if (hi > s) p[m] = 1, q[m++] = hi - s;
        if (lo < s) p[m] = lo - s + n, q[m++] = n - 1;
    }
    /* forward distances up to fl go forwards, from bl on backwards */
    int fl = force > 0 ? n - 1 : force < 0 ? 0 : n % 2 == 0 && tie > 0 ? n / 2 : (n - 1) / 2;
    int bl = force < 0 ? 1 : force > 0 ? n : n % 2 == 0 && tie <= 0 ? n / 2 : n / 2 + 1;
    for (int i = 0; i < m; i++) {
        if (p[i] <= fl && (q[i] < fl ? q[i] : fl) > *f) *f = q[i] < fl ? q[i] : fl;
        if (q[i] >= bl && n - (p[i] > bl ? p[i] : bl) > *b) *b = n - (p[i] > bl ? p[i] : bl);
    }
#ifndef NDEBUG
    int f2, b2;
    reach_members(s, lo, hi, n, wrap, tie, force, &f2, &b2);
    assert(f2 == *f && b2 == *b);
#endif
}

/* Difference arrays of the links leaving each router in one direction,
 * along every line (rows for E and W, columns for S and N), stored by
 * position along the line first: d[v * nlines + a] for position v of line
 * a. The trees visit their tiles in order along one line and then the
 * next, and in this layout consecutive tiles' second legs (and the runs of
 * tiles one router serves, whose first legs share their start) write
 * neighbouring entries; by line first, a 1000-column wafer missed the
 * cache on nearly every leg. */
typedef struct {
    int nlines, len;
    double *d; /* (len + 1) x nlines */
} dir_load;

/* amt on the t links leaving routers s, s + 1, .. (fwd) or s, s - 1, ..
 * of each line a0..a1-1, wrapping round a line of len routers. */
static void run_add(dir_load *L, int a0, int a1, int s, int fwd, int t, double amt)
{
    if (t <= 0 || a1 <= a0) return;
    int n = L->len;
    assert(t < n || n == 1);
    int lo[3], hi[3], m = 0;
    int l0 = fwd ? s : s - t + 1, h0 = fwd ? s + t - 1 : s;
    if (l0 < 0) lo[m] = l0 + n, hi[m++] = n - 1, l0 = 0;
    if (h0 >= n) lo[m] = 0, hi[m++] = h0 - n, h0 = n - 1;
    lo[m] = l0, hi[m++] = h0;
    size_t w = (size_t)L->nlines;
    for (int i = 0; i < m; i++) {
        double *p = L->d + (size_t)lo[i] * w, *q = L->d + (size_t)(hi[i] + 1) * w;
        for (int a = a0; a < a1; a++) {
            p[a] += amt;
            q[a] -= amt;
        }
    }
}

/* The routers through which controller k serves its destinations, walked
 * in key order: elk_noc.c's entry_idx gives the destination of key
 * (y C + x when the controller's routers run down a column, else x R + y)
 * router key n / (R C) of its n, so every router serves a run of keys.
 * Tiles are visited in that order, so the walk divides once per router. */
typedef struct {
    const elk_noc *nc;
    int k, n, idx;
    long RC, next; /* the first key of router idx + 1 */
    int ey, ex;    /* router idx */
} entry_walk;

static void walk_set(entry_walk *w)
{
    int e = w->nc->att[w->nc->att0[w->k] + w->idx];
    w->ey = e / w->nc->C;
    w->ex = e % w->nc->C;
}

static void walk_start(entry_walk *w, const elk_noc *nc, int k)
{
    *w = (entry_walk){nc, k, nc->natt[k], 0, (long)nc->R * nc->C, 0, 0, 0};
    w->next = w->n > 1 ? (w->RC + w->n - 1) / w->n : w->RC;
    walk_set(w);
}

/* Move to the router serving core (y, x); keys must not decrease between
 * calls. */
static void walk_to(entry_walk *w, int y, int x)
{
    const elk_noc *nc = w->nc;
    if (w->n < 2) return;
    long key = nc->att_vert[w->k] ? (long)y * nc->C + x : (long)x * nc->R + y;
    if (w->idx == w->n - 1 || key < w->next) return;
    while (w->idx < w->n - 1 && key >= w->next) {
        w->idx++;
        /* the smallest key with key n / RC >= idx + 1 */
        w->next = ((long)(w->idx + 1) * w->RC + w->n - 1) / w->n;
    }
    assert(w->idx == (int)(key * w->n / w->RC < w->n - 1 ? key * w->n / w->RC : w->n - 1));
    walk_set(w);
}

#ifndef NDEBUG
/* The class the link leaving router (y, x) in direction d belongs to: the
 * bundle of its block in d, or its block's internal class when both ends
 * lie in one block; -1 for no link. rb, cb: each row's and column's block. */
static int link_class(const elk_noc *nc, int plane, const int *rb, const int *cb, int y, int x, int d)
{
    int R = nc->R, C = nc->C, y2 = y, x2 = x;
    switch (d) {
    case ELK_DIR_E: x2 = x + 1 < C ? x + 1 : nc->wrap ? 0 : -1; break;
    case ELK_DIR_W: x2 = x > 0 ? x - 1 : nc->wrap ? C - 1 : -1; break;
    case ELK_DIR_S: y2 = y + 1 < R ? y + 1 : nc->wrap ? 0 : -1; break;
    default: y2 = y > 0 ? y - 1 : nc->wrap ? R - 1 : -1; break;
    }
    if (x2 < 0 || y2 < 0 || (x2 == x && y2 == y)) return -1;
    int b = rb[y] * nc->nbc + cb[x], b2 = rb[y2] * nc->nbc + cb[x2];
    return b == b2 ? nc->lint[plane][b] : nc->lk[plane][d][b];
}
#endif

/* Controller q's trees to every tile, share of the bytes each (the detailed
 * mode's preload_grid and route_from). */
static void trees(const elk_noc *nc, int q, int tr, int tc, double share, dir_load *L)
{
    int R = nc->R, C = nc->C;
    /* a torus's routes go the shorter way unless they take the mesh's, half
     * each way at a tie when a ring is even */
    int wrap = nc->wrap && !nc->pre_flat;
    int halves = wrap && ((C > 1 && C % 2 == 0) || (R > 1 && R % 2 == 0)) ? 2 : 1;
    int nty = (R + tr - 1) / tr, ntx = (C + tc - 1) / tc;
    dir_load *E = &L[ELK_DIR_E], *W = &L[ELK_DIR_W], *S = &L[ELK_DIR_S], *N = &L[ELK_DIR_N];
    entry_walk ew;
    walk_start(&ew, nc, q);
    /* tiles in the key order of the controller's routers */
    int colmaj = nc->natt[q] > 1 && !nc->att_vert[q];
    for (int o = 0; o < (colmaj ? ntx : nty); o++)
        for (int i = 0; i < (colmaj ? nty : ntx); i++) {
            int ty = colmaj ? i : o, tx = colmaj ? o : i;
            int y0 = ty * tr, y1 = y0 + tr < R ? y0 + tr : R;
            int x0 = tx * tc, x1 = x0 + tc < C ? x0 + tc : C;
            /* the tile's bytes enter at the router serving its centre; X
             * first from a west or east router, else Y first */
            walk_to(&ew, (y0 + y1 - 1) / 2, (x0 + x1 - 1) / 2);
            int ey = ew.ey, ex = ew.ex;
            int yfirst = R > 1 && ex != 0 && ex != C - 1;
            int fx[2], bx[2], fy[2], by[2];
            for (int h = 0; h < halves; h++) {
                int tie = h ? -1 : 1;
                reach(ex, x0, x1 - 1, C, wrap, tie, tree_way(ex, x0, x1 - 1, C, wrap, tie), &fx[h], &bx[h]);
                reach(ey, y0, y1 - 1, R, wrap, tie, tree_way(ey, y0, y1 - 1, R, wrap, tie), &fy[h], &by[h]);
            }
            /* both half trees alike (no tie): one tree */
            int nh = halves == 2 && (fx[0] != fx[1] || bx[0] != bx[1] || fy[0] != fy[1] || by[0] != by[1]) ? 2 : 1;
            double amt = share / nh;
            for (int h = 0; h < nh; h++) {
                if (!yfirst) {
                    /* along row ey, then along each member column from row ey */
                    run_add(E, ey, ey + 1, ex, 1, fx[h], amt);
                    run_add(W, ey, ey + 1, ex, 0, bx[h], amt);
                    run_add(S, x0, x1, ey, 1, fy[h], amt);
                    run_add(N, x0, x1, ey, 0, by[h], amt);
                } else {
                    run_add(S, ex, ex + 1, ey, 1, fy[h], amt);
                    run_add(N, ex, ex + 1, ey, 0, by[h], amt);
                    run_add(E, y0, y1, ex, 1, fx[h], amt);
                    run_add(W, y0, y1, ex, 0, bx[h], amt);
                }
            }
        }
}

int elk_tree_loads(const elk_noc *nc, int k, int tr, int tc, int plane, elk_use *out)
{
    assert(nc->grid && tr >= 1 && tc >= 1 && tr <= nc->R && tc <= nc->C);
    int R = nc->R, C = nc->C, K = nc->nctrl, nl = elk_net_nlinks(nc->net);
    dir_load L[ELK_DIR_COUNT];
    int ok = 1;
    for (int d = 0; d < ELK_DIR_COUNT; d++) {
        int alongx = d == ELK_DIR_E || d == ELK_DIR_W;
        L[d] = (dir_load){alongx ? R : C, alongx ? C : R, NULL};
        L[d].d = calloc((size_t)L[d].nlines * (L[d].len + 1), sizeof *L[d].d);
        ok = ok && L[d].d;
    }
    double *cmax = calloc((size_t)nl, sizeof *cmax), *csum = calloc((size_t)nl, sizeof *csum);
    int *rb = malloc((size_t)R * sizeof *rb), *cb = malloc((size_t)C * sizeof *cb);
    double *run = malloc(((size_t)(R > C ? R : C) + 1) * sizeof *run);
    int n = -1;
    if (!ok || !cmax || !csum || !rb || !cb || !run) goto done;
    double share = k < 0 ? 1.0 / K : 1.0;
    for (int q = k < 0 ? 0 : k; q < (k < 0 ? K : k + 1); q++) trees(nc, q, tr, tc, share, L);
    for (int i = 0; i < nc->nbr; i++)
        for (int y = nc->br0[i]; y < nc->br0[i + 1]; y++) rb[y] = i;
    for (int j = 0; j < nc->nbc; j++)
        for (int x = nc->bc0[j]; x < nc->bc0[j + 1]; x++) cb[x] = j;
    /* Prefix sums along each line give each link's load; a load below this
     * is the difference arrays' rounding, not traffic: every tree carries
     * at least share / 2 on each of its links, and share >= 1 / 4096, while
     * the rounding grows with the sum of all K trees' shares, 1 (at 1400
     * controllers on a 32 x 46 mesh, 9.3e-13 was left off the mesh's edge
     * against a bound of 1e-9 x share = 7e-13: an assertion in Debug) */
    double eps = 1e-9;
    for (int d = 0; d < ELK_DIR_COUNT; d++) {
        const dir_load *D = &L[d];
        int alongx = d == ELK_DIR_E || d == ELK_DIR_W, fwd = d == ELK_DIR_E || d == ELK_DIR_S;
        const int *lb = alongx ? rb : cb, *pb = alongx ? cb : rb; /* blocks of lines, of positions */
        int nbl = alongx ? nc->nbc : 1, nbp = alongx ? 1 : nc->nbc; /* block index = line's x nbl + position's x nbp */
        memset(run, 0, (size_t)D->nlines * sizeof *run);
        for (int v = 0; v < D->len; v++) {
            /* the link leaving position v reaches v2: inside v's block, or
             * the bundle to the next block; none off a mesh's edge */
            int v2 = fwd ? (v + 1 < D->len ? v + 1 : nc->wrap ? 0 : -1) : (v > 0 ? v - 1 : nc->wrap ? D->len - 1 : -1);
            int inside = v2 >= 0 && pb[v2] == pb[v];
            const int *cls = inside ? nc->lint[plane] : nc->lk[plane][d];
            const double *p = D->d + (size_t)v * D->nlines;
            for (int a = 0; a < D->nlines; a++) {
                run[a] += p[a];
                if (run[a] <= eps) continue;
                int l = v2 >= 0 && v2 != v ? cls[lb[a] * nbl + pb[v] * nbp] : -1;
                assert(l >= 0 && l == link_class(nc, plane, rb, cb, alongx ? a : v, alongx ? v : a, d));
                if (l < 0) continue; /* the trees run on links that exist */
                if (run[a] > cmax[l]) cmax[l] = run[a];
                csum[l] += run[a];
            }
        }
    }
    n = 0;
    for (int l = 0; l < nl; l++)
        if (csum[l] > 0) out[n++] = (elk_use){l, cmax[l], csum[l]};
done:
    for (int d = 0; d < ELK_DIR_COUNT; d++) free(L[d].d);
    free(cmax);
    free(csum);
    free(rb);
    free(cb);
    free(run);
    return n;
}

int elk_tree_flat(const elk_noc *nc, int tr, int tc)
{
    if (!nc->grid || !nc->wrap) return nc->pre_flat;
    int nl = elk_net_nlinks(nc->net);
    elk_use *u = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *u);
    if (!u) return nc->pre_flat;
    elk_noc a = *nc; /* read only: elk_tree_loads writes nothing of it */
    double m[2] = {0, 0};
    for (int f = 0; f < 2; f++) {
        a.pre_flat = f;
        int n = elk_tree_loads(&a, -1, tr, tc, 0, u);
        if (n < 0) {
            free(u);
            return nc->pre_flat;
        }
        for (int i = 0; i < n; i++) m[f] = fmax(m[f], u[i].cmax);
    }
    free(u);
    return m[1] < m[0] * (1 - 1e-9);
}

void elk_tree_init(elk_tree *t) { memset(t, 0, sizeof *t); }

void elk_tree_free(elk_tree *t)
{
    for (int i = 0; i < t->ngeom; i++) free(t->geom[i].u);
    free(t->geom);
    free(t->tmpl);
    memset(t, 0, sizeof *t);
}

/* The loads for (k, tile, plane), computed once per network. */
static const struct elk_tree_geom *geom_get(elk_tree *t, const elk_noc *nc, int k, int tr, int tc, int plane)
{
    for (int i = 0; i < t->ngeom; i++) {
        const struct elk_tree_geom *g = &t->geom[i];
        if (g->k == k && g->tr == tr && g->tc == tc && g->plane == plane) return g;
    }
    if (t->ngeom == t->capgeom) {
        int cap = t->capgeom ? t->capgeom * 2 : 16;
        struct elk_tree_geom *ng = realloc(t->geom, (size_t)cap * sizeof *ng);
        if (!ng) return NULL;
        t->geom = ng;
        t->capgeom = cap;
    }
    elk_use *u = malloc((size_t)(elk_net_nlinks(nc->net) > 0 ? elk_net_nlinks(nc->net) : 1) * sizeof *u);
    if (!u) return NULL;
    elk_noc a = *nc;
    a.pre_flat = -1;
    for (int i = 0; i < t->ngeom && a.pre_flat < 0; i++) /* decided once per tile shape */
        if (t->geom[i].tr == tr && t->geom[i].tc == tc) a.pre_flat = t->geom[i].flat;
    if (a.pre_flat < 0) a.pre_flat = elk_tree_flat(nc, tr, tc);
    int n = elk_tree_loads(&a, k, tr, tc, plane, u);
    if (n < 0) {
        free(u);
        return NULL;
    }
    elk_use *fit = realloc(u, (size_t)(n ? n : 1) * sizeof *fit);
    struct elk_tree_geom *g = &t->geom[t->ngeom++];
    *g = (struct elk_tree_geom){k, tr, tc, plane, n, a.pre_flat, fit ? fit : u};
    return g;
}

int elk_tree_preload(elk_tree *t, elk_noc *nc, int k, double r, int plane, double cap)
{
    if (!nc->grid || k >= nc->nctrl) return -1;
    if (r < 1) r = 1;
    if (plane >= nc->planes) plane = 0;
    if (!(cap > 0)) cap = INFINITY;
    for (int i = t->ntmpl - 1; i >= 0; i--) {
        const struct elk_tree_tmpl *e = &t->tmpl[i];
        if (e->k == k && e->plane == plane && e->r == r && e->cap == cap) return e->tmpl;
    }
    if (t->ntmpl == t->captmpl) {
        int c = t->captmpl ? t->captmpl * 2 : 32;
        struct elk_tree_tmpl *ne = realloc(t->tmpl, (size_t)c * sizeof *ne);
        if (!ne) return -1;
        t->tmpl = ne;
        t->captmpl = c;
    }
    int R = nc->R, C = nc->C, tr, tc;
    elk_tree_tile(R, C, r, &tr, &tc);
    const struct elk_tree_geom *g = geom_get(t, nc, k, tr, tc, plane);
    if (!g) return -1;
    double cores = nc->chip.cores;
    /* unique bytes per tile per unit of rate (each core receives the rate) */
    double scale = (cores / r) / ((double)((R + tr - 1) / tr) * ((C + tc - 1) / tc));
    int K = nc->nctrl;
    /* as elk_noc_preload_capped: the whole preload weighs as much as one
     * execution transfer; each controller reads its share of the unique
     * bytes; every core's ingress port takes its bytes */
    elk_net_tmpl_begin(nc->net, ELK_XF_PRELOAD, k < 0 ? 1.0 : 1.0 / K, cores, 1.0 / r);
    for (int q = k < 0 ? 0 : k; q < (k < 0 ? K : k + 1); q++) {
        double h = cores / r / (k < 0 ? K : 1);
        elk_net_tmpl_add(nc->net, nc->hbm[q], h, h);
    }
    for (int b = 0; b < nc->ncell; b++) elk_net_tmpl_add(nc->net, nc->port_in[plane][b], 1, nc->cell_cores[b]);
    for (int i = 0; i < g->n; i++) elk_net_tmpl_add(nc->net, g->u[i].link, g->u[i].cmax * scale, g->u[i].csum * scale);
    if (k >= 0) { /* as elk_noc_preload_capped: the whole preload's bytes */
        const struct elk_tree_geom *ga = geom_get(t, nc, -1, tr, tc, plane);
        if (ga) elk_net_tmpl_norm(nc->net, elk_noc_preload_norm(nc, ga->u, ga->n, scale));
    }
    elk_net_tmpl_cap(nc->net, cap);
    int tm = elk_net_tmpl_end(nc->net);
    if (tm < 0) return -1;
    t->tmpl[t->ntmpl++] = (struct elk_tree_tmpl){k, plane, tm, r, cap};
    return tm;
}
