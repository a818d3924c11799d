/* bench_preempt.c — `rtmgr bench preempt`: seed
 * 002's measurements on one OpenCL device, verified as they are taken.
 *
 *   1. flag transports: abort response of RTM_ABORT_WRITE and RTM_ABORT_MAPPED
 *      (rtm_preempt_measure); the better one is used below unless --transport says;
 *   part overhead:
 *   3. the in-loop poll period K on the spin kernel: overhead and response per K; the
 *      smallest K within 0.5 % overhead is the production period (unless --poll);
 *   2. overhead vs the original kernel (seed 002 table 3), min of many event-profiled
 *      runs at sizes whose original kernel lasts >= 1 ms, for every kernel: the paper's
 *      per-work-item check, the production work-group entry check, + completed-block
 *      array, + in-loop poll, and the production build (flag copies, persistent groups
 *      only for grids that need them);
 *   part response:
 *   4. abort response (flag raised -> kernel finished, host monotonic clock), p50/p99/max
 *      over aborts at random instants, spin kernels of 1 ms to 1 s on grids of 1 to
 *      65 536 work-groups (seed 002 table 2, and the largest plain grid; 2916 aborts in
 *      the full mode), each grid in kexec's automatic shape;
 *   4b. the executive's shape (rtm_preempt_grid_for_block, rtm_preempt_block_polls) on
 *      65 536 blocks of 5 to 40 us, with production's polls, the other way, and for long
 *      blocks on a plain grid (GPUs);
 *   part poll:
 *   6. each looping kernel's in-loop poll period as calibration chooses it
 *      (rtm_preempt_tune_kernel_poll): overhead vs the build without in-loop polls for
 *      K0 (the largest whose loop steps last at most RTM_PREEMPT_POLL_PERIOD_S), K0/2 and
 *      K0/4 (the cheapest of which calibration keeps), 2K0 and 4K0, each one's response;
 *   part resume:
 *   5. total time of an aborted-and-resumed job vs uninterrupted, GPU->GPU and GPU->CPU,
 *      and completed blocks re-executed (RTM_COUNT_BLOCKS builds: every block must
 *      complete exactly once over abort + resume).
 * --part runs one part (each fits one call on the GPU machine); default all.
 * Every variant's and every resumed result is compared with the uninterrupted one; a
 * difference is an error (exit 3). With --json the last line is one JSON object (and
 * nothing else on stdout); --json-out FILE writes that object to FILE with the tables on
 * stdout.
 * A benchmark tool: allocates freely, not for the real-time path. */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "calibint.h"
#include "os.h"
#include "cli.h"
#include "kernels/kernels.h"
#include "preempt.h"
#include "rng.h"
#include "stats.h"



/* all: the three parts that fit one call on the GPU machine (poll runs on its own) */
enum { PART_OVERHEAD = 1, PART_RESPONSE = 2, PART_RESUME = 4, PART_POLL = 8, PART_ALL = 7 };

typedef struct {
    bool quick, json, sweep, no_sweep; /* no_sweep: --no-sweep, section 3 skipped */
    int device;
    uint32_t poll, lanes, groups, copies;
    bool no_chunk;       /* --no-chunk: production's long grids on persistent groups */
    double idle;         /* --idle: section 2 leaves the device idle this many times a
                          * run's kernel time before it (-1: auto, IDLE_GPU on GPUs) */
    uint32_t wg;    /* --wg: work-items per block of every kernel that takes it (0: its own) */
    bool copies_set;
    bool static_fetch;
    const char *kernels; /* --kernels: comma-separated names (NULL: all) */
    const char *json_out; /* --json-out: the summary's JSON object to this file too */
    const char *cl_extra; /* --cl-opts: build options appended to every variant */
    const char *sizes;    /* --size: KEY=VALUE,... fixed for every kernel sized (NULL: none) */
    int cpu_latency;     /* --cpu-latency: the PM QoS value held (us), -1 = off */
    int prewake_us;      /* --prewake: spin before each raise (us) */
    rtm_preempt_poke_t poke; /* --poke: what the spin does besides */
    uint32_t keepalive_us;   /* --keepalive: a 4-byte write this often through the job */
    int watch;               /* --watch: 1 on, -1 off, 0 auto (kernels of at least
                              * RTM_KEXEC_WATCH_MIN_S, as the executive does) */
    int transport; /* -1: measured */
    int raise;     /* -1: probed */
    int read_late; /* rtm_kexec_opts_t.read_late (--read eager|late|beside; 0 auto) */
    int wait_end;  /* rtm_kexec_opts_t.wait_end (--wait block|poll; 0 auto) */
    unsigned parts; /* PART_* */
} bopts_t;

typedef struct {
    bopts_t o;
    rtm_ocl_dev_t dev;
    rtm_abort_transport_t transport;
    int failures;
    uint64_t reexec;
    double *pool_samples; /* pooled response samples of section 4 */
    double *pool_events;  /* the same aborts' responses by the driver's event (event_s) */
    size_t npool, cap, nmarked;
    double worst_check, worst_full, worst_paper;
    uint32_t poll_k; /* production in-loop poll period: --poll, else the sweep's, else 0 */
    rtm_abort_raise_t raise_mode; /* WRITE: the raise path (section 1's probe, or --raise) */
    uint32_t persist_groups;      /* auto persistent groups (0 = every slot; probe) */
    double part_s[4]; /* seconds each part took */
    double sized_s;   /* bench_size: the original kernel's time at the size it returned */
    rtm_rng_t rng;
    rtm_kinst_t big[RTM_MAX_KERNELS]; /* section 2's size of each kernel (~20 ms) */
    rtm_kexec_opts_t big_pr[RTM_MAX_KERNELS]; /* and its launch shape (exec_shape) */
    bool have_big[RTM_MAX_KERNELS];
    rtm_pool_t pool; /* CPU resumes (all online CPUs); unused when it cannot start */
    bool have_pool;
} bench_t;

typedef struct {
    rtm_kinst_t k;
    void *arena;
} inst_t;

static int fail(bench_t *b, const char *what, const char *kernel, const char *why)
{
    fprintf(stderr, "rtmgr bench preempt: %s: %s%s%s\n", kernel, what, why ? ": " : "",
            why ? why : "");
    b->failures++;
    return -1;
}

/* ---- instances ----------------------------------------------------------------------- */

static int inst_make(inst_t *in, const rtm_kinst_t *proto, uint64_t seed)
{
    in->k = *proto;
    in->arena = NULL;
    if (rtm_kinst_plan(&in->k) != RTM_OK)
        return -1;
    const size_t bytes = rtm_kinst_bytes(&in->k);
    in->arena = aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
    if (!in->arena || rtm_kinst_bind(&in->k, in->arena, bytes) != bytes)
        return -1;
    in->k.kernel->fill(&in->k, seed);
    return 0;
}

static void inst_free(inst_t *in)
{
    free(in->arena);
    in->arena = NULL;
}

static void inst_copy(inst_t *dst, const inst_t *src)
{
    for (uint32_t i = 0; i < src->k.plan.n_bufs; i++)
        memcpy(dst->k.host[i], src->k.host[i], src->k.plan.buf[i].bytes);
}

static bool has_inout(const rtm_kinst_t *k)
{
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        if (k->plan.buf[i].dir == RTM_BUF_INOUT)
            return true;
    return false;
}

/* Compares k's outputs with ref's; a difference is a failure. */
static int verify(bench_t *b, const rtm_kinst_t *k, const rtm_kinst_t *ref, const char *what)
{
    char why[200] = "";
    const size_t bad = k->kernel->compare(k, ref, why, sizeof(why));
    if (bad == 0)
        return 0;
    char msg[260];
    snprintf(msg, sizeof(msg), "%zu elements differ (%s)", bad, why);
    return fail(b, what, k->kernel->name, msg);
}

/* Does a kernel of about kernel_s get the watcher (--watch)? */
static bool watch_for(const bench_t *b, double kernel_s)
{
    return b->o.watch > 0 || (b->o.watch == 0 && rtm_kexec_watch_worth(kernel_s));
}

static rtm_kexec_opts_t prod_opts(const bench_t *b)
{
    rtm_kexec_opts_t o = {0};
    o.transport = b->transport;
    o.transport_set = true;
    o.poll_every = b->poll_k;
    o.poll_lanes = b->o.lanes;
    o.cl_extra = b->o.cl_extra;
    o.groups = b->o.groups;
    o.static_fetch = b->o.static_fetch;
    o.raise_mode = b->raise_mode;
    o.raise_set = true;
    o.persist_groups = b->persist_groups;
    o.read_late = b->o.read_late;
    o.wait_end = b->o.wait_end;
    /* copies of the flag: 0 = kexec's default for the device and kernel, as the
     * executive's jobs run */
    o.flag_copies = b->o.copies_set ? b->o.copies : 0u;
    return o;
}

/* The flag copies a job with options o reads, for the tables: o's, else kexec's default
 * for a kernel without RTM_KF_ONE_FLAG. */
static uint32_t copies_of(const bench_t *b, const rtm_kexec_opts_t *o)
{
    return o->flag_copies ? o->flag_copies : rtm_kexec_default_copies(&b->dev.info, NULL);
}

static const char *size_text(const rtm_kinst_t *k, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < k->kernel->n_keys && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%lld", i ? " " : "", k->kernel->keys[i].name,
                              (long long)k->size[i]);
    return buf;
}

/* One profiled run of a whole job on a fresh executor of opts; kernel seconds. */
static int time_once(bench_t *b, inst_t *in, const rtm_kexec_opts_t *o, double *kernel_s)
{
    rtm_kexec_t x;
    if (rtm_kexec_create_ex(&x, &b->dev, &in->k, o) != RTM_OK)
        return fail(b, "cannot build or allocate", in->k.kernel->name, NULL);
    rtm_kexec_timing_t t;
    rtm_status_t st = rtm_kexec_run(&x, &t); /* warm-up */
    if (st == RTM_OK) {
        in->k.kernel->fill(&in->k, 1);
        st = rtm_kexec_run(&x, &t);
    }
    rtm_kexec_destroy(&x);
    if (st != RTM_OK)
        return fail(b, "run failed", in->k.kernel->name, rtm_strerror(st));
    *kernel_s = t.kernel_s;
    return 0;
}

/* Sizes a kernel so that the original kernel runs `target` to 4 * `target` seconds
 * (spin: its work per element; others: their first size key, doubled or halved from the
 * default), within a memory budget; at --wg's work-group size where the kernel plans
 * with it (the original and every variant alike). */
static int bench_size(bench_t *b, const rtm_kernel_t *kernel, double target, rtm_kinst_t *out)
{
    rtm_kinst_init(out, kernel);
    if (b->o.wg) {
        out->tune.wg = b->o.wg;
        if (rtm_kinst_plan(out) != RTM_OK)
            out->tune = kernel->tune_default;
    }
    const bool spin = strcmp(kernel->name, "spin") == 0;
    if (spin) {
        out->size[0] = b->o.quick ? 256 : 4096;
        out->size[1] = 64;
    }
    const int key = spin ? 1 : 0;
    /* --size: those keys as given; the sizing key named among them, no sizing (one run
     * for the original's time) */
    bool fixed = false;
    if (b->o.sizes) {
        char why[160];
        const int set = rtm_bench_apply_sizes(out, b->o.sizes, why, sizeof(why));
        if (set < 0)
            return fail(b, why, kernel->name, NULL);
        fixed = (set >> key) & 1;
    }
    const uint64_t budget = b->dev.info.global_mem / 12;
    const rtm_kexec_opts_t orig = {.variant = RTM_KEXEC_ORIGINAL, .groups = RTM_KEXEC_GROUPS_ALL};
    int dir = 0; /* +1 growing, -1 shrinking: never both */
    for (int step = 0; step < 24; step++) {
        inst_t in;
        if (inst_make(&in, out, 1) != 0) {
            inst_free(&in);
            return fail(b, "cannot plan or allocate", kernel->name, NULL);
        }
        double t = 0.0;
        const int r = time_once(b, &in, &orig, &t);
        inst_free(&in);
        if (r != 0)
            return r;
        rtm_kinst_t next = *out;
        b->sized_s = t; /* every return below keeps *out, which ran in t */
        if (fixed || (t >= target && t <= 4.0 * target))
            return 0;
        if (t > 4.0 * target) { /* too long: halve, unless growing already */
            if (dir > 0 || next.size[key] / 2 < kernel->keys[key].min)
                return 0;
            dir = -1;
            next.size[key] /= 2;
            if (rtm_kinst_plan(&next) != RTM_OK)
                return 0;
            *out = next;
            continue;
        }
        if (dir < 0)
            return 0;
        dir = 1;
        double grow = spin ? 1.1 * target / (t > 1e-7 ? t : 1e-7) : 2.0;
        if (grow < 1.5)
            grow = 1.5;
        double v = (double)next.size[key] * grow;
        if (v > (double)kernel->keys[key].max)
            v = (double)kernel->keys[key].max;
        next.size[key] = (int64_t)v;
        if (next.size[key] == out->size[key] || rtm_kinst_plan(&next) != RTM_OK ||
            rtm_kinst_bytes(&next) > budget)
            return 0;
        for (uint32_t i = 0; i < next.plan.n_bufs; i++)
            if (next.plan.buf[i].bytes > b->dev.info.max_alloc)
                return 0;
        *out = next;
    }
    return 0;
}

/* ---- 2. overhead ----------------------------------------------------------------------- */

/* orig: the kernel alone; paper: seed 002's per-work-item entry check; check: the
 * production entry check (one load per work-group, through local memory); done: + the
 * completed-block array; poll: + in-loop polls (plain grid); prod: the production build
 * (flag copies, persistent groups where the grid needs them: rtm_kexec_opts_t) */
enum { V_ORIG, V_PAPER, V_CHECK, V_DONE, V_PERSIST, V_POLL, V_PROD, V_COUNT };
static const char *const vname[V_COUNT] = {"original", "paper check", "check", "+done[]",
                                           "+persist", "+poll", "production"};

/* Section 2's idle time before each run on GPUs, in the variant's last kernel times
 * (--idle; CPU devices: none): the H100 at 700 W held its SM clock at 1 980 MHz for the
 * first 2-3 back-to-back runs of matrix_mul at n = 4 000 (28 ms each), then its power cap
 * brought it down to 1 305-1 800 MHz and the runs to 31-40 ms (nvidia-smi's
 * clocks_event_reasons 0x4, SW power cap; session 65 calls d-e, board/h100/results/
 * powercap-s65-h100.txt). A variant's minimum then told which variant happened to run
 * before the cap, not what it cost: 8 kexecs of one build ranged 27.6-33.0 ms. Idle for
 * 3 kernel times before each run (at most a third of the time busy), every run kept the
 * full clock (27.2-27.9 ms). */
#define IDLE_GPU 3.0
#define IDLE_MAX_S 0.5

/* Section 2's idle factor (--idle, else by the device's type). */
static double idle_factor(const bench_t *b)
{
    return b->o.idle >= 0.0 ? b->o.idle
           : (b->dev.info.type & CL_DEVICE_TYPE_CPU) ? 0.0
                                                     : IDLE_GPU;
}

/* The idle time before a run whose variant's last kernel took last_s (0: none yet). */
static double idle_s(const bench_t *b, double last_s)
{
    const double t = idle_factor(b) * last_s;
    return t < IDLE_MAX_S ? t : IDLE_MAX_S;
}

/* overhead_one's *groups for a production build in chunks: this bit | blocks per chunk */
#define CHUNKED 0x80000000u

/* Min kernel time of each variant over `runs` interleaved runs; verifies every variant;
 * *groups: production's work-groups where persistent, CHUNKED | its chunk where in
 * chunks, else 0 (a plain grid). */
static int overhead_one(bench_t *b, const rtm_kinst_t *proto, const rtm_kexec_opts_t *prod,
                        int runs, double best[V_COUNT], uint32_t *groups)
{
    rtm_kexec_opts_t o[V_COUNT];
    for (int v = 0; v < V_COUNT; v++) { /* plain grids, but production's own shape */
        o[v] = *prod;
        o[v].groups = RTM_KEXEC_GROUPS_ALL;
        o[v].chunk = 0;
    }
    o[V_POLL].no_poll = false; /* the poll's cost, even where production leaves it out */
    o[V_ORIG].variant = RTM_KEXEC_ORIGINAL;
    o[V_PAPER].variant = RTM_KEXEC_CHECK;
    o[V_CHECK].variant = RTM_KEXEC_WG_CHECK;
    o[V_DONE].variant = RTM_KEXEC_FEEDBACK;
    o[V_PROD] = *prod;
    o[V_PERSIST] = *prod; /* persistent groups wherever the grid's size alone would have
                           * them (whatever the block time), no in-loop polls: the
                           * persistent loop's own cost (= +done[] for smaller grids) */
    o[V_PERSIST].no_poll = true;
    o[V_PERSIST].groups = b->o.groups;
    o[V_PERSIST].chunk = 0;
    inst_t in, ref;
    int r = inst_make(&in, proto, 1) | inst_make(&ref, proto, 1);
    rtm_kexec_t x[V_COUNT];
    memset(x, 0, sizeof(x));
    for (int v = 0; r == 0 && v < V_COUNT; v++)
        if (rtm_kexec_create_ex(&x[v], &b->dev, &in.k, &o[v]) != RTM_OK)
            r = fail(b, "cannot build variant", proto->kernel->name, vname[v]);
    if (r == 0)
        *groups = x[V_PROD].persist ? rtm_kexec_groups(&x[V_PROD], in.k.plan.blocks_max)
                  : x[V_PROD].chunk ? CHUNKED | x[V_PROD].chunk
                                    : 0;
    const bool refill = has_inout(&in.k);
    double last[V_COUNT] = {0};
    for (int v = 0; v < V_COUNT; v++)
        best[v] = 1e30;
    for (int i = 0; r == 0 && i <= runs; i++) {
        for (int v = 0; r == 0 && v < V_COUNT; v++) {
            if (refill)
                in.k.kernel->fill(&in.k, 1);
            const double idle = idle_s(b, last[v]);
            if (idle > 0.0)
                rtm_os_sleep_until_s(rtm_os_now_s() + idle);
            rtm_kexec_timing_t t;
            const rtm_status_t st = rtm_kexec_run(&x[v], &t);
            if (st != RTM_OK) {
                r = fail(b, "run failed", proto->kernel->name, rtm_strerror(st));
                break;
            }
            last[v] = t.kernel_s;
            if (i == 0 && v == V_ORIG) {
                inst_copy(&ref, &in);
                rtm_kexec_set_watch(&x[V_PROD], watch_for(b, t.kernel_s));
            } else if (i == 0) {
                r = verify(b, &in.k, &ref.k, vname[v]);
            } else if (t.kernel_s < best[v]) { /* run 0 is the warm-up */
                best[v] = t.kernel_s;
            }
        }
    }
    for (int v = 0; v < V_COUNT; v++)
        rtm_kexec_destroy(&x[v]);
    inst_free(&in);
    inst_free(&ref);
    return r;
}

/* Memory-bound kernels: section 2 runs them with coarse blocks (rtm_kinst_t.items), the
 * same in the original and in every variant, so that the per-block costs (entry check,
 * barrier, done[] mark) are shared by >= COARSE_ELEMS elements and the grid is small
 * enough to drain without persistent groups. */
#define COARSE_ELEMS 4096u
/* Coarse grids up to this many blocks run plain (one work-group per block): an aborted
 * grid's empty blocks drain at about 0.6 ns each on the H100 (the empty kernel: 1 M
 * blocks in 0.64 ms), 40 us for the whole grid, 20 us for the half left on average. */
#define COARSE_PLAIN_MAX 65536u
static bool mem_bound(const rtm_kernel_t *k)
{
    static const char *const names[] = {"matrix_add", "matrix_add3", "threshold", "copy",
                                        "convolve"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(names[i], k->name) == 0)
            return true;
    return false;
}

/* Sets k->items (power of two) so that a block covers >= COARSE_ELEMS elements (at
 * items = 1 a block covers wg * vec), never finer than the kernel's own choice; re-plans
 * k. Returns the items set (0: the kernel's own choice kept). */
static uint32_t coarse_items(rtm_kinst_t *k)
{
    rtm_kinst_t t = *k;
    t.items = 0;
    if (rtm_kinst_plan(&t) != RTM_OK)
        return 0;
    const uint32_t b0 = t.plan.blocks_max;
    t.items = 1;
    if (rtm_kinst_plan(&t) != RTM_OK)
        return 0;
    const double elems = (double)t.plan.blocks_max * k->tune.wg * k->tune.vec;
    for (uint32_t it = 1; it <= RTM_ITEMS_MAX; it *= 2) {
        t.items = it;
        if (rtm_kinst_plan(&t) != RTM_OK)
            break;
        if (elems / (t.plan.blocks_max ? t.plan.blocks_max : 1) < COARSE_ELEMS &&
            it < RTM_ITEMS_MAX)
            continue;
        if (t.plan.blocks_max >= b0) /* the kernel's own choice is as coarse */
            break;
        *k = t;
        return it;
    }
    (void)rtm_kinst_plan(k);
    return 0;
}

/* The waves of k's blocks the device runs, summed over its launches (slots: resident
 * work-groups, GPUs 2048 work-items per unit, CPU devices one group per unit); *items
 * (may be NULL): its work-items. */
static double block_waves(const bench_t *b, const rtm_kinst_t *k, double *items)
{
    const uint32_t units = b->dev.info.units ? b->dev.info.units : 1, wg = k->tune.wg ? k->tune.wg : 1;
    const double slots = (b->dev.info.type & CL_DEVICE_TYPE_CPU)
                             ? units
                             : (double)units * (wg < 2048 ? 2048 / wg : 1);
    double waves = 0.0, n = 0.0;
    for (uint32_t l = 0; l < k->plan.launches; l++) {
        rtm_klaunch_t kl = {0, 0};
        k->kernel->launch(k, l, &kl);
        waves += kl.blocks ? (double)(uint32_t)((kl.blocks + slots - 1) / slots) : 0.0;
        n += (double)kl.blocks * wg;
    }
    if (items)
        *items = n;
    return waves;
}

/* A block's duration from the original kernel's time t: t over its waves (block_waves).
 * *steps: loop steps per work-item (cost li over work-items). */
static double block_time(const bench_t *b, const rtm_kinst_t *k, double t, double *steps)
{
    const uint32_t wg = k->tune.wg ? k->tune.wg : 1;
    double items = 0.0;
    const double waves = block_waves(b, k, &items);
    rtm_cost_t c;
    rtm_kinst_cost(k, &c);
    *steps = items > 0 && c.li > items ? c.li / items : 1.0;
    /* CPU devices run a group's work-items one after another (in vectors): a work-item's
     * loop step then takes the group's step time over wg; fold that into *steps */
    if (b->dev.info.type & CL_DEVICE_TYPE_CPU)
        *steps *= wg;
    return waves > 0 ? t / waves : t;
}

/* Production's in-loop poll period for proto (original kernel time t, loop step
 * step_s): for the kernels calibration searches, the cheapest of its candidates at this
 * size, as calibration chooses (rtm_preempt_tune_kernel_poll); else K0. */
static uint32_t prod_poll_k(bench_t *b, const rtm_kinst_t *proto, const rtm_kexec_opts_t *pr,
                            double t, double step_s)
{
    const uint32_t k0 = rtm_preempt_poll_k(step_s);
    if (!rtm_preempt_loop_polls(proto->kernel))
        return k0;
    rtm_preempt_kpoll_t kp;
    const rtm_status_t st =
        rtm_preempt_tune_kernel_poll(&b->dev, pr, NULL, proto->kernel, proto->tune, proto->size, t,
                                     false, b->o.quick ? 3 : 7, 0, rtm_os_now_s() + 60.0, &kp);
    if (st != RTM_OK || kp.poll_every == 0) {
        fail(b, "poll period calibration failed", proto->kernel->name,
             st != RTM_OK ? rtm_strerror(st) : "out of time");
        return k0;
    }
    if (!b->o.json) {
        char tried[200];
        printf("%-12s poll period candidates: %s (step %.3g ns)\n", proto->kernel->name,
               rtm_preempt_kpoll_text(&kp, tried, sizeof(tried)), kp.step_s * 1e9);
    }
    return kp.poll_every;
}

/* The executive's launch shape for proto, whose original kernel lasts t: production's
 * options, coarse blocks for memory-bound kernels (*items when asked, 0 = the kernel's
 * own), the long-block store (--groups sets the groups either way), in-loop polls only
 * where a block (*blk_s when asked: t over its waves) outlasts RTM_PREEMPT_POLL_BLOCK_S,
 * at the period calibration would choose (tune) or K0 (the largest whose steps stay
 * within the poll period; per-step time: the block's time over its loop steps). */
static rtm_kexec_opts_t exec_shape(bench_t *b, rtm_kinst_t *proto, double t, bool tune,
                                   uint32_t *items, double *blk_s)
{
    rtm_kexec_opts_t pr = prod_opts(b);
    const uint32_t it = mem_bound(proto->kernel) ? coarse_items(proto) : 0;
    if (it)
        pr.persist_min_blocks = COARSE_PLAIN_MAX + 1u;
    double steps = 1.0;
    const double bs = block_time(b, proto, t, &steps);
    rtm_preempt_grid_for_block(bs, &pr);
    if (!b->o.no_chunk) /* chunks (kexec.h) where they would last long enough */
        rtm_preempt_chunk_for(proto, t, &pr);
    if (!b->o.poll) /* the launch shape set: the periods are compared on it */
        pr.poll_every = tune ? prod_poll_k(b, proto, &pr, t, bs / steps)
                             : rtm_preempt_poll_k(bs / steps);
    pr.no_poll = !rtm_preempt_block_polls(bs);
    if (items)
        *items = it;
    if (blk_s)
        *blk_s = bs;
    return pr;
}

static void section_overhead(bench_t *b)
{
    /* min of many runs at sizes whose original kernel lasts >= 1 ms (quick: 1-4 ms,
     * full: 10-40 ms): the minimum removes the launch jitter that a mean would keep */
    const int runs = b->o.quick ? 10 : 30;
    const double target = b->o.quick ? 1e-3 : 10e-3;
    const rtm_kexec_opts_t prod = prod_opts(b);
    if (!b->o.json)
        printf("\n2. overhead vs the original kernel (min of %d event-profiled runs, each after "
               "the device idled %g times its last kernel time, at most %g ms (--idle); in-loop "
               "poll period per kernel (K; sweep's %u), %u flag copies, 1 for one-flag kernels)\n"
               "%-12s %-30s %9s %15s %15s %15s %15s %15s %15s %7s %5s %7s %5s %6s\n",
               runs, idle_factor(b), IDLE_MAX_S * 1e3,
               prod.poll_every ? prod.poll_every : RTM_KEXEC_POLL_DEFAULT,
               copies_of(b, &prod), "kernel", "size", "orig ms", "paper check %", "check %",
               "+done[] %", "+persist %", "+poll %", "production %", "persist", "items",
               "blk us", "polls", "K");
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        const rtm_kernel_t *kernel = rtm_kernel_at(i);
        rtm_kinst_t proto;
        if (!rtm_calib_wanted(b->o.kernels, kernel->name) ||
            bench_size(b, kernel, target, &proto) != 0)
            continue;
        const double t_orig = b->sized_s;
        uint32_t items;
        double blk_s;
        const rtm_kexec_opts_t pr = exec_shape(b, &proto, t_orig, true, &items, &blk_s);
        const bool polls = !pr.no_poll;
        b->big_pr[i] = pr;
        double best[V_COUNT];
        uint32_t groups = 0;
        if (overhead_one(b, &proto, &pr, runs, best, &groups) != 0)
            continue;
        b->big[i] = proto;
        b->have_big[i] = true;
        double pct[V_COUNT];
        for (int v = 0; v < V_COUNT; v++)
            pct[v] = 100.0 * (best[v] / best[V_ORIG] - 1.0);
        /* the summary's worst cases leave out kernels too short for a percentage to mean
         * much (the empty kernel; anything that stays under 1 ms at its largest size) */
        rtm_kinst_t planned = proto;
        const bool counts = best[V_ORIG] >= 1e-3 &&
                            rtm_kinst_plan(&planned) == RTM_OK &&
                            rtm_kinst_bytes(&planned) > 0; /* the empty kernel */
        if (counts && pct[V_CHECK] > b->worst_check)
            b->worst_check = pct[V_CHECK];
        if (counts && pct[V_PROD] > b->worst_full)
            b->worst_full = pct[V_PROD];
        if (counts && pct[V_PAPER] > b->worst_paper)
            b->worst_paper = pct[V_PAPER];
        if (!b->o.json) {
            char sz[128], gs[16] = "plain";
            if (groups & CHUNKED)
                snprintf(gs, sizeof(gs), "c%u", groups & ~CHUNKED);
            else if (groups)
                snprintf(gs, sizeof(gs), "%u", groups);
            printf("%-12s %-30.30s %9.3f", kernel->name, size_text(&proto, sz, sizeof(sz)),
                   best[V_ORIG] * 1e3);
            for (int v = V_PAPER; v < V_COUNT; v++)
                printf(" %7.3f (%5.2f)", best[v] * 1e3, pct[v]);
            char is[12] = "-";
            if (items)
                snprintf(is, sizeof(is), "%u", items);
            printf(" %7s %5s %7.1f %5s %6u%s\n", gs, is, blk_s * 1e6, polls ? "yes" : "no",
                   pr.poll_every, counts ? "" : "  *");
        }
    }
    if (!b->o.json)
        printf("(columns: ms (overhead %%); paper check: seed 002's per-work-item entry check; "
               "check: the production entry check, one flag load per work-group shared through "
               "local memory; +done[]: + completed-block array; +persist: + persistent groups wherever "
               "the grid has %u blocks or more, whatever its block time (no in-loop polls); "
               "+poll: + in-loop polls (plain grid); "
               "production: the build jobs run (flag copies, persistent groups only for grids "
               "of %u blocks or more, storing each fetched block id at once where blocks "
               "last over %.0f us: 'persist' = groups, 'cN' = chunks of N, "
               "'plain' = one per block); * = under "
               "1 ms or without buffers, left out of the summary's worst case; items: "
               "memory-bound kernels run with coarse blocks of >= %u elements (rtm_kinst_t.items, "
               "the same in the original and every variant; '-' = the kernel's own), plain up "
               "to %u blocks; blk us: a block's time, the original over its waves; polls: "
               "production polls in loops only where a block outlasts %.0f us ('+poll' shows "
               "the poll's cost either way); K: in-loop poll period, the largest whose steps last at most %.0f us)\n",
               RTM_KEXEC_PERSIST_MIN_BLOCKS, RTM_KEXEC_PERSIST_MIN_BLOCKS,
               RTM_PREEMPT_LONG_BLOCK_S * 1e6, COARSE_ELEMS, COARSE_PLAIN_MAX,
               RTM_PREEMPT_POLL_BLOCK_S * 1e6, RTM_PREEMPT_POLL_PERIOD_S * 1e6);
    if (!b->o.json && b->o.wg)
        printf("(every kernel that takes it ran work-groups of %u work-items, --wg; the "
               "original too)\n", b->o.wg);
}

/* ---- 4. response ------------------------------------------------------------------------ */

typedef struct {
    uint32_t n, missed, marked;
    double p50, p99, max, kernel_s;
    double ev_p50, ev_p99; /* the same aborts by the driver's event (event_s) */
    /* p50 of the breakdown (rtm_preempt_stop_t; -1: not known) */
    double call, landed, xfer, drain, notice;
    double stop; /* p50 of stop_s: raise -> kernel ended, the device's stamp on the host clock */
    uint32_t stop_n; /* aborts whose stop_s is known */
    /* over the aborts with both an end mark and stop_s: response_s - stop_s (the mark's
     * PCIe write and the host's poll; negative: the carry put the end after the host saw
     * it), p50 and min; NAN: none */
    double mk_stop, mk_stop_min;
    /* p50 over the missed aborts (rtm_preempt_stop_t; -1: not known): host: the start
     * call, start -> raise; device, from the kernel's start: its end, flag queued/ended */
    double m_start, m_raise, m_kernel, m_queued, m_end;
} resp_t;

/* Percentile pct of one field over the n stops (the known ones), -1 if none. */
static double stop_pct(const rtm_preempt_stop_t *s, uint32_t n, size_t off, double pct)
{
    double v[1000];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < 1000; i++) {
        double d;
        memcpy(&d, (const char *)&s[i] + off, sizeof(d));
        if (d >= 0.0 || off == offsetof(rtm_preempt_stop_t, dev_drain_s))
            v[m++] = d;
    }
    if (m == 0)
        return -1.0;
    rtm_stats_sort(v, m);
    return rtm_stats_percentile(v, m, pct);
}

static double stop_p50(const rtm_preempt_stop_t *s, uint32_t n, size_t off)
{
    return stop_pct(s, n, off, 50);
}

static void stop_summary(const rtm_preempt_stop_t *s, uint32_t n, resp_t *r)
{
    r->call = stop_p50(s, n, offsetof(rtm_preempt_stop_t, raise_call_s));
    r->landed = stop_p50(s, n, offsetof(rtm_preempt_stop_t, landed_s));
    r->xfer = stop_p50(s, n, offsetof(rtm_preempt_stop_t, dev_xfer_s));
    r->drain = n ? stop_p50(s, n, offsetof(rtm_preempt_stop_t, dev_drain_s)) : -1.0;
    r->notice = stop_p50(s, n, offsetof(rtm_preempt_stop_t, notice_s));
    r->stop = stop_p50(s, n, offsetof(rtm_preempt_stop_t, stop_s));
    double d[1000];
    uint32_t m = 0;
    r->stop_n = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (s[i].stop_s < 0.0)
            continue;
        r->stop_n++;
        if (s[i].marked && m < 1000)
            d[m++] = s[i].response_s - s[i].stop_s;
    }
    rtm_stats_sort(d, m);
    r->mk_stop = m ? rtm_stats_percentile(d, m, 50) : NAN;
    r->mk_stop_min = m ? d[0] : NAN;
    r->ev_p50 = stop_p50(s, n, offsetof(rtm_preempt_stop_t, event_s));
    r->ev_p99 = stop_pct(s, n, offsetof(rtm_preempt_stop_t, event_s), 99);
    r->marked = 0;
    for (uint32_t i = 0; i < n; i++)
        r->marked += s[i].marked;
}

/* p50 of one field over the missed aborts' records s[0..n) (every value: they may be
 * negative), NAN when the stamps are unknown (no profiling; the raise's: no transfer). */
static double missed_p50(const rtm_preempt_stop_t *s, uint32_t n, size_t off)
{
    double v[64];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < 64; i++) {
        double d;
        memcpy(&d, (const char *)&s[i] + off, sizeof(d));
        const bool raise_stamp = off == offsetof(rtm_preempt_stop_t, dev_raise_queued_s) ||
                                 off == offsetof(rtm_preempt_stop_t, dev_raise_end_s);
        if (off == offsetof(rtm_preempt_stop_t, start_call_s) ||
            off == offsetof(rtm_preempt_stop_t, raise_at_s) ||
            (s[i].dev_kernel_s >= 0.0 && (!raise_stamp || s[i].dev_xfer_s >= 0.0)))
            v[m++] = d;
    }
    if (m == 0)
        return NAN;
    rtm_stats_sort(v, m);
    return rtm_stats_percentile(v, m, 50);
}

/* "12.3" in us, or "-" for NAN. */
static const char *num_text(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f", v * 1e6);
    return buf;
}

static void missed_summary(const rtm_preempt_stop_t *s, uint32_t n, resp_t *r)
{
    r->m_start = missed_p50(s, n, offsetof(rtm_preempt_stop_t, start_call_s));
    r->m_raise = missed_p50(s, n, offsetof(rtm_preempt_stop_t, raise_at_s));
    r->m_kernel = missed_p50(s, n, offsetof(rtm_preempt_stop_t, dev_kernel_s));
    r->m_queued = missed_p50(s, n, offsetof(rtm_preempt_stop_t, dev_raise_queued_s));
    r->m_end = missed_p50(s, n, offsetof(rtm_preempt_stop_t, dev_raise_end_s));
}

/* One line under a row with missed aborts: where the raise fell against the kernel. */
static void print_missed(const bench_t *b, const resp_t *r)
{
    if (b->o.json || r->missed == 0)
        return;
    char k[16], q[16], e[16];
    printf("    missed p50 us: start call %.1f, start -> raise %.1f | device, from kernel start: "
           "kernel end %s, flag queued %s, flag landed %s%s\n",
           r->m_start * 1e6, r->m_raise * 1e6, num_text(r->m_kernel, k, sizeof(k)),
           num_text(r->m_queued, q, sizeof(q)), num_text(r->m_end, e, sizeof(e)),
           isnan(r->m_kernel)          ? " (no device stamps)"
           : isnan(r->m_queued)        ? (r->m_raise > r->m_start + r->m_kernel
                                              ? " (raised after start call + kernel length)"
                                              : "")
           : r->m_queued > r->m_kernel ? " (raised after the kernel's end)"
           : r->m_end > r->m_kernel    ? " (flag landed after the kernel's end)"
                                       : " (flag landed in the kernel: not seen)");
}

/* "   12.3" or "      -" for an unknown (negative) duration in us; drain may be < 0. */
static const char *us_text(double v, bool signed_ok, char *buf, size_t len)
{
    if (v < 0.0 && !signed_ok)
        snprintf(buf, len, "%7s", "-");
    else
        snprintf(buf, len, "%7.1f", v * 1e6);
    return buf;
}

/* Sets spin's work so that its kernel lasts about `len` seconds on x; false if even the
 * least work is longer. */
static bool calibrate_len(bench_t *b, inst_t *in, rtm_kexec_t *x, double len, double *kernel_s)
{
    rtm_kinst_t *k = &in->k;
    k->size[1] = 64;
    for (int pass = 0; pass < 6; pass++) {
        rtm_kexec_timing_t t;
        if (rtm_kexec_run(x, &t) != RTM_OK) {
            fail(b, "calibration run failed", "spin", NULL);
            return false;
        }
        *kernel_s = t.kernel_s;
        if (t.kernel_s > 0.9 * len && t.kernel_s < 1.1 * len)
            return true;
        if (k->size[1] == 1 && t.kernel_s > len)
            return false;
        double w = (double)k->size[1] * len / (t.kernel_s > 1e-7 ? t.kernel_s : 1e-7);
        w = w < 1 ? 1 : w > (double)(1 << 30) ? (double)(1 << 30) : w;
        k->size[1] = (int64_t)w;
    }
    return *kernel_s < 2.0 * len;
}

/* `aborts` aborts at random instants of spin runs on x; pools the samples. */
static int abort_series(bench_t *b, rtm_kexec_t *x, uint32_t aborts, double *samples, resp_t *out)
{
    memset(out, 0, sizeof(*out));
    rtm_preempt_stop_t *stops = calloc(aborts ? aborts : 1, sizeof(*stops));
    if (!stops)
        return fail(b, "cannot allocate", x->k->kernel->name, NULL);
    const rtm_preempt_wake_t wake = {b->o.prewake_us * 1e-6, b->o.poke, b->o.keepalive_us * 1e-6};
    const rtm_status_t st = rtm_preempt_abort_series_ex(x, aborts, rtm_rng_next(&b->rng), samples,
                                                        stops, &out->n, &out->missed,
                                                        &out->kernel_s, &wake);
    stop_summary(stops, out->n, out);
    if (aborts)
        missed_summary(stops + (aborts - out->missed), out->missed, out);
    if (st == RTM_OK && b->npool + out->n <= b->cap) {
        for (uint32_t i = 0; i < out->n; i++)
            b->pool_events[b->npool + i] = stops[i].event_s;
        memcpy(b->pool_samples + b->npool, samples, out->n * sizeof(double));
        b->npool += out->n;
        b->nmarked += out->marked;
    }
    free(stops);
    if (st != RTM_OK)
        return fail(b, "abort series failed", x->k->kernel->name, rtm_strerror(st));
    rtm_stats_sort(samples, out->n);
    out->p50 = rtm_stats_percentile(samples, out->n, 50);
    out->p99 = rtm_stats_percentile(samples, out->n, 99);
    out->max = out->n ? samples[out->n - 1] : 0.0;
    return 0;
}

static int spin_inst(bench_t *b, inst_t *in, uint32_t grid)
{
    rtm_kinst_t proto;
    rtm_kinst_init(&proto, rtm_kernel_find("spin"));
    proto.size[0] = grid;
    if (inst_make(in, &proto, 3) != 0) {
        inst_free(in);
        return fail(b, "cannot allocate", "spin", NULL);
    }
    return 0;
}

/* `aborts` aborts (samples[] has room for them) of spin on `grid` blocks built with o,
 * its work set so that its kernel lasts about len, the watcher on or off; *launched: its
 * work-groups, *k (may be NULL): its in-loop poll period. 0 when measured, 1 when even
 * the least work runs far longer than len, else fail()'s value. */
static int spin_series(bench_t *b, uint32_t grid, const rtm_kexec_opts_t *o, double len,
                       bool watch, uint32_t aborts, double *samples, resp_t *r,
                       uint32_t *launched, uint32_t *k)
{
    memset(r, 0, sizeof(*r));
    inst_t in;
    if (spin_inst(b, &in, grid) != 0)
        return -1;
    rtm_kexec_t x;
    if (rtm_kexec_create_ex(&x, &b->dev, &in.k, o) != RTM_OK || rtm_kexec_warm(&x) != RTM_OK) {
        inst_free(&in);
        return fail(b, "cannot build", "spin", NULL);
    }
    *launched = rtm_kexec_groups(&x, grid);
    if (k)
        *k = x.opts.poll_every;
    double ks = 0.0;
    int rc = 1;
    if (calibrate_len(b, &in, &x, len, &ks)) {
        rtm_kexec_set_watch(&x, watch);
        rc = abort_series(b, &x, aborts, samples, r);
    }
    rtm_kexec_destroy(&x);
    inst_free(&in);
    return rc;
}

static void section_response(bench_t *b)
{
    /* seed 002 table 2's shape: 5 grids x 4 lengths, and the largest grid the executive
     * runs plain (persistent from RTM_KEXEC_PERSIST_MIN_BLOCKS); 2916 aborts at random
     * instants in the full mode (the 1 s kernels take most of the time: about 12 s per
     * grid) */
    static const uint32_t grids_full[] = {1, 16, 256, 4096, RTM_KEXEC_PERSIST_MIN_BLOCKS - 1u,
                                          65536};
    static const uint32_t grids_quick[] = {1, 256, 65536};
    static const double lens_full[] = {1e-3, 10e-3, 100e-3, 1.0};
    static const double lens_quick[] = {1e-3, 10e-3};
    static const uint32_t aborts_full[] = {300, 150, 30, 6};
    static const uint32_t aborts_quick[] = {20, 10};
    const uint32_t *grids = b->o.quick ? grids_quick : grids_full;
    const double *lens = b->o.quick ? lens_quick : lens_full;
    const uint32_t *aborts = b->o.quick ? aborts_quick : aborts_full;
    const size_t ng = b->o.quick ? N_OF(grids_quick) : N_OF(grids_full);
    const size_t nl = b->o.quick ? N_OF(lens_quick) : N_OF(lens_full);
    double *samples = malloc(1000 * sizeof(double));
    uint32_t total = 0, over = 0;
    if (!b->o.json)
        printf("\n4. abort response, spin kernel (flag raised -> kernel finished, host clock), "
               "transport %s, raise %s\n%8s %6s %8s %10s %10s %6s %6s %10s %10s %10s %6s "
               "%8s %8s  %7s %7s %7s %7s %7s %7s %6s %17s\n",
               rtm_abortflag_name(b->transport), rtm_abortflag_raise_name(b->raise_mode),
               "groups", "K", "len ms", "work", "launched", "n", "missed", "p50 us", "p99 us",
               "max us", "marked", "ev p50", "ev p99", "call", "landed", "xfer", "drain",
               "notice", "stop", "stop n", "mark-stop p50/min");
    const rtm_kexec_opts_t prod = prod_opts(b);
    for (size_t g = 0; samples && g < ng; g++) {
        inst_t in;
        if (spin_inst(b, &in, grids[g]) != 0)
            continue;
        if (rtm_kinst_bytes(&in.k) > b->dev.info.global_mem / 4) {
            inst_free(&in);
            continue;
        }
        rtm_kexec_t x;
        rtm_kexec_opts_t pr = prod;
        if (rtm_kexec_create_ex(&x, &b->dev, &in.k, &pr) != RTM_OK ||
            rtm_kexec_warm(&x) != RTM_OK) {
            fail(b, "cannot build", "spin", NULL);
            inst_free(&in);
            continue;
        }
        /* production's in-loop poll period for spin's loop on this grid (unless --poll):
         * a work-item's time per iteration from a ~1 ms run over its waves */
        double ks0 = 0.0, steps = 1.0;
        if (!b->o.poll && calibrate_len(b, &in, &x, lens[0], &ks0)) {
            const double tau = block_time(b, &in.k, ks0, &steps) / steps /
                               ((double)in.k.size[1] * (double)in.k.size[2]);
            const uint32_t kk = rtm_preempt_poll_k(tau);
            if (kk != x.opts.poll_every) {
                rtm_kexec_destroy(&x);
                pr.poll_every = kk;
                if (rtm_kexec_create_ex(&x, &b->dev, &in.k, &pr) != RTM_OK ||
                    rtm_kexec_warm(&x) != RTM_OK) {
                    fail(b, "cannot build", "spin", NULL);
                    inst_free(&in);
                    continue;
                }
            }
        }
        for (size_t l = 0; l < nl; l++) {
            double ks = 0.0;
            if (!calibrate_len(b, &in, &x, lens[l], &ks)) {
                if (!b->o.json)
                    printf("%8u %6u %8.1f   (shortest kernel %.2f ms on this grid)\n", grids[g], x.opts.poll_every,
                           lens[l] * 1e3, ks * 1e3);
                continue;
            }
            rtm_kexec_set_watch(&x, watch_for(b, lens[l]));
            resp_t r;
            if (abort_series(b, &x, aborts[l], samples, &r) != 0)
                continue;
            total += r.n;
            over += r.p99 > RTM_PREEMPT_RESPONSE_S;
            if (!b->o.json) {
                char c1[16], c2[16], c3[16], c4[16], c5[16], c6[16], c7[24] = "-";
                char mark[24] = "";
                if (!isnan(r.mk_stop))
                    snprintf(c7, sizeof(c7), "%7.1f/%.1f", r.mk_stop * 1e6, r.mk_stop_min * 1e6);
                if (r.p99 > RTM_PREEMPT_RESPONSE_S)
                    snprintf(mark, sizeof(mark), "  > %.0f us", RTM_PREEMPT_RESPONSE_S * 1e6);
                printf("%8u %6u %8.2f %10lld %10u %6u %6u %10.1f %10.1f %10.1f %6u %8.1f %8.1f  "
                       "%s %s %s %s %s %s %6u %17s%s\n",
                       grids[g], x.opts.poll_every, r.kernel_s * 1e3, (long long)in.k.size[1],
                       rtm_kexec_groups(&x, grids[g]), r.n, r.missed, r.p50 * 1e6, r.p99 * 1e6,
                       r.max * 1e6, r.marked, r.ev_p50 * 1e6, r.ev_p99 * 1e6,
                       us_text(r.call, false, c1, sizeof(c1)),
                       us_text(r.landed, false, c2, sizeof(c2)),
                       us_text(r.xfer, false, c3, sizeof(c3)),
                       us_text(r.n ? r.drain : -1.0, r.n > 0 && r.xfer >= 0.0, c4, sizeof(c4)),
                       us_text(r.notice, r.xfer >= 0.0, c5, sizeof(c5)),
                       us_text(r.stop, false, c6, sizeof(c6)), r.stop_n, c7, mark);
                print_missed(b, &r);
            }
        }
        rtm_kexec_destroy(&x);
        inst_free(&in);
    }
    free(samples);
    if (!b->o.json)
        printf("%u aborts; %u rows with p99 over the %.0f us target (launched = work-groups: "
               "persistent where the grid has %u blocks or more; missed = aborts raised too "
               "late to stop the kernel (the line under such a row: where the raise fell, device "
               "clock); marked = aborts whose end the host saw by the kernel's end mark "
               "(response = raise -> mark seen; ev p50/p99 = the same aborts by the driver's "
               "event); K = production's in-loop poll period for spin's loop on that grid (the "
               "largest whose steps last at most %.0f us); breakdown p50s, us: call = the raise "
               "call, landed = "
               "raise -> flag transfer seen complete by the host, xfer = device: transfer "
               "queued -> ended, drain = device: transfer ended -> kernel ended (the kernel "
               "sees the flag and finishes its strip/block), notice = kernel ended -> host "
               "saw its event (event - device queued->kernel end), stop = raise -> kernel "
               "ended, its end stamp carried onto the host clock through the checkpoint "
               "read's queued stamp (what the executive reports, since it enqueues the next "
               "job before it looks), over the stop n aborts where it is known (a carry that "
               "puts a stopped kernel's end before the raise is not), mark-stop = response - "
               "stop over the aborts the end mark reported, p50/min: the mark's write and the "
               "host's poll; a negative min is a carry later than the mark seen)\n", total, over,
               RTM_PREEMPT_RESPONSE_S * 1e6, RTM_KEXEC_PERSIST_MIN_BLOCKS,
               RTM_PREEMPT_POLL_PERIOD_S * 1e6);
}

/* ---- 4b. the executive's launch shape on a large grid ----------------------------------- */

/* The executive's build of a large grid: persistent groups (kexec's automatic shape past
 * RTM_KEXEC_PERSIST_MIN_BLOCKS blocks) that store each fetched block id at once where
 * blocks outlast RTM_PREEMPT_LONG_BLOCK_S (rtm_preempt_grid_for_block), in-loop polls
 * only where a block outlasts RTM_PREEMPT_POLL_BLOCK_S (rtm_preempt_block_polls). Here:
 * spin on 65 536 blocks of 5 to 40 us in that shape (prod: pooled into the summary,
 * counted against the target), with the polls the other way (other), and for long blocks
 * on a plain grid with production's polls (plain: the shape until session 39, whose
 * blocks not yet started drain through their entry checks after a raise); and 65 536
 * blocks of 400 us, also in chunks (kexec.h; rtm_preempt_chunk_for) with production's
 * polls (chunks); the alternatives not pooled. GPUs only: a block's length is set from
 * the device's resident groups (2048 work-items a unit). */
static void section_shape(bench_t *b)
{
    static const double blocks_full[] = {5e-6, 10e-6, 15e-6, 20e-6, 30e-6, 40e-6, 400e-6};
    static const double blocks_quick[] = {5e-6, 20e-6, 400e-6};
    const double *blk = b->o.quick ? blocks_quick : blocks_full;
    const size_t nb = b->o.quick ? N_OF(blocks_quick) : N_OF(blocks_full);
    const uint32_t grid = 65536, aborts = b->o.quick ? 100 : 300;
    if (!(b->dev.info.type & CL_DEVICE_TYPE_GPU)) {
        if (!b->o.json)
            printf("\n4b. the executive's launch shape on %u blocks: skipped (not a GPU)\n", grid);
        return;
    }
    if (!b->o.json)
        printf("\n4b. the executive's launch shape on %u blocks of spin (persistent groups, the "
               "fetched block id stored at once for blocks over %.0f us, in-loop polls for "
               "blocks over %.0f us, chunks of %u blocks on two queues released two ahead where "
               "they last %.2f ms or more; prod = that build, other = its polls the other way, "
               "plain = a plain grid with production's polls, persist = persistent groups "
               "instead of chunks, chunks = chunks instead of persistent groups, --no-chunk)\n%8s %6s %5s %6s %8s %10s %6s %6s %10s %10s %10s %6s %7s\n",
               grid, RTM_PREEMPT_LONG_BLOCK_S * 1e6, RTM_PREEMPT_POLL_BLOCK_S * 1e6,
               RTM_KEXEC_CHUNK_BLOCKS, RTM_PREEMPT_CHUNK_MIN_S * 1e3,
               "blk us", "build", "polls", "K", "len ms", "launched", "n", "missed", "p50 us",
               "p99 us", "max us", "marked", "drain");
    double *samples = malloc(aborts * sizeof(double));
    uint32_t total = 0, over = 0;
    const rtm_kexec_opts_t prod = prod_opts(b);
    rtm_kinst_t sk; /* spin on the grid, planned: its waves set each kernel's length */
    rtm_kinst_init(&sk, rtm_kernel_find("spin"));
    sk.size[0] = grid;
    const double waves = rtm_kinst_plan(&sk) == RTM_OK ? block_waves(b, &sk, NULL) : 0.0;
    /* alt 3: the long grid's other shape, persistent groups where production runs it in
     * chunks (chunks under --no-chunk) */
    const char *const build[4] = {"prod", "other", "plain", b->o.no_chunk ? "chunks" : "persist"};
    for (size_t i = 0; samples && waves > 0 && i < nb; i++) {
        const bool prod_polls = rtm_preempt_block_polls(blk[i]);
        const bool chunks = rtm_preempt_chunk_for(&sk, blk[i] * waves, NULL);
        for (int alt = 0; alt < 4; alt++) {
            if ((alt == 2 && !(blk[i] > RTM_PREEMPT_LONG_BLOCK_S)) || (alt == 3 && !chunks))
                break;
            rtm_kexec_opts_t pr = prod;
            rtm_preempt_grid_for_block(blk[i], &pr); /* --groups sets the groups */
            if (alt != 2 && (alt == 3) == b->o.no_chunk) /* in chunks, where they apply */
                rtm_preempt_chunk_for(&sk, blk[i] * waves, &pr);
            if (alt == 2)
                pr.groups = RTM_KEXEC_GROUPS_ALL;
            const bool polls = alt == 1 ? !prod_polls : prod_polls;
            pr.no_poll = !polls;
            const double len = blk[i] * waves;
            const size_t npool0 = b->npool, nmarked0 = b->nmarked;
            resp_t r;
            uint32_t launched = 0, k = 0;
            if (spin_series(b, grid, &pr, len, watch_for(b, len), aborts, samples, &r, &launched,
                            &k) != 0)
                continue;
            if (!b->o.json) {
                char c4[16];
                printf("%8.1f %6s %5s %6u %8.3f %10u %6u %6u %10.1f %10.1f %10.1f %6u %s%s\n",
                       blk[i] * 1e6, build[alt], polls ? "yes" : "no",
                       polls ? k : 0u, r.kernel_s * 1e3, launched, r.n, r.missed, r.p50 * 1e6,
                       r.p99 * 1e6, r.max * 1e6, r.marked,
                       us_text(r.n ? r.drain : -1.0, r.n > 0 && r.xfer >= 0.0, c4, sizeof(c4)),
                       !alt && r.p99 > RTM_PREEMPT_RESPONSE_S ? "  > target" : "");
            }
            if (!alt) {
                total += r.n;
                over += r.p99 > RTM_PREEMPT_RESPONSE_S;
            } else { /* not production's build: kept out of the summary */
                b->npool = npool0;
                b->nmarked = nmarked0;
            }
        }
    }
    free(samples);
    if (!b->o.json)
        printf("%u aborts of production's builds (pooled into the summary); %u rows with p99 "
               "over the %.0f us target (blk us = the kernel's length over its waves of blocks; "
               "drain = device: flag transfer ended -> kernel ended, p50)\n", total, over,
               RTM_PREEMPT_RESPONSE_S * 1e6);
}

/* ---- 1b. raise paths of the WRITE flag ------------------------------------------------------ */

/* One probe row: `aborts` (at most 64) aborts of a ~5 ms spin on `grid` blocks built
 * with o, without the watcher. */
static int raise_probe(bench_t *b, uint32_t grid, const rtm_kexec_opts_t *o, uint32_t aborts,
                       resp_t *r, uint32_t *launched)
{
    double samples[64];
    return spin_series(b, grid, o, 5e-3, false, aborts < 64 ? aborts : 64, samples, r, launched,
                       NULL);
}

/* Probes each raise path (and one flag copy instead of 32) on two loads: one spinning
 * group, and 65 536 blocks run by persistent groups filling every slot of the device (a
 * path the driver runs as a kernel cannot start until those groups exit). Picks the
 * path whose worst p99 is lowest among those that stop both loads; if none stops the
 * full device, retries with one group slot per compute unit left free. */
static void section_raise(bench_t *b)
{
    const uint32_t aborts = b->o.quick ? 8 : 24;
    const uint32_t grids[2] = {1, 65536};
    const uint32_t units = b->dev.info.units ? b->dev.info.units : 1;
    if (!b->o.json)
        printf("\n1b. raise paths of the write flag (spin ~5 ms, %u aborts each; p50 breakdown "
               "as in section 4)\n%-10s %6s %8s %9s %6s %9s %9s  %7s %7s %7s %7s %7s\n",
               aborts, "raise", "copies", "groups", "launched", "n", "p50 us", "p99 us", "call",
               "landed", "xfer", "drain", "notice");
    double best = 1e30;
    int best_mode = -1;
    bool full_ok = false, default_works = false;
    /* the alternatives' aborts are not the summary's (it reports the path used below) */
    const size_t npool0 = b->npool, nmarked0 = b->nmarked;
    for (int pass = 0; pass < 2 && !full_ok; pass++) {
        if (pass == 1) { /* nothing stopped the full device: leave a slot per unit free */
            b->persist_groups = units * 7u; /* spin's 256 work-items: 8 slots per unit */
            if (!b->o.json)
                printf("no path stopped the full device: persistent groups %u (one slot per "
                       "compute unit left free)\n", b->persist_groups);
        }
        for (int m = 0; m <= RTM_RAISE_MODES; m++) {
            const rtm_abort_raise_t mode = m < RTM_RAISE_MODES ? (rtm_abort_raise_t)m
                                                               : RTM_RAISE_PINNED;
            double worst = 0.0;
            bool works = true;
            for (int g = 0; g < 2; g++) {
                if (pass == 1 && g == 0)
                    continue;
                rtm_kexec_opts_t o = prod_opts(b);
                o.raise_mode = mode;
                o.raise_set = true;
                if (m == RTM_RAISE_MODES)
                    o.flag_copies = 1;
                resp_t r;
                uint32_t launched = 0;
                const int rc = raise_probe(b, grids[g], &o, aborts, &r, &launched);
                if (rc == 1) { /* this load cannot be timed here (CPU devices) */
                    full_ok = full_ok || g == 1;
                    continue;
                }
                if (rc != 0) {
                    works = false;
                    continue;
                }
                works = works && r.n * 4 >= aborts * 3;
                worst = r.p99 > worst ? r.p99 : worst;
                full_ok = full_ok || (g == 1 && r.n * 4 >= aborts * 3);
                if (!b->o.json) {
                    char c1[16], c2[16], c3[16], c4[16], c5[16];
                    printf("%-10s %6u %8u %9u %6u %9.1f %9.1f  %s %s %s %s %s\n",
                           rtm_abortflag_raise_name(mode), copies_of(b, &o), grids[g], launched, r.n,
                           r.p50 * 1e6, r.p99 * 1e6, us_text(r.call, false, c1, sizeof(c1)),
                           us_text(r.landed, false, c2, sizeof(c2)),
                           us_text(r.xfer, false, c3, sizeof(c3)),
                           us_text(r.n ? r.drain : -1.0, r.n > 0 && r.xfer >= 0.0, c4, sizeof(c4)),
                           us_text(r.notice, r.xfer >= 0.0, c5, sizeof(c5)));
                    print_missed(b, &r);
                }
            }
            if (works && m < RTM_RAISE_MODES && worst < best) {
                best = worst;
                best_mode = m;
            }
            if (m == (int)RTM_KEXEC_RAISE_DEFAULT)
                default_works = works;
        }
    }
    b->npool = npool0;
    b->nmarked = nmarked0;
    /* below: the executive's path (kexec's default), unless it failed here */
    if (b->o.raise < 0 && best_mode >= 0 && !default_works)
        b->raise_mode = (rtm_abort_raise_t)best_mode;
    if (!full_ok && b->o.groups == 0) /* neither helped: keep every slot */
        b->persist_groups = 0;
    if (!b->o.json)
        printf("raise path used below: %s%s (lowest worst p99 here: %s); persistent groups: "
               "%s\n",
               rtm_abortflag_raise_name(b->raise_mode),
               b->o.raise >= 0         ? " (--raise)"
               : best_mode < 0         ? " (none stopped both loads)"
               : default_works         ? " (the executive's)"
                                       : " (the executive's failed here)",
               best_mode >= 0 ? rtm_abortflag_raise_name((rtm_abort_raise_t)best_mode) : "-",
               b->persist_groups ? "one slot per compute unit left free" : "every slot");
}

/* ---- 3. poll period sweep ------------------------------------------------------------------ */

static void section_sweep(bench_t *b)
{
    static const uint32_t ks_full[] = {16, 64, 256, 1024, 4096};
    static const uint32_t ks_quick[] = {256, 2048};
    const uint32_t grids[2] = {1, b->o.quick ? 256 : 4096};
    uint32_t chosen = 0;
    if (!b->o.json)
        printf("\n3. in-loop poll period K (spin, ~10 ms, production build otherwise): overhead "
               "vs original (min of runs), response\n%8s %8s %12s %10s %10s\n", "groups", "K",
               "overhead %", "p50 us", "p99 us");
    for (size_t g = 0; g < 2; g++) {
        rtm_preempt_polltune_t tu;
        const rtm_status_t st = rtm_preempt_tune_poll(
            &b->dev, b->transport, grids[g], b->o.quick ? ks_quick : ks_full,
            b->o.quick ? 2 : 5, b->o.quick ? 5 : 15, b->o.quick ? 10 : 60, 0.5, &tu);
        if (st != RTM_OK) {
            fail(b, "poll sweep failed", "spin", rtm_strerror(st));
            continue;
        }
        for (uint32_t i = 0; !b->o.json && i < tu.n; i++)
            printf("%8u %8u %12.3f %10.1f %10.1f\n", grids[g], tu.k[i], tu.overhead_pct[i],
                   tu.p50_s[i] * 1e6, tu.p99_s[i] * 1e6);
        if (!b->o.json)
            printf("%8u   best K within 0.5 %% overhead: %u\n", grids[g], tu.best);
        chosen = tu.best > chosen ? tu.best : chosen;
    }
    if (b->o.poll == 0 && chosen) /* the production period: the sweep's, unless --poll */
        b->poll_k = chosen;
    if (!b->o.json)
        printf("in-loop poll period used below: %u iterations\n",
               b->poll_k ? b->poll_k : RTM_KEXEC_POLL_DEFAULT);
}

/* ---- 5. abort + resume vs uninterrupted, re-executed blocks -------------------------------- */

typedef struct {
    inst_t in, ref;
    rtm_kexec_t x;
    rtm_preempt_job_t job;
    void *jm;
} rjob_t;

static int rjob_open(bench_t *b, rjob_t *r, const rtm_kinst_t *proto,
                     const rtm_kexec_opts_t *shape, bool count)
{
    memset(r, 0, sizeof(*r));
    if (inst_make(&r->in, proto, 5) != 0 || inst_make(&r->ref, proto, 5) != 0)
        return fail(b, "cannot allocate", proto->kernel->name, NULL);
    rtm_kexec_opts_t o = *shape;
    o.count_blocks = count;
    if (rtm_kexec_create_ex(&r->x, &b->dev, &r->in.k, &o) != RTM_OK ||
        rtm_kexec_warm(&r->x) != RTM_OK)
        return fail(b, "cannot build", proto->kernel->name, NULL);
    const size_t jb = rtm_preempt_job_bytes(&r->in.k, count);
    r->jm = aligned_alloc(64, (jb + 63u) & ~(size_t)63u);
    if (!r->jm || rtm_preempt_job_init(&r->job, &r->in.k, r->jm, jb, 8, count) != RTM_OK)
        return fail(b, "job init failed", proto->kernel->name, NULL);
    return 0;
}

static void rjob_close(rjob_t *r)
{
    rtm_preempt_job_release(&r->job);
    rtm_kexec_destroy(&r->x);
    free(r->jm);
    inst_free(&r->in);
    inst_free(&r->ref);
}

static double median(double *v, int n)
{
    rtm_stats_sort(v, (size_t)n);
    return n ? v[n / 2] : 0.0;
}

/* Counts completions beyond one (and blocks never completed) after a finished job. */
static uint64_t excess(const rtm_preempt_job_t *job, uint64_t *missing)
{
    uint64_t e = 0;
    for (uint32_t l = 0; l < job->launches; l++)
        for (uint32_t i = 0; i < rtm_preempt_blocks(job, l); i++) {
            const uint32_t c = job->count[(size_t)l * job->stride + i];
            e += c > 1 ? c - 1 : 0;
            *missing += c == 0;
        }
    return e;
}

static double run_whole(bench_t *b, rjob_t *r)
{
    r->in.k.kernel->fill(&r->in.k, 5);
    rtm_preempt_job_reset(&r->job);
    const double t0 = rtm_os_now_s();
    rtm_status_t st = rtm_preempt_start(&r->job, &r->x);
    if (st == RTM_OK)
        st = rtm_preempt_wait(&r->job);
    if (st != RTM_OK)
        fail(b, "run failed", r->in.k.kernel->name, rtm_strerror(st));
    return st == RTM_OK ? rtm_os_now_s() - t0 : -1.0;
}

/* Aborted at half of `whole`, resumed on the device or the CPU; total wall time. */
static double run_aborted(bench_t *b, rjob_t *r, double whole, bool cpu, int *stopped)
{
    r->in.k.kernel->fill(&r->in.k, 5);
    rtm_preempt_job_reset(&r->job);
    const double t0 = rtm_os_now_s();
    rtm_status_t st = rtm_preempt_start(&r->job, &r->x);
    if (st == RTM_OK)
        st = rtm_preempt_sleep_until_s(&r->job, t0 + whole / 2, 0.0);
    rtm_preempt_stop_t s;
    if (st == RTM_OK)
        st = rtm_preempt_abort(&r->job, cpu, &s);
    if (st == RTM_OK && !s.finished) {
        (*stopped)++;
        st = cpu ? rtm_preempt_resume_pool(&r->job, b->have_pool ? &b->pool : NULL)
                 : rtm_preempt_resume_gpu(&r->job, &r->x);
        if (st == RTM_OK && !cpu)
            st = rtm_preempt_wait(&r->job);
    }
    const double t = rtm_os_now_s() - t0;
    if (st != RTM_OK) {
        fail(b, "abort/resume failed", r->in.k.kernel->name, rtm_strerror(st));
        return -1.0;
    }
    verify(b, &r->in.k, &r->ref.k, cpu ? "resumed gpu>cpu" : "resumed gpu>gpu");
    return t;
}

/* Counting build: aborts spread over the run, each job preempted up to three times and
 * resumed on the device (and, with `cpu`, finished on the CPU every other time); every
 * block must complete exactly once. Returns the completions beyond one. */
static uint64_t reexec_check(bench_t *b, const rtm_kinst_t *proto, const rtm_kexec_opts_t *shape,
                             bool cpu, double whole, int points)
{
    rjob_t r;
    uint64_t ex = 0, missing = 0;
    if (rjob_open(b, &r, proto, shape, true) == 0) {
        if (cpu)
            rtm_kinst_run_cpu(&r.ref.k);
        else if (run_whole(b, &r) >= 0.0)
            inst_copy(&r.ref, &r.in);
        for (int p = 0; p < points; p++) {
            r.in.k.kernel->fill(&r.in.k, 5);
            rtm_preempt_job_reset(&r.job);
            const double t0 = rtm_os_now_s();
            rtm_status_t st = rtm_preempt_start(&r.job, &r.x);
            for (int again = 0; st == RTM_OK && again < 3 && r.job.state == RTM_PREEMPT_RUNNING;
                 again++) {
                st = rtm_preempt_sleep_until_s(
                    &r.job, t0 + whole * (p + 1) / (points + 1) * (again + 1) / 2, 0.0);
                rtm_preempt_stop_t s;
                if (st == RTM_OK)
                    st = rtm_preempt_abort(&r.job, cpu && p % 2, &s);
                if (st == RTM_OK && !s.finished && (again < 2 || !(cpu && p % 2)))
                    st = rtm_preempt_resume_gpu(&r.job, &r.x);
            }
            if (st == RTM_OK && r.job.state == RTM_PREEMPT_STOPPED)
                st = rtm_preempt_resume_pool(&r.job, b->have_pool ? &b->pool : NULL);
            if (st == RTM_OK && r.job.state == RTM_PREEMPT_RUNNING)
                st = rtm_preempt_wait(&r.job);
            if (st != RTM_OK) {
                fail(b, "counting abort/resume failed", proto->kernel->name, rtm_strerror(st));
                break;
            }
            verify(b, &r.in.k, &r.ref.k, "resumed (counting build)");
            ex += excess(&r.job, &missing);
        }
    }
    rjob_close(&r);
    if (missing)
        fail(b, "blocks never completed", proto->kernel->name, NULL);
    return ex;
}

/* A size whose CPU twin runs at most `limit` seconds (halving the first size key). */
static void cpu_size(const rtm_kernel_t *kernel, double limit, bool quick, rtm_kinst_t *out)
{
    rtm_kinst_init(out, kernel);
    if (strcmp(kernel->name, "spin") == 0) {
        out->size[0] = 64;
        out->size[1] = quick ? 2000 : 5000;
        out->size[3] = 2;
        return;
    }
    for (int step = 0; step < 16; step++) {
        inst_t in;
        if (inst_make(&in, out, 5) != 0) {
            inst_free(&in);
            return;
        }
        /* the twin block by block, given up once past the limit (a large default size
         * would otherwise cost seconds per halving step) */
        const double t0 = rtm_os_now_s();
        double t = 0.0;
        for (uint32_t l = 0; l < in.k.plan.launches && t <= limit; l++) {
            rtm_klaunch_t kl;
            kernel->launch(&in.k, l, &kl);
            for (uint32_t blk = 0; blk < kl.blocks && t <= limit; blk++) {
                kernel->cpu_block(&in.k, l, blk);
                if ((blk & 15u) == 15u)
                    t = rtm_os_now_s() - t0;
            }
            t = rtm_os_now_s() - t0;
        }
        inst_free(&in);
        rtm_kinst_t next = *out;
        next.size[0] /= 2;
        if (t <= limit || next.size[0] < kernel->keys[0].min || rtm_kinst_plan(&next) != RTM_OK)
            return;
        *out = next;
    }
}

/* Quick mode: section 5's device size at most QUICK_RESUME_BYTES of buffers (halving the
 * first size key): the wall times of section 2's sizes are the host transfers of GBs
 * (matrix_add, copy: 0.4-0.5 s a run), which the resume part repeated ~20 times each. */
#define QUICK_RESUME_BYTES ((size_t)256 << 20)
static void quick_cap(rtm_kinst_t *k)
{
    for (int i = 0; i < 16 && rtm_kinst_plan(k) == RTM_OK && rtm_kinst_bytes(k) > QUICK_RESUME_BYTES;
         i++) {
        if (k->size[0] / 2 < k->kernel->keys[0].min)
            break;
        k->size[0] /= 2;
    }
    (void)rtm_kinst_plan(k);
}

static void section_resume(bench_t *b)
{
    const int reps = b->o.quick ? 2 : 5;
    const int points = b->o.quick ? 2 : 8;
    const rtm_kexec_opts_t prod = prod_opts(b); /* the CPU size's jobs (small grids) */
    if (!b->o.json)
        printf("\n5. aborted at half and resumed vs uninterrupted (wall ms, median of %d): on the "
               "device at section 2's size (quick: at most 256 MiB of buffers) and launch shape (long "
               "blocks store their fetched ids, polls only in long blocks), on the CPU at a size "
               "its twin runs in %.0f ms; "
               "completed blocks re-executed (RTM_COUNT_BLOCKS, %d jobs each preempted up to 3 "
               "times, per size)\n%-16s %10s %10s %7s %10s %10s %7s %8s\n",
               reps, b->o.quick ? 20.0 : 50.0, points, "kernel", "whole", "gpu>gpu", "stopped",
               "whole", "gpu>cpu", "stopped", "reexec");
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        const rtm_kernel_t *kernel = rtm_kernel_at(i);
        if (!rtm_calib_wanted(b->o.kernels, kernel->name))
            continue;
        double w1[16] = {0}, gg[16] = {0}, w2[16] = {0}, gc[16] = {0};
        int st1 = 0, st2 = 0;
        uint64_t ex = 0;
        rjob_t r;
        memset(&r, 0, sizeof(r));
        /* on the device, at the large size (section 2's, or sized now when the overhead
         * part did not run); the reference is the uninterrupted run */
        if (!b->have_big[i] && bench_size(b, kernel, b->o.quick ? 1e-3 : 10e-3, &b->big[i]) == 0) {
            b->big_pr[i] = exec_shape(b, &b->big[i], b->sized_s, false, NULL, NULL);
            b->have_big[i] = true;
        }
        rtm_kinst_t big = b->big[i];
        if (b->have_big[i] && b->o.quick)
            quick_cap(&big);
        if (b->have_big[i] && rjob_open(b, &r, &big, &b->big_pr[i], false) == 0) {
            w1[0] = run_whole(b, &r);
            inst_copy(&r.ref, &r.in);
            for (int k = 0; k < reps && w1[0] >= 0.0; k++) {
                w1[k] = run_whole(b, &r);
                verify(b, &r.in.k, &r.ref.k, "uninterrupted rerun");
                gg[k] = run_aborted(b, &r, w1[k], false, &st1);
            }
            ex += reexec_check(b, &big, &b->big_pr[i], false, median(w1, reps), points);
        }
        rjob_close(&r);
        /* on the CPU, at a size the twin handles; the reference is the twin */
        rtm_kinst_t small;
        cpu_size(kernel, b->o.quick ? 0.02 : 0.05, b->o.quick, &small);
        if (rjob_open(b, &r, &small, &prod, false) == 0) {
            rtm_kinst_run_cpu(&r.ref.k);
            for (int k = 0; k < reps; k++) {
                w2[k] = run_whole(b, &r);
                if (w2[k] < 0.0 || verify(b, &r.in.k, &r.ref.k, "uninterrupted") != 0)
                    break;
                gc[k] = run_aborted(b, &r, w2[k], true, &st2);
            }
            ex += reexec_check(b, &small, &prod, true, median(w2, reps), points);
        }
        rjob_close(&r);
        b->reexec += ex;
        if (!b->o.json)
            printf("%-16s %10.3f %10.3f %3d/%-3d %10.3f %10.3f %3d/%-3d %8llu\n", kernel->name,
                   median(w1, reps) * 1e3, median(gg, reps) * 1e3, st1, reps,
                   median(w2, reps) * 1e3, median(gc, reps) * 1e3, st2, reps,
                   (unsigned long long)ex);
    }
}

/* ---- driver ----------------------------------------------------------------------------- */

/* ---- 6. per-kernel poll period ------------------------------------------------------ */

static void section_kpoll(bench_t *b)
{
    if (!b->o.json)
        printf("\n6. in-loop poll period per kernel: K0 (the largest whose loop steps last at most "
               "%.0f us), K0/2, K0/4 (chosen: the cheapest of these three, as calibration "
               "chooses), 2K0 and 4K0 (beyond the response target); overhead vs the same build "
               "without in-loop polls (min of %d interleaved runs), abort response over %d aborts "
               "at random instants (host clock, flag raised -> kernel finished)\n"
               "%-16s %-10s %9s %9s %7s %9s %11s %9s %9s %9s\n",
               RTM_PREEMPT_POLL_PERIOD_S * 1e6, b->o.quick ? 5 : 15, b->o.quick ? 8 : 50,
               "kernel", "size0", "base ms", "step ns", "K", "period us", "overhead %", "p50 us",
               "p99 us", "max us");
    /* the production column's options (--cl-opts, --lanes, --copies, … as every other
     * part); each candidate sets its own poll period */
    const rtm_kexec_opts_t base = prod_opts(b);
    double worst_p99 = 0.0; /* the chosen K's response p99, worst kernel */
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        const rtm_kernel_t *kernel = rtm_kernel_at(i);
        if (!rtm_preempt_loop_polls(kernel) || !rtm_calib_wanted(b->o.kernels, kernel->name))
            continue;
        rtm_preempt_kpoll_t kp;
        const rtm_status_t st = rtm_preempt_tune_kernel_poll(
            &b->dev, &base, NULL, kernel, (rtm_tune_t){0, 0}, NULL, 0.0, true, b->o.quick ? 5 : 15,
            b->o.quick ? 8 : 50, rtm_os_now_s() + 120.0, &kp);
        if (st != RTM_OK) {
            fail(b, "poll period calibration failed", kernel->name, rtm_strerror(st));
            continue;
        }
        for (uint32_t c = 0; c < kp.n; c++) {
            if (kp.resp_n[c] && kp.k[c] == kp.poll_every && kp.resp_p99_s[c] > worst_p99)
                worst_p99 = kp.resp_p99_s[c];
            if (b->o.json)
                continue;
            printf("%-16s %-10lld %9.3f %9.2f %7u %9.2f %11.2f %9.1f %9.1f %9.1f%s\n", kernel->name,
                   (long long)kp.size0, kp.base_s * 1e3, kp.step_s * 1e9, kp.k[c],
                   kp.k[c] * kp.step_s * 1e6, kp.overhead_pct[c], kp.resp_p50_s[c] * 1e6,
                   kp.resp_p99_s[c] * 1e6, kp.resp_max_s[c] * 1e6,
                   kp.k[c] == kp.poll_every ? "  <- chosen" : "");
        }
    }
    if (!b->o.json)
        printf("(worst chosen-K p99: %.1f us; target %.0f us)\n", worst_p99 * 1e6,
               RTM_PREEMPT_RESPONSE_S * 1e6);
}

/* --poke's values, by rtm_preempt_poke_t */
static const char *const poke_name[] = {"none", "poll", "write"};
#define N_POKES (sizeof(poke_name) / sizeof(poke_name[0]))

static int usage(void)
{
    fprintf(stderr,
            "usage: rtmgr bench preempt [--quick] [--device N] [--json] [--json-out FILE]\n"
            "                           [--sweep] [--no-sweep]\n"
            "                           [--part overhead|response|resume|poll|all]\n"
            "                           [--poll K] [--lanes L] [--groups G] [--wg W] [--static]\n"
            "                           [--cl-opts 'OPTIONS'] [--size KEY=VALUE,...]\n"
            "                           [--copies R] [--transport write|mapped]\n"
            "                           [--raise pinned|host|blocking|fill|armed]\n"
            "                           [--read eager|late|beside] [--wait poll|block]\n"
            "                           [--kernels NAME,...] [--cpu-latency US|off]\n"
            "                           [--prewake US] [--poke none|poll|write] [--keepalive US]\n"
            "                           [--watch auto|on|off] [--no-chunk] [--idle F]\n"
            "  --part  one part only (each fits one call on the GPU machine): overhead\n"
            "          (poll sweep + section 2), response (sections 4, 4b), resume (section 5),\n"
            "          poll (section 6: each looping kernel's poll period as calibrate\n"
            "          chooses it, every candidate's overhead)\n"
            "  --json  the summary as one JSON object, alone on stdout (no tables)\n"
            "  --json-out FILE  the same object written to FILE, the tables on stdout\n"
            "  --kernels the overhead, resume and poll parts for these kernels only\n"
            "  --no-sweep the overhead part without section 3 (spin's poll-period sweep; the\n"
            "          looping kernels' periods are per kernel either way)\n"
            "  --prewake    the response part's thread spins this long before each raise\n"
            "               instead of sleeping (default 200)\n"
            "  --poke       what that spin does besides: nothing (none, the default), ask\n"
            "               the driver for the job's status (poll), or write 4 bytes to\n"
            "               the device every 20 us (write: traffic on the link)\n"
            "  --no-chunk sections 2 and 5: production's build of a kernel whose chunks of\n"
            "               %u blocks would last %g ms or more runs on persistent groups\n"
            "               (the shape until session 65) instead of chunks (kexec.h) as\n"
            "               the executive runs it\n"
            "  --idle   section 2: the device idles F times a variant's last kernel time\n"
            "               before each run (at most %g ms), so that a power cap does not\n"
            "               slow the later runs (default %g on GPUs, 0 on CPU devices)\n"
            "  --watch  the in-kernel watcher of the host's raise word (kexec.h): on, off, or\n"
            "               auto (default: kernels of %g ms or more, as `rtmgr run`)\n"
            "  --keepalive  the response part's thread sleeps until the prewake window in\n"
            "               steps of US, writing 4 bytes to the device after each (traffic\n"
            "               on the link through the whole kernel; default 0: none)\n"
            "  --cpu-latency the CPU wake-up latency held while it runs (PM QoS,\n"
            "          /dev/cpu_dma_latency; default 0 as `rtmgr run` holds it; off = none)\n"
            "  --raise the write flag's raise path (default: probed, section 1b)\n"
            "  --read  when a job's outputs are enqueued: behind its kernels at the start\n"
            "          (eager: the old way, whose large pageable reads block the start on\n"
            "          NVIDIA) or after its last kernel ended (late); default: auto\n"
            "  --wait  how an abort waits for the kernels' end: polling the event's status\n"
            "          (poll, the default) or the driver's clWaitForEvents (block)\n"
            "  --cl-opts build options appended to every kernel variant (experiments with\n"
            "          kernels/rtm_block.h's switches, e.g. -DRTM_POLL_NOLOAD=1)\n"
            "  --size  size keys fixed for every kernel that has them (e.g. height=2048); the\n"
            "          key a kernel is sized by to the part's target time, when named, is not\n"
            "          sized (every kernel named in --kernels must have every key)\n",
            RTM_KEXEC_CHUNK_BLOCKS, RTM_PREEMPT_CHUNK_MIN_S * 1e3, IDLE_MAX_S * 1e3, IDLE_GPU,
            RTM_KEXEC_WATCH_MIN_S * 1e3);
    return RTM_EXIT_USAGE;
}

static bool parse_u32(const char *s, uint32_t *out)
{
    char *end = NULL;
    const unsigned long v = s ? strtoul(s, &end, 10) : 0;
    if (!s || !*s || *end || v > 0xFFFFFFFFul)
        return false;
    *out = (uint32_t)v;
    return true;
}

int rtm_bench_preempt(int argc, char **argv)
{
    static bench_t b; /* large; one per process */
    memset(&b, 0, sizeof(b));
    b.o.transport = -1;
    b.o.raise = -1;
    b.o.parts = PART_ALL;
    b.o.idle = -1.0;
    b.o.prewake_us = (int)(RTM_OS_SPIN_S * 1e6 + 0.5);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint32_t u = 0;
        if (strcmp(a, "--quick") == 0)
            b.o.quick = true;
        else if (strcmp(a, "--json") == 0)
            b.o.json = true;
        else if (strcmp(a, "--json-out") == 0 && v && ++i)
            b.o.json_out = v;
        else if (strcmp(a, "--sweep") == 0)
            b.o.sweep = true;
        else if (strcmp(a, "--no-sweep") == 0)
            b.o.no_sweep = true;
        else if (strcmp(a, "--static") == 0)
            b.o.static_fetch = true;
        else if (strcmp(a, "--cpu-latency") == 0 && v && ++i) {
            if (strcmp(v, "off") == 0)
                b.o.cpu_latency = -1;
            else if (parse_u32(v, &u) && u <= 1000000u)
                b.o.cpu_latency = (int)u;
            else
                return usage();
        } else if (strcmp(a, "--prewake") == 0 && parse_u32(v, &u) && u <= 1000000u && ++i) {
            b.o.prewake_us = (int)u;
        } else if (strcmp(a, "--watch") == 0 && v &&
                   (strcmp(v, "auto") == 0 || strcmp(v, "on") == 0 || strcmp(v, "off") == 0) &&
                   ++i) {
            b.o.watch = strcmp(v, "on") == 0 ? 1 : strcmp(v, "off") == 0 ? -1 : 0;
        } else if (strcmp(a, "--keepalive") == 0 && parse_u32(v, &u) && u <= 1000000u && ++i) {
            b.o.keepalive_us = u;
        } else if (strcmp(a, "--poke") == 0 && v && ++i) {
            int p = -1;
            for (int m = 0; m < (int)N_POKES; m++)
                if (strcmp(v, poke_name[m]) == 0)
                    p = m;
            if (p < 0)
                return usage();
            b.o.poke = (rtm_preempt_poke_t)p;
        } else if (strcmp(a, "--kernels") == 0 && v && ++i)
            b.o.kernels = v;
        else if (strcmp(a, "--device") == 0 && parse_u32(v, &u) && ++i)
            b.o.device = (int)u;
        else if (strcmp(a, "--poll") == 0 && parse_u32(v, &u) && ++i)
            b.o.poll = u;
        else if (strcmp(a, "--lanes") == 0 && parse_u32(v, &u) && ++i)
            b.o.lanes = u;
        else if (strcmp(a, "--cl-opts") == 0 && v && ++i)
            b.o.cl_extra = v;
        else if (strcmp(a, "--size") == 0 && v && ++i)
            b.o.sizes = v;
        else if (strcmp(a, "--groups") == 0 && parse_u32(v, &u) && ++i)
            b.o.groups = u;
        else if (strcmp(a, "--no-chunk") == 0)
            b.o.no_chunk = true;
        else if (strcmp(a, "--chunk") == 0) /* the default since session 65 */
            b.o.no_chunk = false;
        else if (strcmp(a, "--idle") == 0 && v && ++i) {
            char *end = NULL;
            b.o.idle = strtod(v, &end);
            if (!*v || *end || !(b.o.idle >= 0.0 && b.o.idle <= 100.0))
                return usage();
        }
        else if (strcmp(a, "--wg") == 0 && parse_u32(v, &u) && u >= 1 && ++i)
            b.o.wg = u;
        else if (strcmp(a, "--copies") == 0 && parse_u32(v, &u) && u >= 1 &&
                 u <= RTM_ABORTFLAG_COPIES_MAX && ++i) {
            b.o.copies = u;
            b.o.copies_set = true;
        } else if (strcmp(a, "--part") == 0 && v && ++i) {
            b.o.parts = strcmp(v, "overhead") == 0 ? PART_OVERHEAD
                        : strcmp(v, "response") == 0 ? PART_RESPONSE
                        : strcmp(v, "resume") == 0   ? PART_RESUME
                        : strcmp(v, "poll") == 0     ? PART_POLL
                        : strcmp(v, "all") == 0      ? PART_ALL
                                                     : 0u;
            if (!b.o.parts)
                return usage();
        }
        else if (strcmp(a, "--read") == 0 && v && ++i) {
            if (strcmp(v, "eager") != 0 && strcmp(v, "late") != 0 && strcmp(v, "beside") != 0)
                return usage();
            b.o.read_late = strcmp(v, "late") == 0 ? 1 : strcmp(v, "beside") == 0 ? 2 : -1;
        }
        else if (strcmp(a, "--wait") == 0 && v && ++i) {
            if (strcmp(v, "block") != 0 && strcmp(v, "poll") != 0)
                return usage();
            b.o.wait_end = strcmp(v, "block") == 0 ? 1 : -1;
        }
        else if (strcmp(a, "--raise") == 0 && v && ++i) {
            b.o.raise = -2;
            for (int m = 0; m < RTM_RAISE_MODES; m++)
                if (strcmp(v, rtm_abortflag_raise_name((rtm_abort_raise_t)m)) == 0)
                    b.o.raise = m;
            if (b.o.raise == -2)
                return usage();
        } else if (strcmp(a, "--transport") == 0 && v && ++i)
            b.o.transport = strcmp(v, "mapped") == 0 ? RTM_ABORT_MAPPED
                            : strcmp(v, "write") == 0 ? RTM_ABORT_WRITE
                                                      : -2;
        else
            return usage();
        if (b.o.transport == -2)
            return usage();
    }
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    if (rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n) != RTM_OK)
        return RTM_EXIT_RUNTIME;
    if ((uint32_t)b.o.device >= n) {
        fprintf(stderr, "rtmgr bench preempt: no device %d (%u found)\n", b.o.device, n);
        return RTM_EXIT_USAGE;
    }
    /* opened before anything runs: a file that cannot be written stops the bench at once */
    FILE *jf = b.o.json_out ? fopen(b.o.json_out, "w") : NULL;
    if (b.o.json_out && !jf) {
        fprintf(stderr, "rtmgr bench preempt: cannot write %s: %s\n", b.o.json_out, strerror(errno));
        return RTM_EXIT_USAGE;
    }
    if (rtm_ocl_open(&b.dev, &infos[b.o.device]) != RTM_OK) {
        if (jf)
            fclose(jf);
        return RTM_EXIT_RUNTIME;
    }
    rtm_rng_seed(&b.rng, 2018);
    b.cap = 16384;
    b.pool_samples = malloc(b.cap * sizeof(double));
    b.pool_events = malloc(b.cap * sizeof(double));
    if (!b.pool_samples || !b.pool_events) {
        free(b.pool_samples);
        free(b.pool_events);
        rtm_ocl_close(&b.dev);
        if (jf)
            fclose(jf);
        return RTM_EXIT_RUNTIME;
    }
    const bool held = b.o.cpu_latency >= 0 && rtm_os_hold_cpu_latency(b.o.cpu_latency) == RTM_OK;
    if (b.o.cpu_latency >= 0 && !held)
        (void)rtm_os_rt_warning(stderr);
    const double t_start = rtm_os_now_s();
    b.have_pool = rtm_pool_start(&b.pool, 0, 0, NULL) == RTM_OK;
    if (!b.o.json)
        printf("bench preempt on %s (%s), %u compute units%s; CPU resumes on %u threads; "
               "CPU wake-up latency %s\n",
               b.dev.info.name, b.dev.info.platform_name, b.dev.info.units,
               b.o.quick ? ", quick" : "", b.have_pool ? b.pool.n_workers : 1,
               held ? "held at the value below (PM QoS)" : "not held (idle cores may sleep deeply)");
    if (!b.o.json && held)
        printf("cpu_dma_latency %d us\n", (int)rtm_os_cpu_latency_held());
    if (!b.o.json) {
        char watch[48]; /* the rule the executive follows (kexec.h) */
        snprintf(watch, sizeof(watch), "auto, kernels of %g ms or more",
                 RTM_KEXEC_WATCH_MIN_S * 1e3);
        printf("before each raise the thread spins %d us (--prewake) and pokes: %s (--poke); "
               "through the job a 4-byte write every %u us (--keepalive; 0: none); "
               "in-kernel watcher: %s (--watch)\n",
               b.o.prewake_us, poke_name[b.o.poke], b.o.keepalive_us,
               b.o.watch > 0 ? "on" : b.o.watch < 0 ? "off" : watch);
    }

    /* 1. transports (skipped when --transport names one: the mapped flag kept mapped
     * while kernels run is undefined in OpenCL, so a driver might mishandle it) */
    rtm_preempt_measure_t m;
    memset(&m, 0, sizeof(m));
    const rtm_status_t st =
        b.o.transport >= 0 ? RTM_OK : rtm_preempt_measure(&b.dev, b.o.quick ? 8 : 50, &m);
    if (b.o.transport >= 0) {
        if (!b.o.json)
            printf("\n1. flag transports: not measured (--transport)\n");
    } else if (st != RTM_OK) {
        fail(&b, "transport measurement failed", "spin", rtm_strerror(st));
    } else if (!b.o.json) {
        printf("\n1. flag transports (spin probe %.1f ms, aborts at random instants)\n"
               "%-8s %6s %6s %10s %10s %10s\n", m.kernel_s * 1e3, "", "works", "n", "p50 us",
               "p99 us", "max us");
        for (int t = 0; t < 2; t++)
            printf("%-8s %6s %6u %10.1f %10.1f %10.1f\n", rtm_abortflag_name(t),
                   m.works[t] ? "yes" : "no", m.n[t], m.p50_s[t] * 1e6, m.p99_s[t] * 1e6,
                   m.max_s[t] * 1e6);
    }
    b.transport = b.o.transport >= 0 ? (rtm_abort_transport_t)b.o.transport : m.best;
    if (!b.o.json)
        printf("using transport: %s\n", rtm_abortflag_name(b.transport));

    b.raise_mode = b.o.raise >= 0 ? (rtm_abort_raise_t)b.o.raise : RTM_KEXEC_RAISE_DEFAULT;
    if (b.transport == RTM_ABORT_WRITE && (b.o.raise < 0 || b.o.sweep))
        section_raise(&b);
    b.poll_k = b.o.poll;
    const char *const part_name[4] = {"overhead", "response", "resume", "poll"};
    for (int p = 0; p < 4; p++) {
        if (!(b.o.parts & (1u << p)))
            continue;
        const double t0 = rtm_os_now_s();
        if (p == 0) {
            if (!b.o.no_sweep)
                section_sweep(&b); /* chooses the production poll period */
            section_overhead(&b);
        } else if (p == 3) {
            section_kpoll(&b);
        } else if (p == 1) {
            section_response(&b);
            section_shape(&b);
        } else {
            section_resume(&b);
        }
        b.part_s[p] = rtm_os_now_s() - t0;
        if (!b.o.json)
            printf("(part %s: %.0f s)\n", part_name[p], b.part_s[p]);
    }

    rtm_stats_sort(b.pool_samples, b.npool);
    const double p50 = rtm_stats_percentile(b.pool_samples, b.npool, 50);
    const double p99 = rtm_stats_percentile(b.pool_samples, b.npool, 99);
    const double mx = b.npool ? b.pool_samples[b.npool - 1] : 0.0;
    rtm_stats_sort(b.pool_events, b.npool);
    const double ev99 = rtm_stats_percentile(b.pool_events, b.npool, 99);
    if (!b.o.json)
        printf("\nsummary: %zu aborts (%zu seen by the end mark): response p50 %.1f us, p99 "
               "%.1f us, max %.1f us (by the driver's event: p50 %.1f us, p99 %.1f us); "
               "overhead check %.3f %%, production %.3f %%; blocks re-executed %llu; "
               "%d failures; %.0f s\n",
               b.npool, b.nmarked, p50 * 1e6, p99 * 1e6, mx * 1e6,
               rtm_stats_percentile(b.pool_events, b.npool, 50) * 1e6, ev99 * 1e6,
               b.worst_check, b.worst_full, (unsigned long long)b.reexec, b.failures,
               rtm_os_now_s() - t_start);
    FILE *const outs[2] = {b.o.json ? stdout : NULL, jf};
    for (int o = 0; o < 2; o++) {
        if (!outs[o])
            continue;
        fprintf(outs[o], "{\"device\": ");
        rtm_bench_json_string(outs[o], b.dev.info.name);
        fprintf(outs[o],
                ", \"response_p50_us\": %.2f, \"response_p99_us\": %.2f, \"response_max_us\": %.2f, "
                "\"overhead_check_pct\": %.3f, \"overhead_feedback_pct\": %.3f, "
                "\"blocks_reexecuted\": %llu, \"response_event_p99_us\": %.2f, "
                "\"aborts_marked\": %zu}\n",
                p50 * 1e6, p99 * 1e6, mx * 1e6, b.worst_check, b.worst_full,
                (unsigned long long)b.reexec, ev99 * 1e6, b.nmarked);
    }
    fflush(stdout);
    if (jf && fclose(jf) != 0) {
        fprintf(stderr, "rtmgr bench preempt: cannot write %s: %s\n", b.o.json_out, strerror(errno));
        b.failures++;
    }
    if (b.have_pool)
        rtm_pool_stop(&b.pool);
    free(b.pool_samples);
    free(b.pool_events);
    rtm_ocl_close(&b.dev);
    return b.failures || b.reexec ? RTM_EXIT_RUNTIME : RTM_EXIT_OK;
}
