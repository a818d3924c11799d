/* test_sort.c — sort (odd-even merge) and radix_sort on OpenCL against their CPU twins
 * and against qsort: random keys with duplicates, sorted, reversed, all equal, sizes
 * that are not powers of two or chunk multiples, size 1; and the float key map. */
#include "kcheck.h"

enum { RANDOM, SORTED, REVERSED, EQUAL, FEW };

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Stable by key: ties keep input order (the value is the input index here). */
static int cmp_key_then_index(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    const uint32_t kx = (uint32_t)(x >> 32), ky = (uint32_t)(y >> 32);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return (uint32_t)x < (uint32_t)y ? -1 : (uint32_t)x > (uint32_t)y;
}

static void pattern(uint64_t *in, uint32_t n, int kind)
{
    for (uint32_t i = 0; i < n && kind != RANDOM; i++) {
        uint32_t key = 0;
        switch (kind) {
        case SORTED: key = i * 7u; break;
        case REVERSED: key = 0xFFFFFFFFu - i * 3u; break;
        case EQUAL: key = 0xFFFFFFFFu; break; /* the padding key itself */
        default: key = (i * 2654435761u) >> 29; break; /* 8 distinct keys */
        }
        in[i] = (uint64_t)key << 32 | i;
    }
}

static void check(const char *name, uint32_t n, int kind, uint32_t wg, uint64_t seed, int stable)
{
    kc_pair_t p;
    const char *keys[] = {"n", NULL};
    const int64_t vals[] = {n};
    kc_setup(&p, name, wg, 1, seed, keys, vals);
    pattern(p.gpu.host[0], n, kind);
    pattern(p.cpu.host[0], n, kind);
    uint64_t *ref = malloc((size_t)n * 8);
    assert_non_null(ref);
    memcpy(ref, p.gpu.host[0], (size_t)n * 8);
    qsort(ref, n, 8, stable ? cmp_key_then_index : cmp_u64);
    kc_run_both(&p);
    const uint64_t *out = p.gpu.host[1];
    size_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        if (out[i] != ref[i] && bad++ == 0)
            fprintf(stderr, "%s n=%u kind %d: pair %u is %016llx, qsort says %016llx\n", name, n, kind,
                    i, (unsigned long long)out[i], (unsigned long long)ref[i]);
    assert_int_equal(bad, 0);
    free(ref);
    kc_free(&p);
}

static void test_merge_sort_patterns(void **state)
{
    (void)state;
    const uint32_t sizes[] = {1, 5, 4096, 4097, 40000};
    for (int kind = RANDOM; kind <= FEW; kind++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            check("sort", sizes[s], kind, 256, 10 + kind, 0);
}

static void test_merge_sort_larger(void **state)
{
    (void)state;
    check("sort", 100000, RANDOM, 128, 3, 0);   /* steps with P not a multiple of 2k */
    check("sort", 1 << 17, REVERSED, 512, 4, 0); /* a power of two */
    check("sort", 9000, FEW, 64, 5, 0);
}

static void test_radix_sort_patterns(void **state)
{
    (void)state;
    const uint32_t sizes[] = {1, 5, 4096, 4097, 40000};
    for (int kind = RANDOM; kind <= FEW; kind++)
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
            check("radix_sort", sizes[s], kind, 256, 20 + kind, 1);
    check("radix_sort", 100000, RANDOM, 128, 30, 1);
    check("radix_sort", 70001, FEW, 1024, 31, 1);
    check("radix_sort", 50000, REVERSED, 512, 32, 1);
}

static void test_radix_sort_low_bits(void **state)
{
    (void)state;
    /* bits: 16 sorts by the low 16 key bits only; keys below 2^16 sort fully. */
    kc_pair_t p;
    const char *keys[] = {"n", "bits", NULL};
    const int64_t vals[] = {30000, 16};
    kc_setup(&p, "radix_sort", 256, 1, 40, keys, vals);
    assert_int_equal(p.gpu.plan.launches, 6);
    for (uint32_t i = 0; i < 30000; i++) {
        const uint64_t x = (uint64_t)((i * 2654435761u) & 0xFFFFu) << 32 | i;
        ((uint64_t *)p.gpu.host[0])[i] = ((uint64_t *)p.cpu.host[0])[i] = x;
    }
    kc_run_both(&p);
    const uint64_t *out = p.gpu.host[1];
    for (uint32_t i = 1; i < 30000; i++)
        assert_true(out[i - 1] < out[i]); /* distinct values: stable = strictly increasing */
    kc_free(&p);
}

static void test_float_keys(void **state)
{
    (void)state;
    const float v[] = {-1e30f, -2.5f, -1e-30f, -0.0f, 0.0f, 1e-30f, 0.5f, 3.0f, 1e30f};
    for (size_t i = 1; i < sizeof(v) / sizeof(v[0]); i++)
        assert_true(rtm_sort_key_float(v[i - 1]) < rtm_sort_key_float(v[i]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_sort_patterns),
        cmocka_unit_test(test_merge_sort_larger),
        cmocka_unit_test(test_radix_sort_patterns),
        cmocka_unit_test(test_radix_sort_low_bits),
        cmocka_unit_test(test_float_keys),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
