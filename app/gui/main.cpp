// SPDX-License-Identifier: Apache-2.0
#include "ui/window/mainwindow.h"
#include "ui/runs/trainingcontroller.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QDialog>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>

#include <cstdio>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("bert-workbench"));
    QApplication::setApplicationName(QStringLiteral("BERT Workbench"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.bertworkbench.BertWorkbench"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/workbench/icon.png")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Fine-tune BERT text classifiers and watch them learn."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption example(QStringLiteral("example"), QStringLiteral("Open the spam-detection example project."));
    const QCommandLineOption train(QStringLiteral("train"), QStringLiteral("Press Train once the window is shown."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Save a screenshot of the window and quit."),
                                  QStringLiteral("png"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption delay(QStringLiteral("screenshot-delay"), QStringLiteral("Milliseconds before the screenshot."),
                             QStringLiteral("ms"), QStringLiteral("1500"));
    delay.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("Tab to show (startTab, plotTab, evaluationTab, tryItTab, runsTab, logTab)."),
                           QStringLiteral("name"));
    tab.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption screenshotAtEnd(QStringLiteral("screenshot-when-finished"),
                                       QStringLiteral("With --train: save a screenshot when the run ends, then quit."),
                                       QStringLiteral("png"));
    screenshotAtEnd.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption windowSize(QStringLiteral("window-size"), QStringLiteral("Window size, e.g. 1600x1000 (screenshots)."),
                                  QStringLiteral("WxH"));
    windowSize.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOptions({example, train, screenshot, delay, tab, screenshotAtEnd, windowSize});
    parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("Project file to open."), QStringLiteral("[project]"));
    parser.process(app);

    wb::MainWindow window;
    if (parser.isSet(windowSize)) {
        const QStringList wh = parser.value(windowSize).split(QLatin1Char('x'));
        if (wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    window.show();
    const QStringList positional = parser.positionalArguments();
    if (!positional.isEmpty()) {
        QString error;
        if (!window.openProject(positional.front(), &error)) {
            if (parser.isSet(screenshot) || parser.isSet(screenshotAtEnd))
                std::fprintf(stderr, "%s\n", qPrintable(error));
            else
                QMessageBox::warning(&window, QStringLiteral("Cannot open project"), error);
        }
    } else if (parser.isSet(example)) {
        QTimer::singleShot(0, &window, &wb::MainWindow::openExample);
    }
    if (parser.isSet(train) && parser.isSet(example))
        QObject::connect(&window, &wb::MainWindow::exampleReady, &window, &wb::MainWindow::train, Qt::QueuedConnection);
    else if (parser.isSet(train))
        QTimer::singleShot(200, &window, &wb::MainWindow::train);
    if (parser.isSet(tab))
        window.showTab(parser.value(tab));
    if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        QTimer::singleShot(parser.value(delay).toInt(), &window, [&window, path] {
            QWidget *target = QApplication::activeModalWidget() ? QApplication::activeModalWidget() : &window;
            window.grab().save(path);
            if (target != &window)
                target->grab().save(QString(path).replace(QStringLiteral(".png"), QStringLiteral("-dialog.png")));
            if (QWidget *modal = QApplication::activeModalWidget())
                modal->close();
            window.stopAndClose(); // a running run is stopped (with a checkpoint), then the app quits
        });
    }
    if (parser.isSet(screenshotAtEnd)) {
        // Unattended: a model directory that already holds a run gets a new run beside it.
        QObject::connect(&window, &wb::MainWindow::modelDirQuestionAsked, &window, [&window] {
            if (auto *next = window.usedModelDirDialog()->findChild<QPushButton *>(QStringLiteral("startNewRun")))
                next->click();
        }, Qt::QueuedConnection);
        // `make run` without a display: train the example offscreen and keep the plot as PNG.
        const QString path = parser.value(screenshotAtEnd);
        QObject::connect(window.controller(), &wb::TrainingController::finished, &window, [&window, path] {
            QTimer::singleShot(500, &window, [&window, path] {
                window.grab().save(path);
                if (QWidget *modal = QApplication::activeModalWidget())
                    modal->close(); // e.g. the error dialog of a failed run
                window.stopAndClose();
            });
        });
    }
    return QApplication::exec();
}
