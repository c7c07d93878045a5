// SPDX-License-Identifier: Apache-2.0
#include "core/launch/chiefstream.h"

namespace wb {

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
