/* repredict.c — a diagnostic, not part of rtmgr: a validation's rows predicted again from
 * a board profile, with some of the device's parameters replaced (session 57: the
 * host-paced gaps' share of gpu0's small-job error). Reads the text table `rtmgr
 * calibrate --validate` printed (kernel, size, measured and the extended model's in /
 * kernel / out / total, the measured gaps), predicts each row as validation does
 * (rtm_preempt_predict_dev with the executive's options), checks it against the table's
 * own prediction, then again with every NAME=VALUE (a device parameter, in seconds or
 * its unit) replaced, and prints both MAPEs and each changed row (every row with ALL=1).
 * No device is opened, and no instance filled: grid_path's rows past its launch-bound
 * widths differ from the table (validation counts its busy passes from the filled
 * instance), alike in both MAPEs.
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -I. \
 *       board/h100/diag/repredict.c build/librtmgr.a -lOpenCL -lyaml -lm -lpthread -lrt \
 *       -o /tmp/repredict
 *   /tmp/repredict PROFILE.yaml VALIDATE.txt DEVICE [NAME=VALUE]... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtmgr/board.h"
#include "rtmgr/diag.h"
#include "rtmgr/kernel.h"
#include "rtmgr/kexec.h"
#include "rtmgr/model.h"
#include "rtmgr/preempt.h"

static const char *dev_keys[] = {
#define RTM_P_KEY(id, key, unit, help) key,
    RTM_DEV_PARAMS(RTM_P_KEY)
#undef RTM_P_KEY
};

/* The extended model's total for kern at the row's sizes on bd (seconds; < 0: none). */
static double predict(const rtm_board_dev_t *bd, const rtm_kernel_t *kern, char *sizes,
                      double *in, double *out)
{
    const int ki = rtm_kernel_index(kern);
    rtm_kinst_t k;
    rtm_kinst_init(&k, kern);
    for (char *tok = strtok(sizes, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = 0;
        const int i = rtm_kernel_key(kern, tok);
        if (i >= 0)
            k.size[i] = atoll(eq + 1);
        *eq = '=';
    }
    k.tune = bd->ktune[ki].have ? bd->ktune[ki].tune : kern->tune_default;
    if (rtm_kinst_plan(&k) != RTM_OK)
        return -1.0;
    rtm_kexec_opts_t o = rtm_kexec_calib_opts(NULL);
    rtm_model_job_t job;
    rtm_model_pred_t pr;
    if (rtm_preempt_predict_dev(bd, &k, 0, &job, &o, &pr) != RTM_OK || pr.ext.status != RTM_OK)
        return -1.0;
    *in = (double)pr.ext.in_ns * 1e-9;
    *out = (double)pr.ext.out_ns * 1e-9;
    return (double)pr.ext.total_ns * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: repredict PROFILE.yaml VALIDATE.txt DEVICE [NAME=VALUE]...\n");
        return 1;
    }
    static rtm_board_t b;
    rtm_diag_t diag;
    if (rtm_board_load(argv[1], &b, &diag) != RTM_OK) {
        char msg[512];
        rtm_diag_format(&diag, msg, sizeof(msg));
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    rtm_board_dev_t *bd = NULL;
    for (uint32_t i = 0; i < b.n_devs; i++)
        if (strcmp(b.dev[i].name, argv[3]) == 0)
            bd = &b.dev[i];
    if (!bd) {
        fprintf(stderr, "no device %s\n", argv[3]);
        return 1;
    }
    static rtm_board_dev_t alt;
    alt = *bd;
    for (int a = 4; a < argc; a++) {
        char name[64];
        double v;
        if (sscanf(argv[a], "%63[^=]=%lf", name, &v) != 2)
            return 1;
        int id = -1;
        for (int p = 0; p < RTM_DEV_P_COUNT; p++)
            if (strcmp(dev_keys[p], name) == 0)
                id = p;
        if (id < 0) {
            fprintf(stderr, "no parameter %s\n", name);
            return 1;
        }
        printf("%s: %.4g -> %.4g\n", name, alt.param[id], v);
        alt.param[id] = v;
        alt.have[id] = true;
    }
    FILE *f = fopen(argv[2], "r");
    if (!f)
        return 1;
    char line[2048];
    bool in_dev = false;
    double e0 = 0.0, e1 = 0.0;
    int n = 0;
    while (fgets(line, sizeof(line), f)) {
        char head[64];
        if (sscanf(line, "%63[^:]: ", head) == 1 && strchr(line, '\xe2') && strstr(line, "times in ms"))
            in_dev = strcmp(head, argv[3]) == 0;
        if (!in_dev)
            continue;
        char *bar[6] = {0};
        int nb = 0;
        for (char *p = line; *p && nb < 6; p++)
            if (*p == '|')
                bar[nb++] = p;
        if (nb < 5)
            continue;
        char kname[64], rest[256];
        if (sscanf(line, "%63s", kname) != 1)
            continue;
        const rtm_kernel_t *kern = rtm_kernel_find(kname);
        if (!kern)
            continue;
        const size_t off = strlen(kname);
        snprintf(rest, sizeof(rest), "%.*s", (int)(bar[0] - line - (long)off), line + off);
        double m[4], ex[5], gk = 0, go = 0;
        if (sscanf(bar[0] + 1, "%lf %lf %lf %lf", &m[0], &m[1], &m[2], &m[3]) != 4 ||
            sscanf(bar[2] + 1, "%lf %lf %lf %lf %lf", &ex[0], &ex[1], &ex[2], &ex[3], &ex[4]) != 5)
            continue;
        sscanf(bar[3] + 1, "%lf/%lf", &gk, &go);
        char s1[256], s2[256];
        memcpy(s1, rest, sizeof(s1));
        memcpy(s2, rest, sizeof(s2));
        double in0, out0, in1, out1;
        const double t0 = predict(bd, kern, s1, &in0, &out0);
        const double t1 = predict(&alt, kern, s2, &in1, &out1);
        if (t0 < 0 || t1 < 0)
            continue;
        const double meas = m[3] * 1e-3;
        const double a = 100.0 * (t0 - meas) / meas, c = 100.0 * (t1 - meas) / meas;
        e0 += fabs(a);
        e1 += fabs(c);
        n++;
        if (getenv("ALL") || fabs(t1 - t0) > 1e-8 || fabs(t0 - ex[3] * 1e-3) > 2e-6 + 1e-3 * t0)
            printf("%-14s %-16s meas %8.4f (gaps %4.1f/%4.1f) table %8.4f now %8.4f %+6.1f%% "
                   "alt %8.4f %+6.1f%%  out %.4f->%.4f\n",
                   kname, rest, m[3], gk, go, ex[3], t0 * 1e3, a, t1 * 1e3, c, out0 * 1e3,
                   out1 * 1e3);
    }
    fclose(f);
    if (n)
        printf("%d rows: MAPE %.2f %% as profiled, %.2f %% with the replacements\n", n, e0 / n,
               e1 / n);
    return 0;
}
