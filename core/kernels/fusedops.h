// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include "core/kernels/dropouthash.h"

#include <torch/torch.h>

#include <array>

#include <cstdint>

namespace wb::nn {

/// The mask nn::dropout(x, p, …) applies, as a tensor: float32 [numel] with
/// 1/(1 − p) where element i is kept and 0 where it is dropped, for the seed the call drew.
/// The plain formula the fused kernel is tested against.
torch::Tensor dropoutMask(int64_t numel, double p, uint64_t seed);

/// Inverted dropout in one pass: y = x · m / (1 − p) with m_i = [dropoutHash(seed, i) >> 8 <
/// keepThreshold(1 − p)], i the element's index in x's contiguous (row-major) order. The
/// backward pass recomputes the mask from `seed` (nothing is saved but the seed) and gives
/// dy · m / (1 − p); it is itself differentiable. x: CPU, float32/float64/bfloat16/float16, any
/// shape; y is contiguous with x's shape and dtype (bf16/fp16 scaled in float32, then rounded).
/// 0 < p < 1. Multithreaded over at::parallel_for; the result does not depend on the thread count.
torch::Tensor fusedDropout(const torch::Tensor &x, double p, uint64_t seed);

/// True when fusedDropoutAdd applies: float32 CPU x and residual of one shape [..., n], and no
/// bias or a float32 CPU bias [n].
bool fusedDropoutAddApplies(const torch::Tensor &x, const torch::Tensor &residual,
                            const torch::Tensor &bias = torch::Tensor());

/// fusedDropout(x + bias, p, seed) + residual in one pass (the dropout before each residual
/// connection, with the bias of the product before it added here instead of in the product;
/// bias optional, [n] over x's last dim): the same mask, the sum rounded once per element more or
/// less as the ops would (the compiler may fuse the multiply-add). y contiguous, x's shape.
/// Backward: dx as fusedDropout's, d(residual) = dy, d(bias) = Σ_rows dx summed in the same pass
/// (64-row float blocks added in double). 0 < p < 1. Throws c10::Error otherwise or when
/// !fusedDropoutAddApplies. Differentiable twice only without a bias.
torch::Tensor fusedDropoutAdd(const torch::Tensor &x, const torch::Tensor &residual, double p, uint64_t seed,
                              const torch::Tensor &bias = torch::Tensor());

/// Where fastLinear's weight gradients dW = dyᵀ·x run (the products that sum over the batch's
/// rows, with a transposed operand): oneDNN's sgemm, or the BLAS libtorch links (at::mm).
/// Automatic: automaticWeightGradientLibrary().
enum class WeightGradientLibrary { Automatic, OneDnn, Blas };

/// Which products of the fp32 training step run on oneDNN (fastLinear in nn::Linear and the
/// pretraining decoder, fastBatchedMatmul in the attention), and which of its element-wise
/// passes are the fused ones below.
/// On by default. A process-wide
/// switch for the benchmark's A/B runs and for tests; set it before a step runs, not while one
/// does. (Off in session 9 while "other jobs do not change a run" failed intermittently with it
/// on; the likely cause, a matmul primitive executed on another thread than the one that built it,
/// and its fix are in docs/benchmarks.md, "The step on oneDNN".)
struct FastKernels
{
    bool linear = true;
    bool attention = true;
    bool gelu = true;    ///< fusedGelu for hidden_act "gelu" in the training step
    bool softmax = true; ///< fusedAttentionSoftmax in the attention (with `attention` on)
    /// fusedLayerNorm for the model's LayerNorms in the training step, and with `linear` and `bias`
    /// on, fusedAddNorm for the encoder layers' "add & norm".
    bool layerNorm = true;
    /// With `linear` on: the bias of the products followed by GELU (with `gelu` on) or by dropout
    /// and the residual connection added in that pass (fusedGelu, fusedDropoutAdd with a bias)
    /// instead of before the product.
    bool bias = true;
    /// With `linear` on: where the weight gradients run.
    WeightGradientLibrary weightGradients = WeightGradientLibrary::Automatic;
    /// With `attention` and `softmax` on: the attention as blockedAttention (a block of heads at a
    /// time, its score matrices in cache) instead of fastBatchedMatmul, fusedAttentionSoftmax and
    /// fastBatchedMatmul over the whole batch.
    bool blockedAttention = true;
};
void setFastKernels(FastKernels kernels);
FastKernels fastKernels();

/// What WeightGradientLibrary::Automatic is in this process: Blas where oneDNN runs with AVX2
/// but without AVX-512 (its effective ISA: the CPU's, or lower where ONEDNN_MAX_CPU_ISA asks) and
/// libtorch's BLAS is OpenBLAS or MKL; OneDnn otherwise. Measured on BERT-Mini's step
/// (docs/benchmarks.md, session 13): with oneDNN held to AVX2 its weight-gradient products
/// 256×4096×1024 ran at 45 GFLOP/s, OpenBLAS's at 90–98 (the step 0.80 s instead of 0.92 s);
/// with AVX-512 oneDNN's ran at 160+ and OpenBLAS's (AVX2 kernels) at 90; with SSE4.1 only,
/// oneDNN's step was 7 % faster than with OpenBLAS's Nehalem kernels. A function of the machine and the environment only, so a
/// run and its resume on one machine make the same choice (and the same bits). Thread-safe.
WeightGradientLibrary automaticWeightGradientLibrary();

/// automaticWeightGradientLibrary()'s rule for oneDNN's effective ISA `dnnlIsa` (a
/// dnnl_cpu_isa_t value) and libtorch's BLAS `blas` (as loadedBlas() names it).
WeightGradientLibrary weightGradientLibraryFor(unsigned dnnlIsa, const std::string &blas);

/// True when fastLinear computes linear(x, weight, bias): float32 CPU tensors, weight [out, in]
/// contiguous, bias [out] or undefined (no bias), autocast off (bf16/fp16 stay with ATen's
/// autocast rules).
bool fastLinearApplies(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias);

/// y = x·Wᵀ + b (torch::nn::functional::linear up to floating-point reassociation) with its
/// three products on oneDNN's sgemm, which on the model's shapes (4096×256·256×1024 and
/// the transposed backward products) runs 20–40 % faster than OpenBLAS on AVX-512
/// (docs/benchmarks.md, "GEMM shapes"). x [..., in] (any strides), weight [out, in], bias
/// [out] or undefined (y = x·Wᵀ: the bias added by the pass after the product), all float32 on
/// CPU (fastLinearApplies); y [..., out], contiguous. Backward: dx = dy·W,
/// dW = dyᵀ·x (computed as (xᵀ·dy)ᵀ when out > in, the orientation oneDNN runs faster),
/// db = Σ dy over the rows; not differentiable twice. Threads: oneDNN's OpenMP pool, the one
/// ATen's intra-op threads use (torch::set_num_threads). Throws c10::Error on a oneDNN failure.
torch::Tensor fastLinear(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias);

/// fastLinear(x, w0, b0), fastLinear(x, w1, b1), fastLinear(x, w2, b2) in one autograd node
/// (the attention's query, key and value of one input): the same products, and in the backward
/// pass x's gradient accumulated in the GEMMs (dx = dy₀·W₀ + dy₁·W₁ + dy₂·W₂, β = 1) rather than
/// three [rows, in] tensors added by the autograd engine. Shapes, threads and errors as fastLinear.
std::array<torch::Tensor, 3> fastLinear3(const torch::Tensor &x, const torch::Tensor &w0, const torch::Tensor &b0,
                                         const torch::Tensor &w1, const torch::Tensor &b1, const torch::Tensor &w2,
                                         const torch::Tensor &b2);

/// True when fastBatchedMatmul computes alpha·a·b + addend: a [batch..., m, k], b [batch..., k, n]
/// (1 or 2 batch dims, equal in both; any strides) float32 CPU, addend undefined or float32
/// [..., m, n] (any strides, e.g. an expanded view) whose leading dims multiply to the batch
/// (flattened row-major), autocast off.
bool fastBatchedMatmulApplies(const torch::Tensor &a, const torch::Tensor &b, const torch::Tensor &addend);

/// How fastBatchedMatmul lays out its result.
enum class BatchedOutput
{
    Contiguous,       ///< [batch..., m, n] row-major
    HeadsInterleaved, ///< [B, A, m, n] stored as [B, m, A, n]: y.transpose(1, 2).reshape({B, m, A·n}) is a view
};

/// y = alpha·a·b + addend (torch::baddbmm / torch::matmul up to floating-point reassociation) on
/// oneDNN's matmul primitive (one cached primitive a shape and layout) over the whole batch: the
/// attention products, 128 matrices of 128×64·64×128 in BERT-Mini, run 1.5–1.9× faster than
/// OpenBLAS's per-matrix calls (docs/benchmarks.md, "GEMM shapes"). Operands are read in place
/// when one of their last two strides is 1: the attention passes the heads as strided views of
/// the [B, S, H] projections ([B, A, S, D] with strides S·H, D, H, 1), and no head is copied.
/// y [batch..., m, n] as `layout` says. Backward: da = alpha·dy·bᵀ and db = alpha·aᵀ·dy, each
/// laid out as its operand where that is dense (so the views they flow back through are free),
/// d(addend) = dy in addend's shape; not differentiable twice. Threads as fastLinear. Throws
/// c10::Error when the operands do not fit (fastBatchedMatmulApplies) or oneDNN fails.
torch::Tensor fastBatchedMatmul(const torch::Tensor &a, const torch::Tensor &b, double alpha,
                                const torch::Tensor &addend = torch::Tensor(),
                                BatchedOutput layout = BatchedOutput::Contiguous);

/// True when fusedAttentionSoftmax applies: float32 CPU scores [B, A, Sq, S] with 1 ≤ S ≤ 2048
/// and a mask bias [B, 1, 1, S] (any strides).
bool fusedAttentionSoftmaxApplies(const torch::Tensor &scores, const torch::Tensor &maskBias);

/// The attention's probabilities in one pass per row: P = softmax(scores + maskBias) over the
/// last dim (the mask broadcast over heads and queries), then dropout with probability p and
/// the 64-bit `seed`: out = P · m / (1 − p), m exactly the mask fusedDropout(P, p, seed) applies
/// (element i of the contiguous [B, A, Sq, S] order). p = 0: out = P. Equals
/// fusedDropout(torch::softmax(scores + maskBias, -1), p, seed) up to the exponential's rounding
/// (about 1 ulp; a term more than 87 below its row's maximum is exactly 0, as masked keys are).
/// Backward: dP = dout · m / (1 − p), dscores = P ⊙ (dP − Σ P ⊙ dP) per row, the mask
/// recomputed from the seed; saves P only; no gradient for the mask bias. Not differentiable
/// twice. Multithreaded over rows; the result does not depend on the thread count.
/// Throws c10::Error when !fusedAttentionSoftmaxApplies or p is outside [0, 1).
torch::Tensor fusedAttentionSoftmax(const torch::Tensor &scores, const torch::Tensor &maskBias, double p, uint64_t seed);

/// True when blockedAttention applies: float32 CPU q [B, A, Sq, D], k [B, A, S, D], v [B, A, S, Dv]
/// (any strides) and a mask bias [B, 1, 1, S], with Sq, D, Dv ≥ 1 and 1 ≤ S ≤ 2048, autocast off.
bool blockedAttentionApplies(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                             const torch::Tensor &maskBias);

/// The attention of the fp32 training step in one node: context = Out·v with Out = P · m / (1 − p)
/// and P = softmax(scale·q·kᵀ + maskBias), the same values as
/// fastBatchedMatmul(fusedAttentionSoftmax(fastBatchedMatmul(q, kᵀ, scale), maskBias, p, seed), v)
/// (the same dropout mask m, element i of P's contiguous [B, A, Sq, S] order; the same products on
/// oneDNN's matmul primitive, here per block), but computed a block of heads of one batch element
/// at a time, so that a block's scores, probabilities and their gradients stay in cache between
/// the products and the row passes (a block: the most heads whose Sq × S matrices fit 256 KB,
/// a divisor of A; all 4 of BERT-Mini's at S = 128). Of the [B, A, Sq, S] tensors only P is
/// written to memory (saved for the backward pass); the batched path writes and reads five.
/// Returns [B, A, Sq, Dv] stored as [B, Sq, A, Dv] (context.transpose(1, 2).reshape({B, Sq, A·Dv})
/// is a view). Backward: dq = scale·dS·k, dk = scale·dSᵀ·q, dv = Outᵀ·dC with dS the softmax's
/// backward pass of dC·vᵀ·m / (1 − p) (the mask recomputed from the seed), each laid out as its
/// operand where that is dense; no gradient for the mask bias; not differentiable twice.
/// Measured on BERT-Mini's step: docs/benchmarks.md, "The attention in blocks".
/// Threads: the blocks on at::parallel_for, each product on one thread inside the parallel
/// region (on the calling thread's OpenMP threads when it runs inline); a run and its resume with
/// the same thread count give the same bits. Throws c10::Error when !blockedAttentionApplies or
/// p is outside [0, 1).
torch::Tensor blockedAttention(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                               const torch::Tensor &maskBias, double scale, double p, uint64_t seed);

/// True when fusedGelu computes gelu(x + bias): x a float32 CPU tensor, bias undefined or float32
/// CPU [x.size(-1)].
bool fusedGeluApplies(const torch::Tensor &x, const torch::Tensor &bias = torch::Tensor());

/// torch::gelu(x + bias) (the erf form, hidden_act "gelu"; bias optional, [n] added to each row of
/// x [..., n]: the intermediate product's bias, added here instead of before the product) with
/// its derivative computed in the same pass and saved for the backward pass, which is then one
/// multiplication (dx = dy · gelu′(x + b)) instead of ATen's gelu_backward, which evaluates erf
/// and exp again; with a bias the same pass also sums dx over the rows into the bias gradient
/// (64-row float blocks added in double, as the Linear's bias gradient is). Φ by Abramowitz &
/// Stegun 7.1.26 (|error| ≤ 1.5·10⁻⁷, as ATen's vectorised erf; with float rounding Φ is within
/// 4·10⁻⁷, tested): y within 4·10⁻⁷·|x| of the exact x·Φ(x), and as close to torch::gelu.
/// x: float32 CPU, any shape and strides; y contiguous, x's shape. Saves one tensor of x's size
/// (gelu′) instead of x. Not differentiable twice. Multithreaded over at::parallel_for; the
/// values do not depend on the thread count. Throws c10::Error when !fusedGeluApplies(x, bias).
torch::Tensor fusedGelu(const torch::Tensor &x, const torch::Tensor &bias = torch::Tensor());

/// True when fusedLayerNorm computes torch::layer_norm(x, {n}, weight, bias, eps): float32 CPU
/// x [..., n] with n ≥ 1, weight and bias float32 CPU [n], autocast off.
bool fusedLayerNormApplies(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias);

/// LayerNorm over the last dim, y = (x − μ)/√(σ² + eps)·weight + bias per row (μ, σ² the row's
/// mean and biased variance): torch::layer_norm's formula, in one vectorised pass per row forward
/// and one backward (dx, and the weight and bias gradients summed over the rows in 64-row float
/// blocks added in double), instead of ATen's generic kernels (docs/benchmarks.md, session 12).
/// Values within float rounding of torch::layer_norm (another summation order). Saves x
/// (contiguous) and each row's μ and 1/√(σ² + eps). y contiguous, x's shape. Not differentiable
/// twice. Multithreaded over rows; the result does not depend on the thread count. Throws
/// c10::Error when !fusedLayerNormApplies or eps < 0.
torch::Tensor fusedLayerNorm(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias,
                             double eps);

/// True when fusedAddNorm applies: fusedLayerNormApplies(x, weight, lnBias), residual float32
/// CPU of x's shape, bias float32 CPU [n].
bool fusedAddNormApplies(const torch::Tensor &x, const torch::Tensor &residual, const torch::Tensor &bias,
                         const torch::Tensor &weight, const torch::Tensor &lnBias);

/// fusedLayerNorm(fusedDropoutAdd(x, residual, p, seed, bias), weight, lnBias, eps) in one
/// autograd node and one pass per row each way (the transformer layer's "add & norm" after a
/// product that ran without its bias): the same dropout mask, the same values up to the
/// multiply-add's rounding. Saves the sum before the LayerNorm and each row's μ and
/// 1/√(σ² + eps) instead of the sum and the LayerNorm's output apart. Backward: d(sum) from the
/// LayerNorm, then dx = d(sum)·mask/keep in the same pass; d(residual) = d(sum); the bias,
/// weight and lnBias gradients summed over the rows in 64-row float blocks added in double.
/// y contiguous, x's shape. Not differentiable twice. Multithreaded over rows; the result does
/// not depend on the thread count. Throws c10::Error when !fusedAddNormApplies, p ∉ (0, 1) or
/// eps < 0.
torch::Tensor fusedAddNorm(const torch::Tensor &x, const torch::Tensor &residual, const torch::Tensor &bias, double p,
                           uint64_t seed, const torch::Tensor &weight, const torch::Tensor &lnBias, double eps);

} // namespace wb::nn
