/* test_calib_llc.c — the last-level cache figure of `rtmgr calibrate` (calibllc.c, kept
 * by calibdev.c's dev_llc): the knee-finding rule on synthetic curves (a clean step, no
 * step, a noisy plateau with and without a step, slow small sizes, a gradual cliff), and
 * the read sweep itself on real OpenCL (PoCL here), kept small: 64 KiB .. 1 MiB, 4 MiB a
 * launch. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/calibint.h"
#include "rtmgr/ocl.h"
#include "tests/ocl_fixture.h"

#define MIB (1024.0 * 1024.0)
#define N 19 /* 1 MiB .. 512 MiB by sqrt(2), as calibrate's */

static void sizes(double *s)
{
    for (int i = 0; i < N; i++)
        s[i] = MIB * pow(sqrt(2.0), i);
}

/* Deterministic noise in [-amp, amp] (no rand(): the same curve every run). */
static double noise(uint32_t i, double amp)
{
    uint32_t h = i * 2654435761u + 0x9E3779B9u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return amp * (2.0 * (double)(h & 0xFFFF) / 65535.0 - 1.0);
}

/* A clean 2x step after 32 MiB: the geometric midpoint (sqrt 2 x the fast time) is
 * crossed halfway, in log t, between 32 and 45.25 MiB: at 32 * 2^(1/4) = 38.05 MiB. */
static void test_knee_clean_step(void **state)
{
    (void)state;
    double s[N], t[N];
    sizes(s);
    for (int i = 0; i < N; i++)
        t[i] = s[i] <= 32.01 * MIB ? 1.0 / 5e12 : 2.0 / 5e12;
    rtm_calib_llc_knee_t k;
    assert_true(rtm_calib_llc_knee(s, t, N, &k));
    assert_int_equal(k.lo, 10); /* 32 MiB */
    assert_int_equal(k.hi, 11);
    assert_true(fabs(k.cache - 32 * MIB * pow(2.0, 0.25)) < 1e-6 * MIB);
    assert_true(fabs(k.t_fast - 1.0 / 5e12) < 1e-20 && fabs(k.t_slow - 2.0 / 5e12) < 1e-20);
    assert_true(fabs(k.t_mid - sqrt(2.0) / 5e12) < 1e-20);
}

/* No step (flat, or a slow 20 % drift over the whole range): no visible cache. */
static void test_knee_no_step(void **state)
{
    (void)state;
    double s[N], t[N];
    sizes(s);
    rtm_calib_llc_knee_t k;
    for (int i = 0; i < N; i++)
        t[i] = 1e-12;
    assert_false(rtm_calib_llc_knee(s, t, N, &k));
    for (int i = 0; i < N; i++)
        t[i] = 1e-12 * (1.0 + 0.2 * i / (N - 1));
    assert_false(rtm_calib_llc_knee(s, t, N, &k));
    assert_true(k.t_slow / k.t_fast < RTM_CALIB_LLC_STEP);
    /* too few sizes, or a curve without positive times */
    assert_false(rtm_calib_llc_knee(s, t, 1, &k));
    for (int i = 0; i < N; i++)
        t[i] = 0.0;
    assert_false(rtm_calib_llc_knee(s, t, N, &k));
}

/* A noisy plateau (+-8 %): no cliff; the same noise on a 2.2x step after 45.25 MiB:
 * the cliff between 45.25 and 64 MiB, whatever the noise before it. */
static void test_knee_noisy(void **state)
{
    (void)state;
    double s[N], t[N];
    sizes(s);
    rtm_calib_llc_knee_t k;
    for (int i = 0; i < N; i++)
        t[i] = 1e-12 * (1.0 + noise((uint32_t)i, 0.08));
    assert_false(rtm_calib_llc_knee(s, t, N, &k));
    for (int i = 0; i < N; i++)
        t[i] = (s[i] <= 46 * MIB ? 1e-12 : 2.2e-12) * (1.0 + noise((uint32_t)i + 7, 0.08));
    assert_true(rtm_calib_llc_knee(s, t, N, &k));
    assert_int_equal(k.lo, 11);
    assert_int_equal(k.hi, 12);
    assert_true(k.cache >= s[11] && k.cache <= s[12]);
}

/* Small sizes slow (few work-items in flight, launch costs): the fastest size is in the
 * middle and the cliff is still the one after the plateau (50 MB, between 45.25 and 64
 * MiB), not the slow start. */
static void test_knee_slow_start(void **state)
{
    (void)state;
    double s[N], t[N];
    sizes(s);
    for (int i = 0; i < N; i++)
        t[i] = s[i] <= 50e6 ? 1.0 / 6e12 : 1.0 / 3e12;
    t[0] = 1.0 / 1e12; /* slower than the slow end */
    t[1] = 1.0 / 2e12;
    t[2] = 1.0 / 4e12;
    rtm_calib_llc_knee_t k;
    assert_true(rtm_calib_llc_knee(s, t, N, &k));
    assert_int_equal(k.lo, 11);
    assert_true(k.cache > s[11] && k.cache < s[12]);
}

/* A gradual cliff (random replacement: hit rate C/S past C = 32 MiB): the midpoint is
 * crossed past C, before 2 C. */
static void test_knee_gradual(void **state)
{
    (void)state;
    double s[N], t[N];
    sizes(s);
    const double c = 32.01 * MIB, tc = 1.0 / 6e12, tm = 1.0 / 3e12;
    for (int i = 0; i < N; i++)
        t[i] = s[i] <= c ? tc : tm - c / s[i] * (tm - tc);
    rtm_calib_llc_knee_t k;
    assert_true(rtm_calib_llc_knee(s, t, N, &k));
    assert_true(k.cache > c && k.cache < 2 * c);
}

/* The read sweep on the first OpenCL device (PoCL here), small: sizes increasing from
 * 64 KiB to at most 1 MiB, every time per byte positive, both patterns. */
static void test_sweep_on_opencl(void **state)
{
    (void)state;
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);
    const rtm_calib_llc_opts_t def = rtm_calib_llc_defaults();
    assert_true(def.min_bytes == MIB && def.max_bytes == 512 * MIB && def.reps >= 3);
    rtm_calib_llc_opts_t o = {.min_bytes = 64 * 1024, .max_bytes = MIB, .launch_bytes = 4 * MIB,
                              .reps = 2, .shared = true};
    for (int shared = 1; shared >= 0; shared--) {
        o.shared = shared;
        rtm_calib_llc_curve_t cv;
        assert_int_equal(rtm_calib_llc_curve(&dev, NULL, &o, &cv), RTM_OK);
        assert_true(cv.n >= 5 && cv.n <= 9);
        for (uint32_t i = 0; i < cv.n; i++) {
            assert_true(cv.t[i] > 0 && cv.size[i] > 0 && cv.size[i] <= MIB);
            assert_true(fmod(cv.size[i], 16.0) == 0.0);
            if (i > 0)
                assert_true(cv.size[i] > cv.size[i - 1]);
        }
        assert_true(cv.seconds > 0 && cv.seconds < 20.0);
        rtm_calib_llc_knee_t k;
        if (rtm_calib_llc_knee(cv.size, cv.t, cv.n, &k))
            assert_true(k.cache >= cv.size[0] && k.cache <= cv.size[cv.n - 1]);
        printf("sweep (%s lines), MiB:GB/s:", shared ? "shared" : "private");
        for (uint32_t i = 0; i < cv.n; i++)
            printf(" %.3g:%.3g", cv.size[i] / MIB, 1e-9 / cv.t[i]);
        printf(" (%.3fs)\n", cv.seconds);
    }
    /* bad options */
    rtm_calib_llc_curve_t cv;
    o.reps = 0;
    assert_int_equal(rtm_calib_llc_curve(&dev, NULL, &o, &cv), RTM_E_ARG);
    rtm_ocl_close(&dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_knee_clean_step), cmocka_unit_test(test_knee_no_step),
        cmocka_unit_test(test_knee_noisy),      cmocka_unit_test(test_knee_slow_start),
        cmocka_unit_test(test_knee_gradual),    cmocka_unit_test(test_sweep_on_opencl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
