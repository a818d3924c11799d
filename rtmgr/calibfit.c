/* calibfit.c — `rtmgr calibrate`'s per-kernel points and fits, device and CPU alike
 * (calibint.h; the method in docs/calibration.md).
 *
 * Owns: the kernel instances calibration and validation measure (their host memory: their
 * own, or an arena pinned on a device) and their sizes (the smallest first key predicted
 * to reach a time, the first past a cache); a kernel's calibration points on one
 * executor (kfit_t: the targets in order, the seed-000 kernels' extra sizes, the points
 * past and at the edge of the cache, the smallest measured again); and the fit of the
 * extended model's per-kernel terms to them (its forms and rules at fit_kernel), stored
 * into the profile with its figure and note. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "calibint.h"
#include "model.h"
#include "rng.h"

/* ---- instances and sizes (calibint.h) ----------------------------------------------- */

void rtm_calib_inst_free(rtm_calib_inst_t *in)
{
    if (!in->borrowed) /* else the arena's */
        free(in->mem);
    free(in->init_mem);
    memset(in, 0, sizeof(*in));
}

/* Does buffer b of k hold the state a job starts from and overwrites, which changes its
 * work (INOUT, of a kernel without RTM_KF_NO_STATE)? grid_path's field: a second job
 * from the first one's field runs the wavefront on, or finds it converged. */
static bool timed_state(const rtm_kinst_t *k, uint32_t b)
{
    return k->plan.buf[b].dir == RTM_BUF_INOUT && k->plan.buf[b].bytes &&
           !(k->kernel->flags & RTM_KF_NO_STATE);
}

void rtm_calib_inst_reset(rtm_calib_inst_t *in) { rtm_kinst_put_back(&in->k, in->init); }

rtm_status_t rtm_calib_inst_time(rtm_pool_t *pool, rtm_calib_inst_t *in, double *seconds)
{
    rtm_calib_inst_reset(in);
    return rtm_calib_pool_time(pool, &in->k, seconds);
}

rtm_status_t rtm_calib_inst_run(rtm_kexec_t *ex, rtm_calib_inst_t *in, rtm_kexec_timing_t *t)
{
    rtm_calib_inst_reset(in);
    return rtm_kexec_run(ex, t);
}

void rtm_calib_arena_init(rtm_calib_arena_t *a, rtm_ocl_dev_t *dev, size_t cap)
{
    *a = (rtm_calib_arena_t){dev, cap, !(dev->info.type & CL_DEVICE_TYPE_CPU), {0}, 0, 0.0};
}

void rtm_calib_arena_free(rtm_calib_arena_t *a)
{
    rtm_pinned_destroy(&a->pin);
}

/* Plans `in` (kern at size, tune); *need: its memory, in->bytes rounded up to 64. */
static rtm_status_t inst_plan(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                              const int64_t *size, rtm_tune_t tune, size_t *need)
{
    memset(in, 0, sizeof(*in));
    rtm_kinst_init(&in->k, kern);
    for (uint32_t i = 0; i < kern->n_keys; i++)
        in->k.size[i] = size[i];
    in->k.tune = tune;
    const rtm_status_t st = rtm_kinst_plan(&in->k);
    const size_t bytes = rtm_kinst_bytes(&in->k);
    in->bytes = bytes ? bytes : 64;
    *need = (in->bytes + 63) & ~(size_t)63;
    return st;
}

/* Binds in->mem (in->bytes, planned) and fills the inputs from `seed`. */
static rtm_status_t inst_fill(rtm_calib_inst_t *in, uint64_t seed)
{
    if (!in->mem)
        return RTM_E_NOMEM;
    if (rtm_kinst_bind(&in->k, in->mem, in->bytes) == 0 && rtm_kinst_bytes(&in->k)) {
        rtm_calib_inst_free(in);
        return RTM_E_NOMEM;
    }
    in->k.kernel->fill(&in->k, seed);
    size_t state = 0;
    for (uint32_t b = 0; b < in->k.plan.n_bufs; b++)
        state += timed_state(&in->k, b) ? in->k.plan.buf[b].bytes : 0;
    unsigned char *c = state ? malloc(state) : NULL;
    if (state && !c) {
        rtm_calib_inst_free(in);
        return RTM_E_NOMEM;
    }
    in->init_mem = c;
    for (uint32_t b = 0; c && b < in->k.plan.n_bufs; b++) {
        if (!timed_state(&in->k, b))
            continue;
        memcpy(c, in->k.host[b], in->k.plan.buf[b].bytes);
        in->init[b] = c;
        c += in->k.plan.buf[b].bytes;
    }
    return RTM_OK;
}

/* An instance's own memory (need bytes, a multiple of 64), zeroed as a fresh pinned
 * instance is: a scratch buffer held the heap's old data (test_inst_arena after
 * test_shape_points' instances); NULL when out of memory. */
static void *inst_alloc(size_t need)
{
    void *m = aligned_alloc(64, need);
    if (m)
        rtm_rng_zero(m, need);
    return m;
}

rtm_status_t rtm_calib_inst_make(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                                 const int64_t *size, rtm_tune_t tune, uint64_t seed)
{
    size_t need;
    const rtm_status_t st = inst_plan(in, kern, size, tune, &need);
    if (st != RTM_OK)
        return st;
    in->mem = inst_alloc(need);
    return inst_fill(in, seed);
}

/* An arena grows in steps of this many bytes (fewer re-pinnings as the points grow). */
#define ARENA_STEP ((size_t)64 << 20)

rtm_status_t rtm_calib_inst_make_in(rtm_calib_inst_t *in, const rtm_kernel_t *kern,
                                    const int64_t *size, rtm_tune_t tune, uint64_t seed,
                                    rtm_calib_arena_t *a)
{
    size_t need;
    const rtm_status_t st = inst_plan(in, kern, size, tune, &need);
    if (st != RTM_OK)
        return st;
    if (a->pin.bytes < need) {
        const double t0 = rtm_calib_now();
        size_t want = need > 2 * a->pin.bytes ? need : 2 * a->pin.bytes;
        want = (want + ARENA_STEP - 1) / ARENA_STEP * ARENA_STEP;
        if (a->cap && (want > a->cap || a->eager))
            want = a->cap > need ? a->cap : need;
        rtm_pinned_destroy(&a->pin);
        if (rtm_pinned_create(&a->pin, a->dev, want) != RTM_OK)
            (void)rtm_pinned_create(&a->pin, a->dev, need);
        a->grows++;
        a->grow_s += rtm_calib_now() - t0;
    } else {
        rtm_rng_zero(a->pin.host, need); /* as a fresh pinned instance is */
    }
    if (a->pin.bytes >= need) {
        in->mem = a->pin.host;
        in->borrowed = true;
    } else {
        in->mem = inst_alloc(need);
    }
    return inst_fill(in, seed);
}

/* True when one of keys[0..n) is key. */
bool rtm_calib_key_in(const int64_t *keys, uint32_t n, int64_t key)
{
    for (uint32_t q = 0; q < n; q++)
        if (keys[q] == key)
            return true;
    return false;
}

/* Plans kernel `kern` at first key `key0` (other keys at their defaults) and `tune`.
 * True when it plans and fits the limits. */
bool rtm_calib_size_plan(const rtm_kernel_t *kern, int64_t key0, rtm_tune_t tune,
                         const rtm_calib_lim_t *lim, rtm_kinst_t *k)
{
    rtm_kinst_init(k, kern);
    if (kern->n_keys)
        k->size[0] = key0;
    k->tune = tune;
    if (rtm_kinst_plan(k) != RTM_OK)
        return false;
    if (!lim)
        return true;
    double total = 0.0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if ((double)k->plan.buf[i].bytes > lim->max_buf)
            return false;
        total += (double)k->plan.buf[i].bytes;
    }
    return total <= lim->max_total;
}

/* The largest first key in [lo, hi] that plans within the limits (lo does; bytes grow
 * with the key). */
static int64_t largest_fit(const rtm_kernel_t *kern, int64_t lo, int64_t hi, rtm_tune_t tune,
                           const rtm_calib_lim_t *lim)
{
    rtm_kinst_t k;
    if (rtm_calib_size_plan(kern, hi, tune, lim, &k))
        return hi;
    int64_t a = lo, b = hi; /* a fits, b does not */
    while (b - a > 1) {
        const int64_t m = a + (b - a) / 2;
        if (rtm_calib_size_plan(kern, m, tune, lim, &k))
            a = m;
        else
            b = m;
    }
    return a;
}

/* True when `key` plans within the limits and f(ctx) of it reaches `level` (> level when
 * `strict`, else >=). */
static bool key_reaches(const rtm_kernel_t *kern, int64_t key, rtm_tune_t tune,
                        const rtm_calib_lim_t *lim, rtm_calib_pred_fn f, const void *ctx,
                        double level, bool strict)
{
    rtm_kinst_t k;
    if (!rtm_calib_size_plan(kern, key, tune, lim, &k))
        return false;
    const double v = f(ctx, &k);
    return strict ? v > level : v >= level;
}

/* The smallest first key in [lo, hi] that reaches `level` (key_reaches), f growing with
 * the key and hi reaching it. */
static int64_t first_reaching(const rtm_kernel_t *kern, int64_t lo, int64_t hi, rtm_tune_t tune,
                              const rtm_calib_lim_t *lim, rtm_calib_pred_fn f, const void *ctx,
                              double level, bool strict)
{
    if (key_reaches(kern, lo, tune, lim, f, ctx, level, strict))
        return lo;
    int64_t a = lo, b = hi; /* a does not reach, b does */
    while (b - a > 1) {
        const int64_t m = a + (b - a) / 2;
        if (key_reaches(kern, m, tune, lim, f, ctx, level, strict))
            b = m;
        else
            a = m;
    }
    return b;
}

int64_t rtm_calib_size_for(const rtm_kernel_t *kern, rtm_tune_t tune, double target,
                           rtm_calib_pred_fn pred, const void *ctx, const rtm_calib_lim_t *lim,
                           int parity, int64_t min_key, const int64_t *avoid, uint32_t navoid,
                           int64_t *size)
{
    rtm_kinst_t k;
    if (kern->n_keys == 0) {
        if (!rtm_calib_size_plan(kern, 0, tune, lim, &k))
            return -1;
        memcpy(size, k.size, sizeof(k.size));
        return 0;
    }
    int64_t lo = kern->keys[0].min, hi = kern->keys[0].max;
    /* not far below the kernel's default size: tiny sizes (one target, a 3-ship fleet)
     * are all fixed overhead and padding, nothing a task set runs */
    if (kern->keys[0].def / 8 > lo && kern->keys[0].def / 8 <= hi)
        lo = kern->keys[0].def / 8;
    if (!rtm_calib_size_plan(kern, lo, tune, lim, &k))
        lo = kern->keys[0].min;
    if (!rtm_calib_size_plan(kern, lo, tune, lim, &k))
        return -1;
    if (min_key > lo && rtm_calib_size_plan(kern, min_key, tune, lim, &k))
        lo = min_key;
    hi = largest_fit(kern, lo, hi, tune, lim);
    /* smallest key whose prediction reaches the target (predictions grow with it) */
    int64_t key = hi;
    if (key_reaches(kern, hi, tune, lim, pred, ctx, target, false))
        key = first_reaching(kern, lo, hi, tune, lim, pred, ctx, target, false);
    /* two significant digits (1283 -> 1300): sizes repeat from run to run, so programs
     * built with sizes in their options come from the binary cache the next time */
    if (key >= 100) {
        int64_t unit = 1;
        while (key / unit >= 100)
            unit *= 10;
        const int64_t q = (key + unit / 2) / unit * unit;
        if (q >= lo && q <= hi)
            key = q;
    }
    /* the nearest key of the wanted parity that plans and is not taken */
    for (int64_t step = 0; step < 64; step++) {
        const int64_t cand[2] = {key + step, key - step};
        for (int c = 0; c < 2; c++) {
            const int64_t v = cand[c];
            if (v < lo || v > hi || (parity >= 0 && (v & 1) != parity))
                continue;
            if (!rtm_calib_key_in(avoid, navoid, v) &&
                rtm_calib_size_plan(kern, v, tune, lim, &k)) {
                memcpy(size, k.size, sizeof(k.size));
                return v;
            }
        }
    }
    /* no key of that parity: take the target's own */
    if (!rtm_calib_size_plan(kern, key, tune, lim, &k))
        return -1;
    memcpy(size, k.size, sizeof(k.size));
    return key;
}

/* An instance's working set: every buffer once, scratch included (rtm_calib_pred_fn; ctx
 * unused). */
static double plan_ws(const void *ctx, const rtm_kinst_t *k)
{
    (void)ctx;
    rtm_cost_t c;
    rtm_kinst_cost(k, &c);
    return c.bytes_ws;
}

int64_t rtm_calib_past_cache(const rtm_kernel_t *kern, rtm_tune_t tune, double cache,
                             const rtm_calib_lim_t *lim, int parity, int64_t *size)
{
    rtm_kinst_t k;
    if (kern->n_keys == 0 || !(cache > 0))
        return -1;
    int64_t lo = kern->keys[0].min, hi = kern->keys[0].max;
    if (!rtm_calib_size_plan(kern, lo, tune, lim, &k))
        return -1;
    hi = largest_fit(kern, lo, hi, tune, lim);
    if (!key_reaches(kern, hi, tune, lim, plan_ws, NULL, cache, true))
        return -1; /* nothing that fits is past the cache */
    /* the smallest key past the cache (bytes grow with the key) */
    const int64_t key = first_reaching(kern, lo, hi, tune, lim, plan_ws, NULL, cache, true);
    for (int64_t v = key; v <= hi && v < key + 64; v++) {
        if (parity >= 0 && (v & 1) != parity)
            continue;
        if (rtm_calib_size_plan(kern, v, tune, lim, &k) && plan_ws(NULL, &k) > cache) {
            memcpy(size, k.size, sizeof(k.size));
            return v;
        }
    }
    return -1;
}

/* ---- per-kernel fits (device and CPU alike) ------------------------------------------ */

/* How far (as a ratio of times) a prebuilt size may be from a target's own and still be
 * measured for it: the points span the same range, and no compile lands on the path. */
#define PREBUILT_RATIO 1.8

/* Seconds of measuring one point may take beyond its first REPS jobs: a point whose
 * job is longer gets fewer repetitions (at least EXTRA_MIN_REPS). */
#define POINT_BUDGET_S 0.5
#define EXTRA_MIN_REPS 3
/* On an OpenCL device an extra point is skipped within this fraction of a size already
 * measured; on the CPU pool it is taken only beyond the sizes measured (gap points there
 * gave the H100 host's matrix_add a second regime slower below its knee than above). */
#define EXTRA_APART 0.15
/* Longest predicted job of an extra (seed-000 validation-range) point. Where the
 * executor can run part of a job (the CPU pool), a longer one is measured on its first
 * blocks, about PART_S of them, and scaled to the whole job. */
#define EXTRA_MAX_S 0.4
#define PART_S 0.03
#define PART_REPS 5

/* Runs of a point after its warm-up run took first_s: the warm-up tells what a run
 * takes, and one longer than predicted (matrix_loop_add's 5x from n = 1000 to 3000 on
 * the CPU; grid_path's 20 ms target at 206 ms there, 10 runs) gets fewer, at least
 * EXTRA_MIN_REPS (never more than asked). */
int rtm_calib_reps_after_warmup(double first_s, int reps)
{
    return first_s > 0 && first_s * reps > POINT_BUDGET_S
               ? (int)fmin(reps, fmax(EXTRA_MIN_REPS, POINT_BUDGET_S / first_s))
               : reps;
}
/* Longest predicted job of the point past the cache measured whole (--quick:
 * PAST_MAX_QUICK_S), and its repetitions: as many as fit in POINT_BUDGET_S, at least one
 * after the warm-up. Predictions there run short (the H100 host's grid_path on the CPU:
 * width 7283 took 1.27 s a job, 2.9 s of the run with its warm-up, at a limit of 1 s). */
#define PAST_MAX_S 0.5
#define PAST_MAX_QUICK_S 0.1
/* Time all the points past the cache of one device (or of the CPU) may take, seconds:
 * what they can add to a run. */
#define PAST_SECTION_S 2.5
/* A point past the cache whose job is predicted longer than this is measured on its
 * first blocks where the executor can run part of a job (part_for). */
#define PAST_PART_S 0.15

/* True when work w (seconds) puts point p on its host-paced line (the larger). */
static bool point_paced(const kpoint_t *p, double w)
{
    return p->L > 1.0 && p->bp + w / p->L > p->b + w;
}

/* The model's kernel time at point p for work w, without the kernel's fixed term: the
 * larger of its lines (model.c's launches_span). */
static double point_time(const kpoint_t *p, double w)
{
    return point_paced(p, w) ? p->bp + w / p->L : p->b + w;
}

/* The r at which point p's model, with no other term, meets its measured time: past the
 * lines' crossing the device's line, before it the host's; 0 where none does. */
static double point_r(const kpoint_t *p)
{
    double w = p->t - p->b;
    if (p->L > 1.0 && p->bp > p->b && w < (p->bp - p->b) * p->L / (p->L - 1.0))
        w = (p->t - p->bp) * p->L;
    return p->a > 0 && w > 0 ? w / p->a : 0.0;
}

/* Measures one point of kernel kf->kern at `size` (first key `key`), `reps` jobs (with
 * `part` > 0: the first part blocks per worker of each, kf->measure_part). */
static rtm_status_t kernel_point(kfit_t *kf, const int64_t *size, int64_t key, uint64_t seed,
                                 int reps, uint32_t part, kpoint_t *pt, double *per_job)
{
    const double t0 = rtm_calib_now();
    rtm_calib_inst_t in;
    rtm_status_t st =
        kf->arena ? rtm_calib_inst_make_in(&in, kf->kern, size, kf->tune, seed, kf->arena)
                  : rtm_calib_inst_make(&in, kf->kern, size, kf->tune, seed);
    kf->inst_s += rtm_calib_now() - t0;
    *pt = (kpoint_t){key, 0, 0, 0, 0, 0, 0, 0, reps, part, 0, 0, 0, 0, 0};
    rtm_calib_fig_t f = {0};
    rtm_cost_t cost = {0};
    if (st == RTM_OK) {
        rtm_kinst_cost(&in.k, &cost);
        pt->ws = cost.bytes_ws;
        pt->m = cost.bytes_dev;
        /* the count model.c scales by p_ops: Z * li on a device, li * sum z on the CPU */
        pt->x = kf->cpu ? cost.li * (cost.z[RTM_LOC_SCALAR] + cost.z[RTM_LOC_UNIT] +
                                     cost.z[RTM_LOC_STRIDED])
                        : cost.Z * cost.li;
        st = part ? kf->measure_part(kf->ctx, &in, reps, part, &pt->t, &f)
                  : kf->measure(kf->ctx, &in, reps, &pt->t, &f);
    }
    if (st == RTM_OK && !kf->coef(kf->ctx, &in.k, &pt->a, &pt->b, &pt->bp))
        st = RTM_E_MODEL;
    if (st == RTM_OK && kf->groups && !kf->groups(kf->ctx, &in.k, &pt->g, &pt->res))
        pt->g = pt->res = 0.0;
    /* the launches that carry the work, and the host-paced line's slope 1 / L (model.c's
     * launches_span: flat where idle launches, grid_path's converged passes, end the job) */
    pt->busy = (double)cost.launches_busy;
    pt->L = rtm_model_paced_launches((double)in.k.plan.launches, pt->busy);
    const double tf = rtm_calib_now();
    rtm_calib_inst_free(&in);
    kf->inst_s += rtm_calib_now() - tf;
    pt->spread = f.spread;
    if (st == RTM_OK && f.n > 0 && f.n < (uint32_t)pt->reps)
        pt->reps = (int)f.n; /* fewer after the warm-up (rtm_calib_reps_after_warmup) */
    *per_job = (rtm_calib_now() - t0) / (pt->reps + 1);
    return st;
}

/* The seed-000 kernels' extra calibration sizes (first key n, or the empty kernel's
 * blocks of an n x n grid): odd n between and just beyond validation's 1000, 2000, 3000
 * (128, 256, 384 with --quick), so that the fit spans the range validation measures. */
static uint32_t extra_sizes(const cal_t *c, const rtm_kernel_t *kern, rtm_tune_t tune,
                            int64_t *keys)
{
    static const char *const s0[] = {"empty", "matrix_add", "matrix_add3", "matrix_loop_add",
                                     "matrix_mul"};
    static const int64_t full[] = {1501, 2501, 3001}, quick[] = {193, 321, 385};
    bool is = false;
    for (size_t i = 0; i < N_OF(s0); i++)
        is = is || strcmp(s0[i], kern->name) == 0;
    if (!is || kern->n_keys == 0)
        return 0;
    const int64_t *set = c->o->quick ? quick : full;
    for (uint32_t i = 0; i < 3; i++) {
        int64_t key = set[i];
        if (strcmp(kern->keys[0].name, "n") != 0) {
            const int64_t wg = tune.wg ? tune.wg : 1;
            key = (set[i] * set[i] + wg - 1) / wg;
            key |= 1;
        }
        keys[i] = key;
    }
    return 3;
}

/* Sizing from the measurements: once two sizes are measured, a job's time at first key
 * x is the model's transfers plus t2 * (x / x2)^e, e the exponent through the two
 * largest points (clamped to 0.3 .. 3): the model's operation counts can scale unlike
 * the kernel's time (padding to a work-group, caches), and a size chosen by them can
 * land far from its target. */
typedef struct {
    const kfit_t *kf;
    double x1, t1, x2, t2; /* the two largest points: first key, kernel time */
    bool kernel;           /* the kernel's time alone (hole_point), not the job's */
} epred_t;

static double emp_pred(const void *ctx, const rtm_kinst_t *k)
{
    const epred_t *e = ctx;
    const double total = e->kf->pred(e->kf->pred_ctx, k);
    const double kern = e->kf->kpred(e->kf->kpred_ctx, k);
    if (total < 0 || kern < 0 || !(e->x2 > e->x1) || !(e->t1 > 0) || !(e->t2 > 0))
        return total;
    const double ex = fmin(fmax(log(e->t2 / e->t1) / log(e->x2 / e->x1), 0.3), 3.0);
    double ratio = pow((double)k->size[0] / e->x2, ex);
    /* growing: never less than the model's own growth from the largest point (its
     * operation counts). Two small points can sit where fixed costs flatten the curve
     * (matrix_mov on PoCL, H100 host: n 131 -> 221 gave exponent 1.35, the 20 ms target
     * then landed at n=2601, 864 ms a job, 9.5 s of the run for one point) */
    rtm_kinst_t k2;
    if (k->size[0] > (int64_t)e->x2 &&
        rtm_calib_size_plan(e->kf->kern, (int64_t)e->x2, e->kf->tune, NULL, &k2)) {
        const double m2 = e->kf->kpred(e->kf->kpred_ctx, &k2);
        if (m2 > 0)
            ratio = fmax(ratio, kern / m2);
    }
    return (e->kernel ? 0.0 : fmax(total - kern, 0.0)) + e->t2 * ratio;
}

/* Measures kernel kf->kern at the calibration targets (job time), odd first keys: the
 * smallest target first, then the middle one, then the largest (so that the points span
 * the range even when time runs short), then the seed-000 kernels' extra sizes near
 * validation's that are not near a size measured already, then the other targets in
 * between; from the fourth point on only while the kernel's time lasts. Points come
 * back sorted by size. */
/* The point at the cache's edge: taken when those below the cache stop short of
 * EDGE_FROM of it, at buffers just past EDGE_AT of it. */
#define EDGE_FROM 0.25
#define EDGE_AT 0.75

/* The largest buffers (ws) of the points at or below `cache` (0: none); *past: whether
 * any point is beyond it. */
static double ws_below(const kpoint_t *pts, uint32_t n, double cache, bool *past)
{
    double below = 0.0;
    *past = false;
    for (uint32_t i = 0; i < n; i++) {
        *past = *past || pts[i].ws > cache;
        if (pts[i].ws <= cache)
            below = fmax(below, pts[i].ws);
    }
    return below;
}

/* A partial job for instance k whose whole job is predicted to take *pt: the blocks
 * per worker (*part) whose run takes about PART_S, *pt then the part's predicted time;
 * *part 0 when the whole job is hardly longer. False when kf's executor cannot run part
 * of k (no measure_part, several launches). */
static bool part_for(const kfit_t *kf, const rtm_kinst_t *k, double *pt, uint32_t *part)
{
    const double per = ceil((double)rtm_kinst_blocks(k) / kf->workers);
    *part = 0;
    if (!kf->measure_part || kf->part != KFIT_PART_TRUSTED || k->plan.launches != 1 ||
        !(per > 0) || !(*pt > 0))
        return false;
    const uint32_t p = (uint32_t)fmax(4.0, floor(PART_S / (*pt / per)));
    if (p < per) {
        *part = p;
        *pt = *pt * p / per;
    }
    return true;
}

/* A partial job against a whole one, where kf asks for it (KFIT_PART_CHECK), once per
 * kernel before its first partial point: the largest one-launch point measured whole so
 * far is measured again on its first PART_CHECK_SHARE of blocks (twice where the first
 * estimate is over PART_RETRY_OFF off, the nearer kept); the partial jobs are
 * trusted when that estimate lies within PART_TRUST of the whole job's time, else
 * refused (the kernel's long sizes are then not measured, as before). Noted
 * either way. PoCL 3.1 on the 2-core machine: matrix_mul at n = 1001 0.99x on its first
 * 8 to 512 of 3 915 blocks (its check 1.00x, matrix_loop_add's 0.97x); PoCL 5 on the
 * H100 host: 1.15-2.0x at n = 1001-1501, and matrix_loop_add 1.1-3.3x
 * (board/h100/results/part-pocl5-s49a-h100.txt). Within 10 % PoCL 5 once passed
 * matrix_mul (0.92x at n = 551) and its partial points, 1.4x slow, put validation's
 * n = 1000 at +294 % (calibrate-s49b-h100.txt); hence 5 %. */
#define PART_CHECK_SHARE 0.125
#define PART_TRUST 0.05
#define PART_CHECK_TRIES 2
#define PART_RETRY_OFF 0.5
static rtm_status_t part_check(cal_t *c, kfit_t *kf, const kpoint_t *pts, const int64_t *keys,
                               uint32_t n)
{
    if (kf->part != KFIT_PART_CHECK || !kf->measure_part)
        return RTM_OK;
    kf->part = KFIT_PART_REFUSED;
    const kpoint_t *w = NULL;
    int64_t wkey = 0;
    for (uint32_t i = 0; i < n; i++)
        if (pts[i].part == 0 && pts[i].L <= 1.0 && pts[i].t > 0 && (!w || pts[i].t > w->t)) {
            w = &pts[i];
            wkey = keys[i];
        }
    rtm_kinst_t k;
    if (!w || !rtm_calib_size_plan(kf->kern, wkey, kf->tune, kf->lim, &k))
        return RTM_OK;
    const double per = ceil((double)rtm_kinst_blocks(&k) / kf->workers);
    const uint32_t part = (uint32_t)floor(per * PART_CHECK_SHARE);
    if (part < 1) {
        cal_note(c, "%s: %s: partial jobs not checked (%s=%lld runs %.0f blocks per worker): "
                    "none taken", kf->who, kf->kern->name,
                 kf->kern->keys[0].name, (long long)wkey, per);
        return RTM_OK;
    }
    /* a second partial run where the first is far off (PART_RETRY_OFF), the one nearer
     * the whole job kept: a busy moment slowed one run (the 2-core machine's matrix_mul
     * 1.62x once, 1.03x the next calibration); a partial job's own pace repeats, and the
     * near misses (PoCL 5 on the H100 host: 0.84-1.46x) get no second run */
    double ratio = 0.0;
    for (int tries = 0; tries < PART_CHECK_TRIES && (tries == 0 || fabs(ratio - 1.0) > PART_RETRY_OFF);
         tries++) {
        kpoint_t pp;
        double per_job = 0;
        const rtm_status_t st = kernel_point(kf, k.size, wkey, POINT_SEED0 + 15 + (uint64_t)tries,
                                             EXTRA_MIN_REPS, part, &pp, &per_job);
        if (st != RTM_OK)
            return st;
        if (tries == 0 || fabs(pp.t / w->t - 1.0) < fabs(ratio - 1.0))
            ratio = pp.t / w->t;
    }
    kf->part = fabs(ratio - 1.0) <= PART_TRUST ? KFIT_PART_TRUSTED : KFIT_PART_REFUSED;
    cal_note(c, "%s: %s: partial jobs %s: %s=%lld on its first %u of %.0f blocks per worker "
                "%.4gms scaled, whole %.4gms (%.2fx; trusted within %.0f%%)",
             kf->who, kf->kern->name,
             kf->part == KFIT_PART_TRUSTED ? "trusted" : "not trusted (its long sizes not measured)",
             kf->kern->keys[0].name, (long long)wkey, part, per, ratio * w->t * 1e3, w->t * 1e3, ratio,
             PART_TRUST * 100);
    return RTM_OK;
}

/* Measures kf's kernel at the smallest odd size whose buffers exceed `bytes`, when its
 * job takes at most PAST_MAX_S (PAST_MAX_QUICK_S with --quick) and, unless `first`,
 * the section's PAST_SECTION_S for such points is not spent; appends it to pts/keys
 * (room for `max`). `where` ("past", "at the edge of") names it in the note written
 * when it is not taken. */
static rtm_status_t cache_point(cal_t *c, kfit_t *kf, double bytes, bool first, uint64_t seed,
                                kpoint_t *pts, int64_t *keys, uint32_t *n, uint32_t max,
                                const char *where)
{
    int64_t size[RTM_SIZE_KEYS_MAX];
    rtm_kinst_t pk;
    if (*n >= max)
        return RTM_OK;
    const int64_t pkey = rtm_calib_past_cache(kf->kern, kf->tune, bytes, kf->lim, 1, size);
    if (pkey < 0 || !rtm_calib_size_plan(kf->kern, pkey, kf->tune, kf->lim, &pk))
        return RTM_OK;
    for (uint32_t i = 0; i < *n; i++)
        if (keys[i] == pkey)
            return RTM_OK;
    const double whole = kf->pred(kf->pred_ctx, &pk);
    const double cap = c->o->quick ? PAST_MAX_QUICK_S : PAST_MAX_S;
    /* a long job on its first blocks where the executor can run part of one (the CPU
     * pool, GPUs: predictions past a cache run short; PoCL's matrix_mul there,
     * predicted under 1 s, took 2.7 s a job); the limit then bounds the whole job no
     * more */
    double pt = whole;
    uint32_t part = 0;
    if (pt > PAST_PART_S) {
        const rtm_status_t cst = part_check(c, kf, pts, keys, *n);
        if (cst != RTM_OK)
            return cst;
    }
    const bool can_part = pt > PAST_PART_S && part_for(kf, &pk, &pt, &part);
    const double want = pt > 0 ? POINT_BUDGET_S / pt : 0.0;
    int reps = want >= REPS ? REPS : want <= 1 ? 1 : (int)want;
    if (part && reps > PART_REPS)
        reps = PART_REPS;
    /* at most PAST_SECTION_S of them per device (and for the CPU), but the seed-000
     * kernels (`first`: validation measures them at n = 1000..3000, past most caches)
     * before the others */
    const bool in_time = first || c->past_s + pt * (reps + 1) <= PAST_SECTION_S;
    if (!(pt > 0) || (!can_part && pt > cap) || !in_time) {
        cal_note(c, "%s: %s: no point %s the cache (%.4gMiB): the smallest size past %.4gMiB, "
                    "%s=%lld, would take %.3gs a job (limit %.3gs%s)",
                 kf->who, kf->kern->name, where, kf->cache / MIB, bytes / MIB,
                 kf->kern->keys[0].name, (long long)pkey, whole, cap,
                 in_time ? "" : "; this section's time for such points is spent");
        return RTM_OK;
    }
    kpoint_t point;
    double per_job = 0;
    const double t0 = rtm_calib_now();
    const rtm_status_t st = kernel_point(kf, size, pkey, seed, reps, part, &point, &per_job);
    c->past_s += rtm_calib_now() - t0;
    if (st == RTM_OK) {
        keys[*n] = pkey;
        pts[(*n)++] = point;
    }
    return st;
}

/* True when one of the n measured keys lies within 5 % (at least 2) of key: a point
 * there would measure nothing new. */
static bool key_near(const int64_t *keys, uint32_t n, int64_t key)
{
    for (uint32_t q = 0; q < n; q++)
        if (llabs(keys[q] - key) <= (key / 20 > 2 ? key / 20 : 2))
            return true;
    return false;
}

/* The first key (and sizes) of kf's point for calibration target i given the n points
 * measured: the largest target at least 1.5x the smallest size, so that the points span
 * a range, the others just distinct; from two points on sized by the measurements
 * (emp_pred). -1 when no size fits or the size lands next to one measured (a target
 * below the smallest size's time: nothing new). */
static int64_t target_key(const cal_t *c, const kfit_t *kf, size_t i, const kpoint_t *pts,
                          const int64_t *keys, uint32_t n, int64_t *size)
{
    const size_t nt = c->n_targets;
    const int64_t min_key = i == nt - 1 && n > 0 ? keys[0] + (keys[0] + 1) / 2 : 0;
    epred_t ep = {kf, 0, 0, 0, 0, false};
    for (uint32_t q = 0; q < n; q++) {
        const double xq = (double)keys[q];
        if (xq > ep.x2) {
            ep.x1 = ep.x2, ep.t1 = ep.t2;
            ep.x2 = xq, ep.t2 = pts[q].t;
        } else if (xq > ep.x1) {
            ep.x1 = xq, ep.t1 = pts[q].t;
        }
    }
    const bool emp = n >= 2 && kf->kpred && kf->kern->n_keys > 0;
    int64_t key = rtm_calib_size_for(kf->kern, kf->tune, c->targets[i],
                                     emp ? emp_pred : kf->pred,
                                           emp ? (const void *)&ep : kf->pred_ctx, kf->lim, 1,
                                           min_key, keys, n, size);
    if (key < 0)
        return -1;
    /* a prebuilt size near the target in time, if any (its program is in the cache) */
    double best = PREBUILT_RATIO;
    const bool own_prebuilt = rtm_calib_key_in(kf->pre_keys, kf->n_pre_keys, key);
    for (uint32_t j = 0; !own_prebuilt && j < kf->n_pre_keys; j++) {
        const int64_t pk = kf->pre_keys[j];
        rtm_kinst_t k;
        if (pk < min_key || key_near(keys, n, pk) ||
            !rtm_calib_size_plan(kf->kern, pk, kf->tune, kf->lim, &k))
            continue;
        const double t = emp ? emp_pred(&ep, &k) : kf->pred(kf->pred_ctx, &k);
        const double r = t > c->targets[i] ? t / c->targets[i] : c->targets[i] / fmax(t, 1e-12);
        if (t > 0 && r < best) {
            best = r;
            key = pk;
            memcpy(size, k.size, sizeof(k.size));
        }
    }
    return key_near(keys, n, key) ? -1 : key;
}

/* Measures the smallest of the n points again (same size, seed and repetitions) and
 * keeps the lower of its two times (see rtm_calib_kernel_points). */
static rtm_status_t remeasure_smallest(kfit_t *kf, kpoint_t *pts, const int64_t *keys, uint32_t n)
{
    uint32_t s = 0;
    for (uint32_t i = 1; i < n; i++)
        if (keys[i] < keys[s])
            s = i;
    if (pts[s].part) /* a partial job: long, measured in its own way */
        return RTM_OK;
    rtm_kinst_t k;
    if (!rtm_calib_size_plan(kf->kern, keys[s], kf->tune, kf->lim, &k))
        return RTM_OK;
    kpoint_t again;
    double per_job = 0;
    const rtm_status_t st =
        kernel_point(kf, k.size, keys[s], POINT_SEED0, pts[s].reps, 0, &again, &per_job);
    if (st == RTM_OK && again.t > 0 && again.t < pts[s].t)
        pts[s] = again;
    return st;
}

/* The order a kernel's calibration targets are measured in: the first, the middle one,
 * the last, then the others (each point sizes the next from the largest measured so
 * far: a short step first, then the long one). Returns how many (at most max). */
size_t rtm_calib_target_order(size_t nt, size_t *order, size_t max)
{
    size_t no = 0;
    if (nt > 0 && no < max)
        order[no++] = 0;
    if (nt > 2 && no < max)
        order[no++] = nt / 2;
    if (nt > 1 && no < max)
        order[no++] = nt - 1;
    for (size_t i = 1; i + 1 < nt && no < max; i++)
        if (i != nt / 2)
            order[no++] = i;
    return no;
}

/* Hands kf->prebuild the sizes rtm_calib_kernel_points is about to measure, by the
 * prediction as it stands: the targets order[from..nt), and with `all` the extra sizes and
 * the point past the cache. Their programs are built together (in parallel by the build
 * workers) instead of one at a time on the path: the H100's sweeps moved several kernels to
 * another work-group size than the prebuilt points', and PoCL's first points resized the
 * rest, 25 programs (7.7 s) compiled one by one in rtm_calib_kernel_points on the H100
 * host. */
static void points_ahead(const cal_t *c, kfit_t *kf, const size_t *order, size_t from,
                         const int64_t *extra, uint32_t ne, bool all, const kpoint_t *pts,
                         const int64_t *keys, uint32_t n)
{
    if (!kf->prebuild)
        return;
    int64_t sizes[AHEAD_MAX][RTM_SIZE_KEYS_MAX], ks[AHEAD_MAX];
    uint32_t m = 0;
    /* a squeezed kernel's two targets alone */
    const size_t to = kf->squeeze && c->n_targets > SQUEEZED_POINTS ? SQUEEZED_POINTS : c->n_targets;
    for (size_t jj = from; jj < to && m < AHEAD_MAX; jj++) {
        const int64_t key = target_key(c, kf, order[jj], pts, keys, n, sizes[m]);
        if (key >= 0 && !rtm_calib_key_in(ks, m, key))
            ks[m++] = key;
    }
    for (uint32_t e = 0; all && e < ne && m < AHEAD_MAX; e++) {
        rtm_kinst_t k;
        if (!rtm_calib_key_in(ks, m, extra[e]) &&
            rtm_calib_size_plan(kf->kern, extra[e], kf->tune, kf->lim, &k)) {
            memcpy(sizes[m], k.size, sizeof(k.size));
            ks[m++] = extra[e];
        }
    }
    if (all && kf->cache > 0 && m < AHEAD_MAX) {
        const int64_t pk =
            rtm_calib_past_cache(kf->kern, kf->tune, kf->cache, kf->lim, 1, sizes[m]);
        if (pk >= 0 && !rtm_calib_key_in(ks, m, pk))
            ks[m++] = pk;
    }
    if (m > 0)
        kf->prebuild(kf->ctx, kf, ks, (const int64_t(*)[RTM_SIZE_KEYS_MAX])sizes, m);
}

int rtm_calib_gap_at(const double *t, uint32_t n)
{
    int at = -1;
    double widest = RTM_CALIB_GAP_RATIO;
    for (uint32_t i = 0; i + 1 < n; i++)
        if (t[i] > 0 && t[i + 1] / t[i] >= widest) {
            widest = t[i + 1] / t[i];
            at = (int)i;
        }
    return at;
}

int rtm_calib_gap_reps(bool cpu, bool own_program, double job_s)
{
    if (cpu)
        return REPS;
    if (own_program || !(job_s > 0.0) ||
        job_s * (RTM_CALIB_GAP_MIN_REPS + 1) > RTM_CALIB_GAP_BUDGET_S)
        return 0;
    const double fit = RTM_CALIB_GAP_BUDGET_S / job_s - 1.0; /* and its warm-up */
    return fit >= REPS ? REPS : fit < RTM_CALIB_GAP_MIN_REPS ? RTM_CALIB_GAP_MIN_REPS : (int)fit;
}

/* The per-kernel fit's output and the fit (below, with its forms and rules). */
typedef struct {
    double r, t_fixed, r_big, r_miss, knee, r_byte, p_ops, x_ref, resid, resident;
} kfit_out_t;
static bool fit_kernel(const kpoint_t *p, uint32_t n, double cache, kfit_out_t *o);
static double resident_at(const kpoint_t *p, uint32_t n, int i);

/* key when it lies strictly between keys[lo] and keys[hi] and is not near a key of
 * keys[0..n) (key_near), else -1. */
static int64_t in_hole(const int64_t *keys, uint32_t n, uint32_t lo, uint32_t hi, int64_t key)
{
    return key <= keys[lo] || key >= keys[hi] || key_near(keys, n, key) ? -1 : key;
}

/* The size of one point between points lo and hi (keys[lo] < keys[hi]): at the
 * geometric mean of their kernel times, interpolated between their sizes through the
 * exponent of the two (emp_pred with the pair as its points); its first key (every key
 * into size), or -1 when no size lies between them apart from the points' own. */
static int64_t hole_size(const kfit_t *kf, const kpoint_t *pts, const int64_t *keys,
                         uint32_t n, uint32_t lo, uint32_t hi, int64_t *size)
{
    if (!(keys[hi] > keys[lo] + 2))
        return -1; /* the longer time at the smaller size: no size between */
    /* the two points' times are kernel times: so is the target (as the job's, the
     * transfers put the H100's cpa_pairs hole of 0.026 .. 0.21 ms at the smaller size) */
    const epred_t ep = {kf, (double)keys[lo], pts[lo].t, (double)keys[hi], pts[hi].t, true};
    const int64_t key =
        rtm_calib_size_for(kf->kern, kf->tune, sqrt(pts[lo].t * pts[hi].t), emp_pred, &ep,
                           kf->lim, 1, keys[lo] + 1, keys, n, size);
    return in_hole(keys, n, lo, hi, key);
}

/* The size of one point between points lo and hi in working set: the smallest odd one
 * whose buffers exceed the geometric mean of theirs; -1 when none lies between them
 * apart from the points' own. For holes whose times lie too far apart for emp_pred's
 * exponent (clamped to 3: the 2-core machine's pool matrix_mul from n = 1 501 to 2 501,
 * 2.4 to 40 s, 5.6, put the times' middle at n = 1 601). */
static int64_t hole_size_ws(const kfit_t *kf, const kpoint_t *pts, const int64_t *keys,
                            uint32_t n, uint32_t lo, uint32_t hi, int64_t *size)
{
    return in_hole(keys, n, lo, hi,
                   rtm_calib_past_cache(kf->kern, kf->tune, sqrt(pts[lo].ws * pts[hi].ws),
                                        kf->lim, 1, size));
}

/* One point between points lo and hi (hole_size), inputs from `seed`, repetitions by
 * rtm_calib_gap_reps — with `build`, as if the size ran a program measured already (the
 * caller pays for its build) —; with `partial`, at the middle of the hole in working
 * set (hole_size_ws), a job predicted over PART_S on its first blocks (part_for; none
 * where the executor cannot run part of it); appended to pts/keys (*n < room, checked
 * by the caller). */
static rtm_status_t hole_point(kfit_t *kf, uint64_t seed, kpoint_t *pts, int64_t *keys,
                               uint32_t *n, uint32_t lo, uint32_t hi, bool build, bool partial)
{
    int64_t size[RTM_SIZE_KEYS_MAX];
    const int64_t key = partial ? hole_size_ws(kf, pts, keys, *n, lo, hi, size)
                                : hole_size(kf, pts, keys, *n, lo, hi, size);
    rtm_kinst_t k;
    if (key < 0 || !rtm_calib_size_plan(kf->kern, key, kf->tune, kf->lim, &k))
        return RTM_OK;
    const bool own = !build && kf->own_program && kf->own_program(kf->ctx, kf, keys[lo], key) &&
                     kf->own_program(kf->ctx, kf, keys[hi], key);
    double job = kf->pred(kf->pred_ctx, &k);
    uint32_t part = 0;
    if (partial && job > PART_S && !part_for(kf, &k, &job, &part))
        return RTM_OK;
    /* a part runs PART_REPS times (about PART_S each) unless it needs a build of its own */
    const int reps = part && !own ? PART_REPS : rtm_calib_gap_reps(kf->cpu, own, job);
    if (reps == 0)
        return RTM_OK;
    kpoint_t pt;
    double per_job = 0;
    const rtm_status_t st = kernel_point(kf, size, key, seed, reps, part, &pt, &per_job);
    if (st == RTM_OK) {
        keys[*n] = key;
        pts[(*n)++] = pt;
    }
    return st;
}

/* The points of pts[0..n) (at most 16) that `only` admits (NULL: every one), their
 * indices into idx[] by time, shortest first; how many. */
static uint32_t by_time(const kpoint_t *pts, uint32_t n, const bool *only, uint32_t *idx)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n && m < 16; i++) {
        if (only && !only[i])
            continue;
        uint32_t j = m++;
        for (; j > 0 && pts[idx[j - 1]].t > pts[i].t; j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
    }
    return m;
}

/* One point in the widest hole between the points measured for the targets (tgt[i]:
 * point i was; rtm_calib_gap_at; hole_point), on a device only a hole across the cache's
 * edge, where the size runs the program of one of the two and its jobs are cheap
 * (room for `max`). */
static rtm_status_t gap_point(kfit_t *kf, uint64_t seed, kpoint_t *pts, int64_t *keys,
                              const bool *tgt, uint32_t *n, uint32_t max)
{
    if (*n >= max || !kf->kpred || kf->kern->n_keys == 0)
        return RTM_OK;
    double t[16];
    uint32_t idx[16] = {0}; /* zeroed for cppcheck: by_time sets what it reads */
    const uint32_t m = by_time(pts, *n, tgt, idx);
    for (uint32_t i = 0; i < m; i++)
        t[i] = pts[idx[i]].t;
    const int g = rtm_calib_gap_at(t, m);
    if (g < 0)
        return RTM_OK;
    const uint32_t lo = idx[g], hi = idx[g + 1];
    /* on a device, only a hole across the cache's edge (the fit's regime changes in it;
     * every other hole there is a few short jobs whose instances alone cost calibration
     * its time) */
    if (!kf->cpu && !(kf->cache > 0 && pts[lo].ws < kf->cache && pts[hi].ws > kf->cache))
        return RTM_OK;
    return hole_point(kf, seed, pts, keys, n, lo, hi, false, false);
}

/* Sorts pts[0..n) by working set: the fit's order. */
static void sort_by_ws(kpoint_t *pts, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t k = i; k > 0 && pts[k].ws < pts[k - 1].ws; k--) {
            const kpoint_t tmp = pts[k];
            pts[k] = pts[k - 1];
            pts[k - 1] = tmp;
        }
}

/* The fit (fit_kernel) through the points measured so far, in any order (at most 16). */
static bool fit_so_far(const kpoint_t *pts, uint32_t n, double cache, kfit_out_t *o)
{
    kpoint_t q[16];
    if (n > N_OF(q))
        n = N_OF(q);
    memcpy(q, pts, n * sizeof(*q));
    sort_by_ws(q, n);
    return fit_kernel(q, n, cache, o);
}

/* Points where the fit's second regime starts between two points more than KNEE_SPAN
 * apart in working set, its knee not the cache (which, between them, is the knee: fit_form):
 * the fit puts that knee halfway between them (geometrically), and where the sizes between
 * them fall, below or beyond it, is then a guess. A point goes in the hole (hole_point),
 * whose time the two points bound, and the fit with it starts the regime at one side of
 * it; again while the two points around the knee are KNEE_SPAN apart, up to KNEE_POINTS,
 * within the kernel's time and only where the hole's job is short (KNEE_JOB_MAX_S; whole
 * jobs: not between partial points — the 2-core machine's matrix_mul got n = 1 601, 2.9 s
 * a job, between its partial points at 1 501 and 2 501, and its CPU section took 27 s
 * where it had taken 14).
 * On the 2-core machine the pool's threshold had points at widths 4 301 and 22 001 (18 and
 * 91 MB), its knee put at 25 MiB, and validation's width 14 000 (30 MiB) came out +33 to
 * +46 % (its rate the lower regime's); copy's points at n = 4.8M and 15M put validation's
 * 11M -16 to -19 %.
 * The CPU pool's holes take longer jobs too, on their first blocks at the hole's middle
 * in working set (hole_point's `partial`: part_for, about PART_S a run), and there a
 * step at the cache is tested as well: the pool's `cache` is the host's last-level
 * cache as a copy sweep meets it, and a kernel's own walk may spill it later or
 * gradually (the 2-core machine's matrix_mul: 0.71 ns a multiply-add at n = 1 501,
 * 27 MB, 2.5 at 2 501, 75 MB; a step at its 43 MiB cache put validation's n = 2 000,
 * 48 MB, at 2.7 against 1.1 measured, +141 %; matrix_loop_add +72 %; session 61).
 * An OpenCL device on the host's cores (PoCL: kf->host_dev) has the pool's caches and
 * takes the same long holes, on first blocks where its partial jobs are trusted
 * (part_check), whatever the kernel's time left unless the run's limit is near: here
 * ocl0's matrix_mul was fitted towards r_miss past 43 MiB from points at n = 1 501 and
 * 2 501 and validated -60 % at n = 2 000, matrix_loop_add's step +122 % (session 62). */
#define KNEE_SPAN 1.6
#define KNEE_POINTS 2
#define KNEE_JOB_MAX_S 0.03
/* Knees under a MiB are the fit bending a fixed cost, not a cache's spill (the H100 host's
 * pool: manoeuvre 0.013 MiB, last_chance 0.007, cpa_pairs 0.078): points there cost its
 * CPU section 1-2 s (15.6-15.7 s against 13.2-14.8 s in sessions 58-59) and no accuracy. */
#define KNEE_MIN_WS (1024.0 * 1024.0)
static rtm_status_t knee_point(kfit_t *kf, uint64_t seed, kpoint_t *pts, int64_t *keys,
                               uint32_t *n, uint32_t max)
{
    rtm_status_t st = RTM_OK;
    for (int added = 0; st == RTM_OK && added < KNEE_POINTS; added++) {
        kfit_out_t o;
        if (*n >= max || *n < 3 || kf->kern->n_keys == 0)
            break;
        if (!fit_so_far(pts, *n, kf->cache, &o) || !(o.r_big > 0 || o.r_miss > 0) ||
            !(o.knee >= KNEE_MIN_WS) || (o.knee == kf->cache && !(kf->cpu && o.r_big > 0)))
            break;
        int lo = -1, hi = -1;
        for (uint32_t i = 0; i < *n; i++) {
            if (pts[i].ws < o.knee && (lo < 0 || pts[i].ws > pts[lo].ws))
                lo = (int)i;
            if (pts[i].ws > o.knee && (hi < 0 || pts[i].ws < pts[hi].ws))
                hi = (int)i;
        }
        if (lo < 0 || hi < 0 || !(pts[hi].ws > KNEE_SPAN * pts[lo].ws))
            break;
        const bool short_job = !pts[lo].part && !pts[hi].part &&
                               sqrt(pts[lo].t * pts[hi].t) <= KNEE_JOB_MAX_S;
        if (!short_job && !kf->cpu && !kf->host_dev)
            break;
        /* a host device's partial point whatever the kernel's time left (its budget is
         * a share of a CPU section that its long sizes always overrun), unless the run's
         * limit is near */
        if (rtm_calib_now() > kf->deadline && (short_job || !kf->host_dev || kf->squeeze))
            break;
        const uint32_t before = *n;
        st = hole_point(kf, seed + (uint64_t)added, pts, keys, n, (uint32_t)lo, (uint32_t)hi,
                        false, !short_job);
        if (*n == before)
            break; /* no size in the hole, or too long a job there */
    }
    return st;
}

#define SHAPE_POINTS 5
#define SHAPE_RESID 0.15
#define SHAPE_HOLES 2

/* The holes in time between neighbours in time (by_time) whose longer time is at the
 * larger key, widest first: up to max pairs into lo[], hi[]; how many. */
static uint32_t time_holes(const kpoint_t *pts, const int64_t *keys, uint32_t n, uint32_t *lo,
                           uint32_t *hi, uint32_t max)
{
    uint32_t idx[16] = {0}, out = 0; /* zeroed for cppcheck */
    const uint32_t m = by_time(pts, n, NULL, idx);
    for (uint32_t i = 0; i + 1 < m; i++) {
        const uint32_t a = idx[i], b = idx[i + 1];
        if (!(pts[a].t > 0) || !(pts[b].t > pts[a].t) || !(keys[b] > keys[a]))
            continue;
        const double w = pts[b].t / pts[a].t;
        uint32_t at = out < max ? out++ : max; /* insertion into the widest `max` */
        for (; at > 0 && pts[hi[at - 1]].t / pts[lo[at - 1]].t < w; at--)
            if (at < max) {
                lo[at] = lo[at - 1];
                hi[at] = hi[at - 1];
            }
        if (at < max) {
            lo[at] = a;
            hi[at] = b;
        }
    }
    return out;
}

/* Points for the resident form (fit_kernel) on a GPU-like device, whatever the kernel's
 * time left: while its points are too few for that form with t_fixed (SHAPE_POINTS:
 * k + 2 = 5), their groups straddle the form's first rung, and the best fit through them
 * misses one by more than SHAPE_RESID: one point in the widest hole in time between two
 * of them (hole_point, its program built on the path where it has its own; the first
 * time, the programs of the holes it will need built together, kf->prebuild: on the H100
 * host one build on the path took 0.6-0.7 s). The H100's cpa_pairs at wg 64 had three
 * points (131, 5301, 16001 ships: one group's chain, then 6 and 33 groups a compute
 * unit), which the device's resident fitted 26-30 % apart; with four (session 51: 131,
 * 4401, 8401, 16001) r and t_fixed still beat r and R alone by the fixed time the small
 * point holds (20.8 % apart, validation +17 %). */
static rtm_status_t shape_points(kfit_t *kf, uint64_t seed, kpoint_t *pts, int64_t *keys,
                                 uint32_t *n, uint32_t max)
{
    rtm_status_t st = RTM_OK;
    bool ahead = false;
    while (st == RTM_OK && *n < max && *n >= 2 && *n < SHAPE_POINTS && kf->groups &&
           kf->kpred && kf->kern->n_keys > 0 && resident_at(pts, *n, 1) > 0) {
        kfit_out_t o;
        if (fit_so_far(pts, *n, kf->cache, &o) && o.resid <= SHAPE_RESID)
            break;
        uint32_t lo[SHAPE_HOLES], hi[SHAPE_HOLES];
        const uint32_t want = SHAPE_POINTS - *n < SHAPE_HOLES ? SHAPE_POINTS - *n : SHAPE_HOLES;
        const uint32_t holes = time_holes(pts, keys, *n, lo, hi, want);
        if (holes == 0)
            break;
        if (!ahead && holes > 1 && kf->prebuild) {
            int64_t ks[SHAPE_HOLES], sizes[SHAPE_HOLES][RTM_SIZE_KEYS_MAX];
            uint32_t m = 0;
            for (uint32_t h = 0; h < holes; h++)
                if ((ks[m] = hole_size(kf, pts, keys, *n, lo[h], hi[h], sizes[m])) >= 0)
                    m++;
            kf->prebuild(kf->ctx, kf, ks, (const int64_t(*)[RTM_SIZE_KEYS_MAX])sizes, m);
        }
        ahead = true;
        const uint32_t before = *n;
        st = hole_point(kf, seed + *n, pts, keys, n, lo[0], hi[0], true, false);
        if (*n == before)
            break; /* no size in that hole */
    }
    return st;
}

rtm_status_t rtm_calib_kernel_points(cal_t *c, kfit_t *kf, kpoint_t *pts, uint32_t max, uint32_t *n)
{
    int64_t keys[16], size[RTM_SIZE_KEYS_MAX], extra[3];
    bool tgt[16] = {false}; /* point i was measured for a target */
    rtm_status_t st = RTM_OK;
    *n = 0;
    const size_t nt = c->n_targets;
    const uint32_t ne = extra_sizes(c, kf->kern, kf->tune, extra);
    const double top = c->targets[nt - 1];
    size_t order[16] = {0}; /* zeroed for clang-analyzer: it cannot bound c->n_targets */
    (void)rtm_calib_target_order(nt, order, N_OF(order)); /* nt targets, each once */
    /* a squeezed kernel's two points span the targets, its first and last: through the
     * first and middle ones (0.05 and 1.2 ms) the H100's sort fitted r 2.16 ns where its
     * full points gave 8.3 ns past the cache, and validated -48 to -61 % at its largest
     * sizes (session 56) */
    if (kf->squeeze && nt > 2) {
        const size_t mid = order[1];
        order[1] = order[2];
        order[2] = mid;
    }
    const size_t first_extra = nt > 2 ? 3 : nt;
    if (kf->squeeze)
        c->rec->n_squeezed++;
    for (size_t j = 0; j < nt + ne && *n < max && *n < N_OF(keys); j++) {
        const bool late = *n >= 3 && rtm_calib_now() > kf->deadline;
        const bool extra_j = j >= first_extra && j < first_extra + ne;
        if (kf->squeeze && extra_j)
            continue;
        if ((kf->squeeze && *n >= SQUEEZED_POINTS) || (late && !extra_j))
            break;
        int64_t key;
        int reps = REPS;
        uint32_t part = 0; /* blocks per worker of a partial job, 0: the whole job */
        const uint64_t seed = POINT_SEED0 + j;
        if (extra_j) {
            /* an extra size: when it fits, is not too long, and is not within EXTRA_APART
             * of a size measured already (it extends the range, or fills a gap: the
             * H100's top target put matrix_loop_add at n = 861 and 3201 with nothing
             * between, where its cliff is, and the fit had no regime) */
            const int64_t ek = extra[j - first_extra];
            bool apart = true;
            for (uint32_t i = 0; i < *n; i++)
                apart = apart && (kf->cpu ? keys[i] < ek /* the pool: beyond only */
                                          : fabs((double)keys[i] - (double)ek) >
                                                EXTRA_APART * (double)ek);
            rtm_kinst_t k;
            if (!apart || !rtm_calib_size_plan(kf->kern, ek, kf->tune, kf->lim, &k))
                continue;
            double pt = kf->pred(kf->pred_ctx, &k);
            if (!(pt > 0))
                continue;
            /* too long a job: its first blocks, where the executor can run part of one
             * (the H100 host's matrix_mul took 9.4 s a job at n = 3000, and with points
             * up to n = 1673 only its time per operation was 40 % under there) */
            part = 0;
            if (pt > EXTRA_MAX_S) {
                if ((st = part_check(c, kf, pts, keys, *n)) != RTM_OK)
                    break;
                if (!part_for(kf, &k, &pt, &part))
                    continue;
            }
            /* past the kernel's time, only a cheap one (they reach the sizes validation
             * measures: the H100's matrix_mul had no point past its L2 without 3001) */
            if (late && pt * (EXTRA_MIN_REPS + 1) > POINT_BUDGET_S)
                continue;
            key = ek;
            memcpy(size, k.size, sizeof(size));
            const double want = POINT_BUDGET_S / pt;
            reps = want >= REPS ? REPS : want <= EXTRA_MIN_REPS ? EXTRA_MIN_REPS : (int)want;
            if (part && reps > PART_REPS)
                reps = PART_REPS;
        } else {
            const size_t jj = j < first_extra ? j : j - ne;
            /* before the first point (the tuning settled), and again as the first two
             * points re-size the rest */
            if (jj < 3)
                points_ahead(c, kf, order, jj, extra, ne, jj == 0 && !kf->squeeze, pts, keys, *n);
            key = target_key(c, kf, order[jj], pts, keys, *n, size);
            if (key < 0)
                continue;
        }
        kpoint_t pt;
        double per_job = 0;
        st = kernel_point(kf, size, key, seed, reps, part, &pt, &per_job);
        if (st != RTM_OK)
            break;
        keys[*n] = key;
        tgt[*n] = !extra_j;
        pts[(*n)++] = pt;
        /* the largest point so far sizes the next ones (a kernel's time per counted
         * operation drifts with size: padding, caches) */
        bool largest = true;
        for (uint32_t i = 0; i + 1 < *n; i++)
            largest = largest && keys[i] < key;
        const double r_pt = point_r(&pt);
        if (r_pt > 0 && largest)
            *kf->r_est = r_pt;
        /* a job far longer than the targets (instance set-up, a slow CPU twin): the
         * smallest size and one larger one only */
        const bool is_extra = j >= first_extra && j < first_extra + ne;
        if (j >= 1 && !is_extra && per_job > 8.0 * top)
            break;
    }
    /* the smallest size once more, now that the kernel has run a while, the lower of the
     * two kept: a kernel's first point follows its program's build or load, and came out
     * slow as a whole (every repetition) on a device that had idled meanwhile (H100
     * host: the CPU's last_chance at 33 targets 1.886 ms, then 0.17 ms in validation, a
     * fit with t_fixed 1.76 ms and a prediction 11x too long; the H100's sort at n =
     * 131073 0.385 ms one calibration, 0.495 ms another, validation 0.394 ms both); a
     * kernel's only point as well when it is short (rtm_calib_remeasure_wanted) */
    /* a squeezed kernel: its two points, nothing more */
    if (kf->squeeze) {
        sort_by_ws(pts, *n);
        return st;
    }
    if (st == RTM_OK && *n >= 1 && rtm_calib_remeasure_wanted(*n, pts[0].t, pts[0].reps))
        st = remeasure_smallest(kf, pts, keys, *n);
    const uint32_t room = max < N_OF(keys) ? max : (uint32_t)N_OF(keys);
    /* a target missed, or skipped once the kernel's time was spent (on a device where
     * the size runs a program measured already and its jobs are cheap: gap_point) */
    if (st == RTM_OK)
        st = gap_point(kf, POINT_SEED0 + nt + ne, pts, keys, tgt, n, room);
    /* one point past the cache when none is (the sizes chosen by job time all fit in
     * it on a large cache: the fit never saw the regime where the working set spills,
     * and matrix_mul / matrix_loop_add at validation's 2000 and 3000 came out 20-80 %
     * under): the smallest odd size past it, when its job is not too long; measured
     * whatever the kernel's time left, since no other point can stand in for it */
    bool past = false;
    (void)ws_below(pts, *n, kf->cache, &past);
    if (st == RTM_OK && *n > 0 && !past && kf->cache > 0)
        st = cache_point(c, kf, kf->cache, ne > 0, 3 + nt + ne, pts, keys, n, room, "past");
    /* one point at the cache's edge (the smallest odd size whose buffers pass 3/4 of
     * it) on an OpenCL device when a point is past the cache and those below it stop
     * short of a quarter of it: sort on the H100 was measured at n = 430001 (6.9 MiB)
     * and 17000001 with nothing between, and validation's n = 2700000, in the 64 MiB L2,
     * came out 43 % over (the fit had no in-cache point whose work outweighs its
     * launches, and with three points no second regime) */
    const double below = ws_below(pts, *n, kf->cache, &past);
    if (st == RTM_OK && !kf->cpu && past && below > 0 && below < EDGE_FROM * kf->cache)
        st = cache_point(c, kf, EDGE_AT * kf->cache, false, 4 + nt + ne, pts, keys, n, room,
                         "at the edge of");
    if (st == RTM_OK)
        st = shape_points(kf, POINT_SEED0 + 5 + nt + ne, pts, keys, n, room);
    if (st == RTM_OK)
        st = knee_point(kf, POINT_SEED0 + 6 + nt + ne, pts, keys, n, room);
    /* by size, for the fit and its record */
    sort_by_ws(pts, *n);
    return st;
}

/* Columns of the kernel fit: t - b = c0 * 1 + r_lo * a * (1 - h) + r_hi * a * h
 * + r_byte * m, h a point's share of the second regime: 0 below a knee and 1 beyond it
 * (KC_HI, a step), or the share of its buffers beyond the knee, 1 - knee / ws
 * (KC_MISS, gradual: model.c's rtm_model_r_blend). */
enum { KC_FIXED = 1, KC_HI = 2, KC_BYTE = 4, KC_MISS = 8 };

/* Point i's work W at terms x (seconds: the operations at r_lo and r_hi by the share h
 * of the second regime, and the memory term). */
static double point_work(const kpoint_t *p, double h, const double x[4])
{
    return p->a * ((1.0 - h) * x[1] + h * x[2]) + p->m * x[3];
}

/* Weighted least squares (weights 1/t^2: relative error) of each point's line — y_i =
 * t_i - b_i = x0 + W, or where paced[i] y_i = t_i - bp_i = x0 + W / L_i — on the columns
 * in `mask` (the second regime's, r_hi, with KC_HI or KC_MISS: each point's share h[i];
 * without, a is all r_lo's). x gets {c0, r_lo, r_hi, r_byte}; returns the sum of squared
 * relative errors of the model itself at x (the larger line at each point), or INFINITY
 * when singular. */
static double fit_lsq(const kpoint_t *p, uint32_t n, unsigned mask, const double *h,
                      const bool *paced, double x[4])
{
    double A[4][5] = {{0}};
    int cols[4], nc = 0;
    const bool two = (mask & (KC_HI | KC_MISS)) != 0;
    if (mask & KC_FIXED)
        cols[nc++] = 0;
    cols[nc++] = 1;
    if (two)
        cols[nc++] = 2;
    if (mask & KC_BYTE)
        cols[nc++] = 3;
    for (uint32_t i = 0; i < n; i++) {
        const double w = 1.0 / (p[i].t * p[i].t), hi = two ? h[i] : 0.0;
        const double sl = paced[i] ? 1.0 / p[i].L : 1.0;
        const double v[4] = {1.0, sl * p[i].a * (1.0 - hi), sl * p[i].a * hi, sl * p[i].m};
        const double y = p[i].t - (paced[i] ? p[i].bp : p[i].b);
        for (int r = 0; r < nc; r++) {
            for (int q = 0; q < nc; q++)
                A[r][q] += w * v[cols[r]] * v[cols[q]];
            A[r][4] += w * v[cols[r]] * y;
        }
    }
    for (int r = 0; r < nc; r++) { /* Gauss-Jordan, partial pivoting */
        int piv = r;
        for (int q = r + 1; q < nc; q++)
            if (fabs(A[q][r]) > fabs(A[piv][r]))
                piv = q;
        if (!(fabs(A[piv][r]) > 1e-300))
            return INFINITY;
        for (int q = 0; q < 5; q++) {
            const double tmp = A[r][q];
            A[r][q] = A[piv][q];
            A[piv][q] = tmp;
        }
        for (int q = 0; q < nc; q++) {
            if (q == r)
                continue;
            const double f = A[q][r] / A[r][r];
            for (int m = 0; m < 5; m++)
                A[q][m] -= f * A[r][m];
        }
    }
    x[0] = x[1] = x[2] = x[3] = 0.0;
    for (int r = 0; r < nc; r++)
        x[cols[r]] = A[r][4] / A[r][r];
    if (!two)
        x[2] = x[1];
    double sse = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double pred = x[0] + point_time(&p[i], point_work(&p[i], two ? h[i] : 0.0, x));
        const double e = (pred - p[i].t) / p[i].t;
        sse += e * e;
    }
    return sse;
}

/* fit_lsq through the model's two lines: each point on the line its terms put it (the
 * larger), found by refitting until no point changes line (at most 8 rounds), from each
 * point on the line its own time puts it and from every point device-bound; the terms
 * with the least error of any round. h[i] is 0 at every point without a second regime
 * (fit_form). */
static double fit_lines(const kpoint_t *p, uint32_t n, unsigned mask, const double *h,
                        double x[4])
{
    bool paced[16] = {false};
    double best = INFINITY, y[4] = {0, 0, 0, 0};
    for (int start = 0; start < 2; start++) {
        for (uint32_t i = 0; i < n && i < N_OF(paced); i++)
            paced[i] = start == 0 && point_paced(&p[i], p[i].a * point_r(&p[i]));
        for (int round = 0; round < 8; round++) {
            const double sse = fit_lsq(p, n, mask, h, paced, y);
            if (!(sse < INFINITY))
                break;
            if (sse < best) {
                best = sse;
                memcpy(x, y, sizeof(y));
            }
            bool moved = false;
            for (uint32_t i = 0; i < n && i < N_OF(paced); i++) {
                const bool now = point_paced(&p[i], point_work(&p[i], h[i], y));
                moved = moved || now != paced[i];
                paced[i] = now;
            }
            if (!moved)
                break;
        }
    }
    return best;
}


/* One candidate form; INFINITY when it does not fit (a negative or zero term). A second
 * regime starts at point `split`: its knee at the cache when the cache lies between the
 * two sizes (the regime change is the working set leaving it), else halfway
 * (geometrically). */
static double fit_form(const kpoint_t *p, uint32_t n, unsigned mask, uint32_t split,
                       double cache, kfit_out_t *o)
{
    const bool step = (mask & KC_HI) != 0, miss = (mask & KC_MISS) != 0;
    double knee = 0.0, h[16] = {0};
    if (step || miss) {
        knee = cache > 0 && p[split - 1].ws <= cache && cache < p[split].ws
                   ? cache
                   : sqrt(p[split - 1].ws * p[split].ws);
        for (uint32_t i = 0; i < n && i < N_OF(h); i++)
            h[i] = step ? (i >= split ? 1.0 : 0.0)
                        : rtm_model_r_blend(0.0, 1.0, knee, p[i].ws);
    }
    double x[4] = {0, 0, 0, 0};
    const double sse = fit_lines(p, n, mask, h, x);
    if (!(sse < INFINITY) || x[0] < 0 || !(x[1] > 0) || !(x[2] > 0) || x[3] < 0)
        return INFINITY;
    if ((step || miss) && (x[2] > RTM_CALIB_REGIME_MAX * x[1] || x[2] * RTM_CALIB_REGIME_MAX < x[1]))
        return INFINITY; /* not a cache's regime (calibint.h) */
    double worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        const double pred = x[0] + point_time(&p[i], point_work(&p[i], h[i], x));
        worst = fmax(worst, fabs((pred - p[i].t) / p[i].t));
    }
    *o = (kfit_out_t){x[1], x[0], step ? x[2] : 0.0, miss ? x[2] : 0.0, knee, x[3], 0.0, 0.0,
                      worst, 0.0};
    return sse;
}

/* The resident groups a point's work is scaled to in the ladder of fit_kernel's
 * resident form: the device's times 2^(i / RES_STEPS), i = 1 .. RES_LADDER. */
#define RES_STEPS 4
#define RES_LADDER 28

/* The resident form's R at ladder step i of points p[0..n): 0 where it does not apply
 * (a point without its groups, points taken at different residents, or R at or beyond
 * the busiest point's groups, where every point would be one group's chain). */
static double resident_at(const kpoint_t *p, uint32_t n, int i)
{
    double gmax = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!(p[k].g > 0) || !(p[k].res > 0) || p[k].res != p[0].res)
            return 0.0;
        gmax = fmax(gmax, p[k].g);
    }
    const double R = p[0].res * exp2((double)i / RES_STEPS);
    return R < gmax ? R : 0.0;
}

/* fit_kernel's forms through points q (sorted by ws), their work scaled by one nonlinear
 * term where `scaled` (a power or a resident: r and t_fixed only, one term more, k + 2
 * points); the best score so far in *best and its terms in *o, improved here; true when
 * it was. */
static bool try_forms(const kpoint_t *q, uint32_t n, double cache, bool scaled, double *best,
                      kfit_out_t *o)
{
    /* (the gradual regime before the step: on a tie — one point beyond the knee fits
     * either exactly — a continuous time per operation) */
    static const unsigned forms[] = {0,       KC_FIXED,           KC_BYTE, KC_FIXED | KC_BYTE,
                                     KC_MISS, KC_FIXED | KC_MISS, KC_HI,   KC_FIXED | KC_HI};
    bool better = false;
    for (size_t f = 0; f < N_OF(forms); f++) {
        if (scaled && (forms[f] & (KC_HI | KC_MISS | KC_BYTE)))
            continue; /* the power or the resident alone or with the fixed term */
        const bool hi = (forms[f] & (KC_HI | KC_MISS)) != 0; /* a second regime */
        const unsigned k =
            1u + !!(forms[f] & KC_FIXED) + hi + !!(forms[f] & KC_BYTE) + (scaled ? 1u : 0u);
        /* r alone: 1 point; the linear terms (fixed, memory): k + 1; a regime, an exponent
         * or a resident: k + 2 (two degrees of freedom: a knee or a power through three
         * noisy points is not a measurement) — but a regime whose knee is the cache (it
         * lies between the two sizes) has no free knee: k + 1 */
        const unsigned need = k == 1 ? 1u : !scaled && !hi ? k + 1 : k + 2;
        if (n < need && !(hi && n + 1 >= need))
            continue;
        const uint32_t s_lo = hi ? 2 : n, s_hi = hi ? n - 1 : n;
        for (uint32_t s = s_lo; s <= s_hi; s++) {
            if (hi && !(q[s].ws > q[s - 1].ws))
                continue;
            const bool at_cache = hi && cache > 0 && q[s - 1].ws <= cache && cache < q[s].ws;
            if (n < need && !at_cache)
                continue;
            kfit_out_t cand = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
            const double sse = fit_form(q, n, forms[f], s, cache, &cand);
            /* each extra term must halve the error: compare sse * 2^k (two fits equal but
             * for rounding tie — exact ones, or the two regimes' forms with one point
             * beyond the knee: rounding must not choose) */
            const double score = ldexp(sse, (int)k);
            if (score + 1e-20 < *best * (1.0 - 1e-9)) {
                *best = score;
                *o = cand;
                better = true;
            }
        }
    }
    return better;
}

/* Powers of fit_kernel's exponent form (p_ops = 0.05 * i, i = 1 .. POW_LADDER). */
#define POW_LADDER 12

/* Fits the kernel's terms: r alone, then with a fixed term t_fixed, a memory term
 * r_byte (time per byte of bytes_dev), both, a second regime beyond a knee between two
 * sizes — at the cache size when the cache lies between them, `cache` the executor's,
 * 0 = unknown — at least two points below it: a step to r_big, or a gradual one towards
 * r_miss by the share of the buffers beyond the knee, whichever fits better, its r within
 * RTM_CALIB_REGIME_MAX of r_op —, or an
 * operations' time growing as
 * (x / x_ref)^p_ops (p_ops in 0.05 .. 0.6 by 0.05, x_ref = the largest point's count),
 * alone or with t_fixed, or (GPU-like devices, points with their groups: kpoint_t g) the
 * kernel's own resident groups R, alone or with t_fixed: each point's work scaled from
 * the device's resident (res, a sharp corner) to R (a smooth one), a * sqrt(R^2 + g^2) /
 * max(res, g) (model.c's waves term, rtm_model_occupancy),
 * R on a ladder of quarter octaves above res and below the busiest point's g. A form with
 * k terms needs k + 1 points when it is linear (r, t_fixed, r_byte), k + 2 with a knee,
 * an exponent or a resident, and is kept over a simpler one only when it halves the
 * squared relative error per extra term; every term must be >= 0 and r > 0. */
static bool fit_kernel(const kpoint_t *p, uint32_t n, double cache, kfit_out_t *o)
{
    double best = INFINITY;
    *o = (kfit_out_t){0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    kpoint_t q[16];
    if (n > N_OF(q))
        n = N_OF(q);
    double x_ref = 0;
    for (uint32_t i = 0; i < n; i++)
        x_ref = fmax(x_ref, p[i].x);
    /* candidate c: the points as they are (0), then each power (1 .. POW_LADDER), then
     * each resident of the ladder */
    for (int c = 0; c <= POW_LADDER + RES_LADDER; c++) {
        const double pw = c <= POW_LADDER ? 0.05 * c : 0.0;
        const double R = c > POW_LADDER ? resident_at(p, n, c - POW_LADDER) : 0.0;
        if (c > POW_LADDER && !(R > 0))
            break; /* past the busiest point's groups, or no groups */
        bool ok = !(pw > 0) || x_ref > 0;
        for (uint32_t i = 0; ok && i < n; i++) {
            q[i] = p[i];
            if (pw > 0) {
                ok = p[i].x > 0;
                q[i].a = p[i].a * pow(p[i].x / x_ref, pw);
            } else if (R > 0) {
                q[i].a = p[i].a * R * rtm_model_occupancy(p[i].g, R, true) /
                         (p[i].res * rtm_model_occupancy(p[i].g, p[i].res, false));
            }
        }
        if (!ok) {
            c = POW_LADDER; /* no power applies: on to the residents */
            continue;
        }
        if (try_forms(q, n, cache, c > 0, &best, o)) {
            o->p_ops = pw;
            o->x_ref = pw > 0 ? x_ref : 0.0;
            o->resident = R;
        }
    }
    return best < INFINITY;
}

bool rtm_calib_fit(const rtm_calib_fitpt_t *p, uint32_t n, double cache, rtm_calib_fit_t *out)
{
    kpoint_t q[16] = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    if (n > N_OF(q))
        n = N_OF(q);
    for (uint32_t i = 0; i < n; i++)
        q[i] = (kpoint_t){0,   p[i].a, p[i].b, p[i].ws, p[i].m, p[i].x, p[i].t, 0.0, REPS, 0,
                          p[i].L, p[i].L > 1.0 ? p[i].bp : p[i].b, p[i].g, p[i].res, 0.0};
    kfit_out_t o;
    const bool ok = fit_kernel(q, n, cache, &o);
    *out = (rtm_calib_fit_t){o.r,     o.t_fixed, o.r_big, o.r_miss, o.knee,
                             o.r_byte, o.p_ops,   o.x_ref, o.resid, o.resident};
    return ok;
}

/* Fits and stores one kernel's points: ktune, figure, note. */
void rtm_calib_kernel_store(cal_t *c, const char *owner, const rtm_kernel_t *kern, rtm_tune_t tune,
                            const kpoint_t *pts, uint32_t n, double cache, double r_fallback,
                            const char *r_what, rtm_board_ktune_t *kt, rtm_calib_fig_t *f)
{
    kfit_out_t o = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    if (!fit_kernel(pts, n, cache, &o)) {
        o = (kfit_out_t){r_fallback, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        cal_fallback(c, "%s: %s: no fit with every term >= 0 through its %u point(s): r_op = "
                        "%.4gns (%s), no other term",
                     owner, kern->name, n, r_fallback * 1e9, r_what);
    }
    *kt = (rtm_board_ktune_t){.have = true, .tune = tune, .r_op = o.r, .mem_rate = 0.0,
                              .t_fixed = o.t_fixed, .r_big = o.r_big, .r_miss = o.r_miss,
                              .knee = o.knee,
                              .r_byte = o.r_byte, .p_ops = o.p_ops, .x_ref = o.x_ref,
                              .resident = o.resident};
    double spread = 0;
    uint32_t samples = 0;
    for (uint32_t i = 0; i < n; i++) {
        spread = fmax(spread, pts[i].spread);
        samples += (uint32_t)pts[i].reps;
    }
    f->median = o.r;
    f->spread = spread;
    f->resid = o.resid;
    f->n = samples;
    f->kept = f->n;
    char ks[384];
    size_t used = 0;
    ks[0] = '\0';
    for (uint32_t i = 0; i < n; i++)
        (void)rtm_calib_appendf(ks, sizeof(ks), &used, "%s%lld:%.4gms%s%s", i ? " " : "",
                                (long long)pts[i].key, pts[i].t * 1e3,
                                pts[i].part ? "(first blocks)" : "",
                                pts[i].reps < REPS ? "(few reps)" : "");
    char big[128] = "";
    size_t used_b = 0;
    if (o.r_byte > 0)
        (void)rtm_calib_appendf(big, sizeof(big), &used_b, ", r_byte %.4gns/KiB",
                                o.r_byte * 1e9 * KIB);
    if (o.r_big > 0)
        (void)rtm_calib_appendf(big, sizeof(big), &used_b, ", r_big %.4gns beyond %.4gMiB",
                                o.r_big * 1e9, o.knee / MIB);
    if (o.r_miss > 0)
        (void)rtm_calib_appendf(big, sizeof(big), &used_b, ", towards r_miss %.4gns beyond %.4gMiB",
                                o.r_miss * 1e9, o.knee / MIB);
    if (o.p_ops > 0)
        (void)rtm_calib_appendf(big, sizeof(big), &used_b, ", ops^%.2f", 1.0 + o.p_ops);
    if (o.resident > 0)
        (void)rtm_calib_appendf(big, sizeof(big), &used_b, ", resident %.3g", o.resident);
    cal_note(c, "%s: %s wg %u vec %u, at %s=%s -> r_op %.4gns, t_fixed %.4gus%s (fit residual "
                "%.1f%%)",
             owner, kern->name, tune.wg, tune.vec, kern->n_keys ? kern->keys[0].name : "-", ks,
             o.r * 1e9, o.t_fixed * 1e6, big, o.resid * 100);
    cal_say(c, "%s: %s r_op %.4gns t_fixed %.4gus%s wg %u vec %u (%u sizes, residual %.1f%%)",
            owner, kern->name, o.r * 1e9, o.t_fixed * 1e6, big, tune.wg, tune.vec, n,
            o.resid * 100);
}

double rtm_calib_pace_keep(double t_next, double bound)
{
    return bound > 0.0 && t_next >= RTM_CALIB_PACE_OUTLIER * bound ? bound : t_next;
}

bool rtm_calib_remeasure_wanted(uint32_t n, double t, int reps)
{
    return n >= 2 || (n == 1 && t * (double)(reps + 1) < RTM_CALIB_REMEASURE_ONE_S);
}

/* How far point q lies from the key (key > 0) or the job time t, in log. */
static double point_off(const kpoint_t *q, int64_t key, double t)
{
    return key > 0 ? fabs(log((double)q->key / (double)key)) : fabs(log(q->t / t));
}

const kpoint_t *rtm_calib_point_nearest(const kpoint_t *pts, uint32_t n, int64_t key, double t)
{
    const kpoint_t *p = NULL;
    for (uint32_t i = 0; (key > 0 || t > 0) && i < n; i++)
        if (pts[i].part == 0 && pts[i].t > 0 && pts[i].L <= 1.0 && pts[i].key > 0 &&
            (!p || point_off(&pts[i], key, t) < point_off(p, key, t)))
            p = &pts[i];
    return p;
}

double rtm_calib_factor(cal_t *c, const rtm_kernel_t *kern, const rtm_calib_factor_t *f)
{
    const kpoint_t *p = f->p;
    const double ra = f->pred > f->fixed && f->t > f->fixed ? (f->t - f->fixed) / (f->pred - f->fixed)
                                                            : 0.0;
    const double rp = f->pred_p > f->fixed && p->t > f->fixed
                          ? (p->t - f->fixed) / (f->pred_p - f->fixed)
                          : 0.0;
    const double ratio = rp > 0.0 ? ra / rp : 0.0;
    char what[240];
    snprintf(what, sizeof(what), "%s at %s=%lld took %.4gms (spread %.1f%%, %d jobs), %.4gms by "
             "the odd sizes' fit; the odd point %s=%lld %.4gms against %.4gms",
             f->size_what, kern->keys[0].name, (long long)f->key, f->t * 1e3, f->spread * 100,
             f->reps, f->pred * 1e3, kern->keys[0].name, (long long)p->key, p->t * 1e3,
             f->pred_p * 1e3);
    if (f->st != RTM_OK || !(ratio > f->lo && ratio < f->hi)) {
        cal_fallback(c, "%s: %s: %s not measured (%s; %s): the odd sizes' terms predict them",
                     f->owner, kern->name, f->none_what,
                     f->st != RTM_OK ? rtm_strerror(f->st) : "out of range", what);
        return 0.0;
    }
    const bool keep = f->spread + p->spread < fabs(ratio - 1.0);
    if (keep)
        cal_note(c, "%s: %s: %s %.4f: %s", f->owner, kern->name, f->term, ratio, what);
    else
        cal_note(c, "%s: %s: no %s term: within the spreads, %.4f: %s", f->owner, kern->name,
                 f->term, ratio, what);
    return keep ? ratio : 0.0;
}

const kpoint_t *rtm_calib_point_smallest(const kpoint_t *pts, uint32_t n)
{
    const kpoint_t *p0 = n ? &pts[0] : NULL;
    for (uint32_t i = 1; i < n; i++)
        if (pts[i].ws < p0->ws)
            p0 = &pts[i];
    return p0;
}

int64_t rtm_calib_aligned_key(const cal_t *c, int64_t key)
{
    const int64_t *valid = c->o->quick ? rtm_calib_s0_valid_quick : rtm_calib_s0_valid;
    int64_t k = key - ((key % 16) + 8) % 16;
    while (rtm_calib_key_in(valid, RTM_CALIB_S0_N, k))
        k -= 16;
    return k;
}

int64_t rtm_calib_aligned_sizes(const cal_t *c, const rtm_kernel_t *kern, rtm_tune_t tune,
                                const rtm_calib_lim_t *lim, const kpoint_t *p,
                                const kpoint_t *p0, rtm_kinst_t *k, rtm_kinst_t *kp,
                                rtm_cost_t *cost, rtm_cost_t *cost0)
{
    const int64_t key = rtm_calib_aligned_key(c, p->key);
    rtm_kinst_t k0;
    if (key < 8 || !rtm_calib_size_plan(kern, key, tune, lim, k) ||
        !rtm_calib_size_plan(kern, p->key, tune, lim, kp) ||
        !rtm_calib_size_plan(kern, p0->key, tune, lim, &k0))
        return -1;
    rtm_kinst_cost(k, cost);
    rtm_kinst_cost(&k0, cost0);
    return cost->rows_aligned && k->plan.launches == 1 ? key : -1;
}

/* The least growth of the fitted rate from the smallest point to the aligned size that
 * `aligned` is taken as a share of (below it a plain factor). */
#define ALIGNED_GROWTH_MIN 0.1
/* The share kept at least: aligned rows never run below the rate at the smallest point. */
#define ALIGNED_SHARE_MIN 0.01

void rtm_calib_aligned_share(double F, double R, double R0, double *aligned, double *aligned_r)
{
    *aligned = *aligned_r = 0.0;
    if (!(F > 0.0) || !(R > 0.0) || !(R0 > 0.0))
        return;
    if (R > R0 * (1.0 + ALIGNED_GROWTH_MIN)) {
        *aligned = fmin(fmax((F * R - R0) / (R - R0), ALIGNED_SHARE_MIN), RTM_BOARD_ALIGNED_MAX * 0.99);
        *aligned_r = R0;
    } else if (F > RTM_BOARD_ALIGNED_MIN && F < RTM_BOARD_ALIGNED_MAX) {
        *aligned = F;
    }
}

void rtm_calib_aligned_terms(cal_t *c, const char *who, const rtm_kernel_t *kern, double F,
                             double R, double R0, int64_t key0, int64_t key,
                             rtm_board_ktune_t *kt)
{
    rtm_calib_aligned_share(F, R, R0, &kt->aligned, &kt->aligned_r);
    if (kt->aligned_r > 0.0)
        cal_note(c, "%s: %s: aligned rows keep %.4f of the fitted rate's growth above "
                    "aligned_r %.4gns (its rate at %s=%lld; %.4gns at %s=%lld)",
                 who, kern->name, kt->aligned, R0 * 1e9, kern->keys[0].name, (long long)key0,
                 R * 1e9, kern->keys[0].name, (long long)key);
}
