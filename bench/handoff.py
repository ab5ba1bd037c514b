#!/usr/bin/env python3
"""Hand-off latency: rename a one-record job into a running daemon's spool,
time until its summary is visible.  Jobs go one at a time (the next is
dropped once the previous summary appears), so each figure is a full
round trip: inotify -> claim -> solve -> fsync'd results and summary.

usage: handoff.py CAIRND PLUGIN_DIR [JOBS [DIR]]
  DIR: where the spool and outputs go (default: the temporary directory);
  /dev/shm (tmpfs) leaves out the disk, so what remains is the daemon's.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

cairnd, plugins = sys.argv[1], sys.argv[2]
jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 500
parent = sys.argv[4] if len(sys.argv) > 4 else None
record = b'{"variant":"stone-game-iii","input":{"stoneValue":[1,2,3,7]}}\n'

with tempfile.TemporaryDirectory(prefix="cairn-handoff-", dir=parent) as root:
    spool, out = os.path.join(root, "in"), os.path.join(root, "out")
    os.mkdir(spool)
    conf = os.path.join(root, "cairn.json")
    with open(conf, "w") as f:
        f.write('{"log_level": "warning", "metrics_interval_s": 0}')
    daemon = subprocess.Popen([cairnd, "-c", conf, "--input", spool, "--output", out,
                               "--plugins", plugins])
    try:
        deadline = time.monotonic() + 10
        while not os.path.isdir(os.path.join(spool, ".cairn", "active")):
            if time.monotonic() > deadline:
                sys.exit("cairnd did not start")
            time.sleep(0.01)
        time.sleep(0.2)
        lat = []
        for i in range(jobs):
            tmp = os.path.join(spool, f".job{i}.tmp")
            with open(tmp, "wb") as f:
                f.write(record)
            summary = os.path.join(out, f"job{i}.summary.json")
            t0 = time.perf_counter()
            os.rename(tmp, os.path.join(spool, f"job{i}.jsonl"))
            while not os.path.exists(summary):
                if time.perf_counter() - t0 > 10:
                    sys.exit(f"job{i}: no summary after 10 s")
            lat.append((time.perf_counter() - t0) * 1000)
    finally:
        daemon.terminate()
        daemon.wait()
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"hand-off latency over {jobs} one-record jobs (rename-in -> summary visible): "
          f"median {statistics.median(lat):.2f} ms, p99 {p99:.2f} ms, max {lat[-1]:.2f} ms")
