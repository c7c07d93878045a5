// SPDX-License-Identifier: Apache-2.0
// Issue 27 "Help and first contact" and "Layout and polish": the tutorial inside the window,
// What's This on every field, the example as it was, a window no wider than the screen, whole
// step ticks, an empty plot after New Project, memory sizes in real units, file dialogs next to
// the project, no CLI hint in the window's Log.
// QCustomPlot 2.1's header uses Qt's keywords (signals, foreach); allow them in this file only.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH
#include "ui/window/mainwindow.h"

#include "core/config/memoryestimate.h"
#include "core/config/optiontable.h"
#include "core/prepare/exampledata.h"
#include "support/windowfixtures.h"
#include "tinyrun.h"
#include "ui/dialogs/exampleloader.h"
#include "ui/dialogs/helpbrowser.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/form/configurationform.h"
#include "ui/form/projectfile.h"
#include "ui/form/schedulepanel.h"
#include "ui/plot/lossplot.h"
#include "ui/plot/plotaxes.h"
#include "ui/runs/localworkersrun.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAction>
#include <QDir>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <cmath>

using namespace wb;

namespace {

QCPAxis *stepAxis(LossPlot &p) { return p.customPlot()->axisRect(0)->axis(QCPAxis::atBottom); }

} // namespace

class tst_WindowHelp : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void tutorialInsideTheWindow();
    void whatsThisOnEveryField();
    void exampleOpensAsItWas();
    void windowFitsTheScreen();
    void stepTicksAreWhole();
    void emptyPlotAfterNewProject();
    void memoryInRealUnits();
    void fileDialogsStartNextToTheProject();
    void noCliHintInTheLog();
};

void tst_WindowHelp::initTestCase() { wbtest::useTestSettings(); }

// F1 shows docs/tutorial.md inside the window, with its screenshots; no "was not found" box
// (it said so although the file was found and only the desktop's opener failed).
void tst_WindowHelp::tutorialInsideTheWindow()
{
    MainWindow w;
    w.show();
    const QString path = MainWindow::helpDocumentPath(QStringLiteral("tutorial.md"));
    QVERIFY2(!path.isEmpty(), "tutorial.md is found from the build tree");
    auto *tutorial = w.findChild<QAction *>(QStringLiteral("tutorialAction"));
    QCOMPARE(tutorial->shortcut(), QKeySequence(QKeySequence::HelpContents));
    tutorial->trigger();
    QVERIFY(!w.findChild<QMessageBox *>(QStringLiteral("errorDialog")));
    HelpBrowser *help = w.helpBrowser();
    QVERIFY(help);
    QVERIFY(help->isVisible());
    QCOMPARE(help->documentPath(), path);
    QTextBrowser *browser = help->findChild<QTextBrowser *>(QStringLiteral("helpBrowser"));
    QVERIFY(browser);
    // Rendered Markdown: the first heading as text, no "# " left.
    QFile md(path);
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString firstHeading = QString::fromUtf8(md.readLine()).trimmed().remove(QRegularExpression(QStringLiteral("^#+\\s*")));
    QVERIFY2(browser->toPlainText().startsWith(firstHeading), qPrintable(browser->toPlainText().left(200)));
    QVERIFY(!browser->toPlainText().contains(QStringLiteral("](screenshots/")));
    // Its images come from docs/screenshots beside it, offline.
    const QVariant image = browser->loadResource(QTextDocument::ImageResource, QUrl(QStringLiteral("screenshots/example-training.png")));
    QVERIFY(image.isValid());
    QImage decoded;
    if (image.canConvert<QByteArray>())
        decoded = QImage::fromData(image.toByteArray());
    if (decoded.isNull())
        decoded = image.value<QImage>();
    QVERIFY(!decoded.isNull());
    QVERIFY(decoded.width() > 100);
}

// Shift+F1 then a click on a field shows its "?" text: every field of the form has it as whatsThis.
void tst_WindowHelp::whatsThisOnEveryField()
{
    MainWindow w;
    auto *form = w.findChild<ConfigurationForm *>(QStringLiteral("configurationForm"));
    QVERIFY(form);
    int fields = 0;
    for (const OptionSpec &spec : optionTable()) {
        if (spec.group == FormGroup::None)
            continue;
        auto *field = form->findChild<QWidget *>(QString::fromLatin1(spec.flag));
        QVERIFY2(field, spec.flag);
        const QString text = field->whatsThis();
        QVERIFY2(text.contains(QStringLiteral("<b>%1</b>").arg(QString::fromUtf8(spec.label))), spec.flag);
        QVERIFY2(text.contains(QString::fromUtf8(spec.help).left(30).toHtmlEscaped()), spec.flag);
        // The "?" button says the same.
        auto *button = form->findChild<QWidget *>(QString::fromLatin1(spec.flag) + QStringLiteral("_help"));
        QVERIFY2(button && button->whatsThis() == text, spec.flag);
        ++fields;
    }
    QVERIFY(fields > 20);
    // Help → What's This? is there with its Shift+F1.
    bool found = false;
    for (QAction *a : w.findChildren<QAction *>())
        found = found || a->shortcut() == QKeySequence(Qt::SHIFT | Qt::Key_F1);
    QVERIFY(found);
}

// File → Open Example on an example the learner changed asks: as they left it, or as it was.
void tst_WindowHelp::exampleOpensAsItWas()
{
    QTemporaryDir dir;
    const TrainingOptions tiny = wbtest::writeTinyRun(dir);
    ExampleDataPaths paths;
    paths.cache_dir = dir.path().toStdString();
    paths.project_dir = dir.filePath(QStringLiteral("example-spam")).toStdString();
    QVERIFY(QDir().mkpath(QString::fromStdString(paths.project_dir)));
    paths.bert_config_file = tiny.bert_config_file;
    paths.train_data_path = tiny.train_data_path;
    paths.eval_data_path = tiny.eval_data_path;
    paths.meta_data_path = tiny.input_meta_data_path;
    const TrainingOptions asItWas = ExampleLoader::projectOptions(paths);
    TrainingOptions changed = asItWas;
    changed.learning_rate = 0.25;
    changed.num_train_epochs = 7;
    const QString project = QDir(QString::fromStdString(paths.project_dir)).filePath(QStringLiteral("spam-example.bwproj"));
    ProjectFile::save(project, changed);

    for (const char *answer : {"openExampleAsLeft", "resetExample"}) {
        MainWindow w;
        w.show();
        auto *loader = w.findChild<ExampleLoader *>();
        QVERIFY(loader);
        QSignalSpy ready(&w, &MainWindow::exampleReady);
        Q_EMIT loader->prepared(paths);
        auto *box = w.findChild<QMessageBox *>(QStringLiteral("exampleChangedDialog"));
        QVERIFY(box);
        QVERIFY(box->isVisible());
        // The learner's settings by the form's labels, never as flags (issue 44 item 8).
        QVERIFY2(box->informativeText().contains(QStringLiteral("\u201cLearning rate\u201d = 0.25")), qPrintable(box->informativeText()));
        QVERIFY2(box->informativeText().contains(QStringLiteral("\u201cEpochs\u201d = 7")), qPrintable(box->informativeText()));
        QVERIFY2(!box->informativeText().contains(QStringLiteral("--")), qPrintable(box->informativeText()));
        QCOMPARE(ready.count(), 0); // nothing opens before the answer
        box->findChild<QAbstractButton *>(QLatin1String(answer))->click();
        QTRY_COMPARE(ready.count(), 1);
        const TrainingOptions shown = w.options();
        if (QLatin1String(answer) == QLatin1String("resetExample")) {
            QCOMPARE(shown.learning_rate, asItWas.learning_rate);
            QCOMPARE(shown.num_train_epochs, asItWas.num_train_epochs);
            Diagnostics diag;
            QCOMPARE(toCommandLineFlags(ProjectFile::load(project, diag)), toCommandLineFlags(asItWas));
        } else {
            QCOMPARE(shown.learning_rate, std::optional<double>(0.25));
            QCOMPARE(shown.num_train_epochs, int64_t(7));
        }
    }
    // Unchanged: no question.
    MainWindow w;
    QSignalSpy ready(&w, &MainWindow::exampleReady);
    Q_EMIT w.findChild<ExampleLoader *>()->prepared(paths);
    QCOMPARE(ready.count(), 1);
    QVERIFY(!w.findChild<QMessageBox *>(QStringLiteral("exampleChangedDialog")));
}

// At 1024×700 with the Evaluation tab of a 3-label run (long label names) and long texts in the
// progress row and the status bar, nothing makes the window wider or taller than the screen.
void tst_WindowHelp::windowFitsTheScreen()
{
    MainWindow w;
    TrainingOptions o;
    o.distribution_strategy = "multi_worker_mirrored";
    const std::string dir = "/home/learner/projects/customer-support-tickets/prepared-data-max-seq-256/";
    o.bert_config_file = dir + "bert_config.json";
    o.input_meta_data_path = dir + "input_meta_data.json";
    o.train_data_path = dir + "train.tf_record";
    o.eval_data_path = dir + "eval.tf_record";
    o.model_dir = "/home/learner/projects/customer-support-tickets/runs/learning-rate-3e-5-batch-32-warmup-0.1";
    w.setOptions(o);
    auto *eval = w.findChild<EvaluationView *>();
    eval->setLabelNames({"billing and invoices question", "technical problem with the installation", "cancellation request"});
    EvalMetrics m;
    m.step = 340;
    m.eval_accuracy = 0.81;
    m.eval_loss = 0.52;
    m.eval_macro_f1 = 0.79;
    m.num_examples = 300;
    m.confusion = {{80, 12, 8}, {10, 85, 5}, {9, 13, 78}};
    m.class_precision = {0.81, 0.77, 0.86};
    m.class_recall = {0.8, 0.85, 0.78};
    m.class_f1 = {0.8, 0.81, 0.82};
    m.class_support = {100, 100, 100};
    eval->setEvaluation(m, QStringLiteral("the best checkpoint (step 340, eval_accuracy 0.8100)"));
    eval->setWarnings({QStringLiteral("The model predicts “technical problem with the installation” for 45 % of the "
                                      "examples although it is 33 % of the data: look at the Top losses.")});
    w.statusBar()->showMessage(QStringLiteral("Opened /home/learner/projects/customer-support-tickets/"
                                              "customer-support-tickets-with-a-very-long-project-name.bwproj with 3 warning(s); see the Log"));
    const QSize screen(1024, 700);
    w.resize(screen);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (const char *tab : {"plotTab", "evaluationTab", "runsTab", "tryItTab", "logTab"}) {
        w.showTab(QLatin1String(tab));
        QTest::qWait(30);
        QVERIFY2(w.minimumSizeHint().width() <= screen.width() && w.minimumSizeHint().height() <= screen.height(),
                 qPrintable(QStringLiteral("%1: minimum %2x%3").arg(QLatin1String(tab)).arg(w.minimumSizeHint().width())
                                .arg(w.minimumSizeHint().height())));
        QVERIFY2(w.size() == screen, qPrintable(QStringLiteral("%1: %2x%3").arg(QLatin1String(tab)).arg(w.width()).arg(w.height())));
    }
}

// A 3-step run has ticks 1, 2, 3 (it had 1.5 and 2.5).
void tst_WindowHelp::stepTicksAreWhole()
{
    LossPlot p;
    p.resize(800, 500);
    p.show();
    QVERIFY(QTest::qWaitForWindowExposed(&p));
    for (int step = 1; step <= 3; ++step) {
        StepMetrics s;
        s.step = step;
        s.loss = 0.7 - 0.1 * step;
        s.learning_rate = 1e-3;
        s.wall_time = 1000 + step;
        p.addStep(s);
    }
    QTest::qWait(200); // the coalescing replot
    p.customPlot()->replot(QCustomPlot::rpImmediateRefresh);
    const QVector<double> ticks = stepAxis(p)->tickVector();
    QVERIFY(ticks.size() >= 2);
    for (double t : ticks)
        QVERIFY2(t == std::floor(t), qPrintable(QString::number(t)));
    // QCustomPlot's own ticker would choose 0.5 here (the failure this guards against).
    QVector<double> generated;
    QVector<double> sub;
    QVector<QString> labels;
    plotaxes::stepTicker()->generate(QCPRange(0.9, 3.1), QLocale::c(), QLatin1Char('g'), 6, generated, &sub, &labels);
    QCOMPARE(generated, (QVector<double>{1, 2, 3}));
    for (double t : sub)
        QVERIFY2(t == std::floor(t), qPrintable(QString::number(t)));
}

// After New Project the empty plot shows the empty view, not the last run's 400 steps.
void tst_WindowHelp::emptyPlotAfterNewProject()
{
    MainWindow w;
    w.show();
    auto *plot = w.findChild<LossPlot *>();
    for (int step = 1; step <= 400; ++step) {
        StepMetrics s;
        s.step = step;
        s.loss = 1.0 / step;
        s.learning_rate = 1e-3;
        s.wall_time = 1000 + step;
        plot->addStep(s);
    }
    QTRY_VERIFY(stepAxis(*plot)->range().upper >= 400);
    w.newProject();
    QTRY_COMPARE(stepAxis(*plot)->range().upper, plotaxes::kEmptySteps);
    QCOMPARE(stepAxis(*plot)->range().lower, 0.0);
    QCOMPARE(plot->customPlot()->axisRect(0)->axis(QCPAxis::atLeft)->range().upper, 1.0);
}

// A small model's memory parts are MiB, not "params 0.0, grads 0.0, optimizer 0.0" GiB.
void tst_WindowHelp::memoryInRealUnits()
{
    MemoryEstimate m;
    m.parameters = 4 * 4'386'178; // BERT-Tiny with 2 labels
    m.gradients = m.parameters;
    m.optimizer = 2 * m.parameters;
    m.activations = 12 << 20;
    m.runtime = 170 << 20;
    QCOMPARE(memoryText(m), QStringLiteral("Memory: <b>about 248.9 MiB</b> per training process (parameters 16.7 MiB, "
                                           "gradients 16.7 MiB, optimizer 33.5 MiB, activations 12.0 MiB)"));
    m.activations = int64_t(5) << 30;
    QVERIFY2(memoryText(m).contains(QStringLiteral("activations 5.0 GiB")), qPrintable(memoryText(m)));
}

// File dialogs start next to the project or its data, never in the program's working directory.
void tst_WindowHelp::fileDialogsStartNextToTheProject()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir);
    MainWindow w;
    QCOMPARE(w.fileDialogFolder(), QDir::homePath()); // nothing named yet
    w.setOptions(o);
    QCOMPARE(w.fileDialogFolder(), QFileInfo(QString::fromStdString(o.input_meta_data_path)).absolutePath());
    auto *form = w.findChild<ConfigurationForm *>(QStringLiteral("configurationForm"));
    QCOMPARE(form->startFolder(), QFileInfo(QString::fromStdString(o.input_meta_data_path)).absolutePath());
    const QString projects = dir.filePath(QStringLiteral("projects"));
    QVERIFY(QDir().mkpath(projects));
    const QString project = projects + QStringLiteral("/p.bwproj");
    QVERIFY(w.saveProject(project));
    QCOMPARE(w.fileDialogFolder(), projects);
}

// The window stops local workers with SIGINT; their "Ctrl+C again to quit at once" (the CLI's
// hint for a terminal) is not shown in the window's Log.
void tst_WindowHelp::noCliHintInTheLog()
{
    QCOMPARE(workerLineForWindow("\nstopping after the current step (Ctrl+C again to quit at once)...\n"),
             std::string("\nstopping after the current step...\n"));
    QCOMPARE(workerLineForWindow("worker 1: step 3"), std::string("worker 1: step 3"));
}

QTEST_MAIN(tst_WindowHelp)
#include "tst_windowhelp.moc"
