#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproduces the multi-label benchmark of docs/benchmarks.md, "Multi-label on Debian package
# descriptions (issue 45)": the debtags set (bench/data/make-debtags-set.sh), prepared with
# BERT-Tiny's uncased vocabulary; BERT-Tiny fine-tuned from random weights and from a masked-LM
# pretraining on the training texts only, seeds 42/43/44, and --pos_weight=balanced once per start.
#
#   bench/multilabel_debtags.sh WORK_DIR VOCAB_TXT [CLI]
#
# CLI defaults to build/app/cli/bert-workbench-cli. Environment: EPOCHS (6), LR (5e-4),
# PT_STEPS (200), THREADS (2). Each run's metrics are in WORK_DIR/runs/<name>/metrics.jsonl;
# WORK_DIR/summary.tsv gets the last evaluation's metrics and the wall time of every run.
set -euo pipefail

work=${1:?usage: multilabel_debtags.sh WORK_DIR VOCAB_TXT [CLI]}
vocab=${2:?usage: multilabel_debtags.sh WORK_DIR VOCAB_TXT [CLI]}
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${3:-$here/build/app/cli/bert-workbench-cli}
epochs=${EPOCHS:-6}
lr=${LR:-5e-4}
pt_steps=${PT_STEPS:-200}
threads=${THREADS:-2}
mkdir -p "$work/runs" "$work/logs"
cd "$work"

# 1. The data and its one-vs-rest TF-IDF + logistic regression baseline (prepare_report.json).
"$here/bench/data/make-debtags-set.sh" debtags.csv
"$cli" prepare --classification_task_name=csv --input_data_dir=debtags.csv \
    --vocab_file="$vocab" --do_lower_case=true --max_seq_length=128 --seed=42 \
    --output_dir=prepared

# 2. BERT-Tiny (L=2, H=128, A=2, I=512).
cat >bert_config.json <<'EOF'
{"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 512,
 "max_position_embeddings": 512, "num_attention_heads": 2, "num_hidden_layers": 2,
 "type_vocab_size": 2, "vocab_size": 30522}
EOF

# 3. The training texts only (split.jsonl's train rows), one document each, for the pretraining.
python3 - <<'EOF'
import csv, json
rows = list(csv.DictReader(open("debtags.csv", newline="")))
with open("train_texts.txt", "w") as out:
    for line in open("prepared/split.jsonl"):
        row = json.loads(line)
        if row["split"] == "train":
            out.write(rows[row["line"] - 2]["text"].strip() + "\n\n")
EOF
"$cli" prepare_pretraining --input_file=train_texts.txt --vocab_file="$vocab" \
    --do_lower_case=true --max_seq_length=128 --output_dir=pt_data
"$cli" pretrain --distribution_strategy=one_device --bert_config_file=bert_config.json \
    --input_meta_data_path=pt_data/input_meta_data.json --train_data_path=pt_data/train.tf_record \
    --eval_data_path=pt_data/eval.tf_record --vocab_file="$vocab" --do_lower_case=true \
    --model_dir=runs/pretrain --train_batch_size=32 --num_train_steps="$pt_steps" \
    --learning_rate=5e-4 --seed=42 --num_threads="$threads" >logs/pretrain.log 2>&1
"$cli" export --model_dir=runs/pretrain --bert_config_file=bert_config.json \
    --input_meta_data_path=pt_data/input_meta_data.json --vocab_file="$vocab" \
    --model_export_path=pt_export >logs/pt_export.log 2>&1

# 4. The fine-tunes: the same data, split, rate, epochs and seeds for both starts.
finetune() {
    local name=$1 seed=$2 start end
    shift 2
    rm -rf "runs/$name"
    start=$(date +%s.%N)
    "$cli" train --distribution_strategy=one_device --bert_config_file=bert_config.json \
        --input_meta_data_path=prepared/input_meta_data.json \
        --train_data_path=prepared/train.tf_record --eval_data_path=prepared/eval.tf_record \
        --vocab_file="$vocab" --do_lower_case=true --model_dir="runs/$name" \
        --train_batch_size=32 --learning_rate="$lr" --num_train_epochs="$epochs" \
        --seed="$seed" --num_threads="$threads" --save_embeddings=false "$@" \
        >"logs/$name.log" 2>&1
    end=$(date +%s.%N)
    python3 - "$name" "runs/$name/metrics.jsonl" "$start" "$end" >>summary.tsv <<'EOF'
import json, sys
name, path, start, end = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
last = [r for r in map(json.loads, open(path)) if "eval_micro_f1" in r][-1]
keys = ["eval_micro_f1", "eval_macro_f1", "eval_micro_f1_tuned", "eval_macro_f1_tuned",
        "eval_accuracy", "eval_hamming_loss", "eval_loss"]
print("\t".join([name, str(last.get("step"))] + [f"{last[k]:.4f}" for k in keys]
                + [f"{end - start:.0f}s"]))
EOF
}
printf 'run\tstep\tmicro_f1\tmacro_f1\tmicro_f1_tuned\tmacro_f1_tuned\tsubset_acc\thamming\teval_loss\twall\n' >summary.tsv
for seed in 42 43 44; do
    finetune "rand_s$seed" "$seed"
    finetune "pre_s$seed" "$seed" --init_checkpoint=pt_export
done
finetune rand_pw_s42 42 --pos_weight=balanced
finetune pre_pw_s42 42 --init_checkpoint=pt_export --pos_weight=balanced
cat summary.tsv
