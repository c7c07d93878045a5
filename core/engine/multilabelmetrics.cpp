// SPDX-License-Identifier: Apache-2.0
// Multi-label metrics and thresholds (docs/multi-label.md), with scikit-learn's definitions
// (sklearn.metrics f1_score, hamming_loss, accuracy_score, multilabel_confusion_matrix).
#include "core/engine/evaluation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace wb {

namespace {

double f1Of(int64_t tp, int64_t fp, int64_t fn)
{
    const int64_t den = 2 * tp + fp + fn;
    return den > 0 ? 2.0 * double(tp) / double(den) : 0.0;
}

bool predicted(const MultiLabelOutputs &o, int64_t row, int64_t k, const std::vector<double> &thresholds)
{
    const double t = thresholds.empty() ? 0.5 : thresholds[size_t(k)];
    return double(o.probabilities[size_t(row * o.num_labels + k)]) >= t;
}

/// {tn, fp, fn, tp} of each label over `rows` (all rows when empty) at `thresholds` (0.5 when empty).
std::vector<std::array<int64_t, 4>> labelCounts(const MultiLabelOutputs &o, const std::vector<int64_t> &rows,
                                                const std::vector<double> &thresholds)
{
    std::vector<std::array<int64_t, 4>> c(size_t(o.num_labels), {0, 0, 0, 0});
    const auto add = [&](int64_t r) {
        for (int64_t k = 0; k < o.num_labels; ++k) {
            const bool truth = o.truth[size_t(r * o.num_labels + k)] != 0;
            const bool pred = predicted(o, r, k, thresholds);
            ++c[size_t(k)][size_t(truth ? (pred ? 3 : 2) : (pred ? 1 : 0))];
        }
    };
    if (rows.empty())
        for (int64_t r = 0; r < o.rows(); ++r)
            add(r);
    else
        for (int64_t r : rows)
            add(r);
    return c;
}

/// Micro- and macro-F1 of per-label counts.
std::pair<double, double> microMacroF1(const std::vector<std::array<int64_t, 4>> &c)
{
    int64_t tp = 0, fp = 0, fn = 0;
    double macro = 0;
    for (const auto &k : c) {
        tp += k[3];
        fp += k[1];
        fn += k[2];
        macro += f1Of(k[3], k[1], k[2]);
    }
    return {f1Of(tp, fp, fn), c.empty() ? 0.0 : macro / double(c.size())};
}

/// The threshold of one label over `rows`: the cut of the descending probabilities with the
/// best F1; a cut between probabilities hi > lo is any threshold in (lo, hi]: 0.5 when it lies
/// there, else the middle.
double tuneOne(const MultiLabelOutputs &o, int64_t k, const std::vector<int64_t> &rows)
{
    std::vector<std::pair<float, bool>> s; // (probability, truth), descending probability
    s.reserve(rows.size());
    int64_t positives = 0;
    for (int64_t r : rows) {
        const bool truth = o.truth[size_t(r * o.num_labels + k)] != 0;
        s.emplace_back(o.probabilities[size_t(r * o.num_labels + k)], truth);
        positives += truth;
    }
    if (positives == 0)
        return 0.5;
    std::sort(s.begin(), s.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    double bestF1 = -1, bestThreshold = 0.5, bestDistance = 2;
    const auto consider = [&](double f1, double lo, double hi) {
        const double t = (lo < 0.5 && 0.5 <= hi) ? 0.5 : (lo + hi) / 2;
        const double distance = std::abs(t - 0.5);
        if (f1 > bestF1 + 1e-12 || (std::abs(f1 - bestF1) <= 1e-12 && distance < bestDistance)) {
            bestF1 = f1;
            bestThreshold = t;
            bestDistance = distance;
        }
    };
    consider(0.0, double(s.front().first), 1.0); // nothing predicted: F1 0 (zero_division=0)
    int64_t tp = 0, fp = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        (s[i].second ? tp : fp) += 1;
        if (i + 1 < s.size() && s[i + 1].first == s[i].first)
            continue; // equal probabilities fall on the same side of any threshold
        const double lo = i + 1 < s.size() ? double(s[i + 1].first) : 0.0;
        consider(f1Of(tp, fp, positives - tp), lo, double(s[i].first));
    }
    return bestThreshold;
}

/// Micro- and macro-F1 of the tuned thresholds by 2-fold cross-fitting: thresholds tuned on
/// the even rows decide the odd rows and the reverse; the F1 is of all rows' decisions.
std::pair<double, double> crossFittedF1(const MultiLabelOutputs &o)
{
    std::vector<int64_t> even, odd;
    for (int64_t r = 0; r < o.rows(); ++r)
        (r % 2 == 0 ? even : odd).push_back(r);
    if (even.empty() || odd.empty())
        return microMacroF1(labelCounts(o, {}, tuneThresholds(o)));
    auto counts = labelCounts(o, odd, tuneThresholds(o, even));
    const auto other = labelCounts(o, even, tuneThresholds(o, odd));
    for (size_t k = 0; k < counts.size(); ++k)
        for (size_t j = 0; j < 4; ++j)
            counts[k][j] += other[k][j];
    return microMacroF1(counts);
}

/// Mean over rows of each row's F1 between its true and predicted sets (a row with neither
/// scores 0, scikit-learn's zero_division=0) and the share of rows predicted exactly.
std::pair<double, double> samplesF1AndSubsetAccuracy(const MultiLabelOutputs &o)
{
    double f1Sum = 0;
    int64_t exact = 0;
    for (int64_t r = 0; r < o.rows(); ++r) {
        int64_t tp = 0, fp = 0, fn = 0;
        for (int64_t k = 0; k < o.num_labels; ++k) {
            const bool truth = o.truth[size_t(r * o.num_labels + k)] != 0, pred = predicted(o, r, k, {});
            tp += truth && pred;
            fp += !truth && pred;
            fn += truth && !pred;
        }
        f1Sum += f1Of(tp, fp, fn);
        exact += fp == 0 && fn == 0;
    }
    const double n = double(std::max<int64_t>(o.rows(), 1));
    return {f1Sum / n, double(exact) / n};
}

} // namespace

std::vector<double> tuneThresholds(const MultiLabelOutputs &o, const std::vector<int64_t> &rows)
{
    std::vector<int64_t> all;
    if (rows.empty()) {
        all.resize(size_t(o.rows()));
        std::iota(all.begin(), all.end(), int64_t(0));
    }
    std::vector<double> t;
    for (int64_t k = 0; k < o.num_labels; ++k)
        t.push_back(tuneOne(o, k, rows.empty() ? all : rows));
    return t;
}

void computeMultiLabelMetrics(const MultiLabelOutputs &o, EvalMetrics &m)
{
    m.multi_label = true;
    m.regression = false;
    m.binary = false;
    m.confusion.clear();
    m.num_examples = o.rows();
    m.label_confusion = labelCounts(o, {}, {});
    m.class_precision.clear();
    m.class_recall.clear();
    m.class_f1.clear();
    m.class_support.clear();
    int64_t wrong = 0;
    for (const auto &[tn, fp, fn, tp] : m.label_confusion) {
        (void)tn;
        m.class_precision.push_back(tp + fp > 0 ? double(tp) / double(tp + fp) : 0.0);
        m.class_recall.push_back(tp + fn > 0 ? double(tp) / double(tp + fn) : 0.0);
        m.class_f1.push_back(f1Of(tp, fp, fn));
        m.class_support.push_back(tp + fn);
        wrong += fp + fn;
    }
    std::tie(m.eval_micro_f1, m.eval_macro_f1) = microMacroF1(m.label_confusion);
    std::tie(m.eval_samples_f1, m.eval_accuracy) = samplesF1AndSubsetAccuracy(o);
    const int64_t decisions = o.rows() * o.num_labels;
    m.eval_hamming_loss = decisions > 0 ? double(wrong) / double(decisions) : 0.0;
    m.thresholds = tuneThresholds(o);
    std::tie(m.eval_micro_f1_tuned, m.eval_macro_f1_tuned) = crossFittedF1(o);
}

} // namespace wb
