/* pinned.h — page-locked host memory of one OpenCL device: a CL_MEM_ALLOC_HOST_PTR
 * buffer, mapped once, whose host pointer the transfers of that device's jobs use.
 *
 * Why: a transfer from ordinary (pageable) memory goes through the driver's staging
 * copy, at a rate that varies job to job (on the H100 machine the same 32 MB took 2.1 ms
 * in one job and 4.2 ms in another) and, on NVIDIA, can hold up the enqueueing thread.
 * From a mapped ALLOC_HOST_PTR region the driver DMAs directly: faster and steady, which
 * is what a model predicting the transfer needs. On CPU devices (PoCL) the buffer is
 * plain host memory and nothing changes.
 *
 * Lifecycle: rtm_pinned_create() at allocate time (maps the whole buffer), the pointer is
 * used until rtm_pinned_destroy() (unmap, release). The memory is zeroed at creation.
 * Nothing here runs on the real-time path. */
#ifndef RTM_PINNED_H
#define RTM_PINNED_H

#include <stddef.h>

#include "ocl.h"
#include "status.h"

typedef struct {
    cl_mem mem;            /* the ALLOC_HOST_PTR buffer; NULL when not created */
    cl_command_queue q;    /* the queue it was mapped on (the device's exec queue) */
    void *host;            /* its mapping: `bytes` bytes, page aligned on the drivers seen */
    size_t bytes;
} rtm_pinned_t;

/* Creates and maps `bytes` (> 0) of pinned host memory for device `d`. On failure `p` is
 * left zeroed and the OpenCL error has been reported (rtm_ocl_fail): callers fall back to
 * ordinary memory. Init only. */
rtm_status_t rtm_pinned_create(rtm_pinned_t *p, rtm_ocl_dev_t *d, size_t bytes);

/* Unmaps and releases; zeroes `p`. Safe on a zeroed struct. Stop phase only. */
void rtm_pinned_destroy(rtm_pinned_t *p);

#endif
