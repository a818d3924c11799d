/* report.h — reads a model-error log (errlog.h, docs/log.md) and summarises it per task
 * and device: jobs, mean / median / p99 absolute percentage error of predicted_ms
 * against measured_ms, bias, deadline misses, the error of each model separately, and
 * the error an online EWMA correction would leave.
 *
 * An offline tool (`rtmgr report`): it allocates freely and is never on the real-time
 * path. */
#ifndef RTM_REPORT_H
#define RTM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "limits.h"
#include "status.h"

/* The response's parts: response, dispatch, submit, measured, notice (docs/log.md). */
#define RTM_REPORT_PARTS 5
extern const char *const rtm_report_part_name[RTM_REPORT_PARTS];

/* Weight of the newest ratio in the online correction factor. */
#define RTM_REPORT_EWMA_ALPHA 0.2

/* One parsed log row (times in ms; < 0 when the field was empty). */
typedef struct {
    uint32_t task, dev; /* indexes into rtm_report_t.task / .dev */
    uint64_t job;
    double pred, meas;  /* predicted_ms, measured_ms */
    double paper, ext;  /* predicted_paper_ms, predicted_ext_ms (or -1) */
    double deadline;    /* deadline_ms */
    double release, response; /* release_ms, response_ms (-1 when absent or empty) */
    double dispatch, submit, notice; /* dispatch_ms, submit_ms, notice_ms (-1: the same) */
    bool met;
    bool preempted;  /* preempted > 0 */
    /* derived: `scored` = pred >= 0, meas > 0 and not preempted; then: */
    bool scored;
    double pe;       /* signed % error, 100 * (pred - meas) / meas: + over-predicts */
    double pe_corr;  /* the same after the online EWMA correction */
} rtm_report_row_t;

/* Statistics of one task on one device, or of all tasks on one device (task "*"). */
typedef struct {
    char task[RTM_NAME_MAX];
    char device[RTM_NAME_MAX];
    bool all_tasks;     /* the device's aggregate row */
    char model[16];     /* model used for placement: paper, extended, or mixed */
    uint32_t jobs;      /* rows */
    uint32_t scored;    /* rows with a prediction, a measurement (> 0), not preempted */
    uint32_t misses;    /* rows with met = 0 */
    uint32_t preempted; /* rows with preempted > 0 */
    /* over the scored rows (meaningful when scored > 0), in percent */
    double mape, median_ape, p99_ape, max_ape;
    double bias;        /* mean signed % error */
    double mape_ewma;   /* after online correction */
    double ewma_factor; /* last correction factor measured/predicted (task rows only) */
    /* each model's own error (scored rows where that model predicted) */
    uint32_t n_paper, n_ext;
    double mape_paper, mape_ext;
    /* where the response went: over the rows whose response, dispatch, submit, measured
     * and notice are all known (jobs completed, never preempted), each part's median
     * and p99 in ms, in the order of rtm_report_part_name */
    uint32_t n_parts;
    double part_p50[RTM_REPORT_PARTS], part_p99[RTM_REPORT_PARTS];
} rtm_report_group_t;

typedef struct {
    char path[RTM_PATH_MAX];
    size_t n_rows;
    rtm_report_row_t *row;
    uint32_t n_tasks, n_devs;
    char (*task)[RTM_NAME_MAX];
    char (*dev)[RTM_NAME_MAX];
    size_t n_groups; /* per device: its tasks in order of appearance, then "*" */
    rtm_report_group_t *group;
} rtm_report_t;

/* Reads and summarises the log at `path`. RTM_E_IO when it cannot be read, RTM_E_PARSE
 * when it is malformed (diag: file, line, what), RTM_E_NOMEM. On error `r` holds
 * nothing to free. */
rtm_status_t rtm_report_load(const char *path, rtm_report_t *r, rtm_diag_t *diag);

/* The same from an open stream; `name` is used in diagnostics. */
rtm_status_t rtm_report_read(FILE *f, const char *name, rtm_report_t *r, rtm_diag_t *diag);

void rtm_report_free(rtm_report_t *r);

/* The summary as an aligned table / as JSON lines (one object per group). */
void rtm_report_print(const rtm_report_t *r, FILE *out);
void rtm_report_print_json(const rtm_report_t *r, FILE *out);

#endif
