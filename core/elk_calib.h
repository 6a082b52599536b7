/* The Elk artifact's own numbers, which the `paper` cost profile is held to
 * (docs/ARTIFACT.md sections 2 and 3; docs/VALIDATION.md, Cost
 * profiles). They are facts about the unmodified artifact, measured once:
 * the Check suite tests/test_calib.c and `elk reproduce`'s "ref" section
 * read them from here, so the two cannot disagree.
 *
 * The artifact's units: HBM "4000" is 4000 MiB/ms = 4.194 TB/s, and its
 * GBPS_PER_CORE = 5.5 of preload NoC is in the same unit, 5.5 MiB/ms =
 * 5.767 GB/s per core (docs/ARTIFACT.md section 1); the int(5.5) of Basic, Static
 * and Elk-Dyn is the profile's int55 switch.
 */
#ifndef ELK_CALIB_H
#define ELK_CALIB_H

#include "elk_sched.h"

/* Latency per step the artifact printed, ms, by elk_policy. */
typedef struct {
    int cores, layers;
    double hbm_tbps;               /* our unit: TB/s (artifact MiB/ms x 1.048576e-3) */
    double ms[ELK_POL_COUNT];
} elk_calib_ref;

/* Ideal execution time (sum of each operator's fastest plan), ms. */
typedef struct {
    int cores, layers;
    double ms;
} elk_calib_exe;

extern const elk_calib_ref elk_calib_refs[];
extern const int elk_calib_nrefs;
extern const elk_calib_exe elk_calib_exes[];
extern const int elk_calib_nexes;

/* The link bandwidth (GB/s per core) every reference point is run at. */
#define ELK_CALIB_LINK_GBPS 5.767
/* How close the paper profile is held to the artifact's own latencies:
 * each policy within 5%, Ideal and ideal execution within 3%. */
#define ELK_CALIB_TOL 0.05
#define ELK_CALIB_TOL_IDEAL 0.03

/* A known, documented deviation: (point, policy) outside the tolerance,
 * with our measured value, so that a change either way is noticed. */
typedef struct {
    int ref;                       /* index into elk_calib_refs */
    elk_policy pol;
    double ours_ms;                /* measured when documented */
    const char *why;
} elk_calib_gap;
extern const elk_calib_gap elk_calib_gaps[];
extern const int elk_calib_ngaps;
/* The gap entry of (ref, pol), or NULL if that value must be in tolerance. */
const elk_calib_gap *elk_calib_gap_find(int ref, elk_policy pol);

/* Set p to reference point r (on the default chip and model, paper profile). */
void elk_calib_point(int r, elk_point *p);

/* Sum over operators of each one's fastest execute-state plan, ms: the
 * artifact's ideal_exe. */
double elk_calib_ideal_exe_ms(const elk_problem *pr);

#endif
