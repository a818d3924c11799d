/* copy.c — descriptor and CPU twin of copy.cl (dst = src; the memory-bandwidth probe of
 * `rtmgr bench kernels` and calibration's mem_rate).
 *
 * Size key `n`: uints to copy. A block covers wg * items * vec consecutive uints
 * (items = k->items, default 1; -DRTM_ITEMS); buffers are padded up to whole blocks
 * (padding is zero and ignored). Cost counts, from the kernel body: per element one load
 * and one store (unit-stride class); Z = 2 operations per lane plus the index operations
 * of a work-item (blk * (wg * items) + lid, + j * wg per further item) over its lanes.
 * Bytes: 4 in, 4 out, 8 device traffic per element. */
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { SRC, DST };

static uint64_t elems(const rtm_kinst_t *k) { return (uint64_t)k->size[0]; }
static uint32_t items(const rtm_kinst_t *k) { return k->items ? k->items : 1u; }
static uint32_t block_elems(const rtm_kinst_t *k) { return k->tune.wg * k->tune.vec * items(k); }
static uint32_t blocks(const rtm_kinst_t *k)
{
    return (uint32_t)((elems(k) + block_elems(k) - 1) / block_elems(k));
}

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    if (k->items > RTM_ITEMS_MAX)
        return RTM_E_RANGE;
    const size_t bytes = (size_t)blocks(k) * block_elems(k) * sizeof(uint32_t);
    p->n_bufs = 2;
    p->buf[SRC] = (rtm_bufspec_t){bytes, RTM_BUF_IN};
    p->buf[DST] = (rtm_bufspec_t){bytes, RTM_BUF_OUT};
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
    out[0] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = SRC};
    out[1] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = DST};
    return 2;
}

static void options(const rtm_kinst_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "-DRTM_ITEMS=%u", items(k));
}

static void fill_chunk(void *ctx, size_t lo, size_t hi, rtm_rng_t *r)
{
    rtm_kinst_t *k = ctx;
    uint32_t *src = k->host[SRC];
    const size_t e = elems(k);
    for (size_t i = lo; i < hi; i++)
        src[i] = i < e ? (uint32_t)rtm_rng_next(r) : 0u;
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    rtm_rng_fill(k->plan.buf[SRC].bytes / sizeof(uint32_t), seed, fill_chunk, k);
    rtm_rng_zero(k->host[DST], k->plan.buf[DST].bytes);
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const size_t lo = (size_t)blk * block_elems(k);
    memcpy((uint32_t *)k->host[DST] + lo, (const uint32_t *)k->host[SRC] + lo,
           (size_t)block_elems(k) * sizeof(uint32_t));
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = (double)elems(k);
    memset(c, 0, sizeof(*c));
    c->li = n;
    c->z[RTM_LOC_UNIT] = 2.0; /* load src, store dst */
    c->Z = 2.0 + (1.0 + items(k)) / (items(k) * (double)k->tune.vec);
    c->md = 1.0;
    c->bytes_in = 4.0 * n;
    c->bytes_out = 4.0 * n;
    c->bytes_dev = 8.0 * n;
    c->launches = 1;
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    return rtm_compare_u32(x->host[DST], y->host[DST], (size_t)elems(x), why, len);
}

const rtm_kernel_t rtm_kernel_copy = {
    .name = "copy",
    .source = "copy.cl",
    .entries = {"copy", NULL},
    .keys = {{"n", 1, (int64_t)1 << 31, (int64_t)1 << 20, "uints to copy"}},
    .n_keys = 1,
    .vec_allowed = (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16),
    .tune_default = {256, 4},
    .plan = plan,
    .launch = launch,
    .args = args,
    .options = options,
    .fill = fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = compare,
};
