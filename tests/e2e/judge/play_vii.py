#!/usr/bin/env python3
"""cairn judge test candidate, stone-game-vii, the form with a line of
play: the right answer, with the greedy line (the smaller end stone each
turn) -- or, given "illegal", one move too many."""
import json
import sys


def best(stones):
    n, pre = len(stones), [0]
    for s in stones:
        pre.append(pre[-1] + s)
    b = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            b[i][j] = max(pre[j + 1] - pre[i + 1] - b[i + 1][j], pre[j] - pre[i] - b[i][j - 1])
    return b[0][n - 1]


for line in sys.stdin:
    stones = json.loads(line)["stones"]
    i, j, play = 0, len(stones) - 1, []
    while i <= j:
        if stones[i] <= stones[j]:
            play.append("L")
            i += 1
        else:
            play.append("R")
            j -= 1
    if sys.argv[1:] == ["illegal"]:
        play.append("L")
    print(json.dumps({"answer": best(stones), "play": play}))
