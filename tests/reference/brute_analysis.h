/*
 * brute_analysis.h - per-move reference values for analysis and play
 * grading (ABI 1.2), for all eleven games.
 *
 * Each game is written down as its rules: a state, the legal moves of a
 * state (encoded as the plugin's moves[] encodes them), the state after a
 * move, and the end of the game.  Values are found by exhaustive minimax
 * over that tree, in the units plugins/README.md documents (the final
 * margin Alice - Bob, Alice's final total, or the winner).
 */
#ifndef BRUTE_ANALYSIS_H
#define BRUTE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

enum brute_game {
    BG_SG1,
    BG_SG2,
    BG_SG3,
    BG_SG4,
    BG_SG5,
    BG_SG6,
    BG_SG7,
    BG_SG8,
    BG_SG9,
    BG_PTW,
    BG_SRG,
    BG_COUNT
};

enum brute_value {
    BV_MARGIN = 1,
    BV_ALICE = 2,
    BV_WINNER = 3
}; /* as enum cairn_value_kind */

#define BRUTE_MAX_N     64
#define BRUTE_MAX_MOVES 128

/* A position: the game, its inputs, and what the moves so far did. */
struct brute_pos {
    enum brute_game g;
    const int64_t *v, *w; /* w: bobValues (stone-game-vi) */
    size_t n;             /* stones, or the pile for -iv and stone-removal-game */
    size_t lo, hi;        /* the row [lo, hi) (both-ends games, -v), the first left (-ii, -iii) */
    int64_t m;            /* M (-ii), the pile (-iv, removal), state j (-viii) */
    int64_t need;         /* stone-removal-game: the next removal */
    uint64_t taken;       /* -vi, -ix: stones removed */
    int sum3;             /* -ix: removed sum mod 3 */
    int over;             /* -ix: someone lost */
    int64_t winner;       /* -ix, once over */
    int64_t alice, bob;   /* scores so far */
    size_t ply;
};

enum brute_value brute_value_kind(enum brute_game g);
const char *brute_game_name(enum brute_game g);

/* The start position; v/w/n as the plugin's inputs (n: the scalar for
 * -iv and stone-removal-game, with v unused). */
void brute_start(struct brute_pos *p, enum brute_game g, const int64_t *v, const int64_t *w,
                 size_t n);

/* Who moves: 0 Alice, 1 Bob. */
int brute_mover(const struct brute_pos *p);

/* The legal moves, in a fixed order; 0 when the game is over. */
size_t brute_moves(const struct brute_pos *p, int32_t *out);

/* Plays m; 0, or -1 when m is not legal (p unchanged). */
int brute_play(struct brute_pos *p, int32_t m);

/* The value under optimal play from p on (exhaustive). */
int64_t brute_value(const struct brute_pos *p);

/* 1 when value a is better than b for player (0 Alice, 1 Bob). */
int brute_better(enum brute_value k, int player, int64_t a, int64_t b);

#endif /* BRUTE_ANALYSIS_H */
