/*
 * peers.h - the fastest published solutions of the newer stone games,
 * ported to C, for bench-kernels to time next to the plugins.
 *
 * Each table ends with an entry whose variant is NULL.  bench-kernels makes
 * one position at the official maximum with make(), solves it with the
 * plugin (extended limits, no moves) and with solve(), checks both give
 * the same result->answer, and prints medians and the ratio.
 */
#ifndef CAIRN_BENCH_PEERS_H
#define CAIRN_BENCH_PEERS_H

#include <stddef.h>
#include <stdint.h>

#include "cairn/plugin.h"

/* A deterministic random source (splitmix64), handed to make(). */
typedef uint64_t (*bench_rng_fn)(void);

struct bench_peer {
    const char *variant; /* the plugin's name */
    const char *source;  /* whose solution: repository, file, commit */
    /* Fills inputs[0..n_inputs) (the plugin's declared order) with one
     * position at the official maximum; the values live in buf, which has
     * room for buf_cap integers.  Returns n_inputs, or 0 when buf is too
     * small. */
    size_t (*make)(bench_rng_fn rng, struct cairn_array *inputs, int64_t *buf, size_t buf_cap);
    /* The peer's answer, encoded as the plugin's result->answer. */
    int64_t (*solve)(const struct cairn_array *inputs, size_t n_inputs);
};

/* bench/peers_a.c: stone-game-iv, -v, -vi, -vii */
extern const struct bench_peer bench_peers_a[];
/* bench/peers_b.c: stone-game-viii, -ix, predict-the-winner,
 * stone-removal-game */
extern const struct bench_peer bench_peers_b[];

#endif /* CAIRN_BENCH_PEERS_H */
