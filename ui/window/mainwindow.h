// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"
#include "ui/common/errorreport.h"

#include <QMainWindow>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

class QAction;
class QMenu;
class QMessageBox;
class QPlainTextEdit;
class QTabWidget;
class QTimer;

namespace wb {

class ConfigurationForm;
class DataMapView;
class SuspectsTable;
class LabelTab;
class EmbeddingView;
class EvaluationView;
class FillMaskPanel;
class HelpBrowser;
class ExampleLoader;
class ExportDialog;
class DistilDialog;
class LossPlot;
class LrFindDialog;
class ProgressPanel;
class SchedulePanel;
class StartPage;
class PrepareDataDialog;
class RunQueue;
class ConcurrentSweep;
struct PretrainingLessonRun;
struct SweepFile;
class SweepDialog;
class SweepDriver;
enum class RunPurpose;
class RunsTable;
class RunSession;
class TryItPanel;
struct RecordedRun;
struct RunEnd;
struct ExampleDataPaths;
struct PreparedRun;

/// The workbench window wires its rooms: the configuration form (ConfigurationForm), the
/// schedule panel and model summary (SchedulePanel), run control (RunSession: Train, Stop,
/// Resume and the progress row), live curves (LossPlot), evaluation view, run comparison
/// (RunsTable) and the log. The pre-flight check, the example download and the scans of
/// model_dir and its sibling runs run as background jobs (runBackgroundJob), so the window
/// stays responsive. Its parts are found by object name: the actions "trainAction",
/// "stopAction", "resumeAction"; the rooms "configurationForm", "plotTab" (LossPlot),
/// "evaluationTab", "tryItTab", "runsTab" (RunsTable), "logTab"; the run session
/// "runSession" (also runSession()). Dialogs that report problems are opened window-modal
/// with open() and kept as members, so nothing blocks and tests can read them; every slot that calls into the core catches every exception and reports it
/// as a dialog plus a log line (reportError). GUI thread only.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// What the plot and the form say when the example could not get its pretrained model
    /// (ExampleDataPaths::start_note) and trains from random weights; "" otherwise.
    static QString offlineExampleNotice(const ExampleDataPaths &paths);

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
    /// Where the window's file dialogs start (Open, Save Project): the project's folder, else
    /// next to the form's data (ConfigurationForm::startFolder()).
    QString fileDialogFolder() const;

    /// Writes the preset `index` of bertPresets() as a bert_config.json to `path` and puts
    /// it into the form.
    bool writePresetConfig(int index, const QString &path, QString *error = nullptr);

    /// The form as a `bert-workbench-cli train …` (`pretrain …` for the task Pretrain on text) command line (shell-quoted; options left at
    /// their defaults are left out), as Training → Copy as Command Line puts it on the clipboard.
    QString commandLine() const;

    /// The window's run control (Train, Stop, Resume, the pre-flight check, the training
    /// controller and its dialogs).
    RunSession *runSession() const { return m_session; }
    QString logText() const;
    /// Returns the path of the document `name` ("tutorial.md") of docs/: installed beside the
    /// program or in the source tree of a build; "" when not found.
    static QString helpDocumentPath(const QString &name);
    /// Shows docs/`name` in the window's help browser (Help → Tutorial, F1; HelpBrowser);
    /// an error box only when the file is not found or cannot be read.
    void openHelpDocument(const QString &name);
    /// The help browser (nullptr until help was first opened).
    HelpBrowser *helpBrowser() const { return m_help; }
    /// Whether the start page is shown (until a project is open or a run starts).
    bool isStartPageShown() const { return m_start != nullptr; }
    /// Shows the tab with `objectName` ("startTab", "plotTab", "evaluationTab", "tryItTab", "runsTab", "logTab").
    void showTab(const QString &objectName);

public Q_SLOTS:
    /// Training → Train: RunSession::train() on the form's options.
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
    /// File → Export Model…: the export dialog for the form's model_dir (ExportDialog).
    ExportDialog *openExportDialog();
    /// File → Distil Model… (issue 48; enabled while canDistil()): the distillation dialog
    /// (DistilDialog) with the form's model_dir as the teacher. When its data is ready the form
    /// holds the student's options; the student then trains as Train trains (live curves), or,
    /// with "Train the student now" off, the status bar says to press Train.
    DistilDialog *openDistilDialog();
    /// Whether the form's model_dir holds a finished fine-tuning run (completed or stopped
    /// early: what the window last read of it or saw end there) and nothing runs: the teacher a
    /// distillation needs.
    bool canDistil() const;
    /// File → Open TensorBoard Logs: reads the event files below `logdir` (asks for a folder
    /// when empty), lists each run in Compare runs and overlays it on the plot. Returns the
    /// number of runs added; on failure shows the reason in a window-modal box (object name
    /// "tensorBoardError") and returns 0.
    int openTensorBoardLogs(const QString &logdir = QString());
    /// Training → Repeat with Seeds…: a sweep over seed (seedSweep, ui/window/sweepdialog.h):
    /// the form's options trained `count` times, with seeds seed, seed + 1, … one after another
    /// in the sweep folder model_dir-seeds (run-001, …; sweep.json kept as by any sweep); when
    /// they have completed, Compare runs lists them with Group seeds on. The same again goes on
    /// with the runs not completed. Returns the queue (object name "runQueue"), or nullptr
    /// (status bar and Log say why) while a run is going, without a model_dir, or when
    /// model_dir-seeds holds another plan.
    RunQueue *repeatWithSeeds(int count);
    /// Training → Sweep…: the sweep dialog (SweepDialog, object name "sweepDialog") on the
    /// form's settings; Start trains the plan's runs through the run queue (trainSweepInWindow)
    /// and records each start and end in sweep.json; when all completed, Compare runs lists
    /// them and opens the Sweep view.
    /// With "Runs at once" above 1 (a classifier's sweep) the runs train at the same time in
    /// child processes (ConcurrentSweep, object name "concurrentSweep"); the status bar names
    /// the runs training and Stop stops them all.
    SweepDialog *openSweepDialog();
    /// Closes the window without asking: a running run is stopped first (checkpoint written)
    /// and the window closes when it has ended. For scripted use (--screenshot).
    void stopAndClose();

Q_SIGNALS:
    /// The example project has been opened (after openExample()).
    void exampleReady();
    /// The run recorded in `modelDir` (an opened project's) is shown: read off the GUI thread
    /// after openProject(), and shown only when the form still names that model_dir.
    void recordedRunShown(const QString &modelDir);
    /// The run recorded in `modelDir` was read but not shown: the form names another
    /// model_dir, or another project or run was shown meanwhile.
    void recordedRunDropped(const QString &modelDir);

protected:
    void closeEvent(QCloseEvent *event) override;
    /// The first show: keepOnScreen() once the window manager's frame is known.
    void showEvent(QShowEvent *event) override;

private:
    // The constructor's steps: the form pane (form, schedule panel, scroll area), the tabs, the
    // splitter with the progress row, then the wiring of the start page, the view settings,
    // the form, the run session, Compare runs and the example loader.
    QWidget *buildFormPane();
    void buildTabs();
    void buildCentralWidget(QWidget *formPane);
    void connectStartPage();
    void restoreViewSettings();
    /// The size of a new window: 1360×860, or less to fit the screen's available area with
    /// the window manager's frame (a guess before the first show).
    QSize firstSize() const;
    /// Shrinks and moves a window still of firstSize() so that its frame lies inside the
    /// screen's available area (the status bar on screen), no smaller than its minimum size.
    void keepOnScreen();
    void connectForm();
    void connectRunsTable();
    /// The Suspects tab: a row opens in Try it, “Prepare with corrections…” opens Prepare Data (issue 46).
    void connectSuspects();
    void createExampleLoader();
    void buildMenus();
    // buildMenus' steps, one per menu, and the training toolbar.
    void buildFileMenu();
    void buildModelMenu();
    void buildTrainingMenu();
    void buildHelpMenu();
    void buildToolbar();
    void markModified();
    void reloadInputs();
    /// Gives a shown Try it tab the form's model (it reads it again when shown).
    void followFormInTryIt();
    /// The form's task changed: Try it is fill-in-the-blank ("fillMaskTab") for Pretrain on text,
    /// the Evaluation tab (a classifier's) is hidden, the curves are named for a masked LM.
    void applyFormTask();
    void updateSchedule();
    /// The disk use of modelDir's checkpoints beside "Checkpoints kept", listed off the GUI thread.
    void updateCheckpointDiskUse(const QString &modelDir);
    void updateTitle();
    void updateActions();
    void rebuildRecentProjectsMenu();
    void appendLog(const QString &line);
    /// Opens the example's project; when the learner changed it, asks first: as they left it
    /// or as it was ("exampleChangedDialog": "openExampleAsLeft", "resetExample", "cancelExample").
    void openExampleProject(const ExampleDataPaths &paths);
    void finishOpeningExample(const ExampleDataPaths &paths, const QString &project);
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
    /// curves, latest evaluation and "Completed S/N" or "Stopped at step S". The files are
    /// read on backgroundJobPool(); the result is applied only while it is still current
    /// (recordedRunShown, else recordedRunDropped).
    void showRecordedRun(const TrainingOptions &o);
    void applyRecordedRun(const TrainingOptions &o, const RecordedRun &run);
    /// How the run shown ended, said the same way live (handleFinished) and reopened
    /// (applyRecordedRun): the Evaluation title and Top losses name runEndPhrase(end) beside the
    /// kept best checkpoint's evaluation; a run that did not learn says so in the progress row
    /// and the status bar ("Stopped early at step 24, best at step 6 — the model did not learn:
    /// see the Evaluation tab."); else a run stopped early or keeping a best checkpoint puts
    /// RunEndPhrase(end) in the status bar, and live (`live`) the bag-of-words verdict of a
    /// completed run comes first. The progress row's status is ProgressPanel's.
    void showRunEnd(const RunEnd &end, bool live);
    /// The form's model_dir is the run shown: after the user changed it (and paused typing),
    /// shows that folder's recorded run or empty views (not while a run or a check is going).
    void followFormModelDir();
    /// Draws the history of o's metrics.jsonl up to `upToStep` (a run resumed in a new session).
    void loadRecordedHistory(const TrainingOptions &o, int64_t upToStep);
    /// Lists the runs next to `modelDir` in Compare runs (RunsTable::scanInBackground).
    void scanRuns(const QString &modelDir);
    /// The majority-class baseline of the eval data, before the first evaluation
    /// (prepare_report.json beside the meta data) and its bag of words; neither for pretraining.
    void loadBaseline(const TrainingOptions &o, bool pretraining);
    /// Label names of the form's meta data (labels.txt beside it) into the evaluation view.
    void updateLabelNames(const TrainingOptions &o);
    void showLearningCheck(const EvalMetrics &m);
    /// Shows `error` in a window-modal box titled `title` (object name `objectName`, when
    /// given) and writes it to the log.
    void reportError(const QString &title, const ErrorReport &error, const QString &objectName = QString());
    /// Runs `f`; any exception becomes reportError(title, …). Returns false when one was thrown.
    template<typename F>
    bool guarded(const QString &title, F &&f);

    void connectRunSession();
    void handleRunStarting(const PreparedRun &prepared);
    void handleRunStarted(const RunStarted &info);
    void handleEvaluation(const EvalMetrics &m);
    void handleCheckpoint(const CheckpointSaved &c);
    void handleFinished(const RunFinished &r);

    RunSession *m_session = nullptr;
    ConfigurationForm *m_form = nullptr;
    SchedulePanel *m_schedule = nullptr;
    ProgressPanel *m_progress = nullptr;
    LossPlot *m_plot = nullptr;
    EvaluationView *m_evalView = nullptr;
    TryItPanel *m_tryIt = nullptr;
    FillMaskPanel *m_fillMask = nullptr; ///< Try it of a pretraining run (the task Pretrain on text)
    EmbeddingView *m_embeddings = nullptr; ///< the Embeddings tab (issue 25)
    DataMapView *m_dataMap = nullptr; ///< the Data map tab (issue 46)
    SuspectsTable *m_suspects = nullptr; ///< the Suspects tab (issue 46)
    LabelTab *m_label = nullptr; ///< the Label tab (issue 47)
    RunsTable *m_runs = nullptr;
    RunQueue *m_queue = nullptr; ///< Repeat with seeds and sweeps (ensureRunQueue)
    SweepDialog *m_sweepDialog = nullptr;
    ConcurrentSweep *m_concurrentSweep = nullptr; ///< a sweep with runs at once (openSweepDialog)
    /// Starts the sweep of `file` (written to the dialog's folder) with runs at once.
    void startConcurrentSweep(const SweepFile &file);
    void followConcurrentSweep();
    void overlayConcurrentSweepRuns();
    void finishConcurrentSweep();
    /// The sweep the window trains one run after another (the Sweep dialog's or Repeat with
    /// Seeds'): its loop (plan, started, ended) once, over the run queue as its RunExecutor.
    std::shared_ptr<SweepDriver> m_windowSweep;
    /// Trains the runs of `sweep` not completed yet on `base` (each run's values and folder
    /// over it) through the run queue, sweep.json kept; at the end Compare runs lists them
    /// (`bySeed`: Repeat with Seeds, Group seeds on; else the Sweep view).
    void trainSweepInWindow(const SweepDriver &sweep, const TrainingOptions &base, RunPurpose purpose, bool bySeed);
    /// The run queue, created with its Log lines on first use.
    RunQueue *ensureRunQueue();
    QTabWidget *m_tabs = nullptr;
    StartPage *m_start = nullptr;
    QPlainTextEdit *m_log = nullptr;

    QAction *m_trainAction = nullptr, *m_stopAction = nullptr, *m_resumeAction = nullptr;
    QMenu *m_recentProjects = nullptr;
    QMessageBox *m_closeBox = nullptr;
    QMessageBox *m_saveChangesBox = nullptr;
    QMessageBox *m_exampleChangedBox = nullptr;
    std::function<void()> m_afterSaveQuestion;
    QStringList m_learningWarnings;  ///< of the latest evaluation (empty: it learned)
    PrepareDataDialog *m_prepareDialog = nullptr;
    LrFindDialog *m_lrFindDialog = nullptr;
    HelpBrowser *m_help = nullptr;
    ExportDialog *m_exportDialog = nullptr;
    DistilDialog *m_distilDialog = nullptr;
    QAction *m_distilAction = nullptr; ///< File → Distil Model… (canDistil)
    /// The model_dir of the finished fine-tuning run the window shows ("" none): set when a
    /// recorded run is read (applyRecordedRun) or a run ends (handleFinished) completed or
    /// stopped early, cleared with the run views (clearRunViews) and when a run starts.
    QString m_finishedRunDir;
    /// Notes whether `end` in `modelDir` is a finished fine-tuning run (m_finishedRunDir).
    void noteRunEnd(const QString &modelDir, const RunEnd &end, bool pretraining);
    /// The distillation dialog's student (DistilDialog::studentReady): the form's new options
    /// shown as a project's, then Train when `train`, else a status line asking for it.
    void useStudent(const TrainingOptions &student, bool train);
    ExampleLoader *m_example = nullptr;
    RunQueue *m_lesson = nullptr; ///< the pretraining lesson's runs, one after another (startLesson)
    /// The pretraining lesson's three runs through their own RunQueue, each shown in the form
    /// (task and options) before it starts; Log lines say which run and how it ended.
    void startLesson(const std::vector<PretrainingLessonRun> &runs);
    /// Counts the shown runs and projects: a recorded run read for an older one is dropped.
    quint64 m_shownRunGeneration = 0;
    quint64 m_diskUseGeneration = 0; ///< the latest checkpoint listing; older ones are dropped
    QString m_shownModelDir; ///< the model_dir whose run the views show (followFormModelDir)
    QTimer *m_modelDirTimer = nullptr; ///< waits for the user to pause typing a model_dir
    /// The form's model_dir edits → followFormModelDir after a pause (m_modelDirTimer).
    void connectFormModelDir();
    QString m_announcedScan; ///< the model_dir whose scan ends with "N run(s) found" (Find runs)

    QString m_projectPath;
    bool m_closeAfterStop = false;
    bool m_shownOnce = false; ///< keepOnScreen() ran after the first show
    bool m_closeConfirmed = false;  ///< unsaved changes saved or discarded for this close
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
