// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

namespace wb {

/// Precision, recall and F1 of one class, from a confusion matrix.
struct ClassMetrics
{
    double precision = 0; ///< TP / (TP + FP); 0 when nothing was predicted as this class
    double recall = 0;    ///< TP / (TP + FN); 0 when the class has no examples
    double f1 = 0;        ///< harmonic mean of precision and recall; 0 when both are 0
    int64_t support = 0;  ///< examples whose true label is this class
};

/// Returns per-class metrics for `confusion[true][predicted]` (square, num_labels × num_labels).
/// Rows that are shorter than the matrix are treated as zeros. Pure function.
std::vector<ClassMetrics> classMetrics(const std::vector<std::vector<int64_t>> &confusion);

} // namespace wb
