// SPDX-License-Identifier: Apache-2.0
// Torch-free: the vectorised element and row loops of the fp32 training step (GELU, the
// attention's softmax, the dropout mask), for core/kernels/fusedops.cpp and fusedsoftmax.cpp.
#pragma once

#include <cstdint>

namespace wb::nn::kernels {

/// y[i] = x[i]·Φ(x[i]) and g[i] = Φ(x[i]) + x[i]·φ(x[i]) (GELU and its derivative) for i < n;
/// Φ, φ the standard normal's CDF and density, Φ by Abramowitz & Stegun 7.1.26 (nn::fusedGelu).
void geluWithDerivative(const float *x, float *y, float *g, int64_t n);

/// geluWithDerivative of u = x[j] + bias[j] over one row of n floats (the bias of the product
/// before the GELU, added here instead of in the product: nn::fusedGelu with a bias).
void biasGeluRow(const float *x, const float *bias, float *y, float *g, int64_t n);

/// biasGeluRow's y alone (the inference forward pass: no derivative is kept), the same bits.
void biasGeluRowValues(const float *x, const float *bias, float *y, int64_t n);
/// sums[j] += row[j] for j < n (a bias gradient's column sums, a row at a time).
void addRowTo(const float *row, float *sums, int64_t n);

/// out[j] = a[j]·b[j] and sums[j] += out[j] for j < n: a gradient through an element-wise factor
/// (GELU's derivative, the dropout mask) and, in the same pass, its column sums (a bias gradient).
void mulRowAddTo(const float *a, const float *b, float *out, float *sums, int64_t n);

/// y[j] = (x[j] + bias[j])·scale[j] + residual[j] for j < n: bias, dropout (scale from
/// dropoutScales) and the residual connection in one pass (nn::fusedDropoutAdd with a bias).
void biasDropoutAddRow(const float *x, const float *bias, const float *scale, const float *residual, float *y,
                       int64_t n);

/// LayerNorm of one row of n ≥ 1 floats: μ the mean, rstd = 1/√(σ² + eps) with σ² the biased
/// variance Σ(x − μ)²/n (two passes, as torch::layer_norm defines it), y[j] = (x[j] − μ)·rstd·gamma[j]
/// + beta[j]. stats[0] = μ, stats[1] = rstd, kept for the backward pass.
void layerNormRow(const float *x, const float *gamma, const float *beta, float eps, float *y, float *stats, int64_t n);

/// LayerNorm's backward pass over one row: x̂ = (x − μ)·rstd, ĝ = dy·gamma,
/// dx[j] = rstd·(ĝ[j] − mean(ĝ) − x̂[j]·mean(ĝ·x̂)); and dgamma[j] += dy[j]·x̂[j], dbeta[j] += dy[j]
/// (the parameter gradients' partial sums of the caller's row block). stats as layerNormRow wrote it.
void layerNormRowBackward(const float *dy, const float *x, const float *gamma, const float *stats, float *dx,
                          float *dgamma, float *dbeta, int64_t n);

/// p = softmax(x + bias) over one row of n floats (n ≥ 1): p[j] = e^(x[j] + bias[j] − m) / Σ_k …,
/// m the row's largest x + bias. A term more than 87 below m counts as exactly 0 (as e^(−87)
/// is below every float the sum can resolve), so the −10000 mask bias masks exactly.
void softmaxRow(const float *x, const float *bias, float *p, int64_t n);

/// dx[j] = p[j]·(dp[j] − Σ_k p[k]·dp[k]) over one row of n floats: the softmax's backward pass.
void softmaxRowBackward(const float *p, const float *dp, float *dx, int64_t n);

/// scale[i − begin] = s where element i of the dropout mask of `seed` is kept, else 0, for i in
/// [begin, end) (end − begin ≤ 2048): nn::dropoutHash(seed, i) >> 8 < threshold (core/kernels/fusedops.h).
void dropoutScales(float *scale, uint64_t seed, int64_t begin, int64_t end, uint32_t threshold, float s);

} // namespace wb::nn::kernels
