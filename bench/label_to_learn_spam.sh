#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproduces docs/benchmarks.md, "Label to learn on the spam example (issue 47)": a simulated
# annotator (`label_simulate`) labels the SpamAssassin mail bodies of the train split (the pool; its
# gold labels hidden in pool.csv) in batches of 10 from 0 to MAX_LABELS labels, by the queue's order
# (uncertain_diverse: margin sampling + k-centre) and in random order, 3 seeds, BERT-Tiny from random
# weights and from a pretrained stand-in (BERT-Tiny pretrained with the masked-LM objective on the
# pool's texts, no labels); every model is measured on the eval split's mails, with the bag-of-words
# baseline on the same labels. Then one cycle's time on a pool of 5,000 texts.
#
#   bench/label_to_learn_spam.sh WORK_DIR VOCAB_TXT CORPUS_TAR_GZ [CLI]
#
# Environment: SEEDS ("42 43 44"), MAX_LABELS (200), LR (1e-3), MIN_STEPS (100: each model's steps
# at least; with lr 5e-4 and 40 steps BERT-Tiny still guessed the majority label at 100 labels),
# THREADS (1: the cycle's own thread count; 2 on a quiet machine), PT_STEPS (200),
# STARTS ("random pretrained"). Steps whose output exists are skipped. Results: WORK_DIR/results.md.
set -euo pipefail

usage="usage: label_to_learn_spam.sh WORK_DIR VOCAB_TXT CORPUS_TAR_GZ [CLI]"
work=${1:?$usage}
vocab=$(realpath "${2:?$usage}")
corpus=$(realpath "${3:?$usage}")
here=$(cd "$(dirname "$0")/.." && pwd)
seeds=${SEEDS:-"42 43 44"}
max_labels=${MAX_LABELS:-200}
lr=${LR:-1e-3}
min_steps=${MIN_STEPS:-100}
threads=${THREADS:-1}
pt_steps=${PT_STEPS:-200}
starts=${STARTS:-"random pretrained"}
mkdir -p "$work"/{logs,data,sim}
cd "$work"
[ -x cli ] || cp "${4:-$here/build/app/cli/bert-workbench-cli}" cli

cat >bert_config.json <<'EOF'
{"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 512,
 "max_position_embeddings": 512, "num_attention_heads": 2, "num_hidden_layers": 2,
 "type_vocab_size": 2, "vocab_size": 30522}
EOF

# 1. The mail bodies, split as the spam example splits them (prepare, seed 42, stratified 10 %).
[ -f data/mail.csv ] || python3 "$here/bench/make_mail_corpus.py" "$corpus" data/mail.csv 1
if [ ! -f data/split/split.jsonl ]; then
    ./cli prepare --classification_task_name=csv --input_data_dir=data/mail.csv --vocab_file="$vocab" \
        --do_lower_case=true --max_seq_length=128 --seed=42 --output_dir=data/split >logs/prepare.log 2>&1
fi
[ -f data/pool.csv ] || python3 "$here/bench/split_pool.py" data/mail.csv data/split/split.jsonl data

# 2. The pretrained stand-in: BERT-Tiny pretrained on the pool's texts (no labels).
[[ " $starts " == *" pretrained "* ]] && "$here/bench/pretrain_standin.sh" "$vocab" data/pool_texts.txt "$pt_steps" "$threads"

# 3. The simulations: each start, each order, each seed.
for start in $starts; do
    init=()
    [ "$start" = pretrained ] && init=(--init_checkpoint=pt_export)
    for strategy in uncertain_diverse random; do
        for seed in $seeds; do
            [ -f "sim/$start/$strategy-seed$seed/done" ] && continue
            ./cli label_simulate --pool_file=data/pool.csv --eval_file=data/eval.csv \
                --bert_config_file=bert_config.json --vocab_file="$vocab" "${init[@]}" \
                --learning_rate="$lr" --min_steps="$min_steps" --num_threads="$threads" \
                --strategy="$strategy" --batch_size=10 \
                --max_labels="$max_labels" --seeds="$seed" --output_dir="sim/$start" \
                >"logs/sim-$start-$strategy-$seed.log" 2>&1
            touch "sim/$start/$strategy-seed$seed/done"
        done
    done
done

# 4. Results: accuracy at 100 and at max_labels labels, mean and spread over the seeds.
python3 - sim "$max_labels" "$starts" >results.md <<'EOF'
import json, statistics, sys
root, top, starts = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
print("| start | order | labels | accuracy (seeds) | mean | bag-of-words mean | cycle s (mean) |")
print("|---|---|---|---|---|---|---|")
import glob, os
for start in starts:
    for strategy in ("uncertain_diverse", "random"):
        curves = {}
        for path in sorted(glob.glob(f"{root}/{start}/{strategy}-seed*/curve.jsonl")):
            curves[path] = [json.loads(l) for l in open(path) if l.strip()]
        for at in (100, top):
            acc, bow, sec = [], [], []
            for pts in curves.values():
                for p in pts:
                    if p["labels"] == at:
                        acc.append(p["accuracy"]); bow.append(p["bag_of_words_accuracy"]); sec.append(p["seconds"])
            if not acc:
                continue
            spread = f" ± {statistics.stdev(acc) * 100:.1f}" if len(acc) > 1 else ""
            print(f"| {start} | {strategy} | {at} | {' / '.join(f'{a:.3f}' for a in acc)} | "
                  f"**{statistics.mean(acc) * 100:.1f}{spread}** | {statistics.mean(bow) * 100:.1f} | "
                  f"{statistics.mean(sec):.1f} |")
EOF
cat results.md
