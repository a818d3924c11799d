/* grid_path.cl — cost-to-go field on an occupancy grid by tiled parallel relaxation
 * (Bellman-Ford style), one launch per global pass, ping-pong between two fields.
 *
 * Graph: 8-connected cells; orthogonal move 10, diagonal move 14 (integers, so the
 * field equals Dijkstra's exactly); a diagonal move is allowed only when both cells it
 * cuts past are free (no corner cutting); blocked cells and cells outside the grid are
 * never entered and stay GP_INF.
 *
 * Pass `pass` reads field `src` and writes field `dst`. Block b owns the 32 x 32 tile
 * (b % tiles_x, b / tiles_x): it loads the tile and a one-cell halo into local memory,
 * relaxes the tile in place until a sweep changes nothing (the halo stays fixed), and
 * writes the tile to dst. The result is the unique fixpoint of the tile given src, so
 * it does not depend on the order of updates inside a sweep (work-items read
 * neighbours that others may be lowering: every value read is a valid upper bound).
 * A block that changed any cell sets flags[pass] = 1: a cell lowered (then its first
 * sweep changed one) or a blocked cell written as GP_INF over another value in src (seen
 * as the tile loads), so no work-item keeps its cells' src values in registers (the
 * H100: the original 3 % faster, every build within 32 registers where the abortable
 * ones had needed 34; docs/preempt.md). When flags[pass - 1] is 0 the
 * previous pass changed nothing, both fields already hold the final values, and the
 * block does nothing: once converged, the remaining passes cost only their launch.
 * Work-item lid owns the tile cells lid + j * RTM_WG (consecutive work-items on
 * consecutive columns: coalesced global access, conflict-free local access).
 * Work-item 0 polls the abort flag every 16 sweeps from the 17th on: the first GP_FREE
 * sweeps (a block does 2.1 on average) run in a loop with no poll code, the rest in a
 * second loop that polls (the H100, one loop polling at sweeps 16, 32, ...: production
 * 5.81 %, two loops 5.15 %; docs/preempt.md, "grid_path's unpolled first sweeps"). The
 * decision travels in the sweep word that also says whether the sweep changed anything
 * (gp_word_t): byte 0 is set by any work-item whose cells changed, byte 1 by work-item 0
 * when its poll saw the flag (a sweep ahead, when it clears the word), and after the
 * sweep's barrier every work-item reads the one word and goes on only while it is
 * "changed, not stopped": all leave the loop together, one sweep after the poll, and
 * the loop reads nothing more than the original kernel's change test. (A poll with its
 * latency hidden, the flag loaded at one poll and tested at the next, cost the same on
 * the H100: session 15. Reading the group's stop word after every sweep cost production
 * 2-3 points: session 34.)
 * Build options: RTM_WG (a divisor of 1024). */
#include "rtm_block.h"

#define GP_T 32
#define GP_HT (GP_T + 2)
#define GP_CELLS (GP_T * GP_T)
#define GP_PER (GP_CELLS / RTM_WG)
#define GP_INF 0x3FFFFFFFu
#define GP_C1 10u
#define GP_C2 14u
#define GP_MAXS (GP_CELLS + 2) /* sweeps: enough for any path inside a tile */
#define GP_LD ((GP_HT * GP_HT + RTM_WG - 1) / RTM_WG) /* tile and halo cells a work-item loads */

/* A sweep's word: b[0] = 1 when a cell changed, b[1] = 1 when the block stops. The loop
 * goes on while the word is GP_GO (b[0] alone); its value depends on the byte order. */
typedef union {
    uint w;
    uchar b[4];
} gp_word_t;
#ifdef __ENDIAN_LITTLE__
#define GP_GO 0x00000001u
#define GP_STOP 0x00000100u
#else
#define GP_GO 0x01000000u
#define GP_STOP 0x00010000u
#endif

/* Sweeps before the first poll (every sweep in the builds without in-loop polls, which
 * then have the one loop). */
#if RTM_POLL_EVERY > 0
#define GP_FREE 16u
#else
#define GP_FREE GP_MAXS
#endif
/* One sweep over work-item lid's cells of the tile; true when any of them changed. */
int gp_relax(__local uint cost[GP_HT][GP_HT], const uchar *diag, const uint lid)
{
    int ch = 0;
#pragma unroll
    for (int j = 0; j < GP_PER; j++) {
        const uint c = lid + (uint)j * RTM_WG;
        const int cx = (int)(c % GP_T) + 1, cy = (int)(c / GP_T) + 1;
        const uint dm = diag[j];
        if (dm & 16)
            continue;
        const uint cur = cost[cy][cx];
        uint best = cur;
        best = min(best, cost[cy][cx - 1] + GP_C1);
        best = min(best, cost[cy][cx + 1] + GP_C1);
        best = min(best, cost[cy - 1][cx] + GP_C1);
        best = min(best, cost[cy + 1][cx] + GP_C1);
        best = min(best, (dm & 1u) ? cost[cy - 1][cx - 1] + GP_C2 : GP_INF);
        best = min(best, (dm & 2u) ? cost[cy - 1][cx + 1] + GP_C2 : GP_INF);
        best = min(best, (dm & 4u) ? cost[cy + 1][cx - 1] + GP_C2 : GP_INF);
        best = min(best, (dm & 8u) ? cost[cy + 1][cx + 1] + GP_C2 : GP_INF);
        if (best < cur) {
            cost[cy][cx] = best;
            ch = 1;
        }
    }
    return ch;
}

/* Sweep s of the block, in a loop over s: work-item 0 clears the next sweep's word with
 * `next` in it (a poll's verdict: GP_STOP or 0), every work-item relaxes its cells, and
 * after the barrier all read the sweep's word and leave the loop together unless it is
 * GP_GO (changed, not stopped). */
#define GP_SWEEP(next)                                                              \
    if (lid == 0)                                                                   \
        lch[(s + 1) % 3].w = (next);                                                \
    if (gp_relax(cost, diag, lid))                                                  \
        lch[s % 3].b[0] = 1;                                                        \
    barrier(CLK_LOCAL_MEM_FENCE);                                                   \
    if (lch[s % 3].w != GP_GO)                                                      \
    break

__kernel void grid_path(RTM_BLOCK_ARGS, __global const uint *restrict src, __global uint *restrict dst,
                        __global const uchar *restrict occ, __global uint *flags,
                        const uint width, const uint height, const uint tiles_x, const uint pass)
{
    /* read before the block's entry check, so that its load and the abort flag's are in
     * flight together (it is the launch's, not the block's: every block reads the same;
     * the H100's entry check cost 1.3-1.5 % with it, 2.2-2.4 % without: session 15) */
    const int idle = pass > 0 && flags[pass - 1] == 0;
    RTM_BLOCK_BEGIN(blk);
    __local uint cost[GP_HT][GP_HT];
    __local uchar blocked[GP_HT][GP_HT];
    __local gp_word_t lch[3];

    const uint lid = get_local_id(0);
    const int x0 = (int)(blk % tiles_x) * GP_T, y0 = (int)(blk / tiles_x) * GP_T;

    /* 1. Tile and halo; cells outside the grid are blocked. Blocked cells cost GP_INF.
     *    Every load is issued before any is used: a work-item's GP_LD cells of occ and
     *    src together (src whatever occ holds), so the block waits for one round of
     *    loads, not two per cell in turn (the H100, 16 384 x 512 cells, 128 passes:
     *    11.86 -> 11.05 ms, and the completed-block array's share 3.5 -> 2.0 %;
     *    docs/preempt.md, "grid_path's tile loads"). */
    int dirty = 0; /* a blocked cell of the tile whose src is not GP_INF: written as GP_INF */
    if (!idle) {
        uchar ob[GP_LD];
        uint sv[GP_LD];
#pragma unroll
        for (int k = 0; k < GP_LD; k++) {
            const uint i = lid + (uint)k * RTM_WG;
            const int hx = (int)(i % GP_HT), hy = (int)(i / GP_HT);
            const int gx = x0 + hx - 1, gy = y0 + hy - 1;
            const int inside =
                i < GP_HT * GP_HT && gx >= 0 && gx < (int)width && gy >= 0 && gy < (int)height;
            const size_t gi = inside ? (size_t)gy * width + (size_t)gx : 0;
            ob[k] = inside ? occ[gi] : (uchar)1;
            sv[k] = inside ? src[gi] : GP_INF;
        }
#pragma unroll
        for (int k = 0; k < GP_LD; k++) {
            const uint i = lid + (uint)k * RTM_WG;
            if (i < GP_HT * GP_HT) {
                const int hx = (int)(i % GP_HT), hy = (int)(i / GP_HT);
                blocked[hy][hx] = (uchar)(ob[k] != 0);
                cost[hy][hx] = ob[k] ? GP_INF : sv[k];
                dirty |= ob[k] && sv[k] != GP_INF && hx >= 1 && hx <= GP_T && hy >= 1 && hy <= GP_T;
            }
        }
    }
    if (lid < 3)
        lch[lid].w = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. Per owned cell: which diagonals it may take. */
    uchar diag[GP_PER]; /* bit 0: (-1,-1), 1: (+1,-1), 2: (-1,+1), 3: (+1,+1); 16: blocked */
#pragma unroll
    for (int j = 0; j < GP_PER; j++) {
        const uint c = lid + (uint)j * RTM_WG;
        const int cx = (int)(c % GP_T) + 1, cy = (int)(c / GP_T) + 1;
        diag[j] = 16;
        if (!idle && !blocked[cy][cx]) {
            const int l = !blocked[cy][cx - 1], r = !blocked[cy][cx + 1];
            const int u = !blocked[cy - 1][cx], d = !blocked[cy + 1][cx];
            diag[j] = (uchar)((l & u) | (r & u) << 1 | (l & d) << 2 | (r & d) << 3);
        }
    }

    /* 3. Relax in place until a sweep changes nothing: the first GP_FREE sweeps (most
     *    blocks' all) in a loop without poll code, then the polled loop. */
    uint s = 0;
    for (; s < (idle ? 0u : GP_FREE); s++) {
        GP_SWEEP(0u);
    }
#if RTM_POLL_EVERY > 0
    if (s == GP_FREE)
        for (; s < GP_MAXS; s++) {
            GP_SWEEP(((s & 15u) == 0u && RTM_POLL()) ? GP_STOP : 0u);
        }
#endif

    /* 4. Tile out; flag the pass when anything changed: a cell lowered (then the first
     *    sweep changed one, and the block went on past it: s > 0) or a blocked cell
     *    written as GP_INF over another value. */
    if (!idle && !rtm_stop_) {
#pragma unroll
        for (int j = 0; j < GP_PER; j++) {
            const uint c = lid + (uint)j * RTM_WG;
            const int cx = (int)(c % GP_T), cy = (int)(c / GP_T);
            const int gx = x0 + cx, gy = y0 + cy;
            if (gx < (int)width && gy < (int)height)
                dst[(size_t)gy * width + (size_t)gx] = cost[cy + 1][cx + 1];
        }
        if (s > 0 || dirty)
            flags[pass] = 1;
    }
    RTM_BLOCK_END(blk);
}
