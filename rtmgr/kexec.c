/* kexec.c — device buffers, block control and profiled execution of one kernel
 * instance on one OpenCL device (see kexec.h). Owns the instance's cl_mem objects. */
#include "kexec.h"

#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

rtm_status_t rtm_kexec_create(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k)
{
    return rtm_kexec_create_cached(x, d, k, NULL);
}

rtm_status_t rtm_kexec_create_cached(rtm_kexec_t *x, rtm_ocl_dev_t *d, const rtm_kinst_t *k,
                                     const char *cache_dir)
{
    memset(x, 0, sizeof(*x));
    x->dev = d;
    x->k = k;
    rtm_status_t st = rtm_program_build_cached(d, k, NULL, cache_dir, &x->prog);
    if (st != RTM_OK)
        return st;
    cl_int err = CL_SUCCESS;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        const cl_mem_flags fl = k->plan.buf[i].dir == RTM_BUF_IN ? CL_MEM_READ_ONLY
                                : k->plan.buf[i].dir == RTM_BUF_OUT ? CL_MEM_WRITE_ONLY
                                                                    : CL_MEM_READ_WRITE;
        x->buf[i] = clCreateBuffer(d->ctx, fl, k->plan.buf[i].bytes, NULL, &err);
        if (err != CL_SUCCESS) {
            rtm_kexec_destroy(x);
            return rtm_ocl_fail("clCreateBuffer", err, __FILE__, __LINE__);
        }
    }
    const size_t nb = k->plan.blocks_max ? k->plan.blocks_max : 1;
    x->abort_flag = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &err);
    if (err == CL_SUCCESS)
        x->done = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, nb, NULL, &err);
    if (err == CL_SUCCESS)
        x->map = clCreateBuffer(d->ctx, CL_MEM_READ_ONLY, nb * sizeof(cl_uint), NULL, &err);
    if (err != CL_SUCCESS) {
        rtm_kexec_destroy(x);
        return rtm_ocl_fail("clCreateBuffer(block control)", err, __FILE__, __LINE__);
    }
    return RTM_OK;
}

void rtm_kexec_destroy(rtm_kexec_t *x)
{
    for (uint32_t i = 0; i < RTM_KBUF_MAX; i++)
        if (x->buf[i])
            clReleaseMemObject(x->buf[i]);
    if (x->abort_flag)
        clReleaseMemObject(x->abort_flag);
    if (x->done)
        clReleaseMemObject(x->done);
    if (x->map)
        clReleaseMemObject(x->map);
    rtm_program_release(&x->prog);
    memset(x->buf, 0, sizeof(x->buf));
    x->abort_flag = x->done = x->map = NULL;
}

/* Keeps the first event of a sequence and the latest one. */
static void track(cl_event ev, cl_event *first, cl_event *last)
{
    if (first && !*first) {
        *first = ev;
        clRetainEvent(ev);
    }
    if (last) {
        if (*last)
            clReleaseEvent(*last);
        *last = ev;
    } else {
        clReleaseEvent(ev);
    }
}

rtm_status_t rtm_kexec_write_inputs(rtm_kexec_t *x, cl_event *first, cl_event *last)
{
    const rtm_kinst_t *k = x->k;
    cl_event ev;
    const cl_int zero = 0;
    const cl_uchar zero8 = 0;
    RTM_CL_CHECK(clEnqueueFillBuffer(x->dev->exec, x->abort_flag, &zero, sizeof(zero), 0,
                                     sizeof(zero), 0, NULL, &ev),
                 "clEnqueueFillBuffer(abort)");
    track(ev, first, last);
    RTM_CL_CHECK(clEnqueueFillBuffer(x->dev->exec, x->done, &zero8, 1, 0,
                                     k->plan.blocks_max ? k->plan.blocks_max : 1, 0, NULL, &ev),
                 "clEnqueueFillBuffer(done)");
    track(ev, first, last);
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if (!(k->plan.buf[i].dir & RTM_BUF_IN))
            continue;
        RTM_CL_CHECK(clEnqueueWriteBuffer(x->dev->exec, x->buf[i], CL_FALSE, 0,
                                          k->plan.buf[i].bytes, k->host[i], 0, NULL, &ev),
                     "clEnqueueWriteBuffer");
        track(ev, first, last);
    }
    return RTM_OK;
}

rtm_status_t rtm_kexec_enqueue(rtm_kexec_t *x, uint32_t launch, const uint32_t *map_host,
                               uint32_t nmap, cl_event *ev)
{
    const rtm_kinst_t *k = x->k;
    rtm_klaunch_t kl;
    k->kernel->launch(k, launch, &kl);
    if (kl.entry >= x->prog.n_kern)
        return RTM_E_RANGE;
    cl_kernel kern = x->prog.kern[kl.entry];
    const cl_uint n = nmap;
    if (nmap) {
        RTM_CL_CHECK(clEnqueueWriteBuffer(x->dev->exec, x->map, CL_FALSE, 0,
                                          (size_t)nmap * sizeof(cl_uint), map_host, 0, NULL, NULL),
                     "clEnqueueWriteBuffer(map)");
    }
    RTM_CL_CHECK(clSetKernelArg(kern, 0, sizeof(cl_mem), &x->abort_flag), "clSetKernelArg(abort)");
    RTM_CL_CHECK(clSetKernelArg(kern, 1, sizeof(cl_mem), &x->done), "clSetKernelArg(done)");
    RTM_CL_CHECK(clSetKernelArg(kern, 2, sizeof(cl_mem), &x->map), "clSetKernelArg(map)");
    RTM_CL_CHECK(clSetKernelArg(kern, 3, sizeof(cl_uint), &n), "clSetKernelArg(nmap)");
    rtm_karg_t args[RTM_KARG_MAX];
    const uint32_t na = k->kernel->args(k, launch, args);
    for (uint32_t i = 0; i < na; i++) {
        const cl_uint idx = 4 + i;
        switch (args[i].kind) {
        case RTM_KARG_BUF:
            RTM_CL_CHECK(clSetKernelArg(kern, idx, sizeof(cl_mem), &x->buf[args[i].buf]),
                         "clSetKernelArg(buffer)");
            break;
        case RTM_KARG_VALUE:
            RTM_CL_CHECK(clSetKernelArg(kern, idx, args[i].bytes, args[i].value),
                         "clSetKernelArg(value)");
            break;
        case RTM_KARG_LOCAL:
            RTM_CL_CHECK(clSetKernelArg(kern, idx, args[i].bytes, NULL), "clSetKernelArg(local)");
            break;
        }
    }
    const size_t blocks = nmap ? nmap : kl.blocks;
    if (blocks == 0)
        return RTM_OK;
    const size_t local = k->tune.wg, global = blocks * local;
    RTM_CL_CHECK(clEnqueueNDRangeKernel(x->dev->exec, kern, 1, NULL, &global, &local, 0, NULL, ev),
                 "clEnqueueNDRangeKernel");
    return RTM_OK;
}

rtm_status_t rtm_kexec_read_outputs(rtm_kexec_t *x, cl_event *first, cl_event *last)
{
    const rtm_kinst_t *k = x->k;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if (!(k->plan.buf[i].dir & RTM_BUF_OUT))
            continue;
        cl_event ev;
        RTM_CL_CHECK(clEnqueueReadBuffer(x->dev->exec, x->buf[i], CL_FALSE, 0,
                                         k->plan.buf[i].bytes, k->host[i], 0, NULL, &ev),
                     "clEnqueueReadBuffer");
        track(ev, first, last);
    }
    return RTM_OK;
}

static double span(cl_event a, cl_event b)
{
    cl_ulong t0 = 0, t1 = 0;
    if (!a || !b ||
        clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL) != CL_SUCCESS)
        return 0.0;
    return t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0.0;
}

static void release(cl_event *e)
{
    if (*e)
        clReleaseEvent(*e);
    *e = NULL;
}

rtm_status_t rtm_kexec_run(rtm_kexec_t *x, rtm_kexec_timing_t *t)
{
    cl_event in0 = NULL, in1 = NULL, k0 = NULL, k1 = NULL, out0 = NULL, out1 = NULL;
    memset(t, 0, sizeof(*t));
    const double w0 = now_s();
    rtm_status_t st = rtm_kexec_write_inputs(x, &in0, &in1);
    for (uint32_t l = 0; st == RTM_OK && l < x->k->plan.launches; l++) {
        cl_event ev = NULL;
        st = rtm_kexec_enqueue(x, l, NULL, 0, &ev);
        if (ev)
            track(ev, &k0, &k1);
    }
    if (st == RTM_OK)
        st = rtm_kexec_read_outputs(x, &out0, &out1);
    const cl_int err = clFinish(x->dev->exec);
    t->wall_s = now_s() - w0;
    if (st == RTM_OK && err != CL_SUCCESS)
        st = rtm_ocl_fail("clFinish", err, __FILE__, __LINE__);
    if (st == RTM_OK) {
        t->in_s = span(in0, in1);
        t->kernel_s = span(k0, k1);
        t->out_s = span(out0, out1);
    }
    release(&in0), release(&in1), release(&k0), release(&k1), release(&out0), release(&out1);
    return st;
}
