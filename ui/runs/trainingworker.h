// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/engine/preparedrun.h"
#include "core/events/trainingobserver.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <functional>

namespace wb {

/// The function that performs a prepared run (core/engine/preparedrun.h): Trainer::execute,
/// or local workers, by default; tests substitute their own. Called on the worker thread;
/// reports progress through the observer, polls the token and returns the run's end. It
/// never reports the end itself: the worker emits finished() once with the returned value
/// (an observer.runFinished() call from it is ignored).
using RunFunction = std::function<RunFinished(const PreparedRun &, TrainingObserver &, const StopToken &)>;

/// Runs one training run on the controller's thread. It *is* the TrainingObserver: every hook
/// emits a copyable value struct, which reaches the GUI thread through queued connections.
/// Lives on TrainingController's QThread; never touch it from another thread except through
/// signals.
class TrainingWorker : public QObject, public TrainingObserver
{
    Q_OBJECT
public:
    TrainingWorker(const StopToken &stop, RunFunction run);

    void runStarted(const RunStarted &info) override;
    void stepCompleted(const StepMetrics &m) override;
    void evaluationCompleted(const EvalMetrics &m) override;
    void checkpointSaved(const CheckpointSaved &c) override;
    void logMessage(const std::string &line) override;
    void coachNote(const CoachNote &n) override;
    /// Ignored: run() emits finished() with the run function's result (one contract).
    void runFinished(const RunFinished &) override {}

public Q_SLOTS:
    /// Runs `run` to the end (synchronous on the worker thread), then emits finished() once.
    void run(const wb::PreparedRun &run);

Q_SIGNALS:
    void started(const wb::RunStarted &info);
    void stepReported(const wb::StepMetrics &m);
    void evaluationReported(const wb::EvalMetrics &m);
    void checkpointReported(const wb::CheckpointSaved &c);
    void logLine(const QString &line);
    void coachNoteReported(const wb::CoachNote &n);
    void finished(const wb::RunFinished &r);

private:
    const StopToken &m_stop;
    RunFunction m_run;
};

} // namespace wb

Q_DECLARE_METATYPE(wb::TrainingOptions)
Q_DECLARE_METATYPE(wb::PreparedRun)
Q_DECLARE_METATYPE(wb::RunStarted)
Q_DECLARE_METATYPE(wb::StepMetrics)
Q_DECLARE_METATYPE(wb::EvalMetrics)
Q_DECLARE_METATYPE(wb::CheckpointSaved)
Q_DECLARE_METATYPE(wb::RunFinished)
