/* mmitems.cl — diagnostic (session 62, board/h100/diag/mmitems.sh): kernels/matrix_mul.cl
 * with MM_ITEMS outputs per work-item, output j of work-item lid in block blk at
 * g = (blk * MM_ITEMS + j) * RTM_WG + lid, the items loop unrolled (#pragma unroll), so
 * that each item's polled step loop is a loop of its own, not a loop nested in another
 * (session 45's items loop was not unrolled: 8-16 % over the original; the persistent
 * groups' block loop costs 4-6 %). A grid of n * n / (RTM_WG * MM_ITEMS) blocks: 15 625 at
 * n = 4000 and 4 items, under the 16 384 from which kexec runs persistent groups.
 * The step loop's form: -DMM_FORM as in forms.cl (0: as committed). A stopped item's
 * later items leave their loops at once (the latency-hidden test sees the raised value).
 * It restates matrix_mul.cl's signature and default step loop instead of including it:
 * cuh times a PTX's first entry point, and matrix_mul.cl's text stays the kernel the
 * executive builds (ptxas schedules it by its exact form: docs/preempt.md, session 46). */
#define MM_FORMS_ONLY
#include "forms.cl"
#include "rtm_block.h"
#ifndef MM_ITEMS
#define MM_ITEMS 1
#endif
#ifndef MM_LOOP
#define MM_LOOP RTM_POLL_LOOP(k, 0, n, value = fma(a[ty * n + k], b[k * n + tx], value))
#endif

__kernel void matrix_mul(RTM_BLOCK_ARGS, __global const float *restrict a,
                         __global const float *restrict b, __global float *restrict c, const uint n)
{
    RTM_BLOCK_BEGIN(blk);
#pragma unroll
    for (uint j = 0; j < MM_ITEMS; j++) {
        const uint g = (blk * MM_ITEMS + j) * RTM_WG + (uint)get_local_id(0);
        if (g < n * n) {
            const uint tx = g % n, ty = g / n;
            float value = 0.0f;
            MM_LOOP;
            c[ty * n + tx] = value;
        }
    }
    RTM_BLOCK_END(blk);
}
