/*
 * stone_game_iii.c - Stone Game III (LeetCode 1406) for `cairn judge`:
 * one {"stoneValue":[...]} per line in, "Alice", "Bob" or "Tie" out.
 * Built with -DWRONG_TIE it calls a margin of 0 a win for Alice (the
 * subtly wrong candidate).  Plain C, no JSON library: the line holds one
 * array of integers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *winner(const long long *v, size_t n)
{
    long long *best = calloc(n + 1, sizeof(*best)), margin;
    size_t i, k;

    if (best == NULL)
        exit(1);
    for (i = n; i-- > 0;) {
        long long take = 0;

        best[i] = 0;
        for (k = i; k < n && k < i + 3; k++) {
            take += v[k];
            if (k == i || take - best[k + 1] > best[i])
                best[i] = take - best[k + 1];
        }
    }
    margin = best[0];
    free(best);
#ifdef WRONG_TIE
    return margin >= 0 ? "Alice" : "Bob";
#else
    return margin > 0 ? "Alice" : margin < 0 ? "Bob" : "Tie";
#endif
}

int main(void)
{
    static char line[1 << 20];
    static long long v[1 << 16];

    while (fgets(line, sizeof(line), stdin) != NULL) {
        char *p = strchr(line, '['), *end;
        size_t n = 0;

        if (p == NULL)
            return 1;
        for (p++; *p != ']' && n < sizeof(v) / sizeof(v[0]); p = end) {
            v[n++] = strtoll(p, &end, 10);
            if (end == p)
                return 1;
            if (*end == ',')
                end++;
        }
        printf("\"%s\"\n", winner(v, n));
    }
    return 0;
}
