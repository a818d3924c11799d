/* flagpos.c — diagnostic (session 65; NVIDIA's OpenCL): is a polled plain grid's
 * slowdown (matrix_mul at n = 4 000: +0..+10 % between kexecs of one build, session 64's
 * "varies between processes") a matter of where its buffers lie? For each flag-copy
 * count C of a list, makes K kexecs of the polled plain build (rtmgr's kexec, wg 256, poll
 * period 16), times each kexec's one launch (min and median of REPS, its own event), and
 * prints the device addresses of its abort flag, completed-block array and data buffers
 * (a probe kernel writes them). Built and run by flagpos.sh:
 *   bash board/h100/diag/flagpos.sh [N [K [REPS [C1,C2,...]]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/kernels.h"
#include "rtmgr/os.h"
#include "rtmgr/preempt.h"
#include "rtmgr/stats.h"

static const char *probe_src =
    "__kernel void probe(__global ulong *o, __global int *f, __global uchar *d,\n"
    "                    __global float *a, __global float *b, __global float *c)\n"
    "{ o[0] = (ulong)f; o[1] = (ulong)d; o[2] = (ulong)a; o[3] = (ulong)b; o[4] = (ulong)c; }\n";

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 4000, K = argc > 2 ? atoi(argv[2]) : 8;
    const int reps = argc > 3 ? atoi(argv[3]) : 8;
    char copies_list[128];
    snprintf(copies_list, sizeof(copies_list), "%s", argc > 4 ? argv[4] : "32,1,128");
    rtm_ocl_info_t infos[8];
    uint32_t nd = 0;
    if (rtm_ocl_discover(infos, 8, &nd) != RTM_OK || !nd)
        return 1;
    rtm_ocl_dev_t dev;
    if (rtm_ocl_open(&dev, &infos[0]) != RTM_OK)
        return 1;
    cl_int err;
    cl_program pp = clCreateProgramWithSource(dev.ctx, 1, &probe_src, NULL, &err);
    if (err || clBuildProgram(pp, 1, &infos[0].id, "", NULL, NULL) != CL_SUCCESS)
        return fprintf(stderr, "probe build failed\n"), 1;
    cl_kernel probe = clCreateKernel(pp, "probe", &err);
    cl_mem out = clCreateBuffer(dev.ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    printf("device %s; matrix_mul n %d, %d kexecs per flag-copy count, %d runs each\n", infos[0].name, n, K,
           reps);
    rtm_kinst_t k;
    rtm_kinst_init(&k, rtm_kernel_find("matrix_mul"));
    k.size[0] = n;
    k.tune.wg = 256;
    k.tune.vec = 1;
    if (rtm_kinst_plan(&k) != RTM_OK)
        return 1;
    const size_t bytes = rtm_kinst_bytes(&k);
    void *arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    rtm_kinst_bind(&k, arena, bytes);
    k.kernel->fill(&k, 5);
    rtm_kexec_t *x = calloc((size_t)K + 1, sizeof(*x));
    for (char *t = strtok(copies_list, ","); t; t = strtok(NULL, ",")) {
        const uint32_t C = (uint32_t)atoi(t);
        for (int i = 0; i <= K; i++) { /* kexec K: the original build, for reference */
            rtm_kexec_opts_t o = {.transport = RTM_ABORT_WRITE, .transport_set = true,
                                  .poll_every = 16, .fetch_store = true, .flag_copies = C,
                                  .groups = RTM_KEXEC_GROUPS_ALL};
            o.variant = i == K ? RTM_KEXEC_ORIGINAL : RTM_KEXEC_FULL;
            if (rtm_kexec_create_ex(&x[i], &dev, &k, &o) != RTM_OK)
                return printf("create failed\n"), 1;
            rtm_kexec_warm(&x[i]);
            rtm_kexec_write_inputs(&x[i], NULL, NULL);
            clFinish(dev.exec);
        }
        for (int i = 0; i <= K; i++) {
            double t_ms[256];
            const int r2 = reps > 256 ? 256 : reps;
            const double gap = getenv("FP_GAP_MS") ? atof(getenv("FP_GAP_MS")) * 1e-3 : 0.0;
            for (int r = 0; r < r2; r++) {
                cl_event k0 = NULL, k1 = NULL;
                rtm_kexec_clear(&x[i], NULL, NULL);
                clFinish(dev.exec);
                if (gap > 0) /* the GPU idle first: its clock back from the power cap */
                    rtm_os_sleep_until_s(rtm_os_now_s() + gap);
                rtm_kexec_enqueue_all(&x[i], 0, &k0, &k1);
                clFinish(dev.exec);
                t_ms[r] = (double)rtm_ocl_span_ns(k0, k1 ? k1 : k0) * 1e-6;
                clReleaseEvent(k0);
                if (k1)
                    clReleaseEvent(k1);
            }
            if (getenv("FP_SEQ")) { /* the runs in their order, and when */
                printf("  seq at %.3f s:", rtm_os_now_s());
                for (int r = 0; r < r2; r++)
                    printf(" %.2f", t_ms[r]);
                printf("\n");
            }
            rtm_stats_sort(t_ms, (uint32_t)r2);
            const cl_mem m[6] = {out, x[i].flag.mem, x[i].done, x[i].buf[0], x[i].buf[1], x[i].buf[2]};
            for (cl_uint a = 0; a < 6; a++)
                clSetKernelArg(probe, a, sizeof(cl_mem), &m[a]);
            const size_t one = 1;
            cl_ulong ad[5] = {0};
            clEnqueueNDRangeKernel(dev.exec, probe, 1, NULL, &one, &one, 0, NULL, NULL);
            clEnqueueReadBuffer(dev.exec, out, CL_TRUE, 0, sizeof(ad), ad, 0, NULL, NULL);
            printf("copies %3u kexec %d%s: min %7.3f med %7.3f ms | flag %#llx done %#llx a %#llx b %#llx c %#llx"
                   " | flag mod 2M %#llx\n",
                   C, i, i == K ? " (original)" : "", t_ms[0], t_ms[r2 / 2], (unsigned long long)ad[0],
                   (unsigned long long)ad[1], (unsigned long long)ad[2], (unsigned long long)ad[3],
                   (unsigned long long)ad[4], (unsigned long long)(ad[0] & 0x1fffff));
        }
        for (int i = 0; i <= K; i++)
            rtm_kexec_destroy(&x[i]);
    }
    return 0;
}
