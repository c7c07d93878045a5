// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace wb {

/// One point of a precision–recall curve: label predicted when score ≥ threshold.
struct PrecisionRecallPoint
{
    double threshold = 0;  ///< one of the distinct scores
    double precision = 0;  ///< tp / (tp + fp); never undefined here (tp + fp ≥ 1 at every point)
    double recall = 0;     ///< tp / positives
    int64_t tp = 0, fp = 0;
};

/// A binary (one label's) precision–recall curve with scikit-learn's semantics
/// (sklearn.metrics.precision_recall_curve and average_precision_score, 1.2).
struct PrecisionRecallCurve
{
    /// One point per distinct score, thresholds descending (recall rising). scikit-learn's
    /// arrays are these reversed (thresholds ascending) with the end point (precision 1,
    /// recall 0) appended to precision and recall. Empty when there is no positive (or no
    /// score): the curve is undefined then.
    std::vector<PrecisionRecallPoint> points;
    /// average_precision_score: Σ (R_i − R_{i−1}) P_i over the points in threshold-descending
    /// order, R_{−1} = 0 (no interpolation). NaN when there is no positive: scikit-learn 1.2
    /// warns and returns 0 there (recall set to 1), older versions nan; both are meaningless,
    /// so callers say "no eval text carries this label" instead of a number.
    double average_precision = 0;
    int64_t positives = 0;  ///< truths that are positive
    int64_t negatives = 0;
};

/// The precision–recall curve of `scores` (any real numbers, e.g. sigmoid probabilities)
/// against `truth` (same length; nonzero = positive). Ties: equal scores fall on the same side
/// of every threshold and give one point. Throws wb::Error when the lengths differ or a score
/// is NaN. Pure; thread-safe; O(n log n).
PrecisionRecallCurve precisionRecallCurve(const std::vector<double> &scores, const std::vector<int64_t> &truth);

/// {tn, fp, fn, tp} (scikit-learn's multilabel_confusion_matrix order) of predicting positive
/// when score ≥ `threshold`. Throws wb::Error when the lengths differ. Pure; thread-safe.
std::array<int64_t, 4> binaryCountsAt(const std::vector<double> &scores, const std::vector<int64_t> &truth,
                                      double threshold);

/// Precision, recall and F1 of {tn, fp, fn, tp} with scikit-learn's zero_division=0 (0 where
/// the denominator is 0), as metrics.jsonl's per_class.
struct BinaryScores
{
    double precision = 0, recall = 0, f1 = 0;
    int64_t support = 0;  ///< fn + tp
};
BinaryScores binaryScores(const std::array<int64_t, 4> &counts);

/// Where a decision threshold puts a label on its precision–recall curve: recall tp/(tp+fn)
/// and precision tp/(tp+fp), or the curve's end point (recall 0, precision 1) when nothing
/// reaches the threshold. `nothingPredicted` says which. Pure.
struct OperatingPoint
{
    double recall = 0, precision = 1;
    bool nothingPredicted = true;
};
OperatingPoint operatingPoint(const std::array<int64_t, 4> &counts);

} // namespace wb
