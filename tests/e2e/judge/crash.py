#!/usr/bin/env python3
"""cairn judge test candidate: answers one input, then dies of SIGSEGV."""
import os
import signal
import sys

sys.stdin.readline()
print('"Alice"', flush=True)
sys.stderr.write("crash: about to fault " + sys.argv[1] + "\n")
sys.stderr.flush()
os.kill(os.getpid(), signal.SIGSEGV)
