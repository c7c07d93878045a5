// SPDX-License-Identifier: Apache-2.0
#include "ui/window/mainwindow.h"
#include "ui/form/schedulepanel.h"
#include "ui/window/runsession.h"
#include "ui/form/configurationform.h"
#include "ui/dialogs/preparedatadialog.h"

#include "core/config/bertconfig.h"
#include "core/config/distributionstrategy.h"
#include "core/config/memoryestimate.h"
#include "tinyrun.h"
#include "core/io/eventwriter.h"
#include "core/io/summarywriter.h"
#include "ui/evaluation/evaluationview.h"
#include "ui/plot/lossplot.h"
#include "ui/form/numberspinbox.h"
#include "ui/form/projectfile.h"
#include "ui/runs/runhistory.h"
#include "ui/runs/runstable.h"
#include "ui/runs/trainingcontroller.h"

#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProgressBar>
#include <QStandardPaths>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>

using namespace wb;

namespace {

/// The window's rooms, found by type (one of each).
ConfigurationForm *formOf(const MainWindow &w) { return w.findChild<ConfigurationForm *>(); }
SchedulePanel *scheduleOf(const MainWindow &w) { return w.findChild<SchedulePanel *>(); }

TrainingOptions writeFixture(const QTemporaryDir &dir, int64_t trainSize = 64, int64_t evalSize = 16)
{
    TrainingOptions o = wbtest::writeTinyRun(dir, trainSize, evalSize);
    o.distribution_strategy.clear(); // each test chooses its own
    return o;
}

// Stands in for the compute of one training step on the worker thread (~5 ms).
void simulateStep()
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
    volatile double x = 1;
    while (std::chrono::steady_clock::now() < until)
        x = x * 1.0000001;
}

/// Presses Train and waits for the pre-flight check (a background job) to end; returns
/// whether a run was started.
bool pressTrain(MainWindow &w)
{
    QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
    if (!w.train())
        return false;
    if (!checked.wait(60000))
        return false;
    return checked.first().at(0).toBool();
}

struct RecordingRun
{
    std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
    std::shared_ptr<TrainingOptions> lastSpec = std::make_shared<TrainingOptions>();
    std::shared_ptr<PreparedRun> lastRun = std::make_shared<PreparedRun>();
};

} // namespace

class tst_MainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void strategyPickerStartsEmpty();
    void trainWithoutStrategyShowsDialog();
    void everyProblemListedStrategyFirst();
    void validConfigurationStartsTraining();
    void coachNoteShowsUnderTheProgressBar();
    void failingRunShowsErrorDialog();
    void scheduleFollowsEdits();
    void presetWritesConfig();
    void projectSaveOpenAndTitle();
    void liveMetricsReachPlotAndEvaluation();
    void closeDuringTrainingAsksThenStops();
    void resetToDefaults();
    void localWorkersFollowStrategy();
    void openTensorBoardLogs();
    void projectKeepsOptionsWithoutWidgets();
    void unknownProjectKeyIsWarned();
    void missingModelDirIsAValidationError();
    void prepareDataFollowsStartFrom();
    void prepareDataTakesTheCurrentVocabulary();
};

void tst_MainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings (recent files) go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("bert-workbench-tests"));
}

void tst_MainWindow::strategyPickerStartsEmpty()
{
    MainWindow w;
    QCOMPARE(formOf(w)->strategyPicker()->currentIndex(), -1);
    QCOMPARE(formOf(w)->strategyPicker()->placeholderText(), QStringLiteral("Choose a distribution strategy…"));
    QCOMPARE(formOf(w)->strategyPicker()->count(), int(DistributionStrategy::validNames().size()));
    QVERIFY(w.options().distribution_strategy.empty());
}

void tst_MainWindow::trainWithoutStrategyShowsDialog()
{
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy running(w.runSession()->controller(), &TrainingController::runningChanged);
    QVERIFY(w.findChild<QAction *>(QStringLiteral("trainAction"))->isEnabled());
    QSignalSpy checked(w.runSession(), &RunSession::preflightFinished);
    w.findChild<QAction *>(QStringLiteral("trainAction"))->trigger(); // press Train
    // The check runs off the GUI thread; Train waits for it.
    QVERIFY(w.runSession()->isChecking());
    QVERIFY(!w.findChild<QAction *>(QStringLiteral("trainAction"))->isEnabled());
    QVERIFY(!w.train()); // a second press while checking does nothing
    QVERIFY(checked.wait(60000));
    QCOMPARE(checked.count(), 1);
    QCOMPARE(checked.first().at(0).toBool(), false);
    QVERIFY(w.findChild<QAction *>(QStringLiteral("trainAction"))->isEnabled());
    QMessageBox *box = w.runSession()->validationDialog();
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QCOMPARE(box->windowModality(), Qt::WindowModal);
    const QStringList lines = box->text().split(QLatin1Char('\n'));
    QCOMPARE(lines.first(), QStringLiteral("Distribution strategy has not been specified."));
    QCOMPARE(lines.size(), w.runSession()->lastValidation().errorCount());
    QVERIFY(box->informativeText().contains(QStringLiteral("one_device")));
    // Hints speak of the form's fields, not of command-line flags.
    QVERIFY2(box->informativeText().contains(QStringLiteral("set “BERT config” to bert_config.json")),
             qPrintable(box->informativeText()));
    QVERIFY(box->informativeText().contains(QStringLiteral("File → Prepare Data…")));
    QVERIFY(!box->informativeText().contains(QStringLiteral("--bert_config_file")));
    QVERIFY2(lines.contains(QStringLiteral("BERT config: no model config was given")), qPrintable(box->text()));
    // The Log under the dialog speaks the same words: no command-line flags, no CLI hints.
    const QString log = w.logText();
    QVERIFY2(log.contains(QStringLiteral("Validation failed:\nDistribution strategy has not been specified.")), qPrintable(log));
    QVERIFY2(log.contains(QStringLiteral("set “BERT config” to bert_config.json")), qPrintable(log));
    QVERIFY2(!log.contains(QStringLiteral("--")), qPrintable(log));
    QVERIFY2(!log.contains(QStringLiteral("bert-workbench-cli")), qPrintable(log));
    QVERIFY(!w.runSession()->controller()->isRunning());
    QCOMPARE(running.count(), 0);
    box->button(QMessageBox::Ok)->click();
    QTRY_VERIFY(!box->isVisible());
}

void tst_MainWindow::everyProblemListedStrategyFirst()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    std::ofstream(o.bert_config_file) << R"({"vocab_size": 100, "hidden_size": 30, "num_attention_heads": 4,
        "hidden_act": "swoosh"})";
    MainWindow w;
    w.setOptions(o);
    w.show();
    QVERIFY(!pressTrain(w));
    const QStringList lines = w.runSession()->validationDialog()->text().split(QLatin1Char('\n'));
    QVERIFY2(lines.size() >= 3, qPrintable(w.runSession()->validationDialog()->text()));
    QCOMPARE(lines.first(), QString::fromLatin1(kNoStrategyMessage));
    QVERIFY(w.runSession()->validationDialog()->text().contains(QStringLiteral("hidden_act")));
    QVERIFY(w.runSession()->validationDialog()->text().contains(QStringLiteral("num_attention_heads")));
    QVERIFY(!w.runSession()->controller()->isRunning());
}

void tst_MainWindow::validConfigurationStartsTraining()
{
    QTemporaryDir dir;
    const TrainingOptions o = writeFixture(dir);
    MainWindow w;
    RecordingRun rec;
    w.runSession()->controller()->setRunFunction([rec](const PreparedRun &prepared_, TrainingObserver &obs, const StopToken &) {
        const TrainingOptions &spec = prepared_.options;
        ++*rec.calls;
        *rec.lastSpec = spec;
        *rec.lastRun = prepared_;
        RunFinished r;
        r.last_step = 16;
        obs.runFinished(r); // ignored: the run function's result is the one end reported
        r.last_step = 17;
        return r;
    });
    w.setOptions(o);
    w.show();
    formOf(w)->strategyPicker()->setCurrentIndex(formOf(w)->strategyPicker()->findText(QStringLiteral("one_device")));
    QSignalSpy finished(w.runSession()->controller(), &TrainingController::finished);
    QVERIFY2(pressTrain(w), w.runSession()->lastValidation().format().c_str());
    QVERIFY(!w.runSession()->lastValidation().hasErrors());
    QVERIFY(!w.runSession()->validationDialog() || !w.runSession()->validationDialog()->isVisible());
    QVERIFY(finished.wait(5000));
    QCOMPARE(rec.calls->load(), 1);
    QCOMPARE(rec.lastSpec->distribution_strategy, std::string("one_device"));
    QCOMPARE(rec.lastSpec->train_data_path, o.train_data_path);
    QCOMPARE(rec.lastSpec->learning_rate, o.learning_rate);
    QCOMPARE(rec.lastSpec->num_train_epochs, o.num_train_epochs);
    // The run arrives prepared (checked once, in the pre-flight job, for training) and the
    // controller reports the end it returned, once.
    QCOMPARE(int(rec.lastRun->purpose), int(RunPurpose::Train));
    QVERIFY(rec.lastRun->ok());
    QVERIFY(rec.lastRun->validation.bert_config.has_value());
    QVERIFY(rec.lastRun->validation.schedule.has_value());
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(0).value<RunFinished>().last_step, int64_t(17));
    QVERIFY(!w.runSession()->runErrorDialog());
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("runStatus"))->text(), QStringLiteral("Completed"));
}

void tst_MainWindow::coachNoteShowsUnderTheProgressBar()
{
    // The coach's notes arrive through the observer (core/advice/coach.h): the line under the
    // progress bar shows the latest, the Log each one, and the run's end lists them.
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "one_device";
    MainWindow w;
    w.runSession()->controller()->setRunFunction([](const PreparedRun &, TrainingObserver &obs, const StopToken &) {
        obs.coachNote({"few_steps", 0, "warning", "the run has only 4 training steps"});
        obs.coachNote({"constant_classifier", 4, "warning", "constant classifier: the model answers ham"});
        obs.coachNote({"plateau", 4, "info", "not learning yet"});
        obs.coachNote({"plateau", 8, "withdrawn", "not learning yet"}); // its condition no longer holds
        RunFinished r;
        r.last_step = 4;
        return r;
    });
    w.setOptions(o);
    w.show();
    auto *line = w.findChild<QLabel *>(QStringLiteral("coachNote"));
    QVERIFY(line);
    QVERIFY(line->isHidden()); // nothing said yet
    QSignalSpy finished(w.runSession()->controller(), &TrainingController::finished);
    QVERIFY(pressTrain(w));
    QVERIFY(finished.wait(5000));
    QVERIFY(line->isVisible());
    QCOMPARE(line->text(), QStringLiteral("<span style='color:#a06000'>Coach, step 4:</span> constant classifier: the "
                                          "model answers ham"));
    QCOMPARE(line->toolTip(), QStringLiteral("step 0: the run has only 4 training steps\n"
                                             "step 4: constant classifier: the model answers ham"));
    QVERIFY(w.logText().contains(QStringLiteral("note: the run has only 4 training steps")));
    QVERIFY(w.logText().contains(QStringLiteral("note withdrawn: not learning yet")));
    // The views show the current set: the withdrawn note is gone from the line, the Evaluation
    // box and the run's end.
    QVERIFY2(w.logText().contains(QStringLiteral("The coach's notes at the end of this run (2):\n"
                                                 "  step 0: the run has only 4 training steps\n"
                                                 "  step 4: constant classifier: the model answers ham")),
             qPrintable(w.logText()));
    QCOMPARE(w.findChild<EvaluationView *>()->warningText(),
             QStringLiteral("constant classifier: the model answers ham"));
    // A new run starts with an empty line.
    w.runSession()->controller()->setRunFunction([](const PreparedRun &, TrainingObserver &, const StopToken &) {
        RunFinished r;
        r.last_step = 4;
        return r;
    });
    QVERIFY(pressTrain(w));
    QVERIFY(finished.wait(5000));
    QVERIFY(line->isHidden());
}

void tst_MainWindow::failingRunShowsErrorDialog()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "one_device";
    MainWindow w;
    w.runSession()->controller()->setRunFunction([](const PreparedRun &, TrainingObserver &obs, const StopToken &) {
        obs.logMessage("step 3: loss = nan");
        RunFinished r;
        r.status = RunStatus::Failed;
        r.last_step = 3;
        r.field = "train.tf_record: record 17";
        r.message = "Loss became NaN at step 3";
        r.hint = "Lower the learning rate (e.g. 2e-5)";
        obs.runFinished(r);
        return r;
    });
    w.setOptions(o);
    w.show();
    QSignalSpy finished(w.runSession()->controller(), &TrainingController::finished);
    QVERIFY(pressTrain(w));
    QVERIFY(finished.wait(5000));
    QMessageBox *box = w.runSession()->runErrorDialog();
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QCOMPARE(box->text(), QStringLiteral("train.tf_record: record 17: Loss became NaN at step 3"));
    QVERIFY(box->informativeText().contains(QStringLiteral("Lower the learning rate")));
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("runStatus"))->text(), QStringLiteral("Failed"));
    QVERIFY(w.logText().contains(QStringLiteral("step 3: loss = nan")));
    QVERIFY(w.logText().contains(QStringLiteral("Run failed")));
    QVERIFY(!w.findChild<QAction *>(QStringLiteral("resumeAction"))->isEnabled());
    QVERIFY(w.findChild<QAction *>(QStringLiteral("trainAction"))->isEnabled());
}

void tst_MainWindow::scheduleFollowsEdits()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir, 3668, 408); // MRPC sizes (GLUE MRPC train/dev; run_classifier step formulas)
    o.train_batch_size = 32;
    o.eval_batch_size = 32;
    o.num_train_epochs = 3;
    MainWindow w;
    w.setOptions(o);
    QString text = scheduleOf(w)->scheduleText();
    QVERIFY2(text.contains(QStringLiteral("floor(3668 / 32)")), qPrintable(text));
    // Each quantity's own line, exactly: 3668 // 32 = 114, × 3 = 342, int(3 × 3668 × 0.1 / 32) = 34.
    const QStringList lines = text.split(QLatin1Char('\n'));
    QVERIFY2(lines.contains(QStringLiteral("steps_per_epoch = 114")), qPrintable(text));
    QVERIFY2(lines.contains(QStringLiteral("total_steps = 342")), qPrintable(text));
    QVERIFY2(lines.contains(QStringLiteral("warmup_steps = 34")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("ceil(408 / 32)")));
    QVERIFY2(lines.contains(QStringLiteral("eval_steps = 13")), qPrintable(text));
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::PlannedLearningRate) > 300, true);
    w.findChild<NumberSpinBox *>(QStringLiteral("train_batch_size"))->setValue(16);
    text = scheduleOf(w)->scheduleText();
    QVERIFY2(text.contains(QStringLiteral("floor(3668 / 16)")) && text.contains(QStringLiteral("= 229")), qPrintable(text));
    QVERIFY(w.isWindowModified());
    w.findChild<NumberSpinBox *>(QStringLiteral("train_batch_size"))->setValue(5000);
    QVERIFY(scheduleOf(w)->scheduleText().contains(QStringLiteral("= 0")) || scheduleOf(w)->scheduleText().contains(QStringLiteral("?")));
}

void tst_MainWindow::presetWritesConfig()
{
    QTemporaryDir dir;
    MainWindow w;
    const QString path = dir.filePath(QStringLiteral("cfg/bert_config.json"));
    QString error;
    QVERIFY2(w.writePresetConfig(0, path, &error), qPrintable(error));
    Diagnostics diag;
    const auto cfg = BertConfig::load(path.toStdString(), diag);
    QVERIFY(cfg);
    QVERIFY(!diag.hasErrors());
    QVERIFY(cfg->sameArchitecture(bertPresets().front().config));
    QCOMPARE(w.options().bert_config_file, path.toStdString());
    QVERIFY2(scheduleOf(w)->modelSummaryText().contains(QStringLiteral("encoder")), qPrintable(scheduleOf(w)->modelSummaryText()));
    QVERIFY(scheduleOf(w)->modelSummaryText().contains(QString::number(bertPresets().front().config.parameterCount(2).total())));
    QVERIFY(scheduleOf(w)->modelSummaryText().contains(QStringLiteral("GFLOPs")));
    // The memory line is the core estimate for this config at the form's batch (no meta data
    // yet: 2 labels, 128 tokens), per training process; bf16 and accumulation change it.
    const TrainingOptions o = w.options();
    // Each part in its own unit (issue 27: not "params 0.0, grads 0.0" GiB for a small model).
    auto plain = [](const QString &html) {
        QTextDocument doc;
        doc.setHtml(html);
        return doc.toPlainText();
    };
    const QString expected = plain(memoryText(estimateTrainingMemory(*cfg, 2, 128, o.train_batch_size, 1, "fp32")));
    QVERIFY2(scheduleOf(w)->modelSummaryText().contains(expected), qPrintable(scheduleOf(w)->modelSummaryText()));
    QVERIFY(expected.contains(QStringLiteral(" MiB")));
    QVERIFY(!scheduleOf(w)->modelSummaryText().contains(QStringLiteral("params 0.0")));
    TrainingOptions accumulated = o;
    accumulated.gradient_accumulation_steps = 4;
    w.setOptions(accumulated);
    const QString smaller = plain(memoryText(estimateTrainingMemory(*cfg, 2, 128, o.train_batch_size, 4, "fp32")));
    QVERIFY(smaller != expected);
    QVERIFY2(scheduleOf(w)->modelSummaryText().contains(smaller), qPrintable(scheduleOf(w)->modelSummaryText()));
    QVERIFY(!w.writePresetConfig(999, path));
}

void tst_MainWindow::projectSaveOpenAndTitle()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "mirrored";
    o.seed = 1234;
    MainWindow w;
    w.setOptions(o, true);
    QVERIFY(w.isWindowModified());
    const QString path = dir.filePath(QStringLiteral("spam.bwproj"));
    QVERIFY(w.saveProject(path));
    QVERIFY(!w.isWindowModified());
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("spam[*]")));
    w.findChild<NumberSpinBox *>(QStringLiteral("seed"))->setValue(1);
    QVERIFY(w.isWindowModified());

    MainWindow other;
    QString error;
    QVERIFY2(other.openProject(path, &error), qPrintable(error));
    QCOMPARE(other.options().distribution_strategy, std::string("mirrored"));
    QCOMPARE(other.options().seed, int64_t(1234));
    QCOMPARE(other.options().train_data_path, o.train_data_path);
    QCOMPARE(formOf(other)->strategyPicker()->currentText(), QStringLiteral("mirrored"));
    QVERIFY(!other.isWindowModified());
    QVERIFY(!other.openProject(dir.filePath(QStringLiteral("missing.bwproj")), &error));
    QVERIFY(error.contains(QStringLiteral("missing.bwproj")));
}

void tst_MainWindow::liveMetricsReachPlotAndEvaluation()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "one_device";
    MainWindow w;
    w.runSession()->controller()->setRunFunction([](const PreparedRun &, TrainingObserver &obs, const StopToken &) {
        RunStarted s;
        s.total_steps = 16;
        s.device = "cpu";
        obs.runStarted(s);
        for (int i = 1; i <= 16; ++i) {
            StepMetrics m;
            m.step = i;
            m.total_steps = 16;
            m.loss = 0.7 - 0.01 * i;
            m.learning_rate = 1e-3;
            m.wall_time = 1000 + i;
            m.examples_per_second = 80;
            obs.stepCompleted(m);
            if (i % 8 == 0) {
                EvalMetrics e;
                e.step = i;
                e.eval_loss = 0.6;
                e.eval_accuracy = 0.75;
                e.confusion = {{6, 2}, {2, 6}};
                e.num_examples = 16;
                obs.evaluationCompleted(e);
            }
        }
        RunFinished r;
        r.last_step = 16;
        obs.runFinished(r);
        return r;
    });
    w.setOptions(o);
    w.show();
    QSignalSpy finished(w.runSession()->controller(), &TrainingController::finished);
    QVERIFY(pressTrain(w));
    QVERIFY(finished.wait(5000));
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::TrainLoss), 16);
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::EvalLoss), 2);
    QCOMPARE(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::EvalAccuracy), 2);
    QCOMPARE(w.findChild<EvaluationView *>()->confusionTable()->rowCount(), 2);
    QCOMPARE(w.findChild<EvaluationView *>()->confusionTable()->item(1, 1)->text(), QStringLiteral("6"));
    QCOMPARE(w.findChild<EvaluationView *>()->classTable()->item(0, 0)->text(), QStringLiteral("0.7500"));
    auto *progress = w.findChild<QProgressBar *>(QStringLiteral("progress"));
    QCOMPARE(progress->value(), 16);
    QCOMPARE(progress->maximum(), 16);
}

void tst_MainWindow::closeDuringTrainingAsksThenStops()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "one_device";
    MainWindow w;
    auto checkpointed = std::make_shared<std::atomic<bool>>(false);
    w.runSession()->controller()->setRunFunction([checkpointed](const PreparedRun &, TrainingObserver &obs, const StopToken &stop) {
        int64_t step = 0;
        while (!stop.stopRequested()) {
            StepMetrics m;
            m.step = ++step;
            m.total_steps = 1000000;
            m.loss = 1;
            obs.stepCompleted(m);
            simulateStep();
        }
        *checkpointed = true;
        obs.checkpointSaved({step, "ckpt"});
        RunFinished r;
        r.status = RunStatus::Cancelled;
        r.last_step = step;
        r.last_checkpoint = "ckpt-" + std::to_string(step);
        obs.runFinished(r);
        return r;
    });
    w.setOptions(o);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(pressTrain(w));
    QTRY_VERIFY(w.findChild<LossPlot *>()->pointCount(LossPlot::Series::TrainLoss) >= 3);
    QVERIFY(!w.close()); // asks first
    auto *closeBox = w.findChild<QMessageBox *>(QStringLiteral("closeDialog"));
    QVERIFY(closeBox && closeBox->isVisible());
    QVERIFY(w.runSession()->controller()->isRunning());
    closeBox->button(QMessageBox::Yes)->click();
    QTRY_VERIFY(!w.runSession()->controller()->isRunning());
    QVERIFY(checkpointed->load());
    QTRY_VERIFY(!w.isVisible());
}

void tst_MainWindow::resetToDefaults()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "one_device";
    o.learning_rate = 0.5;
    o.seed = 3;
    MainWindow w;
    w.setOptions(o);
    w.resetToDefaults();
    const TrainingOptions now = w.options();
    QCOMPARE(now.learning_rate, TrainingOptions{}.learning_rate);
    QCOMPARE(now.seed, TrainingOptions{}.seed);
    QCOMPARE(now.train_batch_size, TrainingOptions{}.train_batch_size);
    QCOMPARE(now.bert_config_file, o.bert_config_file); // files kept
    QCOMPARE(now.distribution_strategy, std::string("one_device"));
}

void tst_MainWindow::localWorkersFollowStrategy()
{
    MainWindow w;
    auto *workers = w.findChild<NumberSpinBox *>(QStringLiteral("num_local_workers"));
    QVERIFY(workers);
    QVERIFY(!workers->isEnabled()); // no strategy chosen yet
    QCOMPARE(w.findChild<QProgressBar *>(QStringLiteral("progress"))->text(), QStringLiteral("no run yet"));

    formOf(w)->strategyPicker()->setCurrentText(QStringLiteral("multi_worker_mirrored"));
    QVERIFY(workers->isEnabled());
    workers->setValue(2);
    QCOMPARE(w.options().num_local_workers, 2);
    QVERIFY2(w.commandLine().startsWith(QStringLiteral(
                 "bert-workbench-cli train --distribution_strategy=multi_worker_mirrored --num_local_workers=2")),
             qPrintable(w.commandLine()));

    auto *timeout = w.findChild<NumberSpinBox *>(QStringLiteral("worker_timeout"));
    QVERIFY(timeout && timeout->isEnabled());
    QCOMPARE(timeout->value(), qint64(300));
    timeout->setValue(30);
    QCOMPARE(w.options().worker_timeout, 30);
    QVERIFY(w.commandLine().contains(QStringLiteral(" --worker_timeout=30")));

    formOf(w)->strategyPicker()->setCurrentText(QStringLiteral("one_device"));
    QVERIFY(!workers->isEnabled());
    QVERIFY(!timeout->isEnabled());
    QCOMPARE(w.options().num_local_workers, 0);
    QVERIFY(!w.commandLine().contains(QStringLiteral("num_local_workers")));
}

namespace {

/// Two runs' TensorBoard logs below <root>/logs: a Keras-style one (logs/keras-run: train/ and
/// validation/ with epoch_* tags) and one of ours (logs/ours/summaries/{train,validation}).
/// Returns the folder of ours.
QString writeTensorBoardLogs(const QTemporaryDir &dir)
{
    // A Keras-style run: train/ and validation/ with epoch_* tags, below logs/keras-run.
    const QString keras = dir.filePath(QStringLiteral("logs/keras-run"));
    {
        QDir().mkpath(keras + QStringLiteral("/train"));
        QDir().mkpath(keras + QStringLiteral("/validation"));
        EventWriter train((keras + QStringLiteral("/train")).toStdString(), 1000);
        train.addScalar("epoch_loss", 1, 0.75, 1001);
        train.addScalar("epoch_loss", 2, 0.5, 1002);
        train.addScalar("epoch_learning_rate", 1, 0.001, 1001);
        EventWriter val((keras + QStringLiteral("/validation")).toStdString(), 1000);
        val.addScalar("epoch_loss", 2, 0.625, 1002);
        val.addScalar("epoch_accuracy", 2, 0.875, 1002);
    }
    // One of ours: <model_dir>/summaries/{train,validation}.
    const QString ours = dir.filePath(QStringLiteral("logs/ours"));
    {
        SummaryWriter w(ours.toStdString());
        StepMetrics m;
        m.step = 10;
        m.loss = 0.25;
        m.learning_rate = 5e-4;
        m.wall_time = 2000;
        w.writeTrain(m);
        EvalMetrics e;
        e.step = 10;
        e.eval_loss = 0.375;
        e.eval_accuracy = 0.9375;
        e.wall_time = 2001;
        w.writeEval(e);
    }
    return ours;
}

} // namespace

void tst_MainWindow::openTensorBoardLogs()
{
    QTemporaryDir dir;
    const QString ours = writeTensorBoardLogs(dir);

    QString error;
    const std::vector<RunHistory> runs = RunHistory::fromTensorBoard(dir.filePath(QStringLiteral("logs")), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(runs.size(), size_t(2));
    const RunHistory &k = runs[0].name == QLatin1String("keras-run") ? runs[0] : runs[1];
    const RunHistory &o = runs[0].name == QLatin1String("ours") ? runs[0] : runs[1];
    QCOMPARE(k.name, QStringLiteral("keras-run"));
    QCOMPARE(o.name, QStringLiteral("ours")); // summaries/ is skipped in the name
    QCOMPARE(k.trainStep, (std::vector<double>{1, 2}));
    QCOMPARE(k.trainLoss, (std::vector<double>{0.75, 0.5}));
    QCOMPARE(float(k.learningRate[0]), 0.001f);
    QVERIFY(std::isnan(k.learningRate[1])); // no value logged at step 2
    QCOMPARE(k.evalStep, (std::vector<double>{2}));
    QCOMPARE(k.evalLoss, (std::vector<double>{0.625}));
    QCOMPARE(k.evalAccuracy, (std::vector<double>{0.875}));
    QCOMPARE(o.trainLoss, (std::vector<double>{0.25}));
    QCOMPARE(o.evalAccuracy, (std::vector<double>{0.9375}));

    MainWindow w;
    auto *table = w.findChild<QTableWidget *>(QStringLiteral("runsTable"));
    QVERIFY(table);
    // "ours" is listed first through its metrics.jsonl; opening its TensorBoard logs must not
    // add a second row (or a second overlay) for the same run.
    {
        QFile metrics(ours + QStringLiteral("/metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::WriteOnly));
        metrics.write(R"({"kind":"train","step":10,"loss":0.25,"learning_rate":0.0005,"examples_per_second":1,"wall_time":2000})"
                      "\n");
    }
    QString addError;
    QVERIFY2(w.findChild<RunsTable *>()->addRun(ours + QStringLiteral("/metrics.jsonl"), true, &addError), qPrintable(addError));
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(w.openTensorBoardLogs(dir.filePath(QStringLiteral("logs"))), 2);
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(w.findChild<LossPlot *>()->comparisonRunCount(), 2);
    QCOMPARE(table->item(0, 0)->checkState(), Qt::Checked); // overlaid at once
    QStringList finalAccuracies{table->item(0, 7)->text(), table->item(1, 7)->text()};
    finalAccuracies.sort();
    QCOMPARE(finalAccuracies, (QStringList{QStringLiteral("0.875"), QStringLiteral("0.9375")}));

    // A folder without event files: a clear message, nothing added.
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("empty"))));
    QCOMPARE(w.openTensorBoardLogs(dir.filePath(QStringLiteral("empty"))), 0);
    QCOMPARE(table->rowCount(), 2);
    auto *box = w.findChild<QMessageBox *>(QStringLiteral("tensorBoardError"));
    QVERIFY(box);
    QVERIFY2(box->text().contains(QStringLiteral("empty")), qPrintable(box->text()));
    box->close();
}

void tst_MainWindow::projectKeepsOptionsWithoutWidgets()
{
    // The form has no widgets for these; opening and re-saving a project must keep them.
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "multi_worker_mirrored";
    o.num_threads = 3;
    o.mode = "predict";
    o.worker_hosts = "10.0.0.1:2222,10.0.0.2:2222";
    o.task_index = 1;
    o.metrics_file = dir.filePath(QStringLiteral("elsewhere/metrics.jsonl")).toStdString();
    o.steps_per_loop = 5;
    const QString first = dir.filePath(QStringLiteral("first.bwproj"));
    ProjectFile::save(first, o);

    MainWindow w;
    QString error;
    QVERIFY2(w.openProject(first, &error), qPrintable(error));
    const QString second = dir.filePath(QStringLiteral("second.bwproj"));
    QVERIFY2(w.saveProject(second, &error), qPrintable(error));
    Diagnostics diag;
    const TrainingOptions back = ProjectFile::load(second, diag);
    QVERIFY2(diag.empty(), diag.format().c_str());
    QCOMPARE(back.num_threads, 3);
    QCOMPARE(back.mode, std::string("predict"));
    QCOMPARE(back.worker_hosts, o.worker_hosts);
    QCOMPARE(back.task_index, 1);
    QCOMPARE(back.metrics_file, o.metrics_file);
    QCOMPARE(back.steps_per_loop.value_or(0), int64_t(5));
    QCOMPARE(ProjectFile::toJson(back), ProjectFile::toJson(o));
    QVERIFY2(w.commandLine().contains(QStringLiteral(" --num_threads=3")), qPrintable(w.commandLine()));
}

void tst_MainWindow::unknownProjectKeyIsWarned()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("old.bwproj"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format":"bert-workbench-project","version":1,"options":{"seed":5,"colour":"red"}})");
    f.close();
    MainWindow w;
    QString error;
    QVERIFY2(w.openProject(path, &error), qPrintable(error));
    QCOMPARE(w.options().seed, int64_t(5));
    QVERIFY2(w.logText().contains(QStringLiteral("warning: options.colour: unknown setting, ignored")), qPrintable(w.logText()));
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("1 warning")), qPrintable(w.statusBar()->currentMessage()));
}

void tst_MainWindow::missingModelDirIsAValidationError()
{
    QTemporaryDir dir;
    TrainingOptions o = writeFixture(dir);
    o.distribution_strategy = "one_device";
    o.model_dir.clear();
    MainWindow w;
    w.setOptions(o);
    w.show();
    QVERIFY(!pressTrain(w));
    QCOMPARE(w.runSession()->lastValidation().errorCount(), 1);
    QCOMPARE(w.runSession()->lastValidation().items().front().field, std::string("model_dir"));
    QCOMPARE(w.runSession()->validationDialog()->text(), QStringLiteral("Model directory: no model_dir was given"));
    QVERIFY2(w.runSession()->validationDialog()->informativeText().contains(
                 QStringLiteral("fill in “Model directory”")),
             qPrintable(w.runSession()->validationDialog()->informativeText()));
    QVERIFY(!w.runSession()->controller()->isRunning());
}

// Issue 22: File → Prepare Data… opens on the form's "Start from" model (its vocabulary and
// casing), and the form says what that choice fills.
void tst_MainWindow::prepareDataFollowsStartFrom()
{
    MainWindow w;
    TrainingOptions o;
    o.pretrained_model = "google/bert_uncased_L-2_H-128_A-2";
    w.setOptions(o);
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("startFromNote"))->text(),
             QStringLiteral("config, vocab, casing and weights from google/bert_uncased_L-2_H-128_A-2"));
    PrepareDataDialog *d = w.openPrepareData();
    QCOMPARE(d->pretrainedModel(), QStringLiteral("google/bert_uncased_L-2_H-128_A-2"));
    QCOMPARE(d->findChild<QComboBox *>(QStringLiteral("pretrainedModel"))->currentText(),
             QStringLiteral("BERT-Tiny (google/bert_uncased_L-2_H-128_A-2)"));
    QCOMPARE(d->findChild<QLabel *>(QStringLiteral("pretrainedModelNote"))->text(),
             QStringLiteral("Vocabulary and casing from google/bert_uncased_L-2_H-128_A-2."));
    d->close();
    w.setOptions(TrainingOptions{});
    QCOMPARE(w.openPrepareData()->pretrainedModel(), QString()); // random weights: the Vocabulary field
    QCOMPARE(w.findChild<QLabel *>(QStringLiteral("startFromNote"))->text(),
             QStringLiteral("Random weights: the model config and the vocabulary are the files below."));
}

// Issue 27: with random weights, Prepare Data opens with the vocabulary of the data the form
// trains on now (prepare_report.json beside its meta data) and says where it came from.
void tst_MainWindow::prepareDataTakesTheCurrentVocabulary()
{
    QTemporaryDir dir;
    const QString vocab = dir.filePath(QStringLiteral("vocab.txt"));
    QFile v(vocab);
    QVERIFY(v.open(QIODevice::WriteOnly));
    v.write("[PAD]\n[UNK]\n[CLS]\n[SEP]\n");
    v.close();
    QFile report(dir.filePath(QStringLiteral("prepare_report.json")));
    QVERIFY(report.open(QIODevice::WriteOnly));
    report.write(QStringLiteral("{\"vocab_file\": \"%1\", \"do_lower_case\": true}\n").arg(vocab).toUtf8());
    report.close();
    QSettings().remove(QStringLiteral("prepareData")); // no values remembered from an earlier start
    MainWindow w;
    TrainingOptions o;
    o.input_meta_data_path = dir.filePath(QStringLiteral("input_meta_data.json")).toStdString();
    w.setOptions(o);
    PrepareDataDialog *d = w.openPrepareData();
    const auto *field = d->findChild<QLineEdit *>(QStringLiteral("vocabFile"));
    QVERIFY(field);
    QCOMPARE(field->text(), vocab);
    QCOMPARE(d->findChild<QLabel *>(QStringLiteral("vocabularyNote"))->text(),
             QStringLiteral("Filled in from the current data (input_meta_data.json)."));
    d->close();
}

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
