/* Private to the sweep module (core/elk_sweep*.c): what its three files
 * share. elk_sweep.c loads and checks a sweep file, elk_sweep_run.c expands
 * points and runs them, elk_sweep_csv.c writes and reads the CSV's comment
 * lines and merges shards, elk_sweep_carry.c builds the series and carries
 * Elk-Full along them. Nothing outside core/elk_sweep*.c includes this but
 * the sweep module's own test (tests/test_sweep.c). */
#ifndef ELK_SWEEP_INT_H
#define ELK_SWEEP_INT_H

#include <stddef.h>

#include "elk_sweep.h"

/* Metric indices; the first ten are always written (in this order). */
enum {
    M_LATENCY, M_PCT_IDEAL, M_EXEC, M_OVERLAP, M_PRELOAD, M_NOC, M_DIST, M_HBM_UTIL, M_NOC_UTIL, M_TFLOPS,
    M_NOC_PRE_UTIL, M_NOC_EXE_UTIL, M_LATENCY_CYCLES, M_PEAK_RESIDENT, M_STATIC_EXEC, M_STATIC_VARIANT,
    M_ORDERS_TRIED, M_AVG_EDIT, M_OPS, M_GFLOP, M_HBM_GB, M_WEIGHT_GB, M_KV_GB, M_INTENSITY, M_PEAK_MM,
    M_PEAK_VEC, M_NOC_DEMAND, M_ADOPTED, M_POINTWISE, M_CARRIED_FROM, M_COUNT
};

/* A point's knobs as canonical text: the fingerprint of a sweep (full=0)
 * and the key of the memo (full=1). */
void elk_sweep_point_key(const elk_point *p, int full, char *buf, size_t n);
/* "knob=value, ..." of point idx's axis values, for messages ("" if idx is
 * out of range). */
void elk_sweep_describe_point(const elk_sweep *s, long idx, char *buf, size_t n);

/* ---- series and carried schedules (elk_sweep_carry.c) ---- */

/* The most points a carried sweep may have: the run keeps every row until
 * its series is done (about 2.3 KB a point). Larger sweeps run pointwise. */
#define ELK_SWEEP_CARRY_MAX_POINTS 100000L

/* 1 when s carries Elk-Full: Elk-Full among its policies, a numeric
 * resource axis in a crossed block, at most ELK_SWEEP_CARRY_MAX_POINTS. */
int elk_sweep_carry_applies(const elk_sweep *s);

/* A part's carrying axes: the top block's, then its own, each with its
 * value count and its stride in the series' grid (last axis fastest). */
typedef struct {
    int naxes;
    int slot[2][ELK_SWEEP_MAX_AXES]; /* block (0 top, 1 part), axis: carrying slot or -1 */
    elk_knob knob[2 * ELK_SWEEP_MAX_AXES];
    long size[2 * ELK_SWEEP_MAX_AXES], stride[2 * ELK_SWEEP_MAX_AXES];
    long count;                      /* points in one series of the part */
} elk_sweep_series_part;

/* Every point of a sweep in its series. Owns pts, first and part_of.
 * Invariants: series j's points are pts[first[j] .. first[j+1]), in grid
 * position order (each carrying axis's values in increasing order, the
 * part's last carrying axis fastest), and there are count of its part of
 * them; series are ordered by their first point (the one with every
 * carrying axis at its smallest value). */
typedef struct {
    long nseries;
    long *pts, *first;
    int *part_of;
    elk_sweep_series_part part[ELK_SWEEP_MAX_PARTS];
} elk_sweep_series;

elk_status elk_sweep_series_build(const elk_sweep *s, elk_sweep_series *ss, elk_error *err);
void elk_sweep_series_free(elk_sweep_series *ss);
/* Series j's position below pos along carrying axis a, or -1. */
long elk_sweep_series_lower(const elk_sweep_series *ss, long j, long pos, int axis);

/* Carrying Elk-Full along one series, its points given in position order
 * (0, 1, ...) by one thread. Owns the problems and schedules its points'
 * upper neighbours may still carry, and no more. */
typedef struct elk_sweep_carrier elk_sweep_carrier;
elk_sweep_carrier *elk_sweep_carrier_alloc(const elk_sweep_series *ss, long j);
void elk_sweep_carrier_free(elk_sweep_carrier *c);
/* Position pos of the series: pr its problem (NULL: none could be built;
 * else taken over: kept while an
 * upper neighbour may carry its schedule, else freed; zeroed either way),
 * own its Elk-Full schedule (NULL: none fits). *best gets the fastest of
 * its lower neighbours' carried schedules re-timed here when one beats own
 * (free with elk_schedule_free; latency NAN and *from -1 otherwise), *from
 * the point index that schedule was planned at. */
elk_status elk_sweep_carrier_point(elk_sweep_carrier *c, long pos, elk_problem *pr, const elk_schedule *own,
                                   const elk_sched_opts *so, elk_schedule *best, long *from, elk_error *err);

#endif
