/* Private to the sweep module (core/elk_sweep*.c): what its three files
 * share. elk_sweep.c loads and checks a sweep file, elk_sweep_run.c expands
 * points and runs them, elk_sweep_csv.c writes and reads the CSV's comment
 * lines and merges shards. Nothing outside core/elk_sweep*.c includes this. */
#ifndef ELK_SWEEP_INT_H
#define ELK_SWEEP_INT_H

#include <stddef.h>

#include "elk_sweep.h"

/* Metric indices; the first ten are always written (in this order). */
enum {
    M_LATENCY, M_PCT_IDEAL, M_EXEC, M_OVERLAP, M_PRELOAD, M_NOC, M_DIST, M_HBM_UTIL, M_NOC_UTIL, M_TFLOPS,
    M_NOC_PRE_UTIL, M_NOC_EXE_UTIL, M_LATENCY_CYCLES, M_PEAK_RESIDENT, M_STATIC_EXEC, M_STATIC_VARIANT,
    M_ORDERS_TRIED, M_AVG_EDIT, M_OPS, M_GFLOP, M_HBM_GB, M_WEIGHT_GB, M_KV_GB, M_INTENSITY, M_PEAK_MM,
    M_PEAK_VEC, M_NOC_DEMAND, M_ADOPTED, M_COUNT
};

/* A point's knobs as canonical text: the fingerprint of a sweep (full=0)
 * and the key of the memo (full=1). */
void elk_sweep_point_key(const elk_point *p, int full, char *buf, size_t n);
/* "knob=value, ..." of point idx's axis values, for messages ("" if idx is
 * out of range). */
void elk_sweep_describe_point(const elk_sweep *s, long idx, char *buf, size_t n);

#endif
