// SPDX-License-Identifier: Apache-2.0
// Torch-free: the counter-based hash behind the training step's dropout masks (core/kernels/fusedops.h).
#pragma once

#include <cmath>
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

} // namespace wb::nn
