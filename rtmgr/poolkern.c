/* poolkern.c — the worker pool's synthetic kernel (see poolkern.h). Owns its
 * descriptor: a plan without buffers, launches of size[0] blocks, and a block that
 * spins size[2] ns on the monotonic clock. */
#include "poolkern.h"
#include "os.h"

#include <string.h>

static rtm_status_t pk_plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    p->n_bufs = 0;
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
    (void)b;
    const int64_t ns = k->size[2];
    if (ns <= 0)
        return;
    const int64_t until = rtm_os_now_ns() + ns;
    while (rtm_os_now_ns() < until) {
    }
}

static void pk_cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    memset(c, 0, sizeof(*c));
    c->li = (double)k->size[0] * (double)k->size[1];
    c->launches = (uint32_t)k->size[1];
}

const rtm_kernel_t rtm_poolkern = {
    .name = "pool_probe",
    .source = "",
    .entries = {NULL},
    .keys = {{"blocks", 1, 1 << 22, 1, "blocks per launch"},
             {"launches", 1, 4096, 1, "launches per job"},
             {"block_ns", 0, 1000000000, 0, "nanoseconds each block spins"}},
    .n_keys = 3,
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
    rtm_kinst_init(k, &rtm_poolkern);
    k->size[0] = blocks;
    k->size[1] = launches;
    k->size[2] = block_ns;
    return rtm_kinst_plan(k);
}
