// SPDX-License-Identifier: Apache-2.0
// Torch-free: the vectorised AdamW update of one float32 tensor (core/engine/adamw.h).
#pragma once

#include <cstdint>

namespace wb {

/// One TF2 AdamW step (official/nlp/optimization.py AdamWeightDecay) over n contiguous float32
/// elements, in place, in one pass: with g = grad·gscale (the global-norm clip),
/// m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g², p ← p·(1 − decay) − alpha·m/(√v + eps).
/// alpha is the bias-corrected learning rate lr·√(1−β₂ᵗ)/(1−β₁ᵗ) and decay lr·weight_decay_rate
/// (0 for excluded parameters); epsilon outside the root, as TF2. The loop is compiled for
/// AVX-512, AVX2 and the x86-64 baseline and runs in the variant cpuCapability() names
/// (core/util/cpucapability.h), all giving the same bits; each element's arithmetic is
/// the scalar formula's in the same order (its file is built with -fno-math-errno, which is what
/// lets GCC vectorise the square root). Thread rules: none (pure function of its buffers).
void adamwUpdate(float *p, float *m, float *v, const float *grad, int64_t n, float gscale, float decay, float beta1,
                 float beta2, float alpha, float eps);

/// Σ grad[i]² over n contiguous float32 elements (one tensor's share of the global norm the
/// clip uses): 16 float lanes over blocks of 4096 elements, each block's lanes added in double in
/// a fixed order, so the result is within a few ulp of the exact sum and the same on every run.
/// Vectorised as adamwUpdate is (ATen's norm read the gradients at half the memory bandwidth).
/// Thread rules: none (pure function of its buffer).
double sumOfSquares(const float *grad, int64_t n);

} // namespace wb
