/* enqpace.c — a diagnostic, not part of rtmgr: where the host's time per launch of a
 * multi-launch job goes (board/h100/results/enq-s53f-h100.txt, session 53). grid_path at
 * each width (height 512, 128 passes, seed 101) built with calibration's options; 15
 * runs each of: rtm_kexec_enqueue_all (the pace probe's and calibration's way, events on
 * the first and last launch), rtm_kexec_enqueue one launch after another without
 * events, and clEnqueueNDRangeKernel on the same kernel object with its arguments as they
 * stand (the driver alone); host microseconds per launch (median, p10-p90), and the
 * kernel span or the time to clFinish; "callbacks" = the kernel's launch and args
 * functions alone. Built and run as gridpass.c:
 *   RTM_PLATFORM=NVIDIA /tmp/enqpace WIDTH... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtmgr/calibint.h"
#include "rtmgr/kexec.h"
#include "rtmgr/kernel.h"
#include "rtmgr/ocl.h"
#include "rtmgr/stats.h"
#include "board/h100/diag/diag_grid.h"
#include "rtmgr/os.h"

#define R 15
int main(int argc, char **argv)
{
    rtm_ocl_dev_t d;
    const rtm_kernel_t *kern = diag_grid_open(&d);
    if (!kern) return 1;
    for (int ai = 1; ai < argc; ai++) {
        const int w = atoi(argv[ai]);
        rtm_calib_inst_t in;
        if (diag_grid_inst(&in, kern, w, 128, 101) != RTM_OK) return 1;
        rtm_kexec_t x;
        const rtm_kexec_opts_t o = rtm_kexec_calib_opts(NULL);
        if (rtm_kexec_create_ex(&x, &d, &in.k, &o) != RTM_OK) return 1;
        const uint32_t L = in.k.plan.launches;
        rtm_kexec_timing_t t;
        for (int r = 0; r < 3; r++) rtm_calib_inst_run(&x, &in, &t);
        double a[R], ak[R], b[R], bk[R], c[R], ck[R], e[R];
        for (int r = 0; r < R; r++) {
            /* A: the pace probe's way (enqueue_all, first and last events) */
            double span = 0, enq = 0;
            rtm_calib_inst_reset(&in); rtm_kexec_write_inputs(&x, NULL, NULL); clFinish(d.exec);
            rtm_kexec_run_kernels(&x, 0, &span, &enq);
            a[r] = enq * 1e6 / L; ak[r] = span * 1e3;
            /* B: rtm_kexec_enqueue one by one, no events */
            rtm_calib_inst_reset(&in); rtm_kexec_write_inputs(&x, NULL, NULL); rtm_kexec_clear(&x, NULL, NULL); clFinish(d.exec);
            double h0 = rtm_os_now_s();
            for (uint32_t l = 0; l < L; l++) rtm_kexec_enqueue(&x, l, NULL, 0, NULL);
            double h1 = rtm_os_now_s();
            clFinish(d.exec);
            b[r] = (h1 - h0) * 1e6 / L; bk[r] = (rtm_os_now_s() - h0) * 1e3;
            /* C: bare enqueues of entry 0 as it stands (args of the last launch) */
            rtm_calib_inst_reset(&in); rtm_kexec_write_inputs(&x, NULL, NULL); rtm_kexec_clear(&x, NULL, NULL); clFinish(d.exec);
            const size_t local = in.k.tune.wg, global = (size_t)rtm_kexec_groups(&x, in.k.plan.blocks_max) * local;
            h0 = rtm_os_now_s();
            for (uint32_t l = 0; l < L; l++) clEnqueueNDRangeKernel(d.exec, x.prog.kern[0], 1, NULL, &global, &local, 0, NULL, NULL);
            h1 = rtm_os_now_s();
            clFinish(d.exec);
            c[r] = (h1 - h0) * 1e6 / L; ck[r] = (rtm_os_now_s() - h0) * 1e3;
            /* E: the launch and args callbacks alone (no OpenCL) */
            h0 = rtm_os_now_s();
            for (uint32_t l = 0; l < L; l++) { rtm_klaunch_t kl; rtm_karg_t args[RTM_KARG_MAX]; in.k.kernel->launch(&in.k, l, &kl); (void)in.k.kernel->args(&in.k, l, args); }
            e[r] = (rtm_os_now_s() - h0) * 1e6 / L;
        }
        rtm_stats_sort(a, R); rtm_stats_sort(ak, R);
        rtm_stats_sort(b, R); rtm_stats_sort(bk, R);
        rtm_stats_sort(c, R); rtm_stats_sort(ck, R); rtm_stats_sort(e, R);
        printf("w %5d busy %3u watch %d persist %d | host us/launch: enqueue_all %.2f (p10 %.2f p90 %.2f) kernel span %.3f ms | kexec_enqueue %.2f (%.2f-%.2f) to finish %.3f ms | bare %.2f (%.2f-%.2f) to finish %.3f ms | callbacks %.3f\n",
               w, in.k.busy, (int)x.watch, (int)x.persist, a[R / 2], a[1], a[R - 2], ak[R / 2], b[R / 2], b[1], b[R - 2], bk[R / 2], c[R / 2], c[1], c[R - 2], ck[R / 2], e[R / 2]);
        rtm_kexec_destroy(&x);
        rtm_calib_inst_free(&in);
    }
    rtm_ocl_close(&d);
    return 0;
}
