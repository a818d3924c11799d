/* sim.c — discrete-event simulation of the executive's scheduling (see sim.h).
 *
 * State: job slots, one EDF queue per device, per device the running job (with its
 * actual end) or an abort in progress (busy until). Events, in time order: completions,
 * aborts taking effect, firm deadlines of running jobs, releases; ties in that order.
 * The device state given to placement follows exec.c: remaining prediction of the
 * running job plus the predictions of queued jobs EDF orders at or before the new
 * job's deadline. */
#include "sim.h"
#include "os.h"

#include <string.h>
#include <time.h>

#include "rng.h"

typedef struct {
    bool used;
    uint32_t task;
    int64_t release, deadline;
    int64_t pred;      /* predicted time left on its device */
    int64_t actual;    /* actual time left */
    int32_t dev;
} sjob_t;

typedef struct {
    rtm_edfq_t q;
    rtm_edfq_item_t heap[RTM_SIM_JOBS];
    uint32_t pos[RTM_SIM_JOBS];
    int32_t run;       /* job or -1 */
    int64_t run_start, run_end, run_pred;
    int64_t busy_until; /* abort in progress */
    bool aborting;     /* run is being aborted (preemption) */
} sdev_t;

typedef struct {
    sjob_t job[RTM_SIM_JOBS];
    sdev_t dev[RTM_SIM_DEVS];
    int64_t next_rel[RTM_SIM_TASKS];
    rtm_rng_t rng;
    rtm_place_qitem_t scratch[RTM_SIM_JOBS];
} sim_t;

static sim_t S; /* one simulation at a time (bench tool) */

double rtm_sim_utilisation(const rtm_sim_task_t *tasks, uint32_t n_tasks, uint32_t dev)
{
    double u = 0.0;
    for (uint32_t i = 0; i < n_tasks; i++) {
        if (tasks[i].c_ns[dev] < 0)
            return -1.0;
        u += (double)tasks[i].c_ns[dev] / (double)tasks[i].period_ns;
    }
    return u;
}

static void miss(const rtm_sim_params_t *p, rtm_sim_result_t *r, uint32_t task)
{
    r->missed[p->tasks[task].crit]++;
    r->task_missed[task]++;
}

static void free_job(int32_t j) { S.job[j].used = false; }

static void complete(const rtm_sim_params_t *p, rtm_sim_result_t *r, int32_t j, int64_t t)
{
    const sjob_t *jb = &S.job[j];
    const rtm_crit_t c = p->tasks[jb->task].crit;
    r->completed++;
    rtm_hist_add(&r->resp[c], t - jb->release);
    if (t > jb->deadline) {
        r->late++;
        miss(p, r, jb->task);
    }
    free_job(j);
}

static void dispatch(const rtm_sim_params_t *p, rtm_sim_result_t *r, uint32_t d, int64_t t)
{
    sdev_t *v = &S.dev[d];
    while (v->run < 0 && t >= v->busy_until) {
        uint32_t h;
        if (rtm_edfq_pop(&v->q, &h, NULL) != RTM_OK)
            return;
        sjob_t *jb = &S.job[h];
        if (p->tasks[jb->task].crit == RTM_CRIT_FIRM && t >= jb->deadline) {
            r->dropped++;
            miss(p, r, jb->task);
            free_job((int32_t)h);
            continue;
        }
        v->run = (int32_t)h;
        v->run_start = t;
        v->run_end = t + jb->actual;
        v->run_pred = jb->pred;
        v->aborting = false;
    }
}

static void release(const rtm_sim_params_t *p, rtm_sim_result_t *r, uint32_t ti, int64_t t)
{
    const rtm_sim_task_t *tk = &p->tasks[ti];
    r->released[tk->crit]++;
    r->task_released[ti]++;
    int32_t j = -1;
    for (int32_t i = 0; i < RTM_SIM_JOBS; i++)
        if (!S.job[i].used) {
            j = i;
            break;
        }
    if (j < 0) {
        r->rejected++;
        miss(p, r, ti);
        return;
    }
    sjob_t *jb = &S.job[j];
    memset(jb, 0, sizeof(*jb));
    jb->used = true;
    jb->task = ti;
    jb->release = t;
    jb->deadline = t + tk->deadline_ns;

    const int64_t t0 = rtm_os_now_ns();
    rtm_place_dev_t pd[RTM_SIM_DEVS];
    for (uint32_t d = 0; d < p->n_devs; d++) {
        const sdev_t *v = &S.dev[d];
        rtm_place_dev_t *o = &pd[d];
        memset(o, 0, sizeof(*o));
        o->kind = p->devs[d].kind;
        o->can_abort = p->devs[d].can_abort;
        o->abort_ns = p->devs[d].abort_ns;
        o->predict_ns = tk->c_ns[d] < 0 ? -1 : (int64_t)((double)tk->c_ns[d] * p->load);
        o->margin_ns = (int64_t)((double)o->predict_ns * p->margin);
        int64_t rem = v->busy_until > t ? v->busy_until - t : 0, rmargin = 0;
        if (v->run >= 0) {
            int64_t r0 = v->run_pred - (t - v->run_start);
            if (r0 < 0)
                r0 = 0;
            rem += r0;
            rmargin = (int64_t)((double)v->run_pred * p->margin);
            o->running = !v->aborting;
            o->run_preemptible = p->tasks[S.job[v->run].task].preemptible;
            o->run_guarded = p->tasks[S.job[v->run].task].crit != RTM_CRIT_SOFT;
            o->run_deadline_ns = S.job[v->run].deadline;
            o->run_remaining_ns = r0;
        }
        const uint32_t nq = rtm_edfq_count(&v->q);
        for (uint32_t i = 0; i < nq; i++) {
            const rtm_edfq_item_t *it = rtm_edfq_at(&v->q, i);
            const sjob_t *qj = &S.job[it->handle];
            S.scratch[i] = (rtm_place_qitem_t){
                .deadline_ns = it->deadline, .predict_ns = qj->pred,
                .margin_ns = (int64_t)((double)qj->pred * p->margin),
                .guarded = p->tasks[qj->task].crit != RTM_CRIT_SOFT};
        }
        rtm_place_queue(o, t, jb->deadline, rem, rmargin, S.scratch, nq);
    }
    const rtm_place_job_t pj = {.task = ti, .release_ns = t, .deadline_ns = jb->deadline,
                                .crit = tk->crit, .placement = tk->placement,
                                .preemptible = tk->preemptible};
    rtm_place_out_t out;
    rtm_place_decide(p->policy, &pj, t, pd, p->n_devs, &out);
    rtm_hist_add(&r->decide, rtm_os_now_ns() - t0);
    if (out.overload)
        r->overloads++;
    if (out.device < 0) {
        r->rejected++;
        miss(p, r, ti);
        free_job(j);
        return;
    }
    const uint32_t d = (uint32_t)out.device;
    r->placed[d]++;
    jb->dev = (int32_t)d;
    jb->pred = pd[d].predict_ns;
    const double u = rtm_rng_uniform(&S.rng, -p->noise, p->noise);
    jb->actual = (int64_t)((double)jb->pred * (1.0 + u));
    if (jb->actual < 1)
        jb->actual = 1;
    sdev_t *v = &S.dev[d];
    rtm_edfq_push(&v->q, (uint32_t)j, jb->deadline);
    if (out.preempt && v->run >= 0 && !v->aborting) {
        /* the victim stops when the abort takes effect; its completed blocks stay done */
        const int64_t eff = t + p->devs[d].abort_ns;
        sjob_t *vj = &S.job[v->run];
        if (eff < v->run_end) {
            const double done = (double)(eff - v->run_start) / (double)(v->run_end - v->run_start);
            vj->actual = v->run_end - eff;
            vj->pred = (int64_t)((double)v->run_pred * (1.0 - done));
            v->busy_until = eff;
            v->aborting = true;
            r->preemptions++;
        }
    }
}

rtm_status_t rtm_sim_run(const rtm_sim_params_t *p, rtm_sim_result_t *r)
{
    if (!p || !r || !p->tasks || !p->devs || p->n_tasks == 0 || p->n_tasks > RTM_SIM_TASKS ||
        p->n_devs == 0 || p->n_devs > RTM_SIM_DEVS || p->duration_ns <= 0 || !(p->load > 0.0))
        return RTM_E_ARG;
    memset(r, 0, sizeof(*r));
    memset(&S, 0, sizeof(S));
    rtm_rng_seed(&S.rng, p->seed);
    for (uint32_t d = 0; d < p->n_devs; d++) {
        rtm_edfq_init(&S.dev[d].q, S.dev[d].heap, S.dev[d].pos, RTM_SIM_JOBS);
        S.dev[d].run = -1;
    }
    for (uint32_t i = 0; i < p->n_tasks; i++)
        S.next_rel[i] = p->tasks[i].offset_ns;
    int64_t t = 0;
    for (;;) {
        /* next event */
        int64_t next = INT64_MAX;
        for (uint32_t i = 0; i < p->n_tasks; i++)
            if (S.next_rel[i] < next)
                next = S.next_rel[i];
        for (uint32_t d = 0; d < p->n_devs; d++) {
            const sdev_t *v = &S.dev[d];
            if (v->run >= 0) {
                const int64_t e = v->aborting ? v->busy_until : v->run_end;
                if (e < next)
                    next = e;
                const sjob_t *jb = &S.job[v->run];
                if (!v->aborting && p->tasks[jb->task].crit == RTM_CRIT_FIRM &&
                    jb->deadline < next && jb->deadline < v->run_end)
                    next = jb->deadline;
            } else if (v->busy_until > t && v->busy_until < next) {
                next = v->busy_until;
            }
        }
        if (next >= p->duration_ns)
            break;
        t = next;
        for (uint32_t d = 0; d < p->n_devs; d++) {
            sdev_t *v = &S.dev[d];
            if (v->run < 0)
                continue;
            sjob_t *jb = &S.job[v->run];
            if (v->aborting && t >= v->busy_until) { /* preempted: back to the queue */
                rtm_edfq_push(&v->q, (uint32_t)v->run, jb->deadline);
                v->run = -1;
                v->aborting = false;
            } else if (!v->aborting && t >= v->run_end) {
                r->busy_ns[d] += v->run_end - v->run_start;
                complete(p, r, v->run, t);
                v->run = -1;
            } else if (!v->aborting && p->tasks[jb->task].crit == RTM_CRIT_FIRM && t >= jb->deadline) {
                /* firm job aborted at its deadline: the device is free after the abort */
                r->busy_ns[d] += t - v->run_start;
                r->aborted++;
                miss(p, r, jb->task);
                free_job(v->run);
                v->run = -1;
                v->busy_until = t + (p->devs[d].can_abort ? p->devs[d].abort_ns : 0);
            }
        }
        for (uint32_t i = 0; i < p->n_tasks; i++) {
            if (S.next_rel[i] == t) {
                release(p, r, i, t);
                S.next_rel[i] += p->tasks[i].period_ns;
            }
        }
        for (uint32_t d = 0; d < p->n_devs; d++)
            dispatch(p, r, d, t);
        if (r->rejected > 0 && r->rejected * 2 > r->released[0] + r->released[1] + r->released[2])
            return RTM_E_FULL;
    }
    return RTM_OK;
}

#define MS 1000000LL

static const rtm_sim_task_t vessel_tasks[] = {
    /* name, crit, placement, preemptible, period, deadline, offset, {cpu, gpu} */
    {"cpa_tcpa", RTM_CRIT_HARD, RTM_PLACE_AUTO, false, 20 * MS, 10 * MS, 0, {1500000, 2500000}},
    {"trajectory", RTM_CRIT_HARD, RTM_PLACE_AUTO, false, 50 * MS, 25 * MS, 2 * MS, {9 * MS, 4 * MS}},
    {"manoeuvre", RTM_CRIT_FIRM, RTM_PLACE_AUTO, true, 100 * MS, 100 * MS, 4 * MS, {25 * MS, 10 * MS}},
    {"route", RTM_CRIT_SOFT, RTM_PLACE_AUTO, true, 200 * MS, 200 * MS, 6 * MS, {50 * MS, 30 * MS}},
    {"camera", RTM_CRIT_SOFT, RTM_PLACE_AUTO, true, 40 * MS, 40 * MS, 8 * MS, {9800000, 8 * MS}},
};

static const rtm_sim_dev_t vessel_devs[] = {
    {"cpu", RTM_DEV_CPU, false, 0},
    {"gpu0", RTM_DEV_GPU, true, 100000},
};

void rtm_sim_vessel_set(const rtm_sim_task_t **tasks, uint32_t *n_tasks,
                        const rtm_sim_dev_t **devs, uint32_t *n_devs)
{
    *tasks = vessel_tasks;
    *n_tasks = sizeof(vessel_tasks) / sizeof(vessel_tasks[0]);
    *devs = vessel_devs;
    *n_devs = sizeof(vessel_devs) / sizeof(vessel_devs[0]);
}
