/* Off-UI-thread computation for the workbench.
 *
 * tui_worker: one thread (a tui_job) that computes the latest requested
 * design point (elk_problem_init + elk_result_run for all policies) and
 * publishes the finished result by pointer swap under a mutex. A new
 * request cancels the job in flight, plan enumeration included
 * (elk_plan_opts.cancel, elk_sched_opts.cancel); results of superseded
 * requests are dropped, so the UI only ever sees answers to the latest
 * request. When the point's plans are not all cached, a provisional answer
 * on the coarse plan space (tui_snap.provisional) comes first, then the
 * complete one.
 *
 * tui_sweeper: one thread that computes the points of a one-knob sweep in
 * order and publishes each point's summary as it finishes.
 *
 * Both share one elk_plan_cache (thread-safe) that lives as long as they
 * do, so HBM/NoC changes re-time cached plan sets instead of enumerating.
 * Both write one byte to wake_fd when something is published. */
#ifndef TUI_WORKER_H
#define TUI_WORKER_H

#include "tui.h"

typedef struct tui_worker tui_worker;

tui_worker *tui_worker_start(elk_plan_cache *pc, int wake_fd);
/* Ask for a point; supersedes (and cancels) any earlier request. */
void tui_worker_request(tui_worker *w, const elk_point *p, unsigned long id);
/* The newest finished result not yet taken, or NULL. The caller owns it. */
tui_snap *tui_worker_take(tui_worker *w);
/* A request is queued or running. */
int tui_worker_busy(const tui_worker *w);
/* Provisional results published so far (tests). */
int tui_worker_provisionals(tui_worker *w);
/* Cancel, join and free (also frees an untaken result). */
void tui_worker_stop(tui_worker *w);

typedef struct tui_sweeper tui_sweeper;

tui_sweeper *tui_sweeper_start(elk_plan_cache *pc, int wake_fd);
/* Start a sweep of knob over xs[0..n) around base (cancels a running one). */
void tui_sweeper_run(tui_sweeper *s, const elk_point *base, int knob, const double *xs, int n);
void tui_sweeper_cancel(tui_sweeper *s);
/* Copy the current sweep data (returns 0 if no sweep was ever started). */
int tui_sweeper_get(tui_sweeper *s, tui_sweep_data *out);
int tui_sweeper_busy(tui_sweeper *s);
void tui_sweeper_stop(tui_sweeper *s);

#endif
