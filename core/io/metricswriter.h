// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// Appends training and evaluation metrics to `metrics.jsonl` (docs/file-formats.md), one
/// JSON object per line; MetricsReader (core/io/metricsreader.h) reads it back:
///   {"kind":"train","step":…,"loss":…,"learning_rate":…,"examples_per_second":…,"wall_time":…}
///   {"kind":"eval","step":…,"eval_loss":…,"eval_accuracy":…[,"eval_f1","eval_mcc"]} or
///   regression {"kind":"eval",…,"eval_mse":…,"eval_pearson":…,"eval_spearman":…}
/// Each line goes out in one O_APPEND write(2), so a reader or a crash never sees half a
/// line. Non-finite numbers are written as null. Thread rules: one writer thread.
class MetricsWriter
{
public:
    /// Opens (creates) `path` for appending; creates missing parent directories.
    /// Throws wb::Error naming the path when it cannot be opened.
    explicit MetricsWriter(const std::string &path);
    ~MetricsWriter();
    MetricsWriter(const MetricsWriter &) = delete;
    MetricsWriter &operator=(const MetricsWriter &) = delete;

    /// A "train" line; `fields`: a task's own values (pretraining: mlm_loss, mlm_accuracy,
    /// nsp_*), appended after the standard keys.
    void writeTrain(const StepMetrics &m, const std::vector<std::pair<std::string, double>> &fields = {});
    /// An "eval" line; `fields`: a task's own values (pretraining: eval_mlm_loss …), merged in.
    void writeEval(const EvalMetrics &m, const std::vector<std::pair<std::string, double>> &fields = {});
    /// {"kind":"note","step":…,"id":…,"severity":…,"text":…}: a coach note (core/advice/coach.h).
    void writeNote(const CoachNote &n);
    /// Appends `j` as one line. Throws wb::Error when the write fails (disk full).
    void writeLine(const nlohmann::json &j);

    const std::string &path() const { return m_path; }

    /// Rewrites `path` atomically keeping only the lines whose "step" is ≤ `step` (drops
    /// what an interrupted run logged after its last checkpoint). No-op when absent.
    static void truncateAfterStep(const std::string &path, int64_t step);

    /// Returns the JSON objects of a train/eval line: the format of core/io/runeventjson.h
    /// with "kind" added and the keys listed above (exposed for the training summary and tests).
    static nlohmann::ordered_json trainJson(const StepMetrics &m);
    static nlohmann::json evalJson(const EvalMetrics &m);

private:
    void appendText(const std::string &line);

    std::string m_path;
    int m_fd = -1;
};

} // namespace wb
