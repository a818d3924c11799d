/* jobgap.c — a diagnostic, not part of rtmgr (session 68): why a small hard job's kernel
 * in `rtmgr run` took 2-3x calibration's figure on the H100. One instance of KERNEL at
 * size N, its kexec built with the executive's options for a hard task (BOARD's device:
 * rtm_preempt_predict_dev, never aborted), and its jobs run several ways, each JOBS
 * times after a warm-up, GAP_MS apart (0 = back to back):
 *   kexec_run     rtm_kexec_run (calibration's whole job: inputs, kernel, outputs, clFinish)
 *   preempt_spin  the executive's path: rtm_preempt_job_reset + rtm_preempt_start_ex, then
 *                 rtm_preempt_wait (spins on the events' status)
 *   preempt_fin   the same start, then clFinish on the exec queue and one poll
 * Per way: the median / p90 of the inputs and of the kernel span (first launch START to
 * last END, as the model-error log), and of the idle gap between the inputs' end and the
 * kernel's start. Build (Release library, on the H100 machine):
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -Irtmgr -Ikernels \
 *       -Ibuild-h board/h100/diag/jobgap.c build-h/librtmgr.a -lOpenCL -lyaml -lm \
 *       -lpthread -lrt -o /tmp/jobgap
 *   RTM_PLATFORM=NVIDIA BOARD=board/h100.yaml /tmp/jobgap 0 matrix_add 256
 * Usage: jobgap DEVICE KERNEL N   (env BOARD required, GAP_MS default 20, JOBS 60; PIN=1
 * host buffers in pinned memory as the manager's; NA=0 the build of an abortable job) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "board.h"
#include "kernel.h"
#include "kexec.h"
#include "model.h"
#include "ocl.h"
#include "os.h"
#include "preempt.h"
#include "pinned.h"
#include "program.h"
#include "stats.h"

/* Nearest-rank quantile p (0 < p <= 1) of v[0..n), sorted in place. */
static double q(double *v, int n, double p)
{
    rtm_stats_sort(v, (size_t)n);
    return rtm_stats_percentile(v, (size_t)n, 100.0 * p);
}

int main(int argc, char **argv)
{
    if (argc < 4 || !getenv("BOARD")) {
        fprintf(stderr, "usage: BOARD=profile jobgap DEVICE KERNEL N\n");
        return 1;
    }
    const double gap = getenv("GAP_MS") ? atof(getenv("GAP_MS")) : 20.0;
    const int jobs = getenv("JOBS") ? atoi(getenv("JOBS")) : 60;
    rtm_ocl_info_t infos[8];
    uint32_t nd = 0;
    if (rtm_ocl_discover(infos, 8, &nd) != RTM_OK)
        return 2;
    const int di = atoi(argv[1]);
    rtm_ocl_dev_t dev;
    if (rtm_ocl_open(&dev, &infos[di]) != RTM_OK)
        return 3;
    const rtm_kernel_t *kern = rtm_kernel_find(argv[2]);
    static rtm_board_t board;
    rtm_diag_t dg;
    if (rtm_board_load(getenv("BOARD"), &board, &dg) != RTM_OK)
        return 4;
    rtm_board_dev_t *bd = NULL;
    for (uint32_t i = 0; i < board.n_devs; i++)
        if (strstr(infos[di].platform_name, board.dev[i].platform) &&
            strstr(infos[di].name, board.dev[i].device))
            bd = &board.dev[i];
    if (!bd)
        return 5;
    char cache[512];
    if (rtm_program_cache_dir(cache, sizeof cache) != RTM_OK)
        cache[0] = 0;
    rtm_kinst_t k;
    rtm_kinst_init(&k, kern);
    k.size[0] = atoll(argv[3]);
    if (rtm_kinst_plan(&k) != RTM_OK)
        return 6;
    const size_t bytes = rtm_kinst_bytes(&k);
    /* PIN=1: the host buffers in pinned memory, as the manager's per-device regions */
    static rtm_pinned_t pin;
    const bool pinned = getenv("PIN") && atoi(getenv("PIN")) &&
                        rtm_pinned_create(&pin, &dev, (bytes + 4095) & ~(size_t)4095) == RTM_OK;
    void *ar = pinned ? pin.host : aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    rtm_kinst_bind(&k, ar, bytes);
    kern->fill(&k, 1);
    rtm_kexec_opts_t o = {.transport = bd->abort, .transport_set = true,
                          .cache_dir = cache[0] ? cache : NULL, .host_pinned = pinned,
                          .never_aborted = getenv("NA") ? atoi(getenv("NA")) != 0 : true};
    rtm_model_job_t mj;
    rtm_model_pred_t pr;
    if (rtm_preempt_predict_dev(bd, &k, RTM_MODEL_F_IDLE, &mj, &o, &pr) != RTM_OK)
        return 7;
    const rtm_model_time_t *m = rtm_model_used(&pr);
    rtm_kexec_t x;
    memset(&x, 0, sizeof x);
    if (rtm_kexec_create_ex(&x, &dev, &k, &o) != RTM_OK)
        return 8;
    rtm_kexec_warm(&x);
    const size_t jb = (rtm_preempt_job_bytes(&k, false) + 63) & ~(size_t)63;
    void *jm = aligned_alloc(64, jb);
    rtm_preempt_job_t pj;
    if (rtm_preempt_job_init(&pj, &k, jm, jb, 0, false) != RTM_OK)
        return 9;
    printf("# %s n=%s on %s, gap %.1f ms, %d jobs a way; predicted in %.1f kernel %.1f out %.1f us"
           " (persist %d, clears %d, pinned %d)\n",
           kern->name, argv[3], infos[di].name, gap, jobs, 1e-3 * (double)m->in_ns,
           1e-3 * (double)m->kernel_ns, 1e-3 * (double)m->out_ns, (int)x.persist,
           (int)rtm_kexec_clears(&x), (int)pinned);
    printf("%-13s | %16s | %22s | %16s\n", "way", "in us p50/p90", "kernel us p50/p90/max",
           "gap us p50/p90");
    double *vi = malloc(sizeof(double) * (size_t)jobs), *vk = malloc(sizeof(double) * (size_t)jobs);
    double *vg = malloc(sizeof(double) * (size_t)jobs);
    static const char *ways[] = {"kexec_run", "preempt_spin", "preempt_fin", "kexec_run"};
    for (int w = 0; w < 4; w++) {
        for (int j = -3; j < jobs; j++) {
            if (gap > 0)
                rtm_os_sleep_until(rtm_os_now_ns() + (int64_t)(gap * 1e6));
            double in = 0, ks = 0, g = 0;
            if (w == 0 || w == 3) {
                rtm_kexec_timing_t t;
                if (rtm_kexec_run(&x, &t) != RTM_OK)
                    return 10;
                in = 1e6 * t.in_s, ks = 1e6 * t.kernel_s, g = 1e6 * t.gap_kernel_s;
            } else {
                cl_event i0 = NULL, i1 = NULL;
                if (rtm_preempt_job_reset(&pj) != RTM_OK ||
                    rtm_preempt_start_ex(&pj, &x, true, &i0, &i1) != RTM_OK)
                    return 11;
                if (w == 2)
                    clFinish(dev.exec);
                if (rtm_preempt_wait(&pj) != RTM_OK)
                    return 12;
                in = 1e-3 * (double)rtm_ocl_span_ns(i0, i1);
                ks = 1e6 * pj.run_kernel_s;
                g = 1e6 * pj.run_latency_s; /* first launch queued -> started */
                rtm_ocl_put(&i0), rtm_ocl_put(&i1);
            }
            if (j >= 0)
                vi[j] = in, vk[j] = ks, vg[j] = g;
        }
        const double kmax = q(vk, jobs, 1.0);
        printf("%-13s | %7.1f %8.1f | %6.1f %6.1f %8.1f | %7.1f %8.1f%s\n", ways[w], q(vi, jobs, 0.5),
               q(vi, jobs, 0.9), q(vk, jobs, 0.5), q(vk, jobs, 0.9), kmax, q(vg, jobs, 0.5),
               q(vg, jobs, 0.9), w == 0 || w == 3 ? "" : " (gap: queued->start)");
        fflush(stdout);
    }
    rtm_preempt_job_release(&pj);
    rtm_kexec_destroy(&x);
    rtm_ocl_close(&dev);
    return 0;
}
