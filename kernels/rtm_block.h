/* rtm_block.h — the block contract every rtmgr OpenCL kernel is built on (seed 002).
 *
 * A kernel is a 1-D range of logical blocks of RTM_WG work-items. Each block:
 *   1. checks the abort flag at entry (work-item 0 loads it, the group shares it through
 *      local memory) and, if it is raised, stops without touching its outputs;
 *   2. maps its index through the block map when one is given (a resumed launch runs
 *      only the blocks that had not completed);
 *   3. computes its outputs; long loops poll the flag (RTM_POLL(), RTM_POLL_FOR) and
 *      stop early — the block is then not completed;
 *   4. after a barrier, work-item 0 marks done[block] = 1 unless the block stopped
 *      (seed 002's third feedback variant: completed-block array after a barrier);
 *   5. with RTM_END_MARK, when its group leaves (after its last block, or stopped),
 *      work-item 0 counts the group out; the launch's last group writes the end mark
 *      (rtm_end, host memory the device writes directly) that tells the host the kernel
 *      has ended, before the driver's event does.
 *
 * The watcher (RTM_END_MARK builds, a launch with bit 1 of rtm_nmap set, which the
 * runtime launches with one work-group more): group 0 runs no block. Its work-item 0
 * reads the host's raise word (rtm_end[RTM_WATCH_WORD], host memory) every
 * RTM_WATCH_CYCLES clocks and, once it is up, writes every copy of the device flag,
 * which the other groups poll as before; it leaves when the device flag is up or every
 * other group has left. The host raises both the word and the device flag (its
 * transfer); on the H100 a transfer started 50-80 us after the raise while a long
 * kernel ran, the word is seen within one period plus a PCIe read (1-2 us). One reader
 * for the whole grid, because the H100 serves about one read of host memory per us for
 * all its SMs: every group reading the word itself queued its reads for milliseconds
 * (docs/preempt.md, "The watcher").
 *
 *     __kernel void k(RTM_BLOCK_ARGS, __global const float *in, __global float *out)
 *     {
 *         RTM_BLOCK_BEGIN(blk);          // declares const uint blk
 *         const size_t i = (size_t)blk * RTM_WG + get_local_id(0);
 *         float acc = 0.0f;
 *         RTM_POLL_FOR(j, 0, n)          // strip-mined loop: polls every RTM_POLL_EVERY
 *             acc += in[i] * j;          // iterations, nothing per iteration
 *         // or RTM_POLL_LOOP(j, 0, n, acc += in[i] * j);  (full strips on GPUs)
 *         // or, in a loop of heavy steps:  if ((k & 63) == 63 && RTM_POLL()) break;
 *         if (!RTM_STOPPED())
 *             out[i] = acc;
 *         RTM_BLOCK_END(blk);            // nothing may follow it
 *     }
 *
 * Rules for the code between BEGIN and END (tests/unit/test_preempt.c checks the .cl
 * files for the first two):
 *   - index everything from `blk` and get_local_id(0), never get_group_id/get_global_id
 *     (a work-group may run several logical blocks, and a resumed one runs mapped ids);
 *   - never `return` (the group would drop the other logical blocks it owns); let loops
 *     end through the poll and fall through to RTM_BLOCK_END;
 *   - `__local` arrays may be declared anywhere at kernel scope (BEGIN opens no brace);
 *   - re-running a block that did not complete must be safe: its outputs depend only on
 *     inputs that no block of the same launch writes (idempotent per block).
 *   - a loop that contains barrier() must leave on a decision every work-item shares:
 *     RTM_POLL_WG(), or RTM_POLL() by one work-item, a barrier, then RTM_STOPPED() —
 *     never a per-item RTM_POLL() / RTM_POLL_FOR break (the barriers would not match).
 *
 * Persistent groups (RTM_PERSIST=1 or 2): the runtime launches at most as many
 * work-groups as the device holds at once (G) and each group runs several logical blocks
 * (a label and a backward goto, so no brace is opened): group g starts with block g, then
 *   RTM_PERSIST=2  fetches its next block in order from a per-launch counter (one atomic
 *                  by work-item 0 per block, issued when the block starts and consumed
 *                  at its end barrier: latency hidden; balanced even when fewer groups
 *                  than G fit on the device);
 *   RTM_PERSIST=1  takes blocks g+G, g+2G, … (no atomic; needs all G groups resident).
 * After an abort, the groups still running finish (or poll out of) their current block
 * and the grid drains in one wave instead of tens of thousands of empty work-group
 * launches. The entry check of the 2nd and later blocks of a group is free: work-item 0
 * loads the flag when a block starts and the group tests it at that block's end barrier
 * (load early, test later).
 *
 * In-loop polls are cheap by construction: a poll issues one flag load into a register
 * and tests the value loaded at the previous poll (its latency is hidden); with
 * RTM_POLL_LANES=1 the test is that register alone (no local-memory read on the loop's
 * path; a raised flag is then written to the group's stop word), with L > 1 only one
 * work-item in L loads global memory and the others read the stop word; RTM_POLL_FOR
 * polls once per RTM_POLL_EVERY iterations with no per-iteration test at all and one
 * register of strip state, RTM_POLL_N(n) once per RTM_POLL_EVERY counted iterations,
 * RTM_POLL() on every call (for loops whose steps are heavy).
 *
 * Build options set by the runtime (rtmgr/kexec.c), with their defaults here:
 *   RTM_WG, RTM_VEC       work-items per block, vector width
 *   RTM_PERSIST=0|1|2     persistent groups: 0 none, 1 static stride, 2 in-order fetch
 *   RTM_POLL_EVERY=K      in-loop poll period in loop iterations; 0 = no in-loop poll
 *   RTM_POLL_LANES=L      one work-item in L loads the global flag at a poll (1 = all)
 *   RTM_NO_ABORT=1        the original kernel: no check, no mark, no poll (benchmarks)
 *   RTM_NO_DONE=1         the paper's entry check alone: every work-item reads the flag
 *                         and returns; no barrier, no completed-block array (benchmarks)
 *   RTM_WG_CHECK=1        the work-group entry check alone (work-item 0 loads the flag,
 *                         the group shares it through local memory); no completed-block
 *                         array, no poll (benchmarks: the production check's own cost)
 *   RTM_FLAG_COPIES=R     the flag is R copies RTM_FLAG_STRIDE ints apart (one per cache
 *                         line); group g reads copy g % R, so that the loads of thousands
 *                         of groups spread over R lines (R memory slices) instead of
 *                         queueing at the one slice that holds a single flag word.
 *                         The host raises and clears every copy (rtmgr/abortflag.c)
 *   RTM_END_MARK=1        groups count out and the last writes the end mark (rtm_end)
 *   RTM_COUNT_BLOCKS=1    debug: atomically count completions per block in rtm_count
 *   RTM_HIDE_LATENCY=0|1  1 (GPUs): look-ahead loads in registers; 0 (CPU devices): read
 *                         where used (see RTM_PEEK_FLAG_)
 *   RTM_FETCH_STORE=1     with RTM_PERSIST=2 and RTM_HIDE_LATENCY: the next block's fetch
 *                         goes to local memory when a block starts, not to a register
 *                         held to its end (kexec: long blocks, rtm_preempt_grid_for_block)
 *   RTM_POLL_LD=1         latency-hidden polls load the flag at GPU scope (ld.relaxed.gpu;
 *                         kexec: NVIDIA compute capability 7.0 and up, flag in device
 *                         memory; rtm_poll_load_)
 * Experiment switch (bench preempt --cl-opts; RTM_POLL_FOR with RTM_HIDE_LATENCY):
 *   RTM_POLL_FULL=0       RTM_POLL_LOOP as RTM_POLL_FOR (strips of min(K, hi - s) steps)
 *   RTM_POLL_NOLOAD=1     strips without the flag load (a raise is never seen): the
 *                         strip-mined loop's own cost, apart from the load's
 *                         (docs/preempt.md: the H100's +poll split, and the variants
 *                         measured and not kept)
 *
 * Standard arguments (RTM_BLOCK_ARGS, first in every entry point, set by kexec):
 *   rtm_abort  the abort flag (int, 0 run, 1 abort; device memory or host-mapped;
 *              RTM_FLAG_COPIES copies RTM_FLAG_STRIDE ints apart)
 *   rtm_done   completed-block array of the job; this launch's slice starts at rtm_doff
 *   rtm_map    block ids of a resumed launch (used when bit 0 of rtm_nmap is set)
 *   rtm_nmap   bit 0: a mapped launch (the map holds rtm_nblk ids); bit 1: a watched
 *              launch (group 0 is the watcher, blocks run on groups 1, 2, …)
 *   rtm_nblk   logical blocks this launch runs
 *   rtm_doff   offset of this launch in rtm_done / rtm_count (launch * stride)
 *   rtm_count  RTM_COUNT_BLOCKS only: uint per block, completions (else unused, NULL)
 *   rtm_next   rtm_next[0]: groups of the running launch that have left (the last one
 *              puts it back to 0); RTM_PERSIST=2: fetch counters, rtm_next[1 + rtm_doff /
 *              64] for this launch, zero when the launch starts (rtm_doff is a multiple
 *              of 64)
 *   rtm_end    end mark, or NULL: the launch's last group to leave writes rtm_doff + 1
 *              (the host clears it when a run starts and watches it; rtmgr/kexec.h);
 *              rtm_end[RTM_WATCH_WORD] is the host's raise word for the watcher */
#ifndef RTM_BLOCK_H
#define RTM_BLOCK_H

#ifndef RTM_WG
#define RTM_WG 256
#endif
#ifndef RTM_VEC
#define RTM_VEC 1
#endif
#ifndef RTM_PERSIST
#define RTM_PERSIST 0
#endif
#ifndef RTM_FETCH_STORE
#define RTM_FETCH_STORE 0
#endif
#ifndef RTM_POLL_EVERY
#define RTM_POLL_EVERY 256
#endif
#ifndef RTM_POLL_LANES
#define RTM_POLL_LANES 1
#endif
#ifndef RTM_NO_ABORT
#define RTM_NO_ABORT 0
#endif
#ifndef RTM_NO_DONE
#define RTM_NO_DONE 0
#endif
#ifndef RTM_COUNT_BLOCKS
#define RTM_COUNT_BLOCKS 0
#endif
#ifndef RTM_HIDE_LATENCY
#define RTM_HIDE_LATENCY 1
#endif
#ifndef RTM_POLL_NOLOAD
#define RTM_POLL_NOLOAD 0
#endif
#ifndef RTM_POLL_FULL
#define RTM_POLL_FULL 1
#endif
#ifndef RTM_POLL_LD
#define RTM_POLL_LD 0
#endif
/* The type of RTM_POLL_FOR / RTM_POLL_LOOP's index (uint). A kernel whose loop body
 * indexes global memory with it may define it as ulong before including this header:
 * a 32-bit index that may wrap cannot be split into a strip's base and a constant
 * offset, so every step computes its own address (matrix_mov: docs/preempt.md, "The
 * poll loop's index type", with why matrix_mul and matrix_loop_add keep uint). */
#ifndef RTM_POLL_INDEX
#define RTM_POLL_INDEX uint
#endif

#ifndef RTM_WG_CHECK
#define RTM_WG_CHECK 0
#endif
#ifndef RTM_FLAG_COPIES
#define RTM_FLAG_COPIES 1
#endif
#ifndef RTM_END_MARK
#define RTM_END_MARK 0
#endif
/* ints between two copies of the flag (128 bytes: one cache line each) */
#define RTM_FLAG_STRIDE 32

/* This work-group's copy of the abort flag. */
#if RTM_FLAG_COPIES > 1
#define RTM_FLAG_ (rtm_abort + (get_group_id(0) % RTM_FLAG_COPIES) * RTM_FLAG_STRIDE)
#else
#define RTM_FLAG_ rtm_abort
#endif

#ifdef __clang__
/* The block words are written by work-item 0 only, then read by all after a barrier. */
#pragma clang diagnostic ignored "-Wsometimes-uninitialized"
#endif

#define RTM_CAT_(a, b) a##b
#define RTM_CAT(a, b) RTM_CAT_(a, b)
/* Vector type of width RTM_VEC over scalar type t: RTM_V(float) is float4 when RTM_VEC=4. */
#if RTM_VEC == 1
#define RTM_V(t) t
#else
#define RTM_V(t) RTM_CAT(t, RTM_VEC)
#endif

/* The standard arguments, first in every entry point. */
#define RTM_BLOCK_ARGS                                                              \
    __global const volatile int *rtm_abort, __global uchar *rtm_done,               \
        __global const uint *rtm_map, const uint rtm_nmap, const uint rtm_nblk,     \
        const uint rtm_doff, __global uint *rtm_count, __global volatile uint *rtm_next, \
        __global volatile uint *rtm_end

#if RTM_NO_ABORT || RTM_NO_DONE || RTM_WG_CHECK
/* The benchmark variants never poll and never run persistent. */
#undef RTM_POLL_EVERY
#define RTM_POLL_EVERY 0
#undef RTM_PERSIST
#define RTM_PERSIST 0
#endif

#if RTM_NO_ABORT || RTM_NO_DONE || RTM_WG_CHECK
/* ---- benchmark builds, one work-group per block: the original kernel (nothing added),
 * the paper's entry check alone (every work-item reads the flag and returns), the
 * work-group entry check alone (one load per group, shared through local memory) --- */
#if RTM_NO_ABORT
#define RTM_ENTRY_CHECK_() (void)0
#elif RTM_NO_DONE
#define RTM_ENTRY_CHECK_()                                                          \
    if (*RTM_FLAG_)                                                                 \
    return
#else
#define RTM_ENTRY_CHECK_()                                                          \
    __local int rtm_quitc_;                                                         \
    if (get_local_id(0) == 0)                                                       \
        rtm_quitc_ = *RTM_FLAG_;                                                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                   \
    if (rtm_quitc_)                                                                 \
    return
#endif
#define RTM_BLOCK_BEGIN(blk)                                                        \
    RTM_ENTRY_CHECK_();                                                             \
    const uint blk = (rtm_nmap & 1u) ? rtm_map[get_group_id(0)] : (uint)get_group_id(0)
#define RTM_BLOCK_END(blk) (void)0
#define RTM_POLL() 0
#define RTM_POLL_N(n) 0
#define RTM_POLL_WG() 0
#define RTM_STOPPED() 0
#define rtm_stop_ 0
#define RTM_POLL_FOR(i, lo, hi) for (RTM_POLL_INDEX i = (lo), rtm_hi_ = (hi); i < rtm_hi_; i++)

#else
/* ---- abortable kernel --------------------------------------------------------------- */

/* The two halves of a latency-hidden poll: RTM_POLL_FOR issues the load when a strip
 * starts and tests it when the next strip starts (rtm_poll_now_ does both at once).
 * With one lane the test is the loaded register alone (a raised flag is published to
 * the group's stop word then, once); with more lanes the others read the stop word. */
int rtm_poll_test_(__local volatile uint *stop, uint tag, int pv)
{
#if RTM_POLL_LANES > 1
    if (pv)
        *stop = tag;
    return *stop == tag;
#else
    if (pv) {
        *stop = tag;
        return 1;
    }
    return 0;
#endif
}

/* The latency-hidden polls' flag load (RTM_POLL_FOR, RTM_POLL_LOOP, RTM_POLL_N; the
 * immediate RTM_POLL and RTM_POLL_WG keep the volatile load). With RTM_POLL_LD=1
 * (NVIDIA, compute capability 7.0 and up: kexec sets it) a relaxed load at GPU scope
 * instead of the volatile load's system scope (LDG.E.STRONG.GPU, not .SYS): on the H100 the persistent
 * groups' polled matrix_mov cost 3.5-4.4 % over the original kernel with the volatile
 * load and -1.4..-0.7 % with this one (docs/preempt.md, "The polls' load scope"). The
 * flag lives in device memory; the host's transfer and the watcher's store both reach
 * it through the GPU's L2, which a GPU-scope load reads. */
int rtm_poll_load_(__global const volatile int *flag)
{
#if RTM_POLL_LD
    int v;
    asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"((ulong)flag));
    return v;
#else
    return *flag;
#endif
}

uint rtm_poll_issue_(__global const volatile int *flag, int *pv)
{
#if RTM_POLL_NOLOAD
    (void)flag;
    *pv = 0;
#else
#if RTM_POLL_LANES > 1
    if (get_local_id(0) % RTM_POLL_LANES == 0)
#endif
        *pv = rtm_poll_load_(flag);
#endif
    return 0u;
}

/* Poll with the latency hidden (RTM_POLL_N): tests the flag value this work-item loaded
 * at its previous poll (a raised flag marks the current block interrupted: stop word =
 * tag; rtm_poll_test_) and issues the next load (rtm_poll_issue_), which the loop's work
 * covers until the next poll. Not for loops that contain barriers (the private pending
 * value is then miscompiled by PoCL 3.1, and the break would not be uniform anyway). */
int rtm_poll_now_(__global const volatile int *flag, __local volatile uint *stop, uint tag,
                  int *pv)
{
    if (rtm_poll_test_(stop, tag, *pv))
        return 1;
    rtm_poll_issue_(flag, pv);
    return 0;
}

/* Immediate poll, no private state (RTM_POLL): loads the flag now and tests it (with
 * more than one lane, the non-loading work-items read the group's stop word). */
int rtm_poll_imm_(__global const volatile int *flag, __local volatile uint *stop, uint tag)
{
#if RTM_POLL_LANES > 1
    if (get_local_id(0) % RTM_POLL_LANES == 0)
        if (*flag)
            *stop = tag;
    return *stop == tag;
#else
    if (*flag) {
        *stop = tag;
        return 1;
    }
    return 0;
#endif
}

/* Work-group-uniform poll (RTM_POLL_WG), for loops with barriers: work-item 0 loads the
 * flag, a barrier publishes it, every work-item reads the same stop word, and a second
 * barrier keeps work-item 0's next poll from overtaking a slow reader. */
int rtm_poll_wg_(__global const volatile int *flag, __local volatile uint *stop, uint tag)
{
    if (get_local_id(0) == 0 && *flag)
        *stop = tag;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int r = *stop == tag;
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* The watcher (RTM_END_MARK builds; see the top of this file). */
#if RTM_END_MARK
/* the host's raise word: rtm_end[RTM_WATCH_WORD] (128 bytes past the end mark) */
#define RTM_WATCH_WORD 32
#ifndef RTM_WATCH_CYCLES
/* clocks between two reads of the raise word: 2 us at the H100's 1 980 MHz */
#define RTM_WATCH_CYCLES 4000u
#endif
/* bit 1 of rtm_nmap: this launch has a watcher (group 0) */
#define RTM_WATCHED_ ((rtm_nmap >> 1) & 1u)
/* The SM's clock (NVIDIA: RTM_END_MARK is only set where clCreateBufferNV exists). */
uint rtm_clock_(void)
{
    uint t;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
    return t;
}
/* Work-item 0 of group 0: reads the raise word every RTM_WATCH_CYCLES clocks (a PCIe
 * read, which the loop waits for: it has nothing else to do) and the device flag and
 * the leave counter between; returns when the device flag is up, when it has raised
 * it, or when every other group has left. */
void rtm_watch_(__global const volatile int *flag, __global volatile uint *left,
                __global volatile uint *end)
{
    __global volatile uint *word = end + RTM_WATCH_WORD;
    uint due = rtm_clock_();
    while (!*flag && *left + 1u < (uint)get_num_groups(0)) {
        const uint c = rtm_clock_();
        if (c - due < 0x80000000u) { /* due (wrap-safe) */
            due = c + RTM_WATCH_CYCLES;
            if (*word) {
                __global volatile int *w = (__global volatile int *)flag;
                for (uint k = 0; k < RTM_FLAG_COPIES; k++)
                    w[k * RTM_FLAG_STRIDE] = 1;
                return;
            }
        }
    }
}
/* Group 0 of a watched launch watches, counts itself out, and leaves. */
#define RTM_WATCH_()                                                                \
    if (RTM_WATCHED_ && get_group_id(0) == 0) {                                     \
        if (get_local_id(0) == 0) {                                                 \
            rtm_watch_(rtm_abort, rtm_next, rtm_end);                               \
            RTM_LEAVE_();                                                           \
        }                                                                           \
        return;                                                                     \
    }
#else
#define RTM_WATCHED_ 0u
#define RTM_WATCH_() (void)0
#endif
/* The groups that run blocks. */
#define RTM_WORKERS_ ((uint)get_num_groups(0) - RTM_WATCHED_)

#if RTM_COUNT_BLOCKS
#define RTM_COUNT_(blk) atomic_inc(&rtm_count[rtm_doff + (blk)])
#else
#define RTM_COUNT_(blk) (void)0
#endif

/* Work-item 0's look-ahead for the next block: the flag and the next block id. With
 * RTM_HIDE_LATENCY (GPUs) both are issued into registers when a block starts and
 * consumed at its end barrier; without (CPU devices, where nothing needs hiding) they
 * are read at the block's end straight into local memory. (PoCL 3.1 miscompiles
 * private values written by one work-item and carried across barriers inside loops.) */
#if !RTM_PERSIST /* one block per group: the polls' value, nothing to look ahead for */
#define RTM_PEEK_FLAG_() 0
#define RTM_END_FLAG_() rtm_pv_
#elif RTM_HIDE_LATENCY
#define RTM_PEEK_FLAG_() (get_local_id(0) == 0 ? *RTM_FLAG_ : 0)
#define RTM_END_FLAG_() rtm_pv_
#else
#define RTM_PEEK_FLAG_() 0
#define RTM_END_FLAG_() (*RTM_FLAG_)
#endif

#if RTM_PERSIST == 2
#define RTM_FETCH_NEXT_() (RTM_WORKERS_ + atomic_inc(&rtm_next[1u + (rtm_doff >> 6)]))
#if RTM_HIDE_LATENCY && RTM_FETCH_STORE
/* long blocks: work-item 0 fetches the next block when a block starts and stores it in
 * the parity slot at once (its warp waits for the atomic there); no register holds it
 * through the block, which a loop whose loads the compiler batches needs (H100, n = 4000,
 * matrix_mul's production build on persistent groups: 20.2 % -> 5.2 % over the original
 * kernel; matrix_loop_add 11.8 % -> -8.6 %). The slot is free: its last readers read it
 * after the end barrier two blocks back, and every work-item has since passed the
 * previous block's end barrier. */
#define RTM_FETCH_ISSUE_()                                                          \
    if (get_local_id(0) == 0)                                                       \
    rtm_nextw_[rtm_fp_] = RTM_FETCH_NEXT_()
#define RTM_FETCH_PUBLISH_() (void)0
#elif RTM_HIDE_LATENCY
/* work-item 0 fetches the group's next block when a block starts ... */
#define RTM_FETCH_ISSUE_() const uint rtm_nx_ = get_local_id(0) == 0 ? RTM_FETCH_NEXT_() : 0u
/* ... publishes it before the end barrier (slot by block parity: a fast work-item-0
 * never overwrites a slot a slow work-item has still to read) ... */
#define RTM_FETCH_PUBLISH_() rtm_nextw_[rtm_fp_] = rtm_nx_
#else
#define RTM_FETCH_ISSUE_() (void)0
#define RTM_FETCH_PUBLISH_() rtm_nextw_[rtm_fp_] = RTM_FETCH_NEXT_()
#endif
/* ... and every work-item moves on to it after the barrier. */
#define RTM_LOOP_NEXT_()                                                            \
    rtm_it_ = rtm_nextw_[rtm_fp_];                                                  \
    rtm_fp_ ^= 1u;                                                                  \
    if (rtm_it_ < rtm_nblk)                                                         \
        goto rtm_top_
#define RTM_LOOP_TOP_() rtm_top_:
#elif RTM_PERSIST == 1
#define RTM_FETCH_ISSUE_() (void)0
#define RTM_FETCH_PUBLISH_() (void)0
#define RTM_LOOP_NEXT_()                                                            \
    rtm_it_ += RTM_WORKERS_;                                                        \
    if (rtm_it_ < rtm_nblk)                                                         \
        goto rtm_top_
#define RTM_LOOP_TOP_() rtm_top_:
#else
#define RTM_FETCH_ISSUE_() (void)0
#define RTM_FETCH_PUBLISH_() (void)0
#define RTM_LOOP_NEXT_() (void)0
#define RTM_LOOP_TOP_()
#endif

/* Opens the block; declares `const uint blk`, the logical block id.
 * The block words are plain local memory: every read of them that decides anything
 * follows a barrier, which makes other work-items' writes visible; only the polls read
 * the stop word between barriers, through a volatile pointer. (PoCL 3.1 miscompiles an
 * early return guarded by a volatile local word: blocks then never mark themselves.)
 * rtm_stopw_ holds the tag (iteration + 1) of an interrupted block, rtm_quitw_ the tag
 * of a block after which the group stops (~0 at entry: stop before the first block).
 * Tags never repeat within a group, so a fast work-item already in the next block never
 * confuses a slow one still testing the previous tag (no reset, no extra barrier). */
#define RTM_BLOCK_BEGIN(blk)                                                        \
    __local uint rtm_stopw_, rtm_quitw_, rtm_nextw_[2];                             \
    RTM_WATCH_();                                                                   \
    uint rtm_it_ = (uint)get_group_id(0) - RTM_WATCHED_, rtm_fp_ = 0;               \
    (void)rtm_fp_, (void)rtm_nextw_;                                                \
    if (get_local_id(0) == 0) {                                                     \
        rtm_stopw_ = 0;                                                             \
        rtm_quitw_ = (rtm_it_ >= rtm_nblk || *RTM_FLAG_) ? ~0u : 0u;                \
        RTM_ENTRY_LEAVE_();                                                         \
    }                                                                               \
    barrier(CLK_LOCAL_MEM_FENCE);                                                   \
    if (rtm_quitw_ == ~0u)                                                          \
        return;                                                                     \
    RTM_LOOP_TOP_();                                                                \
    int rtm_pv_ = RTM_PEEK_FLAG_();                                                 \
    RTM_FETCH_ISSUE_();                                                             \
    uint rtm_pc_ = 0;                                                               \
    (void)rtm_pc_, (void)rtm_pv_;                                                   \
    const uint blk = (rtm_nmap & 1u) ? rtm_map[rtm_it_] : rtm_it_

/* A group leaves (every path out of the kernel: entry check, stopped block, last
 * block): work-item 0 counts it out, and the launch's last group puts the count back to
 * 0 for the next launch and writes the end mark. Work-item 0 only, inside the blocks it
 * already runs alone (PoCL 3.1 runs no work-item, or every one, through a
 * get_local_id(0) == 0 test placed after the block's last return). The whole grid has
 * then passed its last barrier; the host sees the mark a PCIe write later (on the H100
 * 3.4-4.4 us before the driver's event says the kernel ended). Only with RTM_END_MARK=1
 * (set by kexec where the device writes host memory directly). */
#if RTM_END_MARK
#define RTM_LEAVE_()                                                                \
    if (rtm_end && atomic_inc(rtm_next) + 1u == (uint)get_num_groups(0)) {          \
        atomic_xchg(rtm_next, 0u);                                                  \
        *rtm_end = rtm_doff + 1u;                                                   \
    }
#else
#define RTM_LEAVE_() (void)0
#endif

/* Work-item 0, at a completed block's end: does the group have another block? */
#if RTM_PERSIST == 2
#define RTM_MORE_() (rtm_nextw_[rtm_fp_] < rtm_nblk)
#elif RTM_PERSIST == 1
#define RTM_MORE_() (rtm_it_ + RTM_WORKERS_ < rtm_nblk)
#else
#define RTM_MORE_() 0
#endif

/* Both ends begin alike: work-item 0 notes a flag seen up and publishes the next block,
 * then the block's barrier. */
#define RTM_END_BARRIER_()                                                          \
    if (get_local_id(0) == 0) {                                                     \
        if (RTM_END_FLAG_())                                                        \
            rtm_quitw_ = rtm_it_ + 1u;                                              \
        RTM_FETCH_PUBLISH_();                                                       \
    }                                                                               \
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)
/* Closes the block: after a barrier, marks it completed unless a poll stopped it; stops
 * the group when the block was interrupted or the flag was seen up; else (persistent)
 * goes on with the group's next logical block. With RTM_END_MARK, work-item 0 counts the
 * group out (RTM_LEAVE_) on every way out; without (CPU devices), the block's end as it
 * was before the end mark, which PoCL 3.1 compiles right (with the stopped test inside
 * work-item 0's block, it ran that block once per work-item). */
#if RTM_END_MARK
#define RTM_ENTRY_LEAVE_()                                                          \
    if (rtm_quitw_ == ~0u)                                                          \
    RTM_LEAVE_()
#define RTM_BLOCK_END(blk)                                                          \
    RTM_END_BARRIER_();                                                             \
    if (get_local_id(0) == 0) {                                                     \
        if (rtm_stopw_ != rtm_it_ + 1u) {                                           \
            rtm_done[rtm_doff + (blk)] = 1;                                         \
            RTM_COUNT_(blk);                                                        \
        }                                                                           \
        if (rtm_stopw_ == rtm_it_ + 1u || rtm_quitw_ == rtm_it_ + 1u || !RTM_MORE_()) \
            RTM_LEAVE_();                                                           \
    }                                                                               \
    if (rtm_stopw_ == rtm_it_ + 1u || rtm_quitw_ == rtm_it_ + 1u)                   \
        return;                                                                     \
    RTM_LOOP_NEXT_()
#else
#define RTM_ENTRY_LEAVE_() (void)0
#define RTM_BLOCK_END(blk)                                                          \
    RTM_END_BARRIER_();                                                             \
    if (rtm_stopw_ == rtm_it_ + 1u)                                                 \
        return;                                                                     \
    if (get_local_id(0) == 0) {                                                     \
        rtm_done[rtm_doff + (blk)] = 1;                                             \
        RTM_COUNT_(blk);                                                            \
    }                                                                               \
    if (rtm_quitw_ == rtm_it_ + 1u)                                                 \
        return;                                                                     \
    RTM_LOOP_NEXT_()
#endif

#if RTM_POLL_EVERY > 0
/* Polls now: true once the flag is up (then the block will not be marked completed).
 * One flag load whose latency is not hidden: call it where a step is heavy (e.g. every
 * 64 steps of a CTRV loop, once per tile), or from one work-item between barriers. */
#define RTM_POLL() rtm_poll_imm_(RTM_FLAG_, &rtm_stopw_, rtm_it_ + 1u)
/* Counts n loop iterations and polls (latency hidden) once RTM_POLL_EVERY have passed:
 * for loops without barriers whose iterations are short (the period is calibrated). */
#if RTM_HIDE_LATENCY
#define RTM_POLL_HIDDEN_() rtm_poll_now_(RTM_FLAG_, &rtm_stopw_, rtm_it_ + 1u, &rtm_pv_)
#else
#define RTM_POLL_HIDDEN_() RTM_POLL()
#endif
#define RTM_POLL_N(n)                                                               \
    ((rtm_pc_ += (uint)(n)) >= RTM_POLL_EVERY ? (rtm_pc_ = 0, RTM_POLL_HIDDEN_()) : 0)
/* Work-group-uniform poll (two barriers): every work-item must call it at the same
 * point; the caller chooses how often (e.g. every 16 sweeps). */
#define RTM_POLL_WG() rtm_poll_wg_(RTM_FLAG_, &rtm_stopw_, rtm_it_ + 1u)
/* Strip-mined loop `for (RTM_POLL_INDEX i = lo; i < hi; i++)` that polls once every
 * RTM_POLL_EVERY iterations and stops when the flag is up. The body is one statement or a braced
 * block; `break` inside it only leaves the current strip — end loops with a flag.
 * The inner loop is the original loop over one strip, with no test added (the compiler
 * unrolls and schedules it as before). With RTM_HIDE_LATENCY the flag load is issued
 * when a strip starts (in the inner loop's init) and its value tested when the next
 * strip starts, so a whole strip covers its latency: a flag is seen at most
 * 2 * RTM_POLL_EVERY iterations after it lands. */
#define RTM_STRIP_END_(s, h) ((h) - (s) > RTM_POLL_EVERY ? (s) + RTM_POLL_EVERY : (h))
/* The inner loop's init moves rtm_s_ to the strip's end at once (i starts from the old
 * value), so the strip's end and the next strip's start are one register, and a `break`
 * in the body still goes on with the next strip. */
#if RTM_HIDE_LATENCY
#define RTM_POLL_FOR(i, lo, hi)                                                     \
    for (uint rtm_s_ = (lo), rtm_h_ = (hi);                                         \
         rtm_s_ < rtm_h_ && !rtm_poll_test_(&rtm_stopw_, rtm_it_ + 1u, rtm_pv_);)   \
        for (RTM_POLL_INDEX i = rtm_s_,                                             \
                  rtm_e_ = (rtm_s_ = RTM_STRIP_END_(rtm_s_, rtm_h_)) +              \
                           rtm_poll_issue_(RTM_FLAG_, &rtm_pv_);                    \
             i < rtm_e_; i++)
#else
#define RTM_POLL_FOR(i, lo, hi)                                                     \
    for (uint rtm_s_ = (lo), rtm_h_ = (hi); rtm_s_ < rtm_h_ && !RTM_POLL();)       \
        for (RTM_POLL_INDEX i = rtm_s_, rtm_e_ = (rtm_s_ = RTM_STRIP_END_(rtm_s_, rtm_h_)); i < rtm_e_; i++)
#endif
#else
#define RTM_POLL_N(n) 0
#define RTM_POLL() 0
#define RTM_POLL_WG() 0
#define RTM_POLL_FOR(i, lo, hi) for (RTM_POLL_INDEX i = (lo), rtm_h_ = (hi); i < rtm_h_; i++)
#endif

/* RTM_POLL_LOOP(i, lo, hi, body...): the loop `for (RTM_POLL_INDEX i = lo; i < hi; i++)
 * body;` polled like RTM_POLL_FOR, the body given as the macro's last argument so that it can
 * be written twice: on GPUs (RTM_HIDE_LATENCY, RTM_POLL_FULL=1) the full strips run
 * exactly RTM_POLL_EVERY steps (a constant trip count: the compiler unrolls and batches
 * a strip's loads as it does the original loop's), then the tail (< RTM_POLL_EVERY
 * steps, after the last poll) has its own loop; elsewhere it is RTM_POLL_FOR. Session
 * 14 on the H100 (n = 4000): matrix_mul +poll 7.0 % -> 1.0 %, matrix_loop_add 0.7 % ->
 * -8.5 % against RTM_POLL_FOR's min(K, hi - s) strips; matrix_mov 9.8 % -> 9.1 %. */
#if RTM_POLL_FULL && RTM_POLL_EVERY > 0 && RTM_HIDE_LATENCY
#define RTM_POLL_LOOP(i, lo, hi, ...)                                               \
    {                                                                               \
        uint rtm_s_ = (lo);                                                         \
        const uint rtm_h_ = (hi);                                                   \
        const uint rtm_f_ =                                                         \
            rtm_h_ > rtm_s_                                                         \
                ? rtm_s_ + (rtm_h_ - rtm_s_) / RTM_POLL_EVERY * RTM_POLL_EVERY      \
                : rtm_s_;                                                           \
        for (; rtm_s_ < rtm_f_ && !rtm_poll_test_(&rtm_stopw_, rtm_it_ + 1u, rtm_pv_); \
             rtm_s_ += RTM_POLL_EVERY) {                                            \
            rtm_poll_issue_(RTM_FLAG_, &rtm_pv_);                                   \
            for (uint rtm_j_ = 0; rtm_j_ < RTM_POLL_EVERY; rtm_j_++) {              \
                const RTM_POLL_INDEX i = (RTM_POLL_INDEX)rtm_s_ + rtm_j_;           \
                (void)i; /* a body may not read it (spin) */                        \
                __VA_ARGS__;                                                        \
            }                                                                       \
        }                                                                           \
        if (rtm_s_ >= rtm_f_)                                                       \
            for (RTM_POLL_INDEX i = rtm_s_; i < rtm_h_; i++) {                      \
                __VA_ARGS__;                                                        \
            }                                                                       \
    }
#endif

/* True in a block that a poll has stopped (its outputs will be recomputed on resume;
 * a kernel may skip writing them). */
#define RTM_STOPPED() (rtm_stopw_ == rtm_it_ + 1u)
/* Compatibility: kernels written against the first rtm_block.h read `rtm_stop_`. */
#define rtm_stop_ RTM_STOPPED()

#endif /* RTM_NO_ABORT || RTM_NO_DONE || RTM_WG_CHECK */

#ifndef RTM_POLL_LOOP /* CPU devices, RTM_POLL_FULL=0, the benchmark builds */
#define RTM_POLL_LOOP(i, lo, hi, ...) RTM_POLL_FOR(i, lo, hi) { __VA_ARGS__; }
#endif

#endif
