#!/bin/sh
# test_job_reuse.sh CAIRND CAIRN PLUGIN_DIR [OOM_SHIM] - a job name used again
# (NAME~N).  The second and third a.jsonl run as a~2 and a~3: the first run's
# results, summary and done/ copy stay byte for byte, and each later
# summary says submitted_as "a.jsonl".  A crash re-run from active/ still
# replaces its own outputs under its own name.  Two concurrent
# `cairn submit` of one file name get distinct job names.
# Exit 0 pass, 1 fail.
set -u
cairnd=$1 cairn=$2 plugins=$3 oom=${4:-}
tmp=$(mktemp -d /tmp/cairn-test-job-reuse-XXXXXX)
daemon=
trap '[ -n "$daemon" ] && kill "$daemon" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; [ -f "$tmp/d.log" ] && sed 's/^/    /' "$tmp/d.log"; exit 1; }
in=$tmp/in out=$tmp/out
mkdir "$in"
printf '{"min_age_ms": 0, "rescan_interval_s": 1, "keep_inputs": true}\n' >"$tmp/c.json"

drop() { # NAME RECORDS: rename a job of RECORDS records into the spool
    : >"$tmp/.job"
    i=0
    while [ $i -lt "$2" ]; do
        printf '{"id":%d,"variant":"877","input":{"piles":[5,3,4,5]}}\n' $i >>"$tmp/.job"
        i=$((i + 1))
    done
    mv "$tmp/.job" "$in/$1.jsonl"
}
await() { # FILE [TENTHS]: 10 s, or TENTHS tenths of a second (slow builds)
    i=0
    while [ ! -f "$1" ] && [ $i -lt "${2:-100}" ]; do sleep 0.1; i=$((i + 1)); done
    [ -f "$1" ] || fail "$1 never appeared"
}
field() { # FILE KEY
    python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else v)' "$1" "$2"
}

"$cairnd" -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>"$tmp/d.log" &
daemon=$!
drop a 1
await "$out/a.summary.json"
cp "$out/a.summary.json" "$tmp/a.summary.first"
cp "$out/a.results.jsonl" "$tmp/a.results.first"
cp "$in/.cairn/done/a.jsonl" "$tmp/a.done.first"
[ -z "$(field "$out/a.summary.json" submitted_as)" ] || fail "a first run carries submitted_as"

drop a 2
await "$out/a~2.summary.json"
drop a 3
await "$out/a~3.summary.json"
cmp -s "$out/a.summary.json" "$tmp/a.summary.first" || fail "the first summary was overwritten"
cmp -s "$out/a.results.jsonl" "$tmp/a.results.first" || fail "the first results were overwritten"
cmp -s "$in/.cairn/done/a.jsonl" "$tmp/a.done.first" || fail "the first done/ copy was overwritten"
for n in 2 3; do
    s=$out/a~$n.summary.json
    [ "$(field "$s" job)" = "a~$n" ] || fail "a~$n: job is $(field "$s" job)"
    [ "$(field "$s" submitted_as)" = "a.jsonl" ] || fail "a~$n: submitted_as is $(field "$s" submitted_as)"
    [ "$(field "$s" records)" = "$n" ] || fail "a~$n: $(field "$s" records) records, want $n"
    [ "$(grep -c . "$out/a~$n.results.jsonl")" = "$n" ] || fail "a~$n.results.jsonl has not $n lines"
    [ "$(grep -c . "$in/.cairn/done/a~$n.jsonl")" = "$n" ] || fail "done/a~$n.jsonl is not the run's input"
done
grep -q 'job a: a job of this name finished before; its outputs are kept, and this one runs as a~2' "$tmp/d.log" ||
    fail "the log does not say a runs as a~2"
echo "ok: a reused name runs as a~2, a~3; the first run's outputs and done/ copy are untouched"

# A file already named a~2.jsonl waiting is not taken over: the next a runs as a~4.
kill "$daemon"
wait "$daemon"
daemon=
drop 'a~4' 1 # sits in the spool while the daemon is down
mv "$in/a~4.jsonl" "$in/.cairn/done/a~4.jsonl"
drop a 1
"$cairnd" --once -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log" ||
    fail "--once exited $?"
[ -f "$out/a~5.summary.json" ] && [ ! -f "$out/a~4.summary.json" ] ||
    fail "a name whose done/ copy exists was taken: $(ls "$out")"
echo "ok: a name with a done/ copy counts as used (a~4 skipped, a~5 taken)"

# Without keep_inputs the summary is the mark of a finished job.
printf '{"min_age_ms": 0, "keep_inputs": false}\n' >"$tmp/nokeep.json"
once() { "$cairnd" --once -c "$1" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log" || fail "--once exited $?"; }
drop k 1
once "$tmp/nokeep.json"
cp "$out/k.summary.json" "$tmp/k.first"
drop k 2
once "$tmp/nokeep.json"
cmp -s "$out/k.summary.json" "$tmp/k.first" || fail "keep_inputs false: the first summary was overwritten"
[ "$(field "$out/k~2.summary.json" records)" = "2" ] || fail "keep_inputs false: no k~2 run"
echo "ok: without keep_inputs, an existing summary marks the name as used"

# Pruning done/ does not turn overwriting back on: a summary without a
# done/ copy and without a hand-back mark counts as used.
drop h 1
once "$tmp/c.json"
cp "$out/h.summary.json" "$tmp/h.first"
rm "$in/.cairn/done/h.jsonl"
drop h 2
once "$tmp/c.json"
cmp -s "$out/h.summary.json" "$tmp/h.first" || fail "done/ pruned: the first summary was overwritten"
[ "$(field "$out/h~2.summary.json" records)" = "2" ] || fail "done/ pruned: no h~2 run"
echo "ok: with keep_inputs, a summary without a done/ copy still marks the name as used"

# A NAME~2 job handed back (its outputs published, the move to done/
# failed: a file stands where done/ was, so the folder cannot be made
# again) goes back to the spool as the name it was dropped as, and its
# re-run, once the operator has removed the file, keeps its name and
# submitted_as.  (A done/ merely removed is recreated by the finish
# itself: test_directories.)
"$cairnd" -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log" &
daemon=$!
drop r 1
await "$out/r.summary.json"
await "$in/.cairn/done/r.jsonl"
rm -rf "$in/.cairn/done"
: >"$in/.cairn/done"
drop r 2
i=0
until grep -q 'job r~2: cannot move input to done: .*handed back to the spool for another try as r.jsonl' "$tmp/d.log"; do
    [ $i -lt 100 ] || fail "r~2 was not handed back as r.jsonl"
    sleep 0.1
    i=$((i + 1))
done
rm -f "$in/.cairn/done"
await "$in/.cairn/done/r~2.jsonl"
[ "$(field "$out/r~2.summary.json" submitted_as)" = "r.jsonl" ] ||
    fail "r~2's re-run lost submitted_as: '$(field "$out/r~2.summary.json" submitted_as)'"
[ "$(field "$out/r~2.summary.json" records)" = "2" ] || fail "r~2 is not the second r"
[ ! -e "$out/r~3.summary.json" ] || fail "the handed-back r~2 ran again as r~3"
grep -q 'job r~2: handed back after its summary was published; this re-run replaces its own outputs' "$tmp/d.log" ||
    fail "the re-run replacing its own outputs was not logged"
kill "$daemon"
wait "$daemon"
daemon=
echo "ok: a handed-back r~2 goes back as r.jsonl and re-runs as r~2 with submitted_as"

# big NAME: a job of 1e6 records (about 2 s), to act while it runs.
big() {
    yes '{"variant":"877","input":{"piles":[5,3,4,5]}}' | head -n 1000000 >"$tmp/.job"
    mv "$tmp/.job" "$in/$1.jsonl"
}
# A crash re-run of a renamed job keeps submitted_as (its record in active/).
drop s 1
once "$tmp/c.json"
"$cairnd" -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log" &
daemon=$!
big s
await "$in/.cairn/active/s~2.jsonl"
# Killed once the claim is done (its record is written just after the
# rename: a crash in between loses submitted_as, a window job.c names).
i=0
while ! grep -q 'job s~2 claimed' "$tmp/d.log" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -9 "$daemon"
wait "$daemon" 2>/dev/null
daemon=
[ ! -e "$out/s~2.summary.json" ] || fail "s~2 finished before the crash: make it bigger"
once "$tmp/c.json"
[ "$(field "$out/s~2.summary.json" submitted_as)" = "s.jsonl" ] ||
    fail "the crash re-run of s~2 lost submitted_as: '$(field "$out/s~2.summary.json" submitted_as)'"
[ -z "$(ls -A "$in/.cairn/active")" ] || fail "active/ keeps records of finished jobs: $(ls -A "$in/.cairn/active")"
echo "ok: a crash re-run from active/s~2.jsonl keeps submitted_as s.jsonl"

# A finished NAME~N is never overwritten in done/: a copy that turns up
# there while NAME~2 runs (another daemon's) stays, and the job takes a
# fresh name.
drop e 1
once "$tmp/c.json"
"$cairnd" -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log" &
daemon=$!
big e
await "$in/.cairn/active/e~2.jsonl"
printf 'another e~2\n' >"$in/.cairn/done/e~2.jsonl"
await "$in/.cairn/done/e~3.jsonl" 600 # two runs of a big job; slow under sanitizers
[ "$(cat "$in/.cairn/done/e~2.jsonl")" = "another e~2" ] || fail "done/e~2.jsonl was overwritten"
[ "$(field "$out/e~3.summary.json" submitted_as)" = "e.jsonl" ] || fail "e~3 lacks submitted_as"
kill "$daemon"
wait "$daemon"
daemon=
echo "ok: a done/ copy that appears meanwhile is not overwritten; the job runs again as e~3"

# Out of memory naming a job claimed as o~2 (oom_strndup.c): the file is
# put back as it came, not handed back under a name it does not have on
# disk (which left it stuck in active/ until a restart).
if [ -n "$oom" ]; then
    drop o 1
    once "$tmp/c.json"
    drop o 2
    CAIRN_OOM_PREFIX='o~2' LD_PRELOAD="$oom" ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
        "$cairnd" --once -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log"
    grep -q 'job o: out of memory naming it o~2.jsonl; put back in the spool' "$tmp/d.log" ||
        fail "out of memory naming o~2 was not met or not logged"
    [ -f "$in/o.jsonl" ] || fail "o.jsonl is not back in the spool: active/ holds $(ls -A "$in/.cairn/active")"
    once "$tmp/c.json"
    [ "$(field "$out/o~2.summary.json" records)" = "2" ] &&
        [ "$(field "$out/o~2.summary.json" submitted_as)" = "o.jsonl" ] || fail "o did not run as o~2 after"
    echo "ok: out of memory naming o~2 puts o.jsonl back; the next run takes it as o~2"
fi

# Crash re-run: a job left in active/ replaces its own outputs, under its own name.
printf '{"job":"c","status":"ok","records":99}\n' >"$out/c.summary.json"
printf 'stale\n' >"$out/c.results.jsonl"
printf '{"variant":"877","input":{"piles":[5,3,4,5]}}\n' >"$in/.cairn/active/c.jsonl"
"$cairnd" --once -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log" ||
    fail "--once exited $?"
[ "$(field "$out/c.summary.json" records)" = "1" ] || fail "the crash re-run did not replace c's summary"
grep -q '"status":"ok"' "$out/c.results.jsonl" || fail "the crash re-run did not replace c's results"
[ ! -e "$out/c~2.summary.json" ] || fail "a crash re-run was renamed"
echo "ok: a crash re-run from active/ replaces its own outputs"

# cairn submit never collides: two at once, one file name.
mkdir "$tmp/sub"
printf '{"input_dir": "%s", "output_dir": "%s"}\n' "$in" "$out" >"$tmp/client.json"
printf '{"variant":"877","input":{"piles":[5,3,4,5]}}\n' >"$tmp/sub/same.jsonl"
"$cairn" -c "$tmp/client.json" submit "$tmp/sub/same.jsonl" >"$tmp/s1" 2>&1 &
p1=$!
"$cairn" -c "$tmp/client.json" submit "$tmp/sub/same.jsonl" >"$tmp/s2" 2>&1 &
p2=$!
wait $p1 || fail "submit 1: $(cat "$tmp/s1")"
wait $p2 || fail "submit 2: $(cat "$tmp/s2")"
n1=$(cat "$tmp/s1") n2=$(cat "$tmp/s2")
[ -n "$n1" ] && [ "$n1" != "$n2" ] || fail "two concurrent submits got one name: '$n1' '$n2'"
[ -f "$in/$n1.jsonl" ] && [ -f "$in/$n2.jsonl" ] || fail "not both submitted: $(ls "$in")"
echo "ok: two concurrent cairn submit of one file name: $n1, $n2"

# The clients know their own run.  A job `cairn submit --name w --wait`
# handed over runs as w; a w.jsonl a producer drops meanwhile runs as w~2
# once w is done, and `cairn wait w` (started while it waits) reports w~2,
# not the w.summary.json that turns up first.
"$cairnd" -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log" &
daemon=$!
yes '{"variant":"877","input":{"piles":[5,3,4,5]}}' | head -n 1000000 >"$tmp/sub/big.jsonl"
"$cairn" -c "$tmp/client.json" submit --no-check --name w --wait "$tmp/sub/big.jsonl" >"$tmp/w1" 2>&1 &
p1=$!
await "$in/.cairn/active/w.jsonl" 600
drop w 2
"$cairn" -c "$tmp/client.json" wait w >"$tmp/w2" 2>&1 || fail "cairn wait w: $(cat "$tmp/w2")"
wait $p1 || fail "submit --wait: $(cat "$tmp/w1")"
grep -q '^w: ok, 1000000 records' "$tmp/w1" || fail "submit --wait reported another run: $(cat "$tmp/w1")"
grep -q '^w: ran as w~2' "$tmp/w2" && grep -q '^w: ok, 2 records' "$tmp/w2" ||
    fail "cairn wait w reported another run: $(cat "$tmp/w2")"
echo "ok: submit --wait and cairn wait each report their own run of w (w, w~2)"
drop n 1
await "$out/n.summary.json"
kill -STOP "$daemon"
drop n 2
"$cairn" -c "$tmp/client.json" results n >"$tmp/n.out" 2>"$tmp/n.err" || fail "cairn results n: $(cat "$tmp/n.err")"
kill -CONT "$daemon"
[ "$(grep -c . "$tmp/n.out")" = "1" ] || fail "cairn results n: not n's one result"
grep -q 'a newer n.jsonl waits in the spool; it will run as n~N' "$tmp/n.err" ||
    fail "cairn results n does not say a newer n waits: $(cat "$tmp/n.err")"
await "$out/n~2.summary.json"
echo "ok: cairn results n says when a newer n.jsonl waits to run as n~N"

# Two `cairn submit --name` of one name at once: one may be refused, and
# when both are taken (the first claimed between the second's check and
# its rename) the second runs as x~2; each --wait reports its own records.
printf '{"variant":"877","input":{"piles":[5,3,4,5]}}\n' >"$tmp/sub/one.jsonl"
cat "$tmp/sub/one.jsonl" "$tmp/sub/one.jsonl" >"$tmp/sub/two.jsonl"
both=0
for k in 1 2 3 4 5 6 7 8; do
    "$cairn" -c "$tmp/client.json" submit --name "x$k" --wait "$tmp/sub/one.jsonl" >"$tmp/x1" 2>&1 &
    p1=$!
    "$cairn" -c "$tmp/client.json" submit --name "x$k" --wait "$tmp/sub/two.jsonl" >"$tmp/x2" 2>&1
    r2=$?
    wait $p1
    r1=$?
    [ $r1 -ne 0 ] || grep -q "^x$k: ok, 1 record:" "$tmp/x1" || fail "x$k: the 1-record submit got: $(cat "$tmp/x1")"
    [ $r2 -ne 0 ] || grep -q "^x$k: ok, 2 records" "$tmp/x2" || fail "x$k: the 2-record submit got: $(cat "$tmp/x2")"
    [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && both=$((both + 1))
done
kill "$daemon"
wait "$daemon"
daemon=
echo "ok: concurrent submit --name --wait of one name: each reports its own records ($both of 8 both taken)"

# A failed job that ran as NAME~N goes back, at `cairn retry`, as the name
# it was submitted as, so its re-run's summary says submitted_as again
# (it used to go back as NAME~N and lose it).
drop f 1
once "$tmp/c.json"
ln -s "$tmp/sub/one.jsonl" "$tmp/.f" && mv "$tmp/.f" "$in/f.jsonl"
"$cairnd" --once -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log"
[ $? -eq 1 ] || fail "--once over a failing job did not exit 1"
[ "$(field "$out/f~2.summary.json" status)" = "failed" ] &&
    [ "$(field "$out/f~2.summary.json" submitted_as)" = "f.jsonl" ] ||
    fail "a symlink dropped as f.jsonl did not fail as f~2: $(ls "$in/.cairn/failed")"
cp --remove-destination "$tmp/sub/one.jsonl" "$in/.cairn/failed/f~2.jsonl"
"$cairn" -c "$tmp/client.json" retry 'f~2' >"$tmp/f.out" 2>&1 || fail "cairn retry f~2: $(cat "$tmp/f.out")"
grep -q '^f~2: requeued as f.jsonl, the name it was submitted as$' "$tmp/f.out" ||
    fail "cairn retry f~2 said: $(cat "$tmp/f.out")"
once "$tmp/c.json"
[ "$(field "$out/f~2.summary.json" status)" = "ok" ] &&
    [ "$(field "$out/f~2.summary.json" submitted_as)" = "f.jsonl" ] ||
    fail "the retried f~2 ran without submitted_as: $(cat "$out/f~2.summary.json")"
echo "ok: cairn retry of a failed f~2 requeues it as f.jsonl; it runs as f~2 with submitted_as again"

# The outputs taken away (a consumer moved them off): the input kept in
# done/, or in failed/, still marks the name as used, so the next job of
# the name runs as NAME~2 and leaves that copy as it was.
drop o 1
once "$tmp/c.json"
rm "$out/o.summary.json" "$out/o.results.jsonl"
cp "$in/.cairn/done/o.jsonl" "$tmp/o.done.first"
drop o 2
once "$tmp/c.json"
[ "$(field "$out/o~2.summary.json" records)" = "2" ] || fail "outputs removed: no o~2 run: $(ls "$out")"
[ ! -e "$out/o.summary.json" ] || fail "outputs removed: the second o ran as o"
cmp -s "$in/.cairn/done/o.jsonl" "$tmp/o.done.first" || fail "outputs removed: done/o.jsonl was replaced"
ln -s "$tmp/sub/one.jsonl" "$tmp/.q" && mv "$tmp/.q" "$in/q.jsonl"
"$cairnd" --once -c "$tmp/c.json" --input "$in" --output "$out" --plugins "$plugins" 2>>"$tmp/d.log"
[ -L "$in/.cairn/failed/q.jsonl" ] || fail "the symlink dropped as q.jsonl is not in failed/"
rm "$out/q.summary.json"
drop q 3
once "$tmp/c.json"
[ "$(field "$out/q~2.summary.json" records)" = "3" ] || fail "failed/ copy: no q~2 run: $(ls "$out")"
[ -L "$in/.cairn/failed/q.jsonl" ] || fail "failed/ copy: failed/q.jsonl was replaced"
echo "ok: with the outputs removed, a done/ or failed/ copy still marks the name as used"
