/* What the commands that run sweeps share (elk sweep, elk merge and elk
 * reproduce): Ctrl-C as a cancel flag, --jobs, output files through
 * core/elk_file with the error printed, the gnuplot script and figure
 * written beside a CSV, and the progress bar. */
#ifndef ELK_SWEEPIO_H
#define ELK_SWEEPIO_H

#include <stdatomic.h>
#include <stddef.h>

#include "elk_file.h"

/* Set by Ctrl-C between trap and untrap; a sweep's cancel flag. */
extern atomic_int elk_sweepio_interrupted;
/* Ctrl-C sets elk_sweepio_interrupted (a second one kills as usual). */
void elk_sweepio_trap_sigint(void);
void elk_sweepio_untrap_sigint(void);

/* --jobs S (NULL: the number of CPUs, at most 64); 0 or the usage exit code. */
int elk_sweepio_jobs(const char *s, int *jobs);

/* elk_file_open / elk_file_commit, printing the error: 0 or -1. */
int elk_sweepio_open(elk_file *o, const char *path);
int elk_sweepio_commit(elk_file *o);
/* An interrupted run: its rows go to PATH.partial, never over PATH (which
 * may hold an earlier complete result). Sets where to the name written. */
int elk_sweepio_commit_partial(elk_file *o, char *where, size_t n);

/* Write CSV.gp beside a CSV (a self-contained script drawing CSV's figure as
 * NAME.png), and draw NAME.png when draw is set. Returns 0, or 1 when gnuplot
 * failed or is missing (the message is printed; the CSV is unaffected). */
int elk_sweepio_figure_beside(const char *csv, int draw, int quiet_missing);

/* Progress on stderr, only when it is a terminal. */
typedef struct {
    const char *label;
    int tty;
    int drawn;
} elk_sweepio_progress;
/* An elk_sweep_opts.progress callback (ctx: an elk_sweepio_progress). */
void elk_sweepio_progress_cb(void *ctx, long done, long total, double elapsed);
/* Erase the bar. */
void elk_sweepio_progress_end(elk_sweepio_progress *p);

#endif
