// SPDX-License-Identifier: Apache-2.0
// The attention of the fp32 training step a block of heads at a time, its score matrices kept in
// cache: nn::blockedAttention.
#include "core/kernels/dnnlmatmul.h"
#include "core/kernels/fusedcommon.h"
#include "core/kernels/fusedops.h"
#include "core/kernels/rawforward.h"
#include "core/kernels/rowkernels.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <vector>

namespace wb::nn {

namespace {


using detail::Keep;
using detail::emptyLaidOutAs;
using detail::isCpuFloat;

/// The shapes of one call: q [B, A, Sq, D], k [B, A, S, D], v [B, A, S, Dv]; blocks of G heads.
struct Dims
{
    explicit Dims(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v)
        : batch(q.size(0)), heads(q.size(1)), sq(q.size(2)), d(q.size(3)), s(k.size(2)), dv(v.size(3)),
          group(kernels::attentionHeadsPerBlock(heads, sq, s)), blocks(batch * (heads / group))
    {
    }
    int64_t batch, heads, sq, d, s, dv, group, blocks;
    /// Block i's first head's offset in a [B, A, …] tensor `t`, and its first row of scores.
    int64_t offset(const torch::Tensor &t, int64_t i) const
    {
        return (i / (heads / group)) * t.stride(0) + (i % (heads / group)) * group * t.stride(1);
    }
    int64_t firstRow(int64_t i) const { return i * group * sq; }
    int64_t batchOf(int64_t i) const { return i / (heads / group); }
};

/// One of the block's products (plan.run), marked as a product for profilers: the benchmark's
/// GEMM share counts it, the softmax and dropout around it stay in the calling function's time.
void runProduct(const MatmulPlan &plan, const float *a, const float *b, float *out)
{
    RECORD_FUNCTION("wb::attention_matmul", std::vector<c10::IValue>());
    plan.run(a, b, out);
}

/// A block of `g` heads of [B, A, m, n] tensor t as oneDNN sees it: [g, m, n], or [g, n, m]
/// (its transpose) read in place.
MatmulLayout heads(const torch::Tensor &t, int64_t g, bool transposed = false)
{
    if (transposed)
        return {{g, t.size(3), t.size(2)}, {t.stride(1), t.stride(3), t.stride(2)}};
    return {{g, t.size(2), t.size(3)}, {t.stride(1), t.stride(2), t.stride(3)}};
}

/// A block's [g, m, n] scratch matrices, contiguous, or their transpose [g, n, m].
MatmulLayout scratch(int64_t g, int64_t m, int64_t n, bool transposed = false)
{
    if (transposed)
        return {{g, n, m}, {m * n, 1, n}};
    return {{g, m, n}, {m * n, n, 1}};
}

/// `t` with a unit last stride (itself when it has one).
torch::Tensor unitLastStride(const torch::Tensor &t)
{
    return t.stride(-1) == 1 ? t : t.contiguous();
}

struct BlockedAttentionFunction : public torch::autograd::Function<BlockedAttentionFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &q0, const torch::Tensor &k0,
                                 const torch::Tensor &v0, const torch::Tensor &maskBias, double scale, double p,
                                 int64_t seed)
    {
        RECORD_FUNCTION("wb::blocked_attention", std::vector<c10::IValue>());
        const torch::Tensor q = unitLastStride(q0), k = unitLastStride(k0), v = unitLastStride(v0);
        const torch::Tensor bias = maskBias.contiguous();
        const Dims n(q, k, v);
        torch::Tensor probs = torch::empty({n.batch, n.heads, n.sq, n.s}, q.options());
        // [B, A, Sq, Dv] stored as [B, Sq, A, Dv]: the heads' outputs side by side.
        torch::Tensor context =
            at::empty_strided({n.batch, n.heads, n.sq, n.dv}, {n.sq * n.heads * n.dv, n.dv, n.heads * n.dv, 1}, q.options());
        kernels::AttentionGeometry geometry;
        geometry.batch = n.batch;
        geometry.heads = n.heads;
        geometry.sq = n.sq;
        geometry.s = n.s;
        geometry.d = n.d;
        geometry.dv = n.dv;
        for (int i = 0; i < 3; ++i) {
            geometry.qStride[i] = q.stride(i);
            geometry.kStride[i] = k.stride(i);
            geometry.vStride[i] = v.stride(i);
        }
        kernels::blockedAttentionForward(geometry, q.data_ptr<float>(), k.data_ptr<float>(), v.data_ptr<float>(),
                                         bias.data_ptr<float>(), float(scale), p, uint64_t(seed),
                                         probs.data_ptr<float>(), context.data_ptr<float>());
        ctx->save_for_backward({q, k, v, probs});
        ctx->saved_data["scale"] = scale;
        ctx->saved_data["p"] = p;
        ctx->saved_data["seed"] = seed;
        return context;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        RECORD_FUNCTION("wb::blocked_attention_backward", std::vector<c10::IValue>());
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &probs = saved[3];
        const float scale = float(ctx->saved_data["scale"].toDouble());
        const Keep keep(ctx->saved_data["p"].toDouble());
        const uint64_t seed = uint64_t(ctx->saved_data["seed"].toInt());
        const torch::Tensor dc = unitLastStride(grads[0]);
        const Dims n(q, k, v);
        const bool wantQ = ctx->needs_input_grad(0), wantK = ctx->needs_input_grad(1), wantV = ctx->needs_input_grad(2);
        torch::Tensor dq = wantQ ? emptyLaidOutAs(q) : torch::Tensor(), dk = wantK ? emptyLaidOutAs(k) : torch::Tensor(),
                      dv = wantV ? emptyLaidOutAs(v) : torch::Tensor();
        const float *pq = q.data_ptr<float>(), *pk = k.data_ptr<float>(), *pv = v.data_ptr<float>(),
                    *pp = probs.data_ptr<float>(), *pdc = dc.data_ptr<float>();
        at::internal::lazy_init_num_threads();
        at::parallel_for(0, n.blocks, 1, [&](int64_t from, int64_t to) {
            oneThreadPerProductInParallelRegion();
            const int64_t g = n.group;
            // dOut = dC·vᵀ; dS = softmax′(dOut·mask); dq = scale·dS·k; dk = scale·dSᵀ·q; dv = Outᵀ·dC
            const MatmulPlan gradOut = matmulPlan(heads(dc, g), heads(v, g, true), scratch(g, n.sq, n.s), 1.0f, 0.0f);
            MatmulPlan gradQ, gradK, gradV;
            if (wantQ)
                gradQ = matmulPlan(scratch(g, n.sq, n.s), heads(k, g), heads(dq, g), scale, 0.0f);
            if (wantK)
                gradK = matmulPlan(scratch(g, n.sq, n.s, true), heads(q, g), heads(dk, g), scale, 0.0f);
            if (wantV)
                gradV = matmulPlan(scratch(g, n.sq, n.s, true), heads(dc, g), heads(dv, g), 1.0f, 0.0f);
            // ds: dOut, then dS in place (with dropout); out: the dropped-out probabilities, or
            // dS (without dropout, where Out = P is read from probs).
            std::vector<float> ds(size_t(g * n.sq * n.s)), out(ds.size());
            float dp[kernels::kMaxAttentionKeys];
            for (int64_t i = from; i < to; ++i) {
                runProduct(gradOut, pdc + n.offset(dc, i), pv + n.offset(v, i), ds.data());
                const int64_t row0 = n.firstRow(i);
                const float *blockProbs = pp + row0 * n.s;
                float *dScores = keep.drop ? ds.data() : out.data();
                for (int64_t r = 0; r < g * n.sq; ++r) {
                    const float *prow = blockProbs + r * n.s;
                    const float *grad = ds.data() + r * n.s;
                    if (keep.drop) { // d(P) = d(Out)·mask, Out = P·mask: the mask recomputed from the seed
                        const int64_t first = (row0 + r) * n.s;
                        kernels::dropoutScales(dp, seed, first, first + n.s, keep.threshold, keep.scale);
                        float *orow = out.data() + r * n.s;
                        for (int64_t j = 0; j < n.s; ++j) {
                            orow[j] = prow[j] * dp[j];
                            dp[j] *= grad[j];
                        }
                        grad = dp;
                    }
                    kernels::softmaxRowBackward(prow, grad, dScores + r * n.s, n.s);
                }
                if (wantQ)
                    runProduct(gradQ, dScores, pk + n.offset(k, i), dq.data_ptr<float>() + n.offset(dq, i));
                if (wantK)
                    runProduct(gradK, dScores, pq + n.offset(q, i), dk.data_ptr<float>() + n.offset(dk, i));
                if (wantV)
                    runProduct(gradV, keep.drop ? out.data() : blockProbs, pdc + n.offset(dc, i),
                               dv.data_ptr<float>() + n.offset(dv, i));
            }
        });
        return {dq, dk, dv, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

bool blockedAttentionApplies(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                             const torch::Tensor &maskBias)
{
    if (!isCpuFloat(q) || !isCpuFloat(k) || !isCpuFloat(v) || !isCpuFloat(maskBias) || q.dim() != 4 || k.dim() != 4 ||
        v.dim() != 4 || maskBias.dim() != 4 || at::autocast::is_cpu_enabled())
        return false;
    const int64_t b = q.size(0), a = q.size(1), s = k.size(2);
    return k.size(0) == b && v.size(0) == b && k.size(1) == a && v.size(1) == a && v.size(2) == s &&
           k.size(3) == q.size(3) && q.size(2) >= 1 && q.size(3) >= 1 && v.size(3) >= 1 && s >= 1 && s <= kernels::kMaxAttentionKeys &&
           maskBias.size(0) == b && maskBias.size(1) == 1 && maskBias.size(2) == 1 && maskBias.size(3) == s;
}

torch::Tensor blockedAttention(const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
                               const torch::Tensor &maskBias, double scale, double p, uint64_t seed)
{
    TORCH_CHECK(blockedAttentionApplies(q, k, v, maskBias),
                "blockedAttention: expected float32 CPU q [B, A, Sq, D], k [B, A, S, D], v [B, A, S, Dv] and mask bias "
                "[B, 1, 1, S] with Sq, D, Dv ≥ 1, 1 ≤ S ≤ 2048 and autocast off; use fastBatchedMatmul and "
                "fusedAttentionSoftmax otherwise");
    TORCH_CHECK(p >= 0.0 && p < 1.0, "blockedAttention: dropout probability must be in [0, 1), got ", p);
    return BlockedAttentionFunction::apply(q, k, v, maskBias, scale, p, int64_t(seed));
}

} // namespace wb::nn
