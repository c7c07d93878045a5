// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace wb {

/// Returns the name of the BLAS library mapped into this process ("openblas", "mkl",
/// "blis", "reference" for the netlib libblas, or "unknown"), from /proc/self/maps.
std::string loadedBlas();

/// Measures fp32 GEMM throughput with torch::mm on n×n matrices (median of `repeats`
/// runs after one warm-up), in GFLOP/s. Uses the calling thread's torch settings.
double measureGemmGflops(int n = 512, int repeats = 3);

/// Checks the BLAS at the start of a run: returns warning lines (empty when fine) when
/// the reference BLAS is loaded or a 512² GEMM runs below 10 GFLOP/s, with the fix
/// (install libopenblas0-pthread). Takes well under a second with a fast BLAS.
std::vector<std::string> checkBlas();

} // namespace wb
