/* matrix_add.cl — seed 000 validation kernel: C = A + B over n x n floats.
 * One work-item handles RTM_ITEMS vectors of RTM_VEC consecutive elements, RTM_WG
 * vectors apart (each load and store instruction of a block covers RTM_WG consecutive
 * vectors); a block handles RTM_WG * RTM_ITEMS * RTM_VEC elements. All loads are issued
 * before the stores. Buffers are padded to whole blocks by the host, so there is no
 * tail. */
#include "rtm_block.h"

#ifndef RTM_ITEMS /* vectors per work-item (as in rtm_vec.h; set by the .c file) */
#define RTM_ITEMS 1
#endif

__kernel void matrix_add(RTM_BLOCK_ARGS, __global const RTM_V(float) *restrict a,
                         __global const RTM_V(float) *restrict b, __global RTM_V(float) *restrict c)
{
    RTM_BLOCK_BEGIN(blk);
    const size_t base = (size_t)blk * (RTM_WG * RTM_ITEMS) + get_local_id(0);
    RTM_V(float) s[RTM_ITEMS];
#pragma unroll
    for (int j = 0; j < RTM_ITEMS; j++)
        s[j] = a[base + (size_t)j * RTM_WG] + b[base + (size_t)j * RTM_WG];
#pragma unroll
    for (int j = 0; j < RTM_ITEMS; j++)
        c[base + (size_t)j * RTM_WG] = s[j];
    RTM_BLOCK_END(blk);
}
