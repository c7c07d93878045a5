// SPDX-License-Identifier: Apache-2.0
#include "ui/trainingworker.h"

#include <QThread>

#include <exception>

namespace wb {

TrainingWorker::TrainingWorker(const StopToken &stop, RunFunction run) : m_stop(stop), m_run(std::move(run)) {}

void TrainingWorker::runStarted(const RunStarted &info) { Q_EMIT started(info); }
void TrainingWorker::stepCompleted(const StepMetrics &m) { Q_EMIT stepReported(m); }
void TrainingWorker::evaluationCompleted(const EvalMetrics &m) { Q_EMIT evaluationReported(m); }
void TrainingWorker::checkpointSaved(const CheckpointSaved &c) { Q_EMIT checkpointReported(c); }
void TrainingWorker::logMessage(const std::string &line) { Q_EMIT logLine(QString::fromStdString(line)); }

void TrainingWorker::runFinished(const RunFinished &r)
{
    m_finishedSent = true;
    Q_EMIT finished(r);
}

void TrainingWorker::run(const TrainingOptions &spec)
{
    Q_ASSERT(QThread::currentThread() == thread());
    m_finishedSent = false;
    RunFinished result;
    try {
        result = m_run(spec, *this, m_stop);
    } catch (const std::exception &e) {
        // The Trainer promises not to throw; a broken promise must still end the run cleanly.
        result.status = RunStatus::Failed;
        result.message = e.what();
        result.hint = "this is a bug in BERT Workbench; please report it with the log";
    }
    if (!m_finishedSent)
        Q_EMIT finished(result);
}

} // namespace wb
