/* input.h — the NMEA 0183 input thread: AIS and own-ship sentences from a UDP port, a
 * TCP server or a recorded file, through the lexer (nmea.h) and the AIS assembler
 * (ais.h) into the target table (targets.h), whose pictures jobs read.
 *
 * Sources (cfg->input.kind of the task set):
 *   UDP   binds host:port (127.0.0.1:10110 by default) and reads datagrams;
 *   TCP   connects to host:port as a client; on refusal, error or end of stream it
 *         reconnects after a back-off that doubles from reconnect_min_ns to
 *         reconnect_max_ns and resets on success;
 *   FILE  reads a log; with speed > 0 it is replayed in real time (speed 1) or `speed`
 *         times faster, paced by the UTC time of its RMC sentences (a jump of more than
 *         RTM_INPUT_GAP_MAX_NS of log time, or backwards, re-bases the clock); with
 *         speed 0 as fast as it can be read. At the end of the file the thread keeps
 *         publishing (targets then expire) until stopped.
 *
 * The thread: one poll() over a self-pipe and the source, with a timeout at the next
 * picture time. Reads are bounded (RTM_INPUT_CHUNK bytes); every byte goes through the
 * lexer; every RTM_INPUT_PUBLISH period (publish_ns) it expires silent targets,
 * publishes a picture, and publishes a copy of every counter. A network source that
 * delivers more than byte_budget bytes in one period is not read again until the next
 * period (counted as `throttled`): a flood costs at most that much lexing per period,
 * the kernel drops the rest (UDP drops are counted when the kernel reports them).
 * Jobs never wait for the thread: they copy pictures lock-free (rtm_targets_snapshot).
 *
 * Storage: rtm_input_t holds the lexer, the assembler, the target table (about 5 MB at
 * the default RTM_MAX_TARGETS) and every buffer; give it static storage or allocate it
 * once at init. After rtm_input_start nothing allocates. Stop writes to the self-pipe
 * and joins the thread (no cancellation); it returns within one poll wake-up. */
#ifndef RTM_INPUT_H
#define RTM_INPUT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ais.h"
#include "config.h"
#include "nmea.h"
#include "status.h"
#include "targets.h"
#include "traffic.h"

/* Bytes one read may take (one datagram: larger ones are truncated and counted). */
#define RTM_INPUT_CHUNK 65536
/* Default picture period. */
#define RTM_INPUT_PUBLISH_NS (100LL * 1000000LL)
/* Default byte budget per second of a network source (scaled to the period). */
#define RTM_INPUT_BYTES_PER_S (4LL * 1024 * 1024)
/* Default TCP reconnection back-off. */
#define RTM_INPUT_RECONNECT_MIN_NS (100LL * 1000000LL)
#define RTM_INPUT_RECONNECT_MAX_NS (5LL * 1000000000LL)
/* File replay: the largest forward step of log time that is waited for. */
#define RTM_INPUT_GAP_MAX_NS (60LL * 1000000000LL)
/* Socket receive buffer asked for (UDP and TCP). */
#define RTM_INPUT_RCVBUF (1024 * 1024)
/* Default UDP address. */
#define RTM_INPUT_UDP_DEFAULT "127.0.0.1:10110"

typedef struct {
    rtm_input_kind_t kind;        /* RTM_INPUT_NMEA_UDP, _TCP or _FILE */
    char address[RTM_PATH_MAX];   /* host:port (port 0: any free port, UDP) or a path */
    double speed;                 /* FILE: 1 real time, N times faster, 0 as fast as possible */
    int64_t publish_ns;           /* picture period (0: RTM_INPUT_PUBLISH_NS) */
    int64_t byte_budget;          /* network bytes per period (0: from RTM_INPUT_BYTES_PER_S) */
    int64_t reconnect_min_ns;     /* TCP back-off (0: defaults) */
    int64_t reconnect_max_ns;
    rtm_targets_config_t targets; /* expiry, own-ship expiry, origin */
} rtm_input_config_t;

/* Counters of the source. X(name, meaning): every counter is a uint64_t. */
#define RTM_INPUT_STATS_LIST(X)                                                          \
    X(reads, "reads that returned data (datagrams for UDP)")                             \
    X(bytes, "bytes read")                                                               \
    X(truncated, "datagrams longer than RTM_INPUT_CHUNK, cut")                           \
    X(kernel_drops, "UDP datagrams the kernel dropped (receive buffer full)")            \
    X(throttled, "periods in which the byte budget ran out (reading paused)")            \
    X(read_errors, "failed reads")                                                       \
    X(connects, "TCP connections made")                                                  \
    X(connect_failures, "TCP connection attempts that failed")                           \
    X(disconnects, "TCP connections lost (end of stream or error)")                      \
    X(eof, "ends of the file reached")                                                   \
    X(time_jumps, "file replay: RMC time went backwards or jumped, clock re-based")      \
    X(waits, "file replay: waits for the next RMC time")                                 \
    X(publishes, "pictures published")                                                   \
    X(targets_full, "AIS targets refused: table full")

typedef struct {
#define RTM_INPUT_STATS_FIELD(name, text) uint64_t name;
    RTM_INPUT_STATS_LIST(RTM_INPUT_STATS_FIELD)
#undef RTM_INPUT_STATS_FIELD
} rtm_input_counters_t;

/* Everything a reader may show, copied consistently. */
typedef struct {
    rtm_input_counters_t in;
    rtm_nmea_stats_t nmea;
    rtm_ais_stats_t ais;
    rtm_targets_stats_t targets;
    uint64_t targets_now;  /* targets in the table at the last publication */
    uint64_t connected;    /* TCP: 1 while connected; UDP, FILE: 1 while open */
    int64_t last_data_ns;  /* CLOCK_MONOTONIC of the last read with data; 0: never */
} rtm_input_stats_t;

#define RTM_INPUT_STATS_WORDS (sizeof(rtm_input_stats_t) / 8)

/* The input. Fields are private. */
typedef struct {
    rtm_input_config_t cfg;
    /* set up by init */
    bool inited;
    int wake[2];            /* self-pipe: stop */
    int fd;                 /* source: socket or file; -1 closed */
    int bound_port;         /* UDP: the port bound */
    struct {
        unsigned char addr[128]; /* struct sockaddr_storage of host:port */
        unsigned len;
        int family;
    } peer;
    pthread_t thread;
    bool started;
    /* input thread only */
    rtm_nmea_t lx;
    rtm_ais_t ais;
    rtm_input_counters_t ctr;
    int64_t period_used;    /* bytes read in this period */
    int64_t next_pub_ns;
    bool connecting;        /* TCP: non-blocking connect in progress */
    int64_t reconnect_ns;   /* TCP: next attempt; backoff */
    int64_t backoff_ns;
    uint64_t tcp_read_errors;
    /* file pacing */
    bool file_done;
    bool have_t0;
    int64_t t0_log_ns, t0_mono_ns, last_log_ns;
    bool pending;           /* a sentence waits for its time */
    rtm_nmea_sentence_t pend;
    int64_t pend_due_ns;
    uint32_t buf_pos, buf_len;
    unsigned char buf[RTM_INPUT_CHUNK];
    unsigned char cmsg[64];
    rtm_input_stats_t scratch;
    /* shared */
    atomic_bool stop;
    _Alignas(64) _Atomic uint64_t pub_seq;
    _Atomic uint64_t pub[RTM_INPUT_STATS_WORDS];
    rtm_targets_t table;
} rtm_input_t;

/* Fills *cfg from a task set's `input: nmea:` (kind, address, speed, expire) with every
 * other value at its default. Init only. */
void rtm_input_config_from(rtm_input_config_t *cfg, const rtm_config_t *task_set);

/* Prepares the input: copies cfg, resolves host:port (getaddrinfo), for UDP binds the
 * socket, creates the self-pipe, empties the target table. Does not start the thread
 * and does not open the file or connect. Init only (allocates inside getaddrinfo).
 * RTM_OK; RTM_E_ARG for a bad kind or address; RTM_E_OS (message on stderr) when the
 * address does not resolve or a socket call fails. */
rtm_status_t rtm_input_init(rtm_input_t *in, const rtm_input_config_t *cfg);

/* Opens the file (FILE), starts the thread (TCP connects from the thread) with policy
 * SCHED_OTHER whatever the caller's: the input never competes with jobs. Init only.
 * RTM_OK; RTM_E_IO when the file cannot be opened; RTM_E_OS_THREAD; RTM_E_STATE when
 * not initialised or already started. */
rtm_status_t rtm_input_start(rtm_input_t *in);

/* Stops the thread through the self-pipe and joins it; closes the source and the pipe.
 * Returns within one wake-up of the thread (a read of at most RTM_INPUT_CHUNK bytes).
 * Shutdown only; safe on an input that was only initialised, or zeroed. */
void rtm_input_stop(rtm_input_t *in);

/* The UDP port bound (useful with port 0), or -1. Any thread after init. */
int rtm_input_port(const rtm_input_t *in);

/* Copies the newest picture (see rtm_targets_snapshot). Any thread; real-time safe. */
rtm_status_t rtm_input_snapshot(rtm_input_t *in, rtm_traffic_t *out);

/* The table the thread writes (for rtm_targets_snapshot / _stats / _count). */
rtm_targets_t *rtm_input_targets(rtm_input_t *in);

/* Copies the counters the thread last published (every period, and at stop).
 * RTM_OK; RTM_E_EMPTY before the first publication. Any thread; real-time safe
 * (lock-free, bounded retries; RTM_E_ABORTED if the writer kept overtaking). */
rtm_status_t rtm_input_stats(rtm_input_t *in, rtm_input_stats_t *out);

/* Counter i of rtm_input_counters_t (RTM_INPUT_STATS_LIST order) and its value; NULL
 * past the last. Real-time safe. */
const char *rtm_input_counter_at(const rtm_input_counters_t *c, unsigned i, uint64_t *value);

/* Errors in the input as one number: every counter of damaged or lost input (lexer:
 * overlong, bad_checksum, no_checksum, bad_char, truncated, bad_address, bad_fields;
 * AIS: malformed, bad_armor, bad_length, overlong, out_of_order, duplicate,
 * partial_dropped; input: truncated, kernel_drops, read_errors). Lexer garbage bytes
 * are not included (a line of noise is not a sentence). Real-time safe. */
uint64_t rtm_input_errors(const rtm_input_stats_t *st);

/* Every counter as one line of "key=value" pairs: errors=N (rtm_input_errors), then
 * in.NAME (source), nmea.NAME (lexer), ais.NAME (assembler), targets.NAME (table) —
 * what `rtmgr run` prints at stop after "rtmgr: input: " and the HIL harness reads.
 * Returns the length needed, like snprintf (which it uses: not for the real-time path). */
size_t rtm_input_stats_format(const rtm_input_stats_t *st, char *buf, size_t len);

/* Adapter for rtm_exec_input_t.snapshot (ctx = the input). */
void rtm_input_snapshot_cb(void *ctx, rtm_traffic_t *out);
/* rtm_exec_input_t.targets: targets in the latest published picture. Real-time safe. */
uint32_t rtm_input_targets_cb(void *ctx);

#endif
