/* test_threshold.c — threshold on OpenCL against its CPU twin and a plain loop, for
 * every allowed vector width, items per work-item, odd frame sizes and every level
 * (the SWAR compare of widths >= 4 against the byte loop). */
#include "kcheck.h"

static void check_items(uint32_t w, uint32_t h, uint32_t level, uint32_t wg, uint32_t vec,
                        uint32_t items, uint64_t seed)
{
    kc_pair_t p;
    const char *keys[] = {"width", "height", "level", NULL};
    const int64_t vals[] = {w, h, level};
    kc_setup_items(&p, "threshold", wg, vec, items, seed, keys, vals);
    kc_run_both(&p);
    const unsigned char *in = p.gpu.host[0], *out = p.gpu.host[1];
    for (size_t i = 0; i < (size_t)w * h; i++)
        assert_int_equal(out[i], in[i] > level ? 255 : 0);
    kc_free(&p);
}

static void check(uint32_t w, uint32_t h, uint32_t level, uint32_t wg, uint32_t vec, uint64_t seed)
{
    check_items(w, h, level, wg, vec, 0, seed);
}

static void test_threshold_vector_widths(void **state)
{
    (void)state;
    for (uint32_t vec = 1; vec <= 16; vec *= 2)
        check(333, 77, 100, 64, vec, 1 + vec);
}

static void test_threshold_frame_and_levels(void **state)
{
    (void)state;
    check(640, 480, 0, 256, 16, 5);
    check(640, 480, 255, 256, 16, 6);
    check(1, 1, 128, 32, 4, 7);
    check(1920, 1080, 128, 128, 8, 8);
}

static void test_threshold_big_frame_items(void **state)
{
    (void)state;
    /* 16 MiB: four vectors per work-item. */
    check(4096, 4097, 77, 256, 16, 9);
}

static void test_threshold_items(void **state)
{
    (void)state;
    for (uint32_t vec = 1; vec <= 16; vec *= 4)
        for (uint32_t items = 1; items <= 16; items *= 2)
            check_items(301, 53, (37 * items) % 256, 32, vec, items, 20 + items);
    check_items(301, 53, 200, 64, 8, 3, 30); /* any count, not only powers of two */
}

/* Every level through the SWAR compare (widths 4, 8, 16) and the byte compare. */
static void test_threshold_every_level(void **state)
{
    (void)state;
    for (uint32_t level = 0; level < 256; level += 15)
        check_items(64, 4, level, 64, level % 2 ? 16 : 4, 1, 40 + level);
    check_items(64, 4, 255, 64, 8, 1, 41);
    check_items(64, 4, 1, 64, 2, 1, 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threshold_vector_widths),
        cmocka_unit_test(test_threshold_frame_and_levels),
        cmocka_unit_test(test_threshold_big_frame_items),
        cmocka_unit_test(test_threshold_items),
        cmocka_unit_test(test_threshold_every_level),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
