/* nmea.c — NMEA 0183 framing and the own-ship sentences (see nmea.h).
 *
 * Owns the byte-stream lexer: a state machine over one bounded line buffer.
 *
 *   IDLE --'$'/'!'--> BODY --'*'--> CS1 --hex--> CS2 --hex--> sentence (back to IDLE)
 *   IDLE --'\'--> TAG --'\'--> IDLE            (NMEA 4 tag block, skipped)
 *   IDLE --'#' first on a line--> COMMENT --LF--> IDLE   (gpsd test-log comment)
 *   any damage --> SKIP (until CR/LF or a start character)
 *
 * Invariants: len <= RTM_NMEA_LINE_MAX; line[] holds the sentence received so far;
 * `sum` is the XOR of line[1..] up to (not including) '*'. A start character always
 * begins a new sentence, whatever the state: a sentence interrupted that way is
 * counted as truncated. Every byte is accounted for either in a sentence, in a dropped
 * line (one counter per line), or in `garbage`.
 *
 * Numbers are parsed by hand (no strtod: it is locale-dependent and may allocate). */
#include "nmea.h"

#include <stdio.h>
#include <string.h>

enum { ST_IDLE, ST_BODY, ST_CS1, ST_CS2, ST_SKIP, ST_TAG, ST_COMMENT };

void rtm_nmea_init(rtm_nmea_t *lx)
{
    if (!lx)
        return;
    memset(lx, 0, sizeof(*lx));
    lx->state = ST_IDLE;
    lx->bol = true;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static void begin(rtm_nmea_t *lx, uint8_t c)
{
    lx->line[0] = (char)c;
    lx->len = 1;
    lx->sum = 0;
    lx->given = 0;
    lx->state = ST_BODY;
}

static bool is_alnum(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static rtm_nmea_kind_t classify(const char *talker, const char *formatter)
{
    if (talker[0] == 'P' && talker[1] == '\0')
        return RTM_NMEA_OTHER;
    if (strcmp(formatter, "RMC") == 0)
        return RTM_NMEA_RMC;
    if (strcmp(formatter, "GGA") == 0)
        return RTM_NMEA_GGA;
    if (strcmp(formatter, "HDT") == 0)
        return RTM_NMEA_HDT;
    if (strcmp(formatter, "VTG") == 0)
        return RTM_NMEA_VTG;
    if (strcmp(formatter, "VDM") == 0)
        return RTM_NMEA_VDM;
    if (strcmp(formatter, "VDO") == 0)
        return RTM_NMEA_VDO;
    return RTM_NMEA_OTHER;
}

/* A sentence with a correct checksum is in line[0..len): split it into fields. */
static int finish(rtm_nmea_t *lx, rtm_nmea_sentence_t *out)
{
    uint32_t body = lx->len - 4; /* characters between the start character and '*' */
    memcpy(lx->split, lx->line + 1, body);
    lx->split[body] = '\0';

    /* address field */
    uint32_t i = 0;
    while (i < body && lx->split[i] != ',')
        i++;
    uint32_t alen = i;
    if (alen < 3 || alen > 8) {
        lx->stats.bad_address++;
        return 0;
    }
    for (uint32_t k = 0; k < alen; k++)
        if (!is_alnum(lx->split[k])) {
            lx->stats.bad_address++;
            return 0;
        }
    memset(out, 0, sizeof(*out));
    if (lx->split[0] == 'P') {
        out->talker[0] = 'P';
        memcpy(out->formatter, lx->split + 1, alen - 1);
    } else {
        out->talker[0] = lx->split[0];
        out->talker[1] = lx->split[1];
        memcpy(out->formatter, lx->split + 2, alen - 2);
    }

    /* data fields */
    uint32_t n = 0;
    while (i < body) { /* lx->split[i] == ',' */
        if (n == RTM_NMEA_FIELDS_MAX) {
            lx->stats.bad_address++;
            return 0;
        }
        lx->split[i++] = '\0';
        out->field[n++] = lx->split + i;
        while (i < body && lx->split[i] != ',')
            i++;
    }
    lx->split[alen] = '\0';
    out->nfields = n;
    out->start = lx->line[0];
    out->raw = lx->line;
    out->len = lx->len;
    out->kind = classify(out->talker, out->formatter);

    lx->stats.sentences++;
    if (lx->len > RTM_NMEA_LINE_STD)
        lx->stats.long_lines++;
    switch (out->kind) {
    case RTM_NMEA_RMC: lx->stats.rmc++; break;
    case RTM_NMEA_GGA: lx->stats.gga++; break;
    case RTM_NMEA_HDT: lx->stats.hdt++; break;
    case RTM_NMEA_VTG: lx->stats.vtg++; break;
    case RTM_NMEA_VDM: lx->stats.vdm++; break;
    case RTM_NMEA_VDO: lx->stats.vdo++; break;
    default: lx->stats.other++; break;
    }
    return 1;
}

/* A damaged checksum: CR/LF ends the line, a start character begins a new one. */
static void checksum_damaged(rtm_nmea_t *lx, uint8_t c)
{
    lx->stats.bad_char++;
    if (c == '$' || c == '!')
        begin(lx, c);
    else if (c == '\r' || c == '\n')
        lx->state = ST_IDLE;
    else
        lx->state = ST_SKIP;
}

int rtm_nmea_push(rtm_nmea_t *lx, uint8_t c, rtm_nmea_sentence_t *out)
{
    if (!lx || !out)
        return 0;
    lx->stats.bytes++;
    bool bol = lx->bol;
    lx->bol = c == '\n' || c == '\r';
    switch (lx->state) {
    case ST_COMMENT:
        if (c == '\n' || c == '\r')
            lx->state = ST_IDLE;
        return 0;
    case ST_IDLE:
        if (c == '$' || c == '!')
            begin(lx, c);
        else if (c == '#' && bol) {
            lx->stats.comments++;
            lx->state = ST_COMMENT;
        } else if (c == '\\') {
            lx->state = ST_TAG;
            lx->tag_len = 0;
        } else if (c != '\r' && c != '\n')
            lx->stats.garbage++;
        return 0;
    case ST_TAG:
        if (c == '\\') {
            lx->stats.tag_blocks++;
            lx->state = ST_IDLE;
        } else if (c == '$' || c == '!') {
            lx->stats.garbage += lx->tag_len + 1;
            begin(lx, c);
        } else if (c == '\r' || c == '\n' || ++lx->tag_len > RTM_NMEA_TAG_MAX) {
            lx->stats.garbage += lx->tag_len + 1;
            lx->state = (c == '\r' || c == '\n') ? ST_IDLE : ST_SKIP;
        }
        return 0;
    case ST_BODY:
        if (c == '$' || c == '!') {
            lx->stats.truncated++;
            begin(lx, c);
        } else if (c == '\r' || c == '\n') {
            lx->stats.no_checksum++;
            lx->state = ST_IDLE;
        } else if (c < 0x20 || c > 0x7e) {
            lx->stats.bad_char++;
            lx->state = ST_SKIP;
        } else if (lx->len + 3 >= RTM_NMEA_LINE_MAX + (c == '*' ? 1u : 0u)) {
            lx->stats.overlong++;
            lx->state = ST_SKIP;
        } else {
            lx->line[lx->len++] = (char)c;
            if (c == '*')
                lx->state = ST_CS1;
            else
                lx->sum ^= c;
        }
        return 0;
    case ST_CS1: {
        int v = hexval(c);
        if (v < 0) {
            checksum_damaged(lx, c);
            return 0;
        }
        lx->given = (uint8_t)(v << 4);
        lx->line[lx->len++] = (char)c;
        lx->state = ST_CS2;
        return 0;
    }
    case ST_CS2: {
        int v = hexval(c);
        if (v < 0) {
            checksum_damaged(lx, c);
            return 0;
        }
        lx->given |= (uint8_t)v;
        lx->line[lx->len++] = (char)c;
        lx->line[lx->len] = '\0';
        lx->state = ST_IDLE;
        if (lx->given != lx->sum) {
            lx->stats.bad_checksum++;
            return 0;
        }
        return finish(lx, out);
    }
    default: /* ST_SKIP */
        if (c == '$' || c == '!')
            begin(lx, c);
        else if (c == '\r' || c == '\n')
            lx->state = ST_IDLE;
        return 0;
    }
}

/* ---- field parsers: each returns 1 parsed, 0 empty field, -1 malformed ---- */

static const double pow10_tab[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                   1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};

/* [+-]digits[.digits], at most 17 digits in all. *ip gets the integer part's digit
 * count when ip is not NULL. */
static int parse_dec(const char *f, double *out, int *ip, uint64_t *int_part)
{
    if (!f || !*f)
        return 0;
    bool neg = false;
    if (*f == '-' || *f == '+')
        neg = *f++ == '-';
    uint64_t mant = 0, whole = 0;
    int digits = 0, idig = 0, frac = 0;
    bool dot = false;
    for (; *f; f++) {
        if (*f == '.' && !dot) {
            dot = true;
            whole = mant;
            continue;
        }
        if (*f < '0' || *f > '9' || digits == 17)
            return -1;
        mant = mant * 10 + (uint64_t)(*f - '0');
        digits++;
        if (dot)
            frac++;
        else
            idig++;
    }
    if (digits == 0)
        return -1;
    if (!dot)
        whole = mant;
    double v = (double)mant / pow10_tab[frac];
    *out = neg ? -v : v;
    if (ip)
        *ip = idig;
    if (int_part)
        *int_part = whole;
    return 1;
}

static int parse_nonneg(const char *f, double *out)
{
    int r = parse_dec(f, out, NULL, NULL);
    return (r == 1 && *out < 0) ? -1 : r;
}

/* hhmmss[.sss] → ms since midnight */
static int parse_time(const char *f, uint32_t *ms)
{
    if (!f || !*f)
        return 0;
    for (int i = 0; i < 6; i++)
        if (f[i] < '0' || f[i] > '9')
            return -1;
    int h = (f[0] - '0') * 10 + (f[1] - '0');
    int m = (f[2] - '0') * 10 + (f[3] - '0');
    int s = (f[4] - '0') * 10 + (f[5] - '0');
    if (h > 23 || m > 59 || s > 60)
        return -1;
    uint32_t frac = 0;
    const char *p = f + 6;
    if (*p == '.') {
        int scale = 100;
        for (p++; *p; p++) {
            if (*p < '0' || *p > '9')
                return -1;
            frac += (uint32_t)((*p - '0') * scale);
            scale /= 10;
        }
    } else if (*p) {
        return -1;
    }
    *ms = (uint32_t)((h * 3600 + m * 60 + s) * 1000) + frac;
    return 1;
}

/* ddmmyy */
static int parse_date(const char *f, rtm_nmea_nav_t *nav)
{
    if (!f || !*f)
        return 0;
    for (int i = 0; i < 6; i++)
        if (f[i] < '0' || f[i] > '9')
            return -1;
    if (f[6])
        return -1;
    int d = (f[0] - '0') * 10 + (f[1] - '0');
    int m = (f[2] - '0') * 10 + (f[3] - '0');
    int y = (f[4] - '0') * 10 + (f[5] - '0');
    if (d < 1 || d > 31 || m < 1 || m > 12)
        return -1;
    nav->day = (uint8_t)d;
    nav->month = (uint8_t)m;
    nav->year = (uint16_t)(y >= 80 ? 1900 + y : 2000 + y);
    return 1;
}

/* (d)ddmm.mmmm + hemisphere letter → signed degrees. */
static int parse_angle(const char *f, const char *hemi, int maxdeg, char pos, char neg,
                       double *out)
{
    bool fe = !f || !*f, he = !hemi || !*hemi;
    if (fe && he)
        return 0;
    if (fe || he || hemi[1] || (hemi[0] != pos && hemi[0] != neg))
        return -1;
    double v;
    int idig;
    uint64_t whole;
    if (parse_dec(f, &v, &idig, &whole) != 1 || f[0] == '-' || f[0] == '+' || idig < 3)
        return -1;
    uint64_t deg = whole / 100;
    double min = v - (double)deg * 100.0;
    if (min < 0 || min >= 60.0 || deg > (uint64_t)maxdeg)
        return -1;
    double d = (double)deg + min / 60.0;
    if (d > maxdeg)
        return -1;
    *out = hemi[0] == neg ? -d : d;
    return 1;
}

static const char *fld(const rtm_nmea_sentence_t *s, uint32_t i)
{
    return i < s->nfields ? s->field[i] : NULL;
}

static char mode_of(const char *f)
{
    return (f && f[0] && !f[1]) ? f[0] : 0;
}

static int parse_rmc(const rtm_nmea_sentence_t *s, rtm_nmea_nav_t *nav)
{
    if (s->nfields < 9)
        return -1;
    int r;
    if ((r = parse_time(fld(s, 0), &nav->time_ms)) < 0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_TIME : 0;
    const char *st = fld(s, 1);
    if (!st || (strcmp(st, "A") != 0 && strcmp(st, "V") != 0))
        return -1;
    if ((r = parse_angle(fld(s, 2), fld(s, 3), 90, 'N', 'S', &nav->lat)) < 0)
        return -1;
    if (r && parse_angle(fld(s, 4), fld(s, 5), 180, 'E', 'W', &nav->lon) != 1)
        return -1;
    if (!r && parse_angle(fld(s, 4), fld(s, 5), 180, 'E', 'W', &nav->lon) != 0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_POS : 0;
    if ((r = parse_nonneg(fld(s, 6), &nav->sog_kn)) < 0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_SOG : 0;
    if ((r = parse_nonneg(fld(s, 7), &nav->cog_deg)) < 0 || nav->cog_deg > 360.0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_COG : 0;
    if ((r = parse_date(fld(s, 8), nav)) < 0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_DATE : 0;
    double mv;
    if (s->nfields >= 11 && parse_nonneg(fld(s, 9), &mv) == 1) {
        const char *h = fld(s, 10);
        if (h && (strcmp(h, "E") == 0 || strcmp(h, "W") == 0)) {
            nav->magvar_deg = h[0] == 'W' ? -mv : mv;
            nav->have |= RTM_NMEA_HAVE_MAGVAR;
        }
    }
    nav->mode = mode_of(fld(s, 11));
    nav->valid = st[0] == 'A' && nav->mode != 'N' && (nav->have & RTM_NMEA_HAVE_POS);
    return 1;
}

static int parse_gga(const rtm_nmea_sentence_t *s, rtm_nmea_nav_t *nav)
{
    if (s->nfields < 6)
        return -1;
    int r;
    if ((r = parse_time(fld(s, 0), &nav->time_ms)) < 0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_TIME : 0;
    if ((r = parse_angle(fld(s, 1), fld(s, 2), 90, 'N', 'S', &nav->lat)) < 0)
        return -1;
    if (parse_angle(fld(s, 3), fld(s, 4), 180, 'E', 'W', &nav->lon) != r)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_POS : 0;
    double q = 0.0;
    if ((r = parse_nonneg(fld(s, 5), &q)) < 0 || q > 9.0 || q != (double)(int)q)
        return -1;
    if (r) {
        nav->quality = (int)q;
        nav->have |= RTM_NMEA_HAVE_QUALITY;
        double v;
        if (parse_nonneg(fld(s, 6), &v) == 1)
            nav->sats = (int)v;
        if (parse_nonneg(fld(s, 7), &v) == 1)
            nav->hdop = v;
    }
    if (parse_dec(fld(s, 8), &nav->alt_m, NULL, NULL) == 1)
        nav->have |= RTM_NMEA_HAVE_ALT;
    nav->valid = nav->quality > 0 && (nav->have & RTM_NMEA_HAVE_POS);
    return 1;
}

static int parse_hdt(const rtm_nmea_sentence_t *s, rtm_nmea_nav_t *nav)
{
    if (s->nfields < 1)
        return -1;
    int r = parse_nonneg(fld(s, 0), &nav->heading_deg);
    if (r < 0 || nav->heading_deg > 360.0)
        return -1;
    if (nav->heading_deg == 360.0)
        nav->heading_deg = 0.0;
    nav->have |= r ? RTM_NMEA_HAVE_HEADING : 0;
    nav->valid = r == 1;
    return 1;
}

static int parse_vtg(const rtm_nmea_sentence_t *s, rtm_nmea_nav_t *nav)
{
    int r;
    const char *cog = fld(s, 0), *sog;
    if (s->nfields >= 8) { /* NMEA 2.x: cog,T,cogm,M,sog,N,kmh,K[,mode] */
        sog = fld(s, 4);
        nav->mode = mode_of(fld(s, 8));
    } else if (s->nfields >= 4) { /* NMEA 1.5: cog,cogm,sog,kmh */
        sog = fld(s, 2);
    } else {
        return -1;
    }
    if ((r = parse_nonneg(cog, &nav->cog_deg)) < 0 || nav->cog_deg > 360.0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_COG : 0;
    if ((r = parse_nonneg(sog, &nav->sog_kn)) < 0)
        return -1;
    nav->have |= r ? RTM_NMEA_HAVE_SOG : 0;
    nav->valid = nav->mode != 'N' && (nav->have & RTM_NMEA_HAVE_SOG);
    return 1;
}

rtm_status_t rtm_nmea_nav(rtm_nmea_t *lx, const rtm_nmea_sentence_t *s, rtm_nmea_nav_t *nav)
{
    if (!s || !nav)
        return RTM_E_ARG;
    memset(nav, 0, sizeof(*nav));
    nav->kind = s->kind;
    memcpy(nav->talker, s->talker, sizeof(nav->talker));
    int r;
    switch (s->kind) {
    case RTM_NMEA_RMC: r = parse_rmc(s, nav); break;
    case RTM_NMEA_GGA: r = parse_gga(s, nav); break;
    case RTM_NMEA_HDT: r = parse_hdt(s, nav); break;
    case RTM_NMEA_VTG: r = parse_vtg(s, nav); break;
    default: return RTM_E_NOTFOUND;
    }
    if (r < 0) {
        if (lx)
            lx->stats.bad_fields++;
        rtm_nmea_kind_t kind = nav->kind;
        memset(nav, 0, sizeof(*nav));
        nav->kind = kind;
        return RTM_E_PARSE;
    }
    return RTM_OK;
}

int64_t rtm_nmea_civil_ns(int year, int month, int day, uint32_t time_ms)
{
    if (month < 1 || month > 12 || year < 0 || year > 9999 || day < 0 || day > 31 ||
        time_ms > 86401000u)
        return -1;
    /* days from 1970-01-01 (proleptic Gregorian; H. Hinnant's days_from_civil) */
    int64_t y = year - (month <= 2);
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return days * 86400000000000LL + (int64_t)time_ms * 1000000LL;
}

int64_t rtm_nmea_utc_ns(const rtm_nmea_nav_t *nav)
{
    const uint32_t need = RTM_NMEA_HAVE_DATE | RTM_NMEA_HAVE_TIME;
    if (!nav || (nav->have & need) != need)
        return -1;
    return rtm_nmea_civil_ns(nav->year, nav->month, nav->day, nav->time_ms);
}

static const char *const stat_names[] = {
#define RTM_NMEA_STATS_NAME(name, text) #name,
    RTM_NMEA_STATS_LIST(RTM_NMEA_STATS_NAME)
#undef RTM_NMEA_STATS_NAME
};

const char *rtm_nmea_stats_at(const rtm_nmea_stats_t *st, unsigned i, uint64_t *value)
{
    if (!st || i >= sizeof(stat_names) / sizeof(stat_names[0]))
        return NULL;
    const uint64_t *v = (const uint64_t *)(const void *)st;
    if (value)
        *value = v[i];
    return stat_names[i];
}

_Static_assert(sizeof(rtm_nmea_stats_t) == sizeof(stat_names) / sizeof(stat_names[0]) * 8,
               "rtm_nmea_stats_t is not a flat array of uint64_t");

size_t rtm_nmea_stats_format(const rtm_nmea_stats_t *st, char *buf, size_t len)
{
    size_t need = 0;
    uint64_t v;
    const char *name;
    if (buf && len)
        buf[0] = '\0';
    for (unsigned i = 0; st && (name = rtm_nmea_stats_at(st, i, &v)) != NULL; i++) {
        char item[64];
        int n = snprintf(item, sizeof(item), "%s%s=%llu", i ? " " : "", name,
                         (unsigned long long)v);
        if (n < 0)
            continue;
        if (buf && need + (size_t)n < len)
            memcpy(buf + need, item, (size_t)n + 1);
        need += (size_t)n;
    }
    return need;
}
