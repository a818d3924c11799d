/* validate.c — `rtmgr calibrate --validate`: the seed-000 experiment reproduced and
 * extended (calib.h).
 *
 * Owns: the validation plan (kernels, sizes, repetitions), the measured-versus-predicted
 * rows and their summaries, and the text and JSON output.
 *
 * What is compared is what the model-error log compares (docs/log.md): on an OpenCL
 * device the event-profiled transfers in + kernel span + transfers out of one job run
 * through the runtime's kexec (rtm_kexec_run), built as the executive builds that job
 * (rtm_preempt_predict_dev: its launch shape and in-loop poll period, predicted with the
 * profile's cost of that period, ktune poll_cost; calibration's transfers and flag
 * transport); on the CPU the monotonic clock around the
 * pool run of the job's CPU twin. Predictions are both models' totals for a warm job
 * (program loaded: no cold flag). Sizes: the seed-000 kernels at the paper's n = 1000,
 * 2000, 3000 (128, 256, 384 with --quick), the other kernels at sizes predicted to take
 * interleaved times; every first size key is even (calibration's are odd), so no
 * validation size was used to calibrate. Each point is the median of its jobs over
 * three rounds through the device's points (3 to 12 jobs: about as many as fit in half a
 * second, 0.2 s with --quick, at least one a round; 1 when a job takes over two seconds),
 * each round's after warm-up jobs: at least one, and more until they have run 20 ms
 * together (RTM_CALIB_WARM_S, as calibration's GPU points): each round follows its
 * instance's set-up, an idle gap after which the H100 ran its first jobs slow. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "calibint.h"
#include "kexec.h"
#include "model.h"
#include "os.h"
#include "pool.h"
#include "preempt.h"
#include "stats.h"

static const char *const seed000[] = {"empty", "matrix_add", "matrix_add3", "matrix_loop_add",
                                      "matrix_mul"};
const int64_t rtm_calib_s0_valid[RTM_CALIB_S0_N] = {1000, 2000, 3000};
const int64_t rtm_calib_s0_valid_quick[RTM_CALIB_S0_N] = {128, 256, 384};
/* Total-time targets of the sweep sizes (seconds): inside calibration's range
 * (calib.c: 0.05 .. 30 ms, quick 0.15 .. 4 ms), between its targets. */
static const double targets_full[] = {0.1e-3, 0.6e-3, 3e-3, 15e-3};
static const double targets_quick[] = {0.3e-3, 1.5e-3, 3.5e-3};

/* phases of a job; P_GAPK, P_GAPO: measured only, the device's idle time before the
 * kernels and before the outputs (part of P_OUT, which holds every gap as the
 * model-error log measures a job) */
enum { P_IN, P_KERNEL, P_OUT, P_SETUP, P_TOTAL, P_GAPK, P_GAPO, P_COUNT };

typedef struct {
    char kernel[RTM_NAME_MAX];
    char device[RTM_NAME_MAX];
    char size[160];  /* every key: "targets=512,steps=360" */
    char brief[48];  /* the first key and those off their default, for the table */
    double meas[P_COUNT];         /* seconds; P_SETUP unused */
    double pred[2][P_COUNT];      /* by rtm_model_kind_t; pred[m][P_TOTAL] < 0: unknown */
    double spread;                /* the rounds' medians of the total: (max - min) / the
                                   * point's median; < 0 when a round has no job */
} row_t;

typedef struct {
    const rtm_calib_vopts_t *o;
    const rtm_board_t *board;
    row_t *rows;
    uint32_t n, cap;
    const char *cache; /* rtmgr's program binary cache, NULL when there is none */
} val_t;

static bool is_seed000(const char *name)
{
    for (size_t i = 0; i < N_OF(seed000); i++)
        if (strcmp(seed000[i], name) == 0)
            return true;
    return false;
}

static void size_text(const rtm_kinst_t *k, bool brief, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < k->kernel->n_keys && used < len; i++) {
        if (brief && i > 0 && k->size[i] == k->kernel->keys[i].def)
            continue;
        const int n = snprintf(buf + used, len - used, "%s%s=%lld", i ? "," : "",
                               k->kernel->keys[i].name, (long long)k->size[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static double ape(double pred, double meas)
{
    return pred >= 0 && meas > 0 ? 100.0 * fabs(pred - meas) / meas : -1.0;
}

static void print_header(FILE *f, const char *device, const char *what)
{
    fprintf(f, "\n%s: %s — times in ms; err = (predicted - measured) / measured\n", device, what);
    fprintf(f, "%-16s %-22s | %9s %9s %9s %9s | %9s %9s %9s %10s %8s | %9s %9s %9s %9s %8s |"
               " %13s | %6s\n",
            "kernel", "size", "meas.in", "kernel", "out", "total", "paper.in", "kernel", "out",
            "total", "err%", "ext.in", "kernel", "out", "total", "err%", "gaps k/o us", "rnd%");
}

static void json_row(FILE *f, const row_t *r)
{
    for (int m = 0; m < 2; m++) {
        fprintf(f, "{\"kernel\": ");
        json_str(f, r->kernel);
        fprintf(f, ", \"device\": ");
        json_str(f, r->device);
        fprintf(f, ", \"model\": \"%s\", \"size\": ", rtm_model_name((rtm_model_kind_t)m));
        json_str(f, r->size);
        if (r->pred[m][P_TOTAL] >= 0)
            fprintf(f, ", \"predicted_ms\": %.6f", r->pred[m][P_TOTAL] * 1e3);
        else
            fprintf(f, ", \"predicted_ms\": null");
        fprintf(f, ", \"measured_ms\": %.6f}\n", r->meas[P_TOTAL] * 1e3);
    }
    fflush(f);
}

/* {"summary": true, "device": ..., "model": ..., "mape": ...} (those keys only: the
 * issue's contract; the rounds' spread is in the table) */
static void json_summary(FILE *f, const char *dev, int m, uint32_t n, double mape)
{
    fprintf(f, "{\"summary\": true, \"device\": ");
    json_str(f, dev);
    fprintf(f, ", \"model\": \"%s\", \"mape\": ", rtm_model_name((rtm_model_kind_t)m));
    if (n)
        fprintf(f, "%.3f}\n", mape);
    else
        fprintf(f, "null}\n");
}

static void print_row(const val_t *v, const row_t *r)
{
    FILE *f = v->o->out;
    if (v->o->json_out)
        json_row(v->o->json_out, r);
    if (v->o->json) {
        json_row(f, r);
        return;
    }
    fprintf(f, "%-16s %-22s | %9.4f %9.4f %9.4f %9.4f |", r->kernel, r->brief, r->meas[P_IN] * 1e3,
            r->meas[P_KERNEL] * 1e3, r->meas[P_OUT] * 1e3, r->meas[P_TOTAL] * 1e3);
    for (int m = 0; m < 2; m++) {
        const double *p = r->pred[m];
        if (p[P_TOTAL] < 0) {
            fprintf(f, " %9s %9s %9s %*s %8s |", "-", "-", "-", m ? 9 : 10, "-", "-");
            continue;
        }
        const double e = r->meas[P_TOTAL] > 0
                             ? 100.0 * (p[P_TOTAL] - r->meas[P_TOTAL]) / r->meas[P_TOTAL]
                             : 0.0;
        fprintf(f, " %9.4f %9.4f %9.4f %*.4f %+8.1f%s", p[P_IN] * 1e3, p[P_KERNEL] * 1e3,
                p[P_OUT] * 1e3, m ? 9 : 10, p[P_TOTAL] * 1e3, e, m ? "" : " |");
    }
    /* the measured idle gaps within out (a device's jobs; none on the CPU) */
    fprintf(f, " | %6.1f/%6.1f", r->meas[P_GAPK] * 1e6, r->meas[P_GAPO] * 1e6);
    if (r->spread >= 0)
        fprintf(f, " | %6.1f", 100.0 * r->spread);
    else
        fprintf(f, " | %6s", "-");
    fputc('\n', f);
    fflush(f);
}

static rtm_status_t add_row(val_t *v, const row_t *r)
{
    if (v->n == v->cap) {
        const uint32_t cap = v->cap ? 2 * v->cap : 64;
        row_t *nr = realloc(v->rows, cap * sizeof(*nr));
        if (!nr)
            return RTM_E_NOMEM;
        v->rows = nr;
        v->cap = cap;
    }
    v->rows[v->n++] = *r;
    print_row(v, r);
    return RTM_OK;
}

static void fill_pred(const rtm_model_pred_t *p, row_t *r)
{
    const rtm_model_time_t *t[2] = {&p->paper, &p->ext};
    for (int m = 0; m < 2; m++) {
        if (t[m]->status != RTM_OK) {
            for (int i = 0; i < P_COUNT; i++)
                r->pred[m][i] = -1.0;
            continue;
        }
        r->pred[m][P_IN] = (double)t[m]->in_ns * 1e-9;
        r->pred[m][P_KERNEL] = (double)t[m]->kernel_ns * 1e-9;
        r->pred[m][P_OUT] = (double)t[m]->out_ns * 1e-9;
        r->pred[m][P_SETUP] = (double)t[m]->setup_ns * 1e-9;
        r->pred[m][P_TOTAL] = (double)t[m]->total_ns * 1e-9;
    }
}

/* The sizes to validate kernel `kern` at (tuning `tune`), first keys even. */
static uint32_t plan_sizes(const val_t *v, const rtm_kernel_t *kern, rtm_tune_t tune,
                           rtm_calib_pred_fn pred, const void *ctx, const rtm_calib_lim_t *lim,
                           int64_t sizes[][RTM_SIZE_KEYS_MAX], uint32_t max)
{
    uint32_t n = 0;
    int64_t keys[8] = {0};
    if (is_seed000(kern->name) && kern->n_keys >= 1) {
        const int64_t *set = v->o->quick ? rtm_calib_s0_valid_quick : rtm_calib_s0_valid;
        for (size_t i = 0; i < RTM_CALIB_S0_N && n < max; i++) {
            rtm_kinst_t k;
            rtm_kinst_init(&k, kern);
            int64_t key = set[i];
            if (strcmp(kern->keys[0].name, "n") != 0) {
                /* the empty kernel: as many blocks as an n x n grid of work-items */
                const int64_t wg = tune.wg ? tune.wg : 1;
                key = (set[i] * set[i] + wg - 1) / wg;
                key += key & 1;
            }
            k.size[0] = key;
            k.tune = tune;
            if (rtm_kinst_plan(&k) != RTM_OK)
                continue;
            memcpy(sizes[n++], k.size, sizeof(k.size));
        }
        return n;
    }
    const double *t = v->o->quick ? targets_quick : targets_full;
    const size_t nt = v->o->quick ? N_OF(targets_quick) : N_OF(targets_full);
    for (size_t i = 0; i < nt && n < max && n < N_OF(keys); i++) {
        const int64_t min_key = n ? keys[n - 1] + (keys[n - 1] + 1) / 2 : 0;
        const int64_t key = rtm_calib_size_for(kern, tune, t[i], pred, ctx, lim, 0, min_key, keys,
                                               n, sizes[n]);
        if (key < 0)
            break;
        bool dup = false;
        for (uint32_t j = 0; j < n; j++)
            dup = dup || keys[j] == key;
        if (dup)
            continue;
        keys[n++] = key;
    }
    return n;
}

/* Jobs measured after the warm-up: as many as fit in POINT_S (POINT_QUICK_S with
 * --quick), between 3 and VAL_REPS_MAX; 1 when a job takes over two seconds (the
 * seed-000 kernels at 3000 on a CPU take seconds). They are spread over VAL_ROUNDS
 * rounds through the device's points (at least one job a round; a job of over two
 * seconds in the first round only), each round on a fresh instance after its warm-up,
 * and the median of all of them is kept: a disturbance of the machine during one
 * point's jobs (on the H100, session 21: cpa_tcpa at 2100 targets 0.60 ms, where every
 * other run's first cpa_tcpa point measured 0.10-0.12 ms) is one round of three, which
 * the median leaves out, where it had been every job of the point. */
#define VAL_REPS_MAX 10
#define VAL_ROUNDS 3
#define VAL_SAMPLES (VAL_ROUNDS * ((VAL_REPS_MAX + VAL_ROUNDS - 1) / VAL_ROUNDS))
#define POINT_S 0.5
#define POINT_QUICK_S 0.2
static int reps_for(const val_t *v, double warm_s)
{
    if (warm_s > 2.0)
        return 1;
    const double want = (v->o->quick ? POINT_QUICK_S : POINT_S) / fmax(warm_s, 1e-6);
    return want >= VAL_REPS_MAX ? VAL_REPS_MAX : want <= 3 ? 3 : (int)want;
}

/* One validation point of a device (or the CPU pool): its kernel, size and tuning, the
 * jobs measured so far over the rounds, and its row (names and predictions from the
 * first round; the measured medians once every round is in). */
typedef struct {
    const rtm_kernel_t *kern;
    int64_t size[RTM_SIZE_KEYS_MAX];
    rtm_tune_t tune;
    int per_round; /* jobs a round (0 until the first round has timed the warm-up) */
    bool stop;     /* no more rounds: a job of over two seconds (the first round only),
                    * or a later round failed */
    bool failed;   /* measuring failed: no row */
    uint32_t n;    /* jobs measured */
    double s[P_COUNT][VAL_SAMPLES]; /* seconds per job and phase (P_SETUP unused) */
    row_t row;
} vpoint_t;

/* Jobs of point p in the round after a warm-up that took warm_s a job. */
static int round_jobs(const val_t *v, vpoint_t *p, double warm_s)
{
    if (!p->per_round) {
        const int reps = reps_for(v, warm_s);
        p->stop = warm_s > 2.0;
        p->per_round = p->stop ? 1 : (reps + VAL_ROUNDS - 1) / VAL_ROUNDS;
    }
    return p->per_round;
}

/* Where a validation point runs: an OpenCL device of the profile, or its CPU pool (bd
 * NULL). */
typedef struct {
    const rtm_board_t *b;
    const rtm_board_dev_t *bd;
} vwhere_t;

/* Both models' predictions of job where w says, `kind` chosen (its status returned;
 * each model's own in pr). */
static rtm_status_t predict(const vwhere_t *w, const rtm_model_job_t *job, rtm_model_kind_t kind,
                            rtm_model_pred_t *pr)
{
    return w->bd ? rtm_model_predict_dev(job, w->bd, kind, 0, pr)
                 : rtm_model_predict_cpu(job, w->b, 0, kind, 0, pr);
}

/* rtm_calib_pred_fn for sizing the points: the extended model's total (s), -1 unknown. */
static double vpred(const void *ctx, const rtm_kinst_t *k)
{
    rtm_model_job_t job;
    rtm_model_pred_t pr;
    if (rtm_model_job_make(k, &job) != RTM_OK ||
        predict(ctx, &job, RTM_MODEL_EXTENDED, &pr) != RTM_OK)
        return -1.0;
    return (double)pr.ext.total_ns * 1e-9;
}

/* Fills p's row after its first round: names, and both models' predictions pr of the
 * job measured (the model the profile chose marked). */
static void point_row(vpoint_t *p, const rtm_kinst_t *k, const char *device,
                      const rtm_model_pred_t *pr)
{
    row_t *row = &p->row;
    memset(row, 0, sizeof(*row));
    snprintf(row->kernel, sizeof(row->kernel), "%s", p->kern->name);
    snprintf(row->device, sizeof(row->device), "%s", device);
    size_text(k, false, row->size, sizeof(row->size));
    size_text(k, true, row->brief, sizeof(row->brief));
    fill_pred(pr, row);
}

/* How far apart p's rounds measured the same job: (max - min) of the rounds' medians of
 * the total over the point's median; -1 unless every round ran its jobs (a job of over
 * two seconds runs in the first round only). The machine's own repeatability, beside
 * which a model's error is read: on the H100 host's 16-core VM the CPU pool's rounds,
 * about 25 s apart, differed by 12-24 % on average, gpu0's by 5.6-6.9 % (session 38). */
static double round_spread(const vpoint_t *p)
{
    const uint32_t per = (uint32_t)p->per_round;
    if (per == 0 || p->n != VAL_ROUNDS * per || !(p->row.meas[P_TOTAL] > 0))
        return -1.0;
    double lo = 0.0, hi = 0.0;
    for (uint32_t r = 0; r < VAL_ROUNDS; r++) {
        double s[VAL_SAMPLES];
        memcpy(s, p->s[P_TOTAL] + r * per, per * sizeof(double));
        rtm_stats_sort(s, per);
        const double med = rtm_stats_percentile(s, per, 50);
        lo = r == 0 || med < lo ? med : lo;
        hi = r == 0 || med > hi ? med : hi;
    }
    return (hi - lo) / p->row.meas[P_TOTAL];
}

/* The points' rows, their medians over every round's jobs, in plan order. */
static rtm_status_t add_points(val_t *v, vpoint_t *pts, uint32_t np)
{
    rtm_status_t st = RTM_OK;
    for (uint32_t i = 0; i < np && st == RTM_OK; i++) {
        vpoint_t *p = &pts[i];
        if (p->failed || p->n == 0)
            continue;
        for (int ph = 0; ph < P_COUNT; ph++)
            if (ph != P_SETUP)
                p->row.meas[ph] = rtm_calib_summary(p->s[ph], p->n, NULL);
        p->row.spread = round_spread(p);
        st = add_row(v, &p->row);
    }
    return st;
}

/* ---- OpenCL device -------------------------------------------------------------------- */

/* One round of point p on an OpenCL device: a fresh instance and executor, warm-up,
 * the round's jobs. */
static rtm_status_t measure_dev(val_t *v, rtm_calib_arena_t *a, const rtm_board_dev_t *bd,
                                vpoint_t *p, bool first)
{
    rtm_ocl_dev_t *d = a->dev;
    rtm_calib_inst_t in;
    rtm_status_t st = rtm_calib_inst_make_in(&in, p->kern, p->size, p->tune, 101, a);
    rtm_kexec_t ex;
    memset(&ex, 0, sizeof(ex));
    /* the kernels the executive builds for this job (its launch shape and in-loop poll
     * period), with calibration's transfers and flag transport, and their prediction (back
     * to back: no flags; a model's own failure stays in its row) */
    rtm_kexec_opts_t o = rtm_kexec_calib_opts(v->cache);
    rtm_model_job_t job;
    rtm_model_pred_t pr;
    if (st == RTM_OK && rtm_preempt_predict_dev(bd, &in.k, 0, &job, &o, &pr) == RTM_E_ARG)
        st = RTM_E_ARG; /* no job descriptor for this instance */
    if (st == RTM_OK)
        st = rtm_kexec_create_ex(&ex, d, &in.k, &o);
    rtm_kexec_timing_t t;
    memset(&t, 0, sizeof(t));
    double warm_s = 0.0;
    for (int w = 0; st == RTM_OK && rtm_calib_warm_more(w, warm_s, RTM_CALIB_WARM_S); w++) {
        st = rtm_calib_inst_run(&ex, &in, &t);
        warm_s += t.wall_s;
    }
    const int reps = st == RTM_OK ? round_jobs(v, p, t.wall_s) : 0;
    for (int r = 0; r < reps && st == RTM_OK && p->n < VAL_SAMPLES; r++) {
        st = rtm_calib_inst_run(&ex, &in, &t);
        /* as the model-error log measures a job: the device span, out its remainder
         * after in and kernel (the gaps between the phases with the outputs) */
        const double all = t.span_s > 0.0 ? t.span_s : t.in_s + t.kernel_s + t.out_s;
        p->s[P_IN][p->n] = t.in_s;
        p->s[P_KERNEL][p->n] = t.kernel_s;
        p->s[P_OUT][p->n] = fmax(0.0, all - t.in_s - t.kernel_s);
        p->s[P_TOTAL][p->n] = all;
        p->s[P_GAPK][p->n] = t.gap_kernel_s;
        p->s[P_GAPO][p->n] = t.gap_out_s;
        p->n += st == RTM_OK;
    }
    rtm_kexec_destroy(&ex);
    if (st == RTM_OK && first)
        point_row(p, &in.k, bd->name, &pr);
    rtm_calib_inst_free(&in);
    return st;
}

/* Runs VAL_ROUNDS rounds over the points of one device (measure: dev's or the CPU's),
 * then adds their rows. A point that fails is reported and left out; it leaves out the
 * kernel's larger sizes too (they would fail the same way), except for lack of memory. */
typedef rtm_status_t (*measure_fn)(val_t *v, void *ctx, vpoint_t *p, bool first);

/* The host's load over one device's rounds, on the log (as calibration notes it for its
 * sections): validation's errors on the H100 host moved with its hypervisor's steal as
 * calibration's did (the CPU's 8.4 to 15.0 % over four same-machine runs, session 29),
 * and a reader needs to tell the model's error from the machine's. */
static void load_note(const val_t *v, const char *device, int round, const load_mark_t *m0)
{
    load_mark_t m1;
    rtm_calib_load_mark(&m1, 0.0);
    double wall, others, steal;
    if (!v->o->log || !rtm_calib_load_since(m0, &m1, &wall, &others, &steal))
        return;
    char what[32];
    snprintf(what, sizeof(what), round > 0 ? "over round %d" : "while validating it", round);
    fprintf(v->o->log,
            "rtmgr: validate: %s: host load %s (%.1fs): other processes and "
            "interrupts %.2f cores, stolen by the hypervisor %.2f cores, of %d%s\n",
            device, what, wall, others, steal, rtm_os_cpu_count(),
            others > RTM_CALIB_LOAD_WARN_CORES || steal > RTM_CALIB_LOAD_WARN_CORES
                ? " (WARNING: a busy host: its measured times may be slow)"
                : "");
}

static rtm_status_t run_rounds(val_t *v, void *ctx, measure_fn measure, vpoint_t *pts,
                               uint32_t np, const char *device)
{
    load_mark_t load;
    rtm_calib_load_mark(&load, 0.0);
    for (int round = 0; round < VAL_ROUNDS; round++) {
        if (v->o->log) /* the table comes once every round is in */
            fprintf(v->o->log, "rtmgr: validate: %s: round %d of %d (%u points)\n", device,
                    round + 1, VAL_ROUNDS, np);
        load_mark_t round_load; /* each round's too: which round a busy spell hit */
        rtm_calib_load_mark(&round_load, 0.0);
        for (uint32_t i = 0; i < np; i++) {
            vpoint_t *p = &pts[i];
            if (p->failed || p->stop || (round > 0 && p->n == 0))
                continue;
            const rtm_status_t st = measure(v, ctx, p, round == 0);
            if (st == RTM_OK)
                continue;
            /* the first round: no row for it (nor, unless memory ran out, for the
             * kernel's larger sizes); a later one: the rounds measured so far stand */
            if (st != RTM_E_NOMEM)
                fprintf(stderr, "rtmgr: validate: %s on %s: %s (skipped)\n", p->kern->name,
                        device, rtm_strerror(st));
            for (uint32_t j = i; j < np && pts[j].kern == p->kern; j++) {
                if (round == 0)
                    pts[j].failed = true;
                else
                    pts[j].stop = true;
                if (st == RTM_E_NOMEM)
                    break;
            }
        }
        load_note(v, device, round + 1, &round_load);
    }
    load_note(v, device, 0, &load);
    return add_points(v, pts, np);
}

typedef struct {
    rtm_calib_arena_t *arena;
    const rtm_board_dev_t *bd;
} dev_ctx_t;

static rtm_status_t measure_dev_cb(val_t *v, void *ctx, vpoint_t *p, bool first)
{
    const dev_ctx_t *c = ctx;
    return measure_dev(v, c->arena, c->bd, p, first);
}

/* Every validation point's kernel, size and tuning on one device (cpu: the CPU pool's
 * tuning and predictions), into pts (calloc'd; *np of them). */
static rtm_status_t plan_points(const val_t *v, const rtm_board_dev_t *bd,
                                const rtm_calib_lim_t *lim, vpoint_t **pts, uint32_t *np)
{
    *np = 0;
    *pts = calloc((size_t)rtm_kernel_count() * 8, sizeof(**pts));
    if (!*pts)
        return RTM_E_NOMEM;
    for (uint32_t ki = 0; ki < rtm_kernel_count(); ki++) {
        const rtm_kernel_t *kern = rtm_kernel_at(ki);
        if (!rtm_calib_wanted(v->o->kernels, kern->name))
            continue;
        const rtm_board_ktune_t *kt = bd ? &bd->ktune[ki] : &v->board->cpu_ktune[ki];
        const rtm_tune_t tune = kt->have ? kt->tune : kern->tune_default;
        const vwhere_t w = {v->board, bd};
        int64_t sizes[8][RTM_SIZE_KEYS_MAX];
        const uint32_t ns = plan_sizes(v, kern, tune, vpred, &w, lim, sizes, 8);
        for (uint32_t s = 0; s < ns; s++) {
            vpoint_t *p = &(*pts)[(*np)++];
            p->kern = kern;
            p->tune = tune;
            memcpy(p->size, sizes[s], sizeof(p->size));
        }
    }
    return RTM_OK;
}

static rtm_status_t validate_dev(val_t *v, const rtm_ocl_info_t *info, const rtm_board_dev_t *bd)
{
    rtm_ocl_dev_t dev;
    rtm_status_t st = rtm_ocl_open(&dev, info);
    if (st != RTM_OK)
        return st;
    if (!v->o->json)
        print_header(v->o->out, bd->name, info->name);
    const double cap = v->o->quick ? 256.0 * 1024 * 1024 : 2048.0 * 1024 * 1024;
    const rtm_calib_lim_t lim = {fmin((double)info->max_alloc, cap),
                                 fmin((double)info->global_mem / 2.0, cap)};
    rtm_calib_arena_t arena; /* the instances' pinned memory, as calibration's */
    rtm_calib_arena_init(&arena, &dev, (size_t)lim.max_total);
    vpoint_t *pts = NULL;
    uint32_t np = 0;
    st = plan_points(v, bd, &lim, &pts, &np);
    dev_ctx_t ctx = {&arena, bd};
    if (st == RTM_OK)
        st = run_rounds(v, &ctx, measure_dev_cb, pts, np, bd->name);
    free(pts);
    rtm_calib_arena_free(&arena);
    rtm_ocl_close(&dev);
    return st;
}

/* ---- CPU pool --------------------------------------------------------------------------- */

static rtm_pool_t val_pool;

static rtm_status_t measure_cpu(val_t *v, void *ctx, vpoint_t *p, bool first)
{
    (void)ctx;
    rtm_calib_inst_t in;
    rtm_status_t st = rtm_calib_inst_make(&in, p->kern, p->size, p->tune, 101);
    double warm = 0.0, warm_s = 0.0;
    for (int w = 0; st == RTM_OK && rtm_calib_warm_more(w, warm_s, RTM_CALIB_WARM_S); w++) {
        st = rtm_calib_inst_time(&val_pool, &in, &warm);
        warm_s += warm;
    }
    const int reps = st == RTM_OK ? round_jobs(v, p, warm) : 0;
    for (int r = 0; r < reps && st == RTM_OK && p->n < VAL_SAMPLES; r++) {
        double t = 0.0;
        st = rtm_calib_inst_time(&val_pool, &in, &t);
        for (int ph = 0; ph < P_COUNT; ph++) /* all of it kernel: no transfers */
            p->s[ph][p->n] = ph == P_KERNEL || ph == P_TOTAL ? t : 0.0;
        p->n += st == RTM_OK;
    }
    const vwhere_t w = {v->board, NULL};
    rtm_model_job_t job;
    rtm_model_pred_t pr;
    if (st == RTM_OK && first && (st = rtm_model_job_make(&in.k, &job)) == RTM_OK) {
        (void)predict(&w, &job, v->board->cpu_model, &pr); /* per model */
        point_row(p, &in.k, "cpu", &pr);
    }
    rtm_calib_inst_free(&in);
    return st;
}

static rtm_status_t validate_cpu(val_t *v)
{
    const rtm_board_t *b = v->board;
    const uint32_t n = b->threads ? (b->threads > RTM_MAX_WORKERS ? RTM_MAX_WORKERS : b->threads) : 1;
    rtm_os_sched_t saved;
    rtm_status_t st = rtm_pool_start_as_run(&val_pool, n, !v->o->no_rt, &saved);
    if (st != RTM_OK)
        return st;
    if (!v->o->json) {
        char what[96];
        snprintf(what, sizeof(what), "CPU worker pool, %u threads, %s", n,
                 val_pool.rt_priority ? "SCHED_FIFO as rtmgr run" : "the caller's scheduling");
        print_header(v->o->out, "cpu", what);
    }
    const double cap = v->o->quick ? 256.0 * 1024 * 1024 : 1024.0 * 1024 * 1024;
    const rtm_calib_lim_t lim = {cap, cap};
    vpoint_t *pts = NULL;
    uint32_t np = 0;
    st = plan_points(v, NULL, &lim, &pts, &np);
    if (st == RTM_OK)
        st = run_rounds(v, NULL, measure_cpu, pts, np, "cpu");
    free(pts);
    rtm_pool_stop_as_run(&val_pool, &saved);
    return st;
}

/* ---- summaries ---------------------------------------------------------------------------- */

static void summarise(val_t *v, rtm_calib_vsum_t *sum, uint32_t max, uint32_t *nsum)
{
    FILE *f = v->o->out;
    uint32_t count = 0;
    if (!v->o->json)
        fprintf(f, "\nMAPE (mean absolute percentage error) per device and model; total = "
                   "what the model-error log scores.\n");
    for (uint32_t i = 0; i < v->n; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i; j++)
            seen = seen || strcmp(v->rows[j].device, v->rows[i].device) == 0;
        if (seen)
            continue;
        const char *dev = v->rows[i].device;
        double mape[2] = {0, 0}, spread_sum = 0.0;
        uint32_t n_spread = 0, n_wide = 0; /* points with a spread; of them over 10 % */
        for (uint32_t j = i; j < v->n; j++) {
            const row_t *r = &v->rows[j];
            if (strcmp(r->device, dev) != 0 || r->spread < 0)
                continue;
            spread_sum += 100.0 * r->spread;
            n_spread++;
            n_wide += r->spread > 0.10;
        }
        for (int m = 0; m < 2; m++) {
            double s_tot = 0, s_xfer = 0, s_ker = 0, s_noc = 0;
            uint32_t n_tot = 0, n_xfer = 0, n_ker = 0;
            for (uint32_t j = i; j < v->n; j++) {
                const row_t *r = &v->rows[j];
                if (strcmp(r->device, dev) != 0 || r->pred[m][P_TOTAL] < 0)
                    continue;
                const double e = ape(r->pred[m][P_TOTAL], r->meas[P_TOTAL]);
                if (e < 0)
                    continue;
                s_tot += e;
                s_noc += ape(r->pred[m][P_TOTAL] - r->pred[m][P_SETUP], r->meas[P_TOTAL]);
                n_tot++;
                const double mx = r->meas[P_IN] + r->meas[P_OUT];
                const double px = r->pred[m][P_IN] + r->pred[m][P_OUT];
                if (mx > 0) {
                    s_xfer += ape(px, mx);
                    n_xfer++;
                }
                if (r->meas[P_KERNEL] > 0) {
                    s_ker += ape(r->pred[m][P_KERNEL], r->meas[P_KERNEL]);
                    n_ker++;
                }
            }
            mape[m] = n_tot ? s_tot / n_tot : -1.0;
            if (v->o->json_out)
                json_summary(v->o->json_out, dev, m, n_tot, mape[m]);
            if (v->o->json) {
                json_summary(f, dev, m, n_tot, mape[m]);
                continue;
            }
            char xfer[32] = "none"; /* the CPU pool's jobs transfer nothing */
            if (n_xfer)
                snprintf(xfer, sizeof(xfer), "%.2f%%", s_xfer / n_xfer);
            fprintf(f, "  %-8s %-8s MAPE %8.2f%% over %u points (transfers %s, kernel %.2f%%)",
                    dev, rtm_model_name((rtm_model_kind_t)m), n_tot ? mape[m] : NAN, n_tot, xfer,
                    n_ker ? s_ker / n_ker : NAN);
            if (m == RTM_MODEL_PAPER && strcmp(dev, "cpu") != 0)
                fprintf(f, "; without c (build time, charged to every job by eq. 4): %.2f%%",
                        n_tot ? s_noc / n_tot : NAN);
            fputc('\n', f);
        }
        if (!v->o->json && n_spread)
            fprintf(f, "  %-8s rounds   the same job's medians in the %d rounds differ by %.2f%% "
                       "on average ((max - min) / median, rnd%%), %u of %u points over 10%%: the "
                       "machine's own repeatability\n",
                    dev, VAL_ROUNDS, spread_sum / n_spread, n_wide, n_spread);
        if (sum && count < max) {
            snprintf(sum[count].device, sizeof(sum[count].device), "%s", dev);
            sum[count].mape[0] = mape[0];
            sum[count].mape[1] = mape[1];
            uint32_t pts = 0;
            for (uint32_t j = i; j < v->n; j++)
                pts += strcmp(v->rows[j].device, dev) == 0;
            sum[count].count = pts;
        }
        count++;
    }
    if (nsum)
        *nsum = count < max ? count : max;
    fflush(f);
    if (v->o->json_out)
        fflush(v->o->json_out);
}

rtm_status_t rtm_calib_validate(const rtm_calib_vopts_t *opts, const rtm_board_t *board,
                                rtm_calib_vsum_t *sum, uint32_t max, uint32_t *nsum)
{
    if (!opts || !board || !opts->out)
        return RTM_E_ARG;
    if (nsum)
        *nsum = 0;
    char cache[RTM_PATH_MAX];
    const bool have_cache = rtm_program_cache_dir(cache, sizeof(cache)) == RTM_OK;
    val_t v = {opts, board, NULL, 0, 0, have_cache ? cache : NULL};
    rtm_ocl_info_t infos[RTM_MAX_DEVICES];
    uint32_t n = 0;
    if (rtm_ocl_discover(infos, RTM_MAX_DEVICES, &n) != RTM_OK)
        n = 0;
    /* as calibration measures: the CPUs held out of deep power states as rtmgr run */
    const bool held = !opts->no_rt && rtm_os_hold_cpu_latency_if_free(0);
    rtm_status_t st = RTM_OK;
    for (uint32_t j = 0; st == RTM_OK && j < board->n_devs; j++) {
        const int i = rtm_calib_match(board, j, infos, n);
        if (i < 0) {
            fprintf(stderr, "rtmgr: validate: device '%s' of the profile is not on this computer\n",
                    board->dev[j].name);
            continue;
        }
        if (opts->device != -1 && i != opts->device)
            continue;
        if (opts->log)
            fprintf(opts->log, "rtmgr: validate: %s (%s)\n", board->dev[j].name, infos[i].name);
        st = validate_dev(&v, &infos[i], &board->dev[j]);
    }
    if (st == RTM_OK && !opts->no_cpu) {
        if (opts->log)
            fprintf(opts->log, "rtmgr: validate: cpu\n");
        st = validate_cpu(&v);
    }
    if (held)
        rtm_os_release_cpu_latency();
    if (st == RTM_OK)
        summarise(&v, sum, max, nsum);
    free(v.rows);
    return st;
}
