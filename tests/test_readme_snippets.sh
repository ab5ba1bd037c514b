#!/bin/sh
# test_readme_snippets.sh SRCDIR BUILDDIR - every shell snippet of the
# README runs as written (issue 12: a new user's recipe failed).
#
# A snippet is a fenced block opened by a line "```sh".  The line right
# before the fence may mark it:
#   <!-- not run: REASON -->      not run here (installs, needs a cluster...)
#   <!-- walkthrough: ... -->     run by tests/test_readme_walkthrough.sh
#   <!-- needs: TOOL -->          run when TOOL is installed, else skipped
# Every other sh block is run, all of them in README order in one `sh -e`,
# as a reader following the page in one terminal would, from a scratch
# directory that looks like the top of a freshly built tree: `build` (a
# link to BUILDDIR), a copy of `examples/` (a snippet builds the example
# plugin in it) and `config/`.  It runs in a session of its own, so
# whatever it starts is stopped afterwards even when it fails half-way.
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
fail() { echo "FAIL: $*"; [ -f "$tmp/top/out.txt" ] && sed 's/^/    /' "$tmp/top/out.txt"; exit 1; }

# Point 7 of the issue: the variant table states stone-game's official
# odd-sum rule (with even length, it is what rules out a tie).
grep -E '^\| `stone-game` \(877\) \|' "$src/README.md" | grep -q 'len even.*sum odd' ||
    fail "the README's stone-game row does not state the official rules (len even, sum odd)"
echo "ok: the stone-game row states len even and sum odd"

# Issue 21 point 16: the analysis bound names every variant whose official
# inputs pass it (test_analysis checks stone-game-viii's).
tr '\n' ' ' <"$src/README.md" | grep -q 'only `stone-game-vi`, `-viii` and `-ix`' ||
    fail "the README's analysis bound does not name stone-game-vi, -viii and -ix"
echo "ok: the analysis bound names stone-game-vi, -viii and -ix"

awk -v readme="README.md" '
    function flush_marker() { marker = "" }
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
' "$src/README.md" >"$tmp/snippets.sh" 2>"$tmp/counts" || fail "cannot extract the snippets"
runnable=$(grep -c '^echo "### README.md:' "$tmp/snippets.sh")
[ "$runnable" -ge 4 ] || fail "only $runnable runnable snippets found in README.md: $(cat "$tmp/counts")"

mkdir "$tmp/top"
ln -s "$builddir" "$tmp/top/build"
cp -R "$src/examples" "$tmp/top/examples" || fail "cannot copy examples/"
rm -f "$tmp/top/examples/plugin"/*.so
cp -R "$src/config" "$tmp/top/config" || fail "cannot copy config/"
cp "$tmp/snippets.sh" "$tmp/top/snippets.sh"
(
    cd "$tmp/top" || exit 1
    umask 022
    unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR CFLAGS MAKEFLAGS
    exec setsid sh -e snippets.sh >out.txt 2>&1 </dev/null
) &
pgid=$!
i=0
while kill -0 "$pgid" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$pgid" 2>/dev/null && fail "the snippets did not finish in 120 s"
wait "$pgid"
rc=$?
[ "$rc" -eq 0 ] || fail "the snippets stopped with exit $rc after: $(grep '^### ' "$tmp/top/out.txt" | tail -n 1)"
grep -q '^### all snippets ran$' "$tmp/top/out.txt" || fail "the snippets did not all run"

# What the snippets promise, where it can be checked.
top=$tmp/top
records() { grep -c '[^[:space:]]' "$1"; }
[ "$(records "$top/official.results.jsonl")" -eq "$(records "$src/examples/official.jsonl")" ] ||
    fail "--filter did not answer every official example"
[ -f "$top/out/official.summary.json" ] || fail "--once did not run the job copied into spool/"
grep -q '"variant":"digit-game","status":"ok"' "$top/out.txt" ||
    fail "the example plugin built against the build tree did not answer"
if command -v parallel >/dev/null 2>&1; then
    [ "$(records "$top/results.jsonl")" -eq "$(records "$top/big.jsonl")" ] ||
        fail "GNU parallel: not one result line per record"
fi
echo "ok: $runnable README snippets ran as written ($(cat "$tmp/counts"))"
