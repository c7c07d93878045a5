// SPDX-License-Identifier: Apache-2.0
#include "core/model/fusedops.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <ATen/record_function.h>
#include <torch/csrc/autograd/custom_function.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <tuple>

namespace wb::nn {

namespace {

// Index blocks of one kernel call: small enough to stay in L1, large enough to vectorise.
constexpr int64_t kBlock = 2048;
constexpr int64_t kGrain = 32768;

/// scale[i − begin] = keep-scale of element i, for i in [begin, end) (end − begin ≤ kBlock).
/// Compiled for AVX-512, AVX2 and the x86-64 baseline; the loader picks the best the CPU has
/// (GCC function multi-versioning), so the package runs on any x86-64.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void maskBlock(float *__restrict scale, uint64_t seed, int64_t begin, int64_t end, uint32_t threshold, float s)
{
    const int64_t n = end - begin;
    if ((uint64_t(begin) >> 32) == (uint64_t(end - 1) >> 32)) {
        // One 2³² block of indices: k1 is a loop constant (the usual case), so the loop vectorises.
        const uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32) + uint32_t(uint64_t(begin) >> 32) * 0x85ebca6bU;
        const uint32_t lo = uint32_t(begin);
        for (int64_t j = 0; j < n; ++j) {
            uint32_t x = (lo + uint32_t(j)) * 0x9e3779b1U + k0;
            x ^= x >> 16;
            x *= 0x7feb352dU;
            x ^= x >> 15;
            x *= 0x846ca68bU;
            x ^= x >> 16;
            x ^= k1;
            x ^= x >> 16;
            x *= 0x7feb352dU;
            x ^= x >> 15;
            x *= 0x846ca68bU;
            x ^= x >> 16;
            scale[j] = (x >> 8) < threshold ? s : 0.0f;
        }
    } else {
        for (int64_t j = 0; j < n; ++j)
            scale[j] = (dropoutHash(seed, uint64_t(begin + j)) >> 8) < threshold ? s : 0.0f;
    }
}

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
            maskBlock(scale, seed, b, e, threshold, s);
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
            maskBlock(scale, seed, b, e, threshold, 1.0f);
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

/// Row-major C[m,n] = alpha·op(A)·op(B) + beta·C with oneDNN (op = 'N' or 'T'), contiguous operands.
void sgemm(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *a, const float *b, float beta, float *c)
{
    RECORD_FUNCTION("wb::dnnl_sgemm", std::vector<c10::IValue>());
    // oneDNN takes its thread count from this thread's OpenMP setting, which libtorch sets only
    // at the thread's first parallel ATen op: before that it is OpenMP's default (every CPU),
    // not torch::get_num_threads(). Settle it first, so the products always run on the intra-op
    // threads the run asked for, whatever ran before on this thread.
    at::internal::lazy_init_num_threads();
    const int64_t lda = ta == 'N' ? k : m, ldb = tb == 'N' ? n : k;
    const dnnl_status_t st = dnnl_sgemm(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, n);
    TORCH_CHECK(st == dnnl_success, "oneDNN sgemm failed (status ", int(st), ") for ", m, "x", k, "x", n);
}

struct FastLinearFunction : public torch::autograd::Function<FastLinearFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &x,
                                 const torch::Tensor &weight, const torch::Tensor &bias)
    {
        const int64_t in = weight.size(1), out = weight.size(0);
        const torch::Tensor x2 = x.reshape({-1, in}).contiguous();
        const int64_t rows = x2.size(0);
        // y starts as the bias in every row; the GEMM adds x·Wᵀ onto it (beta = 1). A fresh
        // tensor: for one row, expand(...).contiguous() would be the bias itself, and the GEMM
        // would add into the parameter.
        torch::Tensor y = torch::empty({rows, out}, x2.options());
        y.copy_(bias.unsqueeze(0).expand({rows, out}));
        if (rows > 0 && in > 0)
            sgemm('N', 'T', rows, out, in, x2.data_ptr<float>(), weight.data_ptr<float>(), 1.0f, y.data_ptr<float>());
        ctx->save_for_backward({x2, weight});
        std::vector<int64_t> shape = x.sizes().vec();
        shape.back() = out;
        return y.view(shape);
    }

    static torch::autograd::variable_list backward(torch::autograd::AutogradContext *ctx,
                                                   torch::autograd::variable_list grads)
    {
        const auto saved = ctx->get_saved_variables();
        const torch::Tensor &x2 = saved[0], &weight = saved[1];
        const int64_t in = weight.size(1), out = weight.size(0), rows = x2.size(0);
        const torch::Tensor dy = grads[0].reshape({rows, out}).contiguous();
        torch::Tensor dx, dw, db;
        if (ctx->needs_input_grad(0)) {
            dx = torch::empty({rows, in}, dy.options());
            if (rows > 0 && out > 0)
                sgemm('N', 'N', rows, in, out, dy.data_ptr<float>(), weight.data_ptr<float>(), 0.0f, dx.data_ptr<float>());
            else
                dx.zero_();
            std::vector<int64_t> shape = grads[0].sizes().vec();
            shape.back() = in;
            dx = dx.view(shape);
        }
        if (ctx->needs_input_grad(1)) {
            if (rows == 0) {
                dw = torch::zeros({out, in}, dy.options());
            } else if (out <= in) { // dW = dyᵀ·x straight into [out, in]
                dw = torch::empty({out, in}, dy.options());
                sgemm('T', 'N', out, in, rows, dy.data_ptr<float>(), x2.data_ptr<float>(), 0.0f, dw.data_ptr<float>());
            } else { // (xᵀ·dy)ᵀ: oneDNN runs the product with fewer rows than columns faster
                torch::Tensor t = torch::empty({in, out}, dy.options());
                sgemm('T', 'N', in, out, rows, x2.data_ptr<float>(), dy.data_ptr<float>(), 0.0f, t.data_ptr<float>());
                dw = t.t().contiguous();
            }
        }
        if (ctx->needs_input_grad(2))
            db = dy.sum(0);
        return {dx, dw, db};
    }
};

bool isCpuFloat(const torch::Tensor &t)
{
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided;
}

/// A 3-D operand oneDNN reads in place: a unit stride in one of the last two dims (else a copy).
torch::Tensor plainOperand(const torch::Tensor &t)
{
    return (t.stride(2) == 1 || t.stride(1) == 1) ? t : t.contiguous();
}

/// out = alpha·a·b + beta·out over the batch with oneDNN's matmul primitive: a [B, m, k], b [B, k, n]
/// (plainOperand layouts), out contiguous [B, m, n]. One primitive per shape, layout, alpha, beta,
/// built once per thread and kept (a training run has a handful).
///
/// Threads: nothing of a primitive is shared between threads. Each thread has its own cache,
/// and every primitive runs with a scratchpad of its own call (scratchpad_mode::user, a fresh
/// buffer per execution). oneDNN's default (library mode, built without
/// DNNL_ENABLE_CONCURRENT_EXEC as Debian builds it) gives a primitive the *executing* thread's
/// thread-local scratchpad, sized when the primitive was created, possibly on another thread
/// (oneDNN src/common/scratchpad.cpp, global_scratchpad_t): a primitive used across threads
/// could then write past a smaller buffer. With a user scratchpad a run's products cannot be
/// touched by what other threads (the range test, Try it) compute beside it.
void dnnlBatchedMatmul(const torch::Tensor &a, const torch::Tensor &b, float alpha, float beta, torch::Tensor &out)
{
    RECORD_FUNCTION("wb::dnnl_matmul", std::vector<c10::IValue>());
    at::internal::lazy_init_num_threads(); // as in sgemm: the run's intra-op threads
    using namespace dnnl;
    static engine eng(engine::kind::cpu, 0);
    using Key = std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>, std::vector<int64_t>, float, float>;
    struct Entry
    {
        matmul prim;
        memory::desc scratchpad;
    };
    static thread_local std::map<Key, Entry> cache; // map nodes do not move: `entry` stays valid
    const auto desc = [](const torch::Tensor &t) {
        return memory::desc({t.size(0), t.size(1), t.size(2)}, memory::data_type::f32,
                            {t.stride(0), t.stride(1), t.stride(2)});
    };
    const memory::desc amd = desc(a), bmd = desc(b), cmd = desc(out);
    const Entry *entry = nullptr;
    {
        const Key key{a.sizes().vec(), a.strides().vec(), b.sizes().vec(), b.strides().vec(), alpha, beta};
        auto it = cache.find(key);
        if (it == cache.end()) {
            primitive_attr attr;
            attr.set_scratchpad_mode(scratchpad_mode::user);
            if (alpha != 1.0f)
                attr.set_output_scales(0, {alpha});
            if (beta != 0.0f) {
                post_ops ops;
                ops.append_sum(beta);
                attr.set_post_ops(ops);
            }
            if (cache.size() >= 64)
                cache.clear(); // shapes change (evaluation, another run): start over
            const matmul::primitive_desc pd(matmul::desc(amd, bmd, cmd), attr, eng);
            it = cache.emplace(key, Entry{matmul(pd), pd.scratchpad_desc()}).first;
        }
        entry = &it->second;
    }
    stream strm(eng);
    memory ma(amd, eng, a.data_ptr<float>()), mb(bmd, eng, b.data_ptr<float>()), mc(cmd, eng, out.data_ptr<float>());
    // This call's own scratchpad (oneDNN asks for 64-byte alignment; libtorch's CPU allocator gives 64).
    const torch::Tensor pad = torch::empty({int64_t(entry->scratchpad.get_size())}, torch::kUInt8);
    memory ms(entry->scratchpad, eng, pad.numel() > 0 ? pad.data_ptr() : nullptr);
    entry->prim.execute(strm, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}, {DNNL_ARG_SCRATCHPAD, ms}});
    strm.wait();
}

struct FastBatchedMatmulFunction : public torch::autograd::Function<FastBatchedMatmulFunction>
{
    static torch::Tensor forward(torch::autograd::AutogradContext *ctx, const torch::Tensor &a0, const torch::Tensor &b0,
                                 const torch::Tensor &addend, bool hasAddend, double alpha)
    {
        const torch::Tensor a = plainOperand(a0), b = plainOperand(b0);
        const int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
        torch::Tensor y = torch::empty({batch, m, n}, a.options());
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
        const auto product = [&](const torch::Tensor &x, const torch::Tensor &y, torch::Tensor &out) {
            out = torch::empty({x.size(0), x.size(1), y.size(2)}, dy.options());
            if (out.numel() > 0 && x.size(2) > 0)
                dnnlBatchedMatmul(plainOperand(x), plainOperand(y), alpha, 0.0f, out);
            else
                out.zero_();
        };
        if (ctx->needs_input_grad(0))
            product(dy, b.transpose(1, 2), da); // alpha·dy·bᵀ
        if (ctx->needs_input_grad(1))
            product(a.transpose(1, 2), dy, db); // alpha·aᵀ·dy
        if (ctx->needs_input_grad(2))
            dAddend = grads[0].reshape(ctx->saved_data["addend_sizes"].toIntVector());
        return {da, db, dAddend, torch::Tensor(), torch::Tensor()};
    }
};

} // namespace

namespace {
std::atomic<bool> gFastLinear{FastKernels{}.linear}, gFastAttention{FastKernels{}.attention};
} // namespace

void setFastKernels(FastKernels kernels)
{
    gFastLinear = kernels.linear;
    gFastAttention = kernels.attention;
}

FastKernels fastKernels()
{
    return {gFastLinear.load(), gFastAttention.load()};
}

bool fastBatchedMatmulApplies(const torch::Tensor &a, const torch::Tensor &b, const torch::Tensor &addend)
{
    if (!isCpuFloat(a) || !isCpuFloat(b) || a.dim() != 3 || b.dim() != 3 || a.size(0) != b.size(0) ||
        a.size(2) != b.size(1) || at::autocast::is_cpu_enabled())
        return false;
    if (!addend.defined())
        return true;
    if (!isCpuFloat(addend) || addend.dim() < 2 || addend.size(-2) != a.size(1) || addend.size(-1) != b.size(2))
        return false;
    int64_t leading = 1;
    for (int64_t i = 0; i + 2 < addend.dim(); ++i)
        leading *= addend.size(i);
    return leading == a.size(0);
}

torch::Tensor fastBatchedMatmul(const torch::Tensor &a, const torch::Tensor &b, double alpha, const torch::Tensor &addend)
{
    TORCH_CHECK(fastBatchedMatmulApplies(a, b, addend),
                "fastBatchedMatmul: expected float32 CPU tensors a [batch, m, k], b [batch, k, n] and an addend "
                "[..., m, n] whose leading dims multiply to batch, with autocast off; use torch::baddbmm otherwise");
    // libtorch 1.13's Function::apply needs defined tensors: an empty stand-in when there is no addend.
    const bool hasAddend = addend.defined();
    return FastBatchedMatmulFunction::apply(a, b, hasAddend ? addend : torch::empty({0}, a.options()), hasAddend, alpha);
}

bool fastLinearApplies(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias)
{
    return isCpuFloat(x) && isCpuFloat(weight) && isCpuFloat(bias) && x.dim() >= 1 && weight.dim() == 2 &&
           weight.is_contiguous() && bias.dim() == 1 && bias.size(0) == weight.size(0) &&
           x.size(-1) == weight.size(1) && !at::autocast::is_cpu_enabled();
}

torch::Tensor fastLinear(const torch::Tensor &x, const torch::Tensor &weight, const torch::Tensor &bias)
{
    TORCH_CHECK(fastLinearApplies(x, weight, bias),
                "fastLinear: expected float32 CPU tensors x [..., in], weight [out, in] (contiguous) and bias [out] "
                "with autocast off; use torch::nn::functional::linear otherwise");
    return FastLinearFunction::apply(x, weight, bias);
}

torch::Tensor dropoutMask(int64_t numel, double p, uint64_t seed)
{
    torch::Tensor ones = torch::ones({numel});
    torch::NoGradGuard guard;
    return maskedCopy(ones, p, seed);
}

torch::Tensor fusedDropout(const torch::Tensor &x, double p, uint64_t seed)
{
    return FusedDropoutFunction::apply(x, p, int64_t(seed));
}

} // namespace wb::nn
