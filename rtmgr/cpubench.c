/* cpubench.c — CPU micro-kernels for the eq. 1 parameters (see cpubench.h).
 *
 * Owns: the micro-kernels, their threads and their memory (allocated per sample by the
 * thread that uses it, so that first touch places it on that thread's node).
 * Invariants: every kernel's result reaches `sink` (volatile), its inputs come from
 * volatile objects, so the compiler keeps every operation; floating-point values stay
 * normal (no denormal slow paths: chains converge to 1.0, arrays hold 1.0). */
#include "cpubench.h"
#include "os.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "limits.h"
#include "stats.h"

/* Floats per row of the STRIDED matrix: 4160 bytes, one cache line per element down a
 * column, not a power of two (no cache-set aliasing). */
#define STRIDE_FLOATS 1040u

static volatile float sink;
static volatile float in_a = 0.9999f, in_b = 0.0001f, in_x = 0.5f;

/* A start gate: threads created one by one wait here until all exist (go) or creation
 * failed (abort), so that no thread is ever left waiting on a barrier that cannot fill. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int state; /* 0 wait, 1 go, -1 abort */
} gate_t;

static void gate_init(gate_t *g)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, NULL);
    g->state = 0;
}

static void gate_open(gate_t *g, int state)
{
    pthread_mutex_lock(&g->lock);
    g->state = state;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
}

/* Returns true for go, false for abort. */
static bool gate_wait(gate_t *g)
{
    pthread_mutex_lock(&g->lock);
    while (g->state == 0)
        pthread_cond_wait(&g->cond, &g->lock);
    const bool go = g->state > 0;
    pthread_mutex_unlock(&g->lock);
    return go;
}

static void gate_destroy(gate_t *g)
{
    pthread_cond_destroy(&g->cond);
    pthread_mutex_destroy(&g->lock);
}

const char *rtm_cpubench_name(rtm_cpubench_kind_t kind)
{
    static const char *const names[RTM_CPUBENCH_KIND_COUNT] = {"chain", "indep", "unit",
                                                                "strided", "copy"};
    return (unsigned)kind < RTM_CPUBENCH_KIND_COUNT ? names[kind] : "?";
}

/* ---- the micro-kernels (one timed call each; return the operations done) ---------- */

static uint64_t k_chain(uint64_t ops)
{
    const float a = in_a, b = in_b;
    float x = in_x;
    const uint64_t steps = ops / 2 ? ops / 2 : 1;
    for (uint64_t i = 0; i < steps; i++)
        x = x * a + b; /* mul then add, each waiting for the previous */
    sink = x;
    return steps * 2;
}

static uint64_t k_indep(uint64_t ops)
{
    const float a = in_a, b = in_b;
    float x0 = in_x, x1 = x0 + 0.01f, x2 = x0 + 0.02f, x3 = x0 + 0.03f;
    float x4 = x0 + 0.04f, x5 = x0 + 0.05f, x6 = x0 + 0.06f, x7 = x0 + 0.07f;
    const uint64_t steps = ops / 16 ? ops / 16 : 1;
    for (uint64_t i = 0; i < steps; i++) {
        x0 = x0 * a + b;
        x1 = x1 * a + b;
        x2 = x2 * a + b;
        x3 = x3 * a + b;
        x4 = x4 * a + b;
        x5 = x5 * a + b;
        x6 = x6 * a + b;
        x7 = x7 * a + b;
    }
    sink = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    return steps * 16;
}

static uint64_t k_unit(const float *a, size_t n, uint64_t ops)
{
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    const size_t n8 = n & ~(size_t)7;
    uint64_t done = 0;
    do {
        for (size_t i = 0; i < n8; i += 8) {
            s0 += a[i];
            s1 += a[i + 1];
            s2 += a[i + 2];
            s3 += a[i + 3];
            s4 += a[i + 4];
            s5 += a[i + 5];
            s6 += a[i + 6];
            s7 += a[i + 7];
        }
        done += n8;
    } while (done < ops);
    sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    return done;
}

static uint64_t k_strided(const float *a, size_t rows, uint64_t ops)
{
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    const size_t r8 = rows & ~(size_t)7;
    uint64_t done = 0;
    do {
        for (size_t c = 0; c < STRIDE_FLOATS && done < ops; c++) {
            const float *col = a + c;
            for (size_t r = 0; r < r8; r += 8) {
                s0 += col[(r + 0) * STRIDE_FLOATS];
                s1 += col[(r + 1) * STRIDE_FLOATS];
                s2 += col[(r + 2) * STRIDE_FLOATS];
                s3 += col[(r + 3) * STRIDE_FLOATS];
                s4 += col[(r + 4) * STRIDE_FLOATS];
                s5 += col[(r + 5) * STRIDE_FLOATS];
                s6 += col[(r + 6) * STRIDE_FLOATS];
                s7 += col[(r + 7) * STRIDE_FLOATS];
            }
            done += r8;
        }
    } while (done < ops);
    sink = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
    return done;
}

static uint64_t k_copy(float *dst, const float *src, size_t n, uint64_t ops)
{
    uint64_t done = 0;
    do {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
        done += n;
    } while (done < ops);
    sink = dst[n / 2];
    return done; /* elements copied */
}

/* ---- threads ----------------------------------------------------------------------- */

typedef struct {
    rtm_cpubench_kind_t kind;
    size_t bytes;
    uint64_t ops;
    gate_t *gate;
    pthread_barrier_t *start;
    double result; /* seconds per op (COPY: bytes per second) */
    bool ok;
} job_t;

static void *bench_thread(void *arg)
{
    job_t *j = arg;
    if (!gate_wait(j->gate))
        return NULL;
    float *a = NULL, *b = NULL;
    size_t n = j->bytes / sizeof(float);
    const bool mem = j->kind != RTM_CPUBENCH_CHAIN && j->kind != RTM_CPUBENCH_INDEP;
    if (j->kind == RTM_CPUBENCH_STRIDED)
        n = (n / (8 * STRIDE_FLOATS)) * 8 * STRIDE_FLOATS; /* whole groups of 8 rows */
    if (mem && n < 8 * STRIDE_FLOATS)
        n = 8 * STRIDE_FLOATS;
    if (mem) {
        a = aligned_alloc(64, ((n * sizeof(float)) + 63) & ~(size_t)63);
        if (j->kind == RTM_CPUBENCH_COPY)
            b = aligned_alloc(64, ((n * sizeof(float)) + 63) & ~(size_t)63);
        j->ok = a && (j->kind != RTM_CPUBENCH_COPY || b);
        if (a)
            for (size_t i = 0; i < n; i++)
                a[i] = 1.0f;
        if (b)
            memset(b, 0, n * sizeof(float));
    } else {
        j->ok = true;
    }
    pthread_barrier_wait(j->start);
    if (j->ok) {
        /* one untimed pass brings the data into the caches it fits in */
        switch (j->kind) {
        case RTM_CPUBENCH_CHAIN: (void)k_chain(j->ops / 8 + 2); break;
        case RTM_CPUBENCH_INDEP: (void)k_indep(j->ops / 8 + 16); break;
        case RTM_CPUBENCH_UNIT: (void)k_unit(a, n, 1); break;
        case RTM_CPUBENCH_STRIDED: (void)k_strided(a, n / STRIDE_FLOATS, 1); break;
        case RTM_CPUBENCH_COPY: (void)k_copy(b, a, n, 1); break;
        default: break;
        }
    }
    pthread_barrier_wait(j->start);
    if (j->ok) {
        const double t0 = rtm_os_now_s();
        uint64_t done = 0;
        switch (j->kind) {
        case RTM_CPUBENCH_CHAIN: done = k_chain(j->ops); break;
        case RTM_CPUBENCH_INDEP: done = k_indep(j->ops); break;
        case RTM_CPUBENCH_UNIT: done = k_unit(a, n, j->ops); break;
        case RTM_CPUBENCH_STRIDED: done = k_strided(a, n / STRIDE_FLOATS, j->ops); break;
        case RTM_CPUBENCH_COPY: done = k_copy(b, a, n, j->ops); break;
        default: break;
        }
        const double t = rtm_os_now_s() - t0;
        if (j->kind == RTM_CPUBENCH_COPY)
            j->result = t > 0 ? 2.0 * (double)done * sizeof(float) / t : 0.0;
        else
            j->result = done ? t / (double)done : 0.0;
        j->ok = j->result > 0.0;
    }
    free(a);
    free(b);
    return NULL;
}

rtm_status_t rtm_cpubench_run(rtm_cpubench_kind_t kind, uint32_t threads, size_t bytes,
                              uint64_t ops, double *out)
{
    if (!out || threads == 0 || threads > RTM_MAX_WORKERS || (unsigned)kind >= RTM_CPUBENCH_KIND_COUNT ||
        ops == 0)
        return RTM_E_ARG;
    *out = 0.0;
    job_t *jobs = calloc(threads, sizeof(*jobs));
    pthread_t *tid = calloc(threads, sizeof(*tid));
    pthread_barrier_t start;
    if (!jobs || !tid) {
        free(jobs);
        free(tid);
        return RTM_E_NOMEM;
    }
    if (pthread_barrier_init(&start, NULL, threads) != 0) {
        free(jobs);
        free(tid);
        return RTM_E_OS_THREAD;
    }
    gate_t gate;
    gate_init(&gate);
    rtm_status_t st = RTM_OK;
    uint32_t started = 1;
    for (uint32_t i = 0; i < threads; i++)
        jobs[i] = (job_t){kind, bytes, ops, &gate, &start, 0.0, false};
    /* thread 0 is the caller; the others are created and wait at the gate */
    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, bench_thread, &jobs[started]) != 0)
            break;
    gate_open(&gate, started == threads ? 1 : -1);
    if (started < threads) {
        for (uint32_t i = 1; i < started; i++)
            pthread_join(tid[i], NULL);
        gate_destroy(&gate);
        pthread_barrier_destroy(&start);
        free(jobs);
        free(tid);
        return RTM_E_OS_THREAD;
    }
    bench_thread(&jobs[0]);
    for (uint32_t i = 1; i < threads; i++)
        pthread_join(tid[i], NULL);
    gate_destroy(&gate);
    pthread_barrier_destroy(&start);
    double r[RTM_MAX_WORKERS];
    uint32_t n = 0;
    double total = 0.0;
    for (uint32_t i = 0; i < threads; i++) {
        if (!jobs[i].ok) {
            st = RTM_E_NOMEM;
            continue;
        }
        r[n++] = jobs[i].result;
        total += jobs[i].result;
    }
    if (st == RTM_OK) {
        if (kind == RTM_CPUBENCH_COPY) {
            *out = total;
        } else {
            rtm_stats_sort(r, n);
            *out = n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
        }
    }
    free(jobs);
    free(tid);
    return st;
}

/* ---- ping-pong --------------------------------------------------------------------- */

/* Round trips per timed batch; the sample is the median batch, so a batch in which a
 * thread was descheduled (a loaded machine) does not count. */
#define PING_BATCH 64u
#define PING_BATCHES_MAX 4096u
#define PING_STOP UINT64_MAX

typedef struct {
    _Alignas(64) _Atomic uint64_t flag;
} pingpong_t;

/* Spins this many times before yielding the core: with both threads on a core the
 * hand-over takes far fewer; on a loaded machine the partner may be waiting for ours. */
#define PING_SPINS 4096u

static void *pong(void *arg)
{
    pingpong_t *p = arg;
    uint64_t want = 1;
    for (;;) {
        uint64_t v;
        uint32_t spins = 0;
        while ((v = atomic_load_explicit(&p->flag, memory_order_acquire)) != want && v != PING_STOP)
            if (++spins % PING_SPINS == 0)
                sched_yield();
        if (v == PING_STOP)
            return NULL;
        atomic_store_explicit(&p->flag, want + 1, memory_order_release);
        want += 2;
    }
}

rtm_status_t rtm_cpubench_pingpong(uint64_t rounds, double *one_way_s)
{
    if (!one_way_s || rounds == 0)
        return RTM_E_ARG;
    static pingpong_t p;
    static double batch[PING_BATCHES_MAX];
    atomic_store(&p.flag, 0);
    pthread_t tid;
    if (pthread_create(&tid, NULL, pong, &p) != 0)
        return RTM_E_OS_THREAD;
    uint64_t batches = (rounds + PING_BATCH - 1) / PING_BATCH, v = 0;
    if (batches > PING_BATCHES_MAX)
        batches = PING_BATCHES_MAX;
    const double start = rtm_os_now_s(), budget = 0.05 + 1e-6 * (double)rounds;
    uint32_t done = 0;
    for (uint64_t b = 0; b < batches; b++) {
        const double t0 = rtm_os_now_s();
        for (uint32_t i = 0; i < PING_BATCH; i++) {
            atomic_store_explicit(&p.flag, ++v, memory_order_release);
            const uint64_t want = ++v;
            uint32_t spins = 0;
            while (atomic_load_explicit(&p.flag, memory_order_acquire) != want)
                if (++spins % PING_SPINS == 0)
                    sched_yield();
        }
        const double t1 = rtm_os_now_s();
        batch[done++] = (t1 - t0) / (2.0 * PING_BATCH);
        if ((t1 - start > budget && done >= 3) || t1 - start > 3.0 * budget)
            break; /* a loaded machine: enough batches for a median */
    }
    atomic_store_explicit(&p.flag, PING_STOP, memory_order_release);
    pthread_join(tid, NULL);
    /* the fastest batch: the hand-over itself, with both threads on their cores (on a
     * loaded machine most batches wait for a thread to be scheduled again) */
    double best = batch[0];
    for (uint32_t i = 1; i < done; i++)
        best = batch[i] < best ? batch[i] : best;
    *one_way_s = best;
    return RTM_OK;
}

/* ---- barrier ----------------------------------------------------------------------- */

typedef struct {
    gate_t *gate;
    pthread_barrier_t *b;
    uint64_t rounds;
} barrier_job_t;

static void *barrier_thread(void *arg)
{
    const barrier_job_t *j = arg;
    if (!gate_wait(j->gate))
        return NULL;
    for (uint64_t i = 0; i < j->rounds + 1; i++)
        pthread_barrier_wait(j->b);
    return NULL;
}

rtm_status_t rtm_cpubench_barrier(uint32_t threads, uint64_t rounds, double *round_s)
{
    if (!round_s || threads == 0 || threads > RTM_MAX_WORKERS || rounds == 0)
        return RTM_E_ARG;
    pthread_barrier_t b;
    if (pthread_barrier_init(&b, NULL, threads) != 0)
        return RTM_E_OS_THREAD;
    gate_t gate;
    gate_init(&gate);
    barrier_job_t job = {&gate, &b, rounds};
    pthread_t tid[RTM_MAX_WORKERS];
    uint32_t started = 1;
    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, barrier_thread, &job) != 0)
            break;
    gate_open(&gate, started == threads ? 1 : -1);
    if (started < threads) {
        for (uint32_t i = 1; i < started; i++)
            pthread_join(tid[i], NULL);
        gate_destroy(&gate);
        pthread_barrier_destroy(&b);
        return RTM_E_OS_THREAD;
    }
    pthread_barrier_wait(&b); /* all arrived once: start together */
    const double t0 = rtm_os_now_s();
    for (uint64_t i = 0; i < rounds; i++)
        pthread_barrier_wait(&b);
    const double t = rtm_os_now_s() - t0;
    for (uint32_t i = 1; i < threads; i++)
        pthread_join(tid[i], NULL);
    gate_destroy(&gate);
    pthread_barrier_destroy(&b);
    *round_s = t / (double)rounds;
    return RTM_OK;
}

/* ---- clock ------------------------------------------------------------------------- */

double rtm_cpubench_clock(uint64_t pairs)
{
    struct timespec a, b;
    long acc = 0;
    const double t0 = rtm_os_now_s();
    for (uint64_t i = 0; i < pairs; i++) {
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        acc += b.tv_nsec - a.tv_nsec;
    }
    const double t = rtm_os_now_s() - t0;
    sink = (float)acc;
    return pairs ? t / (double)pairs : 0.0;
}
