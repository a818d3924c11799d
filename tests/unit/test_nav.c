/* test_nav.c — the navigation kernels (trajectory, cpa_tcpa, cpa_pairs, manoeuvre,
 * last_chance): every kernel on the first OpenCL device (PoCL here) against its CPU twin
 * on seeded random traffic at several sizes, bit for bit; hand-checked CPA/TCPA and
 * trajectories; the 22 Imazu encounters through the manoeuvre search; block-level abort
 * and resume; traffic snapshots; and `rtmgr eval cpa_tcpa` through the binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "kernels/kernels.h"
#include "kernels/nav.h"
#include "tests/cli_fixture.h"
#include "rtmgr/kexec.h"
#include "rtmgr/rng.h"
#include "rtmgr/traffic.h"
#include "tests/ocl_fixture.h"

static rtm_ocl_dev_t dev;

static int setup(void **state)
{
    (void)state;
    return ocl_open_first(&dev) == RTM_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    rtm_ocl_close(&dev);
    return 0;
}

/* ---- instances ---- */

typedef struct {
    rtm_kinst_t k;
    void *arena;
} inst_t;

static void set_key(rtm_kinst_t *k, const char *key, int64_t v)
{
    const int i = rtm_kernel_key(k->kernel, key);
    assert_true(i >= 0);
    k->size[i] = v;
}

/* Sizes as "key=value key=value ..." (may be empty). */
static void inst_make(inst_t *x, const char *kernel, uint32_t wg, const char *sizes)
{
    const rtm_kernel_t *kd = rtm_kernel_find(kernel);
    assert_non_null(kd);
    rtm_kinst_init(&x->k, kd);
    x->k.tune.wg = wg;
    for (const char *s = sizes; *s;) {
        char key[64];
        long long v;
        int used = 0;
        assert_int_equal(sscanf(s, " %63[^=]=%lld%n", key, &v, &used), 2);
        set_key(&x->k, key, v);
        s += used;
        while (*s == ' ')
            s++;
    }
    assert_int_equal(rtm_kinst_plan(&x->k), RTM_OK);
    const size_t bytes = rtm_kinst_bytes(&x->k);
    x->arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    assert_non_null(x->arena);
    memset(x->arena, 0, bytes);
    assert_int_equal(rtm_kinst_bind(&x->k, x->arena, bytes), bytes);
}

/* A second instance with the same sizes and a copy of the inputs. */
static void inst_clone(inst_t *y, const inst_t *x)
{
    y->k = x->k;
    const size_t bytes = rtm_kinst_bytes(&x->k);
    y->arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    assert_non_null(y->arena);
    memcpy(y->arena, x->arena, bytes);
    assert_int_equal(rtm_kinst_bind(&y->k, y->arena, bytes), bytes);
}

static void inst_free(inst_t *x)
{
    free(x->arena);
    x->arena = NULL;
}

static void run_device(rtm_kinst_t *k)
{
    rtm_kexec_t x;
    rtm_kexec_timing_t t;
    assert_int_equal(rtm_kexec_create(&x, &dev, k), RTM_OK);
    assert_int_equal(rtm_kexec_run(&x, &t), RTM_OK);
    rtm_kexec_destroy(&x);
}

/* Every output buffer equal byte for byte. */
static void assert_outputs_identical(const rtm_kinst_t *a, const rtm_kinst_t *b)
{
    for (uint32_t i = 0; i < a->plan.n_bufs; i++) {
        if (a->plan.buf[i].dir != RTM_BUF_OUT)
            continue;
        if (memcmp(a->host[i], b->host[i], a->plan.buf[i].bytes) != 0) {
            const float *x = a->host[i], *y = b->host[i];
            for (size_t e = 0; e < a->plan.buf[i].bytes / 4; e++)
                if (memcmp(&x[e], &y[e], 4) != 0) {
                    print_error("%s: buffer %u element %zu: %.9g vs %.9g\n", a->kernel->name, i,
                                e, (double)x[e], (double)y[e]);
                    break;
                }
            fail();
        }
    }
}

/* Device vs twin on random traffic: compare() clean and bit-identical. */
static void device_vs_twin(inst_t *g)
{
    inst_t c;
    g->k.kernel->fill(&g->k, 0x5eed0000u + g->k.size[0]);
    inst_clone(&c, g);
    rtm_kinst_run_cpu(&c.k);
    run_device(&g->k);
    char why[256] = "";
    const size_t bad = g->k.kernel->compare(&g->k, &c.k, why, sizeof(why));
    if (bad)
        print_error("%s: %zu differ: %s\n", g->k.kernel->name, bad, why);
    assert_int_equal(bad, 0);
    assert_outputs_identical(&g->k, &c.k);
    inst_free(&c);
}

/* ---- math ---- */

static void test_sincos_accuracy(void **state)
{
    (void)state;
    rtm_rng_t r;
    rtm_rng_seed(&r, 7);
    double worst = 0.0, worst_sinc = 0.0;
    for (int i = 0; i < 200000; i++) {
        const float x = (float)rtm_rng_uniform(&r, -1000.0, 1000.0) / (i % 3 == 0 ? 100.0f : 1.0f);
        float s, c;
        nav_sincos(x, &s, &c);
        const double es = fabs((double)s - sin((double)x)), ec = fabs((double)c - cos((double)x));
        worst = fmax(worst, fmax(es, ec));
        if (x != 0.0f) {
            const double e = fabs((double)nav_sinc(x) - sin((double)x) / (double)x);
            worst_sinc = fmax(worst_sinc, e);
        }
    }
    print_message("nav_sincos max abs error %.3g, nav_sinc %.3g over |x| <= 1000\n", worst,
                  worst_sinc);
    assert_true(worst <= 2e-7);
    assert_true(worst_sinc <= 2e-7);
    float s, c;
    nav_sincos(0.0f, &s, &c);
    assert_true(s == 0.0f && c == 1.0f);
    assert_true(nav_sinc(0.0f) == 1.0f);
    /* Defined behaviour (no int overflow) for NaN and huge arguments. */
    nav_sincos(NAN, &s, &c);
    assert_true(isnan(s) && isnan(c));
    nav_sincos(1e30f, &s, &c); /* garbage out, but no undefined conversion (UBSan) */
}

/* ---- device vs twin at several sizes (incl. non-multiples of the work-group) ---- */

static void test_trajectory_device(void **state)
{
    (void)state;
    const int64_t sizes[][3] = {{1, 1, 1000}, {37, 50, 2000}, {300, 360, 1000}, {129, 7, 500}};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const uint32_t wg = s % 2 ? 64 : 128;
            inst_t g;
            char spec[128];
            snprintf(spec, sizeof(spec), "targets=%lld steps=%lld dt_ms=%lld",
                     (long long)sizes[s][0], (long long)sizes[s][1], (long long)sizes[s][2]);
            inst_make(&g, "trajectory", wg, spec);
            device_vs_twin(&g);
            inst_free(&g);
    }
}

static void test_cpa_tcpa_device(void **state)
{
    (void)state;
    const int64_t sizes[] = {1, 127, 1000, 4099};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const uint32_t wg = s % 2 ? 64 : 128;
            inst_t g;
            char spec[64];
            snprintf(spec, sizeof(spec), "targets=%lld", (long long)sizes[s]);
            inst_make(&g, "cpa_tcpa", wg, spec);
            device_vs_twin(&g);
            inst_free(&g);
    }
}

static void test_cpa_pairs_device(void **state)
{
    (void)state;
    /* 2500 ships at wg 128: 20 row blocks, 2 tiles a chunk, 10 chunks. */
    const int64_t sizes[] = {2, 130, 1000, 2500};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        const uint32_t wg = s % 2 ? 64 : 128;
            inst_t g;
            char spec[64];
            snprintf(spec, sizeof(spec), "ships=%lld", (long long)sizes[s]);
            inst_make(&g, "cpa_pairs", wg, spec);
            device_vs_twin(&g);
            /* Dense random traffic has pairs inside the domain: the lists are exercised. */
            if (sizes[s] >= 1000) {
                const uint32_t *ou = g.k.host[RTM_PAIRS_OU];
                uint32_t total = 0;
                for (int64_t i = 0; i < sizes[s]; i++)
                    total += ou[i * RTM_PAIRS_U + 1];
                assert_true(total > 0);
            }
            inst_free(&g);
    }
}

static void test_manoeuvre_device(void **state)
{
    (void)state;
    const int64_t sizes[][4] = {{1, 1, 13, 3}, {100, 90, 13, 3}, {300, 360, 13, 3}, {65, 200, 5, 2}};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        inst_t g;
        char spec[128];
        snprintf(spec, sizeof(spec), "targets=%lld steps=%lld courses=%lld speeds=%lld",
                 (long long)sizes[s][0], (long long)sizes[s][1], (long long)sizes[s][2],
                 (long long)sizes[s][3]);
        inst_make(&g, "manoeuvre", s % 2 ? 64 : 128, spec);
        device_vs_twin(&g);
        uint32_t order[256];
        assert_int_equal(rtm_nav_rank(&g.k, order), sizes[s][2] * sizes[s][3]);
        for (uint32_t r = 1; r < rtm_nav_manoeuvres(&g.k); r++)
            assert_true(rtm_nav_manoeuvre_out(&g.k, order[r - 1])[0] <=
                        rtm_nav_manoeuvre_out(&g.k, order[r])[0]);
        inst_free(&g);
    }
    inst_t g;
    inst_make(&g, "last_chance", 64, "targets=50");
    device_vs_twin(&g);
    inst_free(&g);
}

/* ---- hand-checked cases ---- */

/* Own ship at the origin heading north at 10 m/s; targets set by hand. */
static void put_target(rtm_kinst_t *k, uint32_t i, float x, float y, float sog, float cog_deg,
                       float rot)
{
    const uint32_t n = (uint32_t)k->size[0];
    float *t = k->host[RTM_NAV_TGT];
    t[NAV_F_X * n + i] = x;
    t[NAV_F_Y * n + i] = y;
    t[NAV_F_SOG * n + i] = sog;
    t[NAV_F_COG * n + i] = cog_deg * (float)(M_PI / 180.0);
    t[NAV_F_ROT * n + i] = rot;
    t[NAV_F_LIVE * n + i] = 1.0f;
}

static void put_own(rtm_kinst_t *k, float sog, float cog_deg)
{
    rtm_nav_own_t *o = k->host[RTM_NAV_OWN];
    memset(o, 0, sizeof(*o));
    o->sog = sog;
    o->cog = cog_deg * (float)(M_PI / 180.0);
}

static void test_cpa_hand(void **state)
{
    (void)state;
    inst_t g;
    inst_make(&g, "cpa_tcpa", 64, "targets=6 d_safe_m=600 t_horizon_s=1200");
    put_own(&g.k, 10.0f, 0.0f);
    /* 0 head-on: target 10 km dead ahead, southbound 10 m/s. Closing at 20 m/s along the
     *   same line: TCPA = 10000 / 20 = 500 s, CPA = 0. Inside the domain (0 < 600, 500 s
     *   within 1200 s): flag 1. */
    put_target(&g.k, 0, 0.0f, 10000.0f, 10.0f, 180.0f, 0.0f);
    /* 1 crossing from starboard: target at (5000, 6000) westbound 10 m/s. Relative
     *   position r = (5000, 6000), relative velocity w = (-10, -10):
     *   TCPA = -(r.w)/(w.w) = 110000 / 200 = 550 s; r + w*550 = (-500, 500):
     *   CPA = 500 sqrt(2) = 707.107 m > 600: flag 0. */
    put_target(&g.k, 1, 5000.0f, 6000.0f, 10.0f, 270.0f, 0.0f);
    /* 2 overtaking: target 2 km ahead, 100 m to starboard, northbound 5 m/s.
     *   w = (0, -5): TCPA = 2000 * 5 / 25 = 400 s; CPA = 100 m: flag 1. */
    put_target(&g.k, 2, 100.0f, 2000.0f, 5.0f, 0.0f, 0.0f);
    /* 3 parallel, same speed: 1 km abeam to starboard. w = 0: TCPA = 0, CPA = the present
     *   range 1000 m; outside the 600 m domain: flag 0. */
    put_target(&g.k, 3, 1000.0f, 0.0f, 10.0f, 0.0f, 0.0f);
    /* 4 past: target astern at (500, -2000) southbound 5 m/s, opening. w = (0, -15):
     *   TCPA = -(-2000 * -15) / 225 = -133.33 s (negative: closest point is past);
     *   CPA = 500 m, but in the past and the present range 2062 m > 600: flag 0. */
    put_target(&g.k, 4, 500.0f, -2000.0f, 5.0f, 180.0f, 0.0f);
    /* 5 inside the domain now: 400 m abeam to port, parallel: CPA 400, TCPA 0, flag 1. */
    put_target(&g.k, 5, -400.0f, 0.0f, 10.0f, 0.0f, 0.0f);
    const float cpa[] = {0.0f, 707.107f, 100.0f, 1000.0f, 500.0f, 400.0f};
    const float tcpa[] = {500.0f, 550.0f, 400.0f, 0.0f, -133.333f, 0.0f};
    const uint32_t flag[] = {1, 0, 1, 0, 0, 1};
    inst_t c;
    inst_clone(&c, &g);
    rtm_kinst_run_cpu(&c.k);
    run_device(&g.k);
    assert_outputs_identical(&g.k, &c.k);
    const float *oc = g.k.host[RTM_CPA_CPA], *ot = g.k.host[RTM_CPA_TCPA];
    const uint32_t *of = g.k.host[RTM_CPA_FLAG];
    for (int i = 0; i < 6; i++) {
        /* float course rounding (180 deg is not exact in radians) moves the track by
         * ~1e-7 rad: a few mm over 10 km. */
        assert_true(fabsf(oc[i] - cpa[i]) < 0.01f);
        assert_true(fabsf(ot[i] - tcpa[i]) < 0.01f);
        assert_int_equal(of[i], flag[i]);
    }
    inst_free(&c);
    inst_free(&g);
}

static void test_trajectory_hand(void **state)
{
    (void)state;
    /* One-second steps, 360 of them. Target 0: straight north at 10 m/s from (100, 200):
     * step k (t = k + 1) is at (100, 200 + 10 t). Target 1: from the origin north at
     * 10 m/s turning to starboard at 1 deg/s: radius R = v / w = 10 / (pi / 180) =
     * 572.958 m, centre (R, 0); after 90 s it heads east at (R, R), after 180 s south at
     * (2R, 0), after 360 s it is back at the start. */
    inst_t g;
    inst_make(&g, "trajectory", 64, "targets=2 steps=360 dt_ms=1000");
    put_target(&g.k, 0, 100.0f, 200.0f, 10.0f, 0.0f, 0.0f);
    put_target(&g.k, 1, 0.0f, 0.0f, 10.0f, 0.0f, (float)(M_PI / 180.0));
    inst_t c;
    inst_clone(&c, &g);
    rtm_kinst_run_cpu(&c.k);
    run_device(&g.k);
    assert_outputs_identical(&g.k, &c.k);
    const float *xy = g.k.host[RTM_TRAJ_XY];
    for (int s = 0; s < 360; s++) {
        assert_true(xy[2 * s] == 100.0f);
        assert_true(fabsf(xy[2 * s + 1] - (200.0f + 10.0f * (float)(s + 1))) < 1e-3f);
    }
    const float *c1 = xy + 2 * 360;
    const float R = (float)(10.0 / (M_PI / 180.0));
    assert_true(fabsf(c1[2 * 89] - R) < 0.05f && fabsf(c1[2 * 89 + 1] - R) < 0.05f);
    assert_true(fabsf(c1[2 * 179] - 2.0f * R) < 0.05f && fabsf(c1[2 * 179 + 1]) < 0.05f);
    assert_true(fabsf(c1[2 * 359]) < 0.05f && fabsf(c1[2 * 359 + 1]) < 0.05f);
    /* Every point of the circle is R from the centre. */
    for (int s = 0; s < 360; s++)
        assert_true(fabsf(hypotf(c1[2 * s] - R, c1[2 * s + 1]) - R) < 0.05f);
    inst_free(&c);
    inst_free(&g);
}

static void test_cpa_pairs_hand(void **state)
{
    (void)state;
    /* A (0, 0) north 10; B (0, 10000) south 10; C (5000, 0) north 10. d_safe 1000, horizon
     * 1200 s. A-B: head-on, closest 0 m at 500 s. A-C: parallel at 5000 m, no relative
     * motion: t = 0, 5000 m. B-C: r = (-5000, 10000), w = (0, -20): t = 500 s, 5000 m.
     * So A: 0 m at 500 s with B, one pair in the domain, list {B}; B: 0 m with A;
     * C: 5000 m twice — the tie keeps the lower index A, at t = 0; no pair in the domain. */
    inst_t g;
    inst_make(&g, "cpa_pairs", 64, "ships=3 d_safe_m=1000 t_horizon_s=1200");
    put_target(&g.k, 0, 0.0f, 0.0f, 10.0f, 0.0f, 0.0f);
    put_target(&g.k, 1, 0.0f, 10000.0f, 10.0f, 180.0f, 0.0f);
    put_target(&g.k, 2, 5000.0f, 0.0f, 10.0f, 0.0f, 0.0f);
    inst_t c;
    inst_clone(&c, &g);
    rtm_kinst_run_cpu(&c.k);
    run_device(&g.k);
    assert_outputs_identical(&g.k, &c.k);
    const float *of = g.k.host[RTM_PAIRS_OF];
    const uint32_t *ou = g.k.host[RTM_PAIRS_OU];
    assert_true(of[0] < 0.01f && fabsf(of[1] - 500.0f) < 0.01f);
    assert_int_equal(ou[0], 1);
    assert_int_equal(ou[1], 1);
    assert_int_equal(ou[2], 1);
    assert_int_equal(ou[3], 0xffffffffu);
    assert_true(of[2] < 0.01f);
    assert_int_equal(ou[RTM_PAIRS_U], 0);
    assert_true(fabsf(of[4] - 5000.0f) < 0.01f && of[5] == 0.0f);
    assert_int_equal(ou[2 * RTM_PAIRS_U], 0);
    assert_int_equal(ou[2 * RTM_PAIRS_U + 1], 0);
    inst_free(&c);
    inst_free(&g);
}

/* ---- Imazu encounters through the manoeuvre search ---- */

typedef struct {
    char type[16];
    int n;                 /* ships, own first */
    double st[8][4];       /* north m, east m, SOG m/s, COG deg */
} imazu_t;

static void imazu_read(int no, imazu_t *sc)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/data/scenarios/imazu/imazu%02d.yaml", RTM_TEST_SHARED_DIR,
             no);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    memset(sc, 0, sizeof(*sc));
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        const char *s = line;
        while (*s == ' ')
            s++;
        if (strncmp(s, "type:", 5) == 0)
            sscanf(s + 5, " %15s", sc->type);
        const char *cs = strstr(s, "csog_state:");
        if (cs && s[0] != '#' && sc->n < 8) {
            double *v = sc->st[sc->n];
            assert_int_equal(sscanf(cs, "csog_state: [%lf, %lf, %lf, %lf]", &v[0], &v[1], &v[2],
                                    &v[3]),
                             4);
            sc->n++;
        }
    }
    fclose(f);
    assert_true(sc->n >= 2);
}

/* Loads a scenario into a manoeuvre-type instance sized for it. */
static void imazu_load(inst_t *g, const char *kernel, const imazu_t *sc)
{
    char spec[64];
    snprintf(spec, sizeof(spec), "targets=%d", sc->n - 1);
    inst_make(g, kernel, 64, spec);
    const double n0 = sc->st[0][0], e0 = sc->st[0][1];
    put_own(&g->k, (float)sc->st[0][2], (float)sc->st[0][3]);
    for (int i = 1; i < sc->n; i++)
        put_target(&g->k, (uint32_t)i - 1, (float)(sc->st[i][1] - e0), (float)(sc->st[i][0] - n0),
                   (float)sc->st[i][2], (float)sc->st[i][3], 0.0f);
}

static void test_imazu(void **state)
{
    (void)state;
    for (int no = 1; no <= 22; no++) {
        imazu_t sc;
        imazu_read(no, &sc);
        inst_t g, c;
        imazu_load(&g, "manoeuvre", &sc);
        inst_clone(&c, &g);
        rtm_kinst_run_cpu(&c.k);
        run_device(&g.k);
        assert_outputs_identical(&g.k, &c.k);
        uint32_t order[64], order_c[64];
        const uint32_t nm = rtm_nav_rank(&g.k, order);
        assert_int_equal(rtm_nav_rank(&c.k, order_c), nm);
        assert_memory_equal(order, order_c, nm * sizeof(uint32_t));

        const uint32_t keep = (uint32_t)(g.k.size[3] - 1) / 2; /* 0 deg, full speed */
        const float d_safe = (float)g.k.size[5];
        float off, fac;
        rtm_nav_manoeuvre_of(&g.k, order[0], &off, &fac);
        const float *best = rtm_nav_manoeuvre_out(&g.k, order[0]);
        const float *nominal = rtm_nav_manoeuvre_out(&g.k, keep);
        /* Which COLREGs roles does own ship have here (from the same helper the kernel
         * uses)? */
        int give_way = 0;
        float os, oc;
        nav_sincos((float)(sc.st[0][3] * M_PI / 180.0), &os, &oc);
        for (int i = 1; i < sc.n; i++) {
            float ts, tc;
            nav_sincos((float)(sc.st[i][3] * M_PI / 180.0), &ts, &tc);
            int port;
            const int role = nav_target_role(
                (float)(sc.st[i][1] - sc.st[0][1]), (float)(sc.st[i][0] - sc.st[0][0]),
                (float)sc.st[0][2], os, oc, (float)sc.st[i][2], ts, tc, d_safe,
                (float)g.k.size[1] * (float)g.k.size[2] / 1000.0f, &port);
            give_way |= role == NAV_ROLE_HEAD_ON || role == NAV_ROLE_GIVE_WAY;
        }
        print_message("imazu%02d %-6s nominal dmin %6.0f m | best %+4.0f deg x %.1f: cost %6.2f "
                      "dmin %6.0f m at %4.0f s%s\n",
                      no, sc.type, (double)nominal[1], off * 180.0 / M_PI, (double)fac,
                      (double)best[0], (double)best[1], (double)best[2],
                      give_way ? " (give way)" : "");
        /* The chosen manoeuvre keeps every target outside the safety distance. */
        assert_true(best[1] >= d_safe);
        /* Give way to starboard: head-on and crossing from starboard. */
        if (strcmp(sc.type, "HO") == 0 || strcmp(sc.type, "CR_GW") == 0)
            assert_true(off > 0.0f);
        if (give_way)
            assert_true(off >= 0.0f);
        /* Stand-on alone and safe: keep course and speed. */
        if (strcmp(sc.type, "CR_SO") == 0 && nominal[1] >= d_safe)
            assert_int_equal(order[0], keep);
        inst_free(&c);
        inst_free(&g);
    }
}

static void test_last_chance_hand(void **state)
{
    (void)state;
    /* Head-on at 800 m, both 5 m/s: collision in 80 s. Rule 17(b): the best immediate
     * action; a starboard turn is preferred by symmetry (port deviation costs more) and
     * must beat keeping course. */
    inst_t g;
    inst_make(&g, "last_chance", 64, "targets=1");
    put_own(&g.k, 5.0f, 0.0f);
    put_target(&g.k, 0, 0.0f, 800.0f, 5.0f, 180.0f, 0.0f);
    inst_t c;
    inst_clone(&c, &g);
    rtm_kinst_run_cpu(&c.k);
    run_device(&g.k);
    assert_outputs_identical(&g.k, &c.k);
    uint32_t order[64];
    rtm_nav_rank(&g.k, order);
    float off, fac;
    rtm_nav_manoeuvre_of(&g.k, order[0], &off, &fac);
    const uint32_t keep = (uint32_t)(g.k.size[3] - 1) / 2;
    const float *best = rtm_nav_manoeuvre_out(&g.k, order[0]);
    print_message("last chance head-on 800 m: %+4.0f deg x %.1f, dmin %.0f m (keep: %.0f m)\n",
                  off * 180.0 / M_PI, (double)fac, (double)best[1],
                  (double)rtm_nav_manoeuvre_out(&g.k, keep)[1]);
    assert_true(off > 0.0f);
    assert_true(best[1] > rtm_nav_manoeuvre_out(&g.k, keep)[1] + 100.0f);
    inst_free(&c);
    inst_free(&g);

    /* Crossing from port at close range: target 600 m off the port bow heading east
     * across own bow. Rule 17(c): no turn to port for a vessel on the port side. */
    inst_make(&g, "last_chance", 64, "targets=1");
    put_own(&g.k, 5.0f, 0.0f);
    put_target(&g.k, 0, -420.0f, 420.0f, 5.0f, 90.0f, 0.0f);
    run_device(&g.k);
    rtm_nav_rank(&g.k, order);
    rtm_nav_manoeuvre_of(&g.k, order[0], &off, &fac);
    best = rtm_nav_manoeuvre_out(&g.k, order[0]);
    print_message("last chance crossing from port: %+4.0f deg x %.1f, dmin %.0f m\n",
                  off * 180.0 / M_PI, (double)fac, (double)best[1]);
    assert_true(off >= 0.0f);
    inst_free(&g);
}

/* ---- blocks: abort, resume through the map, any order ---- */

static void test_abort_and_resume(void **state)
{
    (void)state;
    inst_t g, c;
    inst_make(&g, "manoeuvre", 64, "targets=200 steps=200");
    g.k.kernel->fill(&g.k, 99);
    inst_clone(&c, &g);
    rtm_kinst_run_cpu(&c.k);

    rtm_kexec_t x;
    assert_int_equal(rtm_kexec_create(&x, &dev, &g.k), RTM_OK);
    assert_int_equal(rtm_kexec_write_inputs(&x, NULL, NULL), RTM_OK);
    /* Flag raised before the launch: no block runs, none is marked done. */
    const cl_int one = 1, zero = 0;
    assert_int_equal(clEnqueueWriteBuffer(dev.exec, x.abort_flag, CL_TRUE, 0, sizeof(one), &one,
                                          0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(rtm_kexec_enqueue(&x, 0, NULL, 0, NULL), RTM_OK);
    assert_int_equal(clFinish(dev.exec), CL_SUCCESS);
    const uint32_t nb = g.k.plan.blocks_max;
    unsigned char done[4096];
    assert_true(nb <= sizeof(done));
    assert_int_equal(clEnqueueReadBuffer(dev.exec, x.done, CL_TRUE, 0, nb, done, 0, NULL, NULL),
                     CL_SUCCESS);
    for (uint32_t b = 0; b < nb; b++)
        assert_int_equal(done[b], 0);
    /* Resume: the blocks listed in reverse order through the map, then the reduction. */
    assert_int_equal(clEnqueueWriteBuffer(dev.exec, x.abort_flag, CL_TRUE, 0, sizeof(zero), &zero,
                                          0, NULL, NULL),
                     CL_SUCCESS);
    rtm_klaunch_t kl;
    g.k.kernel->launch(&g.k, 0, &kl);
    uint32_t map[4096];
    for (uint32_t b = 0; b < kl.blocks; b++)
        map[b] = kl.blocks - 1 - b;
    assert_int_equal(rtm_kexec_enqueue(&x, 0, map, kl.blocks, NULL), RTM_OK);
    assert_int_equal(rtm_kexec_enqueue(&x, 1, NULL, 0, NULL), RTM_OK);
    assert_int_equal(rtm_kexec_read_outputs(&x, NULL, NULL), RTM_OK);
    assert_int_equal(clFinish(dev.exec), CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(dev.exec, x.done, CL_TRUE, 0, kl.blocks, done, 0, NULL,
                                         NULL),
                     CL_SUCCESS);
    for (uint32_t b = 0; b < kl.blocks; b++)
        assert_int_equal(done[b], 1);
    assert_outputs_identical(&g.k, &c.k);
    rtm_kexec_destroy(&x);

    /* Twin blocks are idempotent and order-free: run launch 0 backwards, twice. */
    inst_t r;
    inst_clone(&r, &g);
    memset(r.k.host[RTM_MAN_OUT], 0, r.k.plan.buf[RTM_MAN_OUT].bytes);
    for (int rep = 0; rep < 2; rep++)
        for (uint32_t b = kl.blocks; b-- > 0;)
            r.k.kernel->cpu_block(&r.k, 0, b);
    r.k.kernel->launch(&r.k, 1, &kl);
    for (uint32_t b = 0; b < kl.blocks; b++)
        r.k.kernel->cpu_block(&r.k, 1, b);
    assert_outputs_identical(&r.k, &c.k);
    inst_free(&r);
    inst_free(&c);
    inst_free(&g);
}

/* ---- traffic snapshots ---- */

static void test_load_traffic(void **state)
{
    (void)state;
    static rtm_traffic_t t;
    memset(&t, 0, sizeof(t));
    t.own_sog = 10.0f;
    t.n = 3;
    const float ys[] = {10000.0f, -3000.0f, 500.0f};
    for (uint32_t i = 0; i < 3; i++) {
        t.x[i] = 0.0f;
        t.y[i] = ys[i];
        t.sog[i] = 10.0f;
        t.cog[i] = (float)M_PI;
    }
    inst_t g;
    inst_make(&g, "cpa_tcpa", 64, "targets=5");
    g.k.kernel->load_traffic(&g.k, &t);
    rtm_kinst_run_cpu(&g.k);
    const float *cpa = g.k.host[RTM_CPA_CPA], *tcpa = g.k.host[RTM_CPA_TCPA];
    const uint32_t *flag = g.k.host[RTM_CPA_FLAG];
    assert_true(fabsf(tcpa[0] - 500.0f) < 0.01f && cpa[0] < 0.01f && flag[0] == 1);
    assert_true(tcpa[1] < 0.0f);
    assert_true(isnan(cpa[3]) && isnan(cpa[4]) && flag[3] == 0 && flag[4] == 0);
    assert_int_equal(g.k.absent, 2); /* slots 3 and 4 */
    g.k.kernel->fill(&g.k, 1);
    assert_int_equal(g.k.absent, 0);
    inst_free(&g);

    /* Pairs: own ship is ship 0; a picture larger than the instance is cut. */
    inst_make(&g, "cpa_pairs", 64, "ships=3");
    g.k.kernel->load_traffic(&g.k, &t);
    assert_int_equal(g.k.absent, 0);
    rtm_kinst_run_cpu(&g.k);
    const float *of = g.k.host[RTM_PAIRS_OF];
    const uint32_t *ou = g.k.host[RTM_PAIRS_OU];
    assert_true(of[0] < 0.01f && fabsf(of[1] - 500.0f) < 0.01f && ou[0] == 1);
    inst_free(&g);
}

/* cpa_pairs skips absent ships (session 28): a picture of 40 ships in 300 slots gives,
 * on the device and the twin alike, what an instance of exactly those 40 ships gives,
 * and the absent slots' rows hold no partner. */
static void test_pairs_absent_skipped(void **state)
{
    (void)state;
    static rtm_traffic_t t;
    memset(&t, 0, sizeof(t));
    t.own_sog = 8.0f;
    t.n = 39;
    for (uint32_t i = 0; i < t.n; i++) {
        t.x[i] = (float)(i % 7) * 900.0f - 2700.0f;
        t.y[i] = (float)(i / 7) * 1100.0f - 3000.0f;
        t.sog[i] = 4.0f + (float)(i % 5);
        t.cog[i] = (float)i * 0.7f;
    }
    inst_t g, c, e;
    inst_make(&g, "cpa_pairs", 64, "ships=300");
    g.k.kernel->load_traffic(&g.k, &t);
    assert_int_equal(g.k.absent, 300 - 40);
    inst_clone(&c, &g);
    rtm_kinst_run_cpu(&c.k);
    run_device(&g.k);
    assert_outputs_identical(&g.k, &c.k);
    inst_make(&e, "cpa_pairs", 64, "ships=40");
    e.k.kernel->load_traffic(&e.k, &t);
    assert_int_equal(e.k.absent, 0);
    rtm_kinst_run_cpu(&e.k);
    assert_memory_equal(g.k.host[RTM_PAIRS_OF], e.k.host[RTM_PAIRS_OF], 40 * 2 * sizeof(float));
    assert_memory_equal(g.k.host[RTM_PAIRS_OU], e.k.host[RTM_PAIRS_OU],
                        40 * RTM_PAIRS_U * sizeof(uint32_t));
    const uint32_t *ou = g.k.host[RTM_PAIRS_OU];
    for (uint32_t i = 40; i < 300; i++)
        assert_true(ou[i * RTM_PAIRS_U] == 0xffffffffu && ou[i * RTM_PAIRS_U + 1] == 0);
    inst_free(&g);
    inst_free(&c);
    inst_free(&e);
}

/* ---- cost descriptors ---- */

static void test_costs(void **state)
{
    (void)state;
    const char *names[] = {"trajectory", "cpa_tcpa", "cpa_pairs", "manoeuvre", "last_chance"};
    for (size_t i = 0; i < 5; i++) {
        inst_t g;
        inst_make(&g, names[i], 128, "");
        rtm_cost_t c;
        g.k.kernel->cost(&g.k, &c);
        assert_true(c.li > 0 && c.Z > 0 && c.md > 0 && c.bytes_in > 0 && c.bytes_out > 0);
        assert_true(c.z[RTM_LOC_UNIT] > 0 && c.z[RTM_LOC_SCALAR] > 0);
        assert_true(c.bytes_dev >= c.bytes_in + c.bytes_out);
        assert_int_equal(c.launches, g.k.plan.launches);
        print_message("%-12s li %.0f Z %.1f z_scalar %.1f z_unit %.1f in %.0f B out %.0f B\n",
                      names[i], c.li, c.Z, c.z[RTM_LOC_SCALAR], c.z[RTM_LOC_UNIT], c.bytes_in,
                      c.bytes_out);
        inst_free(&g);
    }
    /* Pairs: total work grows as ships^2. */
    inst_t a, b;
    inst_make(&a, "cpa_pairs", 128, "ships=2048");
    inst_make(&b, "cpa_pairs", 128, "ships=4096");
    rtm_cost_t ca, cb;
    a.k.kernel->cost(&a.k, &ca);
    b.k.kernel->cost(&b.k, &cb);
    const double ratio = (cb.li * cb.Z) / (ca.li * ca.Z);
    assert_true(ratio > 3.8 && ratio < 4.2);
    inst_free(&a);
    inst_free(&b);
    /* Manoeuvre searches: the CPU classes (eq. 1's z, the CPU models' operations) count
     * what the twin runs, which skips the padded work-items of a partial tile — 32
     * targets at wg 128 are a quarter of 128's work, not all of it (the H100 host's CPU
     * predictions were +67 % at 32 targets and -56 % at 7800 with the padded count). The
     * device's Z keeps the padded items (a partial work-group still occupies its lanes). */
    const char *man[] = {"manoeuvre", "last_chance"};
    for (size_t i = 0; i < 2; i++) {
        inst_make(&a, man[i], 128, "targets=32");
        inst_make(&b, man[i], 128, "targets=128");
        a.k.kernel->cost(&a.k, &ca);
        b.k.kernel->cost(&b.k, &cb);
        const double cpu_a = ca.li * (ca.z[RTM_LOC_SCALAR] + ca.z[RTM_LOC_UNIT] + ca.z[RTM_LOC_STRIDED]);
        const double cpu_b = cb.li * (cb.z[RTM_LOC_SCALAR] + cb.z[RTM_LOC_UNIT] + cb.z[RTM_LOC_STRIDED]);
        print_message("%s CPU operations 32 -> 128 targets: x%.2f; device x%.2f\n", man[i],
                      cpu_b / cpu_a, (cb.li * cb.Z) / (ca.li * ca.Z));
        assert_true(cpu_b / cpu_a > 3.0 && cpu_b / cpu_a < 4.1);
        assert_true((cb.li * cb.Z) / (ca.li * ca.Z) < 1.2); /* one padded tile either way */
        inst_free(&a);
        inst_free(&b);
    }
}

/* Absent target slots (k->absent, set by load_traffic): the kernels skip their work, so
 * the cost descriptors count their shorter path (session 16: with the HIL replay's 10-60
 * targets in 1 024-16 384 slots, evade was +50-60 % on the H100, +418 % on PoCL's CPU,
 * traj on the CPU pool +156 %). The count falls with the absent slots, to the dead
 * items' own at all absent, and is the full count at none. cpa_pairs skips the absent
 * rows and columns since session 28 (a NaN pair took the division's slow path): its
 * pairs fall with the square of the live ships, to a quarter and less at half. */
static void test_costs_absent(void **state)
{
    (void)state;
    const char *names[] = {"trajectory", "cpa_tcpa", "manoeuvre", "last_chance", "cpa_pairs"};
    for (size_t i = 0; i < 5; i++) {
        inst_t g;
        inst_make(&g, names[i], 128, "");
        const uint32_t n = (uint32_t)g.k.size[0];
        double ops_dev[3], cpu[3];
        const uint32_t absent[3] = {0, n / 2, n};
        for (int a = 0; a < 3; a++) {
            g.k.absent = absent[a];
            rtm_cost_t c;
            g.k.kernel->cost(&g.k, &c);
            ops_dev[a] = c.li * c.Z;
            cpu[a] = c.li * (c.z[RTM_LOC_SCALAR] + c.z[RTM_LOC_UNIT] + c.z[RTM_LOC_STRIDED]);
            assert_true(c.Z > 0 && c.z[RTM_LOC_UNIT] >= 0 && c.z[RTM_LOC_SCALAR] > 0);
        }
        print_message("%-12s operations at 0, n/2, n absent slots: device %.3g %.3g %.3g, "
                      "CPU %.3g %.3g %.3g\n", names[i], ops_dev[0], ops_dev[1], ops_dev[2], cpu[0], cpu[1],
                      cpu[2]);
        if (i == 4) {
            assert_true(ops_dev[1] < 0.35 * ops_dev[0] && cpu[1] < 0.35 * cpu[0]);
            assert_true(ops_dev[2] < 0.1 * ops_dev[0] && cpu[2] < 0.1 * cpu[0]);
        } else {
            assert_true(ops_dev[0] > ops_dev[1] && ops_dev[1] > ops_dev[2] && cpu[0] > cpu[1] && cpu[1] > cpu[2]);
            assert_true(ops_dev[2] < 0.2 * ops_dev[0]); /* a dead item is a fraction of a live one */
            /* linear in the live slots: the half is the mean of the ends */
            assert_true(fabs(ops_dev[1] - (ops_dev[0] + ops_dev[2]) / 2) < 0.02 * ops_dev[0]);
        }
        inst_free(&g);
    }
}

/* ---- rtmgr eval through the binary ---- */

static void test_eval_cpa_tcpa_binary(void **state)
{
    (void)state;
    /* Own ship on the equator at 0 E heading north at 10 kn (5.14444 m/s).
     * Meridian radius of curvature at the equator M = a (1 - e^2) = 6335439 m, so 0.1 deg
     * of latitude is 6335439 * 0.00174533 = 11057.4 m (the arc curves by < 1 cm here);
     * 0.1 deg of longitude on the equator is a * 0.00174533 = 11131.9 m.
     *   1 head-on: 0.1 N, southbound 10 kn: closing 10.2889 m/s, CPA 0,
     *     TCPA = 11057.4 / 10.2889 = 1074.7 s.
     *   2 crossing: 0.1 E, westbound 10 kn: r = (11131.9, 0), w = (-5.14444, -5.14444):
     *     TCPA = 11131.9 / (2 * 5.14444) = 1081.9 s, CPA = 11131.94 / sqrt(2) = 7871.47 m =
     *     4.2503 nm.
     *   3 overtaking own ship from astern: 0.05 S (5528.7 m), northbound 15 kn: closing
     *     2.57222 m/s, TCPA = 5528.7 / 2.57222 = 2149.4 s, CPA 0.
     *   4 opening astern: 0.05 S, southbound 10 kn: w = -10.2889 m/s northward:
     *     TCPA = -5528.7 / 10.2889 = -537.3 s (past), CPA 0. */
    const char *csv = "lat_deg,lon_deg,sog_kn,cog_deg\n"
                      "0.0,0.0,10,0\n"
                      "0.1,0.0,10,180\n"
                      "0.0,0.1,10,270\n"
                      "-0.05,0.0,15,0\n"
                      "-0.05,0.0,10,180\n";
    const char *path = "test_nav_eval.csv";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(csv, f);
    fclose(f);
    const double cpa[] = {0.0, 4.2503, 0.0, 0.0};
    const double tcpa[] = {1074.7, 1081.9, 2149.4, -537.3};
    /* the default work-group size, and --wg 64 (the same results at another size) */
    const char *devices[] = {"cpu", "0", "0 --wg 64"};
    for (int d = 0; d < 3; d++) {
        char cmd[1024], out[4096];
        snprintf(cmd, sizeof(cmd), "%s eval cpa_tcpa --device %s --in %s", RTM_TEST_RTMGR,
                 devices[d], path);
        assert_int_equal(cli_shell(cmd, out, sizeof(out)), 0);
        assert_true(strncmp(out, "target,cpa_nm,tcpa_s\n", 21) == 0);
        const char *s = strchr(out, '\n') + 1;
        for (int i = 0; i < 4; i++) {
            int t;
            double c, tc;
            assert_int_equal(sscanf(s, "%d,%lf,%lf", &t, &c, &tc), 3);
            assert_int_equal(t, i + 1);
            assert_true(fabs(c - cpa[i]) < 0.0005);
            assert_true(fabs(tc - tcpa[i]) < 0.25);
            s = strchr(s, '\n') + 1;
        }
        assert_int_equal(*s, '\0');
    }
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof(cmd), "%s eval no_such_kernel --in %s 2>/dev/null", RTM_TEST_RTMGR, path);
    assert_int_equal(cli_shell(cmd, out, sizeof(out)), 1);
    snprintf(cmd, sizeof(cmd), "%s eval cpa_tcpa --in /nonexistent.csv 2>/dev/null",
             RTM_TEST_RTMGR);
    assert_int_equal(cli_shell(cmd, out, sizeof(out)), 1);
    snprintf(cmd, sizeof(cmd), "%s eval cpa_tcpa --wg 3 --in %s 2>/dev/null", RTM_TEST_RTMGR,
             path);
    assert_int_equal(cli_shell(cmd, out, sizeof(out)), 1); /* not a power of two */
    snprintf(cmd, sizeof(cmd), "%s eval cpa_tcpa --wg x --in %s 2>/dev/null", RTM_TEST_RTMGR,
             path);
    assert_int_equal(cli_shell(cmd, out, sizeof(out)), 1);
    snprintf(cmd, sizeof(cmd), "%s eval cpa_tcpa --device 99 --in %s 2>/dev/null",
             RTM_TEST_RTMGR, path);
    assert_int_equal(cli_shell(cmd, out, sizeof(out)), 3);
    f = fopen(path, "w");
    fputs("lat,lon\n1,2,3\n", f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "%s eval cpa_tcpa --in %s 2>/dev/null", RTM_TEST_RTMGR, path);
    assert_int_equal(cli_shell(cmd, out, sizeof(out)), 1);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sincos_accuracy),
        cmocka_unit_test(test_trajectory_device),
        cmocka_unit_test(test_cpa_tcpa_device),
        cmocka_unit_test(test_cpa_pairs_device),
        cmocka_unit_test(test_manoeuvre_device),
        cmocka_unit_test(test_cpa_hand),
        cmocka_unit_test(test_trajectory_hand),
        cmocka_unit_test(test_cpa_pairs_hand),
        cmocka_unit_test(test_imazu),
        cmocka_unit_test(test_last_chance_hand),
        cmocka_unit_test(test_abort_and_resume),
        cmocka_unit_test(test_load_traffic),
        cmocka_unit_test(test_pairs_absent_skipped),
        cmocka_unit_test(test_costs),
        cmocka_unit_test(test_costs_absent),
        cmocka_unit_test(test_eval_cpa_tcpa_binary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
