/* threshold.cl — binarisation of an 8-bit gray camera frame: out = in > level ? 255 : 0.
 *
 * The frame is a flat array of width * height bytes (rows back to back). One work-item
 * handles THR_ITEMS vectors of RTM_VEC bytes, RTM_WG vectors apart, so each load and
 * store instruction of a block covers RTM_WG consecutive vectors (coalesced); a block
 * covers RTM_WG * THR_ITEMS * RTM_VEC bytes. The host pads both buffers to whole
 * blocks, so there is no tail and no branch. Memory-bound: 1 byte in, 1 byte out.
 * Build options: RTM_WG, RTM_VEC (runtime), THR_ITEMS (threshold.c). */
#include "rtm_vec.h"

#ifndef THR_ITEMS
#define THR_ITEMS 1
#endif

#if RTM_VEC == 1
#define THR(v, l) ((v) > (l) ? (uchar)255 : (uchar)0)
#else
/* A vector comparison gives -1 (all bits set) per true lane: 255 as uchar. */
#define THR(v, l) RTM_VF(as_uchar)((v) > (l))
#endif

__kernel void threshold(RTM_BLOCK_ARGS, __global const RTM_V(uchar) *restrict in,
                        __global RTM_V(uchar) *restrict out, const uint level)
{
    RTM_BLOCK_BEGIN(blk);
    const size_t base = (size_t)blk * (RTM_WG * THR_ITEMS) + get_local_id(0);
    const RTM_V(uchar) lv = (RTM_V(uchar))((uchar)level);
    RTM_V(uchar) v[THR_ITEMS];
#pragma unroll
    for (int j = 0; j < THR_ITEMS; j++)
        v[j] = in[base + (size_t)j * RTM_WG];
#pragma unroll
    for (int j = 0; j < THR_ITEMS; j++)
        out[base + (size_t)j * RTM_WG] = THR(v[j], lv);
    RTM_BLOCK_END(blk);
}
