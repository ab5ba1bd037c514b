#!/usr/bin/env python3
"""The straightforward Python reference: read JSON lines on stdin, solve
each record with the textbook DP, print a result line.  What a user would
write in an afternoon; the benchmark's yardstick.  No validation beyond
what json.loads does."""
import json
import sys


def stone_game(p):
    n = len(p)
    dp = [[0] * n for _ in range(n)]
    for i in range(n):
        dp[i][i] = p[i]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            dp[i][j] = max(p[i] - dp[i + 1][j], p[j] - dp[i][j - 1])
    return dp[0][n - 1]


def stone_game_ii(p):
    n = len(p)
    suffix = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        suffix[i] = suffix[i + 1] + p[i]
    memo = {}

    def best(i, m):  # the mover's best total from pile i
        if i >= n:
            return 0
        if 2 * m >= n - i:
            return suffix[i]
        key = (i, m)
        if key not in memo:
            memo[key] = max(suffix[i] - best(i + x, max(m, x)) for x in range(1, 2 * m + 1))
        return memo[key]

    alice = best(0, 1)
    return alice - (suffix[0] - alice)


def stone_game_iii(v):
    n = len(v)
    dp = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        take, best = 0, None
        for k in range(3):
            if i + k < n:
                take += v[i + k]
                cand = take - dp[i + k + 1]
                best = cand if best is None or cand > best else best
        dp[i] = best
    return dp[0]


def main():
    sys.setrecursionlimit(10000)
    out = sys.stdout
    for no, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        variant, inp = rec["variant"], rec["input"]
        if variant == "stone-game":
            vals = inp["piles"]
            d = stone_game(vals)
            answer = "true" if d > 0 else "false"
        elif variant == "stone-game-ii":
            vals = inp["piles"]
            d = stone_game_ii(vals)
            answer = str((sum(vals) + d) // 2)
        else:
            vals = inp["stoneValue"]
            d = stone_game_iii(vals)
            answer = '"Alice"' if d > 0 else '"Bob"' if d < 0 else '"Tie"'
        s = sum(vals)
        out.write('{"line":%d,"variant":"%s","status":"ok","answer":%s,"alice":%d,"bob":%d,'
                  '"margin":%d}\n' % (no, variant, answer, (s + d) // 2, (s - d) // 2, d))


main()
