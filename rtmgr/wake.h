/* wake.h — the device wake: one empty kernel, enqueued on an idle GPU shortly before a
 * release the host knows is coming, so that the released job's first kernel does not pay
 * the device's way out of idle.
 *
 * Why (session 68, board/h100/results/wake-s68-h100.txt): on the H100, a small job whose
 * inputs come from pinned memory (the manager's) is enqueued whole at once; after the
 * device idled, its kernel's span grew from 3.8 us (back to back) to 8-11 us after 1-20
 * ms idle and 21-28 us after 100 ms, and the job's response (release to the host seeing
 * its end) from 48 to 111-149 us at a 20 ms period and 159-212 us at 100 ms. An empty
 * kernel on a queue of its own, 100-300 us before the release, brought them to 64-90 and
 * 84-97 us. The host waking early without enqueueing anything did not help (the cost is
 * the device's), nor did the empty kernel enqueued together with the job (the job then
 * waits for it). A job whose inputs are pageable is enqueued slowly enough (the driver's
 * staging copy) that its kernel finds the device awake anyway. In `rtmgr run` (the urgent
 * task of config/preempt-h100.yaml alone) the response p50 fell 6-25 % at a 20 ms period
 * (6 paired rounds) and 29 % at 100 ms; every job met its deadline either way.
 *
 * Owns, per device: a queue without profiling, the one-kernel program and its kernel.
 * CPU-type devices (PoCL) get none: their "device" is the host's own cores; nor do
 * integrated devices that share the host's memory (host_unified), which were not measured.
 * Lifecycle: rtm_wake_init at allocate time (builds the program: init only),
 * rtm_wake_kick on the real-time path (an enqueue and a flush, nothing allocated by
 * rtmgr), rtm_wake_destroy at stop. */
#ifndef RTM_WAKE_H
#define RTM_WAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "ocl.h"
#include "status.h"

/* Default lead: the wake goes this long before the release (`rtmgr run --wake US`). */
#define RTM_WAKE_LEAD_NS_DEFAULT 300000
/* A device counts as idle for a wake once its last job ended at least this long before
 * the wake (below it the H100 showed no cost: 1 ms period, kernel 3.8 us p50). */
#define RTM_WAKE_IDLE_NS 1000000

typedef struct {
    cl_command_queue q; /* its own queue: nothing of a job ever waits behind a wake */
    cl_program prog;
    cl_kernel k;
} rtm_wake_t;

/* Does device d get a wake (a GPU or accelerator with its own memory, not a CPU-type or
 * integrated device)? Safe anywhere. */
bool rtm_wake_wanted(const rtm_ocl_info_t *info);

/* Creates the queue and builds the empty kernel on d. On failure `w` is left zeroed and
 * the OpenCL error has been reported: the device then runs without wakes. Init only. */
rtm_status_t rtm_wake_init(rtm_wake_t *w, rtm_ocl_dev_t *d);

/* Enqueues the empty kernel (one work-group) and flushes its queue; asks for no event.
 * Real-time safe (a driver call of a few us; no wait). */
rtm_status_t rtm_wake_kick(rtm_wake_t *w);

/* Waits for the wake queue, releases everything; zeroes `w`. Safe on a zeroed struct.
 * Stop phase only. */
void rtm_wake_destroy(rtm_wake_t *w);

#endif
