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

void rtm_place_decide(rtm_policy_t policy, const rtm_place_job_t *job, int64_t now_ns,
                      const rtm_place_dev_t *devs, uint32_t n_devs, rtm_place_out_t *out)
{
    memset(out, 0, sizeof(*out));
    out->device = -1;
    out->reason = RTM_REASON_NO_DEVICE;
    if (n_devs > RTM_MAX_DEVICES)
        n_devs = RTM_MAX_DEVICES;

    /* One pass: earliest finish overall, earliest finish meeting the deadline, fastest
     * prediction, earliest preemptive finish meeting the deadline. */
    int32_t any = -1, met = -1, fast = -1, pre = -1;
    int64_t any_t = 0, met_t = 0, fast_t = 0, pre_t = 0, fast_finish = 0;
    uint32_t n_cand = 0;
    const bool may_preempt = policy == RTM_POLICY_MODEL &&
                             (job->crit == RTM_CRIT_HARD || job->crit == RTM_CRIT_FIRM);
    for (uint32_t i = 0; i < n_devs; i++) {
        const rtm_place_dev_t *d = &devs[i];
        if (!allowed(policy, job, d))
            continue;
        n_cand++;
        const int64_t backlog = d->backlog_ns > 0 ? d->backlog_ns : 0;
        const int64_t finish = now_ns + backlog + d->predict_ns;
        if (better(finish, d, any_t, any < 0 ? NULL : &devs[any]))
            any = (int32_t)i, any_t = finish;
        if (finish <= job->deadline_ns && better(finish, d, met_t, met < 0 ? NULL : &devs[met]))
            met = (int32_t)i, met_t = finish;
        if (better(d->predict_ns, d, fast_t, fast < 0 ? NULL : &devs[fast]))
            fast = (int32_t)i, fast_t = d->predict_ns, fast_finish = finish;
        if (may_preempt && d->can_abort && d->running && d->run_preemptible &&
            d->run_deadline_ns > job->deadline_ns) {
            int64_t rest = backlog - (d->run_remaining_ns > 0 ? d->run_remaining_ns : 0);
            if (rest < 0)
                rest = 0;
            const int64_t pf = now_ns + (d->abort_ns > 0 ? d->abort_ns : 0) + rest + d->predict_ns;
            if (pf <= job->deadline_ns && better(pf, d, pre_t, pre < 0 ? NULL : &devs[pre]))
                pre = (int32_t)i, pre_t = pf;
        }
    }
    if (n_cand == 0)
        return;

    switch (policy) {
    case RTM_POLICY_GREEDY:
        choose(out, fast, fast_finish, RTM_REASON_GREEDY, job);
        return;
    case RTM_POLICY_CPU_ONLY:
    case RTM_POLICY_GPU_ONLY:
        choose(out, any, any_t, RTM_REASON_POLICY_FORCED, job);
        return;
    case RTM_POLICY_MODEL:
    default:
        break;
    }
    if (met >= 0) {
        choose(out, met, met_t, n_cand == 1 ? RTM_REASON_ONLY_DEVICE : RTM_REASON_MET_EARLIEST, job);
    } else if (pre >= 0) {
        choose(out, pre, pre_t, RTM_REASON_PREEMPT, job);
        out->preempt = true;
    } else {
        choose(out, any, any_t, RTM_REASON_MISS_OVERLOAD, job);
    }
}
