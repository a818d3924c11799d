/* test_wake.c — the device wake on real OpenCL (PoCL here): which devices get one (GPUs,
 * not CPU-type devices), a wake built on the device enqueues and runs its empty kernel
 * without touching the device's job queues, and a zeroed or destroyed wake is a no-op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/kexec.h"
#include "rtmgr/wake.h"
#include "tests/ocl_fixture.h"

static void test_wanted(void **state)
{
    (void)state;
    rtm_ocl_info_t info;
    memset(&info, 0, sizeof(info));
    info.type = CL_DEVICE_TYPE_GPU;
    assert_true(rtm_wake_wanted(&info));
    info.host_unified = true; /* an integrated GPU shares the host's memory: no staging */
    assert_false(rtm_wake_wanted(&info));
    info.host_unified = false;
    info.type = CL_DEVICE_TYPE_CPU;
    assert_false(rtm_wake_wanted(&info));
    assert_false(rtm_wake_wanted(NULL));
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);
    if (dev.info.type & CL_DEVICE_TYPE_CPU) /* PoCL: its cores are the host's */
        assert_false(rtm_wake_wanted(&dev.info));
    rtm_ocl_close(&dev);
}

/* Built on any device (the manager asks only for GPUs): kicks run, a job on the device's
 * own queues runs beside them and equals its CPU twin. */
static void test_kick(void **state)
{
    (void)state;
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);
    rtm_wake_t w;
    assert_int_equal(rtm_wake_init(&w, &dev), RTM_OK);
    assert_non_null(w.q);
    assert_non_null(w.k);
    rtm_kinst_t gpu, cpu;
    rtm_kinst_init(&gpu, rtm_kernel_find("matrix_add"));
    gpu.size[0] = 100;
    cpu = gpu;
    assert_int_equal(rtm_kinst_plan(&gpu), RTM_OK);
    assert_int_equal(rtm_kinst_plan(&cpu), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(&gpu);
    void *ag = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    void *ac = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    assert_int_equal(rtm_kinst_bind(&gpu, ag, bytes), bytes);
    assert_int_equal(rtm_kinst_bind(&cpu, ac, bytes), bytes);
    gpu.kernel->fill(&gpu, 9);
    cpu.kernel->fill(&cpu, 9);
    rtm_kinst_run_cpu(&cpu);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, &dev, &gpu), RTM_OK);
    for (int r = 0; r < 5; r++) {
        assert_int_equal(rtm_wake_kick(&w), RTM_OK);
        rtm_kexec_timing_t t;
        assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
        char why[128] = "";
        assert_int_equal(gpu.kernel->compare(&gpu, &cpu, why, sizeof(why)), 0);
    }
    assert_int_equal(clFinish(w.q), CL_SUCCESS); /* every kick ran */
    rtm_kexec_destroy(&x);
    rtm_wake_destroy(&w);
    assert_null(w.q);
    assert_null(w.k);
    assert_int_equal(rtm_wake_kick(&w), RTM_OK); /* destroyed: nothing */
    rtm_wake_destroy(&w);                        /* twice: harmless */
    free(ag);
    free(ac);
    rtm_ocl_close(&dev);
}

static void test_refusals(void **state)
{
    (void)state;
    rtm_wake_t w;
    assert_int_equal(rtm_wake_init(&w, NULL), RTM_E_ARG);
    assert_null(w.k);
    assert_int_equal(rtm_wake_kick(NULL), RTM_OK);
    assert_int_equal(rtm_wake_kick(&w), RTM_OK);
    rtm_wake_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wanted),
        cmocka_unit_test(test_kick),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
