/* matrix_loop_add.cl — seed 000 validation kernel: over n x n floats,
 * C[ty][tx] = sum over k of (A[ty*n+k] + B[k*n+tx]), accumulated left to right from 0.
 * Work-item (tx, ty) is global id g = blk * RTM_WG + lid, tx = g % n, ty = g / n, so a
 * block's B loads are consecutive (coalesced) and its A loads shared. Polls the abort
 * flag once per RTM_POLL_EVERY steps (strip-mined, nothing tested per step). */
#include "rtm_block.h"

__kernel void matrix_loop_add(RTM_BLOCK_ARGS, __global const float *restrict a,
                              __global const float *restrict b, __global float *restrict c,
                              const uint n)
{
    RTM_BLOCK_BEGIN(blk);
    const uint g = blk * RTM_WG + (uint)get_local_id(0);
    if (g < n * n) {
        const uint tx = g % n, ty = g / n;
        float value = 0.0f;
        RTM_POLL_LOOP(k, 0, n, value += a[ty * n + k] + b[k * n + tx]);
        c[ty * n + tx] = value;
    }
    RTM_BLOCK_END(blk);
}
