// SPDX-License-Identifier: Apache-2.0
// The main window's run: Train (the pre-flight check as a background job, the used-model_dir
// question), Stop and Resume, and the training controller's events.
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "core/config/bertconfig.h"
#include "core/config/jsonfile.h"
#include "core/config/optiontable.h"
#include "core/train/preparedrun.h"
#include "core/util/errortext.h"
#include "ui/form/configurationform.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/dialogs/exampleloader.h"
#include "ui/form/fieldhelp.h"
#include "ui/plot/historyreplay.h"
#include "ui/plot/lossplot.h"
#include "ui/dialogs/preparedatadialog.h"
#include "ui/runs/progresspanel.h"
#include "ui/form/projectfile.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/form/schedulepanel.h"
#include "ui/window/startpage.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/runs/usedmodeldir.h"

#include <QApplication>
#include <QClipboard>
#include <QCoreApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace wb {

bool MainWindow::train()
{
    if (m_controller->isRunning() || m_checking)
        return false;
    startPreflight(options(), true);
    return true;
}

namespace {

/// What the pre-flight job found: a run already in model_dir (asked about before anything
/// else), or the validation result.
struct PreflightOutcome
{
    UsedModelDir used;
    std::optional<PreparedRun> prepared;
};

/// Downloads options.pretrained_model when it is set and not on disk yet, reporting the bytes
/// as the job's progress. Returns the problem as a pre-flight finding (the validation dialog
/// shows it in the form's words), or nothing when the model is there. Runs on the job's thread.
std::optional<Diagnostics> fetchPretrainedForWindow(const TrainingOptions &o, const JobControl &job)
{
    if (o.pretrained_model.empty())
        return std::nullopt;
    try {
        fetchPretrainedModel(
            o,
            [&job](const DownloadProgress &p) {
                const int value = p.bytes_total > 0 ? int(double(kJobProgressMax) * double(p.bytes_done) / double(p.bytes_total)) : 0;
                QString text = QCoreApplication::translate("MainWindow", "Downloading %1: %2 (%3 of %4)")
                                   .arg(QString::fromStdString(p.repo_id), QString::fromStdString(p.file))
                                   .arg(p.file_index)
                                   .arg(p.file_count);
                if (p.seconds_left >= 0)
                    text += QCoreApplication::translate("MainWindow", ", about %1 s left").arg(qRound(p.seconds_left));
                job.setProgress(std::min(value, kJobProgressMax), text);
            },
            *job.stopToken());
    } catch (...) {
        const ErrorText e = describeCurrentException("pretrained_model");
        Diagnostics d;
        d.error(e.field.empty() ? "pretrained_model" : e.field, e.message, e.hint);
        return d;
    }
    return std::nullopt;
}

} // namespace

void MainWindow::startPreflight(const TrainingOptions &o, bool askAboutUsedDir)
{
    m_checking = true;
    updateActions();
    m_progress->setStatus(tr("Checking the configuration…"));
    statusBar()->showMessage(tr("Checking the configuration and the data files…"));
    // prepareRun (the one pre-flight check) scans the data files, initialises CUDA and binds
    // the rendezvous port: never on the GUI thread.
    m_preflight = runBackgroundJob<PreflightOutcome>(
        this,
        [o, askAboutUsedDir](const JobControl &job) {
            PreflightOutcome r;
            if (askAboutUsedDir) {
                r.used = inspectModelDir(o);
                if (r.used.used)
                    return r;
            }
            // "Start from" a pretrained model: download it first (once; the Hugging Face cache).
            if (const std::optional<Diagnostics> failed = fetchPretrainedForWindow(o, job)) {
                PreparedRun notFetched;
                notFetched.options = o;
                notFetched.validation.diagnostics = *failed;
                r.prepared = std::move(notFetched);
                return r;
            }
            r.prepared = prepareRun(o, RunPurpose::Train);
            return r;
        },
        [this, o](JobOutcome<PreflightOutcome> outcome) {
            m_checking = false;
            if (outcome.ok() && !outcome.value->prepared) {
                updateActions();
                m_progress->setStatus(tr("Waiting for your answer…"));
                askAboutUsedModelDir(outcome.value->used);
                Q_EMIT modelDirQuestionAsked();
                return;
            }
            JobOutcome<PreparedRun> prepared;
            prepared.error = outcome.error;
            if (outcome.ok())
                prepared.value = std::move(*outcome.value->prepared);
            bool started = false;
            guarded(tr("Cannot start training"), [&] {
                startValidatedRun(prepared);
                started = m_controller->isRunning();
            });
            if (!started)
                m_progress->setStatus(tr("Idle"));
            updateActions();
            Q_EMIT preflightFinished(started);
        },
        [this](int, const QString &text) { // a pretrained model's download
            if (!text.isEmpty())
                m_progress->setStatus(text);
        });
}

void MainWindow::startValidatedRun(const JobOutcome<PreparedRun> &outcome)
{
    const bool resuming = std::exchange(m_resuming, false);
    if (!outcome.ok()) {
        m_lastValidation = Diagnostics();
        m_lastValidation.error("pre-flight", outcome.error.message.toStdString(), outcome.error.hint.toStdString());
        reportError(tr("The configuration check failed"), outcome.error);
        return;
    }
    const PreparedRun &prepared = *outcome.value;
    const TrainingOptions &o = prepared.options;
    const ValidationResult &result = prepared.validation;
    m_lastValidation = result.diagnostics;
    if (!result.ok()) {
        showValidationErrors(result.diagnostics);
        // The Log speaks the dialog's words (form labels, menu commands), not the CLI's flags.
        const FormValidationText text = formValidationText(result.diagnostics);
        QString log = tr("Validation failed:\n") + text.errors;
        if (!text.hints.isEmpty())
            log += QStringLiteral("\n") + text.hints;
        if (!text.warnings.isEmpty())
            log += QStringLiteral("\n") + text.warnings;
        appendLog(log);
        statusBar()->showMessage(tr("Fix the problems listed, then press Train again."), 6000);
        return;
    }
    if (const QString warnings = formValidationText(result.diagnostics).warnings; !warnings.isEmpty())
        for (const QString &line : warnings.split(QLatin1Char('\n')))
            appendLog(tr("warning: %1").arg(line));
    if (resuming) { // the plot, evaluation and progress keep the run that is continued
        m_controller->start(prepared);
        return;
    }
    m_form->rememberPaths();
    try {
        // Records the configuration next to the run, for the run comparison table.
        ProjectFile::save(QDir(q(o.model_dir)).filePath(QStringLiteral("bert_workbench_project.json")), o);
    } catch (...) {
        appendLog(tr("warning: %1").arg(currentErrorReport().logLine()));
    }
    m_plot->clear();
    m_evalView->clear();
    m_learningWarnings.clear();
    loadBaseline(o);
    updateSchedule();
    m_runs->setLiveMetricsPath(q(o.metricsPath()));
    m_progress->prepare(result.schedule ? result.schedule->total_steps : 0);
    appendLog(tr("Starting training: %1 on %2, model_dir %3").arg(q(o.bert_config_file), q(o.distribution_strategy), q(o.model_dir)));
    statusBar()->showMessage(tr("Training started. Stop writes a checkpoint; Resume continues from it."), 8000);
    leaveStartPage();
    showTab(QStringLiteral("plotTab"));
    m_controller->start(prepared);
}

void MainWindow::stop()
{
    if (!m_controller->isRunning())
        return;
    m_controller->requestStop();
    m_progress->stopRequested();
    appendLog(tr("Stop requested: finishing the current step and writing a checkpoint."));
    updateActions();
}

bool MainWindow::resume()
{
    if (m_checking || !m_controller->canResume())
        return false;
    // Resume is a run like any other: checked again first (the data may have changed since).
    m_progress->restartTiming();
    appendLog(tr("Resuming from the latest checkpoint in %1").arg(q(m_controller->lastSpec().model_dir)));
    m_progress->setStatus(tr("Resuming…"));
    m_resuming = true;
    startPreflight(m_controller->lastSpec(), false);
    return true;
}

void MainWindow::handleRunStarted(const RunStarted &info)
{
    m_progress->runStarted(info);
    guarded(tr("Cannot read the run's history"), [&] {
        m_runs->scan(q(m_controller->lastSpec().model_dir));
        if (info.start_step > 0 && m_plot->pointCount(LossPlot::Series::TrainLoss) == 0) {
            // Resumed in a new session: show the history that is already on disk.
            replayHistory(*m_plot, RunHistory::load(q(m_controller->lastSpec().metricsPath())), info.start_step);
        }
    });
}

void MainWindow::handleStep(const StepMetrics &m)
{
    m_plot->addStep(m);
    m_progress->stepCompleted(m);
}

void MainWindow::handleEvaluation(const EvalMetrics &m)
{
    m_plot->addEvaluation(m);
    m_evalView->setEvaluation(m);
    showLearningCheck(m);
}

void MainWindow::handleCheckpoint(const CheckpointSaved &c)
{
    statusBar()->showMessage(tr("Checkpoint saved: %1").arg(q(c.path)), 5000);
    // The trainer writes eval_examples.jsonl after reporting an evaluation and before its checkpoint.
    m_evalView->loadExamples(q(m_controller->lastSpec().model_dir));
    updateSchedule(); // the checkpoints' disk use beside "Checkpoints kept"
    m_tryIt->checkpointSaved(q(m_controller->lastSpec().model_dir));
}

void MainWindow::handleFinished(const RunFinished &r)
{
    m_progress->finished(r);
    if (r.best_step >= 0) // the Evaluation tab offers the kept best model first, as Try it and export do
        m_evalView->showRunBest(m_controller->lastSpec().model_dir);
    switch (r.status) {
    case RunStatus::Completed:
        appendLog(tr("Run completed at step %1, final train loss %2").arg(r.last_step).arg(r.final_train_loss, 0, 'f', 4));
        if (r.stopped_early_at_step > 0) {
            const QString early = ProgressPanel::earlyStopText(r);
            appendLog(r.best_checkpoint.empty() ? early : tr("%1 (kept in %2)").arg(early, q(r.best_checkpoint)));
            statusBar()->showMessage(early.left(1).toUpper() + early.mid(1), 10000);
        }
        if (!m_learningWarnings.isEmpty()) {
            m_progress->setLearningWarning(m_learningWarnings.join(QLatin1Char(' ')));
            for (const QString &w : m_learningWarnings)
                appendLog(tr("warning: %1").arg(w));
            statusBar()->showMessage(tr("The model did not learn: see the Evaluation tab."), 10000);
        }
        break;
    case RunStatus::Cancelled:
        appendLog(tr("Run stopped at step %1; checkpoint %2. Press Resume to continue.")
                      .arg(r.last_step).arg(r.last_checkpoint.empty() ? tr("(none)") : q(r.last_checkpoint)));
        break;
    case RunStatus::Failed: {
        statusBar()->showMessage(tr("Training failed: %1").arg(formWording(q(r.message)).section(QLatin1Char('\n'), 0, 0)));
        appendLog(tr("Run failed: %1%2").arg(r.field.empty() ? QString() : q(r.field) + QStringLiteral(": "), formWording(q(r.message))));
        if (!r.hint.empty())
            appendLog(tr("  (%1)").arg(formWording(q(r.hint))));
        if (!m_runErrorBox) {
            m_runErrorBox = new QMessageBox(this);
            m_runErrorBox->setObjectName(QStringLiteral("runErrorDialog"));
            m_runErrorBox->setIcon(QMessageBox::Critical);
            m_runErrorBox->setWindowTitle(tr("Training failed"));
            m_runErrorBox->setTextFormat(Qt::PlainText);
            m_runErrorBox->setWindowModality(Qt::WindowModal);
        }
        m_runErrorBox->setText(r.field.empty() ? formWording(q(r.message)) : QStringLiteral("%1: %2").arg(q(r.field), formWording(q(r.message))));
        m_runErrorBox->setInformativeText(r.hint.empty() ? QString() : tr("How to fix: %1").arg(formWording(q(r.hint))));
        m_runErrorBox->setDetailedText(r.last_checkpoint.empty() ? QString() : tr("Latest checkpoint: %1").arg(q(r.last_checkpoint)));
        if (!m_closeAfterStop)
            m_runErrorBox->open();
        break;
    }
    }
    guarded(tr("Cannot list the runs"), [this] { m_runs->scan(q(m_controller->lastSpec().model_dir)); });
    m_evalView->loadExamples(q(m_controller->lastSpec().model_dir));
    updateActions();
    if (m_closeAfterStop)
        close();
}

} // namespace wb
