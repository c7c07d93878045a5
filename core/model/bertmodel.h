// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"

#include <torch/torch.h>

namespace wb::nn {

/// Returns the activation `name` (gelu = erf form, gelu_new = tanh approximation, relu,
/// tanh, silu/swish) applied to `x`. Throws wb::Error for an unknown name.
torch::Tensor applyActivation(const std::string &name, const torch::Tensor &x);

/// Fills `t` in place from a normal(0, stddev) truncated at ±2·stddev (TF TruncatedNormal),
/// using the default CPU generator (seed it with torch::manual_seed).
void truncatedNormal_(torch::Tensor t, double stddev);

/// Word + learned position + token type embeddings → LayerNorm (eps 1e-12) → dropout →
/// optional projection embedding_size → hidden_size.
///
/// Submodules are named as the Hugging Face keys: word_embeddings, position_embeddings,
/// token_type_embeddings, LayerNorm (+ embedding_projection when embedding_size is set).
/// Example: `BertEmbeddings e(config); auto h = e(input_ids, segment_ids); // [B,S,H]`
class BertEmbeddingsImpl : public torch::nn::Module
{
public:
    explicit BertEmbeddingsImpl(const BertConfig &config);
    /// input_ids, segment_ids: int64 [B,S] → float [B,S,hidden_size].
    torch::Tensor forward(const torch::Tensor &inputIds, const torch::Tensor &segmentIds);

    torch::nn::Embedding word_embeddings{nullptr};       ///< [vocab_size, E]
    torch::nn::Embedding position_embeddings{nullptr};   ///< [max_position_embeddings, E]
    torch::nn::Embedding token_type_embeddings{nullptr}; ///< [type_vocab_size, E]
    torch::nn::LayerNorm LayerNorm{nullptr};             ///< over E, eps 1e-12
    torch::nn::Dropout dropout{nullptr};                 ///< hidden_dropout_prob
    torch::nn::Linear embedding_projection{nullptr};     ///< E → H, only when E != H
};
TORCH_MODULE(BertEmbeddings);

/// One post-LayerNorm transformer block with Hugging Face names:
/// attention.self.{query,key,value}, attention.output.{dense,LayerNorm},
/// intermediate.dense, output.{dense,LayerNorm}.
class BertLayerImpl : public torch::nn::Module
{
public:
    explicit BertLayerImpl(const BertConfig &config);
    /// hidden: [B,S,H]; maskBias: float [B,1,1,S] (0 keep, -10000 masked).
    /// firstTokenOnly: compute only position 0 (TF2's output_range=1 for the last block,
    /// enough for the pooler); returns [B,1,H] then, else [B,S,H].
    torch::Tensor forward(const torch::Tensor &hidden, const torch::Tensor &maskBias, bool firstTokenOnly = false);

    torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr};
    torch::nn::Linear attentionOutput{nullptr};
    torch::nn::LayerNorm attentionLayerNorm{nullptr};
    torch::nn::Linear intermediate{nullptr};
    torch::nn::Linear output{nullptr};
    torch::nn::LayerNorm outputLayerNorm{nullptr};
    torch::nn::Dropout hiddenDropout{nullptr};
    torch::nn::Dropout attentionDropout{nullptr};

private:
    int64_t m_heads;
    std::string m_activation;
};
TORCH_MODULE(BertLayer);

/// Runs `layer` on `hidden` with activation checkpointing (per-layer recomputation, the
/// reentrant form of PyTorch's torch.utils.checkpoint): the forward pass runs without
/// recording autograd state and keeps only `hidden` and `maskBias`; the backward pass runs
/// the layer again with gradients enabled and back-propagates through it, which adds the
/// layer's parameter gradients into their .grad and returns the gradient of `hidden`.
/// Dropout draws the same masks in the recomputation: the state of the default generator
/// of hidden's device (CPU, or CUDA in a CUDA build) is saved before the forward pass,
/// restored for the recomputation and put back afterwards. The autocast state (CPU and
/// CUDA: enabled, dtype) of the forward pass is re-established for the recomputation.
///
/// Shapes and dtypes as BertLayerImpl::forward. Only `hidden` receives a gradient (the
/// mask is a constant). Parameter gradients reach .grad only through .backward() (not
/// through torch::autograd::grad with `inputs`), as with PyTorch's reentrant checkpoint.
/// `layer` must outlive the backward pass. Thread rules: the calling (training) thread;
/// the generator state is read and written under its mutex.
torch::Tensor checkpointedLayer(BertLayerImpl &layer, const torch::Tensor &hidden, const torch::Tensor &maskBias,
                                bool firstTokenOnly);

/// num_hidden_layers BertLayers, registered as `layer.0`, `layer.1`, …
class BertEncoderImpl : public torch::nn::Module
{
public:
    explicit BertEncoderImpl(const BertConfig &config);
    /// hidden [B,S,H], inputMask int64 [B,S] (1 = token) → [B,1,H] (first token of the
    /// last block; the pooler needs nothing else) or [B,S,H] when allTokens is true.
    /// With activation checkpointing on, in training mode with gradients enabled and a
    /// hidden that requires grad, every block runs through checkpointedLayer().
    torch::Tensor forward(torch::Tensor hidden, const torch::Tensor &inputMask, bool allTokens = false);

    /// Turns per-layer activation checkpointing on or off (--activation_checkpointing;
    /// default off): about a third more compute per training step for keeping one block's
    /// activations instead of all of them. Results are the same (tested).
    void setActivationCheckpointing(bool on) { m_checkpointing = on; }
    bool activationCheckpointing() const { return m_checkpointing; }

    std::vector<BertLayer> layers;

private:
    bool m_checkpointing = false;
};
TORCH_MODULE(BertEncoder);

/// BERT encoder + pooler (dense + tanh on [CLS]) + classifier (dropout + dense num_labels),
/// the Hugging Face BertForSequenceClassification. num_labels == 1 is a regression head.
/// Parameter names equal the HF state_dict keys (see expectedParameters()).
///
/// Example:
///   BertForSequenceClassification m(config, 2);
///   auto logits = m(input_ids, input_mask, segment_ids); // [B, 2]
class BertForSequenceClassificationImpl : public torch::nn::Module
{
public:
    BertForSequenceClassificationImpl(const BertConfig &config, int64_t numLabels);
    /// int64 [B,S] inputs → float32 logits [B, num_labels] (also under bf16/fp16 autocast).
    torch::Tensor forward(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                          const torch::Tensor &segmentIds);
    /// Re-initialises every parameter: truncated normal(initializer_range) for weights and
    /// embeddings, zeros for biases, LayerNorm 1/0.
    void reset_parameters();
    /// Re-initialises only classifier.* (a new head on a pre-trained encoder).
    void resetClassifier();
    /// Per-layer activation checkpointing of the encoder (BertEncoderImpl::setActivationCheckpointing).
    void setActivationCheckpointing(bool on) { encoder->setActivationCheckpointing(on); }

    const BertConfig &config() const { return m_config; }
    int64_t numLabels() const { return m_numLabels; }

    BertEmbeddings embeddings{nullptr};
    BertEncoder encoder{nullptr};
    torch::nn::Linear pooler{nullptr};
    torch::nn::Dropout dropout{nullptr};
    torch::nn::Linear classifier{nullptr};

private:
    BertConfig m_config;
    int64_t m_numLabels;
};
TORCH_MODULE(BertForSequenceClassification);

} // namespace wb::nn
