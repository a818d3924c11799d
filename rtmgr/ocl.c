/* ocl.c — OpenCL discovery, device opening and error naming (see ocl.h).
 * Owns the cl_context and the two command queues of every opened device. */
#include "ocl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rtm_ocl_errname(cl_int err)
{
    switch (err) {
#define E(x) \
    case x:  \
        return #x;
        E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY) E(CL_PROFILING_INFO_NOT_AVAILABLE)
        E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH) E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE) E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) E(CL_COMPILE_PROGRAM_FAILURE)
        E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE) E(CL_DEVICE_PARTITION_FAILED)
        E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE)
        E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
        E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
        E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        E(CL_INVALID_IMAGE_SIZE) E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY)
        E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE)
        E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION) E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT)
        E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_INVALID_PROPERTY) E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
        E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    default:
        return "CL_UNKNOWN_ERROR";
    }
}

rtm_status_t rtm_ocl_fail(const char *call, cl_int err, const char *file, int line)
{
    fprintf(stderr, "rtmgr: %s failed: %s (%d) at %s:%d\n", call, rtm_ocl_errname(err),
            (int)err, file, line);
    return err == CL_BUILD_PROGRAM_FAILURE ? RTM_E_CL_BUILD : RTM_E_CL;
}

static void info_string(cl_device_id d, cl_device_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, len - 1, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

/* The platform's name, "" when it cannot be read. */
static void platform_name(cl_platform_id p, char *buf, size_t len)
{
    buf[0] = '\0';
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, len - 1, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
    buf[len - 1] = '\0';
}

bool rtm_ocl_nv_gpu(const rtm_ocl_info_t *info)
{
    return (info->type & CL_DEVICE_TYPE_GPU) && strstr(info->platform_name, "NVIDIA");
}

static void describe(cl_platform_id p, cl_device_id d, uint32_t index, rtm_ocl_info_t *o)
{
    memset(o, 0, sizeof(*o));
    o->platform = p;
    o->id = d;
    o->index = index;
    platform_name(p, o->platform_name, sizeof(o->platform_name));
    info_string(d, CL_DEVICE_NAME, o->name, sizeof(o->name));
    info_string(d, CL_DEVICE_VENDOR, o->vendor, sizeof(o->vendor));
    info_string(d, CL_DEVICE_VERSION, o->version, sizeof(o->version));
    info_string(d, CL_DRIVER_VERSION, o->driver, sizeof(o->driver));
    info_string(d, CL_DEVICE_OPENCL_C_VERSION, o->c_version, sizeof(o->c_version));
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof(o->type), &o->type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(o->units), &o->units, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof(o->clock_mhz), &o->clock_mhz, NULL);
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(o->global_mem), &o->global_mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(o->local_mem), &o->local_mem, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(o->max_alloc), &o->max_alloc, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(o->max_wg), &o->max_wg, NULL);
    cl_bool unified = CL_FALSE;
    clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified, NULL);
    o->host_unified = unified == CL_TRUE || (o->type & CL_DEVICE_TYPE_CPU);
    cl_device_fp_config fp = 0;
    clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof(fp), &fp, NULL);
    o->has_double = fp != 0;
    clGetDeviceInfo(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, sizeof(cl_uint), &o->pref_vec_char, NULL);
    clGetDeviceInfo(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, sizeof(cl_uint), &o->pref_vec_int, NULL);
    clGetDeviceInfo(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, sizeof(cl_uint), &o->pref_vec_float, NULL);
    clGetDeviceInfo(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, sizeof(cl_uint), &o->pref_vec_double, NULL);
    if (rtm_ocl_nv_gpu(o)) {
        clGetDeviceInfo(d, 0x4000 /* CC major */, sizeof(cl_uint), &o->nv_cc_major, NULL);
        clGetDeviceInfo(d, 0x4001 /* CC minor */, sizeof(cl_uint), &o->nv_cc_minor, NULL);
    }
}

rtm_status_t rtm_ocl_discover(rtm_ocl_info_t *out, uint32_t max, uint32_t *n)
{
    cl_platform_id plats[RTM_MAX_PLATFORMS];
    cl_uint np = 0;
    *n = 0;
    const cl_int err = clGetPlatformIDs(RTM_MAX_PLATFORMS, plats, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0)) {
        fprintf(stderr, "rtmgr: no OpenCL platform found (is an ICD such as "
                        "pocl-opencl-icd installed? OCL_ICD_VENDORS=%s)\n",
                getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") : "unset");
        return RTM_E_CL_NODEV;
    }
    RTM_CL_CHECK(err, "clGetPlatformIDs");
    if (np > RTM_MAX_PLATFORMS)
        np = RTM_MAX_PLATFORMS;
    const char *only = getenv("RTM_PLATFORM");
    for (cl_uint p = 0; p < np; p++) {
        if (only && *only) {
            char pname[128];
            platform_name(plats[p], pname, sizeof(pname));
            if (!strstr(pname, only))
                continue;
        }
        cl_device_id devs[RTM_MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, RTM_MAX_DEVICES, devs, &nd) != CL_SUCCESS)
            continue;
        if (nd > RTM_MAX_DEVICES)
            nd = RTM_MAX_DEVICES;
        for (cl_uint d = 0; d < nd && *n < max; d++) {
            describe(plats[p], devs[d], *n, &out[*n]);
            (*n)++;
        }
    }
    if (*n == 0 && only && *only)
        fprintf(stderr, "rtmgr: no OpenCL platform found with a device whose platform name "
                        "contains RTM_PLATFORM=%s (%u platforms seen)\n", only, (unsigned)np);
    return *n ? RTM_OK : RTM_E_CL_NODEV;
}

const char *rtm_ocl_describe_platforms(char *buf, size_t len)
{
    cl_platform_id plats[RTM_MAX_PLATFORMS];
    cl_uint np = 0;
    const cl_int err = clGetPlatformIDs(RTM_MAX_PLATFORMS, plats, &np);
    if (err != CL_SUCCESS) {
        snprintf(buf, len, "clGetPlatformIDs %s", rtm_ocl_errname(err));
        return buf;
    }
    np = np > RTM_MAX_PLATFORMS ? RTM_MAX_PLATFORMS : np;
    size_t used = (size_t)snprintf(buf, len, "%u platform(s)", (unsigned)np);
    for (cl_uint p = 0; p < np && used < len; p++) {
        char pname[128];
        platform_name(plats[p], pname, sizeof(pname));
        cl_uint nd = 0;
        const cl_int de = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        char what[64];
        if (de == CL_SUCCESS)
            snprintf(what, sizeof(what), "%u device(s)", (unsigned)nd);
        else
            snprintf(what, sizeof(what), "clGetDeviceIDs %s", rtm_ocl_errname(de));
        used += (size_t)snprintf(buf + used, len - used, "%s %s %s", p ? "," : ":", pname, what);
    }
    return buf;
}

rtm_status_t rtm_ocl_find(const char *platform, const char *device, rtm_ocl_info_t *out)
{
    rtm_ocl_info_t all[RTM_MAX_DEVICES];
    uint32_t n = 0;
    const rtm_status_t st = rtm_ocl_discover(all, RTM_MAX_DEVICES, &n);
    if (st != RTM_OK)
        return st;
    for (uint32_t i = 0; i < n; i++) {
        if ((!platform || strstr(all[i].platform_name, platform)) &&
            (!device || strstr(all[i].name, device))) {
            *out = all[i];
            return RTM_OK;
        }
    }
    return RTM_E_CL_NODEV;
}

rtm_status_t rtm_ocl_open(rtm_ocl_dev_t *d, const rtm_ocl_info_t *info)
{
    cl_int err = CL_SUCCESS;
    memset(d, 0, sizeof(*d));
    d->info = *info;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           (cl_context_properties)info->platform, 0};
    d->ctx = clCreateContext(props, 1, &info->id, NULL, NULL, &err);
    RTM_CL_CHECK(err, "clCreateContext");
    const cl_queue_properties qprof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue *const qs[] = {&d->exec, &d->ctrl, &d->side, &d->exec2};
    static const char *const names[] = {"clCreateCommandQueueWithProperties(exec)",
                                        "clCreateCommandQueueWithProperties(ctrl)",
                                        "clCreateCommandQueueWithProperties(side)",
                                        "clCreateCommandQueueWithProperties(exec2)"};
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
        *qs[i] = clCreateCommandQueueWithProperties(d->ctx, info->id, qprof, &err);
        if (err != CL_SUCCESS) {
            rtm_ocl_close(d);
            return rtm_ocl_fail(names[i], err, __FILE__, __LINE__);
        }
    }
    return RTM_OK;
}

void rtm_ocl_close(rtm_ocl_dev_t *d)
{
    if (d->exec2)
        clReleaseCommandQueue(d->exec2);
    if (d->side)
        clReleaseCommandQueue(d->side);
    if (d->ctrl)
        clReleaseCommandQueue(d->ctrl);
    if (d->exec)
        clReleaseCommandQueue(d->exec);
    if (d->ctx)
        clReleaseContext(d->ctx);
    d->exec2 = d->side = d->ctrl = d->exec = NULL;
    d->ctx = NULL;
}

double rtm_ocl_event_seconds(cl_event ev) { return (double)rtm_ocl_span_ns(ev, ev) * 1e-9; }

cl_ulong rtm_ocl_stamp(cl_event ev, cl_profiling_info what)
{
    cl_ulong t = 0;
    if (!ev || clGetEventProfilingInfo(ev, what, sizeof(t), &t, NULL) != CL_SUCCESS)
        return 0;
    return t;
}

/* Nanoseconds from event a's profiling time `at` to b's `bt`; 0 when either is NULL,
 * not profiled, or b's comes first. */
static int64_t prof_interval_ns(cl_event a, cl_profiling_info at, cl_event b,
                                cl_profiling_info bt)
{
    const cl_ulong t0 = rtm_ocl_stamp(a, at), t1 = rtm_ocl_stamp(b, bt);
    return t0 && t1 > t0 ? (int64_t)(t1 - t0) : 0;
}

cl_event rtm_ocl_later_end(cl_event a, cl_event b)
{
    const cl_ulong ea = rtm_ocl_stamp(a, CL_PROFILING_COMMAND_END);
    const cl_ulong eb = rtm_ocl_stamp(b, CL_PROFILING_COMMAND_END);
    return ea && eb > ea ? b : a;
}

int64_t rtm_ocl_span_ns(cl_event a, cl_event b)
{
    return prof_interval_ns(a, CL_PROFILING_COMMAND_START, b, CL_PROFILING_COMMAND_END);
}

int64_t rtm_ocl_gap_ns(cl_event a, cl_event b)
{
    return prof_interval_ns(a, CL_PROFILING_COMMAND_END, b, CL_PROFILING_COMMAND_START);
}

int rtm_ocl_event_done(cl_event ev, rtm_status_t *st)
{
    cl_int s = CL_QUEUED;
    const cl_int err =
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(s), &s, NULL);
    if (err != CL_SUCCESS) {
        *st = rtm_ocl_fail("clGetEventInfo", err, __FILE__, __LINE__);
        return -1;
    }
    if (s < 0) {
        *st = rtm_ocl_fail("kernel execution", s, __FILE__, __LINE__);
        return -1;
    }
    return s == CL_COMPLETE;
}

void rtm_ocl_put(cl_event *ev)
{
    if (*ev)
        clReleaseEvent(*ev);
    *ev = NULL;
}

cl_int rtm_ocl_finish_exec(const rtm_ocl_dev_t *d)
{
    const cl_int err = clFinish(d->exec);
    const cl_int err2 = clFinish(d->exec2);
    return err != CL_SUCCESS ? err : err2;
}

rtm_status_t rtm_ocl_settle(cl_event *ev, const char *what)
{
    if (!*ev)
        return RTM_OK;
    const cl_int err = clWaitForEvents(1, ev);
    clReleaseEvent(*ev);
    *ev = NULL;
    RTM_CL_CHECK(err, what);
    return RTM_OK;
}
