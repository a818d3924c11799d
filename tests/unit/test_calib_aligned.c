/* test_calib_aligned.c — the aligned-rows terms calibration derives from one measured
 * factor (calibfit.c, rtm_calib_aligned_share; used by the CPU pool's cpu_aligned and a
 * CPU-type device's dev_aligned): the growth form reproduces the measured factor at the
 * aligned size under the model's rule (model.c, aligned_factor: aligned_r + aligned * (R
 * - aligned_r) where R > aligned_r), its clamps, the plain factor where the fitted rate
 * barely grows, and nothing where nothing was measured; and the aligned size measured
 * beside an odd point (rtm_calib_aligned_key): 8 mod 16 below it, past validation's
 * seed-000 sizes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rtmgr/board.h"
#include "rtmgr/calibint.h"

/* The model's aligned rate at fitted rate R (model.c's aligned_factor times R). */
static double model_rate(double aligned, double aligned_r, double R)
{
    if (!(aligned > 0.0))
        return R;
    if (!(aligned_r > 0.0))
        return aligned * R;
    return R > aligned_r ? aligned_r + aligned * (R - aligned_r) : R;
}

/* PoCL's matrix_mul on the AMD development host (session 76): F 0.6454 at n = 2 984, the
 * fit's rate 90.94 ns there against 30.34 ns at n = 131. */
static void test_growth_form_reproduces_the_factor(void **state)
{
    (void)state;
    const double F = 0.6454, R = 90.94e-9, R0 = 30.34e-9;
    double a = -1.0, ar = -1.0;
    rtm_calib_aligned_share(F, R, R0, &a, &ar);
    assert_true(ar == R0);
    assert_true(fabs(a - (F * R - R0) / (R - R0)) < 1e-12);
    assert_true(a > 0.0 && a < 1.0);
    assert_true(fabs(model_rate(a, ar, R) - F * R) < 1e-9 * F * R);
    /* sizes whose fitted rate is the smallest point's keep it: aligned and odd alike */
    assert_true(model_rate(a, ar, R0) == R0);
    /* between them, a share of the growth: slower than R0, faster than the odd rows */
    const double mid = 0.5 * (R + R0);
    assert_true(model_rate(a, ar, mid) > R0 && model_rate(a, ar, mid) < mid);
}

/* Aligned rows measured slower than the smallest point's rate would give a negative
 * share: clamped at 0.01; a factor above 1 (aligned rows slower) keeps more than the
 * whole growth, below 1.5. */
static void test_growth_form_clamps(void **state)
{
    (void)state;
    double a, ar;
    rtm_calib_aligned_share(0.2, 100e-9, 30e-9, &a, &ar);
    assert_true(fabs(a - 0.01) < 1e-12 && ar == 30e-9);
    rtm_calib_aligned_share(1.2, 100e-9, 30e-9, &a, &ar);
    assert_true(fabs(a - (120.0 - 30.0) / 70.0) < 1e-12 && a < RTM_BOARD_ALIGNED_MAX);
    rtm_calib_aligned_share(1.49, 100e-9, 99e-9 / 1.105, &a, &ar);
    assert_true(a < RTM_BOARD_ALIGNED_MAX && ar > 0.0);
}

/* A fitted rate that grows 10 % or less: a plain factor, where in (0.5, 1.5); else none. */
static void test_plain_factor(void **state)
{
    (void)state;
    double a, ar;
    rtm_calib_aligned_share(0.89, 1.05e-9, 1.0e-9, &a, &ar);
    assert_true(a == 0.89 && ar == 0.0);
    assert_true(fabs(model_rate(a, ar, 1.05e-9) - 0.89 * 1.05e-9) < 1e-20);
    rtm_calib_aligned_share(0.45, 1.05e-9, 1.0e-9, &a, &ar);
    assert_true(a == 0.0 && ar == 0.0);
    rtm_calib_aligned_share(1.5, 1.0e-9, 1.0e-9, &a, &ar);
    assert_true(a == 0.0 && ar == 0.0);
}

/* Nothing measured (F 0: within the spreads or a FALLBACK) or no fitted rate: no term. */
static void test_none(void **state)
{
    (void)state;
    double a = 1.0, ar = 1.0;
    rtm_calib_aligned_share(0.0, 90e-9, 30e-9, &a, &ar);
    assert_true(a == 0.0 && ar == 0.0);
    rtm_calib_aligned_share(0.7, 0.0, 30e-9, &a, &ar);
    assert_true(a == 0.0 && ar == 0.0);
    rtm_calib_aligned_share(0.7, 90e-9, NAN, &a, &ar);
    assert_true(a == 0.0 && ar == 0.0);
}

/* The sizes the calibrations of session 76 measured: n = 2 984 beside 3 001 (3 000 is
 * validation's), 584 beside 591, 552 beside 561; --quick steps past 128, 256, 384. */
static void test_aligned_key(void **state)
{
    (void)state;
    rtm_calib_opts_t o = {0};
    cal_t c = {0};
    c.o = &o;
    assert_int_equal(rtm_calib_aligned_key(&c, 3001), 2984);
    assert_int_equal(rtm_calib_aligned_key(&c, 591), 584);
    assert_int_equal(rtm_calib_aligned_key(&c, 561), 552);
    assert_int_equal(rtm_calib_aligned_key(&c, 2001), 1992);
    assert_int_equal(rtm_calib_aligned_key(&c, 1001), 984);
    o.quick = true;
    assert_int_equal(rtm_calib_aligned_key(&c, 391), 376);
    assert_int_equal(rtm_calib_aligned_key(&c, 263), 248);
    for (int64_t k = 9; k < 4000; k += 2) {
        const int64_t a = rtm_calib_aligned_key(&c, k);
        assert_true(a % 16 == 8 && a <= k && a > k - 16 * 3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth_form_reproduces_the_factor),
        cmocka_unit_test(test_growth_form_clamps),
        cmocka_unit_test(test_plain_factor),
        cmocka_unit_test(test_none),
        cmocka_unit_test(test_aligned_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
