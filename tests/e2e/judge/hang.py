#!/usr/bin/env python3
"""cairn judge test candidate: answers nothing and never ends, and leaves a
forked child asleep too; argv[1] is a marker the test looks for in /proc."""
import os
import sys
import time

sys.stdin.readline()
sys.stderr.write("hang: waiting forever " + sys.argv[1] + "\n")
sys.stderr.flush()
if os.fork() == 0:
    os.setpgid(0, 0)  # a group of its own: killing the candidate's must still reach it
    while True:
        time.sleep(1000)
while True:
    time.sleep(1000)
