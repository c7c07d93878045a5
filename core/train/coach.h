// SPDX-License-Identifier: Apache-2.0
#pragma once

// The coach (issue 25 §3): rules over a run's metric stream — the values metrics.jsonl holds —
// that say in plain words what is happening and what to try. Torch-free (wb_rundir): the
// training loop feeds it, and so can a test or a tool reading a recorded metrics.jsonl.
// docs/tutorial.md "What the coach says" lists the rules; docs/file-formats.md the "note" event.

#include "core/events/trainingobserver.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace wb {

/// One rule of the coach: its stable id (the CoachNote::id), severity, thresholds and the
/// text template. Placeholders `{name}` are filled by the rule (docs/tutorial.md names them).
struct CoachRule
{
    const char *id;
    const char *severity;  ///< "info" or "warning"
    double threshold;      ///< the rule's main threshold (see kCoachRules)
    double threshold2;     ///< a second one where the rule has it, else 0
    const char *text;
};

/// THE table of the coach's thresholds and messages, one row per rule. Thresholds:
///  * overfitting: threshold = k, the evaluations after the lowest eval_loss that are all above
///    it (the run's --early_stopping_patience when > 0 replaces k), while the mean train loss
///    of the last evaluation interval is below that of the best one;
///  * divergence: a logged train loss that is not finite, or above threshold × the first logged loss;
///  * plateau: at an evaluation at or after threshold2 (a fraction of total_steps), the mean
///    train loss of the interval within threshold (relative) of ln(num_labels);
///  * constant_classifier: every evaluation so far of a binary task has eval_f1 = 0,
///    eval_mcc = 0 and eval_accuracy within threshold of the majority share;
///  * one_class / below_baseline: one evaluation predicts one label only / its accuracy is not
///    above the majority share (+ threshold);
///  * small_eval_set: the binomial 95 % interval of the accuracy, ±1.96·sqrt(p(1−p)/n), is
///    wider than ±threshold;
///  * few_steps: total_steps < threshold; warmup_too_long: warmup_steps ≥ total_steps;
///  * lr_pretrained / lr_scratch: learning_rate outside [threshold, threshold2] when the run
///    starts from an init checkpoint / from random weights.
inline constexpr CoachRule kCoachRules[] = {
    {"overfitting", "warning", 3, 0,
     "eval loss has risen since step {since} (best {best}); early stopping with patience {k} would have stopped at "
     "{stop}"},
    {"divergence", "warning", 3, 0,
     "learning rate too high: try Find Learning Rate (the train loss is {loss} at step {step}; it started at {start})"},
    {"plateau", "info", 0.05, 0.25,
     "not learning yet: the train loss {loss} is still near ln({num_labels}) = {ln}, the loss of guessing every label "
     "alike"},
    {"constant_classifier", "warning", 1e-9, 0,
     "constant classifier: every evaluation so far ({evals}, up to step {step}) has eval_f1 0, eval_mcc 0 and "
     "eval_accuracy {accuracy}, the share of the majority label {label}: the model answers {label} for everything"},
    {"one_class", "warning", 0, 0,
     "The model predicts {label} for every evaluation example: it has not learned to tell the labels apart."},
    {"below_baseline", "warning", 1e-9, 0,
     "Eval accuracy {accuracy} does not beat the majority-class baseline {baseline} (always predicting {label})."},
    {"from_scratch", "info", 1e-4, 10,
     "There is no init checkpoint, so the model trains from random weights: the usual fine-tuning learning rates (2e-5 "
     "to 5e-5) are meant for pretrained weights. Try a higher one, such as {lr} (Training → Find Learning Rate… "
     "measures one), or set an init checkpoint."},
    {"small_eval_set", "info", 0.05, 0,
     "the eval set has {n} examples: its accuracy {accuracy} is known only to ±{points} points (95 % interval); about "
     "{needed} examples would give ±5"},
    {"few_steps", "warning", 50, 0,
     "the run has only {steps} training steps: too few to learn much; train more epochs or use a smaller batch"},
    {"warmup_too_long", "warning", 0, 0,
     "the warmup ({warmup} steps) is not shorter than the run ({steps} steps): the learning rate never reaches "
     "{lr}; lower --warmup_proportion"},
    {"lr_pretrained", "warning", 5e-6, 5e-4,
     "learning_rate {lr} is far from the usual range for fine-tuning a pretrained model (2e-5 to 5e-5)"},
    {"lr_scratch", "warning", 1e-4, 1e-2,
     "learning_rate {lr} is far from the usual range for a model trained from random weights (1e-4 to 1e-3); try "
     "Find Learning Rate"},
};

/// Returns the row of `id` in kCoachRules. Throws std::out_of_range for an unknown id.
const CoachRule &coachRule(const std::string &id);

/// Returns `rule.text` with each `{name}` replaced by its value. Pure.
std::string fillCoachText(const char *text, const std::vector<std::pair<std::string, std::string>> &values);

/// What the coach knows about a run before its first step. A plain value.
struct CoachSetup
{
    int64_t total_steps = 0;
    int64_t warmup_steps = 0;
    int64_t num_labels = 0;           ///< 1 or regression: the classification rules stay quiet
    bool regression = false;
    double learning_rate = 0;         ///< --learning_rate (the peak)
    bool from_scratch = false;        ///< no init checkpoint: random weights
    int64_t early_stopping_patience = 0; ///< the run's flag; 0: the table's k
};

struct TrainingOptions;
struct Schedule;

/// A run's coach setup from its options and schedule: total and warmup steps, the peak
/// learning rate, random weights or not (no init checkpoint), the early-stopping patience.
/// num_labels and regression stay 0 / false: the caller sets them for its task. Pure.
CoachSetup coachSetupFor(const TrainingOptions &spec, const Schedule &sched);

/// The notes about a schedule that cannot learn, checked before the first step (step 0):
/// few_steps, warmup_too_long, lr_pretrained / lr_scratch. Pure.
std::vector<CoachNote> scheduleNotes(const CoachSetup &setup);

/// What one classification evaluation says about learning (the window's end verdict and the
/// coach share it): one_class ("predicts only label N"), below_baseline (accuracy not above
/// `majority`'s share: {label id, share in [0, 1]}; none: not checked), and with either,
/// when `fromScratch`, the from_scratch advice with max(1e-4, 10 × learningRate). Labels are
/// named by `labelNames` (id order; "label N" beyond it). Empty for regression. Pure.
std::vector<CoachNote> learningNotes(const EvalMetrics &em, const std::optional<std::pair<int, double>> &majority,
                                     bool fromScratch, double learningRate, const std::vector<std::string> &labelNames);

/// The majority label and its share of the examples of a confusion matrix's rows
/// (confusion[true][predicted]; the lowest id on ties); nothing when it counts no example.
std::optional<std::pair<int, double>> majorityShare(const std::vector<std::vector<int64_t>> &confusion);

/// The rule set evaluated over a run's metric stream, step by step. Feed it what the run logs,
/// in order; each call returns the notes that arose (each said once: a note of the same id
/// comes again only when its content, not its step, changes). Not thread-safe: one run, one
/// thread (the training thread).
class Coach
{
public:
    explicit Coach(CoachSetup setup);

    /// The schedule notes (scheduleNotes); call once before the first step.
    std::vector<CoachNote> start();
    /// A logged train step (metrics.jsonl's "train" line): divergence.
    std::vector<CoachNote> step(const StepMetrics &m);
    /// An evaluation (metrics.jsonl's "eval" line): overfitting, plateau, constant_classifier,
    /// one_class, below_baseline, from_scratch, small_eval_set.
    std::vector<CoachNote> evaluation(const EvalMetrics &m);

    /// Every note said so far, in order.
    const std::vector<CoachNote> &notes() const { return m_notes; }

private:
    void say(std::vector<CoachNote> &out, CoachNote note, const std::string &content);
    /// overfitting: the evaluations after the lowest eval_loss are all above it, k of them at
    /// least (early_stopping_patience, else the rule's threshold), and `trainLoss` still falls.
    void sayOverfitting(std::vector<CoachNote> &out, const EvalMetrics &em, double trainLoss);
    /// plateau: `trainLoss` near ln(num_labels), from a quarter of the run on.
    void sayPlateau(std::vector<CoachNote> &out, const EvalMetrics &em, double trainLoss);
    /// constant_classifier (binary): every evaluation so far answers the `majority` label.
    void sayConstantClassifier(std::vector<CoachNote> &out, const EvalMetrics &em,
                               const std::optional<std::pair<int, double>> &majority);
    /// small_eval_set: the half-width of the accuracy's 95 % interval is above the rule's threshold.
    void saySmallEvalSet(std::vector<CoachNote> &out, const EvalMetrics &em);

    CoachSetup m_setup;
    std::vector<CoachNote> m_notes;
    std::map<std::string, std::string> m_said; ///< id → content of its last note
    std::optional<double> m_firstLoss;
    double m_intervalSum = 0;                  ///< train losses logged since the last evaluation
    int64_t m_intervalCount = 0;
    struct Eval { int64_t step; double eval_loss; double train_loss; };
    std::vector<Eval> m_evals;
    bool m_allConstant = true;
};

} // namespace wb
