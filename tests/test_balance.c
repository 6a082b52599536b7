/* core/elk_balance: the knee finder on synthetic responses whose knee is
 * known, and elk_balance_run on the tiny model, where the bounds at the two
 * ends of an HBM range are known (HBM-starved below, execution above). */
#include <math.h>

#include "elk_balance.h"
#include "elk_point.h"
#include "elk_test.h"

static double hyperbola(double x, void *ctx)
{
    (void)ctx;
    return 1 + 1 / x;
}

static double step10(double x, void *ctx)
{
    (void)ctx;
    return x < 10 ? 2 : 1;
}

static double flat(double x, void *ctx)
{
    (void)ctx;
    (void)x;
    return 3;
}

static double broken(double x, void *ctx)
{
    (void)ctx;
    return x > 50 ? -1 : 1 / x;
}

/* L = 1 + 1/x on [1, 1000], p = 5%: plateau 1.001, threshold 1.05105, knee
 * at x = 1 / 0.05105 = 19.589 */
START_TEST(knee_of_hyperbola)
{
    elk_knee k;
    elk_error err;
    ck_assert(elk_knee_find(hyperbola, NULL, 1, 1000, 0.05, 0.001, &k, &err) == ELK_OK);
    ck_assert(fabs(k.plateau - 1.001) < 1e-12);
    ck_assert(fabs(k.threshold - 1.05105) < 1e-12);
    ck_assert_msg(fabs(k.knee / 19.5886 - 1) < 0.002, "knee %.6f", k.knee);
    ck_assert(hyperbola(k.knee, NULL) <= k.threshold * (1 + 1e-12));
    for (int i = 1; i < k.npts; i++) ck_assert(k.pts[i].x > k.pts[i - 1].x);
    ck_assert_int_le(k.npts, ELK_KNEE_MAX_EVALS);
}
END_TEST

/* a step at 10: the knee is 10 to the bracket's 1% */
START_TEST(knee_of_step)
{
    elk_knee k;
    elk_error err;
    ck_assert(elk_knee_find(step10, NULL, 1, 100, 0.05, 0.01, &k, &err) == ELK_OK);
    ck_assert_msg(k.knee >= 10 && k.knee <= 10.1, "knee %.6f", k.knee);
}
END_TEST

START_TEST(no_knee_and_errors)
{
    elk_knee k;
    elk_error err;
    ck_assert(elk_knee_find(flat, NULL, 1, 100, 0.05, 0.01, &k, &err) == ELK_OK);
    ck_assert(isnan(k.knee));
    ck_assert(k.plateau == 3);
    /* the grid runs from lo up: the first value past 50 is 10^(7/4) */
    ck_assert(elk_knee_find(broken, NULL, 1, 100, 0.05, 0.01, &k, &err) == ELK_EINVAL);
    ck_assert_contains(err.msg, "failed at 56.2341");
    ck_assert(elk_knee_find(flat, NULL, 10, 1, 0.05, 0.01, &k, &err) == ELK_EINVAL);
}
END_TEST

/* the tiny model on one IPU: starved of HBM at 0.05 TB/s, execution-bound
 * at 50; Ideal's latency has a knee in between, at which it is within 5% */
START_TEST(tiny_hbm_balance)
{
    elk_point p;
    elk_error err;
    elk_point_defaults(&p);
    ck_assert(elk_point_set(&p, ELK_KNOB_CHIP, "ipu-mk2", &err) == ELK_OK);
    ck_assert(elk_point_set(&p, ELK_KNOB_MODEL, "tiny", &err) == ELK_OK);
    elk_balance_opts o;
    elk_balance_opts_default(&o);
    o.knob = ELK_KNOB_HBM_TBPS;
    o.pol = ELK_POL_IDEAL;
    o.lo = 0.05;
    o.hi = 50;
    elk_balance_result r;
    ck_assert_msg(elk_balance_run(&p, &o, &r, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_eq(r.bound_lo, ELK_BOUND_HBM);
    ck_assert_int_eq(r.bound_hi, ELK_BOUND_EXEC);
    ck_assert_int_ge(r.nflips, 1);
    ck_assert(!isnan(r.knee.knee));
    ck_assert(r.knee.knee > 0.05 && r.knee.knee < 50);
    ck_assert(r.flip[0] > 0.05 && r.flip[0] < 50);
    /* Ideal is monotone: every evaluation at or above the knee is within p */
    for (int i = 0; i < r.knee.npts; i++)
        if (r.knee.pts[i].x >= r.knee.knee) ck_assert(r.knee.pts[i].y <= r.knee.threshold * (1 + 1e-9));
    /* a word knob is refused */
    o.knob = ELK_KNOB_TOPOLOGY;
    ck_assert(elk_balance_run(&p, &o, &r, &err) == ELK_EINVAL);
}
END_TEST

/* Sensitivity carries Elk-Full up a resource knob: ipu-mk2,
 * Llama2-13B on 2 layers, 16 TB/s, 448 KiB. Its own search at 512 KiB
 * takes 4.0% longer than at 448 (0.8933 against 0.8587 ms); 448's schedule
 * re-timed at 512 KiB is no slower, so the step up reads +0.0% and is
 * marked carried. Steps down are never carried. */
/* The carried tests' point: ipu-mk2, Llama2-13B on 2 layers, 16 TB/s. */
static elk_point carry_point(void)
{
    elk_point p;
    elk_error err;
    elk_point_defaults(&p);
    ck_assert(elk_point_set(&p, ELK_KNOB_CHIP, "ipu-mk2", &err) == ELK_OK);
    ck_assert(elk_point_set(&p, ELK_KNOB_MODEL, "llama2-13b", &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_HBM_TBPS, 16, &err) == ELK_OK);
    ck_assert(elk_point_set_num(&p, ELK_KNOB_LAYERS, 2, &err) == ELK_OK);
    return p;
}

START_TEST(sensitivity_carries_up)
{
    elk_point p = carry_point();
    elk_error err;
    ck_assert(elk_point_set_num(&p, ELK_KNOB_SRAM_KIB, 448, &err) == ELK_OK);
    elk_sens s;
    elk_plan_cache *pc = elk_plan_cache_alloc();
    ck_assert_msg(elk_sensitivity_run(&p, ELK_POL_FULL, pc, &s, &err) == ELK_OK, "%s", err.msg);
    elk_plan_cache_free(pc);
    int found = 0;
    for (int i = 0; i < s.n; i++) {
        const elk_sens_row *r = &s.row[i];
        ck_assert(!(r->carried_up && !elk_knobs[r->knob].resource));
        if (r->have_up && elk_knobs[r->knob].resource && r->knob != ELK_KNOB_CORES)
            ck_assert_msg(r->ms_up <= s.base_ms * (1 + 1e-3), "%s up: %g ms against %g", elk_knobs[r->knob].name,
                          r->ms_up, s.base_ms);
        if (r->knob != ELK_KNOB_SRAM_KIB) continue;
        found = 1;
        ck_assert(r->have_up && r->carried_up);
        ck_assert_double_eq_tol(r->ms_up, s.base_ms, 1e-9 * s.base_ms);
    }
    ck_assert(found);
}
END_TEST

/* elk balance carries Elk-Full along a resource knob: the same point as
 * sensitivity_carries_up, SRAM 384 .. 640 KiB. Its own search is slower
 * at 640 KiB (0.8963 ms) than at 624 (0.8674, carried from below); the
 * curve the knee is found on never rises, and the plateau is the carried
 * value at 640. */
START_TEST(balance_carries)
{
    elk_point p = carry_point();
    elk_error err;
    elk_balance_opts o;
    elk_balance_opts_default(&o);
    o.knob = ELK_KNOB_SRAM_KIB;
    o.lo = 384;
    o.hi = 640;
    elk_balance_result r;
    ck_assert_msg(elk_balance_run(&p, &o, &r, &err) == ELK_OK, "%s", err.msg);
    ck_assert_int_gt(r.carried, 0);
    for (int i = 1; i < r.knee.npts; i++)
        ck_assert_msg(r.knee.pts[i].y <= r.knee.pts[i - 1].y * (1 + 1e-9), "%g KiB: %g ms after %g", r.knee.pts[i].x,
                      r.knee.pts[i].y, r.knee.pts[i - 1].y);
    ck_assert_double_eq_tol(r.knee.plateau, r.knee.pts[r.knee.npts - 1].y, 1e-12);
    ck_assert(r.current_ms >= r.knee.plateau * (1 - 1e-9));
}
END_TEST

/* samples of 1 + 1/x at 1, 2, 4, ... 1024 (unsorted): plateau 1 + 1/1024,
 * threshold x 1.05; 1 + 1/16 = 1.0625 is above it, 1 + 1/32 below: knee 32 */
START_TEST(knee_of_samples)
{
    elk_knee_pt pts[11];
    for (int i = 0; i < 11; i++) {
        double x = (double)(1 << ((i * 7) % 11));
        pts[i] = (elk_knee_pt){x, 1 + 1 / x};
    }
    double plateau;
    ck_assert(elk_knee_of_samples(pts, 11, 0.05, &plateau) == 32);
    ck_assert(plateau == 1 + 1.0 / 1024);
    pts[3].y = NAN; /* a missing sample is skipped */
    ck_assert(elk_knee_of_samples(pts, 11, 0.05, NULL) == 32);
    elk_knee_pt flat[3] = {{1, 2}, {2, 2}, {3, 2}};
    ck_assert(isnan(elk_knee_of_samples(flat, 3, 0.05, NULL)));
    ck_assert(isnan(elk_knee_of_samples(flat, 1, 0.05, NULL)));
}
END_TEST

static Suite *balance_suite(void)
{
    Suite *s = suite_create("balance");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, knee_of_hyperbola);
    tcase_add_test(tc, knee_of_step);
    tcase_add_test(tc, no_knee_and_errors);
    tcase_add_test(tc, knee_of_samples);
    tcase_add_test(tc, tiny_hbm_balance);
    tcase_add_test(tc, sensitivity_carries_up);
    tcase_add_test(tc, balance_carries);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(balance_suite()); }
