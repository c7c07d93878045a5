// SPDX-License-Identifier: Apache-2.0
// Training → Repeat with Seeds (a sweep over seed) and Training → Sweep…: the window's sweeps,
// one SweepDriver over the RunQueue (or the CLI's sweep with runs at once, ConcurrentSweep);
// seeds are then grouped in Compare runs (mean curve with a min–max band, spread of the final
// metrics).
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "ui/form/configurationform.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/runstable.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/window/concurrentsweep.h"
#include "ui/window/runqueue.h"
#include "ui/window/runsession.h"
#include "ui/window/sweepdialog.h"

#include "core/formats/sweepdriver.h"
#include "core/util/errortext.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QStatusBar>

#include <limits>
#include <memory>
#include <optional>
#include <utility>

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
        // A sweep's run in the window: the progress row says which of the sweep's runs trains.
        connect(m_session->controller(), &TrainingController::runStarted, this, [this] {
            if (!m_windowSweep || !m_queue->isActive())
                return;
            const QFileInfo run(q(m_session->controller()->lastSpec().model_dir));
            const QFileInfo sweepDir(q(m_windowSweep->sweepDir()));
            const std::optional<size_t> i = m_windowSweep->indexOf(run.fileName().toStdString());
            if (!i || run.absolutePath() != sweepDir.absoluteFilePath())
                return;
            m_progress->setStatus(tr("%1 · %2: run %3 of %4")
                                      .arg(m_progress->statusText(), sweepDir.fileName())
                                      .arg(*i + 1)
                                      .arg(m_windowSweep->file().runs.size()));
        });
        connect(m_queue, &RunQueue::stopped, this, [this](int, const QString &reason) {
            appendLog(tr("The runs one after another stopped: %1. Train → Repeat with Seeds again goes on.").arg(reason));
        });
    }
    return m_queue;
}

void MainWindow::trainSweepInWindow(const SweepDriver &sweep, const TrainingOptions &base, RunPurpose purpose, bool bySeed)
{
    ensureRunQueue();
    m_windowSweep = std::make_shared<SweepDriver>(sweep);
    const std::shared_ptr<SweepDriver> d = m_windowSweep;
    const std::vector<size_t> pending = d->pendingRuns();
    std::vector<RunJob> jobs;
    for (const size_t i : pending)
        jobs.push_back({d->file().runs[i].run.name, d->trainArgs(i)});
    m_queue->setRunMaker([d, base, purpose, bySeed](const RunJob &job) {
        return sweepQueuedRun(base, purpose, *d, d->indexOf(job.name).value_or(0), bySeed);
    });
    // sweep.json is kept as the CLI keeps it; a file that cannot be written is said in the Log.
    const auto record = [this, d](const std::function<void()> &f) {
        try {
            f();
        } catch (...) {
            appendLog(q(describeCurrentException(sweepFilePath(d->sweepDir())).line()));
        }
    };
    RunExecutorSinks sinks;
    sinks.started = [record, d, pending](size_t job) { record([&] { d->started(pending[job]); }); };
    sinks.ended = [record, d, pending](size_t job, int code, const std::string &) {
        record([&] { d->ended(pending[job], SweepDriver::statusOfExitCode(code)); });
    };
    sinks.finished = [this, d, pending, bySeed] {
        if (pending.empty() || m_queue->completedCount() < int(m_queue->runs().size()))
            return; // stopped: the queue's stopped() said why
        appendLog(bySeed ? tr("All %n run(s) completed; Compare runs groups them.", nullptr, int(pending.size()))
                         : tr("All %n run(s) of the sweep completed; Compare runs lists them.", nullptr, int(pending.size())));
        m_runs->setGroupSeeds(bySeed);
        scanRuns(q(d->runDir(pending.front())));
        showTab(QStringLiteral("runsTab"));
        if (!bySeed)
            connect(m_runs, &RunsTable::scanned, this, [this, d] { m_runs->showSweepView(q(d->sweepDir())); },
                    Qt::SingleShotConnection);
    };
    m_queue->run(std::move(jobs), std::move(sinks));
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
        statusBar()->showMessage(tr("Choose the model directory first: the runs go beside it (MODEL_DIR-seeds)."), 6000);
        return nullptr;
    }
    const std::string dir = seedSweepDir(o.model_dir);
    std::optional<SweepDriver> sweep;
    try {
        sweep = SweepDriver::planOrResume(dir, seedSweep(o, count), "holds another Repeat with Seeds (other settings or seeds)",
                                          "choose another model directory, or the same settings and number of seeds to go on");
        sweep->save();
    } catch (...) {
        const QString text = q(describeCurrentException(sweepFilePath(dir)).line());
        appendLog(tr("Repeat with Seeds did not start: %1").arg(text));
        statusBar()->showMessage(text, 6000);
        return nullptr;
    }
    appendLog(tr("Repeat with %1 seeds: %2 … %3").arg(count).arg(o.seed).arg(o.seed + count - 1));
    trainSweepInWindow(*sweep, o, formTaskPurpose(m_form->task()), true);
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
            if (m_concurrentSweep && m_concurrentSweep->isRunning()) {
                statusBar()->showMessage(tr("A sweep is going: start this one when it has ended."), 6000);
                return;
            }
            if (m_sweepDialog->runsAtOnce() > 1 && formTaskPurpose(m_form->task()) == RunPurpose::Train) {
                startConcurrentSweep(file);
                return;
            }
            const SweepDriver sweep(m_sweepDialog->sweepDir().toStdString(), file);
            const size_t pending = sweep.pendingRuns().size();
            appendLog(tr("Sweep in %1: %2 of %n run(s) to train", nullptr, int(file.runs.size()))
                          .arg(m_sweepDialog->sweepDir()).arg(pending));
            if (pending == 0)
                return;
            trainSweepInWindow(sweep, options(), formTaskPurpose(m_form->task()), false);
        });
    }
    m_sweepDialog->setBaseOptions(options(), formTaskPurpose(m_form->task()));
    m_sweepDialog->open();
    return m_sweepDialog;
}

/// Connects the sweep with runs at once so that the progress row and the plot follow its runs
/// (ConcurrentSweep's followed run) and the Log gets its lines. Once, when it is created.
void MainWindow::followConcurrentSweep()
{
    connect(m_concurrentSweep, &ConcurrentSweep::line, this, [this](const QString &text) { appendLog(text); });
    // The progress row counts the sweep's runs; its bar, the plot and the plot's name are the
    // followed run's (the one training longest), not the run shown before the sweep.
    const auto sweepStatus = [this] {
        const ConcurrentSweep *c = m_concurrentSweep;
        const QString shown = c->followed().isEmpty() ? QString() : tr(" · the plot shows %1").arg(c->followed());
        m_progress->setStatus(tr("Sweep: %1 of %2 run(s) done, %3 training").arg(c->doneCount()).arg(c->runCount())
                                  .arg(c->training().size())
                              + shown);
    };
    connect(m_concurrentSweep, &ConcurrentSweep::trainingChanged, this, [this, sweepStatus](const QStringList &runs) {
        if (runs.isEmpty())
            return;
        statusBar()->showMessage(
            tr("Sweep: training %1 (%n at once)", nullptr, int(runs.size())).arg(runs.join(QStringLiteral(", "))));
        sweepStatus();
    });
    connect(m_concurrentSweep, &ConcurrentSweep::followedChanged, this, [this, sweepStatus](const QString &run) {
        const ConcurrentSweep::RunRecord *record = m_concurrentSweep->record(run);
        ++m_shownRunGeneration; // a recorded run still being read is not shown over this one
        m_plot->clear();
        m_plot->setPretraining(false);
        m_plot->setRunName(QFileInfo(m_concurrentSweep->sweepDir()).fileName() + QLatin1Char('/') + run);
        m_progress->prepare(record && record->started ? record->started->total_steps : 0);
        if (record) {
            if (record->started)
                m_progress->runStarted(*record->started);
            for (const StepMetrics &m : record->steps)
                m_plot->addStep(m);
            for (const EvalMetrics &m : record->evals)
                m_plot->addEvaluation(m);
            if (!record->steps.empty())
                m_progress->stepCompleted(record->steps.back());
        }
        sweepStatus();
    });
    connect(m_concurrentSweep, &ConcurrentSweep::followedStarted, this, [this, sweepStatus](const RunStarted &info) {
        m_progress->runStarted(info);
        sweepStatus();
    });
}

/// Connects the overlay of the sweep's other runs training now beside the followed one. Once.
void MainWindow::overlayConcurrentSweepRuns()
{
    // The other runs training now are overlaid beside the followed one, redrawn at most once a
    // second; a run that ended leaves (Compare runs lists it when the sweep ends).
    struct LiveOverlays
    {
        QStringList paths;
        QElapsedTimer sinceDrawn;
    };
    const auto live = std::make_shared<LiveOverlays>();
    const auto drawOthers = [this, live](bool force) {
        if (!force && live->sinceDrawn.isValid() && live->sinceDrawn.elapsed() < 1000)
            return;
        live->sinceDrawn.start();
        for (const QString &path : std::exchange(live->paths, {}))
            m_plot->removeComparisonRun(path);
        const ConcurrentSweep *c = m_concurrentSweep;
        for (const QString &run : c->training()) {
            const ConcurrentSweep::RunRecord *record = c->record(run);
            if (run == c->followed() || !record)
                continue;
            RunHistory h;
            h.name = QFileInfo(c->sweepDir()).fileName() + QLatin1Char('/') + run;
            h.sourcePath = QStringLiteral("sweep-live:") + record->modelDir;
            for (const StepMetrics &m : record->steps) {
                h.trainStep.push_back(double(m.step));
                h.trainWallTime.push_back(m.wall_time);
                h.trainLoss.push_back(m.loss);
                h.learningRate.push_back(m.learning_rate);
            }
            for (const EvalMetrics &m : record->evals) {
                h.evalStep.push_back(double(m.step));
                h.evalWallTime.push_back(m.wall_time);
                h.evalLoss.push_back(m.eval_loss);
                h.evalAccuracy.push_back(m.regression ? std::numeric_limits<double>::quiet_NaN() : m.eval_accuracy);
            }
            m_plot->addComparisonRun(h, RunsTable::runColour(int(live->paths.size())));
            live->paths << h.sourcePath;
        }
    };
    connect(m_concurrentSweep, &ConcurrentSweep::trainingChanged, this, [drawOthers] { drawOthers(true); });
    connect(m_concurrentSweep, &ConcurrentSweep::followedChanged, this, [drawOthers] { drawOthers(true); });
    connect(m_concurrentSweep, &ConcurrentSweep::followedStep, this, [this, drawOthers](const StepMetrics &m) {
        m_plot->addStep(m);
        m_progress->stepCompleted(m);
        drawOthers(false);
    });
    connect(m_concurrentSweep, &ConcurrentSweep::followedEvaluation, m_plot, &LossPlot::addEvaluation);
}

/// Connects the end of a sweep with runs at once: its status, and when it completed, Compare
/// runs with the Sweep view of that sweep. Once.
void MainWindow::finishConcurrentSweep()
{
    connect(m_concurrentSweep, &ConcurrentSweep::finished, this, [this](int exitCode) {
        updateActions();
        const QString dir = m_concurrentSweep->sweepDir();
        m_progress->setStatus(exitCode == 0 ? tr("Sweep completed") : exitCode == 130 ? tr("Sweep stopped")
                                                                                       : tr("Sweep ended with errors"));
        if (exitCode == 0) {
            statusBar()->showMessage(tr("Sweep completed"), 6000);
            appendLog(tr("All runs of the sweep in %1 completed; Compare runs lists them.").arg(dir));
            m_runs->setGroupSeeds(false);
            scanRuns(m_concurrentSweep->record(m_concurrentSweep->followed())
                         ? m_concurrentSweep->record(m_concurrentSweep->followed())->modelDir
                         : dir + QStringLiteral("/run-001"));
            showTab(QStringLiteral("runsTab"));
            connect(m_runs, &RunsTable::scanned, this, [this, dir] { m_runs->showSweepView(dir); }, Qt::SingleShotConnection);
        } else {
            statusBar()->showMessage(exitCode == 130 ? tr("Sweep stopped") : tr("Sweep ended with errors"), 6000);
            appendLog(exitCode == 130 ? tr("The sweep stopped; Training → Sweep… with the same folder resumes it.")
                                      : tr("The sweep ended with errors (see the lines above); Training → Sweep… "
                                           "with the same folder goes on with the runs not completed."));
        }
    });
}

void MainWindow::startConcurrentSweep(const SweepFile &file)
{
    if (!m_concurrentSweep) {
        m_concurrentSweep = new ConcurrentSweep(this);
        m_concurrentSweep->setObjectName(QStringLiteral("concurrentSweep"));
        followConcurrentSweep();
        overlayConcurrentSweepRuns();
        finishConcurrentSweep();
    }
    QString error;
    if (!m_concurrentSweep->start(m_sweepDialog->sweepDir(), m_sweepDialog->runsAtOnce(), &error)) {
        appendLog(tr("The sweep did not start: %1").arg(error));
        return;
    }
    showTab(QStringLiteral("plotTab")); // the runs' curves, as a run in the window shows them
    appendLog(tr("Sweep in %1: %n run(s), up to %2 at once, each in its own process", nullptr, int(file.runs.size()))
                  .arg(m_sweepDialog->sweepDir())
                  .arg(m_sweepDialog->runsAtOnce()));
    updateActions();
}

} // namespace wb
