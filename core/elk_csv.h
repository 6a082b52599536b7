/* Tidy CSV: the one place numbers become text for sweeps, merges and plots.
 *
 * Writing: RFC 4180 quoting (only when a field needs it), numbers as %.6g
 * with -0 printed as 0 and NaN as an empty field, so the same doubles give
 * the same bytes on every run, machine and --jobs. Units live in the column
 * names (latency_ms, hbm_tbps), never in the cells.
 *
 * Reading: a CSV as written here, with optional '#' comment lines before
 * the header (sweeps put their identity there, see elk_sweep.h). Quoted
 * fields may hold commas and doubled quotes but not newlines. */
#ifndef ELK_CSV_H
#define ELK_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "elk_status.h"

/* Format a number: "%.6g", NaN -> "", +-inf -> "inf"/"-inf", -0 -> "0". */
void elk_csv_fmt(char *buf, size_t n, double v);

/* Append one field (quoted when it holds a comma, a quote or a line break)
 * to buf at *len, preceded by a comma unless it is the first of its row. */
void elk_csv_cat(char *buf, size_t n, size_t *len, int first, const char *field);
/* The same with a number formatted by elk_csv_fmt. */
void elk_csv_cat_num(char *buf, size_t n, size_t *len, int first, double v);

/* A parsed CSV. Owns every string.
 * Invariants: every row has exactly ncols cells; lines[r] is row r's text
 * as read (no newline), so writing lines back reproduces the input bytes. */
typedef struct {
    int ncomments;
    char **comments;   /* '#' lines before the header, without the newline */
    int ncols;
    char **cols;       /* header names */
    int nrows;
    char **lines;      /* raw row text */
    char ***cells;     /* cells[r][c], unquoted */
} elk_csv_table;

/* Read path ("-" = stdin). Errors name file:line. */
/* A whole file ("-": standard input) as a NUL-terminated string the caller
 * frees (through elk_file_read). A NUL byte inside is an error naming its
 * file:line, since the text would silently end there. */
elk_status elk_csv_slurp(const char *path, char **text, elk_error *err);
elk_status elk_csv_read(const char *path, elk_csv_table *t, elk_error *err);
/* Parse text already in memory (name is used in messages). */
elk_status elk_csv_parse(const char *text, const char *name, elk_csv_table *t, elk_error *err);
void elk_csv_free(elk_csv_table *t);

/* Column index by header name, or -1. */
int elk_csv_col(const elk_csv_table *t, const char *name);
/* Cell as a number (NaN when empty or not a number, or col < 0). */
double elk_csv_num(const elk_csv_table *t, int row, int col);
/* Cell text ("" when col < 0). */
const char *elk_csv_cell(const elk_csv_table *t, int row, int col);

/* Distinct values of a column in order of first appearance, joined by sep
 * into buf (values holding sep are skipped). Returns how many. */
int elk_csv_distinct(const elk_csv_table *t, int col, char sep, char *buf, size_t n);

#endif
