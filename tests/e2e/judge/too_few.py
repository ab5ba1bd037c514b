#!/usr/bin/env python3
"""cairn judge test candidate: answers the first input only, exits 0."""
import sys

sys.stdin.readline()
print('"Alice"')
sys.stderr.write("too_few: stopping early " + sys.argv[1] + "\n")
