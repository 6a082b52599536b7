/* One job thread with a one-request mailbox: the shape of the point worker
 * (tui_worker) and of the network view's simulator (tui_netsim).
 *
 * The latest request runs; a newer one, or tui_job_cancel, sets the atomic
 * cancel flag the running job polls (elk_plan_opts, elk_sched_opts and
 * elk_sim_opts take it), so work never queues behind stale work. A result
 * is published into a one-result slot only if its request is still the
 * latest and it was not cut short; the slot's previous, untaken result is
 * freed. A job may publish more than once (a provisional answer, then the
 * complete one). A byte on wake_fd says a result is ready or the thread has
 * gone idle. */
#ifndef TUI_JOB_H
#define TUI_JOB_H

#include <stdatomic.h>
#include <stddef.h>

typedef struct tui_job tui_job;

typedef struct {
    /* Compute req (req_size bytes, a copy the job owns while it runs) into
     * a result for request id; NULL for nothing to publish. cancel is
     * polled. May publish earlier results with tui_job_publish. */
    void *(*run)(tui_job *j, const void *req, unsigned long id, atomic_int *cancel, void *ctx);
    int (*cancelled)(const void *res); /* the result was cut short: dropped */
    void (*free_res)(void *res);
    size_t req_size;
    void *ctx;
} tui_job_ops;

/* NULL if the thread cannot start. ops is copied. */
tui_job *tui_job_start(const tui_job_ops *ops, int wake_fd);
/* Ask for req as request id; supersedes (and cancels) any earlier one. */
void tui_job_request(tui_job *j, const void *req, unsigned long id);
/* Drop a waiting request and supersede (cancel) the running one. */
void tui_job_cancel(tui_job *j);
/* From run: publish res for request id (the job takes it either way);
 * returns 1 if published, 0 if superseded or cut short (res is freed). */
int tui_job_publish(tui_job *j, void *res, unsigned long id);
/* The newest published result not yet taken, or NULL; the caller owns it. */
void *tui_job_take(tui_job *j);
/* A request waits or runs. */
int tui_job_busy(tui_job *j);
/* Cancel, join and free (also frees an untaken result). */
void tui_job_stop(tui_job *j);
/* Write the one-byte wake-up to fd (if >= 0), retrying on EINTR; a full
 * pipe already holds a wake-up. */
void tui_job_wake(int fd);

#endif
