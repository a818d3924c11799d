/* matrix_mov.c — descriptor and CPU twin of matrix_mov.cl (seed 000: the kernel that
 * calibrates the single-operation time r: one move per loop step).
 *
 * Size key `n`: A and C are n x n floats. Buffers: 0 A (IN), 1 C (OUT). Work-items and
 * blocks as in seed000.h. Result: C[ty][tx] = A[ty][n-1] (the last move wins); the twin
 * performs every move too (through a volatile pointer), so that it times like the loop.
 *
 * Cost counts: one loop step = one iteration, li = n^3 (n steps for each of the n^2
 * work-items). Per step, from the body `c[ty*n+tx] = a[ty*n+k]`: one load of A along k
 * (unit-stride class) and one store to the same C element every step (scalar class):
 * z_unit = 1, z_scalar = 1. GPU Z: load + store + the two index expressions as written
 * (ty*n + k, ty*n + tx: 2 ops each) = 6 per step, plus per work-item the global id,
 * % and / (4 ops) spread over its n steps. md = n (the row of A a work-item reads).
 * Bytes: n^2 floats in and out; device traffic: A's row is read by the n work-items
 * of that row (n^3 loads, nearly all cache hits) — counted as n^2 floats read once and
 * n^3 stores of 4 bytes (volatile stores reach L2 at least). */
#include "kernels/seed000.h"

static rtm_status_t plan(const rtm_kinst_t *k, rtm_kplan_t *p) { return s0_plan(k, p, 1); }

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const float *a = k->host[0];
    S0_FOR_ITEMS(k, blk, {
        volatile float *c = k->host[1]; /* every move is stored, as the kernel does */
        for (uint64_t kk = 0; kk < n; kk++)
            c[ty * n + tx] = a[ty * n + kk];
    });
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = s0_n(k);
    memset(c, 0, sizeof(*c));
    c->li = n * n * n;
    c->z[RTM_LOC_UNIT] = 1.0;
    c->z[RTM_LOC_SCALAR] = 1.0;
    c->Z = 6.0 + 4.0 / n;
    c->md = n;
    c->bytes_in = 4.0 * n * n;
    c->bytes_out = 4.0 * n * n;
    c->bytes_dev = 4.0 * n * n + 4.0 * n * n * n;
    c->launches = 1;
}

S0_KERNEL(matrix_mov, plan, cpu_block, cost);
