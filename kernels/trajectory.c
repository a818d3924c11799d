/* trajectory.c — descriptor and CPU twin of trajectory.cl: CTRV prediction of every
 * target of the traffic picture over `steps` steps of `dt_ms`.
 *
 * Buffers: own (rtm_nav_own_t, unused by the kernel, carries the plane origin), tgt
 * (NAV_FIELDS x targets floats), xy (out: float2 per target per step, [target][step],
 * position at t = (step + 1) * dt). Absent targets give NaN. Blocks: RTM_WG consecutive
 * output elements each; the twin walks the same elements with the same nav_ctrv() call
 * (kernels/nav_math.h), so on a conforming device the outputs are bit-identical;
 * compare() allows 1e-5 relative (of max(1 m, |x|)) for devices that contract to FMA.
 *
 * Cost counts, read off the kernel body per work-item (one output element), for a target
 * on a straight course (|rot t / 2| < 0.25, the common case; a turning target adds 21
 * operations for sinc through sincos and one division):
 *   block entry 2 (abort flag, map select); index 7 (blk * WG + lid, bound test, e / H,
 *   e - i * H, live load and test); time 3 (k + 1, convert, * dt); field loads 5 plus 5
 *   address adds; nav_ctrv 47 (half 2, sinc polynomial 10, chord 2, course + half 1,
 *   nav_sincos 28, x and y 4); store 1 => Z = 70.
 *   nav_sincos 28 = rint 1, scale 1, three-part reduction 6, z 1, sine polynomial 7,
 *   cosine polynomial 9, quadrant select 3.
 * CPU classes (eq. 1): array accesses z_unit = 7 (5 field loads + live load, which repeat
 * for the `steps` consecutive items of one target, and the unit-stride store);
 * register arithmetic z_scalar = Z - 7 - 2 = 61. md = 6 / steps input floats per item.
 * An item of an absent target slot (k->absent, the last slots) runs entry, index and
 * live test, and the NaN store: 10 operations, z_unit 2 (live load, store), z_scalar 6;
 * Z and z are averaged over live and absent items.
 * li = targets * steps; bytes in = 64 + 24 targets, out = 8 targets * steps; device
 * traffic = in + out (each field is fetched once per target, then cached). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/nav.h"
#include "rtmgr/geo.h"
#include "rtmgr/traffic.h"

enum { K_TARGETS, K_STEPS, K_DT };
enum { Z_SINCOS = 28, Z_CTRV = 2 + 10 + 2 + 1 + Z_SINCOS + 4, Z_ITEM = 2 + 7 + 3 + 10 + Z_CTRV + 1 };
/* an absent target's item: entry 2, index with the live test 7, the NaN store 1 */
enum { Z_DEAD = 2 + 7 + 1 };

static uint32_t n_tgt(const rtm_kinst_t *k) { return (uint32_t)k->size[K_TARGETS]; }
static uint32_t n_steps(const rtm_kinst_t *k) { return (uint32_t)k->size[K_STEPS]; }
static uint64_t elems(const rtm_kinst_t *k) { return (uint64_t)n_tgt(k) * n_steps(k); }
static uint32_t blocks(const rtm_kinst_t *k)
{
    return (uint32_t)((elems(k) + k->tune.wg - 1) / k->tune.wg);
}

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    if (elems(k) > UINT32_MAX - k->tune.wg)
        return RTM_E_RANGE;
    p->n_bufs = 3;
    p->buf[RTM_NAV_OWN] = (rtm_bufspec_t){sizeof(rtm_nav_own_t), RTM_BUF_IN};
    p->buf[RTM_NAV_TGT] = (rtm_bufspec_t){rtm_nav_tgt_bytes(n_tgt(k)), RTM_BUF_IN};
    p->buf[RTM_TRAJ_XY] = (rtm_bufspec_t){(size_t)elems(k) * 2 * sizeof(float), RTM_BUF_OUT};
    p->launches = 1;
    p->blocks_max = blocks(k);
    return RTM_OK;
}

static void options(const rtm_kinst_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "-cl-fp32-correctly-rounded-divide-sqrt -DNAV_N=%uu -DNAV_STEPS=%uu "
                       "-DNAV_DT_MS=%lld",
             n_tgt(k), n_steps(k), (long long)k->size[K_DT]);
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    k->absent = 0;
    rtm_nav_fill(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), seed, 20000.0f);
    memset(k->host[RTM_TRAJ_XY], 0, k->plan.buf[RTM_TRAJ_XY].bytes);
}

static void load_traffic(rtm_kinst_t *k, const rtm_traffic_t *t)
{
    k->absent = rtm_nav_load_traffic(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), t, 0);
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const uint32_t n = n_tgt(k), steps = n_steps(k);
    const float *tgt = k->host[RTM_NAV_TGT];
    float *xy = k->host[RTM_TRAJ_XY];
    const float dt = (float)k->size[K_DT] / 1000.0f;
    for (uint32_t lid = 0; lid < k->tune.wg; lid++) {
        const uint32_t e = blk * k->tune.wg + lid;
        if (e >= n * steps)
            break;
        const uint32_t i = e / steps;
        const uint32_t s = e - i * steps;
        float x = NAN, y = NAN;
        if (tgt[NAV_F_LIVE * n + i] != 0.0f) {
            const float t = (float)(s + 1u) * dt;
            nav_ctrv(tgt[NAV_F_X * n + i], tgt[NAV_F_Y * n + i], tgt[NAV_F_SOG * n + i],
                     tgt[NAV_F_COG * n + i], tgt[NAV_F_ROT * n + i], t, &x, &y);
        }
        xy[2 * (size_t)e] = x;
        xy[2 * (size_t)e + 1] = y;
    }
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double li = (double)elems(k);
    memset(c, 0, sizeof(*c));
    c->li = li;
    rtm_nav_item_ops(k, n_tgt(k), Z_ITEM, 7.0, Z_DEAD, 2.0, c);
    c->md = 6.0 / (double)n_steps(k);
    c->bytes_in = (double)sizeof(rtm_nav_own_t) + 24.0 * n_tgt(k);
    c->bytes_out = 8.0 * li;
    c->bytes_dev = c->bytes_in + c->bytes_out;
    c->launches = 1;
}

static size_t compare(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len)
{
    return rtm_nav_compare(a->host[RTM_TRAJ_XY], b->host[RTM_TRAJ_XY], (size_t)elems(a) * 2,
                           1e-5f, "xy", why, len);
}

static rtm_status_t csv_size(rtm_kinst_t *k, const char *text, char *why, size_t len)
{
    return rtm_nav_csv_size(k, text, 0, why, len);
}

static rtm_status_t csv_load(rtm_kinst_t *k, const char *text, char *why, size_t len)
{
    return rtm_nav_csv_load(text, k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), 0, why,
                            len);
}

static void csv_write(const rtm_kinst_t *k, FILE *out)
{
    const rtm_nav_own_t *own = k->host[RTM_NAV_OWN];
    const float *xy = k->host[RTM_TRAJ_XY];
    const uint32_t n = n_tgt(k), steps = n_steps(k);
    const double dt = (double)k->size[K_DT] / 1000.0;
    rtm_geo_plane_t plane;
    rtm_geo_plane_init(&plane, own->lat0, own->lon0);
    fprintf(out, "target,step,t_s,lat_deg,lon_deg\n");
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t s = 0; s < steps; s++) {
            const size_t e = (size_t)i * steps + s;
            double lat, lon;
            rtm_geo_from_plane(&plane, xy[2 * e], xy[2 * e + 1], &lat, &lon);
            fprintf(out, "%u,%u,%.3f,%.7f,%.7f\n", i + 1, s + 1, (double)(s + 1) * dt, lat, lon);
        }
    }
}

/* `rtmgr status` summary: tracks predicted, horizon, and the track passing closest to
 * the plane's origin (own ship's present position). */
static void summary(const rtm_kinst_t *k, char *buf, size_t len)
{
    const float *xy = k->host[RTM_TRAJ_XY];
    const float *live = (const float *)k->host[RTM_NAV_TGT] + (size_t)NAV_F_LIVE * n_tgt(k);
    const uint32_t steps = n_steps(k);
    const double dt = (double)k->size[K_DT] / 1000.0;
    uint32_t tracks = 0, bi = 0, bs = 0;
    double bd = -1.0;
    for (uint32_t i = 0; i < n_tgt(k); i++) {
        if (!(live[i] > 0.0f))
            continue;
        tracks++;
        for (uint32_t s = 0; s < steps; s++) {
            const float x = xy[2 * ((size_t)i * steps + s)], y = xy[2 * ((size_t)i * steps + s) + 1];
            const double d = sqrt((double)x * x + (double)y * y);
            if (d == d && (bd < 0.0 || d < bd))
                bd = d, bi = i, bs = s;
        }
    }
    if (bd < 0.0)
        snprintf(buf, len, "%u tracks predicted %.0f s ahead", tracks, dt * steps);
    else
        snprintf(buf, len, "%u tracks predicted %.0f s ahead; closest to own position: #%u, "
                           "%.2f nm at +%.0f s",
                 tracks, dt * steps, bi, bd / 1852.0, dt * (bs + 1));
}

const rtm_kernel_t rtm_kernel_trajectory = {
    .name = "trajectory",
    .source = "trajectory.cl",
    .entries = {"trajectory", NULL},
    .keys = {{"targets", 1, RTM_MAX_TARGETS, 1024, "targets predicted"},
             {"steps", 1, 4096, 360, "prediction steps"},
             {"dt_ms", 1, 600000, 2000, "step length (ms)"}},
    .n_keys = 3,
    .launch = rtm_kernel_launch_one,
    .args = rtm_kernel_args_bufs,
    RTM_NAV_KERNEL_HOOKS,
};
