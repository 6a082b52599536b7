#include "elk_balance.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "elk_cost.h"
#include "elk_retime.h"

const char *const elk_bound_names[] = {"execution", "HBM", "NoC", NULL};

#define GRID 9 /* log-spaced points that bracket the knee */

/* Evaluations are kept sorted by x, and a repeated x is not re-evaluated. */
static double eval(elk_knee_fn f, void *ctx, elk_knee *k, double x)
{
    for (int i = 0; i < k->npts; i++)
        if (k->pts[i].x == x) return k->pts[i].y;
    double y = f(x, ctx);
    if (k->npts < ELK_KNEE_MAX_EVALS) {
        int i = k->npts++;
        while (i > 0 && k->pts[i - 1].x > x) {
            k->pts[i] = k->pts[i - 1];
            i--;
        }
        k->pts[i] = (elk_knee_pt){x, y};
    }
    return y;
}

typedef struct {
    elk_knee_fn f;
    void *ctx;
    elk_knee *k;
    int failed;
} root_ctx;

/* log(L(e^u) / threshold): negative once within p of the plateau */
static double root_fn(double u, void *arg)
{
    root_ctx *rc = arg;
    double y = eval(rc->f, rc->ctx, rc->k, exp(u));
    if (!(y > 0)) {
        rc->failed = 1;
        return 0;
    }
    return log(y / rc->k->threshold);
}

elk_status elk_knee_find(elk_knee_fn f, void *ctx, double lo, double hi, double p, double rel_tol, elk_knee *k,
                         elk_error *err)
{
    memset(k, 0, sizeof *k);
    k->knee = NAN;
    if (!(lo > 0) || !(hi > lo) || !(p >= 0) || !(rel_tol > 0))
        return elk_fail(err, ELK_EINVAL, "knee: need 0 < lo < hi, p >= 0, rel_tol > 0 (got %g, %g, %g, %g)", lo, hi, p,
                        rel_tol);
    /* the grid from lo up, hi last: a response that carries what it saw
     * at smaller x (balance's Elk-Full) sees it in increasing order */
    double gx[GRID], gy[GRID];
    for (int i = 0; i < GRID; i++) {
        gx[i] = i == GRID - 1 ? hi : exp(log(lo) + (log(hi) - log(lo)) * i / (GRID - 1));
        gy[i] = eval(f, ctx, k, gx[i]);
        if (!(gy[i] > 0)) return elk_fail(err, ELK_EINVAL, "knee: the response failed at %g", gx[i]);
    }
    k->plateau = gy[GRID - 1];
    k->threshold = (1 + p) * k->plateau;
    int last_above = -1;
    for (int i = 0; i < GRID; i++)
        if (gy[i] > k->threshold) last_above = i;
    if (last_above < 0) return ELK_OK; /* within p of the plateau from lo on: no knee inside */
    assert(last_above < GRID - 1);     /* L(hi) is the plateau itself */
    root_ctx rc = {f, ctx, k, 0};
    gsl_function F = {root_fn, &rc};
    /* GSL's default handler aborts; its status codes are checked here */
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_bisection);
    if (!s) {
        gsl_set_error_handler(old);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    double a = log(gx[last_above]), b = log(gx[last_above + 1]);
    int status = gsl_root_fsolver_set(s, &F, a, b);
    while (status == GSL_SUCCESS && !rc.failed && k->npts < ELK_KNEE_MAX_EVALS - 1) {
        status = gsl_root_fsolver_iterate(s);
        a = gsl_root_fsolver_x_lower(s);
        b = gsl_root_fsolver_x_upper(s);
        if (gsl_root_test_interval(a, b, 0, log1p(rel_tol)) == GSL_SUCCESS) break;
    }
    gsl_root_fsolver_free(s);
    gsl_set_error_handler(old);
    if (status != GSL_SUCCESS && !rc.failed)
        return elk_fail(err, ELK_EINVAL, "knee: bisection failed: %s", gsl_strerror(status));
    if (rc.failed) return elk_fail(err, ELK_EINVAL, "knee: the response failed during bisection");
    /* the least x known to be within p of the plateau: the bracket's upper end */
    k->knee = exp(b);
    for (int i = 0; i < k->npts; i++)
        if (k->pts[i].x >= exp(a) && k->pts[i].x < k->knee && k->pts[i].y <= k->threshold) k->knee = k->pts[i].x;
    return ELK_OK;
}

double elk_knee_of_samples(const elk_knee_pt *pts, int n, double p, double *plateau)
{
    int top = -1, cnt = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(pts[i].x) && isfinite(pts[i].y)) {
            cnt++;
            if (top < 0 || pts[i].x > pts[top].x) top = i;
        }
    if (plateau) *plateau = top >= 0 ? pts[top].y : NAN;
    if (cnt < 2) return NAN;
    double thr = (1 + p) * pts[top].y;
    /* the largest x of a sample above the threshold; the knee is the next
     * sample up */
    double above = -INFINITY;
    for (int i = 0; i < n; i++)
        if (isfinite(pts[i].x) && isfinite(pts[i].y) && pts[i].y > thr && pts[i].x > above) above = pts[i].x;
    if (above == -INFINITY) return NAN; /* within p from the smallest x on */
    double knee = INFINITY;
    for (int i = 0; i < n; i++)
        if (isfinite(pts[i].x) && isfinite(pts[i].y) && pts[i].x > above && pts[i].x < knee) knee = pts[i].x;
    return knee;
}

void elk_demand_of(const elk_problem *pr, elk_demand *d)
{
    const elk_chip *c = &pr->chip;
    double bytes = pr->graph.weight_bytes + pr->graph.kv_bytes; /* = the ops' HBM bytes (elk check) */
    d->exec = elk_problem_exec_floor(pr);
    d->hbm = bytes / elk_chip_hbm_bytes_per_cycle(c);
    d->noc = bytes / elk_cost_preload_rate(c, 1);
    d->bound = ELK_BOUND_EXEC;
    if (d->hbm > d->exec && d->hbm >= d->noc) d->bound = ELK_BOUND_HBM;
    else if (d->noc > d->exec && d->noc > d->hbm) d->bound = ELK_BOUND_NOC;
}

void elk_balance_opts_default(elk_balance_opts *o)
{
    memset(o, 0, sizeof *o);
    o->knob = ELK_KNOB_HBM_TBPS;
    o->pol = ELK_POL_FULL;
    o->p = 0.05;
}

/* An Elk-Full evaluation kept for carrying: the knob value and the entry
 * whose schedule it runs (its own, or a smaller value's). */
#define BAL_MAX_EVALS 64
typedef struct {
    double x;
    int from;            /* index of the entry holding the schedule */
    int own;             /* 1: pr and s are this entry's and owned */
    elk_problem pr;
    elk_schedule s;
} bal_entry;

typedef struct {
    const elk_point *base;
    const elk_balance_opts *o;
    elk_plan_cache *pc;
    elk_error *err;
    elk_status st;
    double fail_x; /* the knob value that set st */
    int with_policy; /* 0: demand only (bound flips) */
    /* Elk-Full along a resource knob is carried (docs/SWEEPS.md, Carried
     * schedules): each evaluation runs the faster of its own schedule and
     * the schedule of the largest value evaluated below it, re-timed */
    int carry;
    int nent, carried;
    bal_entry ent[BAL_MAX_EVALS];
    elk_bound bound;
} bal_ctx;

static double knob_value(const elk_knob_info *ki, double x)
{
    if (ki->is_int == 1) x = floor(x + 0.5);
    return fmin(fmax(x, ki->min), ki->max);
}

/* Evaluation x of a carried Elk-Full curve, its own schedule s on pr
 * (*ms its latency): the schedule of the largest value evaluated below x,
 * re-timed at x (elk_retime_full), when faster, gives *ms. Returns 0 when
 * it kept pr and s (s is the entry's own), 1 when the caller frees them
 * (also on an error, with b->st set and *ms -1). */
static int carry_eval(bal_ctx *b, double x, elk_problem *pr, elk_schedule *s, const elk_sched_opts *so, double *ms)
{
    if (b->nent >= BAL_MAX_EVALS) return 1; /* past the bound: pointwise */
    int below = -1;
    for (int i = 0; i < b->nent; i++)
        if (b->ent[i].x < x && (below < 0 || b->ent[i].x > b->ent[below].x)) below = i;
    bal_entry *e = &b->ent[b->nent];
    e->x = x;
    e->own = 0;
    e->from = -1;
    if (below >= 0 && b->ent[below].from >= 0) {
        const bal_entry *o = &b->ent[b->ent[below].from];
        double t;
        elk_status st = elk_retime_full(&o->pr, &o->s, &pr->chip, so, &t, NULL, b->err);
        if (st != ELK_OK) {
            b->st = st;
            *ms = -1;
            return 1;
        }
        if (t < s->latency) {
            e->from = b->ent[below].from;
            *ms = t / (pr->chip.clock_ghz * 1e6);
            b->carried++;
            b->nent++;
            return 1;
        }
    }
    e->from = b->nent++;
    e->own = 1;
    e->pr = *pr;
    e->s = *s;
    return 0;
}

/* L(x) in ms, or -1 with ctx->st set */
static double bal_eval(double x, void *arg)
{
    bal_ctx *b = arg;
    elk_point q = *b->base;
    elk_status st = elk_point_set_num(&q, b->o->knob, knob_value(&elk_knobs[b->o->knob], x), b->err);
    elk_problem pr;
    if (st == ELK_OK) st = elk_problem_init(&pr, &q, b->pc, b->err);
    if (st != ELK_OK) {
        b->st = st;
        b->fail_x = x;
        return -1;
    }
    elk_demand d;
    elk_demand_of(&pr, &d);
    b->bound = d.bound;
    double ms = 1;
    if (b->with_policy) {
        elk_sched_opts so;
        elk_sched_opts_default(&so);
        elk_schedule s;
        st = elk_schedule_run(&pr, b->o->pol, &so, &s, b->err);
        if (st == ELK_OK) {
            ms = s.latency_ms;
            if (b->carry && carry_eval(b, x, &pr, &s, &so, &ms) == 0) return ms; /* pr and s kept */
            elk_schedule_free(&s);
        } else {
            b->st = st;
            b->fail_x = x;
            ms = -1;
        }
    }
    elk_problem_free(&pr);
    return ms;
}

static elk_status bound_at(bal_ctx *b, double x, elk_bound *out)
{
    int w = b->with_policy;
    b->with_policy = 0;
    double r = bal_eval(x, b);
    b->with_policy = w;
    if (r < 0) return b->st;
    *out = b->bound;
    return ELK_OK;
}

elk_status elk_balance_run(const elk_point *p, const elk_balance_opts *o, elk_balance_result *r, elk_error *err)
{
    memset(r, 0, sizeof *r);
    const elk_knob_info *ki = &elk_knobs[o->knob];
    if (ki->is_int == 2 || o->knob == ELK_KNOB_HBM_BROADCAST || o->knob == ELK_KNOB_LAYERS)
        return elk_fail(err, ELK_EINVAL, "balance: --knob %s is not a quantity that can grow (try hbm-tbps, noc-tbps, "
                        "link-gbps, cores, sram-kib, compute-scale)", ki->name);
    elk_chip c;
    elk_model m;
    ELK_TRY(elk_point_resolve(p, &c, &m, err));
    char buf[64];
    elk_point_format(p, &c, &m, o->knob, buf, sizeof buf);
    r->current = atof(buf);
    if (!(r->current > 0)) return elk_fail(err, ELK_EINVAL, "balance: %s is %s at this point", ki->name, buf);
    /* cores re-enumerate plans at every value: a narrower default upwards */
    double up = o->knob == ELK_KNOB_CORES ? 4 : 16;
    double lo = o->lo > 0 ? o->lo : r->current / 16, hi = o->hi > 0 ? o->hi : r->current * up;
    lo = fmax(lo, ki->min);
    hi = fmin(hi, ki->max);
    if (!(hi > lo)) return elk_fail(err, ELK_EINVAL, "balance: empty range %g .. %g for %s", lo, hi, ki->name);
    elk_plan_cache *own = o->cache ? NULL : elk_plan_cache_alloc();
    bal_ctx *b = calloc(1, sizeof *b); /* large: its entries hold problems */
    if (!b) {
        elk_plan_cache_free(own);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    b->base = p;
    b->o = o;
    b->pc = o->cache ? o->cache : own;
    b->err = err;
    b->st = ELK_OK;
    b->with_policy = 1;
    b->bound = ELK_BOUND_EXEC;
    b->carry = o->pol == ELK_POL_FULL && ki->resource;
    if (!b->pc) {
        free(b);
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    elk_error kerr; /* the search's own: err keeps the model's (b->err) */
    elk_error_clear(&kerr);
    elk_status st = elk_knee_find(bal_eval, b, lo, hi, o->p, 0.01, &r->knee, &kerr);
    if (st != ELK_OK && b->st != ELK_OK) { /* the model's own error, not the search's, and where */
        st = b->st;
        char v[48], msg[sizeof err->msg];
        snprintf(v, sizeof v, "%.6g", knob_value(&elk_knobs[o->knob], b->fail_x));
        snprintf(msg, sizeof msg, "%s", err->msg);
        elk_fail(err, st, "balance: at --%s %s: %s", elk_knobs[o->knob].name, v, msg);
    } else if (st != ELK_OK) {
        *err = kerr;
    }
    if (st == ELK_OK) r->current_ms = bal_eval(r->current, b);
    if (st == ELK_OK && r->current_ms < 0) st = b->st;
    /* bound at both ends, and its flips on the grid, each bisected to 1% */
    if (st == ELK_OK) st = bound_at(b, lo, &r->bound_lo);
    if (st == ELK_OK) st = bound_at(b, hi, &r->bound_hi);
    if (st == ELK_OK) st = bound_at(b, isnan(r->knee.knee) ? lo : r->knee.knee, &r->bound_at_knee);
    elk_bound prev = r->bound_lo;
    double px = lo;
    for (int i = 1; i < GRID && st == ELK_OK && r->nflips < ELK_BALANCE_MAX_FLIPS; i++) {
        double x = i == GRID - 1 ? hi : exp(log(lo) + (log(hi) - log(lo)) * i / (GRID - 1));
        elk_bound bx = prev;
        if ((st = bound_at(b, x, &bx)) != ELK_OK) break;
        if (bx != prev) {
            double a = px, z = x;
            while (z / a > 1.01 && st == ELK_OK) {
                double mid = sqrt(a * z);
                elk_bound bm = prev;
                if ((st = bound_at(b, mid, &bm)) != ELK_OK) break;
                if (bm == prev) a = mid;
                else z = mid;
            }
            r->flip[r->nflips] = z;
            r->flip_to[r->nflips++] = bx;
        }
        prev = bx;
        px = x;
    }
    r->carried = b->carried;
    for (int i = 0; i < b->nent; i++)
        if (b->ent[i].own) {
            elk_schedule_free(&b->ent[i].s);
            elk_problem_free(&b->ent[i].pr);
        }
    free(b);
    elk_plan_cache_free(own);
    return st;
}

/* ---- sensitivity ---- */

/* The schedule a carried step starts from: the base point's problem and
 * its policy's schedule (have 0: none kept). */
typedef struct {
    int have;
    elk_problem pr;
    elk_schedule s;
} sens_base;

/* Policy pol's latency at q, in ms (NAN with *st set when it cannot be
 * planned). With from (Elk-Full up a resource knob), the faster of q's own
 * schedule and from's re-timed at q (*carried 1 when that won). keep, when
 * not NULL, takes q's problem and schedule (the base point's). */
static double latency_at(const elk_point *q, elk_policy pol, elk_plan_cache *pc, atomic_int *cancel,
                         const sens_base *from, sens_base *keep, int *carried, elk_status *st, elk_error *err)
{
    elk_problem pr;
    elk_plan_opts po = {.cancel = cancel};
    if (carried) *carried = 0;
    *st = elk_problem_init_opts(&pr, q, pc, &po, err);
    if (*st != ELK_OK) return NAN;
    elk_sched_opts so;
    elk_sched_opts_default(&so);
    so.cancel = cancel;
    elk_schedule s;
    *st = elk_schedule_run(&pr, pol, &so, &s, err);
    double ms = *st == ELK_OK ? s.latency_ms : NAN;
    if (*st == ELK_OK && from && from->have) {
        double t;
        elk_schedule r;
        *st = elk_retime_full(&from->pr, &from->s, &pr.chip, &so, &t, &r, err);
        if (*st == ELK_OK && t < s.latency) {
            ms = r.latency_ms;
            if (carried) *carried = 1;
        }
        elk_schedule_free(&r);
        if (*st != ELK_OK) ms = NAN;
    }
    if (*st == ELK_OK && keep) {
        keep->have = 1;
        keep->pr = pr;
        keep->s = s;
        return ms;
    }
    if (*st == ELK_OK) elk_schedule_free(&s);
    elk_problem_free(&pr);
    return ms;
}

static void step_of(elk_knob k, double v, const elk_chip *c, double *down, double *up)
{
    switch (k) {
    case ELK_KNOB_HBM_TBPS:
        if (v > 32) *down = v / 2, *up = v * 2;
        else if (v < 2) *down = v - 0.25, *up = v + 0.25;
        else *down = v - 1, *up = v + 1;
        break;
    case ELK_KNOB_NOC_SCALE:
    case ELK_KNOB_COMPUTE_SCALE: *down = v - 0.25, *up = v + 0.25; break;
    case ELK_KNOB_LINK_GBPS: *down = v / 1.25, *up = v * 1.25; break;
    case ELK_KNOB_CORES:
        if (v > c->cores_per_chip) *down = v - c->cores_per_chip, *up = v + c->cores_per_chip;
        else *down = floor(v / 2), *up = v * 2 > c->cores_per_chip ? c->cores_per_chip * 2 : v * 2;
        break;
    case ELK_KNOB_SRAM_KIB: *down = v - 64, *up = v + 64; break;
    default: *down = v / 2, *up = v * 2; break; /* batch, sequence */
    }
}

static int cmp_sens(const void *a, const void *b)
{
    const elk_sens_row *x = a, *y = b;
    double bx = fmax(x->have_down ? fabs(x->ms_down) : 0, x->have_up ? fabs(x->ms_up) : 0);
    double by = fmax(y->have_down ? fabs(y->ms_down) : 0, y->have_up ? fabs(y->ms_up) : 0);
    if (bx != by) return bx > by ? -1 : 1;
    return (x->knob > y->knob) - (x->knob < y->knob);
}

elk_status elk_sensitivity_run(const elk_point *p, elk_policy pol, elk_plan_cache *pc, elk_sens *out, elk_error *err)
{
    return elk_sensitivity_run_cancel(p, pol, pc, NULL, out, err);
}

elk_status elk_sensitivity_run_cancel(const elk_point *p, elk_policy pol, elk_plan_cache *pc, atomic_int *cancel,
                                      elk_sens *out, elk_error *err)
{
    static const elk_knob knobs[] = {ELK_KNOB_HBM_TBPS,      ELK_KNOB_NOC_SCALE, ELK_KNOB_LINK_GBPS,
                                     ELK_KNOB_CORES,         ELK_KNOB_SRAM_KIB,  ELK_KNOB_COMPUTE_SCALE,
                                     ELK_KNOB_BATCH,         ELK_KNOB_SEQ};
    memset(out, 0, sizeof *out);
    elk_chip c;
    elk_model m;
    ELK_TRY(elk_point_resolve(p, &c, &m, err));
    elk_status st;
    sens_base base = {0};
    out->base_ms = latency_at(p, pol, pc, cancel, NULL, pol == ELK_POL_FULL ? &base : NULL, NULL, &st, err);
    if (st != ELK_OK) return st;
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        elk_sens_row *r = &out->row[out->n++];
        r->knob = knobs[i];
        char buf[64];
        elk_point_format(p, &c, &m, r->knob, buf, sizeof buf);
        r->value = atof(buf);
        step_of(r->knob, r->value, &c, &r->down, &r->up);
        const elk_knob_info *ki = &elk_knobs[r->knob];
        for (int side = 0; side < 2; side++) {
            double v = side ? r->up : r->down;
            if (ki->is_int == 1) v = floor(v + 0.5);
            if (v < ki->min || v > ki->max || v == r->value) continue;
            elk_point q = *p;
            elk_error e2;
            if (elk_point_set_num(&q, r->knob, v, &e2) != ELK_OK) continue;
            int carried = 0;
            const sens_base *from = side && ki->resource ? &base : NULL;
            double ms = latency_at(&q, pol, pc, cancel, from, NULL, &carried, &st, &e2);
            if (st == ELK_ENOPLAN || st == ELK_EINVAL || st == ELK_ERANGE) continue; /* refused: left out */
            if (st != ELK_OK) {
                if (err) *err = e2;
                break;
            }
            /* stored as the change, ranked by magnitude */
            if (side) r->ms_up = ms - out->base_ms, r->have_up = 1, r->up = v, r->carried_up = carried;
            else r->ms_down = ms - out->base_ms, r->have_down = 1, r->down = v;
        }
        if (st != ELK_OK && st != ELK_ENOPLAN && st != ELK_EINVAL && st != ELK_ERANGE) break;
    }
    if (base.have) {
        elk_schedule_free(&base.s);
        elk_problem_free(&base.pr);
    }
    if (st != ELK_OK && st != ELK_ENOPLAN && st != ELK_EINVAL && st != ELK_ERANGE) return st;
    qsort(out->row, (size_t)out->n, sizeof out->row[0], cmp_sens);
    for (int i = 0; i < out->n; i++) {
        out->row[i].ms_down += out->base_ms;
        out->row[i].ms_up += out->base_ms;
    }
    return ELK_OK;
}
