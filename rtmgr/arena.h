/* arena.h — the one memory region of a running rtmgr (STYLE rule 5: no allocation
 * after start).
 *
 * Lifecycle: load -> validate -> ALLOCATE -> start -> run -> stop.
 *   allocate: rtm_arena_plan() sizes the region from the validated config (kernel
 *             buffers of every task + the tables the caller declares), rtm_arena_create()
 *             obtains it once (mmap, pages populated), rtm_arena_alloc() hands out
 *             64-byte-aligned pieces with a bump pointer;
 *   start:    rtm_arena_seal() — from now on every rtm_arena_alloc() fails with
 *             RTM_E_STATE, so a stray allocation on the real-time path is an error,
 *             not a page fault;
 *   stop:     rtm_arena_destroy() gives the region back.
 * Nothing is freed piecewise. Peak use is tracked across resets. Debug builds (no
 * NDEBUG) fill the region with 0xA5 on reset; ASan builds also poison every byte not
 * handed out, so an overrun of one piece into the next free space is caught. */
#ifndef RTM_ARENA_H
#define RTM_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "status.h"

/* Alignment of every piece (a cache line; what rtm_kinst_bind() needs). */
#define RTM_ARENA_ALIGN 64u
/* Byte written over the region by rtm_arena_reset() in debug builds. */
#define RTM_ARENA_POISON 0xA5

typedef struct {
    unsigned char *base;
    size_t size;     /* bytes in the region */
    size_t used;     /* bytes handed out (multiple of RTM_ARENA_ALIGN) */
    size_t peak;     /* most bytes ever in use */
    uint32_t allocs; /* pieces handed out since the last reset */
    bool sealed;
    bool mapped;     /* region from rtm_arena_create() (mmap) rather than the caller */
} rtm_arena_t;

/* `bytes` rounded up to RTM_ARENA_ALIGN. Safe anywhere. */
size_t rtm_arena_round(size_t bytes);

/* Bytes the arena needs for `cfg`: every task's kernel buffers (rtm_config_task_bytes)
 * plus `table_bytes` (the sum of rtm_arena_round() of each table the caller will
 * allocate). Fails with RTM_E_CFG_LIMIT when that exceeds cfg->arena_bytes. Init only. */
rtm_status_t rtm_arena_plan(const rtm_config_t *cfg, size_t table_bytes, size_t *bytes);

/* Obtains a region of `bytes` (rounded up to pages) from the OS with its pages
 * populated. Not malloc. Init only (allocate phase). */
rtm_status_t rtm_arena_create(rtm_arena_t *a, size_t bytes);

/* Uses caller memory (static storage, RTM_ARENA_ALIGN-aligned) as the region. Init only. */
rtm_status_t rtm_arena_init(rtm_arena_t *a, void *mem, size_t bytes);

/* Hands out `bytes` (> 0), aligned to RTM_ARENA_ALIGN. RTM_E_STATE once sealed,
 * RTM_E_NOMEM when the region is exhausted, RTM_E_ARG for 0 bytes. Contents are zero on
 * a fresh region, RTM_ARENA_POISON after a reset in debug builds. Init only; after the
 * seal it allocates nothing and only fails, which is safe anywhere. */
rtm_status_t rtm_arena_alloc(rtm_arena_t *a, size_t bytes, void **out);

/* Ends the allocate phase. Idempotent. Safe anywhere. */
rtm_status_t rtm_arena_seal(rtm_arena_t *a);

/* Rewinds an unsealed arena to empty (e.g. to retry an allocation plan), poisoning it in
 * debug builds. RTM_E_STATE when sealed: a sealed arena is only destroyed. Init only. */
rtm_status_t rtm_arena_reset(rtm_arena_t *a);

/* Read-only queries. Safe on the real-time path. */
bool rtm_arena_sealed(const rtm_arena_t *a);
size_t rtm_arena_used(const rtm_arena_t *a);
size_t rtm_arena_peak(const rtm_arena_t *a);
size_t rtm_arena_size(const rtm_arena_t *a);
/* True when p points into the region's handed-out part. */
bool rtm_arena_owns(const rtm_arena_t *a, const void *p);

/* Gives the region back (munmap when created here) and zeroes `a`. Stop phase only. */
void rtm_arena_destroy(rtm_arena_t *a);

#endif
