// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/trainingworker.h"

#include <QThread>

#include "core/util/errortext.h"

namespace wb {

TrainingWorker::TrainingWorker(const StopToken &stop, RunFunction run) : m_stop(stop), m_run(std::move(run)) {}

void TrainingWorker::runStarted(const RunStarted &info) { Q_EMIT started(info); }
void TrainingWorker::stepCompleted(const StepMetrics &m) { Q_EMIT stepReported(m); }
void TrainingWorker::evaluationCompleted(const EvalMetrics &m) { Q_EMIT evaluationReported(m); }
void TrainingWorker::checkpointSaved(const CheckpointSaved &c) { Q_EMIT checkpointReported(c); }
void TrainingWorker::logMessage(const std::string &line) { Q_EMIT logLine(QString::fromStdString(line)); }
void TrainingWorker::coachNote(const CoachNote &n) { Q_EMIT coachNoteReported(n); }

void TrainingWorker::run(const PreparedRun &run)
{
    Q_ASSERT(QThread::currentThread() == thread());
    RunFinished result;
    try {
        result = m_run(run, *this, m_stop);
    } catch (...) {
        // The run functions promise not to throw; a broken promise must still end the run cleanly.
        result = failedRun(describeCurrentException("run"));
        result.hint = "this is a bug in BERT Workbench; please report it with the log";
    }
    Q_EMIT finished(result);
}

} // namespace wb
