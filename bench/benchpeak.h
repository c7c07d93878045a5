// SPDX-License-Identifier: Apache-2.0
// What the training benchmarks (bench_train, bench_stepab) judge a step against: the GEMM FLOPs
// of one training example, counted from the model's products, and the one-thread fp32 GEMM rate
// of oneDNN's sgemm, the library the step's Linear products run on (nn::fastLinear).
#pragma once

#include "core/config/bertconfig.h"

#include <oneapi/dnnl/dnnl.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <string>

namespace wb {

/// /proc/cpuinfo's first "model name" with its "cpu family" and "model" numbers, e.g. "AMD EPYC
/// (family 26, model 2)" (what every benchmark line records: the same program runs at different
/// shares of the peak on different CPUs, and a virtual machine's name may not tell Zen 4, family
/// 25, from Zen 5, family 26), or "unknown".
inline std::string benchCpuModel()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line, name, family, model;
    const auto value = [&line] { return line.substr(line.find(':') + 2); };
    while (std::getline(in, line) && line.find(':') != std::string::npos) {
        const std::string key = line.substr(0, line.find_first_of("\t:"));
        if (key == "model name" && name.empty())
            name = value();
        else if (key == "cpu family" && family.empty())
            family = value();
        else if (key == "model" && model.empty())
            model = value();
    }
    if (name.empty())
        return "unknown";
    return family.empty() ? name : name + " (family " + family + ", model " + model + ")";
}

/// This thread's CPU time in seconds (1 intra-op thread, OPENBLAS_NUM_THREADS=1: all of a step).
inline double threadCpu()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// The best rate of repeated runs of one product, GFLOP/s: per wall second and per second of
/// this thread's CPU time (the rate on a core of its own, for a loaded machine).
struct GemmRate
{
    double wall = 0, cpu = 0;
};

/// oneDNN's sgemm C = A·B (row-major [m,k]·[k,n]) on random operands: one untimed call, then
/// the best of `repeats`.
inline GemmRate dnnlGemmRate(int64_t m, int64_t k, int64_t n, int repeats)
{
    torch::NoGradGuard guard;
    auto a = torch::randn({m, k}), b = torch::randn({k, n}), c = torch::empty({m, n});
    const auto run = [&]() {
        dnnl_sgemm('N', 'N', m, n, k, 1.0f, a.data_ptr<float>(), k, b.data_ptr<float>(), n, 0.0f, c.data_ptr<float>(), n);
    };
    run();
    double best = 1e30, bestCpu = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = threadCpu();
        run();
        bestCpu = std::min(bestCpu, threadCpu() - c0);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double flops = 2.0 * double(m) * double(k) * double(n);
    return {flops / best / 1e9, flops / bestCpu / 1e9};
}

/// The FLOPs of the GEMMs of one training example of BertForSequenceClassification (forward
/// and backward), counted from the model's matmuls (core/model/bertmodel.cpp), S = seq, H, I,
/// L layers, N labels. One multiply-add is 2 FLOPs.
///   a full block (layers 0 … L−2), forward: Q, K, V, attention output 4·2·S·H²; FFN 2·2·S·H·I;
///     scores Q·Kᵀ and probs·V 2·2·S²·H (over all heads, H = heads·d)
///   the last block computes only [CLS] (TF2's output_range=1): K, V 2·2·S·H²; Q and the
///     attention output 2·2·H²; FFN 2·2·H·I; scores and context 2·2·S·H
///   pooler 2·H², classifier 2·H·N
///   backward = 2 × forward: every GEMM has a weight gradient and an input gradient (the
///   embeddings' LayerNorm needs the gradient of layer 0's input, so no input gradient is skipped).
inline double gemmFlopsPerExample(const BertConfig &c, int64_t seq, int64_t labels)
{
    const double s = double(seq), h = double(c.hidden_size), i = double(c.intermediate_size);
    const double full = 8 * s * h * h + 4 * s * h * i + 4 * s * s * h;
    const double last = 4 * s * h * h + 4 * h * h + 4 * h * i + 4 * s * h;
    const double forward = double(c.num_hidden_layers - 1) * full + last + 2 * h * h + 2 * h * double(labels);
    return 3.0 * forward;
}

} // namespace wb
