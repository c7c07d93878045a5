// SPDX-License-Identifier: Apache-2.0
#include "core/model/bertmodel.h"

#include "core/util/error.h"

#include <cmath>

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

torch::Tensor dropoutIf(torch::nn::Dropout &d, const torch::Tensor &x)
{
    return d->options.p() > 0 ? d->forward(x) : x;
}

} // namespace

torch::Tensor applyActivation(const std::string &name, const torch::Tensor &x)
{
    if (name == "gelu")
        return torch::gelu(x);
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

void truncatedNormal_(torch::Tensor t, double stddev)
{
    torch::NoGradGuard guard;
    // Inverse-CDF sampling of the normal restricted to [-2σ, 2σ]: exact, no rejection loop.
    const double lo = 0.5 * (1.0 + std::erf(-2.0 / std::sqrt(2.0)));
    const double hi = 0.5 * (1.0 + std::erf(2.0 / std::sqrt(2.0)));
    t.uniform_(2.0 * lo - 1.0, 2.0 * hi - 1.0).erfinv_().mul_(stddev * std::sqrt(2.0));
}

BertEmbeddingsImpl::BertEmbeddingsImpl(const BertConfig &c)
{
    const int64_t e = c.embeddingWidth();
    word_embeddings = register_module("word_embeddings", torch::nn::Embedding(c.vocab_size, e));
    position_embeddings = register_module("position_embeddings", torch::nn::Embedding(c.max_position_embeddings, e));
    token_type_embeddings = register_module("token_type_embeddings", torch::nn::Embedding(c.type_vocab_size, e));
    LayerNorm = register_module("LayerNorm", layerNorm(e, c.layer_norm_eps));
    if (e != c.hidden_size)
        embedding_projection = register_module("embedding_projection", torch::nn::Linear(e, c.hidden_size));
    dropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
}

torch::Tensor BertEmbeddingsImpl::forward(const torch::Tensor &inputIds, const torch::Tensor &segmentIds)
{
    const int64_t seq = inputIds.size(1);
    auto x = word_embeddings->forward(inputIds);
    x = x + token_type_embeddings->forward(segmentIds);
    x = x + position_embeddings->weight.narrow(0, 0, seq).unsqueeze(0);
    x = dropoutIf(dropout, LayerNorm->forward(x));
    if (!embedding_projection.is_empty())
        x = embedding_projection->forward(x);
    return x;
}

BertLayerImpl::BertLayerImpl(const BertConfig &c) : m_heads(c.num_attention_heads), m_activation(c.hidden_act)
{
    const int64_t h = c.hidden_size, i = c.intermediate_size;
    auto attention = container(*this, "attention");
    auto self = container(*attention, "self");
    query = self->register_module("query", torch::nn::Linear(h, h));
    key = self->register_module("key", torch::nn::Linear(h, h));
    value = self->register_module("value", torch::nn::Linear(h, h));
    auto attOut = container(*attention, "output");
    attentionOutput = attOut->register_module("dense", torch::nn::Linear(h, h));
    attentionLayerNorm = attOut->register_module("LayerNorm", layerNorm(h, c.layer_norm_eps));
    intermediate = container(*this, "intermediate")->register_module("dense", torch::nn::Linear(h, i));
    auto out = container(*this, "output");
    output = out->register_module("dense", torch::nn::Linear(i, h));
    outputLayerNorm = out->register_module("LayerNorm", layerNorm(h, c.layer_norm_eps));
    hiddenDropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
    attentionDropout = register_module("attention_dropout", torch::nn::Dropout(c.attention_probs_dropout_prob));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor &hidden, const torch::Tensor &maskBias, bool firstTokenOnly)
{
    const int64_t b = hidden.size(0), s = hidden.size(1), h = hidden.size(2);
    const int64_t d = h / m_heads;
    const torch::Tensor qIn = firstTokenOnly ? hidden.narrow(1, 0, 1) : hidden;
    const int64_t sq = qIn.size(1);
    // [B,S,H] -> [B,A,S,D]
    auto q = query->forward(qIn).view({b, sq, m_heads, d}).transpose(1, 2);
    auto k = key->forward(hidden).view({b, s, m_heads, d}).transpose(1, 2);
    auto v = value->forward(hidden).view({b, s, m_heads, d}).transpose(1, 2);
    auto scores = torch::baddbmm(maskBias.expand({b, m_heads, sq, s}).reshape({b * m_heads, sq, s}),
                                 q.reshape({b * m_heads, sq, d}), k.reshape({b * m_heads, s, d}).transpose(1, 2),
                                 /*beta=*/1.0, /*alpha=*/1.0 / std::sqrt(double(d)));
    // Softmax in float32 also when autocast computed the scores in bf16/fp16.
    auto probs = dropoutIf(attentionDropout, torch::softmax(scores, -1, torch::kFloat));
    auto context = torch::bmm(probs, v.reshape({b * m_heads, s, d}))
                       .view({b, m_heads, sq, d})
                       .transpose(1, 2)
                       .reshape({b, sq, h});
    auto attn = attentionLayerNorm->forward(dropoutIf(hiddenDropout, attentionOutput->forward(context)) + qIn);
    auto inter = applyActivation(m_activation, intermediate->forward(attn));
    return outputLayerNorm->forward(dropoutIf(hiddenDropout, output->forward(inter)) + attn);
}

BertEncoderImpl::BertEncoderImpl(const BertConfig &c)
{
    auto holder = container(*this, "layer");
    for (int64_t l = 0; l < c.num_hidden_layers; ++l)
        layers.push_back(holder->register_module(std::to_string(l), BertLayer(c)));
}

torch::Tensor BertEncoderImpl::forward(torch::Tensor hidden, const torch::Tensor &inputMask, bool allTokens)
{
    // [B,S] int -> additive bias [B,1,1,S]: 0 for tokens, -10000 for padding.
    auto maskBias = (1.0 - inputMask.to(hidden.scalar_type())).mul_(kMaskedLogit).unsqueeze(1).unsqueeze(1);
    for (size_t l = 0; l < layers.size(); ++l) {
        const bool last = l + 1 == layers.size();
        hidden = layers[l]->forward(hidden, maskBias, last && !allTokens);
    }
    return hidden;
}

BertForSequenceClassificationImpl::BertForSequenceClassificationImpl(const BertConfig &c, int64_t numLabels)
    : m_config(c), m_numLabels(numLabels)
{
    if (c.hidden_size % c.num_attention_heads != 0)
        throw Error("hidden_size", "hidden_size " + std::to_string(c.hidden_size)
                                       + " is not a multiple of num_attention_heads "
                                       + std::to_string(c.num_attention_heads));
    applyActivation(c.hidden_act, torch::zeros({1})); // rejects unknown names early
    auto bert = container(*this, "bert");
    embeddings = bert->register_module("embeddings", BertEmbeddings(c));
    encoder = bert->register_module("encoder", BertEncoder(c));
    pooler = container(*bert, "pooler")->register_module("dense", torch::nn::Linear(c.hidden_size, c.hidden_size));
    dropout = register_module("dropout", torch::nn::Dropout(c.hidden_dropout_prob));
    classifier = register_module("classifier", torch::nn::Linear(c.hidden_size, numLabels));
    reset_parameters();
}

torch::Tensor BertForSequenceClassificationImpl::forward(const torch::Tensor &inputIds, const torch::Tensor &inputMask,
                                                         const torch::Tensor &segmentIds)
{
    auto hidden = encoder->forward(embeddings->forward(inputIds, segmentIds), inputMask);
    auto pooled = torch::tanh(pooler->forward(hidden.select(1, 0)));
    return classifier->forward(dropoutIf(dropout, pooled)).to(torch::kFloat); // the loss in float32 under autocast
}

void BertForSequenceClassificationImpl::reset_parameters()
{
    torch::NoGradGuard guard;
    for (auto &p : named_parameters()) {
        const std::string &n = p.key();
        if (n.find("LayerNorm") != std::string::npos)
            n.size() >= 6 && n.compare(n.size() - 6, 6, "weight") == 0 ? p.value().fill_(1.0) : p.value().zero_();
        else if (n.size() >= 4 && n.compare(n.size() - 4, 4, "bias") == 0)
            p.value().zero_();
        else
            truncatedNormal_(p.value(), m_config.initializer_range);
    }
}

void BertForSequenceClassificationImpl::resetClassifier()
{
    torch::NoGradGuard guard;
    truncatedNormal_(classifier->weight, m_config.initializer_range);
    classifier->bias.zero_();
}

} // namespace wb::nn
