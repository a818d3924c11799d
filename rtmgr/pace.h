/* pace.h — the host's launch pace of this process on a GPU: the pace probe (a fixed
 * multi-launch job whose launches the host's enqueueing paces), measured when a device
 * is calibrated (profile parameter `pace`) and again when a process opens it, and the
 * scaling of a profile's host-paced model terms by the ratio of the two.
 *
 * Why: on one H100 machine the host's enqueueing time per launch was steady within a
 * process and not across processes: grid_path at width 64 (128 launches) took 1.07-1.75
 * ms in 16 processes one after another, and a 64-launch spin job in the same processes
 * tracked it (correlation 0.98; grid_path / spin 2.05-2.38, 0.73-1.15 ms and 2.16-2.23
 * pinned to one core: board/h100/results/pace-kernels-s43b-h100.txt). A profile's
 * launch-pace terms hold the calibrating process's pace; a later process was up to 1.6 x
 * faster or slower. The probe's ratio carries that over. On another H100 machine the
 * pace wandered within one process as well, 8.4-14 us a launch from one second to the
 * next, and grid_path's span with it (pace-churn-s43e-h100.txt): there a start-up probe
 * is one draw of it, and the placement's running correction (rtmgr run --adapt) follows
 * the rest. Calibration brings its host-paced samples to the median of its probes
 * (rtmgr/calibdev.c dev_pace_late), which the profile's `pace` holds.
 *
 * Only GPUs and other non-CPU devices: a CPU-type OpenCL device's launch pace is its own
 * per-launch work (t_next from the span, rtmgr/calibdev.c dev_pace), not the host's. */
#ifndef RTM_PACE_H
#define RTM_PACE_H

#include "board.h"
#include "ocl.h"
#include "status.h"

/* Probe jobs measured (after warm-up); the median is the pace. */
#define RTM_PACE_REPS 9
/* The ratio applied is clamped to [1 / RTM_PACE_CLAMP, RTM_PACE_CLAMP]: a probe further
 * off than that measured something else (a busy host) and would mislead more than help. */
#define RTM_PACE_CLAMP 2.0

/* Runs the pace probe on device d (built through the program cache `cache_dir`, may be
 * NULL): a spin job of 64 launches of 32 tiny blocks, warmed up, then RTM_PACE_REPS
 * kernel-only runs; s[r] = the host's enqueueing time per launch of run r (seconds),
 * *median their median. Allocates (start-up and calibration only, never the real-time
 * path). */
rtm_status_t rtm_pace_probe(rtm_ocl_dev_t *d, const char *cache_dir, double s[RTM_PACE_REPS],
                            double *median);

/* Whether device bd (of type `cl_type`, CL_DEVICE_TYPE_*) has host-paced terms to scale:
 * a non-CPU device whose profile holds `pace`. */
bool rtm_pace_applies(const rtm_board_dev_t *bd, uint64_t cl_type);

/* The factor for a process whose probe measured `now` (s a launch) on bd: now over the
 * profile's pace, clamped (RTM_PACE_CLAMP); 1 when bd has no pace or now is not > 0. */
double rtm_pace_factor(const rtm_board_dev_t *bd, double now);

/* Multiplies bd's host-paced model terms by f: each kernel's t_next, kernel_next,
 * gap_host_k and gap_host_o (where present). The profile's own `pace` is set to
 * pace * f, so that a second call with the same probe is a no-op factor. */
void rtm_pace_scale(rtm_board_dev_t *bd, double f);

/* Probes d and scales bd when rtm_pace_applies: the factor applied in *factor (1 when
 * none), the probe's pace in *now_s (0 when not probed). Start-up of `rtmgr run` and
 * `rtmgr calibrate --validate`. A failed probe leaves bd as it is (RTM_OK: the
 * profile's pace is kept; the failure is reported on stderr). */
rtm_status_t rtm_pace_adopt(rtm_ocl_dev_t *d, const char *cache_dir, rtm_board_dev_t *bd,
                            double *factor, double *now_s);

#endif
