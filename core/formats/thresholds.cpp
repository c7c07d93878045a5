// SPDX-License-Identifier: Apache-2.0
#include "core/formats/thresholds.h"

#include "core/formats/checkpointstate.h"
#include "core/io/metricsreader.h"

#include <cmath>
#include <cstdio>
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
    const std::string which = chosen->step == step ? "the evaluation at step " + std::to_string(step)
                                                   : "the last evaluation (step " + std::to_string(chosen->step)
                                                         + "; none at the checkpoint's step)";
    DecisionThresholds t;
    if (!(chosen->eval_macro_f1_tuned > chosen->eval_macro_f1)) {
        // Tuned thresholds that did no better on texts they were not tuned on are not used.
        t.values.assign(size_t(numLabels), 0.5);
        t.tuned_not_better = true;
        char f1[512];
        if (std::isfinite(chosen->eval_macro_f1_tuned))
            std::snprintf(f1, sizeof f1, " did no better on texts they were not tuned on (cross-fitted macro-F1 %.3f against %.3f at 0.5)",
                          chosen->eval_macro_f1_tuned, chosen->eval_macro_f1);
        else
            std::snprintf(f1, sizeof f1, " could not be measured on texts they were not tuned on");
        t.source = "0.5 for every label: the thresholds tuned by " + which + f1;
        return t;
    }
    t.values = chosen->thresholds;
    t.source = "tuned by " + which;
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
