/* test_stallprobe.c — the stall probe (stallprobe.h): one thread per CPU that runs and
 * is joined; a window cannot hold more stall than its length, so a lateness longer than
 * the window is never the machine's; a lateness of zero always is (nothing to explain);
 * a window outside the probe's run holds no stall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "rtmgr/os.h"
#include "rtmgr/stallprobe.h"

#define MS 1000000LL

static void test_probe(void **state)
{
    (void)state;
    rtm_stallprobe_t *p = NULL;
    const int64_t t0 = rtm_os_now_ns();
    assert_int_equal(rtm_stallprobe_start(&p), RTM_OK);
    assert_non_null(p);
    rtm_os_sleep_until(t0 + 200 * MS);
    rtm_stallprobe_stop(p);
    const int64_t t1 = rtm_os_now_ns();
    rtm_stallprobe_summary_t s;
    rtm_stallprobe_summary(p, &s);
    rtm_stallprobe_print(p, "");
    const int n = rtm_os_cpu_count() < RTM_STALLPROBE_CPUS ? rtm_os_cpu_count()
                                                           : RTM_STALLPROBE_CPUS;
    assert_int_equal(s.cpus, n);
    assert_true(s.fifo <= s.cpus);
    assert_true(s.total_ns <= (t1 - t0) * n);
    assert_true(s.stalls * RTM_STALLPROBE_MIN_NS <= (uint64_t)s.total_ns);
    int cpu = 7;
    const int64_t in_run = rtm_stallprobe_stalled(p, t0, t1, &cpu);
    assert_true(in_run >= 0 && in_run <= t1 - t0);
    assert_true(in_run > 0 ? cpu >= 0 && cpu < n : cpu == -1);
    assert_true(rtm_stallprobe_explains(p, t0, t0 + 50 * MS, 0));
    assert_false(rtm_stallprobe_explains(p, t0, t0 + 50 * MS, 51 * MS));
    assert_int_equal(rtm_stallprobe_stalled(p, t1 + 1000 * MS, t1 + 2000 * MS, NULL), 0);
    assert_false(rtm_stallprobe_explains(p, t1 + 1000 * MS, t1 + 2000 * MS, 1));
    rtm_stallprobe_stop(p); /* twice: no-op */
    rtm_stallprobe_free(p);
    rtm_stallprobe_free(NULL);
    assert_int_equal(rtm_stallprobe_stalled(NULL, t0, t1, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
