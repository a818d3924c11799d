/* cpubench.h — the C micro-kernels that measure the CPU parameters of seed 000 eq. 1:
 * operation time per data-locality class, pipeline depth, the cost of passing a datum
 * between threads, of a barrier round, of a clock read, and memory bandwidth.
 *
 * Each call is one timed sample (calibration repeats it and keeps the median). The
 * kernels are written so that the compiler cannot drop or fold their work: inputs come
 * from volatile objects, results go to a volatile sink, floating-point chains cannot be
 * reassociated (no -ffast-math). Multi-threaded samples start every thread at one
 * barrier and time each thread on its own; the sample is the median over threads.
 *
 * Init-time tooling: allocates and starts threads. Not for the real-time path. */
#ifndef RTM_CPUBENCH_H
#define RTM_CPUBENCH_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* What one sample measures. Times are seconds per operation. */
typedef enum {
    RTM_CPUBENCH_CHAIN,   /* dependent float multiply-add chain: one op = mul or add */
    RTM_CPUBENCH_INDEP,   /* eight independent chains of the same ops */
    RTM_CPUBENCH_UNIT,    /* unit-stride float reads, summed: one op = one element */
    RTM_CPUBENCH_STRIDED, /* column walk of a row-major float matrix (rows of 1040):
                           * one op = one element, each on another cache line */
    RTM_CPUBENCH_COPY,    /* b[i] = a[i] over large arrays: result in bytes per second,
                           * read + written, summed over the threads */
    RTM_CPUBENCH_KIND_COUNT
} rtm_cpubench_kind_t;

/* Runs `kind` on `threads` threads at once (1..RTM_MAX_WORKERS), each on its own
 * `bytes` of memory (memory kinds; ignored by CHAIN and INDEP) doing about `ops`
 * operations, and writes the median over threads of seconds per operation (COPY: the
 * total bytes per second) to *out. RTM_E_ARG, RTM_E_NOMEM, RTM_E_OS_THREAD. */
rtm_status_t rtm_cpubench_run(rtm_cpubench_kind_t kind, uint32_t threads, size_t bytes,
                              uint64_t ops, double *out);

/* One-way time of passing one datum between two threads: cache-line ping-pong, about
 * `rounds` round trips in batches of 64, the fastest batch's time per trip halved (a
 * batch in which a thread lost its core measures the scheduler, not the hand-over; the
 * run stops early once it has taken 50 ms + 1 us per round). */
rtm_status_t rtm_cpubench_pingpong(uint64_t rounds, double *one_way_s);

/* Time of one barrier round (pthread_barrier_wait) of `threads` threads, over
 * `rounds` rounds. */
rtm_status_t rtm_cpubench_barrier(uint32_t threads, uint64_t rounds, double *round_s);

/* Time of one measurement's initialisation and close: a pair of
 * clock_gettime(CLOCK_MONOTONIC) reads, averaged over `pairs` pairs. */
double rtm_cpubench_clock(uint64_t pairs);

/* Name of a kind ("chain", "indep", …). */
const char *rtm_cpubench_name(rtm_cpubench_kind_t kind);

#endif
