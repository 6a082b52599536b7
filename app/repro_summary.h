/* The figures elk reproduce knows and the summary.md it writes from their
 * CSVs. Adding a figure: DATADIR/sweeps/NAME.cfg (whose sweep name is NAME),
 * a summary writer and a row in repro_summary.c's table. */
#ifndef ELK_REPRO_SUMMARY_H
#define ELK_REPRO_SUMMARY_H

#include <stdio.h>

#define ELK_REPRO_MAX 32 /* bound on the table's rows */
extern const int elk_repro_nfigs;
/* Figure f's name, in run order (f < elk_repro_nfigs). */
const char *elk_repro_name(int f);
/* 1 for the figures "all" runs (every one but reviews). */
int elk_repro_in_all(int f);
/* Run a figure that is not a sweep file (reviews) into dir; -1 for a sweep
 * figure, else 0 or the exit status. */
int elk_repro_run_own(int f, const char *dir, int jobs, int draw, int quiet, long *points);
/* The figure a --figure item names ("17", "fig17", "ref"), or -1. */
int elk_repro_find(const char *item);
/* summary.md's sections from DIR/NAME.csv, for every figure whose CSV is there. */
void elk_repro_summary_write(FILE *md, const char *dir);

#endif
