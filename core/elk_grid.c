/* Closed-form loads on the links of a mesh, torus or ring: the busiest
 * link of an HBM preload's routes (and of its multicast trees), an exchange
 * beside a preload as the event simulator shares links, and which routes a
 * torus's preloads take. Part of the network unit with elk_noc (which asks
 * it for the torus's routes) and elk_tree; the cost model prices preloads
 * and exchanges with it. */
#include "elk_grid.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elk_num.h"

#include "elk_noc.h"
#include "elk_tree.h"

/* ------------------------------------------------------------------ */
/* The busiest link of a grid's HBM preload                              */

/* Load accumulated on the directed links of one line of n routers (a row
 * or a column) as ramps: the forward link leaving router i (to i + 1) and
 * the backward one (to i - 1) carry c0[i] + c1[i] i once prefix-summed. */
typedef struct {
    int n, wrap;
    double *f0, *f1, *b0, *b1; /* n + 1 each: difference arrays */
} line_load;

/* Add A + B i on the links of absolute indices i0..i1 (i0 <= i1). */
static void ll_range(double *d0, double *d1, int i0, int i1, double a, double b)
{
    d0[i0] += a;
    d0[i1 + 1] -= a;
    d1[i0] += b;
    d1[i1 + 1] -= b;
}

/* Add alpha + beta t on the links t = t0..t1 hops from router s, forwards
 * (fwd) or backwards; on a ring t wraps round (t < n). */
static void ll_offsets(line_load *L, int s, int fwd, int t0, int t1, double alpha, double beta)
{
    if (t0 > t1) return;
    int n = L->n;
    /* a forward link at hop t is the one leaving router s + t; a backward
     * one leaves s - t; split where the indices wrap */
    for (int w = 0; w < 2; w++) {
        int lo, hi;
        if (fwd) {
            lo = s + t0 - w * n;
            hi = s + t1 - w * n;
        } else {
            lo = s - t1 + w * n;
            hi = s - t0 + w * n;
        }
        if (lo < 0) lo = 0;
        if (hi > n - 1) hi = n - 1;
        if (lo > hi) continue;
        /* fwd: t = i - s + w n; bwd: t = s - i + w n */
        if (fwd) ll_range(L->f0, L->f1, lo, hi, alpha + beta * (w * n - s), beta);
        else ll_range(L->b0, L->b1, lo, hi, alpha + beta * (s + w * n), -beta);
    }
}

/* Destinations u..v hops from the source one way (1 <= u <= v), amt each:
 * the link at hop t carries those beyond it, amt (v - max(t, u - 1)). */
static void ll_ramp(line_load *L, int s, int fwd, int u, int v, double amt)
{
    if (u > v) return;
    ll_offsets(L, s, fwd, 0, u - 1, amt * (v - u + 1), 0);
    ll_offsets(L, s, fwd, u, v - 1, amt * v, -amt);
}

/* Traffic from router s to every router lo..hi of the line, amt each, by
 * the shortest way round (half each way at a tie) on a ring, else the only
 * way. */
static void ll_leg(line_load *L, int s, int lo, int hi, double amt)
{
    int n = L->n;
    if (lo > hi || amt == 0) return;
    if (!L->wrap || n < 2) {
        int u = lo > s + 1 ? lo : s + 1;
        if (u <= hi) ll_ramp(L, s, 1, u - s, hi - s, amt);
        int v = hi < s - 1 ? hi : s - 1;
        if (lo <= v) ll_ramp(L, s, 0, s - v, s - lo, amt);
        return;
    }
    /* forward distances of lo..hi: one or two intervals of 0..n-1 */
    int p[2], q[2], m = 0;
    if (s < lo) p[m] = lo - s, q[m++] = hi - s;
    else if (s > hi) p[m] = lo - s + n, q[m++] = hi - s + n;
    else {
        p[m] = 0, q[m++] = hi - s;
        if (lo < s) p[m] = lo - s + n, q[m++] = n - 1;
    }
    int near = (n + 1) / 2 - 1; /* distances strictly below n / 2 */
    for (int k = 0; k < m; k++) {
        int u = p[k] > 1 ? p[k] : 1, v = q[k] < near ? q[k] : near;
        if (u <= v) ll_ramp(L, s, 1, u, v, amt);
        /* backward distances n - f for f = max(p, n - near) .. q */
        int fb = p[k] > n - near ? p[k] : n - near;
        if (fb <= q[k]) ll_ramp(L, s, 0, n - q[k], n - fb, amt);
        if (n % 2 == 0 && p[k] <= n / 2 && n / 2 <= q[k]) {
            ll_ramp(L, s, 1, n / 2, n / 2, amt / 2);
            ll_ramp(L, s, 0, n / 2, n / 2, amt / 2);
        }
    }
}

/* The busiest directed link of the line (its difference arrays kept). */
static double ll_max(const line_load *L)
{
    double m = 0, f0 = 0, f1 = 0, b0 = 0, b1 = 0;
    for (int i = 0; i < L->n; i++) {
        f0 += L->f0[i], f1 += L->f1[i], b0 += L->b0[i], b1 += L->b1[i];
        /* a mesh has no forward link out of its last router nor a backward
         * one out of its first, and nothing is routed onto them */
        m = elk_fmax(m, elk_fmax(f0 + f1 * i, b0 + b1 * i));
    }
    return m;
}

/* One entry router's part of the preload: the router (y, x), the
 * destinations it serves (keys k0..k1-1 in row-major order, or
 * column-major when colmaj) and the share of the unique bytes each of them
 * receives through it. X first from a west or east router, else Y first
 * (the simulator's rule, elk_noc.c route_from). */
typedef struct {
    int y, x, xfirst, colmaj;
    long k0, k1;
    double amt;
} entry_share;

/* The destinations in line j of the share: rows of column j (col = 1) or
 * columns of row j, as the interval lo..hi (empty when lo > hi). */
static void share_line(const entry_share *e, int R, int C, int col, int j, long *lo, long *hi)
{
    long k0 = e->k0, k1 = e->k1 - 1;
    /* the key of (y, x) is y C + x (row-major) or x R + y; in a line the
     * keys run in steps of C (R) across it, or of 1 along it */
    if (col != e->colmaj) {
        /* across: key = i * step + j, i = 0..len-1 */
        long step = col ? C : R, len = col ? R : C;
        *lo = k0 <= j ? 0 : (k0 - j + step - 1) / step;
        *hi = k1 < j ? -1 : (k1 - j) / step;
        if (*hi > len - 1) *hi = len - 1;
    } else {
        /* along: keys j * len .. j * len + len - 1 */
        long len = col ? R : C, base = (long)j * len;
        *lo = k0 > base ? k0 - base : 0;
        *hi = k1 < base + len - 1 ? k1 - base : len - 1;
    }
}

/* Lines j0..j1 of one orientation where a share's destinations are the
 * same interval lo..hi of each line (share_line is piecewise constant in
 * j: its ends move only where the key range starts and ends). */
typedef struct {
    int j0, j1;
    long lo, hi;
} line_group;

static int share_groups(const entry_share *e, int R, int C, int col, line_group *g)
{
    int nl = col ? C : R, len = col ? R : C, n = 0;
    if (col == e->colmaj) {
        /* along: the lines of the range's first and last keys, and those
         * between them whole */
        long ja = e->k0 / len, jb = (e->k1 - 1) / len;
        if (ja == jb) {
            g[n++] = (line_group){(int)ja, (int)ja, e->k0 - ja * len, e->k1 - 1 - ja * len};
            return n;
        }
        g[n++] = (line_group){(int)ja, (int)ja, e->k0 - ja * len, len - 1};
        if (jb > ja + 1) g[n++] = (line_group){(int)ja + 1, (int)jb - 1, 0, len - 1};
        g[n++] = (line_group){(int)jb, (int)jb, 0, e->k1 - 1 - jb * len};
        return n;
    }
    /* across: a line's interval changes only after the first key's line and
     * after the last key's */
    long a = e->k0 % nl, b = (e->k1 - 1) % nl + 1;
    long cut[4] = {0, a < b ? a : b, a < b ? b : a, nl};
    for (int k = 0; k < 3; k++) {
        if (cut[k + 1] <= cut[k]) continue;
        long lo, hi;
        share_line(e, R, C, col, (int)cut[k], &lo, &hi);
        if (hi >= lo) g[n++] = (line_group){(int)cut[k], (int)cut[k + 1] - 1, lo, hi};
    }
    return n;
}

/* One change to the load of lines line.. of an orientation: a leg from
 * src to lo..hi, amt per destination (negative where it stops). */
typedef struct {
    int line, src, lo, hi;
    double amt;
} line_event;

static int cmp_event(const void *a, const void *b)
{
    int x = ((const line_event *)a)->line, y = ((const line_event *)b)->line;
    return x < y ? -1 : x > y;
}

/* The largest fraction of a preload's unique bytes (striped over every
 * controller) on one directed link, with the controllers placed and routed
 * as the simulator does (elk_noc.c placement, entry_idx, route_from): every
 * link is summed over every entry router, so at r = 1 this is the busiest
 * link exactly, not an estimate of it. Rows are loaded by the first legs of
 * their own west and east routers and by the Y-first routers' second legs,
 * columns the other way round. For replica tiles of tr x tc cores the
 * second legs count tc (X first) or tr (Y first) times: an XY multicast
 * tree fans out into the tile's columns (rows) where it turns (the
 * simulator's trees; it also serves a tile from the router of its centre,
 * which concentrates more with few controllers, so this is a lower bound
 * on the load there). O(R C + P) for P entry routers. Returns 0 when out of
 * memory (the caller then leaves the entry out). */
static double grid_entry_busiest(const elk_chip *c, int tr, int tc)
{
    int R = c->mesh_rows, C = c->mesh_cols, K = c->hbm_controllers < 1 ? 1 : c->hbm_controllers;
    long RC = (long)R * C;
    int wrap = c->topology == ELK_TOPO_TORUS;
    /* the entry routers, as elk_noc.c's placement: per controller a
     * segment of routers, each serving the destinations in its part of the
     * key order */
    int P = 2 * (R + C) - 4, nsh = 0;
    int edges = !c->hbm_broadcast && c->hbm_placement == ELK_HBM_EDGES && R >= 2 && C >= 2;
    int west = !c->hbm_broadcast && c->hbm_placement == ELK_HBM_WEST && R >= 2 && C >= 2;
    int cap = edges ? (K > P ? K : P) + 1 : west ? (K > R ? K : R) + 1 : K + 1;
    entry_share *sh = calloc((size_t)cap, sizeof *sh);
    int *per = malloc((size_t)(P > 1 ? P : 1) * sizeof *per), *seg = malloc((size_t)(P > R ? P : R + 1) * sizeof *seg);
    double *buf = calloc((size_t)((R > C ? R : C) + 1) * 4, sizeof *buf);
    double best = 0, last = 0;
    line_event *ev = NULL;
    if (!sh || !per || !seg || !buf) goto done;
    double unit = 1.0 / ((double)K * RC); /* each destination's share of one controller */
    if (c->hbm_broadcast) {
        int e = R > 1 ? (R / 2) * C : 0;
        sh[nsh++] = (entry_share){e / C, e % C, 0, 0, 0, RC, 1.0 / RC};
    } else if (!edges && !west) {
        /* corners (a single row or column too): controller k at corner k mod 4 */
        int corners[4] = {0, C - 1, (R - 1) * C + C - 1, (R - 1) * C};
        for (int k = 0; k < K && k < 4; k++)
            sh[nsh++] = (entry_share){corners[k] / C, corners[k] % C, 0, 0, 0, RC, unit * ((K - k + 3) / 4)};
    } else {
        int n = 0;
        if (edges) {
            for (int x = 0; x < C; x++) per[n++] = x;
            for (int y = 1; y < R; y++) per[n++] = y * C + C - 1;
            for (int x = C - 2; x >= 0; x--) per[n++] = (R - 1) * C + x;
            for (int y = R - 2; y >= 1; y--) per[n++] = y * C;
        } else {
            for (int y = 0; y < R; y++) per[n++] = y * C;
        }
        for (int k = 0; k < K; k++) {
            int a = (int)((long)n * k / K), b = (int)((long)n * (k + 1) / K);
            if (b <= a) b = a + 1;
            if (a >= n) a = n - 1, b = n;
            int m = b - a, y0 = R, y1 = -1, x0 = C, x1 = -1;
            for (int i = 0; i < m; i++) {
                int r = per[a + i], y = r / C, x = r % C;
                seg[i] = r;
                y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1, x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
            }
            /* the segment's routers in key order: by row when it runs down
             * a column, else by column */
            int colmaj = !(y1 - y0 >= x1 - x0);
            for (int i = 1; i < m; i++)
                for (int j = i; j > 0; j--) {
                    int p = seg[j - 1], q = seg[j];
                    long kp = colmaj ? (long)(p % C) * R + p / C : p, kq = colmaj ? (long)(q % C) * R + q / C : q;
                    if (kp <= kq) break;
                    seg[j - 1] = q, seg[j] = p;
                }
            for (int i = 0; i < m; i++) {
                int r = seg[i];
                entry_share e = {r / C, r % C, 0, colmaj, (i * RC + m - 1) / m, ((i + 1) * RC + m - 1) / m, unit};
                if (m == 1) e.colmaj = 0, e.k0 = 0, e.k1 = RC;
                /* controllers alone on one router add up */
                if (m == 1 && nsh > 0 && sh[nsh - 1].k1 == RC && sh[nsh - 1].k0 == 0 && sh[nsh - 1].y == e.y &&
                    sh[nsh - 1].x == e.x)
                    sh[nsh - 1].amt += unit;
                else sh[nsh++] = e;
            }
        }
    }
    for (int i = 0; i < nsh; i++) sh[i].xfirst = !(R > 1 && sh[i].x != 0 && sh[i].x != C - 1);
    /* Every share's legs as events on lines, swept line by line: a row's
     * first legs are its X-first routers', a column's its Y-first routers';
     * the second legs run along the other orientation from where the first
     * leg met each line. A share loads a run of lines alike (share_groups),
     * so it starts and stops there once. */
    for (int col = 0; col < 2; col++) {
        int nl = col ? C : R, len = col ? R : C, nev = 0;
        ev = malloc((size_t)(nsh > 0 ? nsh : 1) * 12 * sizeof *ev);
        if (!ev) {
            best = 0;
            goto done;
        }
        for (int i = 0; i < nsh; i++) {
            const entry_share *e = &sh[i];
            line_group g[3];
            if (e->xfirst != col) {
                /* first leg along its own line to the perpendicular lines
                 * t0..t1, each holding hi - lo + 1 of its destinations */
                int ng = share_groups(e, R, C, !col, g), own = col ? e->x : e->y, src = col ? e->y : e->x;
                for (int k = 0; k < ng; k++) {
                    double amt = e->amt * (double)(g[k].hi - g[k].lo + 1);
                    ev[nev++] = (line_event){own, src, g[k].j0, g[k].j1, amt};
                    ev[nev++] = (line_event){own + 1, src, g[k].j0, g[k].j1, -amt};
                }
            } else {
                int ng = share_groups(e, R, C, col, g), src = col ? e->y : e->x;
                double amt = e->amt * (col ? tc : tr);
                for (int k = 0; k < ng; k++) {
                    ev[nev++] = (line_event){g[k].j0, src, (int)g[k].lo, (int)g[k].hi, amt};
                    ev[nev++] = (line_event){g[k].j1 + 1, src, (int)g[k].lo, (int)g[k].hi, -amt};
                }
            }
        }
        qsort(ev, (size_t)nev, sizeof *ev, cmp_event);
        memset(buf, 0, (size_t)(len + 1) * 4 * sizeof *buf);
        line_load L = {len, wrap, buf, buf + len + 1, buf + 2 * (len + 1), buf + 3 * (len + 1)};
        int q = 0;
        for (int j = 0; j < nl; j++) {
            int any = 0;
            for (; q < nev && ev[q].line <= j; q++) ll_leg(&L, ev[q].src, ev[q].lo, ev[q].hi, ev[q].amt), any = 1;
            /* a line no event changed carries what the last one did */
            if (any || j == 0) last = ll_max(&L);
            best = elk_fmax(best, last);
        }
        free(ev);
        ev = NULL;
    }
done:
    free(ev);
    free(sh);
    free(per);
    free(seg);
    free(buf);
    return best;
}

/* A per-thread memo of one busiest-link fraction per grid, topology,
 * controller placement and replica tile: the loads depend on nothing else.
 * Hashed (open addressing over a short probe run, a full run's slots taken
 * in turn): a design point asks for a hundred tiles or more (wse2 prefill:
 * 103), and a short list of the newest thrashed there, each miss O(R C)
 * (1415 misses, 21.7 s for one `elk run`), while the scheduler's millions
 * of asks need the hit to stay cheap. No entry is ever emptied, so a probe
 * stops at the first empty slot. */
enum { GRID_MEMO_SLOTS = 1024, GRID_MEMO_PROBE = 4 };
typedef struct {
    int topo, R, C, K, place, bcast, tr, tc;
    double m;
} grid_memo_ent;
typedef struct {
    grid_memo_ent e[GRID_MEMO_SLOTS];
    unsigned char used[GRID_MEMO_SLOTS];
    int last;      /* the last hit's slot, tried first: one grid's calls come in runs */
    unsigned turn; /* which slot of a full probe run the next entry takes */
} grid_memo;

static grid_memo_ent grid_key(const elk_chip *c, int tr, int tc)
{
    int K = c->hbm_controllers < 1 ? 1 : c->hbm_controllers;
    return (grid_memo_ent){(int)c->topology, c->mesh_rows, c->mesh_cols, K, (int)c->hbm_placement,
                           c->hbm_broadcast != 0, tr, tc, 0};
}

static int grid_key_eq(const grid_memo_ent *e, const grid_memo_ent *k)
{
    return e->topo == k->topo && e->R == k->R && e->C == k->C && e->K == k->K && e->place == k->place &&
           e->bcast == k->bcast && e->tr == k->tr && e->tc == k->tc;
}

static unsigned grid_key_hash(const grid_memo_ent *k)
{
    const int v[8] = {k->topo, k->R, k->C, k->K, k->place, k->bcast, k->tr, k->tc};
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < 8; i++) h = (h ^ (uint32_t)v[i]) * 1099511628211ULL;
    return (unsigned)(h ^ (h >> 32));
}

static int grid_memo_find(grid_memo *mm, const grid_memo_ent *k, double *m)
{
    if (mm->used[mm->last] && grid_key_eq(&mm->e[mm->last], k)) {
        *m = mm->e[mm->last].m;
        return 1;
    }
    unsigned h = grid_key_hash(k);
    for (int i = 0; i < GRID_MEMO_PROBE; i++) {
        int s = (int)((h + (unsigned)i) & (GRID_MEMO_SLOTS - 1));
        if (!mm->used[s]) return 0;
        if (grid_key_eq(&mm->e[s], k)) {
            mm->last = s;
            *m = mm->e[s].m;
            return 1;
        }
    }
    return 0;
}

static void grid_memo_put(grid_memo *mm, grid_memo_ent k, double m)
{
    k.m = m;
    unsigned h = grid_key_hash(&k);
    int s = -1;
    for (int i = 0; i < GRID_MEMO_PROBE && s < 0; i++) {
        int t = (int)((h + (unsigned)i) & (GRID_MEMO_SLOTS - 1));
        if (!mm->used[t]) s = t;
    }
    if (s < 0) s = (int)((h + mm->turn++ % GRID_MEMO_PROBE) & (GRID_MEMO_SLOTS - 1));
    mm->e[s] = k;
    mm->used[s] = 1;
    mm->last = s;
}

/* grid_entry_busiest of chip c for replication r, remembered per thread
 * (grid_memo). */
double elk_grid_entry_busiest(const elk_chip *c, double r)
{
    static _Thread_local grid_memo memo;
    int tr, tc;
    elk_tree_tile(c->mesh_rows, c->mesh_cols, r, &tr, &tc); /* the simulator's replica groups */
    grid_memo_ent k = grid_key(c, tr, tc);
    double m;
    if (grid_memo_find(&memo, &k, &m)) return m;
    m = grid_entry_busiest(c, tr, tc);
    if (m <= 0) return m; /* out of memory: not remembered */
    grid_memo_put(&memo, k, m);
    return m;
}

/* The largest fraction of a preload's unique bytes on one directed grid
 * link, from the simulator's own trees (elk_tree_loads on the network the
 * simulator builds for c, its automatic mode): grid_entry_busiest serves
 * every tile from where the first leg meets it, and with replication the
 * trees concentrate more than that (an 8 x 8 torus with one controller at
 * r = 8: 3 times the load, the estimate's preload 3.7 us against 12.8
 * simulated). A tree's cmax is per unit of rate into each
 * destination core, one unique byte per tile per cycle. Remembered per
 * thread like entry_busiest; 0 when the network cannot be built. A miss
 * builds the network and sums its trees, O(R C): about 80 ms on a wse2's
 * 850k cores, 31 misses there (3.2 s for a design point against 0.87), so
 * grids above ELK_GRID_TREE_MAX routers keep grid_entry_busiest alone (a
 * lower bound on the load; docs/VALIDATION.md). */
double elk_grid_tree_busiest(const elk_chip *c, double r)
{
    static _Thread_local grid_memo memo;
    int tr, tc;
    elk_tree_tile(c->mesh_rows, c->mesh_cols, r, &tr, &tc);
    grid_memo_ent key = grid_key(c, tr, tc);
    double hit;
    if (grid_memo_find(&memo, &key, &hit)) return hit;
    elk_noc nc;
    elk_error err;
    if (elk_noc_build(&nc, c, ELK_SIM_AUTO, 0, 1, &err) != ELK_OK) return 0;
    double m = 0;
    int nl = elk_net_nlinks(nc.net);
    elk_use *u = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *u);
    int n = -1;
    if (u && nc.grid) {
        nc.pre_flat = elk_tree_flat(&nc, tr, tc); /* as the simulator routes this tile */
        n = elk_tree_loads(&nc, -1, tr, tc, 0, u);
    }
    for (int i = 0; i < n; i++) m = elk_fmax(m, u[i].cmax);
    free(u);
    elk_noc_free(&nc);
    if (n < 0 || m <= 0) return 0;
    /* per unit of rate into each core: a unique byte per cycle is one per
     * replica tile (elk_tree_preload's scale) */
    m /= (double)((c->mesh_rows + tr - 1) / tr) * ((c->mesh_cols + tc - 1) / tc);
    grid_memo_put(&memo, key, m);
    return m;
}

/* The two-transfer max-min of elk_grid_beside, reduced to what the
 * preload's pace changes: both rates grow with one fill level s, the
 * exchange's as we s and the preload's as wp s (the templates' byte-fair
 * weights, elk_net_tmpl_end); the exchange's links alone stop it at rate
 * tE, the preload's alone at rate tP, a link both load stops both at level
 * sS; if the exchange stops first the preload goes on to pE; if the
 * preload stops first at x the exchange goes on to min(E0, min over shared
 * links (cap - b x) / a), the lower envelope of lines kept in l[]. E0: the
 * exchange alone. */
enum { PAIR_SLOTS = 2048, PAIR_PROBE = 4, PAIR_LINES = ELK_GRID_PAIR_LINES };
enum { PAIR_KEYS = 8 };
typedef struct {
    grid_memo_ent k;
    double v[PAIR_KEYS]; /* what the grid key omits (pair_vals) */
    double g;
    elk_grid_side s;     /* the answer's numbers; exchange rate = la - lb x */
} pair_ent;
/* Hashed by the chip's key, the group and the replication (the tile is a
 * function of the grid and r, so it is not hashed): the grids' preload
 * stretch asks once per phase and preload, the phases' groups alternating,
 * and a list of 64 scanned from the last hit was 12% of a physical mesh
 * point's instructions. An entry's answer is a pure function of its key,
 * so which one a collision evicts changes no result. 256 slots thrashed
 * where `elk check` times a point and its partners on one thread: 506 keys
 * (nine chips, a torus's mesh twins, their groups and replications), one
 * ask in 180 a miss and a rebuild (point 30 of --seed 338). Heap-allocated
 * with the thread's networks (pair_nets), not thread-local storage, at
 * about 0.9 MB. */
typedef struct {
    pair_ent e[PAIR_SLOTS];
    unsigned char used[PAIR_SLOTS];
} pair_memo;

/* The network pair_build reads, per thread: built for the last chip that
 * asked (compared bytewise: a padding difference only costs a rebuild),
 * with the exchange and preload templates and the preload trees' geometry
 * kept in its own caches (elk_noc's, elk_tree's), so that a miss of the
 * pair memo costs two templates, not the trees of every tile again (which
 * were nine tenths of a 768-core torus point). Owned by the thread: freed
 * at its exit (the key's destructor) or when another chip asks; tl also
 * points to it, so that the main thread's, never destroyed, stays
 * reachable. */
typedef struct {
    elk_chip chip;
    elk_noc nc;
    elk_tree tr;
    int built;
    unsigned long used; /* the tick of its last use: the older of two is rebuilt */
} pair_net;
/* Two networks: a torus's pairs are also timed on its mesh twin
 * (elk_grid_beside), and one network rebuilt at every alternation
 * lost the trees' caches (check 2.3x slower). */
enum { PAIR_NETS = 2 };
typedef struct {
    pair_net n[PAIR_NETS];
    unsigned long tick;
    pair_memo memo; /* pair_lookup's */
} pair_nets;
static pthread_key_t pair_net_key;
static pthread_once_t pair_net_once = PTHREAD_ONCE_INIT;
static int pair_net_keyed;
static _Thread_local pair_nets *pair_net_tl;

static void pair_net_drop(pair_net *pn)
{
    if (pn->built) {
        elk_tree_free(&pn->tr);
        elk_noc_free(&pn->nc);
    }
    pn->built = 0;
}

static void pair_net_destroy(void *v)
{
    pair_nets *ps = v;
    for (int i = 0; i < PAIR_NETS; i++) pair_net_drop(&ps->n[i]);
    free(v);
    pair_net_tl = NULL;
}

static void pair_net_key_init(void) { pair_net_keyed = pthread_key_create(&pair_net_key, pair_net_destroy) == 0; }

/* The thread's pair_nets, allocated on first use; NULL out of memory. */
static pair_nets *pair_nets_get(void)
{
    pair_nets *ps = pair_net_tl;
    if (ps) return ps;
    pthread_once(&pair_net_once, pair_net_key_init);
    if (!pair_net_keyed || !(ps = calloc(1, sizeof *ps))) return NULL;
    if (pthread_setspecific(pair_net_key, ps)) {
        free(ps);
        return NULL;
    }
    return pair_net_tl = ps;
}

static pair_net *pair_net_get(const elk_chip *c)
{
    pair_nets *ps = pair_nets_get();
    if (!ps) return NULL;
    ps->tick++;
    pair_net *pn = &ps->n[0];
    for (int i = 0; i < PAIR_NETS; i++) {
        if (ps->n[i].built && !memcmp(&ps->n[i].chip, c, sizeof *c)) {
            ps->n[i].used = ps->tick;
            return &ps->n[i];
        }
        if (pn->built && (!ps->n[i].built || ps->n[i].used < pn->used)) pn = &ps->n[i];
    }
    pair_net_drop(pn);
    elk_error err;
    if (elk_noc_build(&pn->nc, c, ELK_SIM_AUTO, 0, 1, &err) != ELK_OK) return NULL;
    elk_tree_init(&pn->tr);
    memcpy(&pn->chip, c, sizeof *c);
    pn->built = 1;
    pn->used = ps->tick;
    return pn;
}

typedef struct {
    double a, b;
} pair_line;

static int line_cmp(const void *x, const void *y)
{
    const pair_line *l = x, *m = y;
    if (l->b != m->b) return l->b < m->b ? -1 : 1;
    return (l->a > m->a) - (l->a < m->a);
}

/* Where lines l and m (m steeper) cross. */
static double line_cross(const pair_line *l, const pair_line *m) { return (m->a - l->a) / (m->b - l->b); }

/* The lower envelope of the shared links' lines over [0, X], exactly, for
 * when more lines than PAIR_LINES survive pair_build's pruning at both
 * ends: a whole-chip relayout on a 3072-core mesh crosses thousands of
 * shared links, and the pair used to fail, leaving every op with a relayout
 * on the old window rule (tt-galaxy meshes 16-30% below their replay). The envelope of lines a - b x, b ascending, is a convex-hull
 * walk; only the pieces inside [0, X] are kept. Returns 0 when even those
 * are more than PAIR_LINES. */
static int pair_hull(elk_grid_side *p, const double *a, const double *b, const elk_link *lk, int nl, double X)
{
    pair_line *v = malloc((size_t)(nl + 1) * sizeof *v);
    if (!v) return 0;
    int n = 0;
    for (int l = 0; l < nl; l++)
        if (a[l] > 0 && b[l] > 0) v[n++] = (pair_line){lk[l].cap / a[l], b[l] / a[l]};
    qsort(v, (size_t)n, sizeof *v, line_cmp);
    int h = 0; /* the hull, in v[0..h) */
    for (int i = 0; i < n; i++) {
        if (h > 0 && v[h - 1].b == v[i].b) continue; /* same slope, higher: never below */
        while (h >= 2 && line_cross(&v[h - 2], &v[i]) <= line_cross(&v[h - 2], &v[h - 1])) h--;
        v[h++] = v[i];
    }
    int lo = 0;
    while (h - lo >= 2 && line_cross(&v[lo], &v[lo + 1]) <= 0) lo++;
    while (h - lo >= 2 && line_cross(&v[h - 2], &v[h - 1]) >= X) h--;
    int ok = h - lo <= PAIR_LINES;
    if (ok) {
        p->nl = 0;
        for (int i = lo; i < h; i++) {
            p->la[p->nl] = v[i].a;
            p->lb[p->nl++] = v[i].b;
        }
    }
    free(v);
    return ok;
}

/* Builds p's numbers from the simulator's templates of the two transfers
 * on a network of c. Returns 0 when it cannot. */
static int pair_build(const elk_chip *c, double g, double r, elk_grid_side *p)
{
    pair_net *pn = pair_net_get(c);
    if (!pn) return 0;
    int ok = 0;
    elk_noc *nc = &pn->nc;
    int nl = elk_net_nlinks(nc->net);
    double *a = calloc((size_t)(nl > 0 ? nl : 1), sizeof *a), *b = calloc((size_t)(nl > 0 ? nl : 1), sizeof *b);
    int te = g >= 1 ? elk_noc_exchange(nc, g) : elk_noc_shift(nc);
    int tp = nc->grid ? elk_tree_preload(&pn->tr, nc, -1, r, 0, INFINITY) : -1;
    if (a && b && te >= 0 && tp >= 0) {
        const elk_tmpl *t = elk_net_tmpls(nc->net);
        const elk_use *u = elk_net_uses(nc->net);
        const elk_link *lk = elk_net_links(nc->net);
        p->we = t[te].weight;
        p->wp = t[tp].weight;
        assert(p->we > 0 && p->wp > 0);
        for (int i = t[te].u0; i < t[te].u0 + t[te].nu; i++) a[u[i].link] += u[i].cmax;
        for (int i = t[tp].u0; i < t[tp].u0 + t[tp].nu; i++) b[u[i].link] += u[i].cmax;
        p->tE = p->tP = p->sS = p->E0 = INFINITY;
        for (int l = 0; l < nl; l++) {
            if (a[l] > 0) p->E0 = elk_fmin(p->E0, lk[l].cap / a[l]);
            if (a[l] > 0 && b[l] <= 0) p->tE = elk_fmin(p->tE, lk[l].cap / a[l]);
            if (b[l] > 0 && a[l] <= 0) p->tP = elk_fmin(p->tP, lk[l].cap / b[l]);
            if (a[l] > 0 && b[l] > 0) p->sS = elk_fmin(p->sS, lk[l].cap / (a[l] * p->we + b[l] * p->wp));
        }
        /* the preload after the exchange stops at rate t1 */
        double t1 = elk_fmin(p->tE, p->we * p->sS);
        p->pE = p->tP;
        for (int l = 0; l < nl; l++)
            if (a[l] > 0 && b[l] > 0) p->pE = elk_fmin(p->pE, (lk[l].cap - a[l] * t1) / b[l]);
        /* the shared links' lines over x in [0, tP]; a line no lower than
         * another at both ends is dropped (linear: nowhere lower) */
        double X = isfinite(p->tP) ? p->tP : p->E0;
        p->nl = 0;
        int over = 0;
        for (int l = 0; l < nl && !over; l++) {
            if (!(a[l] > 0 && b[l] > 0)) continue;
            double la = lk[l].cap / a[l], lb = b[l] / a[l];
            int dom = la >= p->E0 && la - lb * X >= p->E0;
            for (int i = 0; i < p->nl && !dom; i++)
                dom = la >= p->la[i] && la - lb * X >= p->la[i] - p->lb[i] * X;
            if (dom) continue;
            int w = 0; /* drop the kept lines this one is below at both ends */
            for (int i = 0; i < p->nl; i++)
                if (!(p->la[i] >= la && p->la[i] - p->lb[i] * X >= la - lb * X)) {
                    p->la[w] = p->la[i];
                    p->lb[w++] = p->lb[i];
                }
            p->nl = w;
            if (p->nl == PAIR_LINES) {
                over = 1;
                break;
            }
            p->la[p->nl] = la;
            p->lb[p->nl++] = lb;
        }
        if (over) over = !pair_hull(p, a, b, lk, nl, X);
        ok = !over && isfinite(p->E0) && p->E0 > 0;
    }
    free(a);
    free(b);
    return ok;
}

/* The chip's rates and sizes the memo's grid key omits, and the
 * replication itself: the preload's template scales with r, not only with
 * its replica tile (elk_tree_preload), so two replications of one tile are
 * two entries, or the answer depends on which one the memo saw first
 * (Elk-Dyn on a 768-core tt-galaxy torus moved with the policies run
 * before it: 0.6555 ms after Basic and Static, 0.6539 alone). */
/* The exchange engine's rate is a key of its own: --link-gbps and
 * --noc-scale each raised 25% give one port but not one engine under the IPU
 * cost kind, and the pair built for either answered for both (elk check
 * point 1555 of --seed 1 moved by a cycle with the points its thread had
 * timed before it). */
static void pair_vals(const elk_chip *c, double r, double *v)
{
    v[0] = elk_chip_mesh_link_bytes_per_cycle(c);
    v[1] = elk_chip_link_bytes_per_cycle(c);
    v[2] = elk_chip_hbm_bytes_per_cycle(c);
    v[3] = c->interchip_gbps / c->clock_ghz;
    v[4] = c->cores;
    v[5] = c->cores_per_chip;
    v[6] = elk_noc_exch_bytes_per_cycle(c);
    v[7] = r;
}

static int pair_eq(const pair_ent *e, const grid_memo_ent *k, const double *v, double g)
{
    if (e->g != g || !grid_key_eq(&e->k, k)) return 0;
    for (int i = 0; i < PAIR_KEYS; i++)
        if (e->v[i] != v[i]) return 0;
    return 1;
}

/* The memo's entry for (c, g, r) on c's own routes, built on a miss;
 * NULL where elk_grid_beside answers 0 at every pace (not a grid,
 * too large, out of memory). */
static const pair_ent *pair_lookup(const elk_chip *c, double g, double r)
{
    if ((c->topology != ELK_TOPO_MESH && c->topology != ELK_TOPO_TORUS) ||
        (long)c->mesh_rows * c->mesh_cols > ELK_GRID_TREE_MAX)
        return NULL;
    pair_nets *ps = pair_nets_get();
    if (!ps) return NULL;
    pair_memo *memo = &ps->memo;
    assert(r >= 1.0); /* elk_grid_resolve's fmax */
    grid_memo_ent k = grid_key(c, 0, 0);
    double v[PAIR_KEYS];
    pair_vals(c, r, v);
    uint64_t h = grid_key_hash(&k);
    for (int i = 0; i <= PAIR_KEYS; i++) {
        uint64_t b;
        memcpy(&b, i < PAIR_KEYS ? &v[i] : &g, sizeof b);
        h = (h ^ b) * 1099511628211ULL;
    }
    /* FNV only carries bits upwards, and the doubles' low bits are mostly
     * zero: mix the high bits down before taking the slot */
    h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdULL;
    h = (h ^ (h >> 33)) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    pair_ent *p = NULL;
    int free_slot = -1;
    for (int i = 0; i < PAIR_PROBE && !p; i++) {
        int sl = (int)((h + (uint64_t)i) & (PAIR_SLOTS - 1));
        if (!memo->used[sl]) {
            if (free_slot < 0) free_slot = sl;
        } else if (pair_eq(&memo->e[sl], &k, v, g)) {
            p = &memo->e[sl];
        }
    }
    if (!p) {
        int sl = free_slot >= 0 ? free_slot : (int)(h & (PAIR_SLOTS - 1));
        p = &memo->e[sl];
        memset(p, 0, sizeof *p);
        p->k = k;
        memcpy(p->v, v, sizeof p->v);
        p->g = g;
        if (!pair_build(c, g, r, &p->s)) p->s.E0 = 0; /* remembered too: not built again */
        memo->used[sl] = 1;
    }
    return p;
}

static void side_of(const pair_ent *p, elk_grid_side *sd)
{
    if (p) *sd = p->s;
    else sd->E0 = 0;
}

/* The exchange's rate beside a preload at rate x on the links both load:
 * the lower envelope of the side's lines, below its rate alone. */
static double side_env(const elk_grid_side *p, double x)
{
    double v = p->E0;
    for (int i = 0; i < p->nl; i++) v = elk_fmin(v, p->la[i] - p->lb[i] * x);
    return v;
}

/* elk_grid_beside on one side's routes (the side's own chip's). */
static double side_beside(const elk_grid_side *p, double xp, double *pre, double *solo)
{
    if (pre) *pre = xp;
    if (!(p->E0 > 0) || !(xp > 0)) return 0;
    if (solo) *solo = p->E0;
    double tP = elk_fmin(p->tP, xp), xe, xpb;
    if (p->sS <= elk_fmin(p->tE / p->we, tP / p->wp)) {
        /* a link both load is full first: byte-fair shares */
        xe = p->we * p->sS;
        xpb = p->wp * p->sS;
    } else if (p->tE / p->we <= tP / p->wp) {
        xe = p->tE; /* the exchange is held by its own links */
        xpb = elk_fmin(xp, p->pE);
    } else {
        xpb = tP; /* the preload at its pace; the exchange takes the rest */
        xe = side_env(p, tP);
    }
    if (pre) *pre = xpb;
    return xe > 0 ? elk_fmax(1.0, p->E0 / xe) : 0;
}

void elk_grid_resolve(const elk_chip *c, double g, double r, elk_grid_pair *gp)
{
    r = elk_fmax(1.0, r);
    side_of(pair_lookup(c, g, r), &gp->side[0]);
    gp->twin = c->topology == ELK_TOPO_TORUS && gp->side[0].E0 > 0;
    if (gp->twin) {
        elk_chip m = *c;
        m.topology = ELK_TOPO_MESH;
        side_of(pair_lookup(&m, g, r), &gp->side[1]);
    }
}

double elk_grid_beside(const elk_chip *c, double g, double r, double xp, double *pre, double *solo)
{
    elk_grid_pair gp;
    elk_grid_resolve(c, g, r, &gp);
    return elk_grid_pair_beside(&gp, xp, pre, solo);
}

double elk_grid_pair_beside(const elk_grid_pair *gp, double xp, double *pre, double *solo)
{
    double p1 = xp, s1 = 0, f1 = side_beside(&gp->side[0], xp, &p1, &s1);
    if (gp->twin && f1 > 0) {
        /* A torus holds every link of its mesh, so the two transfers can
         * take the mesh's routes, never a wrap-around link: where the
         * exchange then runs faster beside the preload, it is charged
         * that. Shortest routes send the preload's trees both ways round
         * and meet the exchange on more links (point 1997: every op beside
         * a preload 0.5-2.9 us slower than on the mesh, Static 1.4%
         * slower; with this choice 0.4% faster, its replay 0.16% away). Its
         * time alone stays the torus's. The torus's own routes are kept
         * only where they are no worse for either transfer: chosen for the
         * exchange alone, they gave an op the torus's faster exchange and
         * its preload the slower share, which stretched it and started it
         * earlier, before the op ahead of it had ended (point 1509: Basic's
         * mesh schedule 0.29% slower on the torus). */
        double p2 = xp, s2 = 0, f2 = side_beside(&gp->side[1], xp, &p2, &s2);
        int torus_dominates = s1 / f1 >= s2 / f2 * (1 - 1e-9) && p1 >= p2 * (1 - 1e-9);
        if (f2 > 0 && s2 > 0 && !torus_dominates) {
            if (pre) *pre = p2;
            if (solo) *solo = s1;
            return elk_fmax(1.0, s1 * f2 / s2);
        }
    }
    if (pre) *pre = p1;
    if (solo) *solo = s1;
    return f1;
}

/* Unique bytes per cycle the links next to a ring's controllers carry, in
 * links' worth. K controllers sit evenly round a ring of N and stripe every
 * preload, so each sends 1/K of it to every core, the shorter way round
 * (half each way to the core opposite): (N - 1) / 2 of its N cores lie
 * clockwise. The link leaving controller 0 clockwise carries that part of
 * its own share and of the controllers j = 1 .. ceil(K/2) - 1 positions
 * behind it the part bound further on, j N / K cores fewer: S = m (N - 1) /
 * (2N) - m (m - 1) / (2K) of a controller's share with m = ceil(K/2)
 * (test_sim's ring_striped_preload: N = 16, K = 1: 7.5 / 16; K = 4: 11 /
 * 16). That is 2K links for K <= 2 on a long ring and 8 (the ring's 2N
 * links over N/4 mean hops) when every router has a controller. */
double elk_grid_ring_entry_links(double k, double n)
{
    k = elk_fmax(1.0, k);
    double m = ceil(k / 2.0);
    return k / (m * (n - 1.0) / (2.0 * n) - m * (m - 1.0) / (2.0 * k));
}

int elk_grid_torus_flat(const elk_chip *c)
{
    if (c->topology != ELK_TOPO_TORUS || c->mesh_rows < 1 || c->mesh_cols < 1) return 0;
    /* a torus holds the mesh's links, so its routing can always do what
     * the mesh's does: never slower */
    elk_chip flat = *c;
    flat.topology = ELK_TOPO_MESH;
    double s1 = elk_grid_entry_busiest(c, 1), f1 = elk_grid_entry_busiest(&flat, 1);
    return f1 > 0 && f1 < s1 * (1 - 1e-9);
}
