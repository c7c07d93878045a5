// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace wb::nn {

/// The keep/drop decision of element `index` of a dropout mask with 64-bit `seed`: a
/// counter-based hash (two rounds of a 32-bit integer mixer over index and seed), kept when
/// its top 24 bits are below keepThreshold(keep). Pure function: the same (seed, index)
/// always gives the same bit, on any thread and in any order, so a mask needs no stored
/// state and can be recomputed in the backward pass.
inline uint32_t dropoutHash(uint64_t seed, uint64_t index)
{
    auto mix = [](uint32_t x) {
        // A 32-bit finaliser (xorshift-multiply, constants from C. Wellons' hash-prospector
        // "lowbias32"); bijective, full avalanche.
        x ^= x >> 16;
        x *= 0x7feb352dU;
        x ^= x >> 15;
        x *= 0x846ca68bU;
        x ^= x >> 16;
        return x;
    };
    const uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32) + uint32_t(index >> 32) * 0x85ebca6bU;
    return mix(mix(uint32_t(index) * 0x9e3779b1U + k0) ^ k1);
}

/// 2²⁴·keep rounded: element i is kept when dropoutHash(seed, i) >> 8 is below it, so the
/// keep probability is keep to within 2⁻²⁴.
inline uint32_t keepThreshold(double keep)
{
    return uint32_t(std::llround(keep * double(1u << 24)));
}

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

} // namespace wb::nn
