// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/toplossesview.h"
#include "ui/label/labeltab.h"
#include "ui/tryit/tryitpanel.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

namespace {

/// An option of scripted screenshots, left out of --help: `name` takes a value, `valueName` in
/// the description, `defaultValue` when not given.
QCommandLineOption scriptedOption(const char *name, const char *description, const char *valueName,
                                  const char *defaultValue = nullptr)
{
    QCommandLineOption option(QString::fromLatin1(name), QString::fromLatin1(description), QString::fromLatin1(valueName),
                              QString::fromLatin1(defaultValue));
    option.setFlags(QCommandLineOption::HiddenFromHelp);
    return option;
}

/// The window's command line: --example, --train, --lesson, a project file, and the hidden options of
/// scripted screenshots (docs/architecture.md; `make run`).
struct Options
{
    QCommandLineOption example{QStringLiteral("example"), QStringLiteral("Open the spam-detection example project.")};
    QCommandLineOption train{QStringLiteral("train"), QStringLiteral("Press Train once the window is shown.")};
    QCommandLineOption lesson{QStringLiteral("lesson"),
                              QStringLiteral("Start the pretraining lesson as File → Why Pretraining Matters does "
                                             "(with --example or a project: once it is open).")};
    QCommandLineOption screenshot = scriptedOption("screenshot", "Save a screenshot of the window and quit.", "png");
    QCommandLineOption delay = scriptedOption("screenshot-delay", "Milliseconds before the screenshot.", "ms", "1500");
    QCommandLineOption tab =
        scriptedOption("tab", "Tab to show (startTab, plotTab, evaluationTab, tryItTab, runsTab, logTab).", "name");
    QCommandLineOption screenshotAtEnd =
        scriptedOption("screenshot-when-finished", "With --train: save a screenshot when the run ends, then quit.", "png");
    QCommandLineOption windowSize = scriptedOption("window-size", "Window size, e.g. 1600x1000 (screenshots).", "WxH");
    QCommandLineOption tryText =
        scriptedOption("try-text", "Type this text into Try it with Which words decided ticked (screenshots).", "text");
    QCommandLineOption explainTopLoss =
        scriptedOption("explain-top-loss", "Open this Top losses row in Try it once the list is loaded (screenshots).", "row");
    QCommandLineOption labelPage = scriptedOption("label-page", "With --label-session: the page shown (0 Label, 1 Labelled, 2 Curve).", "n");
    QCommandLineOption labelSession{QStringLiteral("label-session"),
                                    QStringLiteral("Open this labelling session (a folder with label_session.json) in the Label tab."),
                                    QStringLiteral("dir")};
    QCommandLineParser parser;

    void parse(const QApplication &app)
    {
        parser.setApplicationDescription(QStringLiteral("Fine-tune BERT text classifiers and watch them learn."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({example, train, lesson, screenshot, delay, tab, screenshotAtEnd, windowSize, tryText, explainTopLoss,
                           labelSession, labelPage});
        parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project file to open."), QStringLiteral("[project]"));
        parser.process(app);
    }
    bool isSet(const QCommandLineOption &o) const { return parser.isSet(o); }
    QString value(const QCommandLineOption &o) const { return parser.value(o); }
};

void setUpApplication()
{
    QApplication::setOrganizationName(QStringLiteral("bert-workbench"));
    QApplication::setApplicationName(QStringLiteral("BERT Workbench"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.bertworkbench.BertWorkbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/workbench/icon.png")));
}

/// --window-size WxH.
void applyWindowSize(wb::MainWindow &window, const Options &opts)
{
    if (!opts.isSet(opts.windowSize))
        return;
    const QStringList wh = opts.value(opts.windowSize).split(QLatin1Char('x'));
    if (wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0)
        window.resize(wh[0].toInt(), wh[1].toInt());
}

/// The project given on the command line, or the example (--example); then --train and --tab.
void openStartingProject(wb::MainWindow &window, const Options &opts)
{
    const QStringList positional = opts.parser.positionalArguments();
    if (!positional.isEmpty()) {
        QString error;
        if (!window.openProject(positional.front(), &error)) {
            if (opts.isSet(opts.screenshot) || opts.isSet(opts.screenshotAtEnd))
                std::fprintf(stderr, "%s\n", qPrintable(error));
            else
                QMessageBox::warning(&window, QStringLiteral("Cannot open project"), error);
        }
    } else if (opts.isSet(opts.example)) {
        QTimer::singleShot(0, &window, &wb::MainWindow::openExample);
    }
    if (opts.isSet(opts.train) && opts.isSet(opts.example))
        QObject::connect(&window, &wb::MainWindow::exampleReady, &window, &wb::MainWindow::train, Qt::QueuedConnection);
    else if (opts.isSet(opts.train))
        QTimer::singleShot(200, &window, &wb::MainWindow::train);
    if (!opts.isSet(opts.tab))
        return;
    if (opts.isSet(opts.example) && positional.isEmpty()) // the example opens later: show the tab once it is ready
        QObject::connect(&window, &wb::MainWindow::exampleReady, &window,
                         [&window, tab = opts.value(opts.tab)] { window.showTab(tab); }, Qt::QueuedConnection);
    else
        window.showTab(opts.value(opts.tab));
}

/// --lesson: File → Why Pretraining Matters, once --example's project (or the one given) is open.
void scheduleLesson(wb::MainWindow &window, const Options &opts)
{
    if (!opts.isSet(opts.lesson))
        return;
    const auto start = [&window] {
        if (auto *entry = window.findChild<QAction *>(QStringLiteral("pretrainingLessonAction")))
            entry->trigger();
    };
    if (opts.isSet(opts.example) && opts.parser.positionalArguments().isEmpty()) {
        auto *once = new QObject(&window);
        QObject::connect(&window, &wb::MainWindow::exampleReady, once, [start, once] {
            QTimer::singleShot(0, once->parent(), start);
            once->deleteLater();
        });
    } else {
        QTimer::singleShot(0, &window, start);
    }
}

/// --try-text TEXT (Try it, explained) and --explain-top-loss ROW (that row of Top losses
/// opened in Try it when the list has loaded): the views of the tutorial's screenshots.
void scheduleScriptedViews(wb::MainWindow &window, const Options &opts)
{
    if (opts.isSet(opts.tryText))
        QTimer::singleShot(300, &window, [&window, text = opts.value(opts.tryText)] {
            if (auto *tryIt = window.findChild<wb::TryItPanel *>()) {
                window.showTab(QStringLiteral("tryItTab"));
                tryIt->setExplainEnabled(true);
                tryIt->setTexts(text);
            }
        });
    if (opts.isSet(opts.labelSession))
        if (auto *label = window.findChild<wb::LabelTab *>()) {
            label->openSession(opts.value(opts.labelSession));
            label->pages()->setCurrentIndex(opts.value(opts.labelPage).toInt());
            window.showTab(QStringLiteral("labelTab"));
        }
    if (opts.isSet(opts.explainTopLoss))
        if (auto *losses = window.findChild<wb::TopLossesView *>()) {
            const int row = opts.value(opts.explainTopLoss).toInt();
            auto *once = new QObject(&window);
            QObject::connect(losses, &wb::TopLossesView::examplesLoaded, once, [losses, row, once] {
                QTimer::singleShot(200, losses, [losses, row] { losses->explainRow(row); });
                once->deleteLater();
            });
        }
}

/// --screenshot PNG: after --screenshot-delay, the window (and an open dialog as -dialog.png), then quit.
void scheduleScreenshot(wb::MainWindow &window, const Options &opts)
{
    const QString path = opts.value(opts.screenshot);
    QTimer::singleShot(opts.value(opts.delay).toInt(), &window, [&window, path] {
        QWidget *target = QApplication::activeModalWidget() ? QApplication::activeModalWidget() : &window;
        window.grab().save(path);
        if (target != &window)
            target->grab().save(QString(path).replace(QStringLiteral(".png"), QStringLiteral("-dialog.png")));
        if (QWidget *modal = QApplication::activeModalWidget())
            modal->close();
        window.stopAndClose(); // a running run is stopped (with a checkpoint), then the app quits
    });
}

/// --screenshot-when-finished PNG: the window when the run has ended, then quit.
void scheduleScreenshotWhenFinished(wb::MainWindow &window, const Options &opts)
{
    // Unattended: a model directory that already holds a run gets a new run beside it.
    QObject::connect(window.runSession(), &wb::RunSession::modelDirQuestionAsked, &window, [&window] {
        if (auto *next = window.runSession()->usedModelDirDialog()->findChild<QPushButton *>(QStringLiteral("startNewRun")))
            next->click();
    }, Qt::QueuedConnection);
    // `make run` without a display: train the example offscreen and keep the plot as PNG.
    const QString path = opts.value(opts.screenshotAtEnd);
    QObject::connect(window.runSession(), &wb::RunSession::runFinished, &window, [&window, path] {
        QTimer::singleShot(500, &window, [&window, path] {
            window.grab().save(path);
            if (QWidget *modal = QApplication::activeModalWidget())
                modal->close(); // e.g. the error dialog of a failed run
            window.stopAndClose();
        });
    });
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    setUpApplication();
    Options opts;
    opts.parse(app);

    wb::MainWindow window;
    applyWindowSize(window, opts);
    window.show();
    scheduleScriptedViews(window, opts);
    openStartingProject(window, opts);
    scheduleLesson(window, opts);
    if (opts.isSet(opts.screenshot))
        scheduleScreenshot(window, opts);
    if (opts.isSet(opts.screenshotAtEnd))
        scheduleScreenshotWhenFinished(window, opts);
    return QApplication::exec();
}
