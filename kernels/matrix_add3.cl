/* matrix_add3.cl — seed 000 validation kernel: C = A + B + B over n x n floats.
 * One work-item handles RTM_VEC consecutive elements; a block handles RTM_WG * RTM_VEC.
 * Buffers are padded to whole blocks by the host, so there is no tail. */
#include "rtm_block.h"

__kernel void matrix_add3(RTM_BLOCK_ARGS, __global const RTM_V(float) *restrict a,
                          __global const RTM_V(float) *restrict b, __global RTM_V(float) *restrict c)
{
    RTM_BLOCK_BEGIN(blk);
    const size_t i = (size_t)blk * RTM_WG + get_local_id(0);
    const RTM_V(float) bv = b[i];
    c[i] = a[i] + bv + bv;
    RTM_BLOCK_END(blk);
}
