// SPDX-License-Identifier: Apache-2.0
#include "core/engine/blascheck.h"

#include "core/model/bertmodel.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>

namespace wb {

namespace {
// Below this a 512² fp32 GEMM is certainly not an optimised BLAS (OpenBLAS: ~100+).
constexpr double kSlowGemmGflops = 10.0;
} // namespace

double measureGemmGflops(int n, int repeats)
{
    torch::NoGradGuard guard;
    // Any numbers do; a generator of its own keeps the default one (and every run's) untouched.
    at::Generator gen = nn::makeGenerator(0);
    auto a = torch::randn({n, n}, gen), b = torch::randn({n, n}, gen), c = torch::empty({n, n});
    torch::mm_out(c, a, b);
    std::vector<double> times;
    for (int k = 0; k < repeats; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        torch::mm_out(c, a, b);
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2];
    return t > 0 ? 2.0 * double(n) * n * n / t / 1e9 : 0.0;
}

std::vector<std::string> checkBlas()
{
    std::vector<std::string> warnings;
    const std::string blas = loadedBlas();
    const double gflops = measureGemmGflops(512, 3);
    const std::string fix = "install an optimised BLAS: sudo apt-get install libopenblas0-pthread "
                            "(Debian switches libblas.so.3 to it automatically)";
    if (blas == "reference")
        warnings.push_back("warning: BLAS: the reference (unoptimised) BLAS is loaded; a 512x512 GEMM runs at "
                           + std::to_string(int(gflops)) + " GFLOP/s and training will be ~30x slower. Fix: " + fix);
    else if (gflops < kSlowGemmGflops)
        warnings.push_back("warning: BLAS: a 512x512 GEMM runs at only " + std::to_string(gflops)
                           + " GFLOP/s (BLAS: " + blas + "). Fix: " + fix);
    return warnings;
}

int defaultIntraOpThreads()
{
    return std::max(1, at::intraop_default_num_threads());
}

int threadsPerLocalWorker(int workers)
{
    return std::max(1, defaultIntraOpThreads() / std::max(1, workers));
}

} // namespace wb
