/* test_nmeaout.c — TTM / OSD / ALR sentences: exact text against hand-written ones,
 * parsed back with rtmgr's own lexer (checksum valid, fields), the 82-character limit,
 * and the UDP reporter end to end on loopback: hand-computed CPA/TCPA fields, stable
 * target numbers, lost targets, alarms raised and cleared, rate limit, selection of the
 * most urgent targets, a concurrent caller refused without blocking. */
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
#include "rtmgr/nmea.h"
#include "rtmgr/nmeaout.h"

#define NM 1852.0f
#define KN (1852.0f / 3600.0f)
#define DEG_R ((float)M_PI / 180.0f)

static rtm_traffic_t pic;

/* The checksum of the text between '$' and '*' (exclusive). */
static unsigned checksum(const char *s)
{
    unsigned x = 0;
    for (s++; *s && *s != '*'; s++)
        x ^= (unsigned char)*s;
    return x;
}

/* "$BODY" -> "$BODY*hh\r\n". */
static void with_checksum(char *out, size_t len, const char *body)
{
    snprintf(out, len, "%s*%02X\r\n", body, checksum(body));
}

/* Frames one sentence with the lexer: exactly one sentence, valid checksum. */
static void lex_one(rtm_nmea_t *lx, const char *text, rtm_nmea_sentence_t *s)
{
    int got = 0;
    for (const char *p = text; *p; p++)
        got += rtm_nmea_push(lx, (uint8_t)*p, s) == 1;
    assert_int_equal(got, 1);
}

static void test_ttm_text(void **state)
{
    (void)state;
    const rtm_nmeaout_ttm_t t = {.number = 7, .dist_nm = 2.5, .bearing_deg = 45.0,
                                 .speed_kn = 12.34, .course_deg = 270.0, .cpa_nm = 0.25,
                                 .tcpa_min = 6.5, .name = "235012345", .status = 'T',
                                 .utc_ms = 12 * 3600000u + 34 * 60000u + 56780u,
                                 .acquisition = 'R'};
    char buf[128], want[128];
    bool dropped = true;
    const int n = rtm_nmeaout_ttm(buf, sizeof(buf), "RA", &t, &dropped);
    with_checksum(want, sizeof(want),
                  "$RATTM,07,2.500,45.00,T,12.3,270.00,T,0.250,6.50,N,235012345,T,,123456.78,R");
    assert_string_equal(buf, want);
    assert_int_equal(n, (int)strlen(want));
    assert_false(dropped);
    assert_true(n <= RTM_NMEAOUT_SENTENCE_MAX);

    rtm_nmea_t lx;
    rtm_nmea_init(&lx);
    rtm_nmea_sentence_t s;
    lex_one(&lx, buf, &s);
    assert_string_equal(s.talker, "RA");
    assert_string_equal(s.formatter, "TTM");
    assert_int_equal(s.nfields, 15);
    assert_string_equal(s.field[0], "07");
    assert_true(fabs(atof(s.field[1]) - 2.5) < 1e-9);
    assert_string_equal(s.field[3], "T");
    assert_string_equal(s.field[8], "6.50");
    assert_string_equal(s.field[9], "N");
    assert_string_equal(s.field[10], "235012345");
    assert_string_equal(s.field[13], "123456.78");
    assert_int_equal(lx.stats.bad_checksum + lx.stats.long_lines, 0);

    /* rounding: no "-0.000", no "360.0"; negative TCPA kept */
    rtm_nmeaout_ttm_t u = t;
    u.cpa_nm = -0.0001;
    u.bearing_deg = 359.997;
    u.course_deg = -90.0;
    u.tcpa_min = -3.25;
    rtm_nmeaout_ttm(buf, sizeof(buf), "RA", &u, NULL);
    with_checksum(want, sizeof(want),
                  "$RATTM,07,2.500,0.00,T,12.3,270.00,T,0.000,-3.25,N,235012345,T,,123456.78,R");
    assert_string_equal(buf, want);

    /* non-finite values: empty fields (a lost target) */
    const rtm_nmeaout_ttm_t lost = {.number = 99, .dist_nm = NAN, .bearing_deg = NAN,
                                    .speed_kn = NAN, .course_deg = INFINITY, .cpa_nm = NAN,
                                    .tcpa_min = NAN, .status = 'L', .utc_ms = 0,
                                    .acquisition = 'R'};
    rtm_nmeaout_ttm(buf, sizeof(buf), "II", &lost, NULL);
    with_checksum(want, sizeof(want), "$IITTM,99,,,T,,,T,,,N,,L,,000000.00,R");
    assert_string_equal(buf, want);

    /* too long with the name: the name goes, the sentence stays within 82 */
    u = t;
    u.dist_nm = 99.999;
    u.speed_kn = 99.9;
    u.cpa_nm = 99.999;
    u.tcpa_min = -9999.99;
    snprintf(u.name, sizeof(u.name), "ABCDEFGHIJKLMNOPQRST");
    const int m = rtm_nmeaout_ttm(buf, sizeof(buf), "RA", &u, &dropped);
    assert_true(m > 0 && m <= RTM_NMEAOUT_SENTENCE_MAX);
    assert_true(dropped);
    assert_null(strstr(buf, "ABCD"));
    rtm_nmea_init(&lx);
    lex_one(&lx, buf, &s);
    assert_string_equal(s.field[10], "");
    assert_string_equal(s.field[8], "-9999.99");
    /* too long even without a name: refused, never cut */
    u.dist_nm = 123456.789;
    u.cpa_nm = 123456.789;
    u.tcpa_min = -123456.78;
    assert_int_equal(rtm_nmeaout_ttm(buf, sizeof(buf), "RA", &u, NULL), RTM_E_NOMEM);

    /* refusals */
    assert_int_equal(rtm_nmeaout_ttm(buf, sizeof(buf), "R", &t, NULL), RTM_E_ARG);
    assert_int_equal(rtm_nmeaout_ttm(buf, sizeof(buf), "ra", &t, NULL), RTM_E_ARG);
    u = t;
    u.number = 100;
    assert_int_equal(rtm_nmeaout_ttm(buf, sizeof(buf), "RA", &u, NULL), RTM_E_ARG);
    assert_int_equal(rtm_nmeaout_ttm(buf, 20, "RA", &t, NULL), RTM_E_NOMEM);
}

static void test_osd_alr_text(void **state)
{
    (void)state;
    char buf[128], want[128];
    rtm_nmeaout_osd(buf, sizeof(buf), "RA", NAN, 183.24, 4.06);
    with_checksum(want, sizeof(want), "$RAOSD,,A,183.2,P,4.1,P,,,N");
    assert_string_equal(buf, want);
    rtm_nmeaout_osd(buf, sizeof(buf), "RA", NAN, NAN, NAN);
    with_checksum(want, sizeof(want), "$RAOSD,,V,,P,,P,,,N");
    assert_string_equal(buf, want);

    rtm_nmeaout_alr(buf, sizeof(buf), "RA", 3600000u, 7, true, false, "CPA 0.10NM TCPA 4.0MIN");
    with_checksum(want, sizeof(want), "$RAALR,010000.00,007,A,V,CPA 0.10NM TCPA 4.0MIN");
    assert_string_equal(buf, want);
    /* reserved characters replaced, long text trimmed to 82 */
    char text[200];
    memset(text, 'X', sizeof(text) - 1);
    text[sizeof(text) - 1] = '\0';
    memcpy(text, "a*b,c$d!", 8);
    const int n = rtm_nmeaout_alr(buf, sizeof(buf), "RA", 0, 1, false, true, text);
    assert_int_equal(n, RTM_NMEAOUT_SENTENCE_MAX);
    assert_int_equal(strncmp(buf, "$RAALR,000000.00,001,V,A,a b c d ", 33), 0);
    rtm_nmea_t lx;
    rtm_nmea_init(&lx);
    rtm_nmea_sentence_t s;
    lex_one(&lx, buf, &s);
    assert_int_equal(s.nfields, 5);
    assert_int_equal(lx.stats.long_lines, 0);
    assert_int_equal(rtm_nmeaout_alr(buf, sizeof(buf), "RA", 0, 1000, true, true, ""), RTM_E_ARG);
}

/* ---- the reporter over loopback ---- */

typedef struct {
    int fd;
    rtm_nmea_t lx;
    char text[64][96];
    rtm_nmea_sentence_t s;
    unsigned n;
} rx_t;

static rx_t rx;

static int rx_open(void)
{
    rx.fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(rx.fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(rx.fd, (struct sockaddr *)&a, sizeof(a)), 0);
    socklen_t l = sizeof(a);
    assert_int_equal(getsockname(rx.fd, (struct sockaddr *)&a, &l), 0);
    rtm_nmea_init(&rx.lx);
    return ntohs(a.sin_port);
}

/* Receives what is queued: every datagram must be exactly one valid sentence. */
static unsigned rx_drain(void)
{
    rx.n = 0;
    struct pollfd p = {.fd = rx.fd, .events = POLLIN};
    while (poll(&p, 1, 50) > 0) {
        char d[256];
        const ssize_t k = recv(rx.fd, d, sizeof(d) - 1, 0);
        assert_true(k > 0 && k <= RTM_NMEAOUT_SENTENCE_MAX);
        d[k] = '\0';
        assert_int_equal(d[k - 2], '\r');
        assert_int_equal(d[k - 1], '\n');
        lex_one(&rx.lx, d, &rx.s);
        assert_true(rx.n < 64);
        snprintf(rx.text[rx.n++], sizeof(rx.text[0]), "%.*s", (int)(k - 2), d);
    }
    assert_int_equal(rx.lx.stats.bad_checksum + rx.lx.stats.garbage, 0);
    return rx.n;
}

/* The i-th received sentence without its checksum. */
static const char *body(unsigned i)
{
    static char b[96];
    assert_true(i < rx.n);
    snprintf(b, sizeof(b), "%s", rx.text[i]);
    char *star = strrchr(b, '*');
    assert_non_null(star);
    assert_int_equal(strtoul(star + 1, NULL, 16), checksum(b));
    *star = '\0';
    return b;
}

/* Drops the UTC field (the reporter stamps the wall clock). */
static const char *no_utc(const char *s)
{
    static char b[96];
    snprintf(b, sizeof(b), "%s", s);
    if (strncmp(b, "$RATTM", 6) == 0) { /* field 14 */
        char *p = b;
        for (int k = 0; k < 14 && p; k++)
            p = strchr(p + 1, ',');
        char *e = p ? strchr(p + 1, ',') : NULL;
        if (p && e)
            memmove(p + 1, e, strlen(e) + 1);
    } else if (strncmp(b, "$RAALR", 6) == 0) { /* field 1 */
        char *p = strchr(b, ','), *e = p ? strchr(p + 1, ',') : NULL;
        if (p && e)
            memmove(p + 1, e, strlen(e) + 1);
    }
    return b;
}

static void set_target(uint32_t i, uint32_t mmsi, float x_nm, float y_nm, float sog_kn,
                       float cog_deg)
{
    pic.id[i] = mmsi;
    pic.x[i] = x_nm * NM;
    pic.y[i] = y_nm * NM;
    pic.sog[i] = sog_kn * KN;
    pic.cog[i] = cog_deg * DEG_R;
    pic.rot[i] = 0;
}

/* CPA and TCPA through the kernels' own CPU code (kernels/nav_math.h). */
static void cpa_of(uint32_t n, float *cpa, float *tcpa)
{
    float ovx, ovy;
    nav_velocity(pic.own_sog, pic.own_cog, &ovx, &ovy);
    for (uint32_t i = 0; i < n; i++) {
        float tvx, tvy;
        nav_velocity(pic.sog[i], pic.cog[i], &tvx, &tvy);
        nav_cpa(pic.x[i], pic.y[i], tvx - ovx, tvy - ovy, &cpa[i], &tcpa[i]);
    }
}

static rtm_nmeaout_config_t out_cfg(int port)
{
    rtm_nmeaout_config_t c;
    memset(&c, 0, sizeof(c));
    snprintf(c.address, sizeof(c.address), "127.0.0.1:%d", port);
    snprintf(c.talker, sizeof(c.talker), "RA");
    c.interval_ns = 0;
    c.range_m = 12 * 1852.0;
    c.max_targets = 20;
    c.alarm_cpa_m = 0.5 * 1852.0;
    c.alarm_tcpa_ns = 20LL * 60 * 1000000000LL;
    return c;
}

static void test_report(void **state)
{
    (void)state;
    static rtm_nmeaout_t o;
    const int port = rx_open();
    rtm_nmeaout_config_t c = out_cfg(port);
    assert_int_equal(rtm_nmeaout_init(&o, &c), RTM_OK);

    /* own ship 10 kn due north; A 5 nm ahead coming south at 10 kn: CPA 0 in 15 min
     * (alarm); B 3 nm abeam to starboard, stopped: CPA 3 nm now (TCPA 0); C 20 nm away:
     * out of range */
    memset(&pic, 0, offsetof(rtm_traffic_t, id));
    pic.lat0 = 50.0;
    pic.lon0 = -3.0;
    pic.own_sog = 10 * KN;
    pic.own_cog = 0;
    pic.n = 3;
    set_target(0, 235000001, 0, 5, 10, 180);
    set_target(1, 235000002, 3, 0, 0, 0);
    set_target(2, 235000003, 0, 20, 10, 180);
    float cpa[3], tcpa[3];
    cpa_of(3, cpa, tcpa);
    assert_true(fabsf(cpa[0]) < 1e-2f && fabsf(tcpa[0] - 900.0f) < 1e-2f);
    assert_true(fabsf(cpa[1] - 3 * NM) < 1e-2f && fabsf(tcpa[1]) < 1e-3f);

    assert_int_equal(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 3, 1000), 4);
    assert_int_equal(rx_drain(), 4);
    assert_string_equal(body(0), "$RAOSD,,A,0.0,P,10.0,P,,,N");
    assert_string_equal(no_utc(body(1)), "$RATTM,01,5.000,0.00,T,10.0,180.00,T,0.000,15.00,N,"
                                         "235000001,T,,,R");
    assert_string_equal(no_utc(body(2)), "$RATTM,02,3.000,90.00,T,0.0,0.00,T,3.000,0.00,N,"
                                         "235000002,T,,,R");
    assert_string_equal(no_utc(body(3)), "$RAALR,,001,A,V,CPA 0.00NM TCPA 15.0MIN 235000001");

    /* B goes away, A passes: number 2 is lost, the alarm of 1 clears, 1 keeps its number */
    pic.n = 1;
    set_target(0, 235000001, 0, -1, 10, 180);
    cpa_of(1, cpa, tcpa);
    assert_int_equal(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 1, 2000), 4);
    assert_int_equal(rx_drain(), 4);
    assert_string_equal(body(0), "$RAOSD,,A,0.0,P,10.0,P,,,N");
    assert_string_equal(no_utc(body(1)), "$RATTM,02,,,T,,,T,,,N,,L,,,R");
    assert_string_equal(no_utc(body(2)), "$RATTM,01,1.000,180.00,T,10.0,180.00,T,0.000,-3.00,N,"
                                         "235000001,T,,,R");
    assert_string_equal(no_utc(body(3)), "$RAALR,,001,V,V,CPA 0.00NM TCPA -3.0MIN 235000001");

    /* a new target takes the lowest free number (2) */
    pic.n = 2;
    set_target(1, 235000009, -2, 0, 0, 0);
    cpa_of(2, cpa, tcpa);
    assert_int_equal(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 2, 3000), 3);
    assert_int_equal(rx_drain(), 3);
    assert_non_null(strstr(body(1), "$RATTM,02,2.000,270.00,")); /* approaching first */
    assert_non_null(strstr(body(1), ",235000009,T,"));
    assert_non_null(strstr(body(2), "$RATTM,01,1.000,180.00,"));

    /* no own-ship fix: OSD void, no target */
    pic.lat0 = NAN;
    assert_int_equal(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 2, 4000), 3);
    assert_int_equal(rx_drain(), 3);
    assert_string_equal(body(0), "$RAOSD,,V,,P,,P,,,N");
    assert_non_null(strstr(body(1), ",L,"));
    assert_non_null(strstr(body(2), ",L,"));

    rtm_nmeaout_stats_t st;
    rtm_nmeaout_stats(&o, &st);
    assert_int_equal(st.reports, 4);
    assert_int_equal(st.sentences, 14);
    assert_int_equal(st.osd, 4);
    assert_int_equal(st.lost, 3);
    assert_int_equal(st.alarms, 1);
    assert_int_equal(st.alr, 2);
    assert_int_equal(st.send_errors, 0);
    rtm_nmeaout_close(&o);
    rtm_nmeaout_close(&o);
    close(rx.fd);
}

static void test_rate_and_selection(void **state)
{
    (void)state;
    static rtm_nmeaout_t o;
    const int port = rx_open();
    rtm_nmeaout_config_t c = out_cfg(port);
    c.interval_ns = 100 * 1000000LL;
    c.max_targets = 3;
    assert_int_equal(rtm_nmeaout_init(&o, &c), RTM_OK);
    memset(&pic, 0, offsetof(rtm_traffic_t, id));
    pic.lat0 = 50.0;
    pic.lon0 = -3.0;
    pic.own_sog = 0;
    pic.n = 6;
    /* own ship stopped: receding (by range), approaching (by CPA), alarm first */
    set_target(0, 100, 0, 1, 5, 0);     /* receding, 1 nm */
    set_target(1, 101, 0, 2, 5, 180);   /* approaching, CPA 0: alarm (TCPA 24 min > 20?) */
    set_target(2, 102, 1, 2, 5, 180);   /* approaching, CPA 1 nm */
    set_target(3, 103, 0, 0.5, 10, 180);/* approaching, CPA 0 in 3 min: alarm */
    set_target(4, 104, 0, 11, 5, 0);    /* receding, 11 nm */
    set_target(5, 105, 0.2, 3, 6, 180); /* approaching, CPA 0.2 nm in 30 min */
    float cpa[6], tcpa[6];
    cpa_of(6, cpa, tcpa);
    /* 5 offers over 250 ms at a 100 ms interval: 3 reports */
    int64_t t = 0;
    int reports = 0;
    for (int k = 0; k < 6; k++, t += 50 * 1000000LL)
        reports += rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 6, t) > 0;
    assert_int_equal(reports, 3);
    rtm_nmeaout_stats_t st;
    rtm_nmeaout_stats(&o, &st);
    assert_int_equal(st.skipped, 3);
    rx_drain();
    /* each report: OSD, the alarm target 103 then ... 2 approaching by CPA: 101 (0), 105 */
    assert_non_null(strstr(body(1), ",000000103,"));
    assert_non_null(strstr(body(2), ",000000101,"));
    assert_non_null(strstr(body(3), ",000000105,"));
    assert_non_null(strstr(body(4), "ALR"));
    assert_non_null(strstr(body(4), "000000103"));
    /* a concurrent reporter is turned away at once */
    atomic_flag_test_and_set(&o.busy);
    assert_int_equal(rtm_nmeaout_offer(&o, &pic, cpa, tcpa, 6, t + 1000000000LL), 0);
    rtm_nmeaout_stats(&o, &st);
    assert_int_equal(st.busy, 1);
    atomic_flag_clear(&o.busy);
    rtm_nmeaout_close(&o);
    close(rx.fd);
}

static void test_init_refusals(void **state)
{
    (void)state;
    static rtm_nmeaout_t o;
    rtm_nmeaout_config_t c = out_cfg(10111);
    c.max_targets = 100;
    assert_int_equal(rtm_nmeaout_init(&o, &c), RTM_E_ARG);
    c = out_cfg(10111);
    snprintf(c.talker, sizeof(c.talker), "r");
    assert_int_equal(rtm_nmeaout_init(&o, &c), RTM_E_ARG);
    c = out_cfg(10111);
    snprintf(c.address, sizeof(c.address), "no-port");
    assert_int_equal(rtm_nmeaout_init(&o, &c), RTM_E_ARG);
    c = out_cfg(10111);
    snprintf(c.address, sizeof(c.address), "127.0.0.1:65536");
    assert_int_equal(rtm_nmeaout_init(&o, &c), RTM_E_ARG);
    /* offers on an output that failed to open are ignored */
    assert_int_equal(rtm_nmeaout_offer(&o, &pic, NULL, NULL, 0, 0), 0);
    rtm_nmeaout_close(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ttm_text),
        cmocka_unit_test(test_osd_alr_text),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_rate_and_selection),
        cmocka_unit_test(test_init_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
