#!/usr/bin/env python3
"""inputs.py CORPUS: each record's "input" object, one per line, as
`cairn judge` feeds a candidate (LeetCode's parameter names)."""
import json
import sys

if len(sys.argv) != 2:
    sys.exit("usage: inputs.py CORPUS > INPUTS")
with open(sys.argv[1], encoding="utf-8") as corpus:
    for n, line in enumerate(corpus, 1):
        try:
            print(json.dumps(json.loads(line)["input"], separators=(",", ":")))
        except (ValueError, KeyError, TypeError) as e:
            sys.exit(f"inputs.py: {sys.argv[1]}:{n}: no record with an input: {e}")
