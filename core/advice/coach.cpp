// SPDX-License-Identifier: Apache-2.0
// The coach's rules (core/advice/coach.h); its thresholds and texts are kCoachRules.
#include "core/advice/coach.h"

#include "core/config/optionwords.h"
#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"
#include "core/io/metricsreader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace wb {

namespace {

std::string num(double v, const char *format = "%.4g")
{
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "inf" : "-inf";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string labelName(const std::vector<std::string> &names, int id)
{
    return id >= 0 && id < int(names.size()) ? names[size_t(id)] : "label " + std::to_string(id);
}

CoachNote noteOf(const CoachRule &rule, int64_t step, const std::vector<std::pair<std::string, std::string>> &values)
{
    return CoachNote{rule.id, step, rule.severity, fillCoachText(rule.text, values)};
}

} // namespace

const CoachRule &coachRule(const std::string &id)
{
    for (const CoachRule &rule : kCoachRules)
        if (id == rule.id)
            return rule;
    throw std::out_of_range("no coach rule " + id);
}

std::string fillCoachText(const char *text, const std::vector<std::pair<std::string, std::string>> &values)
{
    std::string out = text;
    for (const auto &[name, value] : values) {
        const std::string key = "{" + name + "}";
        for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + value.size()))
            out.replace(at, key.size(), value);
    }
    return out;
}

CoachSetup coachSetupFor(const TrainingOptions &spec, const Schedule &sched)
{
    return runFactsFor(spec, sched);
}

namespace {

/// The lr_* rule of a start with a range.
const char *farRule(WeightsStart start)
{
    switch (start) {
    case WeightsStart::HubPretrained: return "lr_pretrained";
    case WeightsStart::OwnPretraining: return "lr_own_pretraining";
    default: return "lr_scratch";
    }
}

const char *rateRule(WeightsStart start)
{
    switch (start) {
    case WeightsStart::HubPretrained: return "rate_pretrained";
    case WeightsStart::OwnPretraining: return "rate_own_pretraining";
    case WeightsStart::Random: return "rate_scratch";
    default: return "rate_unknown";
    }
}

std::string rangeWords(const LearningRateRange &r)
{
    return "the usual range for " + std::string(r.words) + " (" + rateWords(r.low) + " to " + rateWords(r.high) + ")";
}

const char *const kFinder = "Find Learning Rate (Training → Find Learning Rate…)";

/// Where a run picks its pretrained model: the field's label and the flag on the command line
/// ("Start from, --pretrained_model"), the field alone in the window.
std::string startFromField()
{
    if (optionWording() == OptionWording::Window)
        return optionName("pretrained_model");
    return optionLabel("pretrained_model") + ", " + optionName("pretrained_model");
}

} // namespace

std::vector<CoachNote> scheduleNotes(const CoachSetup &setup)
{
    std::vector<CoachNote> out;
    const CoachRule &few = coachRule("few_steps");
    if (setup.total_steps < int64_t(few.threshold))
        out.push_back(noteOf(few, 0, {{"steps", std::to_string(setup.total_steps)}}));
    if (setup.warmup_steps > 0 && setup.warmup_steps >= setup.total_steps)
        out.push_back(noteOf(coachRule("warmup_too_long"), 0,
                             {{"warmup", std::to_string(setup.warmup_steps)},
                              {"steps", std::to_string(setup.total_steps)},
                              {"lr", num(setup.learning_rate, "%g")},
                              {"warmup_proportion", optionName("warmup_proportion")}}));
    const CoachRule &shortTexts = coachRule("short_texts");
    if (setup.padding == "max_length" && setup.mean_tokens > 0 && setup.max_seq_length > 0
        && setup.mean_tokens < shortTexts.threshold * double(setup.max_seq_length))
        out.push_back(noteOf(shortTexts, 0,
                             {{"mean", num(setup.mean_tokens, "%.0f")},
                              {"max", std::to_string(setup.max_seq_length)},
                              {"setting", optionSetting("padding", "longest")}}));
    if (const LearningRateRange *r = learningRateRange(setup.start);
        r && !(setup.learning_rate >= r->far_below && setup.learning_rate <= r->far_above))
        out.push_back(noteOf(coachRule(farRule(setup.start)), 0,
                             {{"lr", rateWords(setup.learning_rate)},
                              {"direction", setup.learning_rate > r->far_above ? "above" : "below"},
                              {"words", r->words},
                              {"low", rateWords(r->low)},
                              {"high", rateWords(r->high)},
                              {"suggest", rateWords(r->suggest)}}));
    return out;
}

CoachNote rateAdvice(const RunFacts &facts, int64_t step)
{
    const CoachRule &rule = coachRule(rateRule(facts.start));
    const LearningRateRange *r = learningRateRange(facts.start);
    std::string position;
    if (!r) {
        // no range: the rule's text says to measure one
    } else if (facts.learning_rate < r->low || facts.learning_rate > r->high) {
        position = std::string("is ") + (facts.learning_rate < r->low ? "below " : "above ") + rangeWords(*r)
                   + ": try " + rateWords(r->suggest) + ", or measure one with " + kFinder;
    } else {
        position = "is within " + rangeWords(*r) + ", so the rate alone does not explain it: measure one with "
                   + kFinder;
    }
    return noteOf(rule, step,
                  {{"start", startWords(facts)}, {"lr", rateWords(facts.learning_rate)}, {"position", position}});
}

std::optional<std::pair<int, double>> majorityShare(const std::vector<std::vector<int64_t>> &confusion)
{
    int64_t total = 0, best = -1;
    int label = -1;
    for (size_t t = 0; t < confusion.size(); ++t) {
        const int64_t row = std::accumulate(confusion[t].begin(), confusion[t].end(), int64_t(0));
        total += row;
        if (row > best) {
            best = row;
            label = int(t);
        }
    }
    if (total <= 0)
        return std::nullopt;
    return std::make_pair(label, double(best) / double(total));
}

bool isLearningVerdict(const std::string &id)
{
    return id == "divergence" || id == "constant_classifier" || id == "one_class" || id == "below_baseline"
           || id.rfind("rate_", 0) == 0;
}

void applyCoachNote(std::vector<CoachNote> &current, const CoachNote &note)
{
    current.erase(std::remove_if(current.begin(), current.end(), [&](const CoachNote &n) { return n.id == note.id; }),
                  current.end());
    if (note.severity != kWithdrawn)
        current.push_back(note);
}

Coach::Coach(CoachSetup setup) : m_setup(std::move(setup)) {}

bool Coach::holds(const std::string &id) const
{
    return m_said.count(id) > 0;
}

void Coach::say(std::vector<CoachNote> &out, CoachNote note, const std::string &content)
{
    const auto it = m_said.find(note.id);
    if (it != m_said.end() && it->second == content)
        return;
    m_said[note.id] = content;
    applyCoachNote(m_current, note);
    m_notes.push_back(note);
    out.push_back(std::move(note));
}

void Coach::withdraw(std::vector<CoachNote> &out, const std::string &id, int64_t step)
{
    const auto it = std::find_if(m_current.begin(), m_current.end(), [&](const CoachNote &n) { return n.id == id; });
    if (it == m_current.end())
        return;
    CoachNote gone{id, step, kWithdrawn, it->text};
    m_said.erase(id);
    applyCoachNote(m_current, gone);
    m_notes.push_back(gone);
    out.push_back(std::move(gone));
}

void Coach::updateVerdict()
{
    if (holds("divergence"))
        m_setup.verdict = m_lastLossFinite ? RunVerdict::Diverged : RunVerdict::NotANumber;
    else if (holds("constant_classifier") || holds("one_class") || holds("below_baseline"))
        m_setup.verdict = RunVerdict::NotLearning;
    else
        m_setup.verdict = m_evals.empty() ? RunVerdict::NotEvaluated : RunVerdict::Learning;
}

std::vector<CoachNote> Coach::start()
{
    std::vector<CoachNote> out;
    for (CoachNote &n : scheduleNotes(m_setup))
        say(out, n, n.text);
    return out;
}

std::vector<CoachNote> Coach::step(const StepMetrics &m)
{
    std::vector<CoachNote> out;
    const CoachRule &rule = coachRule("divergence");
    if (!m_firstLoss && std::isfinite(m.loss))
        m_firstLoss = m.loss;
    m_lastLossFinite = std::isfinite(m.loss);
    if (std::isfinite(m.loss)) {
        m_intervalSum += m.loss;
        ++m_intervalCount;
    }
    if (!std::isfinite(m.loss) || (m_firstLoss && *m_firstLoss > 0 && m.loss > rule.threshold * *m_firstLoss)) {
        m_intervalDiverged = true;
        // Said once while it holds: a diverging loss stays high, its value changes at every step.
        say(out,
            noteOf(rule, m.step,
                   {{"loss", num(m.loss)}, {"step", std::to_string(m.step)},
                    {"start", m_firstLoss ? num(*m_firstLoss) : std::string("not known")}}),
            "diverged");
    }
    updateVerdict();
    return out;
}

void Coach::sayOverfitting(std::vector<CoachNote> &out, const EvalMetrics &em, double trainLoss)
{
    const CoachRule &rule = coachRule("overfitting");
    const int64_t k = m_setup.early_stopping_patience > 0 ? m_setup.early_stopping_patience : int64_t(rule.threshold);
    size_t best = 0;
    for (size_t i = 1; i < m_evals.size(); ++i)
        if (std::isfinite(m_evals[i].eval_loss) && !(m_evals[i].eval_loss >= m_evals[best].eval_loss))
            best = i;
    const size_t after = m_evals.size() - 1 - best;
    const bool trainFalls = std::isfinite(trainLoss) && std::isfinite(m_evals[best].train_loss)
                            && trainLoss < m_evals[best].train_loss;
    if (after >= size_t(k) && k > 0 && trainFalls) {
        const std::string since = std::to_string(m_evals[best + 1].step);
        const std::string bestStep = std::to_string(m_evals[best].step);
        say(out,
            noteOf(rule, em.step,
                   {{"since", since}, {"best", bestStep}, {"k", std::to_string(k)},
                    {"stop", std::to_string(m_evals[best + size_t(k)].step)}}),
            bestStep);
    } else if (after == 0) { // a new best eval loss: the rise is over
        withdraw(out, rule.id, em.step);
    }
}

void Coach::sayPlateau(std::vector<CoachNote> &out, const EvalMetrics &em, double trainLoss)
{
    const CoachRule &rule = coachRule("plateau");
    const double ln = std::log(double(m_setup.num_labels));
    if (!std::isfinite(trainLoss) || double(em.step) < rule.threshold2 * double(m_setup.total_steps))
        return;
    if (std::abs(trainLoss - ln) <= rule.threshold * ln)
        say(out,
            noteOf(rule, em.step,
                   {{"loss", num(trainLoss, "%.3f")}, {"num_labels", std::to_string(m_setup.num_labels)},
                    {"ln", num(ln, "%.3f")}}),
            "plateau");
    else
        withdraw(out, rule.id, em.step);
}

void Coach::sayConstantClassifier(std::vector<CoachNote> &out, const EvalMetrics &em,
                                  const std::optional<std::pair<int, double>> &majority)
{
    const CoachRule &rule = coachRule("constant_classifier");
    const bool binary = em.binary || (em.confusion.empty() && m_setup.num_labels == 2);
    const bool constant = binary && majority && em.eval_f1 == 0 && em.eval_mcc == 0
                          && std::abs(em.eval_accuracy - majority->second) <= rule.threshold;
    m_allConstant = m_allConstant && constant;
    if (m_allConstant && constant)
        say(out,
            noteOf(rule, em.step,
                   {{"evals", std::to_string(m_evals.size())}, {"step", std::to_string(em.step)},
                    {"accuracy", num(em.eval_accuracy, "%.3f")}, {"label", labelName(em.label_names, majority->first)}}),
            "constant");
    else
        withdraw(out, rule.id, em.step);
}

void Coach::sayLearning(std::vector<CoachNote> &out, const EvalMetrics &em,
                        const std::optional<std::pair<int, double>> &majority)
{
    // one_class, below_baseline: quiet while constant_classifier says it all.
    const size_t n = em.confusion.size();
    int predicted = 0, onlyLabel = -1;
    for (size_t p = 0; p < n; ++p) {
        int64_t column = 0;
        for (const auto &row : em.confusion)
            column += p < row.size() ? row[p] : 0;
        if (column > 0) {
            ++predicted;
            onlyLabel = int(p);
        }
    }
    const bool constant = holds("constant_classifier");
    if (!constant && n > 1 && predicted == 1) {
        CoachNote note = noteOf(coachRule("one_class"), em.step, {{"label", labelName(em.label_names, onlyLabel)}});
        say(out, note, note.text); // the predicted label is its content
    } else {
        withdraw(out, "one_class", em.step);
    }
    const CoachRule &below = coachRule("below_baseline");
    if (!constant && majority && em.eval_accuracy <= majority->second + below.threshold)
        say(out,
            noteOf(below, em.step,
                   {{"accuracy", num(em.eval_accuracy, "%.3f")},
                    {"baseline", num(majority->second, "%.3f")},
                    {"label", labelName(em.label_names, majority->first)}}),
            below.id);
    else
        withdraw(out, below.id, em.step);
    // The rate advice while the run does not learn; one rule per start.
    const CoachNote advice = rateAdvice(m_setup, em.step);
    if (constant || holds("one_class") || holds("below_baseline"))
        say(out, advice, advice.id);
    else
        withdraw(out, advice.id, em.step);
}

void Coach::sayBagOfWords(std::vector<CoachNote> &out, const EvalMetrics &em)
{
    const CoachRule &rule = coachRule("below_bag_of_words");
    if (!m_setup.bag_of_words_accuracy || m_setup.total_steps <= 0 || em.step < m_setup.total_steps)
        return;
    const double bow = *m_setup.bag_of_words_accuracy;
    if (std::isfinite(em.eval_accuracy) && em.eval_accuracy <= bow + rule.threshold) {
        const bool pretrained = m_setup.start == WeightsStart::HubPretrained;
        say(out,
            noteOf(rule, em.step,
                   {{"accuracy", num(em.eval_accuracy, "%.3f")}, {"baseline", num(bow, "%.3f")},
                    {"as_well", em.eval_accuracy < bow ? "better" : "as well"},
                    {"advice", pretrained ? std::string("Train longer, or measure a learning rate with ") + kFinder
                                          : "Start from a pretrained model (" + startFromField() + "), train longer"}}),
            "below");
    } else {
        withdraw(out, rule.id, em.step);
    }
}

void Coach::saySmallEvalSet(std::vector<CoachNote> &out, const EvalMetrics &em)
{
    const CoachRule &rule = coachRule("small_eval_set");
    const double n = double(em.num_examples);
    const double p = std::clamp(em.eval_accuracy, 0.0, 1.0);
    const double half = n > 0 ? 1.96 * std::sqrt(p * (1 - p) / n) : 1.0;
    if (n > 0 && half > rule.threshold) {
        const double needed = std::ceil(1.96 * 1.96 * p * (1 - p) / (rule.threshold * rule.threshold));
        say(out,
            noteOf(rule, em.step,
                   {{"n", std::to_string(em.num_examples)}, {"accuracy", num(p, "%.3f")},
                    {"points", num(100 * half, "%.1f")}, {"needed", num(needed, "%.0f")}}),
            "small");
    }
}

void Coach::sayMultiLabel(std::vector<CoachNote> &out, const EvalMetrics &em)
{
    const CoachRule &never = coachRule("label_never_predicted");
    std::string names; // every label the eval texts carry that no text gets at 0.5
    int64_t support = 0;
    size_t count = 0;
    for (size_t k = 0; k < em.label_confusion.size(); ++k) {
        const auto &[tn, fp, fn, tp] = em.label_confusion[k];
        (void)tn;
        if (tp + fp == 0 && fn > 0) {
            names += (names.empty() ? "" : ", ") + labelName(em.label_names, int(k));
            support += fn;
            ++count;
        }
    }
    if (count > 0) {
        const std::string advice = "Weight rare labels (" + optionSetting("pos_weight", "balanced")
                                   + "), train longer, or give them more examples.";
        CoachNote note = noteOf(never, em.step,
                                {{"label", count == em.label_confusion.size() ? "every label (" + names + ")" : names},
                                 {"support", std::to_string(support)},
                                 {"advice", advice}});
        say(out, note, note.text);
    } else {
        withdraw(out, never.id, em.step);
    }
    const CoachRule &gain = coachRule("thresholds_gain");
    const double diff = em.eval_macro_f1_tuned - em.eval_macro_f1;
    if (std::isfinite(diff) && std::abs(diff) >= gain.threshold)
        say(out,
            noteOf(gain, em.step,
                   {{"tuned", num(em.eval_macro_f1_tuned, "%.3f")},
                    {"half", num(em.eval_macro_f1, "%.3f")},
                    {"points", num(100 * std::abs(diff), "%.1f")},
                    {"direction", diff > 0 ? "better" : "worse"},
                    {"use", diff > 0 ? "classify and the export use the tuned thresholds"
                                     : "so classify and the export keep 0.5 for every label"}}),
            diff > 0 ? "better" : "worse");
    else
        withdraw(out, gain.id, em.step);
}

void Coach::sayDataMap(std::vector<CoachNote> &out, const EvalMetrics &em)
{
    const CoachRule &rule = coachRule("data_map");
    if (em.train_examples_mapped <= 0)
        return;
    // The best evaluation before this one (m_evals ends with this one).
    std::optional<size_t> best;
    for (size_t i = 0; i + 1 < m_evals.size(); ++i)
        if (std::isfinite(m_evals[i].eval_accuracy) && (!best || m_evals[i].eval_accuracy > m_evals[*best].eval_accuracy))
            best = i;
    const double share = double(em.train_hard_to_learn) / double(em.train_examples_mapped);
    const bool stalled = best && std::isfinite(em.eval_accuracy)
                         && em.eval_accuracy <= m_evals[*best].eval_accuracy + rule.threshold2;
    if (!stalled || share < rule.threshold) {
        withdraw(out, rule.id, em.step);
        return;
    }
    const std::string where = optionWording() == OptionWording::Window
                                  ? "the Data map tab beside Embeddings"
                                  : "bert-workbench-cli suspects --model_dir=<this run>";
    say(out,
        noteOf(rule, em.step,
               {{"accuracy", num(em.eval_accuracy, "%.3f")},
                {"step", std::to_string(em.step)},
                {"best", num(m_evals[*best].eval_accuracy, "%.3f")},
                {"best_step", std::to_string(m_evals[*best].step)},
                {"hard", std::to_string(em.train_hard_to_learn)},
                {"examples", std::to_string(em.train_examples_mapped)},
                {"share", num(100 * share, "%.1f")},
                {"where", where}}),
        "stalled");
}

std::vector<CoachNote> Coach::evaluation(const EvalMetrics &em)
{
    std::vector<CoachNote> out;
    const double trainLoss = m_intervalCount > 0 ? m_intervalSum / double(m_intervalCount)
                                                 : std::numeric_limits<double>::quiet_NaN();
    // divergence is withdrawn by an interval whose every logged loss was finite and not far above the first.
    if (m_intervalCount > 0 && !m_intervalDiverged)
        withdraw(out, "divergence", em.step);
    m_intervalSum = 0;
    m_intervalCount = 0;
    m_intervalDiverged = false;
    m_evals.push_back({em.step, em.eval_loss, trainLoss, em.eval_accuracy});

    sayOverfitting(out, em, trainLoss);
    if (em.multi_label)
        sayMultiLabel(out, em);
    else if (!(m_setup.regression || m_setup.num_labels < 2 || em.regression)) {
        sayPlateau(out, em, trainLoss);
        auto majority = majorityShare(em.confusion);
        if (!majority)
            majority = m_setup.majority;
        sayConstantClassifier(out, em, majority);
        sayLearning(out, em, majority);
        sayBagOfWords(out, em);
        // small_eval_set: once, at the first evaluation.
        saySmallEvalSet(out, em);
        sayDataMap(out, em);
    }
    updateVerdict();
    return out;
}

std::vector<CoachNote> coachNotesOf(RunFacts &facts, const MetricsLog &log)
{
    Coach coach(facts);
    coach.start();
    size_t e = 0;
    for (const StepMetrics &m : log.train) {
        for (; e < log.eval.size() && log.eval[e].step < m.step; ++e)
            coach.evaluation(log.eval[e]);
        coach.step(m);
    }
    for (; e < log.eval.size(); ++e)
        coach.evaluation(log.eval[e]);
    facts = coach.facts();
    return coach.current();
}

} // namespace wb
