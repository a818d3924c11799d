/* test_scenario.c — the synthetic scenario: seeded and deterministic, targets within
 * the radius with speeds 0..25 kn, some turning, collision courses that do reach own
 * ship, dead reckoning, and snapshots that are never torn under a fast writer. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rtmgr/os.h"
#include "rtmgr/scenario.h"

#define KN 0.514444
#define S 1000000000LL

static rtm_scenario_t sa, sb;
static rtm_traffic_t pa, pb;

static void test_generation(void **state)
{
    (void)state;
    const double R = 12.0 * 1852.0;
    assert_int_equal(rtm_scenario_init(&sa, 0, 1, R, 0), RTM_E_ARG);
    assert_int_equal(rtm_scenario_init(&sa, RTM_MAX_TARGETS + 1, 1, R, 0), RTM_E_ARG);
    assert_int_equal(rtm_scenario_init(&sa, 10, 1, 0.0, 0), RTM_E_ARG);
    assert_int_equal(rtm_scenario_init(&sa, 1000, 7, R, 5 * S), RTM_OK);
    assert_int_equal(rtm_scenario_init(&sb, 1000, 7, R, 5 * S), RTM_OK);
    rtm_scenario_snapshot(&sa, &pa);
    rtm_scenario_snapshot(&sb, &pb);
    assert_int_equal(pa.n, 1000);
    assert_int_equal(pa.t_ns, 5 * S);
    assert_memory_equal(pa.x, pb.x, 1000 * sizeof(float));
    assert_memory_equal(pa.cog, pb.cog, 1000 * sizeof(float));
    unsigned turning = 0, collision = 0;
    for (uint32_t i = 0; i < pa.n; i++) {
        assert_true(hypot(pa.x[i], pa.y[i]) <= R * 1.0001);
        assert_true(pa.sog[i] >= 0.0f && pa.sog[i] <= 25.0 * KN + 1e-3);
        assert_true(pa.cog[i] >= 0.0f && pa.cog[i] < 6.2832f);
        assert_int_equal(pa.id[i], i);
        turning += sa.kind[i] == RTM_SCN_TURNING;
        collision += sa.kind[i] == RTM_SCN_COLLISION;
        if (sa.kind[i] == RTM_SCN_TURNING)
            assert_true(pa.rot[i] != 0.0f);
    }
    assert_true(turning >= 120 && turning <= 280);
    assert_true(collision >= 50 && collision <= 150);
    /* another seed, another picture */
    assert_int_equal(rtm_scenario_init(&sb, 1000, 8, R, 5 * S), RTM_OK);
    rtm_scenario_snapshot(&sb, &pb);
    assert_memory_not_equal(pa.x, pb.x, 1000 * sizeof(float));
}

static void test_motion(void **state)
{
    (void)state;
    const double R = 6.0 * 1852.0;
    assert_int_equal(rtm_scenario_init(&sa, 400, 3, R, 0), RTM_OK);
    rtm_scenario_at(&sa, 0, 0, &pa);
    rtm_scenario_at(&sa, 10 * S, 1, &pb);
    const double ovx = pa.own_sog * sin(pa.own_cog), ovy = pa.own_sog * cos(pa.own_cog);
    assert_true(pb.lat0 != pa.lat0 || pb.lon0 != pa.lon0); /* own ship moved */
    for (uint32_t i = 0; i < 400; i++) {
        if (sa.kind[i] == RTM_SCN_TURNING) {
            /* course changed by rot * 10 s, speed kept */
            double dh = pb.cog[i] - pa.cog[i] - pa.rot[i] * 10.0;
            dh = fmod(dh + 3.0 * M_PI, 2.0 * M_PI) - M_PI;
            assert_true(fabs(dh) < 1e-4);
            assert_float_equal(pb.sog[i], pa.sog[i], 1e-6);
            continue;
        }
        /* straight: relative displacement (v - v_own) * 10 s */
        const double ex = pa.x[i] + (pa.sog[i] * sin(pa.cog[i]) - ovx) * 10.0;
        const double ey = pa.y[i] + (pa.sog[i] * cos(pa.cog[i]) - ovy) * 10.0;
        assert_true(fabs(pb.x[i] - ex) < 0.05 && fabs(pb.y[i] - ey) < 0.05);
        if (sa.kind[i] == RTM_SCN_COLLISION) {
            rtm_traffic_t *pc = &pb;
            const int64_t tc = (int64_t)((double)sa.t_cpa[i] * 1e9);
            rtm_scenario_at(&sa, tc, 2, pc);
            assert_true(hypot(pc->x[i], pc->y[i]) < 5.0); /* it reaches own ship */
            rtm_scenario_at(&sa, 10 * S, 1, &pb);
        }
    }
}

/* The writer publishes t = seq milliseconds; readers check every snapshot's (seq, t)
 * pair and that the picture equals the pure picture of that time. */
static atomic_bool stop;
static rtm_traffic_t reader_pic[2], reader_ref[2];
static unsigned long torn[2];
static _Atomic unsigned long reads[2];

static void *reader(void *arg)
{
    const int r = (int)(intptr_t)arg;
    while (!atomic_load(&stop)) {
        rtm_scenario_snapshot(&sa, &reader_pic[r]);
        reads[r]++;
        if (reader_pic[r].t_ns != (int64_t)reader_pic[r].seq * 1000000) {
            torn[r]++;
            continue;
        }
        rtm_scenario_at(&sa, reader_pic[r].t_ns, reader_pic[r].seq, &reader_ref[r]);
        if (memcmp(reader_pic[r].x, reader_ref[r].x, sa.n * sizeof(float)) != 0)
            torn[r]++;
    }
    return NULL;
}

static void test_snapshots_not_torn(void **state)
{
    (void)state;
    assert_int_equal(rtm_scenario_init(&sa, 64, 5, 5000.0, 0), RTM_OK);
    atomic_store(&stop, false);
    pthread_t th[2];
    for (intptr_t i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, reader, (void *)i), 0);
    for (uint64_t k = 1; k < 50000000 && (reads[0] < 2000 || reads[1] < 2000); k++)
        rtm_scenario_advance(&sa, (int64_t)k * 1000000);
    atomic_store(&stop, true);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(torn[0] + torn[1], 0);
    assert_true(reads[0] > 0 && reads[1] > 0);
}

/* The published formula (scenario.c's header), every term computed for every target:
 * rtm_scenario_at must give exactly these pictures (it takes the initial course's sin
 * and cos from init and calls fmod only outside the range, which changes no bit). */
static double fold_ref(double v, double half)
{
    const double w = 2.0 * half;
    double m = fmod(v + half, w);
    if (m < 0.0)
        m += w;
    return m - half;
}

static void picture_ref(const rtm_scenario_t *s, int64_t t_ns, rtm_traffic_t *out)
{
    const double t = (double)(t_ns - s->t0_ns) * 1e-9;
    const double ox = s->own_vx * t, oy = s->own_vy * t, half = 2.0 * s->radius_m;
    out->n = s->n;
    for (uint32_t i = 0; i < s->n; i++) {
        const double sp = s->sog[i], h0 = s->cog0[i], w = s->rot[i];
        double x, y, h = h0;
        if (w != 0.0f) {
            h = h0 + w * t;
            x = s->x0[i] + sp / w * (cos(h0) - cos(h));
            y = s->y0[i] + sp / w * (sin(h) - sin(h0));
        } else {
            x = s->x0[i] + sp * sin(h0) * t;
            y = s->y0[i] + sp * cos(h0) * t;
        }
        out->x[i] = (float)fold_ref(x - ox, half);
        out->y[i] = (float)fold_ref(y - oy, half);
        h = fmod(h, 6.283185307179586);
        out->cog[i] = (float)(h < 0.0 ? h + 6.283185307179586 : h);
    }
}

static void test_same_as_formula(void **state)
{
    (void)state;
    static rtm_traffic_t ref;
    const int64_t times[] = {0, 1 * S, 37 * S + 123456789, 600 * S, 7200 * S, 86400 * S};
    double t_ref = 0.0, t_at = 0.0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        assert_int_equal(rtm_scenario_init(&sa, RTM_MAX_TARGETS, seed, 24.0 * 1852.0, 3 * S),
                         RTM_OK);
        for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++) {
            double t0 = rtm_os_now_s();
            picture_ref(&sa, 3 * S + times[k], &ref);
            t_ref += rtm_os_now_s() - t0;
            t0 = rtm_os_now_s();
            rtm_scenario_at(&sa, 3 * S + times[k], 1, &pa);
            t_at += rtm_os_now_s() - t0;
            assert_int_equal(pa.n, ref.n);
            assert_memory_equal(pa.x, ref.x, pa.n * sizeof(float));
            assert_memory_equal(pa.y, ref.y, pa.n * sizeof(float));
            assert_memory_equal(pa.cog, ref.cog, pa.n * sizeof(float));
        }
    }
    printf("%u targets: the formula term by term %.3f ms a picture, rtm_scenario_at %.3f ms "
           "(%.1fx)\n", (unsigned)RTM_MAX_TARGETS, t_ref / 18 * 1e3, t_at / 18 * 1e3,
           t_ref / t_at);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generation),
        cmocka_unit_test(test_motion),
        cmocka_unit_test(test_snapshots_not_torn),
        cmocka_unit_test(test_same_as_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
