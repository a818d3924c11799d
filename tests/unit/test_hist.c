/* test_hist.c — histogram quantiles within 1/16 of the exact value, merge, edges;
 * and the OS layer's absolute sleep and monotonic condition wait. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rtmgr/hist.h"
#include "rtmgr/os.h"
#include "rtmgr/rng.h"

static int cmp(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void test_quantiles(void **state)
{
    (void)state;
    enum { N = 10000 };
    static int64_t v[N];
    static rtm_hist_t h, h2;
    rtm_hist_reset(&h);
    assert_int_equal(rtm_hist_quantile(&h, 0.5), 0);
    rtm_rng_t r;
    rtm_rng_seed(&r, 7);
    for (int i = 0; i < N; i++) {
        v[i] = (int64_t)rtm_rng_uniform(&r, 0.0, 1e6) * (int64_t)(1 + i % 7) + (i % 3);
        rtm_hist_add(&h, v[i]);
    }
    qsort(v, N, sizeof(v[0]), cmp);
    const double qs[] = {0.1, 0.5, 0.9, 0.99};
    for (unsigned i = 0; i < 4; i++) {
        const double exact = (double)v[(size_t)(qs[i] * N)];
        const double got = (double)rtm_hist_quantile(&h, qs[i]);
        assert_true(got >= exact * (1.0 - 1.0 / 16) && got <= exact * (1.0 + 1.0 / 16));
    }
    assert_int_equal(rtm_hist_quantile(&h, 0.0), v[0]);
    assert_int_equal(rtm_hist_quantile(&h, 1.0), v[N - 1]);
    rtm_hist_reset(&h2);
    rtm_hist_add(&h2, -5);
    rtm_hist_add(&h2, 3);
    rtm_hist_add(&h2, INT64_MAX);
    assert_int_equal(h2.min, 0);
    assert_int_equal(rtm_hist_quantile(&h2, 0.5), 3);
    rtm_hist_merge(&h2, &h);
    assert_int_equal(h2.count, N + 3);
    assert_int_equal(h2.max, INT64_MAX);
}

static void test_os_time(void **state)
{
    (void)state;
    const int64_t t0 = rtm_os_now_ns();
    rtm_os_sleep_until(t0 + 2000000);
    assert_true(rtm_os_now_ns() >= t0 + 2000000);
    rtm_os_sleep_until(t0); /* past: returns at once */
    pthread_mutex_t m;
    pthread_cond_t c;
    assert_int_equal(rtm_os_mutex_init(&m), RTM_OK);
    assert_int_equal(rtm_os_cond_init(&c), RTM_OK);
    pthread_mutex_lock(&m);
    const int64_t t1 = rtm_os_now_ns();
    bool timed_out = false;
    while (!timed_out)
        timed_out = rtm_os_cond_wait_until(&c, &m, t1 + 1000000);
    pthread_mutex_unlock(&m);
    assert_true(rtm_os_now_ns() >= t1 + 1000000);
    pthread_cond_destroy(&c);
    pthread_mutex_destroy(&m);
    assert_true(rtm_os_cpu_count() >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantiles),
        cmocka_unit_test(test_os_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
