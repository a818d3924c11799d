/* errlog.c — the model-error log (see errlog.h; columns in docs/log.md).
 *
 * Owns: the bounded ring between real-time producers and the writer thread, the CSV
 * format, the log file and its error accounting.
 *
 * Ring: a bounded multi-producer queue with a sequence number per slot (D. Vyukov's
 * bounded MPMC queue, used here with one consumer). Slot i starts with seq = i.
 *   producer: claims position p by CAS on `head` when slot[p & mask].seq == p (the slot
 *     is free for this lap), copies the row, then publishes seq = p + 1 (release);
 *     seq < p means the slot still holds last lap's row: the ring is full, drop.
 *   writer:   reads slot[tail & mask] when seq == tail + 1 (acquire), copies the row,
 *     frees the slot for the next lap with seq = tail + capacity (release), tail++.
 * Why lock-free rather than a short critical section: with a mutex, a producer
 * preempted while holding it stalls every other real-time producer (priority
 * inversion, unbounded by anything rtmgr controls). Here a producer only ever waits for
 * its own CAS to succeed, which fails only when another producer made progress; a
 * producer preempted between claim and publish delays the writer, never a producer.
 *
 * Stop handshake: push increments `inflight`, then checks `closed`; stop sets `closed`,
 * then waits for `inflight` to reach 0 (both sequentially consistent). After that no
 * row can enter the ring, and the final drain sees every accepted row: after stop,
 * pushed == written + lost exactly.
 *
 * Writer: wakes every period (or at stop), drains the ring into a 64 KiB buffer and
 * writes it with write(2), retrying partial writes and EINTR. A failed write loses that
 * buffer's rows (counted in `lost`), counts the error, and is reported on stderr the
 * first time only; later writes are attempted as usual (the disk may recover), and a
 * header lost that way is sent again before the first row that gets written.
 * The writer is created SCHED_OTHER explicitly (not inheriting a real-time policy) and
 * with every signal blocked, so that SIGTERM reaches the manager's own thread. */
#include "errlog.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the log ring needs lock-free 64-bit atomics");

/* ST_NONE: never initialised, or init failed (zeroed struct). */
enum { ST_NONE, ST_INIT, ST_RUNNING, ST_STOPPED };

static const char header[] =
    "release_ms,task,job,device,model,predicted_ms,predicted_paper_ms,predicted_ext_ms,"
    "predicted_in_ms,predicted_kernel_ms,predicted_out_ms,measured_in_ms,"
    "measured_kernel_ms,measured_out_ms,measured_ms,response_ms,rel_error,deadline_ms,met,"
    "lateness_ms,preempted,resumed,blocks_done,blocks_total,reason,dispatch_ms,submit_ms,"
    "notice_ms";

const char *rtm_errlog_header(void) { return header; }

/* ---- row helpers (real-time safe) -------------------------------------------------- */

static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src && src[i] && i + 1 < cap; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

void rtm_errlog_row_init(rtm_errlog_row_t *row, const char *task, uint64_t job,
                         const char *device, int64_t release_ns, int64_t deadline_ns)
{
    memset(row, 0, sizeof(*row));
    row->release_ns = release_ns;
    row->job = job;
    copy_text(row->task, sizeof(row->task), task);
    copy_text(row->device, sizeof(row->device), device);
    row->predicted_ns = row->predicted_paper_ns = row->predicted_ext_ns = -1;
    row->predicted_in_ns = row->predicted_kernel_ns = row->predicted_out_ns = -1;
    row->measured_in_ns = row->measured_kernel_ns = row->measured_out_ns = -1;
    row->measured_ns = row->response_ns = -1;
    row->dispatch_ns = row->submit_ns = row->notice_ns = -1;
    row->deadline_ns = deadline_ns;
}

void rtm_errlog_row_predicted(rtm_errlog_row_t *row, const rtm_model_pred_t *pred)
{
    const rtm_model_time_t *u = rtm_model_used(pred);
    const bool ok = u->status == RTM_OK;
    row->model = pred->kind;
    row->predicted_ns = ok ? u->total_ns : -1;
    row->predicted_in_ns = ok ? u->in_ns : -1;
    row->predicted_kernel_ns = ok ? u->kernel_ns : -1;
    row->predicted_out_ns = ok ? u->out_ns : -1;
    row->predicted_paper_ns = pred->paper.status == RTM_OK ? pred->paper.total_ns : -1;
    row->predicted_ext_ns = pred->ext.status == RTM_OK ? pred->ext.total_ns : -1;
}

void rtm_errlog_row_reason(rtm_errlog_row_t *row, const char *reason)
{
    copy_text(row->reason, sizeof(row->reason), reason);
}

/* ---- ring ------------------------------------------------------------------------- */

rtm_status_t rtm_errlog_push(rtm_errlog_t *log, const rtm_errlog_row_t *row)
{
    if (!log || !row)
        return RTM_E_ARG;
    atomic_fetch_add(&log->inflight, 1);
    if (atomic_load(&log->closed)) {
        atomic_fetch_add_explicit(&log->dropped, 1, memory_order_relaxed);
        atomic_fetch_sub(&log->inflight, 1);
        return RTM_E_STATE;
    }
    uint64_t pos = atomic_load_explicit(&log->head, memory_order_relaxed);
    rtm_errlog_slot_t *s;
    for (;;) {
        s = &log->slot[pos & log->mask];
        const uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        const int64_t diff = (int64_t)(seq - pos);
        if (diff == 0) {
            if (atomic_compare_exchange_weak_explicit(&log->head, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed))
                break; /* claimed */
        } else if (diff < 0) {
            atomic_fetch_add_explicit(&log->dropped, 1, memory_order_relaxed);
            atomic_fetch_sub(&log->inflight, 1);
            return RTM_E_FULL;
        } else {
            pos = atomic_load_explicit(&log->head, memory_order_relaxed);
        }
    }
    s->row = *row;
    atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
    atomic_fetch_add_explicit(&log->pushed, 1, memory_order_relaxed);
    atomic_fetch_sub(&log->inflight, 1);
    return RTM_OK;
}

/* Writer side: takes the oldest published row, if any. Single consumer. */
static bool ring_pop(rtm_errlog_t *log, rtm_errlog_row_t *out)
{
    rtm_errlog_slot_t *s = &log->slot[log->tail & log->mask];
    if (atomic_load_explicit(&s->seq, memory_order_acquire) != log->tail + 1)
        return false;
    *out = s->row;
    atomic_store_explicit(&s->seq, log->tail + log->mask + 1, memory_order_release);
    log->tail++;
    return true;
}

/* ---- formatting (writer thread) ---------------------------------------------------- */

/* A line being formatted; output past `cap` is cut (a row never comes near it). */
typedef struct {
    char *p;
    size_t cap, n;
} line_t;

/* Moves past what snprintf wrote (k), keeping the terminating NUL inside. */
static void advance(line_t *l, int k)
{
    if (k > 0)
        l->n += (size_t)k < l->cap - l->n ? (size_t)k : l->cap - l->n - 1;
}
#define add(l, ...) advance((l), snprintf((l)->p + (l)->n, (l)->cap - (l)->n, __VA_ARGS__))

/* ",<ms>" with 6 decimals (exact from ns), or "," when `none`. */
static void add_ms(line_t *l, int64_t ns, bool none)
{
    if (none) {
        add(l, ",");
        return;
    }
    const uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    add(l, ",%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "", a / 1000000u, a % 1000000u);
}

/* ",<text>" with CSV-breaking characters written as '_'. */
static void add_text(line_t *l, const char *text, size_t max)
{
    add(l, ",");
    for (size_t i = 0; i < max && text[i] && l->n + 1 < l->cap; i++) {
        const unsigned char c = (unsigned char)text[i];
        l->p[l->n++] = (c == ',' || c == '"' || c < 0x20 || c == 0x7f) ? '_' : (char)c;
    }
    l->p[l->n] = '\0';
}

/* Formats one row, every field with a leading ',', and the newline; returns the length
 * (< cap). The caller drops the first comma. */
static size_t format_row(const rtm_errlog_row_t *r, char *buf, size_t cap)
{
    line_t l = {buf, cap, 0};
    const bool done = r->response_ns >= 0;
    const bool met = done && r->response_ns <= r->deadline_ns;
    add_ms(&l, r->release_ns, false);
    add_text(&l, r->task, sizeof(r->task));
    add(&l, ",%" PRIu64, r->job);
    add_text(&l, r->device, sizeof(r->device));
    add(&l, ",%s", rtm_model_name(r->model));
    const int64_t ms[] = {
        r->predicted_ns,    r->predicted_paper_ns,  r->predicted_ext_ns,
        r->predicted_in_ns, r->predicted_kernel_ns, r->predicted_out_ns,
        r->measured_in_ns,  r->measured_kernel_ns,  r->measured_out_ns,
        r->measured_ns,     r->response_ns,
    };
    for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
        add_ms(&l, ms[i], ms[i] < 0);
    if (r->predicted_ns >= 0 && r->measured_ns > 0)
        add(&l, ",%.6f", (double)(r->predicted_ns - r->measured_ns) / (double)r->measured_ns);
    else
        add(&l, ",");
    add_ms(&l, r->deadline_ns, r->deadline_ns < 0);
    add(&l, ",%d", met ? 1 : 0);
    add_ms(&l, r->response_ns - r->deadline_ns, !done);
    add(&l, ",%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu32, r->preempted, r->resumed,
        r->blocks_done, r->blocks_total);
    add_text(&l, r->reason, sizeof(r->reason));
    add_ms(&l, r->dispatch_ns, r->dispatch_ns < 0);
    add_ms(&l, r->submit_ns, r->submit_ns < 0);
    add_ms(&l, r->notice_ns, r->notice_ns < 0);
    add(&l, "\n");
    return l.n;
}

/* ---- file (writer thread, or the stopping thread when never started) ---------------- */

static void io_error(rtm_errlog_t *log, const char *what, int err, uint64_t rows)
{
    atomic_fetch_add(&log->write_errors, 1);
    atomic_fetch_add(&log->lost, rows);
    atomic_store(&log->last_errno, err);
    if (!log->reported) {
        char text[128];
        if (strerror_r(err, text, sizeof(text)) != 0)
            snprintf(text, sizeof(text), "errno %d", err);
        fprintf(stderr,
                "rtmgr: model-error log %s: %s failed: %s (further errors are counted, "
                "not reported)\n",
                log->path, what, text);
        log->reported = true;
    }
}

/* Writes the buffer out; on failure its rows are lost and counted. */
static void flush_buf(rtm_errlog_t *log)
{
    size_t off = 0;
    while (off < log->buf_len) {
        const ssize_t w = write(log->fd, log->buf + off, log->buf_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            io_error(log, "write", w < 0 ? errno : EIO, log->buf_rows);
            break;
        }
        off += (size_t)w;
    }
    if (off == log->buf_len) {
        atomic_fetch_add(&log->written, log->buf_rows);
        log->header_done |= log->header_in_buf;
    }
    log->header_in_buf = false; /* a header lost with its buffer is written again */
    log->buf_len = 0;
    log->buf_rows = 0;
}

/* Starts an empty buffer with the header while the header has not been written. */
static void buf_start(rtm_errlog_t *log)
{
    if (log->buf_len || log->header_done)
        return;
    const size_t n = sizeof(header) - 1;
    memcpy(log->buf, header, n);
    log->buf[n] = '\n';
    log->buf_len = n + 1;
    log->header_in_buf = true;
}

static void drain(rtm_errlog_t *log)
{
    buf_start(log);
    const uint64_t used = atomic_load(&log->head) - log->tail;
    if (used > atomic_load(&log->peak))
        atomic_store(&log->peak, (uint32_t)used);
    rtm_errlog_row_t row;
    char line[1024];
    while (ring_pop(log, &row)) {
        const size_t n = format_row(&row, line, sizeof(line)) - 1; /* without the ',' */
        if (log->buf_len + n > sizeof(log->buf)) {
            flush_buf(log);
            buf_start(log);
        }
        memcpy(log->buf + log->buf_len, line + 1, n);
        log->buf_len += n;
        log->buf_rows++;
    }
    if (log->buf_len)
        flush_buf(log);
}

/* Final drain, fsync and close. */
static void finish(rtm_errlog_t *log)
{
    drain(log);
    if (fsync(log->fd) != 0 && errno != EINVAL && errno != EROFS && errno != ENOTSUP)
        io_error(log, "fsync", errno, 0);
    if (close(log->fd) != 0)
        io_error(log, "close", errno, 0);
    log->fd = -1;
}

static void *writer_main(void *arg)
{
    rtm_errlog_t *log = arg;
    pthread_mutex_lock(&log->mu);
    while (!log->stop_req) {
        pthread_mutex_unlock(&log->mu);
        drain(log);
        pthread_mutex_lock(&log->mu);
        if (log->stop_req)
            break;
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        t.tv_nsec += (long)(log->period_ms % 1000u) * 1000000L;
        t.tv_sec += (time_t)(log->period_ms / 1000u) + t.tv_nsec / 1000000000L;
        t.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&log->cv, &log->mu, &t);
    }
    pthread_mutex_unlock(&log->mu);
    finish(log);
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------------------- */

/* Shifts an earlier run's non-empty log out of the way (errlog.h). Failures to rename
 * are reported and the log then overwrites, as before: the manager must start. */
static void keep_previous(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return;
    char from[RTM_PATH_MAX + 8], to[RTM_PATH_MAX + 8];
    snprintf(to, sizeof(to), "%s.%d", path, RTM_ERRLOG_KEEP);
    (void)unlink(to);
    for (int k = RTM_ERRLOG_KEEP - 1; k >= 0; k--) {
        snprintf(from, sizeof(from), k ? "%s.%d" : "%s", path, k);
        snprintf(to, sizeof(to), "%s.%d", path, k + 1);
        if (rename(from, to) != 0 && errno != ENOENT)
            fprintf(stderr, "rtmgr: model-error log: cannot keep %s as %s: %s\n", from, to,
                    strerror(errno));
    }
}

rtm_status_t rtm_errlog_init(rtm_errlog_t *log, const char *path, rtm_errlog_slot_t *slots,
                             uint32_t capacity, uint32_t period_ms)
{
    if (!log || !path || !slots || capacity < 2 || (capacity & (capacity - 1)) ||
        strlen(path) >= sizeof(log->path))
        return RTM_E_ARG;
    memset(log, 0, offsetof(rtm_errlog_t, buf));
    atomic_init(&log->closed, true); /* until init succeeds */
    log->fd = -1;
    copy_text(log->path, sizeof(log->path), path);
    log->slot = slots;
    log->mask = capacity - 1u;
    for (uint32_t i = 0; i < capacity; i++)
        atomic_init(&slots[i].seq, i);
    atomic_init(&log->head, 0);
    atomic_init(&log->inflight, 0);
    log->period_ms = period_ms ? period_ms : RTM_ERRLOG_PERIOD_MS;

    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0)
        return RTM_E_OS;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    const int ce = pthread_cond_init(&log->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (ce != 0)
        return RTM_E_OS;
    if (pthread_mutex_init(&log->mu, NULL) != 0) {
        pthread_cond_destroy(&log->cv);
        return RTM_E_OS;
    }
    keep_previous(path);
    log->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log->fd < 0) {
        fprintf(stderr, "rtmgr: model-error log %s: cannot open: %s\n", path, strerror(errno));
        pthread_mutex_destroy(&log->mu);
        pthread_cond_destroy(&log->cv);
        return RTM_E_IO;
    }
    log->state = ST_INIT;
    atomic_store(&log->closed, false);
    return RTM_OK;
}

rtm_status_t rtm_errlog_start(rtm_errlog_t *log)
{
    if (!log)
        return RTM_E_ARG;
    if (log->state != ST_INIT || log->fd < 0)
        return RTM_E_STATE;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
        return RTM_E_OS_THREAD;
    struct sched_param sp = {.sched_priority = 0};
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
    pthread_attr_setschedparam(&attr, &sp);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int e = pthread_create(&log->thread, &attr, writer_main, log);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (e != 0)
        return RTM_E_OS_THREAD;
    log->state = ST_RUNNING;
    return RTM_OK;
}

rtm_status_t rtm_errlog_stop(rtm_errlog_t *log)
{
    if (!log)
        return RTM_E_ARG;
    if (log->state == ST_NONE)
        return RTM_E_STATE;
    if (log->state == ST_STOPPED)
        return RTM_OK;
    atomic_store(&log->closed, true);
    while (atomic_load(&log->inflight) != 0)
        sched_yield(); /* a push takes nanoseconds; only a preempted one is waited for */
    if (log->state == ST_RUNNING) {
        pthread_mutex_lock(&log->mu);
        log->stop_req = true;
        pthread_cond_signal(&log->cv);
        pthread_mutex_unlock(&log->mu);
        pthread_join(log->thread, NULL);
    } else {
        finish(log);
    }
    pthread_mutex_destroy(&log->mu);
    pthread_cond_destroy(&log->cv);
    log->state = ST_STOPPED;
    return atomic_load(&log->write_errors) ? RTM_E_IO : RTM_OK;
}

void rtm_errlog_stats(const rtm_errlog_t *log, rtm_errlog_stats_t *out)
{
    out->pushed = atomic_load(&log->pushed);
    out->dropped = atomic_load(&log->dropped);
    out->written = atomic_load(&log->written);
    out->lost = atomic_load(&log->lost);
    out->write_errors = atomic_load(&log->write_errors);
    out->last_errno = atomic_load(&log->last_errno);
    out->peak = atomic_load(&log->peak);
}
