#include "elk_cost.h"

#include <math.h>

static double cdiv(double a, double b) { return ceil(a / b); }

/* m, n, k and the batch count of a matmul sub-tile (dims [batch.., m, n, k]) */
static void mm_shape(const elk_op *op, const long *sub, double *b, double *m, double *n, double *k)
{
    int nd = op->ndims;
    *b = 1;
    for (int d = 0; d < nd - 3; d++) *b *= (double)sub[d];
    *m = (double)sub[nd - 3];
    *n = (double)sub[nd - 2];
    *k = (double)sub[nd - 1];
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
    if (x <= k->red_knee) return fmin(k->red_cap, k->red_slope * x + k->red_fixed);
    return k->red_slope2 * x + k->red_fixed;
}

/* One m x k by k x n tile: mm_block cycles per 6x16x16 MAC block (64
 * MAC/cycle), plus per-(k,n)-block and per-n-block overheads. */
static double ipu_mm(const elk_cost_coef *k, double blk, double m, double n, double kk)
{
    return blk * cdiv(m, 6) * cdiv(kk, 16) * cdiv(n, 16) + k->mm_kn * cdiv(kk, 16) * cdiv(n, 16) +
           k->mm_n * cdiv(n, 16) + k->mm_fixed;
}

static double ipu_elem(const elk_cost_coef *k, double n)
{
    if (n <= k->elem_knee) return fmin(k->elem_cap, k->elem_slope * n + k->elem_fixed);
    return k->elem_slope2 * n + k->elem_fixed2;
}

double elk_cost_compute(const elk_chip *c, const elk_op *op, const long *sub)
{
    const elk_cost_coef *k = &c->cost;
    double n = points(op, sub);
    if (c->cost.kind == ELK_COSTK_IPU) {
        switch (op->kind) {
        case ELK_OP_MATMUL: {
            double b, m, nn, kk;
            mm_shape(op, sub, &b, &m, &nn, &kk);
            /* The kernel library may compute C or C^T (swapping the roles of
             * m and n); the artifact's "m >= n unless m <= 16" rule picks an
             * orientation, we take the faster one. For decode attention this
             * is the GEMV orientation (the KV matrix on the 6-row side). */
            double blk = k->mm_block * 64.0 / c->matmul_macs_per_cycle;
            double t1 = ipu_mm(k, blk, m, nn, kk), t2 = ipu_mm(k, blk, nn, m, kk);
            return b * fmin(t1, t2);
        }
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
                      ? fmax(c->cost.xchg_cycles_per_byte / c->noc_scale, 1.0 / elk_chip_link_bytes_per_cycle(c))
                      : 1.0 / elk_chip_link_bytes_per_cycle(c);
    if (c->topology != ELK_TOPO_ALL2ALL) port = fmax(port, 1.0 / elk_chip_mesh_link_bytes_per_cycle(c));
    return port;
}

/* Links crossing, in one direction, the narrowest cut of a group of g cores:
 * a square sub-block of a grid (its side), or the whole grid's shorter side.
 * A torus doubles only the whole grid's cut: there every ring closes, while a
 * sub-block's shortest routes stay inside it as on a mesh (the simulator's
 * tiles agree), so its cut is the mesh's. A whole ring has two links; a
 * group of consecutive cores on it is a line, cut by one. */
static double group_cut(const elk_chip *c, double g)
{
    switch (c->topology) {
    case ELK_TOPO_MESH: return g >= c->cores ? fmin(c->mesh_rows, c->mesh_cols) : sqrt(g);
    case ELK_TOPO_TORUS: return g >= c->cores ? 2.0 * fmin(c->mesh_rows, c->mesh_cols) : sqrt(g);
    case ELK_TOPO_RING: return g >= c->cores ? 2.0 : 1.0;
    default: return INFINITY;
    }
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
        double g = fmin(group, c->cores);
        t = fmax(t, bytes_per_core * g / 4.0 / group_cut(c, g) / elk_chip_mesh_link_bytes_per_cycle(c));
    }
    int chips = elk_chip_multi(c);
    /* the paper profile's flat factor (elk_chip_xfactor) stands for this */
    if (chips > 1 && group > c->cores_per_chip && !(c->profile & (1u << ELK_PSW_MULTICHIP))) {
        /* groups span chips: (chips-1)/chips of the bytes cross chip links */
        double cross = bytes_per_core * c->cores * (chips - 1.0) / chips;
        double cap = chips * c->interchip_gbps / c->clock_ghz;
        t = fmax(t, cross / cap);
    }
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

/* Unique bytes per cycle the links next to a ring's controllers carry, in
 * links' worth. K controllers sit evenly round the ring and stripe every
 * preload, so each sends 1/K of it to every core, half each way round. The
 * link leaving controller 0 clockwise carries its own half and the traffic of
 * the controllers j = 1 .. ceil(K/2) - 1 positions behind it bound further
 * on, a fraction 1/2 - j/K of theirs: S = m/2 - m(m - 1)/(2K) of a
 * controller's share with m = ceil(K/2). That is 2K links for K <= 2 and
 * tends to 8 links (the ring's 2N links over N/4 mean hops) as K grows. */
static double ring_entry_links(double k)
{
    k = fmax(1.0, k);
    double m = ceil(k / 2.0);
    return k / (m / 2.0 - m * (m - 1.0) / (2.0 * k));
}

double elk_cost_preload_rate(const elk_chip *c, double replication)
{
    double r = fmax(1.0, replication);
    /* every replica lands in some core's ingress port */
    double ingress = c->cores * elk_chip_link_bytes_per_cycle(c) / r; /* unique bytes/cycle */
    double rate = ingress;
    if (c->topology != ELK_TOPO_ALL2ALL) {
        double l = elk_chip_mesh_link_bytes_per_cycle(c);
        double links = elk_chip_grid_links(c);
        double hops = elk_cost_hbm_hops(c);
        /* a multicast tree costs about one link per replica plus the path
         * from the controller to the region */
        double link_bytes_per_unique = r + hops;
        rate = fmin(rate, links * l / link_bytes_per_unique);
        /* data enters the grid through edge routers */
        double edge;
        switch (c->hbm_placement) {
        case ELK_HBM_WEST: edge = c->mesh_rows; break;
        case ELK_HBM_CORNERS: edge = 8; break;
        default: edge = 2.0 * (c->mesh_rows + c->mesh_cols); break;
        }
        /* the paper's emulator: one controller node; with dimension-order
         * routing everything leaves its router by one link */
        if (c->hbm_broadcast) edge = 1;
        /* On a torus or ring an entry router's first dimension is a ring:
         * shortest routes leave it both ways round, on two links instead of
         * the mesh's one (a ring's controller is such a router). */
        if (c->topology == ELK_TOPO_TORUS) edge *= 2.0;
        if (c->topology == ELK_TOPO_RING) edge = ring_entry_links(c->hbm_broadcast ? 1 : c->hbm_controllers);
        rate = fmin(rate, edge * l);
    }
    return rate;
}

double elk_cost_preload_cycles(const elk_chip *c, double hbm_bytes, double delivered_bytes)
{
    if (hbm_bytes <= 0) return 0;
    double r = fmax(1.0, delivered_bytes / hbm_bytes);
    double t_hbm = hbm_bytes / elk_chip_hbm_bytes_per_cycle(c);
    double t_noc = hbm_bytes / elk_cost_preload_rate(c, r);
    /* Controllers send each unique byte once and the fabric makes the
     * replicas (multicast), whether there is one controller or several; the
     * two differ in where data enters the fabric and in queueing, which the
     * event simulator models and this closed form does only on grids. */
    return fmax(t_hbm, t_noc);
}
