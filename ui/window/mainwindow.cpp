// SPDX-License-Identifier: Apache-2.0
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "core/config/bertconfig.h"
#include "core/config/diagnostics.h"
#include "core/config/jsonfile.h"
#include "core/config/optiontable.h"
#include "core/prepare/preparereport.h"
#include "core/util/error.h"
#include "core/engine/preflight.h"
#include "ui/form/configurationform.h"
#include "ui/evaluation/datamapview.h"
#include "ui/evaluation/suspectstable.h"
#include "ui/label/labeltab.h"
#include "ui/evaluation/embeddingview.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/evaluation/toplossesview.h"
#include "ui/dialogs/exampleloader.h"
#include "ui/plot/lossplot.h"
#include "ui/dialogs/preparedatadialog.h"
#include "ui/runs/progresspanel.h"
#include "ui/form/projectfile.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/form/schedulepanel.h"
#include "ui/window/startpage.h"
#include "ui/window/concurrentsweep.h"
#include "ui/window/errorbox.h"
#include "ui/window/runqueue.h"
#include "ui/common/backgroundjob.h"
#include "ui/window/runsession.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/tryit/fillmaskpanel.h"
#include "ui/runs/usedmodeldir.h"
#include "ui/form/wheelguard.h"
#include "ui/form/followend.h"

#include <QApplication>
#include <QAbstractButton>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStyle>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace wb {

namespace {


/// The form's model as Try it (ClassifierSource) or fill-in-the-blank (FillMaskSource) loads
/// it: model_dir's checkpoint with the run's files.
template <class Source>
Source formModelSource(const TrainingOptions &o)
{
    Source s;
    s.model_dir = o.model_dir;
    s.bert_config_file = o.bert_config_file;
    s.input_meta_data_path = o.input_meta_data_path;
    s.vocab_file = o.vocab_file;
    if (o.do_lower_case == "true" || o.do_lower_case == "false")
        s.do_lower_case = o.do_lower_case == "true";
    return s;
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("mainWindow"));
    resize(firstSize());

    QWidget *formPane = buildFormPane();
    buildTabs();
    buildCentralWidget(formPane);
    m_session = new RunSession(m_form, m_progress, statusBar(), this);
    buildMenus();

    connectStartPage();
    restoreViewSettings();
    connectForm();
    connectRunSession();
    connectRunsTable();
    createExampleLoader();

    // Every field of the window (form, plot controls, Try it) and of its dialogs takes the wheel
    // only with focus, so scrolling never changes a value unseen.
    guardWheel(this);
    setOptions(TrainingOptions{});
    m_shownModelDir = q(options().model_dir);
    updateActions();
    updateTitle();
    statusBar()->showMessage(tr("Choose a strategy and the model and data files, then press Train."));
}

QSize MainWindow::firstSize() const
{
    // 1360×860, or the screen's available area when it is smaller (1024×700 laptops), less
    // the window manager's title bar and borders (not known before the first show; keepOnScreen
    // corrects the guess once they are): the status bar stays on the screen.
    const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1360, 860);
    const int border = std::max(4, style()->pixelMetric(QStyle::PM_MdiSubWindowFrameWidth));
    const int titleBar = std::max(30, style()->pixelMetric(QStyle::PM_TitleBarHeight));
    return {std::min(1360, avail.width() - 2 * border), std::min(860, avail.height() - titleBar - border)};
}

void MainWindow::keepOnScreen()
{
    // A size chosen after construction (--window-size, a test, a restored layout) is kept.
    if (!screen() || isMaximized() || isFullScreen() || size() != firstSize())
        return;
    const QRect avail = screen()->availableGeometry();
    const QRect frame = frameGeometry();
    const QSize decoration = frame.size() - size();
    const QSize fit(std::min(width(), avail.width() - decoration.width()),
                    std::min(height(), avail.height() - decoration.height()));
    if (fit != size())
        resize(fit.expandedTo(minimumSizeHint()));
    // Inside the available area: a window placed below a panel moves up, not off the screen.
    const QRect now = frameGeometry();
    const int x = std::clamp(now.x(), avail.left(), std::max(avail.left(), avail.right() + 1 - now.width()));
    const int y = std::clamp(now.y(), avail.top(), std::max(avail.top(), avail.bottom() + 1 - now.height()));
    if (x != now.x() || y != now.y())
        move(x, y);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (m_shownOnce)
        return;
    m_shownOnce = true;
    // The frame is known once the window manager has decorated the window: look again then.
    QTimer::singleShot(0, this, &MainWindow::keepOnScreen);
    QTimer::singleShot(500, this, &MainWindow::keepOnScreen);
}

QWidget *MainWindow::buildFormPane()
{
    m_form = new ConfigurationForm;
    m_form->setObjectName(QStringLiteral("configurationForm"));
    m_schedule = new SchedulePanel;
    m_form->panelLayout()->addWidget(m_schedule);
    m_form->panelLayout()->addStretch(1);
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_form);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(300);
    // The rows shrink with the pane (no horizontal scrollbar hides the "?" and recent-file buttons).
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_form->setMinimumWidth(280);
    return scroll;
}

void MainWindow::buildTabs()
{
    m_plot = new LossPlot;
    m_evalView = new EvaluationView;
    m_runs = new RunsTable;
    // The runs room does not know the plot: the window carries its overlays across.
    connect(m_runs, &RunsTable::overlayAdded, m_plot, &LossPlot::addComparisonRun);
    connect(m_runs, &RunsTable::overlayRemoved, m_plot, &LossPlot::removeComparisonRun);
    m_tryIt = new TryItPanel;
    m_tryIt->setObjectName(QStringLiteral("tryItTab"));
    m_fillMask = new FillMaskPanel;
    m_fillMask->setObjectName(QStringLiteral("fillMaskTab"));
    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(20000);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs = new QTabWidget;
    m_plot->setObjectName(QStringLiteral("plotTab"));
    m_evalView->setObjectName(QStringLiteral("evaluationTab"));
    m_runs->setObjectName(QStringLiteral("runsTab"));
    m_log->setObjectName(QStringLiteral("logTab"));
    m_start = new StartPage;
    m_start->setObjectName(QStringLiteral("startTab"));
    m_start->setRecentProjects(ConfigurationForm::recentValues(QStringLiteral("projects")));
    m_tabs->addTab(m_start, tr("Start"));
    m_tabs->addTab(m_plot, tr("Training curves"));
    m_tabs->addTab(m_evalView, tr("Evaluation"));
    // The eval examples' pooled [CLS] vectors, step by step; a click tries the example.
    m_embeddings = new EmbeddingView;
    m_embeddings->setObjectName(QStringLiteral("embeddingsTab"));
    m_tabs->addTab(m_embeddings, tr("Embeddings"));
    connect(m_embeddings, &EmbeddingView::exampleChosen, this, [this](const QString &text) {
        m_tryIt->setTexts(text);
        showTab(QStringLiteral("tryItTab"));
    });
    // The training examples' confidence against variability (issue 46); a click explains one in Try it.
    m_dataMap = new DataMapView;
    m_dataMap->setObjectName(QStringLiteral("dataMapTab"));
    m_tabs->addTab(m_dataMap, tr("Data map"));
    m_suspects = new SuspectsTable; // its probably mislabelled examples, decided and prepared again
    m_suspects->setObjectName(QStringLiteral("suspectsTab"));
    m_tabs->addTab(m_suspects, tr("Suspects"));
    m_tabs->addTab(m_tryIt, tr("Try it"));
    m_tabs->addTab(m_fillMask, tr("Try it: fill in the blank"));
    m_tabs->setTabVisible(m_tabs->indexOf(m_fillMask), false); // the task Pretrain on text
    // Label to learn (issue 47): a new session's model starts from the form's; a project made
    // from the labels fills the form.
    m_label = new LabelTab;
    m_label->setObjectName(QStringLiteral("labelTab"));
    m_label->setFormOptions([this] { return options(); });
    connect(m_label, &LabelTab::projectPrepared, this, [this](const PrepareReport &r) {
        m_label->applyProjectToForm(m_form);
        appendLog(tr("Made a project from the labels: %1 training, %2 evaluation examples → %3")
                      .arg(r.train_examples).arg(r.eval_examples).arg(q(r.meta_path)));
    });
    m_tabs->addTab(m_label, tr("Label"));
    m_tabs->addTab(m_runs, tr("Compare runs"));
    m_tabs->addTab(m_log, tr("Log"));
}

void MainWindow::buildCentralWidget(QWidget *formPane)
{
    m_progress = new ProgressPanel;
    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->addWidget(m_tabs, 1);
    rightLayout->addWidget(m_progress);

    auto *splitter = new QSplitter;
    splitter->addWidget(formPane);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({std::min(470, width() * 2 / 5), width() - std::min(470, width() * 2 / 5)});
    setCentralWidget(splitter);
}

void MainWindow::connectStartPage()
{
    connect(m_start, &StartPage::openExampleRequested, this, [this] { askToSaveThen([this] { openExample(); }); });
    connect(m_start, &StartPage::pretrainingLessonRequested, this,
            [this] { askToSaveThen([this] { m_example->startLesson(); }); });
    connect(m_start, &StartPage::prepareDataRequested, this, [this] { openPrepareData(); });
    connect(m_start, &StartPage::newProjectRequested, this, [this] { askToSaveThen([this] { newProject(); }); });
    connect(m_start, &StartPage::openProjectRequested, this, [this](const QString &path) {
        askToSaveThen([this, path] {
            QString error;
            if (!openProject(path, &error))
                reportError(tr("Cannot open project"), {error, QString()});
        });
    });
}

void MainWindow::restoreViewSettings()
{
    // View settings live across restarts.
    QSettings settings;
    m_plot->setSmoothing(settings.value(QStringLiteral("view/smoothing"), m_plot->smoothing()).toDouble());
    m_plot->setLogScale(settings.value(QStringLiteral("view/logScale"), false).toBool());
    connect(m_plot, &LossPlot::smoothingChanged, this,
            [](double weight) { QSettings().setValue(QStringLiteral("view/smoothing"), weight); });
}

void MainWindow::connectForm()
{
    connect(m_form, &ConfigurationForm::edited, this, &MainWindow::markModified);
    connect(m_form, &ConfigurationForm::inputFilesChanged, this, &MainWindow::reloadInputs);
    // Try it follows the form's model (read when its tab is shown or the form changes while it is).
    connect(m_form, &ConfigurationForm::edited, this, &MainWindow::followFormInTryIt);
    connect(m_form, &ConfigurationForm::inputFilesChanged, this, &MainWindow::followFormInTryIt);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::followFormInTryIt);
    // A Top losses row asks which words decided: its text in Try it, explained for the class
    // the evaluation predicted.
    connect(m_evalView->topLosses(), &TopLossesView::explainRequested, this,
            [this](const QString &text, const QString &textB, qlonglong classId) {
                m_tabs->setCurrentWidget(m_tryIt); // followFormInTryIt: the form's model
                m_tryIt->explainText(text, textB, classId);
            });
    // A point of the data map: its training text in Try it, explained for its gold label.
    connect(m_dataMap, &DataMapView::explainRequested, this,
            [this](const QString &text, const QString &textB, qlonglong classId) {
                m_tabs->setCurrentWidget(m_tryIt);
                m_tryIt->explainText(text, textB, classId);
            });
    connectSuspects();
    connect(m_form, &ConfigurationForm::taskChanged, this, &MainWindow::applyFormTask);
    connectFormModelDir();
}

void MainWindow::applyFormTask()
{
    const bool pretrain = m_form->task() == FormTask::Pretrain;
    QWidget *current = m_tabs->currentWidget();
    m_tabs->setTabVisible(m_tabs->indexOf(m_tryIt), !pretrain);
    m_tabs->setTabVisible(m_tabs->indexOf(m_evalView), !pretrain);
    m_tabs->setTabVisible(m_tabs->indexOf(m_dataMap), !pretrain);
    m_tabs->setTabVisible(m_tabs->indexOf(m_suspects), !pretrain);
    m_tabs->setTabVisible(m_tabs->indexOf(m_fillMask), pretrain);
    if (current == m_tryIt && pretrain)
        m_tabs->setCurrentWidget(m_fillMask);
    else if (current == m_fillMask && !pretrain)
        m_tabs->setCurrentWidget(m_tryIt);
    if (!m_session || !m_session->isRunning())
        m_plot->setPretraining(pretrain);
    followFormInTryIt();
}

void MainWindow::connectRunsTable()
{
    connect(m_runs, &RunsTable::scanRequested, this, [this] {
        m_announcedScan = q(options().model_dir);
        scanRuns(m_announcedScan);
    });
    connect(m_runs, &RunsTable::scanned, this, [this](const QString &modelDir, int n) {
        if (modelDir != std::exchange(m_announcedScan, QString()))
            return;
        statusBar()->showMessage(tr("%n run(s) found", nullptr, n), 4000);
    });
    connect(m_runs, &RunsTable::scanFailed, this,
            [this](const QString &, const ErrorReport &error) { reportError(tr("Cannot find runs"), error); });
    connect(m_runs, &RunsTable::addRunRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a run's metrics"), q(options().model_dir),
                                                          tr("Run metrics (metrics.jsonl);;All files (*)"));
        QString error;
        bool added = true;
        guarded(tr("Cannot read run"), [&] { added = path.isEmpty() || m_runs->addRun(path, true, &error); });
        if (!added)
            reportError(tr("Cannot read run"), {error, QString()});
    });
}

MainWindow::~MainWindow()
{
    // The run session waits for its pre-flight check and stops a running run while the
    // window it reports to is still whole.
    delete m_session;
}

void MainWindow::reportError(const QString &title, const ErrorReport &error, const QString &objectName)
{
    appendLog(tr("%1: %2").arg(title, error.logLine()));
    openErrorBox(this, title, error, objectName);
}

QString MainWindow::commandLine() const
{
    std::vector<std::string> words{"bert-workbench-cli", formTaskCommand(m_form->task())};
    for (const std::string &flag : toCommandLineFlags(options()))
        words.push_back(flag);
    return q(shellJoin(words));
}

TrainingOptions MainWindow::options() const { return m_form->options(); }

void MainWindow::setOptions(const TrainingOptions &o, bool modified)
{
    m_form->setOptions(o);
    reloadInputs();
    setWindowModified(modified);
    updateTitle();
    // A form filled in by code (Open Project, New Project, the example) emits no edited():
    // a shown Try it tab must not keep answering with the previous project's model.
    followFormInTryIt();
}

void MainWindow::followFormInTryIt()
{
    if (m_tabs->currentWidget() == m_tryIt)
        m_tryIt->setFormSource(formModelSource<ClassifierSource>(options()));
    if (m_tabs->currentWidget() == m_fillMask)
        m_fillMask->setFormSource(formModelSource<FillMaskSource>(options()));
}

void MainWindow::resetToDefaults() { m_form->resetToDefaults(); }

void MainWindow::markModified()
{
    setWindowModified(true);
    updateSchedule();
}

void MainWindow::reloadInputs()
{
    guarded(tr("Cannot read the model or data description"), [this] { m_schedule->reloadInputs(options()); });
    updateLabelNames(options());
    updateSchedule();
}

void MainWindow::updateSchedule()
{
    const TrainingOptions o = options();
    updateCheckpointDiskUse(q(o.model_dir));
    guarded(tr("Cannot compute the schedule"), [&] {
        m_schedule->update(o);
        if (!m_session->isRunning()) {
            const PlannedCurve c = m_schedule->plannedCurve(o);
            m_plot->setPlannedSchedule(c.steps, c.learning_rates);
        }
    });
}

void MainWindow::updateCheckpointDiskUse(const QString &modelDir)
{
    // A folder listing (the model_dir may be on a network share): off the GUI thread. Only the
    // latest listing is shown; an older one that ends later is dropped.
    const quint64 generation = ++m_diskUseGeneration;
    runBackgroundJob<std::pair<qint64, int>>(
        this,
        [modelDir](const JobControl &) {
            int count = 0;
            const qint64 bytes = checkpointDiskUse(modelDir, &count);
            return std::make_pair(bytes, count);
        },
        [this, generation](JobOutcome<std::pair<qint64, int>> outcome) {
            if (generation != m_diskUseGeneration || !outcome.ok())
                return;
            const auto [bytes, count] = *outcome.value;
            m_form->setCheckpointDiskUse(count == 0 ? tr("none on disk")
                                                    : tr("%n on disk: %1", nullptr, count).arg(QLocale().formattedDataSize(bytes)));
        });
}

void MainWindow::updateTitle()
{
    const QString name = m_projectPath.isEmpty() ? tr("Untitled") : QFileInfo(m_projectPath).completeBaseName();
    setWindowTitle(tr("%1[*] — BERT Workbench").arg(name));
}

void MainWindow::updateActions()
{
    const bool sweeping = m_concurrentSweep && m_concurrentSweep->isRunning();
    m_trainAction->setEnabled(m_session->canTrain() && !sweeping);
    m_stopAction->setEnabled(m_session->canStop() || sweeping);
    m_resumeAction->setEnabled(m_session->canResume());
    if (m_distilAction)
        m_distilAction->setEnabled(canDistil());
}

void MainWindow::rebuildRecentProjectsMenu()
{
    m_recentProjects->clear();
    const QStringList items = ConfigurationForm::recentValues(QStringLiteral("projects"));
    if (items.isEmpty())
        m_recentProjects->addAction(tr("No recent projects"))->setEnabled(false);
    for (const QString &item : items)
        m_recentProjects->addAction(item, this, [this, item] {
            askToSaveThen([this, item] {
                QString error;
                if (!openProject(item, &error))
                    reportError(tr("Cannot open project"), {error, QString()});
            });
        });
}

bool MainWindow::openProject(const QString &path, QString *error)
{
    Diagnostics diag;
    TrainingOptions o;
    FormTask task = FormTask::Classify;
    try {
        o = ProjectFile::load(path, diag, &task);
    } catch (...) {
        diag.error(path.toStdString(), currentErrorReport().message.toStdString());
    }
    if (diag.hasErrors()) {
        if (error)
            *error = q(diag.format());
        return false;
    }
    m_projectPath = QFileInfo(path).absoluteFilePath();
    m_tryIt->startOver(); // no text of the previous project's
    m_plot->setNotice({}); // nor the example's note on where its weights came from
    m_form->setTask(task);
    setOptions(o, false);
    leaveStartPage();
    if (!m_session->isRunning())
        guarded(tr("Cannot read the project's run"), [&] { showRecordedRun(o); });
    ConfigurationForm::addRecentValue(QStringLiteral("projects"), m_projectPath);
    for (const Diagnostic &dg : diag.items())
        appendLog(QStringLiteral("%1: %2: %3").arg(QString::fromLatin1(severityName(dg.severity)), q(dg.field), q(dg.message)));
    const int warnings = int(diag.items().size()) - diag.errorCount();
    if (warnings > 0)
        statusBar()->showMessage(tr("Opened %1 with %n warning(s); see the Log", nullptr, warnings).arg(m_projectPath), 8000);
    else
        statusBar()->showMessage(tr("Opened %1").arg(m_projectPath), 4000);
    return true;
}

bool MainWindow::saveProject(const QString &path, QString *error)
{
    try {
        ProjectFile::save(path, options(), m_form->task());
    } catch (...) {
        if (error)
            *error = currentErrorReport().message;
        return false;
    }
    m_projectPath = QFileInfo(path).absoluteFilePath();
    ConfigurationForm::addRecentValue(QStringLiteral("projects"), m_projectPath);
    setWindowModified(false);
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(m_projectPath), 4000);
    return true;
}

bool MainWindow::writePresetConfig(int index, const QString &path, QString *error)
{
    const auto &all = bertPresets();
    if (index < 0 || index >= int(all.size())) {
        if (error)
            *error = tr("no preset %1").arg(index);
        return false;
    }
    try {
        writeFileAtomic(path.toStdString(), all[size_t(index)].config.toJson().dump(2) + "\n");
    } catch (...) {
        if (error)
            *error = currentErrorReport().message;
        return false;
    }
    m_form->setPath(QStringLiteral("bert_config_file"), path);
    ConfigurationForm::addRecentValue(QStringLiteral("bert_config_file"), path);
    appendLog(tr("Wrote %1 (%2)").arg(path, q(all[size_t(index)].name)));
    return true;
}

int MainWindow::openTensorBoardLogs(const QString &logdir)
{
    QString dir = logdir;
    if (dir.isEmpty()) {
        const QString start = options().model_dir.empty() ? QDir::homePath() : q(options().model_dir);
        dir = QFileDialog::getExistingDirectory(this, tr("Open TensorBoard log directory"), start);
        if (dir.isEmpty())
            return 0;
    }
    QString error;
    QStringList warnings;
    std::vector<RunHistory> runs;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    guarded(tr("Cannot open TensorBoard logs"), [&] { runs = RunHistory::fromTensorBoard(dir, &error, &warnings); });
    QApplication::restoreOverrideCursor();
    for (const QString &w : warnings)
        appendLog(tr("warning: %1").arg(w));
    if (runs.empty()) {
        if (!error.isEmpty())
            reportError(tr("Cannot open TensorBoard logs"), {error, QString()}, QStringLiteral("tensorBoardError"));
        return 0;
    }
    for (const RunHistory &run : runs)
        m_runs->addHistory(run, true);
    appendLog(tr("Opened %n TensorBoard run(s) from %1", nullptr, int(runs.size())).arg(dir));
    statusBar()->showMessage(tr("Overlaid %n run(s) from %1; uncheck them under Compare runs", nullptr, int(runs.size())).arg(dir), 8000);
    showTab(QStringLiteral("plotTab"));
    return int(runs.size());
}

PrepareDataDialog *MainWindow::openPrepareData()
{
    if (!m_prepareDialog) {
        m_prepareDialog = new PrepareDataDialog(this);
        m_prepareDialog->restoreSettings();
        // The prepared data and the model it was read for (Start from) go into the form.
        connect(m_prepareDialog, &PrepareDataDialog::prepared, this, [this](const PrepareReport &r) {
            m_prepareDialog->applyToForm(m_form);
            appendLog(tr("Prepared data: %1 training, %2 evaluation examples → %3")
                          .arg(r.train_examples).arg(r.eval_examples).arg(q(r.meta_path)));
            for (const std::string &w : r.warnings)
                appendLog(tr("warning: %1").arg(q(w)));
        });
        connect(m_prepareDialog, &PrepareDataDialog::pretrainingPrepared, this, [this](const PretrainingDataReport &r) {
            m_prepareDialog->applyToForm(m_form);
            appendLog(tr("Prepared pretraining text: %1 training, %2 evaluation sequences → %3")
                          .arg(r.train_sequences).arg(r.eval_sequences).arg(q(r.meta_path)));
            for (const std::string &w : r.warnings)
                appendLog(tr("warning: %1").arg(q(w)));
        });
    }
    // The form's "Start from" is the model the data is prepared for (its vocabulary and casing).
    if (!m_prepareDialog->isRunning()) {
        m_prepareDialog->setPretrainedModel(q(options().pretrained_model));
        if (m_form->task() == FormTask::Pretrain)
            m_prepareDialog->setKind(PrepareDataDialog::Kind::Pretraining);
        // Without a model of its own, the vocabulary of the data the form trains on now (the
        // example's, or the last prepared data's).
        if (options().pretrained_model.empty() && !options().input_meta_data_path.empty()) {
            try {
                const PreparedTokenizer t = readPreparedTokenizer(options().input_meta_data_path);
                m_prepareDialog->prefillVocabulary(q(t.vocab_file), tr("the current data (%1)")
                                                                        .arg(QFileInfo(q(options().input_meta_data_path)).fileName()));
            } catch (const Error &) {
                // An unreadable report: the field stays empty and says what it needs.
            }
        }
    }
    m_prepareDialog->show();
    m_prepareDialog->raise();
    return m_prepareDialog;
}

void MainWindow::leaveStartPage()
{
    if (!m_start)
        return;
    m_tabs->removeTab(m_tabs->indexOf(m_start));
    m_start->deleteLater();
    m_start = nullptr;
    showTab(QStringLiteral("plotTab"));
}

void MainWindow::appendLog(const QString &line)
{
    appendFollowingEnd(m_log, line); // the Log follows its end unless the user scrolled up
}

QString MainWindow::logText() const { return m_log->toPlainText(); }

void MainWindow::showTab(const QString &objectName)
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->widget(i)->objectName() == objectName)
            m_tabs->setCurrentIndex(i);
}

void MainWindow::stopAndClose()
{
    m_closeConfirmed = true; // scripted: no question about unsaved changes
    if (!m_session->isRunning()) {
        close();
        return;
    }
    m_closeAfterStop = true;
    m_session->setClosing(true);
    stop();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (isWindowModified() && !m_closeConfirmed) {
        event->ignore();
        askToSaveThen([this] {
            m_closeConfirmed = true;
            close();
        });
        return;
    }
    if (!m_session->isRunning()) {
        event->accept();
        return;
    }
    event->ignore();
    if (m_closeAfterStop)
        return; // already stopping; the window closes when the run has ended
    if (!m_closeBox) {
        m_closeBox = new QMessageBox(QMessageBox::Question, tr("Training is running"),
                                     tr("Stop training and close? The current step is finished and a "
                                        "checkpoint is written, so you can resume later."),
                                     QMessageBox::Yes | QMessageBox::Cancel, this);
        m_closeBox->setObjectName(QStringLiteral("closeDialog"));
        m_closeBox->setWindowModality(Qt::WindowModal);
        connect(m_closeBox, &QMessageBox::finished, this, [this](int result) {
            if (result != QMessageBox::Yes || !m_session->isRunning()) {
                m_closeConfirmed = false; // the next close asks about unsaved changes again
                return;
            }
            m_closeAfterStop = true;
            m_session->setClosing(true);
            stop();
        });
    }
    m_closeBox->open();
}

} // namespace wb
