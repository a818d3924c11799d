/* config.h — a task set: the typed C tables made once from the YAML file.
 *
 * Lifecycle: rtm_config_load() parses with libyaml, validates every key and value and
 * frees the parser before returning; nothing else allocates. On error the diagnostic
 * says FILE:LINE:COLUMN and what is wrong, and the config must not be used. */
#ifndef RTM_CONFIG_H
#define RTM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "diag.h"
#include "kernel.h"
#include "limits.h"
#include "status.h"

typedef enum { RTM_CRIT_HARD, RTM_CRIT_FIRM, RTM_CRIT_SOFT } rtm_crit_t;
typedef enum { RTM_PLACE_AUTO, RTM_PLACE_CPU, RTM_PLACE_GPU } rtm_place_t;
typedef enum { RTM_INPUT_SCENARIO, RTM_INPUT_NMEA_UDP, RTM_INPUT_NMEA_TCP, RTM_INPUT_NMEA_FILE } rtm_input_kind_t;

/* Where a value was written in the task-set file (line 0: not from a file, e.g. a table
 * built in C). rtm_config_validate() reports its errors there. */
typedef struct {
    int line, column;
} rtm_cfg_pos_t;

/* Defaults of the optional `limits:` and `log:` keys. */
#define RTM_CONFIG_MAX_JOBS_DEFAULT 256u
#define RTM_CONFIG_ARENA_DEFAULT (512ull * 1024 * 1024)
#define RTM_CONFIG_LOG_DEFAULT "rtmgr-model.csv"
/* Defaults of the optional `input: nmea:`, `output: nmea:` and `hil:` keys. */
#define RTM_CONFIG_EXPIRE_DEFAULT_NS (360LL * 1000000000LL)
#define RTM_CONFIG_OUT_INTERVAL_DEFAULT_NS (1000LL * 1000000LL)
#define RTM_CONFIG_OUT_INTERVAL_MIN_NS (100LL * 1000000LL)
#define RTM_CONFIG_OUT_RANGE_DEFAULT_M (12.0 * 1852.0)
#define RTM_CONFIG_OUT_TARGETS_DEFAULT 20u
#define RTM_CONFIG_OUT_TARGETS_MAX 99u
#define RTM_CONFIG_ALARM_CPA_DEFAULT_M (0.5 * 1852.0)
#define RTM_CONFIG_ALARM_TCPA_DEFAULT_NS (12LL * 60 * 1000000000LL)
#define RTM_CONFIG_MAPE_BUDGET_DEFAULT 0.25

typedef struct {
    char name[RTM_NAME_MAX];
    const rtm_kernel_t *kernel;
    int64_t period_ns;
    int64_t deadline_ns; /* relative, 0 < deadline <= period */
    int64_t offset_ns;   /* first release after start, 0 <= offset < period */
    rtm_crit_t crit;
    rtm_place_t placement;
    bool preemptible;
    int64_t size[RTM_SIZE_KEYS_MAX]; /* by index of kernel->keys */
    int line, column;                /* where the task starts in the file */
    struct {
        rtm_cfg_pos_t name, kernel, period, deadline, offset, placement, size;
    } at;
} rtm_task_cfg_t;

typedef struct {
    char path[RTM_PATH_MAX];       /* the task-set file as given */
    int version;                   /* `rtmgr:` schema version */
    char board_path[RTM_PATH_MAX]; /* resolved relative to the task-set file */
    uint32_t max_jobs;             /* limits.max_jobs */
    uint64_t arena_bytes;          /* limits.arena */
    char log_path[RTM_PATH_MAX];   /* log.path, resolved relative to the working dir */
    struct {
        rtm_input_kind_t kind;
        uint32_t targets;  /* scenario: number of synthetic targets */
        uint64_t seed;     /* scenario: seed */
        double radius_m;   /* scenario: radius around own ship */
        char address[RTM_PATH_MAX]; /* nmea: host:port, or the file path resolved
                                       relative to the task-set file */
        double speed;      /* nmea file: replay speed (1 real time; 0 as fast as possible) */
        int64_t expire_ns; /* nmea: drop targets silent this long (default 6 min; 0: default) */
    } input;
    struct {
        bool on;                    /* `output: nmea:` present */
        char address[RTM_PATH_MAX]; /* udp host:port the sentences go to */
        char talker[3];             /* talker of TTM/OSD/ALR (default "RA") */
        uint32_t task;              /* index of the cpa_tcpa task reported */
        int64_t interval_ns;        /* at most one report per interval (default 1 s) */
        double range_m;             /* targets farther away are not reported (12 nm) */
        uint32_t max_targets;       /* targets per report, 1..99 (default 20) */
        double alarm_cpa_m;         /* ALR when CPA below this ... (0.5 nm; 0: no alarms) */
        int64_t alarm_tcpa_ns;      /* ... within this time ahead (default 12 min) */
    } output;
    struct {
        double mape_budget;         /* model MAPE the HIL harness allows (fraction; 0: default) */
    } hil;
    uint32_t n_tasks;
    rtm_task_cfg_t task[RTM_MAX_TASKS];
    rtm_board_t board; /* the board profile named by `board:` */
    struct {
        rtm_cfg_pos_t board, max_jobs, arena, input, tasks, output, output_task;
    } at;
} rtm_config_t;

/* Loads and validates a task set and the board profile it names (schema:
 * docs/config.md). Init only; uses a static parse tree, so one load at a time.
 * Returns RTM_OK or an RTM_E_CFG_* code with `diag` filled (FILE:LINE:COLUMN, the key
 * and what was expected; FILE is the board profile for errors inside it). */
rtm_status_t rtm_config_load(const char *path, rtm_config_t *cfg, rtm_diag_t *diag);

/* The same, with the board profile at `board` instead of the one the file names (the
 * `board:` key is still required and checked): trying a task set on another board, and
 * the fuzzer, which must not follow `board:` to arbitrary files. board NULL: as
 * rtm_config_load. Init only. */
rtm_status_t rtm_config_load_board(const char *path, const char *board, rtm_config_t *cfg,
                                   rtm_diag_t *diag);

/* Validates an already-loaded config (cross-field rules: ranges, deadline <= period,
 * unique names, limits, kernel buffers within limits.arena). Called by
 * rtm_config_load; exposed so tests can check tables built in C. Allocates nothing.
 * Init only. */
rtm_status_t rtm_config_validate(const rtm_config_t *cfg, rtm_diag_t *diag);

/* Sets up k as task i's kernel instance for device `dev` (board device index, or -1 for
 * the CPU pool): the task's sizes, the board's tuning for that kernel and device (else
 * the kernel's default), planned. Buffers are not bound. Init only. */
rtm_status_t rtm_config_task_kinst(const rtm_config_t *cfg, uint32_t i, int dev, rtm_kinst_t *k);

/* Host bytes of task i's kernel buffers: the kernel planned at the task's sizes with
 * each tuning the board gives it (CPU, every device, the kernel's default), largest
 * wins. Allocates nothing. Init only. */
rtm_status_t rtm_config_task_bytes(const rtm_config_t *cfg, uint32_t i, uint64_t *bytes);

/* Sum of rtm_config_task_bytes() over all tasks, each rounded up to 64 bytes. */
rtm_status_t rtm_config_kernel_bytes(const rtm_config_t *cfg, uint64_t *bytes);

/* Index of the task named `name`, or -1. Safe on the real-time path. */
int rtm_config_task_find(const rtm_config_t *cfg, const char *name);

/* YAML names ("hard", "auto"). Safe anywhere. */
const char *rtm_crit_name(rtm_crit_t c);
const char *rtm_place_name(rtm_place_t p);

#endif
