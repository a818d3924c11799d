/* calib.c — `rtmgr calibrate`: the model parameters of this computer, measured (see
 * calib.h; method, parameters and units in docs/calibration.md).
 *
 * Owns: the run — its context (time budget, notes, fallbacks, the host's load), the order
 * of its sections (the OpenCL devices, then the CPU) and their shares of the run's time,
 * the kernel-time targets of the per-kernel points, the rounding of what is kept — the
 * profile's comment blocks (saving), and the staleness check. The rest of calibration,
 * sharing calibint.h: calibfit.c (a kernel's instances, sizes, points and fit, device and
 * CPU alike), calibdev.c (an OpenCL device's figures and catalogue kernels), calibllc.c
 * (the last-level cache read sweep), calibbuild.c (program builds: the build-time figure,
 * programs built ahead, the build worker's side), calibcpu.c (the CPU pool's figures).
 * Validation lives in validate.c; CPU micro-kernels in cpubench.c.
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
 * where the model meets the measured time: calibdev.c's dev_coef), so calibration and
 * prediction cannot disagree about a formula;
 * calibration sizes use odd values of a kernel's first size key and validation even
 * ones, so the two never meet; nothing here runs on the real-time path. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calib.h"
#include "calibint.h"
#include "builder.h"
#include "os.h"
#include "program.h"
#include "stats.h"
#include "units.h"

/* Kernel-time targets of the per-kernel calibration sizes (seconds). Validation's are
 * interleaved (validate.c). */
static const double cal_targets_full[] = {0.05e-3, 0.25e-3, 1.2e-3, 5e-3, 20e-3};
static const double cal_targets_quick[] = {0.15e-3, 0.8e-3, 4e-3};
/* Wall time the whole run aims at (seconds): the devices and the CPU share it (the CPU
 * section first, a device's share), and within each the catalogue kernels share what
 * the device-level figures left, each between KERNEL_MIN_S and KERNEL_MAX_S (calibint.h;
 * its tuning sweep may use 40% of it). Past its budget a kernel gets no point beyond its
 * second. Program builds and the points a kernel takes past its budget come on top: at
 * 45 s the H100 machine's cold runs took 52-58 s (sessions 24-25) against the 60 s
 * target, so 42; at 42 with the CPU pool's later passes (calibcpu.c, 2.2-2.9 s there)
 * they took 56.8-63.3 s (session 44, over 60 s with 0.23-0.83 cores stolen by the
 * hypervisor), so 40; at 40 with the tuning sweep run for every GPU kernel (session 50,
 * 3-4 s more of gpu0's section) they took 57.4-64.7 s on a host whose CPU section alone
 * went 13.0-15.4 s in the same code, so 37. */
#define RUN_BUDGET_S 37.0
#define RUN_BUDGET_QUICK_S 10.0

/* Unit class of every parameter, from board.h's lists. */
#define P_UNIT(id, key, unit, help) RTM_UNIT_##unit,
static const rtm_unit_t dev_unit[RTM_DEV_P_COUNT] = {RTM_DEV_PARAMS(P_UNIT)};
static const rtm_unit_t cpu_unit[RTM_CPU_P_COUNT] = {RTM_CPU_PARAMS(P_UNIT)};
#undef P_UNIT
/* ... and their YAML keys. */
#define P_KEY(id, key, unit, help) key,
static const char *const dev_keys[RTM_DEV_P_COUNT] = {RTM_DEV_PARAMS(P_KEY)};
static const char *const cpu_keys[RTM_CPU_P_COUNT] = {RTM_CPU_PARAMS(P_KEY)};
#undef P_KEY

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

/* ---- the context of one run -------------------------------------------------------- */

/* The private (L2) caches of `workers` host cores together, bytes; 0 when unknown.
 * Where the CPU kernels' time per operation jumps: on the H100 host (16 x 2 MiB L2,
 * 300 MiB L3) matrix_loop_add's time per n^3 goes 0.075 ns at n = 1000 (12 MB of
 * buffers) -> 0.18 at 2000 (48 MB) -> 0.40 at 3000, all far inside the L3: the column
 * walks of B leave the cores' own caches and TLB reach, not the last level. */
double rtm_calib_host_private(uint32_t workers)
{
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? (double)l2 * workers : 0.0;
}

/* The time one kernel may take now, `left` kernels (this one included) still to do. */
double cal_kernel_budget(const cal_t *c, uint32_t left)
{
    const double b = (c->deadline - rtm_calib_now()) / (left ? left : 1);
    return fmin(fmax(b, KERNEL_MIN_S), KERNEL_MAX_S);
}

/* Catalogue kernels the per-kernel part covers. */
uint32_t cal_kernels_wanted(const cal_t *c)
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
__attribute__((format(printf, 4, 5))) bool rtm_calib_appendf(char *buf, size_t len, size_t *used,
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

__attribute__((format(printf, 2, 3))) void cal_note(cal_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note_v(c->rec, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 2, 3))) void cal_say(const cal_t *c, const char *fmt, ...)
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
__attribute__((format(printf, 2, 3))) void cal_fallback(cal_t *c, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    c->rec->fallbacks++;
    fprintf(stderr, "rtmgr: calibrate: WARNING: fallback: %s\n", text);
    fflush(stderr);
    cal_note(c, "FALLBACK: %s", text);
}

/* ---- the run's time limit (opts.time_limit) ------------------------------------------ */

cal_limit_t cal_limit(const cal_t *c, uint32_t left)
{
    if (!(c->limit_end > 0.0))
        return c->squeeze_all ? CAL_SQUEEZED : CAL_FULL;
    const double to_end = c->limit_end - rtm_calib_now();
    if (to_end <= 0.0)
        return CAL_SKIPPED;
    return c->squeeze_all || to_end < (left + c->kernels_after) * SQUEEZED_KERNEL_S
               ? CAL_SQUEEZED
               : CAL_FULL;
}

void cal_limit_skip(cal_t *c, const char *owner, const char *kernel, const rtm_board_ktune_t *kt)
{
    const bool kept = kt->have && kt->r_op > 0; /* a base profile's fit */
    c->rec->n_skipped++;
    cal_fallback(c, "%s: kernel %s not measured: the run's time limit (%.4gs) reached; %s predict it",
                 owner, kernel, c->o->time_limit,
                 kept ? "the base profile's terms" : "no per-kernel terms: the generic model's");
}

void rtm_calib_load_mark(load_mark_t *m, double extra_self)
{
    m->ok = rtm_os_cpu_times(&m->t);
    m->self_s = rtm_os_self_cpu_s() + extra_self;
    m->at = rtm_calib_now();
}

bool rtm_calib_load_since(const load_mark_t *m0, const load_mark_t *m1, double *wall,
                          double *others, double *steal)
{
    *wall = m1->at - m0->at;
    if (!m0->ok || !m1->ok || !(*wall > 0))
        return false;
    /* /proc/stat counts each CPU's busy time in clock ticks, this run's own time exactly:
     * up to a tick at either end of each CPU's count is no one's load (0.5 s windows on
     * the H100 host read up to 0.53 cores of it in a section that held 0.01, session 55) */
    const long hz = sysconf(_SC_CLK_TCK);
    const double ticks = hz > 0 ? 2.0 * rtm_os_cpu_count() / (double)hz : 0.0;
    *others =
        fmax(0.0, (m1->t.busy_s - m0->t.busy_s) - (m1->self_s - m0->self_s) - ticks) / *wall;
    *steal = fmax(0.0, m1->t.steal_s - m0->t.steal_s) / *wall;
    return true;
}

/* The build workers that build in the background (c->bg), not yet reaped, count as this
 * run's own load, not another process's. */
void cal_load_mark(const cal_t *c, load_mark_t *m)
{
    double bg = 0.0;
    for (uint32_t i = 0; i < c->n_bg; i++)
        bg += rtm_builder_cpu_s(c->bg[i]);
    rtm_calib_load_mark(m, bg);
}

void cal_load_note(cal_t *c, const char *what, const load_mark_t *m0)
{
    load_mark_t m1;
    cal_load_mark(c, &m1);
    double wall, others, steal;
    if (!rtm_calib_load_since(m0, &m1, &wall, &others, &steal))
        return;
    cal_note(c, "%s: host load while calibrating it (%.1fs): other processes and interrupts %.2f "
                "cores, stolen by the hypervisor %.2f cores, of %d",
             what, wall, others, steal, rtm_os_cpu_count());
    if (others > RTM_CALIB_LOAD_WARN_CORES || steal > RTM_CALIB_LOAD_WARN_CORES) {
        fprintf(stderr,
                "rtmgr: calibrate: WARNING: %s: the host was busy while it was calibrated "
                "(other processes %.2f cores, hypervisor %.2f cores of %d): its figures may be "
                "slow; recalibrate on a quiet machine\n",
                what, others, steal, rtm_os_cpu_count());
        fflush(stderr);
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

/* --kernels on a device the base profile had: the figures this run measures again that
 * the base's other kernels' fits were made against, which it keeps — the waves (units,
 * resident, cus: any change) and the per-launch terms (kernel_fixed, kernel_next: more
 * than KEPT_FITS_MOVE apart). Session 73 on the H100 host: ocl0 recalibrated for one
 * kernel came back with units 8192 -> 4096 and resident 2 -> 1, and its other kernels
 * validated at 48.5 % where the device recalibrated whole gave 13.1 %. */
#define KEPT_FITS_MOVE 0.25
static const int kept_fits_basis[] = {RTM_DEV_P_units, RTM_DEV_P_resident, RTM_DEV_P_cus,
                                      RTM_DEV_P_kernel_fixed, RTM_DEV_P_kernel_next};

/* Where `bd`'s basis moved from the base profile's (its section before this run, the
 * same device on the same driver), the base's values are put back, before the device's
 * kernels are measured (`late` false: right after its own figures) and again at its end
 * (`late`: the pace brought kernel_next along since): the kernels this run measures are
 * fitted against the figures the kept ones were, and the profile predicts all of them
 * as they were fitted. The figures' record lines are then the base's (this run's
 * figure record cleared). On another driver nothing is put back: the device changed, and
 * the warning asks for the device recalibrated whole. Warned on stderr and noted. */
void cal_keep_basis(cal_t *c, int di, rtm_board_dev_t *bd, bool late)
{
    if (!c->base_dev || di < 0 || (uint32_t)di >= c->n_base)
        return;
    const rtm_board_dev_t *base = &c->base_dev[di];
    const bool same = strcmp(base->driver, bd->driver) == 0;
    if (!same && !late) /* nothing put back: said once, at the end */
        return;
    char moved[400] = "";
    size_t used = 0;
    for (size_t k = 0; k < N_OF(kept_fits_basis); k++) {
        const int p = kept_fits_basis[k];
        const double was = base->param[p];
        if (!base->have[p] || !bd->have[p] || !(was > 0))
            continue;
        const bool count = dev_unit[p] == RTM_UNIT_COUNT;
        if (count ? bd->param[p] == was : fabs(bd->param[p] / was - 1.0) <= KEPT_FITS_MOVE)
            continue;
        char a[32], b[32];
        rtm_units_format(round4(was, dev_unit[p]), dev_unit[p], a, sizeof(a));
        rtm_units_format(round4(bd->param[p], dev_unit[p]), dev_unit[p], b, sizeof(b));
        rtm_calib_appendf(moved, sizeof(moved), &used, "%s%s %s -> %s", used ? ", " : "",
                          dev_keys[p], a, b);
        if (same) {
            bd->param[p] = was;
            memset(&c->rec->dev[di][p], 0, sizeof(c->rec->dev[di][p]));
        }
    }
    if (!used)
        return;
    /* what follows the list: on the same driver, the base's put back; on another, kept
     * fits the warning asks to remake */
    char where[320]; /* two driver strings (128 bytes each) and the words */
    if (same)
        snprintf(where, sizeof(where), "%s", late ? " over the run" : "");
    else
        snprintf(where, sizeof(where), " on another driver (%s, the base's %s)", bd->driver,
                 base->driver);
    fprintf(stderr, "rtmgr: calibrate: WARNING: %s: its own figures moved from the base profile's "
                    "(%s)%s%s\n", bd->name, moved, where,
            same ? ": the base's kept, and the kernels measured now fitted against them as its "
                   "other kernels were; where the device itself changed, recalibrate it whole "
                   "(--device without --kernels)"
                 : ", and its kernels not in --kernels keep fits made against the old ones: "
                   "recalibrate the device whole (--device without --kernels)");
    cal_note(c, "%s: its own figures moved from the base profile's (%s)%s%s", bd->name, moved,
             same ? where : " on another driver",
             same ? ": the base's kept, the kernels of --kernels fitted against them"
                  : "; its kernels not in --kernels keep the base's fits, made against the old "
                    "ones");
    fflush(stderr);
}

void rtm_calib_iso_now(char *buf, size_t len)
{
    const time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
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
        kt[k].aligned_r = round4(kt[k].aligned_r, RTM_UNIT_TIME);
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
    const bool held = !opts->no_rt && rtm_os_hold_cpu_latency_if_free(0);
    const double t0 = rtm_calib_now();
    const char *squeeze = getenv("RTM_CALIB_SQUEEZE"); /* fault injection: the limit near */
    cal_t c = {.o = opts, .rec = rec,
               .targets = opts->quick ? cal_targets_quick : cal_targets_full,
               .n_targets = opts->quick ? N_OF(cal_targets_quick) : N_OF(cal_targets_full),
               .t0 = t0, .deadline = t0,
               .limit_end = opts->time_limit > 0.0 ? t0 + opts->time_limit - LIMIT_RESERVE_S : 0.0,
               .squeeze_all = squeeze && strcmp(squeeze, "1") == 0};
    double run_end = t0 + (opts->quick ? RUN_BUDGET_QUICK_S : RUN_BUDGET_S);
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
    /* with --kernels, the base's devices as they were, for cal_keep_basis */
    static rtm_board_dev_t base_dev[RTM_MAX_DEVICES];
    if (opts->kernels && *opts->kernels) {
        memcpy(base_dev, board->dev, sizeof(base_dev[0]) * board->n_devs);
        c.base_dev = base_dev;
        c.n_base = board->n_devs;
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
        rtm_calib_iso_now(bd->measured, sizeof(bd->measured));
    }
    /* what a section leaves time for within the run's limit (cal_limit): the GPUs after
     * it, each its catalogue and its end; the CPU-type devices after the GPUs take what
     * they leave (the H100 host's gpu0 squeezed for PoCL's sake under a busy host
     * validated at 23.5 %, session 56), each leaving time for those after it */
    const uint32_t per_dev = cal_kernels_wanted(&c) + DEV_TAIL_KERNELS;
    /* the CPU section first, its share of the run: on a host the devices' sections have
     * not yet loaded (an H100 host's CPU fits after PoCL's all-core section and the
     * GPUs' build workers held 12-50 % residuals and validated at 15-20 %, a CPU-only
     * calibration's at 7.2 %, session 24); a device's share (it had the rest of the
     * run, 15-18 s of the H100 host's 55) */
    if (st == RTM_OK && opts->no_cpu && board->cores == 0)
        rtm_calib_cpu_pool(&c, board); /* a fresh profile's cpu section: no parameters */
    if (st == RTM_OK && !opts->no_cpu) {
        const double t = rtm_calib_now();
        c.deadline = t + (run_end - t) / ((double)n_order + 1.0);
        c.cpu_defer = n_order > 0;
        c.kernels_after = n_gpu * per_dev;
        st = rtm_calib_cpu(&c, board);
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
        c.deadline = t + (run_end - t) / n_order;
        c.kernels_after = n_gpu * per_dev;
        dst[oi] = rtm_calib_dev_first(&c, &infos[i], &board->dev[map[i]], map[i], (int)i,
                                      &runs[oi], NULL, false);
        run_end += rtm_calib_now() - t;
    }
    for (uint32_t oi = n_gpu; st == RTM_OK && split && oi < n_order; oi++) {
        if (dst[oi] != RTM_OK)
            continue;
        rtm_calib_dev_send(&runs[oi]);
        if (runs[oi].x.bg_sent > 0 && c.n_bg < RTM_MAX_DEVICES)
            c.bg[c.n_bg++] = &runs[oi].x.bld;
        bahead_t *b = &ahead[order[oi]];
        b->info = infos[order[oi]];
        b->reps = rtm_calib_build_reps(opts);
        b->started = pthread_create(&b->th, NULL, rtm_calib_bahead_run, b) == 0;
    }
    for (uint32_t oi = 0; st == RTM_OK && oi < n_order; oi++) {
        const uint32_t i = order[oi];
        rtm_board_dev_t *bd = &board->dev[map[i]];
        const uint32_t devs_left = n_order - oi;
        c.deadline = rtm_calib_now() + (run_end - rtm_calib_now()) / devs_left;
        c.kernels_after = ((oi < n_gpu ? n_gpu : n_order) - oi - 1) * per_dev + DEV_TAIL_KERNELS;
        devrun_t *r = &runs[oi];
        /* a split device's share holds its first section too (run_end was extended by
         * it for the GPUs: before, that time was this device's; its catalogue given the
         * whole share instead had spent 18-19 s on ocl0 against 11-12) */
        if (split && oi >= n_gpu)
            c.deadline -= r->first_s;
        if (!(split && oi >= n_gpu))
            dst[oi] = rtm_calib_dev_first(&c, &infos[i], bd, map[i], (int)i, r, &ahead[i], true);
        st = rtm_calib_dev_rest(r, dst[oi], &ahead[i]);
        for (uint32_t q = 0; q < c.n_bg; q++) /* its workers are reaped */
            if (c.bg[q] == &r->x.bld)
                c.bg[q] = c.bg[--c.n_bg];
    }
    /* a run cut short by an error: the devices left open closed, their workers stopped */
    for (uint32_t oi = 0; runs && oi < n_order; oi++)
        rtm_calib_dev_close(&runs[oi]);
    for (uint32_t i = 0; i < RTM_MAX_DEVICES; i++)
        if (ahead[i].started)
            pthread_join(ahead[i].th, NULL);
    free(runs);
    /* the CPU pool's passes a busy host disturbed, again on the host the devices left */
    const rtm_status_t lst = rtm_calib_cpu_late(&c, board);
    if (st == RTM_OK)
        st = lst;
    if (st == RTM_OK)
        round_board(board);
    for (uint32_t oi = 0; st == RTM_OK && oi < n_order; oi++) {
        const int j = map[order[oi]]; /* its board device */
        cal_keep_basis(&c, j, &board->dev[j], true);
    }
    rec->seconds = rtm_calib_now() - t0;
    cal_note(&c, "CPUs %s while measuring",
             held          ? "held out of deep power states as rtmgr run (/dev/cpu_dma_latency 0)"
             : opts->no_rt ? "left to their power states (--no-rt)"
             : rtm_os_cpu_latency_held() >= 0
                 ? "held out of deep power states by this process"
                 : "left to their power states (/dev/cpu_dma_latency not permitted)");
    if (held)
        rtm_os_release_cpu_latency();
    cal_note(&c, "fallbacks to defaults: %u", rec->fallbacks);
    rec->build_s = c.build_s + c.prebuild_s + c.cfig_s;
    rec->load_s = c.load_s;
    rec->n_built = c.n_built;
    rec->n_loaded = c.n_loaded;
    rec->n_prebuilt = c.n_prebuilt;
    char limit_t[160] = "";
    if (opts->time_limit > 0.0)
        snprintf(limit_t, sizeof(limit_t), "; time limit %.4gs: %u kernel(s) measured at two points, "
                 "%u not measured", opts->time_limit, rec->n_squeezed, rec->n_skipped);
    if (opts->time_limit > 0.0 || rec->n_squeezed)
        cal_note(&c, "time limit %.4gs (0: none)%s: %u kernel(s) measured at two points (no sweep, "
                     "poll search or extra point), %u not measured", opts->time_limit,
                 c.squeeze_all ? ", RTM_CALIB_SQUEEZE: every kernel squeezed" : "",
                 rec->n_squeezed, rec->n_skipped);
    /* builds: compiled in the measurements' kexecs, the parallel prebuild batches (wall)
     * and the build-time figure c; with a warm cache only c's builds remain */
    cal_say(&c, "finished in %.1fs: program builds %.1fs (%u compiled in kexecs %.1fs, %u "
                "prebuilt in parallel %.1fs, build-time figure c %.1fs), %u cache loads %.1fs; "
                "without builds %.1fs%s; %u fallback(s) to defaults%s",
            rec->seconds, rec->build_s, c.n_built, c.build_s, c.n_prebuilt, c.prebuild_s, c.cfig_s,
            c.n_loaded, c.load_s, rec->seconds - rec->build_s, limit_t, rec->fallbacks,
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
    char cpu[sizeof(board->cpu_name)];
    if (board->cpu_name[0] && rtm_os_cpu_name(cpu, sizeof(cpu)) &&
        strcmp(cpu, board->cpu_name) != 0) {
        stale++;
        if (warn)
            fprintf(warn,
                    "rtmgr: warning: board profile stale: recalibrate (CPU \"%s\" now, \"%s\" at "
                    "calibration)\n",
                    cpu, board->cpu_name);
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

/* ---- the base profile's record: what this run did not measure ------------------------ */

/* The record of the profile a run started from (-b): the lines of its sections' figures
 * and of its notes, each with the section it belongs to, for the figures, sections and
 * notes this run did not measure (rtm_calib_save). */
typedef struct {
    char *text;           /* the base profile, whole (owned) */
    const char *from;     /* its record's first line, or NULL: none */
    char made[512];       /* its head: "Made by: ..., on ..." */
} base_rec_t;

/* One line of text: [p, p + len), without its newline. */
typedef struct {
    const char *p;
    size_t len;
} line_t;

/* The next line of `text` from *at (false at the end). */
static bool next_line(const char *text, size_t *at, line_t *l)
{
    if (!text[*at])
        return false;
    l->p = text + *at;
    l->len = strcspn(l->p, "\n");
    *at += l->len + (l->p[l->len] == '\n');
    return true;
}

/* The word of line l from offset `at` up to a space or ':' into w; false if none. */
static bool word_at(const line_t *l, size_t at, char *w, size_t cap)
{
    size_t n = 0;
    while (at + n < l->len && l->p[at + n] != ' ' && l->p[at + n] != ':')
        n++;
    if (n == 0 || n >= cap)
        return false;
    memcpy(w, l->p + at, n);
    w[n] = '\0';
    return true;
}

/* A record line's section head ("# gpu0:", "# gpu0: (...)") gives its name, a notes
 * head ("# notes:", "# notes carried ...") "notes"; false for other lines. */
static bool sect_head(const line_t *l, char *name, size_t cap)
{
    if (l->len < 4 || strncmp(l->p, "# ", 2) != 0 || l->p[2] == ' ' || !word_at(l, 2, name, cap))
        return false;
    if (strcmp(name, "notes") == 0)
        return true;
    const size_t end = 2 + strlen(name);
    return end < l->len && l->p[end] == ':' && (end + 1 == l->len || l->p[end + 1] == ' ');
}

/* One section of a record (the CPU pool's or a device's): its keys and units, this run's
 * figures, the profile's values. */
typedef struct {
    const char *name;
    const char *const *keys;
    const rtm_unit_t *units;
    int n;                       /* parameters */
    const rtm_calib_fig_t *fig;  /* [n] */
    const rtm_calib_fig_t *kfig; /* [RTM_MAX_KERNELS]: the kernels' r_op */
    const double *param;         /* [n] */
    const rtm_board_ktune_t *ktune;
} sect_t;

/* Section s: -1 the CPU pool, else device s. */
static sect_t sect_at(const rtm_board_t *b, const rtm_calib_record_t *rec, int s)
{
    if (s < 0)
        return (sect_t){"cpu", cpu_keys, cpu_unit, RTM_CPU_P_COUNT, rec->cpu, rec->cpu_k,
                        b->cpu_param, b->cpu_ktune};
    return (sect_t){b->dev[s].name, dev_keys, dev_unit, RTM_DEV_P_COUNT, rec->dev[s],
                    rec->dev_k[s], b->dev[s].param, b->dev[s].ktune};
}

/* The section name stands for: -1 the CPU pool, a device's index, INT32_MIN none. */
static int sect_of(const rtm_board_t *b, const char *name)
{
    if (strcmp(name, "cpu") == 0)
        return -1;
    for (uint32_t i = 0; i < b->n_devs; i++)
        if (strcmp(b->dev[i].name, name) == 0)
            return (int)i;
    return INT32_MIN;
}

/* Whether this run measured anything of section x. */
static bool sect_measured(const sect_t *x)
{
    for (int p = 0; p < x->n; p++)
        if (x->fig[p].n)
            return true;
    return false;
}

/* Whether this run measured figure `key` ("w", "kernels.sort.r_op") of section x; a key
 * it does not know counts as measured (it is not carried). */
static bool fig_measured(const sect_t *x, const char *key)
{
    for (int p = 0; p < x->n; p++)
        if (strcmp(x->keys[p], key) == 0)
            return x->fig[p].n > 0;
    const size_t kl = strlen(key);
    if (kl > 13 && strncmp(key, "kernels.", 8) == 0 && strcmp(key + kl - 5, ".r_op") == 0) {
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)(kl - 13), key + 8);
        const rtm_kernel_t *k = rtm_kernel_find(name);
        if (k)
            return x->kfig[rtm_kernel_index(k)].n > 0;
    }
    return true;
}

/* Which base record line is carried into the new record: in section `sect` of this
 * profile, a figure ("#   KEY value ...") or a note ("#   SECT: ..." under notes) — all
 * of a section this run did not measure, else a figure it did not measure or a kernel's
 * note ("SECT: KERNEL ...") whose r_op it did not. *whole: the section is carried whole. */
static bool line_carried(const rtm_board_t *b, const rtm_calib_record_t *rec, const char *sect_name,
                         const line_t *l, bool *whole)
{
    char w[96], key[128];
    const bool note = strcmp(sect_name, "notes") == 0;
    *whole = false;
    if (l->len < 5 || strncmp(l->p, "#   ", 4) != 0 || !word_at(l, 4, w, sizeof(w)))
        return false;
    const int si = sect_of(b, note ? w : sect_name);
    if (si == INT32_MIN)
        return false;
    const sect_t x = sect_at(b, rec, si);
    if (!sect_measured(&x)) {
        *whole = true;
        return true;
    }
    if (!note)
        return !fig_measured(&x, w);
    /* a kernel's note: the word after "SECT: " or "SECT (...): " */
    const char *colon = memchr(l->p + 4, ':', l->len - 4);
    if (!colon || (size_t)(colon - l->p) + 2 >= l->len ||
        !word_at(l, (size_t)(colon - l->p) + 2, w, sizeof(w)) || !rtm_kernel_find(w))
        return false;
    snprintf(key, sizeof(key), "kernels.%s.r_op", w);
    return !fig_measured(&x, key);
}

/* Reads the base profile at `path` (NULL: none) into br; its record may be absent. */
static void base_read(const char *path, base_rec_t *br)
{
    memset(br, 0, sizeof(*br));
    if (!path)
        return;
    size_t len = 0;
    br->text = rtm_os_read_file(path, 0, &len);
    if (!br->text)
        return;
    const char *rec = strstr(br->text, "\n# ---- calibration record");
    br->from = rec ? rec + 1 : NULL;
    /* "# Made by: CMD\n# on DATE; devices" -> "Made by: CMD, on DATE" */
    line_t a, d;
    size_t at = 0;
    if (strncmp(br->text, "# Made by: ", 11) == 0 && next_line(br->text, &at, &a) &&
        next_line(br->text, &at, &d) && d.len > 5 && strncmp(d.p, "# on ", 5) == 0)
        snprintf(br->made, sizeof(br->made), "%.*s, on %.*s", (int)(a.len - 2), a.p + 2,
                 (int)strcspn(d.p + 5, ";\n"), d.p + 5);
}

/* Writes the base record's lines of section `name` (figures, or with "notes" the notes)
 * that are carried (line_carried: whole = 1 only those of whole sections, 0 only those of
 * sections this run measured), each with `mark` after it; returns how many. */
static uint32_t base_put(FILE *f, const base_rec_t *br, const rtm_board_t *b,
                         const rtm_calib_record_t *rec, const char *name, int whole,
                         const char *mark)
{
    if (!br->from)
        return 0;
    char in[96] = "";
    line_t l;
    uint32_t n = 0;
    size_t at = (size_t)(br->from - br->text);
    while (next_line(br->text, &at, &l)) {
        char head[96];
        if (sect_head(&l, head, sizeof(head))) {
            snprintf(in, sizeof(in), "%s", head);
            continue;
        }
        bool w = false;
        if (strcmp(in, name) != 0 || !line_carried(b, rec, in, &l, &w) || (int)w != whole)
            continue;
        if (f)
            fprintf(f, "%.*s%s\n", (int)l.len, l.p, mark);
        n++;
    }
    return n;
}

/* The mark of a figure carried from the base profile into a section this run measured. */
#define BASE_MARK "  (base profile)"

static void put_record(FILE *f, const rtm_board_t *b, const rtm_calib_record_t *rec,
                       const base_rec_t *br)
{
    fprintf(f, "\n# ---- calibration record (comments; rtmgr does not read them) ----\n"
               "# Every figure: %d repetitions after one warm-up (a GPU's kernel points: "
               "warm-up jobs of %.0f ms);\n# samples farther than 3 x 1.4826 x MAD from the "
               "median dropped (none when that would drop half);\n# the median kept. spread = (max - min) / median of the kept samples. Fitted "
               "parameters (transfers,\n# cw/dispatch, per-kernel r_op): spread = largest "
               "spread of the points fitted, fit\n# residual = largest relative misfit at "
               "those points. Run took %.1fs.\n",
            REPS, RTM_CALIB_WARM_S * 1e3, rec->seconds);
    uint32_t carried = 0;
    for (int s = -1; s < (int)b->n_devs; s++)
        for (int whole = 0; whole < 2; whole++)
            carried += base_put(NULL, br, b, rec, sect_at(b, rec, s).name, whole, "");
    const uint32_t notes_carried = base_put(NULL, br, b, rec, "notes", 1, "") +
                                   base_put(NULL, br, b, rec, "notes", 0, "");
    if (carried + notes_carried)
        fprintf(f, "# What this run did not measure is carried over from the base profile's "
                   "record: the\n# sections headed \"(the base profile's)\", the figures marked "
                   "\"(base profile)\" and the notes\n# under \"notes carried over\". The base "
                   "profile: %s.\n",
                br->made[0] ? br->made : "its head not found");
    char what[160];
    for (int s = -1; s < (int)b->n_devs; s++) {
        const sect_t x = sect_at(b, rec, s);
        if (!sect_measured(&x)) {
            if (base_put(NULL, br, b, rec, x.name, 1, "")) {
                fprintf(f, "# %s: (the base profile's)\n", x.name);
                base_put(f, br, b, rec, x.name, 1, "");
            }
            continue;
        }
        fprintf(f, "# %s:\n", x.name);
        for (int p = 0; p < x.n; p++) {
            const char *u;
            double sc;
            unit_of(x.units[p], &u, &sc);
            put_fig(f, x.keys[p], &x.fig[p], x.param[p], u, sc);
        }
        for (uint32_t k = 0; k < rtm_kernel_count(); k++) {
            snprintf(what, sizeof(what), "kernels.%s.r_op", rtm_kernel_at(k)->name);
            put_fig(f, what, &x.kfig[k], x.ktune[k].r_op, "ns", 1e9);
        }
        base_put(f, br, b, rec, x.name, 0, BASE_MARK);
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
    if (notes_carried) {
        fprintf(f, "# notes carried over from the base profile:\n");
        base_put(f, br, b, rec, "notes", 1, "");
        base_put(f, br, b, rec, "notes", 0, "");
    }
}

rtm_status_t rtm_calib_save(const rtm_board_t *board, const rtm_calib_record_t *rec,
                            const char *command, const char *base, const char *path)
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
    char *body = rtm_os_read_file(body_path, 0, &len);
    unlink(body_path);
    if (!body)
        return RTM_E_IO;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        free(body);
        return RTM_E_IO;
    }
    char date[32];
    rtm_calib_iso_now(date, sizeof(date));
    fprintf(f, "# Made by: %s\n# on %s", command ? command : "rtmgr calibrate", date);
    for (uint32_t i = 0; i < board->n_devs; i++)
        fprintf(f, "%s %s (%s, driver %s)", i ? "," : ";", board->dev[i].device,
                board->dev[i].platform, board->dev[i].driver);
    fprintf(f, "\n# Measured with the seed-000 method (docs/calibration.md); the calibration "
               "record with\n# every figure's spread follows the profile. A driver or device "
               "change makes rtmgr warn\n# \"board profile stale: recalibrate\".\n");
    fputs(body, f);
    free(body);
    if (rec) {
        base_rec_t br;
        base_read(base, &br);
        put_record(f, board, rec, &br);
        free(br.text);
    }
    const bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return RTM_E_IO;
    }
    return RTM_OK;
}
