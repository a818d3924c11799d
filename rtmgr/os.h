/* os.h — the thin operating-system layer of rtmgr: monotonic time, absolute sleeps,
 * threads with explicit real-time settings, priority-inheriting mutexes, condition
 * variables on CLOCK_MONOTONIC, and page locking.
 *
 * Real-time settings (SCHED_FIFO, CPU affinity, mlockall) are requested explicitly and
 * degrade: a thread that may not run SCHED_FIFO runs SCHED_OTHER instead and the
 * refusal is remembered, so the caller prints ONE warning (rtm_os_rt_warning). */
#ifndef RTM_OS_H
#define RTM_OS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "status.h"

/* CLOCK_MONOTONIC in nanoseconds. Real-time safe. */
int64_t rtm_os_now_ns(void);

/* CPU time the whole process has used (every thread, user and system), nanoseconds
 * (CLOCK_PROCESS_CPUTIME_ID); 0 where the clock is not available. */
int64_t rtm_os_cpu_time_ns(void);

/* Sleeps until absolute CLOCK_MONOTONIC time t_ns (clock_nanosleep TIMER_ABSTIME),
 * resuming after signals. Returns at once when t_ns is past. Real-time safe. */
void rtm_os_sleep_until(int64_t t_ns);
/* CLOCK_MONOTONIC in seconds (measurement code: benchmarks, calibration). */
double rtm_os_now_s(void);
/* Waits until monotonic time t (seconds) precisely: sleeps to RTM_OS_SPIN_S before it,
 * then spins (an abort raised at a chosen instant, a benchmark's sample point). */
#define RTM_OS_SPIN_S 200e-6
void rtm_os_sleep_until_s(double t);
/* Same, spinning for the last `spin_s` seconds (a thread and its CPU awake that long
 * before the instant). */
void rtm_os_sleep_spin_until_s(double t, double spin_s);
/* Spins until monotonic time t_ns, yielding the CPU at every turn (a thread awake on its
 * core without holding it from the threads queued there). Returns at once when t_ns is
 * past. */
void rtm_os_yield_until(int64_t t_ns);

typedef struct {
    pthread_t th;
    bool started;
    bool fifo; /* runs SCHED_FIFO */
} rtm_os_thread_t;

/* Starts `fn(arg)` on a new thread. prio > 0 asks for SCHED_FIFO at that priority
 * (1..99); when refused the thread inherits the caller's policy (SCHED_OTHER, or the
 * SCHED_FIFO a service manager started rtmgr with) and rtm_os_rt_warning() says which. cpu >= 0 pins it to that CPU when permitted (ignored when the CPU is absent).
 * `name` (<= 15 chars shown) labels it for ps/top. Init only (pthread_create). */
rtm_status_t rtm_os_thread_start(rtm_os_thread_t *t, const char *name, int prio, int cpu,
                                 void *(*fn)(void *), void *arg);
/* Makes the calling thread's timed sleeps as precise as the kernel allows (timer slack
 * 1 ns instead of the default 50 us). Call at the top of a periodic thread. */
void rtm_os_precise_sleeps(void);
/* True when a thread may run SCHED_FIFO at `prio` here (tries one short-lived thread;
 * a refusal is remembered for rtm_os_rt_warning). Init only. */
bool rtm_os_fifo_permitted(int prio);
/* Joins a started thread; no-op otherwise. */
void rtm_os_thread_join(rtm_os_thread_t *t);

/* Reads the whole file at path into a malloc'd buffer with a NUL after its last byte;
 * *len (may be NULL) gets its length. NULL with errno set when it cannot be opened or
 * read (EIO), or is larger than max bytes (EFBIG; max 0 = no limit). Not on the
 * real-time path. */
char *rtm_os_read_file(const char *path, size_t max, size_t *len);

/* rtmgr's SCHED_FIFO priorities, where permitted: the release thread, the dispatchers of
 * GPU and CPU devices (the CPU's is the caller of every pool run), the CPU pool's
 * workers. Calibration, validation and `bench pool --rt` run the pool under the same,
 * so that the CPU model is measured as the running system schedules it. */
enum { RTM_PRIO_RELEASE = 80, RTM_PRIO_GPU = 70, RTM_PRIO_CPU = 60, RTM_PRIO_POOL = 50 };

/* The calling thread's scheduling policy, saved by rtm_os_self_fifo. */
typedef struct {
    int policy;
    int prio;
    bool changed;
} rtm_os_sched_t;
/* Puts the calling thread under SCHED_FIFO at `prio` when permitted (saved gets what to
 * restore); false, and nothing changed, when refused. Not on the real-time path. */
bool rtm_os_self_fifo(int prio, rtm_os_sched_t *saved);
/* Restores what rtm_os_self_fifo changed (no-op when it changed nothing). */
void rtm_os_self_restore(const rtm_os_sched_t *saved);

/* mlockall(MCL_CURRENT | MCL_FUTURE). RTM_E_OS_PERM when refused (remembered for the
 * warning). Init only. */
rtm_status_t rtm_os_lock_memory(void);

/* Keeps every CPU out of power states whose wake-up takes longer than `us`
 * microseconds while rtmgr runs (the kernel's PM QoS request: /dev/cpu_dma_latency
 * held open with the value written, as cyclictest does). A deep C-state's exit costs
 * tens of microseconds: on the H100 machine the host noticed an aborted kernel's end
 * 20 us after it at 1 ms kernels and 50-66 us after it at 100 ms - 1 s kernels, the
 * longer the idle the deeper the sleep. RTM_E_OS_PERM when refused (remembered for the
 * warning; not root or no such device). A second call replaces the value. Init only.
 * Where the kernel has no cpuidle driver (the H100 machine's guest) this changes
 * nothing; keeping the CPUs out of idle by other means was measured there and made the
 * notice worse: a SCHED_IDLE spinner per CPU took response p99 from 127 us to 3.8 ms
 * (CFS still gives it slices of a busy-polling SCHED_OTHER thread's CPU), a 20 us
 * ticker per CPU to 1.8 ms (docs/preempt.md). */
rtm_status_t rtm_os_hold_cpu_latency(int32_t us);
/* rtm_os_hold_cpu_latency(us) unless this process holds a value already: true when
 * this call took the hold (give it back with rtm_os_release_cpu_latency), false when
 * one was held or the request was refused. For a measurement's scope (calibration,
 * validation, benchmarks), as `rtmgr run` holds it. */
bool rtm_os_hold_cpu_latency_if_free(int32_t us);
/* Drops the request (closes the file). Shutdown only. */
void rtm_os_release_cpu_latency(void);
/* The value held, or -1 when none. */
int32_t rtm_os_cpu_latency_held(void);

/* Prints one line to `f` when any real-time request was refused since start-up and
 * returns true; prints nothing and returns false otherwise. Init and shutdown only. */
bool rtm_os_rt_warning(FILE *f);

/* Forgets earlier refusals (tests). */
void rtm_os_rt_reset(void);

/* Online CPUs. */
int rtm_os_cpu_count(void);

/* The CPU's model name ("model name" of /proc/cpuinfo, e.g. "AMD EPYC"; on CPUs that
 * give none, "Hardware" or "CPU implementer/part") into buf, spaces collapsed; false
 * (buf "") where it cannot be read. Init only. */
bool rtm_os_cpu_name(char *buf, size_t len);

/* The machine's CPU time since boot, summed over its CPUs (/proc/stat's first line), in
 * seconds: busy (user, nice, system, irq, softirq), idle (idle, iowait) and stolen (time
 * the hypervisor ran something else while a CPU of this machine wanted to run). Two
 * readings tell how contended the machine was between them. False where unreadable. */
typedef struct {
    double busy_s, idle_s, steal_s;
} rtm_os_cpu_times_t;
bool rtm_os_cpu_times(rtm_os_cpu_times_t *t);

/* Keeps a copy of the environment this process started with (call first thing in
 * main): drivers set variables in their process as they start (PoCL sets
 * HWLOC_PLUGINS_PATH=/dev/null) or edit them in place (the ICD loader cuts
 * OCL_ICD_FILENAMES at its colons), and a process rtmgr spawns should start from what
 * the user gave. rtm_os_initial_environ() returns it (the current environ before the
 * call, or when the environment had more than RTM_OS_ENV_MAX entries or
 * RTM_OS_ENV_BYTES of text). */
#define RTM_OS_ENV_MAX 1024
#define RTM_OS_ENV_BYTES (128u * 1024u)
void rtm_os_keep_environ(void);
char **rtm_os_initial_environ(void);

/* CPU time this process used (every thread) plus that of its children it has waited for,
 * in seconds (getrusage). With rtm_os_cpu_times: what other processes used. */
double rtm_os_self_cpu_s(void);
/* The calling thread (and the threads it creates after) under SCHED_IDLE: it runs only
 * on what the host's other threads leave. False where refused. */
bool rtm_os_sched_idle(void);

/* CPU seconds (user + system) process `pid` has used so far, from /proc/PID/stat; 0
 * where it cannot be read. */
double rtm_os_proc_cpu_s(pid_t pid);

/* Closes every open descriptor numbered `from` or above (a spawned process's inheritance:
 * device files its parent's drivers opened without O_CLOEXEC). Returns how many it
 * closed, -1 when the list of descriptors cannot be read. */
int rtm_os_close_inherited(int from);

/* The signals (1..63) whose disposition is SIG_IGN here, bit s for signal s: what a
 * spawned process inherits unless its spawn resets them. */
uint64_t rtm_os_ignored_signals(void);

/* What a process inherits across exec besides its environment and descriptors, in
 * words ("stack 8MiB, as -, nofile 20000, memlock -, personality 0x0, policy 0, nice 0,
 * cpus 16, ignored signals 0x0"; "-" = unlimited): to tell a spawned process's
 * circumstances from a shell-started one's. Always NUL-terminated. */
void rtm_os_describe_process(char *buf, size_t len);

/* A mutex with priority inheritance (falls back to a plain one where unsupported). */
rtm_status_t rtm_os_mutex_init(pthread_mutex_t *m);
/* A condition variable whose timed waits use CLOCK_MONOTONIC. */
rtm_status_t rtm_os_cond_init(pthread_cond_t *c);
/* Waits on c until signalled or until absolute CLOCK_MONOTONIC t_ns (t_ns < 0: no
 * timeout). Returns true on timeout. Real-time safe. */
bool rtm_os_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, int64_t t_ns);

#endif
