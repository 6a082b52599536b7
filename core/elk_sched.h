/* Scheduling policies (the paper's section 4) and their analytic timing.
 *
 * An elk_problem is one design point made ready to schedule: chip, model,
 * graph and one timed menu per distinct operator shape. elk_schedule_run
 * applies one policy to it and returns an elk_schedule: per-operator plans,
 * preload numbers, execution and preload intervals, and the metrics of
 * section 5 (latency, breakdown, HBM and NoC utilisation, TFLOPS). */
#ifndef ELK_SCHED_H
#define ELK_SCHED_H

#include <stdatomic.h>

#include "elk_chip.h"
#include "elk_graph.h"
#include "elk_model.h"
#include "elk_plan.h"
#include "elk_plan_cache.h"
#include "elk_point.h"
#include "elk_status.h"

/* The policies, in the order every table and CSV lists them:
 * X(enum suffix, CSV name, label, one-letter mark). Adding one is a row
 * here and its case in elk_sched_run.c's schedule_run; names, labels, marks,
 * CLI parsing, sweep policy lists and the TUI's columns follow. */
#define ELK_POLICIES(X)                                                                                   \
    X(BASIC, "basic", "Basic", 'B')                                                                       \
    X(STATIC, "static", "Static", 'S')                                                                    \
    X(DYN, "elk-dyn", "Elk-Dyn", 'D')                                                                     \
    X(FULL, "elk-full", "Elk-Full", 'F')                                                                  \
    X(IDEAL, "ideal", "Ideal", 'I')

typedef enum {
#define ELK_POL_ENUM(id, name, label, mark) ELK_POL_##id,
    ELK_POLICIES(ELK_POL_ENUM)
#undef ELK_POL_ENUM
    ELK_POL_COUNT
} elk_policy;
extern const char *const elk_policy_names[];  /* CSV names, NULL-terminated */
extern const char *const elk_policy_labels[]; /* labels, NULL-terminated */
extern const char elk_policy_marks[ELK_POL_COUNT]; /* one letter each, for narrow columns */
int elk_policy_find(const char *name);        /* accepts names, labels, "dyn", "full"; -1 if none */

typedef enum {
    ELK_BRK_EXEC,      /* cores execute, HBM idle */
    ELK_BRK_OVERLAP,   /* cores execute while HBM streams */
    ELK_BRK_PRELOAD,   /* cores wait on HBM */
    ELK_BRK_NOC,       /* cores wait on the interconnect (contention, NoC-bound preloads) */
    ELK_BRK_DIST,      /* data distribution (preload -> execute layout) */
    ELK_BRK_COUNT
} elk_brk;
extern const char *const elk_brk_names[];

typedef enum { ELK_ALLOC_PAPER, ELK_ALLOC_ARTIFACT } elk_alloc_mode;

typedef struct elk_schedule elk_schedule;

/* Policy knobs with defaults from the paper's section 4. */
typedef struct {
    int max_disp;          /* Elk-Full: displacement bound, in layer groups (4) */
    double heavy_factor;   /* Elk-Full: HBM-heavy threshold, x average op bytes (1.0) */
    int screen_layers;     /* Elk-Full: layers of the prefix orders are screened on (2) */
    int finalists;         /* Elk-Full: best screened orders re-run on the full graph (4) */
    elk_alloc_mode alloc;  /* cost-aware allocator (paper) or the artifact's min-cold charge */
    double static_step_kib;/* Static: split search step (10) */
    int window;            /* most ops one op may overlap with preloads (0 = two layers) */
    int price;             /* Elk-Full: allocator price slot to use; -1 searches them */
    atomic_int *cancel;    /* set non-zero (from any thread) to abandon work: ELK_ECANCEL */
    /* > 0: Basic, Static and Elk-Dyn give up on every run not faster than
     * this many cycles, and answer ELK_ENOPLAN when none is; their answer
     * below it is unchanged (a caller that only asks "faster than t?"). 0:
     * none. */
    double give_up_at;
    /* Replay (Elk-Dyn, Elk-Full; core/elk_noise): instead of choosing, take
     * this preload order, each op's execute-state entry and, as far as the
     * times allow, the preload position its execution reached
     * (elk_sched_op.window), with the run variant of the schedule replayed
     * (elk_schedule.run_variant). NULL: choose as usual. */
    const int *replay_order, *replay_entry, *replay_window;
    int replay_variant;
    /* With replay: each op's preload-state layout, relative to its plan's
     * first (elk_sched_op.copt - the entry's c0), or -1 to let the policy's
     * rule choose it as it would; NULL: all -1. A plan's layouts are its
     * set's, in the set's order, on every chip, so the index carries over. */
    const int *replay_copt;
    /* With replay: each op's preload pace, the duration (cycles) its
     * preload was planned to take alone (elk_sched_op.pre_dur); a preload
     * that would run faster here is throttled to it, as a DMA engine can
     * be. 0 or NULL: as fast as the chip lets it. A preload that runs faster
     * contends harder with the exchange beside it (docs/VALIDATION.md,
     * session 19: point 208), so a schedule re-timed with more bandwidth
     * keeps the pace it was compiled with. */
    const double *replay_pace;
    /* With replay: each op's execution length (cycles, its contention
     * included) it is held to at least; the cores wait out what a faster
     * chip saves, as a static schedule's barrier does. With replay_pace
     * the schedule keeps the timeline it was compiled for wherever the
     * chip is no slower, so faster execution cannot crowd more exchanges
     * beside a preload (docs/VALIDATION.md, session 19: point 983). NULL:
     * as fast as the chip lets it. */
    const double *replay_len;
} elk_sched_opts;
void elk_sched_opts_default(elk_sched_opts *o);
/* o's replay fields set to run schedule s's decisions: its preload order
 * and run variant, and the per-op arrays given (pace and len may be NULL). */
void elk_sched_opts_replay(elk_sched_opts *o, const elk_schedule *s, const int *entry, const int *window,
                           const int *copt, const double *pace, const double *len);

/* A design point ready to schedule. Owns graph, menus; sets are owned by the
 * plan cache passed to elk_problem_init (which must outlive the problem) and
 * held by the problem until elk_problem_free releases them.
 * Invariant: menus[s] is the timed front of shape s on chip. */
typedef struct {
    elk_point point;
    elk_chip chip;
    elk_model model;
    elk_graph graph;
    elk_menu *menus;       /* per shape_id */
    const elk_plan_set **sets;  /* held from cache until elk_problem_free */
    elk_plan_cache *cache;
    double sram;           /* usable bytes per core */
    int split_ops;         /* operators split because they outgrew SRAM */
    /* Per op, on the first op of each graph operator (a cut one's pieces and
     * adds are one): the least summed fastest execution over the cuts Ideal
     * may take (elk_problem_ideal_cuts) over the graph's own, in (0, 1]; 1
     * on every other op. NULL: all 1. */
    double *ideal_scale;
    double plan_ms;        /* wall time to get plan sets (cache or enumeration) */
    double menu_ms;        /* wall time to time the menus */
} elk_problem;

elk_status elk_problem_init(elk_problem *pr, const elk_point *p, elk_plan_cache *pc, elk_error *err);
/* The same with plan options (elk_plan_cache_get_opts): a cancel flag
 * polled while plans are enumerated (ELK_ECANCEL), or the coarse plan space
 * of a provisional answer. po may be NULL. */
elk_status elk_problem_init_opts(elk_problem *pr, const elk_point *p, elk_plan_cache *pc, const elk_plan_opts *po,
                                 elk_error *err);
/* The same from a chip and a graph built elsewhere; takes ownership of the
 * graph (g is emptied) and frees it on failure. m may be NULL. */
elk_status elk_problem_init_graph(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g,
                                  elk_plan_cache *pc, elk_error *err);
elk_status elk_problem_init_graph_opts(elk_problem *pr, const elk_chip *c, const elk_model *m, elk_graph *g,
                                       elk_plan_cache *pc, const elk_plan_opts *po, elk_error *err);
void elk_problem_free(elk_problem *pr);
/* Sum over operators of each one's fastest execute-state plan, cycles: the
 * execution term of Ideal's flow shop (the artifact's ideal_exe). */
double elk_problem_exec_floor(const elk_problem *pr);

/* One operator in a schedule. Times in cycles from the start of the step. */
typedef struct {
    double exe_start, exe_end;
    double pre_start, pre_end;    /* equal when the op reads nothing from HBM */
    int entry;                    /* execute-state plan: index into its menu's front */
    int copt;                     /* preload-state option: index into menu.cold */
    double hot, cold;             /* bytes per core */
    int preload_number;           /* future preloads resident or streaming while it runs */
    int preload_pos;              /* its position in the preload order */
    double comp, xcyc, dist, stall; /* cycles: compute, exchange+syncs, distribution, contention */
    double hbm_cycles;            /* its preload at full HBM rate */
    double deliv;                 /* bytes its preload delivers into cores */
    double exe_noc_bytes;         /* bytes moved on the NoC while it executes (all cores) */
    double resident;              /* SRAM per core while it runs: hot + waiting preloads */
    int plan;                     /* its execute-state plan: index into the op's plan set */
    int window;                   /* the preload position its execution ends at (replay) */
    double pre_dur;               /* cycles its preload takes alone, before contention stretches
                                     it (its pace, for replay_pace); 0 if it reads nothing */
    double pace;                  /* > 0: the duration its preload was throttled to (a replay's
                                     replay_pace above its own pre_dur), which the simulator holds
                                     it to; 0: unthrottled */
} elk_sched_op;

/* The result of one policy. Owns ops and order. */
struct elk_schedule {
    elk_policy policy;
    int nops;
    elk_sched_op *ops;
    int *order;                   /* preload order: op index at each position */
    double latency;               /* cycles */
    double latency_ms;
    double brk[ELK_BRK_COUNT];    /* cycles, summing to latency */
    double hbm_util;              /* time HBM streams at full rate / latency, 0..1 */
    double noc_util, noc_pre_util, noc_exe_util; /* bytes the ports carry / (capacity x latency), 0..1 */
    double noc_demand;            /* bytes asked of the ports / (capacity x latency); > 1 means the
                                     estimate shares the NoC optimistically */
    double tflops;
    double peak_resident;         /* max over ops of resident bytes */
    double static_exec_kib;       /* Static: the chosen execution region */
    int static_variant;           /* Basic/Static: 0 all fully distributed, 1 all replicated;
                                     Elk: the allocator price slot chosen (elk_menu eff) */
    int orders_tried;             /* Elk-Full: candidate orders scheduled */
    int adopted;                  /* Elk-Full: -1 if its own order search won, else the policy
                                     whose schedule it kept as the fastest candidate */
    double avg_edit_dist;         /* Elk-Full: mean |position - op| over the winning order */
    double solve_ms;              /* wall time of this policy */
    int run_variant;              /* the scheduler run that produced it: price slot and, for
                                     Elk-Dyn under noccap, NoC cap (replay) */
    double pre_share;             /* the share of the preload NoC rate its preloads were planned
                                     to use (paper profile: noccap's theta times int55's
                                     int(rate)/rate), in (0, 1]; 1 = uncapped. The simulator
                                     holds each preload to this share of the planner's preload
                                     rate (elk_cost_preload_rate): a throttled DMA */
};

elk_status elk_schedule_run(const elk_problem *pr, elk_policy pol, const elk_sched_opts *o,
                            elk_schedule *s, elk_error *err);
void elk_schedule_free(elk_schedule *s);
/* Deep copy (for handing results between threads). */
elk_status elk_schedule_copy(elk_schedule *dst, const elk_schedule *src);

/* Op i's cold option in s relative to its menu entry's first (the index
 * elk_sched_opts.replay_copt takes), -1 for none; pr is the problem s was
 * planned on. */
int elk_schedule_rel_copt(const elk_problem *pr, const elk_schedule *s, int i);

/* Schedule s of policy pol (Elk-Dyn or Elk-Full, the policies the replay
 * of elk_sched_opts drives) timed again at pr with its own decisions forced
 * from the start: its preload order, each op's plan and preload layout, the
 * preload position its execution reached, its run variant. *out gets that
 * schedule, with what s's search recorded of itself (adopted, orders
 * tried); out->ops NULL when the decisions do not fit pr at all. Elk-Dyn's
 * and Elk-Full's answers are their replays already (elk_schedule_run), so
 * replaying one gives it back: `elk check`'s replay invariant. */
elk_status elk_schedule_replay(const elk_problem *pr, const elk_schedule *s, elk_policy pol, const elk_sched_opts *o,
                               elk_schedule *out, elk_error *err);

/* All five policies of one point, with % of Ideal filled in. */
typedef struct {
    elk_schedule pol[ELK_POL_COUNT];
    double pct_ideal[ELK_POL_COUNT];
    int have[ELK_POL_COUNT];
} elk_result;

elk_status elk_result_run(const elk_problem *pr, const elk_sched_opts *o, unsigned policy_mask,
                          elk_result *r, elk_error *err);
void elk_result_free(elk_result *r);
/* Fill pct_ideal from the policies present (for results assembled from
 * policies run separately, e.g. on several threads). */
void elk_result_finish(elk_result *r);

/* The greedy's optimality gap: Elk-Dyn's choices against the best sequence
 * an exhaustive, bound-pruned search finds over every operator's feasible
 * preload numbers (each timed and allocated as Elk-Dyn does), and with
 * plans != 0 over every execute-state plan that fits as well (the
 * allocator's choice). For small graphs; complete == 0 when max_nodes ran
 * out, and the answer is then the best found. */
typedef struct {
    double greedy, exact; /* cycles */
    long nodes;
    int complete;
} elk_gap;
elk_status elk_schedule_exact(const elk_problem *pr, const elk_sched_opts *o, long max_nodes, int plans,
                              elk_gap *g, elk_schedule *s, elk_error *err);

/* The same over Elk-Full's candidate preload orders (elk_orders_build, at
 * most max_orders): for each order, the exhaustive search of preload numbers
 * (and with plans != 0 of execute-state plans) in Elk-Full's model, against
 * Elk-Full's own answer. max_nodes bounds each order's search. */
typedef struct {
    double heuristic, exact;  /* cycles: Elk-Full, the best found over the orders */
    int adopted;              /* Elk-Full's choice: -1 its own search, else the policy it kept */
    int orders, best_order;   /* orders searched; the winner's index (-1: none beat Elk-Full) */
    double best_edit;         /* the winner's mean displacement, ops */
    long nodes;
    int complete;             /* every order's search ran to the end */
} elk_gap_orders;
elk_status elk_schedule_exact_orders(const elk_problem *pr, const elk_sched_opts *o, int max_orders, long max_nodes,
                                     int plans, elk_gap_orders *g, elk_error *err);

/* Preload-order candidates for Elk-Full (exposed for tests): fills orders
 * with up to max candidate orders of length g->nops (row-major), the
 * identity first; returns the count. The caller frees *orders. */
int elk_orders_build(const elk_graph *g, const elk_sched_opts *o, int **orders, int max);

#endif
