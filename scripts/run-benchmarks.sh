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

# --- data (issue 3): tokenizer throughput + id parity with Hugging Face tokenizers.js and the
# Python port of google-research/bert's rules; TFRecord read throughput with CRC checks ---
BTOK="$BUILD/bench/bench_tokenizer"
if [ -x "$BTOK" ]; then
  TMPD=$(mktemp -d)
  VOCAB=${WB_BENCH_VOCAB:-$SRC/../shared/data/vocab/bert-base-uncased-vocab.txt}
  CORPUS_TGZ=${WB_BENCH_CORPUS:-$SRC/../shared/data/spamassassin-public-corpus.tar.gz}
  CORPUS_DIR=${WB_BENCH_CORPUS_DIR:-}
  if [ -z "$CORPUS_DIR" ] && [ -f "$CORPUS_TGZ" ]; then
    tar -xzf "$CORPUS_TGZ" -C "$TMPD" && CORPUS_DIR="$TMPD/spamassassin"
  fi
  if [ -f "$VOCAB" ] && [ -d "$CORPUS_DIR" ]; then
    {
      echo "== tokenizer: SpamAssassin corpus, bert-base-uncased vocab, whole e-mails =="
      "$BTOK" "$VOCAB" "$CORPUS_DIR" "$TMPD/ids.jsonl" "$TMPD/files.txt"
      if command -v npm >/dev/null 2>&1 && (cd "$TMPD" && npm install --silent @huggingface/tokenizers@0.2.0 >/dev/null 2>&1); then
        node "$SRC/bench/hf_tokenizer_ids.mjs" "$TMPD/node_modules/@huggingface/tokenizers" "$VOCAB" "$TMPD/files.txt" "$TMPD/hf.jsonl"
        python3 -c 'import sys,json; a=open(sys.argv[1]).read().splitlines(); b=open(sys.argv[2]).read().splitlines(); s=sum(json.loads(x)==json.loads(y) for x,y in zip(a,b)); print(json.dumps({"bench":"tokenizer_parity_hf","files":len(a),"identical":s,"share":s/max(len(a),1)}))' "$TMPD/ids.jsonl" "$TMPD/hf.jsonl"
      else
        echo "npm @huggingface/tokenizers not reachable: no HF comparison"
      fi
      python3 "$SRC/bench/compare_tokenizer_ids.py" "$VOCAB" "$TMPD/files.txt" "$TMPD/ids.jsonl" "${WB_BENCH_PY_STEP:-20}"
    } | tee -a "$REPORT"
  else
    echo "tokenizer benchmark: vocab or corpus missing (set WB_BENCH_VOCAB / WB_BENCH_CORPUS_DIR)" | tee -a "$REPORT"
  fi
  rm -rf "$TMPD"
fi
if [ -x "$BUILD/bench/bench_tfrecord" ]; then
  echo "== TFRecord read (both CRCs verified; goal >= 300 MB/s) and Example decoding ==" | tee -a "$REPORT"
  "$BUILD/bench/bench_tfrecord" "${TMPDIR:-/tmp}" "${WB_BENCH_RECORDS:-200000}" | tee -a "$REPORT"
fi
