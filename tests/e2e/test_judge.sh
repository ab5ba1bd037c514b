#!/bin/sh
# test_judge.sh CAIRN CAIRND PLUGINS SRCDIR C_RIGHT C_WRONG - cairn judge:
#  1. the shipped wrong candidates of stone-game-iii, -vii and -v (Python)
#     and of -iii in C fail (exit 1), and each failure is shrunk to an
#     input check_minimal.py proves 1-minimal by itself: the candidate
#     answers every legal one-value removal and one-step move toward 0
#     right, as the real cairnd --filter grades it;
#  2. the shipped correct candidates pass (exit 0);
#  3. hanging (ended by --timeout), crashing, garbage-printing and
#     too-few-lines candidates are each reported as such, with their
#     stderr, and no process of theirs is left (a marker in their argv,
#     looked for in /proc; the hanging one forks a child into a process
#     group of its own);
#  4. the same inside bubblewrap when it can run here (else SKIP, said);
#  5. usage errors exit 2, --json and --html write what they say.
# Exit 0 pass, 1 fail.
set -u
cairn=$1 cairnd=$2 plugins=$3 src=$4 c_right=$5 c_wrong=$6 c_vii=$7 c_vii_greedy=$8
tmp=$(mktemp -d /tmp/cairn-test-judge-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf '{"log_level":"warning"}\n' >"$tmp/c.json"
# The system's interpreter: a shim elsewhere (pyenv) is slow to start and
# not inside the sandbox's read-only view of /usr.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || fail "no python3"
cand=$src/examples/candidates
marker=cairn-judge-test-$$
judge() { "$cairn" -c "$tmp/c.json" judge "$@"; }
# The pattern does not match itself: grep's own cmdline is in the glob.
left_behind() { grep -l "cairn-judge-tes[t]-$$" /proc/[0-9]*/cmdline 2>/dev/null | head -n 3; }

# ---- 1, 2: the shipped candidates ---------------------------------------
# VARIANT WRONG RIGHT ARGS: the wrong one fails, shrunk 1-minimal; the right one passes.
pair() {
    variant=$1 wrong=$2 right=$3 sandbox=$4
    shift 4
    judge "$variant" "$@" $sandbox --json -- $wrong >"$tmp/r.json"
    rc=$?
    [ $rc -eq 1 ] || fail "judge $variant $* -- $wrong exited $rc, want 1: $(cat "$tmp/r.json")"
    # shellcheck disable=SC2086 # the candidate's command is words
    "$py" "$src/tests/e2e/judge/check_minimal.py" "$tmp/r.json" "$cairnd" "$tmp/c.json" "$plugins" \
        -- $wrong || fail "$variant: a reported input is not a 1-minimal failure of $wrong"
    judge "$variant" "$@" $sandbox -- $right >"$tmp/ok.txt"
    rc=$?
    [ $rc -eq 0 ] || fail "judge $variant -- $right exited $rc, want 0: $(cat "$tmp/ok.txt")"
    grep -q "wrong (pass rate 100.0%)" "$tmp/ok.txt" || fail "no 100% pass: $(cat "$tmp/ok.txt")"
    echo "ok: $variant: $wrong fails, each failure shrunk 1-minimal; $right passes"
}
pair stone-game-iii "$py $cand/stone_game_iii_tie.py" "$py $cand/stone_game_iii.py" --no-sandbox \
    --count 100 --seed 7 --traps --size 1..10
pair stone-game-vii "$py $cand/stone_game_vii_greedy.py" "$py $cand/stone_game_vii.py" \
    --no-sandbox --count 60 --seed 7 --size 2..8
pair stone-game-v "$py $cand/stone_game_v_keep_left.py" "$py $cand/stone_game_v.py" \
    --no-sandbox --count 150 --seed 7 --traps --size 1..10
pair 1406 "$c_wrong" "$c_right" --no-sandbox --count 100 --seed 7 --traps --size 1..10
pair 1690 "$c_vii_greedy" "$c_vii" --no-sandbox --count 60 --seed 7 --size 2..8

# The form with a line of play: the right answer, a greedy line (not
# optimal), or one move too many (not legal); cairn's grading shown.
for how in greedy illegal; do
    judge 1690 --count 30 --seed 1 --size 2..8 --no-sandbox --json -- "$py" \
        "$src/tests/e2e/judge/play_vii.py" $how >"$tmp/p.json"
    [ $? -eq 1 ] || fail "play $how: exit $?: $(cat "$tmp/p.json")"
    "$py" - "$tmp/p.json" $how <<'PY' || fail "play $how: $(cat "$tmp/p.json")"
import json, sys
f = json.load(open(sys.argv[1]))["failures"]
want = {"greedy": "a line of play that is not optimal", "illegal": "a line of play that is not legal"}
assert [x["kind"] for x in f] == [want[sys.argv[2]]], [x["kind"] for x in f]
assert f[0]["given"] == f[0]["exact"] and f[0]["minimal"]
assert ("optimal" in f[0]["play"]) if sys.argv[2] == "greedy" else ("not a legal move" in f[0]["play"]["message"])
PY
done
echo "ok: answers with a line of play: a greedy line is not optimal, an extra move not legal, both shrunk"

# ---- 3: candidates that fail as programs ---------------------------------
# NAME KIND TEXT SANDBOX: reported as KIND saying TEXT, its stderr shown, nothing left.
broken() {
    name=$1 kind=$2 text=$3 sandbox=$4
    judge 1406 --count 5 --timeout 2 $sandbox --json -- "$py" "$src/tests/e2e/judge/$name.py" \
        "$marker" >"$tmp/b.json"
    rc=$?
    [ $rc -eq 1 ] || fail "$name: judge exited $rc, want 1: $(cat "$tmp/b.json")"
    "$py" - "$tmp/b.json" "$kind" "$text" "$name: " <<'PY' || fail "$name: $(cat "$tmp/b.json")"
import json, sys
r = json.load(open(sys.argv[1]))
e = r.get("candidate_error") or {}
assert e.get("kind") == sys.argv[2], f"kind {e.get('kind')}, want {sys.argv[2]}"
assert sys.argv[3] in e["message"], f"message {e['message']!r} lacks {sys.argv[3]!r}"
assert any(l.startswith(sys.argv[4]) for l in e["stderr"]), f"stderr {e['stderr']}"
assert r["pass_rate"] is None and r["failures"] == []
PY
    left=$(left_behind)
    [ -z "$left" ] || fail "$name: processes left behind: $left"
    judge 1406 --count 5 --timeout 2 $sandbox -- "$py" "$src/tests/e2e/judge/$name.py" "$marker" \
        >"$tmp/b.txt"
    grep -q "^candidate failed (the first run): $text" "$tmp/b.txt" || fail "$name: text: $(cat "$tmp/b.txt")"
    [ -z "$(left_behind)" ] || fail "$name: processes left behind after the text run"
    echo "ok: $name${sandbox:+ ($sandbox)}: reported as $kind ($text), stderr shown, no process left"
}
broken hang timeout "timed out: 0 of 5 answers" --no-sandbox
broken crash crashed "crashed: killed by signal 11" --no-sandbox
broken garbage garbage "printed garbage: answer 1: not JSON" --no-sandbox
broken too_few too_few_lines "too few lines: 1 answers for 5 inputs" --no-sandbox

# ---- 4: in bubblewrap -----------------------------------------------------
if ! command -v bwrap >/dev/null; then
    echo "SKIP: the sandboxed cases: bwrap is not installed (Debian: bubblewrap)"
elif ! bwrap --unshare-all --die-with-parent --ro-bind / / true 2>"$tmp/bwrap.err"; then
    echo "SKIP: the sandboxed cases: bwrap cannot run here: $(cat "$tmp/bwrap.err")"
else
    pair stone-game-iii "$py $cand/stone_game_iii_tie.py" "$py $cand/stone_game_iii.py" "" \
        --count 100 --seed 7 --traps --size 1..10
    grep -q '^sandbox: bwrap (no network' "$tmp/ok.txt" || fail "not said sandboxed: $(cat "$tmp/ok.txt")"
    grep -q '"sandbox":"bwrap (no network' "$tmp/r.json" || fail "--json: not sandboxed: $(cat "$tmp/r.json")"
    broken hang timeout "timed out: 0 of 5 answers" ""
    broken crash crashed "crashed: killed by signal 11" ""
    # No network, a read-only system, a private /tmp: the candidate looks.
    cat >"$tmp/look.py" <<'PY'
import os, socket, sys
seen = []
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2); seen.append("network")
except OSError:
    pass
try:
    open("/usr/cairn-judge-probe", "w"); seen.append("writable /usr")
except OSError:
    pass
if os.path.exists(os.environ["CAIRN_PROBE"]):
    seen.append("the real /tmp: " + os.environ["CAIRN_PROBE"])
for line in sys.stdin:
    print(json.dumps(seen) if seen else '"Tie"')
PY
    sed -i '1i import json' "$tmp/look.py"
    CAIRN_PROBE=$tmp/c.json judge 1406 --count 3 --seed 1 --json -- "$py" "$tmp/look.py" >"$tmp/look.json"
    "$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); g=[f["given"] for f in r["failures"]]; sys.exit(0 if all(x in ("Tie",) for x in g) else 1)' "$tmp/look.json" ||
        fail "the sandbox let the candidate see: $(cat "$tmp/look.json")"
    echo "ok: in bubblewrap: no network, /usr read-only, /tmp private"
fi

# ---- 5: usage, --json, --html ---------------------------------------------
judge 1406 >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "judge: name a VARIANT and the candidate" "$tmp/e" || fail "no CMD: $(cat "$tmp/e")"
judge 1406 --no-sandbox -- /nonexistent/candidate >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "/nonexistent/candidate: no such executable file" "$tmp/e" ||
    fail "a missing CMD: $(cat "$tmp/e")"
judge 1406 --count x --no-sandbox -- "$py" "$cand/stone_game_iii.py" >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q -- "--count x" "$tmp/e" || fail "--count x: $(cat "$tmp/e")"
judge stone-game-ten --no-sandbox -- "$py" "$cand/stone_game_iii.py" >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q 'unknown variant "stone-game-ten"' "$tmp/e" || fail "bad variant: $(cat "$tmp/e")"
"$cairn" -c "$tmp/c.json" status --no-sandbox >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q -- '--no-sandbox is not an option of "status"' "$tmp/e" || fail "status --no-sandbox: $(cat "$tmp/e")"
echo "ok: usage errors exit 2 and name what is wrong"
judge 1406 --count 100 --seed 7 --traps --size 1..10 --no-sandbox --html "$tmp/j.html" -- \
    "$py" "$cand/stone_game_iii_tie.py" >"$tmp/t.txt"
[ $? -eq 1 ] || fail "--html: exit $?"
grep -q '<h1>cairn judge stone-game-iii</h1>' "$tmp/j.html" &&
    grep -q '{&quot;stoneValue&quot;:\[0\]}' "$tmp/j.html" || fail "--html: $(head -c 2000 "$tmp/j.html")"
grep -q 'smallest failing (1-minimal) input: {"stoneValue":\[0\]}' "$tmp/t.txt" || fail "text: $(cat "$tmp/t.txt")"
echo "ok: text and --html name the smallest failing input {\"stoneValue\":[0]}"
exit 0
