// SPDX-License-Identifier: Apache-2.0
// Inference throughput (issue 26 "Measured"): classify's path (TextClassifier on an export
// folder, its forward pass on features already built: probabilitiesOf, no tokenization in the
// timed part) against ONNX Runtime (npm onnxruntime-node, bench/ort_inference.mjs) on the same
// export's onnx/model.onnx with the same inputs, one thread each, run back to back in
// alternating rounds. BERT-Tiny (L=2, H=128) or BERT-Mini (L=4, H=256), vocab 30522, random
// weights, 2 labels, seq 128 (no padding). Goal: classify ≥ 0.8× ONNX Runtime at batch 32.
// After the timed rounds, three forward passes run under an operator timer (RecordFunction
// self times) to say where our time goes: GEMMs, attention softmax, layer norm, GELU, other.
// Also the CPU model, the forward pass's GEMM FLOPs and our share of the same process's oneDNN
// sgemm peak at the same thread count. Prints one JSON object. Usage:
//   bench_inference tiny|mini [batch=32] [repeats=10] [rounds=3] [node_modules] [threads=1]
// node_modules: where onnxruntime-node is ("" or left out: the default, $XDG_CACHE_HOME/bert-workbench/npm-onnx/node_modules,
// the cache the ONNX tests install it into); without node or the package, ours alone is timed.
#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/prepare/exampledata.h"
#include "core/model/bertmodel.h"
#include "core/engine/blascheck.h"
#include "core/export/export.h"
#include "core/infer/textclassifier.h"
#include "bench/benchpeak.h"

#include <ATen/record_function.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

using namespace wb;
namespace fs = std::filesystem;

namespace {

/// Self time per operator of this thread (a stack of open RecordFunction records, each
/// record's time less its children's).
struct OpTimer
{
    struct Open
    {
        std::string name;
        std::chrono::steady_clock::time_point t0;
        double children = 0;
    };
    static inline std::vector<Open> open;
    static inline std::map<std::string, double> self;
    static inline bool on = false;
    static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction &fn)
    {
        if (on)
            open.push_back({fn.name(), std::chrono::steady_clock::now(), 0});
        return nullptr;
    }
    static void leave(const at::RecordFunction &, at::ObserverContext *)
    {
        if (!on || open.empty())
            return;
        Open o = std::move(open.back());
        open.pop_back();
        const double d = std::chrono::duration<double>(std::chrono::steady_clock::now() - o.t0).count();
        self[o.name] += d - o.children;
        if (!open.empty())
            open.back().children += d;
    }
};

std::string category(const std::string &op)
{
    for (const char *g : {"aten::addmm", "aten::mm", "aten::bmm", "aten::baddbmm", "wb::dnnl_sgemm", "wb::dnnl_matmul",
                          "wb::attention_matmul"})
        if (op == g)
            return "gemm";
    if (op.find("softmax") != std::string::npos || op == "wb::blocked_attention") // its self time: mask and softmax
        return "softmax";
    if (op.find("layer_norm") != std::string::npos)
        return "layer_norm";
    if (op.find("gelu") != std::string::npos)
        return "gelu";
    return "other";
}

BertConfig configFor(const std::string &name)
{
    BertConfig c;
    c.vocab_size = 30522;
    c.type_vocab_size = 2;
    c.max_position_embeddings = 512;
    c.hidden_act = "gelu";
    if (name == "mini")
        c.num_hidden_layers = 4, c.hidden_size = 256, c.num_attention_heads = 4, c.intermediate_size = 1024;
    else
        c.num_hidden_layers = 2, c.hidden_size = 128, c.num_attention_heads = 2, c.intermediate_size = 512;
    return c;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

std::string runCapture(const std::string &command)
{
    std::string out;
    if (FILE *p = ::popen(command.c_str(), "r")) {
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
            out.append(buf, n);
        ::pclose(p);
    }
    return out;
}

std::string quoted(const std::string &s) { return "'" + s + "'"; }

/// The best oneDNN sgemm rate (GFLOP/s, wall) over the forward pass's product shapes at this
/// batch, on the calling thread's intra-op threads: the peak our forward pass is judged against.
double forwardGemmPeak(const BertConfig &c, int64_t rows)
{
    at::internal::lazy_init_num_threads();
    double best = 0;
    const int64_t h = c.hidden_size, i = c.intermediate_size;
    for (const auto &[k, n] : std::vector<std::pair<int64_t, int64_t>>{{h, h}, {h, i}, {i, h}})
        for (int round = 0; round < 3; ++round)
            best = std::max(best, dnnlGemmRate(rows, k, n, 20).wall);
    return best;
}

/// An export folder of a randomly initialised model of `cfg` in `dir` (created): what classify
/// reads (model.safetensors, onnx/model.onnx, a vocabulary of vocab_size made-up wordpieces).
void writeExportFolder(const fs::path &dir, const BertConfig &cfg, int64_t seq)
{
    fs::create_directories(dir);
    {
        std::ofstream vocab(dir / "vocab-source.txt");
        vocab << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
        for (int64_t k = 5; k < cfg.vocab_size; ++k)
            vocab << "t" << k << "\n";
    }
    InputMetaData meta;
    meta.num_labels = 2;
    meta.max_seq_length = seq;
    meta.do_lower_case = true;
    TrainingOptions spec;
    spec.vocab_file = (dir / "vocab-source.txt").string();
    spec.input_meta_data_path = (dir / "no-such" / "input_meta_data.json").string();
    nn::BertForSequenceClassification model(cfg, meta.num_labels, nn::makeGenerator(1));
    model->eval();
    exportModelFiles(dir.string(), model, cfg, meta, spec);
}

/// batch × seq random wordpieces (ids from 1000 up), each row [CLS] … [SEP], no padding.
std::vector<int64_t> randomIds(const BertConfig &cfg, int64_t batch, int64_t seq)
{
    auto gen = nn::makeGenerator(2);
    const torch::Tensor r = torch::randint(1000, cfg.vocab_size, {batch, seq}, gen, torch::kLong).contiguous();
    std::vector<int64_t> ids(r.data_ptr<int64_t>(), r.data_ptr<int64_t>() + r.numel());
    for (int64_t b = 0; b < batch; ++b) {
        ids[size_t(b * seq)] = 2;            // [CLS]
        ids[size_t(b * seq + seq - 1)] = 3;  // [SEP]
    }
    return ids;
}

/// Where our time goes: three more passes under the operator timer, shares by category and the
/// five largest other operators.
nlohmann::ordered_json operatorProfile(const TextClassifier &classifier, const std::vector<int64_t> &ids,
                                       const std::vector<int64_t> &mask, const std::vector<int64_t> &types,
                                       int64_t batch)
{
    at::addThreadLocalCallback(at::RecordFunctionCallback(&OpTimer::enter, &OpTimer::leave));
    OpTimer::on = true;
    const auto p0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 3; ++k)
        classifier.probabilitiesOf(ids, mask, types, batch);
    const double profiled = std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
    OpTimer::on = false;
    std::map<std::string, double> byCategory;
    std::vector<std::pair<double, std::string>> topOther;
    double inside = 0;
    for (const auto &[op, t] : OpTimer::self) {
        byCategory[category(op)] += t;
        inside += t;
        if (category(op) == "other")
            topOther.emplace_back(t, op);
    }
    // The pass's time in no recorded operator (its own loops between them).
    byCategory["other"] += std::max(0.0, profiled - inside);
    topOther.emplace_back(std::max(0.0, profiled - inside), "(outside any operator)");
    std::sort(topOther.rbegin(), topOther.rend());
    nlohmann::ordered_json shares = nlohmann::ordered_json::object();
    for (const char *c : {"gemm", "softmax", "layer_norm", "gelu", "other"})
        shares[c] = byCategory[c] / profiled;
    nlohmann::ordered_json others = nlohmann::ordered_json::array();
    for (size_t k = 0; k < topOther.size() && k < 5; ++k)
        others.push_back({{"op", topOther[k].second}, {"share", topOther[k].first / profiled}});
    return {{"passes", 3}, {"ms_per_pass", 1e3 * profiled / 3}, {"shares", shares}, {"top_other", others}};
}
/// ONNX Runtime's median time against ours, and how far apart the first row's probabilities are
/// (the same model, the same inputs): ortLogits that row's two logits, probs ours.
void addOrtComparison(nlohmann::ordered_json &j, const std::vector<double> &oursMs, const std::vector<double> &ortMs,
                      const std::vector<double> &ortLogits, const std::vector<float> &probs, int64_t batch)
{
    j["ort_median_ms"] = median(ortMs);
    j["ort_examples_per_second"] = 1e3 * double(batch) / median(ortMs);
    j["ratio_ours_to_ort"] = median(ortMs) / median(oursMs); // throughput ratio: ≥ 0.8 is the goal
    const double m = std::max(ortLogits[0], ortLogits[1]);
    const double z = std::exp(ortLogits[0] - m) + std::exp(ortLogits[1] - m);
    j["max_probability_difference"] = std::max(std::abs(std::exp(ortLogits[0] - m) / z - probs[0]),
                                               std::abs(std::exp(ortLogits[1] - m) / z - probs[1]));
}

} // namespace

int main(int argc, char **argv)
{
    const std::string which = argc > 1 ? argv[1] : "tiny";
    const int64_t batch = argc > 2 ? std::max(1, std::atoi(argv[2])) : 32;
    const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 10;
    const int rounds = argc > 4 ? std::max(1, std::atoi(argv[4])) : 3;
    const std::string modules = argc > 5 && *argv[5] ? argv[5] : defaultExampleCacheDir() + "/npm-onnx/node_modules";
    const int threads = argc > 6 ? std::max(1, std::atoi(argv[6])) : 1;
    const int64_t seq = 128;
    torch::set_num_threads(threads);

    // The export folder classify reads (model.safetensors, onnx/model.onnx, a vocab of vocab_size).
    const BertConfig cfg = configFor(which);
    const fs::path dir = fs::temp_directory_path() / ("bench-inference-" + which + "-" + std::to_string(::getpid()));
    writeExportFolder(dir, cfg, seq);
    ClassifierSource src;
    src.model_export_path = dir.string();
    const TextClassifier classifier(src);

    // One batch of random wordpieces; the same for both runtimes.
    const std::vector<int64_t> ids = randomIds(cfg, batch, seq);
    const std::vector<int64_t> mask(ids.size(), 1), types(ids.size(), 0);
    const fs::path inputs = dir / "inputs.json";
    std::ofstream(inputs) << nlohmann::json{{"batch", batch}, {"seq", seq}, {"input_ids", ids},
                                            {"attention_mask", mask}, {"token_type_ids", types}}
                                 .dump();
    const bool ort = !runCapture("command -v node").empty() && fs::exists(fs::path(modules) / "onnxruntime-node");

    std::vector<double> oursMs, ortMs;
    std::vector<float> probs;
    nlohmann::json ortLast;
    nlohmann::ordered_json perRound = nlohmann::ordered_json::array();
    for (int round = 0; round < rounds; ++round) {
        std::vector<double> times;
        for (int k = 0; k < repeats + 2; ++k) {
            const auto t0 = std::chrono::steady_clock::now();
            probs = classifier.probabilitiesOf(ids, mask, types, batch);
            if (k >= 2) // two warm-ups
                times.push_back(1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        oursMs.push_back(median(times));
        nlohmann::ordered_json rj{{"ours_ms", oursMs.back()}};
        if (ort) {
            const std::string out = runCapture("OMP_NUM_THREADS=" + std::to_string(threads) + " node " + quoted(WB_SOURCE_DIR "/bench/ort_inference.mjs")
                                               + " " + quoted(modules) + " " + quoted((dir / "onnx" / "model.onnx").string())
                                               + " " + quoted(inputs.string()) + " " + std::to_string(repeats) + " "
                                               + std::to_string(threads));
            ortLast = nlohmann::json::parse(out, nullptr, false);
            if (ortLast.is_object() && ortLast.contains("median_ms")) {
                ortMs.push_back(ortLast["median_ms"].get<double>());
                rj["ort_ms"] = ortMs.back();
            }
        }
        perRound.push_back(rj);
    }


    nlohmann::ordered_json j;
    j["bench"] = "inference";
    j["config"] = which;
    j["batch"] = batch;
    j["seq"] = seq;
    j["threads"] = torch::get_num_threads();
    j["cpu"] = benchCpuModel();
    j["blas"] = loadedBlas();
    j["ours_median_ms"] = median(oursMs);
    // The forward pass's GEMM FLOPs: a third of gemmFlopsPerExample's forward and backward.
    const double flops = double(batch) * gemmFlopsPerExample(cfg, seq, 2) / 3.0;
    const double peak = forwardGemmPeak(cfg, batch * seq);
    j["gemm_gflop_per_pass"] = flops / 1e9;
    j["gemm_peak_gflops"] = peak;
    j["ours_share_of_peak"] = flops / (median(oursMs) * 1e-3) / 1e9 / peak;
    j["ours_examples_per_second"] = 1e3 * double(batch) / median(oursMs);
    if (!ortMs.empty())
        addOrtComparison(j, oursMs, ortMs, ortLast["logits"].get<std::vector<double>>(), probs, batch);
    else
        j["ort"] = "not run: node or onnxruntime-node (" + modules + ") is missing";
    j["rounds"] = perRound;
    j["profile"] = operatorProfile(classifier, ids, mask, types, batch);
    std::cout << j.dump() << std::endl;
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}
