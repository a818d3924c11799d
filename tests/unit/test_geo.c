/* test_geo.c — the WGS-84 tangent plane of rtmgr/geo: known distances, the round trip,
 * the error at 50 nm stated in geo.h, and course transfer (meridian convergence). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>

#include <cmocka.h>

#include "rtmgr/geo.h"

static const double DEG = M_PI / 180.0;

/* Meridian arc length from latitude a to b (degrees) by Simpson's rule on M(phi). */
static double meridian_arc(double a, double b)
{
    const double e2 = RTM_GEO_F * (2.0 - RTM_GEO_F);
    const int n = 2000;
    const double h = (b - a) * DEG / n;
    double sum = 0.0;
    for (int i = 0; i <= n; i++) {
        const double p = a * DEG + i * h;
        const double w = sqrt(1.0 - e2 * sin(p) * sin(p));
        const double m = RTM_GEO_A * (1.0 - e2) / (w * w * w);
        sum += m * (i == 0 || i == n ? 1.0 : i % 2 ? 4.0 : 2.0);
    }
    return sum * h / 3.0;
}

static void test_origin_and_axes(void **state)
{
    (void)state;
    rtm_geo_plane_t p;
    rtm_geo_plane_init(&p, 0.0, 0.0);
    double x, y;
    rtm_geo_to_plane(&p, 0.0, 0.0, &x, &y);
    assert_true(fabs(x) < 1e-9 && fabs(y) < 1e-9);
    /* On the equator 0.1 deg of longitude is a * 0.1 deg = 11131.949 m of arc; the plane
     * shows the chord's projection a sin(0.1 deg) = 11131.943 m. */
    rtm_geo_to_plane(&p, 0.0, 0.1, &x, &y);
    assert_true(fabs(x - RTM_GEO_A * sin(0.1 * DEG)) < 1e-3 && fabs(y) < 1e-3);
    /* 0.1 deg of latitude north: the meridian arc, 11057.43 m, less ~6 mm. */
    rtm_geo_to_plane(&p, 0.1, 0.0, &x, &y);
    assert_true(fabs(x) < 1e-6);
    assert_true(fabs(y - meridian_arc(0.0, 0.1)) < 0.01);
    assert_true(fabs(y - 11057.43) < 0.01);
}

static void test_error_at_50nm(void **state)
{
    (void)state;
    /* 50 nm due north of 60 N: the plane reads short of the meridian arc by about
     * s^3 / (6 R^2) with R ~ 6.39e6 m (the local radius) -> ~3.3 m. */
    rtm_geo_plane_t p;
    rtm_geo_plane_init(&p, 60.0, 5.0);
    const double s = 50.0 * RTM_GEO_NM;
    double lo = 60.0, hi = 62.0;
    for (int i = 0; i < 60; i++) {
        const double mid = 0.5 * (lo + hi);
        if (meridian_arc(60.0, mid) < s)
            lo = mid;
        else
            hi = mid;
    }
    double x, y;
    rtm_geo_to_plane(&p, lo, 5.0, &x, &y);
    const double err = s - y;
    print_message("plane vs meridian arc at 50 nm from 60 N: %.3f m short (%.2e relative)\n",
                  err, err / s);
    assert_true(err > 2.5 && err < 4.0);
}

static void test_round_trip(void **state)
{
    (void)state;
    const double origins[][2] = {{60.0, 5.0}, {0.0, 0.0}, {-45.0, 170.0}, {49.5, -3.0}};
    for (int o = 0; o < 4; o++) {
        rtm_geo_plane_t p;
        rtm_geo_plane_init(&p, origins[o][0], origins[o][1]);
        for (double x = -185000.0; x <= 185000.0; x += 37000.0)
            for (double y = -185000.0; y <= 185000.0; y += 37000.0) {
                double lat, lon, x2, y2;
                rtm_geo_from_plane(&p, x, y, &lat, &lon);
                rtm_geo_to_plane(&p, lat, lon, &x2, &y2);
                assert_true(fabs(x2 - x) < 1e-3 && fabs(y2 - y) < 1e-3);
            }
    }
}

static void test_course_transfer(void **state)
{
    (void)state;
    rtm_geo_plane_t p;
    rtm_geo_plane_init(&p, 60.0, 5.0);
    double vx, vy;
    /* At the origin a course is unchanged. */
    rtm_geo_velocity_to_plane(&p, 60.0, 5.0, 10.0, 30.0 * DEG, &vx, &vy);
    assert_true(fabs(vx - 10.0 * sin(30.0 * DEG)) < 1e-9 && fabs(vy - 10.0 * cos(30.0 * DEG)) < 1e-9);
    /* 50 nm east at 60 N, steering true north: the meridian there converges towards the
     * origin's by gamma = dlon sin(lat) = (92600 / (N cos 60)) sin 60 = 0.02508 rad
     * (1.437 deg), so in the plane the course is 360 - 1.437 deg. */
    double lat, lon;
    rtm_geo_from_plane(&p, 50.0 * RTM_GEO_NM, 0.0, &lat, &lon);
    rtm_geo_velocity_to_plane(&p, lat, lon, 10.0, 0.0, &vx, &vy);
    const double course = atan2(vx, vy) / DEG;
    print_message("true north 50 nm east of the origin at 60 N: plane course %.3f deg\n", course);
    assert_true(fabs(course + 1.437) < 0.01);
    assert_true(fabs(hypot(vx, vy) - 10.0) < 0.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_origin_and_axes),
        cmocka_unit_test(test_error_at_50nm),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_course_transfer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
