/* Chrome trace-event JSON of a simulated schedule (opens in Perfetto and
 * chrome://tracing). Tracks (threads of one process): "execution" (one
 * event per operator, with its compute and sync phases nested inside),
 * "NoC" (data distribution, shifts, reduce-scatters, re-layouts) and one
 * track per HBM controller (its slice of every preload); plus counters for
 * SRAM occupancy per core and the HBM read rate. Every phase the simulator
 * logged (elk_sim_result.phases) is exactly one event of category "phase".
 * Times are microseconds from the start of the step. */
#ifndef ELK_TRACE_H
#define ELK_TRACE_H

#include "elk_chip.h"
#include "elk_graph.h"
#include "elk_sim.h"
#include "elk_status.h"

/* Write the trace of r (simulated with opts.record = 1) to path, through a
 * temporary file and rename. g names the operators (may be NULL); label
 * names the process (e.g. "Elk-Full on ipu-pod4"). */
elk_status elk_trace_write(const char *path, const elk_sim_result *r, const elk_graph *g, const elk_chip *c,
                           const char *label, elk_error *err);

#endif
