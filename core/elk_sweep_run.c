/* elk_sweep_run: a sweep's points expanded (elk_sweep_point) and run on
 * worker threads that share a plan cache and an optional memo; rows are
 * written in point order as the finished prefix grows. */
#include "elk_sweep.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elk_csv.h"
#include "elk_sweep_int.h"
#include "elk_thread.h"

/* ------------------------------------------------------------------ */
/* Expanding                                                            */

/* A point's knobs as canonical text: the fingerprint of a sweep and the key
 * of the memo. full=0 keeps preset base names only (shards on machines with
 * different install paths still agree). */
void elk_sweep_point_key(const elk_point *p, int full, char *buf, size_t n)
{
    const char *cp = p->chip_path, *mp = p->model_path;
    if (!full) {
        const char *s;
        if ((s = strrchr(cp, '/'))) cp = s + 1;
        if ((s = strrchr(mp, '/'))) mp = s + 1;
    }
    snprintf(buf, n, "%s|%s|%d|%d|%d|%d|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%d|%d|%d|%d|%s", cp, mp,
             (int)p->workload, p->batch, p->seq, p->layers, p->hbm_tbps, p->noc_tbps, p->noc_scale, p->link_gbps,
             p->sram_kib, p->compute_scale, p->hbm_gbps_per_core, p->cores, p->topology, p->hbm_controllers,
             p->hbm_broadcast, p->profile);
}

static elk_status apply_block(const elk_sweep_block *b, long i, elk_point *p, elk_error *err)
{
    for (int a = b->naxes - 1; a >= 0; a--) {
        const elk_sweep_axis *ax = &b->axis[a];
        assert((ax->num != NULL) != (ax->word != NULL) && ax->n >= 1); /* elk_sweep_axis's invariant */
        long vi;
        if (b->zip) {
            vi = i;
        } else {
            vi = i % ax->n;
            i /= ax->n;
        }
        assert(vi >= 0 && vi < ax->n); /* i < count = the product (cross) or the common length (zip) */
        if (ax->word) ELK_TRY(elk_point_set(p, ax->knob, ax->word[vi], err));
        else ELK_TRY(elk_point_set_num(p, ax->knob, ax->num[vi], err));
    }
    return ELK_OK;
}

elk_status elk_sweep_point(const elk_sweep *s, long idx, elk_point *p, int *part_out, elk_error *err)
{
    if (idx < 0 || idx >= s->npoints)
        return elk_fail(err, ELK_ERANGE, "point %ld out of range (the sweep has %ld)", idx, s->npoints);
    int k = 0;
    while (k + 1 < s->nparts && idx >= s->part[k + 1].first) k++;
    const elk_sweep_part *pt = &s->part[k];
    long local = idx - pt->first;
    *p = pt->base;
    ELK_TRY(apply_block(&s->top, local / pt->block.count, p, err));
    ELK_TRY(apply_block(&pt->block, local % pt->block.count, p, err));
    if (part_out) *part_out = k;
    return ELK_OK;
}

void elk_sweep_describe_point(const elk_sweep *s, long idx, char *buf, size_t n)
{
    elk_point p;
    int part;
    size_t l = 0;
    buf[0] = '\0';
    if (elk_sweep_point(s, idx, &p, &part, NULL) != ELK_OK) return;
    const elk_sweep_block *b[2] = {&s->top, &s->part[part].block};
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < b[k]->naxes; a++) {
            const elk_sweep_axis *ax = &b[k]->axis[a];
            /* recompute the value index the same way apply_block does */
            long local = idx - s->part[part].first;
            long i = k == 0 ? local / s->part[part].block.count : local % s->part[part].block.count;
            long vi = i;
            if (!b[k]->zip) {
                for (int z = b[k]->naxes - 1; z > a; z--) vi /= b[k]->axis[z].n;
                vi %= ax->n;
            }
            char v[64];
            if (ax->word) snprintf(v, sizeof v, "%s", ax->word[vi]);
            else snprintf(v, sizeof v, "%g", ax->num[vi]);
            int w = snprintf(buf + l, n > l ? n - l : 0, "%s%s=%s", l ? ", " : "", elk_knobs[ax->knob].name, v);
            if (w < 0 || l + (size_t)w >= n) return;
            l += (size_t)w;
        }
}


/* ------------------------------------------------------------------ */
/* Running                                                              */

/* Everything a point contributes to its rows. */
typedef struct {
    int status[ELK_POL_COUNT];          /* 0 ok, 1 no-plan */
    char knob[ELK_KNOB_COUNT][48];      /* resolved values as CSV text */
    double m[ELK_POL_COUNT][M_COUNT];
    char note[192];                     /* why no-plan */
} point_rec;

/* Point results shared across sweeps. Owns keys, recs and full (each
 * full[i] an Elk-Full schedule copy, ops NULL when none was kept: a
 * carried sweep needs the schedule to carry it, a pointwise one does not
 * keep it). recs are pointwise rows. Guarded by mu. */
struct elk_sweep_memo {
    pthread_mutex_t mu;
    char **keys;
    point_rec *recs;
    elk_schedule *full;
    int n, cap;
};

elk_sweep_memo *elk_sweep_memo_alloc(void)
{
    elk_sweep_memo *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void elk_sweep_memo_free(elk_sweep_memo *m)
{
    if (!m) return;
    for (int i = 0; i < m->n; i++) {
        free(m->keys[i]);
        elk_schedule_free(&m->full[i]);
    }
    free(m->keys);
    free(m->recs);
    free(m->full);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* The point stored under key: its row and, with full, a copy of its
 * Elk-Full schedule (the entry must hold one: a carried sweep's lookup).
 * Returns 1 when found. */
static int memo_get(elk_sweep_memo *m, const char *key, point_rec *r, elk_schedule *full)
{
    if (!m) return 0;
    int found = 0;
    pthread_mutex_lock(&m->mu);
    for (int i = m->n - 1; i >= 0 && !found; i--)
        if (!strcmp(m->keys[i], key)) {
            if (full && (!m->full[i].ops || elk_schedule_copy(full, &m->full[i]) != ELK_OK)) break;
            *r = m->recs[i];
            found = 1;
        }
    pthread_mutex_unlock(&m->mu);
    return found;
}

static void memo_put(elk_sweep_memo *m, const char *key, const point_rec *r, const elk_schedule *full)
{
    if (!m) return;
    pthread_mutex_lock(&m->mu);
    if (m->n == m->cap) {
        int nc = m->cap ? m->cap * 2 : 64;
        char **nk = realloc(m->keys, sizeof *nk * (size_t)nc);
        if (nk) m->keys = nk;
        point_rec *nr = realloc(m->recs, sizeof *nr * (size_t)nc);
        if (nr) m->recs = nr;
        elk_schedule *nf = realloc(m->full, sizeof *nf * (size_t)nc);
        if (nf) m->full = nf;
        if (nk && nr && nf) m->cap = nc;
    }
    if (m->n < m->cap) {
        memset(&m->full[m->n], 0, sizeof m->full[m->n]);
        if (full && full->ops && elk_schedule_copy(&m->full[m->n], full) != ELK_OK)
            memset(&m->full[m->n], 0, sizeof m->full[m->n]); /* kept without it */
        m->keys[m->n] = strdup(key);
        if (m->keys[m->n]) m->recs[m->n++] = *r;
        else elk_schedule_free(&m->full[m->n]);
    }
    pthread_mutex_unlock(&m->mu);
}

/* A point's memo key: its knobs and the policies it runs. */
static void memo_key(const elk_sweep *s, const elk_point *p, char *key, size_t n)
{
    elk_sweep_point_key(p, 1, key, n);
    size_t kl = strlen(key);
    snprintf(key + kl, n - kl, "#%u", s->policy_mask | (1u << ELK_POL_IDEAL));
}

static void knob_text(const elk_point *p, const elk_chip *c, const elk_model *m, elk_knob k, char *b, size_t n)
{
    switch (k) {
    case ELK_KNOB_HBM_TBPS: elk_csv_fmt(b, n, c->hbm_tbps); break;
    case ELK_KNOB_NOC_TBPS: elk_csv_fmt(b, n, elk_chip_noc_bytes_per_cycle(c) * c->clock_ghz / 1e3); break;
    case ELK_KNOB_NOC_SCALE: elk_csv_fmt(b, n, c->noc_scale); break;
    case ELK_KNOB_LINK_GBPS: elk_csv_fmt(b, n, c->link_gbps); break;
    case ELK_KNOB_SRAM_KIB: elk_csv_fmt(b, n, c->sram_kib); break;
    case ELK_KNOB_COMPUTE_SCALE: elk_csv_fmt(b, n, c->compute_scale); break;
    case ELK_KNOB_HBM_GBPS_PER_CORE: elk_csv_fmt(b, n, c->hbm_tbps * 1000.0 / c->cores); break;
    case ELK_KNOB_HBM_BROADCAST: snprintf(b, n, "%d", c->hbm_broadcast ? 1 : 0); break;
    default: elk_point_format(p, c, m, k, b, n); break;
    }
}

static double ms_of(const elk_chip *c, double cycles) { return cycles / (c->clock_ghz * 1e6); }

static void fill_point(const elk_problem *pr, double *m)
{
    const elk_chip *c = &pr->chip;
    const elk_graph *g = &pr->graph;
    for (int i = 0; i < M_COUNT; i++) m[i] = NAN;
    m[M_OPS] = g->nops;
    m[M_GFLOP] = g->flops / 1e9;
    m[M_HBM_GB] = (g->weight_bytes + g->kv_bytes) / 1e9;
    m[M_WEIGHT_GB] = g->weight_bytes / 1e9;
    m[M_KV_GB] = g->kv_bytes / 1e9;
    m[M_INTENSITY] = g->weight_bytes + g->kv_bytes > 0 ? g->flops / (g->weight_bytes + g->kv_bytes) : NAN;
    m[M_PEAK_MM] = elk_chip_peak_matmul_flops(c) / 1e12;
    m[M_PEAK_VEC] = elk_chip_peak_vector_flops(c) / 1e12;
}

static void fill_policy(const elk_chip *c, const elk_schedule *s, int p, double pct, double *m)
{
    m[M_LATENCY] = s->latency_ms;
    m[M_PCT_IDEAL] = pct;
    m[M_EXEC] = ms_of(c, s->brk[ELK_BRK_EXEC]);
    m[M_OVERLAP] = ms_of(c, s->brk[ELK_BRK_OVERLAP]);
    m[M_PRELOAD] = ms_of(c, s->brk[ELK_BRK_PRELOAD]);
    m[M_NOC] = ms_of(c, s->brk[ELK_BRK_NOC]);
    m[M_DIST] = ms_of(c, s->brk[ELK_BRK_DIST]);
    m[M_HBM_UTIL] = s->hbm_util;
    m[M_NOC_UTIL] = s->noc_util;
    m[M_TFLOPS] = s->tflops;
    m[M_NOC_PRE_UTIL] = s->noc_pre_util;
    m[M_NOC_EXE_UTIL] = s->noc_exe_util;
    m[M_NOC_DEMAND] = s->noc_demand;
    m[M_ADOPTED] = p == ELK_POL_FULL ? s->adopted : NAN;
    m[M_LATENCY_CYCLES] = s->latency;
    m[M_PEAK_RESIDENT] = s->peak_resident / 1024.0;
    m[M_STATIC_EXEC] = p == ELK_POL_STATIC ? s->static_exec_kib : NAN;
    m[M_STATIC_VARIANT] = p == ELK_POL_STATIC || p == ELK_POL_BASIC ? s->static_variant : NAN;
    m[M_ORDERS_TRIED] = p == ELK_POL_FULL ? s->orders_tried : NAN;
    m[M_AVG_EDIT] = p == ELK_POL_FULL ? s->avg_edit_dist : NAN;
}

/* Run the policies of mask on pr into rec. When some policy fits no
 * schedule, the others are still run one by one and that policy's rows get
 * status no-plan. */
static elk_status run_policies(const elk_problem *pr, const elk_sched_opts *o, unsigned mask, point_rec *rec,
                               elk_schedule *full, elk_error *err)
{
    for (int p = 0; p < ELK_POL_COUNT; p++) fill_point(pr, rec->m[p]);
    elk_result r;
    elk_status st = elk_result_run(pr, o, mask, &r, err);
    if (st == ELK_OK) {
        for (int p = 0; p < ELK_POL_COUNT; p++)
            if (r.have[p]) fill_policy(&pr->chip, &r.pol[p], p, r.have[ELK_POL_IDEAL] ? r.pct_ideal[p] : NAN, rec->m[p]);
        if (full && r.have[ELK_POL_FULL]) { /* handed over whole, not copied */
            *full = r.pol[ELK_POL_FULL];
            memset(&r.pol[ELK_POL_FULL], 0, sizeof r.pol[ELK_POL_FULL]);
        }
        elk_result_free(&r);
        return ELK_OK;
    }
    if (st != ELK_ENOPLAN) return st;
    snprintf(rec->note, sizeof rec->note, "%.*s", (int)sizeof rec->note - 1, err->msg);
    double ideal = NAN;
    for (int p = ELK_POL_COUNT - 1; p >= 0; p--) { /* Ideal first, for % of Ideal */
        if (!(mask & (1u << p))) continue;
        elk_error e;
        st = elk_result_run(pr, o, 1u << p, &r, &e);
        if (st == ELK_ENOPLAN) {
            rec->status[p] = 1;
            continue;
        }
        if (st != ELK_OK) {
            *err = e;
            return st;
        }
        if (p == ELK_POL_IDEAL) ideal = r.pol[p].latency;
        fill_policy(&pr->chip, &r.pol[p], p, isnan(ideal) ? NAN : 100.0 * ideal / r.pol[p].latency, rec->m[p]);
        if (full && p == ELK_POL_FULL) {
            *full = r.pol[p];
            memset(&r.pol[p], 0, sizeof r.pol[p]);
        }
        elk_result_free(&r);
    }
    return ELK_OK;
}

typedef struct {
    const elk_sweep *s;
    const elk_sweep_opts *o;
    elk_sched_opts sched;
    elk_plan_cache *cache;
    long n;             /* points of the shard: k-th is point shard + k * nshards, or loc[k] */
    /* A carried sweep (s->carried): the shard's series (those j with
     * j % nshards == shard) in cs, their points' indices ascending in loc;
     * every row is held (win = n). Workers plan the points in tasks order
     * (position by position, the series interleaved) and carry each series
     * in position order as its points come in (carry_ready). */
    elk_sweep_series ss;
    long *loc, nser;
    struct carry_series *cs;
    long (*tasks)[2];   /* (index into cs, position) */
    /* Rows of points [written, written + win) wait in a ring of win slots
     * (slot k % win), so memory does not grow with the sweep: a worker
     * does not take point k until k - written < win. */
    long win, written;
    point_rec *recs;
    char *done;
    long next, ndone;
    int running;
    atomic_int stop;    /* read by the scheduler unlocked (R.sched.cancel) */
    elk_status st;
    elk_error err;
    long infeasible, memo_hits;
    char first_infeasible[512];
    pthread_mutex_t mu;
    pthread_cond_t cv;
} runner;

static long point_of(const runner *R, long k) { return R->loc ? R->loc[k] : R->o->shard + k * R->o->nshards; }

/* The local index of point idx of a carried shard (loc is ascending). */
static long local_of(const runner *R, long idx)
{
    long lo = 0, hi = R->n - 1;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (R->loc[mid] < idx) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* A planned point: its pointwise row and, for a carried series, its
 * problem and Elk-Full schedule, which the carrier takes. */
typedef struct {
    elk_status st;
    elk_error err;
    point_rec rec;
    int have_pr;
    elk_problem pr;
    elk_schedule own;  /* ops NULL: Elk-Full fits no schedule here */
    elk_chip chip;
} planned;

/* One series of a carried shard. mu guards slot and next; the carrier is
 * used only under mu, position after position. */
struct carry_series {
    long j, count, next;         /* the series, its points, the next position to carry */
    elk_sweep_carrier *c;
    planned **slot;              /* by position: planned, not yet carried */
    pthread_mutex_t mu;
};

/* Point idx's policies into pl->rec, from the memo when another sweep ran
 * it (elk reproduce). With keep (a carried series) pl also keeps the
 * problem and Elk-Full's schedule for the carrier, so a memo entry must hold
 * that schedule, and the problem is built again from cached plan sets. */
static void plan_one(runner *R, long idx, planned *pl, int keep)
{
    const elk_sweep *s = R->s;
    point_rec *rec = &pl->rec;
    elk_point p;
    elk_model m;
    elk_error_clear(&pl->err);
    pl->st = elk_sweep_point(s, idx, &p, NULL, &pl->err);
    if (pl->st == ELK_OK) pl->st = elk_point_resolve(&p, &pl->chip, &m, &pl->err);
    if (pl->st != ELK_OK) return;
    for (int k = 0; k < ELK_KNOB_COUNT; k++) knob_text(&p, &pl->chip, &m, (elk_knob)k, rec->knob[k], sizeof rec->knob[k]);
    for (int q = 0; q < ELK_POL_COUNT; q++)
        for (int i = 0; i < M_COUNT; i++) rec->m[q][i] = NAN;
    char key[2700];
    memo_key(s, &p, key, sizeof key);
    int hit = memo_get(R->o->memo, key, rec, keep ? &pl->own : NULL);
    if (hit) {
        pthread_mutex_lock(&R->mu);
        R->memo_hits++;
        pthread_mutex_unlock(&R->mu);
        if (!keep) return;
    }
    pl->st = elk_problem_init(&pl->pr, &p, R->cache, &pl->err);
    if (pl->st == ELK_OK) {
        pl->have_pr = 1;
        pl->chip = pl->pr.chip;
        if (!hit)
            pl->st = run_policies(&pl->pr, &R->sched, s->policy_mask | (1u << ELK_POL_IDEAL), rec,
                                  keep ? &pl->own : NULL, &pl->err);
        if (!keep) {
            elk_problem_free(&pl->pr);
            pl->have_pr = 0;
        }
    } else if (pl->st == ELK_ENOPLAN && !hit) {
        /* no operator plan fits at all: every policy is no-plan */
        snprintf(rec->note, sizeof rec->note, "%.*s", (int)sizeof rec->note - 1, pl->err.msg);
        for (int q = 0; q < ELK_POL_COUNT; q++) rec->status[q] = 1;
        pl->st = ELK_OK;
    }
    if (!hit && pl->st == ELK_OK) memo_put(R->o->memo, key, rec, keep ? &pl->own : NULL);
}

static elk_status compute_point(runner *R, long idx, point_rec *rec, elk_error *err)
{
    planned pl;
    memset(&pl, 0, sizeof pl);
    plan_one(R, idx, &pl, 0);
    *rec = pl.rec;
    if (pl.st != ELK_OK && err) *err = pl.err;
    return pl.st;
}

static void planned_free(planned *pl)
{
    if (!pl) return;
    if (pl->have_pr) elk_problem_free(&pl->pr);
    elk_schedule_free(&pl->own);
    free(pl);
}

/* Carry position pos of series x (with x->mu held): Elk-Full's lower
 * neighbours' schedules re-timed there (elk_sweep_carrier_point); when one
 * is faster it is the Elk-Full row, and pointwise_ms keeps the point's own.
 * Takes pl's problem over. */
static elk_status carry_one(runner *R, struct carry_series *x, long pos, planned *pl, elk_error *err)
{
    if (pl->st != ELK_OK) {
        *err = pl->err;
        return pl->st;
    }
    if (!x->c) return elk_fail(err, ELK_ENOMEM, "out of memory");
    elk_schedule best;
    long from = -1;
    elk_status st = elk_sweep_carrier_point(x->c, pos, pl->have_pr ? &pl->pr : NULL, pl->own.ops ? &pl->own : NULL,
                                            &R->sched, &best, &from, err);
    pl->have_pr = 0; /* taken over */
    if (st != ELK_OK) return st;
    point_rec *rec = &pl->rec;
    double *mf = rec->m[ELK_POL_FULL];
    if (!isnan(best.latency)) {
        double ideal = rec->m[ELK_POL_IDEAL][M_LATENCY_CYCLES];
        double keep[M_COUNT];
        memcpy(keep, mf, sizeof keep);
        fill_policy(&pl->chip, &best, ELK_POL_FULL, isnan(ideal) ? NAN : 100.0 * ideal / best.latency, mf);
        for (int i = M_OPS; i <= M_PEAK_VEC; i++) mf[i] = keep[i]; /* the point's own graph and chip */
        mf[M_CARRIED_FROM] = (double)from;
        rec->status[ELK_POL_FULL] = 0;
    }
    mf[M_POINTWISE] = pl->own.ops ? pl->own.latency_ms : NAN;
    elk_schedule_free(&best);
    return ELK_OK;
}

/* A finished point's bookkeeping (with R->mu held): its row, or the run's
 * first error. */
static void finish_point(runner *R, long k, elk_status st, const point_rec *rec, const elk_error *e)
{
    assert(k - R->written < R->win && !R->done[k % R->win]);
    if (st == ELK_OK) {
        R->recs[k % R->win] = *rec;
        R->done[k % R->win] = 1;
        R->ndone++;
        int bad = 0;
        for (int q = 0; q < ELK_POL_COUNT; q++) bad |= rec->status[q] && (R->s->policy_mask & (1u << q));
        if (bad && R->infeasible++ == 0) {
            char d[160];
            elk_sweep_describe_point(R->s, point_of(R, k), d, sizeof d);
            snprintf(R->first_infeasible, sizeof R->first_infeasible, "point %ld%s%s%s: %.120s", point_of(R, k),
                     d[0] ? " (" : "", d, d[0] ? ")" : "", rec->note);
        }
    } else if (st != ELK_ECANCEL && R->st == ELK_OK) {
        char d[160];
        elk_sweep_describe_point(R->s, point_of(R, k), d, sizeof d);
        R->st = st;
        elk_fail(&R->err, st, "%s: point %ld%s%s%s: %s", R->s->path, point_of(R, k), d[0] ? " (" : "", d,
                 d[0] ? ")" : "", e->msg);
        R->stop = 1;
    }
    pthread_cond_broadcast(&R->cv);
}

/* Carry series x's positions that are planned, in order (with x->mu
 * held), writing each row. */
static void carry_ready(runner *R, struct carry_series *x)
{
    while (x->next < x->count && x->slot[x->next]) {
        long pos = x->next++;
        planned *pl = x->slot[pos];
        x->slot[pos] = NULL;
        elk_error e;
        elk_error_clear(&e);
        elk_status st = atomic_load(&R->stop) ? ELK_ECANCEL : carry_one(R, x, pos, pl, &e);
        long idx = R->ss.pts[R->ss.first[x->j] + pos];
        pthread_mutex_lock(&R->mu);
        finish_point(R, local_of(R, idx), st, &pl->rec, &e);
        pthread_mutex_unlock(&R->mu);
        planned_free(pl);
    }
}

/* A carried sweep's worker: plans the next task's point, then carries its
 * series as far as its planned positions reach. Lock order: a series' mu,
 * then R->mu. */
static void *carry_worker(void *arg)
{
    runner *R = arg;
    pthread_mutex_lock(&R->mu);
    while (!R->stop && R->next < R->n) {
        long t = R->next++;
        pthread_mutex_unlock(&R->mu);
        struct carry_series *x = &R->cs[R->tasks[t][0]];
        long pos = R->tasks[t][1];
        planned *pl = calloc(1, sizeof *pl);
        if (pl) plan_one(R, R->ss.pts[R->ss.first[x->j] + pos], pl, 1);
        pthread_mutex_lock(&x->mu);
        if (pl) {
            x->slot[pos] = pl;
            carry_ready(R, x);
        }
        pthread_mutex_unlock(&x->mu);
        pthread_mutex_lock(&R->mu);
        if (!pl && R->st == ELK_OK) {
            R->st = elk_fail(&R->err, ELK_ENOMEM, "out of memory");
            R->stop = 1;
        }
    }
    R->running--;
    pthread_cond_broadcast(&R->cv);
    pthread_mutex_unlock(&R->mu);
    return NULL;
}

static void *worker(void *arg)
{
    runner *R = arg;
    pthread_mutex_lock(&R->mu);
    while (!R->stop && R->next < R->n) {
        if (R->next - R->written >= R->win) {
            /* the oldest unwritten point holds the ring: wait for the writer */
            pthread_cond_wait(&R->cv, &R->mu);
            continue;
        }
        long k = R->next++;
        pthread_mutex_unlock(&R->mu);
        point_rec rec;
        elk_error e;
        elk_error_clear(&e);
        elk_status st = compute_point(R, point_of(R, k), &rec, &e);
        pthread_mutex_lock(&R->mu);
        finish_point(R, k, st, &rec, &e);
    }
    R->running--;
    pthread_cond_broadcast(&R->cv);
    pthread_mutex_unlock(&R->mu);
    return NULL;
}

static int write_point(const elk_sweep *s, long idx, const point_rec *rec, FILE *out)
{
    int part = 0;
    elk_point p;
    if (elk_sweep_point(s, idx, &p, &part, NULL) != ELK_OK) return -1;
    for (int pol = 0; pol < ELK_POL_COUNT; pol++) {
        if (!(s->policy_mask & (1u << pol))) continue;
        char line[4096];
        size_t l = 0;
        line[0] = '\0';
        for (int i = 0; i < s->ncols; i++) {
            const elk_sweep_col *c = &s->cols[i];
            char v[64];
            switch (c->kind) {
            case ELK_COL_POINT: snprintf(v, sizeof v, "%ld", idx); elk_csv_cat(line, sizeof line, &l, i == 0, v); break;
            case ELK_COL_PART: elk_csv_cat(line, sizeof line, &l, i == 0, s->part[part].name); break;
            case ELK_COL_KNOB: elk_csv_cat(line, sizeof line, &l, i == 0, rec->knob[c->id]); break;
            case ELK_COL_POLICY: elk_csv_cat(line, sizeof line, &l, i == 0, elk_policy_names[pol]); break;
            case ELK_COL_STATUS: elk_csv_cat(line, sizeof line, &l, i == 0, rec->status[pol] ? "no-plan" : "ok"); break;
            case ELK_COL_METRIC: elk_csv_cat_num(line, sizeof line, &l, i == 0, rec->m[pol][c->id]); break;
            }
        }
        if (fprintf(out, "%s\n", line) < 0) return -1;
    }
    return 0;
}

/* Write the finished prefix (with R->mu held), free its slots and wake
 * the workers waiting for room. */
static void write_ready(runner *R, FILE *out, int *io_bad)
{
    long was = R->written;
    while (R->written < R->n && R->done[R->written % R->win]) {
        long k = R->written;
        if (!*io_bad && write_point(R->s, point_of(R, k), &R->recs[k % R->win], out)) *io_bad = 1;
        R->done[k % R->win] = 0;
        R->written++;
    }
    if (R->written != was) pthread_cond_broadcast(&R->cv);
}

/* A carried shard's series, points and tasks (0, or -1 out of memory;
 * carry_teardown frees what was made either way). */
static int carry_setup(runner *R, const elk_sweep *s, const elk_sweep_opts *o)
{
    long np = s->npoints > 0 ? s->npoints : 1, ns = R->ss.nseries > 0 ? R->ss.nseries : 1;
    R->cs = calloc((size_t)ns, sizeof *R->cs);
    R->loc = malloc((size_t)np * sizeof *R->loc);
    R->tasks = malloc((size_t)np * sizeof *R->tasks);
    char *mine = calloc((size_t)np, 1);
    if (!R->cs || !R->loc || !R->tasks || !mine) {
        free(mine);
        return -1;
    }
    long most = 0;
    for (long j = 0; j < R->ss.nseries; j++) {
        if (j % o->nshards != o->shard) continue;
        struct carry_series *x = &R->cs[R->nser++];
        x->j = j;
        x->count = R->ss.first[j + 1] - R->ss.first[j];
        pthread_mutex_init(&x->mu, NULL);
        x->c = elk_sweep_carrier_alloc(&R->ss, j); /* NULL: each point then fails, out of memory */
        x->slot = calloc((size_t)(x->count > 0 ? x->count : 1), sizeof *x->slot);
        if (!x->slot) {
            free(mine);
            return -1;
        }
        if (x->count > most) most = x->count;
        for (long q = R->ss.first[j]; q < R->ss.first[j + 1]; q++) mine[R->ss.pts[q]] = 1;
    }
    R->n = 0;
    for (long i = 0; i < s->npoints; i++)
        if (mine[i]) R->loc[R->n++] = i;
    free(mine);
    /* position by position, the series interleaved: every series moves
     * forward together, so its carrier rarely waits for a point */
    long t = 0;
    for (long q = 0; q < most; q++)
        for (long k = 0; k < R->nser; k++)
            if (q < R->cs[k].count) R->tasks[t][0] = k, R->tasks[t++][1] = q;
    return 0;
}

static void carry_teardown(runner *R)
{
    for (long k = 0; R->cs && k < R->nser; k++) {
        struct carry_series *x = &R->cs[k];
        for (long q = 0; x->slot && q < x->count; q++) planned_free(x->slot[q]);
        free(x->slot);
        elk_sweep_carrier_free(x->c);
        pthread_mutex_destroy(&x->mu);
    }
    free(R->cs);
    free(R->loc);
    free(R->tasks);
    R->cs = NULL;
    R->loc = NULL;
    R->tasks = NULL;
}

void elk_sweep_opts_default(elk_sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = 1;
    o->shard = 0;
    o->nshards = 1;
    elk_sched_opts_default(&o->sched);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

elk_status elk_sweep_run(const elk_sweep *s, const elk_sweep_opts *o, FILE *out, elk_sweep_stats *st,
                         elk_error *err)
{
    elk_sweep_stats dummy;
    if (!st) st = &dummy;
    memset(st, 0, sizeof *st);
    if (o->nshards < 1 || o->shard < 0 || o->shard >= o->nshards)
        return elk_fail(err, ELK_EINVAL, "shard %d/%d: expected 0 <= i < N", o->shard, o->nshards);
    double t0 = now_s();
    runner R;
    memset(&R, 0, sizeof R);
    R.s = s;
    R.o = o;
    R.sched = o->sched;
    R.sched.cancel = &R.stop;
    R.cache = o->cache ? o->cache : elk_plan_cache_alloc();
    long n = 0;
    int jobs = o->jobs < 1 ? 1 : o->jobs;
    if (s->carried) {
        elk_status bs = elk_sweep_series_build(s, &R.ss, err);
        if (bs != ELK_OK) {
            if (!o->cache) elk_plan_cache_free(R.cache);
            return bs;
        }
        if (carry_setup(&R, s, o) != 0) {
            carry_teardown(&R);
            elk_sweep_series_free(&R.ss);
            if (!o->cache) elk_plan_cache_free(R.cache);
            return elk_fail(err, ELK_ENOMEM, "out of memory for %ld points", s->npoints);
        }
        n = R.n;
        if (jobs > n) jobs = n ? (int)n : 1;
    } else {
        for (long i = o->shard; i < s->npoints; i += o->nshards) n++;
        if (jobs > n) jobs = n ? (int)n : 1;
    }
    R.n = n;
    if (jobs > 256) jobs = 256;
    /* room for every worker to run well ahead of a slow point; a carried
     * sweep holds every row, since a series' points may lie far apart */
    R.win = 32L * jobs < 64 ? 64 : 32L * jobs;
    if (s->carried || R.win > n) R.win = n ? n : 1;
    R.recs = malloc(sizeof *R.recs * (size_t)R.win);
    R.done = calloc((size_t)R.win, 1);
    if (!R.cache || !R.recs || !R.done) {
        free(R.recs);
        free(R.done);
        carry_teardown(&R);
        elk_sweep_series_free(&R.ss);
        if (!o->cache) elk_plan_cache_free(R.cache);
        return elk_fail(err, ELK_ENOMEM, "out of memory for %ld points", n);
    }
    pthread_mutex_init(&R.mu, NULL);
    pthread_cond_init(&R.cv, NULL);

    char head[8192];
    elk_sweep_csv_head(s, o->shard, o->nshards, head, sizeof head);
    int io_bad = fputs(head, out) < 0;

    pthread_t th[256];
    int started = 0;
    pthread_mutex_lock(&R.mu);
    for (int j = 0; j < jobs; j++) {
        if (elk_thread_start(&th[j], s->carried ? carry_worker : worker, &R) != 0) break;
        started++;
        R.running++;
    }
    double last_prog = 0;
    while (R.running > 0) {
        write_ready(&R, out, &io_bad);
        if (o->cancel && atomic_load(o->cancel)) R.stop = 1;
        if (io_bad && !R.stop) {
            R.stop = 1;
            if (R.st == ELK_OK) {
                R.st = ELK_EIO;
                elk_fail(&R.err, ELK_EIO, "cannot write the CSV: %s", strerror(errno));
            }
        }
        if (R.stop) pthread_cond_broadcast(&R.cv); /* workers waiting for room */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&R.cv, &R.mu, &ts);
        double t = now_s();
        if (o->progress && t - last_prog >= 0.1) {
            long d = R.ndone;
            pthread_mutex_unlock(&R.mu);
            o->progress(o->ctx, d, n, t - t0);
            pthread_mutex_lock(&R.mu);
            last_prog = t;
        }
    }
    pthread_mutex_unlock(&R.mu);
    for (int j = 0; j < started; j++) pthread_join(th[j], NULL);
    if (started == 0 && n > 0 && R.st == ELK_OK) {
        R.st = ELK_ENOMEM;
        elk_fail(&R.err, ELK_ENOMEM, "cannot start worker threads");
    }
    /* every finished point, gaps and all (after a cancel): only points
     * below next were taken, all within the ring */
    for (long k = R.written; k < (s->carried ? R.n : R.next); k++)
        if (R.done[k % R.win] && !io_bad && write_point(s, point_of(&R, k), &R.recs[k % R.win], out)) io_bad = 1;
    if (fflush(out) != 0) io_bad = 1;
    st->points = n;
    st->done = R.ndone;
    st->infeasible = R.infeasible;
    st->memo_hits = R.memo_hits;
    snprintf(st->first_infeasible, sizeof st->first_infeasible, "%s", R.first_infeasible);
    st->seconds = now_s() - t0;
    long entries;
    elk_plan_cache_stats(R.cache, &st->cache_hits, &st->cache_misses, &entries);
    if (o->progress) o->progress(o->ctx, R.ndone, n, st->seconds);
    elk_status ret = R.st;
    if (ret == ELK_OK && io_bad) ret = elk_fail(&R.err, ELK_EIO, "cannot write the CSV: %s", strerror(errno));
    if (ret == ELK_OK && R.ndone < n) ret = elk_fail(&R.err, ELK_ECANCEL, "interrupted");
    if (ret != ELK_OK && err) *err = R.err;
    pthread_mutex_destroy(&R.mu);
    pthread_cond_destroy(&R.cv);
    free(R.recs);
    free(R.done);
    carry_teardown(&R);
    elk_sweep_series_free(&R.ss);
    if (!o->cache) elk_plan_cache_free(R.cache);
    return ret;
}
