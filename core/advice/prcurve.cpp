// SPDX-License-Identifier: Apache-2.0
// Precision–recall curves as scikit-learn defines them (sklearn/metrics/_ranking.py:
// _binary_clf_curve, precision_recall_curve, average_precision_score).
#include "core/advice/prcurve.h"

#include "core/util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace wb {

namespace {

void checkLengths(const std::vector<double> &scores, const std::vector<int64_t> &truth)
{
    if (scores.size() != truth.size())
        throw Error("precision-recall curve",
                    "scores and truths differ in length (" + std::to_string(scores.size()) + " scores, "
                        + std::to_string(truth.size()) + " truths)",
                    "pass one score and one 0/1 truth per example");
}

} // namespace

PrecisionRecallCurve precisionRecallCurve(const std::vector<double> &scores, const std::vector<int64_t> &truth)
{
    checkLengths(scores, truth);
    PrecisionRecallCurve c;
    for (size_t i = 0; i < scores.size(); ++i) {
        if (std::isnan(scores[i]))
            throw Error("precision-recall curve", "score " + std::to_string(i) + " is NaN",
                        "pass finite scores (the probabilities of eval_examples.jsonl)");
        (truth[i] != 0 ? c.positives : c.negatives) += 1;
    }
    if (c.positives == 0) {
        c.average_precision = std::numeric_limits<double>::quiet_NaN();
        return c;
    }
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    int64_t tp = 0, fp = 0;
    double previousRecall = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        (truth[order[i]] != 0 ? tp : fp) += 1;
        if (i + 1 < order.size() && scores[order[i + 1]] == scores[order[i]])
            continue; // a tie: one threshold, one point after the last of the equal scores
        PrecisionRecallPoint p;
        p.threshold = scores[order[i]];
        p.tp = tp;
        p.fp = fp;
        p.precision = double(tp) / double(tp + fp);
        p.recall = double(tp) / double(c.positives);
        c.average_precision += (p.recall - previousRecall) * p.precision;
        previousRecall = p.recall;
        c.points.push_back(p);
    }
    return c;
}

std::array<int64_t, 4> binaryCountsAt(const std::vector<double> &scores, const std::vector<int64_t> &truth,
                                      double threshold)
{
    checkLengths(scores, truth);
    std::array<int64_t, 4> c{0, 0, 0, 0};
    for (size_t i = 0; i < scores.size(); ++i) {
        const bool positive = truth[i] != 0, predicted = scores[i] >= threshold;
        ++c[size_t(positive ? (predicted ? 3 : 2) : (predicted ? 1 : 0))];
    }
    return c;
}

BinaryScores binaryScores(const std::array<int64_t, 4> &counts)
{
    const auto [tn, fp, fn, tp] = counts;
    (void)tn;
    BinaryScores s;
    s.precision = tp + fp > 0 ? double(tp) / double(tp + fp) : 0.0;
    s.recall = tp + fn > 0 ? double(tp) / double(tp + fn) : 0.0;
    s.f1 = 2 * tp + fp + fn > 0 ? 2.0 * double(tp) / double(2 * tp + fp + fn) : 0.0;
    s.support = tp + fn;
    return s;
}

OperatingPoint operatingPoint(const std::array<int64_t, 4> &counts)
{
    const auto [tn, fp, fn, tp] = counts;
    (void)tn;
    OperatingPoint p;
    if (tp + fp == 0)
        return p;
    p.nothingPredicted = false;
    p.precision = double(tp) / double(tp + fp);
    p.recall = tp + fn > 0 ? double(tp) / double(tp + fn) : 0.0;
    return p;
}

} // namespace wb
