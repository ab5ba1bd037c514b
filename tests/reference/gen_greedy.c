/*
 * gen_greedy.c - the greedy solutions of gen_greedy.h: each game played
 * out by two short-sighted players.  Quadratic at worst; the corpora
 * they grade have rows of at most a few thousand.
 */
#include <stdlib.h>

#include "gen_greedy.h"

int64_t greedy_larger_end(const int64_t *v, size_t n)
{
    size_t lo = 0, hi = n;
    int64_t d = 0, sign = 1;

    while (lo < hi) {
        d += sign * (v[lo] >= v[hi - 1] ? v[lo++] : v[--hi]);
        sign = -sign;
    }
    return d;
}

int64_t greedy_sg2(const int64_t *v, size_t n)
{
    size_t at = 0, m = 1, x, i;
    int64_t alice = 0;
    int turn = 0;

    while (at < n) {
        x = 2 * m < n - at ? 2 * m : n - at;
        for (i = 0; i < x; i++)
            if (turn == 0)
                alice += v[at + i];
        at += x;
        m = x > m ? x : m;
        turn ^= 1;
    }
    return alice;
}

int64_t greedy_sg3(const int64_t *v, size_t n)
{
    size_t at = 0, k, best_k;
    int64_t d = 0, sign = 1, sum, best;

    while (at < n) {
        best = v[at];
        best_k = 1;
        for (sum = v[at], k = 2; k <= 3 && at + k <= n; k++)
            if ((sum += v[at + k - 1]) > best) {
                best = sum;
                best_k = k;
            }
        d += sign * best;
        at += best_k;
        sign = -sign;
    }
    return d;
}

int greedy_sg4(int64_t n)
{
    int alice = 1;

    for (;;) {
        int64_t k = 1;

        while ((k + 1) * (k + 1) <= n)
            k++;
        n -= k * k;
        if (n == 0)
            return alice;
        alice = !alice;
    }
}

int64_t greedy_sg5(const int64_t *v, size_t n)
{
    size_t lo = 0, hi = n, k, best_k;
    int64_t score = 0;

    while (hi - lo > 1) {
        int64_t total = 0, left = 0, best = -1, kept;
        int keep_left = 1, best_left = 1;

        for (k = lo; k < hi; k++)
            total += v[k];
        best_k = lo + 1;
        for (k = lo + 1; k < hi; k++) {
            left += v[k - 1];
            keep_left = left <= total - left;
            kept = keep_left ? left : total - left;
            if (kept > best) {
                best = kept;
                best_k = k;
                best_left = keep_left;
            }
        }
        score += best;
        if (best_left)
            hi = best_k;
        else
            lo = best_k;
    }
    return score;
}

int greedy_sg6(const int64_t *a, const int64_t *b, size_t n)
{
    char *taken = calloc(n ? n : 1, 1);
    int64_t d = 0;
    size_t turn, i;

    if (taken == NULL)
        abort(); /* a test tool: no corpus is worth handling this */
    for (turn = 0; turn < n; turn++) {
        const int64_t *own = turn % 2 ? b : a;
        size_t best = n;

        for (i = 0; i < n; i++)
            if (!taken[i] && (best == n || own[i] > own[best]))
                best = i;
        taken[best] = 1;
        d += turn % 2 ? -b[best] : a[best];
    }
    free(taken);
    return d > 0 ? 1 : d < 0 ? -1 : 0;
}

int64_t greedy_sg7(const int64_t *v, size_t n)
{
    size_t lo = 0, hi = n, i;
    int64_t rest = 0, d = 0, sign = 1;

    for (i = 0; i < n; i++)
        rest += v[i];
    while (hi - lo > 1) {
        rest -= v[lo] <= v[hi - 1] ? v[lo++] : v[--hi];
        d += sign * rest;
        sign = -sign;
    }
    return d;
}

int64_t greedy_sg8(const int64_t *v, size_t n)
{
    /* After a merge of the first x stones the left stone is the prefix
     * sum P[x - 1]: the game is picking prefix ends further right. */
    int64_t *p = malloc((n ? n : 1) * sizeof(*p)), d = 0, sign = 1;
    size_t at = 0, k, best_k;

    if (p == NULL)
        abort();
    for (k = 0; k < n; k++)
        p[k] = (k ? p[k - 1] : 0) + v[k];
    while (at + 1 < n) {
        best_k = at + 1;
        for (k = at + 1; k < n; k++)
            if (p[k] > p[best_k])
                best_k = k;
        d += sign * p[best_k];
        at = best_k;
        sign = -sign;
    }
    free(p);
    return d;
}

/* v mod 3 in 0..2: extended values may be negative, and a sum of them
 * could overflow, so only residues are added. */
static int mod3(int64_t v)
{
    return (int)((v % 3 + 3) % 3);
}

int greedy_sg9(const int64_t *v, size_t n)
{
    char *taken = calloc(n ? n : 1, 1);
    int sum = 0;
    size_t turn, i;
    int result = 0; /* all removed without a loss: Bob wins */

    if (taken == NULL)
        abort();
    for (turn = 0; turn < n; turn++) {
        size_t pick = n;

        for (i = 0; i < n && pick == n; i++)
            if (!taken[i] && (sum + mod3(v[i])) % 3 != 0)
                pick = i;
        if (pick == n) { /* every move loses: the mover loses */
            result = turn % 2 == 1;
            break;
        }
        taken[pick] = 1;
        sum = (sum + mod3(v[pick])) % 3;
    }
    free(taken);
    return result;
}

int greedy_srg(int64_t n)
{
    return n >= 10;
}
