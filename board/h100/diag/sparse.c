/* Diagnostic (session 68, not part of rtmgr): does a small job's kernel time depend on how
 * often jobs come? One job = two inputs written (non-blocking), c = a + b over N floats,
 * the output read, clFinish; profiling START/END of each command. Phases of PERIOD ms
 * between releases (absolute clock_nanosleep), each SECONDS long; per phase the median
 * and p90 of inputs, kernel and output, and the host's release-to-finish time.
 * Usage: sparse [N [SECONDS [PERIOD_MS...]]]   (defaults 65536, 4, 0 1 5 20 100 500)
 * Build: gcc -O2 -std=c11 -D_GNU_SOURCE -I. -Irtmgr board/h100/diag/sparse.c rtmgr/stats.c
 *        rtmgr/os.c -lOpenCL -lpthread -lm -o /tmp/sparse
 * Platform by RTM_PLATFORM (substring), first GPU else first device. PIN=1: the host
 * arrays in pinned memory (a mapped CL_MEM_ALLOC_HOST_PTR buffer, as rtmgr's). WAKE=1: an
 * empty kernel on a second queue, enqueued and flushed before the inputs (no dependency
 * either way), so that the device's compute side wakes while the inputs are copied.
 * WAKE=2: the same empty kernel LEAD_US (default 100) before each release (the host
 * sleeps to release - LEAD_US, enqueues and flushes it, sleeps to the release): the device
 * woken ahead of a release the host knows, as a periodic task's. WAKE=3: the host wakes
 * LEAD_US early and sleeps again, enqueueing nothing (WAKE=2's host side alone).
 * "job" = the first input's START to the output's END (the job on the device); "host" =
 * the release to the host's notice of the end (what a deadline sees). WAIT: how the host
 * notices: 0 clFinish, 1 spins on the output event's status, 2 the event's completion
 * callback signals a condition variable the host thread waits on (rtmgr's executive). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag_cl.h"
#include "rtmgr/os.h"
#include "rtmgr/stats.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int fired;

static void CL_CALLBACK on_done(cl_event ev, cl_int st, void *arg)
{
    (void)ev, (void)st, (void)arg;
    pthread_mutex_lock(&mu);
    fired = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static const char *src = "__kernel void add(__global const float *a, __global const float *b,"
                         " __global float *c) { size_t i = get_global_id(0); c[i] = a[i] + b[i]; }"
                         "__kernel void nop(void) { }";

static double span_us(cl_event e)
{
    cl_ulong s = 0, f = 0;
    CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
    CK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof f, &f, NULL));
    return 1e-3 * (double)(f - s);
}

/* Nearest-rank quantile p (0 < p <= 1) of v[0..n), sorted in place. */
static double q(double *v, int n, double p)
{
    rtm_stats_sort(v, (size_t)n);
    return rtm_stats_percentile(v, (size_t)n, 100.0 * p);
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? (size_t)atol(argv[1]) : 65536;
    const double secs = argc > 2 ? atof(argv[2]) : 4.0;
    double periods[16] = {0, 1, 5, 20, 100, 500};
    int np = 6;
    if (argc > 3) {
        np = 0;
        for (int i = 3; i < argc && np < 16; i++)
            periods[np++] = atof(argv[i]);
    }
    const char *want = getenv("RTM_PLATFORM");
    const cl_platform_id p = diag_cl_platform(want, true);
    if (!p)
        return fprintf(stderr, "no OpenCL platform\n"), 1;
    cl_device_id dev;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS)
        CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    char dname[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
    cl_int e;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    CK(e);
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue qu = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
    CK(e);
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, dev, props, &e);
    CK(e);
    const int wake = getenv("WAKE") ? atoi(getenv("WAKE")) : 0;
    const int wait = getenv("WAIT") ? atoi(getenv("WAIT")) : 0;
    const long lead_ns = 1000L * (getenv("LEAD_US") ? atol(getenv("LEAD_US")) : 100);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
    CK(e);
    CK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "add", &e);
    CK(e);
    cl_kernel nop = clCreateKernel(prog, "nop", &e);
    CK(e);
    const size_t bytes = n * sizeof(float);
    float *ha, *hb, *hc;
    const int pin = getenv("PIN") && atoi(getenv("PIN"));
    if (pin) {
        cl_mem pm = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, 3 * bytes, NULL, &e);
        CK(e);
        ha = clEnqueueMapBuffer(qu, pm, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 3 * bytes, 0, NULL,
                                NULL, &e);
        CK(e);
        hb = ha + n, hc = hb + n;
    } else {
        ha = malloc(bytes), hb = malloc(bytes), hc = malloc(bytes);
    }
    for (size_t i = 0; i < n; i++)
        ha[i] = (float)i, hb[i] = 1.0f;
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &e);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &e);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &e);
    CK(e);
    CK(clSetKernelArg(k, 0, sizeof a, &a));
    CK(clSetKernelArg(k, 1, sizeof b, &b));
    CK(clSetKernelArg(k, 2, sizeof c, &c));
    printf("device %s, n %zu, %.1f s a phase, pinned %d, wake %d, wait %d\n", dname, n, secs, pin,
           wake, wait);
    printf("%9s %6s | %22s | %22s | %22s | %22s | %22s\n", "period_ms", "jobs", "in us p50/p90",
           "kernel us p50/p90/max", "out us p50/p90", "job us p50/p90", "host us p50/p90");
    const int cap = 200000;
    double *vin = malloc(cap * sizeof(double)), *vk = malloc(cap * sizeof(double));
    double *vout = malloc(cap * sizeof(double)), *vh = malloc(cap * sizeof(double));
    double *vj = malloc(cap * sizeof(double));
    for (int ph = 0; ph < np; ph++) {
        const double per = periods[ph] * 1e-3;
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        const double t_end = rtm_os_now_s() + secs;
        int j = 0;
        while (rtm_os_now_s() < t_end && j < cap) {
            if (wake >= 2 && per > 0) { /* next is the release: wake the device lead_ns before */
                struct timespec w = next;
                w.tv_nsec -= lead_ns;
                while (w.tv_nsec < 0)
                    w.tv_nsec += 1000000000L, w.tv_sec--;
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &w, NULL);
                size_t one = 32;
                if (wake == 2) {
                    CK(clEnqueueNDRangeKernel(q2, nop, 1, NULL, &one, &one, 0, NULL, NULL));
                    CK(clFlush(q2));
                }
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            }
            const double h0 = rtm_os_now_s();
            cl_event ev[4];
            if (wake == 1) {
                size_t one = 32;
                CK(clEnqueueNDRangeKernel(q2, nop, 1, NULL, &one, &one, 0, NULL, NULL));
                CK(clFlush(q2));
            }
            CK(clEnqueueWriteBuffer(qu, a, CL_FALSE, 0, bytes, ha, 0, NULL, &ev[0]));
            CK(clEnqueueWriteBuffer(qu, b, CL_FALSE, 0, bytes, hb, 0, NULL, &ev[1]));
            size_t gs = n, ls = 256;
            CK(clEnqueueNDRangeKernel(qu, k, 1, NULL, &gs, &ls, 0, NULL, &ev[2]));
            CK(clEnqueueReadBuffer(qu, c, CL_FALSE, 0, bytes, hc, 0, NULL, &ev[3]));
            if (wait == 1) {
                CK(clFlush(qu));
                cl_int es = CL_QUEUED;
                while (es != CL_COMPLETE && es >= 0)
                    CK(clGetEventInfo(ev[3], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof es, &es, NULL));
            } else if (wait == 2) {
                fired = 0;
                CK(clSetEventCallback(ev[3], CL_COMPLETE, on_done, NULL));
                CK(clFlush(qu));
                pthread_mutex_lock(&mu);
                while (!fired)
                    pthread_cond_wait(&cv, &mu);
                pthread_mutex_unlock(&mu);
            } else {
                CK(clFinish(qu));
            }
            vh[j] = 1e6 * (rtm_os_now_s() - h0);
            CK(clFinish(qu));
            vin[j] = span_us(ev[0]) + span_us(ev[1]);
            vk[j] = span_us(ev[2]);
            vout[j] = span_us(ev[3]);
            cl_ulong s0 = 0, f3 = 0;
            CK(clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_START, sizeof s0, &s0, NULL));
            CK(clGetEventProfilingInfo(ev[3], CL_PROFILING_COMMAND_END, sizeof f3, &f3, NULL));
            vj[j] = 1e-3 * (double)(f3 - s0);
            for (int i = 0; i < 4; i++)
                clReleaseEvent(ev[i]);
            j++;
            if (per > 0) {
                long ns = next.tv_nsec + (long)(per * 1e9);
                next.tv_sec += ns / 1000000000L;
                next.tv_nsec = ns % 1000000000L;
                if (wake < 2)
                    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
            }
        }
        const double kmax = q(vk, j, 1.0);
        if (wake)
            CK(clFinish(q2));
        printf("%9.1f %6d | %10.1f %10.1f | %7.1f %7.1f %6.1f | %10.1f %10.1f | %10.1f %10.1f | %10.1f %10.1f\n",
               periods[ph], j, q(vin, j, 0.5), q(vin, j, 0.9), q(vk, j, 0.5), q(vk, j, 0.9), kmax,
               q(vout, j, 0.5), q(vout, j, 0.9), q(vj, j, 0.5), q(vj, j, 0.9), q(vh, j, 0.5),
               q(vh, j, 0.9));
        fflush(stdout);
    }
    return 0;
}
