#!/bin/sh
# test_fuzz_verdict.sh SOURCE_DIR - scripts/fuzz-verdict, the judge of each
# scripts/fuzz run, on the logs of runs whose end is known: a crash, leak,
# timeout, exit or sanitizer report of the fuzzer fails, whether or not it
# would come back; a probe child's end passes.
#
# The logs in tests/unit/fuzz_verdict/ are real fuzz_plugin runs (trimmed) with
# a fault built in on purpose, one load in N, in the fuzzer or in a probe
# child before it silences its stderr.  probe-child-exited.log is the one
# made by hand: the fuzzer's "fuzz target exited" report given another
# pid and put into a clean run, since a real probe child's report of it
# goes to /dev/null.
# Exit 0 pass, 1 fail.
set -u
src=$1
verdict=$src/scripts/fuzz-verdict
logs=$src/tests/unit/fuzz_verdict
tmp=$(mktemp -d /tmp/cairn-test-fuzz-verdict-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failed=0

# check NAME LOG PID STATUS ART WANT [LINE...]: the verdict is WANT and
# holds each LINE (a whole line, as printed).
check() {
    name=$1 log=$2 pid=$3 status=$4 art=$5 want=$6
    shift 6
    rc=0
    if [ -n "$art" ]; then
        "$verdict" "$logs/$log" "$pid" "$status" "$art" >"$tmp/out" 2>&1 || rc=$?
    else
        "$verdict" "$logs/$log" "$pid" "$status" >"$tmp/out" 2>&1 || rc=$?
    fi
    case $want in pass) wrc=0 ;; *) wrc=1 ;; esac
    ok=1
    [ "$(head -n 1 "$tmp/out")" = "$want" ] && [ "$rc" -eq "$wrc" ] || ok=0
    for line in "$@"; do
        grep -qxF -- "$line" "$tmp/out" || ok=0
    done
    if [ "$ok" -eq 1 ]; then
        echo "ok: $name"
    else
        echo "FAIL: $name: wanted $want (exit $wrc) with:"
        for line in "$@"; do echo "    $line"; done
        echo "  got (exit $rc):"
        sed 's/^/    /' "$tmp/out"
        failed=1
    fi
}

# no line starting with PREFIX in the last verdict
lacks() {
    if grep -q "^$1" "$tmp/out"; then
        echo "FAIL: $2: a line starts with '$1':"
        sed 's/^/    /' "$tmp/out"
        failed=1
    fi
}

crashes=build-fuzz/crashes-plugin

check "a clean run passes" clean.log 32024 0 "" pass
lacks "fuzzer" "a clean run"

check "a use-after-free in the fuzzer fails, with its input" \
    main-use-after-free.log 28810 1 "" fail \
    "fuzzer (pid 28810): exited with status 1" \
    "reproducer: $crashes/crash-92fe28ddf17e536e4244ecf7e9d58b1351aa2e61"
grep -q '^fuzzer (pid 28810): AddressSanitizer: heap-use-after-free' "$tmp/out" ||
    { echo "FAIL: the use-after-free report is not printed"; failed=1; }

check "the same log with another pid still fails: the exit status is the fuzzer's" \
    main-use-after-free.log 1 1 "" fail "fuzzer (pid 1): exited with status 1, and reported nothing"

check "probe children killed by SIGSEGV pass" probe-child-segv.log 29881 0 "" pass \
    "probe child's artifact: $crashes/crash-73141121f625a5614202fd9953c6cd7c9ab7aa67" \
    "probe child's artifact: $crashes/crash-bdf9aac0d59ee1d94fb9e92063e138b7a0eed02e"
grep -q '^probe child (pid 30060), expected: AddressSanitizer: SEGV on unknown address' "$tmp/out" ||
    { echo "FAIL: the probe child's SEGV is not named"; failed=1; }

check "the same SEGV reports, named by the fuzzer's own pid, fail" \
    probe-child-segv.log 30060 0 "" fail \
    "reproducer: $crashes/crash-73141121f625a5614202fd9953c6cd7c9ab7aa67"

check "a probe child's SEGV, then a use-after-free in the fuzzer: fails on the latter" \
    probe-child-then-main.log 8797 1 "" fail \
    "fuzzer (pid 8797): exited with status 1" \
    "probe child's artifact: $crashes/crash-07f014e7330a9a71b766bd8b566853d3066d5365" \
    "reproducer: $crashes/crash-6376030297bf387648d9875a9418e2bd67e4a63e"

check "a probe child that ran the exit handlers fails" probe-child-exited.log 32024 0 "" fail \
    "probe child (pid 24100), not expected: libFuzzer: fuzz target exited" \
    "reproducer: $crashes/crash-07d4196638e52639c9cf2e837aceb81df3390f9c"

check "UBSan in the fuzzer fails" main-ubsan.log 694 1 "" fail \
    "reproducer: $crashes/crash-e0632810bf6b78bcc5b9d89fd8d070643a9c6944"
grep -q '^unattributed: .*runtime error: signed integer overflow' "$tmp/out" ||
    { echo "FAIL: the UBSan report is not printed"; failed=1; }

check "a UBSan report fails even if the fuzzer went on and exited 0" main-ubsan.log 694 0 "" fail

check "a leak found at exit fails, and its empty input is no reproducer" \
    main-leak-at-exit.log 884 1 "" fail \
    "fuzzer (pid 884): LeakSanitizer: detected memory leaks" \
    "at exit, no input: $crashes/crash-da39a3ee5e6b4b0d3255bfef95601890afd80709"
lacks "reproducer:" "a leak at exit"

check "a timeout fails, with the input libFuzzer wrote before its report" \
    main-timeout.log 21915 70 "" fail \
    "fuzzer (pid 21915): libFuzzer: timeout after 5 seconds" \
    "reproducer: $crashes/timeout-658bed79ba82625d5096b6b00921b15ecf5da1c1"
lacks "unattributed" "a timeout"

check "an exit(3) in load-time code fails" main-target-exited.log 23463 77 "" fail \
    "fuzzer (pid 23463): libFuzzer: fuzz target exited" \
    "reproducer: $crashes/crash-07d4196638e52639c9cf2e837aceb81df3390f9c"

check "an _exit(0) before libFuzzer is done fails" main-exit-0.log 5508 0 "" fail \
    "fuzzer (pid 5508): exited 0 before libFuzzer said it was done"

check "a fuzzer killed with no report fails" main-exit-0.log 5508 137 "" fail \
    "fuzzer (pid 5508): exited with status 137 (signal 9), and reported nothing"

check "a broken invariant fails" main-invariant.log 30983 77 "" fail \
    "unattributed: fuzz_plugin: invariant broken: scratch: a check that fails now and then" \
    "fuzzer (pid 30983): libFuzzer: deadly signal" \
    "reproducer: $crashes/crash-70158546830be5b36f5fc7d17e398725a887d6e1"

check "a slow input (a probe that ran into its alarm) is no failure" main-slow-unit.log 18394 0 "" pass
lacks "reproducer:" "a slow input"

# The artifact directory: files no line of the log names.
mkdir "$tmp/art"
: >"$tmp/art/crash-0000000000000000000000000000000000000001"
check "after an exit 0, an artifact the log does not name is a probe child's" \
    clean.log 32024 0 "$tmp/art" pass \
    "probe child's artifact: $tmp/art/crash-0000000000000000000000000000000000000001"

check "a fuzzer that failed and named no input: each artifact may be it" \
    main-exit-0.log 5508 137 "$tmp/art" fail \
    "reproducer: $tmp/art/crash-0000000000000000000000000000000000000001"

: >"$tmp/art/crash-92fe28ddf17e536e4244ecf7e9d58b1351aa2e61"
check "beside the input the fuzzer named, another artifact is a probe child's" \
    main-use-after-free.log 28810 1 "$tmp/art" fail \
    "reproducer: $crashes/crash-92fe28ddf17e536e4244ecf7e9d58b1351aa2e61" \
    "probe child's artifact: $tmp/art/crash-0000000000000000000000000000000000000001"
[ "$(grep -c '^reproducer: ' "$tmp/out")" -eq 1 ] ||
    { echo "FAIL: the named input is listed twice"; failed=1; }

check "beside a leak at exit, another artifact is a probe child's" \
    main-leak-at-exit.log 884 1 "$tmp/art" fail \
    "probe child's artifact: $tmp/art/crash-0000000000000000000000000000000000000001"
lacks "reproducer:" "a leak at exit beside an artifact"

"$verdict" "$logs/clean.log" x 0 >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a PID that is no number is not a usage error"; failed=1; }

exit $failed
