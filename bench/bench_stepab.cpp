// SPDX-License-Identifier: Apache-2.0
// A/B of the fp32 training step's kernel choices (nn::setFastKernels) in one process: the kernel
// sets take turns step by step on one BERT-Mini (or -Tiny) model, so a slow minute of a shared
// machine falls on all of them alike; separate runs minutes apart differed by up to 25 % here
// (docs/benchmarks.md, session 12). Prints one JSON object per set: its steps' min, lower
// quartile and median in seconds. One intra-op thread unless told otherwise.
// Each round also measures the one-thread GEMM peak (oneDNN's sgemm, the better of 1024³ and
// BERT-Mini's FFN shape 4096×256×1024, best of 3 each) just before its steps, and each set's
// share of the peak is reported both against that round's peak (the median over rounds of
// step GEMM GFLOP/s ÷ the round's peak: like for like when the machine's speed drifts) and,
// as bench_train reports it, of its median step against the best peak of the whole run.
// Usage: bench_stepab [mini|tiny] [rounds, default 12] [threads, default 1] SET...
//   SET: KERNELS or KERNELS@CPU
//   KERNELS: dnnl (the product's default) | aten | linear | attention | nogelu | nosoftmax | nolayernorm | nobias | dwdnnl | dwblas
//   (bench/benchconfig.h, benchKernels)
//   CPU: default | avx2 | avx512, the instruction-set variant of the workbench's own vector loops
//   (core/util/cpucapability.h); without it, the best this CPU has. (ATen's and oneDNN's own
//   kernels follow ATEN_CPU_CAPABILITY and ONEDNN_MAX_CPU_ISA for the whole process.)
#include "bench/benchconfig.h"
#include "bench/benchpeak.h"
#include "core/model/bertmodel.h"
#include "core/model/fusedops.h"
#include "core/train/adamw.h"
#include "core/util/cpucapability.h"
#include "core/util/trainingallocator.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

using namespace wb;


int main(int argc, char **argv)
{
    const std::string which = argc > 1 ? argv[1] : "mini";
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 12;
    const int threads = argc > 3 ? std::max(1, std::atoi(argv[3])) : 1;
    struct Set
    {
        std::string name;
        nn::FastKernels kernels;
        CpuCapability cpu;
    };
    std::vector<Set> sets;
    for (int i = 4; i < argc; ++i) {
        const std::string arg = argv[i];
        const size_t at = arg.find('@');
        nn::FastKernels k;
        const std::optional<CpuCapability> cpu =
            at == std::string::npos ? detectedCpuCapability() : parseCpuCapability(arg.substr(at + 1));
        if (!benchKernels(arg.substr(0, at), k) || !cpu) {
            std::cerr << "bench_stepab: a set is KERNELS or KERNELS@CPU, KERNELS one of dnnl, aten, linear, attention, "
                         "nogelu, nosoftmax, nolayernorm, nobias, dwdnnl, dwblas and CPU one of default, avx2, avx512; not '"
                      << arg << "'\n";
            return 2;
        }
        if (std::min(int(*cpu), int(detectedCpuCapability())) != int(*cpu)) {
            std::cerr << "bench_stepab: this CPU has no " << cpuCapabilityName(*cpu) << " ('" << arg << "')\n";
            return 2;
        }
        sets.push_back({arg, k, *cpu});
    }
    if ((which != "mini" && which != "tiny") || sets.empty()) {
        std::cerr << "usage: bench_stepab [mini|tiny] [rounds] [threads] SET...\n";
        return 2;
    }
    keepFreedMemoryForTraining(); // as a run does (core/util/trainingallocator.h)
    torch::set_num_threads(threads);
    const BertConfig cfg = benchConfig(which);
    nn::BertForSequenceClassification model(cfg, 2, nn::makeGenerator(1));
    model->train();
    std::vector<std::pair<std::string, torch::Tensor>> params;
    for (auto &p : model->named_parameters())
        params.emplace_back(p.key(), p.value());
    AdamW opt(params);
    const int64_t batch = 32, seq = 128;
    const auto ids = torch::randint(0, cfg.vocab_size, {batch, seq});
    auto mask = torch::ones({batch, seq}, torch::kLong);
    mask.narrow(1, seq * 3 / 4, seq / 4).zero_();
    const auto seg = torch::zeros({batch, seq}, torch::kLong), labels = torch::randint(0, 2, {batch});
    std::map<std::string, std::vector<double>> times, shares;
    std::vector<double> peaks;
    const double gemmFlopsPerStep = gemmFlopsPerExample(cfg, seq, 2) * double(batch);
    const int warmup = 2; // rounds not timed: the allocator's and oneDNN's first-use costs
    for (int r = 0; r < warmup + rounds; ++r) {
        const double peak =
            std::max(dnnlGemmRate(1024, 1024, 1024, 3).wall, dnnlGemmRate(4096, 256, 1024, 3).wall);
        if (r >= warmup)
            peaks.push_back(peak);
        for (const auto &[name, kernels, cpu] : sets) {
            nn::setFastKernels(kernels);
            const ScopedCpuCapability useCpu(cpu);
            const auto t0 = std::chrono::steady_clock::now();
            auto loss = torch::nn::functional::cross_entropy(model->forward(ids, mask, seg), labels);
            loss.backward();
            opt.step(1e-4);
            opt.zeroGrad();
            loss.item<float>();
            const double step = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (r >= warmup) {
                times[name].push_back(step);
                shares[name].push_back(gemmFlopsPerStep / step / 1e9 / peak);
            }
        }
    }
    const double bestPeak = *std::max_element(peaks.begin(), peaks.end());
    std::sort(peaks.begin(), peaks.end());
    for (const auto &[name, kernels, cpu] : sets) {
        auto &t = times[name], &share = shares[name];
        std::sort(t.begin(), t.end());
        std::sort(share.begin(), share.end());
        nlohmann::ordered_json j;
        j["config"] = which;
        j["kernels"] = name;
        j["cpu_capability"] = cpuCapabilityName(cpu);
        j["threads"] = threads;
        j["steps"] = t.size();
        j["min_step_s"] = t.front();
        j["q1_step_s"] = t[t.size() / 4];
        j["median_step_s"] = t[t.size() / 2];
        j["step_gemm_gflops"] = gemmFlopsPerStep / 1e9;
        j["round_peak_gflops_median"] = peaks[peaks.size() / 2];
        j["gemm_peak_gflops"] = bestPeak;
        j["median_share_of_round_peak"] = share[share.size() / 2];
        j["median_step_share_of_gemm_peak"] = gemmFlopsPerStep / t[t.size() / 2] / 1e9 / bestPeak;
        std::cout << j.dump() << "\n";
    }
    return 0;
}
