// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/learningcheck.h"

#include "core/prepare/preparereport.h"
#include "core/advice/coach.h"
#include "core/util/errortext.h"

#include <QObject>

#include <algorithm>
#include <numeric>

namespace wb {

std::optional<MajorityBaseline> majorityBaseline(const std::vector<int64_t> &labelCounts)
{
    const int64_t total = std::accumulate(labelCounts.begin(), labelCounts.end(), int64_t(0));
    if (labelCounts.empty() || total <= 0)
        return std::nullopt;
    MajorityBaseline b;
    b.label_counts = labelCounts;
    b.majority_label = int(std::max_element(labelCounts.begin(), labelCounts.end()) - labelCounts.begin());
    b.accuracy = double(labelCounts[size_t(b.majority_label)]) / double(total);
    return b;
}

std::vector<int64_t> trueLabelCounts(const std::vector<std::vector<int64_t>> &confusion)
{
    std::vector<int64_t> counts;
    counts.reserve(confusion.size());
    for (const auto &row : confusion)
        counts.push_back(std::accumulate(row.begin(), row.end(), int64_t(0)));
    return counts;
}

std::optional<std::vector<int64_t>> evalLabelCountsFromPrepareReport(const QString &inputMetaDataPath, QString *error)
{
    try {
        const auto report = readPrepareReport(inputMetaDataPath.toStdString()); // core/data: the writer's twin
        if (!report || report->multi_label || report->problem_type == "multi_label_classification") // no one majority class
            return std::nullopt;
        std::vector<int64_t> counts = evalCountsByLabelId(*report);
        if (counts.empty())
            return std::nullopt;
        return counts;
    } catch (...) {
        if (error)
            *error = QString::fromStdString(describeCurrentException("prepare_report.json").line());
        return std::nullopt;
    }
}

std::optional<double> bagOfWordsAccuracyFromPrepareReport(const QString &inputMetaDataPath, QString *error, QString *why)
{
    try {
        const auto report = readPrepareReport(inputMetaDataPath.toStdString());
        if (!report || !report->bag_of_words)
            return std::nullopt;
        if (!report->bag_of_words->fitted()) {
            if (why)
                *why = QString::fromStdString(report->bag_of_words->error);
            return std::nullopt;
        }
        return report->bag_of_words->eval_accuracy;
    } catch (...) {
        if (error)
            *error = QString::fromStdString(describeCurrentException("prepare_report.json").line());
        return std::nullopt;
    }
}

QStringList learningVerdictTexts(const std::vector<CoachNote> &current)
{
    QStringList out;
    for (const CoachNote &n : current)
        if (isLearningVerdict(n.id))
            out << QString::fromStdString(n.text);
    return out;
}

} // namespace wb
