/* test_kexec.c — a kernel instance on real OpenCL (PoCL here) agrees with its CPU twin,
 * and the completed-block array is all ones after an uninterrupted run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/kexec.h"
#include "tests/ocl_fixture.h"

static void test_matrix_add_on_opencl(void **state)
{
    (void)state;
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);

    rtm_kinst_t gpu, cpu;
    rtm_kinst_init(&gpu, rtm_kernel_find("matrix_add"));
    gpu.size[0] = 300;
    gpu.tune = (rtm_tune_t){64, 4};
    cpu = gpu;
    assert_int_equal(rtm_kinst_plan(&gpu), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(&gpu);
    void *ag = aligned_alloc(64, bytes), *ac = aligned_alloc(64, bytes);
    assert_int_equal(rtm_kinst_bind(&gpu, ag, bytes), bytes);
    assert_int_equal(rtm_kinst_bind(&cpu, ac, bytes), bytes);
    gpu.kernel->fill(&gpu, 11);
    cpu.kernel->fill(&cpu, 11);
    rtm_kinst_run_cpu(&cpu);

    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, &dev, &gpu), RTM_OK);
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    char why[128] = "";
    assert_int_equal(gpu.kernel->compare(&gpu, &cpu, why, sizeof(why)), 0);
    assert_true(t.kernel_s > 0.0);
    assert_true(t.wall_s >= t.kernel_s);

    unsigned char done[4096];
    assert_true(gpu.plan.blocks_max <= sizeof(done));
    assert_int_equal(clEnqueueReadBuffer(dev.exec, x.done, CL_TRUE, 0, gpu.plan.blocks_max, done,
                                         0, NULL, NULL),
                     CL_SUCCESS);
    for (uint32_t b = 0; b < gpu.plan.blocks_max; b++)
        assert_int_equal(done[b], 1);

    rtm_kexec_destroy(&x);
    rtm_ocl_close(&dev);
    free(ag);
    free(ac);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_add_on_opencl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
