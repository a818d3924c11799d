/* geo.h — geodesy of the traffic picture: WGS-84 positions to and from the local
 * tangent plane around own ship (x east, y north, metres) of rtmgr/traffic.h.
 *
 * The plane is the exact East-North-Up frame at the origin (WGS-84 ellipsoid, height 0):
 * a position goes geodetic -> ECEF -> ENU and the Up component is dropped (orthographic
 * projection onto the tangent plane). Errors against the geodesic, from the geometry
 * (s = distance from the origin, R = 6371 km): a range from the origin reads short by
 * about s^3 / (6 R^2) — 3.3 m at 50 nm (3.6e-5 relative; measured in test_geo); lengths
 * far from the origin shrink radially by up to s^2 / (2 R^2) — 1.1e-4 at 50 nm, i.e.
 * 0.1 m per km of CPA. Courses are carried exactly: the velocity at a position is
 * projected into the plane (no meridian-convergence error, which would be ~1.4 deg at
 * 50 nm east of the origin at 60 N if courses were copied unchanged).
 *
 * All functions are pure, use double, and are safe on the real-time path except
 * rtm_geo_from_plane (iterative; bounded to 8 Newton steps, also safe but slower). */
#ifndef RTM_GEO_H
#define RTM_GEO_H

/* WGS-84. */
#define RTM_GEO_A 6378137.0
#define RTM_GEO_F (1.0 / 298.257223563)
/* One international nautical mile (m) and one knot (m/s). */
#define RTM_GEO_NM 1852.0
#define RTM_GEO_KNOT (1852.0 / 3600.0)

/* A tangent plane, set up once per origin. */
typedef struct {
    double lat0, lon0; /* origin, degrees */
    double sp, cp, sl, cl; /* sin/cos of origin latitude and longitude */
    double ecef0[3];       /* origin in ECEF, m */
} rtm_geo_plane_t;

/* Sets up the plane around (lat0, lon0) degrees. */
void rtm_geo_plane_init(rtm_geo_plane_t *p, double lat0_deg, double lon0_deg);

/* Position (degrees) to plane coordinates (m). */
void rtm_geo_to_plane(const rtm_geo_plane_t *p, double lat_deg, double lon_deg, double *x,
                      double *y);

/* Plane coordinates (m) back to the position on the ellipsoid whose projection they are
 * (Newton iteration; round trip better than 1 mm within 100 nm). */
void rtm_geo_from_plane(const rtm_geo_plane_t *p, double x, double y, double *lat_deg,
                        double *lon_deg);

/* Velocity over ground at a position (sog m/s, cog radians clockwise from true north
 * there) to the plane velocity (vx east, vy north, m/s) — projected, so the course is
 * measured from the origin's north. */
void rtm_geo_velocity_to_plane(const rtm_geo_plane_t *p, double lat_deg, double lon_deg,
                               double sog, double cog, double *vx, double *vy);

#endif
