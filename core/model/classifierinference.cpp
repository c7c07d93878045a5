// SPDX-License-Identifier: Apache-2.0
#include "core/model/classifierinference.h"

#include "core/kernels/fusedops.h"
#include "core/kernels/rawforward.h"
#include "core/kernels/rowkernels.h"
#include "core/util/error.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace wb::nn {

namespace {

constexpr int64_t kGrain = 32768;      // elements a row pass's task covers at least (as the fused passes)
constexpr float kMaskedLogit = -10000; // BertEncoderImpl's additive mask for padding

int64_t rowGrain(int64_t cols)
{
    return std::max<int64_t>(1, kGrain / std::max<int64_t>(1, cols));
}

bool isPlainFloat(const torch::Tensor &t)
{
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous();
}

const float *ptr(const torch::Tensor &t)
{
    return t.data_ptr<float>();
}

/// One Linear's weight, bias and (made on first use at kTransposeWeightRows rows or more) the
/// weight's transpose.
struct Dense
{
    torch::Tensor weight, bias;
    std::vector<float> transposed;
    int64_t in() const { return weight.size(1); }
    int64_t out() const { return weight.size(0); }

    /// y [rows, out] = x [rows, in]·Wᵀ (+ b when withBias), as the module's fastLinear.
    void run(const float *x, int64_t rows, float *y, bool withBias = true)
    {
        const float *wt = nullptr;
        if (rows >= kernels::kTransposeWeightRows) {
            if (transposed.empty()) {
                const torch::Tensor t = weight.t().contiguous();
                transposed.assign(ptr(t), ptr(t) + t.numel());
            }
            wt = transposed.data();
        }
        kernels::linearRows(x, rows, in(), ptr(weight), wt, withBias ? ptr(bias) : nullptr, out(), y);
    }
};

struct Norm
{
    torch::Tensor weight, bias;
    float eps = 0;
};

struct Layer
{
    Dense query, key, value, attentionOutput, intermediate, output;
    Norm attentionNorm, outputNorm;
};

Dense dense(const Linear &l)
{
    return {l->weight, l->bias, {}};
}

Norm norm(const torch::nn::LayerNorm &n)
{
    return {n->weight, n->bias, float(n->options.eps())};
}

/// y[r] = LayerNorm(y[r] + residual[r]) for rows of `cols` (the eval pass's add & norm: the
/// module's sum and then fusedLayerNorm), written to out.
void addAndNorm(float *y, const float *residual, const Norm &n, int64_t rows, int64_t cols, float *out)
{
    RECORD_FUNCTION("wb::fused_layer_norm", std::vector<c10::IValue>());
    const float *w = ptr(n.weight), *b = ptr(n.bias);
    at::parallel_for(0, rows, rowGrain(cols), [&](int64_t from, int64_t to) {
        float stats[2];
        for (int64_t r = from; r < to; ++r) {
            float *row = y + r * cols;
            const float *res = residual + r * cols;
            for (int64_t j = 0; j < cols; ++j)
                row[j] = row[j] + res[j];
            kernels::layerNormRow(row, w, b, n.eps, out + r * cols, stats, cols);
        }
    });
}

} // namespace

struct ClassifierInference::Private
{
    BertForSequenceClassification model{nullptr};
    BertConfig config;
    torch::Tensor wordEmbeddings, positionEmbeddings, tokenTypeEmbeddings;
    Norm embeddingNorm;
    bool projected = false;
    Dense projection, pooler, classifier;
    std::vector<Layer> layers;
    // Buffers kept from call to call (grown as needed).
    std::vector<float> embedded, hidden, next, q, k, v, context, sum, attn, inter, act, firstRows, maskBias;

    void checkInputs(const int64_t *ids, const int64_t *types, int64_t batch, int64_t seq) const;
    void embed(const int64_t *ids, const int64_t *types, int64_t batch, int64_t seq);
    /// One encoder layer on `hidden` [batch, seq, H] into `next` ([batch, seq, H], or
    /// [batch, 1, H] with firstTokenOnly: the last layer, whose other rows nothing reads).
    void layer(Layer &l, int64_t batch, int64_t seq, bool firstTokenOnly);
};

namespace {

void grow(std::vector<float> &buffer, int64_t floats)
{
    if (buffer.size() < size_t(floats))
        buffer.resize(size_t(floats));
}

} // namespace

bool ClassifierInference::applies(const BertForSequenceClassification &model)
{
    const FastKernels fast = fastKernels();
    if (!fast.linear || !fast.attention || !fast.softmax || !fast.blockedAttention || !fast.layerNorm || !fast.gelu ||
        !fast.bias || at::autocast::is_cpu_enabled())
        return false;
    const BertConfig &c = model->config();
    if (c.hidden_act != "gelu" || c.num_hidden_layers < 1 || model->encoder->layers.empty())
        return false;
    for (const auto &p : model->parameters())
        if (!isPlainFloat(p))
            return false;
    return true;
}

ClassifierInference::ClassifierInference(BertForSequenceClassification model) : d(std::make_unique<Private>())
{
    if (!applies(model))
        throw Error("hidden_act", "the inference forward pass covers float32 CPU models with hidden_act gelu and "
                                  "the fast kernels on only",
                    "run the module's forward pass instead (TextClassifier does)");
    d->model = model;
    d->config = model->config();
    const auto &e = model->embeddings;
    d->wordEmbeddings = e->word_embeddings->weight;
    d->positionEmbeddings = e->position_embeddings->weight;
    d->tokenTypeEmbeddings = e->token_type_embeddings->weight;
    d->embeddingNorm = norm(e->LayerNorm);
    d->projected = !e->embedding_projection.is_empty();
    if (d->projected)
        d->projection = dense(e->embedding_projection);
    for (const auto &l : model->encoder->layers)
        d->layers.push_back({dense(l->query), dense(l->key), dense(l->value), dense(l->attentionOutput),
                             dense(l->intermediate), dense(l->output), norm(l->attentionLayerNorm),
                             norm(l->outputLayerNorm)});
    d->pooler = dense(model->pooler);
    d->classifier = dense(model->classifier);
}

ClassifierInference::~ClassifierInference() = default;

void ClassifierInference::Private::checkInputs(const int64_t *ids, const int64_t *types, int64_t batch,
                                               int64_t seq) const
{
    const int64_t positions = std::min<int64_t>(config.max_position_embeddings, kernels::kMaxAttentionKeys);
    if (batch < 1 || seq < 1 || seq > positions)
        throw Error("input_ids", "a batch of " + std::to_string(batch) + " sequences of " + std::to_string(seq)
                                     + " tokens; expected at least one of 1 to " + std::to_string(positions));
    for (int64_t i = 0; i < batch * seq; ++i) {
        if (ids[i] < 0 || ids[i] >= config.vocab_size)
            throw Error("input_ids", "token id " + std::to_string(ids[i]) + " at position " + std::to_string(i % seq)
                                         + " of sequence " + std::to_string(i / seq) + " is outside the vocabulary (0 to "
                                         + std::to_string(config.vocab_size - 1) + ")");
        if (types[i] < 0 || types[i] >= config.type_vocab_size)
            throw Error("token_type_ids", "token type " + std::to_string(types[i]) + " at position "
                                              + std::to_string(i % seq) + " of sequence " + std::to_string(i / seq)
                                              + " is outside 0 to " + std::to_string(config.type_vocab_size - 1));
    }
}

void ClassifierInference::Private::embed(const int64_t *ids, const int64_t *types, int64_t batch, int64_t seq)
{
    RECORD_FUNCTION("wb::inference_embeddings", std::vector<c10::IValue>());
    const int64_t e = wordEmbeddings.size(1), rows = batch * seq;
    grow(embedded, rows * e);
    float *out = projected ? embedded.data() : hidden.data();
    const float *word = ptr(wordEmbeddings), *position = ptr(positionEmbeddings), *type = ptr(tokenTypeEmbeddings);
    const float *w = ptr(embeddingNorm.weight), *b = ptr(embeddingNorm.bias);
    at::parallel_for(0, rows, rowGrain(e), [&](int64_t from, int64_t to) {
        std::vector<float> row(static_cast<size_t>(e));
        float stats[2];
        // The word vectors are rows scattered over a table of tens of MB: each is asked for a few
        // rows ahead, so that their cache misses overlap instead of following one another.
        constexpr int64_t kAhead = 4;
        const int64_t lineFloats = 16; // 64-byte cache lines
        const auto prefetch = [&](int64_t r) {
            const float *wr = word + ids[r] * e;
            for (int64_t j = 0; j < e; j += lineFloats)
                __builtin_prefetch(wr + j);
        };
        for (int64_t r = from; r < std::min(to, from + kAhead); ++r)
            prefetch(r);
        for (int64_t r = from; r < to; ++r) {
            if (r + kAhead < to)
                prefetch(r + kAhead);
            // (word + token type) + position, then LayerNorm: BertEmbeddingsImpl's order of sums.
            const float *wr = word + ids[r] * e, *tr = type + types[r] * e, *pr = position + (r % seq) * e;
            for (int64_t j = 0; j < e; ++j) {
                const float s = wr[j] + tr[j];
                row[size_t(j)] = s + pr[j];
            }
            kernels::layerNormRow(row.data(), w, b, embeddingNorm.eps, out + r * e, stats, e);
        }
    });
    if (projected)
        projection.run(embedded.data(), rows, hidden.data());
}

void ClassifierInference::Private::layer(Layer &l, int64_t batch, int64_t seq, bool firstTokenOnly)
{
    const int64_t h = config.hidden_size, heads = config.num_attention_heads, dh = h / heads;
    const int64_t rows = batch * seq, sq = firstTokenOnly ? 1 : seq, qRows = batch * sq;
    const int64_t inter_ = l.intermediate.out();
    // The query's input: every row, or the first token of each sequence (copied together, as
    // the module's reshape of the narrowed view does).
    const float *qIn = hidden.data();
    if (firstTokenOnly) {
        for (int64_t b = 0; b < batch; ++b)
            std::copy(hidden.data() + b * seq * h, hidden.data() + b * seq * h + h, firstRows.data() + b * h);
        qIn = firstRows.data();
    }
    l.query.run(qIn, qRows, q.data());
    l.key.run(hidden.data(), rows, k.data());
    l.value.run(hidden.data(), rows, v.data());

    kernels::AttentionGeometry g;
    g.batch = batch;
    g.heads = heads;
    g.sq = sq;
    g.s = seq;
    g.d = dh;
    g.dv = dh;
    const int64_t qStride[3] = {sq * h, dh, h}, kvStride[3] = {seq * h, dh, h};
    std::copy(qStride, qStride + 3, g.qStride);
    std::copy(kvStride, kvStride + 3, g.kStride);
    std::copy(kvStride, kvStride + 3, g.vStride);
    {
        RECORD_FUNCTION("wb::blocked_attention", std::vector<c10::IValue>()); // its self time: the softmax
        kernels::blockedAttentionForward(g, q.data(), k.data(), v.data(), maskBias.data(),
                                         float(1.0 / std::sqrt(double(dh))), 0.0, 0, nullptr, context.data());
    }

    l.attentionOutput.run(context.data(), qRows, sum.data());
    addAndNorm(sum.data(), qIn, l.attentionNorm, qRows, h, attn.data());
    // The intermediate product without its bias, then bias and GELU in one pass (nn::fusedGelu's
    // rows, without the derivative it keeps for the backward pass).
    l.intermediate.run(attn.data(), qRows, inter.data(), /*withBias=*/false);
    {
        RECORD_FUNCTION("wb::fused_gelu", std::vector<c10::IValue>());
        const float *bi = ptr(l.intermediate.bias);
        at::parallel_for(0, qRows, rowGrain(inter_), [&](int64_t from, int64_t to) {
            for (int64_t r = from; r < to; ++r)
                kernels::biasGeluRowValues(inter.data() + r * inter_, bi, act.data() + r * inter_, inter_);
        });
    }
    l.output.run(act.data(), qRows, sum.data());
    addAndNorm(sum.data(), attn.data(), l.outputNorm, qRows, h, next.data());
}

torch::Tensor ClassifierInference::forward(const int64_t *input_ids, const int64_t *attention_mask,
                                           const int64_t *token_type_ids, int64_t batch, int64_t seq,
                                           torch::Tensor *pooled)
{
    Private &p = *d;
    p.checkInputs(input_ids, token_type_ids, batch, seq);
    const int64_t h = p.config.hidden_size, rows = batch * seq;
    int64_t widest = h;
    for (const Layer &l : p.layers)
        widest = std::max(widest, l.intermediate.out());
    for (auto *buffer : {&p.hidden, &p.next, &p.q, &p.k, &p.v, &p.context, &p.sum, &p.attn})
        grow(*buffer, rows * h);
    grow(p.inter, rows * widest);
    grow(p.act, rows * widest);
    grow(p.firstRows, batch * h);
    grow(p.maskBias, rows);
    // [B, S] mask → additive bias: (1 − mask)·(−10000), as BertEncoderImpl computes it in float.
    for (int64_t i = 0; i < rows; ++i)
        p.maskBias[size_t(i)] = (1.0f - float(attention_mask[i])) * kMaskedLogit;

    p.embed(input_ids, token_type_ids, batch, seq);
    for (size_t l = 0; l < p.layers.size(); ++l) {
        p.layer(p.layers[l], batch, seq, l + 1 == p.layers.size());
        std::swap(p.hidden, p.next);
    }
    // p.hidden: [batch, 1, H], the last layer's first tokens.
    const auto opts = torch::TensorOptions().dtype(torch::kFloat);
    torch::Tensor cls = torch::empty({batch, h}, opts);
    p.pooler.run(p.hidden.data(), batch, cls.data_ptr<float>());
    cls.tanh_(); // ATen's tanh, as the module's pooler
    torch::Tensor logits = torch::empty({batch, p.classifier.out()}, opts);
    p.classifier.run(cls.data_ptr<float>(), batch, logits.data_ptr<float>());
    if (pooled)
        *pooled = cls;
    return logits;
}

} // namespace wb::nn
