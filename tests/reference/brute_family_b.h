/*
 * brute_family_b.h - reference solvers for stone-game-viii (1872),
 * stone-game-ix (2029), predict-the-winner (486) and stone-removal-game
 * (3360), for tests/unit/test_family_b.c.
 *
 * Written from the rules in docs/games.md, not from the plugins, and kept
 * obviously correct rather than fast:
 *   - *_minimax: plain exhaustive game-tree search over the actual row,
 *     one recursive call per legal move, no memo: small inputs only;
 *   - *_dp: a textbook dynamic programme, for larger inputs.
 * Score games return D, the optimal difference "player to move minus the
 * other" of the position given.  Functions that allocate return INT64_MIN
 * (or -1) when out of memory.
 */
#ifndef CAIRN_TESTS_BRUTE_FAMILY_B_H
#define CAIRN_TESTS_BRUTE_FAMILY_B_H

#include <stddef.h>
#include <stdint.h>

/* ---- stone-game-viii (1872) ---------------------------------------- */

/* The row a[0..n) as it stands; a move picks x, 2 <= x <= n, scores
 * a[0] + ... + a[x-1] and replaces those x stones by one stone of that
 * sum.  No move is possible with n <= 1 (value 0). */
int64_t brute_sg8_minimax(const int64_t *a, size_t n);

/* The textbook O(n^2) DP over the states k = "the leftmost stone is the
 * prefix sum P[k]": f(n-1) = 0, f(k) = max_{j > k} (P[j] - f(j)).  When f
 * is not NULL it receives f(0..n-1).  Returns f(0) (0 when n <= 1), or
 * INT64_MIN when out of memory. */
int64_t brute_sg8_dp(const int64_t *a, size_t n, int64_t *f);

/* ---- stone-game-ix (2029) ------------------------------------------ */

/* The stones a[0..n) still on the table, `removed` the sum of those
 * already removed, alice_to_move whose turn it is.  Returns 1 iff Alice
 * wins with both playing optimally.  A removal that makes the removed sum
 * divisible by 3 loses for the remover; otherwise, if no stone is left,
 * Bob wins.  empty_first = 1 models the misreading that checks "no stone
 * left" first.  |removed| + sum |a| must fit in int64. */
int brute_ix_minimax(const int64_t *a, size_t n, int64_t removed, int alice_to_move,
                     int empty_first);

/* The same game on counts: c0, c1, c2 stones of each residue mod 3 left,
 * s = the removed sum mod 3, alice_to_move.  Memoised over (c0, c1, c2, s,
 * mover).  Returns 1 iff Alice wins, or -1 when out of memory. */
int brute_ix_dp(size_t c0, size_t c1, size_t c2, int s, int alice_to_move);

/* The memo of brute_ix_dp kept across calls, for positions with at most
 * c0, c1, c2 stones of each residue (the start of one game). */
struct brute_ix_table;
struct brute_ix_table *brute_ix_table_new(size_t c0, size_t c1, size_t c2);
/* As brute_ix_dp; the counts must not exceed the table's. */
int brute_ix_table_get(struct brute_ix_table *t, size_t c0, size_t c1, size_t c2, int s,
                       int alice_to_move);
void brute_ix_table_free(struct brute_ix_table *t);

/* v mod 3 in 0..2 for any int64. */
int brute_ix_residue(int64_t v);

/* ---- predict-the-winner (486) -------------------------------------- */

/* The row a[0..n); a move takes a[0] or a[n-1]. */
int64_t brute_ptw_minimax(const int64_t *a, size_t n);
/* The full 2-D interval table.  INT64_MIN when out of memory. */
int64_t brute_ptw_dp(const int64_t *a, size_t n);

/* ---- stone-removal-game (3360) ------------------------------------- */

/* Plays the game on a pile of n stones: removals of 10, 9, ... while the
 * pile allows.  Stores the removals made in moves[0..) (room for 11) and
 * their count in *n_moves.  Returns 1 if Alice wins, 0 if Bob wins, -1 if
 * the rules do not decide (a move would have to remove 0 stones).
 * own_previous = 1 models the misreading "one fewer than one's own
 * previous removal" (each player starts at 10). */
int brute_srg_play(int64_t n, int own_previous, int32_t *moves, size_t *n_moves);

#endif /* CAIRN_TESTS_BRUTE_FAMILY_B_H */
