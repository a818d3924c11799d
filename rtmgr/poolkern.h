/* poolkern.h — synthetic kernels that measure the CPU worker pool itself: no OpenCL
 * source, blocks that do nothing or spin on the clock for a set time, and may then touch
 * their slice of one buffer. They are not in the catalogue; calibration (the pool's
 * dispatch, cw, cw_idle, cw_warm and cold_rate) and `rtmgr bench pool` run them.
 *
 * Size keys (rtm_kinst_t.size): [0] blocks per launch, [1] launches per job,
 * [2] nanoseconds each block spins (0: the block returns at once), [3] bytes each block
 * reads and writes after its spin (whole 8-byte words of its own slice of one INOUT
 * buffer; 0: no buffer). The spin reads the monotonic clock, so a block lasts the same
 * wall time on a cold core as on a warm one: what the pool costs around it, and what
 * its data cost where they are not in the core's caches, is what a measurement sees. */
#ifndef RTM_POOLKERN_H
#define RTM_POOLKERN_H

#include <stdint.h>

#include "kernel.h"
#include "status.h"

/* The pool kernel ("pool_probe"). */
extern const rtm_kernel_t rtm_poolkern;

/* Initialises and plans k as `blocks` blocks per launch, `launches` launches, each block
 * spinning block_ns. RTM_E_RANGE for a size out of the keys' ranges. */
rtm_status_t rtm_poolkern_make(rtm_kinst_t *k, uint32_t blocks, uint32_t launches,
                               int64_t block_ns);

/* The same with block_bytes (rounded down to 8-byte words) of data per block: the caller
 * binds the buffer (rtm_kinst_bind, rtm_kinst_bytes). */
rtm_status_t rtm_poolkern_make_data(rtm_kinst_t *k, uint32_t blocks, uint32_t launches,
                                    int64_t block_ns, uint32_t block_bytes);

#endif
