// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace wb {

/// Hyperparameters of TF2's AdamWeightDecay (tensorflow/models official/nlp/optimization.py).
struct AdamWOptions
{
    double weight_decay_rate = 0.01; ///< decoupled decay factor (per unit of LR)
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-6;           ///< added to √v (Keras "epsilon hat" form)
    double clip_norm = 1.0;          ///< global-norm clipping; ≤ 0 disables
};

/// AdamW with TF2 semantics (official/nlp AdamWeightDecay over Keras legacy Adam).
///
/// One step with scheduled LR `lr` and t = iterations + 1:
///   g ← g · clip / max(‖G‖₂, clip)                  (global norm over all gradients)
///   w ← w − lr · weight_decay_rate · w               (only names without LayerNorm/layer_norm/bias)
///   m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²
///   w ← w − lr·√(1−β₂ᵗ)/(1−β₁ᵗ) · m / (√v + ε)
///
/// float32 CPU tensors are updated by one fused pass (no temporaries), in blocks of 4096
/// elements spread over the run's intra-op threads (at::parallel_for); the global norm adds the
/// blocks' sums in a fixed order, so the update has the same bits on any thread count. Other
/// devices use in-place torch ops. Parameters without a gradient are skipped, as in TF.
/// Thread rules: not thread-safe; use from the training thread only.
class AdamW
{
public:
    AdamW(std::vector<std::pair<std::string, torch::Tensor>> params, AdamWOptions options = {});

    /// Clips the gradients and applies one update with learning rate `lr`; increments
    /// iterations(). Returns the global gradient norm before clipping.
    double step(double lr);

    /// Counts a step whose update was skipped (fp16 loss scaling found an inf/NaN
    /// gradient): iterations() advances as Keras' LossScaleOptimizer advances it, nothing
    /// else changes.
    void skipStep() { ++m_iterations; }

    /// Drops the gradients (set to undefined), so the next backward writes fresh ones.
    void zeroGrad();

    /// Returns the number of updates applied so far (Keras `optimizer.iterations`).
    int64_t iterations() const { return m_iterations; }

    /// Writes/reads m, v (dicts keyed by parameter name) and iterations as the archive
    /// entries optimizer_m, optimizer_v, optimizer_iterations. load() throws wb::Error when
    /// a tensor is missing or has another shape.
    void save(torch::serialize::OutputArchive &archive) const;
    void load(torch::serialize::InputArchive &archive);

    /// Read access to the first/second moments (tests).
    const torch::Tensor &firstMoment(size_t k) const { return m_m[k]; }
    const torch::Tensor &secondMoment(size_t k) const { return m_v[k]; }

private:
    std::vector<std::pair<std::string, torch::Tensor>> m_params;
    std::vector<bool> m_decay;
    std::vector<torch::Tensor> m_m, m_v;
    AdamWOptions m_options;
    int64_t m_iterations = 0;
};

} // namespace wb
