// SPDX-License-Identifier: Apache-2.0
// Masked-LM pretraining throughput (issue 24): one step of the pretraining run (BertForPreTraining
// forward with the sequence output gathered at the masked positions, pretrainingLoss, backward,
// TF2 AdamW) at batch 32, max_seq_length 128, 20 predictions per sequence, for BERT-Tiny and
// BERT-Mini. The Python reference is bench/train_reference.py --task pretrain (the same model,
// gather, loss and AdamW). Prints one JSON object per config.
// Usage: bench_pretrain [tiny|mini|all] [steps] [threads] [predictions] [aten|dnnl]
// (kernels: nn::setFastKernels; dnnl, the product's default, when not given)
#include "core/config/bertconfig.h"
#include "core/kernels/fusedops.h"
#include "core/model/pretrainingheads.h"
#include "core/engine/adamw.h"
#include "core/engine/blascheck.h"
#include "core/util/trainingallocator.h"
#include "bench/benchpeak.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace wb;

namespace {

constexpr int kWarmup = 3; // as the Python reference

BertConfig configFor(const std::string &name)
{
    BertConfig c;
    c.vocab_size = 30522;
    c.type_vocab_size = 2;
    c.max_position_embeddings = 512;
    if (name == "tiny")
        c.num_hidden_layers = 2, c.hidden_size = 128, c.num_attention_heads = 2, c.intermediate_size = 512;
    else
        c.num_hidden_layers = 4, c.hidden_size = 256, c.num_attention_heads = 4, c.intermediate_size = 1024;
    return c;
}

} // namespace

int main(int argc, char **argv)
{
    const std::string which = argc > 1 ? argv[1] : "all";
    const int steps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
    const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
    const int64_t predictions = argc > 4 ? std::max(1, std::atoi(argv[4])) : 20;
    const std::string kernels = argc > 5 ? argv[5] : "dnnl"; // the product's default (nn::FastKernels{})
    if (kernels != "aten" && kernels != "dnnl") {
        std::cerr << "bench_pretrain: kernels must be dnnl or aten, not '" << kernels << "'\n";
        return 2;
    }
    const bool dnnl = kernels == "dnnl";
    nn::setFastKernels({dnnl, dnnl, dnnl, dnnl, dnnl, dnnl});
    keepFreedMemoryForTraining(); // as a run does (core/util/trainingallocator.h)
    if (threads > 0)
        torch::set_num_threads(threads);
    const int64_t batch = 32, seq = 128;
    for (const std::string name : {"tiny", "mini"}) {
        if (which != "all" && which != name)
            continue;
        const BertConfig cfg = configFor(name);
        nn::BertForPreTraining model(cfg, false, nn::makeGenerator(1));
        model->train();
        std::vector<std::pair<std::string, torch::Tensor>> params;
        for (auto &p : model->named_parameters())
            params.emplace_back(p.key(), p.value());
        AdamW opt(params);
        auto gen = nn::makeGenerator(2);
        auto ids = torch::randint(0, cfg.vocab_size, {batch, seq}, gen, torch::kLong);
        auto mask = torch::ones({batch, seq}, torch::kLong);
        mask.narrow(1, seq * 3 / 4, seq / 4).zero_();
        auto seg = torch::zeros({batch, seq}, torch::kLong);
        std::vector<torch::Tensor> rows;
        for (int64_t b = 0; b < batch; ++b) // P distinct positions among the real tokens
            rows.push_back(torch::randperm(seq * 3 / 4, gen, torch::kLong).narrow(0, 0, predictions));
        auto positions = torch::stack(rows);
        auto lmIds = torch::randint(0, cfg.vocab_size, {batch, predictions}, gen, torch::kLong);
        auto lmWeights = torch::ones({batch, predictions});
        std::vector<double> times;
        for (int s = 0; s < steps + kWarmup; ++s) {
            const auto t0 = std::chrono::steady_clock::now();
            const auto out = model->forward(ids, mask, seg, positions);
            auto loss = pretrainingLoss(out.mlm_logits, lmIds, lmWeights, {}, {}).loss;
            loss.backward();
            opt.step(1e-4);
            opt.zeroGrad();
            loss.item<float>();
            if (s >= kWarmup)
                times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(times.begin(), times.end());
        const double med = times[times.size() / 2];
        nlohmann::ordered_json j;
        j["impl"] = "cpp";
        j["task"] = "pretrain";
        j["config"] = name;
        j["threads"] = torch::get_num_threads();
        j["cpu"] = benchCpuModel();
        j["blas"] = loadedBlas();
        j["batch"] = batch;
        j["seq"] = seq;
        j["predictions"] = predictions;
        j["kernels"] = nn::fastKernels().linear ? "dnnl" : "aten";
        j["median_step_s"] = med;
        j["examples_per_second"] = double(batch) / med;
        std::cout << j.dump() << std::endl;
    }
    return 0;
}
