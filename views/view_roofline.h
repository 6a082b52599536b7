/* View 3, Roofline: the chip's roofs on log-log axes (compute = peak matmul
 * FLOP/s, HBM and NoC = bandwidth x operational intensity, vector peak
 * dimmed), every operator of the focused policy's schedule as a point
 * (FLOPs per HBM byte, FLOPs per execution second), and each policy's
 * achieved throughput for the whole step against Ideal. */
#ifndef VIEW_ROOFLINE_H
#define VIEW_ROOFLINE_H

#include "tui.h"

elk_view *view_roofline_new(void);

#endif
