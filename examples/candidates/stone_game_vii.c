/*
 * stone_game_vii.c - Stone Game VII (LeetCode 1690) for `cairn judge`:
 * one {"stones":[...]} per line in, the margin Alice - Bob out.  Built
 * with -DGREEDY each player removes the smaller end stone, which scores
 * the most this turn (the greedy candidate: right on short rows, wrong on
 * longer ones).  Plain C, no JSON library: the line holds one array of
 * integers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GREEDY
static long long margin(const long long *v, size_t n)
{
    long long left = 0, m = 0;
    size_t i = 0, j = n - 1;
    int sign = 1;

    for (size_t k = 0; k < n; k++)
        left += v[k];
    while (i < j) {
        left -= v[i] <= v[j] ? v[i++] : v[j--];
        m += sign * left;
        sign = -sign;
    }
    return m;
}
#else
/* d[i] over rows of growing length: the mover's best margin on v[i..i+len). */
static long long margin(const long long *v, size_t n)
{
    long long *d = calloc(n, sizeof(*d)), *pre = calloc(n + 1, sizeof(*pre)), m;

    if (d == NULL || pre == NULL)
        exit(1);
    for (size_t i = 0; i < n; i++)
        pre[i + 1] = pre[i] + v[i];
    for (size_t len = 2; len <= n; len++)
        for (size_t i = 0; i + len <= n; i++) {
            size_t j = i + len - 1;
            long long take_left = pre[j + 1] - pre[i + 1] - d[i + 1];
            long long take_right = pre[j] - pre[i] - d[i];
            d[i] = take_left > take_right ? take_left : take_right;
        }
    m = d[0];
    free(d);
    free(pre);
    return m;
}
#endif

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
        printf("%lld\n", n == 0 ? 0 : margin(v, n));
    }
    return 0;
}
