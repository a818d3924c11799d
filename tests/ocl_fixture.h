/* ocl_fixture.h — the tests' one way to the first OpenCL device (PoCL's CPU device in
 * CI): discovery, then open. */
#ifndef RTM_TEST_OCL_FIXTURE_H
#define RTM_TEST_OCL_FIXTURE_H

#include "rtmgr/ocl.h"

/* Opens the first discovered OpenCL device into *dev. */
static inline rtm_status_t ocl_open_first(rtm_ocl_dev_t *dev)
{
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    const rtm_status_t st = rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n);
    if (st != RTM_OK)
        return st;
    return n ? rtm_ocl_open(dev, &infos[0]) : RTM_E_CL_NODEV;
}

#endif
