#!/usr/bin/env python3
"""Stone Game VII (LeetCode 1690), greedy: each player removes the smaller
end stone (the left one on a tie), which scores the most this turn; the
answer is the margin that play gives.  Right on short rows, wrong on
longer ones."""
import json
import sys


def difference(stones):
    i, j, left_sum = 0, len(stones) - 1, sum(stones)
    margin, sign = 0, 1
    while i < j:
        if stones[i] <= stones[j]:
            left_sum -= stones[i]
            i += 1
        else:
            left_sum -= stones[j]
            j -= 1
        margin += sign * left_sum
        sign = -sign
    return margin


for line in sys.stdin:
    print(difference(json.loads(line)["stones"]))
