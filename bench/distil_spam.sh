#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproduces docs/benchmarks.md, "Distillation on the spam example (issue 48)": on the SpamAssassin
# mail bodies (the spam example's split: prepare, seed 42, stratified 10 % eval), for each seed a
# 200-label subset of the train side is drawn; a teacher is fine-tuned on it from the best start
# available offline (BERT-Tiny pretrained with the masked-LM objective on the train side's texts, no
# labels: the "pretrained stand-in"); the teacher is distilled (`distil`) with the other train-side
# mails' bodies as unlabelled transfer text into two students — the same pretrained stand-in and
# BERT-Tiny from random weights — and each student is also trained on the 200 labels alone (for the
# stand-in that run is the teacher itself). Every run is measured on the same eval mails.
#
#   bench/distil_spam.sh WORK_DIR VOCAB_TXT CORPUS_TAR_GZ [CLI]
#
# Environment: SEEDS ("42 43 44"), LABELS (200), THREADS (1), PT_STEPS (200), TEACHER_EPOCHS (30),
# STUDENT_EPOCHS (3), LR (5e-4: the rate of a start from one's own pretraining), LR_RANDOM (1e-3),
# T (2: the temperature). Steps whose output exists are skipped. Results: WORK_DIR/results.md.
set -euo pipefail

usage="usage: distil_spam.sh WORK_DIR VOCAB_TXT CORPUS_TAR_GZ [CLI]"
work=${1:?$usage}
vocab=$(realpath "${2:?$usage}")
corpus=$(realpath "${3:?$usage}")
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

# 1. The mail bodies and the spam example's split; the pretrained stand-in.
[ -f data/mail.csv ] || python3 "$here/bench/make_mail_corpus.py" "$corpus" data/mail.csv 1
if [ ! -f data/split/split.jsonl ]; then
    ./cli prepare --classification_task_name=csv --input_data_dir=data/mail.csv --vocab_file="$vocab" \
        --do_lower_case=true --max_seq_length=128 --seed=42 --output_dir=data/split >logs/prepare.log 2>&1
fi
[ -f data/pool.csv ] || python3 "$here/bench/split_mail_pool.py" data/mail.csv data/split/split.jsonl data
if [ ! -f pt_export/model.safetensors ]; then
    ./cli prepare_pretraining --input_file=data/pool_texts.txt --vocab_file="$vocab" --do_lower_case=true \
        --max_seq_length=128 --output_dir=pt_data --random_seed=42 >logs/prepare_pretraining.log 2>&1
    rm -rf runs/pretrain
    ./cli pretrain --distribution_strategy=one_device --bert_config_file=bert_config.json \
        --input_meta_data_path=pt_data/input_meta_data.json --train_data_path=pt_data/train.tf_record \
        --eval_data_path=pt_data/eval.tf_record --vocab_file="$vocab" --do_lower_case=true \
        --model_dir=runs/pretrain --train_batch_size=32 --num_train_steps="$pt_steps" \
        --learning_rate=5e-4 --seed=42 --num_threads="$threads" >logs/pretrain.log 2>&1
    ./cli export --model_dir=runs/pretrain --model_export_path=pt_export >logs/pt_export.log 2>&1
fi

for seed in $seeds; do
    # 2. The labelled subset (train.csv; dev.csv = the eval mails) and the transfer texts (the rest).
    sub=data/subset-$seed
    if [ ! -f "$sub/prepared/input_meta_data.json" ]; then
        mkdir -p "$sub/csv"
        python3 - data/pool.csv data/eval.csv "$sub" "$labels" "$seed" <<'PY'
import csv, random, shutil, sys
csv.field_size_limit(1 << 30)
pool, ev, out, n, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rows = list(csv.reader(open(pool, newline="")))[1:]
random.Random(seed).shuffle(rows)
with open(f"{out}/csv/train.csv", "w", newline="") as f:
    w = csv.writer(f); w.writerow(["text", "label"]); w.writerows(rows[:n])
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
    # 3. The teacher (= the stand-in student on the labels alone) and the random student on the labels alone.
    [ -f "runs/teacher-$seed/training_summary.json" ] ||
        ./cli train "${common[@]}" "${data[@]}" --init_checkpoint=pt_export --bert_config_file=bert_config.json \
            --model_dir="runs/teacher-$seed" --learning_rate="$lr" --num_train_epochs="$teacher_epochs" \
            --seed="$seed" >"logs/teacher-$seed.log" 2>&1
    [ -f "runs/random-labels-$seed/training_summary.json" ] ||
        ./cli train "${common[@]}" "${data[@]}" --bert_config_file=bert_config.json \
            --model_dir="runs/random-labels-$seed" --learning_rate="$lr_random" --num_train_epochs="$teacher_epochs" \
            --seed="$seed" >"logs/random-labels-$seed.log" 2>&1
    # 4. The students, distilled on the transfer texts.
    [ -f "runs/standin-distil-$seed/training_summary.json" ] ||
        ./cli distil "${common[@]}" --teacher_dir="runs/teacher-$seed" --transfer_data="$sub/transfer.csv" \
            --init_checkpoint=pt_export --bert_config_file=bert_config.json --model_dir="runs/standin-distil-$seed" \
            --learning_rate="$lr" --num_train_epochs="$student_epochs" --distillation_temperature="$temperature" \
            --seed="$seed" >"logs/standin-distil-$seed.log" 2>&1
    [ -f "runs/random-distil-$seed/training_summary.json" ] ||
        ./cli distil "${common[@]}" --teacher_dir="runs/teacher-$seed" --transfer_data="$sub/transfer.csv" \
            --bert_config_file=bert_config.json --model_dir="runs/random-distil-$seed" \
            --learning_rate="$lr_random" --num_train_epochs="$student_epochs" \
            --distillation_temperature="$temperature" --seed="$seed" >"logs/random-distil-$seed.log" 2>&1
done

# 5. Results: the last evaluation's accuracy of each run, by seed, mean and spread.
python3 - runs "$seeds" >results.md <<'PY'
import json, statistics, sys
root, seeds = sys.argv[1], sys.argv[2].split()
def last_eval(run):
    last = None
    for line in open(f"{root}/{run}/metrics.jsonl"):
        j = json.loads(line)
        if j.get("kind") == "eval":
            last = j
    return last
print("| run | accuracy by seed | mean ± sd | agreement with the teacher |")
print("|---|---|---|---|")
for name, label in (("teacher", "teacher: stand-in on the 200 labels (= stand-in student, labels alone)"),
                    ("standin-distil", "stand-in student, distilled"),
                    ("random-labels", "random-weights student, labels alone"),
                    ("random-distil", "random-weights student, distilled")):
    evals = [last_eval(f"{name}-{s}") for s in seeds]
    acc = [e["eval_accuracy"] for e in evals]
    agree = [e.get("eval_teacher_agreement") for e in evals if "eval_teacher_agreement" in e]
    sd = f" ± {statistics.stdev(acc) * 100:.1f}" if len(acc) > 1 else ""
    print(f"| {label} | {' / '.join(f'{a * 100:.1f}' for a in acc)} | **{statistics.mean(acc) * 100:.1f}{sd}** | "
          + (f"{statistics.mean(agree) * 100:.1f}" if agree else "-") + " |")
PY
cat results.md
