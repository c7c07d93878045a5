#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproduces docs/benchmarks.md, "Label errors on the spam example (issue 46)": the SpamAssassin
# mail bodies as a CSV (bench/make_mail_corpus.py), prepared once (seed 42, stratified 10 % eval);
# for each noise seed, exactly 10 % of the TRAIN rows get the other label (the eval rows keep
# theirs, and --split_file keeps the same train/eval rows); BERT-Tiny from random weights on the
# clean and on each noisy set; then
#   - our suspects: `suspects --top_k=K` of the noisy run (K = the rows flipped), from its
#     training_dynamics.jsonl; precision = share of the listed rows that were flipped;
#   - confident learning (bench/label_noise.py cl): out-of-fold probabilities of the noisy train
#     rows from NFOLDS models, each trained with the CLI on the other folds (the fold prepared on
#     the eval side through a split file) with the same settings; its top K the same way;
#   - the loop: the K suspects accepted (`suspects --accept --corrections_file`), `prepare
#     --corrections_file --split_file`, the same training again; recovered = (fixed - noisy) /
#     (clean - noisy) eval accuracy, all on the same clean eval rows; and the same K suspects
#     removed instead (`suspects --remove`: prepare leaves those rows out).
#
#   bench/label_noise_spam.sh WORK_DIR VOCAB_TXT CORPUS_TAR_GZ [CLI]
#
# CORPUS_TAR_GZ: the SpamAssassin public corpus (spamassassin/{ham,spam}/ files). CLI defaults to
# build/app/cli/bert-workbench-cli; it is copied into WORK_DIR first, so a rebuild meanwhile does
# not change the program halfway. Environment: SEEDS ("1 2 3", the noise seeds), NFOLDS (4),
# EPOCHS (3), LR (5e-4), THREADS (2), TRAIN_SEED (42), EXTRA_TRAIN_SEEDS ("43 44": the clean, noisy
# and corrected runs trained again with these seeds, so that the recovered accuracy is a mean
# over training seeds, not one run's luck). Steps whose output exists are skipped (a
# stopped run goes on where it was). Results: WORK_DIR/results.md (and results.json).
set -euo pipefail

usage="usage: label_noise_spam.sh WORK_DIR VOCAB_TXT CORPUS_TAR_GZ [CLI]"
work=${1:?$usage}
vocab=$(realpath "${2:?$usage}")
corpus=$(realpath "${3:?$usage}")
here=$(cd "$(dirname "$0")/.." && pwd)
seeds=${SEEDS:-"1 2 3"}
nfolds=${NFOLDS:-4}
epochs=${EPOCHS:-3}
lr=${LR:-5e-4}
threads=${THREADS:-2}
train_seed=${TRAIN_SEED:-42}
py=(python3 "$here/bench/label_noise.py")
mkdir -p "$work"/{runs,logs,data,prepared,lists}
cd "$work"
[ -x cli ] || cp "${4:-$here/build/app/cli/bert-workbench-cli}" cli

cat >bert_config.json <<'EOF'
{"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "hidden_size": 128, "initializer_range": 0.02, "intermediate_size": 512,
 "max_position_embeddings": 512, "num_attention_heads": 2, "num_hidden_layers": 2,
 "type_vocab_size": 2, "vocab_size": 30522}
EOF

# prep NAME CSV [FLAGS...]: prepared/NAME from CSV (every CSV is named mail.csv, so that split
# files and corrections, which name rows by file and line, fit every variant).
prep() {
    local name=$1 csv=$2
    shift 2
    [ -f "prepared/$name/split.jsonl" ] && return
    ./cli prepare --classification_task_name=csv --input_data_dir="$csv" --vocab_file="$vocab" \
        --do_lower_case=true --max_seq_length=128 --seed=42 --output_dir="prepared/$name" "$@" \
        >"logs/prepare-$name.log" 2>&1
}

# train RUN DATA [FLAGS...]: runs/RUN on prepared/DATA, the example's settings (batch 32,
# learning rate 5e-4, 3 epochs, one evaluation per epoch), the same seed for every run.
train() {
    local name=$1 data=$2 start
    shift 2
    [ -f "runs/$name/training_summary.json" ] && return
    rm -rf "runs/$name"
    start=$(date +%s)
    ./cli train --distribution_strategy=one_device --bert_config_file=bert_config.json \
        --input_meta_data_path="prepared/$data/input_meta_data.json" \
        --train_data_path="prepared/$data/train.tf_record" --eval_data_path="prepared/$data/eval.tf_record" \
        --vocab_file="$vocab" --do_lower_case=true --model_dir="runs/$name" --train_batch_size=32 \
        --learning_rate="$lr" --num_train_epochs="$epochs" --seed="${TS:-$train_seed}" \
        --num_threads="$threads" --save_embeddings=false "$@" >"logs/train-$name.log" 2>&1
    echo "$name $(($(date +%s) - start))" >>logs/wall_s.txt
}

# 1. The clean data and the clean run.
[ -f data/clean/mail.csv ] || { mkdir -p data/clean; python3 "$here/bench/make_mail_corpus.py" "$corpus" data/clean/mail.csv 1; }
prep clean data/clean/mail.csv
train clean clean --record_training_dynamics=false

# 2. Per noise seed: 10 % of the train rows flipped (the same rows on the same sides), and
# confident learning from out-of-fold probabilities: fold f on the eval side (with the clean eval
# rows, which the out-of-fold table leaves out), the other folds trained on.
for s in $seeds; do
    if [ ! -f "data/noisy$s/mail.csv" ]; then
        mkdir -p "data/noisy$s"
        "${py[@]}" flip data/clean/mail.csv prepared/clean/split.jsonl "$s" 0.1 "data/noisy$s/mail.csv" "lists/flipped$s.jsonl"
    fi
    prep "noisy$s" "data/noisy$s/mail.csv" --split_file=prepared/clean/split.jsonl
    "${py[@]}" folds "prepared/noisy$s/split.jsonl" "$nfolds" "$s" "lists/folds$s-" >/dev/null
    for f in $(seq 0 $((nfolds - 1))); do
        prep "noisy$s-fold$f" "data/noisy$s/mail.csv" --split_file="lists/folds$s-$f.jsonl"
        train "noisy$s-fold$f" "noisy$s-fold$f" --record_training_dynamics=false
    done
    "${py[@]}" oof "prepared/noisy$s/split.jsonl" "$nfolds" "prepared/noisy$s-fold" "runs/noisy$s-fold" \
        "lists/oof$s.jsonl" >/dev/null
    "${py[@]}" cl "lists/oof$s.jsonl" "$(wc -l <"lists/flipped$s.jsonl")" "lists/cl$s.jsonl" >"logs/cl$s.json"
done

# 3. Per noise seed: the noisy run and its top-K suspects, accepted (the loop takes every
# suggestion); prepare applies them with the same eval rows; the same run again.
for s in $seeds; do
    train "noisy$s" "noisy$s" --record_training_dynamics=true
    if [ ! -f "lists/suspects$s.jsonl" ]; then
        ./cli suspects --model_dir="runs/noisy$s" --top_k="$(wc -l <"lists/flipped$s.jsonl")" \
            --corrections_file="lists/suspects$s.jsonl" --accept >"logs/suspects$s.log" 2>&1
    fi
    prep "fixed$s" "data/noisy$s/mail.csv" --split_file=prepared/clean/split.jsonl \
        --corrections_file="lists/suspects$s.jsonl"
    train "fixed$s" "fixed$s" --record_training_dynamics=false
    # The same top K removed instead of relabelled (suspects --remove: prepare leaves them out).
    if [ ! -f "lists/removed$s.jsonl" ]; then
        ./cli suspects --model_dir="runs/noisy$s" --top_k="$(wc -l <"lists/flipped$s.jsonl")" \
            --corrections_file="lists/removed$s.jsonl" --remove >/dev/null 2>&1
    fi
    prep "pruned$s" "data/noisy$s/mail.csv" --split_file=prepared/clean/split.jsonl \
        --corrections_file="lists/removed$s.jsonl"
    train "pruned$s" "pruned$s" --record_training_dynamics=false
done

# 4. Controls: the loop with confident learning's top K accepted instead, and with every flipped
# row given back its true label (the ceiling: the clean labels, prepared through the noisy file).
for s in $seeds; do
    "${py[@]}" oracle "lists/flipped$s.jsonl" "lists/oracle$s.jsonl"
    for how in cl oracle; do
        prep "$how-fixed$s" "data/noisy$s/mail.csv" --split_file=prepared/clean/split.jsonl \
            --corrections_file="lists/$how$s.jsonl"
        train "$how-fixed$s" "$how-fixed$s" --record_training_dynamics=false
    done
done

# 5. The same runs with other training seeds (the lists stay those of the seed-42 runs).
for ts in ${EXTRA_TRAIN_SEEDS-43 44}; do
    TS=$ts train "clean-t$ts" clean --record_training_dynamics=false
    for s in $seeds; do
        for d in "noisy$s" "fixed$s" "pruned$s" "cl-fixed$s"; do
            TS=$ts train "$d-t$ts" "$d" --record_training_dynamics=false
        done
    done
done

"${py[@]}" table . "$seeds" "$train_seed ${EXTRA_TRAIN_SEEDS-43 44}" >results.md
cat results.md
