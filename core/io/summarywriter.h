// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <memory>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wb {

class EventWriter;

/// Writes a run's TensorBoard summaries, laid out as tensorflow/models' run_classifier does:
/// `model_dir/summaries/train` and `model_dir/summaries/validation` (one run each in
/// TensorBoard), one event file per directory per SummaryWriter.
///
/// Tags (the metrics.jsonl names):
/// - train: `loss`, `learning_rate`, `examples_per_second`;
/// - validation: `eval_loss`, plus `eval_accuracy` (classification), `eval_f1` and
///   `eval_mcc` (binary classification), `eval_mse`, `eval_pearson`, `eval_spearman`
///   (regression).
/// Each value is one simple_value scalar at the metrics' global step and wall_time.
///
/// Directories and files are created on the first write of their kind, so a run that never
/// evaluates leaves no empty validation directory. Every write is flushed, so TensorBoard
/// (or the GUI's event reader) sees it at once. Only the chief (rank 0) should own one.
/// Errors throw wb::Error naming the path. Thread rule: use from one thread (the Trainer's).
class SummaryWriter
{
public:
    /// Prepares writing below `model_dir`; creates nothing yet.
    explicit SummaryWriter(std::string model_dir);
    ~SummaryWriter();
    SummaryWriter(const SummaryWriter &) = delete;
    SummaryWriter &operator=(const SummaryWriter &) = delete;

    /// Appends loss, `fields` (a task's own train values, e.g. pretraining's mlm_loss),
    /// learning_rate and examples_per_second at `m.step`.
    void writeTrain(const StepMetrics &m, const std::vector<std::pair<std::string, double>> &fields = {});

    /// Appends the evaluation metrics that apply to the task at `m.step` (evalScalars).
    void writeEval(const EvalMetrics &m);

    /// Appends `scalars` (tag, value), in order, to the validation events at `step`.
    void writeValidation(int64_t step, double wall_time, const std::vector<std::pair<std::string, double>> &scalars);

    /// The validation tags of a classification or regression evaluation, as listed above.
    static std::vector<std::pair<std::string, double>> evalScalars(const EvalMetrics &m);

    /// Returns `model_dir/summaries/train`.
    std::string trainDir() const;
    /// Returns `model_dir/summaries/validation`.
    std::string validationDir() const;

private:
    std::string m_modelDir;
    std::unique_ptr<EventWriter> m_train;
    std::unique_ptr<EventWriter> m_validation;
};

} // namespace wb
