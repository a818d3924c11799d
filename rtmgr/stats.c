/* stats.c — robust summaries of repeated measurements (see stats.h). */
#include "stats.h"

#include <math.h>
#include <string.h>

void rtm_stats_sort(double *x, size_t n)
{
    /* Shell sort with Ciura's gaps: in place, no allocation, fine for the few
     * thousand samples a benchmark keeps. */
    static const size_t gaps[] = {1750, 701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
        const size_t gap = gaps[g];
        for (size_t i = gap; i < n; i++) {
            const double v = x[i];
            size_t j = i;
            for (; j >= gap && x[j - gap] > v; j -= gap)
                x[j] = x[j - gap];
            x[j] = v;
        }
    }
}

double rtm_stats_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return sorted[rank - 1];
}

static double median_sorted(const double *s, size_t n)
{
    if (n == 0)
        return 0.0;
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

void rtm_stats_summary(double *x, size_t n, rtm_summary_t *out)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    if (n == 0)
        return;
    rtm_stats_sort(x, n);
    out->p99 = rtm_stats_percentile(x, n, 99.0);
    const double med = median_sorted(x, n);
    /* MAD without a second buffer: the deviations |x - med| of a sorted array are
     * two sorted runs (left side descending, right side ascending); merge them to the
     * middle element. */
    size_t lo = 0, hi = n; /* left run: indices [0, split) reversed; right: [split, n) */
    size_t split = 0;
    while (split < n && x[split] < med)
        split++;
    size_t i = split, j = split; /* i walks left (i-1), j walks right */
    double mad = 0.0;
    for (size_t k = 0; k <= (n - 1) / 2; k++) {
        const double dl = i > lo ? med - x[i - 1] : INFINITY;
        const double dr = j < hi ? x[j] - med : INFINITY;
        if (dl <= dr) {
            mad = dl;
            i--;
        } else {
            mad = dr;
            j++;
        }
    }
    const double limit = 3.0 * 1.4826 * mad;
    size_t first = 0, last = n; /* kept range [first, last) */
    while (first < n && med - x[first] > limit)
        first++;
    while (last > first && x[last - 1] - med > limit)
        last--;
    if (last - first < (n + 1) / 2) {
        first = 0;
        last = n;
    }
    out->kept = last - first;
    out->median = median_sorted(x + first, out->kept);
    out->min = x[first];
    out->max = x[last - 1];
    double sum = 0.0;
    for (size_t k = first; k < last; k++)
        sum += x[k];
    out->mean = sum / (double)out->kept;
    out->spread = out->median != 0.0 ? (out->max - out->min) / out->median : 0.0;
}
