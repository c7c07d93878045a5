// SPDX-License-Identifier: Apache-2.0
// Torch-free: oneDNN's matmul primitive over strided float32 operands, built once per thread and
// layout and then run on raw pointers (the attention's products in core/kernels/fusedops.cpp and
// core/kernels/blockedattention.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace wb::nn {

/// A float32 operand's sizes and strides in elements, row-major dims: [batch..., rows, cols]
/// with 0–2 batch dims (oneDNN's matmul takes 2-D to 4-D, the same rank for all three).
struct MatmulLayout
{
    std::vector<int64_t> sizes, strides;
};

/// out = alpha·a·b + beta·out for one layout of a [batch..., m, k], b [batch..., k, n] and
/// out [batch..., m, n]: oneDNN's matmul primitive (brgemm kernels where the CPU has them),
/// created on first use. Operands are read in place when one of their last two strides is 1;
/// out needs a unit last stride.
class MatmulPlan
{
public:
    /// Runs the product on these pointers (each laid out as the plan's layouts say) with the
    /// calling thread's scratchpad. Threads: oneDNN's OpenMP pool as the calling thread's OpenMP
    /// setting says (inside an OpenMP parallel region, one thread). Throws dnnl::error on a
    /// oneDNN failure.
    void run(const float *a, const float *b, float *out) const;

    struct Impl;
    std::shared_ptr<const Impl> impl;
};

/// Inside an OpenMP parallel region (at::parallel_for's workers): makes this thread's plans
/// from here to the region's end one-thread plans. oneDNN runs a primitive on one thread inside
/// a parallel region, and a primitive may lay out its work and scratchpad for the OpenMP thread
/// count of its creation; a plan built for the region's one thread is what runs there. (With
/// libdnnl 2.6.3, brgemm and gemm:jit, two-thread plans run inside a region gave correct products
/// too; the rule costs nothing.) Call it first in a parallel_for body that asks for plans.
/// Outside a parallel region: nothing (the products use the calling thread's OpenMP threads).
void oneThreadPerProductInParallelRegion();

/// The calling thread's plan for these layouts and factors: built on the first call and kept
/// (up to 64 per thread; then the thread's cache starts over; plans already handed out stay
/// valid). Run it on the thread that asked for it, in the same parallel region or outside any:
/// the plan is built for the calling thread's OpenMP thread count, which is part of the key.
/// Each thread has its own plans and every run uses a scratchpad of the running thread
/// (scratchpad_mode::user), so nothing oneDNN keeps is shared between threads: a run's products
/// cannot be touched by what other threads compute beside it (docs/benchmarks.md, "The step on
/// oneDNN"). Throws dnnl::error when oneDNN has no implementation for the layouts.
MatmulPlan matmulPlan(const MatmulLayout &a, const MatmulLayout &b, const MatmulLayout &out, float alpha, float beta);

} // namespace wb::nn
