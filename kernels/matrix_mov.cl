/* matrix_mov.cl — seed 000 calibration kernel for the single-operation time r:
 * one move per loop step, C[ty*wA+tx] = A[ty*wA+k] for k in 0..wA-1, over n x n floats.
 *
 * Work-item (tx, ty) is global id g = blk * RTM_WG + lid, tx = g % n, ty = g / n. C is
 * written through a volatile pointer so that every step really stores (a compiler
 * would otherwise keep only the last move); the result is C = A's last column
 * broadcast along each row. The loop polls the abort flag once per RTM_POLL_EVERY
 * steps (strip-mined: a strip's loop is the original one, nothing tested per step). */
/* A 64-bit loop index (RTM_POLL_INDEX): on the H100 the polled build ran 9.7 % over the
 * original with uint, 0.6-0.9 % with ulong (session 37, docs/preempt.md). */
#define RTM_POLL_INDEX ulong
#include "rtm_block.h"

__kernel void matrix_mov(RTM_BLOCK_ARGS, __global const float *restrict a,
                         __global volatile float *c, const uint n)
{
    RTM_BLOCK_BEGIN(blk);
    const uint g = blk * RTM_WG + (uint)get_local_id(0);
    if (g < n * n) {
        const uint tx = g % n, ty = g / n;
        RTM_POLL_LOOP(k, 0, n, c[ty * n + tx] = a[ty * n + k]);
    }
    RTM_BLOCK_END(blk);
}
