#!/usr/bin/env bash
# docs/SWEEPS.md's cluster recipes, run as written (issue 13): a sharded
# sweep through GNU parallel, and through a Slurm job array on a private
# one-node Slurm (slurmctld + slurmd + munged, all in a scratch folder, on
# ports of their own), each merged with `elk merge` and compared byte for
# byte with the unsharded run. A part whose tools are missing, or whose
# daemons cannot start here (containers without the privileges), is skipped
# with the reason; when both are skipped the script exits 77, which ctest
# reports as skipped.
#
# usage: cluster_cli.sh ELK_BINARY SOURCE_DIR
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 ELK_BINARY SOURCE_DIR" >&2
    exit 2
fi
ELK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
export ELK_DATADIR=$SRC LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/elk-cluster-XXXXXX") || exit 2
chmod 700 "$tmp"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    sleep 0.5
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
fail=0 ran=0
SWEEP=$SRC/sweeps/demo-hbm-noc.cfg
cd "$tmp" || exit 2
"$ELK" sweep "$SWEEP" --quiet -o "$tmp/whole.csv" || { echo "FAIL: the unsharded sweep"; exit 1; }
mkdir -p bin && ln -s "$ELK" bin/elk
export PATH=$tmp/bin:$PATH

# ---- GNU parallel (docs/SWEEPS.md, "GNU parallel"), four shards ----
if command -v parallel >/dev/null 2>&1 && parallel --version 2>/dev/null | grep -q "GNU parallel"; then
    mkdir -p p && (cd p && mkdir -p shards &&
        parallel -j 4 elk sweep "$SWEEP" --shard {}/4 --jobs 1 --quiet -o shards/fig21-{}.csv ::: 0 1 2 3 &&
        elk merge shards/fig21-*.csv -o fig21.csv)
    if cmp -s p/fig21.csv whole.csv; then
        echo "ok: GNU parallel, 4 shards merged = the unsharded CSV"
    else
        echo "FAIL: GNU parallel shards merged differ from the unsharded CSV"
        fail=1
    fi
    ran=1
else
    echo "skip: GNU parallel is not installed (Debian: apt-get install parallel)"
fi

# ---- Slurm job array (docs/SWEEPS.md, "Slurm job array") ----
slurm_skip() {
    echo "skip: Slurm: $*"
    [ -f "$tmp/slurmctld.log" ] && tail -n 3 "$tmp/slurmctld.log" | sed 's/^/  slurmctld: /'
    [ -f "$tmp/slurmd.log" ] && tail -n 3 "$tmp/slurmd.log" | sed 's/^/  slurmd: /'
}
run_slurm() {
    for t in sbatch squeue sinfo slurmctld slurmd munged; do
        command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] ||
            { slurm_skip "$t is not installed (Debian: apt-get install slurm-wlm munge)"; return 1; }
    done
    [ "$(id -u)" -eq 0 ] || { slurm_skip "a private slurmd needs root here"; return 1; }
    local sbin=/usr/sbin host port
    host=$(hostname -s)
    port=$((20000 + $$ % 20000))
    mkdir -p munge state spool logs
    chmod 700 munge
    head -c 1024 /dev/urandom >munge/munge.key && chmod 400 munge/munge.key
    "$sbin/munged" --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.sock" \
        --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
        --seed-file="$tmp/munge/munged.seed" >/dev/null 2>&1 ||
        { slurm_skip "munged does not start"; return 1; }
    sleep 0.3
    [ -f munge/munged.pid ] && pids+=("$(cat munge/munged.pid)")
    cat >slurm.conf <<EOF
ClusterName=elktest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=elk Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$tmp/slurm.conf
    "$sbin/slurmctld" -i >/dev/null 2>&1 || { slurm_skip "slurmctld does not start"; return 1; }
    "$sbin/slurmd" >/dev/null 2>&1 || { slurm_skip "slurmd does not start"; return 1; }
    sleep 0.5
    [ -f slurmctld.pid ] && pids+=("$(cat slurmctld.pid)")
    [ -f slurmd.pid ] && pids+=("$(cat slurmd.pid)")
    local i state=""
    for ((i = 0; i < 60; i++)); do
        state=$(sinfo -h -N -o %t 2>/dev/null | head -n1)
        case "$state" in idle*|mix*|alloc*) break ;; esac
        sleep 0.5
    done
    case "$state" in idle*|mix*|alloc*) ;; *) slurm_skip "the node did not come up (state '${state:-none}')"; return 1 ;; esac
    # the docs' array script, with this sweep and three one-CPU tasks
    cat >fig21.sbatch <<EOF
#!/bin/bash
#SBATCH --job-name=elk-fig21
#SBATCH --array=0-2
#SBATCH --cpus-per-task=1
#SBATCH --time=00:10:00
#SBATCH --output=logs/%x-%a.out
set -euo pipefail
N=\$((SLURM_ARRAY_TASK_MAX + 1))
mkdir -p shards
elk sweep $SWEEP --shard "\${SLURM_ARRAY_TASK_ID}/\${N}" \\
    --jobs "\${SLURM_CPUS_PER_TASK}" -o "shards/fig21-\${SLURM_ARRAY_TASK_ID}.csv"
EOF
    local jid mid
    jid=$(sbatch --parsable fig21.sbatch) || { echo "FAIL: sbatch of the array"; return 2; }
    mid=$(sbatch --parsable --dependency=afterok:"${jid}" --job-name=elk-merge --output=logs/merge.out \
        --wrap "elk merge shards/fig21-*.csv -o fig21.csv") || { echo "FAIL: sbatch of the merge"; return 2; }
    for ((i = 0; i < 240; i++)); do
        [ -z "$(squeue -h -j "${jid},${mid}" 2>/dev/null)" ] && break
        sleep 0.5
    done
    if [ -n "$(squeue -h -j "${jid},${mid}" 2>/dev/null)" ]; then
        echo "FAIL: Slurm jobs still queued after 2 minutes"
        squeue
        return 2
    fi
    if cmp -s fig21.csv whole.csv; then
        echo "ok: Slurm array of 3 tasks, merged by a dependent job = the unsharded CSV"
    else
        echo "FAIL: the Slurm shards merged differ from the unsharded CSV"
        cat logs/*.out 2>/dev/null | head -n 20
        return 2
    fi
    return 0
}
run_slurm
case $? in
    0) ran=1 ;;
    2) fail=1; ran=1 ;;
esac
[ "$fail" -ne 0 ] && exit 1
[ "$ran" -eq 0 ] && exit 77
exit 0
