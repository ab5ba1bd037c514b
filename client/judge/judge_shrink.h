/*
 * judge_shrink.h - one input of `cairn judge`, and delta debugging from
 * a failing one to a 1-minimal failure (judge_shrink.c).
 */
#ifndef CAIRN_CLIENT_JUDGE_SHRINK_H
#define CAIRN_CLIENT_JUDGE_SHRINK_H

#include <stddef.h>
#include <stdint.h>

/* k arrays of n values each, array a at v[a * n]; a game of one integer
 * (stone-game-iv) is k = 1, n = 1 with scalar set: it can only move. */
struct cairn_judge_input {
    int64_t *v;
    size_t n, k;
    int scalar;
};

int cairn_judge_input_copy(struct cairn_judge_input *dst, const struct cairn_judge_input *src);
void cairn_judge_input_free(struct cairn_judge_input *in);

/* Grades tries[0..n): verdict[i] 1 when the candidate answers it wrong,
 * 0 right, -1 illegal (the record path refuses it).  0, or a negative
 * errno that stops the shrinking (the candidate failed as a program:
 * -ECANCELED, its run kept by the caller). */
typedef int (*cairn_judge_try_fn)(void *ctx, const struct cairn_judge_input *tries, size_t n,
                                  int *verdict);

/*
 * NAME     cairn_judge_shrink - delta debugging to a 1-minimal failure
 * ARGUMENTS x: a failing input, replaced by the smaller one found
 * RETURNS  0 when x is 1-minimal: removing any one value, or moving any
 *          one value one step toward 0, gives an input the candidate
 *          answers right, or an illegal one; fn's error otherwise (x then
 *          the smallest failure found so far); *runs counts fn's calls
 */
int cairn_judge_shrink(struct cairn_judge_input *x, cairn_judge_try_fn fn, void *ctx, size_t *runs);

#endif /* CAIRN_CLIENT_JUDGE_SHRINK_H */
