// SPDX-License-Identifier: Apache-2.0
// The main window's views of a run: RunSession controls the run (Train, Stop, Resume, the
// progress line); the window draws its curves, evaluations and checkpoints, and lists it in
// Compare runs.
#include "ui/window/mainwindow.h"
#include "core/formats/runend.h"
#include "ui/common/qtext.h"

#include "ui/evaluation/datamapview.h"
#include "ui/evaluation/suspectstable.h"
#include "ui/dialogs/preparedatadialog.h"
#include "ui/evaluation/embeddingview.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/evaluation/learningcheck.h"
#include "ui/plot/historyreplay.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/tryit/fillmaskpanel.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/window/concurrentsweep.h"
#include "ui/window/runsession.h"

#include "core/formats/sweepnames.h"

#include <QAction>
#include <QDir>
#include <QStatusBar>

#include <limits>

namespace wb {

bool MainWindow::train() { return m_session->train(); }

void MainWindow::stop()
{
    if (m_concurrentSweep && m_concurrentSweep->isRunning())
        m_concurrentSweep->stop();
    m_session->stop();
}

bool MainWindow::resume() { return m_session->resume(); }

void MainWindow::connectRunSession()
{
    TrainingController *controller = m_session->controller();
    connect(m_session, &RunSession::logLine, this, &MainWindow::appendLog);
    connect(m_session, &RunSession::stateChanged, this, &MainWindow::updateActions);
    connect(m_session, &RunSession::runStarting, this, &MainWindow::handleRunStarting);
    connect(m_session, &RunSession::runFinished, this, &MainWindow::handleFinished);
    // The coach is the only author of advice: the Evaluation box shows its current notes.
    connect(m_session, &RunSession::coachNotesChanged, this, [this] {
        m_learningWarnings = learningVerdictTexts(m_progress->coachNotes());
        m_evalView->setCoachNotes(m_progress->coachNotes());
    });
    connect(controller, &TrainingController::runStarted, this, &MainWindow::handleRunStarted);
    connect(controller, &TrainingController::stepCompleted, m_plot, &LossPlot::addStep);
    connect(controller, &TrainingController::evaluationCompleted, this, &MainWindow::handleEvaluation);
    connect(controller, &TrainingController::checkpointSaved, this, &MainWindow::handleCheckpoint);
}

void MainWindow::handleRunStarting(const PreparedRun &prepared)
{
    const TrainingOptions &o = prepared.options;
    ++m_shownRunGeneration; // a recorded run still being read is not shown over this one
    m_finishedRunDir.clear(); // training again: not a finished run (until it ends)
    m_shownModelDir = q(o.model_dir);
    m_plot->clear();
    m_evalView->clear();
    m_evalView->setCoachNotes({});
    m_learningWarnings.clear();
    const bool pretraining = prepared.purpose == RunPurpose::Pretrain;
    m_plot->setPretraining(pretraining);
    loadBaseline(o, pretraining);
    updateSchedule();
    m_runs->setLiveMetricsPath(q(o.metricsPath()));
    m_plot->setRunName(q(runDisplayName(o.model_dir))); // told apart from the overlaid runs ("sweep-1/run-002")
    leaveStartPage();
    showTab(QStringLiteral("plotTab"));
}

void MainWindow::handleRunStarted(const RunStarted &info)
{
    const TrainingOptions &o = m_session->controller()->lastSpec();
    scanRuns(q(o.model_dir));
    m_dataMap->setRun(o); // a resumed run's map so far; a new run's says "yet"
    m_suspects->setRun(o);
    if (info.start_step > 0 && m_plot->pointCount(LossPlot::Series::TrainLoss) == 0) {
        // Resumed in a new session: show the history that is already on disk (read off the
        // GUI thread; dropped when another run or project has been shown meanwhile).
        loadRecordedHistory(o, info.start_step);
    }
}

void MainWindow::handleEvaluation(const EvalMetrics &m)
{
    m_plot->addEvaluation(m);
    if (m_session->controller()->lastPurpose() == RunPurpose::Pretrain)
        return; // the curves say it all (MLM loss and accuracy); the Evaluation tab is a classifier's
    m_evalView->setEvaluation(m);
    showLearningCheck(m);
}

void MainWindow::handleCheckpoint(const CheckpointSaved &)
{
    const QString modelDir = q(m_session->controller()->lastSpec().model_dir);
    // The trainer writes eval_examples.jsonl after reporting an evaluation and before its checkpoint.
    m_evalView->loadExamples(modelDir);
    m_embeddings->setModelDir(modelDir, m_session->controller()->lastSpec().save_embeddings); // the evaluation's embeddings/step-N.safetensors
    m_dataMap->setRun(m_session->controller()->lastSpec()); // training_dynamics.jsonl, written before the checkpoint
    m_suspects->setRun(m_session->controller()->lastSpec());
    updateSchedule(); // the checkpoints' disk use beside "Checkpoints kept"
    m_tryIt->checkpointSaved(modelDir);
    m_fillMask->checkpointSaved(modelDir);
}

void MainWindow::handleFinished(const RunFinished &r)
{
    if (r.best_step >= 0) // the Evaluation tab offers the kept best model first, as Try it and export do
        m_evalView->showRunBest(m_session->controller()->lastSpec().model_dir);
    if (r.status == RunStatus::Completed)
        for (const QString &w : m_learningWarnings)
            appendLog(tr("warning: %1").arg(w));
    showRunEnd(runEndOf(r), true);
    const QString modelDir = q(m_session->controller()->lastSpec().model_dir);
    noteRunEnd(modelDir, runEndOf(r), m_session->controller()->lastPurpose() == RunPurpose::Pretrain);
    scanRuns(modelDir);
    m_evalView->loadExamples(modelDir);
    if (m_closeAfterStop)
        close();
}

void MainWindow::showRunEnd(const RunEnd &end, bool live)
{
    const QString phrase = q(runEndPhrase(end));
    const bool ended = end.kind == RunEnd::Kind::Completed || end.kind == RunEnd::Kind::StoppedEarly;
    m_evalView->setRunEnd(end.best_step >= 0 ? phrase : QString());
    if (ended && !m_learningWarnings.isEmpty()) {
        m_progress->setLearningWarning(m_learningWarnings.join(QLatin1Char(' ')), end);
        statusBar()->showMessage(tr("%1 — the model did not learn: see the Evaluation tab.").arg(q(RunEndPhrase(end))), 10000);
    } else if (const QString verdict = m_evalView->bagOfWordsVerdictText(); live && ended && !verdict.isEmpty()) {
        statusBar()->showMessage(verdict, 15000); // the run's Log has the same sentence from the trainer
    } else if (end.kind == RunEnd::Kind::StoppedEarly || end.best_step >= 0) {
        statusBar()->showMessage(q(RunEndPhrase(end)), 10000);
    }
}

void MainWindow::connectSuspects()
{
    // A suspect: its training text in Try it, explained for its label as given (as a data map point).
    connect(m_suspects, &SuspectsTable::explainRequested, this,
            [this](const QString &text, const QString &textB, qlonglong classId) {
                m_tabs->setCurrentWidget(m_tryIt);
                m_tryIt->explainText(text, textB, classId);
            });
    // The run's data again, with the same split and the decisions (docs/data-map.md, "The loop").
    connect(m_suspects, &SuspectsTable::prepareWithCorrectionsRequested, this,
            [this](const QString &meta, const QString &split, const QString &corrections) {
                openPrepareData()->useCorrections(meta, split, corrections);
            });
}

} // namespace wb
