/* replay.c — log slicing, corruption, offline counters and output verification for the
 * HIL harness (see replay.h). A tool module: allocates, reads and writes files.
 *
 * Invariants: a loaded log's lines point into its own buffer, in file order, each ending
 * with its line end (the last one may lack it); log_ns never decreases along a slice
 * except where the recording itself went back (kept as recorded). */
#include "replay.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/nav_math.h"
#include "os.h"
#include "rng.h"

#define NM 1852.0
#define KNOT (1852.0 / 3600.0)
#define DEG (M_PI / 180.0)

/* ---- loading ---------------------------------------------------------------------- */

/* UTC of the line when it is an RMC with date and time, else -1. */
static int64_t rmc_time(const char *p, size_t n)
{
    rtm_nmea_t lx;
    rtm_nmea_init(&lx);
    rtm_nmea_sentence_t s;
    for (size_t i = 0; i < n; i++) {
        if (rtm_nmea_push(&lx, (uint8_t)p[i], &s) != 1)
            continue;
        rtm_nmea_nav_t nav;
        if (s.kind == RTM_NMEA_RMC && rtm_nmea_nav(NULL, &s, &nav) == RTM_OK)
            return rtm_nmea_utc_ns(&nav);
        return -1;
    }
    return -1;
}

rtm_status_t rtm_replay_load(const char *path, int64_t start_ns, int64_t length_ns,
                             rtm_replay_log_t *log, char *why, size_t len)
{
    memset(log, 0, sizeof(*log));
    size_t size = 0;
    char *all = rtm_os_read_file(path, 0, &size);
    if (!all) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return RTM_E_IO;
    }
    const long n = (long)size;
    size_t lines = 1;
    for (long i = 0; i < n; i++)
        lines += all[i] == '\n';
    log->buf = malloc((size_t)n + 1);
    log->line = calloc(lines, sizeof(*log->line));
    if (!log->buf || !log->line) {
        free(all);
        rtm_replay_free(log);
        return RTM_E_NOMEM;
    }
    int64_t first = -1, now = -1, from = -1, until = INT64_MAX;
    bool in = false;
    size_t used = 0;
    for (long i = 0; i < n;) {
        long e = i;
        while (e < n && all[e] != '\n')
            e++;
        if (e < n)
            e++;
        const int64_t t = rmc_time(all + i, (size_t)(e - i));
        if (t >= 0) {
            if (first < 0) {
                first = t;
                from = first + start_ns;
                if (length_ns > 0)
                    until = from + length_ns;
            }
            now = t;
            if (!in && t >= from)
                in = true;
            if (in && t >= until)
                break;
        }
        if (in) {
            memcpy(log->buf + used, all + i, (size_t)(e - i));
            rtm_replay_line_t *l = &log->line[log->n++];
            l->text = log->buf + used; /* buf never moves */
            l->len = (uint32_t)(e - i);
            l->log_ns = now;
            used += (size_t)(e - i);
            log->rmc += t >= 0;
        }
        i = e;
    }
    free(all);
    log->bytes = used;
    if (log->n == 0 || log->rmc == 0) {
        snprintf(why, len, "%s: no RMC sentence in the slice", path);
        rtm_replay_free(log);
        return RTM_E_EMPTY;
    }
    log->t0_ns = log->line[0].log_ns;
    log->t1_ns = log->line[log->n - 1].log_ns;
    return RTM_OK;
}

void rtm_replay_free(rtm_replay_log_t *log)
{
    if (!log)
        return;
    free(log->buf);
    free(log->line);
    memset(log, 0, sizeof(*log));
}

rtm_status_t rtm_replay_write(const rtm_replay_log_t *log, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return RTM_E_IO;
    for (size_t i = 0; i < log->n; i++)
        fwrite(log->line[i].text, 1, log->line[i].len, f);
    return fclose(f) == 0 ? RTM_OK : RTM_E_IO;
}

/* ---- corruption ------------------------------------------------------------------- */

enum { D_CHECKSUM, D_NOCHECKSUM, D_TRUNCATE, D_DROP, D_DUP, D_GARBAGE, D_OVERLONG, D_KINDS };

rtm_status_t rtm_replay_corrupt(const rtm_replay_log_t *in, uint64_t seed, double rate,
                                rtm_replay_log_t *out, rtm_replay_damage_t *damage)
{
    memset(out, 0, sizeof(*out));
    memset(damage, 0, sizeof(*damage));
    /* each input line becomes at most two lines of at most len + 320 bytes */
    const size_t cap = 2 * in->bytes + in->n * 330 + 16;
    out->buf = malloc(cap);
    out->line = calloc(2 * in->n + 1, sizeof(*out->line));
    if (!out->buf || !out->line) {
        rtm_replay_free(out);
        return RTM_E_NOMEM;
    }
    rtm_rng_t rng;
    rtm_rng_seed(&rng, seed);
    size_t used = 0;
/* arguments are evaluated more than once: pass plain values */
#define EMIT(ptr_, len_, t_)                                                              \
    do {                                                                                  \
        memcpy(out->buf + used, (ptr_), (len_));                                          \
        out->line[out->n++] = (rtm_replay_line_t){out->buf + used, (uint32_t)(len_), (t_)}; \
        used += (len_);                                                                   \
    } while (0)
    for (size_t i = 0; i < in->n; i++) {
        const rtm_replay_line_t *l = &in->line[i];
        const char *star = memchr(l->text, '*', l->len);
        const bool sentence = l->len > 8 && (l->text[0] == '$' || l->text[0] == '!') && star &&
                              (size_t)(star - l->text) + 3 <= l->len;
        out->rmc += rmc_time(l->text, l->len) >= 0;
        if (!sentence || rtm_rng_uniform(&rng, 0, 1) >= rate) {
            EMIT(l->text, l->len, l->log_ns);
            continue;
        }
        char tmp[1024];
        const size_t body = (size_t)(star - l->text);
        switch ((int)rtm_rng_below(&rng, D_KINDS)) {
        case D_CHECKSUM: {
            if (l->len > sizeof(tmp))
                break;
            memcpy(tmp, l->text, l->len);
            const size_t at = 1 + (size_t)rtm_rng_below(&rng, body - 1);
            tmp[at] = tmp[at] == 'Q' ? 'R' : 'Q'; /* a different character: the XOR changes */
            EMIT(tmp, l->len, l->log_ns);
            damage->bad_checksum++;
            continue;
        }
        case D_NOCHECKSUM: {
            if (l->len > sizeof(tmp))
                break;
            memcpy(tmp, l->text, body);
            tmp[body] = '\r';
            tmp[body + 1] = '\n';
            EMIT(tmp, body + 2, l->log_ns);
            damage->no_checksum++;
            continue;
        }
        case D_TRUNCATE: {
            /* cut in the body, no line end: the next sentence's start ends it */
            const size_t cut = 1 + (size_t)rtm_rng_below(&rng, body - 1);
            EMIT(l->text, cut, l->log_ns);
            damage->truncated++;
            continue;
        }
        case D_DROP:
            damage->dropped++;
            continue;
        case D_DUP:
            EMIT(l->text, l->len, l->log_ns);
            damage->duplicated++;
            break;
        case D_GARBAGE: {
            size_t k = 0;
            for (; k < 40; k++) {
                char c = (char)(0x80 | rtm_rng_below(&rng, 0x7f)); /* never '$', '!', CR, LF */
                tmp[k] = c;
            }
            tmp[k++] = '\r';
            tmp[k++] = '\n';
            EMIT(tmp, k, l->log_ns);
            damage->garbage++;
            break;
        }
        default: { /* D_OVERLONG */
            size_t k = (size_t)snprintf(tmp, sizeof(tmp), "$GPTXT,");
            for (int c = 0; c < 300; c++)
                tmp[k++] = (char)('A' + c % 26);
            tmp[k++] = '*';
            tmp[k++] = '0';
            tmp[k++] = '0';
            tmp[k++] = '\r';
            tmp[k++] = '\n';
            EMIT(tmp, k, l->log_ns);
            damage->overlong++;
            break;
        }
        }
        EMIT(l->text, l->len, l->log_ns); /* after an insertion (or a line too long to damage) */
    }
#undef EMIT
    out->bytes = used;
    out->t0_ns = in->t0_ns;
    out->t1_ns = in->t1_ns;
    return RTM_OK;
}

/* ---- offline counters ------------------------------------------------------------- */

void rtm_replay_offline(const rtm_replay_log_t *log, rtm_input_stats_t *out)
{
    static rtm_nmea_t lx;
    static rtm_ais_t ais;
    memset(out, 0, sizeof(*out));
    rtm_nmea_init(&lx);
    rtm_ais_init(&ais, NULL);
    int64_t t = 0;
    for (size_t i = 0; i < log->n; i++)
        for (uint32_t k = 0; k < log->line[i].len; k++) {
            rtm_nmea_sentence_t s;
            if (rtm_nmea_push(&lx, (uint8_t)log->line[i].text[k], &s) != 1)
                continue;
            t += 1000000;
            rtm_ais_msg_t m;
            if (s.kind == RTM_NMEA_VDM || s.kind == RTM_NMEA_VDO)
                (void)rtm_ais_feed(&ais, &s, t, &m);
            else {
                rtm_nmea_nav_t nav;
                (void)rtm_nmea_nav(&lx, &s, &nav);
            }
        }
    out->nmea = lx.stats;
    out->ais = ais.stats;
}

/* ---- verification ----------------------------------------------------------------- */

void rtm_replay_cpa(double dist_nm, double brg_deg, double sog_kn, double cog_deg,
                    double own_sog_kn, double own_cog_deg, double *cpa_m, double *tcpa_s)
{
    float ovx, ovy, tvx, tvy, c, t;
    nav_velocity((float)(own_sog_kn * KNOT), (float)(own_cog_deg * DEG), &ovx, &ovy);
    nav_velocity((float)(sog_kn * KNOT), (float)(cog_deg * DEG), &tvx, &tvy);
    const float rx = (float)(dist_nm * NM * sin(brg_deg * DEG));
    const float ry = (float)(dist_nm * NM * cos(brg_deg * DEG));
    nav_cpa(rx, ry, tvx - ovx, tvy - ovy, &c, &t);
    *cpa_m = c;
    *tcpa_s = t;
}

void rtm_replay_check_init(rtm_replay_check_t *c, double alarm_cpa_m, double alarm_tcpa_s)
{
    memset(c, 0, sizeof(*c));
    c->alarm_cpa_m = alarm_cpa_m;
    c->alarm_tcpa_s = alarm_tcpa_s;
}

/* A number field and half a unit of its last printed decimal; false when empty or bad. */
static bool field_num(const char *f, double *v, double *half)
{
    if (!f || !*f)
        return false;
    char *end;
    errno = 0;
    *v = strtod(f, &end);
    if (*end || errno || !isfinite(*v))
        return false;
    const char *dot = strchr(f, '.');
    const int dec = dot ? (int)strlen(dot + 1) : 0;
    *half = 0.5 * pow(10.0, -dec);
    return true;
}

/* Closes the alarm expectations of the report that ends here. */
static void close_report(rtm_replay_check_t *c)
{
    for (unsigned k = 0; k < 100; k++) {
        if (c->want_alarm[k] == 1 && !c->alarm_seen[k])
            c->alarms_missing++;
        c->want_alarm[k] = 0;
        c->alarm_seen[k] = false;
    }
}

void rtm_replay_check_finish(rtm_replay_check_t *c) { close_report(c); }

static int mismatch(rtm_replay_check_t *c, const rtm_nmea_sentence_t *s, const char *why)
{
    if (c->mismatches++ == 0)
        snprintf(c->first_mismatch, sizeof(c->first_mismatch), "%.*s: %.150s", 120, s->raw, why);
    return 1;
}

static int check_ttm(rtm_replay_check_t *c, const rtm_nmea_sentence_t *s)
{
    c->ttm++;
    if (s->nfields < 15) {
        c->bad++;
        return 0;
    }
    char *end;
    const long num = strtol(s->field[0], &end, 10);
    if (*end || num < 1 || num > 99) {
        c->bad++;
        return 0;
    }
    if (s->field[11][0] == 'L') {
        c->ttm_lost++;
        return 0;
    }
    double v[6], h[6], cpa_nm, hc, tcpa_min, ht;
    const int idx[4] = {1, 2, 4, 5}; /* distance, bearing, speed, course */
    bool ok = true;
    for (int i = 0; i < 4; i++)
        ok &= field_num(s->field[idx[i]], &v[i], &h[i]);
    ok &= field_num(s->field[7], &cpa_nm, &hc) && field_num(s->field[8], &tcpa_min, &ht);
    if (!ok) {
        c->bad++;
        return 0;
    }
    if (!c->own_valid) {
        c->no_own++;
        return 0;
    }
    v[4] = c->own_sog_kn;
    h[4] = 0.05;
    v[5] = c->own_cog_deg;
    h[5] = 0.05;
    /* the recomputation over a 3^6 grid of the rounding box: signed CPA (the side the
     * target passes on), TCPA, and the smallest relative speed */
    double dmin = INFINITY, dmax = -INFINITY, tmin = INFINITY, tmax = -INFINITY;
    double wmin = INFINITY, c0 = 0, t0 = 0;
    for (int g = 0; g < 729; g++) {
        double x[6];
        for (int i = 0, q = g; i < 6; i++, q /= 3)
            x[i] = v[i] + (double)(q % 3 - 1) * h[i];
        double cm, ts;
        rtm_replay_cpa(x[0], x[1], x[2], x[3], x[4], x[5], &cm, &ts);
        const double rx = x[0] * sin(x[1] * DEG), ry = x[0] * cos(x[1] * DEG);
        const double wx = x[2] * sin(x[3] * DEG) - x[4] * sin(x[5] * DEG);
        const double wy = x[2] * cos(x[3] * DEG) - x[4] * cos(x[5] * DEG);
        const double side = rx * wy - ry * wx >= 0 ? 1.0 : -1.0;
        const double w = hypot(wx, wy);
        dmin = fmin(dmin, side * cm);
        dmax = fmax(dmax, side * cm);
        tmin = fmin(tmin, ts);
        tmax = fmax(tmax, ts);
        wmin = fmin(wmin, w);
        if (g == 364) { /* the centre: every offset 0 */
            c0 = cm;
            t0 = ts;
        }
    }
    double lo = dmin > 0 ? dmin : dmax < 0 ? -dmax : 0.0, hi = fmax(fabs(dmin), fabs(dmax));
    const double slack_c = 0.1 * (hi - lo) + hc * NM + 1.0 + 1e-5 * hi;
    c->checked++;
    const double cpa_m = cpa_nm * NM;
    c->worst_cpa_nm = fmax(c->worst_cpa_nm, fabs(cpa_m - c0) / NM);
    char why[160];
    if (cpa_m < lo - slack_c || cpa_m > hi + slack_c) {
        snprintf(why, sizeof(why), "CPA %.3f nm, recomputed %.4f..%.4f nm", cpa_nm, lo / NM,
                 hi / NM);
        return mismatch(c, s, why);
    }
    if (wmin >= RTM_REPLAY_W_MIN_KN) {
        c->tcpa_checked++;
        const double slack_t = 0.1 * (tmax - tmin) + ht * 60.0 + 0.1 + 1e-5 * fabs(tmax);
        c->worst_tcpa_min = fmax(c->worst_tcpa_min, fabs(tcpa_min * 60.0 - t0) / 60.0);
        if (tcpa_min * 60.0 < tmin - slack_t || tcpa_min * 60.0 > tmax + slack_t) {
            snprintf(why, sizeof(why), "TCPA %.2f min, recomputed %.3f..%.3f min", tcpa_min,
                     tmin / 60.0, tmax / 60.0);
            return mismatch(c, s, why);
        }
    }
    /* the alarm this target should raise in this report (not judged at the edges) */
    if (c->alarm_cpa_m > 0) {
        const double cm = cpa_nm * NM, ts = tcpa_min * 60.0;
        const bool near = fabs(cm - c->alarm_cpa_m) <= hc * NM + 1.0 || fabs(ts) <= ht * 60 + 0.1 ||
                          fabs(ts - c->alarm_tcpa_s) <= ht * 60 + 0.1;
        const bool want = cm < c->alarm_cpa_m && ts >= 0 && ts <= c->alarm_tcpa_s;
        c->want_alarm[num] = near ? 2 : want ? 1 : 0;
        c->alarms_expected += want && !near;
    }
    return 0;
}

int rtm_replay_check_sentence(rtm_replay_check_t *c, const rtm_nmea_sentence_t *s)
{
    c->sentences++;
    if (strcmp(s->formatter, "OSD") == 0) {
        close_report(c);
        c->osd++;
        double cog, sog, h;
        c->own_valid = s->nfields >= 9 && s->field[1][0] == 'A' && field_num(s->field[2], &cog, &h) &&
                       field_num(s->field[4], &sog, &h);
        c->own_cog_deg = c->own_valid ? cog : 0;
        c->own_sog_kn = c->own_valid ? sog : 0;
        return 0;
    }
    if (strcmp(s->formatter, "TTM") == 0)
        return check_ttm(c, s);
    if (strcmp(s->formatter, "ALR") == 0) {
        c->alr++;
        if (s->nfields < 5) {
            c->bad++;
            return 0;
        }
        if (s->field[2][0] == 'A') {
            c->alr_active++;
            const long id = strtol(s->field[1], NULL, 10);
            if (id >= 1 && id <= 99 && c->want_alarm[id])
                c->alarm_seen[id] = true;
            else
                c->alarms_spurious++;
        }
        return 0;
    }
    c->bad++;
    return 0;
}
