/* targets.c — the AIS target table and its published pictures (see targets.h).
 *
 * Owns the writer-side table (records, an MMSI-sorted index, a free list), own-ship
 * state, the WGS-84 / local-tangent-plane geodesy, and the publication protocol.
 *
 * Table invariants (writer only): order[0..n) are distinct record indices whose
 * rec[].mmsi strictly increase; freelist[0..nfree) holds the others; n + nfree ==
 * RTM_MAX_TARGETS. Lookup is a binary search; insertion and removal move index words.
 *
 * Publication: a seqlock per buffer, three buffers in rotation. The writer fills the
 * buffer after `latest` (never the one readers are sent to): seq becomes odd, a
 * release fence, the picture is stored word by word with relaxed atomic stores, then
 * seq becomes even with a release store, and `latest` names the buffer. A reader
 * loads `latest` and the buffer's seq (acquire), copies with relaxed atomic loads,
 * issues an acquire fence and re-reads seq: equal and even means the copy is whole.
 * All shared words are atomics, so the protocol is free of data races in the C11
 * sense (H.-J. Boehm, "Can seqlocks get along with programming language memory
 * models?", 2012). Only the header and the used prefix of each array are copied. */
#include "targets.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define NS_PER_S 1e9
#define KNOT_MS (1852.0 / 3600.0)
#define DEG (M_PI / 180.0)

/* WGS-84 */
#define WGS84_A 6378137.0
#define WGS84_F (1.0 / 298.257223563)
#define WGS84_E2 (WGS84_F * (2.0 - WGS84_F))

_Static_assert(offsetof(rtm_traffic_t, id) < offsetof(rtm_traffic_t, rot),
               "rtm_traffic_t: header fields must precede the arrays");
_Static_assert(offsetof(rtm_traffic_t, rot) + sizeof(float) * RTM_MAX_TARGETS + 8 >
                   sizeof(rtm_traffic_t),
               "rtm_traffic_t: rot must be the last array");

static const rtm_targets_config_t default_cfg = {
    .expire_ns = 360LL * 1000000000LL,
    .own_expire_ns = 30LL * 1000000000LL,
    .origin_lat = NAN,
    .origin_lon = NAN,
};

#define INC(c) atomic_store_explicit(&(c), atomic_load_explicit(&(c), memory_order_relaxed) + 1, \
                                     memory_order_relaxed)

void rtm_targets_init(rtm_targets_t *t, const rtm_targets_config_t *cfg)
{
    if (!t)
        return;
    memset(t, 0, offsetof(rtm_targets_t, st));
    t->cfg = cfg ? *cfg : default_cfg;
    if (t->cfg.expire_ns <= 0)
        t->cfg.expire_ns = default_cfg.expire_ns;
    if (t->cfg.own_expire_ns <= 0)
        t->cfg.own_expire_ns = default_cfg.own_expire_ns;
    t->nfree = RTM_MAX_TARGETS;
    for (uint32_t i = 0; i < RTM_MAX_TARGETS; i++)
        t->freelist[i] = RTM_MAX_TARGETS - 1 - i;
    atomic_init(&t->st.updates, 0);
    atomic_init(&t->st.inserted, 0);
    atomic_init(&t->st.expired, 0);
    atomic_init(&t->st.full, 0);
    atomic_init(&t->st.no_position, 0);
    atomic_init(&t->st.own_updates, 0);
    atomic_init(&t->st.publishes, 0);
    atomic_init(&t->st.retries, 0);
    atomic_init(&t->st.failures, 0);
    atomic_init(&t->st.count, 0);
    atomic_init(&t->st.pictured, 0);
    atomic_init(&t->latest, RTM_TARGETS_BUFS);
    for (unsigned b = 0; b < RTM_TARGETS_BUFS; b++) {
        atomic_init(&t->buf[b].seq, 0);
        for (size_t w = 0; w < RTM_TARGETS_WORDS; w++)
            atomic_init(&t->buf[b].w[w], 0);
    }
}

/* ---- geodesy ---- */

static void ecef(double lat_deg, double lon_deg, double p[3])
{
    double sl = sin(lat_deg * DEG), cl = cos(lat_deg * DEG);
    double n = WGS84_A / sqrt(1.0 - WGS84_E2 * sl * sl);
    p[0] = n * cl * cos(lon_deg * DEG);
    p[1] = n * cl * sin(lon_deg * DEG);
    p[2] = n * (1.0 - WGS84_E2) * sl;
}

/* East and north unit vectors at (lat, lon). */
static void enu_basis(double lat_deg, double lon_deg, double e[3], double n[3])
{
    double sl = sin(lat_deg * DEG), cl = cos(lat_deg * DEG);
    double so = sin(lon_deg * DEG), co = cos(lon_deg * DEG);
    e[0] = -so;
    e[1] = co;
    e[2] = 0.0;
    n[0] = -sl * co;
    n[1] = -sl * so;
    n[2] = cl;
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static double wrap_2pi(double a)
{
    a = fmod(a, 2.0 * M_PI);
    return a < 0 ? a + 2.0 * M_PI : a;
}

/* ---- table ---- */

/* Index in order[] of mmsi, or -(insertion point) - 1. */
static int64_t search(const rtm_targets_t *t, uint32_t mmsi)
{
    int64_t lo = 0, hi = (int64_t)t->n - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        uint32_t m = t->rec[t->order[mid]].mmsi;
        if (m == mmsi)
            return mid;
        if (m < mmsi)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

static rtm_target_t *lookup_or_insert(rtm_targets_t *t, uint32_t mmsi, int64_t now_ns)
{
    int64_t pos = search(t, mmsi);
    if (pos >= 0)
        return &t->rec[t->order[pos]];
    if (t->nfree == 0) {
        INC(t->st.full);
        return NULL;
    }
    uint32_t at = (uint32_t)(-pos - 1);
    uint32_t r = t->freelist[--t->nfree];
    memmove(&t->order[at + 1], &t->order[at], (t->n - at) * sizeof(t->order[0]));
    t->order[at] = r;
    t->n++;
    rtm_target_t *rec = &t->rec[r];
    memset(rec, 0, sizeof(*rec));
    rec->mmsi = mmsi;
    rec->heading = NAN;
    rec->t_seen_ns = now_ns;
    INC(t->st.inserted);
    atomic_store_explicit(&t->st.count, t->n, memory_order_relaxed);
    return rec;
}

uint32_t rtm_targets_expire(rtm_targets_t *t, int64_t now_ns)
{
    if (!t)
        return 0;
    uint32_t k = 0, dropped = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t r = t->order[i];
        if (now_ns - t->rec[r].t_seen_ns > t->cfg.expire_ns) {
            t->freelist[t->nfree++] = r;
            dropped++;
        } else {
            t->order[k++] = r;
        }
    }
    t->n = k;
    for (uint32_t i = 0; i < dropped; i++)
        INC(t->st.expired);
    atomic_store_explicit(&t->st.count, t->n, memory_order_relaxed);
    return dropped;
}

static void set_static(rtm_target_t *r, const rtm_ais_msg_t *m)
{
    const rtm_ais_static_t *s = &m->vsd;
    bool part_a = m->type == 24 && m->part == RTM_AIS_PART_A;
    bool part_b = m->type == 24 && m->part == RTM_AIS_PART_B;
    if (!part_b && s->shipname[0])
        memcpy(r->name, s->shipname, sizeof(r->name));
    if (part_a)
        return;
    if (s->callsign[0])
        memcpy(r->callsign, s->callsign, sizeof(r->callsign));
    r->shiptype = s->shiptype;
    r->length_m = (uint16_t)(s->to_bow + s->to_stern);
    r->beam_m = (uint16_t)(s->to_port + s->to_starboard);
}

/* Position report fields in SI units; false when the position is not available. */
typedef struct {
    bool pos, vel, heading, rot;
    double lat, lon, sog, cog, hdg, rotv;
} report_t;

static report_t report_of(const rtm_ais_msg_t *m)
{
    const rtm_ais_pos_t *p = &m->pos;
    report_t r = {0};
    r.pos = rtm_ais_pos_valid(p);
    r.lat = rtm_ais_lat_deg(p->lat);
    r.lon = rtm_ais_lon_deg(p->lon);
    r.vel = p->speed != RTM_AIS_SPEED_NA && p->course < RTM_AIS_COURSE_NA;
    r.sog = rtm_ais_speed_kn(p->speed) * KNOT_MS;
    r.cog = rtm_ais_course_deg(p->course) * DEG;
    r.heading = p->heading < 360;
    r.hdg = p->heading * DEG;
    r.rot = m->type <= 3 && p->turn != RTM_AIS_TURN_NA;
    r.rotv = r.rot ? rtm_ais_turn_deg_min(p->turn) * DEG / 60.0 : 0.0;
    return r;
}

static void own_from_report(rtm_targets_t *t, const report_t *r, int64_t now_ns)
{
    if (r->pos) {
        t->own.has_pos = true;
        t->own.lat = r->lat;
        t->own.lon = r->lon;
        t->own.t_pos_ns = now_ns;
    }
    if (r->vel) {
        t->own.has_vel = true;
        t->own.sog = r->sog;
        t->own.cog = r->cog;
        t->own.t_vel_ns = now_ns;
    }
    if (r->heading) {
        t->own.has_heading = true;
        t->own.heading = r->hdg;
        t->own.t_heading_ns = now_ns;
    }
    if (r->rot) {
        t->own.has_rot = true;
        t->own.rot_from_ais = true;
        t->own.rot = r->rotv;
    }
}

rtm_status_t rtm_targets_update_ais(rtm_targets_t *t, const rtm_ais_msg_t *m, int64_t now_ns)
{
    if (!t || !m)
        return RTM_E_ARG;
    bool posrep = m->type <= 3 || m->type == 18 || m->type == 19;
    bool stat = m->type == 5 || m->type == 19 || m->type == 24;
    if ((!posrep && !stat) || m->type == 0 || m->mmsi == 0)
        return RTM_E_NOTFOUND;
    if (m->own) {
        if (!posrep)
            return RTM_E_NOTFOUND;
        report_t r = report_of(m);
        own_from_report(t, &r, now_ns);
        INC(t->st.own_updates);
        return RTM_OK;
    }
    rtm_target_t *rec = lookup_or_insert(t, m->mmsi, now_ns);
    if (!rec)
        return RTM_E_FULL;
    rec->t_seen_ns = now_ns;
    if (stat)
        set_static(rec, m);
    if (posrep) {
        report_t r = report_of(m);
        rec->cls = m->type;
        if (!r.pos) {
            INC(t->st.no_position);
        } else {
            rec->has_pos = true;
            rec->t_pos_ns = now_ns;
            rec->lat = r.lat;
            rec->lon = r.lon;
            ecef(r.lat, r.lon, rec->p);
            rec->has_vel = r.vel;
            rec->sog = r.vel ? (float)r.sog : 0.0f;
            rec->cog = r.vel ? (float)r.cog : 0.0f;
            rec->heading = r.heading ? (float)r.hdg : NAN;
            rec->rot = (float)r.rotv;
            double e[3], n[3];
            enu_basis(r.lat, r.lon, e, n);
            double ve = r.vel ? r.sog * sin(r.cog) : 0.0, vn = r.vel ? r.sog * cos(r.cog) : 0.0;
            for (int k = 0; k < 3; k++)
                rec->v[k] = ve * e[k] + vn * n[k];
        }
    }
    INC(t->st.updates);
    return RTM_OK;
}

rtm_status_t rtm_targets_update_nav(rtm_targets_t *t, const rtm_nmea_nav_t *nav, int64_t now_ns)
{
    if (!t || !nav)
        return RTM_E_ARG;
    if (!nav->valid)
        return RTM_E_NOTFOUND;
    bool used = false;
    if ((nav->kind == RTM_NMEA_RMC || nav->kind == RTM_NMEA_GGA) &&
        (nav->have & RTM_NMEA_HAVE_POS)) {
        t->own.has_pos = true;
        t->own.lat = nav->lat;
        t->own.lon = nav->lon;
        t->own.t_pos_ns = now_ns;
        used = true;
    }
    if ((nav->kind == RTM_NMEA_RMC || nav->kind == RTM_NMEA_VTG) &&
        (nav->have & RTM_NMEA_HAVE_SOG)) {
        t->own.has_vel = true;
        t->own.sog = nav->sog_kn * KNOT_MS;
        t->own.cog = (nav->have & RTM_NMEA_HAVE_COG) ? nav->cog_deg * DEG : t->own.cog;
        t->own.t_vel_ns = now_ns;
        used = true;
    }
    if (nav->kind == RTM_NMEA_HDT && (nav->have & RTM_NMEA_HAVE_HEADING)) {
        double h = nav->heading_deg * DEG;
        double dt = (double)(now_ns - t->own.t_heading_ns) / NS_PER_S;
        if (t->own.has_heading && !t->own.rot_from_ais && dt > 0.05 && dt <= 10.0) {
            double d = remainder(h - t->own.heading, 2.0 * M_PI);
            t->own.rot = d / dt;
            t->own.has_rot = true;
        }
        t->own.has_heading = true;
        t->own.heading = h;
        t->own.t_heading_ns = now_ns;
        used = true;
    }
    if (!used)
        return RTM_E_NOTFOUND;
    INC(t->st.own_updates);
    return RTM_OK;
}

rtm_status_t rtm_targets_find(const rtm_targets_t *t, uint32_t mmsi, rtm_target_t *out)
{
    if (!t || !out)
        return RTM_E_ARG;
    int64_t pos = search(t, mmsi);
    if (pos < 0)
        return RTM_E_NOTFOUND;
    *out = t->rec[t->order[pos]];
    return RTM_OK;
}

/* ---- publication ---- */

typedef struct {
    size_t first, end; /* word range */
} range_t;

/* Word ranges holding the header and the first n entries of each array. */
static unsigned ranges_of(uint32_t n, range_t r[7])
{
    static const size_t arr[6] = {
        offsetof(rtm_traffic_t, id),  offsetof(rtm_traffic_t, x),   offsetof(rtm_traffic_t, y),
        offsetof(rtm_traffic_t, sog), offsetof(rtm_traffic_t, cog), offsetof(rtm_traffic_t, rot),
    };
    r[0].first = 0;
    r[0].end = (offsetof(rtm_traffic_t, id) + 7) / 8;
    for (unsigned k = 0; k < 6; k++) {
        r[k + 1].first = arr[k] / 8;
        r[k + 1].end = (arr[k] + (size_t)n * 4 + 7) / 8;
        if (r[k + 1].end > RTM_TARGETS_WORDS)
            r[k + 1].end = RTM_TARGETS_WORDS;
    }
    return 7;
}

static void store_words(rtm_targets_buf_t *b, const rtm_traffic_t *src, uint32_t n)
{
    range_t r[7];
    unsigned nr = ranges_of(n, r);
    const unsigned char *p = (const unsigned char *)src;
    for (unsigned k = 0; k < nr; k++)
        for (size_t w = r[k].first; w < r[k].end; w++) {
            uint64_t v;
            memcpy(&v, p + w * 8, 8);
            atomic_store_explicit(&b->w[w], v, memory_order_relaxed);
        }
}

static void load_words(rtm_targets_buf_t *b, rtm_traffic_t *dst, size_t first, size_t end)
{
    unsigned char *p = (unsigned char *)dst;
    for (size_t w = first; w < end; w++) {
        uint64_t v = atomic_load_explicit(&b->w[w], memory_order_relaxed);
        memcpy(p + w * 8, &v, 8);
    }
}

/* Own ship dead-reckoned to now; false when there is no usable fix. */
static bool own_origin(const rtm_targets_t *t, int64_t now_ns, double *lat, double *lon)
{
    if (!t->own.has_pos || now_ns - t->own.t_pos_ns > t->cfg.own_expire_ns) {
        *lat = t->cfg.origin_lat;
        *lon = t->cfg.origin_lon;
        return false;
    }
    *lat = t->own.lat;
    *lon = t->own.lon;
    double dt = (double)(now_ns - t->own.t_pos_ns) / NS_PER_S;
    if (t->own.has_vel && dt > 0) {
        double sl = sin(*lat * DEG), cl = cos(*lat * DEG);
        double w = 1.0 - WGS84_E2 * sl * sl;
        double m = WGS84_A * (1.0 - WGS84_E2) / (w * sqrt(w)); /* meridional radius */
        double nn = WGS84_A / sqrt(w);                          /* prime vertical */
        *lat += t->own.sog * cos(t->own.cog) * dt / m / DEG;
        if (cl > 1e-9)
            *lon += t->own.sog * sin(t->own.cog) * dt / (nn * cl) / DEG;
        if (*lon > 180.0)
            *lon -= 360.0;
        else if (*lon < -180.0)
            *lon += 360.0;
    }
    return true;
}

static void build(rtm_targets_t *t, int64_t now_ns)
{
    rtm_traffic_t *pic = &t->scratch;
    double lat0, lon0;
    bool own = own_origin(t, now_ns, &lat0, &lon0);
    pic->seq = ++t->seq;
    pic->t_ns = now_ns;
    pic->lat0 = lat0;
    pic->lon0 = lon0;
    pic->own_sog = own && t->own.has_vel ? (float)t->own.sog : 0.0f;
    pic->own_cog = own && t->own.has_vel ? (float)wrap_2pi(t->own.cog) : 0.0f;
    pic->own_rot = own && t->own.has_rot ? (float)t->own.rot : 0.0f;
    pic->n = 0;
    if (isnan(lat0) || isnan(lon0))
        return;
    double p0[3], e[3], nv[3];
    ecef(lat0, lon0, p0);
    enu_basis(lat0, lon0, e, nv);
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        const rtm_target_t *r = &t->rec[t->order[i]];
        if (!r->has_pos)
            continue;
        double dt = (double)(now_ns - r->t_pos_ns) / NS_PER_S;
        if (dt < 0)
            dt = 0;
        double d[3];
        for (int c = 0; c < 3; c++)
            d[c] = r->p[c] + r->v[c] * dt - p0[c];
        pic->id[k] = r->mmsi;
        pic->x[k] = (float)dot(e, d);
        pic->y[k] = (float)dot(nv, d);
        if (r->has_vel) {
            /* the course turns with the plane; the speed is the reported one (the
             * velocity's tiny component out of the plane is not a loss of speed) */
            double vx = dot(e, r->v), vy = dot(nv, r->v);
            pic->sog[k] = r->sog;
            pic->cog[k] = (float)wrap_2pi(atan2(vx, vy));
        } else {
            pic->sog[k] = 0.0f;
            pic->cog[k] = 0.0f;
        }
        pic->rot[k] = r->rot;
        k++;
    }
    pic->n = k;
}

rtm_status_t rtm_targets_publish(rtm_targets_t *t, int64_t now_ns)
{
    if (!t)
        return RTM_E_ARG;
    rtm_targets_expire(t, now_ns);
    build(t, now_ns);
    uint32_t latest = atomic_load_explicit(&t->latest, memory_order_relaxed);
    uint32_t bi = latest >= RTM_TARGETS_BUFS ? 0 : (latest + 1) % RTM_TARGETS_BUFS;
    rtm_targets_buf_t *b = &t->buf[bi];
    uint64_t s = atomic_load_explicit(&b->seq, memory_order_relaxed);
    atomic_store_explicit(&b->seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    store_words(b, &t->scratch, t->scratch.n);
    atomic_store_explicit(&b->seq, s + 2, memory_order_release);
    atomic_store_explicit(&t->latest, bi, memory_order_release);
    atomic_store_explicit(&t->st.pictured, t->scratch.n, memory_order_relaxed);
    INC(t->st.publishes);
    return RTM_OK;
}

rtm_status_t rtm_targets_snapshot(rtm_targets_t *t, rtm_traffic_t *out)
{
    if (!t || !out)
        return RTM_E_ARG;
    for (int tries = 0; tries < RTM_TARGETS_SNAPSHOT_TRIES; tries++) {
        uint32_t bi = atomic_load_explicit(&t->latest, memory_order_acquire);
        if (bi >= RTM_TARGETS_BUFS)
            return RTM_E_EMPTY;
        rtm_targets_buf_t *b = &t->buf[bi];
        uint64_t s1 = atomic_load_explicit(&b->seq, memory_order_acquire);
        if (!(s1 & 1)) {
            range_t r[7];
            ranges_of(0, r);
            load_words(b, out, r[0].first, r[0].end);
            uint32_t n = out->n <= RTM_MAX_TARGETS ? out->n : RTM_MAX_TARGETS;
            unsigned nr = ranges_of(n, r);
            for (unsigned k = 1; k < nr; k++)
                load_words(b, out, r[k].first, r[k].end);
            atomic_thread_fence(memory_order_acquire);
            uint64_t s2 = atomic_load_explicit(&b->seq, memory_order_relaxed);
            if (s1 == s2)
                return RTM_OK;
        }
        atomic_fetch_add_explicit(&t->st.retries, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&t->st.failures, 1, memory_order_relaxed);
    return RTM_E_ABORTED;
}

uint32_t rtm_targets_count(rtm_targets_t *t)
{
    return t ? atomic_load_explicit(&t->st.count, memory_order_relaxed) : 0;
}

uint32_t rtm_targets_pictured(rtm_targets_t *t)
{
    return t ? atomic_load_explicit(&t->st.pictured, memory_order_relaxed) : 0;
}

void rtm_targets_stats(rtm_targets_t *t, rtm_targets_stats_t *out)
{
    if (!t || !out)
        return;
    out->updates = atomic_load_explicit(&t->st.updates, memory_order_relaxed);
    out->inserted = atomic_load_explicit(&t->st.inserted, memory_order_relaxed);
    out->expired = atomic_load_explicit(&t->st.expired, memory_order_relaxed);
    out->full = atomic_load_explicit(&t->st.full, memory_order_relaxed);
    out->no_position = atomic_load_explicit(&t->st.no_position, memory_order_relaxed);
    out->own_updates = atomic_load_explicit(&t->st.own_updates, memory_order_relaxed);
    out->publishes = atomic_load_explicit(&t->st.publishes, memory_order_relaxed);
    out->retries = atomic_load_explicit(&t->st.retries, memory_order_relaxed);
    out->failures = atomic_load_explicit(&t->st.failures, memory_order_relaxed);
}
