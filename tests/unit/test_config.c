/* test_config.c — task-set loading and validation.
 *
 * The bad-config corpus (tests/configs/bad/NN-what.yaml): each file's first line says
 * where the error must be reported and a fragment of its text:
 *     # expect: LINE:COLUMN: fragment
 *     # expect-file: boards/x.yaml LINE:COLUMN: fragment   (error inside a board file)
 * Plus generated hostile files (100 MB sparse, binary, device, too many nodes), good
 * task sets (defaults, units, path resolution) and validation of tables built in C. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/config.h"

#define SRC RTM_TEST_SOURCE_DIR
#define BAD_DIR SRC "/tests/configs/bad"

static rtm_config_t cfg;
static rtm_diag_t diag;

static void load_ok(const char *path)
{
    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_config_load(path, &cfg, &diag);
    if (st != RTM_OK) {
        char line[2048];
        rtm_diag_format(&diag, line, sizeof(line));
        fail_msg("%s: %s", rtm_status_name(st), line);
    }
}

/* ---- the corpus ------------------------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Checks one corpus file; returns 1 (and prints why) when it does not behave. */
static int check_bad_file(const char *name)
{
    char path[RTM_PATH_MAX], first[512];
    snprintf(path, sizeof(path), "%s/%s", BAD_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f || !fgets(first, sizeof(first), f)) {
        print_error("%s: cannot read the expect line\n", name);
        if (f)
            fclose(f);
        return 1;
    }
    fclose(f);
    first[strcspn(first, "\n")] = '\0';

    char expect_file[RTM_PATH_MAX + 256];
    snprintf(expect_file, sizeof(expect_file), "%s", path);
    const char *rest;
    if (strncmp(first, "# expect: ", 10) == 0) {
        rest = first + 10;
    } else if (strncmp(first, "# expect-file: ", 15) == 0) {
        const char *sp = strchr(first + 15, ' ');
        if (!sp) {
            print_error("%s: malformed expect-file line\n", name);
            return 1;
        }
        snprintf(expect_file, sizeof(expect_file), "%s/%.*s", BAD_DIR, (int)(sp - (first + 15)),
                 first + 15);
        rest = sp + 1;
    } else {
        print_error("%s: first line must be '# expect: LINE:COLUMN: fragment'\n", name);
        return 1;
    }
    int line, column, used = 0;
    if (sscanf(rest, "%d:%d: %n", &line, &column, &used) != 2 || used == 0) {
        print_error("%s: malformed position in '%s'\n", name, first);
        return 1;
    }
    const char *fragment = rest + used;

    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_config_load(path, &cfg, &diag);
    char got[2048];
    rtm_diag_format(&diag, got, sizeof(got));
    if (st == RTM_OK) {
        print_error("%s: loaded without error\n", name);
        return 1;
    }
    if (strcmp(diag.file, expect_file) != 0 || diag.line != line || diag.column != column ||
        !strstr(diag.text, fragment)) {
        print_error("%s:\n  expected %s:%d:%d: ...%s...\n  got      %s\n", name, expect_file, line,
                    column, fragment, got);
        return 1;
    }
    return 0;
}

static void test_bad_corpus(void **state)
{
    (void)state;
    DIR *d = opendir(BAD_DIR);
    assert_non_null(d);
    static char names[256][256];
    char *list[256];
    uint32_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") != 0 || len >= sizeof(names[0]))
            continue;
        assert_true(n < 256);
        snprintf(names[n], sizeof(names[n]), "%s", e->d_name);
        list[n] = names[n];
        n++;
    }
    closedir(d);
    qsort(list, n, sizeof(list[0]), cmp_names);
    int failures = 0;
    for (uint32_t i = 0; i < n; i++)
        failures += check_bad_file(list[i]);
    print_message("bad-config corpus: %u files, %d failures\n", n, failures);
    assert_true(n >= 30);
    assert_int_equal(failures, 0);
}

/* ---- generated hostile files ------------------------------------------------------ */

static char tmpdir[64];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/rtmgr-test-config-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    DIR *d = opendir(tmpdir);
    if (d) {
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            char p[400];
            if (e->d_name[0] == '.')
                continue;
            snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(tmpdir);
    return 0;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sparse_file(const char *path, off_t bytes)
{
    const int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, bytes), 0);
    close(fd);
}

static void test_huge_file(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof(path), "huge.yaml");
    sparse_file(path, (off_t)100 * 1024 * 1024);
    const double t0 = now_s();
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load(path, &cfg, &diag), RTM_E_CFG_LIMIT);
    assert_true(now_s() - t0 < 0.5);
    assert_string_equal(diag.file, path);
    assert_int_equal(diag.line, 0);
    assert_non_null(strstr(diag.text, "larger than RTM_CONFIG_BYTES_MAX"));
    char line[2048];
    rtm_diag_format(&diag, line, sizeof(line));
    assert_true(strncmp(line, path, strlen(path)) == 0);
    assert_non_null(strstr(line, ": error: file is 104857600 bytes"));
}

static void test_huge_board(void **state)
{
    (void)state;
    char board[128], path[128], text[512];
    tmp_path(board, sizeof(board), "huge-board.yaml");
    tmp_path(path, sizeof(path), "uses-huge-board.yaml");
    sparse_file(board, (off_t)100 * 1024 * 1024);
    snprintf(text, sizeof(text),
             "rtmgr: 1\nboard: huge-board.yaml\ninput: {scenario: {targets: 1}}\n"
             "tasks: [{name: a, kernel: matrix_add, period: 1s, criticality: soft}]\n");
    write_file(path, text);
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load(path, &cfg, &diag), RTM_E_CFG_LIMIT);
    assert_string_equal(diag.file, board);
    assert_int_equal(diag.line, 0);
}

/* Just under the size limit still loads; one byte over does not. */
static void test_size_boundary(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof(path), "boundary.yaml");
    static char text[RTM_CONFIG_BYTES_MAX + 2];
    const char *body = "rtmgr: 1\nboard: " SRC "/board/pocl-cpu.yaml\n"
                       "input: {scenario: {targets: 1}}\n"
                       "tasks: [{name: a, kernel: matrix_add, period: 1s, criticality: soft}]\n#";
    const size_t blen = strlen(body);
    memcpy(text, body, blen);
    memset(text + blen, 'x', RTM_CONFIG_BYTES_MAX - blen - 1);
    text[RTM_CONFIG_BYTES_MAX - 1] = '\n';
    text[RTM_CONFIG_BYTES_MAX] = '\0';
    write_file(path, text);
    load_ok(path);
    text[RTM_CONFIG_BYTES_MAX] = '\n';
    text[RTM_CONFIG_BYTES_MAX + 1] = '\0';
    write_file(path, text);
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load(path, &cfg, &diag), RTM_E_CFG_LIMIT);
}

static void test_binary_file(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof(path), "binary.yaml");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint32_t x = 12345;
    for (int i = 0; i < 65536; i++) {
        x = x * 1103515245u + 12345u;
        fputc((int)(x >> 24), f);
    }
    fclose(f);
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load(path, &cfg, &diag), RTM_E_CFG_SYNTAX);
    assert_true(diag.line >= 1);
    assert_true(strstr(diag.text, "UTF-8") || strstr(diag.text, "NUL"));

    /* The executable itself: starts with 0x7f 'E' 'L' 'F', NULs follow. */
    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_config_load(RTM_TEST_RTMGR, &cfg, &diag);
    assert_true(st == RTM_E_CFG_SYNTAX || st == RTM_E_CFG_LIMIT); /* NUL byte, or too big */
    assert_true(diag.text[0] != '\0');
}

static void test_not_regular_or_missing(void **state)
{
    (void)state;
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load("/dev/zero", &cfg, &diag), RTM_E_CFG_IO);
    assert_non_null(strstr(diag.text, "not a regular file"));
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load(SRC "/tests/configs/no-such-file.yaml", &cfg, &diag),
                     RTM_E_CFG_IO);
    assert_int_equal(diag.line, 0);
    assert_non_null(strstr(diag.text, "No such file"));
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load(SRC "/tests", &cfg, &diag), RTM_E_CFG_IO);
}

static void test_too_many_nodes(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof(path), "nodes.yaml");
    static char text[64 * 1024];
    size_t used = (size_t)snprintf(text, sizeof(text), "rtmgr: 1\nlog: [");
    for (int i = 0; i < RTM_CONFIG_NODES_MAX + 10; i++)
        used += (size_t)snprintf(text + used, sizeof(text) - used, "1,");
    snprintf(text + used, sizeof(text) - used, "1]\n");
    write_file(path, text);
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_load(path, &cfg, &diag), RTM_E_CFG_LIMIT);
    assert_int_equal(diag.line, 2);
    assert_non_null(strstr(diag.text, "RTM_CONFIG_NODES_MAX"));
}

/* ---- good task sets --------------------------------------------------------------- */

static void test_minimal_defaults(void **state)
{
    (void)state;
    load_ok(SRC "/tests/configs/good/minimal.yaml");
    assert_int_equal(cfg.version, 1);
    assert_string_equal(cfg.board_path, SRC "/board/pocl-cpu.yaml");
    assert_string_equal(cfg.board.name, "pocl-cpu");
    assert_int_equal(cfg.max_jobs, RTM_CONFIG_MAX_JOBS_DEFAULT);
    assert_true(cfg.arena_bytes == 512ull * 1024 * 1024);
    assert_string_equal(cfg.log_path, "rtmgr-model.csv");
    assert_int_equal(cfg.input.kind, RTM_INPUT_SCENARIO);
    assert_int_equal(cfg.input.targets, 8);
    assert_true(cfg.input.seed == 1);
    assert_true(cfg.input.radius_m == 12 * 1852.0);
    assert_int_equal(cfg.n_tasks, 1);
    const rtm_task_cfg_t *t = &cfg.task[0];
    assert_string_equal(t->name, "only");
    assert_ptr_equal(t->kernel, rtm_kernel_find("matrix_add"));
    assert_true(t->period_ns == 250000);
    assert_true(t->deadline_ns == 250000);
    assert_true(t->offset_ns == 0);
    assert_int_equal(t->crit, RTM_CRIT_SOFT);
    assert_int_equal(t->placement, RTM_PLACE_AUTO);
    assert_false(t->preemptible);
    assert_int_equal(t->size[0], t->kernel->keys[0].def);
    assert_int_equal(t->line, 6);
    assert_int_equal(t->column, 5);
    assert_int_equal(rtm_config_task_find(&cfg, "only"), 0);
    assert_int_equal(rtm_config_task_find(&cfg, "other"), -1);
}

static void test_full_units(void **state)
{
    (void)state;
    load_ok(SRC "/tests/configs/good/full.yaml");
    assert_string_equal(cfg.board_path, SRC "/board/pocl-cpu.yaml");
    assert_int_equal(cfg.max_jobs, 64);
    assert_true(cfg.arena_bytes == 1610612736ull);
    assert_string_equal(cfg.log_path, "out/model-log.csv");
    assert_int_equal(cfg.input.kind, RTM_INPUT_NMEA_FILE);
    assert_string_equal(cfg.input.address, SRC "/tests/configs/recordings/ais.nmea");
    assert_int_equal(cfg.n_tasks, 2);
    const rtm_task_cfg_t *a = &cfg.task[0], *b = &cfg.task[1];
    assert_string_equal(a->name, "slow.cpa-1");
    assert_true(a->period_ns == 1500000000);
    assert_true(a->deadline_ns == 750000000);
    assert_true(a->offset_ns == 2000000);
    assert_int_equal(a->crit, RTM_CRIT_FIRM);
    assert_int_equal(a->placement, RTM_PLACE_GPU);
    assert_true(a->preemptible);
    assert_int_equal(a->size[0], 640);
    assert_true(b->period_ns == 2000000);
    assert_true(b->deadline_ns == 1500000);
    assert_int_equal(b->crit, RTM_CRIT_HARD);
    assert_int_equal(b->placement, RTM_PLACE_CPU);
    assert_false(b->preemptible);
    assert_int_equal(b->size[0], 16);
    assert_int_equal(a->at.period.line, 15);
    assert_int_equal(a->at.period.column, 13);

    uint64_t bytes;
    assert_int_equal(rtm_config_task_bytes(&cfg, 1, &bytes), RTM_OK);
    /* 16x16 floats, three buffers, padded to one block of wg*vec elements: the largest
     * block the board's tunings (CPU, devices) or the default give matrix_add */
    const rtm_kernel_t *kadd = rtm_kernel_find("matrix_add");
    const int ki = rtm_kernel_index(kadd);
    uint64_t block = (uint64_t)kadd->tune_default.wg * kadd->tune_default.vec;
    if (cfg.board.cpu_ktune[ki].have && (uint64_t)cfg.board.cpu_ktune[ki].tune.wg *
                                                cfg.board.cpu_ktune[ki].tune.vec > block)
        block = (uint64_t)cfg.board.cpu_ktune[ki].tune.wg * cfg.board.cpu_ktune[ki].tune.vec;
    for (uint32_t d = 0; d < cfg.board.n_devs; d++) {
        const rtm_board_ktune_t *kt = &cfg.board.dev[d].ktune[ki];
        if (kt->have && (uint64_t)kt->tune.wg * kt->tune.vec > block)
            block = (uint64_t)kt->tune.wg * kt->tune.vec;
    }
    const uint64_t elems = (256 + block - 1) / block * block;
    assert_true(bytes == 3 * elems * sizeof(float));
}

static void test_udp_quoted(void **state)
{
    (void)state;
    load_ok(SRC "/tests/configs/good/udp.yaml");
    assert_int_equal(cfg.input.kind, RTM_INPUT_NMEA_UDP);
    assert_string_equal(cfg.input.address, "127.0.0.1:10110");
    assert_true(cfg.task[0].period_ns == 100000000);
}

static void test_hil_keys(void **state)
{
    (void)state;
    load_ok(SRC "/tests/configs/good/hil.yaml");
    assert_int_equal(cfg.input.kind, RTM_INPUT_NMEA_FILE);
    assert_string_equal(cfg.input.address, SRC "/tests/configs/recordings/slice.nmea");
    assert_true(cfg.input.speed == 20.0);
    assert_true(cfg.input.expire_ns == 180LL * 1000000000LL);
    assert_true(cfg.output.on);
    assert_string_equal(cfg.output.address, "127.0.0.1:10111");
    assert_string_equal(cfg.output.talker, "II");
    assert_int_equal(cfg.output.task, 1);
    assert_true(cfg.output.interval_ns == 2000000000LL);
    assert_true(cfg.output.range_m == 6 * 1852.0);
    assert_int_equal(cfg.output.max_targets, 30);
    assert_true(cfg.output.alarm_cpa_m == 0.25 * 1852.0);
    assert_true(cfg.output.alarm_tcpa_ns == 600LL * 1000000000LL);
    assert_true(fabs(cfg.hil.mape_budget - 0.375) < 1e-12);
    /* defaults */
    load_ok(SRC "/tests/configs/good/udp.yaml");
    assert_true(cfg.input.speed == 1.0);
    assert_true(cfg.input.expire_ns == RTM_CONFIG_EXPIRE_DEFAULT_NS);
    assert_false(cfg.output.on);
    assert_true(cfg.hil.mape_budget == RTM_CONFIG_MAPE_BUDGET_DEFAULT);
}

static void test_default_config(void **state)
{
    (void)state;
    char cwd[RTM_PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(SRC), 0);
    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_config_load("config/default.yaml", &cfg, &diag);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(st, RTM_OK);
    assert_string_equal(cfg.board_path, "board/pocl-cpu.yaml");
    assert_true(cfg.n_tasks >= 5);
    assert_true(rtm_config_task_find(&cfg, "cpa") >= 0);
    assert_int_equal(cfg.input.kind, RTM_INPUT_SCENARIO);
}

/* ---- validation of tables built in C ---------------------------------------------- */

static void build_table(rtm_config_t *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->path, sizeof(c->path), "built-in");
    c->version = 1;
    c->max_jobs = 4;
    c->arena_bytes = 1024 * 1024;
    snprintf(c->log_path, sizeof(c->log_path), "log.csv");
    c->input.kind = RTM_INPUT_SCENARIO;
    c->input.targets = 1;
    c->input.radius_m = 1000;
    snprintf(c->board.name, sizeof(c->board.name), "b");
    c->board.cores = c->board.threads = 1;
    c->n_tasks = 1;
    rtm_task_cfg_t *t = &c->task[0];
    snprintf(t->name, sizeof(t->name), "x");
    t->kernel = rtm_kernel_find("matrix_add");
    t->period_ns = t->deadline_ns = 1000000;
    t->size[0] = 16;
}

static void test_validate_tables(void **state)
{
    (void)state;
    build_table(&cfg);
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_OK);

    cfg.task[1] = cfg.task[0];
    cfg.n_tasks = 2;
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_VALUE);
    char line[1024];
    rtm_diag_format(&diag, line, sizeof(line));
    assert_string_equal(line, "built-in: error: duplicate task name 'x' (first at line 0)");

    build_table(&cfg);
    cfg.task[0].size[0] = 16384; /* 3 GiB of buffers in a 1 MiB arena */
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_LIMIT);
    assert_non_null(strstr(diag.text, "more than limits.arena (1MiB)"));

    build_table(&cfg);
    cfg.task[0].size[0] = 0;
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_VALUE);
    build_table(&cfg);
    cfg.task[0].kernel = NULL;
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_VALUE);
    build_table(&cfg);
    cfg.max_jobs = RTM_MAX_JOBS + 1;
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_LIMIT);
    build_table(&cfg);
    cfg.n_tasks = 0;
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_VALUE);
    build_table(&cfg);
    cfg.task[0].placement = RTM_PLACE_GPU; /* the board has no device */
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_VALUE);

    /* A loaded table edited afterwards reports at the remembered position. */
    load_ok(SRC "/tests/configs/good/full.yaml");
    cfg.task[1].deadline_ns = cfg.task[1].period_ns + 1;
    assert_int_equal(rtm_config_validate(&cfg, &diag), RTM_E_CFG_VALUE);
    assert_int_equal(diag.line, 26);
    assert_int_equal(diag.column, 15);
    assert_non_null(strstr(diag.text, "must not exceed period"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_corpus),
        cmocka_unit_test(test_huge_file),
        cmocka_unit_test(test_huge_board),
        cmocka_unit_test(test_size_boundary),
        cmocka_unit_test(test_binary_file),
        cmocka_unit_test(test_not_regular_or_missing),
        cmocka_unit_test(test_too_many_nodes),
        cmocka_unit_test(test_minimal_defaults),
        cmocka_unit_test(test_full_units),
        cmocka_unit_test(test_udp_quoted),
        cmocka_unit_test(test_default_config),
        cmocka_unit_test(test_hil_keys),
        cmocka_unit_test(test_validate_tables),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
