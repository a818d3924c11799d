/* test_exec.c — the executive on real OpenCL (PoCL here): periodic tasks placed on the
 * CPU and the OpenCL device, one record per released job, results equal to the CPU
 * twin, firm jobs aborted at their deadline, and a preemption of a long GPU job by an
 * urgent one (issue 6 resumes: tests/integration/test_exec_preempt.c), the device wakes
 * ahead of releases (wake.h). The tight time
 * bounds allow what the machine itself stalled inside the job (stallprobe.h): on a
 * shared VM the hypervisor holds a CPU for tens of ms. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/exec.h"
#include "rtmgr/model.h"
#include "rtmgr/stallprobe.h"
#include "stallcheck.h"

#define MS 1000000LL

static rtm_ocl_dev_t ocl;

typedef struct {
    rtm_task_cfg_t cfg;
    rtm_kinst_t cpu, gpu, ref;
    void *mem[3];
    rtm_kexec_t kx;
} tk_t;

/* The executor options of the next make_task (NULL: rtm_kexec_create's defaults). */
static const rtm_kexec_opts_t *next_opts;

static void make_task(tk_t *t, const char *name, int64_t n, int64_t period_ms, int64_t deadline_ms,
                      int64_t offset_ms, rtm_crit_t crit, rtm_place_t place, bool preemptible)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->cfg.name, sizeof(t->cfg.name), "%s", name);
    t->cfg.kernel = rtm_kernel_find("matrix_add");
    t->cfg.period_ns = period_ms * MS;
    t->cfg.deadline_ns = deadline_ms * MS;
    t->cfg.offset_ns = offset_ms * MS;
    t->cfg.crit = crit;
    t->cfg.placement = place;
    t->cfg.preemptible = preemptible;
    rtm_kinst_t *k[3] = {&t->cpu, &t->gpu, &t->ref};
    for (int i = 0; i < 3; i++) {
        rtm_kinst_init(k[i], t->cfg.kernel);
        k[i]->size[0] = n;
        k[i]->tune = (rtm_tune_t){64, 1};
        assert_int_equal(rtm_kinst_plan(k[i]), RTM_OK);
        const size_t bytes = rtm_kinst_bytes(k[i]);
        t->mem[i] = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
        assert_int_equal(rtm_kinst_bind(k[i], t->mem[i], bytes), bytes);
        k[i]->kernel->fill(k[i], 42);
    }
    rtm_kinst_run_cpu(&t->ref);
    assert_int_equal(rtm_kexec_create_ex(&t->kx, &ocl, &t->gpu, next_opts), RTM_OK);
    next_opts = NULL;
    rtm_kexec_timing_t tm; /* warm-up: the first launch compiles for the device */
    assert_int_equal(rtm_kexec_run(&t->kx, &tm), RTM_OK);
    printf("%-10s warm-up on the device: %.2f ms\n", name, tm.wall_s * 1e3);
}

static void free_task(tk_t *t)
{
    rtm_kexec_destroy(&t->kx);
    for (int i = 0; i < 3; i++)
        free(t->mem[i]);
}

/* Records kept by the sink. */
#define RECS_MAX 4096
static rtm_exec_rec_t recs[RECS_MAX];
static uint32_t n_recs;

static void sink(void *ctx, const rtm_exec_rec_t *r)
{
    (void)ctx;
    if (n_recs < RECS_MAX)
        recs[n_recs++] = *r;
}

static void fill_exec_task(rtm_exec_task_t *et, tk_t *t, int64_t pred_cpu, int64_t pred_gpu)
{
    memset(et, 0, sizeof(*et));
    et->cfg = &t->cfg;
    et->inst[0] = &t->cpu;
    et->inst[1] = &t->gpu;
    et->kx[1] = &t->kx;
    et->predict_ns[0] = pred_cpu;
    et->predict_ns[1] = pred_gpu;
}


/* The device's result of t equals its CPU twin's. */
static void assert_twin_equal(tk_t *t)
{
    char why[160] = "";
    assert_int_equal(t->gpu.kernel->compare(&t->gpu, &t->ref, why, sizeof(why)), 0);
}

static void devices(rtm_exec_dev_t d[2])
{
    memset(d, 0, 2 * sizeof(d[0]));
    snprintf(d[0].name, sizeof(d[0].name), "cpu");
    d[0].kind = RTM_DEV_CPU;
    snprintf(d[1].name, sizeof(d[1].name), "ocl0");
    d[1].kind = RTM_DEV_GPU;
    d[1].ocl = &ocl;
    d[1].can_abort = true;
    d[1].abort_ns = 1 * MS;
}

static int setup(void **state)
{
    (void)state;
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    if (rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n) != RTM_OK || n == 0)
        return -1;
    return rtm_ocl_open(&ocl, &infos[0]) == RTM_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rtm_ocl_close(&ocl);
    return 0;
}

static void test_periodic_run(void **state)
{
    (void)state;
    static tk_t t[3];
    make_task(&t[0], "hard-auto", 96, 20, 20, 0, RTM_CRIT_HARD, RTM_PLACE_AUTO, true);
    make_task(&t[1], "firm-gpu", 128, 40, 30, 5, RTM_CRIT_FIRM, RTM_PLACE_GPU, true);
    make_task(&t[2], "soft-cpu", 64, 25, 25, 3, RTM_CRIT_SOFT, RTM_PLACE_CPU, false);
    rtm_exec_task_t et[3];
    fill_exec_task(&et[0], &t[0], 1 * MS, 2 * MS);
    fill_exec_task(&et[1], &t[1], 1 * MS, 2 * MS);
    fill_exec_task(&et[2], &t[2], 1 * MS, 2 * MS);
    rtm_exec_dev_t d[2];
    devices(d);
    rtm_exec_params_t p = {.policy = RTM_POLICY_MODEL, .rt = false, .start_delay_ns = 5 * MS,
                           .max_jobs = 64, .margin = 0.1, .adapt = 0.5, .sink = sink};
    rtm_exec_t *x = calloc(1, rtm_exec_size());
    n_recs = 0;
    rtm_stallprobe_t *probe = NULL;
    assert_int_equal(rtm_stallprobe_start(&probe), RTM_OK);
    assert_int_equal(rtm_exec_init(x, &p, d, 2, et, 3), RTM_OK);
    const int64_t t0 = rtm_os_now_ns();
    assert_int_equal(rtm_exec_start(x), RTM_OK);
    rtm_os_sleep_until(rtm_os_now_ns() + 1000 * MS);
    rtm_exec_stop(x);
    const int64_t t1 = rtm_os_now_ns();
    rtm_stallprobe_stop(probe);
    rtm_stallprobe_print(probe, "");
    static rtm_exec_stats_t st;
    rtm_exec_stats(x, &st);
    uint64_t released = 0;
    for (int i = 0; i < 3; i++) {
        const rtm_exec_task_stats_t *s = &st.task[i];
        released += s->released;
        printf("%-10s released %llu met %llu late %llu aborted %llu dropped %llu cancelled %llu "
               "cpu %llu ocl %llu worst resp %.2f ms\n",
               t[i].cfg.name, (unsigned long long)s->released, (unsigned long long)s->met,
               (unsigned long long)s->late, (unsigned long long)s->aborted,
               (unsigned long long)s->dropped, (unsigned long long)s->cancelled,
               (unsigned long long)s->placed[0], (unsigned long long)s->placed[1],
               (double)s->worst_resp_ns / 1e6);
        assert_int_equal(s->failed, 0);
        assert_int_equal(s->rejected, 0);
        assert_true(s->completed > 0);
        assert_int_equal(s->released, s->met + s->late + s->aborted + s->dropped + s->cancelled);
    }
    /* about 1 s of releases: 50 + 25 + 40 */
    assert_true(st.task[0].released <= 52 && st.task[2].released <= 42);
    assert_timing(probe, t0, t1, st.task[0].released >= 40 && st.task[2].released >= 32);
    assert_int_equal(st.task[1].placed[0], 0); /* gpu-only task never on the CPU */
    assert_int_equal(st.task[2].placed[1], 0); /* cpu-only task never on the device */
    assert_int_equal(n_recs, released);        /* one record per released job */
    /* the correction is the EWMA of measured/predicted over soft-cpu's whole, unpreempted
     * CPU jobs, in the order their records came */
    double corr = 1.0;
    for (uint32_t i = 0; i < n_recs; i++) {
        const rtm_exec_rec_t *r = &recs[i];
        if (r->task == 2 && r->device == 0 && r->exec_ns > 0 && r->predicted_ns > 0 &&
            r->preemptions == 0 && (r->outcome == RTM_JOB_MET || r->outcome == RTM_JOB_LATE))
            corr = rtm_model_correct(corr, p.adapt, (double)r->exec_ns, (double)r->predicted_ns);
    }
    assert_true(fabs(st.task[2].corr[0] - corr) <= 1e-12 * corr);
    /* the predictions (1-2 ms) are far above the measured times: the correction shrinks,
     * unless stalls of the machine stretched the measured times */
    assert_timing(probe, t0, t1, st.task[2].corr[0] < 0.5);
    rtm_stallprobe_free(probe);
    assert_true(st.task[1].corr[0] == 1.0); /* never ran on the CPU: untouched */
    printf("placement correction of soft-cpu on the CPU: %.3f\n", st.task[2].corr[0]);
    for (uint32_t i = 0; i < n_recs; i++) {
        const rtm_exec_rec_t *r = &recs[i];
        assert_true(r->task < 3);
        assert_int_equal(r->deadline_ns, r->release_ns + t[r->task].cfg.deadline_ns);
        if (r->ran) {
            assert_true(r->end_ns >= r->start_ns);
            assert_true(r->start_ns >= r->release_ns);
            assert_true(r->device == 0 || r->device == 1);
        }
        if (r->ran && r->device == 1 && r->outcome != RTM_JOB_ABORTED && r->kernel_ns <= 0)
            fail_msg("%s job %llu on the device: outcome %d, preemptions %u, first device %d, "
                     "kernel %lld ns, exec %lld ns", t[r->task].cfg.name,
                     (unsigned long long)r->job, (int)r->outcome, r->preemptions,
                     (int)r->first_device, (long long)r->kernel_ns, (long long)r->exec_ns);
    }
    printf("jitter p50 %lld us p99 %lld us max %lld us; decision median %lld ns\n",
           (long long)rtm_hist_quantile(&st.jitter, 0.5) / 1000,
           (long long)rtm_hist_quantile(&st.jitter, 0.99) / 1000, (long long)st.jitter.max / 1000,
           (long long)rtm_hist_quantile(&st.decide, 0.5));
    /* results equal the CPU twin (same deterministic inputs) */
    char why[128] = "";
    for (int i = 0; i < 3; i++) {
        if (st.task[i].placed[1])
            assert_int_equal(t[i].gpu.kernel->compare(&t[i].gpu, &t[i].ref, why, sizeof(why)), 0);
        if (st.task[i].placed[0])
            assert_int_equal(t[i].cpu.kernel->compare(&t[i].cpu, &t[i].ref, why, sizeof(why)), 0);
    }
    rtm_exec_destroy(x);
    free(x);
    for (int i = 0; i < 3; i++)
        free_task(&t[i]);
}

/* Fills of one buffer by rtmgr's code (tests/integration/test_exec.cmake wraps
 * clEnqueueFillBuffer in librtmgr.a; the fill itself is the real OpenCL call), and every
 * call of the kinds below. */
static cl_mem fill_watch;
static _Atomic uint32_t fill_count;
enum { C_FILL, C_WRITE, C_MARKER, C_USER, C_KINDS };
static _Atomic uint32_t calls[C_KINDS];
extern cl_int __real_clEnqueueFillBuffer(cl_command_queue q, cl_mem buf, const void *pattern,
                                         size_t pattern_size, size_t offset, size_t size,
                                         cl_uint n_wait, const cl_event *wait, cl_event *ev);
cl_int __wrap_clEnqueueFillBuffer(cl_command_queue q, cl_mem buf, const void *pattern,
                                  size_t pattern_size, size_t offset, size_t size, cl_uint n_wait,
                                  const cl_event *wait, cl_event *ev);
cl_int __wrap_clEnqueueFillBuffer(cl_command_queue q, cl_mem buf, const void *pattern,
                                  size_t pattern_size, size_t offset, size_t size, cl_uint n_wait,
                                  const cl_event *wait, cl_event *ev)
{
    if (buf && buf == fill_watch)
        atomic_fetch_add(&fill_count, 1);
    atomic_fetch_add(&calls[C_FILL], 1);
    return __real_clEnqueueFillBuffer(q, buf, pattern, pattern_size, offset, size, n_wait, wait,
                                      ev);
}

/* Every write, marker and user event of rtmgr's code, counted the same way. */
extern cl_int __real_clEnqueueWriteBuffer(cl_command_queue q, cl_mem buf, cl_bool blocking,
                                          size_t offset, size_t size, const void *ptr,
                                          cl_uint n_wait, const cl_event *wait, cl_event *ev);
cl_int __wrap_clEnqueueWriteBuffer(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t offset,
                                   size_t size, const void *ptr, cl_uint n_wait,
                                   const cl_event *wait, cl_event *ev);
cl_int __wrap_clEnqueueWriteBuffer(cl_command_queue q, cl_mem buf, cl_bool blocking, size_t offset,
                                   size_t size, const void *ptr, cl_uint n_wait,
                                   const cl_event *wait, cl_event *ev)
{
    atomic_fetch_add(&calls[C_WRITE], 1);
    return __real_clEnqueueWriteBuffer(q, buf, blocking, offset, size, ptr, n_wait, wait, ev);
}

extern cl_int __real_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n_wait,
                                                 const cl_event *wait, cl_event *ev);
cl_int __wrap_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n_wait, const cl_event *wait,
                                          cl_event *ev);
cl_int __wrap_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n_wait, const cl_event *wait,
                                          cl_event *ev)
{
    atomic_fetch_add(&calls[C_MARKER], 1);
    return __real_clEnqueueMarkerWithWaitList(q, n_wait, wait, ev);
}

extern cl_event __real_clCreateUserEvent(cl_context ctx, cl_int *err);
cl_event __wrap_clCreateUserEvent(cl_context ctx, cl_int *err);
cl_event __wrap_clCreateUserEvent(cl_context ctx, cl_int *err)
{
    atomic_fetch_add(&calls[C_USER], 1);
    return __real_clCreateUserEvent(ctx, err);
}

/* The executive's parameters of these tests: no real-time settings, 16 job slots, no
 * online correction, records to recs[]. */
static rtm_exec_params_t test_params(void)
{
    return (rtm_exec_params_t){.policy = RTM_POLICY_MODEL, .rt = false,
                               .start_delay_ns = 5 * MS, .max_jobs = 16, .margin = 0.1,
                               .adapt = 0.0, .sink = sink};
}

/* Starts the executive with p on the devices d (the CPU and the OpenCL device) and n
 * tasks; its records go to recs[], from none. */
static rtm_exec_t *exec_start(const rtm_exec_params_t *p, const rtm_exec_dev_t d[2],
                              const rtm_exec_task_t *et, uint32_t n)
{
    rtm_exec_t *x = calloc(1, rtm_exec_size());
    assert_non_null(x);
    n_recs = 0;
    assert_int_equal(rtm_exec_init(x, p, d, 2, et, n), RTM_OK);
    assert_int_equal(rtm_exec_start(x), RTM_OK);
    return x;
}

/* Starts the executive on one task over the CPU and the OpenCL device (test_params). */
static rtm_exec_t *exec_start_one(const rtm_exec_task_t *et, rtm_exec_input_t input)
{
    rtm_exec_dev_t d[2];
    devices(d);
    rtm_exec_params_t p = test_params();
    p.input = input;
    return exec_start(&p, d, et, 1);
}

/* Stops and frees an executive of exec_start (its records stay in recs[]); its final
 * statistics into *st when st is not NULL. */
static void exec_end(rtm_exec_t *x, rtm_exec_stats_t *st)
{
    rtm_exec_stop(x);
    if (st)
        rtm_exec_stats(x, st);
    rtm_exec_destroy(x);
    free(x);
}

/* Runs the executive (exec_start) for ms milliseconds, then exec_end. */
static void exec_run(const rtm_exec_params_t *p, const rtm_exec_dev_t d[2],
                     const rtm_exec_task_t *et, uint32_t n, int64_t ms, rtm_exec_stats_t *st)
{
    rtm_exec_t *x = exec_start(p, d, et, n);
    rtm_os_sleep_until(rtm_os_now_ns() + ms * MS);
    exec_end(x, st);
}

/* Two tasks run 300 ms under p on devices(), the device's wake `wake` (NULL: none): t[0]
 * hard, every 20 ms, only on the OpenCL device; t[1] of criticality cpu_crit, every 7 ms
 * from 3 ms, only on the CPU. The tasks stay in t. */
static void run_pair(tk_t t[2], rtm_crit_t cpu_crit, const rtm_exec_params_t *p, rtm_wake_t *wake,
                     rtm_exec_stats_t *st)
{
    make_task(&t[0], "hard-gpu", 64, 20, 20, 0, RTM_CRIT_HARD, RTM_PLACE_GPU, false);
    make_task(&t[1], "cpu-only", 64, 7, 7, 3, cpu_crit, RTM_PLACE_CPU, false);
    rtm_exec_task_t et[2];
    fill_exec_task(&et[0], &t[0], -1, 1 * MS);
    fill_exec_task(&et[1], &t[1], 1 * MS, -1);
    et[1].kx[1] = NULL;
    et[1].inst[1] = NULL;
    rtm_exec_dev_t d[2];
    devices(d);
    d[1].wake = wake;
    exec_run(p, d, et, 2, 300, st);
}

/* Runs one task (exec_start_one, no input) for 300 ms. */
static void exec_run_one(const rtm_exec_task_t *et)
{
    rtm_exec_t *x = exec_start_one(et, (rtm_exec_input_t){0});
    rtm_os_sleep_until(rtm_os_now_ns() + 300 * MS);
    exec_end(x, NULL);
}

/* A fresh job on the device clears its block control once: the executive wrote the
 * inputs with their clears, then started the preemptible job, which cleared again (two
 * fills of the completed-block array per job, each a command the device waits for:
 * 10-25 us apiece on the H100, in every job's time). The clears are one fill of the
 * buffer that holds the whole block control (session 27). */
static void test_one_clear_per_job(void **state)
{
    (void)state;
    static tk_t t;
    make_task(&t, "gpu-only", 64, 10, 10, 0, RTM_CRIT_SOFT, RTM_PLACE_GPU, true);
    rtm_exec_task_t et;
    fill_exec_task(&et, &t, 1 * MS, 1 * MS);
    fill_watch = t.kx.ctl;
    atomic_store(&fill_count, 0);
    exec_run_one(&et);
    fill_watch = NULL;
    uint32_t ran = 0;
    for (uint32_t i = 0; i < n_recs; i++)
        ran += recs[i].ran && recs[i].device == 1 && recs[i].preemptions == 0;
    printf("%u jobs on the device, %u fills of their block control\n", ran,
           atomic_load(&fill_count));
    assert_true(ran >= 5);
    assert_int_equal(atomic_load(&fill_count), ran);
    free_task(&t);
}

/* The commands a job costs on the device with the paper's flag transport (write): a
 * hard task that nothing aborts (opts.never_aborted, as the manager sets it) costs its
 * two input writes and nothing else before its kernel: no clear of its block control
 * (nothing reads its completed-block array; the fill was 29 us of the H100 host's time
 * a job, rtm_kexec_clears), no flag write, no user event and no marker (its run ends
 * on its output read); a preemptible one clears its block control (one fill) and holds
 * one armed flag write a job (a user event and a write), and its flag, never raised, is
 * never cleared. Every result equals the CPU twin's. */
static void test_commands_per_job(void **state)
{
    (void)state;
    for (int abortable = 0; abortable < 2; abortable++) {
        static tk_t t;
        const rtm_kexec_opts_t o = {.transport = RTM_ABORT_WRITE, .transport_set = true,
                                    .never_aborted = !abortable};
        next_opts = &o;
        make_task(&t, abortable ? "preemptible" : "hard", 64, 10, 10, 0,
                  abortable ? RTM_CRIT_SOFT : RTM_CRIT_HARD, RTM_PLACE_GPU, abortable != 0);
        assert_int_equal(rtm_exec_task_abortable(&t.cfg), abortable != 0);
        rtm_exec_task_t et;
        fill_exec_task(&et, &t, 1 * MS, 1 * MS);
        for (int c = 0; c < C_KINDS; c++)
            atomic_store(&calls[c], 0);
        exec_run_one(&et);
        uint32_t ran = 0;
        for (uint32_t i = 0; i < n_recs; i++) {
            ran += recs[i].ran && recs[i].device == 1;
            assert_int_equal(recs[i].preemptions, 0);
        }
        printf("%s: %u jobs on the device: %u fills, %u writes, %u markers, %u user events\n",
               t.cfg.name, ran, atomic_load(&calls[C_FILL]), atomic_load(&calls[C_WRITE]),
               atomic_load(&calls[C_MARKER]), atomic_load(&calls[C_USER]));
        assert_true(ran >= 5);
        assert_int_equal(atomic_load(&calls[C_FILL]), abortable ? ran : 0);
        assert_int_equal(atomic_load(&calls[C_WRITE]), (abortable ? 3 : 2) * ran);
        assert_int_equal(atomic_load(&calls[C_MARKER]), 0);
        assert_int_equal(atomic_load(&calls[C_USER]), abortable ? ran : 0);
        assert_twin_equal(&t);
        free_task(&t);
    }
}

/* Late output reads (read_late, forced here: on GPUs the large outputs of preemptible
 * jobs): the dispatcher polls the job from 3/4 of its prediction on and enqueues the
 * reads itself; every job completes with the CPU twin's results. */
static void test_late_reads(void **state)
{
    (void)state;
    static tk_t t;
    make_task(&t, "late-reads", 256, 20, 20, 0, RTM_CRIT_SOFT, RTM_PLACE_GPU, true);
    rtm_kexec_destroy(&t.kx);
    const rtm_kexec_opts_t o = {.read_late = 1};
    assert_int_equal(rtm_kexec_create_ex(&t.kx, &ocl, &t.gpu, &o), RTM_OK);
    assert_true(t.kx.read_late);
    rtm_exec_task_t et;
    fill_exec_task(&et, &t, 1 * MS, 1 * MS / 10); /* polling from 75 us */
    memset(t.gpu.host[2], 0, t.gpu.plan.buf[2].bytes);
    exec_run_one(&et);
    uint32_t done = 0;
    for (uint32_t i = 0; i < n_recs; i++) {
        const rtm_exec_rec_t *r = &recs[i];
        assert_int_not_equal(r->outcome, RTM_JOB_FAILED);
        done += r->ran && r->device == 1 && (r->outcome == RTM_JOB_MET || r->outcome == RTM_JOB_LATE);
    }
    printf("%u jobs with late reads completed of %u\n", done, n_recs);
    assert_true(done >= 5);
    char why[128] = "";
    assert_int_equal(t.gpu.kernel->compare(&t.gpu, &t.ref, why, sizeof(why)), 0);
    free_task(&t);
}

/* A task whose prediction follows the picture (slots, predict_empty_ns): each job is
 * predicted at the targets the input reports at its release, between the empty and the
 * full picture's predictions, and its record says at how many. */
static uint32_t n_targets;
static uint32_t targets_cb(void *ctx)
{
    (void)ctx;
    return n_targets;
}

static void test_live_prediction(void **state)
{
    (void)state;
    static tk_t t;
    make_task(&t, "live", 64, 10, 10, 0, RTM_CRIT_SOFT, RTM_PLACE_CPU, false);
    rtm_exec_task_t et;
    fill_exec_task(&et, &t, 2 * MS, 2 * MS);
    et.slots = 100;
    et.predict_empty_ns[0] = et.predict_empty_ns[1] = 1 * MS;
    n_targets = 25;
    rtm_stallprobe_t *probe = NULL;
    assert_int_equal(rtm_stallprobe_start(&probe), RTM_OK);
    const int64_t t0 = rtm_os_now_ns();
    rtm_exec_t *x = exec_start_one(&et, (rtm_exec_input_t){.targets = targets_cb});
    rtm_os_sleep_until(rtm_os_now_ns() + 100 * MS);
    n_targets = 500; /* more than the slots: the full picture */
    rtm_os_sleep_until(rtm_os_now_ns() + 100 * MS);
    exec_end(x, NULL);
    const int64_t t1 = rtm_os_now_ns();
    rtm_stallprobe_stop(probe);
    uint32_t at25 = 0, at100 = 0;
    for (uint32_t i = 0; i < n_recs; i++) {
        const rtm_exec_rec_t *r = &recs[i];
        if (!r->ran)
            continue;
        assert_true(r->live == 25 || r->live == 100);
        assert_int_equal(r->predicted_ns, r->live == 25 ? 1250000 : 2 * MS);
        at25 += r->live == 25;
        at100 += r->live == 100;
    }
    printf("%u jobs predicted at 25 of 100 slots, %u at all\n", at25, at100);
    /* the counts are the machine's to give (CI, session 19: a 2-core VM stalled 1.1 s of
     * the run and a window came out short); the predictions above are rtmgr's */
    const bool enough = at25 >= 3 && at100 >= 3;
    if (!enough)
        rtm_stallprobe_print(probe, "");
    free_task(&t);
    assert_timing(probe, t0, t1, enough);
    rtm_stallprobe_free(probe);
}

/* Met its deadline, or late by no more than the machine stalled inside the job. */
static bool on_time(const rtm_stallprobe_t *probe, const rtm_exec_rec_t *r)
{
    if (r->outcome == RTM_JOB_MET)
        return true;
    return r->outcome == RTM_JOB_LATE &&
           rtm_stallprobe_explains(probe, r->release_ns, r->end_ns, r->end_ns - r->deadline_ns);
}

/* A long preemptible GPU job (predicted 400 ms) and an urgent hard GPU job released
 * while it runs: placement must preempt, the urgent job meet its deadline, the long
 * job be resumed and complete. */
static void test_preemption(void **state)
{
    (void)state;
    static tk_t t[2];
    make_task(&t[0], "long", 2048, 2000, 2000, 0, RTM_CRIT_SOFT, RTM_PLACE_GPU, true);
    /* released 2 ms in: the long job's matrix_add of 2048 x 2048 took PoCL here 4.4 ms
     * once (CI, session 29), and an urgent job released at 5 ms found nothing to preempt */
    make_task(&t[1], "urgent", 32, 2000, 150, 2, RTM_CRIT_HARD, RTM_PLACE_GPU, false);
    rtm_exec_task_t et[2];
    fill_exec_task(&et[0], &t[0], -1, 400 * MS);
    fill_exec_task(&et[1], &t[1], -1, 1 * MS);
    rtm_exec_dev_t d[2];
    devices(d);
    rtm_exec_params_t p = {.policy = RTM_POLICY_MODEL, .rt = true, .start_delay_ns = 5 * MS,
                           .max_jobs = 8, .margin = 0.1,
                           .sink = sink};
    rtm_exec_t *x = calloc(1, rtm_exec_size());
    n_recs = 0;
    rtm_stallprobe_t *probe = NULL;
    assert_int_equal(rtm_stallprobe_start(&probe), RTM_OK);
    assert_int_equal(rtm_exec_init(x, &p, d, 2, et, 2), RTM_OK);
    assert_int_equal(rtm_exec_start(x), RTM_OK);
    rtm_os_sleep_until(rtm_os_now_ns() + 1500 * MS);
    rtm_exec_stop(x);
    rtm_stallprobe_stop(probe);
    rtm_stallprobe_print(probe, "");
    assert_int_equal(n_recs, 2);
    const rtm_exec_rec_t *lr = recs[0].task == 0 ? &recs[0] : &recs[1];
    const rtm_exec_rec_t *ur = recs[0].task == 1 ? &recs[0] : &recs[1];
    printf("urgent: %s reason %s response %.2f ms; long: %s preemptions %u exec %.2f ms "
           "response %.2f ms\n",
           rtm_exec_outcome_name(ur->outcome), rtm_place_reason_name(ur->reason),
           (double)ur->response_ns / 1e6, rtm_exec_outcome_name(lr->outcome), lr->preemptions,
           (double)lr->exec_ns / 1e6, (double)lr->response_ns / 1e6);
    if (ur->reason != RTM_REASON_PREEMPT && lr->start_ns > ur->release_ns) {
        /* the machine was too busy to start the long job within 5 ms */
        assert_true(on_time(probe, ur));
        rtm_stallprobe_free(probe);
        rtm_exec_destroy(x);
        free(x);
        for (int i = 0; i < 2; i++)
            free_task(&t[i]);
        skip();
        return; /* not reached: skip() does not return (clang's analyser does not know) */
    }
    assert_int_equal(ur->reason, RTM_REASON_PREEMPT);
    assert_true(on_time(probe, ur));
    rtm_stallprobe_free(probe);
    assert_true(lr->outcome == RTM_JOB_MET);
    /* whether the abort lands before the long kernel ends depends on the OpenCL runtime
     * running the flag write beside the kernel (seed 002); on PoCL it usually does */
    assert_true(lr->preemptions <= 1);
    char why[128] = "";
    assert_int_equal(t[0].gpu.kernel->compare(&t[0].gpu, &t[0].ref, why, sizeof(why)), 0);
    rtm_exec_destroy(x);
    free(x);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
}

/* A stand-in for the worker pool: one block at a time, 200 us each, stopping when the
 * abort flag is raised (as rtm_pool_run does). */
static bool slow_pool(void *ctx, const rtm_kinst_t *k, uint32_t launch, uint32_t blocks,
                      const volatile int *abort)
{
    (void)ctx;
    for (uint32_t b = 0; b < blocks; b++) {
        if (*abort)
            return false;
        k->kernel->cpu_block(k, launch, b);
        rtm_os_sleep_until(rtm_os_now_ns() + 200000);
    }
    return true;
}

/* A firm CPU job running in the pool past its deadline is aborted there by the
 * watchdog; a soft one completes late. */
static void test_cpu_watchdog(void **state)
{
    (void)state;
    static tk_t t[2];
    /* n = 64 with wg 64: 64 blocks, about 13 ms in slow_pool */
    make_task(&t[0], "firm-cpu", 64, 50, 4, 0, RTM_CRIT_FIRM, RTM_PLACE_CPU, true);
    make_task(&t[1], "soft-cpu", 64, 50, 4, 25, RTM_CRIT_SOFT, RTM_PLACE_CPU, true);
    rtm_exec_task_t et[2];
    fill_exec_task(&et[0], &t[0], 1 * MS, -1);
    fill_exec_task(&et[1], &t[1], 1 * MS, -1);
    rtm_exec_dev_t d[2];
    devices(d);
    /* SCHED_FIFO where permitted: under SCHED_OTHER on a loaded machine the watchdog may
     * be scheduled after the job ends */
    rtm_exec_params_t p = {.policy = RTM_POLICY_MODEL, .rt = true, .start_delay_ns = 5 * MS,
                           .max_jobs = 8, .margin = 0.1, .sink = sink, .cpu_run = slow_pool};
    rtm_exec_t *x = calloc(1, rtm_exec_size());
    n_recs = 0;
    rtm_stallprobe_t *probe = NULL;
    assert_int_equal(rtm_stallprobe_start(&probe), RTM_OK);
    assert_int_equal(rtm_exec_init(x, &p, d, 2, et, 2), RTM_OK);
    const int64_t t0 = rtm_os_now_ns();
    assert_int_equal(rtm_exec_start(x), RTM_OK);
    rtm_os_sleep_until(rtm_os_now_ns() + 220 * MS);
    rtm_exec_stop(x);
    const int64_t t1 = rtm_os_now_ns();
    rtm_stallprobe_stop(probe);
    uint32_t firm = 0, soft = 0;
    for (uint32_t i = 0; i < n_recs; i++) {
        const rtm_exec_rec_t *r = &recs[i];
        if (r->outcome == RTM_JOB_CANCELLED)
            continue;
        if (r->task == 0) {
            if (r->outcome == RTM_JOB_DROPPED)
                continue; /* the late soft job still held the CPU at its deadline */
            if (!rtm_exec_is_fifo(x) && r->outcome == RTM_JOB_LATE)
                continue; /* watchdog starved (no SCHED_FIFO here) */
            if (r->outcome != RTM_JOB_ABORTED)
                printf("firm job %llu: %s, reason %s, released %.2f ms after the start\n",
                       (unsigned long long)r->job, rtm_exec_outcome_name(r->outcome),
                       rtm_place_reason_name(r->reason), (double)(r->release_ns - t0) / 1e6);
            /* (rejected: its task's instance still ran the job before, stretched by stalls) */
            assert_timing(probe, t0, t1, r->outcome == RTM_JOB_ABORTED);
            firm++;
            /* stopped within a block or two of the deadline, or the machine stalled */
            const int64_t over = r->end_ns - r->deadline_ns;
            if (over >= 2 * MS)
                printf("firm job %llu stopped %.2f ms after its deadline; the machine stalled "
                       "%.2f ms in between\n", (unsigned long long)r->job, (double)over / 1e6,
                       (double)rtm_stallprobe_stalled(probe, r->deadline_ns, r->end_ns, NULL) / 1e6);
            /* (a stall explains the lateness it covers; around one that took most of the
             * window, the VM's recovery after it — sub-millisecond steal the probe does
             * not record — is the machine's too: CI saw 47.9 ms late beside a 43.9 ms
             * stall) */
            assert_timing(probe, r->deadline_ns, r->end_ns,
                          over < 2 * MS || rtm_stallprobe_explains(probe, r->deadline_ns,
                                                                   r->end_ns, over - 2 * MS));
        } else {
            soft++;
            /* (a machine that stalls for periods on end fills the job table: rejected) */
            assert_timing(probe, t0, t1, r->outcome == RTM_JOB_LATE);
            assert_true(r->exec_ns > 10 * MS);
        }
    }
    printf("watchdog: %u firm jobs aborted at their deadline, %u soft jobs completed late\n", firm, soft);
    rtm_stallprobe_print(probe, "");
    assert_timing(probe, t0, t1, firm >= 2 && soft >= 3);
    rtm_stallprobe_free(probe);
    rtm_exec_destroy(x);
    free(x);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
}

/* The device wake (wake.h; built here on PoCL's device, where the manager would not
 * build one): with a lead, every release of the task that may run on the device, found
 * idle, wakes it once; the releases of a task that may not run there never do, nor does
 * anything without a lead. Every job still equals its CPU twin. */
static void test_wakes(void **state)
{
    (void)state;
    rtm_wake_t w;
    assert_int_equal(rtm_wake_init(&w, &ocl), RTM_OK);
    for (int with = 1; with >= 0; with--) {
        static tk_t t[2];
        rtm_exec_params_t p = test_params();
        p.wake_lead_ns = with ? 2 * MS : 0;
        static rtm_exec_stats_t st;
        run_pair(t, RTM_CRIT_SOFT, &p, &w, &st);
        uint32_t ran = 0;
        for (uint32_t i = 0; i < n_recs; i++)
            ran += recs[i].ran && recs[i].device == 1;
        printf("lead %s: %u jobs on the device, %llu wakes; %llu releases of the task that may "
               "run there, %llu of the CPU-only task\n", with ? "2 ms" : "none", ran,
               (unsigned long long)st.dev_wakes[1], (unsigned long long)st.task[0].released,
               (unsigned long long)st.task[1].released);
        assert_true(ran >= 5);
        assert_true(st.task[1].released > st.task[0].released);
        assert_int_equal(st.dev_wakes[0], 0);
        if (with) { /* one a release of the GPU task (a job still running then: none) */
            assert_true(st.dev_wakes[1] >= 1);
            assert_true(st.dev_wakes[1] <= st.task[0].released);
        } else {
            assert_int_equal(st.dev_wakes[1], 0);
        }
        assert_twin_equal(&t[0]);
        for (int i = 0; i < 2; i++)
            free_task(&t[i]);
    }
    rtm_wake_destroy(&w);
}

/* A driver that never calls back (fault injection: no_callbacks): the dispatcher finds
 * every run's end by asking from 3/4 of its prediction on (ocl_wait), so every job still
 * completes, equal to its CPU twin, and the ends it found are counted (dev_asked). */
static void test_asked_ends(void **state)
{
    (void)state;
    static tk_t t[1];
    make_task(&t[0], "gpu-only", 64, 10, 10, 0, RTM_CRIT_SOFT, RTM_PLACE_GPU, false);
    rtm_exec_task_t et[1];
    fill_exec_task(&et[0], &t[0], -1, 1 * MS);
    rtm_exec_dev_t d[2];
    devices(d);
    rtm_exec_params_t p = test_params();
    p.no_callbacks = true;
    static rtm_exec_stats_t st;
    exec_run(&p, d, et, 1, 200, &st);
    uint32_t done = 0;
    for (uint32_t i = 0; i < n_recs; i++) {
        const rtm_exec_rec_t *r = &recs[i];
        if (r->outcome == RTM_JOB_CANCELLED)
            continue; /* released as the executive stopped */
        assert_int_equal(r->device, 1);
        assert_true(r->outcome == RTM_JOB_MET || r->outcome == RTM_JOB_LATE);
        done++;
    }
    printf("no callbacks: %u jobs completed on the device, %llu ends found by asking\n", done,
           (unsigned long long)st.dev_asked[1]);
    assert_true(done >= 5);
    /* (an end already there at the run's first look, right after its enqueue, is not counted) */
    assert_true(st.dev_asked[1] >= done / 2 && st.dev_asked[1] <= done);
    assert_twin_equal(&t[0]);
    free_task(&t[0]);
}

/* Idle dispatchers spin ahead of hard releases (spin_lead_ns): the device a hard task
 * may run on spins for its releases and is kicked while spinning (the job came, or a
 * kick before it); a soft task's releases bring no spin, nor does anything without a
 * lead. Jobs complete and equal the CPU twin either way. */
static void test_spin_ahead(void **state)
{
    (void)state;
    for (int with = 1; with >= 0; with--) {
        static tk_t t[2];
        rtm_exec_params_t p = test_params();
        p.spin_lead_ns = with ? 500000 : 0;
        static rtm_exec_stats_t st;
        run_pair(t, RTM_CRIT_SOFT, &p, NULL, &st);
        printf("spin lead %s: %llu hard releases; device spun %llu times (kicked %llu), CPU "
               "%llu\n", with ? "0.5 ms" : "none", (unsigned long long)st.task[0].released,
               (unsigned long long)st.dev_spins[1], (unsigned long long)st.dev_spin_kicks[1],
               (unsigned long long)st.dev_spins[0]);
        assert_true(st.task[0].completed >= 5 && st.task[1].completed >= 5);
        assert_int_equal(st.dev_spins[0], 0); /* only a soft task may run there */
        if (with) { /* at most one spin a release, one each after a job ended early */
            assert_true(st.dev_spins[1] >= 1 && st.dev_spin_kicks[1] >= 1);
            assert_true(st.dev_spin_kicks[1] <= st.dev_spins[1]);
            assert_true(st.dev_spins[1] <= 2 * st.task[0].released + 2);
        } else {
            assert_int_equal(st.dev_spins[1], 0);
        }
        assert_twin_equal(&t[0]);
        for (int i = 0; i < 2; i++)
            free_task(&t[i]);
    }
}

/* A firm task is spun for too (rtm_exec_task_spun_for), and the CPU dispatcher wakes the
 * pool's workers to spin with it (rtm_pool_warm): the firm task here may only run on the
 * CPU, so the CPU dispatcher spins and warms the pool, and every job still completes. */
static void test_spin_warms_pool(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
    static tk_t t[2];
    rtm_exec_params_t p = test_params();
    p.spin_lead_ns = 500000;
    p.pool = &pool;
    static rtm_exec_stats_t st;
    run_pair(t, RTM_CRIT_FIRM, &p, NULL, &st);
    assert_true(rtm_exec_task_spun_for(&t[1].cfg) && rtm_exec_task_spun_for(&t[0].cfg));
    printf("firm on the CPU: %llu releases; CPU spun %llu times (kicked %llu), pool warmed "
           "%llu times\n", (unsigned long long)st.task[1].released,
           (unsigned long long)st.dev_spins[0], (unsigned long long)st.dev_spin_kicks[0],
           (unsigned long long)pool.warms);
    assert_true(st.task[0].completed >= 5 && st.task[1].completed >= 5);
    assert_true(st.dev_spins[0] >= 1);
    assert_int_equal(pool.warms, st.dev_spins[0]); /* one warm-up per spin */
    assert_twin_equal(&t[0]);
    for (int i = 0; i < 2; i++)
        free_task(&t[i]);
    rtm_pool_stop(&pool);
}

/* A task's spin lead (rtm_exec_task_lead): the option's lead for a hard or firm task, at
 * most its period / RTM_SPIN_PERIOD_DIV (the pool's threads spin no more than 2.5 % of
 * their time ahead of one task); none for a soft task or without a lead. */
static void test_task_lead(void **state)
{
    (void)state;
    rtm_task_cfg_t c;
    memset(&c, 0, sizeof(c));
    c.crit = RTM_CRIT_FIRM;
    c.period_ns = 40 * MS;
    assert_int_equal(rtm_exec_task_lead(&c, 300000), 300000);
    assert_int_equal(rtm_exec_task_lead(&c, RTM_SPIN_LEAD_NS_DEFAULT), RTM_SPIN_LEAD_NS_DEFAULT);
    c.period_ns = 4 * MS; /* a 250 Hz camera: 100 us */
    assert_int_equal(rtm_exec_task_lead(&c, 300000), 4 * MS / RTM_SPIN_PERIOD_DIV);
    c.crit = RTM_CRIT_HARD;
    assert_int_equal(rtm_exec_task_lead(&c, 50000), 50000);
    assert_int_equal(rtm_exec_task_lead(&c, 0), 0);
    c.crit = RTM_CRIT_SOFT;
    assert_int_equal(rtm_exec_task_lead(&c, 300000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periodic_run),
        cmocka_unit_test(test_one_clear_per_job),
        cmocka_unit_test(test_commands_per_job),
        cmocka_unit_test(test_late_reads),
        cmocka_unit_test(test_live_prediction),
        cmocka_unit_test(test_preemption),
        cmocka_unit_test(test_cpu_watchdog),
        cmocka_unit_test(test_wakes),
        cmocka_unit_test(test_asked_ends),
        cmocka_unit_test(test_spin_ahead),
        cmocka_unit_test(test_spin_warms_pool),
        cmocka_unit_test(test_task_lead),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
