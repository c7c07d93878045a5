// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/progresspanel.h"

#include "core/advice/coach.h"

#include <QHBoxLayout>
#include <QVBoxLayout>
#include <QLabel>
#include <QProgressBar>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

namespace {

QString formatDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return QStringLiteral("–");
    const qint64 s = qint64(std::llround(seconds));
    return QStringLiteral("%1:%2:%3").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
}

/// The step part of the bar's text (QProgressBar replaces %v and %m).
QString stepFormat() { return ProgressPanel::tr("step %v / %m"); }

/// A remaining time measured over fewer steps than this share of the run, or over less
/// wall time than kRoughSeconds, is rough: it is said with "~".
constexpr double kRoughShare = 0.1;
constexpr double kRoughSeconds = 30;

} // namespace

ProgressPanel::ProgressPanel(QWidget *parent) : QWidget(parent)
{
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("no run yet")); // "step %v / %m" once a run knows its steps
    m_detail = new QLabel(tr("Not started"));
    m_detail->setObjectName(QStringLiteral("progressDetail"));
    m_status = new QLabel(tr("Idle"));
    m_status->setObjectName(QStringLiteral("runStatus"));
    // Long details must not widen the window (1024×700 screens): they shrink, the tooltip keeps them.
    m_detail->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_detail->setMinimumWidth(120);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("coachNote"));
    m_note->setWordWrap(true);
    m_note->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_note->hide();
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    auto *row = new QHBoxLayout;
    row->addWidget(m_status);
    row->addWidget(m_progress, 1);
    row->addWidget(m_detail);
    column->addLayout(row);
    column->addWidget(m_note);
}

void ProgressPanel::showCoachNote(const CoachNote &n)
{
    applyCoachNote(m_notes, n); // a current set: a withdrawn note leaves it
    showCurrentNotes();
}

void ProgressPanel::setCoachNotes(const std::vector<CoachNote> &current)
{
    m_notes = current;
    showCurrentNotes();
}

void ProgressPanel::showCurrentNotes()
{
    if (m_notes.empty()) {
        m_note->clear();
        m_note->setToolTip(QString());
        m_note->hide();
        return;
    }
    const CoachNote &n = m_notes.back();
    const QString colour = n.severity == "warning" ? QStringLiteral("#a06000") : QStringLiteral("#205080");
    m_note->setText(QStringLiteral("<span style='color:%1'>").arg(colour) + tr("Coach, step %1:").arg(n.step)
                    + QStringLiteral("</span> ") + QString::fromStdString(n.text).toHtmlEscaped());
    QStringList all;
    for (const CoachNote &note : m_notes)
        all << tr("step %1: %2").arg(note.step).arg(QString::fromStdString(note.text));
    m_note->setToolTip(all.join(QLatin1Char('\n')));
    m_note->show();
}

QString ProgressPanel::coachNoteText() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

void ProgressPanel::clearCoachNotes()
{
    m_notes.clear();
    m_note->clear();
    m_note->setToolTip(QString());
    m_note->hide();
}

void ProgressPanel::prepare(int64_t totalSteps)
{
    m_heldStatus.reset();
    restartTiming();
    clearCoachNotes();
    if (totalSteps > 0) {
        m_progress->setRange(0, int(totalSteps));
        m_progress->setValue(0);
        m_progress->setFormat(stepFormat());
    }
    setStatus(tr("Starting…"));
}

void ProgressPanel::reset()
{
    m_heldStatus.reset();
    restartTiming();
    clearCoachNotes();
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("no run yet"));
    m_detail->setText(tr("Not started"));
    m_detail->setToolTip(QString());
    setStatus(tr("Idle"));
}

QString ProgressPanel::endStatusText(const RunEnd &end)
{
    switch (end.kind) {
    case RunEnd::Kind::None:
        return QString();
    case RunEnd::Kind::Failed:
        return tr("Failed");
    case RunEnd::Kind::Completed:
        if (end.best_step < 0)
            return tr("Completed");
        break;
    case RunEnd::Kind::StoppedEarly:
    case RunEnd::Kind::Stopped:
        break;
    }
    return QString::fromStdString(RunEndPhrase(end)); // core/formats/runend.h: one phrase in every view
}

namespace {

/// The status's colour for a run that ended as `end`.
QString endStyle(const RunEnd &end)
{
    switch (end.kind) {
    case RunEnd::Kind::Completed:
    case RunEnd::Kind::StoppedEarly:
        return QStringLiteral("color:#207020;font-weight:bold");
    case RunEnd::Kind::Stopped:
        return QStringLiteral("color:#a06000;font-weight:bold");
    case RunEnd::Kind::Failed:
        return QStringLiteral("color:#b00000;font-weight:bold");
    case RunEnd::Kind::None:
        break;
    }
    return QString();
}

/// The detail beside the bar for a run kept with its best checkpoint at `bestStep` (≥ 0).
QString bestKeptDetail(int64_t bestStep)
{
    return ProgressPanel::tr("best model kept at step %1: Evaluation, Try it and export use it").arg(bestStep);
}

} // namespace

void ProgressPanel::showRecordedRun(const RunEnd &end)
{
    m_heldStatus.reset();
    restartTiming();
    const int64_t step = end.last_step;
    const int64_t total = end.total_steps > 0 ? end.total_steps : step;
    m_progress->setRange(0, int(std::max<int64_t>(total, 1)));
    m_progress->setValue(int(std::min(step, total)));
    m_progress->setFormat(stepFormat());
    m_status->setText(endStatusText(end));
    m_status->setStyleSheet(endStyle(end));
    m_status->setToolTip(QString());
    if (end.best_step >= 0 && end.kind != RunEnd::Kind::Stopped)
        m_detail->setText(bestKeptDetail(end.best_step));
    else if (end.kind == RunEnd::Kind::Completed || end.kind == RunEnd::Kind::StoppedEarly)
        m_detail->setText(end.total_steps > 0 ? tr("recorded run: %1 / %2 steps").arg(step).arg(end.total_steps)
                                              : tr("recorded run: %1 steps").arg(step));
    else
        m_detail->setText(tr("recorded run; Train offers to continue it"));
    m_detail->setToolTip(QString());
}

void ProgressPanel::setLearningWarning(const QString &text, const RunEnd &end)
{
    m_status->setText(tr("%1 — did not learn").arg(endStatusText(end)));
    m_status->setStyleSheet(QStringLiteral("color:#b06000;font-weight:bold"));
    m_status->setToolTip(text);
    m_detail->setText(tr("see the Evaluation tab"));
    m_detail->setToolTip(text);
}

void ProgressPanel::restartTiming()
{
    m_elapsed = -1;
    m_startWall = 0;
    m_firstWall = 0;
    m_firstStep = 0;
}

void ProgressPanel::setStatus(const QString &text)
{
    m_status->setText(text);
    m_status->setToolTip(QString());
    m_status->setStyleSheet(QString());
}

void ProgressPanel::holdStatus()
{
    if (m_heldStatus) // the check after an answer to the used-model_dir question: the first one counts
        return;
    m_heldStatus = HeldStatus{m_status->text(), m_status->styleSheet(), m_status->toolTip()};
}

void ProgressPanel::restoreStatus()
{
    const HeldStatus held = m_heldStatus.value_or(HeldStatus{tr("Idle"), QString(), QString()});
    m_heldStatus.reset();
    m_status->setText(held.text);
    m_status->setStyleSheet(held.styleSheet);
    m_status->setToolTip(held.toolTip);
}

void ProgressPanel::runStarted(const RunStarted &info, int workers)
{
    m_heldStatus.reset();
    m_startWall = info.wall_time;
    m_progress->setRange(0, int(info.total_steps));
    m_progress->setValue(int(info.start_step));
    m_progress->setFormat(stepFormat());
    const QString device = QString::fromStdString(info.device);
    setStatus(workers > 0 ? (workers == 1 ? tr("Training on 1 worker (%1)").arg(device) : tr("Training on %1 workers (%2)").arg(workers).arg(device)) : tr("Training on %1").arg(device));
}

QString ProgressPanel::timeText(double elapsedSeconds, int64_t stepsLeft, double stepsPerSecond, bool rough)
{
    QString text = tr("%1 elapsed").arg(formatDuration(std::max(0.0, elapsedSeconds)));
    if (std::isfinite(stepsPerSecond) && stepsPerSecond > 0) {
        const QString left = formatDuration(double(std::max<int64_t>(stepsLeft, 0)) / stepsPerSecond);
        text += rough ? tr(", ~%1 left").arg(left) : tr(", %1 left").arg(left);
    }
    return text;
}

QString ProgressPanel::progressText() const { return m_progress->text(); }

QString ProgressPanel::statusText() const { return m_status->text(); }

QString ProgressPanel::detailText() const { return m_detail->text(); }

void ProgressPanel::stepCompleted(const StepMetrics &m)
{
    if (m.total_steps > 0 && m_progress->maximum() != int(m.total_steps))
        m_progress->setMaximum(int(m.total_steps));
    m_progress->setValue(int(m.step));
    if (m_firstWall == 0) {
        m_firstWall = m.wall_time;
        m_firstStep = m.step;
    }
    // The rate over the wall time since the first step this panel saw: the evaluations and
    // checkpoints between those steps are in it, so the time left includes theirs.
    double stepsPerSecond = std::numeric_limits<double>::quiet_NaN();
    if (m.step > m_firstStep && m.wall_time > m_firstWall)
        stepsPerSecond = double(m.step - m_firstStep) / (m.wall_time - m_firstWall);
    const double since = m_startWall > 0 && m_startWall <= m.wall_time ? m_startWall : m_firstWall;
    m_elapsed = m.wall_time - since;
    // Rough while the rate rests on a few steps or seconds (the first evaluation not yet in it).
    const bool rough = double(m.step - m_firstStep) < kRoughShare * double(std::max<int64_t>(m.total_steps, 1))
                       || m.wall_time - m_firstWall < kRoughSeconds;
    const QString time = timeText(m_elapsed, m.total_steps - m.step, stepsPerSecond, rough);
    // The time is in the bar, which is never cut (the detail shrinks on a narrow window).
    m_progress->setFormat(stepFormat() + QStringLiteral(" · ") + time);
    m_progress->setToolTip(std::isfinite(stepsPerSecond)
                               ? tr("%1 steps/s since step %2, evaluations and checkpoints included%3")
                                     .arg(stepsPerSecond, 0, 'g', 3).arg(m_firstStep)
                                     .arg(rough ? tr("; ~: a rough estimate, measured over few steps so far") : QString())
                               : QString());
    m_detail->setText(tr("epoch %1 · loss %2 · %3 examples/s")
                          .arg(m.epoch, 0, 'f', 2)
                          .arg(m.loss, 0, 'f', 4)
                          .arg(m.examples_per_second, 0, 'f', 0));
    m_detail->setToolTip(m_detail->text() + QStringLiteral(" · ") + time);
}

void ProgressPanel::stopRequested() { m_status->setText(tr("Stopping after this step…")); }

void ProgressPanel::finished(const RunFinished &r)
{
    m_heldStatus.reset();
    // No stale time left: the bar says how long the run took.
    m_progress->setToolTip(QString());
    m_progress->setFormat(m_elapsed >= 0 ? stepFormat() + QStringLiteral(" · ") + tr("took %1").arg(formatDuration(m_elapsed))
                                         : stepFormat());
    // The same words as the run reopened later (showRecordedRun) and the status bar and Log.
    const RunEnd end = runEndOf(r, m_progress->maximum() > 1 ? int64_t(m_progress->maximum()) : 0);
    m_status->setText(endStatusText(end));
    m_status->setStyleSheet(endStyle(end));
    m_status->setToolTip(QString());
    switch (r.status) {
    case RunStatus::Completed:
        if (end.best_step >= 0)
            m_detail->setText(bestKeptDetail(end.best_step));
        break;
    case RunStatus::Cancelled:
        m_detail->setText(tr("stopped; Resume continues from the checkpoint"));
        break;
    case RunStatus::Failed:
        // No stale ETA: say where the run ended instead.
        m_detail->setText(r.last_step > 0 ? tr("failed at step %1").arg(r.last_step) : tr("failed before the first step"));
        break;
    }
}

} // namespace wb
