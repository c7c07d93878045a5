// SPDX-License-Identifier: Apache-2.0
// Torch-free: which BLAS library this process has mapped (libtorch's, for at::mm), and its
// thread count where the library keeps one of its own.
#pragma once

#include <string>

namespace wb {

/// Returns the name of the BLAS library mapped into this process ("openblas", "mkl",
/// "blis", "reference" for the netlib libblas, or "unknown"), from /proc/self/maps.
std::string loadedBlas();

/// Makes OpenBLAS's own thread pool use `threads` threads (openblas_set_num_threads, looked up
/// in the process; libtorch sets MKL's and OpenMP's count itself, not OpenBLAS's, whose pthread
/// build otherwise uses every CPU). Returns false where no OpenBLAS is loaded. Changes a
/// process-wide setting: call it from the thread that runs the products, with the run's
/// intra-op thread count.
bool setOpenBlasThreads(int threads);

} // namespace wb
