/* copy.cl — global-memory bandwidth probe: dst = src over n uints.
 * One work-item copies RTM_ITEMS vectors of RTM_VEC consecutive uints, RTM_WG vectors
 * apart (each load and store instruction of a block covers RTM_WG consecutive vectors);
 * a block copies RTM_WG * RTM_ITEMS * RTM_VEC uints. Buffers are padded to whole blocks
 * by the host, so there is no tail. `rtmgr bench kernels` sweeps RTM_VEC (and with
 * --sweep RTM_WG and RTM_ITEMS) to measure the device's bandwidth. */
#include "rtm_block.h"

#ifndef RTM_ITEMS /* vectors per work-item (as in rtm_vec.h; set by the .c file) */
#define RTM_ITEMS 1
#endif

__kernel void copy(RTM_BLOCK_ARGS, __global const RTM_V(uint) *restrict src,
                   __global RTM_V(uint) *restrict dst)
{
    RTM_BLOCK_BEGIN(blk);
    const size_t base = (size_t)blk * (RTM_WG * RTM_ITEMS) + get_local_id(0);
    RTM_V(uint) v[RTM_ITEMS];
#pragma unroll
    for (int j = 0; j < RTM_ITEMS; j++)
        v[j] = src[base + (size_t)j * RTM_WG];
#pragma unroll
    for (int j = 0; j < RTM_ITEMS; j++)
        dst[base + (size_t)j * RTM_WG] = v[j];
    RTM_BLOCK_END(blk);
}
