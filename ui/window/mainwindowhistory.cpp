// SPDX-License-Identifier: Apache-2.0
// The main window and a project's run: a new project starts clean, an opened project shows
// the run recorded in its model_dir (metrics.jsonl, checkpoints, run_config.json), and each
// evaluation is held against the majority-class baseline (issue 16 items 2 and 4).
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/labelnames.h"
#include "core/io/metricsreader.h"
#include "core/advice/coach.h"
#include "core/formats/runend.h"
#include "ui/evaluation/datamapview.h"
#include "ui/evaluation/suspectstable.h"
#include "ui/evaluation/embeddingview.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/form/configurationform.h"
#include "ui/plot/historyreplay.h"
#include "ui/evaluation/learningcheck.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/runs/usedmodeldir.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/common/backgroundjob.h"
#include "ui/window/runsession.h"

#include <QDir>
#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

void MainWindow::newProject()
{
    m_projectPath.clear();
    m_tryIt->startOver(); // no text of the previous project's
    m_form->setTask(FormTask::Classify);
    setOptions(TrainingOptions{});
    clearRunViews();
    m_shownModelDir = q(options().model_dir);
    leaveStartPage();
    statusBar()->showMessage(tr("New project: choose a strategy and the model and data files, then press Train."), 6000);
}

void MainWindow::clearRunViews()
{
    m_plot->clear();
    m_plot->setAccuracyBaseline(std::numeric_limits<double>::quiet_NaN());
    m_plot->setBagOfWordsBaseline(std::numeric_limits<double>::quiet_NaN());
    m_plot->clearComparisonRuns();
    m_plot->setRunName(QString());
    m_runs->clear();
    m_evalView->clear();
    m_evalView->setCoachNotes({});
    m_progress->reset();
    m_learningWarnings.clear();
    ++m_shownRunGeneration;
    m_session->setResumableModelDir(QString());
    m_finishedRunDir.clear(); // no teacher to distil until a finished run is shown again
    updateActions();
}

void MainWindow::loadBaseline(const TrainingOptions &o, bool pretraining)
{
    if (pretraining) { // a masked LM has no majority class, and the data's bag of words is no MLM yardstick
        m_plot->setAccuracyBaseline(std::numeric_limits<double>::quiet_NaN());
        m_plot->setBagOfWordsBaseline(std::numeric_limits<double>::quiet_NaN());
        m_evalView->setBaseline(std::nullopt);
        m_evalView->setBagOfWordsBaseline(std::nullopt);
        return;
    }
    QString reportError;
    const auto counts = evalLabelCountsFromPrepareReport(q(o.input_meta_data_path), &reportError);
    if (!reportError.isEmpty())
        appendLog(tr("warning: no majority-class baseline: %1").arg(reportError));
    const auto baseline = counts ? majorityBaseline(*counts) : std::nullopt;
    m_plot->setAccuracyBaseline(baseline ? baseline->accuracy : std::numeric_limits<double>::quiet_NaN());
    m_evalView->setBaseline(baseline);
    // The bag-of-words baseline prepare fitted (TF-IDF + logistic regression): a second line.
    const auto bagOfWords = bagOfWordsAccuracyFromPrepareReport(q(o.input_meta_data_path));
    m_plot->setBagOfWordsBaseline(bagOfWords.value_or(std::numeric_limits<double>::quiet_NaN()));
    m_evalView->setBagOfWordsBaseline(bagOfWords);
}

void MainWindow::updateLabelNames(const TrainingOptions &o)
{
    std::vector<std::string> names;
    if (!o.input_meta_data_path.empty() && QFileInfo(q(o.input_meta_data_path)).isFile()) {
        Diagnostics diag; // the schedule panel reports the meta data's problems
        const auto meta = InputMetaData::load(o.input_meta_data_path, diag);
        std::vector<std::string> configNames;
        if (!o.bert_config_file.empty() && QFileInfo(q(o.bert_config_file)).isFile())
            if (const auto cfg = BertConfig::load(o.bert_config_file, diag))
                configNames = cfg->labelNames();
        if (meta && !meta->isRegression())
            names = readLabelNames(o.input_meta_data_path, meta->num_labels, configNames).names;
    }
    m_evalView->setLabelNames(names);
}

/// What a project's model_dir records, read on a pool thread (showRecordedRun).
struct RecordedRun
{
    bool found = false;  ///< metrics.jsonl or a run (checkpoints, run_config.json) is there
    UsedModelDir used;
    MetricsLog log;
    std::string metricsError;
    RunHistory history;
    std::vector<CoachNote> coach; ///< the coach's current notes over the recorded run (coachNotesOf)
    /// How the run ended (training_summary.json, best/best.json; recordedRunEnd), at the step its
    /// files reach of the schedule's steps (run_config.json, else the summary's; 0: unknown).
    RunEnd end;
};

namespace {

/// Reads what o.model_dir records (inspectModelDir, metrics.jsonl and the files beside it).
/// Any thread; captures nothing of the window.
RecordedRun readRecordedRun(const TrainingOptions &o)
{
    RecordedRun r;
    const QString metrics = q(o.metricsPath());
    r.used = inspectModelDir(o);
    if (!QFileInfo::exists(metrics) && !r.used.used)
        return r;
    r.found = true;
    r.log = readMetricsFile(metrics.toStdString(), &r.metricsError);
    r.history = RunHistory::load(metrics);
    // The run's facts from its run_config.json (the project's options where it has none), and
    // the coach over its metric stream: what the live run's views showed, withdrawn notes gone.
    RunFacts facts = recordedRunFacts(o.model_dir, &o);
    r.coach = coachNotesOf(facts, r.log);
    const int64_t step = std::max<int64_t>(r.used.step, r.log.train.empty() ? 0 : r.log.train.back().step);
    // A run without run_config.json (older versions) still has its training_summary.json.
    int64_t totalSteps = r.used.totalSteps;
    if (totalSteps <= 0 && r.history.trainingSummary)
        totalSteps = r.history.trainingSummary->total_training_steps;
    r.end = recordedRunEnd(o.model_dir, step, totalSteps);
    return r;
}

} // namespace

void MainWindow::showRecordedRun(const TrainingOptions &o)
{
    clearRunViews(); // also makes a recorded run still being read stale
    m_shownModelDir = q(o.model_dir);
    loadBaseline(o, m_form->task() == FormTask::Pretrain);
    m_embeddings->setModelDir(q(o.model_dir), o.save_embeddings); // the saved evaluations' vectors, read in the background
    m_dataMap->setRun(o); // training_dynamics.jsonl and the training texts, read in the background
    m_suspects->setRun(o); // its suspects and corrections.jsonl, likewise
    if (o.model_dir.empty())
        return;
    const quint64 generation = m_shownRunGeneration;
    runBackgroundJob<RecordedRun>(
        this, [o](const JobControl &) { return readRecordedRun(o); },
        [this, o, generation](JobOutcome<RecordedRun> outcome) {
            // Still current: no other project, new project or run was shown since, and the form
            // still names this model_dir (the user may have typed another one meanwhile).
            if (generation != m_shownRunGeneration || options().model_dir != o.model_dir || m_session->isRunning()) {
                Q_EMIT recordedRunDropped(q(o.model_dir));
                return;
            }
            if (!outcome.ok()) {
                reportError(tr("Cannot read the project's run"), outcome.error);
                return;
            }
            guarded(tr("Cannot read the project's run"), [&] { applyRecordedRun(o, *outcome.value); });
            Q_EMIT recordedRunShown(q(o.model_dir));
        });
}

void MainWindow::applyRecordedRun(const TrainingOptions &o, const RecordedRun &run)
{
    if (!run.found)
        return;
    m_session->setResumableModelDir(run.used.canContinue() ? q(o.model_dir) : QString()); // Resume after a restart
    const QString metrics = q(o.metricsPath());
    const MetricsLog &log = run.log;
    if (!run.metricsError.empty())
        appendLog(tr("warning: %1").arg(q(run.metricsError)));
    replayHistory(*m_plot, run.history, std::numeric_limits<int64_t>::max());
    // Named in the legend, and Compare runs lists it and its neighbours without Find runs.
    m_plot->setRunName(QDir(q(o.model_dir)).dirName());
    m_runs->setLiveMetricsPath(metrics);
    scanRuns(q(o.model_dir));
    if (!log.eval.empty()) {
        // The best checkpoint's evaluation when the run kept one (what Try it and export use), else the last.
        QString which;
        EvalMetrics last = EvaluationView::evaluationToShow(log.eval, o.model_dir, &which);
        // metrics.jsonl's eval line has no "binary" key; a binary task records F1 and MCC.
        last.binary = !last.regression && (last.eval_f1 != 0 || last.eval_mcc != 0);
        m_evalView->setEvaluation(last, which);
        m_evalView->setNote(tr("Recorded evaluation from %1; the confusion matrix and the top losses come from "
                               "eval_examples.jsonl, written at each evaluation.").arg(metrics));
    }
    m_evalView->loadExamples(q(o.model_dir));
    for (const QString &w : run.history.warnings)
        appendLog(tr("warning: %1").arg(w));
    const RunEnd &end = run.end;
    if (end.kind != RunEnd::Kind::None)
        m_progress->showRecordedRun(end);
    m_progress->setCoachNotes(run.coach); // the coach is the only author of advice
    m_evalView->setCoachNotes(run.coach);
    m_learningWarnings = learningVerdictTexts(run.coach);
    showRunEnd(end, false); // the words the window said when the run ended here
    noteRunEnd(q(o.model_dir), end, m_form->task() == FormTask::Pretrain); // a teacher for Distil Model…
    appendLog(tr("Opened the run in %1: step %2%3").arg(q(o.model_dir)).arg(end.last_step)
                  .arg(end.total_steps > 0 ? tr(" of %1").arg(end.total_steps) : QString()));
}

void MainWindow::connectFormModelDir()
{
    // The form's model_dir is the run shown (and the run Resume continues): once the user
    // pauses typing another one, its run is loaded (followFormModelDir).
    m_modelDirTimer = new QTimer(this);
    m_modelDirTimer->setSingleShot(true);
    m_modelDirTimer->setInterval(400);
    connect(m_modelDirTimer, &QTimer::timeout, this, &MainWindow::followFormModelDir);
    connect(m_form, &ConfigurationForm::edited, this, [this] {
        updateActions();
        if (q(options().model_dir) != m_shownModelDir)
            m_modelDirTimer->start();
    });
}

void MainWindow::followFormModelDir()
{
    const TrainingOptions o = options();
    if (q(o.model_dir) == m_shownModelDir || m_session->isRunning() || m_session->isChecking())
        return;
    guarded(tr("Cannot read the run"), [&] { showRecordedRun(o); }); // empty views when the folder holds none
}

void MainWindow::loadRecordedHistory(const TrainingOptions &o, int64_t upToStep)
{
    // Read here, not on a pool thread: the run's next steps are already on their way and must
    // be drawn after the history that precedes them (one metrics.jsonl, read once at Resume).
    guarded(tr("Cannot read the run's history"),
            [&] { replayHistory(*m_plot, RunHistory::load(q(o.metricsPath())), upToStep); });
}

void MainWindow::scanRuns(const QString &modelDir)
{
    m_runs->scanInBackground(modelDir);
}

void MainWindow::showLearningCheck(const EvalMetrics &m)
{
    if (m.regression)
        return;
    std::optional<MajorityBaseline> baseline;
    if (!m.confusion.empty())
        baseline = majorityBaseline(trueLabelCounts(m.confusion));
    if (!baseline)
        baseline = m_evalView->baseline();
    m_evalView->setBaseline(baseline);
    m_plot->setAccuracyBaseline(baseline ? baseline->accuracy : std::numeric_limits<double>::quiet_NaN());
    // What the evaluation says about learning is the coach's: its notes follow (RunSession::coachNotesChanged).
}

} // namespace wb
