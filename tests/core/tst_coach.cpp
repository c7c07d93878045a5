// SPDX-License-Identifier: Apache-2.0
// The coach (core/advice/coach.h, issue 25 §3): each rule on a crafted metric stream, with the
// exact note text and step; each note said once; the notes in metrics.jsonl, the jsonl
// progress stream and training_summary.json. Links only the torch-free wb_rundir.
#include "core/io/metricsreader.h"
#include "core/io/metricswriter.h"
#include "core/io/runeventjson.h"
#include "core/io/runevents.h"
#include "core/config/optiontable.h"
#include "core/config/optionwords.h"
#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"
#include "core/advice/coach.h"
#include "core/formats/runidentity.h"
#include "core/formats/trainingsummary.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>

using namespace wb;

namespace {

StepMetrics stepOf(int64_t step, double loss)
{
    StepMetrics m;
    m.step = step;
    m.total_steps = 1000;
    m.loss = loss;
    m.learning_rate = 5e-5;
    return m;
}

/// A binary evaluation with the confusion matrix `c` (rows: true label), its accuracy, F1 of
/// label 1 and MCC computed from it.
EvalMetrics binaryEval(int64_t step, double evalLoss, std::vector<std::vector<int64_t>> c)
{
    EvalMetrics e;
    e.step = step;
    e.eval_loss = evalLoss;
    e.binary = true;
    const double tn = double(c[0][0]), fp = double(c[0][1]), fn = double(c[1][0]), tp = double(c[1][1]);
    const double n = tn + fp + fn + tp;
    e.num_examples = int64_t(n);
    e.eval_accuracy = (tn + tp) / n;
    e.eval_f1 = tp > 0 ? 2 * tp / (2 * tp + fp + fn) : 0;
    const double d = std::sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn));
    e.eval_mcc = d > 0 ? (tp * tn - fp * fn) / d : 0;
    e.confusion = std::move(c);
    e.label_names = {"ham", "spam"};
    return e;
}

CoachSetup binarySetup()
{
    CoachSetup s;
    s.total_steps = 1000;
    s.warmup_steps = 100;
    s.num_labels = 2;
    s.learning_rate = 5e-5;
    s.start = WeightsStart::HubPretrained;
    s.start_name = "BERT-Tiny";
    return s;
}

QString texts(const std::vector<CoachNote> &notes)
{
    QStringList out;
    for (const auto &n : notes)
        out << QString::fromStdString((n.severity == kWithdrawn ? "withdrawn " : "") + n.id + "@"
                                      + std::to_string(n.step) + ": " + n.text);
    return out.join(QLatin1Char('\n'));
}

const std::vector<std::vector<int64_t>> kGood = {{500, 100}, {100, 300}}; // accuracy 0.8 of 1000

} // namespace

class tst_Coach : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tableHasUniqueIdsAndFilledTemplates();
    void scheduleThatCannotLearn();
    void scheduleThatCanLearnSaysNothing();
    void shortTextsSuggestPaddingToTheLongest();
    void overfitting();
    void overfittingWithPatience();
    void noOverfittingWhileTrainLossRises();
    void divergence();
    void divergenceNaN();
    void plateauNearLnNumLabels();
    void constantClassifierThenOneClass();
    void oneClassBelowBaselineFromScratch();
    void smallEvalSet();
    void rateAdviceFollowsTheStart();
    void hubPretrainedRunIsNotToldRandomWeights();
    void adviceNamesTheOptionInTheFrontEndsWords();
    void rateAdviceStaysInTheRange();
    void optionHelpNamesTheTable();
    void defaultRateIsTheStartsSuggestion();
    void constantClassifierWithdrawnWhenTheRunLearns();
    void generatedRunsNeverContradict();
    void notesInMetricsJsonlStreamAndSummary();
    void dataMapWhenAccuracyStallsWithManyHardExamples();
};

void tst_Coach::tableHasUniqueIdsAndFilledTemplates()
{
    std::set<std::string> ids;
    for (const CoachRule &r : kCoachRules) {
        QVERIFY2(ids.insert(r.id).second, r.id);
        QVERIFY(std::string(r.severity) == "info" || std::string(r.severity) == "warning");
    }
    QCOMPARE(ids.size(), size_t(std::size(kCoachRules)));
    QCOMPARE(ids.size(), size_t(21)); // label_never_predicted, thresholds_gain: multi-label (issue 45); data_map (46);
                                       // short_texts (49)
    QCOMPARE(coachRule("overfitting").threshold, 3.0);
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, coachRule("no_such_rule"));
    QCOMPARE(fillCoachText("a {x} b {y} {x}", {{"x", "1"}, {"y", "{x}"}}), std::string("a 1 b {x} 1"));
}

void tst_Coach::scheduleThatCannotLearn()
{
    CoachSetup s;
    s.total_steps = 30;
    s.warmup_steps = 40;
    s.learning_rate = 5e-5;
    s.start = WeightsStart::Random;
    const auto notes = scheduleNotes(s);
    QCOMPARE(texts(notes),
             QStringLiteral("few_steps@0: the run has only 30 training steps: too few to learn much; train more "
                            "epochs or use a smaller batch\n"
                            "warmup_too_long@0: the warmup (40 steps) is not shorter than the run (30 steps): the "
                            "learning rate never reaches 5e-05; lower --warmup_proportion\n"
                            "lr_scratch@0: learning_rate 5e-5 is far below the usual range for a model trained from "
                            "random weights (1e-4 to 1e-3); try 5e-4 or Find Learning Rate"));
    QCOMPARE(notes[0].severity, std::string("warning"));
    // A pretrained start: 5e-5 is the usual; 0.01 and 0 are not.
    s.total_steps = 300;
    s.warmup_steps = 30;
    s.start = WeightsStart::HubPretrained;
    QVERIFY(scheduleNotes(s).empty());
    s.learning_rate = 0.01;
    QCOMPARE(texts(scheduleNotes(s)),
             QStringLiteral("lr_pretrained@0: learning_rate 0.01 is far above the usual range for fine-tuning a "
                            "pretrained model (2e-5 to 5e-5); try 5e-5 or Find Learning Rate"));
    // No range for an init checkpoint of unknown making: no lr note, whatever the rate.
    s.start = WeightsStart::OtherCheckpoint;
    QVERIFY(scheduleNotes(s).empty());
    s.start = WeightsStart::HubPretrained;
    s.learning_rate = 0;
    QCOMPARE(scheduleNotes(s).size(), size_t(1));
    // The Coach says them once, at start().
    Coach coach(s);
    QCOMPARE(coach.start().size(), size_t(1));
    QCOMPARE(coach.start().size(), size_t(0));
    QCOMPARE(coach.notes().size(), size_t(1));
}

void tst_Coach::scheduleThatCanLearnSaysNothing()
{
    CoachSetup s = binarySetup();
    s.start = WeightsStart::Random;
    s.learning_rate = 1e-3;
    QVERIFY(scheduleNotes(s).empty());
    s.total_steps = 50; // the threshold itself is enough
    s.warmup_steps = 49;
    QVERIFY(scheduleNotes(s).empty());
}

void tst_Coach::shortTextsSuggestPaddingToTheLongest()
{
    CoachSetup s = binarySetup();
    s.start = WeightsStart::Random;
    s.learning_rate = 1e-3;
    s.max_seq_length = 128;
    s.mean_tokens = 11.27; // one-line texts
    QCOMPARE(texts(scheduleNotes(s)),
             QStringLiteral("short_texts@0: the training texts average 11 wordpieces of max_seq_length 128, so most "
                            "of every batch is padding; --padding=longest makes each batch only as long as its "
                            "longest text: the same model up to float rounding, in less time"));
    QCOMPARE(scheduleNotes(s)[0].severity, std::string("info"));
    s.padding = "longest"; // already so: nothing to say
    QVERIFY(scheduleNotes(s).empty());
    s.padding = "max_length";
    s.mean_tokens = 64; // half of max_seq_length is not short
    QVERIFY(scheduleNotes(s).empty());
    s.mean_tokens = 63.9;
    QCOMPARE(scheduleNotes(s).size(), size_t(1));
    s.mean_tokens = 0; // no prepare report: unknown, nothing said
    QVERIFY(scheduleNotes(s).empty());
}

void tst_Coach::overfitting()
{
    Coach coach(binarySetup());
    const double evalLoss[] = {0.60, 0.50, 0.55, 0.58, 0.61, 0.70};
    std::vector<CoachNote> all;
    for (int e = 0; e < 6; ++e) {
        const int64_t step = 100 * (e + 1);
        // The train loss falls all along: 0.6, 0.5, … per interval.
        for (int64_t k = step - 90; k <= step; k += 10)
            QVERIFY(coach.step(stepOf(k, 0.6 - 0.1 * e)).empty());
        const auto notes = coach.evaluation(binaryEval(step, evalLoss[e], kGood));
        if (e < 4)
            QVERIFY2(notes.empty(), qPrintable(texts(notes)));
        all.insert(all.end(), notes.begin(), notes.end());
    }
    // Said once, at the third evaluation above the best (step 200), not again at step 600.
    QCOMPARE(texts(all), QStringLiteral("overfitting@500: eval loss has risen since step 300 (best 200); early "
                                        "stopping with patience 3 would have stopped at 500"));
    QCOMPARE(all[0].severity, std::string("warning"));
    // A new best: the rise is over, the note withdrawn; another rise: said again.
    coach.step(stepOf(700, 0.05));
    QCOMPARE(texts(coach.evaluation(binaryEval(700, 0.40, kGood))),
             QStringLiteral("withdrawn overfitting@700: eval loss has risen since step 300 (best 200); early stopping "
                            "with patience 3 would have stopped at 500"));
    QVERIFY(coach.current().empty());
    for (int64_t s : {800, 900, 1000}) {
        coach.step(stepOf(s, 0.01));
        const auto notes = coach.evaluation(binaryEval(s, 0.45 + double(s) / 1e4, kGood));
        if (s == 1000)
            QCOMPARE(texts(notes), QStringLiteral("overfitting@1000: eval loss has risen since step 800 (best 700); "
                                                  "early stopping with patience 3 would have stopped at 1000"));
        else
            QVERIFY(notes.empty());
    }
}

void tst_Coach::overfittingWithPatience()
{
    CoachSetup setup = binarySetup();
    setup.early_stopping_patience = 2;
    Coach coach(setup);
    std::vector<CoachNote> all;
    const double evalLoss[] = {0.50, 0.52, 0.53};
    for (int e = 0; e < 3; ++e) {
        coach.step(stepOf(100 * (e + 1), 0.5 - 0.1 * e));
        const auto notes = coach.evaluation(binaryEval(100 * (e + 1), evalLoss[e], kGood));
        all.insert(all.end(), notes.begin(), notes.end());
    }
    QCOMPARE(texts(all), QStringLiteral("overfitting@300: eval loss has risen since step 200 (best 100); early "
                                        "stopping with patience 2 would have stopped at 300"));
}

void tst_Coach::noOverfittingWhileTrainLossRises()
{
    Coach coach(binarySetup());
    const double evalLoss[] = {0.50, 0.52, 0.53, 0.54};
    for (int e = 0; e < 4; ++e) {
        coach.step(stepOf(100 * (e + 1), 0.5 + 0.01 * e)); // not overfitting: the train loss rises too
        QVERIFY(coach.evaluation(binaryEval(100 * (e + 1), evalLoss[e], kGood)).empty());
    }
}

void tst_Coach::divergence()
{
    Coach coach(binarySetup());
    QVERIFY(coach.step(stepOf(1, 0.7)).empty());
    QVERIFY(coach.step(stepOf(2, 2.0)).empty()); // below 3× its start
    const auto notes = coach.step(stepOf(3, 2.5));
    QCOMPARE(texts(notes), QStringLiteral("divergence@3: learning rate too high: try Find Learning Rate (the train "
                                          "loss is 2.5 at step 3; it started at 0.7)"));
    QVERIFY(coach.step(stepOf(4, 3.5)).empty()); // once
    QCOMPARE(coach.notes().size(), size_t(1));
}

void tst_Coach::divergenceNaN()
{
    Coach coach(binarySetup());
    QVERIFY(coach.step(stepOf(1, 0.7)).empty());
    QCOMPARE(texts(coach.step(stepOf(2, std::numeric_limits<double>::quiet_NaN()))),
             QStringLiteral("divergence@2: learning rate too high: try Find Learning Rate (the train loss is NaN at "
                            "step 2; it started at 0.7)"));
}

void tst_Coach::plateauNearLnNumLabels()
{
    CoachSetup setup = binarySetup();
    setup.total_steps = 100;
    Coach coach(setup);
    coach.step(stepOf(10, 0.70));
    coach.step(stepOf(20, 0.69));
    QVERIFY(coach.evaluation(binaryEval(20, 0.69, kGood)).empty()); // before a quarter of the run
    coach.step(stepOf(30, 0.70));
    coach.step(stepOf(40, 0.68));
    const auto notes = coach.evaluation(binaryEval(40, 0.69, kGood));
    QCOMPARE(texts(notes), QStringLiteral("plateau@40: not learning yet: the train loss 0.690 is still near ln(2) = "
                                          "0.693, the loss of guessing every label alike"));
    QCOMPARE(notes[0].severity, std::string("info"));
    coach.step(stepOf(60, 0.69));
    QVERIFY(coach.evaluation(binaryEval(60, 0.69, kGood)).empty()); // once
    // Far from ln(2): nothing.
    Coach learning(setup);
    learning.step(stepOf(40, 0.5));
    QVERIFY(learning.evaluation(binaryEval(40, 0.5, kGood)).empty());
}

void tst_Coach::constantClassifierThenOneClass()
{
    CoachSetup setup = binarySetup();
    Coach coach(setup);
    coach.step(stepOf(100, 0.4));
    const auto first = coach.evaluation(binaryEval(100, 0.67, {{6000, 0}, {4000, 0}}));
    QCOMPARE(texts(first), QStringLiteral("constant_classifier@100: constant classifier: every evaluation so far (1, "
                                          "up to step 100) has eval_f1 0, eval_mcc 0 and eval_accuracy 0.600, the "
                                          "share of the majority label ham: the model answers ham for everything\n"
                                          "rate_pretrained@100: The run starts from the pretrained model BERT-Tiny: "
                                          "learning_rate 5e-5 is within the usual range for fine-tuning a pretrained "
                                          "model (2e-5 to 5e-5), so the rate alone does not explain it: measure one "
                                          "with Find Learning Rate (Training → Find Learning Rate…)."));
    QCOMPARE(coach.facts().verdict, RunVerdict::NotLearning);
    coach.step(stepOf(200, 0.3));
    QVERIFY(coach.evaluation(binaryEval(200, 0.67, {{6000, 0}, {4000, 0}})).empty()); // once
    // Now it answers spam for everything: no longer the constant majority answer.
    coach.step(stepOf(300, 0.2));
    QCOMPARE(texts(coach.evaluation(binaryEval(300, 0.9, {{0, 6000}, {0, 4000}}))),
             QStringLiteral("withdrawn constant_classifier@300: constant classifier: every evaluation so far (1, up "
                            "to step 100) has eval_f1 0, eval_mcc 0 and eval_accuracy 0.600, the share of the majority "
                            "label ham: the model answers ham for everything\n"
                            "one_class@300: The model predicts spam for every evaluation example: it has not learned "
                            "to tell the labels apart.\n"
                            "below_baseline@300: Eval accuracy 0.400 does not beat the majority-class baseline 0.600 "
                            "(always predicting ham)."));
    // It learns: every finding and the rate advice are withdrawn; nothing is current but nothing new is said.
    coach.step(stepOf(400, 0.1));
    const auto learned = coach.evaluation(binaryEval(400, 0.5, {{5500, 500}, {500, 3500}}));
    QCOMPARE(learned.size(), size_t(3));
    for (const CoachNote &n : learned)
        QCOMPARE(n.severity, std::string(kWithdrawn));
    QVERIFY(coach.current().empty());
    QCOMPARE(coach.facts().verdict, RunVerdict::Learning);
    QCOMPARE(coach.notes().size(), size_t(8)); // the log keeps everything, withdrawals included
}

void tst_Coach::oneClassBelowBaselineFromScratch()
{
    CoachSetup setup;
    setup.total_steps = 1000;
    setup.num_labels = 3;
    setup.learning_rate = 5e-5;
    setup.start = WeightsStart::Random;
    Coach coach(setup);
    EvalMetrics e;
    e.step = 250;
    e.eval_loss = 1.0;
    e.confusion = {{0, 0, 500}, {0, 0, 300}, {0, 0, 200}};
    e.eval_accuracy = 0.2;
    e.num_examples = 1000;
    e.label_names = {"a", "b"}; // the third has no name
    coach.step(stepOf(250, 0.8));
    QCOMPARE(texts(coach.evaluation(e)),
             QStringLiteral("one_class@250: The model predicts label 2 for every evaluation example: it has not "
                            "learned to tell the labels apart.\n"
                            "below_baseline@250: Eval accuracy 0.200 does not beat the majority-class baseline 0.500 "
                            "(always predicting a).\n"
                            "rate_scratch@250: The run starts from random weights (no pretrained model or init "
                            "checkpoint): learning_rate 5e-5 is below the usual range for a model trained from random "
                            "weights (1e-4 to 1e-3): try 5e-4, or measure one with Find Learning Rate (Training → Find "
                            "Learning Rate…)."));
    // The same verdict at the next evaluation: said once.
    e.step = 500;
    e.eval_accuracy = 0.2;
    QVERIFY(coach.evaluation(e).empty());
}

void tst_Coach::smallEvalSet()
{
    Coach coach(binarySetup());
    coach.step(stepOf(100, 0.4));
    const auto notes = coach.evaluation(binaryEval(100, 0.4, {{50, 10}, {10, 30}})); // 100 examples, 0.8
    QCOMPARE(texts(notes), QStringLiteral("small_eval_set@100: the eval set has 100 examples: its accuracy 0.800 is "
                                          "known only to ±7.8 points (95 % interval); about 246 examples would give "
                                          "±5"));
    QVERIFY(coach.evaluation(binaryEval(200, 0.4, {{50, 10}, {10, 30}})).empty()); // once
    Coach big(binarySetup());
    QVERIFY(big.evaluation(binaryEval(100, 0.4, kGood)).empty()); // 1000 examples: ±2.5
}

void tst_Coach::rateAdviceFollowsTheStart()
{
    RunFacts f;
    f.learning_rate = 9;
    f.start = WeightsStart::Random;
    QCOMPARE(rateAdvice(f, 7).text,
             std::string("The run starts from random weights (no pretrained model or init checkpoint): learning_rate 9 "
                         "is above the usual range for a model trained from random weights (1e-4 to 1e-3): try 5e-4, "
                         "or measure one with Find Learning Rate (Training → Find Learning Rate…)."));
    QCOMPARE(rateAdvice(f, 7).id, std::string("rate_scratch"));
    f.start = WeightsStart::OwnPretraining;
    f.start_name = "runs/pre";
    f.learning_rate = 5e-5;
    QCOMPARE(rateAdvice(f, 7).text,
             std::string("The run starts from your own pretraining in runs/pre: learning_rate 5e-5 is below the usual "
                         "range for fine-tuning a short pretraining of your own (1e-4 to 1e-3): try 5e-4, or measure "
                         "one with Find Learning Rate (Training → Find Learning Rate…)."));
    f.start = WeightsStart::OtherCheckpoint;
    f.start_name = "w.safetensors";
    QCOMPARE(rateAdvice(f, 7).text,
             std::string("The run starts from the init checkpoint w.safetensors, whose usual learning rate this "
                         "program cannot know: measure one with Find Learning Rate (Training → Find Learning Rate…)."));
    f.start = WeightsStart::Unknown;
    QCOMPARE(rateAdvice(f, 7).id, std::string("rate_unknown"));
    // Every row's suggestion lies in its range, and its range inside its far band.
    for (const LearningRateRange &r : kLearningRateRanges) {
        QVERIFY(r.low <= r.suggest && r.suggest <= r.high);
        QVERIFY(r.far_below <= r.low && r.high <= r.far_above);
    }
    QCOMPARE(rateWords(5e-4), std::string("5e-4"));
    QCOMPARE(rateWords(2e-5), std::string("2e-5"));
    QCOMPARE(rateWords(1.5e-3), std::string("1.5e-3"));
    QCOMPARE(rateWords(0.01), std::string("0.01"));
    QCOMPARE(rateWords(9), std::string("9"));
}

namespace {

/// A binary metric stream of `kind` over 400 steps (evaluations every 100): "learn" (accuracy
/// 0.70 … 0.978), "constant" (always the majority), "diverge" (the loss rises tenfold), "nan",
/// "constant_then_learn" (constant classifier, then 0.978 at the end).
MetricsLog syntheticStream(const std::string &kind)
{
    MetricsLog log;
    for (int64_t step = 10; step <= 400; step += 10) {
        double loss = 0.69 - 0.0015 * double(step);
        if (kind == "constant")
            loss = 0.67;
        else if (kind == "diverge")
            loss = 0.7 * (1 + double(step) / 40);
        else if (kind == "nan" && step >= 200)
            loss = std::numeric_limits<double>::quiet_NaN();
        log.train.push_back(stepOf(step, loss));
        if (step % 100)
            continue;
        const bool constant = kind == "constant" || kind == "diverge" || kind == "nan"
                              || (kind == "constant_then_learn" && step < 400);
        const int64_t right = kind == "constant_then_learn" ? 489 : int64_t(350 + 35 * step / 100);
        log.eval.push_back(constant ? binaryEval(step, 0.67, {{300, 0}, {200, 0}})
                                    : binaryEval(step, 0.3, {{right / 2 + 55, 300 - (right / 2 + 55)},
                                                             {200 - (right - right / 2 - 55), right - right / 2 - 55}}));
    }
    return log;
}

/// The rates "try X" names and the ranges "(A to B)" notes name, read from their texts.
std::vector<double> numbersAfter(const std::string &text, const std::string &marker)
{
    std::vector<double> out;
    for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1))
        out.push_back(std::strtod(text.c_str() + at + marker.size(), nullptr));
    return out;
}

} // namespace

/// Defect: a run from a Hub model (BERT-Tiny via --pretrained_model, the window's options
/// before prepareRun filled init_checkpoint) was told "no init checkpoint … random weights …
/// try 0.01" and, under the bag-of-words line, "start from a pretrained model".
void tst_Coach::hubPretrainedRunIsNotToldRandomWeights()
{
    TrainingOptions o;
    o.pretrained_model = "BERT-Tiny";
    o.learning_rate = 1e-3;
    Schedule sched;
    sched.total_steps = 400;
    sched.warmup_steps = 40;
    RunFacts facts = coachSetupFor(o, sched);
    QCOMPARE(facts.start, WeightsStart::HubPretrained);
    facts.num_labels = 2;
    facts.bag_of_words_accuracy = 0.95;
    Coach coach(facts);
    coach.start();
    coach.step(stepOf(400, 0.5)); // not near ln(2): no plateau note
    coach.evaluation(binaryEval(400, 0.67, {{300, 0}, {200, 0}}));
    QCOMPARE(texts(coach.current()),
             QStringLiteral("lr_pretrained@0: learning_rate 1e-3 is far above the usual range for fine-tuning a "
                            "pretrained model (2e-5 to 5e-5); try 5e-5 or Find Learning Rate\n"
                            "constant_classifier@400: constant classifier: every evaluation so far (1, up to step 400) "
                            "has eval_f1 0, eval_mcc 0 and eval_accuracy 0.600, the share of the majority label ham: "
                            "the model answers ham for everything\n"
                            "rate_pretrained@400: The run starts from the pretrained model BERT-Tiny: learning_rate 1e-3 "
                            "is above the usual range for fine-tuning a pretrained model (2e-5 to 5e-5): try 5e-5, or "
                            "measure one with Find Learning Rate (Training → Find Learning Rate…).\n"
                            "below_bag_of_words@400: Eval accuracy 0.600 does not beat the bag-of-words baseline 0.950: "
                            "a linear model of word counts does better on this data. Train longer, or measure a "
                            "learning rate with Find Learning Rate (Training → Find Learning Rate…), or prefer the "
                            "simpler model."));
    for (const CoachNote &n : coach.current()) {
        QVERIFY2(n.text.find("random weights") == std::string::npos, n.text.c_str());
        QVERIFY2(n.text.find("no init checkpoint") == std::string::npos, n.text.c_str());
        QVERIFY2(n.text.find("Start from a pretrained model") == std::string::npos, n.text.c_str());
    }
}

/// A note names the option the way the front-end that shows it sets it: the flag on the
/// command line (with the field's label, for a reader who also knows the window), the field in
/// the window (optionwords.h).
void tst_Coach::adviceNamesTheOptionInTheFrontEndsWords()
{
    const auto bagOfWordsAdvice = [] {
        CoachSetup s;
        s.total_steps = 400;
        s.num_labels = 2;
        s.learning_rate = 5e-4;
        s.start = WeightsStart::Random;
        s.bag_of_words_accuracy = 0.95;
        Coach coach(s);
        coach.start();
        coach.step(stepOf(400, 0.5));
        coach.evaluation(binaryEval(400, 0.67, {{300, 0}, {200, 0}}));
        for (const CoachNote &n : coach.current())
            if (n.id == "below_bag_of_words")
                return n.text;
        return std::string("(no below_bag_of_words note)");
    };
    const std::string head = "Eval accuracy 0.600 does not beat the bag-of-words baseline 0.950: a linear model of "
                             "word counts does better on this data. ";
    QCOMPARE(bagOfWordsAdvice(), head + "Start from a pretrained model (Start from, --pretrained_model), train "
                                        "longer, or prefer the simpler model.");
    setOptionWording(OptionWording::Window);
    const std::string window = bagOfWordsAdvice();
    setOptionWording(OptionWording::CommandLine);
    QCOMPARE(window, head + "Start from a pretrained model (\u201cStart from\u201d), train longer, or prefer the simpler "
                            "model.");
}

/// Defect: the coach suggested ten times the rate from random weights (0.005 at the 5e-4
/// default, 90 at 9) while another note said 9 was far above the usual range.
void tst_Coach::rateAdviceStaysInTheRange()
{
    RunFacts facts;
    facts.start = WeightsStart::Random;
    facts.learning_rate = 5e-4;
    facts.num_labels = 2;
    facts.total_steps = 400;
    Coach atDefault(facts);
    atDefault.start();
    atDefault.evaluation(binaryEval(100, 0.67, {{300, 0}, {200, 0}}));
    QCOMPARE(atDefault.current().back().text,
             std::string("The run starts from random weights (no pretrained model or init checkpoint): learning_rate "
                         "5e-4 is within the usual range for a model trained from random weights (1e-4 to 1e-3), so "
                         "the rate alone does not explain it: measure one with Find Learning Rate (Training → Find "
                         "Learning Rate…)."));
    facts.learning_rate = 9;
    Coach atNine(facts);
    atNine.start();
    atNine.evaluation(binaryEval(100, 0.67, {{300, 0}, {200, 0}}));
    QCOMPARE(texts(atNine.current()),
             QStringLiteral("lr_scratch@0: learning_rate 9 is far above the usual range for a model trained from random "
                            "weights (1e-4 to 1e-3); try 5e-4 or Find Learning Rate\n"
                            "constant_classifier@100: constant classifier: every evaluation so far (1, up to step 100) "
                            "has eval_f1 0, eval_mcc 0 and eval_accuracy 0.600, the share of the majority label ham: "
                            "the model answers ham for everything\n"
                            "rate_scratch@100: The run starts from random weights (no pretrained model or init "
                            "checkpoint): learning_rate 9 is above the usual range for a model trained from random "
                            "weights (1e-4 to 1e-3): try 5e-4, or measure one with Find Learning Rate (Training → Find "
                            "Learning Rate…)."));
}

/// Defect: --init_checkpoint of one's own (minutes-long) pretraining took the default rate of a
/// published model, 5e-5, and gave constant classifiers. The default of each start is its row's
/// rate: a pretraining run's checkpoint (its folder's run_config.json says task_type
/// bert_pretraining) starts at the OwnPretraining row's suggestion, said in the note; another
/// checkpoint at 5e-5, random weights at 5e-4; a given rate is kept.
void tst_Coach::defaultRateIsTheStartsSuggestion()
{
    QTemporaryDir dir;
    const std::string pre = dir.filePath(QStringLiteral("pre")).toStdString();
    const std::string other = dir.filePath(QStringLiteral("other")).toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(pre)) && QDir().mkpath(QString::fromStdString(other)));
    std::ofstream(pre + "/run_config.json") << R"({"informational": {"task_type": "bert_pretraining"}})";
    std::ofstream(other + "/run_config.json") << R"({"informational": {"task_type": "classification"}})";
    TrainingOptions o;
    o.init_checkpoint = pre + "/ckpt-40";
    QCOMPARE(int(weightsStartOf(o)), int(WeightsStart::OwnPretraining));
    QCOMPARE(defaultLearningRate(o), learningRateRange(WeightsStart::OwnPretraining)->suggest);
    QCOMPARE(defaultLearningRate(o), 5e-4);
    TrainingOptions resolved = o;
    QCOMPARE(resolveLearningRate(resolved),
             std::string("0.0005, the default after a short pretraining of your own (--learning_rate not given)"));
    QCOMPARE(resolved.learning_rate, std::optional<double>(5e-4));
    QCOMPARE(runFactsFor(o, Schedule{}).learning_rate, 5e-4); // the coach judges the rate the run uses

    o.init_checkpoint = other + "/ckpt-40";
    QCOMPARE(int(weightsStartOf(o)), int(WeightsStart::OtherCheckpoint));
    QCOMPARE(defaultLearningRate(o), kPretrainedLearningRate);
    o.init_checkpoint.clear();
    QCOMPARE(defaultLearningRate(o), kFromScratchLearningRate);
    o.pretrained_model = "google/bert_uncased_L-2_H-128_A-2";
    QCOMPARE(defaultLearningRate(o), kPretrainedLearningRate);
    o.init_checkpoint = pre + "/ckpt-40";
    o.pretrained_model.clear();
    o.learning_rate = 3e-5; // given: kept
    QCOMPARE(defaultLearningRate(o), 3e-5);
}

/// Defect: a "constant classifier" line stayed under a run that ended at 0.978.
/// The option help names the learning rates of kLearningRateRanges (formatted by rateWords), never
/// rates of its own: the help of learning_rate lists every row, pretrained_model the two starts it
/// is about; a change of the table changes both.
void tst_Coach::optionHelpNamesTheTable()
{
    const OptionSpec *lr = findOption("learning_rate");
    QVERIFY(lr);
    QCOMPARE(std::string(lr->help),
             std::string("How big each update step is, at its peak (after warmup). Too high and the loss jumps or "
                         "becomes NaN; too low and it barely moves. Left empty, it follows the start: 5e-5 from "
                         "pretrained weights (a pretrained model or an init checkpoint), but 5e-4 from a checkpoint of "
                         "this program's own pretraining and from random weights; "
                         "a resumed run keeps the rate it recorded. The usual ranges: 2e-5 to 5e-5 for fine-tuning "
                         "a pretrained model; 1e-4 to 1e-3 for fine-tuning a short pretraining of your own; 1e-4 "
                         "to 1e-3 for a model trained from random weights."));
    for (const LearningRateRange &r : kLearningRateRanges) {
        const std::string row = rateWords(r.low) + " to " + rateWords(r.high) + " for " + r.words;
        QVERIFY2(std::string(lr->help).find(row) != std::string::npos, row.c_str());
    }
    const OptionSpec *pm = findOption("pretrained_model");
    QVERIFY(pm);
    const std::string help = pm->help;
    QVERIFY2(help.find("Leave empty to start from random weights (then use a larger learning rate, "
                       + rateWords(learningRateRange(WeightsStart::Random)->low) + " to "
                       + rateWords(learningRateRange(WeightsStart::Random)->high)
                       + " for a small model); with a pretrained model "
                       + rateWords(learningRateRange(WeightsStart::HubPretrained)->low) + " to "
                       + rateWords(learningRateRange(WeightsStart::HubPretrained)->high) + " is the usual range.")
                 != std::string::npos,
             help.c_str());
    QVERIFY2(help.find("about 1e-3") == std::string::npos, help.c_str());
}

void tst_Coach::constantClassifierWithdrawnWhenTheRunLearns()
{
    RunFacts facts;
    facts.start = WeightsStart::Random;
    facts.learning_rate = 5e-4;
    facts.num_labels = 2;
    facts.total_steps = 400;
    const MetricsLog log = syntheticStream("constant_then_learn");
    QCOMPARE(log.eval.back().eval_accuracy, 0.978);
    RunFacts replayed = facts;
    const std::vector<CoachNote> current = coachNotesOf(replayed, log);
    QCOMPARE(texts(current), QString());
    QCOMPARE(replayed.verdict, RunVerdict::Learning);
    // The log keeps the history: said at step 100, withdrawn at step 400.
    Coach coach(facts);
    std::vector<CoachNote> said;
    for (const EvalMetrics &e : log.eval)
        for (const CoachNote &n : coach.evaluation(e))
            said.push_back(n);
    QCOMPARE(said.front().id, std::string("constant_classifier"));
    QCOMPARE(said.front().step, int64_t(100));
    const auto gone = std::find_if(said.begin(), said.end(), [](const CoachNote &n) {
        return n.id == "constant_classifier" && n.severity == kWithdrawn;
    });
    QVERIFY(gone != said.end());
    QCOMPARE(gone->step, int64_t(400));
}

namespace {

/// A run of 400 steps (40 of warmup) with 2 labels from `start` at `rate`, with a bag-of-words
/// baseline of 0.95.
RunFacts generatedRunFacts(WeightsStart start, double rate)
{
    RunFacts facts;
    facts.start = start;
    facts.start_name = start == WeightsStart::Random ? "" : "m";
    facts.learning_rate = rate;
    facts.num_labels = 2;
    facts.total_steps = 400;
    facts.warmup_steps = 40;
    facts.bag_of_words_accuracy = 0.95;
    return facts;
}

/// The live run of `log`: the notes of `coach` as the loop emits them, written to the
/// metrics.jsonl `path` with the metrics, and applied one by one (the notes returned).
std::vector<CoachNote> notesOfALiveRun(Coach &coach, const MetricsLog &log, const std::string &path)
{
    std::vector<CoachNote> applied;
    {
        MetricsWriter w(path);
        const auto tell = [&](const std::vector<CoachNote> &notes) {
            for (const CoachNote &n : notes) {
                applyCoachNote(applied, n);
                w.writeNote(n);
            }
        };
        tell(coach.start());
        size_t e = 0;
        for (const StepMetrics &m : log.train) {
            for (; e < log.eval.size() && log.eval[e].step < m.step; ++e)
                tell(coach.evaluation(log.eval[e]));
            w.writeTrain(m);
            tell(coach.step(m));
        }
        for (; e < log.eval.size(); ++e) {
            w.writeEval(log.eval[e]);
            tell(coach.evaluation(log.eval[e]));
        }
    }
    return applied;
}

/// What every view keeps (`applied`, the notes applied one by one; the notes replayed from the
/// metrics.jsonl `path`; those replayed from `log`) is the coach's current set, and the replay
/// reaches the coach's verdict. `what` names the run.
void checkEveryViewKeepsTheCurrentNotes(const Coach &coach, const RunFacts &facts, const MetricsLog &log,
                                        const std::vector<CoachNote> &applied, const std::string &path,
                                        const std::string &what)
{
    const std::vector<CoachNote> &current = coach.current();
    QVERIFY2(texts(applied) == texts(current), what.c_str());
    std::vector<CoachNote> fromFile;
    for (const CoachNote &n : readMetricsFile(path).notes)
        applyCoachNote(fromFile, n);
    QVERIFY2(texts(fromFile) == texts(current), what.c_str());
    RunFacts replayed = facts;
    QVERIFY2(texts(coachNotesOf(replayed, log)) == texts(current), what.c_str());
    QCOMPARE(replayed.verdict, coach.facts().verdict);
}

/// No two of the `current` notes of the run of `facts` and `log` contradict: every rate they
/// suggest lies in every range they give, and is never ten times the rate; each note speaks of
/// the start the run had; the notes of a poor accuracy come only with one.
void checkShownNotesDoNotContradict(const std::vector<CoachNote> &current, const RunFacts &facts,
                                    const MetricsLog &log, const std::string &what)
{
    const WeightsStart start = facts.start;
    const double rate = facts.learning_rate;
    std::vector<double> tried, lows, highs;
    for (const CoachNote &n : current) {
        for (double x : numbersAfter(n.text, "try "))
            if (x > 0)
                tried.push_back(x);
        for (size_t at = n.text.find(" ("); at != std::string::npos; at = n.text.find(" (", at + 1)) {
            char *end = nullptr;
            const double low = std::strtod(n.text.c_str() + at + 2, &end);
            if (end && std::string(end).rfind(" to ", 0) == 0) {
                lows.push_back(low);
                highs.push_back(std::strtod(end + 4, nullptr));
            }
        }
        if (n.text.find("random weights") != std::string::npos)
            QVERIFY2(start == WeightsStart::Random, (what + ": " + n.text).c_str());
        if (n.text.find("the pretrained model") != std::string::npos
            || n.text.find("fine-tuning a pretrained model") != std::string::npos)
            QVERIFY2(start == WeightsStart::HubPretrained, (what + ": " + n.text).c_str());
        if (n.text.find("Start from a pretrained model") != std::string::npos)
            QVERIFY2(start != WeightsStart::HubPretrained, (what + ": " + n.text).c_str());
        if (n.id == "constant_classifier" || n.id == "below_baseline" || n.id == "one_class")
            QVERIFY2(log.eval.back().eval_accuracy <= 0.6 + 1e-9, (what + ": " + n.text).c_str());
        if (n.id.rfind("rate_", 0) == 0)
            QCOMPARE(n.id, std::string(rateAdvice(facts, 0).id));
    }
    for (double x : tried)
        for (size_t r = 0; r < lows.size(); ++r)
            QVERIFY2(x >= lows[r] && x <= highs[r], what.c_str());
    for (double x : tried) // never ten times the rate
        QVERIFY2(std::abs(x - 10 * rate) > 1e-12 * rate || learningRateRange(start)->suggest == x,
                 what.c_str());
}

/// The verdict fits the stream `kind`: a run that learned is Learning (unless NaN or diverged),
/// a NaN stream NotANumber, and no learning-verdict note is shown beside Learning.
void checkVerdictFitsTheStream(const Coach &coach, const MetricsLog &log, const char *kind,
                               const std::string &what)
{
    const std::vector<CoachNote> &current = coach.current();
    const bool learned = log.eval.back().eval_accuracy > 0.95;
    if (learned && std::string(kind) != "nan" && std::string(kind) != "diverge")
        QVERIFY2(coach.facts().verdict == RunVerdict::Learning, what.c_str());
    if (std::string(kind) == "nan")
        QCOMPARE(coach.facts().verdict, RunVerdict::NotANumber);
    if (coach.facts().verdict == RunVerdict::Learning)
        for (const CoachNote &n : current)
            QVERIFY2(!isLearningVerdict(n.id), (what + ": " + n.text).c_str());
}

} // namespace

/// Runs of every start, rates from 1e-7 to 10 and metric streams that learn, stay constant,
/// diverge or go NaN: what every view keeps (the notes applied one by one, as the window's
/// progress line and Evaluation box and the CLI do; the notes replayed from metrics.jsonl, as a
/// past run's views and the model card do) is the coach's current set, and no two notes shown
/// at once contradict.
void tst_Coach::generatedRunsNeverContradict()
{
    const WeightsStart starts[] = {WeightsStart::HubPretrained, WeightsStart::OwnPretraining,
                                   WeightsStart::OtherCheckpoint, WeightsStart::Random, WeightsStart::Unknown};
    const double rates[] = {1e-7, 1e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 3e-3, 1e-2, 0.1, 1, 9, 10};
    const char *kinds[] = {"learn", "constant", "diverge", "nan", "constant_then_learn"};
    QTemporaryDir dir;
    int runs = 0;
    for (WeightsStart start : starts)
        for (double rate : rates)
            for (const char *kind : kinds) {
                const RunFacts facts = generatedRunFacts(start, rate);
                const MetricsLog log = syntheticStream(kind);
                // The live run: notes as the loop emits them, written to metrics.jsonl.
                const std::string path = dir.filePath(QStringLiteral("m%1.jsonl").arg(runs++)).toStdString();
                Coach coach(facts);
                const std::vector<CoachNote> applied = notesOfALiveRun(coach, log, path);
                const std::string what = std::string(weightsStartName(start)) + " " + rateWords(rate) + " " + kind;
                checkEveryViewKeepsTheCurrentNotes(coach, facts, log, applied, path, what);
                if (QTest::currentTestFailed())
                    return;
                // No two notes shown at once contradict.
                checkShownNotesDoNotContradict(coach.current(), facts, log, what);
                if (QTest::currentTestFailed())
                    return;
                checkVerdictFitsTheStream(coach, log, kind, what);
                if (QTest::currentTestFailed())
                    return;
            }
    QCOMPARE(runs, 5 * 16 * 5);
}

void tst_Coach::notesInMetricsJsonlStreamAndSummary()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("metrics.jsonl")).toStdString();
    const CoachNote note{"overfitting", 500, "warning", "eval loss has risen since step 300 (best 200)"};
    {
        MetricsWriter w(path);
        w.writeTrain(stepOf(500, 0.1));
        w.writeNote(note);
    }
    std::ifstream in(path);
    std::string line1, line2;
    std::getline(in, line1);
    std::getline(in, line2);
    QCOMPARE(line2, std::string(R"({"kind":"note","step":500,"id":"overfitting","severity":"warning",)"
                                R"x("text":"eval loss has risen since step 300 (best 200)"})x"));
    const MetricsLog log = readMetricsFile(path);
    QCOMPARE(log.train.size(), size_t(1));
    QCOMPARE(log.notes.size(), size_t(1));
    QCOMPARE(log.notes[0].text, note.text);
    QCOMPARE(log.notes[0].step, int64_t(500));
    // The jsonl progress stream: {"event":"note",…}, decoded into the observer's coachNote.
    const std::string event = runEventLine(note);
    QCOMPARE(event, std::string(R"({"event":"note","step":500,"id":"overfitting","severity":"warning",)"
                                R"x("text":"eval loss has risen since step 300 (best 200)"})x"));
    struct Catch : TrainingObserver
    {
        std::vector<CoachNote> got;
        void coachNote(const CoachNote &n) override { got.push_back(n); }
    } obs;
    QCOMPARE(decodeRunEvent(event, obs), RunEventKind::Note);
    QCOMPARE(obs.got.size(), size_t(1));
    QCOMPARE(obs.got[0].id, note.id);
    QCOMPARE(obs.got[0].severity, note.severity);
    // training_summary.json lists them.
    TrainingSummary s;
    s.total_training_steps = 1000;
    s.coach_notes = {note, CoachNote{"plateau", 40, "info", "not learning yet"}};
    const TrainingSummary back = parseTrainingSummary(trainingSummaryJson(s), "training_summary.json");
    QCOMPARE(back.coach_notes.size(), size_t(2));
    QCOMPARE(back.coach_notes[1].id, std::string("plateau"));
    QCOMPARE(back.coach_notes[1].step, int64_t(40));
    QCOMPARE(back.coach_notes[0].text, note.text);
    QVERIFY(trainingSummaryJson(TrainingSummary{}).find("coach_notes") == std::string::npos);
}

QTEST_GUILESS_MAIN(tst_Coach)
#include "tst_coach.moc"

/// data_map (issue 46): said when eval accuracy stalls while at least 3 % of the mapped training
/// examples are hard to learn; withdrawn when either stops holding; the counts travel in the eval line.
void tst_Coach::dataMapWhenAccuracyStallsWithManyHardExamples()
{
    const auto mapped = [](EvalMetrics e, int64_t hard) {
        e.train_examples_mapped = 1000;
        e.train_hard_to_learn = hard;
        return e;
    };
    Coach coach(binarySetup());
    coach.step(stepOf(100, 0.5));
    QVERIFY(coach.evaluation(mapped(binaryEval(100, 0.5, kGood), 80)).empty()); // the first: nothing to stall against
    coach.step(stepOf(200, 0.4));
    QVERIFY(coach.evaluation(mapped(binaryEval(200, 0.4, {{550, 50}, {50, 350}}), 80)).empty()); // 0.900: rising
    coach.step(stepOf(300, 0.35));
    const auto stalled = coach.evaluation(mapped(binaryEval(300, 0.38, {{551, 49}, {48, 352}}), 80)); // 0.903
    QCOMPARE(texts(stalled),
             QStringLiteral("data_map@300: Eval accuracy has stopped rising (0.903 at step 300; 0.900 at step 200) "
                            "while 80 of 1000 training examples (8.0 %) are hard to learn: the model has never "
                            "believed their labels, and such labels are often wrong. Review them on the Data map and "
                            "in its suspects (bert-workbench-cli suspects --model_dir=<this run>), correct what is "
                            "wrong, prepare the data again with the corrections and retrain."));
    coach.step(stepOf(400, 0.3));
    const auto fewer = coach.evaluation(mapped(binaryEval(400, 0.37, {{551, 49}, {48, 352}}), 29)); // 2.9 %
    QCOMPARE(fewer.size(), size_t(1));
    QCOMPARE(fewer[0].severity, std::string(kWithdrawn));
    QCOMPARE(fewer[0].id, std::string("data_map"));

    // Rising by more than half a point, or a run that records nothing: no note.
    Coach rising(binarySetup());
    rising.evaluation(mapped(binaryEval(100, 0.5, kGood), 300));
    QVERIFY(rising.evaluation(mapped(binaryEval(200, 0.4, {{503, 97}, {94, 306}}), 300)).empty()); // 0.809 > 0.805
    Coach unmapped(binarySetup());
    unmapped.evaluation(binaryEval(100, 0.5, kGood));
    QVERIFY(unmapped.evaluation(binaryEval(200, 0.5, kGood)).empty());

    // The window's words name the tab.
    setOptionWording(OptionWording::Window);
    Coach window(binarySetup());
    window.evaluation(mapped(binaryEval(100, 0.5, kGood), 80));
    const auto said = window.evaluation(mapped(binaryEval(200, 0.5, kGood), 80));
    setOptionWording(OptionWording::CommandLine);
    QCOMPARE(said.size(), size_t(1));
    QVERIFY2(said[0].text.find("(the Data map tab beside Embeddings)") != std::string::npos, said[0].text.c_str());

    // The eval line carries the counts, and leaves them out when nothing was mapped.
    const nlohmann::json line = mapped(binaryEval(300, 0.38, kGood), 80);
    QCOMPARE(line.at("train_examples_mapped").get<int64_t>(), int64_t(1000));
    QCOMPARE(line.at("train_hard_to_learn").get<int64_t>(), int64_t(80));
    const EvalMetrics back = line.get<EvalMetrics>();
    QCOMPARE(back.train_examples_mapped, int64_t(1000));
    QCOMPARE(back.train_hard_to_learn, int64_t(80));
    const nlohmann::json plain = binaryEval(300, 0.38, kGood);
    QVERIFY(!plain.contains("train_examples_mapped") && !plain.contains("train_hard_to_learn"));
}
