/*
 * gen_traps.c - cairn gen --traps for the games played on a row
 * (stone-game, -ii, -iii, -v, -vii, -viii, predict-the-winner): inputs
 * built around each game's traps (docs/games.md), where a uniformly drawn
 * row almost never goes: ties and equal values, tiny value ranges, even
 * and odd lengths, an end that looks better than it is, big values behind
 * small ones.  The others are in gen_traps_count.c.
 *
 * Each game's traps are a list of named profiles; record i takes profile
 * i mod the list's length, so every corpus of a few records has each of
 * them.  Extended limits add profiles the official ones forbid.  Every
 * value is clamped into the space, so --size and the limits always hold.
 */
#include "gen_traps.h"

/* v clamped into the space's values. */
static int64_t clampv(const struct cairn_gen_space *sp, int64_t v)
{
    return v < sp->vlo ? sp->vlo : v > sp->vhi ? sp->vhi : v;
}

/* Uniform in [lo, hi] narrowed to the space's values. */
static int64_t value(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t lo,
                     int64_t hi)
{
    lo = clampv(sp, lo);
    hi = clampv(sp, hi);
    return cairn_gen_range(r, lo, hi);
}

static void fill(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t *v, size_t n,
                 int64_t lo, int64_t hi)
{
    size_t i;

    for (i = 0; i < n; i++)
        v[i] = value(r, sp, lo, hi);
}

/* A row of a size in [lo, hi] (narrowed to the space) and parity. */
static int row(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
               struct cairn_gen_input *in, int64_t lo, int64_t hi, int parity)
{
    return cairn_gen_input_size(in, (size_t)cairn_gen_pick_size(r, sp, lo, hi, parity));
}

static void ascending(int64_t *v, size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++) /* insertion sort: rows of traps are short */
        for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static void reverse(int64_t *v, size_t n)
{
    size_t i;

    for (i = 0; i < n / 2; i++) {
        int64_t t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
}

/* Small values with a few big ones: the end that looks better (greedy's
 * pick) often hands the opponent the big value behind it. */
static void baits(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t *v, size_t n,
                  int64_t small, int64_t big)
{
    size_t i, k = 1 + (size_t)cairn_gen_range(r, 0, (int64_t)n / 4);

    fill(r, sp, v, n, 1, small);
    for (i = 0; i < k; i++)
        v[cairn_gen_range(r, 0, (int64_t)n - 1)] = value(r, sp, big / 2, big);
}

/* All equal to one value, a few nudged by one. */
static void near_equal(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t *v,
                       size_t n, int64_t hi, int nudge)
{
    int64_t x = value(r, sp, 1, hi);
    size_t i, k = nudge ? (size_t)cairn_gen_range(r, 0, 2) : 0;

    for (i = 0; i < n; i++)
        v[i] = x;
    for (i = 0; i < k; i++) {
        size_t at = (size_t)cairn_gen_range(r, 0, (int64_t)n - 1);
        v[at] = clampv(sp, v[at] + (cairn_gen_range(r, 0, 1) ? 1 : -1));
    }
}

/* ---- stone-game: the larger end, parity, all-equal, ties (extended) ---- */

/* Small piles, and a big one just inside the end that is larger: taking
 * that end hands the big pile to the opponent.  With two, the other big
 * one waits inside the other end, smaller.  Either way round. */
static void end_bait(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t *v,
                     size_t n, int two)
{
    fill(r, sp, v, n, 1, 3);
    if (n >= 3) {
        v[0] = clampv(sp, v[n - 1] + cairn_gen_range(r, 1, 2));
        v[1] = value(r, sp, 250, 500);
        if (two && n >= 5)
            v[n - 2] = value(r, sp, 100, v[1] - 1);
    }
    if (cairn_gen_range(r, 0, 1))
        reverse(v, n);
}

int cairn_gen_traps_stone_game(struct cairn_gen_rng *r, const struct cairn_gen_space *sp,
                               uint64_t index, struct cairn_gen_input *in)
{
    static const char *const names[] = { "bait",      "baits", "near-equal", "short",
                                         "two-baits", "tie",   "odd-length", "negative" };
    uint64_t n_names = sp->extended ? 8 : 5, p = index % n_names;
    int64_t *v;
    int rc;

    /* A tie needs an even length, and so does a bait: with an odd one
     * the mover also gets the last pile (both matter with extended
     * limits only; official ones want even lengths anyway). */
    rc = p == 3   ? row(r, sp, in, 2, 6, -1)
         : p == 6 ? row(r, sp, in, 1, sp->size_hi, 1)
                  : row(r, sp, in, sp->size_lo, sp->size_hi, p == 0 || p == 4 || p == 5 ? 0 : -1);
    if (rc != 0)
        return rc;
    v = in->v[0];
    in->profile = names[p];
    switch (p) {
    case 0: end_bait(r, sp, v, in->n, 0); break;
    case 1: baits(r, sp, v, in->n, 5, 500); break;
    case 2: near_equal(r, sp, v, in->n, 500, 1); break;
    case 3: fill(r, sp, v, in->n, 1, 20); break;
    case 4: end_bait(r, sp, v, in->n, 1); break;
    case 5: near_equal(r, sp, v, in->n, 500, 0); break;
    case 6: fill(r, sp, v, in->n, 1, 5); break;
    default: fill(r, sp, v, in->n, -5, 5); break;
    }
    if (!sp->extended)
        cairn_gen_odd_sum(r, sp, in);
    return 0;
}

/* ---- stone-game-ii: taking the most now opens the end to the opponent --- */

int cairn_gen_traps_ii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in)
{
    static const char *const names[] = { "end-bait", "ascending", "all-equal",
                                         "tiny",     "short",     "baits" };
    uint64_t p = index % 6;
    int64_t *v;
    int rc = p == 4 ? row(r, sp, in, 1, 6, -1) : row(r, sp, in, sp->size_lo, sp->size_hi, -1);

    if (rc != 0)
        return rc;
    v = in->v[0];
    in->profile = names[p];
    switch (p) {
    case 0: /* [1,2,3,4,5,100]: the last pile is the prize */
        fill(r, sp, v, in->n, 1, 10);
        v[in->n - 1] = value(r, sp, 50, 10000);
        break;
    case 1:
        fill(r, sp, v, in->n, 1, 10000);
        ascending(v, in->n);
        break;
    case 2: near_equal(r, sp, v, in->n, 10000, 0); break;
    case 3: fill(r, sp, v, in->n, 1, 3); break;
    case 4: fill(r, sp, v, in->n, 1, 100); break;
    default: baits(r, sp, v, in->n, 5, 10000); break;
    }
    return 0;
}

/* ---- stone-game-iii: ties, negative values, taking 3 is not always best - */

int cairn_gen_traps_iii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in)
{
    static const char *const names[] = { "tie-tiny", "mostly-zero",  "small-signed",
                                         "prize",    "all-negative", "mostly-negative" };
    uint64_t p = index % 6;
    size_t i;
    int64_t *v;
    int rc = row(r, sp, in, sp->size_lo, sp->size_hi, -1);

    if (rc != 0)
        return rc;
    v = in->v[0];
    in->profile = names[p];
    switch (p) {
    case 0: fill(r, sp, v, in->n, -1, 1); break;
    case 1:
        fill(r, sp, v, in->n, 0, 0);
        for (i = 0; i < in->n; i++)
            if (cairn_gen_chance(r, 1, 5))
                v[i] = value(r, sp, -1, 1);
        break;
    case 2: fill(r, sp, v, in->n, -3, 3); break;
    case 3: /* [1,1,1,1,100]: taking the most now leaves the prize in reach */
        for (i = 0; i < in->n; i++)
            v[i] = cairn_gen_chance(r, 1, 5) ? value(r, sp, 500, 1000) : value(r, sp, 1, 5);
        break;
    case 4: fill(r, sp, v, in->n, -1000, -1); break;
    default: /* a few gains among losses: who is left to take them */
        fill(r, sp, v, in->n, -1000, 100);
        break;
    }
    return 0;
}

/* ---- stone-game-v: the tie rule (Alice picks), tie-heavy rows ----------- */

int cairn_gen_traps_v(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                      struct cairn_gen_input *in)
{
    static const char *const names[] = { "tiny",       "powers-of-two", "all-equal",
                                         "two-values", "single",        "ascending" };
    uint64_t p = index % 6;
    int64_t *v, a, b;
    size_t i;
    int rc = p == 4 ? row(r, sp, in, 1, 1, -1) : row(r, sp, in, sp->size_lo, sp->size_hi, -1);

    if (rc != 0)
        return rc;
    v = in->v[0];
    in->profile = names[p];
    switch (p) {
    case 0: fill(r, sp, v, in->n, 1, 3); break;
    case 1: /* 1,1,2,4,8,...: [1,8,1,2,2,4] is the shortest known bug */
        for (i = 0; i < in->n; i++)
            v[i] = clampv(sp, INT64_C(1) << cairn_gen_range(r, 0, 4));
        break;
    case 2: near_equal(r, sp, v, in->n, 1000000, 0); break;
    case 3:
        a = value(r, sp, 1, 10);
        b = value(r, sp, 1, 10);
        for (i = 0; i < in->n; i++)
            v[i] = cairn_gen_range(r, 0, 1) ? a : b;
        break;
    case 4: fill(r, sp, v, in->n, 1, 1000000); break;
    default:
        fill(r, sp, v, in->n, 1, 20);
        ascending(v, in->n);
        break;
    }
    return 0;
}

/* ---- stone-game-vii: the end worth more now, equal values, parity ------ */

int cairn_gen_traps_vii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in)
{
    static const char *const names[] = { "all-equal",  "near-equal", "tiny",
                                         "two-values", "bait",       "tiny-odd" };
    uint64_t p = index % 6;
    int64_t *v, x, y;
    size_t i;
    /* Even and odd lengths in turn for the all-equal rows: who removes
     * last decides them. */
    int rc = row(r, sp, in, sp->size_lo, sp->size_hi,
                 p == 0   ? (int)(index / 6 % 2)
                 : p == 5 ? 1
                          : -1);

    if (rc != 0)
        return rc;
    v = in->v[0];
    in->profile = names[p];
    switch (p) {
    case 0: near_equal(r, sp, v, in->n, 1000, 0); break;
    case 1: near_equal(r, sp, v, in->n, 1000, 1); break;
    case 2:
    case 5: fill(r, sp, v, in->n, 1, 3); break;
    case 3:
        x = value(r, sp, 1, 1000);
        y = value(r, sp, 1, 1000);
        for (i = 0; i < in->n; i++)
            v[i] = cairn_gen_range(r, 0, 1) ? x : y;
        break;
    default: baits(r, sp, v, in->n, 10, 1000); break;
    }
    return 0;
}

/* ---- stone-game-viii: negative answers, equal prefix sums, x > 1 ------- */

int cairn_gen_traps_viii(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                         struct cairn_gen_input *in)
{
    static const char *const names[] = { "all-negative", "tiny-signed", "zero-prefix",
                                         "two",          "alternating", "negative-tail" };
    uint64_t p = index % 6;
    int64_t *v;
    size_t i;
    int rc = p == 3 ? row(r, sp, in, 2, 2, -1) : row(r, sp, in, sp->size_lo, sp->size_hi, -1);

    if (rc != 0)
        return rc;
    v = in->v[0];
    in->profile = names[p];
    switch (p) {
    case 0: fill(r, sp, v, in->n, -10000, -1); break;
    case 1: fill(r, sp, v, in->n, -2, 2); break;
    case 2: /* x, -x, y, -y, ...: prefix sums keep coming back to 0 */
        for (i = 0; i < in->n; i++)
            v[i] = i % 2 ? -v[i - 1] : value(r, sp, -100, 100);
        break;
    case 3: fill(r, sp, v, in->n, -10000, 10000); break;
    case 4:
        for (i = 0; i < in->n; i++)
            v[i] = (i % 2 ? -1 : 1) * value(r, sp, 1000, 10000);
        break;
    default:
        for (i = 0; i < in->n; i++)
            v[i] = i < in->n / 2 ? value(r, sp, 1, 100) : value(r, sp, -100, -1);
        break;
    }
    return 0;
}

/* ---- predict-the-winner: a tie wins, even lengths always win, zeros ---- */

int cairn_gen_traps_ptw(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in)
{
    static const char *const names[] = { "even-length", "odd-tie", "bait", "zeros", "palindrome" };
    uint64_t p = index % 5;
    int64_t *v;
    size_t i;
    int rc = row(r, sp, in, sp->size_lo, sp->size_hi, p == 0 ? 0 : p == 3 ? -1 : 1);

    if (rc != 0)
        return rc;
    v = in->v[0];
    in->profile = names[p];
    switch (p) {
    case 0: baits(r, sp, v, in->n, 10, 1000); break;
    case 1: fill(r, sp, v, in->n, 0, 2); break;
    case 2: baits(r, sp, v, in->n, 5, 300); break;
    case 3:
        fill(r, sp, v, in->n, 0, 0);
        for (i = 0; i < in->n; i++)
            if (cairn_gen_chance(r, 1, 3))
                v[i] = value(r, sp, 1, 10);
        break;
    default:
        for (i = 0; i < in->n; i++)
            v[i] = i < (in->n + 1) / 2 ? value(r, sp, 0, 20) : v[in->n - 1 - i];
        break;
    }
    return 0;
}
