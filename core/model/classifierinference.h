// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/model/bertmodel.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace wb::nn {

/// BertForSequenceClassification's forward pass for inference (eval mode, no gradients) on raw
/// float32 buffers kept from call to call: the same kernels as the module's forward pass (the
/// oneDNN products, the blocked attention, the fused GELU and LayerNorm; core/kernels/rawforward.h)
/// in the same order, so the logits are bit for bit the module's under torch::NoGradGuard in eval
/// mode (tested in core.classifierinference), without one ATen operator, autograd node or fresh
/// tensor per step of the pass. What it saves is the per-operator cost that dominates a single
/// short text (docs/benchmarks.md, "Inference").
///
/// Covers what applies() says; TextClassifier runs the module otherwise. Weights are read in
/// place: build it after they are final (a loaded classifier), and keep the model unchanged while
/// it lives. At 256 rows (batch × sequence) and more a layer's products read transposed copies of
/// its weights, made on first use and kept (as much memory again as the encoder's weights).
///
/// Thread rules: one call at a time per object (the buffers are its own); the products and row
/// passes use libtorch's intra-op threads (torch::set_num_threads), and the logits do not depend
/// on their number.
class ClassifierInference
{
public:
    /// True when this class computes `model`'s eval forward pass: every fast kernel on
    /// (nn::fastKernels), hidden_act "gelu", at least one encoder layer, autocast off and every
    /// parameter a contiguous float32 CPU tensor.
    static bool applies(const BertForSequenceClassification &model);

    /// Throws wb::Error ("hidden_act" etc.) when !applies(model).
    explicit ClassifierInference(BertForSequenceClassification model);
    ~ClassifierInference();

    /// input_ids, attention_mask and token_type_ids: int64 row-major [batch, seq] (mask 1 = token,
    /// 0 = padding) → float32 logits [batch, num_labels]; with `pooled`, also the pooler's output
    /// (tanh of the dense layer on the first token) [batch, hidden_size]. Throws wb::Error on
    /// "input_ids" (an id outside the vocabulary, batch or seq < 1, seq above
    /// max_position_embeddings or 2048) or "token_type_ids" (outside type_vocab_size), before any
    /// work.
    torch::Tensor forward(const int64_t *input_ids, const int64_t *attention_mask, const int64_t *token_type_ids,
                          int64_t batch, int64_t seq, torch::Tensor *pooled = nullptr);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace wb::nn
