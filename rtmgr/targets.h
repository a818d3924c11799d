/* targets.h — the AIS target table and own ship, published as rtm_traffic_t pictures.
 *
 * One input thread (the writer) feeds decoded AIS messages (ais.h) and own-ship
 * sentences (nmea.h) into a static table of up to RTM_MAX_TARGETS vessels keyed by
 * MMSI, and publishes a picture now and then. Any number of job threads (readers)
 * take consistent copies of the latest picture with rtm_targets_snapshot(): lock-free,
 * never blocked by the writer, never torn (a seqlock over three rotating buffers; a
 * reader retries, boundedly, only if the writer lapped it twice during its copy).
 *
 * Own ship comes from !--VDO position reports, or from RMC/GGA (position) with
 * RMC/VTG (SOG, COG) and HDT (heading; own rate of turn is derived from successive
 * HDT headings). Targets silent for longer than the configured time are dropped.
 *
 * Geodesy: positions become WGS-84 earth-centred coordinates (ECEF) when they
 * arrive; a picture is the local tangent plane (east-north, "ENU" without the up
 * axis) at own ship: x = east, y = north, in metres. The plane is exact at the origin;
 * range distortion is below 2e-5 within 50 nm. Velocities are carried the same way, so
 * COG in the picture is relative to the plane's north (meridian convergence, about
 * 1 degree at 50 nm east or west at 50 N, is accounted for); SOG is the reported
 * speed. Every target is dead-reckoned along its reported course and speed, in ECEF,
 * from its last report to the picture time; so is own ship (along its rhumb line).
 *
 * In the picture: SOG in m/s, COG in radians clockwise from north in [0, 2π), ROT in
 * rad/s (class A only; 0 when not available), targets in MMSI order. A target whose
 * speed or course is not available has SOG 0 and COG 0. Without an own-ship fix (or
 * with one older than own_expire_ns) the picture is centred on the configured origin,
 * or, when there is none, has lat0 = lon0 = NaN and no targets.
 *
 * The table is about 4 MB at the default RTM_MAX_TARGETS: give it static storage.
 *
 * The input thread's loop, with lx, ais and tt static:
 *
 *     if (rtm_nmea_push(&lx, byte, &s) == 1) {
 *         if (rtm_ais_feed(&ais, &s, now, &m) == 1)
 *             rtm_targets_update_ais(&tt, &m, now);
 *         else if (rtm_nmea_nav(&lx, &s, &nav) == RTM_OK)
 *             rtm_targets_update_nav(&tt, &nav, now);
 *     }
 *     ... and every picture period: rtm_targets_publish(&tt, now);
 *
 * and a job: rtm_targets_snapshot(&tt, &its_own_copy). */
#ifndef RTM_TARGETS_H
#define RTM_TARGETS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ais.h"
#include "limits.h"
#include "nmea.h"
#include "status.h"
#include "traffic.h"

/* Rotating picture buffers (3: a reader is disturbed only if lapped twice). */
#define RTM_TARGETS_BUFS 3
/* Attempts of one rtm_targets_snapshot() before it gives up. */
#define RTM_TARGETS_SNAPSHOT_TRIES 16
#define RTM_TARGETS_WORDS ((sizeof(rtm_traffic_t) + 7) / 8)

typedef struct {
    int64_t expire_ns;      /* drop a target silent this long (default 360 s) */
    int64_t own_expire_ns;  /* own-ship fix unusable when older (default 30 s) */
    double origin_lat;      /* plane origin without own-ship fix; NaN: none (default) */
    double origin_lon;
} rtm_targets_config_t;

/* One vessel, as the writer keeps it. */
typedef struct {
    uint32_t mmsi;
    uint8_t cls;          /* type of the last position report: 1-3 class A, 18/19 class B */
    bool has_pos;         /* a valid position has been received */
    bool has_vel;         /* SOG and COG were available in the last position report */
    int64_t t_seen_ns;    /* last message of any kind */
    int64_t t_pos_ns;     /* last valid position */
    double lat, lon;      /* degrees */
    float sog;            /* m/s */
    float cog;            /* rad, true, clockwise from north */
    float heading;        /* rad, true; NaN when not available */
    float rot;            /* rad/s, positive to starboard; 0 when not available */
    double p[3], v[3];    /* ECEF position (m) and velocity (m/s) */
    char name[21];
    char callsign[8];
    uint8_t shiptype;
    uint16_t length_m;    /* to_bow + to_stern */
    uint16_t beam_m;      /* to_port + to_starboard */
} rtm_target_t;

typedef struct {
    uint64_t updates;      /* messages applied to targets */
    uint64_t inserted;     /* targets created */
    uint64_t expired;      /* targets dropped for silence */
    uint64_t full;         /* new targets refused: table full */
    uint64_t no_position;  /* position reports with position not available */
    uint64_t own_updates;  /* own-ship updates (VDO, RMC, GGA, HDT, VTG) */
    uint64_t publishes;    /* pictures published */
    uint64_t retries;      /* snapshot copies retried (writer lapped a reader) */
    uint64_t failures;     /* snapshots given up after RTM_TARGETS_SNAPSHOT_TRIES */
} rtm_targets_stats_t;

typedef struct {
    _Alignas(64) _Atomic uint64_t seq; /* odd while the writer fills the buffer */
    _Atomic uint64_t w[RTM_TARGETS_WORDS];
} rtm_targets_buf_t;

/* The table. Fields are private. */
typedef struct {
    rtm_targets_config_t cfg;
    /* writer only */
    uint32_t n;                       /* targets in the table */
    uint32_t nfree;
    uint32_t order[RTM_MAX_TARGETS];  /* record indices sorted by MMSI */
    uint32_t freelist[RTM_MAX_TARGETS];
    rtm_target_t rec[RTM_MAX_TARGETS];
    struct {
        bool has_pos, has_vel, has_heading, has_rot, rot_from_ais;
        int64_t t_pos_ns, t_vel_ns, t_heading_ns;
        double lat, lon;              /* degrees */
        double sog, cog;              /* m/s, rad */
        double heading, rot;          /* rad, rad/s */
    } own;
    uint64_t seq;
    rtm_traffic_t scratch;            /* the picture being built */
    /* shared: counters readable from any thread, published pictures */
    struct {
        _Atomic uint64_t updates, inserted, expired, full, no_position, own_updates,
            publishes, retries, failures;
        _Atomic uint32_t count;
        _Atomic uint32_t pictured; /* targets in the latest published picture */
    } st;
    _Alignas(64) _Atomic uint32_t latest; /* buffer of the newest picture; BUFS: none */
    rtm_targets_buf_t buf[RTM_TARGETS_BUFS];
} rtm_targets_t;

/* Empties the table; cfg NULL gives the defaults. Init only (not concurrent with any
 * other call on the table). */
void rtm_targets_init(rtm_targets_t *t, const rtm_targets_config_t *cfg);

/* Applies one decoded AIS message (writer thread). Position reports (1, 2, 3, 18,
 * 19) move a target, static messages (5, 19, 24) name it; messages from VDO move own
 * ship. RTM_OK; RTM_E_FULL when a new target does not fit (counted);
 * RTM_E_NOTFOUND for a message that carries nothing used. Real-time safe: O(log n),
 * plus O(n) word moves when a target is created. */
rtm_status_t rtm_targets_update_ais(rtm_targets_t *t, const rtm_ais_msg_t *m, int64_t now_ns);

/* Applies one own-ship sentence (writer thread): valid RMC/GGA position, RMC/VTG SOG
 * and COG, HDT heading. RTM_OK; RTM_E_NOTFOUND when the sentence is void or carries
 * nothing used. Real-time safe. */
rtm_status_t rtm_targets_update_nav(rtm_targets_t *t, const rtm_nmea_nav_t *nav, int64_t now_ns);

/* Drops targets silent for longer than expire_ns (writer thread). Returns how many.
 * Real-time safe, O(n). */
uint32_t rtm_targets_expire(rtm_targets_t *t, int64_t now_ns);

/* Expires, builds the picture for time now_ns and publishes it (writer thread).
 * RTM_OK. Real-time safe: O(n), no allocation, no lock. */
rtm_status_t rtm_targets_publish(rtm_targets_t *t, int64_t now_ns);

/* Copies the newest published picture into *out (any thread, any number of readers).
 * Only the header and the first out->n entries of each array are written. RTM_OK;
 * RTM_E_EMPTY when nothing has been published yet; RTM_E_ABORTED when the writer kept
 * overtaking the copy RTM_TARGETS_SNAPSHOT_TRIES times (counted; practically never).
 * Real-time safe: lock-free, bounded, O(n). */
rtm_status_t rtm_targets_snapshot(rtm_targets_t *t, rtm_traffic_t *out);

/* Copies the record of one MMSI (writer thread only). RTM_OK or RTM_E_NOTFOUND.
 * Real-time safe, O(log n). */
rtm_status_t rtm_targets_find(const rtm_targets_t *t, uint32_t mmsi, rtm_target_t *out);

/* Targets in the table (any thread; the value of the last update). Real-time safe. */
uint32_t rtm_targets_count(rtm_targets_t *t);
/* Targets in the latest published picture (0 before the first). Any thread; one atomic
 * load, real-time safe. */
uint32_t rtm_targets_pictured(rtm_targets_t *t);

/* Counters (any thread; each read atomically). Real-time safe. */
void rtm_targets_stats(rtm_targets_t *t, rtm_targets_stats_t *out);

#endif
