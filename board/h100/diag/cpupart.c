/* cpupart.c — a diagnostic, not part of rtmgr: a one-launch kernel's CPU twin on the
 * worker pool, whole jobs against the estimates calibration makes from a job's first
 * blocks (board/h100/results/cpu-part-s55d-h100.txt, session 55). Per size: p = the
 * blocks per worker that take about 30 ms (at least 4: calibfit.c's part_for), the median
 * of 7 runs of the first p and of the first 2p blocks per worker, each scaled to the whole
 * job (rtm_calib_part_scale without cw), the slope between them carried to the whole
 * job, against the median of WHOLE_REPS whole jobs. PRIO=50 asks SCHED_FIFO for the
 * workers. Usage: cpupart KERNEL WORKERS WHOLE_REPS SIZE... Built against a Release
 * build's library, on the H100 machine:
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -I. \
 *       board/h100/diag/cpupart.c build-h/librtmgr.a -lOpenCL -lyaml -lm -lpthread -lrt */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtmgr/calib.h"
#include "rtmgr/calibint.h"
#include "rtmgr/kernel.h"
#include "rtmgr/pool.h"
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double med(double *x, int n) { qsort(x, n, sizeof(double), cmp); return n % 2 ? x[n/2] : 0.5*(x[n/2-1]+x[n/2]); }
int main(int argc, char **argv)
{
    const char *kn = argv[1];
    uint32_t nw = (uint32_t)atoi(argv[2]);
    int wreps = atoi(argv[3]);
    static rtm_pool_t pool; /* zeroed: rtm_pool_start refuses a started one */
    const int prio = getenv("PRIO") ? atoi(getenv("PRIO")) : 0;
    rtm_status_t pst = rtm_pool_start(&pool, nw, prio, NULL);
    if (pst != RTM_OK) { fprintf(stderr, "pool: %s\n", rtm_strerror(pst)); return 1; }
    const rtm_kernel_t *k = rtm_kernel_find(kn);
    for (int a = 4; a < argc; a++) {
        int64_t size[RTM_SIZE_KEYS_MAX] = {atoll(argv[a])};
        rtm_calib_inst_t in;
        if (rtm_calib_inst_make(&in, k, size, k->tune_default, 3) != RTM_OK) return 2;
        const uint32_t blocks = (uint32_t)rtm_kinst_blocks(&in.k);
        const double per = ceil((double)blocks / nw);
        double t1; rtm_calib_pool_time_part(&pool, &in.k, 1, &t1); /* warm-up, a block */
        rtm_calib_inst_reset(&in);
        double blk; rtm_calib_pool_time_part(&pool, &in.k, 2, &blk); blk /= 2;
        uint32_t p = (uint32_t)fmax(4.0, floor(0.03 / blk));
        double a1[9], a2[9], w[9];
        for (int r = 0; r < 7; r++) {
            rtm_calib_inst_reset(&in); rtm_calib_pool_time_part(&pool, &in.k, p, &a1[r]);
            rtm_calib_inst_reset(&in); rtm_calib_pool_time_part(&pool, &in.k, 2 * p, &a2[r]);
        }
        for (int r = 0; r < wreps; r++) rtm_calib_inst_time(&pool, &in, &w[r]);
        const double m1 = med(a1, 7), m2 = med(a2, 7), mw = med(w, wreps);
        const double sc = m1 * per / p, sc2 = m2 * per / (2 * p), sl = m1 + (m2 - m1) * (per - p) / p;
        printf("%s n=%s workers %u blocks/worker %.0f part %u: whole %.1f ms | p-scaled %.1f (%+.1f%%) 2p-scaled %.1f (%+.1f%%) slope %.1f (%+.1f%%)\n",
               kn, argv[a], nw, per, p, mw*1e3, sc*1e3, 100*(sc/mw-1), sc2*1e3, 100*(sc2/mw-1), sl*1e3, 100*(sl/mw-1));
        rtm_calib_inst_free(&in);
    }
    rtm_pool_stop(&pool);
    return 0;
}
