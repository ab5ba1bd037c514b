/*
 * peers_a.c - ported published solutions (see peers.h) of stone-game-iv,
 * -v, -vi and -vii: for each, the fastest of those docs/games.md lists, ported
 * line by line from kamyu104/LeetCode-Solutions (Python ints become
 * int64_t, lists become malloc'd arrays, allocated inside the timed call as
 * the original allocates inside its method).
 */
#include <stdlib.h>
#include <string.h>

#include "peers.h"

/* ---- stone-game-iv: the bottom-up DP, O(n sqrt n) ---- */

static size_t make_sg4(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    (void)rng;
    if (cap < 1)
        return 0;
    buf[0] = 100000; /* the official maximum; one position, no randomness */
    in[0] = (struct cairn_array){ .v = buf, .n = 1 };
    return 1;
}

/* kamyu104 Python/stone-game-iv.py @85e38558: dp[i] = some j*j <= i with
 * dp[i - j*j] false, stopping at the first. */
static int64_t peer_sg4(const struct cairn_array *in, size_t n_in)
{
    (void)n_in;
    int64_t n = in[0].v[0];
    unsigned char *dp = calloc((size_t)n + 1, 1);
    if (dp == NULL)
        return -1;
    for (int64_t i = 1; i <= n; i++) {
        int64_t j = 1;
        while (j * j <= i) {
            if (!dp[i - j * j]) {
                dp[i] = 1;
                break;
            }
            j += 1;
        }
    }
    int64_t r = dp[n];
    free(dp);
    return r;
}

/* ---- stone-game-v: O(n^2) with a moving mid per start ---- */

static size_t make_sg5(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    const size_t n = 500;
    if (cap < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = 1 + (int64_t)(rng() % 1000000);
    in[0] = (struct cairn_array){ .v = buf, .n = n };
    return 1;
}

/* kamyu104 Python/stone-game-v.py @9ab46b26, class Solution (the 1-D mid;
 * Solution2 is the same idea with a 2-D mid table).  dp[i][j] (i < j) is the
 * left-anchored running maximum of sum + score, dp[j][i] the right-anchored
 * one; the last max_score computed is the answer. */
static int64_t peer_sg5(const struct cairn_array *in, size_t n_in)
{
    (void)n_in;
    const int64_t *v = in[0].v;
    size_t n = in[0].n;
    int64_t *prefix = malloc((n + 1) * sizeof *prefix);
    size_t *mid = malloc(n * sizeof *mid);
    int64_t *dp = calloc(n * n, sizeof *dp);
    int64_t max_score = 0;
    if (prefix == NULL || mid == NULL || dp == NULL) {
        free(prefix);
        free(mid);
        free(dp);
        return -1;
    }
    prefix[0] = 0;
    for (size_t i = 0; i < n; i++)
        prefix[i + 1] = prefix[i] + v[i];
    for (size_t i = 0; i < n; i++)
        mid[i] = i;
    for (size_t i = 0; i < n; i++)
        dp[i * n + i] = v[i];
    for (size_t l = 2; l <= n; l++) {
        for (size_t i = 0; i + l <= n; i++) {
            size_t j = i + l - 1;
            while (prefix[mid[i]] - prefix[i] < prefix[j + 1] - prefix[mid[i]])
                mid[i] += 1;
            size_t p = mid[i];
            max_score = 0;
            if (prefix[p] - prefix[i] == prefix[j + 1] - prefix[p]) {
                int64_t x = dp[i * n + (p - 1)], y = dp[j * n + p];
                max_score = x > y ? x : y;
            } else {
                if (i + 2 <= p && dp[i * n + (p - 2)] > max_score)
                    max_score = dp[i * n + (p - 2)];
                if (p <= j && dp[j * n + p] > max_score)
                    max_score = dp[j * n + p];
            }
            int64_t s = prefix[j + 1] - prefix[i] + max_score;
            dp[i * n + j] = dp[i * n + (j - 1)] > s ? dp[i * n + (j - 1)] : s;
            dp[j * n + i] = dp[j * n + (i + 1)] > s ? dp[j * n + (i + 1)] : s;
        }
    }
    free(prefix);
    free(mid);
    free(dp);
    return max_score;
}

/* ---- stone-game-vi: sort by a + b ---- */

static size_t make_sg6(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    const size_t n = 100000;
    if (cap < 2 * n)
        return 0;
    for (size_t i = 0; i < 2 * n; i++)
        buf[i] = 1 + (int64_t)(rng() % 100);
    in[0] = (struct cairn_array){ .v = buf, .n = n };
    in[1] = (struct cairn_array){ .v = buf + n, .n = n };
    return 2;
}

struct sg6_pair {
    int64_t a, b;
};

static int sg6_by_sum_desc(const void *x, const void *y)
{
    const struct sg6_pair *p = x, *q = y;
    int64_t s = p->a + p->b, t = q->a + q->b;
    return (s < t) - (s > t);
}

/* kamyu104 Python/stone-game-vi.py @0f59579b: sort the (a, b) pairs by
 * a + b, descending; cmp(sum of a at even ranks, sum of b at odd ranks). */
static int64_t peer_sg6(const struct cairn_array *in, size_t n_in)
{
    (void)n_in;
    size_t n = in[0].n;
    struct sg6_pair *sorted_vals = malloc(n * sizeof *sorted_vals);
    if (sorted_vals == NULL)
        return -2;
    for (size_t i = 0; i < n; i++)
        sorted_vals[i] = (struct sg6_pair){ in[0].v[i], in[1].v[i] };
    qsort(sorted_vals, n, sizeof *sorted_vals, sg6_by_sum_desc);
    int64_t alice = 0, bob = 0;
    for (size_t i = 0; i < n; i += 2)
        alice += sorted_vals[i].a;
    for (size_t i = 1; i < n; i += 2)
        bob += sorted_vals[i].b;
    free(sorted_vals);
    return (alice > bob) - (alice < bob);
}

/* ---- stone-game-vii: interval DP on two rows ---- */

static size_t make_sg7(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    const size_t n = 1000;
    if (cap < n)
        return 0;
    for (size_t i = 0; i < n; i++)
        buf[i] = 1 + (int64_t)(rng() % 1000);
    in[0] = (struct cairn_array){ .v = buf, .n = n };
    return 1;
}

/* kamyu104 Python/stone-game-vii.py @e64bf429: dp[i % 2][j] for i from the
 * right, j from i + 1, O(n) memory. */
static int64_t peer_sg7(const struct cairn_array *in, size_t n_in)
{
    (void)n_in;
    const int64_t *stones = in[0].v;
    size_t n = in[0].n;
    int64_t *prefix = malloc((n + 1) * sizeof *prefix);
    int64_t *dp = calloc(2 * n, sizeof *dp);
    if (prefix == NULL || dp == NULL) {
        free(prefix);
        free(dp);
        return -1;
    }
    prefix[0] = 0;
    for (size_t i = 0; i < n; i++)
        prefix[i + 1] = prefix[i] + stones[i];
    for (size_t i = n; i-- > 0;) {
        int64_t *cur = dp + (i % 2) * n, *nxt = dp + ((i + 1) % 2) * n;
        for (size_t j = i + 1; j < n; j++) {
            int64_t x = (prefix[j + 1] - prefix[i + 1]) - nxt[j]; /* score(i+1, j) */
            int64_t y = (prefix[j] - prefix[i]) - cur[j - 1];     /* score(i, j-1) */
            cur[j] = x > y ? x : y;
        }
    }
    int64_t r = dp[n - 1];
    free(prefix);
    free(dp);
    return r;
}

const struct bench_peer bench_peers_a[] = {
    { "stone-game-iv", "kamyu104 Python/stone-game-iv.py @85e38558 (bottom-up DP)", make_sg4,
      peer_sg4 },
    { "stone-game-v", "kamyu104 Python/stone-game-v.py @9ab46b26 (O(n^2), Solution)", make_sg5,
      peer_sg5 },
    { "stone-game-vi", "kamyu104 Python/stone-game-vi.py @0f59579b (sort by a+b)", make_sg6,
      peer_sg6 },
    { "stone-game-vii", "kamyu104 Python/stone-game-vii.py @e64bf429 (two rows)", make_sg7,
      peer_sg7 },
    { 0 },
};
