/* poolkern.h — synthetic kernels that measure the CPU worker pool itself: no buffers, no
 * OpenCL source, blocks that do nothing or spin on the clock for a set time. They are
 * not in the catalogue; calibration (the pool's dispatch, cw and cw_idle) and
 * `rtmgr bench pool` run them.
 *
 * Size keys (rtm_kinst_t.size): [0] blocks per launch, [1] launches per job,
 * [2] nanoseconds each block spins (0: the block returns at once). The spin reads the
 * monotonic clock, so a block lasts the same wall time on a cold core as on a warm one:
 * what the pool costs around it is what a measurement sees. */
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

#endif
