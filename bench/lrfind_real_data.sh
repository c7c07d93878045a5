#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The learning-rate finder on real data (docs/benchmarks.md, issue 25): for each small
# SpamAssassin set (bench/make_lrfind_sets.py), prepare it, run lr_find, and train BERT-Tiny
# from random weights with what the finder says: its suggestion, or, when it has none, what
# its message says to try (more steps and another range: a second test of 200 steps from
# 1e-5 to 1); when that says nothing either, the default learning rate of a run from scratch.
# WB_LRFIND_SETS picks sets (default: all four; e.g. "bodies three-class").
# Prints one JSON line per set (bench/lrfind_table.py reads eval_examples.jsonl).
#
#   bench/lrfind_real_data.sh BUILD_DIR CORPUS.tar.gz VOCAB.txt WORK_DIR [N_PER_LABEL]
set -eu
BUILD=$1 CORPUS=$2 VOCAB=$3 WORK=$4 N=${5:-200}
CLI="$BUILD/app/cli/bert-workbench-cli"
HERE=$(dirname "$0")
SEQ=${WB_LRFIND_SEQ:-64} BATCH=${WB_LRFIND_BATCH:-16} EPOCHS=${WB_LRFIND_EPOCHS:-10}
mkdir -p "$WORK"
[ -d "$WORK/sets/spam-ham" ] || python3 "$HERE/make_lrfind_sets.py" "$CORPUS" "$WORK/sets" "$N" >&2
cat > "$WORK/bert_config.json" <<'JSON'
{"vocab_size": 30522, "hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 2,
 "intermediate_size": 512, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
 "attention_probs_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
 "initializer_range": 0.02}
JSON
for name in ${WB_LRFIND_SETS:-spam-ham bodies easy-hard three-class}; do
  case $name in
    spam-ham) folder=spam-ham flag= ;;
    bodies) folder=spam-ham flag=--email_body_only ;;
    easy-hard) folder=easy-hard flag=--email_body_only ;;
    three-class) folder=three-class flag=--email_body_only ;;
    *) echo "unknown set $name" >&2; exit 2 ;;
  esac
  D="$WORK/data/$name" R="$WORK/runs/$name"
  if [ ! -f "$D/input_meta_data.json" ]; then
    # shellcheck disable=SC2086 # $flag is one flag or none
    "$CLI" prepare --input_data_dir="$WORK/sets/$folder" --vocab_file="$VOCAB" --max_seq_length="$SEQ" \
        --eval_fraction=0.25 --output_dir="$D" $flag > "$WORK/prepare-$name.txt" 2>&1
  fi
  set -- --distribution_strategy=one_device --num_threads=1 --bert_config_file="$WORK/bert_config.json" \
      --input_meta_data_path="$D/input_meta_data.json" --train_data_path="$D/train.tf_record" \
      --eval_data_path="$D/eval.tf_record" --train_batch_size="$BATCH" --seed=42
  rm -rf "$R" && mkdir -p "$R"
  "$CLI" lr_find "$@" --model_dir="$R/find1" > "$R/find1.txt" 2>&1 || true
  lr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suggestion"])' "$R/find1/lr_find.json")
  how=suggestion
  if [ "$lr" = "0" ] || [ "$lr" = "0.0" ]; then
    "$CLI" lr_find "$@" --model_dir="$R/find2" --lr_find_steps=200 --lr_find_start=1e-5 > "$R/find2.txt" 2>&1 || true
    lr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["suggestion"])' "$R/find2/lr_find.json")
    how=second_test
    if [ "$lr" = "0" ] || [ "$lr" = "0.0" ]; then lr=5e-4 how=default_from_scratch; fi
  fi
  "$CLI" train "$@" --model_dir="$R/train" --learning_rate="$lr" --num_train_epochs="$EPOCHS" \
      --num_eval_per_epoch=1 --log_steps=0 > "$R/train.txt" 2>&1 || true
  python3 "$HERE/lrfind_table.py" "$name" "$R" "$how" "$lr" "seq=$SEQ batch=$BATCH epochs=$EPOCHS"
done
