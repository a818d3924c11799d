/* diag_cu.h — the diagnostics' CUDA driver-API side (board/h100/diag, not part of rtmgr):
 * the error check, and a PTX dump of one of rtmgr's OpenCL builds (RTM_CL_DUMP or
 * clptx.c) made loadable by the CUDA driver, so that Nsight Compute can profile it (ncu
 * does not profile OpenCL): OpenCL's environment registers replaced (%envreg0, the
 * global offset: 0; %envreg6, the group count: %nctaid.x), the entry's name and its
 * parameters' sizes read, the module JIT-compiled. */
#ifndef RTM_DIAG_CU_H
#define RTM_DIAG_CU_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_file.h"

#define CK(x)                                                                              \
    do {                                                                                   \
        CUresult r_ = (x);                                                                 \
        if (r_ != CUDA_SUCCESS) {                                                          \
            const char *s_ = "?";                                                          \
            cuGetErrorString(r_, &s_);                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_);                 \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define DIAG_CU_MAX_PARAMS 64

/* One loaded build: its entry and its parameters' sizes in order (8: .u64, 4: .u32). */
typedef struct {
    CUmodule mod;
    CUfunction fn;
    char name[128];
    int np;
    int size[DIAG_CU_MAX_PARAMS];
    int regs;
} diag_cu_build_t;

/* The PTX of `path` with OpenCL's environment registers replaced (caller frees), or NULL. */
static char *diag_cu_ptx(const char *path)
{
    char *ptx = diag_read_all(path);
    for (char *r; ptx && (r = strstr(ptx, "%envreg")) != NULL;) {
        int k = 0, used = 0;
        sscanf(r + 7, "%d%n", &k, &used);
        const char *with = k == 6 ? "%nctaid.x" : "0";
        if (k != 0 && k != 6)
            fprintf(stderr, "envreg%d: replaced by 0\n", k);
        const char *rest = r + 7 + used;
        char *grown = malloc(strlen(ptx) + 16);
        memcpy(grown, ptx, (size_t)(r - ptx));
        strcpy(grown + (r - ptx), with);
        strcat(grown, rest);
        free(ptx);
        ptx = grown;
    }
    return ptx;
}

/* Loads the PTX dump `path` into the current context (maxreg: CU_JIT_MAX_REGISTERS, 0
 * none; opt: CU_JIT_OPTIMIZATION_LEVEL, < 0 the driver's). Exits on failure. */
static void diag_cu_load(const char *path, int maxreg, int opt, diag_cu_build_t *b)
{
    memset(b, 0, sizeof(*b));
    char *ptx = diag_cu_ptx(path);
    if (!ptx)
        exit(1);
    const char *e = strstr(ptx, ".entry ");
    if (!e) {
        fprintf(stderr, "%s: no .entry\n", path);
        exit(1);
    }
    sscanf(e + 7, "%127[A-Za-z0-9_]", b->name);
    const char *close = strchr(e, ')');
    for (const char *p = strstr(e, ".param"); p && p < close && b->np < DIAG_CU_MAX_PARAMS;
         p = strstr(p + 6, ".param"))
        b->size[b->np++] = strncmp(p, ".param .u64", 11) == 0 ? 8 : 4;
    CUjit_option jo[2];
    void *jv[2];
    unsigned nj = 0;
    if (maxreg > 0) {
        jo[nj] = CU_JIT_MAX_REGISTERS;
        jv[nj++] = (void *)(size_t)maxreg;
    }
    if (opt >= 0) {
        jo[nj] = CU_JIT_OPTIMIZATION_LEVEL;
        jv[nj++] = (void *)(size_t)opt;
    }
    CK(cuModuleLoadDataEx(&b->mod, ptx, nj, jo, jv));
    free(ptx);
    CK(cuModuleGetFunction(&b->fn, b->mod, b->name));
    CK(cuFuncGetAttribute(&b->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, b->fn));
}

/* Device 0's primary context, made current. */
static void diag_cu_init(void)
{
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
}

static int diag_cu_cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

#endif
