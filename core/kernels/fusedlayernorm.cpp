// SPDX-License-Identifier: Apache-2.0
// LayerNorm over the last dim, one vectorised pass per row each way: nn::fusedLayerNorm, and with
// the bias, dropout and residual connection before it in the same pass: nn::fusedAddNorm.
#include "core/kernels/fusedops.h"

#include "core/kernels/dropouthash.h"

#include "core/kernels/rowblocks.h"
#include "core/kernels/rowkernels.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/custom_function.h>

namespace wb::nn {

namespace {

constexpr int64_t kGrain = 32768; // elements a task covers at least

int64_t rowGrain(int64_t cols)
{
    return std::max<int64_t>(1, kGrain / std::max<int64_t>(1, cols));
}

struct FusedLayerNormFunction : public torch::autograd::Function<FusedLayerNormFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x0,
                                 const torch::Tensor &weight0, const torch::Tensor &bias0, double eps)
    {
        const torch::Tensor x = x0.contiguous(), weight = weight0.contiguous(), bias = bias0.contiguous();
        const int64_t cols = x.size(-1), rows = x.numel() / cols;
        torch::Tensor y = torch::empty_like(x), stats = torch::empty({rows, 2}, x.options());
        const float *px = x.data_ptr<float>(), *pw = weight.data_ptr<float>(), *pb = bias.data_ptr<float>();
        float *py = y.data_ptr<float>(), *ps = stats.data_ptr<float>();
        at::parallel_for(0, rows, rowGrain(cols), [&](int64_t from, int64_t to) {
            for (int64_t r = from; r < to; ++r)
                kernels::layerNormRow(px + r * cols, pw, pb, float(eps), py + r * cols, ps + 2 * r, cols);
        });
        ctx->save_for_backward({x, weight, stats});
        return y;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x = saved[0], &weight = saved[1], &stats = saved[2];
        const torch::Tensor dy = grads[0].contiguous();
        const int64_t cols = x.size(-1), rows = x.numel() / cols;
        torch::Tensor dx = torch::empty_like(x);
        const float *pdy = dy.data_ptr<float>(), *px = x.data_ptr<float>(), *pw = weight.data_ptr<float>(),
                    *ps = stats.data_ptr<float>();
        float *pdx = dx.data_ptr<float>();
        // The weight's gradient in partial[0, cols), the bias's in partial[cols, 2·cols).
        const torch::Tensor sums = sumOverRowBlocks(rows, 2 * cols, [&](int64_t from, int64_t to, float *partial) {
            for (int64_t r = from; r < to; ++r)
                kernels::layerNormRowBackward(pdy + r * cols, px + r * cols, pw, ps + 2 * r, pdx + r * cols, partial,
                                              partial + cols, cols);
        });
        return {dx, sums.narrow(0, 0, cols), sums.narrow(0, cols, cols), torch::Tensor()};
    }
};

constexpr int64_t kMaskBlock = 2048; // dropoutScales' largest span

/// LayerNorm((x + bias)·mask/keep + residual): the layer's "add & norm" in one node. Per row:
/// the sum s (saved for the backward pass), then the row's LayerNorm while s is in L1.
struct FusedAddNormFunction : public torch::autograd::Function<FusedAddNormFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x0,
                                 const torch::Tensor &residual0, const torch::Tensor &bias0,
                                 const torch::Tensor &weight0, const torch::Tensor &lnBias0, double p, int64_t seed,
                                 double eps)
    {
        const torch::Tensor x = x0.contiguous(), residual = residual0.contiguous(), bias = bias0.contiguous(),
                            weight = weight0.contiguous(), lnBias = lnBias0.contiguous();
        const int64_t cols = x.size(-1), rows = x.numel() / cols;
        torch::Tensor sum = torch::empty_like(x), y = torch::empty_like(x), stats = torch::empty({rows, 2}, x.options());
        const float *px = x.data_ptr<float>(), *pr = residual.data_ptr<float>(), *pb = bias.data_ptr<float>(),
                    *pw = weight.data_ptr<float>(), *plb = lnBias.data_ptr<float>();
        float *ps = sum.data_ptr<float>(), *py = y.data_ptr<float>(), *pst = stats.data_ptr<float>();
        const uint32_t threshold = keepThreshold(1.0 - p);
        const float s = float(1.0 / (1.0 - p));
        at::parallel_for(0, rows, rowGrain(cols), [&](int64_t from, int64_t to) {
            float scale[kMaskBlock];
            for (int64_t r = from; r < to; ++r) {
                for (int64_t c = 0; c < cols; c += kMaskBlock) {
                    const int64_t n = std::min(kMaskBlock, cols - c), i = r * cols + c;
                    kernels::dropoutScales(scale, uint64_t(seed), i, i + n, threshold, s);
                    kernels::biasDropoutAddRow(px + i, pb + c, scale, pr + i, ps + i, n);
                }
                kernels::layerNormRow(ps + r * cols, pw, plb, float(eps), py + r * cols, pst + 2 * r, cols);
            }
        });
        ctx->save_for_backward({sum, weight, stats});
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        return y;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &sum = saved[0], &weight = saved[1], &stats = saved[2];
        const double p = ctx->saved_data["p"].toDouble();
        const uint64_t seed = uint64_t(ctx->saved_data["seed"].toInt());
        const torch::Tensor dy = grads[0].contiguous();
        const int64_t cols = sum.size(-1), rows = sum.numel() / cols;
        torch::Tensor dsum = torch::empty_like(sum), dx = torch::empty_like(sum);
        const float *pdy = dy.data_ptr<float>(), *ps = sum.data_ptr<float>(), *pw = weight.data_ptr<float>(),
                    *pst = stats.data_ptr<float>();
        float *pds = dsum.data_ptr<float>(), *pdx = dx.data_ptr<float>();
        const uint32_t threshold = keepThreshold(1.0 - p);
        const float s = float(1.0 / (1.0 - p));
        // partial: the LayerNorm weight's gradient, its bias's, then the product bias's.
        const torch::Tensor sums = sumOverRowBlocks(rows, 3 * cols, [&](int64_t from, int64_t to, float *partial) {
            float scale[kMaskBlock];
            for (int64_t r = from; r < to; ++r) {
                kernels::layerNormRowBackward(pdy + r * cols, ps + r * cols, pw, pst + 2 * r, pds + r * cols, partial,
                                              partial + cols, cols);
                for (int64_t c = 0; c < cols; c += kMaskBlock) {
                    const int64_t n = std::min(kMaskBlock, cols - c), i = r * cols + c;
                    kernels::dropoutScales(scale, seed, i, i + n, threshold, s);
                    kernels::mulRowAddTo(pds + i, scale, pdx + i, partial + 2 * cols + c, n);
                }
            }
        });
        return {dx,
                dsum,
                sums.narrow(0, 2 * cols, cols),
                sums.narrow(0, 0, cols),
                sums.narrow(0, cols, cols),
                torch::Tensor(),
                torch::Tensor(),
                torch::Tensor()};
    }
};

bool isCpuFloat(const torch::Tensor &t)
{
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided;
}

} // namespace

bool fusedLayerNormApplies(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias)
{
    return isCpuFloat(x) && isCpuFloat(weight) && isCpuFloat(bias) && x.dim() >= 1 && x.size(-1) >= 1 &&
           weight.dim() == 1 && bias.dim() == 1 && weight.size(0) == x.size(-1) && bias.size(0) == x.size(-1) &&
           !at::autocast::is_cpu_enabled();
}

bool fusedAddNormApplies(const torch::Tensor &x, const torch::Tensor &residual, const torch::Tensor &bias,
                         const torch::Tensor &weight, const torch::Tensor &lnBias)
{
    return fusedLayerNormApplies(x, weight, lnBias) && isCpuFloat(residual) && residual.sizes() == x.sizes() &&
           isCpuFloat(bias) && bias.dim() == 1 && bias.size(0) == x.size(-1);
}

torch::Tensor fusedAddNorm(const torch::Tensor &x, const torch::Tensor &residual, const torch::Tensor &bias, double p,
                           uint64_t seed, const torch::Tensor &weight, const torch::Tensor &lnBias, double eps)
{
    RECORD_FUNCTION("wb::fused_add_layer_norm", std::vector<c10::IValue>()); // its forward pass, for profilers
    TORCH_CHECK(fusedAddNormApplies(x, residual, bias, weight, lnBias),
                "fusedAddNorm: expected float32 CPU tensors x and residual of one shape [..., n] (n ≥ 1), bias, weight "
                "and LayerNorm bias [n], with autocast off; use fusedLayerNorm(fusedDropoutAdd(…)) otherwise");
    TORCH_CHECK(p > 0.0 && p < 1.0, "fusedAddNorm: dropout probability must be in (0, 1), got ", p);
    TORCH_CHECK(eps >= 0.0, "fusedAddNorm: eps must be ≥ 0, not ", eps);
    return FusedAddNormFunction::apply(x, residual, bias, weight, lnBias, p, int64_t(seed), eps);
}

torch::Tensor fusedLayerNorm(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias, double eps)
{
    RECORD_FUNCTION("wb::fused_layer_norm", std::vector<c10::IValue>()); // its forward pass, for profilers
    TORCH_CHECK(fusedLayerNormApplies(x, weight, bias),
                "fusedLayerNorm: expected float32 CPU tensors x [..., n] (n ≥ 1), weight [n] and bias [n] with "
                "autocast off; use torch::layer_norm otherwise");
    TORCH_CHECK(eps >= 0.0, "fusedLayerNorm: eps must be ≥ 0, not ", eps);
    return FusedLayerNormFunction::apply(x, weight, bias, eps);
}

} // namespace wb::nn
