/* calibint.h — what calib.c shares with validate.c (the calibration module's two
 * halves); not part of rtmgr's API. Init-time tooling only. */
#ifndef RTM_CALIBINT_H
#define RTM_CALIBINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calib.h"
#include "kernel.h"
#include "pinned.h"
#include "pool.h"

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
 * time there is a * r + b (a, b from the model itself, r the kernel's own); ws the
 * job's buffer bytes (bytes_in + bytes_out), m its bytes_dev, x its operation count,
 * t the measured time (seconds). Points sorted by ws. */
typedef struct {
    double ws, a, b, m, x, t;
} rtm_calib_fitpt_t;

/* The per-kernel terms of the extended model (rtm_board_ktune_t's) a fit gives, and its
 * largest relative residual at the points. */
typedef struct {
    double r, t_fixed, r_big, r_miss, knee, r_byte, p_ops, x_ref, resid;
} rtm_calib_fit_t;

/* A second regime's time per operation (r_big, r_miss) lies within this factor of r_op,
 * either way: it is a cache's or a TLB's (the H100's fitted regimes were 1.1-5.2x); a form
 * that needs more is fitting one point, not a regime. */
#define RTM_CALIB_REGIME_MAX 16.0

/* calib.c's per-kernel fit (forms and rules in its comment): a second regime (r_big
 * or r_miss) has its knee at `cache` (bytes, 0 = unknown) when the cache lies between the two
 * sizes around it, and its r within RTM_CALIB_REGIME_MAX of r_op. False when no form fits with every term >= 0 and r > 0 (the caller
 * then falls back, loudly). */
bool rtm_calib_fit(const rtm_calib_fitpt_t *p, uint32_t n, double cache, rtm_calib_fit_t *out);

/* The smallest first key of `kern` (other keys at their defaults, `tune`) of the given
 * parity (0 even, 1 odd, -1 any) whose buffers (bytes_in + bytes_out) exceed `cache`
 * bytes and fit `lim`, into size[]; -1 when none. */
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

/* ---- the device's last-level cache, measured (calib.c's dev_llc) ---------------------
 * A read sweep (rtm_calib_sweep in calib.c's probe source) over working sets S from
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

/* Measures the curve on device d with its program `probe` (calib.c's probe source
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

#endif
