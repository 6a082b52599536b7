#include "tui_job.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elk_thread.h"

/* The thread and its mailbox. mu guards every field but th, ops, wake_fd
 * and run_req (the running job's copy of its request, the thread's own);
 * done is owned here until taken; cancel is written under mu and read by
 * the running job without it. Invariant: done, if set, answers a request
 * that was the latest when it was published. */
struct tui_job {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    tui_job_ops ops;
    int wake_fd;
    int stop;
    int have_req;          /* a request waits in req */
    void *req, *run_req;
    unsigned long req_id;  /* the latest request's id */
    int running;
    atomic_int cancel;
    void *done;
};

void tui_job_wake(int fd)
{
    if (fd < 0) return;
    char c = 1;
    ssize_t r;
    do r = write(fd, &c, 1);
    while (r < 0 && errno == EINTR);
}

/* Called with mu held. */
static int publish_locked(tui_job *j, void *res, unsigned long id)
{
    if (!res) return 0;
    if (id != j->req_id || j->ops.cancelled(res)) {
        j->ops.free_res(res);
        return 0;
    }
    if (j->done) j->ops.free_res(j->done);
    j->done = res;
    tui_job_wake(j->wake_fd);
    return 1;
}

int tui_job_publish(tui_job *j, void *res, unsigned long id)
{
    pthread_mutex_lock(&j->mu);
    int ok = publish_locked(j, res, id);
    pthread_mutex_unlock(&j->mu);
    return ok;
}

static void *job_main(void *arg)
{
    tui_job *j = arg;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        while (!j->stop && !j->have_req) pthread_cond_wait(&j->cv, &j->mu);
        if (j->stop) break;
        memcpy(j->run_req, j->req, j->ops.req_size);
        unsigned long id = j->req_id;
        j->have_req = 0;
        j->running = 1;
        atomic_store(&j->cancel, 0);
        pthread_mutex_unlock(&j->mu);

        void *res = j->ops.run(j, j->run_req, id, &j->cancel, j->ops.ctx);

        pthread_mutex_lock(&j->mu);
        j->running = 0;
        publish_locked(j, res, id);
        if (!j->have_req) tui_job_wake(j->wake_fd); /* idle now: the UI stops its spinner */
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

tui_job *tui_job_start(const tui_job_ops *ops, int wake_fd)
{
    tui_job *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->ops = *ops;
    j->wake_fd = wake_fd;
    j->req = calloc(1, ops->req_size ? ops->req_size : 1);
    j->run_req = calloc(1, ops->req_size ? ops->req_size : 1);
    if (!j->req || !j->run_req) {
        free(j->req);
        free(j->run_req);
        free(j);
        return NULL;
    }
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cv, NULL);
    if (elk_thread_start(&j->th, job_main, j) != 0) {
        pthread_mutex_destroy(&j->mu);
        pthread_cond_destroy(&j->cv);
        free(j->req);
        free(j->run_req);
        free(j);
        return NULL;
    }
    return j;
}

void tui_job_request(tui_job *j, const void *req, unsigned long id)
{
    pthread_mutex_lock(&j->mu);
    memcpy(j->req, req, j->ops.req_size);
    j->req_id = id;
    j->have_req = 1;
    if (j->running) atomic_store(&j->cancel, 1);
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
}

void tui_job_cancel(tui_job *j)
{
    pthread_mutex_lock(&j->mu);
    j->have_req = 0;
    j->req_id++; /* whatever is running is superseded */
    if (j->running) atomic_store(&j->cancel, 1);
    pthread_mutex_unlock(&j->mu);
}

void *tui_job_take(tui_job *j)
{
    pthread_mutex_lock(&j->mu);
    void *r = j->done;
    j->done = NULL;
    pthread_mutex_unlock(&j->mu);
    return r;
}

int tui_job_busy(tui_job *j)
{
    pthread_mutex_lock(&j->mu);
    int b = j->running || j->have_req;
    pthread_mutex_unlock(&j->mu);
    return b;
}

void tui_job_stop(tui_job *j)
{
    if (!j) return;
    pthread_mutex_lock(&j->mu);
    j->stop = 1;
    atomic_store(&j->cancel, 1);
    pthread_cond_signal(&j->cv);
    pthread_mutex_unlock(&j->mu);
    pthread_join(j->th, NULL);
    if (j->done) j->ops.free_res(j->done);
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cv);
    free(j->req);
    free(j->run_req);
    free(j);
}
