/* edfq.c — static EDF ready queue: binary min-heap with a handle -> slot table.
 *
 * Invariants (checked by tests/unit/test_edfq.c):
 *   - heap[0..n) is a min-heap under before(): (deadline, seq) lexicographic;
 *   - for every queued handle h, heap[pos[h]].handle == h; pos[h] == NONE otherwise;
 *   - seq strictly increases with every push, so no two entries compare equal.
 * Owns nothing: both arrays belong to the caller. */
#include "edfq.h"

#include <stddef.h>

static bool before(const rtm_edfq_item_t *a, const rtm_edfq_item_t *b)
{
    if (a->deadline != b->deadline)
        return a->deadline < b->deadline;
    return a->seq < b->seq;
}

static void place(rtm_edfq_t *q, uint32_t i, rtm_edfq_item_t it)
{
    q->heap[i] = it;
    q->pos[it.handle] = i;
}

static void sift_up(rtm_edfq_t *q, uint32_t i)
{
    const rtm_edfq_item_t it = q->heap[i];
    while (i > 0) {
        const uint32_t parent = (i - 1) / 2;
        if (!before(&it, &q->heap[parent]))
            break;
        place(q, i, q->heap[parent]);
        i = parent;
    }
    place(q, i, it);
}

static void sift_down(rtm_edfq_t *q, uint32_t i)
{
    const rtm_edfq_item_t it = q->heap[i];
    for (;;) {
        const uint32_t l = 2 * i + 1;
        if (l >= q->n)
            break;
        uint32_t c = l;
        if (l + 1 < q->n && before(&q->heap[l + 1], &q->heap[l]))
            c = l + 1;
        if (!before(&q->heap[c], &it))
            break;
        place(q, i, q->heap[c]);
        i = c;
    }
    place(q, i, it);
}

rtm_status_t rtm_edfq_init(rtm_edfq_t *q, rtm_edfq_item_t *heap, uint32_t *pos, uint32_t cap)
{
    if (!q || !heap || !pos || cap == 0 || cap == RTM_EDFQ_NONE)
        return RTM_E_ARG;
    q->heap = heap;
    q->pos = pos;
    q->cap = cap;
    rtm_edfq_clear(q);
    return RTM_OK;
}

void rtm_edfq_clear(rtm_edfq_t *q)
{
    for (uint32_t i = 0; i < q->cap; i++)
        q->pos[i] = RTM_EDFQ_NONE;
    q->n = 0;
    q->seq = 0;
}

rtm_status_t rtm_edfq_push(rtm_edfq_t *q, uint32_t handle, int64_t deadline)
{
    if (handle >= q->cap)
        return RTM_E_RANGE;
    if (q->pos[handle] != RTM_EDFQ_NONE)
        return RTM_E_STATE;
    if (q->n >= q->cap)
        return RTM_E_FULL; /* unreachable: one slot per distinct handle */
    const uint32_t i = q->n++;
    place(q, i, (rtm_edfq_item_t){.deadline = deadline, .seq = q->seq++, .handle = handle});
    sift_up(q, i);
    return RTM_OK;
}

rtm_status_t rtm_edfq_peek(const rtm_edfq_t *q, uint32_t *handle, int64_t *deadline)
{
    if (q->n == 0)
        return RTM_E_EMPTY;
    if (handle)
        *handle = q->heap[0].handle;
    if (deadline)
        *deadline = q->heap[0].deadline;
    return RTM_OK;
}

/* Removes the entry at heap index i and restores the heap. */
static void remove_at(rtm_edfq_t *q, uint32_t i)
{
    q->pos[q->heap[i].handle] = RTM_EDFQ_NONE;
    const uint32_t last = --q->n;
    if (i == last)
        return;
    const rtm_edfq_item_t moved = q->heap[last];
    const bool up = before(&moved, &q->heap[i]);
    place(q, i, moved);
    if (up)
        sift_up(q, i);
    else
        sift_down(q, i);
}

rtm_status_t rtm_edfq_pop(rtm_edfq_t *q, uint32_t *handle, int64_t *deadline)
{
    const rtm_status_t st = rtm_edfq_peek(q, handle, deadline);
    if (st == RTM_OK)
        remove_at(q, 0);
    return st;
}

rtm_status_t rtm_edfq_remove(rtm_edfq_t *q, uint32_t handle)
{
    if (handle >= q->cap || q->pos[handle] == RTM_EDFQ_NONE)
        return RTM_E_NOTFOUND;
    remove_at(q, q->pos[handle]);
    return RTM_OK;
}

bool rtm_edfq_contains(const rtm_edfq_t *q, uint32_t handle)
{
    return handle < q->cap && q->pos[handle] != RTM_EDFQ_NONE;
}
