// SPDX-License-Identifier: Apache-2.0
#pragma once

// The facts of a run that advice rests on, computed once (docs/architecture.md, "One source of
// advice"): where its weights came from, its learning rate against the usual range for that
// start, its schedule, its eval data's majority label and bag-of-words baseline. The coach
// (core/advice/coach.h) reads them, and only the coach turns them into advice; every view shows
// the coach's current notes. Torch-free (wb_rundir): the training loop fills them from its
// options, the window and the model card from a past run's run_config.json. The start of a run
// (WeightsStart) and the usual learning rates of each start (kLearningRateRanges, rateWords)
// are in core/config/learningrates.h, where the option help names them too.

#include "core/config/learningrates.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace wb {

struct TrainingOptions;
struct Schedule;

/// The stable name of `start` as run_config.json records it ("informational"."weights_start"):
/// "pretrained_model", "own_pretraining", "init_checkpoint", "random", "unknown". Pure.
const char *weightsStartName(WeightsStart start);
/// The start a name of weightsStartName() stands for; Unknown for anything else. Pure.
WeightsStart weightsStartFromName(const std::string &name);

/// What the metric stream says about the run now (the coach's current notes decide it).
enum class RunVerdict
{
    NotEvaluated, ///< no evaluation and no finding yet
    Learning,     ///< evaluated, and no note says it did not learn
    NotLearning,  ///< constant classifier, one predicted label or not above the majority baseline
    Diverged,     ///< the train loss rose far above its start
    NotANumber    ///< the train loss is NaN or infinite
};

/// "not evaluated", "learning", "not learning", "diverged", "NaN". Pure.
const char *runVerdictName(RunVerdict verdict);

/// The facts of one run. A plain value; the coach's setup (CoachSetup is this type).
struct RunFacts
{
    WeightsStart start = WeightsStart::Random;
    std::string start_name;       ///< the Hub id / model name or the init checkpoint's path; "" for Random
    bool resumed = false;         ///< continued from a checkpoint of its model_dir
    double learning_rate = 0;     ///< --learning_rate (the peak), as the run uses it
    int64_t total_steps = 0;
    int64_t warmup_steps = 0;
    int64_t num_labels = 0;       ///< 1 or regression: the classification rules stay quiet
    bool regression = false;
    int64_t early_stopping_patience = 0; ///< the run's flag; 0: the coach's k
    /// The eval data's majority label and its share (prepare_report.json), for evaluations
    /// without a confusion matrix (metrics.jsonl's); an evaluation's own matrix comes first.
    std::optional<std::pair<int, double>> majority;
    /// The bag-of-words baseline's eval accuracy (prepare_report.json); nothing: none fitted.
    std::optional<double> bag_of_words_accuracy;
    /// The training texts' mean wordpieces and max_seq_length (prepare_report.json; 0: unknown),
    /// and the run's --padding: the short_texts note.
    double mean_tokens = 0;
    int64_t max_seq_length = 0;
    std::string padding = "max_length";
    RunVerdict verdict = RunVerdict::NotEvaluated; ///< kept current by the coach (Coach::facts())
};

/// Where a run with `o` starts: HubPretrained with a pretrained_model, else with an
/// init_checkpoint OwnPretraining when the run_config.json of the checkpoint's folder (the
/// folder itself, or the one holding a ckpt-N file) records a pretraining run (weights_start or
/// its input meta data's task_type bert_pretraining), else OtherCheckpoint; else Random.
/// Reads that run_config.json when there is one; never throws.
WeightsStart weightsStartOf(const TrainingOptions &o);

/// The peak learning rate a run with `o` uses: o.learning_rate when set, else the default of
/// its start (weightsStartOf): kPretrainedLearningRate from a pretrained model or another init
/// checkpoint, the suggestion of kLearningRateRanges' OwnPretraining row (5e-4) after a
/// pretraining run of this program (a few minutes of pretraining leave weights far from a
/// published model's: 5e-5 gives constant classifiers there), kFromScratchLearningRate from
/// random weights. Reads the init checkpoint's run_config.json as weightsStartOf does; never
/// throws. The one rule: prepareRun's resolveLearningRate, the form's schedule and the facts of
/// a run all call it.
double defaultLearningRate(const TrainingOptions &o);

/// The facts of a run with `o` before its first step: its start (weightsStartOf), the peak
/// learning rate (defaultLearningRate()), total and warmup steps, early stopping patience, and the
/// bag-of-words baseline and majority label of prepare_report.json beside the meta data when
/// it has them. num_labels and regression stay 0 / false: the caller sets them for its task.
/// Reads files; never throws.
RunFacts runFactsFor(const TrainingOptions &o, const Schedule &sched);

/// The facts of the past run in `modelDir` from its run_config.json ("defining": learning_rate,
/// total_steps, warmup_steps, num_labels, label_type, early_stopping_patience; "informational":
/// weights_start, pretrained_model, init_checkpoint, input_meta_data_path) and the prepare
/// report beside its meta data. Where run_config.json is missing, `fallback` (the project's
/// options; may be null) gives what it can: the start, the learning rate, the meta data.
/// A run_config.json of an older version without weights_start: HubPretrained when it records
/// a pretrained_model, else Unknown. Reads files; never throws.
RunFacts recordedRunFacts(const std::string &modelDir, const TrainingOptions *fallback = nullptr);

/// The run's start in words for a note or a model card: "the pretrained model BERT-Tiny",
/// "your own pretraining in runs/pre", "the init checkpoint x.safetensors", "random weights",
/// "a start run_config.json does not record". Pure.
std::string startWords(const RunFacts &facts);

} // namespace wb
