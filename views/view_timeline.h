/* View 4, Timeline: a Gantt of the focused policy's schedule. Layer mode:
 * one row per operator of one layer, its HBM preload (light) and its
 * execution (solid), so overlap and stalls show. Step mode: the whole step
 * as lanes (execute, HBM preload, cores idle) shaded by occupancy, layer
 * boundaries marked. +/- zoom, < > pan, 0 resets, [ ] pick the layer,
 * t toggles layer/step, j/k scroll rows. */
#ifndef VIEW_TIMELINE_H
#define VIEW_TIMELINE_H

#include "tui.h"

elk_view *view_timeline_new(void);

#endif
