/* sort.cl — Batcher's odd-even merge sort of (key, value) pairs (seed 004), in four
 * kinds of pass, each one launch; every pass reads one buffer and writes another.
 *
 * A pair is a ulong: key << 32 | value. Pairs are ordered as 64-bit integers (by key,
 * ties by value), so the sorted output is unique and every device and the CPU twin
 * produce the same bytes. The network is the iterative odd-even merge sort on P
 * elements (P = n rounded up to OE_LS): stage S (merge size S = 2, 4, ...) has a first
 * step at stride S/2 comparing (a, a + S/2) for a with bit S/2 clear, and fix-up steps
 * at strides k = S/4 .. 1 comparing (a, a + k) for a with bit k set and a, a + k in
 * the same S-block. Comparators whose upper element is >= P are left out (as if
 * padded with the largest key); reads of the input past n give the largest key.
 *
 *   oems_chunk   stages S <= OE_LS inside aligned chunks of OE_LS pairs, in local
 *                memory (kernel 1 of seed 004);
 *   oems_head    the first F (1..4) steps of stage S in registers: for those strides
 *                the residue classes modulo S / 2^F inside an S-block are closed, so a
 *                work-item loads its class of 2^F pairs (consecutive work-items:
 *                consecutive addresses), runs the last merge of a 2^F sorting network
 *                and stores it: F steps per pass over memory;
 *   oems_step    one fix-up step (stride k >= 2 * OE_K0) of stage S in global memory;
 *   oems_window  all fix-up steps k <= OE_K0 of stage S in local memory. Fix-up pairs
 *                straddle any aligned chunk, so a block loads a window of OE_WN pairs,
 *                runs the steps on the pairs that lie inside it, and keeps only the
 *                middle OE_OUT: a value moves less than 2 * OE_K0 during these steps,
 *                so the window's outer OE_M = 2 * OE_K0 pairs absorb the pairs it left
 *                out. Ten steps per pass over memory (reads 2x, writes 1x).
 * The host plans: chunk; then per stage S > OE_LS: head, steps, window. */
#include "rtm_block.h"

#define OE_LS 4096  /* pairs per chunk of oems_chunk */
#define OE_WN 4096  /* window of oems_window */
#define OE_K0 512   /* largest stride done in the window */
#define OE_M 1024   /* window margin on each side: 2 * OE_K0 */
#define OE_OUT 2048 /* pairs a window block writes: OE_WN - 2 * OE_M */

#define CMPX(a, b)                                                                  \
    do {                                                                            \
        const ulong lo_ = min((a), (b)), hi_ = max((a), (b));                       \
        (a) = lo_;                                                                  \
        (b) = hi_;                                                                  \
    } while (0)

/* Position of comparator slot i at stride k: i with a 0 bit inserted at bit k. */
#define SLOT(i, k) ((((i) & ~((k) - 1u)) << 1) | ((i) & ((k) - 1u)))

__kernel void oems_chunk(RTM_BLOCK_ARGS, __global const ulong *restrict src,
                         __global ulong *restrict dst, const uint n)
{
    RTM_BLOCK_BEGIN(blk);
    __local ulong v[OE_LS];
    const uint lid = get_local_id(0);
    const uint base = blk * OE_LS;
    for (uint i = lid; i < OE_LS; i += RTM_WG)
        v[i] = base + i < n ? src[base + i] : ULONG_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint size = 2; size <= OE_LS; size <<= 1) {
        const uint hsz = size >> 1;
        for (uint k = hsz; k > 0; k >>= 1) {
            for (uint i = lid; i < OE_LS / 2; i += RTM_WG) {
                const uint pos = SLOT(i, k);
                if (k == hsz)
                    CMPX(v[pos], v[pos + k]);
                else if ((i & (hsz - 1u)) >= k)
                    CMPX(v[pos - k], v[pos]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    for (uint i = lid; i < OE_LS; i += RTM_WG)
        dst[base + i] = v[i];
    RTM_BLOCK_END(blk);
}

/* Last merge of a G-element odd-even merge sort (G = 2, 4, 8, 16), in registers.
 * Called with constant G only; every loop has a constant trip count once G is known
 * (the fix-up loop tests each m rather than starting at q), so all of it unrolls and
 * x stays in registers. */
__attribute__((always_inline)) static inline void oe_merge(ulong *x, const int G)
{
#pragma unroll
    for (int m = 0; m < G / 2; m++)
        CMPX(x[m], x[m + G / 2]);
#pragma unroll
    for (int t = 2; (1 << t) <= G; t++) {
        const int q = G >> t;
#pragma unroll
        for (int m = 0; m < 16; m++)
            if (m < G && (m & q) && m + q < G)
                CMPX(x[m], x[m + q]);
    }
}

/* One residue class of G pairs: load, merge, store. */
__attribute__((always_inline)) static inline void oe_head(__global const ulong *restrict src, __global ulong *restrict dst, const uint base,
             const uint u, const uint P, const int G)
{
    ulong x[16];
#pragma unroll
    for (int m = 0; m < G; m++) {
        const uint idx = base + (uint)m * u;
        x[m] = idx < P ? src[idx] : ULONG_MAX;
    }
    oe_merge(x, G);
#pragma unroll
    for (int m = 0; m < G; m++) {
        const uint idx = base + (uint)m * u;
        if (idx < P)
            dst[idx] = x[m];
    }
}

__kernel void oems_head(RTM_BLOCK_ARGS, __global const ulong *restrict src,
                        __global ulong *restrict dst, const uint P, const uint S, const uint F)
{
    RTM_BLOCK_BEGIN(blk);
    const uint g = blk * RTM_WG + (uint)get_local_id(0); /* class: S-block g / u, residue g % u */
    const uint u = S >> F;
    const uint base = (g / u) * S + (g & (u - 1u));
    if (base < P) {
        switch (F) {
        case 1: oe_head(src, dst, base, u, P, 2); break;
        case 2: oe_head(src, dst, base, u, P, 4); break;
        case 3: oe_head(src, dst, base, u, P, 8); break;
        default: oe_head(src, dst, base, u, P, 16); break;
        }
    }
    RTM_BLOCK_END(blk);
}

__kernel void oems_step(RTM_BLOCK_ARGS, __global const ulong *restrict src,
                        __global ulong *restrict dst, const uint P, const uint S, const uint k)
{
    RTM_BLOCK_BEGIN(blk);
    const uint i = blk * RTM_WG + (uint)get_local_id(0);
    const uint c = SLOT(i, k) + k; /* bit k set: lower end of a fix-up pair */
    if (c < P) {
        ulong a = src[c];
        const uint d = c + k;
        if (d < P) {
            ulong b = src[d];
            if ((c & (S - 1u)) + k < S)
                CMPX(a, b);
            dst[d] = b;
        }
        dst[c] = a;
    }
    if (i < k && i < P) /* the first k positions are in no pair */
        dst[i] = src[i];
    RTM_BLOCK_END(blk);
}

__kernel void oems_window(RTM_BLOCK_ARGS, __global const ulong *restrict src,
                          __global ulong *restrict dst, const uint P, const uint S)
{
    RTM_BLOCK_BEGIN(blk);
    __local ulong v[OE_WN];
    const uint lid = get_local_id(0);
    const long lo = (long)blk * OE_OUT - OE_M; /* global index of v[0] */
    for (uint i = lid; i < OE_WN; i += RTM_WG) {
        const long gi = lo + (long)i;
        v[i] = gi >= 0 && gi < (long)P ? src[gi] : ULONG_MAX;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = OE_K0; k > 0; k >>= 1) {
        for (uint i = lid; i < OE_WN / 2; i += RTM_WG) {
            const uint lc = SLOT(i, k) + k, ld = lc + k;
            const long c = lo + (long)lc;
            if (ld < OE_WN && c >= 0 && c + k < (long)P && ((uint)c & (S - 1u)) + k < S)
                CMPX(v[lc], v[ld]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint i = lid; i < OE_OUT; i += RTM_WG) {
        const long gi = lo + OE_M + (long)i;
        if (gi < (long)P)
            dst[gi] = v[OE_M + i];
    }
    RTM_BLOCK_END(blk);
}
