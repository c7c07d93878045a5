#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproduces docs/benchmarks.md, "Distillation (issue 48)", on the spam example or on any CSV of
# texts and labels (the second data set: Debian's package descriptions with their debtags,
# bench/data/make-debtags-set.sh, multi-label). The data is split as prepare splits it (seed 42,
# 10 % eval); for each seed a LABELS-text subset of the train side is drawn; a teacher is
# fine-tuned on it from each start available offline — BERT-Tiny from random weights, and BERT-Tiny
# pretrained with the masked-LM objective on the train side's texts, no labels (the "pretrained
# stand-in", bench/pretrain_standin.sh) — and these are also each student's "labels alone"; each
# teacher is distilled (`distil`) with the other train-side texts as unlabelled transfer text into
# both students. Every run is measured on the same eval texts: eval_accuracy, or eval_micro_f1 for
# a multi-label set.
#
#   bench/distil_bench.sh WORK_DIR VOCAB_TXT DATA [CLI]
#
# DATA: the SpamAssassin corpus (.tar.gz: the mail bodies, bench/make_mail_corpus.py) or a CSV
# whose header is text,label or text,labels. Environment: SEEDS ("42 43 44"), LABELS (200),
# THREADS (1), PT_STEPS (200), TEACHER_EPOCHS (30), STUDENT_EPOCHS (3), LR (5e-4: the rate of a
# start from one's own pretraining), LR_RANDOM (1e-3), T (2: the temperature). Steps whose output
# exists are skipped. TEACHERS ("random standin"): the teachers' starts. Results: WORK_DIR/results.md.
set -euo pipefail

usage="usage: distil_bench.sh WORK_DIR VOCAB_TXT DATA [CLI]"
work=${1:?$usage}
vocab=$(realpath "${2:?$usage}")
source_data=$(realpath "${3:?$usage}")
here=$(cd "$(dirname "$0")/.." && pwd)
seeds=${SEEDS:-"42 43 44"}
labels=${LABELS:-200}
threads=${THREADS:-1}
pt_steps=${PT_STEPS:-200}
teacher_epochs=${TEACHER_EPOCHS:-30}
student_epochs=${STUDENT_EPOCHS:-3}
lr=${LR:-5e-4}
lr_random=${LR_RANDOM:-1e-3}
temperature=${T:-2}
teachers=${TEACHERS:-"random standin"}
mkdir -p "$work"/{logs,data,runs}
cd "$work"
[ -x cli ] || cp "${4:-$here/build/app/cli/bert-workbench-cli}" cli

cat >bert_config.json <<'JSON'
{"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 512,
 "max_position_embeddings": 512, "num_attention_heads": 2, "num_hidden_layers": 2,
 "type_vocab_size": 2, "vocab_size": 30522}
JSON
common=(--distribution_strategy=one_device --train_batch_size=32 --eval_batch_size=64 --num_threads="$threads"
        --vocab_file="$vocab" --do_lower_case=true --save_embeddings=false)

# 1. The labelled texts, the split and the pretrained stand-in.
if [ ! -f data/all.csv ]; then
    case "$source_data" in
        *.tar.gz|*.tgz) python3 "$here/bench/make_mail_corpus.py" "$source_data" data/all.csv 1 ;;
        *) cp "$source_data" data/all.csv ;;
    esac
fi
if [ ! -f data/split/split.jsonl ]; then
    ./cli prepare --classification_task_name=csv --input_data_dir=data/all.csv --vocab_file="$vocab" \
        --do_lower_case=true --max_seq_length=128 --seed=42 --output_dir=data/split >logs/prepare.log 2>&1
fi
[ -f data/pool.csv ] || python3 "$here/bench/split_pool.py" data/all.csv data/split/split.jsonl data
"$here/bench/pretrain_standin.sh" "$vocab" data/pool_texts.txt "$pt_steps" "$threads"

for seed in $seeds; do
    # 2. The labelled subset (train.csv; dev.csv = the eval texts) and the transfer texts (the rest).
    sub=data/subset-$seed
    if [ ! -f "$sub/prepared/input_meta_data.json" ]; then
        mkdir -p "$sub/csv"
        python3 - data/pool.csv data/eval.csv "$sub" "$labels" "$seed" <<'PY'
import csv, random, shutil, sys
csv.field_size_limit(1 << 30)
pool, ev, out, n, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
header, *rows = list(csv.reader(open(pool, newline="")))
random.Random(seed).shuffle(rows)
with open(f"{out}/csv/train.csv", "w", newline="") as f:
    w = csv.writer(f); w.writerow(header); w.writerows(rows[:n])
with open(f"{out}/transfer.csv", "w", newline="") as f:
    w = csv.writer(f); w.writerow(["text"]); w.writerows([r[0]] for r in rows[n:])
shutil.copy(ev, f"{out}/csv/dev.csv")
PY
        ./cli prepare --classification_task_name=csv --input_data_dir="$sub/csv" --vocab_file="$vocab" \
            --do_lower_case=true --max_seq_length=128 --seed="$seed" --output_dir="$sub/prepared" \
            >"logs/prepare-$seed.log" 2>&1
    fi
    data=(--input_meta_data_path="$sub/prepared/input_meta_data.json" --train_data_path="$sub/prepared/train.tf_record"
          --eval_data_path="$sub/prepared/eval.tf_record")
    # 3. Both starts on the labels alone; each is a teacher, and each the "labels alone" of its student.
    [ -f "runs/labels-standin-$seed/training_summary.json" ] ||
        ./cli train "${common[@]}" "${data[@]}" --init_checkpoint=pt_export --bert_config_file=bert_config.json \
            --model_dir="runs/labels-standin-$seed" --learning_rate="$lr" --num_train_epochs="$teacher_epochs" \
            --seed="$seed" >"logs/labels-standin-$seed.log" 2>&1
    [ -f "runs/labels-random-$seed/training_summary.json" ] ||
        ./cli train "${common[@]}" "${data[@]}" --bert_config_file=bert_config.json \
            --model_dir="runs/labels-random-$seed" --learning_rate="$lr_random" --num_train_epochs="$teacher_epochs" \
            --seed="$seed" >"logs/labels-random-$seed.log" 2>&1
    # 4. Each teacher distilled on the transfer texts into each student.
    for teacher in $teachers; do
        for student in standin random; do
            run=distil-$student-from-$teacher-$seed
            [ -f "runs/$run/training_summary.json" ] && continue
            start=(--learning_rate="$lr_random")
            [ "$student" = standin ] && start=(--init_checkpoint=pt_export --learning_rate="$lr")
            ./cli distil "${common[@]}" --teacher_dir="runs/labels-$teacher-$seed" --transfer_data="$sub/transfer.csv" \
                --bert_config_file=bert_config.json "${start[@]}" --model_dir="runs/$run" \
                --num_train_epochs="$student_epochs" --distillation_temperature="$temperature" \
                --seed="$seed" >"logs/$run.log" 2>&1
        done
    done
done

# 5. Results: the last evaluation's metric of each run, by seed, mean and spread.
declare -A names=([standin]="pretrained stand-in" [random]="random weights")
rows=()
for s in standin random; do rows+=("labels-$s=${names[$s]} on the $labels labels alone"); done
for t in $teachers; do
    for s in standin random; do rows+=("distil-$s-from-$t=${names[$s]} student, distilled from the ${names[$t]} teacher"); done
done
python3 "$here/bench/distil_table.py" runs "$seeds" auto "${rows[@]}" >results.md
cat results.md
