/* radix_sort.cl — stable LSD radix sort of (key, value) pairs by key, 8 bits per pass,
 * three launches per pass: histogram, scan, scatter. Each pass reads one pair buffer
 * and writes another.
 *
 * A pair is a ulong: key << 32 | value; the digit of pass p is bits 8p..8p+7 of the
 * key (RS_SHIFT = 32 + 8p of the pair). A tile is RS_TILE = 4096 consecutive pairs;
 * tile b is block b of rs_hist and rs_scatter. Reads past n_valid (only the input of
 * the first pass holds just n pairs) give the largest pair, which a stable sort keeps
 * behind every real pair.
 *
 *   rs_hist     counts the digits of tile b in local memory (8 sub-histograms to spread
 *               atomic contention) and writes cnt[d * nb + b];
 *   rs_scan     block d turns row d of cnt into exclusive prefixes off[d * nb + b] (the
 *               pairs with digit d in tiles before b) and its total tot[d];
 *   rs_scatter  ranks tile b stably by digit in local memory — four 2-bit splits; in
 *               each, a work-item counts the four categories among its RS_RK pairs in
 *               one ulong (four 16-bit fields), one work-group scan gives every pair its
 *               place — then writes each pair to base(d) + off[d * nb + b] + (its
 *               position among the tile's pairs of digit d), base(d) = sum of tot[<d]:
 *               consecutive work-items write consecutive addresses within a digit run.
 * Local pair arrays are padded by one pair per 16 (work-item w reads pairs w * RS_RK
 * + j: conflict-free). Build options: RTM_WG (128..1024, a power of two). */
#include "rtm_block.h"

#define RS_TILE 4096
#define RS_RK (RS_TILE / RTM_WG) /* pairs per work-item */
#define RS_PAD(p) ((p) + ((p) >> 4))
#define RS_NSUB 8

/* Exclusive work-group scan of one ulong per work-item; *total gets the sum.
 * Uses sc[RTM_WG]; every work-item must call it. */
static inline ulong scan_excl(ulong v, __local ulong *sc, ulong *total)
{
    const uint lid = get_local_id(0);
    sc[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < RTM_WG; off <<= 1) {
        const ulong add = lid >= off ? sc[lid - off] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        sc[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const ulong incl = sc[lid];
    *total = sc[RTM_WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - v;
}

__kernel void rs_hist(RTM_BLOCK_ARGS, __global const ulong *restrict src, __global uint *restrict cnt,
                      const uint n_valid, const uint nb, const uint shift)
{
    RTM_BLOCK_BEGIN(blk);
    __local uint h[256 * RS_NSUB];
    const uint lid = get_local_id(0);
    for (uint i = lid; i < 256 * RS_NSUB; i += RTM_WG)
        h[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint base = blk * RS_TILE;
#pragma unroll
    for (int j = 0; j < RS_RK; j++) {
        const uint gi = base + (uint)j * RTM_WG + lid;
        const ulong x = gi < n_valid ? src[gi] : ULONG_MAX;
        atomic_inc(&h[(uint)(x >> shift & 255u) * RS_NSUB + (lid & (RS_NSUB - 1))]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < 256; d += RTM_WG) {
        uint s = 0;
        for (int q = 0; q < RS_NSUB; q++)
            s += h[d * RS_NSUB + q];
        cnt[d * nb + blk] = s;
    }
    RTM_BLOCK_END(blk);
}

__kernel void rs_scan(RTM_BLOCK_ARGS, __global const uint *restrict cnt, __global uint *restrict off,
                      __global uint *restrict tot, const uint nb)
{
    RTM_BLOCK_BEGIN(d);
    __local ulong sc[RTM_WG];
    const uint lid = get_local_id(0);
    const uint chunk = (nb + RTM_WG - 1) / RTM_WG;
    const uint lo = min(lid * chunk, nb), hi = min(lo + chunk, nb);
    __global const uint *row = cnt + (size_t)d * nb;
    uint s = 0;
    for (uint b = lo; b < hi; b++)
        s += row[b];
    ulong total;
    uint run = (uint)scan_excl(s, sc, &total);
    for (uint b = lo; b < hi; b++) {
        off[(size_t)d * nb + b] = run;
        run += row[b];
    }
    if (lid == 0)
        tot[d] = (uint)total;
    RTM_BLOCK_END(d);
}

__kernel void rs_scatter(RTM_BLOCK_ARGS, __global const ulong *restrict src, __global ulong *restrict dst,
                         __global const uint *restrict off, __global const uint *restrict tot,
                         const uint n_valid, const uint nb, const uint shift)
{
    RTM_BLOCK_BEGIN(blk);
    __local ulong e[RS_PAD(RS_TILE)];
    __local ulong sc[RTM_WG];
    __local uint start[256], gbase[256];
    const uint lid = get_local_id(0);
    const uint base = blk * RS_TILE;

    /* Global base of every digit for this tile: sum of tot[< d] + off[d][blk]. */
    {
        const uint dpi = (256 + RTM_WG - 1) / RTM_WG; /* digits per work-item */
        const uint d0 = min(lid * dpi, 256u), d1 = min(d0 + dpi, 256u);
        uint s = 0;
        for (uint d = d0; d < d1; d++)
            s += tot[d];
        ulong total;
        uint run = (uint)scan_excl(s, sc, &total);
        for (uint d = d0; d < d1; d++) {
            gbase[d] = run + off[(size_t)d * nb + blk];
            run += tot[d];
        }
    }

    /* Tile in, coalesced; then each work-item takes pairs lid * RS_RK .. + RS_RK - 1. */
#pragma unroll
    for (int j = 0; j < RS_RK; j++) {
        const uint p = (uint)j * RTM_WG + lid;
        e[RS_PAD(p)] = base + p < n_valid ? src[base + p] : ULONG_MAX;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong v[RS_RK];
#pragma unroll
    for (int j = 0; j < RS_RK; j++)
        v[j] = e[RS_PAD(lid * RS_RK + (uint)j)];

    /* Four stable 2-bit splits, least significant first. */
    for (uint b = 0; b < 8; b += 2) {
        const uint sh = shift + b;
        ulong mine = 0;
#pragma unroll
        for (int j = 0; j < RS_RK; j++)
            mine += 1ul << (16u * (uint)(v[j] >> sh & 3u));
        ulong total;
        const ulong run = scan_excl(mine, sc, &total);
        /* Start of each category in the tile, packed like the counts: field c holds
         * the pairs of categories < c. Fields stay below 4096: no carries. */
        const ulong t0 = total & 0xFFFFul, t1 = total >> 16 & 0xFFFFul, t2 = total >> 32 & 0xFFFFul;
        ulong rb = run + (t0 << 16) + ((t0 + t1) << 32) + ((t0 + t1 + t2) << 48);
#pragma unroll
        for (int j = 0; j < RS_RK; j++) {
            const uint c16 = 16u * (uint)(v[j] >> sh & 3u);
            e[RS_PAD((uint)(rb >> c16 & 0xFFFFul))] = v[j];
            rb += 1ul << c16;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int j = 0; j < RS_RK; j++)
            v[j] = e[RS_PAD(lid * RS_RK + (uint)j)];
        /* The next split writes e only after its scan's barriers: every read is done. */
    }

    /* Where each digit's run starts in the sorted tile. */
    for (uint p = lid; p < RS_TILE; p += RTM_WG) {
        const uint d = (uint)(e[RS_PAD(p)] >> shift & 255u);
        if (p == 0 || d != (uint)(e[RS_PAD(p - 1)] >> shift & 255u))
            start[d] = p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
    for (int j = 0; j < RS_RK; j++) {
        const uint p = (uint)j * RTM_WG + lid;
        const ulong x = e[RS_PAD(p)];
        const uint d = (uint)(x >> shift & 255u);
        dst[gbase[d] + p - start[d]] = x;
    }
    RTM_BLOCK_END(blk);
}
