/* Diagnostic harness (session 46, not part of rtmgr): loads a PTX dump of one of
 * rtmgr's OpenCL builds (RTM_CL_DUMP) through the CUDA driver API and launches it the way
 * kexec does, so that Nsight Compute can profile it (ncu does not profile OpenCL).
 * Usage: cuh PTX GROUPS WG NBLK N REPS [MAXREG [OPT]] (MAXREG: CU_JIT_MAX_REGISTERS, 0 none;
 * OPT: CU_JIT_OPTIMIZATION_LEVEL, default the driver's)
 * Params by position: RTM_BLOCK_ARGS (abort, done, map, nmap, nblk, doff, count, next,
 * end), then the kernel's own: every pointer a zeroed buffer of n*n floats (inputs filled),
 * the last u32 = N. Prints min / median kernel ms over REPS (cuEvent). */
#include "diag_cu.h"

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: cuh PTX GROUPS WG NBLK N REPS [MAXREG [OPT]]\n");
        return 2;
    }
    const unsigned groups = (unsigned)atoi(argv[2]), wg = (unsigned)atoi(argv[3]);
    const unsigned nblk = (unsigned)atoi(argv[4]), n = (unsigned)atoi(argv[5]);
    const int reps = atoi(argv[6]), maxreg = argc > 7 ? atoi(argv[7]) : 0;
    const int opt = argc > 8 ? atoi(argv[8]) : -1;
    diag_cu_init();
    diag_cu_build_t bl;
    diag_cu_load(argv[1], maxreg, opt, &bl);
    int blocks_sm = 0;
    CK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_sm, bl.fn, (int)wg, 0));
    const size_t mat = (size_t)n * n * sizeof(float), small = (size_t)4 << 20;
    float *host = malloc(mat);
    unsigned s = 12345;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        s = s * 1103515245u + 12345u;
        host[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    CUdeviceptr ptr[64] = {0};
    unsigned u32[64] = {0};
    void *args[64];
    int own = 0;
    for (int i = 0; i < bl.np; i++) {
        if (bl.size[i] == 8) {
            if (i == 6 || i == 8) { /* count, end: NULL */
                args[i] = &ptr[i];
                continue;
            }
            const size_t bytes = i >= 9 ? mat : small;
            CK(cuMemAlloc(&ptr[i], bytes));
            CK(cuMemsetD8(ptr[i], 0, bytes));
            if (i >= 9 && own < 2) { /* the first two matrices: inputs */
                CK(cuMemcpyHtoD(ptr[i], host, mat));
                own++;
            }
            args[i] = &ptr[i];
        } else {
            u32[i] = i == 4 ? nblk : i == bl.np - 1 ? n : 0;
            args[i] = &u32[i];
        }
    }
    printf("%s (maxreg %d, opt %d): %s, %d params, %d registers, %d blocks/SM, grid %u x %u, nblk %u, n %u\n",
           argv[1], maxreg, opt, bl.name, bl.np, bl.regs, blocks_sm, groups, wg, nblk, n);
    CUevent a, b;
    CK(cuEventCreate(&a, 0));
    CK(cuEventCreate(&b, 0));
    float *t = calloc((size_t)reps, sizeof(float));
    for (int r = -2; r < reps; r++) {
        CK(cuMemsetD8(ptr[7], 0, small)); /* the fetch counters */
        CK(cuMemsetD8(ptr[1], 0, small)); /* done[] */
        CK(cuCtxSynchronize());
        CK(cuEventRecord(a, 0));
        CK(cuLaunchKernel(bl.fn, groups, 1, 1, wg, 1, 1, 0, 0, args, NULL));
        CK(cuEventRecord(b, 0));
        CK(cuEventSynchronize(b));
        float ms;
        CK(cuEventElapsedTime(&ms, a, b));
        if (r >= 0)
            t[r] = ms;
    }
    /* the completed-block array: how many blocks marked */
    unsigned char *d = malloc(small);
    CK(cuMemcpyDtoH(d, ptr[1], small));
    unsigned marked = 0;
    for (unsigned i = 0; i < nblk && i < small; i++)
        marked += d[i] != 0;
    qsort(t, (size_t)reps, sizeof(float), diag_cu_cmp_float);
    printf("  kernel ms: min %.4f median %.4f max %.4f over %d; done[] marked %u of %u\n", t[0],
           t[reps / 2], t[reps - 1], reps, marked, nblk);
    /* a checksum of the output (the third matrix) */
    CUdeviceptr out = 0;
    int m = 0;
    for (int i = 9; i < bl.np; i++)
        if (bl.size[i] == 8 && ++m == 3)
            out = ptr[i];
    if (out) {
        CK(cuMemcpyDtoH(host, out, mat));
        double sum = 0;
        for (size_t i = 0; i < (size_t)n * n; i++)
            sum += host[i];
        printf("  output checksum %.6e\n", sum);
    }
    return 0;
}
