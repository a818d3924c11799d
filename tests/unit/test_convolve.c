/* test_convolve.c — convolve on OpenCL against its CPU twin (bit-exact) and against a
 * plain clamp-to-edge loop, for 3x3 and 5x5, uchar and float frames, several vector
 * widths and work-group sizes, and frames smaller than one tile. */
#include <math.h>

#include "kcheck.h"

/* Plain reference: double accumulation, explicit clamp-to-edge. */
static double ref_pixel(const kc_pair_t *p, int x, int y, int k, int pitch, int w, int h, int is_float)
{
    const float *wt = p->cpu.host[2];
    double acc = 0.0;
    for (int i = 0; i < k; i++) {
        for (int c = 0; c < k; c++) {
            int yy = y + i - k / 2, xx = x + c - k / 2;
            yy = yy < 0 ? 0 : yy >= h ? h - 1 : yy;
            xx = xx < 0 ? 0 : xx >= w ? w - 1 : xx;
            const size_t o = (size_t)yy * pitch + xx;
            const double v = is_float ? ((const float *)p->cpu.host[0])[o]
                                      : ((const unsigned char *)p->cpu.host[0])[o];
            acc += wt[i * k + c] * v;
        }
    }
    return acc;
}

static void check_items(int w, int h, int k, int is_float, uint32_t wg, uint32_t vec,
                        uint32_t items, uint64_t seed)
{
    kc_pair_t p;
    const char *keys[] = {"width", "height", "k", "float", NULL};
    const int64_t vals[] = {w, h, k, is_float};
    kc_setup_items(&p, "convolve", wg, vec, items, seed, keys, vals);
    kc_run_both(&p);
    const int pitch = (w + 15) & ~15;
    size_t bad = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const double r = ref_pixel(&p, x, y, k, pitch, w, h, is_float);
            const size_t o = (size_t)y * pitch + x;
            if (is_float) {
                const double g = ((const float *)p.gpu.host[1])[o];
                bad += fabs(g - r) > 1e-5 * (1.0 + fabs(r));
            } else {
                const double rr = r < 0 ? 0 : r > 255 ? 255 : r;
                const double g = ((const unsigned char *)p.gpu.host[1])[o];
                bad += fabs(g - rr) > 0.5 + 1e-3;
            }
        }
    }
    if (bad)
        fprintf(stderr, "convolve %dx%d k%d float%d wg %u vec %u: %zu pixels off the plain loop\n", w,
                h, k, is_float, wg, vec, bad);
    assert_int_equal(bad, 0);
    kc_free(&p);
}

static void check(int w, int h, int k, int is_float, uint32_t wg, uint32_t vec, uint64_t seed)
{
    check_items(w, h, k, is_float, wg, vec, 0, seed);
}

static void test_convolve_uchar(void **state)
{
    (void)state;
    check(131, 67, 3, 0, 256, 4, 1);
    check(131, 67, 5, 0, 256, 16, 2);
    check(200, 45, 5, 0, 64, 1, 3);
    check(3, 2, 5, 0, 256, 8, 4); /* smaller than the kernel */
}

static void test_convolve_float(void **state)
{
    (void)state;
    check(131, 67, 3, 1, 256, 1, 5);
    check(131, 67, 5, 1, 256, 4, 6);
    check(97, 130, 5, 1, 128, 2, 7);
    check(33, 9, 3, 1, 32, 16, 8);
}

static void test_convolve_camera_frame(void **state)
{
    (void)state;
    check(640, 480, 5, 0, 256, 4, 9);
}

/* Rows per work-item set by rtm_kinst_t.items (the --sweep's RTM_ITEMS for convolve). */
static void test_convolve_rows_per_item(void **state)
{
    (void)state;
    check_items(131, 67, 3, 1, 128, 4, 1, 10);
    check_items(131, 67, 5, 0, 64, 8, 3, 11);
    check_items(97, 70, 3, 1, 256, 2, 16, 12);
    /* a tile that cannot fit local memory is refused by plan */
    rtm_kinst_t k;
    rtm_kinst_init(&k, rtm_kernel_find("convolve"));
    k.size[rtm_kernel_key(k.kernel, "float")] = 1;
    k.tune = (rtm_tune_t){1024, 16};
    k.items = 16;
    assert_int_equal(rtm_kinst_plan(&k), RTM_E_RANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convolve_uchar),
        cmocka_unit_test(test_convolve_float),
        cmocka_unit_test(test_convolve_camera_frame),
        cmocka_unit_test(test_convolve_rows_per_item),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
