/* sort.c — descriptor and CPU twin of sort.cl: odd-even merge sort (seed 004) of
 * (key, value) pairs, e.g. targets ranked by TCPA (rtm_sort_key_float).
 *
 * Size key `n`: pairs to sort. A pair is a uint64_t, key << 32 | value; pairs are
 * sorted ascending as 64-bit integers (by key, ties by value).
 * Buffers: 0 `in` (uint64_t[n], IN), 1 `out` (uint64_t[P], OUT: the first n are the
 * sorted input, the rest padding), 2 `tmp` (uint64_t[P], SCRATCH); P = n rounded up to
 * 4096 (OE_LS). Pass 0 reads `in`; pass l writes `out` when (launches - 1 - l) is even,
 * else `tmp`, and pass l + 1 reads what pass l wrote, so the last pass writes `out`
 * and no block reads what its own launch writes.
 *
 * Passes (one launch each; see sort.cl): oems_chunk (P / 4096 blocks); then for each
 * stage S = 8192, 16384, ... while S / 2 < P: oems_head with F = min(4, c) where
 * c = log2(S) - 10 is the number of strides >= 1024, oems_step for the c - F strides
 * below those (P/2 work-items each), oems_window (P / 2048 blocks). For n = 2^25: 93
 * launches (1 chunk, 13 heads, 66 steps, 13 windows); the network alone is O(log^2 n)
 * passes over memory, which is why radix_sort sits beside it in the catalogue.
 *
 * Cost counts, from the schedule: one iteration = one compare-exchange position of the
 * network (P/2 per step; the steps are those of the schedule: 78 in the chunk pass, F
 * per head, 1 per step pass, 10 per window), li = P/2 * steps. Per compare-exchange:
 * 2 loads + 2 stores (unit-stride class for the steps done in local memory — chunk and
 * window — strided class for the global ones) and compare + 2 selects (z_scalar = 3); GPU Z = 7 + 4 index ops = 11.
 * md = 2. Bytes: 8n in, 8P out; device traffic summed over the passes: chunk and step
 * 16 P each (read + write), head 16 P per F strides, window 24 P (window read twice). */
#include <string.h>

#include "kernels/kernels.h"
#include "rtmgr/rng.h"

enum { IN, OUT, TMP };
enum { E_CHUNK, E_HEAD, E_STEP, E_WINDOW };

#define OE_LS 4096u
#define OE_K0 512u
#define OE_M 1024u
#define OE_OUT 2048u
#define OE_WN 4096u
#define OE_FMAX 4u

typedef struct {
    uint32_t entry;
    uint32_t S;   /* stage: merge size */
    uint32_t arg; /* head: F; step: stride k */
} pass_t;

static uint32_t n_of(const rtm_kinst_t *k) { return (uint32_t)k->size[0]; }
static uint32_t P_of(const rtm_kinst_t *k) { return (n_of(k) + OE_LS - 1) / OE_LS * OE_LS; }
static uint32_t log2u(uint64_t x)
{
    uint32_t l = 0;
    while ((1ull << l) < x)
        l++;
    return l;
}

/* Walks the schedule; fills *out for pass `want` (if found) and returns the count. */
static uint32_t schedule(const rtm_kinst_t *k, uint32_t want, pass_t *out)
{
    const uint64_t P = P_of(k);
    uint32_t l = 0;
    if (out)
        *out = (pass_t){E_CHUNK, OE_LS, 0};
#define EMIT(e, s, a)                                                               \
    do {                                                                            \
        if (l == want && out)                                                       \
            *out = (pass_t){(e), (uint32_t)(s), (uint32_t)(a)};                     \
        l++;                                                                        \
    } while (0)
    EMIT(E_CHUNK, OE_LS, 0);
    for (uint64_t S = 2 * OE_LS; S / 2 < P; S <<= 1) {
        const uint32_t c = log2u(S) - log2u(2 * OE_K0);
        const uint32_t F = c < OE_FMAX ? c : OE_FMAX;
        EMIT(E_HEAD, S, F);
        for (uint64_t kk = S >> (F + 1); kk >= 2 * OE_K0; kk >>= 1)
            EMIT(E_STEP, S, kk);
        EMIT(E_WINDOW, S, 0);
    }
#undef EMIT
    return l;
}

static uint32_t pass_blocks(const rtm_kinst_t *k, const pass_t *p)
{
    const uint64_t P = P_of(k), wg = k->tune.wg;
    uint64_t items = 0;
    switch (p->entry) {
    case E_CHUNK:
        return (uint32_t)(P / OE_LS);
    case E_WINDOW:
        return (uint32_t)((P + OE_OUT - 1) / OE_OUT);
    case E_HEAD: /* one work-item per residue class of every (partial) S-block */
        items = (P + p->S - 1) / p->S * (p->S >> p->arg);
        break;
    default: /* slots of the step: ceil(P / 2k) * k */
        items = (P + 2ull * p->arg - 1) / (2ull * p->arg) * p->arg;
        break;
    }
    return (uint32_t)((items + wg - 1) / wg);
}

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const uint32_t wg = k->tune.wg;
    if (wg == 0 || wg > 1024 || (wg & (wg - 1)))
        return RTM_E_RANGE;
    const size_t P = P_of(k);
    p->n_bufs = 3;
    p->buf[IN] = (rtm_bufspec_t){(size_t)n_of(k) * 8, RTM_BUF_IN};
    p->buf[OUT] = (rtm_bufspec_t){P * 8, RTM_BUF_OUT};
    p->buf[TMP] = (rtm_bufspec_t){P * 8, RTM_BUF_SCRATCH};
    p->launches = schedule(k, UINT32_MAX, NULL);
    p->blocks_max = 0;
    for (uint32_t l = 0; l < p->launches; l++) {
        pass_t ps;
        schedule(k, l, &ps);
        const uint32_t b = pass_blocks(k, &ps);
        p->blocks_max = b > p->blocks_max ? b : p->blocks_max;
    }
    return RTM_OK;
}

/* Buffer written by pass l, and read by it. */
static uint32_t dst_buf(const rtm_kinst_t *k, uint32_t l)
{
    return (k->plan.launches - 1 - l) % 2 == 0 ? OUT : TMP;
}
static uint32_t src_buf(const rtm_kinst_t *k, uint32_t l) { return l == 0 ? IN : dst_buf(k, l - 1); }

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    pass_t ps;
    schedule(k, l, &ps);
    out->entry = ps.entry;
    out->blocks = pass_blocks(k, &ps);
}

static rtm_karg_t u32_arg(uint32_t v)
{
    rtm_karg_t a = {.kind = RTM_KARG_VALUE, .bytes = sizeof(v)};
    memcpy(a.value, &v, sizeof(v));
    return a;
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    pass_t ps;
    schedule(k, l, &ps);
    out[0] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = src_buf(k, l)};
    out[1] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = dst_buf(k, l)};
    switch (ps.entry) {
    case E_CHUNK:
        out[2] = u32_arg(n_of(k));
        return 3;
    case E_WINDOW:
        out[2] = u32_arg(P_of(k));
        out[3] = u32_arg(ps.S);
        return 4;
    default: /* head: F, step: k */
        out[2] = u32_arg(P_of(k));
        out[3] = u32_arg(ps.S);
        out[4] = u32_arg(ps.arg);
        return 5;
    }
}

/* Keys with many duplicates, values the input index (rtm_pairs_fill). */
static void fill(rtm_kinst_t *k, uint64_t seed)
{
    rtm_pairs_fill(k->host[IN], n_of(k), seed);
    rtm_rng_zero(k->host[OUT], k->plan.buf[OUT].bytes);
    rtm_rng_zero(k->host[TMP], k->plan.buf[TMP].bytes);
}

static void cmpx(uint64_t *a, uint64_t *b)
{
    if (*a > *b) {
        const uint64_t t = *a;
        *a = *b;
        *b = t;
    }
}

static uint32_t slot(uint32_t i, uint32_t kk) { return ((i & ~(kk - 1u)) << 1) | (i & (kk - 1u)); }

static void oe_merge(uint64_t *x, int G)
{
    for (int m = 0; m < G / 2; m++)
        cmpx(&x[m], &x[m + G / 2]);
    for (int q = G / 4; q > 0; q >>= 1)
        for (int m = q; m + q < G; m++)
            if (m & q)
                cmpx(&x[m], &x[m + q]);
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    pass_t ps;
    schedule(k, l, &ps);
    const uint64_t *src = k->host[src_buf(k, l)];
    uint64_t *dst = k->host[dst_buf(k, l)];
    const uint32_t P = P_of(k), n = n_of(k), wg = k->tune.wg, S = ps.S;
    switch (ps.entry) {
    case E_CHUNK: {
        uint64_t *v = dst + (size_t)blk * OE_LS; /* this block's chunk: sorted in place */
        for (uint32_t i = 0; i < OE_LS; i++)
            v[i] = blk * OE_LS + i < n ? src[blk * OE_LS + i] : UINT64_MAX;
        for (uint32_t size = 2; size <= OE_LS; size <<= 1) {
            const uint32_t hsz = size >> 1;
            for (uint32_t kk = hsz; kk > 0; kk >>= 1) {
                for (uint32_t i = 0; i < OE_LS / 2; i++) {
                    const uint32_t pos = slot(i, kk);
                    if (kk == hsz)
                        cmpx(&v[pos], &v[pos + kk]);
                    else if ((i & (hsz - 1u)) >= kk)
                        cmpx(&v[pos - kk], &v[pos]);
                }
            }
        }
        break;
    }
    case E_HEAD: {
        const uint32_t F = ps.arg, u = S >> F;
        for (uint32_t g = blk * wg; g < blk * wg + wg; g++) {
            const uint64_t base = (uint64_t)(g / u) * S + (g & (u - 1u));
            if (base >= P)
                continue;
            uint64_t x[16] = {0};
            for (uint32_t m = 0; m < (1u << F); m++)
                x[m] = base + m * u < P ? src[base + m * u] : UINT64_MAX;
            oe_merge(x, 1 << F);
            for (uint32_t m = 0; m < (1u << F); m++)
                if (base + m * u < P)
                    dst[base + m * u] = x[m];
        }
        break;
    }
    case E_STEP: {
        const uint32_t kk = ps.arg;
        for (uint32_t i = blk * wg; i < blk * wg + wg; i++) {
            const uint64_t c = (uint64_t)slot(i, kk) + kk;
            if (c < P) {
                uint64_t a = src[c];
                const uint64_t d = c + kk;
                if (d < P) {
                    uint64_t b = src[d];
                    if ((c & (S - 1u)) + kk < S)
                        cmpx(&a, &b);
                    dst[d] = b;
                }
                dst[c] = a;
            }
            if (i < kk && i < P)
                dst[i] = src[i];
        }
        break;
    }
    default: { /* E_WINDOW */
        uint64_t v[OE_WN];
        const int64_t lo = (int64_t)blk * OE_OUT - OE_M;
        for (uint32_t i = 0; i < OE_WN; i++) {
            const int64_t gi = lo + i;
            v[i] = gi >= 0 && gi < (int64_t)P ? src[gi] : UINT64_MAX;
        }
        for (uint32_t kk = OE_K0; kk > 0; kk >>= 1) {
            for (uint32_t i = 0; i < OE_WN / 2; i++) {
                const uint32_t lc = slot(i, kk) + kk, ld = lc + kk;
                const int64_t c = lo + lc;
                if (ld < OE_WN && c >= 0 && c + kk < (int64_t)P && ((uint32_t)c & (S - 1u)) + kk < S)
                    cmpx(&v[lc], &v[ld]);
            }
        }
        for (uint32_t i = 0; i < OE_OUT; i++) {
            const int64_t gi = lo + OE_M + i;
            if (gi < (int64_t)P)
                dst[gi] = v[OE_M + i];
        }
        break;
    }
    }
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    memset(c, 0, sizeof(*c));
    const double P = P_of(k);
    double dev = 0.0, unit_steps = 0.0, strided_steps = 0.0;
    const uint32_t launches = schedule(k, UINT32_MAX, NULL);
    for (uint32_t l = 0; l < launches; l++) {
        pass_t ps;
        schedule(k, l, &ps);
        dev += ps.entry == E_WINDOW ? 24.0 * P : 16.0 * P;
        switch (ps.entry) {
        case E_CHUNK: unit_steps += 12.0 * 13.0 / 2.0; break; /* stages 2..4096 */
        case E_WINDOW: unit_steps += 10.0; break;             /* strides 512..1 */
        case E_HEAD: strided_steps += ps.arg; break;
        default: strided_steps += 1.0; break;
        }
    }
    const double steps = unit_steps + strided_steps;
    c->li = P / 2.0 * steps;
    c->z[RTM_LOC_UNIT] = 4.0 * unit_steps / steps;
    c->z[RTM_LOC_STRIDED] = 4.0 * strided_steps / steps;
    c->z[RTM_LOC_SCALAR] = 3.0;
    c->Z = 11.0;
    c->md = 2.0;
    c->bytes_in = 8.0 * n_of(k);
    c->bytes_out = 8.0 * P;
    c->bytes_dev = dev;
    c->launches = launches;
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

uint32_t rtm_sort_key_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

const rtm_kernel_t rtm_kernel_sort = {
    .name = "sort",
    .source = "sort.cl",
    .entries = {"oems_chunk", "oems_head", "oems_step", "oems_window", NULL},
    .keys = {{"n", 1, 1 << 28, 1 << 20, "(key, value) pairs to sort"}},
    .n_keys = 1,
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
