/* stallcheck.h — timing assertions of the real-time tests that tell rtmgr from the
 * machine (rtmgr/stallprobe.h). A count of jobs or preemptions within a window is
 * rtmgr's to meet on a machine that runs it; on a shared VM the hypervisor has stalled
 * a SCHED_FIFO 99 thread for 5-25 % of a run. When such a condition is false and some
 * CPU stalled more than STALL_SHARE_MAX of the window, the test is skipped, saying so;
 * when the machine ran, it fails. Include after cmocka.h. */
#ifndef RTM_TEST_STALLCHECK_H
#define RTM_TEST_STALLCHECK_H

#include "rtmgr/stallprobe.h"

#define STALL_SHARE_MAX 0.05

#define assert_timing(probe, from_ns, to_ns, cond)                                          \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            const double share_ = rtm_stallprobe_share((probe), (from_ns), (to_ns));        \
            if (share_ > STALL_SHARE_MAX) {                                                 \
                print_message("SKIP: '%s' is false, and a CPU of this machine stalled "     \
                              "%.0f%% of the window (stall probe): the machine was "        \
                              "measured, not rtmgr\n", #cond, 100.0 * share_);              \
                skip();                                                                     \
            }                                                                               \
            fail_msg("'%s' is false; the machine stalled %.1f%% of the window", #cond,      \
                     100.0 * share_);                                                       \
        }                                                                                   \
    } while (0)

#endif
