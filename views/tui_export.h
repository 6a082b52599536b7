/* Export plumbing: a view's data to CSV and its figure through gnuplot.
 * Files go to the current directory as elk-<view>-YYYYMMDD-HHMMSS.<ext>,
 * written to a temporary file first and renamed, so a reader never sees a
 * half-written file. gnuplot gets the script on a pipe (inline datablocks);
 * its stdout and stderr go to the log file, never to the screen. */
#ifndef TUI_EXPORT_H
#define TUI_EXPORT_H

#include <stddef.h>

#include "tui.h"

/* Where gnuplot's output goes (the TUI's log file). */
void tui_export_set_log(const char *path);
/* A fresh file name for a view's export; 0 on success. */
int tui_export_name(const char *view, const char *ext, char *out, size_t n);
/* Write the view's CSV; on success path names the file. Returns 0 on
 * success, else msg says why. */
int tui_export_csv(elk_view *v, const tui_ctx *cx, char *path, size_t pn, char *msg, size_t mn);
/* gnuplot is in PATH. */
int tui_gnuplot_available(void);
/* Draw the view's figure; format "png" or "svg". */
int tui_export_plot(elk_view *v, const tui_ctx *cx, const char *format, char *path, size_t pn, char *msg, size_t mn);

/* Draw CSV text with a plots/ template (kind "util", "lines", ...) through
 * plots/elk_gnuplot.c: hints as in a sweep's figure line (kind set from
 * kind; x, y, series...). Returns 0, or -1 with msg. */
int tui_figure_csv(const char *csv, const char *kind, const char *x, const char *y, const char *series, int logx,
                   const char *title, const char *output, char *msg, size_t n);

/* Helpers for views writing gnuplot scripts: a quoted string literal. */
void tui_gp_quote(char *out, size_t n, const char *s);

#endif
