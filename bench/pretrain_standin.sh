#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The "pretrained stand-in" of the label-to-learn and distillation benchmarks: BERT-Tiny
# (./bert_config.json) pretrained with the masked-LM objective on a benchmark's train-side texts
# (no labels; blank-line separated documents, prepare_pretraining's input), 200 steps of batch 32
# at 5e-4, seed 42, then exported to ./pt_export (model.safetensors and its config), to be given
# as --init_checkpoint. Runs in the benchmark's work folder with its ./cli; logs in ./logs.
# Skipped when ./pt_export/model.safetensors exists.
#
#   bench/pretrain_standin.sh VOCAB_TXT TEXTS_TXT [PT_STEPS=200] [THREADS=1]
set -euo pipefail

vocab=${1:?usage: pretrain_standin.sh VOCAB_TXT TEXTS_TXT [PT_STEPS] [THREADS]}
texts=${2:?usage: pretrain_standin.sh VOCAB_TXT TEXTS_TXT [PT_STEPS] [THREADS]}
pt_steps=${3:-200}
threads=${4:-1}
[ -f pt_export/model.safetensors ] && exit 0
mkdir -p logs runs
./cli prepare_pretraining --input_file="$texts" --vocab_file="$vocab" --do_lower_case=true \
    --max_seq_length=128 --output_dir=pt_data --random_seed=42 >logs/prepare_pretraining.log 2>&1
rm -rf runs/pretrain
./cli pretrain --distribution_strategy=one_device --bert_config_file=bert_config.json \
    --input_meta_data_path=pt_data/input_meta_data.json --train_data_path=pt_data/train.tf_record \
    --eval_data_path=pt_data/eval.tf_record --vocab_file="$vocab" --do_lower_case=true \
    --model_dir=runs/pretrain --train_batch_size=32 --num_train_steps="$pt_steps" \
    --learning_rate=5e-4 --seed=42 --num_threads="$threads" >logs/pretrain.log 2>&1
./cli export --model_dir=runs/pretrain --model_export_path=pt_export >logs/pt_export.log 2>&1
