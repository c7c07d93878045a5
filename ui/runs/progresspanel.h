// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"
#include "core/formats/runend.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QProgressBar;

namespace wb {

/// The progress row under the tabs: run status ("Training on cpu", "Completed", "Failed"),
/// a step bar with the time ("step 12 / 342 · 0:00:40 elapsed, ~0:02:40 left"; at the end
/// "took 0:05:12") and a detail line (epoch, loss, examples/s); under them
/// the coach's latest current note (core/advice/coach.h; hidden while there is none; its tooltip
/// lists the current notes: a withdrawn note leaves both). Object names: "runStatus", "progress", "coachNote". GUI thread only.
class ProgressPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProgressPanel(QWidget *parent = nullptr);

    /// A run is about to start with `totalSteps` steps (≤ 0: not known yet).
    void prepare(int64_t totalSteps);
    /// Forgets the time line's reference points (after Resume).
    void restartTiming();
    void setStatus(const QString &text);
    /// Keeps the status shown now (text, colour, tooltip) for restoreStatus(): a pre-flight check
    /// that starts no run gives back "Completed" or "Stopped at step S", not "Idle".
    void holdStatus();
    /// Shows the status kept by holdStatus() ("Idle" when none was kept).
    void restoreStatus();
    /// Back to the empty state ("no run yet"), as in a new project.
    void reset();
    /// Shows a run recorded on disk (recordedRunEnd): the bar at step end.last_step of
    /// end.total_steps (≤ 0: unknown), the status endStatusText(end), as the run said it when
    /// it ended in this window.
    void showRecordedRun(const RunEnd &end);
    /// After a run that ended as `end` (completed or stopped early): the model did not learn
    /// ("Completed — did not learn", "Stopped early at step 24, best at step 6 — did not
    /// learn"; `text` explains why, also the tooltip).
    void setLearningWarning(const QString &text, const RunEnd &end);
    /// The status for a run that ended as `end`, the same live and reopened: "Completed" for a
    /// run to its last step that keeps no best checkpoint, "Failed" for a failed one, else
    /// RunEndPhrase(end) ("Stopped early at step 24, best at step 6", "Completed at step 16,
    /// best at step 8", "Stopped at step 8"); "" for Kind::None. Pure.
    static QString endStatusText(const RunEnd &end);

    /// The coach's note `n` (a withdrawal removes the note of its id, core/advice/coach.h):
    /// the line under the bar shows the latest current note, its tooltip all of them.
    void showCoachNote(const CoachNote &n);
    /// The coach's current notes of a run recorded on disk (coachNotesOf), shown as above.
    void setCoachNotes(const std::vector<CoachNote> &current);
    /// The coach's current notes of the run shown, in the order said (emptied by prepare() and reset()).
    const std::vector<CoachNote> &coachNotes() const { return m_notes; }
    /// The note line's text ("" while hidden).
    QString coachNoteText() const;

    /// The run has started: "Training on <device>", or with `workers` > 0 (local workers)
    /// "Training on N workers (<device>)"; the elapsed time counts from info.wall_time.
    void runStarted(const RunStarted &info, int workers = 0);
    /// The time in the bar: "0:00:40 elapsed", and with a measured rate ("0:02:40 left", with
    /// `rough` "~0:02:40 left") from `stepsLeft` / `stepsPerSecond`. Seconds; a rate ≤ 0 or NaN
    /// leaves the remaining time out. The panel calls an estimate rough while its rate rests on
    /// under 10 % of the run's steps or under 30 s. Pure.
    static QString timeText(double elapsedSeconds, int64_t stepsLeft, double stepsPerSecond, bool rough = false);
    /// The bar's text as shown ("step 12 / 342 · 0:00:40 elapsed, ~0:02:40 left").
    QString progressText() const;
    /// The status's text ("Training on cpu", "Completed", …).
    QString statusText() const;
    /// The detail line's text (epoch, loss, examples/s; its tooltip adds the time).
    QString detailText() const;
    void stepCompleted(const StepMetrics &m);
    void stopRequested();
    /// The status endStatusText(runEndOf(r, steps of the bar)): "Completed", "Stopped early at
    /// step S, best at step B", "Stopped at step S", "Failed"; the detail says which
    /// checkpoint the views use, or how to go on.
    void finished(const RunFinished &r);

private:
    QProgressBar *m_progress = nullptr;
    QLabel *m_detail = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_note = nullptr;
    std::vector<CoachNote> m_notes; ///< the coach's current set
    void clearCoachNotes();
    void showCurrentNotes();
    struct HeldStatus
    {
        QString text, styleSheet, toolTip;
    };
    std::optional<HeldStatus> m_heldStatus;
    double m_startWall = 0; ///< RunStarted::wall_time of this session's run (0: unknown)
    double m_elapsed = -1;  ///< seconds of the run at its last step (−1: none seen)
    double m_firstWall = 0;
    int64_t m_firstStep = 0;
};

} // namespace wb
