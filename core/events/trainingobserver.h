// SPDX-License-Identifier: Apache-2.0
#pragma once

// The run-event vocabulary shared by the trainer, the writers in core/io, the local
// launcher and the front-ends. Depends on nothing but core/util (second layer from the bottom).

#include "core/events/stoptoken.h"
#include "core/util/errortext.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace wb {

/// Sent once when a run has validated its inputs and is about to take its first step.
struct RunStarted
{
    int64_t total_steps = 0;
    int64_t steps_per_epoch = 0;   ///< steps between evaluations
    int64_t warmup_steps = 0;
    int64_t eval_steps = 0;
    int64_t start_step = 0;        ///< > 0 when resumed from a checkpoint
    int64_t num_labels = 0;
    int64_t parameter_count = 0;
    std::string model_dir;
    std::string device;            ///< e.g. "cpu", "cuda:0"
    double wall_time = 0;          ///< seconds since the Unix epoch
};

/// Training metrics at one logged step (batched at the source: ≤ ~20 per second).
struct StepMetrics
{
    int64_t step = 0;              ///< global step after this update (1-based)
    int64_t total_steps = 0;
    double epoch = 0;              ///< fractional real epoch, e.g. 1.5
    double loss = 0;               ///< mean train loss of the steps since the last report
    double learning_rate = 0;      ///< LR used by this update
    double examples_per_second = 0;
    double wall_time = 0;          ///< seconds since the Unix epoch
};

/// Metrics of one full pass over the evaluation set.
struct EvalMetrics
{
    int64_t step = 0;
    double wall_time = 0;
    double eval_loss = 0;
    bool regression = false;
    double eval_accuracy = 0;      ///< classification
    bool binary = false;
    /// Binary tasks: the F1 of the positive class, label id 1 (`positive_label`; run_classifier's
    /// and scikit-learn's pos_label=1 convention), kept under this name for compatibility.
    double eval_f1 = 0;
    double eval_mcc = 0;           ///< binary tasks
    /// Classification: the unweighted mean of the per-class F1 (scikit-learn's average="macro").
    double eval_macro_f1 = 0;
    /// Classification, per label id: precision tp/(tp+fp), recall tp/(tp+fn), F1 2tp/(2tp+fp+fn)
    /// (0 where undefined), support (true examples of the label).
    std::vector<double> class_precision, class_recall, class_f1;
    std::vector<int64_t> class_support;
    /// The label names in id order, when the run knows them (labels.txt, id2label); else empty
    /// (then "label N" is shown).
    std::vector<std::string> label_names;
    int64_t positive_label = 1;    ///< binary: the label id eval_f1 is about
    double eval_mse = 0;           ///< regression
    double eval_pearson = 0;       ///< regression
    double eval_spearman = 0;      ///< regression
    int64_t num_examples = 0;
    /// Pretraining with the next-sentence head (google-research's next_sentence_labels): the
    /// mean cross-entropy of its logits and the share of pairs whose argmax is the label.
    bool next_sentence = false;
    double eval_nsp_loss = 0, eval_nsp_accuracy = 0;
    /// confusion[true][predicted] counts; num_labels × num_labels (classification only)
    std::vector<std::vector<int64_t>> confusion;

    /// Multi-label classification (problem_type multi_label_classification; docs/multi-label.md),
    /// scikit-learn's multi-label metrics at the global threshold 0.5 on each label's sigmoid:
    /// eval_accuracy is the subset accuracy (accuracy_score: the predicted set equals the true
    /// one), eval_macro_f1 and class_* are per label (support: texts carrying the label),
    /// confusion stays empty. No binary/eval_f1/eval_mcc.
    bool multi_label = false;
    double eval_micro_f1 = 0;      ///< F1 of all (text, label) decisions pooled (average="micro")
    double eval_samples_f1 = 0;    ///< mean over texts of each text's F1 (average="samples"; 0 for a text with no true and no predicted label, zero_division=0)
    double eval_hamming_loss = 0;  ///< share of (text, label) decisions that are wrong
    /// label_confusion[k] = {tn, fp, fn, tp} of label k at 0.5 (multilabel_confusion_matrix's order)
    std::vector<std::array<int64_t, 4>> label_confusion;
    /// Per-label decision thresholds tuned on this evaluation: each label's threshold maximises
    /// its F1 over the eval texts (ties: the one closest to 0.5; a label without positives: 0.5).
    std::vector<double> thresholds;
    /// Micro- and macro-F1 with the tuned thresholds, estimated fairly: thresholds tuned on one
    /// half of the eval texts score the other half and the reverse (2-fold cross-fitting), so
    /// the gain over 0.5 is not measured on the texts it was tuned on.
    double eval_micro_f1_tuned = 0, eval_macro_f1_tuned = 0;

    /// Single-label runs that record training dynamics (docs/data-map.md), the chief's: the
    /// training examples observed so far and how many of them lie in the data map's
    /// hard-to-learn region (confidence < 0.5, variability < 0.2) at this evaluation. 0 and 0
    /// when nothing is recorded (then the eval line leaves both out).
    int64_t train_examples_mapped = 0;
    int64_t train_hard_to_learn = 0;

    /// Distillation (eval records with the teacher's outputs; docs/distillation.md): the share
    /// of decisions the model makes as its teacher did — eval texts with the same argmax
    /// (single-label), (text, label) decisions on the same side of 0.5 (multi-label). Regression
    /// and runs without a teacher: distilled false (then absent from the files and the line).
    bool distilled = false;
    double eval_teacher_agreement = 0;
};

/// A checkpoint was written atomically.
struct CheckpointSaved
{
    int64_t step = 0;
    std::string path;              ///< checkpoint prefix, e.g. model_dir/ckpt-114
};

/// A note of the coach (core/advice/coach.h): what the curves say so far, in plain words.
struct CoachNote
{
    std::string id;                ///< the rule's stable id, e.g. "overfitting" (docs/file-formats.md)
    int64_t step = 0;              ///< the step the note is about (0: before the first step)
    std::string severity;          ///< "info" or "warning"
    std::string text;              ///< one or two sentences, no trailing newline
};

/// How a run ended.
enum class RunStatus { Completed, Cancelled, Failed };

/// Sent exactly once at the end of every run, whatever happened.
struct RunFinished
{
    RunStatus status = RunStatus::Completed;
    int64_t last_step = 0;
    double final_train_loss = 0;
    std::string message;           ///< error message when Failed
    std::string field;             ///< file/flag/record the error is about
    std::string hint;              ///< how to fix it
    std::string last_checkpoint;   ///< latest checkpoint on disk (may be empty)
    int64_t stopped_early_at_step = 0; ///< > 0: --early_stopping_patience ended the run after this step
    int64_t best_step = -1;        ///< step of the best evaluation (--best_checkpoint_metric); -1: none
    std::string best_checkpoint;   ///< model_dir/best/ckpt-N, or empty
};

/// Returns the end of a run that failed with `error` (status Failed, message, field and
/// hint from it); the caller adds last_step and last_checkpoint when it knows them.
inline RunFinished failedRun(const ErrorText &error)
{
    RunFinished r;
    r.status = RunStatus::Failed;
    r.message = error.message;
    r.field = error.field;
    r.hint = error.hint;
    return r;
}

/// Returns "completed", "cancelled" or "failed".
inline const char *runStatusName(RunStatus s)
{
    switch (s) {
    case RunStatus::Completed: return "completed";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Failed: return "failed";
    }
    return "failed";
}

/// Receives the progress of Trainer::run. All hooks are called on the thread that runs the
/// Trainer (never the GUI thread); implementations must be cheap and must forward to other
/// threads themselves (the GUI's worker emits queued signals). Every hook does nothing by
/// default: an observer overrides only the events it needs.
class TrainingObserver
{
public:
    virtual ~TrainingObserver() = default;
    virtual void runStarted(const RunStarted &) {}
    virtual void stepCompleted(const StepMetrics &) {}
    virtual void evaluationCompleted(const EvalMetrics &) {}
    virtual void checkpointSaved(const CheckpointSaved &) {}
    /// The coach said something (once per note; a note is repeated only when its content changes).
    virtual void coachNote(const CoachNote &) {}
    /// A human-readable log line (the same lines the CLI prints).
    virtual void logMessage(const std::string &) {}
    virtual void runFinished(const RunFinished &) {}
};

} // namespace wb
