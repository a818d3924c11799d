/* test_kexec.c — a kernel instance on real OpenCL (PoCL here) agrees with its CPU twin,
 * and the completed-block array is all ones after an uninterrupted run; a launch of the
 * job's first blocks (no map: calibration's partial jobs) runs those alone. */
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

static void test_first_blocks_unmapped(void **state)
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
    gpu.kernel->fill(&gpu, 12);
    cpu.kernel->fill(&cpu, 12);
    rtm_kinst_run_cpu(&cpu);
    uint32_t out = 0;
    for (uint32_t i = 0; i < gpu.plan.n_bufs; i++)
        if (gpu.plan.buf[i].dir == RTM_BUF_OUT)
            out = i;

    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, &dev, &gpu), RTM_OK);
    rtm_klaunch_t kl;
    gpu.kernel->launch(&gpu, 0, &kl);
    const uint32_t m = kl.blocks / 3; /* a block: wg * vec = 256 of the 90000 sums */
    assert_true(m > 0);
    assert_int_equal(rtm_kexec_enqueue(&x, 0, NULL, kl.blocks + 1, NULL), RTM_E_RANGE);
    assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
    cl_event ev = NULL;
    assert_int_equal(rtm_kexec_enqueue(&x, 0, NULL, m, &ev), RTM_OK);
    assert_int_equal(rtm_kexec_read_outputs(&x, NULL, NULL), RTM_OK);
    assert_int_equal(clFinish(dev.exec), CL_SUCCESS);
    assert_non_null(ev);
    clReleaseEvent(ev);

    unsigned char done[4096];
    assert_true(gpu.plan.blocks_max <= sizeof(done));
    assert_int_equal(clEnqueueReadBuffer(dev.exec, x.done, CL_TRUE, 0, gpu.plan.blocks_max, done,
                                         0, NULL, NULL),
                     CL_SUCCESS);
    const float *g = gpu.host[out], *c = cpu.host[out];
    const size_t per = (size_t)gpu.tune.wg * gpu.tune.vec;
    for (uint32_t b = 0; b < kl.blocks; b++) {
        assert_int_equal(done[b], b < m ? 1 : 0);
        /* the first blocks' sums as the twin's (the others' are whatever the device
         * buffer held: no block ran there, as done[] says) */
        for (size_t e = b * per; b < m && e < (b + 1) * per && e < 300u * 300u; e += 37)
            assert_true(g[e] == c[e]);
    }
    rtm_kexec_destroy(&x);
    rtm_ocl_close(&dev);
    free(ag);
    free(ac);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_add_on_opencl),
        cmocka_unit_test(test_first_blocks_unmapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
