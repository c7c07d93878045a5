// SPDX-License-Identifier: Apache-2.0
#include "ui/runs/trainingcontroller.h"

#include "tinyrun.h"

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>

using namespace wb;

namespace {

double now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A stand-in for the Trainer: `steps` busy steps of ~2 ms each, reporting every step,
// honouring the stop token, resuming from `checkpointStep` (the "latest checkpoint").
struct FakeTrainer
{
    int steps = 50;
    std::atomic<int> checkpointStep{0};
    std::atomic<int> runs{0};

    RunFinished operator()(const PreparedRun &prepared_, TrainingObserver &obs, const StopToken &stop) {
        const TrainingOptions &spec = prepared_.options;
        ++runs;
        RunStarted start;
        start.total_steps = steps;
        start.start_step = checkpointStep;
        start.model_dir = spec.model_dir;
        start.device = "cpu";
        obs.runStarted(start);
        RunFinished r;
        int step = checkpointStep;
        while (step < steps) {
            if (stop.stopRequested()) {
                checkpointStep = step;
                r.status = RunStatus::Cancelled;
                r.last_step = step;
                r.last_checkpoint = spec.model_dir + "/ckpt-" + std::to_string(step);
                obs.checkpointSaved({step, r.last_checkpoint});
                obs.runFinished(r);
                return r;
            }
            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
            volatile double x = 0;
            while (std::chrono::steady_clock::now() < until)
                x = x + std::sqrt(double(step) + x);
            ++step;
            StepMetrics m;
            m.step = step;
            m.total_steps = steps;
            m.loss = 1.0 / step;
            m.wall_time = now();
            obs.stepCompleted(m);
        }
        checkpointStep = step;
        r.status = RunStatus::Completed;
        r.last_step = step;
        obs.logMessage("done");
        obs.runFinished(r);
        return r;
    }
};

/// A run for a fake run function: the options only (the fakes check nothing).
PreparedRun fakeRun(const TrainingOptions &o)
{
    PreparedRun run;
    run.options = o;
    return run;
}

} // namespace

class tst_TrainingController : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void completesAndDeliversEveryStepOnGuiThread();
    void stopCancelsAndResumeContinues();
    void failingRunReportsMessage();
    void throwingRunEndsFailed();
    void destructionDuringRunStops();
    void realTrainerReportsFinished();
    void realTinyRunStopAndResume();
};

void tst_TrainingController::completesAndDeliversEveryStepOnGuiThread()
{
    TrainingController c;
    auto fake = std::make_shared<FakeTrainer>();
    fake->steps = 20;
    c.setRunFunction([fake](const PreparedRun &prepared_, TrainingObserver &o, const StopToken &t) {
        return (*fake)(prepared_, o, t);
    });
    QSignalSpy steps(&c, &TrainingController::stepCompleted);
    QSignalSpy finished(&c, &TrainingController::finished);
    QSignalSpy log(&c, &TrainingController::logMessage);
    bool onGuiThread = true;
    connect(&c, &TrainingController::stepCompleted, this,
            [&] { onGuiThread = onGuiThread && QThread::currentThread() == thread(); });
    TrainingOptions o;
    o.model_dir = "/tmp/x";
    QVERIFY(c.start(fakeRun(o)));
    QVERIFY(c.isRunning());
    QVERIFY(!c.start(fakeRun(o))); // one run at a time
    QVERIFY(finished.wait(10000));
    QCOMPARE(steps.count(), 20);
    QCOMPARE(steps.last().at(0).value<StepMetrics>().step, 20);
    QCOMPARE(finished.first().at(0).value<RunFinished>().status, RunStatus::Completed);
    QCOMPARE(log.count(), 1);
    QVERIFY(onGuiThread);
    QVERIFY(!c.isRunning());
    QVERIFY(!c.canResume());
}

void tst_TrainingController::stopCancelsAndResumeContinues()
{
    TrainingController c;
    auto fake = std::make_shared<FakeTrainer>();
    fake->steps = 100000; // would take minutes: only a stop ends it
    c.setRunFunction([fake](const PreparedRun &prepared_, TrainingObserver &o, const StopToken &t) {
        return (*fake)(prepared_, o, t);
    });
    QSignalSpy steps(&c, &TrainingController::stepCompleted);
    QSignalSpy finished(&c, &TrainingController::finished);
    QSignalSpy checkpoints(&c, &TrainingController::checkpointSaved);
    TrainingOptions o;
    o.model_dir = "/tmp/run";
    QVERIFY(c.start(fakeRun(o)));
    QTRY_VERIFY_WITH_TIMEOUT(steps.count() >= 5, 10000);
    c.requestStop();
    QVERIFY(c.isStopRequested());
    QVERIFY(finished.wait(10000));
    const RunFinished r = finished.first().at(0).value<RunFinished>();
    QCOMPARE(r.status, RunStatus::Cancelled);
    QVERIFY(r.last_step >= 5);
    QCOMPARE(checkpoints.count(), 1);
    QVERIFY(c.canResume());

    // Resume: same spec, continues after the checkpoint step.
    fake->steps = int(r.last_step) + 10;
    QSignalSpy started(&c, &TrainingController::runStarted);
    steps.clear();
    QVERIFY(c.resume());
    QVERIFY(finished.wait(10000));
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.first().at(0).value<RunStarted>().start_step, r.last_step);
    QCOMPARE(started.first().at(0).value<RunStarted>().model_dir, std::string("/tmp/run"));
    QCOMPARE(steps.count(), 10);
    QCOMPARE(steps.first().at(0).value<StepMetrics>().step, r.last_step + 1);
    QCOMPARE(finished.last().at(0).value<RunFinished>().status, RunStatus::Completed);
    QCOMPARE(fake->runs.load(), 2);
}

void tst_TrainingController::failingRunReportsMessage()
{
    TrainingController c;
    c.setRunFunction([](const PreparedRun &, TrainingObserver &o, const StopToken &) {
        RunFinished r;
        r.status = RunStatus::Failed;
        r.message = "loss is NaN at step 3";
        r.hint = "lower the learning rate";
        o.runFinished(r);
        return r;
    });
    QSignalSpy finished(&c, &TrainingController::finished);
    QVERIFY(c.start(fakeRun(TrainingOptions{})));
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.count(), 1);
    const RunFinished r = finished.first().at(0).value<RunFinished>();
    QCOMPARE(r.status, RunStatus::Failed);
    QCOMPARE(r.message, std::string("loss is NaN at step 3"));
    QCOMPARE(r.hint, std::string("lower the learning rate"));
    QVERIFY(!c.canResume());
}

void tst_TrainingController::throwingRunEndsFailed()
{
    TrainingController c;
    c.setRunFunction([](const PreparedRun &, TrainingObserver &, const StopToken &) -> RunFinished {
        throw std::runtime_error("boom");
    });
    QSignalSpy finished(&c, &TrainingController::finished);
    QVERIFY(c.start(fakeRun(TrainingOptions{})));
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.first().at(0).value<RunFinished>().status, RunStatus::Failed);
    QCOMPARE(finished.first().at(0).value<RunFinished>().message, std::string("boom"));
    QVERIFY(!c.isRunning());
}

void tst_TrainingController::destructionDuringRunStops()
{
    auto fake = std::make_shared<FakeTrainer>();
    fake->steps = 100000;
    {
        TrainingController c;
        c.setRunFunction([fake](const PreparedRun &prepared_, TrainingObserver &o, const StopToken &t) {
        return (*fake)(prepared_, o, t);
    });
        QSignalSpy steps(&c, &TrainingController::stepCompleted);
        QVERIFY(c.start(fakeRun(TrainingOptions{})));
        QTRY_VERIFY_WITH_TIMEOUT(steps.count() >= 2, 10000);
    } // destructor: stop token, quit, wait
    QVERIFY(fake->checkpointStep.load() >= 2); // stopped through the token, "checkpoint" written
    QVERIFY(fake->checkpointStep.load() < 100000);
}

void tst_TrainingController::realTrainerReportsFinished()
{
    // The default run function (wb::Trainer) always ends in exactly one finished signal,
    // even for a spec that cannot run.
    TrainingController c;
    QSignalSpy finished(&c, &TrainingController::finished);
    TrainingOptions o; // no strategy, no files
    QVERIFY(c.start(prepareRun(o, RunPurpose::Train)));
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().at(0).value<RunFinished>().status, RunStatus::Failed);
    QVERIFY(!finished.first().at(0).value<RunFinished>().message.empty());
}

void tst_TrainingController::realTinyRunStopAndResume()
{
    QTemporaryDir dir;
    TrainingOptions o = wbtest::writeTinyRun(dir, 1024, 32); // 128 steps/epoch × 2 epochs
    TrainingController c;
    QSignalSpy started(&c, &TrainingController::runStarted);
    QSignalSpy steps(&c, &TrainingController::stepCompleted);
    QSignalSpy checkpoints(&c, &TrainingController::checkpointSaved);
    QSignalSpy finished(&c, &TrainingController::finished);
    // Stop as soon as the first step arrives (a queued request, like the Stop button).
    connect(&c, &TrainingController::stepCompleted, &c, &TrainingController::requestStop);
    QVERIFY(c.start(prepareRun(o, RunPurpose::Train)));
    QVERIFY(finished.wait(120000));
    RunFinished first = finished.first().at(0).value<RunFinished>();
    QVERIFY2(first.status == RunStatus::Cancelled, first.message.c_str());
    QCOMPARE(started.count(), 1);
    QVERIFY(steps.count() >= 1);
    QVERIFY(checkpoints.count() >= 1);
    QVERIFY(!first.last_checkpoint.empty());
    QVERIFY(first.last_step >= 1 && first.last_step < 256);
    QVERIFY(QDir(QString::fromStdString(o.model_dir)).exists(QStringLiteral("metrics.jsonl")));

    // Resume continues from the checkpoint in the same model_dir and completes.
    disconnect(&c, &TrainingController::stepCompleted, &c, &TrainingController::requestStop);
    QVERIFY(c.canResume());
    started.clear();
    steps.clear();
    QVERIFY(c.resume());
    QVERIFY(finished.wait(120000));
    const RunFinished second = finished.last().at(0).value<RunFinished>();
    QVERIFY2(second.status == RunStatus::Completed, second.message.c_str());
    QCOMPARE(started.first().at(0).value<RunStarted>().start_step, first.last_step);
    QCOMPARE(second.last_step, int64_t(256));
    QVERIFY(steps.first().at(0).value<StepMetrics>().step > first.last_step);
}

QTEST_GUILESS_MAIN(tst_TrainingController)
#include "tst_trainingcontroller.moc"
