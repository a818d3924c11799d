/* test_kexec.c — a kernel instance on real OpenCL (PoCL here) agrees with its CPU twin,
 * and the completed-block array is all ones after an uninterrupted run; a launch of the
 * job's first blocks (no map: calibration's partial jobs) runs those alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kcheck.h"

/* matrix_add at n = 300 (wg 64, vec 4) twice from one seed (kcheck.h): gpu's inputs to
 * run on the device, cpu's already run by its twin. */
static void pair_make(kc_pair_t *p, uint64_t seed)
{
    kc_setup(p, "matrix_add", 64, 4, seed, (const char *const[]){"n", NULL},
             (const int64_t[]){300});
    rtm_kinst_run_cpu(&p->cpu);
}

/* grid_path at width x height in 16 passes (16 launches, wg 256) twice from one seed,
 * cpu's already run by its twin. */
static void grid_pair(kc_pair_t *p, uint64_t seed, int64_t width, int64_t height)
{
    kc_setup(p, "grid_path", 256, 1, seed, (const char *const[]){"width", "height", "passes", NULL},
             (const int64_t[]){width, height, 16});
    rtm_kinst_run_cpu(&p->cpu);
}

/* The completed-block array of launch 0 (blocks_max bytes) into done. */
static void read_done(rtm_kexec_t *x, const rtm_kinst_t *k, unsigned char *done, size_t len)
{
    assert_true(k->plan.blocks_max <= len);
    assert_int_equal(clEnqueueReadBuffer(x->dev->exec, x->done, CL_TRUE, 0, k->plan.blocks_max,
                                         done, 0, NULL, NULL),
                     CL_SUCCESS);
}

static void test_matrix_add_on_opencl(void **state)
{
    (void)state;
    kc_pair_t p;
    pair_make(&p, 11);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    char why[128] = "";
    assert_int_equal(p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)), 0);
    assert_true(t.kernel_s > 0.0);
    assert_true(t.wall_s >= t.kernel_s);
    /* the device's idle gaps before the kernel and before the output: each within the
     * span, and together no more than the span less the phases (calibration's
     * phase_gap, validation's gap columns) */
    assert_true(t.span_s > 0.0);
    assert_true(t.gap_kernel_s >= 0.0 && t.gap_out_s >= 0.0);
    assert_true(t.gap_kernel_s + t.gap_out_s <=
                t.span_s - t.in_s - t.kernel_s - t.out_s + 1e-6);

    unsigned char done[4096];
    read_done(&x, &p.gpu, done, sizeof(done));
    for (uint32_t b = 0; b < p.gpu.plan.blocks_max; b++)
        assert_int_equal(done[b], 1);
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

/* The leave counter (x->next's first word), read back. */
static cl_uint leave_count(rtm_kexec_t *x)
{
    cl_uint c = 99;
    assert_int_equal(clEnqueueReadBuffer(x->dev->exec, x->next, CL_TRUE, 0, sizeof(c), &c, 0, NULL,
                                         NULL),
                     CL_SUCCESS);
    return c;
}

/* The end mark, where the device has one (NVIDIA: cl_nv_create_buffer; run by hand on
 * the H100 machine): every launch's last group to leave writes its done offset + 1 and
 * puts the leave counter back to 0; a run clears it; a launch aborted before it started
 * (every group leaves at its entry check) still marks its end. matrix_add: one launch of
 * 352 blocks; grid_path: 16 launches. CPU devices (PoCL in CI) have none (kexec.c
 * end_mark_call): their runs leave the counter alone. */
static void test_end_mark(void **state)
{
    (void)state;
    kc_pair_t p;
    pair_make(&p, 13);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    const bool on_cpu = (kc_dev()->info.type & CL_DEVICE_TYPE_CPU) != 0;
    if (on_cpu)
        assert_false(rtm_kexec_end_mark(&x));
    assert_int_equal(leave_count(&x), 0);
    assert_false(rtm_kexec_end_seen(&x, 0));
    rtm_kexec_timing_t t;
    for (int run = 0; run < 2; run++) {
        assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
        assert_int_equal(leave_count(&x), 0);
        if (!rtm_kexec_end_mark(&x))
            continue;
        assert_true(rtm_kexec_end_seen(&x, 0));
        assert_int_equal(x.end_host[0], 1);
    }
    char why[128] = "";
    assert_int_equal(p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)), 0);
    if (!rtm_kexec_end_mark(&x)) {
        rtm_kexec_destroy(&x);
        kc_free(&p);
        return;
    }
    assert_int_equal(rtm_kexec_arm(&x), RTM_OK);
    assert_false(rtm_kexec_end_seen(&x, 0));
    assert_int_equal(rtm_abortflag_raise(&x.flag), RTM_OK);
    assert_int_equal(rtm_abortflag_settle(&x.flag), RTM_OK);
    assert_int_equal(rtm_kexec_enqueue(&x, 0, NULL, 0, NULL), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    assert_true(rtm_kexec_end_seen(&x, 0));
    assert_int_equal(leave_count(&x), 0);
    rtm_kexec_destroy(&x);
    kc_free(&p);

    grid_pair(&p, 9, 96, 80);
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    const uint32_t last = p.gpu.plan.launches - 1;
    assert_true(last > 0);
    assert_true(rtm_kexec_end_seen(&x, last));
    assert_int_equal(x.end_host[0], last * x.done_stride + 1);
    assert_int_equal(leave_count(&x), 0);
    assert_int_equal(p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)), 0);
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

static void test_first_blocks_unmapped(void **state)
{
    (void)state;
    kc_pair_t p;
    pair_make(&p, 12);
    uint32_t out = 0;
    for (uint32_t i = 0; i < p.gpu.plan.n_bufs; i++)
        if (p.gpu.plan.buf[i].dir == RTM_BUF_OUT)
            out = i;

    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    rtm_klaunch_t kl;
    p.gpu.kernel->launch(&p.gpu, 0, &kl);
    const uint32_t m = kl.blocks / 3; /* a block: wg * vec = 256 of the 90000 sums */
    assert_true(m > 0);
    assert_int_equal(rtm_kexec_enqueue(&x, 0, NULL, kl.blocks + 1, NULL), RTM_E_RANGE);
    assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
    cl_event ev = NULL;
    assert_int_equal(rtm_kexec_enqueue(&x, 0, NULL, m, &ev), RTM_OK);
    assert_int_equal(rtm_kexec_read_outputs(&x, NULL, NULL), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    assert_non_null(ev);
    clReleaseEvent(ev);

    unsigned char done[4096];
    read_done(&x, &p.gpu, done, sizeof(done));
    const float *g = p.gpu.host[out], *c = p.cpu.host[out];
    const size_t per = (size_t)p.gpu.tune.wg * p.gpu.tune.vec;
    for (uint32_t b = 0; b < kl.blocks; b++) {
        assert_int_equal(done[b], b < m ? 1 : 0);
        /* the first blocks' sums as the twin's (the others' are whatever the device
         * buffer held: no block ran there, as done[] says) */
        for (size_t e = b * per; b < m && e < (b + 1) * per && e < 300u * 300u; e += 37)
            assert_true(g[e] == c[e]);
    }
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

/* rtm_kexec_enqueue_all: two events for a multi-launch job (the first launch's, the
 * last's, in that order on the device), one for a one-launch job, and the results the
 * twin's (grid_path: 16 passes, each a launch). */
static void test_enqueue_all_events(void **state)
{
    (void)state;
    kc_pair_t p;
    grid_pair(&p, 9, 40, 40);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    assert_int_equal(x.launches, 16);
    assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
    cl_event first = NULL, last = NULL;
    assert_int_equal(rtm_kexec_enqueue_all(&x, 0, &first, &last), RTM_OK);
    assert_int_equal(rtm_kexec_read_outputs(&x, NULL, NULL), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    assert_non_null(first);
    assert_non_null(last);
    assert_true(first != last);
    cl_ulong s0 = 0, e1 = 0;
    assert_int_equal(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(s0), &s0, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(e1), &e1, NULL),
                     CL_SUCCESS);
    assert_true(e1 > s0);
    clReleaseEvent(first);
    clReleaseEvent(last);
    char why[256] = "";
    assert_int_equal(p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)), 0);
    rtm_kexec_destroy(&x);
    kc_free(&p);

    pair_make(&p, 13); /* matrix_add: one launch */
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
    assert_int_equal(rtm_kexec_enqueue_all(&x, 0, &first, &last), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    assert_non_null(first);
    assert_null(last);
    clReleaseEvent(first);
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

/* Every byte of buf is 0 (read back). */
static bool all_zero(cl_mem buf, size_t bytes)
{
    unsigned char *h = malloc(bytes);
    assert_non_null(h);
    assert_int_equal(clEnqueueReadBuffer(kc_dev()->exec, buf, CL_TRUE, 0, bytes, h, 0, NULL, NULL),
                     CL_SUCCESS);
    size_t nz = 0;
    for (size_t i = 0; i < bytes; i++)
        nz += h[i] != 0;
    free(h);
    return nz == 0;
}

/* A run's block-control clears are one command (session 27: a persistent job's fetch
 * counters and a counting build's counts were fills of their own, each costing the
 * H100's host 10-15 us to enqueue): a counting job of 16 launches, whose kernels see
 * the block control as parts of one buffer, gives the twin's results; then one fill
 * zeroes the completed-block array, the counts and the counters. */
static void test_clear_one_command(void **state)
{
    (void)state;
    kc_pair_t p;
    grid_pair(&p, 21, 40, 40);
    rtm_kexec_t x;
    const rtm_kexec_opts_t o = {.count_blocks = true, .persist_min_blocks = 1};
    assert_int_equal(rtm_kexec_create_ex(&x, kc_dev(), &p.gpu, &o), RTM_OK);
    const size_t ndone = (size_t)x.launches * x.done_stride;
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    char why[256] = "";
    assert_int_equal(p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)), 0);
    assert_false(all_zero(x.done, ndone));
    assert_false(all_zero(x.count, ndone * sizeof(cl_uint)));
    cl_event first = NULL, last = NULL;
    assert_int_equal(rtm_kexec_clear(&x, &first, &last), RTM_OK);
    assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
    assert_non_null(first);
    assert_ptr_equal(first, last); /* the sequence's first command is its last */
    clReleaseEvent(last);
    cl_command_type type = 0;
    assert_int_equal(clGetEventInfo(first, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL),
                     CL_SUCCESS);
    assert_int_equal(type, CL_COMMAND_FILL_BUFFER);
    clReleaseEvent(first);
    assert_true(all_zero(x.done, ndone));
    assert_true(all_zero(x.count, ndone * sizeof(cl_uint)));
    assert_true(all_zero(x.next, sizeof(cl_uint) + ndone / 16));
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

/* A run of a job that is never aborted (a task neither preemptible nor firm) leaves the
 * block control alone: nothing reads its completed-block array, and its clear was the
 * costliest call of the job's start (rtm_kexec_clears); its results are the twin's job
 * after job. An abortable job's run clears it. Seen through a value the kernel never
 * writes, in the completed-block array's padding past the launch's blocks. */
static void test_never_aborted_no_clear(void **state)
{
    (void)state;
    for (int never = 0; never < 2; never++) {
        kc_pair_t p;
        pair_make(&p, 31);
        rtm_kexec_t x;
        const rtm_kexec_opts_t o = {.never_aborted = never == 1};
        assert_int_equal(rtm_kexec_create_ex(&x, kc_dev(), &p.gpu, &o), RTM_OK);
        const uint32_t nb = (uint32_t)rtm_kinst_blocks(&p.gpu);
        assert_true(nb < x.done_stride); /* padding to look at */
        for (int run = 0; run < 2; run++) {
            const cl_uchar mark = 7;
            assert_int_equal(clEnqueueFillBuffer(kc_dev()->exec, x.done, &mark, 1, 0, x.done_stride,
                                                 0, NULL, NULL),
                             CL_SUCCESS);
            rtm_kexec_timing_t t;
            assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
            char why[256] = "";
            assert_int_equal(p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)), 0);
            unsigned char done[1024];
            assert_true(x.done_stride <= sizeof(done));
            assert_int_equal(clEnqueueReadBuffer(kc_dev()->exec, x.done, CL_TRUE, 0, x.done_stride,
                                                 done, 0, NULL, NULL),
                             CL_SUCCESS);
            for (uint32_t b = 0; b < nb; b++)
                assert_int_equal(done[b], 1);
            for (uint32_t b = nb; b < x.done_stride; b++)
                assert_int_equal(done[b], never ? mark : 0);
        }
        rtm_kexec_destroy(&x);
        kc_free(&p);
    }
}

/* rtm_kexec_clears_planned (rtmgr check, without a device) answers as the created
 * instance's rtm_kexec_clears, for a job never aborted or abortable on a plain grid, with
 * completion counts, in chunks (a whole number of PoCL's sub-buffer alignments) and on
 * persistent groups in order or by stride, and for a kernel without inputs; on a GPU-type
 * device, persistent groups from RTM_KEXEC_PERSIST_MIN_BLOCKS blocks clear unless they
 * take their blocks by stride. */
static void test_clears_planned_as_created(void **state)
{
    (void)state;
    kc_pair_t p;
    pair_make(&p, 5);
    const uint32_t nb = (uint32_t)rtm_kinst_blocks(&p.gpu);
    enum { PLAIN, COUNT, CHUNK, PERSIST, STRIDE, N_SHAPES };
    for (int never = 0; never < 2; never++)
        for (int shape = 0; shape < N_SHAPES; shape++) {
            rtm_kexec_opts_t o = {.never_aborted = never == 1};
            o.count_blocks = shape == COUNT;
            if (shape == CHUNK) {
                o.chunk = 128;
                o.chunk_cpu = true;
                assert_true(o.chunk < nb);
            }
            if (shape == PERSIST || shape == STRIDE)
                o.groups = 4;
            o.static_fetch = shape == STRIDE;
            rtm_kexec_t x;
            assert_int_equal(rtm_kexec_create_ex(&x, kc_dev(), &p.gpu, &o), RTM_OK);
            assert_int_equal(rtm_kexec_chunked(&x), shape == CHUNK);
            assert_int_equal(rtm_kexec_clears_planned(&o, &p.gpu, true), rtm_kexec_clears(&x));
            assert_int_equal(rtm_kexec_clears(&x), !never || shape == COUNT || shape == CHUNK ||
                                                        shape == PERSIST);
            rtm_kexec_destroy(&x);
        }
    /* a GPU's automatic groups: persistent (in order: clears) from the minimum up */
    const rtm_kexec_opts_t auto_o = {.never_aborted = true};
    rtm_kexec_opts_t few = auto_o;
    few.persist_min_blocks = nb + 1;
    assert_false(rtm_kexec_clears_planned(&few, &p.gpu, false));
    rtm_kexec_opts_t many = auto_o;
    many.persist_min_blocks = nb;
    assert_true(rtm_kexec_clears_planned(&many, &p.gpu, false));
    many.static_fetch = true;
    assert_false(rtm_kexec_clears_planned(&many, &p.gpu, false));
    kc_free(&p);
    /* no inputs: the fill gives the sequence its events */
    kc_pair_t e;
    kc_setup(&e, "empty", 64, 1, 1, (const char *const[]){"blocks", NULL}, (const int64_t[]){64});
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create_ex(&x, kc_dev(), &e.gpu, &auto_o), RTM_OK);
    assert_true(rtm_kexec_clears(&x));
    assert_true(rtm_kexec_clears_planned(&auto_o, &e.gpu, true));
    rtm_kexec_destroy(&x);
    kc_free(&e);
}

/* A launch sets only the arguments that changed since its entry point's last launch
 * (rtm_kexec_args_t): sort's passes (several entry points, a pass value each) and
 * grid_path's ping-pong give the twin's results job after job, and after a mapped
 * launch of one block the next job's unmapped launches run every block again
 * (matrix_add: one launch of many blocks). */
static void test_args_cached_across_jobs(void **state)
{
    (void)state;
    static const char *const name[] = {"sort", "grid_path", "matrix_add"};
    const char *const *const keys[] = {(const char *const[]){"n", NULL},
                                              (const char *const[]){"width", "height", "passes", NULL},
                                              (const char *const[]){"n", NULL}};
    const int64_t *const vals[] = {(const int64_t[]){20000}, (const int64_t[]){70, 50, 24},
                                          (const int64_t[]){300}};
    for (int kname = 0; kname < 3; kname++) {
        rtm_kexec_t x;
        kc_pair_t p;
        for (uint64_t seed = 1; seed <= 3; seed++) {
            kc_setup(&p, name[kname], kname == 2 ? 64 : 256, 1, seed, keys[kname], vals[kname]);
            rtm_kinst_run_cpu(&p.cpu);
            if (seed == 1) {
                assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
                assert_true(kname == 2 || x.launches > 2);
            } else {
                x.k = &p.gpu; /* the same plan, new host buffers */
            }
            if (seed == 2) { /* a partial job first: launch 0's first block, mapped */
                const uint32_t one = 0;
                assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
                assert_int_equal(rtm_kexec_enqueue(&x, 0, &one, 1, NULL), RTM_OK);
                assert_int_equal(clFinish(kc_dev()->exec), CL_SUCCESS);
            }
            rtm_kexec_timing_t t;
            assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
            char why[256] = "";
            if (p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)) != 0)
                fail_msg("%s seed %llu: %s", name[kname], (unsigned long long)seed, why);
            if (seed < 3)
                kc_free(&p);
        }
        rtm_kexec_destroy(&x);
        kc_free(&p);
    }
}

/* A GPU and a CPU device as the defaults below see them (they read the type alone). */
static const rtm_ocl_info_t gpu = {.type = CL_DEVICE_TYPE_GPU}, cpu = {.type = CL_DEVICE_TYPE_CPU};

/* The flag copies a job's kernels read by default: one on CPU devices; on GPUs
 * RTM_KEXEC_FLAG_COPIES_GPU, as the benchmark's production column measures them (the
 * executive once ran GPU jobs with one copy: on the H100 every work-item's in-loop poll
 * then queued at one memory slice, +35-49 % on the matrix kernels against -8-9 %). A
 * job created without options resolves to that count. */
static void test_default_flag_copies(void **state)
{
    (void)state;
    assert_int_equal(rtm_kexec_default_copies(&cpu, NULL), 1);
    assert_int_equal(rtm_kexec_default_copies(&gpu, NULL), RTM_KEXEC_FLAG_COPIES_GPU);
    /* grid_path polls from one work-item between barriers: one word serves it */
    assert_int_equal(rtm_kexec_default_copies(&gpu, rtm_kernel_find("grid_path")), 1);
    assert_int_equal(rtm_kexec_default_copies(&gpu, rtm_kernel_find("matrix_mul")),
                     RTM_KEXEC_FLAG_COPIES_GPU);
    assert_true(RTM_KEXEC_FLAG_COPIES_GPU > 1 &&
                RTM_KEXEC_FLAG_COPIES_GPU <= RTM_ABORTFLAG_COPIES_MAX);
    kc_pair_t p;
    pair_make(&p, 5);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, kc_dev(), &p.gpu), RTM_OK);
    assert_int_equal(x.opts.flag_copies, rtm_kexec_default_copies(&kc_dev()->info, p.gpu.kernel));
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

/* Auto output reads of a GPU job's large outputs: late (after its last kernel) when they
 * go to pageable memory (whose read a driver may block in the enqueue until the copy is
 * done); beside (at once, on the side queue behind the last kernel) for a preemptible
 * job into pinned memory (an abort, and the job begun behind it, would wait for reads
 * queued behind the kernel on exec: 311 us against 112 us per preemption on the H100,
 * session 16; late, each job waited for the host's notice of its kernel's end, 60 us to
 * 10 ms on the H100); else (pinned, not preemptible) right behind the kernels on exec. */
static void test_default_read_late(void **state)
{
    (void)state;
    const size_t big = RTM_KEXEC_EAGER_READ_MAX + 1, small = RTM_KEXEC_EAGER_READ_MAX;
    assert_true(rtm_kexec_default_read_late(&gpu, big, false));
    assert_false(rtm_kexec_default_read_late(&gpu, big, true));
    assert_false(rtm_kexec_default_read_late(&gpu, small, false));
    assert_false(rtm_kexec_default_read_late(&cpu, big, false));
    assert_true(rtm_kexec_default_read_beside(&gpu, big, true, true));
    assert_false(rtm_kexec_default_read_beside(&gpu, big, true, false));
    assert_false(rtm_kexec_default_read_beside(&gpu, big, false, true));
    assert_false(rtm_kexec_default_read_beside(&gpu, small, true, true));
    assert_false(rtm_kexec_default_read_beside(&cpu, big, true, true));
    kc_pair_t p;
    pair_make(&p, 5);
    rtm_kexec_t x;
    const rtm_kexec_opts_t o = {.host_pinned = true};
    assert_int_equal(rtm_kexec_create_ex(&x, kc_dev(), &p.gpu, &o), RTM_OK);
    assert_false(x.read_late);
    assert_false(x.read_beside);
    rtm_kexec_destroy(&x);
    kc_free(&p);
}

/* The commands a job costs (session 22): the WRITE flag is cleared only after a raise
 * (a flag nobody raised still holds 0), and a kexec whose jobs are never aborted holds no
 * armed write per run; its flag still raises (pinned write) and clears when asked. Each
 * job's result stays right across raises and clears. */
static void test_flag_commands(void **state)
{
    (void)state;
    for (int never = 0; never < 2; never++) {
        kc_pair_t p;
        pair_make(&p, 13);
        const rtm_kexec_opts_t o = {.transport = RTM_ABORT_WRITE, .transport_set = true,
                                    .never_aborted = never != 0};
        rtm_kexec_t x;
        assert_int_equal(rtm_kexec_create_ex(&x, kc_dev(), &p.gpu, &o), RTM_OK);
        assert_int_equal(x.flag.raise_mode, never ? RTM_RAISE_PINNED : RTM_RAISE_ARMED);
        assert_false(x.flag.up);
        for (int round = 0; round < 3; round++) {
            rtm_kexec_timing_t t;
            assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
            assert_false(x.flag.up); /* nobody raised: nothing to clear next time */
            if (never)
                assert_null(x.flag.arm_gate);
            else
                assert_non_null(x.flag.arm_gate); /* held for this run's raise */
            char why[128] = "";
            assert_int_equal(p.gpu.kernel->compare(&p.gpu, &p.cpu, why, sizeof(why)), 0);
            /* a raise lands (every copy), the next job's clear lowers it before its
             * kernels: the next run completes in full */
            assert_int_equal(rtm_abortflag_raise(&x.flag), RTM_OK);
            assert_true(x.flag.up);
            assert_int_equal(rtm_abortflag_settle(&x.flag), RTM_OK);
            int v = -1;
            assert_int_equal(rtm_abortflag_read(&x.flag, &v), RTM_OK);
            assert_int_equal(v, 1);
        }
        cl_event first = NULL, last = NULL;
        assert_int_equal(rtm_kexec_write_inputs(&x, &first, &last), RTM_OK);
        assert_false(x.flag.up);
        assert_non_null(first); /* the clear's fill, then the input writes' last */
        assert_non_null(last);
        assert_true(first != last);
        assert_int_equal(clWaitForEvents(1, &last), CL_SUCCESS);
        int v = -1;
        assert_int_equal(rtm_abortflag_read(&x.flag, &v), RTM_OK);
        assert_int_equal(v, 0);
        clReleaseEvent(first);
        clReleaseEvent(last);
        rtm_kexec_destroy(&x);
        kc_free(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_add_on_opencl),
        cmocka_unit_test(test_first_blocks_unmapped),
        cmocka_unit_test(test_end_mark),
        cmocka_unit_test(test_enqueue_all_events),
        cmocka_unit_test(test_clear_one_command),
        cmocka_unit_test(test_never_aborted_no_clear),
        cmocka_unit_test(test_clears_planned_as_created),
        cmocka_unit_test(test_args_cached_across_jobs),
        cmocka_unit_test(test_default_flag_copies),
        cmocka_unit_test(test_default_read_late),
        cmocka_unit_test(test_flag_commands),
    };
    return cmocka_run_group_tests(tests, NULL, kc_teardown);
}
