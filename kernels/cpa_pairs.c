/* cpa_pairs.c — descriptor and CPU twin of cpa_pairs.cl: closest approach within the
 * horizon of every pair of `ships` ships, reduced per ship (traffic monitoring; with a
 * traffic picture ship 0 is own ship and the targets follow).
 *
 * Per ship i the outputs are: of[i] = (smallest closest-approach distance to any other
 * ship within 0..t_horizon_s, in m; its time in s), ou[i] = (that partner's index or
 * 0xffffffff, the number of partners whose closest approach is under d_safe_m, the first
 * RTM_PAIRS_LIST such partners by index, padded with 0xffffffff). Distances compare
 * squared (d^2 < d_safe^2). Output is 32 bytes per ship, never an N x N matrix.
 *
 * Launch 0 (cpa_pairs_part): blocks = chunks x row blocks; a chunk is `tiles` tiles of
 * wg columns; tiles = clamp(row_blocks / 8, 1, 16), so there are about 8 chunks and
 * enough blocks to fill a large GPU (16 384 ships, wg 128: 128 row blocks x 8 chunks of
 * 2048 columns = 1024 blocks). Launch 1 (cpa_pairs_reduce): one work-item per ship.
 * The twin stages each tile exactly like the kernel (nav_velocity, NaN for absent ships)
 * and scans the columns in the same ascending order with the same nav_pair_d2()
 * (kernels/nav_math.h), so results are bit-identical on a conforming device; compare()
 * allows 1e-5 relative on distances and times, and exact on the integer outputs (a
 * device that contracts to FMA may flip a pair sitting exactly on d_safe).
 *
 * Cost counts, from the kernel bodies:
 *   pair (inner loop body): local float4 load 1, column index 1, relative position and
 *   velocity 4, nav_pair_d2 20 (w.w 3, r.w 3, test 1, divide and negate 2, clamp 4,
 *   dx dy 4, square sum 3), self test 1, minimum test and 3 selects 4, domain test 1,
 *   loop 2 => 34;
 *   tile, per work-item: bound and live 3, nav_velocity 30, 4 loads + 4 address adds,
 *   local store 1, poll 1, two barriers 2, loop 3 => 48;
 *   row set-up 45 and partial stores 7 per launch-0 work-item;
 *   reduce, per work-item and chunk: 2 loads, test, 3 selects, count load, list merge 4,
 *   add => 12; plus sqrt and 8 stores.
 * Pairs: the live rows (in whole warps) against the live columns (absent ships, from
 * n_live on, are skipped: see cpa_pairs.cl); tiles: those up to the last live column.
 * li = work-items of both launches (rows padded to wg, times chunks, plus rows);
 * Z = all operations / li. CPU classes: per pair z_unit = 1 (the staged column, unit
 * stride), the rest register arithmetic. md = 6 floats per ship. Bytes in = 64 + 24
 * ships, out = 32 ships; device traffic = every block reads its chunk's columns (20 B
 * each) + partials written and read (32 B per ship per chunk, twice) + outputs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/nav.h"
#include "rtmgr/geo.h"
#include "rtmgr/traffic.h"

enum { K_SHIPS, K_DSAFE, K_THORIZON };
enum { Z_PAIR = 34, Z_TILE = 48, Z_ROW = 45 + 7, Z_RED_CHUNK = 12, Z_RED = 9 };
#define NONE 0xffffffffu
#define WG_MAX 256u

static uint32_t n_ships(const rtm_kinst_t *k) { return (uint32_t)k->size[K_SHIPS]; }
static uint32_t row_blocks(const rtm_kinst_t *k) { return (n_ships(k) + k->tune.wg - 1) / k->tune.wg; }
static uint32_t tiles(const rtm_kinst_t *k)
{
    const uint32_t t = row_blocks(k) / 8;
    return t < 1 ? 1 : t > 16 ? 16 : t;
}
static uint32_t cols(const rtm_kinst_t *k) { return tiles(k) * k->tune.wg; }
static uint32_t chunks(const rtm_kinst_t *k) { return (n_ships(k) + cols(k) - 1) / cols(k); }

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    if (k->tune.wg > WG_MAX)
        return RTM_E_RANGE;
    const size_t n = n_ships(k), c = chunks(k);
    p->n_bufs = 6;
    p->buf[RTM_NAV_OWN] = (rtm_bufspec_t){sizeof(rtm_nav_own_t), RTM_BUF_IN};
    p->buf[RTM_NAV_TGT] = (rtm_bufspec_t){rtm_nav_tgt_bytes(n_ships(k)), RTM_BUF_IN};
    p->buf[RTM_PAIRS_PF] = (rtm_bufspec_t){c * n * 2 * sizeof(float), RTM_BUF_SCRATCH};
    p->buf[RTM_PAIRS_PU] = (rtm_bufspec_t){c * n * RTM_PAIRS_U * sizeof(uint32_t), RTM_BUF_SCRATCH};
    p->buf[RTM_PAIRS_OF] = (rtm_bufspec_t){n * 2 * sizeof(float), RTM_BUF_OUT};
    p->buf[RTM_PAIRS_OU] = (rtm_bufspec_t){n * RTM_PAIRS_U * sizeof(uint32_t), RTM_BUF_OUT};
    p->launches = 2;
    p->blocks_max = row_blocks(k) * chunks(k);
    return RTM_OK;
}

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    out->entry = l;
    out->blocks = l == 0 ? row_blocks(k) * chunks(k) : row_blocks(k);
}

/* Ships before the absent slots (all of them with fill()'s data). */
static uint32_t n_live(const rtm_kinst_t *k)
{
    return k->absent < n_ships(k) ? n_ships(k) - k->absent : 0;
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    const uint32_t first = l == 0 ? RTM_NAV_OWN : RTM_PAIRS_PF;
    for (uint32_t i = 0; i < 4; i++)
        out[i] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = first + i};
    if (l != 0)
        return 4;
    const uint32_t live = n_live(k);
    out[4] = (rtm_karg_t){.kind = RTM_KARG_VALUE, .bytes = sizeof(live)};
    memcpy(out[4].value, &live, sizeof(live));
    return 5;
}

static void options(const rtm_kinst_t *k, char *buf, size_t len)
{
    snprintf(buf, len, "-cl-fp32-correctly-rounded-divide-sqrt -DNAV_N=%uu -DNAV_DSAFE_M=%lld "
                       "-DNAV_THORIZON_S=%lld -DNAV_RB=%uu -DNAV_TILES=%uu -DNAV_CHUNKS=%uu",
             n_ships(k), (long long)k->size[K_DSAFE], (long long)k->size[K_THORIZON],
             row_blocks(k), tiles(k), chunks(k));
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    k->absent = 0;
    /* Density like a busy strait: ships in a disc that grows with their number. */
    const float radius = 2000.0f * sqrtf((float)n_ships(k));
    rtm_nav_fill(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_ships(k), seed, radius);
    for (uint32_t b = RTM_PAIRS_PF; b <= RTM_PAIRS_OU; b++)
        memset(k->host[b], 0, k->plan.buf[b].bytes);
}

static void load_traffic(rtm_kinst_t *k, const rtm_traffic_t *t)
{
    k->absent = rtm_nav_load_traffic(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_ships(k), t, 1);
}

/* Per-row state of launch 0. */
typedef struct {
    float best, tbest;
    uint32_t jbest, cnt, list[RTM_PAIRS_LIST];
} row_t;

static void part_block(const rtm_kinst_t *k, uint32_t blk)
{
    const uint32_t n = n_ships(k), wg = k->tune.wg, rb = row_blocks(k);
    const float *tgt = k->host[RTM_NAV_TGT];
    float *pf = k->host[RTM_PAIRS_PF];
    uint32_t *pu = k->host[RTM_PAIRS_PU];
    const float tmax = (float)k->size[K_THORIZON];
    const float d2safe = (float)k->size[K_DSAFE] * (float)k->size[K_DSAFE];
    const uint32_t chunk = blk / rb, row0 = (blk - chunk * rb) * wg;
    float sh[WG_MAX][4], xi[WG_MAX], yi[WG_MAX], vxi[WG_MAX], vyi[WG_MAX];
    row_t r[WG_MAX];
    const uint32_t live = n_live(k);
    for (uint32_t lid = 0; lid < wg; lid++) {
        const uint32_t i = row0 + lid;
        xi[lid] = yi[lid] = NAN;
        vxi[lid] = vyi[lid] = 0.0f;
        if (i < live && tgt[NAV_F_LIVE * n + i] != 0.0f) {
            xi[lid] = tgt[NAV_F_X * n + i];
            yi[lid] = tgt[NAV_F_Y * n + i];
            nav_velocity(tgt[NAV_F_SOG * n + i], tgt[NAV_F_COG * n + i], &vxi[lid], &vyi[lid]);
        }
        r[lid] = (row_t){INFINITY, 0.0f, NONE, 0, {NONE, NONE, NONE, NONE}};
    }
    for (uint32_t tile = 0; tile < tiles(k); tile++) {
        const uint32_t j0 = chunk * cols(k) + tile * wg;
        if (j0 >= live)
            break;
        for (uint32_t lid = 0; lid < wg; lid++) {
            const uint32_t jl = j0 + lid;
            float *v = sh[lid];
            v[0] = v[1] = NAN;
            v[2] = v[3] = 0.0f;
            if (jl < n && tgt[NAV_F_LIVE * n + jl] != 0.0f) {
                nav_velocity(tgt[NAV_F_SOG * n + jl], tgt[NAV_F_COG * n + jl], &v[2], &v[3]);
                v[0] = tgt[NAV_F_X * n + jl];
                v[1] = tgt[NAV_F_Y * n + jl];
            }
        }
        const uint32_t cols_live = live - j0 < wg ? live - j0 : wg;
        for (uint32_t lid = 0; lid < wg; lid++) {
            const uint32_t i = row0 + lid;
            row_t *q = &r[lid];
            const uint32_t jn = isnan(xi[lid]) ? 0 : cols_live; /* 0: absent row */
            for (uint32_t jj = 0; jj < jn; jj++) {
                const float *s = sh[jj];
                const uint32_t j = j0 + jj;
                float t;
                const float d2 = nav_pair_d2(s[0] - xi[lid], s[1] - yi[lid], s[2] - vxi[lid],
                                             s[3] - vyi[lid], tmax, &t);
                if (j != i) {
                    if (d2 < q->best) {
                        q->best = d2;
                        q->tbest = t;
                        q->jbest = j;
                    }
                    if (d2 < d2safe) {
                        if (q->cnt < RTM_PAIRS_LIST)
                            q->list[q->cnt] = j;
                        q->cnt++;
                    }
                }
            }
        }
    }
    for (uint32_t lid = 0; lid < wg; lid++) {
        const uint32_t i = row0 + lid;
        if (i >= n)
            break;
        const size_t p = (size_t)chunk * n + i;
        pf[2 * p] = r[lid].best;
        pf[2 * p + 1] = r[lid].tbest;
        uint32_t *u = pu + p * RTM_PAIRS_U;
        u[0] = r[lid].jbest;
        u[1] = r[lid].cnt;
        memcpy(u + 2, r[lid].list, sizeof(r[lid].list));
    }
}

static void reduce_block(const rtm_kinst_t *k, uint32_t blk)
{
    const uint32_t n = n_ships(k);
    const float *pf = k->host[RTM_PAIRS_PF];
    const uint32_t *pu = k->host[RTM_PAIRS_PU];
    float *of = k->host[RTM_PAIRS_OF];
    uint32_t *ou = k->host[RTM_PAIRS_OU];
    for (uint32_t lid = 0; lid < k->tune.wg; lid++) {
        const uint32_t i = blk * k->tune.wg + lid;
        if (i >= n)
            break;
        row_t q = {INFINITY, 0.0f, NONE, 0, {NONE, NONE, NONE, NONE}};
        for (uint32_t c = 0; c < chunks(k); c++) {
            const size_t p = (size_t)c * n + i;
            const uint32_t *u = pu + p * RTM_PAIRS_U;
            if (pf[2 * p] < q.best) {
                q.best = pf[2 * p];
                q.tbest = pf[2 * p + 1];
                q.jbest = u[0];
            }
            for (uint32_t s = 0; s < RTM_PAIRS_LIST && s < u[1]; s++)
                if (q.cnt + s < RTM_PAIRS_LIST)
                    q.list[q.cnt + s] = u[2 + s];
            q.cnt += u[1];
        }
        of[2 * (size_t)i] = sqrtf(q.best);
        of[2 * (size_t)i + 1] = q.tbest;
        uint32_t *o = ou + (size_t)i * RTM_PAIRS_U;
        o[0] = q.jbest;
        o[1] = q.cnt;
        memcpy(o + 2, q.list, sizeof(q.list));
    }
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    if (l == 0)
        part_block(k, blk);
    else
        reduce_block(k, blk);
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = n_ships(k), wg = k->tune.wg, rows = (double)row_blocks(k) * wg;
    const double live = n_live(k), ch = chunks(k);
    const double items0 = rows * ch, items1 = rows;
    /* Pairs computed: the live rows, in whole warps of 32 on a GPU (an absent row's lane
     * idles beside them), each against the live columns. Tiles staged per launch-0
     * work-item: those up to the last live column, ceil(live / wg) over the chunks. */
    const double scanning = fmin(rows, ceil(live / 32.0) * 32.0);
    const double tiles_live = ceil(live / wg);
    const double ops = scanning * live * Z_PAIR + rows * tiles_live * Z_TILE +
                       items0 * Z_ROW + items1 * (ch * Z_RED_CHUNK + Z_RED);
    memset(c, 0, sizeof(*c));
    c->li = items0 + items1;
    c->Z = ops / c->li;
    c->z[RTM_LOC_UNIT] = scanning * live / c->li;
    c->z[RTM_LOC_SCALAR] = c->Z - c->z[RTM_LOC_UNIT];
    c->md = 6.0;
    c->bytes_in = (double)sizeof(rtm_nav_own_t) + 24.0 * n;
    c->bytes_out = 8.0 * n + 4.0 * RTM_PAIRS_U * n;
    c->bytes_dev = c->bytes_in + row_blocks(k) * tiles_live * wg * 20.0 +
                   2.0 * ch * n * (8.0 + 4.0 * RTM_PAIRS_U) + c->bytes_out;
    c->launches = 2;
}

static size_t compare(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len)
{
    const size_t n = n_ships(a);
    size_t bad = rtm_nav_compare(a->host[RTM_PAIRS_OF], b->host[RTM_PAIRS_OF], 2 * n, 1e-5f,
                                 "cpa_pairs (d, t)", why, len);
    bad += rtm_compare_u32(a->host[RTM_PAIRS_OU], b->host[RTM_PAIRS_OU], RTM_PAIRS_U * n,
                           bad ? NULL : why, len);
    return bad;
}

static rtm_status_t csv_size(rtm_kinst_t *k, const char *text, char *why, size_t len)
{
    return rtm_nav_csv_size(k, text, 0, why, len);
}

static rtm_status_t csv_load(rtm_kinst_t *k, const char *text, char *why, size_t len)
{
    return rtm_nav_csv_load(text, k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_ships(k), 0,
                            why, len);
}

static void csv_write(const rtm_kinst_t *k, FILE *out)
{
    const float *of = k->host[RTM_PAIRS_OF];
    const uint32_t *ou = k->host[RTM_PAIRS_OU];
    fprintf(out, "ship,min_cpa_nm,t_min_s,partner,pairs_in_domain\n");
    for (uint32_t i = 0; i < n_ships(k); i++) {
        const uint32_t *u = ou + (size_t)i * RTM_PAIRS_U;
        fprintf(out, "%u,%.4f,%.1f,%u,%u\n", i + 1, (double)of[2 * i] / RTM_GEO_NM,
                (double)of[2 * i + 1], u[0] == NONE ? 0u : u[0] + 1u, u[1]);
    }
}

/* `rtmgr status` summary: ships with a partner inside the domain, and the closest pair. */
static void summary(const rtm_kinst_t *k, char *buf, size_t len)
{
    const float *of = k->host[RTM_PAIRS_OF];
    const uint32_t *ou = k->host[RTM_PAIRS_OU];
    uint32_t crowded = 0, bi = 0;
    double bd = -1.0, bt = 0.0;
    for (uint32_t i = 0; i < n_ships(k); i++) {
        const uint32_t *u = ou + (size_t)i * RTM_PAIRS_U;
        crowded += u[1] > 0;
        const double d = of[2 * i];
        if (u[0] != 0xffffffffu && d == d && (bd < 0.0 || d < bd))
            bd = d, bt = of[2 * i + 1], bi = i;
    }
    if (bd < 0.0)
        snprintf(buf, len, "%u ships, no closest approach within the horizon", n_ships(k));
    else
        snprintf(buf, len, "%u ships, %u with a partner inside %lld m; closest pair #%u-#%u: "
                           "%.2f nm at %.1f min",
                 n_ships(k), crowded, (long long)k->size[K_DSAFE], bi,
                 ou[(size_t)bi * RTM_PAIRS_U], bd / 1852.0, bt / 60.0);
}

const rtm_kernel_t rtm_kernel_cpa_pairs = {
    .name = "cpa_pairs",
    .source = "cpa_pairs.cl",
    .entries = {"cpa_pairs_part", "cpa_pairs_reduce", NULL},
    .keys = {{"ships", 2, RTM_MAX_TARGETS, 1024, "ships checked pairwise"},
             {"d_safe_m", 1, 100000, 1852, "safety distance (m)"},
             {"t_horizon_s", 1, 86400, 1200, "time horizon (s)"}},
    .n_keys = 3,
    .launch = launch,
    .args = args,
    RTM_NAV_KERNEL_HOOKS,
};
