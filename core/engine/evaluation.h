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

/// Multi-label evaluation data, row-major: `truth` [rows × num_labels] 0/1 (the multi-hot
/// label_ids) and `probabilities` [rows × num_labels] (each label's sigmoid), float32.
struct MultiLabelOutputs
{
    int64_t num_labels = 0;
    std::vector<int64_t> truth;
    std::vector<float> probabilities;
    int64_t rows() const { return num_labels > 0 ? int64_t(truth.size()) / num_labels : 0; }
};

/// Fills the multi-label fields of `m` (EvalMetrics' multi_label block: scikit-learn's
/// accuracy_score as eval_accuracy, f1_score micro/macro/samples, hamming_loss,
/// precision_recall_fscore_support per label, multilabel_confusion_matrix) with label k
/// predicted when its probability ≥ 0.5; an undefined precision, recall or F1 is 0
/// (zero_division=0). Then the tuned thresholds (tuneThresholds over every row) and the
/// cross-fitted tuned micro/macro-F1. Sets multi_label and num_examples. Thread-safe.
void computeMultiLabelMetrics(const MultiLabelOutputs &o, EvalMetrics &m);

/// Per-label thresholds maximising each label's F1 over the rows `rows` of `o` (all rows
/// when empty): label k is predicted when probability ≥ threshold. Among cuts of equal F1
/// the one nearest 0.5 wins (0.5 itself when it gives that F1); a label with no positive row
/// keeps 0.5. Returns num_labels thresholds in (0, 1]. Thread-safe.
std::vector<double> tuneThresholds(const MultiLabelOutputs &o, const std::vector<int64_t> &rows = {});

/// Pearson correlation of two equal-length series; NaN when it is undefined (either series
/// constant, empty, or lengths that differ).
double pearson(const std::vector<double> &a, const std::vector<double> &b);

/// Spearman rank correlation (Pearson of average ranks); NaN when undefined, as pearson().
double spearman(const std::vector<double> &a, const std::vector<double> &b);

} // namespace wb
