// SPDX-License-Identifier: Apache-2.0
// A run owns its random state (issue 21, section 2), in the window: a run trained while
// Try it loads models and classifies and the learning-rate finder runs beside it is exactly
// the same run trained alone (every step's loss and the final weights, bit for bit).
//
// Each training step waits until Try it has shown one more result (from a freshly loaded
// model: the chosen checkpoint alternates) and the range test has taken one more step, so
// that every step of the run interleaves with both jobs whatever the machine's speed.
#include "ui/dialogs/lrfinddialog.h"
#include "ui/window/mainwindow.h"
#include "ui/window/runsession.h"
#include "ui/runs/trainingcontroller.h"
#include "ui/tryit/tryitpanel.h"
#include "core/launch/trainer.h"
#include "support/randomnessrun.h"
#include "support/recordingobserver.h"
#include "tinyrun.h"

#include <QSignalSpy>
#include <QTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>

using namespace wb;

namespace {

constexpr int kWaitMs = 120000;
/// The most one training step waits for the other jobs (a hang guard, not a timing check).
constexpr auto kGateWait = std::chrono::seconds(120);

/// Counts what the GUI side has done; a training step waits for one more of each.
struct Gate
{
    std::mutex mutex;
    std::condition_variable changed;
    int64_t tryIt = 0, lrFind = 0;
    bool open = true;     ///< true: steps never wait (the run alone)
    bool starved = false; ///< a wait ran into kGateWait

    void tick(int64_t Gate::*counter)
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            ++(this->*counter);
        }
        changed.notify_all();
    }
    void release()
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            open = true;
        }
        changed.notify_all();
    }
};

/// Forwards every event of the real run to the window's observer; after each step waits at
/// the gate.
struct GatedObserver : TrainingObserver
{
    TrainingObserver &to;
    Gate &gate;
    int64_t seenTryIt = 0, seenLrFind = 0;
    GatedObserver(TrainingObserver &o, Gate &g) : to(o), gate(g) {}
    void runStarted(const RunStarted &s) override { to.runStarted(s); }
    void stepCompleted(const StepMetrics &m) override
    {
        to.stepCompleted(m);
        std::unique_lock<std::mutex> lock(gate.mutex);
        const auto ready = [&] { return gate.open || (gate.tryIt > seenTryIt && gate.lrFind > seenLrFind); };
        if (!gate.changed.wait_for(lock, kGateWait, ready))
            gate.starved = true;
        seenTryIt = gate.tryIt;
        seenLrFind = gate.lrFind;
    }
    void evaluationCompleted(const EvalMetrics &m) override { to.evaluationCompleted(m); }
    void checkpointSaved(const CheckpointSaved &c) override { to.checkpointSaved(c); }
    void logMessage(const std::string &line) override { to.logMessage(line); }
    void runFinished(const RunFinished &r) override { to.runFinished(r); }
};

/// What one run in the window produced.
struct WindowRun
{
    RunFinished finished;
    std::map<int64_t, double> losses; ///< step → loss (steps_per_loop 1)
};

} // namespace

class tst_WindowRandomness : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void tryItAndLrFindDoNotChangeTheRun();

private:
    /// Trains `o` in a new window through the real Trainer. With `busy`, Try it and the
    /// range test run beside it, each step interleaved with both.
    /// Fails the test function (QTRY_…) when a job does not end.
    void trainInWindow(const TrainingOptions &o, bool busy, WindowRun &out);

    QTemporaryDir m_dir;
    std::string m_root;
    TrainingOptions m_base;
    std::string m_trained; ///< a finished run's model_dir: Try it's models
};

void tst_WindowRandomness::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_root = m_dir.path().toStdString();
    wbtest::TinyRun tiny; // 64 records, batch 8, 2 epochs: 16 steps, checkpoints at 8 and 16
    m_base = wbtest::writeDropoutRun(m_root, tiny, 5);
    m_base.lr_find_steps = 8;
    m_base.lr_find_start = 1e-6;
    m_base.lr_find_end = 1e-3;
    TrainingOptions t = m_base;
    t.model_dir = m_root + "/trained";
    wbtest::RecordingObserver obs;
    StopToken none;
    Trainer trainer;
    const RunFinished r = trainer.run(t, obs, none);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    m_trained = t.model_dir;
}

void tst_WindowRandomness::trainInWindow(const TrainingOptions &o, bool busy, WindowRun &out)
{
    // Everything the window's callbacks use outlives the window (declared before it).
    Gate gate;
    gate.open = !busy;
    TryItPanel *tryIt = nullptr;
    LrFindDialog *lrFind = nullptr;
    bool running = busy;
    const QString checkpoints[2] = {QString::fromStdString(m_trained + "/ckpt-8"),
                                    QString::fromStdString(m_trained + "/ckpt-16")};
    int nextCheckpoint = 0;
    MainWindow w;
    w.runSession()->controller()->setRunFunction([&gate](const PreparedRun &run, TrainingObserver &obs, const StopToken &stop) {
        GatedObserver gated(obs, gate);
        Trainer trainer;
        return trainer.execute(run, gated, stop);
    });
    w.setOptions(o);
    w.show();
    connect(w.runSession()->controller(), &TrainingController::stepCompleted, &w,
            [&out](const StepMetrics &m) { out.losses[m.step] = m.loss; });
    QSignalSpy finished(w.runSession()->controller(), &TrainingController::finished);

    tryIt = w.findChild<TryItPanel *>();
    // Try it: every shown result counts, then the other checkpoint is loaded and classifies.
    const auto classifyAgain = [&] {
        tryIt->setChosenModel(checkpoints[nextCheckpoint]);
        nextCheckpoint = 1 - nextCheckpoint;
        tryIt->setTexts(QStringLiteral("w5 w60 w7"));
        tryIt->refreshNow();
    };
    if (busy) {
        connect(tryIt, &TryItPanel::outcomeShown, tryIt, [&] {
            if (!tryIt->shownProbabilities().empty())
                gate.tick(&Gate::tryIt);
            if (running)
                classifyAgain();
        });
        // The range test starts when training does, and again whenever it ends meanwhile.
        connect(w.runSession()->controller(), &TrainingController::runStarted, &w, [&] {
            w.showTab(QStringLiteral("tryItTab"));
            classifyAgain();
            lrFind = w.openLrFinder();
            connect(lrFind, &LrFindDialog::stepShown, lrFind, [&] { gate.tick(&Gate::lrFind); });
            connect(lrFind, &LrFindDialog::rangeTestFinished, lrFind, [&] {
                // Once the dialog has finished with this one (a queued call).
                QTimer::singleShot(0, lrFind, [&] {
                    if (running)
                        lrFind->start();
                });
            });
            if (!lrFind->isRunning())
                lrFind->start();
        });
    }
    if (!w.train()) {
        gate.release();
        return;
    }
    if (!finished.wait(kWaitMs))
        gate.release();
    running = false;
    gate.release();
    if (lrFind) {
        lrFind->stop();
        QTRY_VERIFY_WITH_TIMEOUT(!lrFind->isRunning(), kWaitMs);
    }
    QTRY_VERIFY_WITH_TIMEOUT(!tryIt->isBusy(), kWaitMs);
    if (!finished.isEmpty())
        out.finished = finished.front().front().value<RunFinished>();
    if (busy) {
        std::lock_guard<std::mutex> lock(gate.mutex);
        if (gate.starved)
            out.finished.message = "a step waited in vain for Try it or the range test";
        else if (gate.tryIt < 16 || gate.lrFind < 16)
            out.finished.message = "the jobs did not interleave with every step";
    }
}

void tst_WindowRandomness::tryItAndLrFindDoNotChangeTheRun()
{
    TrainingOptions alone = m_base;
    alone.model_dir = m_root + "/alone";
    WindowRun solo;
    trainInWindow(alone, false, solo);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(solo.finished.status == RunStatus::Completed, solo.finished.message.c_str());
    QCOMPARE(int(solo.losses.size()), 16);

    TrainingOptions beside = m_base;
    beside.model_dir = m_root + "/busy";
    WindowRun busy;
    trainInWindow(beside, true, busy);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(busy.finished.status == RunStatus::Completed, busy.finished.message.c_str());
    QVERIFY2(busy.finished.message.rfind("training completed", 0) == 0, busy.finished.message.c_str());
    QVERIFY(std::ifstream(beside.model_dir + "/lr_find.json").good()); // the range test did run

    QCOMPARE(busy.losses, solo.losses); // every step's loss, bit for bit
    const std::string diff = wbtest::weightsDiffer(alone.model_dir + "/ckpt-16", beside.model_dir + "/ckpt-16");
    QVERIFY2(diff.empty(), diff.c_str());
}

QTEST_MAIN(tst_WindowRandomness)
#include "tst_windowrandomness.moc"
