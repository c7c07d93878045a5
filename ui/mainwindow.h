// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/inputmetadata.h"
#include "core/config/trainingoptions.h"
#include "core/events/trainingobserver.h"

#include <QMainWindow>

#include <atomic>
#include <map>
#include <optional>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QMenu;
class QMessageBox;
class QPlainTextEdit;
class QProgressBar;
class QProgressDialog;
class QThread;
class QSpinBox;
class QTabWidget;

namespace wb {

class EvaluationView;
class LossPlot;
class PrepareDataDialog;
class RunsTable;
class TrainingController;

/// The workbench window: configuration form (strategy, files, hyperparameters) with a live
/// schedule panel and model summary, Train/Stop/Resume, live curves, evaluation view, run
/// comparison and log. Dialogs that report problems are opened window-modal with open()
/// and kept as members, so nothing blocks and tests can read them. GUI thread only.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Returns the configuration as shown in the form.
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
    RunsTable *runsTable() const { return m_runs; }
    QComboBox *strategyPicker() const { return m_strategy; }
    QAction *trainAction() const { return m_trainAction; }
    QAction *stopAction() const { return m_stopAction; }
    QAction *resumeAction() const { return m_resumeAction; }
    /// The validation error dialog of the last failed Train press (nullptr before).
    QMessageBox *validationDialog() const { return m_validationBox; }
    /// The dialog of the last failed run (nullptr before).
    QMessageBox *runErrorDialog() const { return m_runErrorBox; }
    /// The "stop training and close?" question (nullptr before).
    QMessageBox *closeDialog() const { return m_closeBox; }
    const Diagnostics &lastValidation() const { return m_lastValidation; }
    QString logText() const;
    /// Shows the tab with `objectName` ("plotTab", "evaluationTab", "runsTab", "logTab").
    void showTab(const QString &objectName);

public Q_SLOTS:
    /// Validates; on success starts a run, else shows every problem in the error dialog.
    /// Returns true when a run was started.
    bool train();
    void stop();
    bool resume();
    void resetToDefaults();
    /// Obtains and prepares the spam-detection example on a worker thread (progress dialog),
    /// then opens it as a project.
    void openExample();
    /// Opens the Prepare data dialog (raw text → TFRecords + meta data).
    PrepareDataDialog *openPrepareData();
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

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildForm(QWidget *panel);
    void buildMenus();
    QWidget *withHelp(const QString &field, QWidget *editor);
    void addRow(QFormLayout *form, const QString &field, QWidget *editor);
    QLineEdit *addPathRow(QFormLayout *form, const QString &field, bool directory, const QString &filter);
    void markModified();
    void reloadInputs();
    void updateSchedule();
    void updateModelSummary();
    void updateTitle();
    void updateActions();
    void addRecent(const QString &key, const QString &value);
    QStringList recent(const QString &key) const;
    void rebuildRecentProjectsMenu();
    void showValidationErrors(const Diagnostics &diag);
    void appendLog(const QString &line);

    void handleRunStarted(const RunStarted &info);
    void handleStep(const StepMetrics &m);
    void handleEvaluation(const EvalMetrics &m);
    void handleCheckpoint(const CheckpointSaved &c);
    void handleFinished(const RunFinished &r);

    TrainingController *m_controller;
    LossPlot *m_plot = nullptr;
    EvaluationView *m_evalView = nullptr;
    RunsTable *m_runs = nullptr;
    QTabWidget *m_tabs = nullptr;
    QPlainTextEdit *m_log = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_progressLabel = nullptr;
    QLabel *m_statusLabel = nullptr;
    QLabel *m_schedule = nullptr;
    QLabel *m_modelSummary = nullptr;

    QComboBox *m_strategy = nullptr;
    QSpinBox *m_numGpus = nullptr;
    QSpinBox *m_localWorkers = nullptr;
    QSpinBox *m_workerTimeout = nullptr;
    std::map<QString, QLineEdit *> m_paths;
    QSpinBox *m_trainBatch = nullptr, *m_evalBatch = nullptr, *m_epochs = nullptr, *m_evalPerEpoch = nullptr;
    QSpinBox *m_trainDataSize = nullptr, *m_seed = nullptr, *m_logSteps = nullptr, *m_keepCheckpoints = nullptr;
    QLineEdit *m_learningRate = nullptr, *m_endLr = nullptr;
    QDoubleSpinBox *m_warmupFraction = nullptr, *m_weightDecay = nullptr;

    QAction *m_trainAction = nullptr, *m_stopAction = nullptr, *m_resumeAction = nullptr;
    QMenu *m_recentProjects = nullptr;
    QMessageBox *m_validationBox = nullptr;
    QMessageBox *m_runErrorBox = nullptr;
    QMessageBox *m_closeBox = nullptr;
    PrepareDataDialog *m_prepareDialog = nullptr;
    QProgressDialog *m_exampleProgress = nullptr;
    QThread *m_exampleThread = nullptr;
    StopToken m_exampleCancel;

    std::optional<BertConfig> m_bertConfig;
    std::optional<InputMetaData> m_metaData;
    Diagnostics m_inputDiagnostics;
    Diagnostics m_lastValidation;
    QString m_projectPath;
    bool m_loading = false;
    bool m_closeAfterStop = false;
    double m_firstWall = 0;
    int64_t m_firstStep = 0;
    int64_t m_trainBatchSize = 0;
};

} // namespace wb
