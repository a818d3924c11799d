/* kernels.c — helpers shared by the CPU twins (see kernels.h). */
#include "kernels/kernels.h"

#include <math.h>
#include <stdio.h>

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
