/* nmeaout.c — CPA/TCPA reports as NMEA 0183 OSD / TTM / ALR over UDP (see nmeaout.h).
 *
 * Owns the UDP socket, the target-number table (number -> MMSI, alarm state) and the
 * sentence buffer.
 *
 * Invariants:
 *   - the table and the buffer are touched only by the caller holding `busy`;
 *   - mmsi_of[k] != 0 means number k was sent to the plotter for that MMSI and has not
 *     been declared lost yet; each MMSI holds at most one number;
 *   - alarm_of[k] is true exactly when the last ALR sent for number k had condition A;
 *   - every sentence leaving here is at most RTM_NMEAOUT_SENTENCE_MAX characters with a
 *     correct checksum (formatters refuse otherwise). */
#include "nmeaout.h"

#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NM 1852.0
#define KNOT (1852.0 / 3600.0)
#define DEG (180.0 / M_PI)

#define INC(c) atomic_fetch_add_explicit(&(c), 1, memory_order_relaxed)

/* ---- formatting ------------------------------------------------------------------ */

/* Appends "*hh\r\n" to the sentence in buf[0..n) (buf[0] is '$' or '!'). */
static int finish(char *buf, size_t len, int n)
{
    if (n < 0 || (size_t)n + 6 > len || n + 5 > RTM_NMEAOUT_SENTENCE_MAX)
        return RTM_E_NOMEM;
    unsigned sum = 0;
    for (int i = 1; i < n; i++)
        sum ^= (unsigned char)buf[i];
    const int m = snprintf(buf + n, len - (size_t)n, "*%02X\r\n", sum);
    return m == 5 ? n + 5 : RTM_E_NOMEM;
}

/* A number with `dec` decimals, "" when not finite; no "-0.0". */
static void num(char *out, size_t len, double v, int dec)
{
    if (!isfinite(v) || fabs(v) >= 1e9) {
        out[0] = '\0';
        return;
    }
    const double half = 0.5 * pow(10.0, -dec);
    if (fabs(v) < half)
        v = 0.0;
    snprintf(out, len, "%.*f", dec, v);
}

/* An angle in [0, 360) with `dec` decimals ("360.0" becomes "0.0"). */
static void angle(char *out, size_t len, double deg, int dec)
{
    if (!isfinite(deg)) {
        out[0] = '\0';
        return;
    }
    deg = fmod(deg, 360.0);
    if (deg < 0)
        deg += 360.0;
    if (deg >= 360.0 - 0.5 * pow(10.0, -dec))
        deg = 0.0;
    num(out, len, deg, dec);
}

static void utc_field(char *out, size_t len, uint32_t ms)
{
    ms %= 86400000u;
    snprintf(out, len, "%02u%02u%02u.%02u", ms / 3600000u, ms / 60000u % 60u, ms / 1000u % 60u,
             ms % 1000u / 10u);
}

static bool talker_ok(const char *t)
{
    return t && t[0] >= 'A' && t[0] <= 'Z' && t[1] >= 'A' && t[1] <= 'Z' && t[2] == '\0';
}

int rtm_nmeaout_ttm(char *buf, size_t len, const char *talker, const rtm_nmeaout_ttm_t *t,
                    bool *name_dropped)
{
    if (!buf || !t || !talker_ok(talker) || t->number < 1 || t->number > 99)
        return RTM_E_ARG;
    char d[24], b[24], s[24], c[24], cpa[24], tcpa[24], utc[16];
    num(d, sizeof(d), t->dist_nm, 3);
    angle(b, sizeof(b), t->bearing_deg, 2);
    num(s, sizeof(s), t->speed_kn, 1);
    angle(c, sizeof(c), t->course_deg, 2);
    num(cpa, sizeof(cpa), t->cpa_nm, 3);
    num(tcpa, sizeof(tcpa), t->tcpa_min, 2);
    utc_field(utc, sizeof(utc), t->utc_ms);
    const char status = t->status ? t->status : 'T', acq = t->acquisition ? t->acquisition : 'A';
    /* the name only if the whole sentence stays within 82 characters */
    for (int with_name = 1; with_name >= 0; with_name--) {
        const char *name = with_name ? t->name : "";
        const int n = snprintf(buf, len, "$%sTTM,%02u,%s,%s,T,%s,%s,T,%s,%s,N,%s,%c,,%s,%c",
                               talker, t->number, d, b, s, c, cpa, tcpa, name, status, utc, acq);
        if (n >= 0 && n + 5 <= RTM_NMEAOUT_SENTENCE_MAX && (size_t)n + 6 <= len) {
            if (name_dropped)
                *name_dropped = !with_name && t->name[0];
            return finish(buf, len, n);
        }
    }
    return RTM_E_NOMEM;
}

int rtm_nmeaout_osd(char *buf, size_t len, const char *talker, double heading_deg,
                    double course_deg, double speed_kn)
{
    if (!buf || !talker_ok(talker))
        return RTM_E_ARG;
    char h[24], c[24], s[24];
    angle(h, sizeof(h), heading_deg, 1);
    angle(c, sizeof(c), course_deg, 1);
    num(s, sizeof(s), speed_kn, 1);
    const bool valid = isfinite(course_deg) && isfinite(speed_kn);
    const int n = snprintf(buf, len, "$%sOSD,%s,%c,%s,P,%s,P,,,N", talker, h, valid ? 'A' : 'V',
                           c, s);
    return finish(buf, len, n);
}

int rtm_nmeaout_alr(char *buf, size_t len, const char *talker, uint32_t utc_ms, unsigned id,
                    bool active, bool acknowledged, const char *text)
{
    if (!buf || !talker_ok(talker) || id > 999)
        return RTM_E_ARG;
    char utc[16];
    utc_field(utc, sizeof(utc), utc_ms);
    int n = snprintf(buf, len, "$%sALR,%s,%03u,%c,%c,", talker, utc, id, active ? 'A' : 'V',
                     acknowledged ? 'A' : 'V');
    if (n < 0 || (size_t)n >= len)
        return RTM_E_NOMEM;
    /* the text, trimmed to fit; '*', '$', '!', ',' and control characters become ' ' */
    for (const char *p = text ? text : ""; *p && n + 5 < RTM_NMEAOUT_SENTENCE_MAX &&
                                           (size_t)n + 6 < len;
         p++) {
        const char ch = *p;
        buf[n++] = (ch < 0x20 || ch > 0x7e || ch == '*' || ch == '$' || ch == '!' || ch == ',' ||
                    ch == '\\' || ch == '^' || ch == '~')
                       ? ' '
                       : ch;
    }
    buf[n] = '\0';
    return finish(buf, len, n);
}

/* ---- the output ------------------------------------------------------------------ */

rtm_status_t rtm_nmeaout_init(rtm_nmeaout_t *o, const rtm_nmeaout_config_t *cfg)
{
    if (!o || !cfg || !talker_ok(cfg->talker) || cfg->max_targets < 1 ||
        cfg->max_targets > RTM_NMEAOUT_NUMBERS || cfg->interval_ns < 0 || !(cfg->range_m > 0) ||
        !(cfg->alarm_cpa_m >= 0))
        return RTM_E_ARG;
    memset(o, 0, offsetof(rtm_nmeaout_t, st));
    o->cfg = *cfg;
    o->fd = -1;
    atomic_flag_clear(&o->busy);
    o->next_ns = INT64_MIN;
    atomic_init(&o->st.reports, 0);
    atomic_init(&o->st.sentences, 0);
    atomic_init(&o->st.ttm, 0);
    atomic_init(&o->st.osd, 0);
    atomic_init(&o->st.alr, 0);
    atomic_init(&o->st.lost, 0);
    atomic_init(&o->st.alarms, 0);
    atomic_init(&o->st.send_errors, 0);
    atomic_init(&o->st.busy, 0);
    atomic_init(&o->st.skipped, 0);
    atomic_init(&o->st.names_dropped, 0);

    const char *a = cfg->address, *colon = strrchr(a, ':');
    char host[256], port[16];
    size_t hl = colon ? (size_t)(colon - a) : 0;
    if (hl >= 2 && a[0] == '[' && a[hl - 1] == ']') {
        a++;
        hl -= 2;
    }
    if (!colon || hl == 0 || hl >= sizeof(host) || !colon[1] || strlen(colon + 1) >= sizeof(port))
        return RTM_E_ARG;
    memcpy(host, a, hl);
    host[hl] = '\0';
    snprintf(port, sizeof(port), "%s", colon + 1);
    long pn = 0;
    for (const char *p = port; *p; p++)
        pn = (*p >= '0' && *p <= '9' && pn <= 65535) ? pn * 10 + (*p - '0') : 65536;
    if (pn < 1 || pn > 65535)
        return RTM_E_ARG;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICSERV;
    const int r = getaddrinfo(host, port, &hints, &res);
    if (r != 0 || !res || res->ai_addrlen > sizeof(o->dest)) {
        fprintf(stderr, "rtmgr: output: cannot resolve %s: %s\n", cfg->address,
                r ? gai_strerror(r) : "bad address");
        if (res)
            freeaddrinfo(res);
        return RTM_E_OS;
    }
    memcpy(o->dest, res->ai_addr, res->ai_addrlen);
    o->dest_len = (unsigned)res->ai_addrlen;
    o->fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    freeaddrinfo(res);
    if (o->fd < 0) {
        fprintf(stderr, "rtmgr: output: socket: %s\n", strerror(errno));
        return RTM_E_OS;
    }
    o->opened = true;
    return RTM_OK;
}

void rtm_nmeaout_close(rtm_nmeaout_t *o)
{
    if (o && o->opened) {
        close(o->fd);
        o->fd = -1;
        o->opened = false;
    }
}

void rtm_nmeaout_stats(rtm_nmeaout_t *o, rtm_nmeaout_stats_t *out)
{
    if (!o || !out)
        return;
#define LD(f) out->f = atomic_load_explicit(&o->st.f, memory_order_relaxed)
    LD(reports);
    LD(sentences);
    LD(ttm);
    LD(osd);
    LD(alr);
    LD(lost);
    LD(alarms);
    LD(send_errors);
    LD(busy);
    LD(skipped);
    LD(names_dropped);
#undef LD
}

static void send_line(rtm_nmeaout_t *o, int n)
{
    if (n <= 0)
        return;
    const ssize_t w = sendto(o->fd, o->line, (size_t)n, MSG_DONTWAIT,
                             (const struct sockaddr *)o->dest, o->dest_len);
    if (w == n)
        INC(o->st.sentences);
    else
        INC(o->st.send_errors);
}

static uint32_t utc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint32_t)((ts.tv_sec % 86400) * 1000 + ts.tv_nsec / 1000000);
}

static bool in_alarm(const rtm_nmeaout_t *o, float cpa, float tcpa)
{
    return o->cfg.alarm_cpa_m > 0 && cpa < o->cfg.alarm_cpa_m && tcpa >= 0.0f &&
           (double)tcpa * 1e9 <= (double)o->cfg.alarm_tcpa_ns;
}

/* Urgency key: smaller is more urgent. Alarms first (by CPA), then approaching targets
 * (by CPA), then the others (by range). */
static double urgency(const rtm_nmeaout_t *o, float cpa, float tcpa, float range)
{
    if (in_alarm(o, cpa, tcpa))
        return cpa;
    if (tcpa >= 0.0f)
        return 1e9 + cpa;
    return 2e9 + range;
}

/* Keeps the max_targets most urgent in pick[0..*np), sorted. */
static void consider(rtm_nmeaout_t *o, uint32_t *np, uint32_t i, double key)
{
    uint32_t n = *np;
    const uint32_t k = o->cfg.max_targets;
    if (n == k && key >= o->key[n - 1])
        return;
    uint32_t j = n < k ? n++ : n - 1;
    while (j > 0 && o->key[j - 1] > key) {
        o->key[j] = o->key[j - 1];
        o->pick[j] = o->pick[j - 1];
        j--;
    }
    o->key[j] = key;
    o->pick[j] = i;
    *np = n;
}

static void alarm_text(char *buf, size_t len, float cpa_m, float tcpa_s, uint32_t mmsi)
{
    snprintf(buf, len, "CPA %.2fNM TCPA %.1fMIN %09u", (double)cpa_m / NM, (double)tcpa_s / 60.0,
             mmsi);
}

int rtm_nmeaout_offer(rtm_nmeaout_t *o, const rtm_traffic_t *pic, const float *cpa_m,
                      const float *tcpa_s, uint32_t n, int64_t now_ns)
{
    if (!o || !o->opened || !pic || (n > 0 && (!cpa_m || !tcpa_s)))
        return 0;
    if (atomic_flag_test_and_set_explicit(&o->busy, memory_order_acquire)) {
        INC(o->st.busy);
        return 0;
    }
    if (now_ns < o->next_ns) {
        atomic_flag_clear_explicit(&o->busy, memory_order_release);
        INC(o->st.skipped);
        return 0;
    }
    o->next_ns = now_ns + o->cfg.interval_ns;
    const uint64_t sent0 = atomic_load_explicit(&o->st.sentences, memory_order_relaxed);
    const char *tk = o->cfg.talker;
    const uint32_t utc = utc_now_ms();
    const bool own = !isnan(pic->lat0) && !isnan(pic->lon0);
    if (n > pic->n)
        n = pic->n;
    if (n > RTM_MAX_TARGETS)
        n = RTM_MAX_TARGETS;

    send_line(o, rtm_nmeaout_osd(o->line, sizeof(o->line), tk, NAN,
                                 own ? (double)pic->own_cog * DEG : NAN,
                                 own ? (double)pic->own_sog / KNOT : NAN));
    INC(o->st.osd);

    /* the most urgent targets in range */
    uint32_t np = 0;
    for (uint32_t i = 0; own && i < n; i++) {
        const float c = cpa_m[i], t = tcpa_s[i];
        if (!isfinite(c) || !isfinite(t) || pic->id[i] == 0)
            continue;
        const float r = hypotf(pic->x[i], pic->y[i]);
        if (!(r <= o->cfg.range_m))
            continue;
        consider(o, &np, i, urgency(o, c, t, r));
    }
    /* numbers: kept for targets still reported, lost ones declared, new ones assigned */
    memset(o->seen, 0, sizeof(o->seen));
    for (uint32_t j = 0; j < np; j++) {
        o->number_of[j] = 0;
        for (uint32_t k = 1; k <= RTM_NMEAOUT_NUMBERS; k++)
            if (o->mmsi_of[k] == pic->id[o->pick[j]]) {
                o->number_of[j] = k;
                o->seen[k] = true;
                break;
            }
    }
    char text[64];
    for (uint32_t k = 1; k <= RTM_NMEAOUT_NUMBERS; k++) {
        if (o->mmsi_of[k] == 0 || o->seen[k])
            continue;
        const rtm_nmeaout_ttm_t lost = {.number = k, .dist_nm = NAN, .bearing_deg = NAN,
                                        .speed_kn = NAN, .course_deg = NAN, .cpa_nm = NAN,
                                        .tcpa_min = NAN, .status = 'L', .utc_ms = utc,
                                        .acquisition = 'R'};
        send_line(o, rtm_nmeaout_ttm(o->line, sizeof(o->line), tk, &lost, NULL));
        INC(o->st.ttm);
        INC(o->st.lost);
        if (o->alarm_of[k]) {
            snprintf(text, sizeof(text), "TARGET LOST %09u", o->mmsi_of[k]);
            send_line(o, rtm_nmeaout_alr(o->line, sizeof(o->line), tk, utc, k, false, false, text));
            INC(o->st.alr);
            o->alarm_of[k] = false;
        }
        o->mmsi_of[k] = 0;
    }
    uint32_t next_free = 1;
    for (uint32_t j = 0; j < np; j++) {
        if (o->number_of[j])
            continue;
        while (next_free <= RTM_NMEAOUT_NUMBERS && o->mmsi_of[next_free] != 0)
            next_free++;
        if (next_free > RTM_NMEAOUT_NUMBERS)
            break; /* cannot happen: np <= 99 and numbers of lost targets were freed */
        o->number_of[j] = next_free;
        o->mmsi_of[next_free] = pic->id[o->pick[j]];
        o->alarm_of[next_free] = false;
    }
    /* the targets, most urgent first, then their alarms */
    for (uint32_t j = 0; j < np; j++) {
        const uint32_t i = o->pick[j];
        rtm_nmeaout_ttm_t t = {
            .number = o->number_of[j],
            .dist_nm = hypot((double)pic->x[i], (double)pic->y[i]) / NM,
            .bearing_deg = atan2((double)pic->x[i], (double)pic->y[i]) * DEG,
            .speed_kn = (double)pic->sog[i] / KNOT,
            .course_deg = (double)pic->cog[i] * DEG,
            .cpa_nm = (double)cpa_m[i] / NM,
            .tcpa_min = (double)tcpa_s[i] / 60.0,
            .status = 'T',
            .utc_ms = utc,
            .acquisition = 'R',
        };
        snprintf(t.name, sizeof(t.name), "%09u", pic->id[i]);
        bool dropped = false;
        send_line(o, rtm_nmeaout_ttm(o->line, sizeof(o->line), tk, &t, &dropped));
        INC(o->st.ttm);
        if (dropped)
            INC(o->st.names_dropped);
    }
    for (uint32_t j = 0; j < np; j++) {
        const uint32_t i = o->pick[j], k = o->number_of[j];
        const bool a = in_alarm(o, cpa_m[i], tcpa_s[i]);
        if (!a && !o->alarm_of[k])
            continue;
        if (a && !o->alarm_of[k])
            INC(o->st.alarms);
        alarm_text(text, sizeof(text), cpa_m[i], tcpa_s[i], pic->id[i]);
        send_line(o, rtm_nmeaout_alr(o->line, sizeof(o->line), tk, utc, k, a, false, text));
        INC(o->st.alr);
        o->alarm_of[k] = a;
    }
    INC(o->st.reports);
    const int sent = (int)(atomic_load_explicit(&o->st.sentences, memory_order_relaxed) - sent0);
    atomic_flag_clear_explicit(&o->busy, memory_order_release);
    return sent;
}
