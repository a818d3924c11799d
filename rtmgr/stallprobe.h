/* stallprobe.h — the machine's own stalls, measured beside rtmgr.
 *
 * One thread per CPU (up to RTM_STALLPROBE_CPUS), pinned to it and SCHED_FIFO 99 where
 * permitted (above every rtmgr thread), wakes every millisecond at absolute times. A
 * wake-up RTM_STALLPROBE_MIN_NS or more late records [due, woke) as a stall of that
 * CPU: time in which the machine ran nothing of this highest-priority thread there, a
 * hypervisor's steal, firmware, or whatever the kernel put first. A job that was late
 * by L while some CPU stalled for at least L inside its window would have been on time
 * on a machine that did not stall: the HIL harness and the real-time tests tell such
 * misses, the machine's, from rtmgr's own.
 *
 * A measuring tool for tests and harnesses: start allocates (init only). */
#ifndef RTMGR_STALLPROBE_H
#define RTMGR_STALLPROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "status.h"

#define RTM_STALLPROBE_CPUS 64
/* A wake-up this late is a stall: above a SCHED_FIFO 99 thread's wake-up latency on an
 * idle VM (under 0.1 ms here), below the smallest lateness a test bounds (2 ms). */
#define RTM_STALLPROBE_MIN_NS 1000000LL

typedef struct rtm_stallprobe rtm_stallprobe_t;

typedef struct {
    int cpus;         /* probe threads that ran */
    int fifo;         /* of them, SCHED_FIFO */
    uint64_t stalls;  /* stalls seen, all CPUs */
    int64_t total_ns; /* their sum */
    int64_t longest_ns; /* the latest wake-up, stall or not */
} rtm_stallprobe_summary_t;

/* Starts the probe threads; *p is NULL on failure (RTM_E_NOMEM). */
rtm_status_t rtm_stallprobe_start(rtm_stallprobe_t **p);
/* Stops and joins them; the records stay for the queries below. NULL: no-op. */
void rtm_stallprobe_stop(rtm_stallprobe_t *p);
/* The longest total any one CPU stalled within [from_ns, to_ns] (CLOCK_MONOTONIC), and
 * which CPU (-1 when none; cpu may be NULL). After stop, or racy. 0 for NULL. */
int64_t rtm_stallprobe_stalled(const rtm_stallprobe_t *p, int64_t from_ns, int64_t to_ns,
                               int *cpu);
/* Whether the machine's stalls explain a lateness of late_ns in [from_ns, to_ns]. */
bool rtm_stallprobe_explains(const rtm_stallprobe_t *p, int64_t from_ns, int64_t to_ns,
                             int64_t late_ns);
/* The largest share of [from_ns, to_ns] that one CPU stalled, 0..1 (0 for NULL). */
double rtm_stallprobe_share(const rtm_stallprobe_t *p, int64_t from_ns, int64_t to_ns);
void rtm_stallprobe_summary(const rtm_stallprobe_t *p, rtm_stallprobe_summary_t *s);
/* One line: "stall probe on N CPUs (SCHED_FIFO 99): ..." with `indent` before it. */
void rtm_stallprobe_print(const rtm_stallprobe_t *p, const char *indent);
/* Stops (if running) and frees. NULL: no-op. */
void rtm_stallprobe_free(rtm_stallprobe_t *p);

#endif
