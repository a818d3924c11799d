/* ocl.h — OpenCL platforms and devices: discovery, one context and two queues per
 * device, and the error reporting every cl* call goes through.
 *
 * Each opened device has an execution queue (in order, profiling on) for kernels and
 * transfers, and a control queue on which the abort flag travels (seed 002: the flag
 * write must not queue behind the running kernel). */
#ifndef RTM_OCL_H
#define RTM_OCL_H

#include <stdbool.h>
#include <stdint.h>

#include <CL/cl.h>

#include "limits.h"
#include "status.h"

/* What discovery learns of one device. */
typedef struct {
    cl_platform_id platform;
    cl_device_id id;
    uint32_t index; /* position in discovery order: the N of `--device N` */
    char platform_name[128];
    char name[128];
    char vendor[128];
    char version[128];        /* CL_DEVICE_VERSION */
    char driver[128];         /* CL_DRIVER_VERSION */
    char c_version[64];       /* CL_DEVICE_OPENCL_C_VERSION */
    cl_device_type type;
    cl_uint units;            /* CL_DEVICE_MAX_COMPUTE_UNITS */
    cl_uint clock_mhz;
    cl_ulong global_mem, local_mem, max_alloc;
    size_t max_wg;
    bool host_unified;        /* CPU or integrated device sharing host memory */
    bool has_double;
    cl_uint pref_vec_char, pref_vec_int, pref_vec_float, pref_vec_double;
    cl_uint nv_cc_major, nv_cc_minor; /* NVIDIA GPUs: compute capability
                                        * (cl_nv_device_attribute_query); 0 elsewhere */
} rtm_ocl_info_t;

/* Is it an NVIDIA GPU (its vendor extensions and PTX: nv_cc_*, -cl-nv-verbose, inline
 * assembly in kernels)? */
bool rtm_ocl_nv_gpu(const rtm_ocl_info_t *info);

/* An opened device. */
typedef struct {
    rtm_ocl_info_t info;
    cl_context ctx;
    cl_command_queue exec; /* kernels and transfers, profiling enabled */
    cl_command_queue ctrl; /* abort-flag traffic, checkpoint reads after an abort */
    cl_command_queue side; /* output reads beside exec, each behind its job's last kernel
                            * (preemptible jobs: kexec read_beside), profiling enabled */
    cl_command_queue exec2; /* a chunked job's odd chunks beside exec's even ones (kexec.h
                             * chunks), profiling enabled */
} rtm_ocl_dev_t;

/* Prints "rtmgr: CALL failed: CL_NAME (code) at FILE:LINE" to stderr and returns
 * RTM_E_CL (or `status` when given). Init and error paths only. */
rtm_status_t rtm_ocl_fail(const char *call, cl_int err, const char *file, int line);
#define RTM_CL_CHECK(call_expr, name)                                               \
    do {                                                                            \
        cl_int rtm_cl_err_ = (call_expr);                                           \
        if (rtm_cl_err_ != CL_SUCCESS)                                              \
            return rtm_ocl_fail((name), rtm_cl_err_, __FILE__, __LINE__);           \
    } while (0)

/* Name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). Safe anywhere. */
const char *rtm_ocl_errname(cl_int err);

/* Lists every device of every platform, up to `max`, into `out`. *n gets the count.
 * With the environment variable RTM_PLATFORM set, only platforms whose name contains it
 * are listed (e.g. RTM_PLATFORM=NVIDIA makes the GPU device 0 for tests and tools).
 * A machine with no platform returns RTM_E_CL_NODEV. Init only. */
rtm_status_t rtm_ocl_discover(rtm_ocl_info_t *out, uint32_t max, uint32_t *n);

/* What discovery saw, for a diagnostic: "2 platforms: NAME 1 device(s), NAME
 * clGetDeviceIDs CL_..." (a platform whose devices cannot be listed is skipped by
 * rtm_ocl_discover without a word). Returns buf. Init only. */
const char *rtm_ocl_describe_platforms(char *buf, size_t len);

/* Finds the first device whose platform name contains `platform` and whose device name
 * contains `device` (empty strings match anything). Init only. */
rtm_status_t rtm_ocl_find(const char *platform, const char *device, rtm_ocl_info_t *out);

/* Opens a device: context, execution queue (profiling) and control queue. Init only. */
rtm_status_t rtm_ocl_open(rtm_ocl_dev_t *d, const rtm_ocl_info_t *info);
/* Releases what rtm_ocl_open created. Safe on a zeroed or half-opened struct. */
void rtm_ocl_close(rtm_ocl_dev_t *d);

/* Profiled duration of a finished event (END - START), seconds; 0 on failure. */
double rtm_ocl_event_seconds(cl_event ev);
/* Of two completed, profiled commands of one device (b may be NULL), the one that ended
 * later by the device clock (a when either is unknown). */
cl_event rtm_ocl_later_end(cl_event a, cl_event b);
/* Nanoseconds from a's START to b's END (finished, profiled events); 0 when either is
 * NULL, not profiled, or b ends before a starts. Real-time safe. */
int64_t rtm_ocl_span_ns(cl_event a, cl_event b);
/* Nanoseconds the device idled from a's END to b's START (finished, profiled events);
 * 0 when either is NULL, not profiled, or b starts before a ends. Real-time safe. */
int64_t rtm_ocl_gap_ns(cl_event a, cl_event b);
/* 1 when ev's command has completed, 0 not yet, < 0 failed (the command, or the query:
 * status in *st, reported). Does not wait. Real-time safe. */
int rtm_ocl_event_done(cl_event ev, rtm_status_t *st);
/* Waits for *ev (if any), releases it and sets it NULL; `what` names the wait in the
 * error report. Real-time safe (blocks until the command ends). */
rtm_status_t rtm_ocl_settle(cl_event *ev, const char *what);
/* ev's profiling stamp `what` (CL_PROFILING_COMMAND_QUEUED, _START, _END), device clock,
 * ns; 0 when ev is NULL or the stamp is not there. Real-time safe. */
cl_ulong rtm_ocl_stamp(cl_event ev, cl_profiling_info what);
/* Releases *ev (if any) without waiting and sets it NULL. Real-time safe. */
void rtm_ocl_put(cl_event *ev);
/* Waits for the device's execution queues, exec then exec2 (kexec chunks); the first
 * error. Real-time safe (blocks until their commands end). */
cl_int rtm_ocl_finish_exec(const rtm_ocl_dev_t *d);

#endif
