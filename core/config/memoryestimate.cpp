// SPDX-License-Identifier: Apache-2.0
#include "core/config/memoryestimate.h"

#include <cstdio>

namespace wb {

namespace {

// Resident memory of the trainer besides the model (libtorch, OpenMP/BLAS pools, the data
// pipeline): peak RSS of BERT-Tiny at batch 1 minus its parameter state (docs/benchmarks.md).
constexpr int64_t kRuntimeBytes = 170LL << 20;
// Measured activation memory / the tensors counted below, for BERT-Tiny and BERT-Mini at
// batch 32 and 64 in fp32 and bf16 (1.25–1.5): allocator slack and short-lived temporaries.
constexpr double kActivationOverhead = 1.4;

double gib(int64_t bytes)
{
    return double(bytes) / double(1LL << 30);
}

} // namespace

std::string MemoryEstimate::summary() const
{
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "estimated peak memory: %.1f GiB (params %.1f, grads %.1f, optimizer %.1f, activations %.1f)",
                  gib(total()), gib(parameters), gib(gradients), gib(optimizer), gib(activations));
    return buf;
}

MemoryEstimate estimateTrainingMemory(const BertConfig &c, int64_t numLabels, int64_t seq, int64_t batch,
                                      int64_t accumulation, const std::string &dtype, bool activationCheckpointing)
{
    MemoryEstimate m;
    const ParameterCount pc = c.parameterCount(numLabels);
    const int64_t p = pc.total();
    m.parameters = 4 * p;
    m.gradients = 4 * p;
    m.optimizer = 8 * p;
    m.runtime = kRuntimeBytes;
    if (batch <= 0 || seq <= 0 || c.num_hidden_layers <= 0)
        return m;
    const bool low = dtype == "bf16" || dtype == "fp16";
    const int64_t micro = accumulation > 0 ? (batch + accumulation - 1) / accumulation : batch;
    const double h = double(c.hidden_size), i = double(c.intermediate_size), e = double(c.embeddingWidth());
    const double heads = double(c.num_attention_heads);
    const double tokens = double(micro) * double(seq);
    const double perTokenBlock = low ? 30.0 * h + 4.0 * i : 34.0 * h + 8.0 * i;
    const double perScore = low ? 7.0 : 9.0;
    const double scores = double(micro) * heads * double(seq) * double(seq);
    const double block = tokens * perTokenBlock + scores * perScore;
    const double layers = double(c.num_hidden_layers);
    double bytes = 0;
    if (activationCheckpointing) {
        // Every block's float32 input (the residual stream), kept for the recomputation, and
        // the activations of the one block being recomputed in the backward pass.
        bytes += layers * tokens * 4.0 * h + block;
    } else {
        // Full blocks, then the last one: K and V over every token, the rest for [CLS] only.
        bytes += (layers - 1.0) * block;
        bytes += tokens * (low ? 2.0 + 4.0 : 4.0) * h + tokens * (low ? 4.0 : 8.0) * h
                 + double(micro) * perTokenBlock + scores / double(seq) * perScore;
    }
    // Embeddings: sum, LayerNorm input/output, dropout mask (+ the projection when E != H).
    bytes += tokens * 13.0 * e + (e != h ? tokens * 4.0 * h : 0.0);
    // Backward transients of one block: the gradient of the scores and of the softmax, and
    // of the feed-forward pair.
    bytes += 2.0 * 4.0 * scores + 2.0 * 4.0 * tokens * i;
    // Autocast's low-precision copies of the matmul weights, saved for the backward pass:
    // of every block, or with checkpointing of the block being recomputed only.
    if (low)
        bytes += 2.0 * ((activationCheckpointing ? double(pc.encoder) / layers : double(pc.encoder))
                        + double(pc.pooler + pc.classifier));
    bytes *= kActivationOverhead;
    // With accumulation the embedding backward's dense [vocab_size, E] gradient is a
    // temporary added into the existing one.
    if (accumulation > 1)
        bytes += 4.0 * double(c.vocab_size) * e;
    m.activations = int64_t(bytes);
    return m;
}

} // namespace wb
