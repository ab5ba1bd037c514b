#!/usr/bin/env python3
"""Stone Game III (LeetCode 1406), correct: cairn judge's protocol, one
JSON input per line in ({"stoneValue": [...]}), one answer per line out."""
import json
import sys


def winner(values):
    n = len(values)
    best = [0] * (n + 1)  # best[i]: the mover's margin over the other from i on
    for i in range(n - 1, -1, -1):
        take, best[i] = 0, None
        for k in range(i, min(i + 3, n)):
            take += values[k]
            if best[i] is None or take - best[k + 1] > best[i]:
                best[i] = take - best[k + 1]
    return "Alice" if best[0] > 0 else "Bob" if best[0] < 0 else "Tie"


for line in sys.stdin:
    print(json.dumps(winner(json.loads(line)["stoneValue"])))
