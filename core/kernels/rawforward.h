// SPDX-License-Identifier: Apache-2.0
// Torch-free: the forward products of the fp32 training step on raw float32 buffers, one
// implementation shared by the step's autograd nodes (core/kernels/fusedops.cpp,
// blockedattention.cpp) and the inference forward pass (core/model/classifierinference.h), so
// that the two give the same bits by construction.
#pragma once

#include <cstdint>

namespace wb::nn::kernels {

/// Row-major c[m, n] = op(a)·op(b) + beta·c on oneDNN's sgemm (op 'N' or 'T'; a [m, k] or, with
/// 'T', [k, m]; b [k, n] or [n, k]), contiguous operands. Threads: the calling thread's intra-op
/// threads (libtorch's setting, settled first; one inside a parallel region). Throws
/// c10::Error naming the shape when oneDNN fails.
void dnnlGemm(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float beta, float *c);

/// From this many rows on, a Linear's forward product reads a transposed copy of its weight:
/// oneDNN runs x·(Wᵀ stored) 5–10 % faster than x·Wᵀ on the model's shapes at 4096 rows
/// (docs/benchmarks.md, "GEMM shapes") and, with the copy kept, 9 % faster at one text's 128 rows
/// (BERT-Mini's inference at batch 1: 5.13 → 4.70 ms): every row count, so that the training
/// step's forward pass and inference (which keeps its copies) run the same products.
constexpr int64_t kTransposeWeightRows = 1;

/// y [rows, out] = x [rows, in] · weightᵀ + bias, all contiguous float32, bias [out] or null (none):
/// y starts as the bias in every row and the product is added onto it (beta = 1), or written
/// (beta = 0) without one. weight [out, in]; weightT: weight's transpose [in, out], or null, in
/// which case a transposed copy is made for this call when rows ≥ kTransposeWeightRows (so
/// passing one kept from call to call gives the same bits as not). y must not alias x.
void linearRows(const float *x, int64_t rows, int64_t in, const float *weight, const float *weightT,
                const float *bias, int64_t out, float *y);

/// Where the blocked attention's operands are, in elements: q [B, A, Sq, D], k [B, A, S, D],
/// v [B, A, S, Dv] each with a unit last stride and the strides below (batch, head, position), and
/// the context [B, A, Sq, Dv] written as [B, Sq, A, Dv] (heads side by side).
struct AttentionGeometry
{
    int64_t batch = 0, heads = 0, sq = 0, s = 0, d = 0, dv = 0;
    int64_t qStride[3] = {}, kStride[3] = {}, vStride[3] = {};
};

/// The longest row of attention scores the blocked attention takes (keys per query: one
/// dropoutScales call, a row buffer on the stack).
constexpr int64_t kMaxAttentionKeys = 2048;

/// The largest number of heads whose [heads, sq, s] score matrices fit 256 KB and divide `heads`
/// (at least one): a block of blockedAttentionForward.
int64_t attentionHeadsPerBlock(int64_t heads, int64_t sq, int64_t s);

/// The attention's forward pass a block of heads of one batch element at a time (nn::blockedAttention):
/// scores = scale·q·kᵀ on oneDNN's matmul primitive, P = softmax(scores + maskBias) per row
/// (maskBias [B, S]), Out = P·m/(1 − p) with the dropout mask m of `seed` (element i of P's
/// contiguous [B, A, Sq, S] order; p = 0: no dropout), context = Out·v. probs: where P is kept,
/// contiguous [B, A, Sq, S] (the backward pass reads it), or null (each block's P in a buffer of
/// its thread). 0 ≤ p < 1, 1 ≤ S ≤ 2048. Threads: the blocks on at::parallel_for, each product on
/// one thread inside the region; the bits do not depend on the thread count. Throws dnnl::error
/// on a oneDNN failure.
void blockedAttentionForward(const AttentionGeometry &g, const float *q, const float *k, const float *v,
                             const float *maskBias, float scale, double p, uint64_t seed, float *probs,
                             float *context);

} // namespace wb::nn::kernels
