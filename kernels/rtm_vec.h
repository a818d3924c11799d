/* rtm_vec.h — helpers for OpenCL kernels written once for any vector width (seed 001).
 *
 * The runtime builds every kernel with -DRTM_VEC=1|2|4|8|16; a kernel that names its
 * types through RTM_V(t) (rtm_block.h) and its built-ins through RTM_VF(f) compiles
 * unchanged for each width. Width 1 is plain scalar code: RTM_VF(convert_float) is
 * convert_float, not the non-existent convert_float1. */
#ifndef RTM_VEC_H
#define RTM_VEC_H

#include "rtm_block.h"

/* Work per work-item of the streaming kernels (threshold, copy, matrix_add…): each
 * work-item handles RTM_ITEMS vectors, RTM_WG vectors apart, so every load and store
 * instruction of a block still covers RTM_WG consecutive vectors (coalesced) while a
 * work-item keeps RTM_ITEMS loads in flight and a block moves RTM_ITEMS times more
 * bytes per block prologue/epilogue. Set by the kernel's .c (rtm_kinst_t.items). */
#ifndef RTM_ITEMS
#define RTM_ITEMS 1
#endif

#if RTM_VEC == 1
#define RTM_VSUF
#else
#define RTM_VSUF RTM_VEC
#endif

/* Built-in of the current width: RTM_VF(convert_uchar) is convert_uchar16 at width 16. */
#define RTM_VF(f) RTM_CAT(f, RTM_VSUF)
/* Same with a suffix: RTM_VFS(convert_uchar, _sat_rte) is convert_uchar4_sat_rte. */
#define RTM_VFS(f, s) RTM_CAT(RTM_VF(f), s)

/* Element access to a vector through a union (portable: no v[i] subscripts). */
#define RTM_VUNION(t)                                                               \
    union {                                                                         \
        RTM_V(t) v;                                                                 \
        t s[RTM_VEC];                                                               \
    }

#endif
