#!/bin/sh
# test_readme_walkthrough.sh SRCDIR BUILDDIR - runs the walk-through of
# docs/walkthrough.md (linked from the README) as written and checks what
# a reader is told it does.
#
# The block is the fenced one after the line
#   <!-- walkthrough: tests/docs/test_readme_walkthrough.sh runs the next block as written -->
# It runs with `sh -e` in a scratch directory holding `build` (a link to
# BUILDDIR) and `examples` (a link to SRCDIR/examples), i.e. what "the top
# of a built tree" looks like to it, in a session of its own, so whatever
# it starts is stopped afterwards even when it fails half-way.
set -u
src=$1 builddir=$2
fail() { echo "FAIL: $*"; [ -f "$tmp/out.txt" ] && sed 's/^/    /' "$tmp/out.txt"; exit 1; }

tmp=$(mktemp -d /tmp/cairn-test-walkthrough-XXXXXX)
pgid=""
cleanup() {
    [ -n "$pgid" ] && kill -TERM -- "-$pgid" 2>/dev/null
    rm -rf "$tmp" "$tmp.before"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

awk '
    /^<!-- walkthrough: tests\/docs\/test_readme_walkthrough.sh runs the next block as written -->$/ { marker = 1; next }
    marker == 1 && /^```sh$/ { marker = 2; next }
    marker == 2 && /^```$/ { exit }
    marker == 2 { print }
' "$src/docs/walkthrough.md" >"$tmp/walk.sh"
[ -s "$tmp/walk.sh" ] || fail "docs/walkthrough.md has no walk-through block after the marker"
grep -q 'cairn -c walk/cairn.json report' "$tmp/walk.sh" || fail "the block lost its report step"

ln -s "$builddir" "$tmp/build"
ln -s "$src/examples" "$tmp/examples"
: >"$tmp/out.txt"
(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort) >"$tmp.before"
(
    cd "$tmp" || exit 1
    exec setsid sh -e walk.sh >out.txt 2>&1 </dev/null
) &
pgid=$!
# The block runs in well under a second; a hang is a failure, not a wait.
i=0
while kill -0 "$pgid" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$pgid" 2>/dev/null && fail "the walk-through did not finish in 60 s"
wait "$pgid"
rc=$?
[ "$rc" -eq 0 ] || fail "the walk-through exited $rc"
# What it left at the top of the tree: a reader's clone must show none of
# it in `git status`.
left=$(sh "$src/tests/docs/unignored.sh" "$src" "$tmp" "$tmp.before" | paste -sd ' ' -)
[ -z "$left" ] || fail "the walk-through leaves what .gitignore does not ignore: $left"

# What the page says each step prints.  The counts come from the
# example files and the summaries, so the examples may grow.
expect() {
    grep -E -q -- "$1" "$tmp/out.txt" || fail "no line matching /$1/ in its output"
}
expect_text() {
    grep -F -q -- "$1" "$tmp/out.txt" || fail "no line holding \"$1\" in its output"
}
records() { grep -c '[^[:space:]]' "$src/examples/$1"; }
graded() { grep -c '"expected"' "$src/examples/$1"; }
off=$(records official.jsonl)
off_graded=$(graded official.jsonl)
ext=$(records extended.jsonl)
expect "^official-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}: ok, $off records: $off ok, 0 errors; given vs exact answers: $off_graded match, 0 differ "
expect "^extended: ok, $ext records: $ext ok, 0 errors; given vs exact answers: $(graded extended.jsonl) match, 0 differ "
expect '^cairn: examples/errors.jsonl:[0-9]+: not a JSON lines job file: '
expect '^refused: exit 2$'
expect "^errors: ok, $(records errors.jsonl) records: [0-9]+ ok, [1-9][0-9]* errors"
expect_text "{\"line\":1,\"input\":$(head -n 1 "$src/examples/extended.jsonl"),\"result\":{\"line\":1,"
expect '^linked: failed: linked.jsonl is a symbolic link'
expect '^failed: exit 1$'
expect '^failed:  1$'
expect '^linked: requeued$'
expect "^linked: ok, $off records: $off ok, 0 errors"
totals=$(python3 - "$tmp/walk/out" <<'PY'
import glob, json, os, sys
s = [json.load(open(p)) for p in glob.glob(os.path.join(sys.argv[1], "*.summary.json"))]
r, o = sum(x["records"] for x in s), sum(x["ok"] for x in s)
print(f"^jobs: {len(s)} \\(4 ok, 0 failed\\); records: {r}, ok {o}, errors {r - o}$")
PY
)
expect "$totals"
expect '^accuracy of the given answers: [0-9]+ checked: [0-9]+ match, 0 differ \(100.0%\)$'
[ -s "$tmp/walk/report.html" ] || fail "walk/report.html was not written"
# `kill "$daemon"` at its end stops the daemon cleanly.
i=0
while ! grep -q 'stopped: ' "$tmp/walk/cairnd.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
grep -q 'stopped: ' "$tmp/walk/cairnd.log" || fail "the daemon did not stop: $(tail -3 "$tmp/walk/cairnd.log")"
echo "ok: the walk-through of docs/walkthrough.md runs as written ($(grep -c . "$tmp/walk.sh") lines)"
