// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pre-flight checks of masked-LM pretraining (docs/pretraining.md). Torch-free header.

#include "core/train/preflight.h"

namespace wb {

enum class RunPurpose;

/// The checks the pretraining data and purpose need, added to `result` after validateRun:
/// - pretraining data (task_type bert_pretraining) for a purpose that fine-tunes or predicts
///   (train, lr_find, predict) is an error pointing to `pretrain`; classification data for
///   `pretrain` is an error pointing to `prepare_pretraining`;
/// - for `pretrain`: the meta data's vocab_size equals the config's, max_predictions_per_seq
///   ≤ max_seq_length, train_data_size ≥ one batch, for masking "dynamic" a vocabulary with
///   [MASK] (dynamicMaskingVocab), and the first record of every train/eval file
///   decodes with the meta data's lengths (decodeMaskedLmRecord; the error names the file and
///   record); an --init_checkpoint (not a training checkpoint) matches the encoder
///   (checkInitCheckpoint's rules, classifier notes left out).
/// Reads files; thread-safe; never throws.
void checkPretrainingPurpose(const TrainingOptions &options, RunPurpose purpose, ValidationResult &result);

/// The vocabulary dynamic masking draws its [MASK] and random tokens from: --vocab_file (or
/// the one --pretrained_model filled in), else the vocab_file prepare_pretraining recorded in
/// the prepare_report.json beside the meta data; "" when neither names one. Throws wb::Error
/// naming the report when it exists but cannot be read.
std::string dynamicMaskingVocab(const TrainingOptions &options);

} // namespace wb
