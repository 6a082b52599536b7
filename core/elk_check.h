/* Invariant checking over random design points (elk check).
 *
 * elk_check_draw draws design point k of a seed from every chip and model
 * preset, every topology and workload, and the knobs over ranges that plan
 * fast; point k's draws depend only on (seed, k), so any number of threads
 * give the same points. elk_check_eval plans the point with the five
 * policies, replays each schedule in the event simulator, plans the
 * metamorphic partners (a resource raised by 25%, a topology with more
 * links, batch and layers doubled) and returns every broken invariant with
 * the `elk run` line(s) that reproduce it. The invariants are one table
 * (ELK_CHECK_LIST) so the summary and the documents use the same names.
 *
 * Nothing here prints; results are strings. elk_check_eval is thread safe:
 * it shares only the read-only space (each call has its own plan cache, and
 * the event simulator keeps its state per run). */
#ifndef ELK_CHECK_H
#define ELK_CHECK_H

#include <stddef.h>

#include "elk_chip.h"
#include "elk_model.h"
#include "elk_point.h"
#include "elk_sched.h"
#include "elk_status.h"

/* Tolerances (relative unless noted). */
#define ELK_CHECK_TOL 1e-9          /* latency comparisons, utilisation bounds */
#define ELK_CHECK_TOL_BRK 1e-6      /* breakdown sum against latency */
#define ELK_CHECK_SIM_TOL 0.15      /* |estimate - simulated| / simulated */
#define ELK_CHECK_SIM_IDEAL_TOL 0.02 /* simulated >= Ideal estimate x (1 - this) */
#define ELK_CHECK_RAISE 1.25        /* resource knobs raised by 25% */
#define ELK_CHECK_LAYERS_MAX 2.2    /* layers doubled: latency ratio within [1, this] */
/* Elk-Full's carried pair invariant: min(Full(hi), Full(lo)'s schedule
 * re-timed at hi) <= Full(lo) x (1 + this). Re-timing a schedule with more
 * of a resource can itself be slower (a faster transfer contends harder
 * with the one beside it in the max-min flow model, docs/VALIDATION.md,
 * the retime class); these bound that residue: about 2.3% at worst seen on
 * all-to-all, well under 0.1% on grids and rings. Chosen by the partner's
 * (hi's) topology. */
#define ELK_CHECK_CARRY_TOL_GRID 1e-3
#define ELK_CHECK_CARRY_TOL_A2A 0.025

/* The invariants: id, name, description. */
#define ELK_CHECK_LIST(X)                                                                                      \
    X(RUNS, "runs",                                                                                            \
      "the point and its partners plan, or fail only for want of a partition plan (ELK_ENOPLAN: a skip)")     \
    X(IDEAL_BOUND, "ideal-bound", "every policy's latency >= Ideal's (rel 1e-9)")                              \
    X(FULL_BEST, "full-best", "Elk-Full's latency <= Elk-Dyn's, Static's and Basic's (rel 1e-9)")             \
    X(FRACTIONS, "fractions",                                                                                  \
      "latency > 0; HBM and NoC utilisations (total, preload, execute) in [0, 1]; % of Ideal in (0, 100]; "      \
      "breakdown "                                                                                             \
      "parts >= 0 summing to the latency (rel 1e-6); TFLOPS >= 0")                                            \
    X(SRAM, "sram",                                                                                            \
      "from the intervals alone: the running op's hot bytes plus the cold bytes of every started preload "     \
      "of a later op fit the usable SRAM (all policies but Ideal)")                                            \
    X(HBM_BYTES, "hbm-bytes",                                                                                  \
      "bytes preloaded = the graph's weight + KV bytes; every op with HBM bytes has a preload ending by its " \
      "execution")                                                                                             \
    X(ORDER, "order",                                                                                          \
      "executions in program order and non-overlapping; preloads one after another in the preload order, "   \
      "which is a permutation")                                                                                \
    X(FLOPS, "flops", "the operators' FLOPs sum to the graph's FLOPs")                                         \
    X(REPLAY, "replay",                                                                                        \
      "Elk-Dyn's and Elk-Full's latency = its own decisions replayed at the point (rel 1e-9): the estimate is " \
      "the time of the schedule it returns")                                                                   \
    X(SIM_ESTIMATE, "sim-estimate",                                                                            \
      "|estimate - simulated| / simulated <= 15% for every policy (fast/auto mode)")                          \
    X(SIM_IDEAL, "sim-ideal", "every policy's simulated latency >= Ideal's estimate x (1 - 2%)")               \
    X(KNOB_MONOTONE, "knob-monotone",                                                                          \
      "hbm-tbps, noc-scale, link-gbps, sram-kib, compute-scale raised 25%: Ideal not slower (rel 1e-9); "      \
      "Elk-Full carried not slower: the fastest of its own schedule, the lower point's re-timed there and "    \
      "the lower point's timeline held (more of every resource runs it exactly)")                              \
    X(TOPO_MONOTONE, "topology-monotone",                                                                      \
      "torus vs mesh, all-to-all vs mesh: Ideal not slower (rel 1e-9); Elk-Full carried not slower: its own "  \
      "schedule or the lower point's re-timed there, within 0.1% on grids and rings, 2.5% on all-to-all (no "  \
      "timeline is held across topologies)")                                                                   \
    X(CORES_MONOTONE, "cores-monotone",                                                                        \
      "cores raised 25%: Ideal not slower on all-to-all (rel 1e-9); Elk-Full's inversions, and Ideal's on a "  \
      "grid (a longer ring, a re-shaped mesh) or in the artifact's plan tables (plans span every core), are "  \
      "their own class (cores): no schedule carries")                                                          \
    X(RETIME_MONOTONE, "retime-monotone",                                                                      \
      "each knob and topology pair: every policy's decisions (not Ideal's) at the point with fewer resources, "\
      "re-timed on its graph with more (as fast as it allows, or holding their timeline), not slower")         \
    X(BATCH_MONOTONE, "batch-monotone", "batch doubled: Ideal's step latency not lower")                       \
    X(LAYERS_RATIO, "layers-ratio", "layers doubled: Ideal's and Elk-Full's latency ratio within [1, 2.2]")

#define ELK_CHECK_ENUM_(id, name, desc) ELK_CHECK_##id,
typedef enum { ELK_CHECK_LIST(ELK_CHECK_ENUM_) ELK_CHECK_COUNT } elk_check_inv;
#undef ELK_CHECK_ENUM_

/* The invariants checked and printed but not gated unless --gate names
 * them. Re-timing a schedule with more of a resource can itself lose a
 * little in the flow model (docs/VALIDATION.md); what a user sees along a
 * series is the carried pair invariant, which is gated. */
#define ELK_CHECK_UNGATED_DEFAULT (1u << ELK_CHECK_RETIME_MONOTONE)

/* One row of the invariant table. */
typedef struct {
    const char *name;
    const char *desc;
} elk_check_info;
extern const elk_check_info elk_check_invariants[ELK_CHECK_COUNT];

#define ELK_CHECK_MAX_ARGS 20
#define ELK_CHECK_MAX_PRESETS 32

/* A design point as the `elk run` flags that make it: knob k set to the
 * text val[k], in order. Owns nothing (fixed arrays); the text is what the
 * point is built from, so the reproducer line is exact. */
typedef struct {
    int nargs;
    elk_knob knob[ELK_CHECK_MAX_ARGS];
    char val[ELK_CHECK_MAX_ARGS][96]; /* 96: a --profile spec (elk_point.profile) */
} elk_check_args;

/* What points are drawn from: the presets found under DATADIR/presets,
 * loaded once (sorted by name, so the draws do not depend on directory
 * order). Read-only after elk_check_space_init; shared by every thread. */
typedef struct {
    int nchips, nmodels;
    char chip_names[ELK_CHECK_MAX_PRESETS][64];
    char model_names[ELK_CHECK_MAX_PRESETS][64];
    elk_chip chips[ELK_CHECK_MAX_PRESETS];
    elk_model models[ELK_CHECK_MAX_PRESETS];
    int cores_min, cores_max; /* log-uniform range of --cores */
} elk_check_space;

elk_status elk_check_space_init(elk_check_space *sp, elk_error *err);

/* Draw point k of seed (GSL's mt19937 seeded from (seed, k) alone). */
void elk_check_draw(const elk_check_space *sp, unsigned long seed, int k, elk_check_args *a);
/* Set a knob (replacing an earlier setting of it). */
void elk_check_args_set(elk_check_args *a, elk_knob k, const char *val);
/* The text of knob k, or NULL when the point leaves it at the preset. */
const char *elk_check_args_get(const elk_check_args *a, elk_knob k);
/* Build the design point from the flags. */
elk_status elk_check_args_point(const elk_check_args *a, elk_point *p, elk_error *err);
/* "elk run --chip ... --model ..." */
void elk_check_args_line(const elk_check_args *a, char *buf, size_t n);

/* Where an Elk-Full pair inversion comes from, judged from the slower
 * point's schedule: the cut search settled on another operator graph (the
 * two schedules differ in operator count); or, on the same graph size,
 * Elk-Full kept a fixed algorithm's schedule there (its own search lost to
 * it, and the inversion is that algorithm's); or its own order search. */
#define ELK_CHECK_CAUSES(X)                                                \
    X(GRAPH, "graph", "the cut search chose another operator graph")       \
    X(ADOPTED, "adopted", "a fixed algorithm's schedule, kept by Elk-Full") \
    X(SEARCH, "search", "Elk-Full's own order search")
typedef enum {
#define ELK_CC_ENUM(id, name, help) ELK_CHECK_CAUSE_##id,
    ELK_CHECK_CAUSES(ELK_CC_ENUM)
#undef ELK_CC_ENUM
    ELK_CHECK_CAUSE_COUNT
} elk_check_cause;
extern const char *const elk_check_cause_names[ELK_CHECK_CAUSE_COUNT];
/* The cause of policy p's inversion from lo (less of a resource) to hi
 * (more, and slower): an elk_check_cause for Elk-Full, -1 for the others. */
int elk_check_cause_of(elk_policy p, const elk_schedule *lo, const elk_schedule *hi);

/* The classes of an Elk-Full pointwise inversion (Full(hi) slower than
 * Full(lo)) that are not violations of the carried invariant: the lower
 * point's schedule re-timed at hi is no slower than Full(lo) (missed: hi's
 * bounded search did not find a schedule it could run, and a carried series
 * runs it); slower (retime: re-timing itself loses in the flow model), where
 * hi has every resource lo has and so runs lo's timeline held
 * (elk_chip_dominates), or across topologies within the carried tolerance
 * (ELK_CHECK_CARRY_TOL_*); or the pair raises the core count, where no
 * schedule carries (cores). Anything else is a violation. */
#define ELK_CHECK_CLASSES(X)                                                                         \
    X(MISSED, "missed", "missed schedules: the lower point's schedule, re-timed here, is no slower") \
    X(RETIME, "retime", "retime inversions: re-timed here it is slower; carried, its timeline is held (topologies: within tolerance)") \
    X(CORES, "cores", "more cores: the plans (on a grid, the network too) differ with the core count, so no schedule carries")
typedef enum {
#define ELK_CK_ENUM(id, name, help) ELK_CHECK_CLASS_##id,
    ELK_CHECK_CLASSES(ELK_CK_ENUM)
#undef ELK_CK_ENUM
    ELK_CHECK_CLASS_COUNT
} elk_check_class;
extern const char *const elk_check_class_names[ELK_CHECK_CLASS_COUNT];
extern const char *const elk_check_class_help[ELK_CHECK_CLASS_COUNT];

/* One broken invariant (or, with warning set, a counted inversion of a
 * fixed algorithm that is not a violation). Owns nothing. repro[1] is
 * empty unless the invariant compares two points. rule >= 0 (an
 * elk_profile_switch) marks a fixed algorithm's re-timing inversion or a
 * simulation invariant's violation that goes away when that one artifact
 * rule of the point's cost profile is turned off: a documented exception of
 * the profile (docs/VALIDATION.md), not a violation. Ideal's and Elk-Full's
 * pairs never get one: both profiles classify them alike. */
typedef struct {
    elk_check_inv inv;
    int policy;        /* elk_policy, or -1 */
    int warning;
    int rule;          /* elk_profile_switch behind the inversion, or -1 */
    int cause;         /* an Elk-Full pair inversion's elk_check_cause, or -1 */
    int klass;         /* an Elk-Full pointwise inversion's elk_check_class, or -1 */
    double ratio;      /* a pair inversion's latency ratio, hi over lo (0 otherwise) */
    char msg[400];
    char repro[2][400];
} elk_check_violation;

/* The outcome of one point. Owns viol (malloc'd); free with
 * elk_check_result_free. checks[i] counts the evaluations of invariant i
 * (per policy, per pair). */
typedef struct {
    int index;
    elk_check_args args;
    int skipped;
    char skip_reason[560];
    int nviol, cap;
    elk_check_violation *viol;  /* violations and warnings, in the order found */
    long checks[ELK_CHECK_COUNT];
    int pairs_run, pairs_skipped;
    double sim_err[ELK_POL_COUNT]; /* (estimate - simulated) / simulated; NAN if not simulated */
    int nops;
    double ideal_ms, full_ms;
} elk_check_result;

void elk_check_result_free(elk_check_result *r);

/* 1 when v counts as a violation: not a fixed algorithm's warning, not an
 * artifact rule's exception, not a classified Elk-Full inversion. */
int elk_check_is_violation(const elk_check_violation *v);

/* Everything that can be checked of one point: plans it (skipped on
 * ELK_ENOPLAN), checks each schedule, simulates, plans the pairs. Uses a
 * plan cache of its own. Returns ELK_ENOMEM only; a point that fails in
 * another way is a RUNS violation. */
elk_status elk_check_eval(const elk_check_space *sp, const elk_check_args *a, int index, elk_check_result *r);

/* The per-schedule checks (exposed for tests), each appending violations
 * to r and bumping r->checks. */
void elk_check_schedule(const elk_problem *pr, const elk_result *res, elk_check_result *r);

/* SRAM at every instant, from the intervals alone: the first op i whose
 * hot bytes plus the cold bytes of every op j > i whose preload has
 * started (pre_end > pre_start, pre_start < exe_end of i) exceed sram
 * bytes per core, with *used set; -1 when every op fits. */
int elk_check_sram(const elk_sched_op *ops, int nops, double sram, double *used);

#endif
