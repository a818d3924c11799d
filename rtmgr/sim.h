/* sim.h — the executive's scheduling in virtual time: periodic releases, placement
 * (place.h, the real code), EDF ready queues (edfq.h, the real code), non-preemptive
 * devices, GPU preemption by abort with block-level resume, firm jobs aborted at their
 * deadline, soft and hard jobs completing late.
 *
 * Used by `rtmgr bench placement` to compare the placement policies at loads that the
 * host cannot produce for real (a 2-core machine has one "GPU" that is its own CPU):
 * each job's actual time is its prediction scaled by the load and by a seeded uniform
 * noise of +-noise; a preempted job keeps the work done before the abort took effect
 * (completed blocks are never re-run) and resumes with the rest. Decision latency is
 * measured on the real rtm_place_decide() calls, in real time.
 *
 * Deterministic for a given seed. No allocation (the tables are in rtm_sim_t, which
 * the caller provides); init-only code, not for the real-time path. */
#ifndef RTM_SIM_H
#define RTM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "edfq.h"
#include "hist.h"
#include "place.h"

#define RTM_SIM_TASKS 16
#define RTM_SIM_DEVS 4
#define RTM_SIM_JOBS 1024

typedef struct {
    char name[32];
    rtm_crit_t crit;
    rtm_place_t placement;
    bool preemptible;
    int64_t period_ns, deadline_ns, offset_ns;
    int64_t c_ns[RTM_SIM_DEVS]; /* predicted time per device at load 1; < 0: cannot run */
} rtm_sim_task_t;

typedef struct {
    char name[16];
    rtm_dev_kind_t kind;
    bool can_abort;
    int64_t abort_ns; /* abort response: flag raised -> device free */
} rtm_sim_dev_t;

typedef struct {
    const rtm_sim_task_t *tasks;
    uint32_t n_tasks;
    const rtm_sim_dev_t *devs;
    uint32_t n_devs;
    rtm_policy_t policy;
    double load;       /* multiplies every execution time (actual and predicted) */
    double noise;      /* actual = predicted * (1 + u), u uniform in [-noise, +noise] */
    double margin;     /* placement's model-error allowance, fraction of the prediction */
    uint64_t seed;
    int64_t duration_ns;
} rtm_sim_params_t;

typedef struct {
    uint64_t released[3], missed[3];     /* by criticality (rtm_crit_t) */
    uint64_t completed, late, aborted, dropped, rejected, preemptions, overloads;
    uint64_t task_released[RTM_SIM_TASKS], task_missed[RTM_SIM_TASKS];
    uint64_t placed[RTM_SIM_DEVS];
    int64_t busy_ns[RTM_SIM_DEVS];
    rtm_hist_t resp[3];                  /* response times of completed jobs, by criticality */
    rtm_hist_t decide;                   /* real-time latency of each placement decision */
} rtm_sim_result_t;

/* Runs one simulation. RTM_E_ARG for bad parameters, RTM_E_FULL when more than
 * RTM_SIM_JOBS jobs were in flight at once (the load is far beyond capacity). */
rtm_status_t rtm_sim_run(const rtm_sim_params_t *p, rtm_sim_result_t *r);

/* Sum over tasks of c_ns[dev] / period at load 1 (-1 when a task cannot run there). */
double rtm_sim_utilisation(const rtm_sim_task_t *tasks, uint32_t n_tasks, uint32_t dev);

/* The benchmark's vessel-like task set, shaped after rtmgr's kernels (CPA/TCPA,
 * trajectory, manoeuvre search, route search, camera): small transfer-bound jobs are
 * faster on the CPU, large ones on the GPU; CPU-only utilisation 1.0 at load 1. Two
 * devices: the host CPU and one GPU that aborts in abort_ns. */
void rtm_sim_vessel_set(const rtm_sim_task_t **tasks, uint32_t *n_tasks,
                        const rtm_sim_dev_t **devs, uint32_t *n_devs);

#endif
