/* abortflag.c — the two transports of the abort flag (see abortflag.h).
 *
 * Owns the flag's cl_mem or SVM word and, for WRITE, the pinned staging buffer whose two
 * ints never change after creation (0 at [0], 1 at [1]): a non-blocking transfer may read
 * them at any later time. Invariant: at most one raise is in flight; settle() waits for
 * it before the flag may be cleared again. */
#include "abortflag.h"

#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *rtm_abortflag_name(rtm_abort_transport_t t)
{
    return t == RTM_ABORT_MAPPED ? "mapped" : "write";
}

rtm_abort_transport_t rtm_abortflag_default(const rtm_ocl_info_t *info)
{
    return (info->type & CL_DEVICE_TYPE_CPU) || info->host_unified ? RTM_ABORT_MAPPED
                                                                   : RTM_ABORT_WRITE;
}

bool rtm_abortflag_has_svm(const rtm_ocl_info_t *info)
{
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(info->id, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL) !=
        CL_SUCCESS)
        return false;
    return (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
}

static rtm_status_t create_write(rtm_abortflag_t *f)
{
    cl_int err = CL_SUCCESS;
    f->mem = clCreateBuffer(f->dev->ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
    RTM_CL_CHECK(err, "clCreateBuffer(abort flag)");
    f->pin = clCreateBuffer(f->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                            2 * sizeof(cl_int), NULL, &err);
    RTM_CL_CHECK(err, "clCreateBuffer(abort pinned)");
    f->pin_host = clEnqueueMapBuffer(f->dev->exec, f->pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     2 * sizeof(cl_int), 0, NULL, NULL, &err);
    RTM_CL_CHECK(err, "clEnqueueMapBuffer(abort pinned)");
    f->pin_host[0] = 0;
    f->pin_host[1] = 1;
    RTM_CL_CHECK(clEnqueueWriteBuffer(f->dev->exec, f->mem, CL_TRUE, 0, sizeof(cl_int),
                                      &f->pin_host[0], 0, NULL, NULL),
                 "clEnqueueWriteBuffer(abort flag)");
    return RTM_OK;
}

static rtm_status_t create_mapped(rtm_abortflag_t *f)
{
    cl_int err = CL_SUCCESS;
    if (rtm_abortflag_has_svm(&f->dev->info)) {
        f->svm = clSVMAlloc(f->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                            sizeof(cl_int), 0);
        if (f->svm) {
            f->host = f->svm;
            __atomic_store_n(f->host, 0, __ATOMIC_SEQ_CST);
            return RTM_OK;
        }
    }
    f->mem = clCreateBuffer(f->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                            sizeof(cl_int), NULL, &err);
    RTM_CL_CHECK(err, "clCreateBuffer(abort flag, host)");
    f->host = clEnqueueMapBuffer(f->dev->exec, f->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                 sizeof(cl_int), 0, NULL, NULL, &err);
    RTM_CL_CHECK(err, "clEnqueueMapBuffer(abort flag)");
    __atomic_store_n(f->host, 0, __ATOMIC_SEQ_CST);
    return RTM_OK;
}

rtm_status_t rtm_abortflag_create(rtm_abortflag_t *f, rtm_ocl_dev_t *d, rtm_abort_transport_t t)
{
    memset(f, 0, sizeof(*f));
    f->dev = d;
    f->transport = t;
    const rtm_status_t st = t == RTM_ABORT_MAPPED ? create_mapped(f) : create_write(f);
    if (st != RTM_OK)
        rtm_abortflag_destroy(f);
    return st;
}

void rtm_abortflag_destroy(rtm_abortflag_t *f)
{
    if (f->raise_ev) {
        clWaitForEvents(1, &f->raise_ev);
        clReleaseEvent(f->raise_ev);
    }
    if (f->pin && f->pin_host) {
        clEnqueueUnmapMemObject(f->dev->exec, f->pin, f->pin_host, 0, NULL, NULL);
        clFinish(f->dev->exec);
    }
    if (f->mem && f->host) {
        clEnqueueUnmapMemObject(f->dev->exec, f->mem, (void *)f->host, 0, NULL, NULL);
        clFinish(f->dev->exec);
    }
    if (f->pin)
        clReleaseMemObject(f->pin);
    if (f->mem)
        clReleaseMemObject(f->mem);
    if (f->svm)
        clSVMFree(f->dev->ctx, f->svm);
    memset(f, 0, sizeof(*f));
}

rtm_status_t rtm_abortflag_set_arg(const rtm_abortflag_t *f, cl_kernel kern, cl_uint index)
{
    if (f->svm)
        RTM_CL_CHECK(clSetKernelArgSVMPointer(kern, index, f->svm), "clSetKernelArgSVMPointer(abort)");
    else
        RTM_CL_CHECK(clSetKernelArg(kern, index, sizeof(cl_mem), &f->mem), "clSetKernelArg(abort)");
    return RTM_OK;
}

rtm_status_t rtm_abortflag_clear(rtm_abortflag_t *f)
{
    if (f->transport == RTM_ABORT_MAPPED) {
        __atomic_store_n(f->host, 0, __ATOMIC_SEQ_CST);
        return RTM_OK;
    }
    RTM_CL_CHECK(clEnqueueWriteBuffer(f->dev->exec, f->mem, CL_FALSE, 0, sizeof(cl_int),
                                      &f->pin_host[0], 0, NULL, NULL),
                 "clEnqueueWriteBuffer(abort clear)");
    return RTM_OK;
}

rtm_status_t rtm_abortflag_raise(rtm_abortflag_t *f)
{
    f->raised_at = now_s();
    if (f->transport == RTM_ABORT_MAPPED) {
        __atomic_store_n(f->host, 1, __ATOMIC_SEQ_CST);
        return RTM_OK;
    }
    if (f->raise_ev) /* a previous raise not yet settled: it carries the same value */
        return RTM_OK;
    RTM_CL_CHECK(clEnqueueWriteBuffer(f->dev->ctrl, f->mem, CL_FALSE, 0, sizeof(cl_int),
                                      &f->pin_host[1], 0, NULL, &f->raise_ev),
                 "clEnqueueWriteBuffer(abort raise)");
    RTM_CL_CHECK(clFlush(f->dev->ctrl), "clFlush(ctrl)");
    return RTM_OK;
}

rtm_status_t rtm_abortflag_settle(rtm_abortflag_t *f)
{
    if (!f->raise_ev)
        return RTM_OK;
    const cl_int err = clWaitForEvents(1, &f->raise_ev);
    clReleaseEvent(f->raise_ev);
    f->raise_ev = NULL;
    RTM_CL_CHECK(err, "clWaitForEvents(abort raise)");
    return RTM_OK;
}

rtm_status_t rtm_abortflag_read(rtm_abortflag_t *f, int *value)
{
    if (f->transport == RTM_ABORT_MAPPED) {
        *value = __atomic_load_n(f->host, __ATOMIC_SEQ_CST);
        return RTM_OK;
    }
    cl_int v = 0;
    RTM_CL_CHECK(clEnqueueReadBuffer(f->dev->ctrl, f->mem, CL_TRUE, 0, sizeof(v), &v, 0, NULL, NULL),
                 "clEnqueueReadBuffer(abort flag)");
    *value = v;
    return RTM_OK;
}
