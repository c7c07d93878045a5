// SPDX-License-Identifier: Apache-2.0
#include "ui/mainwindow.h"

#include "core/config/jsonfile.h"
#include "core/config/schedule.h"
#include "core/train/preflight.h"
#include "core/data/exampledata.h"
#include "core/util/error.h"
#include "ui/evaluationview.h"
#include "ui/fieldhelp.h"
#include "ui/lossplot.h"
#include "ui/preparedatadialog.h"
#include "ui/projectfile.h"
#include "ui/runhistory.h"
#include "ui/runstable.h"
#include "ui/trainingcontroller.h"

#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGuiApplication>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QStatusBar>
#include <QTabWidget>
#include <QTextDocument>
#include <QThread>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWhatsThis>

#include <cmath>

namespace wb {

namespace {

constexpr int kMaxRecent = 8;             // entries per recent-files list
constexpr int kPlannedScheduleSamples = 2000; // points of the planned LR curve

QString q(const std::string &s) { return QString::fromStdString(s); }

QString formatCount(int64_t n)
{
    if (n >= 1000000)
        return QStringLiteral("%1 M").arg(double(n) / 1e6, 0, 'f', 2);
    if (n >= 10000)
        return QStringLiteral("%1 k").arg(double(n) / 1e3, 0, 'f', 1);
    return QString::number(n);
}

QString formatDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return QStringLiteral("–");
    const qint64 s = qint64(std::llround(seconds));
    return QStringLiteral("%1:%2:%3").arg(s / 3600).arg((s / 60) % 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
}

bool isStrategyField(const std::string &field)
{
    return field == "distribution_strategy" || field == "num_gpus" || field == "num_local_workers";
}

} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent), m_controller(new TrainingController(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    resize(1360, 860);

    auto *panel = new QWidget;
    buildForm(panel);
    auto *scroll = new QScrollArea;
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setMinimumWidth(430);

    m_plot = new LossPlot;
    m_evalView = new EvaluationView;
    m_runs = new RunsTable(m_plot);
    m_log = new QPlainTextEdit;
    m_log->setObjectName(QStringLiteral("logPane"));
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(20000);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs = new QTabWidget;
    m_plot->setObjectName(QStringLiteral("plotTab"));
    m_evalView->setObjectName(QStringLiteral("evaluationTab"));
    m_runs->setObjectName(QStringLiteral("runsTab"));
    m_log->setObjectName(QStringLiteral("logTab"));
    m_tabs->addTab(m_plot, tr("Training curves"));
    m_tabs->addTab(m_evalView, tr("Evaluation"));
    m_tabs->addTab(m_runs, tr("Compare runs"));
    m_tabs->addTab(m_log, tr("Log"));

    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("no run yet")); // "step %v / %m" once a run knows its steps
    m_progressLabel = new QLabel(tr("Not started"));
    m_statusLabel = new QLabel(tr("Idle"));
    m_statusLabel->setObjectName(QStringLiteral("runStatus"));
    auto *progressRow = new QHBoxLayout;
    progressRow->addWidget(m_statusLabel);
    progressRow->addWidget(m_progress, 1);
    progressRow->addWidget(m_progressLabel);
    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->addWidget(m_tabs, 1);
    rightLayout->addLayout(progressRow);

    auto *splitter = new QSplitter;
    splitter->addWidget(scroll);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({470, 890});
    setCentralWidget(splitter);

    buildMenus();

    connect(m_controller, &TrainingController::runStarted, this, &MainWindow::handleRunStarted);
    connect(m_controller, &TrainingController::stepCompleted, this, &MainWindow::handleStep);
    connect(m_controller, &TrainingController::evaluationCompleted, this, &MainWindow::handleEvaluation);
    connect(m_controller, &TrainingController::checkpointSaved, this, &MainWindow::handleCheckpoint);
    connect(m_controller, &TrainingController::logMessage, this, &MainWindow::appendLog);
    connect(m_controller, &TrainingController::finished, this, &MainWindow::handleFinished);
    connect(m_controller, &TrainingController::runningChanged, this, &MainWindow::updateActions);
    connect(m_runs, &RunsTable::scanRequested, this, [this] {
        const int n = m_runs->scan(q(options().model_dir));
        statusBar()->showMessage(tr("%n run(s) found", nullptr, n), 4000);
    });
    connect(m_runs, &RunsTable::addRunRequested, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a run's metrics"), q(options().model_dir),
                                                          tr("Run metrics (metrics.jsonl);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !m_runs->addRun(path, true, &error))
            QMessageBox::warning(this, tr("Cannot read run"), error);
    });

    setOptions(TrainingOptions{});
    {
        TrainingOptions o;
        o.model_dir.clear();
        setOptions(o);
    }
    updateActions();
    updateTitle();
    statusBar()->showMessage(tr("Choose a strategy and the model and data files, then press Train."));
}

MainWindow::~MainWindow()
{
    if (m_exampleThread) {
        m_exampleCancel.requestStop();
        m_exampleThread->wait();
    }
}

QWidget *MainWindow::withHelp(const QString &field, QWidget *editor)
{
    const FieldHelp help = fieldHelp(field);
    const QString tip = QStringLiteral("<b>%1</b> (<code>--%2</code>)<br>%3").arg(help.label, field, help.text.toHtmlEscaped());
    editor->setToolTip(tip);
    editor->setObjectName(field);
    auto *button = new QToolButton;
    button->setText(QStringLiteral("?"));
    button->setObjectName(field + QStringLiteral("_help"));
    button->setToolTip(tr("Explain %1").arg(help.label));
    button->setAutoRaise(true);
    connect(button, &QToolButton::clicked, this, [button, tip] {
        QWhatsThis::showText(button->mapToGlobal(QPoint(button->width(), button->height() / 2)), tip, button);
    });
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(editor, 1);
    layout->addWidget(button);
    return row;
}

void MainWindow::addRow(QFormLayout *form, const QString &field, QWidget *editor)
{
    const FieldHelp help = fieldHelp(field);
    auto *label = new QLabel(help.label.isEmpty() ? field : help.label);
    label->setToolTip(QStringLiteral("<b>%1</b> (<code>--%2</code>)<br>%3").arg(label->text(), field, help.text.toHtmlEscaped()));
    form->addRow(label, withHelp(field, editor));
}

QLineEdit *MainWindow::addPathRow(QFormLayout *form, const QString &field, bool directory, const QString &filter)
{
    auto *edit = new QLineEdit;
    edit->setClearButtonEnabled(true);
    auto *browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Browse (arrow: recent files)"));
    browse->setPopupMode(QToolButton::MenuButtonPopup);
    auto *menu = new QMenu(browse);
    browse->setMenu(menu);
    connect(menu, &QMenu::aboutToShow, this, [this, menu, edit, field] {
        menu->clear();
        const QStringList items = recent(field);
        if (items.isEmpty())
            menu->addAction(tr("No recent files"))->setEnabled(false);
        for (const QString &item : items)
            menu->addAction(item, this, [edit, item] { edit->setText(item); });
    });
    connect(browse, &QToolButton::clicked, this, [this, edit, field, directory, filter] {
        const QString start = edit->text().isEmpty() ? QDir::homePath() : QFileInfo(edit->text()).absolutePath();
        const QString title = fieldHelp(field).label;
        const QString path = directory ? QFileDialog::getExistingDirectory(this, title, edit->text().isEmpty() ? QDir::homePath() : edit->text())
                                       : QFileDialog::getOpenFileName(this, title, start, filter);
        if (!path.isEmpty()) {
            edit->setText(path);
            addRecent(field, path);
        }
    });
    connect(edit, &QLineEdit::textChanged, this, [this, field] {
        if (field == QLatin1String("bert_config_file") || field == QLatin1String("input_meta_data_path"))
            reloadInputs();
        markModified();
    });
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(edit, 1);
    layout->addWidget(browse);
    addRow(form, field, row);
    edit->setObjectName(field);
    edit->setToolTip(row->toolTip());
    row->setObjectName(field + QStringLiteral("_row"));
    m_paths[field] = edit;
    return edit;
}

void MainWindow::buildForm(QWidget *panel)
{
    auto *layout = new QVBoxLayout(panel);

    auto *strategyBox = new QGroupBox(tr("1. Where to train"));
    auto *strategyForm = new QFormLayout(strategyBox);
    m_strategy = new QComboBox;
    m_strategy->setPlaceholderText(tr("Choose a distribution strategy…"));
    for (const std::string &name : DistributionStrategy::validNames())
        m_strategy->addItem(q(name));
    m_strategy->setCurrentIndex(-1);
    connect(m_strategy, QOverload<int>::of(&QComboBox::currentIndexChanged), this, &MainWindow::markModified);
    addRow(strategyForm, QStringLiteral("distribution_strategy"), m_strategy);
    m_numGpus = new QSpinBox;
    m_numGpus->setRange(0, 64);
    connect(m_numGpus, QOverload<int>::of(&QSpinBox::valueChanged), this, &MainWindow::markModified);
    addRow(strategyForm, QStringLiteral("num_gpus"), m_numGpus);
    m_localWorkers = new QSpinBox;
    m_localWorkers->setRange(0, 64);
    m_localWorkers->setSpecialValueText(tr("off (use TF_CONFIG or the environment)"));
    connect(m_localWorkers, QOverload<int>::of(&QSpinBox::valueChanged), this, &MainWindow::markModified);
    addRow(strategyForm, QStringLiteral("num_local_workers"), m_localWorkers);
    m_workerTimeout = new QSpinBox;
    m_workerTimeout->setRange(1, 24 * 3600);
    m_workerTimeout->setSuffix(tr(" s"));
    m_workerTimeout->setValue(TrainingOptions().worker_timeout_seconds);
    connect(m_workerTimeout, QOverload<int>::of(&QSpinBox::valueChanged), this, &MainWindow::markModified);
    addRow(strategyForm, QStringLiteral("worker_timeout"), m_workerTimeout);
    // Local workers and the timeout only mean something for multi_worker_mirrored.
    const auto updateLocalWorkers = [this] {
        const bool multi = m_strategy->currentText() == QLatin1String("multi_worker_mirrored");
        m_localWorkers->setEnabled(multi);
        m_workerTimeout->setEnabled(multi);
    };
    connect(m_strategy, &QComboBox::currentTextChanged, this, updateLocalWorkers);
    updateLocalWorkers();
    layout->addWidget(strategyBox);

    auto *filesBox = new QGroupBox(tr("2. Model and data"));
    auto *filesForm = new QFormLayout(filesBox);
    const QString json = tr("JSON (*.json);;All files (*)");
    const QString records = tr("TFRecord (*.tf_record *.tfrecord *.tfrecords);;All files (*)");
    addPathRow(filesForm, QStringLiteral("bert_config_file"), false, json);
    addPathRow(filesForm, QStringLiteral("input_meta_data_path"), false, json);
    addPathRow(filesForm, QStringLiteral("train_data_path"), false, records);
    addPathRow(filesForm, QStringLiteral("eval_data_path"), false, records);
    addPathRow(filesForm, QStringLiteral("init_checkpoint"), false, tr("safetensors (*.safetensors);;All files (*)"));
    addPathRow(filesForm, QStringLiteral("model_dir"), true, QString());
    layout->addWidget(filesBox);

    auto *hyperBox = new QGroupBox(tr("3. Hyperparameters"));
    auto *hyperForm = new QFormLayout(hyperBox);
    auto spin = [this](int lo, int hi) {
        auto *s = new QSpinBox;
        s->setRange(lo, hi);
        connect(s, QOverload<int>::of(&QSpinBox::valueChanged), this, &MainWindow::markModified);
        return s;
    };
    auto number = [this] {
        auto *e = new QLineEdit;
        auto *v = new QDoubleValidator(0, 10, 12, e);
        v->setNotation(QDoubleValidator::ScientificNotation);
        v->setLocale(QLocale::c());
        e->setValidator(v);
        connect(e, &QLineEdit::textChanged, this, &MainWindow::markModified);
        return e;
    };
    m_trainBatch = spin(1, 65536);
    m_evalBatch = spin(1, 65536);
    m_learningRate = number();
    m_endLr = number();
    m_epochs = spin(1, 10000);
    m_evalPerEpoch = spin(1, 1000);
    m_warmupFraction = new QDoubleSpinBox;
    m_warmupFraction->setRange(0, 1);
    m_warmupFraction->setSingleStep(0.05);
    connect(m_warmupFraction, QOverload<double>::of(&QDoubleSpinBox::valueChanged), this, &MainWindow::markModified);
    m_weightDecay = new QDoubleSpinBox;
    m_weightDecay->setRange(0, 1);
    m_weightDecay->setDecimals(4);
    m_weightDecay->setSingleStep(0.01);
    connect(m_weightDecay, QOverload<double>::of(&QDoubleSpinBox::valueChanged), this, &MainWindow::markModified);
    m_trainDataSize = spin(0, std::numeric_limits<int>::max());
    m_trainDataSize->setSpecialValueText(tr("all"));
    m_seed = spin(0, std::numeric_limits<int>::max());
    m_logSteps = spin(0, 1000000);
    m_keepCheckpoints = spin(0, 10000);
    m_keepCheckpoints->setSpecialValueText(tr("all"));
    addRow(hyperForm, QStringLiteral("train_batch_size"), m_trainBatch);
    addRow(hyperForm, QStringLiteral("eval_batch_size"), m_evalBatch);
    addRow(hyperForm, QStringLiteral("learning_rate"), m_learningRate);
    addRow(hyperForm, QStringLiteral("end_lr"), m_endLr);
    addRow(hyperForm, QStringLiteral("num_train_epochs"), m_epochs);
    addRow(hyperForm, QStringLiteral("num_eval_per_epoch"), m_evalPerEpoch);
    addRow(hyperForm, QStringLiteral("warmup_fraction"), m_warmupFraction);
    addRow(hyperForm, QStringLiteral("weight_decay_rate"), m_weightDecay);
    addRow(hyperForm, QStringLiteral("train_data_size"), m_trainDataSize);
    addRow(hyperForm, QStringLiteral("seed"), m_seed);
    addRow(hyperForm, QStringLiteral("log_steps"), m_logSteps);
    addRow(hyperForm, QStringLiteral("keep_checkpoint_max"), m_keepCheckpoints);
    auto *reset = new QPushButton(tr("Reset to defaults"));
    reset->setObjectName(QStringLiteral("resetDefaults"));
    reset->setToolTip(tr("Set every hyperparameter back to run_classifier's default (files and strategy are kept)"));
    connect(reset, &QPushButton::clicked, this, &MainWindow::resetToDefaults);
    hyperForm->addRow(QString(), reset);
    layout->addWidget(hyperBox);

    auto *scheduleBox = new QGroupBox(tr("Schedule (computed as run_classifier does)"));
    auto *scheduleLayout = new QVBoxLayout(scheduleBox);
    m_schedule = new QLabel;
    m_schedule->setObjectName(QStringLiteral("schedulePanel"));
    m_schedule->setTextFormat(Qt::RichText);
    m_schedule->setWordWrap(true);
    m_schedule->setTextInteractionFlags(Qt::TextSelectableByMouse);
    scheduleLayout->addWidget(m_schedule);
    layout->addWidget(scheduleBox);

    auto *modelBox = new QGroupBox(tr("Model summary"));
    auto *modelLayout = new QVBoxLayout(modelBox);
    m_modelSummary = new QLabel;
    m_modelSummary->setObjectName(QStringLiteral("modelSummary"));
    m_modelSummary->setTextFormat(Qt::RichText);
    m_modelSummary->setWordWrap(true);
    m_modelSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    modelLayout->addWidget(m_modelSummary);
    layout->addWidget(modelBox);
    layout->addStretch(1);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New Project"), QKeySequence::New, this, [this] {
        m_projectPath.clear();
        TrainingOptions o;
        o.model_dir.clear();
        setOptions(o);
    });
    file->addAction(tr("&Open Project…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                          tr("BERT Workbench project (*.bwproj *.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !openProject(path, &error))
            QMessageBox::warning(this, tr("Cannot open project"), error);
    });
    m_recentProjects = file->addMenu(tr("Recent Projects"));
    connect(m_recentProjects, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentProjectsMenu);
    auto saveAs = [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save project"), m_projectPath.isEmpty() ? QStringLiteral("project.bwproj") : m_projectPath,
                                                          tr("BERT Workbench project (*.bwproj)"));
        QString error;
        if (!path.isEmpty() && !saveProject(path, &error))
            QMessageBox::warning(this, tr("Cannot save project"), error);
    };
    file->addAction(tr("&Save Project"), QKeySequence::Save, this, [this, saveAs] {
        if (m_projectPath.isEmpty())
            return saveAs();
        QString error;
        if (!saveProject(m_projectPath, &error))
            QMessageBox::warning(this, tr("Cannot save project"), error);
    });
    file->addAction(tr("Save Project &As…"), QKeySequence::SaveAs, this, saveAs);
    file->addSeparator();
    file->addAction(tr("Open &Example (spam detection)"), this, &MainWindow::openExample);
    file->addAction(tr("&Prepare Data…"), this, &MainWindow::openPrepareData);
    QAction *openLogs = file->addAction(tr("Open &TensorBoard Logs…"), this, [this] { openTensorBoardLogs(); });
    openLogs->setToolTip(tr("Overlay the scalars of TensorBoard event files (run_classifier, Keras or ours) on the plot"));
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu *model = menuBar()->addMenu(tr("&Model"));
    QMenu *presets = model->addMenu(tr("New bert_config.json from &Preset"));
    const auto &all = bertPresets();
    for (int i = 0; i < int(all.size()); ++i) {
        const BertPreset &p = all[size_t(i)];
        const ParameterCount pc = p.config.parameterCount(2);
        QAction *a = presets->addAction(tr("%1 — %2 parameters").arg(q(p.name), formatCount(pc.total())));
        a->setToolTip(tr("Writes this published configuration as bert_config.json"));
        connect(a, &QAction::triggered, this, [this, i] {
            const QString dir = options().model_dir.empty() ? QDir::homePath() : q(options().model_dir);
            const QString path = QFileDialog::getSaveFileName(this, tr("Save bert_config.json"),
                                                              QDir(dir).filePath(QStringLiteral("bert_config.json")),
                                                              tr("JSON (*.json)"));
            QString error;
            if (!path.isEmpty() && !writePresetConfig(i, path, &error))
                QMessageBox::warning(this, tr("Cannot write config"), error);
        });
    }

    QMenu *run = menuBar()->addMenu(tr("&Training"));
    m_trainAction = run->addAction(tr("&Train"), this, &MainWindow::train);
    m_trainAction->setShortcut(Qt::CTRL | Qt::Key_Return);
    m_trainAction->setToolTip(tr("Check the configuration, then train (Ctrl+Enter)"));
    m_stopAction = run->addAction(tr("&Stop"), this, &MainWindow::stop);
    m_stopAction->setToolTip(tr("Finish the current step, write a checkpoint and stop"));
    m_resumeAction = run->addAction(tr("&Resume"), this, &MainWindow::resume);
    m_resumeAction->setToolTip(tr("Continue the stopped run from its latest checkpoint"));
    run->addSeparator();
    QAction *copyCommand = run->addAction(tr("Copy as &Command Line"), this, [this] {
        const QString command = commandLine();
        QGuiApplication::clipboard()->setText(command);
        statusBar()->showMessage(tr("Copied: %1").arg(command), 8000);
    });
    copyCommand->setToolTip(tr("The same run from a terminal or a script: bert-workbench-cli train with these flags"));
    run->addAction(tr("Compare runs near model_dir"), this, [this] {
        m_runs->scan(q(options().model_dir));
        showTab(QStringLiteral("runsTab"));
    });

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About BERT Workbench"), this, [this] {
        QMessageBox::about(this, tr("About BERT Workbench"),
                           tr("<b>BERT Workbench</b><br>Fine-tune BERT text classifiers and watch them learn.<br>"
                              "Hover over any field or press its <b>?</b> button for an explanation."));
    });

    QToolBar *bar = addToolBar(tr("Training"));
    bar->setObjectName(QStringLiteral("trainingToolbar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_trainAction->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_stopAction->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    m_resumeAction->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
    bar->addAction(m_trainAction);
    bar->addAction(m_stopAction);
    bar->addAction(m_resumeAction);
}

QString MainWindow::commandLine() const
{
    std::vector<std::string> words{"bert-workbench-cli", "train"};
    for (const std::string &flag : toCommandLineFlags(options()))
        words.push_back(flag);
    return q(shellJoin(words));
}

TrainingOptions MainWindow::options() const
{
    TrainingOptions o;
    o.distribution_strategy = m_strategy->currentIndex() < 0 ? std::string() : m_strategy->currentText().toStdString();
    o.num_gpus = m_numGpus->value();
    if (m_localWorkers->isEnabled())
        o.num_local_workers = m_localWorkers->value();
    o.worker_timeout_seconds = m_workerTimeout->value();
    auto path = [this](const char *field) { return m_paths.at(QString::fromLatin1(field))->text().trimmed().toStdString(); };
    o.bert_config_file = path("bert_config_file");
    o.input_meta_data_path = path("input_meta_data_path");
    o.train_data_path = path("train_data_path");
    o.eval_data_path = path("eval_data_path");
    o.init_checkpoint = path("init_checkpoint");
    o.model_dir = path("model_dir");
    o.train_batch_size = m_trainBatch->value();
    o.eval_batch_size = m_evalBatch->value();
    bool ok = false;
    const double lr = QLocale::c().toDouble(m_learningRate->text().trimmed(), &ok);
    o.learning_rate = ok ? lr : 0.0;
    const double endLr = QLocale::c().toDouble(m_endLr->text().trimmed(), &ok);
    o.end_lr = ok ? endLr : -1.0;
    o.num_train_epochs = m_epochs->value();
    o.num_eval_per_epoch = m_evalPerEpoch->value();
    o.warmup_fraction = m_warmupFraction->value();
    o.weight_decay_rate = m_weightDecay->value();
    if (m_trainDataSize->value() > 0)
        o.train_data_size = m_trainDataSize->value();
    o.seed = m_seed->value();
    o.log_steps = m_logSteps->value();
    o.keep_checkpoint_max = m_keepCheckpoints->value();
    return o;
}

void MainWindow::setOptions(const TrainingOptions &o, bool modified)
{
    m_loading = true;
    m_strategy->setCurrentIndex(m_strategy->findText(q(o.distribution_strategy), Qt::MatchFixedString));
    m_numGpus->setValue(o.num_gpus);
    m_localWorkers->setValue(o.num_local_workers);
    m_workerTimeout->setValue(o.worker_timeout_seconds);
    m_paths.at(QStringLiteral("bert_config_file"))->setText(q(o.bert_config_file));
    m_paths.at(QStringLiteral("input_meta_data_path"))->setText(q(o.input_meta_data_path));
    m_paths.at(QStringLiteral("train_data_path"))->setText(q(o.train_data_path));
    m_paths.at(QStringLiteral("eval_data_path"))->setText(q(o.eval_data_path));
    m_paths.at(QStringLiteral("init_checkpoint"))->setText(q(o.init_checkpoint));
    m_paths.at(QStringLiteral("model_dir"))->setText(q(o.model_dir));
    m_trainBatch->setValue(int(o.train_batch_size));
    m_evalBatch->setValue(int(o.eval_batch_size));
    m_learningRate->setText(QString::number(o.learning_rate, 'g', 6));
    m_endLr->setText(QString::number(o.end_lr, 'g', 6));
    m_epochs->setValue(int(o.num_train_epochs));
    m_evalPerEpoch->setValue(int(o.num_eval_per_epoch));
    m_warmupFraction->setValue(o.warmup_fraction);
    m_weightDecay->setValue(o.weight_decay_rate);
    m_trainDataSize->setValue(int(o.train_data_size.value_or(0)));
    m_seed->setValue(int(o.seed));
    m_logSteps->setValue(int(o.log_steps));
    m_keepCheckpoints->setValue(o.keep_checkpoint_max);
    m_loading = false;
    reloadInputs();
    setWindowModified(modified);
    updateTitle();
}

void MainWindow::resetToDefaults()
{
    TrainingOptions current = options();
    const TrainingOptions defaults;
    current.train_batch_size = defaults.train_batch_size;
    current.eval_batch_size = defaults.eval_batch_size;
    current.learning_rate = defaults.learning_rate;
    current.end_lr = defaults.end_lr;
    current.num_train_epochs = defaults.num_train_epochs;
    current.num_eval_per_epoch = defaults.num_eval_per_epoch;
    current.warmup_fraction = defaults.warmup_fraction;
    current.weight_decay_rate = defaults.weight_decay_rate;
    current.train_data_size = defaults.train_data_size;
    current.seed = defaults.seed;
    current.log_steps = defaults.log_steps;
    current.keep_checkpoint_max = defaults.keep_checkpoint_max;
    setOptions(current, true);
}

void MainWindow::markModified()
{
    if (m_loading)
        return;
    setWindowModified(true);
    updateSchedule();
    updateModelSummary();
}

void MainWindow::reloadInputs()
{
    if (m_loading)
        return;
    m_inputDiagnostics = Diagnostics();
    m_bertConfig.reset();
    m_metaData.reset();
    const TrainingOptions o = options();
    if (!o.bert_config_file.empty() && QFileInfo(q(o.bert_config_file)).isFile())
        m_bertConfig = BertConfig::load(o.bert_config_file, m_inputDiagnostics);
    if (!o.input_meta_data_path.empty() && QFileInfo(q(o.input_meta_data_path)).isFile())
        m_metaData = InputMetaData::load(o.input_meta_data_path, m_inputDiagnostics);
    updateSchedule();
    updateModelSummary();
}

void MainWindow::updateSchedule()
{
    if (m_loading)
        return;
    const TrainingOptions o = options();
    const QString N = m_metaData && m_metaData->train_data_size ? QString::number(*m_metaData->train_data_size) : QStringLiteral("N");
    const QString M = m_metaData && m_metaData->eval_data_size ? QString::number(*m_metaData->eval_data_size) : QStringLiteral("M");
    QString html = QStringLiteral("<table cellspacing='2'>");
    auto row = [&html](const QString &name, const QString &formula, const QString &value) {
        html += QStringLiteral("<tr><td><code>%1</code> = <b>%3</b></td></tr>"
                               "<tr><td style='color:#555555; padding-left:14px'>= %2</td></tr>").arg(name, formula, value);
    };
    std::optional<Schedule> s;
    Diagnostics diag;
    if (m_metaData && m_metaData->train_data_size && m_metaData->eval_data_size)
        s = Schedule::compute(*m_metaData->train_data_size, *m_metaData->eval_data_size, o.num_train_epochs,
                              o.num_eval_per_epoch, o.train_batch_size, o.eval_batch_size, o.train_data_size,
                              o.warmup_fraction, diag);
    const QString B = QString::number(o.train_batch_size), Be = QString::number(o.eval_batch_size);
    const QString E = QString::number(o.num_train_epochs), n = QString::number(o.num_eval_per_epoch);
    auto val = [&s](int64_t Schedule::*field) { return s ? QString::number((*s).*field) : QStringLiteral("?"); };
    row(QStringLiteral("epochs"), QStringLiteral("num_train_epochs × num_eval_per_epoch = %1 × %2").arg(E, n), val(&Schedule::epochs));
    QString sizeFormula = QStringLiteral("train_data_size // num_eval_per_epoch = %1 // %2").arg(N, n);
    if (o.train_data_size)
        sizeFormula += QStringLiteral(", capped at %1").arg(*o.train_data_size);
    row(QStringLiteral("examples/epoch"), sizeFormula, val(&Schedule::train_data_size));
    const QString T = s ? QString::number(s->train_data_size) : QStringLiteral("N′");
    row(QStringLiteral("steps_per_epoch"), QStringLiteral("floor(%1 / %2)").arg(T, B), val(&Schedule::steps_per_epoch));
    row(QStringLiteral("total_steps"), QStringLiteral("steps_per_epoch × epochs = %1 × %2").arg(val(&Schedule::steps_per_epoch), val(&Schedule::epochs)),
        val(&Schedule::total_steps));
    row(QStringLiteral("warmup_steps"), QStringLiteral("int(epochs × %1 × %2 / %3)").arg(T, QString::number(o.warmup_fraction), B),
        val(&Schedule::warmup_steps));
    row(QStringLiteral("eval_steps"), QStringLiteral("ceil(%1 / %2)").arg(M, Be), val(&Schedule::eval_steps));
    html += QStringLiteral("</table>");
    if (!m_metaData)
        html += tr("<p><i>Choose input_meta_data.json to fill in N (train_data_size) and M (eval_data_size).</i></p>");
    for (const Diagnostic &dg : diag.items())
        html += QStringLiteral("<p style='color:#b00000'>%1<br><i>%2</i></p>").arg(q(dg.message).toHtmlEscaped(), q(dg.hint).toHtmlEscaped());
    if (s && s->total_steps > 0) {
        const double seconds = 0;
        Q_UNUSED(seconds);
        html += tr("<p>The learning rate rises linearly from 0 to %1 over %2 warmup steps, then falls "
                   "linearly to %3 at step %4 (see the lower plot).</p>")
                    .arg(o.learning_rate, 0, 'g', 3).arg(s->warmup_steps).arg(o.end_lr, 0, 'g', 3).arg(s->total_steps);
    }
    m_schedule->setText(html);

    if (!m_controller->isRunning() && s && s->total_steps > 0) {
        std::vector<double> steps, lrs;
        const int64_t total = s->total_steps;
        const int64_t stride = std::max<int64_t>(1, total / kPlannedScheduleSamples);
        // Update number t+1 (the step the plot shows) uses learningRate(t).
        for (int64_t t = 0; t < total; t += stride) {
            if (t > 0 && steps.back() < double(s->warmup_steps) && t > s->warmup_steps) {
                steps.push_back(double(s->warmup_steps + 1));
                lrs.push_back(s->learningRate(s->warmup_steps, o.learning_rate, o.end_lr));
            }
            steps.push_back(double(t + 1));
            lrs.push_back(s->learningRate(t, o.learning_rate, o.end_lr));
        }
        if (steps.back() != double(total)) {
            steps.push_back(double(total));
            lrs.push_back(s->learningRate(total - 1, o.learning_rate, o.end_lr));
        }
        m_plot->setPlannedSchedule(steps, lrs);
    } else if (!m_controller->isRunning()) {
        m_plot->setPlannedSchedule({}, {});
    }
}

void MainWindow::updateModelSummary()
{
    if (m_loading)
        return;
    if (!m_bertConfig) {
        QString text = tr("<i>Choose a bert_config.json (or Model → New bert_config.json from Preset) to see the "
                          "model's size.</i>");
        for (const Diagnostic &dg : m_inputDiagnostics.items())
            if (dg.severity == Severity::Error)
                text += QStringLiteral("<p style='color:#b00000'>%1: %2</p>").arg(q(dg.field).toHtmlEscaped(), q(dg.message).toHtmlEscaped());
        m_modelSummary->setText(text);
        return;
    }
    const BertConfig &c = *m_bertConfig;
    const int64_t labels = m_metaData ? std::max<int64_t>(m_metaData->num_labels, 1) : 2;
    const int64_t seq = m_metaData && m_metaData->max_seq_length > 0 ? m_metaData->max_seq_length : 128;
    const ParameterCount pc = c.parameterCount(labels);
    const double flops = c.trainingFlopsPerExample(seq, labels);
    QString html = tr("<b>L=%1, H=%2, A=%3</b>, feed-forward %4, vocabulary %5<br>")
                       .arg(c.num_hidden_layers).arg(c.hidden_size).arg(c.num_attention_heads)
                       .arg(c.intermediate_size).arg(c.vocab_size);
    html += QStringLiteral("<table>");
    auto row = [&html, &pc](const QString &name, int64_t n, const QString &what) {
        html += QStringLiteral("<tr><td>%1</td><td align='right'><b>%2</b></td><td>%3%</td><td><i>%4</i></td></tr>")
                    .arg(name, formatCount(n)).arg(pc.total() ? 100.0 * double(n) / double(pc.total()) : 0.0, 0, 'f', 1).arg(what);
    };
    row(tr("embeddings"), pc.embeddings, tr("token, position and segment tables"));
    row(tr("encoder"), pc.encoder, tr("%1 transformer blocks").arg(c.num_hidden_layers));
    row(tr("pooler"), pc.pooler, tr("[CLS] summary layer"));
    row(tr("classifier"), pc.classifier, tr("%1 outputs").arg(labels));
    html += QStringLiteral("<tr><td><b>total</b></td><td align='right'><b>%1</b></td><td></td><td>%2 parameters</td></tr></table>")
                .arg(formatCount(pc.total())).arg(pc.total());
    html += tr("Training cost: <b>%1 GFLOPs per example</b> at %2 tokens (forward + backward)")
                .arg(flops / 1e9, 0, 'f', flops < 1e10 ? 2 : 1).arg(seq);
    const TrainingOptions o = options();
    html += tr(", %1 TFLOPs per step at batch %2.").arg(flops * double(o.train_batch_size) / 1e12, 0, 'f', 3).arg(o.train_batch_size);
    m_modelSummary->setText(html);
}

QString MainWindow::scheduleText() const
{
    QTextDocument doc;
    doc.setHtml(m_schedule->text());
    return doc.toPlainText();
}

QString MainWindow::modelSummaryText() const
{
    QTextDocument doc;
    doc.setHtml(m_modelSummary->text());
    return doc.toPlainText();
}

void MainWindow::updateTitle()
{
    const QString name = m_projectPath.isEmpty() ? tr("Untitled") : QFileInfo(m_projectPath).completeBaseName();
    setWindowTitle(tr("%1[*] — BERT Workbench").arg(name));
}

void MainWindow::updateActions()
{
    const bool running = m_controller->isRunning();
    m_trainAction->setEnabled(!running);
    m_stopAction->setEnabled(running && !m_controller->isStopRequested());
    m_resumeAction->setEnabled(m_controller->canResume());
}

QStringList MainWindow::recent(const QString &key) const
{
    return QSettings().value(QStringLiteral("recent/") + key).toStringList();
}

void MainWindow::addRecent(const QString &key, const QString &value)
{
    if (value.isEmpty())
        return;
    QSettings settings;
    QStringList list = settings.value(QStringLiteral("recent/") + key).toStringList();
    list.removeAll(value);
    list.prepend(value);
    while (list.size() > kMaxRecent)
        list.removeLast();
    settings.setValue(QStringLiteral("recent/") + key, list);
}

void MainWindow::rebuildRecentProjectsMenu()
{
    m_recentProjects->clear();
    const QStringList items = recent(QStringLiteral("projects"));
    if (items.isEmpty())
        m_recentProjects->addAction(tr("No recent projects"))->setEnabled(false);
    for (const QString &item : items)
        m_recentProjects->addAction(item, this, [this, item] {
            QString error;
            if (!openProject(item, &error))
                QMessageBox::warning(this, tr("Cannot open project"), error);
        });
}

bool MainWindow::openProject(const QString &path, QString *error)
{
    Diagnostics diag;
    const TrainingOptions o = ProjectFile::load(path, diag);
    if (diag.hasErrors()) {
        if (error)
            *error = q(diag.format());
        return false;
    }
    m_projectPath = QFileInfo(path).absoluteFilePath();
    setOptions(o, false);
    addRecent(QStringLiteral("projects"), m_projectPath);
    for (const Diagnostic &dg : diag.items())
        appendLog(QStringLiteral("%1: %2: %3").arg(QString::fromLatin1(severityName(dg.severity)), q(dg.field), q(dg.message)));
    statusBar()->showMessage(tr("Opened %1").arg(m_projectPath), 4000);
    return true;
}

bool MainWindow::saveProject(const QString &path, QString *error)
{
    try {
        ProjectFile::save(path, options());
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    m_projectPath = QFileInfo(path).absoluteFilePath();
    addRecent(QStringLiteral("projects"), m_projectPath);
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
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    m_paths.at(QStringLiteral("bert_config_file"))->setText(path);
    addRecent(QStringLiteral("bert_config_file"), path);
    appendLog(tr("Wrote %1 (%2)").arg(path, q(all[size_t(index)].name)));
    return true;
}

void MainWindow::showValidationErrors(const Diagnostics &diag)
{
    QStringList lines, hints, warnings;
    for (const Diagnostic &dg : diag.items()) {
        if (dg.severity != Severity::Error) {
            warnings << QStringLiteral("%1: %2").arg(q(dg.field), q(dg.message));
            continue;
        }
        // The form's words, not the command line's: "set “BERT config” to …", not "--bert_config_file=…".
        const QString message = formWording(q(dg.message));
        const QString label = fieldHelp(q(dg.field)).label; // "BERT config", not "bert_config_file"
        lines << (isStrategyField(dg.field) || dg.field.empty()
                      ? message
                      : QStringLiteral("%1: %2").arg(label.isEmpty() ? q(dg.field) : label, message));
        if (!dg.hint.empty())
            hints << QStringLiteral("• %1").arg(formWording(q(dg.hint)));
    }
    if (!m_validationBox) {
        m_validationBox = new QMessageBox(this);
        m_validationBox->setObjectName(QStringLiteral("validationDialog"));
        m_validationBox->setIcon(QMessageBox::Critical);
        m_validationBox->setWindowTitle(tr("Cannot start training"));
        m_validationBox->setTextFormat(Qt::PlainText);
        m_validationBox->setStandardButtons(QMessageBox::Ok);
        m_validationBox->setWindowModality(Qt::WindowModal);
    }
    m_validationBox->setText(lines.join(QLatin1Char('\n')));
    m_validationBox->setInformativeText(hints.isEmpty() ? QString() : tr("How to fix:\n") + hints.join(QLatin1Char('\n')));
    m_validationBox->setDetailedText(warnings.join(QLatin1Char('\n')));
    m_validationBox->open();
}

bool MainWindow::train()
{
    if (m_controller->isRunning())
        return false;
    const TrainingOptions o = options();
    const ValidationResult result = validateRun(o);
    m_lastValidation = result.diagnostics;
    if (!result.ok()) {
        showValidationErrors(result.diagnostics);
        appendLog(tr("Validation failed:\n") + q(result.diagnostics.format()));
        statusBar()->showMessage(tr("Fix the problems listed, then press Train again."), 6000);
        return false;
    }
    for (const Diagnostic &dg : result.diagnostics.items())
        appendLog(QStringLiteral("%1: %2: %3").arg(QString::fromLatin1(severityName(dg.severity)), q(dg.field), q(dg.message)));
    for (const auto &[field, edit] : m_paths)
        addRecent(field, edit->text().trimmed());
    try {
        // Records the configuration next to the run, for the run comparison table.
        ProjectFile::save(QDir(q(o.model_dir)).filePath(QStringLiteral("bert_workbench_project.json")), o);
    } catch (const std::exception &e) {
        appendLog(tr("warning: %1").arg(QString::fromUtf8(e.what())));
    }
    m_plot->clear();
    m_evalView->clear();
    updateSchedule();
    m_runs->setLiveMetricsPath(q(o.metricsPath()));
    m_firstWall = 0;
    m_firstStep = 0;
    m_trainBatchSize = o.train_batch_size;
    if (result.schedule) {
        m_progress->setRange(0, int(result.schedule->total_steps));
        m_progress->setValue(0);
        m_progress->setFormat(tr("step %v / %m"));
    }
    appendLog(tr("Starting training: %1 on %2, model_dir %3").arg(q(o.bert_config_file), q(o.distribution_strategy), q(o.model_dir)));
    m_statusLabel->setText(tr("Starting…"));
    statusBar()->showMessage(tr("Training started. Stop writes a checkpoint; Resume continues from it."), 8000);
    showTab(QStringLiteral("plotTab"));
    return m_controller->start(o);
}

void MainWindow::stop()
{
    if (!m_controller->isRunning())
        return;
    m_controller->requestStop();
    m_statusLabel->setText(tr("Stopping after this step…"));
    appendLog(tr("Stop requested: finishing the current step and writing a checkpoint."));
    updateActions();
}

bool MainWindow::resume()
{
    if (!m_controller->canResume())
        return false;
    m_firstWall = 0;
    appendLog(tr("Resuming from the latest checkpoint in %1").arg(q(m_controller->lastSpec().model_dir)));
    m_statusLabel->setText(tr("Resuming…"));
    return m_controller->resume();
}

void MainWindow::openExample()
{
    if (m_exampleThread)
        return;
    if (!m_exampleProgress) {
        m_exampleProgress = new QProgressDialog(tr("Preparing the spam-detection example…"), tr("Cancel"), 0, 1000, this);
        m_exampleProgress->setObjectName(QStringLiteral("exampleProgress"));
        m_exampleProgress->setWindowTitle(tr("Open Example"));
        m_exampleProgress->setWindowModality(Qt::WindowModal);
        m_exampleProgress->setMinimumDuration(300);
        m_exampleProgress->setAutoClose(false);
        m_exampleProgress->setAutoReset(false);
        connect(m_exampleProgress, &QProgressDialog::canceled, this, [this] { m_exampleCancel.requestStop(); });
    }
    m_exampleCancel.reset();
    m_exampleProgress->reset();
    m_exampleProgress->setValue(0);
    appendLog(tr("Opening the example project (first use downloads and prepares the SpamAssassin corpus into %1)")
                  .arg(q(defaultExampleCacheDir())));
    auto paths = std::make_shared<ExampleDataPaths>();
    auto error = std::make_shared<QString>();
    m_exampleThread = QThread::create([this, paths, error] {
        try {
            *paths = ensureExampleData(
                defaultExampleCacheDir(),
                [this](double fraction, const std::string &stage) {
                    const QString label = q(stage);
                    QMetaObject::invokeMethod(this, [this, fraction, label] {
                        if (!m_exampleProgress)
                            return;
                        m_exampleProgress->setValue(int(fraction * 1000));
                        m_exampleProgress->setLabelText(tr("Preparing the spam-detection example: %1").arg(label));
                    }, Qt::QueuedConnection);
                },
                &m_exampleCancel);
        } catch (const Error &e) {
            *error = e.field().empty() ? QString::fromUtf8(e.what()) : QStringLiteral("%1: %2").arg(q(e.field()), QString::fromUtf8(e.what()));
            if (!e.hint().empty())
                *error += QStringLiteral("\n\n") + q(e.hint());
        } catch (const std::exception &e) {
            *error = QString::fromUtf8(e.what());
        }
    });
    connect(m_exampleThread, &QThread::finished, this, [this, paths, error] {
        m_exampleThread->wait();
        m_exampleThread->deleteLater();
        m_exampleThread = nullptr;
        m_exampleProgress->reset();
        m_exampleProgress->hide();
        if (!error->isEmpty()) {
            if (m_exampleCancel.stopRequested())
                return appendLog(tr("Example preparation cancelled."));
            appendLog(tr("Example failed: %1").arg(*error));
            auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot open the example"), *error, QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->setWindowModality(Qt::WindowModal);
            box->open();
            return;
        }
        TrainingOptions o;
        o.distribution_strategy = "one_device";
        o.num_gpus = 0;
        o.bert_config_file = paths->bert_config_file;
        o.input_meta_data_path = paths->meta_data_path;
        o.train_data_path = paths->train_data_path;
        o.eval_data_path = paths->eval_data_path;
        o.model_dir = QDir(q(paths->project_dir)).filePath(QStringLiteral("runs/run-1")).toStdString();
        o.train_batch_size = 32;
        o.eval_batch_size = 64;
        o.learning_rate = 5e-4; // a small model trained from scratch tolerates a larger rate
        o.num_train_epochs = 3;
        o.num_eval_per_epoch = 2;
        o.log_steps = 20;
        const QString project = QDir(q(paths->project_dir)).filePath(QStringLiteral("spam-example.bwproj"));
        if (!QFileInfo::exists(project)) {
            try {
                ProjectFile::save(project, o);
            } catch (const std::exception &e) {
                appendLog(tr("warning: %1").arg(QString::fromUtf8(e.what())));
            }
        }
        QString openError;
        if (!openProject(project, &openError)) {
            setOptions(o);
            appendLog(tr("warning: %1").arg(openError));
        }
        appendLog(tr("Example ready: spam detection (SpamAssassin), BERT-Tiny, one_device. Press Train."));
        statusBar()->showMessage(tr("Example loaded. Press Train to start."));
        Q_EMIT exampleReady();
    });
    m_exampleThread->start();
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
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const std::vector<RunHistory> runs = RunHistory::fromTensorBoard(dir, &error, &warnings);
    QApplication::restoreOverrideCursor();
    for (const QString &w : warnings)
        appendLog(tr("warning: %1").arg(w));
    if (runs.empty()) {
        appendLog(tr("Cannot open TensorBoard logs: %1").arg(error));
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot open TensorBoard logs"), error, QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("tensorBoardError"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setWindowModality(Qt::WindowModal);
        box->open();
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
        connect(m_prepareDialog, &PrepareDataDialog::prepared, this, [this](const PrepareReport &r) {
            m_paths.at(QStringLiteral("train_data_path"))->setText(q(r.train_path));
            m_paths.at(QStringLiteral("eval_data_path"))->setText(q(r.eval_path));
            m_paths.at(QStringLiteral("input_meta_data_path"))->setText(q(r.meta_path));
            appendLog(tr("Prepared data: %1 training, %2 evaluation examples → %3")
                          .arg(r.train_examples).arg(r.eval_examples).arg(q(r.meta_path)));
            for (const std::string &w : r.warnings)
                appendLog(tr("warning: %1").arg(q(w)));
        });
    }
    m_prepareDialog->show();
    m_prepareDialog->raise();
    return m_prepareDialog;
}

void MainWindow::appendLog(const QString &line)
{
    m_log->appendPlainText(line);
}

QString MainWindow::logText() const { return m_log->toPlainText(); }

void MainWindow::showTab(const QString &objectName)
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->widget(i)->objectName() == objectName)
            m_tabs->setCurrentIndex(i);
}

void MainWindow::handleRunStarted(const RunStarted &info)
{
    m_progress->setRange(0, int(info.total_steps));
    m_progress->setValue(int(info.start_step));
    m_progress->setFormat(tr("step %v / %m"));
    m_statusLabel->setText(tr("Training on %1").arg(q(info.device)));
    m_statusLabel->setStyleSheet(QString());
    m_runs->scan(q(m_controller->lastSpec().model_dir));
    if (info.start_step > 0 && m_plot->pointCount(LossPlot::Series::TrainLoss) == 0) {
        // Resumed in a new session: show the history that is already on disk.
        const RunHistory h = RunHistory::load(q(m_controller->lastSpec().metricsPath()));
        for (size_t i = 0; i < h.trainStep.size(); ++i) {
            if (h.trainStep[i] > double(info.start_step))
                break;
            StepMetrics m;
            m.step = int64_t(h.trainStep[i]);
            m.loss = h.trainLoss[i];
            m.learning_rate = h.learningRate[i];
            m.wall_time = h.trainWallTime[i];
            m_plot->addStep(m);
        }
        for (size_t i = 0; i < h.evalStep.size(); ++i) {
            if (h.evalStep[i] > double(info.start_step))
                break;
            EvalMetrics e;
            e.step = int64_t(h.evalStep[i]);
            e.eval_loss = h.evalLoss[i];
            e.eval_accuracy = h.evalAccuracy[i];
            e.wall_time = h.evalWallTime[i];
            m_plot->addEvaluation(e);
        }
    }
}

void MainWindow::handleStep(const StepMetrics &m)
{
    m_plot->addStep(m);
    if (m.total_steps > 0 && m_progress->maximum() != int(m.total_steps))
        m_progress->setMaximum(int(m.total_steps));
    m_progress->setValue(int(m.step));
    if (m_firstWall == 0) {
        m_firstWall = m.wall_time;
        m_firstStep = m.step;
    }
    double eta = std::numeric_limits<double>::quiet_NaN();
    if (m.step > m_firstStep && m.wall_time > m_firstWall) {
        const double stepsPerSecond = double(m.step - m_firstStep) / (m.wall_time - m_firstWall);
        eta = double(m.total_steps - m.step) / stepsPerSecond;
    }
    m_progressLabel->setText(tr("epoch %1 · loss %2 · %3 examples/s · ETA %4")
                                 .arg(m.epoch, 0, 'f', 2)
                                 .arg(m.loss, 0, 'f', 4)
                                 .arg(m.examples_per_second, 0, 'f', 0)
                                 .arg(formatDuration(eta)));
}

void MainWindow::handleEvaluation(const EvalMetrics &m)
{
    m_plot->addEvaluation(m);
    m_evalView->setEvaluation(m);
}

void MainWindow::handleCheckpoint(const CheckpointSaved &c)
{
    statusBar()->showMessage(tr("Checkpoint saved: %1").arg(q(c.path)), 5000);
}

void MainWindow::handleFinished(const RunFinished &r)
{
    switch (r.status) {
    case RunStatus::Completed:
        m_statusLabel->setText(tr("Completed"));
        m_statusLabel->setStyleSheet(QStringLiteral("color:#207020;font-weight:bold"));
        appendLog(tr("Run completed at step %1, final train loss %2").arg(r.last_step).arg(r.final_train_loss, 0, 'f', 4));
        break;
    case RunStatus::Cancelled:
        m_statusLabel->setText(tr("Stopped at step %1").arg(r.last_step));
        m_progressLabel->setText(tr("stopped; Resume continues from the checkpoint"));
        m_statusLabel->setStyleSheet(QStringLiteral("color:#a06000;font-weight:bold"));
        appendLog(tr("Run stopped at step %1; checkpoint %2. Press Resume to continue.")
                      .arg(r.last_step).arg(r.last_checkpoint.empty() ? tr("(none)") : q(r.last_checkpoint)));
        break;
    case RunStatus::Failed: {
        m_statusLabel->setText(tr("Failed"));
        m_statusLabel->setStyleSheet(QStringLiteral("color:#b00000;font-weight:bold"));
        // No stale ETA: say where the run ended instead.
        m_progressLabel->setText(r.last_step > 0 ? tr("failed at step %1").arg(r.last_step) : tr("failed before the first step"));
        statusBar()->showMessage(tr("Training failed: %1").arg(q(r.message).section(QLatin1Char('\n'), 0, 0)));
        appendLog(tr("Run failed: %1%2").arg(r.field.empty() ? QString() : q(r.field) + QStringLiteral(": "), q(r.message)));
        if (!r.hint.empty())
            appendLog(tr("  (%1)").arg(q(r.hint)));
        if (!m_runErrorBox) {
            m_runErrorBox = new QMessageBox(this);
            m_runErrorBox->setObjectName(QStringLiteral("runErrorDialog"));
            m_runErrorBox->setIcon(QMessageBox::Critical);
            m_runErrorBox->setWindowTitle(tr("Training failed"));
            m_runErrorBox->setTextFormat(Qt::PlainText);
            m_runErrorBox->setWindowModality(Qt::WindowModal);
        }
        m_runErrorBox->setText(r.field.empty() ? q(r.message) : QStringLiteral("%1: %2").arg(q(r.field), q(r.message)));
        m_runErrorBox->setInformativeText(r.hint.empty() ? QString() : tr("How to fix: %1").arg(q(r.hint)));
        m_runErrorBox->setDetailedText(r.last_checkpoint.empty() ? QString() : tr("Latest checkpoint: %1").arg(q(r.last_checkpoint)));
        if (!m_closeAfterStop)
            m_runErrorBox->open();
        break;
    }
    }
    m_runs->scan(q(m_controller->lastSpec().model_dir));
    updateActions();
    if (m_closeAfterStop)
        close();
}

void MainWindow::stopAndClose()
{
    if (!m_controller->isRunning()) {
        close();
        return;
    }
    m_closeAfterStop = true;
    stop();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_controller->isRunning()) {
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
            if (result != QMessageBox::Yes || !m_controller->isRunning())
                return;
            m_closeAfterStop = true;
            stop();
        });
    }
    m_closeBox->open();
}

} // namespace wb
