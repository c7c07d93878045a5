// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"
#include "core/engine/preparedrun.h"
#include "ui/common/backgroundjob.h"

#include <QObject>

class QDialog;
class QMessageBox;
class QStatusBar;
class QWidget;

namespace wb {

class ConfigurationForm;
class ProgressPanel;
class TrainingController;
struct UsedModelDir;

/// The window's run control (object name "runSession"): Train runs the pre-flight check
/// (prepareRun, RunPurpose::Train, or RunPurpose::Pretrain when the form's task is "Pretrain on
/// text", after downloading a "Start from" pretrained model) as a
/// background job and asks first when model_dir already holds a run; a run that passes
/// starts on the TrainingController (its TrainingWorker thread; local-cluster runs as local
/// workers, planned by prepareRun); Stop asks for a checkpoint and an end; Resume checks the
/// last run again and continues it. It owns what is said about the run: the progress line
/// (ProgressPanel), the status bar's run messages, the Log's run lines (logLine), the
/// validation dialog, the run error dialog and the used-model_dir question.
///
/// The window wires it: it gives the form (the options to train, the fields to highlight, a new
/// model_dir), the progress line and the status bar, draws the curves from controller()'s
/// signals, resets its views on runStarting() and lists the runs on runFinished(). Dialogs
/// open window-modal with open() on `window` and stay members, so nothing blocks and tests read
/// them. GUI thread only; destroying the session waits for a pre-flight check in flight (it
/// captures nothing of the session) and stops a running run (TrainingController).
class RunSession : public QObject
{
    Q_OBJECT
public:
    RunSession(ConfigurationForm *form, ProgressPanel *progress, QStatusBar *statusBar, QWidget *window);
    ~RunSession() override;

    TrainingController *controller() const { return m_controller; }
    bool isRunning() const;
    /// Whether the pre-flight check of the last train() or resume() is still running.
    bool isChecking() const { return m_checking; }
    /// Train is possible: no run and no check going.
    bool canTrain() const;
    /// Stop is possible: a run is going and no stop was asked yet.
    bool canStop() const;
    /// Resume is possible: the form's model_dir holds a run that can be continued (stopped in
    /// this session, or found there by setResumableModelDir, e.g. after a restart) and no run or
    /// check is going.
    bool canResume() const;
    /// The run recorded in `modelDir` can be continued from its latest checkpoint ("": none
    /// known). The window sets it when it shows a model_dir's run (inspectModelDir).
    void setResumableModelDir(const QString &modelDir);
    /// The findings of the last pre-flight check.
    const Diagnostics &lastValidation() const { return m_lastValidation; }
    /// The validation error dialog of the last failed Train press (nullptr before).
    QMessageBox *validationDialog() const { return m_validationBox; }
    /// The dialog of the last failed run (nullptr before).
    QMessageBox *runErrorDialog() const { return m_runErrorBox; }
    /// The question Train asks when model_dir already holds a run: Continue it / Start a new
    /// run (object names "continueRun", "startNewRun", "cancelRun"; the new folder in the
    /// line edit "newModelDir"). nullptr before it was first asked.
    QDialog *usedModelDirDialog() const { return m_usedDirDialog; }
    /// The window closes when the run has ended: a failed run opens no dialog (its reason is in
    /// the Log and the progress line).
    void setClosing(bool closing) { m_closing = closing; }

public Q_SLOTS:
    /// Starts the pre-flight check (validation, data scan, CUDA, port) of the form's options
    /// on a background thread; Train is disabled meanwhile. When it passes a run starts, else
    /// every problem is shown in the validation dialog; preflightFinished() says which.
    /// Returns false (and does nothing) while a run or a check is already going.
    bool train();
    /// Asks the running run to finish its step, write a checkpoint and end (non-blocking).
    void stop();
    /// Checks the stopped run again and continues it from its latest checkpoint; false (and
    /// nothing) when there is none or a check is going.
    bool resume();
    /// Starts the pre-flight check of `o` (not the form's options) for `purpose`, as Train does,
    /// but without the used-model_dir question: a run already in o.model_dir is continued from
    /// its latest checkpoint. preflightFinished() and, when a run started, runFinished() follow.
    /// For RunQueue (ui/window/runqueue.h). Returns false (and does nothing) while a run or a
    /// check is going.
    bool trainOptions(const TrainingOptions &o, RunPurpose purpose);

Q_SIGNALS:
    /// Running, checking or stop-requested changed (the window enables its actions).
    void stateChanged();
    /// A line for the Log.
    void logLine(const QString &line);
    /// The coach's current notes changed (ProgressPanel::coachNotes(); core/advice/coach.h).
    void coachNotesChanged();
    /// A new run (not a resumed one) passed its check and starts now: the views start empty.
    void runStarting(const wb::PreparedRun &prepared);
    /// The run has ended; the session has shown its end (progress line, Log, dialog).
    void runFinished(const wb::RunFinished &r);
    /// The pre-flight check started by train() has ended; `started`: a run was started.
    void preflightFinished(bool started);
    /// Train found a run in model_dir and asks what to do (usedModelDirDialog() is open);
    /// preflightFinished() follows the answer.
    void modelDirQuestionAsked();

private:
    /// The pre-flight check; with `askAboutUsedDir` a run in model_dir is asked about first
    /// (askAboutUsedModelDir) instead of being continued silently.
    void startPreflight(const TrainingOptions &o, bool askAboutUsedDir);
    void startValidatedRun(const JobOutcome<PreparedRun> &outcome);
    /// Records the run's configuration beside it and starts it as a new run.
    void startNewRun(const PreparedRun &prepared);
    void askAboutUsedModelDir(const UsedModelDir &u);
    QDialog *createUsedModelDirDialog();
    void showValidationErrors(const Diagnostics &diag);
    void logValidationFailure(const Diagnostics &diag);
    void showRunError(const RunFinished &r);
    void reportError(const QString &title, const ErrorReport &error);
    void showStatus(const QString &text, int timeoutMs = 0);

    void handleRunStarted(const RunStarted &info);
    void handleCheckpoint(const CheckpointSaved &c);
    void handleFinished(const RunFinished &r);

    ConfigurationForm *m_form;
    ProgressPanel *m_progress;
    QStatusBar *m_statusBar;
    QWidget *m_window;
    TrainingController *m_controller;
    JobHandle m_preflight;
    QMessageBox *m_validationBox = nullptr;
    QMessageBox *m_runErrorBox = nullptr;
    QDialog *m_usedDirDialog = nullptr;
    Diagnostics m_lastValidation;
    bool m_checking = false;
    bool m_resuming = false; ///< the pre-flight check in progress is for Resume
    RunPurpose m_purpose = RunPurpose::Train; ///< of the check in progress (the form's task at Train)
    bool m_closing = false;
    int m_workers = 0; ///< local workers of the run started last (0: in this process)
    QString m_resumableDir; ///< a model_dir whose run Resume continues (setResumableModelDir, a stopped run)
};

} // namespace wb
