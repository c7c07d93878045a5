// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/runs/trainingworker.h"

#include <QObject>
#include <QThread>

namespace wb {

/// Runs training off the GUI thread (docs/architecture.md, "Threading"). Lives in the GUI thread; owns a QThread
/// and a TrainingWorker on it. Start runs a prepared run (prepareRun's result: the caller
/// checked it, off the GUI thread); Stop asks the Trainer to finish the current step, write a
/// checkpoint and end as Cancelled; Resume starts the last prepared run again (the Trainer
/// continues from the latest checkpoint in model_dir; the window prepares it anew first).
/// All signals arrive on the GUI thread. Destroying the controller stops a running run and
/// waits for it.
class TrainingController : public QObject
{
    Q_OBJECT
public:
    explicit TrainingController(QObject *parent = nullptr);
    ~TrainingController() override;

    /// Replaces the run function (default: wb::runPlanned, core/launch/runplanned.h: in this
    /// process, or the window's local workers, windowLocalWorkers, as the plan says). Only
    /// while idle; for tests.
    void setRunFunction(RunFunction run);

    bool isRunning() const { return m_running; }
    bool isStopRequested() const { return m_stop.stopRequested(); }
    /// Returns the spec of the current or last run.
    const TrainingOptions &lastSpec() const { return m_lastRun.options; }
    /// Returns the purpose of the current or last run (Train, Pretrain, …).
    RunPurpose lastPurpose() const { return m_lastRun.purpose; }
    /// Returns true when the last run ended cancelled and can be resumed.
    bool canResume() const { return !m_running && m_lastStatus == RunStatus::Cancelled; }

public Q_SLOTS:
    /// Starts a prepared run; returns false (and does nothing) while one is running.
    bool start(const wb::PreparedRun &run);
    /// Asks the running run to stop after its current step (non-blocking).
    void requestStop();
    /// Starts the last prepared run again; the Trainer resumes from model_dir's latest checkpoint.
    bool resume();

Q_SIGNALS:
    void runningChanged(bool running);
    void runStarted(const wb::RunStarted &info);
    void stepCompleted(const wb::StepMetrics &m);
    void evaluationCompleted(const wb::EvalMetrics &m);
    void checkpointSaved(const wb::CheckpointSaved &c);
    void logMessage(const QString &line);
    /// The coach said something (core/advice/coach.h), once per note.
    void coachNote(const wb::CoachNote &n);
    void finished(const wb::RunFinished &r);
    /// Internal: hands a prepared run to the worker thread.
    void runRequested(const wb::PreparedRun &run);

private:
    void handleFinished(const wb::RunFinished &r);
    void createWorker(RunFunction run);

    QThread m_thread;
    StopToken m_stop;
    TrainingWorker *m_worker = nullptr;
    PreparedRun m_lastRun;
    RunStatus m_lastStatus = RunStatus::Completed;
    bool m_running = false;
};

} // namespace wb
