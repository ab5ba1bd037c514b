/*
 * rng.h - the tests' fixed random sequence (splitmix64: the same numbers
 * on every libc, unlike rand()) and a way to show an array in a failure
 * message.  Single-threaded, like the Check tests that use it.
 */
#ifndef CAIRN_TEST_RNG_H
#define CAIRN_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64: the number after *state in its sequence, from any seed.
 * Inline: the one copy for every test program, whether it links rng.c
 * (its one shared sequence, below) or keeps a state of its own. */
static inline uint64_t th_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform (up to a negligible bias) in [lo, hi], from *state. */
static inline int64_t th_splitmix64_range(uint64_t *state, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;

    if (span == 0)
        return (int64_t)th_splitmix64(state); /* the whole int64 range */
    return (int64_t)((uint64_t)lo + th_splitmix64(state) % span);
}

/* One sequence shared by the program (rng.c). */
void th_rng_seed(uint64_t seed);
uint64_t th_rng_next(void);
/* Uniform (up to a negligible bias) in [lo, hi]. */
int64_t th_rng_range(int64_t lo, int64_t hi);

/* "[a0,a1,...]", cut after about 1,000 characters; static storage with two
 * slots, so one message can show two arrays. */
const char *th_row_str(const int64_t *a, size_t n);

#endif /* CAIRN_TEST_RNG_H */
