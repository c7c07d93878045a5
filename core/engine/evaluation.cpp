// SPDX-License-Identifier: Apache-2.0
#include "core/engine/evaluation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace wb {

void computeClassificationMetrics(const std::vector<int64_t> &labels, const std::vector<int64_t> &predictions,
                                  int64_t numLabels, EvalMetrics &m)
{
    m.regression = false;
    m.binary = numLabels == 2;
    m.num_examples = int64_t(labels.size());
    m.confusion.assign(size_t(numLabels), std::vector<int64_t>(size_t(numLabels), 0));
    int64_t correct = 0;
    for (size_t k = 0; k < labels.size(); ++k) {
        const int64_t t = labels[k], p = predictions[k];
        correct += t == p;
        if (t >= 0 && t < numLabels && p >= 0 && p < numLabels)
            ++m.confusion[size_t(t)][size_t(p)];
    }
    m.eval_accuracy = labels.empty() ? 0.0 : double(correct) / double(labels.size());
    // Per class from the confusion matrix (rows: true, columns: predicted); macro-F1 their mean.
    m.class_precision.assign(size_t(numLabels), 0.0);
    m.class_recall.assign(size_t(numLabels), 0.0);
    m.class_f1.assign(size_t(numLabels), 0.0);
    m.class_support.assign(size_t(numLabels), 0);
    double f1Sum = 0;
    for (size_t c = 0; c < size_t(numLabels); ++c) {
        int64_t predicted = 0, actual = 0;
        for (size_t o = 0; o < size_t(numLabels); ++o) {
            predicted += m.confusion[o][c];
            actual += m.confusion[c][o];
        }
        const double tp = double(m.confusion[c][c]);
        m.class_support[c] = actual;
        m.class_precision[c] = predicted > 0 ? tp / double(predicted) : 0.0;
        m.class_recall[c] = actual > 0 ? tp / double(actual) : 0.0;
        const double denominator = double(predicted + actual);
        m.class_f1[c] = denominator > 0 ? 2 * tp / denominator : 0.0;
        f1Sum += m.class_f1[c];
    }
    m.eval_macro_f1 = numLabels > 0 ? f1Sum / double(numLabels) : 0.0;
    m.positive_label = 1;
    if (m.binary) {
        const double tn = double(m.confusion[0][0]), fp = double(m.confusion[0][1]);
        const double fn = double(m.confusion[1][0]), tp = double(m.confusion[1][1]);
        m.eval_f1 = tp > 0 ? 2 * tp / (2 * tp + fp + fn) : 0.0;
        const double den = std::sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn));
        m.eval_mcc = den > 0 ? (tp * tn - fp * fn) / den : 0.0;
    }
}

double pearson(const std::vector<double> &a, const std::vector<double> &b)
{
    const double undefined = std::numeric_limits<double>::quiet_NaN(); // not 0: no correlation was measured
    const size_t n = a.size();
    if (n == 0 || b.size() != n)
        return undefined;
    const double ma = std::accumulate(a.begin(), a.end(), 0.0) / double(n);
    const double mb = std::accumulate(b.begin(), b.end(), 0.0) / double(n);
    double sab = 0, saa = 0, sbb = 0;
    for (size_t k = 0; k < n; ++k) {
        sab += (a[k] - ma) * (b[k] - mb);
        saa += (a[k] - ma) * (a[k] - ma);
        sbb += (b[k] - mb) * (b[k] - mb);
    }
    return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : undefined;
}

static std::vector<double> ranks(const std::vector<double> &x)
{
    std::vector<size_t> idx(x.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
    std::vector<double> r(x.size());
    for (size_t i = 0; i < idx.size();) {
        size_t j = i;
        while (j + 1 < idx.size() && x[idx[j + 1]] == x[idx[i]])
            ++j;
        const double avg = (double(i) + double(j)) / 2.0 + 1.0;
        for (size_t k = i; k <= j; ++k)
            r[idx[k]] = avg;
        i = j + 1;
    }
    return r;
}

double spearman(const std::vector<double> &a, const std::vector<double> &b)
{
    return pearson(ranks(a), ranks(b));
}

void computeRegressionMetrics(const std::vector<double> &targets, const std::vector<double> &predictions,
                              EvalMetrics &m)
{
    m.regression = true;
    m.binary = false;
    m.num_examples = int64_t(targets.size());
    double se = 0;
    for (size_t k = 0; k < targets.size(); ++k)
        se += (predictions[k] - targets[k]) * (predictions[k] - targets[k]);
    m.eval_mse = targets.empty() ? std::numeric_limits<double>::quiet_NaN() : se / double(targets.size());
    m.eval_pearson = pearson(targets, predictions);
    m.eval_spearman = spearman(targets, predictions);
}

} // namespace wb
