/* test_pace.c — the host-pace probe on real OpenCL (PoCL here) and the scaling of a
 * profile's launch-pace terms by this process's pace (rtmgr/pace.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kcheck.h"
#include "pace.h"

/* A GPU's profile device calibrated at a pace of 10 us a launch: kernel_next 12 us,
 * gap_host_k 8 us, gap_host_o 6 us, kernel_fixed 5 us, ws_next 3 us; one kernel with
 * t_next 9 us, one tuned without a pace of its own. */
static void paced_dev(rtm_board_dev_t *d)
{
    memset(d, 0, sizeof(*d));
    snprintf(d->name, sizeof(d->name), "gpu0");
    d->kind = RTM_DEV_GPU;
    const struct {
        int id;
        double v;
    } p[] = {{RTM_DEV_P_pace, 10e-6},      {RTM_DEV_P_kernel_next, 12e-6},
             {RTM_DEV_P_gap_host_k, 8e-6}, {RTM_DEV_P_gap_host_o, 6e-6},
             {RTM_DEV_P_kernel_fixed, 5e-6}, {RTM_DEV_P_ws_next, 3e-6}};
    for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
        d->param[p[i].id] = p[i].v;
        d->have[p[i].id] = true;
    }
    d->ktune[1].have = true;
    d->ktune[1].t_next = 9e-6;
    d->ktune[2].have = true;
}

static void test_factor(void **state)
{
    (void)state;
    rtm_board_dev_t d;
    paced_dev(&d);
    assert_true(rtm_pace_applies(&d, CL_DEVICE_TYPE_GPU));
    assert_false(rtm_pace_applies(&d, CL_DEVICE_TYPE_CPU)); /* its pace is its own work */
    assert_float_equal(rtm_pace_factor(&d, 15e-6), 1.5, 1e-12);
    assert_float_equal(rtm_pace_factor(&d, 7e-6), 0.7, 1e-12);
    /* clamped: a probe 10 x off measured a busy host, not a pace */
    assert_float_equal(rtm_pace_factor(&d, 100e-6), RTM_PACE_CLAMP, 1e-12);
    assert_float_equal(rtm_pace_factor(&d, 1e-6), 1.0 / RTM_PACE_CLAMP, 1e-12);
    assert_float_equal(rtm_pace_factor(&d, 0.0), 1.0, 0.0); /* no probe */
    d.have[RTM_DEV_P_pace] = false; /* a profile from before the probe */
    assert_false(rtm_pace_applies(&d, CL_DEVICE_TYPE_GPU));
    assert_float_equal(rtm_pace_factor(&d, 15e-6), 1.0, 0.0);
}

static void test_scale(void **state)
{
    (void)state;
    rtm_board_dev_t d;
    paced_dev(&d);
    rtm_pace_scale(&d, 1.5);
    /* the launch-pace terms scale ... */
    assert_float_equal(d.param[RTM_DEV_P_kernel_next], 18e-6, 1e-15);
    assert_float_equal(d.param[RTM_DEV_P_gap_host_k], 12e-6, 1e-15);
    assert_float_equal(d.param[RTM_DEV_P_gap_host_o], 9e-6, 1e-15);
    assert_float_equal(d.ktune[1].t_next, 13.5e-6, 1e-15);
    /* ... the device's own times and the transfer commands do not */
    assert_float_equal(d.param[RTM_DEV_P_kernel_fixed], 5e-6, 0.0);
    assert_float_equal(d.param[RTM_DEV_P_ws_next], 3e-6, 0.0);
    assert_float_equal(d.ktune[2].t_next, 0.0, 0.0); /* none: the device's kernel_next */
    assert_false(d.have[RTM_DEV_P_phase_gap]);        /* absent stays absent */
    /* the profile's pace follows, so that the same probe again changes nothing */
    assert_float_equal(d.param[RTM_DEV_P_pace], 15e-6, 1e-15);
    assert_float_equal(rtm_pace_factor(&d, 15e-6), 1.0, 1e-12);
}

/* The probe runs on the real device and measures a positive pace per launch; on a
 * CPU-type device (PoCL) rtm_pace_adopt leaves the profile as it is. */
static void test_probe(void **state)
{
    (void)state;
    rtm_ocl_dev_t *dev = kc_dev();
    double s[RTM_PACE_REPS], median = 0.0;
    assert_int_equal(rtm_pace_probe(dev, NULL, s, &median), RTM_OK);
    for (int r = 0; r < RTM_PACE_REPS; r++)
        assert_true(s[r] > 0.0 && s[r] < 0.1);
    assert_true(median > 0.0);
    rtm_board_dev_t d, before;
    paced_dev(&d);
    before = d;
    double f = 0.0, now = -1.0;
    assert_int_equal(rtm_pace_adopt(dev, NULL, &d, &f, &now), RTM_OK);
    if (dev->info.type & CL_DEVICE_TYPE_CPU) {
        assert_float_equal(f, 1.0, 0.0);
        assert_float_equal(now, 0.0, 0.0);
        assert_memory_equal(&d, &before, sizeof(d));
    } else { /* a GPU: probed and scaled */
        assert_true(now > 0.0);
        assert_float_equal(f, rtm_pace_factor(&before, now), 1e-12);
        assert_float_equal(d.ktune[1].t_next, 9e-6 * f, 1e-15);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_factor),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
