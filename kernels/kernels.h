/* kernels.h — the descriptors of every rtmgr kernel, and helpers their CPU twins share.
 *
 * Adding a kernel: write kernels/<name>.cl and kernels/<name>.c (descriptor + twin),
 * declare its descriptor here and list it in RTM_KERNEL_LIST. */
#ifndef RTM_KERNELS_H
#define RTM_KERNELS_H

#include <stddef.h>

#include "rtmgr/kernel.h"

/* X(name): every kernel in catalogue order. */
#define RTM_KERNEL_LIST(X) \
    X(matrix_add)          \
    X(trajectory)          \
    X(cpa_tcpa)            \
    X(cpa_pairs)           \
    X(manoeuvre)           \
    X(last_chance)

#define RTM_KERNEL_DECLARE(name) extern const rtm_kernel_t rtm_kernel_##name;
RTM_KERNEL_LIST(RTM_KERNEL_DECLARE)
#undef RTM_KERNEL_DECLARE

/* Counts elements where |x - y| > tol * max(1, |y|) (NaNs differ unless both NaN);
 * writes the first difference into `why`. */
size_t rtm_compare_floats(const float *x, const float *y, size_t n, float tol, char *why,
                          size_t len);
/* Counts elements that differ; writes the first difference into `why`. */
size_t rtm_compare_u32(const unsigned *x, const unsigned *y, size_t n, char *why, size_t len);

#endif
