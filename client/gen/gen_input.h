/*
 * gen_input.h - what every part of `cairn gen` builds a record with
 * (gen_input.c): the space of sizes and values, the input being built, a
 * size drawn from the space, and stone-game's odd sum.  Every generator
 * (gen.c, gen_games.c, gen_traps*.c) takes them from here, and this file
 * takes nothing from them.
 */
#ifndef CAIRN_CLIENT_GEN_INPUT_H
#define CAIRN_CLIENT_GEN_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "gen_rng.h"

/* What a record may hold: sizes and values inside the limits asked for. */
struct cairn_gen_space {
    int64_t size_lo, size_hi; /* --size, checked against the limits */
    int64_t vlo, vhi;         /* each value of an array (scalar games: unused) */
    int even;                 /* lengths must be even (stone-game, official) */
    int extended;             /* --limits extended */
};

/* The input being built: up to two arrays of n values (stone-game-vi has
 * two of the same length), or a scalar in v[0][0] (n == 1). */
#define CAIRN_GEN_MAX_ARRAYS 2
struct cairn_gen_input {
    int64_t *v[CAIRN_GEN_MAX_ARRAYS];
    size_t n;
    size_t cap;
    const char *profile; /* --traps: which trap this record is, for its id */
    void *memo;          /* a trap's tables, made once per corpus (free()d) */
};

/* Makes room for n values in every array; 0 or -ENOMEM. */
int cairn_gen_input_size(struct cairn_gen_input *in, size_t n);
void cairn_gen_input_free(struct cairn_gen_input *in);

/*
 * NAME     cairn_gen_pick_size - a size for one record
 * ARGUMENTS lo, hi: the sizes a trap wants, narrowed to the space's (the
 *          space's whole range when they do not meet it); parity: 0 even,
 *          1 odd, -1 either, overruled by sp->even
 * RETURNS  a size in the space; of the parity asked for when the range
 *          holds one
 */
int64_t cairn_gen_pick_size(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t lo,
                            int64_t hi, int parity);

/* Any size of the space. */
static inline size_t cairn_gen_size(struct cairn_gen_rng *r, const struct cairn_gen_space *sp)
{
    return (size_t)cairn_gen_pick_size(r, sp, sp->size_lo, sp->size_hi, -1);
}

/* stone-game under official limits: the sum made odd by nudging one pile
 * by 1 (both generators use it; the length is even already). */
void cairn_gen_odd_sum(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                       struct cairn_gen_input *in);

#endif /* CAIRN_CLIENT_GEN_INPUT_H */
