/* spin.cl — synthetic kernel for preemption experiments (seed 002): a pure integer
 * arithmetic loop of `work` iterations per element, writing a deterministic value.
 * A work-item handles `per_item` elements (RTM_WG apart, so accesses coalesce); a block
 * handles RTM_WG * per_item consecutive elements. Launch l reads one buffer and writes
 * the other (ping-pong), so a multi-launch job depends on every earlier launch. */
#include "rtm_block.h"

__kernel void spin(RTM_BLOCK_ARGS, __global const uint *src, __global uint *dst,
                   const uint work, const uint per_item)
{
    RTM_BLOCK_BEGIN(blk);
    const size_t base = (size_t)blk * RTM_WG * per_item + get_local_id(0);
    for (uint j = 0; j < per_item && !RTM_STOPPED(); j++) {
        const size_t i = base + (size_t)j * RTM_WG;
        uint x = src[i];
        RTM_POLL_LOOP(t, 0, work, x = x * 1664525u + 1013904223u; x ^= x >> 15);
        dst[i] = x;
    }
    RTM_BLOCK_END(blk);
}
