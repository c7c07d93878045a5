// SPDX-License-Identifier: Apache-2.0
#include "core/model/bertmodel.h"

#include "core/kernels/fusedops.h"
#include "core/util/error.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>
#include <mutex>

namespace wb::nn {

namespace {

// TF/HF use -10000 for masked attention logits in float32.
constexpr double kMaskedLogit = -10000.0;

std::shared_ptr<torch::nn::Module> container(torch::nn::Module &parent, const std::string &name)
{
    return parent.register_module(name, std::make_shared<torch::nn::Module>());
}

torch::nn::LayerNorm layerNorm(int64_t width, double eps)
{
    return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}).eps(eps));
}

at::Generator requireGenerator(at::Generator gen)
{
    if (!gen.defined())
        throw Error("seed", "a model was built without a random generator",
                    "pass the run's generator (nn::makeGenerator(seed))");
    return gen;
}

/// The thread-local autocast state (CPU and CUDA: enabled, dtype, weight-copy cache) of one
/// moment; restore() makes it the current state again.
struct AutocastState
{
    bool cpu = false, gpu = false, cache = true;
    c10::ScalarType cpuType = c10::kBFloat16, gpuType = c10::kHalf;

    static AutocastState current()
    {
        return {at::autocast::is_cpu_enabled(), at::autocast::is_enabled(), at::autocast::is_autocast_cache_enabled(),
                at::autocast::get_autocast_cpu_dtype(), at::autocast::get_autocast_gpu_dtype()};
    }
    void restore() const
    {
        at::autocast::set_cpu_enabled(cpu);
        at::autocast::set_enabled(gpu);
        at::autocast::set_autocast_cache_enabled(cache);
        at::autocast::set_autocast_cpu_dtype(cpuType);
        at::autocast::set_autocast_gpu_dtype(gpuType);
    }
};

/// Runs `body` under `state`'s autocast with the weight-copy cache off: a cached copy made
/// without gradients in the forward pass must not be reused by the recomputation, and
/// caching every block's copies would keep them all alive (what checkpointing saves).
template<typename F>
torch::Tensor underAutocast(const AutocastState &state, F &&body)
{
    const AutocastState before = AutocastState::current();
    AutocastState inside = state;
    inside.cache = false;
    inside.restore();
    try {
        torch::Tensor out = body();
        before.restore();
        return out;
    } catch (...) {
        before.restore();
        throw;
    }
}

torch::Tensor generatorState(at::Generator &g)
{
    std::lock_guard<std::mutex> lock(g.mutex());
    return g.get_state();
}

void setGeneratorState(at::Generator &g, const torch::Tensor &state)
{
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_state(state);
}

/// The custom autograd function behind checkpointedLayer().
struct CheckpointedLayer : public torch::autograd::Function<CheckpointedLayer>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, torch::Tensor hidden, torch::Tensor maskBias,
                                 BertLayerImpl *layer, bool firstTokenOnly)
    {
        at::Generator &gen = layer->generator();
        const AutocastState autocast = AutocastState::current();
        ctx->saved_data["rng"] = generatorState(gen);
        ctx->saved_data["layer"] = int64_t(reinterpret_cast<intptr_t>(layer));
        ctx->saved_data["first"] = firstTokenOnly;
        ctx->saved_data["cpu"] = autocast.cpu;
        ctx->saved_data["gpu"] = autocast.gpu;
        ctx->saved_data["cpu_type"] = int64_t(autocast.cpuType);
        ctx->saved_data["gpu_type"] = int64_t(autocast.gpuType);
        ctx->save_for_backward({hidden, maskBias});
        torch::NoGradGuard noGrad;
        return underAutocast(autocast, [&] { return layer->forward(hidden, maskBias, firstTokenOnly); });
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list gradOutputs)
    {
        const auto saved = ctx->get_saved_variables();
        auto *layer = reinterpret_cast<BertLayerImpl *>(intptr_t(ctx->saved_data["layer"].toInt()));
        const bool firstTokenOnly = ctx->saved_data["first"].toBool();
        AutocastState autocast;
        autocast.cpu = ctx->saved_data["cpu"].toBool();
        autocast.gpu = ctx->saved_data["gpu"].toBool();
        autocast.cpuType = c10::ScalarType(ctx->saved_data["cpu_type"].toInt());
        autocast.gpuType = c10::ScalarType(ctx->saved_data["gpu_type"].toInt());

        torch::Tensor input = saved[0].detach().requires_grad_(true);
        at::Generator &gen = layer->generator();
        const torch::Tensor now = generatorState(gen);
        setGeneratorState(gen, ctx->saved_data["rng"].toTensor());
        torch::Tensor output;
        try {
            torch::AutoGradMode grad(true);
            output = underAutocast(autocast, [&] { return layer->forward(input, saved[1], firstTokenOnly); });
        } catch (...) {
            setGeneratorState(gen, now);
            throw;
        }
        setGeneratorState(gen, now);
        // Reentrant backward: accumulates the block's parameter gradients and input.grad().
        torch::autograd::backward({output}, {gradOutputs[0]});
        return {input.grad(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

torch::Tensor checkpointedLayer(BertLayerImpl &layer, const torch::Tensor &hidden, const torch::Tensor &maskBias,
                                bool firstTokenOnly)
{
    return CheckpointedLayer::apply(hidden, maskBias, &layer, firstTokenOnly);
}

torch::Tensor applyActivation(const std::string &name, const torch::Tensor &x)
{
    if (name == "gelu") // the training step's: the derivative saved in the same pass (fusedops.h)
        return fastKernels().gelu && fusedGeluApplies(x) ? fusedGelu(x) : torch::gelu(x);
    if (name == "gelu_new" || name == "gelu_fast" || name == "gelu_pytorch_tanh")
        return torch::gelu(x, "tanh");
    if (name == "relu")
        return torch::relu(x);
    if (name == "tanh")
        return torch::tanh(x);
    if (name == "silu" || name == "swish")
        return torch::silu(x);
    throw Error("hidden_act", "unsupported activation '" + name + "'",
                "use gelu, gelu_new, relu, tanh, silu or swish");
}

torch::Tensor applyLayerNorm(torch::nn::LayerNorm &layerNorm, const torch::Tensor &x)
{
    if (fastKernels().layerNorm &&
        fusedLayerNormApplies(x, layerNorm->weight, layerNorm->bias))
        return fusedLayerNorm(x, layerNorm->weight, layerNorm->bias, layerNorm->options.eps());
    // Under bf16 autocast a product's output (the MLM head's transform) reaches LayerNorm in
    // bf16, and libtorch 1.13's CPU layer_norm refuses a bf16 input with float32 weights: the
    // normalisation runs in the weights' type, as the encoder's (whose residual sum is float32).
    if (x.scalar_type() != layerNorm->weight.scalar_type())
        return layerNorm->forward(x.to(layerNorm->weight.scalar_type()));
    return layerNorm->forward(x);
}

at::Generator makeGenerator(uint64_t seed)
{
    return at::make_generator<at::CPUGeneratorImpl>(seed);
}

void truncatedNormal_(torch::Tensor t, double stddev, at::Generator &gen)
{
    torch::NoGradGuard guard;
    // Inverse-CDF sampling of the normal restricted to [-2σ, 2σ]: exact, no rejection loop.
    const double lo = 0.5 * (1.0 + std::erf(-2.0 / std::sqrt(2.0)));
    const double hi = 0.5 * (1.0 + std::erf(2.0 / std::sqrt(2.0)));
    t.uniform_(2.0 * lo - 1.0, 2.0 * hi - 1.0, gen).erfinv_().mul_(stddev * std::sqrt(2.0));
}

namespace {

/// The one 64-bit draw from the run's generator a dropout call makes.
uint64_t dropoutSeed(at::Generator &gen)
{
    std::lock_guard<std::mutex> lock(gen.mutex());
    return at::check_generator<at::CPUGeneratorImpl>(gen)->random64();
}

} // namespace

torch::Tensor dropout(const torch::Tensor &x, double p, bool training, at::Generator &gen)
{
    if (!training || p <= 0 || x.numel() == 0)
        return x;
    if (p >= 1)
        return x * torch::zeros({}, x.options());
    // One 64-bit draw from the run's generator seeds a counter-based mask (core/kernels/fusedops.h):
    // the mask and the scaling in one pass, recomputed in the backward pass.
    const uint64_t seed = dropoutSeed(gen);
    if (x.device().is_cpu())
        return fusedDropout(x, p, seed);
    return x * dropoutMask(x.numel(), p, seed).view(x.sizes()).to(x.options());
}

LinearImpl::LinearImpl(int64_t in, int64_t out, at::Generator &gen)
{
    weight = register_parameter("weight", torch::empty({out, in}));
    bias = register_parameter("bias", torch::empty({out}));
    // torch::nn::Linear's reset_parameters (kaiming_uniform_(a = √5), then the bias), in its order.
    torch::NoGradGuard guard;
    const double bound = in > 0 ? 1.0 / std::sqrt(double(in)) : 0.0;
    weight.uniform_(-bound, bound, gen);
    bias.uniform_(-bound, bound, gen);
}

torch::Tensor LinearImpl::forward(const torch::Tensor &x)
{
    if (fastKernels().linear && fastLinearApplies(x, weight, bias))
        return fastLinear(x, weight, bias);
    return torch::nn::functional::linear(x, weight, bias);
}

EmbeddingImpl::EmbeddingImpl(int64_t count, int64_t width, at::Generator &gen)
{
    weight = register_parameter("weight", torch::empty({count, width}));
    torch::NoGradGuard guard; // torch::nn::Embedding's reset_parameters: normal_(0, 1)
    weight.normal_(0.0, 1.0, gen);
}

BertEmbeddingsImpl::BertEmbeddingsImpl(const BertConfig &c, at::Generator gen)
    : m_dropout(c.hidden_dropout_prob), m_gen(requireGenerator(std::move(gen)))
{
    const int64_t e = c.embeddingWidth();
    word_embeddings = register_module("word_embeddings", Embedding(c.vocab_size, e, m_gen));
    position_embeddings = register_module("position_embeddings", Embedding(c.max_position_embeddings, e, m_gen));
    token_type_embeddings = register_module("token_type_embeddings", Embedding(c.type_vocab_size, e, m_gen));
    LayerNorm = register_module("LayerNorm", layerNorm(e, c.layer_norm_eps));
    if (e != c.hidden_size)
        embedding_projection = register_module("embedding_projection", Linear(e, c.hidden_size, m_gen));
}

torch::Tensor BertEmbeddingsImpl::forward(const torch::Tensor &inputIds, const torch::Tensor &segmentIds)
{
    return fromWordVectors(word_embeddings->forward(inputIds), segmentIds);
}

torch::Tensor BertEmbeddingsImpl::fromWordVectors(const torch::Tensor &wordVectors, const torch::Tensor &segmentIds)
{
    const int64_t seq = wordVectors.size(1);
    auto x = wordVectors + token_type_embeddings->forward(segmentIds);
    x = x + position_embeddings->weight.narrow(0, 0, seq).unsqueeze(0);
    x = dropout(applyLayerNorm(LayerNorm, x), m_dropout, is_training(), m_gen);
    if (!embedding_projection.is_empty())
        x = embedding_projection->forward(x);
    return x;
}

BertLayerImpl::BertLayerImpl(const BertConfig &c, at::Generator gen)
    : m_heads(c.num_attention_heads), m_activation(c.hidden_act), m_hiddenDropout(c.hidden_dropout_prob),
      m_attentionDropout(c.attention_probs_dropout_prob), m_gen(requireGenerator(std::move(gen)))
{
    const int64_t h = c.hidden_size, i = c.intermediate_size;
    auto attention = container(*this, "attention");
    auto self = container(*attention, "self");
    query = self->register_module("query", Linear(h, h, m_gen));
    key = self->register_module("key", Linear(h, h, m_gen));
    value = self->register_module("value", Linear(h, h, m_gen));
    auto attOut = container(*attention, "output");
    attentionOutput = attOut->register_module("dense", Linear(h, h, m_gen));
    attentionLayerNorm = attOut->register_module("LayerNorm", layerNorm(h, c.layer_norm_eps));
    intermediate = container(*this, "intermediate")->register_module("dense", Linear(h, i, m_gen));
    auto out = container(*this, "output");
    output = out->register_module("dense", Linear(i, h, m_gen));
    outputLayerNorm = out->register_module("LayerNorm", layerNorm(h, c.layer_norm_eps));
}

namespace {

/// The fp32 training step's products whose bias the pass after them adds (FastKernels::bias):
/// grad mode on, the oneDNN products and the bias switch on, and dense(x) a fastLinear.
bool fastBiasAfter(const torch::Tensor &x, Linear &dense)
{
    const FastKernels fast = fastKernels();
    return fast.linear && fast.bias && fastLinearApplies(x, dense->weight, dense->bias);
}

} // namespace

torch::Tensor BertLayerImpl::denseDropoutAdd(Linear &dense, const torch::Tensor &x, const torch::Tensor &residual,
                                             double p)
{
    if (is_training() && p > 0.0 && p < 1.0) {
        // The same draw and mask as dropout(dense(x)) + residual, in one pass (nn::fusedDropoutAdd);
        // with the bias added in that pass too when the product runs on oneDNN (no bias copy
        // before the product, no column sum of its own after it). The residual has dense(x)'s shape.
        if (fastBiasAfter(x, dense) && fusedDropoutAddApplies(residual, residual, dense->bias))
            return fusedDropoutAdd(fastLinear(x, dense->weight, {}), residual, p, dropoutSeed(m_gen), dense->bias);
        const torch::Tensor y = dense->forward(x);
        if (fusedDropoutAddApplies(y, residual))
            return fusedDropoutAdd(y, residual, p, dropoutSeed(m_gen));
        return dropout(y, p, true, m_gen) + residual;
    }
    return dropout(dense->forward(x), p, is_training(), m_gen) + residual;
}

torch::Tensor BertLayerImpl::addAndNorm(Linear &dense, const torch::Tensor &x, const torch::Tensor &residual,
                                        torch::nn::LayerNorm &layerNorm)
{
    const double p = m_hiddenDropout;
    // The fp32 training step: the product without its bias, then bias, dropout, residual and
    // LayerNorm in one pass (nn::fusedAddNorm: the same draw and mask as denseDropoutAdd). The
    // residual has dense(x)'s shape, so it stands in for it in the check.
    if (is_training() && p > 0.0 && p < 1.0 && fastKernels().layerNorm && fastBiasAfter(x, dense) &&
        fusedAddNormApplies(residual, residual, dense->bias, layerNorm->weight, layerNorm->bias))
        return fusedAddNorm(fastLinear(x, dense->weight, {}), residual, dense->bias, p, dropoutSeed(m_gen),
                            layerNorm->weight, layerNorm->bias, layerNorm->options.eps());
    return applyLayerNorm(layerNorm, denseDropoutAdd(dense, x, residual, p));
}

torch::Tensor BertLayerImpl::intermediateActivation(const torch::Tensor &x)
{
    if (m_activation == "gelu" && fastKernels().gelu && fastBiasAfter(x, intermediate)) // (fusedGelu applies to x·Wᵀ, b)
        return fusedGelu(fastLinear(x, intermediate->weight, {}), intermediate->bias);
    return applyActivation(m_activation, intermediate->forward(x));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor &hidden, const torch::Tensor &maskBias, bool firstTokenOnly)
{
    const int64_t b = hidden.size(0), s = hidden.size(1), h = hidden.size(2);
    const int64_t d = h / m_heads;
    const torch::Tensor qIn = firstTokenOnly ? hidden.narrow(1, 0, 1) : hidden;
    const int64_t sq = qIn.size(1);
    // [B,S,H] -> [B,A,S,D] (strided views of the projections)
    std::array<torch::Tensor, 3> qkv;
    if (!firstTokenOnly && fastKernels().linear &&
        fastLinearApplies(hidden, query->weight, query->bias) && fastLinearApplies(hidden, key->weight, key->bias) &&
        fastLinearApplies(hidden, value->weight, value->bias)) // one node: the input's gradient summed in the GEMMs
        qkv = fastLinear3(hidden, query->weight, query->bias, key->weight, key->bias, value->weight, value->bias);
    else
        qkv = {query->forward(qIn), key->forward(hidden), value->forward(hidden)};
    const auto q = qkv[0].view({b, sq, m_heads, d}).transpose(1, 2);
    const auto k = qkv[1].view({b, s, m_heads, d}).transpose(1, 2);
    const auto v = qkv[2].view({b, s, m_heads, d}).transpose(1, 2);
    const torch::Tensor bias = maskBias.expand({b, m_heads, sq, s}), kt = k.transpose(2, 3);
    const double scale = 1.0 / std::sqrt(double(d));
    // The fp32 training step runs both products on oneDNN's batched matmul over the strided heads
    // (nn::fastBatchedMatmul: the same math, the mask bias added in the GEMM, the context written
    // straight into [B, S, A, D], no head copied), and inference with it (gradients off); autocast
    // as before.
    const bool fast = fastKernels().attention && fastBatchedMatmulApplies(q, kt, bias);
    torch::Tensor context;
    if (fast) {
        // With the mask bias, softmax and dropout in one pass (nn::fusedAttentionSoftmax: the same
        // draw from the generator as dropout() makes, and the same mask) the product adds no bias.
        const bool fused = fastKernels().softmax && m_attentionDropout < 1.0 && fusedAttentionSoftmaxApplies(bias, maskBias);
        const bool drop = is_training() && m_attentionDropout > 0.0;
        if (fused && fastKernels().blockedAttention && blockedAttentionApplies(q, k, v, maskBias)) {
            // The same products, softmax, mask and seed a block of heads at a time (nn::blockedAttention).
            context = blockedAttention(q, k, v, maskBias, scale, drop ? m_attentionDropout : 0.0,
                                       drop ? dropoutSeed(m_gen) : 0);
        } else {
            const auto scores = fused ? fastBatchedMatmul(q, kt, scale) : fastBatchedMatmul(q, kt, scale, bias);
            const auto probs = !fused ? dropout(torch::softmax(scores, -1), m_attentionDropout, is_training(), m_gen)
                                      : fusedAttentionSoftmax(scores, maskBias, drop ? m_attentionDropout : 0.0,
                                                              drop ? dropoutSeed(m_gen) : 0);
            context = fastBatchedMatmul(probs, v, 1.0, {}, BatchedOutput::HeadsInterleaved);
        }
    } else {
        const torch::Tensor qb = q.reshape({b * m_heads, sq, d}), ktb = k.reshape({b * m_heads, s, d}).transpose(1, 2),
                            vb = v.reshape({b * m_heads, s, d});
        auto scores = torch::baddbmm(bias.reshape({b * m_heads, sq, s}), qb, ktb, /*beta=*/1.0, /*alpha=*/scale);
        // Softmax in float32 also when autocast computed the scores in bf16/fp16.
        auto probs = dropout(torch::softmax(scores, -1, torch::kFloat), m_attentionDropout, is_training(), m_gen);
        context = torch::bmm(probs, vb).view({b, m_heads, sq, d});
    }
    context = context.transpose(1, 2).reshape({b, sq, h});
    auto attn = addAndNorm(attentionOutput, context, qIn, attentionLayerNorm);
    auto inter = intermediateActivation(attn);
    return addAndNorm(output, inter, attn, outputLayerNorm);
}

BertEncoderImpl::BertEncoderImpl(const BertConfig &c, at::Generator gen)
{
    auto holder = container(*this, "layer");
    for (int64_t l = 0; l < c.num_hidden_layers; ++l)
        layers.push_back(holder->register_module(std::to_string(l), BertLayer(c, gen)));
}

torch::Tensor BertEncoderImpl::forward(torch::Tensor hidden, const torch::Tensor &inputMask, bool allTokens)
{
    // [B,S] int -> additive bias [B,1,1,S]: 0 for tokens, -10000 for padding.
    auto maskBias = (1.0 - inputMask.to(hidden.scalar_type())).mul_(kMaskedLogit).unsqueeze(1).unsqueeze(1);
    // Without an input that requires grad the function's backward would never run and the
    // blocks' parameters would get no gradient: such a pass runs the plain way.
    const bool checkpoint = m_checkpointing && is_training() && torch::GradMode::is_enabled() && hidden.requires_grad();
    for (size_t l = 0; l < layers.size(); ++l) {
        const bool firstTokenOnly = l + 1 == layers.size() && !allTokens;
        hidden = checkpoint ? checkpointedLayer(*layers[l], hidden, maskBias, firstTokenOnly)
                            : layers[l]->forward(hidden, maskBias, firstTokenOnly);
    }
    return hidden;
}

BertBackboneImpl::BertBackboneImpl(const BertConfig &c, at::Generator generator, bool tiedDecoder)
    : m_config(c), m_gen(requireGenerator(std::move(generator)))
{
    if (c.hidden_size % c.num_attention_heads != 0)
        throw Error("hidden_size", "hidden_size " + std::to_string(c.hidden_size)
                                       + " is not a multiple of num_attention_heads "
                                       + std::to_string(c.num_attention_heads));
    if (tiedDecoder && c.embeddingWidth() != c.hidden_size)
        throw Error("embedding_size",
                    "pretraining ties the decoder to the word embeddings, which needs embedding_size == hidden_size ("
                        + std::to_string(c.embeddingWidth()) + " ≠ " + std::to_string(c.hidden_size) + ")",
                    "remove embedding_size from the model config (BERT has none)");
    applyActivation(c.hidden_act, torch::zeros({1})); // rejects unknown names early
    auto bert = container(*this, "bert");
    embeddings = bert->register_module("embeddings", BertEmbeddings(c, m_gen));
    encoder = bert->register_module("encoder", BertEncoder(c, m_gen));
    pooler = container(*bert, "pooler")->register_module("dense", Linear(c.hidden_size, c.hidden_size, m_gen));
}

void BertBackboneImpl::reset_parameters()
{
    const auto endsWith = [](const std::string &n, const std::string &suffix) {
        return n.size() >= suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    torch::NoGradGuard guard;
    for (auto &p : named_parameters()) {
        const std::string &n = p.key();
        if (n.find("LayerNorm") != std::string::npos)
            endsWith(n, "weight") ? p.value().fill_(1.0) : p.value().zero_();
        else if (endsWith(n, "bias"))
            p.value().zero_();
        else
            truncatedNormal_(p.value(), m_config.initializer_range, m_gen);
    }
}

BertForSequenceClassificationImpl::BertForSequenceClassificationImpl(const BertConfig &c, int64_t numLabels,
                                                                     at::Generator generator)
    : BertBackboneImpl(c, std::move(generator), /*tiedDecoder=*/false), m_numLabels(numLabels)
{
    classifier = register_module("classifier", Linear(c.hidden_size, numLabels, m_gen));
    reset_parameters();
}

torch::Tensor BertForSequenceClassificationImpl::forward(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                                                         const torch::Tensor &segmentIds)
{
    return forwardFromWordVectors(embeddings->word_embeddings->forward(inputIds), inputMask, segmentIds);
}

torch::Tensor BertForSequenceClassificationImpl::forwardFromWordVectors(const torch::Tensor &wordVectors,
                                                                        const torch::Tensor &inputMask,
                                                                        const torch::Tensor &segmentIds)
{
    auto hidden = encoder->forward(embeddings->fromWordVectors(wordVectors, segmentIds), inputMask);
    auto pooled = torch::tanh(pooler->forward(hidden.select(1, 0)));
    return classifier->forward(dropout(pooled, m_config.hidden_dropout_prob, is_training(), m_gen))
        .to(torch::kFloat); // the loss in float32 under autocast
}

void BertForSequenceClassificationImpl::resetClassifier()
{
    torch::NoGradGuard guard;
    truncatedNormal_(classifier->weight, m_config.initializer_range, m_gen);
    classifier->bias.zero_();
}

} // namespace wb::nn
