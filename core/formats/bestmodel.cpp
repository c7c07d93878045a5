// SPDX-License-Identifier: Apache-2.0
#include "core/formats/bestmodel.h"

#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/formats/checkpointstate.h"
#include "core/formats/trainingsummary.h"
#include "core/util/error.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace wb {

const std::vector<std::string> &bestCheckpointMetrics()
{
    static const std::vector<std::string> names{"eval_accuracy",  "eval_loss",       "eval_f1",
                                                "eval_mcc",       "eval_micro_f1",   "eval_macro_f1",
                                                "eval_samples_f1", "eval_hamming_loss"};
    return names;
}

bool metricHigherIsBetter(const std::string &metric)
{
    return metric != "eval_loss" && metric != "eval_hamming_loss";
}

std::optional<double> metricValue(const EvalMetrics &m, const std::string &metric)
{
    if (metric == "eval_loss")
        return m.eval_loss;
    if (metric == "eval_accuracy" && !m.regression)
        return m.eval_accuracy;
    if (metric == "eval_f1" && m.binary)
        return m.eval_f1;
    if (metric == "eval_mcc" && m.binary)
        return m.eval_mcc;
    if (metric == "eval_macro_f1" && !m.regression && !m.class_f1.empty())
        return m.eval_macro_f1;
    if (m.multi_label && metric == "eval_micro_f1")
        return m.eval_micro_f1;
    if (m.multi_label && metric == "eval_samples_f1")
        return m.eval_samples_f1;
    if (m.multi_label && metric == "eval_hamming_loss")
        return m.eval_hamming_loss;
    return std::nullopt;
}

bool BestModelTracker::update(double value, int64_t step)
{
    const bool better = !best || (metricHigherIsBetter(metric) ? value > *best : value < *best);
    if (better) {
        best = value;
        best_step = step;
        evals_since_best = 0;
    } else {
        ++evals_since_best;
    }
    return better;
}

EarlyStopDecision earlyStoppingDecision(const std::vector<double> &values, bool higherIsBetter, int64_t patience)
{
    BestModelTracker t;
    t.metric = higherIsBetter ? "eval_accuracy" : "eval_loss";
    t.patience = patience;
    EarlyStopDecision d;
    for (size_t k = 0; k < values.size(); ++k) {
        if (t.update(values[k], int64_t(k)))
            d.best_index = int64_t(k);
        if (t.shouldStop()) {
            d.stop_index = int64_t(k);
            break;
        }
    }
    return d;
}

std::string bestRecordPath(const std::string &modelDir)
{
    return (fs::path(modelDir) / "best" / "best.json").string();
}

std::optional<BestCheckpointRecord> readBestRecord(const std::string &modelDir)
{
    std::ifstream in(bestRecordPath(modelDir));
    if (!in)
        return std::nullopt;
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object() || !j.contains("checkpoint") || !j["checkpoint"].is_string() || !j.contains("step")
        || !j["step"].is_number_integer() || !j.contains("value") || !j["value"].is_number())
        return std::nullopt;
    // The optional keys: absent, or of their type (json::value() would throw type_error).
    if ((j.contains("metric") && !j["metric"].is_string())
        || (j.contains("evaluations_since_best") && !j["evaluations_since_best"].is_number_integer())
        || (j.contains("last_evaluated_step") && !j["last_evaluated_step"].is_number_integer()))
        return std::nullopt;
    BestCheckpointRecord r;
    r.metric = j.value("metric", std::string());
    r.value = j["value"].get<double>();
    r.step = j["step"].get<int64_t>();
    r.checkpoint = j["checkpoint"].get<std::string>();
    r.evaluations_since_best = j.value("evaluations_since_best", int64_t(0));
    r.last_evaluated_step = j.value("last_evaluated_step", r.step);
    return r;
}

void writeBestRecord(const std::string &modelDir, const BestCheckpointRecord &r)
{
    nlohmann::ordered_json j;
    j["metric"] = r.metric;
    j["value"] = r.value;
    j["step"] = r.step;
    j["checkpoint"] = r.checkpoint;
    j["evaluations_since_best"] = r.evaluations_since_best;
    j["last_evaluated_step"] = r.last_evaluated_step;
    writeFileAtomic(bestRecordPath(modelDir), j.dump(2) + "\n");
}

bool stoppedEarlyAt(const std::string &modelDir, int64_t step)
{
    const auto summary = readTrainingSummary(modelDir);
    return summary && step > 0 && summary->stopped_early_at_step == step;
}

std::string resolveCheckpointAlias(const std::string &value, const std::string &modelDir)
{
    std::string dir;
    if (value == "latest")
        return latestCheckpoint(modelDir);
    if (value == "best")
        dir = modelDir;
    else if (!value.empty() && fs::is_directory(value) && fs::exists(fs::path(value) / "best" / "best.json"))
        dir = value;
    else if (!value.empty() && fs::is_directory(value) && fs::exists(fs::path(value) / "best.json"))
        dir = fs::path(value).parent_path().string();
    else
        return value;
    const auto r = readBestRecord(dir);
    if (!r)
        throw Error(bestRecordPath(dir), "there is no best checkpoint (best.json is missing or unreadable)",
                    "train with " + optionSetting("best_checkpoint_metric", "eval_accuracy")
                        + " (or another metric) first, or pass a checkpoint path");
    const std::string path = (fs::path(dir) / r->checkpoint).string();
    if (!fs::exists(path))
        throw Error(path, "best.json names this checkpoint, but it does not exist",
                    "pass another " + optionName("predict_checkpoint_path"));
    return path;
}

std::string RunCheckpointChoice::label() const
{
    if (path.empty())
        return {};
    std::string s = std::string(best ? "best" : "latest") + (step >= 0 ? ", step " + std::to_string(step) : std::string());
    if (best && !metric.empty()) {
        char v[32];
        std::snprintf(v, sizeof v, "%.4g", value);
        s += " (" + metric + " " + v + ")";
    }
    return s;
}

RunCheckpointChoice chooseRunCheckpoint(const std::string &modelDir)
{
    RunCheckpointChoice c;
    if (modelDir.empty())
        return c;
    std::error_code ec;
    if (const auto r = readBestRecord(modelDir)) {
        const std::string path = (fs::path(modelDir) / r->checkpoint).string();
        if (fs::is_regular_file(path, ec)) {
            c.path = path;
            c.best = true;
            c.step = r->step;
            c.metric = r->metric;
            c.value = r->value;
            return c;
        }
    }
    c.path = latestCheckpoint(modelDir);
    c.step = c.path.empty() ? -1 : checkpointStep(c.path);
    return c;
}

} // namespace wb
