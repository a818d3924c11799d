/* stats.h — robust summaries of repeated measurements (calibration, benchmarks).
 *
 * The paper's method (seed 000): repeat, drop outliers, keep the median. Outliers are
 * samples farther than 3 scaled median absolute deviations (3 * 1.4826 * MAD) from the
 * median. If dropping would leave fewer than half the samples (a bimodal set), none is
 * dropped. Sorting is in place; no allocation; safe on the real-time path. */
#ifndef RTM_STATS_H
#define RTM_STATS_H

#include <stddef.h>

typedef struct {
    size_t n;       /* samples given */
    size_t kept;    /* samples left after dropping outliers */
    double median;  /* of the kept samples */
    double mean;    /* of the kept samples */
    double min, max;/* of the kept samples */
    double p99;     /* of all samples (nearest rank) */
    double spread;  /* relative spread of the kept samples: (max - min) / median */
} rtm_summary_t;

/* Sorts x[0..n) ascending in place. */
void rtm_stats_sort(double *x, size_t n);
/* Nearest-rank percentile (0 < p <= 100) of sorted x; 0 when n == 0. */
double rtm_stats_percentile(const double *sorted, size_t n, double p);
/* Summarises x[0..n) (sorted in place) as described above. */
void rtm_stats_summary(double *x, size_t n, rtm_summary_t *out);

#endif
