/* pool.h — the CPU worker pool: a static set of threads that run the CPU twins of the
 * kernels, block by block (seed 000 FAN: the master hands out independent iterations,
 * the workers compute, the master waits for all).
 *
 * Lifecycle: rtm_pool_start() creates the threads (init); rtm_pool_run() /
 * rtm_pool_run_job() hand them work (real-time path: no allocation, no file I/O, no
 * system call but the futex under the mutex and condition variables, and
 * clock_gettime); rtm_pool_stop() joins them (shutdown). All storage is inside
 * rtm_pool_t, which may be static.
 *
 * One job at a time: the pool runs one launch of one kernel instance at a time; the
 * executive serialises the jobs it gives the CPU. A run may be started from any thread,
 * but while one is in progress a second caller gets RTM_E_STATE at once (it never
 * waits and never interleaves).
 *
 * Blocks are handed out dynamically: each of the run's threads — the caller of the run
 * and the worker threads — takes the next index from an atomic counter, runs that block
 * with the kernel's cpu_block(), marks it done, and takes the next, until none is left
 * or the abort flag is seen (checked before every block). The caller then waits for
 * the workers that joined (spinning up to 100 us, then on a condition variable); idle
 * workers sleep on another. A worker that the host has not run by the time every block
 * is handed out does not join that job: the job ends with the threads that were awake,
 * rather than after the last one's wake-up (H100 host, running system: a 0.1 ms CPU job
 * took about twice its prediction while it waited for 15 wake-ups and its caller's).
 * A block is never run twice by one call. */
#ifndef RTM_POOL_H
#define RTM_POOL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"
#include "limits.h"
#include "os.h"
#include "status.h"

/* What one run did. */
typedef struct {
    uint32_t blocks_run; /* blocks completed by this call */
    uint32_t launches;   /* launches completed (rtm_pool_run_job; 0 or 1 for rtm_pool_run) */
    uint32_t workers;    /* worker threads of the pool */
    double wall_s;       /* monotonic clock, hand-out to the last joined worker's stop */
} rtm_pool_stats_t;

typedef struct rtm_pool rtm_pool_t;

/* One worker's slot. */
typedef struct {
    rtm_pool_t *pool;
    pthread_t thread;
    uint32_t index;
} rtm_pool_worker_t;

/* The pool. Treat as opaque: fields are here only so the struct can be static. */
/* Cache-line aligned (64 bytes; a container on the heap must honour it: the manager
 * takes aligned_alloc), so that every pool — calibration's, validation's, the
 * runtime's — has one layout over cache lines and times the same. */
struct rtm_pool {
    alignas(64) pthread_mutex_t lock;
    pthread_cond_t wake;      /* workers: a new job or stop */
    pthread_cond_t idle;      /* caller: the last worker inside finished the job */
    uint64_t generation;      /* bumped per job, under lock */
    uint32_t active;          /* threads inside the current job: written under lock */
    bool open;                /* the current job takes workers, under lock */
    uint64_t launches, joins; /* launches posted, workers that took part: under lock */
    uint64_t warms;           /* rtm_pool_warm calls: a sleeping worker wakes to spin */
    int64_t warm_until;       /* the latest warm-up's end (monotonic ns), under lock */
    uint32_t ready;           /* worker threads that reached their wait loop, under lock */
    bool stopping;            /* under lock */
    bool started;
    atomic_bool busy;         /* a run is in progress (one caller at a time) */
    uint32_t n_workers;       /* threads that run blocks: the caller and the worker threads */
    bool rt_priority;         /* SCHED_FIFO in effect */
    bool pinned;              /* CPU affinity in effect */

    /* The current job, written by the caller before the wake-up, read-only after. */
    const rtm_kinst_t *k;
    uint32_t launch;
    const uint32_t *blocks;   /* NULL = 0..n_blocks-1 */
    uint32_t n_blocks;
    const volatile int *abort;
    unsigned char *done;
    bool skip_done;           /* skip blocks whose done[] is already 1 */
    uint32_t completed;       /* blocks completed in this job, summed under lock */

    /* The one counter every worker writes for every block, alone on its cache line
     * (the workers' slots start on the next one): sharing a line with the job fields
     * above and with a `completed` counter, at an offset that moved with the pool's
     * address, made a block's hand-out and a launch's join cost depend on where the
     * pool happened to lie in memory; calibration's pool and validation's are different
     * objects, and the CPU model's cw and dispatch came out 20-40 % off in either
     * direction from one build to the next (H100 host: empty +25..37 %, H200: -34..-39 %). */
    alignas(64) atomic_uint next; /* next index to hand out */

    alignas(64) rtm_pool_worker_t worker[RTM_MAX_WORKERS];
};

/* Starts a pool of `threads` threads that run blocks (0 = online CPUs; at most
 * RTM_MAX_WORKERS, more is RTM_E_RANGE): threads - 1 worker threads, and each run's
 * caller. rt_priority > 0 asks SCHED_FIFO for the workers at that priority; cpus (may
 * be NULL) pins worker thread i to CPU cpus[i]. Where the priority or affinity is not permitted, one
 * warning is printed and the workers run without it (p->rt_priority / p->pinned tell).
 * Returns once every worker waits for work. RTM_E_STATE if already started,
 * RTM_E_OS_THREAD if a thread cannot be created. Init only. */
rtm_status_t rtm_pool_start(rtm_pool_t *p, uint32_t threads, int rt_priority, const int *cpus);

/* Starts p as `rtmgr run` schedules its pool, for measurements of it (calibration,
 * validation, `bench pool --rt`): with rt, where SCHED_FIFO is permitted, the workers at
 * RTM_PRIO_POOL and the calling thread — the runs' caller, as the CPU device's
 * dispatcher is in the running system — at RTM_PRIO_CPU; saved keeps the caller's policy
 * for rtm_pool_stop_as_run. Where refused, or without rt, both keep the caller's policy
 * (p->rt_priority tells). Returns rtm_pool_start's status. Init only. */
rtm_status_t rtm_pool_start_as_run(rtm_pool_t *p, uint32_t threads, bool rt,
                                   rtm_os_sched_t *saved);
/* Stops p and gives the calling thread back the policy rtm_pool_start_as_run found. */
void rtm_pool_stop_as_run(rtm_pool_t *p, const rtm_os_sched_t *saved);

/* Runs blocks of launch `launch` of k on the workers and waits. blocks lists the block
 * ids to run (NULL = every block 0..launch.blocks-1, and n_blocks is ignored). abort
 * (may be NULL) is read before each block; done (may be NULL) gets done[block] = 1
 * after each completed block; st (may be NULL) gets the statistics. Returns RTM_OK
 * when every block ran, RTM_E_ABORTED when the flag stopped it (done[] tells which
 * blocks completed; each completed block ran exactly once), RTM_E_STATE when the pool
 * is not started or another run is in progress, RTM_E_RANGE for a block id out of
 * range. Real-time safe. */
rtm_status_t rtm_pool_run(rtm_pool_t *p, const rtm_kinst_t *k, uint32_t launch,
                          const uint32_t *blocks, uint32_t n_blocks, const volatile int *abort,
                          unsigned char *done, rtm_pool_stats_t *st);

/* Runs a whole job of k from launch *launch on (0 for a fresh job), each launch after
 * the previous one finished (barrier). done (may be NULL; else plan.blocks_max bytes)
 * holds the completed blocks of launch *launch: blocks already marked are skipped, so
 * a job aborted here — or on an OpenCL device, with the device's completed-block array
 * copied into done — resumes without re-running a completed block. Between launches
 * done is cleared. On RTM_E_ABORTED, *launch is the interrupted launch and done its
 * completed blocks; on RTM_OK, *launch = plan.launches. Real-time safe. */
rtm_status_t rtm_pool_run_job(rtm_pool_t *p, const rtm_kinst_t *k, uint32_t *launch,
                              unsigned char *done, const volatile int *abort,
                              rtm_pool_stats_t *st);

/* Wakes the workers ahead of a job that is due: each spins, yielding its CPU at every
 * turn, until a job is posted (it joins at once: no wake-up on the job's path) or until
 * monotonic time until_ns, then sleeps again. The executive's CPU dispatcher calls it as
 * it spins ahead of a hard or firm release (exec.h spin_lead_ns): on the H100 host, a CPU job of
 * 0.1 ms took 20-30 us more after the pool slept than back to back (session 70). Any
 * thread; real-time safe (the lock and one broadcast). */
void rtm_pool_warm(rtm_pool_t *p, int64_t until_ns);
/* The caller's side of it for measurements (calibration's cw_warm, `bench pool
 * --spin-us`): sleeps until monotonic time due_ns, its last warm_ns spinning (yielding)
 * with p's workers warmed to warm_ns past due_ns, as the executive's CPU dispatcher ahead
 * of a hard or firm release; warm_ns 0: sleeps. */
void rtm_pool_idle_until(rtm_pool_t *p, int64_t due_ns, int64_t warm_ns);

/* The pool's launches so far and the worker threads that took part in them, summed (the
 * callers not counted): a launch ends without a worker that had not woken by the time
 * its blocks were handed out, so joins / launches below rtm_pool_spawned says how many came
 * too late for the jobs' blocks. Any thread. */
void rtm_pool_joins(rtm_pool_t *p, uint64_t *launches, uint64_t *joins);
/* The pool's worker threads: n_workers less the run's caller (0 when not started). */
static inline uint32_t rtm_pool_spawned(const rtm_pool_t *p)
{
    return p->n_workers ? p->n_workers - 1 : 0;
}
/* Stops and joins the workers. Safe on a pool never started or already stopped; must
 * not be called while a run is in progress. Shutdown only. */
void rtm_pool_stop(rtm_pool_t *p);

#endif
