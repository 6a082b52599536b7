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



/* Preload time (cycles) of hbm_bytes unique bytes delivered as
 * delivered_bytes in total (replicas included). */
double elk_cost_preload_cycles(const elk_chip *c, double hbm_bytes, double delivered_bytes);

/* Average hops from an HBM controller to a core (1 on all-to-all). */
double elk_cost_hbm_hops(const elk_chip *c);

#endif
