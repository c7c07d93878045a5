// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"

#include <cstdint>
#include <string>

namespace wb {

/// The estimated peak resident memory of one training process, in bytes per component.
/// Calibrated against the peak RSS (/usr/bin/time -v) of real runs (docs/benchmarks.md).
struct MemoryEstimate
{
    int64_t parameters = 0;  ///< float32 master weights (4 bytes per parameter)
    int64_t gradients = 0;   ///< float32 gradients (4 bytes per parameter)
    int64_t optimizer = 0;   ///< AdamW m and v (2 × 4 bytes per parameter)
    /// Tensors autograd keeps for the backward pass of one micro-batch, the transient
    /// buffers of the backward pass, and under bf16/fp16 the low-precision weight copies.
    int64_t activations = 0;
    int64_t runtime = 0;     ///< libtorch, BLAS pools and the program itself (measured constant)

    int64_t total() const { return parameters + gradients + optimizer + activations + runtime; }

    /// "estimated peak memory: 5.9 GiB (params 0.4, grads 0.4, optimizer 0.9,
    /// activations 4.2)" (GiB, one decimal; the runtime is in the total only).
    std::string summary() const;
};

/// Estimates the peak memory of training BertForSequenceClassification(`config`,
/// `num_labels`) at `max_seq_length` tokens with `batch_size` examples per optimizer step
/// in this process (the per-worker batch), split into `gradient_accumulation_steps`
/// micro-batches (activations scale with batch_size / gradient_accumulation_steps), with
/// `dtype` "fp32", "bf16" or "fp16" (anything else counts as fp32), with or without
/// `activation_checkpointing` (--activation_checkpointing).
///
/// Per encoder block and token the saved tensors are ≈ 34·H + 8·I bytes in fp32 (Q, K, V,
/// context, LayerNorm inputs and outputs, dropout masks, the feed-forward pair) and
/// ≈ 30·H + 4·I under bf16 autocast (matmul outputs in 2 bytes, the residual stream and
/// LayerNorm in fp32); per attention score 9 (fp32) or 7 (bf16) bytes (softmax output,
/// dropout mask, the probabilities fed to the second matmul). The last block computes only
/// the [CLS] query (TF2's output_range=1). The sum is scaled by 1.4 and a 170 MiB runtime
/// is added, calibrated on BERT-Tiny and BERT-Mini (within ±10 % of the measured peak RSS
/// for batch ≥ 32; docs/benchmarks.md). With activation checkpointing the blocks keep only
/// their float32 input (4·H bytes per token and block) and one block's tensors (all of the
/// above, once) exist during its recomputation; under bf16 only that block's weight copies.
/// Torch-free; thread-safe; no errors (non-positive sizes give zero activations).
MemoryEstimate estimateTrainingMemory(const BertConfig &config, int64_t num_labels, int64_t max_seq_length,
                                      int64_t batch_size, int64_t gradient_accumulation_steps,
                                      const std::string &dtype, bool activation_checkpointing = false);

} // namespace wb
