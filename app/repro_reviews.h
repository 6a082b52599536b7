/* elk reproduce --figure reviews: the studies that answer the Elk paper's
 * reviewers (issue 14), run as elk commands into DIR/reviews-*.csv/.txt
 * with their figures, and summary.md's section about them. */
#ifndef ELK_REPRO_REVIEWS_H
#define ELK_REPRO_REVIEWS_H

#include <stdio.h>

/* Run every study into dir; *points counts the studies done. 0, or the
 * exit status of the first that failed (its message printed). */
int elk_repro_reviews_run(const char *dir, int jobs, int draw, int quiet, long *points);
/* The summary section, from the files in dir (nothing if they are not there). */
void elk_repro_reviews_summary(FILE *md, const char *dir);

#endif
