#!/usr/bin/env bash
# Benchmark: `elk reproduce --figure all` end to end (every figure planned,
# simulated where the figure asks, CSVs, gnuplot scripts and PNGs written),
# against issue 13's targets of 10 s and 512 MB on two cores. Runs it N
# times into a scratch folder and prints each run's wall time, CPU time and
# peak RSS (GNU time) and their medians; the figure table of the last run's
# summary.md says where the time went.
#
# usage: tests/bench_reproduce.sh [ELK] [N] [reproduce options...]
#   ELK  the binary (default build/app/elk)
#   N    runs (default 3)
#   reproduce options: e.g. --no-plot, -j 1, --profile physical
set -eu
ELK=${1:-build/app/elk}
N=${2:-3}
shift $(($# < 2 ? $# : 2))
[ -x /usr/bin/time ] || { echo "bench_reproduce: GNU time (/usr/bin/time) is required" >&2; exit 2; }
DIR=$(mktemp -d "${TMPDIR:-/tmp}/elk-bench-repro.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') ($(nproc) cores), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "elk reproduce --figure all${*:+ $*}, $N runs"
printf '%6s %10s %10s %10s\n' run "wall s" "cpu s" "peak MB"
for ((i = 1; i <= N; i++)); do
    rm -rf "$DIR/out"
    /usr/bin/time -f '%e %U %S %M' -o "$DIR/time" "$ELK" reproduce --figure all -o "$DIR/out" --quiet "$@" >/dev/null
    read -r wall user sys rss <"$DIR/time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    printf '%6d %10.2f %10.2f %10.1f\n' "$i" "$wall" "$cpu" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
    echo "$wall $cpu $rss" >>"$DIR/runs"
done
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%6s %10.2f %10.2f %10.1f\n' median "$(cut -d' ' -f1 "$DIR/runs" | med)" "$(cut -d' ' -f2 "$DIR/runs" | med)" \
    "$(cut -d' ' -f3 "$DIR/runs" | med | awk '{ print $1 / 1024 }')"
echo "targets (issue 13): wall <= 10 s, peak <= 512 MB"
sed -n '/^## This run/,$p' "$DIR/out/summary.md"
