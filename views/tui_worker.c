#include "tui_worker.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elk_retime.h"
#include "elk_thread.h"
#include "tui_job.h"

#define ALL_POLICIES ((1u << ELK_POL_COUNT) - 1)

/* Policies computed on helper threads while the worker computes the rest:
 * with 2 CPUs Static (the split search, the slowest) runs beside the other
 * four; with 3 or more Elk-Full (the order search) gets its own thread too.
 * ELK_TUI_THREADS=1 turns it off. */
typedef struct {
    const elk_problem *pr;
    const elk_sched_opts *o;
    unsigned mask;
    elk_result r;
    elk_status st;
    elk_error err;
} part;

static void *part_main(void *arg)
{
    part *p = arg;
    p->st = elk_result_run(p->pr, p->o, p->mask, &p->r, &p->err);
    return NULL;
}

static int policy_threads(void)
{
    static int n;
    if (!n) {
        const char *e = getenv("ELK_TUI_THREADS");
        long c = e && *e ? atol(e) : sysconf(_SC_NPROCESSORS_ONLN);
        n = c < 1 ? 1 : c > 3 ? 3 : (int)c;
    }
    return n;
}

/* elk_result_run for all policies, split over threads. The merged result
 * equals elk_result_run's (each policy is scheduled independently). */
static elk_status result_run_parallel(const elk_problem *pr, const elk_sched_opts *o, elk_result *r, elk_error *err)
{
    int nt = policy_threads();
    if (nt < 2) return elk_result_run(pr, o, ALL_POLICIES, r, err);
    part parts[2];
    pthread_t th[2];
    int started[2] = {0, 0};
    unsigned masks[2] = {1u << ELK_POL_STATIC, 1u << ELK_POL_FULL};
    int nparts = nt - 1;
    unsigned mine = ALL_POLICIES;
    for (int i = 0; i < nparts; i++) {
        mine &= ~masks[i];
        memset(&parts[i], 0, sizeof parts[i]);
        parts[i].pr = pr;
        parts[i].o = o;
        parts[i].mask = masks[i];
        started[i] = elk_thread_start(&th[i], part_main, &parts[i]) == 0;
        if (!started[i]) mine |= masks[i]; /* no thread: do it here */
    }
    elk_status st = elk_result_run(pr, o, mine, r, err);
    for (int i = 0; i < nparts; i++) {
        if (!started[i]) continue;
        pthread_join(th[i], NULL);
        if (st == ELK_OK && parts[i].st != ELK_OK) {
            st = parts[i].st;
            *err = parts[i].err;
        }
        if (st == ELK_OK) {
            for (int p = 0; p < ELK_POL_COUNT; p++)
                if (parts[i].r.have[p]) {
                    r->pol[p] = parts[i].r.pol[p]; /* ownership moves */
                    r->have[p] = 1;
                    memset(&parts[i].r.pol[p], 0, sizeof parts[i].r.pol[p]);
                    parts[i].r.have[p] = 0;
                }
        }
        if (parts[i].st == ELK_OK) elk_result_free(&parts[i].r);
    }
    if (st != ELK_OK) {
        elk_result_free(r);
        return st;
    }
    elk_result_finish(r);
    return ELK_OK;
}

/* Compute one point into a fresh snapshot (never NULL unless out of
 * memory). po: the plan options (cancel, coarse, cached_only). */
static tui_snap *compute_opts(const elk_point *p, unsigned long id, elk_plan_cache *pc, atomic_int *cancel,
                              const elk_plan_opts *po)
{
    tui_snap *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->id = id;
    s->point = *p;
    double t0 = tui_now_ms();
    s->status = elk_problem_init_opts(&s->pr, p, pc, po, &s->err);
    s->plan_ms = tui_now_ms() - t0;
    if (s->status == ELK_OK) {
        s->have_pr = 1;
        if (po->missed && *po->missed) {
            /* a set was not cached: no answer from this probe */
            s->status = elk_fail(&s->err, ELK_ECANCEL, "plans not cached");
        } else if (atomic_load(cancel)) {
            s->status = elk_fail(&s->err, ELK_ECANCEL, "cancelled");
        } else {
            elk_sched_opts o;
            elk_sched_opts_default(&o);
            o.cancel = cancel;
            if (po->coarse) {
                /* the provisional answer searches less too: Elk-Full
                 * screens orders on one layer and re-runs one finalist,
                 * Static steps its split by 40 KiB */
                o.screen_layers = 1;
                o.finalists = 1;
                o.static_step_kib = 40;
            }
            s->status = result_run_parallel(&s->pr, &o, &s->res, &s->err);
            if (s->status == ELK_OK) s->have_res = 1;
        }
    }
    /* a cut made on a cancelled (hence infinite) piece time is no answer */
    if (s->status == ELK_OK && atomic_load(cancel)) s->status = elk_fail(&s->err, ELK_ECANCEL, "cancelled");
    s->ms = tui_now_ms() - t0;
    return s;
}

static tui_snap *compute(const elk_point *p, unsigned long id, elk_plan_cache *pc, atomic_int *cancel)
{
    elk_plan_opts po = {.cancel = cancel, .threads = policy_threads()};
    return compute_opts(p, id, pc, cancel, &po);
}

/* ---- point worker ---- */

/* The point worker's job. If every plan set of the point is cached (an HBM
 * or NoC change, a point seen before) the complete result is computed at
 * once. Otherwise plans must be enumerated, which on a big chip or after a
 * shape change can take longer than a knob change should: a provisional
 * result is published first, the same five policies on the coarse plan
 * space (elk_plan_opts.coarse: a subset of the plans, splits stepped
 * geometrically, enumerated in a fraction of the time) with shorter
 * searches (compute_opts), then the complete one. Both answer the same request id; a newer request cancels either. */
struct tui_worker {
    tui_job *job;
    elk_plan_cache *pc;
    atomic_int provisionals; /* provisional results published */
};

static void *point_run(tui_job *j, const void *req, unsigned long id, atomic_int *cancel, void *ctx)
{
    const elk_point *p = req;
    tui_worker *w = ctx;
    elk_plan_cache *pc = w->pc;
    double t0 = tui_now_ms();
    int missed = 0;
    elk_plan_opts probe = {.cancel = cancel, .cached_only = 1, .missed = &missed};
    tui_snap *s = compute_opts(p, id, pc, cancel, &probe);
    if (!s || !missed) return s;
    tui_snap_free(s);
    if (atomic_load(cancel)) return NULL;
    /* the worker has the cores to itself while it plans: the point's plan
     * sets are built on as many threads as its policies run on */
    elk_plan_opts coarse = {.cancel = cancel, .coarse = 1, .threads = policy_threads()};
    s = compute_opts(p, id, pc, cancel, &coarse);
    if (s && s->status == ELK_OK) {
        s->provisional = 1;
        s->ms = tui_now_ms() - t0;
        if (tui_job_publish(j, s, id)) atomic_fetch_add(&w->provisionals, 1);
    } else {
        tui_snap_free(s); /* the complete computation reports any error */
    }
    if (atomic_load(cancel)) return NULL;
    s = compute(p, id, pc, cancel);
    /* the time from the request, the provisional answer included */
    if (s) s->ms = tui_now_ms() - t0;
    return s;
}

static int snap_cancelled(const void *r) { return ((const tui_snap *)r)->status == ELK_ECANCEL; }
static void snap_free(void *r) { tui_snap_free(r); }

tui_worker *tui_worker_start(elk_plan_cache *pc, int wake_fd)
{
    (void)policy_threads(); /* settle it before any thread reads it */
    tui_worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->pc = pc;
    tui_job_ops ops = {point_run, snap_cancelled, snap_free, sizeof(elk_point), w};
    if (!(w->job = tui_job_start(&ops, wake_fd))) {
        free(w);
        return NULL;
    }
    return w;
}

void tui_worker_request(tui_worker *w, const elk_point *p, unsigned long id) { tui_job_request(w->job, p, id); }

tui_snap *tui_worker_take(tui_worker *w) { return tui_job_take(w->job); }

int tui_worker_busy(const tui_worker *w) { return tui_job_busy(w->job); }

int tui_worker_provisionals(tui_worker *w) { return atomic_load(&w->provisionals); }

void tui_worker_stop(tui_worker *w)
{
    if (!w) return;
    tui_job_stop(w->job);
    free(w);
}

/* ---- sweeper ---- */

/* A sweep request: its id (data.id when it was asked for), the knob, the
 * values and the base point. */
typedef struct {
    unsigned long id;
    int knob, n;
    double xs[TUI_SWEEP_MAX];
    elk_point base;
} sweep_req;

/* The sweeper: a tui_job whose run computes the points in order and writes
 * each into data as it finishes. mu guards data and started; data.id is
 * the latest sweep's, so a superseded run stops writing. */
struct tui_sweeper {
    tui_job *job;
    pthread_mutex_t mu;
    elk_plan_cache *pc;
    int wake_fd;
    int started;           /* a sweep was ever requested */
    tui_sweep_data data;
};

/* Elk-Full at r, carried (docs/SWEEPS.md, Carried schedules): when the
 * schedule of *origin (the sweep's carried one so far) re-timed at r's chip
 * beats r's own, pt's Elk-Full figures are that schedule's and pt->carried
 * is set; otherwise r becomes the origin. Takes r over (kept or freed). */
static void carry(tui_snap **origin, tui_snap *r, tui_sweep_pt *pt, atomic_int *cancel)
{
    const int F = ELK_POL_FULL;
    if (*origin && r->res.have[F]) {
        const elk_schedule *os = &(*origin)->res.pol[F];
        elk_sched_opts o;
        elk_sched_opts_default(&o);
        o.cancel = cancel;
        elk_schedule best;
        elk_error err;
        double t;
        if (elk_retime_full(&(*origin)->pr, os, &r->pr.chip, &o, &t, &best, &err) == ELK_OK &&
            t < r->res.pol[F].latency) {
            double ideal = r->res.have[ELK_POL_IDEAL] ? r->res.pol[ELK_POL_IDEAL].latency : NAN;
            pt->lat_ms[F] = best.latency_ms;
            pt->pct[F] = 100.0 * ideal / best.latency;
            pt->hbm[F] = best.hbm_util;
            pt->noc[F] = best.noc_util;
            pt->tflops[F] = best.tflops;
            pt->carried = 1;
            elk_schedule_free(&best);
            tui_snap_free(r);
            return;
        }
        elk_schedule_free(&best);
    }
    if (!r->res.have[F]) { /* nothing to carry from here: keep the older one */
        tui_snap_free(r);
        return;
    }
    tui_snap_free(*origin);
    *origin = r;
}

/* The sweep's values rise, so a carried schedule moves to more of the knob. */
static int rising(const sweep_req *q)
{
    for (int i = 1; i < q->n; i++)
        if (!(q->xs[i] > q->xs[i - 1])) return 0;
    return 1;
}

static void *sweep_run(tui_job *j, const void *req, unsigned long jid, atomic_int *cancel, void *ctx)
{
    (void)j;
    (void)jid;
    const sweep_req *q = req;
    tui_sweeper *s = ctx;
    /* a resource knob swept upwards carries Elk-Full's schedules */
    int carrying = elk_knobs[q->knob].resource && rising(q);
    tui_snap *origin = NULL;
    for (int i = 0; i < q->n && !atomic_load(cancel); i++) {
        pthread_mutex_lock(&s->mu);
        if (s->data.id != q->id) {
            pthread_mutex_unlock(&s->mu);
            break; /* a new sweep replaced this one */
        }
        s->data.pt[i].state = 1;
        pthread_mutex_unlock(&s->mu);

        tui_sweep_pt pt;
        memset(&pt, 0, sizeof pt);
        pt.x = q->xs[i];
        elk_point p = q->base;
        elk_error err;
        tui_snap *r = NULL;
        if (elk_point_set_num(&p, (elk_knob)q->knob, q->xs[i], &err) != ELK_OK) {
            pt.state = 3;
            snprintf(pt.err, sizeof pt.err, "%.150s", err.msg);
        } else {
            r = compute(&p, q->id, s->pc, cancel);
            if (!r) {
                pt.state = 3;
                snprintf(pt.err, sizeof pt.err, "out of memory");
            } else if (r->status != ELK_OK) {
                pt.state = 3;
                snprintf(pt.err, sizeof pt.err, "%.150s", r->err.msg);
            } else {
                pt.state = 2;
                for (int k = 0; k < ELK_POL_COUNT; k++) {
                    pt.have[k] = r->res.have[k];
                    if (!pt.have[k]) continue;
                    pt.lat_ms[k] = r->res.pol[k].latency_ms;
                    pt.pct[k] = r->res.pct_ideal[k];
                    pt.hbm[k] = r->res.pol[k].hbm_util;
                    pt.noc[k] = r->res.pol[k].noc_util;
                    pt.tflops[k] = r->res.pol[k].tflops;
                }
            }
        }
        int cancelled = r && r->status == ELK_ECANCEL;
        if (carrying && r && pt.state == 2) carry(&origin, r, &pt, cancel);
        else tui_snap_free(r);

        pthread_mutex_lock(&s->mu);
        int current = s->data.id == q->id;
        if (current) {
            if (cancelled) {
                s->data.pt[i].state = 0;
            } else {
                s->data.pt[i] = pt;
                s->data.done++;
            }
        }
        pthread_mutex_unlock(&s->mu);
        if (!current || cancelled) break;
        tui_job_wake(s->wake_fd);
    }
    tui_snap_free(origin);
    return NULL; /* everything went into data; the job wakes the UI when idle */
}

static void sweep_free(void *r) { (void)r; }
static int sweep_cancelled(const void *r)
{
    (void)r;
    return 1;
}

tui_sweeper *tui_sweeper_start(elk_plan_cache *pc, int wake_fd)
{
    tui_sweeper *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->pc = pc;
    s->wake_fd = wake_fd;
    pthread_mutex_init(&s->mu, NULL);
    tui_job_ops ops = {sweep_run, sweep_cancelled, sweep_free, sizeof(sweep_req), s};
    if (!(s->job = tui_job_start(&ops, wake_fd))) {
        pthread_mutex_destroy(&s->mu);
        free(s);
        return NULL;
    }
    return s;
}

void tui_sweeper_run(tui_sweeper *s, const elk_point *base, int knob, const double *xs, int n)
{
    if (n > TUI_SWEEP_MAX) n = TUI_SWEEP_MAX;
    sweep_req q;
    memset(&q, 0, sizeof q);
    pthread_mutex_lock(&s->mu);
    s->data.id++;
    s->data.knob = knob;
    s->data.n = n;
    s->data.done = 0;
    s->data.base = *base;
    memset(s->data.pt, 0, sizeof s->data.pt);
    for (int i = 0; i < n; i++) s->data.pt[i].x = xs[i];
    s->started = 1;
    q.id = s->data.id;
    pthread_mutex_unlock(&s->mu);
    q.knob = knob;
    q.n = n;
    memcpy(q.xs, xs, (size_t)n * sizeof *xs);
    q.base = *base;
    tui_job_request(s->job, &q, q.id);
}

void tui_sweeper_cancel(tui_sweeper *s) { tui_job_cancel(s->job); }

int tui_sweeper_get(tui_sweeper *s, tui_sweep_data *out)
{
    pthread_mutex_lock(&s->mu);
    int st = s->started;
    if (st) *out = s->data;
    pthread_mutex_unlock(&s->mu);
    return st;
}

int tui_sweeper_busy(tui_sweeper *s) { return tui_job_busy(s->job); }

void tui_sweeper_stop(tui_sweeper *s)
{
    if (!s) return;
    tui_job_stop(s->job);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
