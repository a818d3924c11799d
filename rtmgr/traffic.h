/* traffic.h — the traffic picture: own ship and the targets around it, in a local
 * tangent plane centred on own ship (x east, y north, metres; flat earth, fine within
 * 50 nm). Written by one input (synthetic scenario or AIS), read by jobs as consistent
 * snapshots. Speeds in m/s, courses in radians clockwise from north, rate of turn in
 * rad/s (positive to starboard). */
#ifndef RTM_TRAFFIC_H
#define RTM_TRAFFIC_H

#include <stdint.h>
#include <string.h>

#include "limits.h"

/* One consistent copy of the picture, handed to a job. Structure of arrays so kernels
 * copy it straight into their input buffers. Target i is at index i; own ship is
 * separate and always at the origin. */
typedef struct rtm_traffic {
    uint64_t seq;      /* picture version (increments on every update) */
    int64_t t_ns;      /* CLOCK_MONOTONIC time the picture refers to */
    double lat0, lon0; /* own ship position (degrees): origin of the plane */
    float own_sog, own_cog, own_rot;
    uint32_t n;        /* targets in use */
    uint32_t id[RTM_MAX_TARGETS]; /* MMSI for AIS, index for the scenario */
    float x[RTM_MAX_TARGETS], y[RTM_MAX_TARGETS];
    float sog[RTM_MAX_TARGETS], cog[RTM_MAX_TARGETS], rot[RTM_MAX_TARGETS];
} rtm_traffic_t;

/* Copies src into dst: the header and src's n targets (the rest of dst is left as it
 * was). Real-time safe; O(n). */
static inline void rtm_traffic_copy(rtm_traffic_t *dst, const rtm_traffic_t *src)
{
    const size_t n = src->n <= RTM_MAX_TARGETS ? src->n : RTM_MAX_TARGETS;
    dst->seq = src->seq;
    dst->t_ns = src->t_ns;
    dst->lat0 = src->lat0;
    dst->lon0 = src->lon0;
    dst->own_sog = src->own_sog;
    dst->own_cog = src->own_cog;
    dst->own_rot = src->own_rot;
    dst->n = (uint32_t)n;
    memcpy(dst->id, src->id, n * sizeof(dst->id[0]));
    memcpy(dst->x, src->x, n * sizeof(dst->x[0]));
    memcpy(dst->y, src->y, n * sizeof(dst->y[0]));
    memcpy(dst->sog, src->sog, n * sizeof(dst->sog[0]));
    memcpy(dst->cog, src->cog, n * sizeof(dst->cog[0]));
    memcpy(dst->rot, src->rot, n * sizeof(dst->rot[0]));
}

#endif
