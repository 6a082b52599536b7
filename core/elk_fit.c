#include "elk_fit.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elk_file.h"

static double cdiv(double a, double b) { return ceil(a / b); }

/* The regressors of each model: the IPU formula's terms. */
static int terms(const elk_fit_sample *s, double *x)
{
    if (s->kind == ELK_FIT_MATMUL) {
        x[0] = cdiv(s->m, 6) * cdiv(s->k, 16) * cdiv(s->n, 16);
        x[1] = cdiv(s->k, 16) * cdiv(s->n, 16);
        x[2] = cdiv(s->n, 16);
        x[3] = 1;
        return 4;
    }
    x[0] = s->n;
    x[1] = 1;
    return 2;
}

double elk_fit_predict(const elk_fit_result *r, const elk_fit_sample *s)
{
    double x[4];
    int p = terms(s, x);
    double y = 0;
    for (int j = 0; j < p; j++) y += r->coef[j] * x[j];
    return y;
}

/* A measurements file larger than this is refused: a million tiles fit in
 * a tenth of it. */
#define ELK_FIT_MAX_BYTES ((size_t)64 << 20)

elk_status elk_fit_read_csv(const char *path, elk_fit_sample **out, int *n, elk_error *err)
{
    *out = NULL;
    *n = 0;
    /* whole and bounded (/dev/zero spun forever through fgets, every line
     * an empty one), so a NUL is seen where it is, not taken for an end */
    char *text;
    size_t len;
    ELK_TRY(elk_file_read(path, ELK_FIT_MAX_BYTES, &text, &len, err));
    char line[512];
    int lineno = 0, cap = 0;
    elk_fit_sample *v = NULL;
    elk_status st = ELK_OK;
    for (size_t at = 0; st == ELK_OK && at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t ll = (nl ? (size_t)(nl - text) : len) - at;
        lineno++;
        if (memchr(text + at, '\0', ll)) {
            st = elk_fail(err, ELK_EPARSE, "%s:%d: a NUL byte in the line", path, lineno);
            break;
        }
        if (ll >= sizeof line) {
            st = elk_fail(err, ELK_EPARSE, "%s:%d: line longer than %zu characters", path, lineno, sizeof line - 1);
            break;
        }
        memcpy(line, text + at, ll);
        line[ll] = '\0';
        at += ll + 1;
        line[strcspn(line, "\r")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        if (lineno == 1 || !strncmp(line, "kind,", 5)) {
            if (strcmp(line, "kind,m,n,k,cycles") != 0)
                st = elk_fail(err, ELK_EPARSE, "%s:%d: header: expected \"kind,m,n,k,cycles\", got \"%s\"", path,
                              lineno, line);
            continue;
        }
        char *f[5];
        int nf = 0;
        for (char *p = line, *q; nf < 5; p = q + 1) {
            f[nf++] = p;
            q = strchr(p, ',');
            if (!q) break;
            *q = '\0';
        }
        if (nf != 5) {
            st = elk_fail(err, ELK_EPARSE, "%s:%d: expected 5 columns (kind,m,n,k,cycles), got %d", path, lineno, nf);
            break;
        }
        elk_fit_sample s;
        memset(&s, 0, sizeof s);
        if (!strcmp(f[0], "matmul")) s.kind = ELK_FIT_MATMUL;
        else if (!strcmp(f[0], "elemwise")) s.kind = ELK_FIT_ELEMWISE;
        else {
            st = elk_fail(err, ELK_EFIELD, "%s:%d: column 'kind': \"%s\" is not matmul or elemwise", path, lineno, f[0]);
            break;
        }
        static const char *const cols[] = {"kind", "m", "n", "k", "cycles"};
        double val[5] = {0};
        for (int c = 1; c < 5; c++) {
            char *end;
            if (!f[c][0] && s.kind == ELK_FIT_ELEMWISE && (c == 1 || c == 3)) continue;
            val[c] = strtod(f[c], &end);
            if (end == f[c] || *end || !(val[c] > 0) || !isfinite(val[c])) {
                st = elk_fail(err, ELK_EFIELD, "%s:%d: column '%s': \"%s\" is not a positive number", path, lineno,
                              cols[c], f[c]);
                break;
            }
        }
        if (st != ELK_OK) break;
        s.m = val[1];
        s.n = val[2];
        s.k = val[3];
        s.cycles = val[4];
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            elk_fit_sample *nv = realloc(v, (size_t)cap * sizeof *nv);
            if (!nv) {
                st = elk_fail(err, ELK_ENOMEM, "out of memory");
                break;
            }
            v = nv;
        }
        v[(*n)++] = s;
    }
    free(text);
    if (st != ELK_OK) {
        free(v);
        *n = 0;
        return st;
    }
    *out = v;
    return ELK_OK;
}

static elk_status fit_kind(const elk_fit_sample *s, int n, elk_fit_kind kind, elk_fit_result *r, elk_error *err)
{
    memset(r, 0, sizeof *r);
    int m = 0, p = kind == ELK_FIT_MATMUL ? 4 : 2;
    for (int i = 0; i < n; i++) m += s[i].kind == kind;
    if (m == 0) return ELK_OK;
    if (m < p + 1)
        return elk_fail(err, ELK_EINVAL, "%s: %d measurements, need at least %d to fit %d coefficients",
                        kind == ELK_FIT_MATMUL ? "matmul" : "elemwise", m, p + 1, p);
    gsl_matrix *X = gsl_matrix_alloc((size_t)m, (size_t)p), *cov = gsl_matrix_alloc((size_t)p, (size_t)p);
    gsl_vector *y = gsl_vector_alloc((size_t)m), *w = gsl_vector_alloc((size_t)m), *c = gsl_vector_alloc((size_t)p);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc((size_t)m, (size_t)p);
    elk_status st = ELK_OK;
    if (!X || !cov || !y || !w || !c || !ws) {
        st = elk_fail(err, ELK_ENOMEM, "out of memory");
        goto out;
    }
    int row = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].kind != kind) continue;
        double x[4];
        terms(&s[i], x);
        for (int j = 0; j < p; j++) gsl_matrix_set(X, (size_t)row, (size_t)j, x[j]);
        gsl_vector_set(y, (size_t)row, s[i].cycles);
        /* relative errors matter: weight each tile by 1/cycles^2 */
        gsl_vector_set(w, (size_t)row, 1.0 / (s[i].cycles * s[i].cycles));
        row++;
    }
    double chisq;
    int gs = gsl_multifit_wlinear(X, w, y, c, cov, &chisq, ws);
    if (gs != GSL_SUCCESS) {
        st = elk_fail(err, ELK_EINVAL, "least squares failed: %s", gsl_strerror(gs));
        goto out;
    }
    r->nsamples = m;
    r->ncoef = p;
    for (int j = 0; j < p; j++) {
        r->coef[j] = gsl_vector_get(c, (size_t)j);
        r->stderr_[j] = sqrt(gsl_matrix_get(cov, (size_t)j, (size_t)j) * chisq / (m > p ? m - p : 1));
    }
    double mean = 0, sst = 0, sse = 0, rel2 = 0, relmax = 0;
    for (int i = 0; i < m; i++) mean += gsl_vector_get(y, (size_t)i) / m;
    row = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].kind != kind) continue;
        double pred = elk_fit_predict(r, &s[i]), obs = s[i].cycles;
        sse += (pred - obs) * (pred - obs);
        sst += (obs - mean) * (obs - mean);
        double rel = fabs(pred - obs) / obs;
        rel2 += rel * rel;
        if (rel > relmax) relmax = rel;
        row++;
    }
    r->r2 = sst > 0 ? 1 - sse / sst : 1;
    r->rms_rel = sqrt(rel2 / m);
    r->max_rel = relmax;
out:
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(X);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(w);
    gsl_vector_free(c);
    return st;
}

elk_status elk_fit_run(const elk_fit_sample *s, int n, elk_fit_result res[ELK_FIT_KINDS], elk_error *err)
{
    /* GSL's default handler aborts; errors come back as status codes */
    gsl_set_error_handler_off();
    for (int k = 0; k < ELK_FIT_KINDS; k++) ELK_TRY(fit_kind(s, n, (elk_fit_kind)k, &res[k], err));
    if (res[ELK_FIT_MATMUL].nsamples == 0 && res[ELK_FIT_ELEMWISE].nsamples == 0)
        return elk_fail(err, ELK_EINVAL, "no measurements to fit");
    return ELK_OK;
}

void elk_fit_apply(const elk_fit_result res[ELK_FIT_KINDS], elk_cost_coef *k)
{
    if (res[ELK_FIT_MATMUL].nsamples) {
        k->mm_block = res[ELK_FIT_MATMUL].coef[0];
        k->mm_kn = res[ELK_FIT_MATMUL].coef[1];
        k->mm_n = res[ELK_FIT_MATMUL].coef[2];
        k->mm_fixed = res[ELK_FIT_MATMUL].coef[3];
    }
    if (res[ELK_FIT_ELEMWISE].nsamples) {
        /* one regime: above the knee the fitted line is used everywhere */
        k->elem_slope = k->elem_slope2 = res[ELK_FIT_ELEMWISE].coef[0];
        k->elem_fixed = k->elem_fixed2 = res[ELK_FIT_ELEMWISE].coef[1];
        k->elem_cap = 1e7;
    }
}

elk_status elk_fit_synthesize(const elk_chip *c, int n, double sigma, unsigned long seed, elk_fit_sample **out,
                              elk_error *err)
{
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof **out);
    if (!*out) return elk_fail(err, ELK_ENOMEM, "out of memory");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng) {
        free(*out);
        *out = NULL;
        return elk_fail(err, ELK_ENOMEM, "out of memory");
    }
    gsl_rng_set(rng, seed);
    const elk_cost_coef *k = &c->cost;
    for (int i = 0; i < n; i++) {
        elk_fit_sample *s = &(*out)[i];
        memset(s, 0, sizeof *s);
        if (i % 2 == 0) {
            s->kind = ELK_FIT_MATMUL;
            s->m = 1 + gsl_rng_uniform_int(rng, 128);
            s->n = 1 + gsl_rng_uniform_int(rng, 256);
            s->k = 1 + gsl_rng_uniform_int(rng, 512);
            s->cycles = k->mm_block * cdiv(s->m, 6) * cdiv(s->k, 16) * cdiv(s->n, 16) +
                        k->mm_kn * cdiv(s->k, 16) * cdiv(s->n, 16) + k->mm_n * cdiv(s->n, 16) + k->mm_fixed;
        } else {
            s->kind = ELK_FIT_ELEMWISE;
            s->n = 16433 + gsl_rng_uniform_int(rng, 100000); /* the linear regime above the knee */
            s->cycles = k->elem_slope2 * s->n + k->elem_fixed2;
        }
        s->cycles *= 1 + gsl_ran_gaussian(rng, sigma);
        if (s->cycles < 1) s->cycles = 1;
    }
    gsl_rng_free(rng);
    return ELK_OK;
}
