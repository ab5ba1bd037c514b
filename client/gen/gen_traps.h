/*
 * gen_traps.h - every game's --traps generator (gen_traps.c, and
 * gen_traps_count.c for the games decided by counts): index picks the
 * trap, so a corpus cycles through them all.
 */
#ifndef CAIRN_CLIENT_GEN_TRAPS_H
#define CAIRN_CLIENT_GEN_TRAPS_H

#include <stdint.h>

#include "gen_input.h"

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

#endif /* CAIRN_CLIENT_GEN_TRAPS_H */
