/* Per-operator partition plans in the T10 compiler's compute-shift model,
 * their Pareto fronts, and the plan cache.
 *
 * Enumeration keeps volumes (bytes, cycles of compute, sync counts), not
 * times, so a change of HBM or NoC bandwidth re-times the kept plans without
 * enumerating again: elk_plan_set holds the plans that are Pareto-optimal in
 * (execution space, compute+sync cycles, exchange cycles), and elk_menu is
 * the (execution space, time) front for one chip timing, with each front
 * plan's preload-state (cold) options. */
#ifndef ELK_PLAN_H
#define ELK_PLAN_H

#include <pthread.h>
#include <stdatomic.h>

#include "elk_chip.h"
#include "elk_graph.h"
#include "elk_status.h"

/* One execute-state plan, in volumes (per core unless noted).
 * Invariants: prod(p) <= cores; t[v] divides the replica count of tensor v;
 * ax[v] is -1 iff t[v] == 1; opt0..opt0+nopt indexes its cold options. */
typedef struct {
    int p[ELK_MAX_DIMS];
    int t[ELK_MAX_TENSORS];
    int ax[ELK_MAX_TENSORS];
    double hot;         /* execution space, bytes */
    double comp;        /* compute cycles at compute_scale 1, partial-sum adds included */
    double syncs;       /* bulk-synchronous steps */
    double shift_bytes; /* ring-shift bytes through the core's port */
    double rs_bytes;    /* reduce-scatter bytes of partial sums */
    double rs_group;    /* cores sharing a partial sum */
    double rd_bytes;    /* output re-layout bytes for the consumer */
    double xcyc;        /* exchange cycles at the chip the set was built for (a
                         * plantables set: at the artifact's fixed rate) */
    int opt0, nopt;
} elk_plan;

/* A preload-state layout of a plan's HBM tensors: coarser rotation of the
 * same spatial plan. Invariant: options of one plan are sorted by cold
 * ascending with dist_bytes strictly descending (a "plantables" set keeps
 * the artifact's table as it is, elk_plan_art.h: cold ascending only). */
typedef struct {
    double cold;        /* preload space per core, bytes */
    double dist_bytes;  /* bytes per core moved by data distribution */
    double dist_group;  /* cores exchanging in the distribution */
    double deliv;       /* bytes delivered into all cores at preload (replicas included) */
    int factor;         /* coarsening factor over the execute-state rotation */
    double warm_bytes;  /* bytes the "warmup" switch's warm-up shifts (0: dist_bytes + cold) */
} elk_cold_opt;

/* All kept plans of one operator shape on one chip. Owns plans and opts.
 * Invariant: plans sorted by hot ascending; none dominated in
 * (hot, comp/cs + syncs*sync, xcyc). */
typedef struct {
    elk_plan *plans;
    int nplans;
    elk_cold_opt *opts;
    int nopts;
    long enumerated;    /* plans evaluated before pruning */
    long spatial;       /* spatial plans that passed the thresholds */
    long bounded;       /* of those, skipped by dominance pruning (not evaluated) */
    long twinned;       /* of those, skipped by symmetry: an earlier one gave all their plans */
    long seeded;        /* plans evaluated beforehand in a coarser space, to bound this one's
                           walk (the artifact's tables, elk_plan_art.h); 0: none */
    double hbm_bytes;   /* real bytes of the op's HBM tensors */
} elk_plan_set;

/* The allocator prices a preload layout in a few ways (elk_menu_price:
 * the weights of elk_menu_cold_cost); each price has its own effective
 * front. */
#define ELK_PRICES 10

/* One point of the time front of an operator for one chip timing. */
typedef struct {
    double hot;     /* bytes */
    double exe;     /* cycles: compute + exchange + syncs */
    double comp;    /* cycles of compute (scaled) */
    double xcyc;    /* cycles of exchange and syncs */
    double xbytes;  /* bytes per core through the NoC while executing */
    int plan;       /* index into the set */
    int c0, nc;     /* cold options in elk_menu.cold */
    double ecost[ELK_PRICES]; /* exe + the cheapest preload-state cost, per price slot */
    int eopt[ELK_PRICES];     /* that cold option, relative to c0 */
} elk_menu_entry;

typedef struct {
    double cold;
    double dist;      /* cycles */
    double dist_bytes;
    double deliv;     /* total bytes delivered at preload */
} elk_menu_cold;

/* The retimed menu of one operator shape. Owns e and cold.
 * Invariants: e sorted by hot ascending, exe strictly descending (a Pareto
 * front); e[n-1] is the fastest plan; min_cold is the least cold over all
 * entries (the fully distributed preload). */
typedef struct {
    elk_menu_entry *e;
    int n;
    elk_menu_cold *cold;
    int ncold;
    double min_cold;
    double max_cold;  /* the largest cold over all entries (0 when none) */
    double hbm_bytes;
    int *eff[ELK_PRICES]; /* entries Pareto-optimal in (hot, ecost), hot ascending */
    int neff[ELK_PRICES];
} elk_menu;

/* How elk_plan_enumerate searches. By default it prunes by dominance while
 * it enumerates (a spatial plan whose bound the front found so far strictly
 * dominates is not evaluated); the kept set is the same as exhaustive
 * enumeration's, plan for plan (tests/test_plan.c checks it). all_cb, if
 * set, sees every evaluated plan before pruning (for `elk plans --all`), and
 * then enumeration is exhaustive. cancel, if set, is polled: non-zero stops
 * the enumeration with ELK_ECANCEL. */
typedef void (*elk_plan_cb)(const elk_plan *pl, void *ctx);
typedef struct {
    elk_plan_cb all_cb;
    void *ctx;
    int exhaustive;            /* evaluate every plan, no dominance pruning */
    const atomic_int *cancel;
    /* A coarser plan space, for a quick provisional answer (the TUI's): the
     * splits of every dim but the innermost step geometrically (by about a
     * quarter) instead of by one. A subset of the plans, so the set is no
     * better; if it holds no plan at all, the full space is enumerated. */
    int coarse;
    /* Cache gets only (elk_plan_cache_get_opts): a set that is not cached
     * and ready is not enumerated; the get fails with ELK_ECANCEL and
     * counts it in *missed. For asking whether a point's plans are all
     * cached without enumerating any. */
    int cached_only;
    int *missed;
    /* Threads elk_problem_init_opts builds a problem's plan sets on (<= 1:
     * the calling thread alone). The sets are the same whichever thread
     * builds them; only the TUI, whose worker has the cores to itself while
     * it plans, asks for more. */
    int threads;
} elk_plan_opts;

/* Build the plan set of op for chip c (no cache). Plans whose execution
 * space exceeds sram_bytes are dropped. o may be NULL (the defaults). */
elk_status elk_plan_enumerate(const elk_chip *c, const elk_op *op, double sram_bytes,
                              elk_plan_set *set, const elk_plan_opts *o, elk_error *err);
void elk_plan_set_free(elk_plan_set *set);
/* How close to the least execution a plan is still "the fastest" (rounding
 * apart): elk_plan_fastest keeps every plan within it, and a cut search
 * bounded by lim accepts an answer within it of lim. */
#define ELK_PLAN_FASTEST_MARGIN 1e-9
/* The fastest plan of op on c without keeping a set: its execution (*exe,
 * INFINITY when no plan is at or below lim) and space (*hot), as
 * elk_menu_build at c of elk_plan_enumerate's set gives its last entry;
 * *spatial (if not NULL) counts the spatial plans looked at. */
elk_status elk_plan_fastest(const elk_chip *c, const elk_op *op, double sram_bytes, const elk_plan_opts *o, double lim,
                            double *exe, double *hot, long *spatial, elk_error *err);

/* The output's side of a plan (shared by elk_plan_art): its r0 partial-sum
 * copies reduced (the artifact's serial gather under "gather", else a
 * reduce-scatter) and its re-layout for the consumer (the artifact's shuffle
 * under "relayout"), added to pl, *shift_elems and *syncs. sub is the
 * per-iteration sub-op shape, s0 the output's resident elements. */
void elk_plan_charge_output(const elk_chip *c, const elk_op *op, double r0, const long *sub, double s0, elk_plan *pl,
                            double *shift_elems, double *syncs);

/* Exchange cycles of a plan's volumes on chip c. */
double elk_plan_xcycles(const elk_chip *c, const elk_plan *pl);

/* Time the set on chip c: the (hot, exe) front and its cold options. */
elk_status elk_menu_build(const elk_chip *c, const elk_op *op, const elk_plan_set *set, elk_menu *m, elk_error *err);
/* The same with every plan's compute multiplied by fcomp and its exchange,
 * syncs and data distribution by fxchg (elk_noise: a cost model that is off). */
elk_status elk_menu_build_scaled(const elk_chip *c, const elk_op *op, const elk_plan_set *set, double fcomp,
                                 double fxchg, elk_menu *m, elk_error *err);
void elk_menu_free(elk_menu *m);
/* Index of the fastest entry with hot <= budget, or -1. */
int elk_menu_best(const elk_menu *m, double budget);
/* Cost of holding an operator's preload in cold option k of entry e:
 * its data distribution, the time replication adds to the preload weighted
 * by psi (1: the preload is on the critical path, 0: it hides behind
 * execution), and the extra NoC time replication puts on the network,
 * weighted by phi, the fraction of execution that is exchange (what that
 * traffic will stretch). */
double elk_menu_cold_cost(const elk_chip *c, const elk_menu *m, int e, int k, double phi, double psi);
/* Price slot k's weights (0 <= k < ELK_PRICES). */
void elk_menu_price(int k, double *phi, double *psi);
/* Recompute ecost/eopt/eff of price slot with new weights. */
void elk_menu_reprice(const elk_chip *c, elk_menu *m, double phi, double psi, int slot);

#endif
