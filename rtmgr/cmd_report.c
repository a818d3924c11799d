/* cmd_report.c — `rtmgr report LOG [--out DIR] [--json] [--no-plot]`: the model-error
 * and deadline summary of a model-error log, and its plots.
 *
 * Owns: the command line, and the plots. Statistics come from report.c. Plots, per
 * device, when gnuplot is on PATH: BASE.DEVICE.scatter.png (predicted_ms against
 * measured_ms, one colour per task, with the line measured = predicted; log-log when
 * the values span more than two decades) and BASE.DEVICE.error.png (histogram of the
 * signed % error), where BASE is the log's file name without ".csv"; written next to
 * the log or into --out DIR. The data go to gnuplot as inline datablocks over a pipe:
 * no temporary files. Without gnuplot the tables are printed and the command says so.
 * Exit: 0 ok, 1 usage, 3 unreadable or malformed log (FILE:LINE: what). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"

static const char usage_text[] =
    "usage: rtmgr report LOG [--out DIR] [--json] [--no-plot]\n"
    "  Model error and deadline summary of a model-error log (docs/log.md), per task and\n"
    "  device: jobs, MAPE, median and p99 absolute % error, bias, misses, each model's\n"
    "  MAPE, and the MAPE left after an online EWMA correction.\n"
    "  --out DIR   write the plots into DIR (default: beside LOG)\n"
    "  --json      print the summary as JSON lines instead of a table\n"
    "  --no-plot   do not draw plots\n"
    "  Plots (gnuplot on PATH): BASE.DEVICE.scatter.png, BASE.DEVICE.error.png.\n"
    "  Exit: 0 ok, 1 usage, 3 unreadable or malformed log.\n";

static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char dir[1024];
    while (path && *path) {
        const size_t n = strcspn(path, ":");
        if (n > 0 && n + strlen(prog) + 2 <= sizeof(dir)) {
            snprintf(dir, sizeof(dir), "%.*s/%s", (int)n, path, prog);
            if (access(dir, X_OK) == 0)
                return true;
        }
        path += n + (path[n] == ':');
    }
    return false;
}

/* gnuplot single-quoted string: a quote is written twice. */
static void gp_quoted(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', gp);
        fputc(*s, gp);
    }
    fputc('\'', gp);
}

/* A device or base name made safe for a file name. */
static void file_safe(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++) {
        const char c = src[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        dst[i] = ok ? c : '_';
    }
    dst[i] = '\0';
}

static double nice_width(double raw)
{
    if (!(raw > 0.0))
        return 1.0;
    const double mag = pow(10.0, floor(log10(raw)));
    const double steps[] = {1.0, 2.0, 5.0, 10.0};
    for (size_t i = 0; i < 4; i++)
        if (steps[i] * mag >= raw)
            return steps[i] * mag;
    return 10.0 * mag;
}

static void gp_terminal(FILE *gp)
{
    fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size 960,720 noenhanced\n"
          "} else {\n"
          "  set terminal png size 960,720 noenhanced\n"
          "}\n",
          gp);
}

/* Draws the two plots of device `d`; returns how many PNG files exist afterwards. */
static int plot_device(const rtm_report_t *r, uint32_t d, const char *dir, const char *base)
{
    char dev[RTM_NAME_MAX], scatter[RTM_PATH_MAX + 2 * RTM_NAME_MAX],
        hist[RTM_PATH_MAX + 2 * RTM_NAME_MAX];
    file_safe(dev, sizeof(dev), r->dev[d]);
    snprintf(scatter, sizeof(scatter), "%s/%s.%s.scatter.png", dir, base, dev);
    snprintf(hist, sizeof(hist), "%s/%s.%s.error.png", dir, base, dev);

    double lo = INFINITY, hi = 0.0, pe_lo = INFINITY, pe_hi = -INFINITY;
    size_t n = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const rtm_report_row_t *w = &r->row[i];
        if (w->dev != d || !w->scored)
            continue;
        n++;
        lo = fmin(lo, fmin(w->pred > 0 ? w->pred : INFINITY, w->meas));
        hi = fmax(hi, fmax(w->pred, w->meas));
        pe_lo = fmin(pe_lo, w->pe);
        pe_hi = fmax(pe_hi, w->pe);
    }
    if (n == 0) {
        fprintf(stderr, "rtmgr report: %s: no job with both a prediction and a measurement: "
                        "no plots\n", r->dev[d]);
        return 0;
    }
    remove(scatter);
    remove(hist);
    FILE *gp = popen("gnuplot", "w");
    if (!gp) {
        fprintf(stderr, "rtmgr report: cannot run gnuplot: %s\n", strerror(errno));
        return 0;
    }
    /* scatter: one datablock per task */
    const double bin = nice_width((pe_hi - pe_lo) / 30.0); /* histogram bin width */
    const double first = floor(pe_lo / bin) * bin;
    const size_t bins = (size_t)((pe_hi - first) / bin) + 1;
    bool *used = calloc(r->n_tasks, sizeof(bool));
    size_t *count = calloc(bins, sizeof(size_t));
    if (!used || !count) {
        free(used);
        free(count);
        pclose(gp);
        return 0;
    }
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        for (size_t i = 0; i < r->n_rows; i++) {
            const rtm_report_row_t *w = &r->row[i];
            if (w->dev != d || w->task != t || !w->scored)
                continue;
            if (!used[t])
                fprintf(gp, "$t%u << EOD\n", t);
            used[t] = true;
            count[(size_t)((w->pe - first) / bin)]++;
            fprintf(gp, "%.9g %.9g\n", w->pred, w->meas);
        }
        if (used[t])
            fputs("EOD\n", gp);
    }
    gp_terminal(gp);
    fputs("set output ", gp);
    gp_quoted(gp, scatter);
    fputs("\nset title ", gp);
    char title[256];
    snprintf(title, sizeof(title), "%s: predicted vs measured, %zu jobs (%s)", r->dev[d], n,
             base);
    gp_quoted(gp, title);
    const bool logscale = lo > 0.0 && hi / lo > 100.0;
    if (logscale)
        fprintf(gp, "\nset logscale xy\nset xrange [%.9g:%.9g]\nset yrange [%.9g:%.9g]\n",
                lo / 1.5, hi * 1.5, lo / 1.5, hi * 1.5);
    else
        fprintf(gp, "\nset xrange [0:%.9g]\nset yrange [0:%.9g]\n", hi * 1.05, hi * 1.05);
    fputs("set size ratio -1\nset grid\nset key left top\n"
          "set xlabel 'predicted (ms)'\nset ylabel 'measured (ms)'\nplot ",
          gp);
    for (uint32_t t = 0; t < r->n_tasks; t++) {
        if (!used[t])
            continue;
        fprintf(gp, "$t%u using 1:2 with points pt 7 ps 0.7 title ", t);
        gp_quoted(gp, r->task[t]);
        fputs(", ", gp);
    }
    fputs("x with lines dt 2 lc rgb 'gray40' title 'measured = predicted'\n"
          "unset output\n",
          gp);

    /* histogram of the signed % error, binned above */
    fputs("reset\n$h << EOD\n", gp);
    for (size_t b = 0; b < bins; b++)
        fprintf(gp, "%.9g %zu\n", first + ((double)b + 0.5) * bin, count[b]);
    fputs("EOD\n", gp);
    free(used);
    free(count);
    gp_terminal(gp);
    fputs("set output ", gp);
    gp_quoted(gp, hist);
    snprintf(title, sizeof(title), "%s: model error, %zu jobs (%s)", r->dev[d], n, base);
    fputs("\nset title ", gp);
    gp_quoted(gp, title);
    fprintf(gp, "\nset boxwidth %.9g\nset style fill solid 0.6\nset grid ytics\n"
                "set xlabel '(predicted - measured) / measured (%%)'\nset ylabel 'jobs'\n"
                "set yrange [0:*]\nplot $h using 1:2 with boxes title 'predicted_ms'\n"
                "unset output\n",
            bin);
    const int rc = pclose(gp);
    int made = 0;
    struct stat sb;
    for (int k = 0; k < 2; k++) {
        const char *png = k ? hist : scatter;
        if (stat(png, &sb) == 0 && sb.st_size > 0) {
            fprintf(stderr, "rtmgr report: wrote %s\n", png);
            made++;
        }
    }
    if (rc != 0 || made < 2)
        fprintf(stderr, "rtmgr report: gnuplot failed for %s (status %d)\n", r->dev[d], rc);
    return made;
}

int rtm_cmd_report(int argc, char **argv)
{
    const char *log = NULL, *out = NULL;
    bool json = false, plot = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            return RTM_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--no-plot") == 0) {
            plot = false;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (argv[i][0] == '-' || log) {
            fprintf(stderr, "rtmgr report: unexpected argument '%s'\n%s", argv[i], usage_text);
            return RTM_EXIT_USAGE;
        } else {
            log = argv[i];
        }
    }
    if (!log) {
        fputs(usage_text, stderr);
        return RTM_EXIT_USAGE;
    }
    rtm_report_t r;
    rtm_diag_t diag;
    const rtm_status_t st = rtm_report_load(log, &r, &diag);
    if (st != RTM_OK) {
        if (diag.line > 0)
            fprintf(stderr, "%s:%d: error: %s\n", diag.file, diag.line, diag.text);
        else
            fprintf(stderr, "%s: error: %s\n", diag.file, diag.text);
        return RTM_EXIT_RUNTIME;
    }
    if (json)
        rtm_report_print_json(&r, stdout);
    else
        rtm_report_print(&r, stdout);
    fflush(stdout);

    if (plot && r.n_rows > 0) {
        char dir[RTM_PATH_MAX], base[RTM_PATH_MAX];
        const char *slash = strrchr(log, '/');
        if (out) {
            snprintf(dir, sizeof(dir), "%s", out);
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                fprintf(stderr, "rtmgr report: cannot create %s: %s\n", dir, strerror(errno));
        } else if (slash) {
            snprintf(dir, sizeof(dir), "%.*s", (int)(slash - log), log);
        } else {
            snprintf(dir, sizeof(dir), ".");
        }
        if (!dir[0])
            snprintf(dir, sizeof(dir), "/");
        file_safe(base, sizeof(base), slash ? slash + 1 : log);
        const size_t bl = strlen(base);
        if (bl > 4 && strcmp(base + bl - 4, ".csv") == 0)
            base[bl - 4] = '\0';
        if (!on_path("gnuplot")) {
            fprintf(stderr, "rtmgr report: gnuplot is not on PATH: no plots (install "
                            "gnuplot-nox to get them)\n");
        } else {
            for (uint32_t d = 0; d < r.n_devs; d++)
                plot_device(&r, d, dir, base);
        }
    }
    rtm_report_free(&r);
    return RTM_EXIT_OK;
}
