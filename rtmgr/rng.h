/* rng.h — a small seeded random generator (xoshiro256**, seeded by splitmix64).
 * Deterministic across platforms; used for test data and the synthetic scenario.
 * All functions but the parallel fills are safe on the real-time path (no allocation,
 * no locks). */
#ifndef RTM_RNG_H
#define RTM_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t s[4];
} rtm_rng_t;

void rtm_rng_seed(rtm_rng_t *r, uint64_t seed);

/* Inline: test data fills call these once or twice per element, up to a few hundred
 * million times (a 1 GiB calibration instance took 1.5 s to fill through a call). */
static inline uint64_t rtm_rng_rotl_(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rtm_rng_next(rtm_rng_t *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rtm_rng_rotl_(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rtm_rng_rotl_(s[3], 45);
    return result;
}

/* Uniform in [lo, hi). */
static inline double rtm_rng_uniform(rtm_rng_t *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rtm_rng_next(r) >> 11) * 0x1.0p-53);
}
/* Uniform integer in [0, n); n > 0. */
uint64_t rtm_rng_below(rtm_rng_t *r, uint64_t n);

/* Large test data, filled in parallel. fn(ctx, lo, hi, r) fills elements [lo, hi)
 * drawing from r. rtm_rng_fill calls it for chunks of RTM_RNG_CHUNK elements, chunk c
 * with its own stream seeded from (seed, c), on up to the host's cores (32 at most):
 * the data depend on seed and n only, not on the threads. A calibration instance of
 * 1 GiB took 1.3-1.6 s to fill on one core. Init only (starts threads). */
#define RTM_RNG_CHUNK ((size_t)1 << 18)
typedef void (*rtm_rng_fill_fn)(void *ctx, size_t lo, size_t hi, rtm_rng_t *r);
void rtm_rng_fill(size_t n, uint64_t seed, rtm_rng_fill_fn fn, void *ctx);
/* memset(p, 0, bytes) the same way (first touch of fresh pages on many cores). */
void rtm_rng_zero(void *p, size_t bytes);

#endif
