/* calibint.h — what calibration's files share: calib.c (the run), calibfit.c,
 * calibdev.c, calibllc.c, calibbuild.c and calibcpu.c with each other (the last
 * section), and with validate.c (the calibration module's other half); not part of
 * rtmgr's API. Init-time tooling only. */
#ifndef RTM_CALIBINT_H
#define RTM_CALIBINT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builder.h"
#include "calib.h"
#include "kernel.h"
#include "os.h"
#include "pinned.h"
#include "pool.h"
#include "preempt.h"

/* Monotonic clock, seconds. */
double rtm_calib_now(void);

/* rtm_stats_summary of x[0..n) (sorted in place) into fig (may be NULL); the median. */
double rtm_calib_summary(double *x, size_t n, rtm_calib_fig_t *fig);

/* Appends one line to the record's notes; a line that does not fit whole is dropped
 * and counted (rec->notes_dropped). */
__attribute__((format(printf, 2, 3))) void rtm_calib_note(rtm_calib_record_t *rec,
                                                          const char *fmt, ...);

/* True when `name` is in the comma-separated `list` (NULL or "" = everything). */
bool rtm_calib_wanted(const char *list, const char *name);

/* Warm-up before a measured point (calibration on a GPU, validation everywhere): jobs
 * until they have run this long together, at least one, at most RTM_CALIB_WARM_MAX. An
 * idle gap (the previous instance's set-up) left the H100's first jobs slow: validation
 * with one warm-up job measured radix_sort at n = 131072 at 1.08 ms a kernel in all ten
 * jobs, 0.17 ms at n = 1 100 000, and the smallest images' transfers in 44 us long. */
#define RTM_CALIB_WARM_S 0.02
#define RTM_CALIB_WARM_MAX 200
/* Another warm-up job? After w of them that ran `warmed` seconds together, towards
 * warm_s (0: the first job alone). Safe anywhere. */
bool rtm_calib_warm_more(int w, double warmed, double warm_s);

/* A kernel instance with its host memory: its own (ordinary), or a device arena's
 * (pinned, as the runtime's instances of that device are: pinned.h). */
typedef struct {
    rtm_kinst_t k;
    void *mem;
    size_t bytes;
    bool borrowed; /* mem is an arena's (rtm_calib_inst_make_in): not freed here */
    void *init_mem; /* one allocation for init[] */
    const void *init[RTM_KBUF_MAX]; /* what the fill left in each INOUT buffer that changes
                                     * the work (not RTM_KF_NO_STATE); NULL elsewhere */
} rtm_calib_inst_t;

/* Pinned host memory of one device that calibration's and validation's instances use
 * one after another, grown when an instance needs more (to twice its size at least,
 * within `cap`): pinning, mapping and zeroing up to 1.3 GB afresh for every point was
 * most of the H100's per-kernel calibration time ("instances made and freed" 5.5 s of
 * its 9.4 s). */
typedef struct {
    rtm_ocl_dev_t *dev;
    size_t cap;        /* it grows to at most this (0: what a point needs, no more) */
    bool eager;        /* its first make takes the whole cap (growing five times to
                        * 2 GiB, 3.7 GiB pinned in all, took the H100 machine 2.7 s) */
    rtm_pinned_t pin;
    uint32_t grows;    /* times it was (re)made, and the seconds that took (notes) */
    double grow_s;
} rtm_calib_arena_t;
/* An empty arena of device `dev` growing to `cap` bytes; eager on all but CPU devices
 * (PoCL's "pinned" memory is plain memory: grown as needed). */
void rtm_calib_arena_init(rtm_calib_arena_t *a, rtm_ocl_dev_t *dev, size_t cap);
void rtm_calib_arena_free(rtm_calib_arena_t *a);

/* Plans kernel `kern` at `size` (by key index) and `tune`, allocates and binds its
 * buffers (ordinary memory) and fills the inputs from `seed`. Free with
 * rtm_calib_inst_free even on failure. */
rtm_status_t rtm_calib_inst_make(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                                 const int64_t *size, rtm_tune_t tune, uint64_t seed);
/* The same in arena a's memory (zeroed, then filled as a fresh instance is; ordinary
 * memory of its own when the arena cannot grow). */
rtm_status_t rtm_calib_inst_make_in(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                                    const int64_t *size, rtm_tune_t tune, uint64_t seed,
                                    rtm_calib_arena_t *a);
void rtm_calib_inst_free(rtm_calib_inst_t *in);
/* One timed job of `in` that computes the job its fill made, as the manager's jobs do
 * (exec.c): its state buffers put back first (outside the time), then the job on the
 * pool (rtm_calib_pool_time) or through the executor (rtm_kexec_run). Every timed job of
 * calibration and validation goes through these. */
rtm_status_t rtm_calib_inst_time(rtm_pool_t *pool, rtm_calib_inst_t *in, double *seconds);
/* Only the putting back (before a timed run of part of a job). Safe anywhere. */
void rtm_calib_inst_reset(rtm_calib_inst_t *in);
rtm_status_t rtm_calib_inst_run(rtm_kexec_t *ex, rtm_calib_inst_t *in, rtm_kexec_timing_t *t);

/* Memory limits of one instance: largest buffer, all buffers together (bytes). */
typedef struct {
    double max_buf;
    double max_total;
} rtm_calib_lim_t;

/* A predicted time (seconds) of a planned instance; negative when unknown. */
typedef double (*rtm_calib_pred_fn)(const void *ctx, const rtm_kinst_t *k);

/* Sizes of kernel `kern` (other keys at their defaults) whose first key is the smallest
 * value predicted to reach `target` seconds, within the key's range (not below an
 * eighth of its default, nor below min_key when > 0) and `lim`, rounded to two
 * significant digits (so that sizes repeat from run to run); then the nearest value
 * of that parity (0 even, 1 odd, -1 any) that plans and is not in avoid[0..navoid).
 * Writes every key into size[]; returns the first key's value, or -1 when nothing
 * plans. A kernel without keys gets its one size (0). */
int64_t rtm_calib_size_for(const rtm_kernel_t *kern, rtm_tune_t tune, double target,
                           rtm_calib_pred_fn pred, const void *ctx, const rtm_calib_lim_t *lim,
                           int parity, int64_t min_key, const int64_t *avoid, uint32_t navoid,
                           int64_t *size);

/* One calibration point of a kernel, as the fit sees it: the extended model's kernel
 * time there is b + W with W = a * r + m * r_byte (a, b from the model itself, r the
 * kernel's own) while the device bounds every launch; ws the job's buffer bytes
 * (bytes_ws, scratch included), m its bytes_dev, x its operation count, t the measured
 * time (seconds). A job of L > 1 launches whose host paces them takes bp + W / L instead
 * (model.c's launches_span: the larger of the two; L = RTM_MODEL_PACED_FLAT where idle
 * launches end the job: a flat line); L <= 1: one line. Points sorted by
 * ws. g, res: as kpoint_t's. */
typedef struct {
    double ws, a, b, m, x, t, L, bp;
    double g, res; /* kpoint_t's (0: no resident form) */
} rtm_calib_fitpt_t;

/* The per-kernel terms of the extended model (rtm_board_ktune_t's) a fit gives, and its
 * largest relative residual at the points. */
typedef struct {
    double r, t_fixed, r_big, r_miss, knee, r_byte, p_ops, x_ref, resid, resident;
} rtm_calib_fit_t;

/* A second regime's time per operation (r_big, r_miss) lies within this factor of r_op,
 * either way: it is a cache's or a TLB's (the H100's fitted regimes were 1.1-5.2x); a form
 * that needs more is fitting one point, not a regime. */
#define RTM_CALIB_REGIME_MAX 16.0

/* calibfit.c's per-kernel fit (forms and rules in its comment): a second regime (r_big
 * or r_miss) has its knee at `cache` (bytes, 0 = unknown) when the cache lies between
 * the two sizes around it, and its r within RTM_CALIB_REGIME_MAX of r_op. False when no
 * form fits with every term >= 0 and r > 0 (the caller then falls back, loudly). */
bool rtm_calib_fit(const rtm_calib_fitpt_t *p, uint32_t n, double cache, rtm_calib_fit_t *out);

/* The smallest first key of `kern` (other keys at their defaults, `tune`) of the given
 * parity (0 even, 1 odd, -1 any) whose buffers (bytes_ws, scratch included) exceed
 * `cache` bytes and fit `lim`, into size[]; -1 when none. */
int64_t rtm_calib_past_cache(const rtm_kernel_t *kern, rtm_tune_t tune, double cache,
                             const rtm_calib_lim_t *lim, int parity, int64_t *size);

/* The CPU pool's overheads from no-op runs: t[i] the time of one launch of per[i] * n
 * no-op blocks (n workers; per ascending), t_multi the time of one job of `launches`
 * back-to-back launches of n blocks. dispatch (per block a worker runs) = the slope
 * between the two longest runs, where every worker contends for the next block as in a
 * job of thousands of blocks (a short run is partly one worker's alone while the others
 * still wake); cw (per launch) = t_multi / launches - dispatch, the wake and join as
 * multi-launch jobs and back-to-back jobs see them. False, outputs unset, with fewer
 * than two runs or when either comes out <= 0. */
bool rtm_calib_pool_fit(const double *per, const double *t, uint32_t n, double t_multi,
                        uint32_t launches, double *cw, double *dispatch);

/* Wall time of one whole job of k on the pool (monotonic clock around the run): what
 * the model-error log records for the CPU. */
rtm_status_t rtm_calib_pool_time(rtm_pool_t *pool, const rtm_kinst_t *k, double *seconds);

/* ---- the device's last-level cache, measured (calibllc.c; calibdev.c's dev_llc) ------
 * A read sweep (rtm_calib_sweep in calibdev.c's probe source) over working sets S from
 * min_bytes to max_bytes in steps of sqrt(2): each launch reads about launch_bytes
 * (passes = launch_bytes / S, at least 1) with up to cus * 2048 work-items, each reading
 * at least 4 uint4 per pass; one warm-up launch, then `reps` event-profiled launches
 * (START->END) per size, the median kept: seconds per byte read, t(S). Init-time
 * tooling only (allocates, builds, blocks on the device). */
#define RTM_CALIB_LLC_MAX 32 /* sizes of one curve at most */

typedef struct {
    double min_bytes, max_bytes; /* working-set range (max clipped to the device's limits) */
    double launch_bytes;         /* bytes one launch reads */
    uint32_t reps;               /* timed launches per size (after one warm-up), >= 1 */
    bool shared;                 /* each pass moves every line to another work-group (a
                                  * line read by many compute units, as matrix_mul's B),
                                  * else each work-item reads the same lines every pass */
} rtm_calib_llc_opts_t;

/* The curve: size[i] bytes (increasing, each a whole number of uint4 per work-item),
 * t[i] seconds per byte (median), spread[i] of its launches, wall seconds it took. */
typedef struct {
    uint32_t n;
    double size[RTM_CALIB_LLC_MAX];
    double t[RTM_CALIB_LLC_MAX];
    double spread[RTM_CALIB_LLC_MAX];
    double seconds;
} rtm_calib_llc_curve_t;

/* calibrate's options on a GPU: 1 MiB .. 512 MiB, 1 GiB a launch, 5 reps, shared lines. */
rtm_calib_llc_opts_t rtm_calib_llc_defaults(void);

/* Measures the curve on device d with its program `probe` (calibdev.c's probe source
 * built for d; NULL: builds it here). Errors: the OpenCL call's status (the caller
 * keeps the reported cache size, loudly). */
rtm_status_t rtm_calib_llc_curve(rtm_ocl_dev_t *d, cl_program probe, const rtm_calib_llc_opts_t *o,
                                 rtm_calib_llc_curve_t *out);

/* The cache a curve shows. t_fast = the smallest t, t_slow = t at the largest size;
 * when t_slow / t_fast < RTM_CALIB_LLC_STEP there is no visible cache (false). Else the
 * cache is where t crosses t_mid = sqrt(t_fast * t_slow) (the geometric midpoint: the
 * same in time per byte and in bytes per second, and below the arithmetic one, so it
 * marks the cliff's start rather than its end): the largest size still below t_mid
 * (lo) and the next one (hi = lo + 1, at or above it), interpolated geometrically in S
 * (linearly in log t against log S). Pure function; sizes increasing. */
#define RTM_CALIB_LLC_STEP 1.25
typedef struct {
    double cache;                 /* bytes */
    double t_fast, t_slow, t_mid; /* seconds per byte */
    uint32_t lo, hi;              /* the sizes straddling the cliff (indices) */
} rtm_calib_llc_knee_t;
bool rtm_calib_llc_knee(const double *size, const double *t, uint32_t n, rtm_calib_llc_knee_t *out);

/* Wall time of a run of the first part * n blocks (n = the pool's workers) of one-launch
 * job k on the pool: part blocks per worker, handed out as in the whole job. Allocates
 * (calibration only). RTM_E_ARG for a multi-launch job or more blocks than it has. */
rtm_status_t rtm_calib_pool_time_part(rtm_pool_t *pool, const rtm_kinst_t *k, uint32_t part,
                                      double *seconds);

/* The whole job's time from such a run's t_part: cw + (t_part - cw) * ceil(blocks /
 * workers) / part (one launch's wake and join once, the workers' blocks in proportion). */
double rtm_calib_part_scale(double t_part, double cw, uint32_t blocks, uint32_t workers,
                            uint32_t part);

/* The launch pace a multi-launch kernel keeps after its calibration points: `bound` is
 * the most the points allow, min over points of (t - kernel_fixed) / (launches - 1).
 * Only a measured pace RTM_CALIB_PACE_OUTLIER times the bound or more is an outlier
 * (session 13: the H100 host once enqueued sort's launches at 112 us where its points
 * ran at 12 us) and is lowered to the bound; within that, the measured pace stays. The
 * host's pace is not a constant: jobs of the same grid_path instance took 1.1-2.0 ms
 * (9-15 us a launch, H100 session 28), and lowering to the fastest point's moment put
 * validation's host-paced sizes at -10 to -31 % (grid_path widths 64 and 96, sort and
 * radix_sort at n = 131 072). */
#define RTM_CALIB_PACE_OUTLIER 1.5
double rtm_calib_pace_keep(double t_next, double bound);

/* Whether a kernel's smallest point is measured again (the lower time kept): with two
 * points or more always; a kernel's only point when its jobs (t each, reps + a warm-up)
 * take under RTM_CALIB_REMEASURE_ONE_S. A first point follows its program's load and can
 * come out slow as a whole: the H100's cpa_tcpa, one point at 16 001 targets, measured
 * 8.3 us in one calibration and 13.0 us in the next on the same machine, and its r_op
 * came out 43.8 ns and 129 ns (session 29). */
#define RTM_CALIB_REMEASURE_ONE_S 0.25
bool rtm_calib_remeasure_wanted(uint32_t n, double t, int reps);

/* A hole in the range a kernel's calibration targets span on the CPU pool: the points
 * measured for them sit about 4-5x apart in time, and two neighbours RTM_CALIB_GAP_RATIO
 * apart or more mean a target was missed, which a point at the geometric mean of the two
 * times fills. A fixed cost makes the first targets collapse onto one size: the H100
 * host's cpa_pairs (0.25 ms of it) had points at 0.31, 0.33, 0.34, then 3.4 and 17 ms,
 * and validation came out 44-56 % under at 870-980 ships in three runs of four (session
 * 29). rtm_calib_gap_at: in times t[0..n) sorted ascending, the index of the lower end of
 * the widest such hole, -1 when there is none. */
#define RTM_CALIB_GAP_RATIO 8.0
int rtm_calib_gap_at(const double *t, uint32_t n);
/* Repetitions of the point that fills such a hole, for a job of job_s there: on the CPU
 * pool RTM_CALIB_REPS; on an OpenCL device (session 40) only a hole across the cache's
 * edge is filled (gap_point), and only where its size runs a program already measured
 * (own_program false: a new one is a build on the path, PoCL's 0.3-1 s) and its jobs fit
 * RTM_CALIB_GAP_BUDGET_S (then as many as fit, at most RTM_CALIB_REPS, at least
 * RTM_CALIB_GAP_MIN_REPS); 0 = not measured. The H100's sort had target points at 0.28,
 * 0.77 and 36 ms (its time budget spent after the third) with the cache's edge between,
 * and validation's n = 4 000 000-4 200 000 came out 13-21 % under in four validations of
 * four (session 39). */
#define RTM_CALIB_GAP_BUDGET_S 0.1
#define RTM_CALIB_GAP_MIN_REPS 3
int rtm_calib_gap_reps(bool cpu, bool own_program, double job_s);

/* The host's load over a phase of calibration or validation: CPU time that neither this
 * process nor its waited-for workers used (other processes, interrupts) and time the
 * hypervisor stole, in cores. The H100 host once calibrated its CPU with a pthread
 * barrier round of 60 us (spread 104 %) against 20 us (11 %) another time, sort's r_op
 * 2.8x, and validation then came out 33 % off: figures from a busy host are wrong, and
 * say so. A mark: the host's counters at one moment and this run's own CPU time. */
typedef struct {
    rtm_os_cpu_times_t t;
    double self_s, at;
    bool ok;
} load_mark_t;
/* The mark now; `extra_self`: CPU seconds of workers this run waits for (its own load). */
void rtm_calib_load_mark(load_mark_t *m, double extra_self);
/* From m0 to m1: wall seconds, and the cores other processes and interrupts took (less
 * the counters' tick at either end of each CPU's count) and the hypervisor stole. False
 * when either mark or the interval is unknown. */
bool rtm_calib_load_since(const load_mark_t *m0, const load_mark_t *m1, double *wall,
                          double *others, double *steal);
/* Other processes' or the hypervisor's share of the host (cores) above which a section's
 * figures are suspect: calibration warns (cal_load_note), validation says so on its log. */
#define RTM_CALIB_LOAD_WARN_CORES 0.5

/* ---- calibrate's own files ------------------------------------------------------------
 * What calib.c (the run), calibfit.c (a kernel's points and fit), calibdev.c (an OpenCL
 * device), calibllc.c (the cache sweep), calibbuild.c (program builds) and calibcpu.c
 * (the CPU pool) share; validate.c and the benchmarks use none of it. Functions on the
 * run's context (cal_t) are cal_*, the others rtm_calib_*. */

#define REPS RTM_CALIB_REPS
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* A catalogue kernel's share of its section's time, seconds: at least KERNEL_MIN_S, at
 * most KERNEL_MAX_S (calib.c's RUN_BUDGET_S). */
#define KERNEL_MIN_S 0.15
#define KERNEL_MAX_S 2.0
/* The inputs' seed of a kernel's first point (the j-th gets POINT_SEED0 + j). */
#define POINT_SEED0 3
/* Programs built ahead of a kernel's points (kf->prebuild) at most per call. */
#define AHEAD_MAX 16
/* Prebuilt sizes kept per kernel: the later targets' and the ladder's. */
#define PRE_KEYS_MAX 16
/* Tuning candidates of one sweep phase at most (rtm_calib_sweep_cands). */
#define SWEEP_CAND_MAX 6

/* The context of one run (calib.c's rtm_calib_run). */
typedef struct {
    const rtm_calib_opts_t *o;
    rtm_calib_record_t *rec;
    const double *targets;
    size_t n_targets;
    double t0;        /* start of the run */
    double deadline;  /* end of the section being calibrated (device or CPU) */
    double barrier_s; /* CPU barrier round, measured with the micro-kernels */
    double cpu_knee;  /* bytes: the CPU pool's private caches together
                       * (rtm_calib_host_private) */
    double past_s;    /* seconds the points past the cache took in this section */
    /* where the run's time went (the summary line): program builds (compiled from
     * source, in the measurement's kexecs and in the parallel prebuilds) and binary
     * loads from rtmgr's cache; the build-time figure c (dev_build) apart */
    double build_s, load_s, prebuild_s, cfig_s;
    uint32_t n_built, n_loaded, n_prebuilt;
    /* build workers building in the background of other devices' measurements (their
     * CPU time is this run's: cal_load_mark) */
    const rtm_builder_t *bg[RTM_MAX_DEVICES];
    uint32_t n_bg;
    /* devices follow the CPU section: passes the host disturbed there are run again after
     * them (calibcpu.c), on the CPU pool's kernels kept in cpu_late (NULL: none) */
    bool cpu_defer;
    struct cpu_late *cpu_late;
    /* the run's time limit (opts.time_limit): monotonic time past which no kernel is
     * measured (0: no limit); the kernels (and device ends, DEV_TAIL_KERNELS) of the later
     * sections the current one leaves time for (calib.c: not a CPU-type device's after
     * the GPUs, which takes what they leave); every kernel squeezed whatever the time
     * (RTM_CALIB_SQUEEZE=1, fault injection) */
    double limit_end;
    uint32_t kernels_after;
    bool squeeze_all;
    /* with --kernels: the base profile's devices as they were before the run (NULL:
     * none), n_base of them, for cal_keep_basis */
    const rtm_board_dev_t *base_dev;
    uint32_t n_base;
} cal_t;

/* What the run's time limit leaves a kernel: its full calibration, two points (no sweep,
 * poll search, extra, gap, cache or shape point; cal_limit), or nothing. */
typedef enum { CAL_FULL = 0, CAL_SQUEEZED, CAL_SKIPPED } cal_limit_t;
/* A squeezed kernel's time, seconds, for cal_limit's projection: two points, each a
 * warm-up and REPS jobs, at the smallest and the largest target (20 ms), their programs'
 * loads and instances (PoCL on the H100 host: 0.03-0.13 s at its two smallest, grid_path
 * 1.5-2.6 s, sort and radix_sort 0.4-0.9 s, session 56). */
#define SQUEEZED_KERNEL_S 0.7
/* A squeezed kernel's points: its smallest and largest targets, the least a fit of r and
 * t_fixed takes. */
#define SQUEEZED_POINTS 2
/* A device section's end in squeezed kernels, for the projection: its abort response (2
 * transports x REPS spin kernels of about 20 ms, and their programs) and its late pace
 * and transfer samples (the H100: 0.9-1.4 s; session 56's busy run reached the limit
 * at PoCL's abort without it). */
#define DEV_TAIL_KERNELS 2
/* Seconds of the limit kept for the run's end: the devices closed, their build workers
 * stopped, the CPU pool's fits. */
#define LIMIT_RESERVE_S 1.0
/* What the limit leaves the current section's kernel with `left` of its kernels (this
 * one included) still to measure: skipped past c->limit_end, squeezed where the time to
 * it does not pay for the section's kernels left and c->kernels_after at
 * SQUEEZED_KERNEL_S each, else full. */
cal_limit_t cal_limit(const cal_t *c, uint32_t left);
/* A kernel the limit skipped (owner "cpu" or a device's name; kt its terms as they stand):
 * counted, and a FALLBACK note saying which terms predict it (a base profile's fit, or
 * none). */
void cal_limit_skip(cal_t *c, const char *owner, const char *kernel, const rtm_board_ktune_t *kt);

/* The private (L2) caches of `workers` host cores together, bytes; 0 when unknown. */
double rtm_calib_host_private(uint32_t workers);
/* The time one kernel may take now, `left` kernels (this one included) still to do. */
double cal_kernel_budget(const cal_t *c, uint32_t left);
/* Catalogue kernels the per-kernel part covers. */
uint32_t cal_kernels_wanted(const cal_t *c);
/* Appends one formatted item to buf (len bytes, *used taken) when it fits whole. */
__attribute__((format(printf, 4, 5))) bool rtm_calib_appendf(char *buf, size_t len, size_t *used,
                                                             const char *fmt, ...);
/* One line of the run's notes (rtm_calib_note into c->rec). */
__attribute__((format(printf, 2, 3))) void cal_note(cal_t *c, const char *fmt, ...);
/* One progress line on the run's log (opts.log; nothing without one). */
__attribute__((format(printf, 2, 3))) void cal_say(const cal_t *c, const char *fmt, ...);
/* A figure that took a default: a warning on stderr, a FALLBACK note, counted. */
__attribute__((format(printf, 2, 3))) void cal_fallback(cal_t *c, const char *fmt, ...);
/* The host's load now, into *m (this run's build workers counted as its own). */
void cal_load_mark(const cal_t *c, load_mark_t *m);
/* Notes the host's load since *m0 for `what`, and warns when it was busy. */
void cal_load_note(cal_t *c, const char *what, const load_mark_t *m0);
/* With --kernels, on a device the base profile had: its waves and per-launch terms put
 * back to the base's where they moved (the kept kernels' fits were made against them),
 * warned and noted; `late`: at the device's end (calib.c). */
void cal_keep_basis(cal_t *c, int di, rtm_board_dev_t *bd, bool late);
/* The UTC time now, "YYYY-MM-DDTHH:MM:SSZ" (a profile's `measured`). */
void rtm_calib_iso_now(char *buf, size_t len);

/* ---- a kernel's points and fit (calibfit.c) ------------------------------------------ */

/* One calibration point of a kernel: the extended model's kernel time there, without
 * the kernel's own fixed term and regimes, is b + a * r (+ m * r_byte) where the device
 * bounds every launch, bp + (a * r + m * r_byte) / L where the host paces a job's L > 1
 * launches, the larger of the two (a, b, bp from the model itself; rtm_calib_fitpt_t);
 * measured t; ws = the job's buffer bytes (bytes_ws, scratch included). */
typedef struct {
    int64_t key;
    double a, b, ws, m, x, t, spread; /* x: the job's operation count (p_ops) */
    int reps;
    uint32_t part; /* measured on its first `part` blocks per worker (0: whole jobs) */
    double L, bp;  /* the host-paced line's divisor of the work and its b: the job's
                    * launches where each carries work, RTM_MODEL_PACED_FLAT where idle
                    * ones end it (rtm_model_paced_launches); <= 1: one line */
    double g, res; /* GPU-like devices: the work-groups of the busiest compute unit, and the
                    * resident groups a was taken at (the device's); 0: not known, no
                    * resident form in the fit */
    double busy;   /* the launches that do the work (cost.launches_busy: the map's own for
                    * grid_path), which the lines are taken again with (pace_cap) */
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
    /* the model's lines at instance k: a, b (the device bounds every launch) and bp
     * (the host paces them; = b where it cannot) */
    bool (*coef)(const void *ctx, const rtm_kinst_t *k, double *a, double *b, double *bp);
    rtm_status_t (*measure)(void *ctx, rtm_calib_inst_t *in, int reps, double *t,
                            rtm_calib_fig_t *f);
    /* optional (NULL: none, as on the CPU pool and CPU devices): instance k's work-groups on
     * its busiest compute unit (*g) and the resident groups the model's a counts them at
     * (*res), for the fit's resident form; false when not known */
    bool (*groups)(const void *ctx, const rtm_kinst_t *k, double *g, double *res);
    /* optional (NULL: none): the whole job's time estimated from runs of its first
     * `part` blocks per worker (one-launch kernels whose whole job is too long) */
    rtm_status_t (*measure_part)(void *ctx, rtm_calib_inst_t *in, int reps, uint32_t part,
                                 double *t, rtm_calib_fig_t *f);
    /* whether measure_part stands in for a whole job: trusted (the default: the CPU
     * pool, GPUs), or, on a CPU device, checked against a whole job before the first
     * partial point and then trusted or refused (PoCL 5 on the H100 host ran matrix_mul's
     * first blocks 1.2-2x and matrix_loop_add's 1.1-3.3x slower than their share, PoCL
     * 3.1 here within 1 %: calibfit.c, part_check) */
    enum { KFIT_PART_TRUSTED = 0, KFIT_PART_CHECK, KFIT_PART_REFUSED } part;
    void *ctx;
    double deadline; /* monotonic time after which no point beyond the third is added */
    bool squeeze;    /* the run's time limit near (CAL_SQUEEZED): two points, nothing more */
    bool cpu;        /* the CPU worker pool (else an OpenCL device) */
    const char *who; /* the section the notes name: "cpu" or the device's name */
    bool host_dev;   /* an OpenCL device on the host's cores (PoCL): the pool's caches */
    double workers;  /* groups run at once: the pool's workers, a device's resident groups
                      * (measure_part's blocks are per worker) */
    rtm_calib_arena_t *arena; /* host buffers pinned on a device, as the runtime's (or NULL) */
    double cache;    /* bytes: the cache whose spill the fit's knee marks (0 = unknown) */
    double inst_s;   /* out: seconds spent making and freeing the points' instances */
    /* first keys whose programs were prebuilt for this kernel's later targets (size-built
     * programs): a target takes one whose predicted time is within PREBUILT_RATIO of it */
    int64_t pre_keys[24];
    uint32_t n_pre_keys;
    /* optional (NULL: every size runs one program): true when first keys a and b run
     * different programs (a device whose build options hold the size or its launch
     * shape; measuring b after a is then a build) */
    bool (*own_program)(void *ctx, const struct kfit *kf, int64_t a, int64_t b);
    /* optional (NULL: none): builds together what the cache lacks of the programs at
     * sizes[0..n) (first keys keys[]), adding those it holds then to pre_keys */
    void (*prebuild)(void *ctx, struct kfit *kf, const int64_t *keys,
                     const int64_t (*sizes)[RTM_SIZE_KEYS_MAX], uint32_t n);
} kfit_t;

/* True when one of keys[0..n) is key. */
bool rtm_calib_key_in(const int64_t *keys, uint32_t n, int64_t key);
/* Plans kern at first key key0 (others default) and tune into *k; true when it fits lim. */
bool rtm_calib_size_plan(const rtm_kernel_t *kern, int64_t key0, rtm_tune_t tune,
                         const rtm_calib_lim_t *lim, rtm_kinst_t *k);
/* Runs of a point after its warm-up run took first_s: fewer than `reps` when long. */
int rtm_calib_reps_after_warmup(double first_s, int reps);
/* The order nt targets are measured in (first, middle, last, the others); how many. */
size_t rtm_calib_target_order(size_t nt, size_t *order, size_t max);
/* Kernel kf->kern's points on kf's executor into pts[0..*n) (room for max), by size. */
rtm_status_t rtm_calib_kernel_points(cal_t *c, kfit_t *kf, kpoint_t *pts, uint32_t max,
                                     uint32_t *n);
/* Fits and stores one kernel's points: ktune, figure, note (r_fallback when none fits). */
void rtm_calib_kernel_store(cal_t *c, const char *owner, const rtm_kernel_t *kern,
                            rtm_tune_t tune, const kpoint_t *pts, uint32_t n, double cache,
                            double r_fallback, const char *r_what, rtm_board_ktune_t *kt,
                            rtm_calib_fig_t *f);

/* ---- an OpenCL device (calibdev.c) --------------------------------------------------- */

/* One program to build into the binary cache (a sweep candidate, a point's size, a poll
 * period's build): by a build worker (builder.h), else in a thread of its own. */
typedef struct {
    rtm_ocl_dev_t *d;
    rtm_build_job_t j;
    const char *cache;
} prebuild_t;

/* One OpenCL device's calibration state. */
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
    /* the background batch (rtm_calib_dev_prebuild_all's `send`): jobs queued, when, and
     * the workers' CPU seconds then */
    uint32_t bg_sent;
    double bg_t0, bg_cpu0;
    bool ladder; /* prebuild_list adds the ladder (LADDER_STEP): a background batch's */
    /* a GPU's catalogue programs queued to its build workers without a wait
     * (rtm_calib_dev_prebuild_all, malloc'd): each kernel waits for its own
     * (rtm_calib_dev_kernel_ready); how many, and the seconds the kernels waited */
    prebuild_t *queued;
    uint32_t n_queued, queued_cap; /* entries, and room for */
    double queued_wait_s;
    /* where each kernel's sweep runs: in dev_kernel (default), or in a first pass over the
     * catalogue before its points' programs are queued (prebuild_list; FIRST until done,
     * then SWEPT with the tuning it chose and its note; a loop-polling kernel POLL between
     * the two: swept, its poll search's programs queued, the search and the queue of its
     * points' programs at the period it chooses to come; a SWEPT one has searched) */
    enum { KSWEEP_INLINE = 0, KSWEEP_FIRST, KSWEEP_POLL, KSWEEP_SWEPT } sweep[RTM_MAX_KERNELS];
    rtm_tune_t swept_tune[RTM_MAX_KERNELS];
    char swept_note[RTM_MAX_KERNELS][240];
    /* the transfer spans the fit is made from (calibdev.c dev_transfers): sizes x, jobs
     * of 1 and 2 buffers in (w) and out (r), their largest spread */
    struct {
        double x[16], w[2][16], r[2][16], spread;
        size_t n;
    } xs;
    /* the pace probe (rtmgr/pace.h) beside each kernel's first t_next sample, by kernel
     * (0: none): dev_pace_late brings the samples to the probes' median with it */
    double pace_at[RTM_MAX_KERNELS];
} devcal_t;

/* True when x's device is a CPU-type OpenCL device (PoCL's); false for GPU-like ones. */
static inline bool rtm_calib_cpu_dev(const devcal_t *x)
{
    return (x->d->info.type & CL_DEVICE_TYPE_CPU) != 0;
}

/* Validation's sizes of the seed-000 kernels (first key n; the empty kernel's blocks of
 * an n x n grid), full and --quick (validate.c): sizes calibration never measures. */
#define RTM_CALIB_S0_N 3
extern const int64_t rtm_calib_s0_valid[RTM_CALIB_S0_N];
extern const int64_t rtm_calib_s0_valid_quick[RTM_CALIB_S0_N];

/* Prediction used to size instances: the extended model with a per-kernel r (no
 * memory term). */
typedef struct {
    const rtm_board_dev_t *bd;
    int ki;
    double r;
    bool total; /* total time, else kernel time */
    bool gpu;   /* a non-CPU device: its kernel time is that of the kernels alone where
                 * calibration measures them so (measure_alone: no host lead) */
} dpred_t;

/* Device x's kernel-time prediction context: kernel ki (-1: the profile's terms as they
 * stand) at r (0: none); a CPU-type device's points are whole jobs. */
static inline dpred_t rtm_calib_dpred(const devcal_t *x, int ki, double r)
{
    return (dpred_t){x->bd, ki, r, false, !rtm_calib_cpu_dev(x)};
}

/* A device's kfit_t context: the device and the kernel's index. */
typedef struct {
    devcal_t *x;
    int ki;
} dkctx_t;

/* The build-time figure c and the cache-load time of device d: matrix_add.cl at n = 64
 * (work-group `wg`) built `reps` times from source with a unique -D each (the driver's
 * own caches bypassed), then stored in a fresh cache directory and loaded REPS times.
 * One core's compiler work: thread-safe, no state of the run. */
typedef struct {
    rtm_status_t st;
    int reps, loaded;
    double tb[REPS], tl[REPS];
} bfig_t;

/* rtm_calib_build_figs of a CPU-type OpenCL device (PoCL) on a helper thread with a
 * context of its own, started before the run's GPUs are calibrated and joined in the
 * device's own section: the GPUs' figures are the devices' clocks and leave the host's
 * cores idle, and the compiler takes one of them (the H100 host: PoCL's c was 3.1 s of
 * its 60 s). */
typedef struct {
    rtm_ocl_info_t info;
    int reps;
    pthread_t th;
    bool started;
    double wall_s; /* the helper's time */
    bfig_t f;
} bahead_t;

/* One OpenCL device's calibration, in two sections: rtm_calib_dev_first (the device's
 * figures and matrix_mov's r_op, which sizes the rest) and rtm_calib_dev_rest (the
 * catalogue's kernels, the abort transport, the poll periods). rtm_calib_run runs a
 * CPU-type device's first section before the GPUs when there are both, so that its
 * catalogue's programs build in the background of the GPUs' measurements
 * (rtm_calib_dev_prebuild_all's `send`). */
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

/* A device's fitted transfer form: first command + (commands - 1) further ones + the
 * bytes' time at up to three marginal rates (s per byte): inv up to knee, inv2 to
 * knee2, inv3 beyond (knee 0: one rate; knee2 0: two at most; rtm_model_xfer_bytes). */
typedef struct {
    double first, next, inv;
    double knee, inv2;
    double knee2, inv3;
} rtm_calib_xfit_t;

/* The span the fit gives a job of `commands` commands (1 or more) moving `bytes`. */
double rtm_calib_xfit_span(const rtm_calib_xfit_t *f, double bytes, int commands);

/* Fits the transfer spans of jobs of one (y1) and two (y2) buffers each way at bytes x
 * (n sizes, ascending; y <= 0: not measured) to *fit, with a second rate beyond a knee
 * and a third beyond a second knee where each fits much better; *resid the worst
 * relative error (calibdev.c). */
void rtm_calib_xfer_fit(const double *x, const double *y1, const double *y2, size_t n,
                        rtm_calib_xfit_t *fit, double *resid);

/* Builds the calibration-only kernels (calibdev.c's probe source) for d into *out. */
rtm_status_t rtm_calib_build_probe(rtm_ocl_dev_t *d, cl_program *out);
/* Releases a buffer that may not have been made (NULL). */
void rtm_calib_release_mem(cl_mem m);
/* The extended model's time of k on the device with dpred_t ctx's r (rtm_calib_pred_fn). */
double rtm_calib_dev_pred(const void *ctx, const rtm_kinst_t *k);
/* Kernel ki's starting tuning and sizing prediction; true when a sweep has a choice. */
bool rtm_calib_kernel_start(const devcal_t *x, uint32_t ki, rtm_tune_t *tune, dpred_t *p);
/* The size a kernel's tuning sweep runs at, into size[]; false when none plans. */
bool rtm_calib_sweep_size(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune,
                          const dpred_t *p, int64_t *size);
/* True when the sweep's share of `budget` pays for two candidates at least, each
 * candidate's program costing prog_s (a build, or a load from the cache). */
bool rtm_calib_sweep_runs(const devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                          rtm_tune_t tune, const dpred_t *p, double budget, double prog_s);
/* A sweep phase's candidates (-1 the start, 0 work-groups, 1 widths) into cand[]; how many. */
uint32_t rtm_calib_sweep_cands(const devcal_t *x, const rtm_kernel_t *kern, int phase,
                               rtm_tune_t base, rtm_tune_t cand[SWEEP_CAND_MAX]);
/* Opens the device and measures its figures and matrix_mov (with_c: the figure c too). */
rtm_status_t rtm_calib_dev_first(cal_t *c, const rtm_ocl_info_t *info, rtm_board_dev_t *bd,
                                 int di, int ocl_index, devrun_t *r, bahead_t *ahead,
                                 bool with_c);
/* A device's catalogue's first programs queued to its build workers (background). */
void rtm_calib_dev_send(devrun_t *r);
/* The device's workers stopped, its memory freed, the device closed. */
void rtm_calib_dev_close(devrun_t *r);
/* The rest of a device's calibration after rtm_calib_dev_first, and the device closed. */
rtm_status_t rtm_calib_dev_rest(devrun_t *r, rtm_status_t st, bahead_t *ahead);

/* ---- program builds (calibbuild.c) --------------------------------------------------- */

/* Builds for the figure c: REPS, 5 with --quick. */
int rtm_calib_build_reps(const rtm_calib_opts_t *o);
/* The figure c of device d into *f (bfig_t). */
void rtm_calib_build_figs(rtm_ocl_dev_t *d, uint32_t wg, int reps, bfig_t *f);
/* A bahead_t's thread: rtm_calib_build_figs on a context of its own. */
void *rtm_calib_bahead_run(void *arg);
/* The host's online cores. */
uint32_t rtm_calib_host_cores(void);
/* Whether to build ahead at all (RTM_CALIB_PREBUILD, the host's cores). */
bool rtm_calib_prebuild_on(void);
/* The kexec options calibration runs instance k with on x's device: calibration's build
 * (rtm_kexec_calib_opts, the build the model's terms are fitted on) on the launch shape
 * the executive gives such a job (rtm_preempt_grid_opts: the fetched block id stored at
 * once where blocks outlast RTM_PREEMPT_LONG_BLOCK_S, chunks where they last
 * RTM_PREEMPT_CHUNK_MIN_S), from the profile's terms as they
 * stand (a kernel's own once fitted, before that the device's generic ones). */
rtm_kexec_opts_t rtm_calib_point_opts(const devcal_t *x, const rtm_kinst_t *k);
/* Does x's device search kern's in-loop poll period before its points (a GPU, a kernel
 * whose work-items loop-poll: rtm_preempt_loop_polls), and run its points with it? */
bool rtm_calib_gpu_loop_polls(const devcal_t *x, const rtm_kernel_t *kern);
/* The poll-period search's job for a GPU's loop-polling kernel kern (not spin, which sizes
 * its own) at tune, p the model as it stands: its sizes (size), the options of its
 * candidates' base (base: the launch shape the executive gives it), its predicted kernel
 * time (t_pred) and the periods the search measures (ks). Returns how many periods; 0
 * (base = calibration's options, t_pred 0) where there is no such job. The search and
 * the catalogue's batch (its programs built ahead) both ask it. */
uint32_t rtm_calib_poll_job(const devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune,
                            const dpred_t *p, int64_t size[RTM_SIZE_KEYS_MAX],
                            rtm_kexec_opts_t *base, double *t_pred,
                            uint32_t ks[RTM_PREEMPT_TUNE_MAX]);
/* Plans kern at size and tune into *pb (rtm_calib_point_opts); false when it does not
 * plan. */
bool rtm_calib_prebuild_entry(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                              rtm_tune_t tune, prebuild_t *pb);
/* Builds what pb[0..n) the cache lacks together (workers, else threads); pb keeps those. */
void rtm_calib_prebuild_many(devcal_t *x, prebuild_t *pb, uint32_t n);
/* How many of the n tunings of kern at size the binary cache lacks (all without one). */
uint32_t rtm_calib_uncached(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                            const rtm_tune_t *tunes, uint32_t n);
/* Builds the programs of n tuning candidates of kern at size together (a sweep's). */
void rtm_calib_prebuild(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                        const rtm_tune_t *tunes, uint32_t n);
/* kfit_t's own_program on a device (ctx: a dkctx_t). */
bool rtm_calib_dk_own_program(void *ctx, const kfit_t *kf, int64_t a, int64_t b);
/* kfit_t's prebuild on a device (ctx: a dkctx_t). */
void rtm_calib_dk_prebuild(void *ctx, kfit_t *kf, const int64_t *keys,
                           const int64_t (*sizes)[RTM_SIZE_KEYS_MAX], uint32_t n);
/* The programs of a device's catalogue built ahead (`send`: queued in the background). */
void rtm_calib_dev_prebuild_all(devcal_t *x, const rtm_kernel_t *skip, bool send);
/* A GPU's build workers started now, to open their contexts while the device's own
 * figures are measured (they build nothing yet); nothing on a CPU-type device. */
void rtm_calib_dev_workers_early(devcal_t *x);
/* What rtm_calib_dev_queue_points queues of a kernel: its poll search's programs, its
 * points' (at the poll period the device's record holds for it), or both. */
#define PRE_SEARCH 1u
#define PRE_POINTS 2u
/* Kernel ki's `what` programs at `tune`, queued behind the batch of
 * rtm_calib_dev_prebuild_all (a kernel of KSWEEP_FIRST, once swept; its points once its
 * poll search chose the period they run); nothing without it. */
void rtm_calib_dev_queue_points(devcal_t *x, uint32_t ki, rtm_tune_t tune, const dpred_t *p,
                                unsigned what);
/* True when kern's programs queued by rtm_calib_dev_prebuild_all are in the cache (with
 * `all`, every queued job done), or can no longer come (no workers, none pending). */
bool rtm_calib_dev_kernel_built(devcal_t *x, const rtm_kernel_t *kern, bool all);
/* Waits up to READY_POLL_MS for the build workers' next acknowledgement (counted as a
 * wait for programs queued ahead). */
void rtm_calib_dev_builds_poll(devcal_t *x);
/* Waits until kern's programs queued by rtm_calib_dev_prebuild_all are in the cache, with
 * `all` until every queued job is done (or the workers can build nothing more: the
 * measurement then compiles what is missing). */
void rtm_calib_dev_kernel_ready(devcal_t *x, const rtm_kernel_t *kern, bool all);

/* ---- a kernel's factor at one size (calibfit.c) --------------------------------------- */

/* One size's measured work over the fitted model's against the odd point's (ktune
 * `aligned`, `aliased`): each (t - fixed) / (fit - fixed), the size's over the point's
 * (the fit's own error there cancels). */
typedef struct {
    const char *owner;     /* "cpu" or a device's name */
    const char *term;      /* the ktune term: "aligned", "aliased" */
    const char *size_what; /* what sets the size apart: "rows aligned to 32 bytes" */
    const char *none_what; /* the fallback's subject: "aligned rows" */
    int64_t key;           /* the size measured (first key), its time, spread, jobs */
    double t, spread;
    int reps;
    double pred;           /* the fit's time there */
    const kpoint_t *p;     /* the odd point */
    double pred_p;         /* the fit's time there */
    double fixed;          /* the fitted fixed time of a job */
    double lo, hi;         /* the range a profile may hold (exclusive) */
    rtm_status_t st;       /* the measurement's */
} rtm_calib_factor_t;
/* The whole-job point of pts[0..n) (part 0, one line: L <= 1) nearest `key` in log size
 * (key > 0: a factor's odd point beside the size measured, so that the fit's own drift
 * between them stays out of the factor), else nearest `t` seconds of job time in log
 * time; NULL when none. */
const kpoint_t *rtm_calib_point_nearest(const kpoint_t *pts, uint32_t n, int64_t key, double t);
/* The point of pts[0..n) with the smallest working set (ws); NULL when n is 0. */
const kpoint_t *rtm_calib_point_smallest(const kpoint_t *pts, uint32_t n);
/* The factor kept (0: none) and its note: kept where in (lo, hi) and off 1 by more than
 * the two measurements' spreads (else within the noise: no term), a FALLBACK note when
 * out of range or not measured. */
double rtm_calib_factor(cal_t *c, const rtm_kernel_t *kern, const rtm_calib_factor_t *f);
/* The aligned size measured beside odd point key: 8 mod 16 just below it, never one of
 * validation's seed-000 sizes (--quick's under it). */
int64_t rtm_calib_aligned_key(const cal_t *c, int64_t key);
/* The aligned size beside odd point p (rtm_calib_aligned_key) and the instances there
 * (*k), at p (*kp) and at p0 (the kernel's smallest point), with the job costs at the
 * aligned size (*cost) and at p0 (*cost0): the key, or -1 where a size does not plan
 * within lim or the aligned size's job is not a one-launch job with aligned rows
 * (rtm_cost_t.rows_aligned). Shared by the CPU pool and the devices. */
int64_t rtm_calib_aligned_sizes(const cal_t *c, const rtm_kernel_t *kern, rtm_tune_t tune,
                                const rtm_calib_lim_t *lim, const kpoint_t *p,
                                const kpoint_t *p0, rtm_kinst_t *k, rtm_kinst_t *kp,
                                rtm_cost_t *cost, rtm_cost_t *cost0);
/* ktune `aligned` and `aligned_r` from F, the factor rtm_calib_factor measured at the
 * aligned size (0: none), with the fitted per-operation rate R there and R0 at the
 * kernel's smallest point (rtm_model_kernel_rate): where R grows more than 10 % over R0,
 * aligned is the share of that growth the aligned rows keep, (F R - R0) / (R - R0), in
 * [0.01, 1.5) (so that the model's aligned rate there, aligned_r + aligned (R -
 * aligned_r), is F R), with aligned_r = R0; else F a plain factor where in (0.5, 1.5),
 * aligned_r 0; both 0 when none. */
void rtm_calib_aligned_share(double F, double R, double R0, double *aligned, double *aligned_r);
/* The same into kernel kern's terms on `who` (kt), the growth form noted (key0: the
 * smallest point's first key, key: the aligned size's). */
void rtm_calib_aligned_terms(cal_t *c, const char *who, const rtm_kernel_t *kern, double F,
                             double R, double R0, int64_t key0, int64_t key,
                             rtm_board_ktune_t *kt);

/* ---- the CPU pool (calibcpu.c) ------------------------------------------------------- */

/* A core's L1 data cache from sysconf: l1[0] bytes, l1[1] ways, l1[2] line bytes; false
 * (l1 untouched) when the C library does not know it. */
bool rtm_calib_l1d(double l1[3]);
/* The sizes of kernel kern's `aliased` factor (fitted at pts[0..n), tune, lim) for an L1
 * of geometry l1: the first key nearest the whole-job point nearest RTM_CALIB_ALIAS_AT_S
 * (up to three times it) whose strided walk misses that L1 all along
 * (rtm_model_alias_share 1; never a validation size), planned into *k, and the fitted
 * point nearest it, *p, planned into *kp. False when the kernel has no strided walk or
 * no such size (the latter noted for `owner`). */
bool rtm_calib_alias_sizes(cal_t *c, const char *owner, const rtm_kernel_t *kern,
                           rtm_tune_t tune, const rtm_calib_lim_t *lim, const kpoint_t *pts,
                           uint32_t n, const double l1[3], rtm_kinst_t *k, rtm_kinst_t *kp,
                           const kpoint_t **p);
/* The aliased size's whole jobs: near RTM_CALIB_ALIAS_AT_S of job time, within
 * RTM_CALIB_ALIAS_BUDGET_S (3 at least, `most` at most; 0.2 s put the H100 host's cold
 * run at its 58 s limit once, session 59's run d, with three of ocl0's last kernels not
 * measured), for a job predicted at pred seconds. */
#define RTM_CALIB_ALIAS_AT_S 5e-3
#define RTM_CALIB_ALIAS_BUDGET_S 0.1
int rtm_calib_alias_reps(double pred, int most);

/* The CPU section's cores (online) and worker threads (one per core, less one from
 * RTM_CALIB_SPARE_MIN_CORES up; --threads; a base profile's choice for this computer); a
 * fresh profile's CPU model the extended one. Also for a fresh profile with --no-cpu,
 * which leaves the CPU's parameters out but must still load. */
void rtm_calib_cpu_pool(const cal_t *c, rtm_board_t *b);
/* The CPU section of the run: threads, micro-kernels, pool overheads, kernels' twins. */
rtm_status_t rtm_calib_cpu(cal_t *c, rtm_board_t *b);
/* The CPU pool's passes rtm_calib_cpu left for after the devices (c->cpu_late), and
 * their kernels' fits; nothing when none were left. */
rtm_status_t rtm_calib_cpu_late(cal_t *c, rtm_board_t *b);

#endif
