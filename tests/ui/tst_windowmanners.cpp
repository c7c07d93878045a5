// SPDX-License-Identifier: Apache-2.0
// Issue 16 (the window as a learner meets it): a used model directory is never reused
// without asking, unsaved changes are not thrown away, a project knows its run, a model
// that did not learn is said so.
#include "core/prepare/exampledata.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"

#include "core/config/bertconfig.h"
#include "core/config/inputmetadata.h"
#include "core/config/schedule.h"
#include "core/io/metricswriter.h"
#include "core/formats/checkpointstate.h"
#include "core/formats/runidentity.h"
#include "support/windowfixtures.h"
#include "tinyrun.h"
#include "ui/common/backgroundjob.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/evaluation/learningcheck.h"
#include "core/advice/coach.h"
#include "ui/form/configurationform.h"
#include "ui/plot/lossplot.h"
#include "ui/plot/plotcontrolrow.h"
#include "ui/form/projectfile.h"
#include "ui/runs/runstable.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/runs/usedmodeldir.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QToolButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QThread>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <fstream>
#include <memory>

using namespace wb;

namespace {

using wbtest::installRecorder;
using wbtest::RecordingRun;
using wbtest::writeUsedModelDir;

/// Presses Train; returns the model-directory question when it is asked (nullptr otherwise).
QDialog *trainAndWaitForQuestion(MainWindow &w)
{
    QSignalSpy asked(w.runSession(), &RunSession::modelDirQuestionAsked);
    if (!w.train() || !asked.wait(60000))
        return nullptr;
    return w.runSession()->usedModelDirDialog();
}

/// Writes a metrics.jsonl of `steps` training steps into `modelDir` (created).
void writeMetrics(const QString &modelDir, int steps)
{
    QVERIFY(QDir().mkpath(modelDir));
    MetricsWriter writer((modelDir + QStringLiteral("/metrics.jsonl")).toStdString());
    for (int64_t step = 1; step <= steps; ++step) {
        StepMetrics s;
        s.step = step;
        s.loss = 0.5;
        s.learning_rate = 1e-3;
        s.wall_time = 1000 + double(step);
        writer.writeTrain(s);
    }
}

QString dialogText(QDialog *d) { return d->findChild<QLabel *>(QStringLiteral("usedModelDirText"))->text(); }

} // namespace

class tst_WindowManners : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void proposesSiblingFolder();
    void usedModelDirContinuesMatchingRun();
    void usedModelDirStartsNewRunWhenSettingsDiffer();
    void usedModelDirCancel();
    void completeRunCannotBeContinued();
    void emptyModelDirTrainsWithoutAsking();
    void quitWithUnsavedChangesAsks();
    void newProjectAsksThenSavesAndStartsClean();
    void openExampleAsksFirst();
    void offlineExampleSaysSoInPlotAndForm();
    void projectOpensWithItsRunHistory();
    void staleScansAreDropped();
    void exitStopsBackgroundJobs();
    void baselineCountsFromThePrepareReport();
    void baselineAndLearningWarnings();
    void startPageUntilAProjectIsOpen();
    void smoothingPersists();
    void keyboardAndHelp();
    void checkpointDiskUseBesideTheField();
    void formReadableOnSmallScreens_data();
    void formReadableOnSmallScreens();
};

void tst_WindowManners::initTestCase() { wbtest::useTestSettings(); }

void tst_WindowManners::proposesSiblingFolder()
{
    QTemporaryDir dir;
    const QString mw2 = dir.filePath(QStringLiteral("runs/mw2"));
    QCOMPARE(proposeNewModelDir(mw2), mw2 + QStringLiteral("-2"));
    QVERIFY(QDir().mkpath(mw2 + QStringLiteral("-2")));
    QCOMPARE(proposeNewModelDir(mw2), mw2 + QStringLiteral("-3"));
    QCOMPARE(proposeNewModelDir(mw2 + QStringLiteral("-2")), mw2 + QStringLiteral("-3"));
    QCOMPARE(proposeNewModelDir(mw2 + QStringLiteral("/")), mw2 + QStringLiteral("-3"));
}

void tst_WindowManners::usedModelDirContinuesMatchingRun()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir); // 64 examples, batch 8, 2 epochs: 16 steps
    writeUsedModelDir(o, 8);
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.setOptions(o);
    w.show();
    QDialog *d = trainAndWaitForQuestion(w);
    QVERIFY(d);
    QVERIFY(d->isVisible());
    QCOMPARE(d->windowModality(), Qt::WindowModal);
    QVERIFY2(dialogText(d).contains(QStringLiteral("holds a run at step 8 of 16")), qPrintable(dialogText(d)));
    QVERIFY2(dialogText(d).contains(QStringLiteral("0.001")), qPrintable(dialogText(d))); // its learning rate
    auto *cont = d->findChild<QPushButton *>(QStringLiteral("continueRun"));
    QVERIFY(cont->isEnabled());
    QCOMPARE(rec.calls->load(), 0); // nothing runs before the answer
    QSignalSpy started(w.runSession(), &RunSession::preflightFinished);
    cont->click();
    QVERIFY(started.wait(60000));
    QCOMPARE(started.first().at(0).toBool(), true);
    QTRY_COMPARE(rec.calls->load(), 1);
    QCOMPARE(rec.lastSpec->model_dir, o.model_dir);
    QVERIFY(!d->isVisible());
}

void tst_WindowManners::usedModelDirStartsNewRunWhenSettingsDiffer()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    writeUsedModelDir(o, 16);
    o.learning_rate = 2e-3;
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.setOptions(o);
    w.show();
    QDialog *d = trainAndWaitForQuestion(w);
    QVERIFY(d);
    const QString text = dialogText(d);
    QVERIFY2(text.contains(QStringLiteral("step 16 of 16")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("0.001 → 0.002")), qPrintable(text));
    QVERIFY(!d->findChild<QPushButton *>(QStringLiteral("continueRun"))->isEnabled());
    auto *newDir = d->findChild<QLineEdit *>(QStringLiteral("newModelDir"));
    const QString proposed = QString::fromStdString(o.model_dir) + QStringLiteral("-2");
    QCOMPARE(newDir->text(), proposed);
    newDir->setText(dir.filePath(QStringLiteral("lr-2e-3"))); // editable
    QSignalSpy started(w.runSession(), &RunSession::preflightFinished);
    d->findChild<QPushButton *>(QStringLiteral("startNewRun"))->click();
    QVERIFY(started.wait(60000));
    QCOMPARE(started.first().at(0).toBool(), true);
    QTRY_COMPARE(rec.calls->load(), 1);
    QCOMPARE(QString::fromStdString(rec.lastSpec->model_dir), dir.filePath(QStringLiteral("lr-2e-3")));
    QCOMPARE(rec.lastSpec->learning_rate, 2e-3);
    QCOMPARE(QString::fromStdString(w.options().model_dir), dir.filePath(QStringLiteral("lr-2e-3")));
    // The old run is untouched.
    QVERIFY(QFileInfo::exists(QString::fromStdString(o.model_dir + "/ckpt-16")));
}

void tst_WindowManners::usedModelDirCancel()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir);
    writeUsedModelDir(o, 8);
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.setOptions(o);
    w.show();
    QDialog *d = trainAndWaitForQuestion(w);
    QVERIFY(d);
    QSignalSpy ended(w.runSession(), &RunSession::preflightFinished);
    d->findChild<QPushButton *>(QStringLiteral("cancelRun"))->click();
    QCOMPARE(ended.count(), 1);
    QCOMPARE(ended.first().at(0).toBool(), false);
    QTest::qWait(50);
    QCOMPARE(rec.calls->load(), 0);
    QVERIFY(w.findChild<QAction *>(QStringLiteral("trainAction"))->isEnabled());
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("runStatus"))->text(), QStringLiteral("Idle"));
}

void tst_WindowManners::completeRunCannotBeContinued()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir);
    writeUsedModelDir(o, 16);
    const UsedModelDir u = inspectModelDir(o);
    QVERIFY(u.used);
    QCOMPARE(u.step, 16);
    QCOMPARE(u.totalSteps, 16);
    QVERIFY(u.differences.isEmpty());
    QVERIFY(!u.canContinue());
    QVERIFY2(u.whyNotContinue.contains(QStringLiteral("complete")), qPrintable(u.whyNotContinue));
}

void tst_WindowManners::emptyModelDirTrainsWithoutAsking()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir);
    QVERIFY(!inspectModelDir(o).used);
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.setOptions(o);
    w.show();
    QSignalSpy asked(w.runSession(), &RunSession::modelDirQuestionAsked);
    QSignalSpy ended(w.runSession(), &RunSession::preflightFinished);
    QVERIFY(w.train());
    QVERIFY(ended.wait(60000));
    QCOMPARE(ended.first().at(0).toBool(), true);
    QCOMPARE(asked.count(), 0);
    QTRY_COMPARE(rec.calls->load(), 1);
}

void tst_WindowManners::quitWithUnsavedChangesAsks()
{
    QTemporaryDir dir;
    MainWindow w;
    w.setOptions(wbtest::writeTinyRun(dir), true);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("Untitled")));
    QVERIFY(w.isWindowModified());
    auto *quit = w.findChild<QAction *>(QStringLiteral("quitAction"));
    QVERIFY(quit);
    QCOMPARE(quit->shortcut(), QKeySequence(QKeySequence::Quit));
    quit->trigger();
    QMessageBox *box = w.findChild<QMessageBox *>(QStringLiteral("saveChangesDialog"));
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QCOMPARE(box->text(), QStringLiteral("Save the changes to “Untitled”?"));
    box->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!box->isVisible());
    QVERIFY(w.isVisible()); // Cancel keeps the window and the changes
    QVERIFY(w.isWindowModified());
    quit->trigger();
    QVERIFY(box->isVisible());
    box->button(QMessageBox::Discard)->click();
    QTRY_VERIFY(!w.isVisible());
}

void tst_WindowManners::newProjectAsksThenSavesAndStartsClean()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    MainWindow w;
    w.setOptions(o);
    QString error;
    QVERIFY2(w.saveProject(project, &error), qPrintable(error));
    w.show();
    // A run is on screen: curves, an evaluation, a progress line.
    StepMetrics s;
    s.step = 5;
    s.loss = 0.5;
    w.findChild<LossPlot *>()->addStep(s);
    EvalMetrics e;
    e.step = 5;
    e.eval_accuracy = 0.75;
    e.confusion = {{6, 2}, {2, 6}};
    w.findChild<LossPlot *>()->addEvaluation(e);
    w.findChild<EvaluationView *>()->setEvaluation(e);
    TrainingOptions edited = o;
    edited.learning_rate = 3e-3;
    w.setOptions(edited, true);
    auto *newAction = w.findChild<QAction *>(QStringLiteral("newProjectAction"));
    QVERIFY(newAction);
    newAction->trigger();
    QMessageBox *box = w.findChild<QMessageBox *>(QStringLiteral("saveChangesDialog"));
    QVERIFY(box && box->isVisible());
    QCOMPARE(box->text(), QStringLiteral("Save the changes to “p.bwproj”?"));
    box->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!box->isVisible());
    QCOMPARE(w.options().learning_rate, 3e-3); // nothing was thrown away
    QCOMPARE(w.projectPath(), QFileInfo(project).absoluteFilePath());
    newAction->trigger();
    box->button(QMessageBox::Save)->click();
    QTRY_COMPARE(w.projectPath(), QString());
    Diagnostics diag;
    QCOMPARE(ProjectFile::load(project, diag).learning_rate, 3e-3); // saved before the new project
    QCOMPARE(w.options().learning_rate, TrainingOptions{}.learning_rate);
    QVERIFY(!w.isWindowModified());
    // The new project starts clean.
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::TrainLoss), 0);
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::EvalAccuracy), 0);
    QCOMPARE(w.findChild<EvaluationView *>()->confusionTable()->rowCount(), 0);
    QCOMPARE(w.findChild<QProgressBar *>(QStringLiteral("progress"))->format(), QStringLiteral("no run yet"));
}

void tst_WindowManners::openExampleAsksFirst()
{
    MainWindow w;
    w.setOptions(TrainingOptions{}, true);
    w.show();
    auto *example = w.findChild<QAction *>(QStringLiteral("openExampleAction"));
    QVERIFY(example);
    QSignalSpy ready(&w, &MainWindow::exampleReady);
    example->trigger();
    QMessageBox *box = w.findChild<QMessageBox *>(QStringLiteral("saveChangesDialog"));
    QVERIFY(box && box->isVisible());
    box->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!box->isVisible());
    QTest::qWait(50);
    QCOMPARE(ready.count(), 0);
    QVERIFY(w.isWindowModified());
    // The pretraining lesson is in the File menu too (the start page is gone once a project is
    // open), and asks first as well.
    auto *lesson = w.findChild<QAction *>(QStringLiteral("pretrainingLessonAction"));
    QVERIFY(lesson);
    QCOMPARE(lesson->text(), QStringLiteral("Why Pretraining Matters (&lesson)"));
    lesson->trigger();
    box = w.findChild<QMessageBox *>(QStringLiteral("saveChangesDialog"));
    QVERIFY(box && box->isVisible());
    box->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!box->isVisible());
    QVERIFY(w.isWindowModified());
}

/// Issue 44 item 12: an example without its pretrained model (no network in the classroom) says
/// so on the plot and under Start from, with how to fill the cache, not only in the Log; a
/// project opened later loses the plot's note.
void tst_WindowManners::offlineExampleSaysSoInPlotAndForm()
{
    ExampleDataPaths paths;
    paths.start_note = "trains BERT-Tiny from random weights: the pretrained one could not be had "
                       "(google/bert_uncased_L-2_H-128_A-2: cannot connect to 127.0.0.1:9)";
    const QString notice = MainWindow::offlineExampleNotice(paths);
    QCOMPARE(notice,
             QStringLiteral("The example trains BERT-Tiny from random weights: the pretrained one could not be had "
                            "(google/bert_uncased_L-2_H-128_A-2: cannot connect to 127.0.0.1:9). For a class without "
                            "network, fill the Hugging Face cache beforehand on a machine with network: "
                            "bert-workbench-cli models download google/bert_uncased_L-2_H-128_A-2 (then copy "
                            "~/.cache/huggingface to each machine); with HF_HUB_OFFLINE=1 the workbench reads the "
                            "cache only and never waits for the network (docs/pretrained-models.md)."));
    // Only the first sentence of why (the resolver's hint about local folders is for the Log).
    paths.start_note = "trains BERT-Tiny from random weights: the pretrained one could not be had (cannot reach "
                       "huggingface.co: Couldn't resolve host name. No local folder 'x' exists either.)";
    QVERIFY2(MainWindow::offlineExampleNotice(paths).startsWith(
                 QStringLiteral("The example trains BERT-Tiny from random weights: the pretrained one could not be "
                                "had (cannot reach huggingface.co: Couldn't resolve host name). For a class")),
             qPrintable(MainWindow::offlineExampleNotice(paths)));
    paths.pretrained_model = kExamplePretrainedModel; // it was had: nothing to say
    paths.start_note = "fine-tunes the pretrained BERT-Tiny (/cache)";
    QCOMPARE(MainWindow::offlineExampleNotice(paths), QString());

    MainWindow w;
    w.show();
    auto *plot = w.findChild<LossPlot *>();
    auto *note = plot->findChild<QLabel *>(QStringLiteral("plotNotice"));
    QVERIFY(note && note->isHidden()); // shown with the plot once set (the start page covers it now)
    plot->setNotice(notice);
    QVERIFY(!note->isHidden());
    QCOMPARE(plot->notice(), notice);
    auto *form = w.findChild<ConfigurationForm *>();
    form->setStartFromMessage(notice);
    auto *startNote = form->findChild<QLabel *>(QStringLiteral("startFromNote"));
    QVERIFY(startNote);
    QVERIFY2(startNote->text().startsWith(notice), qPrintable(startNote->text()));

    QTemporaryDir dir;
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, TrainingOptions{});
    QVERIFY(w.openProject(project));
    QVERIFY(note->isHidden());
}

void tst_WindowManners::projectOpensWithItsRunHistory()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    writeUsedModelDir(o, 16);
    {
        MetricsWriter writer(o.metricsPath());
        for (int64_t step = 1; step <= 16; ++step) {
            StepMetrics s;
            s.step = step;
            s.loss = 0.7 - 0.02 * double(step);
            s.learning_rate = 1e-3;
            s.wall_time = 1000 + double(step);
            writer.writeTrain(s);
        }
        for (int64_t step : {8, 16}) {
            EvalMetrics e;
            e.step = step;
            e.eval_loss = step == 8 ? 0.5 : 0.3;
            e.eval_accuracy = step == 8 ? 0.75 : 0.875;
            e.eval_f1 = 0.8;
            e.num_examples = 16;
            e.wall_time = 1000 + double(step);
            writer.writeEval(e);
        }
    }
    std::ofstream(o.model_dir + "/training_summary.json") << R"({"total_training_steps": 16, "train_loss": 0.0670})";
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, o);
    MainWindow w;
    w.show();
    QString error;
    QSignalSpy shown(&w, &MainWindow::recordedRunShown);
    QVERIFY2(w.openProject(project, &error), qPrintable(error));
    QVERIFY(shown.wait(30000)); // model_dir is read off the GUI thread
    QCOMPARE(shown.front().front().toString(), QString::fromStdString(o.model_dir));
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::TrainLoss), 16);
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::EvalAccuracy), 2);
    auto *bar = w.findChild<QProgressBar *>(QStringLiteral("progress"));
    QCOMPARE(bar->value(), 16);
    QCOMPARE(bar->maximum(), 16);
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("runStatus"))->text(), QStringLiteral("Completed"));
    const QString summary = w.findChild<EvaluationView *>()->summaryText();
    QVERIFY2(summary.contains(QStringLiteral("step 16")), qPrintable(summary));
    QVERIFY(summary.contains(QStringLiteral("0.8750")));
    // Compare runs lists the run of model_dir itself (issue 16 item 5), unchecked.
    w.findChild<RunsTable *>()->setLiveMetricsPath(QString::fromStdString(o.metricsPath()));
    QSignalSpy scanned(w.findChild<RunsTable *>(), &RunsTable::scanned);
    w.findChild<RunsTable *>()->scanInBackground(QString::fromStdString(o.model_dir));
    QVERIFY(scanned.wait(30000));
    QCOMPARE(scanned.front().at(1).toInt(), 1);
    QCOMPARE(w.findChild<RunsTable *>()->runCount(), 1);
    // "final train loss" is the summary's train_loss (as in the Log), not the last step's 0.38.
    QCOMPARE(w.findChild<RunsTable *>()->table()->item(0, 5)->text(), QStringLiteral("0.067"));
    QCOMPARE(w.findChild<LossPlot *>()->comparisonRunCount(), 0);
}

void tst_WindowManners::exitStopsBackgroundJobs()
{
    // At exit (the application's post routine) every job still running is asked to stop and
    // waited for, so none reads static objects while exit destroys them.
    auto sawCancel = std::make_shared<std::atomic<bool>>(false);
    auto started = std::make_shared<std::atomic<bool>>(false);
    QObject context;
    bool doneCalled = false;
    runBackgroundJob<int>(
        &context,
        [sawCancel, started](const JobControl &control) {
            started->store(true);
            QElapsedTimer waited;
            waited.start();
            while (!control.isCancelled() && waited.elapsed() < 60000) // never forever, even if broken
                QThread::msleep(5);
            sawCancel->store(control.isCancelled());
            return 1;
        },
        [&doneCalled](JobOutcome<int>) { doneCalled = true; });
    QTRY_VERIFY_WITH_TIMEOUT(started->load(), 30000);
    QElapsedTimer finishing;
    finishing.start();
    finishBackgroundJobs();
    QVERIFY(sawCancel->load());                              // stopped, not run out
    QVERIFY(finishing.elapsed() < 30000);
    QCOMPARE(backgroundJobPool()->activeThreadCount(), 0);   // nothing left running
    QTRY_VERIFY_WITH_TIMEOUT(doneCalled, 30000);             // its end still reaches the window
}

// Issue 21 §7: model_dir and sibling-run scans run off the GUI thread; a result that comes
// back for a path the user has left meanwhile is dropped, never shown over the current one.
void tst_WindowManners::staleScansAreDropped()
{
    QTemporaryDir first, second; // unrelated folders: neither scan finds the other's run
    const QString runA = first.filePath(QStringLiteral("run-a")), runB = second.filePath(QStringLiteral("run-b"));
    writeMetrics(runA, 7);
    writeMetrics(runB, 3);
    MainWindow w;
    w.show();
    // Compare runs: Find runs for A, then for B before A's result came back.
    RunsTable *runs = w.findChild<RunsTable *>();
    QSignalSpy scanned(runs, &RunsTable::scanned), dropped(runs, &RunsTable::scanDropped);
    runs->scanInBackground(runA);
    runs->scanInBackground(runB);
    QTRY_COMPARE_WITH_TIMEOUT(scanned.count() + dropped.count(), 2, 30000); // both scans have ended
    QCOMPARE(runs->runCount(), 1); // B's run only, whichever scan ended first
    QCOMPARE(runs->table()->item(0, 0)->text(), QStringLiteral("run-b"));
    QCOMPARE(runs->table()->item(0, 1)->text(), QStringLiteral("3"));
    QCOMPARE(dropped.count(), 1);
    QCOMPARE(dropped.front().front().toString(), runA);
    QCOMPARE(scanned.front().front().toString(), runB);
    // clear() (a new project) makes a scan in flight stale too.
    runs->scanInBackground(runA);
    runs->clear();
    QTRY_COMPARE_WITH_TIMEOUT(scanned.count() + dropped.count(), 3, 30000);
    QCOMPARE(runs->runCount(), 0);
    QCOMPARE(dropped.back().front().toString(), runA);

    // An opened project's run: the user types another model_dir before A's files are read.
    TrainingOptions o;
    o.model_dir = runA.toStdString();
    const QString project = first.filePath(QStringLiteral("a.bwproj"));
    ProjectFile::save(project, o);
    QSignalSpy shown(&w, &MainWindow::recordedRunShown), notShown(&w, &MainWindow::recordedRunDropped);
    QString error;
    QVERIFY2(w.openProject(project, &error), qPrintable(error));
    w.findChild<ConfigurationForm *>()->setPath(QStringLiteral("model_dir"), runB);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count() + notShown.count(), 1, 30000); // A's files have been read
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::TrainLoss), 0);
    QVERIFY2(!w.logText().contains(QStringLiteral("Opened the run in")), qPrintable(w.logText()));
    QCOMPARE(notShown.count(), 1);
    QCOMPARE(notShown.front().front().toString(), runA);
    // The same project opened and left alone shows its run.
    QVERIFY2(w.openProject(project, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);
    QCOMPARE(shown.front().front().toString(), runA);
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::TrainLoss), 7);
}

// The eval data's label counts from prepare_report.json, in label id order; none for multi-label data.
void tst_WindowManners::baselineCountsFromThePrepareReport()
{
    QTemporaryDir prep;
    const QString meta = prep.filePath(QStringLiteral("input_meta_data.json"));
    QFile report(prep.filePath(QStringLiteral("prepare_report.json")));
    QVERIFY(report.open(QIODevice::WriteOnly));
    report.write(R"({"labels": ["spam", "ham"], "eval_label_counts": {"ham": 24, "spam": 16}})");
    report.close();
    const auto counts = evalLabelCountsFromPrepareReport(meta);
    QVERIFY(counts);
    QCOMPARE(*counts, (std::vector<int64_t>{16, 24})); // in label id order ("labels")
    QCOMPARE(majorityBaseline(*counts)->majority_label, 1);
    QVERIFY(!evalLabelCountsFromPrepareReport(prep.filePath(QStringLiteral("elsewhere/meta.json"))));
    // Multi-label counts are texts carrying each label: no majority class to always predict.
    QVERIFY(report.open(QIODevice::WriteOnly | QIODevice::Truncate));
    report.write(R"({"labels": ["billing", "urgent"], "problem_type": "multi_label_classification",
                     "eval_label_counts": {"billing": 37, "urgent": 24}})");
    report.close();
    QVERIFY(!evalLabelCountsFromPrepareReport(meta));
}

void tst_WindowManners::baselineAndLearningWarnings()
{
    const auto b = majorityBaseline({60, 40});
    QVERIFY(b);
    QCOMPARE(b->majority_label, 0);
    QCOMPARE(b->accuracy, 0.6);
    QVERIFY(!majorityBaseline({}));
    QVERIFY(!majorityBaseline({0, 0}));
    QCOMPARE(trueLabelCounts({{50, 10}, {30, 10}}), (std::vector<int64_t>{60, 40}));

    EvalMetrics oneClass;
    oneClass.eval_accuracy = 0.6;
    oneClass.confusion = {{60, 0}, {40, 0}};
    // What the window says about learning is the coach's (core/advice/coach.h): its current notes.
    RunFacts facts;
    facts.start = WeightsStart::Random;
    facts.learning_rate = 5e-4;
    facts.num_labels = 2;
    facts.total_steps = 16;
    Coach coach(facts);
    const std::vector<CoachNote> said = coach.evaluation(oneClass);
    QStringList w = learningVerdictTexts(coach.current());
    QCOMPARE(w.size(), 3);
    QVERIFY2(w[0].contains(QStringLiteral("predicts label 0 for every")), qPrintable(w[0]));
    QVERIFY2(w[1].contains(QStringLiteral("0.600 does not beat the majority-class baseline 0.600")), qPrintable(w[1]));
    QVERIFY2(w[2].contains(QStringLiteral("within the usual range for a model trained from random weights (1e-4 to "
                                          "1e-3)")),
             qPrintable(w[2]));
    QVERIFY2(w[2].contains(QStringLiteral("Training → Find Learning Rate…")), qPrintable(w[2]));
    // A model that learned at the next evaluation: every one of them withdrawn.
    EvalMetrics good;
    good.eval_accuracy = 0.9;
    good.confusion = {{55, 5}, {5, 35}};
    coach.evaluation(good);
    QVERIFY(learningVerdictTexts(coach.current()).isEmpty());

    // The window: baseline on the accuracy axis and in the evaluation view, a warning on "Completed".
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir); // no init checkpoint: from scratch
    MainWindow win;
    win.runSession()->controller()->setRunFunction([oneClass, said](const PreparedRun &, TrainingObserver &obs, const StopToken &) {
        obs.evaluationCompleted(oneClass);
        for (const CoachNote &n : said) // the training loop's coach says them after the evaluation
            obs.coachNote(n);
        RunFinished r;
        r.last_step = 16;
        obs.runFinished(r);
        return r;
    });
    win.setOptions(o);
    win.show();
    QSignalSpy finished(win.runSession()->controller(), &TrainingController::finished);
    QSignalSpy ended(win.runSession(), &RunSession::preflightFinished);
    QVERIFY(win.train());
    QVERIFY(ended.wait(60000));
    QVERIFY(finished.count() > 0 || finished.wait(10000));
    QCOMPARE(win.findChild<LossPlot *>()->accuracyBaseline(), 0.6);
    QVERIFY2(win.findChild<EvaluationView *>()->summaryText().contains(QStringLiteral("Majority-class baseline 0.600")),
             qPrintable(win.findChild<EvaluationView *>()->summaryText()));
    QVERIFY2(win.findChild<EvaluationView *>()->warningText().contains(QStringLiteral("predicts label 0 for every")),
             qPrintable(win.findChild<EvaluationView *>()->warningText()));
    QCOMPARE(win.findChild<QLabel *>(QStringLiteral("runStatus"))->text(), QStringLiteral("Completed — did not learn"));
    QVERIFY(win.logText().contains(QStringLiteral("does not beat the majority-class baseline")));
}

void tst_WindowManners::startPageUntilAProjectIsOpen()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir);
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, o);
    MainWindow w;
    w.show();
    QVERIFY(w.isStartPageShown());
    QVERIFY(w.findChild<QPushButton *>(QStringLiteral("startOpenExample")));
    QVERIFY(w.findChild<QPushButton *>(QStringLiteral("startPrepareData")));
    QVERIFY(w.findChild<QPushButton *>(QStringLiteral("startNewProject")));
    QString error;
    QVERIFY2(w.openProject(project, &error), qPrintable(error));
    QVERIFY(!w.isStartPageShown());
    MainWindow fresh;
    fresh.show();
    QVERIFY(fresh.isStartPageShown());
    fresh.findChild<QPushButton *>(QStringLiteral("startNewProject"))->click();
    QVERIFY(!fresh.isStartPageShown());
}

void tst_WindowManners::smoothingPersists()
{
    {
        MainWindow w;
        w.findChild<LossPlot *>()->setSmoothing(0.95);
    }
    {
        MainWindow w;
        QCOMPARE(w.findChild<LossPlot *>()->smoothing(), 0.95);
        w.findChild<LossPlot *>()->setSmoothing(0.6); // leave the default for other tests
    }
    MainWindow w;
    QCOMPARE(w.findChild<LossPlot *>()->smoothing(), 0.6);
}

void tst_WindowManners::keyboardAndHelp()
{
    MainWindow w;
    QCOMPARE(w.findChild<QAction *>(QStringLiteral("stopAction"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Period));
    QCOMPARE(w.findChild<QAction *>(QStringLiteral("resumeAction"))->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
    auto *tutorial = w.findChild<QAction *>(QStringLiteral("tutorialAction"));
    QVERIFY(tutorial);
    QCOMPARE(tutorial->shortcut(), QKeySequence(QKeySequence::HelpContents));
    QVERIFY(w.findChild<QAction *>(QStringLiteral("shortcutsAction")));
    // The "?" buttons are no Tab stops.
    auto *help = w.findChild<QWidget *>(QStringLiteral("learning_rate_help"));
    QVERIFY(help);
    QCOMPARE(help->focusPolicy(), Qt::NoFocus);
    // Fields named in a failed check are marked until the next edit.
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    o.model_dir.clear();
    w.setOptions(o);
    w.show();
    QSignalSpy ended(w.runSession(), &RunSession::preflightFinished);
    QVERIFY(w.train());
    QVERIFY(ended.wait(60000));
    QVERIFY2(w.findChild<ConfigurationForm *>()->highlightedFields().contains(QStringLiteral("model_dir")),
             qPrintable(w.findChild<ConfigurationForm *>()->highlightedFields().join(QLatin1Char(','))));
    w.runSession()->validationDialog()->button(QMessageBox::Ok)->click();
    w.findChild<ConfigurationForm *>()->setPath(QStringLiteral("model_dir"), dir.filePath(QStringLiteral("m")));
    QVERIFY(w.findChild<ConfigurationForm *>()->highlightedFields().isEmpty());
}

void tst_WindowManners::checkpointDiskUseBesideTheField()
{
    QCOMPARE(TrainingOptions{}.keep_checkpoint_max, 5);
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    QVERIFY(QDir().mkpath(QString::fromStdString(o.model_dir)));
    std::ofstream(o.model_dir + "/ckpt-4") << std::string(1000, 'x');
    std::ofstream(o.model_dir + "/ckpt-8") << std::string(3000, 'x');
    std::ofstream(o.model_dir + "/ckpt-9.tmp") << std::string(5000, 'x');
    int count = 0;
    QCOMPARE(checkpointDiskUse(QString::fromStdString(o.model_dir), &count), qint64(4000));
    QCOMPARE(count, 2);
    MainWindow w;
    w.setOptions(o);
    auto *label = w.findChild<QLabel *>(QStringLiteral("checkpointDiskUse"));
    QVERIFY(label);
    // Listed off the GUI thread.
    QTRY_VERIFY2_WITH_TIMEOUT(label->text().startsWith(QStringLiteral("2 on disk: ")), qPrintable(label->text()), 30000);
}

namespace {

/// Checks that every form label, number field, path file name and button is whole and inside
/// the form's pane, and the plot's controls inside the plot (issue 16 item 9).
void checkReadable(MainWindow &w)
{
    QApplication::processEvents();
    ConfigurationForm *form = w.findChild<ConfigurationForm *>();
    auto *scroll = qobject_cast<QScrollArea *>(form->parentWidget()->parentWidget());
    QVERIFY(scroll);
    const int viewportWidth = scroll->viewport()->width();
    int labels = 0;
    for (QLabel *label : form->findChildren<QLabel *>()) {
        if (!label->isVisibleTo(&w) || label->text().isEmpty() || label->wordWrap())
            continue;
        ++labels;
        const int needed = label->fontMetrics().horizontalAdvance(label->text());
        QVERIFY2(label->width() >= needed, qPrintable(QStringLiteral("%1: %2 px wide, its text needs %3 px")
                                                      .arg(label->text()).arg(label->width()).arg(needed)));
        const int right = label->mapTo(scroll->viewport(), QPoint(label->width(), 0)).x();
        QVERIFY2(right <= viewportWidth, qPrintable(label->text()));
    }
    QVERIFY(labels >= 20);
    // What a number field shows fits it ("off", not "ff (use TF_CONFIG or the environment)").
    for (QAbstractSpinBox *spin : form->findChildren<QAbstractSpinBox *>()) {
        auto *edit = spin->findChild<QLineEdit *>();
        QVERIFY(edit);
        const int needed = edit->fontMetrics().horizontalAdvance(spin->text());
        QVERIFY2(edit->width() >= needed, qPrintable(QStringLiteral("%1: \"%2\" needs %3 px, has %4")
                                                     .arg(spin->objectName(), spin->text()).arg(needed).arg(edit->width())));
    }
    // The "?" and browse buttons stay inside the pane (no horizontal scrolling).
    for (QToolButton *button : form->findChildren<QToolButton *>()) {
        if (!button->isVisibleTo(&w))
            continue;
        const int right = button->mapTo(scroll->viewport(), QPoint(button->width(), 0)).x();
        QVERIFY2(right <= viewportWidth, qPrintable(QStringLiteral("%1 ends at %2 of %3").arg(button->objectName()).arg(right).arg(viewportWidth)));
    }
    // A path field shows at least its file name, and its tooltip the whole path.
    for (const char *flag : {"bert_config_file", "input_meta_data_path", "train_data_path", "eval_data_path", "model_dir"}) {
        auto *edit = form->findChild<QLineEdit *>(QString::fromLatin1(flag));
        QVERIFY(edit);
        const QString name = QFileInfo(edit->text()).fileName();
        const int needed = edit->fontMetrics().horizontalAdvance(name) + 40; // frame, clear button
        QVERIFY2(edit->width() >= needed, qPrintable(QStringLiteral("%1: %2 px wide, %3 needs %4 px")
                                                     .arg(QString::fromLatin1(flag)).arg(edit->width()).arg(name).arg(needed)));
        QVERIFY2(edit->toolTip().contains(edit->text()), qPrintable(edit->toolTip()));
    }
    // The plot's controls (Reset view, Export) stay inside the plot; the slider is no stub.
    QApplication::processEvents();
    auto *plot = w.findChild<LossPlot *>();
    for (QToolButton *button : plot->findChildren<QToolButton *>()) {
        const int right = button->mapTo(plot, QPoint(button->width(), 0)).x();
        QVERIFY2(right <= plot->width(), qPrintable(QStringLiteral("%1 ends at %2 of %3").arg(button->text()).arg(right).arg(plot->width())));
    }
    QVERIFY(plot->findChild<QWidget *>(QStringLiteral("smoothingSlider"))->width() >= 80);
}

} // namespace

void tst_WindowManners::formReadableOnSmallScreens_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1024x700") << QSize(1024, 700);
    // QT_SCALE_FACTOR cannot change inside one process; these are the logical sizes that
    // 1280×800 at 125 % and 150 %, and 1600×1000 at 150 %, give the window.
    QTest::newRow("1280x800 at 125 %") << QSize(1024, 640);
    QTest::newRow("1280x800 at 150 %") << QSize(853, 533);
    QTest::newRow("1600x1000 at 150 %") << QSize(1066, 666);
}

void tst_WindowManners::formReadableOnSmallScreens()
{
    // Issue 16 item 9: at 1024×700 "Distribution strategy" showed as "Distribution stra", the
    // path fields showed a few letters of their file names.
    QFETCH(QSize, size);
    MainWindow w;
    TrainingOptions o;
    o.distribution_strategy = "multi_worker_mirrored";
    const std::string dir = "/home/learner/projects/spam-detection/prepared-data/";
    o.bert_config_file = dir + "bert_config.json";
    o.input_meta_data_path = dir + "input_meta_data.json";
    o.train_data_path = dir + "train.tf_record";
    o.eval_data_path = dir + "eval.tf_record";
    o.model_dir = "/home/learner/projects/spam-detection/runs/learning-rate-3e-5";
    w.setOptions(o);
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // No widget's minimum makes the window larger than the screen.
    QVERIFY2(w.size() == size, qPrintable(QStringLiteral("%1x%2, minimum %3x%4").arg(w.width()).arg(w.height())
                                              .arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height())));
    w.showTab(QStringLiteral("plotTab"));
    checkReadable(w);
    if (QTest::currentTestFailed())
        return;
    // Labels stay whole after growing the window and shrinking it again.
    w.resize(1600, 1000);
    QTest::qWait(50);
    checkReadable(w);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(!w.findChild<PlotControlRow *>()->isWrapped());
    w.resize(size);
    QTest::qWait(50);
    checkReadable(w);
}

QTEST_MAIN(tst_WindowManners)
#include "tst_windowmanners.moc"
