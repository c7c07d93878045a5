// SPDX-License-Identifier: Apache-2.0
// Issue 27 "Runs" (the window's run as a learner meets it after a restart): Resume continues the
// run the form's model_dir holds, the views show the form's model_dir, a check that starts
// nothing gives the shown run's status back.
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
#include "ui/dialogs/lrfinddialog.h"
#include "ui/form/projectfile.h"
#include "ui/plot/lossplot.h"
#include "ui/runs/progresspanel.h"
#include "ui/runs/trainingcontroller.h"

#include <QAction>
#include <QCryptographicHash>
#include <QDialog>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <fstream>
#include <memory>

using namespace wb;

namespace {

using wbtest::installRecorder;
using wbtest::RecordingRun;

/// Leaves a run in o.model_dir as training would, with a metrics.jsonl of `step` steps.
void writeRun(const TrainingOptions &o, int64_t step) { wbtest::writeUsedModelDir(o, step, true); }

QString statusText(MainWindow &w) { return w.findChild<QLabel *>(QStringLiteral("runStatus"))->text(); }
QProgressBar *progressBar(MainWindow &w) { return w.findChild<QProgressBar *>(QStringLiteral("progress")); }
int trainPoints(MainWindow &w) { return w.findChild<LossPlot *>()->pointCount(LossPlot::Series::TrainLoss); }

/// Opens `project` in `w` and waits until its recorded run is shown.
bool openAndShow(MainWindow &w, const QString &project)
{
    QSignalSpy shown(&w, &MainWindow::recordedRunShown);
    QString error;
    if (!w.openProject(project, &error)) {
        qWarning() << error;
        return false;
    }
    return shown.wait(30000);
}

} // namespace

class tst_WindowRuns : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void resumeAfterRestart();
    void modelDirIsTheRunShown();
    void cancelledQuestionKeepsTheRunsStatus();
    void usedModelDirNamesChangedDataFiles();
    void formErrorsComeBeforeTheQuestion();
    void lrFinderOnAUsedModelDir();
    void progressLineShowsTimeLeft();
    void statusBarCountsWorkers();
};

void tst_WindowRuns::initTestCase()
{
    wbtest::useTestSettings();
}

// Quit during training (a checkpoint at step 8 of 16), reopen the project: "Stopped at step 8"
// and Resume continues that run (it was greyed out; only Train → Continue it worked).
void tst_WindowRuns::resumeAfterRestart()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir); // 16 steps
    writeRun(o, 8);
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, o);
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.show();
    auto *resume = w.findChild<QAction *>(QStringLiteral("resumeAction"));
    QVERIFY(!resume->isEnabled()); // nothing to resume before the project is open
    QVERIFY(openAndShow(w, project));
    QCOMPARE(statusText(w), QStringLiteral("Stopped at step 8"));
    QVERIFY(resume->isEnabled());
    QVERIFY(w.runSession()->canResume());
    QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
    resume->trigger();
    QVERIFY(checked.wait(60000));
    QCOMPARE(checked.first().at(0).toBool(), true);
    QTRY_COMPARE(rec.calls->load(), 1);
    QCOMPARE(rec.lastSpec->model_dir, o.model_dir);
    QVERIFY(!w.runSession()->usedModelDirDialog()); // Resume does not ask what Train asks
    QTRY_VERIFY(!w.runSession()->isRunning());

    // A form naming another folder has nothing to resume there.
    QTemporaryDir other;
    MainWindow w2;
    w2.show();
    QVERIFY(openAndShow(w2, project));
    QVERIFY(w2.findChild<QAction *>(QStringLiteral("resumeAction"))->isEnabled());
    w2.findChild<QLineEdit *>(QStringLiteral("model_dir"))->setText(other.filePath(QStringLiteral("fresh")));
    QVERIFY(!w2.findChild<QAction *>(QStringLiteral("resumeAction"))->isEnabled());
}

// Typing another model_dir shows that folder's run, or empty views: never the old run's curves
// and "Completed 16/16".
void tst_WindowRuns::modelDirIsTheRunShown()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    writeRun(o, 16);
    TrainingOptions stopped = o;
    stopped.model_dir = dir.filePath(QStringLiteral("model-b")).toStdString();
    writeRun(stopped, 4);
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, o);
    MainWindow w;
    w.show();
    QVERIFY(openAndShow(w, project));
    QCOMPARE(statusText(w), QStringLiteral("Completed"));
    QCOMPARE(trainPoints(w), 16);
    QCOMPARE(progressBar(w)->value(), 16);

    auto *modelDir = w.findChild<QLineEdit *>(QStringLiteral("model_dir"));
    QVERIFY(modelDir);
    modelDir->setText(dir.filePath(QStringLiteral("empty-folder"))); // holds no run
    QTRY_COMPARE(trainPoints(w), 0);
    QCOMPARE(statusText(w), QStringLiteral("Idle"));
    QCOMPARE(progressBar(w)->text(), QStringLiteral("no run yet"));

    QSignalSpy shown(&w, &MainWindow::recordedRunShown);
    modelDir->setText(QString::fromStdString(stopped.model_dir)); // the other folder's run
    QVERIFY(shown.wait(30000));
    QCOMPARE(shown.last().at(0).toString(), QString::fromStdString(stopped.model_dir));
    QCOMPARE(trainPoints(w), 4);
    QCOMPARE(statusText(w), QStringLiteral("Stopped at step 4"));
    QCOMPARE(progressBar(w)->value(), 4);
    QVERIFY(w.findChild<QAction *>(QStringLiteral("resumeAction"))->isEnabled());
}

// Train on a complete run, then Cancel at "This folder holds a run": the progress row still says
// "Completed" (it said "Idle" beside "step 16 / 16").
void tst_WindowRuns::cancelledQuestionKeepsTheRunsStatus()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir);
    writeRun(o, 16);
    const QString project = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(project, o);
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.show();
    QVERIFY(openAndShow(w, project));
    QCOMPARE(statusText(w), QStringLiteral("Completed"));
    QSignalSpy asked(w.runSession(), &RunSession::modelDirQuestionAsked);
    QVERIFY(w.train());
    QVERIFY(asked.wait(60000));
    QDialog *d = w.runSession()->usedModelDirDialog();
    QVERIFY(d && d->isVisible());
    QSignalSpy finished(w.runSession(), &RunSession::preflightFinished);
    d->findChild<QPushButton *>(QStringLiteral("cancelRun"))->click();
    QVERIFY(finished.count() == 1 || finished.wait(5000));
    QCOMPARE(statusText(w), QStringLiteral("Completed"));
    QCOMPARE(progressBar(w)->value(), 16);
    QCOMPARE(rec.calls->load(), 0);
}

// Other data prepared into the same files: the question names the changed file (path, content
// hash), not "Train data size cap: 64 → 48" (run_config's effective train_data_size).
void tst_WindowRuns::usedModelDirNamesChangedDataFiles()
{
    QTemporaryDir dir;
    const TrainingOptions o = wbtest::writeTinyRun(dir, 64);
    writeRun(o, 8);
    const TrainingOptions now = wbtest::writeTinyRun(dir, 48); // the same paths, other records
    QCOMPARE(now.train_data_path, o.train_data_path);
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.setOptions(now);
    w.show();
    QSignalSpy asked(w.runSession(), &RunSession::modelDirQuestionAsked);
    QVERIFY(w.train());
    QVERIFY(asked.wait(60000));
    const QString text = w.runSession()->usedModelDirDialog()->findChild<QLabel *>(QStringLiteral("usedModelDirText"))->text();
    QVERIFY2(text.contains(QStringLiteral("Training data: %1 changed (sha256 ").arg(QString::fromStdString(o.train_data_path))),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Input meta data")) || text.contains(QStringLiteral("input_meta_data")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("size cap")) && !text.contains(QStringLiteral("train_data_size"))
                 && !text.contains(QStringLiteral("Training examples used")),
             qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("Evaluation data"))); // eval.tf_record is the same bytes
    QVERIFY(!w.runSession()->usedModelDirDialog()->findChild<QPushButton *>(QStringLiteral("continueRun"))->isEnabled());
    w.runSession()->usedModelDirDialog()->reject();
}

// A learning rate of 0 is reported before the used-model_dir question, not after its answer.
void tst_WindowRuns::formErrorsComeBeforeTheQuestion()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    writeRun(o, 8);
    o.learning_rate = 0.0;
    MainWindow w;
    RecordingRun rec;
    installRecorder(w, rec);
    w.setOptions(o);
    w.show();
    QSignalSpy asked(w.runSession(), &RunSession::modelDirQuestionAsked);
    QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
    QVERIFY(w.train());
    QVERIFY(checked.wait(60000));
    QCOMPARE(checked.first().at(0).toBool(), false);
    QCOMPARE(asked.count(), 0);
    QVERIFY(!w.runSession()->usedModelDirDialog());
    QVERIFY(w.runSession()->validationDialog() && w.runSession()->validationDialog()->isVisible());
    const QString text = w.runSession()->validationDialog()->text();
    QVERIFY2(text.contains(QStringLiteral("Learning rate")), qPrintable(text));
    QCOMPARE(rec.calls->load(), 0);
}

// Training → Find Learning Rate… on a model_dir that holds a stopped run, with the form's
// learning rate 0: it runs (no refusal, no learning-rate error) and writes only lr_find.json.
void tst_WindowRuns::lrFinderOnAUsedModelDir()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    writeRun(o, 8);
    QDir modelDir(QString::fromStdString(o.model_dir));
    auto snapshot = [&modelDir] {
        QStringList files;
        for (const QFileInfo &f : modelDir.entryInfoList(QDir::Files, QDir::Name)) {
            QFile in(f.filePath());
            if (in.open(QIODevice::ReadOnly))
                files << f.fileName() + QLatin1Char(' ') + QString::fromLatin1(QCryptographicHash::hash(in.readAll(), QCryptographicHash::Sha256).toHex());
        }
        return files;
    };
    const QStringList before = snapshot();
    o.learning_rate = 0.0;
    o.lr_find_steps = 5;
    MainWindow w;
    w.setOptions(o);
    w.show();
    LrFindDialog *d = w.openLrFinder();
    QSignalSpy done(d, &LrFindDialog::rangeTestFinished);
    QVERIFY(done.count() > 0 || done.wait(120000));
    QVERIFY2(d->validationText().isEmpty(), qPrintable(d->validationText()));
    QVERIFY(d->result().has_value());
    QCOMPARE(int64_t(d->result()->steps.size()), int64_t(5));
    QStringList after = snapshot();
    QVERIFY(modelDir.exists(QStringLiteral("lr_find.json")));
    after.erase(std::remove_if(after.begin(), after.end(), [](const QString &f) { return f.startsWith(QStringLiteral("lr_find.json ")); }),
                after.end());
    QCOMPARE(after, before); // checkpoint, its index, run_config.json and metrics.jsonl as they were
    d->close();
}

// The progress bar says how long the run has taken and how long it has left, from the step
// rate measured over wall time (evaluation pauses between the steps included); "~" while the
// rate rests on few steps or seconds (issue 44, item 11).
void tst_WindowRuns::progressLineShowsTimeLeft()
{
    QCOMPARE(ProgressPanel::timeText(40, 80, 0.5), QStringLiteral("0:00:40 elapsed, 0:02:40 left"));
    QCOMPARE(ProgressPanel::timeText(40, 80, 0.5, true), QStringLiteral("0:00:40 elapsed, ~0:02:40 left"));
    QCOMPARE(ProgressPanel::timeText(3725, 0, 2), QStringLiteral("1:02:05 elapsed, 0:00:00 left"));
    QCOMPARE(ProgressPanel::timeText(5, 10, std::nan("")), QStringLiteral("0:00:05 elapsed"));
    ProgressPanel p;
    RunStarted info;
    info.total_steps = 100;
    info.device = "cpu";
    info.wall_time = 1000;
    p.runStarted(info);
    StepMetrics m;
    m.total_steps = 100;
    m.step = 10;
    m.wall_time = 1020; // 20 s after the start (model loading, the first steps)
    p.stepCompleted(m);
    QCOMPARE(p.progressText(), QStringLiteral("step 10 / 100 · 0:00:20 elapsed"));
    m.step = 20;
    m.wall_time = 1040; // 10 steps in 20 s (an evaluation among them): 0.5 steps/s, 80 steps left
    p.stepCompleted(m);
    QCOMPARE(p.progressText(), QStringLiteral("step 20 / 100 · 0:00:40 elapsed, ~0:02:40 left")); // rough: 20 s
    m.step = 40;
    m.wall_time = 1080; // 30 steps in 60 s: no longer rough
    p.stepCompleted(m);
    QCOMPARE(p.progressText(), QStringLiteral("step 40 / 100 · 0:01:20 elapsed, 0:02:00 left"));
    QVERIFY(!p.detailText().contains(QStringLiteral("ETA")));
    RunFinished end;
    end.status = RunStatus::Completed;
    end.last_step = 40;
    p.finished(end);
    QCOMPARE(p.progressText(), QStringLiteral("step 40 / 100 · took 0:01:20")); // no stale time left
    // Shown in the window at 1024×700: the bar is wide enough for the time, and it is visible.
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *panel = w.findChild<ProgressPanel *>();
    auto *bar = panel->findChild<QProgressBar *>(QStringLiteral("progress"));
    panel->runStarted(info);
    m.step = 20;
    m.wall_time = 1040;
    panel->stepCompleted(m);
    QVERIFY(bar->isVisible());
    QVERIFY2(bar->fontMetrics().horizontalAdvance(bar->text()) < bar->width(),
             qPrintable(QStringLiteral("%1 in %2 px").arg(bar->text()).arg(bar->width())));
}

// multi_worker_mirrored on two local workers: the progress row and the status bar say "2 workers".
void tst_WindowRuns::statusBarCountsWorkers()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir);
    o.distribution_strategy = "multi_worker_mirrored";
    o.num_local_workers = 2;
    MainWindow w;
    w.runSession()->controller()->setRunFunction([](const PreparedRun &prepared, TrainingObserver &obs, const StopToken &) {
        RunStarted info;
        info.total_steps = 16;
        info.device = "cpu";
        info.model_dir = prepared.options.model_dir;
        obs.runStarted(info);
        RunFinished r;
        r.last_step = 16;
        obs.runFinished(r);
        return r;
    });
    QString statusWhileRunning, rowWhileRunning;
    connect(w.runSession()->controller(), &TrainingController::runStarted, &w, [&] {
        statusWhileRunning = w.statusBar()->currentMessage();
        rowWhileRunning = statusText(w);
    });
    w.setOptions(o);
    w.show();
    QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
    QVERIFY(w.train());
    QVERIFY(checked.wait(60000));
    QVERIFY2(checked.first().at(0).toBool(), qPrintable(QString::fromStdString(w.runSession()->lastValidation().format())));
    QTRY_VERIFY(!statusWhileRunning.isEmpty());
    QVERIFY2(statusWhileRunning.startsWith(QStringLiteral("Training on 2 workers (cpu).")), qPrintable(statusWhileRunning));
    QCOMPARE(rowWhileRunning, QStringLiteral("Training on 2 workers (cpu)"));
}

QTEST_MAIN(tst_WindowRuns)
#include "tst_windowruns.moc"
