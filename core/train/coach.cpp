// SPDX-License-Identifier: Apache-2.0
// The coach's rules (core/train/coach.h); its thresholds and texts are kCoachRules.
#include "core/train/coach.h"

#include "core/config/schedule.h"
#include "core/config/trainingoptions.h"

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
    CoachSetup c;
    c.total_steps = sched.total_steps;
    c.warmup_steps = sched.warmup_steps;
    c.learning_rate = learningRate(spec);
    c.from_scratch = spec.init_checkpoint.empty();
    c.early_stopping_patience = spec.early_stopping_patience;
    return c;
}

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
                              {"lr", num(setup.learning_rate, "%g")}}));
    const CoachRule &lr = coachRule(setup.from_scratch ? "lr_scratch" : "lr_pretrained");
    if (!(setup.learning_rate >= lr.threshold && setup.learning_rate <= lr.threshold2))
        out.push_back(noteOf(lr, 0, {{"lr", num(setup.learning_rate, "%g")}}));
    return out;
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

std::vector<CoachNote> learningNotes(const EvalMetrics &em, const std::optional<std::pair<int, double>> &majority,
                                     bool fromScratch, double learningRate, const std::vector<std::string> &labelNames)
{
    std::vector<CoachNote> out;
    if (em.regression)
        return out;
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
    if (n > 1 && predicted == 1)
        out.push_back(noteOf(coachRule("one_class"), em.step, {{"label", labelName(labelNames, onlyLabel)}}));
    const CoachRule &below = coachRule("below_baseline");
    if (majority && em.eval_accuracy <= majority->second + below.threshold)
        out.push_back(noteOf(below, em.step,
                             {{"accuracy", num(em.eval_accuracy, "%.3f")},
                              {"baseline", num(majority->second, "%.3f")},
                              {"label", labelName(labelNames, majority->first)}}));
    const CoachRule &scratch = coachRule("from_scratch");
    if (!out.empty() && fromScratch)
        out.push_back(noteOf(scratch, em.step,
                             {{"lr", num(std::max(scratch.threshold, learningRate * scratch.threshold2), "%.2g")}}));
    return out;
}

Coach::Coach(CoachSetup setup) : m_setup(setup) {}

void Coach::say(std::vector<CoachNote> &out, CoachNote note, const std::string &content)
{
    const auto it = m_said.find(note.id);
    if (it != m_said.end() && it->second == content)
        return;
    m_said[note.id] = content;
    m_notes.push_back(note);
    out.push_back(std::move(note));
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
    if (std::isfinite(m.loss)) {
        m_intervalSum += m.loss;
        ++m_intervalCount;
    }
    if (!std::isfinite(m.loss) || (m_firstLoss && *m_firstLoss > 0 && m.loss > rule.threshold * *m_firstLoss)) {
        // Said once per run: a diverging loss stays high, its value changes at every step.
        say(out,
            noteOf(rule, m.step,
                   {{"loss", num(m.loss)}, {"step", std::to_string(m.step)},
                    {"start", m_firstLoss ? num(*m_firstLoss) : std::string("not known")}}),
            "diverged");
    }
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
    }
}

void Coach::sayPlateau(std::vector<CoachNote> &out, const EvalMetrics &em, double trainLoss)
{
    const CoachRule &rule = coachRule("plateau");
    const double ln = std::log(double(m_setup.num_labels));
    if (std::isfinite(trainLoss) && double(em.step) >= rule.threshold2 * double(m_setup.total_steps)
        && std::abs(trainLoss - ln) <= rule.threshold * ln)
        say(out,
            noteOf(rule, em.step,
                   {{"loss", num(trainLoss, "%.3f")}, {"num_labels", std::to_string(m_setup.num_labels)},
                    {"ln", num(ln, "%.3f")}}),
            "plateau");
}

void Coach::sayConstantClassifier(std::vector<CoachNote> &out, const EvalMetrics &em,
                                  const std::optional<std::pair<int, double>> &majority)
{
    const CoachRule &rule = coachRule("constant_classifier");
    const bool constant = em.binary && majority && em.eval_f1 == 0 && em.eval_mcc == 0
                          && std::abs(em.eval_accuracy - majority->second) <= rule.threshold;
    m_allConstant = m_allConstant && constant;
    if (m_allConstant && constant)
        say(out,
            noteOf(rule, em.step,
                   {{"evals", std::to_string(m_evals.size())}, {"step", std::to_string(em.step)},
                    {"accuracy", num(em.eval_accuracy, "%.3f")}, {"label", labelName(em.label_names, majority->first)}}),
            "constant");
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

std::vector<CoachNote> Coach::evaluation(const EvalMetrics &em)
{
    std::vector<CoachNote> out;
    const double trainLoss = m_intervalCount > 0 ? m_intervalSum / double(m_intervalCount)
                                                 : std::numeric_limits<double>::quiet_NaN();
    m_intervalSum = 0;
    m_intervalCount = 0;
    m_evals.push_back({em.step, em.eval_loss, trainLoss});

    sayOverfitting(out, em, trainLoss);
    if (m_setup.regression || m_setup.num_labels < 2 || em.regression)
        return out;
    sayPlateau(out, em, trainLoss);
    const auto majority = majorityShare(em.confusion);
    sayConstantClassifier(out, em, majority);
    // one_class, below_baseline (+ from_scratch): said when their content changes, so not
    // again at every evaluation; quiet while constant_classifier says it all.
    if (!m_allConstant)
        for (CoachNote &n : learningNotes(em, majority, m_setup.from_scratch, m_setup.learning_rate, em.label_names))
            say(out, n, n.id == "one_class" ? n.text : n.id); // the predicted label is its content
    // small_eval_set: once, at the first evaluation.
    saySmallEvalSet(out, em);
    return out;
}

} // namespace wb
