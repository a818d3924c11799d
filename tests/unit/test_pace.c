/* test_pace.c — the pace probe on real OpenCL (PoCL here) and a host-paced sample
 * brought to a reference pace (rtmgr/pace.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kcheck.h"
#include "pace.h"

/* t * ref / beside: a sample taken while the host enqueued 1.5 x slower than the
 * reference pace is 1.5 x too long; without either probe it stays as it is. */
static void test_at_reference(void **state)
{
    (void)state;
    assert_float_equal(rtm_pace_at(15e-6, 10e-6, 15e-6), 10e-6, 1e-15);
    assert_float_equal(rtm_pace_at(12e-6, 10e-6, 8e-6), 15e-6, 1e-15);
    assert_float_equal(rtm_pace_at(12e-6, 0.0, 8e-6), 12e-6, 0.0);  /* no reference */
    assert_float_equal(rtm_pace_at(12e-6, 10e-6, 0.0), 12e-6, 0.0); /* no probe beside */
    assert_float_equal(rtm_pace_at(0.0, 10e-6, 8e-6), 0.0, 0.0);    /* no sample */
}

/* The probe runs its 64-launch job on the real device: every run's enqueueing per launch
 * is positive and under 100 ms, and the median lies between the runs' extremes. */
static void test_probe(void **state)
{
    (void)state;
    double s[RTM_PACE_REPS], median = 0.0;
    assert_int_equal(rtm_pace_probe(kc_dev(), NULL, s, NULL, &median), RTM_OK);
    double lo = s[0], hi = s[0];
    for (int r = 0; r < RTM_PACE_REPS; r++) {
        assert_true(s[r] > 0.0 && s[r] < 0.1);
        lo = s[r] < lo ? s[r] : lo;
        hi = s[r] > hi ? s[r] : hi;
    }
    assert_true(median >= lo && median <= hi && median > 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_at_reference),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
