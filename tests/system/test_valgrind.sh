#!/bin/sh
# An end-to-end `cairnd --once` run (good jobs, bad records, a refused
# symlink job) under valgrind: no invalid access, no leak.
# usage: test_valgrind.sh CAIRND PLUGIN_DIR SOURCE_DIR; exit 77 = skipped.
set -u
cairnd=$1 plugins=$2 src=$3
command -v valgrind >/dev/null 2>&1 || { echo "valgrind is not installed: skipped"; exit 77; }
tmp=$(mktemp -d /tmp/cairn-test-valgrind-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in"
cp "$src"/examples/*.jsonl "$tmp/in/"
ln -s /etc/hostname "$tmp/in/link.jsonl"
printf '{"min_age_ms": 0, "log_level": "error"}' >"$tmp/c.json"
valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
    "$cairnd" --once -c "$tmp/c.json" --input "$tmp/in" --output "$tmp/out" \
    --plugins "$plugins" 2>"$tmp/valgrind.log"
rc=$?
if [ "$rc" -eq 99 ]; then
    cat "$tmp/valgrind.log"
    echo "FAIL: valgrind found errors or leaks"
    exit 1
fi
# 1: the symlink job failed, as it must; everything else was answered.
if [ "$rc" -ne 1 ] || [ ! -f "$tmp/out/official.summary.json" ] || [ ! -f "$tmp/out/link.summary.json" ]; then
    cat "$tmp/valgrind.log"
    echo "FAIL: cairnd --once exited $rc or left jobs unfinished"
    exit 1
fi
echo "ok: cairnd --once is clean under valgrind --leak-check=full"
