#include "tui_netsim.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tui_netsnap_free(tui_netsnap *s)
{
    if (!s) return;
    elk_sim_result_free(&s->sim);
    free(s);
}

/* The thread and its mailbox. mu guards every field but th and the
 * constants (pc, wake_fd); done is owned here until taken; cancel is
 * written under mu and read by the running job without it. */
struct tui_netsim {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    elk_plan_cache *pc;
    int wake_fd;
    int stop;
    int have_req;
    elk_point req;
    int req_policy;
    unsigned long req_id;
    int running;
    atomic_int cancel;     /* read unlocked by the scheduler and the simulator */
    tui_netsnap *done;
};

static void wake(int fd)
{
    if (fd < 0) return;
    char c = 1;
    ssize_t r;
    do r = write(fd, &c, 1);
    while (r < 0 && errno == EINTR);
}

static tui_netsnap *simulate(const elk_point *p, int policy, unsigned long id, elk_plan_cache *pc,
                             atomic_int *cancel)
{
    tui_netsnap *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    double t0 = tui_now_ms();
    s->id = id;
    s->point = *p;
    s->policy = policy;
    elk_problem pr;
    s->status = elk_problem_init(&pr, p, pc, &s->err);
    if (s->status != ELK_OK) return s;
    s->chip = pr.chip;
    snprintf(s->model, sizeof s->model, "%s", pr.model.name);
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    so.cancel = cancel;
    elk_schedule sc;
    s->status = elk_schedule_run(&pr, (elk_policy)policy, &so, &sc, &s->err);
    if (s->status == ELK_OK) {
        s->est_ms = sc.latency_ms;
        elk_sim_opts o;
        elk_sim_opts_default(&o);
        o.cancel = cancel;
        s->status = elk_sim_run(&pr, &sc, &o, &s->sim, &s->err);
        elk_schedule_free(&sc);
    }
    elk_problem_free(&pr);
    s->ms = tui_now_ms() - t0;
    return s;
}

static void *netsim_main(void *arg)
{
    tui_netsim *n = arg;
    pthread_mutex_lock(&n->mu);
    for (;;) {
        while (!n->stop && !n->have_req) pthread_cond_wait(&n->cv, &n->mu);
        if (n->stop) break;
        elk_point p = n->req;
        int pol = n->req_policy;
        unsigned long id = n->req_id;
        n->have_req = 0;
        n->running = 1;
        n->cancel = 0;
        pthread_mutex_unlock(&n->mu);

        tui_netsnap *s = simulate(&p, pol, id, n->pc, &n->cancel);

        pthread_mutex_lock(&n->mu);
        n->running = 0;
        if (s && id == n->req_id && s->status != ELK_ECANCEL) {
            tui_netsnap_free(n->done);
            n->done = s;
            s = NULL;
        }
        tui_netsnap_free(s); /* superseded or cancelled */
        wake(n->wake_fd);
    }
    pthread_mutex_unlock(&n->mu);
    return NULL;
}

tui_netsim *tui_netsim_start(elk_plan_cache *pc, int wake_fd)
{
    tui_netsim *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->pc = pc;
    n->wake_fd = wake_fd;
    pthread_mutex_init(&n->mu, NULL);
    pthread_cond_init(&n->cv, NULL);
    if (pthread_create(&n->th, NULL, netsim_main, n) != 0) {
        pthread_mutex_destroy(&n->mu);
        pthread_cond_destroy(&n->cv);
        free(n);
        return NULL;
    }
    return n;
}

void tui_netsim_request(tui_netsim *n, const elk_point *p, int policy, unsigned long id)
{
    pthread_mutex_lock(&n->mu);
    n->req = *p;
    n->req_policy = policy;
    n->req_id = id;
    n->have_req = 1;
    if (n->running) n->cancel = 1;
    pthread_cond_signal(&n->cv);
    pthread_mutex_unlock(&n->mu);
}

void tui_netsim_cancel(tui_netsim *n)
{
    pthread_mutex_lock(&n->mu);
    n->have_req = 0;
    n->req_id++; /* whatever is running is superseded */
    if (n->running) n->cancel = 1;
    pthread_mutex_unlock(&n->mu);
}

tui_netsnap *tui_netsim_take(tui_netsim *n)
{
    pthread_mutex_lock(&n->mu);
    tui_netsnap *s = n->done;
    n->done = NULL;
    pthread_mutex_unlock(&n->mu);
    return s;
}

int tui_netsim_busy(tui_netsim *n)
{
    pthread_mutex_lock(&n->mu);
    int b = n->running || n->have_req;
    pthread_mutex_unlock(&n->mu);
    return b;
}

void tui_netsim_stop(tui_netsim *n)
{
    if (!n) return;
    pthread_mutex_lock(&n->mu);
    n->stop = 1;
    n->cancel = 1;
    pthread_cond_signal(&n->cv);
    pthread_mutex_unlock(&n->mu);
    pthread_join(n->th, NULL);
    tui_netsnap_free(n->done);
    pthread_mutex_destroy(&n->mu);
    pthread_cond_destroy(&n->cv);
    free(n);
}
