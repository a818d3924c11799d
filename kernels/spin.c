/* spin.c — descriptor and CPU twin of spin.cl, the synthetic kernel of the preemption
 * experiments (response time and overhead vs kernel length and grid shape).
 *
 * Size keys: `blocks` (grid size), `work` (loop iterations per element), `per_item`
 * (elements per work-item: fewer, longer blocks as in seed 002 table 2), `launches`
 * (ping-pong passes). Elements n = blocks * wg * per_item; the value of element i after
 * launch l depends only on i, so splitting the grid (smaller per_item, more blocks)
 * changes no result. Cost counts, from the kernel body: per iteration one multiply-add
 * and one shift-xor (4 scalar operations); per element one load and one store
 * (unit-stride) and 4 index operations. */
#include <string.h>

#include "kernels/kernels.h"

enum { A, B };
enum { K_BLOCKS, K_WORK, K_PER_ITEM, K_LAUNCHES };

static uint64_t elems(const rtm_kinst_t *k)
{
    return (uint64_t)k->size[K_BLOCKS] * k->tune.wg * (uint64_t)k->size[K_PER_ITEM];
}

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const size_t bytes = (size_t)elems(k) * sizeof(uint32_t);
    p->n_bufs = 2;
    p->buf[A] = (rtm_bufspec_t){bytes, RTM_BUF_INOUT};
    p->buf[B] = (rtm_bufspec_t){bytes, RTM_BUF_INOUT};
    p->launches = (uint32_t)k->size[K_LAUNCHES];
    p->blocks_max = (uint32_t)k->size[K_BLOCKS];
    return RTM_OK;
}

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    out->entry = 0;
    out->blocks = (uint32_t)k->size[K_BLOCKS];
}

static rtm_karg_t value_u32(uint32_t v)
{
    rtm_karg_t a = {.kind = RTM_KARG_VALUE, .bytes = sizeof(uint32_t)};
    memcpy(a.value, &v, sizeof(v));
    return a;
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    out[0] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = (l & 1u) ? B : A};
    out[1] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = (l & 1u) ? A : B};
    out[2] = value_u32((uint32_t)k->size[K_WORK]);
    out[3] = value_u32((uint32_t)k->size[K_PER_ITEM]);
    return 4;
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    uint32_t *a = k->host[A];
    const uint64_t n = elems(k);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t z = seed + i * 0x9E3779B97F4A7C15ull; /* splitmix64 */
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        a[i] = (uint32_t)(z ^ (z >> 31));
    }
    memset(k->host[B], 0, k->plan.buf[B].bytes);
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    const uint32_t *src = k->host[(l & 1u) ? B : A];
    uint32_t *dst = k->host[(l & 1u) ? A : B];
    const uint32_t work = (uint32_t)k->size[K_WORK];
    const size_t n = (size_t)k->tune.wg * (size_t)k->size[K_PER_ITEM];
    const size_t lo = (size_t)blk * n;
    for (size_t i = lo; i < lo + n; i++) {
        uint32_t x = src[i];
        for (uint32_t t = 0; t < work; t++) {
            x = x * 1664525u + 1013904223u;
            x ^= x >> 15;
        }
        dst[i] = x;
    }
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = (double)elems(k), l = (double)k->size[K_LAUNCHES];
    memset(c, 0, sizeof(*c));
    c->li = n * l;
    c->z[RTM_LOC_SCALAR] = 4.0 * (double)k->size[K_WORK];
    c->z[RTM_LOC_UNIT] = 2.0;
    c->Z = 4.0 * (double)k->size[K_WORK] + 2.0 + 4.0;
    c->md = 1.0;
    /* both ping-pong buffers are RTM_BUF_INOUT: a job sends and reads back both */
    c->bytes_in = 8.0 * n;
    c->bytes_out = 8.0 * n;
    c->bytes_dev = 8.0 * n * l;
    c->launches = (uint32_t)k->size[K_LAUNCHES];
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    const int out = (x->size[K_LAUNCHES] & 1) ? B : A;
    return rtm_compare_u32(x->host[out], y->host[out], (size_t)elems(x), why, len);
}

/* Fewer elements per work-item, proportionally more blocks (powers of two). */
static uint32_t split(rtm_kinst_t *k, uint32_t factor)
{
    uint32_t f = 1;
    while (f * 2 <= factor && (k->size[K_PER_ITEM] % (int64_t)(f * 2)) == 0 &&
           k->size[K_BLOCKS] * (int64_t)(f * 2) <= (1 << 20))
        f *= 2;
    k->size[K_PER_ITEM] /= f;
    k->size[K_BLOCKS] *= f;
    return f;
}

const rtm_kernel_t rtm_kernel_spin = {
    .name = "spin",
    .source = "spin.cl",
    .entries = {"spin", NULL},
    .keys = {{"blocks", 1, 1 << 20, 64, "blocks (work-groups) in the grid"},
             {"work", 1, 1 << 30, 1000, "loop iterations per element"},
             {"per_item", 1, 1 << 16, 1, "elements per work-item"},
             {"launches", 1, 64, 1, "passes (ping-pong between two buffers)"}},
    .n_keys = 4,
    .vec_allowed = 1u << 1,
    .tune_default = {256, 1},
    .plan = plan,
    .launch = launch,
    .args = args,
    .fill = fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = compare,
    .split = split,
    .flags = RTM_KF_NO_STATE, /* the same steps whatever the values */
};
