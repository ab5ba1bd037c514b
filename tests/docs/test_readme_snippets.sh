#!/bin/sh
# test_readme_snippets.sh SRCDIR BUILDDIR - every shell snippet of the
# documentation runs as written (a new user's recipe once failed):
# the README, docs/*.md, bench/README.md and examples/plugin/README.md.
#
# A snippet is a fenced block opened by a line "```sh".  The line right
# before the fence may mark it:
#   <!-- not run: REASON -->      not run here (installs, needs a cluster...)
#   <!-- walkthrough: ... -->     run by tests/docs/test_readme_walkthrough.sh
#   <!-- needs: TOOL -->          run when TOOL is installed, else skipped
# Every other sh block is run, all of one page's in page order in one
# `sh -e`, as a reader following the page in one terminal would, from a
# scratch directory of the page's own that looks like the top of a freshly
# built tree: `build` (a link to BUILDDIR), a copy of `examples/` (a
# snippet builds the example plugin in it), `config/` and `bench/`.  Each
# page runs in a session of its own, so whatever it starts is stopped
# afterwards even when it fails half-way.
set -u
src=$1 builddir=$2
tmp=$(mktemp -d /tmp/cairn-test-readme-snippets-XXXXXX)
pgid=""
cleanup() {
    [ -n "$pgid" ] && kill -TERM -- "-$pgid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
out=""
fail() { echo "FAIL: $*"; [ -n "$out" ] && [ -f "$out" ] && sed 's/^/    /' "$out"; exit 1; }

# The variant table states stone-game's official
# odd-sum rule (with even length, it is what rules out a tie).
grep -E '^\| `stone-game` \(877\) \|' "$src/README.md" | grep -q 'len even.*sum odd' ||
    fail "the README's stone-game row does not state the official rules (len even, sum odd)"
echo "ok: the stone-game row states len even and sum odd"

# The analysis bound names every variant whose official
# inputs pass it (test_analysis checks stone-game-viii's).
tr '\n' ' ' <"$src/docs/contract.md" | grep -q 'only `stone-game-vi`, `-viii` and `-ix`' ||
    fail "docs/contract.md's analysis bound does not name stone-game-vi, -viii and -ix"
echo "ok: the analysis bound names stone-game-vi, -viii and -ix"

# The pages, each with the least number of snippets it must run (so a
# marker or fence gone wrong cannot quietly turn a page's snippets off).
pages="README.md:1 docs/contract.md:1 docs/evaluation.md:8 docs/games.md:1 docs/scale-out.md:2 bench/README.md:1 examples/plugin/README.md:4"
for f in "$src"/docs/*.md; do
    p=docs/${f##*/}
    case " $pages " in *" $p:"*) ;; *) pages="$pages $p:0" ;; esac
done

extract() { # PAGE: its runnable snippets as one script, on stdout
    awk -v readme="$1" '
    /^```sh$/ && !inblock {
        inblock = 1; line = NR
        if (prev ~ /^<!-- not run: .* -->$/ || prev ~ /^<!-- walkthrough: /) { skip = 1; skipped++ }
        else if (prev ~ /^<!-- needs: [A-Za-z0-9_.-]+ -->$/) {
            tool = prev; sub(/^<!-- needs: /, "", tool); sub(/ -->$/, "", tool)
            skip = 0; guard = tool; run++
            printf "echo \"### %s:%d (needs %s)\"\nif command -v %s >/dev/null 2>&1; then\n", readme, line, tool, tool
        } else if (prev ~ /^<!--/) {
            printf "echo \"unknown marker before %s:%d: %s\" >&2; exit 99\n", readme, line, prev; skip = 1
        } else { skip = 0; guard = ""; run++; printf "echo \"### %s:%d\"\n", readme, line }
        next
    }
    /^```$/ && inblock {
        inblock = 0
        if (!skip && guard != "")
            printf "else\n    echo \"### skipped: %s is not installed\"\nfi\n", guard
        next
    }
    inblock && !skip { print }
    { prev = $0 }
    END { printf "%d run, %d not run here", run, skipped > "/dev/stderr"; print "echo \"### all snippets ran\"" }
    ' "$src/$1"
}

# Every block runs as written by root, and the pages say once how to
# run them with sudo: no command in a block starts with sudo (as root,
# where sudo is often not installed, "sudo: command not found").  And a
# daemon is signalled by its pid, never by name: pidof, pkill or killall
# reach every cairnd on a shared host.
block_lines() { # PAGE ERE: the lines of its fenced blocks that match ERE
    awk -v page="$1" -v re="$2" '
    /^```/ { inblock = !inblock; next }
    inblock && $0 ~ re { printf "%s:%d: %s\n", page, NR, $0 }
    ' "$src/$1"
}
for entry in $pages; do
    found=$(block_lines "${entry%:*}" '(^|[;&|(])[[:space:]]*sudo[[:space:]]')
    [ -z "$found" ] || fail "a block runs a command with sudo (say once that blocks run as root instead): $found"
    found=$(block_lines "${entry%:*}" '(^|[^a-z])(pidof|pkill|killall)[[:space:]]')
    [ -z "$found" ] || fail "a block signals processes by name, not by pid: $found"
done
echo "ok: no block runs a command with sudo or signals by name"

total=0
summary=""
# A page's last resort against a hang, in tenths of a second: 120 s,
# scaled like every deadline of the suite (the sanitizer build sets 4).
mult=${CK_TIMEOUT_MULTIPLIER:-1}
case $mult in '' | *[!0-9]*) mult=1 ;; esac
deadline=$((1200 * mult))
for entry in $pages; do
    page=${entry%:*} least=${entry##*:}
    [ -f "$src/$page" ] || fail "$page is missing"
    top=$tmp/$(echo "$page" | tr '/' '_')
    mkdir "$top"
    out=$top/out.txt
    extract "$page" >"$top/snippets.sh" 2>"$top/counts" || fail "cannot extract the snippets of $page"
    runnable=$(grep -c '^echo "### [^ ]*:[0-9]' "$top/snippets.sh")
    [ "$runnable" -ge "$least" ] ||
        fail "only $runnable runnable snippets found in $page, at least $least expected: $(cat "$top/counts")"
    total=$((total + runnable))
    summary="$summary $page: $(cat "$top/counts");"
    [ "$runnable" -gt 0 ] || continue

    ln -s "$builddir" "$top/build"
    cp -R "$src/examples" "$top/examples" || fail "cannot copy examples/"
    rm -f "$top/examples/plugin"/*.so
    cp -R "$src/config" "$top/config" || fail "cannot copy config/"
    cp -R "$src/bench" "$top/bench" || fail "cannot copy bench/"
    : >"$out"
    (cd "$top" && find . -mindepth 1 | LC_ALL=C sort) >"$top.before"
    (
        cd "$top" || exit 1
        umask 022
        unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR CFLAGS MAKEFLAGS
        exec setsid sh -e snippets.sh >out.txt 2>&1 </dev/null
    ) &
    pgid=$!
    i=0
    while kill -0 "$pgid" 2>/dev/null && [ $i -lt "$deadline" ]; do sleep 0.1; i=$((i + 1)); done
    kill -0 "$pgid" 2>/dev/null && fail "the snippets of $page did not finish in $((deadline / 10)) s"
    wait "$pgid"
    rc=$?
    kill -TERM -- "-$pgid" 2>/dev/null
    pgid=""
    [ "$rc" -eq 0 ] || fail "the snippets of $page stopped with exit $rc after: $(grep '^### ' "$out" | tail -n 1)"
    grep -q '^### all snippets ran$' "$out" || fail "the snippets of $page did not all run"
    # What they left at the top of the tree: a reader's clone must show
    # none of it in `git status`.
    left=$(sh "$src/tests/docs/unignored.sh" "$src" "$top" "$top.before" | paste -sd ' ' -)
    [ -z "$left" ] || fail "the snippets of $page leave what .gitignore does not ignore: $left"
done
out=""

# What the snippets promise, where it can be checked.
dir() { echo "$tmp/$(echo "$1" | tr '/' '_')"; }
records() { grep -c '[^[:space:]]' "$1"; }
top=$(dir README.md)
out=$top/out.txt
[ "$(records "$top/try/official.results.jsonl")" -eq "$(records "$src/examples/official.jsonl")" ] ||
    fail "--filter did not answer every official example"
[ -f "$top/try/out/official.summary.json" ] || fail "--once did not run the job copied into try/spool/"

# docs/contract.md shows the result lines its records give: they must be
# the lines cairnd wrote.
top=$(dir docs/contract.md)
out=$top/out.txt
shown=$(grep -c '^{"line":' "$src/docs/contract.md")
[ "$shown" -ge 3 ] || fail "docs/contract.md shows only $shown result lines"
grep '^{"line":' "$src/docs/contract.md" | while IFS= read -r l; do
    grep -Fxq -- "$l" "$top/try/contract.results.jsonl" || { echo "not written by cairnd: $l"; exit 1; }
done || fail "docs/contract.md shows a result line cairnd does not write"
[ "$(records "$top/try/contract.results.jsonl")" -eq "$shown" ] ||
    fail "docs/contract.md's records gave $(records "$top/try/contract.results.jsonl") lines, it shows $shown"

# docs/evaluation.md: the wrong candidates are caught and shrunk, the
# right one passes, and the report a script reads names each game's
# smallest failing input.
top=$(dir docs/evaluation.md)
out=$top/out.txt
python3 - "$top/eval" <<'PY' || fail "docs/evaluation.md's run did not give what the page says"
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/report.json"))
got = sorted(s["variant"] for s in r["smallest"])
assert got == ["stone-game-iii", "stone-game-vii"], "smallest failing inputs of %s" % got
for s in r["smallest"]:
    assert s["given"] != s["exact"], s
assert r["totals"]["mismatches"] > 0, r["totals"]
given = [json.loads(l) for l in open(d + "/vii-given.jsonl")]
assert all("play" in g["options"] for g in given), "a line of play was not joined"
j = json.load(open(d + "/judge-vii.json"))
assert j["wrong"] > 0 and j["failures"], "judge found no failure of the greedy candidate"
assert all(f["minimal"] for f in j["failures"]), j["failures"]
PY
grep -q 'smallest failing (1-minimal) input: {"stoneValue":\[0\]}' "$out" ||
    fail "cairn judge did not shrink the wrong tie rule to [0]"
grep -q '100 of 100 answers right' "$out" || fail "cairn judge did not pass the correct candidate"
[ -s "$top/eval/report.html" ] || fail "the report's HTML page was not written"
[ -f "$top/eval/done/iii.summary.json" ] || fail "submit --wait did not run the job through the daemon"

top=$(dir examples/plugin/README.md)
out=$top/out.txt
grep -q '"variant":"digit-game","status":"ok"' "$out" ||
    fail "the example plugin built against the build tree did not answer"
# and the output the guide shows (--list-plugins, the results) is what
# its commands printed.
grep -E '^(digit-game  |\{"line":)' "$src/examples/plugin/README.md" | while IFS= read -r l; do
    grep -Fxq -- "$l" "$out" || { echo "not printed by its commands: $l"; exit 1; }
done || fail "examples/plugin/README.md shows output its commands do not print"

top=$(dir bench/README.md)
out=$top/out.txt
[ "$(records "$top/small.results.jsonl")" -eq 1000 ] ||
    fail "the benchmark corpus snippet did not answer its 1,000 records"

if command -v parallel >/dev/null 2>&1; then
    top=$(dir docs/scale-out.md)
    out=$top/out.txt
    [ "$(records "$top/results.jsonl")" -eq "$(records "$top/big.jsonl")" ] ||
        fail "GNU parallel: not one result line per record"
fi
out=""
echo "ok: $total snippets ran as written ($summary)"
