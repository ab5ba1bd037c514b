#!/bin/sh
# test_once_age.sh CAIRND PLUGIN_DIR - `cairnd --once` and files copied in
# just before it starts.  --once cannot tell a file whose
# writer has closed it from one still being written (no inotify history
# from before it started), so it takes a file once its mtime is
# min_age_ms old, and says so where --once is documented (--help here;
# README and cairnd(8) alike); "min_age_ms": 0 takes everything at once.
# Exit 0 pass, 1 fail.
set -u
cairnd=$1 plugins=$2
tmp=$(mktemp -d /tmp/cairn-test-once-age-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }

"$cairnd" --help >"$tmp/help" 2>&1 || fail "--help failed"
grep -A 3 -- '--once' "$tmp/help" | grep -q 'min_age_ms' ||
    fail "--help does not say that --once waits min_age_ms: $(cat "$tmp/help")"
echo "ok: --help says --once waits for min_age_ms"

# once MIN_AGE_MS [TOUCH_DATE]: a file copied in just now (or with its mtime
# set to TOUCH_DATE), then --once, which must take it; prints the ms from
# before the copy to the exit.
once() {
    rm -rf "$tmp/in" "$tmp/out"
    mkdir "$tmp/in"
    printf '{"min_age_ms": %s, "log_level": "warning"}\n' "$1" >"$tmp/c.json"
    t0=$(now_ms)
    printf '{"variant":"877","input":{"piles":[5,3,4,5]}}\n' >"$tmp/in/fresh.jsonl"
    [ -z "${2:-}" ] || touch -d "$2" "$tmp/in/fresh.jsonl"
    "$cairnd" --once -c "$tmp/c.json" --input "$tmp/in" --output "$tmp/out" --plugins "$plugins" \
        2>"$tmp/err" || fail "--once (min_age_ms $1) exited $?: $(cat "$tmp/err")"
    t1=$(now_ms)
    [ -f "$tmp/out/fresh.summary.json" ] || fail "--once (min_age_ms $1) did not take the file"
    echo $((t1 - t0))
}
# A lower bound only: taken no sooner than min_age_ms after its mtime,
# which is no earlier than t0 (less the file system clock's tick).
waited=$(once 3000) || exit 1
[ "$waited" -ge 2990 ] || fail "--once took a 0 s old file after $waited ms with min_age_ms 3000"
echo "ok: a file copied in just before --once is taken once min_age_ms old ($waited ms)"
# No clock: an hour-old file is old enough under a ten-minute min_age_ms
# (a run that waited those ten minutes would outlast the test's timeout),
# and min_age_ms 0 takes a file copied in this instant.
once 600000 '1 hour ago' >/dev/null || exit 1
echo "ok: a file older than min_age_ms is taken at once"
once 0 >/dev/null || exit 1
echo "ok: with min_age_ms 0 a fresh file is taken"
