/* pace.h — the pace probe: the host's enqueueing time per launch of a fixed multi-launch
 * job (spin, 64 launches whose device time is under the host's enqueueing), and the
 * bringing of a host-paced sample to a reference pace by the probe run beside it.
 *
 * Why: a GPU's host-paced model terms (each kernel's t_next, kernel_next, gap_host_k,
 * gap_host_o) are the host's enqueueing, and on the H100 machine that moves: grid_path
 * at width 64 (128 launches) took 1.07-1.75 ms over 16 processes one after another, and
 * the probe job in the same processes tracked it (correlation 0.98:
 * board/h100/results/pace-kernels-s43b-h100.txt); within one process the pace wandered
 * 8.4-14 us a launch from one second to the next, grid_path's span with it
 * (pace-churn-s43e-h100.txt); and calibration's catalogue ran beside its background
 * builds (the device figures' probe 9.15 us a launch, the catalogue's t_next samples
 * 11.6-14.2 us in one run). Calibration (rtmgr/calibdev.c dev_pace_late) therefore runs
 * the probe beside every host-paced sample and brings each to the median of its probes,
 * which the profile keeps as the device's `pace`.
 *
 * Scaling a profile's terms by a probe run when a later process starts (rtmgr run,
 * validation) was built and measured (session 43) and is not done: on a quiet H100 host
 * it made validation worse in 3 of 3 runs (gpu0 4.63 / 5.16 / 4.80 % against 4.02 / 3.98
 * / 4.08 % with the profile as calibrated, validate-gpu0-s43f*-h100.txt): a start-up probe
 * is one draw of a pace that wanders; rtmgr run's placement follows the running ratio
 * instead (--adapt).
 *
 * GPUs and other non-CPU devices only: a CPU-type OpenCL device's launch pace is its own
 * per-launch work (t_next from the span, calibdev.c dev_pace), not the host's. */
#ifndef RTM_PACE_H
#define RTM_PACE_H

#include <stdbool.h>

#include "calib.h"
#include "ocl.h"
#include "status.h"

/* Probe jobs measured (after warm-up; as every calibration figure, REPS): their median
 * is the pace. */
#define RTM_PACE_REPS 10

/* Runs the pace probe on device d (built through the program cache `cache_dir`, may be
 * NULL): a spin job of 64 launches of 32 blocks of 10 steps, warmed up, then
 * RTM_PACE_REPS kernel-only runs; s[r] = the host's enqueueing time per launch of run r
 * (seconds), *median their median as every calibration figure's (rtm_calib_summary:
 * outliers dropped), with its spread into *fig (may be NULL). Allocates its instance
 * (calibration's rtm_calib_inst_make; calibration only). */
rtm_status_t rtm_pace_probe(rtm_ocl_dev_t *d, const char *cache_dir, double s[RTM_PACE_REPS],
                            rtm_calib_fig_t *fig, double *median);

/* A host-paced sample `t` taken beside a probe that measured `beside`, at the pace `ref`:
 * t * ref / beside; t as it is where either probe is missing (<= 0). */
double rtm_pace_at(double t, double ref, double beside);

/* Two samples a and b of one kernel's pace, each at the reference pace: their mean where
 * the larger is within RTM_PACE_AGREE of the smaller, else the smaller (a disturbed host
 * only slows its enqueueing); one alone where the other is missing (<= 0). */
#define RTM_PACE_AGREE 1.5
double rtm_pace_combine(double a, double b);
/* True when a and b (both > 0) lie within RTM_PACE_AGREE of each other. */
bool rtm_pace_agree(double a, double b);

#endif
