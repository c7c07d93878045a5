// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/config/bertconfig.h"

#include <torch/torch.h>

namespace wb::nn {

/// Returns the activation `name` (gelu = erf form, gelu_new = tanh approximation, relu,
/// tanh, silu/swish) applied to `x`. Throws wb::Error for an unknown name.
torch::Tensor applyActivation(const std::string &name, const torch::Tensor &x);

/// layerNorm->forward(x), in the fp32 training step (grad mode on, nn::fastKernels().layerNorm)
/// by nn::fusedLayerNorm: the same formula, one vectorised pass per row each way.
torch::Tensor applyLayerNorm(torch::nn::LayerNorm &layerNorm, const torch::Tensor &x);

/// A random stream of its own: libtorch's CPU generator (mt19937; the engine and state
/// format of the default generator) seeded with `seed`, as torch::manual_seed(seed) seeds the
/// default one. Every run, range test and model owns one (docs/architecture.md "Random
/// state"); nothing in core draws from libtorch's default generator. Thread rules: a
/// generator is for one job; libtorch's kernels lock its mutex while they draw.
at::Generator makeGenerator(uint64_t seed);

/// Fills `t` in place from a normal(0, stddev) truncated at ±2·stddev (TF TruncatedNormal),
/// drawing from `gen`.
void truncatedNormal_(torch::Tensor t, double stddev, at::Generator &gen);

/// Inverted dropout with its mask drawn from `gen`: when `training` and p > 0 returns
/// x · m / (1 − p), m ~ Bernoulli(1 − p) elementwise (a fresh mask per call), else `x`
/// itself. Each call takes one 64-bit number from `gen` (random64(), under its mutex) as the
/// seed of a counter-based mask (fusedDropout, core/kernels/fusedops.h): mask and scaling in one
/// pass, the mask recomputed from the seed in the backward pass (no mask tensor is kept). The
/// same generator state gives the same masks (resume, activation checkpointing). Earlier
/// versions drew the mask with bernoulli_ on `gen` (libtorch's torch::dropout), another
/// stream: a seed gives other (equally distributed) masks than it did there (docs/benchmarks.md). x: any shape and
/// floating dtype; the gradient flows through. For x off the CPU the mask is computed on the
/// CPU and copied over.
torch::Tensor dropout(const torch::Tensor &x, double p, bool training, at::Generator &gen);

/// y = x·Wᵀ + b, weight [out, in], bias [out]: torch::nn::Linear with its generator given.
/// The forward pass is torch::nn::Linear's (torch::nn::functional::linear: addmm for 2-D
/// input, else matmul then += bias; at::linear would fuse the bias for 3-D input and round
/// the gradients differently). Initialised as torch::nn::Linear initialises (kaiming-uniform
/// with a = √5, i.e. U(±1/√in) for both) but drawn from `gen`, so the stream advances
/// exactly as the default generator did under torch::nn::Linear.
class LinearImpl : public torch::nn::Module
{
public:
    LinearImpl(int64_t in, int64_t out, at::Generator &gen);
    /// [..., in] → [..., out]. With float32 CPU tensors outside autocast (the fp32 training step,
    /// and evaluation and inference with gradients off: the same bits) the products run on oneDNN
    /// (nn::fastLinear, core/kernels/fusedops.h; equal to torch::nn::Linear's up to floating-point
    /// reassociation); otherwise (bf16, autocast, other devices) as above.
    torch::Tensor forward(const torch::Tensor &x);
    torch::Tensor weight, bias;
};
TORCH_MODULE(Linear);

/// A lookup table weight [count, width]: torch::nn::Embedding (no padding_idx, max_norm or
/// sparse gradient; its forward pass, torch::embedding) initialised N(0, 1) from `gen`.
class EmbeddingImpl : public torch::nn::Module
{
public:
    EmbeddingImpl(int64_t count, int64_t width, at::Generator &gen);
    /// int64 ids [...] → [..., width].
    torch::Tensor forward(const torch::Tensor &ids) { return torch::embedding(weight, ids); }
    torch::Tensor weight;
};
TORCH_MODULE(Embedding);

/// Word + learned position + token type embeddings → LayerNorm (eps 1e-12) → dropout →
/// optional projection embedding_size → hidden_size.
///
/// Submodules are named as the Hugging Face keys: word_embeddings, position_embeddings,
/// token_type_embeddings, LayerNorm (+ embedding_projection when embedding_size is set).
/// Initialisation and dropout draw from `gen` (shared with the whole model).
/// Example: `BertEmbeddings e(config, gen); auto h = e(input_ids, segment_ids); // [B,S,H]`
class BertEmbeddingsImpl : public torch::nn::Module
{
public:
    BertEmbeddingsImpl(const BertConfig &config, at::Generator gen);
    /// input_ids, segment_ids: int64 [B,S] → float [B,S,hidden_size].
    torch::Tensor forward(const torch::Tensor &inputIds, const torch::Tensor &segmentIds);
    /// The same from the word vectors: wordVectors float [B,S,E] (what word_embeddings gives
    /// for input_ids, or any other point of that space, e.g. an Integrated Gradients path),
    /// segment_ids int64 [B,S] → float [B,S,hidden_size]. Position and token type embeddings
    /// are added as in forward(); forward(ids, seg) is fromWordVectors(word_embeddings(ids), seg).
    torch::Tensor fromWordVectors(const torch::Tensor &wordVectors, const torch::Tensor &segmentIds);

    Embedding word_embeddings{nullptr};       ///< [vocab_size, E]
    Embedding position_embeddings{nullptr};   ///< [max_position_embeddings, E]
    Embedding token_type_embeddings{nullptr}; ///< [type_vocab_size, E]
    torch::nn::LayerNorm LayerNorm{nullptr};  ///< over E, eps 1e-12
    Linear embedding_projection{nullptr};     ///< E → H, only when E != H

private:
    double m_dropout; ///< hidden_dropout_prob
    at::Generator m_gen;
};
TORCH_MODULE(BertEmbeddings);

/// One post-LayerNorm transformer block with Hugging Face names:
/// attention.self.{query,key,value}, attention.output.{dense,LayerNorm},
/// intermediate.dense, output.{dense,LayerNorm}. Initialisation and dropout draw from `gen`.
class BertLayerImpl : public torch::nn::Module
{
public:
    BertLayerImpl(const BertConfig &config, at::Generator gen);
    /// hidden: [B,S,H]; maskBias: float [B,1,1,S] (0 keep, -10000 masked).
    /// firstTokenOnly: compute only position 0 (TF2's output_range=1 for the last block,
    /// enough for the pooler); returns [B,1,H] then, else [B,S,H].
    torch::Tensor forward(const torch::Tensor &hidden, const torch::Tensor &maskBias, bool firstTokenOnly = false);

    Linear query{nullptr}, key{nullptr}, value{nullptr};
    Linear attentionOutput{nullptr};
    torch::nn::LayerNorm attentionLayerNorm{nullptr};
    Linear intermediate{nullptr};
    Linear output{nullptr};
    torch::nn::LayerNorm outputLayerNorm{nullptr};

    /// The generator the dropout masks come from (the model's).
    at::Generator &generator() { return m_gen; }

private:
    /// dropout(dense(x), p) + residual (in the fp32 training step in one pass after the product,
    /// with dense's bias added in that pass: nn::fusedDropoutAdd).
    torch::Tensor denseDropoutAdd(Linear &dense, const torch::Tensor &x, const torch::Tensor &residual,
                                  double p);
    /// layerNorm(denseDropoutAdd(dense, x, residual, hidden dropout)): in the fp32 training step
    /// the product without its bias, then bias, dropout, residual and LayerNorm in one pass
    /// (nn::fusedAddNorm).
    torch::Tensor addAndNorm(Linear &dense, const torch::Tensor &x, const torch::Tensor &residual,
                             torch::nn::LayerNorm &layerNorm);
    /// applyActivation(m_activation, intermediate(x)) (GELU in the fp32 training step with the
    /// product's bias added in GELU's pass: nn::fusedGelu).
    torch::Tensor intermediateActivation(const torch::Tensor &x);
    int64_t m_heads;
    std::string m_activation;
    double m_hiddenDropout, m_attentionDropout;
    at::Generator m_gen;
};
TORCH_MODULE(BertLayer);

/// Runs `layer` on `hidden` with activation checkpointing (per-layer recomputation, the
/// reentrant form of PyTorch's torch.utils.checkpoint): the forward pass runs without
/// recording autograd state and keeps only `hidden` and `maskBias`; the backward pass runs
/// the layer again with gradients enabled and back-propagates through it, which adds the
/// layer's parameter gradients into their .grad and returns the gradient of `hidden`.
/// Dropout draws the same masks in the recomputation: the state of the layer's generator
/// (BertLayerImpl::generator, the run's) is saved before the forward pass, restored for the
/// recomputation and put back afterwards. The autocast state (CPU and
/// CUDA: enabled, dtype) of the forward pass is re-established for the recomputation.
///
/// Shapes and dtypes as BertLayerImpl::forward. Only `hidden` receives a gradient (the
/// mask is a constant). Parameter gradients reach .grad only through .backward() (not
/// through torch::autograd::grad with `inputs`), as with PyTorch's reentrant checkpoint.
/// `layer` must outlive the backward pass. Thread rules: the calling (training) thread;
/// the generator state is read and written under its mutex.
torch::Tensor checkpointedLayer(BertLayerImpl &layer, const torch::Tensor &hidden, const torch::Tensor &maskBias,
                                bool firstTokenOnly);

/// num_hidden_layers BertLayers, registered as `layer.0`, `layer.1`, …, drawing from `gen`.
class BertEncoderImpl : public torch::nn::Module
{
public:
    BertEncoderImpl(const BertConfig &config, at::Generator gen);
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

/// What BertForSequenceClassification and BertForPreTraining share: bert.embeddings,
/// bert.encoder and bert.pooler.dense, the config and the run's generator. The constructor
/// checks the config (throws wb::Error: `generator` undefined, hidden_size not a multiple of
/// num_attention_heads, with `tiedDecoder` an embedding_size other than hidden_size, an
/// unknown hidden_act; in that order) and registers the three, drawing their initialisation
/// from `generator`; a subclass registers its heads after them, then calls reset_parameters().
class BertBackboneImpl : public torch::nn::Module
{
public:
    /// Re-initialises every parameter: truncated normal(initializer_range) for weights and
    /// embeddings, zeros for biases, LayerNorm 1/0.
    void reset_parameters();
    /// Per-layer activation checkpointing of the encoder (BertEncoderImpl::setActivationCheckpointing).
    void setActivationCheckpointing(bool on) { encoder->setActivationCheckpointing(on); }

    const BertConfig &config() const { return m_config; }
    /// The model's random stream (shared with its submodules). Its state is what a training
    /// checkpoint saves as rng_state; read or set it under its mutex().
    at::Generator &generator() { return m_gen; }

    BertEmbeddings embeddings{nullptr};
    BertEncoder encoder{nullptr};
    Linear pooler{nullptr};

protected:
    BertBackboneImpl(const BertConfig &config, at::Generator generator, bool tiedDecoder);

    BertConfig m_config;
    at::Generator m_gen;
};

/// BERT encoder + pooler (dense + tanh on [CLS]) + classifier (dropout + dense num_labels),
/// the Hugging Face BertForSequenceClassification. num_labels == 1 is a regression head.
/// Parameter names equal the HF state_dict keys (see expectedParameters()).
///
/// Random state: the model draws its initialisation (in the constructor, reset_parameters,
/// resetClassifier) and every dropout mask (embeddings, attention probabilities, hidden
/// states, classifier) from `generator` only, the stream of the run that owns it
/// (makeGenerator(--seed); checkpoints save and restore its state). Throws wb::Error when
/// `generator` is undefined.
///
/// Example:
///   BertForSequenceClassification m(config, 2, nn::makeGenerator(seed));
///   auto logits = m(input_ids, input_mask, segment_ids); // [B, 2]
class BertForSequenceClassificationImpl : public BertBackboneImpl
{
public:
    BertForSequenceClassificationImpl(const BertConfig &config, int64_t numLabels, at::Generator generator);
    /// int64 [B,S] inputs → float32 logits [B, num_labels] (also under bf16/fp16 autocast).
    torch::Tensor forward(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                          const torch::Tensor &segmentIds);
    /// The same logits from the word vectors instead of input_ids: wordVectors float
    /// [B,S,E] (E = embedding width; word_embeddings(input_ids) gives forward()'s logits),
    /// inputMask and segmentIds int64 [B,S] → float32 [B, num_labels]. Gradients flow to
    /// wordVectors (token attributions, core/infer/attributiontorch.h). forward() is this
    /// with word_embeddings(input_ids): the normal path pays nothing for it.
    torch::Tensor forwardFromWordVectors(const torch::Tensor &wordVectors, const torch::Tensor &inputMask,
                                         const torch::Tensor &segmentIds);
    /// Re-initialises only classifier.* (a new head on a pre-trained encoder).
    void resetClassifier();

    int64_t numLabels() const { return m_numLabels; }

    Linear classifier{nullptr};

private:
    int64_t m_numLabels;
};
TORCH_MODULE(BertForSequenceClassification);

} // namespace wb::nn
