/* test_preempt_abort.c — every kernel of the catalogue aborted at many points on real
 * OpenCL (PoCL here): the completed-block array stays consistent, and resuming on the
 * CPU or on the device (aborted again there) gives the uninterrupted result with no
 * block completed twice (kernels built with RTM_COUNT_BLOCKS count completions per
 * block); the same with persistent groups fetching blocks in order (the GPU build). */
#include "tests/preempt_fixture.h"

/* Every kernel: aborts at instants spread over (and past) an uninterrupted run, then
 * resume alternately on the CPU and on the device (aborted once more there). `opts`:
 * the executor (NULL: the device's defaults). */
static void abort_resume_every_kernel(const rtm_kexec_opts_t *opts, int points)
{
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        if (opts && opts->groups != RTM_KEXEC_GROUPS_ALL && pocl_persistent_skip(rtm_kernel_at(i))) {
            fprintf(stderr, "%s (persistent): skipped on PoCL (known miscompile)\n",
                    rtm_kernel_at(i)->name);
            continue;
        }
        if (opts && SANITIZED && !representative(rtm_kernel_at(i)))
            continue;
        fixture_t f;
        double t = 0.0;
        /* double the first size key (at most 16x) until a run lasts long enough to be
         * caught mid-way (the CPU twin computes the reference and the CPU resumes at that
         * size too, so no more) */
        for (int64_t scale = 1;; scale *= 2) {
            fixture_open_ex(&f, rtm_kernel_at(i), 3000, opts, 2, scale, false);
            run_unchecked(&f); /* the first run may include a lazy JIT */
            fixture_reset(&f);
            t = run_unchecked(&f);
            if (t >= 0.005 || scale >= 16 || f.k.size[0] >= f.k.kernel->keys[0].max)
                break;
            fixture_close(&f);
        }
        rtm_kinst_run_cpu(&f.ref);
        assert_same_result(&f);
        assert_once(&f.job);
        /* instants spread over the kernels (from profiling: inputs first), the last two
         * after completion */
        const double lat = f.job.run_latency_s, ks = f.job.run_kernel_s > 0 ? f.job.run_kernel_s : t;
        uint32_t stopped = 0;
        for (int p = 0; p < points; p++) {
            fixture_reset(&f);
            const double t0 = now_s();
            assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
            /* point 0: at once (before the kernels start, usually) */
            if (p > 0)
                sleep_s(t0 + (p < points - 2 ? lat + ks * (p - 1) / (points - 3) : t * 1.5) -
                        now_s());
            rtm_preempt_stop_t s;
            assert_int_equal(rtm_preempt_abort(&f.job, p % 3 == 0, &s), RTM_OK);
            assert_consistent(&f.job);
            if (s.finished) {
                assert_int_equal(f.job.state, RTM_PREEMPT_DONE);
                assert_int_equal(s.remaining_total, 0);
                assert_same_result(&f);
                assert_once(&f.job);
                continue;
            }
            stopped++;
            assert_int_equal(f.job.state, RTM_PREEMPT_STOPPED);
            assert_true(s.remaining > 0);
            if (p % 3 == 0) { /* on the CPU */
                assert_int_equal(rtm_preempt_resume_cpu(&f.job), RTM_OK);
            } else { /* on the device, aborted again, then the device or the CPU finishes */
                assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
                sleep_s(t / 8);
                assert_int_equal(rtm_preempt_abort(&f.job, p % 3 == 2, &s), RTM_OK);
                assert_consistent(&f.job);
                if (!s.finished && p % 3 == 1) {
                    assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
                    assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
                } else if (!s.finished) {
                    assert_int_equal(rtm_preempt_resume_cpu(&f.job), RTM_OK);
                }
            }
            assert_same_result(&f);
            assert_once(&f.job);
        }
        fprintf(stderr, "%s%s: %u of %d aborts stopped the job (run %.1f ms, kernels %.1f ms)\n",
                f.k.kernel->name, f.x.persist ? " (persistent)" : "", stopped, points, t * 1e3,
                ks * 1e3);
        fixture_close(&f);
    }
}



static void test_abort_resume_every_kernel(void **state)
{
    (void)state;
    abort_resume_every_kernel(NULL, SANITIZED ? 6 : 9);
}

/* The same with two persistent work-groups fetching blocks in order (the GPU build). */
static void test_abort_resume_persistent(void **state)
{
    (void)state;
    const rtm_kexec_opts_t o = {.groups = 2};
    abort_resume_every_kernel(&o, 5);
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abort_resume_every_kernel),
        cmocka_unit_test(test_abort_resume_persistent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
