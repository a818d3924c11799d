/* manager.h — the lifecycle of a running rtmgr: load -> validate -> allocate -> start
 * -> run -> stop (STYLE rule 5).
 *
 *   load      the task set and its board profile (config.h); or `use` a table built in C;
 *   validate  cross-field rules (rtm_config_validate) and the command-line options;
 *   allocate  opens the board's OpenCL devices, creates every kernel instance (one per
 *             task and device it may run on, host buffers in one region), builds every
 *             program and device buffer (rtm_kexec_create), predicts each job's time on
 *             each device with the board's model (model.h), runs each instance once
 *             (warm-up: first-launch compilation, and the fallback prediction where the
 *             model lacks a parameter), sets up the traffic input, the model-error log
 *             (errlog.h), the executive (exec.h) and the status segment (shmstat.h),
 *             and locks memory when permitted;
 *   start     blocks SIGINT/SIGTERM/SIGUSR1 in every thread, starts the log writer and
 *             the executive; from here on nothing allocates, opens a file or builds a
 *             program on the real-time path;
 *   run       the main thread waits for signals (sigtimedwait, no work in handlers):
 *             SIGINT/SIGTERM stop, SIGUSR1 prints per-task statistics; it publishes the
 *             status segment ten times a second and, on a terminal, one summary line per
 *             second on stderr; it returns after `duration` seconds (0: until a signal);
 *   stop      no more releases, in-flight jobs finish (firm ones aborted at their
 *             deadline), queued jobs are cancelled, the log is drained and closed.
 * Each phase checks it follows the previous one (RTM_E_STATE otherwise). */
#ifndef RTM_MANAGER_H
#define RTM_MANAGER_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "diag.h"
#include "exec.h"
#include "place.h"
#include "status.h"

typedef struct {
    rtm_policy_t policy;     /* placement policy (default model) */
    const char *log_path;    /* overrides the task set's log.path when not NULL */
    const char *status_name; /* shared-memory name; NULL: /rtmgr-<pid> */
    bool rt;                 /* ask for SCHED_FIFO, affinity and mlockall */
    double margin;           /* placement model-error allowance (fraction; default 0.1) */
    double adapt;            /* placement's online correction weight (0: off; default 0.2) */
    bool quiet;              /* no per-second line, no allocation report */
    const char *nmea_in;     /* host:port instead of the task set's input.nmea udp/tcp */
    const char *nmea_out;    /* host:port instead of the task set's output.nmea.udp */
    bool no_warmup;          /* skip the warm-up job where the model predicts (faster
                                start-up; the first job on a device may compile) */
    bool preempt_wait;       /* after an abort, start the device's next job only once the
                                host saw the abort end (rtm_exec_params_t.wait_abort) */
    int64_t wake_lead_ns;    /* wake idle GPUs this long before a release of a task that may
                                run there (wake.h; rtm_exec_params_t.wake_lead_ns); 0: never.
                                Default RTM_WAKE_LEAD_NS_DEFAULT */
    int64_t spin_lead_ns;    /* idle dispatchers (and the CPU pool's workers) spin from this
                                long (at most the task's period / RTM_SPIN_PERIOD_DIV) before
                                a hard or firm release that may come to them
                                (rtm_exec_params_t.spin_lead_ns); 0:
                                never; < 0 (the default): RTM_SPIN_LEAD_NS_DEFAULT on a
                                computer of RTM_SPIN_MIN_CPUS or more CPUs, else never */
} rtm_manager_opts_t;

/* The spin lead option opt_ns gives (rtm_manager_opts_t.spin_lead_ns; < 0: the default
 * on this computer). Init only (counts the CPUs). */
int64_t rtm_manager_spin_lead(int64_t opt_ns);
/* The spin lead board b's cw_warm was calibrated at (its warm_lead; a profile with cw_warm
 * and no warm_lead was made before session 72, at 100 us), when a run that spins lead_ns
 * ahead (> 0) would price its warmed CPU jobs with a cw_warm measured at another lead;
 * else 0 (no cw_warm, no spin, or the same lead within 1 us). Init only. */
int64_t rtm_manager_warm_lead_differs(const rtm_board_t *b, int64_t lead_ns);
/* The model flags of task tc's jobs on the CPU pool under spin lead lead_ns:
 * RTM_MODEL_F_IDLE (a periodic job finds the pool asleep), or RTM_MODEL_F_WARM where the
 * CPU dispatcher warms the pool ahead of the task's releases (rtm_exec_task_spun_for,
 * rtm_pool_warm): its jobs find the workers spinning. And the idle they find, into
 * job->idle_s (job may be NULL): the task's period, the longest the pool sleeps between
 * two of its jobs when it runs nothing else (other CPU work in between shortens it: the
 * prediction errs long). Any thread. */
uint32_t rtm_manager_cpu_model_flags(const rtm_task_cfg_t *tc, int64_t lead_ns,
                                     rtm_model_job_t *job);

/* The kernel-instance options of task tc's jobs on board device bd, as far as the task
 * and the board give them: the abort flag's transport calibration chose, preemptible,
 * never aborted (the caller adds the cache and the host buffers). Any thread. */
rtm_kexec_opts_t rtm_manager_task_opts(const rtm_task_cfg_t *tc, const rtm_board_dev_t *bd);
/* Task tc's job mj on board device bd as the manager predicts it, after
 * rtm_preempt_predict_dev has predicted it into pr with options from
 * rtm_manager_task_opts (which that call completes with the launch shape): where the
 * instance's runs clear no block control (`clears`: its kexec's rtm_kexec_clears, or
 * rtm_kexec_clears_planned on those options without a device, as `rtmgr check`), the job
 * is predicted again without the clear (mj->no_clear). Any thread. */
rtm_status_t rtm_manager_predict_clears(const rtm_board_dev_t *bd, bool clears,
                                        rtm_model_job_t *mj, rtm_model_pred_t *pr);

typedef struct rtm_manager rtm_manager_t;

/* Fills the defaults: policy model, rt on, margin 0.1, adapt 0.2, wakes 300 us ahead. */
void rtm_manager_defaults(rtm_manager_opts_t *o);

/* Allocates an empty manager (init only; the one heap allocation of the manager
 * object itself). NULL when out of memory. */
rtm_manager_t *rtm_manager_create(const rtm_manager_opts_t *opts);

/* load: reads and validates the task set at `path` (and its board). */
rtm_status_t rtm_manager_load(rtm_manager_t *m, const char *path, rtm_diag_t *diag);
/* load, for tests and tools: copies a task set built in C (validated by
 * rtm_manager_validate). */
rtm_status_t rtm_manager_use(rtm_manager_t *m, const rtm_config_t *cfg);
/* validate: rtm_config_validate plus the options. */
rtm_status_t rtm_manager_validate(rtm_manager_t *m, rtm_diag_t *diag);
/* allocate: everything the run needs (see above). Prints what it does unless quiet. */
rtm_status_t rtm_manager_allocate(rtm_manager_t *m);
/* start: threads. */
rtm_status_t rtm_manager_start(rtm_manager_t *m);
/* run: until `duration_s` seconds have passed (0: no limit), a SIGINT/SIGTERM arrives,
 * or rtm_manager_request_stop() is called. */
rtm_status_t rtm_manager_run(rtm_manager_t *m, double duration_s);
/* Makes run return soon. Any thread. */
void rtm_manager_request_stop(rtm_manager_t *m);
/* stop: see above. Returns the log's status (RTM_E_IO after a write error). */
rtm_status_t rtm_manager_stop(rtm_manager_t *m);
/* The summary table per task: jobs, placements per device, worst and median response,
 * misses, model MAPE. After stop (or any time after start). */
void rtm_manager_summary(rtm_manager_t *m, FILE *f);
/* Releases everything; safe in any phase. */
void rtm_manager_destroy(rtm_manager_t *m);

/* Read access for tests and tools (valid after allocate). */
rtm_exec_t *rtm_manager_exec(rtm_manager_t *m);
const char *rtm_manager_status_name(const rtm_manager_t *m);
/* The monotonic time (CLOCK_MONOTONIC, ns) the model-error log's release_ms counts
 * from: the first release. Valid after start. */
int64_t rtm_manager_t0_ns(const rtm_manager_t *m);
/* The instance of task t on executive device d (0 = host CPU), NULL when none. */
const rtm_kinst_t *rtm_manager_inst(const rtm_manager_t *m, uint32_t t, uint32_t d);
/* Executive devices: 0 is the host CPU, then the board's OpenCL devices found. */
uint32_t rtm_manager_devices(const rtm_manager_t *m);
/* Name of executive device d. */
const char *rtm_manager_device_name(const rtm_manager_t *m, uint32_t d);
/* Placement's prediction for one job of task t on device d (ns), -1 when it cannot
 * run there. Valid after allocate. */
int64_t rtm_manager_predict_ns(const rtm_manager_t *m, uint32_t t, uint32_t d);
/* Wall time of the warm-up job of task t on device d (ns), -1 when none. */
int64_t rtm_manager_warmup_ns(const rtm_manager_t *m, uint32_t t, uint32_t d);
/* The task set in use (after load). */
const rtm_config_t *rtm_manager_config(const rtm_manager_t *m);
/* Checks each task's last completed result on each OpenCL device against the CPU twin
 * on the same inputs (INOUT buffers from their initial copies). Returns the number of
 * mismatching instances and prints each; *checked (may be NULL) gets the number of
 * instances compared. After stop; allocates. */
uint32_t rtm_manager_verify(rtm_manager_t *m, FILE *f, uint32_t *checked);

#endif
