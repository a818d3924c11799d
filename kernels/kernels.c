/* kernels.c — helpers shared by the CPU twins (see kernels.h). */
#include "kernels/kernels.h"

#include <math.h>
#include <stdio.h>

#include "rtmgr/rng.h"

static void pairs_chunk(void *ctx, size_t lo, size_t hi, rtm_rng_t *r)
{
    uint64_t *in = ctx;
    for (size_t i = lo; i < hi; i++) {
        const uint64_t x = rtm_rng_next(r);
        const uint32_t key = (x >> 62) == 0 ? (uint32_t)(x & 15u) * 0x10000001u : (uint32_t)(x >> 20);
        in[i] = (uint64_t)key << 32 | (uint32_t)i;
    }
}

void rtm_pairs_fill(uint64_t *in, size_t n, uint64_t seed) { rtm_rng_fill(n, seed, pairs_chunk, in); }

size_t rtm_compare_floats(const float *x, const float *y, size_t n, float tol, char *why,
                          size_t len)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const float a = x[i], b = y[i];
        if (isnan(a) && isnan(b))
            continue;
        const float scale = fabsf(b) > 1.0f ? fabsf(b) : 1.0f;
        if (!(fabsf(a - b) <= tol * scale)) {
            if (bad == 0 && why && len)
                snprintf(why, len, "element %zu: %.9g vs %.9g (tol %g)", i, (double)a,
                         (double)b, (double)tol);
            bad++;
        }
    }
    return bad;
}

size_t rtm_compare_u32(const unsigned *x, const unsigned *y, size_t n, char *why, size_t len)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) {
            if (bad == 0 && why && len)
                snprintf(why, len, "element %zu: %u vs %u", i, x[i], y[i]);
            bad++;
        }
    }
    return bad;
}

size_t rtm_compare_u8(const unsigned char *x, const unsigned char *y, size_t n, unsigned tol,
                      char *why, size_t len)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned d = x[i] > y[i] ? (unsigned)(x[i] - y[i]) : (unsigned)(y[i] - x[i]);
        if (d > tol) {
            if (bad == 0 && why && len)
                snprintf(why, len, "element %zu: %u vs %u (tol %u)", i, x[i], y[i], tol);
            bad++;
        }
    }
    return bad;
}
