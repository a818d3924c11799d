/* threshold.cl — binarisation of an 8-bit gray camera frame: out = in > level ? 255 : 0.
 *
 * The frame is a flat array of width * height bytes (rows back to back). One work-item
 * handles RTM_ITEMS vectors of RTM_VEC bytes, RTM_WG vectors apart, so each load and
 * store instruction of a block covers RTM_WG consecutive vectors (coalesced); a block
 * covers RTM_WG * RTM_ITEMS * RTM_VEC bytes. The host pads both buffers to whole
 * blocks, so there is no tail and no branch. Memory-bound: 1 byte in, 1 byte out.
 *
 * Widths 4, 8 and 16 move a vector as 1, 2 or 4 uints (one 4-, 8- or 16-byte access,
 * whatever the device compiler does with char vectors, which some split into byte
 * accesses) and compare the four bytes of a uint at once (SWAR): with c = 255 - level in
 * every byte, x > level exactly when x + c carries out of the byte, and that carry is
 * maj(x7, c7, carry into bit 7), the carry into bit 7 being bit 7 of the sum of the low
 * seven bits (which never reaches the next byte). Widths 1 and 2 use uchar / uchar2.
 * Build options: RTM_WG, RTM_VEC (runtime), RTM_ITEMS (threshold.c). */
#include "rtm_vec.h"

#if RTM_VEC >= 4
#if RTM_VEC == 4
typedef uint thr_t;
#elif RTM_VEC == 8
typedef uint2 thr_t;
#else
typedef uint4 thr_t;
#endif

/* 0xFF in every byte of x above the level, else 0x00 (c = 255 - level per byte,
 * c7 = c & 0x7F7F7F7F). */
thr_t thr_bytes(const thr_t x, const uint c, const uint c7)
{
    const thr_t s = (x & 0x7F7F7F7Fu) + c7;
    const thr_t m = ((x & c) | ((x | c) & s)) & 0x80808080u;
    return (m >> 7) * 0xFFu;
}
#define THR(v) thr_bytes(v, c, c7)
#else
typedef RTM_V(uchar) thr_t;
#if RTM_VEC == 1
#define THR(v) ((v) > lv ? (uchar)255 : (uchar)0)
#else
/* A vector comparison gives -1 (all bits set) per true lane: 255 as uchar. */
#define THR(v) RTM_VF(as_uchar)((v) > lv)
#endif
#endif

__kernel void threshold(RTM_BLOCK_ARGS, __global const thr_t *restrict in,
                        __global thr_t *restrict out, const uint level)
{
    RTM_BLOCK_BEGIN(blk);
    const size_t base = (size_t)blk * (RTM_WG * RTM_ITEMS) + get_local_id(0);
#if RTM_VEC >= 4
    const uint c = (255u - level) * 0x01010101u, c7 = c & 0x7F7F7F7Fu;
#else
    const thr_t lv = (thr_t)((uchar)level);
#endif
    thr_t v[RTM_ITEMS];
#pragma unroll
    for (int j = 0; j < RTM_ITEMS; j++)
        v[j] = in[base + (size_t)j * RTM_WG];
#pragma unroll
    for (int j = 0; j < RTM_ITEMS; j++)
        out[base + (size_t)j * RTM_WG] = THR(v[j]);
    RTM_BLOCK_END(blk);
}
