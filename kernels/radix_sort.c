/* radix_sort.c — descriptor and CPU twin of radix_sort.cl: stable LSD radix sort of
 * (key, value) pairs by key, 8 bits per pass (beside `sort`, the odd-even merge
 * network, for large inputs: 3 launches per 8 key bits instead of O(log^2 n) passes).
 *
 * Size keys: `n` (pairs), `bits` (low key bits to sort by: 8, 16, 24 or 32; default
 * 32). A pair is a uint64_t, key << 32 | value; pairs with equal keys keep their input
 * order (stable), so the output is unique.
 * Buffers: 0 `in` (uint64_t[n], IN), 1 `out` (uint64_t[P], OUT: the first n are the
 * sorted input), 2 `tmp` (uint64_t[P], SCRATCH), 3 `cnt`, 4 `off` (uint[256][nb],
 * SCRATCH), 5 `tot` (uint[256], SCRATCH); P = n rounded up to the tile (4096 pairs),
 * nb = P / 4096 tiles. Pass p (p < bits / 8) = launches 3p (rs_hist, nb blocks),
 * 3p + 1 (rs_scan, 256 blocks), 3p + 2 (rs_scatter, nb blocks). Pass 0 reads `in`;
 * pass p writes `out` when (passes - 1 - p) is even, else `tmp`; pass p + 1 reads it.
 *
 * Cost counts, per pair and pass (li = P * passes), read off the kernels: rs_hist: 1
 * load, digit extraction (2 ops), 1 local atomic; rs_scatter: 1 load + local store, 4
 * splits x (category 2 ops, packed count 2, local store + load, position 3), digit runs
 * (2 local loads, 3 ops), final local load, digit, store (3): GPU Z ~ 6 + 50 + 5 + 4 +
 * index ops ~ 70 per pair-pass; rs_scan is 1/4096 of that. CPU twin per pair-pass: 2
 * unit-stride loads (histogram and ranking reads), 1 scattered store (strided class),
 * ~6 scalar ops (digit twice, counters). md = 1. Bytes: 8n in, 8P out; device traffic
 * per pass: 8P (hist) + 16P (scatter) + 4 * 256 * nb * 4 (cnt written, read; off
 * written, read). */
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { IN, OUT, TMP, CNT, OFF, TOT };
enum { E_HIST, E_SCAN, E_SCATTER };
enum { K_N, K_BITS };

#define RS_TILE 4096u

static uint32_t n_of(const rtm_kinst_t *k) { return (uint32_t)k->size[K_N]; }
static uint32_t P_of(const rtm_kinst_t *k) { return (n_of(k) + RS_TILE - 1) / RS_TILE * RS_TILE; }
static uint32_t nb_of(const rtm_kinst_t *k) { return P_of(k) / RS_TILE; }
static uint32_t passes(const rtm_kinst_t *k) { return (uint32_t)k->size[K_BITS] / 8; }

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const uint32_t wg = k->tune.wg;
    if (wg < 128 || wg > 1024 || (wg & (wg - 1)) || k->size[K_BITS] % 8)
        return RTM_E_RANGE;
    const size_t P = P_of(k), counts = (size_t)256 * nb_of(k) * sizeof(uint32_t);
    p->n_bufs = 6;
    p->buf[IN] = (rtm_bufspec_t){(size_t)n_of(k) * 8, RTM_BUF_IN};
    p->buf[OUT] = (rtm_bufspec_t){P * 8, RTM_BUF_OUT};
    p->buf[TMP] = (rtm_bufspec_t){P * 8, RTM_BUF_SCRATCH};
    p->buf[CNT] = (rtm_bufspec_t){counts, RTM_BUF_SCRATCH};
    p->buf[OFF] = (rtm_bufspec_t){counts, RTM_BUF_SCRATCH};
    p->buf[TOT] = (rtm_bufspec_t){256 * sizeof(uint32_t), RTM_BUF_SCRATCH};
    p->launches = 3 * passes(k);
    p->blocks_max = nb_of(k) > 256 ? nb_of(k) : 256;
    return RTM_OK;
}

static uint32_t dst_buf(const rtm_kinst_t *k, uint32_t pass)
{
    return (passes(k) - 1 - pass) % 2 == 0 ? OUT : TMP;
}
static uint32_t src_buf(const rtm_kinst_t *k, uint32_t pass) { return pass == 0 ? IN : dst_buf(k, pass - 1); }
static uint32_t n_valid(const rtm_kinst_t *k, uint32_t pass) { return pass == 0 ? n_of(k) : P_of(k); }
static uint32_t shift(uint32_t pass) { return 32 + 8 * pass; }

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    out->entry = l % 3;
    out->blocks = l % 3 == E_SCAN ? 256 : nb_of(k);
}

static rtm_karg_t u32_arg(uint32_t v)
{
    rtm_karg_t a = {.kind = RTM_KARG_VALUE, .bytes = sizeof(v)};
    memcpy(a.value, &v, sizeof(v));
    return a;
}

static rtm_karg_t buf_arg(uint32_t b) { return (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = b}; }

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    const uint32_t pass = l / 3;
    switch (l % 3) {
    case E_HIST:
        out[0] = buf_arg(src_buf(k, pass));
        out[1] = buf_arg(CNT);
        out[2] = u32_arg(n_valid(k, pass));
        out[3] = u32_arg(nb_of(k));
        out[4] = u32_arg(shift(pass));
        return 5;
    case E_SCAN:
        out[0] = buf_arg(CNT);
        out[1] = buf_arg(OFF);
        out[2] = buf_arg(TOT);
        out[3] = u32_arg(nb_of(k));
        return 4;
    default:
        out[0] = buf_arg(src_buf(k, pass));
        out[1] = buf_arg(dst_buf(k, pass));
        out[2] = buf_arg(OFF);
        out[3] = buf_arg(TOT);
        out[4] = u32_arg(n_valid(k, pass));
        out[5] = u32_arg(nb_of(k));
        out[6] = u32_arg(shift(pass));
        return 7;
    }
}

/* Keys with many duplicates, values the input index (rtm_pairs_fill). */
static void fill(rtm_kinst_t *k, uint64_t seed)
{
    rtm_pairs_fill(k->host[IN], n_of(k), seed);
    for (uint32_t b = OUT; b <= TOT; b++)
        rtm_rng_zero(k->host[b], k->plan.buf[b].bytes);
}

static uint64_t pair_at(const uint64_t *src, uint32_t i, uint32_t valid)
{
    return i < valid ? src[i] : UINT64_MAX;
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    const uint32_t pass = l / 3, nb = nb_of(k), sh = shift(pass), valid = n_valid(k, pass);
    const uint64_t *src = k->host[src_buf(k, pass)];
    uint32_t *cnt = k->host[CNT], *off = k->host[OFF], *tot = k->host[TOT];
    switch (l % 3) {
    case E_HIST: {
        uint32_t h[256] = {0};
        for (uint32_t p = 0; p < RS_TILE; p++)
            h[pair_at(src, blk * RS_TILE + p, valid) >> sh & 255u]++;
        for (uint32_t d = 0; d < 256; d++)
            cnt[(size_t)d * nb + blk] = h[d];
        break;
    }
    case E_SCAN: {
        uint32_t run = 0;
        for (uint32_t b = 0; b < nb; b++) {
            off[(size_t)blk * nb + b] = run;
            run += cnt[(size_t)blk * nb + b];
        }
        tot[blk] = run;
        break;
    }
    default: {
        uint64_t *dst = k->host[dst_buf(k, pass)];
        uint32_t next[256], base = 0;
        for (uint32_t d = 0; d < 256; d++) {
            next[d] = base + off[(size_t)d * nb + blk];
            base += tot[d];
        }
        for (uint32_t p = 0; p < RS_TILE; p++) {
            const uint64_t x = pair_at(src, blk * RS_TILE + p, valid);
            dst[next[x >> sh & 255u]++] = x;
        }
        break;
    }
    }
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double P = P_of(k), ps = passes(k), counts = 256.0 * nb_of(k) * 4.0;
    memset(c, 0, sizeof(*c));
    c->li = P * ps;
    c->z[RTM_LOC_UNIT] = 2.0;
    c->z[RTM_LOC_STRIDED] = 1.0;
    c->z[RTM_LOC_SCALAR] = 6.0;
    c->Z = 70.0;
    c->md = 1.0;
    c->bytes_in = 8.0 * n_of(k);
    c->bytes_out = 8.0 * P;
    c->bytes_dev = ps * (24.0 * P + 4.0 * counts);
    c->launches = 3 * passes(k);
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    const uint64_t *a = x->host[OUT], *b = y->host[OUT];
    size_t bad = 0;
    for (uint32_t i = 0; i < n_of(x); i++) {
        if (a[i] != b[i]) {
            if (bad == 0 && why && len)
                snprintf(why, len, "pair %u: %016llx vs %016llx", i, (unsigned long long)a[i],
                         (unsigned long long)b[i]);
            bad++;
        }
    }
    return bad;
}

const rtm_kernel_t rtm_kernel_radix_sort = {
    .name = "radix_sort",
    .source = "radix_sort.cl",
    .entries = {"rs_hist", "rs_scan", "rs_scatter", NULL},
    .keys = {{"n", 1, 1 << 28, 1 << 20, "(key, value) pairs to sort"},
             {"bits", 8, 32, 32, "low key bits sorted by: 8, 16, 24 or 32"}},
    .n_keys = 2,
    .vec_allowed = 1u << 1,
    .tune_default = {256, 1},
    .plan = plan,
    .launch = launch,
    .args = args,
    .fill = fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = compare,
};
