/* input.c — the NMEA 0183 input thread (see input.h).
 *
 * Owns the source descriptor (UDP socket, TCP socket, or file), the self-pipe, the
 * thread, the lexer, the AIS assembler and the target table it writes.
 *
 * Invariants:
 *   - only the input thread touches lx, ais, ctr, the table's writer side and the file
 *     pacing state once it runs; other threads read pictures (targets seqlock) and
 *     counters (the `pub` seqlock below), nothing else;
 *   - one loop iteration does a bounded amount of work: at most one read of
 *     RTM_INPUT_CHUNK bytes (or RTM_INPUT_DGRAMS datagrams), then the stop flag, the
 *     picture clock and the poll timeout are looked at again;
 *   - poll() always includes the self-pipe, and never sleeps past the next picture:
 *     stop is seen within one iteration;
 *   - the thread never allocates (getaddrinfo runs in init; the peer address is kept).
 *
 * Counter publication: the writer copies every counter into `scratch`, then stores it
 * word by word with relaxed atomic stores between an odd and an even `pub_seq` (a
 * seqlock, as targets.c does for pictures); a reader retries a bounded number of times
 * if the sequence changed during its copy. */
#define _GNU_SOURCE /* pipe2, pthread_setname_np */
#include "input.h"
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Bytes lexed between two looks at the stop flag. */
#define RTM_INPUT_STOP_BYTES 4096u
/* UDP datagrams read in one iteration at most. */
#define RTM_INPUT_DGRAMS 64
/* Attempts of one rtm_input_stats() copy. */
#define STATS_TRIES 16

_Static_assert(sizeof(rtm_input_stats_t) % 8 == 0, "input stats: whole words");
_Static_assert(sizeof(((rtm_input_t *)0)->peer.addr) >= sizeof(struct sockaddr_storage),
               "peer address storage");

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- configuration ---------------------------------------------------------------- */

void rtm_input_config_from(rtm_input_config_t *cfg, const rtm_config_t *c)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->kind = c->input.kind;
    snprintf(cfg->address, sizeof(cfg->address), "%s", c->input.address);
    cfg->speed = c->input.speed;
    cfg->targets.expire_ns = c->input.expire_ns;
    cfg->targets.origin_lat = NAN;
    cfg->targets.origin_lon = NAN;
}

/* "host:port" or "[v6]:port" into host and port strings. */
static bool split_endpoint(const char *a, char *host, size_t hlen, char *port, size_t plen)
{
    const char *colon = strrchr(a, ':');
    if (!colon || !colon[1] || strlen(colon + 1) >= plen)
        return false;
    const char *h = a;
    size_t n = (size_t)(colon - a);
    if (n >= 2 && a[0] == '[' && a[n - 1] == ']') {
        h = a + 1;
        n -= 2;
    }
    if (n == 0 || n >= hlen)
        return false;
    memcpy(host, h, n);
    host[n] = '\0';
    long pn = 0; /* 0 (any free port) .. 65535 */
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9' || pn > 65535)
            return false;
        pn = pn * 10 + (*p - '0');
    }
    if (pn > 65535)
        return false;
    snprintf(port, plen, "%s", colon + 1);
    return true;
}

static rtm_status_t resolve(rtm_input_t *in, int socktype)
{
    char host[256], port[16];
    if (!split_endpoint(in->cfg.address, host, sizeof(host), port, sizeof(port))) {
        fprintf(stderr, "rtmgr: input: '%s' is not host:port\n", in->cfg.address);
        return RTM_E_ARG;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = socktype;
    hints.ai_flags = AI_NUMERICSERV | (socktype == SOCK_DGRAM ? AI_PASSIVE : 0);
    const int r = getaddrinfo(host, port, &hints, &res);
    if (r != 0 || !res) {
        fprintf(stderr, "rtmgr: input: cannot resolve %s: %s\n", in->cfg.address,
                r ? gai_strerror(r) : "no address");
        if (res)
            freeaddrinfo(res);
        return RTM_E_OS;
    }
    if (res->ai_addrlen > sizeof(in->peer.addr)) {
        freeaddrinfo(res);
        return RTM_E_OS;
    }
    memcpy(in->peer.addr, res->ai_addr, res->ai_addrlen);
    in->peer.len = (unsigned)res->ai_addrlen;
    in->peer.family = res->ai_family;
    freeaddrinfo(res);
    return RTM_OK;
}

static rtm_status_t udp_open(rtm_input_t *in)
{
    int fd = socket(in->peer.family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "rtmgr: input: socket: %s\n", strerror(errno));
        return RTM_E_OS;
    }
    const int one = 1, rcvbuf = RTM_INPUT_RCVBUF;
    /* best effort: a smaller buffer or no drop counter still works */
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
#ifdef SO_RXQ_OVFL
    (void)setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
#endif
    if (bind(fd, (const struct sockaddr *)in->peer.addr, in->peer.len) != 0) {
        fprintf(stderr, "rtmgr: input: cannot bind UDP %s: %s\n", in->cfg.address,
                strerror(errno));
        close(fd);
        return RTM_E_OS;
    }
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    socklen_t sl = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET)
            in->bound_port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            in->bound_port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    in->fd = fd;
    return RTM_OK;
}

rtm_status_t rtm_input_init(rtm_input_t *in, const rtm_input_config_t *cfg)
{
    if (!in || !cfg)
        return RTM_E_ARG;
    if (in->inited && in->started)
        return RTM_E_STATE;
    if (cfg->kind != RTM_INPUT_NMEA_UDP && cfg->kind != RTM_INPUT_NMEA_TCP &&
        cfg->kind != RTM_INPUT_NMEA_FILE)
        return RTM_E_ARG;
    if (!(cfg->speed >= 0) || cfg->publish_ns < 0 || cfg->byte_budget < 0)
        return RTM_E_ARG;
    in->inited = false;
    in->started = false;
    in->cfg = *cfg;
    if (!in->cfg.address[0] && cfg->kind == RTM_INPUT_NMEA_UDP)
        snprintf(in->cfg.address, sizeof(in->cfg.address), "%s", RTM_INPUT_UDP_DEFAULT);
    if (!in->cfg.address[0])
        return RTM_E_ARG;
    if (in->cfg.publish_ns == 0)
        in->cfg.publish_ns = RTM_INPUT_PUBLISH_NS;
    if (in->cfg.byte_budget == 0) {
        const double b = (double)RTM_INPUT_BYTES_PER_S * (double)in->cfg.publish_ns / 1e9;
        in->cfg.byte_budget = b < RTM_INPUT_CHUNK ? RTM_INPUT_CHUNK : (int64_t)b;
    }
    if (in->cfg.reconnect_min_ns <= 0)
        in->cfg.reconnect_min_ns = RTM_INPUT_RECONNECT_MIN_NS;
    if (in->cfg.reconnect_max_ns < in->cfg.reconnect_min_ns)
        in->cfg.reconnect_max_ns = in->cfg.reconnect_min_ns > RTM_INPUT_RECONNECT_MAX_NS
                                       ? in->cfg.reconnect_min_ns
                                       : RTM_INPUT_RECONNECT_MAX_NS;
    in->fd = -1;
    in->wake[0] = in->wake[1] = -1;
    in->bound_port = -1;
    memset(&in->ctr, 0, sizeof(in->ctr));
    rtm_nmea_init(&in->lx);
    rtm_ais_init(&in->ais, NULL);
    rtm_targets_init(&in->table, &in->cfg.targets);
    in->period_used = 0;
    in->connecting = false;
    in->backoff_ns = in->cfg.reconnect_min_ns;
    in->reconnect_ns = 0;
    in->file_done = false;
    in->have_t0 = false;
    in->pending = false;
    in->buf_pos = in->buf_len = 0;
    atomic_init(&in->stop, false);
    atomic_init(&in->pub_seq, 0);
    for (size_t w = 0; w < RTM_INPUT_STATS_WORDS; w++)
        atomic_init(&in->pub[w], 0);

    if (pipe2(in->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        fprintf(stderr, "rtmgr: input: pipe: %s\n", strerror(errno));
        in->wake[0] = in->wake[1] = -1;
        return RTM_E_OS;
    }
    rtm_status_t st = RTM_OK;
    if (cfg->kind == RTM_INPUT_NMEA_UDP) {
        st = resolve(in, SOCK_DGRAM);
        if (st == RTM_OK)
            st = udp_open(in);
    } else if (cfg->kind == RTM_INPUT_NMEA_TCP) {
        st = resolve(in, SOCK_STREAM);
    }
    if (st != RTM_OK) {
        close_fd(&in->fd);
        close_fd(&in->wake[0]);
        close_fd(&in->wake[1]);
        return st;
    }
    in->inited = true;
    return RTM_OK;
}

int rtm_input_port(const rtm_input_t *in) { return in ? in->bound_port : -1; }

rtm_targets_t *rtm_input_targets(rtm_input_t *in) { return in ? &in->table : NULL; }

rtm_status_t rtm_input_snapshot(rtm_input_t *in, rtm_traffic_t *out)
{
    return in ? rtm_targets_snapshot(&in->table, out) : RTM_E_ARG;
}

void rtm_input_snapshot_cb(void *ctx, rtm_traffic_t *out)
{
    if (rtm_input_snapshot(ctx, out) != RTM_OK) {
        /* nothing published yet: an empty picture */
        out->seq = 0;
        out->t_ns = 0;
        out->lat0 = out->lon0 = NAN;
        out->own_sog = out->own_cog = out->own_rot = 0.0f;
        out->n = 0;
    }
}

uint32_t rtm_input_targets_cb(void *ctx)
{
    rtm_input_t *in = ctx;
    return in ? rtm_targets_pictured(&in->table) : 0;
}

/* ---- counters --------------------------------------------------------------------- */

static void publish_stats(rtm_input_t *in, int64_t now)
{
    rtm_input_stats_t *s = &in->scratch;
    (void)now;
    s->in = in->ctr;
    s->nmea = in->lx.stats;
    s->ais = in->ais.stats;
    rtm_targets_stats(&in->table, &s->targets);
    s->targets_now = rtm_targets_count(&in->table);
    s->connected = in->fd >= 0 && !in->connecting;
    const uint64_t q = atomic_load_explicit(&in->pub_seq, memory_order_relaxed);
    atomic_store_explicit(&in->pub_seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    const unsigned char *p = (const unsigned char *)s;
    for (size_t w = 0; w < RTM_INPUT_STATS_WORDS; w++) {
        uint64_t v;
        memcpy(&v, p + w * 8, 8);
        atomic_store_explicit(&in->pub[w], v, memory_order_relaxed);
    }
    atomic_store_explicit(&in->pub_seq, q + 2, memory_order_release);
}

rtm_status_t rtm_input_stats(rtm_input_t *in, rtm_input_stats_t *out)
{
    if (!in || !out)
        return RTM_E_ARG;
    for (int t = 0; t < STATS_TRIES; t++) {
        const uint64_t s1 = atomic_load_explicit(&in->pub_seq, memory_order_acquire);
        if (s1 == 0)
            return RTM_E_EMPTY;
        if (s1 & 1)
            continue;
        unsigned char *p = (unsigned char *)out;
        for (size_t w = 0; w < RTM_INPUT_STATS_WORDS; w++) {
            const uint64_t v = atomic_load_explicit(&in->pub[w], memory_order_relaxed);
            memcpy(p + w * 8, &v, 8);
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&in->pub_seq, memory_order_relaxed) == s1)
            return RTM_OK;
    }
    return RTM_E_ABORTED;
}

static const char *const counter_names[] = {
#define RTM_INPUT_NAME(name, text) #name,
    RTM_INPUT_STATS_LIST(RTM_INPUT_NAME)
#undef RTM_INPUT_NAME
};
_Static_assert(sizeof(rtm_input_counters_t) == sizeof(counter_names) / sizeof(counter_names[0]) * 8,
               "rtm_input_counters_t is not a flat array of uint64_t");

const char *rtm_input_counter_at(const rtm_input_counters_t *c, unsigned i, uint64_t *value)
{
    if (!c || i >= sizeof(counter_names) / sizeof(counter_names[0]))
        return NULL;
    if (value)
        memcpy(value, (const char *)c + (size_t)i * 8, 8);
    return counter_names[i];
}

uint64_t rtm_input_errors(const rtm_input_stats_t *st)
{
    if (!st)
        return 0;
    const rtm_nmea_stats_t *n = &st->nmea;
    const rtm_ais_stats_t *a = &st->ais;
    return n->overlong + n->bad_checksum + n->no_checksum + n->bad_char + n->truncated +
           n->bad_address + n->bad_fields + a->malformed + a->bad_armor + a->bad_length +
           a->overlong + a->out_of_order + a->duplicate + a->partial_dropped +
           st->in.truncated + st->in.kernel_drops + st->in.read_errors;
}

size_t rtm_input_stats_format(const rtm_input_stats_t *st, char *buf, size_t len)
{
    size_t used = 0;
    uint64_t v;
    const char *name;
#define PUT(...)                                                                         \
    do {                                                                                 \
        const int n_ = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, \
                                __VA_ARGS__);                                            \
        used += n_ > 0 ? (size_t)n_ : 0;                                                 \
    } while (0)
    if (len)
        buf[0] = '\0';
    PUT("errors=%llu", (unsigned long long)rtm_input_errors(st));
    for (unsigned i = 0; (name = rtm_input_counter_at(&st->in, i, &v)) != NULL; i++)
        PUT(" in.%s=%llu", name, (unsigned long long)v);
    for (unsigned i = 0; (name = rtm_nmea_stats_at(&st->nmea, i, &v)) != NULL; i++)
        PUT(" nmea.%s=%llu", name, (unsigned long long)v);
    for (unsigned i = 0; (name = rtm_ais_stats_at(&st->ais, i, &v)) != NULL; i++)
        PUT(" ais.%s=%llu", name, (unsigned long long)v);
    PUT(" targets.now=%llu targets.inserted=%llu targets.expired=%llu targets.publishes=%llu",
        (unsigned long long)st->targets_now, (unsigned long long)st->targets.inserted,
        (unsigned long long)st->targets.expired, (unsigned long long)st->targets.publishes);
#undef PUT
    return used;
}

/* ---- sentences -------------------------------------------------------------------- */

static void on_sentence(rtm_input_t *in, const rtm_nmea_sentence_t *s, int64_t now)
{
    if (s->kind == RTM_NMEA_VDM || s->kind == RTM_NMEA_VDO) {
        rtm_ais_msg_t m;
        if (rtm_ais_feed(&in->ais, s, now, &m) == 1 &&
            rtm_targets_update_ais(&in->table, &m, now) == RTM_E_FULL)
            in->ctr.targets_full++;
        return;
    }
    rtm_nmea_nav_t nav;
    if (rtm_nmea_nav(&in->lx, s, &nav) == RTM_OK)
        (void)rtm_targets_update_nav(&in->table, &nav, now);
}

/* File replay: the monotonic time at which sentence s is due (now when not paced). */
static int64_t due_of(rtm_input_t *in, const rtm_nmea_sentence_t *s, int64_t now)
{
    if (in->cfg.kind != RTM_INPUT_NMEA_FILE || !(in->cfg.speed > 0) || s->kind != RTM_NMEA_RMC)
        return now;
    rtm_nmea_nav_t nav;
    if (rtm_nmea_nav(NULL, s, &nav) != RTM_OK)
        return now;
    const int64_t utc = rtm_nmea_utc_ns(&nav);
    if (utc < 0)
        return now;
    if (in->have_t0 && (utc < in->last_log_ns || utc - in->last_log_ns > RTM_INPUT_GAP_MAX_NS)) {
        in->ctr.time_jumps++;
        in->have_t0 = false;
    }
    in->last_log_ns = utc;
    if (!in->have_t0) {
        in->have_t0 = true;
        in->t0_log_ns = utc;
        in->t0_mono_ns = now;
        return now;
    }
    return in->t0_mono_ns + (int64_t)((double)(utc - in->t0_log_ns) / in->cfg.speed);
}

/* Lexes buf[buf_pos..buf_len). Stops early when a file sentence must wait for its
 * time (in->pending then holds it; the lexer is not pushed again until it is applied). */
static void feed(rtm_input_t *in, int64_t now)
{
    while (in->buf_pos < in->buf_len) {
        /* a stop request is honoured within RTM_INPUT_STOP_BYTES bytes of lexing */
        if ((in->buf_pos % RTM_INPUT_STOP_BYTES) == 0 &&
            atomic_load_explicit(&in->stop, memory_order_relaxed)) {
            in->buf_pos = in->buf_len;
            return;
        }
        rtm_nmea_sentence_t s;
        if (rtm_nmea_push(&in->lx, in->buf[in->buf_pos++], &s) != 1)
            continue;
        const int64_t due = due_of(in, &s, now);
        if (due > now) {
            in->pending = true;
            in->pend = s;
            in->pend_due_ns = due;
            in->ctr.waits++;
            return;
        }
        on_sentence(in, &s, now);
    }
}

/* ---- sources ---------------------------------------------------------------------- */

/* n bytes just read into the buffer from any source: counted, then lexed. */
static void received(rtm_input_t *in, ssize_t n, int64_t now)
{
    in->ctr.reads++;
    in->ctr.bytes += (uint64_t)n;
    in->period_used += n;
    in->scratch.last_data_ns = now;
    in->buf_pos = 0;
    in->buf_len = (uint32_t)n;
    feed(in, now);
}

static void udp_read(rtm_input_t *in, int64_t now)
{
    for (int d = 0; d < RTM_INPUT_DGRAMS && in->period_used < in->cfg.byte_budget; d++) {
        struct iovec iov = {in->buf, sizeof(in->buf)};
        struct msghdr mh;
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = in->cmsg;
        mh.msg_controllen = sizeof(in->cmsg);
        const ssize_t n = recvmsg(in->fd, &mh, MSG_DONTWAIT);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                in->ctr.read_errors++;
            return;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
#ifdef SO_RXQ_OVFL
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
                c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
                uint32_t drops;
                memcpy(&drops, CMSG_DATA(c), sizeof(drops));
                in->ctr.kernel_drops = drops; /* cumulative since the socket opened */
            }
#endif
        }
        if (mh.msg_flags & MSG_TRUNC)
            in->ctr.truncated++;
        received(in, n, now);
    }
}

static void tcp_schedule(rtm_input_t *in, int64_t now)
{
    in->reconnect_ns = now + in->backoff_ns;
    in->backoff_ns = in->backoff_ns * 2 > in->cfg.reconnect_max_ns ? in->cfg.reconnect_max_ns
                                                                   : in->backoff_ns * 2;
}

static void tcp_lost(rtm_input_t *in, int64_t now)
{
    close_fd(&in->fd);
    in->connecting = false;
    in->ctr.disconnects++;
    in->backoff_ns = in->cfg.reconnect_min_ns;
    tcp_schedule(in, now);
}

static void tcp_connect(rtm_input_t *in, int64_t now)
{
    int fd = socket(in->peer.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        in->ctr.connect_failures++;
        tcp_schedule(in, now);
        return;
    }
    const int rcvbuf = RTM_INPUT_RCVBUF;
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    if (connect(fd, (const struct sockaddr *)in->peer.addr, in->peer.len) == 0 ||
        errno == EINPROGRESS || errno == EINTR) {
        in->fd = fd;
        in->connecting = true; /* completed (and checked) by tcp_connected */
    } else {
        close(fd);
        in->ctr.connect_failures++;
        tcp_schedule(in, now);
    }
}

/* A TCP connection to a port nobody listens on, in the ephemeral range, can connect
 * to itself (simultaneous open: local address == remote address). That is no server. */
static bool self_connected(int fd)
{
    struct sockaddr_storage a, b;
    socklen_t la = sizeof(a), lb = sizeof(b);
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    if (getsockname(fd, (struct sockaddr *)&a, &la) != 0 ||
        getpeername(fd, (struct sockaddr *)&b, &lb) != 0)
        return false;
    return la == lb && memcmp(&a, &b, la) == 0;
}

static void tcp_connected(rtm_input_t *in, int64_t now)
{
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(in->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0 ||
        self_connected(in->fd)) {
        close_fd(&in->fd);
        in->connecting = false;
        in->ctr.connect_failures++;
        tcp_schedule(in, now);
        return;
    }
    in->connecting = false;
    in->ctr.connects++;
    in->backoff_ns = in->cfg.reconnect_min_ns;
}

static void tcp_read(rtm_input_t *in, int64_t now)
{
    size_t want = sizeof(in->buf);
    const int64_t left = in->cfg.byte_budget - in->period_used;
    if (left < (int64_t)want)
        want = left > 0 ? (size_t)left : 0;
    if (want == 0)
        return;
    const ssize_t n = recv(in->fd, in->buf, want, MSG_DONTWAIT);
    if (n == 0) {
        tcp_lost(in, now);
        return;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return;
        in->ctr.read_errors++;
        tcp_lost(in, now);
        return;
    }
    received(in, n, now);
}

/* File: applies a due pending sentence, lexes what is buffered, reads the next chunk. */
static void file_step(rtm_input_t *in, int64_t now)
{
    if (in->pending) {
        if (now < in->pend_due_ns)
            return;
        in->pending = false;
        on_sentence(in, &in->pend, now);
    }
    if (in->buf_pos < in->buf_len) {
        feed(in, now);
        return;
    }
    if (in->file_done)
        return;
    const ssize_t n = read(in->fd, in->buf, sizeof(in->buf));
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        if (n < 0)
            in->ctr.read_errors++;
        in->ctr.eof++;
        in->file_done = true;
        return;
    }
    in->ctr.reads++;
    in->ctr.bytes += (uint64_t)n;
    in->scratch.last_data_ns = now;
    in->buf_pos = 0;
    in->buf_len = (uint32_t)n;
    feed(in, now);
}

/* ---- the thread ------------------------------------------------------------------- */

static void publish(rtm_input_t *in, int64_t now)
{
    (void)rtm_targets_publish(&in->table, now);
    in->ctr.publishes++;
    publish_stats(in, now);
}

static int timeout_ms(int64_t now, int64_t at)
{
    if (at <= now)
        return 0;
    const int64_t ms = (at - now + 999999) / 1000000;
    return ms > 1000 ? 1000 : (int)ms;
}

static void *input_main(void *arg)
{
    rtm_input_t *in = arg;
    const bool net = in->cfg.kind != RTM_INPUT_NMEA_FILE;
    in->next_pub_ns = rtm_os_now_ns();
    while (!atomic_load_explicit(&in->stop, memory_order_acquire)) {
        int64_t now = rtm_os_now_ns();
        if (now >= in->next_pub_ns) {
            publish(in, now);
            in->next_pub_ns += in->cfg.publish_ns;
            if (in->next_pub_ns <= now)
                in->next_pub_ns = now + in->cfg.publish_ns;
            if (net && in->period_used >= in->cfg.byte_budget)
                in->ctr.throttled++;
            in->period_used = 0;
        }
        int64_t wake_at = in->next_pub_ns;
        struct pollfd p[2] = {{.fd = in->wake[0], .events = POLLIN}, {.fd = -1}};
        if (in->cfg.kind == RTM_INPUT_NMEA_FILE) {
            const bool ready = !in->pending || now >= in->pend_due_ns;
            if (ready && (in->pending || in->buf_pos < in->buf_len || !in->file_done)) {
                file_step(in, now);
                continue; /* bounded step done: look at stop and the clock again */
            }
            if (in->pending && in->pend_due_ns < wake_at)
                wake_at = in->pend_due_ns;
        } else if (in->cfg.kind == RTM_INPUT_NMEA_TCP && in->fd < 0) {
            if (now >= in->reconnect_ns) {
                tcp_connect(in, now);
                continue;
            }
            if (in->reconnect_ns < wake_at)
                wake_at = in->reconnect_ns;
        } else if (in->period_used < in->cfg.byte_budget || in->connecting) {
            p[1].fd = in->fd;
            p[1].events = in->connecting ? POLLOUT : POLLIN;
        }
        const int r = poll(p, 2, timeout_ms(now, wake_at));
        if (r <= 0)
            continue; /* timeout or EINTR */
        if (p[0].revents) {
            char drain[16];
            while (read(in->wake[0], drain, sizeof(drain)) > 0) {
            }
            continue; /* the loop condition sees the stop flag */
        }
        if (p[1].fd < 0 || !p[1].revents)
            continue;
        now = rtm_os_now_ns();
        if (in->cfg.kind == RTM_INPUT_NMEA_UDP)
            udp_read(in, now);
        else if (in->connecting)
            tcp_connected(in, now);
        else
            tcp_read(in, now);
    }
    publish(in, rtm_os_now_ns()); /* the final counters */
    return NULL;
}

rtm_status_t rtm_input_start(rtm_input_t *in)
{
    if (!in || !in->inited || in->started)
        return RTM_E_STATE;
    if (in->cfg.kind == RTM_INPUT_NMEA_FILE) {
        in->fd = open(in->cfg.address, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0) {
            fprintf(stderr, "rtmgr: input: cannot open %s: %s\n", in->cfg.address,
                    strerror(errno));
            return RTM_E_IO;
        }
    }
    atomic_store(&in->stop, false);
    /* SCHED_OTHER whatever the starting thread runs at (the service starts SCHED_FIFO):
     * a flood on the input must never take a core from the jobs */
    pthread_attr_t attr;
    struct sched_param sp = {.sched_priority = 0};
    int r = pthread_attr_init(&attr);
    const bool have_attr = r == 0;
    if (have_attr && (pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED) != 0 ||
                      pthread_attr_setschedpolicy(&attr, SCHED_OTHER) != 0 ||
                      pthread_attr_setschedparam(&attr, &sp) != 0))
        fprintf(stderr, "rtmgr: input: warning: cannot ask for SCHED_OTHER; the thread "
                        "inherits the caller's policy\n");
    r = pthread_create(&in->thread, have_attr ? &attr : NULL, input_main, in);
    if (have_attr)
        pthread_attr_destroy(&attr);
    if (r != 0) {
        fprintf(stderr, "rtmgr: input: pthread_create: %s\n", strerror(r));
        if (in->cfg.kind == RTM_INPUT_NMEA_FILE)
            close_fd(&in->fd);
        return RTM_E_OS_THREAD;
    }
    (void)pthread_setname_np(in->thread, "rtm-input");
    in->started = true;
    return RTM_OK;
}

void rtm_input_stop(rtm_input_t *in)
{
    if (!in || !in->inited)
        return;
    if (in->started) {
        atomic_store_explicit(&in->stop, true, memory_order_release);
        const char c = 's';
        ssize_t w;
        do {
            w = write(in->wake[1], &c, 1);
        } while (w < 0 && errno == EINTR);
        (void)pthread_join(in->thread, NULL);
        in->started = false;
    }
    close_fd(&in->fd);
    close_fd(&in->wake[0]);
    close_fd(&in->wake[1]);
    in->inited = false;
}
