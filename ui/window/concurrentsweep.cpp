// SPDX-License-Identifier: Apache-2.0
// Training → Sweep… with "Runs at once" > 1: the CLI's `sweep --max_concurrent_runs` in a child
// process, its progress in the window.
#include "ui/window/concurrentsweep.h"

#include "ui/runs/localworkersrun.h"

#include <QRegularExpression>

#include <algorithm>
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
        for (QByteArray *rest : {&m_outBuf, &m_errBuf})
            if (!rest->isEmpty())
                onLine(QString::fromUtf8(std::exchange(*rest, {})));
        if (!m_training.isEmpty()) {
            m_training.clear();
            Q_EMIT trainingChanged(m_training);
        }
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
    m_outBuf.clear();
    m_errBuf.clear();
    m_process.start(QString::fromStdString(cli), {QStringLiteral("sweep"), QStringLiteral("--sweep_dir=") + sweepDir,
                                                  QStringLiteral("--max_concurrent_runs=%1").arg(runsAtOnce)});
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
        onLine(text);
    }
}

void ConcurrentSweep::onLine(const QString &text)
{
    // The sweep's own lines (app/cli/cmd_sweep.cpp): "run-002 (2/4): seed=2" when a run starts,
    // "run-002: completed" / "run-002: stopped" / "run-002: failed, …" when it ends.
    static const QRegularExpression started(QStringLiteral("^(run-\\d+) \\(\\d+/\\d+\\): "));
    static const QRegularExpression ended(QStringLiteral("^(run-\\d+): (completed|stopped|failed)"));
    Q_EMIT line(text);
    if (const auto m = started.match(text); m.hasMatch() && !m_training.contains(m.captured(1))) {
        m_training << m.captured(1);
        m_mostAtOnce = std::max<int>(m_mostAtOnce, int(m_training.size()));
        Q_EMIT trainingChanged(m_training);
    } else if (const auto e = ended.match(text); e.hasMatch() && m_training.removeAll(e.captured(1)) > 0) {
        Q_EMIT trainingChanged(m_training);
    }
}

} // namespace wb
