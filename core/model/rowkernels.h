// SPDX-License-Identifier: Apache-2.0
// Torch-free: the vectorised element and row loops of the fp32 training step (GELU, the
// attention's softmax, the dropout mask), for core/model/fusedops.cpp and fusedsoftmax.cpp.
#pragma once

#include <cstdint>

namespace wb::nn::kernels {

/// y[i] = x[i]·Φ(x[i]) and g[i] = Φ(x[i]) + x[i]·φ(x[i]) (GELU and its derivative) for i < n;
/// Φ, φ the standard normal's CDF and density, Φ by Abramowitz & Stegun 7.1.26 (nn::fusedGelu).
void geluWithDerivative(const float *x, float *y, float *g, int64_t n);

/// p = softmax(x + bias) over one row of n floats (n ≥ 1): p[j] = e^(x[j] + bias[j] − m) / Σ_k …,
/// m the row's largest x + bias. A term more than 87 below m counts as exactly 0 (as e^(−87)
/// is below every float the sum can resolve), so the −10000 mask bias masks exactly.
void softmaxRow(const float *x, const float *bias, float *p, int64_t n);

/// dx[j] = p[j]·(dp[j] − Σ_k p[k]·dp[k]) over one row of n floats: the softmax's backward pass.
void softmaxRowBackward(const float *p, const float *dp, float *dx, int64_t n);

/// scale[i − begin] = s where element i of the dropout mask of `seed` is kept, else 0, for i in
/// [begin, end) (end − begin ≤ 2048): nn::dropoutHash(seed, i) >> 8 < threshold (core/model/fusedops.h).
void dropoutScales(float *scale, uint64_t seed, int64_t begin, int64_t end, uint32_t threshold, float s);

} // namespace wb::nn::kernels
