// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/learningcheck.h"

#include "core/data/preparereport.h"
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
        if (!report)
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

QStringList learningWarnings(const EvalMetrics &m, const std::optional<MajorityBaseline> &baseline, bool fromScratch,
                             double learningRate, const std::vector<std::string> &labelNames)
{
    const auto name = [&labelNames](int id) {
        return id >= 0 && id < int(labelNames.size()) ? QString::fromStdString(labelNames[size_t(id)])
                                                      : QObject::tr("label %1").arg(id);
    };
    QStringList out;
    if (m.regression)
        return out;
    int predictedLabels = 0, onlyLabel = -1;
    const size_t n = m.confusion.size();
    for (size_t p = 0; p < n; ++p) {
        int64_t column = 0;
        for (const auto &row : m.confusion)
            column += p < row.size() ? row[p] : 0;
        if (column > 0) {
            ++predictedLabels;
            onlyLabel = int(p);
        }
    }
    if (n > 1 && predictedLabels == 1)
        out << QObject::tr("The model predicts %1 for every evaluation example: it has not learned to tell "
                           "the labels apart.").arg(name(onlyLabel));
    if (baseline && m.eval_accuracy <= baseline->accuracy + 1e-9)
        out << QObject::tr("Eval accuracy %1 does not beat the majority-class baseline %2 (always predicting "
                           "%3).")
                   .arg(m.eval_accuracy, 0, 'f', 3)
                   .arg(baseline->accuracy, 0, 'f', 3)
                   .arg(name(baseline->majority_label));
    if (!out.isEmpty() && fromScratch)
        out << QObject::tr("There is no init checkpoint, so the model trains from random weights: the usual "
                           "fine-tuning learning rates (2e-5 to 5e-5) are meant for pretrained weights. Try a "
                           "higher one, such as %1 (Training → Find Learning Rate… measures one), or set an init checkpoint.")
                   .arg(QString::number(std::max(1e-4, learningRate * 10), 'g', 2));
    return out;
}

} // namespace wb
