/*
 * gen_games.h - cairn gen's table of games (gen_games.c): for each game
 * what a plugin's declaration cannot say (default sizes, parity), its
 * plain generator and its --traps generator.
 */
#ifndef CAIRN_CLIENT_GEN_GAMES_H
#define CAIRN_CLIENT_GEN_GAMES_H

#include <stdint.h>

#include "gen_input.h"

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

#endif /* CAIRN_CLIENT_GEN_GAMES_H */
