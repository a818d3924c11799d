/* ais.c — AIS message assembly and decoding (see ais.h).
 *
 * Owns the multi-sentence assembler, the 6-bit de-armouring, the bit-field decoders
 * of types 1/2/3/5/18/19/24, the type 24 part A queue, and the gpsd-compatible JSON
 * printer.
 *
 * Assembly. A fragment of an n-sentence message (n > 1) is stored in the slot keyed
 * by (VDM/VDO, channel, sequential message id, n); fragments are kept with their
 * offsets so they may arrive in any order, and the message is decoded when all n are
 * in. Invariants of a used slot: mask has only bits 0..count-1; used_chars is the sum
 * of len[i] over the fragments in mask and never exceeds RTM_AIS_PAYLOAD_MAX. A slot
 * is dropped when it grows older than the configured age (time or sentences), when a
 * fragment it already holds arrives again (the sender restarted), when a fragment of
 * it is corrupt, or when all slots are busy and it is the oldest. Each drop counts the
 * fragments that never came. Fragments are validated (alphabet, fill bits) before
 * they are stored, so an assembled payload always decodes.
 *
 * Decoding follows ITU-R M.1371-5 with gpsd's length rules (types 1-3: 163..204 bits,
 * the radio field shortened when under 168 bits; 5: at least 420; 18: 168; 19: 312;
 * 24A: 160..168; 24B: 168) and string rules (stop at '@', trim trailing blanks), so
 * that the decoded values equal `gpsdecode`'s. Bits past the end read as zero. */
#include "ais.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t b[RTM_AIS_PAYLOAD_MAX * 6 / 8];
    unsigned len; /* bits */
} bitbuf_t;

static const rtm_ais_config_t default_cfg = {
    .partial_ttl_ns = 2000000000LL,
    .partial_ttl_sentences = 64,
};

void rtm_ais_init(rtm_ais_t *a, const rtm_ais_config_t *cfg)
{
    if (!a)
        return;
    memset(a, 0, sizeof(*a));
    a->cfg = cfg ? *cfg : default_cfg;
    if (a->cfg.partial_ttl_ns <= 0)
        a->cfg.partial_ttl_ns = default_cfg.partial_ttl_ns;
    if (a->cfg.partial_ttl_sentences == 0)
        a->cfg.partial_ttl_sentences = default_cfg.partial_ttl_sentences;
}

/* ---- 6-bit armour and bit fields ---- */

/* The 6-bit value of an armoured character, or -1 outside the alphabet. */
static int armor_value(char c)
{
    if (c >= '0' && c <= 'W')
        return c - '0';
    if (c >= '`' && c <= 'w')
        return c - '`' + 40;
    return -1;
}

static bool armor_valid(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (armor_value(p[i]) < 0)
            return false;
    return true;
}

/* Unpacks n valid armoured characters, minus fill bits, into v (zero beyond). */
static void unarmor(bitbuf_t *v, const char *p, size_t n, unsigned fill)
{
    memset(v, 0, sizeof(*v));
    unsigned total = (unsigned)n * 6u;
    v->len = total > fill ? total - fill : 0;
    for (unsigned k = 0; k < v->len; k++) {
        unsigned six = (unsigned)armor_value(p[k / 6]);
        if ((six >> (5 - k % 6)) & 1u)
            v->b[k >> 3] |= (uint8_t)(0x80u >> (k & 7));
    }
}

static uint32_t ubits(const bitbuf_t *v, unsigned start, unsigned width)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < width; i++) {
        unsigned k = start + i;
        unsigned bit = k < v->len ? (v->b[k >> 3] >> (7 - (k & 7))) & 1u : 0u;
        r = (r << 1) | bit;
    }
    return r;
}

static int32_t sbits(const bitbuf_t *v, unsigned start, unsigned width)
{
    uint32_t r = ubits(v, start, width);
    if (width < 32 && (r & (1u << (width - 1))))
        return (int32_t)((int64_t)r - ((int64_t)1 << width));
    return (int32_t)r;
}

/* 6-bit text: at most count characters, stopped at '@', trailing ' '/'@' trimmed. */
static void text(const bitbuf_t *v, unsigned start, unsigned count, char *to, size_t to_sz)
{
    static const char sixchr[65] =
        "@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_ !\"#$%&'()*+,-./0123456789:;<=>?";
    unsigned i = 0;
    if (v->len > start) {
        if (count > to_sz - 1)
            count = (unsigned)to_sz - 1;
        for (; i < count; i++) {
            char c = sixchr[ubits(v, start + 6 * i, 6)];
            if (c == '@')
                break;
            to[i] = c;
        }
    }
    to[i] = '\0';
    while (i > 0 && (to[i - 1] == ' ' || to[i - 1] == '@'))
        to[--i] = '\0';
}

#define U(s, w) ubits(v, (s), (w))
#define S(s, w) sbits(v, (s), (w))
#define TEXT(s, to) text(v, (s), (unsigned)sizeof(to) - 1, (to), sizeof(to))

static bool auxiliary_mmsi(uint32_t mmsi) { return mmsi / 10000000 == 98; }

/* Speed, accuracy, position, course, heading and second: the same 88 bits in class A
 * (types 1-3, from bit 50) and class B (types 18 and 19, from bit 46) reports. */
static void motion(const bitbuf_t *v, unsigned at, rtm_ais_pos_t *p)
{
    p->speed = (uint16_t)U(at, 10);
    p->accuracy = U(at + 10, 1) != 0;
    p->lon = S(at + 11, 28);
    p->lat = S(at + 39, 27);
    p->course = (uint16_t)U(at + 66, 12);
    p->heading = (uint16_t)U(at + 78, 9);
    p->second = (uint8_t)U(at + 87, 6);
}

/* Class B position reports (types 18 and 19) up to the regional bits: no navigational
 * status (15, "not defined") and no rate of turn. */
static void class_b(const bitbuf_t *v, rtm_ais_pos_t *p)
{
    p->reserved = (uint8_t)U(38, 8);
    motion(v, 46, p);
    p->status = 15;
    p->turn = RTM_AIS_TURN_NA;
}

/* Reference-point distances to bow, stern, port and starboard (9, 9, 6, 6 bits). */
static void dimensions(const bitbuf_t *v, unsigned at, rtm_ais_static_t *s)
{
    s->to_bow = (uint16_t)U(at, 9);
    s->to_stern = (uint16_t)U(at + 9, 9);
    s->to_port = (uint8_t)U(at + 18, 6);
    s->to_starboard = (uint8_t)U(at + 24, 6);
}

static rtm_status_t decode_bits(const bitbuf_t *v, rtm_ais_msg_t *m)
{
    memset(m, 0, sizeof(*m));
    m->type = (uint8_t)U(0, 6);
    m->repeat = (uint8_t)U(6, 2);
    m->mmsi = U(8, 30);
    m->bitlen = (uint16_t)v->len;
    rtm_ais_pos_t *p = &m->pos;
    rtm_ais_static_t *s = &m->vsd;
    switch (m->type) {
    case 1:
    case 2:
    case 3:
        if (v->len < 163 || v->len > 204)
            return RTM_E_AIS_LENGTH;
        p->status = (uint8_t)U(38, 4);
        p->turn = (int8_t)S(42, 8);
        motion(v, 50, p);
        p->maneuver = (uint8_t)U(143, 2);
        p->raim = U(148, 1) != 0;
        p->radio = U(149, v->len >= 168 ? 19 : v->len - 149); /* gpsd: short radio */
        return RTM_OK;
    case 5:
        if (v->len < 420)
            return RTM_E_AIS_LENGTH;
        s->ais_version = (uint8_t)U(38, 2);
        s->imo = U(40, 30);
        TEXT(70, s->callsign);
        TEXT(112, s->shipname);
        s->shiptype = (uint8_t)U(232, 8);
        dimensions(v, 240, s);
        s->epfd = (uint8_t)U(270, 4);
        s->month = (uint8_t)U(274, 4);
        s->day = (uint8_t)U(278, 5);
        s->hour = (uint8_t)U(283, 5);
        s->minute = (uint8_t)U(288, 6);
        s->draught = (uint8_t)U(294, 8);
        TEXT(302, s->destination);
        s->dte = v->len >= 423 && U(422, 1) != 0;
        return RTM_OK;
    case 18:
        if (v->len < 168)
            return RTM_E_AIS_LENGTH;
        class_b(v, p);
        p->regional = (uint8_t)U(139, 2);
        p->cs = U(141, 1) != 0;
        p->display = U(142, 1) != 0;
        p->dsc = U(143, 1) != 0;
        p->band = U(144, 1) != 0;
        p->msg22 = U(145, 1) != 0;
        p->assigned = U(146, 1) != 0;
        p->raim = U(147, 1) != 0;
        p->radio = U(148, 20);
        return RTM_OK;
    case 19:
        if (v->len < 312)
            return RTM_E_AIS_LENGTH;
        class_b(v, p);
        p->regional = (uint8_t)U(139, 4);
        TEXT(143, s->shipname);
        s->shiptype = (uint8_t)U(263, 8);
        dimensions(v, 271, s);
        s->epfd = (uint8_t)U(301, 4);
        p->raim = U(305, 1) != 0;
        s->dte = U(306, 1) != 0;
        p->assigned = U(307, 1) != 0;
        return RTM_OK;
    case 24:
        switch (U(38, 2)) {
        case 0:
            if (v->len < 160 || v->len > 168)
                return RTM_E_AIS_LENGTH;
            m->part = RTM_AIS_PART_A;
            TEXT(40, s->shipname);
            return RTM_OK;
        case 1:
            if (v->len < 168)
                return RTM_E_AIS_LENGTH;
            m->part = RTM_AIS_PART_B;
            s->shiptype = (uint8_t)U(40, 8);
            TEXT(48, s->vendorid);
            s->model = (uint8_t)U(66, 4);
            s->serial = U(70, 20);
            TEXT(90, s->callsign);
            if (auxiliary_mmsi(m->mmsi)) {
                s->mothership_mmsi = U(132, 30);
            } else {
                dimensions(v, 132, s);
            }
            return RTM_OK;
        default:
            return RTM_E_AIS_TYPE; /* parts 2 and 3 are not defined */
        }
    default:
        return RTM_E_AIS_TYPE;
    }
}

#undef U
#undef S
#undef TEXT

rtm_status_t rtm_ais_decode(const char *payload, size_t len, unsigned fill, rtm_ais_msg_t *msg)
{
    if (!payload || !msg)
        return RTM_E_ARG;
    if (fill > 5 || !armor_valid(payload, len))
        return RTM_E_AIS_ARMOR;
    if (len > RTM_AIS_PAYLOAD_MAX) {
        memset(msg, 0, sizeof(*msg));
        return RTM_E_AIS_LENGTH;
    }
    bitbuf_t v;
    unarmor(&v, payload, len, fill);
    return decode_bits(&v, msg);
}

/* ---- assembly ---- */

static unsigned popcount16(uint16_t x)
{
    unsigned n = 0;
    for (; x; x &= (uint16_t)(x - 1))
        n++;
    return n;
}

static void slot_drop(rtm_ais_t *a, struct rtm_ais_slot *sl)
{
    a->stats.partial_dropped++;
    a->stats.frags_missing += sl->count - popcount16(sl->mask);
    sl->used = false;
}

static void expire_slots(rtm_ais_t *a, int64_t now_ns)
{
    for (unsigned i = 0; i < RTM_AIS_SLOTS; i++) {
        struct rtm_ais_slot *sl = &a->slot[i];
        if (!sl->used)
            continue;
        if (now_ns - sl->t0_ns > a->cfg.partial_ttl_ns ||
            a->nsent - sl->t0_sent > a->cfg.partial_ttl_sentences) {
            a->stats.stale++;
            slot_drop(a, sl);
        }
    }
}

static struct rtm_ais_slot *slot_find(rtm_ais_t *a, bool own, char ch, int seq, unsigned count)
{
    for (unsigned i = 0; i < RTM_AIS_SLOTS; i++) {
        struct rtm_ais_slot *sl = &a->slot[i];
        if (sl->used && sl->own == own && sl->channel == ch && sl->seqid == seq &&
            sl->count == count)
            return sl;
    }
    return NULL;
}

static struct rtm_ais_slot *slot_alloc(rtm_ais_t *a)
{
    struct rtm_ais_slot *oldest = &a->slot[0];
    for (unsigned i = 0; i < RTM_AIS_SLOTS; i++) {
        struct rtm_ais_slot *sl = &a->slot[i];
        if (!sl->used)
            return sl;
        if (sl->t0_sent < oldest->t0_sent)
            oldest = sl;
    }
    a->stats.evicted++;
    slot_drop(a, oldest);
    return oldest;
}

/* A single digit within [lo, hi], or -1. */
static int digit_field(const char *f, int lo, int hi)
{
    if (!f || f[0] < '0' || f[0] > '9' || f[1])
        return -1;
    int d = f[0] - '0';
    return d >= lo && d <= hi ? d : -1;
}

/* Type 24: remember part A names; complete a part B from them (gpsd's rule). */
static void pair_type24(rtm_ais_t *a, rtm_ais_msg_t *m)
{
    if (m->part == RTM_AIS_PART_A) {
        struct rtm_ais_t24 *q = &a->t24[a->t24_next];
        q->mmsi = m->mmsi;
        memcpy(q->shipname, m->vsd.shipname, sizeof(q->shipname));
        a->t24_next = (a->t24_next + 1) % RTM_AIS_T24_QUEUE;
        return;
    }
    for (unsigned i = 0; i < RTM_AIS_T24_QUEUE; i++)
        if (a->t24[i].mmsi == m->mmsi && m->mmsi != 0) {
            memcpy(m->vsd.shipname, a->t24[i].shipname, sizeof(m->vsd.shipname));
            a->t24[i].mmsi = 0; /* a repeated part B must not match again */
            m->part = RTM_AIS_PART_AB;
            return;
        }
    a->stats.t24_unpaired++;
}

/* A whole payload is available: decode, count, pair. */
static int complete(rtm_ais_t *a, const char *payload, size_t len, unsigned fill, bool own,
                    char ch, rtm_ais_msg_t *msg)
{
    bitbuf_t v;
    unarmor(&v, payload, len, fill);
    rtm_status_t st = decode_bits(&v, msg);
    a->stats.by_type[msg->type & 63]++;
    if (st == RTM_E_AIS_TYPE) {
        a->stats.unsupported++;
        return 0;
    }
    if (st != RTM_OK) {
        a->stats.bad_length++;
        return 0;
    }
    msg->own = own;
    msg->channel = ch;
    if (msg->type == 24)
        pair_type24(a, msg);
    a->stats.messages++;
    if (own)
        a->stats.own++;
    return 1;
}

int rtm_ais_feed(rtm_ais_t *a, const rtm_nmea_sentence_t *s, int64_t now_ns, rtm_ais_msg_t *msg)
{
    if (!a || !s || !msg)
        return RTM_E_ARG;
    if (s->kind != RTM_NMEA_VDM && s->kind != RTM_NMEA_VDO)
        return 0;
    a->stats.sentences++;
    a->nsent++;
    expire_slots(a, now_ns);

    bool own = s->kind == RTM_NMEA_VDO;
    if (s->nfields < 6) {
        a->stats.malformed++;
        return 0;
    }
    int count = digit_field(s->field[0], 1, RTM_AIS_FRAGS_MAX);
    int number = digit_field(s->field[1], 1, count < 1 ? 1 : count);
    int seq = s->field[2][0] ? digit_field(s->field[2], 0, 9) : -1;
    const char *chf = s->field[3];
    int ch;
    if (!chf[0])
        ch = 0;
    else if (!chf[1] && (chf[0] == 'A' || chf[0] == '1'))
        ch = 'A';
    else if (!chf[1] && (chf[0] == 'B' || chf[0] == '2'))
        ch = 'B';
    else
        ch = -1;
    int fill = s->field[5][0] ? digit_field(s->field[5], 0, 5) : 0;
    const char *payload = s->field[4];
    size_t plen = strlen(payload);
    if (count < 0 || number < 0 || (s->field[2][0] && seq < 0) || ch < 0 || fill < 0 ||
        (fill != 0 && number != count) || plen == 0 || (size_t)fill > plen * 6) {
        a->stats.malformed++;
        return 0;
    }
    if (!armor_valid(payload, plen)) {
        a->stats.bad_armor++;
        if (count > 1) {
            struct rtm_ais_slot *sl = slot_find(a, own, (char)ch, seq, (unsigned)count);
            if (sl)
                slot_drop(a, sl);
        }
        return 0;
    }
    if (count == 1) {
        if (plen > RTM_AIS_PAYLOAD_MAX) {
            a->stats.overlong++;
            return 0;
        }
        return complete(a, payload, plen, (unsigned)fill, own, (char)ch, msg);
    }

    /* one fragment of a multi-sentence message */
    uint16_t bit = (uint16_t)(1u << (number - 1));
    struct rtm_ais_slot *sl = slot_find(a, own, (char)ch, seq, (unsigned)count);
    if (sl && (sl->mask & bit)) {
        a->stats.duplicate++;
        slot_drop(a, sl);
        sl = NULL;
    }
    if (!sl) {
        sl = slot_alloc(a);
        memset(sl, 0, sizeof(*sl));
        sl->used = true;
        sl->own = own;
        sl->channel = (char)ch;
        sl->seqid = (int8_t)seq;
        sl->count = (uint8_t)count;
        sl->t0_ns = now_ns;
        sl->t0_sent = a->nsent;
    }
    if ((sl->mask & (bit - 1)) != (uint16_t)(bit - 1))
        a->stats.out_of_order++;
    if (sl->used_chars + plen > RTM_AIS_PAYLOAD_MAX) {
        a->stats.overlong++;
        slot_drop(a, sl);
        return 0;
    }
    sl->off[number - 1] = sl->used_chars;
    sl->len[number - 1] = (uint16_t)plen;
    memcpy(sl->data + sl->used_chars, payload, plen);
    sl->used_chars = (uint16_t)(sl->used_chars + plen);
    sl->mask |= bit;
    if (number == count)
        sl->fill = (uint8_t)fill;
    a->stats.fragments++;
    if (sl->mask != (uint16_t)((1u << count) - 1))
        return 0;

    char whole[RTM_AIS_PAYLOAD_MAX];
    size_t n = 0;
    for (int i = 0; i < count; i++) {
        memcpy(whole + n, sl->data + sl->off[i], sl->len[i]);
        n += sl->len[i];
    }
    sl->used = false;
    return complete(a, whole, n, sl->fill, own, (char)ch, msg);
}

/* ---- scaling ---- */

double rtm_ais_lat_deg(int32_t raw) { return raw / 600000.0; }
double rtm_ais_lon_deg(int32_t raw) { return raw / 600000.0; }
double rtm_ais_speed_kn(uint16_t raw) { return raw / 10.0; }
double rtm_ais_course_deg(uint16_t raw) { return raw / 10.0; }

double rtm_ais_turn_deg_min(int8_t raw)
{
    if (raw == RTM_AIS_TURN_NA)
        return NAN;
    double r = raw / 4.733;
    r *= r;
    return raw < 0 ? -r : r;
}

bool rtm_ais_pos_valid(const rtm_ais_pos_t *p)
{
    return p && p->lat != RTM_AIS_LAT_NA && p->lon != RTM_AIS_LON_NA &&
           p->lat >= -90 * 600000 && p->lat <= 90 * 600000 && p->lon >= -180 * 600000 &&
           p->lon <= 180 * 600000;
}

/* ---- legends and JSON ---- */

const char *rtm_ais_status_text(unsigned status)
{
    static const char *const legend[16] = {
        "Under way using engine",
        "At anchor",
        "Not under command",
        "Restricted maneuverability",
        "Constrained by her draught",
        "Moored",
        "Aground",
        "Engaged in fishing",
        "Under way sailing",
        "Reserved for HSC",
        "Reserved for WIG",
        "Power-driven vessel towing astern",
        "Power-driven vessel pushing ahead or towing alongside",
        "Reserved",
        "AIS-SART is active",
        "Not defined",
    };
    return status < 16 ? legend[status] : "Not defined";
}

const char *rtm_ais_epfd_text(unsigned epfd)
{
    static const char *const legend[16] = {
        "Undefined", "GPS", "GLONASS", "Combined GPS/GLONASS", "Loran-C", "Chayka",
        "Integrated navigation system", "Surveyed", "Galileo", "Reserved (9)",
        "Reserved (10)", "Reserved (11)", "Reserved (12)", "Reserved (13)",
        "Reserved (14)", "Internal GNSS",
    };
    return epfd < 16 ? legend[epfd] : "INVALID EPFD";
}

const char *rtm_ais_shiptype_text(unsigned t, char *buf, size_t len)
{
    static const char *const fixed30[10] = {
        "Fishing", "Towing", "Towing: length exceeds 200m or breadth exceeds 25m",
        "Dredging or underwater ops", "Diving ops", "Military ops", "Sailing",
        "Pleasure Craft", "Reserved", "Reserved",
    };
    static const char *const fixed50[10] = {
        "Pilot Vessel", "Search and Rescue vessel", "Tug", "Port Tender",
        "Anti-pollution equipment", "Law Enforcement", "Spare - Local Vessel",
        "Spare - Local Vessel", "Medical Transport", "Ship according to RR Resolution No. 18",
    };
    static const char *const group[10] = {
        NULL, NULL, "Wing in ground (WIG)", NULL, "High speed craft (HSC)", NULL,
        "Passenger", "Cargo", "Tanker", "Other Type",
    };
    static const char *const detail[10] = {
        "all ships of this type", "Hazardous category A", "Hazardous category B",
        "Hazardous category C", "Hazardous category D", "Reserved for future use",
        "Reserved for future use", "Reserved for future use", "Reserved for future use",
        "No additional information",
    };
    if (t == 0)
        return "Not available";
    if (t < 20)
        return "Reserved for future use";
    if (t >= 100)
        return "INVALID SHIP TYPE";
    unsigned tens = t / 10, unit = t % 10;
    if (tens == 3)
        return fixed30[unit];
    if (tens == 5)
        return fixed50[unit];
    const char *d = detail[unit];
    if (tens == 2 && unit == 9)
        d = "Reserved for future use"; /* WIG has no "no additional information" */
    if (t == 99)
        d = "no additional information";
    if (!buf || len == 0)
        return group[tens];
    snprintf(buf, len, "%s - %s", group[tens], d);
    return buf;
}

typedef struct {
    char *p;
    size_t len, n;
    bool over;
} out_t;

static void put(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out_t *o, const char *fmt, ...)
{
    if (o->over)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->p + o->n, o->len - o->n, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= o->len - o->n) {
        o->over = true;
        return;
    }
    o->n += (size_t)k;
}

/* JSON string body, escaped as gpsd's json_stringify does. */
static const char *jstr(const char *s, char *buf, size_t len)
{
    size_t n = 0;
    for (; *s && n + 7 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x80 || c < 0x20 || c == 0x7f) {
            buf[n++] = '\\';
            switch (c) {
            case '\b': buf[n++] = 'b'; break;
            case '\f': buf[n++] = 'f'; break;
            case '\n': buf[n++] = 'n'; break;
            case '\r': buf[n++] = 'r'; break;
            case '\t': buf[n++] = 't'; break;
            default: n += (size_t)snprintf(buf + n, 6, "u%04x", c); break;
            }
        } else {
            if (c == '"' || c == '\\')
                buf[n++] = '\\';
            buf[n++] = (char)c;
        }
    }
    buf[n] = '\0';
    return buf;
}

static const char *jbool(bool b) { return b ? "true" : "false"; }

int rtm_ais_json(const rtm_ais_msg_t *m, char *buf, size_t len)
{
    if (!m || !buf || len == 0)
        return RTM_E_ARG;
    out_t o = {buf, len, 0, false};
    char s1[64], s2[64], s3[64], ttext[64];
    const rtm_ais_pos_t *p = &m->pos;
    const rtm_ais_static_t *s = &m->vsd;
    buf[0] = '\0';
    put(&o, "{\"class\":\"AIS\",\"device\":\"stdin\",\"type\":%u,\"repeat\":%u,\"mmsi\":%u,"
            "\"scaled\":true",
        m->type, m->repeat, m->mmsi);
    switch (m->type) {
    case 1:
    case 2:
    case 3: {
        char turn[24], speed[24];
        if (p->turn == RTM_AIS_TURN_NA)
            snprintf(turn, sizeof(turn), "\"n/a\"");
        else if (p->turn == RTM_AIS_TURN_FAST_LEFT)
            snprintf(turn, sizeof(turn), "\"fastleft\"");
        else if (p->turn == RTM_AIS_TURN_FAST_RIGHT)
            snprintf(turn, sizeof(turn), "\"fastright\"");
        else
            snprintf(turn, sizeof(turn), "\"%.2f\"", rtm_ais_turn_deg_min(p->turn));
        if (p->speed == RTM_AIS_SPEED_NA)
            snprintf(speed, sizeof(speed), "\"n/a\"");
        else if (p->speed == RTM_AIS_SPEED_FAST)
            snprintf(speed, sizeof(speed), "\"fast\"");
        else
            snprintf(speed, sizeof(speed), "%.1f", rtm_ais_speed_kn(p->speed));
        put(&o,
            ",\"status\":%u,\"status_text\":\"%s\",\"turn\":%s,\"speed\":%s,"
            "\"accuracy\":%s,\"lon\":%.7f,\"lat\":%.7f,\"course\":%.1f,\"heading\":%u,"
            "\"second\":%u,\"maneuver\":%u,\"raim\":%s,\"radio\":%u}\r\n",
            p->status, rtm_ais_status_text(p->status), turn, speed, jbool(p->accuracy),
            rtm_ais_lon_deg(p->lon), rtm_ais_lat_deg(p->lat), rtm_ais_course_deg(p->course),
            p->heading, p->second, p->maneuver, jbool(p->raim), p->radio);
        break;
    }
    case 5:
        put(&o,
            ",\"imo\":%u,\"ais_version\":%u,\"callsign\":\"%s\",\"shipname\":\"%s\","
            "\"shiptype\":%u,\"shiptype_text\":\"%s\",\"to_bow\":%u,\"to_stern\":%u,"
            "\"to_port\":%u,\"to_starboard\":%u,\"epfd\":%u,\"epfd_text\":\"%s\","
            "\"eta\":\"%02u-%02uT%02u:%02uZ\",\"draught\":%.1f,\"destination\":\"%s\","
            "\"dte\":%u}\r\n",
            s->imo, s->ais_version, jstr(s->callsign, s1, sizeof(s1)),
            jstr(s->shipname, s2, sizeof(s2)), s->shiptype,
            rtm_ais_shiptype_text(s->shiptype, ttext, sizeof(ttext)), s->to_bow, s->to_stern,
            s->to_port, s->to_starboard, s->epfd, rtm_ais_epfd_text(s->epfd), s->month,
            s->day, s->hour, s->minute, s->draught / 10.0,
            jstr(s->destination, s3, sizeof(s3)), s->dte ? 1u : 0u);
        break;
    case 18:
        put(&o,
            ",\"reserved\":%u,\"speed\":%.1f,\"accuracy\":%s,\"lon\":%.7f,\"lat\":%.7f,"
            "\"course\":%.1f,\"heading\":%u,\"second\":%u,\"regional\":%u,\"cs\":%s,"
            "\"display\":%s,\"dsc\":%s,\"band\":%s,\"msg22\":%s,\"raim\":%s,\"radio\":%u}\r\n",
            p->reserved, rtm_ais_speed_kn(p->speed), jbool(p->accuracy),
            rtm_ais_lon_deg(p->lon), rtm_ais_lat_deg(p->lat), rtm_ais_course_deg(p->course),
            p->heading, p->second, p->regional, jbool(p->cs), jbool(p->display),
            jbool(p->dsc), jbool(p->band), jbool(p->msg22), jbool(p->raim), p->radio);
        break;
    case 19:
        put(&o,
            ",\"reserved\":%u,\"speed\":%.1f,\"accuracy\":%s,\"lon\":%.7f,\"lat\":%.7f,"
            "\"course\":%.1f,\"heading\":%u,\"second\":%u,\"regional\":%u,"
            "\"shipname\":\"%s\",\"shiptype\":%u,\"shiptype_text\":\"%s\",\"to_bow\":%u,"
            "\"to_stern\":%u,\"to_port\":%u,\"to_starboard\":%u,\"epfd\":%u,"
            "\"epfd_text\":\"%s\",\"raim\":%s,\"dte\":%u,\"assigned\":%s}\r\n",
            p->reserved, rtm_ais_speed_kn(p->speed), jbool(p->accuracy),
            rtm_ais_lon_deg(p->lon), rtm_ais_lat_deg(p->lat), rtm_ais_course_deg(p->course),
            p->heading, p->second, p->regional, jstr(s->shipname, s1, sizeof(s1)),
            s->shiptype, rtm_ais_shiptype_text(s->shiptype, ttext, sizeof(ttext)), s->to_bow,
            s->to_stern, s->to_port, s->to_starboard, s->epfd, rtm_ais_epfd_text(s->epfd),
            jbool(p->raim), s->dte ? 1u : 0u, jbool(p->assigned));
        break;
    case 24:
        if (m->part != RTM_AIS_PART_AB)
            put(&o, ",\"part\":\"%s\"", m->part == RTM_AIS_PART_A ? "A" : "B");
        if (m->part != RTM_AIS_PART_B)
            put(&o, ",\"shipname\":\"%s\"", jstr(s->shipname, s1, sizeof(s1)));
        if (m->part != RTM_AIS_PART_A) {
            put(&o,
                ",\"shiptype\":%u,\"shiptype_text\":\"%s\",\"vendorid\":\"%s\",\"model\":%u,"
                "\"serial\":%u,\"callsign\":\"%s\"",
                s->shiptype, rtm_ais_shiptype_text(s->shiptype, ttext, sizeof(ttext)),
                jstr(s->vendorid, s2, sizeof(s2)), s->model, s->serial,
                jstr(s->callsign, s3, sizeof(s3)));
            if (auxiliary_mmsi(m->mmsi))
                put(&o, ",\"mothership_mmsi\":%u", s->mothership_mmsi);
            else
                put(&o, ",\"to_bow\":%u,\"to_stern\":%u,\"to_port\":%u,\"to_starboard\":%u",
                    s->to_bow, s->to_stern, s->to_port, s->to_starboard);
        }
        put(&o, "}\r\n");
        break;
    default:
        put(&o, "}\r\n");
        break;
    }
    if (o.over) {
        buf[0] = '\0';
        return RTM_E_NOMEM;
    }
    return (int)o.n;
}

/* ---- counters ---- */

static const char *const stat_names[] = {
#define RTM_AIS_STATS_NAME(name, text) #name,
    RTM_AIS_STATS_LIST(RTM_AIS_STATS_NAME)
#undef RTM_AIS_STATS_NAME
};

#define N_NAMED (sizeof(stat_names) / sizeof(stat_names[0]))

const char *rtm_ais_stats_at(const rtm_ais_stats_t *st, unsigned i, uint64_t *value)
{
    if (!st || i >= N_NAMED)
        return NULL;
    const uint64_t *v = (const uint64_t *)(const void *)st;
    if (value)
        *value = v[i];
    return stat_names[i];
}

_Static_assert(offsetof(rtm_ais_stats_t, by_type) == N_NAMED * sizeof(uint64_t),
               "rtm_ais_stats_t counters are not a flat array of uint64_t");

size_t rtm_ais_stats_format(const rtm_ais_stats_t *st, char *buf, size_t len)
{
    size_t need = 0;
    if (buf && len)
        buf[0] = '\0';
    if (!st)
        return 0;
    for (unsigned i = 0; i < N_NAMED + 64; i++) {
        char item[64];
        int n;
        if (i < N_NAMED) {
            uint64_t v;
            const char *name = rtm_ais_stats_at(st, i, &v);
            n = snprintf(item, sizeof(item), "%s%s=%llu", i ? " " : "", name,
                         (unsigned long long)v);
        } else {
            unsigned t = i - (unsigned)N_NAMED;
            if (!st->by_type[t])
                continue;
            n = snprintf(item, sizeof(item), " type%u=%llu", t,
                         (unsigned long long)st->by_type[t]);
        }
        if (n < 0)
            continue;
        if (buf && need + (size_t)n < len)
            memcpy(buf + need, item, (size_t)n + 1);
        need += (size_t)n;
    }
    return need;
}
