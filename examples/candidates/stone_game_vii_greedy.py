#!/usr/bin/env python3
"""Stone Game VII (LeetCode 1690), greedy: each player removes the smaller
end stone (the left one on a tie), which scores the most this turn; the
answer is the margin that play gives.  Right on short rows, wrong on
longer ones.  With --play, each answer carries the line of play too:
{"answer": A, "play": ["L", "R", ...]}."""
import json
import sys


def greedy(stones):
    i, j, left_sum = 0, len(stones) - 1, sum(stones)
    margin, sign, play = 0, 1, []
    while i < j:
        if stones[i] <= stones[j]:
            left_sum -= stones[i]
            i += 1
            play.append("L")
        else:
            left_sum -= stones[j]
            j -= 1
            play.append("R")
        margin += sign * left_sum
        sign = -sign
    return margin, play


with_play = sys.argv[1:] == ["--play"]
for line in sys.stdin:
    margin, play = greedy(json.loads(line)["stones"])
    print(json.dumps({"answer": margin, "play": play}) if with_play else margin)
