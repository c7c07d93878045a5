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
// Usage: bench_stepab mini|tiny ROUNDS THREADS SET...   (e.g. bench_stepab mini 12 1 dnnl nobias)
//   ROUNDS: timed steps per set (after 2 untimed rounds); THREADS: intra-op threads
//   SET: KERNELS or KERNELS@CPU, each set named once
//   KERNELS: dnnl (the product's default) | aten | linear | attention | nogelu | nosoftmax | nolayernorm | nobias | dwdnnl | dwblas | noblocked
//   (bench/benchconfig.h, benchKernels)
//   CPU: default | avx2 | avx512, the instruction-set variant of the workbench's own vector loops
//   (core/util/cpucapability.h); without it, cpuCapability(): the best this CPU has, or what
//   WB_CPU_CAPABILITY asks. (ATen's and oneDNN's own kernels follow ATEN_CPU_CAPABILITY and
//   ONEDNN_MAX_CPU_ISA for the whole process; each line reports them.)
// Medians of an even count are the mean of the middle two.
#include "bench/benchconfig.h"
#include "bench/benchpeak.h"
#include "core/model/bertmodel.h"
#include "core/kernels/fusedops.h"
#include "core/engine/adamw.h"
#include "core/util/blaslibrary.h"
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

namespace {

struct Set
{
    std::string name;
    nn::FastKernels kernels;
    CpuCapability cpu;
};

struct Options
{
    std::string which;
    int rounds = 0, threads = 0;
    std::vector<Set> sets;
};

/// The usage text, with the kernel sets benchKernels knows.
std::string usage()
{
    std::string kernels;
    for (const std::string &name : benchKernelNames())
        kernels += (kernels.empty() ? "" : ", ") + name;
    return "usage: bench_stepab mini|tiny ROUNDS THREADS SET...   (e.g. bench_stepab mini 12 1 dnnl nobias)\n"
           "  SET: KERNELS or KERNELS@CPU, each set named once\n"
           "  KERNELS: " +
           kernels + "\n  CPU: default, avx2, avx512\n";
}

/// A whole positive number, or nullopt.
std::optional<int> positiveInt(const std::string &text)
{
    if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    const int v = std::stoi(text);
    return v > 0 ? std::optional<int>(v) : std::nullopt;
}

/// One SET argument; prints what is wrong with it and returns nullopt.
std::optional<Set> parseSet(const std::string &arg)
{
    const size_t at = arg.find('@');
    const std::string kernels = arg.substr(0, at);
    nn::FastKernels k;
    if (!benchKernels(kernels, k)) {
        std::cerr << "bench_stepab: '" << kernels << "' in '" << arg << "' is not a kernel set\n" << usage();
        return std::nullopt;
    }
    const std::optional<CpuCapability> cpu =
        at == std::string::npos ? cpuCapability() : parseCpuCapability(arg.substr(at + 1));
    if (!cpu) {
        std::cerr << "bench_stepab: '" << arg.substr(at + 1) << "' in '" << arg << "' is not a CPU capability\n"
                  << usage();
        return std::nullopt;
    }
    if (std::min(int(*cpu), int(detectedCpuCapability())) != int(*cpu)) {
        std::cerr << "bench_stepab: this CPU has no " << cpuCapabilityName(*cpu) << " ('" << arg << "')\n";
        return std::nullopt;
    }
    return Set{arg, k, *cpu};
}

/// The command line, or nullopt after printing why it is not one.
std::optional<Options> parseOptions(int argc, char **argv)
{
    Options o;
    o.which = argc > 1 ? argv[1] : "";
    const std::optional<int> rounds = argc > 2 ? positiveInt(argv[2]) : std::nullopt;
    const std::optional<int> threads = argc > 3 ? positiveInt(argv[3]) : std::nullopt;
    if ((o.which != "mini" && o.which != "tiny") || !rounds || !threads || argc < 5) {
        std::cerr << usage();
        return std::nullopt;
    }
    o.rounds = *rounds, o.threads = *threads;
    for (int i = 4; i < argc; ++i) {
        const std::optional<Set> set = parseSet(argv[i]);
        if (!set)
            return std::nullopt;
        for (const Set &seen : o.sets)
            if (seen.name == set->name) {
                std::cerr << "bench_stepab: the set '" << set->name << "' is named twice\n";
                return std::nullopt;
            }
        o.sets.push_back(*set);
    }
    return o;
}

/// The median of `v` (the mean of the middle two for an even count).
double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The library the set's weight gradients ran on.
const char *weightGradientsName(const nn::FastKernels &k)
{
    const nn::WeightGradientLibrary lib = k.weightGradients == nn::WeightGradientLibrary::Automatic
                                              ? nn::automaticWeightGradientLibrary()
                                              : k.weightGradients;
    return lib == nn::WeightGradientLibrary::Blas ? "blas" : "onednn";
}

} // namespace

int main(int argc, char **argv)
{
    const std::optional<Options> options = parseOptions(argc, argv);
    if (!options)
        return 2;
    const auto &[which, rounds, threads, sets] = *options;
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
    for (const auto &[name, kernels, cpu] : sets) {
        auto &t = times[name];
        std::sort(t.begin(), t.end());
        nlohmann::ordered_json j;
        j["config"] = which;
        j["kernels"] = name;
        j["cpu_capability"] = cpuCapabilityName(cpu);
        for (const char *var : {"ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA"})
            if (const char *v = std::getenv(var))
                j[var] = v;
        j["weight_gradients"] = weightGradientsName(kernels);
        j["blas"] = loadedBlas();
        j["threads"] = threads;
        j["cpu"] = benchCpuModel();
        j["steps"] = t.size();
        j["min_step_s"] = t.front();
        j["q1_step_s"] = t[t.size() / 4];
        j["median_step_s"] = median(t);
        j["step_gemm_gflop"] = gemmFlopsPerStep / 1e9; // GFLOP per step, not a rate
        j["round_peak_gflops_median"] = median(peaks);
        j["gemm_peak_gflops"] = bestPeak;
        j["median_share_of_round_peak"] = median(shares[name]);
        j["median_step_share_of_gemm_peak"] = gemmFlopsPerStep / median(t) / 1e9 / bestPeak;
        std::cout << j.dump() << "\n";
    }
    return 0;
}
