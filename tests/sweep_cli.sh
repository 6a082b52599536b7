#!/usr/bin/env bash
# CLI tests of elk sweep, merge, plot and reproduce on the tiny model (fast):
# errors with file:line; the same CSV bytes for --jobs 1 and 2; shards merged
# equal the unsharded CSV; the .gp written beside a CSV; elk plot writes a
# real PNG (and an SVG) when gnuplot is installed and fails clearly when it is
# not in PATH; Ctrl-C keeps a valid CSV.partial; reproduce writes its summary.
#
# usage: sweep_cli.sh ELK_BINARY SOURCE_DIR
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" sweep "$@"

png_ok() { # FILE: PNG signature and more than 1 KB
    local sig
    sig=$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')
    local size
    size=$(stat -c %s "$1" 2>/dev/null || echo 0)
    if [ "$sig" = "89504e470d0a1a0a" ] && [ "$size" -gt 1024 ]; then ok; else
        fail "$1 is not a PNG of more than 1 KB (signature '$sig', $size bytes)"
    fi
}

cat >"$tmp/t.cfg" <<'EOF'
sweep = {
  name = "cli";
  description = "tiny model, 64 cores of an IPU MK2";
  base = { chip = "ipu-mk2"; model = "tiny"; cores = 64; batch = 4; seq = 256; };
  axes = (
    { knob = "noc-scale"; values = [1.0, 2.0]; },
    { knob = "hbm-tbps"; values = [0.05, 0.1, 0.2]; }
  );
  figure = { kind = "lines"; x = "hbm_tbps"; col = "noc_scale"; };
};
EOF

# a bad sweep: file:line and the field, exit 1
cat >"$tmp/bad.cfg" <<'EOF'
sweep = {
  name = "bad";
  axes = (
    { knob = "hbm-tbps"; values = [4.0, 0.0]; }
  );
};
EOF
if expect 1 "$ELK" sweep "$tmp/bad.cfg"; then
    contains "$tmp/err" "$tmp/bad.cfg:4: field 'sweep.axes.[0].values.[1]': value 0 out of range"
fi
expect 2 "$ELK" sweep "$tmp/t.cfg" --shard 3/3
expect 2 "$ELK" sweep "$tmp/t.cfg" --jobs 0

# determinism: --jobs 1 and 2, and stdout, give the same bytes
expect 0 "$ELK" sweep "$tmp/t.cfg" --jobs 1 -o "$tmp/j1.csv"
expect 0 "$ELK" sweep "$tmp/t.cfg" --jobs 2 -o "$tmp/j2.csv"
same "$tmp/j1.csv" "$tmp/j2.csv"
expect 0 "$ELK" sweep "$tmp/t.cfg" -j 2
same "$tmp/out" "$tmp/j1.csv"
rows=$(grep -vc '^#' "$tmp/j1.csv")
[ "$rows" -eq 31 ] && ok || fail "j1.csv has $rows lines besides comments, want 31 (header + 6 points x 5 policies)"
[ -s "$tmp/j1.gp" ] && ok || fail "no j1.gp beside j1.csv"
ls "$tmp"/j1.csv.tmp-* >/dev/null 2>&1 && fail "temporary file left behind" || ok

# shards merged (in any order) equal the unsharded run (pointwise: every
# N-th point; t.cfg carried is one series, below for carried shards)
expect 0 "$ELK" sweep "$tmp/t.cfg" --pointwise -o "$tmp/p1.csv"
for i in 0 1 2; do expect 0 "$ELK" sweep "$tmp/t.cfg" --pointwise --shard $i/3 -j 2 -o "$tmp/s$i.csv"; done
expect 0 "$ELK" merge "$tmp/s2.csv" "$tmp/s0.csv" "$tmp/s1.csv" -o "$tmp/merged.csv"
same "$tmp/merged.csv" "$tmp/p1.csv"
if expect 1 "$ELK" merge "$tmp/s0.csv" "$tmp/s1.csv"; then contains "$tmp/err" "missing"; fi
if expect 1 "$ELK" merge "$tmp/s0.csv" "$tmp/p1.csv"; then contains "$tmp/err" "shard counts differ"; fi
if expect 1 "$ELK" merge "$tmp/s0.csv" "$tmp/j1.csv"; then contains "$tmp/err" "not shards of one sweep"; fi

# Carried schedules: along each resource axis of a series, Elk-Full's
# latency_ms never rises (tests/data/sweeps/rising.cfg and the
# paper's figure sweeps with a resource axis), while pointwise_ms keeps the
# point's own, which rises in rising.cfg. rises FILE COLUMN AXIS...: the
# pairs of Elk-Full rows that differ only in AXIS (every other knob column
# equal) where the one with more of it has the larger COLUMN.
rises() {
    local f=$1 col=$2
    shift 2
    awk -F, -v axes="$*" -v col="$col" '
        /^#/ { next }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; na = split(axes, ax, " "); next }
        $c["policy"] == "elk-full" && $c["status"] == "ok" && $c[col] != "" {
            n++; lat[n] = $c[col]
            for (a = 1; a <= na; a++) {
                v[n, a] = $c[ax[a]]; k = ""
                for (i = 2; i < c["policy"]; i++) if (i != c[ax[a]]) k = k "," $i
                key[n, a] = k
            }
        }
        END {
            bad = 0
            for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) for (a = 1; a <= na; a++)
                if (key[i, a] == key[j, a] && v[j, a] + 0 < v[i, a] + 0 && lat[i] + 0 > lat[j] * (1 + 1e-9)) bad++
            print bad
        }' "$f"
}
monotone() { # FILE AXIS...
    local f=$1 bad
    shift
    bad=$(rises "$f" latency_ms "$@")
    [ "$bad" = 0 ] && ok || fail "$f: $bad pairs where Elk-Full's latency_ms rises with more of $*"
}
expect 0 "$ELK" sweep "$SRC/tests/data/sweeps/rising.cfg" -j 2 -o "$tmp/rising.csv"
monotone "$tmp/rising.csv" sram_kib hbm_tbps noc_tbps
contains "$tmp/rising.csv" "shard=0/1 carried"
[ "$(rises "$tmp/rising.csv" pointwise_ms sram_kib hbm_tbps noc_tbps)" -gt 0 ] && ok ||
    fail "rising.csv: pointwise_ms never rises: the test no longer exercises carrying"
expect 0 "$ELK" sweep "$SRC/sweeps/demo-hbm-noc.cfg" -j 2 -o "$tmp/c-demo.csv"
monotone "$tmp/c-demo.csv" noc_scale hbm_tbps
if [ -z "${ELK_SANITIZED:-}" ]; then # about 1.5 min more under ASan
    for f in fig19 fig22; do expect 0 "$ELK" sweep "$SRC/sweeps/$f.cfg" -j 2 -o "$tmp/c-$f.csv"; done
    monotone "$tmp/c-fig19.csv" hbm_tbps
    monotone "$tmp/c-fig22.csv" hbm_tbps noc_scale
fi
# shards of a carried sweep hold whole series and merge to the same bytes
for i in 0 1; do expect 0 "$ELK" sweep "$SRC/tests/data/sweeps/rising.cfg" --shard $i/2 -o "$tmp/rs$i.csv"; done
expect 0 "$ELK" merge "$tmp/rs1.csv" "$tmp/rs0.csv" -o "$tmp/rsm.csv"
same "$tmp/rsm.csv" "$tmp/rising.csv"
# --pointwise: Elk-Full's own schedules, no carried columns
expect 0 "$ELK" sweep "$SRC/tests/data/sweeps/rising.cfg" --pointwise -o "$tmp/rising-p.csv"
grep -q 'carried_from' "$tmp/rising-p.csv" && fail "--pointwise CSV has carried_from" || ok

# Ctrl-C: exit 130 and int.csv.partial, a CSV whose rows are those of
# finished points (int.csv itself is never a partial result)
"$ELK" sweep "$SRC/sweeps/fig21.cfg" -j 2 -o "$tmp/int.csv" 2>"$tmp/int.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
st=$?
if [ $st -eq 130 ]; then
    ok
    contains "$tmp/int.err" "interrupted"
    contains "$tmp/int.err" "int.csv.partial"
    [ ! -e "$tmp/int.csv" ] && ok || fail "an interrupted sweep wrote int.csv"
    head -1 "$tmp/int.csv.partial" | grep -q '^# elk-sweep name=fig21 ' && ok || fail "int.csv.partial: no identity line"
    bad=$(awk -F, '/^#/ { next } !n { n = NF; next } NF != n' "$tmp/int.csv.partial" | wc -l)
    [ "$bad" -eq 0 ] && ok || fail "int.csv.partial has $bad malformed rows"
elif [ $st -eq 0 ]; then
    ok # finished within a second: nothing to interrupt
else
    fail "interrupted sweep exited $st"
fi

# elk plot without gnuplot in PATH: a clear message, exit 1
mkdir -p "$tmp/emptybin"
if PATH="$tmp/emptybin" expect 1 "$ELK" plot "$tmp/j1.csv" -o "$tmp/nogp.png"; then
    contains "$tmp/err" "gnuplot is not installed"
fi
# the script alone needs no gnuplot
expect 0 "$ELK" plot "$tmp/j1.csv" --kind bars --script "$tmp/bars.gp" --no-draw -o "$tmp/bars.png"
contains "$tmp/bars.gp" '$data << EOD'

if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "$ELK" plot "$tmp/j1.csv" -o "$tmp/fig.png" && png_ok "$tmp/fig.png"
    for k in lines bars breakdown util roofline; do
        expect 0 "$ELK" plot "$tmp/j1.csv" --kind $k -o "$tmp/k-$k.png" && png_ok "$tmp/k-$k.png"
    done
    expect 0 "$ELK" plot "$tmp/j1.csv" -o "$tmp/fig.svg" && contains "$tmp/fig.svg" "<svg"
    # another --y than the figure's: titled for what it draws (issue 11)
    expect 0 "$ELK" plot "$tmp/j1.csv" --y pct_ideal --no-draw --script "$tmp/pct.gp" -o "$tmp/pct.png" &&
        contains "$tmp/pct.gp" "plottitle = 'Ideal latency / latency, percent"
    # without -o: CSV.png, said on stderr, and never replaced silently (issue 11)
    cp "$tmp/j1.csv" "$tmp/dflt.csv"
    expect 0 "$ELK" plot "$tmp/dflt.csv" && png_ok "$tmp/dflt.png" && contains "$tmp/err" "wrote $tmp/dflt.png"
    echo keep >"$tmp/dflt.png"
    if expect 1 "$ELK" plot "$tmp/dflt.csv"; then
        contains "$tmp/err" "exists; give -o"
        [ "$(cat "$tmp/dflt.png")" = keep ] && ok || fail "elk plot without -o replaced an existing figure"
    fi
    expect 0 "$ELK" plot "$tmp/dflt.csv" -o "$tmp/dflt.png" && png_ok "$tmp/dflt.png"
    if expect 1 "$ELK" plot "$tmp/j1.csv" --y no_such_col -o "$tmp/x.png"; then
        contains "$tmp/err" "no_such_col"
    fi
    # the .gp beside the CSV redraws the figure without elk
    (cd "$tmp" && gnuplot j1.gp >/dev/null 2>&1) && png_ok "$tmp/j1.png" || fail "gnuplot j1.gp failed"
    # elk plans' CSV as a Pareto figure
    "$ELK" plans --chip ipu-mk2 --model tiny --cores 64 --op 0 >"$tmp/plans.csv" 2>/dev/null
    expect 0 "$ELK" plot "$tmp/plans.csv" --kind pareto -o "$tmp/pareto.png" && png_ok "$tmp/pareto.png"
    expect 0 "$ELK" sweep "$tmp/t.cfg" -o "$tmp/p.csv" --plot && png_ok "$tmp/p.png"
else
    echo "note: gnuplot not installed; PNG checks skipped"
fi

# reproduce on a stand-in data folder (a tiny Fig. 18) writes CSV, script, summary
mkdir -p "$tmp/data/sweeps"
ln -s "$SRC/presets" "$tmp/data/presets"
ln -s "$SRC/plots" "$tmp/data/plots"
sed -e 's/name = "cli"/name = "fig18"/' -e 's/kind = "lines"; x = "hbm_tbps"; col = "noc_scale";/kind = "util"; cluster = "hbm_tbps";/' \
    "$tmp/t.cfg" >"$tmp/data/sweeps/fig18.cfg"
if ELK_DATADIR="$tmp/data" expect 0 "$ELK" reproduce --figure 18 -o "$tmp/repro" -j 2; then
    [ -s "$tmp/repro/fig18.csv" ] && ok || fail "reproduce wrote no fig18.csv"
    [ -s "$tmp/repro/fig18.gp" ] && ok || fail "reproduce wrote no fig18.gp"
    contains "$tmp/repro/summary.md" "## Fig. 18"
    contains "$tmp/repro/summary.md" "| Elk-Full | 62.40% |"
    contains "$tmp/repro/summary.md" "## Fig. 17"
    if command -v gnuplot >/dev/null 2>&1; then png_ok "$tmp/repro/fig18.png"; fi
fi
expect 2 "$ELK" reproduce --figure 16 -o "$tmp/repro"
expect 2 "$ELK" reproduce --figure ref --profile nosuch -o "$tmp/repro"

# the artifact's reference points (the real sweep, 5 points, ~1 s): the
# paper profile by default, held to the artifact; --profile physical runs the
# same points in the other model and says so
if expect 0 "$ELK" reproduce --figure ref --no-plot -o "$tmp/ref" -j 2; then
    contains "$tmp/ref/summary.md" "## The Elk artifact's reference points"
    contains "$tmp/ref/summary.md" "| 5888 | 10 | 16.777 | paper |"
    contains "$tmp/ref/summary.md" "24 of 25 latencies of the paper profile within tolerance; 1 a documented gap, 0 out."
fi
if expect 0 "$ELK" reproduce --figure ref --profile physical --no-plot -o "$tmp/refp" -j 2; then
    contains "$tmp/refp/summary.md" "| 5888 | 10 | 16.777 | physical |"
    contains "$tmp/refp/summary.md" "No row is in the paper profile"
    contains "$tmp/refp/summary.md" "Cost profile of every point: \`physical\` (--profile)."
    cmp -s "$tmp/ref/ref.csv" "$tmp/refp/ref.csv" && fail "--profile physical gave the paper CSV" || ok
fi

cli_done
