/* exec.h — the real-time executive: periodic release, deadline-aware placement, EDF
 * ready queues and one dispatcher per device.
 *
 * Threads (created by rtm_exec_start, joined by rtm_exec_stop):
 *   - one release thread: sleeps on absolute CLOCK_MONOTONIC times
 *     (clock_nanosleep TIMER_ABSTIME) until the next release of any task (with
 *     wake_lead_ns, first until that long before it, to wake the idle GPUs the due tasks
 *     may run on: wake.h), measures its
 *     wake-up jitter (actual - intended), advances the input (synthetic scenario), and
 *     for every due task takes a job slot, places the job (place.h) on the device with
 *     the earliest predicted finish that meets the deadline, queues it EDF on that
 *     device and wakes the device's dispatcher; when placement says preempt, it asks
 *     that dispatcher to abort its running job;
 *   - one dispatcher per OpenCL device: pops its EDF queue, copies a consistent traffic
 *     snapshot into the instance (load_traffic, when the kernel has one), enqueues the
 *     job as a preemptible job (preempt.h: inputs, launches, outputs) and waits for
 *     its completion callback; a firm job still running at its deadline is aborted
 *     through the abort flag (the transport its rtm_kexec_t was created with: the board
 *     profile's);
 *   - one CPU dispatcher: the same for the host CPU, running the CPU twin's blocks
 *     (through the worker pool when a runner is given), which stop between blocks when
 *     the abort flag is raised;
 *   - one watchdog: raises the CPU abort flag when a running firm job reaches its
 *     deadline (the CPU dispatcher is inside the pool run then).
 * Preemption (issue 6): when placement says preempt, the release thread asks the
 * dispatcher of that device to abort its running job. The aborted job keeps its
 * completed-block arrays (and the launch reached) and is re-placed by the same rules,
 * each device's prediction being that of its unfinished blocks (rtm_place_remaining):
 * it resumes on the same device (only the unfinished blocks; nothing transferred), on
 * another OpenCL device whose instance has the same plan (state read back, uploaded),
 * or on the host CPU through the CPU twin on the worker pool (rtm_preempt_resume_pool,
 * only the unfinished blocks, into the instance's host buffers). Completed blocks'
 * outputs are kept; a job may be preempted any number of times. While a preempted job
 * holds a task's instance on a device, later jobs of that task wait for it there
 * (placement avoids that device for them).
 * Overruns: firm jobs are aborted at their deadline (dropped unstarted when their
 * deadline passed in the queue); soft jobs complete late; hard misses are alarms
 * (counted and reported). Every job ends in exactly one record handed to the sink.
 *
 * Memory: rtm_exec_t is one fixed-size object (tables sized by limits.h) initialised
 * by rtm_exec_init, which also allocates the host checkpoint storage of one
 * preemptible job per (task, OpenCL device) (freed by rtm_exec_destroy); after
 * rtm_exec_start nothing is allocated, no file is opened and no program is built. One mutex (priority inheritance) guards queues, device states and
 * statistics; each dispatcher waits on its own condition variable. */
#ifndef RTM_EXEC_H
#define RTM_EXEC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "edfq.h"
#include "hist.h"
#include "kexec.h"
#include "limits.h"
#include "os.h"
#include "place.h"
#include "pool.h"
#include "preempt.h"
#include "traffic.h"
#include "wake.h"

/* How a job ended. */
typedef enum {
    RTM_JOB_MET,       /* completed by its deadline */
    RTM_JOB_LATE,      /* completed after its deadline (soft: late; hard: alarm) */
    RTM_JOB_ABORTED,   /* firm job aborted at its deadline */
    RTM_JOB_DROPPED,   /* firm job dropped unstarted: deadline passed in the queue */
    RTM_JOB_REJECTED,  /* not run: no device, or the job table was full */
    RTM_JOB_CANCELLED, /* not run: the manager stopped first */
    RTM_JOB_FAILED,    /* the device reported an error */
    RTM_JOB_OUTCOME_COUNT
} rtm_job_outcome_t;

/* One finished job, for the model-error log. Times: CLOCK_MONOTONIC ns. */
typedef struct {
    uint32_t task;
    uint64_t job;             /* per-task job number, from 0 */
    int32_t device;           /* executive device index, -1 when never placed */
    rtm_crit_t crit;
    rtm_job_outcome_t outcome;
    rtm_place_reason_t reason;
    bool predicted_miss;      /* placement predicted the miss */
    bool met;                 /* outcome == RTM_JOB_MET */
    bool ran;                 /* the job executed (completed or aborted) */
    uint32_t preemptions;     /* times this job was aborted by a preemption */
    uint32_t resumes;         /* times it was resumed (unfinished blocks only) */
    int32_t first_device;     /* device of its first run (its predicted_ns), -1 never run */
    rtm_place_reason_t resume_reason; /* the last re-placement's reason (NONE: never) */
    uint64_t ckpt_blocks;     /* blocks completed when it was last aborted (0: never) */
    int64_t release_ns, deadline_ns; /* intended release, absolute deadline */
    int64_t start_ns, end_ns; /* first execution start, completion (0 when not run) */
    int64_t dev_start_ns, dev_end_ns; /* OpenCL: its first run's first command START, its
                                 last run's last command END, on the host clock (through
                                 the first command's QUEUED stamp); 0 when unknown, on the
                                 CPU pool, or a run that did not complete */
    int64_t predicted_ns;     /* model time on the chosen device (raw, uncorrected) */
    int64_t live;             /* targets in the picture at release, capped at the task's
                                 slots; -1 when its prediction does not follow the picture */
    int64_t placed_ns;        /* the time placement assumed (corrected when adapt > 0) */
    int64_t exec_ns;          /* measured execution, host clock, summed over its runs */
    int64_t in_ns, kernel_ns, out_ns; /* OpenCL profiling (0 on the CPU), summed over its
                                 runs; an aborted run counts its host-clock time as
                                 kernel, a resumed run's transfers as out, a CPU resume's
                                 time as kernel */
    int64_t response_ns;      /* end - release */
    int64_t decide_ns;        /* placement decision latency */
    uint32_t blocks_done, blocks_total; /* over all launches: completed, all (of the
                                 instance the job ran on first; 0 on the CPU twin path) */
    rtm_status_t status;      /* device error, RTM_OK otherwise */
} rtm_exec_rec_t;

/* Called once per job from the thread that finished it (dispatcher or release thread).
 * Must be real-time safe (a ring push). */
typedef void (*rtm_exec_sink_t)(void *ctx, const rtm_exec_rec_t *rec);

/* The traffic input jobs read. Both optional. */
typedef struct {
    void *ctx;
    /* Release thread, before the releases of one wake-up: move the picture to now. */
    void (*advance)(void *ctx, int64_t now_ns);
    /* Any dispatcher: a consistent copy of the picture (no torn reads). */
    void (*snapshot)(void *ctx, rtm_traffic_t *out);
    /* Release thread: targets in the latest picture (one atomic load), for the
     * predictions of tasks with slots. */
    uint32_t (*targets)(void *ctx);
} rtm_exec_input_t;

/* Runs blocks [0, n) of launch `launch` of k on the CPU (the worker pool); stops early
 * and returns false when *abort becomes non-zero (blocks already started finish). The
 * executive's watchdog raises *abort at a firm job's deadline. When NULL, the CPU
 * dispatcher runs the blocks on its own thread. Real-time safe. */
typedef bool (*rtm_exec_cpu_run_t)(void *ctx, const rtm_kinst_t *k, uint32_t launch,
                                   uint32_t blocks, const volatile int *abort);

/* One device of the executive. Index 0 is conventionally the host CPU. */
typedef struct {
    char name[RTM_NAME_MAX]; /* "cpu", "gpu0" … */
    rtm_dev_kind_t kind;     /* RTM_DEV_CPU: host CPU (CPU twins); else an OpenCL device */
    rtm_ocl_dev_t *ocl;      /* NULL for the host CPU */
    bool can_abort;          /* jobs here can be aborted through the abort flag */
    int64_t abort_ns;        /* predicted abort response */
    rtm_wake_t *wake;        /* OpenCL GPUs: the device wake (wake.h), NULL: none */
} rtm_exec_dev_t;

/* One task: its configuration and, per device, its instance and prediction. */
typedef struct {
    const rtm_task_cfg_t *cfg;
    rtm_kinst_t *inst[RTM_MAX_DEVICES]; /* planned and bound; NULL: cannot run there */
    rtm_kexec_t *kx[RTM_MAX_DEVICES];   /* OpenCL devices: created */
    int64_t predict_ns[RTM_MAX_DEVICES]; /* model time per job; < 0: cannot run there */
    /* Optional: the host<->device transfer parts of predict_ns (0: unknown, the whole
     * prediction is treated as kernel). Used to predict a preempted job's remainder. */
    int64_t predict_in_ns[RTM_MAX_DEVICES], predict_out_ns[RTM_MAX_DEVICES];
    /* Initial contents of each instance's INOUT buffers (NULL elsewhere): a job's
     * outputs overwrite them in k->host, so each job starts by copying these back
     * (before load_traffic). */
    const void *inout_init[RTM_MAX_DEVICES][RTM_KBUF_MAX];
    /* Optional, navigation tasks: target slots of the task's inputs (0: its prediction
     * does not follow the picture) and the prediction with every slot absent (< 0:
     * none). A job's prediction is then predict_empty_ns + (predict_ns -
     * predict_empty_ns) * live / slots, live = targets in the picture at its release
     * (rtm_exec_input_t.targets, capped at slots): the kernels skip absent slots. */
    uint32_t slots;
    int64_t predict_empty_ns[RTM_MAX_DEVICES];
} rtm_exec_task_t;

typedef struct {
    rtm_policy_t policy;
    bool rt;                  /* ask for SCHED_FIFO / affinity (mlockall is the manager's) */
    int64_t start_delay_ns;   /* first releases at start + delay + task offset */
    uint32_t max_jobs;        /* job slots (<= RTM_MAX_JOBS) */
    double margin;            /* placement's model-error allowance, fraction of a prediction */
    double adapt;             /* 0: placement uses the model's predictions as they are; in
                                 (0, 1]: it scales each (task, device) prediction by an
                                 exponential average of measured / predicted with this
                                 weight per completed job (the log keeps the raw model) */
    bool wait_abort;          /* an OpenCL device whose job was aborted starts its next job
                                 only once the host has seen the abort end (the behaviour
                                 before session 17, for comparison); false: the next job
                                 is enqueued right behind the raise */
    int64_t wake_lead_ns;     /* > 0: the release thread wakes each idle device that has a
                                 wake (rtm_exec_dev_t.wake) this long before a release of a
                                 task that may run there (wake.h); 0: never */
    int64_t spin_lead_ns;     /* > 0: an idle dispatcher spins from this long (at most the
                                 task's period / RTM_SPIN_PERIOD_DIV: rtm_exec_task_lead)
                                 before the next release of a hard or firm task that may
                                 run on its device to as long after it, instead of
                                 sleeping (idle() in exec.c); the CPU dispatcher wakes the
                                 pool's workers to spin as long (rtm_pool_warm); 0: it
                                 sleeps until kicked */
    bool no_callbacks;        /* fault injection (tests): no completion callback is set, as
                                 from a driver that never calls back; dispatchers see their
                                 runs' ends only by asking (ocl_wait) */
    rtm_exec_sink_t sink;
    void *sink_ctx;
    rtm_exec_input_t input;
    rtm_exec_cpu_run_t cpu_run;
    void *cpu_run_ctx;
    /* Optional: the worker pool (started) on which preempted jobs resumed on the host CPU
     * run their unfinished blocks, and which the CPU dispatcher warms ahead of hard
     * releases (spin_lead_ns); NULL: on the CPU dispatcher's thread. The pool is only
     * used by the CPU dispatcher (also through cpu_run), one run at a time. */
    rtm_pool_t *pool;
    /* Optional: called after every completed job, on the dispatcher that ran it, outside
     * the executive's lock, with the job's instance (outputs on the host) and the traffic
     * snapshot the job read (NULL when the kernel reads none). Must be real-time safe
     * (e.g. the NMEA output of CPA/TCPA, nmeaout.h). */
    void (*result)(void *ctx, uint32_t task, const rtm_kinst_t *k, const rtm_traffic_t *snap);
    void *result_ctx;
} rtm_exec_params_t;

/* Bytes of a task's latest-result text (kernel summary hook), with the NUL. */
#define RTM_EXEC_RESULT_MAX 512

/* Per-task statistics (readable while running through rtm_exec_stats). */
typedef struct {
    uint64_t released, completed, met, late, aborted, dropped, rejected, cancelled, failed;
    uint64_t missed;          /* late + aborted + dropped + rejected */
    uint64_t hard_alarms;     /* misses of a hard task */
    uint64_t preemptions;     /* times a job of this task was preempted */
    uint64_t resumed[RTM_MAX_DEVICES]; /* resumptions of preempted jobs, by device */
    uint64_t moved;           /* resumptions on another device than the one it stopped on */
    int64_t abort_max_ns, abort_sum_ns;     /* preemptions: flag raised -> the job stopped
                                               and its checkpoint read (the dispatcher's
                                               time; the next job is enqueued between) */
    rtm_hist_t stop;          /* preemptions: flag raised -> the aborted kernels ended (the
                                 device's end stamp on the host clock: rtm_preempt_stop_t
                                 .stop_s; the preemptions where it is known) */
    int64_t release_max_ns, release_sum_ns; /* flag raised -> the device free for the next job */
    uint64_t behind;          /* preemptions after which the device's next job was
                                 enqueued right behind the raise (not wait_abort) */
    int64_t behind_max_ns, behind_sum_ns;   /* flag raised -> that job enqueued */
    uint64_t blocks_rerun;    /* blocks of resumed jobs that ran more than once (counted
                                 only when the executors count block executions:
                                 rtm_kexec_opts_t.count_blocks) */
    uint64_t predicted_misses;
    uint64_t placed[RTM_MAX_DEVICES];
    int64_t worst_exec_ns, last_exec_ns, worst_resp_ns, last_resp_ns;
    double ape_sum;           /* sum of |measured - predicted| / measured */
    uint64_t ape_n;
    rtm_hist_t resp;          /* response times of completed jobs */
    double corr[RTM_MAX_DEVICES]; /* placement's correction of the model (1 = none) */
    /* latest result: the kernel's summary of the last completed job ("" without hook) */
    uint64_t result_job;
    int32_t result_dev;
    int64_t result_ns;        /* completion time */
    char result[RTM_EXEC_RESULT_MAX];
} rtm_exec_task_stats_t;

typedef struct {
    int64_t start_ns, now_ns;
    uint64_t releases, wakeups, overloads, skipped_releases;
    rtm_hist_t jitter;        /* release thread: actual - intended wake-up */
    rtm_hist_t decide;        /* placement decision latency */
    uint32_t n_tasks, n_devs;
    rtm_exec_task_stats_t task[RTM_MAX_TASKS];
    uint64_t dev_jobs[RTM_MAX_DEVICES];
    int64_t dev_busy_ns[RTM_MAX_DEVICES];
    uint64_t dev_wakes[RTM_MAX_DEVICES]; /* wakes sent ahead of releases (wake.h) */
    uint64_t dev_asked[RTM_MAX_DEVICES]; /* OpenCL runs whose end the dispatcher found by
                                          * asking, before the driver's callback told */
    uint64_t dev_spins[RTM_MAX_DEVICES];      /* idle dispatcher spun ahead of a hard or
                                               * firm release */
    uint64_t dev_spin_kicks[RTM_MAX_DEVICES]; /* ... and was kicked while spinning */
} rtm_exec_stats_t;

typedef struct rtm_exec rtm_exec_t;

/* Bytes of one rtm_exec_t (a few MB: allocate it once at init). */
size_t rtm_exec_size(void);

/* Initialises x (caller memory of rtm_exec_size() bytes) over `devs` and `tasks`; both
 * arrays are copied. Checks every task has at least one device. Init only. */
rtm_status_t rtm_exec_init(rtm_exec_t *x, const rtm_exec_params_t *p, const rtm_exec_dev_t *devs,
                           uint32_t n_devs, const rtm_exec_task_t *tasks, uint32_t n_tasks);

/* Starts the dispatchers and the release thread. After it returns nothing of the
 * executive allocates. Init only. */
rtm_status_t rtm_exec_start(rtm_exec_t *x);

/* Asks the release thread to stop releasing. Any thread; not async-signal-safe. */
void rtm_exec_request_stop(rtm_exec_t *x);

/* Stops: no more releases, in-flight jobs finish (firm ones still aborted at their
 * deadline), queued jobs are cancelled (each gets its record), threads are joined.
 * Shutdown only. */
void rtm_exec_stop(rtm_exec_t *x);

/* Copies the statistics: the totals in one lock hold, then each task in its own (a
 * snapshot consistent per task). Any thread; O(tasks * bins). */
void rtm_exec_stats(rtm_exec_t *x, rtm_exec_stats_t *out);

/* Device names, for reports. */
const char *rtm_exec_dev_name(const rtm_exec_t *x, uint32_t dev);

/* True when the executive threads run SCHED_FIFO. */
bool rtm_exec_is_fifo(const rtm_exec_t *x);

/* Releases the OS objects of an initialised executive (after stop). */
void rtm_exec_destroy(rtm_exec_t *x);

/* "met", "late", "aborted", "dropped", "rejected", "cancelled", "failed". */
const char *rtm_exec_outcome_name(rtm_job_outcome_t o);
/* Can the executive abort a job of this task: preemptible (placement may preempt it) or
 * firm (stopped at its deadline)? Else its jobs are never aborted, and its executors
 * need not hold an armed flag write (kexec opts.never_aborted). Safe anywhere. */
bool rtm_exec_task_abortable(const rtm_task_cfg_t *cfg);
/* Do idle dispatchers spin ahead of this task's releases (spin_lead_ns): a hard or firm
 * task, whose late job is lost; and the CPU pool's workers with them, so that its jobs
 * on the pool find them awake (the model prices those with cw_warm, RTM_MODEL_F_WARM).
 * Safe anywhere. */
bool rtm_exec_task_spun_for(const rtm_task_cfg_t *cfg);

/* Default spin lead of idle dispatchers ahead of hard and firm releases (the manager's,
 * and calibration's cw_warm), and the CPUs a computer needs for it (with fewer, a
 * spinning dispatcher takes a core the others need). 300 us: on the H100 host the pool's
 * workers, woken 100 us ahead of a launch after 20-40 ms asleep, still cost it 36-47 us
 * more than back to back, 6-23 us when woken 300 us ahead (their virtual CPUs' wake-up
 * outlasts 100 us), and the HIL replay's CPU model error fell from 24-26 % to 17-19 %
 * for 0.08 cores more (session 72, docs/run.md). A build may set another. */
#ifndef RTM_SPIN_LEAD_NS_DEFAULT
#define RTM_SPIN_LEAD_NS_DEFAULT 300000LL
#endif
#define RTM_SPIN_MIN_CPUS 4
/* A task's own lead is at most its period / RTM_SPIN_PERIOD_DIV (rtm_exec_task_lead): each
 * spinning thread then spends at most 2.5 % of its time ahead of that task (the pool's 16
 * threads ahead of a 4 ms camera task at 300 us: 1.31 cores, at 100 us: 0.50). */
#define RTM_SPIN_PERIOD_DIV 40
/* The lead idle dispatchers spin ahead of a release of task cfg under spin lead lead_ns:
 * lead_ns, at most the task's period / RTM_SPIN_PERIOD_DIV; 0 for a task not spun for
 * (rtm_exec_task_spun_for) or lead_ns <= 0. Safe anywhere. */
int64_t rtm_exec_task_lead(const rtm_task_cfg_t *cfg, int64_t lead_ns);

#endif
