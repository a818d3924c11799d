/* kchunks.c — diagnostic (session 64; NVIDIA's OpenCL): rtmgr's own kexec of a seed-000
 * kernel (matrix_mul by default) at n x n, wg 256, poll period 16, in four shapes:
 * the original build, the polled plain grid, chunks of 4 096 (kexec.h chunks) and
 * persistent groups; REPS interleaved whole runs (kernel span by kexec's events, the
 * chunks' span by their own events, host wall), the chunks also begun without the
 * cross-queue gate and paced here; then ABORTS aborts of each polled shape through
 * rtm_preempt_abort_series_ex, the watcher on. Built and run by kchunks.sh:
 *   bash board/h100/diag/kchunks.sh [N [REPS [ABORTS [KERNEL [FEW]]]]]
 * FEW 1: only the original and the chunks are built; 2: and the chunks only ungated.
 * Results: board/h100/results/chunks-s64-h100.txt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernels/kernels.h"
#include "rtmgr/os.h"
#include "rtmgr/preempt.h"
#include "rtmgr/stats.h"

#define NS 4
#ifdef RTM_CHUNK_TRACE
extern cl_event rtm_ck_trace_ev[256];
extern double rtm_ck_trace_rel[256], rtm_ck_trace_seen[256];
extern uint32_t rtm_ck_trace_n;
extern int rtm_ck_trace_on;
static cl_ulong stamp(cl_event e, cl_profiling_info w)
{
    cl_ulong v = 0;
    clGetEventProfilingInfo(e, w, sizeof(v), &v, NULL);
    return v;
}
/* One chunked run's timeline: per chunk its queue, the host's release and end-seen
 * times (us after t0), and its device START / END (us after the first START). */
static void trace_print(const char *what, double t0)
{
    const uint32_t n = rtm_ck_trace_n;
    if (!n)
        return;
    const cl_ulong s0 = stamp(rtm_ck_trace_ev[0], CL_PROFILING_COMMAND_START);
    printf("trace %s: %u chunks\n  j q   rel_us  seen_us   start_us     end_us   len_us  gap_vs_prev_same_q\n", what, n);
    cl_ulong prev_end[2] = {0, 0};
    for (uint32_t j = 0; j < n; j++) {
        const cl_ulong st = stamp(rtm_ck_trace_ev[j], CL_PROFILING_COMMAND_START);
        const cl_ulong en = stamp(rtm_ck_trace_ev[j], CL_PROFILING_COMMAND_END);
        const int q = (int)(j & 1u);
        printf("  %2u %u %8.1f %8.1f %10.1f %10.1f %8.1f %8.1f\n", j, q, (rtm_ck_trace_rel[j] - t0) * 1e6,
               rtm_ck_trace_seen[j] > 0 ? (rtm_ck_trace_seen[j] - t0) * 1e6 : -1.0, (double)(int64_t)(st - s0) * 1e-3,
               (double)(int64_t)(en - s0) * 1e-3, (double)(en - st) * 1e-3,
               prev_end[q] ? (double)(int64_t)(st - prev_end[q]) * 1e-3 : 0.0);
        prev_end[q] = en;
        clReleaseEvent(rtm_ck_trace_ev[j]);
    }
    rtm_ck_trace_n = 0;
    memset(rtm_ck_trace_seen, 0, sizeof(rtm_ck_trace_seen));
}
#endif
static double med(double *v, int n) { rtm_stats_sort(v, (uint32_t)n); return v[n / 2]; }

/* x's control cleared, the GPU then idle `gap` seconds (its clock back from the power
 * cap: session 65 call d); returns the host clock when the run may start. */
static double run_prepare(rtm_kexec_t *x, double gap)
{
    rtm_kexec_clear(x, NULL, NULL);
    clFinish(x->dev->exec);
    if (gap > 0)
        rtm_os_sleep_until_s(rtm_os_now_s() + gap);
    return rtm_os_now_s();
}

/* One whole run through rtm_kexec_enqueue_all (a chunked x: gated, paced by kexec);
 * host wall seconds; *k0 / *k1 its first and last events. */
static double run_gated(rtm_kexec_t *x, double gap, cl_event *k0, cl_event *k1)
{
    const double t0 = run_prepare(x, gap);
    rtm_kexec_enqueue_all(x, 0, k0, k1);
    rtm_ocl_finish_exec(x->dev);
    return rtm_os_now_s() - t0;
}

/* One run of chunked x begun without the cross-queue gate and paced here; host wall
 * seconds. */
static double run_ungated(rtm_kexec_t *x, double gap)
{
    const double t0 = run_prepare(x, gap);
    rtm_kexec_chunks_begin(x, NULL, 0, NULL);
    bool all = false;
    while (!all)
        rtm_kexec_chunks_advance(x, true, &all);
    rtm_ocl_finish_exec(x->dev);
    return rtm_os_now_s() - t0;
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 4000, reps = argc > 2 ? atoi(argv[2]) : 20;
    const uint32_t aborts = argc > 3 ? (uint32_t)atoi(argv[3]) : 300;
    const char *kname = argc > 4 ? argv[4] : "matrix_mul";
    const int few = argc > 5 ? atoi(argv[5]) : 0; /* 1: only original and chunks built;
                                                     * 2: and the chunks only ungated */
    rtm_ocl_info_t infos[8];
    uint32_t nd = 0;
    if (rtm_ocl_discover(infos, 8, &nd) != RTM_OK || !nd) return 1;
    rtm_ocl_dev_t dev;
    if (rtm_ocl_open(&dev, &infos[0]) != RTM_OK) return 1;
    printf("device %s; %s n %d\n", infos[0].name, kname, n);
    rtm_kinst_t k;
    rtm_kinst_init(&k, rtm_kernel_find(kname));
    k.size[0] = n;
    k.tune.wg = 256;
    k.tune.vec = 1;
    if (rtm_kinst_plan(&k) != RTM_OK) return 1;
    const size_t bytes = rtm_kinst_bytes(&k);
    void *arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    rtm_kinst_bind(&k, arena, bytes);
    k.kernel->fill(&k, 5);
    const char *names[NS] = {"original", "plain", "chunks", "persist"};
    rtm_kexec_t x[NS];
    memset(x, 0, sizeof(x));
    for (int s = 0; s < NS; s++) {
        if (few && (s == 1 || s == 3))
            continue;
        rtm_kexec_opts_t o = {.transport = RTM_ABORT_WRITE, .transport_set = true,
                              .poll_every = 16, .fetch_store = true};
        o.variant = s == 0 ? RTM_KEXEC_ORIGINAL : RTM_KEXEC_FULL;
        o.groups = s == 3 ? 0 : RTM_KEXEC_GROUPS_ALL;
        o.chunk = s == 2 ? RTM_KEXEC_CHUNK_BLOCKS : 0;
        o.chunk_cpu = true;
        if (rtm_kexec_create_ex(&x[s], &dev, &k, &o) != RTM_OK) { printf("create %s failed\n", names[s]); return 1; }
        rtm_kexec_warm(&x[s]);
        rtm_kexec_write_inputs(&x[s], NULL, NULL);
        clFinish(dev.exec);
        printf("%-9s chunk %u persist %d groups %u\n", names[s], x[s].chunk, x[s].persist,
               rtm_kexec_groups(&x[s], k.plan.blocks_max));
    }
    if (getenv("KC_SHARE")) /* every shape on the original's data buffers */
        for (int s = 1; s < NS; s++) {
            if (!x[s].dev)
                continue;
            for (uint32_t i = 0; i < k.plan.n_bufs; i++) {
                clRetainMemObject(x[0].buf[i]);
                x[s].buf[i] = x[0].buf[i];
            }
            memset(x[s].args_set, 0, sizeof(x[s].args_set));
        }
    for (int s = 0; s < NS; s++) {
        char po[1024];
        if (!x[s].dev)
            continue;
        rtm_kexec_program_options(&dev, &k, &x[s].opts, po, sizeof(po));
        printf("%-9s options: %s\n", names[s], po);
    }
    double span[NS][256], wall[NS][256], evspan[256], ngwall[256], ngspan[256];
    int r2 = reps > 256 ? 256 : reps;
    /* KC_GAP_MS: the GPU idle that long before each timed run (its clock back from the
     * power cap: session 65 call d) */
    const double gap = getenv("KC_GAP_MS") ? atof(getenv("KC_GAP_MS")) * 1e-3 : 0.0;
    memset(span, 0, sizeof(span));
    memset(wall, 0, sizeof(wall));
    for (int r = 0; r < r2; r++) {
        { /* chunks without the gate: begun and paced here */
            ngwall[r] = run_ungated(&x[2], gap);
            const rtm_kexec_chunks_t *ck = &x[2].ck;
            ngspan[r] = (double)rtm_ocl_span_ns(ck->first, rtm_ocl_later_end(ck->ev[0], ck->ev[1])) * 1e-9;
        }
        for (int s = 0; s < NS; s++) {
            if (!x[s].dev || (few == 2 && s == 2))
                continue;
            cl_event k0 = NULL, k1 = NULL;
            wall[s][r] = run_gated(&x[s], gap, &k0, &k1);
            span[s][r] = (double)rtm_ocl_span_ns(k0, k1 ? k1 : k0) * 1e-9;
            if (s == 2) {
                const rtm_kexec_chunks_t *ck = &x[2].ck;
                const int64_t a = rtm_ocl_span_ns(ck->first, ck->ev[0]);
                const int64_t b = rtm_ocl_span_ns(ck->first, ck->ev[1]);
                evspan[r] = (double)(a > b ? a : b) * 1e-9;
            }
            if (k0) clReleaseEvent(k0);
            if (k1) clReleaseEvent(k1);
        }
    }
#ifdef RTM_CHUNK_TRACE
    { /* the chunks' build as one plain launch on their own buffers */
        double pl[16];
        for (int t = 0; t < 16; t++) {
            cl_event e = NULL;
            rtm_kexec_clear(&x[2], NULL, NULL);
            clFinish(dev.exec);
            rtm_kexec_enqueue(&x[2], 0, NULL, 0, &e);
            clFinish(dev.exec);
            pl[t] = (double)rtm_ocl_span_ns(e, e) * 1e-6;
            clReleaseEvent(e);
        }
        rtm_stats_sort(pl, 16);
        printf("chunks' build, one plain launch on its buffers: min %.3f med %.3f ms\n", pl[0], pl[8]);
    }
    rtm_ck_trace_on = 1;
    for (int t = 0; t < 3; t++) { /* three gated runs, three ungated, traced */
        rtm_ck_trace_n = 0;
        cl_event k0 = NULL, k1 = NULL;
        double w = run_gated(&x[2], 0.0, &k0, &k1), t0 = rtm_os_now_s() - w;
        printf("gated run %d wall %.3f ms\n", t, w * 1e3);
        trace_print("gated", t0);
        if (k0) clReleaseEvent(k0);
        if (k1) clReleaseEvent(k1);
        w = run_ungated(&x[2], 0.0);
        t0 = rtm_os_now_s() - w;
        printf("ungated run %d wall %.3f ms\n", t, w * 1e3);
        trace_print("ungated", t0);
    }
    rtm_ck_trace_on = 0;
#endif
    printf("%-9s %10s %10s %10s %10s  (ms; vs original by min)\n", "shape", "span min", "span med", "wall min", "wall med");
    double omin = 1e9, owmin = 1e9;
    for (int s = 0; s < NS; s++) {
        if (!x[s].dev || (few == 2 && s == 2))
            continue;
        double mn = 1e9, wmn = 1e9;
        for (int r = 0; r < r2; r++) { mn = span[s][r] < mn ? span[s][r] : mn; wmn = wall[s][r] < wmn ? wall[s][r] : wmn; }
        if (s == 0) { omin = mn; owmin = wmn; }
        printf("%-9s %10.3f %10.3f %10.3f %10.3f  span %+6.2f %%  wall %+6.2f %%\n", names[s], mn * 1e3, med(span[s], r2) * 1e3,
               wmn * 1e3, med(wall[s], r2) * 1e3, 100 * (mn / omin - 1), 100 * (wmn / owmin - 1));
    }
    double emn = 1e9;
    for (int r = 0; r < r2; r++) emn = evspan[r] < emn ? evspan[r] : emn;
    printf("chunks by their own events (first START -> later queue END): min %.3f med %.3f ms (%+.2f %%)\n", emn * 1e3, med(evspan, r2) * 1e3, 100 * (emn / omin - 1));
    double ng = 1e9, ngw = 1e9;
    for (int r = 0; r < r2; r++) { ng = ngspan[r] < ng ? ngspan[r] : ng; ngw = ngwall[r] < ngw ? ngwall[r] : ngw; }
    printf("chunks without the gate, by their events: min %.3f med %.3f ms (%+.2f %%); wall min %.3f (%+.2f %%)\n", ng * 1e3, med(ngspan, r2) * 1e3, 100 * (ng / omin - 1), ngw * 1e3, 100 * (ngw / owmin - 1));
    if (aborts == 0) return 0;
    double *samp = calloc(aborts, sizeof(double));
    rtm_preempt_stop_t *stops = calloc(aborts, sizeof(*stops));
    const rtm_preempt_wake_t wake = {RTM_OS_SPIN_S, RTM_PREEMPT_POKE_NONE, 0.0};
    for (int s = 1; s < NS; s++) {
        if (!x[s].dev)
            continue;
        uint32_t nn = 0, missed = 0; double ks = 0;
        rtm_kexec_set_watch(&x[s], rtm_kexec_watch_worth(0.02));
        rtm_status_t st = rtm_preempt_abort_series_ex(&x[s], aborts, 11, samp, stops, &nn, &missed, &ks, &wake);
        uint32_t marked = 0; double dr[4096]; uint32_t ndr = 0;
        for (uint32_t i = 0; i < nn; i++) { marked += stops[i].marked; if (stops[i].dev_drain_s >= 0 && ndr < 4096) dr[ndr++] = stops[i].dev_drain_s; }
        rtm_stats_sort(samp, nn);
        rtm_stats_sort(dr, ndr);
        printf("%-9s aborts %u (missed %u, marked %u, st %d) kernel %.2f ms: response p50 %.1f p99 %.1f max %.1f us; drain p50 %.1f p99 %.1f us\n",
               names[s], nn, missed, marked, (int)st, ks * 1e3, rtm_stats_percentile(samp, nn, 50) * 1e6,
               rtm_stats_percentile(samp, nn, 99) * 1e6, nn ? samp[nn - 1] * 1e6 : 0.0,
               ndr ? rtm_stats_percentile(dr, ndr, 50) * 1e6 : -1, ndr ? rtm_stats_percentile(dr, ndr, 99) * 1e6 : -1);
    }
    return 0;
}
