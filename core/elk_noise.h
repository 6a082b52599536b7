/* What if the cost model is wrong? (issue 14, item 5; a reviewer's
 * question.) Each operator shape's compute and exchange costs are multiplied
 * by seeded log-normal errors (GSL's mt19937, sigma on the log scale); Elk-Dyn
 * and Elk-Full plan with the noisy costs, and their decisions (preload order,
 * each operator's plan, how far its preloads reach) are then timed with the
 * true ones by replaying them through the scheduler (elk_sched_opts.replay_*).
 * Basic and Static, fixed rules whose one cost-driven choice is Static's
 * split, are planned with the true costs: the comparison is tilted against
 * Elk, so an advantage that survives is robust.
 *
 * Usage: elk_noise_init on a prepared problem, then elk_noise_trial per
 * trial (caller-owned workspace, GSL style), elk_noise_free. */
#ifndef ELK_NOISE_H
#define ELK_NOISE_H

#include "elk_sched.h"

/* Owns the true schedules and the noisy menus of one trial at a time.
 * Invariant: menus has pr->graph.nshapes entries, rebuilt by every trial. */
typedef struct {
    const elk_problem *pr;
    elk_sched_opts opts;
    elk_schedule truth[ELK_POL_COUNT]; /* every policy with the true costs */
    elk_menu *menus;                   /* the current trial's noisy menus */
    int *entry, *window;               /* replay workspace, per op */
    double replay_check;               /* Elk-Full's true schedule replayed / its latency */
} elk_noise;

/* One trial's outcome: latencies in ms with the true costs. */
typedef struct {
    double ms[ELK_POL_COUNT];   /* Basic, Static (true planning), Elk-Dyn, Elk-Full (noisy
                                   planning, true timing), Ideal */
    double noisy_ms[ELK_POL_COUNT]; /* what the noisy model predicted for Elk-Dyn and Elk-Full */
    double plans_changed;       /* Elk-Full: share of operators whose plan differs from the
                                   noise-free schedule's */
    double substituted;         /* share whose noisy plan is off the true front (timed with
                                   the true front's plan of the same or less SRAM) */
} elk_noise_trial_result;

elk_status elk_noise_init(elk_noise *w, const elk_problem *pr, const elk_sched_opts *o, elk_error *err);
/* Trial k of seed: draws the errors (depending on seed and k only),
 * plans and replays. */
elk_status elk_noise_trial(elk_noise *w, double sigma, unsigned long seed, int k, elk_noise_trial_result *r,
                           elk_error *err);
void elk_noise_free(elk_noise *w);

#endif
