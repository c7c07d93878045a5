// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/model/bertmodel.h"
#include "core/infer/attribution.h"

#include <torch/torch.h>

namespace wb {

/// What the attribution passes give for one text, before tokens and names are attached.
struct TokenAttributions
{
    std::vector<double> attributions;  ///< [S]: per wordpiece, summed over the embedding width E
    std::vector<double> logits;        ///< [num_labels]: the text's logits (no padding)
    std::vector<double> baseline_logits; ///< [num_labels]: the baseline's logits
    int64_t target_label_id = 0;       ///< the class explained (the argmax when −1 was asked)
    Completeness completeness;
};

/// The Integrated Gradients baseline x' for one text: input_ids int64 [S] → float [S, E],
/// word_embeddings(input_ids) with every row whose id is neither `clsId` nor `sepId`
/// replaced by the word embedding of `padId`. Position and segment embeddings are not part
/// of it (fromWordVectors adds them unchanged).
torch::Tensor attributionBaseline(nn::BertForSequenceClassificationImpl &model, const torch::Tensor &inputIds,
                                  int64_t padId, int64_t clsId, int64_t sepId);

/// Attributions of one unpadded text (input_ids, segment_ids: int64 [S], every token real;
/// input_mask all ones) for options.target_label_id (−1: the argmax of the text's logits),
/// on the CPU in the model's dtype (float32), accumulated in double. The model must be in
/// eval mode (no dropout; else wb::Error "model"). Integrated Gradients evaluates the m
/// midpoints α_k = (k + ½)/m of the straight path from attributionBaseline() to
/// x = word_embeddings(input_ids) in ⌈m / interpolationBatch(…)⌉ batched passes and takes
/// gradients with torch::autograd::grad on the word vectors only (no parameter .grad is
/// touched: the parameters' requires_grad is off during the passes and restored after);
/// a_i = Σ_e (x − x')_{ie} · mean_k ∂F/∂x_{ie}. Gradient × input is
/// a_i = Σ_e x_{ie} · ∂F/∂x_{ie}(x). The completeness check compares Σ a_i with
/// F(x) − F(x') from one extra forward pass without gradients. Throws wb::Error on field
/// "ig_steps" for m < 1 and "explain_class" for a target outside [0, num_labels).
/// Thread rules: the model is used by this thread only while it runs; draws no random numbers.
TokenAttributions computeTokenAttributions(nn::BertForSequenceClassificationImpl &model, const torch::Tensor &inputIds,
                                           const torch::Tensor &segmentIds, const ExplainOptions &options,
                                           int64_t padId, int64_t clsId, int64_t sepId);

} // namespace wb
