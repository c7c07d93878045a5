// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one JSON format of each run event (core/events/trainingobserver.h), used by the
// metrics.jsonl writer (core/io/metricswriter.h), its reader (core/io/metricsreader.h) and
// the --progress_format=jsonl stream (core/io/runevents.h). docs/file-formats.md describes
// the files. nlohmann_json's to_json/from_json, found by argument-dependent lookup:
//   nlohmann::ordered_json j = stepMetrics;      auto m = j.get<StepMetrics>();
//
// Keys are the struct's member names (units as documented there). Non-finite numbers are
// written as null and read back as NaN. Reading never throws for a well-formed JSON object:
// a missing key or one of another type keeps the struct's default, except where noted.

#include "core/events/trainingobserver.h"

#include <nlohmann/json.hpp>

namespace wb {

/// Keys in this order: total_steps, steps_per_epoch, warmup_steps, eval_steps, start_step,
/// num_labels, parameter_count, model_dir, device, wall_time.
void to_json(nlohmann::ordered_json &j, const RunStarted &v);
void from_json(const nlohmann::json &j, RunStarted &v);

/// Keys in this order: step, total_steps, epoch, loss, learning_rate, examples_per_second,
/// wall_time. metrics.jsonl's "train" line keeps step, loss, learning_rate,
/// examples_per_second and wall_time of it.
void to_json(nlohmann::ordered_json &j, const StepMetrics &v);
void from_json(const nlohmann::json &j, StepMetrics &v);

/// Keys (sorted, as nlohmann::json keeps them): step, wall_time, eval_loss, num_examples,
/// regression, binary; then eval_mse, eval_pearson, eval_spearman (regression) or
/// eval_accuracy, eval_f1 and eval_mcc (binary only) and confusion (classification).
/// metrics.jsonl's "eval" line is this without regression, binary and confusion; so when
/// reading, an absent "regression" means "eval_mse is present" and an absent "binary"
/// means "eval_f1 is present". A "confusion" that is not a square matrix of counts in
/// [0, 2^40] with at most 10^6 classes is read as none (the window sums its rows and columns).
void to_json(nlohmann::json &j, const EvalMetrics &v);
void from_json(const nlohmann::json &j, EvalMetrics &v);

/// Keys in this order: step, path.
void to_json(nlohmann::ordered_json &j, const CheckpointSaved &v);
void from_json(const nlohmann::json &j, CheckpointSaved &v);

/// Keys in this order: step, id, severity, text (a coach note; metrics.jsonl's "note" line and
/// the stream's "note" event add "kind"/"event").
void to_json(nlohmann::ordered_json &j, const CoachNote &v);
void from_json(const nlohmann::json &j, CoachNote &v);

/// Keys in this order: status ("completed", "cancelled", "failed"; anything else reads as
/// failed), last_step, final_train_loss, message, field, hint, last_checkpoint (+ stopped_early_at_step,
/// best_step, best_checkpoint when set).
void to_json(nlohmann::ordered_json &j, const RunFinished &v);
void from_json(const nlohmann::json &j, RunFinished &v);

/// Returns `runStatusName`'s inverse; an unknown name is Failed.
RunStatus runStatusFromName(const std::string &name);

/// Dumps `j` on one line; invalid UTF-8 in strings (paths, messages) is replaced by U+FFFD
/// instead of throwing.
std::string dumpLine(const nlohmann::ordered_json &j);
std::string dumpLine(const nlohmann::json &j);

} // namespace wb
