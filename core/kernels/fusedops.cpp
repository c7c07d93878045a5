// SPDX-License-Identifier: Apache-2.0
#include "core/kernels/fusedops.h"

#include "core/kernels/dnnlmatmul.h"
#include "core/kernels/fusedcommon.h"
#include "core/kernels/rawforward.h"
#include "core/kernels/rowblocks.h"
#include "core/kernels/rowkernels.h"
#include "core/util/blaslibrary.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/custom_function.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <tuple>

namespace wb::nn {

namespace {

/// Row-major C[m,n] = op(A)·op(B) + beta·C with oneDNN (kernels::dnnlGemm).
void sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float beta, float *c)
{
    kernels::dnnlGemm(ta, tb, m, n, k, a, b, beta, c);
}

/// The bias gradient Σ_rows dy: dy contiguous float32 [rows, cols] → [cols]. One sweep over dy
/// in row order (ATen's dy.sum(0) reads it at under half the memory bandwidth on these shapes),
/// float partial sums of 64 rows added in double (sumOverRowBlocks, as the fused passes' bias
/// gradients), so the result is as accurate as a pairwise sum and does not depend on the number
/// of threads.
torch::Tensor columnSums(const torch::Tensor &dy)
{
    const int64_t rows = dy.size(0), cols = dy.size(1);
    const float *src = dy.data_ptr<float>();
    return sumOverRowBlocks(rows, cols, [&](int64_t from, int64_t to, float *partial) {
        for (int64_t r = from; r < to; ++r)
            kernels::addRowTo(src + r * cols, partial, cols);
    });
}

/// x2·Wᵀ + b for x2 [rows, in] contiguous, W [out, in], b [out] (or undefined: none): y [rows, out]
/// (kernels::linearRows, the inference forward pass's too).
torch::Tensor linearRows(const torch::Tensor &x2, const torch::Tensor &weight, const torch::Tensor &bias)
{
    const int64_t in = weight.size(1), out = weight.size(0), rows = x2.size(0);
    torch::Tensor y = torch::empty({rows, out}, x2.options());
    const torch::Tensor b = bias.defined() ? bias.contiguous() : bias;
    kernels::linearRows(x2.data_ptr<float>(), rows, in, weight.data_ptr<float>(), nullptr,
                        b.defined() ? b.data_ptr<float>() : nullptr, out, y.data_ptr<float>());
    return y;
}

/// dx = dy·W + beta·dx for dy [rows, out] contiguous, W [out, in], dx [rows, in] contiguous.
void inputGradient(const torch::Tensor &dy, const torch::Tensor &weight, float beta, torch::Tensor &dx)
{
    const int64_t in = weight.size(1), out = weight.size(0), rows = dy.size(0);
    if (rows > 0 && out > 0 && in > 0)
        sgemm('N', 'N', rows, in, out, dy.data_ptr<float>(), weight.data_ptr<float>(), beta, dx.data_ptr<float>());
    else if (beta == 0.0f)
        dx.zero_();
}

bool weightGradientsOnBlas();

/// dW = dyᵀ·x2 [out, in] on libtorch's BLAS, its rows split over the run's intra-op threads, each
/// part a one-thread BLAS call (OpenBLAS is held to one thread of its own). OpenBLAS's own thread
/// pool beside libtorch's OpenMP threads ran BERT-Mini's weight gradients no faster on two threads
/// than on one (240.7 and 231.1 ms a step on an AVX2 EPYC, docs/benchmarks.md, "Two threads on
/// another CPU"). The parts are fixed by the thread count, so a thread count gives the same bits
/// run after run; OpenBLAS's sums depend on the row count it is given (as they did on its own
/// threads), so another thread count gives other last bits (tst_fusedrows
/// weightGradientsOnEitherLibrary).
torch::Tensor weightGradientOnBlas(const torch::Tensor &dy, const torch::Tensor &x2)
{
    constexpr int64_t kRowAlign = 16; // parts start on whole vectors of the BLAS kernels' rows
    const int64_t in = x2.size(1), out = dy.size(1);
    setOpenBlasThreads(1);
    torch::Tensor dw = torch::empty({out, in}, dy.options());
    const int64_t threads = at::in_parallel_region() ? 1 : at::get_num_threads();
    const int64_t part = (out + threads - 1) / threads;
    const int64_t rows = std::max(kRowAlign, (part + kRowAlign - 1) / kRowAlign * kRowAlign);
    if (threads <= 1 || rows >= out) {
        torch::mm_out(dw, dy.t(), x2);
        return dw;
    }
    at::parallel_for(0, (out + rows - 1) / rows, 1, [&](int64_t from, int64_t to) {
        const at::NoGradGuard noGrad; // grad mode is per thread: the pool's threads have it on
        for (int64_t i = from; i < to; ++i) {
            const int64_t r0 = i * rows, n = std::min(rows, out - r0);
            torch::Tensor rowsOfDw = dw.narrow(0, r0, n);
            torch::mm_out(rowsOfDw, dy.narrow(1, r0, n).t(), x2);
        }
    });
    return dw;
}

/// dW = dyᵀ·x2 [out, in] for dy [rows, out] and x2 [rows, in], both contiguous.
torch::Tensor weightGradient(const torch::Tensor &dy, const torch::Tensor &x2)
{
    const int64_t in = x2.size(1), out = dy.size(1), rows = dy.size(0);
    if (rows == 0)
        return torch::zeros({out, in}, dy.options());
    if (weightGradientsOnBlas())
        return weightGradientOnBlas(dy, x2);
    if (out <= in) { // dW = dyᵀ·x straight into [out, in]
        torch::Tensor dw = torch::empty({out, in}, dy.options());
        sgemm('T', 'N', out, in, rows, dy.data_ptr<float>(), x2.data_ptr<float>(), 0.0f, dw.data_ptr<float>());
        return dw;
    }
    // (xᵀ·dy)ᵀ: oneDNN runs the product with fewer rows than columns faster
    torch::Tensor t = torch::empty({in, out}, dy.options());
    sgemm('T', 'N', in, out, rows, x2.data_ptr<float>(), dy.data_ptr<float>(), 0.0f, t.data_ptr<float>());
    return t.t().contiguous();
}

/// x's shape with its last dim set to `last`.
std::vector<int64_t> withLastDim(const torch::Tensor &x, int64_t last)
{
    std::vector<int64_t> shape = x.sizes().vec();
    shape.back() = last;
    return shape;
}

/// FastLinearFunction's and FastLinearNoBiasFunction's forward pass (bias undefined: none).
torch::Tensor linearForward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x, const torch::Tensor &weight,
                            const torch::Tensor &bias)
{
    const torch::Tensor x2 = x.reshape({-1, weight.size(1)}).contiguous();
    ctx->save_for_backward({x2, weight});
    return linearRows(x2, weight, bias).view(withLastDim(x, weight.size(0)));
}

/// Their backward pass: {dx, dW} and, with a bias, db.
torch::autograd::variable_list linearBackward(torch::autograd::AutogradContext *ctx, const torch::Tensor &grad,
                                              bool withBias)
{
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x2 = saved[0], &weight = saved[1];
    const torch::Tensor dy = grad.reshape({x2.size(0), weight.size(0)}).contiguous();
    torch::Tensor dx, dw, db;
    if (ctx->needs_input_grad(0)) {
        dx = torch::empty({x2.size(0), weight.size(1)}, dy.options());
        inputGradient(dy, weight, 0.0f, dx);
        dx = dx.view(withLastDim(grad, weight.size(1)));
    }
    if (ctx->needs_input_grad(1))
        dw = weightGradient(dy, x2);
    if (!withBias)
        return {dx, dw};
    if (ctx->needs_input_grad(2))
        db = columnSums(dy);
    return {dx, dw, db};
}

struct FastLinearFunction : public torch::autograd::Function<FastLinearFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &weight, const torch::Tensor &bias)
    {
        return linearForward(ctx, x, weight, bias);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        return linearBackward(ctx, grads[0], true);
    }
};

/// x·Wᵀ alone (the bias added by the element-wise pass after the product). A node of its own:
/// an autograd function's inputs must all be defined tensors.
struct FastLinearNoBiasFunction : public torch::autograd::Function<FastLinearNoBiasFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &weight)
    {
        return linearForward(ctx, x, weight, torch::Tensor());
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        return linearBackward(ctx, grads[0], false);
    }
};

/// Three Linears of one input (the attention's query, key and value): their products as
/// FastLinearFunction's, and the input's gradient accumulated in the GEMMs (beta = 1) instead of
/// by three tensors added afterwards.
struct FastLinear3Function : public torch::autograd::Function<FastLinear3Function>
{
    static torch::autograd::variable_list forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                                  const torch::Tensor &w0, const torch::Tensor &b0,
                                                  const torch::Tensor &w1, const torch::Tensor &b1,
                                                  const torch::Tensor &w2, const torch::Tensor &b2)
    {
        const torch::Tensor x2 = x.reshape({-1, w0.size(1)}).contiguous();
        ctx->save_for_backward({x2, w0, w1, w2});
        ctx->saved_data["x_sizes"] = x.sizes().vec();
        ctx->set_materialize_grads(false); // an output unused by the loss: no gradient for its W and b
        return {linearRows(x2, w0, b0).view(withLastDim(x, w0.size(0))), linearRows(x2, w1, b1).view(withLastDim(x, w1.size(0))),
                linearRows(x2, w2, b2).view(withLastDim(x, w2.size(0)))};
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x2 = saved[0];
        torch::autograd::variable_list out(7);
        torch::Tensor dx;
        for (int k = 0; k < 3; ++k) {
            const torch::Tensor &weight = saved[1 + k];
            if (!grads[k].defined()) // an output that did not reach the loss
                continue;
            const torch::Tensor dy = grads[k].reshape({x2.size(0), weight.size(0)}).contiguous();
            if (ctx->needs_input_grad(0)) {
                const bool first = !dx.defined();
                if (first)
                    dx = torch::empty({x2.size(0), weight.size(1)}, dy.options());
                inputGradient(dy, weight, first ? 0.0f : 1.0f, dx);
            }
            if (ctx->needs_input_grad(1 + 2 * k))
                out[1 + 2 * k] = weightGradient(dy, x2);
            if (ctx->needs_input_grad(2 + 2 * k))
                out[2 + 2 * k] = columnSums(dy);
        }
        if (ctx->needs_input_grad(0)) {
            const auto sizes = ctx->saved_data["x_sizes"].toIntVector();
            out[0] = dx.defined() ? dx.view(sizes) : torch::zeros(sizes, x2.options());
        }
        return out;
    }
};

using detail::isCpuFloat;

/// An operand oneDNN reads in place: a unit stride in one of the last two dims (else a copy).
torch::Tensor plainOperand(const torch::Tensor &t)
{
    return (t.stride(-1) == 1 || t.stride(-2) == 1) ? t : t.contiguous();
}

/// A tensor's layout for oneDNN's matmul (core/kernels/dnnlmatmul.h).
MatmulLayout layoutOf(const torch::Tensor &t)
{
    return {t.sizes().vec(), t.strides().vec()};
}

/// out = alpha·a·b + beta·out over the batch dims with oneDNN's matmul primitive: a [..., m, k],
/// b [..., k, n] (plainOperand layouts, the same 1 or 2 batch dims), out [..., m, n] with a unit
/// innermost stride (any other strides: the attention writes its context straight into the
/// [B, S, A, D] layout). One primitive per shape, layout, alpha, beta, built once per thread and
/// kept (a training run has a handful).
///
/// Threads: nothing of a primitive is shared between threads. Each thread has its own plans,
/// and every primitive runs with a scratchpad of the running thread (scratchpad_mode::user;
/// matmulPlan, core/kernels/dnnlmatmul.h). oneDNN's default (library mode, built without
/// DNNL_ENABLE_CONCURRENT_EXEC as Debian builds it) gives a primitive the *executing* thread's
/// thread-local scratchpad, sized when the primitive was created, possibly on another thread
/// (oneDNN src/common/scratchpad.cpp, global_scratchpad_t): a primitive used across threads
/// could then write past a smaller buffer. With a user scratchpad a run's products cannot be
/// touched by what other threads (the range test, Try it) compute beside it.
void dnnlBatchedMatmul(const torch::Tensor &a, const torch::Tensor &b, float alpha, float beta, torch::Tensor &out)
{
    RECORD_FUNCTION("wb::dnnl_matmul", std::vector<c10::IValue>());
    at::internal::lazy_init_num_threads(); // as in sgemm: the run's intra-op threads
    matmulPlan(layoutOf(a), layoutOf(b), layoutOf(out), alpha, beta)
        .run(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>());
}

using detail::emptyLaidOutAs;

/// out = alpha·x·y with out laid out as `like` (the operand whose gradient it is): computed as
/// (alpha·yᵀ·xᵀ)ᵀ into likeᵀ's layout when `like` is a transposed view (unit stride in its
/// second-to-last dim), so that layout needs no copy either.
torch::Tensor productLaidOutAs(const torch::Tensor &x, const torch::Tensor &y, float alpha, const torch::Tensor &like)
{
    const bool transposed = like.stride(-1) != 1 && like.stride(-2) == 1;
    if (transposed) {
        torch::Tensor outT = emptyLaidOutAs(like.transpose(-1, -2));
        if (outT.numel() > 0 && x.size(-1) > 0)
            dnnlBatchedMatmul(plainOperand(y.transpose(-1, -2)), plainOperand(x.transpose(-1, -2)), alpha, 0.0f, outT);
        else
            outT.zero_();
        return outT.transpose(-1, -2);
    }
    torch::Tensor out = emptyLaidOutAs(like);
    if (out.numel() > 0 && x.size(-1) > 0)
        dnnlBatchedMatmul(plainOperand(x), plainOperand(y), alpha, 0.0f, out);
    else
        out.zero_();
    return out;
}

struct FastBatchedMatmulFunction : public torch::autograd::Function<FastBatchedMatmulFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &a0, const torch::Tensor &b0,
                                 const torch::Tensor &addend, bool hasAddend, double alpha, bool interleaved)
    {
        const torch::Tensor a = plainOperand(a0), b = plainOperand(b0);
        std::vector<int64_t> sizes = a.sizes().vec();
        sizes.back() = b.size(-1);
        const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
        // [B, A, m, n] stored as [B, m, A, n] when asked (interleaved: the heads' outputs side by side).
        torch::Tensor y = interleaved ? at::empty_strided(sizes, {m * sizes[1] * n, n, sizes[1] * n, 1}, a.options())
                                      : torch::empty(sizes, a.options());
        float beta = 0.0f;
        if (hasAddend) {
            y.view(addend.sizes()).copy_(addend); // never written in place: addend may be a view
            beta = 1.0f;
        }
        if (y.numel() > 0 && k > 0)
            dnnlBatchedMatmul(a, b, float(alpha), beta, y);
        else if (!hasAddend)
            y.zero_();
        ctx->save_for_backward({a, b});
        ctx->saved_data["alpha"] = alpha;
        ctx->saved_data["addend_sizes"] = addend.sizes().vec();
        return y;
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &a = saved[0], &b = saved[1];
        const float alpha = float(ctx->saved_data["alpha"].toDouble());
        const torch::Tensor dy = plainOperand(grads[0]);
        torch::Tensor da, db, dAddend;
        if (ctx->needs_input_grad(0))
            da = productLaidOutAs(dy, b.transpose(-1, -2), alpha, a); // alpha·dy·bᵀ
        if (ctx->needs_input_grad(1))
            db = productLaidOutAs(a.transpose(-1, -2), dy, alpha, b); // alpha·aᵀ·dy
        if (ctx->needs_input_grad(2))
            dAddend = grads[0].reshape(ctx->saved_data["addend_sizes"].toIntVector());
        return {da, db, dAddend, torch::Tensor(), torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

namespace {
std::atomic<WeightGradientLibrary> gWeightGradients{FastKernels{}.weightGradients};
std::atomic<bool> gFastLinear{FastKernels{}.linear}, gFastAttention{FastKernels{}.attention}, gFastGelu{FastKernels{}.gelu},
    gFastSoftmax{FastKernels{}.softmax}, gFastLayerNorm{FastKernels{}.layerNorm}, gFastBias{FastKernels{}.bias},
    gBlockedAttention{FastKernels{}.blockedAttention};
} // namespace

void setFastKernels(FastKernels kernels)
{
    gFastLinear = kernels.linear;
    gFastAttention = kernels.attention;
    gFastGelu = kernels.gelu;
    gFastSoftmax = kernels.softmax;
    gFastLayerNorm = kernels.layerNorm;
    gFastBias = kernels.bias;
    gWeightGradients = kernels.weightGradients;
    gBlockedAttention = kernels.blockedAttention;
}

FastKernels fastKernels()
{
    return {gFastLinear.load(),    gFastAttention.load(), gFastGelu.load(),       gFastSoftmax.load(),
            gFastLayerNorm.load(), gFastBias.load(),      gWeightGradients.load(), gBlockedAttention.load()};
}

WeightGradientLibrary weightGradientLibraryFor(unsigned dnnlIsa, const std::string &blas)
{
    // dnnl_cpu_isa_t values are sets of feature bits (avx2_vnni is above avx512_core in value)
    const auto has = [dnnlIsa](dnnl_cpu_isa_t feature) { return (dnnlIsa & unsigned(feature)) == unsigned(feature); };
    const bool avx2Class = has(dnnl_cpu_isa_avx2) && !has(dnnl_cpu_isa_avx512_core);
    return (blas == "openblas" || blas == "mkl") && avx2Class ? WeightGradientLibrary::Blas
                                                              : WeightGradientLibrary::OneDnn;
}

WeightGradientLibrary automaticWeightGradientLibrary()
{
    static const WeightGradientLibrary automatic =
        weightGradientLibraryFor(unsigned(dnnl_get_effective_cpu_isa()), loadedBlas());
    return automatic;
}

namespace {
bool weightGradientsOnBlas()
{
    const WeightGradientLibrary chosen = gWeightGradients.load(std::memory_order_relaxed);
    return (chosen == WeightGradientLibrary::Automatic ? automaticWeightGradientLibrary() : chosen) ==
           WeightGradientLibrary::Blas;
}
} // namespace

bool fastBatchedMatmulApplies(const torch::Tensor &a, const torch::Tensor &b, const torch::Tensor &addend)
{
    if (!isCpuFloat(a) || !isCpuFloat(b) || a.dim() < 3 || a.dim() > 4 || b.dim() != a.dim() ||
        a.sizes().slice(0, a.dim() - 2) != b.sizes().slice(0, b.dim() - 2) || a.size(-1) != b.size(-2) ||
        at::autocast::is_cpu_enabled())
        return false;
    if (!addend.defined())
        return true;
    if (!isCpuFloat(addend) || addend.dim() < 2 || addend.size(-2) != a.size(-2) || addend.size(-1) != b.size(-1))
        return false;
    int64_t leading = 1, batch = 1;
    for (int64_t i = 0; i + 2 < addend.dim(); ++i)
        leading *= addend.size(i);
    for (int64_t i = 0; i + 2 < a.dim(); ++i)
        batch *= a.size(i);
    return leading == batch;
}

torch::Tensor fastBatchedMatmul(const torch::Tensor &a, const torch::Tensor &b, double alpha, const torch::Tensor &addend,
                                BatchedOutput layout)
{
    TORCH_CHECK(fastBatchedMatmulApplies(a, b, addend),
                "fastBatchedMatmul: expected float32 CPU tensors a [batch..., m, k], b [batch..., k, n] (1 or 2 batch "
                "dims, the same in both) and an addend [..., m, n] whose leading dims multiply to the batch, with "
                "autocast off; use torch::baddbmm otherwise");
    TORCH_CHECK(layout == BatchedOutput::Contiguous || a.dim() == 4,
                "fastBatchedMatmul: the heads-interleaved output needs 4-D operands [B, A, m, k] and [B, A, k, n]");
    // libtorch 1.13's Function::apply needs defined tensors: an empty stand-in when there is no addend.
    const bool hasAddend = addend.defined();
    return FastBatchedMatmulFunction::apply(a, b, hasAddend ? addend : torch::empty({0}, a.options()), hasAddend, alpha,
                                            layout == BatchedOutput::HeadsInterleaved);
}

bool fastLinearApplies(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias)
{
    const bool biasFits = !bias.defined() || (isCpuFloat(bias) && bias.dim() == 1 && bias.size(0) == weight.size(0));
    return isCpuFloat(x) && isCpuFloat(weight) && biasFits && x.dim() >= 1 && weight.dim() == 2 &&
           weight.is_contiguous() && x.size(-1) == weight.size(1) && !at::autocast::is_cpu_enabled();
}

torch::Tensor fastLinear(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias)
{
    TORCH_CHECK(fastLinearApplies(x, weight, bias),
                "fastLinear: expected float32 CPU tensors x [..., in], weight [out, in] (contiguous) and bias [out] "
                "(or none) with autocast off; use torch::nn::functional::linear otherwise");
    return bias.defined() ? FastLinearFunction::apply(x, weight, bias) : FastLinearNoBiasFunction::apply(x, weight);
}

std::array<torch::Tensor, 3> fastLinear3(const torch::Tensor &x, const torch::Tensor &w0, const torch::Tensor &b0,
                                         const torch::Tensor &w1, const torch::Tensor &b1, const torch::Tensor &w2,
                                         const torch::Tensor &b2)
{
    TORCH_CHECK(fastLinearApplies(x, w0, b0) && fastLinearApplies(x, w1, b1) && fastLinearApplies(x, w2, b2),
                "fastLinear3: expected float32 CPU tensors x [..., in], weights [out, in] (contiguous) and biases [out] "
                "with autocast off; use torch::nn::functional::linear otherwise");
    const auto y = FastLinear3Function::apply(x, w0, b0, w1, b1, w2, b2);
    return {y[0], y[1], y[2]};
}

} // namespace wb::nn
