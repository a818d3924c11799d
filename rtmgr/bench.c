/* bench.c — helpers shared by the sub-benchmarks of `rtmgr bench` (see bench.h). */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted x (0 < q <= 1). */
static double rank(const double *x, uint32_t n, double q)
{
    uint32_t r = (uint32_t)ceil(q * n);
    if (r < 1)
        r = 1;
    return x[(r > n ? n : r) - 1];
}

void rtm_bench_summarise(double *x, uint32_t n, rtm_bench_summary_t *s)
{
    *s = (rtm_bench_summary_t){.n = n};
    if (n == 0)
        return;
    qsort(x, n, sizeof(*x), cmp_double);
    double sum = 0.0;
    for (uint32_t i = 0; i < n; i++)
        sum += x[i];
    s->min = x[0];
    s->max = x[n - 1];
    s->median = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
    s->p99 = rank(x, n, 0.99);
    s->mean = sum / n;
}

double rtm_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void rtm_bench_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
