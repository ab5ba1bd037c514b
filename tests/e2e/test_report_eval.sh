#!/bin/sh
# test_report_eval.sh CAIRND CAIRN PLUGINS
#
# `cairn report` as an evaluator reads it, over a corpus with known
# mismatches: two `cairn gen` corpora (stone-game-iii with --traps,
# stone-game-vii plain), a candidate's answers put in "expected" (every
# third one wrong, by a rule), run by the real cairnd --once, then
#   1. the text: "given" and "exact", mismatches per variant (so the
#      second variant's show although the first has more than 10),
#      --mismatches N|all, each variant's smallest failing input with its
#      line of play, accuracy by trap, the error size of integer answers,
#      every figure computed again here (python3) from the corpus;
#   2. --json: one object whose numbers are those same figures;
#   3. --fail-on-mismatch: exit 1 on this run, 0 on a run that is right;
#   4. the bulk path: a report over --filter's results file says in one
#      line why sizes and positions are missing, and with --inputs CORPUS
#      shows them (the same smallest inputs, accuracy by size).
# Exit status: 0 pass, 1 fail.
set -u
cairnd=$1 cairn=$2 plugins=$3
fail() { echo "FAIL: $*"; exit 1; }

tmp=$(mktemp -d /tmp/cairn-test-report-eval-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

"$cairn" --plugins "$plugins" gen 1406 --count 60 --seed 11 --traps >"$tmp/iii.jsonl" ||
    fail "cairn gen 1406"
"$cairn" --plugins "$plugins" gen 1690 --count 45 --seed 11 --size 2..9 >"$tmp/vii.jsonl" ||
    fail "cairn gen 1690"
# The candidate: every third record's answer wrong (strings rotated,
# integers off by 1 to 7), the corpus's other answers kept.
python3 - "$tmp/iii.jsonl" "$tmp/vii.jsonl" >"$tmp/cand.jsonl" <<'PY' || fail "candidate"
import json, sys
i = 0
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        if i % 3 == 0:
            e = r["expected"]
            r["expected"] = {"Alice": "Bob", "Bob": "Tie", "Tie": "Alice"}[e] if isinstance(e, str) else e + i % 7 + 1
        print(json.dumps(r, separators=(",", ":")))
        i += 1
PY
mkdir -p "$tmp/in"
cp "$tmp/cand.jsonl" "$tmp/in/cand.jsonl"
printf '{"min_age_ms": 0, "log_level": "warning", "keep_inputs": true}\n' >"$tmp/c.json"
"$cairnd" --once -c "$tmp/c.json" --input "$tmp/in" --output "$tmp/out" --plugins "$plugins" \
    >"$tmp/cairnd.log" 2>&1 || fail "cairnd --once: $(cat "$tmp/cairnd.log")"
report() { "$cairn" -c "$tmp/c.json" --input "$tmp/in" report "$@"; }

report "$tmp/out" >"$tmp/report.txt" 2>"$tmp/report.err" || fail "report: $(cat "$tmp/report.err")"
report "$tmp/out" --mismatches all >"$tmp/all.txt" 2>&1 || fail "report --mismatches all"
report "$tmp/out" --mismatches 2 >"$tmp/two.txt" 2>&1 || fail "report --mismatches 2"
report "$tmp/out" --json >"$tmp/report.json" 2>"$tmp/json.err" || fail "report --json: $(cat "$tmp/json.err")"

# ---- the figures, computed here from the corpus and the results
python3 - "$tmp" <<'PY' || exit 1
import json, os, sys
tmp = sys.argv[1]
recs = [json.loads(l) for l in open(os.path.join(tmp, "cand.jsonl"))]
res = [json.loads(l) for l in open(os.path.join(tmp, "out", "cand.results.jsonl"))]
text = open(os.path.join(tmp, "report.txt")).read()
every = open(os.path.join(tmp, "all.txt")).read()
two = open(os.path.join(tmp, "two.txt")).read()
js = json.load(open(os.path.join(tmp, "report.json")))
bad = []

def values(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool): return [v]
    if isinstance(v, list): return [x for e in v for x in values(e)]
    if isinstance(v, dict): return [x for e in v.values() for x in values(e)]
    return []

mm = {}      # variant -> [(line, id, given, exact, input)]
traps = {}   # (variant, trap) -> [checked, matches]
for r in res:
    rec = recs[r["line"] - 1]
    t = r["id"].rsplit(":", 1)[1] if ":" in r["id"] else "-"
    c = traps.setdefault((r["variant"], t), [0, 0])
    c[0] += 1
    c[1] += r["match"]
    if not r["match"]:
        mm.setdefault(r["variant"], []).append((r["line"], r["id"], rec["expected"], r["answer"], rec["input"]))
if sorted(mm) != ["stone-game-iii", "stone-game-vii"] or len(mm["stone-game-iii"]) <= 10:
    bad.append(f"the corpus lacks what the test needs: {[(v, len(m)) for v, m in mm.items()]}")

# 1. text
for v, ms in mm.items():
    if f"mismatches of {v}: {len(ms)}, {min(10, len(ms))} shown" not in text:
        bad.append(f"no per-variant heading for {v} ({len(ms)} mismatches)")
    if f"mismatches of {v}: {len(ms)}, {min(2, len(ms))} shown" not in two:
        bad.append(f"--mismatches 2: no heading for {v}")
    if f"mismatches of {v}: {len(ms)}, {len(ms)} shown" not in every:
        bad.append(f"--mismatches all: no heading for {v}")
    for line, i, g, e, _ in ms:
        if json.dumps(i) not in every:
            bad.append(f"--mismatches all lacks {i}")
    # The last of stone-game-vii's mismatches is past the first 10 overall.
    if json.dumps(ms[0][1]) not in text:
        bad.append(f"{v}'s first mismatch {ms[0][1]} is not shown")
if "  job" not in text or " given " not in text or " exact " not in text or "expected  answer" in text:
    bad.append("the mismatch table's columns are not given/exact")
if "accuracy of the given answers: %d checked: %d match, %d differ" % (
        len(res), sum(r["match"] for r in res), sum(len(m) for m in mm.values())) not in text:
    bad.append("the accuracy line")

smallest = {}
for v, ms in mm.items():
    s = min(ms, key=lambda m: (len(values(m[4])), sum(abs(x) for x in values(m[4])), m[0]))
    smallest[v] = s
    inp = json.dumps(s[4], separators=(",", ":"))
    want = f"  {v}: {inp} (job cand, line {s[0]}, id {json.dumps(s[1])})\n    given {json.dumps(s[2])}, exact {json.dumps(s[3])}; optimal line of play: ["
    if want not in text:
        bad.append(f"smallest failing input of {v}: want {want!r}")
for (v, t), (c, m) in traps.items():
    if v == "stone-game-iii" and not any(l.split()[:5] == [v, t, str(c), str(m), "%.1f%%" % (100.0 * m / c)]
                                         for l in text.splitlines()):
        bad.append(f"accuracy by trap: no row {v} {t} {c} {m}")
d = [abs(g - e) for _, _, g, e, _ in mm["stone-game-vii"]]
if "error size |given - exact| over %d: mean %.2f, worst %d" % (len(d), sum(d) / len(d), max(d)) not in text:
    bad.append(f"error size of stone-game-vii: {len(d)}, {sum(d) / len(d):.2f}, {max(d)}")

# 2. --json
t = js["totals"]
want = {"records": len(res), "checked": len(res), "matches": sum(r["match"] for r in res),
        "mismatches": sum(len(m) for m in mm.values()), "jobs": 1}
if {k: t.get(k) for k in want} != want:
    bad.append(f"json totals {t}, want {want}")
jv = {v["variant"]: v for v in js["variants"]}
for v, ms in mm.items():
    if jv[v]["mismatches"] != len(ms) or jv[v]["checked"] != sum(1 for r in res if r["variant"] == v):
        bad.append(f"json variant {v}: {jv[v]}")
es = jv["stone-game-vii"]["error_size"]
if es is None or es["count"] != len(d) or es["max"] != max(d) or abs(es["mean"] - sum(d) / len(d)) > 1e-9:
    bad.append(f"json error_size {es}")
if jv["stone-game-iii"]["error_size"] is not None:
    bad.append("json: stone-game-iii's answers are not integers, yet it has an error size")
got = sorted((m["variant"], m["line"], m["given"], m["exact"]) for m in js["mismatches"])
wantm = sorted((v, l, g, e) for v, ms in mm.items() for l, _, g, e, _ in ms)
if got != wantm:
    bad.append(f"json mismatches: {len(got)} listed, {len(wantm)} in the run")
js_small = {s["variant"]: s for s in js["smallest"]}
for v, s in smallest.items():
    j = js_small.get(v)
    if j is None or (j["line"], j["id"], j["given"], j["exact"], j["input"]) != s or not isinstance(j["moves"], list):
        bad.append(f"json smallest of {v}: {j}, want {s}")
jt = {(x["variant"], x["trap"]): [x["checked"], x["matches"]] for x in js["by_trap"]}
if jt != {k: v for k, v in traps.items()}:
    bad.append(f"json by_trap {jt}, want {traps}")
sizes = {}
for r in res:
    inp = recs[r["line"] - 1]["input"]
    n = max(len(a) for a in inp.values())
    c = sizes.setdefault((r["variant"], n), [0, 0])
    c[0] += 1; c[1] += r["match"]
js_sizes = {}
for x in js["by_size"]:
    js_sizes[(x["variant"], x["min"], x["max"])] = [x["checked"], x["matches"]]
for (v, lo, hi), (c, m) in js_sizes.items():
    cc = sum(s[0] for (vv, n), s in sizes.items() if vv == v and lo <= n <= hi)
    mmm = sum(s[1] for (vv, n), s in sizes.items() if vv == v and lo <= n <= hi)
    if (c, m) != (cc, mmm):
        bad.append(f"json by_size {v} {lo}-{hi}: {c}/{m}, want {cc}/{mmm}")
if sum(c for c, _ in js_sizes.values()) != len(res):
    bad.append("json by_size does not hold every checked record")
if js["not_shown"] != {"by_size": None, "inputs": None}:
    bad.append(f"json not_shown {js['not_shown']}")
if bad:
    print("FAIL: report over a corpus with known mismatches:\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"ok: {sum(len(m) for m in mm.values())} mismatches in {len(mm)} variants, "
      f"smallest {[(v, s[4]) for v, s in smallest.items()]}")
PY

# ---- 3. --fail-on-mismatch
report "$tmp/out" --fail-on-mismatch >/dev/null 2>"$tmp/fail.err"
rc=$?
[ "$rc" = 1 ] || fail "report --fail-on-mismatch over mismatches exited $rc"
grep -q 'differ from the given answers' "$tmp/fail.err" || fail "--fail-on-mismatch said: $(cat "$tmp/fail.err")"
mkdir -p "$tmp/in2"
cp "$tmp/vii.jsonl" "$tmp/in2/right.jsonl"
"$cairnd" --once -c "$tmp/c.json" --input "$tmp/in2" --output "$tmp/out2" --plugins "$plugins" \
    >"$tmp/cairnd2.log" 2>&1 || fail "cairnd --once (right): $(cat "$tmp/cairnd2.log")"
"$cairn" report "$tmp/out2" --fail-on-mismatch >/dev/null 2>&1 ||
    fail "report --fail-on-mismatch over right answers exited $?"
"$cairn" report "$tmp/out2" --json --fail-on-mismatch >"$tmp/right.json" ||
    fail "report --json --fail-on-mismatch over right answers"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["totals"]["mismatches"] != 0 or d["mismatches"] != [] or d["smallest"] != [])' \
    "$tmp/right.json" || fail "a right run's JSON: $(cat "$tmp/right.json")"

# ---- 4. the bulk path
"$cairnd" --filter --plugins "$plugins" <"$tmp/cand.jsonl" >"$tmp/bulk.results.jsonl" 2>/dev/null ||
    fail "cairnd --filter"
"$cairn" report "$tmp/bulk.results.jsonl" >"$tmp/bulk.txt" 2>&1 || fail "report RESULTS"
grep -q '^accuracy by input size: not shown: results files carry no inputs: give --inputs CORPUS' "$tmp/bulk.txt" ||
    fail "a results file's report does not say why sizes are missing:
$(cat "$tmp/bulk.txt")"
grep -q '^  stone-game-iii: not shown: results files carry no inputs' "$tmp/bulk.txt" ||
    fail "a results file's report does not say why the smallest input is missing"
"$cairn" report "$tmp/bulk.results.jsonl" --inputs "$tmp/cand.jsonl" \
    >"$tmp/joined.txt" 2>&1 || fail "report RESULTS --inputs: $(cat "$tmp/joined.txt")"
"$cairn" report "$tmp/bulk.results.jsonl" --inputs "$tmp/cand.jsonl" --json \
    >"$tmp/joined.json" 2>&1 || fail "report RESULTS --inputs --json"
# The same smallest inputs, and sizes, as the output directory's report.
python3 - "$tmp/report.json" "$tmp/joined.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda s: [(x["variant"], x["line"], x["input"], x["given"], x["exact"], x["moves"]) for x in s]
bad = []
if key(a["smallest"]) != key(b["smallest"]):
    bad.append(f"smallest: {key(b['smallest'])} != {key(a['smallest'])}")
if a["by_size"] != b["by_size"]:
    bad.append(f"by_size: {b['by_size']} != {a['by_size']}")
if b["not_shown"] != {"by_size": None, "inputs": None}:
    bad.append(f"not_shown {b['not_shown']}")
if bad:
    print("FAIL: --inputs:\n  " + "\n  ".join(bad)); sys.exit(1)
PY
grep -q '^accuracy by input size (the longest array' "$tmp/joined.txt" || fail "--inputs: no sizes"
"$cairn" report "$tmp/bulk.results.jsonl" "$tmp/bulk.results.jsonl" \
    --inputs "$tmp/cand.jsonl" >"$tmp/two-files.txt" 2>&1 && fail "one --inputs for two results files was accepted"
grep -q 'give one CORPUS per results file' "$tmp/two-files.txt" || fail "--inputs count: $(cat "$tmp/two-files.txt")"
# Results whose line numbers restart (a chunked run) are not joined past
# the restart, and the report says where.
cat "$tmp/bulk.results.jsonl" "$tmp/bulk.results.jsonl" >"$tmp/chunked.results.jsonl"
"$cairn" report "$tmp/chunked.results.jsonl" --inputs "$tmp/cand.jsonl" >/dev/null 2>"$tmp/chunked.err" ||
    fail "report of a chunked results file: $(cat "$tmp/chunked.err")"
grep -q "chunked.results.jsonl:106: record line 1 comes after line 105: the results are not in the order of their inputs" \
    "$tmp/chunked.err" || fail "a chunked results file: $(cat "$tmp/chunked.err")"
"$cairn" report "$tmp/out" --mismatches some >/dev/null 2>"$tmp/bad.err"
[ $? = 2 ] && grep -q -- '--mismatches some: expected a count' "$tmp/bad.err" ||
    fail "--mismatches some: $(cat "$tmp/bad.err")"
echo "ok: report for evaluators: text, --json, --fail-on-mismatch, results files with and without --inputs"
