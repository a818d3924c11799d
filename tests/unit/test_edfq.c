/* test_edfq.c — the EDF ready queue: ordering, FIFO ties, remove-by-handle, errors,
 * and a randomized run against a linear-scan reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/edfq.h"
#include "rtmgr/rng.h"

#define CAP 257

static rtm_edfq_item_t heap[CAP];
static uint32_t pos[CAP];

static void check_invariants(const rtm_edfq_t *q)
{
    for (uint32_t i = 0; i < q->n; i++) {
        assert_int_equal(q->pos[q->heap[i].handle], i);
        if (i > 0) {
            const rtm_edfq_item_t *p = &q->heap[(i - 1) / 2], *c = &q->heap[i];
            assert_true(p->deadline < c->deadline || (p->deadline == c->deadline && p->seq < c->seq));
        }
    }
    uint32_t queued = 0;
    for (uint32_t h = 0; h < q->cap; h++)
        queued += q->pos[h] != RTM_EDFQ_NONE;
    assert_int_equal(queued, q->n);
}

static void test_order_and_ties(void **state)
{
    (void)state;
    rtm_edfq_t q;
    assert_int_equal(rtm_edfq_init(&q, heap, pos, CAP), RTM_OK);
    const int64_t dl[] = {50, 10, 30, 10, 70, 30, 10};
    for (uint32_t h = 0; h < 7; h++)
        assert_int_equal(rtm_edfq_push(&q, h, dl[h]), RTM_OK);
    check_invariants(&q);
    /* deadline order; equal deadlines in push order */
    const uint32_t want[] = {1, 3, 6, 2, 5, 0, 4};
    for (uint32_t i = 0; i < 7; i++) {
        uint32_t h = 99;
        int64_t d = 0;
        assert_int_equal(rtm_edfq_peek(&q, &h, NULL), RTM_OK);
        assert_int_equal(h, want[i]);
        assert_int_equal(rtm_edfq_pop(&q, &h, &d), RTM_OK);
        assert_int_equal(h, want[i]);
        assert_int_equal(d, dl[want[i]]);
        check_invariants(&q);
    }
    uint32_t h;
    assert_int_equal(rtm_edfq_pop(&q, &h, NULL), RTM_E_EMPTY);
    assert_int_equal(rtm_edfq_peek(&q, &h, NULL), RTM_E_EMPTY);
}

static void test_remove_and_errors(void **state)
{
    (void)state;
    rtm_edfq_t q;
    assert_int_equal(rtm_edfq_init(NULL, heap, pos, CAP), RTM_E_ARG);
    assert_int_equal(rtm_edfq_init(&q, heap, pos, 0), RTM_E_ARG);
    assert_int_equal(rtm_edfq_init(&q, heap, pos, CAP), RTM_OK);
    assert_int_equal(rtm_edfq_push(&q, CAP, 1), RTM_E_RANGE);
    assert_int_equal(rtm_edfq_push(&q, 5, 1), RTM_OK);
    assert_int_equal(rtm_edfq_push(&q, 5, 2), RTM_E_STATE);
    assert_int_equal(rtm_edfq_remove(&q, 6), RTM_E_NOTFOUND);
    assert_int_equal(rtm_edfq_remove(&q, CAP + 3), RTM_E_NOTFOUND);
    assert_true(rtm_edfq_contains(&q, 5));
    assert_int_equal(rtm_edfq_remove(&q, 5), RTM_OK);
    assert_false(rtm_edfq_contains(&q, 5));
    assert_int_equal(rtm_edfq_count(&q), 0);
    /* fill every handle, then remove from the middle, the root and the last slot */
    for (uint32_t h = 0; h < CAP; h++)
        assert_int_equal(rtm_edfq_push(&q, h, (int64_t)((h * 7919u) % 101u)), RTM_OK);
    assert_int_equal(rtm_edfq_count(&q), CAP);
    uint32_t root;
    assert_int_equal(rtm_edfq_peek(&q, &root, NULL), RTM_OK);
    assert_int_equal(rtm_edfq_remove(&q, root), RTM_OK);
    assert_int_equal(rtm_edfq_remove(&q, q.heap[q.n - 1].handle), RTM_OK);
    assert_int_equal(rtm_edfq_remove(&q, q.heap[q.n / 2].handle), RTM_OK);
    check_invariants(&q);
    assert_int_equal(rtm_edfq_count(&q), CAP - 3);
    rtm_edfq_clear(&q);
    assert_int_equal(rtm_edfq_count(&q), 0);
    check_invariants(&q);
}

/* Reference: a plain list, min found by scanning. */
typedef struct {
    int64_t d;
    uint64_t seq;
    bool in;
} ref_t;

static void test_randomized_against_reference(void **state)
{
    (void)state;
    rtm_edfq_t q;
    assert_int_equal(rtm_edfq_init(&q, heap, pos, CAP), RTM_OK);
    ref_t ref[CAP];
    memset(ref, 0, sizeof(ref));
    uint64_t seq = 0;
    rtm_rng_t r;
    rtm_rng_seed(&r, 20240611);
    for (int step = 0; step < 200000; step++) {
        const uint64_t op = rtm_rng_below(&r, 10);
        const uint32_t h = (uint32_t)rtm_rng_below(&r, CAP);
        if (op < 5) { /* push: small deadline range forces many ties */
            const int64_t d = (int64_t)rtm_rng_below(&r, 64) - 8;
            const rtm_status_t st = rtm_edfq_push(&q, h, d);
            if (ref[h].in) {
                assert_int_equal(st, RTM_E_STATE);
            } else {
                assert_int_equal(st, RTM_OK);
                ref[h] = (ref_t){d, seq++, true};
            }
        } else if (op < 8) { /* pop */
            int best = -1;
            for (uint32_t i = 0; i < CAP; i++)
                if (ref[i].in && (best < 0 || ref[i].d < ref[best].d ||
                                  (ref[i].d == ref[best].d && ref[i].seq < ref[best].seq)))
                    best = (int)i;
            uint32_t got;
            int64_t d;
            const rtm_status_t st = rtm_edfq_pop(&q, &got, &d);
            if (best < 0) {
                assert_int_equal(st, RTM_E_EMPTY);
            } else {
                assert_int_equal(st, RTM_OK);
                assert_int_equal(got, (uint32_t)best);
                assert_int_equal(d, ref[best].d);
                ref[best].in = false;
            }
        } else { /* remove by handle */
            const rtm_status_t st = rtm_edfq_remove(&q, h);
            assert_int_equal(st, ref[h].in ? RTM_OK : RTM_E_NOTFOUND);
            ref[h].in = false;
        }
        if (step % 997 == 0)
            check_invariants(&q);
    }
    check_invariants(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_ties),
        cmocka_unit_test(test_remove_and_errors),
        cmocka_unit_test(test_randomized_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
