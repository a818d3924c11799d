/* fuzz_nmea.c — libFuzzer target for the NMEA/AIS input path: the input is a byte
 * stream from a serial line; every sentence goes through the lexer, the AIS assembler,
 * the JSON printer, the own-ship parser and the target table, and the input is also
 * decoded as one raw AIS payload. Invariants are checked with __builtin_trap().
 * Build: see tests/fuzz/fuzz.cmake. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtmgr/ais.h"
#include "rtmgr/nmea.h"
#include "rtmgr/targets.h"

#define CHECK(c)                                                                         \
    do {                                                                                 \
        if (!(c))                                                                        \
            __builtin_trap();                                                            \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rtm_nmea_t lx;
    static rtm_ais_t ais;
    static rtm_targets_t table;
    static rtm_traffic_t pic;
    rtm_nmea_init(&lx);
    rtm_ais_init(&ais, NULL);
    rtm_targets_init(&table, NULL);
    int64_t t = 0;
    for (size_t i = 0; i < size; i++) {
        rtm_nmea_sentence_t s;
        if (rtm_nmea_push(&lx, data[i], &s) != 1)
            continue;
        CHECK(s.len <= RTM_NMEA_LINE_MAX && strlen(s.raw) == s.len);
        CHECK(s.nfields <= RTM_NMEA_FIELDS_MAX);
        for (uint32_t k = 0; k < s.nfields; k++)
            CHECK(s.field[k] >= lx.split && s.field[k] + strlen(s.field[k]) <= lx.split + s.len);
        t += 1000000;
        rtm_ais_msg_t m;
        rtm_nmea_nav_t nav;
        int got = rtm_ais_feed(&ais, &s, t, &m);
        CHECK(got == 0 || got == 1);
        if (got == 1) {
            char json[1024];
            CHECK(rtm_ais_json(&m, json, sizeof(json)) > 0);
            CHECK(strlen(m.vsd.shipname) <= 20 && strlen(m.vsd.callsign) <= 7);
            (void)rtm_targets_update_ais(&table, &m, t);
        } else if (rtm_nmea_nav(&lx, &s, &nav) == RTM_OK) {
            CHECK(!(nav.have & RTM_NMEA_HAVE_POS) || (nav.lat >= -90 && nav.lat <= 90 &&
                                                      nav.lon >= -180 && nav.lon <= 180));
            (void)rtm_nmea_utc_ns(&nav);
            (void)rtm_targets_update_nav(&table, &nav, t);
        }
        for (unsigned k = 0; k < RTM_AIS_SLOTS; k++)
            CHECK(!ais.slot[k].used || (ais.slot[k].used_chars <= RTM_AIS_PAYLOAD_MAX &&
                                        (ais.slot[k].mask >> ais.slot[k].count) == 0));
        if ((lx.stats.sentences & 15) == 0) {
            CHECK(rtm_targets_publish(&table, t) == RTM_OK);
            CHECK(rtm_targets_snapshot(&table, &pic) == RTM_OK);
            CHECK(pic.n <= rtm_targets_count(&table));
        }
    }
    CHECK(lx.stats.bytes == size);

    /* the whole input as one armoured payload */
    rtm_ais_msg_t m;
    if (size > 0) {
        rtm_status_t st = rtm_ais_decode((const char *)data + 1, size - 1, data[0] % 8, &m);
        if (st == RTM_OK) {
            char json[1024];
            CHECK(rtm_ais_json(&m, json, sizeof(json)) > 0);
        }
    }
    return 0;
}
