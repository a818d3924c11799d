/* kernels.h — the descriptors of every rtmgr kernel, and helpers their CPU twins share.
 *
 * Adding a kernel: write kernels/<name>.cl and kernels/<name>.c (descriptor + twin),
 * declare its descriptor here and list it in RTM_KERNEL_LIST. */
#ifndef RTM_KERNELS_H
#define RTM_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "rtmgr/kernel.h"

/* X(name): every kernel in catalogue order. */
#define RTM_KERNEL_LIST(X) \
    X(matrix_add)          \
    X(trajectory)          \
    X(cpa_tcpa)            \
    X(cpa_pairs)           \
    X(manoeuvre)           \
    X(last_chance)         \
    X(threshold)           \
    X(convolve)            \
    X(matrix_mov)          \
    X(matrix_add3)         \
    X(matrix_loop_add)     \
    X(matrix_mul)          \
    X(empty)               \
    X(grid_path)           \
    X(sort)                \
    X(radix_sort)          \
    X(copy)               \
    X(spin)

#define RTM_KERNEL_DECLARE(name) extern const rtm_kernel_t rtm_kernel_##name;
RTM_KERNEL_LIST(RTM_KERNEL_DECLARE)
#undef RTM_KERNEL_DECLARE

/* Counts elements where |x - y| > tol * max(1, |y|) (NaNs differ unless both NaN);
 * writes the first difference into `why`. */
size_t rtm_compare_floats(const float *x, const float *y, size_t n, float tol, char *why,
                          size_t len);
/* sort / radix_sort input: n (key, value) pairs, key << 32 | value, value = the pair's
 * index; a quarter of the keys from 16 repeated values (ties), the rest random. Filled
 * in parallel chunks (rtm_rng_fill). */
void rtm_pairs_fill(uint64_t *in, size_t n, uint64_t seed);
/* Counts elements that differ; writes the first difference into `why`. */
size_t rtm_compare_u32(const unsigned *x, const unsigned *y, size_t n, char *why, size_t len);

/* grid_path: the graph (8-connected, no corner cutting) and the field's "no path". */
#define RTM_GRID_INF 0x3FFFFFFFu /* unreachable; fits INF + 14 in 32 bits */
#define RTM_GRID_STEP 10u        /* orthogonal move */
#define RTM_GRID_DIAG 14u        /* diagonal move */

/* grid_path: 1 when the job's last pass changed nothing (the field is final). Call
 * after the job's outputs are back in k->host. Safe on the real-time path. */
int rtm_grid_path_converged(const rtm_kinst_t *k);

/* Walks a converged cost-to-go field downhill from (sx, sy) to a goal (cost 0) with the
 * moves of grid_path, ties broken in a fixed order (W, E, N, S, NW, NE, SW, SE).
 * Writes the cell indices (y * w + x), start and goal included, into path[0..max-1];
 * returns how many, or 0 when the start is unreachable, the field is not converged or
 * the path does not fit. No allocation; safe on the real-time path. */
size_t rtm_grid_path_extract(const uint32_t *cost, const uint8_t *occ, uint32_t w, uint32_t h,
                             uint32_t sx, uint32_t sy, uint32_t *path, size_t max);

/* sort / radix_sort: a pair is key << 32 | value (uint64_t). Order-preserving key of a
 * float (e.g. a TCPA): a < b as floats iff key(a) < key(b) as unsigned; -0 < +0; NaNs
 * sort past +inf (sign bit clear) or before -inf (sign bit set). Safe anywhere. */
uint32_t rtm_sort_key_float(float f);

/* Counts bytes that differ by more than `tol`; writes the first difference into `why`. */
size_t rtm_compare_u8(const unsigned char *x, const unsigned char *y, size_t n, unsigned tol,
                      char *why, size_t len);

#endif
