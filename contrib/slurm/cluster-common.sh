# cluster-common.sh - what single-node-cluster and multi-node-cluster
# share, sourced by both (bash; not run on its own).
#
# The sourcing script sets prog, dir (absolute) and conf, and defines
#   down                  stops whatever it started (failed calls it), and
#   daemons_alive WHAT    fails (by calling failed) when a daemon that must
#                         be up while WHAT starts has exited;
# everything under DIR is laid out as both scripts' heads describe:
# run/FILE.pid for the PIDs, log/ for the logs, munge/ for munged.
# shellcheck shell=bash
# shellcheck disable=SC2154 # prog, dir and conf: the sourcing script's

say() { echo "$prog: $*" >&2; }

# alive PID NAME: PID is a live process (not a zombie) called NAME, so a
# recycled PID is never signalled.
alive() {
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] || return 1
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

# pid_of FILE NAME: the PID in run/FILE.pid when it is a live NAME.
pid_of() {
    local pid
    pid=$(cat "$dir/run/$1.pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" "$2" && echo "$pid"
}

# stop FILE NAME [SIGNAL]: SIGNAL (TERM) to the NAME in run/FILE.pid, and
# SIGKILL if it is still there 10 s later.
stop() {
    local pid i
    pid=$(pid_of "$1" "$2") || { rm -f "$dir/run/$1.pid"; return 0; }
    kill -"${3:-TERM}" "$pid" 2>/dev/null
    for ((i = 0; i < 100; i++)); do
        alive "$pid" "$2" || break
        sleep 0.1
    done
    if alive "$pid" "$2"; then
        say "$2 (pid $pid) ignored SIG${3:-TERM} for 10 s: SIGKILL"
        kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$dir/run/$1.pid"
}

# cancel_jobs: the cluster's jobs cancelled, and waited for (10 s at most),
# so that nothing is left running on a node about to stop.
cancel_jobs() {
    local jobs i
    pid_of slurmctld slurmctld >/dev/null && [ -f "$conf" ] || return 0
    jobs=$(squeue -h -o %A 2>/dev/null | sort -u)
    # shellcheck disable=SC2086 # one job id per word
    [ -z "$jobs" ] || scancel --quiet $jobs 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
        sleep 0.2
    done
}

failed() {
    local f
    say "$*"
    for f in "$dir"/log/*; do
        [ -s "$f" ] && { echo "--- $f (last lines)"; tail -n 20 "$f"; }
    done >&2
    down
    exit 1
}

# start NAME FILE CMD...: CMD (whose process is called NAME once it runs)
# in its own session, logging to log/FILE.stderr, its PID in run/FILE.pid.
start() {
    local name=$1 file=$2 i pid
    shift 2
    setsid "$@" </dev/null >>"$dir/log/$file.stderr" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/run/$file.pid"
    # Until exec, the child is still called bash or setsid.
    for ((i = 0; i < 100; i++)); do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] && return 0
        sleep 0.02
    done
    failed "$name (pid $pid) did not start"
}

# wait_for SECONDS WHAT CMD...: until CMD succeeds, while the daemons live.
wait_for() {
    local end=$(($(date +%s) + $1)) what=$2
    shift 2
    until "$@" >/dev/null 2>&1; do
        daemons_alive "$what"
        [ "$(date +%s)" -lt "$end" ] || failed "$what not ready after $1 s"
        sleep 0.1
    done
}

# need_tools TOOL...: root, and every TOOL on PATH; else exit 77 (skip).
need_tools() {
    local tool
    [ "$(id -u)" -eq 0 ] || { say "not root: slurmd runs jobs as their submitter"; exit 77; }
    for tool in munged munge unmunge slurmctld slurmd sbatch squeue scancel scontrol sinfo python3 "$@"; do
        command -v "$tool" >/dev/null 2>&1 || {
            say "$tool not found (apt-get install slurmctld slurmd slurm-client munge)"
            exit 77
        }
    done
}

# free_ports N: N loopback ports free now, on one line.
free_ports() {
    python3 -c '
import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$1"
}

# conf_common CTLD_PORT: the slurm.conf lines both clusters share.  No
# cgroups (proctrack/linuxproc, task/none), no accounting, munge for
# authentication, jobs killed soon after a cancel.  Each script adds its
# slurmd's, its scheduler's and its nodes' lines.
conf_common() {
    cat <<EOF
ClusterName=cairn
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$1
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmctldPidFile=$dir/run/slurmctld.own.pid
SlurmctldLogFile=$dir/log/slurmctld.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
KillWait=5
MinJobAge=600
EOF
}

# start_munged_and_slurmctld: this cluster's own munge key (made once),
# munged, then slurmctld, each waited for.  munged wants its socket
# directory o+x and nothing group- or world-writable.
start_munged_and_slurmctld() {
    local socket=$dir/munge/munge.socket.2
    chmod 0711 "$dir/munge"
    [ -s "$dir/munge/munge.key" ] ||
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 0600 "$dir/munge/munge.key"
    start munged munged munged --foreground --socket="$socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/run/munged.own.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed"
    wait_for 15 munged sh -c "munge -n -S '$socket' | unmunge -S '$socket'"
    start slurmctld slurmctld slurmctld -D -c -f "$conf"
    wait_for 60 slurmctld sh -c "scontrol ping | grep -q 'is UP'"
}
