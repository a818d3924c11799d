/* kcheck.h — test helpers for the compute kernels: one instance run on the first
 * OpenCL device (PoCL here) beside a twin instance run on the CPU, same sizes, tuning
 * and seed. Header-only (static functions) so that each test file stays one program. */
#ifndef RTM_TEST_KCHECK_H
#define RTM_TEST_KCHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernels/kernels.h"
#include "rtmgr/kexec.h"

static rtm_ocl_dev_t kc_device;
static int kc_device_open;

/* The first OpenCL device, opened once per test program. */
static inline rtm_ocl_dev_t *kc_dev(void)
{
    if (!kc_device_open) {
        rtm_ocl_info_t infos[RTM_MAX_DEVICES];
        uint32_t n = 0;
        assert_int_equal(rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n), RTM_OK);
        assert_int_equal(rtm_ocl_open(&kc_device, &infos[0]), RTM_OK);
        kc_device_open = 1;
    }
    return &kc_device;
}

static inline int kc_teardown(void **state)
{
    (void)state;
    if (kc_device_open)
        rtm_ocl_close(&kc_device);
    kc_device_open = 0;
    return 0;
}

typedef struct {
    rtm_kinst_t gpu, cpu;
    void *ag, *ac;
} kc_pair_t;

/* Sets up both instances of kernel `name` with sizes (by key name, NULL-terminated
 * list of name/value pairs), tuning wg/vec and items per work-item (0 = the kernel's
 * choice; rtm_kinst_t.items), and fills both from `seed`. */
static inline void kc_setup_items(kc_pair_t *p, const char *name, uint32_t wg, uint32_t vec,
                                  uint32_t items, uint64_t seed, const char *const *keys,
                                  const int64_t *vals)
{
    const rtm_kernel_t *kd = rtm_kernel_find(name);
    assert_non_null(kd);
    rtm_kinst_init(&p->gpu, kd);
    for (int i = 0; keys && keys[i]; i++) {
        const int ki = rtm_kernel_key(kd, keys[i]);
        assert_true(ki >= 0);
        p->gpu.size[ki] = vals[i];
    }
    p->gpu.tune = (rtm_tune_t){wg, vec};
    p->gpu.items = items;
    p->cpu = p->gpu;
    assert_int_equal(rtm_kinst_plan(&p->gpu), RTM_OK);
    const size_t bytes = (rtm_kinst_bytes(&p->gpu) + 63) & ~(size_t)63;
    p->ag = aligned_alloc(64, bytes + 64);
    p->ac = aligned_alloc(64, bytes + 64);
    assert_non_null(p->ag);
    assert_non_null(p->ac);
    const size_t need = rtm_kinst_bytes(&p->gpu);
    assert_int_equal(rtm_kinst_bind(&p->gpu, p->ag, bytes + 64), need);
    assert_int_equal(rtm_kinst_bind(&p->cpu, p->ac, bytes + 64), need);
    kd->fill(&p->gpu, seed);
    kd->fill(&p->cpu, seed);
}

/* kc_setup_items with the kernel's own items per work-item. */
static inline void kc_setup(kc_pair_t *p, const char *name, uint32_t wg, uint32_t vec, uint64_t seed,
                            const char *const *keys, const int64_t *vals)
{
    kc_setup_items(p, name, wg, vec, 0, seed, keys, vals);
}

/* Runs the GPU instance through kexec (every launch) and checks that every block of
 * the job was marked completed. */
static inline void kc_run_gpu(kc_pair_t *p)
{
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p->gpu), RTM_OK);
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    const uint32_t nb = p->gpu.plan.blocks_max;
    if (nb) {
        /* one slice of x.done_stride bytes per launch (kexec.h) */
        const size_t n = (size_t)x.launches * x.done_stride;
        unsigned char *done = malloc(n);
        assert_non_null(done);
        assert_int_equal(clEnqueueReadBuffer(kc_dev()->exec, x.done, CL_TRUE, 0, n, done, 0,
                                             NULL, NULL),
                         CL_SUCCESS);
        uint32_t undone = 0;
        for (uint32_t l = 0; l < x.launches; l++) {
            rtm_klaunch_t kl;
            p->gpu.kernel->launch(&p->gpu, l, &kl);
            for (uint32_t b = 0; b < kl.blocks; b++)
                undone += done[(size_t)l * x.done_stride + b] != 1;
        }
        if (undone)
            fprintf(stderr, "%s: %u of %u blocks not marked done\n", p->gpu.kernel->name, undone, nb);
        assert_int_equal(undone, 0);
        free(done);
    }
    rtm_kexec_destroy(&x);
}

/* Runs both and asserts that the kernel's compare() finds no difference. */
static inline void kc_run_both(kc_pair_t *p)
{
    rtm_kinst_run_cpu(&p->cpu);
    kc_run_gpu(p);
    char why[256] = "";
    const size_t bad = p->gpu.kernel->compare(&p->gpu, &p->cpu, why, sizeof(why));
    if (bad)
        fprintf(stderr, "%s (wg %u vec %u items %u): %zu differ from the CPU twin, first: %s\n",
                p->gpu.kernel->name, p->gpu.tune.wg, p->gpu.tune.vec, p->gpu.items, bad, why);
    assert_int_equal(bad, 0);
}

static inline void kc_free(kc_pair_t *p)
{
    free(p->ag);
    free(p->ac);
    p->ag = p->ac = NULL;
}

#endif
