// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <QWidget>

#include <vector>

class QLabel;
class QProgressBar;

namespace wb {

/// The progress row under the tabs: run status ("Training on cpu", "Completed", "Failed"),
/// a step bar ("step 12 / 342") and a detail line (epoch, loss, examples/s, ETA); under them
/// the coach's latest note (core/train/coach.h; hidden until there is one; its tooltip lists
/// every note of the run). Object names: "runStatus", "progress", "coachNote". GUI thread only.
class ProgressPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProgressPanel(QWidget *parent = nullptr);

    /// A run is about to start with `totalSteps` steps (≤ 0: not known yet).
    void prepare(int64_t totalSteps);
    /// Forgets the ETA's reference point (after Resume).
    void restartTiming();
    void setStatus(const QString &text);
    /// Back to the empty state ("no run yet"), as in a new project.
    void reset();
    /// Shows a run recorded on disk: step `step` of `totalSteps` (≤ 0: unknown), "Completed"
    /// when it reached the end, else "Stopped at step S".
    void showRecordedRun(int64_t step, int64_t totalSteps);
    /// After "Completed": the model did not learn (`text` explains why; also the tooltip).
    void setLearningWarning(const QString &text);

    /// The coach's note `n`: shown in the line under the bar, kept in coachNotes().
    void showCoachNote(const CoachNote &n);
    /// The notes of the current run, in order (emptied by prepare() and reset()).
    const std::vector<CoachNote> &coachNotes() const { return m_notes; }
    /// The note line's text ("" while hidden).
    QString coachNoteText() const;

    void runStarted(const RunStarted &info);
    void stepCompleted(const StepMetrics &m);
    void stopRequested();
    /// "Completed", and for an early stop (early_stopping_patience) the detail "stopped early
    /// at step S; best at step B"; "Stopped at step S"; "Failed".
    void finished(const RunFinished &r);
    /// "stopped early at step S; best at step B" for a run that stopped early, else "".
    static QString earlyStopText(const RunFinished &r);

private:
    QProgressBar *m_progress = nullptr;
    QLabel *m_detail = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_note = nullptr;
    std::vector<CoachNote> m_notes;
    void clearCoachNotes();
    double m_firstWall = 0;
    int64_t m_firstStep = 0;
};

} // namespace wb
