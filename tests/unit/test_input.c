/* test_input.c — the NMEA input thread on real loopback sockets and files: the gpsd
 * vectors and a slice of the Guernsey log over UDP and TCP give the same table and
 * counters as an offline replay through the same library; TCP reconnects with back-off;
 * file replay at full speed and paced by RMC time; hostile input is counted and never
 * reaches the table; a flood of garbage is survived with prompt stop and readers that are
 * never blocked. Needs ../shared/data/ais (skipped with a message when absent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kernels/nav_math.h"
#include "rtmgr/input.h"
#include "rtmgr/nmeaout.h"

#define LOG_GUERNSEY RTM_TEST_SHARED_DIR "/data/ais/Go_to_Guernesey.nmea"
#define LOG_GPSD RTM_TEST_SHARED_DIR "/data/ais/gpsd_sample.aivdm"
#define MS 1000000LL
/* A stop is one wake-up of the input thread: well under a millisecond on an idle machine
 * (the tests print what they measure); this bound leaves room for a loaded CI machine. */
#define STOP_MAX_NS (500 * MS)

#include "tests/alloc_wrap.h" /* the counting allocator (test_input.cmake) */

static rtm_input_t in;           /* ~5 MB each: static */
static rtm_traffic_t pic, ref_pic;
static struct {
    rtm_nmea_t lx;
    rtm_ais_t ais;
    rtm_targets_t table;
} ref;

/* ---- helpers ---- */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The whole file, NUL-terminated; NULL when absent. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Length of the first `lines` lines of buf. */
static size_t first_lines(const char *buf, size_t len, size_t lines)
{
    size_t i = 0;
    while (i < len && lines > 0)
        if (buf[i++] == '\n')
            lines--;
    return i;
}

static rtm_input_config_t base_cfg(rtm_input_kind_t kind, const char *address)
{
    rtm_input_config_t c;
    memset(&c, 0, sizeof(c));
    c.kind = kind;
    snprintf(c.address, sizeof(c.address), "%s", address);
    c.publish_ns = 10 * MS;
    c.targets.origin_lat = 50.0; /* pictures even without own ship (gpsd vectors) */
    c.targets.origin_lon = -3.0;
    return c;
}

/* Offline reference: the same bytes through the same library at one instant. */
static void ref_replay(const char *data, size_t n, const rtm_input_config_t *c)
{
    rtm_nmea_init(&ref.lx);
    rtm_ais_init(&ref.ais, NULL);
    rtm_targets_init(&ref.table, &c->targets);
    const int64_t t = now_ns();
    for (size_t i = 0; i < n; i++) {
        rtm_nmea_sentence_t s;
        if (rtm_nmea_push(&ref.lx, (uint8_t)data[i], &s) != 1)
            continue;
        rtm_ais_msg_t m;
        rtm_nmea_nav_t nav;
        if (s.kind == RTM_NMEA_VDM || s.kind == RTM_NMEA_VDO) {
            if (rtm_ais_feed(&ref.ais, &s, t, &m) == 1)
                (void)rtm_targets_update_ais(&ref.table, &m, t);
        } else if (rtm_nmea_nav(&ref.lx, &s, &nav) == RTM_OK) {
            (void)rtm_targets_update_nav(&ref.table, &nav, t);
        }
    }
    assert_int_equal(rtm_targets_publish(&ref.table, t), RTM_OK);
    assert_int_equal(rtm_targets_snapshot(&ref.table, &ref_pic), RTM_OK);
}

/* The input's counters (zeros before its first publication). rtm_input_stats gives up
 * (RTM_E_ABORTED) when the thread was publishing on each of its tries, as when the
 * hypervisor stalls the thread in the middle (CI: 46 % steal; the test compared zeros
 * with the offline counters); the copy is then asked again. */
static rtm_input_stats_t stats(void)
{
    rtm_input_stats_t st;
    memset(&st, 0, sizeof(st));
    rtm_status_t r = RTM_E_ABORTED;
    for (int i = 0; i < 2000 && r == RTM_E_ABORTED; i++) {
        r = rtm_input_stats(&in, &st);
        if (r == RTM_E_ABORTED)
            sleep_ms(1);
    }
    assert_true(r == RTM_OK || r == RTM_E_EMPTY); /* empty: nothing published yet, zeros */
    return st;
}

/* Waits until the input has read `bytes` bytes and published after that; false on
 * timeout. */
static bool wait_bytes(uint64_t bytes, int timeout_ms)
{
    const int64_t end = now_ns() + (int64_t)timeout_ms * MS;
    while (now_ns() < end) {
        rtm_input_stats_t st = stats();
        if (st.in.bytes >= bytes && st.nmea.bytes >= bytes) {
            sleep_ms(25); /* two more periods: the picture after the last byte */
            return true;
        }
        sleep_ms(5);
    }
    rtm_input_stats_t st = stats();
    char line[2048];
    rtm_nmea_stats_format(&st.nmea, line, sizeof(line));
    print_message("waited for %llu bytes: input has %llu (reads %llu, connects %llu, "
                  "disconnects %llu, throttled %llu, drops %llu); nmea %s\n",
                  (unsigned long long)bytes, (unsigned long long)st.in.bytes,
                  (unsigned long long)st.in.reads, (unsigned long long)st.in.connects,
                  (unsigned long long)st.in.disconnects, (unsigned long long)st.in.throttled,
                  (unsigned long long)st.in.kernel_drops, line);
    return false;
}

/* The picture the input published matches the offline replay: same targets (MMSI),
 * same positions within a few metres (the input's pictures are dead-reckoned a
 * little later). */
static void assert_same_table(void)
{
    assert_int_equal(rtm_input_snapshot(&in, &pic), RTM_OK);
    assert_int_equal(pic.n, ref_pic.n);
    for (uint32_t i = 0; i < pic.n; i++) {
        assert_int_equal(pic.id[i], ref_pic.id[i]);
        const double dt = (double)(pic.t_ns - ref_pic.t_ns) * 1e-9;
        /* 5 m: float positions 30 km out and the own-ship fix interpolated at a
         * slightly different instant */
        const double slack = 5.0 + 2.0 * (ref_pic.sog[i] + 10.0) * fabs(dt);
        assert_true(isfinite(pic.x[i]) && isfinite(pic.y[i]));
        if (fabs(pic.x[i] - ref_pic.x[i]) > slack || fabs(pic.y[i] - ref_pic.y[i]) > slack)
            fail_msg("target %u at (%.1f, %.1f), offline (%.1f, %.1f)", pic.id[i],
                     (double)pic.x[i], (double)pic.y[i], (double)ref_pic.x[i],
                     (double)ref_pic.y[i]);
    }
}

/* The offline replay's errors, counted as rtm_input_errors() counts them. */
static uint64_t ref_errors(void)
{
    rtm_input_stats_t r;
    memset(&r, 0, sizeof(r));
    r.nmea = ref.lx.stats;
    r.ais = ref.ais.stats;
    return rtm_input_errors(&r);
}

static void assert_same_counters(const rtm_input_stats_t *st)
{
    assert_memory_equal(&st->nmea, &ref.lx.stats, sizeof(st->nmea));
    assert_int_equal(st->ais.messages, ref.ais.stats.messages);
    assert_int_equal(st->ais.fragments, ref.ais.stats.fragments);
    assert_memory_equal(st->ais.by_type, ref.ais.stats.by_type, sizeof(st->ais.by_type));
    assert_int_equal(st->targets_now, rtm_targets_count(&ref.table));
}

static int udp_sender(int port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* Sends whole lines in datagrams of up to ~1400 bytes, pausing for the reader every
 * 32 datagrams so that the receive buffer never overflows. */
static void udp_send_lines(int fd, const char *data, size_t n)
{
    size_t off = 0, sent_total = 0;
    int since = 0;
    while (off < n) {
        size_t end = off, next = off;
        while (next < n) {
            size_t eol = next;
            while (eol < n && data[eol] != '\n')
                eol++;
            if (eol < n)
                eol++;
            if (eol - off > 1400 && end > off)
                break;
            end = next = eol;
        }
        assert_int_equal(send(fd, data + off, end - off, 0), (ssize_t)(end - off));
        sent_total += end - off;
        off = end;
        if (++since == 32) {
            since = 0;
            assert_true(wait_bytes(sent_total, 5000));
        }
    }
}

static int tcp_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(fd, 4), 0);
    socklen_t l = sizeof(a);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        assert_true(w > 0);
        p += w;
        n -= (size_t)w;
    }
}

/* A free TCP port with nobody listening (bound then closed). */
static int dead_port(void)
{
    int port;
    int fd = tcp_listener(&port);
    close(fd);
    return port;
}

static int64_t timed_stop(void)
{
    const int64_t t0 = now_ns();
    rtm_input_stop(&in);
    return now_ns() - t0;
}

#define NEED(buf, path)                                                                 \
    do {                                                                                \
        if (!(buf)) {                                                                   \
            print_message("SKIP: %s not found (shared test data absent)\n", path);      \
            skip();                                                                     \
        }                                                                               \
    } while (0)

/* ---- tests ---- */

static void test_config_from_task_set(void **state)
{
    (void)state;
    static rtm_config_t c;
    memset(&c, 0, sizeof(c));
    c.input.kind = RTM_INPUT_NMEA_FILE;
    snprintf(c.input.address, sizeof(c.input.address), "/x/log.nmea");
    c.input.speed = 20;
    c.input.expire_ns = 180LL * 1000 * MS;
    rtm_input_config_t ic;
    rtm_input_config_from(&ic, &c);
    assert_int_equal(ic.kind, RTM_INPUT_NMEA_FILE);
    assert_string_equal(ic.address, "/x/log.nmea");
    assert_true(ic.speed == 20.0);
    assert_true(ic.targets.expire_ns == 180LL * 1000 * MS);
    assert_true(isnan(ic.targets.origin_lat));
    /* bad arguments */
    rtm_input_config_t bad = base_cfg(RTM_INPUT_SCENARIO, "x");
    assert_int_equal(rtm_input_init(&in, &bad), RTM_E_ARG);
    bad = base_cfg(RTM_INPUT_NMEA_UDP, "no-port");
    assert_int_equal(rtm_input_init(&in, &bad), RTM_E_ARG);
    bad = base_cfg(RTM_INPUT_NMEA_TCP, "127.0.0.1:http");
    assert_int_equal(rtm_input_init(&in, &bad), RTM_E_ARG);
    bad = base_cfg(RTM_INPUT_NMEA_FILE, "/nonexistent/file.nmea");
    assert_int_equal(rtm_input_init(&in, &bad), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_E_IO);
    rtm_input_stop(&in);
    rtm_input_stop(&in); /* twice is harmless */
    assert_int_equal(rtm_input_start(&in), RTM_E_STATE);
}

static void test_udp_gpsd_vectors(void **state)
{
    (void)state;
    size_t n;
    char *data = slurp(LOG_GPSD, &n);
    NEED(data, LOG_GPSD);
    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_UDP, "127.0.0.1:0");
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_true(rtm_input_port(&in) > 0);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    int fd = udp_sender(rtm_input_port(&in));
    udp_send_lines(fd, data, n);
    assert_true(wait_bytes(n, 5000));
    ref_replay(data, n, &c);
    rtm_input_stats_t st = stats();
    assert_same_counters(&st);
    assert_same_table();
    assert_true(st.ais.messages >= 15);
    assert_true(pic.n >= 5);
    assert_int_equal(st.in.truncated + st.in.kernel_drops + st.in.read_errors, 0);
    print_message("gpsd vectors over UDP: %llu datagrams, %llu messages, %u targets\n",
                  (unsigned long long)st.in.reads, (unsigned long long)st.ais.messages, pic.n);
    assert_true(timed_stop() < STOP_MAX_NS);
    close(fd);
    free(data);
}

static void test_udp_guernsey_slice(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp(LOG_GUERNSEY, &len);
    NEED(data, LOG_GUERNSEY);
    const size_t n = first_lines(data, len, 6000);
    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_UDP, "127.0.0.1:0");
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    int fd = udp_sender(rtm_input_port(&in));
    udp_send_lines(fd, data, n);
    assert_true(wait_bytes(n, 5000));
    ref_replay(data, n, &c);
    rtm_input_stats_t st = stats();
    assert_same_counters(&st);
    assert_same_table();
    /* the transport added no error: what there is, is in the log itself */
    assert_int_equal(rtm_input_errors(&st), ref_errors());
    assert_true(st.nmea.rmc > 1000 && st.nmea.vdm > 300);
    assert_false(isnan(pic.lat0)); /* own ship from RMC */
    assert_true(pic.n > 5);
    print_message("Guernsey slice over UDP: %zu bytes, %llu sentences, %u targets around "
                  "%.4f %.4f\n", n, (unsigned long long)st.nmea.sentences, pic.n, pic.lat0,
                  pic.lon0);
    assert_true(timed_stop() < STOP_MAX_NS);
    close(fd);
    free(data);
}

static void test_tcp_reconnect(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp(LOG_GUERNSEY, &len);
    NEED(data, LOG_GUERNSEY);
    const size_t half = first_lines(data, len, 3000), n = first_lines(data, len, 6000);
    int port;
    int lfd = tcp_listener(&port);
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_TCP, addr);
    c.reconnect_min_ns = 20 * MS;
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    int cfd = accept(lfd, NULL, NULL);
    assert_true(cfd >= 0);
    send_all(cfd, data, half);
    assert_true(wait_bytes(half, 5000));
    close(cfd); /* the server goes away: the input reconnects */
    cfd = accept(lfd, NULL, NULL);
    assert_true(cfd >= 0);
    send_all(cfd, data + half, n - half);
    assert_true(wait_bytes(n, 5000));
    ref_replay(data, n, &c);
    rtm_input_stats_t st = stats();
    assert_same_counters(&st);
    assert_same_table();
    assert_int_equal(st.in.connects, 2);
    assert_int_equal(st.in.disconnects, 1);
    assert_int_equal(st.connected, 1);
    assert_int_equal(rtm_input_errors(&st), ref_errors());
    assert_true(timed_stop() < STOP_MAX_NS);
    close(cfd);
    close(lfd);
    free(data);
}

static void test_tcp_backoff(void **state)
{
    (void)state;
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", dead_port());
    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_TCP, addr);
    c.reconnect_min_ns = 20 * MS;
    c.reconnect_max_ns = 160 * MS;
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    sleep_ms(700);
    rtm_input_stats_t st = stats();
    /* attempts at about 0, 20, 60, 140, 300, 460, 620 ms: the back-off doubles, capped */
    assert_int_equal(st.in.connects, 0);
    assert_true(st.in.connect_failures >= 2 && st.in.connect_failures <= 9); /* fewer when loaded */
    assert_int_equal(st.connected, 0);
    print_message("TCP back-off: %llu failed attempts in 700 ms\n",
                  (unsigned long long)st.in.connect_failures);
    assert_true(timed_stop() < STOP_MAX_NS);
}

static void test_file_fast(void **state)
{
    (void)state;
    size_t n;
    char *data = slurp(LOG_GUERNSEY, &n);
    NEED(data, LOG_GUERNSEY);
    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_FILE, LOG_GUERNSEY);
    c.speed = 0; /* as fast as possible */
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    const int64_t t0 = now_ns();
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    rtm_input_stats_t st;
    do {
        sleep_ms(10);
        st = stats();
    } while (st.in.eof == 0 && now_ns() - t0 < 20000 * MS);
    const double secs = (double)(now_ns() - t0) * 1e-9;
    assert_int_equal(st.in.eof, 1);
    assert_true(wait_bytes(n, 1000));
    ref_replay(data, n, &c);
    st = stats();
    assert_same_counters(&st);
    assert_same_table();
    assert_int_equal(st.in.waits, 0);
    print_message("whole Guernsey log as fast as possible: %zu bytes in %.2f s, %llu sentences, "
                  "%u targets\n", n, secs, (unsigned long long)st.nmea.sentences, pic.n);
    assert_true(timed_stop() < STOP_MAX_NS);
    free(data);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* An RMC sentence at hh:mm:ss with its checksum. */
static void rmc(char *out, size_t len, int h, int m, int s)
{
    char body[128];
    snprintf(body, sizeof(body), "GPRMC,%02d%02d%02d,A,5013.4693,N,00346.6503,W,4.0,183.2,260711,,",
             h, m, s);
    unsigned sum = 0;
    for (const char *p = body; *p; p++)
        sum ^= (unsigned char)*p;
    snprintf(out, len, "$%s*%02X\r\n", body, sum);
}

static void test_file_paced(void **state)
{
    (void)state;
    char path[] = "/tmp/rtm_input_paced_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    /* 12:00:00 .. 12:00:04, then back to 11:00:00 (a jump), then 11:00:01 */
    char text[2048] = "", line[256];
    const int secs[] = {0, 1, 2, 3, 4};
    for (unsigned i = 0; i < 5; i++) {
        rmc(line, sizeof(line), 12, 0, secs[i]);
        strcat(text, line);
    }
    rmc(line, sizeof(line), 11, 0, 0);
    strcat(text, line);
    rmc(line, sizeof(line), 11, 0, 1);
    strcat(text, line);
    write_file(path, text);

    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_FILE, path);
    c.speed = 10; /* 1 s of log time = 100 ms */
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    const int64_t t0 = now_ns();
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    rtm_input_stats_t st;
    do {
        sleep_ms(5);
        st = stats();
    } while (st.targets.own_updates < 7 && now_ns() - t0 < 5000 * MS);
    const int64_t took = now_ns() - t0;
    /* 4 steps of 100 ms, the jump back re-bases, then one more step of 100 ms */
    print_message("paced replay: 7 RMC at speed 10 in %.0f ms (expected 500)\n", took / 1e6);
    assert_int_equal(st.nmea.rmc, 7);
    assert_int_equal(st.targets.own_updates, 7);
    assert_true(took >= 480 * MS && took < 3000 * MS); /* never faster than the log */
    /* 5 waits, fewer where the input thread reached a step's time already late: a stall of
     * 100 ms or more (CI's 2 cores with another test beside it, session 55: 4 waits in
     * 510 ms); the replay still never runs ahead of the log (took, above) */
    assert_true(st.in.waits >= 1 && st.in.waits <= 5);
    assert_int_equal(st.in.time_jumps, 1);
    assert_true(timed_stop() < STOP_MAX_NS);

    /* stop while waiting for a distant RMC (100 s at speed 0.01... a 1 s step) */
    c.speed = 0.01;
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    for (int i = 0; i < 200; i++) { /* the first RMC applied, the second waited for */
        sleep_ms(10);
        st = stats();
        if (st.targets.own_updates == 1 && st.in.waits == 1)
            break;
    }
    assert_int_equal(st.targets.own_updates, 1);
    assert_int_equal(st.in.waits, 1);
    assert_true(timed_stop() < STOP_MAX_NS);
    unlink(path);
}

/* A 1-fragment AIS sentence with its checksum. */
static void vdm(char *out, size_t len, const char *frag)
{
    unsigned sum = 0;
    for (const char *p = frag; *p; p++)
        sum ^= (unsigned char)*p;
    snprintf(out, len, "!%s*%02X\r\n", frag, sum);
}

static void test_hostile(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp(LOG_GUERNSEY, &len);
    NEED(data, LOG_GUERNSEY);
    const size_t clean = first_lines(data, len, 2000);
    /* every kind of damage, then the clean slice */
    static char mix[1 << 20];
    size_t m = 0;
    char line[512];
#define ADD(s)                                                                          \
    do {                                                                                \
        const size_t l_ = strlen(s);                                                    \
        memcpy(mix + m, s, l_);                                                         \
        m += l_;                                                                        \
    } while (0)
    ADD("$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0,183.2,260711,3.8,W,A*19\r\n"); /* bad cs */
    memset(line, 'A', 400);
    line[0] = '$';
    memcpy(line + 400, "*00\r\n", 6);
    ADD(line); /* overlong */
    ADD("!AIVDM,1,1,,B,1535SB002qOgEEhLTmHb;H8L0H7T,0\r\n"); /* no checksum */
    ADD("!AIVDM,1,1,,B,1535SB002qOgEEhLTm$GPGLL,1*00\r\n");  /* truncated by a new start */
    vdm(line, sizeof(line), "AIVDM,2,2,7,A,88888888880,2"); /* fragment 2 before 1 */
    ADD(line);
    vdm(line, sizeof(line), "AIVDM,2,1,8,A,55NBsG02>nrp<HQG7;0l4pU8uT0L5<hT,0"); /* 1 of 2 */
    ADD(line);
    vdm(line, sizeof(line), "AIVDM,2,1,8,A,55NBsG02>nrp<HQG7;0l4pU8uT0L5<hT,0"); /* duplicate */
    ADD(line);
    vdm(line, sizeof(line), "AIVDM,1,1,,A,1535SB~~~qOgEEhLTmHb;H8L0H7T,0"); /* bad armour */
    ADD(line);
    vdm(line, sizeof(line), "AIVDM,1,1,,A,15,0"); /* too short */
    ADD(line);
    vdm(line, sizeof(line), "AIVDM,x,1,,A,1535SB002qOgEEhLTmHb;H8L0H7T,0"); /* malformed */
    ADD(line);
    for (int i = 0; i < 3000; i++) /* binary noise */
        mix[m++] = (char)(rand() & 0xff);
    ADD("\r\n");
    memcpy(mix + m, data, clean);
    m += clean;
#undef ADD

    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_UDP, "127.0.0.1:0");
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    int fd = udp_sender(rtm_input_port(&in));
    udp_send_lines(fd, mix, m);
    assert_true(wait_bytes(m, 5000));
    ref_replay(mix, m, &c);
    rtm_input_stats_t st = stats();
    assert_same_counters(&st);
    assert_same_table();
    assert_true(st.nmea.bad_checksum >= 1);
    assert_true(st.nmea.overlong >= 1);
    assert_true(st.nmea.no_checksum >= 1);
    assert_true(st.nmea.truncated >= 1);
    assert_true(st.nmea.garbage >= 1000);
    assert_true(st.ais.out_of_order >= 1);
    assert_true(st.ais.duplicate >= 1);
    assert_true(st.ais.bad_armor >= 1);
    assert_true(st.ais.malformed >= 1);
    assert_true(rtm_input_errors(&st) >= 9);
    /* the damage added no target: the table is the clean slice's */
    ref_replay(data, clean, &c);
    assert_int_equal(pic.n, ref_pic.n);
    for (uint32_t i = 0; i < pic.n; i++)
        assert_int_equal(pic.id[i], ref_pic.id[i]);
    print_message("hostile input: %llu errors counted\n",
                  (unsigned long long)rtm_input_errors(&st));
    assert_true(timed_stop() < STOP_MAX_NS);
    close(fd);
    free(data);
}

/* ---- flood ---- */

static atomic_bool flood_stop;
static atomic_llong worst_snapshot_ns;
static atomic_ullong snapshots;

static void *reader_main(void *arg)
{
    (void)arg;
    static rtm_traffic_t mine;
    while (!atomic_load(&flood_stop)) {
        const int64_t t0 = now_ns();
        const rtm_status_t st = rtm_input_snapshot(&in, &mine);
        const int64_t d = now_ns() - t0;
        if (d > atomic_load(&worst_snapshot_ns))
            atomic_store(&worst_snapshot_ns, d);
        if (st == RTM_OK) {
            atomic_fetch_add(&snapshots, 1);
            for (uint32_t i = 0; i < mine.n; i++)
                if (!isfinite(mine.x[i]) || !isfinite(mine.y[i]))
                    atomic_store(&worst_snapshot_ns, INT64_MAX);
        }
    }
    return NULL;
}

typedef struct {
    int fd;
    bool udp;
    uint64_t sent;
    double secs;
} flood_t;

static void *flood_main(void *arg)
{
    flood_t *f = arg;
    static char junk[60000];
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < sizeof(junk); i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        /* mostly noise, with start characters, separators and line ends mixed in */
        const char alphabet[] = "$!,*\r\nAIVDM0123456789ABCDEF";
        junk[i] = (x & 3) ? (char)(x >> 8) : alphabet[(x >> 8) % (sizeof(alphabet) - 1)];
    }
    const int64_t t0 = now_ns();
    int64_t t;
    while ((t = now_ns()) - t0 < 1500 * MS) {
        /* UDP: at most ~200 MB/s, so that the sender does not take a core to itself */
        if (f->udp && (double)f->sent > 0.2 * (double)(t - t0)) {
            sleep_ms(1);
            continue;
        }
        ssize_t w = send(f->fd, junk, sizeof(junk), f->udp ? MSG_DONTWAIT : MSG_NOSIGNAL);
        if (w > 0)
            f->sent += (uint64_t)w;
        else if (!f->udp && errno != EINTR)
            break;
    }
    f->secs = (double)(now_ns() - t0) * 1e-9;
    return NULL;
}

static void run_flood(bool udp)
{
    int lfd = -1, port = 0, sfd;
    rtm_input_config_t c;
    if (udp) {
        c = base_cfg(RTM_INPUT_NMEA_UDP, "127.0.0.1:0");
    } else {
        lfd = tcp_listener(&port);
        char addr[64];
        snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
        c = base_cfg(RTM_INPUT_NMEA_TCP, addr);
    }
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    if (udp) {
        sfd = udp_sender(rtm_input_port(&in));
    } else {
        sfd = accept(lfd, NULL, NULL);
        assert_true(sfd >= 0);
    }
    atomic_store(&flood_stop, false);
    atomic_store(&worst_snapshot_ns, 0);
    atomic_store(&snapshots, 0);
    pthread_t rd, fl;
    flood_t f = {.fd = sfd, .udp = udp};
    assert_int_equal(pthread_create(&rd, NULL, reader_main, NULL), 0);
    assert_int_equal(pthread_create(&fl, NULL, flood_main, &f), 0);
    pthread_join(fl, NULL);
    sleep_ms(30);
    rtm_input_stats_t st = stats();
    /* stop while the sender may still be queued: prompt */
    const int64_t stop_ns = timed_stop();
    atomic_store(&flood_stop, true);
    pthread_join(rd, NULL);
    print_message("%s flood: sent %.1f MB in %.2f s; input read %.1f MB (%llu throttled "
                  "periods, %llu kernel drops), garbage %.1f MB; %llu snapshots, worst %.3f ms; "
                  "stop %.2f ms\n",
                  udp ? "UDP" : "TCP", f.sent / 1e6, f.secs, st.in.bytes / 1e6,
                  (unsigned long long)st.in.throttled, (unsigned long long)st.in.kernel_drops,
                  st.nmea.garbage / 1e6, (unsigned long long)atomic_load(&snapshots),
                  atomic_load(&worst_snapshot_ns) / 1e6, stop_ns / 1e6);
    assert_true(f.sent > 4u * 1024 * 1024);
    assert_true(st.in.bytes > 1u * 1024 * 1024);
    assert_true(st.nmea.garbage > 100000);
    assert_true(st.nmea.bytes == st.in.bytes);
    /* pictures kept coming during the flood (150 in 1.5 s when the machine is idle;
     * fewer under a sanitizer with other tests sharing two cores) */
    assert_true(st.in.publishes >= 20);
    assert_true(atomic_load(&snapshots) > 0);
    rtm_targets_stats_t ts;
    rtm_targets_stats(rtm_input_targets(&in), &ts);
    assert_int_equal(ts.failures, 0); /* no reader ever gave up */
    assert_true(atomic_load(&worst_snapshot_ns) < 500 * MS); /* scheduling, not waiting */
    assert_true(stop_ns < STOP_MAX_NS); /* one wake-up and 4 KiB of lexing, plus scheduling */
    if (udp)
        assert_true(st.in.throttled > 0 || st.in.kernel_drops > 0 || f.sent == st.in.bytes);
    close(sfd);
    if (lfd >= 0)
        close(lfd);
}

static void test_flood_udp(void **state)
{
    (void)state;
    run_flood(true);
}

static void test_flood_tcp(void **state)
{
    (void)state;
    run_flood(false);
}

/* The running input (UDP, a Guernsey slice) and the NMEA output of CPA/TCPA computed
 * from its pictures make no heap call: counted from after start to before stop, on all
 * threads. */
static void test_no_heap_after_start(void **state)
{
    (void)state;
    size_t len;
    char *data = slurp(LOG_GUERNSEY, &len);
    NEED(data, LOG_GUERNSEY);
    const size_t n = first_lines(data, len, 3000);
    static rtm_nmeaout_t o;
    const int rx = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(rx, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t l = sizeof(a);
    assert_int_equal(getsockname(rx, (struct sockaddr *)&a, &l), 0);
    rtm_nmeaout_config_t oc = {.interval_ns = 0, .range_m = 30 * 1852.0, .max_targets = 99,
                               .alarm_cpa_m = 5 * 1852.0, .alarm_tcpa_ns = 3600 * 1000 * MS};
    snprintf(oc.address, sizeof(oc.address), "127.0.0.1:%d", ntohs(a.sin_port));
    snprintf(oc.talker, sizeof(oc.talker), "RA");
    assert_int_equal(rtm_nmeaout_init(&o, &oc), RTM_OK);
    rtm_input_config_t c = base_cfg(RTM_INPUT_NMEA_UDP, "127.0.0.1:0");
    assert_int_equal(rtm_input_init(&in, &c), RTM_OK);
    assert_int_equal(rtm_input_start(&in), RTM_OK);
    const int fd = udp_sender(rtm_input_port(&in));
    sleep_ms(50);
    static float cpa[RTM_MAX_TARGETS], tcpa[RTM_MAX_TARGETS];
    int sentences = 0;
    atomic_store(&alloc_calls, 0);
    atomic_store(&alloc_counting, true);
    for (size_t off = 0; off < n;) {
        size_t end = off;
        for (int k = 0; k < 20 && end < n; k++) /* 20 lines per datagram */
            while (end < n && data[end++] != '\n') {
            }
        if (send(fd, data + off, end - off, 0) < 0)
            break;
        off = end;
        /* what a cpa_tcpa job does with a picture, and the report */
        if (rtm_input_snapshot(&in, &pic) == RTM_OK) {
            float ovx, ovy;
            nav_velocity(pic.own_sog, pic.own_cog, &ovx, &ovy);
            for (uint32_t i = 0; i < pic.n; i++) {
                float tvx, tvy;
                nav_velocity(pic.sog[i], pic.cog[i], &tvx, &tvy);
                nav_cpa(pic.x[i], pic.y[i], tvx - ovx, tvy - ovy, &cpa[i], &tcpa[i]);
            }
            sentences += rtm_nmeaout_offer(&o, &pic, cpa, tcpa, pic.n, now_ns());
        }
        sleep_ms(1);
    }
    assert_true(wait_bytes(n, 5000));
    atomic_store(&alloc_counting, false);
    const int calls = (int)atomic_load(&alloc_calls);
    rtm_input_stats_t st = stats();
    print_message("no heap after start: %llu sentences in, %d sentences out, %d heap calls\n",
                  (unsigned long long)st.nmea.sentences, sentences, calls);
    assert_int_equal(calls, 0);
    assert_true(st.nmea.sentences > 2000 && sentences > 50);
    rtm_input_stop(&in);
    rtm_nmeaout_close(&o);
    close(fd);
    close(rx);
    free(data);
}

/* A failed assertion leaves the thread running: stop it before the next test. */
static int stop_input(void **state)
{
    (void)state;
    rtm_input_stop(&in);
    return 0;
}

#define T(f) cmocka_unit_test_teardown(f, stop_input)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_config_from_task_set), T(test_udp_gpsd_vectors), T(test_udp_guernsey_slice),
        T(test_tcp_reconnect),        T(test_tcp_backoff),      T(test_file_fast),
        T(test_file_paced),           T(test_hostile),          T(test_flood_udp),
        T(test_flood_tcp),            T(test_no_heap_after_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
