#include "elk_noc.h"

#include "elk_grid.h"
#include "elk_tree.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const elk_sim_mode_names[] = {"auto", "fast", "detailed", NULL};

enum { PAT_PRELOAD, PAT_SHIFT, PAT_EXCH };

struct noc_geom {
    int ctrl, plane, tr, tc;
    int flat; /* the tile shape's routes (elk_tree_flat) */
    int n;
    elk_use *u;
};

struct noc_cache_ent {
    int type, ctrl, plane;
    double v, cap; /* the pattern's parameter; its rate cap (INFINITY: none) */
    int tmpl;
};

/* ------------------------------------------------------------------ */
/* helpers                                                              */

static int *ialloc(size_t n, int fill)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    if (p)
        for (size_t i = 0; i < n; i++) p[i] = fill;
    return p;
}

static int blk_rows(const elk_noc *nc, int i) { return nc->br0[i + 1] - nc->br0[i]; }
static int blk_cols(const elk_noc *nc, int j) { return nc->bc0[j + 1] - nc->bc0[j]; }

static int row_block(const elk_noc *nc, int y)
{
    int lo = 0, hi = nc->nbr - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (nc->br0[mid] <= y) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static int col_block(const elk_noc *nc, int x)
{
    int lo = 0, hi = nc->nbc - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (nc->bc0[mid] <= x) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Split n into nb near-equal parts: starts[0..nb]. */
static void split(int n, int nb, int *starts)
{
    for (int i = 0; i <= nb; i++) starts[i] = (int)((long)n * i / nb);
}

static int add_link(elk_noc *nc, elk_link_kind kind, double cap, double count, int plane, double width)
{
    int l = elk_net_link(nc->net, kind, cap, count, plane);
    if (l < 0) return -1;
    double *w = realloc(nc->lwidth, (size_t)(l + 1) * sizeof *w);
    if (!w) return -1;
    nc->lwidth = w;
    nc->lwidth[l] = width;
    return l;
}

/* ------------------------------------------------------------------ */
/* build                                                                */

static void placement(elk_noc *nc)
{
    const elk_chip *c = &nc->chip;
    int R = nc->R, C = nc->C;
    int K = nc->nctrl;
    /* the routers of each controller, appended to att */
    int cap = 0, n = 0;
    int *att = NULL;
#define PUSH(r)                                                     \
    do {                                                            \
        if (n == cap) {                                             \
            cap = cap ? cap * 2 : 64;                               \
            int *na = realloc(att, (size_t)cap * sizeof *na);       \
            if (!na) {                                              \
                free(att);                                          \
                nc->att = NULL;                                     \
                return;                                             \
            }                                                       \
            att = na;                                               \
        }                                                           \
        att[n++] = (r);                                             \
    } while (0)
    if (c->hbm_broadcast) {
        nc->att0[0] = 0;
        PUSH(R > 1 ? (R / 2) * C : 0);
        nc->natt[0] = 1;
    } else if (c->topology == ELK_TOPO_RING) {
        for (int k = 0; k < K; k++) {
            nc->att0[k] = n;
            PUSH((int)((long)C * k / K));
            nc->natt[k] = 1;
        }
    } else if (c->hbm_placement == ELK_HBM_CORNERS || R < 2 || C < 2) {
        int corners[4] = {0, C - 1, (R - 1) * C + C - 1, (R - 1) * C};
        for (int k = 0; k < K; k++) {
            nc->att0[k] = n;
            PUSH(corners[k % 4]);
            nc->natt[k] = 1;
        }
    } else if (c->hbm_placement == ELK_HBM_WEST) {
        for (int k = 0; k < K; k++) {
            nc->att0[k] = n;
            int a = (int)((long)R * k / K), b = (int)((long)R * (k + 1) / K);
            if (b <= a) b = a + 1;
            if (a >= R) a = R - 1, b = R;
            for (int y = a; y < b; y++) PUSH(y * C);
            nc->natt[k] = n - nc->att0[k];
        }
    } else {
        /* edges: the perimeter, clockwise from the north-west corner, in K segments */
        int P = 2 * (R + C) - 4;
        int *per = malloc((size_t)P * sizeof *per);
        if (!per) {
            free(att);
            return;
        }
        int m = 0;
        for (int x = 0; x < C; x++) per[m++] = x;
        for (int y = 1; y < R; y++) per[m++] = y * C + C - 1;
        for (int x = C - 2; x >= 0; x--) per[m++] = (R - 1) * C + x;
        for (int y = R - 2; y >= 1; y--) per[m++] = y * C;
        for (int k = 0; k < K; k++) {
            nc->att0[k] = n;
            int a = (int)((long)P * k / K), b = (int)((long)P * (k + 1) / K);
            if (b <= a) b = a + 1;
            if (a >= P) a = P - 1, b = P;
            for (int i = a; i < b; i++) PUSH(per[i]);
            nc->natt[k] = n - nc->att0[k];
        }
        free(per);
    }
#undef PUSH
    nc->att = att;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Each controller's routers in order along its edge: by row when they run
 * down a column (or span more rows than columns), else by column. */
static void sort_attachments(elk_noc *nc)
{
    for (int k = 0; k < nc->nctrl; k++) {
        int *a = nc->att + nc->att0[k], n = nc->natt[k];
        int y0 = nc->R, y1 = -1, x0 = nc->C, x1 = -1;
        for (int i = 0; i < n; i++) {
            int y = a[i] / nc->C, x = a[i] % nc->C;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
        }
        nc->att_vert[k] = y1 - y0 >= x1 - x0;
        if (nc->att_vert[k]) {
            /* a row-major index sorts by row, then column */
            qsort(a, (size_t)n, sizeof *a, cmp_int);
            continue;
        }
        /* by column, then row: sort the column-major indices instead, so
         * that the comparator needs no context (qsort passes none, and a
         * file-scope one is shared state between simulation threads) */
        int R = nc->R, C = nc->C;
        for (int i = 0; i < n; i++) a[i] = (a[i] % C) * R + a[i] / C;
        qsort(a, (size_t)n, sizeof *a, cmp_int);
        for (int i = 0; i < n; i++) a[i] = (a[i] % R) * C + a[i] / R;
    }
}

/* The builders of elk_noc_build, in the order they add links (a link's
 * index is its order of creation); each returns -1 when out of memory,
 * leaving what it allocated for elk_noc_free. */

/* The chips and, on several, each one's interchip links out and in. */
static int build_chips(elk_noc *nc, const elk_chip *c, double ic)
{
    nc->nchips = elk_chip_multi(c);
    nc->chip_cores = ialloc((size_t)nc->nchips, 0);
    nc->chip_out = ialloc((size_t)nc->nchips, -1);
    nc->chip_in = ialloc((size_t)nc->nchips, -1);
    if (!nc->chip_cores || !nc->chip_out || !nc->chip_in) return -1;
    for (int k = 0; k < nc->nchips; k++) {
        int left = c->cores - k * c->cores_per_chip;
        nc->chip_cores[k] = left < c->cores_per_chip ? left : c->cores_per_chip;
        if (nc->nchips > 1) {
            nc->chip_out[k] = add_link(nc, ELK_LK_CHIP_OUT, ic, 1, 0, 1);
            nc->chip_in[k] = add_link(nc, ELK_LK_CHIP_IN, ic, 1, 0, 1);
        }
    }
    return 0;
}

/* The cells: cores (detailed) or chips (fast) on all-to-all; on a grid,
 * blocks of routers, each one router in detailed mode. */
static int build_cells(elk_noc *nc, const elk_chip *c, int block)
{
    int cores = c->cores;
    if (!nc->grid) {
        nc->ncell = nc->detailed ? cores : nc->nchips;
        nc->cell_cores = ialloc((size_t)nc->ncell, 1);
        nc->cell_chip = ialloc((size_t)nc->ncell, 0);
        if (!nc->cell_cores || !nc->cell_chip) return -1;
        for (int i = 0; i < nc->ncell; i++) {
            if (nc->detailed) {
                nc->cell_chip[i] = i / c->cores_per_chip;
            } else {
                nc->cell_chip[i] = i;
                nc->cell_cores[i] = nc->chip_cores[i];
            }
        }
        return 0;
    }
    if (c->topology == ELK_TOPO_RING) {
        nc->R = 1;
        nc->C = cores;
    } else {
        nc->R = c->mesh_rows;
        nc->C = c->mesh_cols;
    }
    nc->wrap = c->topology != ELK_TOPO_MESH;
    int B = 1;
    if (!nc->detailed) {
        B = block > 0 ? block : (int)ceil((nc->R > nc->C ? nc->R : nc->C) / 12.0);
        if (B < 1) B = 1;
    }
    nc->nbr = (nc->R + B - 1) / B;
    nc->nbc = (nc->C + B - 1) / B;
    nc->br0 = ialloc((size_t)nc->nbr + 1, 0);
    nc->bc0 = ialloc((size_t)nc->nbc + 1, 0);
    if (!nc->br0 || !nc->bc0) return -1;
    split(nc->R, nc->nbr, nc->br0);
    split(nc->C, nc->nbc, nc->bc0);
    nc->ncell = nc->nbr * nc->nbc;
    nc->cell_cores = ialloc((size_t)nc->ncell, 0);
    nc->cell_chip = ialloc((size_t)nc->ncell, 0);
    if (!nc->cell_cores || !nc->cell_chip) return -1;
    for (int i = 0; i < nc->nbr; i++)
        for (int j = 0; j < nc->nbc; j++) nc->cell_cores[i * nc->nbc + j] = blk_rows(nc, i) * blk_cols(nc, j);
    return 0;
}

/* Each cell's ports in (one per plane) and out, and its exchange engine. */
static int build_ports(elk_noc *nc, double port)
{
    for (int p = 0; p < nc->planes; p++) {
        nc->port_in[p] = ialloc((size_t)nc->ncell, -1);
        if (!nc->port_in[p]) return -1;
    }
    nc->port_out = ialloc((size_t)nc->ncell, -1);
    nc->engine = ialloc((size_t)nc->ncell, -1);
    if (!nc->port_out || !nc->engine) return -1;
    for (int i = 0; i < nc->ncell; i++) {
        double n = nc->cell_cores[i];
        for (int p = 0; p < nc->planes; p++) nc->port_in[p][i] = add_link(nc, ELK_LK_PORT_IN, port, n, p, 1);
        nc->port_out[i] = add_link(nc, ELK_LK_PORT_OUT, port, n, 0, 1);
        nc->engine[i] = add_link(nc, ELK_LK_ENGINE, nc->exch_bpc, n, 0, 1);
    }
    return 0;
}

/* A grid's links between blocks, one per direction a block has a
 * neighbour, and the links inside each block. */
static int build_grid_links(elk_noc *nc, const elk_chip *c)
{
    double ml = elk_chip_mesh_link_bytes_per_cycle(c);
    int nb = nc->ncell;
    for (int p = 0; p < nc->planes; p++) {
        for (int d = 0; d < ELK_DIR_COUNT; d++) {
            nc->lk[p][d] = ialloc((size_t)nb, -1);
            if (!nc->lk[p][d]) return -1;
        }
        nc->lint[p] = ialloc((size_t)nb, -1);
        if (!nc->lint[p]) return -1;
        for (int i = 0; i < nc->nbr; i++)
            for (int j = 0; j < nc->nbc; j++) {
                int b = i * nc->nbc + j;
                int h = blk_rows(nc, i), w = blk_cols(nc, j);
                int hasE = j + 1 < nc->nbc || (nc->wrap && nc->nbc > 1);
                int hasW = j > 0 || (nc->wrap && nc->nbc > 1);
                int hasS = i + 1 < nc->nbr || (nc->wrap && nc->nbr > 1);
                int hasN = i > 0 || (nc->wrap && nc->nbr > 1);
                if (hasE) nc->lk[p][ELK_DIR_E][b] = add_link(nc, ELK_LK_MESH, ml, h, p, h);
                if (hasW) nc->lk[p][ELK_DIR_W][b] = add_link(nc, ELK_LK_MESH, ml, h, p, h);
                if (hasS) nc->lk[p][ELK_DIR_S][b] = add_link(nc, ELK_LK_MESH, ml, w, p, w);
                if (hasN) nc->lk[p][ELK_DIR_N][b] = add_link(nc, ELK_LK_MESH, ml, w, p, w);
                double in = 2.0 * h * (w - 1) + 2.0 * w * (h - 1);
                if (nc->wrap && nc->nbc == 1 && w > 2) in += 2.0 * h;
                if (nc->wrap && nc->nbr == 1 && h > 2) in += 2.0 * w;
                if (in > 0) nc->lint[p][b] = add_link(nc, ELK_LK_MESH_INT, ml, in, p, in);
            }
    }
    return 0;
}

/* The HBM controllers, sharing the chip's bandwidth, and on a grid the
 * routers each is attached to. On an all-to-all pod each chip's
 * controllers serve only that chip's cores (chip links carry no HBM
 * traffic), so a chip's share of the bandwidth is its share of the cores:
 * `--cores N` that leaves the last chip partly used builds that chip with
 * HBM in proportion, and every core reads at the same rate, the whole
 * bandwidth striped over every core (elk_chip_hbm_bytes_per_cycle, as the
 * estimate prices it). An equal share per chip would leave the last chip's
 * controllers idle part of the time and take bandwidth away as cores are
 * added (docs/PRESETS.md, Cores). */
static int build_hbm(elk_noc *nc, const elk_chip *c, double hbm)
{
    if (!nc->grid) {
        int kc = c->hbm_broadcast ? 1 : c->hbm_controllers / nc->nchips;
        if (kc < 1) kc = 1;
        nc->nctrl = kc * nc->nchips;
    } else {
        nc->nctrl = c->hbm_broadcast ? 1 : c->hbm_controllers;
    }
    nc->hbm = ialloc((size_t)nc->nctrl, -1);
    nc->ctrl_chip = ialloc((size_t)nc->nctrl, -1);
    if (!nc->hbm || !nc->ctrl_chip) return -1;
    for (int k = 0; k < nc->nctrl; k++) {
        double bw = hbm / nc->nctrl;
        if (!nc->grid) {
            int kc = nc->nctrl / nc->nchips;
            nc->ctrl_chip[k] = k / kc;
            bw = hbm * nc->chip_cores[nc->ctrl_chip[k]] / c->cores / kc;
        }
        nc->hbm[k] = add_link(nc, ELK_LK_HBM, bw, 1, 0, 1);
    }
    if (nc->grid) {
        nc->att0 = ialloc((size_t)nc->nctrl, 0);
        nc->natt = ialloc((size_t)nc->nctrl, 0);
        if (!nc->att0 || !nc->natt) return -1;
        placement(nc);
        if (!nc->att) return -1;
    }
    return 0;
}

/* The per-link load counters, and on a grid the per-member and per-router
 * concurrency counts; then the controllers' attachments in edge order. */
static int build_loads(elk_noc *nc)
{
    int nl = elk_net_nlinks(nc->net);
    nc->amax = calloc((size_t)nl, sizeof *nc->amax);
    nc->asum = calloc((size_t)nl, sizeof *nc->asum);
    nc->mark = calloc((size_t)nl, sizeof *nc->mark);
    nc->moff = ialloc((size_t)nl, -1);
    if (!nc->amax || !nc->asum || !nc->mark || !nc->moff) return -1;
    if (!nc->grid) return 0;
    long members = 0;
    for (int l = 0; l < nl; l++)
        if (elk_net_links(nc->net)[l].kind == ELK_LK_MESH) {
            nc->moff[l] = (int)members;
            members += (long)nc->lwidth[l];
        }
    nc->mconc = calloc((size_t)(members ? members : 1), sizeof *nc->mconc);
    nc->rconc = calloc((size_t)nc->R * nc->C * ELK_DIR_COUNT, sizeof *nc->rconc);
    nc->rmark = calloc((size_t)nc->R * nc->C * ELK_DIR_COUNT, sizeof *nc->rmark);
    nc->bconc = calloc((size_t)nc->ncell, sizeof *nc->bconc);
    if (!nc->rmark || !nc->bconc) return -1;
    nc->att_vert = ialloc((size_t)nc->nctrl, 1);
    if (!nc->mconc || !nc->rconc || !nc->att_vert) return -1;
    sort_attachments(nc);
    return 0;
}

static void choose_preload_routes(elk_noc *nc);

double elk_noc_exch_bytes_per_cycle(const elk_chip *c)
{
    double cpb = c->cost.kind == ELK_COSTK_IPU ? c->cost.xchg_cycles_per_byte / c->noc_scale
                                               : 1.0 / elk_chip_link_bytes_per_cycle(c);
    return 1.0 / cpb;
}

elk_status elk_noc_build(elk_noc *nc, const elk_chip *c, elk_sim_mode mode, int block, int planes, elk_error *err)
{
    memset(nc, 0, sizeof *nc);
    if (mode == ELK_SIM_DETAILED && c->cores > ELK_SIM_DETAILED_LIMIT)
        return elk_fail(err, ELK_ERANGE,
                        "detailed simulation of %d cores: at most %d (every link and port is a flow, and the "
                        "cost grows faster than the cores); use the fast mode",
                        c->cores, ELK_SIM_DETAILED_LIMIT);
    nc->chip = *c;
    nc->planes = planes == 2 ? 2 : 1;
    nc->net = elk_net_new();
    if (!nc->net) return elk_fail(err, ELK_ENOMEM, "out of memory building the network");
    nc->detailed = mode == ELK_SIM_DETAILED || (mode == ELK_SIM_AUTO && c->cores <= ELK_SIM_DETAILED_MAX);
    nc->grid = c->topology != ELK_TOPO_ALL2ALL;
    double port = elk_chip_link_bytes_per_cycle(c);
    nc->exch_bpc = elk_noc_exch_bytes_per_cycle(c);
    double hbm = elk_chip_hbm_bytes_per_cycle(c);
    double ic = c->interchip_gbps / c->clock_ghz;

    if (build_chips(nc, c, ic) || build_cells(nc, c, block) || build_ports(nc, port)) goto oom;
    if (nc->grid && build_grid_links(nc, c)) goto oom;
    if (build_hbm(nc, c, hbm)) goto oom;
    if (elk_net_oom(nc->net)) goto oom;
    if (build_loads(nc)) goto oom;
    if (nc->grid) choose_preload_routes(nc);
#ifndef NDEBUG
    /* elk_noc's invariant: the cells tile the cores */
    long tiled = 0;
    for (int i = 0; i < nc->ncell; i++) tiled += nc->cell_cores[i];
    assert(tiled == c->cores);
#endif
    return ELK_OK;
oom:
    elk_noc_free(nc);
    return elk_fail(err, ELK_ENOMEM, "out of memory building the network of %s", c->name);
}

void elk_noc_free(elk_noc *nc)
{
    elk_net_free(nc->net);
    free(nc->br0);
    free(nc->bc0);
    free(nc->cell_cores);
    free(nc->cell_chip);
    for (int p = 0; p < 2; p++) {
        free(nc->port_in[p]);
        for (int d = 0; d < ELK_DIR_COUNT; d++) free(nc->lk[p][d]);
        free(nc->lint[p]);
    }
    free(nc->port_out);
    free(nc->engine);
    free(nc->lwidth);
    free(nc->hbm);
    free(nc->ctrl_chip);
    free(nc->att0);
    free(nc->natt);
    free(nc->att);
    free(nc->chip_cores);
    free(nc->chip_out);
    free(nc->chip_in);
    free(nc->cache);
    for (int i = 0; i < nc->ngeom; i++) free(nc->geom[i].u);
    free(nc->geom);
    free(nc->amax);
    free(nc->asum);
    free(nc->mark);
    free(nc->moff);
    free(nc->mconc);
    free(nc->rconc);
    free(nc->rmark);
    free(nc->bconc);
    free(nc->att_vert);
    memset(nc, 0, sizeof *nc);
}

/* ------------------------------------------------------------------ */
/* accumulation                                                         */

static void acc(elk_noc *nc, int l, double cmax, double csum)
{
    if (l < 0) return;
    nc->amax[l] += cmax;
    nc->asum[l] += csum;
}

/* Emit the accumulated loads as uses of the open template and clear them.
 * A bundle's busiest member carries the evenly spread load plus its own
 * concentrated load; an internal class, its mean load or the busiest first
 * hop out of a router inside the block, whichever is larger. */
static int drain(elk_noc *nc, elk_use *out);
static void flush(elk_noc *nc) { drain(nc, NULL); }

/* Clear the accumulators into out (as uses), or into the open template when
 * out is NULL; returns the number of uses. */
static int drain(elk_noc *nc, elk_use *out)
{
    int n = 0;
    int nl = elk_net_nlinks(nc->net);
    const elk_link *links = elk_net_links(nc->net);
    double *intmax = NULL;
    if (nc->grid && !nc->detailed) {
        intmax = calloc((size_t)nc->ncell, sizeof *intmax);
        for (int r = 0; r < nc->R * nc->C * ELK_DIR_COUNT; r++)
            if (nc->rconc[r] > 0) {
                int y = r / ELK_DIR_COUNT / nc->C, x = r / ELK_DIR_COUNT % nc->C;
                int b = row_block(nc, y) * nc->nbc + col_block(nc, x);
                if (intmax && nc->rconc[r] > intmax[b]) intmax[b] = nc->rconc[r];
                nc->rconc[r] = 0;
            }
        for (int b = 0; b < nc->ncell; b++) {
            if (intmax && nc->bconc[b] > intmax[b]) intmax[b] = nc->bconc[b];
            nc->bconc[b] = 0;
        }
    }
    for (int l = 0; l < nl; l++) {
        double conc = 0;
        if (nc->moff && nc->moff[l] >= 0)
            for (int m = 0; m < (int)nc->lwidth[l]; m++) {
                double *v = &nc->mconc[nc->moff[l] + m];
                if (*v > conc) conc = *v;
                *v = 0;
            }
        if (nc->amax[l] > 0 || nc->asum[l] > 0) {
            const elk_link *lk = &links[l];
            double cmax = nc->amax[l] + conc;
            if (lk->kind == ELK_LK_MESH_INT) {
                cmax = nc->asum[l] / lk->count;
                if (intmax)
                    for (int b = 0; b < nc->ncell; b++)
                        if (nc->lint[lk->plane][b] == l) cmax = fmax(cmax, intmax[b]);
            }
            if (out) out[n] = (elk_use){l, cmax, nc->asum[l]};
            else elk_net_tmpl_add(nc->net, l, cmax, nc->asum[l]);
            n++;
        }
        nc->amax[l] = nc->asum[l] = 0;
    }
    free(intmax);
    return n;
}

static void acc_internal(elk_noc *nc, int plane, int b, double amt)
{
    if (amt > 0) acc(nc, nc->lint[plane][b], 0, amt);
}

/* How routes go round the rings of a torus: the shorter way, at a tie (half
 * way round an even ring) forwards when tie > 0, else backwards; wx, wy = +1
 * or -1 force one way round in X or Y instead (a multicast tree). */
typedef struct {
    int tie, wx, wy;
    /* clip: the traffic runs between cells of the tile [y0, y1) x [x0, x1)
     * (an exchange group), so a block it crosses is crossed over its part
     * of the tile only */
    int clip, y0, y1, x0, x1;
    /* flat: a torus's preload takes the mesh's routes, never a wrap-around
     * link (elk_noc.pre_flat) */
    int flat;
} noc_way;

/* Signed block steps along one dimension (force: 0, or the way round). */
static int steps(int from, int to, int nb, int wrap, int tie, int force)
{
    int d = to - from;
    if (wrap && nb > 1) {
        int fw = ((d % nb) + nb) % nb;
        if (fw == 0) return 0;
        if (force) return force > 0 ? fw : -(nb - fw);
        if (fw == nb - fw) return tie > 0 ? fw : -fw;
        return fw < nb - fw ? fw : -(nb - fw);
    }
    return d;
}

/* The way round one dimension of a multicast tree from from to a tile
 * spanning lo..hi (blocks). Members of a tile shorter than half the ring all
 * go the way of its centre: routing each the shorter way would split a tile
 * lying across the point opposite the source into two branches, one each
 * way round, and the tree could then be longer than the mesh's. A source
 * inside the tile's span routes each member the shorter way, which stays
 * inside the span (forcing one way would send the members behind it all the
 * way round the ring). A longer tile (a broadcast) takes the shorter way per
 * member. */
static int tree_way(int from, int lo, int hi, int nb, int wrap, int tie)
{
    if (!wrap || nb < 2 || 2 * (hi - lo + 1) >= nb || (from >= lo && from <= hi)) return 0;
    int s = steps(from, (lo + hi) / 2, nb, wrap, tie, 0);
    return s > 0 ? 1 : s < 0 ? -1 : 0;
}

/* The extent along X (alongx) or Y of block (i, j) a route crosses: the
 * block's, or with w.clip its part of the tile when they overlap (a route
 * the other way round a torus crosses blocks outside the tile). The fast
 * mode charged a group's route its blocks' whole extent, 85 hops for a
 * group of 64 on a ring of 1024 straddling two blocks of 86, against its
 * part of them. */
static int cross_extent(const elk_noc *nc, noc_way w, int alongx, int i, int j)
{
    int lo = alongx ? nc->bc0[j] : nc->br0[i], hi = alongx ? nc->bc0[j + 1] : nc->br0[i + 1];
    if (w.clip) {
        int tlo = alongx ? w.x0 : w.y0, thi = alongx ? w.x1 : w.y1;
        int a = lo > tlo ? lo : tlo, b = hi < thi ? hi : thi;
        if (b > a) return b - a;
    }
    return hi - lo;
}

/* Routes of a torus can tie (an even ring of blocks): traffic then goes
 * half each way round, as in the usual load analysis of tori, so callers
 * route each half separately (a multicast tree as two half trees). Without
 * the split every tie would load the forward links only, and a torus could
 * carry more on its busiest link than the mesh does. */
static int tie_halves(const elk_noc *nc)
{
    return nc->wrap && ((nc->nbc > 1 && nc->nbc % 2 == 0) || (nc->nbr > 1 && nc->nbr % 2 == 0)) ? 2 : 1;
}

/* The first hops out of router src of traffic spread over its own block
 * b, X first (Y first when yx): a cell in another column (row) is reached
 * by leaving east or west (south or north), one in the router's own column
 * (row) along it. Without these the links next to a controller carried
 * only the traffic bound for other blocks, and a ring of 12 blocks with a
 * controller or two, where those links bind, preloaded 1/11 faster than in
 * detailed mode. */
static void own_block_hops(elk_noc *nc, int b, int src, int yx, double amt)
{
    int i = b / nc->nbc, j = b % nc->nbc;
    int y0 = nc->br0[i], y1 = nc->br0[i + 1], x0 = nc->bc0[j], x1 = nc->bc0[j + 1];
    int sy = src / nc->C, sx = src % nc->C;
    double h = y1 - y0, w = x1 - x0, n = h * w;
    double e = x1 - 1 - sx, wst = sx - x0, so = y1 - 1 - sy, no = sy - y0;
    double f[ELK_DIR_COUNT];
    f[ELK_DIR_E] = yx ? e : e * h;
    f[ELK_DIR_W] = yx ? wst : wst * h;
    f[ELK_DIR_S] = yx ? so * w : so;
    f[ELK_DIR_N] = yx ? no * w : no;
    for (int d = 0; d < ELK_DIR_COUNT; d++) {
        int rd = src * ELK_DIR_COUNT + d;
        if (f[d] > 0) nc->rconc[rd] += amt * f[d] / n;
    }
}

/* Route amt between blocks (i1,j1) -> (i2,j2), X first (or Y first when
 * yx), adding bundle loads; with a mark value, a bundle already in this
 * multicast tree is not loaded again. src >= 0 is the router the traffic
 * leaves from: its first leg then stays on that router's row (column) of
 * each bundle instead of spreading over the bundle. fan is the number of
 * parallel lines the second leg splits into (a multicast tree reaching
 * fan columns (rows) of the destination block carries every byte on each).
 * Internal hops are charged in fast mode. */
static void route(elk_noc *nc, int plane, int i1, int j1, int i2, int j2, int yx, double amt, int markv, int src,
                  double fan, noc_way w)
{
    int wrap = nc->wrap && !w.flat;
    int dx = steps(j1, j2, nc->nbc, wrap, w.tie, w.wx), dy = steps(i1, i2, nc->nbr, wrap, w.tie, w.wy);
    int i = i1, j = j1;
    int fast = !nc->detailed;
    if (fast && src >= 0 && !dx && !dy && !markv) {
        /* spread traffic (not a tree's member block: its tree's hops are
         * charged once, below, on the way to its other blocks) */
        own_block_hops(nc, i1 * nc->nbc + j1, src, yx, amt);
    } else if (fast && src >= 0 && (dx || dy)) {
        /* The first hop out of the source router, once per tree, when it
         * stays inside the block (else it is the bundle member loaded as
         * concentrated below). Per direction: on a torus a router's
         * traffic leaves it both ways round. */
        int n0 = yx ? dy : dx, firstx = n0 ? !yx : yx, n = n0 ? n0 : (yx ? dx : dy);
        int d = firstx ? (n > 0 ? ELK_DIR_E : ELK_DIR_W) : (n > 0 ? ELK_DIR_S : ELK_DIR_N);
        int sy = src / nc->C, sx = src % nc->C;
        int inside = d == ELK_DIR_E ? sx + 1 < nc->bc0[j1 + 1]
                   : d == ELK_DIR_W ? sx - 1 >= nc->bc0[j1]
                   : d == ELK_DIR_S ? sy + 1 < nc->br0[i1 + 1]
                                    : sy - 1 >= nc->br0[i1];
        int rd = src * ELK_DIR_COUNT + d;
        if (inside && (!markv || nc->rmark[rd] != markv)) nc->rconc[rd] += amt;
        if (markv) nc->rmark[rd] = markv;
    }
    for (int leg = 0; leg < 2; leg++) {
        int alongx = (leg == 0) != (yx != 0);
        int n = alongx ? dx : dy;
        int dir = alongx ? (n > 0 ? ELK_DIR_E : ELK_DIR_W) : (n > 0 ? ELK_DIR_S : ELK_DIR_N);
        int cnt = n > 0 ? n : -n;
        int conc = leg == 0 && src >= 0; /* the first leg runs on the source's row/column */
        for (int s = 0; s < cnt; s++) {
            int b = i * nc->nbc + j;
            int l = nc->lk[plane][dir][b];
            int fresh = 1;
            if (l >= 0 && markv) {
                if (nc->mark[l] == markv) fresh = 0;
                else nc->mark[l] = markv;
            }
            if (fresh && l >= 0) {
                if (conc && nc->moff[l] >= 0) {
                    int m = alongx ? src / nc->C - nc->br0[i] : src % nc->C - nc->bc0[j];
                    if (m < 0) m = 0;
                    if (m >= (int)nc->lwidth[l]) m = (int)nc->lwidth[l] - 1;
                    nc->mconc[nc->moff[l] + m] += amt;
                    nc->asum[l] += amt;
                } else if (leg == 1 && fan > 1) {
                    double w = nc->lwidth[l];
                    acc(nc, l, amt * fmin(fan, w) / w, amt * fan);
                } else {
                    acc(nc, l, amt / nc->lwidth[l], amt);
                }
                if (fast) {
                    /* half of this block's extent, then half of the next */
                    double ext = cross_extent(nc, w, alongx, i, j) - 1;
                    acc_internal(nc, plane, b, amt * ext / 2 * (leg == 1 && fan > 1 ? fan : 1));
                }
            }
            if (alongx) j = ((j + (n > 0 ? 1 : -1)) % nc->nbc + nc->nbc) % nc->nbc;
            else i = ((i + (n > 0 ? 1 : -1)) % nc->nbr + nc->nbr) % nc->nbr;
            if (fresh && fast) {
                double ext = cross_extent(nc, w, alongx, i, j) - 1;
                acc_internal(nc, plane, i * nc->nbc + j, amt * ext / 2 * (leg == 1 && fan > 1 ? fan : 1));
            }
        }
    }
}

static void ports_all(elk_noc *nc, int plane, int in, int out)
{
    for (int b = 0; b < nc->ncell; b++) {
        double n = nc->cell_cores[b];
        if (in) acc(nc, nc->port_in[plane][b], 1, n);
        if (out) {
            acc(nc, nc->port_out[b], 1, n);
            acc(nc, nc->engine[b], 1, n);
        }
    }
}

/* ------------------------------------------------------------------ */
/* template cache                                                       */

static int cache_get(const elk_noc *nc, int type, int ctrl, int plane, double v, double cap)
{
    for (int i = nc->ncache - 1; i >= 0; i--) {
        const noc_cache_ent *e = &nc->cache[i];
        if (e->type == type && e->ctrl == ctrl && e->plane == plane && e->v == v && e->cap == cap) return e->tmpl;
    }
    return -1;
}

static int cache_put(elk_noc *nc, int type, int ctrl, int plane, double v, double cap, int tmpl)
{
    if (tmpl < 0) return -1;
    assert(cache_get(nc, type, ctrl, plane, v, cap) < 0); /* a key goes from missing to cached once */
    if (nc->ncache == nc->capcache) {
        int cap = nc->capcache ? nc->capcache * 2 : 64;
        noc_cache_ent *e = realloc(nc->cache, (size_t)cap * sizeof *e);
        if (!e) return -1;
        nc->cache = e;
        nc->capcache = cap;
    }
    nc->cache[nc->ncache++] = (noc_cache_ent){type, ctrl, plane, v, cap, tmpl};
    return tmpl;
}

int elk_noc_route_hops(const elk_noc *nc, int a, int b)
{
    if (!nc->grid) return 0;
    int dx = steps(a % nc->C, b % nc->C, nc->C, nc->wrap, 1, 0), dy = steps(a / nc->C, b / nc->C, nc->R, nc->wrap, 1, 0);
    return abs(dx) + abs(dy);
}

double elk_noc_ctrl_dests(const elk_noc *nc, int ctrl)
{
    if (!nc->grid) return nc->chip_cores[nc->ctrl_chip[ctrl]];
    return nc->chip.cores;
}

int elk_noc_is_fabric(const elk_noc *nc, int l)
{
    elk_link_kind k = elk_net_links(nc->net)[l].kind;
    if (nc->grid) return k == ELK_LK_MESH || k == ELK_LK_MESH_INT;
    return k == ELK_LK_PORT_IN;
}

/* ------------------------------------------------------------------ */
/* preload                                                              */

/* The router through which controller k sends to core (y, x): the
 * controller's routers share its destinations in proportion, in order
 * along its edge (destinations by row for a segment down a column, by
 * column for one along a row), so every router of a segment carries the
 * same share. */
static int entry_idx(const elk_noc *nc, int k, int y, int x)
{
    int n = nc->natt[k];
    if (n == 1) return 0;
    long key = nc->att_vert[k] ? (long)y * nc->C + x : (long)x * nc->R + y;
    long idx = key * n / ((long)nc->R * nc->C);
    return (int)(idx >= n ? n - 1 : idx);
}

/* Route from router e towards block (bi, bj): leave the controller's edge
 * first (X first from a west or east router, Y first from a north or south
 * one). */
static void route_from(elk_noc *nc, int plane, int e, int bi, int bj, double amt, int markv, int rows, int cols,
                       noc_way w)
{
    int ey = e / nc->C, ex = e % nc->C;
    int yx = nc->R > 1 && ex != 0 && ex != nc->C - 1;
    route(nc, plane, row_block(nc, ey), col_block(nc, ex), bi, bj, yx, amt, markv, e, yx ? rows : cols, w);
}

/* The ways round of a tree from router e to the tile of blocks
 * [bi0, bi1] x [bj0, bj1]. */
static noc_way tile_way(const elk_noc *nc, int e, int bi0, int bi1, int bj0, int bj1, int tie)
{
    int ei = row_block(nc, e / nc->C), ej = col_block(nc, e % nc->C);
    int wrap = nc->wrap && !nc->pre_flat;
    noc_way w = {.tie = tie, .wx = tree_way(ej, bj0, bj1, nc->nbc, wrap, tie), .wy = tree_way(ei, bi0, bi1, nc->nbr, wrap, tie),
                 .flat = nc->pre_flat};
    return w;
}

/* One way round a wrapped dimension from coordinate s to the centre c of a
 * block, on a ring of n: +1 or -1, 0 at a tie (half way round). */
static int way_to(double s, double c, int n)
{
    double fw = fmod(c - s + n, n);
    if (fw == 0 || fabs(fw - (n - fw)) < 1e-9) return 0;
    return fw < n - fw ? 1 : -1;
}

/* The ways round from router e to block (bi, bj) of traffic spread over the
 * block, by the router's cells rather than its block's: a controller at
 * the edge of its block is nearer the next blocks one way round than the
 * block indices say (a ring of 12 blocks sent a half of the block opposite
 * the controller's block each way, though most of it is nearer one way).
 * tie is 1 when the block's centre is half way round (the caller splits
 * the traffic), else 0. */
static noc_way spread_way(const elk_noc *nc, int e, int bi, int bj)
{
    noc_way w = {.tie = 0, .flat = nc->pre_flat};
    if (!nc->wrap || nc->pre_flat) return w;
    int ey = e / nc->C, ex = e % nc->C, ei = row_block(nc, ey), ej = col_block(nc, ex);
    if (nc->nbc > 1 && bj != ej) {
        w.wx = way_to(ex, (nc->bc0[bj] + nc->bc0[bj + 1] - 1) / 2.0, nc->C);
        if (!w.wx) w.tie = 1;
    }
    if (nc->nbr > 1 && bi != ei) {
        w.wy = way_to(ey, (nc->br0[bi] + nc->br0[bi + 1] - 1) / 2.0, nc->R);
        if (!w.wy) w.tie = 1;
    }
    return w;
}

static void next_mark(elk_noc *nc)
{
    if (++nc->markv == 0x7fffffff) {
        memset(nc->mark, 0, (size_t)elk_net_nlinks(nc->net) * sizeof *nc->mark);
        if (nc->rmark) memset(nc->rmark, 0, (size_t)nc->R * nc->C * ELK_DIR_COUNT * sizeof *nc->rmark);
        nc->markv = 1;
    }
}

/* Multicast trees of controller k's preload with replication r: replica
 * groups are near-square tiles of r cores; each group's unique bytes travel
 * once along the union of the routes to its members. */
static void preload_grid(elk_noc *nc, int k, int tr, int tc, int plane, double scale)
{
    int R = nc->R, C = nc->C;
    int nty = (R + tr - 1) / tr, ntx = (C + tc - 1) / tc;
    double r = (double)tr * tc;
    int nb = nc->ncell, na = nc->natt[k];
    /* fast mode: groups wholly inside one block, by block and entry router */
    double *inner = nc->detailed ? NULL : calloc((size_t)nb * na, sizeof *inner);
    if (!nc->detailed && !inner) return;
    for (int ty = 0; ty < nty; ty++)
        for (int tx = 0; tx < ntx; tx++) {
            int y0 = ty * tr, y1 = y0 + tr < R ? y0 + tr : R;
            int x0 = tx * tc, x1 = x0 + tc < C ? x0 + tc : C;
            int bi0 = row_block(nc, y0), bi1 = row_block(nc, y1 - 1);
            int bj0 = col_block(nc, x0), bj1 = col_block(nc, x1 - 1);
            /* a group's bytes enter the mesh once, at the router serving its centre */
            int ai = entry_idx(nc, k, (y0 + y1 - 1) / 2, (x0 + x1 - 1) / 2);
            int e = nc->att[nc->att0[k] + ai];
            int halves = nc->pre_flat ? 1 : tie_halves(nc);
            if (nc->detailed) {
                for (int h = 0; h < halves; h++) {
                    noc_way w = tile_way(nc, e, y0, y1 - 1, x0, x1 - 1, h ? -1 : 1);
                    next_mark(nc);
                    for (int y = y0; y < y1; y++)
                        for (int x = x0; x < x1; x++) route_from(nc, plane, e, y, x, scale / halves, nc->markv, 1, 1, w);
                }
                continue;
            }
            if (bi0 == bi1 && bj0 == bj1) {
                inner[(size_t)(bi0 * nc->nbc + bj0) * na + ai] += scale;
                continue;
            }
            /* a group spanning blocks: one tree to its member blocks (a half
             * tree each way round at ties) */
            for (int h = 0; h < halves; h++) {
                noc_way w = tile_way(nc, e, bi0, bi1, bj0, bj1, h ? -1 : 1);
                next_mark(nc);
                for (int bi = bi0; bi <= bi1; bi++)
                    for (int bj = bj0; bj <= bj1; bj++) {
                        int my0 = y0 > nc->br0[bi] ? y0 : nc->br0[bi];
                        int my1 = y1 < nc->br0[bi + 1] ? y1 : nc->br0[bi + 1];
                        int mx0 = x0 > nc->bc0[bj] ? x0 : nc->bc0[bj];
                        int mx1 = x1 < nc->bc0[bj + 1] ? x1 : nc->bc0[bj + 1];
                        route_from(nc, plane, e, bi, bj, scale / halves, nc->markv, my1 - my0, mx1 - mx0, w);
                    }
            }
            for (int bi = bi0; bi <= bi1; bi++)
                for (int bj = bj0; bj <= bj1; bj++) {
                    int my0 = y0 > nc->br0[bi] ? y0 : nc->br0[bi];
                    int my1 = y1 < nc->br0[bi + 1] ? y1 : nc->br0[bi + 1];
                    int mx0 = x0 > nc->bc0[bj] ? x0 : nc->bc0[bj];
                    int mx1 = x1 < nc->bc0[bj + 1] ? x1 : nc->bc0[bj + 1];
                    double m = (double)(my1 - my0) * (mx1 - mx0);
                    acc_internal(nc, plane, bi * nc->nbc + bj, scale * (m - 1));
                }
        }
    if (inner) {
        for (int b = 0; b < nb; b++)
            for (int ai = 0; ai < na; ai++) {
                double amt = inner[(size_t)b * na + ai];
                if (amt <= 0) continue;
                int bi = b / nc->nbc, bj = b % nc->nbc, halves = nc->pre_flat ? 1 : tie_halves(nc);
                int e = nc->att[nc->att0[k] + ai];
                noc_way w0 = spread_way(nc, e, bi, bj);
                halves = w0.tie ? halves : 1;
                for (int h = 0; h < halves; h++) {
                    noc_way w = {.tie = h ? -1 : 1, .wx = w0.wx, .wy = w0.wy, .flat = w0.flat};
                    route_from(nc, plane, e, bi, bj, amt / halves, 0,
                               tr < blk_rows(nc, bi) ? tr : blk_rows(nc, bi), tc < blk_cols(nc, bj) ? tc : blk_cols(nc, bj),
                               w);
                }
                /* inside the block: a tree of r - 1 links per group plus the way in */
                double in = (r - 1) + (blk_rows(nc, bi) + blk_cols(nc, bj)) / 4.0;
                acc_internal(nc, plane, b, amt * in);
            }
        free(inner);
    }
}

/* The link loads of controller k's multicast trees for replica groups of
 * tr x tc cores, per unit of bytes per tile (cached: replications that
 * round to the same tile share them). */
static const noc_geom *preload_geom(elk_noc *nc, int k, int tr, int tc, int plane)
{
    for (int i = 0; i < nc->ngeom; i++) {
        const noc_geom *g = &nc->geom[i];
        if (g->ctrl == k && g->plane == plane && g->tr == tr && g->tc == tc) return g;
    }
    if (nc->ngeom == nc->capgeom) {
        int cap = nc->capgeom ? nc->capgeom * 2 : 32;
        noc_geom *ng = realloc(nc->geom, (size_t)cap * sizeof *ng);
        if (!ng) return NULL;
        nc->geom = ng;
        nc->capgeom = cap;
    }
    elk_use *u = malloc((size_t)elk_net_nlinks(nc->net) * sizeof *u);
    if (!u) return NULL;
    int flat = nc->pre_flat, tile_flat = -1;
    for (int i = 0; i < nc->ngeom && tile_flat < 0; i++) /* decided once per tile shape */
        if (nc->geom[i].tr == tr && nc->geom[i].tc == tc) tile_flat = nc->geom[i].flat;
    nc->pre_flat = tile_flat >= 0 ? tile_flat : elk_tree_flat(nc, tr, tc);
    tile_flat = nc->pre_flat;
    if (k >= 0) {
        preload_grid(nc, k, tr, tc, plane, 1.0);
    } else {
        /* all controllers at once, each with its share */
        for (int c = 0; c < nc->nctrl; c++) preload_grid(nc, c, tr, tc, plane, 1.0 / nc->nctrl);
    }
    nc->pre_flat = flat;
    int n = drain(nc, u);
    elk_use *fit = realloc(u, (size_t)(n ? n : 1) * sizeof *fit);
    noc_geom *g = &nc->geom[nc->ngeom++];
    *g = (noc_geom){k, plane, tr, tc, tile_flat, n, fit ? fit : u};
    return g;
}

/* A torus's preloads leave each entry router the shorter way round, which
 * with controllers on the edges can load the rows and columns next to them
 * more than the mesh's routes do: controllers on opposite edges are
 * neighbours through the wrap-around links (a 16 x 16 torus with 16 `edges`
 * controllers delivered 12% less than the mesh). A torus holds the mesh's
 * links, so its routing tables can always route like the mesh's: the
 * preloads take the mesh's routes when those load the busiest link less at
 * r = 1, decided once per network. The decision sums every link's load as
 * the detailed mode routes (elk_grid_torus_flat, checked against
 * it in tests/test_sim.c), so both modes and the planner route alike; the
 * fast mode's blocks would judge the shorter way round too kindly. Each
 * replica tile shape then decides again from its exact trees
 * (elk_tree_flat), where replication can reverse the choice. */
static void choose_preload_routes(elk_noc *nc) { nc->pre_flat = elk_grid_torus_flat(&nc->chip); }

double elk_noc_preload_norm(const elk_noc *nc, const elk_use *u, int n, double scale)
{
    const elk_link *lk = elk_net_links(nc->net);
    double m = 1; /* a core's port takes 1 per unit */
    for (int i = 0; i < n; i++) {
        const elk_link *l = &lk[u[i].link];
        if (l->kind == ELK_LK_MESH || l->kind == ELK_LK_MESH_INT) m = fmax(m, u[i].cmax * scale);
    }
    return m;
}

int elk_noc_preload(elk_noc *nc, int k, double r, int plane) { return elk_noc_preload_capped(nc, k, r, plane, INFINITY); }

int elk_noc_preload_capped(elk_noc *nc, int k, double r, int plane, double cap)
{
    if (r < 1) r = 1;
    if (plane >= nc->planes) plane = 0;
    if (!(cap > 0)) cap = INFINITY;
    int t = cache_get(nc, PAT_PRELOAD, k, plane, r, cap);
    if (t >= 0) return t;
    if (k < 0 && !nc->grid) return -1;
    double dests = k < 0 ? nc->chip.cores : elk_noc_ctrl_dests(nc, k);
    const noc_geom *g = NULL;
    double scale = 1;
    if (nc->grid) {
        int tr, tc;
        elk_tree_tile(nc->R, nc->C, r, &tr, &tc);
        g = preload_geom(nc, k, tr, tc, plane);
        if (!g) return -1;
        /* unique bytes per tile, per unit of rate */
        scale = ((double)nc->chip.cores / r) / ((double)((nc->R + tr - 1) / tr) * ((nc->C + tc - 1) / tc));
    }
    /* the whole preload weighs as much as one execution transfer */
    int kc = k < 0 ? 1 : nc->grid ? nc->nctrl : nc->nctrl / nc->nchips;
    elk_net_tmpl_begin(nc->net, ELK_XF_PRELOAD, 1.0 / kc, dests, 1.0 / r);
    if (k >= 0) acc(nc, nc->hbm[k], dests / r, dests / r);
    else
        for (int c = 0; c < nc->nctrl; c++) acc(nc, nc->hbm[c], dests / r / nc->nctrl, dests / r / nc->nctrl);
    if (!nc->grid) {
        for (int b = 0; b < nc->ncell; b++)
            if (nc->cell_chip[b] == nc->ctrl_chip[k]) acc(nc, nc->port_in[plane][b], 1, nc->cell_cores[b]);
    } else {
        ports_all(nc, plane, 1, 0);
    }
    flush(nc);
    if (g)
        for (int i = 0; i < g->n; i++) elk_net_tmpl_add(nc->net, g->u[i].link, g->u[i].cmax * scale, g->u[i].csum * scale);
    if (g && k >= 0) {
        /* every controller's template weighs by the whole preload's bytes
         * on its most loaded link (its trees summed, elk_tree_preload's
         * template in the fast mode): by its own, the controllers of one
         * preload drifted apart, and a preload alone on a 16 x 16 mesh
         * with 16 controllers ran 9% below its busiest-link rate */
        const noc_geom *ga = preload_geom(nc, -1, g->tr, g->tc, plane);
        if (ga) elk_net_tmpl_norm(nc->net, elk_noc_preload_norm(nc, ga->u, ga->n, scale));
    }
    elk_net_tmpl_cap(nc->net, cap);
    return cache_put(nc, PAT_PRELOAD, k, plane, r, cap, elk_net_tmpl_end(nc->net));
}

/* ------------------------------------------------------------------ */
/* execution traffic                                                    */

int elk_noc_shift(elk_noc *nc)
{
    int t = cache_get(nc, PAT_SHIFT, 0, 0, 0, INFINITY);
    if (t >= 0) return t;
    elk_net_tmpl_begin(nc->net, ELK_XF_EXEC, 1.0, nc->chip.cores, 1.0);
    ports_all(nc, 0, 1, 1);
    if (nc->grid) {
        /* folded rings along each row: every directed X link carries one
         * stream (along Y on a one-column grid) */
        int alongx = nc->C > 1;
        for (int b = 0; b < nc->ncell; b++) {
            int i = b / nc->nbc, j = b % nc->nbc;
            int h = blk_rows(nc, i), w = blk_cols(nc, j);
            int d0 = alongx ? ELK_DIR_E : ELK_DIR_S;
            for (int d = d0; d < d0 + 2; d++) {
                int l = nc->lk[0][d][b];
                if (l >= 0) acc(nc, l, 1, nc->lwidth[l]);
            }
            double in = alongx ? 2.0 * h * (w - 1) : 2.0 * w * (h - 1);
            if (!nc->detailed && nc->lint[0][b] >= 0 && in > 0) acc(nc, nc->lint[0][b], 0, in);
        }
    }
    flush(nc);
    return cache_put(nc, PAT_SHIFT, 0, 0, 0, INFINITY, elk_net_tmpl_end(nc->net));
}

/* Mean XY hops between two distinct cells of an h x w tile: over ordered
 * pairs, sum |dx| = h^2 w (w^2 - 1) / 3 and sum |dy| = w^2 h (h^2 - 1) / 3,
 * over m (m - 1) pairs (m = h w). 1 for a pair of neighbours; about
 * (h + w) / 3 for a big tile. Fast mode charged (h + w) / 3 of the whole
 * block to any group's pairs in it, 29 hops for neighbours on a ring of
 * 1024 in blocks of 86, and an exchange in groups of 2 ran 15x slower
 * than in detailed mode. */
static double pair_hops(double h, double w)
{
    double m = h * w;
    if (m < 2) return 0;
    return (h * h * w * (w * w - 1) + w * w * h * (h * h - 1)) / (3 * m * (m - 1));
}

/* Fast mode: the busiest link of a group's exchange is on the cut halving
 * the tile's longer side; with XY routes each of the cut's links carries
 * the pairs of its row (column) across it, (side / 2) x (the other half)
 * / (m - 1) per unit. A cut inside a block raises that block's internal
 * class to it (its mean alone made a group of 64 on a ring exchange 10%
 * faster than in detailed mode); a cut on a block boundary is the
 * bundle's, loaded by the routes between blocks. */
static void group_cut(elk_noc *nc, int y0, int y1, int x0, int x1)
{
    int th = y1 - y0, tw = x1 - x0;
    double m = (double)th * tw;
    if (m < 2) return;
    int lx = tw >= th, side = lx ? tw : th, across = lx ? th : tw;
    double half = (double)(side / 2) * across, cut = half * (m - half) / (m - 1) / across;
    int c = (lx ? x0 : y0) + side / 2; /* the cut lies between c - 1 and c */
    if (lx ? col_block(nc, c - 1) != col_block(nc, c) : row_block(nc, c - 1) != row_block(nc, c)) return;
    int k0 = lx ? row_block(nc, y0) : col_block(nc, x0), k1 = lx ? row_block(nc, y1 - 1) : col_block(nc, x1 - 1);
    for (int k = k0; k <= k1; k++) {
        int b = lx ? k * nc->nbc + col_block(nc, c) : row_block(nc, c) * nc->nbc + k;
        if (cut > nc->bconc[b]) nc->bconc[b] = cut;
    }
}

static void exchange_grid(elk_noc *nc, double g)
{
    int R = nc->R, C = nc->C;
    int tr, tc;
    elk_tree_tile(R, C, g, &tr, &tc);
    int nty = (R + tr - 1) / tr, ntx = (C + tc - 1) / tc, halves = tie_halves(nc);
    int maxb = nc->ncell;
    int *bl = malloc((size_t)maxb * sizeof *bl);
    double *bm = malloc((size_t)maxb * sizeof *bm);
    int *bh = malloc((size_t)maxb * sizeof *bh), *bw = malloc((size_t)maxb * sizeof *bw);
    if (!bl || !bm || !bh || !bw) {
        free(bl);
        free(bm);
        free(bh);
        free(bw);
        return;
    }
    for (int ty = 0; ty < nty; ty++)
        for (int tx = 0; tx < ntx; tx++) {
            int y0 = ty * tr, y1 = y0 + tr < R ? y0 + tr : R;
            int x0 = tx * tc, x1 = x0 + tc < C ? x0 + tc : C;
            double gm = (double)(y1 - y0) * (x1 - x0);
            if (gm < 2) continue;
            int bi0 = row_block(nc, y0), bi1 = row_block(nc, y1 - 1);
            int bj0 = col_block(nc, x0), bj1 = col_block(nc, x1 - 1);
            int n = 0;
            for (int bi = bi0; bi <= bi1; bi++)
                for (int bj = bj0; bj <= bj1; bj++) {
                    int my0 = y0 > nc->br0[bi] ? y0 : nc->br0[bi];
                    int my1 = y1 < nc->br0[bi + 1] ? y1 : nc->br0[bi + 1];
                    int mx0 = x0 > nc->bc0[bj] ? x0 : nc->bc0[bj];
                    int mx1 = x1 < nc->bc0[bj + 1] ? x1 : nc->bc0[bj + 1];
                    bl[n] = bi * nc->nbc + bj;
                    bh[n] = my1 - my0;
                    bw[n] = mx1 - mx0;
                    bm[n++] = (double)(my1 - my0) * (mx1 - mx0);
                }
            if (!nc->detailed) group_cut(nc, y0, y1, x0, x1);
            for (int a = 0; a < n; a++) {
                int ia = bl[a] / nc->nbc, ja = bl[a] % nc->nbc;
                if (!nc->detailed && bm[a] > 1)
                    /* pairs inside one block: the mean hops between two
                     * members of the group's part of it */
                    acc_internal(nc, 0, bl[a], bm[a] * (bm[a] - 1) / (gm - 1) * pair_hops(bh[a], bw[a]));
                for (int b = 0; b < n; b++) {
                    if (a == b) continue;
                    double amt = bm[a] * bm[b] / (gm - 1);
                    for (int h = 0; h < halves; h++) {
                        noc_way w = {h ? -1 : 1, 0, 0, 1, y0, y1, x0, x1, 0};
                        route(nc, 0, ia, ja, bl[b] / nc->nbc, bl[b] % nc->nbc, 0, amt / halves, 0, -1, 1, w);
                    }
                }
            }
        }
    free(bl);
    free(bm);
    free(bh);
    free(bw);
}

int elk_noc_exchange(elk_noc *nc, double g)
{
    if (g > nc->chip.cores) g = nc->chip.cores;
    int t = cache_get(nc, PAT_EXCH, 0, 0, g, INFINITY);
    if (t >= 0) return t;
    elk_net_tmpl_begin(nc->net, ELK_XF_EXEC, 1.0, nc->chip.cores, 1.0);
    ports_all(nc, 0, 1, 1);
    if (nc->grid && g >= 2) exchange_grid(nc, g);
    if (nc->nchips > 1 && g > nc->chip.cores_per_chip) {
        /* groups span chips: chip k's c_k cores send c_k (n - c_k) / n of a
         * core's bytes to the others, and receive as much
         * (elk_cost_chip_cross); (chips-1)/chips of each chip's bytes where
         * the chips are equal. Charging that to a partly used last chip's
         * big partner too made a 96-core pod of 80-core chips 1.7x slower
         * on every exchange than uniform traffic is (issue 9) */
        double n = nc->chip.cores;
        for (int k = 0; k < nc->nchips; k++) {
            double x = nc->chip_cores[k] * (n - nc->chip_cores[k]) / n;
            acc(nc, nc->chip_out[k], x, x);
            acc(nc, nc->chip_in[k], x, x);
        }
    }
    flush(nc);
    return cache_put(nc, PAT_EXCH, 0, 0, g, INFINITY, elk_net_tmpl_end(nc->net));
}
