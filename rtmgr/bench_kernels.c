/* bench_kernels.c — `rtmgr bench kernels`: every kernel of the catalogue at a size
 * sweep, on each OpenCL device and on the CPU worker pool.
 *
 * Per (device, kernel, size): a warm-up run, then repetitions of the whole job
 * (inputs, launches, outputs) with event profiling; median (outliers dropped, stats.h)
 * and p99 (all samples) of the transfer-in, kernel and transfer-out times; effective bandwidth = bytes_dev of the cost
 * descriptor / median kernel time, next to the device's bandwidth measured by the
 * `copy` kernel (vector-width sweep); the CPU twin's time on the pool. Inputs are
 * restored before every repetition (INOUT buffers), so each run computes the same job,
 * and the device's result is checked against the twin's with the kernel's compare().
 * A mismatch or a failed build or run is an error (exit 3); speed never is.
 *
 * Sizes: the sweep table below names small / medium / large sizes per kernel as
 * "key=value,…" (unnamed keys keep their defaults; a key the kernel does not have is
 * an error, so the table cannot drift silently); a kernel missing from the table runs
 * at its default sizes only. Large sizes put >= 256 MB through memory-bound kernels.
 * --quick runs the small sizes. Sizes that do not fit the device (max allocation,
 * global memory) or host memory are skipped with a note.
 *
 * Tuning: each kernel runs at its default tuning, or with --board FILE at the profile's
 * tuning (wg, vec) for the device when the profile has the kernel for a device whose
 * platform and device names match. --sweep (issue 3's tuning search) measures, before
 * the table rows of each memory-bound kernel (sweep_kernels) at the largest size class
 * run, the kernel time alone (inputs written once, launches repeated, event profiling)
 * over vec {1,2,4,8,16 allowed} x wg {64..1024 <= the device's maximum} with the
 * kernel's own items per work-item, then items {1,2,4,8,16} at the best (vec, wg), then
 * wg again at the best (vec, items); prints each grid as GB/s and % of the copy
 * bandwidth and runs the table's row of that class at the best point (checked against
 * the twin as every row). The copy kernel gets the same search in the bandwidth probe
 * and the best copy point is the bandwidth the % columns divide by. --quick sweeps
 * vec {4,16} x wg {64,256}, items {1,4} at the small sizes (a smoke test). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "board.h"
#include "cli.h"
#include "kexec.h"
#include "pool.h"
#include "program.h"
#include "stats.h"

#define REPS_MAX 100
#define N_CLASSES 3

typedef struct {
    const char *kernel;
    const char *sizes[N_CLASSES]; /* small (CI), medium, large (>= 256 MB where it applies) */
} sweep_t;

static const sweep_t sweeps[] = {
    /* seed-000 validation kernels and the bandwidth probe */
    {"matrix_add", {"n=256", "n=2048", "n=8192"}},
    {"matrix_add3", {"n=256", "n=2048", "n=8192"}},
    {"matrix_mov", {"n=128", "n=1000", "n=2000"}},
    {"matrix_loop_add", {"n=128", "n=1000", "n=2000"}},
    {"matrix_mul", {"n=128", "n=1000", "n=2000"}},
    {"empty", {"blocks=1", "blocks=1024", "blocks=65536"}},
    {"copy", {"n=65536", "n=4194304", "n=67108864"}},
    /* navigation */
    {"trajectory", {"targets=64,steps=60", "targets=1024,steps=360", "targets=16384,steps=1440"}},
    {"cpa_tcpa", {"targets=1024", "targets=4096", "targets=16384"}},
    {"cpa_pairs", {"ships=256", "ships=2048", "ships=16384"}},
    {"manoeuvre", {"targets=32,steps=60", "targets=256,steps=360", "targets=2048,steps=720"}},
    {"last_chance", {"targets=32,steps=60", "targets=256,steps=180", "targets=2048,steps=360"}},
    /* vision, route search, sorting */
    {"threshold", {"width=320,height=240", "width=1920,height=1080", "width=16384,height=16384"}},
    {"convolve", {"width=320,height=240", "width=1920,height=1080", "width=8192,height=8192,float=1"}},
    {"grid_path", {"width=64,height=64,passes=8", "width=512,height=512", "width=2048,height=2048"}},
    {"sort", {"n=4096", "n=1048576", "n=16777216"}},
    {"radix_sort", {"n=4096", "n=1048576", "n=67108864"}},
};

static const char *const class_name[N_CLASSES] = {"small", "medium", "large"};

/* Memory-bound kernels --sweep tunes (copy is swept in the bandwidth probe). */
static const char *const sweep_kernels[] = {"matrix_add", "matrix_add3", "threshold", "convolve"};
/* The sweep's values of vec, wg and items; --quick sweeps the short lists (CI). */
typedef struct {
    const uint32_t *v;
    size_t n;
} list_t;
static const uint32_t vecs_full[] = {1, 2, 4, 8, 16}, vecs_quick[] = {4, 16};
static const uint32_t wgs_full[] = {64, 128, 256, 512, 1024}, wgs_quick[] = {64, 256};
static const uint32_t items_full[] = {1, 2, 4, 8, 16}, items_quick[] = {1, 4};
#define LIST(a) ((list_t){(a), sizeof(a) / sizeof((a)[0])})

/* A point of the tuning space. items 0 = the kernel's choice. */
typedef struct {
    rtm_tune_t tune;
    uint32_t items;
} point_t;

typedef struct {
    bool quick, json, no_bw, sweep;
    int device;             /* -1 = every device */
    uint32_t threads;       /* CPU pool (0 = online CPUs) */
    const char *board;      /* --board FILE: threads and per-device tuning */
    const rtm_board_t *profile;       /* loaded --board, or NULL */
    const rtm_board_dev_t *bdev;      /* the profile's entry for the open device, or NULL */
    const char *kernel;     /* NULL = every kernel; else a comma-separated list */
    uint32_t reps;          /* 0 = default */
    char cache[RTM_PATH_MAX];
    rtm_pool_t pool;
    int errors;
    /* Measurements of this device with >= 256 MiB of input, for the bandwidth summary. */
    uint32_t n_big;
    struct {
        char what[96];
        double pct;
    } big[32];
} bench_t;

/* Inputs from this size on count for the bandwidth target. */
#define BIG_INPUT_BYTES (256.0 * 1024.0 * 1024.0)

typedef enum { M_OK, M_SKIPPED, M_MISMATCH, M_FAILED } result_t;
static const char *const result_name[] = {"ok", "skipped", "mismatch", "failed"};

typedef struct {
    result_t result;
    char note[256];
    uint32_t reps;
    rtm_summary_t in, kern, out, wall, cpu;
    rtm_cost_t cost;
    double build_s;
    int from_cache;
    size_t mismatches;
} meas_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rtmgr bench kernels [--quick] [--device N] [--json] [--threads N]\n"
            "                           [--board FILE] [--kernel NAME[,NAME…]] [--reps N]\n"
            "                           [--no-bandwidth] [--sweep]\n\n"
            "  --quick        small sizes only, 3 repetitions (CI)\n"
            "  --device N     only OpenCL device N (rtmgr devices); default every device\n"
            "  --json         one JSON object per measurement instead of the table\n"
            "  --threads N    CPU worker-pool threads for the twins (default: online CPUs)\n"
            "  --board FILE   a board profile: its `threads`, and per device and kernel its\n"
            "                 tuning (wg, vec) instead of the kernel's default\n"
            "  --kernel NAME  only these kernels (comma-separated)\n"
            "  --reps N       repetitions per measurement (default 10, quick 3)\n"
            "  --no-bandwidth skip the copy-kernel bandwidth probe\n"
            "  --sweep        tune the memory-bound kernels (and copy) on each device: vec x wg,\n"
            "                 then items per work-item, at the largest size run; the table's\n"
            "                 row of that size uses the best point (--quick: a short grid)\n"
            "Program binaries are cached in $RTM_CACHE_DIR (default ~/.cache/rtmgr).\n");
}

static void size_string(const rtm_kinst_t *k, char *buf, size_t len)
{
    buf[0] = '\0';
    for (uint32_t i = 0; i < k->kernel->n_keys; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%lld", i ? "," : "",
                 k->kernel->keys[i].name, (long long)k->size[i]);
}

static void *arena_alloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
    if (p)
        memset(p, 0, bytes);
    return p;
}

/* Restores the INOUT buffers of k from the same-layout pristine arena `orig`. */
static void restore_inout(rtm_kinst_t *k, const unsigned char *orig, const unsigned char *base)
{
    for (uint32_t i = 0; orig && i < k->plan.n_bufs; i++)
        if (k->plan.buf[i].dir == RTM_BUF_INOUT)
            memcpy(k->host[i], orig + ((unsigned char *)k->host[i] - base), k->plan.buf[i].bytes);
}

static uint32_t reps_for(const bench_t *b, double one_s)
{
    uint32_t reps = b->reps ? b->reps : b->quick ? 3 : 10;
    const double budget = b->quick ? 2.0 : 20.0;
    if (!b->reps && one_s * reps > budget) {
        const double fit = budget / (one_s > 0 ? one_s : 1e-9);
        reps = fit < 3.0 ? 3 : (uint32_t)fit;
    }
    return reps > REPS_MAX ? REPS_MAX : reps;
}

/* Does the instance fit the device and the host? Writes why not. */
static bool fits(const rtm_kinst_t *k, const rtm_ocl_info_t *info, size_t host_copies,
                 char *why, size_t len)
{
    size_t total = 0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if (k->plan.buf[i].bytes > info->max_alloc) {
            snprintf(why, len, "buffer %u (%zu MiB) exceeds the device's max allocation", i,
                     k->plan.buf[i].bytes >> 20);
            return false;
        }
        total += k->plan.buf[i].bytes;
    }
    if ((double)total > 0.8 * (double)info->global_mem) {
        snprintf(why, len, "%zu MiB exceeds 80%% of device memory", total >> 20);
        return false;
    }
    const double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    const double host = (double)total * (double)host_copies *
                        (info->host_unified ? 1.5 : 1.0); /* device copies in host RAM */
    if (phys > 0 && host > 0.6 * phys) {
        snprintf(why, len, "%zu MiB x %zu host copies exceed 60%% of host memory", total >> 20,
                 host_copies);
        return false;
    }
    return true;
}

/* Measures one planned instance `proto` (sizes and tuning set) on dev and on the pool.
 * cpu_reps = false runs the twin once, as the reference only. */
static void measure(bench_t *b, rtm_ocl_dev_t *dev, const rtm_kinst_t *proto, bool cpu_reps,
                    meas_t *m)
{
    memset(m, 0, sizeof(*m));
    rtm_kinst_t g = *proto, c = *proto;
    rtm_kinst_cost(proto, &m->cost);
    bool inout = false;
    for (uint32_t i = 0; i < proto->plan.n_bufs; i++)
        inout |= proto->plan.buf[i].dir == RTM_BUF_INOUT;
    if (!fits(proto, &dev->info, inout ? 3 : 2, m->note, sizeof(m->note))) {
        m->result = M_SKIPPED;
        return;
    }
    const size_t bytes = rtm_kinst_bytes(proto);
    unsigned char *ag = arena_alloc(bytes), *ac = arena_alloc(bytes);
    unsigned char *orig = inout ? arena_alloc(bytes) : NULL;
    rtm_kexec_t x;
    memset(&x, 0, sizeof(x));
    double in[REPS_MAX], kern[REPS_MAX], out[REPS_MAX], wall[REPS_MAX], cpu[REPS_MAX];
    if (!ag || !ac || (inout && !orig)) {
        m->result = M_SKIPPED;
        snprintf(m->note, sizeof(m->note), "host memory: %zu MiB not available", bytes >> 20);
        goto done;
    }
    rtm_kinst_bind(&g, ag, bytes);
    rtm_kinst_bind(&c, ac, bytes);
    g.kernel->fill(&g, 1);
    memcpy(ac, ag, bytes);
    if (orig)
        memcpy(orig, ag, bytes);

    rtm_status_t st = rtm_kexec_create_cached(&x, dev, &g, b->cache[0] ? b->cache : NULL);
    if (st != RTM_OK) {
        m->result = M_FAILED;
        snprintf(m->note, sizeof(m->note), "program or buffers: %s", rtm_strerror(st));
        goto done;
    }
    m->build_s = x.prog.build_s;
    m->from_cache = x.prog.from_cache;

    rtm_kexec_timing_t t;
    restore_inout(&g, orig, ag);
    st = rtm_kexec_run(&x, &t); /* warm-up */
    m->reps = st == RTM_OK ? reps_for(b, t.wall_s) : 0;
    for (uint32_t r = 0; st == RTM_OK && r < m->reps; r++) {
        restore_inout(&g, orig, ag);
        st = rtm_kexec_run(&x, &t);
        in[r] = t.in_s, kern[r] = t.kernel_s, out[r] = t.out_s, wall[r] = t.wall_s;
    }
    if (st != RTM_OK) {
        m->result = M_FAILED;
        snprintf(m->note, sizeof(m->note), "OpenCL run: %s", rtm_strerror(st));
        goto done;
    }
    rtm_stats_summary(in, m->reps, &m->in);
    rtm_stats_summary(kern, m->reps, &m->kern);
    rtm_stats_summary(out, m->reps, &m->out);
    rtm_stats_summary(wall, m->reps, &m->wall);

    uint32_t cpu_n = 0, launch = 0;
    restore_inout(&c, orig, ac);
    double t0 = rtm_bench_now();
    st = rtm_pool_run_job(&b->pool, &c, &launch, NULL, NULL, NULL); /* warm-up, reference */
    const uint32_t creps = cpu_reps && st == RTM_OK ? reps_for(b, rtm_bench_now() - t0) : 0;
    for (; st == RTM_OK && cpu_n < creps; cpu_n++) {
        restore_inout(&c, orig, ac);
        launch = 0;
        t0 = rtm_bench_now();
        st = rtm_pool_run_job(&b->pool, &c, &launch, NULL, NULL, NULL);
        cpu[cpu_n] = rtm_bench_now() - t0;
    }
    if (st != RTM_OK) {
        m->result = M_FAILED;
        snprintf(m->note, sizeof(m->note), "CPU pool: %s", rtm_strerror(st));
        goto done;
    }
    rtm_stats_summary(cpu, cpu_n, &m->cpu);
    m->mismatches = g.kernel->compare(&g, &c, m->note, sizeof(m->note));
    m->result = m->mismatches ? M_MISMATCH : M_OK;
done:
    rtm_kexec_destroy(&x);
    free(ag);
    free(ac);
    free(orig);
}

static void json_summary(const char *name, const rtm_summary_t *s)
{
    printf(",\"%s\":{\"median\":%.9g,\"p99\":%.9g,\"min\":%.9g,\"max\":%.9g,\"kept\":%zu}",
           name, s->median, s->p99, s->min, s->max, s->kept);
}

static void json_head(const char *type, const rtm_ocl_info_t *info, const rtm_kinst_t *k)
{
    printf("{\"bench\":\"kernels\",\"type\":\"%s\",\"device\":%u,\"device_name\":", type,
           info->index);
    rtm_bench_json_string(stdout, info->name);
    printf(",\"kernel\":\"%s\",\"size\":{", k->kernel->name);
    for (uint32_t i = 0; i < k->kernel->n_keys; i++)
        printf("%s\"%s\":%lld", i ? "," : "", k->kernel->keys[i].name, (long long)k->size[i]);
    printf("},\"tune\":{\"wg\":%u,\"vec\":%u,\"items\":%u}", k->tune.wg, k->tune.vec, k->items);
}

static void json_tail(const meas_t *m)
{
    printf(",\"result\":\"%s\",\"note\":", result_name[m->result]);
    rtm_bench_json_string(stdout, m->note);
    printf("}\n");
}

/* Counts and prints an error for a failed or mismatching measurement. */
static void check(bench_t *b, const rtm_ocl_info_t *info, const rtm_kinst_t *k, const meas_t *m)
{
    if (m->result != M_MISMATCH && m->result != M_FAILED)
        return;
    char size[128];
    size_string(k, size, sizeof(size));
    b->errors++;
    fflush(stdout);
    if (m->result == M_MISMATCH)
        fprintf(stderr, "rtmgr bench: error: %s %s on device %u: %zu elements differ from the "
                        "CPU twin (%s)\n", k->kernel->name, size, info->index, m->mismatches,
                m->note);
    else
        fprintf(stderr, "rtmgr bench: error: %s %s on device %u failed: %s\n", k->kernel->name,
                size, info->index, m->note);
}

/* Is kernel `name` selected by --kernel (a comma-separated list; NULL = every kernel)? */
static bool selected(const char *list, const char *name)
{
    if (!list)
        return true;
    const size_t n = strlen(name);
    for (const char *p = list;;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        if (!e)
            return false;
        p = e + 1;
    }
}

/* The tuning kernel k runs at on `info`: the board profile's for this device when it
 * has one the kernel and the device accept, else the kernel's default (already set). */
static void base_tune(const bench_t *b, const rtm_ocl_info_t *info, rtm_kinst_t *k)
{
    const int ki = rtm_kernel_index(k->kernel);
    if (!b->bdev || ki < 0 || !b->bdev->ktune[ki].have)
        return;
    const rtm_tune_t t = b->bdev->ktune[ki].tune;
    if (t.wg == 0 || t.vec == 0 || !(k->kernel->vec_allowed & (1u << t.vec)) ||
        (info->max_wg && t.wg > info->max_wg))
        return;
    k->tune = t;
}

/* The board profile's device entry for `info` (platform and device names contain the
 * profile's substrings), or NULL. */
static const rtm_board_dev_t *board_dev(const rtm_board_t *bd, const rtm_ocl_info_t *info)
{
    for (uint32_t i = 0; bd && i < bd->n_devs; i++)
        if (strstr(info->platform_name, bd->dev[i].platform) && strstr(info->name, bd->dev[i].device))
            return &bd->dev[i];
    return NULL;
}

static double span_s(cl_event a, cl_event b) { return (double)rtm_ocl_span_ns(a, b) * 1e-9; }

/* Enqueues every launch of x's job (inputs already on the device), waits, and returns
 * the first kernel's start to the last one's end in *s. */
static rtm_status_t kernels_only(rtm_kexec_t *x, double *s)
{
    cl_event first = NULL, last = NULL;
    rtm_status_t st = rtm_kexec_enqueue_all(x, 0, &first, &last);
    const cl_int err = clFinish(x->dev->exec);
    if (st == RTM_OK && err != CL_SUCCESS)
        st = rtm_ocl_fail("clFinish", err, __FILE__, __LINE__);
    *s = st == RTM_OK ? span_s(first, last ? last : first) : 0.0;
    if (first)
        clReleaseEvent(first);
    if (last)
        clReleaseEvent(last);
    return st;
}

enum { PT_OK, PT_REJECTED, PT_FAILED };

/* Kernel time alone of `proto` at point `pt`: builds, writes the inputs from `arena`
 * once, a warm-up and repetitions of the launches; returns bytes_dev / median kernel
 * time (B/s) and *state PT_OK, or 0 with PT_REJECTED (the kernel, the device or the
 * memory does not take the point) or PT_FAILED. No check against the twin (the table
 * row at the best point has it). */
static double sweep_point(bench_t *b, rtm_ocl_dev_t *dev, const rtm_kinst_t *proto, point_t pt,
                          unsigned char *arena, size_t arena_bytes, int *state)
{
    rtm_kinst_t k = *proto;
    k.tune = pt.tune;
    k.items = pt.items;
    *state = PT_REJECTED;
    char why[256];
    if ((dev->info.max_wg && pt.tune.wg > dev->info.max_wg) ||
        !(k.kernel->vec_allowed & (1u << pt.tune.vec)) || rtm_kinst_plan(&k) != RTM_OK ||
        !fits(&k, &dev->info, 2, why, sizeof(why)) || rtm_kinst_bind(&k, arena, arena_bytes) == 0)
        return 0.0;
    rtm_cost_t cost;
    rtm_kinst_cost(&k, &cost);
    rtm_kexec_t x;
    memset(&x, 0, sizeof(x));
    double gbps = 0.0, t = 0.0, ts[REPS_MAX];
    uint32_t reps = 0;
    rtm_status_t st = rtm_kexec_create_cached(&x, dev, &k, b->cache[0] ? b->cache : NULL);
    if (st != RTM_OK) {
        *state = PT_FAILED;
        goto done;
    }
    for (uint32_t e = 0; e < x.prog.n_kern; e++) {
        size_t kwg = 0;
        if (clGetKernelWorkGroupInfo(x.prog.kern[e], dev->info.id, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof(kwg), &kwg, NULL) == CL_SUCCESS && kwg && kwg < pt.tune.wg)
            goto done; /* the compiled kernel cannot run groups this large */
    }
    *state = PT_FAILED;
    st = rtm_kexec_write_inputs(&x, NULL, NULL);
    if (st == RTM_OK)
        st = kernels_only(&x, &t); /* warm-up */
    reps = b->reps ? b->reps : b->quick ? 3 : t > 0 ? (uint32_t)(0.05 / t) : 3;
    reps = reps < 3 ? 3 : reps > 20 ? 20 : reps;
    for (uint32_t r = 0; st == RTM_OK && r < reps; r++)
        st = kernels_only(&x, &ts[r]);
    if (st == RTM_OK) {
        rtm_summary_t sum;
        rtm_stats_summary(ts, reps, &sum);
        if (sum.median > 0) {
            gbps = cost.bytes_dev / sum.median;
            *state = PT_OK;
        }
    }
done:
    rtm_kexec_destroy(&x);
    if (b->json) {
        json_head("sweep", &dev->info, &k);
        printf(",\"items\":%u,\"bandwidth\":%.6g,\"result\":\"%s\"}\n", pt.items, gbps,
               *state == PT_OK ? "ok" : *state == PT_REJECTED ? "rejected" : "failed");
    }
    return gbps;
}

/* One grid cell "GB/s pct%" ("-" when the point is rejected); `label` (a line's
 * items or wg value) prefixes it in the compact form of the one-line sweeps. */
static void sweep_cell(double gbps, int state, double bw_dev, int label)
{
    char pct[16] = "   -";
    if (state == PT_OK && bw_dev > 0)
        snprintf(pct, sizeof(pct), "%3.0f%%", 100.0 * gbps / bw_dev);
    if (label >= 0 && state == PT_OK)
        printf("  %d: %.1f %s", label, gbps * 1e-9, pct + (pct[0] == ' ') + (pct[1] == ' '));
    else if (label >= 0)
        printf("  %d: %s", label, state == PT_REJECTED ? "-" : "failed");
    else if (state == PT_OK)
        printf(" %8.1f %s", gbps * 1e-9, pct);
    else
        printf(" %8s %4s", state == PT_REJECTED ? "-" : "failed", "");
    fflush(stdout);
}

/* --sweep for kernel instance `proto` (sizes set): vec x wg grid at the kernel's own
 * items, then items at the best (vec, wg), then wg at the best (vec, items). Prints the
 * grids (GB/s of bytes_dev and % of bw_dev) and returns the best point's B/s (0 if no
 * point ran) with the point in *best. */
static double sweep(bench_t *b, rtm_ocl_dev_t *dev, const rtm_kinst_t *proto, double bw_dev,
                    point_t *best)
{
    const double t0 = rtm_bench_now();
    const list_t vecs = b->quick ? LIST(vecs_quick) : LIST(vecs_full);
    const list_t wgs = b->quick ? LIST(wgs_quick) : LIST(wgs_full);
    const list_t items = b->quick ? LIST(items_quick) : LIST(items_full);
    /* One host arena for every point: as large as the largest plan, filled once. */
    size_t arena_bytes = 0;
    for (size_t v = 0; v < vecs.n; v++)
        for (size_t w = 0; w < wgs.n; w++)
            for (size_t i = 0; i <= items.n; i++) {
                const uint32_t vec = vecs.v[v];
                rtm_kinst_t k = *proto;
                k.tune = (rtm_tune_t){wgs.v[w], vec};
                k.items = i ? items.v[i - 1] : 0;
                if ((proto->kernel->vec_allowed & (1u << vec)) && rtm_kinst_plan(&k) == RTM_OK &&
                    rtm_kinst_bytes(&k) > arena_bytes)
                    arena_bytes = rtm_kinst_bytes(&k);
            }
    arena_bytes += 64u * RTM_KBUF_MAX;
    unsigned char *arena = arena_alloc(arena_bytes);
    rtm_kinst_t fillk = *proto;
    char size[128];
    size_string(proto, size, sizeof(size));
    if (!arena || rtm_kinst_plan(&fillk) != RTM_OK || !rtm_kinst_bind(&fillk, arena, arena_bytes)) {
        if (!b->json)
            printf("  sweep %s %s: skipped (host memory or plan)\n", proto->kernel->name, size);
        free(arena);
        return 0.0;
    }
    fillk.kernel->fill(&fillk, 1);
    if (!b->json) {
        printf("  sweep %s %s: kernel time alone, GB/s and %% of the copy bandwidth; grid at\n"
               "  the kernel's own items per work-item\n    %-8s",
               proto->kernel->name, size, "");
        for (size_t v = 0; v < vecs.n; v++)
            if (proto->kernel->vec_allowed & (1u << vecs.v[v]))
                printf(" %8s%-5u", "vec", vecs.v[v]);
        printf("\n");
    }
    double best_bw = 0.0;
    int state;
    for (size_t w = 0; w < wgs.n; w++) {
        if (!b->json)
            printf("    wg %4u ", wgs.v[w]);
        for (size_t v = 0; v < vecs.n; v++) {
            if (!(proto->kernel->vec_allowed & (1u << vecs.v[v])))
                continue;
            const point_t pt = {{wgs.v[w], vecs.v[v]}, 0};
            const double g = sweep_point(b, dev, proto, pt, arena, arena_bytes, &state);
            if (state == PT_OK && g > best_bw)
                best_bw = g, *best = pt;
            if (!b->json)
                sweep_cell(g, state, bw_dev, -1);
        }
        if (!b->json)
            printf("\n");
    }
    if (best_bw > 0) {
        const point_t base = *best;
        if (!b->json)
            printf("    items at wg %u vec %u:", base.tune.wg, base.tune.vec);
        for (size_t i = 0; i < items.n; i++) {
            const point_t pt = {base.tune, items.v[i]};
            const double g = sweep_point(b, dev, proto, pt, arena, arena_bytes, &state);
            if (state == PT_OK && g > best_bw)
                best_bw = g, *best = pt;
            if (!b->json)
                sweep_cell(g, state, bw_dev, (int)items.v[i]);
        }
        if (!b->json)
            printf("\n");
        if (best->items) {
            const point_t base2 = *best;
            if (!b->json)
                printf("    wg at vec %u items %u:", base2.tune.vec, base2.items);
            for (size_t w = 0; w < wgs.n; w++) {
                if (wgs.v[w] == base2.tune.wg)
                    continue;
                const point_t pt = {{wgs.v[w], base2.tune.vec}, base2.items};
                const double g = sweep_point(b, dev, proto, pt, arena, arena_bytes, &state);
                if (state == PT_OK && g > best_bw)
                    best_bw = g, *best = pt;
                if (!b->json)
                    sweep_cell(g, state, bw_dev, (int)wgs.v[w]);
            }
            if (!b->json)
                printf("\n");
        }
    }
    if (!b->json) {
        if (best_bw > 0)
            printf("    best: wg %u vec %u items %s%.0u: %.1f GB/s", best->tune.wg,
                   best->tune.vec, best->items ? "" : "auto", best->items, best_bw * 1e-9);
        else
            printf("    no point ran");
        if (best_bw > 0 && bw_dev > 0)
            printf(" (%.0f%% of %.1f GB/s)", 100.0 * best_bw / bw_dev, bw_dev * 1e-9);
        printf("; sweep %.1f s\n", rtm_bench_now() - t0);
        fflush(stdout);
    }
    free(arena);
    return best_bw;
}

/* The copy kernel's bandwidth, per vector width; returns the best in B/s (0 if none). */
static double bandwidth_probe(bench_t *b, rtm_ocl_dev_t *dev)
{
    const rtm_kernel_t *copy = rtm_kernel_find("copy");
    if (!copy)
        return 0.0;
    double best = 0.0;
    uint32_t best_vec = 0;
    if (!b->json)
        printf("  memory bandwidth (copy kernel):");
    for (uint32_t vec = 1; vec <= 16; vec *= 2) {
        if (!(copy->vec_allowed & (1u << vec)))
            continue;
        rtm_kinst_t k;
        rtm_kinst_init(&k, copy);
        k.size[0] = b->quick ? (int64_t)1 << 22 : (int64_t)1 << 26; /* 16 / 256 MiB a buffer */
        k.tune.vec = vec;
        while (k.size[0] > 4096 && (uint64_t)k.size[0] * 4u > dev->info.max_alloc)
            k.size[0] /= 2;
        meas_t m;
        if (rtm_kinst_plan(&k) != RTM_OK)
            continue;
        measure(b, dev, &k, false, &m);
        check(b, &dev->info, &k, &m);
        const double bw = m.result == M_OK && m.kern.median > 0 ? m.cost.bytes_dev / m.kern.median : 0.0;
        if (bw > best)
            best = bw, best_vec = vec;
        if (b->json) {
            json_head("bandwidth", &dev->info, &k);
            printf(",\"reps\":%u,\"bytes_dev\":%.0f", m.reps, m.cost.bytes_dev);
            json_summary("kernel_s", &m.kern);
            printf(",\"bandwidth\":%.6g", bw);
            json_tail(&m);
        } else if (m.result == M_OK) {
            printf(" vec%u %.2f", vec, bw * 1e-9);
        } else {
            printf(" vec%u %s", vec, result_name[m.result]);
        }
        fflush(stdout);
    }
    if (!b->json)
        printf(" GB/s; best %.2f GB/s (vec %u, %.0f MiB per buffer)\n", best * 1e-9, best_vec,
               (b->quick ? 16.0 : 256.0));
    return best;
}

static void table_header(void)
{
    printf("  %-15s %-7s %11s %9s %9s %9s %9s %7s %4s %9s %9s %6s %-8s %s\n", "kernel", "class",
           "wg/vec[/it]", "in ms", "kern ms", "k p99", "out ms", "GB/s", "%bw", "cpu ms", "cpu p99",
           "x cpu", "check", "size");
}

static void table_row(const rtm_kinst_t *k, const char *cls, const meas_t *m, double bw_dev)
{
    char size[128], wv[32];
    size_string(k, size, sizeof(size));
    if (k->items)
        snprintf(wv, sizeof(wv), "%u/%u/%u", k->tune.wg, k->tune.vec, k->items);
    else
        snprintf(wv, sizeof(wv), "%u/%u", k->tune.wg, k->tune.vec);
    printf("  %-15s %-7s %11s", k->kernel->name, cls, wv);
    if (m->result == M_OK || m->result == M_MISMATCH) {
        const double eff = m->cost.bytes_dev > 0 && m->kern.median > 0 ? m->cost.bytes_dev / m->kern.median : 0;
        const double dev_total = m->in.median + m->kern.median + m->out.median;
        printf(" %9.3f %9.3f %9.3f %9.3f", m->in.median * 1e3, m->kern.median * 1e3,
               m->kern.p99 * 1e3, m->out.median * 1e3);
        if (eff > 0)
            printf(" %7.2f", eff * 1e-9);
        else
            printf(" %7s", "-");
        if (eff > 0 && bw_dev > 0)
            printf(" %4.0f", 100.0 * eff / bw_dev);
        else
            printf(" %4s", "-");
        printf(" %9.3f %9.3f %6.2f %-8s %s\n", m->cpu.median * 1e3, m->cpu.p99 * 1e3,
               dev_total > 0 ? m->cpu.median / dev_total : 0.0, result_name[m->result], size);
    } else {
        printf("  %s (%s): %s\n", result_name[m->result], size, m->note);
    }
    fflush(stdout);
}

/* The sizes of kern's largest class this run measures (the table's last row), or its
 * defaults; returns false when the sweep table's entry is unusable. */
static bool last_class(const bench_t *b, const rtm_kernel_t *kern, rtm_kinst_t *k)
{
    rtm_kinst_init(k, kern);
    char why[256];
    for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++)
        if (strcmp(sweeps[i].kernel, kern->name) == 0)
            return rtm_bench_apply_sizes(k, sweeps[i].sizes[b->quick ? 0 : N_CLASSES - 1], why, sizeof(why)) >= 0;
    return true;
}

/* Runs kern's table rows: every size class at the base tuning (base_tune), the last
 * class at `big` when given (the --sweep's best point). */
static void bench_kernel(bench_t *b, rtm_ocl_dev_t *dev, const rtm_kernel_t *kern, double bw_dev,
                         const point_t *big)
{
    const sweep_t *sw = NULL;
    for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++)
        if (strcmp(sweeps[i].kernel, kern->name) == 0)
            sw = &sweeps[i];
    const uint32_t classes = b->quick || !sw ? 1 : N_CLASSES;
    for (uint32_t cls = 0; cls < classes; cls++) {
        rtm_kinst_t k;
        rtm_kinst_init(&k, kern);
        base_tune(b, &dev->info, &k);
        if (big && cls == classes - 1) {
            k.tune = big->tune;
            k.items = big->items;
        }
        meas_t m;
        memset(&m, 0, sizeof(m));
        if (sw && rtm_bench_apply_sizes(&k, sw->sizes[cls], m.note, sizeof(m.note)) < 0) {
            m.result = M_FAILED;
        } else {
            const rtm_status_t st = rtm_kinst_plan(&k);
            if (st != RTM_OK) {
                m.result = M_FAILED;
                snprintf(m.note, sizeof(m.note), "size or tuning rejected by plan: %s",
                         rtm_strerror(st));
            } else {
                measure(b, dev, &k, true, &m);
            }
        }
        const char *cname = sw ? class_name[cls] : "default";
        check(b, &dev->info, &k, &m);
        const double eff = m.cost.bytes_dev > 0 && m.kern.median > 0 ? m.cost.bytes_dev / m.kern.median : 0;
        const double pct = eff > 0 && bw_dev > 0 ? 100.0 * eff / bw_dev : 0.0;
        if (m.result == M_OK && pct > 0 && m.cost.bytes_in >= BIG_INPUT_BYTES &&
            b->n_big < sizeof(b->big) / sizeof(b->big[0])) {
            char size[64];
            size_string(&k, size, sizeof(size));
            snprintf(b->big[b->n_big].what, sizeof(b->big[0].what), "%s %s", kern->name, size);
            b->big[b->n_big++].pct = pct;
        }
        if (b->json) {
            json_head("kernel", &dev->info, &k);
            printf(",\"class\":\"%s\",\"reps\":%u,\"cpu_threads\":%u,\"build_s\":%.6g,"
                   "\"from_cache\":%s", cname, m.reps, b->pool.n_workers, m.build_s,
                   m.from_cache ? "true" : "false");
            json_summary("in_s", &m.in);
            json_summary("kernel_s", &m.kern);
            json_summary("out_s", &m.out);
            json_summary("wall_s", &m.wall);
            json_summary("cpu_s", &m.cpu);
            printf(",\"bytes_in\":%.0f,\"bytes_out\":%.0f,\"bytes_dev\":%.0f,"
                   "\"eff_bandwidth\":%.6g,\"device_bandwidth\":%.6g,\"pct_bandwidth\":%.4g,"
                   "\"mismatches\":%zu",
                   m.cost.bytes_in, m.cost.bytes_out, m.cost.bytes_dev, eff, bw_dev, pct,
                   m.mismatches);
            json_tail(&m);
        } else {
            table_row(&k, cname, &m, bw_dev);
        }
    }
}

static int parse(bench_t *b, int argc, char **argv)
{
    b->device = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const bool has_val = i + 1 < argc;
        char *end = NULL;
        if (strcmp(a, "--quick") == 0) {
            b->quick = true;
        } else if (strcmp(a, "--json") == 0) {
            b->json = true;
        } else if (strcmp(a, "--no-bandwidth") == 0) {
            b->no_bw = true;
        } else if (strcmp(a, "--sweep") == 0) {
            b->sweep = true;
        } else if (strcmp(a, "--device") == 0 && has_val) {
            const long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0 || v >= RTM_MAX_DEVICES)
                return -1;
            b->device = (int)v;
        } else if (strcmp(a, "--threads") == 0 && has_val) {
            const long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > RTM_MAX_WORKERS)
                return -1;
            b->threads = (uint32_t)v;
        } else if (strcmp(a, "--board") == 0 && has_val) {
            b->board = argv[++i];
        } else if (strcmp(a, "--reps") == 0 && has_val) {
            const long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > REPS_MAX)
                return -1;
            b->reps = (uint32_t)v;
        } else if (strcmp(a, "--kernel") == 0 && has_val) {
            b->kernel = argv[++i];
            char list[256];
            snprintf(list, sizeof(list), "%s", b->kernel);
            char *save = NULL;
            for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
                if (!rtm_kernel_find(tok)) {
                    fprintf(stderr, "rtmgr bench kernels: unknown kernel '%s'\n", tok);
                    return -1;
                }
        } else {
            return -1;
        }
    }
    return 0;
}

int rtm_bench_kernels(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return RTM_EXIT_OK;
    }
    static bench_t b; /* the pool inside is large */
    memset(&b, 0, sizeof(b));
    if (parse(&b, argc, argv) != 0) {
        usage(stderr);
        return RTM_EXIT_USAGE;
    }
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    rtm_status_t st = rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr bench kernels: no OpenCL device: %s\n", rtm_strerror(st));
        return RTM_EXIT_RUNTIME;
    }
    if (b.device >= (int)n) {
        fprintf(stderr, "rtmgr bench kernels: no device %d (%u found; see rtmgr devices)\n",
                b.device, n);
        return RTM_EXIT_USAGE;
    }
    if (b.board) {
        static rtm_board_t board;
        rtm_diag_t diag;
        if (rtm_board_load(b.board, &board, &diag) != RTM_OK) {
            char line[1024];
            rtm_diag_format(&diag, line, sizeof(line));
            fprintf(stderr, "%s\n", line);
            return RTM_EXIT_CONFIG;
        }
        b.profile = &board;
        if (!b.threads)
            b.threads = board.threads < RTM_MAX_WORKERS ? board.threads : RTM_MAX_WORKERS;
    }
    if (rtm_program_cache_dir(b.cache, sizeof(b.cache)) != RTM_OK)
        b.cache[0] = '\0';
    st = rtm_pool_start(&b.pool, b.threads, 0, NULL);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr bench kernels: CPU pool: %s\n", rtm_strerror(st));
        return RTM_EXIT_RUNTIME;
    }
    if (!b.json)
        printf("rtmgr bench kernels: %s sizes, CPU twin on %u pool threads, times are "
               "medians over the repetitions after a warm-up\n",
               b.quick ? "small" : "small/medium/large", b.pool.n_workers);
    for (uint32_t d = 0; d < n; d++) {
        if (b.device >= 0 && (uint32_t)b.device != d)
            continue;
        rtm_ocl_dev_t dev;
        st = rtm_ocl_open(&dev, &infos[d]);
        if (st != RTM_OK) {
            fprintf(stderr, "rtmgr bench: error: cannot open device %u: %s\n", d, rtm_strerror(st));
            b.errors++;
            continue;
        }
        b.bdev = board_dev(b.profile, &infos[d]);
        if (!b.json) {
            printf("\ndevice %u: %s (%s)\n", d, infos[d].name, infos[d].platform_name);
            if (b.profile)
                printf("  tuning: %s\n", b.bdev ? "the board profile's where it has the kernel, "
                                                  "else the kernel's default"
                                                : "the kernels' defaults (no device of the board "
                                                  "profile matches)");
        }
        double bw = b.no_bw ? 0.0 : bandwidth_probe(&b, &dev);
        static point_t best[RTM_MAX_KERNELS];
        static bool have_best[RTM_MAX_KERNELS];
        memset(have_best, 0, sizeof(have_best));
        if (b.sweep && !b.no_bw) { /* the copy kernel, same search: the bandwidth reference */
            rtm_kinst_t k;
            rtm_kinst_init(&k, rtm_kernel_find("copy"));
            k.size[0] = b.quick ? (int64_t)1 << 22 : (int64_t)1 << 26;
            while (k.size[0] > 4096 && (uint64_t)k.size[0] * 4u > dev.info.max_alloc)
                k.size[0] /= 2;
            point_t pt;
            const double g = sweep(&b, &dev, &k, bw, &pt);
            const int ki = rtm_kernel_index(k.kernel);
            if (g > 0 && ki >= 0)
                best[ki] = pt, have_best[ki] = true;
            if (g > bw)
                bw = g;
            if (!b.json)
                printf("  bandwidth the %%bw columns divide by: %.2f GB/s (the best copy point)\n",
                       bw * 1e-9);
        }
        for (size_t i = 0; b.sweep && i < sizeof(sweep_kernels) / sizeof(sweep_kernels[0]); i++) {
            const rtm_kernel_t *kern = rtm_kernel_find(sweep_kernels[i]);
            const int ki = kern ? rtm_kernel_index(kern) : -1;
            rtm_kinst_t k;
            if (ki < 0 || !selected(b.kernel, kern->name) || !last_class(&b, kern, &k))
                continue;
            base_tune(&b, &dev.info, &k);
            point_t pt;
            if (sweep(&b, &dev, &k, bw, &pt) > 0)
                best[ki] = pt, have_best[ki] = true;
        }
        if (!b.json)
            table_header();
        for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
            const rtm_kernel_t *kern = rtm_kernel_at(i);
            if (selected(b.kernel, kern->name))
                bench_kernel(&b, &dev, kern, bw, have_best[i] ? &best[i] : NULL);
        }
        if (!b.json && b.n_big) {
            printf("  inputs >= 256 MiB, kernel bandwidth / measured (target for memory-bound "
                   "kernels: >= 70%%):\n");
            for (uint32_t i = 0; i < b.n_big; i++)
                printf("    %-60s %5.0f%%\n", b.big[i].what, b.big[i].pct);
        }
        b.n_big = 0;
        rtm_ocl_close(&dev);
    }
    rtm_pool_stop(&b.pool);
    if (b.errors)
        fprintf(stderr, "rtmgr bench kernels: %d error%s\n", b.errors, b.errors == 1 ? "" : "s");
    return b.errors ? RTM_EXIT_RUNTIME : RTM_EXIT_OK;
}
