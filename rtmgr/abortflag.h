/* abortflag.h — the abort flag of seed 002 and its two transports.
 *
 * Kernels read one int (0 run, 1 abort) through the first standard argument of
 * kernels/rtm_block.h. How the host's "abort" reaches it depends on the device:
 *
 *   RTM_ABORT_WRITE  (the paper's method, discrete GPUs) the flag lives in device memory;
 *                    raising it is a non-blocking clEnqueueWriteBuffer from pinned host
 *                    memory (a CL_MEM_ALLOC_HOST_PTR buffer kept mapped) on the device's
 *                    control queue, then clFlush. The copy engine runs it while the
 *                    kernel runs on the execution queue.
 *   RTM_ABORT_MAPPED (CPU and integrated devices, where a transfer queues behind the
 *                    running kernel) the flag lives in host memory the kernel reads
 *                    directly: fine-grain SVM when the device has it, else a
 *                    CL_MEM_ALLOC_HOST_PTR buffer kept mapped; raising it is a store.
 *
 * Copies: the flag may be kept as several copies, RTM_ABORTFLAG_STRIDE ints apart (one
 * cache line each); kernels built with -DRTM_FLAG_COPIES=R read copy (group % R), so the
 * flag loads of many work-groups spread over R memory slices instead of queueing at one
 * (kernels/rtm_block.h). Raise and clear write every copy (one transfer, or R stores).
 *
 * Which one a device uses is measured (rtm_preempt_measure) and kept in the board
 * profile (rtm_board_dev_t.abort). Lifecycle: create (init) → clear before each run →
 * raise (real-time) → settle once the kernels ended → clear … → destroy. */
#ifndef RTM_ABORTFLAG_H
#define RTM_ABORTFLAG_H

#include <stdbool.h>

#include "board.h"
#include "ocl.h"

/* ints between two copies of the flag (= RTM_FLAG_STRIDE of kernels/rtm_block.h) */
#define RTM_ABORTFLAG_STRIDE 32
/* most copies of one flag */
#define RTM_ABORTFLAG_COPIES_MAX 256

/* How RTM_ABORT_WRITE raises the flag (rtm_abortflag_set_raise): which path is fastest,
 * and which still lands while a kernel fills every compute unit, is device- and
 * driver-dependent, so `rtmgr bench preempt` probes them and picks one. */
typedef enum {
    RTM_RAISE_PINNED = 0, /* non-blocking write from the pinned staging + clFlush (paper) */
    RTM_RAISE_HOST,       /* non-blocking write from plain host memory + clFlush (the
                           * driver stages it: a CPU copy, no lookup of a mapped pointer) */
    RTM_RAISE_BLOCKING,   /* blocking write from the pinned staging (returns once landed) */
    RTM_RAISE_FILL,       /* clEnqueueFillBuffer of the pattern 1 + clFlush */
    RTM_RAISE_ARMED,      /* the write is enqueued and flushed when the flag is cleared,
                           * held by a user event; raising stores 1 in its pinned source
                           * and completes the event: no enqueue on the abort path */
    RTM_RAISE_MODES
} rtm_abort_raise_t;

typedef struct {
    rtm_ocl_dev_t *dev;
    rtm_abort_transport_t transport;
    uint32_t copies;     /* copies of the flag (1: one int, as the first kexec) */
    cl_mem mem;          /* the flag as a buffer (NULL when it is an SVM pointer) */
    void *svm;           /* MAPPED over fine-grain SVM: the flag itself */
    volatile int *host;  /* MAPPED: the flag as the host writes it */
    cl_mem pin;          /* WRITE: pinned staging, kept mapped: the cleared flag (every
                          * copy 0) then the raised one (every copy 1) */
    int *pin_host;
    cl_event raise_ev;   /* WRITE: the transfer of the last raise, until settled */
    bool up;             /* WRITE: raised since the last clear (the device's flag may
                          * hold 1; else it holds 0 and a clear writes nothing) */
    double raised_at;    /* CLOCK_MONOTONIC seconds of the last raise */
    double raise_call_s; /* seconds the last raise call took (enqueue + flush) */
    rtm_abort_raise_t raise_mode; /* WRITE: how raise() transfers (default PINNED) */
    int *plain;          /* WRITE: the raised flag in plain host memory (RAISE_HOST) */
    /* RAISE_ARMED: the held write (its user event, its transfer), the pinned source slot
     * it copies from (two slots, used in turn), and the last disarmed write per slot */
    cl_event arm_gate, arm_ev, disarm_ev[2];
    uint32_t arm_slot;
    cl_command_queue arm_q; /* the held writes' own queue: a held write on the device's
                             * shared control queue would hold up every other flag's */
    volatile cl_uint *watch; /* WRITE: the raise word in host memory that a watched
                              * launch's watcher reads (kernels/rtm_block.h), or NULL;
                              * set by its kexec. Raise stores 1 there before the
                              * transfer, clear stores 0 */
    volatile cl_uint *watch2; /* a second raise word (a chunked kexec's exec2 watchers),
                               * or NULL */
} rtm_abortflag_t;

/* Name of a raise mode ("pinned", "host", "blocking", "fill", "armed"). Safe anywhere. */
const char *rtm_abortflag_raise_name(rtm_abort_raise_t m);
/* Chooses how raise() transfers the flag (WRITE transport; ignored for MAPPED). Call
 * between runs (no raise in flight). ARMED creates the flag's own queue; where that
 * fails the flag stays PINNED. Init only. */
void rtm_abortflag_set_raise(rtm_abortflag_t *f, rtm_abort_raise_t m);

/* Name of a transport ("write", "mapped"). Safe anywhere. */
const char *rtm_abortflag_name(rtm_abort_transport_t t);
/* The transport a device uses before calibration says otherwise: MAPPED for CPU and
 * host-unified devices, WRITE for the others. Safe anywhere. */
rtm_abort_transport_t rtm_abortflag_default(const rtm_ocl_info_t *info);
/* True when the device offers fine-grain SVM buffers (MAPPED then uses SVM). Init only. */
bool rtm_abortflag_has_svm(const rtm_ocl_info_t *info);

/* Creates the flag (cleared, one copy) on d with transport t. Init only. */
rtm_status_t rtm_abortflag_create(rtm_abortflag_t *f, rtm_ocl_dev_t *d, rtm_abort_transport_t t);
/* Same with `copies` copies (1..RTM_ABORTFLAG_COPIES_MAX; 0 = 1). Init only. */
rtm_status_t rtm_abortflag_create_ex(rtm_abortflag_t *f, rtm_ocl_dev_t *d,
                                     rtm_abort_transport_t t, uint32_t copies);
/* Releases it. Safe on a zeroed struct. Init only. */
void rtm_abortflag_destroy(rtm_abortflag_t *f);

/* Sets kernel argument `index` of `kern` to the flag. Real-time safe. */
rtm_status_t rtm_abortflag_set_arg(const rtm_abortflag_t *f, cl_kernel kern, cl_uint index);
/* Lowers the flag for the next run. WRITE: enqueued on the execution queue, so it lands
 * in order before the kernels enqueued after it, and only after a raise (a flag nobody
 * raised still holds the 0 the last clear or the creation wrote: a job that was never
 * preempted costs no command here, 25 us of host time on the H100's driver); MAPPED: a
 * store, so the caller makes sure no kernel reading this flag is still queued or
 * running. Real-time safe. */
rtm_status_t rtm_abortflag_clear(rtm_abortflag_t *f);
/* Raises the flag now (records raised_at first). Real-time safe, does not block. */
rtm_status_t rtm_abortflag_raise(rtm_abortflag_t *f);
/* Waits until the last raise has landed (WRITE: its transfer completed), so that a
 * later clear cannot be overtaken by it. Call after the kernels ended. Real-time safe. */
rtm_status_t rtm_abortflag_settle(rtm_abortflag_t *f);
/* Reads the flag's value as kernels see it (blocking; tests and diagnostics): 0 or 1
 * when every copy holds it, -1 when the copies disagree. */
rtm_status_t rtm_abortflag_read(rtm_abortflag_t *f, int *value);

#endif
