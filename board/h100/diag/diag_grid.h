/* diag_grid.h — the grid_path diagnostics' shared start (board/h100/diag, not part of
 * rtmgr): the first OpenCL device opened, and grid_path's instance at a width, as
 * calibration makes it (height 512). */
#ifndef RTM_DIAG_GRID_H
#define RTM_DIAG_GRID_H

#include <stdio.h>

#include "rtmgr/calibint.h"
#include "rtmgr/kernel.h"
#include "rtmgr/ocl.h"
#include "tests/ocl_fixture.h"

/* Line-buffered stdout, the first device (RTM_PLATFORM picks the platform) opened into
 * *d and named; grid_path's kernel, or NULL when the device does not open. */
static const rtm_kernel_t *diag_grid_open(rtm_ocl_dev_t *d)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (ocl_open_first(d) != RTM_OK)
        return NULL;
    printf("device %s\n", d->info.name);
    return rtm_kernel_find("grid_path");
}

/* grid_path at `width` x 512 and `passes` launches, filled from `seed` (validation's is
 * 101), at its default tuning. */
static rtm_status_t diag_grid_inst(rtm_calib_inst_t *in, const rtm_kernel_t *kern, int width,
                                   int passes, uint64_t seed)
{
    int64_t size[RTM_SIZE_KEYS_MAX] = {width, 512, passes};
    return rtm_calib_inst_make(in, kern, size, kern->tune_default, seed);
}

#endif
