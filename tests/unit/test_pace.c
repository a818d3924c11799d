/* test_pace.c — the pace probe on real OpenCL (PoCL here), a host-paced sample brought
 * to a reference pace, and two samples combined (rtmgr/pace.h). */
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

/* Two samples of one kernel's pace, each at the reference pace: their mean where they
 * agree within RTM_PACE_AGREE; the lower where they do not (a disturbed host only slows
 * the enqueueing: the H100's radix_sort once sampled 10.47 and 46.91 us, whose mean put
 * its smallest job at +140 %, session 50); one alone where the other is missing. */
static void test_combine(void **state)
{
    (void)state;
    assert_float_equal(rtm_pace_combine(10e-6, 12e-6), 11e-6, 1e-15);
    assert_float_equal(rtm_pace_combine(10.47e-6, 46.91e-6), 10.47e-6, 1e-15);
    assert_float_equal(rtm_pace_combine(46.91e-6, 10.47e-6), 10.47e-6, 1e-15);
    assert_float_equal(rtm_pace_combine(10e-6, 15e-6), 12.5e-6, 1e-15); /* at the bound */
    assert_float_equal(rtm_pace_combine(10e-6, 0.0), 10e-6, 0.0);
    assert_float_equal(rtm_pace_combine(0.0, 9e-6), 9e-6, 0.0);
    assert_true(rtm_pace_agree(15e-6, 10e-6));
    assert_false(rtm_pace_agree(10e-6, 15.1e-6));
    assert_false(rtm_pace_agree(0.0, 9e-6));
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
        cmocka_unit_test(test_combine),
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
