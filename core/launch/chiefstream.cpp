// SPDX-License-Identifier: Apache-2.0
#include "core/launch/chiefstream.h"

namespace wb {

void ChiefStream::Tracker::runStarted(const RunStarted &info)
{
    progress.last_step = info.start_step;
    if (m_forward)
        m_forward->runStarted(info);
}

void ChiefStream::Tracker::stepCompleted(const StepMetrics &m)
{
    progress.last_step = m.step;
    progress.final_train_loss = m.loss;
    if (m_forward)
        m_forward->stepCompleted(m);
}

void ChiefStream::Tracker::evaluationCompleted(const EvalMetrics &m)
{
    if (m_forward)
        m_forward->evaluationCompleted(m);
}

void ChiefStream::Tracker::checkpointSaved(const CheckpointSaved &c)
{
    progress.last_checkpoint = c.path;
    if (m_forward)
        m_forward->checkpointSaved(c);
}

void ChiefStream::Tracker::logMessage(const std::string &line)
{
    if (m_forward)
        m_forward->logMessage(line);
}

void ChiefStream::Tracker::coachNote(const CoachNote &n)
{
    if (m_forward)
        m_forward->coachNote(n);
}

ChiefStream::ChiefStream(TrainingObserver *forward) : m_tracker(forward) {}

RunEventKind ChiefStream::feedOutput(const std::string &line)
{
    const RunEventKind kind = decodeRunEvent(line, m_tracker, &m_end);
    if (kind == RunEventKind::Finished)
        m_finished = true;
    else if (kind == RunEventKind::NotAnEvent && !line.empty())
        m_tracker.logMessage(line);
    return kind;
}

void ChiefStream::feedError(const std::string &line)
{
    // Other workers' lines arrive prefixed "[worker r] "; the chief's are bare.
    if (line.rfind("error: ", 0) == 0)
        m_chiefError = line.substr(7);
}

RunFinished ChiefStream::result(const LocalLaunchResult &launched) const
{
    RunFinished r = m_finished ? m_end : m_tracker.progress;
    const bool chiefExplainedItself = launched.failed_rank == 0 && m_finished && m_end.status == RunStatus::Failed;
    if (launched.failed_rank >= 0 && !chiefExplainedItself) {
        r.status = RunStatus::Failed;
        r.field = "cluster";
        r.message = launched.message;
        if (launched.failed_rank == 0 && !m_chiefError.empty())
            r.message += ": " + m_chiefError;
        r.hint = "the lines marked [worker " + std::to_string(launched.failed_rank)
                 + "] (or the chief's own lines for worker 0) show why it failed";
    } else if (launched.failed_rank < 0 && !m_finished) {
        const bool stopped = launched.exit_code == 130;
        r.status = stopped ? RunStatus::Cancelled : RunStatus::Failed;
        r.field = stopped ? "" : "cluster";
        r.message = stopped ? "stopped by the user" : "the chief ended without reporting how the run ended";
    }
    return r;
}

} // namespace wb
