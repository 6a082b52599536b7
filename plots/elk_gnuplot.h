/* gnuplot, the one way figures are drawn. This is the only code that starts
 * gnuplot: `elk plot`, `elk sweep` (the .gp written beside a CSV), `elk
 * reproduce` and the TUI's export all come through here.
 *
 * A figure is a template from DATADIR/plots/<kind>.gp (plus plots/common.gp)
 * fed with string variables and the data as the inline datablock $data; no
 * temporary data files. The script goes down a pipe (popen); gnuplot's
 * stderr goes to a temporary file that is reported when gnuplot fails. The
 * same script, written to a file, regenerates the figure without elk. */
#ifndef ELK_GNUPLOT_H
#define ELK_GNUPLOT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "elk_csv.h"
#include "elk_status.h"
#include "elk_sweep.h"

#define ELK_GP_MAX_VARS 32

/* One figure to draw. Owns copies of its variables, not data.
 * Invariant: kind names a template in plots/ (see elk_fig_kind_names). */
typedef struct {
    char kind[32];
    const char *data;          /* CSV text for $data (header first) */
    char output[1024];         /* .png, .svg or .pdf: the terminal follows */
    int width, height;         /* pixels (pdf: 100 px = 1 inch) */
    int nvars;
    char name[ELK_GP_MAX_VARS][32];
    char value[ELK_GP_MAX_VARS][1024];
} elk_gp_job;

void elk_gp_job_init(elk_gp_job *j, const char *kind, const char *data, const char *output);
/* Set (or replace) a string variable of the template. */
elk_status elk_gp_set(elk_gp_job *j, const char *name, const char *value, elk_error *err);

/* Fill the template variables from a CSV and figure hints (elk_sweep.h):
 * columns, series/facet/cluster values in order of appearance, labels with
 * units, roofs, and a size that fits the panels. Columns the hints leave
 * empty get defaults for the kind; a named column the CSV lacks is an
 * error. */
elk_status elk_gp_from_csv(elk_gp_job *j, const elk_csv_table *t, const elk_sweep_figure *f, const char *title,
                           elk_error *err);

/* gnuplot's path in PATH, or 0 if it is not installed. */
int elk_gp_find(char *path, size_t n);

/* A running gnuplot: the workbench's one way to start it (elk_gp_render
 * and the TUI's own view scripts). Its script goes to fp; its stdout and
 * stderr to outfd, never to the caller's terminal. */
typedef struct {
    FILE *fp;
    pid_t pid;
} elk_gp_proc;
/* Start gp (a path from elk_gp_find) with its output to outfd (-1:
 * /dev/null). outfd stays the caller's. */
elk_status elk_gp_start(elk_gp_proc *p, const char *gp, int outfd, elk_error *err);
/* Close gnuplot's input and wait for it: its waitpid status, or -1. */
int elk_gp_finish(elk_gp_proc *p);

/* Write the whole self-contained script (terminal, output, variables,
 * datablock, plots/common.gp, the template) to fp; the script writes to
 * script_output (e.g. a path relative to where the script lives). */
elk_status elk_gp_script(const elk_gp_job *j, const char *script_output, FILE *fp, elk_error *err);

/* Draw: pipe the script to gnuplot, check its exit status and that the
 * output exists. ELK_ETOOL with a clear message when gnuplot is missing or
 * fails (its first error lines quoted). */
elk_status elk_gp_render(const elk_gp_job *j, elk_error *err);

#endif
