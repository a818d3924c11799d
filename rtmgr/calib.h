/* calib.h — calibration of the execution-time models on this computer (`rtmgr
 * calibrate`), their validation against held-out sizes (`rtmgr calibrate --validate`),
 * and the check that a board profile still describes the computer it runs on.
 *
 * Method (seed 000, measured, not theoretical; docs/calibration.md has the details):
 * every figure is taken 10 times (after one warm-up run), outliers farther than 3 scaled
 * median absolute deviations from the median are dropped (rtm_stats_summary), the
 * median is kept and the spread (max - min) / median of the kept samples is recorded.
 * OpenCL figures come from event profiling; CPU figures from the monotonic clock.
 *
 * Everything here is init-time tooling: it allocates, builds programs, starts threads
 * and reads files. Nothing is safe on the real-time path. */
#ifndef RTM_CALIB_H
#define RTM_CALIB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "ocl.h"
#include "status.h"

/* Repetitions of every figure (the paper's 10). */
#define RTM_CALIB_REPS 10
/* opts.device of a run (or validation) of the CPU section alone: no OpenCL device. */
#define RTM_CALIB_DEV_NONE (-2)
/* Bytes of free-text notes a calibration record keeps for the profile's comment. */
#define RTM_CALIB_NOTES_MAX 65536
/* The time limit of a full calibration unless told otherwise (`--time-limit`), seconds:
 * `rtmgr calibrate` is to finish within 60 s on the H100 machine, where a busy host had
 * taken cold runs to 57-71 s (session 55); the profile's writing and the process's exit
 * follow the run. A --quick run has none unless given one. */
#define RTM_CALIB_TIME_LIMIT_S 58.0

/* Hosts of at least this many cores calibrate (and run) the CPU worker pool on all
 * cores but one, unless told otherwise (opts.threads, or a base profile's choice). */
#define RTM_CALIB_SPARE_MIN_CORES 4

/* How a calibration run is done. */
typedef struct {
    bool quick;           /* small sizes, no tuning sweep: for CI and `make run` */
    int device;           /* OpenCL device index (discovery order), -1 for all,
                           * RTM_CALIB_DEV_NONE for none (the CPU alone) */
    const char *kernels;  /* comma-separated kernel names limiting the per-kernel part;
                           * NULL or "" = the whole catalogue */
    bool no_cpu;          /* leave the CPU section as it is (from the base profile) */
    FILE *log;            /* progress lines; NULL = silent */
    uint32_t threads;     /* CPU worker threads to calibrate (and later run) with;
                           * 0 = one per online core */
    bool no_rt;           /* the CPU pool under the caller's policy, not SCHED_FIFO as
                           * `rtmgr run` schedules it (rtm_pool_start_as_run) */
    double time_limit;    /* seconds the whole run may take (0: no limit): near it the
                           * kernels left are measured at two points each, past it not
                           * at all (their terms kept from the base profile, else the
                           * generic model's; each a FALLBACK note) */
} rtm_calib_opts_t;

/* Robustness record of one figure: the summary of its repetitions. For a fitted
 * parameter (transfer fixed part and rate, per-kernel r) `spread` is the largest
 * spread of the measurements the fit used and `resid` the largest relative residual
 * of the fit at those sizes. n == 0: not measured this run. */
typedef struct {
    double median;
    double spread;  /* (max - min) / median of the kept samples */
    double resid;   /* fits only; 0 otherwise */
    uint32_t n;     /* samples taken */
    uint32_t kept;  /* samples kept after dropping outliers */
} rtm_calib_fig_t;

/* What a calibration run measured, beyond the profile's values: the spreads that go
 * into the profile as comments, and notes (host memory kind, single-thread figures,
 * sizes used). */
typedef struct {
    rtm_calib_fig_t cpu[RTM_CPU_P_COUNT];
    rtm_calib_fig_t cpu_k[RTM_MAX_KERNELS];
    rtm_calib_fig_t dev[RTM_MAX_DEVICES][RTM_DEV_P_COUNT];
    rtm_calib_fig_t dev_k[RTM_MAX_DEVICES][RTM_MAX_KERNELS];
    char notes[RTM_CALIB_NOTES_MAX];
    size_t notes_len;
    uint32_t notes_dropped; /* notes that did not fit (whole lines; the saved profile
                             * says how many) */
    double seconds; /* wall time of the whole run */
    uint32_t fallbacks; /* figures that took a default because their measurement or fit
                         * failed (each one a warning on stderr and a FALLBACK note) */
    /* of which program builds (seconds): compiled in measurements, parallel prebuild
     * batches (wall) and the build-time figure c; loads from the binary cache apart */
    double build_s, load_s;
    uint32_t n_built, n_loaded, n_prebuilt;
    /* kernels (of every section) the time limit cut: measured at two points each, and
     * not measured */
    uint32_t n_squeezed, n_skipped;
} rtm_calib_record_t;

/* Measures the model parameters of this computer into `board`: every OpenCL device
 * (or opts->device) and the CPU. `board` may hold a base profile (`-b`): its devices
 * are matched to the computer's by platform and device name and keep their names and
 * choices (model, abort transport when not measured); devices and sections not
 * calibrated this run are left as they are. `rec` (may be NULL) gets the spreads and
 * notes. Returns RTM_OK, RTM_E_CL_NODEV (no OpenCL device, or --device out of range),
 * RTM_E_NOMEM, RTM_E_CL*, RTM_E_OS_THREAD. Init only. */
rtm_status_t rtm_calib_run(const rtm_calib_opts_t *opts, rtm_board_t *board,
                           rtm_calib_record_t *rec);

/* Writes `board` to `path` as a board profile (rtm_board_save's schema), headed by a
 * comment naming `command` (the command line that made it), the date, the method and
 * the outlier rule, and followed by the calibration record (spreads, notes) as
 * comments. `base` (NULL: none) is the profile the run started from (-b): the lines of
 * its record this run did not measure — sections of devices (or the CPU) left alone,
 * figures and kernels' notes of a partial run (--kernels) — are carried over, marked as
 * the base profile's (an unreadable base: none). Temporary file, then renamed into
 * place. Init only. */
rtm_status_t rtm_calib_save(const rtm_board_t *board, const rtm_calib_record_t *rec,
                            const char *command, const char *base, const char *path);

/* Checks that `board` still describes this computer: every OpenCL device of the
 * profile is present (platform and device name) with the same driver version
 * (CL_DRIVER_VERSION) it was calibrated with, and the CPU has the same number of cores
 * and, where the profile records one, the same model name (rtm_os_cpu_name).
 * For each difference one line "rtmgr: warning: board profile stale: recalibrate
 * (WHAT)" goes to `warn` (may be NULL). `infos` lists the computer's devices (NULL:
 * discovered here; n ignored). Returns the number of differences (0 = current); never
 * fails: a computer without OpenCL makes every device of the profile stale. Init only. */
int rtm_calib_check_stale(const rtm_board_t *board, const rtm_ocl_info_t *infos, uint32_t n,
                          FILE *warn);

/* The computer's OpenCL device that board device `dev` describes: the first device of
 * `infos` whose platform name contains dev->platform and whose device name contains
 * dev->device, skipping as many matches as earlier board devices with the same two
 * strings took. Returns its index in infos, or -1. Safe anywhere. */
int rtm_calib_match(const rtm_board_t *board, uint32_t dev, const rtm_ocl_info_t *infos,
                    uint32_t n);

/* A build worker of calibration's parallel program builds (builder.h): reads job records
 * (rtm_build_record: a catalogue kernel, its tuning, the kexec options that change its
 * program, every size key) from in_fd until its end, builds each program as
 * calibration's measurements will into the binary cache `cache_dir`, on OpenCL device
 * `device` (rtm_ocl_discover's order), and writes one acknowledgement byte per record to
 * ack_fd (-1: none; the builder passes 3). Started by calibration itself (`rtmgr
 * calibrate --prebuild-worker DEV --cache DIR --ack-fd 3`): drivers serialise their
 * compiler within a process. A record that does not plan is acknowledged as failed; a
 * failed build shows again when measured. On a CPU-type device each built instance is
 * also launched once (flag raised). A worker that finds no device `device` says what
 * discovery saw on stderr. Returns RTM_OK, RTM_E_ARG, RTM_E_CL_NODEV or RTM_E_CL*, the
 * errors before it took a record. With `idle` (`--idle`) it first lowers itself to
 * SCHED_IDLE (best effort: where refused it goes on as it is). Init only. */
rtm_status_t rtm_calib_prebuild_worker(int device, const char *cache_dir, int in_fd, int ack_fd,
                                       bool idle);

/* How a validation run is done. */
typedef struct {
    bool quick;          /* small sizes */
    int device;          /* OpenCL device index, -1 = every device of the profile,
                          * RTM_CALIB_DEV_NONE = none (the CPU alone) */
    bool no_cpu;         /* skip the CPU pool */
    bool no_rt;          /* the CPU pool as rtm_calib_opts_t.no_rt says */
    bool json;           /* JSON lines instead of tables */
    FILE *json_out;      /* JSON lines also here (may be NULL): one run, both outputs */
    const char *kernels; /* comma-separated kernel names; NULL or "" = all */
    FILE *out;           /* results (stdout) */
    FILE *log;           /* progress; NULL = silent */
} rtm_calib_vopts_t;

/* Per device and model: the mean absolute percentage error of the totals. */
typedef struct {
    char device[RTM_NAME_MAX];
    double mape[2];     /* by rtm_model_kind_t */
    uint32_t count;     /* measurements scored */
} rtm_calib_vsum_t;

/* Reproduces the seed-000 experiment and extends it (docs/calibration.md): the seed-000
 * kernels at 1000, 2000, 3000 (smaller with quick) and every catalogue kernel over a
 * size sweep, on every device of `board` present on this computer and on the CPU
 * pool; prints predicted (both models) against measured transfer, kernel and total
 * times and the MAPE per device and model. The measured time is the one the model-error
 * log compares: transfers in + kernel + transfers out, event-profiled (rtm_kexec_run);
 * on the CPU the monotonic clock around the pool run. `sum` (may be NULL) gets up to
 * `max` per-device summaries, *nsum their count. Init only. */
rtm_status_t rtm_calib_validate(const rtm_calib_vopts_t *opts, const rtm_board_t *board,
                                rtm_calib_vsum_t *sum, uint32_t max, uint32_t *nsum);

#endif
