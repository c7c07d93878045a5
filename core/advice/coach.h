// SPDX-License-Identifier: Apache-2.0
#pragma once

// The coach (issue 25 §3): rules over a run's facts (core/advice/runfacts.h) and its metric
// stream — the values metrics.jsonl holds — that say in plain words what is happening and what
// to try. The coach is the only author of advice: every view shows its current notes.
// Torch-free (wb_rundir): the training loop feeds it, and so can a test or a tool reading a
// recorded metrics.jsonl (coachNotesOf).
// docs/tutorial.md "What the coach says" lists the rules; docs/file-formats.md the "note" event.

#include "core/events/trainingobserver.h"
#include "core/advice/runfacts.h"

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

/// The severity of a note that withdraws the note of its id: its condition no longer holds
/// (the text is the withdrawn note's). The coach's notes are a current set (Coach::current()).
inline constexpr const char *kWithdrawn = "withdrawn";

/// THE table of the coach's thresholds and messages, one row per rule. Thresholds:
///  * overfitting: threshold = k, the evaluations after the lowest eval_loss that are all above
///    it (the run's --early_stopping_patience when > 0 replaces k), while the mean train loss
///    of the last evaluation interval is below that of the best one;
///  * divergence: a logged train loss that is not finite, or above threshold × the first logged loss;
///  * plateau: at an evaluation at or after threshold2 (a fraction of total_steps), the mean
///    train loss of the interval within threshold (relative) of ln(num_labels);
///  * constant_classifier: every evaluation so far of a binary task has eval_f1 = 0,
///    eval_mcc = 0 and eval_accuracy within threshold of the majority share;
///  * one_class / below_baseline: the latest evaluation predicts one label only / its accuracy
///    is not above the majority share (+ threshold);
///  * below_bag_of_words: the run's last evaluation (at total_steps) is not above the
///    bag-of-words baseline (+ threshold); {advice} follows the start;
///  * rate_pretrained / rate_own_pretraining / rate_scratch / rate_unknown: the rate advice
///    while the run does not learn (constant_classifier, one_class or below_baseline hold), one
///    rule per start; {position} places the rate against kLearningRateRanges (core/advice/runfacts.h);
///  * small_eval_set: the binomial 95 % interval of the accuracy, ±1.96·sqrt(p(1−p)/n), is
///    wider than ±threshold;
///  * label_never_predicted (multi-label): the labels that eval texts carry but that get no
///    positive prediction at 0.5 in the latest evaluation, all named; {advice} names the rare-label weights;
///  * thresholds_gain (multi-label): the per-label thresholds' cross-fitted macro-F1 differs
///    from the macro-F1 at 0.5 by at least threshold (docs/multi-label.md);
///  * data_map (single-label runs that record training dynamics): at an evaluation after the
///    first, eval_accuracy is not above the best earlier one + threshold2 (it stalled) while the
///    share of the mapped training examples in the data map's hard-to-learn region is at least
///    threshold (docs/data-map.md: 0.2 % on the clean spam example, 7.8 to 8.4 % with 10 % of its
///    labels flipped);
///  * few_steps: total_steps < threshold; warmup_too_long: warmup_steps ≥ total_steps;
///  * short_texts: padding max_length while the training texts average fewer than threshold ×
///    max_seq_length wordpieces (prepare_report.json's mean_tokens);
///  * lr_pretrained / lr_own_pretraining / lr_scratch: learning_rate outside the far band of
///    its start's row of kLearningRateRanges.
/// A note is withdrawn (kWithdrawn) when its condition no longer holds at a later evaluation:
/// overfitting, divergence, plateau, constant_classifier, one_class, below_baseline,
/// below_bag_of_words, the rate advice, label_never_predicted, thresholds_gain and data_map; the notes
/// before the first step and small_eval_set stay.
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
    {"below_bag_of_words", "info", 0, 0,
     "Eval accuracy {accuracy} does not beat the bag-of-words baseline {baseline}: a linear model of word counts does "
     "{as_well} on this data. {advice}, or prefer the simpler model."},
    {"rate_pretrained", "info", 0, 0, "The run starts from {start}: learning_rate {lr} {position}."},
    {"rate_own_pretraining", "info", 0, 0, "The run starts from {start}: learning_rate {lr} {position}."},
    {"rate_scratch", "info", 0, 0,
     "The run starts from random weights (no pretrained model or init checkpoint): learning_rate {lr} {position}."},
    {"rate_unknown", "info", 0, 0,
     "The run starts from {start}, whose usual learning rate this program cannot know: measure one with Find "
     "Learning Rate (Training → Find Learning Rate…)."},
    {"small_eval_set", "info", 0.05, 0,
     "the eval set has {n} examples: its accuracy {accuracy} is known only to ±{points} points (95 % interval); about "
     "{needed} examples would give ±5"},
    {"label_never_predicted", "warning", 0, 0,
     "Never predicted: {label}. No eval text gets a probability of 0.5 for them, though they carry them {support} "
     "times. {advice}"},
    {"thresholds_gain", "info", 0.01, 0,
     "Per-label thresholds give macro-F1 {tuned} against {half} at 0.5 for every label ({points} points {direction}, "
     "measured on eval texts the thresholds were not tuned on); {use}."},
    {"data_map", "info", 0.03, 0.005,
     "Eval accuracy has stopped rising ({accuracy} at step {step}; {best} at step {best_step}) while {hard} of "
     "{examples} training examples ({share} %) are hard to learn: the model has never believed their labels, and such "
     "labels are often wrong. Review them on the Data map and in its suspects ({where}), correct what is wrong, "
     "prepare the data again with the corrections and retrain."},
    {"few_steps", "warning", 50, 0,
     "the run has only {steps} training steps: too few to learn much; train more epochs or use a smaller batch"},
    {"warmup_too_long", "warning", 0, 0,
     "the warmup ({warmup} steps) is not shorter than the run ({steps} steps): the learning rate never reaches "
     "{lr}; lower {warmup_proportion}"},
    {"short_texts", "info", 0.5, 0,
     "the training texts average {mean} wordpieces of max_seq_length {max}, so most of every batch is padding; "
     "{setting} makes each batch only as long as its longest text: the same model up to float rounding, in less "
     "time"},
    {"lr_pretrained", "warning", 0, 0,
     "learning_rate {lr} is far {direction} the usual range for {words} ({low} to {high}); try {suggest} or Find "
     "Learning Rate"},
    {"lr_own_pretraining", "warning", 0, 0,
     "learning_rate {lr} is far {direction} the usual range for {words} ({low} to {high}); try {suggest} or Find "
     "Learning Rate"},
    {"lr_scratch", "warning", 0, 0,
     "learning_rate {lr} is far {direction} the usual range for {words} ({low} to {high}); try {suggest} or Find "
     "Learning Rate"},
};

/// Returns the row of `id` in kCoachRules. Throws std::out_of_range for an unknown id.
const CoachRule &coachRule(const std::string &id);

/// Returns `rule.text` with each `{name}` replaced by its value. Pure.
std::string fillCoachText(const char *text, const std::vector<std::pair<std::string, std::string>> &values);

/// What the coach knows about a run before its first step: its facts (core/advice/runfacts.h).
using CoachSetup = RunFacts;

struct TrainingOptions;
struct Schedule;

/// A run's coach setup from its options and schedule: runFactsFor() (the start, the peak
/// learning rate, total and warmup steps, the early-stopping patience, the prepare report's
/// baselines). num_labels and regression stay 0 / false: the caller sets them for its task.
/// Reads files beside the options' paths; never throws.
CoachSetup coachSetupFor(const TrainingOptions &spec, const Schedule &sched);

/// The notes about a schedule that cannot learn, checked before the first step (step 0):
/// few_steps, warmup_too_long, lr_pretrained / lr_own_pretraining / lr_scratch. Pure.
std::vector<CoachNote> scheduleNotes(const CoachSetup &setup);

/// The rate advice for a run with `facts` that does not learn: the rate_* rule of its start,
/// placing its learning rate against kLearningRateRanges (below / above: try the row's
/// suggestion; inside: the rate alone does not explain it, measure one with the finder; no row:
/// the finder). Pure.
CoachNote rateAdvice(const RunFacts &facts, int64_t step);

/// The majority label and its share of the examples of a confusion matrix's rows
/// (confusion[true][predicted]; the lowest id on ties); nothing when it counts no example.
std::optional<std::pair<int, double>> majorityShare(const std::vector<std::vector<int64_t>> &confusion);

/// Whether `id` is one of the notes that say the run did not learn, and why (what the window's
/// Evaluation box and "Completed — did not learn" show): divergence, constant_classifier,
/// one_class, below_baseline and the rate advice (rate_*). Pure.
bool isLearningVerdict(const std::string &id);

/// Applies `note` to the current set `current`: replaces the note of its id, or removes it
/// when `note` is a withdrawal (kWithdrawn). What a view that receives the notes one by one
/// (the window, the CLI) keeps. Pure.
void applyCoachNote(std::vector<CoachNote> &current, const CoachNote &note);

/// The rule set evaluated over a run's metric stream, step by step. Feed it what the run logs,
/// in order; each call returns the notes that arose or were withdrawn (each said once: a note
/// of the same id comes again only when its content, not its step, changes, or after it was
/// withdrawn). Not thread-safe: one run, one thread (the training thread).
class Coach
{
public:
    explicit Coach(CoachSetup setup);

    /// The schedule notes (scheduleNotes); call once before the first step.
    std::vector<CoachNote> start();
    /// A logged train step (metrics.jsonl's "train" line): divergence.
    std::vector<CoachNote> step(const StepMetrics &m);
    /// An evaluation (metrics.jsonl's "eval" line): overfitting, plateau, constant_classifier,
    /// one_class, below_baseline, the rate advice, below_bag_of_words, small_eval_set; and the
    /// withdrawal of those whose condition no longer holds. Without a confusion matrix (a
    /// recorded "eval" line) the setup's majority stands in and one_class is not checked.
    std::vector<CoachNote> evaluation(const EvalMetrics &m);

    /// Every note said so far, withdrawals included, in order: the run's log.
    const std::vector<CoachNote> &notes() const { return m_notes; }
    /// The notes that hold now, in the order they were said: what every view shows.
    const std::vector<CoachNote> &current() const { return m_current; }
    /// The run's facts with the verdict of the current notes.
    const RunFacts &facts() const { return m_setup; }

private:
    void say(std::vector<CoachNote> &out, CoachNote note, const std::string &content);
    void withdraw(std::vector<CoachNote> &out, const std::string &id, int64_t step);
    bool holds(const std::string &id) const;
    void updateVerdict();
    /// overfitting: the evaluations after the lowest eval_loss are all above it, k of them at
    /// least (early_stopping_patience, else the rule's threshold), and `trainLoss` still falls.
    void sayOverfitting(std::vector<CoachNote> &out, const EvalMetrics &em, double trainLoss);
    /// plateau: `trainLoss` near ln(num_labels), from a quarter of the run on.
    void sayPlateau(std::vector<CoachNote> &out, const EvalMetrics &em, double trainLoss);
    /// constant_classifier (binary): every evaluation so far answers the `majority` label.
    void sayConstantClassifier(std::vector<CoachNote> &out, const EvalMetrics &em,
                               const std::optional<std::pair<int, double>> &majority);
    /// one_class, below_baseline and, while any finding holds, the rate advice.
    void sayLearning(std::vector<CoachNote> &out, const EvalMetrics &em,
                     const std::optional<std::pair<int, double>> &majority);
    /// below_bag_of_words at the last evaluation.
    void sayBagOfWords(std::vector<CoachNote> &out, const EvalMetrics &em);
    /// small_eval_set: the half-width of the accuracy's 95 % interval is above the rule's threshold.
    void saySmallEvalSet(std::vector<CoachNote> &out, const EvalMetrics &em);
    /// Multi-label: label_never_predicted and thresholds_gain.
    void sayMultiLabel(std::vector<CoachNote> &out, const EvalMetrics &em);
    /// data_map, from the evaluation's data-map counts.
    void sayDataMap(std::vector<CoachNote> &out, const EvalMetrics &em);

    CoachSetup m_setup;
    std::vector<CoachNote> m_notes;
    std::vector<CoachNote> m_current;
    std::map<std::string, std::string> m_said; ///< id → content of its current note
    std::optional<double> m_firstLoss;
    bool m_lastLossFinite = true;
    double m_intervalSum = 0;                  ///< train losses logged since the last evaluation
    int64_t m_intervalCount = 0;
    bool m_intervalDiverged = false;           ///< a loss of the interval was not finite or far above the first
    struct Eval { int64_t step; double eval_loss; double train_loss; double eval_accuracy; };
    std::vector<Eval> m_evals;
    bool m_allConstant = true;
};

struct MetricsLog;

/// The coach over a recorded metric stream (metrics.jsonl: its "train" and "eval" lines in step
/// order, as the training loop fed them), for a past run: its current notes. `facts` (from
/// recordedRunFacts()) gets the verdict. The window's views of a past run and the model card
/// show these. Pure.
std::vector<CoachNote> coachNotesOf(RunFacts &facts, const MetricsLog &log);

} // namespace wb
