/* test_board.c — board profiles: the shipped pocl-cpu profile, load(save(b)) == b,
 * atomic saving. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/board.h"
#include "rtmgr/preempt.h"

#define SRC RTM_TEST_SOURCE_DIR

static rtm_board_t a, b;
static rtm_diag_t diag;
static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/rtmgr-test-board-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
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

static void load_ok(const char *path, rtm_board_t *board)
{
    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_board_load(path, board, &diag);
    if (st != RTM_OK) {
        char line[2048];
        rtm_diag_format(&diag, line, sizeof(line));
        fail_msg("%s: %s", rtm_status_name(st), line);
    }
}

static void assert_ktune_equal(const rtm_board_ktune_t *x, const rtm_board_ktune_t *y)
{
    for (uint32_t k = 0; k < RTM_MAX_KERNELS; k++) {
        assert_int_equal(x[k].have, y[k].have);
        assert_int_equal(x[k].tune.wg, y[k].tune.wg);
        assert_int_equal(x[k].tune.vec, y[k].tune.vec);
        assert_true(x[k].r_op == y[k].r_op);
        assert_true(x[k].mem_rate == y[k].mem_rate);
        assert_true(x[k].t_fixed == y[k].t_fixed);
        assert_true(x[k].r_big == y[k].r_big);
        assert_true(x[k].r_miss == y[k].r_miss);
        assert_true(x[k].knee == y[k].knee);
        assert_true(x[k].t_next == y[k].t_next);
        assert_int_equal(x[k].poll_every, y[k].poll_every);
        assert_true(x[k].poll_cost == y[k].poll_cost);
        assert_true(x[k].aligned == y[k].aligned);
        assert_true(x[k].aligned_r == y[k].aligned_r);
        assert_true(x[k].resident == y[k].resident);
        assert_true(x[k].aliased == y[k].aliased);
    }
}

/* Every field but the path. Doubles compared exactly. */
static void assert_boards_equal(const rtm_board_t *x, const rtm_board_t *y)
{
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->cores, y->cores);
    assert_int_equal(x->threads, y->threads);
    assert_int_equal(x->cpu_model, y->cpu_model);
    assert_string_equal(x->cpu_measured, y->cpu_measured);
    assert_string_equal(x->cpu_name, y->cpu_name);
    for (uint32_t p = 0; p < RTM_CPU_P_COUNT; p++) {
        assert_int_equal(x->cpu_have[p], y->cpu_have[p]);
        if (x->cpu_have[p] && x->cpu_param[p] != y->cpu_param[p])
            fail_msg("cpu param %u: %.17g != %.17g", p, x->cpu_param[p], y->cpu_param[p]);
    }
    assert_ktune_equal(x->cpu_ktune, y->cpu_ktune);
    assert_int_equal(x->n_devs, y->n_devs);
    for (uint32_t i = 0; i < x->n_devs; i++) {
        const rtm_board_dev_t *d = &x->dev[i], *e = &y->dev[i];
        assert_string_equal(d->name, e->name);
        assert_string_equal(d->platform, e->platform);
        assert_string_equal(d->device, e->device);
        assert_int_equal(d->kind, e->kind);
        assert_true(d->memory == e->memory);
        assert_int_equal(d->abort, e->abort);
        assert_int_equal(d->model, e->model);
        assert_string_equal(d->driver, e->driver);
        assert_string_equal(d->measured, e->measured);
        for (uint32_t p = 0; p < RTM_DEV_P_COUNT; p++) {
            assert_int_equal(d->have[p], e->have[p]);
            if (d->have[p] && d->param[p] != e->param[p])
                fail_msg("device %u param %u: %.17g != %.17g", i, p, d->param[p], e->param[p]);
        }
        assert_ktune_equal(d->ktune, e->ktune);
    }
}

static void test_shipped_profile(void **state)
{
    (void)state;
    /* measured on the development machine by `rtmgr calibrate -o board/pocl-cpu.yaml`:
     * every parameter present and positive, every catalogue kernel tuned */
    load_ok(SRC "/board/pocl-cpu.yaml", &a);
    assert_string_equal(a.name, "pocl-cpu");
    assert_true(a.cores >= 1 && a.threads >= 1);
    assert_true(strlen(a.cpu_measured) >= 10);
    /* cw_warm, cw_idle_log2, cold_rate and warm_lead came later (sessions 70-72): a
     * profile without them is valid (the model charges a warmed job's first launch cw, as
     * back to back, any idle as 20 ms, and an idle job's data nothing more) */
    for (uint32_t p = 0; p < RTM_CPU_P_COUNT; p++)
        assert_true((a.cpu_have[p] && a.cpu_param[p] > 0) ||
                    ((p == RTM_CPU_P_cw_warm || p == RTM_CPU_P_cw_idle_log2 ||
                      p == RTM_CPU_P_cold_rate || p == RTM_CPU_P_warm_lead) &&
                     !a.cpu_have[p]));
    assert_int_equal(a.n_devs, 1);
    const rtm_board_dev_t *d = &a.dev[0];
    assert_int_equal(d->kind, RTM_DEV_CPU);
    assert_int_equal(d->abort, RTM_ABORT_MAPPED);
    assert_int_equal(d->model, RTM_MODEL_EXTENDED);
    assert_true(d->memory > 0);
    assert_non_null(strstr(d->platform, "Portable Computing Language"));
    assert_true(d->driver[0] != '\0' && strlen(d->measured) >= 10);
    /* ws_next, wr_next, ws_clear, kernel_next, phase_gap, gap_host_k, gap_host_o, ws_idle,
     * wr_idle came
     * later: a profile without them is valid (the model charges ws_fixed / wr_fixed per
     * command, no clears, kernel_fixed per launch and no gaps between phases, or
     * phase_gap alone, as before); phase_gap may be 0 */
    for (uint32_t p = 0; p < RTM_DEV_P_COUNT; p++)
        if (p == RTM_DEV_P_pace) /* GPUs only (rtmgr/pace.h): never a CPU-type device's */
            assert_false(d->have[p]);
        else if (p != RTM_DEV_P_ws_next && p != RTM_DEV_P_wr_next && p != RTM_DEV_P_ws_clear &&
                 p != RTM_DEV_P_kernel_next && p != RTM_DEV_P_phase_gap &&
                 p != RTM_DEV_P_gap_host_k && p != RTM_DEV_P_gap_host_o &&
                 p != RTM_DEV_P_ws_idle && p != RTM_DEV_P_wr_idle)
            assert_true(d->have[p] && d->param[p] > 0);
        else
            assert_true(!d->have[p] || d->param[p] >= 0);
    const int k = rtm_kernel_index(rtm_kernel_find("matrix_add"));
    assert_true(k >= 0);
    assert_true(d->ktune[k].have && d->ktune[k].r_op > 0);
    assert_true(a.cpu_ktune[k].have && a.cpu_ktune[k].r_op > 0);
    /* poll_every came later: absent = not calibrated (0, the executive's default), and
     * rtm_preempt_poll_opts then leaves the kexec options as they were */
    const int mm = rtm_kernel_index(rtm_kernel_find("matrix_mul"));
    assert_true(mm >= 0 && d->ktune[mm].have);
    if (d->ktune[mm].poll_every == 0) {
        rtm_kexec_opts_t o = {0};
        rtm_preempt_poll_opts(d, rtm_kernel_find("matrix_mul"), 0.0, &o);
        assert_int_equal(o.poll_every, 0);
        assert_false(o.no_poll);
    }
    rtm_board_dev_t e = *d;
    rtm_kexec_opts_t o = {0};
    e.ktune[mm].poll_every = 512;
    rtm_preempt_poll_opts(&e, rtm_kernel_find("matrix_mul"), 0.0, &o);
    assert_int_equal(o.poll_every, 512);
    assert_false(o.no_poll);
    /* a block that outlasts the response target's share polls at the calibrated period;
     * one within it does not poll at all */
    rtm_preempt_poll_opts(&e, rtm_kernel_find("matrix_mul"), 2.0 * RTM_PREEMPT_POLL_BLOCK_S, &o);
    assert_int_equal(o.poll_every, 512);
    assert_false(o.no_poll);
    rtm_preempt_poll_opts(&e, rtm_kernel_find("matrix_mul"), 0.5 * RTM_PREEMPT_POLL_BLOCK_S, &o);
    assert_true(o.no_poll);
    o.no_poll = false;
    e.ktune[mm].poll_every = RTM_BOARD_POLL_NONE;
    rtm_preempt_poll_opts(&e, rtm_kernel_find("matrix_mul"), 0.0, &o);
    assert_true(o.no_poll);
    /* the executive's build and its prediction (rtm_preempt_predict_dev): a job whose
     * blocks outlast the response target's share polls at the profile's period and is
     * predicted with its cost; a job of short blocks neither polls nor pays it */
    e.ktune[mm].poll_every = 512;
    e.ktune[mm].poll_cost = 0.04;
    const int64_t sizes[2] = {2000, 16};
    for (int i = 0; i < 2; i++) {
        rtm_kinst_t ki;
        rtm_kinst_init(&ki, rtm_kernel_find("matrix_mul"));
        ki.size[0] = sizes[i];
        ki.tune = e.ktune[mm].tune;
        assert_int_equal(rtm_kinst_plan(&ki), RTM_OK);
        rtm_model_job_t job, plain;
        rtm_model_pred_t pr, pp;
        assert_int_equal(rtm_model_job_make(&ki, &plain), RTM_OK);
        assert_int_equal(rtm_model_predict_dev(&plain, &e, e.model, 0, &pp), RTM_OK);
        rtm_kexec_opts_t ko = {0};
        assert_int_equal(rtm_preempt_predict_dev(&e, &ki, 0, &job, &ko, &pr), RTM_OK);
        const double block_s = rtm_preempt_block_s(&e, &ki, (double)pp.ext.kernel_ns * 1e-9);
        if (i == 0) {
            assert_true(block_s > RTM_PREEMPT_POLL_BLOCK_S);
            assert_int_equal(ko.poll_every, 512);
            assert_false(ko.no_poll);
            assert_true(job.poll_cost == 0.04);
            assert_true(pr.ext.kernel_ns > pp.ext.kernel_ns);
            assert_true(pr.ext.kernel_ns <= (int64_t)((double)pp.ext.kernel_ns * 1.04) + 1);
        } else {
            assert_true(block_s <= RTM_PREEMPT_POLL_BLOCK_S);
            assert_true(ko.no_poll);
            assert_true(job.poll_cost == 0.0);
            assert_int_equal(pr.ext.kernel_ns, pp.ext.kernel_ns);
        }
        assert_int_equal(pr.paper.kernel_ns, pp.paper.kernel_ns);
    }
    /* the period rule: the largest power of two whose steps last at most the period */
    assert_int_equal(rtm_preempt_poll_k(0.0), 16);
    assert_int_equal(rtm_preempt_poll_k(1e-6), 16);
    assert_int_equal(rtm_preempt_poll_k(1e-9), 4096);
    assert_int_equal(rtm_preempt_poll_k(94e-9), 32);
    assert_int_equal(rtm_preempt_poll_k(1e-12), 65536);
    assert_true(rtm_preempt_poll_k(94e-9) * 94e-9 <= RTM_PREEMPT_POLL_PERIOD_S);
    assert_true(2 * rtm_preempt_poll_k(94e-9) * 94e-9 > RTM_PREEMPT_POLL_PERIOD_S);
}

static void test_round_trip_shipped(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/pocl.yaml", tmpdir);
    load_ok(SRC "/board/pocl-cpu.yaml", &a);
    assert_int_equal(rtm_board_save(&a, path), RTM_OK);
    load_ok(path, &b);
    assert_boards_equal(&a, &b);
    assert_string_equal(b.path, path);
}

/* A board with awkward values everywhere: every parameter, odd doubles, strings that
 * need quoting, every enumeration value, the most devices. */
static void test_round_trip_synthetic(void **state)
{
    (void)state;
    memset(&a, 0, sizeof(a));
    snprintf(a.name, sizeof(a.name), "rig-7.b_2");
    a.cores = 48;
    a.threads = 47;
    a.cpu_model = RTM_MODEL_EXTENDED;
    snprintf(a.cpu_measured, sizeof(a.cpu_measured), "2025-01-31T10:00:00Z");
    snprintf(a.cpu_name, sizeof(a.cpu_name), "Intel(R) Xeon(R) \"Q\" CPU @ 2.10GHz");
    for (uint32_t p = 0; p < RTM_CPU_P_COUNT; p++) {
        a.cpu_have[p] = p % 3 != 1;
        a.cpu_param[p] = (p + 1) / 3.0 * 1e-9 * (double)(p * p + 1);
    }
    a.cpu_param[RTM_CPU_P_lp] = 7.0;
    a.cpu_param[RTM_CPU_P_mem_rate] = 12345678901.25;
    /* strided walks aliased in the L1: the pool's term (the devices' ktune take it too) */
    a.cpu_ktune[0] = (rtm_board_ktune_t){.have = true, .tune = {64, 8}, .aliased = 1.6875};
    a.n_devs = RTM_MAX_DEVICES;
    for (uint32_t i = 0; i < a.n_devs; i++) {
        rtm_board_dev_t *d = &a.dev[i];
        snprintf(d->name, sizeof(d->name), "dev%u", i);
        snprintf(d->platform, sizeof(d->platform), "Plat \"%u\" \\ \xc3\x9cnic\xc3\xb6" "de", i);
        snprintf(d->device, sizeof(d->device), "%s", i % 2 ? "" : "GeForce GTX 1080: tab\there");
        d->kind = (rtm_dev_kind_t)(i % 3);
        d->abort = (rtm_abort_transport_t)(i % 2);
        d->model = (rtm_model_kind_t)((i / 2) % 2);
        d->memory = i == 0 ? 0 : (uint64_t)i * 1000000007ull;
        snprintf(d->driver, sizeof(d->driver), "535.%u # not a comment", i);
        snprintf(d->measured, sizeof(d->measured), "%s", i % 2 ? "" : "2024-12-24");
        for (uint32_t p = 0; p < RTM_DEV_P_COUNT; p++) {
            d->have[p] = (p + i) % 4 != 0;
            d->param[p] = 1.0 / (double)(3 + p + i) * (p % 2 ? 1e-6 : 1e9);
        }
        d->param[RTM_DEV_P_units] = (double)(i + 1) * 10;
        d->ktune[0] = (rtm_board_ktune_t){
            .have = true,
            .tune = {(uint32_t)(32 << (i % 4)), 1u << (i % 5)},
            .r_op = i % 2 ? 0.0 : 1.0 / 3.0 * 1e-9,
            .mem_rate = i % 3 ? 0.0 : 7.0e9 / (double)(i + 3),
            .t_fixed = i % 2 ? 2.5e-6 : 0.0,
            .r_big = i % 2 ? 4.0e-9 : 0.0,
            .r_miss = i % 4 == 2 ? 5.0e-9 : 0.0,
            .knee = i % 2 || i % 4 == 2 ? 64.0 * 1024 * 1024 : 0.0,
            .t_next = i % 3 == 1 ? 9.25e-6 : 0.0,
            /* absent (default), a period, and no in-loop polls (`poll_every: 0`) */
            .poll_every = i % 3 == 0 ? 0u : i % 3 == 1 ? 64u : RTM_BOARD_POLL_NONE,
            /* the period's cost over calibration's build, with a period only */
            .poll_cost = i % 3 == 1 ? (i % 2 ? -0.0125 : 0.0375) : 0.0,
            /* aligned rows' work over the odd rows', where measured */
            .aligned = i % 8 == 5 ? 0.3125 : i % 4 == 1 ? 0.8875 : 0.0,
            /* with a rate: aligned rows' share of the growth above it */
            .aligned_r = i % 8 == 5 ? 0.6449849313698327e-9 : 0.0,
            /* the kernel's own resident groups, where fitted */
            .resident = i % 3 == 2 ? 9.5 : 0.0,
            .aliased = i % 5 == 3 ? 0.8125 : 0.0};
    }
    char path[128];
    snprintf(path, sizeof(path), "%s/synthetic.yaml", tmpdir);
    assert_int_equal(rtm_board_save(&a, path), RTM_OK);
    load_ok(path, &b);
    assert_boards_equal(&a, &b);
    /* Saving what was loaded gives the same bytes again. */
    char path2[128];
    snprintf(path2, sizeof(path2), "%s/synthetic2.yaml", tmpdir);
    assert_int_equal(rtm_board_save(&b, path2), RTM_OK);
    FILE *f1 = fopen(path, "rb"), *f2 = fopen(path2, "rb");
    assert_non_null(f1);
    assert_non_null(f2);
    int c1, c2;
    do {
        c1 = fgetc(f1);
        c2 = fgetc(f2);
        assert_int_equal(c1, c2);
    } while (c1 != EOF);
    fclose(f1);
    fclose(f2);
}

static void test_save_atomic(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof(path), "%s/atomic.yaml", tmpdir);
    load_ok(SRC "/board/pocl-cpu.yaml", &a);
    assert_int_equal(rtm_board_save(&a, path), RTM_OK);
    a.cores = 3;
    assert_int_equal(rtm_board_save(&a, path), RTM_OK); /* overwrite */
    load_ok(path, &b);
    assert_int_equal(b.cores, 3);
    /* No temporary file is left behind. */
    DIR *d = opendir(tmpdir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        assert_null(strstr(e->d_name, ".yaml."));
    closedir(d);
    /* A directory that does not exist: an error, nothing written. */
    assert_int_equal(rtm_board_save(&a, "/nonexistent-dir/x.yaml"), RTM_E_IO);
    assert_int_equal(rtm_board_save(NULL, path), RTM_E_ARG);
    a.dev[0].param[RTM_DEV_P_r_op] = NAN; /* NaN would not load back */
    assert_int_equal(rtm_board_save(&a, path), RTM_E_ARG);
}

static void test_load_errors(void **state)
{
    (void)state;
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_board_load(SRC "/board/none.yaml", &a, &diag), RTM_E_CFG_IO);
    assert_int_equal(diag.line, 0);
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(rtm_board_load(SRC "/tests/configs/bad/boards/bad-vec.yaml", &a, &diag),
                     RTM_E_CFG_VALUE);
    assert_string_equal(diag.file, SRC "/tests/configs/bad/boards/bad-vec.yaml");
    assert_int_equal(diag.line, 8);
    assert_int_equal(diag.column, 32);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(rtm_board_kind_name(RTM_DEV_ACCEL), "accelerator");
    assert_string_equal(rtm_board_abort_name(RTM_ABORT_WRITE), "write");
    assert_string_equal(rtm_board_model_name(RTM_MODEL_EXTENDED), "extended");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_profile),   cmocka_unit_test(test_round_trip_shipped),
        cmocka_unit_test(test_round_trip_synthetic), cmocka_unit_test(test_save_atomic),
        cmocka_unit_test(test_load_errors),       cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
