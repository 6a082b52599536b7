/* Reports of one design point's results: the human table, tidy CSV (one row
 * per policy, units in the header, stable column order, deterministic
 * formatting) and JSON. `elk run`, the TUI's export and sweeps share them,
 * so the same point always gives the same bytes. */
#ifndef ELK_REPORT_H
#define ELK_REPORT_H

#include <stdio.h>

#include "elk_sched.h"

/* CSV columns describing the design point, then the policy's metrics. */
/* Tokens one step produces: batch for decode (one per sequence), batch x
 * seq for prefill and a training forward pass. tokens/s = this / step time. */
double elk_report_tokens_per_step(const elk_graph *g);

void elk_report_csv_header(FILE *fp);
void elk_report_csv_rows(FILE *fp, const elk_problem *pr, const elk_result *r);
void elk_report_table(FILE *fp, const elk_problem *pr, const elk_result *r);
/* JSON of the point and every policy (metrics plus per-operator schedule
 * when per_op is set). Returns non-zero on failure. */
int elk_report_json(FILE *fp, const elk_problem *pr, const elk_result *r, int per_op);
/* The planner's estimate beside the simulator's replay, one row per policy
 * (sim[p] valid where r->have[p]). */
struct elk_sim_result;
void elk_report_sim_table(FILE *fp, const elk_problem *pr, const elk_result *r, const struct elk_sim_result *sim);
void elk_report_sim_csv_header(FILE *fp);
void elk_report_sim_csv_rows(FILE *fp, const elk_problem *pr, const elk_result *r, const struct elk_sim_result *sim);

/* Per-operator table of one policy's schedule. */
void elk_report_ops(FILE *fp, const elk_problem *pr, const elk_schedule *s);

#endif
