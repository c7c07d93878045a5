// SPDX-License-Identifier: Apache-2.0
// The Label tab: what is shown next (planNextTexts), the background cycles (LabelCycle through
// runBackgroundJob) and the curve they add to.
#include "ui/label/labeltab.h"

#include "core/learn/labelcycle.h"
#include "core/util/error.h"
#include "ui/common/qtext.h"
#include "ui/label/labelcurveplot.h"

#include <QLocale>
#include <QProgressBar>

#include <cmath>
#include <cstdio>
#include <set>

namespace wb {

/// What a cycle's job gives back: its result and the LabelCycle (made by the first job: it
/// tokenizes the pool) for the next one.
struct LabelTab::CycleDone
{
    std::shared_ptr<CycleResult> result;
    std::shared_ptr<LabelCycle> cycle;
};

int64_t LabelTab::poolIndexOf(const PoolLabel &label) const
{
    PoolText t;
    t.text = label.text;
    t.file = label.file;
    t.line = label.line;
    const auto it = m_keyIndex.find(poolTextKey(t));
    return it == m_keyIndex.end() ? -1 : it->second;
}

int64_t LabelTab::heldOutLabels() const
{
    int64_t n = 0;
    for (const PoolLabel &label : labels())
        if (const int64_t i = poolIndexOf(label); i >= 0 && m_heldOut[size_t(i)])
            ++n;
    return n;
}

void LabelTab::planQueue()
{
    // The text shown and the skipped ones are not planned again.
    std::vector<bool> taken(m_labelled.size());
    for (size_t i = 0; i < taken.size(); ++i)
        taken[i] = m_labelled[i] || m_skipped[i] || int64_t(i) == m_current;
    const int64_t count = std::max<int64_t>(m_settings.batch_size, 10);
    std::vector<int64_t> next;
    try {
        next = planNextTexts(m_settings, m_scores, taken, m_heldOut, m_shown, count);
    } catch (...) {
        setStatus(tr("Cannot choose the next texts: %1").arg(currentErrorReport().logLine()));
    }
    m_queue.assign(next.begin(), next.end());
}

void LabelTab::showNext()
{
    while (!m_queue.empty() && (m_labelled[size_t(m_queue.front())] || m_skipped[size_t(m_queue.front())]))
        m_queue.pop_front();
    if (m_queue.empty()) {
        m_current = -1;
        planQueue();
    }
    m_current = m_queue.empty() ? -1 : m_queue.front();
    if (!m_queue.empty()) {
        m_queue.pop_front();
        ++m_shown;
    }
    showCurrent();
}

void LabelTab::maybeStartCycle()
{
    if (!m_loaded || m_cycleJob.isRunning() || labels().empty())
        return;
    const int64_t n = int64_t(labels().size());
    // The first cycle of an opened session starts at once (the suggestions of the labels so far);
    // then one after every k labels since the last one started.
    if (m_labelsAtCycleStart >= 0 && n - m_labelsAtCycleStart < m_settings.batch_size)
        return;
    if (m_labelsAtCycleStart < 0 && m_scores.n == 0 && n < m_settings.batch_size && !m_cycle)
        return;
    std::set<std::string> kinds;
    for (const PoolLabel &label : labels())
        if (const int64_t i = poolIndexOf(label); i >= 0 && !m_heldOut[size_t(i)])
            kinds.insert(label.label);
    if (kinds.size() < 2) {
        setStatus(tr("The model needs labels of two kinds among the texts not kept aside to learn: "
                     "%1 so far.").arg(counted(qlonglong(kinds.size()), tr("kind"), tr("kinds"))));
        return;
    }
    startCycle();
}

void LabelTab::startCycle()
{
    std::vector<CycleText> train, eval;
    for (const PoolLabel &label : labels()) {
        const int64_t i = poolIndexOf(label);
        (i >= 0 && m_heldOut[size_t(i)] ? eval : train).push_back({label.text, label.label});
    }
    if (eval.size() < 2)
        eval.clear(); // no point on the curve from fewer than two texts
    const qlonglong n = qlonglong(labels().size());
    m_labelsAtCycleStart = n;
    m_cycleLabels = n;
    m_cycleTrain = qlonglong(train.size());
    LabelCycleSettings cs;
    cs.bert_config_file = m_settings.bert_config_file;
    cs.init_checkpoint = m_settings.init_checkpoint;
    cs.vocab_file = m_settings.vocab_file;
    cs.do_lower_case = m_settings.do_lower_case;
    cs.max_seq_length = m_settings.max_seq_length;
    cs.label_names = m_settings.label_names;
    cs.seed = m_settings.seed;
    char name[32];
    std::snprintf(name, sizeof name, "/labels-%05lld", n);
    const std::string dir = labelSessionCyclesDir(m_dir.toStdString()) + name;
    const quint64 generation = m_generation;
    m_progress->setValue(0);
    m_progress->show();
    cycleProgress(0, QStringLiteral("preparing"));
    m_cycleJob = runBackgroundJob<CycleDone>(
        this,
        [cycle = m_cycle, cs, pool = m_poolTexts, dir, train, eval](const JobControl &job) {
            CycleDone done;
            done.cycle = cycle ? cycle : std::make_shared<LabelCycle>(cs, *pool);
            const CycleProgress progress = [&job](const std::string &stage, double fraction) {
                const double base = stage == "preparing" ? 0 : stage == "training" ? 0.1 : 0.8;
                const double span = stage == "preparing" ? 0.1 : stage == "training" ? 0.7 : 0.2;
                job.setProgress(int(kJobProgressMax * (base + span * std::clamp(fraction, 0.0, 1.0))), q(stage));
            };
            done.result = std::make_shared<CycleResult>(done.cycle->run(dir, train, eval, *job.stopToken(), progress));
            return done;
        },
        [this, generation, n](JobOutcome<CycleDone> outcome) {
            if (generation == m_generation)
                cycleEnded(outcome, n);
            else
                maybeStartCycle(); // the cycle of a session closed since: the one open may be due
        },
        [this](int value, const QString &stage) { cycleProgress(value, stage); });
    Q_EMIT cycleStarted(n);
}

void LabelTab::cycleProgress(int value, const QString &stage)
{
    m_progress->setValue(value);
    const QString pool = QLocale().toString(qlonglong(m_pool.size()));
    if (stage == QLatin1String("scoring"))
        setStatus(tr("Trained on %1… scoring %2 texts").arg(counted(m_cycleTrain), pool));
    else if (stage == QLatin1String("training"))
        setStatus(tr("Training on %1… then scoring %2 texts").arg(counted(m_cycleTrain), pool));
    else
        setStatus(tr("Preparing %1 for the next model…").arg(counted(m_cycleLabels)));
}

void LabelTab::cycleEnded(JobOutcome<CycleDone> &outcome, qlonglong labels)
{
    m_progress->hide();
    if (!outcome.ok()) {
        setStatus(outcome.cancelled ? tr("The model's training was stopped.")
                                    : tr("The model could not be trained on %1: %2").arg(counted(labels), outcome.error.logLine()));
        Q_EMIT cycleFinished(labels, false);
        maybeStartCycle();
        return;
    }
    m_cycle = outcome.value->cycle;
    const CycleResult &r = *outcome.value->result;
    m_scores = r.scores;
    ++m_cyclesFinished;
    addCurvePoint(r, labels);
    // The text shown stays (the user may be reading it); its suggestion and what follows change.
    planQueue();
    showCurrent();
    const double seconds = r.seconds_prepare + r.seconds_train + r.seconds_score;
    QString done = tr("Retrained on %1 in %2 s").arg(counted(r.train_texts), QLocale().toString(seconds, 'f', 1));
    if (std::isfinite(r.eval_accuracy))
        done += tr(": %1 % right on the %2 texts kept aside").arg(qRound(100 * r.eval_accuracy)).arg(r.eval_texts);
    setStatus(done + QLatin1Char('.'));
    Q_EMIT cycleFinished(labels, true);
    maybeStartCycle(); // labels given meanwhile may already make the next k
}

void LabelTab::addCurvePoint(const CycleResult &r, qlonglong labels)
{
    if (r.eval_texts < 2 || !std::isfinite(r.eval_accuracy)) {
        updateCurve();
        return;
    }
    CurvePoint p;
    p.labels = labels;
    p.train_labels = r.train_texts;
    p.eval_examples = r.eval_texts;
    p.eval_source = "held_out";
    p.accuracy = r.eval_accuracy;
    p.bag_of_words_accuracy = r.bag_of_words_accuracy;
    p.strategy = m_settings.strategy;
    p.seed = m_settings.seed;
    p.seconds = r.seconds_prepare + r.seconds_train + r.seconds_score;
    p.model_dir = r.model_dir;
    // A session reopened retrains on the labels it had: the same point is not added twice.
    const bool again = !m_curve.empty() && m_curve.back().labels == p.labels && m_curve.back().train_labels == p.train_labels
                       && m_curve.back().strategy == p.strategy;
    if (!again) {
        try {
            appendCurvePoint(labelSessionCurvePath(m_dir.toStdString()), p);
            m_curve.push_back(p);
        } catch (...) {
            setStatus(tr("The curve's point was not saved: %1").arg(currentErrorReport().logLine()));
        }
    }
    updateCurve();
}

void LabelTab::updateCurve()
{
    m_plot->setCurve(m_curve, m_settings.strategy, heldOutLabels(), m_settings.held_out_every);
}

} // namespace wb
