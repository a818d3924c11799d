/* cltime.c — an LD_PRELOAD shim that counts and times the OpenCL host calls of a process
 * (a diagnostic: how many commands and how much host time a job costs in a driver).
 *
 * Owns: one counter set per wrapped call (calls, total and worst host time, calls over
 * 100 us), updated with atomics from any thread, and the table printed when the process
 * exits: to the file named by RTM_CLTIME_OUT (appended), else to stderr.
 *
 * Each wrapper looks the real function up once (dlsym RTLD_NEXT, then kept), times the
 * call with CLOCK_MONOTONIC and passes its result through unchanged. Built by CMake as
 * the module `rtmgr-cltime`; board/cltime/jobcalls.sh runs a task set under it and prints
 * the calls per job:
 *     RTM_CLTIME_OUT=calls.txt LD_PRELOAD=build/librtmgr-cltime.so rtmgr run -c … */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    C_WRITE, C_READ, C_FILL, C_COPY, C_NDRANGE, C_MARKER, C_BARRIER, C_MAP, C_UNMAP,
    C_SETARG, C_USEREVENT, C_USERSTATUS, C_CALLBACK, C_FLUSH, C_FINISH, C_WAIT, C_EVENTINFO,
    C_RETAIN, C_RELEASE, C_COUNT
};

static const char *const call_name[C_COUNT] = {
    "clEnqueueWriteBuffer", "clEnqueueReadBuffer", "clEnqueueFillBuffer",
    "clEnqueueCopyBuffer", "clEnqueueNDRangeKernel", "clEnqueueMarkerWithWaitList",
    "clEnqueueBarrierWithWaitList", "clEnqueueMapBuffer", "clEnqueueUnmapMemObject",
    "clSetKernelArg", "clCreateUserEvent", "clSetUserEventStatus", "clSetEventCallback",
    "clFlush", "clFinish", "clWaitForEvents", "clGetEventInfo", "clRetainEvent",
    "clReleaseEvent"};

typedef struct {
    _Atomic uint64_t calls, total_ns, max_ns, over_100us;
} counter_t;

static counter_t counters[C_COUNT];

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void record(int c, uint64_t t0)
{
    const uint64_t d = now_ns() - t0;
    counter_t *k = &counters[c];
    atomic_fetch_add(&k->calls, 1);
    atomic_fetch_add(&k->total_ns, d);
    if (d > 100000u)
        atomic_fetch_add(&k->over_100us, 1);
    uint64_t m = atomic_load(&k->max_ns);
    while (d > m && !atomic_compare_exchange_weak(&k->max_ns, &m, d)) {
    }
}

/* The real function `name` (the next definition after this shim's), or exits. */
static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "cltime: %s not found behind the shim\n", name);
        exit(127);
    }
    return f;
}

__attribute__((destructor)) static void print_table(void)
{
    const char *path = getenv("RTM_CLTIME_OUT");
    FILE *f = path ? fopen(path, "a") : NULL;
    FILE *out = f ? f : stderr;
    fprintf(out, "%-30s %10s %12s %10s %10s %8s\n", "call", "count", "total_ms", "mean_us",
            "max_us", ">100us");
    for (int c = 0; c < C_COUNT; c++) {
        const uint64_t n = atomic_load(&counters[c].calls);
        if (n == 0)
            continue;
        const double tot = (double)atomic_load(&counters[c].total_ns);
        fprintf(out, "%-30s %10llu %12.3f %10.2f %10.1f %8llu\n", call_name[c],
                (unsigned long long)n, tot / 1e6, tot / 1e3 / (double)n,
                (double)atomic_load(&counters[c].max_ns) / 1e3,
                (unsigned long long)atomic_load(&counters[c].over_100us));
    }
    if (f)
        fclose(f);
}

/* Defines the wrapper of `name` (counter c): RT name(PARAMS) calling the real one with
 * ARGS. */
#define CLTIME_WRAP(c, RT, name, PARAMS, ARGS)                                              \
    RT CL_API_CALL name PARAMS;                                                             \
    RT CL_API_CALL name PARAMS                                                              \
    {                                                                                       \
        static void *cltime_found_;                                                         \
        void *cltime_p_ = __atomic_load_n(&cltime_found_, __ATOMIC_ACQUIRE);                \
        if (!cltime_p_) {                                                                   \
            cltime_p_ = real(#name);                                                        \
            __atomic_store_n(&cltime_found_, cltime_p_, __ATOMIC_RELEASE);                  \
        }                                                                                   \
        RT(CL_API_CALL * cltime_fn_) PARAMS;                                                \
        memcpy(&cltime_fn_, &cltime_p_, sizeof(cltime_fn_));                                \
        const uint64_t cltime_t0_ = now_ns();                                               \
        RT cltime_r_ = cltime_fn_ ARGS;                                                     \
        record(c, cltime_t0_);                                                              \
        return cltime_r_;                                                                   \
    }

CLTIME_WRAP(C_WRITE, cl_int, clEnqueueWriteBuffer,
            (cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t n, const void *p,
             cl_uint nw, const cl_event *w, cl_event *e),
            (q, b, blocking, off, n, p, nw, w, e))
CLTIME_WRAP(C_READ, cl_int, clEnqueueReadBuffer,
            (cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t n, void *p,
             cl_uint nw, const cl_event *w, cl_event *e),
            (q, b, blocking, off, n, p, nw, w, e))
CLTIME_WRAP(C_FILL, cl_int, clEnqueueFillBuffer,
            (cl_command_queue q, cl_mem b, const void *pat, size_t pn, size_t off, size_t n,
             cl_uint nw, const cl_event *w, cl_event *e),
            (q, b, pat, pn, off, n, nw, w, e))
CLTIME_WRAP(C_COPY, cl_int, clEnqueueCopyBuffer,
            (cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n, cl_uint nw,
             const cl_event *w, cl_event *e),
            (q, s, d, so, dof, n, nw, w, e))
CLTIME_WRAP(C_NDRANGE, cl_int, clEnqueueNDRangeKernel,
            (cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *go, const size_t *gs,
             const size_t *ls, cl_uint nw, const cl_event *w, cl_event *e),
            (q, k, dim, go, gs, ls, nw, w, e))
CLTIME_WRAP(C_MARKER, cl_int, clEnqueueMarkerWithWaitList,
            (cl_command_queue q, cl_uint nw, const cl_event *w, cl_event *e), (q, nw, w, e))
CLTIME_WRAP(C_BARRIER, cl_int, clEnqueueBarrierWithWaitList,
            (cl_command_queue q, cl_uint nw, const cl_event *w, cl_event *e), (q, nw, w, e))
CLTIME_WRAP(C_MAP, void *, clEnqueueMapBuffer,
            (cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags fl, size_t off,
             size_t n, cl_uint nw, const cl_event *w, cl_event *e, cl_int *err),
            (q, b, blocking, fl, off, n, nw, w, e, err))
CLTIME_WRAP(C_UNMAP, cl_int, clEnqueueUnmapMemObject,
            (cl_command_queue q, cl_mem m, void *p, cl_uint nw, const cl_event *w, cl_event *e),
            (q, m, p, nw, w, e))
CLTIME_WRAP(C_SETARG, cl_int, clSetKernelArg, (cl_kernel k, cl_uint i, size_t n, const void *v),
            (k, i, n, v))
CLTIME_WRAP(C_USEREVENT, cl_event, clCreateUserEvent, (cl_context ctx, cl_int *err), (ctx, err))
CLTIME_WRAP(C_USERSTATUS, cl_int, clSetUserEventStatus, (cl_event e, cl_int s), (e, s))
CLTIME_WRAP(C_CALLBACK, cl_int, clSetEventCallback,
            (cl_event e, cl_int type, void(CL_CALLBACK *cb)(cl_event, cl_int, void *), void *u),
            (e, type, cb, u))
CLTIME_WRAP(C_FLUSH, cl_int, clFlush, (cl_command_queue q), (q))
CLTIME_WRAP(C_FINISH, cl_int, clFinish, (cl_command_queue q), (q))
CLTIME_WRAP(C_WAIT, cl_int, clWaitForEvents, (cl_uint n, const cl_event *list), (n, list))
CLTIME_WRAP(C_EVENTINFO, cl_int, clGetEventInfo,
            (cl_event e, cl_event_info what, size_t n, void *v, size_t *ret), (e, what, n, v, ret))
CLTIME_WRAP(C_RETAIN, cl_int, clRetainEvent, (cl_event e), (e))
CLTIME_WRAP(C_RELEASE, cl_int, clReleaseEvent, (cl_event e), (e))
