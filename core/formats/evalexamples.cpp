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
    if (e.multi_label) {
        j["multi_label"] = true;
        j["true_labels"] = e.true_labels;
        j["true_label_ids"] = e.true_label_ids;
        j["predicted_labels"] = e.predicted_labels;
        j["predicted_label_ids"] = e.predicted_label_ids;
        j["probabilities"] = e.probabilities;
        j["label_losses"] = e.label_losses;
        j["loss"] = e.loss;
        if (!e.text.empty())
            j["text"] = e.text;
        if (!e.text_b.empty())
            j["text_b"] = e.text_b;
        return dumpLine(j);
    }
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

namespace {

/// Throws wb::Error(`where`, …) naming `key` unless `ok`.
void need(const std::string &where, const char *key, bool ok)
{
    if (!ok)
        throw Error(where, std::string("the key \"") + key + "\" is missing or of the wrong type",
                    "the file is written by train; evaluate again to rewrite it");
}

/// `key`'s array of numbers (required).
std::vector<double> numbers(const nlohmann::json &j, const char *key, const std::string &where)
{
    need(where, key, j.contains(key) && j[key].is_array());
    std::vector<double> out;
    for (const auto &v : j[key]) {
        need(where, key, v.is_number());
        out.push_back(v.get<double>());
    }
    return out;
}

/// `key`'s label ids (required), each in [0, numLabels).
std::vector<int64_t> labelIds(const nlohmann::json &j, const char *key, size_t numLabels, const std::string &where)
{
    need(where, key, j.contains(key) && j[key].is_array());
    std::vector<int64_t> out;
    for (const auto &v : j[key]) {
        need(where, key, v.is_number_integer());
        out.push_back(v.get<int64_t>());
        if (out.back() < 0 || size_t(out.back()) >= numLabels)
            throw Error(where, std::string("\"") + key + "\" holds label id " + std::to_string(out.back())
                                   + ", expected 0 to " + std::to_string(int64_t(numLabels) - 1)
                                   + " (one per entry of \"probabilities\")",
                        "the file is written by train; evaluate again to rewrite it");
    }
    return out;
}

/// `key`'s label names (optional: "label N" for each id when absent), one per id.
std::vector<std::string> labelNamesOf(const nlohmann::json &j, const char *key, const std::vector<int64_t> &ids,
                                      const std::string &where)
{
    std::vector<std::string> out;
    if (!j.contains(key)) {
        for (int64_t id : ids)
            out.push_back("label " + std::to_string(id));
        return out;
    }
    need(where, key, j[key].is_array() && j[key].size() == ids.size());
    for (const auto &v : j[key]) {
        need(where, key, v.is_string());
        out.push_back(v.get<std::string>());
    }
    return out;
}

std::string joined(const std::vector<std::string> &names)
{
    std::string s;
    for (const auto &n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

/// The multi-label fields of line `j` into `e` (true_label_id = predicted_label_id = −1).
void readMultiLabel(const nlohmann::json &j, const std::string &where, EvalExample &e)
{
    e.multi_label = true;
    e.probabilities = numbers(j, "probabilities", where);
    e.label_losses = numbers(j, "label_losses", where);
    need(where, "label_losses", e.label_losses.size() == e.probabilities.size());
    e.true_label_ids = labelIds(j, "true_label_ids", e.probabilities.size(), where);
    e.predicted_label_ids = labelIds(j, "predicted_label_ids", e.probabilities.size(), where);
    e.true_labels = labelNamesOf(j, "true_labels", e.true_label_ids, where);
    e.predicted_labels = labelNamesOf(j, "predicted_labels", e.predicted_label_ids, where);
    e.true_label_id = e.predicted_label_id = -1;
    e.true_label = joined(e.true_labels);
    e.predicted_label = joined(e.predicted_labels);
}

/// The single-label fields of line `j` into `e`.
void readSingleLabel(const nlohmann::json &j, const std::string &where, EvalExample &e)
{
    need(where, "true_label_id", j.contains("true_label_id") && j["true_label_id"].is_number_integer());
    need(where, "predicted_label_id", j.contains("predicted_label_id") && j["predicted_label_id"].is_number_integer());
    e.probabilities = numbers(j, "probabilities", where);
    for (const char *key : {"true_label", "predicted_label"})
        need(where, key, !j.contains(key) || j[key].is_string());
    e.true_label_id = j["true_label_id"].get<int64_t>();
    e.predicted_label_id = j["predicted_label_id"].get<int64_t>();
    e.true_label = j.value("true_label", "label " + std::to_string(e.true_label_id));
    e.predicted_label = j.value("predicted_label", "label " + std::to_string(e.predicted_label_id));
}

} // namespace

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
        need(where, "(object)", j.is_object());
        need(where, "index", j.contains("index") && j["index"].is_number_integer());
        need(where, "multi_label", !j.contains("multi_label") || j["multi_label"].is_boolean());
        EvalExample e;
        if (j.value("multi_label", false))
            readMultiLabel(j, where, e);
        else
            readSingleLabel(j, where, e);
        need(where, "loss", j.contains("loss") && j["loss"].is_number());
        // The optional keys: absent, or of their type (json::value() would throw type_error).
        need(where, "step", !j.contains("step") || j["step"].is_number_integer());
        for (const char *key : {"text", "text_b"})
            need(where, key, !j.contains(key) || j[key].is_string());
        e.index = j["index"].get<int64_t>();
        e.step = j.value("step", int64_t(0));
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

std::vector<EvalExample> topLabelLosses(const std::vector<EvalExample> &examples, int64_t labelId, size_t n)
{
    std::vector<EvalExample> out;
    for (const auto &e : examples)
        if (e.multi_label && labelId >= 0 && size_t(labelId) < e.label_losses.size())
            out.push_back(e);
    const size_t k = size_t(labelId);
    std::stable_sort(out.begin(), out.end(),
                     [k](const EvalExample &x, const EvalExample &y) { return x.label_losses[k] > y.label_losses[k]; });
    if (n > 0 && out.size() > n)
        out.resize(n);
    return out;
}

std::vector<ConfusedPair> mostConfusedPairs(const std::vector<EvalExample> &examples, int64_t minCount)
{
    std::map<std::pair<int64_t, int64_t>, ConfusedPair> pairs;
    for (const auto &e : examples) {
        if (e.multi_label || e.correct())
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
