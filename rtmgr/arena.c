/* arena.c — the bump allocator over rtmgr's one memory region (see arena.h).
 *
 * Owns the region and its bookkeeping. Invariants: 0 <= used <= size; used and every
 * piece's offset are multiples of RTM_ARENA_ALIGN (the base is page-aligned when the
 * region comes from mmap, RTM_ARENA_ALIGN-aligned when the caller provides it);
 * peak >= used; once sealed, nothing changes until destroy. */
#include "arena.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define RTM_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RTM_ARENA_ASAN 1
#endif
#endif

#ifdef RTM_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

size_t rtm_arena_round(size_t bytes)
{
    return bytes > SIZE_MAX - (RTM_ARENA_ALIGN - 1) ? SIZE_MAX & ~(size_t)(RTM_ARENA_ALIGN - 1)
                                                    : (bytes + RTM_ARENA_ALIGN - 1) & ~(size_t)(RTM_ARENA_ALIGN - 1);
}

rtm_status_t rtm_arena_plan(const rtm_config_t *cfg, size_t table_bytes, size_t *bytes)
{
    if (!cfg || !bytes)
        return RTM_E_ARG;
    uint64_t kernel;
    const rtm_status_t st = rtm_config_kernel_bytes(cfg, &kernel);
    if (st != RTM_OK)
        return st;
    const uint64_t tables = rtm_arena_round(table_bytes);
    if (kernel > UINT64_MAX - tables || kernel + tables > cfg->arena_bytes ||
        kernel + tables > SIZE_MAX)
        return RTM_E_CFG_LIMIT;
    *bytes = (size_t)(kernel + tables);
    return RTM_OK;
}

static rtm_status_t setup(rtm_arena_t *a, unsigned char *base, size_t size, bool mapped)
{
    memset(a, 0, sizeof(*a));
    a->base = base;
    a->size = size;
    a->mapped = mapped;
    ARENA_POISON(a->base, a->size);
    return RTM_OK;
}

rtm_status_t rtm_arena_create(rtm_arena_t *a, size_t bytes)
{
    if (!a || bytes == 0)
        return RTM_E_ARG;
    const long page = sysconf(_SC_PAGESIZE);
    const size_t ps = page > 0 ? (size_t)page : 4096u;
    if (bytes > SIZE_MAX - ps)
        return RTM_E_NOMEM;
    const size_t size = (bytes + ps - 1) / ps * ps;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;
#endif
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p == MAP_FAILED)
        return RTM_E_NOMEM;
    return setup(a, p, size, true);
}

rtm_status_t rtm_arena_init(rtm_arena_t *a, void *mem, size_t bytes)
{
    if (!a || !mem || bytes == 0 || ((uintptr_t)mem & (RTM_ARENA_ALIGN - 1)))
        return RTM_E_ARG;
    return setup(a, mem, bytes & ~(size_t)(RTM_ARENA_ALIGN - 1), false);
}

rtm_status_t rtm_arena_alloc(rtm_arena_t *a, size_t bytes, void **out)
{
    if (!a || !out)
        return RTM_E_ARG;
    *out = NULL;
    if (a->sealed)
        return RTM_E_STATE;
    if (bytes == 0 || !a->base)
        return RTM_E_ARG;
    const size_t need = rtm_arena_round(bytes);
    if (need < bytes || need > a->size - a->used)
        return RTM_E_NOMEM;
    unsigned char *p = a->base + a->used;
    ARENA_UNPOISON(p, bytes);
    a->used += need;
    a->allocs++;
    if (a->used > a->peak)
        a->peak = a->used;
    *out = p;
    return RTM_OK;
}

rtm_status_t rtm_arena_seal(rtm_arena_t *a)
{
    if (!a || !a->base)
        return RTM_E_ARG;
    a->sealed = true;
    return RTM_OK;
}

rtm_status_t rtm_arena_reset(rtm_arena_t *a)
{
    if (!a || !a->base)
        return RTM_E_ARG;
    if (a->sealed)
        return RTM_E_STATE;
#ifndef NDEBUG
    ARENA_UNPOISON(a->base, a->used);
    memset(a->base, RTM_ARENA_POISON, a->used);
#endif
    ARENA_POISON(a->base, a->size);
    a->used = 0;
    a->allocs = 0;
    return RTM_OK;
}

bool rtm_arena_sealed(const rtm_arena_t *a) { return a && a->sealed; }
size_t rtm_arena_used(const rtm_arena_t *a) { return a ? a->used : 0; }
size_t rtm_arena_peak(const rtm_arena_t *a) { return a ? a->peak : 0; }
size_t rtm_arena_size(const rtm_arena_t *a) { return a ? a->size : 0; }

bool rtm_arena_owns(const rtm_arena_t *a, const void *p)
{
    const unsigned char *c = p;
    return a && a->base && c >= a->base && c < a->base + a->used;
}

void rtm_arena_destroy(rtm_arena_t *a)
{
    if (!a)
        return;
    if (a->base) {
        ARENA_UNPOISON(a->base, a->size);
        if (a->mapped)
            munmap(a->base, a->size);
    }
    memset(a, 0, sizeof(*a));
}
