/* The Elk artifact's own per-operator plan tables (paper profile switch
 * "plantables", docs/ARTIFACT.md), as an elk_plan_set.
 *
 * With the switch on, elk_plan_enumerate hands every operator to this unit,
 * which builds the plan set the artifact's TensorExpression builds: its
 * spatial enumeration and thresholds, its temporal (rotation) enumeration
 * with the per-dimension list sort bug of 3.3, its hot and cold bytes, its
 * 2-D (hot, execution time) Pareto front, and its cold->hot table (same
 * spatial plan, divisible temporal splits, warm-up). The kept plans are the
 * front; each plan's elk_cold_opt options are the table entries it wins.
 * Volumes are mapped onto elk_plan so that elk_plan_xcycles and
 * elk_menu_build price them under the other paper switches. */
#ifndef ELK_PLAN_ART_H
#define ELK_PLAN_ART_H

#include <stdatomic.h>

#include "elk_plan.h"

/* Same contract as elk_plan_enumerate, under o's all_cb, exhaustive and
 * cancel (o may be NULL). all_cb sees every (spatial, temporal) plan that
 * passes the artifact's validity checks and fits sram_bytes. Unless
 * all_cb or exhaustive is set, subtrees of the temporal search that no plan
 * of the front can come from are skipped on a bound (set->enumerated then
 * counts the plans visited, set->bounded the spatial plans skipped whole),
 * and at 65,536 cores or more the walk runs on threads (then those two
 * counts depend on the number of threads): the set is the same either way
 * (tests/test_plan.c, tests/test_plan_art.c), and exhaustive gives the
 * artifact's plan counts. o->coarse steps the spatial splits
 * geometrically as elk_plan.c's coarse space does (a subset: no better). */
elk_status elk_plan_art_enumerate(const elk_chip *c, const elk_op *op, double sram_bytes, elk_plan_set *set,
                                  const elk_plan_opts *o, elk_error *err);

/* launch.py's lower end of Static's execution-region sweep: the largest
 * over operators of the smallest execution space that has a preload layout
 * at the operator's least preload size, rounded up to a whole KiB (its
 * min_exec_kb). menus[0..n) are the problem's menus. */
double elk_plan_art_static_floor(const elk_menu *menus, int n);

/* The artifact parser's cut of an operator that outgrows the chip
 * (docs/ARTIFACT.md): whole if it fits, else halved along its
 * largest dim until it fits, i.e. the fewest fitting pieces along the
 * largest dim (the first such dim).
 * Returns an index into opt[0..n) or -1 if none cuts that dim; the
 * elk_split_pick_fn contract otherwise. */
int elk_plan_art_pick_split(const elk_op *op, const elk_split *opt, int n);

/* The temporal partitions, i.e. t[d][v] matrices, the artifact generates for
 * one spatial plan p of op (docs/ARTIFACT.md), in its enumeration order,
 * with (sortbug 1) or without (0) the per-dim list sort. Writes at most max
 * matrices of ELK_MAX_DIMS x ELK_MAX_TENSORS ints into out (row d, column v)
 * and returns how many there are (possibly more than max), or -1 if p is not
 * a valid spatial plan for cores. For tests and `elk plans`. */
long elk_plan_art_temporal(const elk_op *op, int cores, const int *p, int sortbug, int *out, long max);

/* is_cold_hot_plan_compatible and get_warm_up_time for two temporal
 * matrices (ELK_MAX_DIMS x ELK_MAX_TENSORS, row d, column v) of op's
 * spatial plan p: 1 if the preload-state plan cold_tm can feed the
 * execute-state plan hot_tm (each entry a multiple, its preload bytes within
 * the other's execution bytes), with the warm-up's bytes through the port
 * and its syncs; 0 if not. For tests. */
int elk_plan_art_pair(const elk_op *op, const int *p, const int *cold_tm, const int *hot_tm, double *warm_bytes,
                      int *syncs);

/* The plan set chip c's cost profile asks for: the artifact's tables under
 * the paper profile's "plantables" (a coarse ask that finds none retried in
 * full), else ours (elk_plan_enumerate). */
elk_status elk_plan_art_set(const elk_chip *c, const elk_op *op, double sram_bytes, elk_plan_set *set,
                            const elk_plan_opts *o, elk_error *err);

#endif
