// SPDX-License-Identifier: Apache-2.0
#pragma once

// How a run ended, as one fact every view of it says the same way (issue 44 item 7): the
// window's progress row, status bar, Evaluation headline and Top losses, live and after the run
// is opened again. Torch-free; reads the model_dir's own files (core/formats).

#include "core/events/trainingobserver.h"

#include <cstdint>
#include <optional>
#include <string>

namespace wb {

/// The end state of a run. A plain value.
struct RunEnd
{
    enum class Kind
    {
        None,         ///< no run, or one still training
        Completed,    ///< trained to the schedule's last step
        StoppedEarly, ///< --early_stopping_patience ended it (a completed run: training_summary.json)
        Stopped,      ///< stopped by the user, or ended before its last step without a summary
        Failed,
    };
    Kind kind = Kind::None;
    int64_t last_step = 0;             ///< the step the run reached
    int64_t total_steps = 0;           ///< the schedule's steps (0: unknown)
    int64_t stopped_early_at_step = 0; ///< > 0 with StoppedEarly
    /// The best checkpoint the model_dir keeps (--best_checkpoint_metric): its step, -1 when the
    /// run keeps none. Evaluation, Top losses, Try it, predict and export read that checkpoint.
    int64_t best_step = -1;
    std::string best_metric;           ///< e.g. "eval_accuracy" (with best_step)
    std::optional<double> best_value;  ///< the metric at best_step
};

/// The end of a run as it reported it (RunFinished), with the schedule's `totalSteps`
/// (0: unknown). Pure.
RunEnd runEndOf(const RunFinished &r, int64_t totalSteps = 0);

/// The end of a run recorded in `modelDir`: training_summary.json (completed, stopped early,
/// the best step) and best/best.json (the kept best checkpoint, also of a stopped run);
/// `lastStep` is the step its files reach (the latest checkpoint or metrics.jsonl), `totalSteps`
/// the schedule's (0: unknown). Kind None when lastStep ≤ 0 and there is no summary. Files
/// that cannot be read count as absent. Never throws; reads two small files.
RunEnd recordedRunEnd(const std::string &modelDir, int64_t lastStep, int64_t totalSteps);

/// The end in words, lower-case, the same in every view: "stopped early at step 24, best at
/// step 6"; "completed at step 338, best at step 169"; "completed at step 338"; "stopped at
/// step 150, best at step 100"; "stopped at step 150"; "failed at step 12"; "" for None. Pure.
std::string runEndPhrase(const RunEnd &e);

/// runEndPhrase with its first letter in capitals ("Stopped early at step 24, best at step 6"),
/// for a status line. Pure.
std::string RunEndPhrase(const RunEnd &e);

/// The eval_examples.jsonl of the checkpoint `modelDir` keeps: best/eval_examples.jsonl when
/// the run keeps a best checkpoint and wrote its examples there, else eval_examples.jsonl (the
/// latest evaluation's). Reads best.json; never throws.
std::string keptEvalExamplesPath(const std::string &modelDir);

/// best/eval_examples.jsonl of `modelDir`: the examples of the best checkpoint's evaluation,
/// copied there by the training loop when that checkpoint is kept (core/engine/evalextras.cpp).
std::string bestEvalExamplesPath(const std::string &modelDir);

} // namespace wb
