/* The workbench's event loop: terminal setup and restore, layout, key
 * dispatch, the worker threads, and exports. app/cmd_tui.c parses the
 * command line and calls elk_tui_run. */
#ifndef TUI_APP_H
#define TUI_APP_H

#include "elk_point.h"

typedef struct {
    int ascii;                 /* force ASCII glyphs */
    int mono;                  /* force monochrome */
    int start_view;            /* 0..4 */
    int focus;                 /* focused policy */
    const char *plot_format;   /* "png" (default) or "svg" */
    const char *log_path;      /* stderr while curses runs; NULL = per user (tui_log_default) */
    /* hidden benchmark: apply bench_knobs knob changes, one after the
     * other as soon as each is redrawn; print timings to bench_out (or
     * stdout after the terminal is restored) and quit */
    int bench_knobs;
    const char *bench_which;   /* comma list of knobs to cycle: hbm,noc,cores,sram,batch,seq */
    const char *bench_out;
} tui_opts;

void tui_opts_default(tui_opts *o);
/* Run the workbench on a design point; returns the exit code. */
/* The view --view names (a number from 1, or a view's name), or -1. */
int elk_tui_view_find(const char *v);
/* "1-N, breakdown, ... or sensitivity", for messages and --help. */
void elk_tui_view_list(char *buf, size_t n);
int elk_tui_run(const elk_point *p, const tui_opts *o);

#endif
