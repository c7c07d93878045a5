// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// The metrics --best_checkpoint_metric accepts, in --help order.
const std::vector<std::string> &bestCheckpointMetrics();

/// Returns true for metrics that improve upwards (eval_accuracy, eval_f1, eval_mcc), false
/// for eval_loss. Thread-safe.
bool metricHigherIsBetter(const std::string &metric);

/// Returns `metric` of `m`, or nothing when the evaluation does not have it (eval_f1 and
/// eval_mcc exist for binary tasks only; eval_accuracy not for regression) or the name is
/// unknown. Thread-safe.
std::optional<double> metricValue(const EvalMetrics &m, const std::string &metric);

/// Best-model keeping and early stopping over the evaluations of a run, as Hugging Face
/// Trainer's metric_for_best_model + EarlyStoppingCallback: an evaluation improves when its
/// value is strictly better than the best so far (the first always does); training stops
/// when `patience` (> 0) evaluations in a row did not improve. A plain value; one thread.
struct BestModelTracker
{
    std::string metric = "eval_loss";
    int64_t patience = 0;           ///< 0: never stop early
    std::optional<double> best;     ///< best value so far
    int64_t best_step = -1;         ///< step of the best evaluation (-1: none yet)
    int64_t evals_since_best = 0;   ///< evaluations after the best one without improvement

    /// Records the evaluation at `step` with `value`; returns true when it is the new best.
    bool update(double value, int64_t step);
    /// Returns true when the last update() made the run stop (patience used up).
    bool shouldStop() const { return patience > 0 && evals_since_best >= patience; }
};

/// Where a run with these metric values (one per evaluation, in order) stops: the index of
/// the evaluation after which it stops (-1: it runs to the end) and of the best
/// evaluation (-1 when `values` is empty). Pure function over BestModelTracker.
struct EarlyStopDecision
{
    int64_t stop_index = -1;
    int64_t best_index = -1;
};
EarlyStopDecision earlyStoppingDecision(const std::vector<double> &values, bool higherIsBetter, int64_t patience);

/// `model_dir/best/best.json`: which checkpoint is the best and by what, written atomically
/// at every evaluation of a run with --best_checkpoint_metric or --early_stopping_patience.
/// Keys: metric, value, step, checkpoint (path relative to model_dir, e.g. "best/ckpt-40"),
/// evaluations_since_best, last_evaluated_step.
struct BestCheckpointRecord
{
    std::string metric;
    double value = 0;
    int64_t step = -1;
    std::string checkpoint;        ///< relative to model_dir
    int64_t evaluations_since_best = 0;
    int64_t last_evaluated_step = -1;
};

/// Returns model_dir/best/best.json's path.
std::string bestRecordPath(const std::string &modelDir);

/// Reads best.json of `modelDir`; nothing when absent or malformed (a required key missing,
/// or any key of another type). Never throws.
std::optional<BestCheckpointRecord> readBestRecord(const std::string &modelDir);

/// Writes best.json of `modelDir` atomically. Throws wb::Error naming the file.
void writeBestRecord(const std::string &modelDir, const BestCheckpointRecord &r);

/// Returns true when model_dir/training_summary.json says the run stopped early at `step`
/// (its `stopped_early_at_step`): resuming it would train on past the stop. False without a
/// summary; throws wb::Error naming the file and key when it cannot be read
/// (readTrainingSummary, core/formats/trainingsummary.h).
bool stoppedEarlyAt(const std::string &modelDir, int64_t step);

/// Resolves a --predict_checkpoint_path value: "best" → the best checkpoint of `modelDir`
/// (from best.json; throws wb::Error naming the file with a hint when there is none),
/// "latest" → the latest checkpoint (latestCheckpoint; "" when none), a folder holding
/// best.json → its best checkpoint, anything else unchanged.
std::string resolveCheckpointAlias(const std::string &value, const std::string &modelDir);

/// The checkpoint a reader of a run takes when none is named: the best one when the run kept
/// a best model (best.json names a checkpoint that exists), else the latest.
struct RunCheckpointChoice
{
    std::string path;   ///< "" when the run has no checkpoint
    bool best = false;  ///< true: model_dir/best/ckpt-N
    int64_t step = -1;  ///< its step (-1 when unknown)
    std::string metric; ///< best only: the --best_checkpoint_metric and its value
    double value = 0;
    /// "best, step 42 (eval_accuracy 0.6667)" or "latest, step 60"; "" without a checkpoint.
    std::string label() const;
};

/// Chooses as above for `modelDir` (predict, export, classify and Try it without a
/// --predict_checkpoint_path; the window's Evaluation tab). Reads files; never throws.
RunCheckpointChoice chooseRunCheckpoint(const std::string &modelDir);

} // namespace wb
