/*
 * brute.h - reference solvers for the three stone games, for the tests.
 *
 * Deliberately simple and obviously correct, never fast:
 *   - *_minimax: plain exhaustive game-tree search, one recursive call per
 *     legal move, no memo.  Exponential: small n only (about 14 or less).
 *   - *_dp: the textbook dynamic programmes (full tables, no pruning), for
 *     larger n.
 *
 * Every function returns D, the optimal score difference (the total of the
 * player to move minus the other player's) for the position it is given,
 * with both players playing optimally.  For a whole game that is
 * D = alice - bob, so alice = (sum + D) / 2 and bob = (sum - D) / 2.
 * All arithmetic is 64-bit; callers keep |sum| well inside int64_t.
 */
#ifndef CAIRN_TESTS_BRUTE_H
#define CAIRN_TESTS_BRUTE_H

#include <stddef.h>
#include <stdint.h>

/* stone-game (877): the row a[0..n), a move takes a[0] or a[n-1].
 * n == 0 gives 0. */
int64_t brute_sg1_minimax(const int64_t *a, size_t n);
/* The full 2-D interval table dp[i][j] = max(a[i] - dp[i+1][j],
 * a[j] - dp[i][j-1]).  Returns INT64_MIN if out of memory. */
int64_t brute_sg1_dp(const int64_t *a, size_t n);

/* stone-game-ii (1140): the remaining piles a[0..n) with the current M
 * (m >= 1); a move takes the first X piles, 1 <= X <= min(2M, n), and the
 * next player's M is max(M, X).  A whole game starts with m = 1. */
int64_t brute_sg2_minimax(const int64_t *a, size_t n, int64_t m);
/* The memoised (i, M) table, every X tried (no "take everything" pruning,
 * which is wrong with negative piles).  Returns INT64_MIN if out of memory. */
int64_t brute_sg2_dp(const int64_t *a, size_t n, int64_t m);

/* stone-game-iii (1406): the row a[0..n), a move takes 1, 2 or 3 stones
 * from the front. */
int64_t brute_sg3_minimax(const int64_t *a, size_t n);
/* The full dp[] array over suffixes.  When dp_out is not NULL it receives
 * dp[0..n] (n + 1 entries): dp_out[i] is the value of the suffix a[i..n).
 * Returns INT64_MIN if out of memory. */
int64_t brute_sg3_dp(const int64_t *a, size_t n, int64_t *dp_out);

/* The plain sum a[0..n). */
int64_t brute_sum(const int64_t *a, size_t n);

#endif /* CAIRN_TESTS_BRUTE_H */
