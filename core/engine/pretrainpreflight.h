// SPDX-License-Identifier: Apache-2.0
#pragma once

// The pre-flight checks of masked-LM pretraining (docs/pretraining.md). Torch-free header.

#include "core/engine/preflight.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

enum class RunPurpose;

/// The checks the pretraining data and purpose need, added to `result` after validateRun:
/// - num_train_steps / num_warmup_steps (run_pretraining.py's) for train or lr_find are errors
///   naming `pretrain` (train counts epochs);
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

/// google-research/bert run_pretraining.py's flags that describe the records rather than the
/// run (`pretrain --max_seq_length`, `--max_predictions_per_seq`): checks only. A plain value.
struct RecordShapeFlags
{
    std::optional<int64_t> max_seq_length;          ///< tokens per record (input_ids)
    std::optional<int64_t> max_predictions_per_seq; ///< masked_lm_positions per record
};

/// The file `pretrain` writes into model_dir when it is given records without an
/// input_meta_data.json (create_pretraining_data.py writes none).
inline constexpr const char *kRecordsMetaDataName = "records_meta_data.json";

/// The meta data of `pretrain` (docs/pretraining.md, "From google-research/bert"):
/// - options.input_meta_data_path given: each flag of `flags` that is set must equal the
///   file's max_seq_length / max_predictions_per_seq (an error on the flag naming both values
///   and the file); the records are checked against the file by checkPretrainingPurpose;
/// - not given: the records of train_data_path (and of eval_data_path when it names other
///   files) are read once (readMaskedLmRecordShapes); a set flag that differs from them, or
///   evaluation records of other shapes than the training ones, is an error naming both values
///   and the file. Otherwise <model_dir>/records_meta_data.json is written (atomically, only
///   when its text changes) with task_type bert_pretraining, max_seq_length,
///   max_predictions_per_seq (the records'; without masks the flag's, else min(20, L)),
///   train_data_size and eval_data_size (records counted), use_next_sentence_label (some
///   record has segment 1 or label 1) and masking (static with masked_lm_*, else dynamic),
///   and options.input_meta_data_path names it. Nothing is read or written when
///   train_data_path or model_dir is empty (validateRun reports those).
/// Returns notes for the user (what was read). Problems go to `diag`; never throws.
/// Reads the records; creates model_dir; not for two callers on one model_dir at once.
std::vector<std::string> resolveRecordsMetaData(TrainingOptions &options, const RecordShapeFlags &flags,
                                                Diagnostics &diag);

/// The vocabulary dynamic masking draws its [MASK] and random tokens from: --vocab_file (or
/// the one --pretrained_model filled in), else the vocab_file prepare_pretraining recorded in
/// the prepare_report.json beside the meta data; "" when neither names one. Throws wb::Error
/// naming the report when it exists but cannot be read.
std::string dynamicMaskingVocab(const TrainingOptions &options);

} // namespace wb
