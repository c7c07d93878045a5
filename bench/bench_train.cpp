// SPDX-License-Identifier: Apache-2.0
// Training throughput of the C++ trainer's step (model + loss + backward + TF2 AdamW) at
// batch 32, max_seq_length 128, for BERT-Tiny and BERT-Mini, plus the measured GEMM peak.
// Prints one JSON object per config.
// Usage: bench_train [tiny|mini|base|all] [steps] [threads] [fp32|bf16] [ckpt|-] [warmup steps, default 3]
// (bf16: the trainer's autocast scope around the forward pass, core/train/precision.h; ckpt:
// per-layer activation checkpointing, --activation_checkpointing). Peak memory: run it under
// /usr/bin/time -f %M (docs/benchmarks.md, "Memory").
#include "core/config/bertconfig.h"
#include "core/model/bertmodel.h"
#include "core/train/adamw.h"
#include "core/train/blascheck.h"
#include "core/train/precision.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace wb;

namespace {
// Warm-up steps excluded from the median, as the Python reference does (argv[6] overrides:
// 1 is enough for a peak-memory run, whose peak comes with the optimizer state of step 1).
constexpr int kWarmup = 3;

BertConfig configFor(const std::string &name)
{
    BertConfig c;
    c.vocab_size = 30522;
    c.type_vocab_size = 2;
    c.max_position_embeddings = 512;
    if (name == "tiny") {
        c.num_hidden_layers = 2, c.hidden_size = 128, c.num_attention_heads = 2, c.intermediate_size = 512;
    } else if (name == "base") {
        c.num_hidden_layers = 12, c.hidden_size = 768, c.num_attention_heads = 12, c.intermediate_size = 3072;
    } else {
        c.num_hidden_layers = 4, c.hidden_size = 256, c.num_attention_heads = 4, c.intermediate_size = 1024;
    }
    return c;
}
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
    if (threads > 0)
        torch::set_num_threads(threads);
    const int64_t batch = 32, seq = 128;
    const double peak = format == NumberFormat::Bf16
                            ? std::max({measureBf16GemmGflops(1024, 3), measureBf16GemmGflops(2048, 3)})
                            : std::max({measureGemmGflops(1024, 3), measureGemmGflops(2048, 3)});
    for (const std::string name : {"tiny", "mini", "base"}) {
        if ((which == "all" && name == "base") || (which != "all" && which != name))
            continue;
        const BertConfig cfg = configFor(name);
        nn::BertForSequenceClassification model(cfg, 2, nn::makeGenerator(1));
        model->train();
        model->setActivationCheckpointing(checkpointing);
        std::vector<std::pair<std::string, torch::Tensor>> params;
        for (auto &p : model->named_parameters())
            params.emplace_back(p.key(), p.value());
        AdamW opt(params);
        auto ids = torch::randint(0, cfg.vocab_size, {batch, seq});
        auto mask = torch::ones({batch, seq}, torch::kLong);
        mask.narrow(1, seq * 3 / 4, seq / 4).zero_();
        auto seg = torch::zeros({batch, seq}, torch::kLong);
        auto labels = torch::randint(0, 2, {batch});
        std::vector<double> times;
        for (int s = 0; s < steps + warmup; ++s) {
            const auto t0 = std::chrono::steady_clock::now();
            torch::Tensor logits;
            {
                AutocastGuard autocast(format, c10::Device(c10::kCPU));
                logits = model->forward(ids, mask, seg);
            }
            auto loss = torch::nn::functional::cross_entropy(logits, labels);
            loss.backward();
            opt.step(1e-4);
            opt.zeroGrad();
            loss.item<float>();
            if (s >= warmup)
                times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(times.begin(), times.end());
        const double med = times[times.size() / 2];
        const double eps = double(batch) / med;
        const double flops = cfg.trainingFlopsPerExample(seq, 2);
        nlohmann::ordered_json j;
        j["impl"] = "cpp";
        j["config"] = name;
        j["dtype"] = dtype;
        j["activation_checkpointing"] = checkpointing;
        j["threads"] = torch::get_num_threads();
        j["blas"] = loadedBlas();
        j["batch"] = batch;
        j["seq"] = seq;
        j["median_step_s"] = med;
        j["examples_per_second"] = eps;
        j["model_gflops_per_example"] = flops / 1e9;
        j["model_gflops_per_second"] = flops * eps / 1e9;
        j["gemm_peak_gflops"] = peak;
        j["fraction_of_gemm_peak"] = flops * eps / 1e9 / peak;
        std::cout << j.dump() << std::endl;
    }
    return 0;
}
