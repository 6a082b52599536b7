/* View 5, Sweep: one knob over a range around the current design point;
 * one line per policy, filled in live as the sweep worker finishes points.
 * k/K choose the knob, r types the values, m the metric (latency, % of
 * Ideal, TFLOPS, HBM utilisation). The sweep restarts when the design point
 * changes while the view is shown. */
#ifndef VIEW_SWEEP_H
#define VIEW_SWEEP_H

#include "tui.h"

elk_view *view_sweep_new(void);

#endif
