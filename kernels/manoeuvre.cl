/* manoeuvre.cl — evaluation of a grid of own-ship manoeuvres against the predicted tracks
 * of NAV_N targets over NAV_STEPS steps of NAV_DT_MS ms (SB-MPC style), and, built with
 * NAV_LAST=1, the last-chance search of COLREG Rule 17(b) (hard turns over +-180 deg, no
 * give-way/stand-on penalties, only Rule 17(c)).
 *
 * Manoeuvre m (nav_manoeuvre): course offset over +-90 deg (+-180 for last chance) in
 * NAV_COURSES steps, speed factor from 1 to 0 in NAV_SPEEDS steps; the own ship turns at
 * NAV_TURN_MDEG mdeg/s to the new course, then runs straight (nav_own_pos).
 *
 * Launch 0, manoeuvre_eval: block b = (manoeuvre m = b / NAV_TILES, target tile
 * b % NAV_TILES). The block first writes own ship's path under m into local memory (one
 * float2 per step, steps shared out over the work-items); work-item l then follows target
 * i = tile * RTM_WG + l step by step (CTRV recurrence, nav_ctrv_step) and keeps its
 * closest distance to the path and that step; its cost is nav_target_cost() (collision
 * risk + COLREGs penalty). Local-memory tree reductions give the tile's largest cost and
 * its smallest distance (ties: lower target index): part[b] = (cost, dmin, tmin, target).
 * The step loop polls the abort flag once per RTM_POLL_EVERY steps (RTM_POLL_LOOP: full
 * strips of a constant trip count on GPUs).
 * Launch 1, manoeuvre_reduce: one work-item per manoeuvre folds its NAV_TILES partials
 * (largest cost, smallest distance) and adds the deviation cost:
 * out[m] = (cost, dmin m, tmin s, target index or -1). The host ranks out[].x. */
#include "rtm_block.h"
#include "nav_math.h"

#if (RTM_WG & (RTM_WG - 1)) != 0
#error "manoeuvre needs a power-of-two RTM_WG"
#endif
#ifndef NAV_LAST
#define NAV_LAST 0
#endif
#define NAV_SPAN (NAV_LAST ? NAV_PI : NAV_PI_2)
#define NAV_NONE 0xffffffffu

__kernel void manoeuvre_eval(RTM_BLOCK_ARGS, __global const float *own, __global const float *tgt,
                             __global float4 *part)
{
    __local float2 path[NAV_STEPS];
    __local float rc[RTM_WG], rd[RTM_WG], rt[RTM_WG];
    __local uint ri[RTM_WG];
    RTM_BLOCK_BEGIN(blk);
    const uint lid = (uint)get_local_id(0);
    const uint m = blk / NAV_TILES;
    const uint i = (blk - m * NAV_TILES) * RTM_WG + lid;
    const float dt = (float)NAV_DT_MS / 1000.0f;
    const float horizon = (float)NAV_STEPS * dt;
    const float d_safe = (float)NAV_DSAFE_M;
    const float turn = (float)NAV_TURN_MDEG * NAV_RAD_PER_MDEG;
    float off, fac;
    nav_manoeuvre(m, NAV_COURSES, NAV_SPEEDS, NAV_SPAN, &off, &fac);
    const float ox = own[NAV_F_X], oy = own[NAV_F_Y];
    const float osog = own[NAV_F_SOG], ocog = own[NAV_F_COG];
    for (uint k = lid; k < NAV_STEPS; k += RTM_WG) {
        float x, y;
        nav_own_pos(ox, oy, osog, ocog, off, fac, turn, (float)(k + 1u) * dt, &x, &y);
        path[k] = (float2)(x, y);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float cost = 0.0f, dmin = INFINITY, tmin = 0.0f;
    uint idx = NAV_NONE;
    if (i < NAV_N && tgt[NAV_F_LIVE * NAV_N + i] != 0.0f) {
        const float tx = tgt[NAV_F_X * NAV_N + i], ty = tgt[NAV_F_Y * NAV_N + i];
        const float tsog = tgt[NAV_F_SOG * NAV_N + i], tcog = tgt[NAV_F_COG * NAV_N + i];
        const float trot = tgt[NAV_F_ROT * NAV_N + i];
        /* COLREGs role from the present geometry and straight-line CPA. */
        float os, oc, ts, tc;
        nav_sincos(ocog, &os, &oc);
        nav_sincos(tcog, &ts, &tc);
        int port_side;
        const int role = nav_target_role(tx - ox, ty - oy, osog, os, oc, tsog, ts, tc, d_safe,
                                         horizon, &port_side);
        /* Closest approach to own ship's path. */
        nav_ctrv_step_t st;
        nav_ctrv_step_init(&st, tsog, tcog, trot, dt);
        float px = tx, py = ty, best = INFINITY;
        uint kb = 0u;
        RTM_POLL_LOOP(k, 0u, (uint)NAV_STEPS, { /* polled once per RTM_POLL_EVERY steps */
            nav_ctrv_step(&st, &px, &py);
            const float2 o = path[k];
            const float dx = px - o.x, dy = py - o.y;
            const float d2 = dx * dx + dy * dy;
            if (d2 < best) {
                best = d2;
                kb = k;
            }
        });
        dmin = sqrt(best);
        tmin = (float)(kb + 1u) * dt;
        idx = i;
        cost = nav_target_cost(dmin, tmin, d_safe, horizon, role, port_side, off, fac, NAV_LAST);
    }
    rc[lid] = cost;
    rd[lid] = dmin;
    rt[lid] = tmin;
    ri[lid] = idx;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = RTM_WG / 2u; s > 0u; s >>= 1) {
        if (lid < s) {
            if (rc[lid + s] > rc[lid])
                rc[lid] = rc[lid + s];
            if (rd[lid + s] < rd[lid] || (rd[lid + s] == rd[lid] && ri[lid + s] < ri[lid])) {
                rd[lid] = rd[lid + s];
                rt[lid] = rt[lid + s];
                ri[lid] = ri[lid + s];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0u && !rtm_stop_)
        part[blk] = (float4)(rc[0], rd[0], rt[0], ri[0] == NAV_NONE ? -1.0f : (float)ri[0]);
    RTM_BLOCK_END(blk);
}

__kernel void manoeuvre_reduce(RTM_BLOCK_ARGS, __global const float4 *part, __global float4 *out)
{
    RTM_BLOCK_BEGIN(blk);
    const uint m = blk * RTM_WG + (uint)get_local_id(0);
    if (m < NAV_COURSES * NAV_SPEEDS) {
        float off, fac;
        nav_manoeuvre(m, NAV_COURSES, NAV_SPEEDS, NAV_SPAN, &off, &fac);
        float c = 0.0f, d = INFINITY, t = 0.0f, who = -1.0f;
        for (uint tile = 0; tile < NAV_TILES; tile++) {
            const float4 p = part[m * NAV_TILES + tile];
            if (p.x > c)
                c = p.x;
            if (p.y < d) {
                d = p.y;
                t = p.z;
                who = p.w;
            }
        }
        out[m] = (float4)(c + nav_deviation(off, fac, NAV_LAST), d, t, who);
    }
    RTM_BLOCK_END(blk);
}
