// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. The small helpers the fused kernels share
// (core/kernels/fusedops.cpp, fusedsoftmax.cpp, blockedattention.cpp).
#pragma once

#include "core/kernels/dropouthash.h"

#include <torch/torch.h>

// at::parallel_for is a header template that runs its whole range on the calling thread unless
// this file is compiled with OpenMP: the fused passes would then ignore the run's threads.
#ifndef _OPENMP
#error "compile the fused kernels with OpenMP (-fopenmp; core/CMakeLists.txt links OpenMP::OpenMP_CXX)"
#endif

namespace wb::nn::detail {

/// A float32 CPU tensor in the strided layout (what the fused kernels read and write).
inline bool isCpuFloat(const torch::Tensor &t)
{
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.layout() == torch::kStrided;
}

/// An uninitialised tensor of `like`'s sizes and, where that is a dense layout with a unit
/// innermost stride, its strides (a gradient laid out as its input, so the views it flows back
/// through need no copy); contiguous otherwise.
inline torch::Tensor emptyLaidOutAs(const torch::Tensor &like)
{
    if (like.is_non_overlapping_and_dense() && like.stride(-1) == 1)
        return at::empty_strided(like.sizes(), like.strides(), like.options());
    return torch::empty(like.sizes(), like.options());
}

/// The keep mask's scale for dropout probability p (1/(1 − p)), and its threshold.
struct Keep
{
    explicit Keep(double p) : drop(p > 0.0), threshold(keepThreshold(1.0 - p)), scale(drop ? float(1.0 / (1.0 - p)) : 1.0f) {}
    bool drop;
    uint32_t threshold;
    float scale;
};

} // namespace wb::nn::detail
