// SPDX-License-Identifier: Apache-2.0
#include "core/config/schedule.h"

#include "core/config/optionwords.h"

#include <algorithm>
#include <string>

namespace wb {

std::optional<Schedule> Schedule::compute(int64_t N, int64_t M, int64_t E, int64_t n, int64_t B, int64_t Be,
                                          std::optional<int64_t> trainDataSizeFlag, double warmupFraction,
                                          Diagnostics &diag)
{
    const int before = diag.errorCount();
    if (B <= 0)
        diag.error("train_batch_size", "train_batch_size must be > 0, got " + std::to_string(B),
                   "use e.g. 32 (smaller if memory is short)");
    if (Be <= 0)
        diag.error("eval_batch_size", "eval_batch_size must be > 0, got " + std::to_string(Be), "use e.g. 32");
    if (n <= 0)
        diag.error("num_eval_per_epoch", "num_eval_per_epoch must be > 0, got " + std::to_string(n),
                   "use 1 to evaluate once per epoch (run_classifier would divide by zero here)");
    if (E <= 0)
        diag.error("num_train_epochs", "num_train_epochs must be > 0, got " + std::to_string(E),
                   "fine-tuning usually takes 2 to 4 epochs");
    if (N < 0)
        diag.error("train_data_size", "train_data_size must be ≥ 0", "check input_meta_data.json");
    if (M < 0)
        diag.error("eval_data_size", "eval_data_size must be ≥ 0", "check input_meta_data.json");
    if (trainDataSizeFlag && *trainDataSizeFlag <= 0)
        diag.error("train_data_size",
                   optionName("train_data_size") + " must be > 0, got " + std::to_string(*trainDataSizeFlag),
                   "leave the flag out to use every training example");
    if (!(warmupFraction >= 0.0 && warmupFraction < 1.0))
        diag.error("warmup_fraction", "the warmup fraction must be in [0, 1)", "0.1 is run_classifier's value");
    if (diag.errorCount() != before)
        return std::nullopt;

    Schedule s;
    s.epochs = E * n;
    s.train_data_size = N / n;
    if (trainDataSizeFlag)
        s.train_data_size = std::min(s.train_data_size, *trainDataSizeFlag);
    s.steps_per_epoch = s.train_data_size / B;
    s.total_steps = s.steps_per_epoch * s.epochs;
    s.warmup_steps = int64_t(double(s.epochs * s.train_data_size) * warmupFraction / double(B));
    s.eval_steps = (M + Be - 1) / Be;
    if (s.steps_per_epoch == 0) {
        const std::string per = std::to_string(s.train_data_size);
        const std::string fix = s.train_data_size > 0
                                    ? "lower train_batch_size to at most " + per
                                          + ", lower num_eval_per_epoch, or add training data"
                                    : std::string("add training data (train_data_size in the meta data is too small)");
        diag.error("train_batch_size",
                   "zero steps per epoch: " + per + " training examples per evaluation interval (train_data_size "
                       + std::to_string(N) + " / num_eval_per_epoch " + std::to_string(n)
                       + ") are fewer than one batch of " + std::to_string(B),
                   fix);
        return std::nullopt;
    }
    return s;
}

double Schedule::learningRate(int64_t t, double init_lr, double end_lr) const
{
    if (warmup_steps > 0 && t < warmup_steps)
        return init_lr * (double(t) / double(warmup_steps));
    if (total_steps <= 0)
        return end_lr;
    const double done = double(std::min(t, total_steps)) / double(total_steps);
    return (init_lr - end_lr) * (1.0 - done) + end_lr;
}

} // namespace wb
