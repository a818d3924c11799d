/* rng.c — xoshiro256** seeded by splitmix64 (see rng.h). */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rtm_rng_seed(rtm_rng_t *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

uint64_t rtm_rng_next(rtm_rng_t *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rtm_rng_uniform(rtm_rng_t *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rtm_rng_next(r) >> 11) * 0x1.0p-53);
}

uint64_t rtm_rng_below(rtm_rng_t *r, uint64_t n)
{
    /* Lemire's multiply-shift with rejection: unbiased. */
    uint64_t x = rtm_rng_next(r);
    __uint128_t m = (__uint128_t)x * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        const uint64_t t = (0 - n) % n; /* 2^64 mod n */
        while (l < t) {
            x = rtm_rng_next(r);
            m = (__uint128_t)x * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}
