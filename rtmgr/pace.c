/* pace.c — the host's launch pace of this process (see pace.h): the probe job, the
 * factor against a profile's, and the scaling of the profile's host-paced terms. */
#include "pace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kexec.h"
#include "stats.h"

/* The probe: spin (a counted loop per element), 64 launches of 32 blocks, 10 steps an
 * element: each launch's device time (2-3 us on the H100) is under the host's
 * enqueueing (7-12 us there), so the host paces the launches. */
static const struct {
    const char *key;
    int64_t value;
} probe_size[] = {{"blocks", 32}, {"work", 10}, {"per_item", 1}, {"launches", 64}};
/* warm-up jobs before the measured ones */
#define PACE_WARM 3

static rtm_status_t probe_inst(rtm_kinst_t *k, void **arena)
{
    const rtm_kernel_t *spin = rtm_kernel_find("spin");
    if (!spin)
        return RTM_E_ARG;
    rtm_kinst_init(k, spin);
    for (size_t i = 0; i < sizeof(probe_size) / sizeof(probe_size[0]); i++) {
        const int key = rtm_kernel_key(spin, probe_size[i].key);
        if (key < 0)
            return RTM_E_ARG;
        k->size[key] = probe_size[i].value;
    }
    rtm_status_t st = rtm_kinst_plan(k);
    if (st != RTM_OK)
        return st;
    const size_t bytes = (rtm_kinst_bytes(k) + 63) & ~(size_t)63;
    *arena = aligned_alloc(64, bytes);
    if (!*arena)
        return RTM_E_NOMEM;
    memset(*arena, 0, bytes);
    rtm_kinst_bind(k, *arena, bytes);
    spin->fill(k, 1);
    return RTM_OK;
}

rtm_status_t rtm_pace_probe(rtm_ocl_dev_t *d, const char *cache_dir, double s[RTM_PACE_REPS],
                            double *median)
{
    *median = 0.0;
    rtm_kinst_t k;
    memset(&k, 0, sizeof(k));
    void *arena = NULL;
    rtm_status_t st = probe_inst(&k, &arena);
    rtm_kexec_t x;
    memset(&x, 0, sizeof(x));
    const rtm_kexec_opts_t o = rtm_kexec_calib_opts(cache_dir);
    if (st == RTM_OK)
        st = rtm_kexec_create_ex(&x, d, &k, &o);
    rtm_kexec_timing_t t;
    for (int w = 0; st == RTM_OK && w < PACE_WARM; w++)
        st = rtm_kexec_run(&x, &t); /* whole jobs: the inputs stay on the device */
    const double launches = (double)k.plan.launches;
    for (int r = 0; st == RTM_OK && r < RTM_PACE_REPS; r++) {
        double span = 0.0, enq = 0.0;
        st = rtm_kexec_run_kernels(&x, 0, &span, &enq);
        s[r] = enq / launches;
    }
    if (x.dev)
        rtm_kexec_destroy(&x);
    free(arena);
    if (st != RTM_OK)
        return st;
    double sorted[RTM_PACE_REPS];
    memcpy(sorted, s, sizeof(sorted));
    rtm_stats_sort(sorted, RTM_PACE_REPS);
    *median = rtm_stats_percentile(sorted, RTM_PACE_REPS, 50.0);
    return RTM_OK;
}

bool rtm_pace_applies(const rtm_board_dev_t *bd, uint64_t cl_type)
{
    return !(cl_type & CL_DEVICE_TYPE_CPU) && bd->have[RTM_DEV_P_pace] &&
           bd->param[RTM_DEV_P_pace] > 0.0;
}

double rtm_pace_factor(const rtm_board_dev_t *bd, double now)
{
    if (!bd->have[RTM_DEV_P_pace] || !(bd->param[RTM_DEV_P_pace] > 0.0) || !(now > 0.0))
        return 1.0;
    const double f = now / bd->param[RTM_DEV_P_pace];
    return fmin(RTM_PACE_CLAMP, fmax(1.0 / RTM_PACE_CLAMP, f));
}

void rtm_pace_scale(rtm_board_dev_t *bd, double f)
{
    if (!(f > 0.0) || f == 1.0)
        return;
    static const int ids[] = {RTM_DEV_P_kernel_next, RTM_DEV_P_gap_host_k, RTM_DEV_P_gap_host_o,
                              RTM_DEV_P_pace};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (bd->have[ids[i]])
            bd->param[ids[i]] *= f;
    for (int k = 0; k < RTM_MAX_KERNELS; k++)
        if (bd->ktune[k].have && bd->ktune[k].t_next > 0.0)
            bd->ktune[k].t_next *= f;
}

rtm_status_t rtm_pace_adopt(rtm_ocl_dev_t *d, const char *cache_dir, rtm_board_dev_t *bd,
                            double *factor, double *now_s)
{
    *factor = 1.0;
    *now_s = 0.0;
    if (!rtm_pace_applies(bd, d->info.type))
        return RTM_OK;
    double s[RTM_PACE_REPS];
    const rtm_status_t st = rtm_pace_probe(d, cache_dir, s, now_s);
    if (st != RTM_OK) {
        fprintf(stderr, "rtmgr: %s: the pace probe failed (%s): the profile's launch pace is "
                        "kept\n", bd->name, rtm_strerror(st));
        *now_s = 0.0;
        return RTM_OK;
    }
    *factor = rtm_pace_factor(bd, *now_s);
    rtm_pace_scale(bd, *factor);
    return RTM_OK;
}
