#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs the benchmarks and writes a report. Usage: scripts/run-benchmarks.sh <build dir> [report file]
# Each area appends its own section below.
set -eu
BUILD=${1:-build}
REPORT=${2:-$BUILD/benchmark-report.txt}
SRC=$(cd "$(dirname "$0")/.." && pwd)
: > "$REPORT"

# --- training throughput (issue 4): C++ step vs PyTorch from Python, same threads ---
if [ -x "$BUILD/bench/bench_train" ] || [ -x "$BUILD/bench_train" ]; then
  BT="$BUILD/bench/bench_train"; [ -x "$BT" ] || BT="$BUILD/bench_train"
  THREADS=${WB_BENCH_THREADS:-1}
  STEPS=${WB_BENCH_STEPS:-15}
  {
    echo "== training throughput: batch 32, max_seq_length 128, threads $THREADS =="
    for cfg in tiny mini; do
      cpp=$("$BT" "$cfg" "$STEPS" "$THREADS")
      echo "$cpp"
      if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
        py=$(/usr/bin/python3 "$SRC/bench/train_reference.py" --config "$cfg" --threads "$THREADS" --steps "$STEPS")
        echo "$py"
        /usr/bin/python3 -c 'import json,sys; c=json.loads(sys.argv[1]); p=json.loads(sys.argv[2]); print("%s: C++ %.1f examples/s, Python %.1f examples/s, ratio %.2fx (goal >= 1.1x); %.0f%% of the %.0f GFLOP/s GEMM peak" % (c["config"], c["examples_per_second"], p["examples_per_second"], c["examples_per_second"]/p["examples_per_second"], 100*c["fraction_of_gemm_peak"], c["gemm_peak_gflops"]))' "$cpp" "$py"
      else
        echo "python3-torch is not installed (apt-get install python3-torch): no reference"
      fi
    done
  } | tee -a "$REPORT"
fi

# --- GUI (issue 5): LossPlot with 10^6 points, worst UI stall during training ---
if [ -x "$BUILD/bench/bench_lossplot" ]; then
  QT_QPA_PLATFORM=${QT_QPA_PLATFORM:-offscreen} "$BUILD/bench/bench_lossplot" "${WB_BENCH_PLOT_POINTS:-1000000}" | tee -a "$REPORT"
fi
