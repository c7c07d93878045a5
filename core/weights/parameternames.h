// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// One trainable tensor of BertForSequenceClassification: its Hugging Face name and shape.
struct ParameterSpec
{
    std::string name;            ///< e.g. "bert.encoder.layer.0.attention.self.query.weight"
    std::vector<int64_t> shape;  ///< torch layout: Linear weights are [out, in]
};

/// Returns every trainable tensor of BertForSequenceClassification for `config` with
/// `num_labels` outputs, in registration order, with Hugging Face names (huggingface/transformers models/bert/modeling_bert.py state_dict names).
/// The optional embedding projection (embedding_size != hidden_size) is named
/// `bert.embeddings.embedding_projection.{weight,bias}`. Torch-free; thread-safe.
std::vector<ParameterSpec> expectedParameters(const BertConfig &config, int64_t num_labels);

/// Maps a checkpoint tensor name to our name: a leading `module.` (torch DataParallel) or
/// `model.` scope is removed, `gamma`/`beta` of a LayerNorm become `weight`/`bias`, and a
/// missing `bert.` prefix is added (except for `classifier.*`).
/// Returns the name unchanged when nothing applies.
std::string canonicalParameterName(const std::string &name);

/// Returns true when `name` is a tensor to decay in AdamW (TF2 AdamWeightDecay: every
/// variable whose name does not contain `LayerNorm`, `layer_norm` or `bias`).
bool isWeightDecayed(const std::string &name);

/// Returns a readable shape, e.g. "[30522, 128]".
std::string shapeString(const std::vector<int64_t> &shape);

} // namespace wb
