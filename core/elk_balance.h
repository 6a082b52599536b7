/* Answers instead of tables (issue 14): where more of a resource stops
 * paying, and what bounds the step on either side.
 *
 * elk_knee_find is the generic part, on any response L(x) > 0: the plateau
 * is L(hi), the knee the least x in [lo, hi] with L(x) <= (1 + p) L(hi),
 * found by bracketing on a log grid and bisecting (GSL's bisection solver on
 * log x). It assumes L does not rise with x (the planner's Ideal is monotone
 * by construction, Elk-Full nearly so); where it does, the knee is the
 * crossing next to the last grid point above the threshold.
 *
 * elk_balance_run applies it to one knob of a design point, and classifies
 * each point by its bound: the largest of the step's three resource
 * demands, execution (every operator at its fastest plan), HBM streaming
 * (every byte at the HBM rate) and preload delivery through the NoC (every
 * byte at the ports' preload rate, no replicas): the terms of Ideal's flow
 * shop (elk_sched.c). The bound flips are bisected too. */
#ifndef ELK_BALANCE_H
#define ELK_BALANCE_H

#include <stdatomic.h>

#include "elk_plan.h"
#include "elk_point.h"
#include "elk_sched.h"

#define ELK_KNEE_MAX_EVALS 64

typedef struct {
    double x, y;
} elk_knee_pt;

/* Owns nothing. Invariant: pts sorted by x, npts <= ELK_KNEE_MAX_EVALS. */
typedef struct {
    double knee;          /* NAN if L(lo) is already within p of the plateau */
    double plateau;       /* L(hi) */
    double threshold;     /* (1 + p) L(hi) */
    int npts;
    elk_knee_pt pts[ELK_KNEE_MAX_EVALS]; /* every evaluation */
} elk_knee;

/* f returns L(x) > 0, or a negative value (or NAN) on failure: the search
 * stops with ELK_EINVAL and err from ctx is the caller's business. rel_tol:
 * relative width of the final bracket (e.g. 0.01). */
typedef double (*elk_knee_fn)(double x, void *ctx);
elk_status elk_knee_find(elk_knee_fn f, void *ctx, double lo, double hi, double p, double rel_tol, elk_knee *k,
                         elk_error *err);

/* The knee of a sampled response (the workbench's Sweep view): the least
 * sampled x from which every sample with a larger x is within p of the
 * plateau, the sample with the largest x. pts need not be sorted; NAN
 * samples are skipped. Returns NAN with fewer than two samples or when the
 * smallest x is already within p. */
double elk_knee_of_samples(const elk_knee_pt *pts, int n, double p, double *plateau);

typedef enum { ELK_BOUND_EXEC, ELK_BOUND_HBM, ELK_BOUND_NOC, ELK_BOUND_COUNT } elk_bound;
extern const char *const elk_bound_names[]; /* "execution", "HBM", "NoC" */

/* The three demands of a prepared problem, cycles, and the largest. */
typedef struct {
    double exec, hbm, noc;
    elk_bound bound;
} elk_demand;
void elk_demand_of(const elk_problem *pr, elk_demand *d);

/* What elk balance asks. Numeric knobs only (not topology, model, ...). */
typedef struct {
    elk_knob knob;
    elk_policy pol;       /* the response: this policy's latency */
    double p;             /* plateau tolerance (0.05) */
    double lo, hi;        /* search range, knob units (0: the current value / 16 and x 16,
                             inside the knob's range) */
    elk_plan_cache *cache;/* shared by the evaluations; NULL: a private one */
} elk_balance_opts;
void elk_balance_opts_default(elk_balance_opts *o);

#define ELK_BALANCE_MAX_FLIPS 4
typedef struct {
    elk_knee knee;                       /* y in ms */
    double current;                      /* the knob's value at the design point */
    double current_ms;
    elk_bound bound_lo, bound_hi, bound_at_knee;
    int nflips;
    double flip[ELK_BALANCE_MAX_FLIPS];  /* knob values where the bound changes */
    elk_bound flip_to[ELK_BALANCE_MAX_FLIPS];
    int carried;                         /* Elk-Full evaluations that ran a smaller value's schedule */
} elk_balance_result;

elk_status elk_balance_run(const elk_point *p, const elk_balance_opts *o, elk_balance_result *r, elk_error *err);

/* Sensitivity: each resource knob moved one step down and up (the
 * workbench's steps: HBM +-1 TB/s, +-0.25 below 2 and x2 above 32; NoC and
 * compute scale +-0.25; link bandwidth x/ 1.25; cores by one chip's cores,
 * halved below one chip; SRAM +-64 KiB; batch and sequence x/ 2), the
 * policy's latency at each, rows ranked by the larger change (a tornado).
 * A step the knob's range or the model refuses (no plan fits) is left out
 * (have_down/have_up 0). For Elk-Full, a step up a resource knob
 * (elk_knob_info.resource) carries the point's own schedule
 * (docs/SWEEPS.md, Carried schedules): ms_up is the faster of the step's
 * own schedule and the point's re-timed there (carried_up 1 when that one
 * won), so more of a resource never reads as a loss the compiler could
 * have avoided. */
typedef struct {
    elk_knob knob;
    double value, down, up;  /* knob units */
    double ms_down, ms_up;
    int have_down, have_up;
    int carried_up;
} elk_sens_row;
#define ELK_SENS_MAX 16
typedef struct {
    double base_ms;
    int n;
    elk_sens_row row[ELK_SENS_MAX]; /* ranked: largest |change| first */
} elk_sens;
elk_status elk_sensitivity_run(const elk_point *p, elk_policy pol, elk_plan_cache *pc, elk_sens *out, elk_error *err);
/* The same, stopping with ELK_ECANCEL once *cancel is set (the TUI's view). */
elk_status elk_sensitivity_run_cancel(const elk_point *p, elk_policy pol, elk_plan_cache *pc, atomic_int *cancel,
                                      elk_sens *out, elk_error *err);

#endif
