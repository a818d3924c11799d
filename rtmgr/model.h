/* model.h — execution-time models: how long one job takes on one device, before it runs.
 *
 * Two models are evaluated side by side in every call (the formulas, their sources and
 * the parameters each needs are in the header comment of model.c):
 *   - RTM_MODEL_PAPER: seed 000 as published — eq. 1 for the CPU worker pool, eq. 4 for
 *     an OpenCL device;
 *   - RTM_MODEL_EXTENDED: a fixed time per launch instead of compile time, waves of
 *     work-groups over compute units, per-kernel operation time (else the generic one
 *     under a memory-bandwidth roofline), and per-block dispatch on the CPU pool.
 * The board profile says which of the two placement uses (rtm_board_dev_t.model,
 * rtm_board_t.cpu_model); the model-error log records both.
 *
 * Lifecycle: rtm_model_job_make() once per (task, device) at start-up, from the kernel
 * instance planned with that device's tuning; then the predict functions at every
 * release. Predictions are pure arithmetic on the caller's data: no allocation, no
 * locks, no system or libm calls; safe on the real-time path and from any thread. */
#ifndef RTM_MODEL_H
#define RTM_MODEL_H

#include <stdint.h>

#include "board.h"
#include "kernel.h"
#include "status.h"

/* What the models need to know of one job, beyond the kernel's cost descriptor. */
typedef struct {
    rtm_cost_t cost; /* kernel->cost() of the instance, at this device's tuning */
    uint32_t blocks; /* work-groups over all launches of one job (> 0) */
    uint32_t blocks_busy; /* those of the launches that do work (cost.launches_busy's; the
                           * rest find nothing to do); 0 = all of them */
    uint32_t wg;     /* work-items per work-group (tune.wg) */
    uint32_t n_in;   /* host -> device transfer commands per job (IN and INOUT buffers) */
    uint32_t n_out;  /* device -> host transfer commands per job (OUT and INOUT buffers) */
    int kernel;      /* catalogue index, for the per-kernel r of ktune; -1 = none */
    double poll_cost; /* devices, extended model: the job's build costs 1 + poll_cost times
                       * the work of the build calibration fitted (ktune poll_cost where
                       * the job polls at the profile's period: rtm_preempt_predict_dev);
                       * 0 = that build (rtm_model_job_make). RTM_E_ARG outside
                       * (RTM_BOARD_POLL_COST_MIN, RTM_BOARD_POLL_COST_MAX) */
    double idle_s;    /* CPU pool, extended model, with RTM_MODEL_F_IDLE or F_WARM: how
                       * long the pool idles before the job (seconds; 0 = calibration's
                       * 20 ms): its first launch costs cw_idle_log2 per doubling more */
    bool no_clear;    /* devices, extended model: the job's run clears no block control
                       * before its inputs (a job nothing aborts: rtm_kexec_clears), so
                       * its input span is the calibrated one less ws_clear; false =
                       * calibration's jobs, which clear (rtm_model_job_make) */
} rtm_model_job_t;

/* Prediction flags. */
enum {
    /* The program is not loaded on the device yet (first job after start-up): the
     * extended model adds cache_load. */
    RTM_MODEL_F_COLD = 1u << 0,
    /* The inputs are already in device memory (a job resumed on the device that ran its
     * first part): no host -> device transfer in either model. */
    RTM_MODEL_F_IN_RESIDENT = 1u << 1,
    /* The CPU pool or the device idles before the job (the running system's periodic
     * jobs, unlike calibration's and validation's back-to-back runs): on a device the
     * extended model adds ws_idle to the inputs and wr_idle to the outputs where the
     * profile has them; the extended CPU model prices
     * the job's first launch at cw_idle instead of cw where the profile has it, and a
     * one-launch job at the shorter of that and its blocks on the caller alone plus
     * cw_wake, where the profile has cw_wake. */
    RTM_MODEL_F_IDLE = 1u << 2,
    /* The job's kernels alone, with nothing enqueued before them (calibration's
     * kernel-only runs): the extended model gives a multi-launch job's host bound no
     * lead over the device (see model.c, dev_ext). */
    RTM_MODEL_F_KERNELS = 1u << 3,
    /* The CPU pool idles before the job but its workers were woken to spin ahead of it
     * (rtm_pool_warm: the running system's hard and firm jobs where dispatchers spin
     * ahead): the extended CPU model prices its first launch at cw_warm instead of cw
     * where the profile has it. Not with RTM_MODEL_F_IDLE (that one wins). */
    RTM_MODEL_F_WARM = 1u << 4,
};

/* How long the device or pool idles before calibration measures its idle terms (ws_idle,
 * wr_idle, cw_idle, cw_warm; cw_idle_log2 counts doublings from it): the extended model
 * prices a job's idle against it (rtm_model_job_t.idle_s). */
#define RTM_MODEL_IDLE_NS 20000000LL

/* The host's lead over device `dev` at the first kernel launch of a job with
 * `bytes_in` bytes of inputs, in seconds (model.c, host_lead): how much sooner the
 * extended model ends a job whose launches the host paces than the same launches run
 * alone (RTM_MODEL_F_KERNELS). 0 where the profile lacks phase_gap or gap_host_k. */
double rtm_model_dev_lead(const rtm_board_dev_t *dev, double bytes_in);

/* Largest predicted time (about 73 years); longer results are clamped to it. */
#define RTM_MODEL_NS_MAX (INT64_MAX / 4)

/* One model's prediction, in nanoseconds. total_ns = in + kernel + out + setup.
 * On failure every time is 0 and `status`/`missing` say why. */
typedef struct {
    int64_t in_ns;       /* host -> device transfers (0 on the CPU pool) */
    int64_t kernel_ns;   /* kernel execution, all launches */
    int64_t out_ns;      /* device -> host transfers (0 on the CPU pool) */
    int64_t setup_ns;    /* paper: build time c (eq. 4); extended: cache_load when cold */
    int64_t total_ns;
    rtm_status_t status; /* RTM_OK, RTM_E_MODEL (parameter absent), RTM_E_MODEL_PARAM
                            (parameter out of range) or RTM_E_ARG (job descriptor) */
    const char *missing; /* YAML key of the offending parameter, NULL when none */
} rtm_model_time_t;

/* Both models' predictions for one job on one device. */
typedef struct {
    rtm_model_time_t paper;
    rtm_model_time_t ext;
    rtm_model_kind_t kind; /* the model placement uses */
    int64_t total_ns;      /* total of `kind`'s prediction; -1 when it failed */
} rtm_model_pred_t;

/* The prediction of the model placement uses. Safe anywhere. */
static inline const rtm_model_time_t *rtm_model_used(const rtm_model_pred_t *p)
{
    return p->kind == RTM_MODEL_EXTENDED ? &p->ext : &p->paper;
}

/* Greatest common divisor (gcd(a, 0) = a): the sets a strided walk reaches
 * (rtm_model_alias_share), calibration's coprime strides (calibllc.c). Safe anywhere. */
static inline uint64_t rtm_model_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Fills `job` from a planned kernel instance (rtm_kinst_plan done, tuning set for the
 * device the job will be predicted on): cost descriptor, blocks over all launches,
 * transfer commands, catalogue index. Calls the descriptor's pure plan/launch/cost
 * functions only. Init only. RTM_E_ARG when k is not planned or has no blocks. */
rtm_status_t rtm_model_job_make(const rtm_kinst_t *k, rtm_model_job_t *job);

/* Predicts a whole job on OpenCL device `dev` with both models (eq. 4 and extended);
 * `kind` picks the one whose status is returned and whose total is copied to
 * out->total_ns. `flags`: RTM_MODEL_F_*. Returns RTM_OK or the chosen model's error
 * (the other model's status is in `out`). Real-time safe. */
rtm_status_t rtm_model_predict_dev(const rtm_model_job_t *job, const rtm_board_dev_t *dev,
                                   rtm_model_kind_t kind, unsigned flags,
                                   rtm_model_pred_t *out);

/* Predicts a whole job on the CPU worker pool of `board` with `threads` workers (0: all
 * of board->threads), both models (eq. 1 and extended). As rtm_model_predict_dev
 * otherwise. Real-time safe. */
rtm_status_t rtm_model_predict_cpu(const rtm_model_job_t *job, const rtm_board_t *board,
                                   uint32_t threads, rtm_model_kind_t kind, unsigned flags,
                                   rtm_model_pred_t *out);

/* The part (0..1) of a job's strided walk (cost stride_bytes, stride_walk: W lines, one a
 * step) that misses an L1 of `size` bytes, `ways` ways of `line`-byte lines where an odd
 * stride would not: 0 where the walk fits the sets its stride reaches (span / gcd(stride
 * mod span, span) of them, span = sets * line: a row of 4n bytes with n a multiple of
 * 128 reaches 8 of 64) times the ways, C lines, or does not fit the whole L1 either (the
 * fitted sizes' regime); else 2 (W - C) / W up to 1: each line over C evicts one the
 * walk comes back to (the development machine's 48 KiB 12-way L1: matrix_loop_add at
 * n = 192, W = C, 1.06x; n = 128, W = 4C / 3, 1.41x; 1.5-1.85x from W = 2C up). 0 for a
 * geometry out of range. Real-time safe. */
double rtm_model_alias_share(const rtm_cost_t *c, double size, double ways, double line);
/* The same on the CPU of `board` (its l1d, l1d_ways, line), and on OpenCL device `d`
 * (a CPU-type device's: its profile's l1d, l1d_ways, line); 0 without them. */
double rtm_model_cpu_alias_share(const rtm_cost_t *c, const rtm_board_t *board);
double rtm_model_dev_alias_share(const rtm_cost_t *c, const rtm_board_dev_t *d);

/* The per-operation rate the kernel's own fitted terms give job cost c (r_op, r_big /
 * r_miss past knee, times the p_ops scale; operations counted as the CPU pool's model
 * does with `cpu`, li * sum z, else as a device's, Z * li), before any factor for its
 * rows or its L1; 0 without a per-kernel r. Real-time safe. */
double rtm_model_kernel_rate(const rtm_board_ktune_t *ktune, int kernel, const rtm_cost_t *c,
                             bool cpu);

/* The remaining part of a preempted job: blocks_remaining of blocks_total blocks still
 * to run (blocks_total as counted by the caller's completed-block arrays, normally
 * job->blocks; 0 < blocks_total, blocks_remaining <= blocks_total). Work terms (li,
 * device-memory bytes, launches, blocks) scale by the remaining fraction; transfers stay
 * whole (the resumed part reads every input and writes back whole output buffers) unless
 * RTM_MODEL_F_IN_RESIDENT; fixed terms (c, cw, ti, w*md) stay. Real-time safe. */
rtm_status_t rtm_model_predict_dev_rest(const rtm_model_job_t *job, const rtm_board_dev_t *dev,
                                        uint32_t blocks_remaining, uint32_t blocks_total,
                                        rtm_model_kind_t kind, unsigned flags,
                                        rtm_model_pred_t *out);
rtm_status_t rtm_model_predict_cpu_rest(const rtm_model_job_t *job, const rtm_board_t *board,
                                        uint32_t threads, uint32_t blocks_remaining,
                                        uint32_t blocks_total, rtm_model_kind_t kind,
                                        unsigned flags, rtm_model_pred_t *out);

/* The prediction a fraction f (0..1) of the way from a to b, every time of both models
 * (statuses and `kind` from a; a model failed in either stays failed): the prediction
 * of a job whose cost lies between two predicted ones, e.g. a navigation job at the
 * picture's live target count between an empty and a full picture. Real-time safe. */
void rtm_model_pred_lerp(const rtm_model_pred_t *a, const rtm_model_pred_t *b, double f,
                         rtm_model_pred_t *out);

/* "paper" or "extended". Safe anywhere. */
const char *rtm_model_name(rtm_model_kind_t kind);

/* The online correction of one (task, device) after a completed job: returns
 * (1 - a) f + a r, where r = measured / predicted clamped to [1 / RTM_MODEL_CORR_MAX,
 * RTM_MODEL_CORR_MAX], so that one job the machine stalled moves f by a bounded step;
 * f unchanged without a prediction (predicted <= 0). The executive multiplies
 * placement's predictions by f; `rtmgr report` replays it on the log (its EWMA). */
#define RTM_MODEL_CORR_MAX 10.0
double rtm_model_correct(double f, double a, double measured, double predicted);

/* The work-groups of `blocks` on the busiest of `cus` compute units, ceil(blocks / cus)
 * (a group never spans units): the waves term's and calibration's (kfit_t.groups) count;
 * 0 without compute units. Real-time safe. */
double rtm_model_busiest_groups(double blocks, double cus);

/* The launches a multi-launch job's work is divided over on its host-paced line, the
 * span where the host's enqueueing bounds it (model.c, launches_span): all of them when
 * every launch carries work (the last one's share ends the span), else
 * RTM_MODEL_PACED_FLAT: the job ends on idle launches (grid_path's passes after its
 * field converged), whose host-paced end its work does not move (a divisor past any
 * work's scale). Calibration's lines take it (calibfit.c kernel_point, calibdev.c
 * dev_coef). Safe anywhere. */
#define RTM_MODEL_PACED_FLAT 1e12
double rtm_model_paced_launches(double launches, double busy);

/* The waves term's factor for `groups` work-groups on the busiest compute unit, of which
 * `resident` run at once: max(1, groups / resident) (the device's resident: a sharp
 * corner), or with `smooth` (a kernel's own, fitted resident) sqrt(1 + (groups /
 * resident)^2). Calibration's fit and the model share it. Real-time safe. */
double rtm_model_occupancy(double groups, double resident, bool smooth);

/* A kernel's time per operation at a working set of ws bytes with the gradual second
 * regime (ktune r_miss): r up to the knee, then r + (r_miss - r) * (1 - knee / ws).
 * Calibration's fit and the model share it. Real-time safe. */
double rtm_model_r_blend(double r, double r_miss, double knee, double ws);

/* Time of `bytes` of one direction's transfers at up to three marginal rates, given as
 * seconds per byte: inv up to knee, inv2 from there to knee2, inv3 beyond (knee <= 0:
 * inv throughout; knee2 <= knee: no third rate). Continuous in bytes. Calibration's
 * fit and the model share it. Real-time safe. */
double rtm_model_xfer_bytes(double bytes, double inv, double knee, double inv2, double knee2,
                            double inv3);

#endif
