#include "elk_cost.h"
#include "elk_grid.h"
#include "elk_noc.h"
#include "elk_tree.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elk_num.h"

static double cdiv(double a, double b) { return ceil(a / b); }

/* cdiv((double)x, q) for a positive integer q (6, 16) by integer division:
 * for 0 < x < 2^30 the quotient x / q is never within rounding of the next
 * integer (it is k + r/q with r < q), so ceil of the rounded quotient is the
 * integer ceiling; outside that range, the double expression itself. */
static double cdiv_l(long x, long q)
{
    if (x > 0 && x < (1L << 30)) return (double)((x + q - 1) / q);
    return cdiv((double)x, (double)q);
}

static double points(const elk_op *op, const long *sub)
{
    double p = 1;
    for (int d = 0; d < op->ndims; d++) p *= (double)sub[d];
    return p;
}

static double out_points(const elk_op *op, const long *sub)
{
    double p = 1;
    for (int a = 0; a < op->t[0].naxes; a++) p *= (double)sub[op->t[0].axis[a]];
    return p;
}

static double ipu_reduce(const elk_cost_coef *k, double n, double o)
{
    static const double align[] = {1, 2, 4, 8, 12, 16, 24};
    double al = 0;
    for (int i = 0; i < 7; i++)
        if (o <= align[i]) {
            al = align[i];
            break;
        }
    if (al == 0) al = 48 * ceil(o / 48);
    double x = al * (n / o);
    if (x <= k->red_knee) return elk_fmin(k->red_cap, k->red_slope * x + k->red_fixed);
    return k->red_slope2 * x + k->red_fixed;
}

/* One m x k by k x n tile: mm_block cycles per 6x16x16 MAC block (64
 * MAC/cycle), plus per-(k,n)-block and per-n-block overheads; from its block
 * counts m6 = ceil(m / 6), n16 = ceil(n / 16), k16 = ceil(k / 16). */
static double ipu_mm(const elk_cost_coef *k, double blk, double m6, double n16, double k16)
{
    return blk * m6 * k16 * n16 + k->mm_kn * k16 * n16 + k->mm_n * n16 + k->mm_fixed;
}

static double ipu_elem(const elk_cost_coef *k, double n)
{
    if (n <= k->elem_knee) return elk_fmin(k->elem_cap, k->elem_slope * n + k->elem_fixed);
    return k->elem_slope2 * n + k->elem_fixed2;
}

double elk_cost_compute(const elk_chip *c, const elk_op *op, const long *sub)
{
    const elk_cost_coef *k = &c->cost;
    if (c->cost.kind == ELK_COSTK_IPU && op->kind == ELK_OP_MATMUL) {
        /* dims [batch.., m, n, k]; the block counts from the extents as
         * integers (the planners call this millions of times) */
        int nd = op->ndims;
        double b = 1;
        for (int d = 0; d < nd - 3; d++) b *= (double)sub[d];
        long m = sub[nd - 3], nn = sub[nd - 2], kk = sub[nd - 1];
        /* The kernel library may compute C or C^T (swapping the roles of
         * m and n); the artifact's "m >= n unless m <= 16" rule picks an
         * orientation, we take the faster one. For decode attention this
         * is the GEMV orientation (the KV matrix on the 6-row side). */
        double blk = k->mm_block * 64.0 / c->matmul_macs_per_cycle;
        double k16 = cdiv_l(kk, 16);
        double t1 = ipu_mm(k, blk, cdiv_l(m, 6), cdiv_l(nn, 16), k16);
        double t2 = ipu_mm(k, blk, cdiv_l(nn, 6), cdiv_l(m, 16), k16);
        return b * elk_fmin(t1, t2);
    }
    double n = points(op, sub);
    if (c->cost.kind == ELK_COSTK_IPU) {
        switch (op->kind) {
        case ELK_OP_ELEMWISE: return ipu_elem(k, n) * 2.0 / c->vector_elems_per_cycle;
        case ELK_OP_UNARY: return (k->unary_slope * n + k->unary_fixed) * 2.0 / c->vector_elems_per_cycle;
        case ELK_OP_REDUCE: return ipu_reduce(k, n, out_points(op, sub)) * 2.0 / c->vector_elems_per_cycle;
        default: return n;
        }
    }
    switch (op->kind) {
    case ELK_OP_MATMUL: return n / c->matmul_macs_per_cycle + k->op_overhead;
    case ELK_OP_UNARY: return 2.0 * n / c->vector_elems_per_cycle + k->op_overhead;
    default: return n / c->vector_elems_per_cycle + k->op_overhead;
    }
}

int elk_cost_split_monotone(const elk_chip *c, const elk_op *op)
{
    const elk_cost_coef *k = &c->cost;
    if (c->cost.kind == ELK_COSTK_IPU)
        return op->kind == ELK_OP_MATMUL && k->mm_block >= 0 && k->mm_kn >= 0 && k->mm_n >= 0 && k->mm_fixed >= 0 &&
               c->matmul_macs_per_cycle > 0;
    return k->op_overhead >= 0 && c->matmul_macs_per_cycle > 0 && c->vector_elems_per_cycle > 0;
}

double elk_cost_vector_add(const elk_chip *c, double elems)
{
    if (elems <= 0) return 0;
    if (c->cost.kind == ELK_COSTK_IPU) return ipu_elem(&c->cost, elems) * 2.0 / c->vector_elems_per_cycle;
    return elems / c->vector_elems_per_cycle + c->cost.op_overhead;
}

double elk_cost_partial_reduce(const elk_chip *c, double copies, double out_elems)
{
    if (copies <= 1 || out_elems <= 0) return 0;
    double r = out_elems / copies; /* the artifact reduces o/n outputs of n copies */
    if (c->cost.kind != ELK_COSTK_IPU) return out_elems / c->vector_elems_per_cycle + c->cost.op_overhead;
    if (copies < 3) return ipu_elem(&c->cost, r) * 2.0 / c->vector_elems_per_cycle;
    return ipu_reduce(&c->cost, r * copies, r) * 2.0 / c->vector_elems_per_cycle;
}

void elk_cost_unfused(const elk_chip *c, const elk_op *op, double *comp, double *syncs, double *shift_bytes)
{
    *comp = *syncs = *shift_bytes = 0;
    if (!(c->profile & (1u << ELK_PSW_UNFUSED)) || op->unf_elem + op->unf_row + op->unf_slice == 0) return;
    double n = points(op, op->dim), rows = out_points(op, op->dim);
    double per = ceil(n / c->cores), per_row = ceil(rows / c->cores), per_slice = ceil(n / 2.0 / c->cores);
    double vec = 2.0 / c->vector_elems_per_cycle;
    double el = c->cost.kind == ELK_COSTK_IPU ? ipu_elem(&c->cost, per) * vec : per * vec / 2 + c->cost.op_overhead;
    double rw = c->cost.kind == ELK_COSTK_IPU ? ipu_elem(&c->cost, per_row) * vec
                                              : per_row * vec / 2 + c->cost.op_overhead;
    /* a slice copies its elements at the exchange rate plus one sync
     * (the artifact's 0.56 |out| + 118), then re-lays out its output */
    double sl = per_slice * op->dtype_bytes * c->cost.xchg_cycles_per_byte + c->sync_cycles;
    *comp = op->unf_elem * el + op->unf_row * rw + op->unf_slice * sl;
    *syncs = op->unf_elem + op->unf_row + 6.0 * op->unf_slice;
    *shift_bytes = op->unf_slice * per_slice * op->dtype_bytes;
}

double elk_cost_shift_cpb(const elk_chip *c)
{
    /* the IPU's fitted exchange rate, but never faster than the core's port
     * (a --link-gbps below it would otherwise move more bytes than the port
     * carries) */
    double port = c->cost.kind == ELK_COSTK_IPU
                      ? elk_fmax(c->cost.xchg_cycles_per_byte / c->noc_scale, 1.0 / elk_chip_link_bytes_per_cycle(c))
                      : 1.0 / elk_chip_link_bytes_per_cycle(c);
    if (c->topology != ELK_TOPO_ALL2ALL) port = elk_fmax(port, 1.0 / elk_chip_mesh_link_bytes_per_cycle(c));
    return port;
}

/* The cut of a group of g cores on a mesh or torus as the simulator lays it
 * out (elk_noc's exchange_grid): a tile of elk_tree_tile's shape, the most
 * square factorisation of g, so a prime group is a strip. Each member
 * receives its bytes from the g - 1 others, so the busiest link of the cut
 * halving the tile's longer side carries half (m - half) / (m - 1) / across
 * of a member's bytes; returned as the cut c with that load g / 4 / c, the
 * form elk_cost_alltoall prices. sqrt(g) (a square tile, self-traffic
 * counted) priced Mixtral decode's distribution in groups of 29 (batch 29)
 * on a 4096-core tt-galaxy mesh at 9.7 us; the replay ran each on a 1 x 29
 * strip in 66 us. Memoised per thread: the plan
 * enumeration asks for a few group sizes many times. */
static double tile_cut(const elk_chip *c, double g)
{
    static _Thread_local struct {
        int R, C;
        double g, cut;
    } memo[8];
    unsigned h = (unsigned)llround(g) & 7u;
    if (memo[h].R == c->mesh_rows && memo[h].C == c->mesh_cols && memo[h].g == g) return memo[h].cut;
    int tr, tc;
    elk_tree_tile(c->mesh_rows, c->mesh_cols, g, &tr, &tc);
    int lx = tc >= tr, side = lx ? tc : tr, across = lx ? tr : tc;
    double m = (double)tr * tc, half = (double)(side / 2) * across;
    double cut = m >= 2 ? g / 4.0 / (half * (m - half) / (m - 1) / across) : sqrt(g);
    assert(cut > 0);
    memo[h].R = c->mesh_rows;
    memo[h].C = c->mesh_cols;
    memo[h].g = g;
    memo[h].cut = cut;
    return cut;
}

/* Links crossing, in one direction, the narrowest cut of a group of g cores:
 * a sub-block of a grid (tile_cut), or the whole grid's shorter side. A
 * torus doubles only the whole grid's cut: there every ring closes, while a
 * sub-block's shortest routes stay inside it as on a mesh (the simulator's
 * tiles agree), so its cut is the mesh's. A whole ring has two links; a
 * group of consecutive cores on it is a line, cut by one. */
static double group_cut(const elk_chip *c, double g)
{
    switch (c->topology) {
    case ELK_TOPO_MESH: return g >= c->cores ? elk_fmin(c->mesh_rows, c->mesh_cols) : tile_cut(c, g);
    case ELK_TOPO_TORUS: return g >= c->cores ? 2.0 * elk_fmin(c->mesh_rows, c->mesh_cols) : tile_cut(c, g);
    case ELK_TOPO_RING: return g >= c->cores ? 2.0 : 1.0;
    default: return INFINITY;
    }
}

double elk_cost_chip_cross(const elk_chip *c)
{
    /* uniform traffic among n cores: chip k's c_k cores send c_k (n - c_k) / n
     * of a core's bytes to other chips and receive as much; c (n - c) grows
     * up to n / 2, so the busiest chip is a full one or the last one */
    double n = c->cores, full = elk_fmin(c->cores_per_chip, n);
    double last = n - (elk_chip_multi(c) - 1.0) * c->cores_per_chip;
    return elk_fmax(full * (n - full), last * (n - last)) / n;
}

double elk_cost_alltoall(const elk_chip *c, double bytes_per_core, double group)
{
    if (bytes_per_core <= 0 || group <= 1) return 0;
    double t = bytes_per_core * elk_cost_shift_cpb(c);
    /* Uniform traffic inside each group: a quarter of a group's bytes cross
     * its cut in each direction. Every group has its own cut, so only one
     * group's traffic counts (checked against the event simulator's
     * dimension-order routing, docs/SIMULATOR.md). */
    if (c->topology != ELK_TOPO_ALL2ALL) {
        double g = elk_fmin(group, c->cores);
        t = elk_fmax(t, bytes_per_core * g / 4.0 / group_cut(c, g) / elk_chip_mesh_link_bytes_per_cycle(c));
    }
    int chips = elk_chip_multi(c);
    /* the paper profile's flat factor (elk_chip_xfactor) stands for this */
    if (chips > 1 && group > c->cores_per_chip && !(c->profile & (1u << ELK_PSW_MULTICHIP)))
        t = elk_fmax(t, bytes_per_core * elk_cost_chip_cross(c) / (c->interchip_gbps / c->clock_ghz));
    return t;
}

double elk_cost_hbm_hops(const elk_chip *c)
{
    switch (c->topology) {
    case ELK_TOPO_MESH:
    case ELK_TOPO_TORUS: {
        double r = c->mesh_rows, k = c->mesh_cols;
        double f = c->topology == ELK_TOPO_TORUS ? 0.5 : 1.0;
        switch (c->hbm_placement) {
        case ELK_HBM_WEST: return f * (k / 2.0 + r / 3.0);
        case ELK_HBM_CORNERS: return f * (r + k) / 2.0;
        default: return f * (r + k) / 4.0;
        }
    }
    /* every controller stripes every preload over all cores, so a byte's
     * route is the mean shortest way round: N/4 hops, whatever K */
    case ELK_TOPO_RING: return c->cores / 4.0;
    default: return 1.0;
    }
}

double elk_cost_preload_rate(const elk_chip *c, double replication)
{
    /* the paper profile's "meshscalar": the artifact's mesh carries a
     * preload at MESH times the HBM rate, whatever its replication; no
     * faster than the cores' ports take it in (a small chip's MESH, scaled
     * from the artifact's 5,888 cores, could promise more) */
    double mesh = elk_chip_mesh_scalar(c);
    if (mesh > 0)
        return elk_fmin(mesh * elk_chip_hbm_bytes_per_cycle(c), c->cores * elk_chip_link_bytes_per_cycle(c));
    double r = elk_fmax(1.0, replication);
    /* every replica lands in some core's ingress port */
    double ingress = c->cores * elk_chip_link_bytes_per_cycle(c) / r; /* unique bytes/cycle */
    double rate = ingress;
    /* one core has no grid links: its controllers feed its own router */
    if (c->topology != ELK_TOPO_ALL2ALL && c->cores > 1) {
        double l = elk_chip_mesh_link_bytes_per_cycle(c);
        double links = elk_chip_grid_links(c);
        double hops = elk_cost_hbm_hops(c);
        /* a multicast tree costs the path from the controller to the region
         * plus a link for each replica beyond the first (at r = 1 a route of
         * the mean hops: a ring with a controller at every router delivers
         * over its 2N links / (N/4), as simulated; r + hops made it 4% slow
         * on 96 cores, and Ideal's estimate above its replay) */
        double link_bytes_per_unique = r - 1 + hops;
        rate = elk_fmin(rate, links * l / link_bytes_per_unique);
        if (c->topology == ELK_TOPO_RING) {
            rate = elk_fmin(rate, elk_grid_ring_entry_links(c->hbm_broadcast ? 1 : c->hbm_controllers, c->cores) * l);
        } else {
            /* Replicated: the trees' busiest link, summed as the simulator
             * routes them, each tile shape choosing the torus's or the
             * mesh's routes (elk_tree_flat) — exact. Else data enters
             * through the edge routers, and the busiest link of their
             * routes caps the unique bytes, on the routes the network
             * takes at r = 1 (elk_grid_torus_flat). The entry
             * bound is not applied beside the trees: it is the busiest
             * link of one routing, and where a tile shape reverses the
             * r = 1 choice the trees' routing is another (a 3072-core
             * tt-galaxy torus at r = 4: the mesh's entry bound 3602 B a
             * cycle, the torus's trees 3817, simulated 3817; Basic 22.5%
             * above its replay). */
            double t = 0;
            if (r > 1 && (long)c->mesh_rows * c->mesh_cols <= ELK_GRID_TREE_MAX) t = elk_grid_tree_busiest(c, r);
            if (t > 0) {
                rate = elk_fmin(rate, l / t);
            } else {
                double m;
                if (elk_grid_torus_flat(c)) {
                    elk_chip flat = *c;
                    flat.topology = ELK_TOPO_MESH;
                    m = elk_grid_entry_busiest(&flat, r);
                } else {
                    m = elk_grid_entry_busiest(c, r);
                }
                if (m > 0) rate = elk_fmin(rate, l / m);
            }
        }
    }
    return rate;
}

double elk_cost_preload_cycles(const elk_chip *c, double hbm_bytes, double delivered_bytes)
{
    if (hbm_bytes <= 0) return 0;
    double r = elk_fmax(1.0, delivered_bytes / hbm_bytes);
    double t_hbm = hbm_bytes / elk_chip_hbm_bytes_per_cycle(c);
    double t_noc = hbm_bytes / elk_cost_preload_rate(c, r);
    /* Controllers send each unique byte once and the fabric makes the
     * replicas (multicast), whether there is one controller or several; the
     * two differ in where data enters the fabric and in queueing, which the
     * event simulator models and this closed form does only on grids. */
    return elk_fmax(t_hbm, t_noc);
}
