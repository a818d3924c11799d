/* empty.c — descriptor and CPU twin of empty.cl (seed 000: the empty kernel, for the
 * launch latency).
 *
 * Size key `blocks`: work-groups in the one launch (default 1). No buffers: the kernel
 * takes only the four block arguments. The twin does nothing.
 * Cost counts: li = blocks * wg work-items, each running only the block prologue and
 * epilogue (abort read, two barriers, done mark by work-item 0: Z = 4); z = 0 (no
 * loop body); no bytes. */
#include <string.h>

#include "kernels/kernels.h"

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    p->n_bufs = 0;
    p->launches = 1;
    p->blocks_max = (uint32_t)k->size[0];
    return RTM_OK;
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    (void)k;
    (void)seed;
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    memset(c, 0, sizeof(*c));
    c->li = (double)k->size[0] * k->tune.wg;
    c->Z = 4.0;
    c->launches = 1;
}

const rtm_kernel_t rtm_kernel_empty = {
    .name = "empty",
    .source = "empty.cl",
    .entries = {"empty", NULL},
    .keys = {{"blocks", 1, 1 << 20, 1, "work-groups in the one launch"}},
    .n_keys = 1,
    .vec_allowed = 1u << 1,
    .tune_default = {256, 1},
    .plan = plan,
    .launch = rtm_kernel_launch_one, /* size[0] blocks (blocks_max) */
    .args = rtm_kernel_args_bufs,     /* none: no buffers */
    .fill = fill,
    .cpu_block = rtm_kernel_block_none,
    .cost = cost,
    .compare = rtm_kernel_compare_none,
};
