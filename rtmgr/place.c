/* place.c — the placement rules of place.h. Owns no state: every decision is a pure
 * function of its arguments (a scan over at most RTM_MAX_DEVICES devices). */
#include "place.h"

#include <string.h>

static const char *const policy_names[RTM_POLICY_COUNT] = {
    [RTM_POLICY_MODEL] = "model",
    [RTM_POLICY_CPU_ONLY] = "cpu-only",
    [RTM_POLICY_GPU_ONLY] = "gpu-only",
    [RTM_POLICY_GREEDY] = "greedy",
};

static const char *const reason_names[RTM_REASON_COUNT] = {
    [RTM_REASON_NONE] = "none",
    [RTM_REASON_MET_EARLIEST] = "met-earliest-finish",
    [RTM_REASON_ONLY_DEVICE] = "only-device",
    [RTM_REASON_PREEMPT] = "preempt-device",
    [RTM_REASON_MISS_OVERLOAD] = "predicted-miss-overload",
    [RTM_REASON_POLICY_FORCED] = "policy-forced",
    [RTM_REASON_GREEDY] = "greedy-fastest",
    [RTM_REASON_NO_DEVICE] = "no-device",
};

const char *rtm_place_policy_name(rtm_policy_t p)
{
    return (unsigned)p < RTM_POLICY_COUNT ? policy_names[p] : "unknown";
}

rtm_status_t rtm_place_policy_parse(const char *name, rtm_policy_t *out)
{
    for (int p = 0; name && p < RTM_POLICY_COUNT; p++) {
        if (strcmp(name, policy_names[p]) == 0) {
            *out = (rtm_policy_t)p;
            return RTM_OK;
        }
    }
    return RTM_E_ARG;
}

const char *rtm_place_reason_name(rtm_place_reason_t r)
{
    return (unsigned)r < RTM_REASON_COUNT ? reason_names[r] : "unknown";
}

void rtm_place_queue(rtm_place_dev_t *dev, int64_t now_ns, int64_t deadline_ns,
                     int64_t run_remaining_ns, int64_t run_margin_ns, rtm_place_qitem_t *q,
                     uint32_t n)
{
    /* shell sort by deadline (Ciura gaps), stable enough: ties are all "ahead" */
    static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (uint32_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
        const uint32_t gap = gaps[g];
        for (uint32_t i = gap; i < n; i++) {
            const rtm_place_qitem_t it = q[i];
            uint32_t j = i;
            for (; j >= gap && q[j - gap].deadline_ns > it.deadline_ns; j -= gap)
                q[j] = q[j - gap];
            q[j] = it;
        }
    }
    int64_t t = now_ns + (run_remaining_ns > 0 ? run_remaining_ns : 0);
    int64_t cm = run_remaining_ns > 0 && run_margin_ns > 0 ? run_margin_ns : 0;
    int64_t backlog = t - now_ns, backlog_margin = cm;
    bool guard = false;
    int64_t slack = INT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        t += q[i].predict_ns > 0 ? q[i].predict_ns : 0;
        cm += q[i].margin_ns > 0 ? q[i].margin_ns : 0;
        if (q[i].deadline_ns <= deadline_ns) {
            backlog = t - now_ns;
            backlog_margin = cm;
            continue;
        }
        const int64_t s = q[i].deadline_ns - cm - t;
        if (q[i].guarded && s >= 0 && s < slack) {
            slack = s;
            guard = true;
        }
    }
    dev->backlog_ns = backlog;
    dev->backlog_margin_ns = backlog_margin;
    dev->run_margin_ns = run_remaining_ns > 0 && run_margin_ns > 0 ? run_margin_ns : 0;
    dev->guard_behind = guard;
    dev->behind_slack_ns = guard ? slack : 0;
}

int64_t rtm_place_run_remaining(int64_t predict_ns, int64_t elapsed_ns)
{
    if (predict_ns <= 0)
        return 0;
    if (elapsed_ns < 0)
        elapsed_ns = 0;
    return elapsed_ns < predict_ns ? predict_ns - elapsed_ns : elapsed_ns;
}

int64_t rtm_place_remaining(int64_t predict_ns, int64_t in_ns, int64_t out_ns, uint64_t remaining,
                            uint64_t total, bool same, int64_t move_ns)
{
    if (predict_ns < 0 || total == 0)
        return -1;
    in_ns = in_ns > 0 ? in_ns : 0;
    out_ns = out_ns > 0 ? out_ns : 0;
    int64_t kernel = predict_ns - in_ns - out_ns;
    if (kernel < 0)
        kernel = 0;
    if (remaining > total)
        remaining = total;
    const int64_t part = (int64_t)((double)kernel * (double)remaining / (double)total + 0.5);
    return part + out_ns + (same ? 0 : (move_ns > 0 ? move_ns : 0));
}

/* Is device d a candidate for the job under the policy? */
static bool allowed(rtm_policy_t policy, const rtm_place_job_t *job, const rtm_place_dev_t *d)
{
    if (d->predict_ns < 0)
        return false;
    const bool cpu = d->kind == RTM_DEV_CPU;
    switch (policy) {
    case RTM_POLICY_CPU_ONLY:
        return cpu;
    case RTM_POLICY_GPU_ONLY:
        return !cpu;
    case RTM_POLICY_MODEL:
    case RTM_POLICY_GREEDY:
    default:
        return job->placement == RTM_PLACE_AUTO || (job->placement == RTM_PLACE_CPU) == cpu;
    }
}

/* Is (t, d) a better choice than the current best (bt, bd)? Earlier time wins; on a
 * tie, a CPU-kind device, then the lower index (the scan goes upward, so keeping the
 * current best on a full tie gives the lower index). */
static bool better(int64_t t, const rtm_place_dev_t *d, int64_t bt, const rtm_place_dev_t *bd)
{
    if (!bd)
        return true;
    if (t != bt)
        return t < bt;
    return d->kind == RTM_DEV_CPU && bd->kind != RTM_DEV_CPU;
}

static void choose(rtm_place_out_t *out, int32_t dev, int64_t finish, rtm_place_reason_t why,
                   const rtm_place_job_t *job)
{
    out->device = dev;
    out->finish_ns = finish;
    out->reason = why;
    out->predicted_miss = finish > job->deadline_ns;
    out->overload = out->predicted_miss;
}

/* Does delaying the jobs behind by `delay` keep every guarded one on time? */
static bool harmless(const rtm_place_dev_t *d, int64_t delay)
{
    return !d->guard_behind || delay <= d->behind_slack_ns;
}

/* Best-so-far bookkeeping of one criterion. */
typedef struct {
    int32_t dev;
    int64_t t;
} best_t;

static void consider(best_t *b, int64_t t, const rtm_place_dev_t *devs, uint32_t i)
{
    if (better(t, &devs[i], b->t, b->dev < 0 ? NULL : &devs[b->dev])) {
        b->dev = (int32_t)i;
        b->t = t;
    }
}

void rtm_place_decide(rtm_policy_t policy, const rtm_place_job_t *job, int64_t now_ns,
                      const rtm_place_dev_t *devs, uint32_t n_devs, rtm_place_out_t *out)
{
    memset(out, 0, sizeof(*out));
    out->device = -1;
    out->reason = RTM_REASON_NO_DEVICE;
    if (n_devs > RTM_MAX_DEVICES)
        n_devs = RTM_MAX_DEVICES;

    /* One pass over the devices, tracking the best of each criterion. */
    best_t any = {-1, 0}, kind = {-1, 0}, met = {-1, 0}, pre = {-1, 0}, fast = {-1, 0};
    int64_t fast_finish = 0;
    uint32_t n_cand = 0;
    const bool may_preempt = policy == RTM_POLICY_MODEL &&
                             (job->crit == RTM_CRIT_HARD || job->crit == RTM_CRIT_FIRM);
    for (uint32_t i = 0; i < n_devs; i++) {
        const rtm_place_dev_t *d = &devs[i];
        if (!allowed(policy, job, d))
            continue;
        n_cand++;
        const int64_t backlog = d->backlog_ns > 0 ? d->backlog_ns : 0;
        const int64_t margin = (d->margin_ns > 0 ? d->margin_ns : 0) +
                               (d->backlog_margin_ns > 0 ? d->backlog_margin_ns : 0);
        const int64_t finish = now_ns + backlog + d->predict_ns;
        consider(&any, finish, devs, i);
        if (harmless(d, d->predict_ns)) {
            consider(&kind, finish, devs, i);
            if (finish + margin <= job->deadline_ns)
                consider(&met, finish, devs, i);
        }
        if (fast.dev < 0 || better(d->predict_ns, d, fast.t, &devs[fast.dev])) {
            fast = (best_t){(int32_t)i, d->predict_ns};
            fast_finish = finish;
        }
        /* the victim's deadline protects it while it can still be met; a soft job
         * already past it has nothing left to protect (a guarded one keeps the device) */
        const bool victim_later = d->run_deadline_ns > job->deadline_ns ||
                                  (!d->run_guarded && d->run_deadline_ns <= now_ns);
        if (may_preempt && d->can_abort && d->running && d->run_preemptible && victim_later) {
            const int64_t run_rem = d->run_remaining_ns > 0 ? d->run_remaining_ns : 0;
            const int64_t abort_ns = d->abort_ns > 0 ? d->abort_ns : 0;
            int64_t rest = backlog - run_rem;
            if (rest < 0)
                rest = 0;
            const int64_t pf = now_ns + abort_ns + rest + d->predict_ns;
            const bool victim_ok = !d->run_guarded || pf + run_rem <= d->run_deadline_ns;
            const int64_t pmargin = margin - (d->run_margin_ns > 0 ? d->run_margin_ns : 0);
            if (pf + pmargin <= job->deadline_ns && victim_ok &&
                harmless(d, abort_ns + d->predict_ns))
                consider(&pre, pf, devs, i);
        }
    }
    if (n_cand == 0)
        return;

    switch (policy) {
    case RTM_POLICY_GREEDY:
        choose(out, fast.dev, fast_finish, RTM_REASON_GREEDY, job);
        return;
    case RTM_POLICY_CPU_ONLY:
    case RTM_POLICY_GPU_ONLY:
        choose(out, any.dev, any.t, RTM_REASON_POLICY_FORCED, job);
        return;
    case RTM_POLICY_MODEL:
    default:
        break;
    }
    if (met.dev >= 0) {
        choose(out, met.dev, met.t, n_cand == 1 ? RTM_REASON_ONLY_DEVICE : RTM_REASON_MET_EARLIEST, job);
    } else if (pre.dev >= 0) {
        choose(out, pre.dev, pre.t, RTM_REASON_PREEMPT, job);
        out->preempt = true;
    } else {
        const best_t *b = kind.dev >= 0 ? &kind : &any;
        choose(out, b->dev, b->t, RTM_REASON_MISS_OVERLOAD, job);
        out->overload = true; /* even when it fits without its margin, or at others' cost */
    }
}
