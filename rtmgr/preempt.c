/* preempt.c — preemptible jobs: asynchronous start, abort with completed-block
 * checkpoint, resume on a device or on the CPU (see preempt.h).
 *
 * Owns, per job: the host copy of the completed-block arrays (one slice per launch), the
 * block map of a resumed launch, the events of the launches in flight, and (counting
 * builds) the completion counters drained from the devices. Invariants:
 *   - done[l * stride + b] == 1 iff block b of launch l completed on some device or the
 *     CPU; it never goes back to 0 except through rtm_preempt_job_reset;
 *   - every launch before job->launch is complete, and no launch after the first
 *     incomplete one has a completed block (the flag stays up until resume);
 *   - while RUNNING, launches [launch, next) are enqueued and the map (if any) belongs to
 *     launch `launch`; the host map is not rewritten until the job stopped;
 *   - dev_fresh / host_fresh say where the latest state is; resume moves it as needed;
 *   - with x->read_late the output reads are enqueued only once the last kernel has
 *     ended (never from the start call: a driver may block that enqueue until the copy
 *     is done, and the start call would return after the job ran: every abort "missed");
 *     with x->read_beside they are enqueued with the last launch on the device's side
 *     queue, behind its event, so that nothing enqueued on exec after the job waits for
 *     them (an abort's next job);
 * Nothing here allocates after rtm_preempt_job_init. */
#include "preempt.h"
#include "os.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "stats.h"

/* Busy-wait for a kernel's end this long before blocking in clWaitForEvents. */
#define SPIN_LIMIT_S 0.25

static size_t stride_of(const rtm_kinst_t *k)
{
    const size_t nb = k->plan.blocks_max ? k->plan.blocks_max : 1;
    return (nb + 63u) & ~(size_t)63u; /* = rtm_kexec_t.done_stride */
}

uint32_t rtm_preempt_blocks(const rtm_preempt_job_t *job, uint32_t launch)
{
    rtm_klaunch_t kl = {0, 0};
    if (launch < job->launches)
        job->k->kernel->launch(job->k, launch, &kl);
    return kl.blocks;
}

size_t rtm_preempt_job_bytes(const rtm_kinst_t *k, bool count)
{
    const size_t n = (size_t)k->plan.launches * stride_of(k);
    const size_t nb = k->plan.blocks_max ? k->plan.blocks_max : 1;
    return nb * sizeof(uint32_t) + (count ? 2 * n * sizeof(uint32_t) : 0) + n;
}

rtm_status_t rtm_preempt_job_init(rtm_preempt_job_t *job, const rtm_kinst_t *k, void *mem,
                                  size_t bytes, uint32_t window, bool count)
{
    memset(job, 0, sizeof(*job));
    if (!k || !mem || ((uintptr_t)mem & 7u) || k->plan.launches == 0)
        return RTM_E_ARG;
    if (bytes < rtm_preempt_job_bytes(k, count))
        return RTM_E_NOMEM;
    job->k = k;
    job->launches = k->plan.launches;
    job->stride = (uint32_t)stride_of(k);
    job->window = window > RTM_PREEMPT_WINDOW_MAX ? RTM_PREEMPT_WINDOW_MAX : window;
    const size_t n = (size_t)job->launches * job->stride;
    const size_t nb = k->plan.blocks_max ? k->plan.blocks_max : 1;
    unsigned char *p = mem;
    job->map = (uint32_t *)(void *)p;
    p += nb * sizeof(uint32_t);
    if (count) {
        job->count = (uint32_t *)(void *)p;
        p += n * sizeof(uint32_t);
        job->count_tmp = (uint32_t *)(void *)p;
        p += n * sizeof(uint32_t);
        memset(job->count, 0, n * sizeof(uint32_t));
    }
    job->done = p;
    memset(job->done, 0, n);
    job->state = RTM_PREEMPT_IDLE;
    job->host_fresh = true; /* the host holds the inputs */
    return RTM_OK;
}

static void release_events(rtm_preempt_job_t *job)
{
    for (uint32_t i = 0; i < job->ring_n; i++) {
        const uint32_t j = (job->ring_head + i) % RTM_PREEMPT_WINDOW_MAX;
        clReleaseEvent(job->ring[j]);
        job->ring[j] = NULL;
    }
    job->ring_head = job->ring_n = 0;
    rtm_ocl_put(&job->last_ev);
    rtm_ocl_put(&job->last2_ev);
    rtm_ocl_put(&job->first_ev);
    rtm_ocl_put(&job->out_ev);
}

/* The job's view of its chunked run's events (kexec's, retained): the first chunk, the
 * latest released and the other queue's latest; every chunk released: its one launch
 * is enqueued (next). */
static void sync_chunks(rtm_preempt_job_t *job, bool all)
{
    const rtm_kexec_chunks_t *ck = &job->x->ck;
    if (!job->first_ev && ck->first) {
        clRetainEvent(ck->first);
        job->first_ev = ck->first;
    }
    const cl_event a = ck->rel ? ck->ev[(ck->rel - 1u) & 1u] : NULL, b = ck->ev[ck->rel & 1u];
    cl_event *const dst[2] = {&job->last_ev, &job->last2_ev};
    const cl_event src[2] = {a, b == a ? NULL : b};
    for (int i = 0; i < 2; i++) {
        if (*dst[i] == src[i])
            continue;
        rtm_ocl_put(dst[i]);
        if (src[i])
            clRetainEvent(src[i]);
        *dst[i] = src[i];
    }
    if (all)
        job->next = job->launches;
}

static void release_end(rtm_preempt_job_t *job) { rtm_ocl_put(&job->end_ev); }

/* Waits for the aborted run's output reads still on the side queue (read_beside). */
static rtm_status_t settle_side(rtm_preempt_job_t *job)
{
    return rtm_ocl_settle(&job->side_ev, "clWaitForEvents(side reads)");
}

void rtm_preempt_job_release(rtm_preempt_job_t *job)
{
    (void)settle_side(job);
    if (job->x && job->state == RTM_PREEMPT_RUNNING)
        rtm_ocl_finish_exec(job->x->dev);
    release_events(job);
    release_end(job);
}

rtm_status_t rtm_preempt_job_reset(rtm_preempt_job_t *job)
{
    if (job->state == RTM_PREEMPT_RUNNING)
        return RTM_E_STATE;
    const rtm_status_t sst = settle_side(job);
    if (sst != RTM_OK)
        return sst;
    release_events(job);
    release_end(job);
    memset(job->done, 0, (size_t)job->launches * job->stride);
    if (job->count)
        memset(job->count, 0, (size_t)job->launches * job->stride * sizeof(uint32_t));
    job->state = RTM_PREEMPT_IDLE;
    job->raised = false;
    job->launch = job->next = 0;
    job->run_latency_s = job->run_kernel_s = 0.0;
    job->dev_fresh = false;
    job->host_fresh = true;
    __atomic_store_n(&job->cpu_stop, 0, __ATOMIC_SEQ_CST);
    return RTM_OK;
}

/* Enqueues launch l (mapped when nmap > 0) and records its event. Events only where
 * they are used (each costs the H100's host 6-8 us, rtm_kexec_enqueue_all): every
 * launch's in a window (the ring), else the run's first launch's and the last's (the
 * timing, the abort's wait, read_late), a marker's when the last launch has no blocks. */
static rtm_status_t enqueue_launch(rtm_preempt_job_t *job, uint32_t l, uint32_t nmap)
{
    cl_event ev = NULL;
    const bool final = l + 1 == job->launches;
    const bool want = job->window || !job->first_ev || final;
    const rtm_status_t st =
        rtm_kexec_enqueue(job->x, l, nmap ? job->map : NULL, nmap, want ? &ev : NULL);
    if (st != RTM_OK)
        return st;
    if (!ev && final && !job->window && job->first_ev)
        RTM_CL_CHECK(clEnqueueMarkerWithWaitList(job->x->dev->exec, 0, NULL, &ev),
                     "clEnqueueMarkerWithWaitList");
    if (!ev) /* a launch of zero blocks (or one between the first and the last) */
        return RTM_OK;
    if (job->last_ev)
        clReleaseEvent(job->last_ev);
    job->last_ev = ev;
    if (!job->first_ev) {
        clRetainEvent(ev);
        job->first_ev = ev;
    }
    if (job->window) {
        clRetainEvent(ev);
        job->ring[(job->ring_head + job->ring_n) % RTM_PREEMPT_WINDOW_MAX] = ev;
        job->ring_n++;
    }
    return RTM_OK;
}

/* Retires finished launches, enqueues more up to the window, then the outputs. */
static rtm_status_t topup(rtm_preempt_job_t *job)
{
    rtm_status_t st = RTM_OK;
    while (job->ring_n > 0) {
        const int s = rtm_ocl_event_done(job->ring[job->ring_head], &st);
        if (s < 0)
            return st;
        if (s == 0)
            break;
        clReleaseEvent(job->ring[job->ring_head]);
        job->ring[job->ring_head] = NULL;
        job->ring_head = (job->ring_head + 1) % RTM_PREEMPT_WINDOW_MAX;
        job->ring_n--;
    }
    bool more = false;
    if (job->chunked && job->next < job->launches) { /* chunks two ahead, none once raised */
        bool all = false;
        st = rtm_kexec_chunks_advance(job->x, !job->raised, &all);
        if (st != RTM_OK)
            return st;
        sync_chunks(job, all);
    }
    while (!job->chunked && job->next < job->launches &&
           (job->window == 0 || job->ring_n < job->window)) {
        st = enqueue_launch(job, job->next, 0);
        if (st != RTM_OK)
            return st;
        job->next++;
        more = true;
    }
    int ended = 1; /* the last kernel has ended (read_late: outputs only after it) */
    if (job->next == job->launches && !job->out_ev && job->x->read_late && job->last_ev) {
        ended = job->chunked ? rtm_kexec_chunks_done(job->x, &st)
                             : rtm_ocl_event_done(job->last_ev, &st);
        if (ended < 0)
            return st;
    }
    if (job->next == job->launches && !job->out_ev && ended) {
        /* the outputs: the last read is the job's end (one in-order queue, behind the
         * other queue's last chunk too); a marker only for a job without output buffers
         * (a command the device waits 10-25 us for on the H100, in every job's time) */
        const bool beside = job->x->read_beside && job->last_ev;
        const cl_event after[2] = {job->last_ev, job->last2_ev};
        const cl_uint n_after = beside || job->chunked ? (job->last2_ev ? 2u : 1u) : 0u;
        st = rtm_kexec_read_outputs_on(job->x, beside ? job->x->dev->side : job->x->dev->exec,
                                       n_after, after, NULL, &job->out_ev);
        if (st != RTM_OK)
            return st;
        if (!job->out_ev)
            RTM_CL_CHECK(clEnqueueMarkerWithWaitList(job->x->dev->exec, 0, NULL, &job->out_ev),
                         "clEnqueueMarkerWithWaitList");
        more = true;
    }
    if (more) {
        RTM_CL_CHECK(clFlush(job->x->dev->exec), "clFlush(exec)");
        if (job->x->read_beside)
            RTM_CL_CHECK(clFlush(job->x->dev->side), "clFlush(side)");
    }
    return RTM_OK;
}

/* Reads the completion counters of launches [lo, hi) into the job's totals and clears
 * them on the device (counting builds only), through queue q after `after` (may be
 * NULL); on a queue other than exec it waits for the clear, which must precede the job's
 * next launch there. */
static rtm_status_t drain_counts(rtm_preempt_job_t *job, uint32_t lo, uint32_t hi,
                                 cl_command_queue q, cl_event after)
{
    if (!job->count || !job->x->count || lo >= hi)
        return RTM_OK;
    const size_t off = (size_t)lo * job->stride, n = (size_t)(hi - lo) * job->stride;
    const cl_uint zero = 0;
    RTM_CL_CHECK(clEnqueueReadBuffer(q, job->x->count, CL_TRUE, off * sizeof(uint32_t),
                                     n * sizeof(uint32_t), job->count_tmp + off, after ? 1 : 0,
                                     after ? &after : NULL, NULL),
                 "clEnqueueReadBuffer(count)");
    for (size_t i = off; i < off + n; i++)
        job->count[i] += job->count_tmp[i];
    RTM_CL_CHECK(clEnqueueFillBuffer(q, job->x->count, &zero, sizeof(zero),
                                     off * sizeof(uint32_t), n * sizeof(uint32_t), 0, NULL, NULL),
                 "clEnqueueFillBuffer(count)");
    if (q != job->x->dev->exec)
        RTM_CL_CHECK(clFinish(q), "clFinish");
    return RTM_OK;
}

static void mark_all_done(rtm_preempt_job_t *job)
{
    for (uint32_t l = job->launch; l < job->launches; l++)
        memset(job->done + (size_t)l * job->stride, 1, rtm_preempt_blocks(job, l));
    job->launch = job->launches;
}

/* Profiled times of the run that just ended: first launch queued -> started, first
 * launch started -> last launch ended (0 when profiling is unavailable). */
static void record_timing(rtm_preempt_job_t *job)
{
    job->run_latency_s = job->run_kernel_s = 0.0;
    const cl_ulong q = rtm_ocl_stamp(job->first_ev, CL_PROFILING_COMMAND_QUEUED);
    const cl_ulong s = rtm_ocl_stamp(job->first_ev, CL_PROFILING_COMMAND_START);
    const cl_ulong e =
        rtm_ocl_stamp(rtm_ocl_later_end(job->last_ev, job->last2_ev), CL_PROFILING_COMMAND_END);
    if (!q || !s || !e)
        return;
    job->run_latency_s = s > q ? (double)(s - q) * 1e-9 : 0.0;
    job->run_kernel_s = e > s ? (double)(e - s) * 1e-9 : 0.0;
}

static rtm_status_t finish(rtm_preempt_job_t *job)
{
    const uint32_t lo = job->launch;
    record_timing(job);
    mark_all_done(job);
    release_end(job);
    job->end_ev = job->out_ev; /* kept: the run's end for the caller's profiling */
    job->out_ev = NULL;
    release_events(job);
    job->state = RTM_PREEMPT_DONE;
    job->host_fresh = true;
    return drain_counts(job, lo, job->launches, job->x->dev->exec, NULL);
}

rtm_status_t rtm_preempt_start(rtm_preempt_job_t *job, rtm_kexec_t *x)
{
    return rtm_preempt_start_ex(job, x, true, NULL, NULL);
}

rtm_status_t rtm_preempt_start_ex(rtm_preempt_job_t *job, rtm_kexec_t *x, bool inputs,
                                  cl_event *first, cl_event *last)
{
    if (job->state != RTM_PREEMPT_IDLE)
        return RTM_E_STATE;
    if (x->k->plan.launches != job->launches || x->done_stride != job->stride ||
        (job->count != NULL) != (x->count != NULL))
        return RTM_E_ARG;
    job->x = x;
    job->chunked = rtm_kexec_chunked(x);
    cl_event own = NULL; /* a chunked run's gate: the last clear or input */
    cl_event *lastp = last ? last : job->chunked ? &own : NULL;
    rtm_status_t st = inputs ? rtm_kexec_write_inputs(x, first, lastp) : rtm_kexec_clear(x, first, lastp);
    if (st == RTM_OK && job->chunked)
        st = rtm_kexec_chunks_begin(x, NULL, 0, *lastp);
    rtm_ocl_put(&own);
    if (st != RTM_OK)
        return st;
    job->launch = job->next = 0;
    job->state = RTM_PREEMPT_RUNNING;
    job->raised = false;
    job->dev_fresh = true;
    job->host_fresh = false;
    st = topup(job);
    if (st != RTM_OK)
        job->state = RTM_PREEMPT_STOPPED;
    return st;
}

bool rtm_preempt_pacing(const rtm_preempt_job_t *job)
{
    return job->state == RTM_PREEMPT_RUNNING && (job->chunked || job->window > 0) &&
           job->next < job->launches && !job->raised;
}

rtm_status_t rtm_preempt_poll(rtm_preempt_job_t *job, bool *finished)
{
    *finished = job->state == RTM_PREEMPT_DONE;
    if (job->state != RTM_PREEMPT_RUNNING)
        return RTM_OK;
    rtm_status_t st = topup(job);
    if (st != RTM_OK)
        return st;
    if (!job->out_ev)
        return RTM_OK;
    const int s = rtm_ocl_event_done(job->out_ev, &st);
    if (s < 0)
        return st;
    if (s == 1) {
        st = finish(job);
        *finished = true;
    }
    return st;
}

rtm_status_t rtm_preempt_wait(rtm_preempt_job_t *job)
{
    bool fin = false;
    while (job->state == RTM_PREEMPT_RUNNING) {
        rtm_status_t st = rtm_preempt_poll(job, &fin);
        if (st != RTM_OK || fin)
            return st;
        /* GPUs: spin on the events' status (clWaitForEvents may sleep in the driver and
         * wake late); CPU devices: block on the oldest launch in flight (windowed) or on
         * the outputs, leaving the cores to the kernel */
        if (!(job->x->dev->info.type & CL_DEVICE_TYPE_CPU))
            continue;
        const rtm_kexec_chunks_t *ck = &job->x->ck;
        cl_event ev = job->ring_n ? job->ring[job->ring_head]
                      : job->out_ev ? job->out_ev
                      : job->chunked && ck->ended < ck->rel ? ck->ev[ck->ended & 1u]
                                                            : job->last_ev;
        if (ev)
            RTM_CL_CHECK(clWaitForEvents(1, &ev), "clWaitForEvents");
    }
    return job->state == RTM_PREEMPT_DONE ? RTM_OK : RTM_E_STATE;
}

/* While the end mark is awaited, the driver is asked about the events only this often:
 * on the H100 the watched aborts' p99 was 82 us with a query between two looks at the
 * mark against p50 8 us, a clGetEventInfo taking tens of us at times. */
#define MARK_ASK_S 20e-6

/* Busy-waits (clGetEventInfo, no clWaitForEvents: a driver may sleep in it) for ev (the
 * last kernel) and ev2 (may be NULL: a chunked run's other queue) to complete; returns
 * the time it was seen. While waiting it also watches
 * `raise` (the flag transfer, may be NULL) and stamps when it was seen complete in
 * *landed, and the end mark of launch `launch` of mx (NULL: none; false where mx has no
 * mark) and stamps when it was seen in *marked. On a CPU device the waiting thread
 * yields, since it shares the cores with the kernel. */
static rtm_status_t wait_end(cl_event ev, cl_event ev2, cl_event raise, bool yield, bool block,
                             double t0, double *seen, double *landed, const rtm_kexec_t *mx,
                             uint32_t launch, double *marked)
{
    rtm_status_t st = RTM_OK;
    const cl_event both[2] = {ev, ev2};
    if (block) { /* the driver's own wait; the flag's landing is then known only after */
        RTM_CL_CHECK(clWaitForEvents(ev2 ? 2 : 1, both), "clWaitForEvents");
        *seen = rtm_os_now_s();
        if (raise && *landed < 0.0 && rtm_ocl_event_done(raise, &st) == 1)
            *landed = *seen;
        return st;
    }
    const bool mark = mx && rtm_kexec_end_mark(mx);
    double asked = 0.0; /* when the driver was last asked */
    for (;;) {
        if (mark && *marked < 0.0) {
            const double now = rtm_os_now_s();
            if (rtm_kexec_end_seen(mx, launch))
                *marked = now;
            else if (now - asked < MARK_ASK_S)
                continue; /* the mark alone: a driver call may take tens of us */
            asked = now;
        }
        if (raise && *landed < 0.0) {
            const int r = rtm_ocl_event_done(raise, &st);
            if (r < 0)
                return st;
            if (r == 1)
                *landed = rtm_os_now_s();
        }
        int s = rtm_ocl_event_done(ev, &st);
        if (s == 1 && ev2)
            s = rtm_ocl_event_done(ev2, &st);
        if (s < 0)
            return st;
        if (s == 1)
            break;
        if (yield)
            sched_yield();
        if (rtm_os_now_s() - t0 > SPIN_LIMIT_S) {
            RTM_CL_CHECK(clWaitForEvents(ev2 ? 2 : 1, both), "clWaitForEvents");
            break;
        }
    }
    *seen = rtm_os_now_s();
    if (mx && *marked < 0.0 && rtm_kexec_end_seen(mx, launch))
        *marked = *seen; /* the mark and the event seen in one poll */
    return RTM_OK;
}

/* Fills the response breakdown of `out` from the flag transfer's and the last kernel's
 * profiling stamps (both queues profile; -1 where a stamp is missing). An armed raise's
 * transfer was queued when the flag was cleared, behind its user event: its "queued"
 * stamp is its START (the gate opened), which some drivers report as QUEUED anyway. */
static void breakdown(cl_event raise, bool armed, cl_event first, cl_event last,
                      rtm_preempt_stop_t *out)
{
    out->dev_xfer_s = out->dev_drain_s = out->notice_s = -1.0;
    out->dev_kernel_s = out->dev_raise_queued_s = out->dev_raise_end_s = -1.0;
    const cl_ulong ks = rtm_ocl_stamp(first, CL_PROFILING_COMMAND_START);
    const cl_ulong k = rtm_ocl_stamp(last, CL_PROFILING_COMMAND_END);
    if (ks && k)
        out->dev_kernel_s = ((double)k - (double)ks) * 1e-9;
    const cl_ulong q =
        rtm_ocl_stamp(raise, armed ? CL_PROFILING_COMMAND_START : CL_PROFILING_COMMAND_QUEUED);
    const cl_ulong e = rtm_ocl_stamp(raise, CL_PROFILING_COMMAND_END);
    if (!q || !e || !k)
        return;
    out->dev_xfer_s = e > q ? (double)(e - q) * 1e-9 : 0.0;
    if (out->dev_kernel_s >= 0.0) { /* both queues of one device: one device clock */
        out->dev_raise_queued_s = ((double)q - (double)ks) * 1e-9;
        out->dev_raise_end_s = ((double)e - (double)ks) * 1e-9;
    }
    out->dev_drain_s = ((double)k - (double)e) * 1e-9;
    out->notice_s = out->event_s - ((double)k - (double)q) * 1e-9;
}

/* Flag raised (t0, host clock) -> the device time k (the run's last kernel's END stamp),
 * through `rd`, a command enqueued at host time hq: its QUEUED stamp is the device's
 * clock then. NAN when a stamp is missing; negative when the carry puts the end before
 * the raise. */
static double stop_on_host(cl_event rd, double hq, cl_ulong k, double t0)
{
    const cl_ulong q = rtm_ocl_stamp(rd, CL_PROFILING_COMMAND_QUEUED);
    if (k == 0 || q == 0)
        return NAN;
    return hq + ((double)k - (double)q) * 1e-9 - t0;
}

/* Did the raise stop enqueued work: a launch enqueued (lo..hi) or a chunk released with
 * blocks not completed? (l: the first launch with blocks left.) Else every kernel the run
 * had enqueued had ended before the raise (every block done, a window drained, a chunked
 * run between its releases). A chunked run is one launch, lo, whose blocks left at its
 * start were all the run's: more left now than it has not released is a released one
 * left. */
static bool stopped_enqueued(const rtm_preempt_job_t *job, uint32_t lo, uint32_t hi, uint32_t l)
{
    if (!job->chunked)
        return l < hi;
    return rtm_preempt_remaining(job, lo, NULL, 0) > rtm_kexec_chunks_unreleased(job->x);
}

/* rtm_preempt_stop_t.stop_s from the carry: 0 for kernels that ended before the raise;
 * kernels the raise stopped ended after it, so there a carry of 0 or less is the carry's
 * error (NVIDIA's driver, kernels of 10 ms or more: docs/preempt.md) and the stop is not
 * known (-1), never a false 0. */
static double stop_of(double carry, bool stopped)
{
    if (isnan(carry) || (stopped && carry <= 0.0))
        return -1.0;
    return carry > 0.0 ? carry : 0.0;
}

/* Keeps ev (retained) as the job's end: the last command of its run. */
static void keep_end(rtm_preempt_job_t *job, cl_event ev)
{
    release_end(job);
    if (ev)
        clRetainEvent(ev);
    job->end_ev = ev;
}

/* Reads every buffer the kernels may write (OUT, INOUT, SCRATCH) into the host copy,
 * through the control queue after the run's end (the exec queue may hold the next job). */
static rtm_status_t read_state(rtm_preempt_job_t *job)
{
    const rtm_status_t sst = settle_side(job);
    if (sst != RTM_OK)
        return sst;
    const rtm_kinst_t *k = job->k;
    cl_command_queue q = job->x->dev->ctrl;
    cl_event after = job->end_ev;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++) {
        if (k->plan.buf[i].dir == RTM_BUF_IN)
            continue;
        RTM_CL_CHECK(clEnqueueReadBuffer(q, job->x->buf[i], CL_FALSE, 0, k->plan.buf[i].bytes,
                                         k->host[i], after ? 1 : 0, after ? &after : NULL, NULL),
                     "clEnqueueReadBuffer(state)");
    }
    RTM_CL_CHECK(clFinish(q), "clFinish");
    job->host_fresh = true;
    return RTM_OK;
}

static void describe(const rtm_preempt_job_t *job, rtm_preempt_stop_t *out)
{
    out->launch = job->launch;
    out->remaining = rtm_preempt_remaining(job, job->launch, NULL, 0);
    out->remaining_total = 0;
    for (uint32_t l = job->launch; l < job->launches; l++)
        out->remaining_total += rtm_preempt_remaining(job, l, NULL, 0);
    out->finished = job->state == RTM_PREEMPT_DONE;
}

rtm_status_t rtm_preempt_raise(rtm_preempt_job_t *job)
{
    if (job->state != RTM_PREEMPT_RUNNING || job->raised)
        return RTM_OK;
    const rtm_status_t st = rtm_abortflag_raise(&job->x->flag);
    job->raised = st == RTM_OK;
    return st;
}

rtm_status_t rtm_preempt_abort(rtm_preempt_job_t *job, bool readback, rtm_preempt_stop_t *out)
{
    const rtm_status_t st = rtm_preempt_raise(job);
    if (st != RTM_OK) {
        memset(out, 0, sizeof(*out));
        return st;
    }
    return rtm_preempt_stopped(job, readback, out);
}

rtm_status_t rtm_preempt_stopped(rtm_preempt_job_t *job, bool readback, rtm_preempt_stop_t *out)
{
    memset(out, 0, sizeof(*out));
    out->stop_s = -1.0;
    if (job->state != RTM_PREEMPT_RUNNING) {
        describe(job, out);
        return RTM_OK;
    }
    rtm_status_t st = rtm_preempt_raise(job);
    if (st != RTM_OK)
        return st;
    job->raised = false;
    rtm_kexec_t *x = job->x;
    const bool cpu = (x->dev->info.type & CL_DEVICE_TYPE_CPU) != 0;
    const double t0 = x->flag.raised_at;
    double t1 = t0, landed = -1.0, marked = -1.0;
    out->raise_call_s = x->flag.raise_call_s;
    if (x->flag.raise_mode == RTM_RAISE_BLOCKING || x->flag.transport == RTM_ABORT_MAPPED)
        landed = t0 + x->flag.raise_call_s; /* done when the call returned */
    if (job->last_ev) { /* the last kernel enqueued: launch next - 1's (both queues' last
                         * chunks) */
        st = wait_end(job->last_ev, job->last2_ev, x->flag.raise_ev, cpu, x->opts.wait_end > 0, t0,
                      &t1, &landed, x, job->next ? job->next - 1 : 0, &marked);
        if (st != RTM_OK)
            return st;
    }
    out->event_s = t1 - t0;
    out->marked = marked >= 0.0;
    out->response_s = out->marked ? marked - t0 : out->event_s;
    /* the job's own commands on exec have ended (its queued output reads, if any, are
     * the last; the exec queue may hold other work behind them). Reads on the side queue
     * go on beside the next job: settled before the job's buffers are touched again. */
    const bool beside = job->out_ev && x->read_beside;
    if (job->out_ev && !beside) {
        double seen = 0.0, none = 0.0;
        st = wait_end(job->out_ev, NULL, NULL, cpu, x->opts.wait_end > 0, t1, &seen, &none, NULL,
                      0, &none);
        if (st != RTM_OK)
            return st;
    }
    if (x->flag.raise_ev && landed < 0.0) { /* landed after the kernel ended */
        RTM_CL_CHECK(clWaitForEvents(1, &x->flag.raise_ev), "clWaitForEvents(raise)");
        landed = rtm_os_now_s();
    }
    out->landed_s = landed >= 0.0 ? landed - t0 : -1.0;
    const cl_event kend = rtm_ocl_later_end(job->last_ev, job->last2_ev);
    breakdown(x->flag.raise_ev, x->flag.raise_mode == RTM_RAISE_ARMED, job->first_ev, kend, out);
    /* the last kernel's END stamp (0: not known), for stop_s once its events are gone */
    const cl_ulong kend_ns = rtm_ocl_stamp(kend, CL_PROFILING_COMMAND_END);
    st = rtm_abortflag_settle(&x->flag);
    if (st != RTM_OK)
        return st;
    const bool outputs_read = job->out_ev != NULL;
    record_timing(job); /* the run's kernels have ended: its device times */
    keep_end(job, job->out_ev && !beside ? job->out_ev : job->last_ev);
    if (beside) {
        clRetainEvent(job->out_ev);
        job->side_ev = job->out_ev;
    }
    release_events(job);
    job->preemptions++;

    /* completed-block arrays of the launches that were enqueued, through the control
     * queue after the run's end */
    cl_command_queue q = x->dev->ctrl;
    cl_event after = job->end_ev;
    const uint32_t lo = job->launch, hi = job->chunked ? job->launches : job->next;
    double carry = NAN;
    if (hi > lo) {
        const size_t off = (size_t)lo * job->stride, n = (size_t)(hi - lo) * job->stride;
        cl_event rd = NULL;
        const double hq = rtm_os_now_s(); /* the read's QUEUED stamp, on the host clock */
        RTM_CL_CHECK(clEnqueueReadBuffer(q, x->done, CL_TRUE, off, n, job->done + off,
                                         after ? 1 : 0, after ? &after : NULL, &rd),
                     "clEnqueueReadBuffer(done)");
        carry = stop_on_host(rd, hq, kend_ns, t0);
        rtm_ocl_put(&rd);
        st = drain_counts(job, lo, hi, q, after);
        if (st != RTM_OK)
            return st;
    }
    uint32_t l = lo;
    while (l < job->launches && rtm_preempt_remaining(job, l, NULL, 0) == 0)
        l++;
    for (uint32_t m = l + 1; m < hi; m++)
        if (rtm_preempt_remaining(job, m, NULL, 0) != rtm_preempt_blocks(job, m))
            return RTM_E_STATE; /* a launch after the interrupted one progressed */
    job->launch = l;
    job->dev_fresh = true;
    job->host_fresh = false;
    out->stop_s = stop_of(carry, stopped_enqueued(job, lo, hi, l));
    if (l == job->launches) { /* every block completed before the flag took effect */
        if (beside) { /* its outputs: the side reads, the run's end */
            keep_end(job, job->side_ev);
            st = settle_side(job);
        }
        if (st == RTM_OK && !outputs_read) {
            cl_event last = NULL; /* the last read: the run's end */
            st = rtm_kexec_read_outputs_on(x, q, after ? 1 : 0, &after, NULL, &last);
            if (last) {
                release_end(job);
                job->end_ev = last;
            }
            if (st == RTM_OK)
                RTM_CL_CHECK(clFinish(q), "clFinish");
        }
        job->state = RTM_PREEMPT_DONE;
        job->host_fresh = true;
        describe(job, out);
        out->readback_s = rtm_os_now_s() - t1;
        return st;
    }
    job->state = RTM_PREEMPT_STOPPED;
    if (readback)
        st = read_state(job);
    out->readback_s = rtm_os_now_s() - t1;
    describe(job, out);
    return st;
}

/* Uploads the host state (every buffer, completed-block arrays) to x, clearing its
 * counters: the job moves to another device. */
static rtm_status_t upload_state(rtm_preempt_job_t *job, rtm_kexec_t *x)
{
    const rtm_status_t sst = settle_side(job);
    if (sst != RTM_OK)
        return sst;
    const rtm_kinst_t *k = job->k;
    for (uint32_t i = 0; i < k->plan.n_bufs; i++)
        RTM_CL_CHECK(clEnqueueWriteBuffer(x->dev->exec, x->buf[i], CL_FALSE, 0,
                                          k->plan.buf[i].bytes, k->host[i], 0, NULL, NULL),
                     "clEnqueueWriteBuffer(state)");
    const size_t n = (size_t)job->launches * job->stride;
    RTM_CL_CHECK(clEnqueueWriteBuffer(x->dev->exec, x->done, CL_FALSE, 0, n, job->done, 0, NULL,
                                      NULL),
                 "clEnqueueWriteBuffer(done)");
    if (x->count) {
        const cl_uint zero = 0;
        RTM_CL_CHECK(clEnqueueFillBuffer(x->dev->exec, x->count, &zero, sizeof(zero), 0,
                                         n * sizeof(cl_uint), 0, NULL, NULL),
                     "clEnqueueFillBuffer(count)");
    }
    RTM_CL_CHECK(clFinish(x->dev->exec), "clFinish"); /* host buffers may change after */
    return RTM_OK;
}

rtm_status_t rtm_preempt_resume_gpu(rtm_preempt_job_t *job, rtm_kexec_t *x)
{
    if (job->state == RTM_PREEMPT_IDLE)
        return rtm_preempt_start(job, x);
    if (job->state != RTM_PREEMPT_STOPPED)
        return RTM_E_STATE;
    if (x->k->plan.launches != job->launches || x->done_stride != job->stride ||
        (job->count != NULL) != (x->count != NULL))
        return RTM_E_ARG;
    rtm_status_t st = settle_side(job);
    if (st != RTM_OK)
        return st;
    if (!(job->dev_fresh && x == job->x)) {
        if (!job->host_fresh) {
            st = read_state(job);
            if (st != RTM_OK)
                return st;
        }
        st = upload_state(job, x);
        if (st != RTM_OK)
            return st;
        job->x = x;
    }
    st = rtm_kexec_arm(x);
    if (st != RTM_OK)
        return st;
    const uint32_t l = job->launch, all = rtm_preempt_blocks(job, l);
    const uint32_t nmap = rtm_preempt_remaining(job, l, job->map, all);
    job->state = RTM_PREEMPT_RUNNING;
    job->raised = false;
    job->dev_fresh = true;
    job->host_fresh = false;
    job->blocks_gpu_resumed += nmap;
    job->chunked = rtm_kexec_chunked(x);
    if (job->chunked) { /* always through the map: its write, on exec, gates exec2 */
        job->next = l;
        st = rtm_kexec_chunks_begin(x, job->map, nmap, NULL);
    } else {
        st = enqueue_launch(job, l, nmap == all ? 0 : nmap);
        job->next = l + 1;
    }
    if (st == RTM_OK)
        st = topup(job);
    if (st != RTM_OK) {
        rtm_ocl_finish_exec(x->dev);
        release_events(job);
        job->state = RTM_PREEMPT_STOPPED;
    }
    return st;
}

/* The CPU stopped the job between blocks of launch l. */
static rtm_status_t cpu_stopped(rtm_preempt_job_t *job, uint32_t l)
{
    __atomic_store_n(&job->cpu_stop, 0, __ATOMIC_SEQ_CST);
    job->launch = l;
    job->state = RTM_PREEMPT_STOPPED;
    job->preemptions++;
    return RTM_E_ABORTED;
}

/* What a resume on the host needs first: a job that may resume (IDLE or STOPPED), its
 * state in the host buffers (read back when the device holds the latest), and the
 * device's copy marked stale (the host is about to advance it). */
static rtm_status_t cpu_takeover(rtm_preempt_job_t *job)
{
    if (job->state != RTM_PREEMPT_IDLE && job->state != RTM_PREEMPT_STOPPED)
        return RTM_E_STATE;
    const rtm_status_t sst = settle_side(job);
    if (sst != RTM_OK)
        return sst;
    if (!job->host_fresh) {
        const rtm_status_t st = read_state(job);
        if (st != RTM_OK)
            return st;
    }
    job->dev_fresh = false;
    return RTM_OK;
}

rtm_status_t rtm_preempt_fetch(rtm_preempt_job_t *job)
{
    if (job->host_fresh || !job->x || job->state != RTM_PREEMPT_STOPPED)
        return RTM_OK;
    return read_state(job);
}

rtm_status_t rtm_preempt_resume_pool(rtm_preempt_job_t *job, rtm_pool_t *pool)
{
    if (!pool)
        return rtm_preempt_resume_cpu(job);
    const rtm_status_t pst = cpu_takeover(job);
    if (pst != RTM_OK)
        return pst;
    for (uint32_t l = job->launch; l < job->launches; l++) {
        const uint32_t nb = rtm_preempt_blocks(job, l);
        uint8_t *done = job->done + (size_t)l * job->stride;
        const uint32_t n = rtm_preempt_remaining(job, l, job->map, nb);
        if (n == 0)
            continue;
        rtm_pool_stats_t ps;
        memset(&ps, 0, sizeof(ps));
        const rtm_status_t st = rtm_pool_run(pool, job->k, l, job->map, n,
                                             (const volatile int *)&job->cpu_stop, done, &ps);
        job->blocks_cpu += ps.blocks_run;
        if (job->count) /* the pool marks each block it completed, exactly once */
            for (uint32_t i = 0; i < n; i++)
                job->count[(size_t)l * job->stride + job->map[i]] += done[job->map[i]];
        if (st == RTM_E_ABORTED)
            return cpu_stopped(job, l);
        if (st != RTM_OK) {
            job->launch = l;
            job->state = RTM_PREEMPT_STOPPED;
            return st;
        }
    }
    job->launch = job->launches;
    job->state = RTM_PREEMPT_DONE;
    return RTM_OK;
}

rtm_status_t rtm_preempt_resume_cpu(rtm_preempt_job_t *job)
{
    const rtm_status_t pst = cpu_takeover(job);
    if (pst != RTM_OK)
        return pst;
    const rtm_kinst_t *k = job->k;
    for (uint32_t l = job->launch; l < job->launches; l++) {
        const uint32_t nb = rtm_preempt_blocks(job, l);
        uint8_t *done = job->done + (size_t)l * job->stride;
        for (uint32_t b = 0; b < nb; b++) {
            if (done[b])
                continue;
            if (__atomic_load_n(&job->cpu_stop, __ATOMIC_ACQUIRE))
                return cpu_stopped(job, l);
            k->kernel->cpu_block(k, l, b);
            done[b] = 1;
            if (job->count)
                job->count[(size_t)l * job->stride + b]++;
            job->blocks_cpu++;
        }
        job->launch = l + 1;
    }
    job->launch = job->launches;
    job->state = RTM_PREEMPT_DONE;
    return RTM_OK;
}

void rtm_preempt_stop_cpu(rtm_preempt_job_t *job)
{
    __atomic_store_n(&job->cpu_stop, 1, __ATOMIC_SEQ_CST);
}

uint32_t rtm_preempt_remaining(const rtm_preempt_job_t *job, uint32_t launch, uint32_t *out,
                               uint32_t max)
{
    if (launch >= job->launches)
        return 0;
    const uint32_t nb = rtm_preempt_blocks(job, launch);
    const uint8_t *done = job->done + (size_t)launch * job->stride;
    uint32_t n = 0;
    for (uint32_t b = 0; b < nb; b++) {
        if (done[b])
            continue;
        if (out && n < max)
            out[n] = b;
        n++;
    }
    return n;
}

uint64_t rtm_preempt_done_blocks(const rtm_preempt_job_t *job)
{
    uint64_t n = 0;
    for (uint32_t l = 0; l < job->launches; l++)
        n += rtm_preempt_blocks(job, l) - rtm_preempt_remaining(job, l, NULL, 0);
    return n;
}

uint32_t rtm_preempt_min_blocks(const rtm_ocl_info_t *info, uint32_t wg)
{
    const uint32_t units = info->units ? info->units : 1;
    if (info->type & CL_DEVICE_TYPE_CPU)
        return 4 * units;
    return units * (wg && wg < 2048 ? 2048 / wg : 1);
}

uint32_t rtm_preempt_split(rtm_kinst_t *k, uint32_t min_blocks)
{
    if (!k->kernel->split || rtm_kinst_plan(k) != RTM_OK || k->plan.blocks_max >= min_blocks)
        return 1;
    const uint32_t have = k->plan.blocks_max ? k->plan.blocks_max : 1;
    const uint32_t f = k->kernel->split(k, (min_blocks + have - 1) / have);
    if (rtm_kinst_plan(k) != RTM_OK)
        return 0;
    return f;
}

rtm_status_t rtm_preempt_abort_series(rtm_kexec_t *x, uint32_t aborts, uint64_t seed,
                                      double *samples, uint32_t *n, uint32_t *missed,
                                      double *kernel_s)
{
    const rtm_preempt_wake_t wake = {RTM_OS_SPIN_S, RTM_PREEMPT_POKE_NONE, 0.0};
    return rtm_preempt_abort_series_ex(x, aborts, seed, samples, NULL, n, missed, kernel_s,
                                       &wake);
}

/* Writes 4 bytes to scratch on the control queue and flushes: traffic to the device. */
static rtm_status_t poke_write(rtm_preempt_job_t *job, cl_mem scratch)
{
    static const cl_uint word = 0;
    cl_command_queue q = job->x->dev->ctrl;
    RTM_CL_CHECK(clEnqueueWriteBuffer(q, scratch, CL_FALSE, 0, sizeof(word), &word, 0, NULL, NULL),
                 "clEnqueueWriteBuffer(poke)");
    RTM_CL_CHECK(clFlush(q), "clFlush(poke)");
    return RTM_OK;
}

rtm_status_t rtm_preempt_sleep_until_s(rtm_preempt_job_t *job, double t, double prewake_s)
{
    while (rtm_preempt_pacing(job)) {
        const double step = rtm_os_now_s() + RTM_PREEMPT_CHUNK_POLL_S;
        if (step >= t - prewake_s)
            break;
        rtm_os_sleep_spin_until_s(step, 0.0);
        bool fin = false;
        const rtm_status_t st = rtm_preempt_poll(job, &fin);
        if (st != RTM_OK)
            return st;
    }
    rtm_os_sleep_spin_until_s(t, prewake_s);
    return RTM_OK;
}

/* Sleeps until t - wake->prewake_s (writing to the device every keepalive_s on the way),
 * then spins until t, poking as wake->poke says. */
static rtm_status_t wake_until(rtm_preempt_job_t *job, cl_mem scratch, double t,
                               const rtm_preempt_wake_t *wake)
{
    if (wake->keepalive_s > 0.0 && scratch) {
        const double t0 = rtm_os_now_s();
        for (uint32_t i = 1; t0 + i * wake->keepalive_s < t - wake->prewake_s; i++) {
            rtm_os_sleep_spin_until_s(t0 + i * wake->keepalive_s, 0.0);
            const rtm_status_t st = poke_write(job, scratch);
            if (st != RTM_OK)
                return st;
        }
    }
    if (wake->poke == RTM_PREEMPT_POKE_NONE)
        return rtm_preempt_sleep_until_s(job, t, wake->prewake_s);
    const rtm_status_t sst = rtm_preempt_sleep_until_s(job, t - wake->prewake_s, 0.0);
    if (sst != RTM_OK)
        return sst;
    double next = 0.0;
    for (;;) {
        const double now = rtm_os_now_s();
        if (now >= t)
            break;
        if (now < next)
            continue;
        next = now + RTM_PREEMPT_POKE_S;
        if (wake->poke == RTM_PREEMPT_POKE_POLL) {
            bool fin = false;
            const rtm_status_t st = rtm_preempt_poll(job, &fin);
            if (st != RTM_OK || fin)
                return st;
        } else {
            const rtm_status_t st = poke_write(job, scratch);
            if (st != RTM_OK)
                return st;
        }
    }
    return RTM_OK;
}

rtm_status_t rtm_preempt_abort_series_ex(rtm_kexec_t *x, uint32_t aborts, uint64_t seed,
                                         double *samples, rtm_preempt_stop_t *stops,
                                         uint32_t *n, uint32_t *missed, double *kernel_s,
                                         const rtm_preempt_wake_t *wake)
{
    *n = *missed = 0;
    *kernel_s = 0.0;
    const rtm_kinst_t *k = x->k;
    const size_t jb = rtm_preempt_job_bytes(k, x->count != NULL);
    void *jm = aligned_alloc(64, (jb + 63u) & ~(size_t)63u);
    rtm_preempt_job_t job;
    memset(&job, 0, sizeof(job));
    rtm_status_t st = jm ? rtm_preempt_job_init(&job, k, jm, jb, 0, x->count != NULL) : RTM_E_NOMEM;
    cl_mem scratch = NULL;
    if (st == RTM_OK && (wake->poke == RTM_PREEMPT_POKE_WRITE || wake->keepalive_s > 0.0)) {
        cl_int err = CL_SUCCESS;
        scratch = clCreateBuffer(x->dev->ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
        if (err != CL_SUCCESS)
            st = rtm_ocl_fail("clCreateBuffer(poke)", err, __FILE__, __LINE__);
    }
    /* where the kernels start after a restart, and how long they run, from profiling */
    double lat = 0.0;
    if (st == RTM_OK)
        st = rtm_preempt_start(&job, x);
    if (st == RTM_OK)
        st = rtm_preempt_wait(&job);
    for (int i = 0; st == RTM_OK && i < 3; i++) {
        rtm_preempt_job_reset(&job);
        st = rtm_preempt_start_ex(&job, x, false, NULL, NULL);
        if (st == RTM_OK)
            st = rtm_preempt_wait(&job);
        lat = job.run_latency_s;
        *kernel_s = job.run_kernel_s;
    }
    rtm_rng_t r;
    rtm_rng_seed(&r, seed);
    for (uint32_t i = 0; st == RTM_OK && i < aborts; i++) {
        rtm_preempt_job_reset(&job);
        const double t0 = rtm_os_now_s();
        st = rtm_preempt_start_ex(&job, x, false, NULL, NULL);
        const double t1 = rtm_os_now_s();
        if (st != RTM_OK)
            break;
        st = wake_until(&job, scratch, t0 + lat + rtm_rng_uniform(&r, 0.05, 0.9) * *kernel_s,
                        wake);
        if (st != RTM_OK)
            break;
        rtm_preempt_stop_t s;
        st = rtm_preempt_abort(&job, false, &s);
        if (st != RTM_OK)
            break;
        s.start_call_s = t1 - t0;
        s.raise_at_s = x->flag.raised_at - t0;
        if (s.finished) {
            if (stops) /* from the end of stops[]: the missed aborts' records */
                stops[aborts - 1u - *missed] = s;
            (*missed)++;
        } else {
            if (stops)
                stops[*n] = s;
            samples[(*n)++] = s.response_s;
        }
    }
    rtm_preempt_job_release(&job);
    if (scratch) {
        clFinish(x->dev->ctrl);
        clReleaseMemObject(scratch);
    }
    free(jm);
    return st;
}

/* Summarises n response samples (sorted in place). */
static void summarise(double *samples, uint32_t n, double *p50, double *p99, double *max)
{
    rtm_stats_sort(samples, n);
    *p50 = rtm_stats_percentile(samples, n, 50);
    *p99 = rtm_stats_percentile(samples, n, 99);
    *max = n ? samples[n - 1] : 0.0;
}

/* Sets spin's work (size key 1) so that one run lasts about `len` seconds on x. */
static rtm_status_t spin_length(rtm_kexec_t *x, rtm_kinst_t *k, double len)
{
    for (int pass = 0; pass < 4; pass++) {
        rtm_kexec_timing_t t, u;
        rtm_status_t st = rtm_kexec_run(x, &t);
        if (st == RTM_OK)
            st = rtm_kexec_run(x, &u); /* the min of two: the first may include a JIT */
        if (st != RTM_OK)
            return st;
        if (u.kernel_s < t.kernel_s)
            t = u;
        if (t.kernel_s > 0.8 * len && t.kernel_s < 1.25 * len)
            break;
        double w = (double)k->size[1] * len / (t.kernel_s > 1e-7 ? t.kernel_s : 1e-7);
        w = w < 1 ? 1 : w > (double)(1 << 30) ? (double)(1 << 30) : w;
        k->size[1] = (int64_t)w;
    }
    return RTM_OK;
}

/* One transport: `aborts` aborts of a spin job at random instants of its run. */
static rtm_status_t measure_one(rtm_ocl_dev_t *d, rtm_kinst_t *k, rtm_abort_transport_t t,
                                uint32_t aborts, double *samples, rtm_preempt_measure_t *out)
{
    rtm_kexec_opts_t o = {.transport = t, .transport_set = true};
    rtm_kexec_t x;
    rtm_status_t st = rtm_kexec_create_ex(&x, d, k, &o);
    if (st != RTM_OK)
        return st;
    st = rtm_kexec_warm(&x);
    if (st == RTM_OK)
        st = spin_length(&x, k, 0.02);
    uint32_t n = 0, missed = 0;
    double ks = 0.0;
    if (st == RTM_OK)
        st = rtm_preempt_abort_series(&x, aborts, 2018, samples, &n, &missed, &ks);
    if (st == RTM_OK) {
        out->kernel_s = ks;
        out->n[t] = n;
        summarise(samples, n, &out->p50_s[t], &out->p99_s[t], &out->max_s[t]);
        /* works: most aborts stopped the kernel early (a transport that queues behind the
         * kernel lets it finish), and promptly */
        out->works[t] = n * 4 >= aborts * 3 && out->p50_s[t] < 0.25 * ks;
    }
    rtm_kexec_destroy(&x);
    return st;
}

rtm_status_t rtm_preempt_tune_poll(rtm_ocl_dev_t *d, rtm_abort_transport_t t, uint32_t grid,
                                   const uint32_t *ks, uint32_t nk, uint32_t runs,
                                   uint32_t aborts, double max_overhead_pct,
                                   rtm_preempt_polltune_t *out)
{
    memset(out, 0, sizeof(*out));
    const rtm_kernel_t *spin = rtm_kernel_find("spin");
    if (!spin || nk == 0 || nk > RTM_PREEMPT_TUNE_MAX || grid == 0 || aborts == 0)
        return RTM_E_ARG;
    rtm_kinst_t k;
    rtm_kinst_init(&k, spin);
    k.size[0] = grid;
    k.size[1] = 64;
    if (rtm_kinst_plan(&k) != RTM_OK)
        return RTM_E_ARG;
    const size_t bytes = rtm_kinst_bytes(&k);
    void *arena = aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
    double *samples = malloc(aborts * sizeof(double));
    rtm_status_t st = arena && samples && rtm_kinst_bind(&k, arena, bytes) == bytes ? RTM_OK
                                                                                  : RTM_E_NOMEM;
    rtm_kexec_t x0;
    memset(&x0, 0, sizeof(x0));
    const rtm_kexec_opts_t orig = {.variant = RTM_KEXEC_ORIGINAL, .groups = RTM_KEXEC_GROUPS_ALL};
    if (st == RTM_OK) {
        k.kernel->fill(&k, 1);
        st = rtm_kexec_create_ex(&x0, d, &k, &orig);
    }
    if (st == RTM_OK)
        st = spin_length(&x0, &k, 0.01);
    out->best = 0;
    for (uint32_t i = 0; st == RTM_OK && i < nk; i++) {
        const rtm_kexec_opts_t o = {.transport = t, .transport_set = true, .poll_every = ks[i]};
        rtm_kexec_t x;
        st = rtm_kexec_create_ex(&x, d, &k, &o);
        if (st != RTM_OK)
            break;
        st = rtm_kexec_warm(&x);
        double t0 = 1e30, t1 = 1e30;
        for (uint32_t r = 0; st == RTM_OK && r <= runs; r++) { /* run 0 warms up */
            rtm_kexec_timing_t a, b;
            st = rtm_kexec_run(&x0, &a);
            if (st == RTM_OK)
                st = rtm_kexec_run(&x, &b);
            if (st == RTM_OK && r > 0) {
                t0 = a.kernel_s < t0 ? a.kernel_s : t0;
                t1 = b.kernel_s < t1 ? b.kernel_s : t1;
            }
        }
        uint32_t n = 0, missed = 0;
        double kt = 0.0, mx = 0.0;
        if (st == RTM_OK)
            st = rtm_preempt_abort_series(&x, aborts, 4 + i, samples, &n, &missed, &kt);
        rtm_kexec_destroy(&x);
        if (st != RTM_OK)
            break;
        out->k[i] = ks[i];
        out->overhead_pct[i] = 100.0 * (t1 / t0 - 1.0);
        summarise(samples, n, &out->p50_s[i], &out->p99_s[i], &mx);
        out->n = i + 1;
    }
    /* the smallest K (best response) whose overhead is within budget, else the cheapest */
    uint32_t best = UINT32_MAX, cheapest = 0;
    for (uint32_t i = 0; i < out->n; i++) {
        if (out->overhead_pct[i] < out->overhead_pct[cheapest])
            cheapest = i;
        if (out->overhead_pct[i] <= max_overhead_pct && (best == UINT32_MAX || out->k[i] < out->k[best]))
            best = i;
    }
    out->best = out->n ? out->k[best != UINT32_MAX ? best : cheapest] : 0;
    rtm_kexec_destroy(&x0);
    free(samples);
    free(arena);
    return st;
}

rtm_status_t rtm_preempt_measure(rtm_ocl_dev_t *d, uint32_t aborts, rtm_preempt_measure_t *out)
{
    memset(out, 0, sizeof(*out));
    const rtm_kernel_t *spin = rtm_kernel_find("spin");
    if (!spin || aborts == 0)
        return RTM_E_ARG;
    rtm_kinst_t k;
    rtm_kinst_init(&k, spin);
    k.size[0] = rtm_preempt_min_blocks(&d->info, k.tune.wg);
    k.size[1] = 200;
    if (rtm_kinst_plan(&k) != RTM_OK)
        return RTM_E_ARG;
    const size_t bytes = rtm_kinst_bytes(&k);
    void *arena = aligned_alloc(64, (bytes + 63u) & ~(size_t)63u);
    double *samples = malloc(aborts * sizeof(double));
    rtm_status_t st = arena && samples ? RTM_OK : RTM_E_NOMEM;
    if (st == RTM_OK && rtm_kinst_bind(&k, arena, bytes) != bytes)
        st = RTM_E_NOMEM;
    if (st == RTM_OK)
        k.kernel->fill(&k, 1);
    const rtm_abort_transport_t ts[2] = {RTM_ABORT_WRITE, RTM_ABORT_MAPPED};
    for (int i = 0; st == RTM_OK && i < 2; i++)
        st = measure_one(d, &k, ts[i], aborts, samples, out);
    if (st == RTM_OK) {
        const bool w = out->works[RTM_ABORT_WRITE], m = out->works[RTM_ABORT_MAPPED];
        out->best = m && (!w || out->p99_s[RTM_ABORT_MAPPED] < out->p99_s[RTM_ABORT_WRITE])
                        ? RTM_ABORT_MAPPED
                        : RTM_ABORT_WRITE;
    }
    free(samples);
    free(arena);
    return st;
}

/* ---- per-kernel in-loop poll period (calibration) ----------------------------------- */

/* Kernels whose work-items loop through RTM_POLL_FOR / RTM_POLL_LOOP, and the size key that is the
 * loop's length (steps per work-item). */
static const struct {
    const char *kernel, *key;
} loop_kernels[] = {{"manoeuvre", "steps"},      {"last_chance", "steps"}, {"matrix_mul", "n"},
                    {"matrix_loop_add", "n"},      {"matrix_mov", "n"},      {"spin", "work"}};

/* Index of the loop-length size key of `kernel`, -1 when it does not loop-poll. */
static int loop_key(const rtm_kernel_t *kernel)
{
    for (size_t i = 0; kernel && i < sizeof(loop_kernels) / sizeof(loop_kernels[0]); i++) {
        if (strcmp(loop_kernels[i].kernel, kernel->name) != 0)
            continue;
        for (uint32_t k = 0; k < kernel->n_keys; k++)
            if (strcmp(kernel->keys[k].name, loop_kernels[i].key) == 0)
                return (int)k;
    }
    return -1;
}

bool rtm_preempt_loop_polls(const rtm_kernel_t *kernel) { return loop_key(kernel) >= 0; }

const rtm_kernel_t *rtm_preempt_loop_kernel(uint32_t i)
{
    return i < sizeof(loop_kernels) / sizeof(loop_kernels[0])
               ? rtm_kernel_find(loop_kernels[i].kernel)
               : NULL;
}

double rtm_preempt_block_s(const rtm_board_dev_t *bd, const rtm_kinst_t *k, double kernel_s)
{
    if (!bd || !k || !k->kernel || !(kernel_s > 0.0) || !bd->have[RTM_DEV_P_units])
        return 0.0;
    const double blocks = (double)rtm_kinst_blocks(k);
    const double wg = k->tune.wg ? (double)k->tune.wg : 1.0;
    const double slots = bd->param[RTM_DEV_P_units] / wg;
    if (!(blocks > 0.0) || !(slots > 0.0))
        return 0.0;
    const double waves = blocks / slots;
    return waves > 1.0 ? kernel_s / waves : kernel_s;
}

void rtm_preempt_grid_for_block(double block_s, rtm_kexec_opts_t *o)
{
    if (block_s > RTM_PREEMPT_LONG_BLOCK_S && o)
        o->fetch_store = true;
}

bool rtm_preempt_chunk_for(const rtm_kinst_t *k, double kernel_s, rtm_kexec_opts_t *o)
{
    const uint64_t blocks = k && k->kernel && k->plan.launches == 1 ? rtm_kinst_blocks(k) : 0;
    if (blocks <= RTM_KEXEC_CHUNK_BLOCKS ||
        !(kernel_s / (double)blocks * RTM_KEXEC_CHUNK_BLOCKS >= RTM_PREEMPT_CHUNK_MIN_S))
        return false;
    if (o)
        o->chunk = RTM_KEXEC_CHUNK_BLOCKS;
    return true;
}

double rtm_preempt_grid_opts(const rtm_board_dev_t *bd, const rtm_kinst_t *k, double kernel_s,
                             rtm_kexec_opts_t *o)
{
    const double t = rtm_preempt_block_s(bd, k, kernel_s);
    rtm_preempt_grid_for_block(t, o);
    if (t > 0.0) /* the device known */
        rtm_preempt_chunk_for(k, kernel_s, o);
    return t;
}

bool rtm_preempt_block_polls(double block_s)
{
    return !(block_s > 0.0 && block_s <= RTM_PREEMPT_POLL_BLOCK_S);
}

void rtm_preempt_poll_opts(const rtm_board_dev_t *bd, const rtm_kernel_t *kernel,
                           double block_s, rtm_kexec_opts_t *o)
{
    if (!rtm_preempt_block_polls(block_s)) {
        o->no_poll = true;
        return;
    }
    const int ki = kernel ? rtm_kernel_index(kernel) : -1;
    if (!bd || ki < 0 || ki >= RTM_MAX_KERNELS || !bd->ktune[ki].have)
        return;
    const uint32_t k = bd->ktune[ki].poll_every;
    if (k == RTM_BOARD_POLL_NONE)
        o->no_poll = true;
    else if (k != 0)
        o->poll_every = k;
}

rtm_status_t rtm_preempt_predict_dev(const rtm_board_dev_t *bd, const rtm_kinst_t *k,
                                     unsigned flags, rtm_model_job_t *job, rtm_kexec_opts_t *o,
                                     rtm_model_pred_t *pr)
{
    rtm_status_t st = rtm_model_job_make(k, job);
    if (st == RTM_OK) {
        st = rtm_model_predict_dev(job, bd, bd->model, flags, pr);
    } else {
        memset(pr, 0, sizeof(*pr));
        pr->paper.status = pr->ext.status = st;
    }
    const rtm_model_time_t *u = rtm_model_used(pr);
    double block_s = 0.0;
    if (st == RTM_OK && u->status == RTM_OK)
        block_s = rtm_preempt_grid_opts(bd, k, (double)u->kernel_ns * 1e-9, o);
    rtm_preempt_poll_opts(bd, k->kernel, block_s, o);
    const int ki = rtm_kernel_index(k->kernel);
    if (st != RTM_OK || o->no_poll || ki < 0 || ki >= RTM_MAX_KERNELS || !bd->ktune[ki].have ||
        o->poll_every != bd->ktune[ki].poll_every || bd->ktune[ki].poll_cost == 0.0)
        return st;
    job->poll_cost = bd->ktune[ki].poll_cost;
    return rtm_model_predict_dev(job, bd, bd->model, flags, pr);
}

/* Min kernel time of `runs` profiled runs of a and b, interleaved (a first). */
static rtm_status_t time_pair(rtm_kexec_t *a, rtm_kexec_t *b, uint32_t runs, double *ta,
                              double *tb)
{
    *ta = *tb = 1e30;
    for (uint32_t r = 0; r <= runs; r++) { /* run 0 warms up */
        rtm_kexec_timing_t u, v;
        rtm_status_t st = rtm_kexec_run(a, &u);
        if (st == RTM_OK && b)
            st = rtm_kexec_run(b, &v);
        if (st != RTM_OK)
            return st;
        if (r == 0)
            continue;
        *ta = u.kernel_s < *ta ? u.kernel_s : *ta;
        if (b)
            *tb = v.kernel_s < *tb ? v.kernel_s : *tb;
    }
    return RTM_OK;
}

/* A work-item's loop step on d from k's kernel time t: t over the waves of blocks the
 * device runs at once (GPUs ~2048 work-items per unit, CPU devices one group per unit),
 * over the loop's length (size key `key`); CPU devices run a group's work-items one
 * after another, so a step there is the group's over wg. */
static double loop_step(const rtm_ocl_info_t *info, const rtm_kinst_t *k, int key, double t)
{
    const uint32_t units = info->units ? info->units : 1, wg = k->tune.wg ? k->tune.wg : 1;
    const bool cpu = (info->type & CL_DEVICE_TYPE_CPU) != 0;
    const double slots = cpu ? units : (double)units * (wg < 2048 ? 2048 / wg : 1);
    double waves = 0.0;
    for (uint32_t l = 0; l < k->plan.launches; l++) {
        rtm_klaunch_t kl = {0, 0};
        k->kernel->launch(k, l, &kl);
        waves += kl.blocks ? ceil((double)kl.blocks / slots) : 0.0;
    }
    double steps = key >= 0 && k->size[key] > 0 ? (double)k->size[key] : 1.0;
    if (cpu)
        steps *= wg;
    return (waves > 0 ? t / waves : t) / steps;
}

/* Operations of k's job (cost li * Z), 0 when it cannot be planned. */
static double job_ops(rtm_kinst_t *k)
{
    if (rtm_kinst_plan(k) != RTM_OK)
        return 0.0;
    rtm_cost_t c;
    rtm_kinst_cost(k, &c);
    return c.li * (c.Z > 0 ? c.Z : 1.0);
}

/* True when k plans and its buffers fit `cap` bytes in all and max_alloc each. */
static bool fits(rtm_kinst_t *k, uint64_t cap, uint64_t max_alloc)
{
    if (rtm_kinst_plan(k) != RTM_OK || rtm_kinst_bytes(k) > cap)
        return false;
    for (uint32_t b = 0; b < k->plan.n_bufs; b++)
        if (k->plan.buf[b].bytes > max_alloc)
            return false;
    return true;
}

/* Re-sizes size key 0 of k (bisection, ops assumed to grow with it) so that its job has
 * about `want` operations within the memory caps; false when it stays as it is. */
static bool size_for_ops(rtm_kinst_t *k, double want, uint64_t cap, uint64_t max_alloc)
{
    const rtm_size_key_t *key = &k->kernel->keys[0];
    int64_t lo = key->min, hi = key->max;
    rtm_kinst_t t = *k;
    while (lo < hi) { /* the largest size whose ops <= want (and that fits) */
        const int64_t mid = lo + (hi - lo + 1) / 2;
        t.size[0] = mid;
        if (fits(&t, cap, max_alloc) && job_ops(&t) <= want)
            lo = mid;
        else
            hi = mid - 1;
    }
    t.size[0] = lo;
    if (lo == k->size[0] || !fits(&t, cap, max_alloc))
        return false;
    *k = t;
    return true;
}

/* Kernel time the poll calibration sizes its job for. */
#define KP_TARGET_S 2e-3

typedef struct {
    rtm_kinst_t k;
    void *arena;
} kp_inst_t;

static rtm_status_t kp_make(kp_inst_t *in, const rtm_kinst_t *proto)
{
    in->k = *proto;
    in->arena = NULL;
    if (rtm_kinst_plan(&in->k) != RTM_OK)
        return RTM_E_ARG;
    const size_t bytes = rtm_kinst_bytes(&in->k);
    in->arena = aligned_alloc(64, ((bytes ? bytes : 64) + 63u) & ~(size_t)63u);
    if (!in->arena || rtm_kinst_bind(&in->k, in->arena, bytes) != bytes)
        return RTM_E_NOMEM;
    in->k.kernel->fill(&in->k, 7);
    return RTM_OK;
}

rtm_kexec_opts_t rtm_preempt_poll_candidate(const rtm_kexec_opts_t *base, uint32_t k)
{
    rtm_kexec_opts_t o = *base;
    o.variant = RTM_KEXEC_FULL;
    o.no_poll = k == 0;
    o.poll_every = k;
    return o;
}

uint32_t rtm_preempt_poll_k(double step_s)
{
    uint32_t k = 16;
    while (step_s > 0.0 && k < 65536u && (double)(2u * k) * step_s <= RTM_PREEMPT_POLL_PERIOD_S)
        k *= 2;
    return k;
}

char *rtm_preempt_kpoll_text(const rtm_preempt_kpoll_t *kp, char *buf, size_t len)
{
    size_t o = 0;
    if (len)
        buf[0] = '\0';
    for (uint32_t c = 0; c < kp->n && o < len; c++) {
        const int w = snprintf(buf + o, len - o, "%sK %u %.2f%%%s", c ? ", " : "", kp->k[c],
                               kp->overhead_pct[c], kp->k[c] == kp->poll_every ? " (chosen)" : "");
        if (w < 0)
            break;
        o += (size_t)w;
    }
    return buf;
}

uint32_t rtm_preempt_poll_ks(const rtm_ocl_info_t *info, const rtm_kinst_t *k, double t,
                             bool sweep, uint32_t ks[RTM_PREEMPT_TUNE_MAX], uint32_t *k0_out)
{
    const uint32_t k0 = rtm_preempt_poll_k(loop_step(info, k, loop_key(k->kernel), t));
    uint32_t n = 0;
    for (uint32_t kk = k0; n < RTM_PREEMPT_TUNE_MAX && kk >= 16 && kk * 4 >= k0; kk /= 2)
        ks[n++] = kk; /* K0, K0 / 2, K0 / 4: within the response target */
    for (uint32_t kk = k0 * 2; sweep && n < RTM_PREEMPT_TUNE_MAX && kk <= 65536u && kk <= k0 * 4;
         kk *= 2)
        ks[n++] = kk; /* 2 K0, 4 K0: beyond it (benchmarks) */
    if (k0_out)
        *k0_out = k0;
    return n;
}

/* The search's program accounting: x's program, compiled or loaded from the cache. */
static void kp_count(rtm_preempt_kpoll_t *out, const rtm_kexec_t *x)
{
    out->compiled += x->prog.from_cache ? 0u : 1u;
    out->loaded += x->prog.from_cache ? 1u : 0u;
    out->program_s += x->prog.build_s;
}

/* The chosen build x against the reference build xr (of one instance): the ratio of
 * their kernel times over POLL_COST_PAIRS pairs after a warm-up, the two run
 * one after the other in alternating order (a pair's ratio cancels the device's drift),
 * its median less 1 into out->cost and its extremes into cost_lo, cost_hi. */
#define POLL_COST_PAIRS 11u
static rtm_status_t poll_cost(rtm_kexec_t *xr, rtm_kexec_t *x, rtm_preempt_kpoll_t *out)
{
    rtm_status_t st = RTM_OK;
    double ratio[POLL_COST_PAIRS];
    uint32_t n = 0;
    for (uint32_t i = 0; st == RTM_OK && i <= POLL_COST_PAIRS; i++) { /* pair 0 warms up */
        rtm_kexec_timing_t a = {0}, b = {0};
        rtm_kexec_t *first = (i & 1u) ? x : xr, *second = (i & 1u) ? xr : x;
        st = rtm_kexec_run(first, &a);
        if (st == RTM_OK)
            st = rtm_kexec_run(second, &b);
        const double tx = (i & 1u) ? a.kernel_s : b.kernel_s,
                     tr = (i & 1u) ? b.kernel_s : a.kernel_s;
        if (st == RTM_OK && i > 0 && tx > 0.0 && tr > 0.0)
            ratio[n++] = tx / tr;
    }
    if (st != RTM_OK || n == 0)
        return st;
    rtm_stats_sort(ratio, n);
    out->cost = rtm_stats_percentile(ratio, n, 50) - 1.0;
    out->cost_lo = ratio[0] - 1.0;
    out->cost_hi = ratio[n - 1] - 1.0;
    out->cost_n = n;
    return RTM_OK;
}

rtm_status_t rtm_preempt_tune_kernel_poll(rtm_ocl_dev_t *d, const rtm_kexec_opts_t *base,
                                          const rtm_kexec_opts_t *ref,
                                          const rtm_kernel_t *kernel, rtm_tune_t tune,
                                          const int64_t *size, double t_hint, bool sweep,
                                          uint32_t runs, uint32_t aborts, double deadline,
                                          rtm_preempt_kpoll_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!d || !base || !kernel || kernel->n_keys == 0 || runs == 0)
        return RTM_E_ARG;
    rtm_kinst_t proto;
    rtm_kinst_init(&proto, kernel);
    if (tune.wg)
        proto.tune = tune;
    const bool spin = strcmp(kernel->name, "spin") == 0;
    if (spin) { /* a full device of 256-item blocks, 64 steps per element to start */
        proto.size[0] = rtm_preempt_min_blocks(&d->info, proto.tune.wg);
        proto.size[1] = 64;
    } else if (size) {
        memcpy(proto.size, size, sizeof(proto.size));
    }
    if (rtm_kinst_plan(&proto) != RTM_OK)
        return RTM_E_ARG;
    /* the baseline: ref's build where given (the candidates' overheads and the chosen
     * one's cost are then against it, one program fewer to load), else none's */
    const rtm_kexec_opts_t nop = ref ? *ref : rtm_preempt_poll_candidate(base, 0);
    rtm_kexec_t xs[RTM_PREEMPT_TUNE_MAX]; /* the candidates measured, out->k's order */
    /* size: ~2 ms without polls (one re-size from the measured time through the job's
     * operation count; spin: its loop length) */
    kp_inst_t in = {0};
    rtm_kexec_t x0;
    memset(&x0, 0, sizeof(x0));
    rtm_status_t st = RTM_OK;
    double t0 = 0.0, one = 0.0; /* one: a build, warm-up and timing (the first pass) */
    const double t_in = rtm_os_now_s();
    for (int pass = 0; pass < 2; pass++) {
        st = kp_make(&in, &proto);
        if (st == RTM_OK)
            st = rtm_kexec_create_ex(&x0, d, &in.k, &nop);
        if (st == RTM_OK) {
            kp_count(out, &x0);
            st = rtm_kexec_warm(&x0);
        }
        if (st == RTM_OK && spin)
            st = spin_length(&x0, &in.k, KP_TARGET_S);
        double unused;
        if (st == RTM_OK)
            st = time_pair(&x0, NULL, 1, &t0, &unused);
        if (pass == 0)
            one = rtm_os_now_s() - t_in;
        if (st != RTM_OK || spin || size || pass > 0 ||
            (t0 > 0.5 * KP_TARGET_S && t0 < 4 * KP_TARGET_S) || rtm_os_now_s() > deadline)
            break;
        rtm_kinst_t next = proto;
        const double ops = job_ops(&next);
        if (!(ops > 0 && t0 > 0) ||
            !size_for_ops(&next, ops * KP_TARGET_S / t0, d->info.global_mem / 12,
                          d->info.max_alloc))
            break;
        rtm_kexec_destroy(&x0);
        free(in.arena);
        in.arena = NULL;
        proto = next;
    }
    double *samples = aborts ? malloc(aborts * sizeof(double)) : NULL;
    if (st == RTM_OK && aborts && !samples)
        st = RTM_E_NOMEM;
    if (st == RTM_OK && rtm_os_now_s() <= deadline) {
        out->size0 = in.k.size[0];
        out->step_s = loop_step(&d->info, &in.k, loop_key(kernel), t0);
        uint32_t cand[RTM_PREEMPT_TUNE_MAX], k0 = 0;
        const uint32_t nk = rtm_preempt_poll_ks(
            &d->info, &in.k, size && !spin && t_hint > 0 ? t_hint : t0, sweep, cand, &k0);
        double best = 0.0;
        out->base_s = t0;
        for (uint32_t c = 0; st == RTM_OK && c < nk; c++) {
            const uint32_t kk = cand[c];
            if (rtm_os_now_s() + one > deadline) /* another build would overrun it */
                break;
            const rtm_kexec_opts_t pol = rtm_preempt_poll_candidate(base, kk);
            rtm_kexec_t *x1 = &xs[out->n];
            st = rtm_kexec_create_ex(x1, d, &in.k, &pol);
            if (st != RTM_OK)
                break;
            kp_count(out, x1);
            st = rtm_kexec_warm(x1);
            double ta = 0.0, tb = 0.0;
            if (st == RTM_OK)
                st = time_pair(&x0, x1, runs, &ta, &tb);
            const uint32_t i = out->n;
            if (st != RTM_OK)
                rtm_kexec_destroy(x1);
            if (st == RTM_OK) {
                out->k[i] = kk;
                out->overhead_pct[i] = 100.0 * (tb / ta - 1.0);
                out->n++;
                out->base_s = ta < out->base_s ? ta : out->base_s;
                if (kk <= k0 && (!out->poll_every || out->overhead_pct[i] < best)) {
                    out->poll_every = kk; /* the cheapest within the response target */
                    best = out->overhead_pct[i];
                }
            }
            if (st == RTM_OK && aborts) {
                /* informative: a kernel the series cannot abort keeps its K; the watcher
                 * as the executive gives it */
                uint32_t n = 0, missed = 0;
                double ks = 0.0;
                rtm_kexec_set_watch(x1, rtm_kexec_watch_worth(out->base_s));
                if (rtm_preempt_abort_series(x1, aborts, 6 + kk, samples, &n, &missed, &ks) ==
                        RTM_OK &&
                    n > 0) {
                    summarise(samples, n, &out->resp_p50_s[i], &out->resp_p99_s[i],
                              &out->resp_max_s[i]);
                    out->resp_n[i] = n;
                }
                rtm_kexec_set_watch(x1, false);
            }
        }
    }
    if (st == RTM_OK && ref && out->poll_every && rtm_os_now_s() <= deadline) {
        uint32_t c = 0;
        while (c < out->n && out->k[c] != out->poll_every)
            c++;
        st = poll_cost(&x0, &xs[c], out);
    }
    for (uint32_t c = 0; c < out->n; c++)
        rtm_kexec_destroy(&xs[c]);
    free(samples);
    rtm_kexec_destroy(&x0);
    free(in.arena);
    return st;
}
