/* Numeric helpers the hot loops of the cost model and the grid loads share.
 * fmin and fmax as glibc's x86-64 ones compute them (minsd and maxsd: the
 * second operand when they compare equal; the other operand when one is a
 * NaN), without a call through the PLT: the planner and the scheduler call
 * them millions of times, and the same bits as fmin and fmax keep every
 * result what the library calls gave. */
#ifndef ELK_NUM_H
#define ELK_NUM_H

#include <math.h>

static inline double elk_fmin(double a, double b)
{
    if (isnan(b)) return a;
    return a < b ? a : b;
}

static inline double elk_fmax(double a, double b)
{
    if (isnan(b)) return a;
    return a > b ? a : b;
}

#endif
