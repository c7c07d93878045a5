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
#include "ui/evaluation/evaluationview.h"
#include "ui/plot/historyreplay.h"
#include "ui/evaluation/learningcheck.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/runs/usedmodeldir.h"

#include <QFileInfo>
#include <QStatusBar>

#include <algorithm>
#include <cmath>
#include <limits>

namespace wb {

void MainWindow::newProject()
{
    m_projectPath.clear();
    setOptions(TrainingOptions{});
    clearRunViews();
    leaveStartPage();
    statusBar()->showMessage(tr("New project: choose a strategy and the model and data files, then press Train."), 6000);
}

void MainWindow::clearRunViews()
{
    m_plot->clear();
    m_plot->setAccuracyBaseline(std::numeric_limits<double>::quiet_NaN());
    m_plot->clearComparisonRuns();
    m_runs->clear();
    m_evalView->clear();
    m_progress->reset();
    m_learningWarnings.clear();
}

void MainWindow::loadBaseline(const TrainingOptions &o)
{
    QString reportError;
    const auto counts = evalLabelCountsFromPrepareReport(q(o.input_meta_data_path), &reportError);
    if (!reportError.isEmpty())
        appendLog(tr("warning: no majority-class baseline: %1").arg(reportError));
    const auto baseline = counts ? majorityBaseline(*counts) : std::nullopt;
    m_plot->setAccuracyBaseline(baseline ? baseline->accuracy : std::numeric_limits<double>::quiet_NaN());
    m_evalView->setBaseline(baseline);
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

void MainWindow::showRecordedRun(const TrainingOptions &o)
{
    clearRunViews();
    loadBaseline(o);
    if (o.model_dir.empty())
        return;
    const QString metrics = q(o.metricsPath());
    const UsedModelDir used = inspectModelDir(o);
    if (!QFileInfo::exists(metrics) && !used.used)
        return;
    std::string error;
    const MetricsLog log = readMetricsFile(metrics.toStdString(), &error);
    if (!error.empty())
        appendLog(tr("warning: %1").arg(q(error)));
    replayHistory(*m_plot, RunHistory::load(metrics), std::numeric_limits<int64_t>::max());
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
    int64_t step = std::max<int64_t>(used.step, log.train.empty() ? 0 : log.train.back().step);
    // A run without run_config.json (older versions) still has its training_summary.json.
    int64_t totalSteps = used.totalSteps;
    const RunHistory history = RunHistory::load(metrics);
    for (const QString &w : history.warnings)
        appendLog(tr("warning: %1").arg(w));
    if (totalSteps <= 0 && history.trainingSummary)
        totalSteps = history.trainingSummary->total_training_steps;
    if (step > 0)
        m_progress->showRecordedRun(step, totalSteps);
    if (!log.eval.empty()) {
        const EvalMetrics &last = log.eval.back();
        m_learningWarnings = learningWarnings(last, m_evalView->baseline(), o.init_checkpoint.empty(), o.learning_rate,
                                              m_evalView->labelNames());
        m_evalView->setWarnings(m_learningWarnings);
        if (!m_learningWarnings.isEmpty() && totalSteps > 0 && step >= totalSteps)
            m_progress->setLearningWarning(m_learningWarnings.join(QLatin1Char(' ')));
    }
    appendLog(tr("Opened the run in %1: step %2%3").arg(q(o.model_dir)).arg(step)
                  .arg(totalSteps > 0 ? tr(" of %1").arg(totalSteps) : QString()));
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
    const TrainingOptions o = m_controller->lastSpec();
    m_learningWarnings = learningWarnings(m, baseline, o.init_checkpoint.empty(), o.learning_rate,
                                          m_evalView->labelNames());
    m_evalView->setWarnings(m_learningWarnings);
}

} // namespace wb
