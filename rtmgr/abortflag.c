/* abortflag.c — the two transports of the abort flag (see abortflag.h).
 *
 * Owns the flag's cl_mem or SVM words and, for WRITE, the pinned staging buffer whose
 * contents never change after creation (the cleared flag, every copy 0, then the raised
 * one, every copy 1): a non-blocking transfer may read them at any later time.
 * Invariant: at most one raise is in flight; settle() waits for it before the flag may
 * be cleared again. */
#include "abortflag.h"
#include "os.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *rtm_abortflag_name(rtm_abort_transport_t t)
{
    return t == RTM_ABORT_MAPPED ? "mapped" : "write";
}

rtm_abort_transport_t rtm_abortflag_default(const rtm_ocl_info_t *info)
{
    return (info->type & CL_DEVICE_TYPE_CPU) || info->host_unified ? RTM_ABORT_MAPPED
                                                                   : RTM_ABORT_WRITE;
}

const char *rtm_abortflag_raise_name(rtm_abort_raise_t m)
{
    static const char *const names[RTM_RAISE_MODES] = {"pinned", "host", "blocking", "fill",
                                                       "armed"};
    return (unsigned)m < RTM_RAISE_MODES ? names[m] : "?";
}

void rtm_abortflag_set_raise(rtm_abortflag_t *f, rtm_abort_raise_t m)
{
    f->raise_mode = (unsigned)m < RTM_RAISE_MODES ? m : RTM_RAISE_PINNED;
    if (f->raise_mode == RTM_RAISE_ARMED && !f->arm_q && f->dev && f->mem) {
        const cl_queue_properties qprof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
        cl_int err = CL_SUCCESS;
        f->arm_q = clCreateCommandQueueWithProperties(f->dev->ctx, f->dev->info.id, qprof, &err);
        if (err != CL_SUCCESS || !f->arm_q) {
            (void)rtm_ocl_fail("clCreateCommandQueueWithProperties(abort armed)", err, __FILE__,
                               __LINE__);
            f->arm_q = NULL;
            f->raise_mode = RTM_RAISE_PINNED;
        }
    }
}

bool rtm_abortflag_has_svm(const rtm_ocl_info_t *info)
{
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(info->id, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL) !=
        CL_SUCCESS)
        return false;
    return (caps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) != 0;
}

/* Ints of the flag buffer: one for a single copy, else copies lines. */
static size_t flag_ints(const rtm_abortflag_t *f)
{
    return f->copies > 1 ? (size_t)f->copies * RTM_ABORTFLAG_STRIDE : 1u;
}

/* Stores v into every copy of a host-visible flag. */
static void store_all(volatile int *host, uint32_t copies, int v)
{
    for (uint32_t c = 0; c < copies; c++)
        __atomic_store_n(&host[(size_t)c * RTM_ABORTFLAG_STRIDE], v, __ATOMIC_SEQ_CST);
}

static rtm_status_t create_write(rtm_abortflag_t *f)
{
    cl_int err = CL_SUCCESS;
    const size_t n = flag_ints(f);
    f->mem = clCreateBuffer(f->dev->ctx, CL_MEM_READ_WRITE, n * sizeof(cl_int), NULL, &err);
    RTM_CL_CHECK(err, "clCreateBuffer(abort flag)");
    f->pin = clCreateBuffer(f->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                            4 * n * sizeof(cl_int), NULL, &err);
    RTM_CL_CHECK(err, "clCreateBuffer(abort pinned)");
    f->pin_host = clEnqueueMapBuffer(f->dev->exec, f->pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                     4 * n * sizeof(cl_int), 0, NULL, NULL, &err);
    RTM_CL_CHECK(err, "clEnqueueMapBuffer(abort pinned)");
    f->plain = malloc(n * sizeof(int));
    if (!f->plain)
        return RTM_E_NOMEM;
    for (size_t i = 0; i < n; i++) {
        f->pin_host[i] = 0;
        f->pin_host[n + i] = 1;
        f->pin_host[2 * n + i] = f->pin_host[3 * n + i] = 0;
        f->plain[i] = 1;
    }
    RTM_CL_CHECK(clEnqueueWriteBuffer(f->dev->exec, f->mem, CL_TRUE, 0, n * sizeof(cl_int),
                                      &f->pin_host[0], 0, NULL, NULL),
                 "clEnqueueWriteBuffer(abort flag)");
    return RTM_OK;
}

static rtm_status_t create_mapped(rtm_abortflag_t *f)
{
    cl_int err = CL_SUCCESS;
    const size_t bytes = flag_ints(f) * sizeof(cl_int);
    if (rtm_abortflag_has_svm(&f->dev->info)) {
        f->svm = clSVMAlloc(f->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
                            bytes, 0);
        if (f->svm) {
            f->host = f->svm;
            store_all(f->host, f->copies, 0);
            return RTM_OK;
        }
    }
    f->mem = clCreateBuffer(f->dev->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes,
                            NULL, &err);
    RTM_CL_CHECK(err, "clCreateBuffer(abort flag, host)");
    f->host = clEnqueueMapBuffer(f->dev->exec, f->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                 bytes, 0, NULL, NULL, &err);
    RTM_CL_CHECK(err, "clEnqueueMapBuffer(abort flag)");
    store_all(f->host, f->copies, 0);
    return RTM_OK;
}

rtm_status_t rtm_abortflag_create(rtm_abortflag_t *f, rtm_ocl_dev_t *d, rtm_abort_transport_t t)
{
    return rtm_abortflag_create_ex(f, d, t, 1);
}

rtm_status_t rtm_abortflag_create_ex(rtm_abortflag_t *f, rtm_ocl_dev_t *d,
                                     rtm_abort_transport_t t, uint32_t copies)
{
    memset(f, 0, sizeof(*f));
    if (copies > RTM_ABORTFLAG_COPIES_MAX)
        return RTM_E_RANGE;
    f->dev = d;
    f->transport = t;
    f->copies = copies ? copies : 1;
    const rtm_status_t st = t == RTM_ABORT_MAPPED ? create_mapped(f) : create_write(f);
    if (st != RTM_OK)
        rtm_abortflag_destroy(f);
    return st;
}

/* The armed slot's source: what its held write will copy. */
static int *arm_src(rtm_abortflag_t *f, uint32_t slot)
{
    return &f->pin_host[(2 + (size_t)slot) * flag_ints(f)];
}

/* Lets the held write go with `value` in its source slot; its transfer's event moves to
 * *ev (the raise's, or the slot's disarmed write). Requires a held write. */
static rtm_status_t release_armed(rtm_abortflag_t *f, int value, cl_event *ev)
{
    store_all(arm_src(f, f->arm_slot), f->copies, value);
    const cl_int err = clSetUserEventStatus(f->arm_gate, CL_COMPLETE);
    clReleaseEvent(f->arm_gate);
    f->arm_gate = NULL;
    *ev = f->arm_ev;
    f->arm_ev = NULL;
    RTM_CL_CHECK(err, "clSetUserEventStatus(abort armed)");
    return RTM_OK;
}

/* Lets a held write go without raising: its source holds 0 (the cleared value), so it
 * lands as a no-op; its event is kept per slot until that slot is reused. */
static rtm_status_t disarm(rtm_abortflag_t *f)
{
    return f->arm_gate ? release_armed(f, 0, &f->disarm_ev[f->arm_slot]) : RTM_OK;
}

/* Enqueues the held write for the next raise: on the control queue, behind a user event,
 * flushed, from the slot not used last time (whose previous write has landed). */
static rtm_status_t arm(rtm_abortflag_t *f)
{
    const uint32_t slot = f->arm_slot ^ 1u;
    if (f->disarm_ev[slot]) {
        const cl_int w = clWaitForEvents(1, &f->disarm_ev[slot]);
        clReleaseEvent(f->disarm_ev[slot]);
        f->disarm_ev[slot] = NULL;
        RTM_CL_CHECK(w, "clWaitForEvents(abort disarmed)");
    }
    store_all(arm_src(f, slot), f->copies, 0);
    cl_int err = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(f->dev->ctx, &err);
    RTM_CL_CHECK(err, "clCreateUserEvent(abort)");
    cl_event ev = NULL;
    err = clEnqueueWriteBuffer(f->arm_q, f->mem, CL_FALSE, 0, flag_ints(f) * sizeof(cl_int),
                               arm_src(f, slot), 1, &gate, &ev);
    if (err == CL_SUCCESS)
        err = clFlush(f->arm_q);
    if (err != CL_SUCCESS) {
        clSetUserEventStatus(gate, CL_COMPLETE);
        clReleaseEvent(gate);
        if (ev)
            clReleaseEvent(ev);
        return rtm_ocl_fail("clEnqueueWriteBuffer(abort armed)", err, __FILE__, __LINE__);
    }
    f->arm_gate = gate;
    f->arm_ev = ev;
    f->arm_slot = slot;
    return RTM_OK;
}

void rtm_abortflag_destroy(rtm_abortflag_t *f)
{
    (void)disarm(f);
    for (int i = 0; i < 2; i++) {
        if (f->disarm_ev[i]) {
            clWaitForEvents(1, &f->disarm_ev[i]);
            clReleaseEvent(f->disarm_ev[i]);
        }
    }
    if (f->raise_ev) {
        clWaitForEvents(1, &f->raise_ev);
        clReleaseEvent(f->raise_ev);
    }
    if (f->arm_q) {
        clFinish(f->arm_q);
        clReleaseCommandQueue(f->arm_q);
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
    free(f->plain);
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

/* Stores v in the raise words the watchers read (watch, watch2; those set). */
static void set_watch(rtm_abortflag_t *f, cl_uint v)
{
    volatile cl_uint *const w[2] = {f->watch, f->watch2};
    for (int i = 0; i < 2; i++)
        if (w[i])
            __atomic_store_n(w[i], v, __ATOMIC_RELEASE);
}

rtm_status_t rtm_abortflag_clear(rtm_abortflag_t *f)
{
    if (f->transport == RTM_ABORT_MAPPED) {
        store_all(f->host, f->copies, 0);
        return RTM_OK;
    }
    set_watch(f, 0u); /* no launch runs: the last one ended before a clear */
    rtm_status_t st = disarm(f); /* a held write not raised: goes by as a no-op */
    if (st != RTM_OK)
        return st;
    if (f->up) {
        RTM_CL_CHECK(clEnqueueWriteBuffer(f->dev->exec, f->mem, CL_FALSE, 0,
                                          flag_ints(f) * sizeof(cl_int), &f->pin_host[0], 0,
                                          NULL, NULL),
                     "clEnqueueWriteBuffer(abort clear)");
        f->up = false;
    }
    if (f->raise_mode == RTM_RAISE_ARMED && f->arm_q)
        st = arm(f);
    return st;
}

rtm_status_t rtm_abortflag_raise(rtm_abortflag_t *f)
{
    f->raised_at = rtm_os_now_s();
    if (f->transport == RTM_ABORT_MAPPED) {
        store_all(f->host, f->copies, 1);
        f->raise_call_s = rtm_os_now_s() - f->raised_at;
        return RTM_OK;
    }
    f->up = true;
    set_watch(f, 1u); /* a watched launch's watcher sees it within 2 us (rtm_block.h) */
    if (f->raise_ev) /* a previous raise not yet settled: it carries the same value */
        return RTM_OK;
    const size_t n = flag_ints(f);
    const cl_int one = 1;
    cl_int err = CL_SUCCESS;
    if (f->raise_mode == RTM_RAISE_ARMED && f->arm_gate) {
        const rtm_status_t st = release_armed(f, 1, &f->raise_ev);
        f->raise_call_s = rtm_os_now_s() - f->raised_at;
        return st;
    }
    switch (f->raise_mode) { /* ARMED without a held write (not cleared yet): as PINNED */
    case RTM_RAISE_HOST:
        err = clEnqueueWriteBuffer(f->dev->ctrl, f->mem, CL_FALSE, 0, n * sizeof(cl_int),
                                   f->plain, 0, NULL, &f->raise_ev);
        break;
    case RTM_RAISE_BLOCKING:
        err = clEnqueueWriteBuffer(f->dev->ctrl, f->mem, CL_TRUE, 0, n * sizeof(cl_int),
                                   &f->pin_host[n], 0, NULL, &f->raise_ev);
        break;
    case RTM_RAISE_FILL:
        err = clEnqueueFillBuffer(f->dev->ctrl, f->mem, &one, sizeof(one), 0,
                                  n * sizeof(cl_int), 0, NULL, &f->raise_ev);
        break;
    default:
        err = clEnqueueWriteBuffer(f->dev->ctrl, f->mem, CL_FALSE, 0, n * sizeof(cl_int),
                                   &f->pin_host[n], 0, NULL, &f->raise_ev);
        break;
    }
    RTM_CL_CHECK(err, "clEnqueue(abort raise)");
    if (f->raise_mode != RTM_RAISE_BLOCKING)
        RTM_CL_CHECK(clFlush(f->dev->ctrl), "clFlush(ctrl)");
    f->raise_call_s = rtm_os_now_s() - f->raised_at;
    return RTM_OK;
}

rtm_status_t rtm_abortflag_settle(rtm_abortflag_t *f)
{
    return rtm_ocl_settle(&f->raise_ev, "clWaitForEvents(abort raise)");
}

rtm_status_t rtm_abortflag_read(rtm_abortflag_t *f, int *value)
{
    int v[RTM_ABORTFLAG_COPIES_MAX] = {0};
    for (uint32_t c = 0; c < f->copies; c++) {
        const size_t off = (size_t)c * RTM_ABORTFLAG_STRIDE;
        if (f->transport == RTM_ABORT_MAPPED)
            v[c] = __atomic_load_n(&f->host[off], __ATOMIC_SEQ_CST);
        else
            RTM_CL_CHECK(clEnqueueReadBuffer(f->dev->ctrl, f->mem, CL_TRUE, off * sizeof(cl_int),
                                             sizeof(cl_int), &v[c], 0, NULL, NULL),
                         "clEnqueueReadBuffer(abort flag)");
    }
    *value = v[0];
    for (uint32_t c = 1; c < f->copies; c++)
        if (v[c] != v[0])
            *value = -1;
    return RTM_OK;
}
