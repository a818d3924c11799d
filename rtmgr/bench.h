/* bench.h — the sub-benchmarks of `rtmgr bench` and the helpers they share.
 *
 * A sub-benchmark is `int rtm_bench_<name>(int argc, char **argv)` (argv[0] is its
 * name) returning an RTM_EXIT_* code; cmd_bench.c lists them in its table. Benchmarks
 * are tools, not the real-time path: they allocate freely. They never fail on speed,
 * only on wrong results or broken runs. Time samples are summarised with stats.h. */
#ifndef RTM_BENCH_H
#define RTM_BENCH_H

#include <stddef.h>
#include <stdio.h>

#include "kernel.h"

/* `rtmgr bench kernels`: per kernel and size, transfer and kernel times on OpenCL,
 * effective and measured memory bandwidth, the CPU twin on the worker pool, and a
 * check of every device result against the twin (bench_kernels.c). */
int rtm_bench_kernels(int argc, char **argv);

/* `rtmgr bench placement`: the placement policies at rising load in virtual time (the
 * real placement and EDF code), the executive's release jitter on this machine, and with
 * --real the whole manager under each policy (bench_placement.c, docs/run.md). */
int rtm_bench_placement(int argc, char **argv);

/* `rtmgr bench preempt`: seed 002's tables on one device: abort response, overheads of
 * the check, the completed-block array and the poll, resumed vs uninterrupted jobs
 * (bench_preempt.c, docs/preempt.md). */
int rtm_bench_preempt(int argc, char **argv);

/* `rtmgr bench pool`: the CPU worker pool's cost around a launch, back to back and after
 * it slept, with its workers and on the caller alone (bench_pool.c, docs/runtime.md). */
int rtm_bench_pool(int argc, char **argv);

/* Monotonic clock, seconds. */
double rtm_bench_now(void);

/* Writes s as a JSON string literal (quotes and escapes included). */
void rtm_bench_json_string(FILE *f, const char *s);

/* Applies "key=value,key=value" to k->size: the keys set as a mask (bit i: k->size[i]),
 * or -1 with the reason in why (len bytes) when a key is not k's or a value no integer. */
int rtm_bench_apply_sizes(rtm_kinst_t *k, const char *spec, char *why, size_t len);

#endif
