// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace wb {

/// `model_dir/training_summary.json`: how a completed training run ended, written atomically
/// by the chief when the run completes (docs/file-formats.md). Keys, in this order:
/// total_training_steps, train_loss; with an evaluation eval_metrics (its eval_accuracy;
/// classification only) and last_eval (the EvalMetrics format of core/io/runeventjson.h
/// without regression, binary, confusion and wall_time); with --best_checkpoint_metric or
/// --early_stopping_patience best_checkpoint_metric and, once an evaluation was made,
/// best_metric_value, best_step, best_checkpoint; stopped_early_at_step after an early stop;
/// coach_notes, when the coach said something: [{"step", "id", "severity", "text"}, …].
/// bag_of_words_accuracy and beat_bag_of_words when the data has a bag-of-words baseline.
/// A plain value; the functions are thread-safe.
struct TrainingSummary
{
    int64_t total_training_steps = 0;   ///< the schedule's steps (an early stop ends before)
    /// The final train loss (RunFinished::final_train_loss: the mean of the last logged
    /// interval); NaN when it was not finite (written as null).
    double train_loss = std::numeric_limits<double>::quiet_NaN();
    /// The last evaluation. wall_time and confusion are not written (they read back as 0 and
    /// empty); regression and binary are read back from the keys present.
    std::optional<EvalMetrics> last_eval;
    std::string best_checkpoint_metric;       ///< empty: the run kept no best checkpoint
    std::optional<double> best_metric_value;  ///< unset before the first evaluation
    int64_t best_step = -1;                   ///< with best_metric_value
    std::string best_checkpoint;              ///< with best_metric_value; relative to model_dir
    int64_t stopped_early_at_step = 0;        ///< 0: the run did not stop early
    std::vector<CoachNote> coach_notes;       ///< what the coach said during the run (core/advice/coach.h)
    /// The bag-of-words baseline of the run's data (prepare_report.json's
    /// bag_of_words_baseline.eval_accuracy, core/prepare/bagofwords.h) and whether last_eval's
    /// eval_accuracy is above it; unset when the report has none or there was no evaluation.
    std::optional<double> bag_of_words_accuracy;
    std::optional<bool> beat_bag_of_words;
};

/// Says whether BERT beat the bag-of-words baseline, as the run's end (log, `note:` line,
/// the window's verdict) says it: "BERT beat the bag-of-words baseline: eval accuracy 0.985 vs
/// 0.970 …" or "BERT did not beat … : …": the fact only; what to try is the coach's
/// below_bag_of_words note (core/advice/coach.h). Values in [0, 1]; `metric` names them
/// ("eval micro-F1" for a multi-label run). Pure.
std::string bagOfWordsVerdict(double bertAccuracy, double bagOfWordsAccuracy, const char *metric = "eval accuracy");

/// Fills bag_of_words_accuracy and beat_bag_of_words of `s` (with its last_eval) from the
/// prepare_report.json beside `metaDataPath` and returns bagOfWordsVerdict(), or empty when
/// there is nothing to compare (no report, no fitted baseline, regression, no evaluation).
/// A multi-label run is compared by micro-F1 with the one-vs-rest baseline's (beat_bag_of_words
/// says so; bag_of_words_accuracy stays the baseline's subset accuracy).
/// A report that cannot be read counts as none (its reader names the problem where it is
/// read for the plot). Never throws.
std::string compareWithBagOfWords(TrainingSummary &s, const std::string &metaDataPath);

/// Returns `<modelDir>/training_summary.json`.
std::string trainingSummaryPath(const std::string &modelDir);

/// Returns `s` as training_summary.json's text (indent 4, keys as above).
std::string trainingSummaryJson(const TrainingSummary &s);

/// Writes training_summary.json of `modelDir` atomically. Throws wb::Error naming the file.
void writeTrainingSummary(const std::string &modelDir, const TrainingSummary &s);

/// Reads training_summary.json's text (`source` names it in errors) — trainingSummaryJson's
/// twin: what it wrote comes back (see the struct for what is not written). An absent key
/// keeps its default. Throws wb::Error("<source>: <key>", …) when the text is not a JSON
/// object or a key has another type.
TrainingSummary parseTrainingSummary(const std::string &text, const std::string &source);

/// Reads training_summary.json of `modelDir`; nothing when there is none (a run that has not
/// completed). Throws wb::Error as parseTrainingSummary, or when it cannot be read.
std::optional<TrainingSummary> readTrainingSummary(const std::string &modelDir);

} // namespace wb
