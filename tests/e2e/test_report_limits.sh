#!/bin/sh
# test_report_limits.sh CAIRN PLUGINS
#
# `cairn report` on what a big or damaged run gives it, through the real
# client over results files (the bulk path):
#   1. memory bounded whatever the number of mismatches: 60,000 of them,
#      the text, --json (every mismatch, one object) and --mismatches all
#      with --html, each under an address-space limit (ulimit -v) of the
#      client's own baseline on a one-mismatch file plus 16 MiB, where
#      keeping every mismatch (about 1 KB each) would need 60 MB;
#   2. a results line too long for memory, or its record's, is named
#      (file and line) and the report fails; a line that is not JSON is
#      named and counted;
#   3. --json gives job names and ids byte for byte when they are UTF-8
#      (not the printable escaping of the text), and a job name that is
#      not UTF-8 escaped with "job_escaped": true;
#   4. (with 1) ids that are not cairn gen's give at most 64 traps a
#      variant, the rest pooled as "(other)";
#   5. a plugin refused while solving the smallest inputs again is logged
#      as the report's ("report: plugin refused"), not gen's.
# The baseline is measured, not assumed (as test_client_memory.c does):
# the least limit, to 1 MiB, under which the report of one mismatch runs.
# Under a sanitizer no limit lets the client start: the limited cases
# then say so and are skipped.
# Exit status: 0 pass, 1 fail.
set -u
cairn=$1 plugins=$2
fail() { echo "FAIL: $*"; exit 1; }

tmp=$(mktemp -d /tmp/cairn-test-report-limits-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

printf '{"plugin_dir": "%s"}\n' "$plugins" >"$tmp/c.json"
# N records of stone-game-iii and their result lines, every one a
# mismatch: the candidate said "Bob", cairn "Alice".
corpus() {
    awk -v n="$1" -v rec="$2" -v res="$3" 'BEGIN {
        for (i = 1; i <= n; i++) {
            printf "{\"id\":\"r-%d\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[%d,2,3]},\"expected\":\"Bob\"}\n", i, i % 50 + 1 > rec
            printf "{\"line\":%d,\"id\":\"r-%d\",\"variant\":\"stone-game-iii\",\"status\":\"ok\",\"answer\":\"Alice\",\"match\":false,\"expected\":\"Bob\"}\n", i, i > res
        }
    }'
}
corpus 1 "$tmp/one.jsonl" "$tmp/one.results.jsonl"
corpus 60000 "$tmp/big.jsonl" "$tmp/big.results.jsonl"

# `cairn report ARGS` under a limit of $1 KiB (0: none).
limited() {
    kib=$1
    shift
    if [ "$kib" -gt 0 ]; then
        (ulimit -v "$kib" && exec "$cairn" -c "$tmp/c.json" report "$@")
    else
        "$cairn" -c "$tmp/c.json" report "$@"
    fi
}
# Ran, and whole: the plugins loaded for the line of play (under too low
# a limit they do not, and the report says "not computed").
runs_under() {
    limited "$1" "$tmp/one.results.jsonl" --inputs "$tmp/one.jsonl" --html "$tmp/one.html" \
        >"$tmp/one.txt" 2>/dev/null && grep -q "optimal line of play: \[" "$tmp/one.txt"
}
base=0 kib=4096
while [ "$kib" -le 1048576 ]; do
    if runs_under "$kib"; then
        lo=$((kib / 2)) hi=$kib
        while [ $((hi - lo)) -gt 1024 ]; do
            mid=$(((lo + hi) / 2))
            if runs_under "$mid"; then hi=$mid; else lo=$mid; fi
        done
        base=$hi
        break
    fi
    kib=$((kib * 2))
done
if [ "$base" -eq 0 ]; then
    echo "note: cairn runs under no address-space limit up to 1 GiB (a sanitizer build?):" \
        "the limited cases are skipped"
    limit=0
else
    limit=$((base + 16384))
    echo "baseline $base KiB; limit $limit KiB"
fi

# ---- 1. memory bounded by what is shown, not by the mismatches
limited "$limit" "$tmp/big.results.jsonl" --inputs "$tmp/big.jsonl" >"$tmp/text.txt" \
    2>"$tmp/text.err" || fail "report (text) under $limit KiB: $(cat "$tmp/text.err")"
grep -q '^mismatches of stone-game-iii: 60000, 10 shown$' "$tmp/text.txt" ||
    fail "text: no 60000 mismatches, 10 shown: $(grep mismatches "$tmp/text.txt")"
grep -q "optimal line of play: \[" "$tmp/text.txt" || fail "text: no line of play"
limited "$limit" "$tmp/big.results.jsonl" --inputs "$tmp/big.jsonl" --json >"$tmp/big.json" \
    2>"$tmp/json.err" || fail "report --json under $limit KiB: $(cat "$tmp/json.err")"
limited "$limit" "$tmp/big.results.jsonl" --inputs "$tmp/big.jsonl" --mismatches all \
    --html "$tmp/all.html" >"$tmp/all.txt" 2>"$tmp/all.err" ||
    fail "report --mismatches all --html under $limit KiB: $(cat "$tmp/all.err")"
python3 - "$tmp" <<'PY' || exit 1
import json, os, re, sys
tmp = sys.argv[1]
js = json.load(open(os.path.join(tmp, "big.json")))
mm = js["mismatches"]
assert len(mm) == 60000, len(mm)
assert [m["line"] for m in mm] == list(range(1, 60001)), "mismatches out of order"
assert mm[41] == {"variant": "stone-game-iii", "job": "big", "line": 42, "id": "r-42",
                  "given": "Bob", "exact": "Alice"}, mm[41]
assert js["totals"]["mismatches"] == 60000, js["totals"]
small = js["smallest"][0]
assert small["input"] == {"stoneValue": [1, 2, 3]} and small["line"] == 50, small
text = open(os.path.join(tmp, "all.txt")).read()
rows = [l for l in text.splitlines() if re.match(r"  big +[0-9]+  \"r-[0-9]+\" +\"Bob\" +\"Alice\" ", l)]
assert len(rows) == 60000, len(rows)
assert "mismatches of stone-game-iii: 60000, 60000 shown" in text
page = open(os.path.join(tmp, "all.html")).read()
assert page.count('<div class="rec"') == 60000, page.count('<div class="rec"')
PY

# Traps are names from the ids: ids that are not cairn gen's may give one
# per record; past 64 a variant's others are pooled, not kept one by one.
awk 'BEGIN { for (i = 1; i <= 200; i++)
    printf "{\"line\":%d,\"id\":\"rec:%d\",\"variant\":\"stone-game-iii\",\"status\":\"ok\",\"answer\":\"Alice\",\"match\":%s,\"expected\":\"Alice\"}\n", i, i, i % 4 ? "true" : "false"
}' >"$tmp/traps.results.jsonl"
"$cairn" -c "$tmp/c.json" report "$tmp/traps.results.jsonl" --json >"$tmp/traps.json" \
    2>"$tmp/traps.err" || fail "report of 200 traps: $(cat "$tmp/traps.err")"
python3 - "$tmp/traps.json" <<'PY' || exit 1
import json, sys
t = json.load(open(sys.argv[1]))["by_trap"]
assert len(t) == 65, len(t)
assert [x["trap"] for x in t[:64]] == [str(i) for i in range(1, 65)], t[:3]
assert t[64]["trap"] == "(other)" and t[64]["checked"] == 136, t[64]
assert sum(x["matches"] for x in t) == 150, t
PY

# ---- 2. lines that cannot be read are named, never taken for the end
cp "$tmp/one.results.jsonl" "$tmp/damaged.results.jsonl"
printf '{"line":2,"id":"x"\n' >>"$tmp/damaged.results.jsonl"
sed -n 1p "$tmp/big.results.jsonl" >>"$tmp/damaged.results.jsonl"
"$cairn" -c "$tmp/c.json" report "$tmp/damaged.results.jsonl" >"$tmp/damaged.txt" \
    2>"$tmp/damaged.err" || fail "report of a damaged file: $(cat "$tmp/damaged.err")"
grep -q "damaged.results.jsonl:2: not a JSON result line" "$tmp/damaged.err" ||
    fail "the damaged line is not named: $(cat "$tmp/damaged.err")"
grep -q "^damaged: 1 results line not JSON" "$tmp/damaged.txt" ||
    fail "the text does not count the damaged line"
grep -q "^mismatches of stone-game-iii: 2, 2 shown" "$tmp/damaged.txt" ||
    fail "the line after the damaged one is not read: $(grep mismatches "$tmp/damaged.txt")"
if [ "$limit" -gt 0 ]; then
    # A line of 64 MiB: more than the limit leaves.
    cp "$tmp/one.results.jsonl" "$tmp/long.results.jsonl"
    cp "$tmp/one.jsonl" "$tmp/long.jsonl"
    { printf '{"line":2,"id":"'; head -c 67108864 /dev/zero | tr '\0' x; printf '"}\n'; } |
        tee -a "$tmp/long.jsonl" >>"$tmp/long.results.jsonl"
    sed -n 1p "$tmp/big.results.jsonl" >>"$tmp/long.results.jsonl"
    if limited "$limit" "$tmp/long.results.jsonl" >/dev/null 2>"$tmp/long.err"; then
        fail "a results line too long for memory was taken for the end of the file"
    fi
    grep -q "long.results.jsonl:2: cannot read the line: it does not fit in memory" \
        "$tmp/long.err" || fail "the long line is not named: $(cat "$tmp/long.err")"
    # The record behind a result line, too long in --inputs.
    corpus 3 "$tmp/r3.jsonl" "$tmp/r3.results.jsonl"
    { sed -n 1p "$tmp/r3.jsonl"; sed -n 2p "$tmp/long.jsonl"; sed -n 3p "$tmp/r3.jsonl"; } \
        >"$tmp/r3long.jsonl"
    if limited "$limit" "$tmp/r3.results.jsonl" --inputs "$tmp/r3long.jsonl" >/dev/null \
        2>"$tmp/r3.err"; then
        fail "a record too long for memory was taken for the end of the inputs"
    fi
    grep -q "r3.results.jsonl:2: its record, line 2 of the job's records, cannot be read" \
        "$tmp/r3.err" || fail "the long record is not named: $(cat "$tmp/r3.err")"
fi

# ---- 3. --json: names and ids byte for byte
name=$(printf 'j\007\303\251')
bad=$(printf 'k\377')
for f in "$name" "$bad"; do
    printf '{"line":1,"id":"i\\u0007\\u00e9\\t","variant":"stone-game-iii","status":"ok","answer":"Alice","match":false,"expected":"Bob"}\n' \
        >"$tmp/$f.results.jsonl"
done
"$cairn" -c "$tmp/c.json" report "$tmp/$name.results.jsonl" "$tmp/$bad.results.jsonl" --json \
    >"$tmp/names.json" 2>"$tmp/names.err" || fail "report --json: $(cat "$tmp/names.err")"
python3 - "$tmp/names.json" <<'PY' || exit 1
import json, sys
mm = json.load(open(sys.argv[1]))["mismatches"]
assert len(mm) == 2, mm
assert mm[0]["job"] == "j\x07\u00e9" and "job_escaped" not in mm[0], mm[0]
assert mm[0]["id"] == "i\x07\u00e9\t", mm[0]
assert mm[1]["id"] == "i\x07\u00e9\t", mm[1]
assert mm[1]["job_escaped"] is True and mm[1]["job"].startswith("k") and mm[1]["job"] != "k", mm[1]
assert all(ord(c) < 128 for c in mm[1]["job"]), mm[1]
PY

# ---- 5. the report's own name on plugins refused
mkdir "$tmp/plugins"
cp "$plugins"/*.so "$tmp/plugins/"
printf 'not a plugin\n' >"$tmp/plugins/zz-junk.so"
printf '{"plugin_dir": "%s"}\n' "$tmp/plugins" >"$tmp/junk.json"
"$cairn" -c "$tmp/junk.json" report "$tmp/one.results.jsonl" --inputs "$tmp/one.jsonl" \
    >"$tmp/junk.txt" 2>"$tmp/junk.err" || fail "report with a junk plugin: $(cat "$tmp/junk.err")"
grep -q "report: plugin refused: .*zz-junk.so" "$tmp/junk.err" ||
    fail "the refusal is not the report's: $(cat "$tmp/junk.err")"
! grep -q "gen: " "$tmp/junk.err" || fail "the report logs as gen: $(cat "$tmp/junk.err")"
grep -q "optimal line of play: \[" "$tmp/junk.txt" ||
    fail "the line of play is not computed with the other plugins"
echo "ok"
