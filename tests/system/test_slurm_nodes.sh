#!/bin/sh
# test_slurm_nodes.sh SRCDIR BUILDDIR - contrib/slurm/cairn-slurm on a
# live three-node Slurm cluster where a node hangs, and then one is lost,
# mid-array.
#
# Brings up contrib/slurm/multi-node-cluster: one munged, one slurmctld and
# three slurmd (n1, n2, n3; Debian's slurmd runs several per machine), each
# node in its own PID, mount and UTS namespace.  The corpus: every game
# (cairn gen) and the examples (every error code).  Every shard is held
# halfway on a gate the test opens (the recipe's test-only
# CAIRN_SLURM_TEST_GATE=all:DIR; DIR/SHARD opens one shard, DIR/all every
# one), so a node is taken while its task's cairnd has written part of its
# results, however slow the machine, and a shard goes on only once the test
# has checked what it must while it is held.  Then:
#   1. a node hangs: cairn-slurm over 3 shards; the node of one is frozen
#      (SIGSTOP to everything in its namespace), the other two shards let
#      through to free their nodes; slurmctld marks it DOWN and requeues
#      the task on another node; while that attempt is held, the frozen
#      node is let go on (SIGCONT), so two attempts of one task (one job
#      id) live at once: each must have its own temporary file, the lost
#      one must not publish or remove the other's, and the node comes back
#      to service;
#   2. a node is lost: cairn-slurm over 24 shards; the first 3 shards to
#      reach the gate are let through, and once they are done the node of
#      a task held mid-run is killed (SIGKILL to its namespace: slurmd,
#      slurmstepd, the task and its cairnd die at once, and nothing tells
#      slurmctld); no process of it may survive, and slurmctld must mark it
#      DOWN;
#   3. a node is lost, the tasks submitted --no-requeue (3 shards, on the
#      two nodes left): the lost task ends NODE_FAIL, and cairn-slurm runs
#      its shard again itself (1 retry, 2 submissions), output identical.
# After 1 and 2: the merged results equal one `cairnd --filter` over the whole
# file byte for byte; the lost task was requeued by slurmctld for the
# failure of that node (Restarts=1, its log and slurmctld's say so) and
# completed on another node in the same array job; cairn-slurm needed no
# re-run of its own (retries 0, one submission); every task COMPLETED; the
# lost attempt's partial results were never published.
# Prints the wall time and each check.  Stops only the processes it
# started (the cluster's daemons, by PID), whatever happens (trap).  No
# step waits a fixed time: each waits for a state (a file, a log line,
# squeue's or sinfo's word), with a deadline only against a hang, which
# says what it waited for and what it saw.
#
#   CAIRN_TEST_SLURM_KEEP=1          keep the temporary directory (logs) on exit
#   CAIRN_TEST_TIMEOUT_MULTIPLIER=N  every deadline N times longer [1]
#
# Exit status: 0 pass, 1 fail, 77 skip (not root; Slurm or munge not
# installed: apt-get install slurmctld slurmd slurm-client munge; no PID,
# mount and UTS namespaces, as in some containers).
set -eu

src=${1:?usage: test_slurm_nodes.sh SRCDIR BUILDDIR}
build=${2:?usage: test_slurm_nodes.sh SRCDIR BUILDDIR}
cairnd=$build/core/cairnd
cairn=$build/client/cairn
recipe=$src/contrib/slurm/cairn-slurm
cluster_tool=$src/contrib/slurm/multi-node-cluster
per_game=600
t0=$(date +%s.%N)

since() { awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "[slurm-nodes $(since)s] $*"; }
skip() {
    echo "SKIP: $*"
    exit 77
}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

mult=${CAIRN_TEST_TIMEOUT_MULTIPLIER:-1}
case $mult in
    '' | *[!0-9]* | 0) fail "CAIRN_TEST_TIMEOUT_MULTIPLIER must be a positive integer, not '$mult'" ;;
esac
# deadline SECONDS: the time (date +%s) after which a wait that takes far
# less gives up, SECONDS scaled by the multiplier; past DEADLINE: it is.
deadline() { echo $(($(date +%s) + $1 * mult)); }
past() { [ "$(date +%s)" -ge "$1" ]; }

[ "$(id -u)" -eq 0 ] || skip "not root: the test starts munged, slurmctld and three slurmd itself, each slurmd in its own namespaces"
for tool in munged slurmctld slurmd sbatch squeue scontrol sinfo unshare python3 bash; do
    command -v "$tool" >/dev/null 2>&1 ||
        skip "$tool not found: Slurm cannot run here (apt-get install slurmctld slurmd slurm-client munge, which scripts/deps installs; unshare is util-linux's)"
done

tmp=$(mktemp -d /tmp/cairn-test-slurm-nodes.XXXXXX)
chmod 0755 "$tmp"
cluster=$tmp/cluster
export SLURM_CONF="$cluster/etc/slurm.conf"
recipe_pid="" cluster_up=0

cleanup() {
    rc=$?
    trap - EXIT INT TERM HUP
    # The recipe first (it cancels its job on SIGTERM), then the cluster:
    # its jobs cancelled, its daemons stopped by PID, each checked by name.
    if [ -n "$recipe_pid" ] && kill -0 "$recipe_pid" 2>/dev/null; then
        kill -TERM "$recipe_pid" 2>/dev/null || :
        wait "$recipe_pid" 2>/dev/null || :
    fi
    [ "$cluster_up" -eq 0 ] || "$cluster_tool" down "$cluster" || :
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then
        for f in "$cluster"/log/slurmctld.log "$tmp"/recipe-*.log "$tmp"/out-*/.cairn-slurm.corpus/logs/[0-9]*.out; do
            [ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }
        done >&2
    fi
    if [ "${CAIRN_TEST_SLURM_KEEP:-0}" = 1 ]; then
        echo "test_slurm_nodes: kept $tmp" >&2
    else
        rm -rf "$tmp"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ---- the cluster -----------------------------------------------------------
cluster_up=1
rc=0
"$cluster_tool" up "$cluster" 3 >/dev/null 2>"$tmp/cluster-up.log" || rc=$?
case $rc in
    0) ;;
    77) cluster_up=0; skip "$(cat "$tmp/cluster-up.log")" ;;
    *) cluster_up=0; fail "multi-node-cluster up failed: $(cat "$tmp/cluster-up.log")" ;;
esac
nodes=$(sinfo -h -N -o '%N %t' | sort)
[ "$(echo "$nodes" | grep -c ' idle$')" -eq 3 ] || fail "want 3 idle nodes, sinfo says: $nodes"
say "cluster up: 3 idle nodes ($(echo "$nodes" | cut -d' ' -f1 | tr '\n' ' '))"

# ---- plugins, configuration, corpus, reference ------------------------------
plugins=$tmp/plugins
mkdir -m 0755 "$plugins"
cp "$build"/plugins/*.so "$plugins/" && chmod 0755 "$plugins"/*.so || fail "cannot copy plugins"
cfg=$tmp/cairn.json
echo '{"log_level": "warning"}' >"$cfg"
input=$tmp/corpus.jsonl
: >"$input"
seed=25
for so in "$plugins"/*.so; do
    game=$(basename "$so" .so)
    "$cairn" -c "$cfg" gen "$game" --count "$per_game" --seed "$seed" --plugins "$plugins" >>"$input" ||
        fail "cairn gen $game failed"
    seed=$((seed + 1))
    cat "$src/examples/official.jsonl" "$src/examples/errors.jsonl" >>"$input"
done
ref=$tmp/ref.jsonl
"$cairnd" --filter -c "$cfg" --plugins "$plugins" --threads 1 <"$input" >"$ref" ||
    fail "cairnd --filter over the corpus failed"
say "corpus: $(wc -l <"$input") lines of $(ls "$plugins" | wc -l) games and examples; reference: one cairnd --filter"

# ---- helpers ----------------------------------------------------------------
# start_run NAME TASKS [OPTION]: cairn-slurm over the corpus in the
# background, every shard held halfway on the gate $tmp/gate-NAME; sets
# recipe_pid, out, work, log, gate, job (the first array job).
start_run() {
    out=$tmp/out-$1 log=$tmp/recipe-$1.log gate=$tmp/gate-$1
    work=$out/.cairn-slurm.corpus
    mkdir "$gate"
    CAIRN_SLURM_TEST_GATE=all:$gate "$recipe" -c "$cfg" --cairnd "$cairnd" --plugins "$plugins" \
        --threads 1 --timeout $((170 * mult)) --keep-work ${3:+"$3"} "$input" "$2" "$out" 2>"$log" &
    recipe_pid=$!
    end=$(deadline 30)
    while :; do
        job=$(sed -n 's/^cairn-slurm: submitted array job \([0-9]*\) .*/\1/p' "$log" | head -n 1)
        [ -z "$job" ] || break
        kill -0 "$recipe_pid" 2>/dev/null || fail "$1: the recipe ended before it submitted a job: $(cat "$log")"
        past "$end" && fail "$1: waited $((30 * mult)) s for the recipe to say it submitted a job; it says: $(cat "$log")"
        sleep 0.1
    done
}

# held_line SHARD RESTART NODE: the line the task's log has once attempt
# RESTART of SHARD, on NODE, is held on the gate (cairn-shard.sbatch).
held_line() {
    grep "^cairn-shard: shard $1: held halfway (restart $2 on $3)" "$work/logs/${job}_$1.out" 2>/dev/null
}

# held_now: what the task logs say about the gate so far, on one line.
held_now() {
    cat "$work"/logs/"${job}"_*.out 2>/dev/null | grep -E 'held halfway|gate is open' |
        sed 's/^cairn-shard: //; s/: waiting for .*//' | tr '\n' ';'
}

# let_through COUNT: opens the gate of the first COUNT shards to reach it,
# whichever tasks Slurm started first, each as soon as it is held; sets
# opened (their numbers, space-separated).
let_through() {
    opened="" n_open=0 end=$(deadline 90)
    while [ "$n_open" -lt "$1" ]; do
        kill -0 "$recipe_pid" 2>/dev/null || fail "the recipe ended before $1 shards were held: $(cat "$log")"
        for t in $(sed -n 's/^cairn-shard: shard \([0-9]*\): held halfway (restart 0 on .*/\1/p' \
            "$work"/logs/"${job}"_*.out 2>/dev/null); do
            case " $opened " in *" $t "*) continue ;; esac
            [ "$n_open" -lt "$1" ] || break
            touch "$gate/$t"
            opened="$opened $t" n_open=$((n_open + 1))
        done
        [ "$n_open" -lt "$1" ] || break
        past "$end" && fail "waited $((90 * mult)) s for $1 shards held on the gate; let through:" \
            "${opened:-none}; the task logs say: $(held_now)" \
            "squeue: $(squeue -h -j "$job" -o '%i %N %T %r' | tr '\n' ';')"
        sleep 0.1
    done
}

# mid_run RESTART DONE [SKIP]: waits until, with DONE shards published, a
# task runs (attempt RESTART: 0 first, 1 requeued), held on the gate, whose
# cairnd has written part of its results, its shard not one of SKIP (shard
# numbers, space-separated); sets task, node, partial (that attempt's
# temporary file, results/.SHARD.JOBID.RESTART.NODE.PID.tmp:
# cairn-shard.sbatch).
mid_run() {
    task="" node="" partial="" end=$(deadline 90)
    while :; do
        kill -0 "$recipe_pid" 2>/dev/null || fail "the recipe ended before it: $(cat "$log")"
        done_n=$(find "$work/results" -name '[0-9]*.jsonl' | wc -l)
        running=$(squeue -h -j "$job" -t RUNNING -o '%i %N' 2>/dev/null) || running=""
        if [ "$done_n" -ge "$2" ]; then
            while read -r id on; do
                [ -n "$id" ] || continue
                t=${id#*_}
                case " ${3:-} " in *" $t "*) continue ;; esac
                held_line "$t" "$1" "$on" >/dev/null || continue
                for f in "$work/results/.$(printf '%06d' "$t")".*".$1.$on".*.tmp; do
                    if [ -s "$f" ]; then
                        task=$t node=$on partial=$f
                        break 2
                    fi
                done
            done <<EOF
$running
EOF
            [ -z "$partial" ] || return 0
        fi
        past "$end" && fail "waited $((90 * mult)) s for a task of attempt $1 held mid-run (partial" \
            "results written) with $2 shards done${3:+, not one of shards$3}; saw $done_n done;" \
            "running: $(echo "$running" | tr '\n' ';') the task logs say: $(held_now)" \
            "temporaries: $(find "$work/results" -mindepth 1 -printf '%f (%s bytes) ')"
        sleep 0.1
    done
}

# wait_state NODE PATTERN WHAT: until sinfo's state of NODE matches PATTERN.
wait_state() {
    end=$(deadline 60)
    until sinfo -h -n "$1" -o %t | grep -Eq "^($2)"; do
        past "$end" && fail "waited $((60 * mult)) s for node $1 to be $3 (sinfo state $2);" \
            "sinfo says: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')"
        sleep 0.2
    done
}

# in_node NODE: every live process of NODE's PID namespace but its slurmd,
# as PID:NAME.  Not the zombies: slurmd, the namespace's first process,
# inherits the processes of a killed task and is slow to reap them.
in_node() {
    own=$(cat "$cluster/run/slurmd-$1.pid")
    ns=$(readlink "/proc/$own/ns/pid")
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" != "$own" ] && [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] || continue
        case $(sed 's/^.*) //' "$p/stat" 2>/dev/null | cut -d' ' -f1) in
            '' | Z | X) continue ;;
        esac
        echo "${p#/proc/}:$(cat "$p/comm" 2>/dev/null)"
    done
    return 0
}

# finish NAME: waits for the recipe; its results must equal the reference.
finish() {
    rc=0
    wait "$recipe_pid" || rc=$?
    recipe_pid=""
    [ "$rc" -eq 0 ] || fail "$1: the recipe failed (exit $rc): $(cat "$log")"
    cmp "$ref" "$out/corpus.results.jsonl" ||
        fail "$1: the merged results differ from one cairnd --filter run"
    say "check: merged results ($(wc -l <"$ref") lines) identical to one cairnd --filter, byte for byte"
}

# requeued TASK VICTIM TASKS: Slurm, not cairn-slurm, ran TASK again after
# the loss of VICTIM: same array job, a restart, completed on another node,
# and slurmctld says why; cairn-slurm re-ran nothing; every task completed.
requeued() {
    show=$(scontrol -o show job "${job}_$1") || fail "scontrol show job ${job}_$1 failed"
    state=$(echo "$show" | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p')
    restarts=$(echo "$show" | sed -n 's/.* Restarts=\([0-9]*\) .*/\1/p')
    host=$(echo "$show" | sed -n 's/.* BatchHost=\([^ ]*\) .*/\1/p')
    [ "$state" = COMPLETED ] && [ "${restarts:-0}" -ge 1 ] && [ -n "$host" ] && [ "$host" != "$2" ] ||
        fail "task ${job}_$1: want COMPLETED, Restarts>=1, on a node other than $2: $show"
    grep -q "requeue job JobId=${job}_$1(.*) due to failure of node $2" "$cluster/log/slurmctld.log" ||
        fail "slurmctld's log does not say it requeued ${job}_$1 for the failure of $2"
    tlog=$work/logs/${job}_$1.out
    grep -q "^cairn-shard: shard $1: started on $2 (restart 0)" "$tlog" &&
        grep -q "^cairn-shard: shard $1: started on $host (restart $restarts)" "$tlog" &&
        grep -q "^cairn-shard: shard $1: [0-9]* records, lines [0-9]*\.\. on $host" "$tlog" ||
        fail "task ${job}_$1's log does not show it lost on $2 and done on $host: $(cat "$tlog")"
    say "check: task ${job}_$1 requeued by slurmctld for the failure of $2 (Restarts=$restarts), completed on $host"
    summary=$(cat "$out/corpus.summary.json")
    case $summary in
        *'"status":"ok"'*'"tasks":'"$3"',"retries":0,"submissions":1,"slurm_jobs":['"$job"']'*) ;;
        *) fail "want status ok, $3 tasks, 0 retries, 1 submission (job $job) in the summary: $summary" ;;
    esac
    say "check: cairn-slurm needed no re-run of its own (summary: 0 retries, 1 submission)"
    [ "$(scontrol -o show job "$job" | grep -c ' JobState=COMPLETED ')" -eq "$3" ] ||
        fail "want $3 COMPLETED tasks in job $job: $(scontrol -o show job "$job" | sed -n 's/.*\( ArrayTaskId=[^ ]*\).*\( JobState=[^ ]*\).*/\1\2/p')"
    hosts=$(scontrol -o show job "$job" | sed -n 's/.* BatchHost=\([^ ]*\) .*/\1/p' | sort | uniq -c |
        awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
    say "check: all $3 tasks COMPLETED; tasks per node: $hosts"
}

# ---- 1. a node hangs, is given up, and comes back --------------------------
# Every process of the node stopped (SIGSTOP): slurmctld hears nothing, marks
# it DOWN and requeues its task.  The node is let go on (SIGCONT) while the
# requeued attempt is held: two attempts of one task, with one job id, alive
# at once.  Each must write its own temporary file (cairn-shard.sbatch), the
# lost one must not publish over or remove the other's, and the node must
# return to service (ReturnToService=2).
t1=$(date +%s)
start_run hang 3
mid_run 0 0
victim=$node lost=$task lost_tmp=$partial
"$cluster_tool" freeze-node "$cluster" "$victim" 2>>"$tmp/cluster-up.log" || fail "freeze-node $victim failed"
say "hang: froze node $victim while task ${job}_$lost was held there ($(wc -l <"$lost_tmp") result lines written)"
# Each node has one CPU, held by a shard: the other two go on, so that the
# requeued attempt finds a node.
for t in 0 1 2; do
    [ "$t" = "$lost" ] || touch "$gate/$t"
done
wait_state "$victim" 'down' "marked down"
say "check: slurmctld marked $victim $(sinfo -h -n "$victim" -o %T) after $(($(date +%s) - t1)) s"
mid_run 1 0
[ "$task" = "$lost" ] && [ "$node" != "$victim" ] ||
    fail "hang: want task $lost requeued on another node, found task $task on $node"
[ -s "$lost_tmp" ] && [ "$partial" != "$lost_tmp" ] ||
    fail "hang: the two attempts of task ${job}_$lost do not each have their own temporary file"
say "check: the requeued attempt of ${job}_$lost is held on $node in ${partial##*/}, beside the lost one's ${lost_tmp##*/}"
"$cluster_tool" thaw-node "$cluster" "$victim" 2>>"$tmp/cluster-up.log" || fail "thaw-node $victim failed"
touch "$gate/all"
say "hang: node $victim let go on while the requeued attempt was held; the gate opened"
finish hang
requeued "$lost" "$victim" 3
# The lost attempt's fate is read from its log once it has ended: slurmd
# kills it when slurmctld tells it to, or it runs to its end.
end=$(deadline 60)
while [ -n "$(in_node "$victim")" ]; do
    past "$end" && fail "hang: waited $((60 * mult)) s for the lost attempt on $victim to end;" \
        "its node still runs: $(in_node "$victim" | tr '\n' ' ')"
    sleep 0.2
done
tlog=$work/logs/${job}_$lost.out
if grep -q "^cairn-shard: shard $lost: signalled, results not published" "$tlog"; then
    fate="was killed when its node came back and published nothing"
elif grep -q "^cairn-shard: shard $lost: [0-9]* records, lines [0-9]*\.\. on $victim" "$tlog"; then
    fate="ran to its end and published the same bytes"
else
    fate="was killed outright (SIGKILL)"
fi
[ ! -e "$partial" ] || fail "hang: the requeued attempt's temporary file is left: $partial"
say "check: the lost attempt $fate; the requeued attempt's own file was published"
wait_state "$victim" 'idle' "back in service"
say "check: node $victim back idle (ReturnToService=2); scenario took $(($(date +%s) - t1)) s"

# ---- 2. a node is lost mid-array ---------------------------------------------
# The first 3 of 24 shards to reach the gate go on; once they are done (the
# array well under way, most of it to come), the node of a task held with
# part of its results written is killed: SIGKILL to its namespace, so
# slurmd, slurmstepd, the task and its cairnd die at once, and nothing
# tells slurmctld.  The gate opens once slurmctld has marked it DOWN.
t2=$(date +%s)
start_run loss 24
let_through 3
mid_run 0 3 "$opened"
victim=$node lost=$task lost_tmp=$partial
partial_lines=$(wc -l <"$lost_tmp")
ns=$(readlink "/proc/$(cat "$cluster/run/slurmd-$victim.pid")/ns/pid")
t_kill=$(date +%s)
"$cluster_tool" kill-node "$cluster" "$victim" 2>>"$tmp/cluster-up.log" || fail "kill-node $victim failed"
say "loss: shards$opened done; killed node $victim while task ${job}_$lost was held there ($partial_lines result lines written)"
for p in /proc/[0-9]*; do
    [ "$(readlink "$p/ns/pid" 2>/dev/null)" != "$ns" ] ||
        fail "process ${p#/proc/} ($(cat "$p/comm" 2>/dev/null)) of node $victim survived it"
done
say "check: no process of node $victim's namespace is left"
wait_state "$victim" 'down' "marked down"
say "check: slurmctld marked $victim $(sinfo -h -n "$victim" -o %T) after $(($(date +%s) - t_kill)) s"
touch "$gate/all"
finish loss
say "loss: the recipe finished $(($(date +%s) - t_kill)) s after the loss"
requeued "$lost" "$victim" 24
[ -s "$lost_tmp" ] && [ "$(wc -l <"$lost_tmp")" -lt "$(awk -v t="$lost" '$1 == t { print $3 }' "$work/manifest")" ] ||
    fail "the lost attempt's partial results $lost_tmp are gone or complete"
say "check: the lost attempt's $(wc -l <"$lost_tmp") partial result lines left unpublished (${lost_tmp##*/}); scenario took $(($(date +%s) - t2)) s"

# ---- 3. a node is lost, and the tasks may not be requeued -----------------
# --sbatch=--no-requeue (as on a cluster with JobRequeue=0): the lost task
# ends NODE_FAIL, and cairn-slurm itself runs its shard again, alone, once
# the array job has left the queue.  On the two nodes left.  The shard run
# again is cairn-slurm's second submission, which the gate does not hold.
t3=$(date +%s)
start_run noreq 3 --sbatch=--no-requeue
mid_run 0 0
victim=$node lost=$task
"$cluster_tool" kill-node "$cluster" "$victim" 2>>"$tmp/cluster-up.log" || fail "kill-node $victim failed"
touch "$gate/all"
say "no requeue: killed node $victim while task ${job}_$lost was held there; the gate opened"
finish noreq
show=$(scontrol -o show job "${job}_$lost") || fail "scontrol show job ${job}_$lost failed"
case $show in
    *" JobState=NODE_FAIL "*" Restarts=0 "*) ;;
    *) fail "no requeue: want task ${job}_$lost NODE_FAIL and never restarted: $show" ;;
esac
grep -q "^cairn-slurm: re-running shard(s) $lost (retry 1 of 3)" "$log" ||
    fail "no requeue: cairn-slurm did not re-run shard $lost alone: $(cat "$log")"
case $(cat "$out/corpus.summary.json") in
    *'"tasks":3,"retries":1,"submissions":2,'*) ;;
    *) fail "no requeue: want 1 retry in 2 submissions: $(cat "$out/corpus.summary.json")" ;;
esac
say "check: task ${job}_$lost ended NODE_FAIL, not requeued; cairn-slurm re-ran shard $lost alone (1 retry, 2 submissions); scenario took $(($(date +%s) - t3)) s"

say "ok: 3-node cluster; a node hung and came back, a node was lost mid-array: Slurm requeued each lost task; lost again with --no-requeue: cairn-slurm re-ran it; outputs identical; wall $(since) s"
