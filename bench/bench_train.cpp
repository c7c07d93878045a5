// SPDX-License-Identifier: Apache-2.0
// Training throughput of the C++ trainer's step (model + loss + backward + TF2 AdamW) at
// batch 32, max_seq_length 128, for BERT-Tiny and BERT-Mini, plus the measured GEMM peak.
// Prints one JSON object per config.
// Usage: bench_train [tiny|mini|base|all] [steps] [threads] [fp32|bf16] [ckpt|-] [warmup steps, default 3]
//                    [kernels: dnnl (default, the product's) | aten | linear | attention | nogelu | nosoftmax |
//                     nolayernorm | nobias | dwdnnl | dwblas | noblocked]
// (kernels: which fp32 products run on oneDNN and which element-wise passes are fused,
// nn::setFastKernels — "aten" is the step before issue 28 §3, "linear" / "attention" one
// lever each, "nogelu" / "nosoftmax" / "nolayernorm" the default less nn::fusedGelu /
// nn::fusedAttentionSoftmax / nn::fusedLayerNorm, "nobias" the default with each product's bias
// added before it rather than in the pass after it, "dwdnnl" / "dwblas" the weight gradients on
// oneDNN / the BLAS whatever the automatic choice is: nn::automaticWeightGradientLibrary,
// "noblocked" the attention over the whole batch instead of nn::blockedAttention's blocks)
// (bf16: the trainer's autocast scope around the forward pass, core/engine/precision.h; ckpt:
// per-layer activation checkpointing, --activation_checkpointing). Peak memory: run it under
// /usr/bin/time -f %M (docs/benchmarks.md, "Memory").
#include "bench/benchconfig.h"
#include "bench/benchpeak.h"
#include "core/config/bertconfig.h"
#include "core/model/bertmodel.h"
#include "core/kernels/fusedops.h"
#include "core/engine/adamw.h"
#include "core/engine/blascheck.h"
#include "core/engine/precision.h"
#include "core/util/cpucapability.h"
#include "core/util/trainingallocator.h"

#include <ATen/record_function.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

using namespace wb;

namespace {
// Warm-up steps excluded from the median, as the Python reference does (argv[6] overrides:
// 1 is enough for a peak-memory run, whose peak comes with the optimizer state of step 1).
constexpr int kWarmup = 3;

/// GEMM throughput in bfloat16 (torch::mm on bf16 n×n matrices), median of `repeats`, GFLOP/s.
double measureBf16GemmGflops(int n, int repeats)
{
    torch::NoGradGuard guard;
    auto a = torch::randn({n, n}).to(torch::kBFloat16), b = torch::randn({n, n}).to(torch::kBFloat16);
    auto c = torch::mm(a, b);
    std::vector<double> times;
    for (int k = 0; k < repeats; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        c = torch::mm(a, b);
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2];
    return t > 0 ? 2.0 * double(n) * n * n / t / 1e9 : 0.0;
}

/// The best CPU-time GEMM rate seen (GFLOP/s): the peak on a core of its own, for a loaded machine.
double gCpuPeak = 0;

/// fp32 GEMM throughput of an [m,k]·[k,n] torch::mm, best of `repeats` after one warm-up, GFLOP/s
/// of wall time (and the thread-CPU-time rate into gCpuPeak).
double measureGemmShapeGflops(int64_t m, int64_t k, int64_t n, int repeats)
{
    torch::NoGradGuard guard;
    auto a = torch::randn({m, k}), b = torch::randn({k, n});
    auto c = torch::mm(a, b);
    double best = 1e30, bestCpu = 1e30;
    for (int r = 0; r < repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = threadCpu();
        torch::mm_out(c, a, b);
        bestCpu = std::min(bestCpu, threadCpu() - c0);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const double flops = 2.0 * double(m) * double(k) * double(n);
    gCpuPeak = std::max(gCpuPeak, flops / bestCpu / 1e9);
    return flops / best / 1e9;
}

/// oneDNN's sgemm (bench/benchpeak.h), the kernel the fp32 step's Linear products run on
/// (nn::fastLinear): the peak is the best of both libraries.
double measureDnnlGemmGflops(int64_t m, int64_t k, int64_t n, int repeats)
{
    const GemmRate r = dnnlGemmRate(m, k, n, repeats);
    gCpuPeak = std::max(gCpuPeak, r.cpu);
    return r.wall;
}

/// Self time per operator (ATen ops and autograd nodes) of the calling thread, from
/// RecordFunction callbacks: a stack of open records, each record's time less its children's.
struct OpTimes
{
    struct Frame
    {
        std::string name;
        std::chrono::steady_clock::time_point t0;
        double children = 0;
    };
    static inline std::vector<Frame> stack;
    static inline std::map<std::string, double> self; // seconds
    static inline bool on = false;

    static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction &fn)
    {
        if (on)
            stack.push_back({fn.name(), std::chrono::steady_clock::now(), 0});
        return nullptr;
    }
    static void leave(const at::RecordFunction &, at::ObserverContext *)
    {
        if (!on || stack.empty())
            return;
        Frame f = std::move(stack.back());
        stack.pop_back();
        const double d = std::chrono::duration<double>(std::chrono::steady_clock::now() - f.t0).count();
        self[f.name] += d - f.children;
        if (!stack.empty())
            stack.back().children += d;
    }
};

bool isGemm(const std::string &name)
{
    for (const char *g : {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addmm_", "aten::baddbmm_",
                          "wb::dnnl_sgemm", "wb::dnnl_matmul", "wb::attention_matmul"})
        if (name == g)
            return true;
    return false;
}

/// The one-thread GEMM peak of this process: square matmuls and BERT-Mini's own FFN shape
/// ([B·S, H]·[H, I] = 4096×256×1024), best of them, measured before the model is built,
/// halfway through the timed steps and after them: a shared virtual machine can be caught
/// in a slow moment, and one measurement then understates the peak (docs/benchmarks.md).
struct Peaks
{
    NumberFormat format = NumberFormat::Fp32;
    nlohmann::ordered_json perShape;  ///< the best of every measurement, per shape, GFLOP/s
    std::vector<double> samples;      ///< the best shape of each measurement, GFLOP/s

    void measure()
    {
        nlohmann::ordered_json p;
        if (format == NumberFormat::Bf16) {
            p["bf16_1024^3"] = measureBf16GemmGflops(1024, 3);
            p["bf16_2048^3"] = measureBf16GemmGflops(2048, 3);
        } else {
            p["fp32_1024^3"] = measureGemmShapeGflops(1024, 1024, 1024, 5);
            p["fp32_2048^3"] = measureGemmShapeGflops(2048, 2048, 2048, 3);
            p["fp32_4096x256x1024"] = measureGemmShapeGflops(4096, 256, 1024, 5);
            p["fp32_4096x1024x256"] = measureGemmShapeGflops(4096, 1024, 256, 5);
            p["dnnl_fp32_1024^3"] = measureDnnlGemmGflops(1024, 1024, 1024, 5);
            p["dnnl_fp32_2048^3"] = measureDnnlGemmGflops(2048, 2048, 2048, 3);
            p["dnnl_fp32_4096x256x1024"] = measureDnnlGemmGflops(4096, 256, 1024, 5);
        }
        double best = 0;
        for (auto &[k, v] : p.items()) {
            best = std::max(best, v.get<double>());
            if (!perShape.contains(k) || perShape[k].get<double>() < v.get<double>())
                perShape[k] = v;
        }
        samples.push_back(best);
    }
    double best() const { return *std::max_element(samples.begin(), samples.end()); }
};

/// What the steps of one config measured.
struct StepTimes
{
    std::vector<double> wall, cpu; ///< the timed steps, seconds, sorted
    double phase[3] = {0, 0, 0};  ///< forward+loss, backward, optimizer of the profiled steps, summed
    int profiled = 3;              ///< extra steps under the op timer, after the timed ones
};

/// warmup untimed steps, `steps` timed ones (the peak measured again halfway and after them),
/// one untimed step to settle, then the profiled ones under OpTimes.
StepTimes runSteps(nn::BertForSequenceClassification &model, const BertConfig &cfg, NumberFormat format, int warmup,
                   int steps, Peaks &peaks)
{
    const int64_t batch = 32, seq = 128;
    std::vector<std::pair<std::string, torch::Tensor>> params;
    for (auto &p : model->named_parameters())
        params.emplace_back(p.key(), p.value());
    AdamW opt(params);
    auto ids = torch::randint(0, cfg.vocab_size, {batch, seq});
    auto mask = torch::ones({batch, seq}, torch::kLong);
    mask.narrow(1, seq * 3 / 4, seq / 4).zero_();
    auto seg = torch::zeros({batch, seq}, torch::kLong);
    auto labels = torch::randint(0, 2, {batch});
    // One untimed step between the last peak measurement and the profiled steps: right after it
    // the step's allocations land on pages the peak's matrices left, and the first touch of
    // each showed up as tens of ms of aten::fill_ / copy_ that a run's steps never pay.
    const int settle = 1;
    StepTimes out;
    OpTimes::self.clear();
    for (int s = 0; s < steps + warmup + settle + out.profiled; ++s) {
        const bool profiling = s >= steps + warmup + settle;
        OpTimes::on = profiling;
        using clock = std::chrono::steady_clock;
        const auto t0 = clock::now();
        const double c0 = threadCpu();
        torch::Tensor logits;
        {
            AutocastGuard autocast(format, c10::Device(c10::kCPU));
            logits = model->forward(ids, mask, seg);
        }
        auto loss = torch::nn::functional::cross_entropy(logits, labels);
        const auto t1 = clock::now();
        loss.backward();
        const auto t2 = clock::now();
        {
            RECORD_FUNCTION("AdamW::step (outside ATen ops)", std::vector<c10::IValue>());
            opt.step(1e-4);
            opt.zeroGrad();
        }
        loss.item<float>();
        const auto t3 = clock::now();
        if (profiling) {
            out.phase[0] += std::chrono::duration<double>(t1 - t0).count();
            out.phase[1] += std::chrono::duration<double>(t2 - t1).count();
            out.phase[2] += std::chrono::duration<double>(t3 - t2).count();
        } else if (s >= warmup && s < warmup + steps) {
            out.wall.push_back(std::chrono::duration<double>(t3 - t0).count());
            out.cpu.push_back(threadCpu() - c0);
        }
        // The peak again halfway through the timed steps and right after them (untimed).
        if (s == warmup + steps / 2 || s == warmup + steps - 1)
            peaks.measure();
    }
    OpTimes::on = false;
    std::sort(out.wall.begin(), out.wall.end());
    std::sort(out.cpu.begin(), out.cpu.end());
    return out;
}

/// The profiled steps (op timer on; a little slower than the timed ones): where a step goes.
nlohmann::ordered_json profileReport(const StepTimes &t)
{
    const double total = t.phase[0] + t.phase[1] + t.phase[2];
    double gemm = 0, ops = 0;
    std::vector<std::pair<double, std::string>> costs;
    nlohmann::ordered_json gemms = nlohmann::ordered_json::object(); // ms per step, per GEMM op
    for (auto &[name, seconds] : OpTimes::self) {
        ops += seconds;
        if (isGemm(name)) {
            gemm += seconds;
            gemms[name] = 1e3 * seconds / t.profiled;
        } else
            costs.emplace_back(seconds, name);
    }
    std::sort(costs.rbegin(), costs.rend());
    nlohmann::ordered_json top = nlohmann::ordered_json::array();
    for (size_t k = 0; k < costs.size() && k < 10; ++k)
        top.push_back({{"op", costs[k].second},
                       {"ms_per_step", 1e3 * costs[k].first / t.profiled},
                       {"share", costs[k].first / total}});
    return {{"steps", t.profiled},
            {"step_s", total / t.profiled},
            {"forward_s", t.phase[0] / t.profiled},
            {"backward_s", t.phase[1] / t.profiled},
            {"optimizer_s", t.phase[2] / t.profiled},
            {"gemm_share", gemm / total},
            {"gemm_ms_per_step", gemms},
            {"outside_ops_share", 1.0 - ops / total},
            {"top_non_gemm", top}};
}

/// The throughput and GEMM-peak shares of one config (median step, best step, CPU time).
void addThroughput(nlohmann::ordered_json &j, const BertConfig &cfg, const StepTimes &t, const Peaks &peaks)
{
    const int64_t batch = 32, seq = 128;
    const double med = t.wall[t.wall.size() / 2], eps = double(batch) / med, peak = peaks.best();
    const double flops = cfg.trainingFlopsPerExample(seq, 2), gemmFlops = gemmFlopsPerExample(cfg, seq, 2);
    j["median_step_s"] = med;
    j["min_step_s"] = t.wall.front(); // the least disturbed step: the number for A/B runs on a shared machine
    j["examples_per_second"] = eps;
    // What a step costs on a core of its own (the number to compare on a loaded machine).
    j["median_step_cpu_s"] = t.cpu[t.cpu.size() / 2];
    if (gCpuPeak > 0) { // fp32: the share in CPU time, step and peak alike
        j["gemm_peak_cpu_gflops"] = gCpuPeak;
        j["step_fraction_of_gemm_peak_cpu"] = gemmFlops * double(batch) / t.cpu[t.cpu.size() / 2] / 1e9 / gCpuPeak;
    }
    j["model_gflops_per_example"] = flops / 1e9;
    j["model_gflops_per_second"] = flops * eps / 1e9;
    j["gemm_peak_gflops"] = peak;
    j["gemm_peaks"] = peaks.perShape;
    // Each measurement's best (before, halfway, after the steps) and their spread.
    j["gemm_peak_samples"] = peaks.samples;
    j["gemm_peak_spread"] = 1.0 - *std::min_element(peaks.samples.begin(), peaks.samples.end()) / peak;
    j["fraction_of_gemm_peak"] = flops * eps / 1e9 / peak;
    // The step's GEMM FLOPs counted exactly (gemmFlopsPerExample) over the step time.
    j["step_gemm_gflops_per_example"] = gemmFlops / 1e9;
    j["step_gemm_gflops_per_second"] = gemmFlops * eps / 1e9;
    j["step_fraction_of_gemm_peak"] = gemmFlops * eps / 1e9 / peak;
    // The same share for the least disturbed step: like for like with the peak, which is the
    // best of its repetitions too (on a shared machine the median step carries the noise).
    j["best_step_fraction_of_gemm_peak"] = gemmFlops * double(batch) / t.wall.front() / 1e9 / peak;
}

} // namespace

int main(int argc, char **argv)
{
    const std::string which = argc > 1 ? argv[1] : "all";
    const int steps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
    const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
    const std::string dtype = argc > 4 ? argv[4] : "fp32";
    const NumberFormat format = parseNumberFormat(dtype);
    const bool checkpointing = argc > 5 && std::string(argv[5]) == "ckpt";
    const int warmup = argc > 6 ? std::max(0, std::atoi(argv[6])) : kWarmup;
    const std::string kernels = argc > 7 ? argv[7] : "dnnl"; // the product's default (nn::FastKernels{})
    nn::FastKernels fastKernels;
    if (!benchKernels(kernels, fastKernels)) {
        std::cerr << "bench_train: kernels must be one of dnnl, aten, linear, attention, nogelu, nosoftmax, "
                     "nolayernorm, nobias, dwdnnl, dwblas, noblocked; not '"
                  << kernels << "'\n";
        return 2;
    }
    nn::setFastKernels(fastKernels);
    keepFreedMemoryForTraining(); // as a run does (core/util/trainingallocator.h)
    if (threads > 0)
        torch::set_num_threads(threads);
    Peaks peaks;
    peaks.format = format;
    peaks.measure();
    at::addThreadLocalCallback(at::RecordFunctionCallback(&OpTimes::enter, &OpTimes::leave));
    for (const std::string name : {"tiny", "mini", "base"}) {
        if ((which == "all" && name == "base") || (which != "all" && which != name))
            continue;
        const BertConfig cfg = benchConfig(name);
        nn::BertForSequenceClassification model(cfg, 2, nn::makeGenerator(1));
        model->train();
        model->setActivationCheckpointing(checkpointing);
        const StepTimes t = runSteps(model, cfg, format, warmup, steps, peaks);
        nlohmann::ordered_json j;
        j["impl"] = "cpp";
        j["config"] = name;
        j["dtype"] = dtype;
        j["activation_checkpointing"] = checkpointing;
        j["kernels"] = kernels;
        j["threads"] = torch::get_num_threads();
        j["cpu"] = benchCpuModel();
        // The instruction set each part runs at: ours (WB_CPU_CAPABILITY), ATen's element-wise
        // kernels (ATEN_CPU_CAPABILITY) and oneDNN's (ONEDNN_MAX_CPU_ISA); unset = the CPU's best.
        j["cpu_capability"] = cpuCapabilityName(cpuCapability());
        j["weight_gradients_automatic"] =
            nn::automaticWeightGradientLibrary() == nn::WeightGradientLibrary::Blas ? "blas" : "onednn";
        for (const char *var : {"ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA"})
            if (const char *v = std::getenv(var))
                j[var] = v;
        j["blas"] = loadedBlas();
        j["batch"] = 32;
        j["seq"] = 128;
        addThroughput(j, cfg, t, peaks);
        j["profile"] = profileReport(t);
        std::cout << j.dump() << std::endl;
    }
    return 0;
}
