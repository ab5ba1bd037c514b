#!/bin/sh
# `cairnd --once` draws a progress line on a terminal (jobs, records,
# records/s, ETA) and stays quiet off one.  script(1) provides the terminal.
# usage: test_progress.sh CAIRND PLUGIN_DIR SLOW_SO; exit 77 = skipped.
# SLOW_SO is the test plugin "slow" (tests/plugins/live_plugins/slow.c).
set -u
cairnd=$1 slow=$3
command -v script >/dev/null 2>&1 || { echo "script(1) is not installed: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/cairn-test-progress-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/slow" && cp "$slow" "$tmp/slow/" || fail "cannot copy $slow"
plugins=$2:$tmp/slow

make_spool() {
    rm -rf "$tmp/in" "$tmp/out"
    mkdir "$tmp/in"
    i=0
    while [ $i -lt 3 ]; do
        # A run that lasts several progress ticks however fast the real
        # solvers are: records of "slow" that sleep 5 ms, 1.5 s in all.
        awk 'BEGIN { for (n = 0; n < 100; n++)
                 print "{\"variant\":\"slow\",\"input\":{\"values\":[5]}}" }' >"$tmp/in/j$i.jsonl"
        i=$((i + 1))
    done
}
printf '{"min_age_ms": 0, "log_level": "warning"}' >"$tmp/c.json"

make_spool
script -qec "'$cairnd' --once --threads 1 -c '$tmp/c.json' --input '$tmp/in' --output '$tmp/out' --plugins '$plugins'" \
    /dev/null >"$tmp/tty.log" 2>&1 </dev/null || fail "cairnd --once on a terminal failed: $(cat "$tmp/tty.log")"
tr '\r' '\n' <"$tmp/tty.log" >"$tmp/tty.lines"
grep -q 'cairnd: 3/3 jobs, 300 records, [0-9]* records/s, .* MiB, ETA ' "$tmp/tty.lines" ||
    fail "no final progress line on a terminal: $(tail -c 400 "$tmp/tty.lines")"
ticks=$(grep -c 'records/s' "$tmp/tty.lines")
[ "$ticks" -ge 2 ] || fail "the progress line was drawn $ticks time(s); expected live updates"
echo "ok: progress line on a terminal ($ticks draws)"

make_spool
"$cairnd" --once --threads 1 -c "$tmp/c.json" --input "$tmp/in" --output "$tmp/out" \
    --plugins "$plugins" >"$tmp/plain.out" 2>"$tmp/plain.err" || fail "cairnd --once failed"
if grep -q 'records/s' "$tmp/plain.err" "$tmp/plain.out"; then
    fail "progress drawn off a terminal: $(cat "$tmp/plain.err")"
fi
[ ! -s "$tmp/plain.err" ] || fail "unexpected output off a terminal at log_level warning: $(cat "$tmp/plain.err")"
echo "ok: quiet off a terminal"
