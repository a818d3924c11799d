/* poolkern.c — the worker pool's synthetic kernel (see poolkern.h). Owns its
 * descriptor: a plan with no buffer (or one of size[3] bytes per block), launches of
 * size[0] blocks, and a block that spins size[2] ns on the monotonic clock, then reads and
 * writes its slice of the buffer. */
#include "poolkern.h"
#include "os.h"

#include <string.h>

static rtm_status_t pk_plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    p->n_bufs = 0;
    if (k->size[3] > 0) { /* each block's slice: whole 8-byte words */
        p->n_bufs = 1;
        p->buf[0] = (rtm_bufspec_t){(size_t)k->size[0] * (size_t)k->size[3], RTM_BUF_INOUT};
    }
    p->launches = (uint32_t)k->size[1];
    p->blocks_max = (uint32_t)k->size[0];
    return RTM_OK;
}

static void pk_fill(rtm_kinst_t *k, uint64_t seed)
{
    (void)k;
    (void)seed;
}

static void pk_block(const rtm_kinst_t *k, uint32_t l, uint32_t b)
{
    (void)l;
    const int64_t ns = k->size[2];
    if (ns > 0) {
        const int64_t until = rtm_os_now_ns() + ns;
        while (rtm_os_now_ns() < until) {
        }
    }
    if (k->size[3] <= 0 || !k->host[0])
        return;
    /* every word of the block's slice read and written once, after the spin */
    const size_t words = (size_t)k->size[3] / sizeof(uint64_t);
    uint64_t *w = (uint64_t *)k->host[0] + (size_t)b * words;
    for (size_t i = 0; i < words; i++)
        w[i] += 1;
}

static void pk_cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    memset(c, 0, sizeof(*c));
    c->li = (double)k->size[0] * (double)k->size[1];
    c->launches = (uint32_t)k->size[1];
    c->bytes_ws = (double)k->size[0] * (double)k->size[3];
    c->bytes_dev = 2.0 * c->bytes_ws * (double)k->size[1]; /* read and written */
}

const rtm_kernel_t rtm_poolkern = {
    .name = "pool_probe",
    .source = "",
    .entries = {NULL},
    .keys = {{"blocks", 1, 1 << 22, 1, "blocks per launch"},
             {"launches", 1, 4096, 1, "launches per job"},
             {"block_ns", 0, 1000000000, 0, "nanoseconds each block spins"},
             {"block_bytes", 0, 1 << 26, 0, "bytes each block reads and writes (8-byte words)"}},
    .n_keys = 4,
    .vec_allowed = 1u << 1,
    .tune_default = {1, 1},
    .plan = pk_plan,
    .launch = rtm_kernel_launch_one, /* size[0] blocks each launch (blocks_max) */
    .args = rtm_kernel_args_bufs,     /* none: no buffers */
    .fill = pk_fill,
    .cpu_block = pk_block,
    .cost = pk_cost,
    .compare = rtm_kernel_compare_none,
};

rtm_status_t rtm_poolkern_make(rtm_kinst_t *k, uint32_t blocks, uint32_t launches,
                               int64_t block_ns)
{
    return rtm_poolkern_make_data(k, blocks, launches, block_ns, 0);
}

rtm_status_t rtm_poolkern_make_data(rtm_kinst_t *k, uint32_t blocks, uint32_t launches,
                                    int64_t block_ns, uint32_t block_bytes)
{
    rtm_kinst_init(k, &rtm_poolkern);
    k->size[0] = blocks;
    k->size[1] = launches;
    k->size[2] = block_ns;
    k->size[3] = block_bytes / sizeof(uint64_t) * sizeof(uint64_t);
    return rtm_kinst_plan(k);
}
