"""Another revision of cairn, built beside this tree for a side-by-side
run: bench/compare (cairnd --filter) and bench/run --baseline (durable
jobs) use it."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "build-bench")


def sh(*args, **kw):
    return subprocess.run(args, check=True, **kw)


def build(src, out):
    """A release build of the tree at src in out; returns (cairnd, plugins)."""
    if not os.path.exists(os.path.join(out, "build.ninja")):
        sh("meson", "setup", out, src, "--buildtype=release", stdout=subprocess.DEVNULL)
    sh("meson", "compile", "-C", out, stdout=subprocess.DEVNULL)
    plugins = os.path.join(out, "plugins")
    os.chmod(plugins, 0o755)  # cairnd refuses a group-writable plugin directory
    return os.path.join(out, "core", "cairnd"), plugins


def worktree(rev):
    """REV checked out (detached) under build-bench/compare-src-REV/."""
    sha = sh("git", "-C", ROOT, "rev-parse", "--short=12", rev, capture_output=True,
             text=True).stdout.strip()
    path = os.path.join(BENCH, f"compare-src-{sha}")
    if not os.path.exists(path):
        sh("git", "-C", ROOT, "worktree", "add", "--detach", path, sha, stdout=subprocess.DEVNULL,
           stderr=subprocess.DEVNULL)
    return sha, path


def build_rev(rev):
    """REV's release build under build-bench/compare-SHA/: (sha, cairnd, plugins)."""
    sha, src = worktree(rev)
    cairnd, plugins = build(src, os.path.join(BENCH, f"compare-{sha}"))
    return sha, cairnd, plugins
