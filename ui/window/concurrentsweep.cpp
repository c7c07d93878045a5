// SPDX-License-Identifier: Apache-2.0
// Training → Sweep… with "Runs at once" > 1: the CLI's `sweep --max_concurrent_runs` in a child
// process, followed through its jsonl events.
#include "ui/window/concurrentsweep.h"

#include "ui/runs/localworkersrun.h"

#include "core/io/runevents.h"
#include "core/formats/sweep.h"
#include "core/formats/sweepevents.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <utility>

namespace wb {

ConcurrentSweep::ConcurrentSweep(QObject *parent) : QObject(parent)
{
    connect(&m_process, &QProcess::readyReadStandardOutput, this, [this] { readLines(QProcess::StandardOutput); });
    connect(&m_process, &QProcess::readyReadStandardError, this, [this] { readLines(QProcess::StandardError); });
    connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        readLines(QProcess::StandardOutput);
        readLines(QProcess::StandardError);
        if (!m_outBuf.isEmpty())
            onLine(QProcess::StandardOutput, QString::fromUtf8(std::exchange(m_outBuf, {})));
        if (!m_errBuf.isEmpty())
            onLine(QProcess::StandardError, QString::fromUtf8(std::exchange(m_errBuf, {})));
        setTraining({});
        Q_EMIT finished(status == QProcess::NormalExit ? exitCode : 1);
    });
}

ConcurrentSweep::~ConcurrentSweep()
{
    if (isRunning()) { // the window closes: stop the runs (each child has a parent-death signal too)
        stop();
        if (!m_process.waitForFinished(30000))
            m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool ConcurrentSweep::start(const QString &sweepDir, int runsAtOnce, QString *error)
{
    if (isRunning()) {
        if (error)
            *error = tr("a sweep is going already");
        return false;
    }
    const std::string cli = findWorkerExecutable();
    if (cli.empty()) {
        if (error)
            *error = tr("bert-workbench-cli was not found (beside the program, on the PATH or in BERT_WORKBENCH_CLI); "
                        "it trains the runs at once");
        return false;
    }
    m_sweepDir = sweepDir;
    m_training.clear();
    m_mostAtOnce = 0;
    m_finishedStatus.clear();
    m_records.clear();
    m_followed.clear();
    m_runCount = m_doneCount = 0;
    m_outBuf.clear();
    m_errBuf.clear();
    m_process.start(QString::fromStdString(cli), {QStringLiteral("sweep"), QStringLiteral("--sweep_dir=") + sweepDir,
                                                  QStringLiteral("--max_concurrent_runs=%1").arg(runsAtOnce),
                                                  QStringLiteral("--progress_format=jsonl")});
    if (!m_process.waitForStarted(10000)) {
        if (error)
            *error = tr("could not start %1: %2").arg(QString::fromStdString(cli), m_process.errorString());
        return false;
    }
    return true;
}

void ConcurrentSweep::stop()
{
    if (isRunning())
        ::kill(pid_t(m_process.processId()), SIGINT); // as Ctrl+C: the sweep stops its runs with a checkpoint
}

void ConcurrentSweep::readLines(QProcess::ProcessChannel channel)
{
    m_process.setReadChannel(channel);
    QByteArray &buf = channel == QProcess::StandardOutput ? m_outBuf : m_errBuf;
    buf += m_process.readAll();
    for (qsizetype nl; (nl = buf.indexOf('\n')) >= 0;) {
        QString text = QString::fromUtf8(buf.left(nl));
        buf.remove(0, nl + 1);
        if (const qsizetype cr = text.lastIndexOf(QLatin1Char('\r')); cr >= 0)
            text = text.mid(cr + 1); // a progress bar's last state
        onLine(channel, text);
    }
}

namespace {

/// A run's own `train` events (inside run_progress) as the Log lines `train` would print, and
/// kept in the run's record.
class RunLogLines : public TrainingObserver
{
public:
    RunLogLines(QString run, ConcurrentSweep::RunRecord &record) : m_prefix(QStringLiteral("[%1] ").arg(run)), m_record(record) {}
    QStringList lines;

    void runStarted(const RunStarted &i) override
    {
        m_record.started = i;
        lines << m_prefix + QStringLiteral("started: %1 steps from step %2").arg(i.total_steps).arg(i.start_step);
    }
    void stepCompleted(const StepMetrics &m) override
    {
        m_record.steps.push_back(m);
        lines << m_prefix + QStringLiteral("step %1/%2  loss %3").arg(m.step).arg(m.total_steps).arg(m.loss, 0, 'g', 4);
    }
    void evaluationCompleted(const EvalMetrics &m) override
    {
        m_record.evals.push_back(m);
        QString text = m_prefix + QStringLiteral("eval at step %1: eval_loss %2").arg(m.step).arg(m.eval_loss, 0, 'g', 4);
        if (!m.regression && std::isfinite(m.eval_accuracy))
            text += QStringLiteral(", eval_accuracy %1").arg(m.eval_accuracy, 0, 'g', 4);
        lines << text;
    }
    void checkpointSaved(const CheckpointSaved &c) override
    {
        lines << m_prefix + QStringLiteral("Saved checkpoint %1").arg(QString::fromStdString(c.path));
    }
    void logMessage(const std::string &line) override { lines << m_prefix + QString::fromStdString(line); }
    void coachNote(const CoachNote &n) override { lines << m_prefix + QString::fromStdString(n.text); }

private:
    QString m_prefix;
    ConcurrentSweep::RunRecord &m_record;
};

/// The swept values of a run_started event as the CLI's text says them ("learning_rate=0.001 seed=2").
QString valuesText(const SweepEvent &e)
{
    SweepRun run;
    run.values = e.values;
    QStringList parts;
    for (const std::string &flag : sweepRunFlags(run))
        parts << QString::fromStdString(flag.substr(2));
    return parts.join(QLatin1Char(' '));
}

} // namespace

void ConcurrentSweep::setTraining(const QStringList &runs)
{
    if (runs == m_training)
        return;
    m_training = runs;
    m_mostAtOnce = std::max<int>(m_mostAtOnce, int(m_training.size()));
    Q_EMIT trainingChanged(m_training);
}

const ConcurrentSweep::RunRecord *ConcurrentSweep::record(const QString &run) const
{
    const auto it = m_records.find(run);
    return it == m_records.end() ? nullptr : &it->second;
}

void ConcurrentSweep::follow(const QString &run)
{
    if (run == m_followed)
        return;
    m_followed = run;
    Q_EMIT followedChanged(run);
}

void ConcurrentSweep::onLine(QProcess::ProcessChannel channel, const QString &text)
{
    if (channel == QProcess::StandardOutput)
        readEventLine(text);
    else
        Q_EMIT line(text); // the sweep's notes, warnings and errors
}

void ConcurrentSweep::readEventLine(const QString &text)
{
    const SweepEvent e = decodeSweepEvent(text.toStdString());
    const QString run = QString::fromStdString(e.run);
    switch (e.kind) {
    case SweepEventKind::NotAnEvent:
        Q_EMIT line(text);
        return;
    case SweepEventKind::SweepStarted:
        m_runCount = int(e.runs);
        m_doneCount = 0;
        Q_EMIT line(tr("sweep %1: %2 run(s), %3; %4 to train, up to %5 at once")
                        .arg(QString::fromStdString(e.sweep_dir))
                        .arg(e.runs)
                        .arg(QString::fromStdString(e.method))
                        .arg(e.to_train)
                        .arg(e.max_concurrent_runs));
        return;
    case SweepEventKind::RunSkipped:
        ++m_doneCount;
        Q_EMIT line(tr("%1: completed, skipped").arg(run));
        return;
    case SweepEventKind::RunStarted: {
        Q_EMIT line(QStringLiteral("%1 (%2/%3): %4").arg(run).arg(e.number).arg(e.runs).arg(valuesText(e)));
        m_records[run] = RunRecord{QString::fromStdString(e.model_dir), std::nullopt, {}, {}};
        if (!m_training.contains(run))
            setTraining(QStringList(m_training) << run);
        if (!m_training.contains(m_followed))
            follow(m_training.front());
        return;
    }
    case SweepEventKind::RunProgress: {
        RunRecord &record = m_records[run];
        const size_t steps = record.steps.size(), evals = record.evals.size();
        const bool started = record.started.has_value();
        RunLogLines lines(run, record);
        RunFinished finished;
        const RunEventKind kind = decodeRunEvent(e.data, lines, &finished);
        if (kind == RunEventKind::Finished)
            lines.lines << QStringLiteral("[%1] finished: %2").arg(run, QString::fromStdString(runStatusName(finished.status)));
        for (const QString &l : lines.lines)
            Q_EMIT line(l);
        if (run == m_followed) { // copies: a slot may read the record, which the next event grows
            if (!started && record.started)
                Q_EMIT followedStarted(RunStarted(*record.started));
            for (size_t i = steps; i < record.steps.size(); ++i)
                Q_EMIT followedStep(StepMetrics(record.steps[i]));
            for (size_t i = evals; i < record.evals.size(); ++i)
                Q_EMIT followedEvaluation(EvalMetrics(record.evals[i]));
        }
        return;
    }
    case SweepEventKind::RunLog:
        Q_EMIT line(QStringLiteral("[%1] %2").arg(run, QString::fromStdString(e.line)));
        return;
    case SweepEventKind::RunEnded: {
        const QString status = QString::fromStdString(e.status);
        Q_EMIT line(status == QLatin1String("failed") ? tr("%1: failed (exit %2)").arg(run).arg(e.exit_code)
                                                      : QStringLiteral("%1: %2").arg(run, status));
        if (status == QLatin1String("completed"))
            ++m_doneCount;
        QStringList rest = m_training;
        rest.removeAll(run);
        setTraining(rest);
        if (run == m_followed && !m_training.isEmpty())
            follow(m_training.front()); // the next run training longest
        return;
    }
    case SweepEventKind::SweepFinished:
        m_finishedStatus = QString::fromStdString(e.status);
        Q_EMIT line(e.message.empty() ? tr("sweep %1: %2 completed, %3 stopped, %4 failed%5")
                                            .arg(QString::fromStdString(e.status))
                                            .arg(e.completed)
                                            .arg(e.stopped)
                                            .arg(e.failed)
                                            .arg(e.best_run.empty() ? QString()
                                                                    : tr("; best %1").arg(QString::fromStdString(e.best_run)))
                                      : tr("sweep %1: %2").arg(QString::fromStdString(e.status), QString::fromStdString(e.message)));
        return;
    }
}

} // namespace wb
