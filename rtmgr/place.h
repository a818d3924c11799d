/* place.h — deadline-aware placement of one job on one device (DESIGN.md point 4).
 *
 * Pure and deterministic: the decision depends only on the arguments; no clock, no
 * globals, no allocation. Safe on the real-time path; O(devices).
 *
 * The caller (the executive) describes each device it could use: its kind, the model's
 * prediction of this job's time there (transfers included) and the device's queue as
 * seen by this job (rtm_place_queue() computes it): the backlog — the running job's
 * remaining predicted time plus the predicted times of the queued jobs that the EDF
 * queue orders ahead of this one — and the slack of the hard and firm jobs the new job
 * would overtake (queued with a later deadline). Predicted finish on a device =
 * now + backlog + prediction. A device "meets" the job when
 *   finish + margin + backlog margin <= deadline   (margins: the caller's model-error
 *   allowance for this job and for the work ahead of it), and
 *   prediction <= the slack behind (overtaking pushes no queued hard or firm job that
 *   is predicted to meet its deadline past it).
 *
 * Rules of the `model` policy, in order:
 *   1. Candidates = devices the job's placement allows (auto: all; cpu: CPU kind; gpu:
 *      the others) that have a prediction (predict_ns >= 0). None: RTM_REASON_NO_DEVICE.
 *   2. Among candidates that meet the job, the earliest finish wins. Ties: a CPU-kind
 *      device first (keeps the GPU free for work only it can do in time), then the
 *      lower device index. Reason: only-device when there is one candidate, else
 *      met-earliest-finish.
 *   3. Hard and firm jobs only, when no candidate meets: on a device that can abort
 *      (can_abort) whose running job is preemptible and has a strictly later deadline
 *      (or is a soft job already past its deadline: nothing left to protect), the job can start after the abort response instead of after the running job:
 *      finish = now + abort_ns + (backlog - run_remaining) + prediction. It must meet as
 *      in rule 2 (with abort_ns + prediction <= slack behind), and a hard or firm
 *      victim must still meet its own deadline after resuming (finish + its remaining
 *      time <= its deadline). The earliest such finish wins (same tie-breaks); the
 *      caller aborts the running job, whose unfinished blocks resume later. Reason:
 *      preempt-device.
 *   4. Otherwise the earliest predicted finish wins among the candidates whose
 *      slack behind allows it (all candidates when none does), same tie-breaks; the job
 *      is a predicted miss and an overload event is raised. Reason:
 *      predicted-miss-overload.
 *
 * Baseline policies (for `rtmgr bench placement` and `--policy`), never preempting and
 * blind to the slack behind:
 *   cpu-only / gpu-only: candidates are the devices of that kind with a prediction,
 *     whatever the task's placement says; earliest finish among them. Reason
 *     policy-forced.
 *   greedy: the smallest prediction among the candidates of rule 1, ignoring backlog
 *     and deadline (same tie-breaks). Reason greedy-fastest.
 * Under every policy, predicted_miss = (finish > deadline) and overload = predicted_miss. */
#ifndef RTM_PLACE_H
#define RTM_PLACE_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "config.h"
#include "limits.h"

typedef enum {
    RTM_POLICY_MODEL,    /* deadline-aware, rules 1-4 (default) */
    RTM_POLICY_CPU_ONLY, /* every job on the CPU */
    RTM_POLICY_GPU_ONLY, /* every job on the GPU(s) */
    RTM_POLICY_GREEDY,   /* fastest predicted device, ignoring queues and deadlines */
    RTM_POLICY_COUNT
} rtm_policy_t;

typedef enum {
    RTM_REASON_NONE,
    RTM_REASON_MET_EARLIEST,  /* "met-earliest-finish" */
    RTM_REASON_ONLY_DEVICE,   /* "only-device" */
    RTM_REASON_PREEMPT,       /* "preempt-device" */
    RTM_REASON_MISS_OVERLOAD, /* "predicted-miss-overload" */
    RTM_REASON_POLICY_FORCED, /* "policy-forced" */
    RTM_REASON_GREEDY,        /* "greedy-fastest" */
    RTM_REASON_NO_DEVICE,     /* "no-device" */
    RTM_REASON_COUNT
} rtm_place_reason_t;

/* The job to place. Times are absolute CLOCK_MONOTONIC nanoseconds. */
typedef struct {
    uint32_t task;
    int64_t release_ns;
    int64_t deadline_ns; /* absolute deadline */
    rtm_crit_t crit;
    rtm_place_t placement; /* what the task allows */
    bool preemptible;
} rtm_place_job_t;

/* One device as the executive sees it at the moment of the decision. */
typedef struct {
    rtm_dev_kind_t kind;   /* RTM_DEV_CPU for the host worker pool, else GPU/ACCEL */
    bool can_abort;        /* running jobs can be aborted (abort flag) */
    int64_t predict_ns;    /* model time of this job here, transfers included; < 0: cannot run here */
    int64_t margin_ns;     /* model-error allowance added to the finish for the deadline test */
    int64_t backlog_ns;    /* predicted work before this job could start (>= 0) */
    int64_t backlog_margin_ns; /* model-error allowance of that work */
    bool guard_behind;     /* behind_slack_ns is valid (hard/firm jobs queued behind) */
    int64_t behind_slack_ns; /* least slack of the hard/firm jobs this job would overtake */
    bool running;          /* a job is running now */
    bool run_preemptible;  /* ... and may be preempted */
    bool run_guarded;      /* ... and is hard or firm */
    int64_t run_deadline_ns;  /* ... its absolute deadline */
    int64_t run_remaining_ns; /* ... its remaining predicted time (part of backlog) */
    int64_t run_margin_ns; /* ... its allowance (part of backlog_margin) */
    int64_t abort_ns;      /* predicted abort response (board abort_response) */
} rtm_place_dev_t;

typedef struct {
    int32_t device;            /* chosen device index, -1 with RTM_REASON_NO_DEVICE */
    int64_t finish_ns;         /* predicted absolute finish time */
    rtm_place_reason_t reason;
    bool preempt;              /* abort the running job of `device` first */
    bool predicted_miss;       /* finish_ns > deadline */
    bool overload;             /* an overload event: count it and log it */
} rtm_place_out_t;

/* One queued job, as rtm_place_queue() needs it. */
typedef struct {
    int64_t deadline_ns; /* absolute deadline: the EDF key */
    int64_t predict_ns;  /* its predicted time on this device */
    int64_t margin_ns;   /* its model-error allowance */
    bool guarded;        /* hard or firm */
} rtm_place_qitem_t;

/* Fills dev->backlog_ns, backlog_margin_ns, guard_behind and behind_slack_ns for a new
 * job of absolute deadline `deadline_ns` at `now_ns`, from the running job's remaining
 * predicted time and allowance and the queued jobs q[0..n) (any order: sorted by
 * deadline in place; equal deadlines count as ahead of the new job, as the FIFO
 * tie-break of edfq orders them). The slack of a queued job is its deadline minus its
 * predicted finish minus the allowances up to it; only queued jobs predicted to meet
 * (slack >= 0) constrain the slack behind. Real-time safe, no allocation, O(n^1.5)
 * (shell sort + one pass). */
void rtm_place_queue(rtm_place_dev_t *dev, int64_t now_ns, int64_t deadline_ns,
                     int64_t run_remaining_ns, int64_t run_margin_ns, rtm_place_qitem_t *q,
                     uint32_t n);

/* Decides where `job` runs at time `now_ns` among `n_devs` devices (<= RTM_MAX_DEVICES)
 * under `policy`. Always fills `out`. Real-time safe, pure, O(n_devs). */
void rtm_place_decide(rtm_policy_t policy, const rtm_place_job_t *job, int64_t now_ns,
                      const rtm_place_dev_t *devs, uint32_t n_devs, rtm_place_out_t *out);

/* Predicted time of the unfinished part of a preempted job on one device (issue 6: the
 * aborted job is re-placed by the same model, its remaining blocks predicted as such).
 * predict_ns: the model's time of the whole job there, transfers included; in_ns /
 * out_ns: the transfer parts of it (0 when unknown, and on the host CPU); remaining /
 * total: unfinished and all blocks over every launch; same: the device the job stopped
 * on, whose buffers hold its state (nothing goes in again); move_ns: otherwise, moving
 * the state there (read back from the device it stopped on, uploaded to an OpenCL
 * target). With kernel = predict - in - out:
 *   same device:  kernel * remaining / total + out
 *   other device: move + kernel * remaining / total + out
 * Returns -1 when predict_ns < 0 or total == 0. Pure, real-time safe. */
int64_t rtm_place_remaining(int64_t predict_ns, int64_t in_ns, int64_t out_ns, uint64_t remaining,
                            uint64_t total, bool same, int64_t move_ns);

/* Remaining time of the job running on a device, `elapsed_ns` after it started, whose
 * whole run was predicted at `predict_ns`: predict - elapsed while within the prediction;
 * once it has overrun (elapsed >= predict), its true length is unknown and it is assumed
 * to need as long again as it has run (elapsed), never "finishing now" — otherwise hard
 * jobs queue behind an overrunning job as if it were about to end instead of preempting
 * it. 0 when there is no prediction. Pure, real-time safe. */
int64_t rtm_place_run_remaining(int64_t predict_ns, int64_t elapsed_ns);

/* "model", "cpu-only", "gpu-only", "greedy". Safe anywhere. */
const char *rtm_place_policy_name(rtm_policy_t p);
/* Parses a policy name; RTM_E_ARG when unknown. Init only. */
rtm_status_t rtm_place_policy_parse(const char *name, rtm_policy_t *out);
/* "met-earliest-finish", … Safe anywhere. */
const char *rtm_place_reason_name(rtm_place_reason_t r);

#endif
