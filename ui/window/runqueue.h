// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"
#include "core/train/preparedrun.h"

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

/// The model_dir of the run with `seed` in Repeat with seeds: "<modelDir>-seed-<seed>" (a
/// trailing '/' of modelDir dropped), a sibling of modelDir, so Compare runs finds the runs
/// next to each other and groups them by name (seedGroupName, ui/runs/rungroup.h). Pure.
std::string seedRunDir(const std::string &modelDir, int64_t seed);

/// Repeat with seeds: `count` runs of `o` (count ≥ 1) with seeds o.seed, o.seed + 1, …, each in
/// seedRunDir(o.model_dir, seed), labelled "seed N". Pure.
std::vector<QueuedRun> seedRuns(const TrainingOptions &o, RunPurpose purpose, int count);

/// Runs a list of run configurations one after another through a RunSession (the window's one
/// run control, so each run is checked, drawn and reported like a Train press): Repeat with
/// seeds, the Sweep dialog and the pretraining lesson. A run whose
/// model_dir already holds a run continues it from its latest checkpoint (no question); one
/// that completes starts the next. The queue stops — and keeps the runs not yet started —
/// when a run fails its check, fails, or is stopped by the user (Stop); start() again goes on
/// with the run that stopped (it resumes from its checkpoint). GUI thread only.
///
///     auto *queue = new RunQueue(session, this);
///     queue->setRuns({{seed1Options, RunPurpose::Train, "seed 1"}, {seed2Options, RunPurpose::Train, "seed 2"}});
///     connect(queue, &RunQueue::finished, this, [] { ... });
///     queue->start();
class RunQueue : public QObject
{
    Q_OBJECT
public:
    explicit RunQueue(RunSession *session, QObject *parent = nullptr);

    /// Replaces the list (only while idle: returns false while a queued run is going).
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

    RunSession *m_session;
    std::vector<QueuedRun> m_runs;
    int m_next = 0;
    int m_completed = 0;
    bool m_active = false;
    bool m_waitingForCheck = false;
    bool m_running = false;
    bool m_cancelled = false;
};

} // namespace wb
