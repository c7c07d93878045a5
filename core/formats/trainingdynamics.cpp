// SPDX-License-Identifier: Apache-2.0
#include "core/formats/trainingdynamics.h"

#include "core/config/jsonfile.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

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

DataMapRegion dataMapRegion(double confidence, double variability)
{
    if (variability >= kAmbiguousVariability)
        return DataMapRegion::Ambiguous;
    return confidence >= kEasyConfidence ? DataMapRegion::EasyToLearn : DataMapRegion::HardToLearn;
}

const char *dataMapRegionName(DataMapRegion region)
{
    switch (region) {
    case DataMapRegion::EasyToLearn: return "easy-to-learn";
    case DataMapRegion::Ambiguous: return "ambiguous";
    case DataMapRegion::HardToLearn: return "hard-to-learn";
    }
    return "";
}

DataMapCounts dataMapCounts(const std::map<int64_t, TrainingDynamicsRow> &rows)
{
    DataMapCounts c;
    for (const auto &[index, row] : rows) {
        if (row.gold_probabilities.empty())
            continue;
        ++c.examples;
        switch (dataMapRegion(row.confidence(), row.variability())) {
        case DataMapRegion::EasyToLearn: ++c.easy_to_learn; break;
        case DataMapRegion::Ambiguous: ++c.ambiguous; break;
        case DataMapRegion::HardToLearn: ++c.hard_to_learn; break;
        }
    }
    return c;
}

TrainingDynamicsRow TrainingDynamicsRow::upTo(int64_t step) const
{
    TrainingDynamicsRow r;
    r.index = index;
    r.label_id = label_id;
    for (size_t k = 0; k < steps.size() && steps[k] <= step; ++k) {
        r.steps.push_back(steps[k]);
        r.gold_probabilities.push_back(gold_probabilities[k]);
        r.predicted_label_ids.push_back(predicted_label_ids[k]);
        r.correct.push_back(correct[k]);
    }
    return r;
}

void TrainingDynamics::record(int64_t step, int64_t index, int64_t labelId, double goldProbability,
                              int64_t predictedLabelId)
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
    if (!row.steps.empty() && step < row.steps.back())
        throw Error(field, "step " + std::to_string(step) + " recorded after step " + std::to_string(row.steps.back()),
                    "record the steps in order (a resumed run truncates to its checkpoint's step first)");
    row.steps.push_back(step);
    row.gold_probabilities.push_back(goldProbability);
    row.predicted_label_ids.push_back(predictedLabelId);
    row.correct.push_back(predictedLabelId == labelId);
}

void TrainingDynamics::truncate(int64_t step)
{
    for (auto it = m_rows.begin(); it != m_rows.end();) {
        it->second = it->second.upTo(step);
        it = it->second.steps.empty() ? m_rows.erase(it) : std::next(it);
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
                               {"steps", row.steps},
                               {"gold_probabilities", row.gold_probabilities},
                               {"predicted_label_ids", row.predicted_label_ids},
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

template <class T, class Check>
std::vector<T> arrayOf(const nlohmann::json &j, const char *key, const std::string &where, const char *expected,
                       Check isOfType)
{
    if (!j.contains(key) || !j[key].is_array())
        throw Error(where + ": " + key, "missing or of another type (expected an array)",
                    "rewrite the file by running the training again");
    std::vector<T> values;
    for (const auto &v : j[key]) {
        if (!isOfType(v))
            throw Error(where + ": " + key, std::string("expected ") + expected, "rewrite the file by training again");
        values.push_back(v.template get<T>());
    }
    return values;
}

TrainingDynamicsRow rowOf(const nlohmann::json &j, const std::string &where)
{
    for (const char *key : {"index", "label_id"})
        if (!j.contains(key) || !j[key].is_number_integer())
            throw Error(where + ": " + key, "missing or of another type (expected an integer)",
                        "rewrite the file by running the training again");
    TrainingDynamicsRow row;
    row.index = j["index"].get<int64_t>();
    row.label_id = j["label_id"].get<int64_t>();
    const auto isInteger = [](const nlohmann::json &v) { return v.is_number_integer(); };
    row.steps = arrayOf<int64_t>(j, "steps", where, "integers", isInteger);
    row.gold_probabilities = arrayOf<double>(j, "gold_probabilities", where, "numbers",
                                             [](const nlohmann::json &v) { return v.is_number(); });
    row.predicted_label_ids = arrayOf<int64_t>(j, "predicted_label_ids", where, "integers", isInteger);
    row.correct = arrayOf<bool>(j, "correct", where, "true or false", [](const nlohmann::json &v) { return v.is_boolean(); });
    for (const auto &[key, size] : {std::pair<const char *, size_t>{"gold_probabilities", row.gold_probabilities.size()},
                                    {"predicted_label_ids", row.predicted_label_ids.size()},
                                    {"correct", row.correct.size()}})
        if (size != row.steps.size())
            throw Error(where + ": " + key, "has " + std::to_string(size) + " entries but steps has "
                        + std::to_string(row.steps.size()), "rewrite the file by training again");
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
