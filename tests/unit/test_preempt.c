/* test_preempt.c — the preemption module on real OpenCL (PoCL here): both flag
 * transports; warm-up; abort before start, right after start and after completion;
 * CPU resumes stopped between blocks; grid splitting; resume on the worker pool; the GPU
 * build's latency hiding; repeated preemption of one job; resume on another executor;
 * the transport measurement; the rules of kernels/rtm_block.h in every .cl file. Every
 * kernel of the catalogue is aborted and resumed in
 * tests/integration/test_preempt_kernels.c. */
#include <math.h>

#include "tests/preempt_fixture.h"



/* The GPU build's latency hiding (RTM_HIDE_LATENCY=1: look-ahead in registers, two-phase
 * polled strips, in-order fetch; and long blocks' fetched ids stored at once,
 * RTM_FETCH_STORE) on a kernel without barrier loops, which PoCL compiles correctly:
 * aborts stop it early, resumes complete it, every block exactly once. */
static void test_gpu_path_on_spin(void **state)
{
    (void)state;
    const uint32_t ks[] = {3, 64, 3, 64};
    for (int v = 0; v < 4; v++) {
        const rtm_kexec_opts_t o = {.hide_latency = 1, .groups = 3, .poll_every = ks[v],
                                    .fetch_store = v >= 2};
        fixture_t f;
        fixture_open(&f, rtm_kernel_find("spin"), 6000, &o, 0);
        char text[1024];
        rtm_kexec_program_options(f.x.dev, &f.k, &o, text, sizeof(text));
        assert_int_equal(strstr(text, "-DRTM_FETCH_STORE=1") != NULL, v >= 2);
        /* the polls' GPU-scope load is PTX: NVIDIA devices of compute capability 7.0 and
         * up only (run on the H100 by bench preempt and calibration) */
        assert_int_equal(strstr(text, "-DRTM_POLL_LD=1") != NULL,
                         f.x.dev->info.nv_cc_major >= 7);
        /* the CPU device's own way (no latency hiding): the switch does not act, the
         * build and its cache key are the usual ones */
        rtm_kexec_opts_t cpu = o;
        cpu.hide_latency = -1;
        rtm_kexec_program_options(f.x.dev, &f.k, &cpu, text, sizeof(text));
        assert_null(strstr(text, "RTM_FETCH_STORE"));
        const double t = run_whole(&f);
        uint32_t stopped = 0, known = 0;
        for (int p = 1; p <= 4; p++) {
            rtm_preempt_stop_t s;
            start_and_abort(&f, t * p / 5, false, false, &s);
            assert_consistent(&f.job);
            stopped += !s.finished;
            if (!s.finished) {
                assert_true(s.response_s < t / 2);
                /* the breakdown: the flag had landed when the host saw the kernel end */
                assert_true(s.raise_call_s >= 0.0 && s.raise_call_s <= s.response_s);
                assert_true(s.landed_s >= 0.0);
                /* the kernel's own stop on the host clock (what the executive reports):
                 * after the raise, since the raise stopped it, and not after the host saw
                 * it end (its carry through the read's queued stamp errs early, if at all;
                 * 1 ms for clock domains); where the carry errs by more than the stop
                 * (PoCL by a few us, NVIDIA's driver by tens for kernels of 10 ms or
                 * more) it is not known: -1, never a false 0 */
                if (s.stop_s >= 0.0)
                    assert_true(s.stop_s > 0.0 && s.stop_s <= s.event_s + 1e-3);
                else
                    assert_true(s.stop_s == -1.0);
                known += s.stop_s > 0.0;
                assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
                assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
            }
            assert_same_result(&f);
            assert_once(&f.job);
        }
        assert_true(stopped > 0);
        /* the carry works on CPU devices: at least one of the stops is known */
        if (f.x.dev->info.type & CL_DEVICE_TYPE_CPU)
            assert_true(known > 0);
        fixture_close(&f);
    }
}

/* The GPU build's full strips (RTM_POLL_LOOP with RTM_HIDE_LATENCY=1: strips of exactly
 * RTM_POLL_EVERY steps, then a tail loop) in the three seed-000 loop kernels, at a size
 * whose loop is not a multiple of the period (n = 7 x 40 = 280 = 17 x 16 + 8), on a plain
 * grid and on persistent groups that store their fetched ids at once (the executive's
 * long blocks, RTM_FETCH_STORE): aborts stop them, resumes complete them with the
 * uninterrupted result, every block exactly once. */
static void test_gpu_full_strips(void **state)
{
    (void)state;
    const char *names[] = {"matrix_mov", "matrix_loop_add", "matrix_mul"};
    for (int n = 0; n < 6; n++) { /* then on 3 persistent groups that store their ids */
        const rtm_kexec_opts_t o = {.hide_latency = 1, .poll_every = 16,
                                    .groups = n < 3 ? 0 : 3, .fetch_store = n >= 3};
        fixture_t f;
        fixture_open_ex(&f, rtm_kernel_find(names[n % 3]), 0, &o, 0, 7, true);
        assert_int_equal(f.k.size[0], 280);
        const double t = run_whole(&f);
        uint32_t stopped = 0;
        for (int p = 1; p <= 4; p++) {
            rtm_preempt_stop_t s;
            start_and_abort(&f, t * p / 5, true, false, &s);
            assert_consistent(&f.job);
            stopped += !s.finished;
            if (!s.finished) {
                assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
                assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
            }
            assert_same_result(&f);
            assert_once(&f.job);
        }
        print_message("%s: %u of 4 aborts stopped the job (whole run %.1f ms)\n", names[n % 3],
                      stopped, t * 1e3);
        fixture_close(&f);
    }
}

/* Chunks (kexec.h: a plain grid cut into launches of `chunk` blocks on the exec and exec2
 * queues, released two ahead as the job is polled) of the three seed-000 loop kernels
 * and matrix_add: the build is the plain grid's; a whole job and kexec's own run (every
 * chunk released before it returns) give the uninterrupted result; aborts at many points
 * (the job paced by rtm_preempt_sleep_until_s) and right after the start (two chunks
 * released) stop it with a consistent checkpoint; resumes run the unfinished blocks in
 * chunks of the resume map, on the device (twice for one job) and on the CPU; every block
 * completes exactly once. */
static void test_chunks(void **state)
{
    (void)state;
    const char *names[] = {"matrix_mul", "matrix_mov", "matrix_loop_add", "matrix_add"};
    for (int n = 0; n < 4; n++) {
        const rtm_kexec_opts_t o = {.hide_latency = 1, .poll_every = 16, .chunk = 64,
                                    .chunk_cpu = true, .groups = 3};
        fixture_t f;
        fixture_open_ex(&f, rtm_kernel_find(names[n]), 0, &o, 0, 7, true);
        assert_true(rtm_kexec_chunked(&f.x));
        assert_int_equal(f.x.chunk % 64, 0);
        assert_true(f.x.chunks_max >= 4);
        assert_int_equal(f.x.opts.groups, RTM_KEXEC_GROUPS_ALL); /* a plain grid's build */
        assert_false(f.x.persist);
        char text[1024];
        rtm_kexec_program_options(f.x.dev, &f.k, &o, text, sizeof(text));
        assert_non_null(strstr(text, "-DRTM_PERSIST=0"));
        /* chunks act on GPUs, on a CPU device only where asked, and never for the
         * original build */
        const bool cpu = (dev.info.type & CL_DEVICE_TYPE_CPU) != 0;
        rtm_kexec_opts_t off = o;
        off.chunk_cpu = false;
        off.count_blocks = true;
        rtm_kexec_t x2;
        assert_int_equal(rtm_kexec_create_ex(&x2, &dev, &f.k, &off), RTM_OK);
        assert_int_equal(rtm_kexec_chunked(&x2), !cpu);
        rtm_kexec_destroy(&x2);
        off.variant = RTM_KEXEC_ORIGINAL;
        assert_int_equal(rtm_kexec_create_ex(&x2, &dev, &f.k, &off), RTM_OK);
        assert_false(rtm_kexec_chunked(&x2));
        rtm_kexec_destroy(&x2);
        const double t = run_whole(&f);
        assert_true(f.job.chunked);
        assert_true(f.job.run_kernel_s > 0.0);
        /* kexec's own whole run (calibration's): every chunk, outputs read behind both */
        memset(f.k.host[f.k.plan.n_bufs - 1], 0, f.k.plan.buf[f.k.plan.n_bufs - 1].bytes);
        rtm_kexec_timing_t kt;
        assert_int_equal(rtm_kexec_run(&f.x, &kt), RTM_OK);
        assert_true(kt.kernel_s > 0.0);
        assert_same_result(&f);
        uint32_t stopped = 0;
        for (int p = 0; p <= 5; p++) {
            fixture_reset(&f);
            const double t0 = now_s();
            assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
            assert_true(f.x.ck.rel >= 2 && f.x.ck.rel <= f.x.ck.ended + 2); /* two ahead */
            assert_true(rtm_preempt_pacing(&f.job));
            /* p 0: at once; then spread over the run, the job paced on the way */
            assert_int_equal(rtm_preempt_sleep_until_s(&f.job, t0 + t * p / 6, 0.0), RTM_OK);
            rtm_preempt_stop_t s;
            assert_int_equal(rtm_preempt_abort(&f.job, p == 5, &s), RTM_OK);
            assert_consistent(&f.job);
            assert_false(rtm_preempt_pacing(&f.job));
            stopped += !s.finished;
            if (!s.finished && p % 2 == 0) { /* twice on the device */
                const uint32_t left = rtm_preempt_remaining(&f.job, 0, NULL, 0);
                assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
                assert_true(f.job.chunked && f.x.ck.mapped);
                assert_int_equal(f.x.ck.nblk, left);
                assert_int_equal(rtm_preempt_sleep_until_s(&f.job, now_s() + t / 8, 0.0),
                                 RTM_OK);
                assert_int_equal(rtm_preempt_abort(&f.job, false, &s), RTM_OK);
                assert_consistent(&f.job);
                if (!s.finished)
                    assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
                if (f.job.state == RTM_PREEMPT_RUNNING)
                    assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
            } else if (!s.finished) { /* on the CPU */
                assert_int_equal(rtm_preempt_resume_cpu(&f.job), RTM_OK);
            }
            assert_same_result(&f);
            assert_once(&f.job);
        }
        print_message("%s: %u blocks in chunks of %u, %u of 6 aborts stopped the job (whole "
                      "run %.1f ms)\n",
                      names[n], f.k.plan.blocks_max, f.x.chunk, stopped, t * 1e3);
        assert_true(stopped >= 1);
        fixture_close(&f);
    }
}

/* The H100 bug (board/h100/results/preempt-quick-h100-iter2.txt: every abort of spin on
 * 65 536 blocks "missed"): the start call enqueued the job's output reads behind its
 * kernels, and NVIDIA's driver blocks the enqueue of a large read into pageable memory
 * until the copy is done, so the start call returned after the job had run. With
 * read_late the start call enqueues no output read (they follow the last kernel's end);
 * eager (the old way) enqueues them at once. PoCL does not block, so the check is the
 * invariant itself, plus: aborts of the GPU build (persistent groups, latency hiding)
 * stop the job, and a job completes with its outputs on the host. */
static void test_read_late(void **state)
{
    (void)state;
    /* eager (-1), late (1), beside (2: at once, on the side queue behind the last
     * kernel, so that what is enqueued on exec after the job does not wait for them) */
    const int modes[3] = {-1, 1, 2};
    for (int m = 0; m < 3; m++) {
        const int mode = modes[m];
        const rtm_kexec_opts_t o = {.hide_latency = 1, .groups = 3, .poll_every = 64,
                                    .read_late = mode};
        fixture_t f;
        fixture_open(&f, rtm_kernel_find("spin"), 6000, &o, 0);
        assert_int_equal(f.x.read_late, mode == 1);
        assert_int_equal(f.x.read_beside, mode == 2);
        fixture_reset(&f);
        assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
        /* the output reads: not enqueued by the start call with read_late */
        assert_true(mode == 1 ? f.job.out_ev == NULL : f.job.out_ev != NULL);
        if (mode != 1) {
            cl_command_queue q = NULL;
            assert_int_equal(clGetEventInfo(f.job.out_ev, CL_EVENT_COMMAND_QUEUE, sizeof(q), &q,
                                            NULL),
                             CL_SUCCESS);
            assert_ptr_equal(q, mode == 2 ? f.x.dev->side : f.x.dev->exec);
        }
        assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
        assert_same_result(&f);
        assert_once(&f.job);
        const double t = f.job.run_kernel_s;
        /* aborts in the kernels stop the job; start and raise instants are recorded */
        rtm_preempt_stop_t s;
        start_and_abort(&f, t / 3, true, false, &s);
        assert_false(s.finished);
        assert_true(s.dev_kernel_s < 0.0 || s.dev_kernel_s < t);
        /* beside: the stop did not wait for the side reads; the resume settles them */
        assert_true(mode == 2 ? f.job.side_ev != NULL : f.job.side_ev == NULL);
        assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
        assert_null(f.job.side_ev);
        assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
        assert_same_result(&f);
        assert_once(&f.job);
        fixture_close(&f);
    }
}

/* A missed abort's record says why (the bench prints it): the raise came after the
 * kernel's end by the device clock (WRITE transport: the flag transfer is profiled). */
static void test_missed_abort_stamps(void **state)
{
    (void)state;
    const rtm_kexec_opts_t o = {.transport = RTM_ABORT_WRITE, .transport_set = true};
    fixture_t f;
    fixture_open(&f, rtm_kernel_find("spin"), 2000, &o, 0);
    const double t = run_whole(&f);
    fixture_reset(&f);
    assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
    sleep_s(2.0 * t + 0.01); /* the job has ended, nobody polled it */
    rtm_preempt_stop_t s;
    assert_int_equal(rtm_preempt_abort(&f.job, false, &s), RTM_OK);
    assert_true(s.finished);
    assert_true(s.dev_kernel_s > 0.0);
    assert_true(s.dev_raise_queued_s > s.dev_kernel_s);
    assert_true(s.dev_raise_end_s >= s.dev_raise_queued_s);
    assert_same_result(&f);
    fixture_close(&f);
}

/* One long job preempted five times, resumed on the device each time, then finished.
 * The job lasts at least 20 ms on the device: spin at 20 000 steps a work-item (PoCL
 * here: 117 ms) ran well under 1 ms on the H100 and finished before its third abort
 * (session 42, test-preempt-s42i); it takes 1 280 000 there (31 ms). */
static void test_repeated_preemption(void **state)
{
    (void)state;
    fixture_t f;
    uint32_t work = 20000;
    fixture_open(&f, rtm_kernel_find("spin"), work, NULL, 0);
    double t = run_whole(&f);
    for (int g = 0; g < 3 && t < 20e-3; g++) {
        fixture_close(&f);
        work *= 4;
        fixture_open(&f, rtm_kernel_find("spin"), work, NULL, 0);
        t = run_whole(&f);
    }
    print_message("repeated preemption: spin work %u, whole run %.1f ms\n", work, t * 1e3);
    fixture_reset(&f);
    assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
    uint64_t done_before = 0;
    for (int i = 0; i < 5 && f.job.state != RTM_PREEMPT_DONE; i++) {
        sleep_s(t / 12);
        rtm_preempt_stop_t s;
        assert_int_equal(rtm_preempt_abort(&f.job, false, &s), RTM_OK);
        assert_consistent(&f.job);
        const uint64_t d = rtm_preempt_done_blocks(&f.job);
        assert_true(d >= done_before); /* completed blocks are never lost */
        done_before = d;
        if (!s.finished)
            assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
    }
    if (f.job.state == RTM_PREEMPT_RUNNING)
        assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
    assert_true(f.job.preemptions >= 3);
    assert_same_result(&f);
    assert_once(&f.job);
    fixture_close(&f);
}

/* Bug (session 79): rtm_preempt_sleep_until_s polled only chunked runs, so a windowed
 * multi-launch job slept through left its device idle once its window drained: `rtmgr
 * bench preempt --part resume` (window 8) aborted grid_path at half of its whole time
 * and found it resumed in 26.6 ms on the H100 against 21.9 ms whole, the first half
 * mostly idle. A job with launches beyond its window is paced on the way as a chunked
 * one is: every launch enqueued by the end of a sleep that outlasts the job. */
static void test_window_paced(void **state)
{
    (void)state;
    fixture_t f;
    fixture_open(&f, rtm_kernel_find("sort"), 0, NULL, 2);
    assert_true(f.k.plan.launches > 4);
    const double t = run_whole(&f);
    fixture_reset(&f);
    const double t0 = now_s();
    assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
    assert_true(f.job.next < f.job.launches); /* the window holds the rest back */
    assert_true(rtm_preempt_pacing(&f.job));
    assert_int_equal(rtm_preempt_sleep_until_s(&f.job, t0 + 4.0 * t + 0.05, 0.0), RTM_OK);
    assert_int_equal(f.job.next, f.job.launches); /* topped up on the way */
    assert_false(rtm_preempt_pacing(&f.job));
    assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
    assert_same_result(&f);
    assert_once(&f.job);
    print_message("windowed sort: %u launches, whole run %.2f ms, all enqueued within a sleep\n",
                  f.k.plan.launches, t * 1e3);
    fixture_close(&f);
}

/* Resume on a second executor (another device's buffers: the state is uploaded). */
static void test_resume_on_other_executor(void **state)
{
    (void)state;
    fixture_t f;
    fixture_open(&f, rtm_kernel_find("spin"), 20000, NULL, 0);
    const double t = run_whole(&f);
    rtm_kexec_t x2;
    const rtm_kexec_opts_t o = {.count_blocks = true, .groups = RTM_KEXEC_GROUPS_ALL};
    assert_int_equal(rtm_kexec_create_ex(&x2, &dev, &f.k, &o), RTM_OK);
    for (int readback = 0; readback < 2; readback++) {
        rtm_preempt_stop_t s;
        start_and_abort(&f, t / 3, false, readback, &s);
        if (!s.finished) {
            assert_int_equal(rtm_preempt_resume_gpu(&f.job, &x2), RTM_OK);
            assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
        }
        assert_same_result(&f);
        assert_once(&f.job);
        assert_true(f.job.x == &x2 || s.finished);
        f.job.x = &f.x;
    }
    rtm_kexec_destroy(&x2);
    fixture_close(&f);
}

static void test_abort_before_start_and_after_completion(void **state)
{
    (void)state;
    fixture_t f;
    fixture_open(&f, rtm_kernel_find("spin"), 2000, NULL, 0);
    rtm_preempt_stop_t s;
    /* before start: nothing runs, everything remains */
    assert_int_equal(rtm_preempt_abort(&f.job, true, &s), RTM_OK);
    assert_false(s.finished);
    assert_int_equal(s.launch, 0);
    assert_int_equal(s.remaining_total, 3u * 40u);
    assert_int_equal(f.job.state, RTM_PREEMPT_IDLE);
    assert_int_equal(rtm_preempt_resume_cpu(&f.job), RTM_OK);
    assert_same_result(&f);
    assert_once(&f.job);
    /* after completion: nothing remains, a second abort changes nothing */
    fixture_reset(&f);
    run_whole(&f);
    assert_int_equal(rtm_preempt_abort(&f.job, true, &s), RTM_OK);
    assert_true(s.finished);
    assert_int_equal(s.remaining_total, 0);
    assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_E_STATE);
    assert_int_equal(rtm_preempt_resume_cpu(&f.job), RTM_E_STATE);
    /* after the kernels ended but before anyone looked: finished, with its kernel time
     * (the executive reports it; it read 0 once: a firm job's watchdog abort came late) */
    fixture_reset(&f);
    assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
    assert_int_equal(clFinish(f.x.dev->exec), CL_SUCCESS);
    assert_int_equal(f.job.state, RTM_PREEMPT_RUNNING);
    assert_int_equal(rtm_preempt_abort(&f.job, true, &s), RTM_OK);
    assert_true(s.finished);
    assert_int_equal(f.job.state, RTM_PREEMPT_DONE);
    assert_true(f.job.run_kernel_s > 0.0);
    assert_same_result(&f);
    assert_once(&f.job);
    /* at once after start: the flag may beat the first block */
    fixture_reset(&f);
    assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
    assert_int_equal(rtm_preempt_abort(&f.job, false, &s), RTM_OK);
    assert_consistent(&f.job);
    if (!s.finished) {
        assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
        assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
    }
    assert_same_result(&f);
    assert_once(&f.job);
    fixture_close(&f);
}

/* The in-kernel watcher (kexec.h rtm_kexec_set_watch): where the device has an end mark
 * and a write flag (NVIDIA), a launch asked to be watched gets group 0 as the watcher
 * (one more group on a plain grid, one of the persistent groups otherwise), a raise
 * stores 1 in the raise word and a clear 0, and aborts at many points, resumes and
 * repeated preemption give the uninterrupted result with every block run once, on a
 * plain grid, on persistent groups and over sort's launches. Elsewhere (PoCL) nothing
 * is watched and the same runs hold. */
static void test_watched_launches(void **state)
{
    (void)state;
    const struct {
        const char *kernel;
        uint32_t groups;
    } cases[] = {{"spin", 0}, {"spin", 3}, {"sort", 0}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const rtm_kexec_opts_t o = {.groups = cases[c].groups, .transport = RTM_ABORT_WRITE,
                                    .transport_set = true};
        fixture_t f;
        fixture_open(&f, rtm_kernel_find(cases[c].kernel), 6000, &o, 0);
        rtm_kexec_set_watch(&f.x, true);
        const uint32_t nblk = f.k.plan.blocks_max;
        const bool can = rtm_kexec_end_mark(&f.x);
        assert_int_equal(f.x.flag.watch != NULL, can);
        assert_int_equal(rtm_kexec_watched(&f.x, nblk), can); /* small grids: no full wave */
        const double t = run_whole(&f);
        assert_same_result(&f);
        assert_once(&f.job);
        if (can && cases[c].groups == 0 && strcmp(cases[c].kernel, "spin") == 0) {
            /* the raise word alone, no transfer: the watcher stops the kernel. On a job
             * that runs at least ~10 ms: on the H100 the 6 000-step one is a 0.16 ms
             * kernel, over before the start call returns (0.48 ms whole, session 34) */
            fixture_t g;
            fixture_open(&g, f.k.kernel, (uint32_t)(6000.0 * fmin(64.0, ceil(10e-3 / t))), &o,
                         0);
            rtm_kexec_set_watch(&g.x, true);
            const double tg = run_whole(&g);
            fixture_reset(&g);
            assert_int_equal(rtm_preempt_start(&g.job, &g.x), RTM_OK);
            sleep_s(tg / 5);
            const double t0 = now_s();
            __atomic_store_n(g.x.flag.watch, 1u, __ATOMIC_RELEASE);
            assert_int_equal(clFinish(g.x.dev->exec), CL_SUCCESS);
            assert_true(now_s() - t0 < tg / 2);
            rtm_preempt_stop_t s;
            assert_int_equal(rtm_preempt_abort(&g.job, false, &s), RTM_OK);
            assert_consistent(&g.job);
            assert_false(s.finished);
            assert_int_equal(rtm_preempt_resume_gpu(&g.job, &g.x), RTM_OK);
            assert_int_equal(rtm_preempt_wait(&g.job), RTM_OK);
            assert_same_result(&g);
            assert_once(&g.job);
            fixture_close(&g);
        }
        for (int p = 1; p <= 4; p++) {
            rtm_preempt_stop_t s;
            start_and_abort(&f, t * p / 5, false, false, &s);
            if (can)
                assert_int_equal(*f.x.flag.watch, 1u);
            assert_consistent(&f.job);
            for (int again = 0; again < 2 && !s.finished; again++) { /* preempted twice */
                assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
                if (can)
                    assert_int_equal(*f.x.flag.watch, 0u);
                if (again == 0) {
                    sleep_s(t / 10);
                    assert_int_equal(rtm_preempt_abort(&f.job, false, &s), RTM_OK);
                    assert_consistent(&f.job);
                } else {
                    assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
                }
            }
            assert_same_result(&f);
            assert_once(&f.job);
        }
        fixture_close(&f);
    }
}

/* A CPU resume stopped between blocks keeps its progress and resumes again. */
static void test_cpu_stop(void **state)
{
    (void)state;
    fixture_t f;
    fixture_open(&f, rtm_kernel_find("spin"), 2000, NULL, 0);
    rtm_preempt_stop_cpu(&f.job);
    assert_int_equal(rtm_preempt_resume_cpu(&f.job), RTM_E_ABORTED);
    assert_int_equal(f.job.state, RTM_PREEMPT_STOPPED);
    assert_int_equal(rtm_preempt_done_blocks(&f.job), 0);
    assert_int_equal(rtm_preempt_resume_gpu(&f.job, &f.x), RTM_OK);
    assert_int_equal(rtm_preempt_wait(&f.job), RTM_OK);
    assert_same_result(&f);
    assert_once(&f.job);
    fixture_close(&f);
}

/* Resume through the worker pool: a job stopped on the device (multi-launch spin and
 * sort) finishes on the pool's threads with every block completed exactly once; a stop
 * request before the pool starts leaves it STOPPED with nothing done, and it resumes. */
static rtm_pool_t pool; /* large: static */

static void test_resume_on_pool(void **state)
{
    (void)state;
    assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
    const char *const names[] = {"spin", "sort"};
    for (int n = 0; n < 2; n++) {
        fixture_t f;
        fixture_open(&f, rtm_kernel_find(names[n]), 20000, NULL, 0);
        const double t = run_whole(&f);
        for (int p = 0; p < 3; p++) {
            fixture_reset(&f);
            if (p == 0) { /* stopped before a single block ran on the pool */
                rtm_preempt_stop_cpu(&f.job);
                assert_int_equal(rtm_preempt_resume_pool(&f.job, &pool), RTM_E_ABORTED);
                assert_int_equal(f.job.state, RTM_PREEMPT_STOPPED);
                assert_int_equal(rtm_preempt_done_blocks(&f.job), 0);
            } else {
                assert_int_equal(rtm_preempt_start(&f.job, &f.x), RTM_OK);
                sleep_s(t * p / 3);
                rtm_preempt_stop_t s;
                assert_int_equal(rtm_preempt_abort(&f.job, true, &s), RTM_OK);
                assert_consistent(&f.job);
            }
            if (f.job.state == RTM_PREEMPT_STOPPED)
                assert_int_equal(rtm_preempt_resume_pool(&f.job, &pool), RTM_OK);
            assert_same_result(&f);
            assert_once(&f.job);
        }
        fixture_close(&f);
    }
    rtm_pool_stop(&pool);
}

/* A grid of 2 long blocks becomes 32 short ones with identical results. */
static void test_split(void **state)
{
    (void)state;
    rtm_kinst_t k, ref;
    rtm_kinst_init(&k, rtm_kernel_find("spin"));
    k.size[0] = 2;
    k.size[1] = 500;
    k.size[2] = 16;
    k.tune.wg = 32;
    ref = k;
    assert_int_equal(rtm_preempt_split(&k, 32), 16);
    assert_int_equal(k.plan.blocks_max, 32);
    assert_int_equal(k.size[2], 1);
    assert_int_equal(rtm_preempt_split(&k, 32), 1); /* already enough blocks */
    assert_int_equal(rtm_kinst_plan(&ref), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(&ref);
    assert_int_equal(rtm_kinst_bytes(&k), bytes);
    void *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
    assert_int_equal(rtm_kinst_bind(&k, a, bytes), bytes);
    assert_int_equal(rtm_kinst_bind(&ref, b, bytes), bytes);
    k.kernel->fill(&k, 5);
    ref.kernel->fill(&ref, 5);
    rtm_kinst_run_cpu(&ref);
    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, &dev, &k), RTM_OK);
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    char why[128] = "";
    assert_int_equal(k.kernel->compare(&k, &ref, why, sizeof(why)), 0);
    rtm_kexec_destroy(&x);
    /* matrix_add splits through its tuning */
    rtm_kinst_init(&k, rtm_kernel_find("matrix_add"));
    k.size[0] = 64;
    k.tune = (rtm_tune_t){256, 4};
    assert_int_equal(rtm_preempt_split(&k, 64), 16); /* 4 blocks: vec 4 -> 1, wg 256 -> 64 */
    assert_int_equal(k.tune.vec, 1);
    assert_int_equal(k.tune.wg, 64);
    assert_int_equal(k.plan.blocks_max, 64);
    free(a);
    free(b);
}

/* A raised flag: settled, every copy reads 1; cleared (and, ctrl, the control queue
 * finished too), every copy reads 0. */
static void lands_then_clears(rtm_abortflag_t *f, bool ctrl)
{
    int v = -1;
    assert_int_equal(rtm_abortflag_settle(f), RTM_OK);
    assert_int_equal(rtm_abortflag_read(f, &v), RTM_OK);
    assert_int_equal(v, 1);
    assert_int_equal(rtm_abortflag_clear(f), RTM_OK);
    assert_int_equal(clFinish(dev.exec), CL_SUCCESS);
    if (ctrl)
        assert_int_equal(clFinish(dev.ctrl), CL_SUCCESS);
    assert_int_equal(rtm_abortflag_read(f, &v), RTM_OK);
    assert_int_equal(v, 0);
}

/* Both transports raise, read and clear the flag as kernels see it, every copy of it. */
static void test_flag_transports(void **state)
{
    (void)state;
    const rtm_abort_transport_t ts[2] = {RTM_ABORT_WRITE, RTM_ABORT_MAPPED};
    for (int i = 0; i < 6; i++) { /* each transport with 1, 8 and 32 copies */
        static const uint32_t copies[3] = {1, 8, 32};
        rtm_abortflag_t f;
        int v = -1;
        if (i < 2)
            assert_int_equal(rtm_abortflag_create(&f, &dev, ts[i]), RTM_OK);
        else
            assert_int_equal(rtm_abortflag_create_ex(&f, &dev, ts[i % 2], copies[i / 2]), RTM_OK);
        assert_int_equal(f.copies, i < 2 ? 1u : copies[i / 2]);
        assert_int_equal(rtm_abortflag_read(&f, &v), RTM_OK);
        assert_int_equal(v, 0);
        assert_int_equal(rtm_abortflag_raise(&f), RTM_OK);
        assert_int_equal(rtm_abortflag_raise(&f), RTM_OK); /* twice before settling */
        lands_then_clears(&f, false);
        assert_true(f.raised_at > 0);
        rtm_abortflag_destroy(&f);
    }
    /* every raise path of the write flag lands every copy */
    for (int m = 0; m < RTM_RAISE_MODES; m++) {
        rtm_abortflag_t f;
        assert_int_equal(rtm_abortflag_create_ex(&f, &dev, RTM_ABORT_WRITE, 32), RTM_OK);
        rtm_abortflag_set_raise(&f, (rtm_abort_raise_t)m);
        assert_int_equal(f.raise_mode, m);
        assert_int_equal(rtm_abortflag_raise(&f), RTM_OK);
        assert_true(f.raise_call_s >= 0.0);
        lands_then_clears(&f, false);
        rtm_abortflag_destroy(&f);
    }
    /* armed: the held write enqueued by clear goes by as a no-op when not raised (jobs
     * that end unpreempted), lands 1 when raised, and the slots alternate safely */
    {
        rtm_abortflag_t f;
        int v = -1;
        assert_int_equal(rtm_abortflag_create_ex(&f, &dev, RTM_ABORT_WRITE, 4), RTM_OK);
        rtm_abortflag_set_raise(&f, RTM_RAISE_ARMED);
        for (int round = 0; round < 5; round++) {
            assert_int_equal(rtm_abortflag_clear(&f), RTM_OK); /* arms */
            assert_non_null(f.arm_gate);
            assert_int_equal(clFinish(dev.exec), CL_SUCCESS);
            assert_int_equal(rtm_abortflag_read(&f, &v), RTM_OK);
            assert_int_equal(v, 0);
        }
        assert_int_equal(rtm_abortflag_raise(&f), RTM_OK);
        assert_null(f.arm_gate);
        assert_int_equal(rtm_abortflag_raise(&f), RTM_OK); /* twice before settling */
        lands_then_clears(&f, true);
        rtm_abortflag_destroy(&f); /* armed at destroy: released cleanly */
    }
    assert_string_equal(rtm_abortflag_raise_name(RTM_RAISE_FILL), "fill");
    assert_string_equal(rtm_abortflag_raise_name(RTM_RAISE_ARMED), "armed");
    rtm_abortflag_t f;
    assert_int_equal(rtm_abortflag_create_ex(&f, &dev, RTM_ABORT_WRITE, RTM_ABORTFLAG_COPIES_MAX + 1),
                     RTM_E_RANGE);
    /* CPU and host-unified devices (PoCL) default to the mapped flag, discrete GPUs to the
     * paper's write: the test device may be either (RTM_PLATFORM, or the ICD order when
     * the loader sees several platforms) */
    const bool host_side = (dev.info.type & CL_DEVICE_TYPE_CPU) || dev.info.host_unified;
    assert_int_equal(rtm_abortflag_default(&dev.info),
                     host_side ? RTM_ABORT_MAPPED : RTM_ABORT_WRITE);
    assert_string_equal(rtm_abortflag_name(RTM_ABORT_WRITE), "write");
}

/* The measurement finds a transport that stops a kernel early (on a CPU device, the
 * mapped flag; on a discrete GPU at least the paper's write) and names it best. */
static void test_measure_transports(void **state)
{
    (void)state;
    rtm_preempt_measure_t m;
    assert_int_equal(rtm_preempt_measure(&dev, 10, &m), RTM_OK);
    fprintf(stderr, "measure: probe %.1f ms; write works %d p99 %.1f us; mapped works %d p99 %.1f us\n",
            m.kernel_s * 1e3, m.works[RTM_ABORT_WRITE], m.p99_s[RTM_ABORT_WRITE] * 1e6,
            m.works[RTM_ABORT_MAPPED], m.p99_s[RTM_ABORT_MAPPED] * 1e6);
    /* timing on a shared CPU is noisy: require only that the best transport stopped some
     * kernels early (on CPU devices: the mapped flag), and that the choice follows the
     * figures */
    assert_true(m.n[m.best] > 0);
    if (dev.info.type & CL_DEVICE_TYPE_CPU)
        assert_true(m.n[RTM_ABORT_MAPPED] > 0);
    assert_true(m.kernel_s > 0.0);
    if (m.works[RTM_ABORT_MAPPED] && !m.works[RTM_ABORT_WRITE])
        assert_int_equal(m.best, RTM_ABORT_MAPPED);
    if (!m.works[RTM_ABORT_MAPPED])
        assert_int_equal(m.best, RTM_ABORT_WRITE);
}


/* The in-loop poll period search with its cost against calibration's build (the
 * profile's poll_cost): matrix_mov, whose work-items loop, on the real device; the
 * chosen period is one of those measured, the cost the median of its pairs. Without a
 * reference build the cost is not measured. */
static void test_poll_search_cost(void **state)
{
    (void)state;
    const rtm_kernel_t *mm = rtm_kernel_find("matrix_mov");
    const rtm_kexec_opts_t base = {.transport = rtm_abortflag_default(&dev.info),
                                   .transport_set = true};
    const rtm_kexec_opts_t ref = rtm_kexec_calib_opts(NULL);
    for (int with_ref = 1; with_ref >= 0; with_ref--) {
        rtm_preempt_kpoll_t kp;
        const double t0 = rtm_os_now_s();
        assert_int_equal(rtm_preempt_tune_kernel_poll(&dev, &base, with_ref ? &ref : NULL, mm,
                                                      (rtm_tune_t){0, 0}, NULL, 0.0, false, 2, 0,
                                                      t0 + 120.0, &kp),
                         RTM_OK);
        fprintf(stderr, "poll search (%s): K %u of %u, cost %+.2f%% (%u pairs, %+.2f..%+.2f%%), "
                        "%.1f s\n",
                with_ref ? "with reference" : "no reference", kp.poll_every, kp.n,
                100.0 * kp.cost, kp.cost_n, 100.0 * kp.cost_lo, 100.0 * kp.cost_hi,
                rtm_os_now_s() - t0);
        assert_true(kp.poll_every > 0 && kp.n > 0);
        bool measured = false;
        for (uint32_t c = 0; c < kp.n; c++)
            measured |= kp.k[c] == kp.poll_every;
        assert_true(measured);
        if (!with_ref) {
            assert_int_equal(kp.cost_n, 0);
            assert_true(kp.cost == 0.0);
            continue;
        }
        assert_int_equal(kp.cost_n, 11);
        assert_true(kp.cost_lo <= kp.cost && kp.cost <= kp.cost_hi);
        assert_true(kp.cost > RTM_BOARD_POLL_COST_MIN && kp.cost < RTM_BOARD_POLL_COST_MAX);
    }
}

/* The rules of kernels/rtm_block.h, checked in the text of every kernel source: between
 * RTM_BLOCK_BEGIN and RTM_BLOCK_END no `return` (persistent groups would drop blocks)
 * and no get_group_id / get_global_id (blocks are mapped); nothing after END. */
static void test_block_rules_in_sources(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < rtm_kernel_count(); i++) {
        const rtm_kernel_t *kernel = rtm_kernel_at(i);
        char path[512];
        snprintf(path, sizeof(path), "%s/kernels/%s", RTM_TEST_SOURCE_DIR, kernel->source);
        FILE *fp = fopen(path, "r");
        assert_non_null(fp);
        char line[512];
        int in_block = 0, after_end = 0, lineno = 0, bad = 0;
        while (fgets(line, sizeof(line), fp)) {
            lineno++;
            const char *code = line;
            while (*code == ' ' || *code == '\t')
                code++;
            if (code[0] == '/' || code[0] == '*')
                continue; /* comment lines */
            if (strstr(code, "RTM_BLOCK_BEGIN(")) {
                in_block = 1;
                after_end = 0;
                continue;
            }
            if (strstr(code, "RTM_BLOCK_END(")) {
                in_block = 0;
                after_end = 1;
                continue;
            }
            if (in_block && (strstr(code, "return") || strstr(code, "get_group_id") ||
                             strstr(code, "get_global_id"))) {
                fprintf(stderr, "%s:%d: breaks a block rule: %s", path, lineno, line);
                bad++;
            }
            if (after_end && code[0] != '}' && code[0] != '\n' && code[0] != '\0') {
                fprintf(stderr, "%s:%d: code after RTM_BLOCK_END: %s", path, lineno, line);
                bad++;
            }
            if (code[0] == '}')
                after_end = 0;
        }
        fclose(fp);
        if (!(kernel->flags & RTM_KF_NO_PERSIST))
            assert_int_equal(bad, 0);
    }
}

/* Launch shape from the predicted block time: spin with 400 blocks of 32 work-items on
 * a device of 1024 work-items in flight (32 groups at once: 12.5 waves) that takes 25 ms
 * has blocks of 2 ms: long (fetched ids stored at once; the groups left to kexec's
 * automatic choice, no longer a plain grid); at 25 us its blocks take 2 us: o is left
 * alone. No units or no time: unknown. */
static void test_grid_opts(void **state)
{
    (void)state;
    rtm_kinst_t k;
    rtm_kinst_init(&k, rtm_kernel_find("spin"));
    k.size[0] = 400;
    k.tune.wg = 32;
    assert_int_equal(rtm_kinst_plan(&k), RTM_OK);
    assert_int_equal(k.plan.blocks_max, 400);
    rtm_board_dev_t bd;
    memset(&bd, 0, sizeof(bd));
    bd.param[RTM_DEV_P_units] = 1024;
    bd.have[RTM_DEV_P_units] = true;
    assert_true(fabs(rtm_preempt_block_s(&bd, &k, 25e-3) - 2e-3) < 1e-12);
    rtm_kexec_opts_t o = {0};
    rtm_preempt_grid_opts(&bd, &k, 25e-3, &o);
    assert_int_equal(o.groups, 0);
    assert_true(o.fetch_store);
    assert_int_equal(o.chunk, 0); /* 400 blocks: fewer than one chunk */
    o.fetch_store = false;
    assert_true(fabs(rtm_preempt_grid_opts(&bd, &k, 25e-6, &o) - 2e-6) < 1e-15);
    assert_int_equal(o.groups, 0);
    assert_false(o.fetch_store);
    /* fewer blocks than a wave: the whole time is one block's */
    k.size[0] = 8;
    assert_int_equal(rtm_kinst_plan(&k), RTM_OK);
    assert_true(fabs(rtm_preempt_block_s(&bd, &k, 5e-6) - 5e-6) < 1e-15);
    /* chunks where a chunk of RTM_KEXEC_CHUNK_BLOCKS lasts RTM_PREEMPT_CHUNK_MIN_S: 40 000
     * blocks in 25 ms (2.56 ms chunks), not in 5 ms (0.51 ms chunks); production asks for
     * them (preempt.h) */
    k.size[0] = 40000;
    assert_int_equal(rtm_kinst_plan(&k), RTM_OK);
    o.chunk = 0;
    rtm_preempt_grid_opts(&bd, &k, 25e-3, &o);
    assert_int_equal(o.chunk, RTM_KEXEC_CHUNK_BLOCKS);
    o.chunk = 0;
    rtm_preempt_grid_opts(&bd, &k, 5e-3, &o);
    assert_int_equal(o.chunk, 0);
    assert_true(rtm_preempt_chunk_for(&k, 25e-3, &o));
    assert_int_equal(o.chunk, RTM_KEXEC_CHUNK_BLOCKS);
    o.chunk = 0;
    assert_false(rtm_preempt_chunk_for(&k, 5e-3, &o));
    assert_int_equal(o.chunk, 0);
    assert_true(rtm_preempt_chunk_for(&k, 7.4e-3, NULL));
    assert_false(rtm_preempt_chunk_for(&k, 7.2e-3, NULL));
    assert_false(rtm_preempt_chunk_for(NULL, 1.0, NULL));
    o = (rtm_kexec_opts_t){0};
    bd.have[RTM_DEV_P_units] = false;
    assert_true(rtm_preempt_block_s(&bd, &k, 25e-3) == 0.0);
    assert_true(rtm_preempt_grid_opts(&bd, &k, 25e-3, &o) == 0.0);
    assert_int_equal(o.groups, 0);
    assert_false(o.fetch_store);
    assert_int_equal(o.chunk, 0); /* unknown blocks: no chunks either */
}

/* The poll search's candidates as calibration's note and the benchmark print them, and
 * truncated to a short buffer without overrunning it. */
static void test_kpoll_text(void **state)
{
    (void)state;
    rtm_preempt_kpoll_t kp;
    memset(&kp, 0, sizeof(kp));
    kp.n = 2;
    kp.k[0] = 32;
    kp.k[1] = 16;
    kp.overhead_pct[0] = 10.5;
    kp.overhead_pct[1] = 28.29;
    kp.poll_every = 32;
    char buf[64];
    assert_string_equal(rtm_preempt_kpoll_text(&kp, buf, sizeof(buf)),
                        "K 32 10.50% (chosen), K 16 28.29%");
    char small[12];
    assert_string_equal(rtm_preempt_kpoll_text(&kp, small, sizeof(small)), "K 32 10.50%");
    kp.n = 0;
    assert_string_equal(rtm_preempt_kpoll_text(&kp, buf, sizeof(buf)), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_rules_in_sources),
        cmocka_unit_test(test_flag_transports),
        cmocka_unit_test(test_abort_before_start_and_after_completion),
        cmocka_unit_test(test_cpu_stop),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_resume_on_pool),
        cmocka_unit_test(test_gpu_path_on_spin),
        cmocka_unit_test(test_gpu_full_strips),
        cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_read_late),
        cmocka_unit_test(test_missed_abort_stamps),
        cmocka_unit_test(test_repeated_preemption),
        cmocka_unit_test(test_window_paced),
        cmocka_unit_test(test_watched_launches),
        cmocka_unit_test(test_resume_on_other_executor),
        cmocka_unit_test(test_measure_transports),
        cmocka_unit_test(test_grid_opts),
        cmocka_unit_test(test_kpoll_text),
        cmocka_unit_test(test_poll_search_cost),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
