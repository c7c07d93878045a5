// SPDX-License-Identifier: Apache-2.0
// Core-private: includes <torch/torch.h>. Never include from ui/ or app/.
// Column sums gathered in the same pass as an element-wise backward step (the bias gradient in
// GELU's and dropout's backward pass, LayerNorm's parameter gradients), for core/model/fused*.cpp.
#pragma once

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

// at::parallel_for is a header template that runs its whole range on the calling thread unless
// this file is compiled with OpenMP: the fused passes would then ignore the run's threads.
#ifndef _OPENMP
#error "compile the fused kernels with OpenMP (-fopenmp; core/CMakeLists.txt links OpenMP::OpenMP_CXX)"
#endif

namespace wb::nn {

/// Rows a block's float partial sums cover before they are added in double.
constexpr int64_t kSumRowBlock = 64;

/// Runs fn(rowBegin, rowEnd, partial) for each block of kSumRowBlock rows of [0, rows), on the
/// intra-op threads (at::parallel_for), where partial is that block's own zeroed float [width];
/// returns float32 [width] with element j = Σ over the blocks, in block order and in double, of
/// partial[j]. For fn adding rows into partial in row order this is exactly columnSums'
/// summation (fusedops.cpp), and the result does not depend on the number of threads.
/// fn must only write its own rows and partial; it runs concurrently for different blocks.
template<typename Fn>
torch::Tensor sumOverRowBlocks(int64_t rows, int64_t width, Fn &&fn)
{
    const int64_t blocks = (rows + kSumRowBlock - 1) / kSumRowBlock;
    std::vector<float> partial(size_t(blocks * width), 0.0f);
    at::parallel_for(0, blocks, 1, [&](int64_t from, int64_t to) {
        for (int64_t b = from; b < to; ++b)
            fn(b * kSumRowBlock, std::min(rows, (b + 1) * kSumRowBlock), partial.data() + b * width);
    });
    std::vector<double> sums(size_t(width), 0.0);
    for (int64_t b = 0; b < blocks; ++b)
        for (int64_t j = 0; j < width; ++j)
            sums[size_t(j)] += double(partial[size_t(b * width + j)]);
    torch::Tensor out = torch::empty({width}, torch::kFloat);
    float *dst = out.data_ptr<float>();
    for (int64_t j = 0; j < width; ++j)
        dst[j] = float(sums[size_t(j)]);
    return out;
}

} // namespace wb::nn
