// SPDX-License-Identifier: Apache-2.0
// --onnx_dtype int8 against fp32 (issue 48 "Done when": accuracy within 0.5 points of fp32 on the
// eval set, file ≤ 30 % of fp32, ≥ 1.5× faster in ONNX Runtime at batch 1). From one fp32 export
// folder of a trained classifier (its weights read back from onnx/model.onnx), writes the graphs
//   fp32             --onnx_dtype fp32
//   int8             --onnx_dtype int8 (the export's choice: encoder dense + word embeddings int8)
//   int8_head        int8 and the pooler and classifier int8 too
//   int8_fp32_words  int8 with the word embeddings left float32
//   fp16             --onnx_dtype fp16: float16 weights, Cast to float32 in the graph
// and runs each in ONNX Runtime (npm onnxruntime-node, bench/ort_int8.mjs: 1 thread, batch 1,
// every eval record for accuracy; speed at seq 128 in alternating rounds), side by side in one
// process. Then classify's path (TextClassifier) on an int8 export folder without
// model.safetensors (the weights dequantized from the ONNX file) against the fp32 folder on the
// same records. Where Chromium and node_modules/onnxruntime-web are there, fp32 and int8 are
// also timed in onnxruntime-web (WebAssembly, one thread, batch 1; bench/ort_web_int8.cjs).
// Prints one JSON object.
// Usage: bench_int8 NAME FP32_EXPORT_DIR EVAL.tf_record [node_modules] [repeats=50] [rounds=5]
#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/engine/blascheck.h"
#include "core/export/onnxexport.h"
#include "core/infer/textclassifier.h"
#include "core/model/bertmodel.h"
#include "core/prepare/exampledata.h"
#include "bench/benchpeak.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

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

nlohmann::json readJson(const fs::path &p)
{
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

/// Every record of the eval TFRecord file as bench/ort_int8.mjs reads it.
nlohmann::json evalRecords(const std::string &path, const InputMetaData &meta, std::vector<ClassifierRecord> &records)
{
    RecordSpec spec;
    spec.max_seq_length = meta.max_seq_length;
    spec.num_labels = meta.num_labels;
    TFRecordReader reader(path);
    std::string payload;
    nlohmann::json list = nlohmann::json::array();
    while (reader.read(payload)) {
        ClassifierRecord r;
        decodeClassifierRecord(payload, spec, r);
        list.push_back({{"input_ids", r.input_ids}, {"attention_mask", r.input_mask}, {"token_type_ids", r.segment_ids},
                        {"label", r.label_id}});
        records.push_back(std::move(r));
    }
    return {{"seq", meta.max_seq_length}, {"records", list}};
}

/// classify's probabilities (TextClassifier on the export folder `dir`) of every record.
std::vector<std::vector<float>> classifyRecords(const fs::path &dir, const std::vector<ClassifierRecord> &records)
{
    ClassifierSource src;
    src.model_export_path = dir.string();
    const TextClassifier classifier(src);
    std::vector<std::vector<float>> out;
    for (const auto &r : records)
        out.push_back(classifier.probabilitiesOf(r.input_ids, r.input_mask, r.segment_ids, 1));
    return out;
}

/// classify on an int8 copy of the export (no model.safetensors) against the fp32 folder:
/// accuracy of each, the largest probability difference, how often the predicted label differs.
nlohmann::ordered_json classifyComparison(const fs::path &fp32Dir, const fs::path &int8Onnx, const fs::path &work,
                                          const std::vector<ClassifierRecord> &records)
{
    const fs::path int8Dir = work / "int8-export";
    fs::create_directories(int8Dir / "onnx");
    for (const char *f : {"config.json", "vocab.txt", "tokenizer.json", "tokenizer_config.json"})
        if (fs::exists(fp32Dir / f))
            fs::copy_file(fp32Dir / f, int8Dir / f, fs::copy_options::overwrite_existing);
    fs::copy_file(int8Onnx, int8Dir / "onnx" / "model.onnx", fs::copy_options::overwrite_existing);
    const auto a = classifyRecords(fp32Dir, records), b = classifyRecords(int8Dir, records);
    double worst = 0;
    int64_t rightA = 0, rightB = 0, differ = 0;
    const auto argmax = [](const std::vector<float> &p) {
        return int64_t(std::max_element(p.begin(), p.end()) - p.begin());
    };
    for (size_t i = 0; i < records.size(); ++i) {
        for (size_t k = 0; k < a[i].size(); ++k)
            worst = std::max(worst, double(std::abs(a[i][k] - b[i][k])));
        rightA += argmax(a[i]) == records[i].label_id;
        rightB += argmax(b[i]) == records[i].label_id;
        differ += argmax(a[i]) != argmax(b[i]);
    }
    const double n = double(records.size());
    return {{"fp32_accuracy", double(rightA) / n},
            {"int8_accuracy", double(rightB) / n},
            {"max_probability_difference", worst},
            {"predicted_label_differs", differ}};
}

/// One row per variant: its size against the first (fp32) and, when ONNX Runtime ran (`ort`:
/// bench/ort_int8.mjs's output), its accuracy, agreement and speed against the first.
nlohmann::ordered_json variantRows(const std::vector<std::pair<std::string, std::string>> &variants,
                                   const nlohmann::json &ort)
{
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (size_t k = 0; k < variants.size(); ++k) {
        nlohmann::ordered_json r{{"variant", variants[k].first},
                                 {"file_bytes", variants[k].second.size()},
                                 {"size_ratio", double(variants[k].second.size()) / double(variants[0].second.size())}};
        if (ort.is_object() && ort.contains("models")) {
            const auto &m = ort["models"][k];
            r["ort_accuracy"] = m["accuracy"];
            r["accuracy_points_vs_fp32"] = 100 * (m["accuracy"].get<double>() - ort["models"][0]["accuracy"].get<double>());
            r["agree_with_fp32"] = m["agree_with_first"];
            r["max_probability_difference"] = m["max_probability_difference"];
            r["ort_median_ms"] = m["median_ms"];
            r["ort_round_ms"] = m["round_ms"];
            r["speedup_vs_fp32"] = ort["models"][0]["median_ms"].get<double>() / m["median_ms"].get<double>();
            // The fastest round of each: the least disturbed by other processes on a shared machine.
            const auto best = [](const nlohmann::json &rounds) {
                const auto v = rounds.get<std::vector<double>>();
                return *std::min_element(v.begin(), v.end());
            };
            r["ort_best_round_ms"] = best(m["round_ms"]);
            r["speedup_best_rounds"] = best(ort["models"][0]["round_ms"]) / best(m["round_ms"]);
        }
        rows.push_back(r);
    }
    return rows;
}

} // namespace

/// onnxruntime-web (WebAssembly, one thread) in headless Chromium: fp32.onnx against int8.onnx in
/// `work`, batch 1 (bench/ort_web_int8.cjs). A sentence when Chromium or the package is missing.
nlohmann::json webTimings(const std::string &modules, const fs::path &work, bool node, int repeats, int rounds)
{
    const fs::path web = fs::path(modules) / "onnxruntime-web" / "dist";
    const std::string found = runCapture("command -v chromium");
    const std::string chromium = found.substr(0, found.find_last_not_of("\n") + 1);
    if (!node || chromium.empty() || !fs::exists(web))
        return "not run: chromium or " + web.string() + " is missing";
    const auto timed = nlohmann::json::parse(
        runCapture("node " + quoted(WB_SOURCE_DIR "/bench/ort_web_int8.cjs") + " " + quoted(chromium) + " "
                   + quoted(web.string()) + " " + std::to_string(repeats) + " " + std::to_string(rounds) + " "
                   + quoted((work / "fp32.onnx").string()) + " " + quoted((work / "int8.onnx").string()) + " 2>"
                   + quoted((work / "web.err").string())),
        nullptr, false);
    if (!timed.is_object() || !timed.contains("speedup_paired")) {
        std::ifstream err(work / "web.err");
        return "failed: " + std::string(std::istreambuf_iterator<char>(err), {});
    }
    return {{"fp32_median_ms", timed["models"][0]["median_ms"]},
            {"int8_median_ms", timed["models"][1]["median_ms"]},
            {"speedup_int8_vs_fp32", timed["speedup_paired"][1]},
            {"user_agent", timed["user_agent"]}};
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::cerr << "usage: bench_int8 NAME FP32_EXPORT_DIR EVAL.tf_record [node_modules] [repeats] [rounds]\n";
        return 2;
    }
    const std::string name = argv[1];
    const fs::path exportDir = argv[2];
    const std::string evalPath = argv[3];
    const std::string modules = argc > 4 && *argv[4] ? argv[4] : defaultExampleCacheDir() + "/npm-onnx/node_modules";
    const int repeats = argc > 5 ? std::max(1, std::atoi(argv[5])) : 50;
    const int rounds = argc > 6 ? std::max(1, std::atoi(argv[6])) : 5;
    torch::set_num_threads(1);

    Diagnostics diag;
    const BertConfig cfg = BertConfig::fromJson(readJson(exportDir / "bert_config.json"), "bert_config.json", diag);
    const InputMetaData meta = InputMetaData::fromJson(readJson(exportDir / "input_meta_data.json"),
                                                       "input_meta_data.json", diag);
    if (diag.hasErrors()) {
        std::cerr << "bench_int8: " << exportDir << ": bert_config.json or input_meta_data.json rejected\n";
        return 2;
    }
    nn::BertForSequenceClassification model(cfg, meta.num_labels, nn::makeGenerator(0));
    model->eval();
    loadOnnxWeights((exportDir / "onnx" / "model.onnx").string(), *model);

    const fs::path work = fs::temp_directory_path() / ("bench-int8-" + name + "-" + std::to_string(::getpid()));
    fs::create_directories(work);
    std::vector<std::pair<std::string, std::string>> variants{
        {"fp32", onnxModelBytes(*model, "fp32")},
        {"int8", onnxInt8ModelBytes(*model, OnnxInt8Scope{})},
        {"int8_head", onnxInt8ModelBytes(*model, OnnxInt8Scope{true, true})},
        {"int8_fp32_words", onnxInt8ModelBytes(*model, OnnxInt8Scope{false, false})},
        {"fp16", onnxModelBytes(*model, "fp16")}};
    std::string paths;
    for (const auto &[v, bytes] : variants) {
        std::ofstream((work / (v + ".onnx")).string(), std::ios::binary) << bytes;
        paths += " " + quoted((work / (v + ".onnx")).string());
    }
    std::vector<ClassifierRecord> records;
    std::ofstream(work / "records.json") << evalRecords(evalPath, meta, records).dump();

    nlohmann::ordered_json j;
    j["bench"] = "int8";
    j["model"] = name;
    j["layers"] = cfg.num_hidden_layers;
    j["hidden"] = cfg.hidden_size;
    j["eval_examples"] = records.size();
    j["threads"] = 1;
    j["cpu"] = benchCpuModel();
    j["batch"] = 1;
    j["seq"] = meta.max_seq_length;
    j["blas"] = loadedBlas();
    const bool node = !runCapture("command -v node").empty() && fs::exists(fs::path(modules) / "onnxruntime-node");
    nlohmann::json ort;
    if (node)
        ort = nlohmann::json::parse(runCapture("node " + quoted(WB_SOURCE_DIR "/bench/ort_int8.mjs") + " "
                                               + quoted(modules) + " " + quoted((work / "records.json").string()) + " "
                                               + std::to_string(repeats) + " " + std::to_string(rounds) + paths
                                               + " 2>" + quoted((work / "ort.err").string())),
                                    nullptr, false);
    j["variants"] = variantRows(variants, ort);
    if (!node)
        j["ort"] = "not run: node or onnxruntime-node (" + modules + ") is missing";
    else if (!ort.is_object() || !ort.contains("models")) {
        std::ifstream err(work / "ort.err");
        j["ort"] = "failed: " + std::string(std::istreambuf_iterator<char>(err), {});
    }
    j["ort_web"] = webTimings(modules, work, node, repeats, rounds);
    j["classify_int8_export"] = classifyComparison(exportDir, work / "int8.onnx", work, records);
    std::cout << j.dump() << std::endl;
    std::error_code ec;
    fs::remove_all(work, ec);
    return 0;
}
