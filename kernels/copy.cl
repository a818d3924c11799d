/* copy.cl — global-memory bandwidth probe: dst = src over n uints.
 * One work-item copies one RTM_V(uint) (RTM_VEC consecutive uints); a block copies
 * RTM_WG * RTM_VEC. Buffers are padded to whole blocks by the host, so there is no tail.
 * `rtmgr bench kernels` sweeps RTM_VEC to measure the device's bandwidth. */
#include "rtm_block.h"

__kernel void copy(RTM_BLOCK_ARGS, __global const RTM_V(uint) *src, __global RTM_V(uint) *dst)
{
    RTM_BLOCK_BEGIN(blk);
    const size_t i = (size_t)blk * RTM_WG + get_local_id(0);
    dst[i] = src[i];
    RTM_BLOCK_END(blk);
}
