/* ais.h — AIS messages from !--VDM / !--VDO sentences (ITU-R M.1371, IEC 61162-1).
 *
 * An assembler (rtm_ais_t) takes framed sentences from nmea.h, joins multi-sentence
 * messages in a few bounded slots, undoes the 6-bit armouring and decodes message
 * types 1, 2, 3 (class A position), 5 (static and voyage), 18 (class B position),
 * 19 (extended class B) and 24 (class B static, parts A and B; a part B is completed
 * with the name of a part A of the same MMSI seen shortly before, as gpsd does).
 *
 * Values are kept raw, exactly as transmitted, so that "not available" stays
 * distinguishable: lat 91°, lon 181°, speed 102.3 kn, course 360°, heading 511,
 * turn -128 (RTM_AIS_*_NA below). The rtm_ais_*() helpers scale them the way gpsd does
 * (lat/lon raw / 600000, speed and course raw / 10, draught raw / 10), and
 * rtm_ais_json() prints a message exactly as `gpsdecode -j` does.
 *
 * Hostile input is counted in rtm_ais_stats_t, one counter per kind; nothing here
 * allocates, and all storage is inside rtm_ais_t. */
#ifndef RTM_AIS_H
#define RTM_AIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nmea.h"
#include "status.h"

/* Multi-sentence messages being assembled at once (all channels). */
#define RTM_AIS_SLOTS 8
/* Most fragments one message may have (the fragment count is one digit). */
#define RTM_AIS_FRAGS_MAX 9
/* Most armoured characters of one assembled message (1536 bits; AIS needs <= 1008). */
#define RTM_AIS_PAYLOAD_MAX 256
/* Recent type 24 part A (MMSI, name) pairs kept to complete a part B (as gpsd). */
#define RTM_AIS_T24_QUEUE 8

/* "Not available" raw values. */
#define RTM_AIS_LAT_NA (91 * 600000)
#define RTM_AIS_LON_NA (181 * 600000)
#define RTM_AIS_SPEED_NA 1023
#define RTM_AIS_SPEED_FAST 1022 /* 102.2 kn or more */
#define RTM_AIS_COURSE_NA 3600
#define RTM_AIS_HEADING_NA 511
#define RTM_AIS_TURN_NA (-128)
#define RTM_AIS_TURN_FAST_LEFT (-127)
#define RTM_AIS_TURN_FAST_RIGHT 127
#define RTM_AIS_SECOND_NA 60

/* Counters of one assembler. X(name, meaning): every counter is a uint64_t. */
#define RTM_AIS_STATS_LIST(X)                                                             \
    X(sentences, "VDM/VDO sentences offered")                                             \
    X(fragments, "fragments of multi-sentence messages accepted")                         \
    X(messages, "messages decoded (supported types)")                                     \
    X(own, "messages from VDO (own ship)")                                                \
    X(unsupported, "whole messages of types not decoded, skipped")                        \
    X(malformed, "sentences with bad fragment fields, channel or fill bits")              \
    X(bad_armor, "payload characters outside the 6-bit alphabet (sentence dropped)")      \
    X(bad_length, "messages too short or too long for their type")                        \
    X(overlong, "multi-sentence payloads over RTM_AIS_PAYLOAD_MAX")                       \
    X(out_of_order, "fragments that arrived before a lower-numbered one")                 \
    X(duplicate, "fragments received twice (partial message restarted)")                  \
    X(partial_dropped, "partial messages dropped (stale, evicted, restarted, bad)")       \
    X(frags_missing, "fragments never received of dropped partial messages")              \
    X(stale, "partial messages dropped for age")                                          \
    X(evicted, "partial messages dropped because all slots were busy")                    \
    X(t24_unpaired, "type 24 part B without a recent part A")

typedef struct {
#define RTM_AIS_STATS_FIELD(name, text) uint64_t name;
    RTM_AIS_STATS_LIST(RTM_AIS_STATS_FIELD)
#undef RTM_AIS_STATS_FIELD
    uint64_t by_type[64]; /* whole messages assembled, by message type (0..63) */
} rtm_ais_stats_t;

/* Position report fields of types 1, 2, 3 (class A), 18 and 19 (class B), raw. */
typedef struct {
    uint8_t status;    /* 1-3: navigation status 0..15 */
    int8_t turn;       /* 1-3: rate of turn, ROT_AIS = 4.733 sqrt(deg/min); -128 n/a */
    uint16_t speed;    /* 1/10 knot; 1023 n/a, 1022 = 102.2 kn or more */
    bool accuracy;     /* position accuracy flag (DGNSS, < 10 m) */
    int32_t lon, lat;  /* 1/10000 minute; 181° / 91° n/a */
    uint16_t course;   /* 1/10 degree true; 3600 n/a */
    uint16_t heading;  /* degrees true; 511 n/a */
    uint8_t second;    /* UTC second of the report; 60..63 n/a / manual / DR / off */
    uint8_t maneuver;  /* 1-3: special manoeuvre indicator */
    uint8_t reserved;  /* 18, 19: regional reserved byte */
    uint8_t regional;  /* 18: 2 bits, 19: 4 bits */
    bool cs, display, dsc, band, msg22; /* 18: class B flags */
    bool assigned;     /* 18, 19 */
    bool raim;
    uint32_t radio;    /* communication state */
} rtm_ais_pos_t;

/* Static and voyage fields of types 5, 19 and 24, raw. Strings are 6-bit text
 * stopped at the first '@' and trimmed of trailing spaces, as gpsd does. */
typedef struct {
    uint8_t ais_version; /* 5 */
    uint32_t imo;        /* 5 */
    char callsign[8];    /* 5, 24B */
    char shipname[21];   /* 5, 19, 24A (and 24B completed from a recent 24A) */
    char destination[21];/* 5 */
    char vendorid[8];    /* 24B: 7 characters (ITU-R M.1371-3 layout) */
    uint8_t model;       /* 24B: M.1371-4 unit model code */
    uint32_t serial;     /* 24B: M.1371-4 serial number */
    uint8_t shiptype;    /* 5, 19, 24B */
    uint16_t to_bow, to_stern;   /* metres, from the reference point */
    uint8_t to_port, to_starboard;
    uint32_t mothership_mmsi;    /* 24B from an auxiliary craft (MMSI 98xxxxxxx) */
    uint8_t epfd;        /* 5, 19: position fixing device */
    uint8_t month, day, hour, minute; /* 5: ETA (0, 0, 24, 60 n/a) */
    uint8_t draught;     /* 5: 1/10 metre */
    bool dte;            /* 5, 19: data terminal not ready */
} rtm_ais_static_t;

enum { RTM_AIS_PART_A = 0, RTM_AIS_PART_B = 1, RTM_AIS_PART_AB = 2 };

/* One decoded message. Which of pos / vsd are meaningful depends on `type`. */
typedef struct {
    uint8_t type;      /* 1, 2, 3, 5, 18, 19 or 24 */
    uint8_t repeat;
    uint32_t mmsi;
    bool own;          /* from !--VDO: own ship */
    char channel;      /* 'A', 'B', or 0 when the sentence had none */
    uint16_t bitlen;   /* payload bits after fill */
    uint8_t part;      /* 24: RTM_AIS_PART_* */
    rtm_ais_pos_t pos; /* 1, 2, 3, 18, 19 */
    rtm_ais_static_t vsd; /* 5, 19, 24 */
} rtm_ais_msg_t;

/* Tunables of an assembler; rtm_ais_init(a, NULL) takes the defaults. */
typedef struct {
    int64_t partial_ttl_ns;     /* drop a partial message older than this (2 s) */
    uint32_t partial_ttl_sentences; /* ... or older than this many VDM/VDO sentences (64) */
} rtm_ais_config_t;

/* The assembler. Fields are private; read the counters through `stats`. */
typedef struct {
    rtm_ais_stats_t stats;
    rtm_ais_config_t cfg;
    uint64_t nsent; /* VDM/VDO sentences seen: the assembler's own clock */
    struct rtm_ais_slot {
        bool used, own;
        char channel;
        int8_t seqid;    /* -1 when the sentence had none */
        uint8_t count;   /* fragments expected */
        uint8_t fill;    /* fill bits of the last fragment */
        uint16_t mask;   /* bit i: fragment i + 1 received */
        uint16_t used_chars;
        uint16_t off[RTM_AIS_FRAGS_MAX], len[RTM_AIS_FRAGS_MAX];
        int64_t t0_ns;
        uint64_t t0_sent;
        char data[RTM_AIS_PAYLOAD_MAX];
    } slot[RTM_AIS_SLOTS];
    struct rtm_ais_t24 {
        uint32_t mmsi;
        char shipname[21];
    } t24[RTM_AIS_T24_QUEUE];
    uint32_t t24_next;
} rtm_ais_t;

/* Resets the assembler and its counters; cfg NULL gives the defaults. Real-time safe. */
void rtm_ais_init(rtm_ais_t *a, const rtm_ais_config_t *cfg);

/* Offers one framed sentence (non-VDM/VDO sentences are ignored and return 0).
 * now_ns is the caller's monotonic clock, used only to age partial messages.
 * Returns 1 when a message of a supported type is complete and decoded into *msg,
 * 0 when none is (fragment stored, message dropped or unsupported: see stats),
 * RTM_E_ARG on NULL arguments. Real-time safe (bounded work, no allocation). */
int rtm_ais_feed(rtm_ais_t *a, const rtm_nmea_sentence_t *s, int64_t now_ns,
                 rtm_ais_msg_t *msg);

/* Decodes one complete armoured payload (no assembly, no type 24 pairing).
 * RTM_OK; RTM_E_AIS_ARMOR for a character outside the 6-bit alphabet or bad fill;
 * RTM_E_AIS_TYPE for a type not decoded (msg->type, repeat and mmsi still set);
 * RTM_E_AIS_LENGTH when the length does not suit the type. Real-time safe. */
rtm_status_t rtm_ais_decode(const char *payload, size_t len, unsigned fill,
                            rtm_ais_msg_t *msg);

/* Scaled values, as gpsd scales them (n/a values scale too: 91, 181, 102.3, 360).
 * These and the three below are real-time safe. */
double rtm_ais_lat_deg(int32_t raw);
double rtm_ais_lon_deg(int32_t raw);
double rtm_ais_speed_kn(uint16_t raw);
double rtm_ais_course_deg(uint16_t raw);
/* Rate of turn in degrees per minute, positive to starboard: sign * (raw / 4.733)^2
 * (±127 gives about ±720, "turning fast"); NaN for -128 (n/a). */
double rtm_ais_turn_deg_min(int8_t raw);
/* True when the position fields are available and in range. */
bool rtm_ais_pos_valid(const rtm_ais_pos_t *p);

/* Prints msg as one line of `gpsdecode -j` JSON (same keys, order and number
 * formatting; "device":"stdin"; CR LF at the end) into buf. Returns the length
 * (excluding the NUL), or RTM_E_NOMEM when buf is too small. Uses snprintf: not for
 * the real-time path. */
int rtm_ais_json(const rtm_ais_msg_t *msg, char *buf, size_t len);

/* gpsd's legends: navigation status, position-fixing device, ship type. Never NULL.
 * Ship types 20-99 are composed into buf (64 bytes suffice; snprintf): not for the
 * real-time path; with buf NULL the category alone is returned. */
const char *rtm_ais_status_text(unsigned status);
const char *rtm_ais_epfd_text(unsigned epfd);
const char *rtm_ais_shiptype_text(unsigned shiptype, char *buf, size_t len);

/* Counter i (RTM_AIS_STATS_LIST order) and its value; NULL past the last. Real-time
 * safe. The counters are written by the thread that feeds the assembler: another
 * thread shows a copy that thread publishes. */
const char *rtm_ais_stats_at(const rtm_ais_stats_t *st, unsigned i, uint64_t *value);
/* "name=value" pairs separated by spaces, then "type<N>=value" for every type seen;
 * returns the length needed, like snprintf (which it uses: not for the real-time path). */
size_t rtm_ais_stats_format(const rtm_ais_stats_t *st, char *buf, size_t len);

#endif
