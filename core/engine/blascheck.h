// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/util/blaslibrary.h" // loadedBlas

#include <string>
#include <vector>

namespace wb {

/// Measures fp32 GEMM throughput with torch::mm on n×n matrices (median of `repeats`
/// runs after one warm-up), in GFLOP/s. Uses the calling thread's torch settings.
double measureGemmGflops(int n = 512, int repeats = 3);

/// Checks the BLAS at the start of a run: returns warning lines (empty when fine) when
/// the reference BLAS is loaded or a 512² GEMM runs below 10 GFLOP/s, with the fix
/// (install libopenblas0-pthread). Takes well under a second with a fast BLAS.
std::vector<std::string> checkBlas();

/// The intra-op thread count libtorch picks by itself on this machine (its default, not the
/// current setting; 1 on the project's 2-vCPU machine, where more threads fight OpenBLAS's
/// own). Thread-safe.
int defaultIntraOpThreads();

/// Threads for each of `workers` local worker processes: the default divided among them,
/// at least 1 (so N workers never oversubscribe what one worker would use).
int threadsPerLocalWorker(int workers);

} // namespace wb
