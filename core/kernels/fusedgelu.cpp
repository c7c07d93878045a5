// SPDX-License-Identifier: Apache-2.0
// GELU (the erf form) with its derivative computed in the forward pass: nn::fusedGelu.
#include "core/kernels/fusedops.h"

#include "core/kernels/rowblocks.h"
#include "core/kernels/rowkernels.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/custom_function.h>

namespace wb::nn {

namespace {

constexpr int64_t kGrain = 32768;

/// x [..., cols] (any strides) → y = gelu(x + bias), with gelu′ in g (both contiguous); bias
/// undefined (none) or [cols].
void geluForward(const torch::Tensor &x0, const torch::Tensor &bias0, torch::Tensor &y, torch::Tensor &g)
{
    const torch::Tensor x = x0.contiguous();
    y = torch::empty_like(x);
    g = torch::empty_like(x);
    const float *px = x.data_ptr<float>();
    float *py = y.data_ptr<float>(), *pg = g.data_ptr<float>();
    if (!bias0.defined()) {
        at::parallel_for(0, x.numel(), kGrain, [&](int64_t from, int64_t to) {
            kernels::geluWithDerivative(px + from, py + from, pg + from, to - from);
        });
        return;
    }
    const torch::Tensor bias = bias0.contiguous();
    const float *pb = bias.data_ptr<float>();
    const int64_t cols = bias.numel(), rows = cols > 0 ? x.numel() / cols : 0;
    at::parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(1, cols)), [&](int64_t from, int64_t to) {
        for (int64_t r = from; r < to; ++r)
            kernels::biasGeluRow(px + r * cols, pb, py + r * cols, pg + r * cols, cols);
    });
}

struct FusedGeluFunction : public torch::autograd::Function<FusedGeluFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x)
    {
        torch::Tensor y, g;
        geluForward(x, torch::Tensor(), y, g);
        ctx->save_for_backward({g});
        return y;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        return {grads[0] * ctx->get_saved_variables()[0]};
    }
};

/// gelu(x + bias): bias [cols] over x's last dim (an autograd function's inputs must all be
/// defined, so a node of its own).
struct FusedBiasGeluFunction : public torch::autograd::Function<FusedBiasGeluFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &bias)
    {
        torch::Tensor y, g;
        geluForward(x, bias, y, g);
        ctx->save_for_backward({g});
        return y;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        // dx = dy·gelu′ and the bias gradient Σ_rows dx in one pass (64-row blocks, as columnSums)
        const torch::Tensor g = ctx->get_saved_variables()[0];
        const torch::Tensor dy = grads[0].contiguous();
        torch::Tensor dx = torch::empty_like(g);
        const int64_t cols = g.size(-1), rows = cols > 0 ? g.numel() / cols : 0;
        const float *pdy = dy.data_ptr<float>(), *pg = g.data_ptr<float>();
        float *pdx = dx.data_ptr<float>();
        torch::Tensor db = sumOverRowBlocks(rows, cols, [&](int64_t from, int64_t to, float *partial) {
            for (int64_t r = from; r < to; ++r)
                kernels::mulRowAddTo(pdy + r * cols, pg + r * cols, pdx + r * cols, partial, cols);
        });
        return {dx, db};
    }
};

} // namespace

bool fusedGeluApplies(const torch::Tensor &x, const torch::Tensor &bias)
{
    const auto cpuFloat = [](const torch::Tensor &t) {
        return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided;
    };
    if (!cpuFloat(x))
        return false;
    return !bias.defined() || (cpuFloat(bias) && bias.dim() == 1 && x.dim() >= 1 && bias.size(0) == x.size(-1));
}

torch::Tensor fusedGelu(const torch::Tensor &x, const torch::Tensor &bias)
{
    RECORD_FUNCTION("wb::fused_gelu", std::vector<c10::IValue>()); // its forward pass, for profilers
    TORCH_CHECK(fusedGeluApplies(x, bias),
                "fusedGelu: expected a float32 CPU tensor x [..., n] and no bias or a float32 bias [n]; "
                "use torch::gelu otherwise");
    return bias.defined() ? FusedBiasGeluFunction::apply(x, bias) : FusedGeluFunction::apply(x);
}

} // namespace wb::nn
