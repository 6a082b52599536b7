/* A sweep's series: the points that differ only along numeric resource
 * axes (more HBM, NoC, link bandwidth, SRAM or compute), laid out as the
 * grid of those axes' values in increasing order. elk_sweep_run carries
 * Elk-Full's schedules along each series (elk_sweep_carrier): a point
 * runs the faster of its own schedule and its lower neighbours' carried
 * schedules re-timed there (elk_retime_full), so the series never gets slower
 * as a resource grows, beyond what re-timing itself loses
 * (docs/SWEEPS.md, Carried schedules). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elk_retime.h"
#include "elk_sweep_int.h"

/* Axis a of block b carries: a numeric resource axis of a crossed block
 * (zipped axes step together, so none of them is a series' own axis). */
static int carries(const elk_sweep_block *b, int a)
{
    return !b->zip && b->axis[a].num && elk_knobs[b->axis[a].knob].resource;
}

int elk_sweep_carry_applies(const elk_sweep *s)
{
    if (!(s->policy_mask & (1u << ELK_POL_FULL))) return 0;
    long n = 0;
    int any = 0;
    for (int a = 0; a < s->top.naxes; a++) any |= carries(&s->top, a);
    for (int p = 0; p < s->nparts; p++) {
        for (int a = 0; a < s->part[p].block.naxes; a++) any |= carries(&s->part[p].block, a);
        n += s->top.count * s->part[p].block.count;
    }
    return any && n <= ELK_SWEEP_CARRY_MAX_POINTS;
}

/* One point's place: its series' root (the point with every carrying axis
 * at its smallest value), its position in the series' grid, and its index. */
typedef struct {
    long root, pos, idx;
} place;

static int cmp_place(const void *x, const void *y)
{
    const place *a = x, *b = y;
    if (a->root != b->root) return a->root < b->root ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Value ranks of a numeric axis (0 = smallest; ties keep file order), by
 * sorting (value, index) pairs (an axis may have 100,000 values). */
typedef struct {
    double v;
    int i;
} vi_pair;

static int cmp_vi(const void *x, const void *y)
{
    const vi_pair *a = x, *b = y;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static int *axis_ranks(const elk_sweep_axis *ax)
{
    int *r = malloc((size_t)ax->n * sizeof *r);
    vi_pair *by = malloc((size_t)ax->n * sizeof *by);
    if (!r || !by) {
        free(r);
        free(by);
        return NULL;
    }
    for (int i = 0; i < ax->n; i++) by[i] = (vi_pair){ax->num[i], i};
    qsort(by, (size_t)ax->n, sizeof *by, cmp_vi);
    for (int i = 0; i < ax->n; i++) r[by[i].i] = i;
    free(by);
    return r;
}

/* The carrying axes of part p (top block's first, then the part's): their
 * sizes and, per block and axis, the slot they take (-1: not carrying). */
static void part_axes(const elk_sweep *s, int p, elk_sweep_series_part *sp)
{
    const elk_sweep_block *b[2] = {&s->top, &s->part[p].block};
    sp->naxes = 0;
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < b[k]->naxes; a++) {
            sp->slot[k][a] = -1;
            if (!carries(b[k], a)) continue;
            sp->slot[k][a] = sp->naxes;
            sp->knob[sp->naxes] = b[k]->axis[a].knob;
            sp->size[sp->naxes++] = b[k]->axis[a].n;
        }
    long st = 1;
    for (int r = sp->naxes - 1; r >= 0; r--) {
        sp->stride[r] = st;
        st *= sp->size[r];
    }
    sp->count = st;
}

elk_status elk_sweep_series_build(const elk_sweep *s, elk_sweep_series *ss, elk_error *err)
{
    memset(ss, 0, sizeof *ss);
    long n = s->npoints;
    place *pl = malloc((size_t)(n > 0 ? n : 1) * sizeof *pl);
    int *ranks[2][ELK_SWEEP_MAX_PARTS][ELK_SWEEP_MAX_AXES];
    long low[2][ELK_SWEEP_MAX_PARTS][ELK_SWEEP_MAX_AXES]; /* each carrying axis's smallest value's index */
    memset(ranks, 0, sizeof ranks);
    elk_status st = pl ? ELK_OK : elk_fail(err, ELK_ENOMEM, "out of memory for %ld points", n);
    for (int p = 0; p < s->nparts && st == ELK_OK; p++) {
        part_axes(s, p, &ss->part[p]);
        const elk_sweep_block *b[2] = {&s->top, &s->part[p].block};
        for (int k = 0; k < 2 && st == ELK_OK; k++)
            for (int a = 0; a < b[k]->naxes && st == ELK_OK; a++)
                if (ss->part[p].slot[k][a] >= 0) {
                    if (!(ranks[k][p][a] = axis_ranks(&b[k]->axis[a]))) {
                        st = elk_fail(err, ELK_ENOMEM, "out of memory");
                        break;
                    }
                    for (int j = 0; j < b[k]->axis[a].n; j++)
                        if (ranks[k][p][a][j] == 0) low[k][p][a] = j;
                }
    }
    for (long idx = 0; idx < n && st == ELK_OK; idx++) {
        int p = 0;
        while (p + 1 < s->nparts && idx >= s->part[p + 1].first) p++;
        const elk_sweep_part *pt = &s->part[p];
        const elk_sweep_series_part *sp = &ss->part[p];
        long local = idx - pt->first, i[2] = {local / pt->block.count, local % pt->block.count};
        const elk_sweep_block *b[2] = {&s->top, &pt->block};
        long root = local, pos = 0;
        for (int k = 0; k < 2; k++) {
            /* the block index's digits, last axis fastest (apply_block) */
            long rest = i[k], unit = 1;
            long block_unit = k == 0 ? pt->block.count : 1;
            for (int a = b[k]->naxes - 1; a >= 0; a--) {
                long vi = rest % b[k]->axis[a].n;
                rest /= b[k]->axis[a].n;
                if (sp->slot[k][a] >= 0) {
                    int r = ranks[k][p][a][vi];
                    pos += r * sp->stride[sp->slot[k][a]];
                    /* the root takes this axis's smallest value */
                    root += (low[k][p][a] - vi) * unit * block_unit;
                }
                unit *= b[k]->axis[a].n;
            }
        }
        pl[idx] = (place){pt->first + root, pos, idx};
    }
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < ELK_SWEEP_MAX_PARTS; p++)
            for (int a = 0; a < ELK_SWEEP_MAX_AXES; a++) free(ranks[k][p][a]);
    if (st != ELK_OK) {
        free(pl);
        return st;
    }
    qsort(pl, (size_t)n, sizeof *pl, cmp_place);
    long nser = 0;
    for (long j = 0; j < n; j++) nser += j == 0 || pl[j].root != pl[j - 1].root;
    ss->pts = malloc((size_t)(n > 0 ? n : 1) * sizeof *ss->pts);
    ss->first = malloc((size_t)(nser + 1) * sizeof *ss->first);
    ss->part_of = malloc((size_t)(nser > 0 ? nser : 1) * sizeof *ss->part_of);
    if (!ss->pts || !ss->first || !ss->part_of) {
        free(pl);
        elk_sweep_series_free(ss);
        return elk_fail(err, ELK_ENOMEM, "out of memory for %ld points", n);
    }
    long q = 0;
    for (long j = 0; j < n; j++) {
        if (j == 0 || pl[j].root != pl[j - 1].root) {
            int p = 0;
            while (p + 1 < s->nparts && pl[j].idx >= s->part[p + 1].first) p++;
            ss->part_of[q] = p;
            ss->first[q++] = j;
        }
        ss->pts[j] = pl[j].idx;
    }
    ss->first[nser] = n;
    ss->nseries = nser;
    free(pl);
    return ELK_OK;
}

void elk_sweep_series_free(elk_sweep_series *ss)
{
    free(ss->pts);
    free(ss->first);
    free(ss->part_of);
    memset(ss, 0, sizeof *ss);
}

long elk_sweep_series_lower(const elk_sweep_series *ss, long j, long pos, int axis)
{
    const elk_sweep_series_part *sp = &ss->part[ss->part_of[j]];
    if ((pos / sp->stride[axis]) % sp->size[axis] == 0) return -1;
    return pos - sp->stride[axis];
}

/* ------------------------------------------------------------------ */
/* Carrying                                                             */

/* An origin: a point of the series whose own Elk-Full schedule some live
 * entry carries. Owns its problem and schedule; freed with them when the
 * last entry that carries it is released (refs 0). */
typedef struct {
    elk_problem pr;
    elk_schedule s;
    int refs;
} origin;

struct elk_sweep_carrier {
    const elk_sweep_series *ss;
    long series, count;
    origin **org;  /* by series position: NULL, or the origin while refs > 0 */
    long *from;    /* by position: the origin of its carried schedule, -1 none, -2 released */
};

elk_sweep_carrier *elk_sweep_carrier_alloc(const elk_sweep_series *ss, long j)
{
    elk_sweep_carrier *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->ss = ss;
    c->series = j;
    c->count = ss->first[j + 1] - ss->first[j];
    c->org = calloc((size_t)c->count, sizeof *c->org);
    c->from = malloc((size_t)c->count * sizeof *c->from);
    if (!c->org || !c->from) {
        elk_sweep_carrier_free(c);
        return NULL;
    }
    for (long q = 0; q < c->count; q++) c->from[q] = -1;
    return c;
}

static void unref(elk_sweep_carrier *c, long o)
{
    if (o < 0 || --c->org[o]->refs > 0) return;
    elk_schedule_free(&c->org[o]->s);
    elk_problem_free(&c->org[o]->pr);
    free(c->org[o]);
    c->org[o] = NULL;
}

void elk_sweep_carrier_free(elk_sweep_carrier *c)
{
    if (!c) return;
    for (long q = 0; c->org && c->from && q < c->count; q++)
        if (c->from[q] >= 0) unref(c, c->from[q]);
    free(c->org);
    free(c->from);
    free(c);
}

/* The fastest of pos's lower neighbours' carried schedules re-timed at pr's
 * chip, if one beats lat: into *best, its origin's position into *won. */
static elk_status best_carried(elk_sweep_carrier *c, long pos, const elk_problem *pr, const elk_sched_opts *so,
                               double lat, elk_schedule *best, long *won, elk_error *err)
{
    const elk_sweep_series *ss = c->ss;
    const elk_sweep_series_part *sp = &ss->part[ss->part_of[c->series]];
    long tried[2 * ELK_SWEEP_MAX_AXES];
    int nt = 0;
    for (int a = 0; a < sp->naxes; a++) {
        long lo = elk_sweep_series_lower(ss, c->series, pos, a);
        if (lo < 0 || c->from[lo] < 0) continue;
        long o = c->from[lo];
        int seen = 0; /* two neighbours carrying one origin's schedule: timed once */
        for (int k = 0; k < nt; k++) seen |= tried[k] == o;
        if (seen) continue;
        tried[nt++] = o;
        const origin *og = c->org[o];
        elk_schedule r;
        double t;
        ELK_TRY(elk_retime_full(&og->pr, &og->s, &pr->chip, so, &t, &r, err));
        if (t < lat) {
            lat = t;
            *won = o;
            elk_schedule_free(best);
            *best = r;
        } else {
            elk_schedule_free(&r);
        }
    }
    return ELK_OK;
}

elk_status elk_sweep_carrier_point(elk_sweep_carrier *c, long pos, elk_problem *pr, const elk_schedule *own,
                                   const elk_sched_opts *so, elk_schedule *best, long *from, elk_error *err)
{
    const elk_sweep_series *ss = c->ss;
    const elk_sweep_series_part *sp = &ss->part[ss->part_of[c->series]];
    memset(best, 0, sizeof *best);
    best->latency = NAN;
    *from = -1;
    c->from[pos] = -1;
    if (pr) {
        long won = -1;
        elk_status st = best_carried(c, pos, pr, so, own ? own->latency : INFINITY, best, &won, err);
        if (st != ELK_OK) {
            elk_schedule_free(best);
            elk_problem_free(pr);
            return st;
        }
        /* the entry this point leaves its upper neighbours: the carried
         * schedule's origin, or its own schedule with its problem */
        if (won >= 0) {
            c->from[pos] = won;
            c->org[won]->refs++;
            *from = ss->pts[ss->first[c->series] + won];
            elk_problem_free(pr);
        } else if (own) {
            origin *og = malloc(sizeof *og);
            if (!og || elk_schedule_copy(&og->s, own) != ELK_OK) {
                free(og);
                elk_problem_free(pr);
                return elk_fail(err, ELK_ENOMEM, "out of memory");
            }
            og->pr = *pr;
            og->refs = 1;
            c->org[pos] = og;
            c->from[pos] = pos;
        } else {
            elk_problem_free(pr);
        }
        memset(pr, 0, sizeof *pr);
    }
    /* entries no upper neighbour can still ask for: every upper neighbour
     * of the position one slowest-axis stride below has now been done */
    long dead = sp->naxes ? pos - sp->stride[0] : pos;
    if (dead >= 0 && c->from[dead] >= 0) {
        unref(c, c->from[dead]);
        c->from[dead] = -2; /* released */
    }
    return ELK_OK;
}
