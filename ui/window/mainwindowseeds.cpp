// SPDX-License-Identifier: Apache-2.0
// Training → Repeat with Seeds: the form's settings trained with N seeds one after another
// (RunQueue), then grouped in Compare runs (mean curve with a min–max band, spread of the
// final metrics).
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "ui/form/configurationform.h"
#include "ui/runs/runstable.h"
#include "ui/window/runqueue.h"
#include "ui/window/runsession.h"
#include "ui/window/sweepdialog.h"

#include <QStatusBar>

namespace wb {

RunQueue *MainWindow::ensureRunQueue()
{
    if (!m_queue) {
        m_queue = new RunQueue(m_session, this);
        m_queue->setObjectName(QStringLiteral("runQueue"));
        connect(m_queue, &RunQueue::runStarted, this, [this](int index) {
            const QueuedRun &r = m_queue->runs()[size_t(index)];
            appendLog(tr("Run %1 of %2 (%3) in %4").arg(index + 1).arg(m_queue->runs().size()).arg(r.label, q(r.options.model_dir)));
        });
        connect(m_queue, &RunQueue::stopped, this, [this](int, const QString &reason) {
            appendLog(tr("The runs one after another stopped: %1. Train → Repeat with Seeds again goes on.").arg(reason));
        });
        connect(m_queue, &RunQueue::runEnded, this, [this](int index, const RunFinished &r) {
            if (m_queue->property("sweep").toBool() && m_sweepDialog)
                m_sweepDialog->recordRunEnd(m_queue->runs()[size_t(index)].label, r.status == RunStatus::Completed,
                                            r.status == RunStatus::Cancelled);
        });
        connect(m_queue, &RunQueue::finished, this, [this] {
            const std::vector<QueuedRun> &runs = m_queue->runs();
            const bool sweep = m_queue->property("sweep").toBool();
            appendLog(sweep ? tr("All %n run(s) of the sweep completed; Compare runs lists them.", nullptr, int(runs.size()))
                            : tr("All %n run(s) completed; Compare runs groups them.", nullptr, int(runs.size())));
            m_runs->setGroupSeeds(!sweep);
            scanRuns(q(runs.front().options.model_dir));
            showTab(QStringLiteral("runsTab"));
            if (sweep)
                connect(m_runs, &RunsTable::scanned, this, [this] { m_runs->showSweepView(); }, Qt::SingleShotConnection);
        });
    }
    return m_queue;
}

RunQueue *MainWindow::repeatWithSeeds(int count)
{
    ensureRunQueue();
    const TrainingOptions o = options();
    if (m_queue->isActive() || !m_session->canTrain()) {
        statusBar()->showMessage(tr("A run is going: Repeat with Seeds starts when it has ended."), 6000);
        return nullptr;
    }
    if (o.model_dir.empty() || count < 1) {
        statusBar()->showMessage(tr("Choose the model directory first: the runs go beside it (MODEL_DIR-seed-N)."), 6000);
        return nullptr;
    }
    m_queue->setProperty("sweep", false);
    m_queue->setRuns(seedRuns(o, formTaskPurpose(m_form->task()), count));
    appendLog(tr("Repeat with %1 seeds: %2 … %3").arg(count).arg(o.seed).arg(o.seed + count - 1));
    m_queue->start();
    return m_queue;
}

SweepDialog *MainWindow::openSweepDialog()
{
    ensureRunQueue();
    if (!m_sweepDialog) {
        m_sweepDialog = new SweepDialog(this);
        m_sweepDialog->setWindowModality(Qt::WindowModal);
        connect(m_sweepDialog, &SweepDialog::startRequested, this, [this](const SweepFile &file) {
            if (m_queue->isActive() || !m_session->canTrain()) {
                statusBar()->showMessage(tr("A run is going: start the sweep when it has ended."), 6000);
                return;
            }
            std::vector<QueuedRun> runs = m_sweepDialog->pendingRuns(file);
            appendLog(tr("Sweep in %1: %2 of %n run(s) to train", nullptr, int(file.runs.size()))
                          .arg(m_sweepDialog->sweepDir()).arg(runs.size()));
            if (runs.empty())
                return;
            m_queue->setProperty("sweep", true);
            m_queue->setRuns(std::move(runs));
            m_queue->start();
        });
    }
    m_sweepDialog->setBaseOptions(options(), formTaskPurpose(m_form->task()));
    m_sweepDialog->open();
    return m_sweepDialog;
}

} // namespace wb
