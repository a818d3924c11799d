/* seed000.h — shared host-side pieces of the seed-000 square-matrix kernels whose
 * work-items each own one output element (matrix_mov, matrix_loop_add, matrix_mul).
 *
 * Size key `n` (matrices n x n floats, key index 0). A block is RTM_WG work-items with
 * global ids g = blk * wg + lid; g < n*n owns element (tx, ty) = (g % n, g / n). The
 * buffers hold exactly n*n floats: the tail block's surplus work-items do nothing.
 * Buffers: A (IN), then B (IN) when the kernel has one, then C (OUT) last. */
#ifndef RTM_KERNELS_SEED000_H
#define RTM_KERNELS_SEED000_H

#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

static inline uint32_t s0_n(const rtm_kinst_t *k) { return (uint32_t)k->size[0]; }
static inline uint64_t s0_elems(const rtm_kinst_t *k) { return (uint64_t)s0_n(k) * s0_n(k); }
static inline uint32_t s0_blocks(const rtm_kinst_t *k)
{
    return (uint32_t)((s0_elems(k) + k->tune.wg - 1) / k->tune.wg);
}

/* Plans `inputs` input matrices and one output matrix (the last buffer). */
static inline rtm_status_t s0_plan(const rtm_kinst_t *k, rtm_kplan_t *p, uint32_t inputs)
{
    const size_t bytes = (size_t)s0_elems(k) * sizeof(float);
    p->n_bufs = inputs + 1;
    for (uint32_t i = 0; i < inputs; i++)
        p->buf[i] = (rtm_bufspec_t){bytes, RTM_BUF_IN};
    p->buf[inputs] = (rtm_bufspec_t){bytes, RTM_BUF_OUT};
    p->launches = 1;
    p->blocks_max = s0_blocks(k);
    return RTM_OK;
}

/* Buffers 0..n_bufs-1 in order, then the uint n (one launch: `l` is 0). */
static inline uint32_t s0_args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)l;
    uint32_t i = 0;
    for (; i < k->plan.n_bufs; i++)
        out[i] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = i};
    const uint32_t n = s0_n(k);
    out[i] = (rtm_karg_t){.kind = RTM_KARG_VALUE, .bytes = sizeof(n)};
    memcpy(out[i].value, &n, sizeof(n));
    return i + 1;
}

/* Inputs uniform in [-1, 1), output zeroed. */
static inline void s0_fill(rtm_kinst_t *k, uint64_t seed)
{
    rtm_rng_t r;
    rtm_rng_seed(&r, seed);
    const uint32_t last = k->plan.n_bufs - 1;
    for (uint32_t b = 0; b < last; b++) {
        float *x = k->host[b];
        for (uint64_t i = 0; i < s0_elems(k); i++)
            x[i] = (float)rtm_rng_uniform(&r, -1.0, 1.0);
    }
    memset(k->host[last], 0, k->plan.buf[last].bytes);
}

/* First and one-past-last global id of block `blk` that own an element. */
static inline void s0_range(const rtm_kinst_t *k, uint32_t blk, uint64_t *lo, uint64_t *hi)
{
    *lo = (uint64_t)blk * k->tune.wg;
    *hi = *lo + k->tune.wg;
    if (*hi > s0_elems(k))
        *hi = s0_elems(k);
}

static inline size_t s0_compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    const uint32_t c = x->plan.n_bufs - 1;
    return rtm_compare_floats(x->host[c], y->host[c], (size_t)s0_elems(x), 0.0f, why, len);
}

/* Cost counts of the two-input loop kernels (matrix_loop_add, matrix_mul): n^3 steps, each
 * a row load of A, a column load of B and two arithmetic operations; see their files.
 * rows_aligned: n a multiple of 8 floats, so that every row of B starts on a 32-byte
 * sector and a warp's 32 consecutive columns touch 4 sectors, not 5 (H100, session 36:
 * 9-14 % less time per step at n = 1504, 2008, 3016 than at 1501, 2001, 3001).
 * stride_bytes, stride_walk: the CPU twin walks B's column (4n bytes a step, n steps)
 * and the next work-item reads the same lines; where the stride folds those n lines onto
 * too few sets of a core's L1 they miss (the 2-vCPU development machine, 48 KiB 12-way:
 * matrix_loop_add 1.4-1.85x per step at n = 128, 256, 320, 384, 448, 512, 576 against
 * their neighbours +-8; matrix_mul, bound by its multiply-add chain, 0.97-1.01x). */
static inline void s0_cost_rowcol(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = s0_n(k);
    memset(c, 0, sizeof(*c));
    c->li = n * n * n;
    c->z[RTM_LOC_UNIT] = 1.0;
    c->z[RTM_LOC_STRIDED] = 1.0;
    c->z[RTM_LOC_SCALAR] = 2.0;
    c->Z = 8.0 + 7.0 / n;
    c->md = 2.0 * n;
    c->bytes_in = 8.0 * n * n;
    c->bytes_out = 4.0 * n * n;
    c->bytes_dev = 4.0 * (n * n * n / k->tune.wg + n * n * n) + 4.0 * n * n;
    c->launches = 1;
    c->rows_aligned = s0_n(k) % 8 == 0;
    c->stride_bytes = 4.0 * n; /* B's column: a row of B a step, n steps */
    c->stride_walk = n;
}

/* The per-work-item loop of the loop kernels' CPU twins (matrix_mov, matrix_loop_add,
 * matrix_mul): for every global id of block `blk`, tx/ty its column and row, `BODY` runs
 * with `n` in scope. A macro, not a function pointer, so each twin's inner loop compiles
 * as the straight loop it is (the CPU model's rates are measured on it). */
#define S0_FOR_ITEMS(k, blk, BODY)                                                             \
    do {                                                                                       \
        const uint64_t n = s0_n(k);                                                            \
        uint64_t lo_, hi_;                                                                     \
        s0_range((k), (blk), &lo_, &hi_);                                                      \
        for (uint64_t g_ = lo_; n != 0 && g_ < hi_; g_++) {                                    \
            const uint64_t tx = g_ % n, ty = g_ / n;                                           \
            BODY                                                                               \
        }                                                                                      \
    } while (0)

/* The descriptor of a seed-000 square-matrix kernel named NAME (file NAME.cl, entry NAME)
 * with the given plan, twin and cost functions. */
#define S0_KERNEL(NAME, PLAN, CPU_BLOCK, COST)                                                 \
    const rtm_kernel_t rtm_kernel_##NAME = {                                                   \
        .name = #NAME,                                                                         \
        .source = #NAME ".cl",                                                                 \
        .entries = {#NAME, NULL},                                                              \
        .keys = {{"n", 1, 16384, 1000, "matrix side (n x n floats)"}},                         \
        .n_keys = 1,                                                                           \
        .vec_allowed = 1u << 1,                                                                \
        .tune_default = {256, 1},                                                              \
        .plan = PLAN,                                                                          \
        .launch = rtm_kernel_launch_one,                                                                   \
        .args = s0_args,                                                                       \
        .fill = s0_fill,                                                                       \
        .cpu_block = CPU_BLOCK,                                                                \
        .cost = COST,                                                                          \
        .compare = s0_compare,                                                                 \
    }

#endif
