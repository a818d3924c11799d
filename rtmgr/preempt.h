/* preempt.h — GPU preemption by abort flag with completed-block checkpoint, and resume
 * elsewhere (seed 002).
 *
 * A job is one kernel instance (rtm_kinst_t, host buffers bound) run through one
 * rtm_preempt_job_t. The job starts on an OpenCL device asynchronously; the executive
 * polls it, or aborts it: the flag is raised, the running kernel stops within a block
 * (or a poll period), and the job keeps the completed-block array of every launch and
 * the launch it reached. It is then resumed — on the same device (whose buffers still
 * hold the completed blocks' outputs), on another device (the state is uploaded), or on
 * the CPU through the kernel's twin (cpu_block) into the same host buffers — running
 * only the blocks that had not completed. A job may be preempted any number of times.
 *
 *     IDLE --start--> RUNNING --poll/wait--> DONE
 *                       |  ^
 *                 abort |  | resume_gpu
 *                       v  |
 *                     STOPPED --resume_cpu--> DONE
 *
 * Multi-launch kernels (sort's merge passes): the completed-block array has one slice per
 * launch (kexec.h), so a stop records the launch reached; launches are enqueued at most
 * `window` ahead of the running one so that an abort does not wait for a long queue of
 * launches to drain (each would still start and exit at its entry check); poll() and
 * wait() keep the window full. At most one launch is ever partly done: the flag stays up
 * until resume, so every launch after the interrupted one exits at entry.
 *
 * Memory: the job's host arrays live in caller-provided storage (rtm_preempt_job_bytes);
 * after init no function allocates. All functions are for one thread per job, except
 * rtm_preempt_stop_cpu, which may be called from any thread. */
#ifndef RTM_PREEMPT_H
#define RTM_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kexec.h"
#include "limits.h"
#include "model.h"
#include "pool.h"

typedef enum {
    RTM_PREEMPT_IDLE,    /* initialised, never started */
    RTM_PREEMPT_RUNNING, /* enqueued on a device */
    RTM_PREEMPT_STOPPED, /* aborted; remaining blocks recorded */
    RTM_PREEMPT_DONE,    /* every block of every launch completed; outputs on the host */
} rtm_preempt_state_t;

/* What an abort found. */
typedef struct {
    double response_s;        /* flag raised -> last enqueued kernel finished (monotonic):
                               * its end mark seen (kexec.h rtm_kexec_end_mark) where the
                               * kexec has one, else its event seen complete */
    double event_s;           /* flag raised -> the last kernel's event seen complete */
    bool marked;              /* response_s is the end mark's */
    double readback_s;        /* completed-block arrays and buffers read back */
    uint32_t launch;          /* first launch with unfinished blocks (launches: none) */
    uint32_t remaining;       /* unfinished blocks of that launch */
    uint64_t remaining_total; /* unfinished blocks over all launches */
    bool finished;            /* the job completed before the flag took effect */
    /* where response_s went (host monotonic clock unless "device"; -1 = not known):
     * raise_call_s  the raise call itself (enqueue + flush, or the stores);
     * landed_s      raise -> the flag transfer seen complete by the host (WRITE);
     * dev_xfer_s    device clock: the flag transfer queued -> ended (submit + copy);
     * dev_drain_s   device clock: the flag transfer ended -> the last kernel ended
     *               (the kernel sees the flag, its groups finish their strip/block);
     * notice_s      the kernel ended -> the host saw its event: event_s minus the device
     *               interval from the transfer's queued stamp to the kernel's end
     *               (assumes the queued stamp is taken at the raise call) */
    double raise_call_s, landed_s, dev_xfer_s, dev_drain_s, notice_s;
    /* device clock, from the first kernel's start of this run (-1 = not known):
     * dev_kernel_s        -> the last kernel's end (the kernels' length in this run);
     * dev_raise_queued_s  -> the flag transfer queued (negative: before the kernel);
     * dev_raise_end_s     -> the flag transfer ended (after dev_kernel_s: landed late);
     * host clock, set by rtm_preempt_abort_series_ex only (else 0):
     * start_call_s        the start call's duration;
     * raise_at_s          start call entered -> flag raised */
    double dev_kernel_s, dev_raise_queued_s, dev_raise_end_s, start_call_s, raise_at_s;
    /* flag raised -> the last kernel ended, on the host clock, whenever the host looked:
     * the kernel's END stamp carried onto the host clock through the checkpoint read's
     * QUEUED stamp (the device's clock when that read was enqueued, against the host's
     * just before; a few us of error). A caller that enqueues other work between raise
     * and stopped (the executive's next job) still gets the kernel's own stop from it.
     * 0 when the kernels ended before the raise; -1 = not known (no checkpoint read, no
     * stamps, or a carry that puts the end of kernels the raise stopped before the raise:
     * on NVIDIA's driver for kernels of 10 ms or more, docs/preempt.md) */
    double stop_s;
} rtm_preempt_stop_t;

typedef struct {
    const rtm_kinst_t *k;
    rtm_kexec_t *x;            /* device the job runs on, or last ran on (NULL: none yet) */
    rtm_preempt_state_t state;
    uint32_t launches, stride; /* stride: bytes per launch in `done` (= x->done_stride) */
    uint32_t window;           /* launches enqueued ahead; 0 = all at once */
    uint32_t launch;           /* first launch not known to be complete */
    uint32_t next;             /* RUNNING: next launch to enqueue */
    uint8_t *done;             /* [launches * stride] host copy of the completed blocks */
    uint32_t *map;             /* [blocks_max] block ids of the resumed launch */
    uint32_t *count;           /* [launches * stride] completions (counting builds), or NULL */
    uint32_t *count_tmp;       /* [launches * stride] read-back scratch, or NULL */
    bool dev_fresh;            /* x's device buffers hold the job's latest state */
    bool host_fresh;           /* k->host holds the job's latest state */
    cl_event ring[RTM_PREEMPT_WINDOW_MAX]; /* events of launches in flight (windowed) */
    uint32_t ring_head, ring_n;
    cl_event first_ev;         /* the first kernel enqueued by this start or resume */
    cl_event last_ev;          /* the last enqueued kernel (a chunked run: its latest chunk) */
    cl_event last2_ev;         /* a chunked run: the other queue's latest chunk, or NULL */
    bool chunked;              /* the run in progress goes in chunks (kexec.h): its chunks
                                * are released as it is polled, two ahead of the first
                                * still running, none once the flag is raised */
    cl_event out_ev;           /* a finishing job's end: its last output transfer, or a
                                * marker when it has no output buffer */
    cl_event side_ev;          /* STOPPED (read_beside): the aborted run's output reads on
                                * the side queue, still in flight; settled (waited for)
                                * before anything touches the job's buffers again */
    cl_event end_ev;           /* DONE: the finished run's out_ev, kept for the caller's
                                * profiling (the device span's end) until the next reset */
    int cpu_stop;              /* set by rtm_preempt_stop_cpu (atomic access) */
    bool raised;               /* RUNNING: rtm_preempt_raise was called, stopped is next */
    /* statistics */
    /* the last run, finished or aborted (0 after a reset) */
    double run_latency_s;      /* first kernel queued -> started */
    double run_kernel_s;       /* first kernel start -> last kernel end */
    uint32_t preemptions;
    uint64_t blocks_gpu_resumed; /* blocks enqueued by resumes on a device */
    uint64_t blocks_cpu;         /* blocks the CPU twin computed */
} rtm_preempt_job_t;

/* Host storage a job of k needs (k planned; `count`: completion counters). Init only. */
size_t rtm_preempt_job_bytes(const rtm_kinst_t *k, bool count);
/* Prepares a job of k (planned, bound, inputs filled) in `mem` (>= job_bytes, 8-byte
 * aligned). `window`: launches enqueued ahead, 0 = all. `count` must match the
 * executors' opts.count_blocks. Init only. */
rtm_status_t rtm_preempt_job_init(rtm_preempt_job_t *job, const rtm_kinst_t *k, void *mem,
                                  size_t bytes, uint32_t window, bool count);
/* Releases the job's OpenCL events (waits for what it has in flight). Init only. */
void rtm_preempt_job_release(rtm_preempt_job_t *job);
/* Back to IDLE (every block unfinished, counters zero); the job must not be RUNNING.
 * The host inputs must be as at start (refill them). Real-time safe. */
rtm_status_t rtm_preempt_job_reset(rtm_preempt_job_t *job);

/* Starts an IDLE job on x (created for job->k with the same counting option): inputs,
 * flag and completed-block arrays are enqueued, then the first launches; returns at
 * once. Real-time safe. */
rtm_status_t rtm_preempt_start(rtm_preempt_job_t *job, rtm_kexec_t *x);
/* Same; with `inputs` false the input transfers are skipped (x's buffers already hold
 * this job's inputs: a rerun of a job whose launches do not change them; the block
 * control is cleared either way, once). `first` / `last` (each may be NULL) receive
 * the events of the first and last of those commands (clears, then input transfers),
 * for the job's profiled transfer time; the caller releases them. */
rtm_status_t rtm_preempt_start_ex(rtm_preempt_job_t *job, rtm_kexec_t *x, bool inputs,
                                  cl_event *first, cl_event *last);
/* Does the RUNNING job have chunks still to release (kexec.h chunks), or launches beyond
 * its window still to enqueue? Then someone must poll it (rtm_preempt_poll) about every
 * RTM_PREEMPT_CHUNK_POLL_S, or its device idles once two chunks have run or its window
 * has drained (until session 79 a windowed job was not paced: the bench's resume section
 * slept through grid_path's first half with 8 of its 128 launches queued). Safe
 * anywhere. */
bool rtm_preempt_pacing(const rtm_preempt_job_t *job);
/* Sleeps until t (host monotonic seconds), spinning the last prewake_s; a job with chunks
 * to release or launches beyond its window (rtm_preempt_pacing) is polled every
 * RTM_PREEMPT_CHUNK_POLL_S on the way. Real-time safe. */
rtm_status_t rtm_preempt_sleep_until_s(rtm_preempt_job_t *job, double t, double prewake_s);
/* Non-blocking progress of a RUNNING job: releases a chunked run's chunks (two ahead of
 * the first still running), keeps the launch window full, enqueues the
 * output reads once the last kernel has ended (x->read_late; else the start call or the
 * last launch's enqueue did), and when the outputs have arrived sets *finished and the
 * state DONE. Real-time safe. */
rtm_status_t rtm_preempt_poll(rtm_preempt_job_t *job, bool *finished);
/* Blocks until the RUNNING job is DONE (outputs on the host). On GPUs it spins on the
 * events' status (clWaitForEvents may sleep and wake late); on CPU devices it blocks. */
rtm_status_t rtm_preempt_wait(rtm_preempt_job_t *job);

/* Aborts the job. RUNNING: raises the flag, busy-waits for the last enqueued kernel to
 * end (response_s), reads back the completed-block arrays and, with `readback`, every
 * buffer the kernels write (so the CPU can resume); state STOPPED, or DONE when every
 * block had completed. IDLE, STOPPED, DONE: nothing runs; `out` describes the state.
 * Real-time safe (blocks while the kernel drains and the data comes back).
 * rtm_preempt_raise then rtm_preempt_stopped. */
rtm_status_t rtm_preempt_abort(rtm_preempt_job_t *job, bool readback, rtm_preempt_stop_t *out);
/* The abort in two halves. raise: the flag only, returns at once (nothing when the job
 * is not RUNNING). stopped: the rest of rtm_preempt_abort (raising first if raise was
 * not called). Between the two the caller may enqueue another job on the device's
 * exec queue: the device starts it as soon as this job's commands have ended, since
 * stopped waits for this job's own events and reads the checkpoint (completed-block
 * arrays, counters, outputs of a job that finished anyway, `readback` state) through
 * the control queue, never behind what was enqueued after it. Real-time safe. */
rtm_status_t rtm_preempt_raise(rtm_preempt_job_t *job);
rtm_status_t rtm_preempt_stopped(rtm_preempt_job_t *job, bool readback, rtm_preempt_stop_t *out);

/* Resumes a STOPPED (or starts an IDLE) job on x asynchronously: only the unfinished
 * blocks of the launch reached run (through the block map), then the later launches.
 * On the device it last ran on nothing is transferred; on another one, the host state
 * (read back now if needed), inputs and completed-block arrays are uploaded first.
 * Real-time safe. */
rtm_status_t rtm_preempt_resume_gpu(rtm_preempt_job_t *job, rtm_kexec_t *x);
/* A STOPPED job whose latest state is only on the device it stopped on: reads every
 * buffer the kernels write back into its host buffers (blocking) and marks them fresh,
 * so that another device or the CPU can take it over. No-op in every other case.
 * Real-time safe (blocks while the data comes back). */
rtm_status_t rtm_preempt_fetch(rtm_preempt_job_t *job);

/* Resumes a STOPPED (or runs an IDLE) job on the calling thread through the CPU twin:
 * reads the device state back if the host copy is stale, then computes only the
 * unfinished blocks into the host buffers. Returns RTM_OK (DONE) or RTM_E_ABORTED when
 * rtm_preempt_stop_cpu stopped it between two blocks (state STOPPED). Real-time safe. */
rtm_status_t rtm_preempt_resume_cpu(rtm_preempt_job_t *job);
/* rtm_preempt_resume_cpu on the worker pool (rtmgr/pool.h): each launch's unfinished
 * blocks are handed to the pool's workers (the pool must be started and idle; NULL =
 * the calling thread). Same results and states as rtm_preempt_resume_cpu. Real-time
 * safe. */
rtm_status_t rtm_preempt_resume_pool(rtm_preempt_job_t *job, rtm_pool_t *pool);
/* Asks a CPU resume in progress on another thread to stop after its current block(s).
 * Safe from any thread. */
void rtm_preempt_stop_cpu(rtm_preempt_job_t *job);

/* Unfinished blocks of `launch` (0 when launch >= launches); their ids go to out[0..max).
 * Safe anywhere. */
uint32_t rtm_preempt_remaining(const rtm_preempt_job_t *job, uint32_t launch, uint32_t *out,
                               uint32_t max);
/* Completed blocks over all launches. Safe anywhere. */
uint64_t rtm_preempt_done_blocks(const rtm_preempt_job_t *job);
/* Blocks per launch l of the job's kernel. Safe anywhere. */
uint32_t rtm_preempt_blocks(const rtm_preempt_job_t *job, uint32_t launch);

/* Splits k's grid (kernel `split` hook) when it has fewer than `min_blocks` blocks, so
 * that a few long blocks become many short ones; k is re-planned (bind it afterwards).
 * Returns the factor reached (1: unchanged). Init only. */
uint32_t rtm_preempt_split(rtm_kinst_t *k, uint32_t min_blocks);
/* Blocks a grid needs on device d to keep every resident work-group slot busy (the
 * split threshold). Safe anywhere. */
uint32_t rtm_preempt_min_blocks(const rtm_ocl_info_t *info, uint32_t wg);

/* Abort response of both flag transports on one device (calibration). */
typedef struct {
    bool works[2];       /* by rtm_abort_transport_t: the kernel stopped early */
    uint32_t n[2];       /* aborts measured */
    double p50_s[2], p99_s[2], max_s[2];
    double kernel_s;     /* uninterrupted probe kernel (wall) */
    rtm_abort_transport_t best;
} rtm_preempt_measure_t;

/* Tool for calibration and benchmarks: aborts a job of x's instance `aborts` times at
 * random instants inside its kernels (placed from the profiled start latency and length
 * of three uninterrupted reruns). samples[] gets the response of each abort that stopped
 * the job early (*n of them); *missed counts aborts that came after it had finished;
 * *kernel_s is its uninterrupted kernel time. The instance's launches must leave their
 * inputs unchanged (inputs are uploaded once; spin with one launch does). Init only. */
rtm_status_t rtm_preempt_abort_series(rtm_kexec_t *x, uint32_t aborts, uint64_t seed,
                                      double *samples, uint32_t *n, uint32_t *missed,
                                      double *kernel_s);
/* What the series' thread does in the last prewake_s before each raise, besides spinning
 * (bench preempt --poke): nothing, ask the driver for the job's event status, or write
 * 4 bytes to a scratch buffer on the control queue every RTM_PREEMPT_POKE_S (traffic to
 * the device, as a link or engine kept awake would need). */
typedef enum { RTM_PREEMPT_POKE_NONE, RTM_PREEMPT_POKE_POLL, RTM_PREEMPT_POKE_WRITE } rtm_preempt_poke_t;
#define RTM_PREEMPT_POKE_S 20e-6
typedef struct {
    double prewake_s;         /* spin this long before each raise (RTM_OS_SPIN_S) */
    rtm_preempt_poke_t poke;
    /* > 0: from the job's start to the prewake window, sleep and write 4 bytes to the
     * device every keepalive_s (traffic on the link through a long kernel, at a rate a
     * copy engine hardly notices; bench preempt --keepalive) */
    double keepalive_s;
} rtm_preempt_wake_t;

/* Same; stops[] (NULL: none; room for `aborts`) gets each counted abort's full record
 * (its response breakdown), in the order of samples[], and each missed abort's record
 * from the end: stops[aborts - 1 - m] for the m-th missed one; before each raise the
 * thread wakes as `wake` says (rtm_preempt_abort_series: RTM_OS_SPIN_S, no poke;
 * bench preempt --prewake, --poke). Init only. */
rtm_status_t rtm_preempt_abort_series_ex(rtm_kexec_t *x, uint32_t aborts, uint64_t seed,
                                         double *samples, rtm_preempt_stop_t *stops,
                                         uint32_t *n, uint32_t *missed, double *kernel_s,
                                         const rtm_preempt_wake_t *wake);

/* In-loop poll period calibration (RTM_POLL_EVERY) on the spin kernel of `grid` blocks
 * (about 10 ms): for each candidate K, overhead vs the original build (min of `runs`
 * event-profiled runs) and abort response over `aborts` aborts. */
#define RTM_PREEMPT_TUNE_MAX 8
typedef struct {
    uint32_t n; /* candidates measured */
    uint32_t k[RTM_PREEMPT_TUNE_MAX];
    double overhead_pct[RTM_PREEMPT_TUNE_MAX];
    double p50_s[RTM_PREEMPT_TUNE_MAX], p99_s[RTM_PREEMPT_TUNE_MAX];
    uint32_t best; /* the smallest K within max_overhead_pct, else the cheapest K */
} rtm_preempt_polltune_t;
rtm_status_t rtm_preempt_tune_poll(rtm_ocl_dev_t *d, rtm_abort_transport_t t, uint32_t grid,
                                   const uint32_t *ks, uint32_t nk, uint32_t runs,
                                   uint32_t aborts, double max_overhead_pct,
                                   rtm_preempt_polltune_t *out);

/* Kernels whose work-items run long loops polled through RTM_POLL_FOR / RTM_POLL_LOOP (matrix_mov,
 * matrix_loop_add, matrix_mul, manoeuvre, spin): their in-loop poll period is worth a
 * per-kernel calibration. Safe anywhere. */
bool rtm_preempt_loop_polls(const rtm_kernel_t *kernel);
/* The i-th of those kernels, most valuable to calibrate first (the application's, then
 * the matrix kernels, then spin); NULL past the last or when not in the catalogue. */
const rtm_kernel_t *rtm_preempt_loop_kernel(uint32_t i);

/* The abort response target (flag raised -> kernel finished, p99), and the in-loop poll
 * period that keeps it. The kernel ends when its last work-item has seen the flag, so a
 * raise costs up to two periods (a poll tests the value its previous poll loaded) on
 * top of the path to the device flag, which the H100's watcher covers in about 18 us at
 * p99 (session 31: p99 22.0 us at spin's 2 us periods). Session 32 on the H100 (`bench
 * preempt --part response`, spin, four machines): with periods of 2-4 us every row's
 * p99 was under 37 us (two runs); with 5-11 us, 1 to 6 rows of 20 went over 50 us in
 * each of three runs (p99 48-152 us: the tail grows with the period). The largest
 * K whose K loop steps last at most RTM_PREEMPT_POLL_PERIOD_S, K0, bounds a kernel's
 * period (2.5-5 us); calibration measures K0, K0 / 2 and K0 / 4 and keeps the cheapest:
 * the overhead is not monotonic in K (H100, matrix_mov at n = 1 681: 17 / 6 / 23 % at
 * K = 16 / 32 / 64, the strips' code). */
#define RTM_PREEMPT_RESPONSE_S 50e-6
#define RTM_PREEMPT_POLL_PERIOD_S 5e-6
/* Blocks predicted at most this long get no in-loop polls: the one in flight when the
 * flag comes up ends within the two periods a poll could take. */
#define RTM_PREEMPT_POLL_BLOCK_S (2.0 * RTM_PREEMPT_POLL_PERIOD_S)

/* Do the loops of a job whose blocks are predicted at block_s (0: unknown) poll the
 * flag? Not when 0 < block_s <= RTM_PREEMPT_POLL_BLOCK_S. The executive's rule
 * (rtm_preempt_poll_opts) and the benchmark's production column. Safe anywhere. */
bool rtm_preempt_block_polls(double block_s);

/* K for a work-item loop step of step_s seconds: the largest power of two (16 to 65 536)
 * whose K steps last at most RTM_PREEMPT_POLL_PERIOD_S (16 when a step is unknown or
 * longer than a period / 16). Safe anywhere. */
uint32_t rtm_preempt_poll_k(double step_s);

/* Per-kernel in-loop poll period calibration (calibration, rtmgr/calibdev.c). */
typedef struct {
    uint32_t poll_every; /* chosen RTM_POLL_EVERY (the cheapest measured within K0);
                          * 0: not measured (out of time) */
    uint32_t n;          /* candidates measured (rtm_preempt_poll_ks's order) */
    uint32_t k[RTM_PREEMPT_TUNE_MAX];
    double overhead_pct[RTM_PREEMPT_TUNE_MAX]; /* vs the baseline build: `ref`'s where
                                                * given, else the same build without
                                                * in-loop polls (min of runs) */
    double resp_p50_s[RTM_PREEMPT_TUNE_MAX], resp_p99_s[RTM_PREEMPT_TUNE_MAX],
        resp_max_s[RTM_PREEMPT_TUNE_MAX]; /* abort response (0: not measured) */
    uint32_t resp_n[RTM_PREEMPT_TUNE_MAX];
    int64_t size0;       /* size key 0 measured at */
    double base_s;       /* the baseline build's kernel time (min of runs) */
    double step_s;       /* a work-item's loop step (base_s over waves and steps) */
    uint32_t compiled, loaded;     /* the search's programs: compiled, from the cache */
    double program_s;              /* their build and load time */
    double cost;         /* the chosen build's kernel time over the reference build's
                          * (`ref`), less 1: the median of cost_n interleaved pairs' ratios
                          * (ktune poll_cost); cost_lo, cost_hi their extremes; cost_n 0:
                          * not measured (no `ref`, or out of time) */
    double cost_lo, cost_hi;
    uint32_t cost_n;
} rtm_preempt_kpoll_t;

/* Calibrates `kernel`'s in-loop poll period on d: sizes an instance (tune; wg 0 = the
 * kernel's default) so that it runs >= ~1 ms, estimates a work-item's loop step from the
 * build without in-loop polls, measures K0 = rtm_preempt_poll_k(step), K0 / 2 and K0 / 4
 * against the no-poll build (min of `runs` interleaved event-profiled runs) and chooses
 * the cheapest. With `sweep` (benchmarks) it measures 2 K0 and 4 K0 as well (beyond the
 * response target: the trade-off); with aborts > 0 every candidate is aborted that many
 * times at random instants (response p50/p99/max, the watcher as the executive gives
 * it). `base` gives the transport, cache directory and flag copies (its variant and
 * poll fields are set here). `size` (NULL: sized here) gives the instance's sizes
 * instead (calibration: the size whose programs it built ahead; not for spin), and with
 * it t_hint > 0 the kernel time the periods are chosen from (rtm_preempt_poll_ks: the
 * prediction they were built ahead for, so that the search finds them built). With `ref`
 * (calibration: the build its model terms are fitted on, rtm_calib_point_opts) ref's
 * build is the baseline in place of the one without in-loop polls, and the chosen build
 * is then timed against it pair by pair (out->cost); NULL: neither. Gives up
 * (out->poll_every 0, RTM_OK) once rtm_os_now_s() passes `deadline`. Init only (builds
 * programs, allocates). */
rtm_status_t rtm_preempt_tune_kernel_poll(rtm_ocl_dev_t *d, const rtm_kexec_opts_t *base,
                                          const rtm_kexec_opts_t *ref,
                                          const rtm_kernel_t *kernel, rtm_tune_t tune,
                                          const int64_t *size, double t_hint, bool sweep,
                                          uint32_t runs, uint32_t aborts, double deadline,
                                          rtm_preempt_kpoll_t *out);

/* The candidates kp measured, as text in buf (len bytes, truncated to fit): "K 32 10.50%
 * (chosen), K 16 28.29%" — each period, its overhead, the one chosen marked. Calibration's
 * note and the benchmark's line. Returns buf. Safe anywhere. */
char *rtm_preempt_kpoll_text(const rtm_preempt_kpoll_t *kp, char *buf, size_t len);

/* The periods K that rtm_preempt_tune_kernel_poll measures, in order, for instance k (a
 * kernel whose work-items loop) whose kernel time without in-loop polls is t on the
 * device `info`: K0 = rtm_preempt_poll_k of its loop step, K0 / 2, K0 / 4 (not under 16),
 * and with `sweep` 2 K0 and 4 K0 (not over 65 536). Returns how many (ks[0..n)); *k0
 * (may be NULL) is K0. Calibration builds their programs ahead from a predicted t. */
uint32_t rtm_preempt_poll_ks(const rtm_ocl_info_t *info, const rtm_kinst_t *k, double t,
                             bool sweep, uint32_t ks[RTM_PREEMPT_TUNE_MAX], uint32_t *k0);

/* The kexec options rtm_preempt_tune_kernel_poll builds and runs a candidate with: base's,
 * with the full variant and in-loop polls every k steps (0: the build without in-loop
 * polls). Calibration builds the same programs ahead. */
rtm_kexec_opts_t rtm_preempt_poll_candidate(const rtm_kexec_opts_t *base, uint32_t k);

/* Blocks longer than this are long: their persistent groups store each fetched block id
 * in local memory when the block starts (rtm_kexec_opts_t.fetch_store, RTM_FETCH_STORE).
 * Until session 39 such blocks ran on a plain grid (one work-group per block), because
 * the persistent build cost matrix_mul and matrix_loop_add 20-52 % on the H100; that cost
 * was the fetched id held in a register through the block (with 32 registers the
 * compiler then batched fewer loads), the same with 1 056 to 62 500 groups. A plain grid's
 * blocks not yet started drain through their entry checks at about 0.6 ns each after a
 * raise (40 us for 65 536), so its response p99 was 56-71 us on 65 536 spin blocks of
 * 15-40 us, against 28-30 us (20-40 us blocks) on persistent groups. Grids of at most
 * RTM_KEXEC_PERSIST_MIN_BLOCKS blocks run plain either way (kexec's automatic shape). */
#define RTM_PREEMPT_LONG_BLOCK_S 10e-6

/* Launches whose chunks of RTM_KEXEC_CHUNK_BLOCKS would last this long or more (the
 * kernel's time over its blocks, times the chunk) can run in chunks (kexec.h chunks): a
 * plain grid cut into launches the host releases two ahead. The host must release a
 * chunk before the other queue's chunk reaches its last wave, about half a chunk after
 * the one before it ended; a job is polled every RTM_PREEMPT_CHUNK_POLL_S while it has
 * chunks to release (or launches beyond its window: rtm_preempt_pacing), so chunks of 0.75 ms leave it 375 us for a late wake-up. Shorter
 * chunks would not do: spin's 65 536 blocks of 15 us would be chunks of 57 us.
 * Production runs such launches in chunks (rtm_preempt_grid_opts) since session 65: on
 * the H100 with the device idle before each run (its clock off the power cap), chunks of
 * matrix_mul at n = 4 000 took -0.3 % against the original, persistent groups +5.5 %
 * (matrix_loop_add -13.5 % against -8.6 %, matrix_mov -1.9 % against -0.5 %; `rtmgr bench
 * preempt --part overhead`, board/h100/results/preempt-overhead-idle-s65f-h100.txt), and
 * their abort response with a watcher per chunk was p99 15.3 us against 18.9 us (session
 * 64). Session 64's +8 to +11 % for chunks came from back-to-back runs at 700 W, whose
 * power cap lowered the SM clock after the first few (powercap-s65-h100.txt). */
#define RTM_PREEMPT_CHUNK_MIN_S 0.75e-3
#define RTM_PREEMPT_CHUNK_POLL_S 200e-6

/* Sets o->chunk = RTM_KEXEC_CHUNK_BLOCKS where a launch of instance k whose kernels take
 * kernel_s would run in chunks of at least RTM_PREEMPT_CHUNK_MIN_S (one launch of more
 * blocks than a chunk; kexec lets chunks act on GPUs only), else leaves o as it is.
 * Returns whether the launch runs in chunks (o may be NULL: the rule alone). Safe
 * anywhere. */
bool rtm_preempt_chunk_for(const rtm_kinst_t *k, double kernel_s, rtm_kexec_opts_t *o);

/* A block's predicted duration (seconds) of instance k on device bd when its kernels
 * take kernel_s in all: kernel_s over the waves of blocks the device holds at once
 * (units / wg work-groups; one wave at least). 0 when unknown. Safe anywhere. */
double rtm_preempt_block_s(const rtm_board_dev_t *bd, const rtm_kinst_t *k, double kernel_s);

/* Sets o's launch shape from a block's duration: o->fetch_store for blocks longer than
 * RTM_PREEMPT_LONG_BLOCK_S, else leaves o as it is (the groups stay kexec's automatic
 * choice, or o's). Safe anywhere. */
void rtm_preempt_grid_for_block(double block_s, rtm_kexec_opts_t *o);

/* rtm_preempt_grid_for_block with the block time predicted from the model
 * (rtm_preempt_block_s), and chunks where rtm_preempt_chunk_for gives them for kernel_s.
 * Returns the block time used (0 when unknown: o left as it is). Safe anywhere. */
double rtm_preempt_grid_opts(const rtm_board_dev_t *bd, const rtm_kinst_t *k, double kernel_s,
                             rtm_kexec_opts_t *o);

/* Sets o's in-loop polls for a job of `kernel` on bd whose blocks are predicted at
 * block_s (0: unknown): none when 0 < block_s <= RTM_PREEMPT_POLL_BLOCK_S, else the
 * period the board profile's calibration chose (the default when none was calibrated;
 * none where an older profile recorded none). Safe anywhere. */
void rtm_preempt_poll_opts(const rtm_board_dev_t *bd, const rtm_kernel_t *kernel,
                           double block_s, rtm_kexec_opts_t *o);

/* The executive's build of a job of instance k on device bd and its prediction: *job =
 * rtm_model_job_make(k), predicted with bd's model and `flags` (RTM_MODEL_F_*: the
 * manager's RTM_MODEL_F_IDLE, validation's 0) into pr; o's launch shape
 * (rtm_preempt_grid_opts) and in-loop polls (rtm_preempt_poll_opts) from that
 * prediction's kernel time; where o then polls at the profile's period, job->poll_cost
 * becomes ktune poll_cost and pr that build's prediction. The manager's start-up,
 * validation and `rtmgr check` share it, so that each predicts the build the executive
 * runs. Returns the prediction's status; o is set even when it failed (unknown blocks
 * poll), and a job rtm_model_job_make refuses gives its status in both models' (pr
 * otherwise zero). Safe anywhere (pure). */
rtm_status_t rtm_preempt_predict_dev(const rtm_board_dev_t *bd, const rtm_kinst_t *k,
                                     unsigned flags, rtm_model_job_t *job, rtm_kexec_opts_t *o,
                                     rtm_model_pred_t *pr);

/* Measures the abort response of RTM_ABORT_WRITE and RTM_ABORT_MAPPED on d with the spin
 * kernel (about 20 ms long, `aborts` aborts each at random instants) and names the
 * better one (a transport that does not stop the kernel never wins). Init only. */
rtm_status_t rtm_preempt_measure(rtm_ocl_dev_t *d, uint32_t aborts, rtm_preempt_measure_t *out);

#endif
