// SPDX-License-Identifier: Apache-2.0
// Token attributions (issue 25): Integrated Gradients with m steps (batched, as Try it and
// classify --explain run it) and gradient × input for one text of 128 wordpieces on BERT-Tiny
// (L=2, H=128, A=2, I=512, vocab 30522), random weights, eval mode. Goal: IG with 32 steps
// ≤ 150 ms on one core (OPENBLAS_NUM_THREADS=1, threads 1). Prints one JSON object per method.
// Usage: bench_explain [steps] [threads] [repeats] [seq]
#include "core/config/bertconfig.h"
#include "core/model/bertmodel.h"
#include "core/infer/attributiontorch.h"
#include "core/engine/blascheck.h"
#include "bench/benchpeak.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace wb;

namespace {

/// CPU seconds of the process (all threads): with one thread, what the run costs on an idle
/// core even when other jobs share the machine (wall time is reported too).
double cpuSeconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

} // namespace

int main(int argc, char **argv)
{
    const int64_t steps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 32;
    const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
    const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 10;
    const int64_t seq = argc > 4 ? std::max(3, std::atoi(argv[4])) : 128;
    if (threads > 0)
        torch::set_num_threads(threads);
    BertConfig c;
    c.vocab_size = 30522;
    c.type_vocab_size = 2;
    c.max_position_embeddings = 512;
    c.num_hidden_layers = 2, c.hidden_size = 128, c.num_attention_heads = 2, c.intermediate_size = 512;
    nn::BertForSequenceClassification model(c, 2, nn::makeGenerator(1));
    model->eval();
    auto gen = nn::makeGenerator(2);
    torch::Tensor ids = torch::randint(1000, c.vocab_size, {seq}, gen, torch::kLong);
    ids[0] = 101; // [CLS]
    ids[seq - 1] = 102; // [SEP]
    const torch::Tensor segs = torch::zeros({seq}, torch::kLong);
    for (const AttributionMethod method : {AttributionMethod::IntegratedGradients, AttributionMethod::GradientXInput}) {
        ExplainOptions o;
        o.method = method;
        o.ig_steps = steps;
        std::vector<double> times, cpu;
        TokenAttributions last;
        for (int r = 0; r < repeats + 2; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            const double c0 = cpuSeconds();
            last = computeTokenAttributions(*model, ids, segs, o, 0, 101, 102);
            if (r >= 2) { // two warm-up runs
                times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
                cpu.push_back(cpuSeconds() - c0);
            }
        }
        std::sort(times.begin(), times.end());
        std::sort(cpu.begin(), cpu.end());
        nlohmann::ordered_json j;
        j["bench"] = "explain";
        j["method"] = attributionMethodName(method);
        j["config"] = "tiny";
        j["seq"] = seq;
        j["ig_steps"] = method == AttributionMethod::IntegratedGradients ? steps : 1;
        j["interpolation_batch"] = interpolationBatch(o.interpolation_batch, seq, c.hidden_size, c.num_hidden_layers);
        j["threads"] = torch::get_num_threads();
        j["cpu"] = benchCpuModel();
        j["blas"] = loadedBlas();
        j["median_ms"] = 1000.0 * times[times.size() / 2];
        j["min_ms"] = 1000.0 * times.front();
        j["median_cpu_ms"] = 1000.0 * cpu[cpu.size() / 2];
        j["relative_gap"] = last.completeness.relative_gap;
        std::cout << j.dump() << std::endl;
    }
    return 0;
}
