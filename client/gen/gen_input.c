/*
 * gen_input.c - the input cairn gen builds a record in: room for its
 * values, a size drawn from the space (of a parity, in a trap's range),
 * and stone-game's odd sum under official limits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen_input.h"

int cairn_gen_input_size(struct cairn_gen_input *in, size_t n)
{
    size_t i;

    if (n > in->cap) {
        for (i = 0; i < CAIRN_GEN_MAX_ARRAYS; i++) {
            int64_t *p = realloc(in->v[i], n * sizeof(*p));

            if (p == NULL)
                return -ENOMEM;
            in->v[i] = p;
        }
        in->cap = n;
    }
    in->n = n;
    return 0;
}

void cairn_gen_input_free(struct cairn_gen_input *in)
{
    size_t i;

    for (i = 0; i < CAIRN_GEN_MAX_ARRAYS; i++)
        free(in->v[i]);
    free(in->memo);
    memset(in, 0, sizeof(*in));
}

int64_t cairn_gen_pick_size(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t lo,
                            int64_t hi, int parity)
{
    int64_t k_lo, k_hi;

    if (lo < sp->size_lo)
        lo = sp->size_lo;
    if (hi > sp->size_hi)
        hi = sp->size_hi;
    if (lo > hi) {
        lo = sp->size_lo;
        hi = sp->size_hi;
    }
    if (sp->even)
        parity = 0;
    if (parity < 0)
        return cairn_gen_range(r, lo, hi);
    /* The numbers of that parity in [lo, hi] are 2k + parity for k in
     * [k_lo, k_hi] (sizes are never negative). */
    k_lo = (lo - parity + 1) / 2;
    k_hi = (hi - parity) / 2;
    if (hi < parity || k_lo > k_hi)
        return sp->even && (lo != sp->size_lo || hi != sp->size_hi)
                   ? cairn_gen_pick_size(r, sp, sp->size_lo, sp->size_hi, 0)
                   : cairn_gen_range(r, lo, hi);
    return 2 * cairn_gen_range(r, k_lo, k_hi) + parity;
}

void cairn_gen_odd_sum(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                       struct cairn_gen_input *in)
{
    uint64_t sum = 0;
    size_t i;

    for (i = 0; i < in->n; i++)
        sum += (uint64_t)in->v[0][i];
    if (sum % 2 != 0 || in->n == 0)
        return;
    i = (size_t)cairn_gen_range(r, 0, (int64_t)in->n - 1);
    in->v[0][i] += in->v[0][i] < sp->vhi ? 1 : -1;
}
