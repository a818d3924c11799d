/* matrix_add.c — descriptor and CPU twin of matrix_add.cl (seed 000: C = A + B).
 *
 * Size key `n`: the matrices are n x n floats. A block covers wg * vec consecutive
 * elements; buffers are padded up to whole blocks (padding is zero and ignored).
 * Cost counts, from the kernel body: per element one load of A, one of B (unit-stride
 * array class), one add, one store; Z = 4 operations per work-item per vector lane plus
 * 2 index operations (blk * RTM_WG + lid). Bytes: 8 in, 4 out per element. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { A, B, C };

static uint64_t elems(const rtm_kinst_t *k) { return (uint64_t)k->size[0] * (uint64_t)k->size[0]; }
static uint32_t block_elems(const rtm_kinst_t *k) { return k->tune.wg * k->tune.vec; }
static uint32_t blocks(const rtm_kinst_t *k)
{
    return (uint32_t)((elems(k) + block_elems(k) - 1) / block_elems(k));
}

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const size_t bytes = (size_t)blocks(k) * block_elems(k) * sizeof(float);
    p->n_bufs = 3;
    p->buf[A] = (rtm_bufspec_t){bytes, RTM_BUF_IN};
    p->buf[B] = (rtm_bufspec_t){bytes, RTM_BUF_IN};
    p->buf[C] = (rtm_bufspec_t){bytes, RTM_BUF_OUT};
    p->launches = 1;
    p->blocks_max = blocks(k);
    return RTM_OK;
}

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    out->entry = 0;
    out->blocks = blocks(k);
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)k;
    (void)l;
    for (uint32_t i = 0; i < 3; i++)
        out[i] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = i};
    return 3;
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    rtm_rng_t r;
    rtm_rng_seed(&r, seed);
    const size_t n = k->plan.buf[A].bytes / sizeof(float);
    float *a = k->host[A], *b = k->host[B];
    for (size_t i = 0; i < n; i++) {
        a[i] = i < elems(k) ? (float)rtm_rng_uniform(&r, -1.0, 1.0) : 0.0f;
        b[i] = i < elems(k) ? (float)rtm_rng_uniform(&r, -1.0, 1.0) : 0.0f;
    }
    memset(k->host[C], 0, k->plan.buf[C].bytes);
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const float *a = k->host[A], *b = k->host[B];
    float *c = k->host[C];
    const size_t lo = (size_t)blk * block_elems(k), hi = lo + block_elems(k);
    for (size_t i = lo; i < hi; i++)
        c[i] = a[i] + b[i];
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = (double)elems(k);
    memset(c, 0, sizeof(*c));
    c->li = n;
    c->z[RTM_LOC_UNIT] = 3.0;   /* load A, load B, store C */
    c->z[RTM_LOC_SCALAR] = 1.0; /* add */
    c->Z = 4.0 + 2.0 / k->tune.vec;
    c->md = 2.0;
    c->bytes_in = 8.0 * n;
    c->bytes_out = 4.0 * n;
    c->bytes_dev = 12.0 * n;
    c->launches = 1;
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    return rtm_compare_floats(x->host[C], y->host[C], (size_t)elems(x), 0.0f, why, len);
}

/* More, smaller blocks: halve the vector width, then the work-group size (down to 32).
 * Every element is computed the same way whatever the blocking. */
static uint32_t split(rtm_kinst_t *k, uint32_t factor)
{
    uint32_t f = 1;
    while (f * 2 <= factor && (k->tune.vec > 1 || k->tune.wg > 32)) {
        if (k->tune.vec > 1)
            k->tune.vec /= 2;
        else
            k->tune.wg /= 2;
        f *= 2;
    }
    return f;
}

const rtm_kernel_t rtm_kernel_matrix_add = {
    .name = "matrix_add",
    .source = "matrix_add.cl",
    .entries = {"matrix_add", NULL},
    .keys = {{"n", 1, 16384, 1000, "matrix side (n x n floats)"}},
    .n_keys = 1,
    .vec_allowed = (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16),
    .tune_default = {256, 1},
    .plan = plan,
    .launch = launch,
    .args = args,
    .fill = fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = compare,
    .split = split,
};
