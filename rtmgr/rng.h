/* rng.h — a small seeded random generator (xoshiro256**, seeded by splitmix64).
 * Deterministic across platforms; used for test data and the synthetic scenario.
 * All functions are safe on the real-time path (no allocation, no locks). */
#ifndef RTM_RNG_H
#define RTM_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} rtm_rng_t;

void rtm_rng_seed(rtm_rng_t *r, uint64_t seed);
uint64_t rtm_rng_next(rtm_rng_t *r);
/* Uniform in [lo, hi). */
double rtm_rng_uniform(rtm_rng_t *r, double lo, double hi);
/* Uniform integer in [0, n); n > 0. */
uint64_t rtm_rng_below(rtm_rng_t *r, uint64_t n);

#endif
