/*
 * gen.h - `cairn gen`: a reproducible evaluation corpus on stdout.  The
 * command (gen.c), its seeded random numbers (gen_rng.c), the inputs of
 * each game, plain (gen_games.c) and biased to the game's traps
 * (gen_traps.c), and the expected answers, which the shipped plugins
 * compute through cairnd's own record path (client/solve/gen_solve.h).
 *
 * Byte stability: the corpus depends on the arguments and on the plugins'
 * answers only.  No libc random numbers, no floating point, no clock, no
 * locale: every draw is xoshiro256** seeded through splitmix64 from the
 * seed, the variant's name, the limits, --traps and the record's index,
 * so record i is the same bytes whatever --count is.
 */
#ifndef CAIRN_CLIENT_GEN_H
#define CAIRN_CLIENT_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"
#include "gen_input.h"
#include "gen_solve.h" /* the expected answers */

/* What the command line gave; the strings are checked by cairn_cmd_gen. */
struct cairn_gen_opts {
    const char *variant; /* a plugin name or alias */
    const char *count;   /* --count N */
    const char *seed;    /* --seed S */
    const char *size;    /* --size A..B or A, or NULL: the game's default */
    const char *limits;  /* --limits official|extended, or NULL: official */
    const char *plugins; /* --plugins DIR[:DIR], or NULL: plugin_dir */
    int traps;           /* --traps */
};

/*
 * NAME     cairn_cmd_gen - write the corpus to stdout
 * RETURNS  0; -EINVAL with a message naming the argument at fault (a
 *          usage error), or the plugins' failure to load; -EPROTO when a
 *          plugin refused a record the generator made (a bug, named)
 */
int cairn_cmd_gen(struct cairn_client *cl, const struct cairn_gen_opts *o);

/* ---- what `cairn judge` shares (gen.c) ----------------------------------- */

/* A whole number of digits only: 0 or -EINVAL. */
int cairn_gen_parse_u64(const char *s, uint64_t *out);

struct cairn_gen_game;
struct cairn_gen_space;
struct cairn_gen_solver;

/* The variant's plugin and its generator; cmd ("gen", "judge") opens
 * the messages, which name what is missing.  0 or -EINVAL. */
int cairn_gen_find_game(struct cairn_client *cl, const char *cmd, struct cairn_gen_solver *s,
                        const char *variant, const char *dir, const struct cairn_plugin **p,
                        const struct cairn_gen_game **g);
/* The sizes and values a record may have: the declared limits, narrowed
 * by size (--size A..B, or NULL: the game's default).  0 or -EINVAL. */
int cairn_gen_settle_space(struct cairn_client *cl, const char *cmd, const struct cairn_plugin *p,
                           const struct cairn_gen_game *g, const char *size, int extended,
                           struct cairn_gen_space *sp);

/* ---- random numbers (gen_rng.c) ----------------------------------------- */

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

/* ---- one record's input (the types: gen_input.h) ------------------------ */

/* Makes room for n values in every array; 0 or -ENOMEM. */
int cairn_gen_input_size(struct cairn_gen_input *in, size_t n);
void cairn_gen_input_free(struct cairn_gen_input *in);

/* Fills in: 0 or -ENOMEM. */
typedef int (*cairn_gen_fn)(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                            struct cairn_gen_input *in);

/* One game as the generator sees it (gen_games.c). */
struct cairn_gen_game {
    const char *name;      /* the plugin's name */
    int64_t default_max;   /* the default --size ends here (or at the limit) */
    int64_t default_max_x; /* ... with --limits extended */
    int even_official;     /* official limits want an even length (stone-game) */
    cairn_gen_fn plain;    /* sizes and values uniform in the space */
    /* --traps (gen_traps.c): index picks the trap, so a corpus cycles
     * through them all. */
    int (*traps)(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                 struct cairn_gen_input *in);
};

/* The game named (a plugin's name, not an alias), or NULL. */
const struct cairn_gen_game *cairn_gen_game(const char *name);

/* Every game's --traps generator (gen_traps.c). */
int cairn_gen_traps_stone_game(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                               uint64_t index, struct cairn_gen_input *in);
int cairn_gen_traps_ii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in);
int cairn_gen_traps_iii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in);
int cairn_gen_traps_iv(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in);
int cairn_gen_traps_v(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                      struct cairn_gen_input *in);
int cairn_gen_traps_vi(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in);
int cairn_gen_traps_vii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in);
int cairn_gen_traps_viii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                         struct cairn_gen_input *in);
int cairn_gen_traps_ix(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in);
int cairn_gen_traps_ptw(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in);
int cairn_gen_traps_srg(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in);

/* stone-game under official limits: the sum made odd by nudging one pile
 * by 1 (both generators use it; the length is even already). */
void cairn_gen_odd_sum(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                       struct cairn_gen_input *in);

#endif /* CAIRN_CLIENT_GEN_H */
