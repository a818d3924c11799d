/* pace.c — the pace probe (see pace.h): its job, its measurement, and a host-paced
 * sample brought to a reference pace. */
#include "pace.h"

#include <string.h>

#include "calibint.h"
#include "kexec.h"

/* The probe: spin (a counted loop per element), 64 launches of 32 blocks, 10 steps an
 * element: each launch's device time (2-3 us on the H100) is under the host's
 * enqueueing (7-12 us there), so the host paces the launches. */
static const struct {
    const char *key;
    int64_t value;
} probe_size[] = {{"blocks", 32}, {"work", 10}, {"per_item", 1}, {"launches", 64}};
/* warm-up jobs before the measured ones */
#define PACE_WARM 3

rtm_status_t rtm_pace_probe(rtm_ocl_dev_t *d, const char *cache_dir, double s[RTM_PACE_REPS],
                            rtm_calib_fig_t *fig, double *median)
{
    *median = 0.0;
    const rtm_kernel_t *spin = rtm_kernel_find("spin");
    if (!spin)
        return RTM_E_ARG;
    rtm_kinst_t sized; /* the default sizes, the probe's keys set */
    rtm_kinst_init(&sized, spin);
    for (size_t i = 0; i < sizeof(probe_size) / sizeof(probe_size[0]); i++) {
        const int key = rtm_kernel_key(spin, probe_size[i].key);
        if (key < 0)
            return RTM_E_ARG;
        sized.size[key] = probe_size[i].value;
    }
    rtm_calib_inst_t in;
    rtm_status_t st = rtm_calib_inst_make(&in, spin, sized.size, spin->tune_default, 1);
    rtm_kexec_t x;
    memset(&x, 0, sizeof(x));
    const rtm_kexec_opts_t o = rtm_kexec_calib_opts(cache_dir);
    if (st == RTM_OK)
        st = rtm_kexec_create_ex(&x, d, &in.k, &o);
    rtm_kexec_timing_t t;
    for (int w = 0; st == RTM_OK && w < PACE_WARM; w++)
        st = rtm_kexec_run(&x, &t); /* whole jobs: the inputs stay on the device */
    const double launches = (double)in.k.plan.launches;
    for (int r = 0; st == RTM_OK && r < RTM_PACE_REPS; r++) {
        double span = 0.0, enq = 0.0;
        st = rtm_kexec_run_kernels(&x, 0, &span, &enq);
        s[r] = enq / launches;
    }
    if (x.dev) /* create ran (after a failed one this is a second, harmless destroy) */
        rtm_kexec_destroy(&x);
    rtm_calib_inst_free(&in);
    if (st != RTM_OK)
        return st;
    double sorted[RTM_PACE_REPS]; /* s kept in run order */
    memcpy(sorted, s, sizeof(sorted));
    *median = rtm_calib_summary(sorted, RTM_PACE_REPS, fig);
    return RTM_OK;
}

double rtm_pace_at(double t, double ref, double beside)
{
    return ref > 0 && beside > 0 ? t * ref / beside : t;
}

bool rtm_pace_agree(double a, double b)
{
    return a > 0 && b > 0 && (a < b ? b <= RTM_PACE_AGREE * a : a <= RTM_PACE_AGREE * b);
}

double rtm_pace_combine(double a, double b)
{
    if (!(a > 0) || !(b > 0))
        return a > 0 ? a : b;
    return rtm_pace_agree(a, b) ? 0.5 * (a + b) : (a < b ? a : b);
}
