/*
 * gen_games.c - cairn gen's table of games and their plain inputs: sizes
 * and values uniform within the limits asked for.  The limits themselves
 * come from each plugin's declaration (gen.c); this file knows only what
 * a declaration cannot say (default sizes, stone-game's parity rules,
 * stone-game-viii's overflow rule).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen_games.h"
#include "gen_traps.h"

/* Every array of n values, uniform in [vlo, vhi]. */
static int plain_arrays(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                        struct cairn_gen_input *in, size_t n_arrays, int64_t vlo, int64_t vhi)
{
    size_t n = cairn_gen_size(r, sp), a, i;
    int rc = cairn_gen_input_size(in, n);

    for (a = 0; rc == 0 && a < n_arrays; a++)
        for (i = 0; i < n; i++)
            in->v[a][i] = cairn_gen_range(r, vlo, vhi);
    return rc;
}

static int plain_one(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                     struct cairn_gen_input *in)
{
    return plain_arrays(r, sp, in, 1, sp->vlo, sp->vhi);
}

static int plain_two(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                     struct cairn_gen_input *in)
{
    return plain_arrays(r, sp, in, 2, sp->vlo, sp->vhi);
}

/* n itself is the size. */
static int plain_scalar(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                        struct cairn_gen_input *in)
{
    int rc = cairn_gen_input_size(in, 1);

    if (rc == 0)
        in->v[0][0] = cairn_gen_range(r, sp->size_lo, sp->size_hi);
    return rc;
}

static int plain_stone_game(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                            struct cairn_gen_input *in)
{
    int rc = plain_one(r, sp, in);

    if (rc == 0 && !sp->extended)
        cairn_gen_odd_sum(r, sp, in);
    return rc;
}

/* The plugin refuses (too_large) an extended row whose (n + 1) * sum|v|
 * passes 9e18, a rule on length and values together: values are drawn
 * small enough for the row's length. */
static int plain_viii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                      struct cairn_gen_input *in)
{
    size_t n = cairn_gen_size(r, sp), i;
    int64_t cap = sp->vhi;
    int rc = cairn_gen_input_size(in, n);

    if (rc != 0)
        return rc;
    if (sp->extended) {
        int64_t most = INT64_C(9000000000000000000) / (int64_t)(n + 1) / (int64_t)n;

        if (most < cap)
            cap = most;
    }
    for (i = 0; i < n; i++)
        in->v[0][i] = cairn_gen_range(r, sp->vlo < -cap ? -cap : sp->vlo, cap);
    return 0;
}

/* Default sizes: rows of up to 100, quick to solve and to read; the
 * one-integer games their whole official range (stone-game-iv's extended
 * one is cut to 10^6, a sieve of milliseconds). */
static const struct cairn_gen_game games[] = {
    { "stone-game", 100, 100, 1, plain_stone_game, cairn_gen_traps_stone_game },
    { "stone-game-ii", 100, 100, 0, plain_one, cairn_gen_traps_ii },
    { "stone-game-iii", 100, 100, 0, plain_one, cairn_gen_traps_iii },
    { "stone-game-iv", INT64_MAX, 1000000, 0, plain_scalar, cairn_gen_traps_iv },
    { "stone-game-v", 100, 100, 0, plain_one, cairn_gen_traps_v },
    { "stone-game-vi", 100, 100, 0, plain_two, cairn_gen_traps_vi },
    { "stone-game-vii", 100, 100, 0, plain_one, cairn_gen_traps_vii },
    { "stone-game-viii", 100, 100, 0, plain_viii, cairn_gen_traps_viii },
    { "stone-game-ix", 100, 100, 0, plain_one, cairn_gen_traps_ix },
    { "predict-the-winner", 100, 100, 0, plain_one, cairn_gen_traps_ptw },
    { "stone-removal-game", INT64_MAX, INT64_MAX, 0, plain_scalar, cairn_gen_traps_srg },
};

const struct cairn_gen_game *cairn_gen_game(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(games) / sizeof(games[0]); i++)
        if (strcmp(games[i].name, name) == 0)
            return &games[i];
    return NULL;
}
