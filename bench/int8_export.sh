#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --onnx_dtype int8 against fp32 (issue 48): BERT-Tiny and BERT-Mini (random start) trained on the
# spam example (~/.cache/bert-workbench/example-spam: prepared data and bert_config.json; 3 epochs,
# 1 thread, seed 42; the runs are kept in WORK and reused), each exported as fp32, then bench_int8
# on the export: fp32, int8 and two alternatives side by side in ONNX Runtime (1 thread, batch 1,
# seq 128; accuracy on the 603 eval records) and classify on the int8 folder.
# Usage: bench/int8_export.sh CLI BENCH_INT8 [WORK] — prints bench_int8's JSON and a summary per model.
set -eu
CLI=$1
BENCH=$2
WORK=${3:-${XDG_CACHE_HOME:-$HOME/.cache}/bert-workbench/bench-int8}
EX=${XDG_CACHE_HOME:-$HOME/.cache}/bert-workbench/example-spam
if [ ! -f "$EX/train.tf_record" ]; then
  echo "(skipped: the spam example is not prepared in $EX; open it once in the window or run its prepare)"
  exit 0
fi
VOCAB=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vocab_file"])' "$EX/prepare_report.json")
mkdir -p "$WORK"
python3 - "$EX/bert_config.json" "$WORK/mini_config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.update(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024)
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
export OPENBLAS_NUM_THREADS=1
for m in tiny mini; do
  cfg=$EX/bert_config.json; lr=0.0005
  [ "$m" = mini ] && cfg=$WORK/mini_config.json && lr=0.0003
  if [ ! -d "$WORK/run-$m/best" ] && ! ls "$WORK/run-$m"/ckpt-507* >/dev/null 2>&1; then
    "$CLI" train --ds one_device --bert_config_file "$cfg" --input_meta_data_path "$EX/input_meta_data.json" \
      --train_data_path "$EX/train.tf_record" --eval_data_path "$EX/eval.tf_record" --model_dir "$WORK/run-$m" \
      --num_train_epochs 3 --learning_rate "$lr" --train_batch_size 32 --eval_batch_size 64 --num_threads 1 \
      --seed 42 --vocab_file "$VOCAB" > "$WORK/train-$m.log" 2>&1
  fi
  "$CLI" export --model_dir "$WORK/run-$m" --model_export_path "$WORK/export-$m" --overwrite_output_dir \
    > "$WORK/export-$m.log" 2>&1
  out=$("$BENCH" "$m" "$WORK/export-$m" "$EX/eval.tf_record" "" "${WB_BENCH_INT8_REPEATS:-100}" "${WB_BENCH_INT8_ROUNDS:-9}")
  echo "$out"
  python3 -c '
import json, sys
j = json.loads(sys.argv[1])
v = {r["variant"]: r for r in j["variants"]}
f, q = v["fp32"], v["int8"]
c = j["classify_int8_export"]
if "ort_median_ms" in q:
    print("%s int8 vs fp32: file %.1f%% (goal <= 30%%), ONNX Runtime eval accuracy %.2f%% vs %.2f%% (%+.2f points, goal within 0.5), batch 1 %.3f ms vs %.3f ms = %.2fx (fastest rounds: %.2fx; goal >= 1.5x); classify on the int8 folder: max probability difference %.4f, accuracy %.2f%%" % (
        j["model"], 100 * q["size_ratio"], 100 * q["ort_accuracy"], 100 * f["ort_accuracy"], q["accuracy_points_vs_fp32"],
        q["ort_median_ms"], f["ort_median_ms"], q["speedup_vs_fp32"], q["speedup_best_rounds"], c["max_probability_difference"], 100 * c["int8_accuracy"]))
    for name in ("int8_head", "int8_fp32_words", "fp16"):
        r = v[name]
        print("  %s: file %.1f%%, accuracy %+.2f points, max probability difference %.4f, %.2fx (fastest rounds: %.2fx)" % (
            name, 100 * r["size_ratio"], r["accuracy_points_vs_fp32"], r["max_probability_difference"], r["speedup_vs_fp32"],
            r["speedup_best_rounds"]))
else:
    print("%s int8: file %.1f%% of fp32; ONNX Runtime %s" % (j["model"], 100 * q["size_ratio"], j.get("ort", "")))
w = j.get("ort_web")
if isinstance(w, dict):
    print("  onnxruntime-web (headless Chromium, 1 thread, batch 1): %.2f ms vs %.2f ms = %.2fx" % (
        w["int8_median_ms"], w["fp32_median_ms"], w["speedup_int8_vs_fp32"]))
else:
    print("  onnxruntime-web: %s" % w)
' "$out"
done
