/* nmea.h — NMEA 0183 / IEC 61162-1 input: sentence framing from a byte stream,
 * checksum verification, field splitting, and the own-ship sentences RMC, GGA, HDT
 * and VTG (any talker) as typed values.
 *
 * A lexer (rtm_nmea_t) takes bytes one at a time and hands back each complete
 * sentence whose checksum is right. Everything it rejects is counted in its
 * rtm_nmea_stats_t, one counter per kind of damage, so that `rtmgr status` can show
 * what the serial line is doing. The lexer owns a bounded line buffer; it never
 * allocates and never reads past what it was given. AIS sentences (!--VDM, !--VDO)
 * are framed here and decoded by ais.h. */
#ifndef RTM_NMEA_H
#define RTM_NMEA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Longest sentence accepted, from the start character to the checksum, excluding
 * CR LF. IEC 61162-1 allows 82 characters including CR LF; real receivers exceed it,
 * so up to this many are accepted (and counted as long_lines). */
#define RTM_NMEA_LINE_MAX 256
/* Longest standard sentence without CR LF (82 - 2). */
#define RTM_NMEA_LINE_STD 80
/* Most data fields one sentence may have (after the address field). */
#define RTM_NMEA_FIELDS_MAX 64
/* Longest tag block (NMEA 4.x "\...\" prefix) skipped before a sentence. */
#define RTM_NMEA_TAG_MAX 96

/* Counters of one lexer. X(name, meaning): every counter is a uint64_t. */
#define RTM_NMEA_STATS_LIST(X)                                                    \
    X(bytes, "bytes read")                                                        \
    X(sentences, "sentences framed with a valid checksum")                        \
    X(garbage, "bytes outside any sentence (noise, text after a checksum)")       \
    X(overlong, "lines longer than RTM_NMEA_LINE_MAX, dropped")                   \
    X(long_lines, "sentences longer than 82 characters, accepted")                \
    X(bad_checksum, "sentences whose checksum does not match, dropped")           \
    X(no_checksum, "sentences ended without *hh, dropped")                        \
    X(bad_char, "sentences with a non-printable byte or malformed *hh, dropped")  \
    X(truncated, "sentences cut short by a new start character, dropped")         \
    X(bad_address, "sentences with a malformed address or too many fields")      \
    X(tag_blocks, "NMEA 4 tag blocks skipped")                                    \
    X(comments, "comment lines skipped ('#' at the start of a line, gpsd logs)")  \
    X(bad_fields, "RMC/GGA/HDT/VTG sentences with unusable fields")               \
    X(rmc, "RMC sentences")                                                       \
    X(gga, "GGA sentences")                                                       \
    X(hdt, "HDT sentences")                                                       \
    X(vtg, "VTG sentences")                                                       \
    X(vdm, "AIS VDM sentences")                                                   \
    X(vdo, "AIS VDO sentences")                                                   \
    X(other, "other valid sentences (not interpreted)")

typedef struct {
#define RTM_NMEA_STATS_FIELD(name, text) uint64_t name;
    RTM_NMEA_STATS_LIST(RTM_NMEA_STATS_FIELD)
#undef RTM_NMEA_STATS_FIELD
} rtm_nmea_stats_t;

/* What a sentence is, from its formatter (the three letters after the talker). */
typedef enum {
    RTM_NMEA_OTHER = 0,
    RTM_NMEA_RMC,
    RTM_NMEA_GGA,
    RTM_NMEA_HDT,
    RTM_NMEA_VTG,
    RTM_NMEA_VDM, /* AIS, other ships */
    RTM_NMEA_VDO, /* AIS, own ship */
} rtm_nmea_kind_t;

/* One framed sentence. All pointers point into the lexer that produced it and stay
 * valid until the next call of rtm_nmea_push() on that lexer. */
typedef struct {
    rtm_nmea_kind_t kind;
    char start;            /* '$' (parametric) or '!' (encapsulation, AIS) */
    char talker[3];        /* "GP", "AI", ...; "P" for proprietary sentences */
    char formatter[8];     /* "RMC", "VDM", ...; the rest of the address when proprietary */
    const char *raw;       /* the sentence as received, from the start character to *hh */
    uint32_t len;          /* strlen(raw) */
    uint32_t nfields;      /* data fields after the address field */
    const char *field[RTM_NMEA_FIELDS_MAX]; /* each NUL-terminated, possibly empty */
} rtm_nmea_sentence_t;

/* The lexer. Fields are private; read the counters through `stats`. */
typedef struct {
    rtm_nmea_stats_t stats;
    int state;
    bool bol;          /* at the beginning of a line */
    uint32_t len;
    uint32_t tag_len;
    uint8_t sum;       /* XOR of the characters between the start character and '*' */
    uint8_t given;     /* checksum read after '*' */
    char line[RTM_NMEA_LINE_MAX + 1];   /* sentence being received */
    char split[RTM_NMEA_LINE_MAX + 1];  /* its fields, NUL-separated, once complete */
} rtm_nmea_t;

/* Values of RMC, GGA, HDT and VTG. `have` says which are present (RTM_NMEA_HAVE_*);
 * the others are 0. Angles in degrees, true; speeds in knots. */
enum {
    RTM_NMEA_HAVE_TIME = 1u << 0,    /* time_ms */
    RTM_NMEA_HAVE_DATE = 1u << 1,    /* year, month, day (RMC) */
    RTM_NMEA_HAVE_POS = 1u << 2,     /* lat, lon */
    RTM_NMEA_HAVE_SOG = 1u << 3,     /* sog_kn */
    RTM_NMEA_HAVE_COG = 1u << 4,     /* cog_deg (true) */
    RTM_NMEA_HAVE_HEADING = 1u << 5, /* heading_deg (true, HDT) */
    RTM_NMEA_HAVE_MAGVAR = 1u << 6,  /* magvar_deg (RMC; east positive) */
    RTM_NMEA_HAVE_QUALITY = 1u << 7, /* quality, sats, hdop (GGA) */
    RTM_NMEA_HAVE_ALT = 1u << 8,     /* alt_m (GGA, above mean sea level) */
};

typedef struct {
    rtm_nmea_kind_t kind; /* RMC, GGA, HDT or VTG */
    char talker[3];
    uint32_t have;        /* RTM_NMEA_HAVE_* */
    bool valid;           /* RMC status A, GGA quality > 0, mode indicator not N/E/V */
    char mode;            /* FAA mode indicator (A D E M S N …), 0 when absent */
    uint32_t time_ms;     /* UTC milliseconds since midnight */
    uint16_t year;        /* four digits: 80..99 → 1980..1999, 00..79 → 2000..2079 */
    uint8_t month, day;
    double lat, lon;      /* degrees, north and east positive */
    double sog_kn;
    double cog_deg;
    double heading_deg;
    double magvar_deg;
    int quality;          /* GGA fix quality 0..8 */
    int sats;
    double hdop;
    double alt_m;
} rtm_nmea_nav_t;

/* Resets the lexer and zeroes its counters. Real-time safe. */
void rtm_nmea_init(rtm_nmea_t *lx);

/* Offers one byte. Returns 1 when the byte completes a sentence with a correct
 * checksum: *out then describes it (valid until the next push). Returns 0 otherwise;
 * rejected input is counted in lx->stats. Never allocates; O(1) per byte except at the
 * end of a sentence (O(length)). Real-time safe. */
int rtm_nmea_push(rtm_nmea_t *lx, uint8_t byte, rtm_nmea_sentence_t *out);

/* Parses an RMC, GGA, HDT or VTG sentence into *nav. RTM_OK when it is one of those
 * and its fields are well formed (a void fix is still RTM_OK, with valid false);
 * RTM_E_NOTFOUND for other sentences; RTM_E_PARSE for malformed fields (counted in
 * lx->stats.bad_fields when lx is not NULL). Real-time safe. */
rtm_status_t rtm_nmea_nav(rtm_nmea_t *lx, const rtm_nmea_sentence_t *s, rtm_nmea_nav_t *nav);

/* UTC nanoseconds since 1970-01-01 of a sentence carrying date and time (RMC);
 * -1 when either is missing. Real-time safe. */
int64_t rtm_nmea_utc_ns(const rtm_nmea_nav_t *nav);

/* UTC nanoseconds since 1970-01-01 of a calendar date (year 0..9999, month 1..12,
 * day 0..31) and time of day (ms, up to a leap second); -1 outside those ranges.
 * Real-time safe. */
int64_t rtm_nmea_civil_ns(int year, int month, int day, uint32_t time_ms);

/* Writes the counters as "name=value" pairs separated by spaces into buf (always
 * NUL-terminated when len > 0). Returns the length it needed, like snprintf (which it
 * uses: not for the real-time path). */
size_t rtm_nmea_stats_format(const rtm_nmea_stats_t *st, char *buf, size_t len);

/* The name of counter i (0-based, in RTM_NMEA_STATS_LIST order) and its value;
 * NULL past the last. For `rtmgr status` tables. Real-time safe. The counters are
 * plain integers written by the thread that owns the lexer: another thread shows a
 * copy that thread publishes. */
const char *rtm_nmea_stats_at(const rtm_nmea_stats_t *st, unsigned i, uint64_t *value);

#endif
