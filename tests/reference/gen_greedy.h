/*
 * gen_greedy.h - one plausible greedy solution per game, for measuring
 * how well cairn gen --traps catches wrong solvers (tests/reference/gen_kill.c).
 * Each plays the game out with both players following the same short-
 * sighted rule and reports the answer that play gives, in the answer's
 * own terms (a bool as 0/1, stone-game-iii's winner as 0 Alice, 1 Bob,
 * 2 Tie, as cairn/plugin.h numbers them).  They are wrong on purpose:
 * never use them as solvers.
 */
#ifndef CAIRN_TESTS_GEN_GREEDY_H
#define CAIRN_TESTS_GEN_GREEDY_H

#include <stddef.h>
#include <stdint.h>

/* stone-game, predict-the-winner: take the larger end (the left on a
 * tie); Alice's total minus Bob's. */
int64_t greedy_larger_end(const int64_t *v, size_t n);
/* stone-game-ii: take as many piles as allowed (2M): Alice's total. */
int64_t greedy_sg2(const int64_t *v, size_t n);
/* stone-game-iii: take the 1, 2 or 3 stones worth most now (the fewest
 * on a tie); Alice's total minus Bob's. */
int64_t greedy_sg3(const int64_t *v, size_t n);
/* stone-game-iv: take the largest square; 1 if Alice takes the last. */
int greedy_sg4(int64_t n);
/* stone-game-v: cut where the kept part's sum is largest (the leftmost
 * such cut; on equal sums keep the left part); Alice's total. */
int64_t greedy_sg5(const int64_t *v, size_t n);
/* stone-game-vi: take the stone worth most to oneself (the lowest index
 * on a tie); the sign of Alice's points minus Bob's. */
int greedy_sg6(const int64_t *a, const int64_t *b, size_t n);
/* stone-game-vii: remove the end that scores more now, i.e. the smaller
 * stone (the left on a tie); Alice's score minus Bob's. */
int64_t greedy_sg7(const int64_t *v, size_t n);
/* stone-game-viii: merge the x > 1 leftmost stones that score most now
 * (the smallest x on a tie); Alice's score minus Bob's. */
int64_t greedy_sg8(const int64_t *v, size_t n);
/* stone-game-ix: remove the first stone (by index) that does not make
 * the sum divisible by 3; 1 if Alice wins that play. */
int greedy_sg9(const int64_t *v, size_t n);
/* stone-removal-game, looking one move ahead: Alice wins iff she can
 * make her first move (n >= 10). */
int greedy_srg(int64_t n);

#endif /* CAIRN_TESTS_GEN_GREEDY_H */
