// SPDX-License-Identifier: Apache-2.0
// The attention's softmax with the mask bias and the dropout in one pass: nn::fusedAttentionSoftmax.
#include "core/kernels/fusedcommon.h"
#include "core/kernels/fusedops.h"

#include "core/kernels/rowkernels.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

namespace wb::nn {

namespace {

constexpr int64_t kMaxRow = 2048; // the longest row (one dropoutScales call)

using detail::Keep;

struct AttentionSoftmaxFunction : public torch::autograd::Function<AttentionSoftmaxFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &scores0,
                                 const torch::Tensor &bias0, double p, int64_t seed)
    {
        const torch::Tensor scores = scores0.contiguous(), bias = bias0.contiguous();
        const int64_t n = scores.size(-1), rows = scores.numel() / n;
        const int64_t rowsPerBias = rows > 0 ? rows / (bias.numel() / n) : 1; // no batch: nothing to compute
        const Keep keep(p);
        torch::Tensor probs = torch::empty_like(scores), out = keep.drop ? torch::empty_like(scores) : probs;
        const float *ps = scores.data_ptr<float>(), *pb = bias.data_ptr<float>();
        float *pp = probs.data_ptr<float>(), *po = out.data_ptr<float>();
        at::parallel_for(0, rows, std::max<int64_t>(1, 4 * kMaxRow / n), [&](int64_t from, int64_t to) {
            float scale[kMaxRow];
            for (int64_t r = from; r < to; ++r) {
                float *row = pp + r * n;
                kernels::softmaxRow(ps + r * n, pb + (r / rowsPerBias) * n, row, n);
                if (keep.drop) { // the mask of element i = r·n + j, as fusedDropout(probs) draws it
                    kernels::dropoutScales(scale, uint64_t(seed), r * n, (r + 1) * n, keep.threshold, keep.scale);
                    for (int64_t j = 0; j < n; ++j)
                        po[r * n + j] = row[j] * scale[j];
                }
            }
        });
        ctx->save_for_backward({probs});
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        return out;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const torch::Tensor probs = ctx->get_saved_variables()[0], dout = grads[0].contiguous();
        const Keep keep(ctx->saved_data["p"].toDouble());
        const uint64_t seed = uint64_t(ctx->saved_data["seed"].toInt());
        const int64_t n = probs.size(-1), rows = probs.numel() / n;
        torch::Tensor dscores = torch::empty_like(probs);
        const float *pp = probs.data_ptr<float>(), *pd = dout.data_ptr<float>();
        float *px = dscores.data_ptr<float>();
        at::parallel_for(0, rows, std::max<int64_t>(1, 4 * kMaxRow / n), [&](int64_t from, int64_t to) {
            float dp[kMaxRow];
            for (int64_t r = from; r < to; ++r) {
                const float *g = pd + r * n;
                if (keep.drop) { // d(probs) = d(out) · mask / keep, the mask recomputed from the seed
                    kernels::dropoutScales(dp, seed, r * n, (r + 1) * n, keep.threshold, keep.scale);
                    for (int64_t j = 0; j < n; ++j)
                        dp[j] *= g[j];
                    g = dp;
                }
                kernels::softmaxRowBackward(pp + r * n, g, px + r * n, n);
            }
        });
        return {dscores, torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

bool fusedAttentionSoftmaxApplies(const torch::Tensor &scores, const torch::Tensor &maskBias)
{
    using detail::isCpuFloat;
    if (!isCpuFloat(scores) || !isCpuFloat(maskBias) || scores.dim() != 4 || maskBias.dim() != 4)
        return false;
    const int64_t n = scores.size(3);
    return n >= 1 && n <= kMaxRow && maskBias.size(0) == scores.size(0) && maskBias.size(1) == 1 &&
           maskBias.size(2) == 1 && maskBias.size(3) == n;
}

torch::Tensor fusedAttentionSoftmax(const torch::Tensor &scores, const torch::Tensor &maskBias, double p, uint64_t seed)
{
    TORCH_CHECK(fusedAttentionSoftmaxApplies(scores, maskBias),
                "fusedAttentionSoftmax: expected float32 CPU scores [B, A, Sq, S] (S ≤ 2048) and mask bias [B, 1, 1, S]; "
                "use torch::softmax otherwise");
    TORCH_CHECK(p >= 0.0 && p < 1.0, "fusedAttentionSoftmax: dropout probability must be in [0, 1), got ", p);
    return AttentionSoftmaxFunction::apply(scores, maskBias, p, int64_t(seed));
}

} // namespace wb::nn
