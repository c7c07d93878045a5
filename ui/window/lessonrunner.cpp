// SPDX-License-Identifier: Apache-2.0
#include "ui/window/lessonrunner.h"

#include "ui/window/runsession.h"

#include <QTimer>

namespace wb {

LessonRunner::LessonRunner(RunSession *session, std::function<void(const PretrainingLessonRun &)> show, QObject *parent)
    : QObject(parent), m_session(session), m_show(std::move(show))
{
    connect(m_session, &RunSession::preflightFinished, this, [this](bool started) {
        if (!m_active || !m_checking)
            return;
        m_checking = false;
        if (!started)
            stopAt(tr("its check failed (see the validation dialog)"));
    });
    connect(m_session, &RunSession::runFinished, this, [this](const RunFinished &r) {
        if (!m_active || m_checking)
            return;
        if (r.status != RunStatus::Completed) {
            stopAt(r.status == RunStatus::Cancelled ? tr("it was stopped") : tr("it failed"));
            return;
        }
        ++m_index;
        if (m_index >= int(m_runs.size())) {
            m_active = false;
            Q_EMIT finished();
            return;
        }
        // After the session has shown this run's end.
        QTimer::singleShot(0, this, [this] { startCurrent(); });
    });
}

bool LessonRunner::start(std::vector<PretrainingLessonRun> runs)
{
    if (m_active || runs.empty() || !m_session->canTrain())
        return false;
    m_runs = std::move(runs);
    m_index = 0;
    m_active = true;
    startCurrent();
    return m_active;
}

void LessonRunner::startCurrent()
{
    if (!m_active)
        return;
    m_show(m_runs[size_t(m_index)]);
    Q_EMIT runStarting(m_index);
    m_checking = true;
    if (!m_session->train()) {
        m_checking = false;
        stopAt(tr("another run or check is going"));
    }
}

void LessonRunner::stopAt(const QString &reason)
{
    m_active = false;
    Q_EMIT stopped(m_index, reason);
}

} // namespace wb
