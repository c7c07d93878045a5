// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

namespace wb {

/// The number formats of --dtype (run_classifier's flag and values).
enum class NumberFormat { Fp32, Bf16, Fp16 };

/// Parses "fp32", "bf16" or "fp16". Throws wb::Error("dtype", …) for anything else.
NumberFormat parseNumberFormat(const std::string &dtype);

/// Mixed precision for the scope of one forward pass: under Bf16 (CPU or CUDA) or Fp16
/// (CUDA) libtorch's autocast runs the matmuls (linear layers, attention's baddbmm/bmm) in
/// the low-precision type on copies of the float32 weights; everything else stays float32.
/// Fp32 does nothing. The weight-copy cache is cleared when the outermost guard ends (the
/// copies the backward pass needs stay alive through the autograd graph).
/// Thread rules: autocast state is thread-local; create and destroy on one thread.
class AutocastGuard
{
public:
    AutocastGuard(NumberFormat format, const c10::Device &device);
    ~AutocastGuard();
    AutocastGuard(const AutocastGuard &) = delete;
    AutocastGuard &operator=(const AutocastGuard &) = delete;

private:
    bool m_active = false;
    bool m_cuda = false;
    bool m_wasEnabled = false;
    c10::ScalarType m_previousType = c10::kFloat;
};

/// Dynamic loss scaling for fp16, as run_classifier's LossScaleOptimizer (Keras
/// mixed_precision.LossScaleOptimizer with dynamic scaling): the loss is multiplied by
/// scale() before backward; after the gradients are complete, unscale() divides them by
/// it and reports whether all are finite. Finite: the step is applied and, after
/// kGrowthInterval finite steps in a row, the scale doubles. Not finite: the step is
/// skipped and the scale halves. Thread rules: training thread only.
class LossScaler
{
public:
    static constexpr double kInitialScale = 32768.0; ///< 2^15, Keras' initial_scale
    static constexpr int64_t kGrowthInterval = 2000;  ///< Keras' dynamic_growth_steps

    double scale() const { return m_scale; }

    /// Divides the gradients of `parameters` by scale() in place; returns false when any
    /// of them holds an inf or NaN (then the caller skips the optimizer step). Updates the
    /// scale for the next step.
    bool unscale(const std::vector<torch::Tensor> &parameters);

private:
    double m_scale = kInitialScale;
    int64_t m_goodSteps = 0;
};

} // namespace wb
