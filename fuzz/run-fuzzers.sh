#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets in build-fuzz (clang, -fsanitize=fuzzer,address,undefined) and
# runs each for FUZZ_SECONDS seconds from its seed corpus (fuzz/corpus/<target>, plus the
# fixed crashers in fuzz/regressions/<target>), one after
# another, then prints executions and exec/s per target. New inputs go to
# build-fuzz/corpus/<target> (the committed seeds stay untouched); a crash, leak, UBSan
# report, timeout or single allocation over 256 MB leaves build-fuzz/findings/<target>/crash-* (or leak-, timeout-, oom-)
# and makes the script exit 1.
#   usage: fuzz/run-fuzzers.sh [target ...]      (default: all)
#   env:   FUZZ_SECONDS (60), FUZZ_RUNS (unset: run by time), BUILD_DIR (build-fuzz), JOBS (2)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-2}
ALL=(bertconfig inputmetadata tfconfig tfrecord example safetensors torchpickle eventfile csvtsv vocab projectfile progressjsonl evalexamples bestrecord runconfig labelnames preparereport metricsjsonl lrfind pretrainingtext pretrainingrecord emailbody splitfile sweepfile sweepevents corrections labelstore)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL[@]}")

command -v clang++ >/dev/null || { echo "make fuzz needs clang++ (Debian: apt install clang libclang-rt-dev)" >&2; exit 2; }
cmake -S . -B "$BUILD_DIR" -DWB_BUILD_FUZZERS=ON -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
cmake --build "$BUILD_DIR" -j"$JOBS" --target $(printf 'fuzz_%s ' "${TARGETS[@]}")

status=0
summary=()
for t in "${TARGETS[@]}"; do
    work="$BUILD_DIR/corpus/$t"
    findings="$BUILD_DIR/findings/$t"
    log="$BUILD_DIR/fuzz-$t.log"
    mkdir -p "$work" "$findings"
    limits=(-max_total_time="$FUZZ_SECONDS")
    [ -n "${FUZZ_RUNS:-}" ] && limits=(-runs="$FUZZ_RUNS")
    echo "== fuzz_$t (${FUZZ_RUNS:+$FUZZ_RUNS runs}${FUZZ_RUNS:-${FUZZ_SECONDS} s})"
    rc=0
    "$BUILD_DIR/fuzz/fuzz_$t" "${limits[@]}" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256 \
        -print_final_stats=1 -artifact_prefix="$findings/" "$work" "fuzz/corpus/$t" \
        $( [ -d "fuzz/regressions/$t" ] && echo "fuzz/regressions/$t" ) >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    corpus=$(ls "$work" | wc -l)
    result=ok
    if [ $rc -ne 0 ]; then
        result="FINDING (exit $rc): $(ls "$findings" | head -3 | tr '\n' ' ')— see $log"
        status=1
    fi
    line=$(printf '%-15s %12s execs %9s exec/s  corpus %5s  %s' "fuzz_$t" "${execs:-?}" "${speed:-?}" "$corpus" "$result")
    echo "$line"
    summary+=("$line")
done
echo
echo "== summary (FUZZ_SECONDS=$FUZZ_SECONDS${FUZZ_RUNS:+, FUZZ_RUNS=$FUZZ_RUNS})"
printf '%s\n' "${summary[@]}"
exit $status
