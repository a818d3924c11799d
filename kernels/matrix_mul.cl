/* matrix_mul.cl — seed 000 validation kernel: naive C = A * B over n x n floats,
 * value = fma(A[ty*n+k], B[k*n+tx], value) for k = 0..n-1 from 0 (fma so that the CPU
 * twin, using fmaf in the same order, agrees bit for bit). Work-item (tx, ty) is global
 * id g = blk * RTM_WG + lid, tx = g % n, ty = g / n. Polls the abort flag once per
 * RTM_POLL_EVERY steps (strip-mined, nothing tested per step). */
#include "rtm_block.h"

/* The step loop. board/h100/diag/forms.cl defines it in other, equivalent ways to time how
 * NVIDIA's compiler schedules each (docs/preempt.md, "matrix_mul's loop form"). */
#ifndef MM_LOOP
#define MM_LOOP RTM_POLL_LOOP(k, 0, n, value = fma(a[ty * n + k], b[k * n + tx], value))
#endif

__kernel void matrix_mul(RTM_BLOCK_ARGS, __global const float *restrict a,
                         __global const float *restrict b, __global float *restrict c, const uint n)
{
    RTM_BLOCK_BEGIN(blk);
    const uint g = blk * RTM_WG + (uint)get_local_id(0);
    if (g < n * n) {
        const uint tx = g % n, ty = g / n;
        float value = 0.0f;
        MM_LOOP;
        c[ty * n + tx] = value;
    }
    RTM_BLOCK_END(blk);
}
