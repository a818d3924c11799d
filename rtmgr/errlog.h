/* errlog.h — the model-error log: one CSV row per job with what the models predicted,
 * what was measured, and whether the deadline was met (columns: docs/log.md).
 *
 * Real-time threads (dispatchers, workers) push rows into a static ring; a low-priority
 * writer thread formats them and writes the file. The push path never blocks, never
 * allocates and does no I/O: when the ring is full the row is dropped and counted.
 * A disk error (ENOSPC…) is reported once on stderr, counted, and the manager runs on.
 *
 * Lifecycle: init (opens the file) -> start (writer thread) -> push… -> stop (drains
 * the ring, writes, closes). Rows pushed between init and start wait in the ring.
 * On SIGTERM the manager's main thread calls stop (not from the signal handler). */
#ifndef RTM_ERRLOG_H
#define RTM_ERRLOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "limits.h"
#include "model.h"
#include "status.h"

/* Placement reason text, including the NUL (longer reasons are cut). */
#define RTM_ERRLOG_REASON_MAX 48
/* Bytes the writer formats before one write(2). */
#define RTM_ERRLOG_BUF_BYTES 65536
/* Writer wake-up period when none is given (ms). */
#define RTM_ERRLOG_PERIOD_MS 20
#define RTM_ERRLOG_KEEP 5 /* earlier runs' logs kept as PATH.1 .. PATH.5 */

/* One job. Times are nanoseconds; -1 = unknown (never measured, model failed).
 * Text fields are cut to their size; ',', '"' and control characters are written as
 * '_' so that the CSV needs no quoting. */
typedef struct {
    int64_t release_ns;   /* release time, monotonic, since the manager started */
    uint64_t job;         /* job number within its task: 0, 1, 2… */
    char task[RTM_NAME_MAX];
    char device[RTM_NAME_MAX]; /* where it ran (finished): "cpu", "gpu0"… */
    rtm_model_kind_t model;    /* model placement used on that device */
    int64_t predicted_ns;       /* the used model's total (compared with measured_ns) */
    int64_t predicted_paper_ns; /* seed-000 model's total */
    int64_t predicted_ext_ns;   /* extended model's total */
    int64_t predicted_in_ns, predicted_kernel_ns, predicted_out_ns; /* used model's parts */
    int64_t measured_in_ns;     /* host -> device transfers (profiling events; 0 on CPU) */
    int64_t measured_kernel_ns; /* first kernel start to last kernel end; CPU: pool run */
    int64_t measured_out_ns;    /* device -> host transfers */
    int64_t measured_ns;        /* device execution time: in + kernel + out */
    int64_t response_ns;        /* release -> completion, host monotonic clock */
    int64_t deadline_ns;        /* relative deadline */
    uint32_t preempted;         /* times the job was aborted */
    uint32_t resumed;           /* times it was resumed after an abort */
    uint32_t blocks_done;       /* blocks completed (all of them when it finished) */
    uint32_t blocks_total;
    char reason[RTM_ERRLOG_REASON_MAX]; /* placement reason ("earliest-finish"…) */
    /* where the response went (-1 unknown); for a completed job never preempted,
     * response = dispatch + submit + measured + notice */
    int64_t dispatch_ns; /* release -> its dispatcher began it (queueing, hand-off) */
    int64_t submit_ns;   /* -> the device started its first command (0 on the CPU pool) */
    int64_t notice_ns;   /* the device ended its last command -> the host completed it */
} rtm_errlog_row_t;

/* One ring slot; the caller provides `capacity` of them (static array or arena). */
typedef struct {
    _Atomic uint64_t seq;
    rtm_errlog_row_t row;
} rtm_errlog_slot_t;

typedef struct {
    uint64_t pushed;       /* rows accepted into the ring */
    uint64_t dropped;      /* rows refused: ring full, or pushed after stop */
    uint64_t written;      /* rows written to the file */
    uint64_t lost;         /* rows taken from the ring but not written (write error) */
    uint64_t write_errors; /* failed write(2)/fsync/close calls */
    int last_errno;        /* errno of the latest write error, 0 if none */
    uint32_t peak;         /* highest ring occupancy the writer saw */
} rtm_errlog_stats_t;

/* The log. Treat as opaque; it is public so that it can be allocated statically. */
typedef struct {
    rtm_errlog_slot_t *slot;
    uint64_t mask; /* capacity - 1 */
    _Alignas(64) _Atomic uint64_t head; /* next position a producer claims */
    _Alignas(64) uint64_t tail;         /* next position the writer reads (writer only) */
    _Atomic uint32_t inflight;          /* producers inside push (for stop) */
    _Atomic bool closed;                /* push refuses rows */
    _Atomic uint64_t pushed, dropped, written, lost, write_errors;
    _Atomic int last_errno;
    _Atomic uint32_t peak;
    int fd;
    int state; /* lifecycle phase (errlog.c) */
    bool reported;                 /* the first write error was printed */
    bool header_done, header_in_buf; /* header written / waiting in buf */
    uint32_t period_ms;
    pthread_t thread;
    pthread_mutex_t mu; /* with cv: writer wake-up and stop request only */
    pthread_cond_t cv;
    bool stop_req;
    char path[RTM_PATH_MAX];
    size_t buf_len;
    uint64_t buf_rows;
    char buf[RTM_ERRLOG_BUF_BYTES];
} rtm_errlog_t;

/* Opens `path` and sets up the ring over `slots` (capacity a power
 * of two, >= 2; the caller keeps the slots alive until stop). The writer wakes every
 * `period_ms` (0: RTM_ERRLOG_PERIOD_MS). Init only. RTM_E_ARG on bad arguments,
 * RTM_E_IO (with a message on stderr) when the file cannot be opened, RTM_E_OS when the
 * thread primitives cannot be created. */
rtm_status_t rtm_errlog_init(rtm_errlog_t *log, const char *path, rtm_errlog_slot_t *slots,
                             uint32_t capacity, uint32_t period_ms);
/* A non-empty log left by an earlier run (a restart after a crash, or the previous
 * voyage) is never overwritten: init renames PATH.(k) to PATH.(k+1) for the
 * RTM_ERRLOG_KEEP - 1 newest kept files and PATH to PATH.1 before it creates PATH; the
 * oldest beyond RTM_ERRLOG_KEEP is removed. An empty PATH is reused. */

/* Starts the writer thread (SCHED_OTHER whatever the caller's policy; all signals
 * blocked in it). Init only. RTM_E_STATE if not just initialised, RTM_E_OS_THREAD. */
rtm_status_t rtm_errlog_start(rtm_errlog_t *log);

/* Copies `row` into the ring. Never blocks, allocates or calls the OS; lock-free and
 * safe from any number of threads at once. RTM_E_FULL when the ring is full and
 * RTM_E_STATE after stop (the row is dropped and counted either way). Real-time safe. */
rtm_status_t rtm_errlog_push(rtm_errlog_t *log, const rtm_errlog_row_t *row);

/* Refuses further rows, waits for pushes in progress, lets the writer drain the ring,
 * write and fsync, joins it and closes the file (without a writer, drains on the
 * calling thread). Returns RTM_E_IO if any write failed during the log's life, else
 * RTM_OK; a second call does nothing. Not real-time: call from the main thread. */
rtm_status_t rtm_errlog_stop(rtm_errlog_t *log);

/* A consistent-enough snapshot of the counters (each read atomically). Safe anywhere. */
void rtm_errlog_stats(const rtm_errlog_t *log, rtm_errlog_stats_t *out);

/* Row helpers, real-time safe (no allocation, bounded copies).
 * row_init: zeroes the row, copies the names (cut to size), sets every time to -1 (unknown)
 * except release and deadline. */
void rtm_errlog_row_init(rtm_errlog_row_t *row, const char *task, uint64_t job,
                         const char *device, int64_t release_ns, int64_t deadline_ns);
/* Sets the model fields from a prediction (failed models become -1). */
void rtm_errlog_row_predicted(rtm_errlog_row_t *row, const rtm_model_pred_t *pred);
/* Sets the placement reason (cut to RTM_ERRLOG_REASON_MAX - 1 characters). */
void rtm_errlog_row_reason(rtm_errlog_row_t *row, const char *reason);

/* The CSV header line (no newline), as written at the top of every log. */
const char *rtm_errlog_header(void);

#endif
