/* View 1, Breakdown: per policy a stacked bar of per-token latency
 * (execute, overlapped, preload stall, interconnect stall, data
 * distribution), ms/token, % of Ideal, HBM and NoC utilisation, TFLOPS
 * (the paper's Fig. 18). Its CSV is exactly `elk run --format csv`. */
#ifndef VIEW_BREAKDOWN_H
#define VIEW_BREAKDOWN_H

#include "tui.h"

elk_view *view_breakdown_new(void);

#endif
