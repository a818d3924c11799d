/* matrix_ew.h — shared host-side pieces of the seed-000 element-wise kernels
 * C = f(A, B) over n x n floats (matrix_add, matrix_add3).
 *
 * Size key `n` (key index 0). Buffers: 0 A (IN), 1 B (IN), 2 C (OUT). A block covers
 * wg * items * vec consecutive elements (items = k->items, default 1: the seed-000
 * kernel, one vector per work-item; -DRTM_ITEMS); buffers are padded up to whole blocks
 * (padding is zero and ignored), so the kernels have no tail. Each kernel keeps only its
 * own element operation (cpu_block) and cost counts. */
#ifndef RTM_KERNELS_MATRIX_EW_H
#define RTM_KERNELS_MATRIX_EW_H

#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { EW_A, EW_B, EW_C };

static inline uint64_t ew_elems(const rtm_kinst_t *k) { return (uint64_t)k->size[0] * (uint64_t)k->size[0]; }
static inline uint32_t ew_items(const rtm_kinst_t *k) { return k->items ? k->items : 1u; }
static inline uint32_t ew_block_elems(const rtm_kinst_t *k)
{
    return k->tune.wg * k->tune.vec * ew_items(k);
}
/* GPU index operations per vector lane: blk * (wg * items) + lid per work-item (2), and
 * + j * wg for each further item (1), over the items * vec lanes of a work-item. */
static inline double ew_index_ops(const rtm_kinst_t *k)
{
    const double items = ew_items(k);
    return (2.0 + (items - 1.0)) / (items * k->tune.vec);
}
static inline uint32_t ew_blocks(const rtm_kinst_t *k)
{
    return (uint32_t)((ew_elems(k) + ew_block_elems(k) - 1) / ew_block_elems(k));
}

static inline rtm_status_t ew_plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    if (k->items > RTM_ITEMS_MAX)
        return RTM_E_RANGE;
    const size_t bytes = (size_t)ew_blocks(k) * ew_block_elems(k) * sizeof(float);
    p->n_bufs = 3;
    p->buf[EW_A] = (rtm_bufspec_t){bytes, RTM_BUF_IN};
    p->buf[EW_B] = (rtm_bufspec_t){bytes, RTM_BUF_IN};
    p->buf[EW_C] = (rtm_bufspec_t){bytes, RTM_BUF_OUT};
    p->launches = 1;
    p->blocks_max = ew_blocks(k);
    return RTM_OK;
}

static inline void ew_launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    out->entry = 0;
    out->blocks = ew_blocks(k);
}

static inline uint32_t ew_args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)k;
    (void)l;
    for (uint32_t i = 0; i < 3; i++)
        out[i] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = i};
    return 3;
}

static inline void ew_options(const rtm_kinst_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "-DRTM_ITEMS=%u", ew_items(k));
}

/* A and B uniform in [-1, 1) (padding 0), in parallel chunks (rtm_rng_fill). */
static inline void ew_fill_chunk(void *ctx, size_t lo, size_t hi, rtm_rng_t *r)
{
    rtm_kinst_t *k = ctx;
    float *a = k->host[EW_A], *b = k->host[EW_B];
    const size_t elems = (size_t)ew_elems(k);
    for (size_t i = lo; i < hi; i++) {
        a[i] = i < elems ? (float)rtm_rng_uniform(r, -1.0, 1.0) : 0.0f;
        b[i] = i < elems ? (float)rtm_rng_uniform(r, -1.0, 1.0) : 0.0f;
    }
}

static inline void ew_fill(rtm_kinst_t *k, uint64_t seed)
{
    rtm_rng_fill(k->plan.buf[EW_A].bytes / sizeof(float), seed, ew_fill_chunk, k);
    rtm_rng_zero(k->host[EW_C], k->plan.buf[EW_C].bytes);
}

static inline size_t ew_compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    return rtm_compare_floats(x->host[EW_C], y->host[EW_C], (size_t)ew_elems(x), 0.0f, why, len);
}

/* More, smaller blocks: halve the items per work-item, then the vector width, then the
 * work-group size (down to 32). Every element is computed the same way whatever the
 * blocking. */
static inline uint32_t ew_split(rtm_kinst_t *k, uint32_t factor)
{
    uint32_t f = 1;
    while (f * 2 <= factor && (ew_items(k) > 1 || k->tune.vec > 1 || k->tune.wg > 32)) {
        if (ew_items(k) > 1)
            k->items = ew_items(k) / 2;
        else if (k->tune.vec > 1)
            k->tune.vec /= 2;
        else
            k->tune.wg /= 2;
        f *= 2;
    }
    return f;
}

#endif
