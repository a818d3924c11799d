/* test_matrix.c — the seed-000 calibration and validation kernels (matrix_mov,
 * matrix_add, matrix_add3, matrix_loop_add, matrix_mul, empty) on OpenCL against their
 * CPU twins and against naive loops; matrix_add and matrix_add3 at every vector width. */
#include <math.h>

#include "kcheck.h"

static kc_pair_t run_items(const char *name, int64_t n, uint32_t wg, uint32_t vec, uint32_t items,
                           uint64_t seed)
{
    kc_pair_t p;
    const char *keys[] = {"n", NULL};
    const int64_t vals[] = {n};
    kc_setup_items(&p, name, wg, vec, items, seed, keys, vals);
    kc_run_both(&p);
    return p;
}

static kc_pair_t run(const char *name, int64_t n, uint32_t wg, uint32_t vec, uint64_t seed)
{
    return run_items(name, n, wg, vec, 0, seed);
}

static void test_matrix_add_widths(void **state)
{
    (void)state;
    for (uint32_t vec = 1; vec <= 16; vec *= 2) {
        kc_pair_t p = run("matrix_add", 37, 64, vec, vec);
        const float *a = p.gpu.host[0], *b = p.gpu.host[1], *c = p.gpu.host[2];
        for (int i = 0; i < 37 * 37; i++)
            assert_true(c[i] == a[i] + b[i]);
        kc_free(&p);
        p = run("matrix_add3", 37, 128, vec, vec + 100);
        a = p.gpu.host[0], b = p.gpu.host[1], c = p.gpu.host[2];
        for (int i = 0; i < 37 * 37; i++)
            assert_true(c[i] == a[i] + b[i] + b[i]);
        kc_free(&p);
    }
}

/* Several vectors per work-item (RTM_ITEMS), odd sizes; the copy kernel likewise. */
static void test_matrix_add_items(void **state)
{
    (void)state;
    for (uint32_t items = 1; items <= 16; items *= 2) {
        const uint32_t vec = items <= 2 ? 4 : 16 / items;
        kc_pair_t p = run_items("matrix_add", 53, 32, vec, items, items);
        const float *a = p.gpu.host[0], *b = p.gpu.host[1], *c = p.gpu.host[2];
        for (int i = 0; i < 53 * 53; i++)
            assert_true(c[i] == a[i] + b[i]);
        assert_int_equal(p.gpu.plan.blocks_max, (53 * 53 + 32 * vec * items - 1) / (32 * vec * items));
        kc_free(&p);
        p = run_items("matrix_add3", 53, 64, vec, items, items + 50);
        a = p.gpu.host[0], b = p.gpu.host[1], c = p.gpu.host[2];
        for (int i = 0; i < 53 * 53; i++)
            assert_true(c[i] == a[i] + b[i] + b[i]);
        kc_free(&p);
        kc_pair_t q;
        const char *keys[] = {"n", NULL};
        const int64_t vals[] = {100003};
        kc_setup_items(&q, "copy", 64, vec, items, items + 70, keys, vals);
        kc_run_both(&q);
        assert_memory_equal(q.gpu.host[0], q.gpu.host[1], 100003 * sizeof(uint32_t));
        kc_free(&q);
    }
    /* More than RTM_ITEMS_MAX is refused. */
    rtm_kinst_t k;
    rtm_kinst_init(&k, rtm_kernel_find("matrix_add"));
    k.items = RTM_ITEMS_MAX + 1;
    assert_int_equal(rtm_kinst_plan(&k), RTM_E_RANGE);
}

static void test_matrix_mov(void **state)
{
    (void)state;
    const int n = 67;
    kc_pair_t p = run("matrix_mov", n, 64, 1, 3);
    const float *a = p.gpu.host[0], *c = p.gpu.host[1];
    for (int ty = 0; ty < n; ty++)
        for (int tx = 0; tx < n; tx++)
            assert_true(c[ty * n + tx] == a[ty * n + n - 1]);
    kc_free(&p);
}

static void test_matrix_loop_add_and_mul(void **state)
{
    (void)state;
    const int n = 131;
    kc_pair_t p = run("matrix_loop_add", n, 128, 1, 4);
    const float *a = p.gpu.host[0], *b = p.gpu.host[1], *c = p.gpu.host[2];
    for (int ty = 0; ty < n; ty++)
        for (int tx = 0; tx < n; tx++) {
            float v = 0.0f;
            for (int k = 0; k < n; k++)
                v += a[ty * n + k] + b[k * n + tx];
            assert_true(c[ty * n + tx] == v);
        }
    kc_free(&p);

    p = run("matrix_mul", n, 256, 1, 5);
    a = p.gpu.host[0], b = p.gpu.host[1], c = p.gpu.host[2];
    for (int ty = 0; ty < n; ty++)
        for (int tx = 0; tx < n; tx++) {
            double v = 0.0;
            for (int k = 0; k < n; k++)
                v += (double)a[ty * n + k] * b[k * n + tx];
            assert_true(fabs(c[ty * n + tx] - v) <= 1e-4 * (1.0 + fabs(v)));
        }
    kc_free(&p);
}

static void test_empty(void **state)
{
    (void)state;
    kc_pair_t p;
    const char *keys[] = {"blocks", NULL};
    const int64_t vals[] = {5};
    kc_setup(&p, "empty", 64, 1, 1, keys, vals);
    assert_int_equal(p.gpu.plan.n_bufs, 0);
    assert_int_equal(p.gpu.plan.launches, 1);
    kc_run_both(&p);
    kc_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_add_widths),
        cmocka_unit_test(test_matrix_add_items),
        cmocka_unit_test(test_matrix_mov),
        cmocka_unit_test(test_matrix_loop_add_and_mul),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
