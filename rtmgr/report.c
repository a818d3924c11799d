/* report.c — the model-error log summary (see report.h; columns in docs/log.md).
 *
 * Owns: parsing the log CSV (columns found by header name, so added columns do not
 * break it), and the statistics:
 *   APE_i   = 100 * |predicted_ms - measured_ms| / measured_ms, over the "scored" rows:
 *             predicted_ms present, measured_ms > 0, and not preempted (a preempted
 *             job's row covers its last part only, and abort costs are no model's);
 *             other rows count as jobs (and misses) only;
 *   MAPE    = mean APE; median = middle value (mean of the two middle values for an
 *             even count); p99 = nearest rank: the ceil(0.99 n)-th smallest APE;
 *   bias    = mean of the signed error 100 * (predicted - measured) / measured;
 *   misses  = rows with met = 0;
 *   paper / extended MAPE: the same APE with predicted_paper_ms / predicted_ext_ms;
 *   EWMA    = online correction, per task and device in log order: the prediction is
 *             multiplied by f before it is scored, then f <- rtm_model_correct(f, a,
 *             meas, pred) (a = RTM_REPORT_EWMA_ALPHA, f starts at 1; meas/pred clamped
 *             to 1/10..10, as the executive does). It uses only earlier rows, as the
 *             manager would at run time, and is reported apart from the raw error.
 * Malformed input (wrong field count, a number that is not one, met not 0/1, a required
 * column missing) is an error with its line number; nothing is skipped silently. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "stats.h"

/* Columns read; the first REQUIRED of them must be present. */
enum { C_TASK, C_JOB, C_DEVICE, C_PRED, C_MEAS, C_DEADLINE, C_MET, REQUIRED,
       C_PAPER = REQUIRED, C_EXT, C_MODEL, C_PREEMPTED, C_RELEASE, C_RESPONSE, C_DISPATCH,
       C_SUBMIT, C_NOTICE, N_COLS };
static const char *const col_name[N_COLS] = {
    "task", "job", "device", "predicted_ms", "measured_ms", "deadline_ms", "met",
    "predicted_paper_ms", "predicted_ext_ms", "model", "preempted", "release_ms", "response_ms",
    "dispatch_ms", "submit_ms", "notice_ms",
};

const char *const rtm_report_part_name[RTM_REPORT_PARTS] = {"response", "dispatch", "submit",
                                                            "measured", "notice"};

/* A row's response parts (rtm_report_part_name's order) into v; false when one is
 * unknown (the log's older format, a job not completed or preempted). */
static bool row_parts(const rtm_report_row_t *w, double v[RTM_REPORT_PARTS])
{
    v[0] = w->response, v[1] = w->dispatch, v[2] = w->submit, v[3] = w->meas, v[4] = w->notice;
    for (int i = 0; i < RTM_REPORT_PARTS; i++)
        if (v[i] < 0.0)
            return false;
    return !w->preempted;
}

/* Fills the diagnostic (`diag` and `name` in scope) and gives RTM_E_PARSE. */
#define FAIL(line_, ...)                                                            \
    (snprintf(diag->file, sizeof(diag->file), "%s", name), diag->line = (line_),    \
     diag->column = 0, snprintf(diag->text, sizeof(diag->text), __VA_ARGS__), RTM_E_PARSE)

/* Splits `s` on ',' in place; returns the field count (up to max). */
static size_t split(char *s, char **field, size_t max)
{
    size_t n = 0;
    field[n++] = s;
    for (char *p = s; *p; p++) {
        if (*p == ',') {
            *p = '\0';
            if (n == max)
                return max + 1; /* too many */
            field[n++] = p + 1;
        }
    }
    return n;
}

/* A decimal number, or -1 for an empty field when `empty_ok`. */
static bool number(const char *s, bool empty_ok, double *out)
{
    if (!*s) {
        *out = -1.0;
        return empty_ok;
    }
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (*end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* Index of `name` in a name table, added when new; UINT32_MAX when out of memory. */
static uint32_t intern(char (**tab)[RTM_NAME_MAX], uint32_t *n, const char *name)
{
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp((*tab)[i], name) == 0)
            return i;
    if ((*n & (*n - 1)) == 0) { /* grow at powers of two */
        void *p = realloc(*tab, (size_t)(*n ? *n * 2 : 4) * RTM_NAME_MAX);
        if (!p)
            return UINT32_MAX;
        *tab = p;
    }
    snprintf((*tab)[*n], RTM_NAME_MAX, "%s", name);
    return (*n)++;
}

/* ---- statistics -------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double ape_of(double pred, double meas) { return 100.0 * fabs(pred - meas) / meas; }

/* Per-group accumulation while scanning rows. */
typedef struct {
    double *ape; /* scored APEs, sorted at the end */
    double *part[RTM_REPORT_PARTS]; /* the rows' response parts (row_parts) */
    double sum_ape, sum_pe, sum_corr, sum_paper, sum_ext;
    int model; /* -1 none yet, 0 paper, 1 extended, 2 mixed */
} acc_t;

static void group_add(rtm_report_group_t *g, acc_t *a, const rtm_report_row_t *r, int model)
{
    g->jobs++;
    g->misses += !r->met;
    g->preempted += r->preempted;
    if (model >= 0)
        a->model = a->model < 0 || a->model == model ? model : 2;
    if (r->scored) {
        const double ape = fabs(r->pe);
        a->ape[g->scored++] = ape;
        a->sum_ape += ape;
        a->sum_pe += r->pe;
        a->sum_corr += fabs(r->pe_corr);
    }
    if (r->scored && r->paper >= 0.0) {
        g->n_paper++;
        a->sum_paper += ape_of(r->paper, r->meas);
    }
    if (r->scored && r->ext >= 0.0) {
        g->n_ext++;
        a->sum_ext += ape_of(r->ext, r->meas);
    }
    double v[RTM_REPORT_PARTS];
    if (row_parts(r, v)) {
        for (int i = 0; i < RTM_REPORT_PARTS; i++)
            a->part[i][g->n_parts] = v[i];
        g->n_parts++;
    }
}

static void group_finish(rtm_report_group_t *g, acc_t *a)
{
    static const char *const model_text[] = {"paper", "extended", "mixed"};
    snprintf(g->model, sizeof(g->model), "%s", a->model < 0 ? "-" : model_text[a->model]);
    if (g->scored) {
        const uint32_t n = g->scored;
        qsort(a->ape, n, sizeof(double), cmp_double);
        g->mape = a->sum_ape / n;
        g->bias = a->sum_pe / n;
        g->mape_ewma = a->sum_corr / n;
        g->median_ape = n % 2 ? a->ape[n / 2] : (a->ape[n / 2 - 1] + a->ape[n / 2]) / 2.0;
        g->p99_ape = rtm_stats_percentile(a->ape, n, 99.0);
        g->max_ape = a->ape[n - 1];
    }
    for (int i = 0; g->n_parts && i < RTM_REPORT_PARTS; i++) {
        qsort(a->part[i], g->n_parts, sizeof(double), cmp_double);
        g->part_p50[i] = rtm_stats_percentile(a->part[i], g->n_parts, 50.0);
        g->part_p99[i] = rtm_stats_percentile(a->part[i], g->n_parts, 99.0);
    }
    if (g->n_paper)
        g->mape_paper = a->sum_paper / g->n_paper;
    if (g->n_ext)
        g->mape_ext = a->sum_ext / g->n_ext;
}

/* Builds the groups (per device: tasks in order of appearance, then "*") and their
 * statistics. `models` holds each row's model column (-1 when absent). */
static rtm_status_t summarise(rtm_report_t *r, const signed char *models)
{
    const size_t nt = r->n_tasks, nd = r->n_devs;
    if (r->n_rows == 0 || !models)
        return RTM_OK; /* a header alone: no groups (models exists when rows do) */
    size_t *gi = malloc((nt + 1) * nd * sizeof(size_t)); /* [dev][task or nt = all] */
    double *ewma = malloc(nt * nd * sizeof(double));
    if (!gi || !ewma) {
        free(gi);
        free(ewma);
        return RTM_E_NOMEM;
    }
    for (size_t i = 0; i < (nt + 1) * nd; i++)
        gi[i] = SIZE_MAX;
    for (size_t i = 0; i < nt * nd; i++)
        ewma[i] = 1.0;

    /* online correction and derived errors, in log order */
    for (size_t i = 0; i < r->n_rows; i++) {
        rtm_report_row_t *w = &r->row[i];
        gi[w->dev * (nt + 1) + w->task] = 0; /* mark present */
        w->scored = w->pred >= 0.0 && w->meas > 0.0 && !w->preempted;
        if (!w->scored)
            continue;
        double *f = &ewma[w->dev * nt + w->task];
        w->pe = 100.0 * (w->pred - w->meas) / w->meas;
        w->pe_corr = 100.0 * (w->pred * *f - w->meas) / w->meas;
        *f = rtm_model_correct(*f, RTM_REPORT_EWMA_ALPHA, w->meas, w->pred);
    }
    /* group order: by device, first appearance of tasks, then the device's aggregate */
    size_t ng = 0;
    for (size_t d = 0; d < nd; d++) {
        for (size_t t = 0; t < nt; t++)
            if (gi[d * (nt + 1) + t] == 0)
                gi[d * (nt + 1) + t] = ng++;
        gi[d * (nt + 1) + nt] = ng++;
    }
    r->group = calloc(ng, sizeof(*r->group));
    acc_t *acc = calloc(ng, sizeof(*acc));
    rtm_status_t st = r->group && acc ? RTM_OK : RTM_E_NOMEM;
    r->n_groups = st == RTM_OK ? ng : 0;
    for (size_t d = 0; st == RTM_OK && d < nd; d++)
        for (size_t t = 0; t <= nt; t++) {
            const size_t g = gi[d * (nt + 1) + t];
            if (g == SIZE_MAX)
                continue;
            rtm_report_group_t *G = &r->group[g];
            G->all_tasks = t == nt;
            snprintf(G->task, sizeof(G->task), "%s", t == nt ? "*" : r->task[t]);
            snprintf(G->device, sizeof(G->device), "%s", r->dev[d]);
            G->ewma_factor = t == nt ? -1.0 : ewma[d * nt + t];
            acc[g].model = -1;
        }
    /* count scored rows and rows with parts per group, then fill */
    uint32_t *cnt = st == RTM_OK ? calloc(2 * ng, sizeof(uint32_t)) : NULL;
    if (st == RTM_OK && !cnt)
        st = RTM_E_NOMEM;
    for (size_t i = 0; st == RTM_OK && i < r->n_rows; i++) {
        const rtm_report_row_t *w = &r->row[i];
        double v[RTM_REPORT_PARTS];
        const uint32_t has[2] = {w->scored, row_parts(w, v)}; /* counted in cnt[0..ng), [ng..) */
        const size_t g1 = gi[w->dev * (nt + 1) + w->task], g2 = gi[w->dev * (nt + 1) + nt];
        for (int k = 0; k < 2; k++) {
            cnt[k * ng + g1] += has[k];
            cnt[k * ng + g2] += has[k];
        }
    }
    for (size_t g = 0; st == RTM_OK && g < ng; g++) {
        if (!(acc[g].ape = malloc((cnt[g] ? cnt[g] : 1) * sizeof(double))))
            st = RTM_E_NOMEM;
        for (int i = 0; st == RTM_OK && i < RTM_REPORT_PARTS; i++)
            if (!(acc[g].part[i] = malloc((cnt[ng + g] ? cnt[ng + g] : 1) * sizeof(double))))
                st = RTM_E_NOMEM;
    }
    for (size_t i = 0; st == RTM_OK && i < r->n_rows; i++) {
        const rtm_report_row_t *w = &r->row[i];
        const size_t g1 = gi[w->dev * (nt + 1) + w->task], g2 = gi[w->dev * (nt + 1) + nt];
        group_add(&r->group[g1], &acc[g1], w, models[i]);
        group_add(&r->group[g2], &acc[g2], w, models[i]);
    }
    for (size_t g = 0; st == RTM_OK && g < ng; g++)
        group_finish(&r->group[g], &acc[g]);
    for (size_t g = 0; acc && g < ng; g++) {
        free(acc[g].ape);
        for (int i = 0; i < RTM_REPORT_PARTS; i++)
            free(acc[g].part[i]);
    }
    free(acc);
    free(cnt);
    free(gi);
    free(ewma);
    return st;
}

/* ---- reading ----------------------------------------------------------------------- */

rtm_status_t rtm_report_read(FILE *f, const char *name, rtm_report_t *r, rtm_diag_t *diag)
{
    rtm_diag_t unused;
    if (!diag)
        diag = &unused;
    memset(r, 0, sizeof(*r));
    snprintf(r->path, sizeof(r->path), "%s", name);
    char *line = NULL, **field = NULL;
    size_t cap = 0, rows_cap = 0, n_fields = 0;
    signed char *models = NULL;
    int col[N_COLS];
    rtm_status_t st = RTM_OK;
    int lineno = 0;
    ssize_t len;

    while (st == RTM_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (lineno == 1) { /* header: find the columns */
            size_t commas = 0;
            for (ssize_t i = 0; i < len; i++)
                commas += line[i] == ',';
            n_fields = commas + 1;
            field = malloc(n_fields * sizeof(char *));
            if (!field) {
                st = RTM_E_NOMEM;
                break;
            }
            split(line, field, n_fields);
            for (int c = 0; c < N_COLS; c++) {
                col[c] = -1;
                for (size_t i = 0; i < n_fields; i++)
                    if (strcmp(field[i], col_name[c]) == 0)
                        col[c] = (int)i;
                if (c < REQUIRED && col[c] < 0 && st == RTM_OK)
                    st = FAIL(1, "header lacks the column '%s'", col_name[c]);
            }
            continue;
        }
        const size_t nf = split(line, field, n_fields);
        if (nf != n_fields) {
            st = FAIL(lineno, "%s%zu fields, the header has %zu",
                      nf > n_fields ? "more than " : "", nf > n_fields ? n_fields : nf,
                      n_fields);
            break;
        }
        if (r->n_rows == rows_cap) {
            rows_cap = rows_cap ? rows_cap * 2 : 256;
            void *p = realloc(r->row, rows_cap * sizeof(*r->row));
            void *q = realloc(models, rows_cap);
            if (p)
                r->row = p;
            if (q)
                models = q;
            if (!p || !q) {
                st = RTM_E_NOMEM;
                break;
            }
        }
        rtm_report_row_t *w = &r->row[r->n_rows];
        memset(w, 0, sizeof(*w));
        const char *task = field[col[C_TASK]], *dev = field[col[C_DEVICE]];
        if (!*task || !*dev || strlen(task) >= RTM_NAME_MAX || strlen(dev) >= RTM_NAME_MAX) {
            st = FAIL(lineno, "task and device must be 1..%d characters",
                      RTM_NAME_MAX - 1);
            break;
        }
        double job = 0.0, met = 0.0, preempted = 0.0;
        const struct {
            int c;
            bool empty_ok;
            double *out;
        } num[] = {
            {C_JOB, false, &job},         {C_PRED, true, &w->pred},
            {C_MEAS, true, &w->meas},     {C_DEADLINE, false, &w->deadline},
            {C_MET, false, &met},         {C_PAPER, true, &w->paper},
            {C_EXT, true, &w->ext},       {C_PREEMPTED, false, &preempted},
            {C_RELEASE, true, &w->release}, {C_RESPONSE, true, &w->response},
            {C_DISPATCH, true, &w->dispatch}, {C_SUBMIT, true, &w->submit},
            {C_NOTICE, true, &w->notice},
        };
        w->paper = w->ext = w->release = w->response = -1.0;
        w->dispatch = w->submit = w->notice = -1.0;
        for (size_t i = 0; st == RTM_OK && i < sizeof(num) / sizeof(num[0]); i++) {
            if (col[num[i].c] < 0)
                continue;
            const char *s = field[col[num[i].c]];
            if (!number(s, num[i].empty_ok, num[i].out))
                st = FAIL(lineno, "column %s: '%s' is not a number%s",
                          col_name[num[i].c], s, num[i].empty_ok ? " (or empty)" : "");
        }
        if (st == RTM_OK && (met != 0.0 && met != 1.0))
            st = FAIL(lineno, "column met: must be 0 or 1");
        if (st == RTM_OK && (job < 0 || job != (double)(uint64_t)job))
            st = FAIL(lineno, "column job: must be a whole number >= 0");
        if (st != RTM_OK)
            break;
        if (preempted < 0 || preempted != (double)(uint64_t)preempted) {
            st = FAIL(lineno, "column preempted: must be a whole number >= 0");
            break;
        }
        w->preempted = preempted > 0;
        w->job = (uint64_t)job;
        w->met = met == 1.0;
        models[r->n_rows] = -1;
        if (col[C_MODEL] >= 0) {
            const char *m = field[col[C_MODEL]];
            models[r->n_rows] = strcmp(m, "paper") == 0      ? 0
                                : strcmp(m, "extended") == 0 ? 1
                                                             : -1;
        }
        w->task = intern(&r->task, &r->n_tasks, task);
        w->dev = intern(&r->dev, &r->n_devs, dev);
        if (w->task == UINT32_MAX || w->dev == UINT32_MAX)
            st = RTM_E_NOMEM;
        else
            r->n_rows++;
    }
    if (st == RTM_OK && ferror(f)) {
        (void)FAIL(lineno + 1, "read error");
        st = RTM_E_IO;
    }
    if (st == RTM_OK && lineno == 0)
        st = FAIL(1, "empty file: no header");
    if (st == RTM_OK)
        st = summarise(r, models);
    if (st == RTM_E_NOMEM)
        (void)FAIL(lineno, "out of memory");
    free(line);
    free(field);
    free(models);
    if (st != RTM_OK)
        rtm_report_free(r);
    return st;
}

rtm_status_t rtm_report_load(const char *path, rtm_report_t *r, rtm_diag_t *diag)
{
    memset(r, 0, sizeof(*r));
    FILE *f = fopen(path, "r");
    if (!f) {
        if (diag) {
            snprintf(diag->file, sizeof(diag->file), "%s", path);
            diag->line = diag->column = 0;
            snprintf(diag->text, sizeof(diag->text), "cannot open: %s", strerror(errno));
        }
        return RTM_E_IO;
    }
    const rtm_status_t st = rtm_report_read(f, path, r, diag);
    fclose(f);
    return st;
}

void rtm_report_free(rtm_report_t *r)
{
    free(r->row);
    free(r->task);
    free(r->dev);
    free(r->group);
    memset(r, 0, sizeof(*r));
}

/* ---- printing ---------------------------------------------------------------------- */

static void cell(FILE *out, bool have, double v, const char *fmt)
{
    if (have)
        fprintf(out, fmt, v);
    else
        fprintf(out, "%9s", "-");
}

/* The second table: where the response went, per group with such rows. */
static void print_parts(const rtm_report_t *r, FILE *out)
{
    bool any = false;
    for (size_t i = 0; i < r->n_groups; i++)
        any |= r->group[i].n_parts > 0;
    if (!any)
        return;
    fprintf(out, "\nwhere the response went (ms, p50 / p99; jobs completed and never "
                 "preempted: response = dispatch + submit + measured + notice)\n\n");
    fprintf(out, "%-20s %-10s %6s", "task", "device", "jobs");
    for (int k = 0; k < RTM_REPORT_PARTS; k++)
        fprintf(out, " %19s", rtm_report_part_name[k]);
    fputc('\n', out);
    for (size_t i = 0; i < r->n_groups; i++) {
        const rtm_report_group_t *g = &r->group[i];
        if (!g->n_parts)
            continue;
        fprintf(out, "%-20s %-10s %6u", g->task, g->device, g->n_parts);
        for (int k = 0; k < RTM_REPORT_PARTS; k++)
            fprintf(out, " %9.3f /%8.3f", g->part_p50[k], g->part_p99[k]);
        fputc('\n', out);
    }
    fprintf(out, "\ndispatch: release -> its dispatcher began it; submit: -> the device "
                 "started it (0 on the CPU pool);\nmeasured: the device's span; notice: "
                 "its end -> the host completed the job.\n");
}

void rtm_report_print(const rtm_report_t *r, FILE *out)
{
    fprintf(out, "model error: %s (%zu jobs; APE = |predicted - measured| / measured, %%)\n\n",
            r->path, r->n_rows);
    fprintf(out, "%-20s %-10s %-8s %6s %6s %6s %7s %9s %9s %9s %9s %9s %9s %9s\n", "task",
            "device", "model", "jobs", "scored", "misses", "preempt", "MAPE", "median", "p99",
            "bias", "paper", "extended", "EWMA");
    for (size_t i = 0; i < r->n_groups; i++) {
        const rtm_report_group_t *g = &r->group[i];
        fprintf(out, "%-20s %-10s %-8s %6u %6u %6u %7u", g->task, g->device, g->model,
                g->jobs, g->scored, g->misses, g->preempted);
        cell(out, g->scored, g->mape, " %8.2f");
        cell(out, g->scored, g->median_ape, " %8.2f");
        cell(out, g->scored, g->p99_ape, " %8.2f");
        cell(out, g->scored, g->bias, " %+8.2f");
        cell(out, g->n_paper, g->mape_paper, " %8.2f");
        cell(out, g->n_ext, g->mape_ext, " %8.2f");
        cell(out, g->scored, g->mape_ewma, " %8.2f");
        fputc('\n', out);
        if (g->all_tasks && i + 1 < r->n_groups)
            fputc('\n', out);
    }
    fprintf(out, "\nscored: jobs with a prediction and a measurement, not preempted;\n"
                 "MAPE/median/p99/bias: the model used for placement (predicted_ms); "
                 "paper/extended: each model's MAPE;\nEWMA: MAPE after online correction "
                 "(factor = EWMA of measured/predicted per task and device, alpha %.2f).\n",
            RTM_REPORT_EWMA_ALPHA);
    print_parts(r, out);
}

static void json_str(FILE *out, const char *key, const char *s)
{
    fprintf(out, "\"%s\":\"", key);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void json_num(FILE *out, const char *key, bool have, double v)
{
    if (have)
        fprintf(out, ",\"%s\":%.6g", key, v);
    else
        fprintf(out, ",\"%s\":null", key);
}

void rtm_report_print_json(const rtm_report_t *r, FILE *out)
{
    for (size_t i = 0; i < r->n_groups; i++) {
        const rtm_report_group_t *g = &r->group[i];
        fputc('{', out);
        json_str(out, "task", g->task);
        fputc(',', out);
        json_str(out, "device", g->device);
        fputc(',', out);
        json_str(out, "model", g->model);
        fprintf(out, ",\"all_tasks\":%s,\"jobs\":%u,\"scored\":%u,\"misses\":%u,"
                     "\"preempted\":%u",
                g->all_tasks ? "true" : "false", g->jobs, g->scored, g->misses, g->preempted);
        json_num(out, "mape", g->scored, g->mape);
        json_num(out, "median_ape", g->scored, g->median_ape);
        json_num(out, "p99_ape", g->scored, g->p99_ape);
        json_num(out, "max_ape", g->scored, g->max_ape);
        json_num(out, "bias", g->scored, g->bias);
        json_num(out, "mape_paper", g->n_paper, g->mape_paper);
        json_num(out, "mape_ext", g->n_ext, g->mape_ext);
        json_num(out, "mape_ewma", g->scored, g->mape_ewma);
        json_num(out, "ewma_factor", !g->all_tasks && g->scored, g->ewma_factor);
        fprintf(out, ",\"parts_jobs\":%u", g->n_parts);
        for (int k = 0; k < RTM_REPORT_PARTS; k++) {
            char key[32];
            snprintf(key, sizeof(key), "%s_p50_ms", rtm_report_part_name[k]);
            json_num(out, key, g->n_parts, g->part_p50[k]);
            snprintf(key, sizeof(key), "%s_p99_ms", rtm_report_part_name[k]);
            json_num(out, key, g->n_parts, g->part_p99[k]);
        }
        fputs("}\n", out);
    }
}
