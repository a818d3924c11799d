/* cpa_tcpa.cl — straight-line CPA and TCPA of own ship against NAV_N targets, and the
 * safety-domain flag. One work-item per target; block b covers targets b * RTM_WG ..
 * (the last block is partial). Outputs per target: cpa (m), tcpa (s, negative when the
 * closest point is past) and flag (1 when the target is inside the domain now, or its
 * CPA is under NAV_DSAFE_M within 0..NAV_THORIZON_S s). Absent targets: NaN, NaN, 0. */
#include "rtm_block.h"
#include "nav_math.h"

__kernel void cpa_tcpa(RTM_BLOCK_ARGS, __global const float *own, __global const float *tgt,
                       __global float *cpa, __global float *tcpa, __global uint *flag)
{
    RTM_BLOCK_BEGIN(blk);
    const uint i = blk * RTM_WG + (uint)get_local_id(0);
    if (i < NAV_N) {
        float c = NAN, t = NAN;
        uint f = 0u;
        if (tgt[NAV_F_LIVE * NAV_N + i] != 0.0f) {
            float ovx, ovy, tvx, tvy;
            nav_velocity(own[NAV_F_SOG], own[NAV_F_COG], &ovx, &ovy);
            nav_velocity(tgt[NAV_F_SOG * NAV_N + i], tgt[NAV_F_COG * NAV_N + i], &tvx, &tvy);
            const float rx = tgt[NAV_F_X * NAV_N + i] - own[NAV_F_X];
            const float ry = tgt[NAV_F_Y * NAV_N + i] - own[NAV_F_Y];
            nav_cpa(rx, ry, tvx - ovx, tvy - ovy, &c, &t);
            const float d_safe = (float)NAV_DSAFE_M;
            const float range2 = rx * rx + ry * ry;
            f = (range2 < d_safe * d_safe ||
                 (c < d_safe && t >= 0.0f && t <= (float)NAV_THORIZON_S)) ? 1u : 0u;
        }
        cpa[i] = c;
        tcpa[i] = t;
        flag[i] = f;
    }
    RTM_BLOCK_END(blk);
}
