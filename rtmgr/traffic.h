/* traffic.h — the traffic picture: own ship and the targets around it, in a local
 * tangent plane centred on own ship (x east, y north, metres; flat earth, fine within
 * 50 nm). Written by one input (synthetic scenario or AIS), read by jobs as consistent
 * snapshots. Speeds in m/s, courses in radians clockwise from north, rate of turn in
 * rad/s (positive to starboard). */
#ifndef RTM_TRAFFIC_H
#define RTM_TRAFFIC_H

#include <stdint.h>

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

#endif
