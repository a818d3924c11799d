/* test_place.c — every placement rule of place.h on fixed predictions, a small
 * simulated-clock run, and the decision-latency micro-benchmark (printed; target <= 2 us median). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "rtmgr/place.h"

#define MS 1000000LL

static rtm_place_dev_t cpu(int64_t predict, int64_t backlog)
{
    return (rtm_place_dev_t){.kind = RTM_DEV_CPU, .predict_ns = predict, .backlog_ns = backlog};
}

static rtm_place_dev_t gpu(int64_t predict, int64_t backlog)
{
    return (rtm_place_dev_t){.kind = RTM_DEV_GPU, .can_abort = true, .predict_ns = predict,
                             .backlog_ns = backlog, .abort_ns = MS / 10};
}

static rtm_place_job_t job(int64_t now, int64_t rel_deadline, rtm_crit_t crit)
{
    return (rtm_place_job_t){.task = 0, .release_ns = now, .deadline_ns = now + rel_deadline,
                             .crit = crit, .placement = RTM_PLACE_AUTO, .preemptible = true};
}

static rtm_place_out_t decide(rtm_policy_t p, const rtm_place_job_t *j, int64_t now,
                              const rtm_place_dev_t *d, uint32_t n)
{
    rtm_place_out_t o;
    rtm_place_decide(p, j, now, d, n, &o);
    return o;
}

static void test_met_earliest_finish(void **state)
{
    (void)state;
    const int64_t now = 1000 * MS;
    rtm_place_dev_t d[3] = {cpu(8 * MS, 0), gpu(2 * MS, 3 * MS), gpu(2 * MS, 1 * MS)};
    rtm_place_job_t j = job(now, 10 * MS, RTM_CRIT_HARD);
    rtm_place_out_t o = decide(RTM_POLICY_MODEL, &j, now, d, 3);
    assert_int_equal(o.device, 2);
    assert_int_equal(o.reason, RTM_REASON_MET_EARLIEST);
    assert_int_equal(o.finish_ns, now + 3 * MS);
    assert_false(o.preempt);
    assert_false(o.predicted_miss);
    assert_false(o.overload);
    /* the CPU has the earliest finish once the GPUs are loaded */
    d[1].backlog_ns = d[2].backlog_ns = 7 * MS;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 3);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.finish_ns, now + 8 * MS);
}

static void test_ties_prefer_cpu_then_lower_index(void **state)
{
    (void)state;
    const int64_t now = 5 * MS;
    rtm_place_job_t j = job(now, 10 * MS, RTM_CRIT_SOFT);
    /* equal finish on a GPU (index 0) and the CPU (index 1): the CPU wins */
    rtm_place_dev_t d[3] = {gpu(2 * MS, 2 * MS), cpu(4 * MS, 0), gpu(1 * MS, 3 * MS)};
    rtm_place_out_t o = decide(RTM_POLICY_MODEL, &j, now, d, 3);
    assert_int_equal(o.device, 1);
    /* two GPUs alone with equal finish: the lower index wins */
    d[1].predict_ns = -1;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 3);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.finish_ns, now + 4 * MS);
}

static void test_only_device_and_task_placement(void **state)
{
    (void)state;
    const int64_t now = 0;
    rtm_place_dev_t d[2] = {cpu(9 * MS, 0), gpu(1 * MS, 0)};
    rtm_place_job_t j = job(now, 10 * MS, RTM_CRIT_FIRM);
    j.placement = RTM_PLACE_CPU;
    rtm_place_out_t o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.reason, RTM_REASON_ONLY_DEVICE);
    j.placement = RTM_PLACE_GPU;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.reason, RTM_REASON_ONLY_DEVICE);
    /* a device with no prediction (no instance) is never a candidate */
    j.placement = RTM_PLACE_AUTO;
    d[1].predict_ns = -1;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.reason, RTM_REASON_ONLY_DEVICE);
    /* nothing at all */
    d[0].predict_ns = -1;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, -1);
    assert_int_equal(o.reason, RTM_REASON_NO_DEVICE);
    o = decide(RTM_POLICY_MODEL, &j, now, d, 0);
    assert_int_equal(o.reason, RTM_REASON_NO_DEVICE);
}

static void test_preempt_when_nothing_meets(void **state)
{
    (void)state;
    const int64_t now = 100 * MS;
    rtm_place_dev_t d[2] = {cpu(20 * MS, 0), gpu(2 * MS, 12 * MS)};
    /* the GPU runs a preemptible job with a later deadline: 10 ms left + 2 ms queued */
    d[1].running = true;
    d[1].run_preemptible = true;
    d[1].run_deadline_ns = now + 50 * MS;
    d[1].run_remaining_ns = 10 * MS;
    rtm_place_job_t j = job(now, 5 * MS, RTM_CRIT_HARD);
    rtm_place_out_t o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.reason, RTM_REASON_PREEMPT);
    assert_true(o.preempt);
    assert_int_equal(o.finish_ns, now + MS / 10 + 2 * MS + 2 * MS);
    assert_false(o.predicted_miss);
    /* firm jobs preempt too */
    j.crit = RTM_CRIT_FIRM;
    assert_true(decide(RTM_POLICY_MODEL, &j, now, d, 2).preempt);
    /* soft jobs never preempt: earliest finish, predicted miss, overload */
    j.crit = RTM_CRIT_SOFT;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_false(o.preempt);
    assert_int_equal(o.reason, RTM_REASON_MISS_OVERLOAD);
    assert_int_equal(o.device, 1);
    assert_true(o.predicted_miss && o.overload);
    /* not when the running job's deadline is earlier or equal */
    j.crit = RTM_CRIT_HARD;
    d[1].run_deadline_ns = j.deadline_ns;
    assert_false(decide(RTM_POLICY_MODEL, &j, now, d, 2).preempt);
    d[1].run_deadline_ns = now + 50 * MS;
    /* not when it is not preemptible, or the device cannot abort */
    d[1].run_preemptible = false;
    assert_false(decide(RTM_POLICY_MODEL, &j, now, d, 2).preempt);
    d[1].run_preemptible = true;
    d[1].can_abort = false;
    assert_false(decide(RTM_POLICY_MODEL, &j, now, d, 2).preempt);
    d[1].can_abort = true;
    /* not when even preemption would be too late (slow abort) */
    d[1].abort_ns = 2 * MS;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_false(o.preempt);
    assert_int_equal(o.reason, RTM_REASON_MISS_OVERLOAD);
    assert_int_equal(o.finish_ns, now + 14 * MS); /* earliest plain finish: the GPU */
    /* never when a device meets the deadline without it */
    d[1].abort_ns = MS / 10;
    d[0].predict_ns = 4 * MS;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_false(o.preempt);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.reason, RTM_REASON_MET_EARLIEST);
}

static void test_baseline_policies(void **state)
{
    (void)state;
    const int64_t now = 0;
    rtm_place_dev_t d[2] = {cpu(6 * MS, 6 * MS), gpu(2 * MS, 1 * MS)};
    d[1].running = d[1].run_preemptible = true;
    d[1].run_deadline_ns = 100 * MS;
    d[1].run_remaining_ns = 1 * MS;
    rtm_place_job_t j = job(now, 10 * MS, RTM_CRIT_HARD);
    j.placement = RTM_PLACE_GPU; /* policies override the task's placement */
    rtm_place_out_t o = decide(RTM_POLICY_CPU_ONLY, &j, now, d, 2);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.reason, RTM_REASON_POLICY_FORCED);
    assert_true(o.predicted_miss);
    assert_false(o.preempt);
    j.placement = RTM_PLACE_CPU;
    o = decide(RTM_POLICY_GPU_ONLY, &j, now, d, 2);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.reason, RTM_REASON_POLICY_FORCED);
    assert_false(o.predicted_miss);
    /* gpu-only on a machine without a GPU instance: no device */
    d[1].predict_ns = -1;
    assert_int_equal(decide(RTM_POLICY_GPU_ONLY, &j, now, d, 2).device, -1);
    /* greedy: fastest prediction, ignoring a backlog that makes it miss */
    d[1].predict_ns = 2 * MS;
    d[1].backlog_ns = 50 * MS;
    j.placement = RTM_PLACE_AUTO;
    o = decide(RTM_POLICY_GREEDY, &j, now, d, 2);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.reason, RTM_REASON_GREEDY);
    assert_int_equal(o.finish_ns, 52 * MS);
    assert_true(o.predicted_miss && o.overload);
    assert_false(o.preempt);
    /* greedy tie on prediction: the CPU */
    d[0].predict_ns = 2 * MS;
    assert_int_equal(decide(RTM_POLICY_GREEDY, &j, now, d, 2).device, 0);
}

static void test_queue_state(void **state)
{
    (void)state;
    const int64_t now = 1000 * MS;
    /* queue in heap (unsorted) order; new job's deadline now + 20 ms */
    rtm_place_qitem_t q[4] = {
        {now + 30 * MS, 4 * MS, 400000, true},  /* behind: guarded */
        {now + 10 * MS, 2 * MS, 200000, false}, /* ahead */
        {now + 20 * MS, 1 * MS, 100000, true},  /* equal deadline: ahead (FIFO) */
        {now + 25 * MS, 3 * MS, 300000, false}, /* behind: soft, does not constrain */
    };
    rtm_place_dev_t d = cpu(5 * MS, 0);
    rtm_place_queue(&d, now, now + 20 * MS, 2 * MS, 150000, q, 4);
    assert_int_equal(d.backlog_ns, 2 * MS + 2 * MS + 1 * MS);
    assert_int_equal(d.backlog_margin_ns, 150000 + 200000 + 100000);
    assert_int_equal(d.run_margin_ns, 150000);
    for (int i = 1; i < 4; i++)
        assert_true(q[i - 1].deadline_ns <= q[i].deadline_ns); /* sorted in place */
    /* the guarded job behind finishes at now + 2+2+1+3+4 = 12 ms, allowance 1.15 ms */
    assert_true(d.guard_behind);
    assert_int_equal(d.behind_slack_ns, 30 * MS - 12 * MS - 1150000);
    /* a guarded job already predicted late does not constrain */
    rtm_place_qitem_t late[1] = {{now + 3 * MS, 4 * MS, 0, true}};
    rtm_place_queue(&d, now, now + 1 * MS, 0, 0, late, 1);
    assert_false(d.guard_behind);
    assert_int_equal(d.backlog_ns, 0);
    rtm_place_queue(&d, now, now + 1 * MS, 0, 0, NULL, 0);
    assert_int_equal(d.backlog_ns, 0);
}

static void test_margin_and_harm(void **state)
{
    (void)state;
    const int64_t now = 0;
    rtm_place_job_t j = job(now, 10 * MS, RTM_CRIT_HARD);
    /* the GPU finishes at 9 ms: met without a margin, not with 1.5 ms of allowance */
    rtm_place_dev_t d[2] = {cpu(9500000, 0), gpu(3 * MS, 6 * MS)};
    assert_int_equal(decide(RTM_POLICY_MODEL, &j, now, d, 2).device, 1);
    d[1].backlog_margin_ns = 1500000;
    rtm_place_out_t o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 0); /* the CPU meets with its finish at 9.5 ms */
    d[0].margin_ns = 600000;       /* ... but not with its own allowance */
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.reason, RTM_REASON_MISS_OVERLOAD);
    assert_int_equal(o.device, 1); /* earliest finish, 9 ms */
    assert_false(o.predicted_miss); /* it fits, but not with its allowance */
    assert_true(o.overload);
    /* harm: overtaking a guarded job with 2 ms of slack is refused for a 3 ms job */
    d[0].margin_ns = 0;
    d[1].backlog_margin_ns = 0;
    d[0].predict_ns = 3 * MS;
    d[0].guard_behind = true;
    d[0].behind_slack_ns = 2 * MS;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.reason, RTM_REASON_MET_EARLIEST);
    /* when nothing meets, a harmless device is still preferred to a harmful one */
    d[1].backlog_ns = 20 * MS;
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.reason, RTM_REASON_MISS_OVERLOAD);
    assert_int_equal(o.device, 1);
    /* baselines ignore harm */
    assert_int_equal(decide(RTM_POLICY_CPU_ONLY, &j, now, d, 2).device, 0);
}

static void test_preempt_protects_guarded_victim(void **state)
{
    (void)state;
    const int64_t now = 0;
    rtm_place_dev_t d[1] = {gpu(2 * MS, 10 * MS)};
    d[0].running = d[0].run_preemptible = true;
    d[0].run_remaining_ns = 10 * MS;
    d[0].run_margin_ns = 1 * MS;
    d[0].backlog_margin_ns = 1 * MS; /* the victim's allowance does not count */
    d[0].run_deadline_ns = 13 * MS;
    rtm_place_job_t j = job(now, 3 * MS, RTM_CRIT_FIRM);
    rtm_place_out_t o = decide(RTM_POLICY_MODEL, &j, now, d, 1);
    assert_true(o.preempt); /* soft victim: fine */
    d[0].run_guarded = true; /* firm victim: 2.1 + 10 > 13? no: 12.1 <= 13, still fine */
    assert_true(decide(RTM_POLICY_MODEL, &j, now, d, 1).preempt);
    d[0].run_deadline_ns = 12 * MS; /* now it would miss: refused */
    assert_false(decide(RTM_POLICY_MODEL, &j, now, d, 1).preempt);
}

/* The remaining part of a preempted job: the kernel share scales with the unfinished
 * blocks; the same device pays only the outputs, another one the move of the state. */
/* The running job's remaining time as placement sees it. Found on the H100
 * (config/preempt-h100.yaml): a long preemptible job that overran its prediction was taken
 * to finish "now" (remaining clamped to 0), so hard jobs were queued behind it as
 * "met" instead of preempting it, and 921 of 1000 missed. An overrun job is assumed to
 * need as long again as it has run so far (its true length unknown, at least doubling). */
static void test_run_remaining(void **state)
{
    (void)state;
    assert_int_equal(rtm_place_run_remaining(10 * MS, 4 * MS), 6 * MS);
    assert_int_equal(rtm_place_run_remaining(10 * MS, 0), 10 * MS);
    /* overrun: 25 ms into a 10 ms prediction -> another 25 ms */
    assert_int_equal(rtm_place_run_remaining(10 * MS, 25 * MS), 25 * MS);
    /* exactly at its prediction: as long again */
    assert_int_equal(rtm_place_run_remaining(10 * MS, 10 * MS), 10 * MS);
    /* no prediction: unknown, nothing assumed */
    assert_int_equal(rtm_place_run_remaining(0, 5 * MS), 0);

    /* the hard job then preempts instead of queueing behind the overrun job */
    rtm_place_dev_t d;
    memset(&d, 0, sizeof(d));
    d.kind = RTM_DEV_GPU;
    d.can_abort = true;
    d.abort_ns = 50000;
    d.predict_ns = MS / 10;
    d.running = true;
    d.run_preemptible = true;
    d.run_deadline_ns = 2000 * MS;
    d.run_remaining_ns = rtm_place_run_remaining(280 * MS, 300 * MS);
    d.backlog_ns = d.run_remaining_ns;
    rtm_place_job_t j;
    memset(&j, 0, sizeof(j));
    j.crit = RTM_CRIT_HARD;
    j.deadline_ns = 10 * MS;
    rtm_place_out_t out;
    rtm_place_decide(RTM_POLICY_MODEL, &j, 0, &d, 1, &out);
    assert_int_equal(out.device, 0);
    assert_true(out.preempt);
}

/* A soft job already past its deadline is no longer protected by it: found on the H100
 * (config/preempt-h100.yaml): once the long soft job, slowed by its preemptions, passed
 * its deadline, EDF ranked it before every new hard job, which could then neither preempt
 * it nor run before it, and 662 of 1000 hard jobs missed. A hard job preempts a running
 * soft job that is already late; a guarded (hard/firm) late job is still not preempted. */
static void test_preempt_late_soft(void **state)
{
    (void)state;
    rtm_place_dev_t d;
    memset(&d, 0, sizeof(d));
    d.kind = RTM_DEV_GPU;
    d.can_abort = true;
    d.abort_ns = 50000;
    d.predict_ns = MS / 10;
    d.running = true;
    d.run_preemptible = true;
    d.run_deadline_ns = 90 * MS; /* passed 10 ms ago */
    d.run_remaining_ns = 30 * MS;
    d.backlog_ns = d.run_remaining_ns;
    rtm_place_job_t j;
    memset(&j, 0, sizeof(j));
    j.crit = RTM_CRIT_HARD;
    j.deadline_ns = 110 * MS;
    rtm_place_out_t out;
    rtm_place_decide(RTM_POLICY_MODEL, &j, 100 * MS, &d, 1, &out);
    assert_int_equal(out.device, 0);
    assert_true(out.preempt);
    d.run_guarded = true; /* a late hard or firm job keeps the device */
    rtm_place_decide(RTM_POLICY_MODEL, &j, 100 * MS, &d, 1, &out);
    assert_false(out.preempt);
}

static void test_remaining(void **state)
{
    (void)state;
    /* 10 ms: in 2, kernel 6, out 2; a quarter of the blocks left */
    assert_int_equal(rtm_place_remaining(10 * MS, 2 * MS, 2 * MS, 25, 100, true, 5 * MS),
                     MS + MS / 2 + 2 * MS);
    assert_int_equal(rtm_place_remaining(10 * MS, 2 * MS, 2 * MS, 25, 100, false, 5 * MS),
                     MS + MS / 2 + 2 * MS + 5 * MS);
    /* the host CPU: no transfers, only the move (read back from the device) */
    assert_int_equal(rtm_place_remaining(8 * MS, 0, 0, 50, 100, false, MS), 4 * MS + MS);
    /* nothing left: only the outputs; everything left: the whole kernel */
    assert_int_equal(rtm_place_remaining(10 * MS, 2 * MS, 2 * MS, 0, 100, true, 0), 2 * MS);
    assert_int_equal(rtm_place_remaining(10 * MS, 2 * MS, 2 * MS, 100, 100, true, 0), 8 * MS);
    /* transfer parts larger than the whole (inconsistent model): the kernel share is 0 */
    assert_int_equal(rtm_place_remaining(3 * MS, 2 * MS, 2 * MS, 50, 100, true, 0), 2 * MS);
    /* no prediction, no blocks */
    assert_int_equal(rtm_place_remaining(-1, 0, 0, 1, 2, true, 0), -1);
    assert_int_equal(rtm_place_remaining(MS, 0, 0, 0, 0, true, 0), -1);
    /* a re-placed remainder competes like any job: the idle CPU beats waiting on the GPU */
    const int64_t now = 0;
    rtm_place_dev_t d[2] = {cpu(rtm_place_remaining(40 * MS, 0, 0, 30, 100, false, MS), 0),
                            gpu(rtm_place_remaining(10 * MS, MS, MS, 30, 100, true, 0), 20 * MS)};
    rtm_place_job_t j = job(now, 100 * MS, RTM_CRIT_SOFT);
    rtm_place_out_t o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 0);
    assert_int_equal(o.finish_ns, 13 * MS);
    d[1].backlog_ns = 2 * MS; /* the GPU is free soon: it wins */
    o = decide(RTM_POLICY_MODEL, &j, now, d, 2);
    assert_int_equal(o.device, 1);
    assert_int_equal(o.finish_ns, 2 * MS + 2400000 + MS);
}

static void test_names(void **state)
{
    (void)state;
    rtm_policy_t p;
    for (int i = 0; i < RTM_POLICY_COUNT; i++) {
        assert_int_equal(rtm_place_policy_parse(rtm_place_policy_name((rtm_policy_t)i), &p), RTM_OK);
        assert_int_equal(p, i);
    }
    assert_int_equal(rtm_place_policy_parse("fastest", &p), RTM_E_ARG);
    assert_int_equal(rtm_place_policy_parse(NULL, &p), RTM_E_ARG);
    assert_string_equal(rtm_place_reason_name(RTM_REASON_PREEMPT), "preempt-device");
    assert_string_equal(rtm_place_reason_name(RTM_REASON_MISS_OVERLOAD), "predicted-miss-overload");
    assert_string_equal(rtm_place_reason_name((rtm_place_reason_t)99), "unknown");
}

/* A simulated clock: a 10 ms hard task (GPU 3 ms, CPU 7 ms) and a 10 ms soft task (GPU
 * 4 ms, CPU 4 ms) released together each period, executed non-preemptively in decision
 * order. The model policy must meet every deadline with fixed predictions; cpu-only
 * must miss. */
typedef struct {
    int64_t free_at[2];
} sim_t;

static uint32_t simulate(rtm_policy_t policy, uint32_t periods, uint32_t counts[2])
{
    sim_t s = {{0, 0}};
    const int64_t pred[2][2] = {{7 * MS, 3 * MS}, {4 * MS, 4 * MS}};
    uint32_t misses = 0;
    for (uint32_t k = 0; k < periods; k++) {
        const int64_t now = (int64_t)k * 10 * MS;
        for (uint32_t t = 0; t < 2; t++) {
            rtm_place_dev_t d[2] = {cpu(pred[t][0], 0), gpu(pred[t][1], 0)};
            for (int i = 0; i < 2; i++)
                d[i].backlog_ns = s.free_at[i] > now ? s.free_at[i] - now : 0;
            rtm_place_job_t j = job(now, 10 * MS, t == 0 ? RTM_CRIT_HARD : RTM_CRIT_SOFT);
            j.task = t;
            rtm_place_out_t o;
            rtm_place_decide(policy, &j, now, d, 2, &o);
            assert_true(o.device >= 0);
            counts[o.device]++;
            const int64_t start = s.free_at[o.device] > now ? s.free_at[o.device] : now;
            s.free_at[o.device] = start + pred[t][o.device];
            misses += s.free_at[o.device] > j.deadline_ns;
        }
    }
    return misses;
}

static void test_simulated_clock(void **state)
{
    (void)state;
    uint32_t c[2] = {0, 0};
    assert_int_equal(simulate(RTM_POLICY_MODEL, 100, c), 0);
    assert_int_equal(c[0], 100); /* soft task on the CPU (tie at 4 ms: CPU preferred) */
    assert_int_equal(c[1], 100); /* hard task on the GPU */
    uint32_t c2[2] = {0, 0};
    assert_true(simulate(RTM_POLICY_CPU_ONLY, 100, c2) > 0);
    assert_int_equal(c2[1], 0);
    uint32_t c3[2] = {0, 0};
    assert_int_equal(simulate(RTM_POLICY_GPU_ONLY, 100, c3), 0); /* 7 ms of 10: fits */
    assert_int_equal(c3[0], 0);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Decision latency over RTM_MAX_DEVICES devices, every rule exercised. */
static void test_decision_latency(void **state)
{
    (void)state;
    enum { N = 20000, BATCH = 16 };
    static int64_t lat[N];
    rtm_place_dev_t d[RTM_MAX_DEVICES];
    for (uint32_t i = 0; i < RTM_MAX_DEVICES; i++) {
        d[i] = i == 0 ? cpu(8 * MS, 0) : gpu((int64_t)(1 + i) * MS, (int64_t)i * MS);
        d[i].running = true;
        d[i].run_preemptible = true;
        d[i].run_deadline_ns = 1000 * MS;
        d[i].run_remaining_ns = (int64_t)i * MS / 2;
    }
    int64_t sink = 0;
    for (uint32_t n = 0; n < N; n++) {
        rtm_place_job_t j = job((int64_t)n * MS, (int64_t)(1 + n % 12) * MS,
                                (rtm_crit_t)(n % 3));
        const int64_t t0 = mono_ns();
        for (uint32_t b = 0; b < BATCH; b++) {
            rtm_place_out_t o;
            rtm_place_decide((rtm_policy_t)(b % RTM_POLICY_COUNT), &j, j.release_ns, d,
                             RTM_MAX_DEVICES, &o);
            sink += o.device;
        }
        lat[n] = (mono_ns() - t0) / BATCH;
    }
    assert_true(sink != 0); /* the decisions were made */
    qsort(lat, N, sizeof(lat[0]), cmp_i64);
    printf("placement decision over %d devices: median %lld ns, p99 %lld ns\n", RTM_MAX_DEVICES,
           (long long)lat[N / 2], (long long)lat[N * 99 / 100]);
    /* The 2 us target is reported, not asserted: a timed assertion fails on a noisy
     * machine. `rtmgr bench placement` measures it. */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_met_earliest_finish),
        cmocka_unit_test(test_ties_prefer_cpu_then_lower_index),
        cmocka_unit_test(test_only_device_and_task_placement),
        cmocka_unit_test(test_preempt_when_nothing_meets),
        cmocka_unit_test(test_baseline_policies),
        cmocka_unit_test(test_queue_state),
        cmocka_unit_test(test_margin_and_harm),
        cmocka_unit_test(test_preempt_protects_guarded_victim),
        cmocka_unit_test(test_remaining),
        cmocka_unit_test(test_run_remaining),
        cmocka_unit_test(test_preempt_late_soft),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_simulated_clock),
        cmocka_unit_test(test_decision_latency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
