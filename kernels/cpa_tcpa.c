/* cpa_tcpa.c — descriptor and CPU twin of cpa_tcpa.cl: straight-line CPA/TCPA of own
 * ship against every target, and the safety-domain flag.
 *
 * Buffers: own (rtm_nav_own_t), tgt (NAV_FIELDS x targets), then outputs cpa (float, m),
 * tcpa (float, s; negative when the closest point is past; 0 with the present range as
 * CPA when the relative speed is under 1 mm/s) and flag (uint: 1 when the target is
 * inside the domain now, or will pass closer than d_safe_m within 0..t_horizon_s).
 * Blocks: RTM_WG consecutive targets. The twin runs nav_velocity() and nav_cpa()
 * (kernels/nav_math.h) on the same targets: bit-identical on a conforming device;
 * compare() allows 1e-5 relative (of max(1, |y|)) on cpa and tcpa, flags exact.
 *
 * Cost counts per work-item (one target), read off the kernel body:
 *   block entry 2; index and bound 3; live load and test 2; own velocity 32 (2 loads,
 *   nav_sincos 28, 2 mul); target velocity 34 (2 loads, 2 address adds, 28, 2 mul);
 *   relative position 10 (2 target loads, 2 address adds, 2 own loads, 2 sub) and
 *   velocity 2; nav_cpa 17 (w.w 3, r.w 3, test 1, divide and negate 2, dx dy 4, square
 *   sum 3, sqrt 1); flag 10 (range^2 3, four compares, three logic ops); stores 3
 *   => Z = 115.
 * CPU classes: z_unit = 8 (live, 4 target fields, 3 stores: unit stride); own-ship
 * loads are the same address every item (register class); z_scalar = Z - 8 - 2 = 105.
 * An absent slot's item (k->absent, the last slots): entry, index, live test and the
 * three stores, 10 operations (z_unit 4: live and the stores; z_scalar 4); Z and z are
 * averaged over live and absent items.
 * md = 6 input floats per item; li = targets; bytes in = 64 + 24 targets, out =
 * 12 targets; device traffic = in + out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/nav.h"
#include "rtmgr/geo.h"
#include "rtmgr/traffic.h"

enum { K_TARGETS, K_DSAFE, K_THORIZON };
enum { Z_ITEM = 2 + 3 + 2 + 32 + 34 + 10 + 2 + 17 + 10 + 3 };
/* an absent target's item: entry 2, index and bound 3, live 2, the three stores */
enum { Z_DEAD = 2 + 3 + 2 + 3 };

static uint32_t n_tgt(const rtm_kinst_t *k) { return (uint32_t)k->size[K_TARGETS]; }
static uint32_t blocks(const rtm_kinst_t *k) { return (n_tgt(k) + k->tune.wg - 1) / k->tune.wg; }

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const size_t n = n_tgt(k);
    p->n_bufs = 5;
    p->buf[RTM_NAV_OWN] = (rtm_bufspec_t){sizeof(rtm_nav_own_t), RTM_BUF_IN};
    p->buf[RTM_NAV_TGT] = (rtm_bufspec_t){rtm_nav_tgt_bytes(n_tgt(k)), RTM_BUF_IN};
    p->buf[RTM_CPA_CPA] = (rtm_bufspec_t){n * sizeof(float), RTM_BUF_OUT};
    p->buf[RTM_CPA_TCPA] = (rtm_bufspec_t){n * sizeof(float), RTM_BUF_OUT};
    p->buf[RTM_CPA_FLAG] = (rtm_bufspec_t){n * sizeof(uint32_t), RTM_BUF_OUT};
    p->launches = 1;
    p->blocks_max = blocks(k);
    return RTM_OK;
}

static void options(const rtm_kinst_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "-cl-fp32-correctly-rounded-divide-sqrt -DNAV_N=%uu -DNAV_DSAFE_M=%lld "
                       "-DNAV_THORIZON_S=%lld",
             n_tgt(k), (long long)k->size[K_DSAFE], (long long)k->size[K_THORIZON]);
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    k->absent = 0;
    rtm_nav_fill(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), seed, 20000.0f);
    for (uint32_t b = RTM_CPA_CPA; b <= RTM_CPA_FLAG; b++)
        memset(k->host[b], 0, k->plan.buf[b].bytes);
}

static void load_traffic(rtm_kinst_t *k, const rtm_traffic_t *t)
{
    k->absent = rtm_nav_load_traffic(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), t, 0);
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const uint32_t n = n_tgt(k);
    const float *own = k->host[RTM_NAV_OWN];
    const float *tgt = k->host[RTM_NAV_TGT];
    float *cpa = k->host[RTM_CPA_CPA], *tcpa = k->host[RTM_CPA_TCPA];
    uint32_t *flag = k->host[RTM_CPA_FLAG];
    const float d_safe = (float)k->size[K_DSAFE];
    const float horizon = (float)k->size[K_THORIZON];
    for (uint32_t lid = 0; lid < k->tune.wg; lid++) {
        const uint32_t i = blk * k->tune.wg + lid;
        if (i >= n)
            break;
        float c = NAN, t = NAN;
        uint32_t f = 0;
        if (tgt[NAV_F_LIVE * n + i] != 0.0f) {
            float ovx, ovy, tvx, tvy;
            nav_velocity(own[NAV_F_SOG], own[NAV_F_COG], &ovx, &ovy);
            nav_velocity(tgt[NAV_F_SOG * n + i], tgt[NAV_F_COG * n + i], &tvx, &tvy);
            const float rx = tgt[NAV_F_X * n + i] - own[NAV_F_X];
            const float ry = tgt[NAV_F_Y * n + i] - own[NAV_F_Y];
            nav_cpa(rx, ry, tvx - ovx, tvy - ovy, &c, &t);
            const float range2 = rx * rx + ry * ry;
            f = (range2 < d_safe * d_safe || (c < d_safe && t >= 0.0f && t <= horizon)) ? 1u : 0u;
        }
        cpa[i] = c;
        tcpa[i] = t;
        flag[i] = f;
    }
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = n_tgt(k);
    memset(c, 0, sizeof(*c));
    c->li = n;
    rtm_nav_item_ops(k, n_tgt(k), Z_ITEM, 8.0, Z_DEAD, 4.0, c);
    c->md = 6.0;
    c->bytes_in = (double)sizeof(rtm_nav_own_t) + 24.0 * n;
    c->bytes_out = 12.0 * n;
    c->bytes_dev = c->bytes_in + c->bytes_out;
    c->launches = 1;
}

static size_t compare(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len)
{
    const size_t n = n_tgt(a);
    size_t bad = rtm_nav_compare(a->host[RTM_CPA_CPA], b->host[RTM_CPA_CPA], n, 1e-5f, "cpa",
                                 why, len);
    bad += rtm_nav_compare(a->host[RTM_CPA_TCPA], b->host[RTM_CPA_TCPA], n, 1e-5f, "tcpa",
                           bad ? NULL : why, len);
    bad += rtm_compare_u32(a->host[RTM_CPA_FLAG], b->host[RTM_CPA_FLAG], n, bad ? NULL : why,
                           len);
    return bad;
}

static rtm_status_t csv_size(rtm_kinst_t *k, const char *text, char *why, size_t len)
{
    return rtm_nav_csv_size(k, text, 1, why, len);
}

static rtm_status_t csv_load(rtm_kinst_t *k, const char *text, char *why, size_t len)
{
    return rtm_nav_csv_load(text, k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), 1, why,
                            len);
}

static void csv_write(const rtm_kinst_t *k, FILE *out)
{
    const float *cpa = k->host[RTM_CPA_CPA], *tcpa = k->host[RTM_CPA_TCPA];
    fprintf(out, "target,cpa_nm,tcpa_s\n");
    for (uint32_t i = 0; i < n_tgt(k); i++)
        fprintf(out, "%u,%.4f,%.1f\n", i + 1, (double)cpa[i] / RTM_GEO_NM, (double)tcpa[i]);
}

/* `rtmgr status` summary: flagged targets ranked by TCPA (the five soonest that are
 * still ahead), with their CPA. Slot indices are the picture's target indices. */
static void summary(const rtm_kinst_t *k, char *buf, size_t len)
{
    enum { TOP = 5 };
    const float *cpa = k->host[RTM_CPA_CPA], *tcpa = k->host[RTM_CPA_TCPA];
    const uint32_t *flag = k->host[RTM_CPA_FLAG];
    uint32_t best[TOP], nb = 0, flagged = 0;
    for (uint32_t i = 0; i < n_tgt(k); i++) {
        if (!flag[i] || !(tcpa[i] >= 0.0f))
            continue;
        flagged++;
        uint32_t j = nb < TOP ? nb++ : TOP;
        while (j > 0 && tcpa[best[j - 1]] > tcpa[i]) {
            if (j < TOP)
                best[j] = best[j - 1];
            j--;
        }
        if (j < TOP)
            best[j] = i;
    }
    int n = snprintf(buf, len, "threats by TCPA: %u flagged of %u", flagged, n_tgt(k));
    for (uint32_t r = 0; r < nb && n > 0 && (size_t)n < len; r++) {
        const uint32_t i = best[r];
        n += snprintf(buf + n, len - (size_t)n, "%s#%u tcpa %.1f min cpa %.2f nm", r ? "; " : ": ",
                      i, (double)tcpa[i] / 60.0, (double)cpa[i] / 1852.0);
    }
}

const rtm_kernel_t rtm_kernel_cpa_tcpa = {
    .name = "cpa_tcpa",
    .source = "cpa_tcpa.cl",
    .entries = {"cpa_tcpa", NULL},
    .keys = {{"targets", 1, RTM_MAX_TARGETS, 1024, "targets checked against own ship"},
             {"d_safe_m", 1, 100000, 1852, "safety distance (m)"},
             {"t_horizon_s", 1, 86400, 1200, "time horizon of the domain test (s)"}},
    .n_keys = 3,
    .launch = rtm_kernel_launch_one,
    .args = rtm_kernel_args_bufs,
    RTM_NAV_KERNEL_HOOKS,
};
