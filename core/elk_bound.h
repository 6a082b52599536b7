/* A realisable lower bound on the step latency (issue 14, item 1).
 *
 * Ideal (elk_sched_run_ideal) is a fluid flow shop: no SRAM limit, no
 * replicas, preloads that overlap their own operator. This bound keeps what
 * every schedule of the list scheduler must obey and optimises over all of
 * them at once, as a mixed-integer program solved by GLPK:
 *  - operators execute one at a time in program order, each in one of its
 *    menu's (execute-state plan, preload-state option) pairs, at least as
 *    long as that plan's execution plus that option's data distribution;
 *  - preloads run one at a time in a fixed preload order, each lasting its
 *    HBM time or its NoC-bound delivery time (as the scheduler prices it,
 *    elk_sched_preload_dur), and end before their operator starts;
 *  - while operator i executes, its plan's execution space plus the preload
 *    space of every later operator's preload that has started fits in SRAM;
 *    a preload not counted there starts after i ends; at most `window'
 *    preloads are counted (the scheduler's candidate window).
 * The MILP's optimum is the best schedule in that model: a lower bound on
 * Basic, Static, Elk-Dyn and Elk-Full (which pick among the same pairs by
 * rules), and never below Ideal. Its LP relaxation, and the smaller
 * relaxation of that (REACH), are weaker bounds that scale to the paper's
 * models. docs/VALIDATION.md states the assumptions
 * and what the bound leaves out (the NoC stretch of executions). */
#ifndef ELK_BOUND_H
#define ELK_BOUND_H

#include "elk_sched.h"
#include "elk_status.h"

/* LP: the MILP's LP relaxation. REACH: a relaxation of that LP without the
 * residency variables: a preload may be held at no SRAM cost inside the
 * window and SRAM's reach (op i's smallest plan plus the smallest layouts
 * of the preloads up to it), and starts after op i ends beyond them. It
 * keeps the program's size linear in the operators, so whole 70B models
 * solve in seconds. */
typedef enum { ELK_BOUND_LP, ELK_BOUND_MILP, ELK_BOUND_REACH } elk_bound_kind;
extern const char *const elk_bound_kind_names[]; /* "lp", "milp", "reach" */

/* What to solve. */
typedef struct {
    elk_bound_kind kind;
    double time_limit_s;  /* GLPK's time limit per solve (LP, then branch and bound); <= 0: none */
    const int *order;     /* preload order (position -> op), NULL: program order */
    int window;           /* most preloads an execution may hold; 0: the scheduler's default */
    double cap;           /* cycles: search only schedules no longer than this (it tightens the
                             big-M constants; a bound above it is reported as the cap); <= 0:
                             a serial schedule's length */
} elk_bound_opts;
void elk_bound_opts_default(elk_bound_opts *o);

/* How the solve ended. */
typedef enum {
    ELK_BOUND_OPTIMAL,    /* bound is the optimum of the LP or the MILP */
    ELK_BOUND_TIMELIMIT,  /* MILP cut short: bound is the best proven bound, incumbent the best found */
    ELK_BOUND_ABOVE_CAP   /* no schedule within cap: bound is cap */
} elk_bound_status;
extern const char *const elk_bound_status_names[]; /* "optimal", "time-limit", "above-cap" */

/* One operator of the MILP's schedule. Times are cycles from the start. */
typedef struct {
    double exe_start, exe_end;
    double pre_start, pre_end; /* equal when it reads nothing from HBM */
    int entry;                 /* index into its menu's front */
    int copt;                  /* index into menu.cold, -1 without a preload layout */
    int preload_number;        /* later preloads started before its execution ends */
} elk_bound_op;

/* The answer. Owns ops. Invariants: bound <= incumbent (when there is one);
 * ops is non-NULL iff a MILP incumbent exists. */
typedef struct {
    elk_bound_kind kind;
    elk_bound_status status;
    double bound;        /* cycles: a lower bound on every schedule in the model */
    double incumbent;    /* cycles: the MILP's best schedule, INFINITY if none (LP: INFINITY) */
    double ideal;        /* cycles: Ideal on the same problem */
    int nops;
    int pairs;           /* (plan, preload layout) pairs kept after dominance */
    int rows, cols, ints;/* the program's size */
    double solve_s;      /* wall time of the solves */
    elk_bound_op *ops;   /* MILP: the incumbent's schedule */
} elk_bound_result;

elk_status elk_bound_solve(const elk_problem *pr, const elk_sched_opts *so, const elk_bound_opts *bo,
                           elk_bound_result *r, elk_error *err);
void elk_bound_result_free(elk_bound_result *r);

#endif
