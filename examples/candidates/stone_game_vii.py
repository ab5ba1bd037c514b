#!/usr/bin/env python3
"""Stone Game VII (LeetCode 1690), correct: Alice's score minus Bob's
under optimal play, one {"stones": [...]} per line in, one integer out."""
import json
import sys


def difference(stones):
    n = len(stones)
    pre = [0]
    for s in stones:
        pre.append(pre[-1] + s)
    # best[i][j]: the mover's margin on stones[i..j]
    best = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            left = pre[j + 1] - pre[i + 1] - best[i + 1][j]  # removes stones[i]
            right = pre[j] - pre[i] - best[i][j - 1]  # removes stones[j]
            best[i][j] = max(left, right)
    return best[0][n - 1] if n else 0


for line in sys.stdin:
    print(difference(json.loads(line)["stones"]))
