/* calib.c — `rtmgr calibrate`: the model parameters of this computer, measured (see
 * calib.h; method, parameters and units in docs/calibration.md).
 *
 * Owns: the measurement plan (what is measured, at which sizes, in which order), the
 * fits, the calibration record (spreads, notes), the profile's comment blocks, and the
 * staleness check. Validation lives in validate.c; CPU micro-kernels in cpubench.c.
 *
 * Order per OpenCL device: transfers -> device-memory copy rate -> occupancy probe
 * (cus, resident, units, a first r) -> launch latency and fixed time per launch ->
 * build and binary-load time -> cache size (a GPU's measured by a read sweep over 1 MiB ..
 * 512 MiB, the cliff at the geometric midpoint of the fast and slow time per byte: the
 * drivers' CL_DEVICE_GLOBAL_MEM_CACHE_SIZE can be the L1s together — 4.125 MiB for the
 * H100's 50 MB L2; a CPU device's as reported) -> matrix_mov (the device's r_op) -> every
 * catalogue kernel (work-group and vector-width sweep, then its own r and memory rate)
 * -> abort response and transport (preempt.c). Then the CPU: micro-kernels, pool overheads, every kernel's CPU
 * twin through the pool. One time budget for the whole run is shared out as it goes.
 *
 * Invariants: every figure is RTM_CALIB_REPS samples (the cache sweep: 5 per size) after
 * one warm-up, summarised by rtm_stats_summary (MAD outlier drop, median kept); every
 * fitted model term is fitted through model.c itself (the models are linear in r, so two
 * predictions give the coefficients; a device's multi-launch jobs by parts, linearised
 * where the model meets the measured time: dev_coef), so calibration and prediction
 * cannot disagree about a formula;
 * calibration sizes use odd values of a kernel's first size key and validation even
 * ones, so the two never meet; nothing here runs on the real-time path. */
#include "calib.h"
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "calibint.h"
#include "builder.h"
#include "cpubench.h"
#include "kexec.h"
#include "model.h"
#include "pool.h"
#include "poolkern.h"
#include "preempt.h"
#include "program.h"
#include "rng.h"
#include "stats.h"
#include "units.h"

#define REPS RTM_CALIB_REPS
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* Kernel-time targets of the per-kernel calibration sizes (seconds). Validation's are
 * interleaved (validate.c). */
static const double cal_targets_full[] = {0.05e-3, 0.25e-3, 1.2e-3, 5e-3, 20e-3};
static const double cal_targets_quick[] = {0.15e-3, 0.8e-3, 4e-3};
/* Largest bare transfer command timed for the record (the paper's method), and the size
 * of the pinned-memory comparison. */
#define RAW_MAX_BYTES ((size_t)16 << 20)
#define PINNED_BYTES ((size_t)64 << 20)
/* Kernel time of the tuning sweep's size (seconds). */
#define SWEEP_TARGET_S 1e-3
/* Wall time the whole run aims at (seconds): the devices and the CPU share it (the CPU
 * counts as half a device), and within each the catalogue kernels share what the
 * device-level figures left, each between KERNEL_MIN_S and KERNEL_MAX_S (its tuning
 * sweep may use 40% of it). Past its budget a kernel gets no point beyond its second. */
#define RUN_BUDGET_S 45.0
#define RUN_BUDGET_QUICK_S 10.0
#define KERNEL_MIN_S 0.15
#define KERNEL_MAX_S 2.0

/* The OpenCL source of the calibration-only kernels: a dependent multiply-add chain per
 * work-item (occupancy probe), a kernel that does nothing (launch costs), and a read
 * sweep (the last-level cache: work-item g of G reads uint4 g, g + G, …, per of them,
 * `passes` times, moving by `rot` work-items each pass; the sum is written so that no
 * load is optimised away). */
static const char probe_src[] =
    "__kernel void rtm_calib_probe(__global float *out, const uint steps, const float a,\n"
    "                              const float b)\n"
    "{\n"
    "    float x = (float)get_local_id(0) * 1e-3f;\n"
    "    for (uint i = 0; i < steps; i++)\n"
    "        x = mad(x, a, b);\n"
    "    out[get_global_id(0)] = x;\n"
    "}\n"
    "__kernel void rtm_calib_empty(__global float *out)\n"
    "{\n"
    "    if (get_global_id(0) == 0xFFFFFFFFu)\n"
    "        out[0] = 0.0f;\n"
    "}\n"
    /* an empty kernel with a catalogue kernel's arguments (kexec's 8 + grid_path's 8) */
    "__kernel void rtm_calib_launch(__global float *out, __global uchar *b1, __global uint *b2,\n"
    "                               const uint u3, const uint u4, const uint u5,\n"
    "                               __global uint *b6, __global uint *b7, __global uint *src,\n"
    "                               __global uint *dst, __global const uchar *b10,\n"
    "                               __global uint *b11, const uint u12, const uint u13,\n"
    "                               const uint u14, const uint pass)\n"
    "{\n"
    "    if (get_global_id(0) == 0xFFFFFFFFu)\n"
    "        out[0] = (float)(src[0] + dst[0] + u3 + u4 + u5 + u12 + u13 + u14 + pass) +\n"
    "                 (float)(b1[0] + b2[0] + b6[0] + b7[0] + b10[0] + b11[0]);\n"
    "}\n"
    "__kernel void rtm_calib_sweep(__global const uint4 *buf, const uint per, const uint passes,\n"
    "                              const uint rot, __global uint *out)\n"
    "{\n"
    "    const uint g = (uint)get_global_id(0), n = (uint)get_global_size(0);\n"
    "    uint4 acc = (uint4)(0u);\n"
    "    uint i = g;\n"
    "    for (uint p = 0; p < passes; p++) {\n"
    "        uint k = i;\n"
    "        for (uint j = 0; j < per; j++, k += n)\n"
    "            acc += buf[k];\n"
    "        i += rot;\n"
    "        if (i >= n)\n"
    "            i -= n;\n"
    "    }\n"
    "    out[g] = acc.x ^ acc.y ^ acc.z ^ acc.w;\n"
    "}\n";

/* Unit class of every parameter, from board.h's lists. */
#define P_UNIT(id, key, unit, help) RTM_UNIT_##unit,
static const rtm_unit_t dev_unit[RTM_DEV_P_COUNT] = {RTM_DEV_PARAMS(P_UNIT)};
static const rtm_unit_t cpu_unit[RTM_CPU_P_COUNT] = {RTM_CPU_PARAMS(P_UNIT)};
#undef P_UNIT

/* ---- shared helpers (calibint.h) --------------------------------------------------- */

double rtm_calib_now(void) { return rtm_os_now_s(); }

double rtm_calib_summary(double *x, size_t n, rtm_calib_fig_t *fig)
{
    rtm_summary_t s;
    rtm_stats_summary(x, n, &s);
    if (fig) {
        fig->median = s.median;
        fig->spread = s.spread;
        fig->resid = 0.0;
        fig->n = (uint32_t)s.n;
        fig->kept = (uint32_t)s.kept;
    }
    return s.median;
}

bool rtm_calib_warm_more(int w, double warmed, double warm_s)
{
    return w == 0 || (warmed < warm_s && w < RTM_CALIB_WARM_MAX);
}

bool rtm_calib_wanted(const char *list, const char *name)
{
    if (!list || !*list)
        return true;
    const size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, n) == 0)
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

void rtm_calib_inst_free(rtm_calib_inst_t *in)
{
    if (!in->borrowed) /* else the arena's */
        free(in->mem);
    memset(in, 0, sizeof(*in));
}

void rtm_calib_arena_init(rtm_calib_arena_t *a, rtm_ocl_dev_t *dev, size_t cap)
{
    *a = (rtm_calib_arena_t){dev, cap, !(dev->info.type & CL_DEVICE_TYPE_CPU), {0}, 0, 0.0};
}

void rtm_calib_arena_free(rtm_calib_arena_t *a)
{
    rtm_pinned_destroy(&a->pin);
}

/* Plans `in` (kern at size, tune); *need: its memory, in->bytes rounded up to 64. */
static rtm_status_t inst_plan(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                              const int64_t *size, rtm_tune_t tune, size_t *need)
{
    memset(in, 0, sizeof(*in));
    rtm_kinst_init(&in->k, kern);
    for (uint32_t i = 0; i < kern->n_keys; i++)
        in->k.size[i] = size[i];
    in->k.tune = tune;
    const rtm_status_t st = rtm_kinst_plan(&in->k);
    const size_t bytes = rtm_kinst_bytes(&in->k);
    in->bytes = bytes ? bytes : 64;
    *need = (in->bytes + 63) & ~(size_t)63;
    return st;
}

/* Binds in->mem (in->bytes, planned) and fills the inputs from `seed`. */
static rtm_status_t inst_fill(rtm_calib_inst_t *in, uint64_t seed)
{
    if (!in->mem)
        return RTM_E_NOMEM;
    if (rtm_kinst_bind(&in->k, in->mem, in->bytes) == 0 && rtm_kinst_bytes(&in->k)) {
        rtm_calib_inst_free(in);
        return RTM_E_NOMEM;
    }
    in->k.kernel->fill(&in->k, seed);
    return RTM_OK;
}

rtm_status_t rtm_calib_inst_make(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                                 const int64_t *size, rtm_tune_t tune, uint64_t seed)
{
    size_t need;
    const rtm_status_t st = inst_plan(in, kern, size, tune, &need);
    if (st != RTM_OK)
        return st;
    in->mem = aligned_alloc(64, need);
    return inst_fill(in, seed);
}

/* An arena grows in steps of this many bytes (fewer re-pinnings as the points grow). */
#define ARENA_STEP ((size_t)64 << 20)

rtm_status_t rtm_calib_inst_make_in(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                                    const int64_t *size, rtm_tune_t tune, uint64_t seed,
                                    rtm_calib_arena_t *a)
{
    size_t need;
    const rtm_status_t st = inst_plan(in, kern, size, tune, &need);
    if (st != RTM_OK)
        return st;
    if (a->pin.bytes < need) {
        const double t0 = rtm_calib_now();
        size_t want = need > 2 * a->pin.bytes ? need : 2 * a->pin.bytes;
        want = (want + ARENA_STEP - 1) / ARENA_STEP * ARENA_STEP;
        if (a->cap && (want > a->cap || a->eager))
            want = a->cap > need ? a->cap : need;
        rtm_pinned_destroy(&a->pin);
        if (rtm_pinned_create(&a->pin, a->dev, want) != RTM_OK)
            (void)rtm_pinned_create(&a->pin, a->dev, need);
        a->grows++;
        a->grow_s += rtm_calib_now() - t0;
    } else {
        rtm_rng_zero(a->pin.host, need); /* as a fresh pinned instance is */
    }
    if (a->pin.bytes >= need) {
        in->mem = a->pin.host;
        in->borrowed = true;
    } else {
        in->mem = aligned_alloc(64, need);
    }
    return inst_fill(in, seed);
}

/* True when one of keys[0..n) is key. */
static bool key_in(const int64_t *keys, uint32_t n, int64_t key)
{
    for (uint32_t q = 0; q < n; q++)
        if (keys[q] == key)
            return true;
    return false;
}

/* Plans kernel `kern` at first key `key0` (other keys at their defaults) and `tune`.
 * True when it plans and fits the limits. */
static bool size_plan(const rtm_kernel_t *kern, int64_t key0, rtm_tune_t tune,
                      const rtm_calib_lim_t *lim, rtm_kinst_t *k)
{
    rtm_kinst_init(k, kern);
    if (kern->n_keys)
        k->size[0] = key0;
    k->tune = tune;
    if (rtm_kinst_plan(k) != RTM_OK)
        return false;
    if (!lim)
        return true;
    double total = 0.0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if ((double)k->plan.buf[i].bytes > lim->max_buf)
            return false;
        total += (double)k->plan.buf[i].bytes;
    }
    return total <= lim->max_total;
}

/* The largest first key in [lo, hi] that plans within the limits (lo does; bytes grow
 * with the key). */
static int64_t largest_fit(const rtm_kernel_t *kern, int64_t lo, int64_t hi, rtm_tune_t tune,
                           const rtm_calib_lim_t *lim)
{
    rtm_kinst_t k;
    if (size_plan(kern, hi, tune, lim, &k))
        return hi;
    int64_t a = lo, b = hi; /* a fits, b does not */
    while (b - a > 1) {
        const int64_t m = a + (b - a) / 2;
        if (size_plan(kern, m, tune, lim, &k))
            a = m;
        else
            b = m;
    }
    return a;
}

/* True when `key` plans within the limits and f(ctx) of it reaches `level` (> level when
 * `strict`, else >=). */
static bool key_reaches(const rtm_kernel_t *kern, int64_t key, rtm_tune_t tune,
                        const rtm_calib_lim_t *lim, rtm_calib_pred_fn f, const void *ctx,
                        double level, bool strict)
{
    rtm_kinst_t k;
    if (!size_plan(kern, key, tune, lim, &k))
        return false;
    const double v = f(ctx, &k);
    return strict ? v > level : v >= level;
}

/* The smallest first key in [lo, hi] that reaches `level` (key_reaches), f growing with
 * the key and hi reaching it. */
static int64_t first_reaching(const rtm_kernel_t *kern, int64_t lo, int64_t hi, rtm_tune_t tune,
                              const rtm_calib_lim_t *lim, rtm_calib_pred_fn f, const void *ctx,
                              double level, bool strict)
{
    if (key_reaches(kern, lo, tune, lim, f, ctx, level, strict))
        return lo;
    int64_t a = lo, b = hi; /* a does not reach, b does */
    while (b - a > 1) {
        const int64_t m = a + (b - a) / 2;
        if (key_reaches(kern, m, tune, lim, f, ctx, level, strict))
            b = m;
        else
            a = m;
    }
    return b;
}

int64_t rtm_calib_size_for(const rtm_kernel_t *kern, rtm_tune_t tune, double target,
                           rtm_calib_pred_fn pred, const void *ctx, const rtm_calib_lim_t *lim,
                           int parity, int64_t min_key, const int64_t *avoid, uint32_t navoid,
                           int64_t *size)
{
    rtm_kinst_t k;
    if (kern->n_keys == 0) {
        if (!size_plan(kern, 0, tune, lim, &k))
            return -1;
        memcpy(size, k.size, sizeof(k.size));
        return 0;
    }
    int64_t lo = kern->keys[0].min, hi = kern->keys[0].max;
    /* not far below the kernel's default size: tiny sizes (one target, a 3-ship fleet)
     * are all fixed overhead and padding, nothing a task set runs */
    if (kern->keys[0].def / 8 > lo && kern->keys[0].def / 8 <= hi)
        lo = kern->keys[0].def / 8;
    if (!size_plan(kern, lo, tune, lim, &k))
        lo = kern->keys[0].min;
    if (!size_plan(kern, lo, tune, lim, &k))
        return -1;
    if (min_key > lo && size_plan(kern, min_key, tune, lim, &k))
        lo = min_key;
    hi = largest_fit(kern, lo, hi, tune, lim);
    /* smallest key whose prediction reaches the target (predictions grow with it) */
    int64_t key = hi;
    if (key_reaches(kern, hi, tune, lim, pred, ctx, target, false))
        key = first_reaching(kern, lo, hi, tune, lim, pred, ctx, target, false);
    /* two significant digits (1283 -> 1300): sizes repeat from run to run, so programs
     * built with sizes in their options come from the binary cache the next time */
    if (key >= 100) {
        int64_t unit = 1;
        while (key / unit >= 100)
            unit *= 10;
        const int64_t q = (key + unit / 2) / unit * unit;
        if (q >= lo && q <= hi)
            key = q;
    }
    /* the nearest key of the wanted parity that plans and is not taken */
    for (int64_t step = 0; step < 64; step++) {
        const int64_t cand[2] = {key + step, key - step};
        for (int c = 0; c < 2; c++) {
            const int64_t v = cand[c];
            if (v < lo || v > hi || (parity >= 0 && (v & 1) != parity))
                continue;
            if (!key_in(avoid, navoid, v) && size_plan(kern, v, tune, lim, &k)) {
                memcpy(size, k.size, sizeof(k.size));
                return v;
            }
        }
    }
    /* no key of that parity: take the target's own */
    if (!size_plan(kern, key, tune, lim, &k))
        return -1;
    memcpy(size, k.size, sizeof(k.size));
    return key;
}

/* An instance's host working set: bytes in + out (rtm_calib_pred_fn; ctx unused). */
static double plan_ws(const void *ctx, const rtm_kinst_t *k)
{
    (void)ctx;
    rtm_cost_t c;
    k->kernel->cost(k, &c);
    return c.bytes_in + c.bytes_out;
}

int64_t rtm_calib_past_cache(const rtm_kernel_t *kern, rtm_tune_t tune, double cache,
                             const rtm_calib_lim_t *lim, int parity, int64_t *size)
{
    rtm_kinst_t k;
    if (kern->n_keys == 0 || !(cache > 0))
        return -1;
    int64_t lo = kern->keys[0].min, hi = kern->keys[0].max;
    if (!size_plan(kern, lo, tune, lim, &k))
        return -1;
    hi = largest_fit(kern, lo, hi, tune, lim);
    if (!key_reaches(kern, hi, tune, lim, plan_ws, NULL, cache, true))
        return -1; /* nothing that fits is past the cache */
    /* the smallest key past the cache (bytes grow with the key) */
    const int64_t key = first_reaching(kern, lo, hi, tune, lim, plan_ws, NULL, cache, true);
    for (int64_t v = key; v <= hi && v < key + 64; v++) {
        if (parity >= 0 && (v & 1) != parity)
            continue;
        if (size_plan(kern, v, tune, lim, &k) && plan_ws(NULL, &k) > cache) {
            memcpy(size, k.size, sizeof(k.size));
            return v;
        }
    }
    return -1;
}

/* ---- the context of one run -------------------------------------------------------- */

typedef struct {
    const rtm_calib_opts_t *o;
    rtm_calib_record_t *rec;
    const double *targets;
    size_t n_targets;
    double t0;        /* start of the run */
    double deadline;  /* end of the section being calibrated (device or CPU) */
    double barrier_s; /* CPU barrier round, measured with the micro-kernels */
    double cpu_knee;  /* bytes: the CPU pool's private caches together (host_private) */
    double past_s;    /* seconds the points past the cache took in this section */
    /* where the run's time went (the summary line): program builds (compiled from
     * source, in the measurement's kexecs and in the parallel prebuilds) and binary
     * loads from rtmgr's cache; the build-time figure c (dev_build) apart */
    double build_s, load_s, prebuild_s, cfig_s;
    uint32_t n_built, n_loaded, n_prebuilt;
    /* build workers building in the background of other devices' measurements (their
     * CPU time is this run's: load_mark) */
    const rtm_builder_t *bg[RTM_MAX_DEVICES];
    uint32_t n_bg;
} cal_t;

/* The private (L2) caches of `workers` host cores together, bytes; 0 when unknown.
 * Where the CPU kernels' time per operation jumps: on the H100 host (16 x 2 MiB L2,
 * 300 MiB L3) matrix_loop_add's time per n^3 goes 0.075 ns at n = 1000 (12 MB of
 * buffers) -> 0.18 at 2000 (48 MB) -> 0.40 at 3000, all far inside the L3: the column
 * walks of B leave the cores' own caches and TLB reach, not the last level. */
static double host_private(uint32_t workers)
{
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? (double)l2 * workers : 0.0;
}

/* The time one kernel may take now, `left` kernels (this one included) still to do. */
static double kernel_budget(const cal_t *c, uint32_t left)
{
    const double b = (c->deadline - rtm_calib_now()) / (left ? left : 1);
    return fmin(fmax(b, KERNEL_MIN_S), KERNEL_MAX_S);
}

/* Catalogue kernels the per-kernel part covers. */
static uint32_t kernels_wanted(const cal_t *c)
{
    uint32_t n = 0;
    for (uint32_t ki = 0; ki < rtm_kernel_count(); ki++)
        n += rtm_calib_wanted(c->o->kernels, rtm_kernel_at(ki)->name);
    return n;
}

static void note_v(rtm_calib_record_t *r, const char *fmt, va_list ap)
{
    const size_t room = sizeof(r->notes) - r->notes_len; /* bytes left, with the NUL */
    const int n = vsnprintf(r->notes + r->notes_len, room, fmt, ap);
    if (n < 0 || (size_t)n + 2 > room) { /* the line and its newline do not fit whole */
        r->notes[r->notes_len] = '\0';
        r->notes_dropped++;
        return;
    }
    r->notes_len += (size_t)n;
    r->notes[r->notes_len++] = '\n';
    r->notes[r->notes_len] = '\0';
}

void rtm_calib_note(rtm_calib_record_t *rec, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_v(rec, fmt, ap);
    va_end(ap);
}

/* Appends one formatted item to buf (len bytes, *used taken) when it fits whole, else
 * leaves buf as it was (the notes' lists: sizes and times, curves, candidates). */
__attribute__((format(printf, 4, 5))) static bool appendf(char *buf, size_t len, size_t *used,
                                                          const char *fmt, ...)
{
    if (*used >= len)
        return false;
    va_list ap;
    va_start(ap, fmt);
    const int m = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (m < 0 || (size_t)m >= len - *used) {
        buf[*used] = '\0';
        return false;
    }
    *used += (size_t)m;
    return true;
}

__attribute__((format(printf, 2, 3))) static void note(cal_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_v(c->rec, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) static void say(const cal_t *c, const char *fmt, ...)
{
    if (!c->o->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->o->log, "rtmgr: calibrate: [%5.1fs] ", rtm_calib_now() - c->t0);
    vfprintf(c->o->log, fmt, ap);
    fputc('\n', c->o->log);
    fflush(c->o->log);
    va_end(ap);
}

/* A figure that took a default because its measurement or fit failed: never silent —
 * a warning on stderr (even with --quiet), a FALLBACK note in the profile, and the
 * count in the run's summary. */
__attribute__((format(printf, 2, 3))) static void fallback(cal_t *c, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    c->rec->fallbacks++;
    fprintf(stderr, "rtmgr: calibrate: WARNING: fallback: %s\n", text);
    fflush(stderr);
    note(c, "FALLBACK: %s", text);
}

/* The host's load over a phase of calibration: CPU time that neither this process nor
 * its waited-for workers used (other processes, interrupts) and time the hypervisor
 * stole, in cores. The H100 host once calibrated its CPU with a pthread barrier round
 * of 60 us (spread 104 %) against 20 us (11 %) another time, sort's r_op 2.8x, and
 * validation then came out 33 % off: figures from a busy host are wrong, and say so. */
typedef struct {
    rtm_os_cpu_times_t t;
    double self_s, at;
    bool ok;
} load_mark_t;

/* Other processes' or the hypervisor's share above which the figures are suspect. */
#define LOAD_WARN_CORES 0.5

/* self_s counts the build workers that build in the background (c->bg), not yet reaped:
 * this run's own load, not another process's. */
static void load_mark(const cal_t *c, load_mark_t *m)
{
    m->ok = rtm_os_cpu_times(&m->t);
    m->self_s = rtm_os_self_cpu_s();
    for (uint32_t i = 0; i < c->n_bg; i++)
        m->self_s += rtm_builder_cpu_s(c->bg[i]);
    m->at = rtm_calib_now();
}

static void load_note(cal_t *c, const char *what, const load_mark_t *m0)
{
    load_mark_t m1;
    load_mark(c, &m1);
    const double wall = m1.at - m0->at;
    if (!m0->ok || !m1.ok || !(wall > 0))
        return;
    const double others =
        fmax(0.0, (m1.t.busy_s - m0->t.busy_s) - (m1.self_s - m0->self_s)) / wall;
    const double steal = fmax(0.0, m1.t.steal_s - m0->t.steal_s) / wall;
    note(c, "%s: host load while calibrating it (%.1fs): other processes and interrupts %.2f "
            "cores, stolen by the hypervisor %.2f cores, of %d",
         what, wall, others, steal, rtm_os_cpu_count());
    if (others > LOAD_WARN_CORES || steal > LOAD_WARN_CORES) {
        fprintf(stderr,
                "rtmgr: calibrate: WARNING: %s: the host was busy while it was calibrated "
                "(other processes %.2f cores, hypervisor %.2f cores of %d): its figures may be "
                "slow; recalibrate on a quiet machine\n",
                what, others, steal, rtm_os_cpu_count());
        fflush(stderr);
    }
}

/* Solves the 3 x 3 system A x = t (Cramer); false when singular. */
static bool solve3(const double A[3][3], const double t[3], double x[3])
{
    const double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                       A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                       A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    if (!(fabs(det) > 0))
        return false;
    for (int c = 0; c < 3; c++) {
        double M[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                M[i][j] = j == c ? t[i] : A[i][j];
        x[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
               det;
    }
    return true;
}

/* The fitted transfer form: first command + (m - 1) further ones + bytes. */
typedef struct {
    double first, next, inv;
} xfit_t;

/* Fits span = first + (commands - 1) * next + bytes * inv by relative least squares over
 * the series of 1-command (y1) and 2-command (y2) jobs at bytes x, over points [from, n)
 * (the bytes beyond x[from - 1] when from > 0, with `base` the time up to it); first,
 * next >= 0. *resid: the worst relative error. */
static void fit_transfers(const double *x, const double *y1, const double *y2, size_t n,
                          xfit_t *f, double *resid)
{
    double A[3][3] = {{0}}, t[3] = {0}, v[3] = {0};
    for (int m = 1; m <= 2; m++) {
        const double *y = m == 1 ? y1 : y2;
        for (size_t i = 0; i < n; i++) {
            if (!(y[i] > 0))
                continue;
            const double w = 1.0 / (y[i] * y[i]), col[3] = {1.0, m - 1.0, x[i]};
            for (int a = 0; a < 3; a++) {
                for (int b = 0; b < 3; b++)
                    A[a][b] += w * col[a] * col[b];
                t[a] += w * col[a] * y[i];
            }
        }
    }
    bool ok = solve3(A, t, v) && v[0] > 0 && v[1] >= 0 && v[2] > 0;
    if (!ok) {
        /* one fixed cost per command (the first form), or half the smallest one-command
         * span when even that comes out negative (noise at the small sizes) */
        const double s11 = A[0][0] + 2 * A[0][1] + A[1][1], s12 = A[0][2] + A[1][2],
                     s22 = A[2][2], t1 = t[0] + t[1], t2 = t[2];
        const double det = s11 * s22 - s12 * s12;
        v[0] = fabs(det) > 0 ? (t1 * s22 - t2 * s12) / det : 0.0;
        v[2] = fabs(det) > 0 ? (s11 * t2 - s12 * t1) / det : 0.0;
        if (!(v[0] > 0)) {
            v[0] = y1[0] > 0 ? 0.5 * y1[0] : 0.0;
            double num = 0, den = 0;
            for (int m = 1; m <= 2; m++) {
                const double *y = m == 1 ? y1 : y2;
                for (size_t i = 0; i < n; i++) {
                    if (!(y[i] > 0))
                        continue;
                    const double w = 1.0 / (y[i] * y[i]);
                    num += w * x[i] * (y[i] - m * v[0]);
                    den += w * x[i] * x[i];
                }
            }
            v[2] = den > 0 && num > 0 ? num / den : 0.0;
        }
        v[1] = v[0];
    }
    f->first = v[0], f->next = v[1], f->inv = v[2];
    *resid = 0.0;
    for (int m = 1; m <= 2; m++) {
        const double *y = m == 1 ? y1 : y2;
        for (size_t i = 0; i < n; i++)
            if (y[i] > 0)
                *resid = fmax(*resid, fabs(f->first + (m - 1) * f->next + x[i] * f->inv - y[i]) /
                                          y[i]);
    }
}

/* Relative squared error of the two-segment transfer time over both series. */
static double knee_err(const double *x, const double *y1, const double *y2, size_t n,
                       const xfit_t *f, double knee, double inv2, double *worst)
{
    double err = 0;
    *worst = 0;
    for (int m = 1; m <= 2; m++) {
        const double *y = m == 1 ? y1 : y2;
        for (size_t i = 0; i < n; i++) {
            if (!(y[i] > 0))
                continue;
            const double b = x[i];
            const double t = f->first + (m - 1) * f->next +
                             (knee > 0 && b > knee ? knee * f->inv + (b - knee) * inv2
                                                   : b * f->inv);
            const double e = (t - y[i]) / y[i];
            err += e * e;
            *worst = fmax(*worst, fabs(e));
        }
    }
    return err;
}

/* The extended model's transfer form, fitted: commands * fixed + bytes * inv1 up to a
 * knee, + (bytes - knee) * inv2 beyond it. Every measured size (but the two ends) is
 * tried as the knee, each with the fixed part and the first rate fitted below it and
 * the second rate above; a knee is kept only when it cuts the squared relative error
 * of the one-rate fit by at least a quarter (*knee = 0: none). */
static void fit_transfers_knee(const double *x, const double *y1, const double *y2, size_t n,
                               xfit_t *fit, double *knee, double *inv2, double *resid)
{
    double worst = 0;
    fit_transfers(x, y1, y2, n, fit, resid);
    *knee = 0.0;
    *inv2 = fit->inv;
    const double err0 = knee_err(x, y1, y2, n, fit, 0.0, 0.0, &worst);
    double best = 0.75 * err0;
    for (size_t k = 1; k + 1 < n; k++) {
        xfit_t f;
        double r;
        fit_transfers(x, y1, y2, k + 1, &f, &r);
        if (!(f.inv > 0))
            continue;
        double num = 0, den = 0;
        for (int m = 1; m <= 2; m++) {
            const double *y = m == 1 ? y1 : y2;
            for (size_t i = k + 1; i < n; i++) {
                if (!(y[i] > 0))
                    continue;
                const double w = 1.0 / (y[i] * y[i]), d = x[i] - x[k];
                num += w * d * (y[i] - f.first - (m - 1) * f.next - x[k] * f.inv);
                den += w * d * d;
            }
        }
        const double i2 = den > 0 ? num / den : 0.0;
        if (!(i2 > 0))
            continue;
        const double err = knee_err(x, y1, y2, n, &f, x[k], i2, &worst);
        if (err < best) {
            best = err;
            *fit = f;
            *knee = x[k];
            *inv2 = i2;
            *resid = worst;
        }
    }
}

/* Rounds to 4 significant digits in the unit the profile will show (ns, us, ms, s;
 * B/s .. GB/s), read back through the units parser: the profile stays readable and
 * loads exactly what calibration kept; the rounding (0.05% at most) is far below any
 * spread. */
static double round4(double v, rtm_unit_t unit)
{
    if (!(v > 0) || !isfinite(v))
        return v;
    double scale = 1.0;
    const char *suffix = "";
    if (unit == RTM_UNIT_TIME) {
        scale = v >= 1.0 ? 1.0 : v >= 1e-3 ? 1e-3 : v >= 1e-6 ? 1e-6 : 1e-9;
        suffix = v >= 1.0 ? "s" : v >= 1e-3 ? "ms" : v >= 1e-6 ? "us" : "ns";
    } else if (unit == RTM_UNIT_RATE) {
        scale = v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : v >= 1e3 ? 1e3 : 1.0;
        suffix = v >= 1e9 ? "GB/s" : v >= 1e6 ? "MB/s" : v >= 1e3 ? "KB/s" : "B/s";
    } else if (unit != RTM_UNIT_COUNT) {
        return v;
    }
    char buf[48], why[64];
    snprintf(buf, sizeof(buf), "%.4g%s", v / scale, suffix);
    double out = v;
    if (rtm_units_parse(buf, unit, &out, why, sizeof(why)) != RTM_OK || !(out > 0))
        return v;
    return out;
}

static void dev_param(rtm_board_dev_t *bd, int id, double v)
{
    bd->param[id] = v;
    bd->have[id] = true;
}

static void cpu_param(rtm_board_t *b, int id, double v)
{
    b->cpu_param[id] = v;
    b->cpu_have[id] = true;
}

static void iso_now(char *buf, size_t len)
{
    const time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- per-kernel fits (device and CPU alike) ------------------------------------------ */

/* One calibration point of a kernel: the extended model's kernel time there, without
 * the kernel's own fixed term and regimes, is a * r + b (a, b from the model itself);
 * measured t; ws = the job's buffer bytes (bytes_in + bytes_out). */
typedef struct {
    int64_t key;
    double a, b, ws, m, x, t, spread; /* x: the job's operation count (p_ops) */
    int reps;
    uint32_t part; /* measured on its first `part` blocks per worker (0: whole jobs) */
} kpoint_t;

/* How to size, predict and measure one kernel on one executor. */
typedef struct kfit {
    const rtm_kernel_t *kern;
    rtm_tune_t tune;
    const rtm_calib_lim_t *lim;
    rtm_calib_pred_fn pred; /* job time used for sizing; reads *r_est through pred_ctx */
    const void *pred_ctx;
    rtm_calib_pred_fn kpred; /* the model's kernel time alone (pred - kpred = transfers) */
    const void *kpred_ctx;
    double *r_est;
    /* a, b at instance k measured at t seconds (the model may be linear in r only by
     * parts: linearised where it meets t) */
    bool (*coef)(const void *ctx, const rtm_kinst_t *k, double t, double *a, double *b);
    rtm_status_t (*measure)(void *ctx, rtm_calib_inst_t *in, int reps, double *t,
                            rtm_calib_fig_t *f);
    /* optional (NULL: none): the whole job's time estimated from runs of its first
     * `part` blocks per worker (one-launch kernels whose whole job is too long) */
    rtm_status_t (*measure_part)(void *ctx, rtm_calib_inst_t *in, int reps, uint32_t part,
                                 double *t, rtm_calib_fig_t *f);
    void *ctx;
    double deadline; /* monotonic time after which no point beyond the third is added */
    bool cpu;        /* the CPU worker pool (else an OpenCL device) */
    double workers;  /* groups run at once: the pool's workers, a device's resident groups
                      * (measure_part's blocks are per worker) */
    rtm_calib_arena_t *arena; /* host buffers pinned on a device, as the runtime's (or NULL) */
    double cache;    /* bytes: the cache whose spill the fit's knee marks (0 = unknown) */
    double inst_s;   /* out: seconds spent making and freeing the points' instances */
    /* first keys whose programs were prebuilt for this kernel's later targets (size-built
     * programs): a target takes one whose predicted time is within PREBUILT_RATIO of it */
    int64_t pre_keys[24];
    uint32_t n_pre_keys;
    /* optional (NULL: none): builds together what the cache lacks of the programs at
     * sizes[0..n) (first keys keys[]), adding those it holds then to pre_keys */
    void (*prebuild)(void *ctx, struct kfit *kf, const int64_t *keys,
                     const int64_t (*sizes)[RTM_SIZE_KEYS_MAX], uint32_t n);
} kfit_t;

/* How far (as a ratio of times) a prebuilt size may be from a target's own and still be
 * measured for it: the points span the same range, and no compile lands on the path. */
#define PREBUILT_RATIO 1.8

/* Seconds of measuring one point may take beyond its first REPS jobs: a point whose
 * job is longer gets fewer repetitions (at least EXTRA_MIN_REPS). */
#define POINT_BUDGET_S 0.5
#define EXTRA_MIN_REPS 3
/* On an OpenCL device an extra point is skipped within this fraction of a size already
 * measured; on the CPU pool it is taken only beyond the sizes measured (gap points there
 * gave the H100 host's matrix_add a second regime slower below its knee than above). */
#define EXTRA_APART 0.15
/* Longest predicted job of an extra (seed-000 validation-range) point. Where the
 * executor can run part of a job (the CPU pool), a longer one is measured on its first
 * blocks, about PART_S of them, and scaled to the whole job. */
#define EXTRA_MAX_S 0.4
#define PART_S 0.03
#define PART_REPS 3

/* Runs of a point after its warm-up run took first_s: the warm-up tells what a run
 * takes, and one longer than predicted (matrix_loop_add's 5x from n = 1000 to 3000 on
 * the CPU; grid_path's 20 ms target at 206 ms there, 10 runs) gets fewer, at least
 * EXTRA_MIN_REPS (never more than asked). */
static int reps_after_warmup(double first_s, int reps)
{
    return first_s > 0 && first_s * reps > POINT_BUDGET_S
               ? (int)fmin(reps, fmax(EXTRA_MIN_REPS, POINT_BUDGET_S / first_s))
               : reps;
}
/* Longest predicted job of the point past the cache measured whole (--quick:
 * PAST_MAX_QUICK_S), and its repetitions: as many as fit in POINT_BUDGET_S, at least one
 * after the warm-up. Predictions there run short (the H100 host's grid_path on the CPU:
 * width 7283 took 1.27 s a job, 2.9 s of the run with its warm-up, at a limit of 1 s). */
#define PAST_MAX_S 0.5
#define PAST_MAX_QUICK_S 0.1
/* Time all the points past the cache of one device (or of the CPU) may take, seconds:
 * what they can add to a run. */
#define PAST_SECTION_S 2.5
/* A point past the cache whose job is predicted longer than this is measured on its
 * first blocks where the executor can run part of a job (part_for). */
#define PAST_PART_S 0.15

/* Measures one point of kernel kf->kern at `size` (first key `key`), `reps` jobs (with
 * `part` > 0: the first part blocks per worker of each, kf->measure_part). */
static rtm_status_t kernel_point(kfit_t *kf, const int64_t *size, int64_t key, uint64_t seed,
                                 int reps, uint32_t part, kpoint_t *pt, double *per_job)
{
    const double t0 = rtm_calib_now();
    rtm_calib_inst_t in;
    rtm_status_t st =
        kf->arena ? rtm_calib_inst_make_in(&in, kf->kern, size, kf->tune, seed, kf->arena)
                  : rtm_calib_inst_make(&in, kf->kern, size, kf->tune, seed);
    kf->inst_s += rtm_calib_now() - t0;
    *pt = (kpoint_t){key, 0, 0, 0, 0, 0, 0, 0, reps, part};
    rtm_calib_fig_t f = {0};
    if (st == RTM_OK) {
        rtm_cost_t cost;
        kf->kern->cost(&in.k, &cost);
        pt->ws = cost.bytes_in + cost.bytes_out;
        pt->m = cost.bytes_dev;
        /* the count model.c scales by p_ops: Z * li on a device, li * sum z on the CPU */
        pt->x = kf->cpu ? cost.li * (cost.z[RTM_LOC_SCALAR] + cost.z[RTM_LOC_UNIT] +
                                     cost.z[RTM_LOC_STRIDED])
                        : cost.Z * cost.li;
        st = part ? kf->measure_part(kf->ctx, &in, reps, part, &pt->t, &f)
                  : kf->measure(kf->ctx, &in, reps, &pt->t, &f);
    }
    if (st == RTM_OK && !kf->coef(kf->ctx, &in.k, pt->t, &pt->a, &pt->b))
        st = RTM_E_MODEL;
    const double tf = rtm_calib_now();
    rtm_calib_inst_free(&in);
    kf->inst_s += rtm_calib_now() - tf;
    pt->spread = f.spread;
    if (st == RTM_OK && f.n > 0 && f.n < (uint32_t)pt->reps)
        pt->reps = (int)f.n; /* fewer after the warm-up (reps_after_warmup) */
    *per_job = (rtm_calib_now() - t0) / (pt->reps + 1);
    return st;
}

/* The seed-000 kernels' extra calibration sizes (first key n, or the empty kernel's
 * blocks of an n x n grid): odd n between and just beyond validation's 1000, 2000, 3000
 * (128, 256, 384 with --quick), so that the fit spans the range validation measures. */
static uint32_t extra_sizes(const cal_t *c, const rtm_kernel_t *kern, rtm_tune_t tune,
                            int64_t *keys)
{
    static const char *const s0[] = {"empty", "matrix_add", "matrix_add3", "matrix_loop_add",
                                     "matrix_mul"};
    static const int64_t full[] = {1501, 2501, 3001}, quick[] = {193, 321, 385};
    bool is = false;
    for (size_t i = 0; i < N_OF(s0); i++)
        is = is || strcmp(s0[i], kern->name) == 0;
    if (!is || kern->n_keys == 0)
        return 0;
    const int64_t *set = c->o->quick ? quick : full;
    for (uint32_t i = 0; i < 3; i++) {
        int64_t key = set[i];
        if (strcmp(kern->keys[0].name, "n") != 0) {
            const int64_t wg = tune.wg ? tune.wg : 1;
            key = (set[i] * set[i] + wg - 1) / wg;
            key |= 1;
        }
        keys[i] = key;
    }
    return 3;
}

/* Sizing from the measurements: once two sizes are measured, a job's time at first key
 * x is the model's transfers plus t2 * (x / x2)^e, e the exponent through the two
 * largest points (clamped to 0.3 .. 3): the model's operation counts can scale unlike
 * the kernel's time (padding to a work-group, caches), and a size chosen by them can
 * land far from its target. */
typedef struct {
    const kfit_t *kf;
    double x1, t1, x2, t2; /* the two largest points: first key, kernel time */
} epred_t;

static double emp_pred(const void *ctx, const rtm_kinst_t *k)
{
    const epred_t *e = ctx;
    const double total = e->kf->pred(e->kf->pred_ctx, k);
    const double kern = e->kf->kpred(e->kf->kpred_ctx, k);
    if (total < 0 || kern < 0 || !(e->x2 > e->x1) || !(e->t1 > 0) || !(e->t2 > 0))
        return total;
    const double ex = fmin(fmax(log(e->t2 / e->t1) / log(e->x2 / e->x1), 0.3), 3.0);
    double ratio = pow((double)k->size[0] / e->x2, ex);
    /* growing: never less than the model's own growth from the largest point (its
     * operation counts). Two small points can sit where fixed costs flatten the curve
     * (matrix_mov on PoCL, H100 host: n 131 -> 221 gave exponent 1.35, the 20 ms target
     * then landed at n=2601, 864 ms a job, 9.5 s of the run for one point) */
    rtm_kinst_t k2;
    if (k->size[0] > (int64_t)e->x2 &&
        size_plan(e->kf->kern, (int64_t)e->x2, e->kf->tune, NULL, &k2)) {
        const double m2 = e->kf->kpred(e->kf->kpred_ctx, &k2);
        if (m2 > 0)
            ratio = fmax(ratio, kern / m2);
    }
    return fmax(total - kern, 0.0) + e->t2 * ratio;
}

/* Measures kernel kf->kern at the calibration targets (job time), odd first keys: the
 * smallest target first, then the middle one, then the largest (so that the points span
 * the range even when time runs short), then the seed-000 kernels' extra sizes near
 * validation's that are not near a size measured already, then the other targets in
 * between; from the fourth point on only while the kernel's time lasts. Points come
 * back sorted by size. */
/* The point at the cache's edge: taken when those below the cache stop short of
 * EDGE_FROM of it, at buffers just past EDGE_AT of it. */
#define EDGE_FROM 0.25
#define EDGE_AT 0.75

/* The largest buffers (ws) of the points at or below `cache` (0: none); *past: whether
 * any point is beyond it. */
static double ws_below(const kpoint_t *pts, uint32_t n, double cache, bool *past)
{
    double below = 0.0;
    *past = false;
    for (uint32_t i = 0; i < n; i++) {
        *past = *past || pts[i].ws > cache;
        if (pts[i].ws <= cache)
            below = fmax(below, pts[i].ws);
    }
    return below;
}

/* A partial job for instance k whose whole job is predicted to take *pt: the blocks
 * per worker (*part) whose run takes about PART_S, *pt then the part's predicted time;
 * *part 0 when the whole job is hardly longer. False when kf's executor cannot run part
 * of k (no measure_part, several launches). */
static bool part_for(const kfit_t *kf, const rtm_kinst_t *k, double *pt, uint32_t *part)
{
    const double per = ceil((double)rtm_kinst_blocks(k) / kf->workers);
    *part = 0;
    if (!kf->measure_part || k->plan.launches != 1 || !(per > 0) || !(*pt > 0))
        return false;
    const uint32_t p = (uint32_t)fmax(4.0, floor(PART_S / (*pt / per)));
    if (p < per) {
        *part = p;
        *pt = *pt * p / per;
    }
    return true;
}

/* Measures kf's kernel at the smallest odd size whose buffers exceed `bytes`, when its
 * job takes at most PAST_MAX_S (PAST_MAX_QUICK_S with --quick) and, unless `first`,
 * the section's PAST_SECTION_S for such points is not spent; appends it to pts/keys
 * (room for `max`). `where` ("past", "at the edge of") names it in the note written
 * when it is not taken. */
static rtm_status_t cache_point(cal_t *c, kfit_t *kf, double bytes, bool first, uint64_t seed,
                                kpoint_t *pts, int64_t *keys, uint32_t *n, uint32_t max,
                                const char *where)
{
    int64_t size[RTM_SIZE_KEYS_MAX];
    rtm_kinst_t pk;
    if (*n >= max)
        return RTM_OK;
    const int64_t pkey = rtm_calib_past_cache(kf->kern, kf->tune, bytes, kf->lim, 1, size);
    if (pkey < 0 || !size_plan(kf->kern, pkey, kf->tune, kf->lim, &pk))
        return RTM_OK;
    for (uint32_t i = 0; i < *n; i++)
        if (keys[i] == pkey)
            return RTM_OK;
    const double whole = kf->pred(kf->pred_ctx, &pk);
    const double cap = c->o->quick ? PAST_MAX_QUICK_S : PAST_MAX_S;
    /* a long job on its first blocks where the executor can run part of one (the CPU
     * pool, GPUs: predictions past a cache run short; PoCL's matrix_mul there,
     * predicted under 1 s, took 2.7 s a job); the limit then bounds the whole job no
     * more */
    double pt = whole;
    uint32_t part = 0;
    const bool can_part = pt > PAST_PART_S && part_for(kf, &pk, &pt, &part);
    const double want = pt > 0 ? POINT_BUDGET_S / pt : 0.0;
    int reps = want >= REPS ? REPS : want <= 1 ? 1 : (int)want;
    if (part && reps > PART_REPS)
        reps = PART_REPS;
    /* at most PAST_SECTION_S of them per device (and for the CPU), but the seed-000
     * kernels (`first`: validation measures them at n = 1000..3000, past most caches)
     * before the others */
    const bool in_time = first || c->past_s + pt * (reps + 1) <= PAST_SECTION_S;
    if (!(pt > 0) || (!can_part && pt > cap) || !in_time) {
        note(c, "%s: %s: no point %s the cache (%.4gMiB): the smallest size past %.4gMiB, "
                "%s=%lld, would take %.3gs a job (limit %.3gs%s)",
             kf->cpu ? "cpu" : "device", kf->kern->name, where, kf->cache / MIB, bytes / MIB,
             kf->kern->keys[0].name, (long long)pkey, whole, cap,
             in_time ? "" : "; this section's time for such points is spent");
        return RTM_OK;
    }
    kpoint_t point;
    double per_job = 0;
    const double t0 = rtm_calib_now();
    const rtm_status_t st = kernel_point(kf, size, pkey, seed, reps, part, &point, &per_job);
    c->past_s += rtm_calib_now() - t0;
    if (st == RTM_OK) {
        keys[*n] = pkey;
        pts[(*n)++] = point;
    }
    return st;
}

/* True when one of the n measured keys lies within 5 % (at least 2) of key: a point
 * there would measure nothing new. */
static bool key_near(const int64_t *keys, uint32_t n, int64_t key)
{
    for (uint32_t q = 0; q < n; q++)
        if (llabs(keys[q] - key) <= (key / 20 > 2 ? key / 20 : 2))
            return true;
    return false;
}

/* The first key (and sizes) of kf's point for calibration target i given the n points
 * measured: the largest target at least 1.5x the smallest size, so that the points span
 * a range, the others just distinct; from two points on sized by the measurements
 * (emp_pred). -1 when no size fits or the size lands next to one measured (a target
 * below the smallest size's time: nothing new). */
static int64_t target_key(const cal_t *c, const kfit_t *kf, size_t i, const kpoint_t *pts,
                          const int64_t *keys, uint32_t n, int64_t *size)
{
    const size_t nt = c->n_targets;
    const int64_t min_key = i == nt - 1 && n > 0 ? keys[0] + (keys[0] + 1) / 2 : 0;
    epred_t ep = {kf, 0, 0, 0, 0};
    for (uint32_t q = 0; q < n; q++) {
        const double xq = (double)keys[q];
        if (xq > ep.x2) {
            ep.x1 = ep.x2, ep.t1 = ep.t2;
            ep.x2 = xq, ep.t2 = pts[q].t;
        } else if (xq > ep.x1) {
            ep.x1 = xq, ep.t1 = pts[q].t;
        }
    }
    const bool emp = n >= 2 && kf->kpred && kf->kern->n_keys > 0;
    int64_t key = rtm_calib_size_for(kf->kern, kf->tune, c->targets[i],
                                     emp ? emp_pred : kf->pred,
                                           emp ? (const void *)&ep : kf->pred_ctx, kf->lim, 1,
                                           min_key, keys, n, size);
    if (key < 0)
        return -1;
    /* a prebuilt size near the target in time, if any (its program is in the cache) */
    double best = PREBUILT_RATIO;
    const bool own_prebuilt = key_in(kf->pre_keys, kf->n_pre_keys, key);
    for (uint32_t j = 0; !own_prebuilt && j < kf->n_pre_keys; j++) {
        const int64_t pk = kf->pre_keys[j];
        rtm_kinst_t k;
        if (pk < min_key || key_near(keys, n, pk) ||
            !size_plan(kf->kern, pk, kf->tune, kf->lim, &k))
            continue;
        const double t = emp ? emp_pred(&ep, &k) : kf->pred(kf->pred_ctx, &k);
        const double r = t > c->targets[i] ? t / c->targets[i] : c->targets[i] / fmax(t, 1e-12);
        if (t > 0 && r < best) {
            best = r;
            key = pk;
            memcpy(size, k.size, sizeof(k.size));
        }
    }
    return key_near(keys, n, key) ? -1 : key;
}

/* The inputs' seed of a kernel's first point (the j-th gets POINT_SEED0 + j). */
#define POINT_SEED0 3

/* Measures the smallest of the n points again (same size, seed and repetitions) and
 * keeps the lower of its two times (see kernel_points). */
static rtm_status_t remeasure_smallest(kfit_t *kf, kpoint_t *pts, const int64_t *keys, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 1; i < n; i++)
        if (keys[i] < keys[s])
            s = i;
    if (pts[s].part) /* a partial job: long, measured in its own way */
        return RTM_OK;
    rtm_kinst_t k;
    if (!size_plan(kf->kern, keys[s], kf->tune, kf->lim, &k))
        return RTM_OK;
    kpoint_t again;
    double per_job = 0;
    const rtm_status_t st =
        kernel_point(kf, k.size, keys[s], POINT_SEED0, pts[s].reps, 0, &again, &per_job);
    if (st == RTM_OK && again.t > 0 && again.t < pts[s].t)
        pts[s] = again;
    return st;
}

/* The order a kernel's calibration targets are measured in: the first, the middle one,
 * the last, then the others (each point sizes the next from the largest measured so
 * far: a short step first, then the long one). Returns how many (at most max). */
static size_t target_order(size_t nt, size_t *order, size_t max)
{
    size_t no = 0;
    if (nt > 0 && no < max)
        order[no++] = 0;
    if (nt > 2 && no < max)
        order[no++] = nt / 2;
    if (nt > 1 && no < max)
        order[no++] = nt - 1;
    for (size_t i = 1; i + 1 < nt && no < max; i++)
        if (i != nt / 2)
            order[no++] = i;
    return no;
}

/* Programs built ahead of a kernel's points (kf->prebuild) at most per call. */
#define AHEAD_MAX 16

/* Hands kf->prebuild the sizes kernel_points is about to measure, by the prediction as it
 * stands: the targets order[from..nt), and with `all` the extra sizes and the point past
 * the cache. Their programs are built together (in parallel by the build workers) instead
 * of one at a time on the path: the H100's sweeps moved several kernels to another
 * work-group size than the prebuilt points', and PoCL's first points resized the rest,
 * 25 programs (7.7 s) compiled one by one in kernel_points on the H100 host. */
static void points_ahead(const cal_t *c, kfit_t *kf, const size_t *order, size_t from,
                         const int64_t *extra, uint32_t ne, bool all, const kpoint_t *pts,
                         const int64_t *keys, uint32_t n)
{
    if (!kf->prebuild)
        return;
    int64_t sizes[AHEAD_MAX][RTM_SIZE_KEYS_MAX], ks[AHEAD_MAX];
    uint32_t m = 0;
    for (size_t jj = from; jj < c->n_targets && m < AHEAD_MAX; jj++) {
        const int64_t key = target_key(c, kf, order[jj], pts, keys, n, sizes[m]);
        if (key >= 0 && !key_in(ks, m, key))
            ks[m++] = key;
    }
    for (uint32_t e = 0; all && e < ne && m < AHEAD_MAX; e++) {
        rtm_kinst_t k;
        if (!key_in(ks, m, extra[e]) && size_plan(kf->kern, extra[e], kf->tune, kf->lim, &k)) {
            memcpy(sizes[m], k.size, sizeof(k.size));
            ks[m++] = extra[e];
        }
    }
    if (all && kf->cache > 0 && m < AHEAD_MAX) {
        const int64_t pk =
            rtm_calib_past_cache(kf->kern, kf->tune, kf->cache, kf->lim, 1, sizes[m]);
        if (pk >= 0 && !key_in(ks, m, pk))
            ks[m++] = pk;
    }
    if (m > 0)
        kf->prebuild(kf->ctx, kf, ks, (const int64_t(*)[RTM_SIZE_KEYS_MAX])sizes, m);
}

static rtm_status_t kernel_points(cal_t *c, kfit_t *kf, kpoint_t *pts, uint32_t max, uint32_t *n)
{
    int64_t keys[16], size[RTM_SIZE_KEYS_MAX], extra[3];
    rtm_status_t st = RTM_OK;
    *n = 0;
    const size_t nt = c->n_targets;
    const uint32_t ne = extra_sizes(c, kf->kern, kf->tune, extra);
    const double top = c->targets[nt - 1];
    size_t order[16];
    (void)target_order(nt, order, N_OF(order)); /* nt targets, each once */
    const size_t first_extra = nt > 2 ? 3 : nt;
    for (size_t j = 0; j < nt + ne && *n < max && *n < N_OF(keys); j++) {
        const bool late = *n >= 3 && rtm_calib_now() > kf->deadline;
        const bool extra_j = j >= first_extra && j < first_extra + ne;
        if (late && !extra_j)
            break;
        int64_t key;
        int reps = REPS;
        uint32_t part = 0; /* blocks per worker of a partial job, 0: the whole job */
        const uint64_t seed = POINT_SEED0 + j;
        if (extra_j) {
            /* an extra size: when it fits, is not too long, and is not within EXTRA_APART
             * of a size measured already (it extends the range, or fills a gap: the
             * H100's top target put matrix_loop_add at n = 861 and 3201 with nothing
             * between, where its cliff is, and the fit had no regime) */
            const int64_t ek = extra[j - first_extra];
            bool apart = true;
            for (uint32_t i = 0; i < *n; i++)
                apart = apart && (kf->cpu ? keys[i] < ek /* the pool: beyond only */
                                          : fabs((double)keys[i] - (double)ek) >
                                                EXTRA_APART * (double)ek);
            rtm_kinst_t k;
            if (!apart || !size_plan(kf->kern, ek, kf->tune, kf->lim, &k))
                continue;
            double pt = kf->pred(kf->pred_ctx, &k);
            if (!(pt > 0))
                continue;
            /* too long a job: its first blocks, where the executor can run part of one
             * (the H100 host's matrix_mul took 9.4 s a job at n = 3000, and with points
             * up to n = 1673 only its time per operation was 40 % under there) */
            part = 0;
            if (pt > EXTRA_MAX_S && !part_for(kf, &k, &pt, &part))
                continue;
            /* past the kernel's time, only a cheap one (they reach the sizes validation
             * measures: the H100's matrix_mul had no point past its L2 without 3001) */
            if (late && pt * (EXTRA_MIN_REPS + 1) > POINT_BUDGET_S)
                continue;
            key = ek;
            memcpy(size, k.size, sizeof(size));
            const double want = POINT_BUDGET_S / pt;
            reps = want >= REPS ? REPS : want <= EXTRA_MIN_REPS ? EXTRA_MIN_REPS : (int)want;
            if (part && reps > PART_REPS)
                reps = PART_REPS;
        } else {
            const size_t jj = j < first_extra ? j : j - ne;
            /* before the first point (the tuning settled), and again as the first two
             * points re-size the rest */
            if (jj < 3)
                points_ahead(c, kf, order, jj, extra, ne, jj == 0, pts, keys, *n);
            key = target_key(c, kf, order[jj], pts, keys, *n, size);
            if (key < 0)
                continue;
        }
        kpoint_t pt;
        double per_job = 0;
        st = kernel_point(kf, size, key, seed, reps, part, &pt, &per_job);
        if (st != RTM_OK)
            break;
        keys[*n] = key;
        pts[(*n)++] = pt;
        /* the largest point so far sizes the next ones (a kernel's time per counted
         * operation drifts with size: padding, caches) */
        bool largest = true;
        for (uint32_t i = 0; i + 1 < *n; i++)
            largest = largest && keys[i] < key;
        if (pt.t > pt.b && largest)
            *kf->r_est = (pt.t - pt.b) / pt.a;
        /* a job far longer than the targets (instance set-up, a slow CPU twin): the
         * smallest size and one larger one only */
        const bool is_extra = j >= first_extra && j < first_extra + ne;
        if (j >= 1 && !is_extra && per_job > 8.0 * top)
            break;
    }
    /* the smallest size once more, now that the kernel has run a while, the lower of the
     * two kept: a kernel's first point follows its program's build or load, and came out
     * slow as a whole (every repetition) on a device that had idled meanwhile (H100
     * host: the CPU's last_chance at 33 targets 1.886 ms, then 0.17 ms in validation, a
     * fit with t_fixed 1.76 ms and a prediction 11x too long; the H100's sort at n =
     * 131073 0.385 ms one calibration, 0.495 ms another, validation 0.394 ms both) */
    if (st == RTM_OK && *n >= 2)
        st = remeasure_smallest(kf, pts, keys, *n);
    /* one point past the cache when none is (the sizes chosen by job time all fit in
     * it on a large cache: the fit never saw the regime where the working set spills,
     * and matrix_mul / matrix_loop_add at validation's 2000 and 3000 came out 20-80 %
     * under): the smallest odd size past it, when its job is not too long; measured
     * whatever the kernel's time left, since no other point can stand in for it */
    const uint32_t room = max < N_OF(keys) ? max : (uint32_t)N_OF(keys);
    bool past = false;
    (void)ws_below(pts, *n, kf->cache, &past);
    if (st == RTM_OK && *n > 0 && !past && kf->cache > 0)
        st = cache_point(c, kf, kf->cache, ne > 0, 3 + nt + ne, pts, keys, n, room, "past");
    /* one point at the cache's edge (the smallest odd size whose buffers pass 3/4 of
     * it) on an OpenCL device when a point is past the cache and those below it stop
     * short of a quarter of it: sort on the H100 was measured at n = 430001 (6.9 MiB)
     * and 17000001 with nothing between, and validation's n = 2700000, in the 64 MiB L2,
     * came out 43 % over (the fit had no in-cache point whose work outweighs its
     * launches, and with three points no second regime) */
    const double below = ws_below(pts, *n, kf->cache, &past);
    if (st == RTM_OK && !kf->cpu && past && below > 0 && below < EDGE_FROM * kf->cache)
        st = cache_point(c, kf, EDGE_AT * kf->cache, false, 4 + nt + ne, pts, keys, n, room,
                         "at the edge of");
    /* by size, for the fit and its record */
    for (uint32_t i = 1; i < *n; i++)
        for (uint32_t k = i; k > 0 && pts[k].ws < pts[k - 1].ws; k--) {
            const kpoint_t tmp = pts[k];
            pts[k] = pts[k - 1];
            pts[k - 1] = tmp;
        }
    return st;
}

/* Columns of the kernel fit: t - b = c0 * 1 + r_lo * a * (1 - h) + r_hi * a * h
 * + r_byte * m, h a point's share of the second regime: 0 below a knee and 1 beyond it
 * (KC_HI, a step), or the share of its buffers beyond the knee, 1 - knee / ws
 * (KC_MISS, gradual: model.c's rtm_model_r_blend). */
enum { KC_FIXED = 1, KC_HI = 2, KC_BYTE = 4, KC_MISS = 8 };

/* Weighted least squares (weights 1/t^2: relative error) of y_i = t_i - b_i on the
 * columns in `mask` (the second regime's, r_hi, with KC_HI or KC_MISS: each point's share
 * h[i]; without, a is all r_lo's). x gets {c0, r_lo, r_hi, r_byte}; returns the sum of
 * squared relative errors, or INFINITY when singular. */
static double fit_lsq(const kpoint_t *p, uint32_t n, unsigned mask, const double *h, double x[4])
{
    double A[4][5] = {{0}};
    int cols[4], nc = 0;
    const bool two = (mask & (KC_HI | KC_MISS)) != 0;
    if (mask & KC_FIXED)
        cols[nc++] = 0;
    cols[nc++] = 1;
    if (two)
        cols[nc++] = 2;
    if (mask & KC_BYTE)
        cols[nc++] = 3;
    for (uint32_t i = 0; i < n; i++) {
        const double w = 1.0 / (p[i].t * p[i].t), hi = two ? h[i] : 0.0;
        const double v[4] = {1.0, p[i].a * (1.0 - hi), p[i].a * hi, p[i].m};
        const double y = p[i].t - p[i].b;
        for (int r = 0; r < nc; r++) {
            for (int q = 0; q < nc; q++)
                A[r][q] += w * v[cols[r]] * v[cols[q]];
            A[r][4] += w * v[cols[r]] * y;
        }
    }
    for (int r = 0; r < nc; r++) { /* Gauss-Jordan, partial pivoting */
        int piv = r;
        for (int q = r + 1; q < nc; q++)
            if (fabs(A[q][r]) > fabs(A[piv][r]))
                piv = q;
        if (!(fabs(A[piv][r]) > 1e-300))
            return INFINITY;
        for (int q = 0; q < 5; q++) {
            const double tmp = A[r][q];
            A[r][q] = A[piv][q];
            A[piv][q] = tmp;
        }
        for (int q = 0; q < nc; q++) {
            if (q == r)
                continue;
            const double f = A[q][r] / A[r][r];
            for (int m = 0; m < 5; m++)
                A[q][m] -= f * A[r][m];
        }
    }
    x[0] = x[1] = x[2] = x[3] = 0.0;
    for (int r = 0; r < nc; r++)
        x[cols[r]] = A[r][4] / A[r][r];
    if (!two)
        x[2] = x[1];
    double sse = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double hi = two ? h[i] : 0.0;
        const double pred = x[0] + p[i].a * ((1.0 - hi) * x[1] + hi * x[2]) + p[i].m * x[3] +
                            p[i].b;
        const double e = (pred - p[i].t) / p[i].t;
        sse += e * e;
    }
    return sse;
}

/* The extended model's per-kernel terms fitted to points sorted by ws. */
typedef struct {
    double r, t_fixed, r_big, r_miss, knee, r_byte, p_ops, x_ref, resid;
} kfit_out_t;

/* One candidate form; INFINITY when it does not fit (a negative or zero term). A second
 * regime starts at point `split`: its knee at the cache when the cache lies between the
 * two sizes (the regime change is the working set leaving it), else halfway
 * (geometrically). */
static double fit_form(const kpoint_t *p, uint32_t n, unsigned mask, uint32_t split,
                       double cache, kfit_out_t *o)
{
    const bool step = (mask & KC_HI) != 0, miss = (mask & KC_MISS) != 0;
    double knee = 0.0, h[16] = {0};
    if (step || miss) {
        knee = cache > 0 && p[split - 1].ws <= cache && cache < p[split].ws
                   ? cache
                   : sqrt(p[split - 1].ws * p[split].ws);
        for (uint32_t i = 0; i < n && i < N_OF(h); i++)
            h[i] = step ? (i >= split ? 1.0 : 0.0)
                        : rtm_model_r_blend(0.0, 1.0, knee, p[i].ws);
    }
    double x[4] = {0, 0, 0, 0};
    const double sse = fit_lsq(p, n, mask, h, x);
    if (!(sse < INFINITY) || x[0] < 0 || !(x[1] > 0) || !(x[2] > 0) || x[3] < 0)
        return INFINITY;
    if ((step || miss) && (x[2] > RTM_CALIB_REGIME_MAX * x[1] || x[2] * RTM_CALIB_REGIME_MAX < x[1]))
        return INFINITY; /* not a cache's regime (calibint.h) */
    double worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double pred = x[0] + p[i].a * ((1.0 - h[i]) * x[1] + h[i] * x[2]) +
                            p[i].m * x[3] + p[i].b;
        worst = fmax(worst, fabs((pred - p[i].t) / p[i].t));
    }
    *o = (kfit_out_t){x[1], x[0], step ? x[2] : 0.0, miss ? x[2] : 0.0, knee, x[3], 0.0, 0.0,
                      worst};
    return sse;
}

/* Fits the kernel's terms: r alone, then with a fixed term t_fixed, a memory term
 * r_byte (time per byte of bytes_dev), both, a second regime beyond a knee between two
 * sizes — at the cache size when the cache lies between them, `cache` the executor's,
 * 0 = unknown — at least two points below it: a step to r_big, or a gradual one towards
 * r_miss by the share of the buffers beyond the knee, whichever fits better, its r within
 * RTM_CALIB_REGIME_MAX of r_op —, or an
 * operations' time growing as
 * (x / x_ref)^p_ops (p_ops in 0.05 .. 0.6 by 0.05, x_ref = the largest point's count),
 * alone or with t_fixed. A form with k terms needs k + 1 points when it is linear (r,
 * t_fixed, r_byte), k + 2 with a knee or an exponent, and is kept over a simpler one only when it halves the squared relative error per
 * extra term; every term must be >= 0 and r > 0. */
static bool fit_kernel(const kpoint_t *p, uint32_t n, double cache, kfit_out_t *o)
{
    /* (the gradual regime before the step: on a tie — one point beyond the knee fits
     * either exactly — a continuous time per operation) */
    static const unsigned forms[] = {0,       KC_FIXED,           KC_BYTE, KC_FIXED | KC_BYTE,
                                     KC_MISS, KC_FIXED | KC_MISS, KC_HI,   KC_FIXED | KC_HI};
    double best = INFINITY;
    *o = (kfit_out_t){0, 0, 0, 0, 0, 0, 0, 0, 0};
    kpoint_t q[16];
    if (n > N_OF(q))
        n = N_OF(q);
    double x_ref = 0;
    for (uint32_t i = 0; i < n; i++)
        x_ref = fmax(x_ref, p[i].x);
    for (int pi = 0; pi <= 12; pi++) {
        const double pw = 0.05 * pi;
        if (pi > 0 && !(x_ref > 0))
            break;
        bool ok = true;
        for (uint32_t i = 0; i < n; i++) {
            q[i] = p[i];
            if (pi > 0) {
                ok = ok && p[i].x > 0;
                q[i].a = p[i].a * pow(p[i].x / x_ref, pw);
            }
        }
        if (!ok)
            break;
        for (size_t f = 0; f < N_OF(forms); f++) {
            if (pi > 0 && (forms[f] & (KC_HI | KC_MISS | KC_BYTE)))
                continue; /* the power alone or with the fixed term */
            const bool hi = (forms[f] & (KC_HI | KC_MISS)) != 0; /* a second regime */
            const unsigned k = 1u + !!(forms[f] & KC_FIXED) + hi + !!(forms[f] & KC_BYTE) +
                               (pi > 0);
            /* r alone: 1 point; the linear terms (fixed, memory): k + 1; a regime or an
             * exponent: k + 2 (two degrees of freedom: a knee or a power through three
             * noisy points is not a measurement) — but a regime whose knee is the cache
             * (it lies between the two sizes) has no free knee: k + 1 */
            const bool linear = pi == 0 && !hi;
            const unsigned need = k == 1 ? 1u : linear ? k + 1 : k + 2;
            if (n < need && !(hi && n + 1 >= need))
                continue;
            const uint32_t s_lo = hi ? 2 : n, s_hi = hi ? n - 1 : n;
            for (uint32_t s = s_lo; s <= s_hi; s++) {
                if (hi && !(q[s].ws > q[s - 1].ws))
                    continue;
                const bool at_cache = hi && cache > 0 && q[s - 1].ws <= cache && cache < q[s].ws;
                if (n < need && !at_cache)
                    continue;
                kfit_out_t cand = {0, 0, 0, 0, 0, 0, 0, 0, 0};
                const double sse = fit_form(q, n, forms[f], s, cache, &cand);
                /* each extra term must halve the error: compare sse * 2^k (two exact
                 * fits tie: rounding must not choose between them) */
                const double score = sse * (double)(1u << k);
                if (score + 1e-20 < best) {
                    best = score;
                    *o = cand;
                    o->p_ops = pw;
                    o->x_ref = pi > 0 ? x_ref : 0.0;
                }
            }
        }
    }
    return best < INFINITY;
}

bool rtm_calib_fit(const rtm_calib_fitpt_t *p, uint32_t n, double cache, rtm_calib_fit_t *out)
{
    kpoint_t q[16] = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    if (n > N_OF(q))
        n = N_OF(q);
    for (uint32_t i = 0; i < n; i++)
        q[i] = (kpoint_t){0, p[i].a, p[i].b, p[i].ws, p[i].m, p[i].x, p[i].t, 0.0, REPS, 0};
    kfit_out_t o;
    const bool ok = fit_kernel(q, n, cache, &o);
    *out = (rtm_calib_fit_t){o.r,     o.t_fixed, o.r_big, o.r_miss, o.knee,
                             o.r_byte, o.p_ops,   o.x_ref, o.resid};
    return ok;
}

/* Fits and stores one kernel's points: ktune, figure, note. */
static void kernel_store(cal_t *c, const char *owner, const rtm_kernel_t *kern, rtm_tune_t tune,
                         const kpoint_t *pts, uint32_t n, double cache, double r_fallback,
                         const char *r_what, rtm_board_ktune_t *kt, rtm_calib_fig_t *f)
{
    kfit_out_t o = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!fit_kernel(pts, n, cache, &o)) {
        o = (kfit_out_t){r_fallback, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        fallback(c, "%s: %s: no fit with every term >= 0 through its %u point(s): r_op = %.4gns "
                    "(%s), no other term",
                 owner, kern->name, n, r_fallback * 1e9, r_what);
    }
    *kt = (rtm_board_ktune_t){.have = true, .tune = tune, .r_op = o.r, .mem_rate = 0.0,
                              .t_fixed = o.t_fixed, .r_big = o.r_big, .r_miss = o.r_miss,
                              .knee = o.knee,
                              .r_byte = o.r_byte, .p_ops = o.p_ops, .x_ref = o.x_ref};
    double spread = 0;
    uint32_t samples = 0;
    for (uint32_t i = 0; i < n; i++) {
        spread = fmax(spread, pts[i].spread);
        samples += (uint32_t)pts[i].reps;
    }
    f->median = o.r;
    f->spread = spread;
    f->resid = o.resid;
    f->n = samples;
    f->kept = f->n;
    char ks[384];
    size_t used = 0;
    ks[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        (void)appendf(ks, sizeof(ks), &used, "%s%lld:%.4gms%s%s", i ? " " : "",
                      (long long)pts[i].key, pts[i].t * 1e3, pts[i].part ? "(first blocks)" : "",
                      pts[i].reps < REPS ? "(few reps)" : "");
    char big[128] = "";
    size_t used_b = 0;
    if (o.r_byte > 0)
        (void)appendf(big, sizeof(big), &used_b, ", r_byte %.4gns/KiB", o.r_byte * 1e9 * KIB);
    if (o.r_big > 0)
        (void)appendf(big, sizeof(big), &used_b, ", r_big %.4gns beyond %.4gMiB", o.r_big * 1e9,
                      o.knee / MIB);
    if (o.r_miss > 0)
        (void)appendf(big, sizeof(big), &used_b, ", towards r_miss %.4gns beyond %.4gMiB",
                      o.r_miss * 1e9, o.knee / MIB);
    if (o.p_ops > 0)
        (void)appendf(big, sizeof(big), &used_b, ", ops^%.2f", 1.0 + o.p_ops);
    note(c, "%s: %s wg %u vec %u, at %s=%s -> r_op %.4gns, t_fixed %.4gus%s (fit residual %.1f%%)",
         owner, kern->name, tune.wg, tune.vec, kern->n_keys ? kern->keys[0].name : "-", ks,
         o.r * 1e9, o.t_fixed * 1e6, big, o.resid * 100);
    say(c, "%s: %s r_op %.4gns t_fixed %.4gus%s wg %u vec %u (%u sizes, residual %.1f%%)", owner,
        kern->name, o.r * 1e9, o.t_fixed * 1e6, big, tune.wg, tune.vec, n, o.resid * 100);
}

/* ---- OpenCL device ------------------------------------------------------------------ */

/* Later calibration targets whose sizes are prebuilt for kernels with size-built programs:
 * every one after the first, in kernel_points' order (the middle target, the last, the
 * others). With the middle and the last alone (before session 19), the H100 host still
 * compiled 8-9 s on the path, one program at a time, over gpu0 and ocl0. */
#define PRE_TARGETS_MAX 4
/* A CPU-type device's background batch (built while the GPUs are measured, its cores
 * otherwise idle) adds, for kernels whose programs hold their size, a ladder of sizes
 * whose predicted times step by LADDER_STEP from LADDER_SPAN below the smallest target
 * to LADDER_SPAN above the largest: a target then finds a prebuilt size within
 * sqrt(LADDER_STEP) < PREBUILT_RATIO of its time whatever its first points taught the
 * prediction (the H100 host's PoCL rebuilt cpa_pairs' and trajectory's later sizes,
 * 2.2-3.4 s on the path, after its first points). */
#define LADDER_STEP 3.0
#define LADDER_SPAN 8.0
/* Prebuilt sizes kept per kernel: the later targets' and the ladder's. */
#define PRE_KEYS_MAX 16
/* Host cores from which they are prebuilt (dev_prebuild_all) */
#define PRE_LATER_CORES 8

typedef struct {
    cal_t *c;
    rtm_ocl_dev_t *d;
    rtm_board_dev_t *bd;
    int di;                /* index in the board */
    rtm_calib_lim_t lim;   /* instance limits on this device */
    cl_program probe;      /* probe_src, built once */
    uint32_t wg_probe;
    double r_probe;        /* dependent op time per work-item at full occupancy */
    const char *cache;     /* rtmgr's program binary cache, NULL when there is none */
    double knee;           /* bytes: the cache whose spill the kernel fits' knee marks */
    /* timing of the per-kernel part (notes): inside dev_measure, the kexec's program
     * (compiled, or loaded from the cache) and the runs after it */
    double build_s, load_s, run_s, pre_s; /* pre_s: parallel prebuild batches (wall) */
    uint32_t n_built, n_loaded, n_pre;
    int ocl_index;         /* the device's index in rtm_ocl_discover's order */
    uint32_t pre_procs;    /* build workers started (0: none, or threads) */
    rtm_calib_arena_t arena; /* the points' pinned host memory */
    /* size-built programs prebuilt for later targets: their first keys, by kernel */
    int64_t pre_key[RTM_MAX_KERNELS][PRE_KEYS_MAX];
    uint32_t n_pre_key[RTM_MAX_KERNELS];
    rtm_builder_t bld;       /* the device's build workers (builder.h), up after the first
                              * batch worth them until the device is done */
    /* the background batch (dev_prebuild_all's `send`): jobs queued, when, and the
     * workers' CPU seconds then */
    uint32_t bg_sent;
    double bg_t0, bg_cpu0;
    bool ladder; /* prebuild_list adds the ladder (LADDER_STEP): a background batch's */
} devcal_t;

static rtm_calib_fig_t *dfig(devcal_t *x, int id) { return &x->c->rec->dev[x->di][id]; }

/* The transfers of a job, as the runtime enqueues them: an instance with one input and
 * one output buffer of size[0] bytes, run through kexec's write_inputs / read_outputs
 * (which add the abort-flag and completed-block clears before the write). The program
 * is the reference kernel's; it is built but never launched. Not in the catalogue. */
static rtm_status_t xfer_plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const uint32_t m = (uint32_t)k->size[1]; /* 0: the block-control clears alone */
    const size_t each = m ? ((size_t)k->size[0] / m + 63) & ~(size_t)63 : 0;
    p->n_bufs = 2 * m;
    for (uint32_t i = 0; i < m; i++) {
        p->buf[i] = (rtm_bufspec_t){each, RTM_BUF_IN};
        p->buf[m + i] = (rtm_bufspec_t){each, RTM_BUF_OUT};
    }
    p->launches = 1;
    p->blocks_max = 1;
    return RTM_OK;
}
static void xfer_launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)k;
    (void)l;
    out->entry = 0;
    out->blocks = 1;
}
static uint32_t xfer_args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)k;
    (void)l;
    (void)out;
    return 0;
}
static void xfer_fill(rtm_kinst_t *k, uint64_t seed)
{
    (void)seed;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        memset(k->host[i], k->plan.buf[i].dir == RTM_BUF_IN, k->plan.buf[i].bytes);
}
static void xfer_block(const rtm_kinst_t *k, uint32_t l, uint32_t b)
{
    (void)k;
    (void)l;
    (void)b;
}
static void xfer_cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    memset(c, 0, sizeof(*c));
    c->bytes_in = c->bytes_out = (double)k->size[0];
    c->launches = 1;
}
static size_t xfer_compare(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len)
{
    (void)a;
    (void)b;
    (void)why;
    (void)len;
    return 0;
}
static const rtm_kernel_t xfer_kernel = {
    .name = "calib_transfer",
    .source = "matrix_add.cl",
    .entries = {"matrix_add", NULL},
    .keys = {{"bytes", 64, (int64_t)1 << 40, 4096, "bytes each way"},
             {"buffers", 0, RTM_KBUF_MAX / 2, 1, "buffers each way"}},
    .n_keys = 2,
    .vec_allowed = 1u << 1,
    .tune_default = {64, 1},
    .plan = xfer_plan,
    .launch = xfer_launch,
    .args = xfer_args,
    .fill = xfer_fill,
    .cpu_block = xfer_block,
    .cost = xfer_cost,
    .compare = xfer_compare,
};

static double span_s(cl_event a, cl_event b) { return (double)rtm_ocl_span_ns(a, b) * 1e-9; }

static void release_ev(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
}

/* One job's transfers, `bytes` each way in `m` buffers each way, enqueued as a job is
 * (inputs, then outputs, one clFinish): medians of the in and out spans. */
static rtm_status_t xfer_job(devcal_t *x, size_t bytes, uint32_t m, double *in_s, double *out_s,
                             double *spread)
{
    int64_t size[RTM_SIZE_KEYS_MAX] = {(int64_t)bytes, (int64_t)m};
    rtm_calib_inst_t in;
    rtm_status_t st =
        rtm_calib_inst_make_in(&in, &xfer_kernel, size, xfer_kernel.tune_default, 0, &x->arena);
    rtm_kexec_t ex;
    memset(&ex, 0, sizeof(ex));
    if (st == RTM_OK)
        st = rtm_kexec_create_cached(&ex, x->d, &in.k, x->cache);
    double si[REPS + 1], so[REPS + 1];
    for (int r = 0; r <= REPS && st == RTM_OK; r++) {
        cl_event a = NULL, b = NULL, c = NULL, d = NULL;
        st = rtm_kexec_write_inputs(&ex, &a, &b);
        if (st == RTM_OK)
            st = rtm_kexec_read_outputs(&ex, &c, &d);
        if (st == RTM_OK) {
            const cl_int err = clFinish(x->d->exec);
            if (err != CL_SUCCESS)
                st = rtm_ocl_fail("clFinish", err, __FILE__, __LINE__);
        }
        si[r] = span_s(a, b);
        so[r] = span_s(c, d);
        release_ev(&a), release_ev(&b), release_ev(&c), release_ev(&d);
    }
    rtm_kexec_destroy(&ex);
    rtm_calib_inst_free(&in);
    if (st != RTM_OK)
        return st;
    rtm_calib_fig_t fi, fo;
    *in_s = rtm_calib_summary(si + 1, REPS, &fi);
    *out_s = rtm_calib_summary(so + 1, REPS, &fo);
    *spread = fmax(fi.spread, fo.spread);
    return RTM_OK;
}

/* One bare transfer command at `bytes` (the paper's method): medians of START..END. */
static rtm_status_t xfer_raw(devcal_t *x, cl_mem buf, void *host, size_t bytes, double *w_s,
                             double *r_s)
{
    double sw[REPS + 1], sr[REPS + 1];
    cl_int err = CL_SUCCESS;
    for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
        cl_event e1 = NULL, e2 = NULL;
        err = clEnqueueWriteBuffer(x->d->exec, buf, CL_FALSE, 0, bytes, host, 0, NULL, &e1);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &e1);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(x->d->exec, buf, CL_FALSE, 0, bytes, host, 0, NULL, &e2);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &e2);
        sw[r] = e1 ? rtm_ocl_event_seconds(e1) : 0.0;
        sr[r] = e2 ? rtm_ocl_event_seconds(e2) : 0.0;
        release_ev(&e1), release_ev(&e2);
    }
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("clEnqueueWriteBuffer/ReadBuffer", err, __FILE__, __LINE__);
    *w_s = rtm_calib_summary(sw + 1, REPS, NULL);
    *r_s = rtm_calib_summary(sr + 1, REPS, NULL);
    return RTM_OK;
}

/* Releases a buffer that may not have been made (NULL). */
static void release_mem(cl_mem m)
{
    if (m)
        clReleaseMemObject(m);
}

/* Host -> device and device -> host transfer cost over a range of sizes: the job's
 * transfer spans (what the model-error log measures) fitted to fixed + bytes / rate. */
static rtm_status_t dev_transfers(devcal_t *x)
{
    cal_t *c = x->c;
    const rtm_ocl_info_t *info = &x->d->info;
    /* a CPU device's transfers are memcpy: 64 MiB is past every cache (the 256 MiB
     * sizes cost PoCL on the H100 host about 3 s of its run for the same rate) */
    double cap = c->o->quick ? 16 * MIB : (info->type & CL_DEVICE_TYPE_CPU) ? 64 * MIB : 256 * MIB;
    cap = fmin(cap, (double)info->max_alloc);
    cap = fmin(cap, (double)info->global_mem / 4.0);
    size_t sizes[16];
    size_t ns = 0;
    for (size_t s = 4096; (double)s <= cap && ns < N_OF(sizes); s *= 4)
        sizes[ns++] = s;
    if (ns < 2)
        return RTM_E_NOMEM;
    const size_t top = sizes[ns - 1];
    /* jobs with one and with two buffers each way: the per-command part and the rate */
    double xs[16], yw[2][16], yr[2][16], rw_raw[16], rr_raw[16], spread = 0;
    rtm_status_t st = RTM_OK;
    for (uint32_t m = 1; m <= 2 && st == RTM_OK; m++) {
        for (size_t i = 0; i < ns && st == RTM_OK; i++) {
            double sp = 0;
            st = xfer_job(x, sizes[i], m, &yw[m - 1][i], &yr[m - 1][i], &sp);
            spread = fmax(spread, sp);
            xs[i] = (double)sizes[i];
        }
    }
    /* the paper's bare commands, for the record */
    unsigned char *host = st == RTM_OK ? aligned_alloc(4096, top) : NULL;
    cl_int err = CL_SUCCESS;
    cl_mem buf = host ? clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, top, NULL, &err) : NULL;
    if (host && buf && err == CL_SUCCESS) {
        memset(host, 1, top);
        for (size_t i = 0; i < ns && st == RTM_OK; i++) {
            rw_raw[i] = rr_raw[i] = 0.0;
            if (sizes[i] <= RAW_MAX_BYTES) /* the record's bare commands: not the big ones */
                st = xfer_raw(x, buf, host, sizes[i], &rw_raw[i], &rr_raw[i]);
        }
    }
    if (st != RTM_OK) {
        release_mem(buf);
        free(host);
        return st;
    }
    /* a job without inputs: the block-control clears alone (the empty kernel's "in") */
    double clear_s = 0, clear_sp = 0, unused = 0;
    st = xfer_job(x, 4096, 0, &clear_s, &unused, &clear_sp);
    if (st != RTM_OK) {
        release_mem(buf);
        free(host);
        return st;
    }
    dev_param(x->bd, RTM_DEV_P_ws_clear, clear_s);
    *dfig(x, RTM_DEV_P_ws_clear) =
        (rtm_calib_fig_t){x->bd->param[RTM_DEV_P_ws_clear], clear_sp, 0, REPS, REPS};
    double resid[2] = {0.0, 0.0}; /* by direction: in, out */
    for (int dir = 0; dir < 2; dir++) {
        double knee, inv2, res;
        xfit_t ft;
        const double *y1 = dir ? yr[0] : yw[0], *y2 = dir ? yr[1] : yw[1];
        fit_transfers_knee(xs, y1, y2, ns, &ft, &knee, &inv2, &res);
        const double inv = ft.inv;
        const double last = y1[ns - 1];
        const double rate = inv > 0 ? 1.0 / inv : last > 0 ? (double)top / last : 1e9;
        dev_param(x->bd, dir ? RTM_DEV_P_wr_fixed : RTM_DEV_P_ws_fixed, ft.first);
        dev_param(x->bd, dir ? RTM_DEV_P_wr_next : RTM_DEV_P_ws_next, ft.next);
        dev_param(x->bd, dir ? RTM_DEV_P_wr_rate : RTM_DEV_P_ws_rate, rate);
        /* no knee: at the largest size measured, the same rate on */
        dev_param(x->bd, dir ? RTM_DEV_P_wr_knee : RTM_DEV_P_ws_knee, knee > 0 ? knee : (double)top);
        dev_param(x->bd, dir ? RTM_DEV_P_wr_rate_big : RTM_DEV_P_ws_rate_big,
                  knee > 0 && inv2 > 0 ? 1.0 / inv2 : rate);
        resid[dir] = res;
    }
    const int ids[10] = {RTM_DEV_P_ws_fixed, RTM_DEV_P_ws_rate, RTM_DEV_P_ws_knee,
                         RTM_DEV_P_ws_rate_big, RTM_DEV_P_ws_next, RTM_DEV_P_wr_fixed,
                         RTM_DEV_P_wr_rate, RTM_DEV_P_wr_knee, RTM_DEV_P_wr_rate_big,
                         RTM_DEV_P_wr_next};
    for (int k = 0; k < 10; k++) {
        rtm_calib_fig_t *f = dfig(x, ids[k]);
        f->median = x->bd->param[ids[k]];
        f->spread = spread;
        f->resid = resid[k < 5 ? 0 : 1];
        f->n = (uint32_t)(2 * ns * REPS);
        f->kept = f->n;
    }
    char curve[6][640];
    for (int k = 0; k < 6; k++) {
        const double *y = k == 0   ? yw[0]
                          : k == 1 ? yr[0]
                          : k == 2 ? yw[1]
                          : k == 3 ? yr[1]
                          : k == 4 ? rw_raw
                                   : rr_raw;
        size_t used = 0;
        curve[k][0] = '\0';
        for (size_t i = 0; i < ns; i++) {
            if (!(y[i] > 0))
                continue;
            (void)appendf(curve[k], sizeof(curve[k]), &used, "%s%.0fK:%.4gus", used ? " " : "",
                          xs[i] / KIB, y[i] * 1e6);
        }
    }
    note(c, "%s: transfers, pinned host memory (mapped CL_MEM_ALLOC_HOST_PTR) as the "
            "runtime's instances on this device use; the "
            "transfer spans of jobs with 1 and with 2 buffers each way, enqueued as kexec does "
            "(clears + writes, reads), fitted by relative least squares to first command + "
            "(commands - 1) * next + bytes / rate (another rate past a knee): in %.4gus "
            "(next %.4gus) + %.4gGB/s, past %.4gMiB %.4gGB/s; out %.4gus (next %.4gus) + "
            "%.4gGB/s, past %.4gMiB %.4gGB/s; clears alone (no inputs) %.4gus",
         x->bd->name, x->bd->param[RTM_DEV_P_ws_fixed] * 1e6,
         x->bd->param[RTM_DEV_P_ws_next] * 1e6, x->bd->param[RTM_DEV_P_ws_rate] * 1e-9,
         x->bd->param[RTM_DEV_P_ws_knee] / MIB, x->bd->param[RTM_DEV_P_ws_rate_big] * 1e-9,
         x->bd->param[RTM_DEV_P_wr_fixed] * 1e6, x->bd->param[RTM_DEV_P_wr_next] * 1e6,
         x->bd->param[RTM_DEV_P_wr_rate] * 1e-9, x->bd->param[RTM_DEV_P_wr_knee] / MIB,
         x->bd->param[RTM_DEV_P_wr_rate_big] * 1e-9, clear_s * 1e6);
    note(c, "%s: job in spans, 1 buffer: %s", x->bd->name, curve[0]);
    note(c, "%s: job out spans, 1 buffer: %s", x->bd->name, curve[1]);
    note(c, "%s: job in spans, 2 buffers: %s", x->bd->name, curve[2]);
    note(c, "%s: job out spans, 2 buffers: %s", x->bd->name, curve[3]);
    note(c, "%s: bare write START..END %s", x->bd->name, curve[4]);
    note(c, "%s: bare read START..END %s", x->bd->name, curve[5]);
    /* Bare commands from pinned and from plain memory side by side, for the record. */
    if (!c->o->quick) {
        const size_t pb = top < PINNED_BYTES ? top : PINNED_BYTES;
        cl_mem pin = clCreateBuffer(x->d->ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, pb,
                                    NULL, &err);
        void *ph = NULL;
        if (err == CL_SUCCESS)
            ph = clEnqueueMapBuffer(x->d->exec, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, pb, 0,
                                    NULL, NULL, &err);
        if (err == CL_SUCCESS && ph) {
            double pw = 0, pr = 0, qw = 0, qr = 0;
            if (xfer_raw(x, buf, ph, pb, &pw, &pr) == RTM_OK &&
                xfer_raw(x, buf, host, pb, &qw, &qr) == RTM_OK)
                note(c, "%s: %.0fMiB bare commands from pinned host memory (mapped "
                        "CL_MEM_ALLOC_HOST_PTR): in %.4gGB/s, out %.4gGB/s; from plain memory: in "
                        "%.4gGB/s, out %.4gGB/s (the runtime uses pinned)",
                     x->bd->name, (double)pb / MIB, pw > 0 ? (double)pb / pw * 1e-9 : 0.0,
                     pr > 0 ? (double)pb / pr * 1e-9 : 0.0, qw > 0 ? (double)pb / qw * 1e-9 : 0.0,
                     qr > 0 ? (double)pb / qr * 1e-9 : 0.0);
            clEnqueueUnmapMemObject(x->d->exec, pin, ph, 0, NULL, NULL);
            clFinish(x->d->exec);
        }
        release_mem(pin);
    }
    release_mem(buf);
    free(host);
    return RTM_OK;
}

/* Device global-memory bandwidth: clEnqueueCopyBuffer, bytes read + written. */
static rtm_status_t dev_memrate(devcal_t *x)
{
    const rtm_ocl_info_t *info = &x->d->info;
    double s = x->c->o->quick ? 32 * MIB : 256 * MIB;
    s = fmin(s, (double)info->max_alloc);
    s = fmin(s, (double)info->global_mem / 8.0);
    const size_t bytes = (size_t)s & ~(size_t)4095;
    cl_int err = CL_SUCCESS;
    cl_mem a = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = err == CL_SUCCESS ? clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err)
                                 : NULL;
    const cl_uchar zero = 0;
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(x->d->exec, a, &zero, 1, 0, bytes, 0, NULL, NULL);
    double samp[REPS + 1];
    for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
        cl_event ev = NULL;
        err = clEnqueueCopyBuffer(x->d->exec, a, b, 0, 0, bytes, 0, NULL, &ev);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &ev);
        const double t = err == CL_SUCCESS ? rtm_ocl_event_seconds(ev) : 0.0;
        samp[r] = t > 0 ? 2.0 * (double)bytes / t : 0.0;
        if (ev)
            clReleaseEvent(ev);
    }
    release_mem(a);
    release_mem(b);
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("clEnqueueCopyBuffer", err, __FILE__, __LINE__);
    dev_param(x->bd, RTM_DEV_P_mem_rate, rtm_calib_summary(samp + 1, REPS, dfig(x, RTM_DEV_P_mem_rate)));
    return RTM_OK;
}

/* Builds the calibration-only kernels (probe_src) for device d into *out (NULL on
 * failure). */
static rtm_status_t build_probe(rtm_ocl_dev_t *d, cl_program *out)
{
    cl_int err = CL_SUCCESS;
    const char *src = probe_src;
    *out = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    RTM_CL_CHECK(err, "clCreateProgramWithSource(probe)");
    err = clBuildProgram(*out, 1, &d->info.id, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        clReleaseProgram(*out);
        *out = NULL;
        return rtm_ocl_fail("clBuildProgram(probe)", err, __FILE__, __LINE__);
    }
    return RTM_OK;
}

static cl_ulong prof(cl_event ev, cl_profiling_info what)
{
    cl_ulong t = 0;
    if (clGetEventProfilingInfo(ev, what, sizeof(t), &t, NULL) != CL_SUCCESS)
        return 0;
    return t;
}

/* Launch latency (enqueue to start), host round trip, and the fixed time per launch
 * in a kernel span, with the empty kernel. */
static rtm_status_t dev_launch(devcal_t *x)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(x->probe, "rtm_calib_empty", &err);
    RTM_CL_CHECK(err, "clCreateKernel(empty)");
    cl_kernel kl = NULL;
    cl_mem out = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err), ping = NULL,
           pong = NULL;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof(cl_mem), &out);
    if (err == CL_SUCCESS)
        ping = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    if (err == CL_SUCCESS)
        pong = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    if (err == CL_SUCCESS)
        kl = clCreateKernel(x->probe, "rtm_calib_launch", &err);
    for (cl_uint a = 0; a < 16 && err == CL_SUCCESS; a++) { /* out for the pointers */
        const cl_uint zero = 0;
        const bool value = (a >= 3 && a <= 5) || a >= 12;
        err = value ? clSetKernelArg(kl, a, sizeof(zero), &zero)
                    : clSetKernelArg(kl, a, sizeof(cl_mem), &out);
    }
    const size_t local = x->wg_probe < 64 ? x->wg_probe : 64, global = local;
    enum { SPAN = 32 };
    double lat[REPS + 1], rt[REPS + 1], fixed[REPS + 1], sub[REPS + 1], b2b[REPS + 1];
    for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
        cl_event ev = NULL;
        const double h0 = rtm_calib_now();
        err = clEnqueueNDRangeKernel(x->d->exec, k, 1, NULL, &global, &local, 0, NULL, &ev);
        if (err == CL_SUCCESS)
            err = clFinish(x->d->exec);
        rt[r] = rtm_calib_now() - h0;
        if (err == CL_SUCCESS) {
            const cl_ulong q = prof(ev, CL_PROFILING_COMMAND_QUEUED);
            const cl_ulong u = prof(ev, CL_PROFILING_COMMAND_SUBMIT);
            const cl_ulong s = prof(ev, CL_PROFILING_COMMAND_START);
            const cl_ulong e = prof(ev, CL_PROFILING_COMMAND_END);
            lat[r] = s > q ? (double)(s - q) * 1e-9 : 0.0;
            sub[r] = u > q ? (double)(u - q) * 1e-9 : 0.0;
            fixed[r] = e > s ? (double)(e - s) * 1e-9 : 0.0;
        }
        if (ev)
            clReleaseEvent(ev);
        /* as a multi-launch job's launches are enqueued (kexec): a kernel of 16 arguments
         * (the driver copies them at every enqueue; the 1-argument empty kernel's launches
         * ran at 6.6-7.4 us against grid_path's 10.2 us on the H100), the 4 that change
         * from launch to launch set before each (the done offset, a ping-pong pair, the
         * pass), events on the first and the last only (an event apiece cost the H100's
         * host 6-8 us a launch); 32 launches, so that the first's start-up weighs little
         * (8 gave 8.4 and 15.8 us on two H100 instances, session 12) */
        cl_event evs[SPAN] = {NULL};
        for (int i = 0; i < SPAN && err == CL_SUCCESS; i++) {
            const cl_uint doff = (cl_uint)i * 64u, pass = (cl_uint)i;
            err = clSetKernelArg(kl, 5, sizeof(doff), &doff);
            if (err == CL_SUCCESS)
                err = clSetKernelArg(kl, 8, sizeof(cl_mem), i % 2 ? &pong : &ping);
            if (err == CL_SUCCESS)
                err = clSetKernelArg(kl, 9, sizeof(cl_mem), i % 2 ? &ping : &pong);
            if (err == CL_SUCCESS)
                err = clSetKernelArg(kl, 15, sizeof(pass), &pass);
            if (err == CL_SUCCESS)
                err = clEnqueueNDRangeKernel(x->d->exec, kl, 1, NULL, &global, &local, 0, NULL,
                                             i == 0 || i == SPAN - 1 ? &evs[i] : NULL);
        }
        if (err == CL_SUCCESS)
            err = clFinish(x->d->exec);
        if (err == CL_SUCCESS) {
            const cl_ulong s = prof(evs[0], CL_PROFILING_COMMAND_START);
            const cl_ulong e = prof(evs[SPAN - 1], CL_PROFILING_COMMAND_END);
            b2b[r] = e > s ? (double)(e - s) * 1e-9 / SPAN : 0.0;
        }
        for (int i = 0; i < SPAN; i++)
            if (evs[i])
                clReleaseEvent(evs[i]);
    }
    release_mem(out);
    release_mem(ping);
    release_mem(pong);
    if (kl)
        clReleaseKernel(kl);
    clReleaseKernel(k);
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("clEnqueueNDRangeKernel(empty)", err, __FILE__, __LINE__);
    dev_param(x->bd, RTM_DEV_P_launch, rtm_calib_summary(lat + 1, REPS, dfig(x, RTM_DEV_P_launch)));
    dev_param(x->bd, RTM_DEV_P_kernel_fixed,
              rtm_calib_summary(fixed + 1, REPS, dfig(x, RTM_DEV_P_kernel_fixed)));
    rtm_calib_fig_t f;
    const double round_trip = rtm_calib_summary(rt + 1, REPS, &f);
    const double submit = rtm_calib_summary(sub + 1, REPS, NULL);
    const double back = rtm_calib_summary(b2b + 1, REPS, dfig(x, RTM_DEV_P_kernel_next));
    if (back > 0.0)
        dev_param(x->bd, RTM_DEV_P_kernel_next, back);
    else
        fallback(x->c, "%s: no back-to-back launch interval measured: every launch of a job "
                       "costs kernel_fixed", x->bd->name);
    note(x->c, "%s: empty kernel: enqueue->start %.4gus (QUEUED->START; QUEUED->SUBMIT "
               "%.4gus), START->END %.4gus (kernel_fixed), host round trip enqueue->clFinish "
               "%.4gus (spread %.1f%%), %d back-to-back launches %.4gus each (kernel_next)",
         x->bd->name, x->bd->param[RTM_DEV_P_launch] * 1e6, submit * 1e6,
         x->bd->param[RTM_DEV_P_kernel_fixed] * 1e6, round_trip * 1e6, f.spread * 100, SPAN,
         back * 1e6);
    return RTM_OK;
}

/* Occupancy probe: a dependent chain per work-item on cus * m work-groups; the time
 * stays flat while the groups run at once and grows beyond. resident = the largest m
 * still flat; units = cus * resident * wg (work-items in flight); r_probe = time of
 * one dependent operation. */
static rtm_status_t dev_occupancy(devcal_t *x)
{
    cal_t *c = x->c;
    const rtm_ocl_info_t *info = &x->d->info;
    const bool gpu_like = !(info->type & CL_DEVICE_TYPE_CPU);
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(x->probe, "rtm_calib_probe", &err);
    RTM_CL_CHECK(err, "clCreateKernel(probe)");
    size_t kwg = 0;
    clGetKernelWorkGroupInfo(k, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kwg), &kwg, NULL);
    uint32_t wg = 256;
    while (wg > 1 && (wg > info->max_wg || (kwg && wg > kwg)))
        wg /= 2;
    x->wg_probe = wg;
    const uint32_t cus = info->units ? info->units : 1;
    static const uint32_t ms[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    uint32_t n_m = 0;
    while (n_m < N_OF(ms) && (gpu_like ? ms[n_m] * wg <= 2048 : ms[n_m] <= 4))
        n_m++;
    if (n_m == 0)
        n_m = 1;
    const size_t out_bytes = (size_t)cus * ms[n_m - 1] * wg * sizeof(float);
    cl_mem out = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
    const float a = 0.9999f, b = 0.0001f;
    cl_uint steps = 1024;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof(cl_mem), &out);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 2, sizeof(a), &a);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 3, sizeof(b), &b);
    const size_t local = wg;
    /* steps such that cus groups take about `want` */
    const double want = c->o->quick ? 0.5e-3 : 1e-3;
    for (int tries = 0; tries < 8 && err == CL_SUCCESS; tries++) {
        const size_t global = (size_t)cus * wg;
        cl_event ev = NULL;
        err = clSetKernelArg(k, 1, sizeof(steps), &steps);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(x->d->exec, k, 1, NULL, &global, &local, 0, NULL, &ev);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &ev);
        const double t1 = err == CL_SUCCESS ? rtm_ocl_event_seconds(ev) : 0.0;
        if (ev)
            clReleaseEvent(ev);
        if (t1 >= want * 0.7 || steps >= (1u << 24))
            break;
        const double f = t1 > 0 ? want / t1 : 16.0;
        steps = (cl_uint)fmin((double)(1u << 24), steps * fmin(fmax(f, 1.5), 64.0));
    }
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 1, sizeof(steps), &steps);
    double tm[N_OF(ms)] = {0};
    rtm_calib_fig_t f1 = {0};
    for (uint32_t i = 0; i < n_m && err == CL_SUCCESS; i++) {
        const size_t global = (size_t)cus * ms[i] * wg;
        double samp[REPS + 1];
        for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
            cl_event ev = NULL;
            err = clEnqueueNDRangeKernel(x->d->exec, k, 1, NULL, &global, &local, 0, NULL, &ev);
            if (err == CL_SUCCESS)
                err = clWaitForEvents(1, &ev);
            samp[r] = err == CL_SUCCESS ? rtm_ocl_event_seconds(ev) : 0.0;
            if (ev)
                clReleaseEvent(ev);
        }
        tm[i] = rtm_calib_summary(samp + 1, REPS, i == 0 ? &f1 : NULL);
        if (i > 0 && tm[i] > 2.0 * tm[0])
            n_m = i + 1; /* well past the knee */
    }
    release_mem(out);
    clReleaseKernel(k);
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("rtm_calib_probe", err, __FILE__, __LINE__);
    uint32_t resident = 1;
    for (uint32_t i = 1; i < n_m && tm[i] <= 1.2 * tm[0]; i++)
        resident = ms[i];
    x->r_probe = tm[0] / steps;
    dev_param(x->bd, RTM_DEV_P_cus, cus);
    dev_param(x->bd, RTM_DEV_P_resident, resident);
    dev_param(x->bd, RTM_DEV_P_units, (double)cus * resident * wg);
    const int ids[3] = {RTM_DEV_P_cus, RTM_DEV_P_resident, RTM_DEV_P_units};
    for (int i = 0; i < 3; i++) {
        *dfig(x, ids[i]) = f1;
        dfig(x, ids[i])->median = x->bd->param[ids[i]];
    }
    char curve[256] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < n_m; i++)
        (void)appendf(curve, sizeof(curve), &used, "%s%u:%.3g", i ? " " : "", ms[i], tm[i] / tm[0]);
    note(c, "%s: occupancy probe (dependent mad chain of %u steps, wg %u): time of cus*m "
            "groups / time of cus groups, by m: %s -> resident %u, units = %u cus * %u * %u = "
            "%.0f; one dependent op %.4gns",
         x->bd->name, (unsigned)steps, wg, curve, resident, cus, resident, wg,
         x->bd->param[RTM_DEV_P_units], x->r_probe * 1e9);
    return RTM_OK;
}

/* ---- last-level cache: a read sweep (calibint.h) ------------------------------------ */

/* Fewest uint4 a work-item reads per pass: the work-items are capped at cus * 2048 (a
 * full H100), and small working sets get more of them (more loads in flight) rather
 * than the ~16 per pass that would leave most compute units idle at 1 MiB; the passes
 * (launch_bytes / S of them, 1024 at 1 MiB) amortise the per-item cost anyway. */
#define LLC_PER_MIN 4
#define LLC_ITEMS_PER_CU 2048
#define LLC_REPS_MAX 16

rtm_calib_llc_opts_t rtm_calib_llc_defaults(void)
{
    return (rtm_calib_llc_opts_t){.min_bytes = MIB, .max_bytes = 512 * MIB,
                                  .launch_bytes = 1024 * MIB, .reps = 5, .shared = true};
}

/* One size of the sweep: `global` work-items (a multiple of wg), `per` uint4 each a
 * pass, `bytes` = global * per * 16 the working set. */
typedef struct {
    size_t global;
    size_t per;
    double bytes;
} llc_shape_t;

static llc_shape_t llc_shape(double s, size_t cap, size_t wg)
{
    const size_t v = (size_t)(s / 16.0);
    size_t per = (v + cap - 1) / cap;
    if (per < LLC_PER_MIN)
        per = LLC_PER_MIN;
    size_t g = v / per / wg * wg;
    if (g == 0) {
        g = wg;
        per = (v / wg) ? (v / wg) : 1;
    }
    return (llc_shape_t){g, per, (double)g * (double)per * 16.0};
}

static size_t gcd_z(size_t a, size_t b)
{
    while (b) {
        const size_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The shared pattern's move per pass, in work-items: about 0.382 of the work-groups
 * (far from the last group's compute unit), coprime with their count so that a line
 * visits every group before it comes back to one (no compute unit's L1 holds it). */
static size_t llc_rot(size_t global, size_t wg)
{
    const size_t groups = global / wg;
    if (groups < 2)
        return 0;
    size_t r = (size_t)(0.382 * (double)groups + 0.5);
    if (r < 1)
        r = 1;
    while (gcd_z(r, groups) != 1)
        r++;
    return (r % groups) * wg;
}

rtm_status_t rtm_calib_llc_curve(rtm_ocl_dev_t *d, cl_program probe, const rtm_calib_llc_opts_t *o,
                                 rtm_calib_llc_curve_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!d || !o || !(o->min_bytes > 0) || !(o->launch_bytes > 0) || o->reps == 0)
        return RTM_E_ARG;
    const double t0 = rtm_calib_now();
    const rtm_ocl_info_t *info = &d->info;
    cl_int err = CL_SUCCESS;
    cl_program prog = probe;
    if (!prog) {
        const rtm_status_t st = build_probe(d, &prog);
        if (st != RTM_OK)
            return st;
    }
    cl_kernel k = clCreateKernel(prog, "rtm_calib_sweep", &err);
    if (err != CL_SUCCESS) {
        if (!probe)
            clReleaseProgram(prog);
        return rtm_ocl_fail("clCreateKernel(sweep)", err, __FILE__, __LINE__);
    }
    size_t kwg = 0;
    clGetKernelWorkGroupInfo(k, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kwg), &kwg, NULL);
    size_t wg = 256;
    while (wg > 1 && (wg > info->max_wg || (kwg && wg > kwg)))
        wg /= 2;
    const size_t cap = (size_t)(info->units ? info->units : 1) * LLC_ITEMS_PER_CU;
    double top = o->max_bytes;
    if (info->max_alloc)
        top = fmin(top, (double)info->max_alloc);
    if (info->global_mem)
        top = fmin(top, (double)info->global_mem / 8.0);
    /* the sizes, each a whole number of uint4 per work-item, strictly increasing */
    llc_shape_t sh[RTM_CALIB_LLC_MAX] = {{0}};
    uint32_t n = 0;
    double buf_bytes = 0.0;
    size_t max_global = wg;
    for (int i = 0; n < RTM_CALIB_LLC_MAX; i++) {
        const double s = o->min_bytes * pow(sqrt(2.0), i);
        if (s > top * (1.0 + 1e-9))
            break;
        const llc_shape_t z = llc_shape(s, cap, wg);
        if (n > 0 && z.bytes <= sh[n - 1].bytes)
            continue;
        if (z.bytes > top && n > 0)
            break;
        sh[n++] = z;
        buf_bytes = fmax(buf_bytes, z.bytes);
        max_global = z.global > max_global ? z.global : max_global;
    }
    cl_mem buf = clCreateBuffer(d->ctx, CL_MEM_READ_ONLY, (size_t)buf_bytes, NULL, &err);
    cl_mem res = err == CL_SUCCESS ? clCreateBuffer(d->ctx, CL_MEM_WRITE_ONLY,
                                                    max_global * sizeof(cl_uint), NULL, &err)
                                   : NULL;
    const cl_uint pattern = 0x9E3779B9u;
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(d->exec, buf, &pattern, sizeof(pattern), 0, (size_t)buf_bytes,
                                  0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof(cl_mem), &buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 4, sizeof(cl_mem), &res);
    if (err == CL_SUCCESS)
        err = clFinish(d->exec);
    const uint32_t reps = o->reps < LLC_REPS_MAX ? o->reps : LLC_REPS_MAX;
    for (uint32_t i = 0; i < n && err == CL_SUCCESS; i++) {
        const double p = fmax(1.0, floor(o->launch_bytes / sh[i].bytes + 0.5));
        const cl_uint per = (cl_uint)sh[i].per, passes = (cl_uint)fmin(p, 1e9);
        const cl_uint rot = o->shared ? (cl_uint)llc_rot(sh[i].global, wg) : 0u;
        err = clSetKernelArg(k, 1, sizeof(per), &per);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(k, 2, sizeof(passes), &passes);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(k, 3, sizeof(rot), &rot);
        cl_event ev[LLC_REPS_MAX + 1] = {NULL};
        for (uint32_t r = 0; r <= reps && err == CL_SUCCESS; r++)
            err = clEnqueueNDRangeKernel(d->exec, k, 1, NULL, &sh[i].global, &wg, 0, NULL, &ev[r]);
        if (err == CL_SUCCESS)
            err = clFinish(d->exec);
        double samp[LLC_REPS_MAX];
        for (uint32_t r = 1; r <= reps && err == CL_SUCCESS; r++)
            samp[r - 1] = rtm_ocl_event_seconds(ev[r]) / (sh[i].bytes * passes);
        for (uint32_t r = 0; r <= reps; r++)
            if (ev[r])
                clReleaseEvent(ev[r]);
        if (err != CL_SUCCESS)
            break;
        rtm_calib_fig_t f;
        out->size[i] = sh[i].bytes;
        out->t[i] = rtm_calib_summary(samp, reps, &f);
        out->spread[i] = f.spread;
        out->n = i + 1;
    }
    release_mem(buf);
    release_mem(res);
    clReleaseKernel(k);
    if (!probe)
        clReleaseProgram(prog);
    out->seconds = rtm_calib_now() - t0;
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("rtm_calib_sweep", err, __FILE__, __LINE__);
    for (uint32_t i = 0; i < out->n; i++)
        if (!(out->t[i] > 0))
            return RTM_E_CL; /* a launch without a profiled span */
    return RTM_OK;
}

bool rtm_calib_llc_knee(const double *size, const double *t, uint32_t n, rtm_calib_llc_knee_t *out)
{
    memset(out, 0, sizeof(*out));
    if (n < 2)
        return false;
    uint32_t f = 0;
    for (uint32_t i = 1; i < n; i++)
        if (t[i] < t[f])
            f = i;
    out->t_fast = t[f];
    out->t_slow = t[n - 1];
    if (!(t[f] > 0) || !(t[n - 1] >= RTM_CALIB_LLC_STEP * t[f]))
        return false;
    const double mid = sqrt(t[f] * t[n - 1]);
    out->t_mid = mid;
    /* the largest size below the midpoint: the sizes before the fastest one (few
     * work-items, or launch costs) never decide it */
    uint32_t lo = f;
    for (uint32_t i = f; i + 1 < n; i++)
        if (t[i] < mid)
            lo = i;
    const uint32_t hi = lo + 1; /* t[hi] >= mid: lo is the last below, or hi the slowest */
    const double u = (log(mid) - log(t[lo])) / (log(t[hi]) - log(t[lo]));
    out->lo = lo;
    out->hi = hi;
    out->cache = size[lo] * pow(size[hi] / size[lo], fmin(fmax(u, 0.0), 1.0));
    return true;
}

/* "1M:5123 1.41M:5230 …": size (MiB) and GB/s of a curve, for the notes. */
static void llc_text(char *buf, size_t len, const rtm_calib_llc_curve_t *cv)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < cv->n; i++)
        (void)appendf(buf, len, &used, "%s%.3gM:%.4g", i ? " " : "", cv->size[i] / MIB,
                      1e-9 / cv->t[i]);
}

/* The device's last-level cache (a non-CPU device), measured by the read sweep with
 * shared lines (each pass moves every line to another work-group, as matrix_mul's B
 * is read by every compute unit: no compute unit's L1 holds the working set, so the
 * cliff is the last level's). `reported` (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, already the
 * parameter) stays when the curve shows no cliff (a note) or the sweep fails (a
 * FALLBACK). The private-lines curve (each work-item the same lines every pass, where
 * a compute unit's L1 may hold them) goes into the notes for comparison. */
static void dev_llc(devcal_t *x, double reported)
{
    cal_t *c = x->c;
    rtm_board_dev_t *bd = x->bd;
    rtm_calib_llc_opts_t o = rtm_calib_llc_defaults();
    if (c->o->quick) {
        o.launch_bytes = 256 * MIB;
        o.reps = 3;
    }
    rtm_calib_llc_curve_t cv, pv;
    const rtm_status_t st = rtm_calib_llc_curve(x->d, x->probe, &o, &cv);
    if (st != RTM_OK) {
        fallback(c, "%s: cache: the read sweep failed (%s): the reported %.4gMiB "
                    "(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE) kept",
                 bd->name, rtm_status_name(st), reported / MIB);
        return;
    }
    o.shared = false;
    const bool have_pv = rtm_calib_llc_curve(x->d, x->probe, &o, &pv) == RTM_OK;
    char text[768], ptext[768] = "";
    llc_text(text, sizeof(text), &cv);
    if (have_pv)
        llc_text(ptext, sizeof(ptext), &pv);
    rtm_calib_llc_knee_t kn, pk;
    const bool cliff = rtm_calib_llc_knee(cv.size, cv.t, cv.n, &kn);
    const bool pcliff = have_pv && rtm_calib_llc_knee(pv.size, pv.t, pv.n, &pk);
    char ptail[128];
    if (pcliff)
        snprintf(ptail, sizeof(ptail), "cliff at %.4gMiB", pk.cache / MIB);
    else
        snprintf(ptail, sizeof(ptail), "%s", have_pv ? "no cliff" : "failed");
    if (cliff) {
        /* whole 64 KiB (the profile writes it as a short size) */
        dev_param(bd, RTM_DEV_P_cache, fmax(1.0, floor(kn.cache / 65536.0 + 0.5)) * 65536.0);
        *dfig(x, RTM_DEV_P_cache) = (rtm_calib_fig_t){bd->param[RTM_DEV_P_cache],
                                                      fmax(cv.spread[kn.lo], cv.spread[kn.hi]),
                                                      0.0, cv.n, cv.n};
        note(c, "%s: cache measured %.4gMiB (reported %.4gMiB, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE): "
                "read sweep of shared lines, %.4gGB/s fastest, %.4gGB/s at %.4gMiB, their "
                "geometric midpoint %.4gGB/s crossed between %.4gMiB and %.4gMiB (%.2fs)",
             bd->name, bd->param[RTM_DEV_P_cache] / MIB, reported / MIB, 1e-9 / kn.t_fast,
             1e-9 / kn.t_slow, cv.size[cv.n - 1] / MIB, 1e-9 / kn.t_mid, cv.size[kn.lo] / MIB,
             cv.size[kn.hi] / MIB, cv.seconds);
        say(c, "%s: cache measured %.4gMiB (reported %.4gMiB): %.4gGB/s in it, %.4gGB/s at "
               "%.4gMiB, cliff between %.4gMiB and %.4gMiB; private lines %s",
            bd->name, bd->param[RTM_DEV_P_cache] / MIB, reported / MIB, 1e-9 / kn.t_fast,
            1e-9 / kn.t_slow, cv.size[cv.n - 1] / MIB, cv.size[kn.lo] / MIB, cv.size[kn.hi] / MIB,
            ptail);
    } else {
        note(c, "%s: cache measured: no cliff in the read sweep of shared lines (%.4gGB/s "
                "fastest, %.4gGB/s at %.4gMiB, less than x%.2f): the reported %.4gMiB "
                "(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE) kept (%.2fs)",
             bd->name, kn.t_fast > 0 ? 1e-9 / kn.t_fast : 0.0,
             kn.t_slow > 0 ? 1e-9 / kn.t_slow : 0.0, cv.n ? cv.size[cv.n - 1] / MIB : 0.0,
             RTM_CALIB_LLC_STEP, reported / MIB, cv.seconds);
        say(c, "%s: cache measured: no cliff, the reported %.4gMiB kept; private lines %s",
            bd->name, reported / MIB, ptail);
    }
    note(c, "%s: cache read sweep, MiB:GB/s, shared lines: %s", bd->name, text);
    note(c, "%s: cache read sweep, MiB:GB/s, private lines (%s): %s", bd->name, ptail, ptext);
}

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
            if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
            } else {
                buf[n] = '\0';
                *len = (size_t)n;
            }
        }
    }
    fclose(f);
    return buf;
}

/* Removes the files of a flat directory, then the directory. */
static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        const struct dirent *e;
        char file[RTM_PATH_MAX + 256];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
            unlink(file);
        }
        closedir(d);
    }
    rmdir(path);
}

/* Program build time c: the reference kernel matrix_add from source (rtm_program_build_ex)
 * with a unique -D per build, so that no driver cache answers; and the load time of the
 * same program from rtmgr's binary cache (rtm_program_build_cached, a fresh cache
 * directory: one build stores, then loads). */
/* The build-time figure c and the cache-load time of device d: matrix_add.cl at n = 64
 * (work-group `wg`) built `reps` times from source with a unique -D each (the driver's
 * own caches bypassed), then stored in a fresh cache directory and loaded REPS times.
 * One core's compiler work: thread-safe, no state of the run. */
typedef struct {
    rtm_status_t st;
    int reps, loaded;
    double tb[REPS], tl[REPS];
} bfig_t;

/* Builds for the figure c: REPS, 5 with --quick. */
static int build_reps(const rtm_calib_opts_t *o) { return o->quick ? 5 : REPS; }

static void build_figs(rtm_ocl_dev_t *d, uint32_t wg, int reps, bfig_t *f)
{
    *f = (bfig_t){.st = RTM_OK, .reps = reps};
    const rtm_kernel_t *kern = rtm_kernel_find("matrix_add");
    if (!kern) {
        f->st = RTM_E_NOTFOUND;
        return;
    }
    rtm_kinst_t k;
    rtm_kinst_init(&k, kern);
    k.size[0] = 64;
    k.tune.wg = wg < kern->tune_default.wg ? wg : kern->tune_default.wg;
    f->st = rtm_kinst_plan(&k);
    static unsigned nonce;
    for (int r = 0; r < reps && f->st == RTM_OK; r++) {
        char extra[96];
        snprintf(extra, sizeof(extra), "-DRTM_CALIB_NONCE=%ld%u%d", (long)time(NULL),
                 __atomic_fetch_add(&nonce, 1u, __ATOMIC_RELAXED), (int)getpid());
        rtm_program_t p;
        f->st = rtm_program_build_ex(d, &k, extra, &p);
        f->tb[r] = p.build_s;
        rtm_program_release(&p);
    }
    if (f->st != RTM_OK)
        return;
    char dir[] = "/tmp/rtmgr-calib-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        f->st = RTM_E_IO;
        return;
    }
    rtm_program_t p;
    f->st = rtm_program_build_cached(d, &k, NULL, dir, &p); /* compiles and stores */
    rtm_program_release(&p);
    for (int r = 0; r < REPS && f->st == RTM_OK; r++) {
        f->st = rtm_program_build_cached(d, &k, NULL, dir, &p);
        f->tl[r] = p.build_s;
        f->loaded += p.from_cache;
        rtm_program_release(&p);
    }
    remove_dir(dir);
}

/* build_figs of a CPU-type OpenCL device (PoCL) on a helper thread with a context of
 * its own, started before the run's GPUs are calibrated and joined in the device's own
 * section: the GPUs' figures are the devices' clocks and leave the host's cores idle,
 * and the compiler takes one of them (the H100 host: PoCL's c was 3.1 s of its 60 s). */
typedef struct {
    rtm_ocl_info_t info;
    int reps;
    pthread_t th;
    bool started;
    double wall_s; /* the helper's time */
    bfig_t f;
} bahead_t;

static void *bahead_run(void *arg)
{
    bahead_t *b = arg;
    const double t0 = rtm_calib_now();
    rtm_ocl_dev_t dev;
    b->f.st = rtm_ocl_open(&dev, &b->info);
    if (b->f.st == RTM_OK) {
        build_figs(&dev, UINT32_MAX, b->reps, &b->f);
        rtm_ocl_close(&dev);
    }
    b->wall_s = rtm_calib_now() - t0;
    return NULL;
}

static rtm_status_t dev_build(devcal_t *x, bahead_t *ahead)
{
    cal_t *c = x->c;
    bfig_t own, *f = &own;
    if (ahead && ahead->started) {
        pthread_join(ahead->th, NULL);
        ahead->started = false;
        f = &ahead->f;
    } else {
        build_figs(x->d, x->wg_probe, build_reps(c->o), f);
    }
    if (f->st != RTM_OK)
        return f->st;
    dev_param(x->bd, RTM_DEV_P_build,
              rtm_calib_summary(f->tb, (size_t)f->reps, dfig(x, RTM_DEV_P_build)));
    dev_param(x->bd, RTM_DEV_P_cache_load,
              rtm_calib_summary(f->tl, REPS, dfig(x, RTM_DEV_P_cache_load)));
    note(c, "%s: build time c: matrix_add.cl from source with a unique -D per build (driver "
            "caches bypassed), %d builds; cache_load: rtm_program_build_cached from a fresh "
            "cache directory, %d of %d loads came from the cache%s",
         x->bd->name, f->reps, f->loaded, REPS,
         f == &own ? "" : "; measured on a helper thread while the GPUs were calibrated");
    if (f != &own)
        note(c, "%s: the helper thread's builds took %.2fs", x->bd->name, ahead->wall_s);
    return RTM_OK;
}

/* Prediction used to size instances: the extended model with a per-kernel r (no
 * memory term). */
typedef struct {
    const rtm_board_dev_t *bd;
    int ki;
    double r;
    bool total; /* total time, else kernel time */
} dpred_t;

static double dev_pred(const void *ctx, const rtm_kinst_t *k)
{
    const dpred_t *p = ctx;
    static rtm_board_dev_t tmp;
    tmp = *p->bd;
    if (p->ki >= 0 && p->r > 0)
        tmp.ktune[p->ki] = (rtm_board_ktune_t){.have = true, .tune = k->tune, .r_op = p->r,
                                               .t_next = p->bd->ktune[p->ki].t_next};
    rtm_model_job_t job;
    rtm_model_pred_t pr;
    if (rtm_model_job_make(k, &job) != RTM_OK ||
        rtm_model_predict_dev(&job, &tmp, RTM_MODEL_EXTENDED, 0, &pr) != RTM_OK)
        return -1.0;
    return (double)(p->total ? pr.ext.total_ns : pr.ext.kernel_ns) * 1e-9;
}

/* dev_pred's kernel time alone, whatever p->total says (same r). */
static double dev_pred_kernel(const void *ctx, const rtm_kinst_t *k)
{
    dpred_t p = *(const dpred_t *)ctx;
    p.total = false;
    return dev_pred(&p, k);
}

/* The extended model's kernel time at instance k without memory term is a * r + b
 * where every launch is bound by the device (r large: two predictions). A multi-launch
 * job's further launches may be paced by the host instead (model.c, launches_span), where
 * the time grows with r by the first launch's share only: there the model is linearised
 * where it meets the measured time t (r found by bisection, the slope from 5 % about it),
 * so that the fit's a * r + b describes the point in its own regime; a point at or below
 * the host's pace alone (r -> 0) gets that regime's terms (slope a / launches), which the
 * fit cannot meet exactly: session 12 e's H100 fit a width-65 grid_path point measured
 * under that pace with the device-bound terms and put a t_fixed of 768 us on every job. */
static bool dev_coef(const rtm_board_dev_t *bd, int ki, const rtm_kinst_t *k, double t,
                     double *a, double *b)
{
    dpred_t p1 = {bd, ki, 1e-3, false}, p2 = {bd, ki, 2e-3, false};
    const double y1 = dev_pred(&p1, k), y2 = dev_pred(&p2, k);
    if (y1 < 0 || y2 < 0)
        return false;
    *a = (y2 - y1) / 1e-3;
    *b = y1 - *a * 1e-3;
    if (!(*a > 0))
        return false;
    if (k->plan.launches < 2 || !(t > 0))
        return true; /* one launch: linear */
    dpred_t q = {bd, ki, 1e-15, false};
    const double floor_s = dev_pred(&q, k);
    if (floor_s < 0)
        return true;
    if (floor_s >= t) { /* at or below the host's pace: the first launch's share alone */
        *a /= (double)k->plan.launches;
        *b = floor_s;
        return true;
    }
    double lo = 1e-15, hi = 1e-3;
    for (int i = 0; i < 80; i++) {
        q.r = sqrt(lo * hi);
        const double y = dev_pred(&q, k);
        if (y < 0)
            return true;
        if (y < t)
            lo = q.r;
        else
            hi = q.r;
    }
    const double r0 = sqrt(lo * hi);
    q.r = r0 * 0.95;
    const double ya = dev_pred(&q, k);
    q.r = r0 * 1.05;
    const double yb = dev_pred(&q, k);
    const double slope = (yb - ya) / (0.1 * r0);
    if (ya >= 0 && yb >= 0 && slope > 0) {
        *a = slope;
        *b = 0.5 * (ya + yb) - slope * r0;
    }
    return true;
}

/* Largest work-group size of any entry point of a built kexec. */
static size_t kexec_max_wg(const rtm_kexec_t *ex, cl_device_id dev)
{
    size_t m = (size_t)-1;
    for (uint32_t i = 0; i < ex->prog.n_kern; i++) {
        size_t w = 0;
        if (clGetKernelWorkGroupInfo(ex->prog.kern[i], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(w),
                                     &w, NULL) == CL_SUCCESS && w < m)
            m = w;
    }
    return m;
}

/* One kernel-only run of a job whose inputs are already on the device: the block
 * control cleared, every launch (with `first` > 0: each launch's first `first` blocks
 * alone, unmapped), clFinish; the kernel span, and in *enq_s (may be NULL) the host's
 * time in enqueueing the launches. */
static rtm_status_t kernel_only(rtm_kexec_t *ex, uint32_t first, double *kernel_s, double *enq_s)
{
    cl_event k0 = NULL, k1 = NULL;
    rtm_status_t st = rtm_kexec_clear(ex, NULL, NULL);
    const double h0 = rtm_calib_now();
    if (st == RTM_OK)
        st = rtm_kexec_enqueue_all(ex, first, &k0, &k1);
    if (enq_s)
        *enq_s = rtm_calib_now() - h0;
    const cl_int err = clFinish(ex->dev->exec);
    if (st == RTM_OK && err != CL_SUCCESS)
        st = rtm_ocl_fail("clFinish", err, __FILE__, __LINE__);
    *kernel_s = st == RTM_OK ? span_s(k0, k1 ? k1 : k0) : 0.0;
    release_ev(&k0);
    release_ev(&k1);
    return st;
}

/* Warm-up: one whole job, then (warm_s > 0) more until they have run warm_s, kernel-only
 * when `alone` (its inputs stay on the device). */
static rtm_status_t warm_up(rtm_kexec_t *ex, bool alone, double warm_s)
{
    rtm_status_t st = RTM_OK;
    double warmed = 0.0;
    for (int w = 0; st == RTM_OK && rtm_calib_warm_more(w, warmed, warm_s); w++) {
        double s = 0.0;
        rtm_kexec_timing_t t;
        if (w > 0 && alone) {
            st = kernel_only(ex, 0, &s, NULL);
        } else {
            st = rtm_kexec_run(ex, &t);
            s = t.in_s + t.kernel_s + t.out_s;
        }
        warmed += s;
    }
    return st;
}

/* Destroys a kexec made by dev_kexec and closes its share of the run time. */
static void dev_kexec_end(devcal_t *x, rtm_kexec_t *ex)
{
    rtm_kexec_destroy(ex);
    x->run_s += rtm_calib_now();
}

/* The kexec of instance `in` for dev_measure / dev_measure_part / dev_pace, with the
 * build or cache load counted; RTM_E_RANGE when the program cannot run the instance's
 * work-group. Every kexec it makes ends in dev_kexec_end. */
static rtm_status_t dev_kexec(devcal_t *x, rtm_calib_inst_t *in, rtm_kexec_t *ex)
{
    const double t0 = rtm_calib_now();
    rtm_status_t st = rtm_kexec_create_cached(ex, x->d, &in->k, x->cache);
    if (st != RTM_OK)
        return st;
    if (ex->prog.from_cache) {
        x->load_s += ex->prog.build_s;
        x->n_loaded++;
    } else {
        x->build_s += ex->prog.build_s;
        x->n_built++;
    }
    x->run_s -= t0 + ex->prog.build_s; /* the rest of the caller's time: buffers, runs */
    if (kexec_max_wg(ex, x->d->info.id) < in->k.tune.wg) {
        dev_kexec_end(x, ex);
        return RTM_E_RANGE;
    }
    return RTM_OK;
}

/* The device's idle time between a job's phases (block-control clears and inputs ->
 * kernels -> outputs): a small matrix_add job (two inputs, one launch, one output) run
 * as kexec runs every job; its device span (first command START to last END) less the
 * three phases' own spans, per change of phase, median of REPS after one warm-up. The
 * H100's driver starts each command 10-25 us after the one before it when the kind
 * changes (session 16), a time no phase's span holds and every job pays. */
static rtm_status_t dev_phase_gap(devcal_t *x)
{
    const rtm_kernel_t *kern = rtm_kernel_find("matrix_add");
    const int64_t size[RTM_SIZE_KEYS_MAX] = {63};
    rtm_calib_inst_t in;
    rtm_status_t st = rtm_calib_inst_make_in(&in, kern, size, kern->tune_default, 7, &x->arena);
    if (st != RTM_OK)
        return st;
    rtm_kexec_t ex;
    st = dev_kexec(x, &in, &ex);
    if (st != RTM_OK) {
        rtm_calib_inst_free(&in);
        return st;
    }
    double gap[REPS + 1];
    for (int r = 0; r <= REPS && st == RTM_OK; r++) {
        rtm_kexec_timing_t t;
        st = rtm_kexec_run(&ex, &t);
        gap[r] = fmax(0.0, (t.span_s - t.in_s - t.kernel_s - t.out_s) / 2.0);
    }
    dev_kexec_end(x, &ex);
    rtm_calib_inst_free(&in);
    if (st != RTM_OK)
        return st;
    rtm_calib_fig_t fig;
    dev_param(x->bd, RTM_DEV_P_phase_gap, rtm_calib_summary(gap + 1, REPS, &fig));
    *dfig(x, RTM_DEV_P_phase_gap) = fig;
    return RTM_OK;
}

/* Runs instance `in` on the device: one warm-up job and `reps` profiled runs; kernel
 * span summary into fig, median returned in *kernel_s. On a GPU, when no buffer is both
 * read and written by the kernel (its inputs stay as uploaded), the runs after the
 * warm-up are the kernel alone (block control cleared, launches; no transfers): the
 * kernel span is what is fitted, and large jobs' transfers would otherwise cost most of
 * calibration's time. On a CPU device, and for in-place kernels, whole jobs (there the
 * transfers also warm the caches the kernel then reads, as in a real job). */
static rtm_status_t dev_measure(devcal_t *x, rtm_calib_inst_t *in, int reps, double warm_s,
                                double *kernel_s, rtm_calib_fig_t *fig)
{
    rtm_kexec_t ex;
    rtm_status_t st = dev_kexec(x, in, &ex);
    if (st != RTM_OK)
        return st;
    bool alone = !(x->d->info.type & CL_DEVICE_TYPE_CPU);
    for (uint32_t i = 0; i < in->k.plan.n_bufs; i++)
        alone = alone && (in->k.plan.buf[i].dir & RTM_BUF_IN && in->k.plan.buf[i].dir & RTM_BUF_OUT) == 0;
    if (reps > REPS)
        reps = REPS;
    double samp[REPS + 1];
    st = warm_up(&ex, alone, warm_s);
    for (int r = 1; r <= reps && st == RTM_OK; r++) {
        if (alone) {
            st = kernel_only(&ex, 0, &samp[r], NULL);
            continue;
        }
        rtm_kexec_timing_t t;
        st = rtm_kexec_run(&ex, &t);
        samp[r] = t.kernel_s;
    }
    dev_kexec_end(x, &ex);
    if (st == RTM_OK)
        *kernel_s = rtm_calib_summary(samp + 1, (size_t)reps, fig);
    return st;
}

/* Work-groups the device runs at once at work-group size wg: what a partial job's
 * blocks per worker count in (dev_measure_part). */
static double dev_workers(const devcal_t *x, uint32_t wg)
{
    const double cus = fmax(x->bd->param[RTM_DEV_P_cus], 1.0);
    return fmax(cus, wg ? floor(x->bd->param[RTM_DEV_P_units] / wg) : cus);
}

/* The whole job's kernel time from runs of its first `part` blocks per resident group
 * (one-launch kernels: a launch of the job's first blocks, unmapped, so that the kernel
 * runs the code of the whole job): the inputs uploaded once, then a warm-up and `reps`
 * runs of block control cleared + that launch, each event-profiled; scaled by the waves,
 * ceil(blocks / workers) / part. The steady state of a long job (the workers on
 * neighbouring blocks, the data they share in the caches) is that of its first blocks.
 * The warm-up run tells what a run takes: a longer one than predicted gets fewer runs.
 * GPUs only (dev_kernel: PoCL 5 ran the first blocks 2-4x slower than their share). */
static rtm_status_t dev_measure_part(devcal_t *x, rtm_calib_inst_t *in, int reps, uint32_t part,
                                     double *kernel_s, rtm_calib_fig_t *fig)
{
    const double workers = dev_workers(x, in->k.tune.wg);
    const uint64_t blocks = rtm_kinst_blocks(&in->k);
    const uint64_t m64 = (uint64_t)(part * workers);
    if (in->k.plan.launches != 1 || part == 0 || m64 == 0 || m64 >= blocks)
        return dev_measure(x, in, reps, 0.0, kernel_s, fig);
    rtm_kexec_t ex;
    rtm_status_t st = dev_kexec(x, in, &ex);
    if (st != RTM_OK)
        return st;
    st = rtm_kexec_write_inputs(&ex, NULL, NULL);
    if (reps > REPS)
        reps = REPS;
    double samp[REPS + 1];
    for (int r = 0; r <= reps && st == RTM_OK; r++) {
        st = kernel_only(&ex, (uint32_t)m64, &samp[r], NULL);
        if (r == 0 && st == RTM_OK)
            reps = reps_after_warmup(samp[0], reps);
    }
    dev_kexec_end(x, &ex);
    if (st == RTM_OK)
        *kernel_s = rtm_calib_part_scale(rtm_calib_summary(samp + 1, (size_t)reps, fig), 0.0,
                                         (uint32_t)blocks, (uint32_t)workers, part);
    return st;
}

/* Sizing for the sweep on a GPU: the larger of the key whose largest buffer reaches
 * SWEEP_GPU_BUF and the key whose kernel time reaches SWEEP_GPU_CAP_S (the bandwidth-bound
 * regime, where vector width and work-group size matter, without a huge job). */
#define SWEEP_GPU_BUF (64.0 * MIB)
#define SWEEP_GPU_CAP_S 5e-3
typedef struct {
    const dpred_t *p;
} spred_t;

static double sweep_pred(const void *ctx, const rtm_kinst_t *k)
{
    const spred_t *s = ctx;
    double big = 0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        big = fmax(big, (double)k->plan.buf[i].bytes);
    const double t = dev_pred(s->p, k);
    return t < 0 ? -1.0 : fmin(big / SWEEP_GPU_BUF, t / SWEEP_GPU_CAP_S);
}

/* The size the tuning sweep runs at: kernel time SWEEP_TARGET_S, and on a GPU at least
 * the bandwidth-bound size above (seeds 001/004: the width that wins on a small job is
 * not the one that wins on a large one). */
static bool sweep_size(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune, const dpred_t *p,
                       int64_t *size)
{
    const int64_t k1 = rtm_calib_size_for(kern, tune, SWEEP_TARGET_S, dev_pred, p, &x->lim, 1, 0,
                                          NULL, 0, size);
    if (k1 < 0 || (x->d->info.type & CL_DEVICE_TYPE_CPU))
        return k1 >= 0;
    int64_t s2[RTM_SIZE_KEYS_MAX];
    const spred_t sp = {p};
    const int64_t k2 = rtm_calib_size_for(kern, tune, 1.0, sweep_pred, &sp, &x->lim, 1, 0, NULL,
                                          0, s2);
    if (k2 > k1)
        memcpy(size, s2, sizeof(s2));
    return true;
}

/* True when b (re-planned for another tuning) has a's buffers, byte for byte. */
static bool same_bufs(const rtm_kinst_t *a, rtm_kinst_t *b)
{
    if (rtm_kinst_plan(b) != RTM_OK || a->plan.n_bufs != b->plan.n_bufs)
        return false;
    for (uint32_t i = 0; i < a->plan.n_bufs; i++)
        if (a->plan.buf[i].bytes != b->plan.buf[i].bytes ||
            a->plan.buf[i].dir != b->plan.buf[i].dir)
            return false;
    return true;
}

/* One program to build into the binary cache (a sweep candidate, a point's size, a poll
 * period's build): by a build worker (builder.h), else in a thread of its own. */
typedef struct {
    rtm_ocl_dev_t *d;
    rtm_build_job_t j;
    const char *cache;
} prebuild_t;

/* The job dev_measure's rtm_kexec_create_cached runs (its options: what a prebuild
 * builds and what the cache is asked for): the write flag, the default variant and
 * polls. */
static void prebuild_job(rtm_build_job_t *j, const rtm_kernel_t *kern)
{
    memset(j, 0, sizeof(*j));
    rtm_kinst_init(&j->k, kern);
    j->transport = RTM_ABORT_WRITE;
}

/* The build options of the program dev_measure's kexec runs for k on d (prebuild_job's
 * options; rtm_kexec_program_options). */
#define PROG_OPTS_MAX 768
static void prog_options(rtm_ocl_dev_t *d, const rtm_kinst_t *k, char out[PROG_OPTS_MAX])
{
    rtm_build_job_t j;
    prebuild_job(&j, k->kernel);
    const rtm_kexec_opts_t o = rtm_build_job_opts(&j, NULL);
    rtm_kexec_program_options(d, k, &o, out, PROG_OPTS_MAX);
}

/* True when kern's program on d differs between first keys a and b: its build options
 * hold the size (the navigation kernels' target counts, an image's width), or the size
 * moves it to another block-control build (a GPU's persistent groups from
 * RTM_KEXEC_PERSIST_MIN_BLOCKS blocks: the H100's matrix kernels, sort, copy and spin
 * compiled that one on the path at their larger points, 3-4 s of gpu0's calibration). */
static bool size_built(rtm_ocl_dev_t *d, const rtm_kernel_t *kern, rtm_tune_t tune, int64_t a,
                       int64_t b)
{
    rtm_kinst_t ka, kb;
    if (!size_plan(kern, a, tune, NULL, &ka) || !size_plan(kern, b, tune, NULL, &kb))
        return false;
    char oa[PROG_OPTS_MAX], ob[PROG_OPTS_MAX];
    prog_options(d, &ka, oa);
    prog_options(d, &kb, ob);
    return strcmp(oa, ob) != 0;
}

static rtm_status_t prebuild_one(prebuild_t *p)
{
    const rtm_kexec_opts_t o = rtm_build_job_opts(&p->j, p->cache);
    return rtm_kexec_prebuild(p->d, &p->j.k, &o);
}

static bool prebuild_cached(const prebuild_t *p)
{
    const rtm_kexec_opts_t o = rtm_build_job_opts(&p->j, p->cache);
    return rtm_kexec_cached(p->d, &p->j.k, &o);
}

/* Builds the programs of pb[0..n) (planned instances) in parallel threads, as many at a
 * time as the host has cores, each thread taking the next instance. */
typedef struct {
    prebuild_t *pb;
    uint32_t n;
    uint32_t next; /* atomic */
} prebuild_set_t;

static void *prebuild_worker(void *arg)
{
    prebuild_set_t *set = arg;
    for (;;) {
        const uint32_t i = __atomic_fetch_add(&set->next, 1u, __ATOMIC_RELAXED);
        if (i >= set->n)
            return NULL;
        (void)prebuild_one(&set->pb[i]); /* a failure shows again when measured */
    }
}

/* Serial build time of a batch (n x c) from which build workers are started for it. */
#define PROCS_MIN_S 0.5

/* How the prebuilds run: RTM_CALIB_PREBUILD=procs (the default), threads, or off. */
typedef enum { PRE_PROCS, PRE_THREADS, PRE_OFF } pre_mode_t;

/* Host cores from which building ahead pays: with fewer (the 2-core development
 * machine), builds that the deadline then leaves unmeasured cost more than the overlap
 * saves (measured there: 42 programs prebuilt in 23.8 s, the run 72.5 -> 95.4 s). */
#define PREBUILD_MIN_CORES 4

static uint32_t host_cores(void) { return (uint32_t)rtm_os_cpu_count(); }

static pre_mode_t pre_mode(void);

/* Whether to build ahead at all: worker processes build in parallel from 2 cores on
 * (the 2-core machine: two at a time); threads, which a driver may serialise, from
 * PREBUILD_MIN_CORES. */
static bool prebuild_on(void)
{
    const pre_mode_t m = pre_mode();
    return m != PRE_OFF && host_cores() >= (m == PRE_PROCS ? 2u : PREBUILD_MIN_CORES);
}


static pre_mode_t pre_mode(void)
{
    const char *m = getenv("RTM_CALIB_PREBUILD");
    return !m || !*m || strcmp(m, "procs") == 0 ? PRE_PROCS
           : strcmp(m, "threads") == 0           ? PRE_THREADS
                                                  : PRE_OFF;
}

/* Build workers of a GPU at most: each opens a context on the one device, and the
 * driver makes them one after another (H100 host, 16 workers: 2.1 s to open each, 42
 * programs in 4.02 s; 8 workers: 3.10 s). A CPU device gets one per core. */
#define PRE_GPU_WORKERS 8

/* The builds of pb[0..n) by the device's build workers (builder.h), started at the
 * first batch worth it and kept for the device's calibration. Drivers serialise their
 * compiler within a process (PoCL's LLVM work takes one lock: the H100 host's 16 cores
 * built 22 programs in 13.9 s in threads, about what one core does; NVIDIA's compiler
 * too: 45 programs in 8.4 s), not across processes. Returns false when the workers
 * could not take the whole batch (none started, or one died: noted once, when it
 * happens; the caller builds what the cache lacks, this batch's and every later one). */
/* The device's build workers started unless they are up: one per host core (a GPU's at
 * most PRE_GPU_WORKERS), at most `cap`; with `idle` under SCHED_IDLE. */
static void workers_up(devcal_t *x, uint32_t cap, bool idle)
{
    if (rtm_builder_up(&x->bld))
        return;
    uint32_t np = host_cores();
    if (!(x->d->info.type & CL_DEVICE_TYPE_CPU) && np > PRE_GPU_WORKERS)
        np = PRE_GPU_WORKERS;
    np = np > cap ? cap : np;
    x->pre_procs = rtm_builder_start(&x->bld, NULL, x->ocl_index, x->cache, np, idle);
}

static bool prebuild_procs(devcal_t *x, prebuild_t *pb, uint32_t n)
{
    if (x->bld.broken || !x->cache)
        return false;
    workers_up(x, UINT32_MAX, false);
    const rtm_build_job_t *jobs[256];
    uint32_t done = 0;
    while (done < n && rtm_builder_up(&x->bld)) {
        uint32_t m = 0;
        while (done + m < n && m < N_OF(jobs)) {
            jobs[m] = &pb[done + m].j;
            m++;
        }
        (void)rtm_builder_batch(&x->bld, jobs, m);
        done += m;
    }
    if (rtm_builder_up(&x->bld))
        return true;
    char proc[256];
    rtm_os_describe_process(proc, sizeof(proc));
    note(x->c, "%s: the build workers stopped (%u of %u failed): builds in this process "
               "from now on (this process: %s)",
         x->bd->name, x->bld.failed, x->pre_procs, proc);
    return false;
}

/* Keeps in pb[0..n) the entries whose programs the cache does not hold yet; returns how
 * many. */
static uint32_t uncached(prebuild_t *pb, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!prebuild_cached(&pb[i]))
            pb[m++] = pb[i];
    return m;
}

/* Builds what pb[0..n) the cache lacks: by the build workers when they are up or the
 * batch is worth starting them, else (and what they could not build) in threads. */
static void prebuild_many(devcal_t *x, prebuild_t *pb, uint32_t n)
{
    const double t0 = rtm_calib_now();
    const pre_mode_t mode = pre_mode();
    if (mode == PRE_OFF)
        return;
    /* what the cache already holds (a second calibration on this machine) needs no
     * build, nor a worker to start for it */
    n = uncached(pb, n);
    if (n == 0)
        return;
    /* a worker costs a start (discovery, the device opened: a CUDA context): worth it
     * when the batch's builds one after another would take longer (PoCL's c on the H100
     * host 0.24 s, NVIDIA's 0.05 s); workers already up take any batch of two or more */
    const bool worth = rtm_builder_up(&x->bld) ? n >= 2
                                               : n >= 2 && n * x->bd->param[RTM_DEV_P_build] >=
                                                               PROCS_MIN_S;
    const uint32_t n_all = n;
    if (mode == PRE_PROCS && worth) {
        if (prebuild_procs(x, pb, n)) {
            x->pre_s += rtm_calib_now() - t0;
            x->n_pre += n_all;
            return;
        }
        n = uncached(pb, n); /* what no worker built (one that died had taken some) */
    }
    uint32_t nt = host_cores();
    nt = nt > n ? n : nt > 64 ? 64 : nt;
    pthread_t th[64];
    bool started[64] = {false};
    prebuild_set_t set = {pb, n, 0};
    for (uint32_t t = 0; t < nt; t++)
        started[t] = pthread_create(&th[t], NULL, prebuild_worker, &set) == 0;
    prebuild_worker(&set); /* this thread too (and all of it when none started) */
    for (uint32_t t = 0; t < nt; t++)
        if (started[t])
            pthread_join(th[t], NULL);
    x->pre_s += rtm_calib_now() - t0;
    x->n_pre += n_all;
}

/* Plans kern at `size` and `tune` into *pb; false when it does not plan. */
static bool prebuild_entry(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                           rtm_tune_t tune, prebuild_t *pb)
{
    *pb = (prebuild_t){.d = x->d, .cache = x->cache};
    prebuild_job(&pb->j, kern);
    for (uint32_t j = 0; j < kern->n_keys; j++)
        pb->j.k.size[j] = size[j];
    pb->j.k.tune = tune;
    return rtm_kinst_plan(&pb->j.k) == RTM_OK;
}

/* Builds the programs of `n` tuning candidates of kern at `size` in parallel threads
 * (program builds are most of a sweep's time on PoCL: 0.3-1.5 s each, one core each),
 * so that the sweep's kexecs load them from the cache. Nothing without a cache. */
static void prebuild(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                     const rtm_tune_t *tunes, uint32_t n)
{
    prebuild_t pb[16];
    uint32_t m = 0;
    if (!x->cache || n < 2 || !prebuild_on())
        return;
    for (uint32_t i = 0; i < n && m < N_OF(pb); i++)
        m += prebuild_entry(x, kern, size, tunes[i], &pb[m]);
    prebuild_many(x, pb, m);
}

/* The sweep's candidates of one phase (-1: the starting tuning, on CPU devices; 0:
 * work-group sizes at base's width, GPUs; 1: the widths at base's work-group size). */
static const uint32_t sweep_wgs[] = {256, 128, 64, 512, 1024, 32};
static const uint32_t sweep_vecs[] = {4, 2, 8, 1, 16};
#define SWEEP_CAND_MAX 6

static uint32_t sweep_cands(const devcal_t *x, const rtm_kernel_t *kern, int phase,
                            rtm_tune_t base, rtm_tune_t cand[SWEEP_CAND_MAX])
{
    const uint32_t nc = phase < 0 ? 1 : phase == 0 ? N_OF(sweep_wgs) : N_OF(sweep_vecs);
    uint32_t n = 0;
    for (uint32_t i = 0; i < nc && n < SWEEP_CAND_MAX; i++) {
        rtm_tune_t t = base; /* phase -1: the starting tuning itself */
        if (phase == 0)
            t.wg = sweep_wgs[i];
        else if (phase == 1)
            t.vec = sweep_vecs[i];
        if ((phase == 1 && t.vec == base.vec) || !(kern->vec_allowed & (1u << t.vec)) ||
            t.wg > x->d->info.max_wg)
            continue;
        /* CPU devices run a work-group as a loop on one thread: groups under 64 only
         * add scheduling, and PoCL 3.1 miscompiles some vector kernels at wg 32
         * (matrix_add, vec >= 4: SEGV inside the generated code) */
        if ((x->d->info.type & CL_DEVICE_TYPE_CPU) && t.wg < 64)
            continue;
        cand[n++] = t;
    }
    return n;
}

/* A kernel's tuning candidates run at `size`: work-group sizes at the default width, then
 * widths at the best work-group size; the fastest kernel span wins. */
static rtm_tune_t dev_sweep(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                            rtm_tune_t start, double deadline)
{
    rtm_tune_t best = start;
    double best_t = INFINITY;
    char log[512];
    size_t used = 0;
    log[0] = '\0';
    /* a CPU device runs a work-group as a loop on one thread: only the width matters
     * there (and the default work-group is kept) */
    const bool cpu_dev = (x->d->info.type & CL_DEVICE_TYPE_CPU) != 0;
    rtm_calib_inst_t inst = {0};
    bool have_inst = false;
    for (int phase = cpu_dev ? -1 : 0; phase < 2; phase++) {
        if (phase == 0 && cpu_dev)
            continue;
        const rtm_tune_t base = best;
        rtm_tune_t cand[SWEEP_CAND_MAX];
        const uint32_t ncand = sweep_cands(x, kern, phase, base, cand);
        /* built together only when the sweep has the time to measure them (a build
         * for a candidate its deadline then skips is lost) */
        if (deadline - rtm_calib_now() > ncand * x->bd->param[RTM_DEV_P_build])
            prebuild(x, kern, size, cand, ncand);
        for (uint32_t i = 0; i < ncand; i++) {
            const rtm_tune_t t = cand[i];
            if (rtm_calib_now() > deadline && best_t < INFINITY)
                break; /* out of time: keep the best so far */
            /* the first candidate's host buffers (filled once) serve every candidate
             * whose plan has the same buffers */
            rtm_calib_inst_t in = {0};
            bool own = true;
            if (have_inst) {
                in = inst;
                in.k.tune = t;
                own = !same_bufs(&inst.k, &in.k) ||
                      rtm_kinst_bind(&in.k, inst.mem, inst.bytes) == 0;
            }
            if (own && rtm_calib_inst_make(&in, kern, size, t, 7) != RTM_OK) {
                rtm_calib_inst_free(&in);
                continue;
            }
            double ks = 0;
            const rtm_status_t st = dev_measure(x, &in, 5, 0.0, &ks, NULL);
            if (own && !have_inst && st == RTM_OK) {
                inst = in; /* kept for the others */
                have_inst = true;
            } else if (own) {
                rtm_calib_inst_free(&in);
            }
            if (st != RTM_OK || !(ks > 0))
                continue;
            (void)appendf(log, sizeof(log), &used, " %u/%u:%.3gms", t.wg, t.vec, ks * 1e3);
            if (ks < best_t) {
                best_t = ks;
                best = t;
            }
        }
    }
    if (have_inst)
        rtm_calib_inst_free(&inst);
    note(x->c, "%s: %s sweep (wg/vec:kernel time):%s -> wg %u vec %u", x->bd->name, kern->name,
         log, best.wg, best.vec);
    return best;
}

typedef struct {
    devcal_t *x;
    int ki;
} dkctx_t;

/* kfit_t's prebuild on a device: the sizes' programs the cache lacks, built together
 * (prebuild_many: by the build workers when up or worth starting); those in the cache
 * after become prebuilt keys the targets may take. */
static void dk_prebuild(void *ctx, kfit_t *kf, const int64_t *keys,
                        const int64_t (*sizes)[RTM_SIZE_KEYS_MAX], uint32_t n)
{
    devcal_t *x = ((dkctx_t *)ctx)->x;
    /* one program gains nothing built ahead (a kernel whose sizes all run one program
     * has it by now: no size of the batch is a program of its own, below) */
    if (!x->cache || !prebuild_on() || n < 2)
        return;
    prebuild_t pb[AHEAD_MAX];
    int64_t pk[AHEAD_MAX];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < AHEAD_MAX; i++) {
        /* a size whose program is another's of the batch is not a program of its own,
         * and one program is built once (the first of its sizes) */
        bool own = false, twin = false;
        for (uint32_t j = 0; j < n && !own; j++)
            own = j != i && size_built(x->d, kf->kern, kf->tune, keys[i], keys[j]);
        for (uint32_t q = 0; q < m && !twin; q++)
            twin = !size_built(x->d, kf->kern, kf->tune, keys[i], pk[q]);
        if (own && !twin && !key_in(kf->pre_keys, kf->n_pre_keys, keys[i]) &&
            prebuild_entry(x, kf->kern, sizes[i], kf->tune, &pb[m]))
            pk[m++] = keys[i];
    }
    prebuild_t todo[AHEAD_MAX]; /* prebuild_many keeps only what it builds; pb[i] stays pk[i]'s */
    memcpy(todo, pb, m * sizeof(pb[0]));
    prebuild_many(x, todo, m);
    for (uint32_t i = 0; i < m && kf->n_pre_keys < N_OF(kf->pre_keys); i++)
        if (prebuild_cached(&pb[i]))
            kf->pre_keys[kf->n_pre_keys++] = pk[i];
}

static bool dk_coef(const void *ctx, const rtm_kinst_t *k, double t, double *a, double *b)
{
    const dkctx_t *d = ctx;
    return dev_coef(d->x->bd, d->ki, k, t, a, b);
}

static rtm_status_t dk_measure(void *ctx, rtm_calib_inst_t *in, int reps, double *t,
                               rtm_calib_fig_t *f)
{
    dkctx_t *d = ctx;
    /* a point follows its instance's set-up (an idle gap): a GPU warmed up by time */
    const bool gpu = !(d->x->d->info.type & CL_DEVICE_TYPE_CPU);
    return dev_measure(d->x, in, reps, gpu ? RTM_CALIB_WARM_S : 0.0, t, f);
}

static rtm_status_t dk_measure_part(void *ctx, rtm_calib_inst_t *in, int reps, uint32_t part,
                                    double *t, rtm_calib_fig_t *f)
{
    dkctx_t *d = ctx;
    return dev_measure_part(d->x, in, reps, part, t, f);
}

/* Kernel ki's starting tuning and sizing prediction on the device; true when a sweep
 * has something to compare. A CPU device gets none: PoCL's implicit vectoriser packs
 * work-items into SIMD lanes, so the explicit width changes little beyond the kernel's
 * default (copy at 256 MiB on the 16 H100 host cores: vec 4 85.8 GB/s, the best, vec 8,
 * 88.2 GB/s; board/h100/results/bench-pocl16.txt) while every candidate costs a program
 * build and JIT (0.3-1.7 s, one at a time: PoCL serialises its LLVM work); on the H100
 * host the sweep measured the starting tuning alone for every kernel (its deadline cut
 * the rest), on the 2-core machine it picked widths 3% apart, within the noise. The
 * kernel's default, or the base profile's tuning, stays. */
static bool kernel_start(const devcal_t *x, uint32_t ki, rtm_tune_t *tune, dpred_t *p)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    const rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    *tune = kt->have ? kt->tune : kern->tune_default;
    while (tune->wg > 1 && tune->wg > x->d->info.max_wg)
        tune->wg /= 2;
    *p = (dpred_t){x->bd, (int)ki,
                   kt->have && kt->r_op > 0 ? kt->r_op
                   : x->bd->have[RTM_DEV_P_r_op] ? x->bd->param[RTM_DEV_P_r_op]
                                                 : x->r_probe,
                   false};
    return !(x->d->info.type & CL_DEVICE_TYPE_CPU);
}

/* Host time to make and fill a sweep instance, per byte of its buffers (the H100 host:
 * 192 MiB in 0.34 s). */
#define SWEEP_INST_S_PER_BYTE 1.7e-9

/* Sweep candidates a time share of `share` seconds pays for, at the sweep's size: each
 * costs a program build (c, when it is not in the binary cache) and 6 runs of its job
 * (one warm-up, 5 timed), the job's time predicted at `size`; the instance comes first. */
static double sweep_affords(const devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                            rtm_tune_t tune, const dpred_t *p, double share)
{
    rtm_kinst_t k;
    rtm_kinst_init(&k, kern);
    for (uint32_t j = 0; j < kern->n_keys; j++)
        k.size[j] = size[j];
    k.tune = tune;
    double t = 0.0, inst = 0.0;
    if (rtm_kinst_plan(&k) == RTM_OK) {
        /* each run a whole job, transfers included (dev_measure), and the instance made
         * and filled once (the H100's matrix_add at 3 x 64 MiB: 0.34 s, then one
         * candidate measured in 0.26 s and the sweep out of time: a sweep of one) */
        dpred_t pk = *p;
        pk.total = true;
        t = fmax(dev_pred(&pk, &k), 0.0);
        inst = (double)rtm_kinst_bytes(&k) * SWEEP_INST_S_PER_BYTE;
    }
    const double cand = x->bd->param[RTM_DEV_P_build] + 6.0 * t;
    return cand > 0 ? fmax(share - inst, 0.0) / cand : 1e9;
}

/* True when the tuning sweep runs: it is worth its time only when it can compare two
 * candidates at least; with one, it returned the candidate it measured without a
 * comparison (the H100's gpu0 took wg 256 for trajectory so, its default 128 untried),
 * after a program build and an instance at the sweep's size (on a GPU >= 64 MiB a
 * buffer: up to 4 s a kernel there). */
#define SWEEP_SHARE 0.4
static bool sweep_runs(const devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                       rtm_tune_t tune, const dpred_t *p, double budget)
{
    return sweep_affords(x, kern, size, tune, p, SWEEP_SHARE * budget) >= 2.0;
}

/* Before the catalogue's kernels are measured: the programs they will surely build,
 * built at once in parallel threads into the binary cache (hosts of PREBUILD_MIN_CORES
 * cores or more) — every kernel's first sweep candidate at its sweep size and its first
 * calibration point (the smallest target's
 * size at its starting tuning; the size the measurement then picks is the same unless
 * the sweep changes the tuning). Sizes come from the model alone, as the measurement's
 * first ones do. On PoCL a build costs 0.3-1.5 s of one core and the nav kernels' sizes
 * are build options (every point its own program): one at a time they were most of the
 * H100 host's 57 s; its 16 cores build them together. */
/* Plans key kj (sizes s) of kernel ki into *pb and keeps it among the kernel's prebuilt
 * keys (x->pre_key) when it runs a program of its own: not k0's, nor that of a key kept
 * already (within PRE_KEYS_MAX). Returns 1 when it did, else 0 (kj < 0: no size). */
static uint32_t pre_size(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune, uint32_t ki,
                         int64_t k0, int64_t kj, const int64_t *s, prebuild_t *pb)
{
    if (kj < 0 || x->n_pre_key[ki] >= PRE_KEYS_MAX || !size_built(x->d, kern, tune, k0, kj))
        return 0;
    for (uint32_t q = 0; q < x->n_pre_key[ki]; q++)
        if (!size_built(x->d, kern, tune, x->pre_key[ki][q], kj))
            return 0;
    if (!prebuild_entry(x, kern, s, tune, pb))
        return 0;
    x->pre_key[ki][x->n_pre_key[ki]++] = kj;
    return 1;
}

/* dev_prebuild_all's list: pb (room for max) gets the programs; returns how many. */
static uint32_t prebuild_list(devcal_t *x, const rtm_kernel_t *skip, prebuild_t *pb,
                              uint32_t max)
{
    cal_t *c = x->c;
    uint32_t n = 0;
    /* the kernels' budgets after this prebuild (one build c per kernel on a device that
     * builds one at a time: PoCL's LLVM work is serialised): a sweep they will not run
     * gets no build here */
    const uint32_t nk = kernels_wanted(c);
    const bool later_ok = host_cores() >= PRE_LATER_CORES;
    const double pre_est = nk * 2 * x->bd->param[RTM_DEV_P_build] /
                           ((x->d->info.type & CL_DEVICE_TYPE_CPU) ? 1.0 : host_cores());
    const double kbudget =
        fmin(fmax((c->deadline - rtm_calib_now() - pre_est) / (nk ? nk : 1), KERNEL_MIN_S),
             KERNEL_MAX_S);
    for (uint32_t ki = 0; ki < rtm_kernel_count(); ki++) {
        const rtm_kernel_t *kern = rtm_kernel_at(ki);
        if (kern == skip || !rtm_calib_wanted(c->o->kernels, kern->name))
            continue;
        rtm_tune_t tune;
        dpred_t p;
        const bool choice = kernel_start(x, ki, &tune, &p);
        int64_t size[RTM_SIZE_KEYS_MAX];
        if (!c->o->quick && choice && sweep_size(x, kern, tune, &p, size) &&
            sweep_runs(x, kern, size, tune, &p, kbudget)) {
            /* the sweep's first candidate only: the others may be cut by its deadline
             * (the sweep builds them together itself, when it gets to them) */
            rtm_tune_t cand[SWEEP_CAND_MAX];
            if (sweep_cands(x, kern, 0, tune, cand) > 0 && n < max)
                n += prebuild_entry(x, kern, size, cand[0], &pb[n]);
        }
        dpred_t pt = p;
        pt.total = true;
        const int64_t k0 = rtm_calib_size_for(kern, tune, c->targets[0], dev_pred, &pt, &x->lim,
                                              1, 0, NULL, 0, size);
        if (n < max && k0 >= 0)
            n += prebuild_entry(x, kern, size, tune, &pb[n]);
        /* a program built with its size in the options: the later targets' sizes too (by
         * the same prediction; kernel_points measures one of them when it is near), on a
         * host of PRE_LATER_CORES cores or more, where a few more parallel builds cost
         * little wall time (this 2-core VM: PoCL's 11 more builds took 7.3 s more in
         * parallel and saved 3.2 s of the 7.4 s compiled on the path) */
        const size_t nt = c->n_targets;
        size_t later[PRE_TARGETS_MAX + 1]; /* kernel_points' order; [0], the first, is k0 */
        const size_t nl = target_order(nt, later, N_OF(later));
        x->n_pre_key[ki] = 0;
        for (uint32_t j = 1; later_ok && k0 >= 0 && j < nl && n < max; j++) {
            int64_t s2[RTM_SIZE_KEYS_MAX];
            /* the last target at least 1.5x the first size, as kernel_points sizes it */
            const int64_t kmin = later[j] == nt - 1 ? k0 + (k0 + 1) / 2 : 0;
            const int64_t kj = rtm_calib_size_for(kern, tune, c->targets[later[j]], dev_pred, &pt,
                                                  &x->lim, 1, kmin, NULL, 0, s2);
            n += pre_size(x, kern, tune, ki, k0, kj, s2, &pb[n]);
        }
        const double bottom = c->targets[0] / LADDER_SPAN, top = c->targets[nt - 1] * LADDER_SPAN;
        for (uint32_t step = 0; x->ladder && later_ok && k0 >= 0 && n < max &&
                                bottom * pow(LADDER_STEP, step) <= top;
             step++) {
            const double t = bottom * pow(LADDER_STEP, step);
            int64_t s2[RTM_SIZE_KEYS_MAX];
            const int64_t kj =
                rtm_calib_size_for(kern, tune, t, dev_pred, &pt, &x->lim, 1, 0, NULL, 0, s2);
            n += pre_size(x, kern, tune, ki, k0, kj, s2, &pb[n]);
        }
    }
    return n;
}

/* With `send`: dev_prebuild_all's programs that the cache lacks handed to the device's
 * build workers, started under SCHED_IDLE, without waiting (a CPU-type device's, before
 * the GPUs are measured: they build in the background of the GPUs' measurements, which
 * leave the host's cores idle); dev_prebuild_all collects them. Without: the programs
 * built now, together (what the workers built in the background is in the cache). */
static void dev_prebuild_all(devcal_t *x, const rtm_kernel_t *skip, bool send)
{
    cal_t *c = x->c;
    if (!x->cache || !prebuild_on())
        return;
    const uint32_t max = rtm_kernel_count() * (2 + PRE_KEYS_MAX);
    prebuild_t *pb = calloc(max ? max : 1, sizeof(*pb));
    if (!pb)
        return;
    uint32_t n = prebuild_list(x, skip, pb, max);
    if (send) {
        n = uncached(pb, n);
        if (n > 0 && pre_mode() == PRE_PROCS && !x->bld.broken) {
            workers_up(x, n, true);
            const rtm_build_job_t *jobs[RTM_BUILDER_QUEUE];
            uint32_t m = 0;
            for (; m < n && m < N_OF(jobs); m++)
                jobs[m] = &pb[m].j;
            x->bg_sent = rtm_builder_send(&x->bld, jobs, m);
            x->bg_t0 = rtm_calib_now();
            x->bg_cpu0 = rtm_builder_cpu_s(&x->bld);
            note(c, "%s: %u programs (first sizes, size ladders) handed to %u build workers under "
                    "SCHED_IDLE, to build while the GPUs are measured",
                 x->bd->name, x->bg_sent, x->pre_procs);
        }
        free(pb);
        return;
    }
    if (x->bg_sent > 0) {
        /* the background batch: what it still builds is waited for here */
        const double tw = rtm_calib_now();
        const double cpu = rtm_builder_cpu_s(&x->bld) - x->bg_cpu0;
        const uint32_t built = rtm_builder_wait(&x->bld);
        const double wait_s = rtm_calib_now() - tw;
        x->pre_s += wait_s;
        x->n_pre += x->bg_sent;
        note(c, "%s: background builds: %u of %u built by %u workers (%u failed) in %.2fs "
                "before this section, %.1f CPU s; %.2fs waited for here",
             x->bd->name, built, x->bg_sent, x->pre_procs, x->bld.failed, tw - x->bg_t0, cpu,
             wait_s);
        x->bg_sent = 0;
    }
    const double t0 = rtm_calib_now();
    const uint32_t pre0 = x->n_pre;
    prebuild_many(x, pb, n);
    const double pre_s = rtm_calib_now() - t0;
    uint32_t cached = 0;
    for (uint32_t i = 0; i < n; i++)
        cached += prebuild_cached(&pb[i]);
    note(c, "%s: prebuild: %u programs (sweep candidates, first sizes), %u not in the cache "
            "built in parallel in %.2fs, %u worker processes (%u failed; the first job done "
            "%.2fs after their start); %u of %u in the cache after",
         x->bd->name, n, x->n_pre - pre0, pre_s, x->pre_procs, x->bld.failed,
         x->bld.first_ack_s, cached, n);
    free(pb);
}

/* A mark of devcal_t's timing accumulators, and what happened since one (notes). */
typedef struct {
    double t, build_s, load_s, run_s, pre_s;
    uint32_t built, loaded, pre;
} phase_t;

static phase_t phase_mark(const devcal_t *x)
{
    return (phase_t){rtm_calib_now(), x->build_s, x->load_s, x->run_s, x->pre_s,
                     x->n_built, x->n_loaded, x->n_pre};
}

/* "W.WWs (builds B.BBs xN, loads L.LLs xM, runs R.RRs, instances/other O.OOs)" since a. */
static void phase_fmt(char *buf, size_t len, const devcal_t *x, const phase_t *a)
{
    const phase_t b = phase_mark(x);
    const double wall = b.t - a->t, bu = b.build_s - a->build_s, lo = b.load_s - a->load_s,
                 ru = b.run_s - a->run_s, pr = b.pre_s - a->pre_s;
    snprintf(buf, len, "%.2fs (parallel prebuild %.2fs x%u, builds %.2fs x%u, cache loads "
                       "%.2fs x%u, runs %.2fs, instances+other %.2fs)",
             wall, pr, b.pre - a->pre, bu, b.built - a->built, lo, b.loaded - a->loaded, ru,
             fmax(wall - pr - bu - lo - ru, 0.0));
}

/* Launches from which a kernel's own pace is measured, and the most doublings of its
 * first key that dev_pace tries to reach them. */
#define PACE_LAUNCHES 8
#define PACE_DOUBLINGS 24

/* kernel_fixed, 0 when not calibrated. */
static double dev_kernel_fixed(const rtm_board_dev_t *bd)
{
    return bd->have[RTM_DEV_P_kernel_fixed] ? bd->param[RTM_DEV_P_kernel_fixed] : 0.0;
}

/* The kernel's own launch pace on the device (ktune t_next) when its jobs launch 3 times
 * or more: a job at its smallest size (first key at its minimum, doubled until it
 * launches PACE_LAUNCHES times, the other keys at their defaults), where each launch's
 * device time is about kernel_fixed and the host's enqueueing paces the launches; warmed
 * up, REPS kernel-only runs: t_next = (span - kernel_fixed) / (launches - 1) from the
 * median span, or on a GPU the host's median enqueueing time per launch when that is
 * shorter; noted with both. The empty probe kernel's pace (kernel_next) was no proxy for
 * a real job's: on one H100 instance 13.6 us against grid_path's 9.3 us and radix_sort's
 * 8.1 us, and grid_path's widths 64-3500 validated +44-60 % (session 13). 0 when not
 * measured. */
static double dev_pace(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune)
{
    if (kern->n_keys == 0)
        return 0.0;
    rtm_kinst_t k;
    int64_t key0 = kern->keys[0].min > 0 ? kern->keys[0].min : 1;
    bool ok = false;
    for (int i = 0; i < PACE_DOUBLINGS && key0 <= kern->keys[0].max; i++, key0 *= 2) {
        ok = size_plan(kern, key0, tune, &x->lim, &k);
        if (!ok || k.plan.launches >= PACE_LAUNCHES)
            break;
    }
    if (!ok || k.plan.launches < 3)
        return 0.0;
    rtm_calib_inst_t in;
    if (rtm_calib_inst_make_in(&in, kern, k.size, tune, POINT_SEED0, &x->arena) != RTM_OK)
        return 0.0;
    rtm_kexec_t ex;
    rtm_status_t st = dev_kexec(x, &in, &ex);
    double span[REPS], host[REPS];
    if (st == RTM_OK) {
        /* warm-up as the points' (dev_measure on a GPU): after one job alone the H100
         * host enqueued sort's launches at 15.0 us, grid_path's at 13.9 us, and the
         * points that followed, warmed up, ran at 9-11 us a launch (session 13) */
        st = warm_up(&ex, true, RTM_CALIB_WARM_S);
        for (int r = 0; r < REPS && st == RTM_OK; r++)
            st = kernel_only(&ex, 0, &span[r], &host[r]);
        dev_kexec_end(x, &ex);
    }
    rtm_calib_inst_free(&in);
    if (st != RTM_OK)
        return 0.0;
    const double fixed = dev_kernel_fixed(x->bd), s = rtm_calib_summary(span, REPS, NULL);
    const double L = (double)k.plan.launches;
    const double enq = rtm_calib_summary(host, REPS, NULL) / L;
    const double pace = s > fixed ? (s - fixed) / (L - 1.0) : 0.0;
    /* a GPU runs the launches as the host enqueues them: the host's enqueueing is the
     * pace, and the span's share can only add launches' own work (sort's chunk sort and
     * merges at n = 32768: 16.0 us a launch against 9.95 us enqueueing on the H100, and
     * validation's n = 131072-330000 ran at 10.5-12 us); on PoCL the device's own
     * per-launch cost is what the span holds (grid_path's 73-79 us a launch against
     * 4.8-5.4 us enqueueing on the H100 host) */
    const bool host_paced = !(x->d->info.type & CL_DEVICE_TYPE_CPU) && enq > 0.0 && enq < pace;
    const double t_next = host_paced ? enq : pace;
    if (t_next > 0)
        note(x->c, "%s: %s: t_next %.4gus from its %u launches at %s=%lld: %s (the host "
                   "enqueued them at %.4gus a launch)", x->bd->name, kern->name, t_next * 1e6,
             k.plan.launches, kern->keys[0].name, (long long)key0,
             host_paced ? "the host's enqueueing" : "(span - kernel_fixed) / (launches - 1)",
             enq * 1e6);
    return t_next;
}

/* t_next no longer than any point of the kernel allows: a point of L launches that took t
 * bounds the pace by (t - kernel_fixed) / (L - 1). Past that bound t_next is lowered to
 * it and the points' a * r + b are taken again (dev_coef) with it. The H100 host once
 * enqueued sort's launches at n = 32 768 at 112 us each, while its point at n = 131 073
 * ran 23 launches in 0.278 ms: with 112 us validation put sort's small sizes at +480 %
 * (session 13 d). Noted when lowered. */
static void pace_cap(devcal_t *x, uint32_t ki, rtm_tune_t tune, kpoint_t *pts, uint32_t n)
{
    rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    const double fixed = dev_kernel_fixed(x->bd);
    double cap = kt->t_next;
    rtm_kinst_t k;
    for (uint32_t i = 0; i < n; i++)
        if (!pts[i].part && size_plan(kern, pts[i].key, tune, NULL, &k) && k.plan.launches > 2 &&
            pts[i].t > fixed)
            cap = fmin(cap, (pts[i].t - fixed) / (double)(k.plan.launches - 1));
    if (!(cap < kt->t_next))
        return;
    note(x->c, "%s: %s: t_next lowered from %.4gus to %.4gus, the most its points allow",
         x->bd->name, kern->name, kt->t_next * 1e6, cap * 1e6);
    kt->t_next = cap;
    for (uint32_t i = 0; i < n; i++)
        if (size_plan(kern, pts[i].key, tune, NULL, &k))
            (void)dev_coef(x->bd, (int)ki, &k, pts[i].t, &pts[i].a, &pts[i].b);
}

/* One kernel on the device: tuning (full mode), its own launch pace, then its own r and
 * memory rate fitted at the calibration sizes. */
static rtm_status_t dev_kernel(devcal_t *x, uint32_t ki, uint32_t left)
{
    cal_t *c = x->c;
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    rtm_tune_t tune;
    dpred_t p;
    const bool choice = kernel_start(x, ki, &tune, &p);
    const double start = rtm_calib_now();
    const double budget = kernel_budget(c, left);
    const phase_t m0 = phase_mark(x);
    char sweep_t[160] = "none";
    if (!c->o->quick && choice) {
        int64_t size[RTM_SIZE_KEYS_MAX];
        if (!sweep_size(x, kern, tune, &p, size)) {
            snprintf(sweep_t, sizeof(sweep_t), "none (no size)");
        } else if (!sweep_runs(x, kern, size, tune, &p, budget)) {
            snprintf(sweep_t, sizeof(sweep_t), "skipped (budget %.2fs pays for %.1f candidates)",
                     SWEEP_SHARE * budget,
                     sweep_affords(x, kern, size, tune, &p, SWEEP_SHARE * budget));
        } else {
            tune = dev_sweep(x, kern, size, tune, start + SWEEP_SHARE * budget);
            phase_fmt(sweep_t, sizeof(sweep_t), x, &m0);
        }
    }
    const phase_t m1 = phase_mark(x);
    kt->t_next = dev_pace(x, kern, tune); /* the points' predictions and fit use it */
    dkctx_t dk = {x, (int)ki};
    /* calibration sizes by the job's predicted total time, as validation's */
    dpred_t pt = p;
    pt.total = true;
    kfit_t kf = {.n_pre_keys = x->n_pre_key[ki], .prebuild = dk_prebuild,
                 .kern = kern, .tune = tune, .lim = &x->lim, .pred = dev_pred, .pred_ctx = &pt,
                 .kpred = dev_pred_kernel, .kpred_ctx = &pt,
                 .r_est = &pt.r, .coef = dk_coef, .measure = dk_measure,
                 /* not on a CPU device: PoCL 5 on the H100 host put matrix_mul's and
                  * matrix_loop_add's first blocks at 2-4x their share of the whole job
                  * (validation measured n = 1000..3000 whole); PoCL 3.1 here within 10 % */
                 .measure_part = (x->d->info.type & CL_DEVICE_TYPE_CPU) ? NULL : dk_measure_part,
                 .ctx = &dk,
                 .workers = dev_workers(x, tune.wg), .deadline = start + budget, .arena = &x->arena,
                 .cache = x->knee};
    memcpy(kf.pre_keys, x->pre_key[ki], kf.n_pre_keys * sizeof(int64_t));
    kpoint_t pts[16];
    uint32_t n = 0;
    const rtm_status_t st = kernel_points(c, &kf, pts, N_OF(pts), &n);
    if (st == RTM_OK && kt->t_next > 0)
        pace_cap(x, ki, tune, pts, n);
    const double t_next = kt->t_next; /* kernel_store writes the fit's terms */
    char points_t[160];
    phase_fmt(points_t, sizeof(points_t), x, &m1);
    note(c, "%s: %s time %.2fs of budget %.2fs: sweep %s; %u points %s, instances made and "
            "freed %.2fs", x->bd->name, kern->name, rtm_calib_now() - start, budget, sweep_t, n,
         points_t, kf.inst_s);
    if (st != RTM_OK || n == 0) {
        fallback(c, "%s: kernel %s not calibrated (%s): no per-kernel terms; the device's "
                    "generic r_op and mem_rate predict it",
                 x->bd->name, kern->name, st != RTM_OK ? rtm_strerror(st) : "no size fits");
        return RTM_OK; /* a kernel that cannot run here falls back to the CPU */
    }
    kernel_store(c, x->bd->name, kern, tune, pts, n, x->knee, pt.r,
                 "the largest point's own r, else the device's r_op", kt,
                 &c->rec->dev_k[x->di][ki]);
    kt->t_next = t_next;
    return RTM_OK;
}

static rtm_status_t dev_abort(devcal_t *x);

/* One OpenCL device's calibration, in two sections: dev_first (the device's figures and
 * matrix_mov's r_op, which sizes the rest) and dev_rest (the catalogue's kernels, the
 * abort transport, the poll periods). rtm_calib_run runs a CPU-type device's first
 * section before the GPUs when there are both, so that its catalogue's programs build
 * in the background of the GPUs' measurements (dev_prebuild_all's `send`). */
typedef struct {
    rtm_ocl_dev_t dev;
    devcal_t x;
    bool open;
    char cache[RTM_PATH_MAX];
    const rtm_kernel_t *mov;
    uint32_t left;  /* kernels still to measure (their time shares) */
    double past_s;  /* the device's cal_t past_s, kept between its sections */
    double first_s; /* seconds of the first section */
    bool split;     /* the first section ran before the GPUs' */
    /* phase times (the device's note): transfers, memory..launch, build figure c, cache
     * sweep, matrix_mov, prebuild, catalogue, abort */
    double ph[8];
    uint32_t pre_n; /* programs of the catalogue's prebuild (x.n_pre after it) */
    load_mark_t load; /* the host's load from the device's start (a split one's: rest's) */
} devrun_t;

static rtm_status_t dev_c(devrun_t *r, bahead_t *ahead)
{
    const double t = rtm_calib_now();
    const rtm_status_t st = dev_build(&r->x, ahead);
    r->ph[2] += rtm_calib_now() - t;
    r->x.c->cfig_s += rtm_calib_now() - t;
    return st;
}

/* Opens the device and measures its figures and matrix_mov; with `with_c` the build-time
 * figure too (else dev_rest measures it: a CPU-type device's, on a helper thread while
 * the GPUs are measured). */
static rtm_status_t dev_first(cal_t *c, const rtm_ocl_info_t *info, rtm_board_dev_t *bd, int di,
                              int ocl_index, devrun_t *r, bahead_t *ahead, bool with_c)
{
    rtm_status_t st = rtm_ocl_open(&r->dev, info);
    if (st != RTM_OK)
        return st;
    r->open = true;
    r->split = !with_c;
    const bool have_cache = rtm_program_cache_dir(r->cache, sizeof(r->cache)) == RTM_OK;
    r->x = (devcal_t){.c = c, .d = &r->dev, .bd = bd, .di = di,
                      .cache = have_cache ? r->cache : NULL, .ocl_index = ocl_index};
    devcal_t *x = &r->x;
    rtm_builder_init(&x->bld);
    const double host_cap = c->o->quick ? 256 * MIB : 2048 * MIB;
    x->lim.max_buf = fmin((double)info->max_alloc, host_cap);
    x->lim.max_total = fmin((double)info->global_mem / 2.0, host_cap);
    rtm_calib_arena_init(&x->arena, &r->dev, (size_t)x->lim.max_total);
    const double t0 = rtm_calib_now();
    load_mark(c, &r->load);
    say(c, "%s: %s (%s), driver %s", bd->name, info->name, info->platform_name, info->driver);
    st = dev_transfers(x);
    const double t1 = rtm_calib_now();
    r->ph[0] = t1 - t0;
    say(c, "%s: transfers: in %.4gus + %.4gGB/s, out %.4gus + %.4gGB/s", bd->name,
        bd->param[RTM_DEV_P_ws_fixed] * 1e6, bd->param[RTM_DEV_P_ws_rate] * 1e-9,
        bd->param[RTM_DEV_P_wr_fixed] * 1e6, bd->param[RTM_DEV_P_wr_rate] * 1e-9);
    if (st == RTM_OK)
        st = dev_memrate(x);
    if (st == RTM_OK)
        st = build_probe(x->d, &x->probe);
    if (st == RTM_OK)
        st = dev_occupancy(x);
    if (st == RTM_OK)
        st = dev_launch(x);
    if (st == RTM_OK)
        st = dev_phase_gap(x);
    say(c, "%s: memory %.4gGB/s, units %.0f (cus %.0f x resident %.0f x wg), launch %.4gus, "
        "phase gap %.4gus", bd->name,
        bd->param[RTM_DEV_P_mem_rate] * 1e-9, bd->param[RTM_DEV_P_units], bd->param[RTM_DEV_P_cus],
        bd->param[RTM_DEV_P_resident], bd->param[RTM_DEV_P_launch] * 1e6,
        bd->param[RTM_DEV_P_phase_gap] * 1e6);
    r->ph[1] = rtm_calib_now() - t1;
    if (st == RTM_OK && with_c)
        st = dev_c(r, ahead);
    cl_ulong llc = 0;
    clGetDeviceInfo(info->id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof(llc), &llc, NULL);
    dev_param(bd, RTM_DEV_P_cache, llc ? (double)llc : MIB);
    *dfig(x, RTM_DEV_P_cache) = (rtm_calib_fig_t){bd->param[RTM_DEV_P_cache], 0, 0, 1, 1};
    if (llc)
        note(c, "%s: cache %.4gMiB (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE)", bd->name,
             bd->param[RTM_DEV_P_cache] / MIB);
    else
        fallback(c, "%s: CL_DEVICE_GLOBAL_MEM_CACHE_SIZE is 0: cache 1MiB assumed", bd->name);
    /* a GPU's reported figure may be its L1s together (the H100: 132 x 32 KiB = 4.125 MiB
     * for a 50 MB L2): measured by the read sweep; a CPU device keeps it (its kernels'
     * knee is the cores' private caches, below) */
    const double tl0 = rtm_calib_now();
    if (st == RTM_OK && x->probe && !(info->type & CL_DEVICE_TYPE_CPU))
        dev_llc(x, bd->param[RTM_DEV_P_cache]);
    r->ph[3] = rtm_calib_now() - tl0;
    /* the knee of the kernel fits: a CPU device's cores' private caches (the host's
     * L2s, where the seed-000 kernels' cliff is: see host_private), else the device's
     * cache */
    c->past_s = 0.0;
    x->knee = bd->param[RTM_DEV_P_cache];
    if ((info->type & CL_DEVICE_TYPE_CPU) && bd->param[RTM_DEV_P_cus] > 0) {
        const double cores = fmin(bd->param[RTM_DEV_P_cus], (double)host_cores());
        const double priv = host_private((uint32_t)cores);
        if (priv > 0)
            x->knee = priv;
    }
    note(c, "%s: kernel fits place a second regime's knee at %.4gMiB (%s)", bd->name,
         x->knee / MIB, x->knee == bd->param[RTM_DEV_P_cache] ? "the device's cache"
                                                             : "its cores' L2 caches together");
    say(c, "%s: device figures done (%.1fs)", bd->name, rtm_calib_now() - t0);
    /* r_op from matrix_mov first (it sizes the others), then the whole catalogue */
    const double tm = rtm_calib_now();
    r->mov = rtm_kernel_find("matrix_mov");
    r->left = kernels_wanted(c) + (r->mov && !rtm_calib_wanted(c->o->kernels, "matrix_mov"));
    if (st == RTM_OK && r->mov) {
        const int mi = rtm_kernel_index(r->mov);
        st = dev_kernel(x, (uint32_t)mi, r->left--);
        if (st == RTM_OK && bd->ktune[mi].have && bd->ktune[mi].r_op > 0) {
            dev_param(bd, RTM_DEV_P_r_op, bd->ktune[mi].r_op);
            *dfig(x, RTM_DEV_P_r_op) = c->rec->dev_k[di][mi];
        }
    }
    if (st == RTM_OK && !bd->have[RTM_DEV_P_r_op]) {
        dev_param(bd, RTM_DEV_P_r_op, x->r_probe);
        fallback(c, "%s: no matrix_mov calibration: r_op is the occupancy probe's operation "
                    "time", bd->name);
    }
    r->ph[4] = rtm_calib_now() - tm;
    r->past_s = c->past_s;
    r->first_s = rtm_calib_now() - t0;
    if (r->split) { /* its host load now, the rest's in dev_rest */
        char what[96];
        snprintf(what, sizeof(what), "%s (first section)", bd->name);
        load_note(c, what, &r->load);
    }
    return st;
}

/* The background builds of a device whose first section is done: its catalogue's first
 * programs, queued to build workers under SCHED_IDLE (dev_prebuild_all's `send`). */
static void dev_send(devrun_t *r)
{
    if (!r->open)
        return;
    r->x.ladder = true; /* and in dev_rest's list: the ladder's keys are prebuilt keys */
    dev_prebuild_all(&r->x, r->mov, true);
}

/* The device's workers stopped, its memory freed, the device closed. */
static void dev_close(devrun_t *r)
{
    if (!r->open)
        return;
    rtm_builder_stop(&r->x.bld);
    if (r->x.probe)
        clReleaseProgram(r->x.probe);
    r->x.probe = NULL;
    rtm_calib_arena_free(&r->x.arena);
    rtm_ocl_close(&r->dev);
    r->open = false;
}

/* The rest of a device's calibration after dev_first (st: its status), and the device
 * closed. */
static rtm_status_t dev_rest(devrun_t *r, rtm_status_t st, bahead_t *ahead)
{
    if (!r->open)
        return st;
    devcal_t *x = &r->x;
    cal_t *c = x->c;
    rtm_board_dev_t *bd = x->bd;
    const double t0 = rtm_calib_now();
    if (r->split)
        load_mark(c, &r->load);
    c->past_s = r->past_s;
    if (st == RTM_OK && r->split) /* its c: dev_first left it to the helper thread */
        st = dev_c(r, ahead);
    const double tp = rtm_calib_now();
    if (st == RTM_OK)
        dev_prebuild_all(x, r->mov, false);
    r->pre_n = x->n_pre;
    const double tk = rtm_calib_now();
    r->ph[5] = tk - tp;
    for (uint32_t ki = 0; st == RTM_OK && ki < rtm_kernel_count(); ki++) {
        const rtm_kernel_t *kern = rtm_kernel_at(ki);
        if (kern == r->mov || !rtm_calib_wanted(c->o->kernels, kern->name))
            continue;
        st = dev_kernel(x, ki, r->left ? r->left-- : 1);
    }
    const double ta = rtm_calib_now();
    r->ph[6] = ta - tk;
    if (st == RTM_OK)
        st = dev_abort(x);
    rtm_builder_stop(&x->bld); /* the device's builds are done */
    r->ph[7] = rtm_calib_now() - ta;
    const double dev_s = r->first_s + (rtm_calib_now() - t0);
    note(c, "%s: time %.2fs of budget %.2fs%s: transfers %.2fs, memory/occupancy/launch %.2fs, "
            "build-time figure c %.2fs, cache sweep %.2fs, matrix_mov %.2fs, prebuild %.2fs "
            "(%u programs; in all %u by %u build workers, %u failed, in %.2fs), catalogue "
            "%.2fs, abort %.2fs; in kexecs %u programs compiled %.2fs, %u loaded from the "
            "cache %.2fs, runs %.2fs; points' pinned memory made %u times (%.0fMiB at the "
            "end) in %.2fs",
         bd->name, dev_s, c->deadline - t0 + r->first_s,
         r->split ? " (its first section before the GPUs', its builds meanwhile)" : "", r->ph[0], r->ph[1], r->ph[2], r->ph[3],
         r->ph[4], r->ph[5], r->pre_n, x->n_pre, x->pre_procs, x->bld.failed, x->pre_s,
         r->ph[6], r->ph[7], x->n_built, x->build_s, x->n_loaded, x->load_s, x->run_s,
         x->arena.grows, (double)x->arena.pin.bytes / MIB, x->arena.grow_s);
    c->build_s += x->build_s;
    c->load_s += x->load_s;
    c->prebuild_s += x->pre_s;
    c->n_built += x->n_built;
    c->n_loaded += x->n_loaded;
    c->n_prebuilt += x->n_pre;
    dev_close(r);
    load_note(c, bd->name, &r->load);
    say(c, "%s: done (%.1fs)", bd->name, dev_s);
    return st;
}

/* In-loop poll period per kernel (RTM_POLL_EVERY, kernels whose work-items loop):
 * preempt.c's rtm_preempt_tune_kernel_poll at the calibrated tune, with the flag
 * transport chosen above — K for about POLL_PERIOD_S of the loop (a flag is seen within
 * two periods), else the smallest of 16K, 256K, …, 65536 whose overhead vs the build without
 * in-loop polls is <= POLL_MAX_PCT, else no in-loop polls (ktune poll_every). Within
 * POLL_BUDGET_S per device, the application's kernels first: kernels left when it is
 * spent keep the default. The searches' programs are built ahead, together, by the
 * device's build workers (one at a time on the path they had spent the whole budget). */
#define POLL_PERIOD_S 3e-6
#define POLL_MAX_PCT 1.0
#define POLL_BUDGET_S 2.0
/* Kernel time of the searches' jobs (preempt.c's own sizing aims at 2 ms as well). */
#define POLL_JOB_S 2e-3
static void dev_poll(devcal_t *x)
{
    rtm_board_dev_t *bd = x->bd;
    /* a CPU device: every candidate period is a program build of its own (PoCL on the
     * H100 host: about 0.7 s each, one at a time), and the 2 s budget ran out inside the
     * first kernel in every calibration there; the polls read host memory the core
     * caches, and the default period stays */
    if (x->d->info.type & CL_DEVICE_TYPE_CPU) {
        note(x->c, "%s: poll periods not calibrated on a CPU device (a program build per "
                   "candidate): default", bd->name);
        return;
    }
    /* every search's programs built ahead, together: its build without in-loop polls
     * and one per period it may try, at the size the calibrated model puts at
     * POLL_JOB_S (spin sizes its own loop: left to the search). One at a time on the
     * path they spent the whole budget: the H100's 2 s ran out inside the first kernel
     * (manoeuvre, 0.56 s a build) in sessions 18 and 19. */
    const rtm_kexec_opts_t base = {.transport = bd->abort, .transport_set = true,
                                   .cache_dir = x->cache};
    int64_t size[RTM_MAX_KERNELS][RTM_SIZE_KEYS_MAX];
    double t_pred[RTM_MAX_KERNELS] = {0.0}; /* > 0: size[] holds the kernel's size */
    prebuild_t *pb = calloc(RTM_MAX_KERNELS * (1 + RTM_PREEMPT_TUNE_MAX), sizeof(*pb));
    uint32_t np = 0;
    const rtm_kernel_t *kern;
    for (uint32_t i = 0; pb && (kern = rtm_preempt_loop_kernel(i)) != NULL; i++) {
        const uint32_t ki = (uint32_t)rtm_kernel_index(kern);
        if (!bd->ktune[ki].have || !rtm_calib_wanted(x->c->o->kernels, kern->name) ||
            strcmp(kern->name, "spin") == 0)
            continue;
        rtm_tune_t tune;
        dpred_t p;
        (void)kernel_start(x, ki, &tune, &p);
        rtm_kinst_t k;
        if (rtm_calib_size_for(kern, tune, POLL_JOB_S, dev_pred_kernel, &p, &x->lim, 1, 0, NULL,
                               0, size[ki]) < 0 ||
            !size_plan(kern, size[ki][0], tune, &x->lim, &k))
            continue;
        t_pred[ki] = dev_pred_kernel(&p, &k);
        uint32_t ks[RTM_PREEMPT_TUNE_MAX];
        const uint32_t nk = rtm_preempt_poll_ks(&x->d->info, &k, t_pred[ki], POLL_PERIOD_S, ks);
        for (uint32_t c = 0; t_pred[ki] > 0 && c <= nk; c++) { /* the periods, then none */
            if (!prebuild_entry(x, kern, size[ki], tune, &pb[np]))
                break;
            const rtm_kexec_opts_t o = rtm_preempt_poll_candidate(&base, c < nk ? ks[c] : 0);
            rtm_build_job_set_opts(&pb[np++].j, &o);
        }
    }
    const double t_pre = rtm_calib_now();
    if (pb)
        prebuild_many(x, pb, np);
    free(pb);
    note(x->c, "%s: poll searches' programs: %u, built ahead in %.2fs", bd->name, np,
         rtm_calib_now() - t_pre);
    const double deadline = rtm_calib_now() + POLL_BUDGET_S;
    double last = 0.0; /* the previous kernel's calibration time */
    for (uint32_t i = 0; (kern = rtm_preempt_loop_kernel(i)) != NULL; i++) {
        rtm_board_ktune_t *kt = &bd->ktune[rtm_kernel_index(kern)];
        if (!kt->have ||
            !rtm_calib_wanted(x->c->o->kernels, kern->name))
            continue;
        const double t0 = rtm_calib_now();
        if (t0 + last > deadline) { /* the previous kernel's time would overrun it */
            note(x->c, "%s: poll period of %s not calibrated (%.1fs budget spent): default",
                 bd->name, kern->name, POLL_BUDGET_S);
            continue;
        }
        rtm_preempt_kpoll_t kp;
        const int ki = rtm_kernel_index(kern);
        const rtm_status_t st = rtm_preempt_tune_kernel_poll(
            x->d, &base, kern, kt->tune, t_pred[ki] > 0 ? size[ki] : NULL, t_pred[ki], POLL_PERIOD_S,
            POLL_MAX_PCT, 3, 0, deadline, &kp);
        last = rtm_calib_now() - t0;
        if (st != RTM_OK || kp.poll_every == 0) {
            note(x->c, "%s: poll period of %s not calibrated (%s): default", bd->name,
                 kern->name, st != RTM_OK ? rtm_strerror(st) : "budget spent");
            continue;
        }
        kt->poll_every = kp.poll_every;
        char tried[160] = "";
        for (uint32_t c = 0, o = 0; c < kp.n && o < sizeof(tried); c++)
            o += (uint32_t)snprintf(tried + o, sizeof(tried) - o, "%sK %u %.2f%%", c ? ", " : "",
                                    kp.k[c], kp.overhead_pct[c]);
        char took[128];
        snprintf(took, sizeof(took), "search %.2fs: %u programs compiled, %u loaded, %.2fs", last,
                 kp.compiled, kp.loaded, kp.program_s);
        if (kp.poll_every == RTM_BOARD_POLL_NONE)
            note(x->c, "%s: %s: no in-loop polls (none within %.1f%%: %s; step %.3gns, %.3gms "
                       "job; %s)", bd->name, kern->name, POLL_MAX_PCT, tried, kp.step_s * 1e9,
                 kp.base_s * 1e3, took);
        else
            note(x->c, "%s: %s: poll every %u steps (%.3gus; %s; %.3gms job; %s)", bd->name,
                 kern->name, kp.poll_every, kp.poll_every * kp.step_s * 1e6, tried,
                 kp.base_s * 1e3, took);
    }
}

/* Abort response (seed 002): preempt.c's measurement — the spin kernel (about 20 ms)
 * aborted RTM_CALIB_REPS times at random instants with each flag transport; the
 * transport that stops the kernel faster (one that does not stop it never wins) becomes
 * the device's `abort`, its median response `abort_response`. */
static rtm_status_t dev_abort(devcal_t *x)
{
    rtm_board_dev_t *bd = x->bd;
    rtm_preempt_measure_t m;
    memset(&m, 0, sizeof(m));
    const rtm_status_t st = rtm_preempt_measure(x->d, REPS, &m);
    if (st != RTM_OK)
        return st;
    const int b = (int)m.best;
    rtm_calib_fig_t *f = dfig(x, RTM_DEV_P_abort_response);
    if (m.works[b] && m.p50_s[b] > 0) {
        bd->abort = m.best;
        dev_param(bd, RTM_DEV_P_abort_response, m.p50_s[b]);
        *f = (rtm_calib_fig_t){m.p50_s[b], (m.max_s[b] - m.p50_s[b]) / m.p50_s[b], 0, m.n[b], m.n[b]};
    } else {
        /* no transport stops a running kernel here: an abort waits for the kernel */
        dev_param(bd, RTM_DEV_P_abort_response, m.kernel_s > 0 ? m.kernel_s : 20e-3);
        *f = (rtm_calib_fig_t){bd->param[RTM_DEV_P_abort_response], 0, 0, 1, 1};
    }
    for (int t = 0; t < 2; t++)
        note(x->c, "%s: abort flag '%s': %s, %u aborts, response p50 %.4gus p99 %.4gus max %.4gus "
                   "(spin kernel %.4gms)%s",
             bd->name, rtm_board_abort_name((rtm_abort_transport_t)t),
             m.works[t] ? "stops the kernel" : "does NOT stop the kernel", m.n[t],
             m.p50_s[t] * 1e6, m.p99_s[t] * 1e6, m.max_s[t] * 1e6, m.kernel_s * 1e3,
             t == b && m.works[t] ? " <- abort" : "");
    say(x->c, "%s: abort '%s' response %.4gus", bd->name, rtm_board_abort_name(bd->abort),
        bd->param[RTM_DEV_P_abort_response] * 1e6);
    dev_poll(x);
    return RTM_OK;
}

/* ---- CPU --------------------------------------------------------------------------- */

static rtm_pool_t cal_pool;

/* The pool's own overheads are measured with its synthetic kernel (poolkern.h): blocks
 * that return at once (no-op) or spin a set time (busy). */

rtm_status_t rtm_calib_pool_time(rtm_pool_t *pool, const rtm_kinst_t *k, double *seconds)
{
    uint32_t launch = 0;
    const double t0 = rtm_calib_now();
    const rtm_status_t st = rtm_pool_run_job(pool, k, &launch, NULL, NULL, NULL);
    *seconds = rtm_calib_now() - t0;
    return st;
}

typedef struct {
    const rtm_board_t *b;
    int ki;
    double r;
} cpred_t;

static double cpu_pred(const void *ctx, const rtm_kinst_t *k)
{
    const cpred_t *p = ctx;
    static rtm_board_t tmp;
    tmp = *p->b;
    if (p->ki >= 0)
        tmp.cpu_ktune[p->ki] = (rtm_board_ktune_t){.have = p->r > 0, .tune = k->tune, .r_op = p->r};
    rtm_model_job_t job;
    rtm_model_pred_t pr;
    if (rtm_model_job_make(k, &job) != RTM_OK ||
        rtm_model_predict_cpu(&job, &tmp, 0, RTM_MODEL_EXTENDED, 0, &pr) != RTM_OK)
        return -1.0;
    return (double)pr.ext.total_ns * 1e-9;
}

static bool cpu_coef(const void *ctx, const rtm_kinst_t *k, double t, double *a, double *bb)
{
    (void)t; /* the pool's model is linear in r */
    const cpred_t *p = ctx;
    cpred_t p1 = {p->b, p->ki, 1e-3}, p2 = {p->b, p->ki, 2e-3};
    const double y1 = cpu_pred(&p1, k), y2 = cpu_pred(&p2, k);
    if (y1 < 0 || y2 < 0)
        return false;
    *a = (y2 - y1) / 1e-3;
    *bb = y1 - *a * 1e-3;
    return *a > 0;
}

static rtm_status_t ck_measure(void *ctx, rtm_calib_inst_t *in, int reps, double *t,
                               rtm_calib_fig_t *f)
{
    (void)ctx;
    double samp[REPS + 1];
    rtm_status_t st = RTM_OK;
    if (reps > REPS)
        reps = REPS;
    for (int r = 0; r <= reps && st == RTM_OK; r++) {
        st = rtm_calib_pool_time(&cal_pool, &in->k, &samp[r]);
        if (r == 0 && st == RTM_OK)
            reps = reps_after_warmup(samp[0], reps);
    }
    if (st == RTM_OK)
        *t = rtm_calib_summary(samp + 1, (size_t)reps, f);
    return st;
}

rtm_status_t rtm_calib_pool_time_part(rtm_pool_t *pool, const rtm_kinst_t *k, uint32_t part,
                                      double *seconds)
{
    const uint32_t n = pool->n_workers;
    const uint64_t m = (uint64_t)part * n;
    if (!k || k->plan.launches != 1 || n == 0 || part == 0 || m > rtm_kinst_blocks(k))
        return RTM_E_ARG;
    uint32_t *idx = malloc(sizeof(*idx) * (size_t)m);
    if (!idx)
        return RTM_E_NOMEM;
    for (uint32_t i = 0; i < (uint32_t)m; i++)
        idx[i] = i;
    const double t0 = rtm_calib_now();
    const rtm_status_t st = rtm_pool_run(pool, k, 0, idx, (uint32_t)m, NULL, NULL, NULL);
    *seconds = rtm_calib_now() - t0;
    free(idx);
    return st;
}

double rtm_calib_part_scale(double t_part, double cw, uint32_t blocks, uint32_t workers,
                            uint32_t part)
{
    if (workers == 0 || part == 0)
        return t_part;
    const double per = ceil((double)blocks / workers);
    return cw + fmax(t_part - cw, 0.0) * per / part;
}

/* The whole job's time from runs of its first `part` blocks per worker (one launch):
 * the run's time less one launch's cw is its workers' share of part blocks each, the
 * whole job's is ceil(blocks / n) each (the same blocks in the same order: the first
 * ones of the job, handed out as in the whole job), plus cw. Calibration only: the index
 * list is allocated here. */
static rtm_status_t ck_measure_part(void *ctx, rtm_calib_inst_t *in, int reps, uint32_t part,
                                    double *t, rtm_calib_fig_t *f)
{
    const cpred_t *p = ctx;
    const uint32_t n = cal_pool.n_workers, blocks = (uint32_t)rtm_kinst_blocks(&in->k);
    const uint64_t m64 = (uint64_t)part * n;
    if (in->k.plan.launches != 1 || n == 0 || part == 0 || m64 >= blocks)
        return ck_measure(ctx, in, reps, t, f);
    double samp[REPS + 1];
    if (reps > REPS)
        reps = REPS;
    rtm_status_t st = rtm_calib_pool_time_part(&cal_pool, &in->k, part, &samp[0]);
    if (st == RTM_OK)
        reps = reps_after_warmup(samp[0], reps);
    for (int r = 1; r <= reps && st == RTM_OK; r++)
        st = rtm_calib_pool_time_part(&cal_pool, &in->k, part, &samp[r]);
    if (st != RTM_OK)
        return st;
    const double sub = rtm_calib_summary(samp + 1, (size_t)reps, f);
    *t = rtm_calib_part_scale(sub, p->b->cpu_param[RTM_CPU_P_cw], blocks, n, part);
    return RTM_OK;
}

static rtm_calib_fig_t *cfig(cal_t *c, int id) { return &c->rec->cpu[id]; }

/* Micro-kernel figures of eq. 1. */
static rtm_status_t cpu_micro(cal_t *c, rtm_board_t *b, uint32_t n)
{
    const bool q = c->o->quick;
    const uint64_t ops = q ? 2000000 : 10000000;
    const size_t bytes = (size_t)((q ? 2 : 8) * MIB);
    /* copy: twice the last-level cache in all (DRAM, not cache), 32..256 MiB; quick 16 */
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const double copy_total = q ? 16 * MIB : fmin(fmax(2.0 * (double)(llc > 0 ? llc : 0), 32 * MIB), 256 * MIB);
    const size_t copy_bytes = (size_t)fmax((q ? 2 : 4) * MIB, copy_total / n);
    double lat1[REPS], latn[REPS], ind[REPS], ind1[REPS], unit[REPS], unit1[REPS], str[REPS],
        str1[REPS], copy[REPS], ping[REPS], clk[REPS], bar[REPS];
    rtm_status_t st = RTM_OK;
    for (int r = 0; r < REPS && st == RTM_OK; r++) {
        st = rtm_cpubench_run(RTM_CPUBENCH_CHAIN, 1, 0, ops, &lat1[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_CHAIN, n, 0, ops, &latn[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_INDEP, n, 0, ops * 2, &ind[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_INDEP, 1, 0, ops * 2, &ind1[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_UNIT, n, bytes, ops, &unit[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_UNIT, 1, bytes, ops, &unit1[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_STRIDED, n, bytes, ops / 4, &str[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_STRIDED, 1, bytes, ops / 4, &str1[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_run(RTM_CPUBENCH_COPY, n, copy_bytes,
                                  2 * copy_bytes / sizeof(float), &copy[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_pingpong(q ? 10000 : 20000, &ping[r]);
        if (st == RTM_OK)
            st = rtm_cpubench_barrier(n, q ? 1000 : 2000, &bar[r]);
        clk[r] = rtm_cpubench_clock(q ? 100000 : 200000);
    }
    if (st != RTM_OK)
        return st;
    rtm_calib_fig_t fl, fi, fu, fs;
    const double l1 = rtm_calib_summary(lat1, REPS, NULL);
    const double ln = rtm_calib_summary(latn, REPS, &fl);
    const double in = rtm_calib_summary(ind, REPS, &fi);
    const double i1 = rtm_calib_summary(ind1, REPS, NULL);
    const double un = rtm_calib_summary(unit, REPS, &fu);
    const double u1 = rtm_calib_summary(unit1, REPS, NULL);
    const double sn = rtm_calib_summary(str, REPS, &fs);
    const double s1 = rtm_calib_summary(str1, REPS, NULL);
    double lp = in > 0 ? ln / in : 1.0;
    if (lp < 1.0)
        lp = 1.0;
    cpu_param(b, RTM_CPU_P_r_scalar, ln);
    *cfig(c, RTM_CPU_P_r_scalar) = fl;
    cpu_param(b, RTM_CPU_P_lp, lp);
    *cfig(c, RTM_CPU_P_lp) = fi;
    cfig(c, RTM_CPU_P_lp)->spread = fmax(fi.spread, fl.spread);
    cfig(c, RTM_CPU_P_lp)->median = lp;
    cpu_param(b, RTM_CPU_P_r_unit, un * lp);
    *cfig(c, RTM_CPU_P_r_unit) = fu;
    cfig(c, RTM_CPU_P_r_unit)->median = un * lp;
    cpu_param(b, RTM_CPU_P_r_strided, sn * lp);
    *cfig(c, RTM_CPU_P_r_strided) = fs;
    cfig(c, RTM_CPU_P_r_strided)->median = sn * lp;
    cpu_param(b, RTM_CPU_P_mem_rate, rtm_calib_summary(copy, REPS, cfig(c, RTM_CPU_P_mem_rate)));
    cpu_param(b, RTM_CPU_P_w, rtm_calib_summary(ping, REPS, cfig(c, RTM_CPU_P_w)));
    cpu_param(b, RTM_CPU_P_ti, rtm_calib_summary(clk, REPS, cfig(c, RTM_CPU_P_ti)));
    rtm_calib_fig_t fb;
    const double barrier = rtm_calib_summary(bar, REPS, &fb);
    c->barrier_s = barrier;
    note(c, "cpu: %u threads; per operation, one thread / all threads at once: dependent "
            "chain %.4g / %.4gns, independent chains %.4g / %.4gns (lp = chain / independent "
            "= %.3g), unit-stride read %.4g / %.4gns, strided read %.4g / %.4gns; r_unit and "
            "r_strided = all-thread time x lp (eq. 1 divides them by lp)",
         n, l1 * 1e9, ln * 1e9, i1 * 1e9, in * 1e9, lp, u1 * 1e9, un * 1e9, s1 * 1e9, sn * 1e9);
    note(c, "cpu: pthread barrier round, %u threads: %.4gus (spread %.1f%%); copy %.0fMiB per "
            "thread: %.4gGB/s read + written; ping-pong one way %.4gns; clock pair %.4gns",
         n, barrier * 1e6, fb.spread * 100, (double)copy_bytes / MIB,
         b->cpu_param[RTM_CPU_P_mem_rate] * 1e-9, b->cpu_param[RTM_CPU_P_w] * 1e9,
         b->cpu_param[RTM_CPU_P_ti] * 1e9);
    return RTM_OK;
}

bool rtm_calib_pool_fit(const double *per, const double *t, uint32_t n, double t_multi,
                        uint32_t launches, double *cw, double *dispatch)
{
    if (n < 2 || launches == 0 || !(per[n - 1] > per[n - 2]))
        return false;
    const double d = (t[n - 1] - t[n - 2]) / (per[n - 1] - per[n - 2]);
    const double w = t_multi / launches - d;
    if (!(d > 0) || !(w > 0))
        return false;
    *cw = w;
    *dispatch = d;
    return true;
}

/* Times one no-op job of `launches` launches of `blocks` blocks: the median of REPS
 * after one warm-up. */
static rtm_status_t noop_time(uint32_t blocks, uint32_t launches, double *t, double *spread)
{
    rtm_kinst_t k;
    rtm_status_t st = rtm_poolkern_make(&k, blocks, launches, 0);
    double samp[REPS + 1];
    for (int r = 0; r <= REPS && st == RTM_OK; r++)
        st = rtm_calib_pool_time(&cal_pool, &k, &samp[r]);
    if (st != RTM_OK)
        return st;
    rtm_calib_fig_t f;
    *t = rtm_calib_summary(samp + 1, REPS, &f);
    *spread = fmax(*spread, f.spread);
    return RTM_OK;
}

/* What each block of the idle wake-up's launch spins on the host clock: a launch long
 * enough that every worker joins it, whatever its wake-up costs (no-op blocks all go to
 * the awake caller). */
#define BUSY_NS 5000

/* How long the pool sleeps before each run of the idle wake-up figure (cw_idle). */
#define IDLE_NS 20000000L

/* The idle wake-up's cost: one launch of 8 busy blocks per thread (about 40 us of work
 * each), timed back to back and after the pool slept IDLE_NS before each run, as the
 * running system's periodic jobs find it; the difference of the medians of REPS. */
static rtm_status_t busy_idle_extra(uint32_t n, double *extra, rtm_calib_fig_t *f)
{
    rtm_kinst_t k;
    rtm_status_t st = rtm_poolkern_make(&k, 8 * n, 1, BUSY_NS);
    double warm[REPS + 1], idle[REPS];
    for (int r = 0; r <= REPS && st == RTM_OK; r++)
        st = rtm_calib_pool_time(&cal_pool, &k, &warm[r]);
    for (int r = 0; r < REPS && st == RTM_OK; r++) {
        rtm_os_sleep_until(rtm_os_now_ns() + IDLE_NS);
        st = rtm_calib_pool_time(&cal_pool, &k, &idle[r]);
    }
    if (st != RTM_OK)
        return st;
    rtm_calib_fig_t fw;
    const double tw = rtm_calib_summary(warm + 1, REPS, &fw);
    *extra = fmax(rtm_calib_summary(idle, REPS, f) - tw, 0.0);
    return RTM_OK;
}

/* Pool overheads: a launch of B no-op blocks takes cw + ceil(B / n) * dispatch. The
 * runs span what jobs hand the pool (up to 2048 blocks per worker: the empty kernel at
 * validation's n x n grids, the element-wise kernels at n = 3000), and cw comes from a
 * job of MULTI_LAUNCHES back-to-back launches (grid_path runs 128 a job). The runs of 1
 * to 256 blocks per worker alone (the fit before) put dispatch at 894 ns and cw at
 * 82 us on the H100 host (residual 82 %): there one worker runs most blocks of a short
 * run alone while the others still wake. */
#define MULTI_LAUNCHES 16
static rtm_status_t cpu_pool_overheads(cal_t *c, rtm_board_t *b, uint32_t n)
{
    static const uint32_t per[] = {1, 16, 128, 512, 2048};
    const size_t np = N_OF(per);
    double xs[N_OF(per)], ys[N_OF(per)], spread = 0, multi = 0;
    for (size_t i = 0; i < np; i++) {
        const rtm_status_t st = noop_time(n * per[i], 1, &ys[i], &spread);
        if (st != RTM_OK)
            return st;
        xs[i] = per[i];
    }
    rtm_status_t st = noop_time(n, MULTI_LAUNCHES, &multi, &spread);
    if (st != RTM_OK)
        return st;
    double cw = 0, disp = 0;
    const bool ok = rtm_calib_pool_fit(xs, ys, (uint32_t)np, multi, MULTI_LAUNCHES, &cw, &disp);
    /* a noisy machine can tilt the fit: a block's hand-out is at least one cache-line
     * transfer (w), a launch's wake-up and join at least one barrier round */
    if (!ok) {
        cw = c->barrier_s;
        disp = b->cpu_param[RTM_CPU_P_w];
        fallback(c, "cpu: the pool-overhead fit came out non-positive (a noisy machine): cw "
                    "taken from the barrier round, dispatch from w");
    }
    cpu_param(b, RTM_CPU_P_cw, cw);
    cpu_param(b, RTM_CPU_P_dispatch, disp);
    /* how far the one-launch runs lie from cw + B/n * dispatch (the short ones: the
     * wake-up ramp) */
    double resid = 0;
    for (size_t i = 0; i < np; i++)
        resid = fmax(resid, fabs(cw + disp * xs[i] - ys[i]) / ys[i]);
    const int ids[2] = {RTM_CPU_P_cw, RTM_CPU_P_dispatch};
    for (int i = 0; i < 2; i++) {
        rtm_calib_fig_t *f = cfig(c, ids[i]);
        f->median = b->cpu_param[ids[i]];
        f->spread = spread;
        f->resid = resid;
        f->n = (uint32_t)((np + 1) * REPS);
        f->kept = f->n;
    }
    /* the first launch of a running system's job (RTM_MODEL_F_IDLE) finds the pool
     * asleep: cw and what a launch takes more after IDLE_NS */
    double idle = 0;
    rtm_calib_fig_t *fi = cfig(c, RTM_CPU_P_cw_idle);
    st = busy_idle_extra(n, &idle, fi);
    if (st != RTM_OK)
        return st;
    cpu_param(b, RTM_CPU_P_cw_idle, cw + idle);
    fi->median = b->cpu_param[RTM_CPU_P_cw_idle];
    char runs[256];
    size_t used = 0;
    runs[0] = '\0';
    for (size_t i = 0; i < np; i++)
        (void)appendf(runs, sizeof(runs), &used, "%s%u:%.4gus", i ? " " : "", per[i], ys[i] * 1e6);
    note(c, "cpu: pool, no-op blocks on %u workers, one launch of B/n blocks per worker: %s; "
            "%u launches of n blocks %.4gus each -> cw (wake + join per launch) %.4gus, "
            "dispatch %.4gns per block (slope of the two longest runs); a launch of 8 "
            "%dus blocks per thread after %ld ms asleep: %.4gus more -> cw_idle %.4gus",
         n, runs, MULTI_LAUNCHES, multi / MULTI_LAUNCHES * 1e6, cw * 1e6, disp * 1e9,
         BUSY_NS / 1000, IDLE_NS / 1000000L, idle * 1e6,
         b->cpu_param[RTM_CPU_P_cw_idle] * 1e6);
    return RTM_OK;
}

/* One kernel's CPU twin through the pool: its own r and memory rate fitted at the
 * calibration sizes. */
static rtm_status_t cpu_kernel(cal_t *c, rtm_board_t *b, uint32_t ki, uint32_t left)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    rtm_board_ktune_t *kt = &b->cpu_ktune[ki];
    const rtm_tune_t tune = kt->have ? kt->tune : kern->tune_default;
    const rtm_calib_lim_t lim = {c->o->quick ? 256 * MIB : 1024 * MIB,
                                 c->o->quick ? 256 * MIB : 1024 * MIB};
    cpred_t p = {b, (int)ki, kt->have && kt->r_op > 0 ? kt->r_op : 0.0};
    kfit_t kf = {.kern = kern, .tune = tune, .lim = &lim, .pred = cpu_pred, .pred_ctx = &p,
                 .r_est = &p.r, .coef = cpu_coef, .measure = ck_measure,
                 .measure_part = ck_measure_part, .workers = cal_pool.n_workers, .ctx = &p,
                 .cpu = true,
                 .kpred = cpu_pred, .kpred_ctx = &p, .cache = c->cpu_knee,
                 .deadline = rtm_calib_now() + kernel_budget(c, left)};
    kpoint_t pts[16];
    uint32_t n = 0;
    const rtm_status_t st = kernel_points(c, &kf, pts, N_OF(pts), &n);
    if (st == RTM_E_MODEL && n == 0) {
        /* nothing the model counts (the empty kernel's twin does no work): the pool's
         * dispatch and cw are its whole time */
        *kt = (rtm_board_ktune_t){.have = true, .tune = tune};
        note(c, "cpu: %s: no operations to time (the pool overheads are its model)", kern->name);
        return RTM_OK;
    }
    if (st != RTM_OK || n == 0) {
        fallback(c, "cpu: kernel %s not calibrated (%s): no per-kernel terms; eq. 1's "
                    "class-based r_k and the CPU's mem_rate predict it",
                 kern->name, st != RTM_OK ? rtm_strerror(st) : "no size fits");
        return RTM_OK;
    }
    /* the fallback r when no form fits: the largest point's own (its time less the
     * model's pool terms), else its whole time over its operations (those terms above
     * the measured times: a pool-overhead figure inflated by a busy machine — 3.7 us
     * per block once on the 2-core development machine, where 20 ns is usual) */
    const kpoint_t *big = &pts[n - 1];
    const double r_fb = p.r > 0 ? p.r : big->a > 0 && big->t > 0 ? big->t / big->a : 0.0;
    kernel_store(c, "cpu", kern, tune, pts, n, c->cpu_knee,
                 r_fb > 0 ? r_fb : b->cpu_param[RTM_CPU_P_r_scalar],
                 p.r > 0 ? "the largest point's own r"
                 : r_fb > 0 ? "the largest point's time over its operations: the pool terms "
                              "exceed the measured times"
                            : "the CPU's r_scalar",
                 kt, &c->rec->cpu_k[ki]);
    return RTM_OK;
}

static rtm_status_t cpu_calibrate(cal_t *c, rtm_board_t *b)
{
    const double t0 = rtm_calib_now();
    load_mark_t load;
    load_mark(c, &load);
    const long online = rtm_os_cpu_count();
    /* one core left to the executive's threads, the drivers and the OS from
     * RTM_CALIB_SPARE_MIN_CORES cores up: on the H100 host (16 vCPUs, 0.4-2.3 cores stolen by
     * its hypervisor) a pool of 16 validated at 24.7 and 26.2 % CPU MAPE, one of 15 at
     * 17.3 and 19.3 % (alternating runs, board/h100/results/cpu-threads-s10-h100.txt) */
    const long pool = online >= RTM_CALIB_SPARE_MIN_CORES ? online - 1 : online;
    uint32_t n = pool > RTM_MAX_WORKERS ? RTM_MAX_WORKERS : (uint32_t)pool;
    if (c->o->threads > 0) /* --threads: the pool the manager will run */
        n = c->o->threads < RTM_MAX_WORKERS ? c->o->threads : RTM_MAX_WORKERS;
    else if (b->cores == (uint32_t)online && b->threads > 0 && b->threads < n)
        n = b->threads; /* a base profile of this computer keeps its choice */
    if (b->cores == 0)
        b->cpu_model = RTM_MODEL_EXTENDED; /* a fresh profile (a base keeps its choice) */
    b->cores = (uint32_t)online;
    b->threads = n;
    iso_now(b->cpu_measured, sizeof(b->cpu_measured));
    say(c, "cpu: %u cores, %u worker threads", b->cores, n);
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const char *which = "L3";
    if (llc <= 0) {
        llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
        which = "L2";
    }
    cpu_param(b, RTM_CPU_P_cache, llc > 0 ? (double)llc : 8 * MIB);
    *cfig(c, RTM_CPU_P_cache) = (rtm_calib_fig_t){b->cpu_param[RTM_CPU_P_cache], 0, 0, 1, 1};
    if (llc > 0)
        note(c, "cpu: cache %.4gMiB (%s)", b->cpu_param[RTM_CPU_P_cache] / MIB, which);
    else
        fallback(c, "cpu: last-level cache size unknown (sysconf): 8MiB assumed");
    c->past_s = 0.0;
    c->cpu_knee = host_private(n);
    if (c->cpu_knee > 0)
        note(c, "cpu: kernel fits place a second regime's knee at %.4gMiB (the %u workers' L2 "
                "caches together)",
             c->cpu_knee / MIB, n);
    else
        fallback(c, "cpu: L2 cache size unknown (sysconf): no point past the cores' caches, "
                    "kernel knees halfway between sizes");
    rtm_status_t st = cpu_micro(c, b, n);
    if (st != RTM_OK)
        return st;
    /* the pool as the running system schedules it: on this project's 2-vCPU VM, 2
     * blocks of 200 us back to back took 402 us under SCHED_OTHER (the woken worker
     * queued behind its waker) and 210 us under rtmgr run's SCHED_FIFO (bench pool) */
    rtm_os_sched_t sched;
    st = rtm_pool_start_as_run(&cal_pool, n, !c->o->no_rt, &sched);
    if (st != RTM_OK)
        return st;
    note(c, "cpu: pool measured under %s",
         cal_pool.rt_priority ? "SCHED_FIFO as rtmgr run (workers 50, the caller 60)"
         : c->o->no_rt        ? "the caller's scheduling (--no-rt)"
                              : "the caller's scheduling (SCHED_FIFO not permitted here)");
    st = cpu_pool_overheads(c, b, n);
    say(c, "cpu: micro-kernels and pool done (%.1fs)", rtm_calib_now() - t0);
    uint32_t left = kernels_wanted(c);
    for (uint32_t ki = 0; st == RTM_OK && ki < rtm_kernel_count(); ki++)
        if (rtm_calib_wanted(c->o->kernels, rtm_kernel_at(ki)->name))
            st = cpu_kernel(c, b, ki, left ? left-- : 1);
    rtm_pool_stop_as_run(&cal_pool, &sched);
    load_note(c, "cpu", &load);
    say(c, "cpu: done (%.1fs)", rtm_calib_now() - t0);
    return st;
}

/* ---- the whole run ----------------------------------------------------------------- */

int rtm_calib_match(const rtm_board_t *board, uint32_t dev, const rtm_ocl_info_t *infos,
                    uint32_t n)
{
    if (!board || dev >= board->n_devs || !infos)
        return -1;
    const rtm_board_dev_t *d = &board->dev[dev];
    uint32_t skip = 0;
    for (uint32_t j = 0; j < dev; j++)
        skip += strcmp(board->dev[j].platform, d->platform) == 0 &&
                strcmp(board->dev[j].device, d->device) == 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!strstr(infos[i].platform_name, d->platform) || !strstr(infos[i].name, d->device))
            continue;
        if (skip == 0)
            return (int)i;
        skip--;
    }
    return -1;
}

/* A fresh board device for info: name by kind (gpu0, ocl0, acc0), the next free number. */
static void dev_new(rtm_board_t *b, const rtm_ocl_info_t *info, rtm_board_dev_t *bd)
{
    memset(bd, 0, sizeof(*bd));
    const bool gpu = (info->type & CL_DEVICE_TYPE_GPU) != 0;
    const bool cpu = (info->type & CL_DEVICE_TYPE_CPU) != 0;
    bd->kind = gpu ? RTM_DEV_GPU : cpu ? RTM_DEV_CPU : RTM_DEV_ACCEL;
    const char *prefix = gpu ? "gpu" : cpu ? "ocl" : "acc";
    for (uint32_t num = 0; num < 1000; num++) {
        snprintf(bd->name, sizeof(bd->name), "%s%u", prefix, num);
        bool taken = false;
        for (uint32_t j = 0; j < b->n_devs; j++)
            taken = taken || strcmp(b->dev[j].name, bd->name) == 0;
        if (!taken)
            break;
    }
    bd->abort = info->host_unified ? RTM_ABORT_MAPPED : RTM_ABORT_WRITE;
    bd->model = RTM_MODEL_EXTENDED;
}

static void round_ktune(rtm_board_ktune_t *kt)
{
    for (uint32_t k = 0; k < RTM_MAX_KERNELS; k++) {
        kt[k].r_op = round4(kt[k].r_op, RTM_UNIT_TIME);
        kt[k].mem_rate = round4(kt[k].mem_rate, RTM_UNIT_RATE);
        kt[k].t_fixed = round4(kt[k].t_fixed, RTM_UNIT_TIME);
        kt[k].r_big = round4(kt[k].r_big, RTM_UNIT_TIME);
        kt[k].r_miss = round4(kt[k].r_miss, RTM_UNIT_TIME);
        kt[k].knee = round4(kt[k].knee, RTM_UNIT_BYTES);
        kt[k].r_byte = round4(kt[k].r_byte, RTM_UNIT_TIME);
        kt[k].x_ref = round4(kt[k].x_ref, RTM_UNIT_COUNT);
        kt[k].p_ops = round4(kt[k].p_ops, RTM_UNIT_COUNT);
        kt[k].t_next = round4(kt[k].t_next, RTM_UNIT_TIME);
        if (kt[k].p_ops == 0.0 || kt[k].x_ref == 0.0) /* written only as a pair */
            kt[k].p_ops = kt[k].x_ref = 0.0;
        if ((kt[k].r_big == 0.0 && kt[k].r_miss == 0.0) || kt[k].knee == 0.0)
            kt[k].r_big = kt[k].r_miss = kt[k].knee = 0.0; /* written only as a pair */
    }
}

static void round_board(rtm_board_t *b)
{
    for (int p = 0; p < RTM_CPU_P_COUNT; p++)
        if (b->cpu_have[p])
            b->cpu_param[p] = round4(b->cpu_param[p], cpu_unit[p]);
    round_ktune(b->cpu_ktune);
    for (uint32_t i = 0; i < b->n_devs; i++) {
        for (int p = 0; p < RTM_DEV_P_COUNT; p++)
            if (b->dev[i].have[p])
                b->dev[i].param[p] = round4(b->dev[i].param[p], dev_unit[p]);
        round_ktune(b->dev[i].ktune);
    }
}

rtm_status_t rtm_calib_run(const rtm_calib_opts_t *opts, rtm_board_t *board,
                           rtm_calib_record_t *rec)
{
    if (!opts || !board)
        return RTM_E_ARG;
    rtm_calib_record_t *own = NULL;
    if (!rec) {
        own = calloc(1, sizeof(*own));
        if (!own)
            return RTM_E_NOMEM;
        rec = own;
    } else {
        memset(rec, 0, sizeof(*rec));
    }
    /* the CPUs out of deep power states as rtmgr run holds them: a sleeping CPU's
     * wake-up is on every pool launch's path (2-vCPU VM: a worker's wake-up took the
     * caller 21 us in a quiet process, 4 us in rtmgr run) */
    const bool held = !opts->no_rt && rtm_os_cpu_latency_held() < 0 &&
                      rtm_os_hold_cpu_latency(0) == RTM_OK;
    const double t0 = rtm_calib_now();
    cal_t c = {.o = opts, .rec = rec,
               .targets = opts->quick ? cal_targets_quick : cal_targets_full,
               .n_targets = opts->quick ? N_OF(cal_targets_quick) : N_OF(cal_targets_full),
               .t0 = t0, .deadline = t0};
    double run_end = t0 + (opts->quick ? RUN_BUDGET_QUICK_S : RUN_BUDGET_S);
    const double cpu_share = opts->no_cpu ? 0.0 : 0.5;
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    rtm_status_t st = rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n);
    if (st == RTM_OK && opts->device >= (int)n) {
        fprintf(stderr, "rtmgr: calibrate: no OpenCL device %d (this computer has %u)\n",
                opts->device, n);
        st = RTM_E_CL_NODEV;
    }
    /* board device of each OpenCL device: a base profile's, or a new one */
    int map[RTM_MAX_DEVICES];
    for (uint32_t i = 0; i < n; i++)
        map[i] = -1;
    for (uint32_t j = 0; st == RTM_OK && j < board->n_devs; j++) {
        const int i = rtm_calib_match(board, j, infos, n);
        if (i >= 0 && map[i] < 0)
            map[i] = (int)j;
    }
    /* the GPUs first, the CPU-type devices after them; with both, the CPU-type devices'
     * build-time figures are measured meanwhile on helper threads (bahead_t) */
    uint32_t order[RTM_MAX_DEVICES] = {0}, n_order = 0, n_gpu = 0;
    for (int cpu_type = 0; cpu_type < 2; cpu_type++)
        for (uint32_t i = 0; st == RTM_OK && i < n; i++)
            if ((opts->device == -1 || (int)i == opts->device) &&
                !!(infos[i].type & CL_DEVICE_TYPE_CPU) == cpu_type) {
                order[n_order++] = i;
                n_gpu += !cpu_type;
            }
    bahead_t ahead[RTM_MAX_DEVICES];
    memset(ahead, 0, sizeof(ahead));
    (void)rtm_program_kernel_dir(); /* its first call sets a static: before any thread */
    devrun_t *runs = st == RTM_OK ? calloc(n_order ? n_order : 1, sizeof(*runs)) : NULL;
    if (st == RTM_OK && !runs)
        st = RTM_E_NOMEM;
    rtm_status_t dst[RTM_MAX_DEVICES];
    for (uint32_t oi = 0; oi < RTM_MAX_DEVICES; oi++)
        dst[oi] = RTM_OK;
    /* the board device of each one to calibrate */
    for (uint32_t oi = 0; st == RTM_OK && oi < n_order; oi++) {
        const uint32_t i = order[oi];
        if (map[i] < 0) {
            if (board->n_devs >= RTM_MAX_DEVICES) {
                st = RTM_E_NOMEM;
                break;
            }
            dev_new(board, &infos[i], &board->dev[board->n_devs]);
            map[i] = (int)board->n_devs++;
        }
        rtm_board_dev_t *bd = &board->dev[map[i]];
        snprintf(bd->platform, sizeof(bd->platform), "%s", infos[i].platform_name);
        snprintf(bd->device, sizeof(bd->device), "%s", infos[i].name);
        snprintf(bd->driver, sizeof(bd->driver), "%s", infos[i].driver);
        bd->memory = infos[i].global_mem;
        iso_now(bd->measured, sizeof(bd->measured));
    }
    /* with GPUs and CPU-type devices both: the CPU-type devices' first sections before the
     * GPUs (their figures and matrix_mov, on a quiet host), then their catalogues' first
     * programs built in the background while the GPUs are measured (SCHED_IDLE workers),
     * and their build-time figures measured meanwhile on helper threads (bahead_t); the
     * time of those first sections is the devices' own, not the run's (run_end) */
    const bool split = n_gpu > 0 && n_gpu < n_order;
    for (uint32_t oi = n_gpu; st == RTM_OK && split && oi < n_order; oi++) {
        const uint32_t i = order[oi];
        const double t = rtm_calib_now();
        c.deadline = t + (run_end - t) / (n_order + cpu_share);
        dst[oi] = dev_first(&c, &infos[i], &board->dev[map[i]], map[i], (int)i, &runs[oi], NULL,
                            false);
        run_end += rtm_calib_now() - t;
    }
    for (uint32_t oi = n_gpu; st == RTM_OK && split && oi < n_order; oi++) {
        if (dst[oi] != RTM_OK)
            continue;
        dev_send(&runs[oi]);
        if (runs[oi].x.bg_sent > 0 && c.n_bg < RTM_MAX_DEVICES)
            c.bg[c.n_bg++] = &runs[oi].x.bld;
        bahead_t *b = &ahead[order[oi]];
        b->info = infos[order[oi]];
        b->reps = build_reps(opts);
        b->started = pthread_create(&b->th, NULL, bahead_run, b) == 0;
    }
    for (uint32_t oi = 0; st == RTM_OK && oi < n_order; oi++) {
        const uint32_t i = order[oi];
        rtm_board_dev_t *bd = &board->dev[map[i]];
        const uint32_t devs_left = n_order - oi;
        c.deadline = rtm_calib_now() + (run_end - rtm_calib_now()) / (devs_left + cpu_share);
        devrun_t *r = &runs[oi];
        /* a split device's share holds its first section too (run_end was extended by
         * it for the GPUs: before, that time was this device's; its catalogue given the
         * whole share instead had spent 18-19 s on ocl0 against 11-12) */
        if (split && oi >= n_gpu)
            c.deadline -= r->first_s;
        if (!(split && oi >= n_gpu))
            dst[oi] = dev_first(&c, &infos[i], bd, map[i], (int)i, r, &ahead[i], true);
        st = dev_rest(r, dst[oi], &ahead[i]);
        for (uint32_t q = 0; q < c.n_bg; q++) /* its workers are reaped */
            if (c.bg[q] == &r->x.bld)
                c.bg[q] = c.bg[--c.n_bg];
    }
    /* a run cut short by an error: the devices left open closed, their workers stopped */
    for (uint32_t oi = 0; runs && oi < n_order; oi++)
        dev_close(&runs[oi]);
    for (uint32_t i = 0; i < RTM_MAX_DEVICES; i++)
        if (ahead[i].started)
            pthread_join(ahead[i].th, NULL);
    free(runs);
    c.deadline = run_end;
    if (st == RTM_OK && !opts->no_cpu)
        st = cpu_calibrate(&c, board);
    if (st == RTM_OK)
        round_board(board);
    rec->seconds = rtm_calib_now() - t0;
    note(&c, "CPUs %s while measuring",
         held                ? "held out of deep power states as rtmgr run (/dev/cpu_dma_latency 0)"
         : opts->no_rt       ? "left to their power states (--no-rt)"
         : rtm_os_cpu_latency_held() >= 0 ? "held out of deep power states by this process"
                                          : "left to their power states (/dev/cpu_dma_latency "
                                            "not permitted)");
    if (held)
        rtm_os_release_cpu_latency();
    note(&c, "fallbacks to defaults: %u", rec->fallbacks);
    rec->build_s = c.build_s + c.prebuild_s + c.cfig_s;
    rec->load_s = c.load_s;
    rec->n_built = c.n_built;
    rec->n_loaded = c.n_loaded;
    rec->n_prebuilt = c.n_prebuilt;
    /* builds: compiled in the measurements' kexecs, the parallel prebuild batches (wall)
     * and the build-time figure c; with a warm cache only c's builds remain */
    say(&c, "finished in %.1fs: program builds %.1fs (%u compiled in kexecs %.1fs, %u "
            "prebuilt in parallel %.1fs, build-time figure c %.1fs), %u cache loads %.1fs; "
            "without builds %.1fs; %u fallback(s) to defaults%s",
        rec->seconds, rec->build_s, c.n_built, c.build_s, c.n_prebuilt, c.prebuild_s, c.cfig_s,
        c.n_loaded, c.load_s, rec->seconds - rec->build_s, rec->fallbacks,
        rec->fallbacks ? " (WARNING lines above, FALLBACK notes in the profile)" : "");
    if (rec->fallbacks && !opts->log)
        fprintf(stderr, "rtmgr: calibrate: %u fallback(s) to defaults\n", rec->fallbacks);
    free(own);
    return st;
}

/* ---- staleness ------------------------------------------------------------------------ */

int rtm_calib_check_stale(const rtm_board_t *board, const rtm_ocl_info_t *infos, uint32_t n,
                          FILE *warn)
{
    if (!board)
        return 0;
    rtm_ocl_info_t found[RTM_MAX_DEVICES];
    if (!infos) {
        n = 0;
        if (rtm_ocl_discover(found, RTM_MAX_DEVICES, &n) != RTM_OK)
            n = 0;
        infos = found;
    }
    int stale = 0;
    for (uint32_t j = 0; j < board->n_devs; j++) {
        const rtm_board_dev_t *d = &board->dev[j];
        const int i = rtm_calib_match(board, j, infos, n);
        char why[512];
        why[0] = '\0';
        if (i < 0)
            snprintf(why, sizeof(why), "device '%s' (\"%s\" on \"%s\") is not on this computer",
                     d->name, d->device, d->platform);
        else if (!d->measured[0])
            snprintf(why, sizeof(why), "device '%s' was never calibrated", d->name);
        else if (strcmp(d->driver, infos[i].driver) != 0)
            snprintf(why, sizeof(why), "device '%s': driver \"%s\" now, \"%s\" at calibration",
                     d->name, infos[i].driver, d->driver);
        if (why[0]) {
            stale++;
            if (warn)
                fprintf(warn, "rtmgr: warning: board profile stale: recalibrate (%s)\n", why);
        }
    }
    const long online = rtm_os_cpu_count();
    if (board->cores != (uint32_t)online) {
        stale++;
        if (warn)
            fprintf(warn,
                    "rtmgr: warning: board profile stale: recalibrate (%ld CPU cores now, %u at "
                    "calibration)\n",
                    online, board->cores);
    }
    return stale;
}

/* ---- saving -------------------------------------------------------------------------- */

static void put_fig(FILE *f, const char *what, const rtm_calib_fig_t *g, double value,
                    const char *unit, double scale)
{
    if (g->n == 0)
        return;
    fprintf(f, "#   %-40s %11.4g%-4s spread %5.1f%%", what, value * scale, unit, g->spread * 100);
    if (g->resid > 0)
        fprintf(f, "  fit residual %5.1f%%", g->resid * 100);
    fprintf(f, "  kept %u/%u\n", g->kept, g->n);
}

static void unit_of(rtm_unit_t cls, const char **unit, double *scale)
{
    switch (cls) {
    case RTM_UNIT_TIME: *unit = "ns"; *scale = 1e9; break;
    case RTM_UNIT_RATE: *unit = "GB/s"; *scale = 1e-9; break;
    case RTM_UNIT_BYTES: *unit = "MiB"; *scale = 1.0 / MIB; break;
    default: *unit = ""; *scale = 1.0; break;
    }
}

#define P_KEY(id, key, unit, help) key,
static const char *const dev_keys[RTM_DEV_P_COUNT] = {RTM_DEV_PARAMS(P_KEY)};
static const char *const cpu_keys[RTM_CPU_P_COUNT] = {RTM_CPU_PARAMS(P_KEY)};
#undef P_KEY

static void put_record(FILE *f, const rtm_board_t *b, const rtm_calib_record_t *rec)
{
    fprintf(f, "\n# ---- calibration record (comments; rtmgr does not read them) ----\n"
               "# Every figure: %d repetitions after one warm-up (a GPU's kernel points: "
               "warm-up jobs of %.0f ms);\n# samples farther than 3 x 1.4826 x MAD from the "
               "median dropped (none when that would drop half);\n# the median kept. spread = (max - min) / median of the kept samples. Fitted "
               "parameters (transfers,\n# cw/dispatch, per-kernel r_op): spread = largest "
               "spread of the points fitted, fit\n# residual = largest relative misfit at "
               "those points. Run took %.1fs.\n",
            REPS, RTM_CALIB_WARM_S * 1e3, rec->seconds);
    char what[160];
    bool any = false;
    for (int p = 0; p < RTM_CPU_P_COUNT; p++)
        any = any || rec->cpu[p].n;
    if (any) {
        fprintf(f, "# cpu:\n");
        for (int p = 0; p < RTM_CPU_P_COUNT; p++) {
            const char *u;
            double s;
            unit_of(cpu_unit[p], &u, &s);
            put_fig(f, cpu_keys[p], &rec->cpu[p], b->cpu_param[p], u, s);
        }
        for (uint32_t k = 0; k < rtm_kernel_count(); k++) {
            snprintf(what, sizeof(what), "kernels.%s.r_op", rtm_kernel_at(k)->name);
            put_fig(f, what, &rec->cpu_k[k], b->cpu_ktune[k].r_op, "ns", 1e9);
        }
    }
    for (uint32_t i = 0; i < b->n_devs; i++) {
        any = false;
        for (int p = 0; p < RTM_DEV_P_COUNT; p++)
            any = any || rec->dev[i][p].n;
        if (!any)
            continue;
        fprintf(f, "# %s:\n", b->dev[i].name);
        for (int p = 0; p < RTM_DEV_P_COUNT; p++) {
            const char *u;
            double s;
            unit_of(dev_unit[p], &u, &s);
            put_fig(f, dev_keys[p], &rec->dev[i][p], b->dev[i].param[p], u, s);
        }
        for (uint32_t k = 0; k < rtm_kernel_count(); k++) {
            snprintf(what, sizeof(what), "kernels.%s.r_op", rtm_kernel_at(k)->name);
            put_fig(f, what, &rec->dev_k[i][k], b->dev[i].ktune[k].r_op, "ns", 1e9);
        }
    }
    if (rec->notes_len) {
        fprintf(f, "# notes:\n");
        const char *p = rec->notes;
        while (*p) {
            const size_t n = strcspn(p, "\n");
            fprintf(f, "#   %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
    if (rec->notes_dropped)
        fprintf(f, "# notes: %u notes dropped (the record's %u bytes were full)\n",
                rec->notes_dropped, (unsigned)RTM_CALIB_NOTES_MAX);
}

rtm_status_t rtm_calib_save(const rtm_board_t *board, const rtm_calib_record_t *rec,
                            const char *command, const char *path)
{
    if (!board || !path)
        return RTM_E_ARG;
    /* the schema part through the board module, then the comments around it */
    char body_path[RTM_PATH_MAX + 16], tmp[RTM_PATH_MAX + 16];
    if ((size_t)snprintf(body_path, sizeof(body_path), "%s.body", path) >= sizeof(body_path) ||
        (size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
        return RTM_E_ARG;
    rtm_status_t st = rtm_board_save(board, body_path);
    if (st != RTM_OK)
        return st;
    size_t len = 0;
    char *body = read_text(body_path, &len);
    unlink(body_path);
    if (!body)
        return RTM_E_IO;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(body);
        return RTM_E_IO;
    }
    char date[32];
    iso_now(date, sizeof(date));
    fprintf(f, "# Made by: %s\n# on %s", command ? command : "rtmgr calibrate", date);
    for (uint32_t i = 0; i < board->n_devs; i++)
        fprintf(f, "%s %s (%s, driver %s)", i ? "," : ";", board->dev[i].device,
                board->dev[i].platform, board->dev[i].driver);
    fprintf(f, "\n# Measured with the seed-000 method (docs/calibration.md); the calibration "
               "record with\n# every figure's spread follows the profile. A driver or device "
               "change makes rtmgr warn\n# \"board profile stale: recalibrate\".\n");
    fputs(body, f);
    free(body);
    if (rec)
        put_record(f, board, rec);
    const bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return RTM_E_IO;
    }
    return RTM_OK;
}

/* ---- prebuild worker ---------------------------------------------------------------- */

/* A CPU device's compiler works lazily as well: PoCL compiles a program's work-group
 * function for each local size at the first launch that uses it (into its own cache,
 * POCL_CACHE_DIR, which the processes of a user share). A worker launches the instance
 * it built once as calibration will, with the flag raised (every group leaves at its
 * entry check): on the development machine, fresh caches, `calibrate --quick --no-cpu`
 * spent 16.6 s in PoCL runs against 8.6 s once its cache held them. */
static rtm_status_t prewarm_one(rtm_ocl_dev_t *d, const rtm_build_job_t *j, const char *cache_dir)
{
    rtm_calib_inst_t in;
    rtm_status_t st = rtm_calib_inst_make(&in, j->k.kernel, j->k.size, j->k.tune, 1);
    rtm_kexec_t ex;
    const rtm_kexec_opts_t o = rtm_build_job_opts(j, cache_dir);
    if (st == RTM_OK)
        st = rtm_kexec_create_ex(&ex, d, &in.k, &o);
    if (st == RTM_OK) {
        st = rtm_kexec_warm(&ex);
        rtm_kexec_destroy(&ex);
    }
    rtm_calib_inst_free(&in);
    return st;
}

/* What a worker does with one job: the build, and on a CPU device the warm-up launch. */
typedef struct {
    rtm_ocl_dev_t *d;
    const char *cache;
    int device;
} worker_ctx_t;

static bool worker_build(void *ctx, rtm_build_job_t *j)
{
    const worker_ctx_t *w = ctx;
    prebuild_t pb = {w->d, *j, w->cache};
    rtm_status_t st = prebuild_one(&pb);
    if (st == RTM_OK && (w->d->info.type & CL_DEVICE_TYPE_CPU))
        st = prewarm_one(w->d, j, w->cache);
    if (st != RTM_OK)
        fprintf(stderr, "rtmgr: calibrate: prebuild worker (device %d): %s: %s\n", w->device,
                j->k.kernel->name, rtm_strerror(st));
    return st == RTM_OK;
}

static const char *env_or_unset(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "(unset)";
}

rtm_status_t rtm_calib_prebuild_worker(int device, const char *cache_dir, int in_fd, int ack_fd,
                                       bool idle)
{
    if (device < 0 || !cache_dir || !*cache_dir || in_fd < 0)
        return RTM_E_ARG;
    if (idle) /* before the device is opened: its driver's threads inherit it */
        (void)rtm_os_sched_idle();
    /* the descriptors calibration's process had open when it spawned this one, its GPU
     * drivers' device files among them: this process opens its own (those past the
     * acknowledgements' descriptor: the builder passes 3) */
    const int inherited = rtm_os_close_inherited(ack_fd > 2 ? ack_fd + 1 : 3);
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    rtm_status_t st = rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n);
    if (st != RTM_OK)
        return st;
    if ((uint32_t)device >= n) {
        /* which devices and platforms this process saw, and what it inherited */
        char seen[512] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < n && used < sizeof(seen); i++)
            used += (size_t)snprintf(seen + used, sizeof(seen) - used, "%s%s on %s",
                                     i ? ", " : ": ", infos[i].name, infos[i].platform_name);
        char proc[256];
        rtm_os_describe_process(proc, sizeof(proc));
        char plats[512];
        rtm_ocl_describe_platforms(plats, sizeof(plats));
        fprintf(stderr,
                "rtmgr: calibrate: prebuild worker: no device %d (%u found%s; %s; "
                "OCL_ICD_FILENAMES=%s, OCL_ICD_VENDORS=%s; %d inherited descriptors closed; "
                "%s)\n",
                device, n, seen, plats, env_or_unset("OCL_ICD_FILENAMES"),
                env_or_unset("OCL_ICD_VENDORS"), inherited, proc);
        return RTM_E_CL_NODEV;
    }
    rtm_ocl_dev_t d;
    st = rtm_ocl_open(&d, &infos[device]);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: calibrate: prebuild worker: device %d: %s\n", device,
                rtm_strerror(st));
        return st;
    }
    worker_ctx_t w = {&d, cache_dir, device};
    rtm_builder_serve(in_fd, ack_fd, worker_build, &w);
    rtm_ocl_close(&d);
    return RTM_OK;
}
