/* test_compute_bench.c — throughput of the compute kernels on one OpenCL device, each
 * checked against its CPU twin.
 *
 * Under ctest (no RTM_BENCH) it runs the first configuration of each kernel at a small
 * size on the first device: a smoke test of the benchmark path. With RTM_BENCH=1 it runs the full sizes
 * (256 MiB frames, 2^25 pairs, ...) for the GPU measurements:
 *
 *   RTM_BENCH=1 [RTM_BENCH_DEVICE=H100] [RTM_BENCH_ONLY=sort] [RTM_BENCH_REPS=10] \
 *   [RTM_BENCH_PEAK_GBS=2900] ./build/test_compute_bench
 *
 * RTM_BENCH_DEVICE picks the first device whose name contains it (default: the first
 * GPU, else the first device); RTM_BENCH_ONLY keeps the configurations whose kernel
 * name contains it. Each configuration: one warm-up job, then REPS jobs; the kernel
 * time is the event-profiled span from the first launch's start to the last launch's
 * end (transfers excluded), summarised by rtm_stats (median, min). GB/s is the cost
 * descriptor's bytes_dev over the median kernel time; % peak is against
 * RTM_BENCH_PEAK_GBS. The CPU twin runs on all host cores (blocks of one launch in
 * parallel) and compare() must find no difference. */
#include <pthread.h>
#include <unistd.h>

#include "../unit/kcheck.h"
#include "rtmgr/stats.h"

typedef struct {
    const char *kernel;
    const char *keys[RTM_SIZE_KEYS_MAX + 1];
    int64_t big[RTM_SIZE_KEYS_MAX];   /* RTM_BENCH sizes */
    int64_t small[RTM_SIZE_KEYS_MAX]; /* smoke-test sizes */
    uint32_t wg, vec;
} config_t;

#define FRAME_KEYS {"width", "height", NULL}
#define CONV_KEYS {"width", "height", "k", "float", NULL}
static const config_t configs[] = {
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 256, 1},
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 256, 2},
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 256, 4},
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 256, 8},
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 256, 16},
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 128, 16},
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 512, 16},
    {"threshold", FRAME_KEYS, {16384, 16384}, {640, 480}, 1024, 16},
    {"threshold", FRAME_KEYS, {1920, 1080}, {192, 108}, 256, 16},
    {"threshold", FRAME_KEYS, {3840, 2160}, {384, 216}, 256, 16},
    {"convolve", CONV_KEYS, {16384, 16384, 3, 0}, {333, 200, 3, 0}, 256, 1},
    {"convolve", CONV_KEYS, {16384, 16384, 3, 0}, {333, 200, 3, 0}, 256, 4},
    {"convolve", CONV_KEYS, {16384, 16384, 3, 0}, {333, 200, 3, 0}, 256, 8},
    {"convolve", CONV_KEYS, {16384, 16384, 3, 0}, {333, 200, 3, 0}, 256, 16},
    {"convolve", CONV_KEYS, {16384, 16384, 5, 0}, {333, 200, 5, 0}, 256, 1},
    {"convolve", CONV_KEYS, {16384, 16384, 5, 0}, {333, 200, 5, 0}, 256, 2},
    {"convolve", CONV_KEYS, {16384, 16384, 5, 0}, {333, 200, 5, 0}, 256, 4},
    {"convolve", CONV_KEYS, {16384, 16384, 5, 0}, {333, 200, 5, 0}, 256, 8},
    {"convolve", CONV_KEYS, {16384, 16384, 5, 0}, {333, 200, 5, 0}, 256, 16},
    {"convolve", CONV_KEYS, {16384, 16384, 5, 0}, {333, 200, 5, 0}, 128, 4},
    {"convolve", CONV_KEYS, {16384, 16384, 5, 0}, {333, 200, 5, 0}, 512, 4},
    {"convolve", CONV_KEYS, {8192, 8192, 3, 1}, {333, 200, 3, 1}, 256, 1},
    {"convolve", CONV_KEYS, {8192, 8192, 3, 1}, {333, 200, 3, 1}, 256, 2},
    {"convolve", CONV_KEYS, {8192, 8192, 3, 1}, {333, 200, 3, 1}, 256, 4},
    {"convolve", CONV_KEYS, {8192, 8192, 5, 1}, {333, 200, 5, 1}, 256, 1},
    {"convolve", CONV_KEYS, {8192, 8192, 5, 1}, {333, 200, 5, 1}, 256, 2},
    {"convolve", CONV_KEYS, {8192, 8192, 5, 1}, {333, 200, 5, 1}, 256, 4},
    {"convolve", CONV_KEYS, {3840, 2160, 5, 0}, {384, 216, 5, 0}, 256, 4},
    {"sort", {"n", NULL}, {33554432}, {100000}, 256, 1},
    {"sort", {"n", NULL}, {33554432}, {100000}, 512, 1},
    {"radix_sort", {"n", NULL}, {33554432}, {100000}, 128, 1},
    {"radix_sort", {"n", NULL}, {33554432}, {100000}, 256, 1},
    {"radix_sort", {"n", NULL}, {33554432}, {100000}, 512, 1},
    {"radix_sort", {"n", NULL}, {1048576}, {5000}, 256, 1},
    {"grid_path", {"width", "height", "passes", NULL}, {2048, 2048, 256}, {256, 256, 32}, 256, 1},
    {"grid_path", {"width", "height", "passes", NULL}, {512, 512, 64}, {100, 100, 16}, 256, 1},
    {"matrix_mov", {"n", NULL}, {1000}, {64}, 256, 1},
    {"matrix_add", {"n", NULL}, {8192}, {300}, 256, 4},
    {"matrix_add3", {"n", NULL}, {8192}, {300}, 256, 4},
    {"matrix_loop_add", {"n", NULL}, {2000}, {100}, 256, 1},
    {"matrix_mul", {"n", NULL}, {2000}, {100}, 256, 1},
    {"empty", {"blocks", NULL}, {1}, {1}, 256, 1},
    {"empty", {"blocks", NULL}, {1024}, {4}, 256, 1},
};

/* ---- CPU twin on every host core ---- */
typedef struct {
    const rtm_kinst_t *k;
    uint32_t launch, blocks, first, step;
} twin_job_t;

static void *twin_worker(void *arg)
{
    const twin_job_t *j = arg;
    for (uint32_t b = j->first; b < j->blocks; b += j->step)
        j->k->kernel->cpu_block(j->k, j->launch, b);
    return NULL;
}

static void twin_run_parallel(const rtm_kinst_t *k)
{
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    const uint32_t nt = nc < 1 ? 1u : nc > 64 ? 64u : (uint32_t)nc;
    pthread_t th[64];
    twin_job_t jobs[64];
    for (uint32_t l = 0; l < k->plan.launches; l++) {
        rtm_klaunch_t kl;
        k->kernel->launch(k, l, &kl);
        for (uint32_t t = 0; t < nt; t++) {
            jobs[t] = (twin_job_t){k, l, kl.blocks, t, nt};
            assert_int_equal(pthread_create(&th[t], NULL, twin_worker, &jobs[t]), 0);
        }
        for (uint32_t t = 0; t < nt; t++)
            pthread_join(th[t], NULL);
    }
}

static rtm_ocl_dev_t bench_dev;

static void open_device(void)
{
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    assert_int_equal(rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n), RTM_OK);
    const char *want = getenv("RTM_BENCH_DEVICE");
    uint32_t pick = 0;
    int found = 0;
    for (uint32_t i = 0; i < n && !found; i++) {
        if (want && *want ? strstr(infos[i].name, want) != NULL : (infos[i].type & CL_DEVICE_TYPE_GPU) != 0) {
            pick = i;
            found = 1;
        }
    }
    if (want && *want && !found)
        fail_msg("no OpenCL device name contains '%s'", want);
    assert_int_equal(rtm_ocl_open(&bench_dev, &infos[pick]), RTM_OK);
    printf("device: %s (%s)\n", infos[pick].name, infos[pick].version);
}

static void run_config(const config_t *c, int big, int reps, double peak_gbs)
{
    rtm_kinst_t g, cpu;
    const rtm_kernel_t *kd = rtm_kernel_find(c->kernel);
    assert_non_null(kd);
    rtm_kinst_init(&g, kd);
    char sizes[128] = "";
    size_t sl = 0;
    for (int i = 0; c->keys[i]; i++) {
        const int ki = rtm_kernel_key(kd, c->keys[i]);
        assert_true(ki >= 0);
        g.size[ki] = big ? c->big[i] : c->small[i];
        sl += (size_t)snprintf(sizes + sl, sizeof(sizes) - sl, "%s%s=%lld", i ? "," : "", c->keys[i],
                               (long long)g.size[ki]);
    }
    g.tune = (rtm_tune_t){c->wg, c->vec};
    cpu = g;
    assert_int_equal(rtm_kinst_plan(&g), RTM_OK);
    const size_t bytes = (rtm_kinst_bytes(&g) + 63) & ~(size_t)63;
    void *ag = aligned_alloc(64, bytes + 64), *ac = aligned_alloc(64, bytes + 64);
    assert_non_null(ag);
    assert_non_null(ac);
    assert_int_equal(rtm_kinst_bind(&g, ag, bytes + 64), rtm_kinst_bytes(&g));
    assert_int_equal(rtm_kinst_bind(&cpu, ac, bytes + 64), rtm_kinst_bytes(&g));
    kd->fill(&g, 42);
    kd->fill(&cpu, 42);

    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, &bench_dev, &g), RTM_OK);
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK); /* warm-up */
    double ks[64];
    const int n = reps < 64 ? reps : 64;
    for (int r = 0; r < n; r++) {
        assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
        ks[r] = t.kernel_s;
    }
    rtm_kexec_destroy(&x);
    rtm_summary_t s;
    rtm_stats_summary(ks, (size_t)n, &s);

    twin_run_parallel(&cpu);
    char why[256] = "";
    const size_t bad = kd->compare(&g, &cpu, why, sizeof(why));

    rtm_cost_t cost;
    kd->cost(&g, &cost);
    const double gbs = s.median > 0 ? cost.bytes_dev / s.median * 1e-9 : 0.0;
    printf("%-16s %-34s wg %4u vec %2u launches %4u  median %9.4f ms  min %9.4f ms  %8.1f GB/s  "
           "%5.1f %% peak  %s\n",
           c->kernel, sizes, c->wg, c->vec, g.plan.launches, s.median * 1e3, s.min * 1e3, gbs,
           100.0 * gbs / peak_gbs, bad ? "MISMATCH" : "ok");
    if (bad)
        printf("  first difference: %s\n", why);
    fflush(stdout);
    assert_int_equal(bad, 0);
    free(ag);
    free(ac);
}

static void test_compute_bench(void **state)
{
    (void)state;
    const char *b = getenv("RTM_BENCH");
    const int big = b && *b && strcmp(b, "0") != 0;
    const char *only = getenv("RTM_BENCH_ONLY");
    const char *rs = getenv("RTM_BENCH_REPS"), *pk = getenv("RTM_BENCH_PEAK_GBS");
    const int reps = rs ? atoi(rs) : big ? 10 : 2;
    const double peak = pk ? atof(pk) : 2900.0;
    if (big)
        open_device();
    else
        bench_dev = *kc_dev();
    for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
        if (only && !strstr(configs[i].kernel, only))
            continue;
        /* The smoke test runs each kernel once (its first configuration). */
        if (!big && i > 0 && strcmp(configs[i].kernel, configs[i - 1].kernel) == 0)
            continue;
        run_config(&configs[i], big, reps > 0 ? reps : 1, peak);
    }
    if (big)
        rtm_ocl_close(&bench_dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compute_bench),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
