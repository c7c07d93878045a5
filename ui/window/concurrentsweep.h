// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/events/trainingobserver.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <vector>

namespace wb {

/// A sweep with several runs at once in the window (the Sweep dialog's "Runs at once" > 1):
/// `bert-workbench-cli sweep --sweep_dir DIR --max_concurrent_runs N --progress_format=jsonl`
/// in a child process (findWorkerExecutable, ui/runs/localworkersrun.h), which drives the sweep
/// (SweepDriver over its ProcessPoolExecutor: up to N `train` processes at the same time) and
/// keeps sweep.json (docs/file-formats.md, "Sweep folder"). The window follows its event
/// stream (decodeSweepEvent, core/formats/sweepevents.h): which runs train now (training()),
/// Log lines made from the events (line()), and one run followed for the plot and the progress
/// row (followed(): the run training longest; when it ends, the next one still training) with
/// its steps and evaluations so far (record()); Stop sends it SIGINT as a terminal's Ctrl+C does
/// (every run stops after its step with a checkpoint), and starting the same sweep again
/// resumes it. GUI thread only.
///
///     auto *sweep = new ConcurrentSweep(this);
///     connect(sweep, &ConcurrentSweep::trainingChanged, this, [](const QStringList &runs) { ... });
///     sweep->start("/runs/lr-sweep", 2);
class ConcurrentSweep : public QObject
{
    Q_OBJECT
public:
    explicit ConcurrentSweep(QObject *parent = nullptr);
    ~ConcurrentSweep() override;

    /// Starts the sweep in `sweepDir` (its sweep.json written already) with up to
    /// `runsAtOnce` runs at the same time. False, with `*error` saying why (another sweep is
    /// going, no bert-workbench-cli found), when nothing started.
    bool start(const QString &sweepDir, int runsAtOnce, QString *error = nullptr);
    /// Stops every run going on (each writes a checkpoint); a second call quits them at once.
    void stop();
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    /// The runs training now ("run-001", "run-002"), in the order they started.
    const QStringList &training() const { return m_training; }
    /// The most runs that trained at the same time in the last start().
    int mostAtOnce() const { return m_mostAtOnce; }
    QString sweepDir() const { return m_sweepDir; }
    /// Reads one line of the sweep's stdout: an event updates training() and says a Log line
    /// (line()); any other text is passed on as it is. start() feeds it the child's stdout; a
    /// recorded stream may be replayed through it (tests).
    void readEventLine(const QString &text);
    /// The sweep's last sweep_finished event: its status ("completed", "stopped", "failed"),
    /// "" before one came.
    QString finishedStatus() const { return m_finishedStatus; }

    /// A run of the sweep as far as its events told: its model_dir, its start (total steps,
    /// device) and every step and evaluation it reported.
    struct RunRecord
    {
        QString modelDir;
        std::optional<RunStarted> started;
        std::vector<StepMetrics> steps;
        std::vector<EvalMetrics> evals;
    };
    /// The run the window shows ("run-002"): the one training longest; when it ends, the next
    /// one still training; after the last, the last that trained. "" before any started.
    QString followed() const { return m_followed; }
    /// What the events told of `run` so far; nullptr for a run that has not started.
    const RunRecord *record(const QString &run) const;
    /// The sweep's runs (sweep_started's count; 0 before it), and how many of them are done:
    /// completed now or before (skipped).
    int runCount() const { return m_runCount; }
    int doneCount() const { return m_doneCount; }

Q_SIGNALS:
    /// One line the sweep printed (its own or a run's, "[run-001] …").
    void line(const QString &text);
    /// The runs training now changed.
    void trainingChanged(const QStringList &runs);
    /// The followed run changed to `run`: its record so far is record(run); its later events
    /// come as followedStarted, followedStep and followedEvaluation.
    void followedChanged(const QString &run);
    void followedStarted(const wb::RunStarted &info);
    void followedStep(const wb::StepMetrics &m);
    void followedEvaluation(const wb::EvalMetrics &m);
    /// The sweep ended: the CLI's exit code (0 every run completed, 130 stopped, 1 a run
    /// failed or the sweep could not go on, 2 the folder is not a sweep it can resume).
    void finished(int exitCode);

private:
    void readLines(QProcess::ProcessChannel channel);
    void onLine(QProcess::ProcessChannel channel, const QString &text);
    void setTraining(const QStringList &runs);
    void follow(const QString &run);

    QProcess m_process;
    QString m_sweepDir;
    QStringList m_training;
    QByteArray m_outBuf, m_errBuf;
    int m_mostAtOnce = 0;
    QString m_finishedStatus;
    std::map<QString, RunRecord> m_records;
    QString m_followed;
    int m_runCount = 0, m_doneCount = 0;
};

} // namespace wb
