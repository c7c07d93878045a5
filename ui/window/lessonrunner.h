// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/data/pretraininglesson.h"
#include "core/events/trainingobserver.h"

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

namespace wb {

class RunSession;

/// Runs the pretraining lesson's three runs (pretrainingLessonRuns, core/data/pretraininglesson.h)
/// one after another through the window's RunSession, as Train presses: for each run `show`
/// puts its task and options into the form, then RunSession::train() checks and starts it; a
/// completed run starts the next. The lesson stops (stopped()) when a run fails its check,
/// fails or is stopped. A minimal sequential runner of the lesson's own, until the window has
/// a general run queue. GUI thread only.
class LessonRunner : public QObject
{
    Q_OBJECT
public:
    /// `show` fills the form with a run (its task: pretrain or classify, and its options).
    LessonRunner(RunSession *session, std::function<void(const PretrainingLessonRun &)> show, QObject *parent = nullptr);

    /// Starts the first of `runs`; false (nothing started) when the session is busy or `runs` is empty.
    bool start(std::vector<PretrainingLessonRun> runs);
    bool isActive() const { return m_active; }
    /// Index of the run going on; runs().size() when all completed.
    int currentIndex() const { return m_index; }
    const std::vector<PretrainingLessonRun> &runs() const { return m_runs; }

Q_SIGNALS:
    /// Run `index` is being checked and started.
    void runStarting(int index);
    /// All runs completed.
    void finished();
    /// The lesson stopped at run `index` (`reason` for the Log).
    void stopped(int index, const QString &reason);

private:
    void startCurrent();
    void stopAt(const QString &reason);

    RunSession *m_session;
    std::function<void(const PretrainingLessonRun &)> m_show;
    std::vector<PretrainingLessonRun> m_runs;
    int m_index = 0;
    bool m_active = false;
    bool m_checking = false; ///< the current run's pre-flight check is going
};

} // namespace wb
