/* test_builder.c — calibration's build workers (rtmgr/builder.h), real rtmgr worker
 * processes building real programs for PoCL's CPU device into a fresh binary cache:
 * - a job's record carries what changes its program, and reads back the same; a
 *   malformed record is refused;
 * - one set of workers serves several batches (the same processes: no second start),
 *   every job acknowledged and its program in the cache after, poll variants included;
 * - a queued batch collected a little at a time (rtm_builder_poll) while the caller
 *   waits for one of its programs;
 * - an urgent job sent behind a queued batch is built before the batch's rest, and
 *   waited for alone;
 * - workers that cannot open their device (no such device) exit without taking a job:
 *   the batch comes back empty, the builder broken, nothing blocks. */
#define _GNU_SOURCE /* SCHED_IDLE */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "builder.h"
#include "os.h"
#include "tests/ocl_fixture.h"

static rtm_build_job_t job(const char *kernel, int64_t key0, uint32_t poll, bool no_poll)
{
    rtm_build_job_t j;
    memset(&j, 0, sizeof(j));
    rtm_kinst_init(&j.k, rtm_kernel_find(kernel));
    j.k.size[0] = key0;
    j.transport = RTM_ABORT_WRITE;
    j.poll_every = poll;
    j.no_poll = no_poll;
    assert_int_equal(rtm_kinst_plan(&j.k), RTM_OK);
    return j;
}

static void test_record_round_trip(void **state)
{
    (void)state;
    rtm_build_job_t a = job("cpa_tcpa", 123, 64, false);
    a.k.tune.wg = 128;
    a.k.tune.vec = 1;
    a.variant = RTM_KEXEC_FULL;
    a.transport = RTM_ABORT_MAPPED;
    a.groups = RTM_KEXEC_GROUPS_ALL; /* a plain grid (the executive's for long blocks) */
    /* long blocks' fetch build (rtm_preempt_grid_for_block): a worker that built without
     * it cached another program, and the H100's loop kernels compiled theirs on the path */
    a.fetch_store = true;
    a.chunk = RTM_KEXEC_CHUNK_BLOCKS; /* longer blocks' chunks: a plain grid's program */
    char rec[RTM_BUILD_RECORD + 1];
    assert_true(rtm_build_record(&a, rec));
    rec[RTM_BUILD_RECORD] = '\0';
    assert_non_null(strchr(rec, '\n'));
    rtm_build_job_t b;
    assert_true(rtm_build_parse(rec, &b));
    assert_ptr_equal(b.k.kernel, a.k.kernel);
    assert_int_equal(b.k.tune.wg, 128);
    assert_int_equal(b.k.tune.vec, 1);
    assert_int_equal(b.variant, RTM_KEXEC_FULL);
    assert_int_equal(b.transport, RTM_ABORT_MAPPED);
    assert_int_equal(b.poll_every, 64);
    assert_false(b.no_poll);
    assert_int_equal(b.groups, RTM_KEXEC_GROUPS_ALL);
    assert_true(b.fetch_store);
    assert_int_equal(b.chunk, RTM_KEXEC_CHUNK_BLOCKS);
    const rtm_kexec_opts_t o = rtm_build_job_opts(&b, NULL);
    assert_int_equal(o.groups, RTM_KEXEC_GROUPS_ALL);
    assert_true(o.fetch_store);
    assert_int_equal(o.chunk, RTM_KEXEC_CHUNK_BLOCKS);
    /* and back: a job made from those options carries them */
    rtm_build_job_t c = a;
    c.fetch_store = false;
    c.chunk = 0;
    rtm_build_job_set_opts(&c, &o);
    assert_true(c.fetch_store);
    assert_int_equal(c.chunk, RTM_KEXEC_CHUNK_BLOCKS);
    assert_int_equal(c.groups, RTM_KEXEC_GROUPS_ALL);
    for (uint32_t i = 0; i < a.k.kernel->n_keys; i++)
        assert_int_equal(b.k.size[i], a.k.size[i]);
    /* refused: no such kernel, a field missing, a number that is not one */
    char bad1[] = "no_such_kernel 256 1 0 0 0 0 100\n";
    char bad2[] = "cpa_tcpa 256 1 0 0\n";
    char bad3[] = "cpa_tcpa 256 x 0 0 0 0 100 0 1852 1200\n";
    assert_false(rtm_build_parse(bad1, &b));
    assert_false(rtm_build_parse(bad2, &b));
    assert_false(rtm_build_parse(bad3, &b));
}

static bool cached(rtm_ocl_dev_t *d, const rtm_build_job_t *j, const char *cache)
{
    const rtm_kexec_opts_t o = rtm_build_job_opts(j, cache);
    return rtm_kexec_cached(d, &j->k, &o);
}

/* A fresh binary cache directory and PoCL's device (the tests that build). */
typedef struct {
    char dir[40];
    rtm_ocl_dev_t d;
} fix_t;

static int fix_open(void **state)
{
    static fix_t f;
    snprintf(f.dir, sizeof(f.dir), "/tmp/rtmgr-test-builder-XXXXXX");
    if (!mkdtemp(f.dir) || ocl_open_first(&f.d) != RTM_OK)
        return -1;
    *state = &f;
    return 0;
}

static int fix_close(void **state)
{
    fix_t *f = *state;
    rtm_ocl_close(&f->d);
    char cmd[96];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_batches_share_workers(void **state)
{
    fix_t *f = *state;
    const char *dir = f->dir;
    rtm_ocl_dev_t *d = &f->d;
    /* the navigation kernels' target counts are build options: each size its program */
    const rtm_build_job_t j[4] = {job("cpa_tcpa", 101, 0, false), job("cpa_tcpa", 203, 0, false),
                                  job("cpa_tcpa", 305, 0, false), job("spin", 64, 0, true)};
    for (int i = 0; i < 4; i++)
        assert_false(cached(d, &j[i], dir));

    rtm_builder_t b;
    assert_int_equal(rtm_builder_start(&b, RTM_TEST_RTMGR, 0, dir, 2, false), 2);
    assert_true(rtm_builder_up(&b));
    const pid_t p0 = b.pid[0], p1 = b.pid[1];
    const rtm_build_job_t *first[] = {&j[0], &j[1]};
    assert_int_equal(rtm_builder_batch(&b, first, 2), 2);
    assert_true(cached(d, &j[0], dir) && cached(d, &j[1], dir));
    assert_false(cached(d, &j[2], dir));
    /* the second batch: the same two processes, no start */
    const rtm_build_job_t *second[] = {&j[2], &j[3]};
    assert_int_equal(rtm_builder_batch(&b, second, 2), 2);
    assert_true(rtm_builder_up(&b));
    assert_int_equal(b.n, 2);
    assert_true((b.pid[0] == p0 && b.pid[1] == p1) || (b.pid[0] == p1 && b.pid[1] == p0));
    assert_true(cached(d, &j[2], dir) && cached(d, &j[3], dir));
    /* spin without polls is not spin with the default polls */
    const rtm_build_job_t polled = job("spin", 64, 0, false);
    assert_false(cached(d, &polled, dir));
    rtm_builder_stop(&b);
    assert_int_equal(b.n, 0);
    assert_int_equal(b.failed, 0);
    assert_false(rtm_builder_up(&b));
}

/* Two workers (`idle`: under SCHED_IDLE) started on f's cache and the three jobs j
 * queued to them without a wait. */
static void start_send3(const fix_t *f, const rtm_build_job_t j[3], bool idle, rtm_builder_t *b)
{
    assert_int_equal(rtm_builder_start(b, RTM_TEST_RTMGR, 0, f->dir, 2, idle), 2);
    const rtm_build_job_t *all[] = {&j[0], &j[1], &j[2]};
    assert_int_equal(rtm_builder_send(b, all, 3), 3);
    assert_int_equal(b->pending, 3);
}

/* A background batch: queued without waiting to workers under SCHED_IDLE, collected
 * later; their CPU time is readable while they live. */
static void test_background_batch(void **state)
{
    fix_t *f = *state;
    const char *dir = f->dir;
    rtm_ocl_dev_t *d = &f->d;
    const rtm_build_job_t j[3] = {job("cpa_tcpa", 107, 0, false), job("cpa_tcpa", 209, 0, false),
                                  job("trajectory", 301, 0, false)};
    rtm_builder_t b;
    start_send3(f, j, true, &b);
    /* the caller goes on meanwhile; then collects */
    assert_int_equal(rtm_builder_wait(&b), 3);
    assert_int_equal(b.pending, 0);
    assert_true(rtm_builder_up(&b));
    for (int i = 0; i < 3; i++)
        assert_true(cached(d, &j[i], dir));
    /* they took jobs, so they lowered themselves first (an unprivileged process may
     * always go to SCHED_IDLE) */
    for (uint32_t w = 0; w < b.n; w++)
        assert_int_equal(sched_getscheduler(b.pid[w]), SCHED_IDLE);
    assert_true(rtm_builder_cpu_s(&b) > 0.0); /* three PoCL builds took CPU time */
    /* nothing pending: a wait returns at once */
    assert_int_equal(rtm_builder_wait(&b), 0);
    rtm_builder_stop(&b);
    assert_int_equal(b.failed, 0);
    assert_true(rtm_builder_cpu_s(&b) == 0.0); /* none live */
}

/* A queued batch collected a little at a time (rtm_builder_poll), as a GPU's catalogue
 * waits for one kernel's programs while the others still build: a program is awaited
 * alone, the rest are acknowledged after, nothing is counted twice. */
static void test_poll_waits_for_one_program(void **state)
{
    fix_t *f = *state;
    const char *dir = f->dir;
    rtm_ocl_dev_t *d = &f->d;
    const rtm_build_job_t j[3] = {job("cpa_tcpa", 111, 0, false), job("trajectory", 213, 0, false),
                                  job("cpa_tcpa", 317, 0, false)};
    rtm_builder_t b;
    start_send3(f, j, false, &b);
    /* the second job's program: polled for until it is in the cache */
    uint32_t out = b.pending, polls = 0;
    while (!cached(d, &j[1], dir)) {
        assert_true(out > 0); /* its acknowledgement cannot have come before its file */
        out = rtm_builder_poll(&b, 50);
        assert_int_equal(out, b.pending);
        polls++;
        assert_true(polls < 2400); /* two minutes */
    }
    while (rtm_builder_poll(&b, 50) > 0) {
    }
    assert_int_equal(b.pending, 0);
    assert_true(rtm_builder_up(&b));
    for (int i = 0; i < 3; i++)
        assert_true(cached(d, &j[i], dir));
    assert_int_equal(rtm_builder_wait(&b), 0); /* every acknowledgement already read */
    assert_int_equal(rtm_builder_poll(&b, 50), 0);
    rtm_builder_stop(&b);
    assert_int_equal(b.failed, 0);
}

/* An urgent job behind a queued batch, one worker: built before the batch's rest and
 * waited for alone (rtm_builder_wait_urgent returns while most of the batch is
 * unbuilt); its acknowledgement counted once, the batch's after it. */
static void test_urgent_job_first(void **state)
{
    fix_t *f = *state;
    const char *dir = f->dir;
    rtm_ocl_dev_t *d = &f->d;
    const rtm_build_job_t j[5] = {job("cpa_tcpa", 121, 0, false), job("cpa_tcpa", 223, 0, false),
                                  job("cpa_tcpa", 325, 0, false), job("cpa_tcpa", 427, 0, false),
                                  job("trajectory", 529, 0, false)};
    rtm_builder_t b;
    assert_int_equal(rtm_builder_start(&b, RTM_TEST_RTMGR, 0, dir, 1, false), 1);
    const rtm_build_job_t *batch[] = {&j[0], &j[1], &j[2], &j[3]};
    assert_int_equal(rtm_builder_send(&b, batch, 4), 4);
    const rtm_build_job_t *urgent[] = {&j[4]};
    assert_int_equal(rtm_builder_send_urgent(&b, urgent, 1), 1);
    assert_int_equal(b.pending, 5);
    assert_int_equal(b.urgent_pending, 1);
    const uint32_t built = rtm_builder_wait_urgent(&b);
    assert_int_equal(b.urgent_pending, 0);
    assert_true(cached(d, &j[4], dir));
    /* one worker, one build at a time: the batch's last two cannot have been built
     * before the urgent one (it took at most the first before it saw the urgent pipe) */
    assert_false(cached(d, &j[2], dir) && cached(d, &j[3], dir));
    assert_true(built >= 1 && built <= 3);
    assert_int_equal(built + rtm_builder_wait(&b), 5);
    for (int i = 0; i < 5; i++)
        assert_true(cached(d, &j[i], dir));
    /* nothing urgent out: returns at once */
    assert_int_equal(rtm_builder_wait_urgent(&b), 0);
    rtm_builder_stop(&b);
    assert_int_equal(b.failed, 0);
}

static void test_no_device_breaks_without_blocking(void **state)
{
    (void)state;
    rtm_builder_t b;
    assert_int_equal(rtm_builder_start(&b, RTM_TEST_RTMGR, 7, "/tmp", 2, false), 2);
    const rtm_build_job_t j = job("cpa_tcpa", 101, 0, false);
    const rtm_build_job_t *one[] = {&j};
    assert_int_equal(rtm_builder_batch(&b, one, 1), 0);
    assert_true(b.broken);
    assert_false(rtm_builder_up(&b));
    assert_int_equal(b.n, 0);
    assert_int_equal(b.failed, 2);
    /* a broken builder takes no batch, and has nothing out to poll for */
    assert_int_equal(rtm_builder_batch(&b, one, 1), 0);
    assert_int_equal(rtm_builder_poll(&b, 50), 0);
    /* a poll finds the workers gone: broken, nothing left out, no wait for the jobs */
    rtm_builder_t c;
    assert_int_equal(rtm_builder_start(&c, RTM_TEST_RTMGR, 7, "/tmp", 2, false), 2);
    assert_int_equal(rtm_builder_send(&c, one, 1), 1);
    uint32_t polls = 0;
    while (rtm_builder_poll(&c, 50) > 0)
        assert_true(++polls < 2400);
    assert_true(c.broken);
    assert_int_equal(c.pending, 0);
    rtm_builder_stop(&c);
    rtm_builder_stop(&b);
}

int main(void)
{
    /* as rtmgr's main: the workers get the environment this process started with, not
     * the one its OpenCL drivers leave (on the H100 machine, RTM_PLATFORM=NVIDIA: without
     * it the workers saw one platform, PoCL, and no device) */
    rtm_os_keep_environ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test_setup_teardown(test_batches_share_workers, fix_open, fix_close),
        cmocka_unit_test_setup_teardown(test_background_batch, fix_open, fix_close),
        cmocka_unit_test_setup_teardown(test_poll_waits_for_one_program, fix_open, fix_close),
        cmocka_unit_test_setup_teardown(test_urgent_job_first, fix_open, fix_close),
        cmocka_unit_test(test_no_device_breaks_without_blocking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
