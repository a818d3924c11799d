/* Diagnostic harness (session 77, not part of rtmgr): grid_path's job as `rtmgr bench
 * preempt --part overhead` runs it (16 384 x 512 cells, 128 passes, the map of fill's
 * seed 1), from PTX dumps of its builds (clptx.c with kexec's options) through the CUDA
 * driver API, so that Nsight Compute can profile the builds side by side (ncu does not
 * profile OpenCL). Each pass is one launch of one group per 32 x 32 tile, with kexec's
 * standard arguments: the flag and the completed-block array in device memory (the
 * array, the leave counter and the pass flags cleared before each job), the end mark
 * in mapped host memory as kexec gives it (END = 1; END = 0 passes NULL: no leave count,
 * no end mark).
 * Usage: cugp REPS IDLE END PTX... (env CUGP_WIDTH, CUGP_HEIGHT, CUGP_PASSES, and CUGP_WG:
 * the work-group size the PTX was built for, RTM_WG, default 256)
 * Runs every build REPS times, interleaved, the device idle IDLE times the build's last
 * job before each run (bench preempt's --idle); prints per build the min and median job
 * ms (cuEvents around the 128 launches), its share over the first build's min, blocks
 * marked done and a hash of the field (every build must give the first's). Under ncu,
 * REPS 1 and one PTX: job 0 is launches 0 to PASSES - 1. */
#include <stdint.h>
#include <time.h>

#include "diag_cu.h"
#include "kernel.h"

#define MAXB 8

static unsigned env_u(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v && *v ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

static void idle_s(double s)
{
    if (s <= 0.0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: cugp REPS IDLE END PTX...\n");
        return 2;
    }
    const int reps = atoi(argv[1]);
    const double idle = atof(argv[2]);
    const int with_end = atoi(argv[3]);
    const int nb = argc - 4 < MAXB ? argc - 4 : MAXB;
    rtm_kinst_t k;
    rtm_kinst_init(&k, rtm_kernel_find("grid_path"));
    k.size[0] = env_u("CUGP_WIDTH", 16384);
    k.size[1] = env_u("CUGP_HEIGHT", 512);
    k.size[2] = env_u("CUGP_PASSES", 128);
    const unsigned wg = env_u("CUGP_WG", 256);
    k.tune.wg = wg;
    if (rtm_kinst_plan(&k) != RTM_OK)
        return fprintf(stderr, "grid_path: no plan\n"), 3;
    const size_t bytes = rtm_kinst_bytes(&k);
    void *arena = aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
    if (!arena || rtm_kinst_bind(&k, arena, bytes) != bytes)
        return 4;
    k.kernel->fill(&k, 1);
    const uint32_t passes = k.plan.launches, nblk = k.plan.blocks_max;
    const uint32_t stride = (nblk + 63u) & ~63u; /* kexec's done_stride */
    const size_t cells = (size_t)k.size[0] * k.size[1];
    uint32_t *field0 = malloc(cells * sizeof(uint32_t));
    memcpy(field0, k.host[0], cells * sizeof(uint32_t));

    diag_cu_init();
    diag_cu_build_t b[MAXB];
    for (int i = 0; i < nb; i++) {
        diag_cu_load(argv[4 + i], 0, -1, &b[i]);
        int per_sm = 0;
        CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, b[i].fn, (int)wg, 0));
        printf("%s: %s, %d params, %d registers, %d blocks/SM\n", argv[4 + i], b[i].name,
               b[i].np, b[i].regs, per_sm);
        if (b[i].np != 17)
            return fprintf(stderr, "%s: %d params, not grid_path's 17\n", argv[4 + i], b[i].np), 5;
    }
    /* the kernel's buffers (field, field2, occ, flags) and the block control */
    CUdeviceptr buf[4], flag, done, next;
    for (int i = 0; i < 4; i++)
        CK(cuMemAlloc(&buf[i], k.plan.buf[i].bytes));
    CK(cuMemcpyHtoD(buf[2], k.host[2], k.plan.buf[2].bytes));
    CK(cuMemAlloc(&flag, 4096));
    CK(cuMemsetD8(flag, 0, 4096));
    CK(cuMemAlloc(&done, (size_t)passes * stride));
    CK(cuMemAlloc(&next, 4096));
    void *end_host = NULL;
    CUdeviceptr end = 0, none = 0;
    if (with_end) {
        CK(cuMemHostAlloc(&end_host, 4096, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
        memset(end_host, 0, 4096);
        CK(cuMemHostGetDevicePointer(&end, end_host, 0));
    }
    printf("grid_path %lld x %lld, %u passes, %u blocks of %u a launch, end mark %s, idle %.1f\n", (long long)k.size[0],
           (long long)k.size[1], passes, nblk, wg, with_end ? "mapped host memory" : "NULL", idle);

    CUevent e0, e1;
    CK(cuEventCreate(&e0, 0));
    CK(cuEventCreate(&e1, 0));
    float *t = calloc((size_t)nb * (size_t)(reps > 0 ? reps : 1), sizeof(float));
    float last[MAXB] = {0};
    unsigned long long hash[MAXB] = {0};
    unsigned marked[MAXB] = {0};
    uint8_t *dh = malloc((size_t)passes * stride);
    for (int r = 0; r < reps; r++)
        for (int v = 0; v < nb; v++) {
            CK(cuMemcpyHtoD(buf[0], field0, cells * sizeof(uint32_t)));
            CK(cuMemsetD8(buf[3], 0, k.plan.buf[3].bytes));
            CK(cuMemsetD8(done, 0, (size_t)passes * stride));
            CK(cuMemsetD8(next, 0, 4096));
            CK(cuCtxSynchronize());
            idle_s(idle * last[v] * 1e-3);
            CK(cuEventRecord(e0, 0));
            for (uint32_t l = 0; l < passes; l++) {
                rtm_karg_t ka[RTM_KARG_MAX];
                const uint32_t na = k.kernel->args(&k, l, ka);
                uint32_t nmap = 0, doff = l * stride, vals[RTM_KARG_MAX];
                CUdeviceptr ptrs[RTM_KARG_MAX];
                void *args[9 + RTM_KARG_MAX] = {&flag, &done, &none, &nmap, (void *)&nblk, &doff,
                                                &none, &next, &end};
                for (uint32_t a = 0; a < na; a++) {
                    if (ka[a].kind == RTM_KARG_BUF) {
                        ptrs[a] = buf[ka[a].buf];
                        args[9 + a] = &ptrs[a];
                    } else {
                        memcpy(&vals[a], ka[a].value, sizeof(vals[a]));
                        args[9 + a] = &vals[a];
                    }
                }
                CK(cuLaunchKernel(b[v].fn, nblk, 1, 1, wg, 1, 1, 0, 0, args, NULL));
            }
            CK(cuEventRecord(e1, 0));
            CK(cuEventSynchronize(e1));
            CK(cuEventElapsedTime(&last[v], e0, e1));
            t[(size_t)v * (size_t)reps + (size_t)r] = last[v];
            if (r == 0) { /* the result and the checkpoint, once */
                CK(cuMemcpyDtoH(k.host[0], buf[0], cells * sizeof(uint32_t)));
                const uint32_t *f = k.host[0];
                for (size_t c = 0; c < cells; c++)
                    hash[v] = hash[v] * 31u + f[c];
                CK(cuMemcpyDtoH(dh, done, (size_t)passes * stride));
                for (size_t i = 0; i < (size_t)passes * stride; i++)
                    marked[v] += dh[i] != 0;
            }
        }
    float base = 0.0f;
    for (int v = 0; v < nb && reps > 0; v++) {
        float *tv = t + (size_t)v * (size_t)reps;
        qsort(tv, (size_t)reps, sizeof(float), diag_cu_cmp_float);
        if (v == 0)
            base = tv[0];
        printf("%-28s min %8.4f ms median %8.4f ms  %+6.2f %%  done[] marked %7u  field %016llx%s\n",
               argv[4 + v], tv[0], tv[reps / 2], 100.0 * (tv[0] - base) / base, marked[v], hash[v],
               hash[v] == hash[0] ? "" : "  DIFFERS");
    }
    return 0;
}
