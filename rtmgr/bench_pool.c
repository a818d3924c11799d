/* bench_pool.c — `rtmgr bench pool`: what the CPU worker pool costs around a launch, back
 * to back and after it slept, with its workers and on the caller alone.
 *
 * Owns the benchmark's launch shapes, its two pools (the pool under test, of --threads
 * threads, and a pool of one thread: the caller alone, no worker to wake) and its
 * table. Each launch is the pool kernel (poolkern.h): B blocks that spin T us on the
 * clock, so the work is B * T us on any core and what a run takes beyond its share of
 * it is the pool's. Per shape and pool: R runs back to back (after one warm-up) and R
 * runs each after the caller slept --idle-ms, as the running system's periodic jobs find
 * the pool (calibration's cw_idle is the "8n x 5 us" shape's difference). Every run is
 * checked: every block ran exactly once (done[] all set, the pool's count equal to B),
 * else exit 3. --rt runs the pool as `rtmgr run` does where permitted: SCHED_FIFO (os.h
 * RTM_PRIO_POOL for the workers, RTM_PRIO_CPU for the caller, the CPU dispatcher's) and
 * the CPUs held out of deep power states (rtm_os_hold_cpu_latency(0)).
 *
 * Shapes (n = the pool's threads): 1 x 2 us, 2 x 4 us (cpa_tcpa's 256 target slots on
 * the CPU), n x 20 us, 8n x 5 us, n x 200 us; --quick the second and fourth. */
#include "bench.h"
#include "cli.h"
#include "limits.h"
#include "os.h"
#include "pool.h"
#include "poolkern.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS_DEFAULT 100
#define REPS_QUICK 20
#define REPS_MAX 10000

typedef struct {
    uint32_t blocks_per_thread; /* blocks = this * n + blocks_fixed */
    uint32_t blocks_fixed;
    int64_t block_ns;
    bool quick;                 /* in --quick */
} shape_t;

static const shape_t shapes[] = {
    {0, 1, 2000, false},
    {0, 2, 4000, true},
    {1, 0, 20000, false},
    {8, 0, 5000, true},
    {1, 0, 200000, false},
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))
/* the shape whose idle-minus-back-to-back difference is calibration's cw_idle */
#define SHAPE_CW_IDLE 3

typedef struct {
    double p50_us, p99_us;
    double joins; /* worker threads that took part, per launch */
} cell_t;

typedef struct {
    uint32_t threads;
    bool rt;
    int64_t idle_ns;
    int64_t spin_ns; /* of each idle: spun at its end, the workers warmed (rtmgr run's
                      * spin-lead) */
    uint32_t reps;
    bool quick, json;
} opts_t;

static rtm_pool_t pool_n, pool_1;

/* One run of k on p, timed and checked. Returns false on a failed or wrong run. */
static bool run_once(rtm_pool_t *p, const rtm_kinst_t *k, unsigned char *done, double *us)
{
    const uint32_t blocks = k->plan.blocks_max;
    memset(done, 0, blocks);
    rtm_pool_stats_t st;
    uint32_t launch = 0;
    const int64_t t0 = rtm_os_now_ns();
    const rtm_status_t s = rtm_pool_run_job(p, k, &launch, done, NULL, &st);
    *us = (double)(rtm_os_now_ns() - t0) * 1e-3;
    if (s != RTM_OK || launch != 1 || st.blocks_run != blocks) {
        fprintf(stderr, "rtmgr bench pool: a run of %u blocks ended %s with %u blocks run\n",
                blocks, rtm_strerror(s), st.blocks_run);
        return false;
    }
    for (uint32_t b = 0; b < blocks; b++)
        if (done[b] != 1) {
            fprintf(stderr, "rtmgr bench pool: block %u of %u not marked done\n", b, blocks);
            return false;
        }
    return true;
}

/* R runs of k on p, back to back or each after sleeping idle_ns. */
static bool measure(rtm_pool_t *p, const rtm_kinst_t *k, bool idle, const opts_t *o,
                    unsigned char *done, double *t, cell_t *out)
{
    double warm;
    if (!idle && !run_once(p, k, done, &warm))
        return false;
    uint64_t l0, j0, l1, j1;
    rtm_pool_joins(p, &l0, &j0);
    for (uint32_t r = 0; r < o->reps; r++) {
        if (idle)
            rtm_pool_idle_until(p, rtm_os_now_ns() + o->idle_ns, o->spin_ns);
        if (!run_once(p, k, done, &t[r]))
            return false;
    }
    rtm_pool_joins(p, &l1, &j1);
    rtm_stats_sort(t, o->reps);
    out->p50_us = rtm_stats_percentile(t, o->reps, 50.0);
    out->p99_us = rtm_stats_percentile(t, o->reps, 99.0);
    out->joins = l1 > l0 ? (double)(j1 - j0) / (double)(l1 - l0) : 0.0;
    return true;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: rtmgr bench pool [--quick] [--threads N] [--rt] [--idle-ms MS] [--spin-us US]\n"
            "                        [--reps N] [--json]\n"
            "  --threads N    the pool's threads, its caller included (default: online CPUs)\n"
            "  --rt           as rtmgr run where permitted: SCHED_FIFO (workers %d, the\n"
            "                 caller %d) and the CPUs out of deep power states\n"
            "                 (/dev/cpu_dma_latency 0); default: neither\n"
            "  --idle-ms MS   how long the caller sleeps before each \"after idle\" run "
            "(default 20)\n"
            "  --spin-us US   of each idle, the caller spins the last US yielding the CPU and\n"
            "                 wakes the workers to spin as long, as rtmgr run's CPU dispatcher\n"
            "                 ahead of a hard or firm release (--spin-lead; default 0)\n"
            "  --reps N       runs per cell (default %d, --quick %d)\n"
            "  --json         one JSON object per shape, then a summary line\n",
            RTM_PRIO_POOL, RTM_PRIO_CPU, REPS_DEFAULT, REPS_QUICK);
    return RTM_EXIT_USAGE;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    const long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int parse(opts_t *o, int argc, char **argv)
{
    *o = (opts_t){.idle_ns = 20000000};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool has = i + 1 < argc;
        long v = 0;
        if (strcmp(a, "--quick") == 0)
            o->quick = true;
        else if (strcmp(a, "--json") == 0)
            o->json = true;
        else if (strcmp(a, "--threads") == 0 && has && parse_long(argv[++i], 1, RTM_MAX_WORKERS, &v))
            o->threads = (uint32_t)v;
        else if (strcmp(a, "--rt") == 0)
            o->rt = true;
        else if (strcmp(a, "--idle-ms") == 0 && has && parse_long(argv[++i], 0, 10000, &v))
            o->idle_ns = v * 1000000;
        else if (strcmp(a, "--spin-us") == 0 && has && parse_long(argv[++i], 0, 10000, &v))
            o->spin_ns = v * 1000;
        else if (strcmp(a, "--reps") == 0 && has && parse_long(argv[++i], 1, REPS_MAX, &v))
            o->reps = (uint32_t)v;
        else
            return -1;
    }
    if (o->spin_ns > o->idle_ns)
        return -1;
    if (o->reps == 0)
        o->reps = o->quick ? REPS_QUICK : REPS_DEFAULT;
    return 0;
}

static void print_json(const opts_t *o, uint32_t n, uint32_t blocks, const shape_t *s,
                       const cell_t c[4], bool rt)
{
    printf("{\"threads\": %u, \"rt\": %s, \"blocks\": %u, \"block_us\": %.3f, \"idle_ms\": %.3f, "
           "\"spin_us\": %.3f, \"pool_b2b_p50_us\": %.3f, \"pool_b2b_p99_us\": %.3f, "
           "\"pool_idle_p50_us\": %.3f, \"pool_idle_p99_us\": %.3f, \"pool_idle_joins\": %.3f, "
           "\"alone_b2b_p50_us\": %.3f, \"alone_b2b_p99_us\": %.3f, "
           "\"alone_idle_p50_us\": %.3f, \"alone_idle_p99_us\": %.3f}\n",
           n, rt ? "true" : "false", blocks, (double)s->block_ns * 1e-3,
           (double)o->idle_ns * 1e-6, (double)o->spin_ns * 1e-3, c[0].p50_us,
           c[0].p99_us, c[1].p50_us, c[1].p99_us, c[1].joins, c[2].p50_us, c[2].p99_us,
           c[3].p50_us, c[3].p99_us);
}

int rtm_bench_pool(int argc, char **argv)
{
    opts_t o;
    if (parse(&o, argc, argv) != 0)
        return usage();
    const bool held = o.rt && rtm_os_hold_cpu_latency_if_free(0);
    rtm_os_sched_t saved;
    rtm_status_t st = rtm_pool_start_as_run(&pool_n, o.threads, o.rt, &saved);
    if (st == RTM_OK && o.rt && !pool_n.rt_priority)
        fprintf(stderr, "rtmgr bench pool: warning: SCHED_FIFO not permitted here; the pool "
                        "runs under the caller's policy\n");
    if (st == RTM_OK)
        st = rtm_pool_start(&pool_1, 1, 0, NULL);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr bench pool: cannot start the pools: %s\n", rtm_strerror(st));
        rtm_pool_stop_as_run(&pool_n, &saved);
        if (held)
            rtm_os_release_cpu_latency();
        return RTM_EXIT_RUNTIME;
    }
    const uint32_t n = pool_n.n_workers;
    unsigned char *done = malloc((size_t)8 * n + 2);
    double *t = malloc(sizeof(double) * o.reps);
    int rc = done && t ? RTM_EXIT_OK : RTM_EXIT_RUNTIME;
    char spun[64] = "";
    if (o.spin_ns > 0)
        snprintf(spun, sizeof(spun), ", spinning its last %.0f us, workers too",
                 (double)o.spin_ns * 1e-3);
    if (!o.json && rc == RTM_EXIT_OK)
        printf("CPU worker pool: %u threads (the caller and %u worker%s, %s) against the caller "
               "alone;\n%u runs per cell; b2b = back to back, \"after idle\" = each run after the caller slept "
               "%.0f ms%s; microseconds\n\n"
               "%-16s %8s | %-17s | %-23s | %-17s | %-17s | %s\n"
               "%-16s %8s | %8s %8s | %8s %8s %5s | %8s %8s | %8s %8s | %s\n",
               n, n - 1, n == 2 ? "" : "s",
               pool_n.rt_priority ? (held ? "SCHED_FIFO and CPU latency held as rtmgr run"
                                          : "SCHED_FIFO as rtmgr run")
                                  : "SCHED_OTHER",
               o.reps,
               (double)o.idle_ns * 1e-6, spun, "shape", "work", "pool, b2b",
               "pool, after idle", "alone, b2b", "alone, after idle", "after idle",
               "blocks x block", "us", "p50", "p99", "p50", "p99", "joins", "p50", "p99", "p50",
               "p99", "faster");
    double wake_us = 0.0, alone_up_to = 0.0;
    for (size_t i = 0; i < N_SHAPES && rc == RTM_EXIT_OK; i++) {
        const shape_t *s = &shapes[i];
        if (o.quick && !s->quick)
            continue;
        const uint32_t blocks = s->blocks_per_thread * n + s->blocks_fixed;
        rtm_kinst_t k;
        if (rtm_poolkern_make(&k, blocks, 1, s->block_ns) != RTM_OK) {
            rc = RTM_EXIT_RUNTIME;
            break;
        }
        cell_t c[4];
        if (!measure(&pool_n, &k, false, &o, done, t, &c[0]) ||
            !measure(&pool_n, &k, true, &o, done, t, &c[1]) ||
            !measure(&pool_1, &k, false, &o, done, t, &c[2]) ||
            !measure(&pool_1, &k, true, &o, done, t, &c[3])) {
            rc = RTM_EXIT_RUNTIME;
            break;
        }
        const double work_us = (double)blocks * (double)s->block_ns * 1e-3;
        if (i == SHAPE_CW_IDLE)
            wake_us = c[1].p50_us - c[0].p50_us;
        if (c[3].p50_us < c[1].p50_us && work_us > alone_up_to)
            alone_up_to = work_us;
        if (o.json) {
            print_json(&o, n, blocks, s, c, pool_n.rt_priority);
            continue;
        }
        char name[32];
        snprintf(name, sizeof(name), "%u x %.0f us", blocks, (double)s->block_ns * 1e-3);
        printf("%-16s %8.0f | %8.1f %8.1f %8.1f %8.1f %5.2f | %8.1f %8.1f %8.1f %8.1f | %s\n",
               name, work_us, c[0].p50_us, c[0].p99_us, c[1].p50_us, c[1].p99_us, c[1].joins,
               c[2].p50_us, c[2].p99_us, c[3].p50_us, c[3].p99_us,
               c[3].p50_us < c[1].p50_us ? "alone" : "pool");
    }
    if (rc == RTM_EXIT_OK) {
        if (o.json)
            printf("{\"summary\": true, \"threads\": %u, \"idle_ms\": %.3f, \"wake_us\": %.3f, "
                   "\"alone_faster_up_to_us\": %.3f}\n",
                   n, (double)o.idle_ns * 1e-6, wake_us, alone_up_to);
        else
            printf("\nwake-up after idle (%u x 5 us: idle p50 - back-to-back p50, as "
                   "calibration's cw_idle): %.1f us\n"
                   "the caller alone was faster after idle up to %.0f us of work (0: never)\n",
                   8 * n, wake_us, alone_up_to);
    }
    free(t);
    free(done);
    rtm_pool_stop(&pool_1);
    rtm_pool_stop_as_run(&pool_n, &saved);
    if (held)
        rtm_os_release_cpu_latency();
    return rc;
}
