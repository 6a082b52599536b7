/* Comparing two design points: the pinned one (b) and the live one. What
 * differs between them, knob by knob, for the status line and undo
 * messages, and a latency delta ("-1.8 ms, -27%") for the views. */
#ifndef TUI_COMPARE_H
#define TUI_COMPARE_H

#include <stddef.h>

#include "elk_point.h"

/* The knobs that differ from a to b, as "HBM bandwidth 16 -> 8 TB/s, Batch
 * 32 -> 64" (at most n bytes); returns how many differ. */
int tui_point_diff(const elk_point *a, const elk_chip *ca, const elk_model *ma, const elk_point *b,
                   const elk_chip *cb, const elk_model *mb, char *buf, size_t n);
/* now - then in ms, and relative to then: "-1.8 ms, -27%" ("+0 ms" when equal). */
void tui_fmt_delta(double now_ms, double then_ms, char *buf, size_t n);

#endif
