#!/usr/bin/env bash
# Golden screens of the workbench (tig's approach): every view at 120x40 and
# 80x24, under LANG=C (ASCII) and C.UTF-8 (braille, block glyphs), on the
# tiny model, captured as text with tmux capture-pane once the screen has
# settled, and compared byte for byte with tests/golden/tui/. The only
# volatile text, the wall times (the status line's "done in 2.44 ms", the
# network view's "simulated in 9 ms"), read "<t>".
#
# usage: tui_golden.sh ELK_BINARY SOURCE_DIR      (exit 77: no tmux)
#   ELK_UPDATE_GOLDEN=1 rewrites the golden screens instead of comparing
#   (review the diff before committing it).
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 ELK_BINARY SOURCE_DIR" >&2
    exit 2
fi
ELK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
GOLD=$SRC/tests/golden/tui
UPDATE=${ELK_UPDATE_GOLDEN:-}
command -v tmux >/dev/null 2>&1 || { echo "SKIP: tmux not installed"; exit 77; }
SOCK=elkgold-$$
WORK=$(mktemp -d "${TMPDIR:-/tmp}/elk-tui-golden.XXXXXX") || exit 2
cleanup() {
    tmux -L "$SOCK" kill-server >/dev/null 2>&1
    # a workbench still exiting when its session was killed outlives the
    # server (under ASan its exit-time leak check once spun on for minutes
    # with the pty gone): none of this run's may stay behind
    command -v pkill >/dev/null 2>&1 && pkill -KILL -f -- "--log $WORK/log" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$GOLD"
# one server for every screen: a session that idles keeps it alive
# (tmux on a busy machine now and then loses a fresh server: try again)
for ((try = 0; try < 5; try++)); do
    tmux -L "$SOCK" -f /dev/null new-session -d -s idle -x 80 -y 24 "sleep 100000" 2>/dev/null
    tmux -L "$SOCK" has-session -t idle 2>/dev/null && break
    sleep 0.5
done
tmux -L "$SOCK" has-session -t idle 2>/dev/null || { echo "FAIL: cannot start tmux"; exit 1; }
tmux -L "$SOCK" set-option -g window-size manual >/dev/null 2>&1
failed=0
cases=0

T=g
cap() { tmux -L "$SOCK" capture-pane -p -t "$T" 2>/dev/null; }
# settled VIEW: the result is drawn, nothing is computing, the sweep (view
# 5) has all its points, and two captures in a row agree
settled() {
    local i prev="" now
    for ((i = 0; i < 600; i++)); do
        now=$(cap)
        if grep -qF "done in" <<<"$now" && ! grep -qF "computing" <<<"$now" &&
            { [ "$1" != 5 ] || grep -qF "10/10 points" <<<"$now"; } &&
            { [ "$1" != 6 ] || { grep -qF "ms simulated" <<<"$now" && ! grep -qF "simulating" <<<"$now"; }; } &&
            { [ "$1" != 7 ] || { grep -qF "longest bar" <<<"$now" && ! grep -qF "studying" <<<"$now"; }; } &&
            [ "$now" = "$prev" ]; then
            return 0
        fi
        prev=$now
        sleep 0.05
    done
    return 1
}

for lang in C C.UTF-8; do
    for size in 120x40 80x24; do
        w=${size%x*} h=${size#*x}
        for view in 1 2 3 4 5 6 7; do
            name=view$view-$size-${lang%%.*}
            [ "$lang" = C.UTF-8 ] && name=view$view-$size-utf8
            cases=$((cases + 1))
            # each screen gets two tries: a lost tmux session is not a failure of elk
            good=0
            for try in 1 2; do
                T=g$cases-$try
                tmux -L "$SOCK" -f /dev/null has-session -t idle 2>/dev/null ||
                    tmux -L "$SOCK" -f /dev/null new-session -d -s idle -x 80 -y 24 "sleep 100000" 2>/dev/null
                tmux -L "$SOCK" new-session -d -s "$T" -x "$w" -y "$h" -c "$WORK" \
                    "env -i PATH=$PATH HOME=$WORK TERM=screen LANG=$lang ELK_DATADIR=$SRC ELK_TUI_THREADS=1 $ELK tui --model tiny --chip ipu-mk2 --view $view --log $WORK/log 2>>$WORK/err; sleep 60" 2>/dev/null
                settled "$view" && { good=1; break; }
                tmux -L "$SOCK" kill-session -t "$T" >/dev/null 2>&1
            done
            if [ $good = 0 ]; then
                echo "FAIL $name: the screen never settled"
                cap | head -n 5
                failed=$((failed + 1))
            else
                cap | sed -E 's/(done in|failed after|simulated in|ranked in) [0-9.]+ (ms|us|s)/\1 <t>/' >"$WORK/$name.txt"
                if [ -n "$UPDATE" ]; then
                    cp "$WORK/$name.txt" "$GOLD/$name.txt"
                elif ! diff -u "$GOLD/$name.txt" "$WORK/$name.txt"; then
                    echo "FAIL $name differs from tests/golden/tui/$name.txt"
                    failed=$((failed + 1))
                fi
            fi
            tmux -L "$SOCK" send-keys -t "$T" q
            tmux -L "$SOCK" kill-session -t "$T" >/dev/null 2>&1
        done
    done
done
echo "$cases screens, $failed failed${UPDATE:+ (golden screens updated)}"
[ $failed -eq 0 ]
