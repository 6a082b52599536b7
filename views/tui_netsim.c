#include "tui_netsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_job.h"

void tui_netsnap_free(tui_netsnap *s)
{
    if (!s) return;
    elk_sim_result_free(&s->sim);
    free(s);
}

/* A request: the point and the policy to replay. */
typedef struct {
    elk_point p;
    int policy;
} netsim_req;

struct tui_netsim {
    tui_job *job;
};

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
    elk_plan_opts po = {.cancel = cancel};
    s->status = elk_problem_init_opts(&pr, p, pc, &po, &s->err);
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

static void *netsim_run(tui_job *j, const void *req, unsigned long id, atomic_int *cancel, void *ctx)
{
    (void)j;
    const netsim_req *r = req;
    return simulate(&r->p, r->policy, id, ctx, cancel);
}

static int netsnap_cancelled(const void *r) { return ((const tui_netsnap *)r)->status == ELK_ECANCEL; }
static void netsnap_free(void *r) { tui_netsnap_free(r); }

tui_netsim *tui_netsim_start(elk_plan_cache *pc, int wake_fd)
{
    tui_netsim *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    tui_job_ops ops = {netsim_run, netsnap_cancelled, netsnap_free, sizeof(netsim_req), pc};
    if (!(n->job = tui_job_start(&ops, wake_fd))) {
        free(n);
        return NULL;
    }
    return n;
}

void tui_netsim_request(tui_netsim *n, const elk_point *p, int policy, unsigned long id)
{
    netsim_req r;
    memset(&r, 0, sizeof r);
    r.p = *p;
    r.policy = policy;
    tui_job_request(n->job, &r, id);
}

void tui_netsim_cancel(tui_netsim *n) { tui_job_cancel(n->job); }

tui_netsnap *tui_netsim_take(tui_netsim *n) { return tui_job_take(n->job); }

int tui_netsim_busy(tui_netsim *n) { return tui_job_busy(n->job); }

void tui_netsim_stop(tui_netsim *n)
{
    if (!n) return;
    tui_job_stop(n->job);
    free(n);
}
