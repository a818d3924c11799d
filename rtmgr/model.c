/* model.c — the execution-time models of rtmgr (see model.h for the API).
 *
 * Owns: the formulas below, the rule of which parameters each needs, and the
 * conversion of their result to nanoseconds. Parameters come from the board profile in
 * SI units (rtm_board_dev_t.param / rtm_board_t.cpu_param, keys of board.h); counts come
 * from the kernel's cost descriptor (rtm_cost_t, kernel.h) and its plan.
 *
 * Paper model, seed 000 (Nozdrzykowski & Nozdrzykowska 2018), exactly as published:
 *
 *   CPU, eq. 1:  T(n) = sum_k (r_k * li * z_k) / (lp * n) + w * md + cw + ti
 *     k over the locality classes scalar, unit-stride, strided (r_scalar, r_unit,
 *     r_strided; z[RTM_LOC_*]); n = worker threads; lp, w, cw, ti from cpu_param;
 *     li, md from the cost descriptor. All of it is reported as kernel time; the pool
 *     works in host memory, so in = out = setup = 0.
 *
 *   OpenCL device, eq. 4:  T = (Z * li * r) / N + ws + wr + c
 *     r = the kernel's own r_op from ktune when calibrated, else the device's r_op
 *     (matrix_mov kernel); N = units; ws = ws_fixed + bytes_in / ws_rate,
 *     wr = wr_fixed + bytes_out / wr_rate (a direction with no bytes costs 0);
 *     c = build (compile time), charged to every job as in the paper: with programs
 *     built once at start-up, the measured time has no c, and the log shows it.
 *     The paper's prose says "all of this is divided by N"; its typeset eq. 4 divides
 *     only the first term, and that is what is implemented.
 *
 * Extended model, from first principles, for programs built (or loaded from the
 * binary cache) once at start-up:
 *
 *   OpenCL device:  T = ws' + kernel + wr' + setup
 *     ws' = ws_fixed + (n_in - 1) * max(0, ws_next - x / n_in) + x, x = xfer(bytes_in)
 *     wr' = wr_fixed + (n_out - 1) * max(0, wr_next - x / n_out) + x, x = xfer(bytes_out)
 *       per command: the first (with the job's block-control clears) and each further
 *       one, less what the command before it covers of the host's enqueueing (its
 *       bytes' time, the mean x / n; session 27); without ws_next (wr_next) every
 *       command costs ws_fixed (wr_fixed). A job without inputs still clears its block
 *       control before its kernel: ws' = ws_clear when calibrated (else 0); a job
 *       whose run clears none (rtm_model_job_t.no_clear: nothing aborts it) has its
 *       inputs' ws' less ws_clear (the first command was calibrated with the clears
 *       before it). On the
 *       H100, pageable memory: the second read-back command waits about 15 us for the
 *       first one's copy out of the driver's staging buffer; the first costs 1.6 us
 *       xfer(b) = b / rate for b <= knee, knee / rate + (b - knee) / rate_big beyond:
 *       a job's transfers run at one bandwidth while they come from (go to) the host's
 *       caches and at another beyond (ws_rate, ws_knee, ws_rate_big; wr_* likewise);
 *       continuous in b. Without ws_knee (wr_knee), or with 0, one rate applies;
 *       the *_rate_big parameters are needed only for jobs beyond the knee. With
 *       ws_knee2 > ws_knee (wr_knee2), a third rate ws_rate_big2 beyond it: the data
 *       no longer fit the host's last-level cache either (PoCL here, 2 vCPUs: inputs
 *       of 1-16 MiB at 13.6-14.6 GB/s, 16-64 MiB at 6.1; session 61), needed only for
 *       jobs beyond it (rtm_model_xfer_bytes).
 *     gaps: with phase_gap calibrated, wr' += a gap per change of phase (block-control
 *       clears and inputs -> kernels -> outputs: 2, or 1 without outputs): the device
 *       idles between a job's commands of different kinds (on the H100 3-9 us before
 *       each, measured one by one in session 24), which no phase's own span holds;
 *       each gap is max(phase_gap, gap_host_k - xfer(bytes_in)) before the kernels and
 *       max(phase_gap, gap_host_o - kernel) before the outputs (phase_gap alone where
 *       gap_host_* is not calibrated): the host enqueues the next phase while the
 *       device runs the one before, and where that phase is shorter than the host's
 *       enqueueing the device waits (session 27: 9-15 us gaps on the H100 after tiny
 *       inputs or kernels, 3-6 us after long ones);
 *       the model-error log and validation measure out as the job's device span less
 *       in and kernel, so the gaps are charged to out on both sides
 *     kernel = t_fixed + max(L * kernel_fixed + W,
 *                            (L - 1) * kernel_next + kernel_fixed + (B = L ? d : 0) - lead),
 *              W = (compute + bytes_dev * r_byte) * (1 + poll_cost), d = W / B
 *       L = launches; B = cost.launches_busy, the first launches, which do the work
 *       (every launch but for grid_path, whose passes after its field converged find
 *       nothing to do; before session 52 its work was spread over all 128, so where a
 *       third to a half of them work (widths 900-2 100) each one's share fell below the
 *       pace and hid there, and the fit's r made up for it: width 1 500 validated
 *       +38.5 % on the H100 in session 51). The span is the in-order queue's: the host
 *       enqueues launch i at i * kernel_next, the device runs a busy launch in
 *       kernel_fixed + d and an idle one in kernel_fixed, each after the one before;
 *       the end is the largest over i of i * kernel_next + the device time of launches
 *       i .. L - 1, which lies at the first launch (the device bound) or the last (the
 *       host bound). Session 53: the sum of each launch's own bound, which the model
 *       took before, charged the idle launches behind device-bound busy ones the
 *       host's pace, though the host had enqueued them meanwhile and the device ran
 *       them back to back (H100, grid_path at widths 200-3 200, 128 passes: the old
 *       form predicted 16-64 % over, board/h100/results/gpw-s53d-h100.txt);
 *       lead: in a whole job the host has the first launch enqueued gap_host_k after
 *       the inputs start on the device, which reaches it only after them and the gap
 *       before the kernels, so the host's launches begin that much ahead of the span:
 *       lead = max(0, xfer(bytes_in) + that gap - gap_host_k) (host_lead; 0 for
 *       RTM_MODEL_F_KERNELS, calibration's kernel-only runs, and without gap_host_k;
 *       session 58);
 *       (one launch: t_fixed + kernel_fixed + compute + bytes_dev * r_byte), d times
 *       the kernel's ktune `aligned` too for a job whose cost says rows_aligned (the
 *       terms are fitted on odd sizes, whose rows straddle 32-byte sectors: the H100's
 *       matrix_mul and matrix_loop_add ran 9-14 % faster per step at n = 1504, 2008,
 *       3016 than at 1501, 2001, 3001, and validation's n = 1000-3000 came out +7-12 %,
 *       session 36; measured by calibration at one aligned size), and 1 + share *
 *       (aliased - 1) on a CPU-type device whose profile has its cores' L1 (l1d,
 *       l1d_ways, line) for a job whose strided walk that L1 aliases (ktune `aliased`,
 *       rtm_model_dev_alias_share; as the CPU pool's below: PoCL here validated
 *       matrix_loop_add at n = 256, 384 -20..-24 % without it, session 59); the host paces
 *       the launches where the device runs them faster than it enqueues them, the
 *       device where it runs them slower (the launches then queue behind the running
 *       one; on the H100 the host paced grid_path's narrow passes at 10-14 us while
 *       its 4 401-wide ones took 20 us, session 12)
 *       t_fixed: the kernel's own fixed time per job (ktune t_fixed, fitted by
 *       calibration with r; 0 without a per-kernel r): what one job costs beyond its
 *       launches' fixed time and its operations (multi-launch set-up, small clears);
 *       compute (with a per-kernel r) is multiplied by (Z * li / x_ref)^p_ops when the
 *       kernel's p_ops > 0 (0..1: its time per counted operation grows with the job,
 *       as caches and TLBs stop holding its data; fitted by calibration), computed
 *       without libm (pow_pos);
 *       r_byte: the kernel's own time per byte of device-memory traffic (ktune r_byte,
 *       fitted with r; 0 without a per-kernel r): a memory term added to, not maxed
 *       with, the operations' time — it carries the part of a kernel's time that grows
 *       with its data rather than with its counted operations;
 *       poll_cost: the job's own build (rtm_model_job_t.poll_cost, from ktune
 *       poll_cost where the executive builds the job with the profile's in-loop poll
 *       period): the per-kernel terms are fitted on calibration's build, which polls
 *       every RTM_KEXEC_POLL_DEFAULT steps, and the executive's polls every 16-128
 *       (session 34, H100: manoeuvre and last_chance about 3 % slower at K 16,
 *       matrix_mov up to 9 % at K 32); 0 for that build;
 *       kernel_fixed: the fixed time one launch adds to the measured kernel span (first
 *       kernel START to last kernel END), calibrated as an empty kernel's START->END.
 *       The enqueue-to-start latency (`launch`) is outside that span and outside the
 *       measured execution time, so it is not charged here.
 *       kernel_next: the host's pace for each further launch of a multi-launch job
 *       (sort's passes, grid_path's relaxations), calibrated as the interval of
 *       back-to-back launches of an empty kernel with a catalogue kernel's arguments
 *       on one queue (first START to last END over their count, events on those two
 *       only, as kexec enqueues a job's launches): before session 12, on the H100
 *       13.1 us against 5.6 us for one launch's START->END, because the span holds the
 *       gaps between launches. Without it every launch costs kernel_fixed (older
 *       profiles), which made calibration fit sort's 15..80 launches into a 232 us
 *       t_fixed (+33 % at n = 131072).
 *       t_next: the kernel's own pace (ktune t_next), in place of kernel_next when
 *       calibrated: its launches at a small size (grid_path width 1, radix_sort n = 1),
 *       (span - kernel_fixed) / (launches - 1). The empty kernel's pace was no proxy
 *       for a real job's: on one H100 instance 13.6 us against grid_path's 9.3 and
 *       radix_sort's 8.1 us (session 13: grid_path widths 64-3500 +44-60 %).
 *     compute = t_wave * max(1, ceil(blocks / cus) / resident)   (0 with no blocks;
 *       blocks those of the busy launches, t_wave's ops per block Z * li over them;
 *       with the kernel's own resident, sqrt(1 + (ceil(blocks / cus) / resident)^2):
 *       rtm_model_occupancy)
 *       the busiest compute unit gets ceil(blocks / cus) work-groups (a group never
 *       spans units) and runs `resident` of them at once; with fewer it still takes
 *       one wave (latency is not hidden); with more, its time grows in proportion
 *       (resident groups interleave, so a partial wave costs its share, not a whole
 *       wave);
 *       t_wave = resident * ops_block * r / (units / cus)  a compute unit has
 *                units / cus lanes, and one full wave of its resident groups takes their
 *                operations at that rate;
 *       resident: the kernel's own (ktune resident, with its own r) where calibration
 *                fitted one, else the device's (the occupancy probe's dependent mad
 *                chain). A kernel whose work-items wait longer per operation (local
 *                memory, divisions, branches) needs more groups in flight before its
 *                compute unit saturates: below that the time follows one group's chain,
 *                above it the groups (session 51, H100: cpa_pairs at wg 64 about 9 groups
 *                of 64, at wg 128 about 4.5 of 128 — some 580 work-items a compute unit,
 *                against the probe's 256; with the device's 1 its points fitted 26-30 %
 *                apart and validation came out -13..+15 %). With its own resident the
 *                corner is smooth, the two times added in quadrature: near it neither
 *                the chain nor the throughput hides the other (cpa_pairs at 8 701 ships,
 *                9.3 groups a unit against its 9.5: 0.207 ms, the sharp corner 0.182);
 *       ops_block = Z * li / blocks.  With blocks a multiple of cus * resident,
 *       compute = Z * li * r / units, eq. 4's first term.
 *     r = per-kernel r_op from ktune when calibrated, else the device's r_op; with a
 *       per-kernel knee, r_big for jobs whose buffers (bytes_ws, scratch included)
 *       exceed it (a second cache or TLB regime, found by calibration's fit), or with r_miss
 *       instead a gradual one: r + (r_miss - r) * (1 - knee / ws) for ws bytes beyond
 *       the knee, the share of the buffers the cache cannot hold (continuous at the
 *       knee; r_miss when none fits).
 *     Roofline: compute is replaced by max(compute, bytes_dev / rate) (a kernel is
 *       bound by its operations or by device-memory traffic, whichever is slower).
 *       With the device's generic r_op, rate = the device's mem_rate. With a per-kernel
 *       r, rate = the kernel's own mem_rate from ktune, and only for jobs whose buffers
 *       (bytes_ws, scratch included) exceed the device's `cache`; else (not calibrated,
 *       or the data fit in the cache) there is no memory term: both are fitted to the kernel's
 *       measured times, r where its data stay in cache and mem_rate where they do not,
 *       and a kernel's bytes_dev may count cached re-reads that the device's copy
 *       bandwidth would overprice.
 *     idle: with RTM_MODEL_F_IDLE (the running system's jobs, which find the device
 *       idle), ws' += ws_idle and, with outputs, wr' += wr_idle where the profile has
 *       them: what a small job's inputs and outputs take more after 20 ms idle than back
 *       to back (session 35, H100, the running system's log: inputs 22-84 us and
 *       outputs 10-25 us over the back-to-back prediction, kernels within a few us).
 *       ws_idle is the first kernel-type command's: calibration's clears (a fill), or,
 *       in a job with inputs that clears none (no_clear), its kernel, which takes it
 *       (session 71, H100: such jobs' inputs 22-24 us, ws_fixed alone, their kernels
 *       13-16 us over);
 *     setup = cache_load for the first job after start-up (RTM_MODEL_F_COLD), else 0.
 *
 *   CPU worker pool:  T = t_fixed + per_thread * t_block + bytes_dev * r_byte
 *                          + per_thread * dispatch + (launches - 1) * cw + cw_first
 *                          (t_fixed, r_byte, r_big or r_miss / knee as for a device)
 *     t1 = single-thread time of the whole job: r_kernel * li * sum_k z_k when the
 *          kernel's own CPU r (cpu_ktune r_op, lp folded in) is calibrated, else
 *          sum_k r_k * li * z_k / lp (eq. 1's numerator);
 *     t_block = t1 / blocks; per_thread = ceil(blocks / n): the pool hands whole blocks
 *          to n workers, the busiest one runs per_thread of them (= t1 / n when blocks
 *          is a multiple of n); with busy launches (launches_busy, above) t_block and
 *          the per_thread it multiplies count their blocks alone, dispatch all;
 *     roofline: per_thread * t_block becomes max(per_thread * t_block,
 *          bytes_dev / rate) (all workers share one memory bus); rate as for a device:
 *          the CPU's mem_rate with the class-based r_k, the kernel's cpu_ktune mem_rate
 *          with its own r for jobs whose buffers exceed the CPU's `cache` (no memory term
 *          otherwise);
 *     aliased: t_block times 1 + share * (a - 1), a the kernel's cpu_ktune `aliased`
 *          (with its own r), share the part of a job's strided walk that misses a core's
 *          L1 because its stride folds the walk onto too few of the L1's sets
 *          (rtm_model_cpu_alias_share; 0 for calibration's odd sizes, whose walks reach
 *          every set): 2-vCPU development machine, matrix_loop_add at n = 128, 256, 384
 *          validated -16, -45, -44 % without it (session 59);
 *     dispatch: pool overhead per block (queue pop, completed-block mark);
 *     cw: the join at the end of every launch; with RTM_MODEL_F_IDLE (the running
 *          system's jobs, which find the pool asleep) the first launch's is cw_idle:
 *          cw plus what a launch of busy blocks takes more after 20 ms of sleep than
 *          back to back (the H100 host's 15 threads +50-90 us after 40 ms idle, 1
 *          thread nothing); with RTM_MODEL_F_WARM (hard and firm jobs, whose workers
 *          the dispatcher woke to spin ahead of the release) cw_warm: the same launch
 *          after as long asleep with its workers warmed (session 70, H100 host: +13-18
 *          us over back to back where asleep is +43-66 us);
 *     idle length: with RTM_MODEL_F_IDLE or F_WARM and the job's idle_s, the first
 *          launch's cw_idle (cw_warm) + cw_idle_log2 * log2(idle_s / 20 ms), idle_s
 *          within 1 ms .. 10 s, never below cw, where the profile has cw_idle_log2
 *          (session 71, H100 host: the warmed launch's extra 10 / 37.6 / 40.9 / 49.9 us
 *          after 4 / 20 / 40 / 100 ms; the camera task alone 93.4-126.8 us at periods
 *          of 10-100 ms);
 *     cold: with RTM_MODEL_F_IDLE or F_WARM, min(bytes_dev, 2 * bytes_ws) / cold_rate
 *          where the profile has cold_rate and the working set fits the CPU's `cache`:
 *          the job's data, out of the workers' caches after the pool idled, read and
 *          written once more (session 71, H100 host: the camera task alone on the pool,
 *          4 MB, 147-171 us at a 40 ms period, 111-122 us at 4 ms, 105-135 predicted);
 *     alone: with RTM_MODEL_F_IDLE, a one-launch job may end before the workers wake
 *          (the pool does not wait for a worker that has not joined): then it takes
 *          t_fixed + max(blocks * t_block, memory term) + bytes_dev * r_byte
 *          + blocks * dispatch + cw_wake (the caller's call that wakes them); the
 *          prediction is the shorter of this and the workers' form, where the profile
 *          has cw_wake (local HIL replay: cpu MAPE 21-26 % with it, 37-50 % without).
 *     ti (a measurement artefact) and w * md (covered by the memory term) are left out.
 *
 * Parameter rule (both models): a parameter is needed iff its term is non-zero for the
 * job (r_k only where z_k > 0, ws_* only with input bytes, mem_rate only with device
 * bytes, cache_load only when cold…); a needed parameter with have[] false gives
 * RTM_E_MODEL, one that is negative, not finite, or zero where it divides gives
 * RTM_E_MODEL_PARAM; `missing` names its YAML key either way.
 *
 * Remaining part of a preempted job (the *_rest functions): with f = remaining /
 * total blocks, li and bytes_dev scale by f, blocks and launches become
 * ceil(blocks * f) and ceil(launches * f); ops_block and t_block stay those of the whole
 * job; transfers and fixed terms stay whole. With busy launches (B < launches) the blocks
 * run in launch order, so the busy ones are done first: what is left of them is the busy
 * blocks less the blocks done, and li and bytes_dev scale by that share of the busy
 * blocks.
 *
 * Invariants: no allocation, no locks, no libm or system calls; every result is finite
 * and clamped to [0, RTM_MODEL_NS_MAX]; the inputs are never written. */
#include "model.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Largest accepted parameter or count (guards against overflow to infinity). */
#define PARAM_MAX 1e30

static const char *const dev_key[RTM_DEV_P_COUNT] = {
#define RTM_P_KEY(id, key, unit, help) key,
    RTM_DEV_PARAMS(RTM_P_KEY)
};
static const char *const cpu_key[RTM_CPU_P_COUNT] = {
    RTM_CPU_PARAMS(RTM_P_KEY)
#undef RTM_P_KEY
};

/* r_k of eq. 1 by locality class. */
static const int cpu_r_id[RTM_LOC_COUNT] = {
    [RTM_LOC_SCALAR] = RTM_CPU_P_r_scalar,
    [RTM_LOC_UNIT] = RTM_CPU_P_r_unit,
    [RTM_LOC_STRIDED] = RTM_CPU_P_r_strided,
};

/* Parameter reader over one device's table: the first failure is kept. */
typedef struct {
    const double *v;
    const bool *have;
    const char *const *key;
    rtm_status_t st;
    const char *missing;
} params_t;

static double param(params_t *p, int id, bool divides)
{
    rtm_status_t st = RTM_OK;
    const double x = p->v[id];
    if (!p->have[id])
        st = RTM_E_MODEL;
    else if (!(x >= 0.0 && x <= PARAM_MAX) || (divides && !(x > 0.0)))
        st = RTM_E_MODEL_PARAM;
    if (st == RTM_OK)
        return x;
    if (p->st == RTM_OK) {
        p->st = st;
        p->missing = p->key[id];
    }
    return 1.0; /* harmless stand-in; the result is discarded */
}

/* The part of a job still to run. */
typedef struct {
    double li;        /* iterations */
    double bytes_in;  /* host -> device bytes (0 when inputs are resident) */
    double bytes_out; /* device -> host bytes */
    double bytes_dev; /* device-memory traffic */
    double blocks;    /* blocks still to run */
    double blocks_busy; /* those of them in the launches that do work (= blocks for most
                         * kernels; cost.launches_busy) */
    double launches;  /* launches still to run */
    double launches_busy; /* those of them that do work */
    bool idle;        /* RTM_MODEL_F_IDLE */
    bool warm;        /* RTM_MODEL_F_WARM */
} work_t;

static bool finite_count(double x) { return x >= 0.0 && x <= PARAM_MAX; }

static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* ceil(x) for 0 <= x <= PARAM_MAX, without libm. */
static double ceil_pos(double x)
{
    if (x >= 9.0e15) /* beyond 2^53 every double is an integer */
        return x;
    const double i = (double)(uint64_t)x;
    return i < x ? i + 1.0 : i;
}

static double max2(double a, double b) { return a > b ? a : b; }
static double min2(double a, double b) { return a < b ? a : b; }

/* The range of a job's idle the model takes (rtm_model_job_t.idle_s), seconds. */
#define IDLE_MIN_S 0.001
#define IDLE_MAX_S 10.0

/* The job's blocks that do work: those of its busy launches where its cost says only
 * the first ones do (launches_busy), else all of them. */
static double busy_blocks(const rtm_model_job_t *j)
{
    const uint32_t l = j->cost.launches ? j->cost.launches : 1u;
    const bool some = j->cost.launches_busy > 0 && j->cost.launches_busy < l &&
                      j->blocks_busy > 0 && j->blocks_busy < j->blocks;
    return (double)(some ? j->blocks_busy : j->blocks);
}

static rtm_status_t work_make(const rtm_model_job_t *j, uint32_t remaining, uint32_t total,
                              unsigned flags, work_t *w)
{
    const rtm_cost_t *c = &j->cost;
    if (total == 0 || remaining > total || j->blocks == 0 ||
        !(j->poll_cost > RTM_BOARD_POLL_COST_MIN && j->poll_cost < RTM_BOARD_POLL_COST_MAX))
        return RTM_E_ARG;
    if (!finite_count(c->li) || !finite_count(c->Z) || !finite_count(c->md) ||
        !finite_count(c->bytes_in) || !finite_count(c->bytes_out) ||
        !finite_count(c->bytes_dev))
        return RTM_E_ARG;
    for (int k = 0; k < RTM_LOC_COUNT; k++)
        if (!finite_count(c->z[k]))
            return RTM_E_ARG;
    const double f = (double)remaining / (double)total;
    const uint32_t launches = c->launches ? c->launches : 1u;
    w->li = c->li * f;
    w->bytes_in = (flags & RTM_MODEL_F_IN_RESIDENT) ? 0.0 : c->bytes_in;
    w->bytes_out = c->bytes_out;
    w->bytes_dev = c->bytes_dev * f;
    w->blocks = (double)ceil_div((uint64_t)j->blocks * remaining, total);
    w->launches = (double)ceil_div((uint64_t)launches * remaining, total);
    w->blocks_busy = w->blocks;
    w->launches_busy = w->launches;
    const double bb = busy_blocks(j);
    if (bb < (double)j->blocks) { /* the work in the first launches: what of them is left */
        w->blocks_busy = max2(0.0, bb - ((double)j->blocks - w->blocks));
        w->launches_busy =
            max2(0.0, (double)c->launches_busy - ((double)launches - w->launches));
        w->li = c->li * w->blocks_busy / bb;
        w->bytes_dev = c->bytes_dev * w->blocks_busy / bb;
    }
    w->idle = (flags & RTM_MODEL_F_IDLE) != 0;
    w->warm = (flags & RTM_MODEL_F_WARM) != 0;
    return RTM_OK;
}

static int64_t to_ns(double s)
{
    if (!(s > 0.0))
        return 0;
    if (s >= (double)RTM_MODEL_NS_MAX / 1e9)
        return RTM_MODEL_NS_MAX;
    return (int64_t)(s * 1e9 + 0.5);
}

static void finish(rtm_model_time_t *t, const params_t *p, double in, double kernel,
                   double out, double setup)
{
    memset(t, 0, sizeof(*t));
    t->status = p->st;
    t->missing = p->missing;
    if (p->st != RTM_OK)
        return;
    t->in_ns = to_ns(in);
    t->kernel_ns = to_ns(kernel);
    t->out_ns = to_ns(out);
    t->setup_ns = to_ns(setup);
    /* each part <= NS_MAX = INT64_MAX / 4: the sum cannot overflow */
    const int64_t sum = t->in_ns + t->kernel_ns + t->out_ns + t->setup_ns;
    t->total_ns = sum < RTM_MODEL_NS_MAX ? sum : RTM_MODEL_NS_MAX;
}

static void fail(rtm_model_time_t *t, rtm_status_t st)
{
    memset(t, 0, sizeof(*t));
    t->status = st;
}

/* Per-kernel operation time from a ktune table, or 0 when not calibrated. */
static double kernel_r(const rtm_board_ktune_t *ktune, int kernel)
{
    if (kernel < 0 || kernel >= RTM_MAX_KERNELS || !ktune[kernel].have)
        return 0.0;
    const double r = ktune[kernel].r_op;
    return r > 0.0 && r <= PARAM_MAX ? r : 0.0;
}

/* A per-kernel term of a ktune table (t_fixed, r_big, knee), or 0 when not calibrated
 * or out of range. */
static double kernel_term(const rtm_board_ktune_t *ktune, int kernel, size_t off)
{
    if (kernel < 0 || kernel >= RTM_MAX_KERNELS || !ktune[kernel].have)
        return 0.0;
    double v;
    memcpy(&v, (const char *)&ktune[kernel] + off, sizeof(v));
    return v > 0.0 && v <= PARAM_MAX ? v : 0.0;
}

double rtm_model_r_blend(double r, double r_miss, double knee, double ws)
{
    return knee > 0.0 && ws > knee ? r + (r_miss - r) * (1.0 - knee / ws) : r;
}

double rtm_model_xfer_bytes(double bytes, double inv, double knee, double inv2, double knee2,
                            double inv3)
{
    if (knee <= 0.0 || bytes <= knee)
        return bytes * inv;
    if (knee2 <= knee || bytes <= knee2)
        return knee * inv + (bytes - knee) * inv2;
    return knee * inv + (knee2 - knee) * inv2 + (bytes - knee2) * inv3;
}

/* The kernel's own r for a job with `ws` buffer bytes: beyond its knee r_big (a second
 * cache/TLB regime, fitted by calibration) or r_op blended towards r_miss
 * (rtm_model_r_blend), else r_op; 0 when not calibrated. */
static double kernel_r_at(const rtm_board_ktune_t *ktune, int kernel, double ws)
{
    const double r = kernel_r(ktune, kernel);
    if (r <= 0.0)
        return 0.0;
    const double knee = kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, knee));
    const double big = kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, r_big));
    const double miss = kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, r_miss));
    if (knee > 0.0 && big > 0.0)
        return ws > knee ? big : r;
    return miss > 0.0 ? rtm_model_r_blend(r, miss, knee, ws) : r;
}

/* x^p for x > 0 and 0 <= p <= 1, without libm: x = m * 2^e (m in [1, 2)),
 * ln x = e ln 2 + 2 atanh((m - 1) / (m + 1)), then e^(p ln x) = 2^k * e^f with
 * |f| <= ln 2 / 2, by series. Relative error below 1e-12 in that range. */
static double pow_pos(double x, double p)
{
    if (!(x > 0.0) || p == 0.0)
        return 1.0;
    uint64_t bits;
    memcpy(&bits, &x, sizeof(bits));
    const int e = (int)((bits >> 52) & 0x7ff) - 1023;
    if (e < -1000 || e > 1000) /* subnormal or huge: out of any job's range */
        return 1.0;
    bits = (bits & ~(0x7ffull << 52)) | (1023ull << 52);
    double m;
    memcpy(&m, &bits, sizeof(m));
    const double z = (m - 1.0) / (m + 1.0), z2 = z * z;
    double term = z, at = 0.0;
    for (int i = 1; i <= 25; i += 2) { /* z <= 1/3: z^27 < 1e-13 */
        at += term / i;
        term *= z2;
    }
    const double ln2 = 0.69314718055994530942;
    const double y = p * ((double)e * ln2 + 2.0 * at);
    const double kf = y >= 0 ? (double)(int64_t)(y / ln2 + 0.5) : -(double)(int64_t)(-y / ln2 + 0.5);
    const double f = y - kf * ln2;
    double ex = 1.0, t = 1.0;
    for (int i = 1; i <= 16; i++) { /* |f| <= 0.35: f^17 / 17! < 1e-22 */
        t *= f / i;
        ex += t;
    }
    const int k = (int)kf;
    if (k < -1000 || k > 1000)
        return 1.0;
    const uint64_t pb = (uint64_t)(k + 1023) << 52;
    double two_k;
    memcpy(&two_k, &pb, sizeof(two_k));
    return ex * two_k;
}

double rtm_model_busiest_groups(double blocks, double cus)
{
    return cus > 0.0 && blocks >= 0.0 ? ceil_pos(blocks / cus) : 0.0;
}

double rtm_model_occupancy(double groups, double resident, bool smooth)
{
    if (!(resident > 0.0) || !(groups >= 0.0))
        return 1.0;
    const double x = groups / resident;
    return smooth ? pow_pos(1.0 + x * x, 0.5) : max2(1.0, x);
}

/* The factor (Z * li / x_ref)^p_ops of a kernel's operations' time (1 when none). */
static double kernel_scale(const rtm_board_ktune_t *ktune, int kernel, double ops)
{
    const double p = kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, p_ops));
    const double ref = kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, x_ref));
    if (!(p > 0.0) || p > 1.0 || !(ref > 0.0) || !(ops > 0.0))
        return 1.0;
    return pow_pos(ops / ref, p);
}

double rtm_model_kernel_rate(const rtm_board_ktune_t *ktune, int kernel, const rtm_cost_t *c,
                             bool cpu)
{
    const double ops = cpu ? c->li * (c->z[RTM_LOC_SCALAR] + c->z[RTM_LOC_UNIT] +
                                      c->z[RTM_LOC_STRIDED])
                           : c->Z * c->li;
    const double rk = kernel_r_at(ktune, kernel, c->bytes_ws);
    return rk > 0.0 ? rk * kernel_scale(ktune, kernel, ops) : 0.0;
}

/* The factor of a job's work for its rows (ktune `aligned`, `aligned_r`), at the fitted
 * per-operation rate R (rtm_model_kernel_rate): 1 unless its cost says rows_aligned and
 * the kernel has `aligned`; that plain factor without `aligned_r`; with it, (aligned_r +
 * aligned * (R - aligned_r)) / R where R exceeds aligned_r, else 1. */
static double aligned_factor(const rtm_board_ktune_t *ktune, int kernel, const rtm_cost_t *c,
                             double R)
{
    const double a =
        c->rows_aligned ? kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, aligned)) : 0.0;
    if (!(a > 0.0))
        return 1.0;
    const double ar = kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, aligned_r));
    if (!(ar > 0.0))
        return a;
    return R > ar ? (ar + a * (R - ar)) / R : 1.0;
}

/* The kernel's fixed time per job (0 when none). */
static double kernel_fixed(const rtm_board_ktune_t *ktune, int kernel)
{
    return kernel_term(ktune, kernel, offsetof(rtm_board_ktune_t, t_fixed));
}

/* Per-kernel memory rate from a ktune table, or 0 when not calibrated. */
static double kernel_rate(const rtm_board_ktune_t *ktune, int kernel)
{
    if (kernel < 0 || kernel >= RTM_MAX_KERNELS || !ktune[kernel].have)
        return 0.0;
    const double m = ktune[kernel].mem_rate;
    return m > 0.0 && m <= PARAM_MAX ? m : 0.0;
}

/* ---- OpenCL device ---------------------------------------------------------------- */

static double dev_r(const rtm_model_job_t *j, const rtm_board_dev_t *d, params_t *p)
{
    const double r = kernel_r(d->ktune, j->kernel);
    return r > 0.0 ? r : param(p, RTM_DEV_P_r_op, false);
}

/* Seed 000 eq. 4: T = Z * li * r / N + ws + wr + c. */
static void dev_paper(const rtm_model_job_t *j, const rtm_board_dev_t *d, const work_t *w,
                      rtm_model_time_t *t)
{
    params_t p = {d->param, d->have, dev_key, RTM_OK, NULL};
    const double r = dev_r(j, d, &p);
    const double N = param(&p, RTM_DEV_P_units, true);
    const double c = param(&p, RTM_DEV_P_build, false);
    double ws = 0.0, wr = 0.0;
    if (w->bytes_in > 0.0)
        ws = param(&p, RTM_DEV_P_ws_fixed, false) +
             w->bytes_in / param(&p, RTM_DEV_P_ws_rate, true);
    if (w->bytes_out > 0.0)
        wr = param(&p, RTM_DEV_P_wr_fixed, false) +
             w->bytes_out / param(&p, RTM_DEV_P_wr_rate, true);
    finish(t, &p, ws, j->cost.Z * w->li * r / N, wr, c);
}

/* Extended transfer time of `bytes` in one direction (rtm_model_xfer_bytes): `rate` up
 * to the knee, `big` beyond, `big2` beyond `knee2`. A profile without the knee (older, or
 * hand-written) keeps one rate, one without knee2 (before session 61) two; `big` and
 * `big2` are needed only for transfers past their knees. */
static double xfer(params_t *p, double bytes, int rate, int knee, int big, int knee2, int big2)
{
    const double r = param(p, rate, true);
    if (!p->have[knee])
        return bytes / r; /* no knee calibrated: one rate */
    const double k = param(p, knee, false);
    if (k <= 0.0 || bytes <= k) /* a knee of 0 is none */
        return bytes / r;
    const double k2 = p->have[knee2] ? param(p, knee2, false) : 0.0;
    const bool third = k2 > k && bytes > k2;
    return rtm_model_xfer_bytes(bytes, 1.0 / r, k, 1.0 / param(p, big, true), third ? k2 : 0.0,
                                third ? 1.0 / param(p, big2, true) : 0.0);
}

/* The inputs' transfer of `bytes` (none: 0) at the host -> device rates. */
static double xfer_in(params_t *p, double bytes)
{
    return bytes > 0.0 ? xfer(p, bytes, RTM_DEV_P_ws_rate, RTM_DEV_P_ws_knee, RTM_DEV_P_ws_rate_big,
                              RTM_DEV_P_ws_knee2, RTM_DEV_P_ws_rate_big2)
                       : 0.0;
}

/* Fixed part of n transfer commands (at least one) moving `x` seconds of bytes: the
 * first costs `first`; each further one `next` when calibrated, less the part of it the
 * command before covers (the host enqueues a command while the device moves the one
 * before: x / n, the commands' mean; session 27, H100: a second 512 KiB input cost
 * 2 us, a second 2 KiB one 14), else `first` again. */
static double commands(params_t *p, uint32_t n, int first, int next, double x)
{
    const double f = param(p, first, false);
    const double more = (double)(n > 1u ? n - 1u : 0u);
    if (!p->have[next])
        return f + more * f;
    return f + more * max2(0.0, param(p, next, false) - x / (double)n);
}

/* The device's idle gap before a phase: its own (`g`, phase_gap), or, with the host's
 * time `id` from the previous phase's start on the device to this one's calibrated,
 * that time less what the device spent on the previous phase (`prev`: the inputs'
 * transfer before the kernels, the kernel span before the outputs) where longer: the
 * host is still enqueueing the phase when the device has finished the one before. */
static double host_paced(params_t *p, double g, int id, double prev)
{
    return p->have[id] ? max2(g, param(p, id, false) - prev) : g;
}

/* The host's lead over the device at a job's first kernel launch, where phase_gap and
 * gap_host_k are calibrated: the host has that launch enqueued gap_host_k after the
 * inputs start on the device (their transfer taking `xin`), the device reaches it after
 * the inputs and the gap before the kernels (host_paced), and the host enqueues the
 * further launches at its pace from its own start, not the device's. A multi-launch
 * job whose launches the host paces ends that much sooner (launches_span; H100, session
 * 58: validation's sort at n = 131 072 and 450 000, 17 and 30 launches behind 0.04 and
 * 0.08 ms of inputs, ran at 11.6 and 9.6 us a launch where calibration's kernel-only
 * runs at n = 32 768 paced them at 14.6 us). 0 where the inputs are shorter than the
 * host's enqueueing of them. */
static double host_lead(params_t *p, double xin)
{
    if (!p->have[RTM_DEV_P_phase_gap] || !p->have[RTM_DEV_P_gap_host_k])
        return 0.0;
    const double g = param(p, RTM_DEV_P_phase_gap, false);
    return max2(0.0, xin + host_paced(p, g, RTM_DEV_P_gap_host_k, xin) -
                         param(p, RTM_DEV_P_gap_host_k, false));
}

double rtm_model_dev_lead(const rtm_board_dev_t *d, double bytes_in)
{
    params_t p = {d->param, d->have, dev_key, RTM_OK, NULL};
    const double lead = host_lead(&p, xfer_in(&p, bytes_in));
    return p.st == RTM_OK ? lead : 0.0;
}

/* A job's kernel span over its `launches` (the header's `kernel` less t_fixed), `work`
 * the device time of its operations and memory traffic, carried by the first `busy`
 * launches (d = work / busy each): the in-order queue's end, the larger of the device
 * bound (every launch's kernel_fixed, and the work) and the host bound (the host enqueues
 * a further launch at the kernel's own t_next when calibrated, else the device's
 * kernel_next, and the last launch runs after it: kernel_fixed, + d when it is busy),
 * less the host's `lead` at the first launch (host_lead).
 * Without kernel_next (older profiles) every launch costs kernel_fixed on top of the
 * work, and a count below one (the rest of a preempted one-launch job) that share of a
 * launch. */
static double launches_span(params_t *p, double launches, double busy, double work,
                            double t_next, double lead)
{
    const double f = param(p, RTM_DEV_P_kernel_fixed, false);
    if (!(launches > 0.0))
        return work;
    if ((!p->have[RTM_DEV_P_kernel_next] && !(t_next > 0.0)) || launches <= 1.0)
        return launches * f + work;
    const double next = t_next > 0.0 ? t_next : param(p, RTM_DEV_P_kernel_next, false);
    /* no busy launch left: every launch finds its work done */
    const double w = busy > 0.0 ? work : 0.0;
    const double last = f + (busy >= launches ? w / busy : 0.0);
    return max2(launches * f + w, (launches - 1.0) * next + last - lead);
}

double rtm_model_paced_launches(double launches, double busy)
{
    return busy >= launches ? launches : RTM_MODEL_PACED_FLAT;
}

/* Extended: waves over compute units, roofline (generic r only), fixed time per launch,
 * per-command transfers. */
static void dev_ext(const rtm_model_job_t *j, const rtm_board_dev_t *d, const work_t *w,
                    unsigned flags, rtm_model_time_t *t)
{
    params_t p = {d->param, d->have, dev_key, RTM_OK, NULL};
    const double rk = kernel_r_at(d->ktune, j->kernel, j->cost.bytes_ws);
    const double r = rk > 0.0 ? rk : param(&p, RTM_DEV_P_r_op, false);
    const double units = param(&p, RTM_DEV_P_units, true);
    const double cus = param(&p, RTM_DEV_P_cus, true);
    const double res_k =
        rk > 0.0 ? kernel_term(d->ktune, j->kernel, offsetof(rtm_board_ktune_t, resident)) : 0.0;
    const double resident = res_k > 0.0 ? res_k : param(&p, RTM_DEV_P_resident, true);
    const double ops_block = j->cost.Z * j->cost.li / busy_blocks(j);
    const double per_cu = rtm_model_busiest_groups(w->blocks_busy, cus);
    const double t_wave = resident * ops_block * r * cus / units;
    double compute = w->blocks_busy > 0.0
                         ? t_wave * rtm_model_occupancy(per_cu, resident, res_k > 0.0)
                         : 0.0;
    /* the kernel's own rate scale (p_ops), for its work and its rows' factor below */
    const double scale = rk > 0.0 ? kernel_scale(d->ktune, j->kernel, j->cost.Z * j->cost.li) : 1.0;
    compute *= scale;
    double ws = 0.0, wr = 0.0, setup = 0.0;
    if (w->bytes_dev > 0.0) {
        const double km = rk > 0.0 ? kernel_rate(d->ktune, j->kernel) : 0.0;
        if (km > 0.0) {
            if (j->cost.bytes_ws > param(&p, RTM_DEV_P_cache, false))
                compute = max2(compute, w->bytes_dev / km);
        } else if (rk <= 0.0) {
            compute = max2(compute, w->bytes_dev / param(&p, RTM_DEV_P_mem_rate, true));
        }
    }
    const double xin = xfer_in(&p, w->bytes_in); /* before the kernels' gap below */
    if (w->bytes_in > 0.0) {
        ws = commands(&p, j->n_in, RTM_DEV_P_ws_fixed, RTM_DEV_P_ws_next, xin) + xin;
        if (j->no_clear && d->have[RTM_DEV_P_ws_clear]) /* calibrated with the clears first */
            ws = max2(0.0, ws - param(&p, RTM_DEV_P_ws_clear, false));
    } else if (d->have[RTM_DEV_P_ws_clear]) {
        ws = param(&p, RTM_DEV_P_ws_clear, false); /* the clears alone */
    }
    if (w->bytes_out > 0.0) {
        const double xout =
            xfer(&p, w->bytes_out, RTM_DEV_P_wr_rate, RTM_DEV_P_wr_knee, RTM_DEV_P_wr_rate_big,
                 RTM_DEV_P_wr_knee2, RTM_DEV_P_wr_rate_big2);
        wr = commands(&p, j->n_out, RTM_DEV_P_wr_fixed, RTM_DEV_P_wr_next, xout) + xout;
    }
    /* a device the job finds idle (the running system's periodic jobs) starts its
     * inputs, and its outputs, later than calibration's back-to-back jobs; the inputs'
     * part is its first kernel-type command's (calibration's clears), which for a job
     * that clears nothing is its kernel (session 71, H100) */
    double idle_k = 0.0;
    if (w->idle && d->have[RTM_DEV_P_ws_idle]) {
        if (j->no_clear && w->bytes_in > 0.0)
            idle_k = param(&p, RTM_DEV_P_ws_idle, false);
        else
            ws += param(&p, RTM_DEV_P_ws_idle, false);
    }
    if (w->idle && w->bytes_out > 0.0 && d->have[RTM_DEV_P_wr_idle])
        wr += param(&p, RTM_DEV_P_wr_idle, false);
    if (flags & RTM_MODEL_F_COLD)
        setup = param(&p, RTM_DEV_P_cache_load, false);
    const double tf = rk > 0.0 ? kernel_fixed(d->ktune, j->kernel) : 0.0;
    const double rb = rk > 0.0 ? kernel_term(d->ktune, j->kernel,
                                             offsetof(rtm_board_ktune_t, r_byte))
                               : 0.0;
    const double tn = kernel_term(d->ktune, j->kernel, offsetof(rtm_board_ktune_t, t_next));
    /* the job's own build: its in-loop polls' share of the work (1 = calibration's); and
     * its rows: aligned ones at the kernel's own rate for them */
    const double al = aligned_factor(d->ktune, j->kernel, &j->cost, rk * scale);
    /* and, on a CPU-type device, a strided walk its L1 aliases (as the CPU pool's) */
    const double as = kernel_term(d->ktune, j->kernel, offsetof(rtm_board_ktune_t, aliased));
    const double build = (1.0 + j->poll_cost) * al *
                         (as > 0.0 ? 1.0 + rtm_model_dev_alias_share(&j->cost, d) * (as - 1.0)
                                   : 1.0);
    const double lead = (flags & RTM_MODEL_F_KERNELS) ? 0.0 : host_lead(&p, xin);
    const double kernel =
        idle_k + tf + launches_span(&p, w->launches, w->launches_busy,
                                    (compute + w->bytes_dev * rb) * build, tn, lead);
    if (d->have[RTM_DEV_P_phase_gap]) { /* idle before the kernels, and before the outputs */
        const double g = param(&p, RTM_DEV_P_phase_gap, false);
        wr += host_paced(&p, g, RTM_DEV_P_gap_host_k, xin);
        if (w->bytes_out > 0.0)
            wr += host_paced(&p, g, RTM_DEV_P_gap_host_o, kernel);
    }
    finish(t, &p, ws, kernel, wr, setup);
}

/* ---- CPU worker pool --------------------------------------------------------------- */

/* sum_k r_k * li * z_k over the classes the kernel uses. */
static double cpu_ops_time(const rtm_cost_t *c, double li, params_t *p)
{
    double sum = 0.0;
    for (int k = 0; k < RTM_LOC_COUNT; k++)
        if (c->z[k] > 0.0)
            sum += param(p, cpu_r_id[k], false) * li * c->z[k];
    return sum;
}

/* Seed 000 eq. 1: T(n) = sum_k r_k li z_k / (lp n) + w md + cw + ti. */
static void cpu_paper(const rtm_model_job_t *j, const rtm_board_t *b, double n,
                      const work_t *w, rtm_model_time_t *t)
{
    params_t p = {b->cpu_param, b->cpu_have, cpu_key, RTM_OK, NULL};
    const double ops = cpu_ops_time(&j->cost, w->li, &p);
    const double lp = param(&p, RTM_CPU_P_lp, true);
    const double cw = param(&p, RTM_CPU_P_cw, false);
    const double ti = param(&p, RTM_CPU_P_ti, false);
    double comm = 0.0;
    if (j->cost.md > 0.0)
        comm = param(&p, RTM_CPU_P_w, false) * j->cost.md;
    finish(t, &p, 0.0, ops / (lp * n) + comm + cw + ti, 0.0, 0.0);
}

double rtm_model_alias_share(const rtm_cost_t *c, double size, double ways, double line)
{
    const double walk = c ? c->stride_walk : 0.0, stride = c ? c->stride_bytes : 0.0;
    if (!(size > 0.0 && size <= PARAM_MAX && ways >= 1.0 && ways <= size && line >= 1.0 &&
          line * ways <= size && stride >= line && stride <= PARAM_MAX && walk >= 1.0 &&
          walk <= PARAM_MAX))
        return 0.0;
    const double sets = (double)(uint64_t)(size / (ways * line));
    const uint64_t span = (uint64_t)(sets * line); /* the bytes one way maps */
    if (sets < 1.0 || span == 0 || walk > sets * ways)
        return 0.0; /* past the L1 whatever the stride: the fitted sizes' regime */
    /* the walk's addresses repeat their offset within a way every span / gcd steps */
    const uint64_t reach_sets = span / rtm_model_gcd((uint64_t)stride % span, span); /* exact */
    const double reach = (double)reach_sets;
    const double room = (reach < sets ? reach : sets) * ways;
    if (walk <= room)
        return 0.0;
    const double share = 2.0 * (walk - room) / walk;
    return share < 1.0 ? share : 1.0;
}

double rtm_model_cpu_alias_share(const rtm_cost_t *c, const rtm_board_t *b)
{
    if (!b || !b->cpu_have[RTM_CPU_P_l1d] || !b->cpu_have[RTM_CPU_P_l1d_ways] ||
        !b->cpu_have[RTM_CPU_P_line])
        return 0.0;
    return rtm_model_alias_share(c, b->cpu_param[RTM_CPU_P_l1d],
                                 b->cpu_param[RTM_CPU_P_l1d_ways], b->cpu_param[RTM_CPU_P_line]);
}

double rtm_model_dev_alias_share(const rtm_cost_t *c, const rtm_board_dev_t *d)
{
    if (!d || !d->have[RTM_DEV_P_l1d] || !d->have[RTM_DEV_P_l1d_ways] ||
        !d->have[RTM_DEV_P_line])
        return 0.0;
    return rtm_model_alias_share(c, d->param[RTM_DEV_P_l1d], d->param[RTM_DEV_P_l1d_ways],
                                 d->param[RTM_DEV_P_line]);
}

/* Extended: whole blocks over n workers, roofline (generic r only), dispatch per block,
 * join per launch; after idling, the shorter of the workers' launch and the caller's
 * alone (one-launch jobs, where cw_wake is calibrated). */
static void cpu_ext(const rtm_model_job_t *j, const rtm_board_t *b, double n, const work_t *w,
                    rtm_model_time_t *t)
{
    params_t p = {b->cpu_param, b->cpu_have, cpu_key, RTM_OK, NULL};
    const rtm_cost_t *c = &j->cost;
    const double rk = kernel_r_at(b->cpu_ktune, j->kernel, c->bytes_ws);
    const double ops = c->li * (c->z[RTM_LOC_SCALAR] + c->z[RTM_LOC_UNIT] + c->z[RTM_LOC_STRIDED]);
    double t1;
    if (rk > 0.0)
        t1 = rk * ops;
    else
        t1 = cpu_ops_time(c, c->li, &p) / param(&p, RTM_CPU_P_lp, true);
    const double per_thread = ceil_pos(w->blocks / n);
    const double per_thread_busy = ceil_pos(w->blocks_busy / n); /* blocks with work */
    const double dispatch = param(&p, RTM_CPU_P_dispatch, false);
    const double cw = param(&p, RTM_CPU_P_cw, false);
    /* a block's time, with the kernel's own size correction where calibrated */
    const double al =
        rk > 0.0 ? kernel_term(b->cpu_ktune, j->kernel, offsetof(rtm_board_ktune_t, aliased))
                 : 0.0;
    const double scale = rk > 0.0 ? kernel_scale(b->cpu_ktune, j->kernel, ops) : 1.0;
    const double t_block = t1 / busy_blocks(j) * scale *
                           (rk > 0.0 ? aligned_factor(b->cpu_ktune, j->kernel, c, rk * scale)
                                     : 1.0) *
                           (al > 0.0 ? 1.0 + rtm_model_cpu_alias_share(c, b) * (al - 1.0) : 1.0);
    /* the memory roofline over all workers' traffic, where it applies */
    double mem = 0.0;
    if (w->bytes_dev > 0.0) {
        const double km = rk > 0.0 ? kernel_rate(b->cpu_ktune, j->kernel) : 0.0;
        if (km > 0.0) {
            if (c->bytes_ws > param(&p, RTM_CPU_P_cache, false))
                mem = w->bytes_dev / km;
        } else if (rk <= 0.0) {
            mem = w->bytes_dev / param(&p, RTM_CPU_P_mem_rate, true);
        }
    }
    const double tf = rk > 0.0 ? kernel_fixed(b->cpu_ktune, j->kernel) : 0.0;
    const double rb = rk > 0.0 ? kernel_term(b->cpu_ktune, j->kernel,
                                             offsetof(rtm_board_ktune_t, r_byte))
                               : 0.0;
    /* after idling, the first launch's wake-up and join: cw_idle, where calibrated; with
     * the workers warmed ahead, cw_warm */
    const int first = w->idle ? RTM_CPU_P_cw_idle : w->warm ? RTM_CPU_P_cw_warm : RTM_CPU_P_cw;
    double cw_first = b->cpu_have[first] ? param(&p, first, false) : cw;
    /* and more (less) the longer (shorter) the pool idled than calibration's 20 ms */
    const bool after_idle = w->idle || w->warm;
    if (after_idle && j->idle_s > 0.0 && b->cpu_have[RTM_CPU_P_cw_idle_log2]) {
        const double idle = j->idle_s < IDLE_MIN_S ? IDLE_MIN_S
                            : j->idle_s > IDLE_MAX_S ? IDLE_MAX_S
                                                     : j->idle_s;
        cw_first = max2(cw, cw_first + param(&p, RTM_CPU_P_cw_idle_log2, false) *
                                           log2(idle / (RTM_MODEL_IDLE_NS * 1e-9)));
    }
    /* after idling, its data out of the workers' caches: read and written once more at
     * cold_rate, where calibrated, while its working set fits the cache */
    double cold = 0.0;
    if (after_idle && b->cpu_have[RTM_CPU_P_cold_rate] && w->bytes_dev > 0.0 &&
        !(b->cpu_have[RTM_CPU_P_cache] && c->bytes_ws > param(&p, RTM_CPU_P_cache, false)))
        cold = min2(w->bytes_dev, 2.0 * c->bytes_ws) / param(&p, RTM_CPU_P_cold_rate, true);
    double kernel = tf + max2(per_thread_busy * t_block, mem) + w->bytes_dev * rb +
                    per_thread * dispatch + (w->launches - 1.0) * cw + cw_first + cold;
    /* after idling, a launch the caller finishes before its workers wake ends without
     * them (pool.h): every block on the caller, plus its call that wakes them (cw_wake) */
    if (w->idle && w->launches <= 1.0 && b->cpu_have[RTM_CPU_P_cw_wake]) {
        const double alone = tf + max2(w->blocks_busy * t_block, mem) + w->bytes_dev * rb +
                             w->blocks * dispatch + param(&p, RTM_CPU_P_cw_wake, false) + cold;
        if (alone < kernel)
            kernel = alone;
    }
    finish(t, &p, 0.0, kernel, 0.0, 0.0);
}

/* ---- public ------------------------------------------------------------------------ */

static void time_lerp(const rtm_model_time_t *a, const rtm_model_time_t *b, double f,
                      rtm_model_time_t *out)
{
    *out = *a;
    if (a->status != RTM_OK || b->status != RTM_OK) {
        if (a->status == RTM_OK)
            *out = *b;
        return;
    }
#define RTM_LERP_(x) out->x = a->x + (int64_t)((double)(b->x - a->x) * f)
    RTM_LERP_(in_ns);
    RTM_LERP_(kernel_ns);
    RTM_LERP_(out_ns);
    RTM_LERP_(setup_ns);
    RTM_LERP_(total_ns);
#undef RTM_LERP_
}

void rtm_model_pred_lerp(const rtm_model_pred_t *a, const rtm_model_pred_t *b, double f,
                         rtm_model_pred_t *out)
{
    f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
    rtm_model_pred_t r = *a;
    time_lerp(&a->paper, &b->paper, f, &r.paper);
    time_lerp(&a->ext, &b->ext, f, &r.ext);
    const rtm_model_time_t *u = rtm_model_used(&r);
    r.total_ns = u->status == RTM_OK ? u->total_ns : -1;
    *out = r;
}

static rtm_status_t pick(rtm_model_pred_t *out, rtm_model_kind_t kind)
{
    out->kind = kind;
    const rtm_model_time_t *u = rtm_model_used(out);
    out->total_ns = u->status == RTM_OK ? u->total_ns : -1;
    return u->status;
}

static rtm_status_t fail_both(rtm_model_pred_t *out, rtm_model_kind_t kind, rtm_status_t st)
{
    fail(&out->paper, st);
    fail(&out->ext, st);
    return pick(out, kind);
}

static bool kind_ok(rtm_model_kind_t kind)
{
    return kind == RTM_MODEL_PAPER || kind == RTM_MODEL_EXTENDED;
}

rtm_status_t rtm_model_predict_dev_rest(const rtm_model_job_t *job, const rtm_board_dev_t *dev,
                                        uint32_t blocks_remaining, uint32_t blocks_total,
                                        rtm_model_kind_t kind, unsigned flags,
                                        rtm_model_pred_t *out)
{
    if (!out)
        return RTM_E_ARG;
    if (!job || !dev || !kind_ok(kind))
        return fail_both(out, RTM_MODEL_PAPER, RTM_E_ARG);
    work_t w;
    const rtm_status_t st = work_make(job, blocks_remaining, blocks_total, flags, &w);
    if (st != RTM_OK)
        return fail_both(out, kind, st);
    dev_paper(job, dev, &w, &out->paper);
    dev_ext(job, dev, &w, flags, &out->ext);
    return pick(out, kind);
}

rtm_status_t rtm_model_predict_dev(const rtm_model_job_t *job, const rtm_board_dev_t *dev,
                                   rtm_model_kind_t kind, unsigned flags,
                                   rtm_model_pred_t *out)
{
    const uint32_t blocks = job ? job->blocks : 0;
    return rtm_model_predict_dev_rest(job, dev, blocks, blocks, kind, flags, out);
}

rtm_status_t rtm_model_predict_cpu_rest(const rtm_model_job_t *job, const rtm_board_t *board,
                                        uint32_t threads, uint32_t blocks_remaining,
                                        uint32_t blocks_total, rtm_model_kind_t kind,
                                        unsigned flags, rtm_model_pred_t *out)
{
    if (!out)
        return RTM_E_ARG;
    if (!job || !board || !kind_ok(kind))
        return fail_both(out, RTM_MODEL_PAPER, RTM_E_ARG);
    const uint32_t n = threads ? threads : board->threads;
    work_t w;
    rtm_status_t st = n ? RTM_OK : RTM_E_ARG;
    if (st == RTM_OK)
        st = work_make(job, blocks_remaining, blocks_total, flags, &w);
    if (st != RTM_OK)
        return fail_both(out, kind, st);
    cpu_paper(job, board, (double)n, &w, &out->paper);
    cpu_ext(job, board, (double)n, &w, &out->ext);
    return pick(out, kind);
}

rtm_status_t rtm_model_predict_cpu(const rtm_model_job_t *job, const rtm_board_t *board,
                                   uint32_t threads, rtm_model_kind_t kind, unsigned flags,
                                   rtm_model_pred_t *out)
{
    const uint32_t blocks = job ? job->blocks : 0;
    return rtm_model_predict_cpu_rest(job, board, threads, blocks, blocks, kind, flags, out);
}

rtm_status_t rtm_model_job_make(const rtm_kinst_t *k, rtm_model_job_t *job)
{
    if (!k || !job || !k->kernel || k->plan.launches == 0)
        return RTM_E_ARG;
    memset(job, 0, sizeof(*job));
    rtm_kinst_cost(k, &job->cost);
    const uint64_t blocks = rtm_kinst_blocks(k);
    if (blocks == 0 || blocks > UINT32_MAX)
        return RTM_E_ARG;
    job->blocks = (uint32_t)blocks;
    job->blocks_busy = job->blocks;
    if (job->cost.launches_busy < k->plan.launches)
        job->blocks_busy = (uint32_t)rtm_kinst_blocks_upto(k, job->cost.launches_busy);
    job->wg = k->tune.wg;
    job->n_in = rtm_kinst_bufs(k, RTM_BUF_IN); /* INOUT = IN | OUT; SCRATCH neither */
    job->n_out = rtm_kinst_bufs(k, RTM_BUF_OUT);
    job->kernel = rtm_kernel_index(k->kernel);
    return RTM_OK;
}

const char *rtm_model_name(rtm_model_kind_t kind)
{
    return kind == RTM_MODEL_EXTENDED ? "extended" : "paper";
}

double rtm_model_correct(double f, double a, double measured, double predicted)
{
    if (!(predicted > 0.0))
        return f;
    double r = measured / predicted;
    r = r < 1.0 / RTM_MODEL_CORR_MAX ? 1.0 / RTM_MODEL_CORR_MAX
        : r > RTM_MODEL_CORR_MAX     ? RTM_MODEL_CORR_MAX
                                     : r;
    return (1.0 - a) * f + a * r;
}
