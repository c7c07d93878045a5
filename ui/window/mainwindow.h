// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/diagnostics.h"
#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"
#include "ui/common/backgroundjob.h"

#include <QMainWindow>
#include <QStringList>

#include <functional>
#include <optional>

class QAction;
class QComboBox;
class QDialog;
class QMenu;
class QMessageBox;
class QPlainTextEdit;
class QTabWidget;

namespace wb {

class ConfigurationForm;
class EvaluationView;
class ExampleLoader;
class LossPlot;
class LrFindDialog;
class ProgressPanel;
class SchedulePanel;
class StartPage;
class PrepareDataDialog;
class RunsTable;
class TrainingController;
class TryItPanel;
struct ExampleDataPaths;
struct PreparedRun;
struct UsedModelDir;
struct MajorityBaseline;

/// The workbench window wires its rooms: the configuration form (ConfigurationForm), the
/// schedule panel and model summary (SchedulePanel), Train/Stop/Resume, live curves
/// (LossPlot), evaluation view, run comparison, log and the progress row (ProgressPanel).
/// The pre-flight check and the example download run as background jobs
/// (runBackgroundJob), so the window stays responsive. Dialogs that report problems are
/// opened window-modal with open() and kept as members, so nothing blocks and tests can
/// read them; every slot that calls into the core catches every exception and reports it
/// as a dialog plus a log line (reportError). GUI thread only.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Returns the configuration as shown in the form (options without a widget, such as
    /// mode or num_threads, as they were set or loaded).
    TrainingOptions options() const;
    /// Shows `o` in the form (marks the project modified only when `markModified`).
    void setOptions(const TrainingOptions &o, bool markModified = false);

    /// Opens a project file; false (with `error`) when it cannot be read.
    bool openProject(const QString &path, QString *error = nullptr);
    /// Saves the configuration as a project file (atomic).
    bool saveProject(const QString &path, QString *error = nullptr);
    QString projectPath() const { return m_projectPath; }

    /// Writes the preset `index` of bertPresets() as a bert_config.json to `path` and puts
    /// it into the form.
    bool writePresetConfig(int index, const QString &path, QString *error = nullptr);

    /// Returns the schedule panel's current text (plain text).
    QString scheduleText() const;
    /// The form as a `bert-workbench-cli train …` command line (shell-quoted; options left at
    /// their defaults are left out), as Training → Copy as Command Line puts it on the clipboard.
    QString commandLine() const;
    QString modelSummaryText() const;

    TrainingController *controller() const { return m_controller; }
    LossPlot *lossPlot() const { return m_plot; }
    EvaluationView *evaluationView() const { return m_evalView; }
    /// The "Try it" tab (object name "tryItTab"): classify typed texts with the form's model.
    TryItPanel *tryItPanel() const { return m_tryIt; }
    RunsTable *runsTable() const { return m_runs; }
    QComboBox *strategyPicker() const;
    ConfigurationForm *configurationForm() const { return m_form; }
    /// Whether the pre-flight check of the last train() is still running.
    bool isCheckingConfiguration() const { return m_checking; }
    QAction *trainAction() const { return m_trainAction; }
    QAction *stopAction() const { return m_stopAction; }
    QAction *resumeAction() const { return m_resumeAction; }
    /// The validation error dialog of the last failed Train press (nullptr before).
    QMessageBox *validationDialog() const { return m_validationBox; }
    /// The dialog of the last failed run (nullptr before).
    QMessageBox *runErrorDialog() const { return m_runErrorBox; }
    /// The "stop training and close?" question (nullptr before).
    QMessageBox *closeDialog() const { return m_closeBox; }
    /// The question Train asks when model_dir already holds a run: Continue it / Start a new
    /// run (object names "continueRun", "startNewRun", "cancelRun"; the new folder in the
    /// line edit "newModelDir"). nullptr before it was first asked.
    QDialog *usedModelDirDialog() const { return m_usedDirDialog; }
    /// The Save / Discard / Cancel question about unsaved changes (nullptr before).
    QMessageBox *saveChangesDialog() const { return m_saveChangesBox; }
    const Diagnostics &lastValidation() const { return m_lastValidation; }
    QString logText() const;
    /// Returns the path of the document `name` ("tutorial.md") of docs/: installed beside the
    /// program or in the source tree of a build; "" when not found.
    static QString helpDocumentPath(const QString &name);
    /// Opens docs/`name` in the desktop's viewer (Help → Tutorial, F1).
    void openHelpDocument(const QString &name);
    /// Whether the start page is shown (until a project is open or a run starts).
    bool isStartPageShown() const { return m_start != nullptr; }
    /// Shows the tab with `objectName` ("startTab", "plotTab", "evaluationTab", "tryItTab", "runsTab", "logTab").
    void showTab(const QString &objectName);

public Q_SLOTS:
    /// Starts the pre-flight check (validation, data scan, CUDA, port) on a background
    /// thread; Train is disabled meanwhile. When it passes a run starts, else every problem
    /// is shown in the validation dialog; preflightFinished() says which. Returns false
    /// (and does nothing) while a run or a check is already going.
    bool train();
    void stop();
    bool resume();
    void resetToDefaults();
    /// File → New Project without asking: default options, no project file, and the plot,
    /// evaluation view, run comparison and progress line cleared.
    void newProject();
    /// Obtains and prepares the spam-detection example on a worker thread (progress dialog),
    /// then opens it as a project.
    void openExample();
    /// Opens the Prepare data dialog (raw text → TFRecords + meta data).
    PrepareDataDialog *openPrepareData();
    /// Training → Find Learning Rate…: opens the range-test dialog on the form's options
    /// (LrFindDialog::begin(): the saved lr_find.json of model_dir, else a new test).
    LrFindDialog *openLrFinder();
    /// File → Open TensorBoard Logs: reads the event files below `logdir` (asks for a folder
    /// when empty), lists each run in Compare runs and overlays it on the plot. Returns the
    /// number of runs added; on failure shows the reason in a window-modal box (object name
    /// "tensorBoardError") and returns 0.
    int openTensorBoardLogs(const QString &logdir = QString());
    /// Closes the window without asking: a running run is stopped first (checkpoint written)
    /// and the window closes when it has ended. For scripted use (--screenshot).
    void stopAndClose();

Q_SIGNALS:
    /// The example project has been opened (after openExample()).
    void exampleReady();
    /// The pre-flight check started by train() has ended; `started`: a run was started.
    void preflightFinished(bool started);
    /// Train found a run in model_dir and asks what to do (usedModelDirDialog() is open);
    /// preflightFinished() follows the answer.
    void modelDirQuestionAsked();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void markModified();
    void reloadInputs();
    /// Gives a shown Try it tab the form's model (it reads it again when shown).
    void followFormInTryIt();
    void updateSchedule();
    void updateTitle();
    void updateActions();
    void rebuildRecentProjectsMenu();
    void showValidationErrors(const Diagnostics &diag);
    void appendLog(const QString &line);
    void openExampleProject(const ExampleDataPaths &paths);
    void startValidatedRun(const JobOutcome<PreparedRun> &outcome);
    /// The pre-flight check of train(); with `askAboutUsedDir` a run in model_dir is asked
    /// about first (askAboutUsedModelDir) instead of being continued silently.
    void startPreflight(const TrainingOptions &o, bool askAboutUsedDir);
    void askAboutUsedModelDir(const UsedModelDir &u);
    /// Save (Save As when the project has no file yet); false when cancelled or failed.
    bool saveProjectInteractively();
    /// Runs `action` now, or after Save / Discard when the project has unsaved changes;
    /// Cancel drops it.
    void askToSaveThen(std::function<void()> action);
    /// Empties the plot, evaluation view, run comparison and progress line.
    void clearRunViews();
    /// Removes the start page (a project is open, or a run starts).
    void leaveStartPage();
    /// Shows the run recorded in o.model_dir (metrics.jsonl, checkpoints, run_config.json):
    /// curves, latest evaluation and "Completed S/N" or "Stopped at step S".
    void showRecordedRun(const TrainingOptions &o);
    /// The majority-class baseline of the eval data, before the first evaluation
    /// (prepare_report.json beside the meta data).
    void loadBaseline(const TrainingOptions &o);
    /// Label names of the form's meta data (labels.txt beside it) into the evaluation view.
    void updateLabelNames(const TrainingOptions &o);
    void showLearningCheck(const EvalMetrics &m);
    /// Shows `error` in a window-modal box titled `title` (object name `objectName`, when
    /// given) and writes it to the log.
    void reportError(const QString &title, const ErrorReport &error, const QString &objectName = QString());
    /// Runs `f`; any exception becomes reportError(title, …). Returns false when one was thrown.
    template<typename F>
    bool guarded(const QString &title, F &&f);

    void handleRunStarted(const RunStarted &info);
    void handleStep(const StepMetrics &m);
    void handleEvaluation(const EvalMetrics &m);
    void handleCheckpoint(const CheckpointSaved &c);
    void handleFinished(const RunFinished &r);

    TrainingController *m_controller;
    ConfigurationForm *m_form = nullptr;
    SchedulePanel *m_schedule = nullptr;
    ProgressPanel *m_progress = nullptr;
    LossPlot *m_plot = nullptr;
    EvaluationView *m_evalView = nullptr;
    TryItPanel *m_tryIt = nullptr;
    RunsTable *m_runs = nullptr;
    QTabWidget *m_tabs = nullptr;
    StartPage *m_start = nullptr;
    QPlainTextEdit *m_log = nullptr;

    QAction *m_trainAction = nullptr, *m_stopAction = nullptr, *m_resumeAction = nullptr;
    QMenu *m_recentProjects = nullptr;
    QMessageBox *m_validationBox = nullptr;
    QMessageBox *m_runErrorBox = nullptr;
    QMessageBox *m_closeBox = nullptr;
    QDialog *m_usedDirDialog = nullptr;
    QMessageBox *m_saveChangesBox = nullptr;
    std::function<void()> m_afterSaveQuestion;
    QStringList m_learningWarnings;  ///< of the latest evaluation (empty: it learned)
    PrepareDataDialog *m_prepareDialog = nullptr;
    LrFindDialog *m_lrFindDialog = nullptr;
    ExampleLoader *m_example = nullptr;
    JobHandle m_preflight;

    bool m_resuming = false; ///< the pre-flight check in progress is for Resume
    Diagnostics m_lastValidation;
    QString m_projectPath;
    bool m_closeAfterStop = false;
    bool m_closeConfirmed = false;  ///< unsaved changes saved or discarded for this close
    bool m_checking = false;
};

template<typename F>
bool MainWindow::guarded(const QString &title, F &&f)
{
    try {
        f();
        return true;
    } catch (...) {
        reportError(title, currentErrorReport());
        return false;
    }
}

} // namespace wb
