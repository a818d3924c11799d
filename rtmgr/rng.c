/* rng.c — xoshiro256** seeded by splitmix64 (see rng.h). */
#include "rng.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void rtm_rng_seed(rtm_rng_t *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
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

/* ---- parallel fills ---------------------------------------------------------------- */

#define FILL_THREADS_MAX 32

typedef struct {
    size_t n, chunks;
    uint64_t seed;
    rtm_rng_fill_fn fn;
    void *ctx;
    size_t next; /* atomic: the next chunk to fill */
} fill_t;

static void *fill_worker(void *arg)
{
    fill_t *f = arg;
    for (;;) {
        const size_t c = __atomic_fetch_add(&f->next, 1, __ATOMIC_RELAXED);
        if (c >= f->chunks)
            return NULL;
        rtm_rng_t r;
        rtm_rng_seed(&r, f->seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(c + 1)));
        const size_t lo = c * RTM_RNG_CHUNK;
        f->fn(f->ctx, lo, lo + RTM_RNG_CHUNK < f->n ? lo + RTM_RNG_CHUNK : f->n, &r);
    }
}

void rtm_rng_fill(size_t n, uint64_t seed, rtm_rng_fill_fn fn, void *ctx)
{
    fill_t f = {n, (n + RTM_RNG_CHUNK - 1) / RTM_RNG_CHUNK, seed, fn, ctx, 0};
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = cores > 1 ? (size_t)cores - 1 : 0; /* this thread is one more */
    if (nt > FILL_THREADS_MAX - 1)
        nt = FILL_THREADS_MAX - 1;
    if (nt + 1 > f.chunks)
        nt = f.chunks > 0 ? f.chunks - 1 : 0;
    pthread_t th[FILL_THREADS_MAX];
    size_t started = 0;
    while (started < nt && pthread_create(&th[started], NULL, fill_worker, &f) == 0)
        started++;
    fill_worker(&f); /* this thread too (all of it when none started) */
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

static void zero_chunk(void *ctx, size_t lo, size_t hi, rtm_rng_t *r)
{
    (void)r;
    memset((unsigned char *)ctx + lo, 0, hi - lo);
}

void rtm_rng_zero(void *p, size_t bytes)
{
    if (bytes)
        rtm_rng_fill(bytes, 0, zero_chunk, p);
}
