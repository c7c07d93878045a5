// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <cstdint>
#include <vector>

namespace wb {

/// Fills the classification fields of `m` from predicted and true class ids (same length):
/// eval_accuracy, the num_labels × num_labels confusion matrix (confusion[true][pred]),
/// per-class precision, recall, F1 and support and their macro-F1 (mean of the per-class
/// F1; each 0 when undefined), and for num_labels == 2 eval_f1 (the F1 of positive_label = 1;
/// 0 when undefined) and eval_mcc (Matthews correlation; 0 when a marginal is empty). Sets
/// num_examples. Leaves label_names alone. Thread-safe.
void computeClassificationMetrics(const std::vector<int64_t> &labels, const std::vector<int64_t> &predictions,
                                  int64_t numLabels, EvalMetrics &m);

/// Fills eval_mse, eval_pearson and eval_spearman (average ranks for ties) from targets and
/// predictions of equal length. A correlation that is undefined (a constant series: a model
/// that predicts one value) is NaN, written as null (scipy.stats.pearsonr's nan), never 0;
/// eval_mse of no example is NaN too. Sets regression and num_examples. Thread-safe.
void computeRegressionMetrics(const std::vector<double> &targets, const std::vector<double> &predictions,
                              EvalMetrics &m);

/// Pearson correlation of two equal-length series; NaN when it is undefined (either series
/// constant, empty, or lengths that differ).
double pearson(const std::vector<double> &a, const std::vector<double> &b);

/// Spearman rank correlation (Pearson of average ranks); NaN when undefined, as pearson().
double spearman(const std::vector<double> &a, const std::vector<double> &b);

} // namespace wb
