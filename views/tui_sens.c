#include "tui_sens.h"

#include <stdlib.h>
#include <string.h>

#include "tui_job.h"

typedef struct {
    elk_point p;
    int policy;
} sens_req;

struct tui_sens {
    tui_job *job;
};

static void *sens_run(tui_job *j, const void *req, unsigned long id, atomic_int *cancel, void *ctx)
{
    (void)j;
    const sens_req *r = req;
    tui_senssnap *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    double t0 = tui_now_ms();
    s->id = id;
    s->point = r->p;
    s->policy = r->policy;
    s->status = elk_sensitivity_run_cancel(&r->p, (elk_policy)r->policy, ctx, cancel, &s->s, &s->err);
    s->ms = tui_now_ms() - t0;
    return s;
}

static int sens_cancelled(const void *r) { return ((const tui_senssnap *)r)->status == ELK_ECANCEL; }

tui_sens *tui_sens_start(elk_plan_cache *pc, int wake_fd)
{
    tui_sens *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    tui_job_ops ops = {sens_run, sens_cancelled, free, sizeof(sens_req), pc};
    if (!(t->job = tui_job_start(&ops, wake_fd))) {
        free(t);
        return NULL;
    }
    return t;
}

void tui_sens_request(tui_sens *t, const elk_point *p, int policy, unsigned long id)
{
    sens_req r;
    memset(&r, 0, sizeof r);
    r.p = *p;
    r.policy = policy;
    tui_job_request(t->job, &r, id);
}

void tui_sens_cancel(tui_sens *t) { tui_job_cancel(t->job); }

tui_senssnap *tui_sens_take(tui_sens *t) { return tui_job_take(t->job); }

int tui_sens_busy(tui_sens *t) { return tui_job_busy(t->job); }

void tui_sens_stop(tui_sens *t)
{
    if (!t) return;
    tui_job_stop(t->job);
    free(t);
}
