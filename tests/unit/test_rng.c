/* test_rng.c — the generator's sequence (xoshiro256** seeded by splitmix64, against
 * values computed independently from the published algorithms), and the parallel fills:
 * chunk c of rtm_rng_fill is the stream seeded from (seed, c) whatever the threads, so
 * the data depend on seed and n only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/rng.h"

static void test_sequence(void **state)
{
    (void)state;
    rtm_rng_t r;
    rtm_rng_seed(&r, 42);
    assert_true(rtm_rng_next(&r) == 0x15780b2e0c2ec716ull);
    assert_true(rtm_rng_next(&r) == 0x6104d9866d113a7eull);
    assert_true(rtm_rng_next(&r) == 0xae17533239e499a1ull);
    for (int i = 0; i < 1000; i++) {
        const double u = rtm_rng_uniform(&r, -1.0, 1.0);
        assert_true(u >= -1.0 && u < 1.0);
        assert_true(rtm_rng_below(&r, 7) < 7);
    }
}

static void put_chunk(void *ctx, size_t lo, size_t hi, rtm_rng_t *r)
{
    uint64_t *out = ctx;
    for (size_t i = lo; i < hi; i++)
        out[i] = rtm_rng_next(r) ^ (uint64_t)i;
}

/* The fill equals a serial walk of the chunks, each from its own stream; a partial last
 * chunk and a fill of fewer elements than a chunk included. */
static void test_fill_chunks(void **state)
{
    (void)state;
    const size_t sizes[] = {1, RTM_RNG_CHUNK - 1, 3 * RTM_RNG_CHUNK + RTM_RNG_CHUNK / 2};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const size_t n = sizes[s];
        uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
        assert_non_null(a);
        assert_non_null(b);
        rtm_rng_fill(n, 7, put_chunk, a);
        for (size_t c = 0; c * RTM_RNG_CHUNK < n; c++) {
            rtm_rng_t r;
            rtm_rng_seed(&r, 7 ^ (0x9e3779b97f4a7c15ull * (uint64_t)(c + 1)));
            const size_t lo = c * RTM_RNG_CHUNK;
            put_chunk(b, lo, lo + RTM_RNG_CHUNK < n ? lo + RTM_RNG_CHUNK : n, &r);
        }
        assert_memory_equal(a, b, n * sizeof(*a));
        rtm_rng_fill(n, 8, put_chunk, b); /* another seed, other data */
        assert_true(n < 2 || memcmp(a, b, n * sizeof(*a)) != 0);
        free(a);
        free(b);
    }
}

static void test_zero(void **state)
{
    (void)state;
    const size_t n = 2 * RTM_RNG_CHUNK + 12345;
    unsigned char *p = malloc(n);
    assert_non_null(p);
    memset(p, 0xA5, n);
    rtm_rng_zero(p, n - 1);
    for (size_t i = 0; i + 1 < n; i++)
        assert_int_equal(p[i], 0);
    assert_int_equal(p[n - 1], 0xA5);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sequence),
        cmocka_unit_test(test_fill_chunks),
        cmocka_unit_test(test_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
