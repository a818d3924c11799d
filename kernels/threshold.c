/* threshold.c — descriptor and CPU twin of threshold.cl (camera-frame binarisation).
 *
 * Size keys: `width`, `height` (pixels of an 8-bit gray frame, rows back to back) and
 * `level` (0..255): out = in > level ? 255 : 0. The level is a kernel argument, so one
 * build serves every level.
 * Buffers: 0 `in` (uchar, IN), 1 `out` (uchar, OUT); both padded to whole blocks, the
 * padding is zero on input and ignored on output.
 * Blocks: a block covers wg * items * vec bytes; work-item w of block b handles the
 * vectors b * wg * items + j * wg + w, j < items. items (-DRTM_ITEMS) is k->items when
 * set (1..16, `rtmgr bench kernels --sweep`), else 4 for frames of 16 MiB and more
 * (fewer, longer blocks amortise the block prologue and keep four loads in flight per
 * work-item) and 1 below (more blocks for small frames).
 *
 * Cost counts (per pixel = one loop iteration, li = width * height), read off the
 * twin's loop body: one load of `in` and one store of `out` (unit-stride class,
 * z_unit = 2); one compare and one select (scalar class, z_scalar = 2). GPU Z, from the
 * kernel body: per vector one load, one store and the index + j * wg (3 ops); the
 * compare: 2 ops per byte at widths 1 and 2 (compare, select), at widths >= 4 the SWAR
 * form, 10 ops per uint (2.5 per byte); per work-item blk * (wg * items) + lid and the
 * level constants (4 ops) shared by its items * vec pixels:
 * Z = cmp + 3 / vec + 4 / (items * vec). md = 1 (the pixel).
 * Bytes: 1 in, 1 out per pixel; device traffic 2 per pixel. */
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { IN, OUT };
enum { K_WIDTH, K_HEIGHT, K_LEVEL };

/* Frames at least this large use 4 vectors per work-item unless k->items says. */
#define THR_BIG_BYTES (16u << 20)

static uint64_t pixels(const rtm_kinst_t *k) { return (uint64_t)k->size[K_WIDTH] * (uint64_t)k->size[K_HEIGHT]; }
static uint32_t items(const rtm_kinst_t *k)
{
    return k->items ? k->items : pixels(k) >= THR_BIG_BYTES ? 4u : 1u;
}
static uint64_t block_bytes(const rtm_kinst_t *k) { return (uint64_t)k->tune.wg * k->tune.vec * items(k); }
static uint32_t blocks(const rtm_kinst_t *k)
{
    return (uint32_t)((pixels(k) + block_bytes(k) - 1) / block_bytes(k));
}

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    if (pixels(k) > ((uint64_t)1 << 32) || k->items > RTM_ITEMS_MAX)
        return RTM_E_RANGE;
    const size_t bytes = (size_t)blocks(k) * (size_t)block_bytes(k);
    p->n_bufs = 2;
    p->buf[IN] = (rtm_bufspec_t){bytes, RTM_BUF_IN};
    p->buf[OUT] = (rtm_bufspec_t){bytes, RTM_BUF_OUT};
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
    (void)l;
    out[0] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = IN};
    out[1] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = OUT};
    const uint32_t level = (uint32_t)k->size[K_LEVEL];
    out[2] = (rtm_karg_t){.kind = RTM_KARG_VALUE, .bytes = sizeof(level)};
    memcpy(out[2].value, &level, sizeof(level));
    return 3;
}

static void options(const rtm_kinst_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "-DRTM_ITEMS=%u", items(k));
}

static void fill_chunk(void *ctx, size_t lo, size_t hi, rtm_rng_t *r)
{
    unsigned char *in = ((rtm_kinst_t *)ctx)->host[IN];
    size_t i = lo;
    for (; i + 8 <= hi; i += 8) {
        const uint64_t x = rtm_rng_next(r);
        memcpy(in + i, &x, 8);
    }
    for (; i < hi; i++)
        in[i] = (unsigned char)rtm_rng_next(r);
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    unsigned char *in = k->host[IN];
    const size_t n = (size_t)pixels(k);
    rtm_rng_fill(n, seed, fill_chunk, k);
    memset(in + n, 0, k->plan.buf[IN].bytes - n);
    rtm_rng_zero(k->host[OUT], k->plan.buf[OUT].bytes);
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const unsigned char *in = k->host[IN];
    unsigned char *out = k->host[OUT];
    const unsigned level = (unsigned)k->size[K_LEVEL];
    const size_t lo = (size_t)blk * (size_t)block_bytes(k), hi = lo + (size_t)block_bytes(k);
    for (size_t i = lo; i < hi; i++)
        out[i] = in[i] > level ? 255 : 0;
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = (double)pixels(k);
    memset(c, 0, sizeof(*c));
    c->li = n;
    c->z[RTM_LOC_UNIT] = 2.0;
    c->z[RTM_LOC_SCALAR] = 2.0;
    const double vec = k->tune.vec;
    c->Z = (vec >= 4 ? 2.5 : 2.0) + 3.0 / vec + 4.0 / (items(k) * vec);
    c->md = 1.0;
    c->bytes_in = n;
    c->bytes_out = n;
    c->bytes_dev = 2.0 * n;
    c->launches = 1;
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    return rtm_compare_u8(x->host[OUT], y->host[OUT], (size_t)pixels(x), 0, why, len);
}

/* `rtmgr status` summary: the share of the frame above the level. */
static void summary(const rtm_kinst_t *k, char *buf, size_t len)
{
    const unsigned char *out = k->host[OUT];
    const size_t n = (size_t)k->size[K_WIDTH] * (size_t)k->size[K_HEIGHT];
    size_t on = 0;
    for (size_t i = 0; i < n; i++)
        on += out[i] != 0;
    snprintf(buf, len, "frame %lldx%lld at level %lld: %.1f%% of the pixels above",
             (long long)k->size[K_WIDTH], (long long)k->size[K_HEIGHT], (long long)k->size[K_LEVEL],
             n ? 100.0 * (double)on / (double)n : 0.0);
}

const rtm_kernel_t rtm_kernel_threshold = {
    .name = "threshold",
    .source = "threshold.cl",
    .entries = {"threshold", NULL},
    .keys = {{"width", 1, 65536, 1920, "frame width, pixels (8-bit gray)"},
             {"height", 1, 65536, 1080, "frame height, pixels"},
             {"level", 0, 255, 128, "binarisation level: out = in > level ? 255 : 0"}},
    .n_keys = 3,
    .vec_allowed = (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16),
    .tune_default = {256, 16},
    .plan = plan,
    .launch = launch,
    .args = args,
    .options = options,
    .fill = fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = compare,
    .summary = summary,
};
