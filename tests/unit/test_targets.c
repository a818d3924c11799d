/* test_targets.c — the target table: geodesy (against Vincenty), velocities, dead
 * reckoning, expiry, static data, own ship, capacity, no heap allocation on the whole
 * input path, and torn-read freedom with one writer and several reader threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>
#include <pthread.h>

#include "rtmgr/ais.h"
#include "rtmgr/nmea.h"
#include "rtmgr/rng.h"
#include "rtmgr/targets.h"

#define LOG_GUERNSEY RTM_TEST_SHARED_DIR "/data/ais/Go_to_Guernesey.nmea"
#define S_NS 1000000000LL
#define KN (1852.0 / 3600.0)
#define RAD (M_PI / 180.0)

/* ---- malloc accounting (tests/unit/test_targets.cmake wraps the allocator) ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static volatile int counting;
static volatile int heap_calls;

void *__wrap_malloc(size_t n)
{
    if (counting)
        heap_calls++;
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t m)
{
    if (counting)
        heap_calls++;
    return __real_calloc(n, m);
}
void *__wrap_realloc(void *p, size_t n)
{
    if (counting)
        heap_calls++;
    return __real_realloc(p, n);
}
void __wrap_free(void *p)
{
    if (counting && p)
        heap_calls++;
    __real_free(p);
}

static rtm_targets_t table; /* ~4 MB */

/* ---- helpers ---- */

static rtm_ais_msg_t pos_msg(uint8_t type, uint32_t mmsi, double lat, double lon, double sog_kn,
                             double cog_deg)
{
    rtm_ais_msg_t m;
    memset(&m, 0, sizeof(m));
    m.type = type;
    m.mmsi = mmsi;
    m.pos.lat = (int32_t)lround(lat * 600000.0);
    m.pos.lon = (int32_t)lround(lon * 600000.0);
    m.pos.speed = sog_kn < 0 ? RTM_AIS_SPEED_NA : (uint16_t)lround(sog_kn * 10);
    m.pos.course = cog_deg < 0 ? RTM_AIS_COURSE_NA : (uint16_t)lround(cog_deg * 10);
    m.pos.heading = RTM_AIS_HEADING_NA;
    m.pos.turn = type <= 3 ? 0 : RTM_AIS_TURN_NA;
    return m;
}

static rtm_nmea_nav_t rmc(double lat, double lon, double sog_kn, double cog_deg)
{
    rtm_nmea_nav_t n;
    memset(&n, 0, sizeof(n));
    n.kind = RTM_NMEA_RMC;
    n.valid = true;
    n.have = RTM_NMEA_HAVE_POS | RTM_NMEA_HAVE_SOG | RTM_NMEA_HAVE_COG;
    n.lat = lat;
    n.lon = lon;
    n.sog_kn = sog_kn;
    n.cog_deg = cog_deg;
    return n;
}

static rtm_traffic_t *pic_alloc(void)
{
    rtm_traffic_t *p = malloc(sizeof(*p));
    assert_non_null(p);
    return p;
}

/* Vincenty's inverse problem on WGS-84: distance (m) and initial azimuth (rad). */
static void vincenty(double lat1, double lon1, double lat2, double lon2, double *s, double *az)
{
    const double a = 6378137.0, f = 1 / 298.257223563, b = a * (1 - f);
    double L = (lon2 - lon1) * RAD;
    double U1 = atan((1 - f) * tan(lat1 * RAD)), U2 = atan((1 - f) * tan(lat2 * RAD));
    double sU1 = sin(U1), cU1 = cos(U1), sU2 = sin(U2), cU2 = cos(U2);
    double lam = L, sig = 0, ssig = 0, csig = 1, c2a = 1, c2sm = 0, slam = 0, clam = 1;
    for (int i = 0; i < 200; i++) {
        slam = sin(lam);
        clam = cos(lam);
        ssig = sqrt((cU2 * slam) * (cU2 * slam) +
                    (cU1 * sU2 - sU1 * cU2 * clam) * (cU1 * sU2 - sU1 * cU2 * clam));
        csig = sU1 * sU2 + cU1 * cU2 * clam;
        sig = atan2(ssig, csig);
        double sa = cU1 * cU2 * slam / ssig;
        c2a = 1 - sa * sa;
        c2sm = c2a != 0 ? csig - 2 * sU1 * sU2 / c2a : 0;
        double C = f / 16 * c2a * (4 + f * (4 - 3 * c2a));
        double prev = lam;
        lam = L + (1 - C) * f * sa * (sig + C * ssig * (c2sm + C * csig * (-1 + 2 * c2sm * c2sm)));
        if (fabs(lam - prev) < 1e-13)
            break;
    }
    double u2 = c2a * (a * a - b * b) / (b * b);
    double A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
    double B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
    double ds = B * ssig * (c2sm + B / 4 * (csig * (-1 + 2 * c2sm * c2sm) -
                                            B / 6 * c2sm * (-3 + 4 * ssig * ssig) *
                                                (-3 + 4 * c2sm * c2sm)));
    *s = b * A * (sig - ds);
    *az = atan2(cU2 * slam, cU1 * sU2 - sU1 * cU2 * clam);
}

/* ---- tests ---- */

static void test_empty_and_no_own_ship(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    rtm_targets_init(&table, NULL);
    assert_int_equal(rtm_targets_snapshot(&table, p), RTM_E_EMPTY);
    rtm_ais_msg_t m = pos_msg(1, 227000001, 50.0, -3.0, 5, 10);
    assert_int_equal(rtm_targets_update_ais(&table, &m, 0), RTM_OK);
    assert_int_equal(rtm_targets_publish(&table, 1), RTM_OK);
    assert_int_equal(rtm_targets_snapshot(&table, p), RTM_OK);
    assert_int_equal(p->seq, 1);
    assert_true(isnan(p->lat0) && isnan(p->lon0));
    assert_int_equal(p->n, 0);
    assert_int_equal(rtm_targets_count(&table), 1);

    /* a configured origin stands in for own ship */
    rtm_targets_config_t cfg = {0, 0, 50.0, -3.0};
    rtm_targets_init(&table, &cfg);
    assert_int_equal(rtm_targets_update_ais(&table, &m, 0), RTM_OK);
    assert_int_equal(rtm_targets_publish(&table, 0), RTM_OK);
    assert_int_equal(rtm_targets_snapshot(&table, p), RTM_OK);
    assert_int_equal(p->n, 1);
    assert_float_equal(p->lat0, 50.0, 0);
    assert_float_equal(p->x[0], 0.0, 0.01);
    assert_float_equal(p->y[0], 0.0, 0.01);
    assert_float_equal(p->own_sog, 0.0, 0);
    free(p);
}

/* Ranges and bearings in the plane agree with the geodesic within 5e-5 (relative)
 * and 0.01 degree up to 50 nm, in every direction. */
static void test_geodesy(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    const double lat0 = 49.5, lon0 = -2.5;
    for (int lat_case = 0; lat_case < 3; lat_case++) {
        double la0 = lat_case == 0 ? lat0 : lat_case == 1 ? -33.9 : 0.1;
        rtm_targets_init(&table, NULL);
        rtm_nmea_nav_t own = rmc(la0, lon0, 0, 0);
        assert_int_equal(rtm_targets_update_nav(&table, &own, 0), RTM_OK);
        uint32_t id = 1000;
        for (int k = 0; k < 16; k++)
            for (int r = 1; r <= 3; r++) {
                double d_nm = r == 1 ? 1 : r == 2 ? 10 : 50, brg = k * 22.5 * RAD;
                /* place the target roughly, then measure it exactly */
                double dlat = d_nm / 60.0 * cos(brg), dlon = d_nm / 60.0 * sin(brg) / cos(la0 * RAD);
                rtm_ais_msg_t m = pos_msg(1, ++id, la0 + dlat, lon0 + dlon, -1, -1);
                assert_int_equal(rtm_targets_update_ais(&table, &m, 0), RTM_OK);
            }
        assert_int_equal(rtm_targets_publish(&table, 0), RTM_OK);
        assert_int_equal(rtm_targets_snapshot(&table, p), RTM_OK);
        assert_int_equal(p->n, 48);
        for (uint32_t i = 0; i < p->n; i++) {
            rtm_target_t t;
            assert_int_equal(rtm_targets_find(&table, p->id[i], &t), RTM_OK);
            double s, az;
            vincenty(la0, lon0, t.lat, t.lon, &s, &az);
            double range = hypot(p->x[i], p->y[i]), brg = atan2(p->x[i], p->y[i]);
            if (fabs(range - s) / s > 5e-5)
                fail_msg("target %u: plane %.3f m, geodesic %.3f m", p->id[i], range, s);
            double dbrg = remainder(brg - az, 2 * M_PI);
            if (fabs(dbrg) > 0.01 * RAD)
                fail_msg("target %u: bearing off by %.4f deg", p->id[i], dbrg / RAD);
            assert_float_equal(p->sog[i], 0.0, 0); /* SOG n/a */
            assert_float_equal(p->cog[i], 0.0, 0);
        }
    }
    /* one arc minute of latitude north of 49.5 N is 1853.66 m (WGS-84 meridional arc) */
    rtm_targets_init(&table, NULL);
    rtm_nmea_nav_t own = rmc(lat0, lon0, 0, 0);
    rtm_targets_update_nav(&table, &own, 0);
    rtm_ais_msg_t m = pos_msg(1, 7, lat0 + 1.0 / 60.0, lon0, 0, 0);
    rtm_targets_update_ais(&table, &m, 0);
    rtm_targets_publish(&table, 0);
    rtm_targets_snapshot(&table, p);
    assert_float_equal(p->x[0], 0.0, 0.01);
    assert_float_equal(p->y[0], 1853.66, 0.02);
    free(p);
}

static void test_velocity_and_convergence(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    rtm_targets_init(&table, NULL);
    rtm_nmea_nav_t own = rmc(50.0, -3.0, 0, 0);
    rtm_targets_update_nav(&table, &own, 0);
    rtm_ais_msg_t near = pos_msg(1, 1, 50.0, -3.0, 10.0, 90.0);
    double dlon = 50.0 / 60.0 / cos(50.0 * RAD); /* about 50 nm east */
    rtm_ais_msg_t east = pos_msg(18, 2, 50.0, -3.0 + dlon, 10.0, 0.0);
    rtm_ais_msg_t nocog = pos_msg(1, 3, 50.01, -3.0, 10.0, -1);
    rtm_targets_update_ais(&table, &near, 0);
    rtm_targets_update_ais(&table, &east, 0);
    rtm_targets_update_ais(&table, &nocog, 0);
    rtm_targets_publish(&table, 0);
    rtm_targets_snapshot(&table, p);
    assert_int_equal(p->n, 3);
    assert_float_equal(p->sog[0], 10.0 * KN, 1e-4);
    assert_float_equal(p->cog[0], M_PI / 2, 1e-5);
    /* true north at the eastern target leans west in own ship's plane by about
     * dlon * sin(lat): its course 000 is 359.0 degrees in the plane */
    double gamma = dlon * RAD * sin(50.0 * RAD);
    assert_float_equal(p->sog[1], 10.0 * KN, 1e-3);
    assert_float_equal(p->cog[1], 2 * M_PI - gamma, 2e-4);
    assert_true(p->cog[1] >= 0 && p->cog[1] < 2 * M_PI);
    assert_float_equal(p->sog[2], 0.0, 0); /* course n/a: no velocity */
    rtm_target_t t;
    assert_int_equal(rtm_targets_find(&table, 3, &t), RTM_OK);
    assert_false(t.has_vel);
    assert_true(isnan(t.heading));
    free(p);
}

static void test_dead_reckoning(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    rtm_targets_init(&table, NULL);
    rtm_nmea_nav_t own = rmc(50.0, -3.0, 0, 0);
    rtm_targets_update_nav(&table, &own, 0);
    rtm_ais_msg_t m = pos_msg(1, 1, 50.0, -3.0, 10.0, 0.0);
    rtm_targets_update_ais(&table, &m, 0);
    rtm_targets_publish(&table, 20 * S_NS);
    rtm_targets_snapshot(&table, p);
    assert_int_equal(p->t_ns, 20 * S_NS);
    assert_int_equal(p->n, 1);
    assert_float_equal(p->y[0], 200 * KN, 0.05);
    assert_float_equal(p->x[0], 0.0, 0.5);

    /* own ship making the same course and speed: the target stays alongside */
    own = rmc(50.0, -3.0, 10.0, 0.0);
    rtm_targets_update_nav(&table, &own, 0);
    rtm_targets_publish(&table, 20 * S_NS);
    rtm_targets_snapshot(&table, p);
    assert_float_equal(p->y[0], 0.0, 0.5);
    assert_float_equal(p->own_sog, 10.0 * KN, 1e-4);
    assert_float_equal(p->own_cog, 0.0, 1e-6);
    assert_float_equal(p->lat0, 50.0 + 200 * KN / 1853.2 / 60.0, 1e-6);
    free(p);
}

static void test_expiry(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    rtm_targets_config_t cfg = {10 * S_NS, 30 * S_NS, NAN, NAN};
    rtm_targets_init(&table, &cfg);
    rtm_nmea_nav_t own = rmc(50.0, -3.0, 0, 0);
    rtm_targets_update_nav(&table, &own, 0);
    rtm_ais_msg_t a = pos_msg(1, 1, 50.0, -3.0, 0, 0), b = pos_msg(1, 2, 50.0, -3.0, 0, 0);
    rtm_targets_update_ais(&table, &a, 0);
    rtm_targets_update_ais(&table, &b, 5 * S_NS);
    rtm_targets_publish(&table, 10 * S_NS);
    rtm_targets_snapshot(&table, p);
    assert_int_equal(p->n, 2);
    rtm_targets_publish(&table, 11 * S_NS);
    rtm_targets_snapshot(&table, p);
    assert_int_equal(p->n, 1);
    assert_int_equal(p->id[0], 2);
    assert_int_equal(rtm_targets_count(&table), 1);
    assert_int_equal(rtm_targets_expire(&table, 16 * S_NS), 1);
    rtm_targets_stats_t st;
    rtm_targets_stats(&table, &st);
    assert_int_equal(st.expired, 2);
    assert_int_equal(st.inserted, 2);
    /* a target that comes back is a new entry */
    rtm_targets_update_ais(&table, &a, 20 * S_NS);
    rtm_targets_publish(&table, 20 * S_NS);
    rtm_targets_snapshot(&table, p);
    assert_int_equal(p->n, 1);
    /* own-ship fix too old: no picture */
    rtm_targets_publish(&table, 31 * S_NS);
    rtm_targets_snapshot(&table, p);
    assert_true(isnan(p->lat0));
    assert_int_equal(p->n, 0);
    free(p);
}

static void test_static_data_and_na(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    rtm_targets_init(&table, NULL);
    rtm_nmea_nav_t own = rmc(50.0, -3.0, 0, 0);
    rtm_targets_update_nav(&table, &own, 0);
    rtm_ais_msg_t s;
    memset(&s, 0, sizeof(s));
    s.type = 5;
    s.mmsi = 351759000;
    strcpy(s.vsd.shipname, "EVER DIADEM");
    strcpy(s.vsd.callsign, "3FOF8");
    s.vsd.shiptype = 70;
    s.vsd.to_bow = 225, s.vsd.to_stern = 70, s.vsd.to_port = 1, s.vsd.to_starboard = 31;
    assert_int_equal(rtm_targets_update_ais(&table, &s, 0), RTM_OK);
    rtm_target_t t;
    assert_int_equal(rtm_targets_find(&table, 351759000, &t), RTM_OK);
    assert_string_equal(t.name, "EVER DIADEM");
    assert_string_equal(t.callsign, "3FOF8");
    assert_int_equal(t.length_m, 295);
    assert_int_equal(t.beam_m, 32);
    assert_false(t.has_pos);
    rtm_targets_publish(&table, 0);
    rtm_targets_snapshot(&table, p);
    assert_int_equal(p->n, 0); /* no position yet */

    /* a position report with position not available: counted, still not placed */
    rtm_ais_msg_t na = pos_msg(1, 351759000, 91.0, 181.0, 5, 5);
    assert_int_equal(rtm_targets_update_ais(&table, &na, 0), RTM_OK);
    rtm_targets_stats_t st;
    rtm_targets_stats(&table, &st);
    assert_int_equal(st.no_position, 1);
    rtm_ais_msg_t ok = pos_msg(1, 351759000, 50.01, -3.0, 5, 5);
    ok.pos.heading = 7;
    ok.pos.turn = -20;
    rtm_targets_update_ais(&table, &ok, 0);
    rtm_targets_publish(&table, 0);
    rtm_targets_snapshot(&table, p);
    assert_int_equal(p->n, 1);
    assert_float_equal(p->rot[0], -(20 / 4.733) * (20 / 4.733) * RAD / 60.0, 1e-6);
    assert_int_equal(rtm_targets_find(&table, 351759000, &t), RTM_OK);
    assert_string_equal(t.name, "EVER DIADEM"); /* kept */
    assert_float_equal(t.heading, 7 * RAD, 1e-6);

    /* type 24: part A names, part B dimensions; B does not erase the name */
    rtm_ais_msg_t a24, b24;
    memset(&a24, 0, sizeof(a24));
    a24.type = 24, a24.mmsi = 271041815, a24.part = RTM_AIS_PART_A;
    strcpy(a24.vsd.shipname, "PROGUY");
    b24 = a24;
    b24.part = RTM_AIS_PART_B;
    b24.vsd.shipname[0] = '\0';
    strcpy(b24.vsd.callsign, "TC6163");
    b24.vsd.to_stern = 15, b24.vsd.to_starboard = 5;
    rtm_targets_update_ais(&table, &a24, 0);
    rtm_targets_update_ais(&table, &b24, 0);
    assert_int_equal(rtm_targets_find(&table, 271041815, &t), RTM_OK);
    assert_string_equal(t.name, "PROGUY");
    assert_string_equal(t.callsign, "TC6163");
    assert_int_equal(t.length_m, 15);
    assert_int_equal(t.beam_m, 5);

    /* messages that carry nothing for the table */
    rtm_ais_msg_t none;
    memset(&none, 0, sizeof(none));
    none.type = 4;
    none.mmsi = 3669702;
    assert_int_equal(rtm_targets_update_ais(&table, &none, 0), RTM_E_NOTFOUND);
    assert_int_equal(rtm_targets_find(&table, 3669702, &t), RTM_E_NOTFOUND);
    rtm_nmea_nav_t v = rmc(50, -3, 0, 0);
    v.valid = false;
    assert_int_equal(rtm_targets_update_nav(&table, &v, 0), RTM_E_NOTFOUND);
    free(p);
}

static void test_own_ship_sources(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    rtm_targets_init(&table, NULL);
    /* VDO position report */
    rtm_ais_msg_t vdo = pos_msg(1, 244740981, 53.199235, 5.7374667, 8.0, 45.0);
    vdo.own = true;
    vdo.pos.turn = 30;
    assert_int_equal(rtm_targets_update_ais(&table, &vdo, 0), RTM_OK);
    assert_int_equal(rtm_targets_count(&table), 0); /* own ship is not a target */
    rtm_targets_publish(&table, 0);
    rtm_targets_snapshot(&table, p);
    assert_float_equal(p->lat0, vdo.pos.lat / 600000.0, 1e-9);
    assert_float_equal(p->own_sog, 8.0 * KN, 1e-5);
    assert_float_equal(p->own_cog, 45 * RAD, 1e-6);
    assert_float_equal(p->own_rot, (30 / 4.733) * (30 / 4.733) * RAD / 60.0, 1e-6);

    /* NMEA: GGA position, VTG velocity, HDT heading → rate of turn across 359/001 */
    rtm_targets_init(&table, NULL);
    rtm_nmea_nav_t gga = rmc(52.0, 5.0, 0, 0), vtg, hdt;
    gga.kind = RTM_NMEA_GGA;
    gga.have = RTM_NMEA_HAVE_POS;
    memset(&vtg, 0, sizeof(vtg));
    vtg.kind = RTM_NMEA_VTG, vtg.valid = true;
    vtg.have = RTM_NMEA_HAVE_SOG | RTM_NMEA_HAVE_COG, vtg.sog_kn = 6.0, vtg.cog_deg = 350;
    memset(&hdt, 0, sizeof(hdt));
    hdt.kind = RTM_NMEA_HDT, hdt.valid = true, hdt.have = RTM_NMEA_HAVE_HEADING;
    hdt.heading_deg = 359.0;
    assert_int_equal(rtm_targets_update_nav(&table, &gga, 0), RTM_OK);
    assert_int_equal(rtm_targets_update_nav(&table, &vtg, 0), RTM_OK);
    assert_int_equal(rtm_targets_update_nav(&table, &hdt, 0), RTM_OK);
    hdt.heading_deg = 1.0;
    assert_int_equal(rtm_targets_update_nav(&table, &hdt, S_NS), RTM_OK);
    rtm_targets_publish(&table, S_NS);
    rtm_targets_snapshot(&table, p);
    assert_float_equal(p->own_rot, 2.0 * RAD, 1e-6);
    assert_float_equal(p->own_sog, 6.0 * KN, 1e-5);
    assert_float_equal(p->own_cog, 350 * RAD, 1e-5);
    rtm_targets_stats_t st;
    rtm_targets_stats(&table, &st);
    assert_int_equal(st.own_updates, 4);
    free(p);
}

static void test_capacity(void **state)
{
    (void)state;
    rtm_traffic_t *p = pic_alloc();
    rtm_targets_init(&table, NULL);
    rtm_nmea_nav_t own = rmc(50.0, -3.0, 0, 0);
    rtm_targets_update_nav(&table, &own, 0);
    /* MMSIs in scrambled order (an odd multiplier permutes 0..2^k-1) */
    uint32_t mask = 1;
    while (mask < RTM_MAX_TARGETS)
        mask <<= 1;
    uint32_t inserted = 0;
    for (uint32_t i = 0; inserted < RTM_MAX_TARGETS; i++) {
        uint32_t k = (i * 40503u) & (mask - 1);
        if (k >= RTM_MAX_TARGETS)
            continue;
        rtm_ais_msg_t m = pos_msg(18, 200000000 + k, 50.0 + (k % 100) * 0.001, -3.0, 1, 1);
        assert_int_equal(rtm_targets_update_ais(&table, &m, 0), RTM_OK);
        inserted++;
    }
    rtm_ais_msg_t extra = pos_msg(1, 199999999, 50.0, -3.0, 1, 1);
    assert_int_equal(rtm_targets_update_ais(&table, &extra, 0), RTM_E_FULL);
    rtm_ais_msg_t again = pos_msg(1, 200000000, 50.0, -3.0, 1, 1); /* an existing one */
    assert_int_equal(rtm_targets_update_ais(&table, &again, 0), RTM_OK);
    rtm_targets_stats_t st;
    rtm_targets_stats(&table, &st);
    assert_int_equal(st.full, 1);
    assert_int_equal(rtm_targets_count(&table), RTM_MAX_TARGETS);
    rtm_targets_publish(&table, 0);
    assert_int_equal(rtm_targets_snapshot(&table, p), RTM_OK);
    assert_int_equal(p->n, RTM_MAX_TARGETS);
    for (uint32_t i = 0; i < p->n; i++)
        assert_int_equal(p->id[i], 200000000 + i);
    free(p);
}

/* The whole input path — lexer, assembler, table, publish, snapshot — over the 18-hour
 * log without one heap call. */
static void test_no_heap(void **state)
{
    (void)state;
    FILE *f = fopen(LOG_GUERNSEY, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    size_t len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(len);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, len, f), len);
    fclose(f);
    rtm_traffic_t *p = pic_alloc();
    static rtm_nmea_t lx;
    static rtm_ais_t ais;

    heap_calls = 0;
    counting = 1;
    rtm_nmea_init(&lx);
    rtm_ais_init(&ais, NULL);
    rtm_targets_init(&table, NULL);
    rtm_nmea_sentence_t s;
    rtm_ais_msg_t m;
    rtm_nmea_nav_t nav;
    int64_t t = 0, link = 0;
    uint64_t pictures = 0, max_n = 0;
    for (size_t i = 0; i < len; i++) {
        if (rtm_nmea_push(&lx, (uint8_t)buf[i], &s) != 1)
            continue;
        link += 1000000;
        if (rtm_ais_feed(&ais, &s, link, &m) == 1) {
            rtm_targets_update_ais(&table, &m, t);
        } else if (rtm_nmea_nav(&lx, &s, &nav) == RTM_OK) {
            int64_t utc = rtm_nmea_utc_ns(&nav);
            if (utc > 0)
                t = utc;
            if (rtm_targets_update_nav(&table, &nav, t) == RTM_OK && nav.kind == RTM_NMEA_RMC) {
                rtm_targets_publish(&table, t);
                if (rtm_targets_snapshot(&table, p) == RTM_OK) {
                    pictures++;
                    max_n = p->n > max_n ? p->n : max_n;
                }
            }
        }
    }
    counting = 0;
    assert_int_equal(heap_calls, 0);
    assert_int_equal(pictures, 30562);
    rtm_targets_stats_t st;
    rtm_targets_stats(&table, &st);
    assert_int_equal(st.updates, 15300);
    assert_int_equal(st.full, 0);
    print_message("Guernsey replay: %llu pictures, up to %llu targets, %llu targets inserted, "
                  "%llu expired, 0 heap calls\n",
                  (unsigned long long)pictures, (unsigned long long)max_n,
                  (unsigned long long)st.inserted, (unsigned long long)st.expired);
    assert_true(max_n > 10);
    /* the probe works */
    counting = 1;
    free(malloc(16));
    counting = 0;
    assert_int_equal(heap_calls, 2);
    free(p);
    free(buf);
}

/* ---- one writer, several readers ---- */

#define CONC_TARGETS 1000
#define CONC_ROUNDS 1500
#define CONC_READERS 3

static _Atomic int writer_done;

static void *writer(void *arg)
{
    (void)arg;
    for (int k = 1; k <= CONC_ROUNDS; k++) {
        int64_t now = (int64_t)k * 1000000;
        for (uint32_t i = 0; i < CONC_TARGETS; i++) {
            rtm_ais_msg_t m = pos_msg(1, 300000000 + i * 3, 50.0 + (i % 40) * 0.01,
                                      -3.0 + (i / 40) * 0.01, 0, 0);
            m.pos.speed = (uint16_t)(k % 1000); /* the round, readable in every entry */
            rtm_targets_update_ais(&table, &m, now);
        }
        rtm_targets_publish(&table, now);
    }
    atomic_store(&writer_done, 1);
    return NULL;
}

typedef struct {
    uint64_t ok, bad, aborted;
    char why[256];
} reader_result_t;

static void *reader(void *arg)
{
    reader_result_t *r = arg;
    rtm_traffic_t *p = malloc(sizeof(*p));
    uint64_t last = 0;
    while (!atomic_load(&writer_done) || r->ok == 0) {
        rtm_status_t st = rtm_targets_snapshot(&table, p);
        if (st == RTM_E_EMPTY)
            continue;
        if (st == RTM_E_ABORTED) {
            r->aborted++;
            continue;
        }
        r->ok++;
        int bad = p->n != CONC_TARGETS ? 1 : p->seq < last ? 2
                : p->t_ns != (int64_t)p->seq * 1000000 ? 3 : 0;
        double want = (double)(p->seq % 1000) / 10.0 * KN;
        uint32_t at = 0;
        for (uint32_t i = 0; i < p->n && !bad; i++, at = i) {
            if (fabs(p->sog[i] - want) > 1e-3)
                bad = 4;
            else if (i && p->id[i] <= p->id[i - 1])
                bad = 5;
            else if (!isfinite(p->x[i]) || !isfinite(p->y[i]))
                bad = 6;
        }
        if (bad && !r->bad)
            snprintf(r->why, sizeof(r->why), "check %d at %u: seq %llu t %lld n %u sog %f want %f",
                     bad, at, (unsigned long long)p->seq, (long long)p->t_ns, p->n,
                     at < p->n ? p->sog[at] : 0.0, want);
        r->bad += bad != 0;
        last = p->seq;
    }
    free(p);
    return NULL;
}

static void test_concurrent_readers(void **state)
{
    (void)state;
    rtm_targets_init(&table, NULL);
    rtm_nmea_nav_t own = rmc(50.0, -3.0, 0, 0);
    rtm_targets_update_nav(&table, &own, 0);
    atomic_store(&writer_done, 0);
    pthread_t w, rd[CONC_READERS];
    reader_result_t res[CONC_READERS];
    memset(res, 0, sizeof(res));
    for (int i = 0; i < CONC_READERS; i++)
        assert_int_equal(pthread_create(&rd[i], NULL, reader, &res[i]), 0);
    assert_int_equal(pthread_create(&w, NULL, writer, NULL), 0);
    pthread_join(w, NULL);
    uint64_t ok = 0;
    for (int i = 0; i < CONC_READERS; i++) {
        pthread_join(rd[i], NULL);
        if (res[i].bad)
            fail_msg("reader %d: %llu torn or inconsistent pictures (%s)", i,
                     (unsigned long long)res[i].bad, res[i].why);
        assert_true(res[i].ok > 0);
        ok += res[i].ok;
    }
    rtm_targets_stats_t st;
    rtm_targets_stats(&table, &st);
    assert_int_equal(st.publishes, CONC_ROUNDS);
    print_message("%d readers: %llu consistent pictures, %llu retries, %llu given up; "
                  "writer: %d pictures of %d targets\n",
                  CONC_READERS, (unsigned long long)ok, (unsigned long long)st.retries,
                  (unsigned long long)st.failures, CONC_ROUNDS, CONC_TARGETS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_no_own_ship),
        cmocka_unit_test(test_geodesy),
        cmocka_unit_test(test_velocity_and_convergence),
        cmocka_unit_test(test_dead_reckoning),
        cmocka_unit_test(test_expiry),
        cmocka_unit_test(test_static_data_and_na),
        cmocka_unit_test(test_own_ship_sources),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_no_heap),
        cmocka_unit_test(test_concurrent_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
