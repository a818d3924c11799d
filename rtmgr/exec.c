/* exec.c — the real-time executive (see exec.h).
 *
 * Owns: the job slots, one EDF queue and one run state per device, the release
 * schedule, the statistics, and the threads that use them.
 *
 * Invariants, all under x->mu:
 *   - a job slot is in exactly one place: the free stack, one device queue, or the
 *     `running` field of one device (a preempted job whose state is being read back
 *     before it moves is in none, briefly, owned by the dispatcher that aborted it);
 *   - a job that was preempted keeps the preemptible job (pj) of the instance it first
 *     ran on, its `home`; hold[task][d] == slot for home and every OpenCL device it
 *     resumed on, until its record is written: no other job of the task runs there
 *     (their buffers hold its state);
 *   - a device's backlog seen by placement = remaining prediction of its running job +
 *     predictions of the queued jobs EDF orders at or before the new job's deadline;
 *   - every released job produces exactly one record (rec_finish), then its slot is
 *     freed.
 * Lock discipline: no OpenCL call is made while holding x->mu (the completion callback,
 * called from the OpenCL runtime's thread, takes x->mu); the sink is called under
 * x->mu and must be a quick, non-blocking push. */
#include "exec.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define SLEEP_CHUNK_NS 50000000LL /* release thread re-checks stop at least this often */
/* An OpenCL run's end, asked for from 3/4 of its prediction on (ocl_wait): the first
 * interval, and the longest, which is also at most an eighth of the prediction */
#define ASK_FIRST_NS 20000LL
#define ASK_MAX_NS 1000000LL

typedef enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING } slot_state_t;

typedef struct {
    slot_state_t state;
    uint32_t task;
    uint64_t seq;
    int64_t release_ns, deadline_ns;
    int32_t device;
    rtm_place_reason_t reason;
    bool predicted_miss;
    int64_t predicted_ns;   /* what placement assumed (raw model x correction) */
    int64_t raw_ns;         /* the model's prediction */
    int64_t live;           /* targets at release for the prediction (-1: not used) */
    int64_t decide_ns;
    uint32_t preemptions;
    /* preemption: where its state is, and what its runs so far measured */
    int32_t home;           /* device whose instance's pj holds its state; -1: fresh */
    int32_t first_device;
    uint32_t resumes;
    rtm_place_reason_t resume_reason;
    uint64_t ckpt_blocks;
    int64_t first_start_ns;
    int64_t dev_start_ns, dev_end_ns; /* its device span on the host clock (run_result_t) */
    int64_t acc_exec_ns, acc_in_ns, acc_kernel_ns, acc_out_ns;
} job_t;

/* An OpenCL run that has begun: its commands are enqueued; the events of its inputs (a
 * fresh start) or of its first marker (a resume), and its end m1, its last output read
 * or an end marker (its callback wakes the dispatcher, which then asks m1's status). */
typedef struct {
    cl_event in0, in1, m0, m1;
    bool waited;          /* its commands have completed (no callback: error path) */
    bool fresh;
    rtm_status_t st;
    int64_t start_ns;
    int64_t hq_ns; /* host clock just before its first command (in0 or m0) was enqueued */
    const rtm_traffic_t *snap; /* the picture a fresh start loaded, or NULL */
} ocl_run_t;

/* Per-device run state: the fields placement reads are together at the top; the large
 * buffers live in separate arrays of rtm_exec_t so that the states of all devices share
 * a few cache lines. */
typedef struct {
    rtm_exec_t *x;
    uint32_t index;
    rtm_edfq_t q;
    int32_t running;    /* job slot, -1 when idle */
    int64_t run_start_ns, run_pred_ns;
    int64_t idle_from_ns; /* when its last job ended (0: none yet): the wake's test */
    int32_t preempt_job; /* slot whose abort placement asked for, -1 none */
    /* Completion callbacks count here and wake the dispatcher, which then asks its run's
     * end marker itself: a callback may come late (~10-20 ms seen on the H100), and an
     * aborted run's may come after the next run's, so no count stands for a run. */
    uint64_t cb_fired;
    int done_status;
    volatile int abort;  /* CPU: stop between blocks (pool and twin loop read it) */
    rtm_preempt_job_t *cpu_pj; /* CPU: the preempted job being resumed here, or NULL */
    int64_t wd_deadline; /* CPU: watchdog raises `abort` at this time; -1 disarmed */
    pthread_cond_t cv;
    bool cv_ok;
    _Atomic uint32_t kicks; /* counts kick(): what a spinning dispatcher watches */
    rtm_os_thread_t th;
    rtm_traffic_t *snap[2];      /* pictures of the last two jobs started (alternate) */
    uint32_t snap_i;             /* the last one loaded */
    char *result;                /* summary of the job just completed */
    /* OpenCL: the job begun right behind an abort's raise (pend_slot >= 0; already taken
     * from the queue and `running`), which the dispatcher waits for next */
    int32_t pend_slot;
    job_t pend_job;              /* its snapshot when taken */
    ocl_run_t pend;
} devrt_t;

struct rtm_exec {
    rtm_exec_params_t p;
    uint32_t n_devs, n_tasks, max_jobs;
    rtm_exec_dev_t dev[RTM_MAX_DEVICES];
    rtm_exec_task_t task[RTM_MAX_TASKS];
    pthread_mutex_t mu;
    bool mu_ok;
    atomic_bool stop_release;
    bool stopping;
    bool started;
    bool fifo;
    job_t job[RTM_MAX_JOBS];
    uint32_t free_stack[RTM_MAX_JOBS];
    uint32_t n_free;
    devrt_t drt[RTM_MAX_DEVICES];
    rtm_os_thread_t release_th;
    rtm_os_thread_t watchdog_th;
    pthread_cond_t wd_cv;
    bool wd_cv_ok;
    bool wd_stop;
    int64_t next_release[RTM_MAX_TASKS];
    uint64_t job_seq[RTM_MAX_TASKS];
    rtm_exec_stats_t st;
    rtm_place_qitem_t scratch[RTM_MAX_JOBS]; /* release thread: one device's queue */
    /* the large per-device buffers */
    rtm_edfq_item_t heap[RTM_MAX_DEVICES][RTM_MAX_JOBS];
    uint32_t pos[RTM_MAX_DEVICES][RTM_MAX_JOBS];
    char result[RTM_MAX_DEVICES][RTM_EXEC_RESULT_MAX];
    rtm_traffic_t snap[RTM_MAX_DEVICES][2];
    /* preemption, per (task, device): the preemptible job of each OpenCL instance and
     * its checkpoint storage (allocated by init), the slot holding the instance, which
     * instances a job may move between (same plan), and the bytes a move transfers */
    rtm_preempt_job_t pj[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    void *pj_mem[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    /* the picture a preempted traffic job's inputs came from (preemptible tasks whose
     * kernel loads one; allocated by init): its result is handed with it when it
     * completes, whichever pictures its home device loaded in between */
    rtm_traffic_t *pj_pic[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    int32_t hold[RTM_MAX_TASKS][RTM_MAX_DEVICES];
    uint64_t compat[RTM_MAX_TASKS][RTM_MAX_DEVICES]; /* bit e: d's job may resume on e */
    uint64_t blocks_total[RTM_MAX_TASKS][RTM_MAX_DEVICES]; /* over all launches */
    double in_bytes[RTM_MAX_TASKS][RTM_MAX_DEVICES];    /* IN + INOUT buffers */
    double out_bytes[RTM_MAX_TASKS][RTM_MAX_DEVICES];   /* OUT + INOUT buffers */
    double state_bytes[RTM_MAX_TASKS][RTM_MAX_DEVICES]; /* what the kernels write */
    double all_bytes[RTM_MAX_TASKS][RTM_MAX_DEVICES];   /* every buffer */
};

/* Wakes r's dispatcher (under x->mu): its condition variable, and the count it watches
 * while it spins ahead of a hard or firm release (dispatch_main). */
static void kick(devrt_t *r)
{
    atomic_fetch_add_explicit(&r->kicks, 1u, memory_order_release);
    pthread_cond_signal(&r->cv);
}

static const char *const outcome_names[RTM_JOB_OUTCOME_COUNT] = {
    "met", "late", "aborted", "dropped", "rejected", "cancelled", "failed",
};

const char *rtm_exec_outcome_name(rtm_job_outcome_t o)
{
    return (unsigned)o < RTM_JOB_OUTCOME_COUNT ? outcome_names[o] : "unknown";
}

size_t rtm_exec_size(void) { return sizeof(rtm_exec_t); }

const char *rtm_exec_dev_name(const rtm_exec_t *x, uint32_t dev)
{
    return dev < x->n_devs ? x->dev[dev].name : "-";
}

bool rtm_exec_is_fifo(const rtm_exec_t *x) { return x->fifo; }

bool rtm_exec_task_abortable(const rtm_task_cfg_t *cfg)
{
    return cfg->preemptible || cfg->crit == RTM_CRIT_FIRM;
}

bool rtm_exec_task_spun_for(const rtm_task_cfg_t *cfg) { return cfg->crit != RTM_CRIT_SOFT; }

int64_t rtm_exec_task_lead(const rtm_task_cfg_t *cfg, int64_t lead_ns)
{
    if (lead_ns <= 0 || !rtm_exec_task_spun_for(cfg))
        return 0;
    const int64_t cap = cfg->period_ns / RTM_SPIN_PERIOD_DIV;
    return lead_ns < cap ? lead_ns : cap;
}

/* Two instances whose blocks mean the same: same kernel, sizes, tuning and plan. */
static bool same_plan(const rtm_kinst_t *a, const rtm_kinst_t *b)
{
    if (a->kernel != b->kernel || a->tune.wg != b->tune.wg || a->tune.vec != b->tune.vec ||
        memcmp(a->size, b->size, sizeof(a->size)) != 0 || a->plan.launches != b->plan.launches ||
        a->plan.n_bufs != b->plan.n_bufs || a->plan.blocks_max != b->plan.blocks_max)
        return false;
    for (uint32_t i = 0; i < a->plan.n_bufs; i++)
        if (a->plan.buf[i].bytes != b->plan.buf[i].bytes || a->plan.buf[i].dir != b->plan.buf[i].dir)
            return false;
    return true;
}

/* The preemptible job of every OpenCL instance, and what moving one costs (init). */
static rtm_status_t preempt_init(rtm_exec_t *x)
{
    for (uint32_t t = 0; t < x->n_tasks; t++) {
        const rtm_exec_task_t *tk = &x->task[t];
        for (uint32_t d = 0; d < x->n_devs; d++) {
            x->hold[t][d] = -1;
            const rtm_kinst_t *k = tk->inst[d];
            if (tk->predict_ns[d] < 0 || !k)
                continue;
            x->blocks_total[t][d] += rtm_kinst_blocks(k);
            for (uint32_t b = 0; b < k->plan.n_bufs; b++) {
                const double n = (double)k->plan.buf[b].bytes;
                const unsigned dir = k->plan.buf[b].dir;
                x->all_bytes[t][d] += n;
                x->in_bytes[t][d] += (dir == RTM_BUF_IN || dir == RTM_BUF_INOUT) ? n : 0.0;
                x->out_bytes[t][d] += (dir == RTM_BUF_OUT || dir == RTM_BUF_INOUT) ? n : 0.0;
                x->state_bytes[t][d] += dir != RTM_BUF_IN ? n : 0.0;
            }
            if (x->dev[d].kind == RTM_DEV_CPU)
                continue;
            const rtm_kexec_t *kx = tk->kx[d];
            if (kx->k != k)
                return RTM_E_ARG; /* the executor must be the instance's */
            const bool count = kx->count != NULL;
            const size_t bytes = rtm_preempt_job_bytes(k, count);
            x->pj_mem[t][d] = aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
            if (!x->pj_mem[t][d])
                return RTM_E_NOMEM;
            const rtm_status_t st = rtm_preempt_job_init(&x->pj[t][d], k, x->pj_mem[t][d],
                                                         (bytes + 63u) & ~(size_t)63u, 0, count);
            if (st != RTM_OK)
                return st;
            if (k->kernel->load_traffic && tk->cfg->preemptible) {
                x->pj_pic[t][d] = malloc(sizeof(rtm_traffic_t));
                if (!x->pj_pic[t][d])
                    return RTM_E_NOMEM;
                x->pj_pic[t][d]->n = 0;
            }
        }
        for (uint32_t d = 0; d < x->n_devs; d++) {
            if (!x->pj_mem[t][d])
                continue;
            for (uint32_t e = 0; e < x->n_devs; e++) {
                if (e == d || !x->pj_mem[t][e])
                    continue;
                if (same_plan(tk->inst[d], tk->inst[e]) &&
                    (tk->kx[d]->count != NULL) == (tk->kx[e]->count != NULL))
                    x->compat[t][d] |= 1ull << e;
            }
        }
    }
    return RTM_OK;
}

rtm_status_t rtm_exec_init(rtm_exec_t *x, const rtm_exec_params_t *p, const rtm_exec_dev_t *devs,
                           uint32_t n_devs, const rtm_exec_task_t *tasks, uint32_t n_tasks)
{
    if (!x || !p || !devs || !tasks || n_devs == 0 || n_devs > RTM_MAX_DEVICES || n_tasks == 0 ||
        n_tasks > RTM_MAX_TASKS || p->max_jobs == 0 || p->max_jobs > RTM_MAX_JOBS ||
        (unsigned)p->policy >= RTM_POLICY_COUNT || !(p->margin >= 0.0 && p->margin < 10.0) ||
        !(p->adapt >= 0.0 && p->adapt <= 1.0))
        return RTM_E_ARG;
    memset(x, 0, sizeof(*x));
    x->p = *p;
    x->n_devs = n_devs;
    x->n_tasks = n_tasks;
    x->max_jobs = p->max_jobs;
    memcpy(x->dev, devs, n_devs * sizeof(devs[0]));
    memcpy(x->task, tasks, n_tasks * sizeof(tasks[0]));
    for (uint32_t t = 0; t < n_tasks; t++) {
        const rtm_exec_task_t *tk = &x->task[t];
        if (!tk->cfg || tk->cfg->period_ns <= 0 || tk->cfg->deadline_ns <= 0)
            return RTM_E_ARG;
        bool any = false;
        for (uint32_t d = 0; d < n_devs; d++) {
            if (tk->predict_ns[d] < 0)
                continue;
            if (!tk->inst[d] || (devs[d].kind != RTM_DEV_CPU && (!tk->kx[d] || !devs[d].ocl)))
                return RTM_E_ARG;
            any = true;
        }
        if (!any)
            return RTM_E_ARG;
    }
    for (uint32_t d = 0; d < n_devs; d++)
        if (devs[d].kind != RTM_DEV_CPU && !devs[d].ocl)
            return RTM_E_ARG;
    rtm_status_t st = preempt_init(x);
    if (st != RTM_OK) {
        rtm_exec_destroy(x);
        return st;
    }
    st = rtm_os_mutex_init(&x->mu);
    if (st != RTM_OK)
        return st;
    x->mu_ok = true;
    for (uint32_t d = 0; d < n_devs; d++) {
        devrt_t *r = &x->drt[d];
        r->x = x;
        r->index = d;
        r->running = r->preempt_job = r->pend_slot = -1;
        r->snap[0] = &x->snap[d][0];
        r->snap[1] = &x->snap[d][1];
        r->result = x->result[d];
        rtm_edfq_init(&r->q, x->heap[d], x->pos[d], x->max_jobs);
        st = rtm_os_cond_init(&r->cv);
        if (st != RTM_OK) {
            rtm_exec_destroy(x);
            return st;
        }
        r->cv_ok = true;
    }
    st = rtm_os_cond_init(&x->wd_cv);
    if (st != RTM_OK) {
        rtm_exec_destroy(x);
        return st;
    }
    x->wd_cv_ok = true;
    for (uint32_t d = 0; d < n_devs; d++)
        x->drt[d].wd_deadline = -1;
    for (uint32_t i = 0; i < x->max_jobs; i++)
        x->free_stack[i] = x->max_jobs - 1 - i;
    x->n_free = x->max_jobs;
    x->st.n_tasks = n_tasks;
    x->st.n_devs = n_devs;
    for (uint32_t t = 0; t < n_tasks; t++)
        for (uint32_t d = 0; d < RTM_MAX_DEVICES; d++)
            x->st.task[t].corr[d] = 1.0;
    return RTM_OK;
}

void rtm_exec_destroy(rtm_exec_t *x)
{
    for (uint32_t t = 0; t < x->n_tasks; t++) {
        for (uint32_t d = 0; d < x->n_devs; d++) {
            free(x->pj_pic[t][d]);
            x->pj_pic[t][d] = NULL;
            if (!x->pj_mem[t][d])
                continue;
            rtm_preempt_job_release(&x->pj[t][d]);
            free(x->pj_mem[t][d]);
            x->pj_mem[t][d] = NULL;
        }
    }
    for (uint32_t d = 0; d < x->n_devs; d++)
        if (x->drt[d].cv_ok)
            pthread_cond_destroy(&x->drt[d].cv);
    if (x->wd_cv_ok)
        pthread_cond_destroy(&x->wd_cv);
    x->wd_cv_ok = false;
    if (x->mu_ok)
        pthread_mutex_destroy(&x->mu);
    x->mu_ok = false;
    for (uint32_t d = 0; d < x->n_devs; d++)
        x->drt[d].cv_ok = false;
}

/* ---- records and statistics (under x->mu) ---- */

static void rec_init(const rtm_exec_t *x, const job_t *j, rtm_exec_rec_t *r)
{
    memset(r, 0, sizeof(*r));
    r->task = j->task;
    r->job = j->seq;
    r->device = j->device;
    r->crit = x->task[j->task].cfg->crit;
    r->reason = j->reason;
    r->predicted_miss = j->predicted_miss;
    r->preemptions = j->preemptions;
    r->resumes = j->resumes;
    r->first_device = j->first_device;
    r->resume_reason = j->resume_reason;
    r->ckpt_blocks = j->ckpt_blocks;
    r->release_ns = j->release_ns;
    r->deadline_ns = j->deadline_ns;
    r->predicted_ns = j->raw_ns;
    r->live = j->live;
    r->placed_ns = j->predicted_ns;
    r->decide_ns = j->decide_ns;
    /* what its runs so far measured (a preempted job's earlier parts) */
    r->ran = j->preemptions > 0;
    r->start_ns = j->first_start_ns;
    r->dev_start_ns = j->dev_start_ns;
    r->dev_end_ns = j->dev_end_ns;
    r->exec_ns = j->acc_exec_ns;
    r->in_ns = j->acc_in_ns;
    r->kernel_ns = j->acc_kernel_ns;
    r->out_ns = j->acc_out_ns;
    if (j->home >= 0) {
        const rtm_preempt_job_t *pj = &x->pj[j->task][j->home];
        r->blocks_total = (uint32_t)x->blocks_total[j->task][j->home];
        r->blocks_done = (uint32_t)rtm_preempt_done_blocks(pj);
    }
}

/* Accounts a record, hands it to the sink, frees the slot (slot < 0: no slot). */
static void rec_finish(rtm_exec_t *x, int32_t slot, rtm_exec_rec_t *r)
{
    rtm_exec_task_stats_t *s = &x->st.task[r->task];
    r->met = r->outcome == RTM_JOB_MET;
    switch (r->outcome) {
    case RTM_JOB_MET: s->met++, s->completed++; break;
    case RTM_JOB_LATE: s->late++, s->completed++; break;
    case RTM_JOB_ABORTED: s->aborted++; break;
    case RTM_JOB_DROPPED: s->dropped++; break;
    case RTM_JOB_REJECTED: s->rejected++; break;
    case RTM_JOB_CANCELLED: s->cancelled++; break;
    case RTM_JOB_FAILED: s->failed++; break;
    default: break;
    }
    const bool missed = r->outcome == RTM_JOB_LATE || r->outcome == RTM_JOB_ABORTED ||
                        r->outcome == RTM_JOB_DROPPED || r->outcome == RTM_JOB_REJECTED;
    if (missed) {
        s->missed++;
        if (r->crit == RTM_CRIT_HARD)
            s->hard_alarms++;
    }
    if (r->ran) {
        s->last_exec_ns = r->exec_ns;
        if (r->exec_ns > s->worst_exec_ns)
            s->worst_exec_ns = r->exec_ns;
        if (r->device >= 0) {
            x->st.dev_jobs[r->device]++;
            x->st.dev_busy_ns[r->device] += r->exec_ns;
        }
    }
    if (r->outcome == RTM_JOB_MET || r->outcome == RTM_JOB_LATE) {
        r->response_ns = r->end_ns - r->release_ns;
        s->last_resp_ns = r->response_ns;
        if (r->response_ns > s->worst_resp_ns)
            s->worst_resp_ns = r->response_ns;
        rtm_hist_add(&s->resp, r->response_ns);
        if (r->exec_ns > 0 && r->predicted_ns > 0 && r->preemptions == 0) {
            const double e = (double)(r->exec_ns - r->predicted_ns);
            s->ape_sum += (e < 0 ? -e : e) / (double)r->exec_ns;
            s->ape_n++;
            if (x->p.adapt > 0.0 && r->device >= 0)
                s->corr[r->device] = rtm_model_correct(s->corr[r->device], x->p.adapt,
                                                       (double)r->exec_ns,
                                                       (double)r->predicted_ns);
        }
    }
    if (x->p.sink)
        x->p.sink(x->p.sink_ctx, r);
    if (slot >= 0) {
        bool released = false;
        for (uint32_t d = 0; d < x->n_devs; d++) {
            if (x->hold[r->task][d] == slot) {
                x->hold[r->task][d] = -1;
                released = true;
            }
        }
        if (released) /* a later job of the task may wait for these instances */
            for (uint32_t d = 0; d < x->n_devs; d++)
                kick(&x->drt[d]);
        x->job[slot].state = SLOT_FREE;
        x->free_stack[x->n_free++] = (uint32_t)slot;
    }
}

static void finish_unrun(rtm_exec_t *x, int32_t slot, rtm_job_outcome_t outcome)
{
    rtm_exec_rec_t r;
    rec_init(x, &x->job[slot], &r);
    r.outcome = outcome;
    rec_finish(x, slot, &r);
}

/* ---- release thread ---- */

/* The model's time of a job of task t on device d with `live` targets in its picture
 * (-1: the task's whole prediction): between the empty and the full picture's. */
static int64_t task_ns(const rtm_exec_t *x, uint32_t t, uint32_t d, int64_t live)
{
    const rtm_exec_task_t *tk = &x->task[t];
    const int64_t full = tk->predict_ns[d], empty = tk->predict_empty_ns[d];
    if (full < 0 || live < 0 || tk->slots == 0 || empty < 0)
        return full;
    return empty + (int64_t)((double)(full - empty) * (double)live / (double)tk->slots);
}

/* Device d as placement sees it for job j (its task, deadline and picture). */
static void device_state(rtm_exec_t *x, uint32_t d, const job_t *j, int64_t now,
                         rtm_place_dev_t *out)
{
    const uint32_t task = j->task;
    const int64_t deadline = j->deadline_ns;
    const devrt_t *r = &x->drt[d];
    memset(out, 0, sizeof(*out));
    out->kind = x->dev[d].kind;
    out->can_abort = x->dev[d].can_abort;
    out->abort_ns = x->dev[d].abort_ns;
    out->predict_ns = task_ns(x, task, d, j->live);
    if (out->predict_ns > 0)
        out->predict_ns = (int64_t)((double)out->predict_ns * x->st.task[task].corr[d]);
    out->margin_ns = out->predict_ns > 0 ? (int64_t)((double)out->predict_ns * x->p.margin) : 0;
    int64_t rem = 0, rmargin = 0;
    if (r->running >= 0) {
        const job_t *rj = &x->job[r->running];
        const rtm_task_cfg_t *rc = x->task[rj->task].cfg;
        rem = rtm_place_run_remaining(r->run_pred_ns, now - r->run_start_ns);
        rmargin = (int64_t)((double)r->run_pred_ns * x->p.margin);
        out->running = true;
        out->run_preemptible = rc->preemptible && r->preempt_job < 0;
        out->run_guarded = rc->crit != RTM_CRIT_SOFT;
        out->run_deadline_ns = rj->deadline_ns;
        out->run_remaining_ns = rem;
    }
    const uint32_t n = rtm_edfq_count(&r->q);
    for (uint32_t i = 0; i < n; i++) {
        const rtm_edfq_item_t *it = rtm_edfq_at(&r->q, i);
        const job_t *qj = &x->job[it->handle];
        x->scratch[i] = (rtm_place_qitem_t){
            .deadline_ns = it->deadline, .predict_ns = qj->predicted_ns,
            .margin_ns = (int64_t)((double)qj->predicted_ns * x->p.margin),
            .guarded = x->task[qj->task].cfg->crit != RTM_CRIT_SOFT};
    }
    rtm_place_queue(out, now, deadline, rem, rmargin, x->scratch, n);
}

static void release_one(rtm_exec_t *x, uint32_t t, int64_t release_ns)
{
    const rtm_task_cfg_t *cfg = x->task[t].cfg;
    rtm_exec_task_stats_t *s = &x->st.task[t];
    s->released++;
    x->st.releases++;
    const uint64_t seq = x->job_seq[t]++;
    if (x->n_free == 0) { /* job table full: the system is overloaded */
        job_t tmp = {.task = t, .seq = seq, .release_ns = release_ns,
                     .deadline_ns = release_ns + cfg->deadline_ns, .device = -1,
                     .reason = RTM_REASON_NONE, .live = -1};
        rtm_exec_rec_t r;
        rec_init(x, &tmp, &r);
        r.outcome = RTM_JOB_REJECTED;
        x->st.overloads++;
        rec_finish(x, -1, &r);
        return;
    }
    const int32_t slot = (int32_t)x->free_stack[--x->n_free];
    job_t *j = &x->job[slot];
    memset(j, 0, sizeof(*j));
    j->task = t;
    j->seq = seq;
    j->release_ns = release_ns;
    j->deadline_ns = release_ns + cfg->deadline_ns;
    j->home = j->first_device = -1;
    j->live = -1;
    if (x->task[t].slots && x->p.input.targets) {
        const uint32_t n = x->p.input.targets(x->p.input.ctx);
        j->live = n < x->task[t].slots ? n : x->task[t].slots;
    }

    const int64_t t0 = rtm_os_now_ns();
    rtm_place_dev_t devs[RTM_MAX_DEVICES];
    int64_t held_pred[RTM_MAX_DEVICES];
    bool held = false;
    for (uint32_t d = 0; d < x->n_devs; d++) {
        device_state(x, d, j, t0, &devs[d]);
        held_pred[d] = devs[d].predict_ns;
        if (x->hold[t][d] >= 0) { /* a preempted job of this task owns the instance there */
            devs[d].predict_ns = -1;
            held = true;
        }
    }
    const rtm_place_job_t pj = {.task = t, .release_ns = release_ns, .deadline_ns = j->deadline_ns,
                                .crit = cfg->crit, .placement = cfg->placement,
                                .preemptible = cfg->preemptible};
    rtm_place_out_t o;
    rtm_place_decide(x->p.policy, &pj, t0, devs, x->n_devs, &o);
    if (o.device < 0 && held) { /* only held devices: queue there, it waits for the holder */
        for (uint32_t d = 0; d < x->n_devs; d++)
            devs[d].predict_ns = held_pred[d];
        rtm_place_decide(x->p.policy, &pj, t0, devs, x->n_devs, &o);
    }
    j->decide_ns = rtm_os_now_ns() - t0;
    rtm_hist_add(&x->st.decide, j->decide_ns);
    j->device = o.device;
    j->reason = o.reason;
    j->predicted_miss = o.predicted_miss;
    if (o.overload)
        x->st.overloads++;
    if (o.predicted_miss)
        s->predicted_misses++;
    if (o.device < 0) {
        finish_unrun(x, slot, RTM_JOB_REJECTED);
        return;
    }
    devrt_t *r = &x->drt[o.device];
    s->placed[o.device]++;
    j->raw_ns = task_ns(x, t, (uint32_t)o.device, j->live);
    j->predicted_ns = devs[o.device].predict_ns;
    j->state = SLOT_QUEUED;
    rtm_edfq_push(&r->q, (uint32_t)slot, j->deadline_ns);
    if (o.preempt && r->running >= 0)
        r->preempt_job = r->running;
    kick(r);
}

/* The wakes ahead of the releases due at `next` (wake.h): every device with a wake that
 * is idle (nothing running, begun or queued) since RTM_WAKE_IDLE_NS or more, and on which
 * a task due then may run, gets the empty kernel now. The enqueues go outside the lock.
 * Release thread. */
static void wake_devices(rtm_exec_t *x, int64_t next)
{
    uint32_t due[RTM_MAX_DEVICES], n = 0;
    const int64_t now = rtm_os_now_ns();
    pthread_mutex_lock(&x->mu);
    for (uint32_t d = 0; d < x->n_devs; d++) {
        const devrt_t *r = &x->drt[d];
        if (!x->dev[d].wake || r->running >= 0 || r->pend_slot >= 0 ||
            rtm_edfq_count(&r->q) > 0 || now - r->idle_from_ns < RTM_WAKE_IDLE_NS)
            continue;
        for (uint32_t t = 0; t < x->n_tasks; t++) /* may run there: predicted there */
            if (x->next_release[t] <= next && x->task[t].predict_ns[d] >= 0) {
                due[n++] = d;
                break;
            }
    }
    pthread_mutex_unlock(&x->mu);
    if (n == 0)
        return;
    uint32_t sent[RTM_MAX_DEVICES];
    for (uint32_t i = 0; i < n; i++)
        sent[i] = rtm_wake_kick(x->dev[due[i]].wake) == RTM_OK;
    pthread_mutex_lock(&x->mu);
    for (uint32_t i = 0; i < n; i++)
        x->st.dev_wakes[due[i]] += sent[i];
    pthread_mutex_unlock(&x->mu);
}

static void *release_main(void *arg)
{
    rtm_exec_t *x = arg;
    rtm_os_precise_sleeps();
    while (!atomic_load(&x->stop_release)) {
        int64_t next = INT64_MAX;
        for (uint32_t t = 0; t < x->n_tasks; t++)
            if (x->next_release[t] < next)
                next = x->next_release[t];
        /* with wakes: first to wake_lead_ns before the release (a release that comes
         * sooner than that is woken for at once) */
        bool woken = x->p.wake_lead_ns <= 0 || next == INT64_MAX;
        for (;;) {
            const int64_t now = rtm_os_now_ns();
            if (now >= next || atomic_load(&x->stop_release))
                break;
            const int64_t wake_at = woken ? next : next - x->p.wake_lead_ns;
            if (now >= wake_at) {
                wake_devices(x, next);
                woken = true;
                continue;
            }
            rtm_os_sleep_until(wake_at - now > SLEEP_CHUNK_NS ? now + SLEEP_CHUNK_NS : wake_at);
        }
        if (atomic_load(&x->stop_release))
            break;
        const int64_t now = rtm_os_now_ns();
        if (x->p.input.advance)
            x->p.input.advance(x->p.input.ctx, now);
        pthread_mutex_lock(&x->mu);
        rtm_hist_add(&x->st.jitter, now - next);
        x->st.wakeups++;
        for (uint32_t t = 0; t < x->n_tasks; t++) {
            if (x->next_release[t] > now)
                continue;
            release_one(x, t, x->next_release[t]);
            const int64_t period = x->task[t].cfg->period_ns;
            x->next_release[t] += period;
            while (x->next_release[t] <= now) { /* fell behind: skip, never burst */
                x->next_release[t] += period;
                x->st.skipped_releases++;
            }
        }
        pthread_mutex_unlock(&x->mu);
    }
    return NULL;
}

/* ---- dispatchers ---- */

typedef struct {
    rtm_job_outcome_t outcome;
    bool preempted;   /* stopped by a preemption before completion: re-place it */
    int64_t abort_ns, release_ns; /* preempted: flag raised -> stopped and its checkpoint
                                   * read / -> device free */
    int64_t stop_ns;              /* preempted: flag raised -> its kernels ended (the
                                   * device's stamp on the host clock; < 0: not known) */
    int64_t behind_ns;            /* aborted: raised -> the next job enqueued (0: none) */
    int64_t start_ns, end_ns, exec_ns, in_ns, kernel_ns, out_ns;
    int64_t dev_start_ns, dev_end_ns; /* OpenCL, completed: its first command's START and
                                       * last command's END on the host clock (0: unknown) */
    uint64_t remaining, total; /* stopped: unfinished and all blocks over all launches */
    const rtm_kinst_t *k; /* completed: the instance holding the outputs */
    const rtm_traffic_t *snap; /* the picture its inputs came from (NULL: none / unknown) */
    rtm_status_t status;
} run_result_t;

/* A fresh job's inputs into its instance's host buffers; returns the picture it loaded
 * (NULL: none). Pictures alternate between two buffers, so that a job begun behind an
 * abort keeps the aborted job's (which may have completed anyway) intact. */
static const rtm_traffic_t *load_inputs(devrt_t *r, const job_t *j, rtm_kinst_t *k)
{
    const rtm_exec_t *x = r->x;
    const rtm_exec_task_t *tk = &x->task[j->task];
    rtm_kinst_put_back(k, tk->inout_init[r->index]);
    if (!k->kernel->load_traffic || !x->p.input.snapshot)
        return NULL;
    r->snap_i ^= 1u;
    rtm_traffic_t *snap = r->snap[r->snap_i];
    x->p.input.snapshot(x->p.input.ctx, snap);
    k->kernel->load_traffic(k, snap);
    return snap;
}

/* CPU twin on the host. Called unlocked. */
static void run_cpu(devrt_t *r, const job_t *j, run_result_t *res)
{
    rtm_exec_t *x = r->x;
    rtm_kinst_t *k = x->task[j->task].inst[r->index];
    const bool firm = x->task[j->task].cfg->crit == RTM_CRIT_FIRM;
    res->snap = load_inputs(r, j, k);
    res->k = k;
    res->start_ns = rtm_os_now_ns();
    bool aborted = false;
    for (uint32_t l = 0; l < k->plan.launches && !aborted; l++) {
        rtm_klaunch_t kl;
        k->kernel->launch(k, l, &kl);
        if (x->p.cpu_run) {
            if (firm && rtm_os_now_ns() >= j->deadline_ns)
                r->abort = 1;
            aborted = r->abort || !x->p.cpu_run(x->p.cpu_run_ctx, k, l, kl.blocks, &r->abort);
            continue;
        }
        for (uint32_t b = 0; b < kl.blocks; b++) {
            if (r->abort || (firm && rtm_os_now_ns() >= j->deadline_ns)) {
                aborted = true;
                break;
            }
            k->kernel->cpu_block(k, l, b);
        }
    }
    res->end_ns = rtm_os_now_ns();
    res->exec_ns = res->end_ns - res->start_ns;
    res->kernel_ns = res->exec_ns;
    res->outcome = aborted ? RTM_JOB_ABORTED : res->end_ns <= j->deadline_ns ? RTM_JOB_MET : RTM_JOB_LATE;
}

/* A preempted job's unfinished blocks through the CPU twin, on the worker pool (or this
 * thread), into the host buffers of its home instance. A firm job is stopped between
 * blocks at its deadline by the watchdog (rtm_preempt_stop_cpu). Called unlocked. */
static void run_cpu_resume(devrt_t *r, const job_t *j, run_result_t *res)
{
    rtm_exec_t *x = r->x;
    rtm_preempt_job_t *pj = &x->pj[j->task][j->home];
    res->k = pj->k;
    res->snap = x->pj_pic[j->task][j->home];
    res->start_ns = rtm_os_now_ns();
    const rtm_status_t st = rtm_preempt_resume_pool(pj, x->p.pool);
    res->end_ns = rtm_os_now_ns();
    res->exec_ns = res->end_ns - res->start_ns;
    res->kernel_ns = res->exec_ns;
    if (st == RTM_OK)
        res->outcome = res->end_ns <= j->deadline_ns ? RTM_JOB_MET : RTM_JOB_LATE;
    else if (st == RTM_E_ABORTED)
        res->outcome = RTM_JOB_ABORTED;
    else {
        res->status = st;
        res->outcome = RTM_JOB_FAILED;
    }
}

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *arg)
{
    (void)ev;
    devrt_t *r = arg;
    pthread_mutex_lock(&r->x->mu);
    r->cb_fired++;
    if (status < 0)
        r->done_status = status;
    kick(r);
    pthread_mutex_unlock(&r->x->mu);
}

/* The device's span of a run, first's START to last's END, in ns (0 when unknown, as
 * rtm_ocl_span_ns), and with on_host that span on the host clock in *s, *e: first's
 * QUEUED stamp is the device's clock when the host enqueued it, just after hq (host
 * clock), so a device time t is at hq + (t - QUEUED) on the host (early by the few us
 * between hq and that enqueue; the clocks' drift over one job is well under 1 us). *s,
 * *e stay 0 when a stamp is missing or out of order. */
static int64_t run_span(cl_event first, cl_event last, bool on_host, int64_t hq, int64_t *s,
                        int64_t *e)
{
    const cl_ulong a = rtm_ocl_stamp(first, CL_PROFILING_COMMAND_START);
    const cl_ulong b = rtm_ocl_stamp(last, CL_PROFILING_COMMAND_END);
    const cl_ulong q = on_host ? rtm_ocl_stamp(first, CL_PROFILING_COMMAND_QUEUED) : 0;
    if (hq > 0 && q && a >= q && b >= a) {
        *s = hq + (int64_t)(a - q);
        *e = hq + (int64_t)(b - q);
    }
    return a && b > a ? (int64_t)(b - a) : 0;
}

/* The run's end m1 wakes r's dispatcher through on_complete (none with no_callbacks). */
static cl_int set_callback(devrt_t *r, cl_event m1)
{
    return r->x->p.no_callbacks ? CL_SUCCESS : clSetEventCallback(m1, CL_COMPLETE, on_complete, r);
}

static rtm_status_t marker(cl_command_queue q, cl_event *ev)
{
    RTM_CL_CHECK(clEnqueueMarkerWithWaitList(q, 0, NULL, ev), "clEnqueueMarkerWithWaitList");
    return RTM_OK;
}

/* Waits for everything on the device's queues of kx (an error path). */
static void ocl_settle(const rtm_kexec_t *kx)
{
    rtm_ocl_finish_exec(kx->dev);
    clFinish(kx->dev->side);
}

/* A chunked run's pacing (rtm_preempt_pacing; the executive's jobs have no launch window,
 * so chunks are all it paces): polls the job, which releases its next chunks; once its
 * outputs are enqueued, their last event becomes the run's end m1 with
 * the completion callback, as ocl_begin gives every other run. Called unlocked. */
static rtm_status_t ocl_pace(devrt_t *r, rtm_preempt_job_t *pj, ocl_run_t *run)
{
    bool fin = false;
    rtm_status_t st = rtm_preempt_poll(pj, &fin);
    if (st == RTM_OK && pj->out_ev && !run->m1) {
        clRetainEvent(pj->out_ev);
        run->m1 = pj->out_ev;
        if (set_callback(r, run->m1) != CL_SUCCESS)
            st = RTM_E_CL;
    }
    if (st != RTM_OK)
        ocl_settle(pj->x);
    return st;
}

/* Begins one run of a job on an OpenCL device, as a preemptible job: a fresh start
 * (inputs, every launch, outputs), or the resume of a preempted one (only its
 * unfinished blocks; its state uploaded first when it stopped on another device), then
 * the end marker and its callback (a chunked run: none yet, ocl_wait paces it). Returns
 * once enqueued. Called unlocked. */
static void ocl_begin(devrt_t *r, const job_t *j, ocl_run_t *run)
{
    rtm_exec_t *x = r->x;
    const uint32_t t = j->task, d = r->index;
    rtm_kexec_t *kx = x->task[t].kx[d];
    memset(run, 0, sizeof(*run));
    run->fresh = j->home < 0;
    rtm_preempt_job_t *pj = &x->pj[t][run->fresh ? d : (uint32_t)j->home];
    run->start_ns = rtm_os_now_ns();
    rtm_status_t st = RTM_OK;
    /* the in-kernel watcher for long kernels of jobs that may be aborted (kexec.h) */
    rtm_kexec_set_watch(kx, !kx->opts.never_aborted &&
                                rtm_kexec_watch_worth((double)j->predicted_ns * 1e-9));
    if (run->fresh) {
        run->snap = load_inputs(r, j, x->task[t].inst[d]);
        st = rtm_preempt_job_reset(pj);
        run->hq_ns = rtm_os_now_ns();
        if (st == RTM_OK) /* block-control clears and inputs, with their events, then the job */
            st = rtm_preempt_start_ex(pj, kx, true, &run->in0, &run->in1);
    } else {
        run->snap = x->pj_pic[t][j->home];
        run->hq_ns = rtm_os_now_ns();
        st = marker(kx->dev->exec, &run->m0);
        if (st == RTM_OK)
            st = rtm_preempt_resume_gpu(pj, kx);
    }
    /* the end of the run: its last output read when every command is enqueued already
     * (the reads are the last commands of their in-order queue; enqueued and flushed),
     * else a marker in order after the outputs, on their queue (on the H100's driver a
     * marker and a flush are 11 and 4 us of host time) */
    if (st == RTM_OK && rtm_preempt_pacing(pj)) { /* chunks: ocl_wait paces them, then ends */
        run->st = st;
        return;
    }
    const bool marked = st == RTM_OK && !pj->out_ev;
    if (st == RTM_OK && pj->out_ev) {
        clRetainEvent(pj->out_ev);
        run->m1 = pj->out_ev;
    } else if (st == RTM_OK) {
        st = marker(kx->read_beside ? kx->dev->side : kx->dev->exec, &run->m1);
    }
    run->st = st;
    if (st != RTM_OK || set_callback(r, run->m1) != CL_SUCCESS) {
        ocl_settle(kx); /* no callback: wait here (error path) */
        run->waited = true;
    } else if (marked) {
        clFlush(kx->dev->exec);
        if (kx->read_beside)
            clFlush(kx->dev->side);
    }
}

/* Right behind an abort's raise on r's device (the aborted job of `task` still
 * draining): takes the next job of the queue and begins it, so that the device starts
 * it as soon as the aborted kernels end rather than once the host has noticed (the
 * H100's driver tells the host 20-100 us after the device). Never a job of `task`,
 * whose instance holds the aborted job's state. Called unlocked. */
static bool begin_behind(devrt_t *r, uint32_t task);

/* Waits for a begun OpenCL run: for its end, a preemption request (abort, keeping the
 * completed blocks; the next job is begun behind the raise) or a firm job's deadline
 * (abort, drop). Called unlocked. */
static void ocl_wait(devrt_t *r, int32_t slot, const job_t *j, ocl_run_t *run, run_result_t *res)
{
    rtm_exec_t *x = r->x;
    const uint32_t t = j->task, d = r->index;
    rtm_kexec_t *kx = x->task[t].kx[d];
    const bool fresh = run->fresh;
    rtm_preempt_job_t *pj = &x->pj[t][fresh ? d : (uint32_t)j->home];
    const bool firm = x->task[t].cfg->crit == RTM_CRIT_FIRM;
    const rtm_status_t st = run->st;
    res->start_ns = run->start_ns;
    res->snap = run->snap;
    bool aborted = false, preempted = false;
    rtm_preempt_stop_t stop;
    memset(&stop, 0, sizeof(stop));
    rtm_status_t ast = RTM_OK;
    int64_t raised_ns = -1;
    /* Late output reads (kx->read_late: large outputs into pageable memory) are
     * enqueued once the last kernel has ended; waiting for the callback to notice that
     * left the device idle 60 us to 10 ms on the H100 (session 16). From 3/4 of the
     * predicted time on, the dispatcher polls the job itself until the reads are in
     * (at most to twice the prediction; then the callback as before). */
    const int64_t poll_from = kx->read_late && j->predicted_ns > 0
                                  ? res->start_ns + j->predicted_ns / 4 * 3 : INT64_MAX;
    const int64_t poll_until =
        poll_from < INT64_MAX ? res->start_ns + 2 * j->predicted_ns : INT64_MAX;
    bool reads_in = poll_from == INT64_MAX;
    /* The end is also asked for, not only told: NVIDIA's driver called the completion
     * callback of preemptible jobs (beside reads) ~20 ms after their last command ended
     * (session 69), and the device waited for its next job that long. From 3/4 of the
     * run's prediction on, the dispatcher asks m1 itself, again ASK_FIRST_NS later, then
     * at doubling intervals up to ask_cap, until it has ended or the callback came. */
    const int64_t pred = j->predicted_ns > 0 ? j->predicted_ns : ASK_MAX_NS;
    int64_t ask_at = res->start_ns + pred / 4 * 3, ask_step = ASK_FIRST_NS;
    const int64_t ask_cap = pred / 8 < ASK_FIRST_NS ? ASK_FIRST_NS
                            : pred / 8 > ASK_MAX_NS ? ASK_MAX_NS : pred / 8;
    pthread_mutex_lock(&x->mu);
    bool over = run->waited; /* the run's commands are complete */
    bool check = true;       /* ask the end marker (first, then after each callback) */
    uint64_t seen = 0;
    int64_t pace_at = 0;     /* a chunked run without its end yet: next poll (ocl_pace) */
    while (!over) {
        if (!run->m1 && !aborted && rtm_os_now_ns() >= pace_at) {
            pthread_mutex_unlock(&x->mu);
            ast = ocl_pace(r, pj, run);
            pace_at = rtm_os_now_ns() + (int64_t)(RTM_PREEMPT_CHUNK_POLL_S * 1e9);
            pthread_mutex_lock(&x->mu);
            if (ast != RTM_OK)
                break;
        }
        const bool told = r->cb_fired != seen;
        if (run->m1 && (check || told || (!aborted && rtm_os_now_ns() >= ask_at))) {
            const bool asked = !check && !told;
            if (asked) {
                ask_at = rtm_os_now_ns() + ask_step;
                ask_step = 2 * ask_step < ask_cap ? 2 * ask_step : ask_cap;
            }
            seen = r->cb_fired;
            check = false;
            pthread_mutex_unlock(&x->mu);
            const int ended = rtm_ocl_event_done(run->m1, &ast); /* < 0: failed, reported */
            pthread_mutex_lock(&x->mu);
            if (ended > 0 && asked)
                x->st.dev_asked[d]++; /* found by asking, not told (or told meanwhile) */
            if (ended != 0)
                break;
            continue;
        }
        bool raise = false;
        const int64_t now = rtm_os_now_ns();
        if (r->preempt_job == slot && !aborted) {
            raise = aborted = preempted = true;
        } else if (firm && !aborted && now >= j->deadline_ns) {
            raise = aborted = true;
        } else if (!reads_in && !aborted && now >= poll_from && now < poll_until) {
            pthread_mutex_unlock(&x->mu);
            bool fin = false;
            reads_in = rtm_preempt_poll(pj, &fin) != RTM_OK || fin || pj->out_ev != NULL;
            pthread_mutex_lock(&x->mu);
        } else {
            int64_t until = firm && !aborted ? j->deadline_ns : -1;
            if (!reads_in && !aborted && now < poll_from && (until < 0 || poll_from < until))
                until = poll_from;
            if (!run->m1 && !aborted && (until < 0 || pace_at < until))
                until = pace_at;
            if (run->m1 && !aborted && (until < 0 || ask_at < until))
                until = ask_at;
            const bool timed_out = rtm_os_cond_wait_until(&r->cv, &x->mu, until);
            if (timed_out && firm && !aborted && r->cb_fired == seen &&
                rtm_os_now_ns() >= j->deadline_ns)
                raise = aborted = true;
        }
        if (raise) { /* the flag through the device's transport, the next job behind it,
                      * then this one's stop: its kernels drained, its checkpoint read */
            pthread_mutex_unlock(&x->mu);
            raised_ns = rtm_os_now_ns();
            ast = rtm_preempt_raise(pj);
            if (ast == RTM_OK && !x->p.wait_abort && begin_behind(r, t))
                res->behind_ns = rtm_os_now_ns() - raised_ns;
            if (ast == RTM_OK)
                ast = rtm_preempt_stopped(pj, false, &stop);
            res->abort_ns = rtm_os_now_ns() - raised_ns;
            res->stop_ns = stop.stop_s >= 0.0 ? (int64_t)(stop.stop_s * 1e9) : -1;
            /* stopped: its kernels have ended and the checkpoint is read; the end marker
             * (behind them, or behind the side reads) and its callback are not waited
             * for, since the callback only wakes the dispatcher */
            over = true;
            pthread_mutex_lock(&x->mu);
        }
    }
    const int done_status = r->done_status;
    pthread_mutex_unlock(&x->mu);
    if (st == RTM_OK && ast == RTM_OK && done_status >= 0 && pj->state == RTM_PREEMPT_RUNNING) {
        bool fin = false; /* the outputs have arrived (m1 is after them): collect */
        rtm_status_t pst = rtm_preempt_poll(pj, &fin);
        if (pst == RTM_OK && !fin)
            pst = rtm_preempt_wait(pj);
        ast = pst;
    }
    res->end_ns = rtm_os_now_ns();
    res->exec_ns = res->end_ns - res->start_ns;
    res->in_ns = rtm_ocl_span_ns(run->in0, run->in1);
    /* the device's span of the run: its first command's start to its last's end (a
     * completed job's last output transfer; not the callback's marker behind it) */
    cl_event first = fresh ? run->in0 : run->m0;
    cl_event last = pj->state == RTM_PREEMPT_DONE && pj->end_ev ? pj->end_ev : run->m1;
    const int64_t all = run_span(first, last, pj->state == RTM_PREEMPT_DONE, run->hq_ns,
                                 &res->dev_start_ns, &res->dev_end_ns);
    rtm_ocl_put(&run->in0), rtm_ocl_put(&run->in1), rtm_ocl_put(&run->m0), rtm_ocl_put(&run->m1);
    res->status = st != RTM_OK ? st : ast != RTM_OK ? ast : done_status < 0 ? RTM_E_CL : RTM_OK;
    if (res->status != RTM_OK) {
        res->outcome = RTM_JOB_FAILED;
        return;
    }
    if (pj->state == RTM_PREEMPT_DONE) { /* completed, possibly before the flag took */
        res->k = kx->k;
        res->kernel_ns = (int64_t)(pj->run_kernel_s * 1e9);
        res->out_ns = all - res->in_ns - res->kernel_ns;
        if (res->out_ns < 0)
            res->out_ns = 0;
        res->outcome = res->end_ns <= j->deadline_ns ? RTM_JOB_MET : RTM_JOB_LATE;
        return;
    }
    /* stopped: the host clock of the aborted run counts as kernel time */
    res->kernel_ns = res->exec_ns - res->in_ns;
    res->total = x->blocks_total[t][fresh ? d : (uint32_t)j->home];
    res->remaining = stop.remaining_total < res->total ? stop.remaining_total : res->total;
    if (preempted) {
        res->preempted = true;
        res->release_ns = raised_ns >= 0 ? rtm_os_now_ns() - raised_ns : 0;
        /* its picture stays with it (this device's next jobs load theirs over it) */
        if (fresh && run->snap && x->pj_pic[t][d])
            rtm_traffic_copy(x->pj_pic[t][d], run->snap);
    } else
        res->outcome = RTM_JOB_ABORTED;
}

/* Is the job in `slot` free to run on r's device now (no other job of its task holds
 * the instance there)? */
static bool runnable(const rtm_exec_t *x, const devrt_t *r, uint32_t slot)
{
    if (x->dev[r->index].kind == RTM_DEV_CPU)
        return true;
    const int32_t h = x->hold[x->job[slot].task][r->index];
    return h < 0 || h == (int32_t)slot;
}

/* EDF rank of a queued job at `now`: its deadline; a soft job already past its deadline
 * ranks after every job that can still meet one (among late soft jobs, by deadline), so
 * that a late soft job — preempted back into the queue — never holds up hard jobs. */
static int64_t rank(const rtm_exec_t *x, const rtm_edfq_item_t *it, int64_t now)
{
    const job_t *j = &x->job[it->handle];
    if (x->task[j->task].cfg->crit == RTM_CRIT_SOFT && it->deadline <= now)
        return INT64_MAX / 2 + (it->deadline - now) / 2;
    return it->deadline;
}

/* Takes the best-ranked runnable job of r's queue, not of task `skip` (-1: any); -1
 * when none. */
static int32_t pick(rtm_exec_t *x, devrt_t *r, int64_t skip)
{
    const int64_t now = rtm_os_now_ns();
    int32_t best = -1;
    int64_t best_rank = 0;
    const uint32_t n = rtm_edfq_count(&r->q);
    for (uint32_t i = 0; i < n; i++) {
        const rtm_edfq_item_t *it = rtm_edfq_at(&r->q, i);
        if (!runnable(x, r, it->handle) || (int64_t)x->job[it->handle].task == skip)
            continue;
        const int64_t k = rank(x, it, now);
        if (best < 0 || k < best_rank) {
            best = (int32_t)it->handle;
            best_rank = k;
        }
    }
    if (best >= 0)
        rtm_edfq_remove(&r->q, (uint32_t)best);
    return best;
}

/* Adds a run's measurements to the job (under x->mu). */
static void account_run(job_t *j, const run_result_t *res)
{
    if (j->first_start_ns == 0) {
        j->first_start_ns = res->start_ns;
        j->dev_start_ns = res->dev_start_ns;
    }
    j->dev_end_ns = res->dev_end_ns;
    j->acc_exec_ns += res->exec_ns;
    j->acc_in_ns += res->in_ns;
    j->acc_kernel_ns += res->kernel_ns;
    j->acc_out_ns += res->out_ns > 0 ? res->out_ns : 0;
}

/* Re-places the job in `slot`, just aborted on device `from` with `remaining` of `total`
 * blocks unfinished, by the placement rules, each device predicting its unfinished
 * blocks (rtm_place_remaining). Fills o; *move: its state must be read back before it
 * goes to o->device. Under x->mu; r->running is -1, or the job begun behind the abort. */
static void replace(rtm_exec_t *x, uint32_t from, int32_t slot, uint64_t remaining,
                    uint64_t total, rtm_place_out_t *o, bool *move)
{
    job_t *j = &x->job[slot];
    const uint32_t t = j->task, home = (uint32_t)j->home;
    const rtm_exec_task_t *tk = &x->task[t];
    const int64_t now = rtm_os_now_ns();
    /* reading the state back from `from`: its output transfers scaled to the state */
    const double ob = x->out_bytes[t][from];
    const int64_t readback = ob > 0 ? (int64_t)((double)tk->predict_out_ns[from] *
                                                x->state_bytes[t][from] / ob)
                                    : 0;
    rtm_place_dev_t devs[RTM_MAX_DEVICES];
    int64_t raw[RTM_MAX_DEVICES];
    for (uint32_t d = 0; d < x->n_devs; d++) {
        device_state(x, d, j, now, &devs[d]);
        const bool cpu = x->dev[d].kind == RTM_DEV_CPU;
        bool ok = tk->predict_ns[d] >= 0;
        int64_t mv = readback;
        if (d != from && !cpu) {
            ok = ok && (d == home || (x->compat[t][home] >> d & 1u)) &&
                 (x->hold[t][d] < 0 || x->hold[t][d] == slot);
            const double ib = x->in_bytes[t][d];
            mv += ib > 0 ? (int64_t)((double)tk->predict_in_ns[d] * x->all_bytes[t][d] / ib) : 0;
        }
        raw[d] = ok ? rtm_place_remaining(task_ns(x, t, d, j->live), cpu ? 0 : tk->predict_in_ns[d],
                                          cpu ? 0 : tk->predict_out_ns[d], remaining, total,
                                          d == from, mv)
                    : -1;
        devs[d].predict_ns = raw[d] >= 0 ? (int64_t)((double)raw[d] * x->st.task[t].corr[d]) : -1;
        devs[d].margin_ns = devs[d].predict_ns > 0 ? (int64_t)((double)devs[d].predict_ns * x->p.margin) : 0;
    }
    const rtm_task_cfg_t *cfg = tk->cfg;
    const rtm_place_job_t pjob = {.task = t, .release_ns = j->release_ns,
                                  .deadline_ns = j->deadline_ns, .crit = cfg->crit,
                                  .placement = cfg->placement, .preemptible = cfg->preemptible};
    rtm_place_decide(x->p.policy, &pjob, now, devs, x->n_devs, o);
    if (o->device < 0) { /* cannot happen (it ran on `from`): stay there */
        o->device = (int32_t)from;
        o->preempt = false;
    }
    const uint32_t to = (uint32_t)o->device;
    j->device = o->device;
    j->resume_reason = o->reason;
    j->predicted_ns = devs[to].predict_ns;
    if (o->predicted_miss)
        x->st.task[t].predicted_misses++;
    if (o->overload)
        x->st.overloads++;
    x->hold[t][home] = slot;
    if (x->dev[to].kind != RTM_DEV_CPU)
        x->hold[t][to] = slot;
    *move = to != from;
}

/* Queues a re-placed job on its device (under x->mu). */
static void requeue(rtm_exec_t *x, int32_t slot, bool preempt)
{
    job_t *j = &x->job[slot];
    if (x->stopping) { /* the dispatchers are leaving: it ends here */
        finish_unrun(x, slot, RTM_JOB_CANCELLED);
        return;
    }
    devrt_t *r = &x->drt[j->device];
    j->state = SLOT_QUEUED;
    rtm_edfq_push(&r->q, (uint32_t)slot, j->deadline_ns);
    if (preempt && r->running >= 0)
        r->preempt_job = r->running;
    kick(r);
}

/* Makes the job in `slot` (just picked) r's running job (under x->mu). */
static void take(rtm_exec_t *x, devrt_t *r, int32_t slot, int64_t now)
{
    job_t *j = &x->job[slot];
    const bool cpu = x->dev[r->index].kind == RTM_DEV_CPU;
    const bool resume = j->home >= 0;
    j->state = SLOT_RUNNING;
    j->device = (int32_t)r->index;
    if (j->first_device < 0)
        j->first_device = (int32_t)r->index;
    if (resume) {
        j->resumes++;
        x->st.task[j->task].resumed[r->index]++;
        if ((uint32_t)j->home != r->index &&
            x->pj[j->task][j->home].x != x->task[j->task].kx[r->index])
            x->st.task[j->task].moved++;
    }
    r->running = slot;
    r->run_start_ns = now;
    r->run_pred_ns = j->predicted_ns;
    r->preempt_job = -1;
    r->done_status = 0;
    r->abort = 0;
    r->cpu_pj = cpu && resume ? &x->pj[j->task][j->home] : NULL;
    if (cpu && x->task[j->task].cfg->crit == RTM_CRIT_FIRM && (x->p.cpu_run || resume)) {
        r->wd_deadline = j->deadline_ns; /* the watchdog aborts it there */
        pthread_cond_signal(&x->wd_cv);
    }
}

/* The next runnable job of r's queue, not of task `skip` (-1: any), taken as r's
 * running job; firm jobs already past their deadline are dropped on the way. -1: none
 * (under x->mu). */
static int32_t next_job(rtm_exec_t *x, devrt_t *r, int64_t skip)
{
    for (;;) {
        const int32_t slot = pick(x, r, skip);
        if (slot < 0)
            return -1;
        const job_t *j = &x->job[slot];
        const int64_t now = rtm_os_now_ns();
        if (x->task[j->task].cfg->crit == RTM_CRIT_FIRM && now >= j->deadline_ns) {
            finish_unrun(x, slot, RTM_JOB_DROPPED);
            continue;
        }
        take(x, r, slot, now);
        return slot;
    }
}

static bool begin_behind(devrt_t *r, uint32_t task)
{
    rtm_exec_t *x = r->x;
    pthread_mutex_lock(&x->mu);
    const int32_t slot = r->pend_slot < 0 && !x->stopping ? next_job(x, r, task) : -1;
    if (slot >= 0) {
        r->pend_slot = slot;
        r->pend_job = x->job[slot];
    }
    pthread_mutex_unlock(&x->mu);
    if (slot >= 0)
        ocl_begin(r, &r->pend_job, &r->pend);
    return slot >= 0;
}

/* The next release of a task spun for (rtm_exec_task_spun_for) that may run on r's device,
 * the one whose spin starts first (its release less its lead, rtm_exec_task_lead), and
 * that lead into *lead (INT64_MAX: none; under x->mu). */
static int64_t next_spun(const rtm_exec_t *x, const devrt_t *r, int64_t *lead)
{
    int64_t start = INT64_MAX;
    for (uint32_t t = 0; t < x->n_tasks; t++) {
        const int64_t l = rtm_exec_task_lead(x->task[t].cfg, x->p.spin_lead_ns);
        if (l > 0 && x->task[t].predict_ns[r->index] >= 0 && x->next_release[t] - l < start) {
            start = x->next_release[t] - l;
            *lead = l;
        }
    }
    return start == INT64_MAX ? INT64_MAX : start + *lead;
}

/* An idle dispatcher waits for a kick. With spin_lead_ns, it sleeps only until the lead
 * before the next hard or firm release that may come to it (next_spun), then spins,
 * unlocked, on its kick count until a kick (the job, or anything else to look at) or
 * the lead after the release: the release thread's hand-off is then a store the spinning core sees at
 * once, not a sleeping thread's wake-up (on the H100 host, 50-80 us of a hard job's
 * 190-230 us response, session 69); the CPU dispatcher's pool workers spin with it
 * (rtm_pool_warm: 20-40 us of a 0.1 ms CPU job's after the pool slept, session 70).
 * Under x->mu (released while spinning). */
static void idle(rtm_exec_t *x, devrt_t *r)
{
    int64_t lead = 0;
    const int64_t due = x->p.spin_lead_ns > 0 && !x->stopping ? next_spun(x, r, &lead) : INT64_MAX;
    if (due == INT64_MAX) {
        rtm_os_cond_wait_until(&r->cv, &x->mu, -1);
        return;
    }
    const int64_t now = rtm_os_now_ns();
    if (now < due - lead) {
        rtm_os_cond_wait_until(&r->cv, &x->mu, due - lead);
        return;
    }
    if (now >= due + lead) { /* the release is overdue (the release thread is late) */
        rtm_os_cond_wait_until(&r->cv, &x->mu, now + lead);
        return;
    }
    const uint32_t k = atomic_load_explicit(&r->kicks, memory_order_acquire);
    pthread_mutex_unlock(&x->mu);
    /* the CPU job's workers spin too: a sleeping pool's wake-up is otherwise on its path */
    if (x->p.pool && x->dev[r->index].kind == RTM_DEV_CPU)
        rtm_pool_warm(x->p.pool, due + lead);
    /* yielding, not only pausing: a spinner that held its core kept the release thread,
     * woken on the same core's run queue (SCHED_OTHER, the H100 host), from running until
     * the spin ended: releases came lead late and no spin was kicked (session 69) */
    bool kicked;
    for (;;) {
        kicked = atomic_load_explicit(&r->kicks, memory_order_acquire) != k;
        if (kicked || rtm_os_now_ns() >= due + lead)
            break;
        sched_yield();
    }
    pthread_mutex_lock(&x->mu);
    x->st.dev_spins[r->index]++;
    x->st.dev_spin_kicks[r->index] += kicked;
}

static void *dispatch_main(void *arg)
{
    devrt_t *r = arg;
    rtm_exec_t *x = r->x;
    const bool cpu = x->dev[r->index].kind == RTM_DEV_CPU;
    pthread_mutex_lock(&x->mu);
    for (;;) {
        /* a job begun behind an abort's raise, else the queue's next */
        const bool begun = r->pend_slot >= 0;
        const int32_t slot = begun ? r->pend_slot : next_job(x, r, -1);
        r->pend_slot = -1;
        if (slot < 0) {
            if (x->stopping && rtm_edfq_count(&r->q) == 0)
                break;
            idle(x, r);
            continue;
        }
        job_t *j = &x->job[slot];
        const bool resume = j->home >= 0;
        const job_t snapshot = begun ? r->pend_job : *j;
        pthread_mutex_unlock(&x->mu);

        run_result_t res;
        memset(&res, 0, sizeof(res));
        res.stop_ns = -1;
        if (cpu && resume)
            run_cpu_resume(r, &snapshot, &res);
        else if (cpu)
            run_cpu(r, &snapshot, &res);
        else {
            ocl_run_t run;
            if (begun)
                run = r->pend;
            else
                ocl_begin(r, &snapshot, &run);
            ocl_wait(r, slot, &snapshot, &run, &res);
        }

        pthread_mutex_lock(&x->mu);
        if (r->pend_slot < 0) { /* else the job begun behind the abort runs already */
            r->running = -1;
            r->preempt_job = -1;
            r->idle_from_ns = rtm_os_now_ns();
        }
        r->wd_deadline = -1;
        r->cpu_pj = NULL;
        account_run(j, &res);
        if (res.preempted) {
            rtm_exec_task_stats_t *ts = &x->st.task[j->task];
            j->preemptions++;
            ts->preemptions++;
            ts->abort_sum_ns += res.abort_ns;
            ts->release_sum_ns += res.release_ns;
            if (res.abort_ns > ts->abort_max_ns)
                ts->abort_max_ns = res.abort_ns;
            if (res.release_ns > ts->release_max_ns)
                ts->release_max_ns = res.release_ns;
            if (res.stop_ns >= 0)
                rtm_hist_add(&ts->stop, res.stop_ns);
            if (res.behind_ns > 0) {
                ts->behind++;
                ts->behind_sum_ns += res.behind_ns;
                if (res.behind_ns > ts->behind_max_ns)
                    ts->behind_max_ns = res.behind_ns;
            }
            if (j->home < 0)
                j->home = (int32_t)r->index;
            rtm_preempt_job_t *pj = &x->pj[j->task][j->home];
            j->ckpt_blocks = res.total - res.remaining;
            rtm_place_out_t o;
            bool move = false;
            replace(x, r->index, slot, res.remaining, res.total, &o, &move);
            /* moving: read its state back here, before this device's next job starts,
             * rather than lazily from the new device (behind whatever runs here next) */
            if (move && !pj->host_fresh) {
                pthread_mutex_unlock(&x->mu);
                const rtm_status_t fst = rtm_preempt_fetch(pj);
                pthread_mutex_lock(&x->mu);
                if (fst != RTM_OK) {
                    rtm_exec_rec_t rec;
                    rec_init(x, j, &rec);
                    rec.outcome = RTM_JOB_FAILED;
                    rec.status = fst;
                    rec_finish(x, slot, &rec);
                    continue;
                }
            }
            requeue(x, slot, o.preempt);
            continue;
        }
        const rtm_kinst_t *k = res.k ? res.k : x->task[j->task].inst[r->index];
        const bool completed = res.outcome == RTM_JOB_MET || res.outcome == RTM_JOB_LATE;
        if (completed && j->home >= 0 && x->pj[j->task][j->home].count) {
            const rtm_preempt_job_t *pj = &x->pj[j->task][j->home];
            for (uint32_t l = 0; l < pj->launches; l++) {
                const uint32_t nb = rtm_preempt_blocks(pj, l);
                for (uint32_t b = 0; b < nb; b++) {
                    const uint32_t c = pj->count[(size_t)l * pj->stride + b];
                    x->st.task[j->task].blocks_rerun += c > 1 ? c - 1 : 0;
                }
            }
        }
        if (completed && k->kernel->summary) {
            pthread_mutex_unlock(&x->mu); /* format outside the lock */
            r->result[0] = '\0';
            k->kernel->summary(k, r->result, RTM_EXEC_RESULT_MAX);
            pthread_mutex_lock(&x->mu);
            rtm_exec_task_stats_t *ts = &x->st.task[j->task];
            memcpy(ts->result, r->result, RTM_EXEC_RESULT_MAX);
            ts->result[sizeof(ts->result) - 1] = '\0';
            ts->result_job = j->seq;
            ts->result_dev = (int32_t)r->index;
            ts->result_ns = res.end_ns;
        }
        if (completed && x->p.result) {
            const uint32_t task = j->task; /* the slot stays ours until rec_finish */
            pthread_mutex_unlock(&x->mu);
            x->p.result(x->p.result_ctx, task, k, k->kernel->load_traffic ? res.snap : NULL);
            pthread_mutex_lock(&x->mu);
        }
        rtm_exec_rec_t rec;
        rec_init(x, j, &rec);
        rec.outcome = res.outcome;
        rec.ran = true;
        rec.end_ns = res.end_ns;
        if (res.outcome == RTM_JOB_ABORTED && j->home < 0 && res.total > 0) {
            rec.blocks_total = (uint32_t)res.total; /* a firm job aborted at its deadline */
            rec.blocks_done = (uint32_t)(res.total - res.remaining);
        }
        rec.status = res.status;
        rec_finish(x, slot, &rec);
    }
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

/* ---- watchdog: firm deadlines of jobs running on the CPU pool ---- */

static void *watchdog_main(void *arg)
{
    rtm_exec_t *x = arg;
    rtm_os_precise_sleeps();
    pthread_mutex_lock(&x->mu);
    while (!x->wd_stop) {
        int64_t next = -1;
        for (uint32_t d = 0; d < x->n_devs; d++)
            if (x->drt[d].wd_deadline >= 0 && (next < 0 || x->drt[d].wd_deadline < next))
                next = x->drt[d].wd_deadline;
        rtm_os_cond_wait_until(&x->wd_cv, &x->mu, next);
        const int64_t now = rtm_os_now_ns();
        for (uint32_t d = 0; d < x->n_devs; d++) {
            devrt_t *r = &x->drt[d];
            if (r->wd_deadline >= 0 && now >= r->wd_deadline) {
                r->abort = 1;
                if (r->cpu_pj) /* a resumed preempted job: its own stop flag */
                    rtm_preempt_stop_cpu(r->cpu_pj);
                r->wd_deadline = -1;
            }
        }
    }
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

/* ---- lifecycle ---- */

rtm_status_t rtm_exec_start(rtm_exec_t *x)
{
    if (x->started || !x->mu_ok)
        return RTM_E_STATE;
    atomic_store(&x->stop_release, false);
    x->stopping = false;
    x->wd_stop = false;
    x->fifo = x->p.rt;
    for (uint32_t d = 0; d < x->n_devs; d++) {
        char name[16];
        snprintf(name, sizeof(name), "rtm-%s", x->dev[d].name);
        const int prio = !x->p.rt                       ? 0
                         : x->dev[d].kind == RTM_DEV_CPU ? RTM_PRIO_CPU
                                                         : RTM_PRIO_GPU;
        const rtm_status_t st = rtm_os_thread_start(&x->drt[d].th, name, prio, -1, dispatch_main,
                                                    &x->drt[d]);
        if (st != RTM_OK) {
            x->started = true;
            rtm_exec_stop(x);
            return st;
        }
        x->fifo = x->fifo && x->drt[d].th.fifo;
    }
    { /* firm jobs on the CPU pool, and preempted jobs resumed on the CPU */
        const rtm_status_t wst = rtm_os_thread_start(&x->watchdog_th, "rtm-watchdog",
                                                     x->p.rt ? RTM_PRIO_RELEASE - 1 : 0, -1,
                                                     watchdog_main, x);
        if (wst != RTM_OK) {
            x->started = true;
            rtm_exec_stop(x);
            return wst;
        }
        x->fifo = x->fifo && x->watchdog_th.fifo;
    }
    const int64_t t0 = rtm_os_now_ns() + x->p.start_delay_ns;
    pthread_mutex_lock(&x->mu);
    x->st.start_ns = t0;
    for (uint32_t t = 0; t < x->n_tasks; t++)
        x->next_release[t] = t0 + x->task[t].cfg->offset_ns;
    pthread_mutex_unlock(&x->mu);
    const rtm_status_t st = rtm_os_thread_start(&x->release_th, "rtm-release",
                                                x->p.rt ? RTM_PRIO_RELEASE : 0, x->p.rt ? 0 : -1,
                                                release_main, x);
    x->started = true;
    if (st != RTM_OK) {
        rtm_exec_stop(x);
        return st;
    }
    x->fifo = x->fifo && x->release_th.fifo;
    return RTM_OK;
}

void rtm_exec_request_stop(rtm_exec_t *x) { atomic_store(&x->stop_release, true); }

void rtm_exec_stop(rtm_exec_t *x)
{
    if (!x->started)
        return;
    atomic_store(&x->stop_release, true);
    rtm_os_thread_join(&x->release_th);
    pthread_mutex_lock(&x->mu);
    for (uint32_t d = 0; d < x->n_devs; d++) {
        devrt_t *r = &x->drt[d];
        uint32_t h;
        while (rtm_edfq_pop(&r->q, &h, NULL) == RTM_OK)
            finish_unrun(x, (int32_t)h, RTM_JOB_CANCELLED);
    }
    x->stopping = true;
    for (uint32_t d = 0; d < x->n_devs; d++)
        kick(&x->drt[d]);
    pthread_mutex_unlock(&x->mu);
    for (uint32_t d = 0; d < x->n_devs; d++)
        rtm_os_thread_join(&x->drt[d].th);
    pthread_mutex_lock(&x->mu); /* after the dispatchers: in-flight firm jobs stay watched */
    x->wd_stop = true;
    pthread_cond_signal(&x->wd_cv);
    pthread_mutex_unlock(&x->mu);
    rtm_os_thread_join(&x->watchdog_th);
    x->started = false;
}

void rtm_exec_stats(rtm_exec_t *x, rtm_exec_stats_t *out)
{
    /* one task per lock hold: the release thread never waits for the whole copy */
    pthread_mutex_lock(&x->mu);
    memcpy(out, &x->st, offsetof(rtm_exec_stats_t, task));
    memcpy(out->dev_jobs, x->st.dev_jobs, sizeof(out->dev_jobs));
    memcpy(out->dev_busy_ns, x->st.dev_busy_ns, sizeof(out->dev_busy_ns));
    memcpy(out->dev_wakes, x->st.dev_wakes, sizeof(out->dev_wakes));
    memcpy(out->dev_asked, x->st.dev_asked, sizeof(out->dev_asked));
    memcpy(out->dev_spins, x->st.dev_spins, sizeof(out->dev_spins));
    memcpy(out->dev_spin_kicks, x->st.dev_spin_kicks, sizeof(out->dev_spin_kicks));
    out->now_ns = rtm_os_now_ns();
    pthread_mutex_unlock(&x->mu);
    for (uint32_t t = 0; t < x->n_tasks; t++) {
        pthread_mutex_lock(&x->mu);
        memcpy(&out->task[t], &x->st.task[t], sizeof(out->task[t]));
        pthread_mutex_unlock(&x->mu);
    }
}
