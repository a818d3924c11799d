/* test_pool.c — the CPU worker pool: results equal the single-thread CPU twin for 1..N
 * threads; an abort mid-job leaves a consistent completed-block array, and running only
 * the undone blocks gives the full result with no block run twice; multi-launch jobs
 * keep the barrier between launches and resume; start/stop repeatedly; one caller at a
 * time; a worker that wakes late does not hold a job; affinity and priority fall back
 * with a warning; the pool's synthetic kernel (poolkern.h) plans its sizes and spins
 * each block its set time; workers warmed ahead of a job run it as any other. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "rtmgr/os.h"
#include "rtmgr/pool.h"
#include "rtmgr/poolkern.h"

/* --- A test-only kernel that counts how often each block of each launch runs. ---
 * Size keys: blocks per launch, launches. Buffer 0: uint32 run counts, buffer 1: uint64
 * values; launch 0 block b writes b + 1, launch l > 0 block b writes the sum of all
 * values of launch l - 1 plus b: wrong if a launch starts before the previous ends. */
static atomic_uint g_execs;          /* blocks started since the last reset */
static unsigned g_abort_after;       /* raise g_abort when g_execs reaches this (0 = never) */
static volatile int g_abort;
static atomic_int g_hold;            /* blocks wait while set */

static uint32_t nb(const rtm_kinst_t *k) { return (uint32_t)k->size[0]; }

static rtm_status_t count_plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const size_t n = (size_t)nb(k) * (size_t)k->size[1];
    p->n_bufs = 2;
    p->buf[0] = (rtm_bufspec_t){n * sizeof(uint32_t), RTM_BUF_OUT};
    p->buf[1] = (rtm_bufspec_t){n * sizeof(uint64_t), RTM_BUF_OUT};
    p->launches = (uint32_t)k->size[1];
    p->blocks_max = nb(k);
    return RTM_OK;
}

static void count_launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    (void)l;
    out->entry = 0;
    out->blocks = nb(k);
}

static void count_block(const rtm_kinst_t *k, uint32_t l, uint32_t b)
{
    while (atomic_load(&g_hold))
        sched_yield();
    /* The block that starts as number g_abort_after raises the flag; blocks started
     * after it wait until the flag is up, so none of them can finish before the abort
     * however the threads are scheduled: at most workers - 1 blocks pass the threshold. */
    const unsigned n = atomic_fetch_add(&g_execs, 1u) + 1u;
    if (g_abort_after && n == g_abort_after)
        __atomic_store_n(&g_abort, 1, __ATOMIC_RELEASE);
    else if (g_abort_after && n > g_abort_after)
        while (!__atomic_load_n(&g_abort, __ATOMIC_ACQUIRE))
            sched_yield();
    uint32_t *runs = k->host[0];
    uint64_t *val = k->host[1];
    atomic_fetch_add((_Atomic uint32_t *)&runs[(size_t)l * nb(k) + b], 1u);
    uint64_t v = b;
    if (l == 0)
        v += 1;
    else
        for (uint32_t j = 0; j < nb(k); j++)
            v += val[(size_t)(l - 1) * nb(k) + j];
    for (volatile int spin = 0; spin < 2000; spin++) /* make a block take a little time */
        ;
    val[(size_t)l * nb(k) + b] = v;
}

static const rtm_kernel_t count_kernel = {
    .name = "count",
    .source = "none.cl",
    .entries = {"count", NULL},
    .keys = {{"blocks", 1, 100000, 64, "blocks"}, {"launches", 1, 16, 1, "launches"}},
    .n_keys = 2,
    .vec_allowed = 1u << 1,
    .tune_default = {1, 1},
    .plan = count_plan,
    .launch = count_launch,
    .cpu_block = count_block,
};

/* An instance with its own zeroed arena. */
static void *make(rtm_kinst_t *k, const rtm_kernel_t *kern, int64_t s0, int64_t s1)
{
    rtm_kinst_init(k, kern);
    k->size[0] = s0;
    if (kern->n_keys > 1)
        k->size[1] = s1;
    assert_int_equal(rtm_kinst_plan(k), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(k);
    void *arena = aligned_alloc(64, bytes);
    assert_non_null(arena);
    memset(arena, 0, bytes);
    assert_int_equal(rtm_kinst_bind(k, arena, bytes), bytes);
    return arena;
}

static void reset_counters(void)
{
    atomic_store(&g_execs, 0u);
    g_abort_after = 0;
    g_abort = 0;
    atomic_store(&g_hold, 0);
}

static void test_matrix_add_equals_twin(void **state)
{
    (void)state;
    const rtm_kernel_t *ma = rtm_kernel_find("matrix_add");
    rtm_kinst_t ref, k;
    void *a_ref = make(&ref, ma, 301, 0);
    ma->fill(&ref, 5);
    rtm_kinst_run_cpu(&ref);
    for (uint32_t threads = 1; threads <= 6; threads++) {
        static rtm_pool_t pool; /* static storage, as in the manager */
        assert_int_equal(rtm_pool_start(&pool, threads, 0, NULL), RTM_OK);
        void *a = make(&k, ma, 301, 0);
        ma->fill(&k, 5);
        rtm_pool_stats_t st;
        uint32_t launch = 0;
        assert_int_equal(rtm_pool_run_job(&pool, &k, &launch, NULL, NULL, &st), RTM_OK);
        assert_int_equal(launch, 1);
        assert_int_equal(st.blocks_run, k.plan.blocks_max);
        assert_int_equal(st.workers, threads);
        char why[128] = "";
        assert_int_equal(ma->compare(&k, &ref, why, sizeof(why)), 0);
        rtm_pool_stop(&pool);
        free(a);
    }
    free(a_ref);
}

/* The hand-out counter, written by every worker for every block, shares its cache line
 * with nothing else whatever the pool's address: with the job fields and `completed`
 * beside it, calibration's pool (one address modulo 64) and validation's (another)
 * paid one or two contended lines per block, and the CPU model's dispatch and cw came
 * out 30 % apart between the two (H100 host, 16 workers). */
static void test_next_alone_on_its_line(void **state)
{
    (void)state;
    assert_int_equal(alignof(rtm_pool_t), 64);
    const size_t next = offsetof(rtm_pool_t, next);
    assert_int_equal(next % 64, 0);
    /* on a line of its own: every other field ends before it, or starts a line on */
    assert_true(offsetof(rtm_pool_t, completed) + sizeof(uint32_t) <= next);
    assert_true(offsetof(rtm_pool_t, skip_done) + sizeof(bool) <= next);
    assert_true(offsetof(rtm_pool_t, worker) >= next + 64);
    /* and the count of completed blocks is still exact through every worker */
    const rtm_kernel_t *ma = rtm_kernel_find("matrix_add");
    rtm_kinst_t k;
    void *a = make(&k, ma, 301, 0);
    ma->fill(&k, 5);
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 3, 0, NULL), RTM_OK);
    for (int r = 0; r < 5; r++) {
        rtm_pool_stats_t st;
        uint32_t launch = 0;
        assert_int_equal(rtm_pool_run_job(&pool, &k, &launch, NULL, NULL, &st), RTM_OK);
        assert_int_equal(st.blocks_run, k.plan.blocks_max);
    }
    rtm_pool_stop(&pool);
    free(a);
}

static void test_abort_and_resume_blocks(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 4, 0, NULL), RTM_OK);
    rtm_kinst_t k;
    const uint32_t n = 400;
    void *arena = make(&k, &count_kernel, n, 1);
    reset_counters();
    g_abort_after = 100;
    unsigned char done[400];
    memset(done, 0, sizeof(done));
    rtm_pool_stats_t st;
    assert_int_equal(rtm_pool_run(&pool, &k, 0, NULL, 0, &g_abort, done, &st), RTM_E_ABORTED);
    const uint32_t *runs = k.host[0];
    uint32_t marked = 0, undone[400], n_undone = 0;
    for (uint32_t b = 0; b < n; b++) {
        assert_int_equal(runs[b], done[b]); /* done <=> ran once; undone <=> never ran */
        marked += done[b];
        if (!done[b])
            undone[n_undone++] = b;
    }
    assert_int_equal(marked, st.blocks_run);
    assert_true(marked >= 100 && marked < 100 + 4);

    g_abort = 0;
    g_abort_after = 0;
    assert_int_equal(rtm_pool_run(&pool, &k, 0, undone, n_undone, &g_abort, done, &st), RTM_OK);
    assert_int_equal(st.blocks_run, n_undone);
    const uint64_t *val = k.host[1];
    for (uint32_t b = 0; b < n; b++) {
        assert_int_equal(runs[b], 1);
        assert_int_equal(done[b], 1);
        assert_int_equal(val[b], b + 1);
    }
    /* A block list out of range is refused before anything runs. */
    const uint32_t bad[] = {0, n};
    assert_int_equal(rtm_pool_run(&pool, &k, 0, bad, 2, NULL, NULL, NULL), RTM_E_RANGE);
    assert_int_equal(rtm_pool_run(&pool, &k, 1, NULL, 0, NULL, NULL, NULL), RTM_E_RANGE);
    rtm_pool_stop(&pool);
    free(arena);
}

static void test_job_barrier_abort_resume(void **state)
{
    (void)state;
    const uint32_t n = 64, launches = 4;
    rtm_kinst_t ref, k;
    void *a_ref = make(&ref, &count_kernel, n, launches);
    reset_counters();
    rtm_kinst_run_cpu(&ref);
    for (uint32_t threads = 1; threads <= 4; threads++) {
        static rtm_pool_t pool;
        assert_int_equal(rtm_pool_start(&pool, threads, 0, NULL), RTM_OK);
        void *arena = make(&k, &count_kernel, n, launches);
        reset_counters();
        g_abort_after = n + 20; /* inside launch 1 */
        unsigned char done[64] = {0};
        uint32_t launch = 0;
        rtm_pool_stats_t st;
        assert_int_equal(rtm_pool_run_job(&pool, &k, &launch, done, &g_abort, &st),
                         RTM_E_ABORTED);
        assert_int_equal(launch, 1);
        assert_int_equal(st.launches, 1);
        const uint32_t *runs = k.host[0];
        for (uint32_t b = 0; b < n; b++) {
            assert_int_equal(runs[b], 1);
            assert_int_equal(runs[n + b], done[b]);
        }
        g_abort = 0;
        g_abort_after = 0;
        assert_int_equal(rtm_pool_run_job(&pool, &k, &launch, done, &g_abort, &st), RTM_OK);
        assert_int_equal(launch, launches);
        for (uint32_t i = 0; i < n * launches; i++)
            assert_int_equal(runs[i], 1);
        assert_memory_equal(k.host[1], ref.host[1], k.plan.buf[1].bytes);
        rtm_pool_stop(&pool);
        free(arena);
    }
    free(a_ref);
}

static void test_start_stop_repeatedly(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    rtm_pool_stop(&pool); /* never started: no-op */
    rtm_kinst_t k;
    void *arena = make(&k, &count_kernel, 50, 2);
    for (uint32_t i = 0; i < 40; i++) {
        const uint32_t threads = 1 + i % 8;
        assert_int_equal(rtm_pool_start(&pool, threads, 0, NULL), RTM_OK);
        assert_int_equal(rtm_pool_start(&pool, threads, 0, NULL), RTM_E_STATE);
        if (i % 2) {
            uint32_t launch = 0;
            assert_int_equal(rtm_pool_run_job(&pool, &k, &launch, NULL, NULL, NULL), RTM_OK);
        }
        rtm_pool_stop(&pool);
        rtm_pool_stop(&pool);
    }
    assert_int_equal(rtm_pool_run(&pool, &k, 0, NULL, 0, NULL, NULL, NULL), RTM_E_STATE);
    assert_int_equal(rtm_pool_start(&pool, RTM_MAX_WORKERS + 1, 0, NULL), RTM_E_RANGE);
    assert_int_equal(rtm_pool_start(&pool, 0, 0, NULL), RTM_OK); /* 0 = online CPUs */
    assert_true(pool.n_workers >= 1);
    rtm_pool_stop(&pool);
    free(arena);
}

typedef struct {
    rtm_pool_t *pool;
    const rtm_kinst_t *k;
    rtm_status_t st;
    int finished; /* atomic: the run returned */
} runner_t;

static void *runner(void *arg)
{
    runner_t *r = arg;
    r->st = rtm_pool_run(r->pool, r->k, 0, NULL, 0, NULL, NULL, NULL);
    __atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* A worker kept off the CPU: a signal handler that sleeps while g_stall is set. */
static volatile sig_atomic_t g_stall, g_stalled;

static void stall_handler(int sig)
{
    (void)sig;
    g_stalled = 1;
    while (g_stall) {
        const struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    g_stalled = 0;
}

/* A worker that does not get a core when the job is posted (woken late on a busy host)
 * does not hold the job: the caller and the workers that are awake run every block and
 * the job ends without it. On the H100 host's running system, where the GPU
 * dispatchers, the driver's threads and the release work share the 16 cores with the
 * pool, a 0.1 ms CPU job took about twice its prediction while every job waited for
 * every worker's wake-up. */
static void test_late_worker_does_not_hold_the_job(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 3, 0, NULL), RTM_OK); /* 2 worker threads */
    assert_int_equal(rtm_pool_spawned(&pool), 2);
    rtm_kinst_t k;
    void *arena = make(&k, &count_kernel, 64, 1);
    reset_counters();
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = stall_handler;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
    g_stall = 1;
    assert_int_equal(pthread_kill(pool.worker[1].thread, SIGUSR1), 0);
    while (!g_stalled)
        sched_yield();
    runner_t r = {&pool, &k, RTM_E_ARG, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, runner, &r), 0);
    /* the caller and the awake worker: well within 10 s (64 short blocks) */
    for (int i = 0; i < 10000 && !__atomic_load_n(&r.finished, __ATOMIC_ACQUIRE); i++) {
        const struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    const int alone = __atomic_load_n(&r.finished, __ATOMIC_ACQUIRE);
    g_stall = 0; /* the stalled worker wakes: too late for that job */
    pthread_join(t, NULL);
    while (g_stalled)
        sched_yield();
    assert_true(alone);
    assert_int_equal(r.st, RTM_OK);
    assert_int_equal(atomic_load(&g_execs), 64);
    const uint32_t *runs = k.host[0];
    for (uint32_t b = 0; b < 64; b++)
        assert_int_equal(runs[b], 1);
    uint64_t launches = 0, joins = 0;
    rtm_pool_joins(&pool, &launches, &joins);
    assert_int_equal(launches, 1);
    assert_true(joins <= 1); /* worker 0, unless the caller ran out of blocks first */
    /* the late worker joins the next job again (or sleeps through it: no block twice) */
    memset(k.host[0], 0, 64 * sizeof(uint32_t));
    for (int j = 0; j < 20; j++)
        assert_int_equal(rtm_pool_run(&pool, &k, 0, NULL, 0, NULL, NULL, NULL), RTM_OK);
    for (uint32_t b = 0; b < 64; b++)
        assert_int_equal(runs[b], 20);
    rtm_pool_joins(&pool, &launches, &joins);
    assert_int_equal(launches, 21);
    assert_true(joins <= 41);
    assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
    rtm_pool_stop(&pool);
    free(arena);
}

static void test_one_caller_at_a_time(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    assert_int_equal(rtm_pool_start(&pool, 2, 0, NULL), RTM_OK);
    rtm_kinst_t k;
    void *arena = make(&k, &count_kernel, 8, 1);
    reset_counters();
    atomic_store(&g_hold, 1);
    runner_t r = {&pool, &k, RTM_E_ARG, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, runner, &r), 0);
    while (!atomic_load(&pool.busy))
        sched_yield();
    assert_int_equal(rtm_pool_run(&pool, &k, 0, NULL, 0, NULL, NULL, NULL), RTM_E_STATE);
    uint32_t launch = 0;
    assert_int_equal(rtm_pool_run_job(&pool, &k, &launch, NULL, NULL, NULL), RTM_E_STATE);
    atomic_store(&g_hold, 0);
    pthread_join(t, NULL);
    assert_int_equal(r.st, RTM_OK);
    assert_int_equal(atomic_load(&g_execs), 8);
    rtm_pool_stop(&pool);
    free(arena);
}

static void test_priority_and_affinity_fall_back(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    rtm_kinst_t k;
    void *arena = make(&k, &count_kernel, 32, 1);
    /* Permitted or not, the pool starts and runs; the flags tell which. */
    const int cpus_ok[] = {0, 0};
    assert_int_equal(rtm_pool_start(&pool, 2, 10, cpus_ok), RTM_OK);
    assert_true(pool.pinned);
    assert_int_equal(rtm_pool_run(&pool, &k, 0, NULL, 0, NULL, NULL, NULL), RTM_OK);
    rtm_pool_stop(&pool);
    /* A CPU that does not exist: one warning, unpinned. */
    const int cpus_bad[] = {1023, 1023}; /* CPU_SETSIZE - 1; the second thread is the caller */
    assert_int_equal(rtm_pool_start(&pool, 2, 0, cpus_bad), RTM_OK);
    assert_false(pool.pinned);
    assert_int_equal(rtm_pool_run(&pool, &k, 0, NULL, 0, NULL, NULL, NULL), RTM_OK);
    rtm_pool_stop(&pool);
    const int cpus_neg[] = {-1};
    assert_int_equal(rtm_pool_start(&pool, 1, 0, cpus_neg), RTM_E_RANGE);
    assert_int_equal(rtm_pool_start(&pool, 1, 1000, NULL), RTM_E_RANGE);
    free(arena);
}

static void test_poolkern_spins_each_block(void **state)
{
    (void)state;
    rtm_kinst_t k;
    assert_int_equal(rtm_poolkern_make(&k, 0, 1, 0), RTM_E_RANGE);
    assert_int_equal(rtm_poolkern_make(&k, 4, 0, 0), RTM_E_RANGE);
    assert_int_equal(rtm_poolkern_make(&k, 4, 1, -1), RTM_E_RANGE);
    assert_int_equal(rtm_poolkern_make(&k, 8, 2, 50000), RTM_OK);
    assert_int_equal(k.plan.launches, 2);
    assert_int_equal(k.plan.blocks_max, 8);
    assert_int_equal(k.plan.n_bufs, 0);
    static rtm_pool_t p;
    assert_int_equal(rtm_pool_start(&p, 2, 0, NULL), RTM_OK);
    unsigned char done[8] = {0};
    uint32_t launch = 0;
    rtm_pool_stats_t st;
    const int64_t t0 = rtm_os_now_ns();
    assert_int_equal(rtm_pool_run_job(&p, &k, &launch, done, NULL, &st), RTM_OK);
    const int64_t took = rtm_os_now_ns() - t0;
    assert_int_equal(launch, 2);
    assert_int_equal(st.blocks_run, 16);
    /* 16 blocks of 50 us over 2 threads: at least 8 a thread, 400 us */
    assert_true(took >= 400000);
    rtm_pool_stop(&p);
}

/* rtm_pool_warm: the workers woken without a job spin until one is posted or the
 * warm-up ends; a job posted while they spin runs every block once; a warm-up far into
 * the future does not hold the pool's stop; a pool not started ignores it. */
static void test_warm_then_run(void **state)
{
    (void)state;
    static rtm_pool_t pool;
    rtm_pool_warm(&pool, rtm_os_now_ns() + 1000000000LL); /* not started: nothing */
    assert_int_equal(rtm_pool_start(&pool, 3, 0, NULL), RTM_OK);
    rtm_kinst_t k;
    void *arena = make(&k, &count_kernel, 64, 2);
    const uint32_t *runs = k.host[0];
    for (int j = 1; j <= 3; j++) {
        reset_counters();
        if (j < 3) {
            rtm_pool_warm(&pool, rtm_os_now_ns() + 5000000); /* 5 ms */
            rtm_os_sleep_until(rtm_os_now_ns() + 1000000);   /* the job comes 1 ms in */
        } else { /* as calibration: warmed from 1 ms before the job to 1 ms after */
            rtm_pool_idle_until(&pool, rtm_os_now_ns() + 2000000, 1000000);
        }
        uint32_t launch = 0;
        assert_int_equal(rtm_pool_run_job(&pool, &k, &launch, NULL, NULL, NULL), RTM_OK);
        assert_int_equal(launch, 2);
        assert_int_equal(atomic_load(&g_execs), 128);
        for (uint32_t b = 0; b < 128; b++)
            assert_int_equal(runs[b], (uint32_t)j);
    }
    assert_int_equal(pool.warms, 3);
    /* the workers spin toward an end 100 s away: stop still returns (the test's limit) */
    rtm_pool_warm(&pool, rtm_os_now_ns() + 100000000000LL);
    rtm_os_sleep_until(rtm_os_now_ns() + 1000000);
    rtm_pool_stop(&pool);
    assert_false(pool.started);
    free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_add_equals_twin),
        cmocka_unit_test(test_next_alone_on_its_line),
        cmocka_unit_test(test_abort_and_resume_blocks),
        cmocka_unit_test(test_job_barrier_abort_resume),
        cmocka_unit_test(test_start_stop_repeatedly),
        cmocka_unit_test(test_one_caller_at_a_time),
        cmocka_unit_test(test_late_worker_does_not_hold_the_job),
        cmocka_unit_test(test_priority_and_affinity_fall_back),
        cmocka_unit_test(test_poolkern_spins_each_block),
        cmocka_unit_test(test_warm_then_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
