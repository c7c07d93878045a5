// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// A multi-label model's per-label decision thresholds (docs/multi-label.md): label k is
/// predicted when its sigmoid probability is ≥ values[k]. `source` says where they came from
/// in plain words ("the evaluation at step 40", "config.json"), `fallback` is true when none
/// was recorded and every label has 0.5. A plain value.
struct DecisionThresholds
{
    std::vector<double> values;
    std::string source;
    bool fallback = false;
    /// True when an evaluation tuned thresholds but their cross-fitted macro-F1 was not above
    /// the macro-F1 at 0.5: `values` are then 0.5 for every label.
    bool tuned_not_better = false;
};

/// The thresholds of a run's checkpoint: those tuned by the evaluation at the checkpoint's
/// step (`checkpoint` is a path or name "ckpt-N"; model_dir/metrics.jsonl), else by the last
/// evaluation recorded, else 0.5 for each of the `numLabels` labels (fallback). When that
/// evaluation's cross-fitted macro-F1 with its tuned thresholds (eval_macro_f1_tuned) is not
/// above its macro-F1 at 0.5, 0.5 for every label (tuned_not_better; docs/multi-label.md).
/// Thresholds of another count than numLabels are ignored. Never throws; any thread.
DecisionThresholds runThresholds(const std::string &modelDir, const std::string &checkpoint, int64_t numLabels);

/// The thresholds of an export's config.json (its "thresholds" key: numbers in label id
/// order, each in [0, 1]), else 0.5 for each label (fallback). Never throws.
DecisionThresholds configThresholds(const nlohmann::json &config, int64_t numLabels);

/// The ids of the labels whose probability reaches its threshold, in id order. `thresholds`
/// shorter than `probabilities`: 0.5 for the rest. Pure.
std::vector<int64_t> labelsAtThresholds(const std::vector<double> &probabilities, const std::vector<double> &thresholds);

} // namespace wb
