#!/usr/bin/env python3
"""Stone Game V (LeetCode 1563), correct: Alice's best total, one
{"stoneValue": [...]} per line in, one integer out."""
import json
import sys
from functools import lru_cache


def score(values):
    pre = [0]
    for v in values:
        pre.append(pre[-1] + v)

    @lru_cache(maxsize=None)
    def best(i, j):  # the row values[i:j]
        top = 0
        for cut in range(i + 1, j):
            left, right = pre[cut] - pre[i], pre[j] - pre[cut]
            if left < right:
                top = max(top, left + best(i, cut))
            elif left > right:
                top = max(top, right + best(cut, j))
            else:  # equal halves: Alice keeps the better one
                top = max(top, left + best(i, cut), right + best(cut, j))
        return top

    return best(0, len(values))


for line in sys.stdin:
    print(score(json.loads(line)["stoneValue"]))
