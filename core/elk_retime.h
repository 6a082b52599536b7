/* Re-timing: one schedule's decisions timed on another chip.
 *
 * A compiler given more of a resource can still run what it compiled for
 * less: the same preload order, each op's plan and preload layout, the
 * preload position each execution reached, the run variant. elk_retime
 * times those decisions, on the graph they were made for, on chip c. It is
 * what `elk check` holds a pair's smaller point's schedule to at the larger
 * point, and what a carried series runs where its lower neighbour's
 * schedule beats the point's own (docs/VALIDATION.md, Carried schedules).
 *
 * Layer: schedule (it builds one-plan menus, elk_menu_build, and runs the
 * replay path of elk_schedule_run). Thread safe: every call owns its work. */
#ifndef ELK_RETIME_H
#define ELK_RETIME_H

#include "elk_sched.h"

/* The replay machinery that times a schedule of policy p: Elk-Dyn's for
 * Elk-Dyn's own decisions, Elk-Full's for every other's (Basic's and
 * Static's decisions are of the same kind: a plan, a preload layout and a
 * window per op, in program order). */
elk_policy elk_retime_policy(const elk_schedule *s, elk_policy p);

/* A schedule's timeline as a replay holds it (elk_sched_opts.replay_pace
 * and replay_len): each op's preload duration alone, then each op's
 * execution length; 2 x nops doubles, malloc'd (NULL: out of memory). */
double *elk_retime_timeline(const elk_schedule *s);

/* Schedule s of problem lo timed on chip c, on lo's graph. Each (shape,
 * plan) pair s uses becomes a shape of its own whose menu holds that plan
 * alone, timed at c, so no op's plan or layout is re-chosen (a menu over
 * all of a shape's plans could drop one that another dominates at c). It is
 * timed twice, as fast as c lets it and holding a timeline (tl: each
 * preload no faster than its pace there, each execution no shorter; NULL:
 * s's own), and the faster counts: either is a way to run the decisions on
 * c. At lo's own chip the two are one and it is timed once.
 *
 * pol is Elk-Dyn or Elk-Full (elk_retime_policy). *lat gets the cycles,
 * NAN when the decisions fit c in neither timing. keep, when not NULL, gets
 * the first timing's timeline (NULL if it fits nothing; the caller frees
 * it). out, when not NULL, gets the faster timing's schedule (ops on lo's
 * graph; plan indices are 0, each op's menu holding its one plan; free with
 * elk_schedule_free), zeroed with latency NAN when nothing fits. */
elk_status elk_retime(const elk_problem *lo, const elk_schedule *s, elk_policy pol, const elk_chip *c,
                      const elk_sched_opts *so, const double *tl, double *lat, double **keep, elk_schedule *out,
                      elk_error *err);

/* Elk-Full's schedule s of problem lo re-timed at chip c as Elk-Full may
 * run it there: by the replay of the policy whose decisions they are
 * (elk_retime_policy); when Elk-Full kept Elk-Dyn's schedule, also by
 * Elk-Full's own replay, whose rules differ from Elk-Dyn's in the paper
 * profile (int55's truncated NoC rate, noccap's preload share); and, where
 * c has every resource lo's chip has (elk_chip_dominates), held to lo's own
 * timeline, which c runs exactly: s itself, at s's latency (out a copy of
 * s, its plan indices lo's). The faster counts, so a series that carries
 * schedules this way never gets slower along a resource axis, whatever
 * re-timing itself loses in the flow model (docs/VALIDATION.md). Arguments
 * as elk_retime's, without a held timeline. */
elk_status elk_retime_full(const elk_problem *lo, const elk_schedule *s, const elk_chip *c, const elk_sched_opts *so,
                           double *lat, elk_schedule *out, elk_error *err);

#endif
