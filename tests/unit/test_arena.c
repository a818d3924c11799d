/* test_arena.c — the bump allocator: alignment, exhaustion, seal, reset, peak, plan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/arena.h"

#define SRC RTM_TEST_SOURCE_DIR

static _Alignas(64) unsigned char region[4096];

static void test_bump_and_align(void **state)
{
    (void)state;
    rtm_arena_t a;
    void *p1, *p2, *p3;
    assert_int_equal(rtm_arena_init(&a, region, sizeof(region)), RTM_OK);
    assert_int_equal(rtm_arena_alloc(&a, 1, &p1), RTM_OK);
    assert_int_equal(rtm_arena_alloc(&a, 65, &p2), RTM_OK);
    assert_int_equal(rtm_arena_alloc(&a, 64, &p3), RTM_OK);
    assert_true(((uintptr_t)p1 & 63u) == 0 && ((uintptr_t)p2 & 63u) == 0 &&
                ((uintptr_t)p3 & 63u) == 0);
    assert_ptr_equal((unsigned char *)p2, (unsigned char *)p1 + 64);
    assert_ptr_equal((unsigned char *)p3, (unsigned char *)p2 + 128);
    assert_int_equal(rtm_arena_used(&a), 256);
    assert_int_equal(rtm_arena_peak(&a), 256);
    assert_true(rtm_arena_owns(&a, p3));
    assert_false(rtm_arena_owns(&a, (unsigned char *)p3 + 64));
    memset(p2, 0x11, 65);

    void *big;
    assert_int_equal(rtm_arena_alloc(&a, sizeof(region), &big), RTM_E_NOMEM);
    assert_null(big);
    assert_int_equal(rtm_arena_alloc(&a, 0, &big), RTM_E_ARG);
    assert_int_equal(rtm_arena_alloc(&a, SIZE_MAX, &big), RTM_E_NOMEM);
    assert_int_equal(rtm_arena_alloc(&a, sizeof(region) - 256, &big), RTM_OK); /* exactly full */
    assert_int_equal(rtm_arena_alloc(&a, 1, &big), RTM_E_NOMEM);
    assert_int_equal(rtm_arena_init(&a, region + 1, 100), RTM_E_ARG); /* misaligned */
}

static void test_seal_and_reset(void **state)
{
    (void)state;
    rtm_arena_t a;
    void *p, *q;
    assert_int_equal(rtm_arena_init(&a, region, sizeof(region)), RTM_OK);
    assert_int_equal(rtm_arena_alloc(&a, 1000, &p), RTM_OK);
    memset(p, 0, 1000);
    assert_int_equal(rtm_arena_reset(&a), RTM_OK);
    assert_int_equal(rtm_arena_used(&a), 0);
    assert_int_equal(rtm_arena_peak(&a), 1024); /* peak survives the reset */
    assert_int_equal(rtm_arena_alloc(&a, 100, &q), RTM_OK);
    assert_ptr_equal(p, q);
#ifndef NDEBUG
    for (int i = 0; i < 100; i++) /* debug builds poison on reset */
        assert_int_equal(((unsigned char *)q)[i], RTM_ARENA_POISON);
#endif
    assert_int_equal(rtm_arena_seal(&a), RTM_OK);
    assert_true(rtm_arena_sealed(&a));
    assert_int_equal(rtm_arena_alloc(&a, 1, &q), RTM_E_STATE);
    assert_null(q);
    assert_int_equal(rtm_arena_reset(&a), RTM_E_STATE);
    assert_int_equal(rtm_arena_seal(&a), RTM_OK); /* idempotent */
    rtm_arena_destroy(&a);
    assert_int_equal(rtm_arena_size(&a), 0);
}

static void test_create_mapped(void **state)
{
    (void)state;
    rtm_arena_t a;
    void *p;
    assert_int_equal(rtm_arena_create(&a, 100000), RTM_OK);
    assert_true(rtm_arena_size(&a) >= 100000);
    assert_true(((uintptr_t)a.base & 4095u) == 0);
    assert_int_equal(rtm_arena_alloc(&a, 99999, &p), RTM_OK);
    for (int i = 0; i < 99999; i++) /* a fresh region is zero */
        assert_int_equal(((unsigned char *)p)[i], 0);
    rtm_arena_destroy(&a);
    assert_int_equal(rtm_arena_create(&a, 0), RTM_E_ARG);
}

static void test_plan_from_config(void **state)
{
    (void)state;
    static rtm_config_t cfg;
    rtm_diag_t diag;
    assert_int_equal(rtm_config_load(SRC "/tests/configs/matrix.yaml", &cfg, &diag), RTM_OK);
    uint64_t kernel;
    assert_int_equal(rtm_config_kernel_bytes(&cfg, &kernel), RTM_OK);
    size_t bytes;
    assert_int_equal(rtm_arena_plan(&cfg, 100, &bytes), RTM_OK);
    assert_true(bytes == kernel + 128);
    assert_int_equal(rtm_arena_plan(&cfg, (size_t)cfg.arena_bytes, &bytes), RTM_E_CFG_LIMIT);
    assert_int_equal(rtm_arena_round(1), 64);
    assert_int_equal(rtm_arena_round(64), 64);
    assert_int_equal(rtm_arena_round(0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bump_and_align),
        cmocka_unit_test(test_seal_and_reset),
        cmocka_unit_test(test_create_mapped),
        cmocka_unit_test(test_plan_from_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
