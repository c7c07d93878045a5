// SPDX-License-Identifier: Apache-2.0
// A list of run configurations trained one after another through the window's RunSession
// (the window's sweeps as their RunExecutor, the pretraining lesson) — the window's one sequential
// runner.
#include "ui/window/runqueue.h"

#include "ui/window/runsession.h"

#include <QTimer>

#include <utility>

namespace wb {

RunQueue::RunQueue(RunSession *session, QObject *parent) : QObject(parent), m_session(session)
{
    connect(m_session, &RunSession::preflightFinished, this, &RunQueue::onPreflightFinished);
    connect(m_session, &RunSession::runFinished, this, &RunQueue::onRunFinished);
}

bool RunQueue::setRuns(std::vector<QueuedRun> runs)
{
    if (m_active)
        return false;
    m_runs = std::move(runs);
    m_next = 0;
    m_completed = 0;
    m_sinks = {};
    m_hasSinks = false;
    return true;
}

void RunQueue::run(std::vector<RunJob> jobs, RunExecutorSinks sinks)
{
    std::vector<QueuedRun> runs;
    if (m_maker)
        for (const RunJob &job : jobs)
            runs.push_back(m_maker(job));
    if (!m_maker || !setRuns(std::move(runs))) {
        if (sinks.finished)
            sinks.finished();
        return;
    }
    m_sinks = std::move(sinks);
    m_hasSinks = true;
    if (!start())
        finishSinks();
}

void RunQueue::requestStop()
{
    if (!m_active)
        return;
    cancel();
    if (m_running || m_waitingForCheck)
        m_session->stop();
}

std::vector<size_t> RunQueue::notStarted() const
{
    std::vector<size_t> out;
    // The run at m_next has not started unless it is going (it ended stopped or failed: it did).
    for (size_t j = size_t(m_next) + (m_endedAtNext ? 1 : 0); j < m_runs.size(); ++j)
        out.push_back(j);
    return out;
}

void RunQueue::finishSinks()
{
    if (!m_hasSinks)
        return;
    RunExecutorSinks sinks = std::exchange(m_sinks, {});
    m_hasSinks = false;
    if (sinks.finished)
        sinks.finished();
}

bool RunQueue::start()
{
    if (m_active || m_next >= int(m_runs.size()) || !m_session->canTrain())
        return false;
    m_active = true;
    m_cancelled = false;
    m_endedAtNext = false;
    startCurrent();
    return m_active;
}

void RunQueue::cancel()
{
    if (!m_active)
        return;
    m_cancelled = true;
    if (!m_waitingForCheck && !m_running)
        halt(tr("cancelled"));
}

void RunQueue::startCurrent()
{
    const QueuedRun &run = m_runs[size_t(m_next)];
    if (run.show)
        run.show();
    Q_EMIT runStarting(m_next);
    m_waitingForCheck = true;
    if (!m_session->trainOptions(run.options, run.purpose)) {
        m_waitingForCheck = false;
        halt(tr("the window is busy with another run"));
    }
}

void RunQueue::onPreflightFinished(bool started)
{
    if (!m_waitingForCheck)
        return; // a Train press of the user's, not ours
    m_waitingForCheck = false;
    if (!started) {
        halt(tr("%1 did not pass its check").arg(m_runs[size_t(m_next)].label));
        return;
    }
    m_running = true;
    m_endedAtNext = false;
    if (m_hasSinks && m_sinks.started)
        m_sinks.started(size_t(m_next));
    Q_EMIT runStarted(m_next);
}

void RunQueue::onRunFinished(const RunFinished &r)
{
    if (!m_running)
        return;
    m_running = false;
    const int index = m_next;
    if (r.status == RunStatus::Completed) {
        ++m_completed;
        ++m_next;
    } else {
        m_endedAtNext = true;
    }
    if (m_hasSinks && m_sinks.ended) {
        const int code = r.status == RunStatus::Completed ? 0 : r.status == RunStatus::Cancelled ? 130 : 1;
        m_sinks.ended(size_t(index), code,
                      r.status == RunStatus::Completed ? "completed" : r.status == RunStatus::Cancelled ? "stopped" : "failed");
    }
    Q_EMIT runEnded(index, r);
    if (r.status != RunStatus::Completed) {
        halt(r.status == RunStatus::Cancelled ? tr("%1 was stopped").arg(m_runs[size_t(index)].label)
                                              : tr("%1 failed").arg(m_runs[size_t(index)].label));
        return;
    }
    if (m_cancelled) {
        halt(tr("cancelled"));
        return;
    }
    if (m_next >= int(m_runs.size())) {
        m_active = false;
        Q_EMIT finished();
        finishSinks();
        return;
    }
    // After the session's own handlers of this run's end (the window lists the run, etc.).
    QTimer::singleShot(0, this, [this] {
        if (m_active && !m_cancelled)
            startCurrent();
        else if (m_active)
            halt(tr("cancelled"));
    });
}

void RunQueue::halt(const QString &reason)
{
    m_active = false;
    Q_EMIT stopped(m_next, reason);
    finishSinks();
}

} // namespace wb
