/* test_bench.c — `rtmgr bench kernels --quick --device 0` on PoCL: exits 0, covers every
 * kernel of the catalogue with results checked against the CPU twin, reports the copy
 * bandwidth, uses the program binary cache on a second run; a kernel whose OpenCL
 * result differs from its twin, or that does not build, makes it exit 3; bad arguments
 * exit 1. And `rtmgr bench pool --quick --json`: one line per quick shape with the pool's
 * and the caller-alone figures, a summary line last; its bad arguments exit 1. And
 * `rtmgr bench preempt --part poll` applies --cl-opts to the builds it measures; `--part
 * response` runs sections 4 and 4b; `--json-out FILE` keeps the tables. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/kernel.h"

static char cache[64];
static char out[1 << 20];

static int run(const char *cmd)
{
    char full[2048];
    snprintf(full, sizeof(full), "RTM_CACHE_DIR=%s %s 2>&1", cache, cmd);
    FILE *p = popen(full, "r");
    assert_non_null(p);
    const size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[1024];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static int setup(void **state)
{
    (void)state;
    snprintf(cache, sizeof(cache), "/tmp/rtm-test-bench-XXXXXX");
    return mkdtemp(cache) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rm_tree(cache);
    return 0;
}

static void test_quick_table(void **state)
{
    (void)state;
    const int rc = run(RTM_TEST_RTMGR " bench kernels --quick --device 0");
    printf("%s", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "memory bandwidth (copy kernel)"));
    for (uint32_t i = 0; i < rtm_kernel_count(); i++)
        if (!strstr(out, rtm_kernel_at(i)->name))
            fail_msg("kernel %s missing from the bench table", rtm_kernel_at(i)->name);
}

/* Every kernel has a "kernel" line with result ok; the second run loads from the cache. */
static void test_quick_json_and_cache(void **state)
{
    (void)state;
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --quick --device 0 --json --reps 2"), 0);
    uint32_t lines = 0;
    for (char *line = out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, "{\"bench\":\"kernels\"", 18) != 0)
            fail_msg("not a JSON measurement: %.120s", line);
        lines++;
    }
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        char key[128];
        snprintf(key, sizeof(key), "\"type\":\"kernel\",\"device\":0");
        char *p = out;
        int found = 0;
        while ((p = strstr(p, key))) {
            char *eol = strchr(p, '\n');
            char name[96];
            snprintf(name, sizeof(name), "\"kernel\":\"%s\"", rtm_kernel_at(i)->name);
            char *k = strstr(p, name);
            if (k && (!eol || k < eol)) {
                char *ok = strstr(p, "\"result\":\"ok\"");
                assert_true(ok && (!eol || ok < eol));
                char *cached = strstr(p, "\"from_cache\":true");
                assert_true(cached && (!eol || cached < eol));
                found = 1;
            }
            p += strlen(key);
        }
        if (!found)
            fail_msg("no measurement of kernel %s", rtm_kernel_at(i)->name);
    }
    assert_true(lines >= rtm_kernel_count() + 1);
}

static void copy_file(const char *from, const char *to, const char *find, const char *repl)
{
    static char text[1 << 16];
    FILE *in = fopen(from, "rb");
    assert_non_null(in);
    const size_t n = fread(text, 1, sizeof(text) - 1, in);
    text[n] = '\0';
    fclose(in);
    FILE *o = fopen(to, "wb");
    assert_non_null(o);
    char *hit = find ? strstr(text, find) : NULL;
    if (hit) {
        fwrite(text, 1, (size_t)(hit - text), o);
        fputs(repl, o);
        fputs(hit + strlen(find), o);
    } else {
        fputs(text, o);
    }
    fclose(o);
}

static void kernel_dir_with(const char *dir, const char *find, const char *repl)
{
    const char *files[] = {"rtm_block.h", "rtm_vec.h", "copy.cl", "matrix_add.cl"};
    for (size_t i = 0; i < 4; i++) {
        char from[1024], to[1024];
        snprintf(from, sizeof(from), "%s/kernels/%s", RTM_TEST_SOURCE_DIR, files[i]);
        snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
        copy_file(from, to, i == 3 ? find : NULL, repl);
    }
}

static void test_wrong_result_exits_3(void **state)
{
    (void)state;
    char dir[] = "/tmp/rtm-test-bench-k-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "RTM_KERNEL_DIR=%s " RTM_TEST_RTMGR " bench kernels --quick --device 0 "
             "--kernel matrix_add --reps 1 --no-bandwidth", dir);
    kernel_dir_with(dir, "] + b[base", "] - b[base");
    assert_int_equal(run(cmd), 3);
    printf("%s", out);
    assert_non_null(strstr(out, "differ from the CPU twin"));
    assert_non_null(strstr(out, "mismatch"));

    kernel_dir_with(dir, "] + b[base", "] + ;b[base");
    assert_int_equal(run(cmd), 3);
    assert_non_null(strstr(out, "build log of kernel 'matrix_add'"));
    assert_non_null(strstr(out, "failed"));
    rm_tree(dir);
}

static void test_usage_errors(void **state)
{
    (void)state;
    assert_int_equal(run(RTM_TEST_RTMGR " bench"), 1);
    assert_int_equal(run(RTM_TEST_RTMGR " bench nosuch"), 1);
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --device 7"), 1);
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --kernel nosuch"), 1);
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --frobnicate"), 1);
    assert_int_equal(run(RTM_TEST_RTMGR " bench --help"), 0);
    assert_non_null(strstr(out, "kernels [--quick]"));
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --help"), 0);
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --board /nonexistent.yaml"), 2);
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --quick --device 0 --kernel cpa_tcpa "
                         "--no-bandwidth --reps 1 --board " RTM_TEST_SOURCE_DIR
                         "/board/pocl-cpu.yaml"), 0);
    assert_non_null(strstr(out, "CPU twin on 2 pool threads"));
}

/* --sweep (short grid with --quick): the grid, the items line and the best point, whose
 * row of the table is checked against the twin; --board tuning per device. */
static void test_sweep_and_board_tuning(void **state)
{
    (void)state;
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --quick --device 0 --sweep --reps 1 "
                                        "--kernel threshold,matrix_add --no-bandwidth"), 0);
    printf("%s", out);
    assert_non_null(strstr(out, "sweep threshold width=320,height=240"));
    assert_non_null(strstr(out, "sweep matrix_add n=256"));
    assert_non_null(strstr(out, "    items at wg "));
    assert_non_null(strstr(out, "    best: wg "));
    assert_null(strstr(out, "convolve"));
    /* the best point's wg/vec/items is the row's tuning */
    const char *best = strstr(out, "sweep threshold");
    unsigned wg = 0, vec = 0, items = 0;
    best = best ? strstr(best, "best: wg ") : NULL;
    assert_non_null(best);
    if (sscanf(best, "best: wg %u vec %u items %u", &wg, &vec, &items) == 3) {
        char col[64];
        snprintf(col, sizeof(col), " %u/%u/%u ", wg, vec, items);
        assert_non_null(strstr(out, col));
    }
    char *row = strstr(out, "  threshold       small");
    assert_non_null(row);
    assert_non_null(strstr(row, " ok "));

    /* matrix_add runs at the profile's tuning for the PoCL device (its `devices:` entry,
     * read from the file here) when the profile's device matches this machine's. */
    unsigned pwg = 0, pvec = 0;
    FILE *pf = fopen(RTM_TEST_SOURCE_DIR "/board/pocl-cpu.yaml", "r");
    assert_non_null(pf);
    char line[512];
    bool in_devs = false;
    while (fgets(line, sizeof(line), pf) && !pwg) {
        in_devs = in_devs || strncmp(line, "devices:", 8) == 0;
        const char *m = in_devs ? strstr(line, "matrix_add: {wg: ") : NULL;
        if (m && sscanf(m, "matrix_add: {wg: %u, vec: %u", &pwg, &pvec) != 2)
            pwg = 0;
    }
    fclose(pf);
    assert_true(pwg > 0 && pvec > 0);
    assert_int_equal(run(RTM_TEST_RTMGR " bench kernels --quick --device 0 --kernel matrix_add "
                                        "--no-bandwidth --reps 1 --board " RTM_TEST_SOURCE_DIR
                                        "/board/pocl-cpu.yaml"), 0);
    printf("%s", out);
    char col[32];
    snprintf(col, sizeof(col), " %u/%u ", pwg, pvec);
    if (strstr(out, "tuning: the board profile's"))
        assert_non_null(strstr(out, col));
    else
        assert_non_null(strstr(out, "tuning: the kernels' defaults"));
}

static void test_pool_quick_json(void **state)
{
    (void)state;
    assert_int_equal(run(RTM_TEST_RTMGR " bench pool --quick --reps 3 --idle-ms 2 --threads 2 "
                                        "--json"), 0);
    printf("%s", out);
    /* the quick shapes: 2 x 4 us and 8n x 5 us (16 blocks at 2 threads) */
    const char *a = strstr(out, "\"blocks\": 2, \"block_us\": 4.000, ");
    const char *b = strstr(out, "\"blocks\": 16, \"block_us\": 5.000, ");
    assert_non_null(a);
    assert_non_null(b);
    assert_true(a < b);
    /* a run's time is at least its work on one thread of two (4 us; 40 us) */
    double p50 = 0.0, alone = 0.0;
    assert_non_null(strstr(a, "\"pool_b2b_p50_us\": "));
    assert_int_equal(sscanf(strstr(a, "\"pool_b2b_p50_us\": "), "\"pool_b2b_p50_us\": %lf", &p50), 1);
    assert_true(p50 >= 4.0);
    assert_int_equal(sscanf(strstr(b, "\"alone_b2b_p50_us\": "), "\"alone_b2b_p50_us\": %lf",
                            &alone), 1);
    assert_true(alone >= 80.0); /* the caller alone runs all 16 x 5 us */
    const char *sum = strstr(out, "{\"summary\": true, \"threads\": 2, \"idle_ms\": 2.000, "
                                  "\"wake_us\": ");
    assert_non_null(sum);
    assert_true(sum > b);
    assert_non_null(strstr(sum, "\"alone_faster_up_to_us\": "));

    assert_int_equal(run(RTM_TEST_RTMGR " bench pool --threads 0"), 1);
    assert_int_equal(run(RTM_TEST_RTMGR " bench pool --reps"), 1);
    assert_int_equal(run(RTM_TEST_RTMGR " bench pool --idle-ms x"), 1);
    assert_non_null(strstr(out, "usage: rtmgr bench pool"));
}

/* `bench preempt --part poll` builds its candidates with --cl-opts too ("appended to every
 * variant"): session 37's poll tables on the H100 were built without them. Options that
 * break the polled builds (the in-loop poll's lane count redefined as a stray token) must
 * make the part fail. */
static void test_preempt_poll_cl_opts(void **state)
{
    (void)state;
    assert_int_equal(run(RTM_TEST_RTMGR " bench preempt --quick --part poll --kernels spin"), 0);
    assert_non_null(strstr(out, "<- chosen"));
    assert_int_not_equal(run(RTM_TEST_RTMGR " bench preempt --quick --part poll --kernels spin "
                                            "--cl-opts '-DRTM_POLL_LANES=('"),
                         0);
    printf("%s", out);
    assert_non_null(strstr(out, "poll period calibration failed"));
}

/* `bench preempt --size KEY=VALUE,...` fixes those size keys, the sizing key too when
 * named (session 58: grid_path's +done[] measured at three shapes on the H100): the table
 * shows the shape asked for; a key the kernel lacks fails the run, naming it. */
static void test_preempt_overhead_size(void **state)
{
    (void)state;
    assert_int_equal(run(RTM_TEST_RTMGR " bench preempt --quick --part overhead --no-sweep "
                                        "--kernels grid_path --size width=96,height=64,passes=4"),
                     0);
    if (!strstr(out, "width=96 height=64 passes=4"))
        printf("%s", out);
    assert_non_null(strstr(out, "width=96 height=64 passes=4"));
    assert_int_not_equal(run(RTM_TEST_RTMGR " bench preempt --quick --part overhead --no-sweep "
                                            "--kernels grid_path --size depth=3"),
                         0);
    assert_non_null(strstr(out, "no size key 'depth'"));
}

/* `bench preempt --part response` runs section 4 (spin in kexec's automatic shape) and
 * 4b (the executive's shape on 65 536 blocks: a plain grid past 10 us blocks, whose
 * blocks not yet started drain after a raise; GPUs only, so a CPU device says it skipped
 * it). Session 38: on the H100 4b's production rows of 15-40 us blocks had p99 55-69 us
 * where section 4's persistent 65 536-group rows stayed under 40. */
static void test_preempt_response_parts(void **state)
{
    (void)state;
    assert_int_equal(run(RTM_TEST_RTMGR " bench preempt --quick --part response"), 0);
    assert_non_null(strstr(out, "4. abort response, spin kernel"));
    const char *b4 = strstr(out, "4b. the executive's launch shape on 65536 blocks");
    if (!b4)
        printf("%s", out);
    assert_non_null(b4);
    assert_true(strstr(b4, ": skipped (not a GPU)") ||
                strstr(b4, "aborts of production's builds (pooled into the summary)"));
    assert_non_null(strstr(out, "summary: "));
}

/* `bench preempt --json-out FILE` writes the summary's JSON object to FILE and keeps the
 * tables on stdout (session 79: two H100 calls ran with --json, which prints the object
 * alone, and their tables were lost); a file that cannot be written stops it before
 * anything runs (exit 1). */
static void test_preempt_json_out(void **state)
{
    (void)state;
    char path[128], cmd[512];
    snprintf(path, sizeof(path), "%s/preempt.json", cache);
    snprintf(cmd, sizeof(cmd), RTM_TEST_RTMGR " bench preempt --quick --part resume --kernels sort "
                               "--json-out %s", path);
    assert_int_equal(run(cmd), 0);
    assert_non_null(strstr(out, "5. aborted at half and resumed"));
    assert_non_null(strstr(out, "summary: "));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024] = "", extra[8] = "";
    assert_non_null(fgets(line, sizeof(line), f));
    assert_null(fgets(extra, sizeof(extra), f)); /* one line */
    fclose(f);
    unlink(path);
    const char *keys[] = {"{\"device\": \"", "\"response_p50_us\": ", "\"response_p99_us\": ",
                          "\"response_max_us\": ", "\"overhead_check_pct\": ",
                          "\"overhead_feedback_pct\": ", "\"blocks_reexecuted\": 0"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        assert_non_null(strstr(line, keys[i]));
    assert_null(strstr(out, "{\"device\"")); /* not on stdout without --json */

    assert_int_equal(run(RTM_TEST_RTMGR " bench preempt --quick --part resume --kernels sort "
                                        "--json-out /nonexistent-dir/x.json"), 1);
    assert_non_null(strstr(out, "cannot write /nonexistent-dir/x.json"));
    assert_null(strstr(out, "5. aborted at half"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_table),
        cmocka_unit_test(test_quick_json_and_cache),
        cmocka_unit_test(test_wrong_result_exits_3),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_sweep_and_board_tuning),
        cmocka_unit_test(test_pool_quick_json),
        cmocka_unit_test(test_preempt_poll_cl_opts),
        cmocka_unit_test(test_preempt_overhead_size),
        cmocka_unit_test(test_preempt_response_parts),
        cmocka_unit_test(test_preempt_json_out),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
