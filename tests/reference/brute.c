/*
 * brute.c - reference solvers for the three stone games (see brute.h).
 *
 * Nothing clever on purpose: these are what the plugins are measured
 * against, so each one is the rule of the game written down directly.
 */
#include "brute.h"

#include <stdlib.h>

int64_t brute_sum(const int64_t *a, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* ---------------------------------------------------------------------
 * stone-game (877)
 * ------------------------------------------------------------------- */

int64_t brute_sg1_minimax(const int64_t *a, size_t n)
{
    if (n == 0)
        return 0;
    /* Take the left end, the rest is a[1..n); or the right end, a[0..n-1). */
    int64_t left = a[0] - brute_sg1_minimax(a + 1, n - 1);
    int64_t right = a[n - 1] - brute_sg1_minimax(a, n - 1);
    return left > right ? left : right;
}

int64_t brute_sg1_dp(const int64_t *a, size_t n)
{
    if (n == 0)
        return 0;
    /* dp[i * n + j]: value of the interval a[i..j], i <= j. */
    int64_t *dp = malloc(n * n * sizeof *dp);
    if (!dp)
        return INT64_MIN;
    for (size_t len = 1; len <= n; len++) {
        for (size_t i = 0; i + len <= n; i++) {
            size_t j = i + len - 1;
            if (len == 1) {
                dp[i * n + j] = a[i];
            } else {
                int64_t left = a[i] - dp[(i + 1) * n + j];
                int64_t right = a[j] - dp[i * n + (j - 1)];
                dp[i * n + j] = left > right ? left : right;
            }
        }
    }
    int64_t d = dp[0 * n + (n - 1)];
    free(dp);
    return d;
}

/* ---------------------------------------------------------------------
 * stone-game-ii (1140)
 * ------------------------------------------------------------------- */

int64_t brute_sg2_minimax(const int64_t *a, size_t n, int64_t m)
{
    if (n == 0)
        return 0;
    int64_t best = INT64_MIN;
    int64_t took = 0;
    for (size_t x = 1; x <= n && (int64_t)x <= 2 * m; x++) {
        took += a[x - 1];
        int64_t next_m = (int64_t)x > m ? (int64_t)x : m;
        int64_t v = took - brute_sg2_minimax(a + x, n - x, next_m);
        if (v > best)
            best = v;
    }
    return best;
}

int64_t brute_sg2_dp(const int64_t *a, size_t n, int64_t m)
{
    if (n == 0)
        return 0;
    /* Once M >= n every X up to the number of piles left is allowed and M
     * never changes again, so every M >= n behaves like M == n. */
    size_t mcap = n;
    size_t m0 = m > (int64_t)mcap ? mcap : (size_t)m;

    /* suf[i] = a[i] + ... + a[n-1] */
    int64_t *suf = malloc((n + 1) * sizeof *suf);
    /* best[i * (mcap + 1) + M]: the largest total the player to move can
     * collect from the piles a[i..n) with the given M (1 <= M <= mcap). */
    int64_t *best = malloc((n + 1) * (mcap + 1) * sizeof *best);
    if (!suf || !best) {
        free(suf);
        free(best);
        return INT64_MIN;
    }
    suf[n] = 0;
    for (size_t i = n; i-- > 0;)
        suf[i] = suf[i + 1] + a[i];

    for (size_t mm = 0; mm <= mcap; mm++)
        best[n * (mcap + 1) + mm] = 0;
    for (size_t i = n; i-- > 0;) {
        for (size_t mm = 1; mm <= mcap; mm++) {
            int64_t b = INT64_MIN;
            for (size_t x = 1; x <= 2 * mm && i + x <= n; x++) {
                size_t next_m = x > mm ? x : mm;
                /* I collect suf[i] minus whatever the opponent collects. */
                int64_t v = suf[i] - best[(i + x) * (mcap + 1) + next_m];
                if (v > b)
                    b = v;
            }
            best[i * (mcap + 1) + mm] = b;
        }
    }
    /* mover - other = mover - (sum - mover) */
    int64_t d = 2 * best[0 * (mcap + 1) + m0] - suf[0];
    free(suf);
    free(best);
    return d;
}

/* ---------------------------------------------------------------------
 * stone-game-iii (1406)
 * ------------------------------------------------------------------- */

int64_t brute_sg3_minimax(const int64_t *a, size_t n)
{
    if (n == 0)
        return 0;
    int64_t best = INT64_MIN;
    int64_t took = 0;
    for (size_t k = 1; k <= 3 && k <= n; k++) {
        took += a[k - 1];
        int64_t v = took - brute_sg3_minimax(a + k, n - k);
        if (v > best)
            best = v;
    }
    return best;
}

int64_t brute_sg3_dp(const int64_t *a, size_t n, int64_t *dp_out)
{
    int64_t *dp = dp_out ? dp_out : malloc((n + 1) * sizeof *dp);
    if (!dp)
        return INT64_MIN;
    dp[n] = 0;
    for (size_t i = n; i-- > 0;) {
        int64_t best = INT64_MIN;
        int64_t took = 0;
        for (size_t k = 1; k <= 3 && i + k <= n; k++) {
            took += a[i + k - 1];
            int64_t v = took - dp[i + k];
            if (v > best)
                best = v;
        }
        dp[i] = best;
    }
    int64_t d = dp[0];
    if (!dp_out)
        free(dp);
    return d;
}
