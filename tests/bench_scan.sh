#!/usr/bin/env bash
# Benchmark: the core-count scan of issue 13 as a table, a CSV and a plot.
# Runs `elk bench --cores-scan` (a cold solve of all five policies at each
# core count, each in a process of its own), keeps its table, writes the
# numbers as CSV and draws wall time, CPU time and peak RSS against the core
# count on log-log axes with gnuplot. The plot is text (gnuplot's dumb
# terminal) so that docs/PERFORMANCE.md can hold it as it was drawn; with
# PNG set, a PNG is drawn too.
#
# usage: tests/bench_scan.sh [ELK] [OUT] [bench options...]
#   ELK   the binary (default build/app/elk)
#   OUT   file prefix: OUT.csv, OUT.txt (table and plot), OUT.png if PNG=1
#         (default elk-scan in the current directory)
#   bench options: passed to elk bench, e.g. --scan-cores 1000,1000000
#         --repeat 3 --profile physical (default: its 1k-1M list, the
#         product's default point)
set -eu
ELK=${1:-build/app/elk}
OUT=${2:-elk-scan}
shift $(($# < 2 ? $# : 2))
command -v gnuplot >/dev/null || { echo "bench_scan: gnuplot is required" >&2; exit 2; }
TMP=$(mktemp "${TMPDIR:-/tmp}/elk-bench-scan.XXXXXX")
trap 'rm -f "$TMP" "$TMP.csv" "$TMP.gp"' EXIT
"$ELK" bench --cores-scan "$@" >"$TMP"
# the table's rows: cores, wall ms, cpu ms, plans ms, peak MB, wall ms per 1k cores
{
    echo "cores,wall_ms,cpu_ms,plans_ms,peak_mb,wall_ms_per_1k"
    awk '$1 ~ /^[0-9]+$/ && NF == 6 { print $1 "," $2 "," $3 "," $4 "," $5 "," $6 }' "$TMP"
} >"$TMP.csv"
[ "$(wc -l <"$TMP.csv")" -gt 1 ] || { echo "bench_scan: elk bench printed no rows" >&2; cat "$TMP" >&2; exit 1; }
plot() { # terminal, output
    cat <<EOF
set terminal $1
set output '$2'
set datafile separator ','
set logscale xy
set autoscale xfix
set key top left
set xlabel 'cores'
set ylabel 'ms, MB'
set title 'cold solve, five policies (elk bench --cores-scan)'
plot '$TMP.csv' every ::1 using 1:2 with linespoints title 'wall ms', \\
     '' every ::1 using 1:3 with linespoints title 'cpu ms', \\
     '' every ::1 using 1:5 with linespoints title 'peak MB', \\
     '' every ::1 using 1:(\$1/1000.0) with lines title 'linear (1 ms per 1k cores)'
EOF
}
plot "dumb size 100,30" "$TMP.plot" >"$TMP.gp"
gnuplot "$TMP.gp" 2>"$TMP.err" || { cat "$TMP.err" >&2; rm -f "$TMP.err" "$TMP.plot"; exit 1; }
rm -f "$TMP.err"
if [ "${PNG:-0}" = 1 ]; then
    plot "pngcairo size 900,600" "$OUT.png" | gnuplot
fi
# write the results whole or not at all
cp "$TMP.csv" "$OUT.csv.tmp" && mv "$OUT.csv.tmp" "$OUT.csv"
{
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') ($(nproc) cores)"
    cat "$TMP"
    cat "$TMP.plot"
} >"$OUT.txt.tmp" && mv "$OUT.txt.tmp" "$OUT.txt"
rm -f "$TMP.plot"
cat "$OUT.txt"
