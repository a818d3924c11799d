/* convolve.c — descriptor and CPU twin of convolve.cl (3x3 / 5x5 frame convolution,
 * clamp-to-edge borders, uchar or float frames).
 *
 * Size keys: `width`, `height` (pixels), `k` (3 or 5: kernel side), `float` (0: 8-bit
 * frames, 1: float frames).
 * Buffers: 0 `in` (T[height][pitch], IN), 1 `out` (T[height][pitch], OUT), 2 `w`
 * (float[k*k] row-major weights, IN); T is uchar or float, pitch = width rounded up to
 * 16 elements (row padding is zero on input; output padding is not compared).
 * Results: out = sum of w * in over the taps in row-major order, each step an fma from
 * 0.0f; uchar results are rounded to nearest even and saturated to 0..255. The GPU and
 * the twin agree bit for bit (same order, fma on both sides).
 *
 * Geometry (geo(), also passed to the build as -D options): lx = min(wg, 32) work-items
 * across, ly = wg / lx down; each work-item computes vec columns by ry rows, ry =
 * k->items when set (`rtmgr bench kernels --sweep`; rejected when the tile then needs
 * more than 44 KiB of local memory), else clamp(32 / vec, 1, 8) lowered until the
 * local tile fits 32 KiB; tile = lx*vec by ly*ry
 * pixels, block b = tile (b % tiles_x, b / tiles_x). Halo: R = k/2 rows and hv =
 * ceil(R / vec) vectors on each side.
 *
 * Cost counts, per output pixel (li = width * height), from the twin's and the kernel's
 * loop bodies:
 *   CPU (twin): per tap one frame load (the K rows are K unit-stride streams, z_unit),
 *   one weight load and one fma (z_scalar), two clamps (z_scalar); plus one store
 *   (z_unit); uchar frames add a conversion per tap and a rounding + saturation per
 *   pixel (z_scalar). md = k*k (the window of one pixel).
 *   GPU Z: k*k fma; local-memory reads (ry + 2R)(2hv + 1) vectors per ry*vec pixels;
 *   per-element window extraction (+ conversion for uchar) (ry + 2R)(vec + 2R) per
 *   ry*vec pixels; tile fill: per local vector ~8 ops (index, clamp, load, store) over
 *   the tile's pixels; store: 1 + 3 index ops per vector; + 2 * k*k weight loads per
 *   work-item spread over its pixels.
 *   Bytes: in and out once each (elem bytes per pixel each way); device traffic counts
 *   the frame read once and written once — halo re-reads of neighbouring tiles are L2
 *   hits on a GPU and are left out. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { IN, OUT, W };
enum { K_WIDTH, K_HEIGHT, K_K, K_FLOAT };

#define CV_LOCAL_TARGET (32u * 1024u)
#define CV_LOCAL_MAX (44u * 1024u) /* leaves room for the block header under 48 KiB */

typedef struct {
    uint32_t lx, ly, ry, hv, r, k;
    uint32_t tw, th;       /* tile, pixels */
    uint32_t tiles_x, tiles_y;
    uint32_t pitch;        /* elements per row */
    uint32_t esize;        /* bytes per element */
    size_t local_bytes;
} geo_t;

static size_t local_bytes(const geo_t *g, uint32_t vec)
{
    return (size_t)(g->ly * g->ry + 2 * g->r) * (g->lx + 2 * g->hv) * vec * g->esize;
}

static rtm_status_t geo(const rtm_kinst_t *k, geo_t *g)
{
    const uint32_t wg = k->tune.wg, vec = k->tune.vec;
    memset(g, 0, sizeof(*g));
    g->k = (uint32_t)k->size[K_K];
    if (g->k != 3 && g->k != 5)
        return RTM_E_RANGE;
    g->r = g->k / 2;
    g->esize = k->size[K_FLOAT] ? 4u : 1u;
    g->lx = wg < 32 ? wg : 32;
    if (wg % g->lx)
        return RTM_E_RANGE;
    g->ly = wg / g->lx;
    g->hv = (g->r + vec - 1) / vec;
    if (k->items > RTM_ITEMS_MAX)
        return RTM_E_RANGE;
    if (k->items) {
        g->ry = k->items;
    } else {
        g->ry = 32 / vec;
        g->ry = g->ry < 1 ? 1 : g->ry > 8 ? 8 : g->ry;
        while (g->ry > 1 && local_bytes(g, vec) > CV_LOCAL_TARGET)
            g->ry--;
    }
    g->local_bytes = local_bytes(g, vec);
    if (g->local_bytes > CV_LOCAL_MAX)
        return RTM_E_RANGE;
    const uint32_t w = (uint32_t)k->size[K_WIDTH], h = (uint32_t)k->size[K_HEIGHT];
    g->tw = g->lx * vec;
    g->th = g->ly * g->ry;
    g->tiles_x = (w + g->tw - 1) / g->tw;
    g->tiles_y = (h + g->th - 1) / g->th;
    g->pitch = (w + 15u) & ~15u;
    return RTM_OK;
}

static uint64_t pixels(const rtm_kinst_t *k) { return (uint64_t)k->size[K_WIDTH] * (uint64_t)k->size[K_HEIGHT]; }

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    geo_t g;
    const rtm_status_t st = geo(k, &g);
    if (st != RTM_OK)
        return st;
    if ((uint64_t)g.tiles_x * g.tiles_y > UINT32_MAX ||
        (uint64_t)g.pitch * (uint64_t)k->size[K_HEIGHT] * g.esize > ((uint64_t)1 << 32))
        return RTM_E_RANGE;
    const size_t frame = (size_t)g.pitch * (size_t)k->size[K_HEIGHT] * g.esize;
    p->n_bufs = 3;
    p->buf[IN] = (rtm_bufspec_t){frame, RTM_BUF_IN};
    p->buf[OUT] = (rtm_bufspec_t){frame, RTM_BUF_OUT};
    p->buf[W] = (rtm_bufspec_t){(size_t)g.k * g.k * sizeof(float), RTM_BUF_IN};
    p->launches = 1;
    p->blocks_max = g.tiles_x * g.tiles_y;
    return RTM_OK;
}

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    geo_t g;
    out->entry = 0;
    out->blocks = geo(k, &g) == RTM_OK ? g.tiles_x * g.tiles_y : 0;
}

static rtm_karg_t u32_arg(uint32_t v)
{
    rtm_karg_t a = {.kind = RTM_KARG_VALUE, .bytes = sizeof(v)};
    memcpy(a.value, &v, sizeof(v));
    return a;
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)l;
    geo_t g;
    (void)geo(k, &g);
    out[0] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = IN};
    out[1] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = OUT};
    out[2] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = W};
    out[3] = u32_arg((uint32_t)k->size[K_WIDTH]);
    out[4] = u32_arg((uint32_t)k->size[K_HEIGHT]);
    out[5] = u32_arg(g.pitch);
    out[6] = u32_arg(g.tiles_x);
    return 7;
}

static void options(const rtm_kinst_t *k, char *buf, size_t len)
{
    geo_t g;
    (void)geo(k, &g);
    snprintf(buf, len, "-DCV_T=%s%s -DCV_K=%u -DCV_LX=%u -DCV_RY=%u -DCV_HV=%u",
             g.esize == 1 ? "uchar" : "float", g.esize == 1 ? " -DCV_UCHAR" : "", g.k, g.lx,
             g.ry, g.hv);
}

/* Pixels [lo, hi) of the padded frame (row-major, pitch per row): random where x < width,
 * 0 in the padding. */
static void fill_chunk(void *ctx, size_t lo, size_t hi, rtm_rng_t *r)
{
    const rtm_kinst_t *k = ctx;
    geo_t g;
    (void)geo(k, &g);
    const uint32_t w = (uint32_t)k->size[K_WIDTH];
    for (size_t i = lo; i < hi; i++) {
        const bool pix = i % g.pitch < w;
        if (g.esize == 1)
            ((unsigned char *)k->host[IN])[i] = pix ? (unsigned char)rtm_rng_below(r, 256) : 0;
        else
            ((float *)k->host[IN])[i] = pix ? (float)rtm_rng_uniform(r, 0.0, 1.0) : 0.0f;
    }
}

/* The frame in parallel chunks (a 65535-pixel-wide calibration frame took 0.5 s on one
 * core), the output zeroed, then the weights from their own stream. */
static void fill(rtm_kinst_t *k, uint64_t seed)
{
    geo_t g;
    (void)geo(k, &g);
    rtm_rng_fill((size_t)g.pitch * (size_t)k->size[K_HEIGHT], seed, fill_chunk, k);
    rtm_rng_zero(k->host[OUT], k->plan.buf[OUT].bytes);
    rtm_rng_t r;
    rtm_rng_seed(&r, seed ^ 0x9E3779B97F4A7C15ull);
    /* Positive weights normalised to sum 1: a smoothing filter, so uchar output stays
     * mostly unsaturated. */
    float *wt = k->host[W], sum = 0.0f;
    for (uint32_t t = 0; t < g.k * g.k; t++)
        sum += wt[t] = (float)rtm_rng_uniform(&r, 0.05, 1.0);
    for (uint32_t t = 0; t < g.k * g.k; t++)
        wt[t] /= sum;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* convert_uchar_sat_rte */
static unsigned char sat_rte(float v)
{
    if (isnan(v))
        return 0;
    const float r = rintf(v);
    return r <= 0.0f ? 0 : r >= 255.0f ? 255 : (unsigned char)r;
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    geo_t g;
    if (geo(k, &g) != RTM_OK)
        return;
    const int w = (int)k->size[K_WIDTH], h = (int)k->size[K_HEIGHT], R = (int)g.r, K = (int)g.k;
    const int vec = (int)k->tune.vec;
    const int x0 = (int)(blk % g.tiles_x * g.tw), y0 = (int)(blk / g.tiles_x * g.th);
    /* The GPU writes whole vectors that start left of `width`. */
    const int wv = (w + vec - 1) / vec * vec;
    const int x1 = x0 + (int)g.tw < wv ? x0 + (int)g.tw : wv;
    const int y1 = y0 + (int)g.th < h ? y0 + (int)g.th : h;
    const float *wt = k->host[W];
    for (int y = y0; y < y1; y++) {
        int rows[5];
        for (int i = 0; i < K; i++)
            rows[i] = clampi(y + i - R, 0, h - 1) * (int)g.pitch;
        for (int x = x0; x < x1; x++) {
            int cols[5];
            for (int c = 0; c < K; c++)
                cols[c] = clampi(x + c - R, 0, w - 1);
            float acc = 0.0f;
            const size_t o = (size_t)y * g.pitch + (size_t)x;
            if (g.esize == 1) {
                const unsigned char *in = k->host[IN];
                for (int i = 0; i < K; i++)
                    for (int c = 0; c < K; c++)
                        acc = fmaf(wt[i * K + c], (float)in[rows[i] + cols[c]], acc);
                ((unsigned char *)k->host[OUT])[o] = sat_rte(acc);
            } else {
                const float *in = k->host[IN];
                for (int i = 0; i < K; i++)
                    for (int c = 0; c < K; c++)
                        acc = fmaf(wt[i * K + c], in[rows[i] + cols[c]], acc);
                ((float *)k->host[OUT])[o] = acc;
            }
        }
    }
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    geo_t g;
    memset(c, 0, sizeof(*c));
    if (geo(k, &g) != RTM_OK)
        return;
    const double n = (double)pixels(k), kk = (double)g.k * g.k, vec = k->tune.vec;
    const double ry = g.ry, r2 = 2.0 * g.r, u8 = g.esize == 1 ? 1.0 : 0.0;
    const double tile_px = (double)g.tw * g.th;
    c->li = n;
    c->z[RTM_LOC_UNIT] = kk + 1.0;
    c->z[RTM_LOC_SCALAR] = 2.0 * kk + 2.0 * kk / g.k + u8 * (kk + 2.0);
    c->Z = kk                                                   /* fma */
           + (ry + r2) * (2.0 * g.hv + 1.0) / (ry * vec)        /* local vector reads */
           + (ry + r2) * (vec + r2) * (1.0 + u8) / (ry * vec)   /* window (+ convert) */
           + (double)(g.th + r2) * (g.lx + 2.0 * g.hv) * 8.0 / tile_px /* tile fill */
           + (4.0 + u8) / vec                                   /* store + index */
           + 2.0 * kk / (ry * vec);                             /* weights */
    c->md = kk;
    c->bytes_in = n * g.esize + kk * sizeof(float);
    c->bytes_out = n * g.esize;
    c->bytes_dev = 2.0 * n * g.esize;
    c->launches = 1;
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    geo_t g;
    if (geo(x, &g) != RTM_OK)
        return 1;
    const uint32_t w = (uint32_t)x->size[K_WIDTH], h = (uint32_t)x->size[K_HEIGHT];
    size_t bad = 0;
    for (uint32_t row = 0; row < h; row++) {
        const size_t o = (size_t)row * g.pitch;
        char tmp[128] = "";
        size_t b;
        if (g.esize == 1)
            b = rtm_compare_u8((const unsigned char *)x->host[OUT] + o,
                               (const unsigned char *)y->host[OUT] + o, w, 0, tmp, sizeof(tmp));
        else
            b = rtm_compare_floats((const float *)x->host[OUT] + o, (const float *)y->host[OUT] + o,
                                   w, 0.0f, tmp, sizeof(tmp));
        if (b && bad == 0 && why && len)
            snprintf(why, len, "row %u: %s", row, tmp);
        bad += b;
    }
    return bad;
}

const rtm_kernel_t rtm_kernel_convolve = {
    .name = "convolve",
    .source = "convolve.cl",
    .entries = {"convolve", NULL},
    .keys = {{"width", 1, 65536, 1920, "frame width, pixels"},
             {"height", 1, 65536, 1080, "frame height, pixels"},
             {"k", 3, 5, 3, "kernel side: 3 (3x3) or 5 (5x5)"},
             {"float", 0, 1, 0, "0: 8-bit gray frames, 1: float frames"}},
    .n_keys = 4,
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
