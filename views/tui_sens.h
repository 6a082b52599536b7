/* The sensitivity view's computation: one tui_job thread that moves each
 * knob one step down and up from the current point (elk_sensitivity_run:
 * 17 solves on the session's plan cache) for the focused policy and
 * publishes the ranked result. A knob change cancels it (its enumeration
 * and schedules poll the flag), as for the network view. */
#ifndef TUI_SENS_H
#define TUI_SENS_H

#include "elk_balance.h"
#include "tui.h"

/* One finished study. Immutable once published; owned by whoever holds
 * the pointer. s is valid when status is ELK_OK. */
typedef struct {
    unsigned long id;
    elk_point point;
    int policy;
    elk_status status;
    elk_error err;
    elk_sens s;
    double ms; /* wall time */
} tui_senssnap;

typedef struct tui_sens tui_sens;

tui_sens *tui_sens_start(elk_plan_cache *pc, int wake_fd);
/* Study policy at p; supersedes (and cancels) an earlier request. */
void tui_sens_request(tui_sens *t, const elk_point *p, int policy, unsigned long id);
void tui_sens_cancel(tui_sens *t);
/* The newest finished result not yet taken, or NULL; the caller owns it (free()). */
tui_senssnap *tui_sens_take(tui_sens *t);
int tui_sens_busy(tui_sens *t);
void tui_sens_stop(tui_sens *t);

#endif
