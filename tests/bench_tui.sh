#!/usr/bin/env bash
# Benchmark: knob change to redraw in the workbench. Runs `elk tui` in a
# private tmux server (it needs a terminal) in its hidden benchmark mode:
# the TUI applies N knob changes one after the other, each as soon as the
# previous one is on screen, and times each from the change (as a key press
# would make it) to the end of the redraw showing its result.
#
# usage: tests/bench_tui.sh [ELK] [N] [KNOBS] [design-point options...]
#   ELK    the binary (default build/app/elk)
#   N      changes to time (default 20)
#   KNOBS  comma list cycled through: hbm, hbm-ctrl, hbm-model, noc, link, cores, topology,
#          sram, compute, chip, model, workload, batch, seq, layers, profile
#          (default hbm,noc)
# Default point: the product default, Llama2-13B decode B32 S2048 on IPU-POD4.
set -eu
ELK=${1:-build/app/elk}
N=${2:-20}
KNOBS=${3:-hbm,noc}
shift $(($# < 3 ? $# : 3))
command -v tmux >/dev/null || { echo "bench_tui: tmux is required" >&2; exit 2; }
ELK=$(cd "$(dirname "$ELK")" && pwd)/$(basename "$ELK")
OUT=$(mktemp "${TMPDIR:-/tmp}/elk-bench-tui.XXXXXX")
SOCK=elkbench-$$
trap 'tmux -L "$SOCK" kill-server >/dev/null 2>&1; rm -f "$OUT" "$OUT.done"' EXIT
args=""
for a in "$@"; do args="$args '$a'"; done
tmux -L "$SOCK" -f /dev/null new-session -d -x 120 -y 40 \
    "LANG=C.UTF-8 '$ELK' tui --bench-knobs $N --bench-which $KNOBS --bench-out '$OUT' $args; touch '$OUT.done'"
for ((i = 0; i < 1200; i++)); do
    [ -e "$OUT.done" ] && break
    sleep 0.1
done
[ -s "$OUT" ] || { echo "bench_tui: no result (timed out or failed)" >&2; exit 1; }
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') ($(nproc) cores)"
cat "$OUT"
