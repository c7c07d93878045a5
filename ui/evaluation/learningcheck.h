// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The accuracy of always predicting the most frequent label of the eval data (the
/// majority-class baseline, ZeroR). A plain value.
struct MajorityBaseline
{
    std::vector<int64_t> label_counts; ///< eval examples per label_ids value (index = label id)
    int majority_label = -1;           ///< the most frequent label (the lowest id on ties)
    double accuracy = 0;               ///< label_counts[majority_label] / their sum, in [0, 1]
};

/// Returns the baseline of `labelCounts` (examples per label id); nothing when the counts
/// are empty or sum to 0. Thread-safe.
std::optional<MajorityBaseline> majorityBaseline(const std::vector<int64_t> &labelCounts);

/// Returns the examples per true label of a confusion matrix (its row sums; confusion[true][pred]).
std::vector<int64_t> trueLabelCounts(const std::vector<std::vector<int64_t>> &confusion);

/// Returns the eval data's examples per label id from the prepare_report.json beside
/// `inputMetaDataPath` (wb::readPrepareReport and wb::evalCountsByLabelId, core/prepare/preparereport.h).
/// Nothing when there is no report, it has no labels (regression) or its texts carry several
/// labels (multi-label: no one majority class to always predict); a report that cannot be
/// read also gives nothing, and `*error` names the file, the key and what is wrong. Never
/// throws. Any thread.
std::optional<std::vector<int64_t>> evalLabelCountsFromPrepareReport(const QString &inputMetaDataPath,
                                                                     QString *error = nullptr);

/// Returns the bag-of-words baseline's eval accuracy from the prepare_report.json beside
/// `inputMetaDataPath` (bag_of_words_baseline, core/prepare/bagofwords.h). Nothing when there is
/// no report, it has no baseline, or none could be fitted (then `*why` gets the report's
/// reason); a report that cannot be read also gives nothing, and `*error` names the file, the
/// key and what is wrong. Never throws. Any thread.
std::optional<double> bagOfWordsAccuracyFromPrepareReport(const QString &inputMetaDataPath, QString *error = nullptr,
                                                          QString *why = nullptr);

/// The coach's current notes (core/advice/coach.h) that say the run did not learn, and why
/// (isLearningVerdict: divergence, constant_classifier, one_class, below_baseline, the rate
/// advice), as the window's sentences: the Evaluation box and "Completed — did not learn". The
/// coach is their only author; empty when the run learns. Thread-safe.
QStringList learningVerdictTexts(const std::vector<CoachNote> &current);

} // namespace wb
