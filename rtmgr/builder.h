/* builder.h — calibration's build workers: processes (`rtmgr calibrate --prebuild-worker
 * DEV --cache DIR`) that compile kernel programs into the binary cache in parallel, so
 * that calibration's measurements load them instead of compiling them on the path.
 *
 * Drivers serialise their compiler within a process (PoCL's LLVM work takes one lock;
 * NVIDIA's compiler too), not across processes; hence processes, not threads. A worker
 * costs a start (discovery, the device opened: an NVIDIA worker opens a CUDA context,
 * 0.3-2.1 s), so one set of workers serves a device's whole calibration: started at its
 * first batch, kept (blocked on a read, idle) until rtm_builder_stop. Every later batch
 * (a sweep's candidates, a kernel's later points, the poll search's periods) costs no
 * start.
 *
 * Workers are `rtmgr calibrate --prebuild-worker DEV --cache DIR --ack-fd 3 [--idle]`.
 *
 * Protocol: one request pipe shared by all workers, one RTM_BUILD_RECORD-byte record per
 * job (writes of up to PIPE_BUF bytes are atomic, so every read gets one whole record and
 * a worker takes the next when it is free); a second, urgent one (the worker's
 * descriptor ack + 1), whose records a free worker takes before the first's; one
 * acknowledgement pipe, one byte per job done (RTM_BUILD_ACK_OK or _FAIL, an urgent
 * job's RTM_BUILD_ACK_URGENT_OK or _FAIL). A worker exits at the request pipe's end.
 *
 * Nothing here runs on the real-time path. */
#ifndef RTM_BUILDER_H
#define RTM_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel.h"
#include "kexec.h"
#include "status.h"

#define RTM_BUILD_RECORD 256
#define RTM_BUILDER_MAX 32
#define RTM_BUILD_ACK_OK 'o'
#define RTM_BUILD_ACK_FAIL 'x'
#define RTM_BUILD_ACK_URGENT_OK 'O'
#define RTM_BUILD_ACK_URGENT_FAIL 'X'
/* A worker's exit status when it ended before taking a job (no device, or the device
 * would not open): the others go on. Any other failure may have taken one. */
#define RTM_BUILD_EXIT_NO_DEVICE 69

/* One program to build: a planned instance (kernel, tuning, sizes) and the kexec options
 * that change its program (the rest come from the builder's device and cache). */
typedef struct {
    rtm_kinst_t k;
    rtm_kexec_variant_t variant;
    rtm_abort_transport_t transport;
    uint32_t poll_every;
    bool no_poll;
    uint32_t groups; /* rtm_kexec_opts_t.groups (0 auto; RTM_KEXEC_GROUPS_ALL: a plain
                      * grid, the executive's for long blocks) */
    bool fetch_store; /* rtm_kexec_opts_t.fetch_store (long blocks' persistent fetch:
                       * rtm_preempt_grid_for_block) */
    uint32_t chunk;   /* rtm_kexec_opts_t.chunk (longer blocks' chunks: a plain grid) */
} rtm_build_job_t;

/* A job's kexec options with the program cache `cache` (transport_set). */
rtm_kexec_opts_t rtm_build_job_opts(const rtm_build_job_t *j, const char *cache);
/* Sets j's program options (variant, transport, polls, groups, fetch_store, chunk) from kexec
 * options o. */
void rtm_build_job_set_opts(rtm_build_job_t *j, const rtm_kexec_opts_t *o);

/* The record of j: "KERNEL WG VEC VARIANT TRANSPORT POLL NOPOLL GROUPS FETCH CHUNK
 * KEY...\n",
 * NUL-padded.
 * False when it does not fit. */
bool rtm_build_record(const rtm_build_job_t *j, char rec[RTM_BUILD_RECORD]);
/* The job of a record (NUL-terminated, modified); false when it names no kernel, is
 * malformed, or does not plan. */
bool rtm_build_parse(char *rec, rtm_build_job_t *j);

typedef struct {
    pid_t pid[RTM_BUILDER_MAX];
    uint32_t n;       /* workers started and not yet reaped */
    uint32_t failed;  /* workers that exited with an error or by a signal */
    uint32_t pending; /* jobs sent and not yet acknowledged (rtm_builder_send) */
    uint32_t urgent_pending; /* of them, rtm_builder_send_urgent's */
    int req, urg, ack; /* request pipes' write ends, acknowledgement pipe's read end; -1 */
    bool broken;      /* none started, or one died: no more batches (the caller builds) */
    double start_s;   /* rtm_os_now_s() at rtm_builder_start */
    double first_ack_s; /* seconds from the start to the first acknowledgement; 0: none yet
                         * (what the workers' start cost the first batch: discovery and
                         * the device opened, an NVIDIA worker's CUDA context) */
} rtm_builder_t;

void rtm_builder_init(rtm_builder_t *b);
bool rtm_builder_up(const rtm_builder_t *b);

/* Starts up to `np` workers of executable `exe` (an rtmgr; NULL: this process's own) for
 * discovery index `device` with binary cache `cache`, as from a shell (default signal
 * actions, none blocked, rtm_os_initial_environ). With `idle` (`--idle`), each worker
 * lowers itself to SCHED_IDLE before it opens its device: they take only what the
 * host's other threads leave (builds in the background of another device's
 * measurements); where the policy is refused a worker goes on as usual. Returns the
 * number started; 0 leaves b broken. */
uint32_t rtm_builder_start(rtm_builder_t *b, const char *exe, int device, const char *cache,
                           uint32_t np, bool idle);

/* Queues jobs[0..n) without waiting (rtm_builder_wait collects them); returns how many
 * were queued (b->pending grows by it). Blocks only while the request pipe is full (its
 * size is raised to RTM_BUILDER_QUEUE records where the kernel allows). */
#define RTM_BUILDER_QUEUE 1024
uint32_t rtm_builder_send(rtm_builder_t *b, const rtm_build_job_t *const *jobs, uint32_t n);
/* The same on the urgent pipe: the next free worker takes these before any job queued by
 * rtm_builder_send (a kernel's programs needed now, behind a long batch for later
 * kernels); rtm_builder_wait_urgent waits for them alone. */
uint32_t rtm_builder_send_urgent(rtm_builder_t *b, const rtm_build_job_t *const *jobs,
                                 uint32_t n);
/* Waits for the acknowledgements of the urgent jobs out (the others' read on the way);
 * returns how many of all the acknowledgements it read were builds. */
uint32_t rtm_builder_wait_urgent(rtm_builder_t *b);

/* Waits for the acknowledgements of every job queued; returns how many of those it read
 * built (RTM_BUILD_ACK_OK; rtm_builder_poll's reads not counted). A worker that dies
 * meanwhile stops the builder (broken): what it took is unbuilt, and the caller builds
 * what the cache still lacks. */
uint32_t rtm_builder_wait(rtm_builder_t *b);

/* Reads the acknowledgements that have come, waiting up to `ms` milliseconds for some
 * (a worker's death handled as rtm_builder_wait does); returns the jobs still out. A
 * caller waiting for particular programs checks the cache between calls. */
uint32_t rtm_builder_poll(rtm_builder_t *b, int ms);

/* rtm_builder_send_urgent, then rtm_builder_wait_urgent: a batch the caller waits for
 * goes ahead of any queued one and is waited for alone (the H100: cpa_pairs' three points
 * after its sweep changed the work-group had waited 5.7 s behind the catalogue's batch
 * for later kernels); with nothing else queued, a send and a wait for every job. */
uint32_t rtm_builder_batch(rtm_builder_t *b, const rtm_build_job_t *const *jobs, uint32_t n);

/* CPU seconds (user + system) the live workers have used so far (/proc; 0 where it
 * cannot be read): their share of the host's load while they are not yet reaped. */
double rtm_builder_cpu_s(const rtm_builder_t *b);

/* Ends the workers (the request pipe closed: each exits when idle) and reaps them. */
void rtm_builder_stop(rtm_builder_t *b);

/* A worker's loop: reads records from in_fd until its end, those of urgent_fd (-1: none)
 * first when both have some, runs build() on each job, acknowledges each on ack_fd
 * (every record, parsed or not). */
void rtm_builder_serve(int in_fd, int urgent_fd, int ack_fd,
                       bool (*build)(void *ctx, rtm_build_job_t *j), void *ctx);

#endif
