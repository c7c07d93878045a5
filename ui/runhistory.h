// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <map>
#include <string>
#include <vector>

namespace wb {

/// The metrics of one run, as read from its `metrics.jsonl` (DESIGN.md §5), for overlaying
/// in the plot and listing in the run comparison table. A plain value.
struct RunHistory
{
    QString name;          ///< shown in legends and tables (the run directory's name)
    QString metricsPath;   ///< the metrics.jsonl it was read from
    std::vector<double> trainStep, trainWallTime, trainLoss, learningRate;
    std::vector<double> evalStep, evalWallTime, evalLoss, evalAccuracy;
    /// Scalars from training_summary.json next to the metrics file (may be empty), and the
    /// options of bert_workbench_project.json (written by the GUI when it starts a run).
    std::map<std::string, std::string> summary;

    bool isEmpty() const { return trainStep.empty() && evalStep.empty(); }

    /// Reads `path`. Lines that are empty are skipped; a line that is not a JSON object
    /// sets `*error` to "<path>: line N: …" and stops (a partly written last line — a run
    /// still in progress — is ignored). Never throws. GUI or worker thread.
    static RunHistory load(const QString &path, QString *error = nullptr);

    /// Returns metrics.jsonl files of runs related to `modelDir`: its own, those of its
    /// immediate subdirectories and of its sibling directories. Sorted, without duplicates.
    static QStringList findRuns(const QString &modelDir);
};

} // namespace wb
