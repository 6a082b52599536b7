/* The network view's computation: one thread that runs the event simulator
 * (elk_sim) for the focused policy on the current point, off the UI thread.
 * It prepares the point with the session's plan cache (cached plan sets:
 * cheap), schedules the policy and replays it, and publishes the finished
 * result (tui_netsnap) under a mutex. A newer request cancels the one in
 * flight (elk_sched_opts.cancel, elk_sim_opts.cancel) and superseded results
 * are dropped, as in tui_worker. It writes a byte to wake_fd when a result
 * is ready. */
#ifndef TUI_NETSIM_H
#define TUI_NETSIM_H

#include "elk_sim.h"
#include "tui.h"

/* One finished simulation. Immutable once published; owned by whoever
 * holds the pointer. sim and the schedule's latency are valid when status
 * is ELK_OK. */
typedef struct {
    unsigned long id;
    elk_point point;
    int policy;
    elk_status status;
    elk_error err;
    elk_chip chip;          /* the point resolved */
    char model[64];
    elk_sim_result sim;
    double est_ms;          /* the planner's latency of the same schedule */
    double ms;              /* wall time: point, schedule, replay */
} tui_netsnap;

void tui_netsnap_free(tui_netsnap *s);

typedef struct tui_netsim tui_netsim;

tui_netsim *tui_netsim_start(elk_plan_cache *pc, int wake_fd);
/* Simulate policy on p; supersedes (and cancels) an earlier request. */
void tui_netsim_request(tui_netsim *n, const elk_point *p, int policy, unsigned long id);
/* Abandon the request in flight and any waiting one (a knob changed: the
 * point's own computation must not share the CPUs with a stale replay). */
void tui_netsim_cancel(tui_netsim *n);
/* The newest finished result not yet taken, or NULL; the caller owns it. */
tui_netsnap *tui_netsim_take(tui_netsim *n);
int tui_netsim_busy(tui_netsim *n);
/* Cancel, join and free. */
void tui_netsim_stop(tui_netsim *n);

#endif
