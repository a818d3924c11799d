/* calibdev.c — `rtmgr calibrate` on one OpenCL device (calibint.h; the method in
 * docs/calibration.md, the order in calib.c's comment).
 *
 * Owns: the device's figures — transfers (kexec's job spans, fitted with a knee), the
 * device-memory copy rate, the occupancy probe, launch costs, the phase gap, the
 * build-time figure c (built by calibbuild.c), the last-level cache (calibllc.c's read
 * sweep, the cliff kept) — then every catalogue kernel (tuning sweep, launch pace, its
 * points and fit through calibfit.c), the abort transport and the in-loop poll periods
 * (preempt.c): one device's calibration in two sections (rtm_calib_dev_first,
 * rtm_calib_dev_rest), which rtm_calib_run orders. */
#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "calibint.h"
#include "kexec.h"
#include "model.h"
#include "os.h"
#include "pace.h"
#include "preempt.h"
#include "program.h"
#include "stats.h"

/* Largest bare transfer command timed for the record (the paper's method), and the size
 * of the pinned-memory comparison. */
#define RAW_MAX_BYTES ((size_t)16 << 20)
#define PINNED_BYTES ((size_t)64 << 20)
/* Kernel time of the tuning sweep's size (seconds). */
#define SWEEP_TARGET_S 1e-3

/* The OpenCL source of the calibration-only kernels: a dependent multiply-add chain per
 * work-item (occupancy probe), a kernel that does nothing (launch costs), and a read
 * sweep (the last-level cache: work-item g of G reads uint4 g, g + G, …, per of them,
 * `passes` times, moving by `rot` work-items each pass; the sum is written so that no
 * load is optimised away). */
static const char probe_src[] =
    "__kernel void rtm_calib_probe(__global float *out, const uint steps, const float a,\n"
    "                              const float b)\n"
    "{\n"
    "    float x = (float)get_local_id(0) * 1e-3f;\n"
    "    for (uint i = 0; i < steps; i++)\n"
    "        x = mad(x, a, b);\n"
    "    out[get_global_id(0)] = x;\n"
    "}\n"
    "__kernel void rtm_calib_empty(__global float *out)\n"
    "{\n"
    "    if (get_global_id(0) == 0xFFFFFFFFu)\n"
    "        out[0] = 0.0f;\n"
    "}\n"
    /* an empty kernel with a catalogue kernel's arguments (kexec's 8 + grid_path's 8) */
    "__kernel void rtm_calib_launch(__global float *out, __global uchar *b1, __global uint *b2,\n"
    "                               const uint u3, const uint u4, const uint u5,\n"
    "                               __global uint *b6, __global uint *b7, __global uint *src,\n"
    "                               __global uint *dst, __global const uchar *b10,\n"
    "                               __global uint *b11, const uint u12, const uint u13,\n"
    "                               const uint u14, const uint pass)\n"
    "{\n"
    "    if (get_global_id(0) == 0xFFFFFFFFu)\n"
    "        out[0] = (float)(src[0] + dst[0] + u3 + u4 + u5 + u12 + u13 + u14 + pass) +\n"
    "                 (float)(b1[0] + b2[0] + b6[0] + b7[0] + b10[0] + b11[0]);\n"
    "}\n"
    "__kernel void rtm_calib_sweep(__global const uint4 *buf, const uint per, const uint passes,\n"
    "                              const uint rot, __global uint *out)\n"
    "{\n"
    "    const uint g = (uint)get_global_id(0), n = (uint)get_global_size(0);\n"
    "    uint4 acc = (uint4)(0u);\n"
    "    uint i = g;\n"
    "    for (uint p = 0; p < passes; p++) {\n"
    "        uint k = i;\n"
    "        for (uint j = 0; j < per; j++, k += n)\n"
    "            acc += buf[k];\n"
    "        i += rot;\n"
    "        if (i >= n)\n"
    "            i -= n;\n"
    "    }\n"
    "    out[g] = acc.x ^ acc.y ^ acc.z ^ acc.w;\n"
    "}\n";

/* ---- OpenCL device ------------------------------------------------------------------ */

static rtm_calib_fig_t *dfig(devcal_t *x, int id) { return &x->c->rec->dev[x->di][id]; }

static void dev_param(rtm_board_dev_t *bd, int id, double v)
{
    bd->param[id] = v;
    bd->have[id] = true;
}

/* The transfers of a job, as the runtime enqueues them: an instance with one input and
 * one output buffer of size[0] bytes, run through kexec's write_inputs / read_outputs
 * (which add the abort-flag and completed-block clears before the write). The program
 * is the reference kernel's; it is built but never launched: the device writes the
 * outputs with a fill command instead (xfer_job). Not in the catalogue. */
static rtm_status_t xfer_plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const uint32_t m = (uint32_t)k->size[1]; /* 0: the block-control clears alone */
    const size_t each = m ? ((size_t)k->size[0] / m + 63) & ~(size_t)63 : 0;
    p->n_bufs = 2 * m;
    for (uint32_t i = 0; i < m; i++) {
        p->buf[i] = (rtm_bufspec_t){each, RTM_BUF_IN};
        p->buf[m + i] = (rtm_bufspec_t){each, RTM_BUF_OUT};
    }
    p->launches = 1;
    p->blocks_max = 1;
    return RTM_OK;
}
static void xfer_fill(rtm_kinst_t *k, uint64_t seed)
{
    (void)seed;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        memset(k->host[i], k->plan.buf[i].dir == RTM_BUF_IN, k->plan.buf[i].bytes);
}
static void xfer_cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    memset(c, 0, sizeof(*c));
    c->bytes_in = c->bytes_out = (double)k->size[0];
    c->launches = 1;
}
static const rtm_kernel_t xfer_kernel = {
    .name = "calib_transfer",
    .source = "matrix_add.cl",
    .entries = {"matrix_add", NULL},
    .keys = {{"bytes", 64, (int64_t)1 << 40, 4096, "bytes each way"},
             {"buffers", 0, RTM_KBUF_MAX / 2, 1, "buffers each way"}},
    .n_keys = 2,
    .vec_allowed = 1u << 1,
    .tune_default = {64, 1},
    .plan = xfer_plan,
    .launch = rtm_kernel_launch_one, /* one block (blocks_max); never launched */
    .args = rtm_kernel_args_bufs,
    .fill = xfer_fill,
    .cpu_block = rtm_kernel_block_none,
    .cost = xfer_cost,
    .compare = rtm_kernel_compare_none,
};

static double span_s(cl_event a, cl_event b) { return (double)rtm_ocl_span_ns(a, b) * 1e-9; }

/* What the device writes into a transfer job's outputs before they are read back. */
#define XFER_OUT_BYTE 0xA5u

/* A CPU-type device (rtm_calib_cpu_dev) writes every output buffer (a fill command
 * after the inputs), as a job's kernels do before its outputs are read: a read of host
 * memory the device never wrote is no job's (PoCL maps such pages to the one zero page,
 * which stays in the core's cache: its 64 MiB reads came out at 10.2 GB/s here and 9.7
 * on the H100 host, where validation's jobs read their outputs at 5.5-7; session 61). A
 * GPU reads its own memory at one speed, written or not (the H100's one-buffer out
 * spans without the fill, session 60's run e, and with it, session 61's run a, within
 * 1.2 % at every size), and the time limit presses its calibration: no fill there. */
static rtm_status_t xfer_fill_outputs(devcal_t *x, const rtm_kexec_t *ex, const rtm_kinst_t *k)
{
    const cl_uchar pattern = XFER_OUT_BYTE;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if (k->plan.buf[i].dir != RTM_BUF_OUT)
            continue;
        const cl_int err = clEnqueueFillBuffer(x->d->exec, ex->buf[i], &pattern, 1, 0,
                                               k->plan.buf[i].bytes, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return rtm_ocl_fail("clEnqueueFillBuffer", err, __FILE__, __LINE__);
    }
    return RTM_OK;
}

/* Whether every output read back holds what the device wrote (its first and last byte). */
static bool xfer_read_back(const rtm_kinst_t *k)
{
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        const unsigned char *h = k->host[i];
        const size_t b = k->plan.buf[i].bytes;
        if (k->plan.buf[i].dir == RTM_BUF_OUT && b > 0 &&
            (h[0] != XFER_OUT_BYTE || h[b - 1] != XFER_OUT_BYTE))
            return false;
    }
    return true;
}

/* One job's transfers, `bytes` each way in `m` buffers each way, enqueued as a job is
 * (inputs, then on a CPU-type device the outputs written there, then outputs read, one
 * clFinish): medians of the in and out spans. A read-back that does not hold what the
 * device wrote is an error. */
static rtm_status_t xfer_job(devcal_t *x, size_t bytes, uint32_t m, double *in_s, double *out_s,
                             double *spread)
{
    int64_t size[RTM_SIZE_KEYS_MAX] = {(int64_t)bytes, (int64_t)m};
    rtm_calib_inst_t in;
    rtm_status_t st =
        rtm_calib_inst_make_in(&in, &xfer_kernel, size, xfer_kernel.tune_default, 0, &x->arena);
    rtm_kexec_t ex;
    memset(&ex, 0, sizeof(ex));
    if (st == RTM_OK)
        st = rtm_kexec_create_cached(&ex, x->d, &in.k, x->cache);
    double si[REPS + 1], so[REPS + 1];
    const bool fills = rtm_calib_cpu_dev(x); /* xfer_fill_outputs */
    for (int r = 0; r <= REPS && st == RTM_OK; r++) {
        cl_event a = NULL, b = NULL, c = NULL, d = NULL;
        st = rtm_kexec_write_inputs(&ex, &a, &b);
        if (st == RTM_OK && fills)
            st = xfer_fill_outputs(x, &ex, &in.k);
        if (st == RTM_OK)
            st = rtm_kexec_read_outputs(&ex, &c, &d);
        if (st == RTM_OK) {
            const cl_int err = clFinish(x->d->exec);
            if (err != CL_SUCCESS)
                st = rtm_ocl_fail("clFinish", err, __FILE__, __LINE__);
        }
        if (st == RTM_OK && fills && !xfer_read_back(&in.k)) {
            fprintf(stderr, "rtmgr: calibrate: %s: a transfer job's outputs read back did not "
                            "hold what the device wrote\n",
                    x->bd->name);
            st = RTM_E_MISMATCH;
        }
        si[r] = span_s(a, b);
        so[r] = span_s(c, d);
        rtm_ocl_put(&a), rtm_ocl_put(&b), rtm_ocl_put(&c), rtm_ocl_put(&d);
    }
    rtm_kexec_destroy(&ex);
    rtm_calib_inst_free(&in);
    if (st != RTM_OK)
        return st;
    rtm_calib_fig_t fi, fo;
    *in_s = rtm_calib_summary(si + 1, REPS, &fi);
    *out_s = rtm_calib_summary(so + 1, REPS, &fo);
    *spread = fmax(fi.spread, fo.spread);
    return RTM_OK;
}

/* One bare transfer command at `bytes` (the paper's method): medians of START..END. */
static rtm_status_t xfer_raw(devcal_t *x, cl_mem buf, void *host, size_t bytes, double *w_s,
                             double *r_s)
{
    double sw[REPS + 1], sr[REPS + 1];
    cl_int err = CL_SUCCESS;
    for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
        cl_event e1 = NULL, e2 = NULL;
        err = clEnqueueWriteBuffer(x->d->exec, buf, CL_FALSE, 0, bytes, host, 0, NULL, &e1);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &e1);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(x->d->exec, buf, CL_FALSE, 0, bytes, host, 0, NULL, &e2);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &e2);
        sw[r] = e1 ? rtm_ocl_event_seconds(e1) : 0.0;
        sr[r] = e2 ? rtm_ocl_event_seconds(e2) : 0.0;
        rtm_ocl_put(&e1), rtm_ocl_put(&e2);
    }
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("clEnqueueWriteBuffer/ReadBuffer", err, __FILE__, __LINE__);
    *w_s = rtm_calib_summary(sw + 1, REPS, NULL);
    *r_s = rtm_calib_summary(sr + 1, REPS, NULL);
    return RTM_OK;
}

/* Releases a buffer that may not have been made (NULL). */
void rtm_calib_release_mem(cl_mem m)
{
    if (m)
        clReleaseMemObject(m);
}

/* Solves the 3 x 3 system A x = t (Cramer); false when singular. */
static bool solve3(const double A[3][3], const double t[3], double x[3])
{
    const double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
                       A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                       A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    if (!(fabs(det) > 0))
        return false;
    for (int c = 0; c < 3; c++) {
        double M[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                M[i][j] = j == c ? t[i] : A[i][j];
        x[c] = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0])) /
               det;
    }
    return true;
}

/* Solves the symmetric 2 x 2 system [a11 a12; a12 a22] (u, w) = (t1, t2); u = w = 0
 * when singular. */
static void solve2(double a11, double a12, double a22, double t1, double t2, double *u,
                   double *w)
{
    const double det = a11 * a22 - a12 * a12;
    *u = fabs(det) > 0 ? (t1 * a22 - t2 * a12) / det : 0.0;
    *w = fabs(det) > 0 ? (a11 * t2 - a12 * t1) / det : 0.0;
}

/* Fits span = first + (commands - 1) * next + bytes * inv by relative least squares over
 * the series of 1-command (y1) and 2-command (y2) jobs at bytes x (n sizes); first,
 * next >= 0. *resid: the worst relative error. */
static void fit_transfers(const double *x, const double *y1, const double *y2, size_t n,
                          rtm_calib_xfit_t *f, double *resid)
{
    double A[3][3] = {{0}}, t[3] = {0}, v[3] = {0};
    for (int m = 1; m <= 2; m++) {
        const double *y = m == 1 ? y1 : y2;
        for (size_t i = 0; i < n; i++) {
            if (!(y[i] > 0))
                continue;
            const double w = 1.0 / (y[i] * y[i]), col[3] = {1.0, m - 1.0, x[i]};
            for (int a = 0; a < 3; a++) {
                for (int b = 0; b < 3; b++)
                    A[a][b] += w * col[a] * col[b];
                t[a] += w * col[a] * y[i];
            }
        }
    }
    bool ok = solve3(A, t, v) && v[0] > 0 && v[1] >= 0 && v[2] > 0;
    if (!ok && v[1] < 0) {
        /* a second command that costs nothing (or less than noise): next = 0, the
         * constrained optimum on that bound (the H100's two-buffer inputs, session 24) */
        double a, b;
        solve2(A[0][0], A[0][2], A[2][2], t[0], t[2], &a, &b);
        if (a > 0 && b > 0) {
            v[0] = a, v[1] = 0.0, v[2] = b;
            ok = true;
        }
    }
    if (!ok) {
        /* one fixed cost per command (the first form), or half the smallest one-command
         * span when even that comes out negative (noise at the small sizes) */
        solve2(A[0][0] + 2 * A[0][1] + A[1][1], A[0][2] + A[1][2], A[2][2], t[0] + t[1], t[2],
               &v[0], &v[2]);
        if (!(v[0] > 0)) {
            v[0] = y1[0] > 0 ? 0.5 * y1[0] : 0.0;
            double num = 0, den = 0;
            for (int m = 1; m <= 2; m++) {
                const double *y = m == 1 ? y1 : y2;
                for (size_t i = 0; i < n; i++) {
                    if (!(y[i] > 0))
                        continue;
                    const double w = 1.0 / (y[i] * y[i]);
                    num += w * x[i] * (y[i] - m * v[0]);
                    den += w * x[i] * x[i];
                }
            }
            v[2] = den > 0 && num > 0 ? num / den : 0.0;
        }
        v[1] = v[0];
    }
    *f = (rtm_calib_xfit_t){.first = v[0], .next = v[1], .inv = v[2]};
    *resid = 0.0;
    for (int m = 1; m <= 2; m++) {
        const double *y = m == 1 ? y1 : y2;
        for (size_t i = 0; i < n; i++)
            if (y[i] > 0)
                *resid = fmax(*resid, fabs(f->first + (m - 1) * f->next + x[i] * f->inv - y[i]) /
                                          y[i]);
    }
}

double rtm_calib_xfit_span(const rtm_calib_xfit_t *f, double bytes, int commands)
{
    return f->first + (commands - 1) * f->next +
           rtm_model_xfer_bytes(bytes, f->inv, f->knee, f->inv2, f->knee2, f->inv3);
}

/* Relative squared error of the fitted transfer time over both series' sizes from
 * x[from] on; *worst the largest relative error. */
static double xfit_err(const double *x, const double *y1, const double *y2, size_t from,
                       size_t n, const rtm_calib_xfit_t *f, double *worst)
{
    double err = 0;
    *worst = 0;
    for (int m = 1; m <= 2; m++) {
        const double *y = m == 1 ? y1 : y2;
        for (size_t i = from; i < n; i++) {
            if (!(y[i] > 0))
                continue;
            const double e = (rtm_calib_xfit_span(f, x[i], m) - y[i]) / y[i];
            err += e * e;
            *worst = fmax(*worst, fabs(e));
        }
    }
    return err;
}

/* The rate (s per byte) of the sizes x[from + 1 .. to] of both series, by relative
 * least squares, from the fit's span at x[from] on (continuous there); 0 when none
 * comes out positive. */
static double xfit_rate_from(const double *x, const double *y1, const double *y2, size_t from,
                             size_t to, const rtm_calib_xfit_t *f)
{
    double num = 0, den = 0;
    for (int m = 1; m <= 2; m++) {
        const double *y = m == 1 ? y1 : y2;
        const double at = rtm_calib_xfit_span(f, x[from], m);
        for (size_t i = from + 1; i <= to; i++) {
            if (!(y[i] > 0))
                continue;
            const double w = 1.0 / (y[i] * y[i]), d = x[i] - x[from];
            num += w * d * (y[i] - at);
            den += w * d * d;
        }
    }
    return den > 0 && num > 0 ? num / den : 0.0;
}

/* The extended model's transfer form, fitted: commands * fixed + bytes * inv up to a
 * knee, + (bytes - knee) * inv2 beyond it, + (bytes - knee2) * inv3 beyond a second
 * knee. Every measured size from the third on (but the last) is tried as the knee, each
 * with the fixed part, the per-command part and the first rate fitted over the sizes up
 * to it and the second rate above; a knee is kept only when it cuts the squared
 * relative error of the one-rate fit by at least a quarter (knee = 0: none). Three
 * sizes at least below a knee: with two, the three parameters below it fit the noise
 * of four spans (the H100's 4 and 16 KiB input spans 25 and 34 us in session 24 gave a
 * "rate" of 1.1 GB/s up to 16 KiB, 56 GB/s beyond, which charged every larger job 15 us
 * and the paper's model, which has the first rate only, 50 times its transfers).
 * With a knee kept, every later size but the last is tried as a second knee, the second
 * rate fitted between the two and the third beyond; it is kept only when it cuts the
 * squared relative error of the sizes past the first knee by a quarter (the noise of
 * the small sizes, which it does not change, does not count): a host's transfers
 * leave its core's cache, then its last-level cache (PoCL here: 47 GB/s to 256 KiB,
 * 13.6-14.6 GB/s to 16 MiB, 6.1 GB/s beyond; session 61). */
void rtm_calib_xfer_fit(const double *x, const double *y1, const double *y2, size_t n,
                        rtm_calib_xfit_t *fit, double *resid)
{
    fit_transfers(x, y1, y2, n, fit, resid);
    double worst = 0;
    double best = 0.75 * xfit_err(x, y1, y2, 0, n, fit, &worst);
    size_t k1 = 0;
    for (size_t k = 2; k + 1 < n; k++) {
        rtm_calib_xfit_t f;
        double r;
        fit_transfers(x, y1, y2, k + 1, &f, &r);
        if (!(f.inv > 0))
            continue;
        f.knee = x[k];
        f.inv2 = xfit_rate_from(x, y1, y2, k, n - 1, &f);
        if (!(f.inv2 > 0))
            continue;
        const double err = xfit_err(x, y1, y2, 0, n, &f, &worst);
        if (err < best) {
            best = err;
            *fit = f;
            *resid = worst;
            k1 = k;
        }
    }
    if (k1 == 0)
        return;
    best = 0.75 * xfit_err(x, y1, y2, k1 + 1, n, fit, &worst);
    const rtm_calib_xfit_t one = *fit;
    for (size_t k2 = k1 + 1; k2 + 1 < n; k2++) {
        rtm_calib_xfit_t f = one;
        f.knee2 = x[k2];
        f.inv2 = xfit_rate_from(x, y1, y2, k1, k2, &f);
        f.inv3 = f.inv2 > 0 ? xfit_rate_from(x, y1, y2, k2, n - 1, &f) : 0.0;
        if (!(f.inv3 > 0))
            continue;
        const double err = xfit_err(x, y1, y2, k1 + 1, n, &f, &worst);
        if (err < best) {
            best = err;
            *fit = f;
            (void)xfit_err(x, y1, y2, 0, n, &f, resid); /* the worst over every size */
        }
    }
}

/* The spans of x->xs's sizes from `from` bytes up, jobs of 1 then 2 buffers each way
 * (xfer_job), into x->xs; with `average` each one measured is the mean of the one there
 * and the new one, and a failed measurement leaves the one there (else the first failure
 * is returned). *got: the spans measured. */
static rtm_status_t xfer_spans(devcal_t *x, double from, bool average, uint32_t *got)
{
    rtm_status_t st = RTM_OK;
    for (uint32_t m = 1; m <= 2 && st == RTM_OK; m++)
        for (size_t i = 0; i < x->xs.n && st == RTM_OK; i++) {
            double w = 0, r = 0, sp = 0;
            if (x->xs.x[i] < from)
                continue;
            const rtm_status_t s = xfer_job(x, (size_t)x->xs.x[i], m, &w, &r, &sp);
            if (s != RTM_OK || (average && !(w > 0 && r > 0))) {
                st = average ? RTM_OK : s;
                continue;
            }
            double *pw = &x->xs.w[m - 1][i], *pr = &x->xs.r[m - 1][i];
            *pw = average ? 0.5 * (*pw + w) : w;
            *pr = average ? 0.5 * (*pr + r) : r;
            x->xs.spread = fmax(x->xs.spread, sp);
            (*got)++;
        }
    return st;
}

/* The transfer parameters fitted to x->xs (rtm_calib_xfer_fit, each direction) and
 * stored with their figures. */
static void xfer_store(devcal_t *x)
{
    const size_t ns = x->xs.n;
    const double top = x->xs.x[ns - 1], spread = x->xs.spread;
    double resid[2] = {0.0, 0.0}; /* by direction: in, out */
    for (int dir = 0; dir < 2; dir++) {
        double res;
        rtm_calib_xfit_t ft;
        const double *y1 = dir ? x->xs.r[0] : x->xs.w[0], *y2 = dir ? x->xs.r[1] : x->xs.w[1];
        rtm_calib_xfer_fit(x->xs.x, y1, y2, ns, &ft, &res);
        const double inv = ft.inv, knee = ft.knee, inv2 = ft.inv2;
        const double last = y1[ns - 1];
        const double rate = inv > 0 ? 1.0 / inv : last > 0 ? top / last : 1e9;
        dev_param(x->bd, dir ? RTM_DEV_P_wr_fixed : RTM_DEV_P_ws_fixed, ft.first);
        dev_param(x->bd, dir ? RTM_DEV_P_wr_next : RTM_DEV_P_ws_next, ft.next);
        dev_param(x->bd, dir ? RTM_DEV_P_wr_rate : RTM_DEV_P_ws_rate, rate);
        /* no knee: at the largest size measured, the same rate on */
        dev_param(x->bd, dir ? RTM_DEV_P_wr_knee : RTM_DEV_P_ws_knee, knee > 0 ? knee : top);
        const double big = knee > 0 && inv2 > 0 ? 1.0 / inv2 : rate;
        dev_param(x->bd, dir ? RTM_DEV_P_wr_rate_big : RTM_DEV_P_ws_rate_big, big);
        /* no second knee: at the largest size measured, the second rate on */
        dev_param(x->bd, dir ? RTM_DEV_P_wr_knee2 : RTM_DEV_P_ws_knee2,
                  ft.knee2 > 0 ? ft.knee2 : top);
        dev_param(x->bd, dir ? RTM_DEV_P_wr_rate_big2 : RTM_DEV_P_ws_rate_big2,
                  ft.knee2 > 0 && ft.inv3 > 0 ? 1.0 / ft.inv3 : big);
        resid[dir] = res;
    }
    /* the inputs' figures, then the outputs' */
    const int ids[] = {RTM_DEV_P_ws_fixed,  RTM_DEV_P_ws_rate,     RTM_DEV_P_ws_knee,
                       RTM_DEV_P_ws_rate_big, RTM_DEV_P_ws_next,   RTM_DEV_P_ws_knee2,
                       RTM_DEV_P_ws_rate_big2, RTM_DEV_P_wr_fixed, RTM_DEV_P_wr_rate,
                       RTM_DEV_P_wr_knee,   RTM_DEV_P_wr_rate_big, RTM_DEV_P_wr_next,
                       RTM_DEV_P_wr_knee2,  RTM_DEV_P_wr_rate_big2};
    for (size_t k = 0; k < N_OF(ids); k++) {
        rtm_calib_fig_t *f = dfig(x, ids[k]);
        f->median = x->bd->param[ids[k]];
        f->spread = spread;
        f->resid = resid[k < N_OF(ids) / 2 ? 0 : 1];
        f->n = (uint32_t)(2 * ns * REPS);
        f->kept = f->n;
    }
}

/* Host -> device and device -> host transfer cost over a range of sizes: the job's
 * transfer spans (what the model-error log measures) fitted to fixed + bytes / rate. */
static rtm_status_t dev_transfers(devcal_t *x)
{
    cal_t *c = x->c;
    const rtm_ocl_info_t *info = &x->d->info;
    /* a CPU device's transfers are memcpy: 64 MiB is past every cache (the 256 MiB
     * sizes cost PoCL on the H100 host about 3 s of its run for the same rate) */
    double cap = c->o->quick ? 16 * MIB : (info->type & CL_DEVICE_TYPE_CPU) ? 64 * MIB : 256 * MIB;
    cap = fmin(cap, (double)info->max_alloc);
    cap = fmin(cap, (double)info->global_mem / 4.0);
    size_t sizes[16];
    size_t ns = 0;
    for (size_t s = 4096; (double)s <= cap && ns < N_OF(sizes); s *= 4)
        sizes[ns++] = s;
    if (ns < 2)
        return RTM_E_NOMEM;
    const size_t top = sizes[ns - 1];
    /* jobs with one and with two buffers each way: the per-command part and the rate */
    double rw_raw[16], rr_raw[16];
    x->xs.n = ns;
    x->xs.spread = 0.0;
    for (size_t i = 0; i < ns; i++)
        x->xs.x[i] = (double)sizes[i];
    uint32_t got = 0;
    rtm_status_t st = xfer_spans(x, 0.0, false, &got);
    /* the paper's bare commands, for the record */
    unsigned char *host = st == RTM_OK ? aligned_alloc(4096, top) : NULL;
    cl_int err = CL_SUCCESS;
    cl_mem buf = host ? clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, top, NULL, &err) : NULL;
    if (host && buf && err == CL_SUCCESS) {
        memset(host, 1, top);
        for (size_t i = 0; i < ns && st == RTM_OK; i++) {
            rw_raw[i] = rr_raw[i] = 0.0;
            if (sizes[i] <= RAW_MAX_BYTES) /* the record's bare commands: not the big ones */
                st = xfer_raw(x, buf, host, sizes[i], &rw_raw[i], &rr_raw[i]);
        }
    }
    if (st != RTM_OK) {
        rtm_calib_release_mem(buf);
        free(host);
        return st;
    }
    /* a job without inputs: the block-control clears alone (the empty kernel's "in") */
    double clear_s = 0, clear_sp = 0, unused = 0;
    st = xfer_job(x, 4096, 0, &clear_s, &unused, &clear_sp);
    if (st != RTM_OK) {
        rtm_calib_release_mem(buf);
        free(host);
        return st;
    }
    dev_param(x->bd, RTM_DEV_P_ws_clear, clear_s);
    *dfig(x, RTM_DEV_P_ws_clear) =
        (rtm_calib_fig_t){x->bd->param[RTM_DEV_P_ws_clear], clear_sp, 0, REPS, REPS};
    xfer_store(x);
    char curve[6][640];
    for (int k = 0; k < 6; k++) {
        const double *y = k == 0   ? x->xs.w[0]
                          : k == 1 ? x->xs.r[0]
                          : k == 2 ? x->xs.w[1]
                          : k == 3 ? x->xs.r[1]
                          : k == 4 ? rw_raw
                                   : rr_raw;
        size_t used = 0;
        curve[k][0] = '\0';
        for (size_t i = 0; i < ns; i++) {
            if (!(y[i] > 0))
                continue;
            (void)rtm_calib_appendf(curve[k], sizeof(curve[k]), &used, "%s%.0fK:%.4gus",
                                    used ? " " : "", x->xs.x[i] / KIB, y[i] * 1e6);
        }
    }
    cal_note(c, "%s: transfers, pinned host memory (mapped CL_MEM_ALLOC_HOST_PTR) as the "
                "runtime's instances on this device use; the "
                "transfer spans of jobs with 1 and with 2 buffers each way, enqueued as kexec does "
                "(clears + writes, reads of outputs the device wrote on a CPU-type device), "
                "fitted by relative least squares to first command + (commands - 1) * next + "
                "bytes / rate (other rates past up to two knees): in %.4gus (next %.4gus) + "
                "%.4gGB/s, past %.4gMiB %.4gGB/s, past %.4gMiB %.4gGB/s; out %.4gus (next %.4gus) + %.4gGB/s, past "
                "%.4gMiB %.4gGB/s, past %.4gMiB %.4gGB/s; clears alone (no inputs) %.4gus",
             x->bd->name, x->bd->param[RTM_DEV_P_ws_fixed] * 1e6,
             x->bd->param[RTM_DEV_P_ws_next] * 1e6, x->bd->param[RTM_DEV_P_ws_rate] * 1e-9,
             x->bd->param[RTM_DEV_P_ws_knee] / MIB, x->bd->param[RTM_DEV_P_ws_rate_big] * 1e-9,
             x->bd->param[RTM_DEV_P_ws_knee2] / MIB, x->bd->param[RTM_DEV_P_ws_rate_big2] * 1e-9,
             x->bd->param[RTM_DEV_P_wr_fixed] * 1e6, x->bd->param[RTM_DEV_P_wr_next] * 1e6,
             x->bd->param[RTM_DEV_P_wr_rate] * 1e-9, x->bd->param[RTM_DEV_P_wr_knee] / MIB,
             x->bd->param[RTM_DEV_P_wr_rate_big] * 1e-9, x->bd->param[RTM_DEV_P_wr_knee2] / MIB,
             x->bd->param[RTM_DEV_P_wr_rate_big2] * 1e-9, clear_s * 1e6);
    cal_note(c, "%s: job in spans, 1 buffer: %s", x->bd->name, curve[0]);
    cal_note(c, "%s: job out spans, 1 buffer: %s", x->bd->name, curve[1]);
    cal_note(c, "%s: job in spans, 2 buffers: %s", x->bd->name, curve[2]);
    cal_note(c, "%s: job out spans, 2 buffers: %s", x->bd->name, curve[3]);
    cal_note(c, "%s: bare write START..END %s", x->bd->name, curve[4]);
    cal_note(c, "%s: bare read START..END %s", x->bd->name, curve[5]);
    /* Bare commands from pinned and from plain memory side by side, for the record. */
    if (!c->o->quick) {
        const size_t pb = top < PINNED_BYTES ? top : PINNED_BYTES;
        cl_mem pin = clCreateBuffer(x->d->ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, pb,
                                    NULL, &err);
        void *ph = NULL;
        if (err == CL_SUCCESS)
            ph = clEnqueueMapBuffer(x->d->exec, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, pb, 0,
                                    NULL, NULL, &err);
        if (err == CL_SUCCESS && ph) {
            double pw = 0, pr = 0, qw = 0, qr = 0;
            if (xfer_raw(x, buf, ph, pb, &pw, &pr) == RTM_OK &&
                xfer_raw(x, buf, host, pb, &qw, &qr) == RTM_OK)
                cal_note(c, "%s: %.0fMiB bare commands from pinned host memory (mapped "
                            "CL_MEM_ALLOC_HOST_PTR): in %.4gGB/s, out %.4gGB/s; from plain "
                            "memory: in %.4gGB/s, out %.4gGB/s (the runtime uses pinned)",
                         x->bd->name, (double)pb / MIB, pw > 0 ? (double)pb / pw * 1e-9 : 0.0,
                         pr > 0 ? (double)pb / pr * 1e-9 : 0.0,
                         qw > 0 ? (double)pb / qw * 1e-9 : 0.0,
                         qr > 0 ? (double)pb / qr * 1e-9 : 0.0);
            clEnqueueUnmapMemObject(x->d->exec, pin, ph, 0, NULL, NULL);
            clFinish(x->d->exec);
        }
        rtm_calib_release_mem(pin);
    }
    rtm_calib_release_mem(buf);
    free(host);
    return RTM_OK;
}

/* Device global-memory bandwidth: clEnqueueCopyBuffer, bytes read + written. */
static rtm_status_t dev_memrate(devcal_t *x)
{
    const rtm_ocl_info_t *info = &x->d->info;
    double s = x->c->o->quick ? 32 * MIB : 256 * MIB;
    s = fmin(s, (double)info->max_alloc);
    s = fmin(s, (double)info->global_mem / 8.0);
    const size_t bytes = (size_t)s & ~(size_t)4095;
    cl_int err = CL_SUCCESS;
    cl_mem a = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = err == CL_SUCCESS ? clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err)
                                 : NULL;
    const cl_uchar zero = 0;
    if (err == CL_SUCCESS)
        err = clEnqueueFillBuffer(x->d->exec, a, &zero, 1, 0, bytes, 0, NULL, NULL);
    double samp[REPS + 1];
    for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
        cl_event ev = NULL;
        err = clEnqueueCopyBuffer(x->d->exec, a, b, 0, 0, bytes, 0, NULL, &ev);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &ev);
        const double t = err == CL_SUCCESS ? rtm_ocl_event_seconds(ev) : 0.0;
        samp[r] = t > 0 ? 2.0 * (double)bytes / t : 0.0;
        if (ev)
            clReleaseEvent(ev);
    }
    rtm_calib_release_mem(a);
    rtm_calib_release_mem(b);
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("clEnqueueCopyBuffer", err, __FILE__, __LINE__);
    dev_param(x->bd, RTM_DEV_P_mem_rate, rtm_calib_summary(samp + 1, REPS, dfig(x, RTM_DEV_P_mem_rate)));
    return RTM_OK;
}

/* Builds the calibration-only kernels (probe_src) for device d into *out (NULL on
 * failure). */
rtm_status_t rtm_calib_build_probe(rtm_ocl_dev_t *d, cl_program *out)
{
    cl_int err = CL_SUCCESS;
    const char *src = probe_src;
    *out = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    RTM_CL_CHECK(err, "clCreateProgramWithSource(probe)");
    err = clBuildProgram(*out, 1, &d->info.id, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        clReleaseProgram(*out);
        *out = NULL;
        return rtm_ocl_fail("clBuildProgram(probe)", err, __FILE__, __LINE__);
    }
    return RTM_OK;
}

static cl_ulong prof(cl_event ev, cl_profiling_info what)
{
    cl_ulong t = 0;
    if (clGetEventProfilingInfo(ev, what, sizeof(t), &t, NULL) != CL_SUCCESS)
        return 0;
    return t;
}

/* Launch latency (enqueue to start), host round trip, and the fixed time per launch
 * in a kernel span, with the empty kernel. */
static rtm_status_t dev_launch(devcal_t *x)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(x->probe, "rtm_calib_empty", &err);
    RTM_CL_CHECK(err, "clCreateKernel(empty)");
    cl_kernel kl = NULL;
    cl_mem out = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err), ping = NULL,
           pong = NULL;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof(cl_mem), &out);
    if (err == CL_SUCCESS)
        ping = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    if (err == CL_SUCCESS)
        pong = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    if (err == CL_SUCCESS)
        kl = clCreateKernel(x->probe, "rtm_calib_launch", &err);
    for (cl_uint a = 0; a < 16 && err == CL_SUCCESS; a++) { /* out for the pointers */
        const cl_uint zero = 0;
        const bool value = (a >= 3 && a <= 5) || a >= 12;
        err = value ? clSetKernelArg(kl, a, sizeof(zero), &zero)
                    : clSetKernelArg(kl, a, sizeof(cl_mem), &out);
    }
    const size_t local = x->wg_probe < 64 ? x->wg_probe : 64, global = local;
    enum { SPAN = 32 };
    double lat[REPS + 1], rt[REPS + 1], fixed[REPS + 1], sub[REPS + 1], b2b[REPS + 1];
    for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
        cl_event ev = NULL;
        const double h0 = rtm_calib_now();
        err = clEnqueueNDRangeKernel(x->d->exec, k, 1, NULL, &global, &local, 0, NULL, &ev);
        if (err == CL_SUCCESS)
            err = clFinish(x->d->exec);
        rt[r] = rtm_calib_now() - h0;
        if (err == CL_SUCCESS) {
            const cl_ulong q = prof(ev, CL_PROFILING_COMMAND_QUEUED);
            const cl_ulong u = prof(ev, CL_PROFILING_COMMAND_SUBMIT);
            const cl_ulong s = prof(ev, CL_PROFILING_COMMAND_START);
            const cl_ulong e = prof(ev, CL_PROFILING_COMMAND_END);
            lat[r] = s > q ? (double)(s - q) * 1e-9 : 0.0;
            sub[r] = u > q ? (double)(u - q) * 1e-9 : 0.0;
            fixed[r] = e > s ? (double)(e - s) * 1e-9 : 0.0;
        }
        if (ev)
            clReleaseEvent(ev);
        /* as a multi-launch job's launches are enqueued (kexec): a kernel of 16 arguments
         * (the driver copies them at every enqueue; the 1-argument empty kernel's launches
         * ran at 6.6-7.4 us against grid_path's 10.2 us on the H100), the 4 that change
         * from launch to launch set before each (the done offset, a ping-pong pair, the
         * pass), events on the first and the last only (an event apiece cost the H100's
         * host 6-8 us a launch); 32 launches, so that the first's start-up weighs little
         * (8 gave 8.4 and 15.8 us on two H100 instances, session 12) */
        cl_event evs[SPAN] = {NULL};
        for (int i = 0; i < SPAN && err == CL_SUCCESS; i++) {
            const cl_uint doff = (cl_uint)i * 64u, pass = (cl_uint)i;
            err = clSetKernelArg(kl, 5, sizeof(doff), &doff);
            if (err == CL_SUCCESS)
                err = clSetKernelArg(kl, 8, sizeof(cl_mem), i % 2 ? &pong : &ping);
            if (err == CL_SUCCESS)
                err = clSetKernelArg(kl, 9, sizeof(cl_mem), i % 2 ? &ping : &pong);
            if (err == CL_SUCCESS)
                err = clSetKernelArg(kl, 15, sizeof(pass), &pass);
            if (err == CL_SUCCESS)
                err = clEnqueueNDRangeKernel(x->d->exec, kl, 1, NULL, &global, &local, 0, NULL,
                                             i == 0 || i == SPAN - 1 ? &evs[i] : NULL);
        }
        if (err == CL_SUCCESS)
            err = clFinish(x->d->exec);
        if (err == CL_SUCCESS) {
            const cl_ulong s = prof(evs[0], CL_PROFILING_COMMAND_START);
            const cl_ulong e = prof(evs[SPAN - 1], CL_PROFILING_COMMAND_END);
            b2b[r] = e > s ? (double)(e - s) * 1e-9 / SPAN : 0.0;
        }
        for (int i = 0; i < SPAN; i++)
            if (evs[i])
                clReleaseEvent(evs[i]);
    }
    rtm_calib_release_mem(out);
    rtm_calib_release_mem(ping);
    rtm_calib_release_mem(pong);
    if (kl)
        clReleaseKernel(kl);
    clReleaseKernel(k);
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("clEnqueueNDRangeKernel(empty)", err, __FILE__, __LINE__);
    dev_param(x->bd, RTM_DEV_P_launch, rtm_calib_summary(lat + 1, REPS, dfig(x, RTM_DEV_P_launch)));
    dev_param(x->bd, RTM_DEV_P_kernel_fixed,
              rtm_calib_summary(fixed + 1, REPS, dfig(x, RTM_DEV_P_kernel_fixed)));
    rtm_calib_fig_t f;
    const double round_trip = rtm_calib_summary(rt + 1, REPS, &f);
    const double submit = rtm_calib_summary(sub + 1, REPS, NULL);
    const double back = rtm_calib_summary(b2b + 1, REPS, dfig(x, RTM_DEV_P_kernel_next));
    if (back > 0.0)
        dev_param(x->bd, RTM_DEV_P_kernel_next, back);
    else
        cal_fallback(x->c, "%s: no back-to-back launch interval measured: every launch of a job "
                           "costs kernel_fixed", x->bd->name);
    cal_note(x->c, "%s: empty kernel: enqueue->start %.4gus (QUEUED->START; QUEUED->SUBMIT "
                   "%.4gus), START->END %.4gus (kernel_fixed), host round trip enqueue->clFinish "
                   "%.4gus (spread %.1f%%), %d back-to-back launches %.4gus each (kernel_next)",
             x->bd->name, x->bd->param[RTM_DEV_P_launch] * 1e6, submit * 1e6,
             x->bd->param[RTM_DEV_P_kernel_fixed] * 1e6, round_trip * 1e6, f.spread * 100, SPAN,
             back * 1e6);
    return RTM_OK;
}

/* Occupancy probe: a dependent chain per work-item on cus * m work-groups; the time
 * stays flat while the groups run at once and grows beyond. resident = the largest m
 * still flat; units = cus * resident * wg (work-items in flight); r_probe = time of
 * one dependent operation. */
static rtm_status_t dev_occupancy(devcal_t *x)
{
    cal_t *c = x->c;
    const rtm_ocl_info_t *info = &x->d->info;
    const bool gpu_like = !(info->type & CL_DEVICE_TYPE_CPU);
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(x->probe, "rtm_calib_probe", &err);
    RTM_CL_CHECK(err, "clCreateKernel(probe)");
    size_t kwg = 0;
    clGetKernelWorkGroupInfo(k, info->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kwg), &kwg, NULL);
    uint32_t wg = 256;
    while (wg > 1 && (wg > info->max_wg || (kwg && wg > kwg)))
        wg /= 2;
    x->wg_probe = wg;
    const uint32_t cus = info->units ? info->units : 1;
    static const uint32_t ms[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    uint32_t n_m = 0;
    while (n_m < N_OF(ms) && (gpu_like ? ms[n_m] * wg <= 2048 : ms[n_m] <= 4))
        n_m++;
    if (n_m == 0)
        n_m = 1;
    const size_t out_bytes = (size_t)cus * ms[n_m - 1] * wg * sizeof(float);
    cl_mem out = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
    const float a = 0.9999f, b = 0.0001f;
    cl_uint steps = 1024;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 0, sizeof(cl_mem), &out);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 2, sizeof(a), &a);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 3, sizeof(b), &b);
    const size_t local = wg;
    /* steps such that cus groups take about `want` */
    const double want = c->o->quick ? 0.5e-3 : 1e-3;
    for (int tries = 0; tries < 8 && err == CL_SUCCESS; tries++) {
        const size_t global = (size_t)cus * wg;
        cl_event ev = NULL;
        err = clSetKernelArg(k, 1, sizeof(steps), &steps);
        if (err == CL_SUCCESS)
            err = clEnqueueNDRangeKernel(x->d->exec, k, 1, NULL, &global, &local, 0, NULL, &ev);
        if (err == CL_SUCCESS)
            err = clWaitForEvents(1, &ev);
        const double t1 = err == CL_SUCCESS ? rtm_ocl_event_seconds(ev) : 0.0;
        if (ev)
            clReleaseEvent(ev);
        if (t1 >= want * 0.7 || steps >= (1u << 24))
            break;
        const double f = t1 > 0 ? want / t1 : 16.0;
        steps = (cl_uint)fmin((double)(1u << 24), steps * fmin(fmax(f, 1.5), 64.0));
    }
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 1, sizeof(steps), &steps);
    double tm[N_OF(ms)] = {0};
    rtm_calib_fig_t f1 = {0};
    for (uint32_t i = 0; i < n_m && err == CL_SUCCESS; i++) {
        const size_t global = (size_t)cus * ms[i] * wg;
        double samp[REPS + 1];
        for (int r = 0; r <= REPS && err == CL_SUCCESS; r++) {
            cl_event ev = NULL;
            err = clEnqueueNDRangeKernel(x->d->exec, k, 1, NULL, &global, &local, 0, NULL, &ev);
            if (err == CL_SUCCESS)
                err = clWaitForEvents(1, &ev);
            samp[r] = err == CL_SUCCESS ? rtm_ocl_event_seconds(ev) : 0.0;
            if (ev)
                clReleaseEvent(ev);
        }
        tm[i] = rtm_calib_summary(samp + 1, REPS, i == 0 ? &f1 : NULL);
        if (i > 0 && tm[i] > 2.0 * tm[0])
            n_m = i + 1; /* well past the knee */
    }
    rtm_calib_release_mem(out);
    clReleaseKernel(k);
    if (err != CL_SUCCESS)
        return rtm_ocl_fail("rtm_calib_probe", err, __FILE__, __LINE__);
    uint32_t resident = 1;
    for (uint32_t i = 1; i < n_m && tm[i] <= 1.2 * tm[0]; i++)
        resident = ms[i];
    x->r_probe = tm[0] / steps;
    dev_param(x->bd, RTM_DEV_P_cus, cus);
    dev_param(x->bd, RTM_DEV_P_resident, resident);
    dev_param(x->bd, RTM_DEV_P_units, (double)cus * resident * wg);
    const int ids[3] = {RTM_DEV_P_cus, RTM_DEV_P_resident, RTM_DEV_P_units};
    for (int i = 0; i < 3; i++) {
        *dfig(x, ids[i]) = f1;
        dfig(x, ids[i])->median = x->bd->param[ids[i]];
    }
    char curve[256] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < n_m; i++)
        (void)rtm_calib_appendf(curve, sizeof(curve), &used, "%s%u:%.3g", i ? " " : "", ms[i],
                                tm[i] / tm[0]);
    cal_note(c, "%s: occupancy probe (dependent mad chain of %u steps, wg %u): time of cus*m "
                "groups / time of cus groups, by m: %s -> resident %u, units = %u cus * %u * %u = "
                "%.0f; one dependent op %.4gns",
             x->bd->name, (unsigned)steps, wg, curve, resident, cus, resident, wg,
             x->bd->param[RTM_DEV_P_units], x->r_probe * 1e9);
    return RTM_OK;
}

/* "1M:5123 1.41M:5230 …": size (MiB) and GB/s of a curve, for the notes. */
static void llc_text(char *buf, size_t len, const rtm_calib_llc_curve_t *cv)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < cv->n; i++)
        (void)rtm_calib_appendf(buf, len, &used, "%s%.3gM:%.4g", i ? " " : "", cv->size[i] / MIB,
                                1e-9 / cv->t[i]);
}

/* The device's last-level cache (a non-CPU device), measured by the read sweep with
 * shared lines (each pass moves every line to another work-group, as matrix_mul's B
 * is read by every compute unit: no compute unit's L1 holds the working set, so the
 * cliff is the last level's). `reported` (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, already the
 * parameter) stays when the curve shows no cliff (a note) or the sweep fails (a
 * FALLBACK). The private-lines curve (each work-item the same lines every pass, where
 * a compute unit's L1 may hold them) goes into the notes for comparison. */
static void dev_llc(devcal_t *x, double reported)
{
    cal_t *c = x->c;
    rtm_board_dev_t *bd = x->bd;
    rtm_calib_llc_opts_t o = rtm_calib_llc_defaults();
    if (c->o->quick) {
        o.launch_bytes = 256 * MIB;
        o.reps = 3;
    }
    rtm_calib_llc_curve_t cv, pv;
    const rtm_status_t st = rtm_calib_llc_curve(x->d, x->probe, &o, &cv);
    if (st != RTM_OK) {
        cal_fallback(c, "%s: cache: the read sweep failed (%s): the reported %.4gMiB "
                        "(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE) kept",
                     bd->name, rtm_status_name(st), reported / MIB);
        return;
    }
    o.shared = false;
    const bool have_pv = rtm_calib_llc_curve(x->d, x->probe, &o, &pv) == RTM_OK;
    char text[768], ptext[768] = "";
    llc_text(text, sizeof(text), &cv);
    if (have_pv)
        llc_text(ptext, sizeof(ptext), &pv);
    rtm_calib_llc_knee_t kn, pk;
    const bool cliff = rtm_calib_llc_knee(cv.size, cv.t, cv.n, &kn);
    const bool pcliff = have_pv && rtm_calib_llc_knee(pv.size, pv.t, pv.n, &pk);
    char ptail[128];
    if (pcliff)
        snprintf(ptail, sizeof(ptail), "cliff at %.4gMiB", pk.cache / MIB);
    else
        snprintf(ptail, sizeof(ptail), "%s", have_pv ? "no cliff" : "failed");
    if (cliff) {
        /* whole 64 KiB (the profile writes it as a short size) */
        dev_param(bd, RTM_DEV_P_cache, fmax(1.0, floor(kn.cache / 65536.0 + 0.5)) * 65536.0);
        *dfig(x, RTM_DEV_P_cache) = (rtm_calib_fig_t){bd->param[RTM_DEV_P_cache],
                                                      fmax(cv.spread[kn.lo], cv.spread[kn.hi]),
                                                      0.0, cv.n, cv.n};
        cal_note(c, "%s: cache measured %.4gMiB (reported %.4gMiB, "
                    "CL_DEVICE_GLOBAL_MEM_CACHE_SIZE): read sweep of shared lines, %.4gGB/s "
                    "fastest, %.4gGB/s at %.4gMiB, their geometric midpoint %.4gGB/s crossed "
                    "between %.4gMiB and %.4gMiB (%.2fs)",
                 bd->name, bd->param[RTM_DEV_P_cache] / MIB, reported / MIB, 1e-9 / kn.t_fast,
                 1e-9 / kn.t_slow, cv.size[cv.n - 1] / MIB, 1e-9 / kn.t_mid, cv.size[kn.lo] / MIB,
                 cv.size[kn.hi] / MIB, cv.seconds);
        cal_say(c, "%s: cache measured %.4gMiB (reported %.4gMiB): %.4gGB/s in it, %.4gGB/s at "
                   "%.4gMiB, cliff between %.4gMiB and %.4gMiB; private lines %s",
                bd->name, bd->param[RTM_DEV_P_cache] / MIB, reported / MIB, 1e-9 / kn.t_fast,
                1e-9 / kn.t_slow, cv.size[cv.n - 1] / MIB, cv.size[kn.lo] / MIB,
                cv.size[kn.hi] / MIB, ptail);
    } else {
        cal_note(c, "%s: cache measured: no cliff in the read sweep of shared lines (%.4gGB/s "
                    "fastest, %.4gGB/s at %.4gMiB, less than x%.2f): the reported %.4gMiB "
                    "(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE) kept (%.2fs)",
                 bd->name, kn.t_fast > 0 ? 1e-9 / kn.t_fast : 0.0,
                 kn.t_slow > 0 ? 1e-9 / kn.t_slow : 0.0, cv.n ? cv.size[cv.n - 1] / MIB : 0.0,
                 RTM_CALIB_LLC_STEP, reported / MIB, cv.seconds);
        cal_say(c, "%s: cache measured: no cliff, the reported %.4gMiB kept; private lines %s",
                bd->name, reported / MIB, ptail);
    }
    cal_note(c, "%s: cache read sweep, MiB:GB/s, shared lines: %s", bd->name, text);
    cal_note(c, "%s: cache read sweep, MiB:GB/s, private lines (%s): %s", bd->name, ptail, ptext);
}

static rtm_status_t dev_build(devcal_t *x, bahead_t *ahead)
{
    cal_t *c = x->c;
    bfig_t own, *f = &own;
    if (ahead && ahead->started) {
        pthread_join(ahead->th, NULL);
        ahead->started = false;
        f = &ahead->f;
    } else {
        rtm_calib_build_figs(x->d, x->wg_probe, rtm_calib_build_reps(c->o), f);
    }
    if (f->st != RTM_OK)
        return f->st;
    dev_param(x->bd, RTM_DEV_P_build,
              rtm_calib_summary(f->tb, (size_t)f->reps, dfig(x, RTM_DEV_P_build)));
    dev_param(x->bd, RTM_DEV_P_cache_load,
              rtm_calib_summary(f->tl, REPS, dfig(x, RTM_DEV_P_cache_load)));
    cal_note(c, "%s: build time c: matrix_add.cl from source with a unique -D per build (driver "
                "caches bypassed), %d builds; cache_load: rtm_program_build_cached from a fresh "
                "cache directory, %d of %d loads came from the cache%s",
             x->bd->name, f->reps, f->loaded, REPS,
             f == &own ? "" : "; measured on a helper thread while the GPUs were calibrated");
    if (f != &own)
        cal_note(c, "%s: the helper thread's builds took %.2fs", x->bd->name, ahead->wall_s);
    return RTM_OK;
}

/* A GPU job's transfers (predicted from the fitted rates) past which calibration times
 * its kernel alone (dev_measure): under it whole jobs cost little more. */
#define ALONE_XFER_S 1e-3

/* measure_alone's rule for a non-CPU device of figures bd: the job's transfers take over
 * ALONE_XFER_S and no buffer is both input and output. */
static bool alone_at(const rtm_board_dev_t *bd, const rtm_kinst_t *k)
{
    const double *bp = bd->param;
    const double xfer =
        bp[RTM_DEV_P_ws_rate] > 0 && bp[RTM_DEV_P_wr_rate] > 0
            ? (double)rtm_kinst_dir_bytes(k, RTM_BUF_IN) / bp[RTM_DEV_P_ws_rate] +
                  (double)rtm_kinst_dir_bytes(k, RTM_BUF_OUT) / bp[RTM_DEV_P_wr_rate]
            : INFINITY;
    bool alone = xfer > ALONE_XFER_S;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        alone = alone && (k->plan.buf[i].dir & RTM_BUF_IN && k->plan.buf[i].dir & RTM_BUF_OUT) == 0;
    return alone;
}

double rtm_calib_dev_pred(const void *ctx, const rtm_kinst_t *k)
{
    const dpred_t *p = ctx;
    static rtm_board_dev_t tmp;
    tmp = *p->bd;
    if (p->ki >= 0 && p->r > 0)
        tmp.ktune[p->ki] = (rtm_board_ktune_t){.have = true, .tune = k->tune, .r_op = p->r,
                                               .t_next = p->bd->ktune[p->ki].t_next};
    rtm_model_job_t job;
    rtm_model_pred_t pr;
    const unsigned flags = !p->total && p->gpu && alone_at(p->bd, k) ? RTM_MODEL_F_KERNELS : 0u;
    if (rtm_model_job_make(k, &job) != RTM_OK ||
        rtm_model_predict_dev(&job, &tmp, RTM_MODEL_EXTENDED, flags, &pr) != RTM_OK)
        return -1.0;
    return (double)(p->total ? pr.ext.total_ns : pr.ext.kernel_ns) * 1e-9;
}

/* rtm_calib_dev_pred's kernel time alone, whatever p->total says (same r). */
static double dev_pred_kernel(const void *ctx, const rtm_kinst_t *k)
{
    dpred_t p = *(const dpred_t *)ctx;
    p.total = false;
    return rtm_calib_dev_pred(&p, k);
}

/* The extended model's lines at instance k, without the kernel's own terms: b + a * r
 * where the device bounds every launch (r large: two predictions), and for a job of
 * several launches bp, its time at r -> 0, where the host paces them (model.c,
 * launches_span: there the work adds a / L per unit of r where all L launches do work,
 * nothing where idle ones end the job: rtm_model_paced_launches over cost.launches_busy,
 * which rtm_kinst_cost fills). The fit takes the
 * larger of the two at each point (calibfit.c, fit_lines). Before session 25 a
 * multi-launch point was one line, the model's tangent where it met the measured time:
 * the fit mixed tangents taken at different r and judged its forms by them (the H100's
 * sort fitted 43 ns with a second regime at 11 ns, validation n = 260 000 +47 %). */
static bool dev_coef(const devcal_t *x, int ki, const rtm_kinst_t *k, double *a, double *b,
                     double *bp)
{
    const dpred_t p1 = rtm_calib_dpred(x, ki, 1e-3), p2 = rtm_calib_dpred(x, ki, 2e-3);
    const double y1 = rtm_calib_dev_pred(&p1, k), y2 = rtm_calib_dev_pred(&p2, k);
    if (y1 < 0 || y2 < 0)
        return false;
    *a = (y2 - y1) / 1e-3;
    *b = y1 - *a * 1e-3;
    *bp = *b;
    if (!(*a > 0))
        return false;
    rtm_cost_t c;
    rtm_kinst_cost(k, &c); /* the launches that carry the work: c.launches_busy */
    if (c.launches < 2)
        return true; /* one launch: one line */
    const dpred_t q = rtm_calib_dpred(x, ki, 1e-15);
    const double floor_s = rtm_calib_dev_pred(&q, k);
    if (floor_s > *b)
        *bp = floor_s - *a * 1e-15 / rtm_model_paced_launches(c.launches, c.launches_busy);
    return true;
}

/* Largest work-group size of any entry point of a built kexec. */
static size_t kexec_max_wg(const rtm_kexec_t *ex, cl_device_id dev)
{
    size_t m = (size_t)-1;
    for (uint32_t i = 0; i < ex->prog.n_kern; i++) {
        size_t w = 0;
        if (clGetKernelWorkGroupInfo(ex->prog.kern[i], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(w),
                                     &w, NULL) == CL_SUCCESS && w < m)
            m = w;
    }
    return m;
}

/* Warm-up: one whole job of `in`, then (warm_s > 0) more until they have run warm_s,
 * kernel-only when `alone` (its inputs stay on the device). */
static rtm_status_t warm_up(rtm_kexec_t *ex, rtm_calib_inst_t *in, bool alone, double warm_s)
{
    rtm_status_t st = RTM_OK;
    double warmed = 0.0;
    for (int w = 0; st == RTM_OK && rtm_calib_warm_more(w, warmed, warm_s); w++) {
        double s = 0.0;
        rtm_kexec_timing_t t;
        if (w > 0 && alone) {
            st = rtm_kexec_run_kernels(ex, 0, &s, NULL);
        } else {
            st = rtm_calib_inst_run(ex, in, &t);
            s = t.in_s + t.kernel_s + t.out_s;
        }
        warmed += s;
    }
    return st;
}

/* Destroys a kexec made by dev_kexec and closes its share of the run time. */
static void dev_kexec_end(devcal_t *x, rtm_kexec_t *ex)
{
    rtm_kexec_destroy(ex);
    x->run_s += rtm_calib_now();
}

/* The kexec of instance `in` for dev_measure / dev_measure_part / dev_pace, with the
 * build or cache load counted; RTM_E_RANGE when the program cannot run the instance's
 * work-group. Every kexec it makes ends in dev_kexec_end. */
static rtm_status_t dev_kexec(devcal_t *x, rtm_calib_inst_t *in, rtm_kexec_t *ex)
{
    const double t0 = rtm_calib_now();
    const rtm_kexec_opts_t o = rtm_calib_point_opts(x, &in->k);
    rtm_status_t st = rtm_kexec_create_ex(ex, x->d, &in->k, &o);
    if (st != RTM_OK)
        return st;
    if (ex->prog.from_cache) {
        x->load_s += ex->prog.build_s;
        x->n_loaded++;
    } else {
        x->build_s += ex->prog.build_s;
        x->n_built++;
    }
    x->run_s -= t0 + ex->prog.build_s; /* the rest of the caller's time: buffers, runs */
    if (kexec_max_wg(ex, x->d->info.id) < in->k.tune.wg) {
        dev_kexec_end(x, ex);
        return RTM_E_RANGE;
    }
    return RTM_OK;
}

/* The device's idle time between a job's phases (block-control clears and inputs ->
 * kernels -> outputs), measured with a small matrix_add job (two inputs, one launch,
 * one output) run as kexec runs every job: the last input's END to the kernel's START
 * (gk) and the kernel's END to the output's START (go), event-profiled. A gap is the
 * device's own, or longer where the host is still enqueueing the next phase when the
 * device has finished the one before: the kernel's enqueue takes the H100's host
 * 10-15 us after the last input's, the output's as long after the kernel's, while such
 * a job's inputs and kernel take the device 1 and 5 us. Validation's jobs measured
 * 3-6 us where their inputs or kernels were long (host ahead) and 9-15 us where both
 * were short (session 27: tiny-input jobs, the empty kernel), where one phase_gap (this
 * job's gaps, 8.6-11.7 us on the H100) charged every job the host-paced gap. So:
 * - phase_gap, the device's own: the job run behind a fill of a scratch buffer that
 *   keeps the device busy about BUSY_S, in which the host has enqueued every command of
 *   the job (each 10-15 us on the H100): the lower quartile (GAP_PCT) of its mean gap, a
 *   floor that a host too busy to enqueue the job within the fill only lengthens (the
 *   median until session 57: 5.6-6.7 us in 108 of the 116 H100 profiles kept, 7.0-15.3
 *   us in 8; session 56's run e at 15.33 us, spread 361 %, whose gpu0 validation predicted
 *   again at 6.3 us came out at 5.06 % MAPE against 6.12 %);
 * - gap_host_k, gap_host_o: the host's time from the previous phase's start on the
 *   device to the next phase's, from the job alone: gk + its inputs' transfer time
 *   (bytes / ws_rate) and go + its kernel span, the lower quartile (GAP_PCT) of
 *   GAP_REPS after one warm-up: calibration's background builds load the host as no
 *   run does (session 25: one H100 host's median was 41.6 us, spread 329 %).
 * The model charges max(phase_gap, gap_host_k - the inputs' transfer time) before the
 * kernels and max(phase_gap, gap_host_o - the kernel span) before the outputs. The H100's
 * driver starts a command 3-9 us after the one before it when the kind changes (session
 * 24). The same job's kernel span alone is the device's kernel_fixed where it is
 * shorter than the empty kernel's alone (dev_launch: one launch on an idle device after
 * clFinish): a launch within a job, behind its inputs, is what the model charges
 * kernel_fixed for (the H100: 6.0 us alone, where validation measured whole small
 * kernels, threshold and copy, at 4.4 us). */
#define GAP_REPS (3 * REPS)
#define GAP_PCT 25.0
/* ws_idle, wr_idle: the job's inputs and outputs after the device idled IDLE_S (as the
 * CPU pool's cw_idle), IDLE_REPS times, less the job alone's back to back (medians). The
 * running system's periodic jobs find the device idle: on the H100 its log put their
 * inputs 22-84 us and outputs 10-25 us over the back-to-back model (session 35). */
#define IDLE_S (RTM_MODEL_IDLE_NS * 1e-9)
#define IDLE_REPS 9
#define BUSY_S 300e-6
static rtm_status_t dev_phase_gap(devcal_t *x)
{
    const rtm_kernel_t *kern = rtm_kernel_find("matrix_add");
    const int64_t size[RTM_SIZE_KEYS_MAX] = {63};
    rtm_calib_inst_t in;
    rtm_status_t st = rtm_calib_inst_make_in(&in, kern, size, kern->tune_default, 7, &x->arena);
    if (st != RTM_OK)
        return st;
    rtm_kexec_t ex;
    st = dev_kexec(x, &in, &ex);
    if (st != RTM_OK) {
        rtm_calib_inst_free(&in);
        return st;
    }
    /* the scratch buffer the busy fill writes: BUSY_S at the device's copy rate (read +
     * write; a fill writes only, so it lasts about half as long again) */
    const rtm_ocl_info_t *info = &x->d->info;
    double busy = fmin(BUSY_S * x->bd->param[RTM_DEV_P_mem_rate], (double)info->max_alloc);
    busy = fmin(fmax(busy, 1.0 * MIB), (double)info->global_mem / 8.0);
    const size_t busy_bytes = (size_t)busy & ~(size_t)4095;
    cl_int err = CL_SUCCESS;
    cl_mem scratch = clCreateBuffer(x->d->ctx, CL_MEM_READ_WRITE, busy_bytes, NULL, &err);
    const bool busy_ok = err == CL_SUCCESS; /* else the job alone's gaps, host-paced */
    err = CL_SUCCESS;
    const double xfer_in =
        (double)rtm_kinst_dir_bytes(&in.k, RTM_BUF_IN) / x->bd->param[RTM_DEV_P_ws_rate];
    double hk[GAP_REPS + 1], ho[GAP_REPS + 1], own[GAP_REPS + 1], kspan[GAP_REPS + 1];
    double in_b[GAP_REPS + 1], out_b[GAP_REPS + 1]; /* the job alone, back to back */
    for (int r = 0; r <= GAP_REPS && st == RTM_OK && err == CL_SUCCESS; r++) {
        rtm_kexec_timing_t t;
        st = rtm_calib_inst_run(&ex, &in, &t);
        hk[r] = t.gap_kernel_s + xfer_in;
        ho[r] = t.gap_out_s + t.kernel_s;
        kspan[r] = t.kernel_s;
        in_b[r] = t.in_s;
        out_b[r] = t.span_s - t.in_s - t.kernel_s; /* as the model-error log measures it */
        const cl_uint zero = 0;
        if (busy_ok)
            err = clEnqueueFillBuffer(x->d->exec, scratch, &zero, sizeof(zero), 0, busy_bytes, 0,
                                      NULL, NULL);
        if (busy_ok && st == RTM_OK && err == CL_SUCCESS)
            st = rtm_calib_inst_run(&ex, &in, &t); /* enqueued behind the fill, whole */
        own[r] = (t.gap_kernel_s + t.gap_out_s) / 2.0;
    }
    /* the same job after the device idled IDLE_S, as the running system's periodic jobs
     * find it */
    double in_i[IDLE_REPS], out_i[IDLE_REPS];
    for (int r = 0; r < IDLE_REPS && st == RTM_OK && err == CL_SUCCESS; r++) {
        rtm_os_sleep_until_s(rtm_os_now_s() + IDLE_S);
        rtm_kexec_timing_t t;
        st = rtm_calib_inst_run(&ex, &in, &t);
        in_i[r] = t.in_s;
        out_i[r] = t.span_s - t.in_s - t.kernel_s;
    }
    dev_kexec_end(x, &ex);
    rtm_calib_inst_free(&in);
    rtm_calib_release_mem(scratch);
    if (st == RTM_OK && err != CL_SUCCESS)
        st = rtm_ocl_fail("clEnqueueFillBuffer(busy)", err, __FILE__, __LINE__);
    if (st != RTM_OK)
        return st;
    /* each the lower quartile of its last GAP_REPS, its median for the note */
    rtm_calib_fig_t fig;
    double med[3];
    const int ids[3] = {RTM_DEV_P_phase_gap, RTM_DEV_P_gap_host_k, RTM_DEV_P_gap_host_o};
    double *v[3] = {own, hk, ho};
    for (int i = 0; i < 3; i++) {
        med[i] = rtm_calib_summary(v[i] + 1, GAP_REPS, &fig); /* sorts v[i][1..] */
        fig.median = rtm_stats_percentile(v[i] + 1, GAP_REPS, GAP_PCT);
        dev_param(x->bd, ids[i], fig.median);
        *dfig(x, ids[i]) = fig;
    }
    cal_note(x->c, "%s: phase_gap %.4gus, the lower quartile of %d jobs' gaps %s a %.4gMiB "
                   "fill%s (median %.4gus); gap_host_k %.4gus, gap_host_o %.4gus, the lower "
                   "quartiles of the job alone's gaps + its inputs' transfer and + its kernel "
                   "(medians %.4gus, %.4gus)",
             x->bd->name, x->bd->param[RTM_DEV_P_phase_gap] * 1e6, GAP_REPS,
             busy_ok ? "behind" : "alone, without", (double)busy_bytes / MIB,
             busy_ok ? " (the device's own)" : "'s scratch buffer (host-paced)", med[0] * 1e6,
             x->bd->param[RTM_DEV_P_gap_host_k] * 1e6,
             x->bd->param[RTM_DEV_P_gap_host_o] * 1e6, med[1] * 1e6, med[2] * 1e6);
    /* what idling adds: the medians' difference, never below 0 */
    const int idle_ids[2] = {RTM_DEV_P_ws_idle, RTM_DEV_P_wr_idle};
    double *back[2] = {in_b, out_b}, *idle[2] = {in_i, out_i}, med_b[2], med_i[2];
    for (int i = 0; i < 2; i++) {
        med_b[i] = rtm_calib_summary(back[i] + 1, GAP_REPS, NULL);
        med_i[i] = rtm_calib_summary(idle[i], IDLE_REPS, &fig);
        fig.median = fmax(0.0, med_i[i] - med_b[i]);
        dev_param(x->bd, idle_ids[i], fig.median);
        *dfig(x, idle_ids[i]) = fig;
    }
    cal_note(x->c, "%s: ws_idle %.4gus, wr_idle %.4gus: the job's inputs %.4gus and outputs "
                   "%.4gus after %gms idle (medians of %d), back to back %.4gus and %.4gus",
             x->bd->name, x->bd->param[RTM_DEV_P_ws_idle] * 1e6,
             x->bd->param[RTM_DEV_P_wr_idle] * 1e6, med_i[0] * 1e6, med_i[1] * 1e6,
             IDLE_S * 1e3, IDLE_REPS, med_b[0] * 1e6, med_b[1] * 1e6);
    const double alone = x->bd->param[RTM_DEV_P_kernel_fixed];
    const double in_job = rtm_calib_summary(kspan + 1, GAP_REPS, &fig);
    if (in_job > 0.0 && in_job < alone) { /* dev_launch measured `alone` */
        dev_param(x->bd, RTM_DEV_P_kernel_fixed, in_job);
        *dfig(x, RTM_DEV_P_kernel_fixed) = fig;
        cal_note(x->c, "%s: kernel_fixed %.4gus, a small matrix_add's kernel within a job "
                       "(the empty kernel alone on the idle device: %.4gus)",
                 x->bd->name, in_job * 1e6, alone * 1e6);
    }
    return RTM_OK;
}

/* Runs instance `in` on the device: one warm-up job and `reps` profiled runs; kernel
 * span summary into fig, median returned in *kernel_s. On a GPU, when no buffer is both
 * read and written by the kernel (its inputs stay as uploaded) and the job's transfers
 * take over ALONE_XFER_S, the runs after the warm-up are the kernel alone (block control
 * cleared, launches; no transfers): the kernel span is what is fitted, and large jobs'
 * transfers would otherwise cost most of calibration's time. Smaller jobs, on a CPU
 * device, and in-place kernels: whole jobs, as validation and the running system run
 * them (there the transfers also warm the caches the kernel then reads; and on the H100
 * a streaming kernel's span alone was 3-5 us longer than within a job, session 41: copy
 * at 0.3-20 M elements +7..+62 %, convolve, matrix_add alike). measure_alone: true when
 * the runs after the warm-up are the kernel alone. */
static bool measure_alone(const devcal_t *x, const rtm_kinst_t *k)
{
    return !rtm_calib_cpu_dev(x) && alone_at(x->bd, k);
}

static rtm_status_t dev_measure(devcal_t *x, rtm_calib_inst_t *in, int reps, double warm_s,
                                double *kernel_s, rtm_calib_fig_t *fig)
{
    rtm_kexec_t ex;
    rtm_status_t st = dev_kexec(x, in, &ex);
    if (st != RTM_OK)
        return st;
    const bool alone = measure_alone(x, &in->k);
    if (reps > REPS)
        reps = REPS;
    double samp[REPS + 1];
    st = warm_up(&ex, in, alone, warm_s);
    for (int r = 1; r <= reps && st == RTM_OK; r++) {
        if (alone) {
            st = rtm_kexec_run_kernels(&ex, 0, &samp[r], NULL);
            continue;
        }
        rtm_kexec_timing_t t;
        st = rtm_calib_inst_run(&ex, in, &t);
        samp[r] = t.kernel_s;
    }
    dev_kexec_end(x, &ex);
    if (st == RTM_OK)
        *kernel_s = rtm_calib_summary(samp + 1, (size_t)reps, fig);
    return st;
}

/* Work-groups the device runs at once at work-group size wg: what a partial job's
 * blocks per worker count in (dev_measure_part). */
static double dev_workers(const devcal_t *x, uint32_t wg)
{
    const double cus = fmax(x->bd->param[RTM_DEV_P_cus], 1.0);
    return fmax(cus, wg ? floor(x->bd->param[RTM_DEV_P_units] / wg) : cus);
}

/* The whole job's kernel time from runs of its first `part` blocks per resident group
 * (one-launch kernels: a launch of the job's first blocks, unmapped, so that the kernel
 * runs the code of the whole job): the inputs uploaded once, then a warm-up and `reps`
 * runs of block control cleared + that launch, each event-profiled; scaled by the waves,
 * ceil(blocks / workers) / part. The steady state of a long job (the workers on
 * neighbouring blocks, the data they share in the caches) is that of its first blocks.
 * The warm-up run tells what a run takes: a longer one than predicted gets fewer runs.
 * On a CPU device only after a check against a whole job (dev_kernel, kfit_t.part: PoCL 5
 * ran the first blocks 1.2-3.3x slower than their share). */
static rtm_status_t dev_measure_part(devcal_t *x, rtm_calib_inst_t *in, int reps, uint32_t part,
                                     double *kernel_s, rtm_calib_fig_t *fig)
{
    const double workers = dev_workers(x, in->k.tune.wg);
    const uint64_t blocks = rtm_kinst_blocks(&in->k);
    const uint64_t m64 = (uint64_t)(part * workers);
    if (in->k.plan.launches != 1 || part == 0 || m64 == 0 || m64 >= blocks)
        return dev_measure(x, in, reps, 0.0, kernel_s, fig);
    rtm_kexec_t ex;
    rtm_status_t st = dev_kexec(x, in, &ex);
    if (st != RTM_OK)
        return st;
    st = rtm_kexec_write_inputs(&ex, NULL, NULL);
    if (reps > REPS)
        reps = REPS;
    double samp[REPS + 1];
    for (int r = 0; r <= reps && st == RTM_OK; r++) {
        st = rtm_kexec_run_kernels(&ex, (uint32_t)m64, &samp[r], NULL);
        if (r == 0 && st == RTM_OK)
            reps = rtm_calib_reps_after_warmup(samp[0], reps);
    }
    dev_kexec_end(x, &ex);
    if (st == RTM_OK)
        *kernel_s = rtm_calib_part_scale(rtm_calib_summary(samp + 1, (size_t)reps, fig), 0.0,
                                         (uint32_t)blocks, (uint32_t)workers, part);
    return st;
}

/* Sizing for the sweep on a GPU: the smallest key whose largest buffer reaches
 * SWEEP_GPU_BUF (past the last-level cache: the bandwidth-bound regime, where vector
 * width and work-group size matter) or whose kernel time reaches SWEEP_GPU_CAP_S (a
 * compute-bound kernel's, its buffers small). Both at once, and a 1 ms kernel at least,
 * had put the H100's streaming kernels at gigabytes (matrix_add's 1 ms is 3 GB at
 * 3 TB/s): instances the sweep's time could not pay for, so no sweep. */
#define SWEEP_GPU_BUF (64.0 * MIB)
#define SWEEP_GPU_CAP_S 5e-3
typedef struct {
    const dpred_t *p;
} spred_t;

static double sweep_pred(const void *ctx, const rtm_kinst_t *k)
{
    const spred_t *s = ctx;
    double big = 0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        big = fmax(big, (double)k->plan.buf[i].bytes);
    const double t = rtm_calib_dev_pred(s->p, k);
    return t < 0 ? -1.0 : fmax(big / SWEEP_GPU_BUF, t / SWEEP_GPU_CAP_S);
}

/* The size the tuning sweep runs at: on a GPU the size above (seeds 001/004: the width
 * that wins on a small job is not the one that wins on a large one), elsewhere kernel
 * time SWEEP_TARGET_S. */
bool rtm_calib_sweep_size(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune, const dpred_t *p,
                          int64_t *size)
{
    if (rtm_calib_cpu_dev(x))
        return rtm_calib_size_for(kern, tune, SWEEP_TARGET_S, rtm_calib_dev_pred, p, &x->lim, 1,
                                  0, NULL, 0, size) >= 0;
    const spred_t sp = {p};
    return rtm_calib_size_for(kern, tune, 1.0, sweep_pred, &sp, &x->lim, 1, 0, NULL, 0, size) >= 0;
}

/* True when b (re-planned for another tuning) has a's buffers, byte for byte. */
static bool same_bufs(const rtm_kinst_t *a, rtm_kinst_t *b)
{
    if (rtm_kinst_plan(b) != RTM_OK || a->plan.n_bufs != b->plan.n_bufs)
        return false;
    for (uint32_t i = 0; i < a->plan.n_bufs; i++)
        if (a->plan.buf[i].bytes != b->plan.buf[i].bytes ||
            a->plan.buf[i].dir != b->plan.buf[i].dir)
            return false;
    return true;
}

/* The sweep's candidates of one phase (-1: the starting tuning, on CPU devices; 0:
 * work-group sizes at base's width, base's own first (the one a later candidate must
 * beat, dev_sweep), GPUs; 1: the widths at base's work-group size, base's own left out:
 * phase 0 measured it). No group of 32 (one warp): on the H100 it was the slowest
 * candidate of every kernel that ran it (session 50: trajectory 0.159 ms against 0.036
 * at 256, manoeuvre 0.277 against 0.184, threshold, convolve, cpa_tcpa, last_chance
 * alike), at a program build on the sweep's time where the batch had not built it. */
static const uint32_t sweep_wgs[] = {256, 128, 64, 512, 1024};
static const uint32_t sweep_vecs[] = {4, 2, 8, 1, 16};

uint32_t rtm_calib_sweep_cands(const devcal_t *x, const rtm_kernel_t *kern, int phase,
                               rtm_tune_t base, rtm_tune_t cand[SWEEP_CAND_MAX])
{
    const uint32_t nc = phase < 0 ? 1 : phase == 0 ? N_OF(sweep_wgs) + 1 : N_OF(sweep_vecs);
    uint32_t n = 0;
    for (uint32_t i = 0; i < nc && n < SWEEP_CAND_MAX; i++) {
        rtm_tune_t t = base; /* phase -1, and phase 0's first: the base itself */
        if (phase == 0 && i > 0)
            t.wg = sweep_wgs[i - 1];
        else if (phase == 1)
            t.vec = sweep_vecs[i];
        if ((phase == 0 && i > 0 && t.wg == base.wg) || (phase == 1 && t.vec == base.vec) ||
            !(kern->vec_allowed & (1u << t.vec)) || t.wg > x->d->info.max_wg)
            continue;
        /* CPU devices run a work-group as a loop on one thread: groups under 64 only
         * add scheduling, and PoCL 3.1 miscompiles some vector kernels at wg 32
         * (matrix_add, vec >= 4: SEGV inside the generated code) */
        if (rtm_calib_cpu_dev(x) && t.wg < 64)
            continue;
        cand[n++] = t;
    }
    return n;
}

/* A kernel's tuning candidates run at `size`: work-group sizes at the default width, then
 * widths at the best work-group size; a candidate wins over the best so far (the start
 * first) when its kernel span is SWEEP_GAIN shorter: a tuning changed for less costs the
 * points programs of their own (on the H100, cpa_pairs' three points rebuilt in 1.2 s
 * after wg 64 won at 0.521 ms against 0.573) for a gain within the runs' spread. Each
 * candidate: one warm-up job and SWEEP_REPS runs (dev_measure: the kernel alone after
 * the warm-up where its transfers are long). */
#define SWEEP_GAIN 0.03
#define SWEEP_REPS 3
static rtm_tune_t dev_sweep(devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                            rtm_tune_t start, double deadline)
{
    rtm_tune_t best = start;
    double best_t = INFINITY;
    char log[512];
    size_t used = 0;
    log[0] = '\0';
    /* a CPU device runs a work-group as a loop on one thread: only the width matters
     * there (and the default work-group is kept) */
    const bool cpu_dev = rtm_calib_cpu_dev(x);
    rtm_calib_inst_t inst = {0};
    bool have_inst = false;
    uint32_t wg_over = UINT32_MAX; /* the smallest work-group the kernel could not run */
    for (int phase = cpu_dev ? -1 : 0; phase < 2; phase++) {
        if (phase == 0 && cpu_dev)
            continue;
        rtm_tune_t base = best;
        rtm_tune_t cand[SWEEP_CAND_MAX];
        uint32_t ncand = rtm_calib_sweep_cands(x, kern, phase, base, cand);
        /* the widths at the starting work-group where the catalogue's batch built those
         * and not the winner's (each a build on the sweep's time: convolve's 128/2,
         * 0.59 s on the H100); the fastest of all candidates wins either way */
        if (phase == 1 && base.wg != start.wg && x->n_queued > 0 &&
            rtm_calib_uncached(x, kern, size, cand, ncand) > 0) {
            base.wg = start.wg;
            ncand = rtm_calib_sweep_cands(x, kern, phase, base, cand);
        }
        /* built together only when the sweep has the time to measure them (a build
         * for a candidate its deadline then skips is lost) */
        if (deadline - rtm_calib_now() > ncand * x->bd->param[RTM_DEV_P_build])
            rtm_calib_prebuild(x, kern, size, cand, ncand);
        for (uint32_t i = 0; i < ncand; i++) {
            const rtm_tune_t t = cand[i];
            if (rtm_calib_now() > deadline && best_t < INFINITY)
                break; /* out of time: keep the best so far */
            if (t.wg >= wg_over)
                continue; /* a smaller group did not fit the kernel's resources */
            /* the first candidate's host buffers (filled once) serve every candidate
             * whose plan has the same buffers */
            rtm_calib_inst_t in = {0};
            bool own = true;
            if (have_inst) {
                in = inst;
                in.k.tune = t;
                own = !same_bufs(&inst.k, &in.k) ||
                      rtm_kinst_bind(&in.k, inst.mem, inst.bytes) == 0;
            }
            /* the first in the pinned arena (free until the points), as the points' */
            if (own && (have_inst ? rtm_calib_inst_make(&in, kern, size, t, 7)
                                  : rtm_calib_inst_make_in(&in, kern, size, t, 7, &x->arena)) !=
                           RTM_OK) {
                rtm_calib_inst_free(&in);
                continue;
            }
            double ks = 0;
            const uint32_t built0 = x->n_built;
            const rtm_status_t st = dev_measure(x, &in, SWEEP_REPS, 0.0, &ks, NULL);
            if (x->n_built > built0) /* not from the cache: a build on the sweep's time */
                (void)rtm_calib_appendf(log, sizeof(log), &used, " (%u/%u compiled)", t.wg, t.vec);
            if (own && !have_inst && st == RTM_OK) {
                inst = in; /* kept for the others */
                have_inst = true;
            } else if (own) {
                rtm_calib_inst_free(&in);
            }
            if (st != RTM_OK || !(ks > 0)) {
                (void)rtm_calib_appendf(log, sizeof(log), &used, " %u/%u:%s", t.wg, t.vec,
                                        st != RTM_OK ? rtm_strerror(st) : "no time");
                if (st == RTM_E_RANGE && t.wg < wg_over)
                    wg_over = t.wg;
                continue;
            }
            (void)rtm_calib_appendf(log, sizeof(log), &used, " %u/%u:%.3gms", t.wg, t.vec,
                                    ks * 1e3);
            if (ks < best_t * (1.0 - SWEEP_GAIN)) {
                best_t = ks;
                best = t;
            }
        }
    }
    if (have_inst)
        rtm_calib_inst_free(&inst);
    cal_note(x->c, "%s: %s sweep (wg/vec:kernel time):%s -> wg %u vec %u", x->bd->name, kern->name,
             log, best.wg, best.vec);
    return best;
}

static bool dk_coef(const void *ctx, const rtm_kinst_t *k, double *a, double *b, double *bp)
{
    const dkctx_t *d = ctx;
    return dev_coef(d->x, d->ki, k, a, b, bp);
}

/* kfit_t.groups on a GPU-like device: instance k's work-groups on the busiest compute
 * unit as model.c's waves term counts them (rtm_model_busiest_groups), and the device's
 * resident groups, at which dev_coef's a is taken (rtm_calib_dev_pred's ktune has no
 * resident). */
static bool dk_groups(const void *ctx, const rtm_kinst_t *k, double *g, double *res)
{
    const dkctx_t *d = ctx;
    const rtm_board_dev_t *bd = d->x->bd;
    rtm_model_job_t job;
    if (!bd->have[RTM_DEV_P_cus] || !bd->have[RTM_DEV_P_resident] ||
        !(bd->param[RTM_DEV_P_cus] >= 1.0) || !(bd->param[RTM_DEV_P_resident] >= 1.0) ||
        rtm_model_job_make(k, &job) != RTM_OK || job.blocks == 0)
        return false;
    *g = rtm_model_busiest_groups((double)job.blocks_busy, bd->param[RTM_DEV_P_cus]);
    *res = bd->param[RTM_DEV_P_resident];
    return true;
}

static rtm_status_t dk_measure(void *ctx, rtm_calib_inst_t *in, int reps, double *t,
                               rtm_calib_fig_t *f)
{
    dkctx_t *d = ctx;
    /* a point follows its instance's set-up (an idle gap): a GPU warmed up by time */
    const bool gpu = !rtm_calib_cpu_dev(d->x);
    return dev_measure(d->x, in, reps, gpu ? RTM_CALIB_WARM_S : 0.0, t, f);
}

static rtm_status_t dk_measure_part(void *ctx, rtm_calib_inst_t *in, int reps, uint32_t part,
                                    double *t, rtm_calib_fig_t *f)
{
    dkctx_t *d = ctx;
    return dev_measure_part(d->x, in, reps, part, t, f);
}

/* Kernel ki's starting tuning and sizing prediction on the device; true when a sweep
 * has something to compare. A CPU device gets none: PoCL's implicit vectoriser packs
 * work-items into SIMD lanes, so the explicit width changes little beyond the kernel's
 * default (copy at 256 MiB on the 16 H100 host cores: vec 4 85.8 GB/s, the best, vec 8,
 * 88.2 GB/s; board/h100/results/bench-pocl16.txt) while every candidate costs a program
 * build and JIT (0.3-1.7 s, one at a time: PoCL serialises its LLVM work); on the H100
 * host the sweep measured the starting tuning alone for every kernel (its deadline cut
 * the rest), on the 2-core machine it picked widths 3% apart, within the noise. The
 * kernel's default, or the base profile's tuning, stays. */
bool rtm_calib_kernel_start(const devcal_t *x, uint32_t ki, rtm_tune_t *tune, dpred_t *p)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    const rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    *tune = kt->have ? kt->tune : kern->tune_default;
    while (tune->wg > 1 && tune->wg > x->d->info.max_wg)
        tune->wg /= 2;
    *p = rtm_calib_dpred(x, (int)ki,
                         kt->have && kt->r_op > 0 ? kt->r_op
                         : x->bd->have[RTM_DEV_P_r_op] ? x->bd->param[RTM_DEV_P_r_op]
                                                       : x->r_probe);
    return p->gpu;
}

/* Host time to make and fill a sweep instance in the pinned arena, per byte of its
 * buffers (the H100 host: matrix_add's 7 points, 1.5 GB of buffers, made and filled in
 * 0.16 s; a malloc'd instance, its pages touched first, had taken 0.34 s for 192 MiB). */
#define SWEEP_INST_S_PER_BYTE 0.25e-9

/* Sweep candidates a time share of `share` seconds pays for, at the sweep's size: each
 * costs its program (prog_s: a build c, or a load from the binary cache where the
 * catalogue's batch built it) and its runs (a whole job to warm up, then SWEEP_REPS
 * runs, of the kernel alone where dev_measure times it so), the job's time predicted at
 * `size`; the instance, made and filled once, comes first. */
static double sweep_affords(const devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                            rtm_tune_t tune, const dpred_t *p, double share, double prog_s)
{
    rtm_kinst_t k;
    rtm_kinst_init(&k, kern);
    for (uint32_t j = 0; j < kern->n_keys; j++)
        k.size[j] = size[j];
    k.tune = tune;
    double runs = 0.0, inst = 0.0;
    if (rtm_kinst_plan(&k) == RTM_OK) {
        /* the instance made and filled once (the H100's matrix_add at 3 x 64 MiB: 0.34 s) */
        dpred_t pk = *p;
        pk.total = true;
        const double job = fmax(rtm_calib_dev_pred(&pk, &k), 0.0);
        const double run = measure_alone(x, &k) ? fmax(dev_pred_kernel(p, &k), 0.0) : job;
        runs = job + SWEEP_REPS * run;
        inst = (double)rtm_kinst_bytes(&k) * SWEEP_INST_S_PER_BYTE;
    }
    const double cand = prog_s + runs;
    return cand > 0 ? fmax(share - inst, 0.0) / cand : 1e9;
}

/* The sweep's time: SWEEP_SHARE of its kernel's budget, SWEEP_MIN_S at least (the
 * kernels of a run past its budget get KERNEL_MIN_S, 0.15 s, of which 40 % paid for no
 * candidate on the H100: its sweeps ran for 3 of 18 kernels, session 49). It runs when
 * that pays for two candidates at least: with one, it returned the candidate it measured
 * without a comparison (the H100's gpu0 took wg 256 for trajectory so, its default 128
 * untried), after a program build and an instance at the sweep's size. */
#define SWEEP_SHARE 0.4
#define SWEEP_MIN_S 0.2
static double sweep_share(double budget) { return fmax(SWEEP_SHARE * budget, SWEEP_MIN_S); }

bool rtm_calib_sweep_runs(const devcal_t *x, const rtm_kernel_t *kern, const int64_t *size,
                          rtm_tune_t tune, const dpred_t *p, double budget, double prog_s)
{
    return sweep_affords(x, kern, size, tune, p, sweep_share(budget), prog_s) >= 2.0;
}

/* A mark of devcal_t's timing accumulators, and what happened since one (notes). */
typedef struct {
    double t, build_s, load_s, run_s, pre_s;
    uint32_t built, loaded, pre;
} phase_t;

static phase_t phase_mark(const devcal_t *x)
{
    return (phase_t){rtm_calib_now(), x->build_s, x->load_s, x->run_s, x->pre_s,
                     x->n_built, x->n_loaded, x->n_pre};
}

/* "W.WWs (builds B.BBs xN, loads L.LLs xM, runs R.RRs, instances/other O.OOs)" since a. */
static void phase_fmt(char *buf, size_t len, const devcal_t *x, const phase_t *a)
{
    const phase_t b = phase_mark(x);
    const double wall = b.t - a->t, bu = b.build_s - a->build_s, lo = b.load_s - a->load_s,
                 ru = b.run_s - a->run_s, pr = b.pre_s - a->pre_s;
    snprintf(buf, len, "%.2fs (parallel prebuild %.2fs x%u, builds %.2fs x%u, cache loads "
                       "%.2fs x%u, runs %.2fs, instances+other %.2fs)",
             wall, pr, b.pre - a->pre, bu, b.built - a->built, lo, b.loaded - a->loaded, ru,
             fmax(wall - pr - bu - lo - ru, 0.0));
}

/* Launches from which a kernel's own pace is measured, and the most doublings of its
 * first key that dev_pace tries to reach them. */
#define PACE_LAUNCHES 8
#define PACE_DOUBLINGS 24

/* kernel_fixed, 0 when not calibrated. */
static double dev_kernel_fixed(const rtm_board_dev_t *bd)
{
    return bd->have[RTM_DEV_P_kernel_fixed] ? bd->param[RTM_DEV_P_kernel_fixed] : 0.0;
}

/* The kernel's own launch pace on the device (ktune t_next) when its jobs launch 3 times
 * or more: a job at its smallest size (first key at its minimum, doubled until it
 * launches PACE_LAUNCHES times, the other keys at their defaults), where each launch's
 * device time is about kernel_fixed and the host's enqueueing paces the launches; warmed
 * up, REPS kernel-only runs: t_next = (span - kernel_fixed) / (launches - 1) from the
 * median span, or on a GPU the host's median enqueueing time per launch when that is
 * shorter; noted with both. The empty probe kernel's pace (kernel_next) was no proxy for
 * a real job's: on one H100 instance 13.6 us against grid_path's 9.3 us and radix_sort's
 * 8.1 us, and grid_path's widths 64-3500 validated +44-60 % (session 13). 0 when not
 * measured. */
/* The instance dev_pace measures kern's launch pace at (its first key doubled from its
 * least until its job makes PACE_LAUNCHES launches) in *k; false when kern's jobs make
 * fewer than 3 launches: one launch a job, no host pace in its time. */
static bool pace_size(const devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune,
                      rtm_kinst_t *k)
{
    if (kern->n_keys == 0)
        return false;
    int64_t key0 = kern->keys[0].min > 0 ? kern->keys[0].min : 1;
    bool ok = false;
    for (int i = 0; i < PACE_DOUBLINGS && key0 <= kern->keys[0].max; i++, key0 *= 2) {
        ok = rtm_calib_size_plan(kern, key0, tune, &x->lim, k);
        if (!ok || k->plan.launches >= PACE_LAUNCHES)
            break;
    }
    return ok && k->plan.launches >= 3;
}

/* The instance with more launches beside pace_size's k (L1 launches) for a kernel whose
 * launch count grows with its first key (sort's merge stages): that key doubled, at most
 * PACE_MORE_DOUBLINGS times, until the job makes 2 * L1 launches; false for kernels of
 * a fixed count (radix_sort's 12, grid_path's 128). */
#define PACE_MORE_DOUBLINGS 3
static bool pace_size_more(const devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune,
                           const rtm_kinst_t *k, rtm_kinst_t *k2)
{
    int64_t key0 = k->size[0];
    for (int i = 0; i < PACE_MORE_DOUBLINGS && key0 <= kern->keys[0].max / 2; i++) {
        key0 *= 2;
        if (!rtm_calib_size_plan(kern, key0, tune, &x->lim, k2))
            return false;
        if (k2->plan.launches >= 2 * k->plan.launches)
            return true;
    }
    return false;
}

/* Warmed up, REPS kernel-only runs of instance k: the median span in *span and the
 * host's median enqueueing time per launch in *enq. */
static bool pace_runs(devcal_t *x, const rtm_kernel_t *kern, const rtm_kinst_t *k,
                      double *span_s, double *enq)
{
    rtm_calib_inst_t in;
    if (rtm_calib_inst_make_in(&in, kern, k->size, k->tune, POINT_SEED0, &x->arena) != RTM_OK)
        return false;
    rtm_kexec_t ex;
    rtm_status_t st = dev_kexec(x, &in, &ex);
    double span[REPS], host[REPS];
    if (st == RTM_OK) {
        /* warm-up as the points' (dev_measure on a GPU): after one job alone the H100
         * host enqueued sort's launches at 15.0 us, grid_path's at 13.9 us, and the
         * points that followed, warmed up, ran at 9-11 us a launch (session 13) */
        st = warm_up(&ex, &in, true, RTM_CALIB_WARM_S);
        for (int r = 0; r < REPS && st == RTM_OK; r++)
            st = rtm_kexec_run_kernels(&ex, 0, &span[r], &host[r]);
        dev_kexec_end(x, &ex);
    }
    rtm_calib_inst_free(&in);
    if (st != RTM_OK)
        return false;
    *span_s = rtm_calib_summary(span, REPS, NULL);
    *enq = rtm_calib_summary(host, REPS, NULL) / (double)k->plan.launches;
    return true;
}

static double dev_pace(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune)
{
    rtm_kinst_t k;
    double s = 0.0, enq = 0.0;
    if (!pace_size(x, kern, tune, &k) || !pace_runs(x, kern, &k, &s, &enq))
        return 0.0;
    const double fixed = dev_kernel_fixed(x->bd);
    const double L = (double)k.plan.launches;
    const double pace = s > fixed ? (s - fixed) / (L - 1.0) : 0.0;
    /* a GPU runs the launches as the host enqueues them: the host's enqueueing is the
     * pace, and the span's share can only add launches' own work (sort's chunk sort and
     * merges at n = 32768: 16.0 us a launch against 9.95 us enqueueing on the H100, and
     * validation's n = 131072-330000 ran at 10.5-12 us); on PoCL the device's own
     * per-launch cost is what the span holds (grid_path's 73-79 us a launch against
     * 4.8-5.4 us enqueueing on the H100 host) */
    const bool gpu = !rtm_calib_cpu_dev(x);
    const bool host_paced = gpu && enq > 0.0 && enq < pace;
    double t_next = host_paced ? enq : pace;
    if (t_next > 0)
        cal_note(x->c, "%s: %s: t_next %.4gus from its %u launches at %s=%lld: %s (the host "
                       "enqueued them at %.4gus a launch)", x->bd->name, kern->name, t_next * 1e6,
                 k.plan.launches, kern->keys[0].name, (long long)k.size[0],
                 host_paced ? "the host's enqueueing" : "(span - kernel_fixed) / (launches - 1)",
                 enq * 1e6);
    /* on a GPU, a kernel whose launches grow with its size: what each further launch adds
     * between two sizes, where less. One size's figure holds what every job pays once:
     * the H100's sort at n = 32 768 (8 launches) spanned 121 us in a whole job, at
     * 65 536-262 144 (12-23 launches) 6.2-6.8 us more a launch (its chunk pass, a block's
     * 78 steps in local memory, is as long at any of those sizes), and calibration's
     * one-size t_next of 13.5-14.7 us put validation's n = 131 072 and 450 000 at
     * +17 / +33 % (session 58); the per-job rest is the fit's t_fixed. Taken where at
     * least kernel_fixed and below the one-size figure. */
    rtm_kinst_t k2;
    double s2 = 0.0, enq2 = 0.0;
    if (gpu && t_next > 0 && pace_size_more(x, kern, tune, &k, &k2) &&
        pace_runs(x, kern, &k2, &s2, &enq2)) {
        const double more = (s2 - s) / (double)(k2.plan.launches - k.plan.launches);
        /* a launch adds at least the device's own kernel_fixed: less means the smaller
         * size's runs were slowed (session 58: one run's first sample enqueued its 8
         * launches at 114 us each), and the one-size figure stands for pace_cap to judge */
        if (more >= fixed && more < t_next) {
            cal_note(x->c, "%s: %s: t_next %.4gus, each launch more from %u to %u (%s=%lld: "
                           "%.4gus against %.4gus; the host enqueued them at %.4gus a launch)",
                     x->bd->name, kern->name, more * 1e6, k.plan.launches, k2.plan.launches,
                     kern->keys[0].name, (long long)k2.size[0], s2 * 1e6, s * 1e6, enq2 * 1e6);
            t_next = more;
        }
    }
    return t_next;
}

/* The pace probe now (rtmgr/pace.h): its median in *median (0 on failure), its figure
 * into fig (may be NULL). */
static rtm_status_t pace_probe(devcal_t *x, rtm_calib_fig_t *fig, double *median)
{
    double s[RTM_PACE_REPS];
    return rtm_pace_probe(x->d, x->cache, s, fig, median);
}

/* The pace probe beside a t_next sample (a GPU whose device figures have their probe):
 * its median, 0 where none. */
static double pace_beside(devcal_t *x)
{
    double median = 0.0;
    if (!rtm_calib_cpu_dev(x) && x->bd->have[RTM_DEV_P_pace])
        (void)pace_probe(x, NULL, &median);
    return median;
}

/* t_next against the kernel's points: a point of L launches that took t bounds the pace
 * by (t + the host's lead where it ran as a whole job - kernel_fixed) / (L - 1). A
 * measured pace far past the bound is an outlier and lowered to it (rtm_calib_pace_keep);
 * then the points' lines are taken again (dev_coef) with it. Noted either way when the
 * bound is below the pace. */
static void pace_cap(devcal_t *x, uint32_t ki, rtm_tune_t tune, kpoint_t *pts, uint32_t n)
{
    rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    const double fixed = dev_kernel_fixed(x->bd);
    double bound = kt->t_next;
    rtm_kinst_t k;
    for (uint32_t i = 0; i < n; i++)
        if (!pts[i].part && rtm_calib_size_plan(kern, pts[i].key, tune, NULL, &k) &&
            k.plan.launches > 2 && pts[i].t > fixed) {
            /* a whole job's launches began with the host's lead (model.c, host_lead) */
            const double lead =
                measure_alone(x, &k)
                    ? 0.0
                    : rtm_model_dev_lead(x->bd, (double)rtm_kinst_dir_bytes(&k, RTM_BUF_IN));
            bound = fmin(bound, (pts[i].t + lead - fixed) / (double)(k.plan.launches - 1));
        }
    if (!(bound < kt->t_next))
        return;
    const double keep = rtm_calib_pace_keep(kt->t_next, bound);
    cal_note(x->c, "%s: %s: t_next %s %.4gus: its points allow %.4gus (an outlier at %.3gx)",
             x->bd->name, kern->name, keep < kt->t_next ? "lowered from" : "kept at",
             kt->t_next * 1e6, bound * 1e6, RTM_CALIB_PACE_OUTLIER);
    if (!(keep < kt->t_next))
        return;
    kt->t_next = keep;
    for (uint32_t i = 0; i < n; i++) {
        if (!rtm_calib_size_plan(kern, pts[i].key, tune, NULL, &k))
            continue;
        k.busy = (uint32_t)pts[i].busy; /* the point's map's busy launches (kernel_point) */
        (void)dev_coef(x, (int)ki, &k, &pts[i].a, &pts[i].b, &pts[i].bp);
    }
}

/* The aligned-rows point on a GPU: near ALIGN_AT_S of job time; whole jobs within
 * ALIGN_BUDGET_S (3 at least, REPS at most: align_reps). */
#define ALIGN_AT_S 5e-3
#define ALIGN_BUDGET_S 0.2
static int align_reps(double t)
{
    return (int)fmax(3.0, fmin((double)REPS, floor(ALIGN_BUDGET_S / t)));
}

/* A CPU-type device's L1 (l1d, l1d_ways, line): its work-items run on the host's cores
 * (rtm_calib_l1d); a GPU's are left out (no strided-walk term). */
static void dev_l1d(devcal_t *x)
{
    rtm_board_dev_t *bd = x->bd;
    const int id[3] = {RTM_DEV_P_l1d, RTM_DEV_P_l1d_ways, RTM_DEV_P_line};
    for (int i = 0; i < 3; i++)
        bd->have[id[i]] = false;
    if (!rtm_calib_cpu_dev(x))
        return;
    double l1[3];
    if (!rtm_calib_l1d(l1)) {
        cal_fallback(x->c, "%s: the host's L1 data cache unknown (sysconf): strided walks are "
                           "predicted as the fitted sizes'",
                     bd->name);
        return;
    }
    for (int i = 0; i < 3; i++) {
        dev_param(bd, id[i], l1[i]);
        *dfig(x, id[i]) = (rtm_calib_fig_t){l1[i], 0, 0, 1, 1};
    }
}

/* A CPU-type device's aligned point: its largest point whose aligned size, measured as
 * the point was (its first blocks and jobs where it was partial, else whole jobs as
 * dev_aligned's), is predicted to take ALIGN_BIG_S at most; NULL when none. */
#define ALIGN_BIG_S 1.5
static const kpoint_t *dev_aligned_big(devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune,
                                       const kpoint_t *pts, uint32_t n)
{
    const kpoint_t *best = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const kpoint_t *q = &pts[i];
        rtm_kinst_t k;
        if ((best && q->key <= best->key) || q->L > 1.0 || !(q->t > 0.0) ||
            !rtm_calib_size_plan(kern, q->key, tune, &x->lim, &k))
            continue;
        const double blocks = (double)rtm_kinst_blocks(&k);
        const double run = q->part ? q->t * fmin(1.0, q->part * dev_workers(x, tune.wg) / blocks)
                                   : q->t;
        const int reps = q->part ? q->reps : align_reps(q->t);
        if ((reps + 1) * run <= ALIGN_BIG_S)
            best = q;
    }
    return best;
}

/* ktune `aligned` (and `aligned_r`) for a kernel whose cost says a job's rows may start
 * on 32-byte sectors (rtm_cost_t.rows_aligned): its points are odd sizes, whose rows do
 * not. One aligned size (first key 8 mod 16 just below an odd point, never one of
 * validation's seed-000 sizes: rtm_calib_aligned_key) is measured; each size's work over
 * the fitted model's, (t - fixed) / (predicted - fixed) with fixed = t_fixed +
 * kernel_fixed, and F = the aligned size's over the odd point's (the fit's own error
 * there cancels), kept when it differs from 1 by more than the two measurements' spreads.
 * - A GPU: the whole one-launch point nearest ALIGN_AT_S, whole jobs; aligned = F. On the
 *   H100 the seed-000 loop kernels ran 9-14 % faster per step on aligned rows and
 *   validated at +7-12 % without it (session 36).
 * - A CPU-type device (PoCL): the largest point dev_aligned_big allows, measured as it
 *   was, and the CPU pool's growth form (rtm_calib_aligned_terms: aligned the share of
 *   the fitted rate's growth above aligned_r the aligned rows keep): its odd rows past the
 *   L3 ran up to twice the aligned ones, which the 5 ms point (n = 136) did not show:
 *   validation's matrix_mul at n = 2 000-3 000 +31..+92 % on the H100 host, +39..+134 %
 *   on the AMD development host (session 76).
 * Left 0 (none) when the kernel's time does not depend on it, or it cannot be measured
 * (noted). */
static void dev_aligned(devcal_t *x, uint32_t ki, rtm_tune_t tune, const kpoint_t *pts,
                        uint32_t n)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    const bool host = rtm_calib_cpu_dev(x);
    const kpoint_t *p =
        host ? dev_aligned_big(x, kern, tune, pts, n) : rtm_calib_point_nearest(pts, n, 0, ALIGN_AT_S);
    const kpoint_t *p0 = rtm_calib_point_smallest(pts, n);
    kt->aligned = kt->aligned_r = 0.0;
    if (!p || !p0 || !kt->have || kern->n_keys == 0)
        return;
    rtm_kinst_t k, kp;
    rtm_cost_t cost, cost0;
    const int64_t key =
        rtm_calib_aligned_sizes(x->c, kern, tune, &x->lim, p, p0, &k, &kp, &cost, &cost0);
    if (key < 0)
        return;
    /* the fitted model's kernel times (the device's record as it stands, no override) */
    const dpred_t fit = rtm_calib_dpred(x, -1, 0.0);
    const double pred = rtm_calib_dev_pred(&fit, &k), pred_p = rtm_calib_dev_pred(&fit, &kp);
    if (!(pred > 0) || !(pred_p > 0))
        return;
    const double fixed = kt->t_fixed + dev_kernel_fixed(x->bd);
    const uint32_t part = host ? p->part : 0;
    const int reps = part ? p->reps : align_reps(pred);
    rtm_calib_inst_t in;
    if (rtm_calib_inst_make_in(&in, kern, k.size, tune, POINT_SEED0, &x->arena) != RTM_OK)
        return;
    double t = 0.0;
    rtm_calib_fig_t f = {0};
    const rtm_status_t st = part ? dev_measure_part(x, &in, reps, part, &t, &f)
                                 : dev_measure(x, &in, reps, host ? 0.0 : RTM_CALIB_WARM_S, &t, &f);
    rtm_calib_inst_free(&in);
    /* within the two measurements' spreads it is noise, not alignment (PoCL on the H100
     * host: 0.95-1.11 at 6-17 % spreads at its 5 ms point; the H100 0.91-0.94 at 0.0-0.2 %) */
    const rtm_calib_factor_t fa = {x->bd->name, "aligned", "rows aligned to 32 bytes",
                                   "aligned rows", key, t, f.spread, reps, pred, p, pred_p,
                                   fixed, host ? RTM_BOARD_ALIGNED_GROWTH_MIN : RTM_BOARD_ALIGNED_MIN,
                                   RTM_BOARD_ALIGNED_MAX, st};
    const double F = rtm_calib_factor(x->c, kern, &fa);
    if (host)
        rtm_calib_aligned_terms(x->c, x->bd->name, kern, F,
                                rtm_model_kernel_rate(x->bd->ktune, (int)ki, &cost, false),
                                rtm_model_kernel_rate(x->bd->ktune, (int)ki, &cost0, false),
                                p0->key, key, kt);
    else
        kt->aligned = F;
}

/* ktune `aliased` of a CPU-type device's kernel whose cost has a strided walk
 * (rtm_cost_t.stride_bytes), as the CPU pool's (calibcpu.c, cpu_aliased): the device's
 * work-items run on the host's cores, whose L1 (l1d, l1d_ways, line) the walk may alias.
 * One size whose walk misses it all along, the nearest to the whole-job point nearest
 * RTM_CALIB_ALIAS_AT_S, whole jobs, against the fitted point nearest it
 * (rtm_calib_factor; PoCL here: matrix_loop_add at n = 256, 384 validated -20..-30 %
 * without it, session 59). */
static void dev_aliased(devcal_t *x, uint32_t ki, rtm_tune_t tune, const kpoint_t *pts,
                        uint32_t n)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    kt->aliased = 0.0;
    const double l1[3] = {x->bd->param[RTM_DEV_P_l1d], x->bd->param[RTM_DEV_P_l1d_ways],
                          x->bd->param[RTM_DEV_P_line]};
    if (!rtm_calib_cpu_dev(x) || !x->bd->have[RTM_DEV_P_l1d] || !x->bd->have[RTM_DEV_P_l1d_ways] ||
        !x->bd->have[RTM_DEV_P_line] || !kt->have)
        return;
    rtm_kinst_t k, kp;
    const kpoint_t *p = NULL;
    if (!rtm_calib_alias_sizes(x->c, x->bd->name, kern, tune, &x->lim, pts, n, l1, &k, &kp, &p))
        return;
    const dpred_t fit = rtm_calib_dpred(x, -1, 0.0);
    const double pred = rtm_calib_dev_pred(&fit, &k), pred_p = rtm_calib_dev_pred(&fit, &kp);
    if (!(pred > 0) || !(pred_p > 0))
        return;
    const int reps = rtm_calib_alias_reps(pred, REPS);
    rtm_calib_inst_t in;
    if (rtm_calib_inst_make_in(&in, kern, k.size, tune, POINT_SEED0, &x->arena) != RTM_OK)
        return;
    double t = 0.0;
    rtm_calib_fig_t f = {0};
    const rtm_status_t st = dev_measure(x, &in, reps, 0.0, &t, &f);
    rtm_calib_inst_free(&in);
    const rtm_calib_factor_t fa = {x->bd->name, "aliased", "a strided walk the L1 aliases",
                                   "aliased walks", k.size[0], t, f.spread, reps, pred, p,
                                   pred_p, kt->t_fixed + dev_kernel_fixed(x->bd),
                                   RTM_BOARD_ALIASED_MIN, RTM_BOARD_ALIASED_MAX, st};
    kt->aliased = rtm_calib_factor(x->c, kern, &fa);
}

/* In-loop poll period of a GPU's loop-polling kernel (RTM_POLL_EVERY; rtm_preempt_loop_polls),
 * chosen before its points so that they, its aligned point and so its fitted terms are
 * the build the executive runs (rtm_calib_point_opts applies the period): preempt.c's
 * rtm_preempt_tune_kernel_poll at the kernel's tune — K0 (the largest K whose loop steps
 * last at most RTM_PREEMPT_POLL_PERIOD_S, the response target's share, the step measured
 * on the build without in-loop polls), K0 / 2 and K0 / 4, the cheapest against that
 * build (min of 3 interleaved event-profiled runs) -> ktune poll_every. Each kernel but
 * spin at the size the model as it stands (the device's r_op) puts at POLL_JOB_S; spin
 * sizes its own loop (rtm_calib_poll_job; the catalogue's batch builds the programs ahead).
 * Until session 47 the search came after the catalogue and the
 * points ran calibration's default period (256) with a poll_cost factor measured at
 * the search's 2 ms job: on the H100 matrix_mul's default build ran n = 3 201 in
 * 25.2 ms where the executive's (K 32) ran it in 18.4 ms, n = 4 000 in 43.0 against
 * 30.6 ms, and the profile predicted the executive's n = 4 000 job at 67 ms
 * (board/h100/results/rows-*-s48*-h100.txt). Within POLL_KERNEL_S; a kernel whose search
 * fails or runs out keeps the default period, and its points run it. */
#define POLL_KERNEL_S 1.0
/* Kernel time of the searches' jobs (preempt.c's own sizing aims at 2 ms as well). */
#define POLL_JOB_S 2e-3

uint32_t rtm_calib_poll_job(const devcal_t *x, const rtm_kernel_t *kern, rtm_tune_t tune,
                            const dpred_t *p, int64_t size[RTM_SIZE_KEYS_MAX],
                            rtm_kexec_opts_t *base, double *t_pred,
                            uint32_t ks[RTM_PREEMPT_TUNE_MAX])
{
    *base = rtm_kexec_calib_opts(x->cache);
    *t_pred = 0.0;
    rtm_kinst_t k;
    if (!rtm_calib_gpu_loop_polls(x, kern) || strcmp(kern->name, "spin") == 0 ||
        rtm_calib_size_for(kern, tune, POLL_JOB_S, dev_pred_kernel, p, &x->lim, 1, 0, NULL, 0,
                           size) < 0 ||
        !rtm_calib_size_plan(kern, size[0], tune, &x->lim, &k))
        return 0;
    *t_pred = dev_pred_kernel(p, &k);
    *base = rtm_calib_point_opts(x, &k); /* the launch shape the executive gives it */
    return *t_pred > 0.0 ? rtm_preempt_poll_ks(&x->d->info, &k, *t_pred, false, ks, NULL) : 0;
}

static void dev_poll_kernel(devcal_t *x, uint32_t ki, rtm_tune_t tune, const dpred_t *p)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    if (!rtm_calib_gpu_loop_polls(x, kern))
        return;
    const double t0 = rtm_calib_now();
    int64_t size[RTM_SIZE_KEYS_MAX];
    rtm_kexec_opts_t base;
    double t_pred;
    uint32_t ks[RTM_PREEMPT_TUNE_MAX];
    (void)rtm_calib_poll_job(x, kern, tune, p, size, &base, &t_pred, ks);
    rtm_preempt_kpoll_t kp;
    const rtm_status_t st =
        rtm_preempt_tune_kernel_poll(x->d, &base, NULL, kern, tune, t_pred > 0 ? size : NULL,
                                     t_pred, false, 3, 0, t0 + POLL_KERNEL_S, &kp);
    const double took = rtm_calib_now() - t0;
    if (st != RTM_OK || kp.poll_every == 0) {
        cal_note(x->c, "%s: poll period of %s not calibrated (%s, %.2fs): default", x->bd->name,
                 kern->name, st != RTM_OK ? rtm_strerror(st) : "budget spent", took);
        return;
    }
    /* the points' options read it from the record (rtm_preempt_poll_opts) */
    if (!kt->have)
        *kt = (rtm_board_ktune_t){.have = true, .tune = tune, .t_next = kt->t_next};
    kt->poll_every = kp.poll_every;
    kt->poll_cost = 0.0; /* the points run this build */
    char tried[200];
    cal_note(x->c, "%s: %s: poll every %u steps (%.3gus of a %.3gns step; overhead against "
                   "the build without in-loop polls %s on a %.3gms job; search %.2fs: %u "
                   "programs compiled, %u loaded, %.2fs); its points run it",
             x->bd->name, kern->name, kp.poll_every, kp.poll_every * kp.step_s * 1e6,
             kp.step_s * 1e9, rtm_preempt_kpoll_text(&kp, tried, sizeof(tried)),
             kp.base_s * 1e3, took, kp.compiled, kp.loaded, kp.program_s);
}

/* Kernel ki's tuning sweep on a GPU from `tune`, within its share of `budget`; what it
 * did into note[len]; the tuning it chose. */
static rtm_tune_t dev_kernel_sweep(devcal_t *x, uint32_t ki, rtm_tune_t tune, const dpred_t *p,
                                   double budget, char *note, size_t len)
{
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    const double start = rtm_calib_now();
    const phase_t m0 = phase_mark(x);
    int64_t size[RTM_SIZE_KEYS_MAX];
    if (!rtm_calib_sweep_size(x, kern, tune, p, size)) {
        snprintf(note, len, "none (no size)");
        return tune;
    }
    /* a candidate the cache holds (the catalogue's batch) costs a load, not a build */
    rtm_tune_t cand[SWEEP_CAND_MAX];
    const uint32_t nc = rtm_calib_sweep_cands(x, kern, 0, tune, cand);
    const uint32_t miss = rtm_calib_uncached(x, kern, size, cand, nc);
    const double *bp = x->bd->param;
    const double prog_s =
        nc ? (miss * bp[RTM_DEV_P_build] + (nc - miss) * bp[RTM_DEV_P_cache_load]) / nc
           : bp[RTM_DEV_P_build];
    const double share = sweep_share(budget);
    const double n_aff = sweep_affords(x, kern, size, tune, p, share, prog_s);
    if (n_aff < 2.0) {
        snprintf(note, len, "skipped (%.2fs pays for %.1f candidates, %u of %u not in the cache)",
                 share, n_aff, miss, nc);
        return tune;
    }
    tune = dev_sweep(x, kern, size, tune, start + share);
    char ph[200];
    phase_fmt(ph, sizeof(ph), x, &m0);
    snprintf(note, len, "%s, %u of %u not in the cache", ph, miss, nc);
    return tune;
}

/* Kernel ki's tuning now (its start, or what its first-pass sweep chose) and sizing
 * prediction; true when a sweep has a choice (rtm_calib_kernel_start). */
static bool dev_kernel_tune(const devcal_t *x, uint32_t ki, rtm_tune_t *tune, dpred_t *p)
{
    const bool choice = rtm_calib_kernel_start(x, ki, tune, p);
    if (x->sweep[ki] == KSWEEP_SWEPT || x->sweep[ki] == KSWEEP_POLL)
        *tune = x->swept_tune[ki];
    return choice;
}

/* A kernel of KSWEEP_FIRST (a GPU whose catalogue's batch is queued to its build
 * workers), its candidates built (rtm_calib_dev_rest's order): its sweep, before any
 * kernel's points; then its points' programs queued at the tuning the sweep chose, to
 * build while the other kernels sweep. A loop-polling kernel's points run the period its
 * poll search chooses, a build option: its search's programs are queued first
 * (KSWEEP_POLL), dev_poll_first then searches and queues its points. dev_kernel measures
 * the rest. */
static void dev_sweep_first(devcal_t *x, uint32_t ki, uint32_t left)
{
    rtm_tune_t tune;
    dpred_t p;
    (void)rtm_calib_kernel_start(x, ki, &tune, &p);
    /* the run's time limit near: the starting tuning and the default poll period */
    const cal_limit_t lim = cal_limit(x->c, left);
    if (lim == CAL_FULL)
        tune = dev_kernel_sweep(x, ki, tune, &p, cal_kernel_budget(x->c, left),
                                x->swept_note[ki], sizeof(x->swept_note[ki]));
    else
        snprintf(x->swept_note[ki], sizeof(x->swept_note[ki]), "skipped (the run's time limit)");
    x->swept_tune[ki] = tune;
    const bool polls = lim == CAL_FULL && rtm_calib_gpu_loop_polls(x, rtm_kernel_at(ki));
    x->sweep[ki] = polls ? KSWEEP_POLL : KSWEEP_SWEPT;
    if (lim != CAL_SKIPPED) /* a kernel without a search has no search programs */
        rtm_calib_dev_queue_points(x, ki, tune, &p, polls ? PRE_SEARCH : PRE_POINTS);
}

/* A kernel of KSWEEP_POLL, its search's programs built: its poll search at the tuning
 * its sweep chose, then its points' programs queued at that period. Before session 54
 * they were queued with the sweep at calibration's default period, and the points, which
 * run the period chosen, compiled theirs on the path (the H100: manoeuvre's and
 * last_chance's 0.6-1.0 s each, matrix_mul's and matrix_loop_add's persistent builds). */
static void dev_poll_first(devcal_t *x, uint32_t ki, uint32_t left)
{
    rtm_tune_t tune;
    dpred_t p;
    (void)dev_kernel_tune(x, ki, &tune, &p);
    if (cal_limit(x->c, left) == CAL_FULL) /* else the default period */
        dev_poll_kernel(x, ki, tune, &p);
    x->sweep[ki] = KSWEEP_SWEPT;
    rtm_calib_dev_queue_points(x, ki, tune, &p, PRE_POINTS);
}

/* One kernel on the device: tuning (full mode; swept before where dev_sweep_first did
 * it), its own launch pace, then its own r and memory rate fitted at the calibration
 * sizes. */
static rtm_status_t dev_kernel(devcal_t *x, uint32_t ki, uint32_t left)
{
    cal_t *c = x->c;
    const rtm_kernel_t *kern = rtm_kernel_at(ki);
    rtm_board_ktune_t *kt = &x->bd->ktune[ki];
    rtm_tune_t tune;
    dpred_t p;
    const bool choice = dev_kernel_tune(x, ki, &tune, &p);
    const cal_limit_t lim = cal_limit(c, left);
    if (lim == CAL_SKIPPED) { /* its terms stay as they are (the base profile's, or none) */
        cal_limit_skip(c, x->bd->name, kern->name, kt);
        return RTM_OK;
    }
    /* outside its budget, as the batch's wait was; a kernel whose jobs the host paces
     * (several launches a job) waits for the whole batch: its times are the host's */
    rtm_kinst_t kp;
    rtm_calib_dev_kernel_ready(x, kern, pace_size(x, kern, tune, &kp));
    const double start = rtm_calib_now();
    const double budget = cal_kernel_budget(c, left);
    char sweep_t[240] = "none";
    if (x->sweep[ki] == KSWEEP_SWEPT)
        snprintf(sweep_t, sizeof(sweep_t), "in the first pass, %s", x->swept_note[ki]);
    else if (lim != CAL_FULL && !c->o->quick && choice)
        snprintf(sweep_t, sizeof(sweep_t), "skipped (the run's time limit)");
    else if (!c->o->quick && choice)
        tune = dev_kernel_sweep(x, ki, tune, &p, budget, sweep_t, sizeof(sweep_t));
    /* before the points: they run its period (a SWEPT loop-polling kernel searched in
     * dev_poll_first; a squeezed one keeps the default) */
    if (x->sweep[ki] != KSWEEP_SWEPT && lim == CAL_FULL)
        dev_poll_kernel(x, ki, tune, &p);
    const phase_t m1 = phase_mark(x);
    kt->t_next = dev_pace(x, kern, tune); /* the points' predictions and fit use it */
    x->pace_at[ki] = kt->t_next > 0 ? pace_beside(x) : 0.0;
    dkctx_t dk = {x, (int)ki};
    /* calibration sizes by the job's predicted total time, as validation's */
    dpred_t pt = p;
    pt.total = true;
    kfit_t kf = {.n_pre_keys = x->n_pre_key[ki], .prebuild = rtm_calib_dk_prebuild,
                 .own_program = rtm_calib_dk_own_program,
                 .kern = kern, .tune = tune, .lim = &x->lim, .pred = rtm_calib_dev_pred,
                 .pred_ctx = &pt,
                 .kpred = dev_pred_kernel, .kpred_ctx = &pt,
                 .r_est = &pt.r, .coef = dk_coef, .measure = dk_measure,
                 /* the resident form on GPU-like devices only: a CPU device's group runs
                  * its work-items one after another, no chain to hide */
                 .groups = rtm_calib_cpu_dev(x) ? NULL : dk_groups,
                 /* on a CPU device only once a partial job agrees with a whole one: PoCL 5
                  * on the H100 host put matrix_mul's and matrix_loop_add's first blocks at
                  * 1.2-3.3x their share of the whole job (validation measures n =
                  * 1000..3000 whole), PoCL 3.1 here within 1 % (calibfit.c, part_check) */
                 .measure_part = dk_measure_part,
                 .part = rtm_calib_cpu_dev(x) ? KFIT_PART_CHECK
                                                               : KFIT_PART_TRUSTED,
                 .ctx = &dk,
                 .workers = dev_workers(x, tune.wg), .deadline = start + budget, .arena = &x->arena,
                 .cache = x->knee, .squeeze = lim == CAL_SQUEEZED,
                 .host_dev = rtm_calib_cpu_dev(x), .who = x->bd->name};
    memcpy(kf.pre_keys, x->pre_key[ki], kf.n_pre_keys * sizeof(int64_t));
    kpoint_t pts[16];
    uint32_t n = 0;
    const rtm_status_t st = rtm_calib_kernel_points(c, &kf, pts, N_OF(pts), &n);
    if (st == RTM_OK && kt->t_next > 0)
        pace_cap(x, ki, tune, pts, n);
    /* rtm_calib_kernel_store writes the fit's terms; the pace and poll period stay */
    const double t_next = kt->t_next;
    const uint32_t poll_every = kt->poll_every;
    char points_t[160];
    phase_fmt(points_t, sizeof(points_t), x, &m1);
    cal_note(c, "%s: %s time %.2fs of budget %.2fs: sweep %s; %u points %s, instances made and "
                "freed %.2fs", x->bd->name, kern->name, rtm_calib_now() - start, budget, sweep_t, n,
             points_t, kf.inst_s);
    if (st != RTM_OK || n == 0) {
        cal_fallback(c, "%s: kernel %s not calibrated (%s): no per-kernel terms; the device's "
                        "generic r_op and mem_rate predict it",
                     x->bd->name, kern->name, st != RTM_OK ? rtm_strerror(st) : "no size fits");
        return RTM_OK; /* a kernel that cannot run here falls back to the CPU */
    }
    rtm_calib_kernel_store(c, x->bd->name, kern, tune, pts, n, x->knee, pt.r,
                           "the largest point's own r, else the device's r_op", kt,
                           &c->rec->dev_k[x->di][ki]);
    kt->t_next = t_next;
    kt->poll_every = poll_every;
    if (!kf.squeeze) {
        dev_aligned(x, ki, tune, pts, n);
        dev_aliased(x, ki, tune, pts, n);
    }
    return RTM_OK;
}

static rtm_status_t dev_abort(devcal_t *x, uint32_t aborts);
/* Aborts per flag transport of a device's abort response measured past the run's time
 * limit (REPS otherwise): each a spin kernel of about 20 ms. */
#define ABORTS_LIMITED 3

/* Transfers of at least XFER_LATE_MIN bytes: sampled again after the catalogue. */
#define XFER_LATE_MIN (16.0 * MIB)

/* A GPU's transfer spans of XFER_LATE_MIN and more (which set the rates) measured again
 * after the catalogue, each averaged with its first sample, and the transfer parameters
 * fitted again: the host->device rate drifts over a run (H100, sessions 35-36: 256 MiB
 * inputs 4.9-5.8 ms, 64 MiB 1.25-1.58 ms; a run whose fit gave 47.3 GB/s over-predicted
 * its validation's inputs by 10-12 %, where a bare 64 MiB command ran at 51.7 GB/s). Without
 * --quick; CPU devices' transfers are memcpy, one sample. */
static void dev_xfer_late(devcal_t *x)
{
    if (rtm_calib_cpu_dev(x) || x->c->o->quick || x->xs.n < 2)
        return;
    /* the large transfers' rates: past the knee where there is one (else the one rate) */
    const double ws0 = x->bd->param[RTM_DEV_P_ws_rate_big],
                 wr0 = x->bd->param[RTM_DEV_P_wr_rate_big];
    uint32_t late = 0;
    (void)xfer_spans(x, XFER_LATE_MIN, true, &late);
    if (late == 0)
        return;
    xfer_store(x);
    cal_note(x->c, "%s: transfers: %u spans of %.0fMiB and more sampled again after the "
                   "catalogue and averaged with the first: large transfers in %.4gGB/s (first "
                   "%.4gGB/s), out %.4gGB/s (first %.4gGB/s); in %.4gus (next %.4gus), out "
                   "%.4gus (next %.4gus)",
             x->bd->name, late, XFER_LATE_MIN / MIB, x->bd->param[RTM_DEV_P_ws_rate_big] * 1e-9,
             ws0 * 1e-9, x->bd->param[RTM_DEV_P_wr_rate_big] * 1e-9, wr0 * 1e-9,
             x->bd->param[RTM_DEV_P_ws_fixed] * 1e6, x->bd->param[RTM_DEV_P_ws_next] * 1e6,
             x->bd->param[RTM_DEV_P_wr_fixed] * 1e6, x->bd->param[RTM_DEV_P_wr_next] * 1e6);
}

/* A GPU's multi-launch kernels' pace (t_next) sampled again after the catalogue and
 * averaged with the first sample (as pace_cap left it): the host's enqueueing drifts
 * over a run, and one sample is ~13 ms of it (H100, sessions 35-36: sort's first sample
 * 11.7-16.2 us where validation's jobs ran at 10.5-12.8 us, and its two smallest sizes
 * validated +15..+26 %; -6..+16 % with the late sample, radix_sort's n = 131072 -13..+16
 * against +20/+23 %, but grid_path's launch-bound widths no better, -25..+23 %).
 * With the pace probe (rtmgr/pace.h), the launch-paced terms are brought to one pace, the
 * median of the probes the device's calibration ran (the device figures' one, beside
 * kernel_next, and one beside each t_next sample), which the profile's `pace` then
 * holds: each sample times that median over its own probe (rtm_pace_at). The
 * host's enqueueing moved by 8.4-14 us a launch from second to second in one process
 * and a kernel's own pace with it (session 43, board/h100/results/pace-churn-s43e-h100.txt),
 * and the catalogue's samples ran beside the background builds (the device figures'
 * probe 9.15 us, the catalogue's t_next 11.6-14.2 us in one run). CPU devices' pace is
 * their own per-launch work, not the host's: one sample, as measured. Samples over
 * RTM_PACE_AGREE apart: the lower (rtm_pace_combine; radix_sort's late one once ran at
 * 78.7 us a launch beside a probe of 15 us, 10.4 us first, session 50).
 * gap_host_k and gap_host_o are not brought to it (session 57): each is the lower quartile
 * of 30 jobs (dev_phase_gap), steadier than the one probe beside them, whose ratio to the
 * median (0.83-1.48 in 14 H100 calibrations of sessions 53-56) moved them by as much:
 * gap_host_k over 14 us in 6 of those profiles brought to the pace, in 2 as measured. The
 * gpu0 validations of 13 of them predicted again (board/h100/diag/repredict.c) came out
 * at a mean MAPE of 4.35 % with the terms as measured against 4.63 % as calibrated, under
 * 5 % in 10 of 13 against 8: the model had followed small jobs' inputs with 14-17 us of
 * host gap where validation measured 3-13 us. */
static void dev_pace_late(devcal_t *x)
{
    if (rtm_calib_cpu_dev(x))
        return;
    rtm_board_dev_t *bd = x->bd;
    const double p0 = bd->have[RTM_DEV_P_pace] ? bd->param[RTM_DEV_P_pace] : 0.0;
    double first[RTM_MAX_KERNELS] = {0}, late[RTM_MAX_KERNELS] = {0},
           at_late[RTM_MAX_KERNELS] = {0}, probes[2 * RTM_MAX_KERNELS + 1];
    size_t np = 0;
    if (p0 > 0)
        probes[np++] = p0;
    for (uint32_t ki = 0; ki < rtm_kernel_count(); ki++) {
        const rtm_board_ktune_t *kt = &bd->ktune[ki];
        const rtm_kernel_t *kern = rtm_kernel_at(ki);
        if (!kt->have || !(kt->t_next > 0) || !rtm_calib_wanted(x->c->o->kernels, kern->name))
            continue;
        first[ki] = kt->t_next;
        late[ki] = dev_pace(x, kern, kt->tune);
        at_late[ki] = late[ki] > 0 ? pace_beside(x) : 0.0;
        if (x->pace_at[ki] > 0)
            probes[np++] = x->pace_at[ki];
        if (at_late[ki] > 0)
            probes[np++] = at_late[ki];
    }
    /* the figure's record: every probe (the device figures' alone until here) */
    const double ref = p0 > 0 ? rtm_calib_summary(probes, np, dfig(x, RTM_DEV_P_pace)) : 0.0;
    if (ref > 0) { /* the device figures' kernel_next, measured beside p0 */
        if (bd->have[RTM_DEV_P_kernel_next])
            bd->param[RTM_DEV_P_kernel_next] =
                rtm_pace_at(bd->param[RTM_DEV_P_kernel_next], ref, p0);
        bd->param[RTM_DEV_P_pace] = ref;
        cal_note(x->c, "%s: pace: %.4gus, the median of %zu probes (the device figures' %.4gus); "
                       "kernel_next brought to it, gap_host_k and gap_host_o kept as measured",
                 bd->name, ref * 1e6, np, p0 * 1e6);
    }
    for (uint32_t ki = 0; ki < rtm_kernel_count(); ki++) {
        if (!(first[ki] > 0))
            continue;
        rtm_board_ktune_t *kt = &bd->ktune[ki];
        const double f1 = rtm_pace_at(first[ki], ref, x->pace_at[ki]);
        const double f2 = rtm_pace_at(late[ki], ref, at_late[ki]);
        kt->t_next = rtm_pace_combine(f1, late[ki] > 0 ? f2 : 0.0);
        const bool agree = late[ki] > 0 && rtm_pace_agree(f1, f2);
        cal_note(x->c, "%s: %s: t_next %.4gus: %s its first sample %.4gus and the "
                       "late one %.4gus (after the catalogue), at the device's pace: %.4gus "
                       "beside a probe of %.4gus and %.4gus beside %.4gus",
                 bd->name, rtm_kernel_at(ki)->name, kt->t_next * 1e6,
                 agree ? "the mean of" : "the lower (over 1.5x apart) of", first[ki] * 1e6,
                 late[ki] * 1e6, f1 * 1e6, x->pace_at[ki] * 1e6, f2 * 1e6, at_late[ki] * 1e6);
    }
}

static rtm_status_t dev_c(devrun_t *r, bahead_t *ahead)
{
    const double t = rtm_calib_now();
    const rtm_status_t st = dev_build(&r->x, ahead);
    r->ph[2] += rtm_calib_now() - t;
    r->x.c->cfig_s += rtm_calib_now() - t;
    return st;
}

/* The pace probe (rtmgr/pace.h) in the device figures, beside kernel_next and gap_host_*:
 * the first of the probes whose median dev_pace_late brings the host-paced terms to. */
static void dev_pace_probe(devcal_t *x)
{
    rtm_calib_fig_t *f = dfig(x, RTM_DEV_P_pace);
    double p0 = 0.0;
    const rtm_status_t st = pace_probe(x, f, &p0);
    if (st != RTM_OK) {
        cal_fallback(x->c, "%s: the pace probe failed (%s): no `pace`; the host-paced terms are "
                           "kept as sampled", x->bd->name, rtm_strerror(st));
        return;
    }
    dev_param(x->bd, RTM_DEV_P_pace, p0);
    cal_note(x->c, "%s: pace probe: the host enqueued %.4gus a launch (spread %.1f%%)",
             x->bd->name, p0 * 1e6, f->spread * 100);
}

/* Opens the device and measures its figures and matrix_mov; with `with_c` the build-time
 * figure too (else rtm_calib_dev_rest measures it: a CPU-type device's, on a helper thread
 * while the GPUs are measured). */
rtm_status_t rtm_calib_dev_first(cal_t *c, const rtm_ocl_info_t *info, rtm_board_dev_t *bd, int di,
                                 int ocl_index, devrun_t *r, bahead_t *ahead, bool with_c)
{
    rtm_status_t st = rtm_ocl_open(&r->dev, info);
    if (st != RTM_OK)
        return st;
    r->open = true;
    r->split = !with_c;
    const bool have_cache = rtm_program_cache_dir(r->cache, sizeof(r->cache)) == RTM_OK;
    r->x = (devcal_t){.c = c, .d = &r->dev, .bd = bd, .di = di,
                      .cache = have_cache ? r->cache : NULL, .ocl_index = ocl_index};
    devcal_t *x = &r->x;
    rtm_builder_init(&x->bld);
    const double host_cap = c->o->quick ? 256 * MIB : 2048 * MIB;
    x->lim.max_buf = fmin((double)info->max_alloc, host_cap);
    x->lim.max_total = fmin((double)info->global_mem / 2.0, host_cap);
    rtm_calib_arena_init(&x->arena, &r->dev, (size_t)x->lim.max_total);
    const double t0 = rtm_calib_now();
    cal_load_mark(c, &r->load);
    cal_say(c, "%s: %s (%s), driver %s", bd->name, info->name, info->platform_name, info->driver);
    st = dev_transfers(x);
    const double t1 = rtm_calib_now();
    r->ph[0] = t1 - t0;
    cal_say(c, "%s: transfers: in %.4gus + %.4gGB/s, out %.4gus + %.4gGB/s", bd->name,
            bd->param[RTM_DEV_P_ws_fixed] * 1e6, bd->param[RTM_DEV_P_ws_rate] * 1e-9,
            bd->param[RTM_DEV_P_wr_fixed] * 1e6, bd->param[RTM_DEV_P_wr_rate] * 1e-9);
    if (st == RTM_OK) {
        rtm_calib_dev_workers_early(x);
        st = dev_memrate(x);
    }
    if (st == RTM_OK)
        st = rtm_calib_build_probe(x->d, &x->probe);
    if (st == RTM_OK)
        st = dev_occupancy(x);
    if (st == RTM_OK)
        st = dev_launch(x);
    if (st == RTM_OK)
        st = dev_phase_gap(x);
    if (st == RTM_OK && !(info->type & CL_DEVICE_TYPE_CPU))
        dev_pace_probe(x);
    cal_say(c, "%s: memory %.4gGB/s, units %.0f (cus %.0f x resident %.0f x wg), launch %.4gus, "
            "phase gap %.4gus", bd->name,
            bd->param[RTM_DEV_P_mem_rate] * 1e-9, bd->param[RTM_DEV_P_units],
            bd->param[RTM_DEV_P_cus], bd->param[RTM_DEV_P_resident],
            bd->param[RTM_DEV_P_launch] * 1e6,
            bd->param[RTM_DEV_P_phase_gap] * 1e6);
    /* with --kernels: the base's waves and per-launch terms where they moved, before any
     * kernel is fitted against them */
    if (st == RTM_OK)
        cal_keep_basis(c, di, bd, false);
    r->ph[1] = rtm_calib_now() - t1;
    if (st == RTM_OK && with_c)
        st = dev_c(r, ahead);
    cl_ulong llc = 0;
    clGetDeviceInfo(info->id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof(llc), &llc, NULL);
    dev_param(bd, RTM_DEV_P_cache, llc ? (double)llc : MIB);
    *dfig(x, RTM_DEV_P_cache) = (rtm_calib_fig_t){bd->param[RTM_DEV_P_cache], 0, 0, 1, 1};
    if (llc)
        cal_note(c, "%s: cache %.4gMiB (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE)", bd->name,
                 bd->param[RTM_DEV_P_cache] / MIB);
    else
        cal_fallback(c, "%s: CL_DEVICE_GLOBAL_MEM_CACHE_SIZE is 0: cache 1MiB assumed", bd->name);
    dev_l1d(x);
    /* a GPU's reported figure may be its L1s together (the H100: 132 x 32 KiB = 4.125 MiB
     * for a 50 MB L2): measured by the read sweep; a CPU device keeps it (its kernels'
     * knee is the cores' private caches, below) */
    const double tl0 = rtm_calib_now();
    if (st == RTM_OK && x->probe && !(info->type & CL_DEVICE_TYPE_CPU))
        dev_llc(x, bd->param[RTM_DEV_P_cache]);
    r->ph[3] = rtm_calib_now() - tl0;
    /* the knee of the kernel fits: a CPU device's cores' private caches (the host's L2s,
     * where the seed-000 kernels' cliff is: see rtm_calib_host_private), else the device's
     * cache */
    c->past_s = 0.0;
    x->knee = bd->param[RTM_DEV_P_cache];
    if ((info->type & CL_DEVICE_TYPE_CPU) && bd->param[RTM_DEV_P_cus] > 0) {
        const double cores = fmin(bd->param[RTM_DEV_P_cus], (double)rtm_calib_host_cores());
        const double priv = rtm_calib_host_private((uint32_t)cores);
        if (priv > 0)
            x->knee = priv;
    }
    cal_note(c, "%s: kernel fits place a second regime's knee at %.4gMiB (%s)", bd->name,
             x->knee / MIB, x->knee == bd->param[RTM_DEV_P_cache] ? "the device's cache"
                                                                 : "its cores' L2 caches together");
    cal_say(c, "%s: device figures done (%.1fs)", bd->name, rtm_calib_now() - t0);
    /* r_op from matrix_mov first (it sizes the others), then the whole catalogue */
    const double tm = rtm_calib_now();
    r->mov = rtm_kernel_find("matrix_mov");
    r->left = cal_kernels_wanted(c) + (r->mov && !rtm_calib_wanted(c->o->kernels, "matrix_mov"));
    if (st == RTM_OK && r->mov) {
        const int mi = rtm_kernel_index(r->mov);
        st = dev_kernel(x, (uint32_t)mi, r->left--);
        if (st == RTM_OK && bd->ktune[mi].have && bd->ktune[mi].r_op > 0) {
            dev_param(bd, RTM_DEV_P_r_op, bd->ktune[mi].r_op);
            *dfig(x, RTM_DEV_P_r_op) = c->rec->dev_k[di][mi];
        }
    }
    if (st == RTM_OK && !bd->have[RTM_DEV_P_r_op]) {
        dev_param(bd, RTM_DEV_P_r_op, x->r_probe);
        cal_fallback(c, "%s: no matrix_mov calibration: r_op is the occupancy probe's operation "
                        "time", bd->name);
    }
    r->ph[4] = rtm_calib_now() - tm;
    r->past_s = c->past_s;
    r->first_s = rtm_calib_now() - t0;
    if (r->split) { /* its host load now, the rest's in rtm_calib_dev_rest */
        char what[96];
        snprintf(what, sizeof(what), "%s (first section)", bd->name);
        cal_load_note(c, what, &r->load);
    }
    return st;
}

/* The background builds of a device whose first section is done: its catalogue's first
 * programs, queued to build workers under SCHED_IDLE (rtm_calib_dev_prebuild_all's `send`). */
void rtm_calib_dev_send(devrun_t *r)
{
    if (!r->open)
        return;
    r->x.ladder = true; /* and in rtm_calib_dev_rest's list: the ladder's keys are prebuilt keys */
    rtm_calib_dev_prebuild_all(&r->x, r->mov, true);
}

/* The device's workers stopped, its memory freed, the device closed. */
void rtm_calib_dev_close(devrun_t *r)
{
    if (!r->open)
        return;
    rtm_builder_stop(&r->x.bld);
    free(r->x.queued);
    r->x.queued = NULL;
    r->x.n_queued = 0;
    if (r->x.probe)
        clReleaseProgram(r->x.probe);
    r->x.probe = NULL;
    rtm_calib_arena_free(&r->x.arena);
    rtm_ocl_close(&r->dev);
    r->open = false;
}

/* The rest of a device's calibration after rtm_calib_dev_first (st: its status), and the
 * device closed. */
rtm_status_t rtm_calib_dev_rest(devrun_t *r, rtm_status_t st, bahead_t *ahead)
{
    if (!r->open)
        return st;
    devcal_t *x = &r->x;
    cal_t *c = x->c;
    rtm_board_dev_t *bd = x->bd;
    const double t0 = rtm_calib_now();
    if (r->split)
        cal_load_mark(c, &r->load);
    c->past_s = r->past_s;
    if (st == RTM_OK && r->split) /* its c: rtm_calib_dev_first left it to the helper thread */
        st = dev_c(r, ahead);
    const double tp = rtm_calib_now();
    if (st == RTM_OK)
        rtm_calib_dev_prebuild_all(x, r->mov, false);
    r->pre_n = x->n_pre;
    const double tk = rtm_calib_now();
    r->ph[5] = tk - tp;
    /* each step the first kernel, in the catalogue's order, whose programs are built:
     * its sweep (a kernel of KSWEEP_FIRST: the points' programs wait for its tuning), its
     * poll search (KSWEEP_POLL: they wait for its period), else its points; while none
     * is, the build workers' next acknowledgement is waited for (none pending: the first
     * kernel, compiling what it lacks). A kernel whose jobs
     * the host paces waits for the whole batch (its times are the host's). On the H100
     * the sweeps in order had waited 2.2-2.5 s for their candidates (session 50). */
    bool done[RTM_MAX_KERNELS] = {false};
    for (;;) {
        int next = -1, first = -1;
        for (uint32_t ki = 0; st == RTM_OK && ki < rtm_kernel_count() && next < 0; ki++) {
            const rtm_kernel_t *kern = rtm_kernel_at(ki);
            if (done[ki] || kern == r->mov || !rtm_calib_wanted(c->o->kernels, kern->name))
                continue;
            if (first < 0)
                first = (int)ki;
            rtm_tune_t tune;
            dpred_t p;
            (void)dev_kernel_tune(x, ki, &tune, &p);
            rtm_kinst_t kp; /* a sweep waits for its candidates alone */
            const bool paced = x->sweep[ki] != KSWEEP_FIRST && x->sweep[ki] != KSWEEP_POLL &&
                               pace_size(x, kern, tune, &kp);
            if (rtm_calib_dev_kernel_built(x, kern, paced))
                next = (int)ki;
        }
        if (first < 0)
            break;
        const uint32_t left = r->left ? r->left : 1; /* this kernel included */
        /* past the run's time limit no kernel waits for its programs: it is not measured */
        const bool skip = cal_limit(c, left) == CAL_SKIPPED;
        if (next < 0 && !skip && x->bld.pending > 0 && rtm_builder_up(&x->bld)) {
            rtm_calib_dev_builds_poll(x);
            continue;
        }
        const uint32_t ki = (uint32_t)(next >= 0 ? next : first);
        if (x->sweep[ki] == KSWEEP_FIRST) {
            dev_sweep_first(x, ki, left);
            continue;
        }
        if (x->sweep[ki] == KSWEEP_POLL) {
            dev_poll_first(x, ki, left);
            continue;
        }
        st = dev_kernel(x, ki, left);
        r->left -= r->left > 0;
        done[ki] = true;
        if (st != RTM_OK)
            break;
    }
    /* the late samples and the abort response, while the run's time limit leaves room */
    const cal_limit_t lim = cal_limit(c, 1);
    if (st == RTM_OK && lim == CAL_FULL) {
        dev_pace_late(x);
        dev_xfer_late(x);
    } else if (st == RTM_OK && !rtm_calib_cpu_dev(x)) { /* a GPU's alone */
        cal_note(c, "%s: pace and transfers not sampled again after the catalogue: the run's "
                    "time limit", bd->name);
    }
    const double ta = rtm_calib_now();
    r->ph[6] = ta - tk;
    if (st == RTM_OK && lim == CAL_SKIPPED)
        cal_note(c, "%s: abort response from %u aborts per transport: the run's time limit",
                 bd->name, ABORTS_LIMITED);
    if (st == RTM_OK) /* the executive's preemption needs it: past the limit, fewer aborts */
        st = dev_abort(x, lim == CAL_SKIPPED ? ABORTS_LIMITED : REPS);
    rtm_builder_stop(&x->bld); /* the device's builds are done */
    r->ph[7] = rtm_calib_now() - ta;
    const double dev_s = r->first_s + (rtm_calib_now() - t0);
    cal_note(c, "%s: time %.2fs of budget %.2fs%s: transfers %.2fs, memory/occupancy/launch %.2fs, "
                "build-time figure c %.2fs, cache sweep %.2fs, matrix_mov %.2fs, prebuild %.2fs "
                "(%u programs; in all %u by %u build workers, %u failed, in %.2fs), catalogue "
                "%.2fs (its kernels' waits for the programs queued ahead %.2fs), abort %.2fs; in kexecs %u programs compiled %.2fs, %u loaded from the "
                "cache %.2fs, runs %.2fs; points' pinned memory made %u times (%.0fMiB at the "
                "end) in %.2fs",
             bd->name, dev_s, c->deadline - t0 + r->first_s,
             r->split ? " (its first section before the GPUs', its builds meanwhile)" : "", r->ph[0], r->ph[1], r->ph[2], r->ph[3],
             r->ph[4], r->ph[5], r->pre_n, x->n_pre, x->pre_procs, x->bld.failed, x->pre_s,
             r->ph[6], x->queued_wait_s, r->ph[7], x->n_built, x->build_s, x->n_loaded, x->load_s, x->run_s,
             x->arena.grows, (double)x->arena.pin.bytes / MIB, x->arena.grow_s);
    c->build_s += x->build_s;
    c->load_s += x->load_s;
    c->prebuild_s += x->pre_s;
    c->n_built += x->n_built;
    c->n_loaded += x->n_loaded;
    c->n_prebuilt += x->n_pre;
    rtm_calib_dev_close(r);
    cal_load_note(c, bd->name, &r->load);
    cal_say(c, "%s: done (%.1fs)", bd->name, dev_s);
    return st;
}

/* A CPU device's in-loop poll periods: not calibrated (the executive's default). */
static void dev_poll_note(devcal_t *x)
{
    /* every candidate period is a program build of its own (PoCL on the H100 host: about
     * 0.7 s each, one at a time), and a 2 s budget ran out inside the first kernel in
     * every calibration there; the polls read host memory the core caches */
    if (rtm_calib_cpu_dev(x))
        cal_note(x->c, "%s: poll periods not calibrated on a CPU device (a program build per "
                       "candidate): default", x->bd->name);
}

/* Abort response (seed 002): preempt.c's measurement — the spin kernel (about 20 ms)
 * aborted `aborts` times (REPS; fewer past the run's time limit) at random instants with
 * each flag transport; the
 * transport that stops the kernel faster (one that does not stop it never wins) becomes
 * the device's `abort`, its median response `abort_response`. */
static rtm_status_t dev_abort(devcal_t *x, uint32_t aborts)
{
    rtm_board_dev_t *bd = x->bd;
    rtm_preempt_measure_t m;
    memset(&m, 0, sizeof(m));
    const rtm_status_t st = rtm_preempt_measure(x->d, aborts, &m);
    if (st != RTM_OK)
        return st;
    const int b = (int)m.best;
    rtm_calib_fig_t *f = dfig(x, RTM_DEV_P_abort_response);
    if (m.works[b] && m.p50_s[b] > 0) {
        bd->abort = m.best;
        dev_param(bd, RTM_DEV_P_abort_response, m.p50_s[b]);
        *f = (rtm_calib_fig_t){m.p50_s[b], (m.max_s[b] - m.p50_s[b]) / m.p50_s[b], 0, m.n[b], m.n[b]};
    } else {
        /* no transport stops a running kernel here: an abort waits for the kernel */
        dev_param(bd, RTM_DEV_P_abort_response, m.kernel_s > 0 ? m.kernel_s : 20e-3);
        *f = (rtm_calib_fig_t){bd->param[RTM_DEV_P_abort_response], 0, 0, 1, 1};
    }
    for (int t = 0; t < 2; t++)
        cal_note(x->c, "%s: abort flag '%s': %s, %u aborts, response p50 %.4gus p99 %.4gus max "
                       "%.4gus (spin kernel %.4gms)%s",
                 bd->name, rtm_board_abort_name((rtm_abort_transport_t)t),
                 m.works[t] ? "stops the kernel" : "does NOT stop the kernel", m.n[t],
                 m.p50_s[t] * 1e6, m.p99_s[t] * 1e6, m.max_s[t] * 1e6, m.kernel_s * 1e3,
                 t == b && m.works[t] ? " <- abort" : "");
    cal_say(x->c, "%s: abort '%s' response %.4gus", bd->name, rtm_board_abort_name(bd->abort),
            bd->param[RTM_DEV_P_abort_response] * 1e6);
    dev_poll_note(x);
    return RTM_OK;
}
