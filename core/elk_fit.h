/* Fitting a chip's cost-model coefficients to measured tiles (the
 * paper fits linear trees to profiled tiles; ours is
 * `elk fit`, ordinary least squares with GSL on the IPU formula's terms).
 *
 * A measurement is one tile run on one core: its kind, shape and cycles.
 * The MatMul model is linear in its four coefficients (per 6x16x16 block,
 * per (k,n) block, per n block, per call), the elementwise model in two
 * (slope, fixed), so each is one linear least-squares problem. */
#ifndef ELK_FIT_H
#define ELK_FIT_H

#include "elk_chip.h"
#include "elk_status.h"

typedef enum { ELK_FIT_MATMUL, ELK_FIT_ELEMWISE, ELK_FIT_KINDS } elk_fit_kind;

/* One measured tile. For ELEMWISE only n is used (elements). */
typedef struct {
    elk_fit_kind kind;
    double m, n, k;
    double cycles;
} elk_fit_sample;

/* The fit of one kind. Coefficients in the order of the model's terms. */
typedef struct {
    int nsamples;
    int ncoef;
    double coef[4];
    double stderr_[4];      /* standard errors of the coefficients */
    double r2;              /* coefficient of determination */
    double rms_rel;         /* root mean square of (model - measured) / measured */
    double max_rel;         /* largest |model - measured| / measured */
} elk_fit_result;

/* Read measurements from a CSV with header kind,m,n,k,cycles (kind is
 * matmul or elemwise); errors name file:line and the column. The caller
 * frees *out. */
elk_status elk_fit_read_csv(const char *path, elk_fit_sample **out, int *n, elk_error *err);

/* Fit every kind that has enough samples; res[kind].nsamples == 0 if none. */
elk_status elk_fit_run(const elk_fit_sample *s, int n, elk_fit_result res[ELK_FIT_KINDS], elk_error *err);

/* Write fitted coefficients into a chip's cost model (kind "ipu"). */
void elk_fit_apply(const elk_fit_result res[ELK_FIT_KINDS], elk_cost_coef *coef);

/* The model's prediction for one sample with given coefficients. */
double elk_fit_predict(const elk_fit_result *r, const elk_fit_sample *s);

/* Synthetic measurements from a chip's formulas with multiplicative
 * Gaussian noise (sigma, relative), from GSL's random generator seeded with
 * seed: for tests and demos of `elk fit`. */
elk_status elk_fit_synthesize(const elk_chip *c, int n, double sigma, unsigned long seed, elk_fit_sample **out,
                              elk_error *err);

#endif
