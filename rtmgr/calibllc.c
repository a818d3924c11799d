/* calibllc.c — a device's last-level cache, measured by a read sweep (calibint.h's
 * rtm_calib_llc_*; calibdev.c's dev_llc keeps what it finds as the device's cache).
 *
 * Owns: the sweep's sizes and access pattern (private or shared lines), its timed
 * launches (the curve of time per byte by working set) and the rule that finds the
 * cache in a curve (the knee). */
#include <math.h>
#include <string.h>

#include "calib.h"
#include "calibint.h"
#include "model.h"

/* ---- last-level cache: a read sweep (calibint.h) ------------------------------------ */

/* Fewest uint4 a work-item reads per pass: the work-items are capped at cus * 2048 (a
 * full H100), and small working sets get more of them (more loads in flight) rather
 * than the ~16 per pass that would leave most compute units idle at 1 MiB; the passes
 * (launch_bytes / S of them, 1024 at 1 MiB) amortise the per-item cost anyway. */
#define LLC_PER_MIN 4
#define LLC_ITEMS_PER_CU 2048
#define LLC_REPS_MAX 16

rtm_calib_llc_opts_t rtm_calib_llc_defaults(void)
{
    return (rtm_calib_llc_opts_t){.min_bytes = MIB, .max_bytes = 512 * MIB,
                                  .launch_bytes = 1024 * MIB, .reps = 5, .shared = true};
}

/* One size of the sweep: `global` work-items (a multiple of wg), `per` uint4 each a
 * pass, `bytes` = global * per * 16 the working set. */
typedef struct {
    size_t global;
    size_t per;
    double bytes;
} llc_shape_t;

static llc_shape_t llc_shape(double s, size_t cap, size_t wg)
{
    const size_t v = (size_t)(s / 16.0);
    size_t per = (v + cap - 1) / cap;
    if (per < LLC_PER_MIN)
        per = LLC_PER_MIN;
    size_t g = v / per / wg * wg;
    if (g == 0) {
        g = wg;
        per = (v / wg) ? (v / wg) : 1;
    }
    return (llc_shape_t){g, per, (double)g * (double)per * 16.0};
}

/* The shared pattern's move per pass, in work-items: about 0.382 of the work-groups
 * (far from the last group's compute unit), coprime with their count so that a line
 * visits every group before it comes back to one (no compute unit's L1 holds it). */
static size_t llc_rot(size_t global, size_t wg)
{
    const size_t groups = global / wg;
    if (groups < 2)
        return 0;
    size_t r = (size_t)(0.382 * (double)groups + 0.5);
    if (r < 1)
        r = 1;
    while (rtm_model_gcd(r, groups) != 1)
        r++;
    return (r % groups) * wg;
}

rtm_status_t rtm_calib_llc_curve(rtm_ocl_dev_t *d, cl_program probe, const rtm_calib_llc_opts_t *o,
                                 rtm_calib_llc_curve_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!d || !o || !(o->min_bytes > 0) || !(o->launch_bytes > 0) || o->reps == 0)
        return RTM_E_ARG;
    const double t0 = rtm_calib_now();
    const rtm_ocl_info_t *info = &d->info;
    cl_int err = CL_SUCCESS;
    cl_program prog = probe;
    if (!prog) {
        const rtm_status_t st = rtm_calib_build_probe(d, &prog);
        if (st != RTM_OK)
            return st;
    }
    cl_kernel k = clCreateKernel(prog, "rtm_calib_sweep", &err);
    if (err != CL_SUCCESS) {
        if (!probe)
            clReleaseProgram(prog);
        return rtm_ocl_fail("clCreateKernel(sweep)", err, __FILE__, __LINE__);
    }
    size_t kwg = 0;
    clGetKernelWorkGroupInfo(k, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kwg), &kwg, NULL);
    size_t wg = 256;
    while (wg > 1 && (wg > info->max_wg || (kwg && wg > kwg)))
        wg /= 2;
    const size_t cap = (size_t)(info->units ? info->units : 1) * LLC_ITEMS_PER_CU;
    double top = o->max_bytes;
    if (info->max_alloc)
        top = fmin(top, (double)info->max_alloc);
    if (info->global_mem)
        top = fmin(top, (double)info->global_mem / 8.0);
    /* the sizes, each a whole number of uint4 per work-item, strictly increasing */
    llc_shape_t sh[RTM_CALIB_LLC_MAX] = {{0}};
    uint32_t n = 0;
    double buf_bytes = 0.0;
    size_t max_global = wg;
    for (int i = 0; n < RTM_CALIB_LLC_MAX; i++) {
        const double s = o->min_bytes * pow(sqrt(2.0), i);
        if (s > top * (1.0 + 1e-9))
            break;
        const llc_shape_t z = llc_shape(s, cap, wg);
        if (n > 0 && z.bytes <= sh[n - 1].bytes)
            continue;
        if (z.bytes > top && n > 0)
            break;
        sh[n++] = z;
        buf_bytes = fmax(buf_bytes, z.bytes);
        max_global = z.global > max_global ? z.global : max_global;
    }
    cl_mem buf = clCreateBuffer(d->ctx, CL_MEM_READ_ONLY, (size_t)buf_bytes, NULL, &err);
    cl_mem res = err == CL_SUCCESS ? clCreateBuffer(d->ctx, CL_MEM_WRITE_ONLY,
                                                    max_global * sizeof(cl_uint), NULL, &err)
                                   : NULL;
    const cl_uint pattern = 0x9E3779B9u;
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(d->exec, buf, &pattern, sizeof(pattern), 0, (size_t)buf_bytes,
                                  0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof(cl_mem), &buf);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 4, sizeof(cl_mem), &res);
    if (err == CL_SUCCESS)
        err = clFinish(d->exec);
    const uint32_t reps = o->reps < LLC_REPS_MAX ? o->reps : LLC_REPS_MAX;
    for (uint32_t i = 0; i < n && err == CL_SUCCESS; i++) {
        const double p = fmax(1.0, floor(o->launch_bytes / sh[i].bytes + 0.5));
        const cl_uint per = (cl_uint)sh[i].per, passes = (cl_uint)fmin(p, 1e9);
        const cl_uint rot = o->shared ? (cl_uint)llc_rot(sh[i].global, wg) : 0u;
        err = clSetKernelArg(k, 1, sizeof(per), &per);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(k, 2, sizeof(passes), &passes);
        if (err == CL_SUCCESS)
            err = clSetKernelArg(k, 3, sizeof(rot), &rot);
        cl_event ev[LLC_REPS_MAX + 1] = {NULL};
        for (uint32_t r = 0; r <= reps && err == CL_SUCCESS; r++)
            err = clEnqueueNDRangeKernel(d->exec, k, 1, NULL, &sh[i].global, &wg, 0, NULL, &ev[r]);
        if (err == CL_SUCCESS)
            err = clFinish(d->exec);
        double samp[LLC_REPS_MAX];
        for (uint32_t r = 1; r <= reps && err == CL_SUCCESS; r++)
            samp[r - 1] = rtm_ocl_event_seconds(ev[r]) / (sh[i].bytes * passes);
        for (uint32_t r = 0; r <= reps; r++)
            if (ev[r])
                clReleaseEvent(ev[r]);
        if (err != CL_SUCCESS)
            break;
        rtm_calib_fig_t f;
        out->size[i] = sh[i].bytes;
        out->t[i] = rtm_calib_summary(samp, reps, &f);
        out->spread[i] = f.spread;
        out->n = i + 1;
    }
    rtm_calib_release_mem(buf);
    rtm_calib_release_mem(res);
    clReleaseKernel(k);
    if (!probe)
        clReleaseProgram(prog);
    out->seconds = rtm_calib_now() - t0;
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("rtm_calib_sweep", err, __FILE__, __LINE__);
    for (uint32_t i = 0; i < out->n; i++)
        if (!(out->t[i] > 0))
            return RTM_E_CL; /* a launch without a profiled span */
    return RTM_OK;
}

bool rtm_calib_llc_knee(const double *size, const double *t, uint32_t n, rtm_calib_llc_knee_t *out)
{
    memset(out, 0, sizeof(*out));
    if (n < 2)
        return false;
    uint32_t f = 0;
    for (uint32_t i = 1; i < n; i++)
        if (t[i] < t[f])
            f = i;
    out->t_fast = t[f];
    out->t_slow = t[n - 1];
    if (!(t[f] > 0) || !(t[n - 1] >= RTM_CALIB_LLC_STEP * t[f]))
        return false;
    const double mid = sqrt(t[f] * t[n - 1]);
    out->t_mid = mid;
    /* the largest size below the midpoint: the sizes before the fastest one (few
     * work-items, or launch costs) never decide it */
    uint32_t lo = f;
    for (uint32_t i = f; i + 1 < n; i++)
        if (t[i] < mid)
            lo = i;
    const uint32_t hi = lo + 1; /* t[hi] >= mid: lo is the last below, or hi the slowest */
    const double u = (log(mid) - log(t[lo])) / (log(t[hi]) - log(t[lo]));
    out->lo = lo;
    out->hi = hi;
    out->cache = size[lo] * pow(size[hi] / size[lo], fmin(fmax(u, 0.0), 1.0));
    return true;
}
