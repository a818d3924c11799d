/* nav.c — host-side helpers of the navigation kernels (see nav.h): random traffic,
 * traffic snapshots, CSV input through rtmgr/geo, comparison. Owns no state.
 * Invariant: every target slot is either live (all fields finite, live = 1) or absent
 * (x = y = NaN so that pair kernels ignore it, other fields 0, live = 0). */
#include "kernels/nav.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtmgr/geo.h"
#include "rtmgr/rng.h"
#include "rtmgr/traffic.h"

static const double PI = 3.14159265358979323846;

size_t rtm_nav_tgt_bytes(uint32_t n) { return (size_t)NAV_FIELDS * n * sizeof(float); }

static void set_slot(float *tgt, uint32_t n, uint32_t i, float x, float y, float sog,
                     float cog, float rot)
{
    tgt[NAV_F_X * n + i] = x;
    tgt[NAV_F_Y * n + i] = y;
    tgt[NAV_F_SOG * n + i] = sog;
    tgt[NAV_F_COG * n + i] = cog;
    tgt[NAV_F_ROT * n + i] = rot;
    tgt[NAV_F_LIVE * n + i] = 1.0f;
}

static void set_absent(float *tgt, uint32_t n, uint32_t i)
{
    set_slot(tgt, n, i, NAN, NAN, 0.0f, 0.0f, 0.0f);
    tgt[NAV_F_LIVE * n + i] = 0.0f;
}

static void own_clear(rtm_nav_own_t *own) { memset(own, 0, sizeof(*own)); }

void rtm_nav_fill(rtm_nav_own_t *own, float *tgt, uint32_t n, uint64_t seed, float radius)
{
    rtm_rng_t r;
    rtm_rng_seed(&r, seed);
    own_clear(own);
    own->sog = (float)rtm_rng_uniform(&r, 4.0, 8.0);
    own->cog = (float)rtm_rng_uniform(&r, 0.0, 2.0 * PI);
    const double ovx = own->sog * sin((double)own->cog), ovy = own->sog * cos((double)own->cog);
    for (uint32_t i = 0; i < n; i++) {
        const double rho = radius * sqrt(rtm_rng_uniform(&r, 0.0, 1.0));
        const double phi = rtm_rng_uniform(&r, 0.0, 2.0 * PI);
        const double x = rho * sin(phi), y = rho * cos(phi);
        double sog = rtm_rng_uniform(&r, 0.0, 15.0);
        double cog = rtm_rng_uniform(&r, 0.0, 2.0 * PI);
        double rot = 0.0;
        if (rtm_rng_below(&r, 5) == 0)
            rot = rtm_rng_uniform(&r, -0.0105, 0.0105);
        if (rtm_rng_below(&r, 10) == 0 && rho > 1.0) {
            /* Collision course: relative velocity points at own ship, arriving in
             * 5-20 min; the target's velocity is own velocity plus that. */
            const double tc = rtm_rng_uniform(&r, 300.0, 1200.0);
            const double vx = ovx - x / tc, vy = ovy - y / tc;
            sog = sqrt(vx * vx + vy * vy);
            cog = atan2(vx, vy);
            if (cog < 0.0)
                cog += 2.0 * PI;
            rot = 0.0;
        }
        set_slot(tgt, n, i, (float)x, (float)y, (float)sog, (float)cog, (float)rot);
    }
}

uint32_t rtm_nav_load_traffic(rtm_nav_own_t *own, float *tgt, uint32_t n, const rtm_traffic_t *t,
                              int own_as_ship0)
{
    own_clear(own);
    own->sog = t->own_sog;
    own->cog = t->own_cog;
    own->rot = t->own_rot;
    own->lat0 = t->lat0;
    own->lon0 = t->lon0;
    uint32_t slot = 0;
    if (own_as_ship0 && n > 0)
        set_slot(tgt, n, slot++, 0.0f, 0.0f, t->own_sog, t->own_cog, t->own_rot);
    for (uint32_t i = 0; i < t->n && slot < n; i++, slot++)
        set_slot(tgt, n, slot, t->x[i], t->y[i], t->sog[i], t->cog[i], t->rot[i]);
    const uint32_t filled = slot;
    for (; slot < n; slot++)
        set_absent(tgt, n, slot);
    return n - filled;
}

uint32_t rtm_nav_live(const rtm_kinst_t *k, uint32_t n)
{
    return k->absent < n ? n - k->absent : 0;
}

void rtm_nav_item_ops(const rtm_kinst_t *k, uint32_t n, double z_live, double unit_live,
                      double z_dead, double unit_dead, rtm_cost_t *c)
{
    const double f = n ? (double)rtm_nav_live(k, n) / (double)n : 0.0;
    c->Z = f * z_live + (1.0 - f) * z_dead;
    c->z[RTM_LOC_UNIT] = f * unit_live + (1.0 - f) * unit_dead;
    c->z[RTM_LOC_SCALAR] = c->Z - c->z[RTM_LOC_UNIT] - 2.0;
}

/* ---- CSV ---- */

/* Copies the next line of *p into buf (truncated), advances *p; 0 at the end. */
static int next_line(const char **p, char *buf, size_t len)
{
    if (!**p)
        return 0;
    const char *e = strchr(*p, '\n');
    const size_t n = e ? (size_t)(e - *p) : strlen(*p);
    const size_t c = n < len - 1 ? n : len - 1;
    memcpy(buf, *p, c);
    buf[c] = '\0';
    if (c && buf[c - 1] == '\r')
        buf[c - 1] = '\0';
    *p += n + (e ? 1 : 0);
    return 1;
}

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Parses up to 5 comma-separated numbers; returns how many, -1 on a malformed field. */
static int parse_fields(const char *line, double v[5])
{
    int nv = 0;
    const char *s = skip_ws(line);
    for (;;) {
        if (nv == 5)
            return -1;
        char *end;
        errno = 0;
        v[nv] = strtod(s, &end);
        if (end == s || errno == ERANGE || !isfinite(v[nv]))
            return -1;
        nv++;
        s = skip_ws(end);
        if (*s == '\0')
            return nv;
        if (*s != ',')
            return -1;
        s = skip_ws(s + 1);
    }
}

typedef enum { LINE_SKIP, LINE_DATA, LINE_BAD } line_kind_t;

/* Classifies one line; fills v for data lines and why for bad ones. */
static line_kind_t classify(const char *line, int first, double v[5], unsigned lineno,
                            char *why, size_t len)
{
    const char *s = skip_ws(line);
    if (*s == '\0' || *s == '#')
        return LINE_SKIP;
    if (first && !(isdigit((unsigned char)*s) || *s == '-' || *s == '+' || *s == '.'))
        return LINE_SKIP; /* header */
    const int nv = parse_fields(s, v);
    if (nv < 4) {
        snprintf(why, len, "line %u: expected lat_deg,lon_deg,sog_kn,cog_deg[,rot_deg_min]",
                 lineno);
        return LINE_BAD;
    }
    if (nv == 4)
        v[4] = 0.0;
    const char *bad = fabs(v[0]) > 90.0                    ? "latitude outside -90..90"
                      : v[1] < -180.0 || v[1] > 360.0      ? "longitude outside -180..360"
                      : v[2] < 0.0 || v[2] > 102.3         ? "speed outside 0..102.3 kn"
                      : v[3] < 0.0 || v[3] > 360.0         ? "course outside 0..360 deg"
                      : fabs(v[4]) > 720.0                 ? "rate of turn outside +-720 deg/min"
                                                           : NULL;
    if (bad) {
        snprintf(why, len, "line %u: %s", lineno, bad);
        return LINE_BAD;
    }
    return LINE_DATA;
}

rtm_status_t rtm_nav_csv_rows(const char *text, uint32_t *rows, char *why, size_t len)
{
    char line[512];
    double v[5];
    unsigned lineno = 0;
    int first = 1;
    *rows = 0;
    while (next_line(&text, line, sizeof(line))) {
        lineno++;
        const line_kind_t k = classify(line, first, v, lineno, why, len);
        if (k == LINE_BAD)
            return RTM_E_PARSE;
        if (skip_ws(line)[0] != '\0' && skip_ws(line)[0] != '#')
            first = 0;
        if (k == LINE_DATA)
            (*rows)++;
    }
    if (*rows == 0) {
        snprintf(why, len, "no data rows");
        return RTM_E_PARSE;
    }
    return RTM_OK;
}

rtm_status_t rtm_nav_csv_size(rtm_kinst_t *k, const char *text, int own_first, char *why,
                              size_t len)
{
    uint32_t rows = 0;
    const rtm_status_t st = rtm_nav_csv_rows(text, &rows, why, len);
    if (st != RTM_OK)
        return st;
    const int64_t n = (int64_t)rows - (own_first ? 1 : 0);
    const rtm_size_key_t *key = &k->kernel->keys[0];
    if (n < key->min || n > key->max) {
        snprintf(why, len, "%lld %s%s: %s must be in %lld..%lld", (long long)n, key->name,
                 own_first ? " after the own-ship row" : "", key->name, (long long)key->min,
                 (long long)key->max);
        return RTM_E_RANGE;
    }
    k->size[0] = n;
    return RTM_OK;
}

rtm_status_t rtm_nav_csv_load(const char *text, rtm_nav_own_t *own, float *tgt, uint32_t n,
                              int own_first, char *why, size_t len)
{
    char line[512];
    double v[5];
    unsigned lineno = 0;
    int first = 1;
    uint32_t row = 0, slot = 0;
    rtm_geo_plane_t plane;
    own_clear(own);
    while (next_line(&text, line, sizeof(line))) {
        lineno++;
        const line_kind_t k = classify(line, first, v, lineno, why, len);
        if (k == LINE_BAD)
            return RTM_E_PARSE;
        if (skip_ws(line)[0] != '\0' && skip_ws(line)[0] != '#')
            first = 0;
        if (k != LINE_DATA)
            continue;
        if (row == 0)
            rtm_geo_plane_init(&plane, v[0], v[1]);
        double x, y, vx, vy;
        rtm_geo_to_plane(&plane, v[0], v[1], &x, &y);
        rtm_geo_velocity_to_plane(&plane, v[0], v[1], v[2] * RTM_GEO_KNOT, v[3] * PI / 180.0,
                                  &vx, &vy);
        const double sog = sqrt(vx * vx + vy * vy);
        double cog = atan2(vx, vy);
        if (cog < 0.0)
            cog += 2.0 * PI;
        const double rot = v[4] * PI / 180.0 / 60.0;
        if (row == 0) {
            own->sog = (float)sog;
            own->cog = (float)cog;
            own->rot = (float)rot;
            own->lat0 = v[0];
            own->lon0 = v[1];
        }
        if ((row > 0 || !own_first) && slot < n)
            set_slot(tgt, n, slot++, (float)x, (float)y, (float)sog, (float)cog, (float)rot);
        row++;
    }
    for (; slot < n; slot++)
        set_absent(tgt, n, slot);
    return RTM_OK;
}

size_t rtm_nav_compare(const float *x, const float *y, size_t n, float tol, const char *what,
                       char *why, size_t len)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const float a = x[i], b = y[i];
        if (a == b || (isnan(a) && isnan(b)))
            continue;
        const float scale = fabsf(b) > 1.0f ? fabsf(b) : 1.0f;
        if (!(fabsf(a - b) <= tol * scale)) {
            if (bad == 0 && why && len)
                snprintf(why, len, "%s[%zu]: %.9g vs %.9g (tol %g)", what, i, (double)a,
                         (double)b, (double)tol);
            bad++;
        }
    }
    return bad;
}
