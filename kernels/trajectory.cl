/* trajectory.cl — CTRV prediction of NAV_N targets over NAV_STEPS steps of NAV_DT_MS ms.
 *
 * Output xy[i * NAV_STEPS + k] = position of target i at t = (k + 1) * dt (float2 x, y in
 * the plane, m). One work-item per output element; block b covers the RTM_WG consecutive
 * elements from b * RTM_WG (the last block is partial). Absent targets give NaN.
 * No loop, so no in-loop poll: the block-entry abort check is the only one. */
#include "rtm_block.h"
#include "nav_math.h"

__kernel void trajectory(RTM_BLOCK_ARGS, __global const float *own, __global const float *tgt,
                         __global float2 *xy)
{
    RTM_BLOCK_BEGIN(blk);
    (void)own;
    const uint e = blk * RTM_WG + (uint)get_local_id(0);
    if (e < (uint)NAV_N * (uint)NAV_STEPS) {
        const uint i = e / (uint)NAV_STEPS;
        const uint k = e - i * (uint)NAV_STEPS;
        float x = NAN, y = NAN;
        if (tgt[NAV_F_LIVE * NAV_N + i] != 0.0f) {
            const float dt = (float)NAV_DT_MS / 1000.0f;
            const float t = (float)(k + 1u) * dt;
            nav_ctrv(tgt[NAV_F_X * NAV_N + i], tgt[NAV_F_Y * NAV_N + i],
                     tgt[NAV_F_SOG * NAV_N + i], tgt[NAV_F_COG * NAV_N + i],
                     tgt[NAV_F_ROT * NAV_N + i], t, &x, &y);
        }
        xy[e] = (float2)(x, y);
    }
    RTM_BLOCK_END(blk);
}
