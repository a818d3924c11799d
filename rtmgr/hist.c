/* hist.c — log-linear duration histogram (see hist.h). Bin of v >= 16: with e the index
 * of v's top bit, (e - 3) * 16 + the 4 bits below the top one. */
#include "hist.h"

#include <string.h>

static uint32_t bin_of(uint64_t v)
{
    if (v < RTM_HIST_SUB)
        return (uint32_t)v;
    const uint32_t e = 63u - (uint32_t)__builtin_clzll(v);
    const uint32_t b = (e - 3u) * RTM_HIST_SUB + (uint32_t)((v >> (e - 4u)) & 15u);
    return b < RTM_HIST_BINS ? b : RTM_HIST_BINS - 1;
}

/* Middle of bin b. */
static int64_t bin_mid(uint32_t b)
{
    if (b < RTM_HIST_SUB)
        return b;
    const uint32_t e = b / RTM_HIST_SUB + 3u, sub = b % RTM_HIST_SUB;
    const uint64_t lo = (1ull << e) + ((uint64_t)sub << (e - 4u));
    return (int64_t)(lo + (1ull << (e - 4u)) / 2u);
}

void rtm_hist_reset(rtm_hist_t *h) { memset(h, 0, sizeof(*h)); }

void rtm_hist_add(rtm_hist_t *h, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    if (h->count == 0 || ns < h->min)
        h->min = ns;
    if (h->count == 0 || ns > h->max)
        h->max = ns;
    h->count++;
    h->sum += (double)ns;
    h->bin[bin_of((uint64_t)ns)]++;
}

int64_t rtm_hist_quantile(const rtm_hist_t *h, double q)
{
    if (h->count == 0)
        return 0;
    if (q <= 0.0)
        return h->min;
    if (q >= 1.0)
        return h->max;
    uint64_t rank = (uint64_t)(q * (double)h->count);
    if (rank >= h->count)
        rank = h->count - 1;
    uint64_t seen = 0;
    for (uint32_t b = 0; b < RTM_HIST_BINS; b++) {
        seen += h->bin[b];
        if (seen > rank) {
            const int64_t v = bin_mid(b);
            return v < h->min ? h->min : v > h->max ? h->max : v;
        }
    }
    return h->max;
}

double rtm_hist_mean(const rtm_hist_t *h) { return h->count ? h->sum / (double)h->count : 0.0; }

void rtm_hist_merge(rtm_hist_t *dst, const rtm_hist_t *src)
{
    if (src->count == 0)
        return;
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->count == 0 || src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    dst->sum += src->sum;
    for (uint32_t b = 0; b < RTM_HIST_BINS; b++)
        dst->bin[b] += src->bin[b];
}
