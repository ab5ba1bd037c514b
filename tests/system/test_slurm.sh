#!/bin/bash
# test_slurm.sh SRCDIR CAIRND PLUGINDIR - contrib/slurm/cairn-slurm on a live
# single-node Slurm cluster.
#
# Brings up munged, slurmctld and slurmd (no systemd: each started here, in
# its own session, on free loopback ports, with its own munge key, state and
# logs in a temporary directory), then:
#   1. runs the recipe over a deterministic corpus (every game, official,
#      extended and alias records, every error code, blank, whitespace-only
#      and CRLF lines, a byte-order mark, no final newline) with 1 and with
#      2 tasks: the merged results must be byte-identical to one
#      `cairnd --filter` over the whole file, and the summary's counts equal
#      those of a `cairnd --once` summary of the same file;
#   2. holds shard 1 of a 3-task run halfway on a gate it never opens (the
#      recipe's test-only CAIRN_SLURM_TEST_GATE), cancels that one array
#      task with scancel while it is held, cairnd mid-run, and checks that
#      the recipe re-ran that shard alone (not held: a re-run goes through)
#      and the output is still identical;
#   3. does the same with --retries 0: the recipe must exit 1 and publish
#      nothing.
# Between 1 and 2 it also runs job names holding any bytes (a tab, a
# newline, bytes that are not UTF-8, quotes, control bytes) in directories
# with a newline and a tab in their names: the summary's `job` must be the
# one cairnd --once writes for such a file; a job that can never start
# (cancelled and said); and holds (a task Slurm held after a failed launch
# is cancelled and re-run; a user's hold is said and waited for).
# Prints the records/s of the 1- and 2-task runs.  Stops only the processes
# it started, by PID, whatever happens (trap).  A wait is for a state (a
# file, a log line, squeue's word), with a deadline only against a hang.
#
#   CAIRN_TEST_SLURM_RECORDS         records per game in the corpus [3000]
#   CAIRN_TEST_SLURM_KEEP=1          keep the temporary directory (logs) on exit
#   CAIRN_TEST_TIMEOUT_MULTIPLIER=N  every deadline N times longer [1]
#
# Exit status: 0 pass, 1 fail, 77 skip (not root, or Slurm/munge not
# installed: apt-get install slurmctld slurmd slurm-client munge, which
# scripts/deps does).
# shellcheck disable=SC2015 # "A && B || fail": fail when either test fails
set -u -o pipefail
set +m # no job control: `setsid prog &` then execs prog in place, so $! is its PID

src=${1:?usage: test_slurm.sh SRCDIR CAIRND PLUGINDIR}
cairnd=${2:?usage: test_slurm.sh SRCDIR CAIRND PLUGINDIR}
built_plugins=${3:?usage: test_slurm.sh SRCDIR CAIRND PLUGINDIR}
per_game=${CAIRN_TEST_SLURM_RECORDS:-3000}
mult=${CAIRN_TEST_TIMEOUT_MULTIPLIER:-1}
[[ $mult =~ ^[1-9][0-9]*$ ]] ||
    { echo "FAIL: CAIRN_TEST_TIMEOUT_MULTIPLIER must be a positive integer, not '$mult'"; exit 1; }
recipe=$src/contrib/slurm/cairn-slurm
t0=$(date +%s.%N)

skip() {
    echo "SKIP: $*"
    exit 77
}
since() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
say() { echo "[slurm $(since)s] $*"; }

# The recipe's usage needs no cluster: --help is asked for (stdout, exit
# 0), a bad option is a mistake (stderr, exit 2).
help_out=$("$recipe" --help 2>/dev/null) && case $help_out in "usage: cairn-slurm"*) ;; *) false ;; esac ||
    { echo "FAIL: cairn-slurm --help does not print its usage on stdout and exit 0"; exit 1; }
"$recipe" --no-such-option >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: cairn-slurm with an unknown option does not exit 2"; exit 1; }
say "cairn-slurm --help: usage on stdout, exit 0; an unknown option: exit 2"

[ "$(id -u)" -eq 0 ] || skip "not root: the test starts munged, slurmctld and slurmd itself, and slurmd runs jobs as their submitter"
for tool in munged munge unmunge slurmctld slurmd sbatch squeue scancel scontrol sinfo python3; do
    command -v "$tool" >/dev/null 2>&1 ||
        skip "$tool not found: Slurm cannot run here (apt-get install slurmctld slurmd slurm-client munge; scripts/deps installs them)"
done

tmp=$(mktemp -d /tmp/cairn-test-slurm.XXXXXX) || exit 1
chmod 0755 "$tmp"
cluster=$tmp/cluster
cluster_tool=$src/contrib/slurm/single-node-cluster
export SLURM_CONF=$cluster/etc/slurm.conf

# ---- processes we started, and only those ------------------------------
recipe_pid="" cluster_up=0

# alive PID NAME: PID is a live process (not a zombie) called NAME, so a
# recycled PID is never signalled.
alive() {
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] || return 1
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

stop_pid() { # stop_pid PID NAME
    local i
    alive "$1" "$2" || { wait "$1" 2>/dev/null; return 0; }
    kill -TERM "$1" 2>/dev/null
    for ((i = 0; i < 100; i++)); do
        alive "$1" "$2" || break
        sleep 0.1
    done
    if alive "$1" "$2"; then
        echo "test_slurm: $2 (pid $1) ignored SIGTERM for 10 s: SIGKILL" >&2
        kill -KILL "$1" 2>/dev/null
    fi
    wait "$1" 2>/dev/null
    return 0
}

cleanup() {
    local rc=$? i
    trap - EXIT INT TERM HUP
    if [ -n "$recipe_pid" ]; then stop_pid "$recipe_pid" cairn-slurm; fi
    # The cluster's jobs are cancelled, then its daemons stopped by PID.
    [ "$cluster_up" -eq 0 ] || "$cluster_tool" down "$cluster"
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
        for f in "$cluster"/log/*; do
            [ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 20 "$f"; }
        done >&2
    fi
    if [ "${CAIRN_TEST_SLURM_KEEP:-0}" = 1 ]; then
        echo "test_slurm: kept $tmp" >&2
    else
        rm -rf "$tmp"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# ---- the cluster ---------------------------------------------------------
# The recipe's own single-node cluster (contrib/slurm/single-node-cluster),
# so the steps the README gives are the ones tested.
cluster_up=1
"$cluster_tool" up "$cluster" >/dev/null 2>"$tmp/cluster-up.log"
case $? in
    0) ;;
    77) cluster_up=0; skip "$(cat "$tmp/cluster-up.log")" ;;
    *) cluster_up=0; fail "single-node-cluster up failed: $(cat "$tmp/cluster-up.log")" ;;
esac
say "cluster up: $(tail -n 1 "$tmp/cluster-up.log")"

# ---- plugins, configuration, corpus --------------------------------------
# The plugin directory the recipe's README asks for: its own copies,
# regular files, nothing writable by group or others.
plugins=$tmp/plugins
mkdir -m 0755 "$plugins"
cp "$built_plugins"/*.so "$plugins/" && chmod 0755 "$plugins"/*.so || fail "cannot copy plugins"
cfg=$tmp/cairn.json
# min_age_ms 0: the --once reference takes its job at once.
echo '{"max_line_bytes": 65536, "min_age_ms": 0}' >"$cfg"

input=$tmp/corpus.jsonl
python3 - "$per_game" "$src/examples" "$input" <<'EOF' || fail "corpus generation failed"
import random, sys

per_game, examples, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
errors = open(examples + "/errors.jsonl", "rb").read().splitlines()
extras = (open(examples + "/official.jsonl", "rb").read().splitlines() +
          open(examples + "/extended.jsonl", "rb").read().splitlines())
rng = random.Random(877 + 1140 + 1406)
nums = lambda n, lo, hi: ",".join(map(str, rng.choices(range(lo, hi + 1), k=n)))
lines = [b"\xef\xbb\xbf" + extras[0]]  # a byte-order mark on the first line
for i in range(3 * per_game):
    game, opts = i % 3, ""
    if i % 7 == 0:
        opts = ',"options":{"moves":true}'
    elif i % 11 == 0:
        opts = ',"options":{"limits":"extended"}'
    if game == 0:
        n = 2 * rng.randint(1, 60)
        piles = rng.choices(range(1, 501), k=n)
        if sum(piles) % 2 == 0:
            piles[0] += 1 if piles[0] < 500 else -1
        rec = '{"id":%d,"variant":"%s","input":{"piles":[%s]}%s}' % (
            i, "877" if i % 5 == 0 else "stone-game", ",".join(map(str, piles)), opts)
    elif game == 1:
        rec = '{"id":"r%d","variant":"%s","input":{"piles":[%s]}%s}' % (
            i, "1140" if i % 5 == 1 else "stone-game-ii", nums(rng.randint(1, 60), 1, 10000), opts)
    else:
        rec = '{"id":%d.5,"variant":"%s","input":{"stoneValue":[%s]}%s}' % (
            i, "1406" if i % 5 == 2 else "stone-game-iii", nums(rng.randint(1, 400), -1000, 1000), opts)
    end = b"\r\n" if i % 61 == 0 else b"\n"
    lines.append(rec.encode() + end[:-1])
    if i % 40 == 0:
        lines.append(errors[(i // 40) % len(errors)])
    if i % 97 == 0:
        lines.append(b"")
    if i % 89 == 0:
        lines.append(b" \t ")
    if i % 101 == 0:
        lines.append(extras[(i // 101) % len(extras)])
    if i % 503 == 0:
        lines.append(b"\xef\xbb\xbf{}")  # a mid-file mark is not JSON
lines.append(b"x" * 70000)  # over max_line_bytes: too_large
with open(out, "wb") as f:
    f.write(b"\n".join(lines) + b'\n{"variant":"877","input":{"piles":[3,7,2,3]}}')  # no final newline
EOF
say "corpus: $(wc -l <"$input") lines, $(wc -c <"$input") bytes, $per_game records per game"

# The references: one cairnd --filter over the whole file, and the summary
# cairnd --once writes for it.
ref=$tmp/ref.jsonl
"$cairnd" --filter -c "$cfg" --plugins "$plugins" --threads 1 <"$input" >"$ref" ||
    fail "cairnd --filter over the corpus failed"
mkdir -p "$tmp/spool/in" "$tmp/spool/out"
cp "$input" "$tmp/spool/in/corpus.jsonl"
"$cairnd" --once -c "$cfg" --plugins "$plugins" --threads 1 --input "$tmp/spool/in" \
    --output "$tmp/spool/out" 2>"$tmp/once.log" || fail "cairnd --once failed: $(cat "$tmp/once.log")"
records=$(wc -l <"$ref")
for code in bad_json bad_record unknown_variant invalid_input constraint too_large; do
    grep -q "\"code\":\"$code\"" "$ref" || fail "the corpus has no $code line"
done
say "reference: $records result lines"

# compare_summary SUMMARY TASKS: the recipe's counts must be those of the
# --once summary; sets $retries $submissions $rps $wall_s $split_s $run_s
# from it (one python3 start: each costs a good part of a second here).
compare_summary() {
    local vals
    vals=$(python3 - "$1" "$tmp/spool/out/corpus.summary.json" "$2" <<'EOF'
import json, sys
s, ref, tasks = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
bad = [k for k in ("records", "ok", "errors", "matches", "mismatches", "bytes") if s[k] != ref[k]]
strip = lambda v: {k: v[k] for k in ("records", "ok", "errors")}
if {k: strip(v) for k, v in s["by_variant"].items() if v["records"]} != \
   {k: strip(v) for k, v in ref["by_variant"].items() if v["records"]}:
    bad.append("by_variant")
if s["status"] != "ok" or s["tasks"] != tasks or not s["wall_seconds"] > 0:
    bad.append("status/tasks/wall_seconds")
if bad:
    sys.exit("summary differs from cairnd --once in %s:\n%s\n%s" % (bad, json.dumps(s), json.dumps(ref)))
print(*(s[k] for k in ("retries", "submissions", "records_per_second", "wall_seconds",
                       "split_seconds", "run_seconds")))
EOF
    ) || return 1
    read -r retries submissions rps wall_s split_s run_s <<<"$vals"
}

# recipe_args TASKS OUTDIR [OPTION...]: the recipe's arguments, in $args.
recipe_args() {
    local tasks=$1 out=$2
    shift 2
    args=(-c "$cfg" --cairnd "$cairnd" --plugins "$plugins" --threads 1 --timeout $((240 * mult)) "$@"
        "$input" "$tasks" "$out")
}

# ---- 0. plugins the daemon would refuse: nothing is submitted --------------
mkdir -m 0775 "$tmp/open-plugins" && chmod 0775 "$tmp/open-plugins"
cp "$plugins"/*.so "$tmp/open-plugins/"
"$recipe" -c "$cfg" --cairnd "$cairnd" --plugins "$tmp/open-plugins" "$input" 2 "$tmp/out-refused" \
    2>"$tmp/recipe-refused.log"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'writable by group or others' "$tmp/recipe-refused.log" ||
    fail "a group-writable plugin directory: exit $rc, want 2 naming it: $(cat "$tmp/recipe-refused.log")"
[ -z "$(squeue -h -o %i)" ] && [ ! -e "$tmp/out-refused/corpus.results.jsonl" ] ||
    fail "a refused plugin directory still submitted or published something"
say "a group-writable plugin directory is refused (exit 2) before anything is submitted"

# ---- 1. byte-identical with 1 and 2 tasks ---------------------------------
declare -A rate wall
for tasks in 1 2; do
    out=$tmp/out$tasks
    recipe_args "$tasks" "$out"
    "$recipe" "${args[@]}" 2>"$tmp/recipe$tasks.log" ||
        fail "$tasks task(s): the recipe failed: $(cat "$tmp/recipe$tasks.log")"
    cmp "$ref" "$out/corpus.results.jsonl" ||
        fail "$tasks task(s): merged results differ from one cairnd --filter run"
    compare_summary "$out/corpus.summary.json" "$tasks" || fail "$tasks task(s): bad summary"
    [ "$retries" = 0 ] || fail "$tasks task(s): retries without a failure"
    [ ! -e "$out/.cairn-slurm.corpus" ] || fail "$tasks task(s): work directory left behind"
    rate[$tasks]=$rps
    wall[$tasks]=$wall_s
    say "$tasks task(s): identical to cairnd --filter; $records records in $wall_s s" \
        "(split $split_s s, Slurm $run_s s) = $rps records/s"
done

# ---- 1b. more tasks than some shards have lines, a mark on every line -----
# cairnd drops a byte-order mark from the first line it reads only: a shard
# starting with one must not lose it (in one run, such a line is bad_json).
small=$tmp/marks.jsonl
for i in 1 2 3 4 5 6 7; do
    printf '\357\273\277{"id":%d,"variant":"877","input":{"piles":[5,3,4,5]}}\n' "$i"
    [ "$i" = 3 ] && printf '\n \t\r\n'
done >"$small"
"$cairnd" --filter -c "$cfg" --plugins "$plugins" --threads 1 <"$small" >"$tmp/marks-ref.jsonl" ||
    fail "cairnd --filter over $small failed"
[ "$(grep -c '"status":"ok"' "$tmp/marks-ref.jsonl")" = 1 ] || fail "want one mark dropped by cairnd"
"$recipe" -c "$cfg" --cairnd "$cairnd" --plugins "$plugins" --threads 1 --timeout $((240 * mult)) \
    "$small" 5 "$tmp/out-marks" 2>"$tmp/recipe-marks.log" ||
    fail "5 tasks over $small: the recipe failed: $(cat "$tmp/recipe-marks.log")"
cmp "$tmp/marks-ref.jsonl" "$tmp/out-marks/marks.results.jsonl" ||
    fail "5 tasks over $small: merged results differ from one cairnd --filter run"
say "5 tasks over 7 records, each after a byte-order mark: identical to cairnd --filter"

# ---- 1c. job names with any bytes ------------------------------------------
# A tab, a newline, bytes that are not UTF-8, a quote, a backslash, a % and
# other control bytes in NAME, in directories with a newline and a tab in
# their names: every shard must run, the outputs must be named with NAME's
# raw bytes, and the summary's `job` must be what cairnd writes for a file
# of that name, checked against a `cairnd --once` summary.  That is
# cairn_name_escape(NAME) (core/lib/util.c: valid UTF-8 kept, a backslash
# doubled, every other byte \xNN in lower-case hex) written as jansson
# writes a string (\" \\ \b \f \n \r \t, other bytes below 0x20 as \u00XX,
# the rest as they are).
odd_names=($'a\tb' $'c\nd' $'e\xffz' $'q"u\\o%x\x01\x1b\x7f' $'\xc3\xa9\xed\xa0\x80\xe2\x82')
in_dir=$tmp/$'names\nin' out_dir=$tmp/$'names\tout\n'
mkdir -p "$in_dir" "$tmp/names-spool/in" "$tmp/names-spool/out"
for name in "${odd_names[@]}"; do
    cp "$small" "$in_dir/$name.jsonl" && cp "$small" "$tmp/names-spool/in/$name.jsonl" ||
        fail "cannot copy $small to a file with an odd name"
done
"$cairnd" --once -c "$cfg" --plugins "$plugins" --threads 1 --input "$tmp/names-spool/in" \
    --output "$tmp/names-spool/out" 2>"$tmp/names-once.log" ||
    fail "cairnd --once over odd names failed: $(cat "$tmp/names-once.log")"
checks=()
for name in "${odd_names[@]}"; do
    shown=$(printf '%q' "$name")
    # One run without -c: the recipe's own empty configuration then lives
    # in the work directory, and its path must reach the tasks intact (7
    # short records come out the same with or without -c).
    config_args=(-c "$cfg")
    [ "$name" = "${odd_names[1]}" ] && config_args=()
    # Progress said at every poll here: each run must say how it goes.
    CAIRN_SLURM_PROGRESS_S=0 "$recipe" "${config_args[@]}" --cairnd "$cairnd" --plugins "$plugins" \
        --threads 1 --timeout $((240 * mult)) "$in_dir/$name.jsonl" 2 "$out_dir" 2>"$tmp/recipe-name.log" ||
        fail "job name $shown: the recipe failed: $(cat "$tmp/recipe-name.log")"
    grep -Eq "after [0-9]+s: [0-9]+ running, [0-9]+ pending.*, [0-9] of 2 shards done" "$tmp/recipe-name.log" ||
        fail "job name $shown: no progress line while it waited: $(cat "$tmp/recipe-name.log")"
    cmp "$tmp/marks-ref.jsonl" "$out_dir/$name.results.jsonl" ||
        fail "job name $shown: results differ from one cairnd --filter run"
    [ -z "$(find "$out_dir" -maxdepth 1 -name '.*' ! -name . -print -quit)" ] ||
        fail "job name $shown: work directory or temporaries left behind in the output directory"
    checks+=("$out_dir/$name.summary.json" "$tmp/names-spool/out/$name.summary.json" "$in_dir/$name.jsonl")
done
python3 - "${checks[@]}" <<'EOF' || fail "odd job names: bad summary"
import json, os, re, sys

def no_constant(c):
    raise ValueError("not JSON: " + c)

def load(path):
    raw = open(path, "rb").read()
    # strict: UTF-8 only, no NaN or Infinity, no raw control bytes in strings
    return raw, json.loads(raw.decode("utf-8"), parse_constant=no_constant)

def escape(b):
    # cairn_name_escape, for the `input` path (cairnd's own holds no directory)
    return "\\\\".join(p.decode("utf-8", "backslashreplace") for p in b.split(b"\\"))

job_text = lambda raw: re.match(rb'\{"job":("(?:[^"\\]|\\.)*")', raw).group(1)
args = sys.argv[1:]
for path, ref_path, input_path in zip(args[::3], args[1::3], args[2::3]):
    (raw, s), (ref_raw, ref) = load(path), load(ref_path)
    bad = [k for k in ("job", "results") if s[k] != ref[k]]
    if job_text(raw) != job_text(ref_raw):
        bad.append("the job member's text")
    if s["input"] != escape(os.fsencode(input_path)):
        bad.append("input")
    if s["status"] != "ok" or s["records"] != ref["records"] or s["tasks"] != 2:
        bad.append("status/records/tasks")
    if bad:
        sys.exit("%r: summary differs from cairnd --once in %s:\n%r\n%r" % (path, bad, raw, ref_raw))
EOF
say "${#odd_names[@]} job names with tabs, newlines, bytes that are not UTF-8, quotes, backslashes, a % and control bytes: every shard ran, outputs as cairnd names them"

# ---- 1d. a job that can never start is said, not waited for -------------
# More CPUs per task than the node has: Slurm takes the job and keeps it
# pending (PartitionConfig) for ever.  The recipe must cancel it and say
# why, long before its --timeout, and say how it goes while it waits.
t_never=$(date +%s)
CAIRN_SLURM_PROGRESS_S=0 "$recipe" -c "$cfg" --cairnd "$cairnd" --plugins "$plugins" \
    --sbatch=--cpus-per-task=4096 --timeout $((240 * mult)) "$small" 2 "$tmp/out-never" 2>"$tmp/recipe-never.log"
rc=$?
t_never=$(($(date +%s) - t_never))
if grep -q "sbatch refused the job" "$tmp/recipe-never.log"; then
    say "a job asking for 4096 CPUs: sbatch refused it at once (exit $rc)"
    [ $rc -eq 1 ] || fail "a refused job: exit $rc, not 1: $(cat "$tmp/recipe-never.log")"
else
    [ $rc -eq 1 ] || fail "a job that can never start: exit $rc, not 1: $(cat "$tmp/recipe-never.log")"
    grep -q "can never start: Slurm keeps it pending for " "$tmp/recipe-never.log" ||
        fail "a job that can never start: no reason given: $(cat "$tmp/recipe-never.log")"
    [ "$t_never" -lt $((60 * mult)) ] || fail "a job that can never start took ${t_never}s to be given up"
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] || fail "the job that could never start was left queued"
    say "a job asking for 4096 CPUs: cancelled after ${t_never}s: $(grep -o 'pending for [A-Za-z_]*' "$tmp/recipe-never.log")"
fi
[ ! -e "$tmp/out-never/$(basename "$small" .jsonl).results.jsonl" ] ||
    fail "a job that never ran published results"

# ---- 1e. holds: Slurm's after a failed launch, and a user's ---------------
# A real failed launch needs a node that cannot start a task; here a wrapper
# squeue on the recipe's PATH shows the first job's user hold as Slurm's
# own ("launch failed requeued held") once, and the true reason after.  The
# run is submitted --hold: the recipe must cancel the "failed" tasks and
# submit their shards again (a retry each), then say the second job's user
# hold at once with the command that lifts it; the test lifts it, and the
# output must still equal cairnd --filter.
fakebin=$tmp/fakebin
mkdir -p "$fakebin"
cat >"$fakebin/squeue" <<EOF
#!/bin/bash
out=\$("$(command -v squeue)" "\$@") || exit
if [ -e "$tmp/fake-launch-failed" ] && [[ \$out == *JobHeldUser* ]]; then
    rm -f "$tmp/fake-launch-failed"
    out=\${out//JobHeldUser/launch failed requeued held}
fi
printf '%s\n' "\$out"
EOF
chmod +x "$fakebin/squeue"
touch "$tmp/fake-launch-failed"
PATH=$fakebin:$PATH "$recipe" -c "$cfg" --cairnd "$cairnd" --plugins "$plugins" --threads 1 \
    --timeout $((240 * mult)) --sbatch=--hold "$small" 2 "$tmp/out-held" 2>"$tmp/recipe-held.log" &
recipe_pid=$!
held_job=""
end=$(($(date +%s) + 60 * mult))
while :; do
    held_job=$(sed -n 's/^cairn-slurm: submitted array job \([0-9]*\) .*/\1/p' "$tmp/recipe-held.log" | sed -n 2p)
    [ -n "$held_job" ] && grep -q "task ${held_job}_.* is held (JobHeldUser): .*'scontrol release " \
        "$tmp/recipe-held.log" && break
    alive "$recipe_pid" cairn-slurm ||
        fail "a held job: the recipe ended before it said its second submission held: $(cat "$tmp/recipe-held.log")"
    [ "$(date +%s)" -lt "$end" ] ||
        fail "a held job: waited $((60 * mult)) s for the recipe to say its second submission held" \
            "(JobHeldUser); it says: $(cat "$tmp/recipe-held.log")"
    sleep 0.1
done
grep -q "could not be started on its node, and Slurm held it (launch failed requeued held); cancelled" \
    "$tmp/recipe-held.log" || fail "a task held after a failed launch was not cancelled: $(cat "$tmp/recipe-held.log")"
scontrol release "$held_job" || fail "scontrol release $held_job failed"
wait "$recipe_pid"
rc=$?
recipe_pid=""
[ "$rc" -eq 0 ] || fail "a held job, released: exit $rc: $(cat "$tmp/recipe-held.log")"
cmp "$tmp/marks-ref.jsonl" "$tmp/out-held/marks.results.jsonl" ||
    fail "after a failed launch and a hold, merged results differ from one cairnd --filter run"
grep -q '"retries":2,"submissions":2,' "$tmp/out-held/marks.summary.json" ||
    fail "want 2 retries in 2 submissions: $(cat "$tmp/out-held/marks.summary.json")"
say "a task held after a failed launch: cancelled and re-run; a user's hold said and waited for; output identical"

# ---- 2. a task cancelled mid-run is re-run alone ---------------------------
# cancel_mid_run OUTDIR LOG [OPTION...]: starts a 3-task run with shard 1
# held halfway on a gate never opened, waits until that shard is held and
# its cairnd has written part of its results, cancels that one array task,
# and waits for the recipe; its exit status is left in $recipe_rc and the
# partial line count in $partial.
cancel_mid_run() {
    local out=$1 log=$2 job="" tmpfile="" f end held
    shift 2
    recipe_args 3 "$out" --keep-work "$@"
    mkdir "$out.gate" || fail "cannot create $out.gate"
    CAIRN_SLURM_TEST_GATE=1:$out.gate "$recipe" "${args[@]}" 2>"$log" &
    recipe_pid=$!
    end=$(($(date +%s) + 120 * mult))
    while :; do
        [ -n "$job" ] || job=$(sed -n 's/^cairn-slurm: submitted array job \([0-9]*\) .*/\1/p' "$log" | head -n 1)
        held=$(grep -s "^cairn-shard: shard 1: held halfway" "$out/.cairn-slurm.corpus/logs/${job:-none}_1.out")
        if [ -n "$held" ]; then
            for f in "$out"/.cairn-slurm.corpus/results/.000001.*.tmp; do
                [ -s "$f" ] && tmpfile=$f
            done
            [ -n "$tmpfile" ] && break
        fi
        alive "$recipe_pid" cairn-slurm || fail "the recipe ended before shard 1 was held mid-run: $(cat "$log")"
        [ "$(date +%s)" -lt "$end" ] ||
            fail "waited $((120 * mult)) s for shard 1 held with part of its results written; job ${job:-not submitted};" \
                "its log says: ${held:-not held}; squeue: $(squeue -h -o '%i %T %r' | tr '\n' ';')" \
                "temporaries: $(find "$out"/.cairn-slurm.corpus/results -mindepth 1 -printf '%f (%s bytes) ' 2>&1)"
        sleep 0.1
    done
    partial=$(wc -l <"$tmpfile")
    scancel "${job}_1" || fail "scancel ${job}_1 failed"
    say "cancelled task ${job}_1, held with $partial of its result lines written"
    wait "$recipe_pid"
    recipe_rc=$?
    recipe_pid=""
    scontrol -o show job "${job}_1" | grep -q 'JobState=CANCELLED' ||
        fail "task ${job}_1 is not CANCELLED: $(scontrol -o show job "${job}_1")"
    cancelled_job=$job
}

out=$tmp/out-cancel
cancel_mid_run "$out" "$tmp/recipe-cancel.log"
[ "$recipe_rc" -eq 0 ] || fail "the recipe did not recover (exit $recipe_rc): $(cat "$tmp/recipe-cancel.log")"
shard1=$(awk '$1 == 1 { print $3 }' "$out/.cairn-slurm.corpus/manifest")
[ "$partial" -gt 0 ] && [ "$partial" -lt "$shard1" ] ||
    fail "the cancel was not mid-run: $partial of $shard1 lines written"
cmp "$ref" "$out/corpus.results.jsonl" || fail "after a cancelled task, merged results differ"
compare_summary "$out/corpus.summary.json" 3 || fail "after a cancelled task: bad summary"
[ "$retries" = 1 ] && [ "$submissions" = 2 ] ||
    fail "want 1 retry in 2 submissions: $(cat "$out/corpus.summary.json")"
grep -q '^cairn-slurm: re-running shard(s) 1 ' "$tmp/recipe-cancel.log" ||
    fail "shard 1 was not re-run alone: $(cat "$tmp/recipe-cancel.log")"
grep -q 'signalled, results not published' "$out"/.cairn-slurm.corpus/logs/"${cancelled_job}"_1.out ||
    fail "the cancelled task did not refuse to publish: $(cat "$out"/.cairn-slurm.corpus/logs/"${cancelled_job}"_1.out)"
say "cancelled task re-run alone: output still identical, summary says 1 retry"

# ---- 3. no retries left: nothing published ---------------------------------
out=$tmp/out-noretry
cancel_mid_run "$out" "$tmp/recipe-noretry.log" --retries 0
[ "$recipe_rc" -eq 1 ] || fail "with --retries 0 a cancelled task must fail the run (exit $recipe_rc)"
grep -q 'still failed after 0 retries' "$tmp/recipe-noretry.log" ||
    fail "no reason given: $(cat "$tmp/recipe-noretry.log")"
[ ! -e "$out/corpus.results.jsonl" ] && [ ! -e "$out/corpus.summary.json" ] ||
    fail "a failed run published results"
[ -z "$(find "$out" -maxdepth 1 -name '.corpus*')" ] || fail "a failed run left temporaries in $out"
say "with --retries 0 the run fails and publishes nothing"

say "ok: records/s: 1 task ${rate[1]}, 2 tasks ${rate[2]} ($records records of all three games, wall ${wall[1]} s and ${wall[2]} s including scheduling)"
