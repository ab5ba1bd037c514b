/*
 * gen.h - `cairn gen`: a reproducible evaluation corpus on stdout.  The
 * command (gen.c, declared here), its seeded random numbers (gen_rng.h),
 * the input being built (gen_input.h), each game's plain inputs
 * (gen_games.h) and inputs biased to its traps (gen_traps.h), each with a
 * header of its own, and the expected answers, which the shipped plugins
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
#include "gen_games.h"
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

#endif /* CAIRN_CLIENT_GEN_H */
