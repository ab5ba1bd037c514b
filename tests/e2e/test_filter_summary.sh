#!/bin/sh
# test_filter_summary.sh CAIRND PLUGIN_DIR - the counts a --filter run ends
# with on stderr: with --summary, and by default on a terminal;
# nothing off a terminal without it; stdout holds only result lines.  Also
# that a mismatch carries "expected" beside "answer" and that a record with
# "expected" that ends in an error counts as "unchecked".
# Exit 0 pass, 1 fail, 77 skip.
set -u
cairnd=$1 plugins=$2
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d /tmp/cairn-test-filter-summary-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 2 ok (one match, one mismatch), 1 bad_json, 1 constraint with expected
# (unchecked), 1 unknown_variant without expected, a blank line.
cat >"$tmp/in.jsonl" <<'J'
{"id":1,"variant":"877","input":{"piles":[5,3,4,5]},"expected":true}
{"id":2,"variant":"stone-game-iii","input":{"stoneValue":[1,2,3,7]},"expected":"Alice"}
not json

{"id":4,"variant":"877","input":{"piles":[5,3,4]},"expected":true}
{"id":5,"variant":"no-such-game","input":{"piles":[1]}}
J
printf '{"log_level":"warning"}\n' >"$tmp/c.json"

"$cairnd" --filter --summary -c "$tmp/c.json" --plugins "$plugins" <"$tmp/in.jsonl" \
    >"$tmp/out" 2>"$tmp/err" || fail "cairnd --filter --summary exited $?: $(cat "$tmp/err")"
python3 - "$tmp/out" "$tmp/err" <<'PY' || exit 1
import json, sys
out = [json.loads(l) for l in open(sys.argv[1])]
err = open(sys.argv[2]).read().splitlines()
def fail(m):
    print("FAIL:", m); sys.exit(1)
if len(out) != 5 or any("records" in r for r in out):
    fail(f"stdout is not the 5 result lines: {out}")
mis = out[1]
if mis.get("match") is not False or mis.get("answer") != "Bob" or mis.get("expected") != "Alice":
    fail(f"a mismatch does not carry expected beside answer: {mis}")
if "expected" in out[0]:
    fail(f"a match carries expected: {out[0]}")
if not err:
    fail("nothing on stderr with --summary")
s = json.loads(err[-1])
want = {"records": 5, "ok": 2, "matches": 1, "mismatches": 1, "unchecked": 1}
for k, v in want.items():
    if s.get(k) != v:
        fail(f"summary {k} = {s.get(k)}, want {v}: {err[-1]}")
e = s["errors"]
if (e.get("bad_json"), e.get("constraint"), e.get("unknown_variant"), e.get("invalid_input")) != (1, 1, 1, 0):
    fail(f"errors by code wrong: {e}")
for k in ("wall_seconds", "solve_seconds"):
    if not isinstance(s.get(k), (int, float)):
        fail(f"summary lacks {k}: {err[-1]}")
# Per variant, as a job's summary has it: the unresolved under "none".
by = s.get("by_variant")
want_by = {"stone-game": (2, 1, 1), "stone-game-iii": (1, 1, 0), "none": (2, 0, 2)}
if not isinstance(by, dict) or {k: (v["records"], v["ok"], v["errors"]) for k, v in by.items()} != want_by:
    fail(f"by_variant = {by}, want records/ok/errors {want_by}")
if any(not isinstance(v.get("solve_seconds"), (int, float)) for v in by.values()):
    fail(f"by_variant lacks solve_seconds: {by}")
# Each variant's solves by solve time: 12 buckets (cairn_solve_seconds'
# bounds), one count per solve; and its solved records by input size.
for k, v in by.items():
    h = v.get("solve_histogram")
    if not isinstance(h, list) or len(h) != 12 or sum(h) != v["ok"]:
        fail(f"{k}: solve_histogram {h} does not count its {v['ok']} solves in 12 buckets")
if by["stone-game"]["by_size"] != [{"min": 3, "max": 4, "ok": 1, "checked": 1, "matches": 1}]:
    fail(f"stone-game by_size = {by['stone-game']['by_size']}: want its one solved record of 4 piles, a match")
if by["none"]["by_size"] != []:
    fail(f"records never solved have a size: {by['none']['by_size']}")
print("ok: --summary counts records, ok, errors by code, by variant, matches, mismatches, unchecked,")
print("ok: solves by solve time and records by input size")
PY

# Sizes: the longest array, or a game's only number; buckets 1, 2, 3-4,
# 5-8, ... and an open last one.
cat >"$tmp/sizes.jsonl" <<'J'
{"variant":"stone-game-iii","input":{"stoneValue":[1]},"expected":"Alice"}
{"variant":"stone-game-iii","input":{"stoneValue":[1,2,3,4,5,6,7,8,9]},"expected":"Tie"}
{"variant":"stone-game-iii","input":{"stoneValue":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}}
{"variant":"stone-removal-game","input":{"n":12},"expected":true}
{"variant":"stone-removal-game","input":{"n":1},"expected":false}
J
"$cairnd" --filter --summary -c "$tmp/c.json" --plugins "$plugins" <"$tmp/sizes.jsonl" \
    >/dev/null 2>"$tmp/err4" || fail "cairnd --filter --summary on sizes exited $?: $(cat "$tmp/err4")"
python3 - "$tmp/err4" <<'PY' || exit 1
import json, sys
by = json.loads(open(sys.argv[1]).read().splitlines()[-1])["by_variant"]
def rows(v):
    return [(b["min"], b["max"], b["ok"], b["checked"], b["matches"]) for b in by[v]["by_size"]]
want = {"stone-game-iii": [(1, 1, 1, 1, 1), (9, 16, 2, 1, 0)],
        "stone-removal-game": [(1, 1, 1, 1, 1), (9, 16, 1, 1, 1)]}
for v, w in want.items():
    if rows(v) != w:
        print(f"FAIL: {v} by_size {rows(v)}, want (min, max, ok, checked, matches) {w}"); sys.exit(1)
print("ok: input sizes are the longest array or the game's number, in powers of two")
PY

# Off a terminal and without --summary: stderr stays empty.
"$cairnd" --filter -c "$tmp/c.json" --plugins "$plugins" <"$tmp/in.jsonl" >"$tmp/out2" 2>"$tmp/err2" ||
    fail "cairnd --filter exited $?"
[ ! -s "$tmp/err2" ] || fail "a summary off a terminal without --summary: $(cat "$tmp/err2")"
cmp -s "$tmp/out" "$tmp/out2" || fail "--summary changed stdout"
echo "ok: quiet off a terminal without --summary"

# On a terminal (script(1)), the summary comes by default.
if command -v script >/dev/null 2>&1; then
    script -qec "'$cairnd' --filter -c '$tmp/c.json' --plugins '$plugins' <'$tmp/in.jsonl' >'$tmp/out3'" \
        /dev/null >"$tmp/tty" 2>&1 </dev/null || fail "cairnd --filter on a terminal failed: $(cat "$tmp/tty")"
    grep -q '"records":5,"ok":2,' "$tmp/tty" || fail "no summary on a terminal: $(cat "$tmp/tty")"
    echo "ok: summary by default on a terminal"
fi

# --summary belongs to --filter.
"$cairnd" --check --summary --plugins "$plugins" >"$tmp/o" 2>"$tmp/e"
rc=$?
[ "$rc" -eq 2 ] && grep -q -- '--summary goes with --filter' "$tmp/e" ||
    fail "--check --summary exited $rc: $(cat "$tmp/e")"
echo "ok: --summary without --filter is a usage error"
