#!/usr/bin/env python3
"""Hand-off latency: rename a one-record job into a running daemon's spool,
time until its summary is visible.  Jobs go one at a time: the next is
dropped once the previous one has finished (its input in .cairn/done/,
after the output directory's sync), so each job is alone, as in the
disk floor's "alone" run (bench-floor-disk), and each figure is a full
round trip: inotify -> claim -> solve -> fsync'd results and summary.
Dropping the next as soon as the summary appears would time it against
the previous job's directory sync and moves, still under way, which the
floor's jobs never meet.

The summary's arrival is waited for with inotify, not by polling: a loop
testing for the file took one of the machine's two vCPUs from the daemon
it measured (p99 on tmpfs 3.4-7.7 ms where the daemon needed 0.7), and a
sleep between tests adds its own granularity to every figure.

usage: handoff.py CAIRND PLUGIN_DIR [JOBS [DIR]]
       handoff.py --floor BENCH_FLOOR_DISK [JOBS [DIR]]
  DIR: where the spool and outputs go (default: the temporary directory);
  /dev/shm (tmpfs) leaves out the disk, so what remains is the daemon's.
  --floor: the disk's floor served the same way ("bench-floor-disk serve":
  one C thread woken by inotify doing the same file work), timed exactly
  as cairnd is, wake-ups and all.
"""
import ctypes
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

floor = sys.argv[1] == "--floor"
cairnd, plugins = (sys.argv[2], None) if floor else (sys.argv[1], sys.argv[2])
jobs = int(sys.argv[3]) if len(sys.argv) > 3 else 500
parent = sys.argv[4] if len(sys.argv) > 4 else None
record = b'{"variant":"stone-game-iii","input":{"stoneValue":[1,2,3,7]}}\n'
IN_MOVED_TO, IN_CLOEXEC = 0x80, 0o2000000


def watch(*directories):
    """An inotify descriptor reporting names renamed into directories."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(IN_CLOEXEC)
    if fd < 0:
        sys.exit(f"cannot watch: {os.strerror(ctypes.get_errno())}")
    for directory in directories:
        if libc.inotify_add_watch(fd, os.fsencode(directory), IN_MOVED_TO) < 0:
            sys.exit(f"cannot watch {directory}: {os.strerror(ctypes.get_errno())}")
    return fd


def wait_for(path, fd, t0):
    """Until path exists: each event renamed into a watched directory
    wakes us to look (the watch was set before the job went in, so none is
    missed)."""
    while not os.path.exists(path):
        left = 10 - (time.perf_counter() - t0)
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            sys.exit(f"{os.path.basename(path)}: not there after 10 s")
        os.read(fd, 65536)

with tempfile.TemporaryDirectory(prefix="cairn-handoff-", dir=parent) as root:
    spool, out = os.path.join(root, "in"), os.path.join(root, "out")
    os.mkdir(spool)
    conf = os.path.join(root, "cairn.json")
    with open(conf, "w") as f:
        f.write('{"log_level": "warning", "metrics_interval_s": 0}')
    daemon = subprocess.Popen([cairnd, "serve", str(jobs), spool, out] if floor else
                              [cairnd, "-c", conf, "--input", spool, "--output", out,
                               "--plugins", plugins])
    try:
        deadline = time.monotonic() + 10
        while not os.path.isdir(os.path.join(spool, ".cairn", "active")):
            if time.monotonic() > deadline:
                sys.exit(f"{os.path.basename(cairnd)} did not start")
            time.sleep(0.01)
        time.sleep(0.2)
        while not os.path.isdir(out):
            if time.monotonic() > deadline:
                sys.exit(f"{os.path.basename(cairnd)} made no output directory")
            time.sleep(0.01)
        done = os.path.join(spool, ".cairn", "done")
        events = watch(out, done)
        lat = []
        for i in range(jobs):
            tmp = os.path.join(spool, f".j{i}.tmp")
            with open(tmp, "wb") as f:
                f.write(record)
            summary = os.path.join(out, f"j{i}.summary.json")
            t0 = time.perf_counter()
            os.rename(tmp, os.path.join(spool, f"j{i}.jsonl"))
            wait_for(summary, events, t0)
            lat.append((time.perf_counter() - t0) * 1000)
            wait_for(os.path.join(done, f"j{i}.jsonl"), events, t0)
    finally:
        daemon.terminate()
        daemon.wait()
    lat.sort()
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"{'floor, served, ' if floor else ''}hand-off latency over {jobs} one-record jobs "
          f"(rename-in -> summary visible): median {statistics.median(lat):.2f} ms, "
          f"p99 {p99:.2f} ms, max {lat[-1]:.2f} ms")
