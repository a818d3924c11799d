/* wake.c — the device wake (see wake.h).
 *
 * Owns one queue, program and kernel per woken device. Invariant: `k` is non-NULL
 * exactly when the three were all created; rtm_wake_kick on a zeroed struct does
 * nothing. */
#include "wake.h"

#include <string.h>

/* The whole program: one kernel that does nothing. */
static const char wake_src[] = "__kernel void rtm_wake(void) { }\n";

bool rtm_wake_wanted(const rtm_ocl_info_t *info)
{
    return info && !(info->type & CL_DEVICE_TYPE_CPU) && !info->host_unified;
}

rtm_status_t rtm_wake_init(rtm_wake_t *w, rtm_ocl_dev_t *d)
{
    memset(w, 0, sizeof(*w));
    if (!d || !d->ctx)
        return RTM_E_ARG;
    cl_int err = CL_SUCCESS;
    const char *src = wake_src;
    const char *call = "clCreateCommandQueueWithProperties(wake)";
    w->q = clCreateCommandQueueWithProperties(d->ctx, d->info.id, NULL, &err);
    if (err == CL_SUCCESS) {
        call = "clCreateProgramWithSource(wake)";
        w->prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    }
    if (err == CL_SUCCESS) {
        call = "clBuildProgram(wake)";
        err = clBuildProgram(w->prog, 1, &d->info.id, "", NULL, NULL);
    }
    if (err == CL_SUCCESS) {
        call = "clCreateKernel(wake)";
        w->k = clCreateKernel(w->prog, "rtm_wake", &err);
    }
    if (err != CL_SUCCESS) {
        w->k = NULL;
        rtm_wake_destroy(w);
        return rtm_ocl_fail(call, err, __FILE__, __LINE__);
    }
    return RTM_OK;
}

rtm_status_t rtm_wake_kick(rtm_wake_t *w)
{
    if (!w || !w->k)
        return RTM_OK;
    const size_t one = 1;
    cl_int err = clEnqueueNDRangeKernel(w->q, w->k, 1, NULL, &one, &one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFlush(w->q);
    return err == CL_SUCCESS ? RTM_OK : RTM_E_CL;
}

void rtm_wake_destroy(rtm_wake_t *w)
{
    if (!w)
        return;
    if (w->q)
        (void)clFinish(w->q);
    if (w->k)
        clReleaseKernel(w->k);
    if (w->prog)
        clReleaseProgram(w->prog);
    if (w->q)
        clReleaseCommandQueue(w->q);
    memset(w, 0, sizeof(*w));
}
