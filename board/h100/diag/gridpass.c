/* gridpass.c — a diagnostic, not part of rtmgr: grid_path's jobs and passes on one device
 * (board/h100/results/gpw-s53*-h100.txt, session 53). Per width (height 512, 128 passes)
 * and fill seed (101 as validation's, then 1, 2, 3): the instance filled as calibration
 * makes it (its busy passes counted by fill), built with the executive's options for the
 * job from the profile's device (MODE 1: rtm_preempt_predict_dev) or calibration's
 * (MODE 0); "job" = the median kernel time of 7 whole jobs (rtm_calib_inst_run), "pred" =
 * the extended model's kernel time from the profile; then 5 runs with every launch
 * enqueued alone and profiled: the busy passes' summed START->END, per pass, the first,
 * the second and the longest, the idle passes' mean, and the span (the device isolated
 * per pass: each launch's event costs the host time, so the device waits between them).
 * Built against a Release build's library, on the H100 machine:
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -I. \
 *       board/h100/diag/gridpass.c build-h/librtmgr.a -lOpenCL -lyaml -lm -lpthread -lrt \
 *       -o /tmp/gridpass
 *   RTM_PLATFORM=NVIDIA /tmp/gridpass board/h100.yaml MODE SEEDS WIDTH... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtmgr/calibint.h"
#include "rtmgr/kexec.h"
#include "rtmgr/kernel.h"
#include "rtmgr/ocl.h"
#include "rtmgr/stats.h"
#include "board/h100/diag/diag_grid.h"
#include "rtmgr/board.h"
#include "rtmgr/preempt.h"
#include "rtmgr/model.h"

#define L 128

int main(int argc, char **argv)
{
    rtm_ocl_dev_t d;
    const rtm_kernel_t *kern = diag_grid_open(&d);
    if (!kern) return 1;
    rtm_board_t board; rtm_diag_t diag;
    memset(&diag, 0, sizeof diag);
    if (rtm_board_load(argv[1], &board, &diag) != RTM_OK) { printf("board?\n"); return 1; }
    const rtm_board_dev_t *bd = NULL;
    for (uint32_t i = 0; i < board.n_devs; i++) if (strstr(d.info.platform_name, "NVIDIA") ? !strcmp(board.dev[i].name, "gpu0") : !strcmp(board.dev[i].name, "ocl0")) bd = &board.dev[i];
    if (!bd) { printf("no dev in board\n"); return 1; }
    const int mode = atoi(argv[2]);
    static const int seedv[] = {101, 1, 2, 3};
    const int seeds = atoi(argv[3]);
    for (int ai = 4; ai < argc; ai++) {
        const int w = atoi(argv[ai]);
        for (int si = 0; si < seeds; si++) { const int seed = seedv[si];
            rtm_calib_inst_t in;
            if (diag_grid_inst(&in, kern, w, L, (uint64_t)seed) != RTM_OK) { printf("make failed\n"); return 1; }
            rtm_kexec_t x;
            rtm_kexec_opts_t o = rtm_kexec_calib_opts(NULL);
            rtm_model_job_t job; rtm_model_pred_t pr;
            memset(&pr, 0, sizeof pr);
            if (mode) rtm_preempt_predict_dev(bd, &in.k, 0, &job, &o, &pr);
            else { rtm_kexec_opts_t o2 = o; rtm_preempt_predict_dev(bd, &in.k, 0, &job, &o2, &pr); }
            if (rtm_kexec_create_ex(&x, &d, &in.k, &o) != RTM_OK) { printf("kexec failed\n"); return 1; }
            rtm_kexec_timing_t t;
            for (int r = 0; r < 2; r++) rtm_calib_inst_run(&x, &in, &t);
            double job_ms[7];
            for (int r = 0; r < 7; r++) { rtm_calib_inst_run(&x, &in, &t); job_ms[r] = t.kernel_s * 1e3; }
            rtm_stats_sort(job_ms, 7);
            enum { NREP = 5 };
            double busy_ms[NREP], idle_us[NREP], span_ms[NREP], first_us[NREP], p1_us[NREP], pmax_us[NREP];
            const uint32_t busy = in.k.busy ? in.k.busy : L;
            for (int r = 0; r < NREP; r++) {
                rtm_calib_inst_reset(&in);
                rtm_kexec_write_inputs(&x, NULL, NULL);
                rtm_kexec_clear(&x, NULL, NULL);
                clFinish(d.exec);
                cl_event ev[L];
                for (uint32_t l = 0; l < L; l++) rtm_kexec_enqueue(&x, l, NULL, 0, &ev[l]);
                clFinish(d.exec);
                double sb = 0, si = 0, mx = 0;
                for (uint32_t l = 0; l < L; l++) {
                    const double s = rtm_ocl_event_seconds(ev[l]) * 1e6;
                    if (l < busy) { sb += s; if (s > mx) mx = s; } else si += s;
                    if (l == 0) first_us[r] = s;
                    if (l == 1) p1_us[r] = s;
                }
                span_ms[r] = rtm_ocl_span_ns(ev[0], ev[L - 1]) * 1e-6;
                for (uint32_t l = 0; l < L; l++) clReleaseEvent(ev[l]);
                busy_ms[r] = sb * 1e-3; idle_us[r] = busy < L ? si / (L - busy) : 0; pmax_us[r] = mx;
            }
            rtm_stats_sort(busy_ms, NREP); rtm_stats_sort(idle_us, NREP);
            rtm_stats_sort(span_ms, NREP); rtm_stats_sort(first_us, NREP);
            rtm_stats_sort(p1_us, NREP); rtm_stats_sort(pmax_us, NREP);
            const uint32_t tiles = in.k.plan.blocks_max;
            rtm_cost_t c; rtm_kinst_cost(&in.k, &c);
            printf("%s w %5d seed %3d job %.3f ms pred %.3f | tiles %5u busy %3u | busy passes %.3f ms = %.2f us/pass (pass0 %.1f pass1 %.1f max %.1f) idle %.2f us | span %.3f ms | li %.4g\n",
                   mode ? "exec" : "cal ", w, seed, job_ms[3], pr.ext.kernel_ns * 1e-6, tiles, busy, busy_ms[2], busy_ms[2] * 1e3 / busy, first_us[2], p1_us[2], pmax_us[2], idle_us[2], span_ms[2], c.li);
            rtm_kexec_destroy(&x);
            rtm_calib_inst_free(&in);
        }
    }
    rtm_ocl_close(&d);
    return 0;
}
