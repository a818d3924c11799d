/* rowsweep.c — a diagnostic, not part of rtmgr: one kernel's job time at many first-key
 * sizes through rtmgr's own kexec (board/h100/results/rows-*-s48*-h100.txt, session 48).
 * Per size: the instance planned, filled and built as calibration builds it
 * (rtm_kexec_calib_opts); a warm-up job, then REPS event-profiled jobs; the median, min
 * and max kernel time and the time per n^3. Environment: PLAIN=1 one work-group per
 * block; STORE=1 the fetched block id stored (RTM_FETCH_STORE); BOARD=profile the
 * executive's options for the job from that profile's device (rtm_preempt_predict_dev:
 * persistent groups, fetch store, poll period) and its model's kernel time ("pred"),
 * CLEAR=1 with the kernel's own terms cleared first (as calibration sees it before its
 * points); PART=m1,m2,... also the job's first m blocks alone, scaled to the whole job
 * (calibration's partial points; session 49). Built against a Release build's library, on the H100 machine:
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -Irtmgr -Ikernels \
 *       -Ibuild-h board/h100/diag/rowsweep.c build-h/librtmgr.a -lOpenCL -lyaml -lm \
 *       -lpthread -lrt -o /tmp/rowsweep
 *   RTM_PLATFORM=NVIDIA BOARD=board/h100.yaml /tmp/rowsweep 0 matrix_mul 1000 2000 3201
 * Usage: rowsweep DEVICE KERNEL N... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kexec.h"
#include "kernel.h"
#include "ocl.h"
#include "program.h"
#include "stats.h"
#include "board.h"
#include "preempt.h"
#include "model.h"
#define REPS 11
static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
int main(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: dev kernel n...\n"); return 1; }
    rtm_ocl_info_t infos[8]; uint32_t nd = 0;
    if (rtm_ocl_discover(infos, 8, &nd) != RTM_OK) return 2;
    int di = atoi(argv[1]);
    rtm_ocl_dev_t dev;
    if (rtm_ocl_open(&dev, &infos[di]) != RTM_OK) return 3;
    const rtm_kernel_t *kern = rtm_kernel_find(argv[2]);
    char cache[512];
    if (rtm_program_cache_dir(cache, sizeof cache) != RTM_OK) cache[0] = 0;
    printf("# %s on %s\n", argv[2], infos[di].name);
    static rtm_board_t board; rtm_board_dev_t *bd = NULL;
    if (getenv("BOARD")) {
        rtm_diag_t dg;
        if (rtm_board_load(getenv("BOARD"), &board, &dg) != RTM_OK) { printf("board load failed\n"); return 4; }
        for (uint32_t i = 0; i < board.n_devs; i++)
            if (strstr(infos[di].platform_name, board.dev[i].platform) && strstr(infos[di].name, board.dev[i].device)) bd = &board.dev[i];
        if (!bd) { printf("no board dev\n"); return 5; }
        if (getenv("CLEAR")) { int ki = rtm_kernel_index(kern); rtm_tune_t tu = bd->ktune[ki].tune; memset(&bd->ktune[ki], 0, sizeof bd->ktune[ki]); bd->ktune[ki].have = true; bd->ktune[ki].tune = tu; }
    }
    for (int a = 3; a < argc; a++) {
        rtm_kinst_t k; rtm_kinst_init(&k, kern);
        k.size[0] = atoll(argv[a]);
        if (rtm_kinst_plan(&k) != RTM_OK) { printf("%s plan failed\n", argv[a]); continue; }
        size_t bytes = rtm_kinst_bytes(&k);
        void *ar = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
        rtm_kinst_bind(&k, ar, bytes);
        kern->fill(&k, 1);
        rtm_kexec_t x; memset(&x, 0, sizeof x);
        rtm_kexec_opts_t o = rtm_kexec_calib_opts(cache[0] ? cache : NULL);
        if (getenv("PLAIN")) o.groups = RTM_KEXEC_GROUPS_ALL;
        if (getenv("STORE")) o.fetch_store = true;
        double pk = 0, blk = 0;
        if (bd) { rtm_model_job_t job; rtm_model_pred_t pr; rtm_preempt_predict_dev(bd, &k, 0, &job, &o, &pr);
                  pk = (double)rtm_model_used(&pr)->kernel_ns * 1e-6; blk = rtm_preempt_block_s(bd, &k, pk * 1e-3) * 1e6; }
        if (rtm_kexec_create_ex(&x, &dev, &k, &o) != RTM_OK) { printf("create failed\n"); free(ar); continue; }
        rtm_kexec_timing_t t; double v[REPS];
        rtm_kexec_run(&x, &t);
        for (int r = 0; r < REPS; r++) { rtm_kexec_run(&x, &t); v[r] = t.kernel_s; }
        qsort(v, REPS, sizeof v[0], cmp);
        double n = (double)k.size[0];
        /* PART=m1,m2,...: the job's first m blocks alone (calibration's partial points,
         * rtm_kexec_run_kernels), their time scaled to the whole job's blocks */
        for (const char *pp = getenv("PART"); pp && *pp;) {
            const uint32_t m = (uint32_t)strtoul(pp, NULL, 10), nb = (uint32_t)rtm_kinst_blocks(&k);
            double w[REPS];
            if (m > 0 && m < nb && rtm_kexec_run_kernels(&x, m, &w[0], NULL) == RTM_OK) {
                for (int r = 0; r < REPS; r++) rtm_kexec_run_kernels(&x, m, &w[r], NULL);
                qsort(w, REPS, sizeof w[0], cmp);
                printf("%s n=%lld part %u of %u blocks med %.4f ms, scaled %.4f ms, whole %.4f ms: %.2fx\n",
                       kern->name, (long long)k.size[0], m, nb, w[REPS/2]*1e3, w[REPS/2]*1e3*nb/m,
                       v[REPS/2]*1e3, w[REPS/2]*nb/m/v[REPS/2]);
            }
            pp = strchr(pp, ',');
            pp = pp ? pp + 1 : NULL;
        }
        printf("%s n=%lld med %.4f ms min %.4f ms max %.4f ms per_n3 %.4f ps mod32 %lld persist %d store %d pred %.4f ms blk %.1f us\n", kern->name,
               (long long)k.size[0], v[REPS/2]*1e3, v[0]*1e3, v[REPS-1]*1e3, v[REPS/2]*1e12/(n*n*n), (long long)(k.size[0]%32), (int)x.persist, (int)o.fetch_store, pk, blk);
        fflush(stdout);
        rtm_kexec_destroy(&x); free(ar);
    }
    rtm_ocl_close(&dev);
    return 0;
}
