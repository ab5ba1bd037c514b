/*
 * brute_family_a.h - reference solvers for stone-game-iv, -v, -vi and -vii,
 * for the tests.  Written from the rules in docs/games.md, not from the
 * plugins.
 *
 * Deliberately simple and obviously correct, never fast:
 *   - *_minimax: plain exhaustive game-tree search, one recursive call per
 *     legal move, no memo.  Exponential: small inputs only.
 *   - *_dp: the textbook dynamic programme (full tables, no pruning, no
 *     monotone pointer), for larger inputs.
 * Functions that allocate return INT64_MIN (or -1) when out of memory.
 */
#ifndef CAIRN_TESTS_BRUTE_FAMILY_A_H
#define CAIRN_TESTS_BRUTE_FAMILY_A_H

#include <stddef.h>
#include <stdint.h>

/* ---- stone-game-iv (1510): a pile of n; a move removes k^2 <= pile ---- */

/* 1 if the player to move on a pile of n wins, 0 if not (an empty pile
 * loses).  Exhaustive: n up to about 40. */
int brute_sg4_minimax(int64_t n);
/* win[0..n] (n + 1 bytes): win[m] = 1 iff some square k^2 <= m leaves a
 * losing pile.  Returns 0, or -1 if out of memory. */
int brute_sg4_dp(int64_t n, uint8_t *win);

/* ---- stone-game-v (1563): Alice cuts, Bob drops the larger part ---- */

/* Alice's best total on the row a[0..n) (n >= 1): every cut, the part with
 * the smaller sum kept, and on equal sums both parts tried (Alice chooses).
 * Exhaustive: n up to about 12. */
int64_t brute_sg5_minimax(const int64_t *a, size_t n);
/* The O(n^3) interval DP.  When table is not NULL it receives dp(i, j) at
 * table[i * n + j] for i <= j (n * n entries). */
int64_t brute_sg5_dp(const int64_t *a, size_t n, int64_t *table);

/* ---- stone-game-vi (1686): take any stone, each player its own value ---- */

/* The outcome under optimal play for the win/draw/lose objective (1 Alice
 * has more points, 0 tie, -1 Bob has more), searched over every order of
 * play from the position where the stones in `taken` (a bit mask) are gone,
 * with `diff` = Alice's points - Bob's points so far and `alice` to move if
 * nonzero.  Alice maximises the outcome, Bob minimises it.  n <= 10. */
int brute_sg6_outcome(const int64_t *a, const int64_t *b, size_t n, uint32_t taken, int alice,
                      int64_t diff);
/* The same search for the margin itself (Alice - Bob, Alice maximising,
 * Bob minimising), the value the greedy is claimed to reach. */
int64_t brute_sg6_margin(const int64_t *a, const int64_t *b, size_t n, uint32_t taken, int alice);
/* The textbook greedy: sort by a + b descending, equal sums in index order
 * (qsort on (key, index)), Alice takes ranks 0, 2, 4, ...  Fills order[0..n) with the stone indices
 * in that order when order is not NULL, and *alice / *bob with the points.
 * Returns the answer 1, 0 or -1 (-2 if out of memory). */
int brute_sg6_greedy(const int64_t *a, const int64_t *b, size_t n, size_t *order, int64_t *alice,
                     int64_t *bob);

/* ---- stone-game-vii (1690): remove an end stone, score the rest ---- */

/* The optimal (mover - other) on the row a[0..n).  Exhaustive: n <= 18. */
int64_t brute_sg7_minimax(const int64_t *a, size_t n);
/* The O(n^2) 2-D table; when table is not NULL it receives the value of
 * a[i..j] at table[i * n + j] (0 on the diagonal). */
int64_t brute_sg7_dp(const int64_t *a, size_t n, int64_t *table);

#endif /* CAIRN_TESTS_BRUTE_FAMILY_A_H */
