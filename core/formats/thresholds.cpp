// SPDX-License-Identifier: Apache-2.0
#include "core/formats/thresholds.h"

#include "core/formats/checkpointstate.h"
#include "core/io/metricsreader.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace wb {

namespace {

DecisionThresholds everyLabelAtHalf(int64_t numLabels)
{
    DecisionThresholds t;
    t.values.assign(size_t(std::max<int64_t>(numLabels, 0)), 0.5);
    t.source = "0.5 for every label (none recorded)";
    t.fallback = true;
    return t;
}

} // namespace

DecisionThresholds runThresholds(const std::string &modelDir, const std::string &checkpoint, int64_t numLabels)
{
    const MetricsLog log = readMetricsFile((fs::path(modelDir) / "metrics.jsonl").string());
    const int64_t step = checkpointStep(checkpoint);
    const EvalMetrics *chosen = nullptr; // the checkpoint's evaluation, else the last
    for (const EvalMetrics &e : log.eval)
        if (e.multi_label && int64_t(e.thresholds.size()) == numLabels && !(chosen && chosen->step == step))
            chosen = &e;
    if (!chosen)
        return everyLabelAtHalf(numLabels);
    DecisionThresholds t;
    t.values = chosen->thresholds;
    t.source = chosen->step == step ? "tuned by the evaluation at step " + std::to_string(step)
                                    : "tuned by the last evaluation (step " + std::to_string(chosen->step)
                                          + "; none at the checkpoint's step)";
    return t;
}

DecisionThresholds configThresholds(const nlohmann::json &config, int64_t numLabels)
{
    const auto it = config.find("thresholds");
    if (it == config.end() || !it->is_array() || int64_t(it->size()) != numLabels)
        return everyLabelAtHalf(numLabels);
    DecisionThresholds t;
    for (const auto &v : *it) {
        if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
            return everyLabelAtHalf(numLabels);
        t.values.push_back(v.get<double>());
    }
    t.source = "config.json";
    return t;
}

std::vector<int64_t> labelsAtThresholds(const std::vector<double> &probabilities, const std::vector<double> &thresholds)
{
    std::vector<int64_t> ids;
    for (size_t k = 0; k < probabilities.size(); ++k)
        if (probabilities[k] >= (k < thresholds.size() ? thresholds[k] : 0.5))
            ids.push_back(int64_t(k));
    return ids;
}

} // namespace wb
