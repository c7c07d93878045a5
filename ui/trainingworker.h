// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <functional>

namespace wb {

/// The function that performs a run: Trainer::run by default; tests substitute their own.
/// Called on the worker thread; must report through the observer and poll the token.
using RunFunction = std::function<RunFinished(const TrainingOptions &, TrainingObserver &, const StopToken &)>;

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
    void runFinished(const RunFinished &r) override;

public Q_SLOTS:
    /// Runs `spec` to the end (synchronous on the worker thread).
    void run(const wb::TrainingOptions &spec);

Q_SIGNALS:
    void started(const wb::RunStarted &info);
    void stepReported(const wb::StepMetrics &m);
    void evaluationReported(const wb::EvalMetrics &m);
    void checkpointReported(const wb::CheckpointSaved &c);
    void logLine(const QString &line);
    void finished(const wb::RunFinished &r);

private:
    const StopToken &m_stop;
    RunFunction m_run;
    bool m_finishedSent = false;
};

} // namespace wb

Q_DECLARE_METATYPE(wb::TrainingOptions)
Q_DECLARE_METATYPE(wb::RunStarted)
Q_DECLARE_METATYPE(wb::StepMetrics)
Q_DECLARE_METATYPE(wb::EvalMetrics)
Q_DECLARE_METATYPE(wb::CheckpointSaved)
Q_DECLARE_METATYPE(wb::RunFinished)
