// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace wb {

/// What a classifier's outputs mean, after transformers' PretrainedConfig.problem_type:
/// SingleLabel: one class per text, softmax and cross-entropy; Regression: one value,
/// mean squared error; MultiLabel: any set of the num_labels labels per text, one sigmoid per
/// label and binary cross-entropy (docs/multi-label.md).
enum class ProblemType { SingleLabel, Regression, MultiLabel };

/// transformers' name of `p`: "single_label_classification", "regression" or
/// "multi_label_classification".
const char *problemTypeName(ProblemType p);

/// The contents of `input_meta_data.json`, as `create_finetuning_data.py` writes it
/// (tensorflow/models official/nlp/data/create_finetuning_data.py) and run_classifier reads it
/// (official/legacy/bert/run_classifier.py).
///
/// Unlike run_classifier, a `bert_classification` task without `num_labels` is an error
/// (the original silently trains a regression). A plain value.
struct InputMetaData
{
    std::string processor_type;               ///< e.g. "MRPC", "FOLDERS"; informational
    std::string task_type = "bert_classification"; ///< bert_classification or bert_regression
    int64_t num_labels = 1;                   ///< classes, 1..1000000; 1 means regression
    std::string label_type = "int";           ///< "int" or "float" (type of label_ids)
    /// Hugging Face's problem_type (transformers' PretrainedConfig): "" (not recorded: single-label
    /// classification, or regression when num_labels is 1), "single_label_classification",
    /// "regression" or "multi_label_classification". Multi-label records carry label_ids as
    /// int64 × num_labels, each 0 or 1 (a multi-hot vector; docs/multi-label.md).
    std::string problem_type;
    int64_t max_seq_length = 0;               ///< tokens per example (required)
    std::optional<int64_t> train_data_size;   ///< training examples written (required for training)
    std::optional<int64_t> eval_data_size;    ///< evaluation examples written (required for training)
    bool has_sample_weights = false;          ///< records carry a float `weight` feature
    /// Distillation (our key; docs/distillation.md): the records carry the teacher's logits
    /// (`teacher_logits`, float × num_labels; regression: × 1) and `has_label` (0: a transfer
    /// text). Written by `distil`; training then mixes the teacher's soft labels into the loss.
    bool has_teacher_logits = false;
    std::map<std::string, int64_t> test_data_sizes; ///< "test_data_size" / "test_<lang>_data_size" keys
    /// task_type "bert_pretraining" (masked-LM records of `prepare_pretraining` or
    /// create_pretraining_data.py; docs/pretraining.md): num_labels is not used (0), and these
    /// keys describe the records. max_predictions_per_seq is required for it.
    int64_t max_predictions_per_seq = 0;      ///< P: masked_lm_* length (google-research default 20)
    bool use_next_sentence_label = false;     ///< the records' next_sentence_labels are real (sentence pairs)
    std::string masking;                      ///< "static" (the records' masks) or "dynamic" (new masks each epoch); "" = static
    std::optional<double> masked_lm_prob;     ///< share of tokens masked (informational; dynamic masking uses it)
    bool whole_word_masking = false;          ///< informational; dynamic masking uses it
    std::optional<int64_t> vocab_size;        ///< the vocabulary the records were made with (must equal the config's)
    /// The casing the records were tokenized with (our key, after create_finetuning_data.py's:
    /// `prepare` writes it, a run records the casing it used; run_classifier ignores it).
    /// Unset: not recorded (data from create_finetuning_data.py).
    std::optional<bool> do_lower_case;
    nlohmann::json extra = nlohmann::json::object(); ///< unknown keys, kept

    /// Returns true for a regression task (num_labels == 1).
    bool isRegression() const { return num_labels == 1; }
    /// Returns true for multi-label classification (problem_type "multi_label_classification"):
    /// sigmoid outputs and binary cross-entropy, label_ids a multi-hot int64 × num_labels.
    bool isMultiLabel() const { return problem_type == "multi_label_classification"; }
    /// Returns the problem type: MultiLabel when isMultiLabel(), Regression when isRegression(),
    /// else SingleLabel.
    ProblemType problemType() const
    {
        return isMultiLabel() ? ProblemType::MultiLabel : isRegression() ? ProblemType::Regression : ProblemType::SingleLabel;
    }
    /// Returns true for masked-LM pretraining data (task_type "bert_pretraining").
    bool isPretraining() const { return task_type == "bert_pretraining"; }
    /// The values per record of `teacher_logits`: num_labels, 1 for regression; 0 without them.
    int64_t teacherOutputs() const { return has_teacher_logits ? (isRegression() ? 1 : num_labels) : 0; }

    /// Builds the meta data from JSON; problems go to `diag` with `source` and the key as field.
    static InputMetaData fromJson(const nlohmann::json &j, const std::string &source, Diagnostics &diag);
    /// Reads and validates a meta-data file; nothing when it cannot be parsed at all.
    static std::optional<InputMetaData> load(const std::string &path, Diagnostics &diag);
    /// Returns the JSON in create_finetuning_data.py's key order.
    nlohmann::ordered_json toJson() const;
};

} // namespace wb
