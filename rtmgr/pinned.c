/* pinned.c — page-locked host memory of one OpenCL device (see pinned.h).
 *
 * Owns one cl_mem created with CL_MEM_ALLOC_HOST_PTR and its single mapping, for the
 * lifetime of the struct. Invariant: `host` is non-NULL exactly when `mem` is mapped. */
#include "pinned.h"

#include <string.h>

rtm_status_t rtm_pinned_create(rtm_pinned_t *p, rtm_ocl_dev_t *d, size_t bytes)
{
    memset(p, 0, sizeof(*p));
    if (!d || !d->ctx || bytes == 0)
        return RTM_E_ARG;
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL,
                                &err);
    if (err != CL_SUCCESS || !mem)
        return rtm_ocl_fail("clCreateBuffer(pinned host memory)", err, __FILE__, __LINE__);
    void *host = clEnqueueMapBuffer(d->exec, mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                    0, NULL, NULL, &err);
    if (err != CL_SUCCESS || !host) {
        clReleaseMemObject(mem);
        return rtm_ocl_fail("clEnqueueMapBuffer(pinned host memory)", err, __FILE__, __LINE__);
    }
    memset(host, 0, bytes); /* touches every page: no first-touch cost in a job */
    p->mem = mem;
    p->q = d->exec;
    p->host = host;
    p->bytes = bytes;
    return RTM_OK;
}

void rtm_pinned_destroy(rtm_pinned_t *p)
{
    if (!p)
        return;
    if (p->mem && p->host) {
        if (clEnqueueUnmapMemObject(p->q, p->mem, p->host, 0, NULL, NULL) == CL_SUCCESS)
            (void)clFinish(p->q);
    }
    if (p->mem)
        clReleaseMemObject(p->mem);
    memset(p, 0, sizeof(*p));
}
