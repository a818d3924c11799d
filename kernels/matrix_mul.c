/* matrix_mul.c — descriptor and CPU twin of matrix_mul.cl (seed 000: naive C = A * B,
 * value += A[ty*wA+k] * B[k*wB+tx] over k, square matrices).
 *
 * Size key `n`: A, B, C are n x n floats. Buffers: 0 A (IN), 1 B (IN), 2 C (OUT).
 * Work-items and blocks as in seed000.h. Each step is one fused multiply-add on both
 * sides (fma / fmaf, left to right from 0.0f), so results agree bit for bit.
 *
 * Cost counts: li = n^3 loop steps. Per step, from `value = fma(a[ty*n+k], b[k*n+tx],
 * value)` (the seed's `value += A * B`): the load of A walks along a row (unit-stride
 * class), the load of B down a column (strided class, stride n), a multiply and an add
 * (scalar class, fused into one instruction on the GPU but counted as the seed's two
 * operations): z_unit = 1, z_strided = 1, z_scalar = 2. GPU Z: 2 loads + 2 arithmetic
 * + the index expressions ty*n + k and k*n + tx (2 ops each) = 8 per step, plus per
 * work-item gid, %, /, the store and its index (7 ops) spread over n steps. md = 2n.
 * Bytes: 2 n^2 floats in, n^2 out; device traffic as matrix_loop_add (A's row shared
 * by the block, B read once per row of C): 4 (n^3 / wg + n^3) + 4 n^2 bytes. */
#include <math.h>

#include "kernels/seed000.h"

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p) { return s0_plan(k, p, 2); }

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const float *a = k->host[0], *b = k->host[1];
    float *c = k->host[2];
    S0_FOR_ITEMS(k, blk, {
        float value = 0.0f;
        for (uint64_t kk = 0; kk < n; kk++)
            value = fmaf(a[ty * n + kk], b[kk * n + tx], value);
        c[ty * n + tx] = value;
    });
}

S0_KERNEL(matrix_mul, plan, cpu_block, s0_cost_rowcol);
