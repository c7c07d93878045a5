// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"
#include "core/launch/runexecutor.h"
#include "core/engine/preparedrun.h"

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

namespace wb {

class RunSession;

/// One run of a RunQueue: the options it trains with (their own model_dir), the purpose
/// (fine-tuning or pretraining), a name for the Log ("seed 43", "run-003", "pretrain") and,
/// optionally, how to show it in the form before it starts (the pretraining lesson puts each
/// run's task and options there, so the form shows what trains).
struct QueuedRun
{
    TrainingOptions options;
    RunPurpose purpose = RunPurpose::Train;
    QString label;
    std::function<void()> show; ///< called on the GUI thread just before the run's check; may be empty
};

/// Runs a list of run configurations one after another through a RunSession (the window's one
/// run control, so each run is checked, drawn and reported like a Train press): the window's
/// sweeps (the Sweep dialog, Repeat with Seeds) as their RunExecutor (core/launch/runexecutor.h:
/// run() with RunJobs made into QueuedRuns by setRunMaker), and the pretraining lesson through
/// setRuns/start. A run whose
/// model_dir already holds a run continues it from its latest checkpoint (no question); one
/// that completes starts the next. The queue stops — and keeps the runs not yet started —
/// when a run fails its check, fails, or is stopped by the user (Stop); start() again goes on
/// with the run that stopped (it resumes from its checkpoint). GUI thread only.
///
///     auto *queue = new RunQueue(session, this);
///     queue->setRuns({{seed1Options, RunPurpose::Train, "seed 1"}, {seed2Options, RunPurpose::Train, "seed 2"}});
///     connect(queue, &RunQueue::finished, this, [] { ... });
///     queue->start();
class RunQueue : public QObject, public RunExecutor
{
    Q_OBJECT
public:
    explicit RunQueue(RunSession *session, QObject *parent = nullptr);

    /// RunExecutor: how run() makes each job into a QueuedRun (its options, purpose, label).
    void setRunMaker(std::function<QueuedRun(const RunJob &)> maker) { m_maker = std::move(maker); }
    /// RunExecutor, asynchronous: replaces the list with the jobs (setRunMaker's QueuedRuns) and
    /// starts; returns at once. The sinks are called on the GUI thread as the signals below
    /// are emitted (exit code 0 completed, 130 stopped, 1 failed); sinks.finished when every
    /// run completed or the queue stopped (a failed check, a failed run, Stop, cancel(); at
    /// once when it cannot start: busy, nothing to run, no maker). GUI thread only.
    void run(std::vector<RunJob> jobs, RunExecutorSinks sinks) override;
    /// RunExecutor: cancel() and Stop of the run going on (it writes a checkpoint). GUI thread.
    void requestStop() override;
    /// RunExecutor: the jobs of the last run() not started (the queue stopped before them).
    std::vector<size_t> notStarted() const override;

    /// Replaces the list (only while idle: returns false while a queued run is going); the
    /// sinks of an earlier run() are dropped.
    bool setRuns(std::vector<QueuedRun> runs);
    const std::vector<QueuedRun> &runs() const { return m_runs; }
    /// Starts (or goes on with) the first run not completed; false when the session is busy,
    /// the queue is already running or nothing is left.
    bool start();
    /// Starts no further run; the run going on ends as it would (Stop it with RunSession::stop).
    void cancel();
    bool isActive() const { return m_active; }
    /// Index of the run going on (or of the next to start when idle); runs().size() when done.
    int currentIndex() const { return m_next; }
    /// How many runs of the list completed.
    int completedCount() const { return m_completed; }

Q_SIGNALS:
    /// Run `index` is shown (QueuedRun::show) and its check starts.
    void runStarting(int index);
    /// Run `index` passed its check and trains now.
    void runStarted(int index);
    /// Run `index` ended (`r.status`: Completed, Cancelled or Failed).
    void runEnded(int index, const wb::RunFinished &r);
    /// Every run completed.
    void finished();
    /// The queue stopped before the end at run `index`: `reason` says why (a failed check, a
    /// failed run, Stop, cancel()).
    void stopped(int index, const QString &reason);

private:
    void startCurrent();
    void onPreflightFinished(bool started);
    void onRunFinished(const RunFinished &r);
    void halt(const QString &reason);
    void finishSinks();

    RunSession *m_session;
    std::function<QueuedRun(const RunJob &)> m_maker;
    RunExecutorSinks m_sinks;
    bool m_hasSinks = false;
    std::vector<QueuedRun> m_runs;
    int m_next = 0;
    int m_completed = 0;
    bool m_active = false;
    bool m_waitingForCheck = false;
    bool m_running = false;
    bool m_cancelled = false;
    bool m_endedAtNext = false; ///< the run at m_next ended (stopped or failed) without completing
};

} // namespace wb
