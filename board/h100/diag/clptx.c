/* Diagnostic (session 46, not part of rtmgr): builds an OpenCL source on the NVIDIA
 * platform's first device with the given options and writes the program binary (PTX).
 * Usage: clptx FILE.cl OUT.ptx "OPTIONS" */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_cl.h"
#include "diag_file.h"

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: clptx FILE.cl OUT.ptx OPTIONS\n"), 2;
    const cl_platform_id p = diag_cl_platform("NVIDIA", false);
    if (!p)
        return fprintf(stderr, "no NVIDIA platform\n"), 1;
    cl_device_id d;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, NULL) != CL_SUCCESS)
        return 1;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    char *src = diag_read_all(argv[1]);
    if (!src)
        return 1;
    const char *s = src;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
    err = clBuildProgram(prog, 1, &d, argv[3], NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[65536];
        clGetProgramBuildInfo(prog, d, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        fprintf(stderr, "build failed (%d):\n%s\n", err, log);
        return 1;
    }
    size_t bs = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof(bs), &bs, NULL);
    unsigned char *bin = malloc(bs);
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof(bin), &bin, NULL);
    FILE *o = fopen(argv[2], "wb");
    size_t n = bs;
    while (n > 0 && bin[n - 1] == 0)
        n--;
    fwrite(bin, 1, n, o);
    fclose(o);
    return 0;
}
