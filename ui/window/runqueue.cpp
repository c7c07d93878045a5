// SPDX-License-Identifier: Apache-2.0
// A list of run configurations trained one after another through the window's RunSession
// (Repeat with seeds, the Sweep dialog, the pretraining lesson) — the window's one sequential runner.
#include "ui/window/runqueue.h"

#include "ui/window/runsession.h"

#include <QTimer>

namespace wb {

std::string seedRunDir(const std::string &modelDir, int64_t seed)
{
    std::string base = modelDir;
    while (base.size() > 1 && base.back() == '/')
        base.pop_back();
    return base + "-seed-" + std::to_string(seed);
}

std::vector<QueuedRun> seedRuns(const TrainingOptions &o, RunPurpose purpose, int count)
{
    std::vector<QueuedRun> runs;
    for (int i = 0; i < count; ++i) {
        QueuedRun r;
        r.options = o;
        r.options.seed = o.seed + i;
        r.options.model_dir = seedRunDir(o.model_dir, r.options.seed);
        r.purpose = purpose;
        r.label = QStringLiteral("seed %1").arg(r.options.seed);
        runs.push_back(std::move(r));
    }
    return runs;
}

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
    return true;
}

bool RunQueue::start()
{
    if (m_active || m_next >= int(m_runs.size()) || !m_session->canTrain())
        return false;
    m_active = true;
    m_cancelled = false;
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
}

} // namespace wb
