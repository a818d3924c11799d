/* test_report.c — `rtmgr report`: statistics of a synthetic log with known errors,
 * malformed logs rejected with their line number, the command's exit codes, plots with
 * and without gnuplot, and a log written by errlog read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/errlog.h"
#include "rtmgr/model.h"
#include "rtmgr/report.h"

#define assert_near(a, b) assert_true(fabs_((a) - (b)) < 1e-9)
static double fabs_(double x) { return x < 0 ? -x : x; }

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/rtm_test_report_%ld", (long)getpid());
    mkdir(dir, 0755);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_in(const char *name)
{
    static char buf[16][512]; /* a few paths live at once */
    static int k;
    k = (k + 1) % 16;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
    return buf[k];
}

/* One row in the errlog format (28 columns); negative times are written empty. */
static void row(FILE *f, const char *task, unsigned job, const char *dev, double pred,
                double paper, double meas, int met)
{
    char p[32] = "", pp[32] = "", m[32] = "";
    if (pred >= 0)
        snprintf(p, sizeof(p), "%.6f", pred);
    if (paper >= 0)
        snprintf(pp, sizeof(pp), "%.6f", paper);
    if (meas >= 0)
        snprintf(m, sizeof(m), "%.6f", meas);
    fprintf(f, "%u.000000,%s,%u,%s,extended,%s,%s,%s,,,,,%s,,%s,,,%s,%d,,0,0,1,1,test,,,\n", job,
            task, job, dev, p, pp, p, m, m, "200.000000", met);
}

static const char *write_known(void)
{
    const char *path = path_in("known.csv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", rtm_errlog_header());
    /* a on gpu0: APE 10, 20, 30, 40 (over-prediction); the last one missed */
    for (unsigned k = 1; k <= 4; k++)
        row(f, "a", k, "gpu0", 100.0 + 10.0 * k, 200.0, 100.0, k == 4 ? 0 : 1);
    /* ... and one preempted job (counted, missed, not scored) */
    fprintf(f, "9.000000,a,9,gpu0,extended,100.000000,200.000000,100.000000,,,,,,,"
               "300.000000,,,200.000000,0,,1,1,10,10,preempted,0.1,0.1,0.1\n");
    /* b on gpu0: APE 1..100 (under-prediction) */
    for (unsigned k = 1; k <= 100; k++)
        row(f, "b", k, "gpu0", 100.0 - k, -1, 100.0, 1);
    /* a on cpu: one never measured and missed, one without a prediction */
    row(f, "a", 10, "cpu", 5.0, -1, -1, 0);
    row(f, "a", 11, "cpu", -1, -1, 5.0, 1);
    /* c on cpu: measured = 2 * predicted every time (EWMA) */
    for (unsigned k = 0; k < 3; k++)
        row(f, "c", k, "cpu", 10.0, -1, 20.0, 1);
    fclose(f);
    return path;
}

static const rtm_report_group_t *group(const rtm_report_t *r, const char *task, const char *dev)
{
    for (size_t i = 0; i < r->n_groups; i++)
        if (strcmp(r->group[i].task, task) == 0 && strcmp(r->group[i].device, dev) == 0)
            return &r->group[i];
    fail_msg("no group %s/%s", task, dev);
    return NULL;
}

/* What rtm_report_print (or, json, rtm_report_print_json) prints of r; the caller frees
 * it. */
static char *printed(const rtm_report_t *r, bool json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    if (json)
        rtm_report_print_json(r, out);
    else
        rtm_report_print(r, out);
    fclose(out);
    return text;
}

static void test_known_errors(void **state)
{
    (void)state;
    rtm_report_t r;
    rtm_diag_t diag;
    assert_int_equal(rtm_report_load(write_known(), &r, &diag), RTM_OK);
    assert_int_equal(r.n_rows, 110);
    assert_int_equal(r.n_groups, 6);
    /* order: per device (first seen), its tasks, then "*" */
    const char *order[6][2] = {{"a", "gpu0"}, {"b", "gpu0"}, {"*", "gpu0"},
                               {"a", "cpu"},  {"c", "cpu"},  {"*", "cpu"}};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(r.group[i].task, order[i][0]);
        assert_string_equal(r.group[i].device, order[i][1]);
    }

    const rtm_report_group_t *g = group(&r, "a", "gpu0");
    assert_int_equal(g->jobs, 5);
    assert_int_equal(g->scored, 4);
    assert_int_equal(g->misses, 2);
    assert_int_equal(g->preempted, 1);
    assert_near(g->mape, 25.0);
    assert_near(g->median_ape, 25.0); /* (20 + 30) / 2 */
    assert_near(g->p99_ape, 40.0);    /* rank ceil(3.96) = 4 */
    assert_near(g->max_ape, 40.0);
    assert_near(g->bias, 25.0);
    assert_int_equal(g->n_paper, 4);
    assert_near(g->mape_paper, 100.0); /* 200 vs 100 */
    assert_near(g->mape_ext, 25.0);
    assert_string_equal(g->model, "extended");

    g = group(&r, "b", "gpu0");
    assert_int_equal(g->jobs, 100);
    assert_int_equal(g->misses, 0);
    assert_near(g->mape, 50.5);
    assert_near(g->median_ape, 50.5); /* (50 + 51) / 2 */
    assert_near(g->p99_ape, 99.0);    /* rank 99 */
    assert_near(g->bias, -50.5);
    assert_int_equal(g->n_paper, 0);

    g = group(&r, "*", "gpu0");
    assert_true(g->all_tasks);
    assert_int_equal(g->jobs, 105);
    assert_int_equal(g->scored, 104);
    assert_int_equal(g->misses, 2);
    assert_near(g->mape, (5050.0 + 100.0) / 104.0);
    assert_near(g->median_ape, 48.5); /* 52nd and 53rd of {1..100} + {10,20,30,40} */
    assert_near(g->p99_ape, 99.0);    /* rank ceil(102.96) = 103 */

    g = group(&r, "a", "cpu");
    assert_int_equal(g->jobs, 2);
    assert_int_equal(g->scored, 0);
    assert_int_equal(g->misses, 1);

    g = group(&r, "c", "cpu");
    assert_near(g->mape, 50.0);
    /* corrected: f = 1, 1.2, 1.36 -> APE 50, 40, 32 */
    assert_near(g->mape_ewma, (50.0 + 40.0 + 32.0) / 3.0);
    assert_near(g->ewma_factor, 1.488);

    g = group(&r, "*", "cpu");
    assert_int_equal(g->jobs, 5);
    assert_int_equal(g->scored, 3);
    assert_int_equal(g->misses, 1);

    /* the printers run and say what they should */
    char *text = printed(&r, true);
    size_t lines = 0;
    for (size_t i = 0; text[i]; i++)
        lines += text[i] == '\n';
    assert_int_equal(lines, 6);
    assert_non_null(strstr(text, "{\"task\":\"a\",\"device\":\"gpu0\",\"model\":\"extended\","
                                 "\"all_tasks\":false,\"jobs\":5,\"scored\":4,\"misses\":2,"
                                 "\"preempted\":1,\"mape\":25,\"median_ape\":25,\"p99_ape\":40"));
    assert_non_null(strstr(text, "\"mape_paper\":null"));
    free(text);
    text = printed(&r, false);
    assert_non_null(strstr(text, "MAPE"));
    free(text);
    rtm_report_free(&r);
}

/* One job the machine stalled (measured 1000x its prediction, as a 0.04 ms CPA job
 * measured at 231 ms on a shared VM) moves the online correction by the executive's
 * bounded step (measured/predicted clamped to 10), not to 200x: found in a HIL report
 * whose EWMA column said 797 % against a raw MAPE of 52 %. */
static void test_ewma_outlier(void **state)
{
    (void)state;
    const char *path = path_in("outlier.csv");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", rtm_errlog_header());
    const double meas[4] = {1.0, 1000.0, 1.0, 1.0};
    for (unsigned k = 0; k < 4; k++)
        row(f, "d", k, "cpu", 1.0, -1, meas[k], 1);
    fclose(f);
    rtm_report_t r;
    rtm_diag_t diag;
    assert_int_equal(rtm_report_load(path, &r, &diag), RTM_OK);
    const rtm_report_group_t *g = group(&r, "d", "cpu");
    /* f = 1, 1, 1 + 0.2 (10 - 1) = 2.8, 0.8 * 2.8 + 0.2 = 2.44 -> APE 0, 99.9, 180, 144 */
    assert_near(g->mape_ewma, (0.0 + 99.9 + 180.0 + 144.0) / 4.0);
    assert_near(g->ewma_factor, 0.8 * 2.44 + 0.2);
    assert_near(rtm_model_correct(1.0, 0.2, 1000.0, 1.0), 2.8);
    assert_near(rtm_model_correct(1.0, 0.2, 1.0, 1000.0), 0.8 + 0.2 * 0.1);
    assert_near(rtm_model_correct(1.5, 0.2, 3.0, 0.0), 1.5); /* no prediction: unchanged */
    rtm_report_free(&r);
}

/* Parses `text`; returns the status, with the diagnostic line in *line. */
static rtm_status_t parse(const char *text, int *line, char *why, size_t len)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    rtm_report_t r;
    rtm_diag_t diag;
    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_report_read(f, "mem.csv", &r, &diag);
    fclose(f);
    if (st == RTM_OK)
        rtm_report_free(&r);
    *line = diag.line;
    snprintf(why, len, "%s", diag.text);
    return st;
}

static void test_malformed(void **state)
{
    (void)state;
    const char *h = "task,job,device,predicted_ms,measured_ms,deadline_ms,met\n";
    char buf[1024], why[512];
    int line;
    const struct {
        const char *body;
        int line;
        const char *why;
    } bad[] = {
        {"a,1,gpu0,1,1,2,1\na,2,gpu0,1,1,2\n", 3, "6 fields, the header has 7"},
        {"a,1,gpu0,1,1,2,1\na,2,gpu0,1,1,2,1,9\n", 3, "more than 7 fields"},
        {"a,1,gpu0,1,abc,2,1\n", 2, "column measured_ms: 'abc' is not a number"},
        {"a,1,gpu0,1,1,2,2\n", 2, "column met: must be 0 or 1"},
        {"a,1.5,gpu0,1,1,2,1\n", 2, "column job"},
        {"a,1,gpu0,1,1,,1\n", 2, "column deadline_ms"},
        {",1,gpu0,1,1,2,1\n", 2, "task and device"},
        {"a,1,gpu0,1,1,2,1\n\n", 3, "1 fields"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(buf, sizeof(buf), "%s%s", h, bad[i].body);
        assert_int_equal(parse(buf, &line, why, sizeof(why)), RTM_E_PARSE);
        if (line != bad[i].line || !strstr(why, bad[i].why))
            fail_msg("case %zu: line %d '%s'", i, line, why);
    }
    assert_int_equal(parse("task,job,device,predicted_ms,measured_ms,deadline_ms\n", &line,
                           why, sizeof(why)),
                     RTM_E_PARSE);
    assert_int_equal(line, 1);
    assert_non_null(strstr(why, "'met'"));
    assert_int_equal(parse("", &line, why, sizeof(why)), RTM_E_PARSE);
    assert_int_equal(line, 1);
    /* a header alone is a valid empty log; CRLF and extra columns are accepted */
    assert_int_equal(parse(h, &line, why, sizeof(why)), RTM_OK);
    assert_int_equal(parse("x,task,job,device,predicted_ms,measured_ms,deadline_ms,met\r\n"
                           "q,a,1,gpu0,,1,2,1\r\n",
                           &line, why, sizeof(why)),
                     RTM_OK);

    rtm_report_t r;
    rtm_diag_t diag;
    assert_int_equal(rtm_report_load(path_in("missing.csv"), &r, &diag), RTM_E_IO);
}

/* Runs a shell command; returns its exit code. */
static int run(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[65536];
    const size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static bool is_png(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char m[8] = {0};
    if (!f)
        return false;
    const size_t n = fread(m, 1, 8, f);
    fclose(f);
    return n == 8 && memcmp(m, "\x89PNG\r\n\x1a\n", 8) == 0;
}

static void test_command(void **state)
{
    (void)state;
    const char *known = write_known();
    const char *err = path_in("stderr.txt"), *out = path_in("stdout.txt");

    assert_int_equal(run("%s report >/dev/null 2>&1", RTM_TEST_RTMGR), 1);
    assert_int_equal(run("%s report --bogus %s >/dev/null 2>&1", RTM_TEST_RTMGR, known), 1);
    /* the help is printed as text, not as a format: "absolute % error", no "%%" */
    assert_int_equal(run("%s report --help >%s 2>&1", RTM_TEST_RTMGR, out), 0);
    assert_non_null(strstr(slurp(out), "absolute % error"));
    assert_null(strstr(slurp(out), "%%"));
    assert_int_equal(run("%s report %s/none.csv >/dev/null 2>%s", RTM_TEST_RTMGR, dir, err), 3);
    assert_non_null(strstr(slurp(err), "none.csv: error: cannot open"));

    const char *bad = path_in("bad.csv");
    FILE *f = fopen(bad, "w");
    fprintf(f, "%s\n", rtm_errlog_header());
    row(f, "a", 1, "gpu0", 1, 1, 1, 1);
    fprintf(f, "1.0,a,2,gpu0,extended,zz\n");
    fclose(f);
    assert_int_equal(run("%s report %s >/dev/null 2>%s", RTM_TEST_RTMGR, bad, err), 3);
    assert_non_null(strstr(slurp(err), "bad.csv:3: error:"));

    /* JSON lines, no plots */
    assert_int_equal(run("%s report --json --no-plot %s >%s 2>%s", RTM_TEST_RTMGR, known, out,
                         err),
                     0);
    const char *js = slurp(out);
    size_t lines = 0;
    for (const char *p = js; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 6);
    assert_int_equal(js[0], '{');

    /* without gnuplot on PATH: the table, and a note */
    assert_int_equal(run("PATH=/nonexistent %s report %s >%s 2>%s", RTM_TEST_RTMGR, known, out,
                         err),
                     0);
    assert_non_null(strstr(slurp(err), "gnuplot is not on PATH"));
    assert_non_null(strstr(slurp(out), "MAPE"));

    /* with gnuplot: two PNGs per device in --out */
    if (run("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("gnuplot not installed: plot check skipped\n");
        return;
    }
    const char *plots = path_in("plots");
    assert_int_equal(run("%s report --out %s %s >/dev/null 2>%s", RTM_TEST_RTMGR, plots, known,
                         err),
                     0);
    const char *png[] = {"known.gpu0.scatter.png", "known.gpu0.error.png",
                         "known.cpu.scatter.png", "known.cpu.error.png"};
    for (int i = 0; i < 4; i++) {
        char p[600];
        snprintf(p, sizeof(p), "%s/%s", plots, png[i]);
        if (!is_png(p))
            fail_msg("%s missing or not a PNG; stderr: %s", p, slurp(err));
    }
}

/* Where the response went: each part's p50 and p99 over the rows that have every part
 * (completed, never preempted); the others are left out; a log of the format before
 * these columns reads with none. Rows written by errlog, read back. */
static void test_parts(void **state)
{
    (void)state;
    const char *path = path_in("parts.csv");
    static rtm_errlog_slot_t slots[256];
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, path, slots, 256, 0), RTM_OK);
    for (unsigned j = 0; j < 100; j++) { /* gpu0: dispatch j+1 us, submit 20, meas 50, notice 30 */
        rtm_errlog_row_t w;
        rtm_errlog_row_init(&w, "hard", j, "gpu0", j * 1000000, 3000000);
        w.dispatch_ns = (int64_t)(j + 1) * 1000;
        w.submit_ns = 20000;
        w.measured_ns = 50000;
        w.notice_ns = 30000;
        w.response_ns = w.dispatch_ns + w.submit_ns + w.measured_ns + w.notice_ns;
        assert_int_equal(rtm_errlog_push(&log, &w), RTM_OK);
    }
    rtm_errlog_row_t w; /* preempted: left out, whatever its parts */
    rtm_errlog_row_init(&w, "hard", 100, "gpu0", 0, 3000000);
    w.dispatch_ns = w.submit_ns = w.notice_ns = 1000000000;
    w.measured_ns = w.response_ns = 1000000000;
    w.preempted = 1;
    assert_int_equal(rtm_errlog_push(&log, &w), RTM_OK);
    rtm_errlog_row_init(&w, "hard", 101, "gpu0", 0, 3000000); /* never completed */
    w.dispatch_ns = 5000;
    assert_int_equal(rtm_errlog_push(&log, &w), RTM_OK);
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);

    rtm_report_t r;
    rtm_diag_t diag;
    assert_int_equal(rtm_report_load(path, &r, &diag), RTM_OK);
    const rtm_report_group_t *g = group(&r, "hard", "gpu0");
    assert_int_equal(g->jobs, 102);
    assert_int_equal(g->n_parts, 100);
    assert_string_equal(rtm_report_part_name[1], "dispatch");
    assert_near(g->part_p50[1], 0.050);  /* nearest rank: the 50th of 1..100 us */
    assert_near(g->part_p99[1], 0.099);
    assert_near(g->part_p50[2], 0.020);
    assert_near(g->part_p50[3], 0.050);
    assert_near(g->part_p99[4], 0.030);
    assert_near(g->part_p50[0], 0.150);  /* response: 101..200 us */
    assert_near(g->part_p99[0], 0.199);
    char *text = printed(&r, false), *js = printed(&r, true);
    rtm_report_free(&r);
    assert_non_null(strstr(text, "where the response went"));
    assert_non_null(strstr(text, "    0.050 /   0.099")); /* dispatch p50 / p99 */
    assert_non_null(strstr(js, "\"parts_jobs\":100,\"response_p50_ms\":0.15,"
                               "\"response_p99_ms\":0.199,\"dispatch_p50_ms\":0.05"));
    free(text);
    free(js);

    /* the format before the parts columns: read, no parts */
    const char *old = path_in("old.csv");
    FILE *f = fopen(old, "w");
    fprintf(f, "task,job,device,predicted_ms,measured_ms,deadline_ms,met,response_ms\n"
               "a,0,gpu0,1.0,1.0,10.0,1,2.0\n");
    fclose(f);
    assert_int_equal(rtm_report_load(old, &r, &diag), RTM_OK);
    assert_int_equal(group(&r, "a", "gpu0")->n_parts, 0);
    rtm_report_free(&r);
}

static void test_errlog_roundtrip(void **state)
{
    (void)state;
    const char *path = path_in("roundtrip.csv");
    static rtm_errlog_slot_t slots[16];
    static rtm_errlog_t log;
    assert_int_equal(rtm_errlog_init(&log, path, slots, 16, 0), RTM_OK);
    for (unsigned j = 0; j < 10; j++) {
        rtm_errlog_row_t w;
        rtm_errlog_row_init(&w, "nav", j, "gpu0", j * 1000000, 3000000);
        rtm_model_pred_t p;
        memset(&p, 0, sizeof(p));
        p.kind = RTM_MODEL_EXTENDED;
        p.ext.total_ns = 1100000; /* 1.1 ms vs 1.0 ms measured: 10 % */
        p.paper.total_ns = 2000000;
        rtm_errlog_row_predicted(&w, &p);
        w.measured_ns = 1000000;
        w.response_ns = j < 8 ? 2000000 : 4000000; /* two misses */
        rtm_errlog_row_reason(&w, "earliest-finish");
        assert_int_equal(rtm_errlog_push(&log, &w), RTM_OK);
    }
    assert_int_equal(rtm_errlog_stop(&log), RTM_OK);
    rtm_report_t r;
    rtm_diag_t diag;
    assert_int_equal(rtm_report_load(path, &r, &diag), RTM_OK);
    const rtm_report_group_t *g = group(&r, "nav", "gpu0");
    assert_int_equal(g->jobs, 10);
    assert_int_equal(g->misses, 2);
    assert_near(g->mape, 10.0);
    assert_near(g->mape_paper, 100.0);
    assert_near(g->mape_ext, 10.0);
    assert_string_equal(g->model, "extended");
    rtm_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_errors),
        cmocka_unit_test(test_ewma_outlier),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_errlog_roundtrip),
        cmocka_unit_test(test_parts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
