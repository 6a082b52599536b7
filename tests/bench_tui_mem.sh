#!/usr/bin/env bash
# Benchmark: the workbench's resident memory before, at and after a huge
# design point (issue 13: it returns to its steady size once the point is
# left). Runs `elk tui` in a private tmux server on the default point,
# types a core count into the Cores knob (Enter, the value, Enter), waits
# for the status line to report it done, types the default back, and prints
# VmRSS (and the peak, VmHWM) read from /proc at each stage.
#
# usage: tests/bench_tui_mem.sh [ELK] [CORES]
#   ELK    the binary (default build/app/elk)
#   CORES  the huge point's core count (default 1000000)
set -eu
ELK=${1:-build/app/elk}
CORES=${2:-1000000}
command -v tmux >/dev/null || { echo "bench_tui_mem: tmux is required" >&2; exit 2; }
ELK=$(cd "$(dirname "$ELK")" && pwd)/$(basename "$ELK")
SOCK=elkmem-$$
T="tmux -L $SOCK"
trap '$T kill-server >/dev/null 2>&1' EXIT
$T -f /dev/null new-session -d -x 160 -y 50 "LANG=C.UTF-8 '$ELK' tui"
PID=$($T display -p '#{pane_pid}')
wait_done() { # cores
    for ((i = 0; i < 600; i++)); do
        $T capture-pane -p | grep -q "done in.* $1 cores" && return 0
        sleep 0.1
    done
    echo "bench_tui_mem: no result for $1 cores" >&2
    exit 1
}
mem() { awk '/^VmRSS|^VmHWM/ { printf "%s %.1f MB  ", $1, $2 / 1024 }' "/proc/$PID/status"; echo; }
DEFAULT=
for ((i = 0; i < 100; i++)); do
    DEFAULT=$($T capture-pane -p | sed -n 's/.*done in.* \([0-9][0-9]*\) cores.*/\1/p' | tail -1)
    [ -n "$DEFAULT" ] && break
    sleep 0.1
done
[ -n "$DEFAULT" ] || { echo "bench_tui_mem: the workbench did not start" >&2; exit 1; }
echo "default point ($DEFAULT cores): $(mem)"
# the Cores knob is the sixth (the knob panel's column order)
for ((i = 0; i < 5; i++)); do $T send-keys Down; done
set_cores() {
    $T send-keys Enter
    sleep 0.2
    $T send-keys C-u "$1" Enter
    wait_done "$1"
    $T capture-pane -p | grep "done in" | sed 's/^ *//'
}
set_cores "$CORES"
echo "at $CORES cores: $(mem)"
set_cores "$DEFAULT"
sleep 1
echo "back at $DEFAULT cores: $(mem)"
