/* edfq.h — a static earliest-deadline-first ready queue.
 *
 * A binary min-heap over caller-provided arrays, keyed by absolute deadline, ties
 * broken first-in first-out (an insertion sequence number), so the order is total and
 * deterministic. Items are identified by a handle: a small integer in [0, capacity)
 * that the caller owns (the executive uses its job-slot index). A position table maps
 * each handle to its heap slot, which makes remove-by-handle O(log n).
 *
 * No allocation, no locks: the caller serialises access. push, pop, peek, remove are
 * O(log n) or better and safe on the real-time path. */
#ifndef RTM_EDFQ_H
#define RTM_EDFQ_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

/* One heap entry. */
typedef struct {
    int64_t deadline; /* absolute deadline (ns, CLOCK_MONOTONIC); the key */
    uint64_t seq;     /* insertion order: FIFO among equal deadlines */
    uint32_t handle;  /* caller's handle, < capacity */
} rtm_edfq_item_t;

typedef struct {
    rtm_edfq_item_t *heap; /* capacity entries, caller-provided */
    uint32_t *pos;         /* capacity entries: heap index of a handle, or RTM_EDFQ_NONE */
    uint32_t cap;
    uint32_t n;
    uint64_t seq;
} rtm_edfq_t;

#define RTM_EDFQ_NONE UINT32_MAX

/* Prepares an empty queue over `heap` and `pos` (each `cap` entries, owned by the
 * caller and kept alive as long as the queue). Init only; returns RTM_E_ARG on NULL or
 * cap == 0. */
rtm_status_t rtm_edfq_init(rtm_edfq_t *q, rtm_edfq_item_t *heap, uint32_t *pos, uint32_t cap);

/* Empties the queue. Real-time safe, O(n). */
void rtm_edfq_clear(rtm_edfq_t *q);

/* Inserts `handle` with absolute `deadline`. RTM_E_RANGE if handle >= capacity,
 * RTM_E_STATE if it is already queued, RTM_E_FULL never (one slot per handle).
 * Real-time safe, O(log n). */
rtm_status_t rtm_edfq_push(rtm_edfq_t *q, uint32_t handle, int64_t deadline);

/* Removes the earliest-deadline item; *handle (and *deadline when not NULL) get it.
 * RTM_E_EMPTY when empty. Real-time safe, O(log n). */
rtm_status_t rtm_edfq_pop(rtm_edfq_t *q, uint32_t *handle, int64_t *deadline);

/* Looks at the earliest-deadline item without removing it. RTM_E_EMPTY when empty.
 * Real-time safe, O(1). */
rtm_status_t rtm_edfq_peek(const rtm_edfq_t *q, uint32_t *handle, int64_t *deadline);

/* Removes `handle` wherever it is. RTM_E_NOTFOUND when it is not queued.
 * Real-time safe, O(log n). */
rtm_status_t rtm_edfq_remove(rtm_edfq_t *q, uint32_t handle);

/* True when `handle` is queued. Real-time safe, O(1). */
bool rtm_edfq_contains(const rtm_edfq_t *q, uint32_t handle);

/* Items queued. Real-time safe. */
static inline uint32_t rtm_edfq_count(const rtm_edfq_t *q) { return q->n; }

/* The i-th heap entry (0 <= i < count), in heap order, not deadline order: for
 * iterating over everything queued (backlog sums, overrun scans). Real-time safe. */
static inline const rtm_edfq_item_t *rtm_edfq_at(const rtm_edfq_t *q, uint32_t i)
{
    return i < q->n ? &q->heap[i] : (const rtm_edfq_item_t *)0;
}

#endif
