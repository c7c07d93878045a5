#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One cycle of label to learn (issue 47; docs/label-to-learn.md, "What a cycle costs"): BERT-Tiny
# from random weights, a pool of POOL (5,000) SpamAssassin mail bodies, batches of 10, the queue's
# order (so every cycle retrains and rescores the whole pool), measured on 600 other mails; prints
# each cycle's wall time (prepare, train, bag-of-words baseline, rescore of the pool and the eval
# texts) and the median of the last CYCLES cycles. Goal: <= 30 s on a 2-core machine.
#
#   bench/label_cycle_time.sh VOCAB_TXT CORPUS_TAR_GZ [CLI]
#
# Environment: POOL (5000), LABELS (50: the cycles at 10 … LABELS labels), THREADS (1).
set -euo pipefail
usage="usage: label_cycle_time.sh VOCAB_TXT CORPUS_TAR_GZ [CLI]"
vocab=$(realpath "${1:?$usage}")
corpus=$(realpath "${2:?$usage}")
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${3:-$here/build/app/cli/bert-workbench-cli}
pool=${POOL:-5000}
labels=${LABELS:-50}
threads=${THREADS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/bench/make_mail_corpus.py" "$corpus" "$work/all.csv" 1 >/dev/null
python3 - "$work/all.csv" "$work" "$pool" <<'PY'
import csv, random, sys
csv.field_size_limit(1 << 30)
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.reader(open(src, newline="")))[1:]
random.Random(42).shuffle(rows)
for name, part in (("pool.csv", rows[:n]), ("eval.csv", rows[n:n + 600])):
    with open(f"{out}/{name}", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(part)
PY
cat >"$work/bert_config.json" <<'JSON'
{"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 512,
 "max_position_embeddings": 512, "num_attention_heads": 2, "num_hidden_layers": 2,
 "type_vocab_size": 2, "vocab_size": 30522}
JSON
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$cli" label_simulate --pool_file="$work/pool.csv" --eval_file="$work/eval.csv" \
    --bert_config_file="$work/bert_config.json" --vocab_file="$vocab" --learning_rate=1e-3 --min_steps=100 \
    --num_threads="$threads" --strategy=uncertain_diverse --batch_size=10 --max_labels="$labels" --seeds=42 \
    --output_dir="$work/sim" | tee "$work/out.txt"
python3 - "$work/sim/uncertain_diverse-seed42/curve.jsonl" <<'PY'
import json, statistics, sys
pts = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
s = [p["seconds"] for p in pts]
print(f"cycle: median {statistics.median(s):.1f} s, max {max(s):.1f} s over {len(s)} cycles "
      f"(train median {statistics.median(p['seconds_train'] for p in pts):.1f} s, "
      f"rescore median {statistics.median(p['seconds_score'] for p in pts):.1f} s); goal <= 30 s")
PY
