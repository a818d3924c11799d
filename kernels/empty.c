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

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    out->entry = 0;
    out->blocks = (uint32_t)k->size[0];
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)k;
    (void)l;
    (void)out;
    return 0;
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    (void)k;
    (void)seed;
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)k;
    (void)l;
    (void)blk;
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    memset(c, 0, sizeof(*c));
    c->li = (double)k->size[0] * k->tune.wg;
    c->Z = 4.0;
    c->launches = 1;
}

static size_t compare(const rtm_kinst_t *x, const rtm_kinst_t *y, char *why, size_t len)
{
    (void)x;
    (void)y;
    (void)why;
    (void)len;
    return 0;
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
    .launch = launch,
    .args = args,
    .fill = fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = compare,
};
