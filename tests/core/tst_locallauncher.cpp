// SPDX-License-Identifier: Apache-2.0
// The launcher with /bin/sh as the "worker": fast, and each rank's behaviour is scripted.
#include "core/launch/chiefstream.h"
#include "core/launch/locallauncher.h"
#include "support/recordingobserver.h"

#include <QtTest>

#include <chrono>

using namespace wb;

namespace {

struct Captured
{
    QStringList out, err;
};

LocalLaunchResult launch(const std::string &script, int workers, Captured &c,
                         const std::function<void(LocalLauncher &, const Captured &)> &onLine = {})
{
    LocalLaunchOptions o;
    o.executable = "/bin/sh";
    o.args = {"-c", script};
    o.num_workers = workers;
    o.kill_grace_seconds = 5;
    LocalLauncher launcher(o);
    return launcher.run(
        [&](const std::string &l) {
            c.out << QString::fromStdString(l);
            if (onLine)
                onLine(launcher, c);
        },
        [&](const std::string &l) {
            c.err << QString::fromStdString(l);
            if (onLine)
                onLine(launcher, c);
        });
}

} // namespace

class tst_LocalLauncher : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void planLocalWorkers_data()
    {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<int>("numGpus");
        QTest::addColumn<int>("localWorkers");
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("workers");
        QTest::addColumn<QString>("workerStrategy");
        QTest::addColumn<int>("workerGpus");
        QTest::newRow("local workers") << "multi_worker_mirrored" << 0 << 3 << "train_and_eval" << 3
                                       << "multi_worker_mirrored" << 0;
        QTest::newRow("one GPU per local worker") << "multi_worker_mirrored" << 1 << 2 << "train_and_eval" << 2
                                                  << "multi_worker_mirrored" << 1;
        QTest::newRow("cluster from environment") << "multi_worker_mirrored" << 0 << 0 << "train_and_eval" << 0
                                                  << "multi_worker_mirrored" << 0;
        QTest::newRow("mirrored over 4 GPUs") << "mirrored" << 4 << 0 << "train_and_eval" << 4
                                              << "multi_worker_mirrored" << 1;
        QTest::newRow("mirrored on 1 GPU") << "mirrored" << 1 << 0 << "train_and_eval" << 0 << "mirrored" << 1;
        QTest::newRow("mirrored on the CPU") << "mirrored" << 0 << 0 << "train_and_eval" << 0 << "mirrored" << 0;
        QTest::newRow("one_device ignores workers") << "one_device" << 0 << 2 << "train_and_eval" << 0
                                                    << "one_device" << 0;
        QTest::newRow("predict in process") << "multi_worker_mirrored" << 0 << 2 << "predict" << 0
                                            << "multi_worker_mirrored" << 0;
    }

    void planLocalWorkers()
    {
        QFETCH(QString, strategy);
        QFETCH(int, numGpus);
        QFETCH(int, localWorkers);
        QFETCH(QString, mode);
        QFETCH(int, workers);
        QFETCH(QString, workerStrategy);
        QFETCH(int, workerGpus);
        TrainingOptions o;
        o.distribution_strategy = strategy.toStdString();
        o.num_gpus = numGpus;
        o.num_local_workers = localWorkers;
        o.mode = mode.toStdString();
        o.learning_rate = 3e-5;
        const LocalWorkerPlan plan = wb::planLocalWorkers(o);
        QCOMPARE(plan.num_workers, workers);
        if (workers > 0) {
            QCOMPARE(QString::fromStdString(plan.worker.distribution_strategy), workerStrategy);
            QCOMPARE(plan.worker.num_gpus, workerGpus);
            QCOMPARE(plan.worker.num_local_workers, 0); // workers never launch workers
            QCOMPARE(plan.worker.learning_rate, 3e-5);  // everything else is passed on
        }
    }

    /// How a cluster ended, from the chief's jsonl lines and the launcher's result.
    void chiefStreamResult()
    {
        wbtest::RecordingObserver log;
        StepMetrics step;
        step.step = 12;
        step.loss = 0.5;

        // Worker 1 dies after the chief reached step 12 and ckpt-10.
        ChiefStream a(&log);
        QCOMPARE(a.feedOutput(runEventLine(step)), RunEventKind::Step);
        a.feedOutput(runEventLine(CheckpointSaved{10, "/m/ckpt-10"}));
        QCOMPARE(a.feedOutput("Segmentation fault"), RunEventKind::NotAnEvent);
        LocalLaunchResult died{1, 1, "worker rank 1 (pid 7) was killed by signal 9 (Killed); stopped the other workers"};
        RunFinished r = a.result(died);
        QVERIFY(r.status == RunStatus::Failed);
        QCOMPARE(r.field, std::string("cluster"));
        QCOMPARE(r.message, died.message);
        QCOMPARE(r.last_step, 12);
        QCOMPARE(r.last_checkpoint, std::string("/m/ckpt-10"));
        QCOMPARE(r.final_train_loss, 0.5);
        QVERIFY(QString::fromStdString(r.hint).contains(QStringLiteral("[worker 1]")));
        QCOMPARE(log.steps.size(), size_t(1));
        QCOMPARE(log.steps.front().step, 12);
        QCOMPARE(log.logs, std::vector<std::string>{"Segmentation fault"});
        // The coach's notes of the chief reach the front-end's observer (CLI, window).
        struct Notes : TrainingObserver
        {
            std::vector<CoachNote> got;
            void coachNote(const CoachNote &n) override { got.push_back(n); }
        } notes;
        ChiefStream n(&notes);
        QCOMPARE(n.feedOutput(runEventLine(CoachNote{"plateau", 40, "info", "not learning yet"})), RunEventKind::Note);
        QCOMPARE(notes.got.size(), size_t(1));
        QCOMPARE(notes.got[0].text, std::string("not learning yet"));
        QCOMPARE(notes.got[0].step, int64_t(40));

        // The chief fails and says why: its own result is kept.
        ChiefStream b;
        RunFinished own;
        own.status = RunStatus::Failed;
        own.field = "learning_rate";
        own.message = "the training loss became NaN at step 3";
        b.feedOutput(runEventLine(own));
        QVERIFY(b.finished());
        r = b.result({1, 0, "worker rank 0 (pid 8) exited with code 1; stopped the other workers"});
        QCOMPARE(r.field, std::string("learning_rate"));
        QCOMPARE(r.message, own.message);

        // The chief dies before it can report, after printing an error: both are named.
        ChiefStream c;
        c.feedError("[worker 1] error: cluster: lost the chief");
        c.feedError("error: model_dir: cannot create '/x'");
        r = c.result({1, 0, "worker rank 0 (pid 9) exited with code 1"});
        QCOMPARE(r.message, std::string("worker rank 0 (pid 9) exited with code 1: model_dir: cannot create '/x'"));

        // Stopped by the user before the chief reported.
        ChiefStream d;
        QVERIFY(d.result({130, -1, "stopped by the user"}).status == RunStatus::Cancelled);
        // Everyone exited 0 but the chief never said "finished": not a silent success.
        QVERIFY(d.result({0, -1, "2 worker(s) finished"}).status == RunStatus::Failed);
        QVERIFY(log.finished.empty()); // "finished" is never forwarded
    }

    void allSucceed()
    {
        Captured c;
        const auto r = launch("echo \"rank $RANK of $WORLD_SIZE at $MASTER_ADDR local $LOCAL_RANK tf=${TF_CONFIG:-none}\"; "
                              "echo \"note $RANK\" >&2",
                              3, c);
        QCOMPARE(r.exit_code, 0);
        QCOMPARE(r.failed_rank, -1);
        // Only the chief's stdout is streamed; every worker's stderr, prefixed.
        QCOMPARE(c.out, QStringList{QStringLiteral("rank 0 of 3 at 127.0.0.1 local 0 tf=none")});
        c.err.sort();
        QCOMPARE(c.err, (QStringList{QStringLiteral("[worker 1] note 1"), QStringLiteral("[worker 2] note 2"),
                                     QStringLiteral("note 0")}));
    }

    void failedWorkerStopsTheOthers()
    {
        qputenv("TF_CONFIG", "{}"); // the launcher must not pass it on
        Captured c;
        const auto start = std::chrono::steady_clock::now();
        const auto r = launch("if [ \"$RANK\" = 1 ]; then echo \"boom tf=${TF_CONFIG:-none}\" >&2; exit 3; fi; exec sleep 60", 3, c);
        qunsetenv("TF_CONFIG");
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        QCOMPARE(r.failed_rank, 1);
        QCOMPARE(r.exit_code, 3);
        QVERIFY2(QString::fromStdString(r.message).startsWith(QStringLiteral("worker rank 1 (pid ")), r.message.c_str());
        QVERIFY2(QString::fromStdString(r.message).endsWith(QStringLiteral("exited with code 3; stopped the other workers")),
                 r.message.c_str());
        QCOMPARE(c.err, QStringList{QStringLiteral("[worker 1] boom tf=none")});
        // Behaviour, not speed: the sleeping worker was terminated, it did not run its 60 s out.
        QVERIFY2(elapsed < 55.0, qPrintable(QString::number(elapsed)));
    }

    void killedWorkerIsNamed()
    {
        Captured c;
        const auto r = launch("if [ \"$RANK\" = 2 ]; then kill -9 $$; fi; exec sleep 60", 3, c);
        QCOMPARE(r.failed_rank, 2);
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(QString::fromStdString(r.message).contains(QStringLiteral("was killed by signal 9")), r.message.c_str());
    }

    void stopIsForwarded()
    {
        Captured c;
        bool requested = false;
        // Stop once both workers have installed their SIGINT trap.
        const auto onLine = [&requested](LocalLauncher &l, const Captured &seen) {
            if (!requested && seen.err.contains(QStringLiteral("ready 0"))
                && seen.err.contains(QStringLiteral("[worker 1] ready 1"))) {
                requested = true;
                l.requestStop();
            }
        };
        const auto r = launch("trap 'echo stopping $RANK >&2; exit 130' INT; echo ready $RANK >&2; "
                              "while :; do sleep 0.05; done",
                              2, c, onLine);
        QCOMPARE(r.exit_code, 130);
        QCOMPARE(r.failed_rank, -1);
        QVERIFY(c.err.contains(QStringLiteral("stopping 0")));
        QVERIFY(c.err.contains(QStringLiteral("[worker 1] stopping 1")));
    }
};

QTEST_APPLESS_MAIN(tst_LocalLauncher)
#include "tst_locallauncher.moc"
