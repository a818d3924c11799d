/* test_replay.c — the HIL harness's logic: slicing a log by RMC time, the corrupted copy
 * and its counted damage, and the verification of TTM/OSD/ALR output: rtmgr's own
 * reporter (nmeaout) over loopback is accepted on random traffic, a CPA or TCPA off by
 * more than the fields' rounding is caught, alarms are matched to their targets.
 * Needs ../shared/data/ais for the log tests (skipped with a message when absent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernels/nav_math.h"
#include "rtmgr/nmeaout.h"
#include "rtmgr/replay.h"
#include "rtmgr/rng.h"

#define LOG_GUERNSEY RTM_TEST_SHARED_DIR "/data/ais/Go_to_Guernesey.nmea"
#define S_NS 1000000000LL

static rtm_traffic_t pic;

static void test_slice(void **state)
{
    (void)state;
    rtm_replay_log_t log;
    char why[256];
    rtm_status_t st = rtm_replay_load(LOG_GUERNSEY, 600 * S_NS, 300 * S_NS, &log, why, sizeof(why));
    if (st == RTM_E_IO) {
        print_message("SKIP: %s\n", why);
        skip();
    }
    assert_int_equal(st, RTM_OK);
    /* RMC every 2 s: about 150 in 300 s, starting 10 minutes after the first */
    assert_true(log.rmc >= 140 && log.rmc <= 151);
    assert_true(log.t1_ns - log.t0_ns <= 300 * S_NS && log.t1_ns - log.t0_ns >= 290 * S_NS);
    assert_int_equal(strncmp(log.line[0].text, "$GPRMC", 6), 0);
    for (size_t i = 1; i < log.n; i++)
        assert_true(log.line[i].log_ns >= log.line[i - 1].log_ns);
    size_t bytes = 0;
    for (size_t i = 0; i < log.n; i++) {
        bytes += log.line[i].len;
        assert_int_equal(log.line[i].text[log.line[i].len - 1], '\n');
    }
    assert_int_equal(bytes, log.bytes);

    /* the whole log, and a slice past its end */
    rtm_replay_log_t all;
    assert_int_equal(rtm_replay_load(LOG_GUERNSEY, 0, 0, &all, why, sizeof(why)), RTM_OK);
    assert_true(all.rmc > 30000);
    assert_int_equal(rtm_replay_load(LOG_GUERNSEY, 48 * 3600 * S_NS, 0, &log, why, sizeof(why)),
                     RTM_E_EMPTY);
    rtm_replay_free(&all);
    rtm_replay_free(&log);
}

static void test_corrupt(void **state)
{
    (void)state;
    rtm_replay_log_t log, bad;
    char why[256];
    if (rtm_replay_load(LOG_GUERNSEY, 0, 1200 * S_NS, &log, why, sizeof(why)) == RTM_E_IO) {
        print_message("SKIP: %s\n", why);
        skip();
    }
    rtm_replay_damage_t d;
    assert_int_equal(rtm_replay_corrupt(&log, 7, 0.05, &bad, &d), RTM_OK);
    rtm_input_stats_t clean, dirty;
    rtm_replay_offline(&log, &clean);
    rtm_replay_offline(&bad, &dirty);
    const uint32_t total = d.bad_checksum + d.no_checksum + d.truncated + d.dropped +
                           d.duplicated + d.garbage + d.overlong;
    print_message("corrupted %u of %zu lines: checksum %u, no checksum %u, truncated %u, "
                  "dropped %u, duplicated %u, garbage %u, overlong %u; errors %llu -> %llu\n",
                  total, log.n, d.bad_checksum, d.no_checksum, d.truncated, d.dropped,
                  d.duplicated, d.garbage, d.overlong,
                  (unsigned long long)rtm_input_errors(&clean),
                  (unsigned long long)rtm_input_errors(&dirty));
    assert_true(total > log.n / 40 && total < log.n / 10);
    assert_true(d.bad_checksum > 0 && d.no_checksum > 0 && d.truncated > 0 && d.dropped > 0 &&
                d.duplicated > 0 && d.garbage > 0 && d.overlong > 0);
    print_message("bad_checksum: clean %llu, corrupted %llu\n", (unsigned long long)clean.nmea.bad_checksum, (unsigned long long)dirty.nmea.bad_checksum);
    /* the lexer sees each kind of damage as such */
    assert_int_equal(dirty.nmea.bad_checksum, clean.nmea.bad_checksum + d.bad_checksum);
    assert_int_equal(dirty.nmea.no_checksum, clean.nmea.no_checksum + d.no_checksum);
    assert_int_equal(dirty.nmea.overlong, clean.nmea.overlong + d.overlong);
    assert_true(dirty.nmea.truncated >= clean.nmea.truncated + d.truncated / 2);
    assert_true(dirty.nmea.garbage >= clean.nmea.garbage + 40u * d.garbage);
    assert_true(rtm_input_errors(&dirty) > rtm_input_errors(&clean) + total / 2);
    /* deterministic, and the RMC times survive */
    rtm_replay_log_t again;
    rtm_replay_damage_t d2;
    assert_int_equal(rtm_replay_corrupt(&log, 7, 0.05, &again, &d2), RTM_OK);
    assert_int_equal(again.bytes, bad.bytes);
    assert_memory_equal(again.buf, bad.buf, bad.bytes);
    assert_true(bad.t0_ns == log.t0_ns && bad.t1_ns == log.t1_ns);
    char path[] = "/tmp/rtm_replay_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(rtm_replay_write(&bad, path), RTM_OK);
    rtm_replay_log_t back;
    assert_int_equal(rtm_replay_load(path, 0, 0, &back, why, sizeof(why)), RTM_OK);
    assert_true(back.bytes <= bad.bytes && back.rmc > 0);
    unlink(path);
    rtm_replay_free(&back);
    rtm_replay_free(&again);
    rtm_replay_free(&bad);
    rtm_replay_free(&log);
}

/* ---- verification against rtmgr's own reporter ---- */

static int rx_open(int *port)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    const int big = 1 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t l = sizeof(a);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static void rx_check(int fd, rtm_replay_check_t *c)
{
    static rtm_nmea_t lx;
    rtm_nmea_init(&lx);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    while (poll(&p, 1, 50) > 0) {
        char d[256];
        const ssize_t k = recv(fd, d, sizeof(d), 0);
        assert_true(k > 0);
        for (ssize_t i = 0; i < k; i++) {
            rtm_nmea_sentence_t s;
            if (rtm_nmea_push(&lx, (uint8_t)d[i], &s) == 1)
                (void)rtm_replay_check_sentence(c, &s);
        }
    }
    assert_int_equal(lx.stats.bad_checksum, 0);
}

/* Random traffic within 10 nm, some of it on collision courses; CPA through nav_cpa. */
static void traffic(uint64_t seed, uint32_t n, float *cpa, float *tcpa)
{
    rtm_rng_t r;
    rtm_rng_seed(&r, seed);
    memset(&pic, 0, offsetof(rtm_traffic_t, id));
    pic.lat0 = 50;
    pic.lon0 = -3;
    pic.own_sog = (float)rtm_rng_uniform(&r, 0, 8);
    pic.own_cog = (float)rtm_rng_uniform(&r, 0, 2 * M_PI);
    pic.n = n;
    float ovx, ovy;
    nav_velocity(pic.own_sog, pic.own_cog, &ovx, &ovy);
    for (uint32_t i = 0; i < n; i++) {
        pic.id[i] = 200000000u + i;
        const double rr = rtm_rng_uniform(&r, 100, 10 * 1852), a = rtm_rng_uniform(&r, 0, 2 * M_PI);
        pic.x[i] = (float)(rr * sin(a));
        pic.y[i] = (float)(rr * cos(a));
        pic.sog[i] = (float)rtm_rng_uniform(&r, 0, 12);
        pic.cog[i] = (float)rtm_rng_uniform(&r, 0, 2 * M_PI);
        if (i % 5 == 0) { /* head for own ship's future position */
            const float t = (float)rtm_rng_uniform(&r, 120, 1200);
            const float vx = ovx - pic.x[i] / t, vy = ovy - pic.y[i] / t;
            pic.sog[i] = hypotf(vx, vy);
            pic.cog[i] = atan2f(vx, vy);
            if (pic.cog[i] < 0)
                pic.cog[i] += 2.0f * (float)M_PI;
        }
        float tvx, tvy;
        nav_velocity(pic.sog[i], pic.cog[i], &tvx, &tvy);
        nav_cpa(pic.x[i], pic.y[i], tvx - ovx, tvy - ovy, &cpa[i], &tcpa[i]);
    }
}

static void test_verify_reporter(void **state)
{
    (void)state;
    static rtm_nmeaout_t o;
    int port;
    const int fd = rx_open(&port);
    rtm_nmeaout_config_t cfg = {.interval_ns = 0, .range_m = 12 * 1852.0, .max_targets = 40,
                                .alarm_cpa_m = 0.5 * 1852, .alarm_tcpa_ns = 15LL * 60 * S_NS};
    snprintf(cfg.address, sizeof(cfg.address), "127.0.0.1:%d", port);
    snprintf(cfg.talker, sizeof(cfg.talker), "RA");
    assert_int_equal(rtm_nmeaout_init(&o, &cfg), RTM_OK);
    rtm_replay_check_t c;
    rtm_replay_check_init(&c, cfg.alarm_cpa_m, 15 * 60.0);
    static float cpa[64], tcpa[64];
    for (uint64_t seed = 1; seed <= 30; seed++) {
        traffic(seed, 64, cpa, tcpa);
        assert_true(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 64, (int64_t)seed) > 0);
        rx_check(fd, &c);
    }
    rtm_replay_check_finish(&c);
    print_message("reporter: %llu TTM (%llu lost), %llu checked, %llu TCPA judged, worst "
                  "|dCPA| %.5f nm, |dTCPA| %.4f min; alarms %llu expected, %llu ALR active\n",
                  (unsigned long long)c.ttm, (unsigned long long)c.ttm_lost,
                  (unsigned long long)c.checked, (unsigned long long)c.tcpa_checked,
                  c.worst_cpa_nm, c.worst_tcpa_min, (unsigned long long)c.alarms_expected,
                  (unsigned long long)c.alr_active);
    if (c.mismatches)
        print_message("first mismatch: %s\n", c.first_mismatch);
    assert_int_equal(c.mismatches, 0);
    assert_int_equal(c.bad, 0);
    assert_int_equal(c.no_own, 0);
    assert_int_equal(c.osd, 30);
    assert_true(c.checked > 30 * 20);
    assert_true(c.tcpa_checked > c.checked / 2);
    assert_true(c.alarms_expected > 10);
    assert_int_equal(c.alarms_missing, 0);
    assert_int_equal(c.alarms_spurious, 0);

    /* a device that got CPA wrong by 0.02 nm on one target, or TCPA by 0.2 min */
    rtm_replay_check_t w;
    rtm_replay_check_init(&w, cfg.alarm_cpa_m, 15 * 60.0);
    traffic(99, 64, cpa, tcpa);
    cpa[0] += 0.02f * 1852.0f; /* target 0 heads for own ship: a narrow box */
    assert_true(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 64, 1000) > 0);
    rx_check(fd, &w);
    assert_int_equal(w.mismatches, 1);
    print_message("caught: %s\n", w.first_mismatch);
    assert_non_null(strstr(w.first_mismatch, "CPA"));
    rtm_replay_check_init(&w, cfg.alarm_cpa_m, 15 * 60.0);
    traffic(99, 64, cpa, tcpa);
    tcpa[0] += 30.0f; /* target 0 heads for own ship: well-conditioned TCPA */
    assert_true(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 64, 2000) > 0);
    rx_check(fd, &w);
    assert_int_equal(w.mismatches, 1);
    assert_non_null(strstr(w.first_mismatch, "TCPA"));
    /* an alarm the reporter did not send is missing; none without OSD is judged */
    rtm_replay_check_init(&w, cfg.alarm_cpa_m * 4, 15 * 60.0);
    traffic(5, 64, cpa, tcpa);
    assert_true(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 64, 3000) > 0);
    rx_check(fd, &w);
    rtm_replay_check_finish(&w);
    assert_true(w.alarms_missing > 0);
    rtm_nmeaout_close(&o);
    close(fd);
}

static void test_cpa_formula(void **state)
{
    (void)state;
    double c, t;
    /* own 10 kn north; target 5 nm ahead, 10 kn south: CPA 0 in 15 min */
    rtm_replay_cpa(5, 0, 10, 180, 10, 0, &c, &t);
    assert_true(fabs(c) < 0.01 && fabs(t - 900) < 0.01);
    /* target 2 nm east, stopped, own 6 kn north: CPA 2 nm now */
    rtm_replay_cpa(2, 90, 0, 0, 6, 0, &c, &t);
    assert_true(fabs(c - 2 * 1852) < 0.01 && fabs(t) < 0.01);
    /* 1 nm north-east, 6 kn west: passes 0.7071 nm ahead after 7.07 min */
    rtm_replay_cpa(1, 45, 6, 270, 0, 0, &c, &t);
    assert_true(fabs(c - 1852 * sqrt(0.5)) < 0.05 && fabs(t - 3600 * sqrt(0.5) / 6) < 0.05);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_verify_reporter),
        cmocka_unit_test(test_cpa_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
