// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// Parameter counts of a BertForSequenceClassification, split by part.
struct ParameterCount
{
    int64_t embeddings = 0; ///< word + position + token type tables, LayerNorm, optional projection
    int64_t encoder = 0;    ///< all transformer blocks
    int64_t pooler = 0;     ///< dense hidden→hidden
    int64_t classifier = 0; ///< dense hidden→num_labels
    int64_t total() const { return embeddings + encoder + pooler + classifier; }
};

/// The model architecture, as in `bert_config.json` (google-research/bert `modeling.BertConfig`
/// plus TF2's `embedding_size`; google-research/bert modeling.py BertConfig).
///
/// Missing keys take the TF2 defaults (note `type_vocab_size` = 16); `vocab_size` is required.
/// A plain value; safe to copy between threads.
struct BertConfig
{
    int64_t vocab_size = 0;                 ///< word-piece vocabulary size (required)
    int64_t hidden_size = 768;              ///< encoder width
    int64_t num_hidden_layers = 12;         ///< transformer blocks
    int64_t num_attention_heads = 12;       ///< heads per block; must divide hidden_size
    int64_t intermediate_size = 3072;       ///< feed-forward inner width
    std::string hidden_act = "gelu";        ///< gelu, gelu_new, relu, tanh, silu, swish
    double hidden_dropout_prob = 0.1;       ///< dropout on embeddings, block outputs, classifier, in [0,1)
    double attention_probs_dropout_prob = 0.1; ///< dropout on attention probabilities, in [0,1)
    int64_t max_position_embeddings = 512;  ///< rows of the position table = longest sequence
    int64_t type_vocab_size = 16;           ///< rows of the segment (token type) table
    double initializer_range = 0.02;        ///< stddev of the truncated-normal initialiser
    std::optional<int64_t> embedding_size;  ///< factorised embedding width (ALBERT style); none = hidden_size
    double layer_norm_eps = 1e-12;          ///< LayerNorm epsilon (Hugging Face's `layer_norm_eps`; BERT's 1e-12), in (0, 1)
    nlohmann::json extra = nlohmann::json::object(); ///< unknown keys, kept as read

    /// Returns the embedding width actually used (embedding_size or hidden_size).
    int64_t embeddingWidth() const { return embedding_size.value_or(hidden_size); }

    /// Builds a config from a parsed JSON object: `bert_config.json` or a Hugging Face
    /// `config.json` (docs/file-formats.md). Every problem is added to `diag`, with
    /// `source` (the file name) and the key as field: wrong types, sizes ≤ 0, dropout
    /// outside [0,1), hidden_size not a multiple of num_attention_heads, unsupported
    /// hidden_act, sizes that give more than 1e12 parameters, HF `position_embedding_type` other than "absolute", a malformed
    /// `id2label` (errors); unknown keys, HF `model_type` other than "bert", a set
    /// `classifier_dropout` (warnings). HF's keys that change nothing (architectures,
    /// transformers_version, label2id, pad_token_id, …) are kept quietly in `extra`.
    static BertConfig fromJson(const nlohmann::json &j, const std::string &source, Diagnostics &diag);

    /// Reads and validates a `bert_config.json`. Returns nothing when the file could not be
    /// parsed at all; otherwise a config, with any problems in `diag`.
    static std::optional<BertConfig> load(const std::string &path, Diagnostics &diag);

    /// Returns the JSON form: the 11 original keys (+ embedding_size when set, + extras).
    nlohmann::json toJson() const;

    /// Returns the number of trainable parameters of BertForSequenceClassification with
    /// `num_labels` outputs, split by part (same formula as Hugging Face's model).
    ParameterCount parameterCount(int64_t num_labels) const;

    /// Returns model FLOPs per example for one training step (forward + backward) at
    /// `seq_length` tokens: 6 × encoder parameters × seq_length + 12·L·H·seq_length²
    /// + 6 × (pooler + classifier) parameters (docs/benchmarks.md).
    double trainingFlopsPerExample(int64_t seq_length, int64_t num_labels) const;

    /// Returns the label names of Hugging Face's `id2label` (kept in `extra`) in id order,
    /// e.g. {"NEGATIVE", "POSITIVE"}; empty when the config has none or it is malformed
    /// (fromJson reports that). Use them when the data has no labels.txt. Thread-safe.
    std::vector<std::string> labelNames() const;

    /// Returns true when both configs describe the same architecture (ignores dropout,
    /// initializer_range and extras).
    bool sameArchitecture(const BertConfig &other) const;
};

/// The hidden_act names the model implements.
bool isSupportedActivation(const std::string &name);

/// A named published configuration (compact BERTs of Turc et al. 2019, BERT-Base/Large).
struct BertPreset
{
    std::string name;        ///< e.g. "BERT-Tiny (L=2, H=128)"
    std::string id;          ///< e.g. "bert-tiny"
    BertConfig config;
};

/// Returns the built-in presets: BERT-Tiny, Mini, Small, Medium, Base, Large
/// (vocab 30522, type_vocab_size 2, max_position_embeddings 512).
const std::vector<BertPreset> &bertPresets();

} // namespace wb
