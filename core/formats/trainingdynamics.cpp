// SPDX-License-Identifier: Apache-2.0
#include "core/formats/trainingdynamics.h"

#include "core/config/jsonfile.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

namespace wb {

double TrainingDynamicsRow::confidence() const
{
    if (gold_probabilities.empty())
        return 0.0;
    double sum = 0.0;
    for (double p : gold_probabilities)
        sum += p;
    return sum / double(gold_probabilities.size());
}

double TrainingDynamicsRow::variability() const
{
    if (gold_probabilities.size() < 2)
        return 0.0;
    const double mean = confidence();
    double sq = 0.0;
    for (double p : gold_probabilities)
        sq += (p - mean) * (p - mean);
    return std::sqrt(sq / double(gold_probabilities.size()));
}

double TrainingDynamicsRow::correctness() const
{
    if (correct.empty())
        return 0.0;
    int64_t n = 0;
    for (bool c : correct)
        n += c ? 1 : 0;
    return double(n) / double(correct.size());
}

void TrainingDynamics::record(int64_t epoch, int64_t index, int64_t labelId, double goldProbability, bool correct)
{
    const std::string field = "training_dynamics: record " + std::to_string(index);
    auto [it, fresh] = m_rows.try_emplace(index);
    TrainingDynamicsRow &row = it->second;
    if (fresh) {
        row.index = index;
        row.label_id = labelId;
    } else if (row.label_id != labelId) {
        throw Error(field, "label " + std::to_string(labelId) + " was recorded, but the record's label was "
                    + std::to_string(row.label_id) + " before",
                    "a run's training records must not change while it runs or resumes");
    }
    const auto have = int64_t(row.gold_probabilities.size());
    if (epoch < 0 || epoch > have)
        throw Error(field, "epoch " + std::to_string(epoch) + " recorded after " + std::to_string(have)
                    + " epochs", "record epochs in order, each at most once");
    if (epoch == have) {
        row.gold_probabilities.push_back(goldProbability);
        row.correct.push_back(correct);
    } else {
        row.gold_probabilities[size_t(epoch)] = goldProbability;
        row.correct[size_t(epoch)] = correct;
    }
}

void TrainingDynamics::truncate(int64_t epochs)
{
    const auto keep = size_t(std::max<int64_t>(epochs, 0));
    for (auto &[index, row] : m_rows) {
        if (row.gold_probabilities.size() > keep) {
            row.gold_probabilities.resize(keep);
            row.correct.resize(keep);
        }
    }
}

void TrainingDynamics::restore(const std::vector<TrainingDynamicsRow> &rows)
{
    m_rows.clear();
    for (const TrainingDynamicsRow &row : rows)
        m_rows[row.index] = row;
}

void writeTrainingDynamics(const std::string &path, const TrainingDynamics &d)
{
    std::string text;
    for (const auto &[index, row] : d.rows()) {
        nlohmann::json line = {{"index", row.index},
                               {"label_id", row.label_id},
                               {"gold_probabilities", row.gold_probabilities},
                               {"correct", nlohmann::json::array()},
                               {"confidence", row.confidence()},
                               {"variability", row.variability()},
                               {"correctness", row.correctness()}};
        for (bool c : row.correct)
            line["correct"].push_back(c);
        text += line.dump() + "\n";
    }
    writeFileAtomic(path, text);
}

namespace {

TrainingDynamicsRow rowOf(const nlohmann::json &j, const std::string &where)
{
    auto need = [&](const char *key, bool ok) {
        if (!j.contains(key) || !ok)
            throw Error(where + ": " + key, std::string("missing or of another type (expected ")
                        + (std::string(key) == "index" || std::string(key) == "label_id" ? "an integer" : "an array")
                        + ")", "rewrite the file by running the training again");
    };
    need("index", j.contains("index") && j["index"].is_number_integer());
    need("label_id", j.contains("label_id") && j["label_id"].is_number_integer());
    need("gold_probabilities", j.contains("gold_probabilities") && j["gold_probabilities"].is_array());
    need("correct", j.contains("correct") && j["correct"].is_array());
    TrainingDynamicsRow row;
    row.index = j["index"].get<int64_t>();
    row.label_id = j["label_id"].get<int64_t>();
    for (const auto &p : j["gold_probabilities"]) {
        if (!p.is_number())
            throw Error(where + ": gold_probabilities", "expected numbers", "rewrite the file by training again");
        row.gold_probabilities.push_back(p.get<double>());
    }
    for (const auto &c : j["correct"]) {
        if (!c.is_boolean())
            throw Error(where + ": correct", "expected true or false", "rewrite the file by training again");
        row.correct.push_back(c.get<bool>());
    }
    if (row.correct.size() != row.gold_probabilities.size())
        throw Error(where + ": correct", "has " + std::to_string(row.correct.size()) + " entries but gold_probabilities has "
                    + std::to_string(row.gold_probabilities.size()), "rewrite the file by training again");
    return row;
}

} // namespace

std::vector<TrainingDynamicsRow> readTrainingDynamics(const std::string &path)
{
    std::vector<TrainingDynamicsRow> rows;
    std::ifstream in(path);
    if (!in)
        return rows;
    std::string text;
    int64_t lineNo = 0;
    while (std::getline(in, text)) {
        ++lineNo;
        if (text.empty())
            continue;
        const std::string where = path + ": line " + std::to_string(lineNo);
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            throw Error(where, "is not a JSON object", "rewrite the file by running the training again");
        rows.push_back(rowOf(j, where));
    }
    return rows;
}

} // namespace wb
