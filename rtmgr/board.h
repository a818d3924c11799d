/* board.h — a board profile: the computer's devices and their calibrated model
 * parameters, as data (board/<name>.yaml).
 *
 * Parameters are stored in SI base units (seconds, bytes, bytes/second, operations);
 * in YAML they carry a unit suffix. Each parameter has a `have` bit: an uncalibrated
 * parameter is absent, never a silent zero. */
#ifndef RTM_BOARD_H
#define RTM_BOARD_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "kernel.h"
#include "limits.h"
#include "status.h"

typedef enum { RTM_DEV_CPU, RTM_DEV_GPU, RTM_DEV_ACCEL } rtm_dev_kind_t;
typedef enum { RTM_ABORT_WRITE, RTM_ABORT_MAPPED } rtm_abort_transport_t;
typedef enum { RTM_MODEL_PAPER, RTM_MODEL_EXTENDED } rtm_model_kind_t;

/* X(id, yaml key, unit class, help) — OpenCL device parameters (seed 000 eq. 4 and the
 * extended model). Unit classes: TIME (s), BYTES, RATE (B/s), COUNT. */
#define RTM_DEV_PARAMS(X)                                                          \
    X(r_op, "r_op", TIME, "time of one operation (matrix_mov kernel)")            \
    X(units, "units", COUNT, "execution units N")                                \
    X(ws_fixed, "ws_fixed", TIME, "host->device transfer, fixed part")            \
    X(ws_rate, "ws_rate", RATE, "host->device transfer bandwidth")                \
    X(wr_fixed, "wr_fixed", TIME, "device->host transfer, fixed part")            \
    X(wr_rate, "wr_rate", RATE, "device->host transfer bandwidth")                \
    X(ws_knee, "ws_knee", BYTES, "host->device bytes beyond which ws_rate_big applies, ext.") \
    X(ws_rate_big, "ws_rate_big", RATE, "host->device bandwidth beyond ws_knee, ext.") \
    X(wr_knee, "wr_knee", BYTES, "device->host bytes beyond which wr_rate_big applies, ext.") \
    X(wr_rate_big, "wr_rate_big", RATE, "device->host bandwidth beyond wr_knee, ext.")  \
    X(ws_knee2, "ws_knee2", BYTES, "host->device bytes beyond which ws_rate_big2 applies, ext.") \
    X(ws_rate_big2, "ws_rate_big2", RATE, "host->device bandwidth beyond ws_knee2, ext.") \
    X(wr_knee2, "wr_knee2", BYTES, "device->host bytes beyond which wr_rate_big2 applies, ext.") \
    X(wr_rate_big2, "wr_rate_big2", RATE, "device->host bandwidth beyond wr_knee2, ext.") \
    X(build, "build", TIME, "program build time c (from source)")                 \
    X(cache_load, "cache_load", TIME, "program load time from the binary cache")  \
    X(launch, "launch", TIME, "kernel launch latency (enqueue to start)")         \
    X(kernel_fixed, "kernel_fixed", TIME, "empty kernel START->END: fixed time per launch, ext.") \
    X(mem_rate, "mem_rate", RATE, "device global-memory bandwidth")               \
    X(abort_response, "abort_response", TIME, "abort flag raised -> kernel done") \
    X(cus, "cus", COUNT, "compute units (CL_DEVICE_MAX_COMPUTE_UNITS), extended") \
    X(resident, "resident", COUNT, "work-groups resident per compute unit, ext.")  \
    X(cache, "cache", BYTES, "last-level cache: kernel memory rates apply above it, ext.") \
    X(ws_next, "ws_next", TIME, "host->device, each command after the first, ext.") \
    X(wr_next, "wr_next", TIME, "device->host, each command after the first, ext.") \
    X(ws_clear, "ws_clear", TIME, "block-control clears of a job without inputs, ext.") \
    X(kernel_next, "kernel_next", TIME, "each further launch of a job: back-to-back empty kernels, ext.") \
    X(phase_gap, "phase_gap", TIME, "device idle between a job's phases (inputs, kernels, outputs), ext.") \
    X(gap_host_k, "gap_host_k", TIME, "host: a job's inputs started on the device -> its kernel, ext.") \
    X(gap_host_o, "gap_host_o", TIME, "host: a job's kernel started on the device -> its outputs, ext.") \
    X(ws_idle, "ws_idle", TIME, "a job's inputs after 20 ms idle: more than back to back, ext.") \
    X(wr_idle, "wr_idle", TIME, "a job's outputs after 20 ms idle: more than back to back, ext.") \
    X(pace, "pace", TIME, "host: enqueueing per launch of the pace probe: the host-paced terms' pace (GPUs), ext.") \
    X(l1d, "l1d", BYTES, "CPU-type devices: a core's L1 data cache: where strided walks alias, ext.") \
    X(l1d_ways, "l1d_ways", COUNT, "its ways (associativity), ext.")             \
    X(line, "line", BYTES, "its line, ext.")

/* X(id, yaml key, unit class, help) — CPU parameters (seed 000 eq. 1). */
#define RTM_CPU_PARAMS(X)                                                          \
    X(r_scalar, "r_scalar", TIME, "operation time, scalar class (r_1)")           \
    X(r_unit, "r_unit", TIME, "operation time, unit-stride array class (r_2)")    \
    X(r_strided, "r_strided", TIME, "operation time, strided array class (r_3)")  \
    X(w, "w", TIME, "time to pass one datum between threads")                     \
    X(cw, "cw", TIME, "thread synchronisation time")                              \
    X(ti, "ti", TIME, "measurement initialisation time")                          \
    X(lp, "lp", COUNT, "pipeline depth")                                          \
    X(mem_rate, "mem_rate", RATE, "memory bandwidth (extended model)")            \
    X(dispatch, "dispatch", TIME, "worker-pool overhead per block (extended)")    \
    X(cw_idle, "cw_idle", TIME, "a launch's wake-up and join after 20 ms idle (ext.)") \
    X(cw_wake, "cw_wake", TIME, "a launch run by its caller alone after idle: the wake call (ext.)") \
    X(cw_warm, "cw_warm", TIME, "a launch's wake-up and join after idle, its workers warmed ahead (ext.)") \
    X(warm_lead, "warm_lead", TIME, "how far ahead cw_warm's workers were warmed: the spin lead it holds for (ext.)") \
    X(cw_idle_log2, "cw_idle_log2", TIME, "what cw_idle and cw_warm take more per doubling of the idle past 20 ms (ext.)") \
    X(cold_rate, "cold_rate", RATE, "rate an idle pool's job re-reads its data out of the workers' caches at (ext.)") \
    X(cache, "cache", BYTES, "last-level cache: kernel memory rates apply above it, ext.") \
    X(l1d, "l1d", BYTES, "a core's L1 data cache: where strided walks alias, ext.") \
    X(l1d_ways, "l1d_ways", COUNT, "its ways (associativity), ext.")             \
    X(line, "line", BYTES, "its line, ext.")

/* RTM_DEV_P_<id> and RTM_CPU_P_<id>: index of each parameter in param[] / cpu_param[]. */
enum {
#define RTM_P_ENUM(id, key, unit, help) RTM_DEV_P_##id,
    RTM_DEV_PARAMS(RTM_P_ENUM) RTM_DEV_P_COUNT
#undef RTM_P_ENUM
};
enum {
#define RTM_P_ENUM(id, key, unit, help) RTM_CPU_P_##id,
    RTM_CPU_PARAMS(RTM_P_ENUM) RTM_CPU_P_COUNT
#undef RTM_P_ENUM
};

/* Per device and kernel: measured tuning, per-kernel operation time and memory rate. */
typedef struct {
    bool have;
    rtm_tune_t tune;
    double r_op;     /* per-kernel r (s), 0 when not calibrated */
    double mem_rate; /* bytes_dev per second the kernel reaches once memory-bound (B/s,
                      * extended model), 0 when not calibrated */
    double t_fixed;  /* fixed kernel time per job beyond the executor's per-launch costs
                      * (s, extended model), 0 when none */
    double r_big;    /* per-kernel r for jobs whose buffers exceed `knee` (s, extended
                      * model: a second cache/TLB regime), 0 when none */
    double r_miss;   /* per-kernel r of a job whose buffers all lie beyond `knee` (s,
                      * extended model; excludes r_big): past the knee r blends from r_op
                      * to it by the share of the buffers beyond, 1 - knee / bytes; 0 = none */
    double knee;     /* bytes of working set (bytes_ws) beyond which r_big (r_miss) applies,
                      * 0 = none */
    double r_byte;   /* time per byte of device-memory traffic (bytes_dev), added to the
                      * operations' time (s/B, extended model), 0 when none */
    double p_ops;    /* the operations' time scales as (Z * li / x_ref)^p_ops on top of
                      * linear (0 <= p_ops <= 1, extended model), 0 when none */
    double x_ref;    /* reference operation count of p_ops (> 0 when p_ops is set) */
    double t_next;   /* each further launch of a multi-launch job while the host paces them
                      * (s, extended model, devices: the kernel's own launches at a small
                      * size), 0 = the device's kernel_next */
    uint32_t poll_every; /* calibrated in-loop poll period (RTM_POLL_EVERY, devices only):
                          * 0 = not calibrated (the executive's default),
                          * RTM_BOARD_POLL_NONE = no in-loop polls (YAML `poll_every: 0`) */
    double poll_cost;    /* the kernel time of that build over the build the terms above
                          * were fitted on (rtm_kexec_calib_opts), less 1, as calibration
                          * measured it (extended model: the work of a job that polls at
                          * poll_every costs 1 + poll_cost times as much); 0 = none */
    double aligned;      /* the work's time on rows aligned to 32 bytes over the odd rows
                          * the terms above were fitted on (extended model, devices: a job
                          * whose cost says rows_aligned does aligned times the work;
                          * with aligned_r, aligned times the part of its per-operation
                          * time above aligned_r); 0 = none */
    double aligned_r;    /* s per counted operation (extended model, CPU pool): the fitted
                          * terms' rate at the kernel's smallest calibration point; with it
                          * an aligned job's rate R becomes aligned_r + aligned * (R -
                          * aligned_r) where R exceeds it: aligned rows shed part of the
                          * growth past the caches that the odd rows' fit carries, none of
                          * the rate below (session 75); 0 = aligned a plain factor */
    double resident;     /* the kernel's work-groups a compute unit runs at once before its
                          * throughput saturates (extended model, GPU-like devices: the waves
                          * term's `resident` for this kernel, fitted by calibration where its
                          * points straddle it); 0 = the device's `resident` */
    double aliased;      /* the work's time where the job's strided walk folds onto too few
                          * of a core's L1 sets (rtm_model_cpu_alias_share,
                          * rtm_model_dev_alias_share) over the fitted sizes', whose walks
                          * do not (extended model: the CPU pool, CPU-type devices); 0 = none */
} rtm_board_ktune_t;

/* rtm_board_ktune_t.poll_every: calibration found no poll period cheap enough. */
#define RTM_BOARD_POLL_NONE UINT32_MAX
/* rtm_board_ktune_t.poll_cost: the range a profile may hold (exclusive). */
#define RTM_BOARD_POLL_COST_MIN -0.5
#define RTM_BOARD_POLL_COST_MAX 2.0
/* rtm_board_ktune_t.aligned: the range a profile may hold (exclusive). */
#define RTM_BOARD_ALIGNED_MIN 0.5
#define RTM_BOARD_ALIGNED_MAX 1.5
/* ... and with aligned_r, where it scales the growth above it (exclusive). */
#define RTM_BOARD_ALIGNED_GROWTH_MIN 0.0
/* rtm_board_ktune_t.aliased: the range a profile may hold (exclusive). */
#define RTM_BOARD_ALIASED_MIN 0.5
#define RTM_BOARD_ALIASED_MAX 4.0
/* rtm_board_ktune_t.resident: the range a profile may hold (inclusive). */
#define RTM_BOARD_RESIDENT_MIN 1.0
#define RTM_BOARD_RESIDENT_MAX 1024.0

typedef struct {
    char name[RTM_NAME_MAX];     /* rtmgr's name for the device (e.g. gpu0) */
    char platform[RTM_NAME_MAX * 2]; /* substring of CL_PLATFORM_NAME */
    char device[RTM_NAME_MAX * 2];   /* substring of CL_DEVICE_NAME */
    rtm_dev_kind_t kind;
    uint64_t memory;             /* bytes */
    rtm_abort_transport_t abort;
    rtm_model_kind_t model;      /* which model placement uses */
    char driver[RTM_NAME_MAX * 2];   /* CL_DRIVER_VERSION at calibration */
    char measured[32];           /* ISO date of calibration, "" if never */
    double param[RTM_DEV_P_COUNT];
    bool have[RTM_DEV_P_COUNT];
    rtm_board_ktune_t ktune[RTM_MAX_KERNELS]; /* by catalogue index */
} rtm_board_dev_t;

typedef struct {
    char path[RTM_PATH_MAX];
    char name[RTM_NAME_MAX];
    uint32_t cores;   /* CPU cores of the computer */
    uint32_t threads; /* CPU worker threads rtmgr may use */
    rtm_model_kind_t cpu_model;
    char cpu_measured[32];
    char cpu_name[128]; /* the CPU's model name at calibration (rtm_os_cpu_name); "": not
                         * recorded (profiles before session 71), not checked */
    double cpu_param[RTM_CPU_P_COUNT];
    bool cpu_have[RTM_CPU_P_COUNT];
    rtm_board_ktune_t cpu_ktune[RTM_MAX_KERNELS];
    uint32_t n_devs;
    rtm_board_dev_t dev[RTM_MAX_DEVICES];
} rtm_board_t;

/* Loads and validates a board profile (schema: docs/config.md). Init only; uses a
 * static parse tree, so one load at a time. Returns RTM_OK, or RTM_E_CFG_IO when the
 * file cannot be read (diag line 0), or another RTM_E_CFG_* code with `diag` pointing
 * into the file. On error `board` must not be used. */
rtm_status_t rtm_board_load(const char *path, rtm_board_t *board, rtm_diag_t *diag);

/* Writes a board profile (calibration output) in the schema rtm_board_load() reads,
 * every value with its unit, so that loading it gives back `board` exactly: to a
 * temporary file beside `path`, then renamed into place. Init only. Returns RTM_OK,
 * RTM_E_ARG (e.g. a NaN parameter) or RTM_E_IO. */
rtm_status_t rtm_board_save(const rtm_board_t *board, const char *path);

/* YAML names of the enumerations ("gpu", "mapped", "extended"). Safe anywhere. */
const char *rtm_board_kind_name(rtm_dev_kind_t kind);
const char *rtm_board_abort_name(rtm_abort_transport_t abort);
const char *rtm_board_model_name(rtm_model_kind_t model);

#endif
