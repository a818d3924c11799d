/* hist.h — a fixed-size log-linear histogram of durations (nanoseconds), for response
 * times, release jitter and decision latency.
 *
 * Values below 16 ns have a bin each; above, every power of two is split into 16 bins,
 * so a quantile is known to within 1/16 of its value (reported at the bin's middle).
 * Exact count, min, max and sum are kept beside the bins. No allocation; adding is
 * O(1) and real-time safe; the caller serialises access. */
#ifndef RTM_HIST_H
#define RTM_HIST_H

#include <stdint.h>

#define RTM_HIST_SUB 16
#define RTM_HIST_BINS (RTM_HIST_SUB + 60 * RTM_HIST_SUB)

typedef struct {
    uint64_t count;
    int64_t min, max;
    double sum;
    uint32_t bin[RTM_HIST_BINS];
} rtm_hist_t;

/* Empties h. */
void rtm_hist_reset(rtm_hist_t *h);
/* Adds one value; negative values count as 0. Real-time safe. */
void rtm_hist_add(rtm_hist_t *h, int64_t ns);
/* Value at quantile q in [0, 1] (0.5 = median), 0 when empty; exact at q = 0 and 1. */
int64_t rtm_hist_quantile(const rtm_hist_t *h, double q);
/* Mean, 0 when empty. */
double rtm_hist_mean(const rtm_hist_t *h);
/* Adds every value of src to dst. */
void rtm_hist_merge(rtm_hist_t *dst, const rtm_hist_t *src);

#endif
