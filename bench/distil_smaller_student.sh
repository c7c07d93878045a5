#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 48's "smaller pretrained student under a bigger teacher" (docs/benchmarks.md,
# "Distillation"), run in a work folder of bench/distil_bench.sh after it has trained the
# pretrained stand-in's teachers (runs/labels-standin-<seed>, ./pt_export, data/subset-<seed>).
# The student is BERT-Tiny cut to its first layer (L=1, H=128) and started from the stand-in's
# embeddings and first layer (--init_checkpoint=pt_export: the second layer's tensors are
# "unexpected" and left out, as DistilBERT starts its student from a share of the teacher's
# layers; --allow_partial_init=true). Per seed: that student on the labels alone (its "labels alone"), and distilled from the
# stand-in teacher on the subset's transfer texts; with BIG_TRANSFER (a text file, one text a
# line, none an eval text) both students — the one-layer one and the two-layer stand-in — are
# distilled again on those texts too. Every run is measured on the same eval texts.
#
#   bench/distil_smaller_student.sh WORK_DIR VOCAB_TXT
#
# Environment: SEEDS ("42 43 44"), THREADS (1), TEACHER_EPOCHS (30), STUDENT_EPOCHS (3), LR (5e-4),
# T (2), BIG_TRANSFER (unset), BIG_EPOCHS (1: epochs over the big transfer set). Steps whose
# output exists are skipped. Results: WORK_DIR/results-smaller.md.
set -euo pipefail

usage="usage: distil_smaller_student.sh WORK_DIR VOCAB_TXT"
work=${1:?$usage}
vocab=$(realpath "${2:?$usage}")
seeds=${SEEDS:-"42 43 44"}
threads=${THREADS:-1}
teacher_epochs=${TEACHER_EPOCHS:-30}
student_epochs=${STUDENT_EPOCHS:-3}
big_epochs=${BIG_EPOCHS:-1}
lr=${LR:-5e-4}
temperature=${T:-2}
big=${BIG_TRANSFER:+$(realpath "$BIG_TRANSFER")}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$work"
for need in cli pt_export/model.safetensors bert_config.json; do
    [ -e "$need" ] || { echo "distil_smaller_student.sh: $work/$need is missing: run bench/distil_bench.sh first" >&2; exit 2; }
done
python3 - <<'PY'
import json
c = json.load(open("bert_config.json"))
c["num_hidden_layers"] = 1
json.dump(c, open("bert_config_l1.json", "w"), indent=1)
PY
common=(--distribution_strategy=one_device --train_batch_size=32 --eval_batch_size=64 --num_threads="$threads"
        --vocab_file="$vocab" --do_lower_case=true --save_embeddings=false)

for seed in $seeds; do
    sub=data/subset-$seed
    teacher=runs/labels-standin-$seed
    [ -f "$teacher/training_summary.json" ] || { echo "distil_smaller_student.sh: $teacher has not finished" >&2; exit 2; }
    data=(--input_meta_data_path="$sub/prepared/input_meta_data.json" --train_data_path="$sub/prepared/train.tf_record"
          --eval_data_path="$sub/prepared/eval.tf_record")
    [ -f "runs/labels-standin1-$seed/training_summary.json" ] ||
        ./cli train "${common[@]}" "${data[@]}" --init_checkpoint=pt_export --allow_partial_init=true \
            --bert_config_file=bert_config_l1.json \
            --model_dir="runs/labels-standin1-$seed" --learning_rate="$lr" --num_train_epochs="$teacher_epochs" \
            --seed="$seed" >"logs/labels-standin1-$seed.log" 2>&1
    distil() { # run-name config transfer epochs
        [ -f "runs/$1/training_summary.json" ] && return 0
        local partial=()
        [ "$2" = bert_config_l1.json ] && partial=(--allow_partial_init=true) # the second layer left out on purpose
        ./cli distil "${common[@]}" --teacher_dir="$teacher" --transfer_data="$3" --bert_config_file="$2" \
            --init_checkpoint=pt_export "${partial[@]}" --learning_rate="$lr" --model_dir="runs/$1" --num_train_epochs="$4" \
            --distillation_temperature="$temperature" --seed="$seed" >"logs/$1.log" 2>&1
    }
    distil "distil-standin1-from-standin-$seed" bert_config_l1.json "$sub/transfer.csv" "$student_epochs"
    if [ -n "$big" ]; then
        distil "distil-standin1-big-from-standin-$seed" bert_config_l1.json "$big" "$big_epochs"
        distil "distil-standin-big-from-standin-$seed" bert_config.json "$big" "$big_epochs"
    fi
done

rows=("labels-standin=the stand-in teacher (L=2) on the 200 labels alone"
      "labels-standin1=the one-layer stand-in student on the 200 labels alone"
      "distil-standin1-from-standin=the one-layer student, distilled on the subset's transfer texts")
[ -n "$big" ] && rows+=("distil-standin1-big-from-standin=the one-layer student, distilled on BIG_TRANSFER"
                        "distil-standin-big-from-standin=the two-layer stand-in student, distilled on BIG_TRANSFER")
python3 "$here/bench/distil_table.py" runs "$seeds" eval_accuracy "${rows[@]}" >results-smaller.md
cat results-smaller.md
