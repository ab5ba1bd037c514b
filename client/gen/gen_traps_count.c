/*
 * gen_traps_count.c - cairn gen --traps for the games decided by counts
 * and rare positions rather than by a row's shape: stone-game-iv (losing
 * pile sizes are 2.8% of them), stone-game-vi (draws, and stones worth
 * more to the opponent), stone-game-ix (the residue counts mod 3) and
 * stone-removal-game (the edges of its winning ranges).  As in
 * gen_traps.c, record i takes profile i mod the list's length.
 */
#include <errno.h>
#include <stdlib.h>

#include "gen_traps.h"

/* ---- stone-game-iv: half the records on losing pile sizes -------------- */

/* The losing sizes in [0, n], made once per corpus: a forward sieve from
 * each losing L marks L + k^2 winning, O(n + losing * sqrt(n)). */
struct cold {
    int64_t n;
    int64_t *v; /* the losing sizes, ascending */
    size_t len;
};

static struct cold *cold_sizes(struct cairn_gen_input *in, int64_t n)
{
    struct cold *c = in->memo;
    unsigned char *win;
    size_t len = 0;
    int64_t l, k;

    if (c != NULL)
        return c;
    if ((win = calloc((size_t)n + 1, 1)) == NULL)
        return NULL;
    for (l = 0; l <= n; l++) {
        if (win[l])
            continue;
        len++;
        for (k = 1; l + k * k <= n; k++)
            win[l + k * k] = 1;
    }
    if ((c = calloc(1, sizeof(*c) + len * sizeof(int64_t))) != NULL) {
        c->v = (int64_t *)(c + 1);
        c->n = n;
        for (l = 0; l <= n; l++)
            if (!win[l])
                c->v[c->len++] = l;
        in->memo = c;
    }
    free(win);
    return c;
}

/* A losing size in [lo, hi], or -1 when there is none. */
static int64_t cold_in(struct cairn_gen_rng *r, const struct cold *c, int64_t lo, int64_t hi)
{
    size_t a = 0, b = c->len;

    while (a < c->len && c->v[a] < lo)
        a++;
    while (b > a && c->v[b - 1] > hi)
        b--;
    return a < b ? c->v[cairn_gen_range(r, (int64_t)a, (int64_t)b - 1)] : -1;
}

static int64_t isqrt(int64_t n)
{
    int64_t k = 0;

    while ((k + 1) * (k + 1) <= n)
        k++;
    return k;
}

int cairn_gen_traps_iv(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in)
{
    static const char *const names[] = { "losing", "losing-square", "losing", "near-square" };
    uint64_t p = index % 4;
    int64_t lo = sp->size_lo, hi = sp->size_hi, n = -1, k;
    struct cold *c;
    int rc = cairn_gen_input_size(in, 1);

    if (rc != 0)
        return rc;
    if ((c = cold_sizes(in, hi)) == NULL)
        return -ENOMEM;
    in->profile = names[p];
    if (p == 0 || p == 2) {
        n = cold_in(r, c, lo, hi);
    } else if (p == 1) {
        /* One move from a losing size: the winning move is the square a
         * solver must find, seldom the largest one. */
        int64_t reach = isqrt(hi) * isqrt(hi),
                l = cold_in(r, c, lo > reach ? lo - reach : 0, hi - 1);

        if (l >= 0) {
            k = cairn_gen_range(r, 1, isqrt(hi - l));
            n = l + k * k;
        }
    } else {
        k = cairn_gen_range(r, isqrt(lo), isqrt(hi) + 1);
        n = k * k + cairn_gen_range(r, -1, 1);
    }
    if (n < lo || n > hi)
        n = cairn_gen_range(r, lo, hi);
    in->v[0][0] = n;
    return 0;
}

/* ---- stone-game-vi: draws, near draws, stones worth more to the other -- */

/* A draw: every stone has a + b = s and sum(b) = s * ceil(n / 2), so
 * whatever the order of play the margin is 0 (docs/games.md).  Needs n >= 2;
 * an odd n needs s >= 2n / (n - 1) and s <= 2 hi n / (n + 1) (values
 * 1..hi). */
static void draw(struct cairn_gen_rng *r, int64_t hi, struct cairn_gen_input *in)
{
    size_t n = in->n, i, moves;
    int64_t s_lo = 2, s_hi = 2 * hi, s, target, bl, bh;
    int64_t *a = in->v[0], *b = in->v[1];

    if (n % 2) {
        s_lo = (2 * (int64_t)n + (int64_t)n - 2) / ((int64_t)n - 1);
        s_hi = 2 * hi * (int64_t)n / ((int64_t)n + 1);
    }
    s = cairn_gen_range(r, s_lo, s_hi);
    target = s * (((int64_t)n + 1) / 2);
    bl = s - hi > 1 ? s - hi : 1;
    bh = s - 1 < hi ? s - 1 : hi;
    for (i = 0; i < n; i++)
        b[i] = target / (int64_t)n + ((int64_t)i < target % (int64_t)n);
    /* Move value between stones, keeping the sum: draws of every shape. */
    for (moves = 0; moves < n; moves++) {
        size_t x = (size_t)cairn_gen_range(r, 0, (int64_t)n - 1);
        size_t y = (size_t)cairn_gen_range(r, 0, (int64_t)n - 1);
        int64_t room = b[x] - bl < bh - b[y] ? b[x] - bl : bh - b[y];

        if (x != y && room > 0) {
            int64_t d = cairn_gen_range(r, 1, room);
            b[x] -= d;
            b[y] += d;
        }
    }
    for (i = 0; i < n; i++)
        a[i] = s - b[i];
}

int cairn_gen_traps_vi(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in)
{
    static const char *const names[] = { "draw", "near-draw", "near-draw-b", "denial" };
    uint64_t p = index % 4;
    int64_t hi = sp->vhi < 100 ? sp->vhi : 100, k;
    size_t i, at;
    int rc = cairn_gen_input_size(
        in, (size_t)cairn_gen_pick_size(r, sp, p <= 2 ? 2 : sp->size_lo, sp->size_hi, -1));

    if (rc != 0)
        return rc;
    in->profile = names[p];
    switch (p) {
    case 0:
    case 1:
    case 2:
        if (in->n < 2) /* no draw of one stone: Alice takes it */
            goto denial;
        draw(r, hi, in);
        /* A point or two off, on Alice's values or Bob's: the sign is all
         * a mistake can change. */
        for (k = p == 0 ? 0 : cairn_gen_range(r, 1, 3); k > 0; k--) {
            int64_t *w = in->v[p == 1 ? 0 : 1];

            at = (size_t)cairn_gen_range(r, 0, (int64_t)in->n - 1);
            w[at] += w[at] < hi && (w[at] == 1 || cairn_gen_range(r, 0, 1)) ? 1 : -1;
        }
        break;
    case 3:
    denial:
        /* Greedy by one's own value takes the (mid, small) stones and
         * leaves the opponent the ones it values most. */
        for (i = 0; i < in->n; i++)
            if (cairn_gen_range(r, 0, 1)) {
                in->v[0][i] = cairn_gen_range(r, 1, hi / 5);
                in->v[1][i] = cairn_gen_range(r, hi * 3 / 5, hi);
            } else {
                in->v[0][i] = cairn_gen_range(r, hi * 2 / 5, hi * 7 / 10);
                in->v[1][i] = cairn_gen_range(r, 1, hi / 5);
            }
        break;
    }
    return 0;
}

/* ---- stone-game-ix: the residue counts c0, c1, c2 ------------------------ */

/* A value of residue res mod 3 within the space's values and 1..10^4:
 * the official values, valid under extended limits too (which allow any
 * int64, where 3k + res could overflow). */
static int64_t residue(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, int64_t res)
{
    int64_t lo = sp->vlo > 1 ? sp->vlo : 1, hi = sp->vhi < 10000 ? sp->vhi : 10000;
    int64_t k_lo = (lo - res + 2) / 3, k_hi = (hi - res) / 3;

    return 3 * cairn_gen_range(r, k_lo, k_hi) + res;
}

int cairn_gen_traps_ix(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                       struct cairn_gen_input *in)
{
    static const char *const names[] = { "balanced-even", "uneven-even", "threshold",
                                         "balanced-odd",  "one-missing", "one-residue" };
    uint64_t p = index % 6;
    size_t n, c0, c1, m, d, i;
    int rc = cairn_gen_input_size(in, cairn_gen_size(r, sp));

    if (rc != 0)
        return rc;
    n = in->n;
    in->profile = names[p];
    /* c0's parity decides which rule applies, and its size how long a
     * play can stall on multiples of 3: vary both. */
    c0 = (size_t)cairn_gen_range(r, 0, (int64_t)(n < 6 ? n : n / 2));
    /* The -even profiles want c0 even (Alice wins iff c1, c2 >= 1: won
     * positions whose play is long); balanced-odd and threshold odd (the
     * |c1 - c2| >= 3 rule is c0 odd's). */
    if ((p <= 1 && c0 % 2 == 1) || ((p == 2 || p == 3) && c0 % 2 == 0))
        c0 = c0 + 1 <= n ? c0 + 1 : c0 > 0 ? c0 - 1 : c0;
    m = n - c0;
    switch (p) {
    case 0:
    case 3: c1 = m / 2 + (m % 2 ? (size_t)cairn_gen_range(r, 0, 1) : 0); break;
    case 1: c1 = m >= 2 ? (size_t)cairn_gen_range(r, 1, (int64_t)m - 1) : m; break;
    case 4: c1 = cairn_gen_range(r, 0, 1) ? m : 0; break;
    case 2: /* |c1 - c2| is 2 or 3: one stone either side of the rule */
        d = m % 2 ? 3 : 2;
        d = d <= m ? d : m;
        c1 = (m + d) / 2;
        if (cairn_gen_range(r, 0, 1))
            c1 = m - c1;
        break;
    default:
        c0 = cairn_gen_range(r, 0, 1) ? n : 0;
        m = n - c0;
        c1 = cairn_gen_range(r, 0, 1) ? m : 0;
        break;
    }
    for (i = 0; i < n; i++)
        in->v[0][i] = residue(r, sp, i < c0 ? 0 : i < c0 + c1 ? 1 : 2);
    cairn_gen_shuffle(r, in->v[0], n);
    return 0;
}

/* ---- stone-removal-game: either side of each winning range's edge ------ */

int cairn_gen_traps_srg(struct cairn_gen_rng *r, const struct cairn_gen_space *sp, uint64_t index,
                        struct cairn_gen_input *in)
{
    /* The stones removed after each move: 10, 10 + 9, ... (docs/games.md);
     * the winner changes between c - 1 and c. */
    static const int64_t edge[] = { 10, 19, 27, 34, 40, 45, 49, 52, 54 };
    int64_t near[2 * sizeof(edge) / sizeof(edge[0])], n;
    size_t i, k = 0;
    int rc = cairn_gen_input_size(in, 1);

    (void)index;
    if (rc != 0)
        return rc;
    for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
        for (n = edge[i] - 1; n <= edge[i]; n++)
            if (n >= sp->size_lo && n <= sp->size_hi)
                near[k++] = n;
    in->profile = "edge";
    in->v[0][0] = k > 0 ? near[cairn_gen_range(r, 0, (int64_t)k - 1)]
                        : cairn_gen_range(r, sp->size_lo, sp->size_hi);
    return 0;
}
