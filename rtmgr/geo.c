/* geo.c — WGS-84 geodetic <-> local tangent plane (ENU, Up dropped) around own ship
 * (see geo.h for the projection and its error). Owns no state; every function is pure.
 * Invariant: rtm_geo_to_plane(rtm_geo_from_plane(x, y)) == (x, y) to < 1 mm. */
#include "geo.h"

#include <math.h>

static const double DEG = 3.14159265358979323846 / 180.0;

/* Geodetic (radians, height 0) to ECEF (m). */
static void to_ecef(double lat, double lon, double out[3])
{
    const double e2 = RTM_GEO_F * (2.0 - RTM_GEO_F);
    const double sp = sin(lat), cp = cos(lat);
    const double n = RTM_GEO_A / sqrt(1.0 - e2 * sp * sp);
    out[0] = n * cp * cos(lon);
    out[1] = n * cp * sin(lon);
    out[2] = n * (1.0 - e2) * sp;
}

/* ECEF direction or difference to the origin's East and North components. */
static void to_en(const rtm_geo_plane_t *p, const double d[3], double *e, double *n)
{
    *e = -p->sl * d[0] + p->cl * d[1];
    *n = -p->sp * p->cl * d[0] - p->sp * p->sl * d[1] + p->cp * d[2];
}

void rtm_geo_plane_init(rtm_geo_plane_t *p, double lat0_deg, double lon0_deg)
{
    p->lat0 = lat0_deg;
    p->lon0 = lon0_deg;
    p->sp = sin(lat0_deg * DEG);
    p->cp = cos(lat0_deg * DEG);
    p->sl = sin(lon0_deg * DEG);
    p->cl = cos(lon0_deg * DEG);
    to_ecef(lat0_deg * DEG, lon0_deg * DEG, p->ecef0);
}

void rtm_geo_to_plane(const rtm_geo_plane_t *p, double lat_deg, double lon_deg, double *x,
                      double *y)
{
    double q[3];
    to_ecef(lat_deg * DEG, lon_deg * DEG, q);
    const double d[3] = {q[0] - p->ecef0[0], q[1] - p->ecef0[1], q[2] - p->ecef0[2]};
    to_en(p, d, x, y);
}

void rtm_geo_from_plane(const rtm_geo_plane_t *p, double x, double y, double *lat_deg,
                        double *lon_deg)
{
    /* Start from the equirectangular guess, then Newton with a finite-difference
     * Jacobian (the map is smooth and nearly diagonal; 2-3 steps reach 1e-9 m). */
    const double e2 = RTM_GEO_F * (2.0 - RTM_GEO_F);
    const double w = sqrt(1.0 - e2 * p->sp * p->sp);
    const double n0 = RTM_GEO_A / w, m0 = RTM_GEO_A * (1.0 - e2) / (w * w * w);
    double lat = p->lat0 + y / m0 / DEG;
    double lon = p->lon0 + x / (n0 * (p->cp > 1e-9 ? p->cp : 1e-9)) / DEG;
    const double h = 1e-6; /* degrees */
    for (int it = 0; it < 8; it++) {
        double fx, fy, ax, ay, bx, by;
        rtm_geo_to_plane(p, lat, lon, &fx, &fy);
        const double rx = x - fx, ry = y - fy;
        if (fabs(rx) < 1e-9 && fabs(ry) < 1e-9)
            break;
        rtm_geo_to_plane(p, lat + h, lon, &ax, &ay);
        rtm_geo_to_plane(p, lat, lon + h, &bx, &by);
        const double j11 = (ax - fx) / h, j21 = (ay - fy) / h; /* d/dlat */
        const double j12 = (bx - fx) / h, j22 = (by - fy) / h; /* d/dlon */
        const double det = j11 * j22 - j12 * j21;
        if (fabs(det) < 1e-30)
            break;
        lat += (j22 * rx - j12 * ry) / det;
        lon += (-j21 * rx + j11 * ry) / det;
    }
    *lat_deg = lat;
    *lon_deg = lon;
}

void rtm_geo_velocity_to_plane(const rtm_geo_plane_t *p, double lat_deg, double lon_deg,
                               double sog, double cog, double *vx, double *vy)
{
    const double sp = sin(lat_deg * DEG), cp = cos(lat_deg * DEG);
    const double sl = sin(lon_deg * DEG), cl = cos(lon_deg * DEG);
    const double east[3] = {-sl, cl, 0.0};
    const double north[3] = {-sp * cl, -sp * sl, cp};
    const double s = sin(cog) * sog, c = cos(cog) * sog;
    const double v[3] = {s * east[0] + c * north[0], s * east[1] + c * north[1],
                         s * east[2] + c * north[2]};
    to_en(p, v, vx, vy);
}
