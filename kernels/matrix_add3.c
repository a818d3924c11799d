/* matrix_add3.c — descriptor and CPU twin of matrix_add3.cl (seed 000: C = A + B + B).
 *
 * Size key `n`: the matrices are n x n floats. Buffers: 0 A (IN), 1 B (IN), 2 C (OUT).
 * A block covers wg * items * vec consecutive elements (matrix_ew.h); buffers are padded
 * up to whole blocks (padding is zero and ignored). Both sides evaluate (a + b) + b, so
 * they agree bit for bit.
 * Cost counts, from the kernel body `bv = b[i]; c[i] = a[i] + bv + bv`: per element
 * one load of A, one of B, one store (unit-stride class, z_unit = 3), two adds (scalar,
 * z_scalar = 2); GPU Z = 5 per vector lane plus the index operations shared by a
 * work-item's lanes (ew_index_ops). md = 2. Bytes: 8 in, 4 out per element; device
 * traffic 12. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kernels/matrix_ew.h"

static void cpu_block(const rtm_kinst_t *k, uint32_t l, uint32_t blk)
{
    (void)l;
    const float *a = k->host[EW_A], *b = k->host[EW_B];
    float *c = k->host[EW_C];
    const size_t lo = (size_t)blk * ew_block_elems(k), hi = lo + ew_block_elems(k);
    for (size_t i = lo; i < hi; i++)
        c[i] = a[i] + b[i] + b[i];
}

static void cost(const rtm_kinst_t *k, rtm_cost_t *c)
{
    const double n = (double)ew_elems(k);
    memset(c, 0, sizeof(*c));
    c->li = n;
    c->z[RTM_LOC_UNIT] = 3.0;   /* load A, load B, store C */
    c->z[RTM_LOC_SCALAR] = 2.0; /* two adds */
    c->Z = 5.0 + ew_index_ops(k);
    c->md = 2.0;
    c->bytes_in = 8.0 * n;
    c->bytes_out = 4.0 * n;
    c->bytes_dev = 12.0 * n;
    c->launches = 1;
}

const rtm_kernel_t rtm_kernel_matrix_add3 = {
    .name = "matrix_add3",
    .source = "matrix_add3.cl",
    .entries = {"matrix_add3", NULL},
    .keys = {{"n", 1, 16384, 1000, "matrix side (n x n floats)"}},
    .n_keys = 1,
    .vec_allowed = (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16),
    .tune_default = {256, 1},
    .plan = ew_plan,
    .launch = ew_launch,
    .args = ew_args,
    .options = ew_options,
    .fill = ew_fill,
    .cpu_block = cpu_block,
    .cost = cost,
    .compare = ew_compare,
};
