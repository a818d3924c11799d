/* manoeuvre.c — descriptors and CPU twin of manoeuvre.cl: the SB-MPC-style search over a
 * grid of own-ship manoeuvres (`manoeuvre`) and the last-chance search of COLREG Rule
 * 17(b) (`last_chance`, same source built with -DNAV_LAST=1), plus the host ranking.
 *
 * Candidates: `courses` (odd) course offsets spread evenly over +-90 deg (last chance:
 * +-180 deg, i.e. hard turns either way up to the reciprocal course) times `speeds` speed
 * factors from 1 down to 0 (3: 1, 0.5, 0); m = speed index * courses + course index, so
 * m = (courses - 1) / 2 is "keep course and speed". Own ship under manoeuvre m: speed
 * changes at once (as in SB-MPC), the course turns at turn_mdeg_s to the new course,
 * then straight. Targets follow CTRV from their present state.
 *
 * Cost of m = max over targets of [risk + COLREGs penalty] + deviation(m), with
 *   risk     = 100 (2 - dmin / d_safe) T / (T + tmin) when the predicted closest distance
 *              dmin to the target over the horizon T = steps * dt is under d_safe (at
 *              least 50: any violation outweighs every penalty and deviation below);
 *   penalty  = 20 for a port turn when own ship gives way to starboard (head-on, Rule 14;
 *              crossing with the target on the starboard side, Rule 15); 5 for any change
 *              of course or speed when own ship stands on (crossing from port; being
 *              overtaken, Rule 17(a)(i)); none when overtaking (either side, Rule 13) or
 *              when no risk exists (straight-line CPA above 2 d_safe or outside 0..T).
 *              Last chance: only 5 for a port turn towards a target on own port side
 *              (Rule 17(c));
 *   deviation = 4 (off / 90 deg)^2 to starboard, 6 (off / 90 deg)^2 to port, plus
 *              3 (1 - speed factor); scaled by 0.1 in last-chance mode.
 * The maximum over targets (not a sum) follows SB-MPC; it makes the reduction order free,
 * so the device and the twin agree exactly. Outputs per manoeuvre: float4 (cost, dmin m,
 * tmin s, index of the closest target or -1). rtm_nav_rank() orders candidates by cost,
 * ties by index; identical costs give identical ranks on every device.
 *
 * Blocks: launch 0 = courses * speeds * tiles blocks (manoeuvre-major), a tile being wg
 * targets; launch 1 = one work-item per manoeuvre. wg: power of two, <= 256; steps <= 1024
 * (own path in local memory, 8 bytes a step). The twin computes each block's own path and
 * each work-item's target with the same nav_math.h functions and step loop as the kernel:
 * bit-identical on a conforming device; compare() allows 1e-5 relative on the outputs.
 *
 * Cost counts, from the kernel bodies (per launch-0 work-item):
 *   entry 2, ids 4, nav_manoeuvre 10, own loads 4;
 *   own path: steps / wg points each, nav_own_pos 80 (turn time 2, sign 1, test 1, CTRV
 *   arc with sinc through sincos 68, straight leg sincos 28 + 4, but one of the two
 *   branches: counted as the longer one) + store and loop 4 => 84 per point; barrier 1;
 *   target set-up: bound and live 3, 5 loads + 5 address adds, two nav_sincos 56,
 *   nav_target_role 59 (velocities 6, nav_cpa 17, port side 4, tests 5, nav_role 27),
 *   nav_ctrv_step_init 72 => 200;
 *   per step: nav_ctrv_step 10, path load 1, dx dy 2, d^2 3, test and 2 selects 3, poll
 *   test 2, loop 2 => 23;
 *   after the loop: sqrt 1, tmin 3, nav_target_cost 15; reduction: 4 local stores,
 *   log2(wg) rounds of 7 (two tests, up to 4 moves, barrier); final store 5.
 * Launch 1 per work-item: nav_manoeuvre 10, per tile 7 (load, 2 tests, 4 selects),
 * nav_deviation 8, store 1.
 * li = work-items of both launches; Z = all operations / li. CPU classes count what the
 * twin runs (eq. 1's z: CPU operations per li): per block its own path once (steps * 84
 * + head), per live target (not per padded work-item: a partial tile's padding is
 * skipped) 200 + steps * 23 + tail + 2 compares, plus launch 1; the path load of each
 * step and the 5 target loads are unit stride (z_unit), the rest register arithmetic. md = 6 floats per target. Bytes in = 64 + 24 targets, out =
 * 16 per manoeuvre; device traffic = every block reads its tile (24 B per target, so
 * 24 targets * manoeuvres) + partials written and read (16 B each) + outputs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/nav.h"
#include "rtmgr/geo.h"
#include "rtmgr/traffic.h"

enum { K_TARGETS, K_STEPS, K_DT, K_COURSES, K_SPEEDS, K_DSAFE, K_TURN };
enum {
    Z_HEAD = 2 + 4 + 10 + 4,
    Z_OWNPOINT = 84,
    Z_TARGET = 200,
    Z_STEP = 23,
    Z_TAIL = 1 + 3 + 15 + 4 + 5,
    Z_ROUND = 7,
    Z_RED_HEAD = 10 + 8 + 1,
    Z_RED_TILE = 7,
};
#define NONE 0xffffffffu
#define WG_MAX 256u
#define STEPS_MAX 1024

static int is_last(const rtm_kinst_t *k) { return k->kernel == &rtm_kernel_last_chance; }
static uint32_t n_tgt(const rtm_kinst_t *k) { return (uint32_t)k->size[K_TARGETS]; }
static uint32_t n_steps(const rtm_kinst_t *k) { return (uint32_t)k->size[K_STEPS]; }
static uint32_t n_courses(const rtm_kinst_t *k) { return (uint32_t)k->size[K_COURSES]; }
static uint32_t n_speeds(const rtm_kinst_t *k) { return (uint32_t)k->size[K_SPEEDS]; }
static uint32_t n_man(const rtm_kinst_t *k) { return n_courses(k) * n_speeds(k); }
static uint32_t n_tiles(const rtm_kinst_t *k) { return (n_tgt(k) + k->tune.wg - 1) / k->tune.wg; }
static uint32_t red_blocks(const rtm_kinst_t *k) { return (n_man(k) + k->tune.wg - 1) / k->tune.wg; }
static float span(const rtm_kinst_t *k) { return is_last(k) ? NAV_PI : NAV_PI_2; }

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p)
{
    const uint32_t wg = k->tune.wg;
    if (wg > WG_MAX || (wg & (wg - 1)) != 0 || n_courses(k) % 2 == 0 || n_steps(k) > STEPS_MAX)
        return RTM_E_RANGE;
    p->n_bufs = 4;
    p->buf[RTM_NAV_OWN] = (rtm_bufspec_t){sizeof(rtm_nav_own_t), RTM_BUF_IN};
    p->buf[RTM_NAV_TGT] = (rtm_bufspec_t){rtm_nav_tgt_bytes(n_tgt(k)), RTM_BUF_IN};
    p->buf[RTM_MAN_PART] =
        (rtm_bufspec_t){(size_t)n_man(k) * n_tiles(k) * 4 * sizeof(float), RTM_BUF_SCRATCH};
    p->buf[RTM_MAN_OUT] = (rtm_bufspec_t){(size_t)n_man(k) * 4 * sizeof(float), RTM_BUF_OUT};
    p->launches = 2;
    const uint32_t b0 = n_man(k) * n_tiles(k), b1 = red_blocks(k);
    p->blocks_max = b0 > b1 ? b0 : b1;
    return RTM_OK;
}

static void launch(const rtm_kinst_t *k, uint32_t l, rtm_klaunch_t *out)
{
    out->entry = l;
    out->blocks = l == 0 ? n_man(k) * n_tiles(k) : red_blocks(k);
}

static uint32_t args(const rtm_kinst_t *k, uint32_t l, rtm_karg_t out[RTM_KARG_MAX])
{
    (void)k;
    if (l == 0) {
        for (uint32_t i = 0; i < 3; i++)
            out[i] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = RTM_NAV_OWN + i};
        return 3;
    }
    out[0] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = RTM_MAN_PART};
    out[1] = (rtm_karg_t){.kind = RTM_KARG_BUF, .buf = RTM_MAN_OUT};
    return 2;
}

static void options(const rtm_kinst_t *k, char *buf, size_t len)
{
    snprintf(buf, len,
             "-cl-fp32-correctly-rounded-divide-sqrt -DNAV_N=%uu -DNAV_STEPS=%uu -DNAV_DT_MS=%lld "
             "-DNAV_COURSES=%uu -DNAV_SPEEDS=%uu -DNAV_DSAFE_M=%lld -DNAV_TURN_MDEG=%lld "
             "-DNAV_TILES=%uu -DNAV_LAST=%d",
             n_tgt(k), n_steps(k), (long long)k->size[K_DT], n_courses(k), n_speeds(k),
             (long long)k->size[K_DSAFE], (long long)k->size[K_TURN], n_tiles(k), is_last(k));
}

static void fill(rtm_kinst_t *k, uint64_t seed)
{
    k->absent = 0;
    rtm_nav_fill(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), seed, 15000.0f);
    memset(k->host[RTM_MAN_PART], 0, k->plan.buf[RTM_MAN_PART].bytes);
    memset(k->host[RTM_MAN_OUT], 0, k->plan.buf[RTM_MAN_OUT].bytes);
}

static void load_traffic(rtm_kinst_t *k, const rtm_traffic_t *t)
{
    k->absent = rtm_nav_load_traffic(k->host[RTM_NAV_OWN], k->host[RTM_NAV_TGT], n_tgt(k), t, 0);
}

/* Block (m, tile) of launch 0: what manoeuvre_eval computes, work-item by work-item. */
static void eval_block(const rtm_kinst_t *k, uint32_t blk)
{
    const uint32_t n = n_tgt(k), steps = n_steps(k), wg = k->tune.wg;
    const int last = is_last(k);
    const float *own = k->host[RTM_NAV_OWN];
    const float *tgt = k->host[RTM_NAV_TGT];
    float *part = k->host[RTM_MAN_PART];
    const uint32_t m = blk / n_tiles(k);
    const uint32_t i0 = (blk - m * n_tiles(k)) * wg;
    const float dt = (float)k->size[K_DT] / 1000.0f;
    const float horizon = (float)steps * dt;
    const float d_safe = (float)k->size[K_DSAFE];
    const float turn = (float)k->size[K_TURN] * NAV_RAD_PER_MDEG;
    float off, fac;
    nav_manoeuvre(m, n_courses(k), n_speeds(k), span(k), &off, &fac);
    const float ox = own[NAV_F_X], oy = own[NAV_F_Y];
    const float osog = own[NAV_F_SOG], ocog = own[NAV_F_COG];
    float pathx[STEPS_MAX], pathy[STEPS_MAX];
    for (uint32_t s = 0; s < steps; s++)
        nav_own_pos(ox, oy, osog, ocog, off, fac, turn, (float)(s + 1u) * dt, &pathx[s],
                    &pathy[s]);

    float rc = 0.0f, rd = INFINITY, rt = 0.0f;
    uint32_t ri = NONE;
    for (uint32_t lid = 0; lid < wg; lid++) {
        const uint32_t i = i0 + lid;
        if (i >= n || tgt[NAV_F_LIVE * n + i] == 0.0f)
            continue;
        const float tx = tgt[NAV_F_X * n + i], ty = tgt[NAV_F_Y * n + i];
        const float tsog = tgt[NAV_F_SOG * n + i], tcog = tgt[NAV_F_COG * n + i];
        const float trot = tgt[NAV_F_ROT * n + i];
        float os, oc, ts, tc;
        nav_sincos(ocog, &os, &oc);
        nav_sincos(tcog, &ts, &tc);
        int port_side;
        const int role = nav_target_role(tx - ox, ty - oy, osog, os, oc, tsog, ts, tc, d_safe,
                                         horizon, &port_side);
        nav_ctrv_step_t st;
        nav_ctrv_step_init(&st, tsog, tcog, trot, dt);
        float px = tx, py = ty, best = INFINITY;
        uint32_t kb = 0;
        for (uint32_t s = 0; s < steps; s++) {
            nav_ctrv_step(&st, &px, &py);
            const float dx = px - pathx[s], dy = py - pathy[s];
            const float d2 = dx * dx + dy * dy;
            if (d2 < best) {
                best = d2;
                kb = s;
            }
        }
        const float dmin = sqrtf(best);
        const float tmin = (float)(kb + 1u) * dt;
        const float c =
            nav_target_cost(dmin, tmin, d_safe, horizon, role, port_side, off, fac, last);
        /* Same result as the kernel's tree: max is exact, (distance, index) a total order. */
        if (c > rc)
            rc = c;
        if (dmin < rd || (dmin == rd && i < ri)) {
            rd = dmin;
            rt = tmin;
            ri = i;
        }
    }
    float *o = part + 4 * (size_t)blk;
    o[0] = rc;
    o[1] = rd;
    o[2] = rt;
    o[3] = ri == NONE ? -1.0f : (float)ri;
}

static void reduce_block(const rtm_kinst_t *k, uint32_t blk)
{
    const float *part = k->host[RTM_MAN_PART];
    float *out = k->host[RTM_MAN_OUT];
    const uint32_t tiles = n_tiles(k);
    for (uint32_t lid = 0; lid < k->tune.wg; lid++) {
        const uint32_t m = blk * k->tune.wg + lid;
        if (m >= n_man(k))
            break;
        float off, fac;
        nav_manoeuvre(m, n_courses(k), n_speeds(k), span(k), &off, &fac);
        float c = 0.0f, d = INFINITY, t = 0.0f, who = -1.0f;
        for (uint32_t tile = 0; tile < tiles; tile++) {
            const float *p = part + 4 * ((size_t)m * tiles + tile);
            if (p[0] > c)
                c = p[0];
            if (p[1] < d) {
                d = p[1];
                t = p[2];
                who = p[3];
            }
        }
        float *o = out + 4 * (size_t)m;
        o[0] = c + nav_deviation(off, fac, is_last(k));
        o[1] = d;
        o[2] = t;
        o[3] = who;
    }
}

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    if (l == 0)
        eval_block(k, blk);
    else
        reduce_block(k, blk);
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double wg = k->tune.wg, steps = n_steps(k), man = n_man(k), tiles = n_tiles(k);
    const double items0 = man * tiles * wg, items1 = red_blocks(k) * wg;
    /* a live target's item, and the part of it an absent slot skips (all but the bound
     * and live test of Z_TARGET, the steps, and sqrt, tmin and the target cost of
     * Z_TAIL); k->absent: the last slots hold no target */
    const double target = Z_TARGET + steps * Z_STEP + Z_TAIL;
    const double skipped = Z_TARGET - 3.0 + steps * Z_STEP + 1.0 + 3.0 + 15.0;
    const double n_live = rtm_nav_live(k, n_tgt(k));
    const double per0 = Z_HEAD + ceil(steps / wg) * Z_OWNPOINT + 1 + target + log2(wg) * Z_ROUND;
    const double red = man * (Z_RED_HEAD + tiles * Z_RED_TILE);
    const double ops = items0 * per0 - man * ((double)n_tgt(k) - n_live) * skipped + red;
    /* the twin: each block's own path once (one thread), then only the live targets of
     * its tile (the padded items of a partial tile and the absent slots are skipped),
     * two compares each */
    const double live = man * n_live;
    const double twin = man * tiles * (Z_HEAD + steps * Z_OWNPOINT) +
                        live * (Z_TARGET + steps * Z_STEP + Z_TAIL + 2.0) + red;
    memset(c, 0, sizeof(*c));
    c->li = items0 + items1;
    c->Z = ops / c->li;
    c->z[RTM_LOC_UNIT] = live * (steps + 5.0) / c->li;
    c->z[RTM_LOC_SCALAR] = twin / c->li - c->z[RTM_LOC_UNIT];
    c->md = 6.0;
    c->bytes_in = (double)sizeof(rtm_nav_own_t) + 24.0 * n_tgt(k);
    c->bytes_out = 16.0 * man;
    c->bytes_dev = c->bytes_in + 24.0 * n_tgt(k) * man + 2.0 * 16.0 * man * tiles + c->bytes_out;
    c->launches = 2;
}

static size_t compare(const rtm_kinst_t *a, const rtm_kinst_t *b, char *why, size_t len)
{
    return rtm_nav_compare(a->host[RTM_MAN_OUT], b->host[RTM_MAN_OUT], 4 * (size_t)n_man(a),
                           1e-5f, "manoeuvre (cost, dmin, tmin, target)", why, len);
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
    uint32_t order[31 * 8];
    const uint32_t nm = rtm_nav_rank(k, order);
    fprintf(out, "rank,course_offset_deg,speed_factor,cost,min_cpa_nm,t_min_s,closest_target\n");
    for (uint32_t r = 0; r < nm; r++) {
        float off, fac;
        rtm_nav_manoeuvre_of(k, order[r], &off, &fac);
        const float *o = rtm_nav_manoeuvre_out(k, order[r]);
        fprintf(out, "%u,%.1f,%.2f,%.4f,%.4f,%.1f,%d\n", r + 1, (double)off * 180.0 / M_PI,
                (double)fac, (double)o[0], (double)o[1] / RTM_GEO_NM, (double)o[2],
                o[3] < 0.0f ? 0 : (int)o[3] + 1);
    }
}

uint32_t rtm_nav_manoeuvres(const rtm_kinst_t *k) { return n_man(k); }

void rtm_nav_manoeuvre_of(const rtm_kinst_t *k, uint32_t m, float *off, float *fac)
{
    nav_manoeuvre(m, n_courses(k), n_speeds(k), span(k), off, fac);
}

const float *rtm_nav_manoeuvre_out(const rtm_kinst_t *k, uint32_t m)
{
    return (const float *)k->host[RTM_MAN_OUT] + 4 * (size_t)m;
}

uint32_t rtm_nav_rank(const rtm_kinst_t *k, uint32_t *order)
{
    const uint32_t nm = n_man(k);
    const float *out = k->host[RTM_MAN_OUT];
    for (uint32_t m = 0; m < nm; m++) {
        uint32_t j = m;
        /* Insertion: stable, so equal costs keep the lower index first. */
        while (j > 0 && out[4 * (size_t)order[j - 1]] > out[4 * (size_t)m]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = m;
    }
    return nm;
}

#define MANOEUVRE_KEYS(steps_def, dt_def, dsafe_def, turn_def)                                \
    {{"targets", 1, RTM_MAX_TARGETS, 256, "targets evaluated"},                               \
     {"steps", 1, STEPS_MAX, steps_def, "prediction steps"},                                  \
     {"dt_ms", 10, 60000, dt_def, "step length (ms)"},                                        \
     {"courses", 1, 31, 13, "course offsets (odd)"},                                          \
     {"speeds", 1, 8, 3, "speed factors from 1 down to 0"},                                   \
     {"d_safe_m", 1, 20000, dsafe_def, "safety distance (m)"},                                \
     {"turn_mdeg_s", 100, 20000, turn_def, "own rate of turn (millidegrees/s)"}}

/* `rtmgr status` summary: the chosen manoeuvre (lowest cost, ties by index, as
 * rtm_nav_rank) against keeping course and speed. */
static void summary(const rtm_kinst_t *k, char *buf, size_t len)
{
    const uint32_t n = rtm_nav_manoeuvres(k);
    if (n == 0) {
        snprintf(buf, len, "no candidates");
        return;
    }
    uint32_t best = 0;
    for (uint32_t m = 1; m < n; m++)
        if (rtm_nav_manoeuvre_out(k, m)[0] < rtm_nav_manoeuvre_out(k, best)[0])
            best = m;
    const uint32_t keep = (n_courses(k) - 1) / 2;
    float off, fac;
    rtm_nav_manoeuvre_of(k, best, &off, &fac);
    const float *b = rtm_nav_manoeuvre_out(k, best), *kk = rtm_nav_manoeuvre_out(k, keep);
    const double deg = (double)off * 57.29577951308232;
    int w = snprintf(buf, len, "%s: %s%.0f deg%s, speed x%.2f, cost %.1f, closest %.2f nm at %.1f min",
                     is_last(k) ? "last-chance manoeuvre" : "chosen manoeuvre",
                     deg > 0.0 ? "+" : "", deg,
                     deg > 0.5 ? " (starboard)" : deg < -0.5 ? " (port)" : "", (double)fac,
                     (double)b[0], (double)b[1] / 1852.0, (double)b[2] / 60.0);
    if (b[3] >= 0.0f && w > 0 && (size_t)w < len)
        w += snprintf(buf + w, len - (size_t)w, " (#%.0f)", (double)b[3]);
    if (w > 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "\nkeep course and speed: cost %.1f, closest %.2f nm",
                 (double)kk[0], (double)kk[1] / 1852.0);
}

const rtm_kernel_t rtm_kernel_manoeuvre = {
    .name = "manoeuvre",
    .source = "manoeuvre.cl",
    .entries = {"manoeuvre_eval", "manoeuvre_reduce", NULL},
    .keys = MANOEUVRE_KEYS(360, 2000, 1000, 1000),
    .n_keys = 7,
    .launch = launch,
    .args = args,
    RTM_NAV_KERNEL_HOOKS,
};

const rtm_kernel_t rtm_kernel_last_chance = {
    .name = "last_chance",
    .source = "manoeuvre.cl",
    .entries = {"manoeuvre_eval", "manoeuvre_reduce", NULL},
    .keys = MANOEUVRE_KEYS(180, 1000, 500, 2000),
    .n_keys = 7,
    .launch = launch,
    .args = args,
    RTM_NAV_KERNEL_HOOKS,
};
