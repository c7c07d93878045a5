// SPDX-License-Identifier: Apache-2.0
// The window's run control: Train (the pre-flight check as a background job, the used-model_dir
// question), Stop and Resume, and what the progress line, the status bar and the Log say
// about the run.
#include "ui/window/runsession.h"
#include "ui/common/qtext.h"

#include "core/advice/coach.h"
#include "core/engine/preflight.h"
#include "core/engine/runplan.h"
#include "core/formats/runend.h"
#include "ui/form/configurationform.h"
#include "ui/form/fieldhelp.h"
#include "ui/form/modeldownloadpanel.h"
#include "ui/form/projectfile.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/runs/usedmodeldir.h"
#include "ui/window/errorbox.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace wb {

namespace {

/// What the pre-flight job found: a run already in model_dir (asked about before anything
/// else), or the validation result.
struct PreflightOutcome
{
    UsedModelDir used;
    std::optional<PreparedRun> prepared;
};

/// A window-modal critical box over `parent`, named `objectName` and titled `title`, that shows
/// its text as plain text: the session keeps it and sets its texts before each open().
QMessageBox *newCriticalBox(QWidget *parent, const QString &objectName, const QString &title)
{
    auto *box = new QMessageBox(parent);
    box->setObjectName(objectName);
    box->setIcon(QMessageBox::Critical);
    box->setWindowTitle(title);
    box->setTextFormat(Qt::PlainText);
    box->setWindowModality(Qt::WindowModal);
    return box;
}

/// The pretrained model's download as the job's progress: the bytes and the line of the form's
/// download panel (downloadProgressText), shown there with Cancel. Runs on the job's thread.
DownloadProgressFn downloadProgressForJob(const JobControl &job)
{
    return [&job](const DownloadProgress &p) {
        if (!p.notice.empty())
            return;
        const int value = p.bytes_total > 0 ? int(double(kJobProgressMax) * double(p.bytes_done) / double(p.bytes_total)) : 0;
        job.setProgress(std::min(value, kJobProgressMax), downloadProgressText(p));
    };
}

/// The pre-flight job's work (on a pool thread; captures only values).
PreflightOutcome preflight(const TrainingOptions &o, RunPurpose purpose, bool askAboutUsedDir, const JobControl &job)
{
    PreflightOutcome r;
    if (askAboutUsedDir) {
        // An obvious form error (a learning rate of 0) comes before the question about the run:
        // then the whole check reports it with every other problem, and nothing is downloaded.
        Diagnostics values;
        checkOptionValues(o, values);
        if (values.hasErrors()) {
            r.prepared = prepareRun(o, purpose);
            return r;
        }
        r.used = inspectModelDir(o);
        if (r.used.used)
            return r;
    }
    // The core's one path, as the CLI's train and pretrain: "Start from" a pretrained model is
    // downloaded first (once; the Hugging Face cache), then the pre-flight check. A step that
    // failed is in the plan's diagnostics (the validation dialog shows it in the form's words).
    PlanFrontEnd frontEnd;
    frontEnd.progress = downloadProgressForJob(job);
    r.prepared = planRun(o, purpose, frontEnd, *job.stopToken()).run;
    return r;
}

} // namespace

RunSession::RunSession(ConfigurationForm *form, ProgressPanel *progress, QStatusBar *statusBar, QWidget *window)
    : QObject(window), m_form(form), m_progress(progress), m_statusBar(statusBar), m_window(window),
      m_controller(new TrainingController(this))
{
    setObjectName(QStringLiteral("runSession"));
    connect(m_controller, &TrainingController::runStarted, this, &RunSession::handleRunStarted);
    connect(m_controller, &TrainingController::stepCompleted, m_progress, &ProgressPanel::stepCompleted);
    connect(m_controller, &TrainingController::checkpointSaved, this, &RunSession::handleCheckpoint);
    connect(m_controller, &TrainingController::logMessage, this, &RunSession::logLine);
    connect(m_controller, &TrainingController::coachNote, this, [this](const CoachNote &n) { // the coach: line + Log
        m_progress->showCoachNote(n);
        Q_EMIT logLine(n.severity == kWithdrawn ? tr("note withdrawn: %1").arg(QString::fromStdString(n.text))
                                                : tr("note: %1").arg(QString::fromStdString(n.text)));
        Q_EMIT coachNotesChanged();
    });
    connect(m_controller, &TrainingController::finished, this, &RunSession::handleFinished);
    connect(m_controller, &TrainingController::runningChanged, this, &RunSession::stateChanged);
}

RunSession::~RunSession()
{
    // The check captures nothing of the session; waiting lets it end before the process does.
    m_preflight.waitForFinished();
}

bool RunSession::isRunning() const { return m_controller->isRunning(); }

bool RunSession::canTrain() const { return !m_controller->isRunning() && !m_checking; }

bool RunSession::canStop() const { return m_controller->isRunning() && !m_controller->isStopRequested(); }

bool RunSession::canResume() const
{
    return !m_checking && !m_controller->isRunning() && !m_resumableDir.isEmpty()
           && q(m_form->options().model_dir) == m_resumableDir;
}

void RunSession::setResumableModelDir(const QString &modelDir)
{
    m_resumableDir = modelDir;
    Q_EMIT stateChanged();
}

void RunSession::showStatus(const QString &text, int timeoutMs) { m_statusBar->showMessage(text, timeoutMs); }

bool RunSession::train()
{
    if (!canTrain())
        return false;
    m_purpose = formTaskPurpose(m_form->task());
    startPreflight(m_form->options(), true);
    return true;
}

bool RunSession::trainOptions(const TrainingOptions &o, RunPurpose purpose)
{
    if (!canTrain())
        return false;
    m_purpose = purpose;
    startPreflight(o, false);
    return true;
}

void RunSession::startPreflight(const TrainingOptions &o, bool askAboutUsedDir)
{
    const RunPurpose purpose = m_purpose;
    m_checking = true;
    Q_EMIT stateChanged();
    m_progress->holdStatus(); // a check that starts nothing gives the shown run's status back
    m_progress->setStatus(tr("Checking the configuration…"));
    showStatus(tr("Checking the configuration and the data files…"));
    // prepareRun (the one pre-flight check) scans the data files, initialises CUDA and binds
    // the rendezvous port: never on the GUI thread.
    m_preflight = runBackgroundJob<PreflightOutcome>(
        this, [o, purpose, askAboutUsedDir](const JobControl &job) { return preflight(o, purpose, askAboutUsedDir, job); },
        [this](JobOutcome<PreflightOutcome> outcome) {
            m_form->startModelDownload()->endOutsideProgress();
            m_checking = false;
            if (outcome.ok() && !outcome.value->prepared) {
                Q_EMIT stateChanged();
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
            try {
                startValidatedRun(prepared);
                started = m_controller->isRunning();
            } catch (...) {
                reportError(tr("Cannot start training"), currentErrorReport());
            }
            if (!started)
                m_progress->restoreStatus();
            Q_EMIT stateChanged();
            Q_EMIT preflightFinished(started);
        },
        [this](int value, const QString &text) { // a pretrained model's download: a bar and Cancel under Start from
            if (text.isEmpty())
                return;
            m_progress->setStatus(text.section(QLatin1Char('\n'), 1));
            m_form->startModelDownload()->showOutsideProgress(value, text, [this] { m_preflight.cancel(); });
        });
}

void RunSession::startValidatedRun(const JobOutcome<PreparedRun> &outcome)
{
    const bool resuming = std::exchange(m_resuming, false);
    if (!outcome.ok()) {
        m_lastValidation = Diagnostics();
        m_lastValidation.error("pre-flight", outcome.error.message.toStdString(), outcome.error.hint.toStdString());
        reportError(tr("The configuration check failed"), outcome.error);
        return;
    }
    const PreparedRun &prepared = *outcome.value;
    const ValidationResult &result = prepared.validation;
    m_lastValidation = result.diagnostics;
    if (!result.ok()) {
        showValidationErrors(result.diagnostics);
        logValidationFailure(result.diagnostics);
        showStatus(tr("Fix the problems listed, then press Train again."), 6000);
        return;
    }
    if (const QString warnings = formValidationText(result.diagnostics).warnings; !warnings.isEmpty())
        for (const QString &line : warnings.split(QLatin1Char('\n')))
            Q_EMIT logLine(tr("warning: %1").arg(line));
    m_workers = prepared.local_workers.num_workers;
    if (resuming) { // the plot, evaluation and progress keep the run that is continued
        m_controller->start(prepared);
        return;
    }
    startNewRun(prepared);
}

void RunSession::startNewRun(const PreparedRun &prepared)
{
    const TrainingOptions &o = prepared.options;
    m_resumableDir.clear();
    m_form->rememberPaths();
    try {
        // Records the configuration next to the run, for the run comparison table.
        ProjectFile::save(QDir(q(o.model_dir)).filePath(QStringLiteral("bert_workbench_project.json")), o,
                          prepared.purpose == RunPurpose::Pretrain ? FormTask::Pretrain : FormTask::Classify);
    } catch (...) {
        Q_EMIT logLine(tr("warning: %1").arg(currentErrorReport().logLine()));
    }
    Q_EMIT runStarting(prepared);
    m_progress->prepare(prepared.validation.schedule ? prepared.validation.schedule->total_steps : 0);
    const bool pretraining = prepared.purpose == RunPurpose::Pretrain;
    Q_EMIT logLine((pretraining ? tr("Starting pretraining: %1 on %2, model_dir %3") : tr("Starting training: %1 on %2, model_dir %3"))
                       .arg(q(o.bert_config_file), q(o.distribution_strategy), q(o.model_dir)));
    showStatus((pretraining ? tr("Pretraining started.") : tr("Training started.")) + QLatin1Char(' ')
                   + tr("Stop writes a checkpoint; Resume continues from it."),
               8000);
    m_controller->start(prepared);
}

void RunSession::logValidationFailure(const Diagnostics &diag)
{
    // The Log speaks the dialog's words (form labels, menu commands), not the CLI's flags.
    const FormValidationText text = formValidationText(diag);
    QString log = tr("Validation failed:\n") + text.errors;
    if (!text.hints.isEmpty())
        log += QStringLiteral("\n") + text.hints;
    if (!text.warnings.isEmpty())
        log += QStringLiteral("\n") + text.warnings;
    Q_EMIT logLine(log);
}

void RunSession::showValidationErrors(const Diagnostics &diag)
{
    const FormValidationText text = formValidationText(diag);
    if (!m_validationBox) {
        m_validationBox = newCriticalBox(m_window, QStringLiteral("validationDialog"), tr("Cannot start training"));
        m_validationBox->setStandardButtons(QMessageBox::Ok);
    }
    m_form->highlightFields(text.fields);
    m_validationBox->setText(text.errors);
    m_validationBox->setInformativeText(text.hints.isEmpty() ? QString() : tr("How to fix:\n") + text.hints);
    m_validationBox->setDetailedText(text.warnings);
    m_validationBox->open();
}

void RunSession::reportError(const QString &title, const ErrorReport &error)
{
    Q_EMIT logLine(tr("%1: %2").arg(title, error.logLine()));
    openErrorBox(m_window, title, error);
}

void RunSession::stop()
{
    if (!m_controller->isRunning())
        return;
    m_controller->requestStop();
    m_progress->stopRequested();
    Q_EMIT logLine(tr("Stop requested: finishing the current step and writing a checkpoint."));
    Q_EMIT stateChanged();
}

bool RunSession::resume()
{
    if (!canResume())
        return false;
    // Resume is a run like any other: checked again first (the data may have changed since).
    m_progress->restartTiming();
    Q_EMIT logLine(tr("Resuming from the latest checkpoint in %1").arg(m_resumableDir));
    if (m_controller->canResume() && q(m_controller->lastSpec().model_dir) == m_resumableDir) {
        m_progress->setStatus(tr("Resuming…"));
        m_resuming = true;
        m_purpose = m_controller->lastPurpose(); // a pretraining run resumes as one
        startPreflight(m_controller->lastSpec(), false);
        return true;
    }
    // A run recorded on disk (stopped in an earlier session): the form's options continue it,
    // as Train → Continue it does; the window draws its history up to the checkpoint.
    m_purpose = formTaskPurpose(m_form->task());
    startPreflight(m_form->options(), false);
    return true;
}

QDialog *RunSession::createUsedModelDirDialog()
{
    auto *dialog = new QDialog(m_window);
    dialog->setObjectName(QStringLiteral("usedModelDirDialog"));
    dialog->setWindowTitle(tr("This folder holds a run"));
    dialog->setWindowModality(Qt::WindowModal);
    auto *text = new QLabel(dialog);
    text->setObjectName(QStringLiteral("usedModelDirText"));
    text->setTextFormat(Qt::PlainText);
    text->setWordWrap(true);
    text->setMinimumWidth(460);
    auto *newDir = new QLineEdit(dialog);
    newDir->setObjectName(QStringLiteral("newModelDir"));
    newDir->setToolTip(tr("The folder for the new run; the run in the current folder stays as it is"));
    auto *buttons = new QDialogButtonBox(dialog);
    QPushButton *continueButton = buttons->addButton(tr("&Continue it"), QDialogButtonBox::AcceptRole);
    continueButton->setObjectName(QStringLiteral("continueRun"));
    QPushButton *newButton = buttons->addButton(tr("Start a &new run"), QDialogButtonBox::AcceptRole);
    newButton->setObjectName(QStringLiteral("startNewRun"));
    QPushButton *cancel = buttons->addButton(QDialogButtonBox::Cancel);
    cancel->setObjectName(QStringLiteral("cancelRun"));
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(text);
    auto *row = new QFormLayout;
    row->addRow(tr("New run in:"), newDir);
    layout->addLayout(row);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(continueButton, &QPushButton::clicked, this, [this, dialog] {
        dialog->accept();
        startPreflight(m_form->options(), false);
    });
    connect(newButton, &QPushButton::clicked, this, [this, dialog, newDir] {
        const QString dir = newDir->text().trimmed();
        if (dir.isEmpty())
            return;
        dialog->accept();
        m_form->setPath(QStringLiteral("model_dir"), dir);
        Q_EMIT logLine(tr("New run in %1").arg(dir));
        startPreflight(m_form->options(), true); // that folder may hold a run too
    });
    connect(dialog, &QDialog::rejected, this, [this] {
        m_progress->restoreStatus();
        showStatus(tr("Training not started."), 4000);
        Q_EMIT preflightFinished(false);
    });
    return dialog;
}

void RunSession::askAboutUsedModelDir(const UsedModelDir &u)
{
    if (!m_usedDirDialog)
        m_usedDirDialog = createUsedModelDirDialog();
    QStringList lines;
    lines << (u.totalSteps > 0 ? tr("“%1” holds a run at step %2 of %3.").arg(u.modelDir).arg(u.step).arg(u.totalSteps)
                               : tr("“%1” holds a run at step %2.").arg(u.modelDir).arg(u.step));
    if (!u.settings.isEmpty())
        lines << tr("Its settings: %1.").arg(u.settings.join(QStringLiteral("; ")));
    if (!u.differences.isEmpty())
        lines << tr("The form differs (run → form):") << u.differences;
    lines << (u.canContinue() ? tr("Continue it from its latest checkpoint, or start a new run in a new folder.")
                              : tr("It cannot be continued: %1. Start a new run in a new folder.").arg(u.whyNotContinue));
    m_usedDirDialog->findChild<QLabel *>(QStringLiteral("usedModelDirText"))->setText(lines.join(QLatin1Char('\n')));
    m_usedDirDialog->findChild<QLineEdit *>(QStringLiteral("newModelDir"))->setText(proposeNewModelDir(u.modelDir));
    auto *continueButton = m_usedDirDialog->findChild<QPushButton *>(QStringLiteral("continueRun"));
    continueButton->setEnabled(u.canContinue());
    (u.canContinue() ? continueButton : m_usedDirDialog->findChild<QPushButton *>(QStringLiteral("startNewRun")))->setDefault(true);
    m_usedDirDialog->open();
}

void RunSession::handleRunStarted(const RunStarted &info)
{
    m_progress->runStarted(info, m_workers);
    // Until the run ends: where it trains ("Training on 2 workers (cpu)" for a local cluster).
    showStatus(m_progress->statusText() + QStringLiteral(". ") + tr("Stop writes a checkpoint; Resume continues from it."));
}

void RunSession::handleCheckpoint(const CheckpointSaved &c)
{
    showStatus(tr("Checkpoint saved: %1").arg(q(c.path)), 5000);
}

void RunSession::showRunError(const RunFinished &r)
{
    showStatus(tr("Training failed: %1").arg(q(r.message).section(QLatin1Char('\n'), 0, 0)));
    Q_EMIT logLine(tr("Run failed: %1%2").arg(r.field.empty() ? QString() : fieldInWindowWords(r.field) + QStringLiteral(": "), q(r.message)));
    if (!r.hint.empty())
        Q_EMIT logLine(tr("  (%1)").arg(q(r.hint)));
    if (!m_runErrorBox) {
        m_runErrorBox = newCriticalBox(m_window, QStringLiteral("runErrorDialog"), tr("Training failed"));
    }
    m_runErrorBox->setText(r.field.empty() ? q(r.message) : QStringLiteral("%1: %2").arg(fieldInWindowWords(r.field), q(r.message)));
    m_runErrorBox->setInformativeText(r.hint.empty() ? QString() : tr("How to fix: %1").arg(q(r.hint)));
    m_runErrorBox->setDetailedText(r.last_checkpoint.empty() ? QString() : tr("Latest checkpoint: %1").arg(q(r.last_checkpoint)));
    if (!m_closing)
        m_runErrorBox->open();
}

void RunSession::handleFinished(const RunFinished &r)
{
    m_statusBar->clearMessage(); // "Training on …" ends with the run
    m_progress->finished(r);
    m_resumableDir = r.status == RunStatus::Cancelled && !r.last_checkpoint.empty() ? q(m_controller->lastSpec().model_dir) : QString();
    switch (r.status) {
    case RunStatus::Completed:
        Q_EMIT logLine(tr("Run completed at step %1, final train loss %2").arg(r.last_step).arg(r.final_train_loss, 0, 'f', 4));
        if (r.stopped_early_at_step > 0 || !r.best_checkpoint.empty()) {
            // One sentence for the run's end (core/formats/runend.h), as the progress row says it.
            const QString end = q(RunEndPhrase(runEndOf(r)));
            Q_EMIT logLine(r.best_checkpoint.empty() ? end : tr("%1 (kept in %2)").arg(end, q(r.best_checkpoint)));
            showStatus(end, 10000);
        }
        break;
    case RunStatus::Cancelled:
        Q_EMIT logLine(tr("Run stopped at step %1; checkpoint %2. Press Resume to continue.")
                           .arg(r.last_step).arg(r.last_checkpoint.empty() ? tr("(none)") : q(r.last_checkpoint)));
        break;
    case RunStatus::Failed:
        showRunError(r);
        break;
    }
    if (const auto &notes = m_progress->coachNotes(); !notes.empty()) { // the run's summary: the coach's current notes
        Q_EMIT logLine(tr("The coach's notes at the end of this run (%n):", nullptr, int(notes.size())));
        for (const CoachNote &n : notes)
            Q_EMIT logLine(tr("  step %1: %2").arg(n.step).arg(QString::fromStdString(n.text)));
    }
    Q_EMIT stateChanged();
    Q_EMIT runFinished(r);
}

} // namespace wb
