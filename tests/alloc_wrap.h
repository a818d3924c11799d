/* alloc_wrap.h — counting allocator wrappers for the "no allocation after start" tests.
 * The test's CMake fragment links it with
 *   -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=aligned_alloc,
 *   --wrap=posix_memalign
 * so every such call from librtmgr.a and the test goes through these; while
 * alloc_counting is set each call (free of a non-NULL pointer included) adds one to
 * alloc_calls. The OpenCL runtime (a shared library) is not wrapped: its allocations are
 * not rtmgr's. Include in exactly one file of the test. */
#ifndef RTM_TEST_ALLOC_WRAP_H
#define RTM_TEST_ALLOC_WRAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

static atomic_bool alloc_counting;
static atomic_ulong alloc_calls;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__real_aligned_alloc(size_t a, size_t n);
int __real_posix_memalign(void **p, size_t a, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_aligned_alloc(size_t a, size_t n);
int __wrap_posix_memalign(void **p, size_t a, size_t n);

static inline void alloc_note(void)
{
    if (atomic_load(&alloc_counting))
        atomic_fetch_add(&alloc_calls, 1);
}

void *__wrap_malloc(size_t n) { alloc_note(); return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { alloc_note(); return __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { alloc_note(); return __real_realloc(p, n); }
void __wrap_free(void *p)
{
    if (p)
        alloc_note();
    __real_free(p);
}
void *__wrap_aligned_alloc(size_t a, size_t n) { alloc_note(); return __real_aligned_alloc(a, n); }
int __wrap_posix_memalign(void **p, size_t a, size_t n)
{
    alloc_note();
    return __real_posix_memalign(p, a, n);
}

#endif
