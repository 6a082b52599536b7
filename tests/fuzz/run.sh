#!/usr/bin/env bash
# Build the libFuzzer harnesses and run each for SECONDS (docs/RELIABILITY.md).
#
#   tests/fuzz/run.sh SECONDS [cfg|csv|hf|plan ...]     (default: all four, in turn)
#
# Runs from the top of the checkout (the cfg seeds @include presets by a path
# relative to it). Builds into $ELK_FUZZ_BUILD (default build-fuzz/) with
# clang, ASan, UBSan and -fsanitize=fuzzer. Each harness starts from its seeds
# in tests/fuzz/seeds/NAME plus the data files the tree already ships
# (presets/, sweeps/, tests/data/), and keeps what it finds in
# BUILD/corpus/NAME, so a second run continues where the first stopped. A
# crash, a leak, an input slower than ELK_FUZZ_TIMEOUT seconds (default 10)
# or one needing more than 2 GB (resident, or in one allocation: ASan returns
# no NULL, so a huge allocation is a finding, not an error path) stops that harness: the input is kept as
# BUILD/artifacts/NAME-crash-..., and the script exits 1 after the others ran.
# Logs are BUILD/fuzz-NAME.log; the final line per harness is a summary.
# Environment: ELK_FUZZ_BUILD, ELK_FUZZ_TIMEOUT, ELK_FUZZ_JOBS (build -j, 1),
# ELK_FUZZ_PARALLEL (harnesses at once, 1),
# CC (default clang).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
TOP=$PWD

if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]] || [ "$1" -lt 1 ]; then
    echo "usage: tests/fuzz/run.sh SECONDS [cfg|csv|hf|plan ...]" >&2
    exit 2
fi
SECS=$1
shift
NAMES=("$@")
[ ${#NAMES[@]} -gt 0 ] || NAMES=(cfg csv hf plan)

B=${ELK_FUZZ_BUILD:-build-fuzz}
TIMEOUT=${ELK_FUZZ_TIMEOUT:-10}

cmake -S . -B "$B" -DCMAKE_C_COMPILER="${CC:-clang}" -DELK_FUZZ=ON -DELK_WERROR=ON \
      -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$B" --target fuzz -j"${ELK_FUZZ_JOBS:-1}"

# Our leaks fail the run; libconfig 1.5's own does not (tests/lsan.supp).
export LSAN_OPTIONS="suppressions=$TOP/tests/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

seeds() {
    case $1 in
    cfg) echo tests/fuzz/seeds/cfg presets/chips presets/models sweeps tests/data/bad ;;
    csv) echo tests/fuzz/seeds/csv ;;
    hf) echo tests/fuzz/seeds/hf tests/data/hf ;;
    plan) echo tests/fuzz/seeds/plan ;;
    *) echo "tests/fuzz/run.sh: unknown harness '$1' (cfg, csv, hf or plan)" >&2; return 1 ;;
    esac
}

# a point file is a config file: plan takes cfg's dictionary
dict_of() { case $1 in plan) echo cfg.dict ;; *) echo "$1.dict" ;; esac; }

# Harnesses run ELK_FUZZ_PARALLEL at a time (default 1), each on its own core
# for SECS of wall time; the reports follow in order.
PAR=${ELK_FUZZ_PARALLEL:-1}
fuzz_one() { # NAME: run it, its exit status in $B/fuzz-NAME.rc
    local n=$1 dirs rc=0
    dirs=$(seeds "$n") || { echo 2 >"$B/fuzz-$n.rc"; return; }
    mkdir -p "$B/corpus/$n" "$B/artifacts"
    # shellcheck disable=SC2086 # dirs is a list of paths without spaces
    "$B/tests/fuzz/fuzz_$n" -max_total_time="$SECS" -timeout="$TIMEOUT" -rss_limit_mb=2048 -malloc_limit_mb=2048 \
        -print_final_stats=1 -dict=tests/fuzz/$(dict_of "$n") -artifact_prefix="$B/artifacts/$n-" \
        "$B/corpus/$n" $dirs >"$B/fuzz-$n.log" 2>&1 || rc=$?
    echo "$rc" >"$B/fuzz-$n.rc"
}
running=0
for n in "${NAMES[@]}"; do
    echo "==== fuzz_$n: ${SECS}s (log $B/fuzz-$n.log)"
    fuzz_one "$n" &
    running=$((running + 1))
    if [ "$running" -ge "$PAR" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

fail=0
for n in "${NAMES[@]}"; do
    log=$B/fuzz-$n.log
    rc=$(cat "$B/fuzz-$n.rc" 2>/dev/null || echo 2)
    # libFuzzer's last status line ("#N DONE cov: C ft: F corp: ...") and
    # its final stats (execs, execs per second, peak RSS).
    last=$(grep -E '^#[0-9]+' "$log" | tail -n1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    echo "fuzz_$n: rc=$rc execs=${execs:-?} execs/s=${eps:-?} peak_rss_mb=${rss:-?} last: $last"
    if [ "$rc" -ne 0 ]; then
        fail=1
        grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 20 || true
    fi
done
exit $fail
