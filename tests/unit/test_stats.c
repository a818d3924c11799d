/* test_stats.c — robust summaries: outliers dropped, median and percentiles exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rtmgr/rng.h"
#include "rtmgr/stats.h"

static void test_sort_and_percentile(void **state)
{
    (void)state;
    double x[1000];
    rtm_rng_t r;
    rtm_rng_seed(&r, 3);
    for (int i = 0; i < 1000; i++)
        x[i] = rtm_rng_uniform(&r, 0, 1);
    rtm_stats_sort(x, 1000);
    for (int i = 1; i < 1000; i++)
        assert_true(x[i - 1] <= x[i]);
    double y[100];
    for (int i = 0; i < 100; i++)
        y[i] = i + 1;
    assert_true(rtm_stats_percentile(y, 100, 50) == 50);
    assert_true(rtm_stats_percentile(y, 100, 99) == 99);
    assert_true(rtm_stats_percentile(y, 100, 100) == 100);
    assert_true(rtm_stats_percentile(y, 0, 50) == 0);
}

static void test_outliers_dropped(void **state)
{
    (void)state;
    /* Ten repetitions as in seed 000, two of them disturbed. */
    double x[10] = {10.1, 10.0, 9.9, 10.2, 10.0, 55.0, 9.8, 10.1, 0.5, 10.0};
    rtm_summary_t s;
    rtm_stats_summary(x, 10, &s);
    assert_int_equal(s.n, 10);
    assert_int_equal(s.kept, 8);
    assert_true(s.median == 10.0);
    assert_true(s.min == 9.8 && s.max == 10.2);
    assert_true(s.spread > 0.039 && s.spread < 0.041);
}

static void test_constant_samples(void **state)
{
    (void)state;
    double x[5] = {2, 2, 2, 2, 2};
    rtm_summary_t s;
    rtm_stats_summary(x, 5, &s);
    assert_int_equal(s.kept, 5);
    assert_true(s.median == 2.0 && s.mean == 2.0 && s.spread == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_and_percentile),
        cmocka_unit_test(test_outliers_dropped),
        cmocka_unit_test(test_constant_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
