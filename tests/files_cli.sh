#!/usr/bin/env bash
# Regression tests of issue 12 (its files, signals, outputs and arguments
# part), run against the built elk on the tiny model:
#  - outputs: -o a character device and FIFOs are written through, never replaced;
#    symlinks are followed and kept; -o - is stdout; no temporary file left;
#  - signals: Ctrl-C keeps an earlier complete OUT.csv and writes
#    OUT.csv.partial; SIGTERM and SIGHUP leave no OUT.csv.tmp-XXXXXX;
#  - write errors on stdout (> /dev/full) fail with a message;
#  - elk merge bounds the identity line's point count, names the line of a
#    NUL byte and rejects --shard /2;
#  - elk reproduce survives stale CSVs in its folder;
#  - loose arguments are usage errors on stderr with exit 2;
#  - point files (issue 11): elk run --point equals the same flags, later
#    flags override, elk validate names file:line of bad knobs.
#
# usage: files_cli.sh ELK_BINARY SOURCE_DIR
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" files "$@"

empty() { # FILE
    if [ ! -s "$1" ]; then ok; else
        fail "$1 is not empty"
        sed 's/^/  | /' "$1" | head -5
    fi
}
no_temps() { # DIR
    local left
    left=$(find "$1" -name '*.tmp-*' | head -3)
    [ -z "$left" ] && ok || fail "temporary files left behind: $left"
}

cat >"$tmp/t.cfg" <<'EOF'
sweep = {
  name = "files";
  base = { chip = "ipu-mk2"; model = "tiny"; cores = 64; batch = 4; seq = 256; };
  axes = ( { knob = "hbm-tbps"; values = [0.05, 0.1]; } );
  figure = { kind = "lines"; x = "hbm_tbps"; };
};
EOF
# a sweep slow enough to interrupt: many points of a larger model
cat >"$tmp/slow.cfg" <<'EOF'
sweep = {
  name = "slow";
  base = { chip = "ipu-pod4"; model = "llama2-7b"; batch = 8; seq = 1024; layers = 2; };
  axes = ( { knob = "hbm-tbps"; from = 1.0; to = 64.0; step = 0.25; },
           { knob = "noc-tbps"; from = 8.0; to = 64.0; step = 8.0; } );
};
EOF

# ---- outputs: devices, FIFOs, symlinks, stdout ----
expect 0 "$ELK" sweep "$tmp/t.cfg" -j 1 -o "$tmp/ref.csv"
# a character device stays one, and nothing is written beside it. The
# test makes its own null device (mknod, as root in CI): a regression
# must not replace the machine's /dev/null. Without mknod rights these
# checks are skipped.
dev="$tmp/null"
if mknod "$dev" c 1 3 2>/dev/null; then
    # import-hf read its preset back from the device and failed
    for cmd in "sweep $tmp/t.cfg -j 1" "merge $tmp/ref.csv" "fit --synthesize 20" \
               "trace --policy basic --model tiny --chip ipu-mk2 --cores 64" \
               "import-hf $SRC/tests/data/hf/llama2-13b"; do
        # shellcheck disable=SC2086
        expect 0 "$ELK" $cmd -o "$dev"
        [ -c "$dev" ] && ok || fail "$dev is no longer a character device after ${cmd%% *}"
    done
else
    echo "files_cli: no mknod rights: the device-output checks are skipped"
fi
# a FIFO is written through to its reader and stays a FIFO
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
expect 0 "$ELK" sweep "$tmp/t.cfg" -j 1 -o "$tmp/fifo"
wait $reader
[ -p "$tmp/fifo" ] && ok || fail "the FIFO was replaced"
cmp -s "$tmp/fifo.out" "$tmp/ref.csv" && ok || fail "the FIFO's reader did not get the CSV"
# a symlink is followed: its target gets the CSV, the link stays
mkdir "$tmp/real"
echo old >"$tmp/real/target.csv"
ln -s real/target.csv "$tmp/link.csv"
expect 0 "$ELK" sweep "$tmp/t.cfg" -j 1 -o "$tmp/link.csv"
[ -L "$tmp/link.csv" ] && ok || fail "the symlink was replaced by a file"
cmp -s "$tmp/real/target.csv" "$tmp/ref.csv" && ok || fail "the symlink's target did not get the CSV"
# -o - is stdout, never a file named -
(cd "$tmp" && expect 0 "$ELK" trace --policy basic --model tiny --chip ipu-mk2 --cores 64 -o -)
[ ! -e "$tmp/-" ] && ok || fail "trace -o - wrote a file named -"
head -c 1 "$tmp/out" | grep -q '{' && ok || fail "trace -o - did not write JSON to stdout"
contains "$tmp/err" "simulated"
(cd "$tmp" && expect 0 "$ELK" import-hf "$SRC/tests/data/hf/llama2-13b" -o -)
[ ! -e "$tmp/-" ] && ok || fail "import-hf -o - wrote a file named -"
contains "$tmp/out" "model = {"
(cd "$tmp" && expect 0 "$ELK" sweep "$tmp/t.cfg" -j 1 -o -)
[ ! -e "$tmp/-" ] && ok || fail "sweep -o - wrote a file named -"
cmp -s "$tmp/out" "$tmp/ref.csv" && ok || fail "sweep -o - is not the CSV"
# a figure or reproduce's folder cannot be stdout: said, not a file named -
(cd "$tmp" && expect 1 "$ELK" plot "$tmp/ref.csv" -o -) && contains "$tmp/err" "a figure cannot go to stdout"
(cd "$tmp" && expect 2 "$ELK" reproduce -o -) && contains "$tmp/err" "cannot hold its files"
[ ! -e "$tmp/-" ] && ok || fail "plot or reproduce -o - wrote a file named -"
(cd "$tmp" && expect 0 "$ELK" plot "$tmp/ref.csv" --no-draw --script -) && contains "$tmp/out" '$data << EOD'
no_temps "$tmp"

# ---- signals ----
# slow.cfg runs for several seconds (7 s in Release on one core); each signal comes after 1 s
# Ctrl-C keeps an earlier complete out.csv; the partial result has its own name
cp "$tmp/ref.csv" "$tmp/keep.csv"
"$ELK" sweep "$tmp/slow.cfg" -j 1 -o "$tmp/keep.csv" 2>"$tmp/int.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
st=$?
if [ $st -eq 130 ]; then
    ok
    cmp -s "$tmp/keep.csv" "$tmp/ref.csv" && ok || fail "Ctrl-C replaced the complete keep.csv"
    [ -s "$tmp/keep.csv.partial" ] && ok || fail "no keep.csv.partial after Ctrl-C"
    contains "$tmp/int.err" "keep.csv.partial"
else
    fail "interrupted sweep exited $st (want 130)"
fi
# SIGTERM, SIGHUP and every other signal that ends the process (QUIT, USR1,
# ALRM and PIPE left OUT.csv.tmp-XXXXXX): the temporary file goes, the old
# file stays. A background job of a script starts with SIGQUIT ignored
# (and elk keeps an inherited SIG_IGN), so it gets its default back first.
for sig in TERM HUP QUIT USR1 USR2 ALRM PIPE; do
    env --default-signal=QUIT "$ELK" sweep "$tmp/slow.cfg" -j 1 -o "$tmp/keep.csv" 2>/dev/null &
    pid=$!
    sleep 1
    kill -$sig $pid
    wait $pid 2>/dev/null
    no_temps "$tmp"
    cmp -s "$tmp/keep.csv" "$tmp/ref.csv" && ok || fail "SIG$sig changed keep.csv"
done
# elk reproduce stopped by Ctrl-C: summary.md's run table said the stopped
# figure had all its points; it now says how many finished and where
env --default-signal=INT "$ELK" reproduce --figure 19,23 --no-plot -j 1 -o "$tmp/repro" 2>"$tmp/repro.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
st=$?
if [ "$st" -eq 130 ]; then
    ok
    grep -qE '^\| fig19 \| stopped: [0-9]+ of 104 finished \(fig19.csv.partial\)' "$tmp/repro/summary.md" && ok ||
        fail "summary.md does not say fig19 stopped"
    grep -q '^| fig23 | not run' "$tmp/repro/summary.md" && ok || fail "summary.md does not say fig23 did not run"
else
    fail "interrupted reproduce exited $st (want 130)"
fi

# ---- elk merge: the identity line's count is bounded, NUL bytes named ----
sed '1s/points=2 /points=4611686018427387905 /' "$tmp/ref.csv" >"$tmp/huge.csv"
if expect 1 "$ELK" merge "$tmp/huge.csv"; then
    contains "$tmp/err" "$tmp/huge.csv:1: points=4611686018427387905"
    contains "$tmp/err" "limit is 10000000 points"
fi
sed '1s/points=2 /points=3000000000 /' "$tmp/ref.csv" >"$tmp/big.csv"
if expect 1 "$ELK" merge "$tmp/big.csv"; then contains "$tmp/err" "$tmp/big.csv:1: points=3000000000"; fi
sed '1s/points=2 /points=5000 /' "$tmp/ref.csv" >"$tmp/short.csv"
if expect 1 "$ELK" merge "$tmp/short.csv"; then
    contains "$tmp/err" "$tmp/short.csv:1: points=5000, but shard 0/1 of it would need at least 5000 rows"
fi
# a NUL byte on line 6 (the fourth row): an error naming that line
{ head -n 5 "$tmp/ref.csv"; printf '1\0'; tail -n +6 "$tmp/ref.csv"; } >"$tmp/nul.csv"
if expect 1 "$ELK" merge "$tmp/nul.csv"; then contains "$tmp/err" "$tmp/nul.csv:6: NUL byte"; fi
if expect 1 "$ELK" plot "$tmp/nul.csv" --no-draw; then contains "$tmp/err" "$tmp/nul.csv:6: NUL byte"; fi
# --shard needs both numbers
for bad in /2 0/ 1/2x 2/2 -1/2; do
    if expect 2 "$ELK" sweep "$tmp/t.cfg" --shard "$bad"; then contains "$tmp/err" "--shard $bad: expected i/N"; fi
done

# ---- elk reproduce: stale and foreign CSVs in its folder ----
mkdir -p "$tmp/data/sweeps" "$tmp/repro"
ln -s "$SRC/presets" "$tmp/data/presets"
ln -s "$SRC/plots" "$tmp/data/plots"
sed -e 's/name = "files"/name = "fig18"/' -e 's/kind = "lines"; x = "hbm_tbps";/kind = "util"; cluster = "hbm_tbps";/' \
    "$tmp/t.cfg" >"$tmp/data/sweeps/fig18.cfg"
hdr='point,model,policy,latency_ms,pct_ideal'
printf '# elk-sweep name=fig17 id=0000000000000001 points=2 shard=0/1\n%s\n-1,m,elk-full,1,90\n' "$hdr" \
    >"$tmp/repro/fig17.csv"
printf '# elk-sweep name=fig19 id=0000000000000001 points=2 shard=0/1\npoint,model,latency_ms\n0,m,1\n' \
    >"$tmp/repro/fig19.csv"
printf '# elk-sweep name=other id=0000000000000001 points=2 shard=0/1\n%s\n0,m,elk-full,1,90\n' "$hdr" \
    >"$tmp/repro/fig20.csv"
printf '# elk-sweep name=fig21 id=0000000000000001 points=2 shard=0/1\n%s\n7,m,elk-full,1,90\n' "$hdr" \
    >"$tmp/repro/fig21.csv"
if ELK_DATADIR="$tmp/data" expect 0 "$ELK" reproduce --figure 18 --no-plot -o "$tmp/repro" -j 1; then
    contains "$tmp/err" "leaving out $tmp/repro/fig17.csv: $tmp/repro/fig17.csv: row 1: point '-1' is not an index"
    contains "$tmp/err" "leaving out $tmp/repro/fig19.csv: $tmp/repro/fig19.csv: no 'policy' column"
    contains "$tmp/err" "leaving out $tmp/repro/fig20.csv: $tmp/repro/fig20.csv:1: holds sweep 'other', not fig20"
    contains "$tmp/err" "fig21.csv: row 1: point '7' is not an index from 0 to 1"
    contains "$tmp/repro/summary.md" "| Elk-Full | 62.40% |"
fi

# ---- loose arguments: usage errors on stderr, exit 2 ----
usage_err() { # TEXT CMD...: exit 2, nothing on stdout, TEXT on stderr
    local text=$1
    shift
    if expect 2 "$ELK" "$@"; then
        empty "$tmp/out"
        contains "$tmp/err" "$text"
    fi
}
usage_err "fit: --sigma abc: expected a number" fit --synthesize 20 --sigma abc
usage_err "fit: --seed abc: expected an integer" fit --synthesize 20 --seed abc
usage_err "fit: --sigma 1: expected a number from 0 to below 1" fit --synthesize 20 --sigma 1
usage_err "fit: --synthesize 20x: expected an integer" fit --synthesize 20x
usage_err "bench: --repeat 1x: expected an integer from 1 to 1000" bench --repeat 1x
usage_err "--figure ,: expected a figure" reproduce --figure , -o "$tmp/nofig"
usage_err "--figure 17,: expected a figure" reproduce --figure 17, -o "$tmp/nofig"
[ ! -e "$tmp/nofig" ] && ok || fail "reproduce --figure , created its folder"
usage_err "fit: expected MEASUREMENTS.csv or --synthesize N" fit
usage_err "validate: expected one or more FILEs" validate
usage_err "plans: --op N|NAME is required" plans
usage_err "run: --max-disp : expected" run --model tiny --max-disp ""
usage_err "run: --heavy-factor : expected" run --model tiny --heavy-factor ""
usage_err "gap: --max-nodes 5k: expected an integer" gap --max-nodes 5k
usage_err "trace: --bench 3x: expected an integer" trace --policy basic --bench 3x
usage_err "--jobs 2x: expected" sweep "$tmp/t.cfg" --jobs 2x
# a folder given as a preset says so
if expect 1 "$ELK" run --model "$tmp"; then contains "$tmp/err" "--model $tmp: is a directory, not a model preset"; fi
if expect 1 "$ELK" run --chip "$tmp"; then contains "$tmp/err" "--chip $tmp: is a directory, not a chip preset"; fi
if expect 1 "$ELK" validate "$tmp"; then contains "$tmp/err" "$tmp: is a directory"; fi
# --help still goes to stdout with exit 0
for c in fit validate plans bench; do
    if expect 0 "$ELK" $c --help; then contains "$tmp/out" "usage: elk $c"; fi
done

# ---- write errors on stdout ----
if [ -w /dev/full ]; then
    for args in "run --model tiny" "run --model tiny --format csv" "run --model tiny --format json" \
        "graph --model tiny" "plans --model tiny --op 0" "trace --policy basic --model tiny --chip ipu-mk2 --cores 64 -o $tmp/t.json" \
        "fit --synthesize 20" "gap" "bench --model tiny --repeat 1" "validate $SRC/presets/models/tiny.cfg" \
        "--help" "--version" "run --help"; do
        # shellcheck disable=SC2086
        "$ELK" $args >/dev/full 2>"$tmp/err"
        st=$?
        [ $st -ne 0 ] && ok || fail "elk $args > /dev/full exited 0"
        contains "$tmp/err" "write error: No space left on device"
    done
    # a big output fails mid-way: still an error, and one message for sweep and merge
    "$ELK" plans --model tiny --op 0 --all >/dev/full 2>"$tmp/err"
    [ $? -eq 1 ] && ok || fail "elk plans --all > /dev/full did not exit 1"
    contains "$tmp/err" "write error"
    for args in "sweep $tmp/t.cfg" "merge $tmp/ref.csv"; do
        # shellcheck disable=SC2086
        "$ELK" $args >/dev/full 2>"$tmp/err"
        [ $? -eq 1 ] && ok || fail "elk $args > /dev/full did not exit 1"
        contains "$tmp/err" "No space left on device"
        n=$(grep -c . "$tmp/err")
        [ "$n" -eq 1 ] && ok || fail "elk $args > /dev/full printed $n lines on stderr (want 1)"
    done
else
    echo "note: no writable /dev/full; write-error checks skipped"
fi

# ---- issue 11: point files (elk run --point, elk validate)
cat >"$tmp/pt.cfg" <<'EOF2'
point = {
  chip = "ipu-mk2";
  model = "tiny";
  hbm-tbps = 8.0;
  batch = 8;
};
EOF2
expect 0 "$ELK" validate "$tmp/pt.cfg" && contains "$tmp/out" "ok (point)"
"$ELK" run --point "$tmp/pt.cfg" --format csv >"$tmp/a.csv"
"$ELK" run --chip ipu-mk2 --model tiny --hbm-tbps 8 --batch 8 --format csv >"$tmp/b.csv"
same "$tmp/a.csv" "$tmp/b.csv"
# flags after --point override the file's knobs
"$ELK" run --point "$tmp/pt.cfg" --batch 16 --format csv >"$tmp/a.csv"
"$ELK" run --chip ipu-mk2 --model tiny --hbm-tbps 8 --batch 16 --format csv >"$tmp/b.csv"
same "$tmp/a.csv" "$tmp/b.csv"
printf 'point = {\n  model = "tiny";\n  batch = 0;\n};\n' >"$tmp/bad1.cfg"
expect 1 "$ELK" validate "$tmp/bad1.cfg" && contains "$tmp/err" "bad1.cfg:3: field 'point.batch'"
printf 'point = {\n  model = "tiny";\n  hbm_tbps = 8.0;\n};\n' >"$tmp/bad2.cfg"
expect 1 "$ELK" validate "$tmp/bad2.cfg" && contains "$tmp/err" "bad2.cfg:3: unknown knob 'hbm_tbps'"
printf 'point = {\n  chip = "no-such-chip";\n};\n' >"$tmp/bad3.cfg"
expect 1 "$ELK" run --point "$tmp/bad3.cfg" && contains "$tmp/err" "bad3.cfg:2: field 'point.chip'"
printf 'point = {\n  chip = "tt-mesh";\n  sram-kib = 32.0;\n};\n' >"$tmp/bad4.cfg"
expect 1 "$ELK" validate "$tmp/bad4.cfg" && contains "$tmp/err" "the point does not resolve: --sram-kib 32 must exceed"
expect 1 "$ELK" run --point "$tmp/missing.cfg"

cli_done
