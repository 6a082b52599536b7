/* core/elk_fit: least squares recovers the IPU formulas' coefficients from
 * measurements made with them (exactly without noise, within the reported
 * standard errors with it), and bad measurement files name file:line and
 * the column. */
#include <math.h>

#include "elk_fit.h"
#include "elk_test.h"

START_TEST(exact_recovery_without_noise)
{
    elk_chip c;
    elk_chip_defaults(&c);
    elk_fit_sample *s;
    elk_error err;
    ck_assert(elk_fit_synthesize(&c, 200, 0.0, 7, &s, &err) == ELK_OK);
    elk_fit_result r[ELK_FIT_KINDS];
    ck_assert_msg(elk_fit_run(s, 200, r, &err) == ELK_OK, "%s", err.msg);
    const double mm[4] = {24, 514, 113, 173}, el[2] = {0.5, 300};
    for (int j = 0; j < 4; j++) ck_assert_double_eq_tol(r[ELK_FIT_MATMUL].coef[j], mm[j], 1e-6 * mm[j]);
    for (int j = 0; j < 2; j++) ck_assert_double_eq_tol(r[ELK_FIT_ELEMWISE].coef[j], el[j], 1e-6 * el[j]);
    ck_assert(r[ELK_FIT_MATMUL].r2 > 1 - 1e-12);
    ck_assert(r[ELK_FIT_MATMUL].max_rel < 1e-9);
    /* the fitted model writes back into a chip's cost group */
    elk_cost_coef k = c.cost;
    k.mm_block = k.mm_kn = 0;
    elk_fit_apply(r, &k);
    ck_assert_double_eq_tol(k.mm_block, 24, 1e-6);
    ck_assert_double_eq_tol(k.mm_kn, 514, 1e-6);
    free(s);
}
END_TEST

START_TEST(noisy_recovery_within_errors)
{
    elk_chip c;
    elk_chip_defaults(&c);
    elk_fit_sample *s;
    elk_error err;
    ck_assert(elk_fit_synthesize(&c, 2000, 0.05, 42, &s, &err) == ELK_OK);
    elk_fit_result r[ELK_FIT_KINDS];
    ck_assert(elk_fit_run(s, 2000, r, &err) == ELK_OK);
    const double mm[4] = {24, 514, 113, 173};
    for (int j = 0; j < 4; j++)
        ck_assert_msg(fabs(r[ELK_FIT_MATMUL].coef[j] - mm[j]) <= 4 * r[ELK_FIT_MATMUL].stderr_[j],
                      "coefficient %d: %g +- %g, true %g", j, r[ELK_FIT_MATMUL].coef[j], r[ELK_FIT_MATMUL].stderr_[j],
                      mm[j]);
    /* 5% multiplicative noise shows up as about 5% relative error */
    ck_assert(r[ELK_FIT_MATMUL].rms_rel > 0.03 && r[ELK_FIT_MATMUL].rms_rel < 0.07);
    free(s);
}
END_TEST

static const struct {
    const char *text;
    int line;
    const char *needle;
} bad[] = {
    {"kind,m,n,k,cycles\nmatmul,4,4,4,100\nconv,1,2,3,4\n", 3, "column 'kind'"},
    {"kind,m,n,k,cycles\nmatmul,4,x,4,100\n", 2, "column 'n'"},
    {"kind,m,n,k,cycles\nelemwise,,100,,-5\n", 2, "column 'cycles'"},
    {"kind,m,n,k\nmatmul,4,4,4\n", 1, "header"},
    {"kind,m,n,k,cycles\nmatmul,4,4\n", 2, "expected 5 columns"},
};

START_TEST(bad_measurements)
{
    char dir[512], path[1024];
    scratch_new(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/m.csv", dir);
    FILE *fp = fopen(path, "w");
    fputs(bad[_i].text, fp);
    fclose(fp);
    elk_fit_sample *s;
    int n;
    elk_error err;
    ck_assert(elk_fit_read_csv(path, &s, &n, &err) != ELK_OK);
    char where[1100];
    snprintf(where, sizeof where, "%s:%d:", path, bad[_i].line);
    ck_assert_contains(err.msg, where);
    ck_assert_contains(err.msg, bad[_i].needle);
    scratch_free(dir);
}
END_TEST

START_TEST(too_few_measurements)
{
    elk_fit_sample s[3] = {{ELK_FIT_MATMUL, 6, 16, 16, 711}, {ELK_FIT_MATMUL, 12, 16, 16, 735}, {ELK_FIT_MATMUL, 6, 32, 16, 1400}};
    elk_fit_result r[ELK_FIT_KINDS];
    elk_error err;
    ck_assert(elk_fit_run(s, 3, r, &err) == ELK_EINVAL);
    ck_assert_contains(err.msg, "need at least 5");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = tcase_create("fit");
    tcase_add_test(tc, exact_recovery_without_noise);
    tcase_add_test(tc, noisy_recovery_within_errors);
    tcase_add_loop_test(tc, bad_measurements, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, too_few_measurements);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(suite()); }
