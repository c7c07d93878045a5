// SPDX-License-Identifier: Apache-2.0
#include "core/model/fusedops.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

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

} // namespace

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
