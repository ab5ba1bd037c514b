/*
 * buckets.h - the fixed buckets of the two histograms a summary carries
 * per variant (docs/contract.md, "Summaries"): solve times, as the
 * metrics' cairn_solve_seconds has them, and input sizes.  The daemon
 * counts into them and the client's report reads them back, so both
 * take the bounds from here.
 */
#ifndef CAIRN_BUCKETS_H
#define CAIRN_BUCKETS_H

#include <stddef.h>
#include <stdint.h>

/* Solve-time buckets (seconds, upper bounds); the last bucket is +Inf. */
#define CAIRN_SOLVE_BUCKETS 12
extern const double cairn_solve_bucket_le[CAIRN_SOLVE_BUCKETS - 1];

/* The bucket of a solve that took ns nanoseconds. */
size_t cairn_solve_bucket(uint64_t ns);

/* Input-size buckets: sizes 1, 2, 3-4, 5-8, ... up to 2^(N-2), then more.
 * A record's size is the length of its longest array input, or for a game
 * whose only input is a number (stone-removal-game's n), that number. */
#define CAIRN_SIZE_BUCKETS 19

/* The bucket of size (0 counts as 1). */
size_t cairn_size_bucket(uint64_t size);

/* The sizes bucket b holds, min to max inclusive; max is UINT64_MAX for
 * the last. */
void cairn_size_bucket_range(size_t b, uint64_t *min, uint64_t *max);

#endif /* CAIRN_BUCKETS_H */
