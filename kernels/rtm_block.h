/* rtm_block.h — the block contract every rtmgr OpenCL kernel is built on (seed 002).
 *
 * A kernel is a 1-D range of blocks (work-groups) of RTM_WG work-items. Each block:
 *   1. reads the abort flag once (work-item 0, shared through local memory) and, if it
 *      is raised, returns at once without touching its outputs;
 *   2. maps its group id through the block map when one is given (a resumed launch
 *      runs only the blocks that had not completed);
 *   3. computes its outputs; long loops poll the flag with RTM_POLL() and stop early;
 *   4. after a barrier, work-item 0 marks done[block] = 1 unless the block stopped.
 *
 * Invariant: a block's outputs depend only on inputs that no block of the same launch
 * writes, so re-running an unfinished block is safe and a completed block is never
 * run again. Build options from the runtime: RTM_WG (work-items per block), RTM_VEC
 * (vector width). */
#ifndef RTM_BLOCK_H
#define RTM_BLOCK_H

#ifndef RTM_WG
#define RTM_WG 256
#endif
#ifndef RTM_VEC
#define RTM_VEC 1
#endif

#define RTM_CAT_(a, b) a##b
#define RTM_CAT(a, b) RTM_CAT_(a, b)
/* Vector type of width RTM_VEC over scalar type t: RTM_V(float) is float4 when RTM_VEC=4. */
#if RTM_VEC == 1
#define RTM_V(t) t
#else
#define RTM_V(t) RTM_CAT(t, RTM_VEC)
#endif

/* The four standard arguments, first in every entry point. */
#define RTM_BLOCK_ARGS                                                              \
    __global const volatile int *rtm_abort, __global uchar *rtm_done,               \
        __global const uint *rtm_map, const uint rtm_nmap

/* Opens the block; declares `const uint blk`, the logical block id.
 * rtm_stop_ is plain (not volatile) local memory: every read of it that matters follows
 * a barrier, which already makes the writes of other work-items visible. (PoCL 3.1
 * miscompiles the early return below when the flag is volatile and the work-group has
 * 32 or fewer work-items: the block then never marks itself done.) */
#define RTM_BLOCK_BEGIN(blk)                                                        \
    __local int rtm_stop_;                                                          \
    if (get_local_id(0) == 0)                                                       \
        rtm_stop_ = *rtm_abort;                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                                   \
    if (rtm_stop_)                                                                  \
        return;                                                                     \
    const uint blk = rtm_nmap ? rtm_map[get_group_id(0)] : (uint)get_group_id(0)

/* In-loop poll: true (and the block will not be marked done) once the flag is up. */
#define RTM_POLL() (*rtm_abort ? (rtm_stop_ = 1, 1) : 0)

/* Closes the block: marks it completed unless a poll stopped it. */
#define RTM_BLOCK_END(blk)                                                          \
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);                            \
    if (get_local_id(0) == 0 && !rtm_stop_)                                         \
        rtm_done[blk] = 1

#endif
