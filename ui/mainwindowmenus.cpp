// SPDX-License-Identifier: Apache-2.0
// The main window's menus and toolbar: File, Model, Training and Help.
#include "ui/mainwindow.h"

#include "core/config/bertconfig.h"
#include "ui/runstable.h"
#include "ui/schedulepanel.h"

#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QGuiApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

namespace wb {

namespace {

QString q(const std::string &s) { return QString::fromStdString(s); }

} // namespace

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New Project"), QKeySequence::New, this, [this] {
        m_projectPath.clear();
        setOptions(TrainingOptions{});
    });
    file->addAction(tr("&Open Project…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                          tr("BERT Workbench project (*.bwproj *.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !openProject(path, &error))
            reportError(tr("Cannot open project"), {error, QString()});
    });
    m_recentProjects = file->addMenu(tr("Recent Projects"));
    connect(m_recentProjects, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentProjectsMenu);
    auto saveAs = [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save project"), m_projectPath.isEmpty() ? QStringLiteral("project.bwproj") : m_projectPath,
                                                          tr("BERT Workbench project (*.bwproj)"));
        QString error;
        if (!path.isEmpty() && !saveProject(path, &error))
            reportError(tr("Cannot save project"), {error, QString()});
    };
    file->addAction(tr("&Save Project"), QKeySequence::Save, this, [this, saveAs] {
        if (m_projectPath.isEmpty())
            return saveAs();
        QString error;
        if (!saveProject(m_projectPath, &error))
            reportError(tr("Cannot save project"), {error, QString()});
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
                reportError(tr("Cannot write config"), {error, QString()});
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
        guarded(tr("Cannot compare runs"), [this] { m_runs->scan(q(options().model_dir)); });
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

} // namespace wb
