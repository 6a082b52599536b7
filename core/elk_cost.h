/* Cost models: cycles for one core's compute on a tile, and the analytic
 * topology model of data movement (shifts, all-to-all re-layouts, preload
 * delivery) that the planner and scheduler use. The event simulator (elk_sim)
 * replays the same traffic on real links; this module is its closed form.
 *
 * Two compute models sit behind one interface: the IPU formulas fitted by
 * the Elk artifact (docs/PRESETS.md) and a parametric model (rates plus a
 * fixed overhead) for other chips. */
#ifndef ELK_COST_H
#define ELK_COST_H

#include "elk_chip.h"
#include "elk_graph.h"

/* Compute cycles of one per-core sub-operator of extents sub[] (one
 * iteration), at compute_scale 1. */
double elk_cost_compute(const elk_chip *c, const elk_op *op, const long *sub);
/* Whether elk_cost_compute(sub) times the iterations never falls when a
 * dim of sub is split further (ceil(x/T) pieces, T iterations): then the
 * unsplit extents bound every finer plan's compute from below. True of the
 * matmul tile model with non-negative coefficients (T*ceil(ceil(x/T)/c) >=
 * ceil(x/c)) and of the parametric kind; not of the IPU's vector kernels,
 * whose capped cost per call rewards small pieces. */
int elk_cost_split_monotone(const elk_chip *c, const elk_op *op);

/* Cycles to add n elements on one core (partial-sum reduction). */
double elk_cost_vector_add(const elk_chip *c, double elems);

/* The paper profile's gather of a reduction's partial sums (switch
 * "gather", the artifact's get_shuffle_time): adding `copies` copies of an
 * output of out_elems elements per core, computed after a serial gather. */
double elk_cost_partial_reduce(const elk_chip *c, double copies, double out_elems);

/* The paper profile's "unfused" charge on op: the compute cycles, syncs and
 * port bytes of the artifact's operators that op stands for beyond itself
 * (its elk_op.unf_* counts, each part at its floor; docs/VALIDATION.md). */
void elk_cost_unfused(const elk_chip *c, const elk_op *op, double *comp, double *syncs, double *shift_bytes);

/* Cycles per byte of a neighbour/ring shift through one core's port
 * (after noc_scale). */
double elk_cost_shift_cpb(const elk_chip *c);

/* Cycles for every core to send bytes_per_core to arbitrary other cores
 * (a re-layout or reduce-scatter), including the topology's bisection and
 * the inter-chip links. */
/* The busiest chip's interchip bytes, in units of one core's bytes, when
 * every core sends to every other alike (an exchange whose group spans the
 * chips): c_k (n - c_k) / n for the chip of c_k of the n cores, each way;
 * (chips - 1) / chips of a chip's cores where the chips are equal, and less
 * on a partly used last chip, whose few cores meet few partners. */
double elk_cost_chip_cross(const elk_chip *c);
double elk_cost_alltoall(const elk_chip *c, double bytes_per_core, double group);

/* Machine-wide bytes per cycle that HBM preload data can be delivered into
 * cores' SRAM, given the average replication r (copies per unique byte). */
double elk_cost_preload_rate(const elk_chip *c, double replication);

/* 1 when c is a torus whose preloads, striped over its HBM controllers,
 * load their busiest link less on the mesh's routes (never a wrap-around
 * link) than the shorter way round, at r = 1; its preloads then take the
 * mesh's routes, in this closed form and in the simulator (elk_noc). The
 * loads are summed over every link exactly, as the simulator routes. */
int elk_cost_torus_preload_flat(const elk_chip *c);

/* An execution transfer beside a preload on a mesh or torus, as the event
 * simulator shares them (weighted max-min over the links both load, the
 * simulator's own templates: elk_noc_exchange among groups of g cores, or
 * the ring shift when g is 0, and every controller's preload trees at
 * replication r, held to xp bytes per core per cycle, its pace as placed).
 * Returns the transfer's slowdown, its rate alone over its rate beside the
 * preload (>= 1), in *pre (if set) the preload's rate beside it and in
 * *solo (if set) the transfer's rate alone, bytes per core per cycle; 0 when
 * c is not such a grid, has more than ELK_COST_TREE_MAX routers, or memory
 * runs out. Remembered per thread per grid, g and replica tile. On a
 * torus, the pair takes the mesh's routes instead (the torus holds the
 * mesh's links) unless its own leave both the transfer and the preload at
 * least the mesh's rates beside each other: the slowdown is then the
 * mesh's time beside over the torus's alone, *pre the mesh's. */
double elk_cost_grid_beside(const elk_chip *c, double g, double r, double xp, double *pre, double *solo);

/* One (chip, g, r) of elk_cost_grid_beside resolved once, for a caller that
 * asks it at many paces (the scheduler asks hundreds of millions of times
 * in an `elk check` run, and the thread's pair memo's key, hash and probe
 * were most of each ask). Owns nothing: the memo's entries are copied, so
 * no later ask can evict what it reads. A side whose E0 (the exchange's
 * rate alone) is not positive answers 0 at every pace; twin is set only on
 * a torus whose own side has one. */
enum { ELK_GRID_PAIR_LINES = 16 };
typedef struct {
    double tE, tP, sS, pE, E0, we, wp;
    int nl;
    double la[ELK_GRID_PAIR_LINES], lb[ELK_GRID_PAIR_LINES];
} elk_grid_side;
typedef struct {
    int twin;            /* a torus: side[1] is its mesh's */
    elk_grid_side side[2];
} elk_grid_pair;
void elk_cost_grid_pair(const elk_chip *c, double g, double r, elk_grid_pair *gp);
/* elk_cost_grid_beside(c, g, r, xp, pre, solo) from gp = elk_cost_grid_pair(c, g, r): the
 * same answer, bit for bit. */
double elk_cost_grid_pair_beside(const elk_grid_pair *gp, double xp, double *pre, double *solo);

/* Preload time (cycles) of hbm_bytes unique bytes delivered as
 * delivered_bytes in total (replicas included). */
double elk_cost_preload_cycles(const elk_chip *c, double hbm_bytes, double delivered_bytes);

/* Average hops from an HBM controller to a core (1 on all-to-all). */
double elk_cost_hbm_hops(const elk_chip *c);

#endif
