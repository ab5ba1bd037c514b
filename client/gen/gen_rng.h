/*
 * gen_rng.h - cairn gen's random numbers (gen_rng.c): one record's
 * stream, seeded from the five values that name it, and draws from it.
 */
#ifndef CAIRN_CLIENT_GEN_RNG_H
#define CAIRN_CLIENT_GEN_RNG_H

#include <stddef.h>
#include <stdint.h>

/* The state of one record's random numbers. */
struct cairn_gen_rng {
    uint64_t s[4];
};

/* The stream of one record: the same five values, the same numbers. */
void cairn_gen_rng_seed(struct cairn_gen_rng *r, uint64_t seed, const char *variant, uint64_t mode,
                        uint64_t index);
uint64_t cairn_gen_next(struct cairn_gen_rng *r);
/* Uniform in [lo, hi] (lo <= hi), without modulo bias. */
int64_t cairn_gen_range(struct cairn_gen_rng *r, int64_t lo, int64_t hi);
/* 1 with probability num/den. */
int cairn_gen_chance(struct cairn_gen_rng *r, uint64_t num, uint64_t den);
/* A uniformly random order of v[0..n). */
void cairn_gen_shuffle(struct cairn_gen_rng *r, int64_t *v, size_t n);

#endif /* CAIRN_CLIENT_GEN_RNG_H */
