/* Diagnostic (session 63, not part of rtmgr): can a large grid run as a plain grid in
 * chunks, few of them released at a time, and so keep the plain grid's cheap polls
 * (matrix_mul's `+poll` -2..+3 % against 4-6 % on persistent groups) with a drain as
 * short as the persistent groups'? A plain grid of 62 500 blocks drains its blocks not
 * yet started at about 0.5 ns each after a raise (docs/preempt.md, session 62); here the
 * job's blocks run as launches of C blocks (mapped launches: the map holds the chunk's
 * block ids), alternating over two in-order queues so that a chunk's tail overlaps the
 * next chunk, and chunk j + 2 is released only when chunk j has ended: after a raise at
 * most two chunks' blocks are left to drain and the unreleased chunks never launch.
 *
 * Usage: chunks KERNEL.cl N REPS ABORTS "ORIG_OPTS" "POLL_OPTS" "PERSIST_OPTS" C1,C2,...
 * Builds KERNEL (matrix_mul's signature: the block arguments, a, b, c, n) three ways and
 * runs, at n x n: the original on one launch; the polled plain build on one launch; the
 * persistent build on CUs x 8 groups; the polled build in chunks of each C over two
 * queues (gated by the host loop, or by the driver's callback on chunk j's end, which
 * releases chunk j + 2), over one queue (gated), and over two queues all released at once.
 * Per shape: min / median job ms over REPS (host clock: first enqueue to the last
 * chunk's end seen), the output compared with the original's; then, for ABORTS raises at
 * random instants, the drain (the flag write's END to the last released launch's END,
 * device clock) p50 / p99 / max us, the host's response (the raise call to every
 * released launch seen ended: by its queue's end mark where the driver has
 * cl_nv_create_buffer, else by its event) and the blocks completed. Environment:
 * RTM_DIAG_PLATFORM (a substring of the platform's name; NVIDIA by default),
 * RTM_DIAG_RAISE=write (the paper's raise; rtmgr's armed raise by default),
 * RTM_DIAG_MARKS=0 (no end marks), RTM_DIAG_CALLBACK=1 (adds the shape released from
 * the driver's event callback; session 63's calls a-c ran it by default). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_cl.h"
#include "diag_file.h"
#include "rtmgr/os.h"
#include "rtmgr/stats.h"

#define WG 256
#define COPIES 32 /* the flag's copies (RTM_FLAG_COPIES), RTM_FLAG_STRIDE ints apart */
#define STRIDE 32
#define MAXCH 1024

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q[3]; /* two for the chunks, one for the raise */
static cl_mem flag, done, map, next[2], a, b, c;
static uint32_t n, blocks;

static cl_kernel build(const char *src, const char *opts)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CK(err);
    if (clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        static char log[1 << 16];
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        fprintf(stderr, "build failed (%s):\n%s\n", opts, log);
        exit(1);
    }
    cl_kernel k = clCreateKernel(p, "matrix_mul", &err);
    CK(err);
    return k;
}

/* A shape: a build, the groups of one launch (0: one block per group), chunk size (0:
 * one launch of every block), queues (1 or 2), and whether chunk j + 2 waits for j. */
typedef struct shape {
    const char *name;
    cl_kernel k;
    uint32_t groups, chunk, queues;
    int gated;
    cl_mem *subs; /* the chunks' maps (make_subs), NULL for one launch */
} shape_t;

/* The job's chunk release: by the host loop (gated 1), by the driver's callback on
 * chunk j's end releasing chunk j + 2 (gated 2), or all at once (0). */
static struct {
    pthread_mutex_t mu;
    const struct shape *s;
    uint32_t per, nch, released, stop;
    int pending; /* callbacks registered and not yet returned */
    cl_event *ev;
} gs_ = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void release_next(void);

/* End marks (NVIDIA's cl_nv_create_buffer: host memory the kernel writes), one per
 * queue, as rtmgr's kexec has one: the launch's last group to leave writes 1; the host
 * clears a queue's mark before it releases a chunk there. NULL elsewhere (PoCL), or
 * with RTM_DIAG_MARKS=0: then the events alone. */
static cl_mem endb[2];
static volatile cl_uint *endh[2];

static void make_marks(cl_platform_id p)
{
    typedef cl_mem(CL_API_CALL * create_nv_t)(cl_context, cl_mem_flags, cl_bitfield, size_t,
                                              void *, cl_int *);
    const create_nv_t create =
        (create_nv_t)clGetExtensionFunctionAddressForPlatform(p, "clCreateBufferNV");
    if (!create || (getenv("RTM_DIAG_MARKS") && atoi(getenv("RTM_DIAG_MARKS")) == 0))
        return;
    for (int i = 0; i < 2; i++) {
        cl_int err;
        endb[i] = create(ctx, CL_MEM_READ_WRITE, 1u /* CL_MEM_LOCATION_HOST_NV */, 256, NULL, &err);
        CK(err);
        endh[i] = clEnqueueMapBuffer(q[2], endb[i], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 256, 0,
                                     NULL, NULL, &err);
        CK(err);
        endh[i][0] = 0;
    }
}

static cl_kernel k_nomark; /* the original build writes no mark */

/* Does a job of s in nch launches end-mark them? Where a queue's mark tells its latest
 * launch's end: host-gated chunks on two queues (one queue would hold two chunks in
 * flight), or a single launch; and where the build writes one. */
static int uses_marks(const struct shape *s, uint32_t nch)
{
    return endh[0] && s->k != k_nomark && ((s->gated == 1 && s->queues == 2) || nch == 1);
}

/* Has released launch j ended, by its queue's end mark (uses_marks)? */
static int mark_seen(uint32_t j, const struct shape *s)
{
    return endh[s->queues == 2 ? j % 2 : 0][0] != 0;
}

static void CL_CALLBACK chunk_ended(cl_event e, cl_int status, void *arg)
{
    (void)e, (void)status, (void)arg;
    pthread_mutex_lock(&gs_.mu);
    if (!gs_.stop && gs_.released < gs_.nch)
        release_next();
    pthread_mutex_unlock(&gs_.mu);
    __atomic_sub_fetch(&gs_.pending, 1, __ATOMIC_RELEASE);
}

/* Releases the next chunk (gs_.mu held). */
static void release_next(void)
{
    const struct shape *s = gs_.s;
    const uint32_t j = gs_.released, per = gs_.per, nch = gs_.nch;
    const uint32_t nb = j + 1 < nch ? per : blocks - j * per;
    const cl_uint nmap = s->chunk ? 1u : 0u, doff = 0;
    cl_mem m = s->chunk ? s->subs[j] : map, nx = next[j % 2];
    CK(clSetKernelArg(s->k, 2, sizeof(cl_mem), &m));
    CK(clSetKernelArg(s->k, 3, sizeof(cl_uint), &nmap));
    CK(clSetKernelArg(s->k, 4, sizeof(cl_uint), &nb));
    CK(clSetKernelArg(s->k, 5, sizeof(cl_uint), &doff));
    CK(clSetKernelArg(s->k, 7, sizeof(cl_mem), &nx));
    const int slot = s->queues == 2 ? (int)(j % 2) : 0;
    if (endh[0]) {
        endh[slot][0] = 0;
        CK(clSetKernelArg(s->k, 8, sizeof(cl_mem), uses_marks(s, nch) ? &endb[slot] : NULL));
    }
    const size_t gsz = (size_t)(s->groups && s->groups < nb ? s->groups : nb) * WG, ls = WG;
    cl_command_queue qq = q[s->queues == 2 ? j % 2 : 0];
    CK(clEnqueueNDRangeKernel(qq, s->k, 1, NULL, &gsz, &ls, 0, NULL, &gs_.ev[j]));
    if (s->gated == 2) {
        __atomic_add_fetch(&gs_.pending, 1, __ATOMIC_RELEASE);
        CK(clSetEventCallback(gs_.ev[j], CL_COMPLETE, chunk_ended, NULL));
    }
    CK(clFlush(qq));
    __atomic_store_n(&gs_.released, j + 1, __ATOMIC_RELEASE);
}

static int trace_left; /* RTM_DIAG_TRACE=N: N gated two-queue jobs' timelines printed */
static int armed = 1; /* RTM_DIAG_RAISE=write: the paper's enqueue + flush at the raise */

/* One job of shape s; raise_at > 0: the flag is raised that many seconds after the
 * first release (and no chunk is released after). Returns the host-clock job time;
 * *drain_us: flag landed -> last released launch ended (device clock), -1 when the
 * job had ended first; *resp_us: the raise call -> every released launch seen ended
 * (host clock); *xfer_us: the flag write's START (armed) or QUEUED -> END. */
static double job(const shape_t *s, double raise_at, double *drain_us, double *resp_us,
                  double *xfer_us)
{
    static const int zero[COPIES * STRIDE];
    static int ones[COPIES * STRIDE];
    for (int i = 0; i < COPIES * STRIDE; i++)
        ones[i] = 1;
    const uint8_t z8 = 0;
    const uint32_t z32 = 0;
    CK(clEnqueueWriteBuffer(q[2], flag, CL_TRUE, 0, sizeof(zero), zero, 0, NULL, NULL));
    CK(clEnqueueFillBuffer(q[2], done, &z8, 1, 0, blocks, 0, NULL, NULL));
    for (int i = 0; i < 2; i++)
        CK(clEnqueueFillBuffer(q[2], next[i], &z32, 4, 0, 4096, 0, NULL, NULL));
    CK(clFinish(q[2]));
    const uint32_t per = s->chunk ? s->chunk : blocks;
    const uint32_t nch = (blocks + per - 1) / per;
    cl_event ev[MAXCH], evw = NULL, gate = NULL;
    static int src[COPIES * STRIDE];
    if (armed) { /* the raise's write held behind a user event (rtmgr's armed raise) */
        cl_int err;
        gate = clCreateUserEvent(ctx, &err);
        CK(err);
        CK(clEnqueueWriteBuffer(q[2], flag, CL_FALSE, 0, sizeof(src), src, 1, &gate, &evw));
        CK(clFlush(q[2]));
    }
    gs_.s = s, gs_.per = per, gs_.nch = nch, gs_.ev = ev, gs_.released = 0, gs_.stop = 0;
    uint32_t ended = 0;
    const double t0 = rtm_os_now_s();
    double t_raise = 0;
    int raised = 0;
    pthread_mutex_lock(&gs_.mu);
    for (uint32_t j = 0; j < nch && (!s->gated || j < 2); j++)
        release_next();
    pthread_mutex_unlock(&gs_.mu);
    for (;;) {
        /* release what may go (gated by the host: two ahead) */
        if (s->gated == 1) {
            pthread_mutex_lock(&gs_.mu);
            while (gs_.released < nch && !raised && gs_.released < ended + 2)
                release_next();
            pthread_mutex_unlock(&gs_.mu);
        }
        if (raise_at > 0 && !raised && rtm_os_now_s() - t0 >= raise_at) {
            t_raise = rtm_os_now_s();
            if (armed) {
                memcpy(src, ones, sizeof(src));
                CK(clSetUserEventStatus(gate, CL_COMPLETE));
            } else {
                CK(clEnqueueWriteBuffer(q[2], flag, CL_FALSE, 0, sizeof(ones), ones, 0, NULL, &evw));
                CK(clFlush(q[2]));
            }
            pthread_mutex_lock(&gs_.mu); /* no chunk released after the raise */
            gs_.stop = 1;
            pthread_mutex_unlock(&gs_.mu);
            raised = 1;
        }
        const uint32_t released = __atomic_load_n(&gs_.released, __ATOMIC_ACQUIRE);
        const int marks = uses_marks(s, nch);
        cl_int st;
        while (ended < released &&
               (marks ? mark_seen(ended, s)
                      : clGetEventInfo(ev[ended], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st),
                                       &st, NULL) == CL_SUCCESS &&
                            st == CL_COMPLETE))
            ended++;
        if (ended == released && (released == nch || raised))
            break;
    }
    const double t_end = rtm_os_now_s(), t = t_end - t0;
    while (__atomic_load_n(&gs_.pending, __ATOMIC_ACQUIRE) > 0) /* callbacks still running */
        ;
    const uint32_t released = gs_.released;
    CK(clWaitForEvents((cl_uint)released, ev)); /* the marks' events too */
    if (armed && !raised) { /* disarmed: the held write copies zeros */
        memset(src, 0, sizeof(src));
        CK(clSetUserEventStatus(gate, CL_COMPLETE));
    }
    if (gate)
        clReleaseEvent(gate);
    cl_ulong last = 0, landed = 0, queued = 0;
    if (trace_left > 0 && s->chunk && s->gated == 1 && s->queues == 2 && !raised) {
        trace_left--;
        cl_ulong s0 = 0, pe[2] = {0, 0};
        CK(clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_START, sizeof(s0), &s0, NULL));
        printf("trace %s: %u chunks, wall %.3f ms\n  j q   start_us     end_us   len_us  gap_vs_prev_same_q\n",
               s->name, released, t * 1e3);
        for (uint32_t j = 0; j < released; j++) {
            cl_ulong st, en;
            CK(clGetEventProfilingInfo(ev[j], CL_PROFILING_COMMAND_START, sizeof(st), &st, NULL));
            CK(clGetEventProfilingInfo(ev[j], CL_PROFILING_COMMAND_END, sizeof(en), &en, NULL));
            printf("  %2u %u %10.1f %10.1f %8.1f %8.1f\n", j, j & 1u, (double)(int64_t)(st - s0) * 1e-3,
                   (double)(int64_t)(en - s0) * 1e-3, (double)(en - st) * 1e-3,
                   pe[j & 1u] ? (double)(int64_t)(st - pe[j & 1u]) * 1e-3 : 0.0);
            pe[j & 1u] = en;
        }
    }
    for (uint32_t j = 0; j < released; j++) {
        cl_ulong e;
        CK(clGetEventProfilingInfo(ev[j], CL_PROFILING_COMMAND_END, sizeof(e), &e, NULL));
        last = e > last ? e : last;
        clReleaseEvent(ev[j]);
    }
    if (evw) {
        CK(clWaitForEvents(1, &evw));
        CK(clGetEventProfilingInfo(evw, CL_PROFILING_COMMAND_END, sizeof(landed), &landed, NULL));
        CK(clGetEventProfilingInfo(evw, armed ? CL_PROFILING_COMMAND_START : CL_PROFILING_COMMAND_QUEUED,
                                   sizeof(queued), &queued, NULL));
        clReleaseEvent(evw);
    }
    if (drain_us)
        *drain_us = raised && last > landed ? (double)(last - landed) * 1e-3 : -1.0;
    if (resp_us)
        *resp_us = raised ? (t_end - t_raise) * 1e6 : -1.0;
    if (xfer_us)
        *xfer_us = raised && landed > queued ? (double)(landed - queued) * 1e-3 : -1.0;
    return t;
}

/* The map's sub-buffers for chunks of `per` block ids, made once per chunk size and
 * never released while the diagnostic runs: NVIDIA's driver crashed (a segmentation
 * fault) when sub-buffers were released and made again between jobs for the chunk sizes
 * 8192 and 12288 in turn (board/h100/results/chunks-s63a-h100.txt's trailer). */
static cl_mem *make_subs(uint32_t per)
{
    cl_mem *sub = calloc(MAXCH, sizeof(cl_mem));
    for (uint32_t j = 0; j * per < blocks; j++) {
        const cl_buffer_region rg = {(size_t)j * per * 4,
                                     (size_t)((j + 1) * per <= blocks ? per : blocks - j * per) * 4};
        cl_int err;
        sub[j] = clCreateSubBuffer(map, 0, CL_BUFFER_CREATE_TYPE_REGION, &rg, &err);
        CK(err);
    }
    return sub;
}

/* Blocks marked in done[]. */
static uint32_t count_done(void)
{
    uint8_t *d = malloc(blocks);
    CK(clEnqueueReadBuffer(q[2], done, CL_TRUE, 0, blocks, d, 0, NULL, NULL));
    uint32_t k = 0;
    for (uint32_t i = 0; i < blocks; i++)
        k += d[i] != 0;
    free(d);
    return k;
}

/* The output's sum. */
static double checksum(void)
{
    float *h = malloc((size_t)n * n * sizeof(float));
    CK(clEnqueueReadBuffer(q[2], c, CL_TRUE, 0, (size_t)n * n * sizeof(float), h, 0, NULL, NULL));
    double sum = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        sum += h[i];
    free(h);
    return sum;
}

int main(int argc, char **argv)
{
    if (argc < 9)
        return fprintf(stderr, "usage: chunks KERNEL.cl N REPS ABORTS ORIG POLL PERSIST C1,C2,...\n"), 2;
    char *src = diag_read_all(argv[1]);
    if (!src)
        return 1;
    n = (uint32_t)atoi(argv[2]);
    const int reps = atoi(argv[3]) < 4096 ? atoi(argv[3]) : 4096, aborts = atoi(argv[4]);
    blocks = (n * n + WG - 1) / WG;
    trace_left = getenv("RTM_DIAG_TRACE") ? atoi(getenv("RTM_DIAG_TRACE")) : 0;
    armed = !(getenv("RTM_DIAG_RAISE") && strcmp(getenv("RTM_DIAG_RAISE"), "write") == 0);
    const char *want = getenv("RTM_DIAG_PLATFORM") ? getenv("RTM_DIAG_PLATFORM") : "NVIDIA";
    const cl_platform_id p = diag_cl_platform(want, false);
    if (!p)
        return fprintf(stderr, "no platform '%s'\n", want), 1;
    CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_uint cus = 0, align_bits = 0;
    char dname[256];
    CK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cus), &cus, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits), &align_bits, NULL));
    CK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(dname), dname, NULL));
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CK(err);
    const cl_queue_properties prof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    for (int i = 0; i < 3; i++) {
        q[i] = clCreateCommandQueueWithProperties(ctx, dev, prof, &err);
        CK(err);
    }
    make_marks(p);
    const size_t mat = (size_t)n * n * sizeof(float);
    flag = clCreateBuffer(ctx, CL_MEM_READ_WRITE, COPIES * STRIDE * 4, NULL, &err);
    done = clCreateBuffer(ctx, CL_MEM_READ_WRITE, blocks, NULL, &err);
    map = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)blocks * 4, NULL, &err);
    for (int i = 0; i < 2; i++)
        next[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * 4, NULL, &err);
    a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, mat, NULL, &err);
    b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, mat, NULL, &err);
    c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, mat, NULL, &err);
    CK(err);
    float *h = malloc(mat);
    uint32_t s = 12345;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        s = s * 1103515245u + 12345u;
        h[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    CK(clEnqueueWriteBuffer(q[2], a, CL_TRUE, 0, mat, h, 0, NULL, NULL));
    CK(clEnqueueWriteBuffer(q[2], b, CL_TRUE, 0, mat, h, 0, NULL, NULL));
    uint32_t *ids = malloc((size_t)blocks * 4);
    for (uint32_t i = 0; i < blocks; i++)
        ids[i] = i;
    CK(clEnqueueWriteBuffer(q[2], map, CL_TRUE, 0, (size_t)blocks * 4, ids, 0, NULL, NULL));
    printf("device %s, %u CUs, n %u, %u blocks of %d, reps %d, aborts %d, end marks %s\n", dname, cus,
           n, blocks, WG, reps, aborts, endh[0] ? "yes (host-gated shapes and single launches)" : "no");

    cl_kernel kk[3];
    for (int i = 0; i < 3; i++) {
        kk[i] = build(src, argv[5 + i]);
        const cl_mem std_[] = {flag, done, map, NULL, NULL, NULL, NULL, next[0], NULL, a, b, c};
        for (cl_uint g = 0; g < 12; g++)
            if (g < 3 || g == 7 || g >= 9)
                CK(clSetKernelArg(kk[i], g, sizeof(cl_mem), std_[g] ? &std_[g] : NULL));
        const cl_uint zero = 0;
        for (cl_uint g = 3; g <= 5; g++)
            CK(clSetKernelArg(kk[i], g, sizeof(cl_uint), &zero));
        CK(clSetKernelArg(kk[i], 6, sizeof(cl_mem), NULL));
        CK(clSetKernelArg(kk[i], 8, sizeof(cl_mem), NULL));
        CK(clSetKernelArg(kk[i], 12, sizeof(cl_uint), &n));
    }
    k_nomark = kk[0];
    shape_t sh[64];
    int ns = 0;
    sh[ns++] = (shape_t){"original, one launch", kk[0], 0, 0, 1, 0, NULL};
    sh[ns++] = (shape_t){"polled plain, one launch", kk[1], 0, 0, 1, 0, NULL};
    sh[ns++] = (shape_t){"persistent, CUs x 8 groups", kk[2], cus * 8, 0, 1, 0, NULL};
    const uint32_t align = align_bits / 8 / 4; /* block ids per sub-buffer alignment */
    for (char *t = strtok(argv[8], ","); t && ns < 60; t = strtok(NULL, ",")) {
        uint32_t C = (uint32_t)atoi(t);
        C = (C + align - 1) / align * align;
        if ((blocks + C - 1) / C > MAXCH)
            continue;
        static char names[64][96];
        cl_mem *subs = make_subs(C);
        snprintf(names[ns], 96, "polled chunks of %u, 2 queues, gated", C);
        sh[ns] = (shape_t){names[ns], kk[1], 0, C, 2, 1, subs}, ns++;
        /* opt-in: where a driver runs the callback of an event already complete inside
         * clSetEventCallback (PoCL, tiny chunks), release_next holds gs_.mu there and the
         * callback waits for it forever */
        if (getenv("RTM_DIAG_CALLBACK") && atoi(getenv("RTM_DIAG_CALLBACK")) != 0) {
            snprintf(names[ns], 96, "polled chunks of %u, 2 queues, gated by callback", C);
            sh[ns] = (shape_t){names[ns], kk[1], 0, C, 2, 2, subs}, ns++;
        }
        snprintf(names[ns], 96, "polled chunks of %u, 1 queue, gated", C);
        sh[ns] = (shape_t){names[ns], kk[1], 0, C, 1, 1, subs}, ns++;
        snprintf(names[ns], 96, "polled chunks of %u, 2 queues, all released", C);
        sh[ns] = (shape_t){names[ns], kk[1], 0, C, 2, 0, subs}, ns++;
    }
    double ref = 0, orig_min = 0, orig_med = 0;
    uint32_t bd = 0;
    /* the times alternate over shapes, rep by rep, so that a drift of the clock or the
     * machine falls on every shape alike */
    double (*tt)[4096] = calloc((size_t)ns, sizeof(*tt));
    for (int r = -1; r < reps; r++)
        for (int i = 0; i < ns; i++) {
            const double v = job(&sh[i], 0, NULL, NULL, NULL);
            if (r >= 0)
                tt[i][r] = v;
        }
    for (int i = 0; i < ns; i++) {
        /* every shape's output against the original's (the last job of each is checked
         * by running it once more) */
        const float zf = 0.0f;
        CK(clEnqueueFillBuffer(q[2], c, &zf, 4, 0, mat, 0, NULL, NULL));
        job(&sh[i], 0, NULL, NULL, NULL);
        const double sum = checksum();
        bd = count_done();
        if (i == 0)
            ref = sum;
        rtm_stats_sort(tt[i], (size_t)reps);
        const double med = rtm_stats_percentile(tt[i], (size_t)reps, 50);
        if (i == 0)
            orig_min = tt[i][0], orig_med = med;
        printf("%-48s min %8.3f ms (%+6.2f %%) median %8.3f ms (%+6.2f %%) | checksum %s, done[] %u of %u\n",
               sh[i].name, tt[i][0] * 1e3, (tt[i][0] / orig_min - 1) * 100, med * 1e3,
               (med / orig_med - 1) * 100, sum == ref ? "equal" : "DIFFERS", bd, blocks);
        if (i == 0 || aborts <= 0)
            continue;
        /* the response: raises at random instants over the job's median time */
        int m = 0, late = 0;
        double blocks_sum = 0;
        double *t = calloc((size_t)aborts, sizeof(double));
        double *rs = calloc((size_t)aborts, sizeof(double)), *xs = calloc((size_t)aborts, sizeof(double));
        for (int r = 0; r < aborts; r++) {
            const double at = med * (0.02 + 0.96 * (double)rand() / RAND_MAX);
            double d, rr, xx;
            job(&sh[i], at, &d, &rr, &xx);
            if (d < 0) {
                late++;
                continue;
            }
            rs[m] = rr, xs[m] = xx;
            t[m++] = d;
            blocks_sum += count_done();
        }
        const size_t k = (size_t)m;
        rtm_stats_sort(t, k), rtm_stats_sort(rs, k), rtm_stats_sort(xs, k);
        if (m > 0)
            printf("%-48s host response p50 %7.2f p99 %7.2f max %7.2f us; flag write %s->END p50 %7.2f "
                   "p99 %7.2f us (%s raise)\n"
                   "%-48s drain p50 %7.2f p99 %7.2f max %7.2f us over %d raises (%d after the end); "
                   "mean blocks completed %.0f\n",
                   "", rtm_stats_percentile(rs, k, 50), rtm_stats_percentile(rs, k, 99), rs[k - 1],
                   armed ? "START" : "QUEUED", rtm_stats_percentile(xs, k, 50),
                   rtm_stats_percentile(xs, k, 99), armed ? "armed" : "write", "",
                   rtm_stats_percentile(t, k, 50), rtm_stats_percentile(t, k, 99), t[k - 1], m, late,
                   blocks_sum / m);
        free(t), free(rs), free(xs);
    }
    return 0;
}
