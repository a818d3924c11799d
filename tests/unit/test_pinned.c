/* test_pinned.c — pinned host memory on real OpenCL (PoCL here): an instance bound to it
 * runs through kexec and equals its CPU twin; the region is zeroed, writable, and given
 * back cleanly; a bad request is refused without leaving anything behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/kexec.h"
#include "rtmgr/pinned.h"
#include "tests/ocl_fixture.h"

static void test_instance_in_pinned_memory(void **state)
{
    (void)state;
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);

    rtm_kinst_t gpu, cpu;
    rtm_kinst_init(&gpu, rtm_kernel_find("matrix_add"));
    gpu.size[0] = 300;
    cpu = gpu;
    assert_int_equal(rtm_kinst_plan(&gpu), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(&gpu);
    rtm_pinned_t pin;
    assert_int_equal(rtm_pinned_create(&pin, &dev, bytes), RTM_OK);
    assert_non_null(pin.host);
    assert_int_equal(pin.bytes, bytes);
    assert_int_equal((uintptr_t)pin.host % 64, 0);
    const unsigned char *z = pin.host;
    for (size_t i = 0; i < bytes; i += 4093)
        assert_int_equal(z[i], 0);
    void *ac = aligned_alloc(64, bytes);
    assert_int_equal(rtm_kinst_bind(&gpu, pin.host, bytes), bytes);
    assert_int_equal(rtm_kinst_bind(&cpu, ac, bytes), bytes);
    gpu.kernel->fill(&gpu, 5);
    cpu.kernel->fill(&cpu, 5);
    rtm_kinst_run_cpu(&cpu);

    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, &dev, &gpu), RTM_OK);
    for (int r = 0; r < 3; r++) { /* repeated jobs from the same pinned buffers */
        rtm_kexec_timing_t t;
        assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
        assert_true(t.in_s > 0.0 && t.out_s > 0.0);
        char why[128] = "";
        assert_int_equal(gpu.kernel->compare(&gpu, &cpu, why, sizeof(why)), 0);
    }
    rtm_kexec_destroy(&x);
    rtm_pinned_destroy(&pin);
    assert_null(pin.mem);
    assert_null(pin.host);
    rtm_pinned_destroy(&pin); /* twice: harmless */
    free(ac);
    rtm_ocl_close(&dev);
}

static void test_refusals(void **state)
{
    (void)state;
    rtm_pinned_t pin;
    assert_int_equal(rtm_pinned_create(&pin, NULL, 64), RTM_E_ARG);
    assert_null(pin.mem);
    rtm_ocl_dev_t dev;
    assert_int_equal(ocl_open_first(&dev), RTM_OK);
    assert_int_equal(rtm_pinned_create(&pin, &dev, 0), RTM_E_ARG);
    assert_null(pin.host);
    rtm_ocl_close(&dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instance_in_pinned_memory),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
