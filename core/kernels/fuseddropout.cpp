// SPDX-License-Identifier: Apache-2.0
// Dropout by a counter-based mask (nn::fusedDropout, nn::dropoutMask), and with the bias before
// it and the residual connection after it in one pass (nn::fusedDropoutAdd).
#include "core/kernels/fusedops.h"

#include "core/kernels/rowblocks.h"
#include "core/kernels/rowkernels.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <utility>

namespace wb::nn {

namespace {

// Index blocks of one kernel call: small enough to stay in L1, large enough to vectorise.
constexpr int64_t kBlock = 2048;
constexpr int64_t kGrain = 32768;

/// out = in · mask(seed) / keep over contiguous buffers of n elements.
template<typename T>
void applyMask(const T *in, T *out, int64_t n, double p, uint64_t seed)
{
    const uint32_t threshold = keepThreshold(1.0 - p);
    const float s = float(1.0 / (1.0 - p));
    at::parallel_for(0, n, kGrain, [&](int64_t from, int64_t to) {
        float scale[kBlock];
        for (int64_t b = from; b < to; b += kBlock) {
            const int64_t e = std::min(to, b + kBlock);
            kernels::dropoutScales(scale, seed, b, e, threshold, s);
            const T *src = in + b;
            T *dst = out + b;
            for (int64_t j = 0; j < e - b; ++j)
                dst[j] = T(float(src[j]) * scale[j]);
        }
    });
}

template<>
void applyMask<double>(const double *in, double *out, int64_t n, double p, uint64_t seed)
{
    const uint32_t threshold = keepThreshold(1.0 - p);
    const double s = 1.0 / (1.0 - p);
    at::parallel_for(0, n, kGrain, [&](int64_t from, int64_t to) {
        float scale[kBlock];
        for (int64_t b = from; b < to; b += kBlock) {
            const int64_t e = std::min(to, b + kBlock);
            kernels::dropoutScales(scale, seed, b, e, threshold, 1.0f);
            for (int64_t j = 0; j < e - b; ++j)
                out[b + j] = scale[j] != 0.0f ? in[b + j] * s : 0.0;
        }
    });
}

torch::Tensor maskedCopy(const torch::Tensor &x, double p, uint64_t seed)
{
    const torch::Tensor in = x.contiguous();
    torch::Tensor out = at::empty_like(in, at::MemoryFormat::Contiguous);
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kBFloat16, at::kHalf, in.scalar_type(), "wb_fused_dropout", [&] {
        applyMask<scalar_t>(in.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), in.numel(), p, seed);
    });
    return out;
}

struct FusedDropoutFunction : public torch::autograd::Function<FusedDropoutFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x, double p, int64_t seed)
    {
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        return maskedCopy(x, p, uint64_t(seed));
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const double p = ctx->saved_data["p"].toDouble();
        const int64_t seed = ctx->saved_data["seed"].toInt();
        // The same mask on the gradient; through apply() so a double backward works too.
        return {FusedDropoutFunction::apply(grads[0], p, seed), torch::Tensor(), torch::Tensor()};
    }
};

/// out = (x + bias) · mask(seed) / keep + residual (bias undefined: x alone): float32, x and
/// residual of one shape, bias [cols] over x's last dim; one pass. With a bias the mask is drawn
/// a row at a time (the same elements: the mask depends on the element's index only).
torch::Tensor maskedAdd(const torch::Tensor &x, const torch::Tensor &residual, double p, uint64_t seed,
                        const torch::Tensor &bias)
{
    const torch::Tensor in = x.contiguous(), res = residual.contiguous();
    torch::Tensor out = at::empty_like(in, at::MemoryFormat::Contiguous);
    const float *src = in.data_ptr<float>(), *add = res.data_ptr<float>();
    float *dst = out.data_ptr<float>();
    const uint32_t threshold = keepThreshold(1.0 - p);
    const float s = float(1.0 / (1.0 - p));
    if (bias.defined()) {
        const torch::Tensor b = bias.contiguous();
        const float *pb = b.data_ptr<float>();
        const int64_t cols = b.numel(), rows = cols > 0 ? in.numel() / cols : 0;
        at::parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, cols)), [&](int64_t from, int64_t to) {
            float scale[kBlock];
            for (int64_t r = from; r < to; ++r)
                for (int64_t c = 0; c < cols; c += kBlock) {
                    const int64_t n = std::min(kBlock, cols - c), i = r * cols + c;
                    kernels::dropoutScales(scale, seed, i, i + n, threshold, s);
                    kernels::biasDropoutAddRow(src + i, pb + c, scale, add + i, dst + i, n);
                }
        });
        return out;
    }
    at::parallel_for(0, in.numel(), kGrain, [&](int64_t from, int64_t to) {
        float scale[kBlock];
        for (int64_t b = from; b < to; b += kBlock) {
            const int64_t e = std::min(to, b + kBlock);
            kernels::dropoutScales(scale, seed, b, e, threshold, s);
            for (int64_t j = 0; j < e - b; ++j)
                dst[b + j] = src[b + j] * scale[j] + add[b + j];
        }
    });
    return out;
}

/// The gradient of x and of the bias of maskedAdd: dx = dy · mask / keep and db = Σ_rows dx, in
/// one pass (64-row blocks, as the Linear's bias gradient).
std::pair<torch::Tensor, torch::Tensor> maskedGradientAndColumnSums(const torch::Tensor &grad, int64_t cols, double p,
                                                                    uint64_t seed)
{
    const torch::Tensor dy = grad.contiguous();
    torch::Tensor dx = at::empty_like(dy, at::MemoryFormat::Contiguous);
    const float *pdy = dy.data_ptr<float>();
    float *pdx = dx.data_ptr<float>();
    const uint32_t threshold = keepThreshold(1.0 - p);
    const float s = float(1.0 / (1.0 - p));
    const int64_t rows = cols > 0 ? dy.numel() / cols : 0;
    torch::Tensor db = sumOverRowBlocks(rows, cols, [&](int64_t from, int64_t to, float *partial) {
        float scale[kBlock];
        for (int64_t r = from; r < to; ++r)
            for (int64_t c = 0; c < cols; c += kBlock) {
                const int64_t n = std::min(kBlock, cols - c), i = r * cols + c;
                kernels::dropoutScales(scale, seed, i, i + n, threshold, s);
                kernels::mulRowAddTo(pdy + i, scale, pdx + i, partial + c, n);
            }
    });
    return {dx, db};
}

struct FusedDropoutAddFunction : public torch::autograd::Function<FusedDropoutAddFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &residual, double p, int64_t seed)
    {
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        return maskedAdd(x, residual, p, uint64_t(seed), torch::Tensor());
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const double p = ctx->saved_data["p"].toDouble();
        const int64_t seed = ctx->saved_data["seed"].toInt();
        return {FusedDropoutFunction::apply(grads[0], p, seed), grads[0], torch::Tensor(), torch::Tensor()};
    }
};

/// With a bias [cols] before the dropout (an autograd function's inputs must all be defined,
/// so a node of its own).
struct FusedBiasDropoutAddFunction : public torch::autograd::Function<FusedBiasDropoutAddFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &residual, const torch::Tensor &bias, double p, int64_t seed)
    {
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        ctx->saved_data["cols"] = bias.numel();
        return maskedAdd(x, residual, p, uint64_t(seed), bias);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const double p = ctx->saved_data["p"].toDouble();
        const int64_t seed = ctx->saved_data["seed"].toInt(), cols = ctx->saved_data["cols"].toInt();
        auto [dx, db] = maskedGradientAndColumnSums(grads[0], cols, p, uint64_t(seed));
        return {dx.view(grads[0].sizes()), grads[0], db, torch::Tensor(), torch::Tensor()};
    }
};

bool isCpuFloat(const torch::Tensor &t)
{
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided;
}

} // namespace

torch::Tensor dropoutMask(int64_t numel, double p, uint64_t seed)
{
    torch::Tensor ones = torch::ones({numel});
    torch::NoGradGuard guard;
    return maskedCopy(ones, p, seed);
}

bool fusedDropoutAddApplies(const torch::Tensor &x, const torch::Tensor &residual, const torch::Tensor &bias)
{
    if (!isCpuFloat(x) || !isCpuFloat(residual) || x.sizes() != residual.sizes())
        return false;
    return !bias.defined() || (isCpuFloat(bias) && bias.dim() == 1 && x.dim() >= 1 && bias.size(0) == x.size(-1));
}

torch::Tensor fusedDropoutAdd(const torch::Tensor &x, const torch::Tensor &residual, double p, uint64_t seed,
                              const torch::Tensor &bias)
{
    TORCH_CHECK(fusedDropoutAddApplies(x, residual, bias),
                "fusedDropoutAdd: expected float32 CPU tensors x and residual of one shape [..., n] and no bias or a "
                "float32 bias [n]; use fusedDropout(x + bias) + residual otherwise");
    TORCH_CHECK(p > 0.0 && p < 1.0, "fusedDropoutAdd: dropout probability must be in (0, 1), got ", p);
    return bias.defined() ? FusedBiasDropoutAddFunction::apply(x, residual, bias, p, int64_t(seed))
                          : FusedDropoutAddFunction::apply(x, residual, p, int64_t(seed));
}

torch::Tensor fusedDropout(const torch::Tensor &x, double p, uint64_t seed)
{
    return FusedDropoutFunction::apply(x, p, int64_t(seed));
}

} // namespace wb::nn
