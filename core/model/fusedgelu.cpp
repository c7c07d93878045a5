// SPDX-License-Identifier: Apache-2.0
// GELU (the erf form) with its derivative computed in the forward pass: nn::fusedGelu.
#include "core/model/fusedops.h"

#include "core/model/rowkernels.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

namespace wb::nn {

namespace {

constexpr int64_t kGrain = 32768;

struct FusedGeluFunction : public torch::autograd::Function<FusedGeluFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x0)
    {
        const torch::Tensor x = x0.contiguous();
        torch::Tensor y = torch::empty_like(x), g = torch::empty_like(x);
        const float *px = x.data_ptr<float>();
        float *py = y.data_ptr<float>(), *pg = g.data_ptr<float>();
        at::parallel_for(0, x.numel(), kGrain, [&](int64_t from, int64_t to) {
            kernels::geluWithDerivative(px + from, py + from, pg + from, to - from);
        });
        ctx->save_for_backward({g});
        return y;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        return {grads[0] * ctx->get_saved_variables()[0]};
    }
};

} // namespace

bool fusedGeluApplies(const torch::Tensor &x)
{
    return x.defined() && x.device().is_cpu() && x.scalar_type() == torch::kFloat && x.layout() == torch::kStrided;
}

torch::Tensor fusedGelu(const torch::Tensor &x)
{
    TORCH_CHECK(fusedGeluApplies(x), "fusedGelu: expected a float32 CPU tensor; use torch::gelu otherwise");
    return FusedGeluFunction::apply(x);
}

} // namespace wb::nn
