/* empty.cl — seed 000 validation kernel: an empty kernel (only the block contract:
 * abort check and completed-block mark), for launch latency. */
#include "rtm_block.h"

__kernel void empty(RTM_BLOCK_ARGS)
{
    RTM_BLOCK_BEGIN(blk);
    RTM_BLOCK_END(blk);
}
