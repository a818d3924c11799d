/* test_errlog.c — the model-error log: row format, many producers with and without
 * room in the ring, the disk-error path on /dev/full, flush on stop, and no allocation
 * on the push path (malloc/calloc/realloc wrapped, see test_errlog.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/errlog.h"

/* ---- allocation counter (linked with --wrap) -------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
static _Thread_local volatile int counting; /* volatile: the compiler assumes malloc reads no globals */
static _Thread_local volatile unsigned allocs;

void *__wrap_malloc(size_t n)
{
    allocs += counting;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    allocs += counting;
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    allocs += counting;
    return __real_realloc(p, n);
}

/* ---- helpers ------------------------------------------------------------------------ */

static char *tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/rtm_test_errlog_%ld_%s.csv", (long)getpid(), name);
    return buf;
}

static rtm_errlog_slot_t *slots_new(uint32_t n)
{
    rtm_errlog_slot_t *s = calloc(n, sizeof(*s));
    assert_non_null(s);
    return s;
}

/* Reads a file; splits it into lines in place. Returns the line count. */
static size_t read_lines(const char *path, char **text, char ***lines)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    *text = malloc((size_t)size + 1);
    assert_int_equal(fread(*text, 1, (size_t)size, f), (size_t)size);
    (*text)[size] = '\0';
    fclose(f);
    size_t n = 0;
    for (long i = 0; i < size; i++)
        n += (*text)[i] == '\n';
    *lines = calloc(n + 1, sizeof(char *));
    size_t k = 0;
    char *p = *text;
    while (*p) {
        char *nl = strchr(p, '\n');
        assert_non_null(nl); /* every line ends with a newline */
        *nl = '\0';
        (*lines)[k++] = p;
        p = nl + 1;
    }
    return k;
}

static size_t count_fields(const char *line)
{
    size_t n = 1;
    for (; *line; line++)
        n += *line == ',';
    return n;
}

/* Field i (0-based) of a CSV line, copied into out. */
static const char *field(const char *line, size_t i, char *out, size_t len)
{
    for (; i > 0 && line; i--) {
        line = strchr(line, ',');
        line = line ? line + 1 : NULL;
    }
    assert_non_null(line);
    size_t n = strcspn(line, ",");
    if (n >= len)
        n = len - 1;
    memcpy(out, line, n);
    out[n] = '\0';
    return out;
}

static void make_row(rtm_errlog_row_t *r, unsigned task, uint64_t job)
{
    char name[16];
    snprintf(name, sizeof(name), "t%u", task);
    rtm_errlog_row_init(r, name, job, "gpu0", (int64_t)job * 1000000, 5000000);
    rtm_model_pred_t p;
    memset(&p, 0, sizeof(p));
    p.kind = RTM_MODEL_PAPER;
    p.paper.total_ns = p.total_ns = (int64_t)(task * 1000000u + job);
    p.paper.kernel_ns = p.paper.total_ns;
    p.ext.status = RTM_E_MODEL;
    rtm_errlog_row_predicted(r, &p);
    r->measured_kernel_ns = r->measured_ns = 1000 + (int64_t)job;
    r->response_ns = 2000 + (int64_t)job;
    r->blocks_done = r->blocks_total = 10;
    rtm_errlog_row_reason(r, "test");
}

/* ---- tests -------------------------------------------------------------------------- */

static void test_row_format(void **state)
{
    (void)state;
    char path[256];
    tmp_path(path, sizeof(path), "format");
    rtm_errlog_slot_t *slots = slots_new(4);
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, path, slots, 4, 0), RTM_OK);

    rtm_errlog_row_t r;
    rtm_errlog_row_init(&r, "nav,cpa", 7, "gpu0", 1500000, 2500000);
    rtm_model_pred_t p;
    memset(&p, 0, sizeof(p));
    p.kind = RTM_MODEL_EXTENDED;
    p.ext = (rtm_model_time_t){100000, 2000000, 50000, 0, 2150000, RTM_OK, NULL};
    p.paper.total_ns = 202000000;
    p.total_ns = 2150000;
    rtm_errlog_row_predicted(&r, &p);
    r.measured_in_ns = 110000;
    r.measured_kernel_ns = 1900000;
    r.measured_out_ns = 40000;
    r.measured_ns = 2050000;
    r.response_ns = 3000000;
    r.preempted = 1;
    r.resumed = 1;
    r.blocks_done = r.blocks_total = 100;
    rtm_errlog_row_reason(&r, "earliest-finish");
    r.dispatch_ns = 120000;
    r.submit_ns = 30000;
    r.notice_ns = 800000;
    assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);

    /* never measured (e.g. skipped): empty times, met 0, no lateness */
    rtm_errlog_row_init(&r, "route", 8, "cpu", 2000000, 1000000);
    rtm_errlog_row_reason(&r, "a reason that is much longer than the forty-seven characters kept");
    assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);
    /* early: negative lateness, met 1 */
    rtm_errlog_row_init(&r, "img", 0, "cpu", 0, 1000000);
    r.measured_ns = r.measured_kernel_ns = 250000;
    r.response_ns = 400000;
    assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);

    char *text, **lines;
    assert_int_equal(read_lines(path, &text, &lines), 4);
    assert_string_equal(lines[0], rtm_errlog_header());
    assert_int_equal(count_fields(lines[0]), 28);
    assert_string_equal(lines[1],
                        "1.500000,nav_cpa,7,gpu0,extended,2.150000,202.000000,2.150000,"
                        "0.100000,2.000000,0.050000,0.110000,1.900000,0.040000,2.050000,"
                        "3.000000,0.048780,2.500000,0,0.500000,1,1,100,100,earliest-finish,"
                        "0.120000,0.030000,0.800000");
    assert_string_equal(lines[2], "2.000000,route,8,cpu,paper,,,,,,,,,,,,,1.000000,0,,0,0,0,0,"
                                  "a reason that is much longer than the forty-sev,,,");
    assert_string_equal(lines[3], "0.000000,img,0,cpu,paper,,,,,,,,0.250000,,0.250000,0.400000,"
                                  ",1.000000,1,-0.600000,0,0,0,0,,,,");
    for (int i = 1; i < 4; i++)
        assert_int_equal(count_fields(lines[i]), 28);
    free(lines);
    free(text);
    free(slots);
    unlink(path);
}

typedef struct {
    rtm_errlog_t *log;
    unsigned task;
    unsigned rows;
    unsigned ok, full;
} producer_t;

static void *producer(void *arg)
{
    producer_t *p = arg;
    rtm_errlog_row_t r;
    for (unsigned j = 0; j < p->rows; j++) {
        make_row(&r, p->task, j);
        const rtm_status_t st = rtm_errlog_push(p->log, &r);
        if (st == RTM_OK)
            p->ok++;
        else if (st == RTM_E_FULL)
            p->full++;
    }
    return NULL;
}

static void run_producers(rtm_errlog_t *log, producer_t *p, unsigned n, unsigned rows)
{
    pthread_t t[16];
    for (unsigned i = 0; i < n; i++) {
        p[i] = (producer_t){log, i, rows, 0, 0};
        assert_int_equal(pthread_create(&t[i], NULL, producer, &p[i]), 0);
    }
    for (unsigned i = 0; i < n; i++)
        pthread_join(t[i], NULL);
}

/* Checks every data line is well formed and (task, job) unique; returns rows. */
static size_t check_rows(char **lines, size_t n, unsigned tasks, unsigned rows, char *seen)
{
    char f[64];
    memset(seen, 0, (size_t)tasks * rows);
    for (size_t i = 1; i < n; i++) {
        assert_int_equal(count_fields(lines[i]), 28);
        unsigned task = 0, job = 0;
        assert_int_equal(sscanf(field(lines[i], 1, f, sizeof(f)), "t%u", &task), 1);
        job = (unsigned)strtoul(field(lines[i], 2, f, sizeof(f)), NULL, 10);
        assert_true(task < tasks && job < rows);
        assert_int_equal(seen[task * rows + job], 0);
        seen[task * rows + job] = 1;
        /* predicted = task * 1e6 + job ns, in ms with 6 decimals */
        char want[64];
        const unsigned long long ns = (unsigned long long)task * 1000000ull + job;
        snprintf(want, sizeof(want), "%llu.%06llu", ns / 1000000ull, ns % 1000000ull);
        assert_string_equal(field(lines[i], 5, f, sizeof(f)), want);
        assert_string_equal(field(lines[i], 24, f, sizeof(f)), "test");
    }
    return n - 1;
}

static void test_producers_all_rows(void **state)
{
    (void)state;
    enum { TASKS = 8, ROWS = 3000, CAP = 32768 };
    char path[256];
    tmp_path(path, sizeof(path), "all");
    rtm_errlog_slot_t *slots = slots_new(CAP);
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, path, slots, CAP, 2), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    producer_t p[TASKS];
    run_producers(&log, p, TASKS, ROWS);
    for (unsigned i = 0; i < TASKS; i++)
        assert_int_equal(p[i].ok, ROWS);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);
    rtm_errlog_stats_t st;
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.pushed, TASKS * ROWS);
    assert_int_equal(st.dropped, 0);
    assert_int_equal(st.written, TASKS * ROWS);
    assert_int_equal(st.lost, 0);
    assert_int_equal(st.write_errors, 0);
    assert_true(st.peak >= 1 && st.peak <= CAP);

    char *text, **lines;
    char *seen = malloc(TASKS * ROWS);
    const size_t n = read_lines(path, &text, &lines);
    assert_int_equal(n, 1 + TASKS * ROWS);
    assert_string_equal(lines[0], rtm_errlog_header());
    assert_int_equal(check_rows(lines, n, TASKS, ROWS, seen), TASKS * ROWS);
    free(seen);
    free(lines);
    free(text);
    free(slots);
    unlink(path);
}

static void test_producers_drops_counted(void **state)
{
    (void)state;
    enum { TASKS = 4, ROWS = 100, CAP = 64 };
    char path[256];
    tmp_path(path, sizeof(path), "drops");
    rtm_errlog_slot_t *slots = slots_new(CAP);
    static rtm_errlog_t log;

    /* no writer yet: exactly CAP rows fit, the rest are dropped and counted */
    assert_int_equal(rtm_errlog_init(&log, path, slots, CAP, 0), RTM_OK);
    producer_t p[TASKS];
    run_producers(&log, p, TASKS, ROWS);
    unsigned ok = 0, full = 0;
    for (unsigned i = 0; i < TASKS; i++) {
        ok += p[i].ok;
        full += p[i].full;
    }
    assert_int_equal(ok, CAP);
    assert_int_equal(full, TASKS * ROWS - CAP);
    rtm_errlog_stats_t st;
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.dropped, TASKS * ROWS - CAP);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK); /* drains on this thread */
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.written, CAP);

    char *text, **lines;
    char *seen = malloc(TASKS * ROWS);
    size_t n = read_lines(path, &text, &lines);
    assert_int_equal(check_rows(lines, n, TASKS, ROWS, seen), CAP);
    free(lines);
    free(text);

    /* with a writer racing the producers: every row is written or counted as dropped */
    assert_int_equal(rtm_errlog_init(&log, path, slots, CAP, 1), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    run_producers(&log, p, TASKS, 20 * ROWS);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.pushed + st.dropped, TASKS * 20 * ROWS);
    assert_int_equal(st.written, st.pushed);
    ok = 0;
    for (unsigned i = 0; i < TASKS; i++)
        ok += p[i].ok;
    assert_int_equal(ok, st.pushed);
    free(seen);
    seen = malloc(TASKS * 20 * ROWS);
    n = read_lines(path, &text, &lines);
    assert_int_equal(check_rows(lines, n, TASKS, 20 * ROWS, seen), st.written);
    free(seen);
    free(lines);
    free(text);
    free(slots);
    unlink(path);
}

static void wait_errors(rtm_errlog_t *log, uint64_t want)
{
    rtm_errlog_stats_t st;
    for (int i = 0; i < 2000; i++) {
        rtm_errlog_stats(log, &st);
        if (st.write_errors >= want)
            return;
        usleep(1000);
    }
    fail_msg("write errors never reached %llu", (unsigned long long)want);
}

static void test_disk_full(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK) != 0)
        skip();
    char errpath[256];
    tmp_path(errpath, sizeof(errpath), "stderr");
    fflush(stderr);
    const int saved = dup(2);
    FILE *ef = freopen(errpath, "w", stderr);
    assert_non_null(ef);

    rtm_errlog_slot_t *slots = slots_new(64);
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, "/dev/full", slots, 64, 1), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    rtm_errlog_row_t r;
    for (unsigned j = 0; j < 10; j++) {
        make_row(&r, 0, j);
        assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK); /* the job path never fails */
    }
    wait_errors(&log, 1);
    for (unsigned j = 10; j < 20; j++) {
        make_row(&r, 0, j);
        assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);
    }
    wait_errors(&log, 2);
    assert_int_equal(rtm_errlog_stop(&log), RTM_E_IO);
    rtm_errlog_stats_t st;
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.pushed, 20);
    assert_int_equal(st.written, 0);
    assert_int_equal(st.lost, 20);
    assert_true(st.write_errors >= 2);
    assert_int_equal(st.last_errno, 28 /* ENOSPC */);

    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char *text, **lines;
    const size_t n = read_lines(errpath, &text, &lines);
    assert_int_equal(n, 1); /* reported once */
    assert_non_null(strstr(lines[0], "model-error log /dev/full: write failed"));
    free(lines);
    free(text);
    free(slots);
    unlink(errpath);
}

/* The disk fills (file-size limit 0: write fails with EFBIG), then recovers: the rows of
 * the failed write are lost and counted, the error is reported once, and the later rows
 * are written under a header. */
static void test_disk_recovers(void **state)
{
    (void)state;
    struct rlimit old, none = {0, 0};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    none.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    char path[256], errpath[256];
    tmp_path(path, sizeof(path), "recover");
    tmp_path(errpath, sizeof(errpath), "recover_stderr");
    fflush(stderr);
    const int saved = dup(2);
    assert_non_null(freopen(errpath, "w", stderr)); /* opened before the limit */

    rtm_errlog_slot_t *slots = slots_new(64);
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, path, slots, 64, 1), RTM_OK);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &none), 0);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    rtm_errlog_row_t r;
    for (unsigned j = 0; j < 10; j++) {
        make_row(&r, 0, j);
        assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);
    }
    wait_errors(&log, 1);
    usleep(20000); /* let the writer finish with that batch */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    for (unsigned j = 10; j < 20; j++) {
        make_row(&r, 0, j);
        assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);
    }
    assert_int_equal(rtm_errlog_stop(&log), RTM_E_IO);
    rtm_errlog_stats_t st;
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.pushed, 20);
    assert_int_equal(st.written + st.lost, 20);
    assert_true(st.lost >= 10);
    assert_true(st.written >= 1);

    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    signal(SIGXFSZ, SIG_DFL);
    char *text, **lines;
    size_t n = read_lines(errpath, &text, &lines);
    assert_int_equal(n, 1);
    assert_non_null(strstr(lines[0], "write failed: File too large"));
    free(lines);
    free(text);
    n = read_lines(path, &text, &lines);
    assert_int_equal(n, 1 + st.written);
    assert_string_equal(lines[0], rtm_errlog_header());
    char *seen = malloc(20);
    assert_int_equal(check_rows(lines, n, 1, 20, seen), st.written);
    free(seen);
    free(lines);
    free(text);
    free(slots);
    unlink(path);
    unlink(errpath);
}

static void test_flush_on_stop(void **state)
{
    (void)state;
    char path[256];
    tmp_path(path, sizeof(path), "flush");
    rtm_errlog_slot_t *slots = slots_new(256);
    static rtm_errlog_t log;
    /* a 60 s period: only stop can have written the rows */
    assert_int_equal(rtm_errlog_init(&log, path, slots, 256, 60000), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    usleep(20000); /* let the writer pass its first drain and go to sleep */
    rtm_errlog_row_t r;
    for (unsigned j = 0; j < 200; j++) {
        make_row(&r, 1, j);
        assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 5); /* woken, not timed out */
    rtm_errlog_stats_t st;
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.written, 200);

    /* after stop: refused, counted, and stop again is harmless */
    assert_int_equal(rtm_errlog_push(&log, &r), RTM_E_STATE);
    rtm_errlog_stats(&log, &st);
    assert_int_equal(st.dropped, 1);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);

    char *text, **lines;
    char *seen = malloc(2 * 200);
    const size_t n = read_lines(path, &text, &lines);
    assert_int_equal(check_rows(lines, n, 2, 200, seen), 200);
    free(seen);
    free(lines);
    free(text);
    free(slots);
    unlink(path);
}

/* A restart (systemd's Restart=on-failure after a crash) must not overwrite the log of
 * the run before it: found running the .deb under systemd, where the restarted manager
 * truncated 13 minutes of rows. The previous file is kept as PATH.1 (PATH.1 -> PATH.2 ...,
 * RTM_ERRLOG_KEEP files at most), the new run starts PATH with its header. */
static void write_rows(const char *path, unsigned task, unsigned rows)
{
    rtm_errlog_slot_t *slots = slots_new(64);
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, path, slots, 64, 1), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    rtm_errlog_row_t r;
    for (unsigned j = 0; j < rows; j++) {
        make_row(&r, task, j);
        assert_int_equal(rtm_errlog_push(&log, &r), RTM_OK);
    }
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);
    free(slots);
}

static size_t count_lines(const char *path)
{
    char *text, **lines;
    const size_t n = read_lines(path, &text, &lines);
    free(lines);
    free(text);
    return n;
}

static void test_restart_keeps_previous(void **state)
{
    (void)state;
    char path[256], old[300];
    tmp_path(path, sizeof(path), "restart");
    for (unsigned i = 1; i <= RTM_ERRLOG_KEEP + 1; i++) {
        snprintf(old, sizeof(old), "%s.%u", path, i);
        unlink(old);
    }
    write_rows(path, 1, 30); /* first run */
    write_rows(path, 2, 20); /* restarted */
    assert_int_equal(count_lines(path), 21);
    snprintf(old, sizeof(old), "%s.1", path);
    assert_int_equal(count_lines(old), 31);
    /* more restarts than kept files: the oldest goes, the count stays bounded */
    for (unsigned i = 0; i < RTM_ERRLOG_KEEP + 1; i++)
        write_rows(path, 3, 5);
    for (unsigned i = 1; i <= RTM_ERRLOG_KEEP; i++) {
        snprintf(old, sizeof(old), "%s.%u", path, i);
        assert_int_equal(access(old, F_OK), 0);
    }
    snprintf(old, sizeof(old), "%s.%u", path, RTM_ERRLOG_KEEP + 1);
    assert_int_not_equal(access(old, F_OK), 0);
    /* an empty file (a run that wrote nothing) is reused, not rotated */
    for (unsigned i = 0; i <= RTM_ERRLOG_KEEP + 1; i++) {
        snprintf(old, sizeof(old), i ? "%s.%u" : "%s", path, i);
        unlink(old);
    }
    FILE *f = fopen(path, "w");
    fclose(f);
    write_rows(path, 4, 3);
    snprintf(old, sizeof(old), "%s.1", path);
    assert_int_not_equal(access(old, F_OK), 0);
    assert_int_equal(count_lines(path), 4);
    unlink(path);
}

static void test_init_errors(void **state)
{
    (void)state;
    rtm_errlog_slot_t slots[4];
    static rtm_errlog_t log;
    char path[256];
    tmp_path(path, sizeof(path), "init");
    assert_int_equal(rtm_errlog_init(&log, path, slots, 3, 0), RTM_E_ARG);
    assert_int_equal(rtm_errlog_init(&log, path, NULL, 4, 0), RTM_E_ARG);
    fflush(stderr);
    assert_int_equal(rtm_errlog_init(&log, "/nonexistent-dir/x.csv", slots, 4, 0), RTM_E_IO);
    rtm_errlog_row_t r;
    make_row(&r, 0, 0);
    assert_int_equal(rtm_errlog_push(&log, &r), RTM_E_STATE);
    assert_int_equal(rtm_errlog_start(&log), RTM_E_STATE);
    assert_int_equal(rtm_errlog_stop(&log), RTM_E_STATE);
    /* start twice */
    assert_int_equal(rtm_errlog_init(&log, path, slots, 4, 0), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_E_STATE);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);
    unlink(path);
}

static void test_push_no_alloc(void **state)
{
    (void)state;
    char path[256];
    tmp_path(path, sizeof(path), "alloc");
    rtm_errlog_slot_t *slots = slots_new(1024);
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, path, slots, 1024, 1), RTM_OK);
    assert_int_equal(rtm_errlog_start(&log), RTM_OK);
    /* the counter itself works */
    counting = 1;
    char *volatile probe = malloc(16);
    counting = 0;
    assert_non_null(probe);
    probe[0] = 1;
    free(probe);
    assert_int_equal(allocs, 1);
    allocs = 0;
    rtm_errlog_row_t r;
    counting = 1;
    for (unsigned j = 0; j < 5000; j++) {
        make_row(&r, 0, j); /* row helpers */
        rtm_errlog_push(&log, &r);
    }
    counting = 0;
    assert_int_equal(allocs, 0);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);
    free(slots);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_format),
        cmocka_unit_test(test_producers_all_rows),
        cmocka_unit_test(test_producers_drops_counted),
        cmocka_unit_test(test_disk_full),
        cmocka_unit_test(test_disk_recovers),
        cmocka_unit_test(test_flush_on_stop),
        cmocka_unit_test(test_restart_keeps_previous),
        cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_push_no_alloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
