/* test_ais.c — AIS decoding against gpsd's regression vectors (raw and JSON, in-process
 * and through `rtmgr nmea decode`), round trips of synthetic messages, "not
 * available" values, and multi-sentence assembly under hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "rtmgr/ais.h"
#include "rtmgr/nmea.h"
#include "rtmgr/rng.h"

#define SAMPLE RTM_TEST_SHARED_DIR "/data/ais/gpsd_sample.aivdm"
#define SAMPLE_CHK SAMPLE ".chk"
#define SAMPLE_JS SAMPLE ".js.chk"

static bool supported(unsigned type)
{
    return type == 1 || type == 2 || type == 3 || type == 5 || type == 18 || type == 19 ||
           type == 24;
}

/* ---- gpsd's vectors ---- */

/* One message in `gpsdecode -u -c` form (raw values, '|'-separated). */
static void raw_line(const rtm_ais_msg_t *m, char *b, size_t n)
{
    const rtm_ais_pos_t *p = &m->pos;
    const rtm_ais_static_t *s = &m->vsd;
    int k = snprintf(b, n, "%u|%u|%09u|", m->type, m->repeat, m->mmsi);
    b += k;
    n -= (size_t)k;
    switch (m->type) {
    case 1:
    case 2:
    case 3:
        snprintf(b, n, "%u|%d|%u|%u|%d|%d|%u|%u|%u|0x%x|%u|0x%x", p->status, p->turn, p->speed,
                 p->accuracy, p->lon, p->lat, p->course, p->heading, p->second, p->maneuver,
                 p->raim, p->radio);
        break;
    case 5:
        snprintf(b, n, "%u|%u|%s|%s|%u|%u|%u|%u|%u|%u|%02u-%02uT%02u:%02uZ|%u|%s|%u", s->imo,
                 s->ais_version, s->callsign, s->shipname, s->shiptype, s->to_bow, s->to_stern,
                 s->to_port, s->to_starboard, s->epfd, s->month, s->day, s->hour, s->minute,
                 s->draught, s->destination, s->dte);
        break;
    case 18:
        snprintf(b, n, "%u|%u|%u|%d|%d|%u|%u|%u|0x%x|%u|%u|%u|%u|%u|%u|0x%x", p->reserved,
                 p->speed, p->accuracy, p->lon, p->lat, p->course, p->heading, p->second,
                 p->regional, p->cs, p->display, p->dsc, p->band, p->msg22, p->raim, p->radio);
        break;
    case 19:
        snprintf(b, n, "%u|%u|%u|%d|%d|%u|%u|%u|0x%x|%s|%u|%u|%u|%u|%u|%u|%u|%u|%u", p->reserved,
                 p->speed, p->accuracy, p->lon, p->lat, p->course, p->heading, p->second,
                 p->regional, s->shipname, s->shiptype, s->to_bow, s->to_stern, s->to_port,
                 s->to_starboard, s->epfd, p->raim, s->dte, p->assigned);
        break;
    case 24:
        snprintf(b, n, "%s|%u|%s|%u|%u|%s|%u|%u|%u|%u", s->shipname, s->shiptype, s->vendorid,
                 s->model, s->serial, s->callsign, s->to_bow, s->to_stern, s->to_port,
                 s->to_starboard);
        break;
    default:
        b[0] = '\0';
    }
}

typedef struct {
    char line[64][1024];
    int n;
} lines_t;

/* Lines of `path` whose message type is supported (gpsdecode output files). */
static void read_expected(const char *path, bool json, lines_t *out)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    out->n = 0;
    char buf[4096];
    while (fgets(buf, sizeof(buf), f)) {
        unsigned type;
        const char *t = json ? strstr(buf, "\"type\":") : buf;
        if (!t || sscanf(t + (json ? 7 : 0), "%u", &type) != 1 || !supported(type))
            continue;
        assert_true(out->n < 64);
        size_t n = strlen(buf);
        if (!json && n >= 2 && buf[n - 2] == '\r') /* the raw file has CR LF */
            memcpy(buf + n - 2, "\n", 2);
        assert_true(strlen(buf) < sizeof(out->line[0]));
        memcpy(out->line[out->n++], buf, strlen(buf) + 1);
    }
    fclose(f);
}

/* Decodes the sample as gpsdecode does (type 24 only once paired). */
static void decode_sample(lines_t *raw, lines_t *json, rtm_ais_stats_t *st)
{
    static rtm_nmea_t lx;
    static rtm_ais_t ais;
    rtm_nmea_init(&lx);
    rtm_ais_init(&ais, NULL);
    FILE *f = fopen(SAMPLE, "rb");
    assert_non_null(f);
    raw->n = json->n = 0;
    int c;
    int64_t t = 0;
    rtm_nmea_sentence_t s;
    rtm_ais_msg_t m;
    while ((c = fgetc(f)) != EOF) {
        if (rtm_nmea_push(&lx, (uint8_t)c, &s) != 1)
            continue;
        if (rtm_ais_feed(&ais, &s, t += 1000000, &m) != 1)
            continue;
        assert_true(supported(m.type));
        if (m.type == 24 && m.part != RTM_AIS_PART_AB)
            continue;
        assert_true(raw->n < 64);
        raw_line(&m, raw->line[raw->n], sizeof(raw->line[0]));
        strcat(raw->line[raw->n++], "\n");
        assert_true(rtm_ais_json(&m, json->line[json->n], sizeof(json->line[0])) > 0);
        json->n++;
    }
    fclose(f);
    assert_int_equal(lx.stats.bad_checksum, 0);
    *st = ais.stats;
}

static void test_gpsd_raw(void **state)
{
    (void)state;
    static lines_t got, want, js;
    rtm_ais_stats_t st;
    decode_sample(&got, &js, &st);
    read_expected(SAMPLE_CHK, false, &want);
    assert_int_equal(want.n, 15);
    assert_int_equal(got.n, want.n);
    for (int i = 0; i < want.n; i++)
        assert_string_equal(got.line[i], want.line[i]);
    /* every type of the file is seen, unsupported ones are only counted */
    assert_int_equal(st.by_type[1], 4);
    assert_int_equal(st.by_type[5], 3);
    assert_int_equal(st.by_type[24], 7);
    assert_int_equal(st.messages, 20); /* 15 printed + 24A x3 + 24B unpaired x2 */
    assert_int_equal(st.t24_unpaired, 2);
    assert_int_equal(st.unsupported, 82);
    assert_int_equal(st.malformed + st.bad_armor + st.bad_length, 0);
}

static void test_gpsd_json(void **state)
{
    (void)state;
    static lines_t raw, got, want;
    rtm_ais_stats_t st;
    decode_sample(&raw, &got, &st);
    read_expected(SAMPLE_JS, true, &want);
    assert_int_equal(want.n, 15);
    assert_int_equal(got.n, want.n);
    for (int i = 0; i < want.n; i++)
        assert_string_equal(got.line[i], want.line[i]);
}

/* The rtmgr binary: same output, line by line; exit codes. */
static void test_rtmgr_decode(void **state)
{
    (void)state;
    static lines_t want;
    read_expected(SAMPLE_JS, true, &want);
    FILE *p = popen(RTM_TEST_RTMGR " nmea decode " SAMPLE, "r");
    assert_non_null(p);
    char buf[4096];
    int n = 0;
    while (fgets(buf, sizeof(buf), p)) {
        assert_true(n < want.n);
        assert_string_equal(buf, want.line[n]);
        n++;
    }
    int st = pclose(p);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(n, want.n);

    /* --split24 prints the parts as gpsd -s does: 7 type 24 lines */
    p = popen(RTM_TEST_RTMGR " nmea decode --split24 " SAMPLE " | grep -c '\"type\":24,'", "r");
    assert_non_null(p);
    assert_non_null(fgets(buf, sizeof(buf), p));
    pclose(p);
    assert_int_equal(atoi(buf), 7);

    const struct {
        const char *args;
        int code;
    } cases[] = {
        {" nmea", 1},
        {" nmea decode", 1},
        {" nmea frobnicate " SAMPLE, 1},
        {" nmea decode --bogus " SAMPLE, 1},
        {" nmea decode " SAMPLE " " SAMPLE, 1},
        {" nmea decode /nonexistent/file.nmea", 3},
        {" nmea stats /nonexistent/file.nmea", 3},
        {" nmea stats " SAMPLE, 0},
        {" nmea --help", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "%s%s >/dev/null 2>&1", RTM_TEST_RTMGR, cases[i].args);
        int rc = system(cmd);
        assert_true(WIFEXITED(rc));
        if (WEXITSTATUS(rc) != cases[i].code)
            fail_msg("'%s' exited %d, want %d", cases[i].args, WEXITSTATUS(rc), cases[i].code);
    }
}

/* ---- a small encoder for synthetic messages ---- */

typedef struct {
    uint8_t b[256];
    unsigned n;
} enc_t;

static void put(enc_t *e, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = (unsigned)(v >> (width - 1 - i)) & 1u;
        if (bit)
            e->b[e->n >> 3] |= (uint8_t)(0x80u >> (e->n & 7));
        e->n++;
    }
}

static unsigned sixbit_of(char c)
{
    static const char sixchr[] =
        "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_ !\"#$%&'()*+,-./0123456789:;<=>?";
    const char *p = strchr(sixchr, c);
    return p ? (unsigned)(p - sixchr) : 0;
}

static void put_text(enc_t *e, const char *s, unsigned chars)
{
    size_t len = strlen(s);
    for (unsigned i = 0; i < chars; i++)
        put(e, 6, i < len ? sixbit_of(s[i]) : 0);
}

static void armor(const enc_t *e, char *out, unsigned *fill)
{
    unsigned chars = (e->n + 5) / 6;
    for (unsigned i = 0; i < chars; i++) {
        unsigned v = 0;
        for (unsigned k = 0; k < 6; k++) {
            unsigned bit = 6 * i + k;
            v = (v << 1) | (bit < e->n ? (e->b[bit >> 3] >> (7 - (bit & 7))) & 1u : 0u);
        }
        out[i] = (char)(v < 40 ? v + 48 : v + 56);
    }
    out[chars] = '\0';
    *fill = chars * 6 - e->n;
}

static void rand_text(rtm_rng_t *r, char *out, unsigned max)
{
    /* printable six-bit characters except '@'; trailing blanks are trimmed on decode */
    static const char pool[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_ !\"#$%&'()*+,-./0123456789:;<=>?";
    unsigned n = (unsigned)rtm_rng_below(r, max + 1);
    for (unsigned i = 0; i < n; i++)
        out[i] = pool[rtm_rng_below(r, sizeof(pool) - 1)];
    out[n] = '\0';
}

static void trimmed(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
}

static uint32_t rbits(rtm_rng_t *r, unsigned width)
{
    return (uint32_t)(rtm_rng_next(r) & ((1ull << width) - 1));
}

static int32_t sext(uint32_t v, unsigned width)
{
    return (v & (1u << (width - 1))) ? (int32_t)((int64_t)v - ((int64_t)1 << width)) : (int32_t)v;
}

static void test_roundtrip(void **state)
{
    (void)state;
    rtm_rng_t r;
    rtm_rng_seed(&r, 7);
    char payload[128];
    unsigned fill;
    rtm_ais_msg_t m;
    for (int it = 0; it < 2000; it++) {
        /* class A */
        enc_t e = {{0}, 0};
        uint32_t type = 1 + rbits(&r, 2) % 3, rep = rbits(&r, 2), mmsi = rbits(&r, 30);
        uint32_t status = rbits(&r, 4), turn = rbits(&r, 8), speed = rbits(&r, 10);
        uint32_t acc = rbits(&r, 1), lon = rbits(&r, 28), lat = rbits(&r, 27);
        uint32_t course = rbits(&r, 12), heading = rbits(&r, 9), sec = rbits(&r, 6);
        uint32_t man = rbits(&r, 2), raim = rbits(&r, 1), radio = rbits(&r, 19);
        put(&e, 6, type), put(&e, 2, rep), put(&e, 30, mmsi), put(&e, 4, status);
        put(&e, 8, turn), put(&e, 10, speed), put(&e, 1, acc), put(&e, 28, lon);
        put(&e, 27, lat), put(&e, 12, course), put(&e, 9, heading), put(&e, 6, sec);
        put(&e, 2, man), put(&e, 3, 0), put(&e, 1, raim), put(&e, 19, radio);
        armor(&e, payload, &fill);
        assert_int_equal(rtm_ais_decode(payload, strlen(payload), fill, &m), RTM_OK);
        assert_int_equal(m.type, type);
        assert_int_equal(m.repeat, rep);
        assert_int_equal(m.mmsi, mmsi);
        assert_int_equal(m.bitlen, 168);
        assert_int_equal(m.pos.status, status);
        assert_int_equal(m.pos.turn, sext(turn, 8));
        assert_int_equal(m.pos.speed, speed);
        assert_int_equal(m.pos.accuracy, acc);
        assert_int_equal(m.pos.lon, sext(lon, 28));
        assert_int_equal(m.pos.lat, sext(lat, 27));
        assert_int_equal(m.pos.course, course);
        assert_int_equal(m.pos.heading, heading);
        assert_int_equal(m.pos.second, sec);
        assert_int_equal(m.pos.maneuver, man);
        assert_int_equal(m.pos.raim, raim);
        assert_int_equal(m.pos.radio, radio);

        /* class B position and extended */
        for (unsigned t = 18; t <= 19; t++) {
            enc_t b = {{0}, 0};
            uint32_t res = rbits(&r, 8), reg = rbits(&r, t == 18 ? 2 : 4), flags = rbits(&r, 7);
            uint32_t shiptype = rbits(&r, 8), bow = rbits(&r, 9), stern = rbits(&r, 9);
            uint32_t port = rbits(&r, 6), stbd = rbits(&r, 6), epfd = rbits(&r, 4);
            char name[21];
            rand_text(&r, name, 20);
            put(&b, 6, t), put(&b, 2, rep), put(&b, 30, mmsi), put(&b, 8, res);
            put(&b, 10, speed), put(&b, 1, acc), put(&b, 28, lon), put(&b, 27, lat);
            put(&b, 12, course), put(&b, 9, heading), put(&b, 6, sec);
            if (t == 18) {
                put(&b, 2, reg), put(&b, 7, flags), put(&b, 20, radio);
            } else {
                put(&b, 4, reg), put_text(&b, name, 20), put(&b, 8, shiptype);
                put(&b, 9, bow), put(&b, 9, stern), put(&b, 6, port), put(&b, 6, stbd);
                put(&b, 4, epfd), put(&b, 3, flags & 7), put(&b, 4, 0);
            }
            armor(&b, payload, &fill);
            assert_int_equal(rtm_ais_decode(payload, strlen(payload), fill, &m), RTM_OK);
            assert_int_equal(m.type, t);
            assert_int_equal(m.pos.reserved, res);
            assert_int_equal(m.pos.speed, speed);
            assert_int_equal(m.pos.lon, sext(lon, 28));
            assert_int_equal(m.pos.lat, sext(lat, 27));
            assert_int_equal(m.pos.course, course);
            assert_int_equal(m.pos.heading, heading);
            assert_int_equal(m.pos.second, sec);
            assert_int_equal(m.pos.regional, reg);
            assert_int_equal(m.pos.turn, RTM_AIS_TURN_NA);
            if (t == 18) {
                assert_int_equal(m.pos.cs, (flags >> 6) & 1);
                assert_int_equal(m.pos.display, (flags >> 5) & 1);
                assert_int_equal(m.pos.dsc, (flags >> 4) & 1);
                assert_int_equal(m.pos.band, (flags >> 3) & 1);
                assert_int_equal(m.pos.msg22, (flags >> 2) & 1);
                assert_int_equal(m.pos.assigned, (flags >> 1) & 1);
                assert_int_equal(m.pos.raim, flags & 1);
                assert_int_equal(m.pos.radio, radio);
            } else {
                trimmed(name);
                assert_string_equal(m.vsd.shipname, name);
                assert_int_equal(m.vsd.shiptype, shiptype);
                assert_int_equal(m.vsd.to_bow, bow);
                assert_int_equal(m.vsd.to_stern, stern);
                assert_int_equal(m.vsd.to_port, port);
                assert_int_equal(m.vsd.to_starboard, stbd);
                assert_int_equal(m.vsd.epfd, epfd);
                assert_int_equal(m.pos.raim, (flags >> 2) & 1);
                assert_int_equal(m.vsd.dte, (flags >> 1) & 1);
                assert_int_equal(m.pos.assigned, flags & 1);
            }
        }

        /* type 5 */
        {
            enc_t b = {{0}, 0};
            char cs[8], name[21], dest[21];
            rand_text(&r, cs, 7), rand_text(&r, name, 20), rand_text(&r, dest, 20);
            uint32_t ver = rbits(&r, 2), imo = rbits(&r, 30), st = rbits(&r, 8);
            uint32_t bow = rbits(&r, 9), stern = rbits(&r, 9), port = rbits(&r, 6);
            uint32_t stbd = rbits(&r, 6), epfd = rbits(&r, 4), mon = rbits(&r, 4);
            uint32_t day = rbits(&r, 5), hr = rbits(&r, 5), mi = rbits(&r, 6);
            uint32_t dr = rbits(&r, 8), dte = rbits(&r, 1);
            put(&b, 6, 5), put(&b, 2, rep), put(&b, 30, mmsi), put(&b, 2, ver);
            put(&b, 30, imo), put_text(&b, cs, 7), put_text(&b, name, 20), put(&b, 8, st);
            put(&b, 9, bow), put(&b, 9, stern), put(&b, 6, port), put(&b, 6, stbd);
            put(&b, 4, epfd), put(&b, 4, mon), put(&b, 5, day), put(&b, 5, hr);
            put(&b, 6, mi), put(&b, 8, dr), put_text(&b, dest, 20), put(&b, 1, dte);
            put(&b, 1, 0);
            assert_int_equal(b.n, 424);
            armor(&b, payload, &fill);
            assert_int_equal(rtm_ais_decode(payload, strlen(payload), fill, &m), RTM_OK);
            trimmed(cs), trimmed(name), trimmed(dest);
            assert_int_equal(m.vsd.ais_version, ver);
            assert_int_equal(m.vsd.imo, imo);
            assert_string_equal(m.vsd.callsign, cs);
            assert_string_equal(m.vsd.shipname, name);
            assert_string_equal(m.vsd.destination, dest);
            assert_int_equal(m.vsd.shiptype, st);
            assert_int_equal(m.vsd.to_bow, bow);
            assert_int_equal(m.vsd.to_stern, stern);
            assert_int_equal(m.vsd.to_port, port);
            assert_int_equal(m.vsd.to_starboard, stbd);
            assert_int_equal(m.vsd.epfd, epfd);
            assert_int_equal(m.vsd.month, mon);
            assert_int_equal(m.vsd.day, day);
            assert_int_equal(m.vsd.hour, hr);
            assert_int_equal(m.vsd.minute, mi);
            assert_int_equal(m.vsd.draught, dr);
            assert_int_equal(m.vsd.dte, dte);
        }

        /* type 24 parts A and B (ordinary and auxiliary craft) */
        {
            enc_t a = {{0}, 0}, b = {{0}, 0};
            char name[21], vendor[8], cs[8];
            rand_text(&r, name, 20), rand_text(&r, cs, 7);
            for (int i = 0; i < 7; i++) /* all 7 characters, so model/serial are defined */
                vendor[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[rtm_rng_below(&r, 36)];
            vendor[7] = '\0';
            uint32_t mm = (it & 1) ? 980000000 + rbits(&r, 20) : mmsi % 980000000;
            uint32_t st = rbits(&r, 8), dims = rbits(&r, 30);
            put(&a, 6, 24), put(&a, 2, rep), put(&a, 30, mm), put(&a, 2, 0);
            put_text(&a, name, 20), put(&a, 8, 0);
            put(&b, 6, 24), put(&b, 2, rep), put(&b, 30, mm), put(&b, 2, 1), put(&b, 8, st);
            put_text(&b, vendor, 7), put_text(&b, cs, 7), put(&b, 30, dims), put(&b, 6, 0);
            armor(&a, payload, &fill);
            assert_int_equal(rtm_ais_decode(payload, strlen(payload), fill, &m), RTM_OK);
            assert_int_equal(m.part, RTM_AIS_PART_A);
            trimmed(name);
            assert_string_equal(m.vsd.shipname, name);
            armor(&b, payload, &fill);
            assert_int_equal(rtm_ais_decode(payload, strlen(payload), fill, &m), RTM_OK);
            assert_int_equal(m.part, RTM_AIS_PART_B);
            assert_int_equal(m.vsd.shiptype, st);
            assert_string_equal(m.vsd.vendorid, vendor);
            uint32_t c3 = sixbit_of(vendor[3]), c4 = sixbit_of(vendor[4]);
            uint32_t c5 = sixbit_of(vendor[5]), c6 = sixbit_of(vendor[6]);
            assert_int_equal(m.vsd.model, c3 >> 2);
            assert_int_equal(m.vsd.serial, ((c3 & 3) << 18) | (c4 << 12) | (c5 << 6) | c6);
            trimmed(cs);
            assert_string_equal(m.vsd.callsign, cs);
            if (mm / 10000000 == 98) {
                assert_int_equal(m.vsd.mothership_mmsi, dims);
                assert_int_equal(m.vsd.to_bow, 0);
            } else {
                assert_int_equal(m.vsd.to_bow, dims >> 21);
                assert_int_equal(m.vsd.to_stern, (dims >> 12) & 511);
                assert_int_equal(m.vsd.to_port, (dims >> 6) & 63);
                assert_int_equal(m.vsd.to_starboard, dims & 63);
            }
        }
    }
}

/* "Not available" stays distinguishable and scales as gpsd does. */
static void test_not_available(void **state)
{
    (void)state;
    enc_t e = {{0}, 0};
    put(&e, 6, 1), put(&e, 2, 0), put(&e, 30, 227006760), put(&e, 4, 15);
    put(&e, 8, 0x80), put(&e, 10, 1023), put(&e, 1, 0), put(&e, 28, 181 * 600000);
    put(&e, 27, 91 * 600000), put(&e, 12, 3600), put(&e, 9, 511), put(&e, 6, 60);
    put(&e, 2, 0), put(&e, 3, 0), put(&e, 1, 0), put(&e, 19, 0);
    char payload[64], json[1024];
    unsigned fill;
    armor(&e, payload, &fill);
    rtm_ais_msg_t m;
    assert_int_equal(rtm_ais_decode(payload, strlen(payload), fill, &m), RTM_OK);
    assert_int_equal(m.pos.turn, RTM_AIS_TURN_NA);
    assert_int_equal(m.pos.speed, RTM_AIS_SPEED_NA);
    assert_int_equal(m.pos.lat, RTM_AIS_LAT_NA);
    assert_int_equal(m.pos.lon, RTM_AIS_LON_NA);
    assert_int_equal(m.pos.course, RTM_AIS_COURSE_NA);
    assert_int_equal(m.pos.heading, RTM_AIS_HEADING_NA);
    assert_int_equal(m.pos.second, RTM_AIS_SECOND_NA);
    assert_false(rtm_ais_pos_valid(&m.pos));
    assert_float_equal(rtm_ais_lat_deg(m.pos.lat), 91.0, 0.0);
    assert_float_equal(rtm_ais_lon_deg(m.pos.lon), 181.0, 0.0);
    assert_float_equal(rtm_ais_speed_kn(m.pos.speed), 102.3, 1e-12);
    assert_float_equal(rtm_ais_course_deg(m.pos.course), 360.0, 0.0);
    assert_true(rtm_ais_turn_deg_min(m.pos.turn) != rtm_ais_turn_deg_min(m.pos.turn)); /* NaN */
    assert_true(rtm_ais_json(&m, json, sizeof(json)) > 0);
    assert_non_null(strstr(json, "\"status\":15,\"status_text\":\"Not defined\","
                                 "\"turn\":\"n/a\",\"speed\":\"n/a\","));
    assert_non_null(strstr(json, "\"lon\":181.0000000,\"lat\":91.0000000,\"course\":360.0,"
                                 "\"heading\":511,\"second\":60,"));
    assert_int_equal(rtm_ais_json(&m, json, 40), RTM_E_NOMEM);
    assert_string_equal(json, "");

    /* 102.2 kn or more; turning fast; a real rate of turn */
    rtm_ais_msg_t f = m;
    f.pos.speed = RTM_AIS_SPEED_FAST;
    f.pos.turn = 127;
    assert_true(rtm_ais_json(&f, json, sizeof(json)) > 0);
    assert_non_null(strstr(json, "\"turn\":\"fastright\",\"speed\":\"fast\","));
    f.pos.turn = -10;
    assert_true(rtm_ais_json(&f, json, sizeof(json)) > 0);
    assert_non_null(strstr(json, "\"turn\":\"-4.46\","));
    assert_float_equal(rtm_ais_turn_deg_min(-10), -(10 / 4.733) * (10 / 4.733), 1e-12);

    /* a valid corner: exactly 90 S, 180 W */
    f.pos.lat = -90 * 600000;
    f.pos.lon = -180 * 600000;
    assert_true(rtm_ais_pos_valid(&f.pos));

    /* legends */
    char t[64];
    assert_string_equal(rtm_ais_shiptype_text(0, t, sizeof(t)), "Not available");
    assert_string_equal(rtm_ais_shiptype_text(29, t, sizeof(t)),
                        "Wing in ground (WIG) - Reserved for future use");
    assert_string_equal(rtm_ais_shiptype_text(37, t, sizeof(t)), "Pleasure Craft");
    assert_string_equal(rtm_ais_shiptype_text(49, t, sizeof(t)),
                        "High speed craft (HSC) - No additional information");
    assert_string_equal(rtm_ais_shiptype_text(83, t, sizeof(t)), "Tanker - Hazardous category C");
    assert_string_equal(rtm_ais_shiptype_text(99, t, sizeof(t)),
                        "Other Type - no additional information");
    assert_string_equal(rtm_ais_shiptype_text(100, t, sizeof(t)), "INVALID SHIP TYPE");
    assert_string_equal(rtm_ais_epfd_text(15), "Internal GNSS");
    assert_string_equal(rtm_ais_epfd_text(16), "INVALID EPFD");
}

/* ---- assembly ---- */

typedef struct {
    rtm_nmea_t lx;
    rtm_ais_t ais;
    int64_t t;
} feeder_t;

static void feeder_init(feeder_t *f)
{
    rtm_nmea_init(&f->lx);
    rtm_ais_init(&f->ais, NULL);
    f->t = 0;
}

/* Feeds "!AIVDM,<fields>" (checksum added); returns rtm_ais_feed()'s result. */
static int feed(feeder_t *f, const char *fields, rtm_ais_msg_t *m)
{
    char line[300];
    uint8_t x = 0;
    for (const char *p = fields + 1; *p; p++)
        x ^= (uint8_t)*p;
    snprintf(line, sizeof(line), "%s*%02X\r\n", fields, x);
    rtm_nmea_sentence_t s;
    int got = 0;
    for (const char *p = line; *p; p++)
        if (rtm_nmea_push(&f->lx, (uint8_t)*p, &s) == 1) {
            got = rtm_ais_feed(&f->ais, &s, f->t, m);
            f->t += 1000000;
        }
    return got;
}

#define T5_1 "55?MbV02;H;s<HtKR20EHE:0@T4@Dn2222222216L961O5Gf0NSQEp6ClRp8"
#define T5_2 "88888888880"

static void test_fragments_in_and_out_of_order(void **state)
{
    (void)state;
    static feeder_t f;
    rtm_ais_msg_t m, ref;
    assert_int_equal(rtm_ais_decode(T5_1 T5_2, strlen(T5_1 T5_2), 2, &ref), RTM_OK);
    assert_string_equal(ref.vsd.shipname, "EVER DIADEM");

    feeder_init(&f);
    assert_int_equal(feed(&f, "!AIVDM,2,1,1,A," T5_1 ",0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,2,1,A," T5_2 ",2", &m), 1);
    assert_memory_equal(&m.vsd, &ref.vsd, sizeof(ref.vsd));
    assert_int_equal(m.channel, 'A');
    assert_int_equal(f.ais.stats.out_of_order, 0);

    /* reversed */
    assert_int_equal(feed(&f, "!AIVDM,2,2,3,B," T5_2 ",2", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,1,3,B," T5_1 ",0", &m), 1);
    assert_memory_equal(&m.vsd, &ref.vsd, sizeof(ref.vsd));
    assert_int_equal(m.channel, 'B');
    assert_int_equal(f.ais.stats.out_of_order, 1);

    /* three fragments, 3 1 2, interleaved with another message on the other channel */
    const char *a = "55?MbV02;H;s<HtKR20EHE:0@T4@", *b = "Dn2222222216L961O5Gf0NSQEp6ClRp8";
    char s1[128], s2[128], s3[128];
    snprintf(s1, sizeof(s1), "!AIVDM,3,1,7,A,%s,0", a);
    snprintf(s2, sizeof(s2), "!AIVDM,3,2,7,A,%s,0", b);
    snprintf(s3, sizeof(s3), "!AIVDM,3,3,7,A,%s,2", T5_2);
    assert_int_equal(feed(&f, s3, &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,1,7,B," T5_1 ",0", &m), 0);
    assert_int_equal(feed(&f, s1, &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,2,7,B," T5_2 ",2", &m), 1);
    assert_int_equal(m.channel, 'B');
    assert_int_equal(feed(&f, s2, &m), 1);
    assert_memory_equal(&m.vsd, &ref.vsd, sizeof(ref.vsd));
    assert_int_equal(m.channel, 'A');
    assert_int_equal(f.ais.stats.out_of_order, 2);
    assert_int_equal(f.ais.stats.messages, 4);
    assert_int_equal(f.ais.stats.fragments, 9);
    assert_int_equal(f.ais.stats.partial_dropped, 0);

    /* no sequential id, channel given as 1/2 */
    assert_int_equal(feed(&f, "!AIVDM,2,1,,1," T5_1 ",0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,2,,1," T5_2 ",2", &m), 1);
    assert_int_equal(m.channel, 'A');
}

static void test_fragments_missing_stale_duplicate(void **state)
{
    (void)state;
    static feeder_t f;
    rtm_ais_msg_t m;
    feeder_init(&f);

    /* missing second fragment: dropped after 64 more sentences */
    assert_int_equal(feed(&f, "!AIVDM,2,1,4,A," T5_1 ",0", &m), 0);
    for (int i = 0; i < 64; i++)
        assert_int_equal(feed(&f, "!AIVDM,1,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ,0", &m), 1);
    assert_int_equal(f.ais.stats.stale, 0);
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ,0", &m), 1);
    assert_int_equal(f.ais.stats.stale, 1);
    assert_int_equal(f.ais.stats.partial_dropped, 1);
    assert_int_equal(f.ais.stats.frags_missing, 1);
    /* the late second fragment alone: out of order, kept waiting, then dropped */
    assert_int_equal(feed(&f, "!AIVDM,2,2,4,A," T5_2 ",2", &m), 0);
    assert_int_equal(f.ais.stats.out_of_order, 1);

    /* stale by time: 3 s between fragments */
    feeder_init(&f);
    assert_int_equal(feed(&f, "!AIVDM,2,1,5,A," T5_1 ",0", &m), 0);
    f.t += 3000000000LL;
    assert_int_equal(feed(&f, "!AIVDM,2,2,5,A," T5_2 ",2", &m), 0);
    assert_int_equal(f.ais.stats.stale, 1);
    assert_int_equal(f.ais.stats.frags_missing, 1);
    assert_int_equal(f.ais.stats.out_of_order, 1);
    assert_int_equal(f.ais.stats.messages, 0);

    /* duplicate first fragment: the sender restarted; the new one completes */
    feeder_init(&f);
    assert_int_equal(feed(&f, "!AIVDM,2,1,6,A," T5_1 ",0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,1,6,A," T5_1 ",0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,2,6,A," T5_2 ",2", &m), 1);
    assert_int_equal(f.ais.stats.duplicate, 1);
    assert_int_equal(f.ais.stats.partial_dropped, 1);
    assert_int_equal(f.ais.stats.messages, 1);

    /* all slots busy: the oldest partial message is evicted */
    feeder_init(&f);
    _Static_assert(RTM_AIS_SLOTS + 1 <= 20, "the keys below cover 20 partial messages");
    for (int i = 0; i < RTM_AIS_SLOTS + 1; i++) {
        char s[128];
        snprintf(s, sizeof(s), "!AIVDM,2,1,%d,%c," T5_1 ",0", i % 10, "AB"[i / 10]);
        assert_int_equal(feed(&f, s, &m), 0);
    }
    assert_int_equal(f.ais.stats.evicted, 1);
    assert_int_equal(f.ais.stats.partial_dropped, 1);
    assert_int_equal(feed(&f, "!AIVDM,2,2,0,A," T5_2 ",2", &m), 0); /* 0 was evicted */
    assert_int_equal(feed(&f, "!AIVDM,2,2,8,A," T5_2 ",2", &m), 1);

    /* payload too long for one message */
    feeder_init(&f);
    char big[128];
    memset(big, '0', 60);
    big[60] = '\0';
    for (int i = 1; i <= 5; i++) {
        char s[200];
        snprintf(s, sizeof(s), "!AIVDM,5,%d,1,A,%s,0", i, big);
        assert_int_equal(feed(&f, s, &m), 0);
    }
    assert_int_equal(f.ais.stats.overlong, 1);
    assert_int_equal(f.ais.stats.messages, 0);
}

static void test_hostile_sentences(void **state)
{
    (void)state;
    static feeder_t f;
    rtm_ais_msg_t m;
    feeder_init(&f);
    const char *malformed[] = {
        "!AIVDM,0,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ,0",  /* count 0 */
        "!AIVDM,x,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ,0",  /* count not a digit */
        "!AIVDM,2,3,1,A,15RTgt0PAso;90TKcjM8h6g208CQ,0", /* number > count */
        "!AIVDM,1,1,12,A,15RTgt0PAso;90TKcjM8h6g208CQ,0", /* sequence id 12 */
        "!AIVDM,1,1,,Z,15RTgt0PAso;90TKcjM8h6g208CQ,0",  /* channel Z */
        "!AIVDM,1,1,,AB,15RTgt0PAso;90TKcjM8h6g208CQ,0", /* channel AB */
        "!AIVDM,1,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ,7",  /* fill 7 */
        "!AIVDM,2,1,1,A,15RTgt0PAso;90TKcjM8h6g208CQ,2", /* fill on a first fragment */
        "!AIVDM,1,1,,A,,0",                               /* no payload */
        "!AIVDM,1,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ",    /* 5 fields */
        "!AIVDM",                                         /* no fields */
    };
    for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
        assert_int_equal(feed(&f, malformed[i], &m), 0);
        if (f.ais.stats.malformed != i + 1)
            fail_msg("malformed case %zu not counted", i);
    }
    /* bad armour: single sentence, and a fragment that kills its partial message */
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A,15RTgt0PAso~90TKcjM8h6g208CQ,0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,1,2,A," T5_1 ",0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,2,2,2,A,8888x888880,2", &m), 0);
    assert_int_equal(f.ais.stats.bad_armor, 2);
    assert_int_equal(f.ais.stats.partial_dropped, 1);
    /* wrong lengths */
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A,15RTgt0PAso;90TKcjM8h6g208C,0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A,B52K>;h00Fc>jpUlNV@ikwpUoP0,0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A," T5_1 ",0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A,H42O55i18tMET00000000000000000,0", &m), 0);
    assert_int_equal(f.ais.stats.bad_length, 4);
    /* a type not decoded, and type 24 part 2 */
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A,403OviQuMGCqWrRO9>E6fE700@GO,0", &m), 0);
    assert_int_equal(feed(&f, "!AIVDM,1,1,,A,H42O55q18tMET00000000000000,2", &m), 0);
    assert_int_equal(f.ais.stats.unsupported, 2);
    assert_int_equal(f.ais.stats.by_type[24], 2);
    assert_int_equal(f.ais.stats.messages, 0);
    /* non-AIS sentences and NULL arguments */
    rtm_nmea_sentence_t other = {.kind = RTM_NMEA_RMC};
    assert_int_equal(rtm_ais_feed(&f.ais, &other, 0, &m), 0);
    assert_int_equal(rtm_ais_feed(&f.ais, NULL, 0, &m), RTM_E_ARG);
    assert_int_equal(rtm_ais_decode("15RTgt0P", 8, 6, &m), RTM_E_AIS_ARMOR);
    char text[4096];
    assert_true(rtm_ais_stats_format(&f.ais.stats, text, sizeof(text)) < sizeof(text));
    assert_non_null(strstr(text, "malformed=11"));
    assert_non_null(strstr(text, "type24=2"));
}

static void test_type24_pairing_and_vdo(void **state)
{
    (void)state;
    static feeder_t f;
    rtm_ais_msg_t m;
    feeder_init(&f);
    const char *a = "!AIVDM,1,1,,A,H42O55i18tMET00000000000000,2";
    const char *b = "!AIVDM,1,1,,A,H42O55lti4hhhilD3nink000?050,0";
    assert_int_equal(feed(&f, b, &m), 1); /* B before any A */
    assert_int_equal(m.part, RTM_AIS_PART_B);
    assert_string_equal(m.vsd.shipname, "");
    assert_int_equal(feed(&f, a, &m), 1);
    assert_int_equal(m.part, RTM_AIS_PART_A);
    assert_string_equal(m.vsd.shipname, "PROGUY");
    assert_int_equal(feed(&f, b, &m), 1);
    assert_int_equal(m.part, RTM_AIS_PART_AB);
    assert_string_equal(m.vsd.shipname, "PROGUY");
    assert_string_equal(m.vsd.callsign, "TC6163");
    assert_int_equal(feed(&f, b, &m), 1); /* a repeated B does not pair again */
    assert_int_equal(m.part, RTM_AIS_PART_B);
    assert_int_equal(f.ais.stats.t24_unpaired, 2);

    /* own ship */
    assert_int_equal(feed(&f, "!AIVDO,1,1,,,15RTgt0PAso;90TKcjM8h6g208CQ,0", &m), 1);
    assert_true(m.own);
    assert_int_equal(m.channel, 0);
    assert_int_equal(f.ais.stats.own, 1);
}

/* Random well-framed VDM sentences: the assembler keeps its invariants. */
static void test_flood(void **state)
{
    (void)state;
    static feeder_t f;
    rtm_ais_msg_t m;
    rtm_rng_t r;
    rtm_rng_seed(&r, 99);
    feeder_init(&f);
    const char chars[] = "0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVW`abcdefghijklmnopqrstuvw~";
    for (int it = 0; it < 200000; it++) {
        char payload[200], s[256];
        unsigned n = (unsigned)rtm_rng_below(&r, 100);
        for (unsigned i = 0; i < n; i++)
            payload[i] = chars[rtm_rng_below(&r, sizeof(chars) - 1)];
        payload[n] = '\0';
        unsigned count = 1 + (unsigned)rtm_rng_below(&r, 4);
        snprintf(s, sizeof(s), "!AIVDM,%u,%u,%u,%c,%s,%u", count,
                 1 + (unsigned)rtm_rng_below(&r, count + 1), (unsigned)rtm_rng_below(&r, 3),
                 "AB12C"[rtm_rng_below(&r, 5)], payload, (unsigned)rtm_rng_below(&r, 7));
        int got = feed(&f, s, &m);
        assert_true(got == 0 || got == 1);
        if (got)
            assert_true(supported(m.type));
        for (int k = 0; k < RTM_AIS_SLOTS; k++) {
            const struct rtm_ais_slot *sl = &f.ais.slot[k];
            if (!sl->used)
                continue;
            assert_true(sl->count >= 2 && sl->count <= RTM_AIS_FRAGS_MAX);
            assert_true((sl->mask >> sl->count) == 0);
            assert_true(sl->used_chars <= RTM_AIS_PAYLOAD_MAX);
        }
    }
    assert_true(f.ais.stats.messages > 0);
    assert_true(f.ais.stats.malformed > 0);
    assert_true(f.ais.stats.bad_armor > 0);
    assert_true(f.ais.stats.partial_dropped > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpsd_raw),
        cmocka_unit_test(test_gpsd_json),
        cmocka_unit_test(test_rtmgr_decode),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_not_available),
        cmocka_unit_test(test_fragments_in_and_out_of_order),
        cmocka_unit_test(test_fragments_missing_stale_duplicate),
        cmocka_unit_test(test_hostile_sentences),
        cmocka_unit_test(test_type24_pairing_and_vdo),
        cmocka_unit_test(test_flood),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
