/* kernel.c — the kernel catalogue and the instance helpers (see kernel.h).
 * The catalogue is the static table of descriptors listed in kernels/kernels.h. */
#include "kernel.h"

#include <stdint.h>
#include <string.h>

#include "kernels/kernels.h"

static const rtm_kernel_t *const catalogue[] = {
#define RTM_KERNEL_ENTRY(name) &rtm_kernel_##name,
    RTM_KERNEL_LIST(RTM_KERNEL_ENTRY)
#undef RTM_KERNEL_ENTRY
};

_Static_assert(sizeof(catalogue) / sizeof(catalogue[0]) <= RTM_MAX_KERNELS,
               "more kernels than RTM_MAX_KERNELS");

uint32_t rtm_kernel_count(void) { return (uint32_t)(sizeof(catalogue) / sizeof(catalogue[0])); }

const rtm_kernel_t *rtm_kernel_at(uint32_t index)
{
    return index < rtm_kernel_count() ? catalogue[index] : NULL;
}

const rtm_kernel_t *rtm_kernel_find(const char *name)
{
    for (uint32_t i = 0; name && i < rtm_kernel_count(); i++)
        if (strcmp(catalogue[i]->name, name) == 0)
            return catalogue[i];
    return NULL;
}

int rtm_kernel_index(const rtm_kernel_t *kernel)
{
    for (uint32_t i = 0; i < rtm_kernel_count(); i++)
        if (catalogue[i] == kernel)
            return (int)i;
    return -1;
}

int rtm_kernel_key(const rtm_kernel_t *kernel, const char *key)
{
    for (uint32_t i = 0; kernel && key && i < kernel->n_keys; i++)
        if (strcmp(kernel->keys[i].name, key) == 0)
            return (int)i;
    return -1;
}

void rtm_kinst_init(rtm_kinst_t *k, const rtm_kernel_t *kernel)
{
    memset(k, 0, sizeof(*k));
    k->kernel = kernel;
    for (uint32_t i = 0; i < kernel->n_keys; i++)
        k->size[i] = kernel->keys[i].def;
    k->tune = kernel->tune_default;
}

rtm_status_t rtm_kinst_plan(rtm_kinst_t *k)
{
    if (!k || !k->kernel || k->tune.wg == 0 || k->tune.vec == 0)
        return RTM_E_ARG;
    if (!(k->kernel->vec_allowed & (1u << k->tune.vec)))
        return RTM_E_RANGE;
    for (uint32_t i = 0; i < k->kernel->n_keys; i++)
        if (k->size[i] < k->kernel->keys[i].min || k->size[i] > k->kernel->keys[i].max)
            return RTM_E_RANGE;
    memset(&k->plan, 0, sizeof(k->plan));
    const rtm_status_t st = k->kernel->plan(k, &k->plan);
    if (st == RTM_OK && (k->plan.n_bufs > RTM_KBUF_MAX || k->plan.launches == 0))
        return RTM_E_RANGE;
    return st;
}

static size_t align64(size_t n) { return (n + 63u) & ~(size_t)63u; }

size_t rtm_kinst_bytes(const rtm_kinst_t *k)
{
    size_t total = 0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        total += align64(k->plan.buf[i].bytes);
    return total;
}

void rtm_kinst_cost(const rtm_kinst_t *k, rtm_cost_t *cost)
{
    memset(cost, 0, sizeof(*cost));
    k->kernel->cost(k, cost);
    cost->bytes_ws = (double)rtm_kinst_dir_bytes(k, RTM_BUF_INOUT | RTM_BUF_SCRATCH);
    if (cost->launches_busy == 0 || cost->launches_busy > k->plan.launches)
        cost->launches_busy = k->plan.launches; /* every launch works */
}

size_t rtm_kinst_bind(rtm_kinst_t *k, void *arena, size_t arena_bytes)
{
    if (rtm_kinst_plan(k) != RTM_OK)
        return 0;
    const size_t need = rtm_kinst_bytes(k);
    if (need > arena_bytes || ((uintptr_t)arena & 63u))
        return 0;
    unsigned char *p = arena;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        k->host[i] = p;
        p += align64(k->plan.buf[i].bytes);
    }
    return need;
}

uint64_t rtm_kinst_blocks(const rtm_kinst_t *k)
{
    return rtm_kinst_blocks_upto(k, k->plan.launches);
}

uint64_t rtm_kinst_blocks_upto(const rtm_kinst_t *k, uint32_t launches)
{
    uint64_t blocks = 0;
    for (uint32_t l = 0; l < launches && l < k->plan.launches; l++) {
        rtm_klaunch_t kl = {0, 0};
        k->kernel->launch(k, l, &kl);
        blocks += kl.blocks;
    }
    return blocks;
}

uint32_t rtm_kinst_bufs(const rtm_kinst_t *k, unsigned dir)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        n += (k->plan.buf[i].dir & dir) != 0;
    return n;
}

size_t rtm_kinst_dir_bytes(const rtm_kinst_t *k, unsigned dir)
{
    size_t n = 0;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        n += (k->plan.buf[i].dir & dir) ? k->plan.buf[i].bytes : 0;
    return n;
}

void rtm_kinst_put_back(rtm_kinst_t *k, const void *const init[RTM_KBUF_MAX])
{
    for (uint32_t b = 0; b < k->plan.n_bufs; b++)
        if (init[b])
            memcpy(k->host[b], init[b], k->plan.buf[b].bytes);
}

void rtm_kinst_run_cpu(const rtm_kinst_t *k)
{
    for (uint32_t l = 0; l < k->plan.launches; l++) {
        rtm_klaunch_t kl;
        k->kernel->launch(k, l, &kl);
        for (uint32_t b = 0; b < kl.blocks; b++)
            k->kernel->cpu_block(k, l, b);
    }
}

void rtm_kernel_launch_one(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    out->entry = 0;
    out->blocks = k->plan.blocks_max;
}

uint32_t rtm_kernel_args_bufs(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)l;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        out[i] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = i};
    return k->plan.n_bufs;
}

void rtm_kernel_block_none(const rtm_kinst_t *k, uint32_t l, uint32_t b)
{
    (void)k;
    (void)l;
    (void)b;
}

size_t rtm_kernel_compare_none(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len)
{
    (void)a;
    (void)b;
    (void)why;
    (void)len;
    return 0;
}
