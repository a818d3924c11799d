/* test_nmea.c — NMEA 0183 framing, checksums, RMC/GGA/HDT/VTG, hostile input, and the
 * 18-hour Go_to_Guernesey log (clean, then corrupted here in known ways). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/ais.h"
#include "rtmgr/nmea.h"
#include "rtmgr/rng.h"

#define LOG_GUERNSEY RTM_TEST_SHARED_DIR "/data/ais/Go_to_Guernesey.nmea"

/* "$BODY" → "$BODY*hh" (checksum computed). */
static const char *with_cs(char *out, size_t n, const char *s)
{
    uint8_t x = 0;
    for (const char *p = s + 1; *p; p++)
        x ^= (uint8_t)*p;
    snprintf(out, n, "%s*%02X", s, x);
    return out;
}

/* Pushes a string; returns the number of sentences completed; keeps the last. */
static int push_str(rtm_nmea_t *lx, const char *s, size_t n, rtm_nmea_sentence_t *last)
{
    int got = 0;
    rtm_nmea_sentence_t tmp;
    for (size_t i = 0; i < n; i++)
        if (rtm_nmea_push(lx, (uint8_t)s[i], &tmp) == 1) {
            got++;
            if (last)
                *last = tmp;
        }
    return got;
}

static int push_cstr(rtm_nmea_t *lx, const char *s, rtm_nmea_sentence_t *last)
{
    return push_str(lx, s, strlen(s), last);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void test_framing(void **state)
{
    (void)state;
    rtm_nmea_t lx;
    rtm_nmea_sentence_t s;
    rtm_nmea_init(&lx);
    const char *in = "$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0,183.2,260711,3.8,W,A*18\r\n";
    assert_int_equal(push_cstr(&lx, in, &s), 1);
    assert_int_equal(s.kind, RTM_NMEA_RMC);
    assert_int_equal(s.start, '$');
    assert_string_equal(s.talker, "GP");
    assert_string_equal(s.formatter, "RMC");
    assert_int_equal(s.nfields, 12);
    assert_string_equal(s.field[0], "035258");
    assert_string_equal(s.field[9], "3.8");
    assert_string_equal(s.field[11], "A");
    assert_string_equal(s.raw, "$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0,183.2,260711,3.8,W,A*18");
    assert_int_equal(lx.stats.sentences, 1);
    assert_int_equal(lx.stats.rmc, 1);
    assert_int_equal(lx.stats.bytes, strlen(in));

    /* lower-case checksum digits, LF only, empty fields, proprietary and AIS */
    char buf[128];
    with_cs(buf, sizeof(buf), "$GPHDT,,T");
    for (char *p = buf; *p; p++)
        if (*p >= 'A' && *p <= 'F' && p > strchr(buf, '*'))
            *p = (char)(*p - 'A' + 'a');
    strcat(buf, "\n");
    assert_int_equal(push_cstr(&lx, buf, &s), 1);
    assert_int_equal(s.kind, RTM_NMEA_HDT);
    assert_int_equal(s.nfields, 2);
    assert_string_equal(s.field[0], "");
    assert_int_equal(push_cstr(&lx, with_cs(buf, sizeof(buf), "$PGRMZ,246,f,3"), &s), 1);
    assert_int_equal(push_cstr(&lx, "\r\n", NULL), 0);
    assert_string_equal(s.talker, "P");
    assert_string_equal(s.formatter, "GRMZ");
    assert_int_equal(s.kind, RTM_NMEA_OTHER);
    assert_int_equal(push_cstr(&lx, "!AIVDM,1,1,,A,15RTgt0PAso;90TKcjM8h6g208CQ,0*4A\r\n", &s), 1);
    assert_int_equal(s.kind, RTM_NMEA_VDM);
    assert_int_equal(s.start, '!');
    assert_string_equal(s.field[4], "15RTgt0PAso;90TKcjM8h6g208CQ");
    assert_int_equal(push_cstr(&lx, with_cs(buf, sizeof(buf), "!AIVDO,1,1,,,B,0"), &s), 1);
    assert_int_equal(s.kind, RTM_NMEA_VDO);
    assert_int_equal(lx.stats.vdm, 1);
    assert_int_equal(lx.stats.vdo, 1);
    assert_int_equal(lx.stats.hdt, 1);
    assert_int_equal(lx.stats.other, 1);
    assert_int_equal(lx.stats.garbage, 0);
}

static void test_rmc(void **state)
{
    (void)state;
    rtm_nmea_t lx;
    rtm_nmea_sentence_t s;
    rtm_nmea_nav_t nav;
    rtm_nmea_init(&lx);
    push_cstr(&lx, "$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0,183.2,260711,3.8,W,A*18\r\n", &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_int_equal(nav.kind, RTM_NMEA_RMC);
    assert_true(nav.valid);
    assert_int_equal(nav.mode, 'A');
    assert_true(nav.have & RTM_NMEA_HAVE_POS);
    assert_float_equal(nav.lat, 50.0 + 13.4693 / 60.0, 1e-12);
    assert_float_equal(nav.lon, -(3.0 + 46.6503 / 60.0), 1e-12);
    assert_float_equal(nav.sog_kn, 4.0, 1e-12);
    assert_float_equal(nav.cog_deg, 183.2, 1e-12);
    assert_float_equal(nav.magvar_deg, -3.8, 1e-12);
    assert_int_equal(nav.year, 2011);
    assert_int_equal(nav.month, 7);
    assert_int_equal(nav.day, 26);
    assert_int_equal(nav.time_ms, (3 * 3600 + 52 * 60 + 58) * 1000);
    assert_true(rtm_nmea_utc_ns(&nav) == 1311652378LL * 1000000000LL);
    assert_true(rtm_nmea_civil_ns(1970, 1, 1, 0) == 0);
    assert_true(rtm_nmea_civil_ns(2000, 3, 1, 0) == 951868800LL * 1000000000LL);
    assert_true(rtm_nmea_civil_ns(1999, 13, 1, 0) == -1);

    /* void fix: parses, not valid; fractional seconds; 1990s date */
    char buf[128];
    push_cstr(&lx, with_cs(buf, sizeof(buf), "$GNRMC,120000.25,V,,,,,,,010195,,,N"), &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_false(nav.valid);
    assert_false(nav.have & RTM_NMEA_HAVE_POS);
    assert_int_equal(nav.time_ms, 12 * 3600000 + 250);
    assert_int_equal(nav.year, 1995);
    assert_string_equal(nav.talker, "GN");

    /* malformed fields are counted */
    const char *bad[] = {
        "$GPRMC,035258,A,9113.4693,N,00346.6503,W,4.0,183.2,260711,,",  /* lat > 90 */
        "$GPRMC,035258,A,5013.4693,N,18146.6503,W,4.0,183.2,260711,,",  /* lon > 180 */
        "$GPRMC,035258,A,5073.4693,N,00346.6503,W,4.0,183.2,260711,,",  /* 73 minutes */
        "$GPRMC,035258,A,5013.4693,X,00346.6503,W,4.0,183.2,260711,,",  /* hemisphere */
        "$GPRMC,035258,A,5013.4693,N,,,4.0,183.2,260711,,",              /* half a position */
        "$GPRMC,035299,A,5013.4693,N,00346.6503,W,4.0,183.2,260711,,",  /* 99 s */
        "$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0,183.2,261311,,",  /* month 13 */
        "$GPRMC,035258,A,5013.4693,N,00346.6503,W,-4.0,183.2,260711,,", /* negative SOG */
        "$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0,383.2,260711,,",  /* COG > 360 */
        "$GPRMC,035258,X,5013.4693,N,00346.6503,W,4.0,183.2,260711,,",  /* status */
        "$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0.1,183.2,260711,,", /* number */
        "$GPRMC,035258,A,5013.4693,N,00346.6503,W,4.0,183.2",           /* too short */
        "$GPRMC,035258,A,5013.4693,N,00346.6503,W,99999999999999999999,1,260711,,",
    };
    uint64_t before = lx.stats.bad_fields;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(push_cstr(&lx, with_cs(buf, sizeof(buf), bad[i]), &s), 1);
        assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_E_PARSE);
        assert_int_equal(nav.have, 0);
    }
    assert_int_equal(lx.stats.bad_fields - before, sizeof(bad) / sizeof(bad[0]));
}

static void test_gga_hdt_vtg(void **state)
{
    (void)state;
    rtm_nmea_t lx;
    rtm_nmea_sentence_t s;
    rtm_nmea_nav_t nav;
    char buf[128];
    rtm_nmea_init(&lx);
    push_cstr(&lx, "$GPGGA,213950.00,5250.53669,N,00542.34920,E,1,09,1.03,-6.0,M,45.8,M,,*7B\r\n",
              &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_int_equal(nav.kind, RTM_NMEA_GGA);
    assert_true(nav.valid);
    assert_float_equal(nav.lat, 52.0 + 50.53669 / 60.0, 1e-12);
    assert_float_equal(nav.lon, 5.0 + 42.34920 / 60.0, 1e-12);
    assert_int_equal(nav.quality, 1);
    assert_int_equal(nav.sats, 9);
    assert_float_equal(nav.hdop, 1.03, 1e-12);
    assert_float_equal(nav.alt_m, -6.0, 1e-12);
    assert_int_equal(nav.time_ms, (21 * 3600 + 39 * 60 + 50) * 1000);
    assert_int_equal(rtm_nmea_utc_ns(&nav), -1); /* no date in GGA */

    push_cstr(&lx, with_cs(buf, sizeof(buf), "$GPGGA,213950.00,,,,,0,00,,,M,,M,,"), &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_false(nav.valid);
    /* empty quality field (found by fuzz_nmea: an uninitialised value was compared) */
    push_cstr(&lx, "$GPGGA,214044.00,5250.53727,N,00542.34907,E,,109,1.10,-4.6,M,45.8,M,,*78\r\n",
              &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_false(nav.valid);
    assert_false(nav.have & RTM_NMEA_HAVE_QUALITY);
    assert_true(nav.have & RTM_NMEA_HAVE_POS);
    push_cstr(&lx, with_cs(buf, sizeof(buf), "$GPGGA,213950.00,,,,,1.5,00,,,M,,M,,"), &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_E_PARSE);

    push_cstr(&lx, with_cs(buf, sizeof(buf), "$HEHDT,274.07,T"), &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_int_equal(nav.kind, RTM_NMEA_HDT);
    assert_string_equal(nav.talker, "HE");
    assert_true(nav.valid);
    assert_float_equal(nav.heading_deg, 274.07, 1e-12);
    push_cstr(&lx, with_cs(buf, sizeof(buf), "$HEHDT,360.0,T"), &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_float_equal(nav.heading_deg, 0.0, 0.0);
    push_cstr(&lx, with_cs(buf, sizeof(buf), "$HEHDT,361.0,T"), &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_E_PARSE);

    push_cstr(&lx, "$GPVTG,,T,,M,0.020,N,0.038,K,A*2A\r\n", &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_true(nav.valid);
    assert_true(nav.have & RTM_NMEA_HAVE_SOG);
    assert_false(nav.have & RTM_NMEA_HAVE_COG);
    assert_float_equal(nav.sog_kn, 0.020, 1e-12);
    assert_int_equal(nav.mode, 'A');
    push_cstr(&lx, with_cs(buf, sizeof(buf), "$GPVTG,054.7,034.4,005.5,010.2"), &s); /* NMEA 1.5 */
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_float_equal(nav.cog_deg, 54.7, 1e-12);
    assert_float_equal(nav.sog_kn, 5.5, 1e-12);
    push_cstr(&lx, with_cs(buf, sizeof(buf), "$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,N"), &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_OK);
    assert_false(nav.valid); /* mode N: not valid */

    /* other sentences are not navigation */
    push_cstr(&lx, "$GPGLL,5013.4693,N,00346.6503,W,035258,A,A*52\r\n", &s);
    assert_int_equal(rtm_nmea_nav(&lx, &s, &nav), RTM_E_NOTFOUND);
    assert_int_equal(lx.stats.bad_fields, 2);
}

/* Every kind of damage, each counted once, and the lexer recovers after each. */
static void test_hostile_counters(void **state)
{
    (void)state;
    rtm_nmea_t lx;
    rtm_nmea_sentence_t s;
    char good[128], buf[512];
    rtm_nmea_init(&lx);
    with_cs(good, sizeof(good), "$GPHDT,123.4,T");
    size_t glen = strlen(good);

    /* a line with a computed checksum, then CR LF */
    char l1[128], l2[128], l3[128];
    with_cs(l1, sizeof(l1), "$GP,1");
    strcat(l1, "\r\n");
    with_cs(l2, sizeof(l2), "$gphdt,1");
    strcat(l2, "\r\n");
    with_cs(l3, sizeof(l3), "$GPHDT,1.0,T");
    l3[strlen(l3) - 1] = '\0'; /* one checksum digit short */
    strcat(l3, "\r\n");
    const struct {
        size_t counter; /* offset in rtm_nmea_stats_t */
        const char *input;
    } cases[] = {
        {offsetof(rtm_nmea_stats_t, bad_checksum), "$GPHDT,123.4,T*00\r\n"},
        {offsetof(rtm_nmea_stats_t, no_checksum), "$GPHDT,123.4,T\r\n"},
        {offsetof(rtm_nmea_stats_t, bad_char), "$GPHDT,12\x01" "3.4,T*2B\r\n"},
        {offsetof(rtm_nmea_stats_t, bad_char), "$GPHDT,123.4,T*G0\r\n"},
        {offsetof(rtm_nmea_stats_t, bad_char), l3},
        {offsetof(rtm_nmea_stats_t, bad_char), "$GPHDT,\xff\xfe\r\n"},
        {offsetof(rtm_nmea_stats_t, truncated), "$GPHDT,12"},
        {offsetof(rtm_nmea_stats_t, bad_address), l1},
        {offsetof(rtm_nmea_stats_t, bad_address), l2},
        {offsetof(rtm_nmea_stats_t, comments), "# a comment $GPHDT,1*00 inside\r\n"},
        {offsetof(rtm_nmea_stats_t, tag_blocks), "\\s:r003669945,c:1241544035*4A\\"},
        {offsetof(rtm_nmea_stats_t, garbage), "x\r\n"},
        {offsetof(rtm_nmea_stats_t, garbage), "\\unterminated tag\r\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const uint64_t *ctr = (const uint64_t *)(const void *)((const char *)&lx.stats +
                                                               cases[i].counter);
        uint64_t before = *ctr, sent = lx.stats.sentences;
        assert_int_equal(push_cstr(&lx, cases[i].input, NULL), 0);
        assert_int_equal(push_cstr(&lx, good, &s), 1); /* recovers at once */
        if (*ctr != before + (cases[i].counter == offsetof(rtm_nmea_stats_t, garbage)
                                  ? strlen(cases[i].input) - 2
                                  : 1))
            fail_msg("case %zu (%s) not counted once", i, cases[i].input);
        assert_string_equal(s.field[0], "123.4");
        push_cstr(&lx, "\r\n", NULL);
        assert_int_equal(lx.stats.sentences - sent, 1);
    }
    assert_int_equal(lx.stats.bad_checksum, 1);
    assert_int_equal(lx.stats.no_checksum, 1);
    assert_int_equal(lx.stats.bad_char, 4);
    assert_int_equal(lx.stats.truncated, 1);
    assert_int_equal(lx.stats.bad_address, 2);
    assert_int_equal(lx.stats.comments, 1);
    assert_int_equal(lx.stats.tag_blocks, 1);
    assert_int_equal(lx.stats.garbage, 1 + strlen("\\unterminated tag"));

    /* overlong: dropped once, then the next sentence is fine */
    memset(buf, 'A', sizeof(buf));
    buf[0] = '$';
    uint64_t ol = lx.stats.overlong;
    push_str(&lx, buf, 400, NULL);
    push_cstr(&lx, "*00\r\n", NULL);
    assert_int_equal(lx.stats.overlong - ol, 1);
    assert_int_equal(push_cstr(&lx, good, &s), 1);

    /* the longest accepted sentence is RTM_NMEA_LINE_MAX characters; long_lines counts
     * those over the standard 82 */
    char body[RTM_NMEA_LINE_MAX + 8];
    memset(body, 'B', sizeof(body));
    memcpy(body, "$GPTXT,", 7);
    body[RTM_NMEA_LINE_MAX - 3] = '\0';
    with_cs(buf, sizeof(buf), body);
    assert_int_equal(strlen(buf), RTM_NMEA_LINE_MAX);
    uint64_t ll = lx.stats.long_lines;
    assert_int_equal(push_cstr(&lx, buf, &s), 1);
    assert_int_equal(s.len, RTM_NMEA_LINE_MAX);
    assert_int_equal(lx.stats.long_lines - ll, 1);
    body[RTM_NMEA_LINE_MAX - 3] = 'B';
    body[RTM_NMEA_LINE_MAX - 2] = '\0';
    with_cs(buf, sizeof(buf), body);
    ol = lx.stats.overlong;
    assert_int_equal(push_cstr(&lx, buf, &s), 0);
    assert_int_equal(lx.stats.overlong - ol, 1);

    /* too many fields */
    char many[256] = "$GPXXX";
    for (int i = 0; i < RTM_NMEA_FIELDS_MAX + 1; i++)
        strcat(many, ",");
    uint64_t ba = lx.stats.bad_address;
    assert_int_equal(push_cstr(&lx, with_cs(buf, sizeof(buf), many), &s), 0);
    assert_int_equal(lx.stats.bad_address - ba, 1);
    many[strlen(many) - 1] = '\0';
    assert_int_equal(push_cstr(&lx, with_cs(buf, sizeof(buf), many), &s), 1);
    assert_int_equal(s.nfields, RTM_NMEA_FIELDS_MAX);

    /* the counter table names every counter */
    uint64_t v;
    unsigned n = 0;
    while (rtm_nmea_stats_at(&lx.stats, n, &v))
        n++;
    assert_int_equal(n, sizeof(rtm_nmea_stats_t) / sizeof(uint64_t));
    char text[2048];
    size_t need = rtm_nmea_stats_format(&lx.stats, text, sizeof(text));
    assert_true(need < sizeof(text));
    assert_non_null(strstr(text, "bad_checksum=1"));
    assert_true(rtm_nmea_stats_format(&lx.stats, text, 8) == need);
    assert_int_equal(glen, strlen(good));
}

/* A flood of random bytes and of random but well-framed sentences: nothing crashes,
 * every byte is accounted for, and the lexer still works afterwards. */
static void test_flood(void **state)
{
    (void)state;
    static rtm_nmea_t lx;
    static rtm_ais_t ais;
    rtm_nmea_sentence_t s;
    rtm_ais_msg_t m;
    rtm_rng_t rng;
    rtm_rng_seed(&rng, 42);
    rtm_nmea_init(&lx);
    rtm_ais_init(&ais, NULL);
    const char alphabet[] = "$!*,\r\n\\#0123456789ABCDEFVDMAIGPRMCw`W:;<>?@";
    for (int i = 0; i < 2000000; i++) {
        uint8_t c = (i & 1) ? (uint8_t)rtm_rng_below(&rng, 256)
                            : (uint8_t)alphabet[rtm_rng_below(&rng, sizeof(alphabet) - 1)];
        if (rtm_nmea_push(&lx, c, &s) == 1) {
            assert_true(s.len <= RTM_NMEA_LINE_MAX);
            assert_true(s.nfields <= RTM_NMEA_FIELDS_MAX);
            rtm_nmea_nav_t nav;
            (void)rtm_nmea_nav(&lx, &s, &nav);
            (void)rtm_ais_feed(&ais, &s, i, &m);
        }
    }
    assert_int_equal(lx.stats.bytes, 2000000);
    char buf[128];
    assert_int_equal(push_cstr(&lx, "\r\n", &s), 0);
    assert_int_equal(push_cstr(&lx, with_cs(buf, sizeof(buf), "$GPHDT,1.0,T"), &s), 1);
    assert_string_equal(s.field[0], "1.0");
}

/* ---- the long real log ---- */

typedef struct {
    rtm_nmea_stats_t nmea;
    rtm_ais_stats_t ais;
    uint64_t nav_ok, nav_valid;
} replay_t;

static void replay(const char *buf, size_t len, replay_t *out)
{
    static rtm_nmea_t lx;
    static rtm_ais_t ais;
    rtm_nmea_sentence_t s;
    rtm_ais_msg_t m;
    rtm_nmea_nav_t nav;
    rtm_nmea_init(&lx);
    rtm_ais_init(&ais, NULL);
    memset(out, 0, sizeof(*out));
    int64_t t = 0;
    for (size_t i = 0; i < len; i++) {
        if (rtm_nmea_push(&lx, (uint8_t)buf[i], &s) != 1)
            continue;
        t += 1000000;
        if (s.kind == RTM_NMEA_VDM || s.kind == RTM_NMEA_VDO) {
            (void)rtm_ais_feed(&ais, &s, t, &m);
        } else if (rtm_nmea_nav(&lx, &s, &nav) == RTM_OK) {
            out->nav_ok++;
            out->nav_valid += nav.valid;
        }
    }
    out->nmea = lx.stats;
    out->ais = ais.stats;
}

static uint64_t total_by_type(const rtm_ais_stats_t *st)
{
    uint64_t n = 0;
    for (int t = 0; t < 64; t++)
        n += st->by_type[t];
    return n;
}

/* Counts cross-checked with an independent decoder (Python, see the commit message). */
static void check_clean(const replay_t *r, size_t len)
{
    assert_int_equal(r->nmea.bytes, len);
    assert_int_equal(r->nmea.sentences, 63108);
    assert_int_equal(r->nmea.rmc, 30563);
    assert_int_equal(r->nmea.vdm, 18124); /* every !AIVDM line of the log */
    assert_int_equal(r->nmea.other, 14421); /* GLL */
    /* The log is not perfectly clean: 56 copies of one damaged RMC
     * ("$GPRMC,140257,A,40004205.686,N,...*7D") and 4 garbled GLL lines fail their
     * checksum; some lines are garbled beyond framing. None of it is AIS. */
    assert_int_equal(r->nmea.bad_checksum, 60);
    assert_int_equal(r->nmea.no_checksum, 34);
    assert_int_equal(r->nmea.bad_char, 109);
    assert_int_equal(r->nmea.truncated, 1);
    assert_int_equal(r->nmea.overlong, 0);
    assert_int_equal(r->nmea.bad_fields, 0);
    assert_int_equal(r->nav_ok, 30563);
    assert_int_equal(r->nav_valid, 30562);

    assert_int_equal(r->ais.sentences, 18124);
    assert_int_equal(r->ais.fragments, 722);
    assert_int_equal(r->ais.by_type[1], 14090);
    assert_int_equal(r->ais.by_type[3], 751);
    assert_int_equal(r->ais.by_type[4], 1881);
    assert_int_equal(r->ais.by_type[5], 361);
    assert_int_equal(r->ais.by_type[11], 3);
    assert_int_equal(r->ais.by_type[13], 7);
    assert_int_equal(r->ais.by_type[14], 2);
    assert_int_equal(r->ais.by_type[18], 51);
    assert_int_equal(r->ais.by_type[20], 570);
    assert_int_equal(r->ais.by_type[24], 47);
    assert_int_equal(total_by_type(&r->ais), 17763);
    assert_int_equal(r->ais.messages, 14090 + 751 + 361 + 51 + 47);
    assert_int_equal(r->ais.unsupported, 1881 + 3 + 7 + 2 + 570);
    assert_int_equal(r->ais.malformed, 0);
    assert_int_equal(r->ais.bad_armor, 0);
    assert_int_equal(r->ais.bad_length, 0);
    assert_int_equal(r->ais.out_of_order, 0);
    assert_int_equal(r->ais.partial_dropped, 0);
}

static void test_guernsey_clean(void **state)
{
    (void)state;
    size_t len;
    char *buf = read_file(LOG_GUERNSEY, &len);
    replay_t r;
    replay(buf, len, &r);
    check_clean(&r, len);
    free(buf);
}

/* A line that is exactly one sentence with a correct checksum. */
static bool clean_line(const char *p, size_t n)
{
    if (n < 6 || n > 80 || (p[0] != '$' && p[0] != '!') || p[n - 3] != '*')
        return false;
    uint8_t x = 0;
    for (size_t i = 1; i < n - 3; i++) {
        if (p[i] == '$' || p[i] == '!' || p[i] == '*' || p[i] < 0x20 || p[i] > 0x7e)
            return false;
        x ^= (uint8_t)p[i];
    }
    char hex[3] = {p[n - 2], p[n - 1], '\0'}; /* not sscanf on the buffer: it strlen()s */
    char *end;
    unsigned long cs = strtoul(hex, &end, 16);
    return end == hex + 2 && cs == x;
}

static int ais_type_of(const char *line)
{
    /* !AIVDM,1,1,,A,<payload> — first payload character */
    const char *p = line;
    for (int commas = 0; *p && commas < 5; p++)
        commas += *p == ',';
    int c = *p;
    return c >= '0' && c <= 'W' ? c - '0' : c - '`' + 40;
}

/* The same log with six kinds of damage applied to every 40th clean line: each kind
 * is counted exactly, and the rest of the log decodes as before. */
static void test_guernsey_corrupted(void **state)
{
    (void)state;
    size_t len;
    char *src = read_file(LOG_GUERNSEY, &len);
    replay_t clean;
    replay(src, len, &clean);

    char *dst = malloc(len * 2 + 65536);
    assert_non_null(dst);
    size_t o = 0;
    enum { K_CHECKSUM, K_NOCS, K_CHAR, K_TRUNC, K_OVERLONG, K_GARBAGE, K_N };
    uint64_t kind[K_N] = {0}, garbage_bytes = 0, lost_rmc = 0, lost_vdm = 0, lost_other = 0;
    uint64_t lost_types[64] = {0};
    int nclean = 0;
    const char *p = src, *end = src + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        size_t n_next = 0;
        if (nl && nl + 1 < end) {
            const char *nl2 = memchr(nl + 1, '\n', (size_t)(end - nl - 1));
            n_next = nl2 ? (size_t)(nl2 - nl - 1) : (size_t)(end - nl - 1);
        }
        bool single_vdm = n > 12 && memcmp(p, "!AIVDM,1,1,", 11) == 0;
        bool eligible = clean_line(p, n) && (p[0] == '$' || single_vdm);
        int k = -1;
        if (eligible && ++nclean % 40 == 0) {
            k = (nclean / 40) % K_N;
            /* truncation needs a clean sentence on the next line to cut it */
            if (k == K_TRUNC && !(nl && clean_line(nl + 1, n_next)))
                k = K_CHECKSUM;
        }
        if (k < 0) {
            memcpy(dst + o, p, n);
            o += n;
        } else {
            kind[k]++;
            if (memcmp(p + 3, "RMC", 3) == 0)
                lost_rmc++;
            else if (single_vdm) {
                lost_vdm++;
                lost_types[ais_type_of(p)]++;
            } else
                lost_other++;
            switch (k) {
            case K_CHECKSUM: /* wrong checksum digit */
                memcpy(dst + o, p, n);
                dst[o + n - 1] = dst[o + n - 1] == '0' ? '1' : '0';
                o += n;
                break;
            case K_NOCS: /* checksum missing */
                memcpy(dst + o, p, n - 3);
                o += n - 3;
                break;
            case K_CHAR: /* a control byte inside */
                memcpy(dst + o, p, n);
                dst[o + n / 2] = '\x07';
                o += n;
                break;
            case K_TRUNC: /* line cut, no newline: the next sentence starts inside it */
                memcpy(dst + o, p, n / 2);
                o += n / 2;
                break;
            case K_OVERLONG: /* 300 characters inserted */
                memcpy(dst + o, p, 7);
                o += 7;
                memset(dst + o, 'Z', 300);
                o += 300;
                memcpy(dst + o, p + 7, n - 7);
                o += n - 7;
                break;
            default: /* line replaced by noise */
                for (size_t i = 0; i < n; i++)
                    dst[o++] = (char)(0x80 + (i * 37) % 0x7f);
                garbage_bytes += n;
                break;
            }
        }
        if (nl && k != K_TRUNC)
            dst[o++] = '\n';
        p = nl ? nl + 1 : end;
    }
    for (int i = 0; i < K_N; i++)
        assert_true(kind[i] > 100);

    replay_t bad;
    replay(dst, o, &bad);
    uint64_t lost = kind[0] + kind[1] + kind[2] + kind[3] + kind[4] + kind[5];
    assert_int_equal(bad.nmea.bytes, o);
    assert_int_equal(bad.nmea.sentences, clean.nmea.sentences - lost);
    assert_int_equal(bad.nmea.bad_checksum, clean.nmea.bad_checksum + kind[K_CHECKSUM]);
    assert_int_equal(bad.nmea.no_checksum, clean.nmea.no_checksum + kind[K_NOCS]);
    assert_int_equal(bad.nmea.bad_char, clean.nmea.bad_char + kind[K_CHAR]);
    assert_int_equal(bad.nmea.truncated, clean.nmea.truncated + kind[K_TRUNC]);
    assert_int_equal(bad.nmea.overlong, clean.nmea.overlong + kind[K_OVERLONG]);
    assert_int_equal(bad.nmea.garbage, clean.nmea.garbage + garbage_bytes);
    assert_int_equal(bad.nmea.rmc, clean.nmea.rmc - lost_rmc);
    assert_int_equal(bad.nmea.vdm, clean.nmea.vdm - lost_vdm);
    assert_int_equal(bad.nmea.other, clean.nmea.other - lost_other);
    assert_int_equal(bad.nav_ok, clean.nav_ok - lost_rmc);
    /* AIS: exactly the damaged single-sentence messages are missing, nothing else */
    for (int t = 0; t < 64; t++)
        assert_int_equal(bad.ais.by_type[t], clean.ais.by_type[t] - lost_types[t]);
    assert_int_equal(bad.ais.partial_dropped, 0);
    assert_int_equal(bad.ais.malformed, 0);
    print_message("corrupted log: %llu lines damaged (checksum %llu, no checksum %llu, "
                  "control byte %llu, truncated %llu, overlong %llu, noise %llu)\n",
                  (unsigned long long)lost, (unsigned long long)kind[0],
                  (unsigned long long)kind[1], (unsigned long long)kind[2],
                  (unsigned long long)kind[3], (unsigned long long)kind[4],
                  (unsigned long long)kind[5]);
    free(dst);
    free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_framing),
        cmocka_unit_test(test_rmc),
        cmocka_unit_test(test_gga_hdt_vtg),
        cmocka_unit_test(test_hostile_counters),
        cmocka_unit_test(test_flood),
        cmocka_unit_test(test_guernsey_clean),
        cmocka_unit_test(test_guernsey_corrupted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
