/* preempt_fixture.h — shared by tests/unit/test_preempt.c and
 * tests/integration/test_preempt_kernels.c: one OpenCL device, kernel instances with
 * their CPU-twin reference, a counting executor (RTM_COUNT_BLOCKS) and a preemptible job,
 * and the checks every abort must pass. */
#ifndef RTM_TEST_PREEMPT_FIXTURE_H
#define RTM_TEST_PREEMPT_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "kernels/kernels.h"
#include "rtmgr/preempt.h"
#include "rtmgr/rng.h"
#include "tests/ocl_fixture.h"
#include "tests/sanitized.h"

static rtm_ocl_dev_t dev;

/* Under the sanitizers (SANITIZED) the CPU twins (references and CPU resumes) run
 * unoptimised and instrumented: fewer abort points, and the persistent pass on
 * representative kernels. */

/* Kernels that between them cover the header's paths: simple; barrier loop with
 * RTM_POLL (grid_path, cpa_pairs); multi-launch with local memory (sort, radix_sort);
 * RTM_POLL every 64 steps (manoeuvre); RTM_POLL_FOR (spin); small groups (threshold). */
static inline bool representative(const rtm_kernel_t *kernel)
{
    static const char *const names[] = {"matrix_add", "grid_path", "cpa_pairs", "sort",
                                        "radix_sort", "manoeuvre", "spin", "threshold"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(names[i], kernel->name) == 0)
            return true;
    return false;
}

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps s seconds, the last 200 us busy (precise instants for short kernels). */
static inline void sleep_s(double s)
{
    const double end = now_s() + s, slack = s - 200e-6;
    if (slack > 0) {
        struct timespec ts = {(time_t)slack, (long)((slack - (double)(time_t)slack) * 1e9)};
        nanosleep(&ts, NULL);
    }
    while (now_s() < end) {
    }
}

static inline int setup(void **state)
{
    (void)state;
    return ocl_open_first(&dev) == RTM_OK ? 0 : -1;
}

static inline int teardown(void **state)
{
    (void)state;
    rtm_ocl_close(&dev);
    return 0;
}

/* A kernel instance with its reference result and a counting executor. */
typedef struct {
    rtm_kinst_t k, ref;
    void *arena_k, *arena_ref, *jmem;
    rtm_kexec_t x;
    rtm_preempt_job_t job;
    uint64_t seed;
} fixture_t;

/* Small sizes that still give several blocks (several launches for the multi-pass
 * kernels), small work-groups included; kernels not listed keep their defaults. */
typedef struct {
    const char *kernel;
    const char *key[RTM_SIZE_KEYS_MAX + 1];
    int64_t val[RTM_SIZE_KEYS_MAX];
    uint32_t wg, vec;
} tsize_t;

static const tsize_t sizes[] = {
    {"matrix_add", {"n", NULL}, {200}, 64, 1},
    {"threshold", {"width", "height", NULL}, {100, 30}, 32, 4},
    {"convolve", {"width", "height", "k", NULL}, {70, 40, 5}, 64, 4},
    {"grid_path", {"width", "height", "passes", NULL}, {70, 40, 8}, 64, 1},
    {"sort", {"n", NULL}, {9000}, 64, 1},
    {"radix_sort", {"n", NULL}, {9000}, 128, 1},
    {"matrix_mov", {"n", NULL}, {40}, 32, 1},
    {"matrix_add3", {"n", NULL}, {40}, 32, 8},
    {"matrix_loop_add", {"n", NULL}, {40}, 64, 1},
    {"matrix_mul", {"n", NULL}, {40}, 64, 1},
    {"empty", {"blocks", NULL}, {3}, 32, 1},
};

static inline void test_sizes(rtm_kinst_t *k, uint32_t spin_work)
{
    const char *name = k->kernel->name;
    if (strcmp(name, "spin") == 0) {
        k->size[0] = 40;
        k->size[1] = spin_work;
        k->size[3] = 3;
        k->tune.wg = 64;
        return;
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        if (strcmp(sizes[i].kernel, name) != 0)
            continue;
        for (int j = 0; sizes[i].key[j]; j++) {
            const int ki = rtm_kernel_key(k->kernel, sizes[i].key[j]);
            assert_true(ki >= 0);
            k->size[ki] = sizes[i].val[j];
        }
        k->tune = (rtm_tune_t){sizes[i].wg, sizes[i].vec};
    }
}

/* PoCL 3.1 miscompiles grid_path's tile loop (private arrays carried across barriers)
 * once it runs inside the persistent-group loop: wrong fields with every block marked
 * done, no abort involved. CPU devices do not use persistent groups by default; the GPU
 * result of every build is verified by `rtmgr bench preempt`. */
static inline bool pocl_persistent_skip(const rtm_kernel_t *kernel)
{
    return strstr(dev.info.platform_name, "Portable Computing Language") &&
           strcmp(kernel->name, "grid_path") == 0;
}

/* Opens a fixture; the reference result is computed only with `reference` (it is the
 * slow part under the sanitizers: call fixture_reference once the size is settled). */
static inline void fixture_open_ex(fixture_t *f, const rtm_kernel_t *kernel, uint32_t spin_work,
                            const rtm_kexec_opts_t *opts, uint32_t window, int64_t scale,
                            bool reference)
{
    memset(f, 0, sizeof(*f));
    f->seed = 7;
    rtm_kinst_init(&f->k, kernel);
    test_sizes(&f->k, spin_work);
    f->k.size[0] *= scale;
    if (f->k.size[0] > kernel->keys[0].max)
        f->k.size[0] = kernel->keys[0].max;
    f->ref = f->k;
    assert_int_equal(rtm_kinst_plan(&f->k), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(&f->k);
    f->arena_k = aligned_alloc(64, bytes);
    f->arena_ref = aligned_alloc(64, bytes);
    assert_int_equal(rtm_kinst_bind(&f->k, f->arena_k, bytes), bytes);
    assert_int_equal(rtm_kinst_bind(&f->ref, f->arena_ref, bytes), bytes);
    kernel->fill(&f->k, f->seed);
    kernel->fill(&f->ref, f->seed);
    if (reference)
        rtm_kinst_run_cpu(&f->ref);
    rtm_kexec_opts_t o = opts ? *opts : (rtm_kexec_opts_t){0};
    o.count_blocks = true;
    assert_int_equal(rtm_kexec_create_ex(&f->x, &dev, &f->k, &o), RTM_OK);
    assert_int_equal(rtm_kexec_warm(&f->x), RTM_OK);
    const size_t jb = rtm_preempt_job_bytes(&f->k, true);
    f->jmem = aligned_alloc(64, (jb + 63u) & ~(size_t)63u);
    assert_int_equal(rtm_preempt_job_init(&f->job, &f->k, f->jmem, jb, window, true), RTM_OK);
}

static inline void fixture_open(fixture_t *f, const rtm_kernel_t *kernel, uint32_t spin_work,
                         const rtm_kexec_opts_t *opts, uint32_t window)
{
    fixture_open_ex(f, kernel, spin_work, opts, window, 1, true);
}

static inline void fixture_close(fixture_t *f)
{
    rtm_preempt_job_release(&f->job);
    rtm_kexec_destroy(&f->x);
    free(f->jmem);
    free(f->arena_k);
    free(f->arena_ref);
}

/* Back to IDLE with fresh inputs. */
static inline void fixture_reset(fixture_t *f)
{
    assert_int_equal(rtm_preempt_job_reset(&f->job), RTM_OK);
    f->k.kernel->fill(&f->k, f->seed);
}

/* A fresh job started, then aborted after_s later (after its start call's latency too
 * with `after_latency`); *s tells how it stopped. */
static inline void start_and_abort(fixture_t *f, double after_s, bool after_latency,
                                   bool readback, rtm_preempt_stop_t *s)
{
    fixture_reset(f);
    assert_int_equal(rtm_preempt_start(&f->job, &f->x), RTM_OK);
    sleep_s((after_latency ? f->job.run_latency_s : 0.0) + after_s);
    assert_int_equal(rtm_preempt_abort(&f->job, readback, s), RTM_OK);
}

static inline void assert_same_result(const fixture_t *f)
{
    char why[160] = "";
    const size_t bad = f->k.kernel->compare(&f->k, &f->ref, why, sizeof(why));
    if (bad)
        fprintf(stderr, "%s: %zu differ: %s\n", f->k.kernel->name, bad, why);
    assert_int_equal(bad, 0);
}

/* The completed-block array agrees with the completion counters (each 0 or 1), every
 * launch before the one reached is complete and none after it has progressed. */
static inline void assert_consistent(const rtm_preempt_job_t *job)
{
    for (uint32_t l = 0; l < job->launches; l++) {
        const uint32_t nb = rtm_preempt_blocks(job, l);
        const uint32_t rem = rtm_preempt_remaining(job, l, NULL, 0);
        if (l < job->launch)
            assert_int_equal(rem, 0);
        if (l > job->launch)
            assert_int_equal(rem, nb);
        for (uint32_t b = 0; b < nb; b++) {
            const size_t i = (size_t)l * job->stride + b;
            assert_true(job->count[i] <= 1);
            assert_int_equal(job->count[i], job->done[i]);
        }
    }
}

/* After a finished job: every block of every launch completed exactly once. */
static inline void assert_once(const rtm_preempt_job_t *job)
{
    assert_int_equal(job->state, RTM_PREEMPT_DONE);
    for (uint32_t l = 0; l < job->launches; l++)
        for (uint32_t b = 0; b < rtm_preempt_blocks(job, l); b++) {
            const size_t i = (size_t)l * job->stride + b;
            if (job->count[i] != 1)
                fprintf(stderr, "launch %u block %u completed %u times\n", l, b, job->count[i]);
            assert_int_equal(job->count[i], 1);
            assert_int_equal(job->done[i], 1);
        }
}

static inline double run_unchecked(fixture_t *f)
{
    const double t0 = now_s();
    assert_int_equal(rtm_preempt_start(&f->job, &f->x), RTM_OK);
    assert_int_equal(rtm_preempt_wait(&f->job), RTM_OK);
    return now_s() - t0;
}

static inline double run_whole(fixture_t *f)
{
    const double t = run_unchecked(f);
    assert_same_result(f);
    assert_once(&f->job);
    return t;
}


#endif
