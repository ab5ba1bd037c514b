/*
 * rng.h - the tests' fixed random sequence (splitmix64: the same numbers
 * on every libc, unlike rand()) and a way to show an array in a failure
 * message.  Single-threaded, like the Check tests that use it.
 */
#ifndef CAIRN_TEST_RNG_H
#define CAIRN_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

void th_rng_seed(uint64_t seed);
uint64_t th_rng_next(void);
/* Uniform (up to a negligible bias) in [lo, hi]. */
int64_t th_rng_range(int64_t lo, int64_t hi);

/* "[a0,a1,...]", cut after about 1,000 characters; static storage with two
 * slots, so one message can show two arrays. */
const char *th_row_str(const int64_t *a, size_t n);

#endif /* CAIRN_TEST_RNG_H */
