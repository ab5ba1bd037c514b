/*
 * brute_family_a.c - reference solvers for stone-game-iv, -v, -vi and -vii
 * (see brute_family_a.h).
 *
 * Nothing clever on purpose: each function is the rule of its game written
 * down directly, so the plugins are measured against the rules and not
 * against another copy of their own idea.
 */
#include "brute_family_a.h"

#include <stdlib.h>
#include <string.h>

static int64_t sum_of(const int64_t *a, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* ---------------------------------------------------------------------
 * stone-game-iv (1510)
 * ------------------------------------------------------------------- */

int brute_sg4_minimax(int64_t n)
{
    /* A player wins if some move leaves the opponent losing; with no move
     * (n == 0) the loop never runs and the player to move loses. */
    for (int64_t k = 1; k * k <= n; k++)
        if (!brute_sg4_minimax(n - k * k))
            return 1;
    return 0;
}

int brute_sg4_dp(int64_t n, uint8_t *win)
{
    if (n < 0 || !win)
        return -1;
    for (int64_t m = 0; m <= n; m++) {
        win[m] = 0;
        for (int64_t k = 1; k * k <= m && !win[m]; k++)
            if (!win[m - k * k])
                win[m] = 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------
 * stone-game-v (1563)
 * ------------------------------------------------------------------- */

int64_t brute_sg5_minimax(const int64_t *a, size_t n)
{
    if (n <= 1)
        return 0; /* one stone: the game is over */
    int64_t best = INT64_MIN;
    for (size_t p = 1; p < n; p++) {
        int64_t left = sum_of(a, p), right = sum_of(a + p, n - p);
        /* Bob throws the larger part away; on a tie Alice picks. */
        if (left <= right) {
            int64_t v = left + brute_sg5_minimax(a, p);
            best = v > best ? v : best;
        }
        if (left >= right) {
            int64_t v = right + brute_sg5_minimax(a + p, n - p);
            best = v > best ? v : best;
        }
    }
    return best;
}

int64_t brute_sg5_dp(const int64_t *a, size_t n, int64_t *table)
{
    if (n == 0)
        return 0;
    int64_t *dp = table ? table : malloc(n * n * sizeof *dp);
    int64_t *pre = malloc((n + 1) * sizeof *pre);
    if (!dp || !pre) {
        if (!table)
            free(dp);
        free(pre);
        return INT64_MIN;
    }
    pre[0] = 0;
    for (size_t i = 0; i < n; i++)
        pre[i + 1] = pre[i] + a[i];
    for (size_t len = 1; len <= n; len++) {
        for (size_t i = 0; i + len <= n; i++) {
            size_t j = i + len - 1;
            int64_t best = 0;
            for (size_t p = i + 1; p <= j; p++) { /* left i..p-1, right p..j */
                int64_t left = pre[p] - pre[i], right = pre[j + 1] - pre[p];
                if (left <= right && left + dp[i * n + (p - 1)] > best)
                    best = left + dp[i * n + (p - 1)];
                if (left >= right && right + dp[p * n + j] > best)
                    best = right + dp[p * n + j];
            }
            dp[i * n + j] = best;
        }
    }
    int64_t r = dp[n - 1];
    if (!table)
        free(dp);
    free(pre);
    return r;
}

/* ---------------------------------------------------------------------
 * stone-game-vi (1686)
 * ------------------------------------------------------------------- */

int brute_sg6_outcome(const int64_t *a, const int64_t *b, size_t n, uint32_t taken, int alice,
                      int64_t diff)
{
    int best = alice ? -2 : 2;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (taken & (UINT32_C(1) << i))
            continue;
        any = 1;
        int o = brute_sg6_outcome(a, b, n, taken | (UINT32_C(1) << i), !alice,
                                  alice ? diff + a[i] : diff - b[i]);
        if (alice ? o > best : o < best)
            best = o;
    }
    if (!any) /* every stone is gone: compare the points */
        return diff > 0 ? 1 : diff < 0 ? -1 : 0;
    return best;
}

int64_t brute_sg6_margin(const int64_t *a, const int64_t *b, size_t n, uint32_t taken, int alice)
{
    int64_t best = 0;
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (taken & (UINT32_C(1) << i))
            continue;
        int64_t v =
            (alice ? a[i] : -b[i]) + brute_sg6_margin(a, b, n, taken | (UINT32_C(1) << i), !alice);
        if (!any || (alice ? v > best : v < best))
            best = v;
        any = 1;
    }
    return best;
}

struct keyed {
    int64_t key;
    size_t idx;
};

/* a + b descending, then index ascending: the stable order. */
static int by_key_desc(const void *x, const void *y)
{
    const struct keyed *p = x, *q = y;
    if (p->key != q->key)
        return p->key > q->key ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}

int brute_sg6_greedy(const int64_t *a, const int64_t *b, size_t n, size_t *order, int64_t *alice,
                     int64_t *bob)
{
    size_t *idx = order ? order : malloc((n ? n : 1) * sizeof *idx);
    struct keyed *k = malloc((n ? n : 1) * sizeof *k);
    if (!idx || !k) {
        if (!order)
            free(idx);
        free(k);
        return -2;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (struct keyed){ .key = a[i] + b[i], .idx = i };
    qsort(k, n, sizeof *k, by_key_desc);
    for (size_t i = 0; i < n; i++)
        idx[i] = k[i].idx;
    free(k);
    int64_t al = 0, bo = 0;
    for (size_t r = 0; r < n; r++) {
        if (r % 2 == 0)
            al += a[idx[r]];
        else
            bo += b[idx[r]];
    }
    if (!order)
        free(idx);
    if (alice)
        *alice = al;
    if (bob)
        *bob = bo;
    return al > bo ? 1 : al < bo ? -1 : 0;
}

/* ---------------------------------------------------------------------
 * stone-game-vii (1690)
 * ------------------------------------------------------------------- */

int64_t brute_sg7_minimax(const int64_t *a, size_t n)
{
    if (n <= 1)
        return 0; /* removing the last stone scores nothing */
    /* Remove the left stone: score the rest a[1..n); or the right one. */
    int64_t left = sum_of(a + 1, n - 1) - brute_sg7_minimax(a + 1, n - 1);
    int64_t right = sum_of(a, n - 1) - brute_sg7_minimax(a, n - 1);
    return left > right ? left : right;
}

int64_t brute_sg7_dp(const int64_t *a, size_t n, int64_t *table)
{
    if (n == 0)
        return 0;
    int64_t *dp = table ? table : malloc(n * n * sizeof *dp);
    int64_t *pre = malloc((n + 1) * sizeof *pre);
    if (!dp || !pre) {
        if (!table)
            free(dp);
        free(pre);
        return INT64_MIN;
    }
    pre[0] = 0;
    for (size_t i = 0; i < n; i++)
        pre[i + 1] = pre[i] + a[i];
    for (size_t len = 1; len <= n; len++) {
        for (size_t i = 0; i + len <= n; i++) {
            size_t j = i + len - 1;
            if (len == 1) {
                dp[i * n + j] = 0;
                continue;
            }
            /* remove a[i]: score a[i+1..j]; remove a[j]: score a[i..j-1] */
            int64_t left = (pre[j + 1] - pre[i + 1]) - dp[(i + 1) * n + j];
            int64_t right = (pre[j] - pre[i]) - dp[i * n + (j - 1)];
            dp[i * n + j] = left > right ? left : right;
        }
    }
    int64_t r = dp[n - 1];
    if (!table)
        free(dp);
    free(pre);
    return r;
}
