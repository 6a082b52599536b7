#!/usr/bin/env bash
# CLI golden tests: run the elk binary on fixed inputs and compare what it
# prints with tests/golden/. A case passes when the exit status is the
# expected one, stdout matches NAME.out, and stderr matches NAME.err for
# failing commands (successful ones must print nothing on stderr).
#
# usage: cli_golden.sh ELK_BINARY SOURCE_DIR
#   ELK_UPDATE_GOLDEN=1 rewrites the golden files from the binary instead of
#   comparing (review the diff before committing it).
#
# Runs from SOURCE_DIR with relative paths and ELK_DATADIR set, so outputs
# do not depend on where the tree or the build lives; scratch paths are
# shown as TMP.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 ELK_BINARY SOURCE_DIR" >&2
    exit 2
fi
ELK=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
GOLD=$SRC/tests/golden
UPDATE=${ELK_UPDATE_GOLDEN:-}
export ELK_DATADIR=$SRC LC_ALL=C
cd "$SRC" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/elk-golden-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
cases=0

# compare NAME.EXT: the golden file against the scratch one (or update it)
compare() {
    if [ -n "$UPDATE" ]; then
        cp "$tmp/$1" "$GOLD/$1"
    elif ! diff -u "$GOLD/$1" "$tmp/$1"; then
        echo "FAIL $1 differs from tests/golden/$1"
        failed=$((failed + 1))
    fi
}

# run NAME STATUS ARGS...: elk ARGS must exit with STATUS
run() {
    local name=$1 want=$2 got
    shift 2
    cases=$((cases + 1))
    "$ELK" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    got=$?
    sed -i "s#$tmp#TMP#g" "$tmp/$name.out" "$tmp/$name.err"
    if [ "$got" != "$want" ]; then
        echo "FAIL $name: 'elk $*' exited $got, want $want"
        cat "$tmp/$name.err"
        failed=$((failed + 1))
    fi
    compare "$name.out"
    if [ "$want" = 0 ]; then
        if [ -s "$tmp/$name.err" ]; then
            echo "FAIL $name: unexpected stderr:"
            cat "$tmp/$name.err"
            failed=$((failed + 1))
        fi
    else
        compare "$name.err"
    fi
}

run version 0 --version
run help 0 --help
run graph-tiny-totals 0 graph --model tiny --totals
run graph-tiny-csv 0 graph --model tiny --format csv
run graph-tiny-table 0 graph --model tiny --layers 1 --batch 2 --seq 16
run validate-presets 0 validate presets/chips/*.cfg presets/models/*.cfg
run validate-bad 1 validate presets/models/tiny.cfg tests/data/bad/chip-typo-field.cfg \
    tests/data/bad/model-heads-kv.cfg
# elk run on the tiny model at the default point, in its three formats:
# every number of the result, byte for byte (a change to the cost model or
# a policy shows up here; ELK_UPDATE_GOLDEN=1 after reviewing it)
run run-tiny-table 0 run --model tiny
run run-tiny-csv 0 run --model tiny --format csv
run run-tiny-json 0 run --model tiny --format json
run unknown-option 2 graph --model tiny --bogus
run unknown-command 2 frobnicate
run bad-format 2 graph --model tiny --format xml
# the ablation ladder (issue 14): in both cost profiles, and its usage errors
run ablate-tiny-paper 0 ablate --models tiny --chip ipu-mk2 --profile paper --format csv
run ablate-tiny-physical 0 ablate --models tiny --chip ipu-mk2 --profile physical
run ablate-orders-tiny 0 ablate --orders --models tiny --chip ipu-mk2 --profile paper --format csv
run noise-tiny-csv 0 noise --model tiny --chip ipu-mk2 --trials 3 --sigma 0.1,0.2 --format csv
run noise-bad-sigma 2 noise --model tiny --sigma 0.1,x
run balance-tiny-hbm 0 balance --chip ipu-mk2 --model tiny --knob hbm-tbps --policy ideal --range 0.05:50
run balance-no-knob 2 balance --model tiny
run balance-word-knob 2 balance --model tiny --knob topology
run sensitivity-tiny 0 sensitivity --chip ipu-mk2 --model tiny
run sensitivity-tiny-csv 0 sensitivity --chip ipu-mk2 --model tiny --profile physical --format csv
run controllers-tiny 0 controllers --chip ipu-mk2 --model tiny --hbm 4 --topologies all-to-all,mesh --controllers 1,4 --format csv
# elk gap --bound (issue 14, item 1): the MILP's optimum and its schedule on
# one layer of the tiny model, the LP relaxation and the reach LP as CSV, a bad kind
run gap-bound-milp-tiny 0 gap --bound milp --model tiny --layers 1
run gap-bound-lp-csv 0 gap --bound lp --model tiny --layers 1 --profile physical --format csv
run gap-bound-reach-csv 0 gap --bound reach --model tiny --layers 1 --profile physical --format csv
run gap-bound-bad 2 gap --bound simplex
run ablate-bad-format 2 ablate --models tiny --format xml
run ablate-bad-model 1 ablate --models tiny,nosuchmodel

# import-hf writes a preset that validates and builds a graph
run import-hf 0 import-hf tests/data/hf/mixtral-8x7b/config.json -o "$tmp/import-hf.cfg"
compare import-hf.cfg
run import-hf-validate 0 validate "$tmp/import-hf.cfg"
run import-hf-bad 1 import-hf tests/data/hf/bad/kv-not-dividing-heads.json -o "$tmp/bad.cfg"
if [ -e "$tmp/bad.cfg" ]; then
    echo "FAIL import-hf-bad: wrote a preset despite the error"
    failed=$((failed + 1))
fi
run import-hf-usage 2 import-hf

if [ -n "$UPDATE" ]; then
    echo "updated tests/golden/ from $cases cases"
    exit 0
fi
echo "$cases cases, $failed failures"
[ "$failed" = 0 ]
