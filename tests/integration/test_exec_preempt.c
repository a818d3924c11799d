/* test_exec_preempt.c — the executive's use of preemption (issue 6) on real OpenCL
 * (PoCL here) with real kernels: a long preemptible job (spin, two launches, about
 * 0.4 s) is aborted by a hard job that cannot meet its deadline otherwise, keeps its
 * completed blocks, is re-placed by the model's prediction of its unfinished blocks and
 * resumed — on the same device (preempted twice), on the host CPU through the CPU twin
 * on the worker pool, and on a second OpenCL device — and its output equals an
 * uninterrupted run's; no completed block runs again (counting executors). The records
 * say preempted / resumed / checkpoint.
 *
 * No allocation after start: the allocator calls of rtmgr's code (librtmgr.a, linked
 * with --wrap=malloc… by test_exec_preempt.cmake) are counted from rtm_exec_start's
 * return to rtm_exec_stop's, and must be 0.
 *
 * Timing on a loaded 2-core machine: nothing asserts a wall-clock bound; where the long
 * job could not be caught running (the machine too slow to start it before the hard
 * job's release), the test says so and skips.
 *
 * On a GPU (the H100, RTM_PLATFORM=NVIDIA) the long job's blocks have one work-item each
 * (make_long), so that its CPU twin stays within seconds; there a launch's blocks all
 * run at once, so a checkpoint holds whole launches (session 78: 0 of 128 blocks, the
 * hard job coming every 120 ms into launches of 200 ms). The chunked and picture jobs
 * last about 1 ms there, are not caught running, and skip. */
#include <math.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/exec.h"
#include "rtmgr/stallprobe.h"
#include "stallcheck.h"

#define MS 1000000LL

#include "tests/alloc_wrap.h" /* the counting allocator (test_exec_preempt.cmake) */

#define NDEV 3 /* cpu, ocl0, ocl1 (the same PoCL device opened twice) */

static rtm_ocl_dev_t ocl[2];
/* The machine's stalls during the last run_exec (stallcheck.h), and its window. */
static rtm_stallprobe_t *probe;
static int64_t run_t0, run_t1;

/* One task: an instance per device (0: CPU twin, 1: ocl0, 2: ocl1) and the reference. */
typedef struct {
    rtm_task_cfg_t cfg;
    rtm_kinst_t inst[NDEV], ref;
    void *mem[NDEV + 1];
    void *init[NDEV][RTM_KBUF_MAX]; /* INOUT buffers as filled: every job starts there */
    rtm_kexec_t kx[NDEV];
} tk_t;

static void make_inst(tk_t *t, rtm_kinst_t *k, void **mem, const int64_t *size, uint32_t wg)
{
    rtm_kinst_init(k, t->cfg.kernel);
    for (uint32_t i = 0; i < t->cfg.kernel->n_keys; i++)
        if (size[i])
            k->size[i] = size[i];
    k->tune.wg = wg;
    assert_int_equal(rtm_kinst_plan(k), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(k);
    *mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    assert_int_equal(rtm_kinst_bind(k, *mem, bytes), bytes);
    k->kernel->fill(k, 7);
}

/* make_task's executors run in chunks of this many blocks (kexec.h), 0: whole launches */
static uint32_t chunk_next;

/* make_task leaves the reference unrun (the caller computes it from the picture its
 * job handed; a manoeuvre search's twin takes seconds under the sanitizers). */
static bool no_reference;

/* A task of `kernel` at `size` on the CPU and both OpenCL devices (executors counting
 * block executions, default flag transport: mapped on PoCL). */
static void make_task(tk_t *t, const char *name, const char *kernel, const int64_t *size,
                      uint32_t wg, int64_t period_ms, int64_t deadline_ms, int64_t offset_ms,
                      rtm_crit_t crit, rtm_place_t place, bool preemptible)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->cfg.name, sizeof(t->cfg.name), "%s", name);
    t->cfg.kernel = rtm_kernel_find(kernel);
    assert_non_null(t->cfg.kernel);
    t->cfg.period_ns = period_ms * MS;
    t->cfg.deadline_ns = deadline_ms * MS;
    t->cfg.offset_ns = offset_ms * MS;
    t->cfg.crit = crit;
    t->cfg.placement = place;
    t->cfg.preemptible = preemptible;
    for (int d = 0; d < NDEV; d++)
        make_inst(t, &t->inst[d], &t->mem[d], size, wg);
    make_inst(t, &t->ref, &t->mem[NDEV], size, wg);
    if (!no_reference)
        rtm_kinst_run_cpu(&t->ref);
    for (int d = 0; d < NDEV; d++) {
        const rtm_kinst_t *k = &t->inst[d];
        for (uint32_t b = 0; b < k->plan.n_bufs; b++) {
            if (k->plan.buf[b].dir != RTM_BUF_INOUT)
                continue;
            t->init[d][b] = malloc(k->plan.buf[b].bytes);
            memcpy(t->init[d][b], k->host[b], k->plan.buf[b].bytes);
        }
    }
    const rtm_kexec_opts_t o = {.count_blocks = true, .chunk = chunk_next,
                                .chunk_cpu = chunk_next != 0};
    for (int d = 1; d < NDEV; d++) {
        assert_int_equal(rtm_kexec_create_ex(&t->kx[d], &ocl[d - 1], &t->inst[d], &o), RTM_OK);
        assert_int_equal(rtm_kexec_warm(&t->kx[d]), RTM_OK);
    }
}

static void free_task(tk_t *t)
{
    for (int d = 0; d < NDEV; d++) {
        rtm_kexec_destroy(&t->kx[d]);
        for (uint32_t b = 0; b < RTM_KBUF_MAX; b++)
            free(t->init[d][b]);
    }
    for (int i = 0; i <= NDEV; i++)
        free(t->mem[i]);
}

/* predictions in ms per device; < 0: cannot run there */
static void fill_exec_task(rtm_exec_task_t *et, tk_t *t, const int64_t pred_ms[NDEV])
{
    memset(et, 0, sizeof(*et));
    et->cfg = &t->cfg;
    for (int d = 0; d < NDEV; d++) {
        et->predict_ns[d] = pred_ms[d] < 0 ? -1 : pred_ms[d] * MS;
        if (pred_ms[d] < 0)
            continue;
        et->inst[d] = &t->inst[d];
        et->kx[d] = d > 0 ? &t->kx[d] : NULL;
        for (uint32_t b = 0; b < RTM_KBUF_MAX; b++)
            et->inout_init[d][b] = t->init[d][b];
    }
}

static void devices(rtm_exec_dev_t d[NDEV])
{
    memset(d, 0, NDEV * sizeof(d[0]));
    snprintf(d[0].name, sizeof(d[0].name), "cpu");
    d[0].kind = RTM_DEV_CPU;
    for (int i = 1; i < NDEV; i++) {
        snprintf(d[i].name, sizeof(d[i].name), "ocl%d", i - 1);
        d[i].kind = RTM_DEV_GPU;
        d[i].ocl = &ocl[i - 1];
        d[i].can_abort = true;
        d[i].abort_ns = 1 * MS;
    }
}

#define RECS_MAX 256
static rtm_exec_rec_t recs[RECS_MAX];
static uint32_t n_recs;

static void sink(void *ctx, const rtm_exec_rec_t *r)
{
    (void)ctx;
    if (n_recs < RECS_MAX)
        recs[n_recs++] = *r;
}

static int setup(void **state)
{
    (void)state;
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    if (rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n) != RTM_OK || n == 0)
        return -1;
    for (int i = 0; i < 2; i++)
        if (rtm_ocl_open(&ocl[i], &infos[0]) != RTM_OK)
            return -1;
    /* the wrappers count (through a pointer: not optimised away) */
    void *(*volatile m)(size_t) = malloc;
    void (*volatile f)(void *) = free;
    atomic_store(&alloc_calls, 0);
    atomic_store(&alloc_counting, true);
    f(m(16));
    atomic_store(&alloc_counting, false);
    return atomic_load(&alloc_calls) == 2 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++)
        rtm_ocl_close(&ocl[i]);
    rtm_stallprobe_free(probe);
    probe = NULL;
    return 0;
}

#define SPIN_BLOCKS 128 /* the long spin job's: 64 blocks x 2 launches */

/* Sizes the long job (make_long) at `wg` work-items a block; false when its CPU twin
 * would run more than 30 s for one job. */
static bool size_long(tk_t *t, rtm_place_t place, double ms, uint32_t wg)
{
    const int64_t work0 = 1000; /* spin's work before it is sized */
    const int64_t size[4] = {64, work0, 1, 2};
    make_task(t, "long", "spin", size, wg, 10000, 5000, 0, RTM_CRIT_SOFT, place, true);
    double kernel_s = 0.0;
    for (int pass = 0; pass < 3; pass++) {
        rtm_kexec_timing_t tm;
        assert_int_equal(rtm_kexec_run(&t->kx[1], &tm), RTM_OK);
        kernel_s = tm.kernel_s;
        if (kernel_s > 0.7 * ms * 1e-3 && kernel_s < 1.4 * ms * 1e-3)
            break;
        double w = (double)t->inst[1].size[1] * ms * 1e-3 / (kernel_s > 1e-6 ? kernel_s : 1e-6);
        w = w < 1 ? 1 : w > 1e8 ? 1e8 : w;
        for (int d = 0; d < NDEV; d++)
            t->inst[d].size[1] = (int64_t)w;
        t->ref.size[1] = (int64_t)w;
    }
    /* the twin's time at the starting work, projected to the final */
    const int64_t w_final = t->ref.size[1];
    t->ref.size[1] = work0;
    const int64_t c0 = rtm_os_now_ns();
    rtm_kinst_run_cpu(&t->ref);
    const double cpu_s =
        (double)(rtm_os_now_ns() - c0) * 1e-9 * (double)w_final / (double)work0;
    t->ref.size[1] = w_final;
    if (cpu_s > 30.0) {
        printf("long: blocks of %u work-items: the CPU twin would run %.0f s for one job "
               "(the device is %.0f times faster)%s\n", wg, cpu_s, cpu_s / (ms * 1e-3),
               wg > 1 ? "" : ": skipped");
        return false;
    }
    /* the reference and the instances' starting state at the final size */
    t->ref.kernel->fill(&t->ref, 7);
    rtm_kinst_run_cpu(&t->ref);
    printf("long: spin work %lld, blocks of %u work-items, %.1f ms per uninterrupted run on "
           "ocl0\n", (long long)t->inst[1].size[1], wg, kernel_s * 1e3);
    return true;
}

/* The long job: spin, 64 blocks of 64 work-items, two launches (ping-pong), `work`
 * set so that one uninterrupted run on ocl0 lasts about `ms`. The CPU twin runs the
 * job's work-items one after another: on a device with thousands of lanes (the H100) a
 * 400 ms job of 4 096 work-items is minutes of reference and CPU resume, so there the
 * blocks have one work-item each (64 a launch, each as long as the 4 096 were); where
 * even that is too long for the twin, the test says so and skips. */
static void make_long(tk_t *t, rtm_place_t place, double ms)
{
    if (size_long(t, place, ms, 64))
        return;
    free_task(t);
    if (size_long(t, place, ms, 1))
        return;
    skip();
}

/* A tiny hard job that only runs on ocl0 (predicted `pred_ms` there). */
static void make_urgent(tk_t *t, int64_t period_ms, int64_t deadline_ms, int64_t offset_ms)
{
    const int64_t size[1] = {32};
    make_task(t, "urgent", "matrix_add", size, 64, period_ms, deadline_ms, offset_ms,
              RTM_CRIT_HARD, RTM_PLACE_GPU, false);
}

typedef struct {
    const rtm_exec_rec_t *lr;
    uint32_t urgent, urgent_done, urgent_preempt;
} seen_t;

static void scan(seen_t *s)
{
    memset(s, 0, sizeof(*s));
    for (uint32_t i = 0; i < n_recs; i++) {
        const rtm_exec_rec_t *r = &recs[i];
        if (r->task == 0) {
            s->lr = r;
            printf("long: %s on %s (first %d), preempted %u resumed %u, checkpoint %llu of %u "
                   "blocks, resume reason %s, exec %.1f ms (kernel %.1f) response %.1f ms\n",
                   rtm_exec_outcome_name(r->outcome), r->device == 0 ? "cpu" : r->device == 1 ? "ocl0" : "ocl1",
                   r->first_device, r->preemptions, r->resumes,
                   (unsigned long long)r->ckpt_blocks, r->blocks_total,
                   rtm_place_reason_name(r->resume_reason), (double)r->exec_ns / 1e6,
                   (double)r->kernel_ns / 1e6, (double)r->response_ns / 1e6);
            continue;
        }
        if (r->outcome == RTM_JOB_CANCELLED)
            continue;
        s->urgent++;
        s->urgent_done += r->outcome == RTM_JOB_MET || r->outcome == RTM_JOB_LATE;
        s->urgent_preempt += r->reason == RTM_REASON_PREEMPT;
        printf("urgent job %llu: %s, %s, response %.2f ms\n", (unsigned long long)r->job,
               rtm_exec_outcome_name(r->outcome), rtm_place_reason_name(r->reason),
               (double)r->response_ns / 1e6);
    }
}

static bool wait_abort; /* the next run_exec's rtm_exec_params_t.wait_abort */

/* Pictures for the traffic tasks (load_traffic kernels): every snapshot is a new one,
 * its seq counting, its targets placed by seq (on converging courses, within a few
 * nautical miles), so that two pictures give two different outputs. */
static atomic_uint pic_seq;
static uint32_t pic_targets; /* targets in each picture */
static bool with_pictures;   /* the next run_exec passes snapshot and result */

static void pic_snapshot(void *ctx, rtm_traffic_t *out)
{
    (void)ctx;
    const uint32_t s = atomic_fetch_add(&pic_seq, 1u) + 1u;
    out->seq = s;
    out->t_ns = (int64_t)s * MS;
    out->lat0 = 49.5;
    out->lon0 = -2.5;
    out->own_sog = 7.0f;
    out->own_cog = 0.3f;
    out->own_rot = 0.0f;
    out->n = pic_targets;
    for (uint32_t i = 0; i < pic_targets; i++) {
        const float a = 0.37f * (float)i + 0.011f * (float)s;
        const float d = 900.0f + 7.0f * (float)(i % 500) + 13.0f * (float)s;
        out->id[i] = 200000000u + i;
        out->x[i] = d * sinf(a);
        out->y[i] = d * cosf(a);
        out->sog[i] = 5.0f + 0.01f * (float)(i % 300);
        out->cog[i] = a + 3.14159265f; /* towards own ship */
        out->rot[i] = 0.0f;
    }
}

/* The picture handed with task 0's last completed job (static: no allocation while
 * the executive runs), and how many were handed. */
static rtm_traffic_t got_pic;
static uint32_t got_results;

static void pic_result(void *ctx, uint32_t task, const rtm_kinst_t *k, const rtm_traffic_t *snap)
{
    (void)ctx;
    (void)k;
    if (task != 0 || !snap)
        return;
    memcpy(&got_pic, snap, sizeof(got_pic));
    got_results++;
}

static rtm_exec_t *run_exec(rtm_exec_task_t *et, uint32_t n_tasks, rtm_pool_t *pool, int64_t run_ms)
{
    rtm_exec_dev_t d[NDEV];
    devices(d);
    rtm_exec_params_t p = {.policy = RTM_POLICY_MODEL, .rt = true, .start_delay_ns = 5 * MS,
                           .max_jobs = 16, .margin = 0.1, .sink = sink, .pool = pool,
                           .wait_abort = wait_abort};
    if (with_pictures) {
        p.input.snapshot = pic_snapshot;
        p.result = pic_result;
    }
    got_results = 0;
    rtm_exec_t *x = calloc(1, rtm_exec_size());
    n_recs = 0;
    assert_int_equal(rtm_exec_init(x, &p, d, NDEV, et, n_tasks), RTM_OK);
    rtm_stallprobe_free(probe);
    assert_int_equal(rtm_stallprobe_start(&probe), RTM_OK);
    run_t0 = rtm_os_now_ns();
    assert_int_equal(rtm_exec_start(x), RTM_OK);
    atomic_store(&alloc_calls, 0);
    atomic_store(&alloc_counting, true);
    rtm_os_sleep_until(rtm_os_now_ns() + run_ms * MS);
    rtm_exec_stop(x);
    atomic_store(&alloc_counting, false);
    run_t1 = rtm_os_now_ns();
    rtm_stallprobe_stop(probe);
    rtm_stallprobe_print(probe, "");
    printf("allocator calls of rtmgr's code between start and stop: %lu\n",
           atomic_load(&alloc_calls));
    assert_int_equal(atomic_load(&alloc_calls), 0);
    return x;
}

/* Skips the test (saying why) when the long job was not running when the hard job came.
 * The return after skip() is not reached (cmocka's skip() does not return); it tells
 * clang's analyser that s.lr is not NULL below. */
#define SKIP_UNLESS_PREEMPTED(s)                                                          \
    do {                                                                                  \
        if (!(s).lr || (s).urgent_preempt == 0) {                                         \
            printf("the long job was not running when the hard job came: machine too busy\n"); \
            skip();                                                                       \
            return;                                                                       \
        }                                                                                 \
    } while (0)

/* The long job's record and output; `blocks`: its blocks over all launches. */
static void check_long(const rtm_exec_rec_t *lr, const tk_t *t, uint32_t dev, const rtm_exec_t *x,
                       uint32_t blocks)
{
    assert_non_null(lr);
    if (!lr) /* not reached: cmocka's assert does not return (clang's analyser does not know) */
        return;
    assert_true(lr->outcome == RTM_JOB_MET || lr->outcome == RTM_JOB_LATE);
    assert_int_equal(lr->status, RTM_OK);
    assert_int_equal(lr->resumes, lr->preemptions);
    assert_int_equal(lr->first_device, 1);
    assert_int_equal(lr->device, (int32_t)dev);
    assert_int_equal(lr->blocks_total, blocks);
    assert_int_equal(lr->blocks_done, blocks);
    assert_true(lr->ckpt_blocks < blocks);
    assert_true(lr->kernel_ns > 0 && lr->exec_ns >= lr->kernel_ns);
    /* the output equals an uninterrupted run's: on the device it finished on, or, on the
     * CPU, in the host buffers of the instance it started from */
    const rtm_kinst_t *k = dev == 0 ? &t->inst[1] : &t->inst[dev];
    char why[160] = "";
    const size_t bad = k->kernel->compare(k, &t->ref, why, sizeof(why));
    if (bad)
        printf("mismatch: %s\n", why);
    assert_int_equal(bad, 0);
    static rtm_exec_stats_t st;
    rtm_exec_stats((rtm_exec_t *)x, &st);
    printf("stats: preemptions %llu, resumed cpu %llu ocl0 %llu ocl1 %llu, moved %llu, blocks "
           "re-run %llu\n",
           (unsigned long long)st.task[0].preemptions, (unsigned long long)st.task[0].resumed[0],
           (unsigned long long)st.task[0].resumed[1], (unsigned long long)st.task[0].resumed[2],
           (unsigned long long)st.task[0].moved, (unsigned long long)st.task[0].blocks_rerun);
    assert_int_equal(st.task[0].preemptions, lr->preemptions);
    assert_int_equal(st.task[0].blocks_rerun, 0);
    /* every preemption on the device read a checkpoint: the kernels' stop is known where
     * the carry onto the host clock errs by less than the stop (a carry that puts a
     * stopped kernel's end before the raise is not counted: PoCL's errs by a few us, so a
     * single preemption's may not be known), and it came before the dispatcher had
     * stopped the job and read that checkpoint */
    assert_true(st.task[0].stop.count <= lr->preemptions);
    assert_true(st.task[0].stop.max <= st.task[0].abort_max_ns + 1000000);
}

/* The urgent job's outputs on ocl0 equal the reference (it ran behind aborts). */
static void check_urgent(const tk_t *t)
{
    char why[160] = "";
    const size_t bad = t->inst[1].kernel->compare(&t->inst[1], &t->ref, why, sizeof(why));
    if (bad)
        printf("urgent mismatch: %s\n", why);
    assert_int_equal(bad, 0);
}

/* Preempted twice, resumed on the same device both times (the long job may only run on
 * ocl0, as the hard job). With `wait`, each hard job starts once the host saw the abort
 * end; else it is enqueued right behind the raise, every time. */
static void same_device_twice(bool wait)
{
    static tk_t t[2];
    make_long(&t[0], RTM_PLACE_GPU, 400.0);
    make_urgent(&t[1], 120, 40, 50);
    rtm_exec_task_t et[2];
    fill_exec_task(&et[0], &t[0], (const int64_t[NDEV]){-1, 800, -1});
    fill_exec_task(&et[1], &t[1], (const int64_t[NDEV]){-1, 1, -1});
    wait_abort = wait;
    rtm_exec_t *x = run_exec(et, 2, NULL, 2500);
    wait_abort = false;
    seen_t s;
    scan(&s);
    SKIP_UNLESS_PREEMPTED(s);
    check_long(s.lr, &t[0], 1, x, SPIN_BLOCKS);
    /* at 50 and 170 ms the job (predicted 800 ms, about 400 ms uninterrupted; longer
     * when the machine is loaded) still runs: aborted at least twice */
    assert_timing(probe, run_t0, run_t1, s.lr->preemptions >= 2);
    assert_int_equal(s.lr->resume_reason, RTM_REASON_ONLY_DEVICE);
    assert_true(s.urgent_done == s.urgent && s.urgent >= 2);
    check_urgent(&t[1]);
    static rtm_exec_stats_t st;
    rtm_exec_stats(x, &st);
    printf("next job behind the raise: %llu of %llu preemptions, mean %.1f us after it\n",
           (unsigned long long)st.task[0].behind, (unsigned long long)st.task[0].preemptions,
           st.task[0].behind ? (double)st.task[0].behind_sum_ns / (double)st.task[0].behind / 1e3
                             : 0.0);
    assert_int_equal(st.task[0].behind, wait ? 0 : st.task[0].preemptions);
    rtm_exec_destroy(x);
    free(x);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
}

/* A long job in chunks (kexec.h: launches of 512 blocks on two queues, released two
 * ahead): matrix_mul at n = 640 (6 400 blocks of 64 work-items) on ocl0, preempted by the
 * hard job and resumed there in chunks of its unfinished blocks. The executive paces it
 * (a chunked run has no end event until its last chunk is released: without the pacing
 * it would stop after two chunks and never finish); output equal to an uninterrupted
 * run's, no block run twice. */
static void test_resume_chunked(void **state)
{
    (void)state;
    static tk_t t[2];
    const int64_t size[1] = {640};
    chunk_next = 512;
    make_task(&t[0], "long", "matrix_mul", size, 64, 10000, 5000, 0, RTM_CRIT_SOFT,
              RTM_PLACE_GPU, true);
    chunk_next = 0;
    assert_true(rtm_kexec_chunked(&t[0].kx[1]));
    rtm_kexec_timing_t tm;
    assert_int_equal(rtm_kexec_run(&t[0].kx[1], &tm), RTM_OK);
    printf("long: matrix_mul n 640 in %u chunks of %u, %.1f ms per uninterrupted run on ocl0\n",
           t[0].kx[1].chunks_max, t[0].kx[1].chunk, tm.kernel_s * 1e3);
    t[0].inst[1].kernel->fill(&t[0].inst[1], 7);
    make_urgent(&t[1], 120, 40, 50);
    rtm_exec_task_t et[2];
    fill_exec_task(&et[0], &t[0], (const int64_t[NDEV]){-1, 800, -1});
    fill_exec_task(&et[1], &t[1], (const int64_t[NDEV]){-1, 1, -1});
    rtm_exec_t *x = run_exec(et, 2, NULL, 2500);
    seen_t s;
    scan(&s);
    SKIP_UNLESS_PREEMPTED(s);
    check_long(s.lr, &t[0], 1, x, t[0].inst[1].plan.blocks_max);
    assert_int_equal(s.lr->resume_reason, RTM_REASON_ONLY_DEVICE);
    assert_true(s.urgent_done == s.urgent && s.urgent >= 2);
    check_urgent(&t[1]);
    rtm_exec_destroy(x);
    free(x);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
}

static void test_resume_same_device_twice(void **state)
{
    (void)state;
    same_device_twice(false);
}

static void test_resume_same_device_wait(void **state)
{
    (void)state;
    same_device_twice(true);
}

/* Resumed through the CPU twin on the worker pool: the hard job on ocl0 is predicted
 * long (200 ms), so the unfinished blocks finish sooner on the idle CPU (700 ms for a
 * whole job there, vs 600 on ocl0: the long job first went to ocl0). */
static void test_resume_on_cpu(void **state)
{
    (void)state;
    static tk_t t[2];
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
    make_long(&t[0], RTM_PLACE_AUTO, 400.0);
    make_urgent(&t[1], 10000, 250, 50);
    rtm_exec_task_t et[2];
    fill_exec_task(&et[0], &t[0], (const int64_t[NDEV]){700, 600, -1});
    fill_exec_task(&et[1], &t[1], (const int64_t[NDEV]){-1, 200, -1});
    rtm_exec_t *x = run_exec(et, 2, &pool, 2500);
    seen_t s;
    scan(&s);
    SKIP_UNLESS_PREEMPTED(s);
    check_long(s.lr, &t[0], 0, x, SPIN_BLOCKS);
    assert_int_equal(s.lr->preemptions, 1);
    assert_int_equal(s.lr->resume_reason, RTM_REASON_MET_EARLIEST);
    assert_int_equal(s.urgent_done, 1);
    rtm_exec_destroy(x);
    free(x);
    rtm_pool_stop(&pool);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
}

/* Resumed on the second OpenCL device (its state read back and uploaded there). */
static void test_resume_other_device(void **state)
{
    (void)state;
    static tk_t t[2];
    make_long(&t[0], RTM_PLACE_GPU, 400.0);
    make_urgent(&t[1], 10000, 250, 50);
    rtm_exec_task_t et[2];
    fill_exec_task(&et[0], &t[0], (const int64_t[NDEV]){-1, 600, 650});
    fill_exec_task(&et[1], &t[1], (const int64_t[NDEV]){-1, 200, -1});
    rtm_exec_t *x = run_exec(et, 2, NULL, 2500);
    seen_t s;
    scan(&s);
    SKIP_UNLESS_PREEMPTED(s);
    check_long(s.lr, &t[0], 2, x, SPIN_BLOCKS);
    assert_int_equal(s.lr->preemptions, 1);
    assert_int_equal(s.urgent_done, 1);
    rtm_exec_destroy(x);
    free(x);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
}

/* A preempted traffic job resumed later hands its result with the picture its inputs
 * came from, not the device's latest: the long job is a manoeuvre search (preemptible),
 * the hard job a CPA/TCPA that loads a newer picture on ocl0 while the long job waits to
 * resume there (on_cpu false: ocl0 only) or resumes on the CPU pool (on_cpu: the hard
 * job predicted long, as in test_resume_on_cpu). The outputs equal the CPU twin's on
 * the picture handed. */
static void own_picture(bool on_cpu)
{
    static tk_t t[2];
    static rtm_pool_t pool;
    const int64_t msize[RTM_SIZE_KEYS_MAX] = {1024, 360};
    no_reference = true;
    make_task(&t[0], "long", "manoeuvre", msize, 64, 10000, 5000, 0, RTM_CRIT_SOFT, RTM_PLACE_GPU,
              true);
    /* about 400 ms uninterrupted on ocl0: the targets scaled once from a first run (the
     * time is linear in them) */
    rtm_kexec_timing_t tm;
    assert_int_equal(rtm_kexec_run(&t[0].kx[1], &tm), RTM_OK);
    const double want = 0.4, got = tm.kernel_s > 1e-6 ? tm.kernel_s : 1e-6;
    if (got < 0.7 * want || got > 1.4 * want) {
        double n = (double)t[0].inst[1].size[0] * want / got;
        n = n < 64 ? 64 : n > RTM_MAX_TARGETS ? RTM_MAX_TARGETS : n;
        const int64_t size[RTM_SIZE_KEYS_MAX] = {(int64_t)n / 64 * 64, 360};
        free_task(&t[0]);
        make_task(&t[0], "long", "manoeuvre", size, 64, 10000, 5000, 0, RTM_CRIT_SOFT,
                  RTM_PLACE_GPU, true);
    }
    no_reference = false;
    pic_targets = (uint32_t)t[0].inst[1].size[0];
    const int64_t csize[RTM_SIZE_KEYS_MAX] = {256};
    make_task(&t[1], "urgent", "cpa_tcpa", csize, 64, 120, 40, 50, RTM_CRIT_HARD, RTM_PLACE_GPU,
              false);
    rtm_exec_task_t et[2];
    if (on_cpu) {
        assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
        t[0].cfg.placement = t[1].cfg.placement = RTM_PLACE_AUTO;
        t[1].cfg.period_ns = 10000 * MS;
        t[1].cfg.deadline_ns = 250 * MS;
        fill_exec_task(&et[0], &t[0], (const int64_t[NDEV]){700, 600, -1});
        fill_exec_task(&et[1], &t[1], (const int64_t[NDEV]){-1, 200, -1});
    } else {
        fill_exec_task(&et[0], &t[0], (const int64_t[NDEV]){-1, 800, -1});
        fill_exec_task(&et[1], &t[1], (const int64_t[NDEV]){-1, 1, -1});
    }
    atomic_store(&pic_seq, 0u);
    with_pictures = true;
    rtm_exec_t *x = run_exec(et, 2, on_cpu ? &pool : NULL, 2500);
    with_pictures = false;
    seen_t s;
    scan(&s);
    SKIP_UNLESS_PREEMPTED(s);
    assert_true(s.lr->preemptions >= 1);
    assert_int_equal(got_results, 1);
    printf("long: handed picture %llu of %u loaded\n", (unsigned long long)got_pic.seq,
           atomic_load(&pic_seq));
    /* the reference: the CPU twin on the picture handed with the result */
    t[0].ref.kernel->load_traffic(&t[0].ref, &got_pic);
    rtm_kinst_run_cpu(&t[0].ref);
    check_long(s.lr, &t[0], on_cpu ? 0 : 1, x, (uint32_t)rtm_kinst_blocks(&t[0].inst[1]));
    rtm_exec_destroy(x);
    free(x);
    if (on_cpu)
        rtm_pool_stop(&pool);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
}

static void test_resume_hands_own_picture(void **state)
{
    (void)state;
    own_picture(false);
}

static void test_resume_on_cpu_hands_own_picture(void **state)
{
    (void)state;
    own_picture(true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_same_device_twice),
        cmocka_unit_test(test_resume_same_device_wait),
        cmocka_unit_test(test_resume_chunked),
        cmocka_unit_test(test_resume_on_cpu),
        cmocka_unit_test(test_resume_other_device),
        cmocka_unit_test(test_resume_hands_own_picture),
        cmocka_unit_test(test_resume_on_cpu_hands_own_picture),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
