// SPDX-License-Identifier: Apache-2.0
// The main window's menus and toolbar: File, Model, Training and Help.
#include "ui/window/mainwindow.h"
#include "ui/common/qtext.h"

#include "core/config/bertconfig.h"
#include "ui/dialogs/exampleloader.h"
#include "ui/dialogs/exportdialog.h"
#include "ui/dialogs/helpbrowser.h"
#include "ui/dialogs/lrfinddialog.h"
#include "ui/runs/runstable.h"
#include "ui/form/schedulepanel.h"

#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QGuiApplication>
#include <QInputDialog>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QWhatsThis>
#include <QCoreApplication>
#include <QFileInfo>

namespace wb {

void MainWindow::buildMenus()
{
    buildFileMenu();
    buildModelMenu();
    buildTrainingMenu();
    buildHelpMenu();
    buildToolbar();
}

void MainWindow::buildFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *newAction = file->addAction(tr("&New Project"), QKeySequence::New, this,
                                         [this] { askToSaveThen([this] { newProject(); }); });
    newAction->setObjectName(QStringLiteral("newProjectAction"));
    QAction *openAction = file->addAction(tr("&Open Project…"), QKeySequence::Open, this, [this] {
        askToSaveThen([this] {
            const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), fileDialogFolder(),
                                                              tr("BERT Workbench project (*.bwproj *.json);;All files (*)"));
            QString error;
            if (!path.isEmpty() && !openProject(path, &error))
                reportError(tr("Cannot open project"), {error, QString()});
        });
    });
    openAction->setObjectName(QStringLiteral("openProjectAction"));
    m_recentProjects = file->addMenu(tr("Recent Projects"));
    connect(m_recentProjects, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentProjectsMenu);
    auto saveAs = [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save project"),
                                                          m_projectPath.isEmpty() ? QDir(fileDialogFolder()).filePath(QStringLiteral("project.bwproj")) : m_projectPath,
                                                          tr("BERT Workbench project (*.bwproj)"));
        QString error;
        if (!path.isEmpty() && !saveProject(path, &error))
            reportError(tr("Cannot save project"), {error, QString()});
    };
    file->addAction(tr("&Save Project"), QKeySequence::Save, this, [this] { saveProjectInteractively(); });
    file->addAction(tr("Save Project &As…"), QKeySequence::SaveAs, this, saveAs);
    file->addSeparator();
    file->addAction(tr("Open &Example (spam detection)"), this, [this] { askToSaveThen([this] { openExample(); }); })
        ->setObjectName(QStringLiteral("openExampleAction"));
    // The lesson stays reachable once a project is open (the start page is gone then).
    QAction *lesson = file->addAction(tr("Why Pretraining Matters (&lesson)"), this,
                                      [this] { askToSaveThen([this] { m_example->startLesson(); }); });
    lesson->setObjectName(QStringLiteral("pretrainingLessonAction"));
    lesson->setToolTip(tr("Pretrain BERT-Tiny on the example's mails, then fine-tune it and random weights on 200 "
                          "labels, three seeds each (docs/tutorial.md, section 7)"));
    file->addAction(tr("&Prepare Data…"), this, &MainWindow::openPrepareData);
    file->addAction(tr("E&xport Model…"), this, &MainWindow::openExportDialog)->setObjectName(QStringLiteral("exportModelAction"));
    m_distilAction = file->addAction(tr("&Distil Model…"), this, &MainWindow::openDistilDialog);
    m_distilAction->setObjectName(QStringLiteral("distilModelAction"));
    m_distilAction->setToolTip(tr("A finished run (the form's model directory) teaches a smaller model: it labels its "
                                  "texts and any unlabelled ones once, and the student learns its probabilities"));
    QAction *openLogs = file->addAction(tr("Open &TensorBoard Logs…"), this, [this] { openTensorBoardLogs(); });
    openLogs->setToolTip(tr("Overlay the scalars of TensorBoard event files (run_classifier, Keras or ours) on the plot"));
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setObjectName(QStringLiteral("quitAction"));
}

void MainWindow::buildModelMenu()
{
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
                reportError(tr("Cannot write config"), {error, QString()});
        });
    }
}

void MainWindow::buildTrainingMenu()
{
    QMenu *run = menuBar()->addMenu(tr("&Training"));
    m_trainAction = run->addAction(tr("&Train"), this, &MainWindow::train);
    m_trainAction->setObjectName(QStringLiteral("trainAction"));
    m_trainAction->setShortcut(Qt::CTRL | Qt::Key_Return);
    m_trainAction->setToolTip(tr("Check the configuration, then train (Ctrl+Enter)"));
    m_stopAction = run->addAction(tr("&Stop"), this, &MainWindow::stop);
    m_stopAction->setObjectName(QStringLiteral("stopAction"));
    m_stopAction->setShortcut(Qt::CTRL | Qt::Key_Period);
    m_stopAction->setToolTip(tr("Finish the current step, write a checkpoint and stop (Ctrl+.)"));
    m_resumeAction = run->addAction(tr("&Resume"), this, &MainWindow::resume);
    m_resumeAction->setObjectName(QStringLiteral("resumeAction"));
    m_resumeAction->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_Return);
    m_resumeAction->setToolTip(tr("Continue the stopped run from its latest checkpoint (Ctrl+Shift+Enter)"));
    run->addSeparator();
    QAction *findLr = run->addAction(tr("Find &Learning Rate…"), this, &MainWindow::openLrFinder);
    findLr->setObjectName(QStringLiteral("findLearningRateAction"));
    findLr->setToolTip(tr("A short range test on a throwaway copy of the model suggests a learning rate"));
    QAction *copyCommand = run->addAction(tr("Copy as &Command Line"), this, [this] {
        const QString command = commandLine();
        QGuiApplication::clipboard()->setText(command);
        statusBar()->showMessage(tr("Copied: %1").arg(command), 8000);
    });
    copyCommand->setToolTip(tr("The same run from a terminal or a script: bert-workbench-cli train with these flags"));
    QAction *seeds = run->addAction(tr("Repeat with S&eeds…"), this, [this] {
        auto *ask = new QInputDialog(this);
        ask->setObjectName(QStringLiteral("repeatSeedsDialog"));
        ask->setWindowTitle(tr("Repeat with Seeds"));
        ask->setLabelText(tr("Train these settings this many times, with seeds %1, %2, … one after another:")
                              .arg(options().seed).arg(options().seed + 1));
        ask->setInputMode(QInputDialog::IntInput);
        ask->setIntRange(2, 20);
        ask->setIntValue(3);
        ask->setAttribute(Qt::WA_DeleteOnClose);
        connect(ask, &QInputDialog::intValueSelected, this, [this](int n) { repeatWithSeeds(n); });
        ask->open();
    });
    seeds->setObjectName(QStringLiteral("repeatSeedsAction"));
    QAction *sweep = run->addAction(tr("S&weep…"), this, [this] { openSweepDialog(); });
    sweep->setObjectName(QStringLiteral("sweepAction"));
    sweep->setToolTip(tr("Train a grid or a random sample of learning rates, batch sizes, epochs, warmup, weight "
                         "decay and seeds one after another (as bert-workbench-cli sweep)"));
    seeds->setToolTip(tr("How much of a result is the seed? The same settings trained with N seeds, a sweep over "
                         "seed in MODEL_DIR-seeds; Compare runs shows their mean and spread"));
    run->addAction(tr("Find Runs Near the &Model Directory"), this, [this] {
        scanRuns(q(options().model_dir));
        showTab(QStringLiteral("runsTab"));
    });
}

void MainWindow::buildHelpMenu()
{
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *tutorial = help->addAction(tr("&Tutorial"), this, [this] { openHelpDocument(QStringLiteral("tutorial.md")); });
    tutorial->setShortcut(QKeySequence::HelpContents); // F1
    tutorial->setObjectName(QStringLiteral("tutorialAction"));
    help->addAction(tr("&Troubleshooting"), this, [this] { openHelpDocument(QStringLiteral("troubleshooting.md")); });
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        auto *box = new QMessageBox(QMessageBox::Information, tr("Keyboard shortcuts"),
                                    tr("<table cellspacing=6>"
                                       "<tr><td><b>Ctrl+Enter</b></td><td>Train</td></tr>"
                                       "<tr><td><b>Ctrl+.</b></td><td>Stop (a checkpoint is written)</td></tr>"
                                       "<tr><td><b>Ctrl+Shift+Enter</b></td><td>Resume</td></tr>"
                                       "<tr><td><b>Ctrl+N / Ctrl+O / Ctrl+S</b></td><td>New, open, save project</td></tr>"
                                       "<tr><td><b>Ctrl+Q</b></td><td>Quit (asks about unsaved changes)</td></tr>"
                                       "<tr><td><b>F1</b></td><td>Tutorial</td></tr>"
                                       "<tr><td><b>Shift+F1</b></td><td>What's This: click a field for its explanation</td></tr>"
                                       "</table>"),
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("shortcutsDialog"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    })->setObjectName(QStringLiteral("shortcutsAction"));
    help->addAction(QWhatsThis::createAction(this));
    help->addSeparator();
    help->addAction(tr("&About BERT Workbench"), this, [this] {
        QMessageBox::about(this, tr("About BERT Workbench"),
                           tr("<b>BERT Workbench</b><br>Fine-tune BERT text classifiers and watch them learn.<br>"
                              "Hover over any field, or press Shift+F1 and click it, for an explanation."));
    });
}

void MainWindow::buildToolbar()
{
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

LrFindDialog *MainWindow::openLrFinder()
{
    if (!m_lrFindDialog) {
        m_lrFindDialog = new LrFindDialog(m_form, this);
        connect(m_lrFindDialog, &LrFindDialog::learningRateChosen, this, [this](double lr) {
            appendLog(tr("Learning rate set to %1 by the range test").arg(LrFindDialog::rateText(lr)));
            statusBar()->showMessage(tr("Learning rate set to %1").arg(LrFindDialog::rateText(lr)), 6000);
        });
    }
    m_lrFindDialog->show();
    m_lrFindDialog->raise();
    m_lrFindDialog->activateWindow();
    m_lrFindDialog->begin();
    return m_lrFindDialog;
}

ExportDialog *MainWindow::openExportDialog()
{
    if (!m_exportDialog)
        m_exportDialog = new ExportDialog(q(options().model_dir), this);
    else if (!m_exportDialog->isRunning())
        m_exportDialog->setModelDir(q(options().model_dir));
    m_exportDialog->show();
    m_exportDialog->raise();
    m_exportDialog->activateWindow();
    return m_exportDialog;
}

QString MainWindow::helpDocumentPath(const QString &name)
{
    const QString appDir = QCoreApplication::applicationDirPath();
    // Installed (<prefix>/bin → <prefix>/share/doc/bert-workbench, the .deb's /usr), then the
    // source tree's docs/ seen from a build tree inside it, then the sources this was built from.
    QStringList dirs{appDir + QStringLiteral("/../share/doc/bert-workbench"), appDir + QStringLiteral("/../../../docs"),
                     appDir + QStringLiteral("/../../docs"), appDir + QStringLiteral("/../docs")};
#ifdef WB_SOURCE_DOCS_DIR
    dirs << QStringLiteral(WB_SOURCE_DOCS_DIR);
#endif
    for (const QString &dir : dirs) {
        const QFileInfo f(QDir(dir).filePath(name));
        if (f.isFile())
            return f.canonicalFilePath();
    }
    return QString();
}

void MainWindow::openHelpDocument(const QString &name)
{
    const QString path = helpDocumentPath(name);
    if (path.isEmpty()) {
        reportError(tr("Cannot open the help"),
                    {tr("%1 was not found next to the program").arg(name),
                     tr("read docs/%1 in the BERT Workbench sources or package documentation").arg(name)});
        return;
    }
    if (!m_help)
        m_help = new HelpBrowser(this);
    if (!m_help->showDocument(path)) {
        reportError(tr("Cannot open the help"), {tr("%1 cannot be read").arg(path), tr("check the file's permissions")});
        return;
    }
    m_help->show();
    m_help->raise();
    m_help->activateWindow();
}

} // namespace wb
