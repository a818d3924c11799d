/* test_preempt_kernels.c — every kernel of the catalogue under the block contract on
 * real OpenCL (PoCL here): the warm-up completes nothing; uninterrupted preemptible jobs
 * complete every block exactly once (RTM_COUNT_BLOCKS builds count completions); every
 * build variant computes the reference result. Aborts: test_preempt_abort.c. */
#include "tests/preempt_fixture.h"

/* Warming up launches every entry with the flag raised: nothing completes, nothing is
 * counted, and the next job runs normally. */
static void test_warm(void **state)
{
    (void)state;
    fixture_t f;
    fixture_open(&f, rtm_kernel_find("spin"), 2000, NULL, 0);
    const size_t n = (size_t)f.x.launches * f.x.done_stride;
    unsigned char *done = calloc(n, 1);
    uint32_t *count = calloc(n, sizeof(uint32_t));
    assert_int_equal(rtm_kexec_warm(&f.x), RTM_OK);
    assert_int_equal(clEnqueueReadBuffer(dev.exec, f.x.done, CL_TRUE, 0, n, done, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(dev.exec, f.x.count, CL_TRUE, 0, n * sizeof(uint32_t),
                                         count, 0, NULL, NULL),
                     CL_SUCCESS);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(done[i], 0);
        assert_int_equal(count[i], 0);
    }
    int v = 1;
    assert_int_equal(rtm_abortflag_read(&f.x.flag, &v), RTM_OK);
    assert_int_equal(v, 0);
    run_whole(&f);
    free(done);
    free(count);
    fixture_close(&f);
}

static void test_uninterrupted_every_kernel(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        fixture_t f;
        fixture_open(&f, rtm_kernel_at(i), 2000, NULL, 0);
        run_whole(&f);
        fixture_close(&f);
    }
}

/* Build variants (original, the paper's check, the work-group check, feedback, a poll on every iteration with
 * persistent groups, static persistent groups with the write transport, flag copies) compute the
 * reference result. */
static void test_variants_every_kernel(void **state)
{
    (void)state;
    const rtm_kexec_opts_t variants[] = {
        {.variant = RTM_KEXEC_ORIGINAL},
        {.variant = RTM_KEXEC_CHECK},
        {.variant = RTM_KEXEC_WG_CHECK},
        {.variant = RTM_KEXEC_FEEDBACK},
        {.poll_every = 1, .poll_lanes = 4, .groups = 3},
        {.static_fetch = true, .groups = 5, .transport = RTM_ABORT_WRITE, .transport_set = true},
        {.flag_copies = 8, .groups = 3, .transport = RTM_ABORT_WRITE, .transport_set = true},
        {.flag_copies = 5},
    };
    /* every variant on the representative kernels, the original and the two check-only
     * builds on every kernel */
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        const bool all = representative(rtm_kernel_at(i));
        for (size_t v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
            if ((variants[v].groups && pocl_persistent_skip(rtm_kernel_at(i))) || (!all && v >= 3))
                continue;
            fixture_t f;
            fixture_open(&f, rtm_kernel_at(i), 500, &variants[v], 0);
            rtm_kexec_timing_t t;
            assert_int_equal(rtm_kexec_run(&f.x, &t), RTM_OK);
            assert_same_result(&f);
            fixture_close(&f);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warm),
        cmocka_unit_test(test_uninterrupted_every_kernel),
        cmocka_unit_test(test_variants_every_kernel),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
