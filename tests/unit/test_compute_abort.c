/* test_compute_abort.c — the block contract in every compute kernel: with the abort
 * flag raised before a launch no block runs or marks itself done; a resumed launch
 * (block map listing every block, flag down) then completes the job, and the result
 * equals the CPU twin's. Work-group sizes of 32 and 64 catch PoCL's small-group
 * handling of the early return. */
#include <time.h>

#include "kcheck.h"

typedef struct {
    const char *kernel;
    const char *keys[RTM_SIZE_KEYS_MAX + 1];
    int64_t vals[RTM_SIZE_KEYS_MAX];
    uint32_t wg, vec;
} acase_t;

static const acase_t cases[] = {
    {"threshold", {"width", "height", NULL}, {100, 30}, 32, 4},
    {"convolve", {"width", "height", "k", NULL}, {70, 40, 5}, 64, 4},
    {"grid_path", {"width", "height", "passes", NULL}, {70, 40, 8}, 64, 1},
    {"sort", {"n", NULL}, {9000}, 64, 1},
    {"radix_sort", {"n", NULL}, {9000}, 128, 1},
    {"matrix_mov", {"n", NULL}, {40}, 32, 1},
    {"matrix_add3", {"n", NULL}, {40}, 32, 8},
    {"matrix_loop_add", {"n", NULL}, {40}, 64, 1},
    {"matrix_mul", {"n", NULL}, {40}, 64, 1},
    {"empty", {"blocks", NULL}, {3}, 32, 1},
};

/* The completed-block array has one slice per launch (kexec.h). */
static void read_done_of(rtm_kexec_t *x, uint32_t launch, uint32_t n, unsigned char *done)
{
    assert_int_equal(clEnqueueReadBuffer(kc_dev()->exec, x->done, CL_TRUE,
                                         (size_t)launch * x->done_stride, n, done, 0, NULL, NULL),
                     CL_SUCCESS);
}

static void read_done(rtm_kexec_t *x, uint32_t n, unsigned char *done)
{
    read_done_of(x, 0, n, done);
}

static void check(const acase_t *c)
{
    kc_pair_t p;
    kc_setup(&p, c->kernel, c->wg, c->vec, 77, c->keys, c->vals);
    rtm_kinst_run_cpu(&p.cpu);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    const uint32_t nb = p.gpu.plan.blocks_max;
    unsigned char *done = malloc(nb);
    uint32_t *map = malloc(sizeof(uint32_t) * nb);
    assert_non_null(done);
    assert_non_null(map);

    /* Launch 0 with the flag up: nothing runs. */
    assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
    const cl_int one = 1, zero = 0;
    assert_int_equal(clEnqueueWriteBuffer(kc_dev()->exec, x.abort_flag, CL_TRUE, 0, sizeof(one), &one,
                                          0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(rtm_kexec_enqueue(&x, 0, NULL, 0, NULL), RTM_OK);
    read_done(&x, nb, done);
    for (uint32_t b = 0; b < nb; b++)
        assert_int_equal(done[b], 0);

    /* Flag down: launch 0 resumed through the block map (every block, reversed), then
     * the other launches as usual. */
    assert_int_equal(clEnqueueWriteBuffer(kc_dev()->exec, x.abort_flag, CL_TRUE, 0, sizeof(zero), &zero,
                                          0, NULL, NULL),
                     CL_SUCCESS);
    rtm_klaunch_t kl;
    p.gpu.kernel->launch(&p.gpu, 0, &kl);
    for (uint32_t b = 0; b < kl.blocks; b++)
        map[b] = kl.blocks - 1 - b;
    assert_int_equal(rtm_kexec_enqueue(&x, 0, map, kl.blocks, NULL), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    read_done(&x, nb, done);
    for (uint32_t b = 0; b < kl.blocks; b++)
        assert_int_equal(done[b], 1);
    for (uint32_t l = 1; l < p.gpu.plan.launches; l++)
        assert_int_equal(rtm_kexec_enqueue(&x, l, NULL, 0, NULL), RTM_OK);
    assert_int_equal(rtm_kexec_read_outputs(&x, NULL, NULL), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    char why[256] = "";
    const size_t bad = p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why));
    if (bad)
        fprintf(stderr, "%s after abort + resume: %s\n", c->kernel, why);
    assert_int_equal(bad, 0);
    free(done);
    free(map);
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

static void test_abort_then_resume(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check(&cases[i]);
}

/* The flag raised from the control queue while a launch runs (timing decides how many
 * blocks stop, at their start or at an in-loop poll); the blocks not marked done are
 * resumed through the block map; whatever the timing, the result equals the twin's. */
static void abort_midway(kc_pair_t *p)
{
    rtm_kinst_run_cpu(&p->cpu);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p->gpu), RTM_OK);
    const uint32_t nb = p->gpu.plan.blocks_max;
    unsigned char *done = malloc(nb);
    uint32_t *map = malloc(sizeof(uint32_t) * nb);
    assert_non_null(done);
    assert_non_null(map);
    assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
    const cl_int one = 1, zero = 0;
    const unsigned char z = 0;
    for (uint32_t l = 0; l < p->gpu.plan.launches; l++) {
        assert_int_equal(clEnqueueFillBuffer(kc_dev()->exec, x.done, &z, 1,
                                             (size_t)l * x.done_stride, nb, 0, NULL, NULL),
                         CL_SUCCESS);
        assert_int_equal(rtm_kexec_enqueue(&x, l, NULL, 0, NULL), RTM_OK);
        assert_int_equal(clFlush(kc_dev()->exec), CL_SUCCESS);
        const struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        assert_int_equal(clEnqueueWriteBuffer(kc_dev()->ctrl, x.abort_flag, CL_TRUE, 0, sizeof(one),
                                              &one, 0, NULL, NULL),
                         CL_SUCCESS);
        assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
        read_done_of(&x, l, nb, done);
        rtm_klaunch_t kl;
        p->gpu.kernel->launch(&p->gpu, l, &kl);
        uint32_t nm = 0;
        for (uint32_t b = 0; b < kl.blocks; b++)
            if (!done[b])
                map[nm++] = b;
        assert_int_equal(clEnqueueWriteBuffer(kc_dev()->exec, x.abort_flag, CL_TRUE, 0, sizeof(zero),
                                              &zero, 0, NULL, NULL),
                         CL_SUCCESS);
        /* the resumed blocks run to the end before the next launch's abort: a raise
         * while they still ran (all of a launch's blocks stopped at entry, then resumed:
         * longer than the next launch's 20 ms) stopped some of them, and no one resumed
         * those (grid_path: 1 run in 10, a cell left at GP_INF) */
        if (nm) {
            assert_int_equal(rtm_kexec_enqueue(&x, l, map, nm, NULL), RTM_OK);
            assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
            read_done_of(&x, l, nb, done);
            for (uint32_t b = 0; b < kl.blocks; b++)
                assert_int_equal(done[b], 1);
        }
    }
    assert_int_equal(rtm_kexec_read_outputs(&x, NULL, NULL), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    char why[256] = "";
    const size_t bad = p->gpu.kernel->compare(&p->gpu, &p->cpu, why, sizeof(why));
    if (bad)
        fprintf(stderr, "%s after a mid-launch abort: %s\n", p->gpu.kernel->name, why);
    assert_int_equal(bad, 0);
    free(done);
    free(map);
    rtm_kexec_destroy(&x);
}

static void test_abort_midway_grid_path(void **state)
{
    (void)state;
    kc_pair_t p;
    const char *keys[] = {"width", "height", "passes", NULL};
    const int64_t vals[] = {512, 512, 4};
    kc_setup(&p, "grid_path", 256, 1, 5, keys, vals);
    /* Walls with alternating gaps: long in-tile paths, many sweeps per block. */
    for (int g = 0; g < 2; g++) {
        uint8_t *occ = g ? p.cpu.host[2] : p.gpu.host[2];
        uint32_t *field = g ? p.cpu.host[0] : p.gpu.host[0];
        for (int y = 0; y < 512; y++)
            for (int x = 0; x < 512; x++) {
                occ[y * 512 + x] = y % 4 == 1 && x % 32 != (y % 8 == 1 ? 0 : 31);
                field[y * 512 + x] = !occ[y * 512 + x] && x == 0 ? 0 : RTM_GRID_INF;
            }
    }
    abort_midway(&p);
    kc_free(&p);
}

static void test_abort_midway_matrix_mul(void **state)
{
    (void)state;
    kc_pair_t p;
    const char *keys[] = {"n", NULL};
    const int64_t vals[] = {300};
    kc_setup(&p, "matrix_mul", 64, 1, 6, keys, vals);
    abort_midway(&p);
    kc_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abort_then_resume),
        cmocka_unit_test(test_abort_midway_grid_path),
        cmocka_unit_test(test_abort_midway_matrix_mul),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
