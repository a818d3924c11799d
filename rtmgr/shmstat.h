/* shmstat.h — the running manager's status in POSIX shared memory, readable by other
 * processes (`rtmgr status`).
 *
 * One segment per manager, named "/rtmgr-<pid>" unless the command line names it. Its
 * layout is fixed (rtm_shmstat_seg_t): a magic number, a layout version and the
 * segment size first, so a reader refuses a segment it does not understand. The writer
 * (the manager's main thread, a few times per second) updates it under a sequence
 * counter: odd while writing. A reader copies the whole segment and keeps the copy
 * only when the counter was even and unchanged across the copy (seqlock), retrying a
 * bounded number of times.
 *
 * Contents: per task the latest result text (threats ranked by TCPA, chosen manoeuvre,
 * path summary… from the kernel's summary hook) and the statistics (jobs, worst/last
 * execution and response time, overruns, misses, preemptions, placement counts per
 * device, model error), and the executive's release jitter and decision latency. */
#ifndef RTM_SHMSTAT_H
#define RTM_SHMSTAT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "exec.h"
#include "input.h"
#include "limits.h"
#include "nmeaout.h"
#include "status.h"

#define RTM_SHMSTAT_MAGIC 0x534d5452u /* "RTMS" little-endian */
#define RTM_SHMSTAT_VERSION 2u
#define RTM_SHMSTAT_NAME_MAX 64

typedef struct {
    char name[RTM_NAME_MAX];
    char kernel[RTM_NAME_MAX];
    uint32_t crit;      /* rtm_crit_t */
    uint32_t placement; /* rtm_place_t */
    int64_t period_ns, deadline_ns;
    uint64_t released, completed, met, late, aborted, dropped, rejected, cancelled, failed;
    uint64_t missed, overruns, hard_alarms, preemptions, predicted_misses;
    uint64_t placed[RTM_MAX_DEVICES];
    int64_t worst_exec_ns, last_exec_ns, worst_resp_ns, last_resp_ns;
    int64_t p50_resp_ns, p99_resp_ns;
    double mape;        /* mean |measured - predicted| / measured, completed jobs; -1: none */
    uint64_t result_job;
    int32_t result_dev; /* -1: no result yet */
    int64_t result_age_ns; /* now - completion of the result's job */
    char result[RTM_EXEC_RESULT_MAX];
} rtm_shmstat_task_t;

typedef struct {
    uint32_t magic, version, size;
    uint32_t n_tasks, n_devs;
    _Atomic uint64_t seq;   /* seqlock: odd while the writer updates */
    int32_t pid;
    uint32_t state;         /* 0 starting, 1 running, 2 stopping, 3 stopped */
    bool fifo;              /* executive threads run SCHED_FIFO */
    uint64_t publishes;
    int64_t uptime_ns;
    char config[RTM_PATH_MAX];
    char policy[16];
    char dev_name[RTM_MAX_DEVICES][RTM_NAME_MAX];
    uint64_t dev_jobs[RTM_MAX_DEVICES];
    int64_t dev_busy_ns[RTM_MAX_DEVICES];
    uint64_t releases, wakeups, overloads, skipped_releases;
    int64_t jitter_p50_ns, jitter_p99_ns, jitter_max_ns;
    int64_t decide_p50_ns, decide_p99_ns;
    uint64_t log_rows, log_dropped;
    rtm_shmstat_task_t task[RTM_MAX_TASKS];
    /* NMEA input and output (version 2) */
    uint32_t input_kind;          /* rtm_input_kind_t; RTM_INPUT_SCENARIO: no NMEA input */
    bool output_on;               /* CPA/TCPA sent as NMEA */
    char input_address[RTM_PATH_MAX];
    rtm_input_stats_t input;      /* the input thread's counters */
    rtm_nmeaout_stats_t output;   /* the NMEA output's counters */
} rtm_shmstat_seg_t;

enum { RTM_SHMSTAT_STARTING, RTM_SHMSTAT_RUNNING, RTM_SHMSTAT_STOPPING, RTM_SHMSTAT_STOPPED };

/* The writer's handle. */
typedef struct {
    char name[RTM_SHMSTAT_NAME_MAX];
    rtm_shmstat_seg_t *seg;
    bool created;
    /* NMEA counters staged by rtm_shmstat_set_io for the next publish */
    bool io_set, io_output_on;
    uint32_t io_kind;
    rtm_input_stats_t io_in;
    rtm_nmeaout_stats_t io_out;
} rtm_shmstat_t;

/* Creates (or replaces) segment `name` ("/rtmgr-<pid>" when NULL or empty; a leading
 * '/' is added when missing) and maps it. Init only. RTM_E_OS with a message on stderr
 * when shm_open/ftruncate/mmap fail, RTM_E_ARG for a bad name. */
rtm_status_t rtm_shmstat_create(rtm_shmstat_t *s, const char *name, const char *config_path,
                                const char *policy);

/* Publishes a statistics snapshot with the names of the tasks and devices. Main
 * thread, a few times per second; no allocation, no system call. */
void rtm_shmstat_publish(rtm_shmstat_t *s, const rtm_exec_stats_t *st, const rtm_exec_t *x,
                         const rtm_task_cfg_t *const *tasks, uint32_t state, uint64_t log_rows,
                         uint64_t log_dropped);

/* Stages the NMEA input / output counters that the next rtm_shmstat_publish() writes
 * (under its sequence counter). kind RTM_INPUT_SCENARIO: no NMEA input; in or out NULL:
 * that side is absent. Main thread; no allocation, no system call. */
void rtm_shmstat_set_io(rtm_shmstat_t *s, uint32_t kind, const char *address,
                        const rtm_input_stats_t *in, const rtm_nmeaout_stats_t *out);

/* Marks the segment stopped, unmaps and unlinks it. Shutdown only; safe on a zeroed s. */
void rtm_shmstat_destroy(rtm_shmstat_t *s);

/* Reader: copies segment `name` into *out consistently. RTM_E_NOTFOUND when it does not
 * exist, RTM_E_MISMATCH when its magic/version/size differ from this build's,
 * RTM_E_ABORTED when the writer kept changing it. Any process. */
rtm_status_t rtm_shmstat_read(const char *name, rtm_shmstat_seg_t *out);

/* Finds the segment of a running manager ("/rtmgr-*" whose pid is alive) into `name`.
 * RTM_E_NOTFOUND when none, RTM_E_STATE (with the names on stderr) when several. */
rtm_status_t rtm_shmstat_find(char *name, size_t len);

/* Prints a copy as `rtmgr status` shows it. */
void rtm_shmstat_print(FILE *f, const rtm_shmstat_seg_t *seg, const char *name);

#endif
