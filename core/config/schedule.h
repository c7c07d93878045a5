// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"

#include <cstdint>
#include <optional>

namespace wb {

/// Step counts of run_classifier's train_and_eval (tensorflow/models
/// official/legacy/bert/run_classifier.py, run_bert_classifier), bit-for-bit:
///
///   epochs          = E · n
///   train_data_size = N // n, then min(…, --train_data_size) when set
///   steps_per_epoch = floor(train_data_size / B)
///   total_steps     = steps_per_epoch · epochs
///   warmup_steps    = int(epochs · train_data_size · 0.1 / B)
///   eval_steps      = ceil(M / Be)
///
/// MRPC (N=3668, M=408, B=Be=32, E=3, n=1): 114 / 342 / 34 / 13. A plain value.
struct Schedule
{
    int64_t epochs = 0;          ///< Keras epochs = num_train_epochs · num_eval_per_epoch
    int64_t train_data_size = 0; ///< examples per Keras epoch
    int64_t steps_per_epoch = 0; ///< steps between evaluations/checkpoints
    int64_t total_steps = 0;     ///< decay length and number of optimizer updates
    int64_t warmup_steps = 0;
    int64_t eval_steps = 0;

    /// Computes the schedule. Degenerate inputs (batch ≤ 0, num_eval_per_epoch ≤ 0,
    /// epochs ≤ 0, zero steps per epoch, missing sizes) are errors in `diag` with a fix;
    /// the function never divides by zero. Returns nothing when an error was added.
    static std::optional<Schedule> compute(int64_t meta_train_data_size, int64_t meta_eval_data_size,
                                           int64_t num_train_epochs, int64_t num_eval_per_epoch,
                                           int64_t train_batch_size, int64_t eval_batch_size,
                                           std::optional<int64_t> train_data_size_flag,
                                           double warmup_fraction, Diagnostics &diag);

    /// Learning rate at global step `t` (updates already applied, from 0): linear warmup
    /// init_lr·t/W for t < W, else polynomial (power 1) decay evaluated at the global step:
    /// (init_lr − end_lr)·(1 − min(t,T)/T) + end_lr (official/nlp/optimization.py: PolynomialDecay with power 1 after WarmUp). lr(0) = 0 when W > 0.
    double learningRate(int64_t t, double init_lr, double end_lr) const;
};

} // namespace wb
