// SPDX-License-Identifier: Apache-2.0
#pragma once

// Masked-LM pretraining runs (docs/pretraining.md): the training loop of a pretraining
// model_dir and its export. Torch-free header; the Trainer calls these for
// RunPurpose::Pretrain and for an export of pretraining data.

#include "core/events/trainingobserver.h"
#include "core/engine/preflight.h"

namespace wb {

/// Pretrains (or continues pretraining) BertForPreTraining on options.train_data_path,
/// evaluating on eval_data_path every steps_per_epoch steps, with the fine-tuning run's
/// parts: the strategies (one_device, mirrored, multi_worker_mirrored), number formats,
/// gradient accumulation, AdamW and its schedule, the checkpoint format and index
/// (ckpt-N, `checkpoint`, run_config.json: resume continues the same run; a killed run's
/// ckpt-N.tmp and <name>.tmp.<pid> are removed at the start), best checkpoint
/// and early stopping (--best_checkpoint_metric eval_loss = the eval MLM loss, or
/// eval_accuracy = the MLM accuracy). Weights: the latest checkpoint in model_dir, else
/// --init_checkpoint (loadPretrainingCheckpoint, or a pretraining ckpt-N), else random.
/// Writes metrics.jsonl (train: loss, mlm_loss, mlm_accuracy[, nsp_loss]; eval: eval_loss =
/// eval_mlm_loss, eval_accuracy = eval_mlm_accuracy, eval_perplexity = exp(eval_mlm_loss)
/// [, eval_nsp_loss, eval_nsp_accuracy]) and the same scalars as TensorBoard events under
/// model_dir/summaries/{train,validation}. `progress` is kept up to date (last step,
/// checkpoint, loss) so a throw still says how far the run got. Throws wb::Error,
/// c10::Error; the Trainer turns them into RunFinished. Thread rules as Trainer::execute.
RunFinished runPretraining(const TrainingOptions &options, const ValidationResult &validation,
                           TrainingObserver &observer, const StopToken &stop, RunFinished &progress);

/// Writes a Hugging Face BertForMaskedLM folder from the pretraining run in options.model_dir
/// (its latest checkpoint, or --predict_checkpoint_path): model.safetensors (HF names, the
/// tied decoder included as cls.predictions.decoder.weight), config.json (architectures
/// ["BertForMaskedLM"]), bert_config.json, input_meta_data.json, vocab.txt, tokenizer.json,
/// tokenizer_config.json, special_tokens_map.json (no tokenizer file without a vocabulary: the
/// log says so) and README.md (a fill-mask model card with the evaluation's MLM loss, accuracy
/// and perplexity), through writeExportFolder (core/export/export.h). Written whole or not at
/// all; throws wb::Error naming the file.
RunFinished exportPretraining(const TrainingOptions &options, const ValidationResult &validation,
                              TrainingObserver &observer);

} // namespace wb
