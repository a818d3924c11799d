/* Diagnostic (session 77, not part of rtmgr): which carry of a device's profiling stamps
 * onto the host clock holds for kernels of 1 ms to 1 s? After a kernel of T ms, h_fin is
 * the host's clock when clWaitForEvents returned and hq when a read was enqueued; the
 * kernel's END stamp carried onto the host clock
 *   A: hq + (END - read.QUEUED)       (rtm_preempt_stopped's stop_s, session 66)
 *   B: h_enq + (END - kernel.QUEUED)  (through the kernel's own enqueue)
 *   C: through clGetDeviceAndHostTimer's pair, taken after the wait (where available)
 * Prints each minus h_fin in us (a little below 0 where right), 4 kernels per length.
 * Usage: carry [PLATFORM-NAME-PART] (default NVIDIA) */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag_cl.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static cl_ulong st(cl_event e, cl_profiling_info i)
{
    cl_ulong v = 0;
    clGetEventProfilingInfo(e, i, sizeof(v), &v, NULL);
    return v;
}

static const char *src =
    "__kernel void spin(__global float *o, uint n) { float x = get_global_id(0); for (uint i = 0; "
    "i < n; i++) x = x * 0.999999f + 0.5f; o[get_global_id(0)] = x; }";

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "NVIDIA";
    const cl_platform_id p = diag_cl_platform(want, false);
    if (!p)
        return fprintf(stderr, "no platform %s\n", want), 1;
    cl_ulong hres = 0;
    clGetPlatformInfo(p, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof hres, &hres, NULL);
    cl_device_id d;
    CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    char dn[256];
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof dn, dn, NULL);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, d, qp, &err);
    CK(err);
    cl_program pr = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CK(clBuildProgram(pr, 1, &d, "", NULL, NULL));
    cl_kernel k = clCreateKernel(pr, "spin", &err);
    CK(err);
    cl_mem o = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * 4, NULL, &err);
    CK(err);
    float host[64];
    cl_ulong dt = 0, ht = 0;
    const cl_int tr = clGetDeviceAndHostTimer(d, &dt, &ht);
    printf("%s: host timer resolution %llu ns, clGetDeviceAndHostTimer %d (device %llu host %llu), "
           "CLOCK_MONOTONIC %.0f ns\n",
           dn, (unsigned long long)hres, tr, (unsigned long long)dt, (unsigned long long)ht,
           now() * 1e9);
    /* n for about 1 ms */
    cl_uint n = 1 << 16;
    size_t g = 1024, l = 128;
    for (int c = 0; c < 6; c++) {
        CK(clSetKernelArg(k, 0, sizeof o, &o));
        CK(clSetKernelArg(k, 1, sizeof n, &n));
        cl_event e;
        CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &e));
        CK(clFinish(q));
        const double t =
            (st(e, CL_PROFILING_COMMAND_END) - st(e, CL_PROFILING_COMMAND_START)) * 1e-9;
        clReleaseEvent(e);
        n = (cl_uint)(n * 1e-3 / t);
        if (n < 1)
            n = 1;
    }
    const double ms[] = {1, 10, 100, 300, 1000};
    printf("%8s %4s %10s %10s %10s %10s   (END carried to host - h_fin, us; kernel ms)\n", "T ms",
           "rep", "A read.Q", "B kern.Q", "C timer", "kernel");
    for (int t = 0; t < 5; t++)
        for (int r = 0; r < 4; r++) {
            cl_uint nn = (cl_uint)(n * ms[t]);
            CK(clSetKernelArg(k, 1, sizeof nn, &nn));
            cl_event ke, re;
            const double h_enq = now();
            CK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &ke));
            CK(clFlush(q));
            CK(clWaitForEvents(1, &ke));
            const double h_fin = now();
            cl_ulong d2 = 0, h2 = 0;
            const cl_int tr2 = clGetDeviceAndHostTimer(d, &d2, &h2);
            const double hq = now();
            CK(clEnqueueReadBuffer(q, o, CL_FALSE, 0, sizeof host, host, 0, NULL, &re));
            CK(clFinish(q));
            const cl_ulong E = st(ke, CL_PROFILING_COMMAND_END),
                           KQ = st(ke, CL_PROFILING_COMMAND_QUEUED),
                           RQ = st(re, CL_PROFILING_COMMAND_QUEUED);
            const double a = hq + ((double)E - (double)RQ) * 1e-9 - h_fin;
            const double b = h_enq + ((double)E - (double)KQ) * 1e-9 - h_fin;
            /* C: the pair's host stamp is on the platform's host clock; take its offset to CLOCK_MONOTONIC as ~0 if same base */
            const double c = tr2 == CL_SUCCESS
                                 ? (double)h2 * 1e-9 + ((double)E - (double)d2) * 1e-9 - h_fin
                                 : 0.0;
            printf("%8.0f %4d %10.1f %10.1f %10.1f %10.3f\n", ms[t], r, a * 1e6, b * 1e6, c * 1e6,
                   (st(ke, CL_PROFILING_COMMAND_END) - st(ke, CL_PROFILING_COMMAND_START)) * 1e-6);
            clReleaseEvent(ke);
            clReleaseEvent(re);
        }
    return 0;
}
