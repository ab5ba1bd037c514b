#!/usr/bin/env python3
"""cairn judge test candidate: prints something that is not JSON (its
stderr line first: cairn may end it as soon as its lines are in)."""
import sys

sys.stderr.write("garbage: answering in words " + sys.argv[1] + "\n")
sys.stderr.flush()
for line in sys.stdin:
    print("the answer is Alice")
