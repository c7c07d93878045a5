// SPDX-License-Identifier: Apache-2.0
#include "core/formats/evalexamples.h"

#include "core/config/jsonfile.h"
#include "core/io/runeventjson.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace wb {

std::string evalExamplesPath(const std::string &modelDir)
{
    return (fs::path(modelDir) / "eval_examples.jsonl").string();
}

std::string evalExampleJson(const EvalExample &e)
{
    nlohmann::ordered_json j;
    j["index"] = e.index;
    j["step"] = e.step;
    j["true_label"] = e.true_label;
    j["true_label_id"] = e.true_label_id;
    j["predicted_label"] = e.predicted_label;
    j["predicted_label_id"] = e.predicted_label_id;
    j["probabilities"] = e.probabilities;
    j["loss"] = e.loss;
    if (!e.text.empty())
        j["text"] = e.text;
    if (!e.text_b.empty())
        j["text_b"] = e.text_b;
    return dumpLine(j);
}

void writeEvalExamples(const std::string &path, const std::vector<EvalExample> &examples)
{
    std::string text;
    for (const auto &e : examples)
        text += evalExampleJson(e) + "\n";
    writeFileAtomic(path, text);
}

std::vector<EvalExample> readEvalExamples(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw Error(path, "cannot open the file", "evaluate first: train writes it at every evaluation");
    std::vector<EvalExample> out;
    std::string line;
    int64_t lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty())
            continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        const auto where = path + ":" + std::to_string(lineNo);
        const auto need = [&](const char *key, bool ok) {
            if (!ok)
                throw Error(where, std::string("the key \"") + key + "\" is missing or of the wrong type",
                            "the file is written by train; evaluate again to rewrite it");
        };
        need("(object)", j.is_object());
        need("index", j.contains("index") && j["index"].is_number_integer());
        need("true_label_id", j.contains("true_label_id") && j["true_label_id"].is_number_integer());
        need("predicted_label_id", j.contains("predicted_label_id") && j["predicted_label_id"].is_number_integer());
        need("probabilities", j.contains("probabilities") && j["probabilities"].is_array());
        need("loss", j.contains("loss") && j["loss"].is_number());
        // The optional keys: absent, or of their type (json::value() would throw type_error).
        const auto optional = [&](const char *key, bool (nlohmann::json::*isType)() const noexcept) {
            need(key, !j.contains(key) || (j[key].*isType)());
        };
        optional("step", &nlohmann::json::is_number_integer);
        optional("true_label", &nlohmann::json::is_string);
        optional("predicted_label", &nlohmann::json::is_string);
        optional("text", &nlohmann::json::is_string);
        optional("text_b", &nlohmann::json::is_string);
        EvalExample e;
        e.index = j["index"].get<int64_t>();
        e.step = j.value("step", int64_t(0));
        e.true_label_id = j["true_label_id"].get<int64_t>();
        e.predicted_label_id = j["predicted_label_id"].get<int64_t>();
        e.true_label = j.value("true_label", "label " + std::to_string(e.true_label_id));
        e.predicted_label = j.value("predicted_label", "label " + std::to_string(e.predicted_label_id));
        for (const auto &p : j["probabilities"]) {
            need("probabilities", p.is_number());
            e.probabilities.push_back(p.get<double>());
        }
        e.loss = j["loss"].get<double>();
        e.text = j.value("text", std::string());
        e.text_b = j.value("text_b", std::string());
        out.push_back(std::move(e));
    }
    return out;
}

std::string detokenizeWordpieces(const std::vector<std::string> &tokens, std::string *textB)
{
    std::string a, b;
    std::string *cur = &a;
    bool afterSep = false;
    for (const auto &t : tokens) {
        if (t == "[PAD]" || t == "[CLS]")
            continue;
        if (t == "[SEP]") {
            if (afterSep || !textB)
                break;
            afterSep = true;
            cur = &b;
            continue;
        }
        if (t.size() > 2 && t.compare(0, 2, "##") == 0) {
            *cur += t.substr(2);
        } else {
            if (!cur->empty())
                *cur += ' ';
            *cur += t;
        }
    }
    if (textB)
        *textB = b;
    return a;
}

std::vector<EvalExample> topLosses(const std::vector<EvalExample> &examples, size_t n,
                                   std::optional<int64_t> trueLabelId, std::optional<int64_t> predictedLabelId,
                                   bool mistakesOnly)
{
    std::vector<EvalExample> out;
    for (const auto &e : examples) {
        if (trueLabelId && e.true_label_id != *trueLabelId)
            continue;
        if (predictedLabelId && e.predicted_label_id != *predictedLabelId)
            continue;
        if (mistakesOnly && e.correct())
            continue;
        out.push_back(e);
    }
    std::stable_sort(out.begin(), out.end(), [](const EvalExample &x, const EvalExample &y) { return x.loss > y.loss; });
    if (n > 0 && out.size() > n)
        out.resize(n);
    return out;
}

std::vector<ConfusedPair> mostConfusedPairs(const std::vector<EvalExample> &examples, int64_t minCount)
{
    std::map<std::pair<int64_t, int64_t>, ConfusedPair> pairs;
    for (const auto &e : examples) {
        if (e.correct())
            continue;
        auto &p = pairs[{e.true_label_id, e.predicted_label_id}];
        p.true_label_id = e.true_label_id;
        p.predicted_label_id = e.predicted_label_id;
        p.true_label = e.true_label;
        p.predicted_label = e.predicted_label;
        ++p.count;
    }
    std::vector<ConfusedPair> out;
    for (auto &[key, p] : pairs)
        if (p.count >= minCount)
            out.push_back(p);
    std::stable_sort(out.begin(), out.end(),
                     [](const ConfusedPair &x, const ConfusedPair &y) { return x.count > y.count; });
    return out;
}

} // namespace wb
