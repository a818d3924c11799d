/* pool.c — the CPU worker pool (see pool.h). Owns the worker threads, their mutex and
 * condition variables, and the description of the job in progress.
 *
 * Protocol: the caller writes the job into the pool, opens it and bumps the generation
 * (under the lock), broadcasts `wake` once it has dropped the lock, then takes blocks
 * itself. (Broadcast under the lock, a worker woken while the caller was still in the
 * wake-up system call blocked on the lock at once and needed a second wake-up: on this
 * project's 2-core VM, 2 blocks of 4 us after 20 ms idle took 34-36 us, 27-33 us
 * broadcasting after the unlock; the same runs back to back did not change.) Each worker that
 * sees a new generation joins if the job is still open (active++ under the lock), drops
 * the lock, takes block indices from the atomic counter `next` until it runs out or
 * sees the abort flag, then retakes the lock, adds the blocks it completed to
 * `completed`, and leaves (active--, signalling `idle` when it was the last one inside).
 * Once the caller's own share is over (every index handed out, or the flag up), the
 * job is over when no worker is inside: every block handed out has then run. The
 * caller closes it under the lock, so a worker that wakes later skips it; the job does
 * not wait for a worker that the host's scheduler has not run yet, nor for its own
 * thread's wake-up at the end (it spins a while before it sleeps). `next` is the only
 * datum written per block, on a cache line of its own. The job fields are written only
 * while no worker is inside a job and read-only while one is; the mutex orders those
 * writes before the workers' reads, and the workers' done[] stores before the caller's
 * return. `active` is written under the lock and read by the spinning caller without.
 *
 * rtm_pool_warm wakes the workers without a job (a second counter, `warms`): each spins
 * on the generation, unlocked, until it changes or the warm-up's end, and then goes back
 * to the loop, which it finds either with the job posted or to sleep again.
 *
 * A job ran completely iff every index was handed out (next >= n_blocks at the end):
 * a worker that takes an index always runs that block. */
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET */
#include "pool.h"
#include "os.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Runs blocks of the current job until none is left or the flag is up; returns the
 * blocks this worker completed. The job's fields are read once: they are read-only
 * while the job runs, and the line they sit on is not the counter's. */
static uint32_t work(rtm_pool_t *p)
{
    const rtm_kinst_t *k = p->k;
    const volatile int *abort = p->abort;
    const uint32_t *blocks = p->blocks;
    const uint32_t n_blocks = p->n_blocks, launch = p->launch;
    unsigned char *done = p->done;
    const bool skip_done = p->skip_done;
    uint32_t completed = 0;
    for (;;) {
        if (abort && __atomic_load_n(abort, __ATOMIC_ACQUIRE))
            return completed;
        const uint32_t i = atomic_fetch_add_explicit(&p->next, 1u, memory_order_relaxed);
        if (i >= n_blocks)
            return completed;
        const uint32_t b = blocks ? blocks[i] : i;
        if (skip_done && done[b])
            continue;
        k->kernel->cpu_block(k, launch, b);
        if (done)
            done[b] = 1;
        completed++;
    }
}

static void *worker_main(void *arg)
{
    rtm_pool_worker_t *w = arg;
    rtm_pool_t *p = w->pool;
    uint64_t seen = 0; /* the generation at start: a job posted before this thread
                        * first runs is still new to it */
    uint64_t warm_seen = 0;
    pthread_mutex_lock(&p->lock);
    if (++p->ready == rtm_pool_spawned(p))
        pthread_cond_signal(&p->idle); /* rtm_pool_start waits for every worker */
    for (;;) {
        while (!p->stopping && p->generation == seen && p->warms == warm_seen)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stopping)
            break;
        if (p->generation == seen) { /* a warm-up: spin until the job or its end */
            warm_seen = p->warms;
            const int64_t until = p->warm_until;
            pthread_mutex_unlock(&p->lock);
            while (__atomic_load_n(&p->generation, __ATOMIC_ACQUIRE) == seen &&
                   !__atomic_load_n(&p->stopping, __ATOMIC_ACQUIRE) && rtm_os_now_ns() < until)
                sched_yield();
            pthread_mutex_lock(&p->lock);
            continue;
        }
        seen = p->generation;
        if (!p->open)
            continue; /* woken after that job ended: wait for the next */
        __atomic_add_fetch(&p->active, 1u, __ATOMIC_RELAXED);
        p->joins++;
        pthread_mutex_unlock(&p->lock);
        const uint32_t completed = work(p);
        pthread_mutex_lock(&p->lock);
        p->completed += completed;
        if (__atomic_sub_fetch(&p->active, 1u, __ATOMIC_RELEASE) == 0)
            pthread_cond_signal(&p->idle);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Joins the first n workers and destroys the synchronisation objects. */
static void shut(rtm_pool_t *p, uint32_t n)
{
    pthread_mutex_lock(&p->lock);
    __atomic_store_n(&p->stopping, true, __ATOMIC_RELEASE); /* warm spinners read it too */
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (uint32_t i = 0; i < n; i++)
        pthread_join(p->worker[i].thread, NULL);
    pthread_cond_destroy(&p->idle);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    p->started = false;
    p->n_workers = 0;
}

/* Applies affinity and priority to the started workers; one warning per kind. */
static void tune_threads(rtm_pool_t *p, int rt_priority, const int *cpus)
{
    if (cpus) {
        int err = 0;
        for (uint32_t i = 0; i < rtm_pool_spawned(p) && !err; i++) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpus[i], &set);
            err = pthread_setaffinity_np(p->worker[i].thread, sizeof(set), &set);
        }
        p->pinned = !err;
        if (err)
            fprintf(stderr, "rtmgr: warning: cannot pin CPU workers to the given CPUs (%s); "
                            "running them unpinned\n", strerror(err));
    }
    if (rt_priority > 0) {
        int err = 0;
        const struct sched_param fifo = {.sched_priority = rt_priority};
        for (uint32_t i = 0; i < rtm_pool_spawned(p) && !err; i++)
            err = pthread_setschedparam(p->worker[i].thread, SCHED_FIFO, &fifo);
        p->rt_priority = !err;
        if (err) {
            const struct sched_param other = {.sched_priority = 0};
            for (uint32_t i = 0; i < rtm_pool_spawned(p); i++)
                pthread_setschedparam(p->worker[i].thread, SCHED_OTHER, &other);
            fprintf(stderr, "rtmgr: warning: SCHED_FIFO priority %d for CPU workers not "
                            "permitted (%s; needs CAP_SYS_NICE or an rtprio limit); running "
                            "them under SCHED_OTHER\n", rt_priority, strerror(err));
        }
    }
}

rtm_status_t rtm_pool_start(rtm_pool_t *p, uint32_t threads, int rt_priority, const int *cpus)
{
    if (!p)
        return RTM_E_ARG;
    if (p->started)
        return RTM_E_STATE;
    if (threads == 0) {
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online < 1 ? 1u : online > RTM_MAX_WORKERS ? RTM_MAX_WORKERS : (uint32_t)online;
    }
    if (threads > RTM_MAX_WORKERS || rt_priority < 0 ||
        (rt_priority > 0 && rt_priority > sched_get_priority_max(SCHED_FIFO)))
        return RTM_E_RANGE;
    for (uint32_t i = 0; cpus && i < threads; i++)
        if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE)
            return RTM_E_RANGE;

    memset(p, 0, sizeof(*p));
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        return RTM_E_OS;
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        return RTM_E_OS;
    }
    if (pthread_cond_init(&p->idle, NULL) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        return RTM_E_OS;
    }
    atomic_init(&p->busy, false);
    atomic_init(&p->next, 0u);

    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) {
        shut(p, 0);
        return RTM_E_OS_THREAD;
    }
    pthread_attr_setstacksize(&attr, RTM_WORKER_STACK_BYTES);
    p->n_workers = threads; /* before the first worker reads it; the caller is the last */
    for (uint32_t i = 0; i < rtm_pool_spawned(p); i++) {
        p->worker[i] = (rtm_pool_worker_t){.pool = p, .index = i};
        const int err = pthread_create(&p->worker[i].thread, &attr, worker_main, &p->worker[i]);
        if (err != 0) {
            fprintf(stderr, "rtmgr: cannot create CPU worker %u of %u: %s\n", i, threads,
                    strerror(err));
            pthread_attr_destroy(&attr);
            shut(p, i);
            return RTM_E_OS_THREAD;
        }
    }
    pthread_attr_destroy(&attr);
    /* Every worker is in its wait loop (its thread start-up allocations done) before
     * start returns: from here on the pool allocates nothing. */
    pthread_mutex_lock(&p->lock);
    while (p->ready < rtm_pool_spawned(p))
        pthread_cond_wait(&p->idle, &p->lock);
    pthread_mutex_unlock(&p->lock);
    p->started = true;
    tune_threads(p, rt_priority, cpus);
    return RTM_OK;
}

void rtm_pool_stop(rtm_pool_t *p)
{
    if (p && p->started)
        shut(p, rtm_pool_spawned(p));
}

rtm_status_t rtm_pool_start_as_run(rtm_pool_t *p, uint32_t threads, bool rt,
                                   rtm_os_sched_t *saved)
{
    saved->changed = false;
    const bool fifo = rt && rtm_os_fifo_permitted(RTM_PRIO_POOL) &&
                      rtm_os_self_fifo(RTM_PRIO_CPU, saved);
    const rtm_status_t st = rtm_pool_start(p, threads, fifo ? RTM_PRIO_POOL : 0, NULL);
    if (st != RTM_OK)
        rtm_os_self_restore(saved);
    return st;
}

void rtm_pool_stop_as_run(rtm_pool_t *p, const rtm_os_sched_t *saved)
{
    rtm_pool_stop(p);
    rtm_os_self_restore(saved);
}

/* How long a run's caller spins for the workers still inside its launch before it
 * sleeps: they are on their last block, and a sleeping caller is one more wake-up on
 * the job's path (tens of microseconds on a VM's idle core). */
#define JOIN_SPIN_NS 100000

static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Hands one launch to the workers, runs blocks of it here too, and waits for the
 * workers that joined. Caller holds p->busy. */
static rtm_status_t dispatch(rtm_pool_t *p, const rtm_kinst_t *k, uint32_t launch,
                             const uint32_t *blocks, uint32_t n_blocks,
                             const volatile int *abort, unsigned char *done, bool skip_done,
                             rtm_pool_stats_t *st)
{
    if (launch >= k->plan.launches)
        return RTM_E_RANGE;
    rtm_klaunch_t kl;
    k->kernel->launch(k, launch, &kl);
    if (!blocks)
        n_blocks = kl.blocks;
    if (n_blocks > UINT32_MAX - RTM_MAX_WORKERS)
        return RTM_E_RANGE;
    for (uint32_t i = 0; blocks && i < n_blocks; i++)
        if (blocks[i] >= kl.blocks)
            return RTM_E_RANGE;
    const double t0 = rtm_os_now_s();
    uint32_t next = 0, completed = 0;
    if (n_blocks > 0) {
        pthread_mutex_lock(&p->lock);
        p->k = k;
        p->launch = launch;
        p->blocks = blocks;
        p->n_blocks = n_blocks;
        p->abort = abort;
        p->done = done;
        p->skip_done = skip_done && done;
        atomic_store_explicit(&p->next, 0u, memory_order_relaxed);
        p->completed = 0;
        p->active = 1; /* this thread */
        p->open = true;
        p->launches++;
        __atomic_store_n(&p->generation, p->generation + 1, __ATOMIC_RELEASE); /* warm spinners */
        pthread_mutex_unlock(&p->lock);
        pthread_cond_broadcast(&p->wake);
        /* the caller is awake already: it runs blocks from the start, while the workers
         * wake, and then waits for the ones that joined, spinning a while first */
        const uint32_t mine = work(p);
        pthread_mutex_lock(&p->lock);
        p->completed += mine;
        if (__atomic_sub_fetch(&p->active, 1u, __ATOMIC_RELEASE) > 0) {
            pthread_mutex_unlock(&p->lock);
            const int64_t until = rtm_os_now_ns() + JOIN_SPIN_NS;
            while (__atomic_load_n(&p->active, __ATOMIC_ACQUIRE) > 0 && rtm_os_now_ns() < until)
                spin_pause();
            pthread_mutex_lock(&p->lock);
            while (__atomic_load_n(&p->active, __ATOMIC_ACQUIRE) > 0)
                pthread_cond_wait(&p->idle, &p->lock);
        }
        p->open = false;
        next = atomic_load_explicit(&p->next, memory_order_relaxed);
        completed = p->completed;
        p->k = NULL;
        pthread_mutex_unlock(&p->lock);
    }
    const bool all = next >= n_blocks;
    if (st) {
        st->blocks_run += completed;
        st->launches += all;
        st->workers = p->n_workers;
        st->wall_s += rtm_os_now_s() - t0;
    }
    return all ? RTM_OK : RTM_E_ABORTED;
}

/* Takes the one-caller guard. */
static rtm_status_t enter(rtm_pool_t *p, const rtm_kinst_t *k, rtm_pool_stats_t *st)
{
    if (!p || !k || !k->kernel)
        return RTM_E_ARG;
    if (!p->started)
        return RTM_E_STATE;
    bool idle = false;
    if (!atomic_compare_exchange_strong(&p->busy, &idle, true))
        return RTM_E_STATE;
    if (st)
        memset(st, 0, sizeof(*st));
    return RTM_OK;
}

rtm_status_t rtm_pool_run(rtm_pool_t *p, const rtm_kinst_t *k, uint32_t launch,
                          const uint32_t *blocks, uint32_t n_blocks, const volatile int *abort,
                          unsigned char *done, rtm_pool_stats_t *st)
{
    rtm_status_t s = enter(p, k, st);
    if (s != RTM_OK)
        return s;
    s = dispatch(p, k, launch, blocks, n_blocks, abort, done, false, st);
    atomic_store(&p->busy, false);
    return s;
}

rtm_status_t rtm_pool_run_job(rtm_pool_t *p, const rtm_kinst_t *k, uint32_t *launch,
                              unsigned char *done, const volatile int *abort,
                              rtm_pool_stats_t *st)
{
    if (!launch)
        return RTM_E_ARG;
    rtm_status_t s = enter(p, k, st);
    if (s != RTM_OK)
        return s;
    while (*launch < k->plan.launches) {
        s = dispatch(p, k, *launch, NULL, 0, abort, done, true, st);
        if (s != RTM_OK)
            break;
        if (++*launch < k->plan.launches && done)
            memset(done, 0, k->plan.blocks_max);
    }
    atomic_store(&p->busy, false);
    return s;
}

void rtm_pool_warm(rtm_pool_t *p, int64_t until_ns)
{
    if (!p->started)
        return;
    pthread_mutex_lock(&p->lock);
    p->warms++;
    p->warm_until = until_ns;
    pthread_mutex_unlock(&p->lock);
    pthread_cond_broadcast(&p->wake);
}

void rtm_pool_idle_until(rtm_pool_t *p, int64_t due_ns, int64_t warm_ns)
{
    rtm_os_sleep_until(due_ns - warm_ns);
    if (warm_ns > 0)
        rtm_pool_warm(p, due_ns + warm_ns);
    rtm_os_yield_until(due_ns);
}

void rtm_pool_joins(rtm_pool_t *p, uint64_t *launches, uint64_t *joins)
{
    pthread_mutex_lock(&p->lock);
    *launches = p->launches;
    *joins = p->joins;
    pthread_mutex_unlock(&p->lock);
}
