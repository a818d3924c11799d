/* test_wake.c — the device wake on real OpenCL (PoCL here): which devices get one (GPUs,
 * not CPU-type devices), a wake built on the device enqueues and runs its empty kernel
 * without touching the device's job queues, and a zeroed or destroyed wake is a no-op. */
#include "rtmgr/wake.h"
#include "kcheck.h"

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
    if (kc_dev()->info.type & CL_DEVICE_TYPE_CPU) /* PoCL: its cores are the host's */
        assert_false(rtm_wake_wanted(&kc_dev()->info));
}

/* Built on any device (the manager asks only for GPUs): kicks run, a job on the device's
 * own queues runs beside them and equals its CPU twin. */
static void test_kick(void **state)
{
    (void)state;
    rtm_wake_t w;
    assert_int_equal(rtm_wake_init(&w, kc_dev()), RTM_OK);
    assert_non_null(w.q);
    assert_non_null(w.k);
    static const char *const keys[] = {"n", NULL};
    static const int64_t vals[] = {100};
    kc_pair_t p;
    kc_setup(&p, "matrix_add", 64, 1, 9, keys, vals);
    for (int r = 0; r < 5; r++) {
        assert_int_equal(rtm_wake_kick(&w), RTM_OK);
        kc_run_both(&p);
    }
    assert_int_equal(clFinish(w.q), CL_SUCCESS); /* every kick ran */
    kc_free(&p);
    rtm_wake_destroy(&w);
    assert_null(w.q);
    assert_null(w.k);
    assert_int_equal(rtm_wake_kick(&w), RTM_OK); /* destroyed: nothing */
    rtm_wake_destroy(&w);                        /* twice: harmless */
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
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
