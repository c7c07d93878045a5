// SPDX-License-Identifier: Apache-2.0
// The GUI's "Local workers: N" (issue 6, item 6): TrainingController runs N processes of
// bert-workbench-cli, plots the chief's curves, stops and resumes them, and reports a
// failed worker by rank.
#include "core/io/runevents.h"
#include "ui/runs/localworkersrun.h"
#include "ui/runs/trainingcontroller.h"

#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace wb;

namespace {

const char *const kCli = WB_BINARY_DIR "/app/cli/bert-workbench-cli";

/// Everything a controller reported during one run.
struct Recorded
{
    QList<RunStarted> started;
    QList<StepMetrics> steps;
    QList<EvalMetrics> evals;
    QList<CheckpointSaved> checkpoints;
    QStringList log;
    QList<RunFinished> finished;
    QObject context; ///< receiver of the connections; disconnect it to stop recording
};

void record(TrainingController &c, Recorded &r)
{
    QObject *ctx = &r.context;
    QObject::connect(&c, &TrainingController::runStarted, ctx, [&r](const RunStarted &s) { r.started << s; });
    QObject::connect(&c, &TrainingController::stepCompleted, ctx, [&r](const StepMetrics &m) { r.steps << m; });
    QObject::connect(&c, &TrainingController::evaluationCompleted, ctx, [&r](const EvalMetrics &m) { r.evals << m; });
    QObject::connect(&c, &TrainingController::checkpointSaved, ctx, [&r](const CheckpointSaved &k) { r.checkpoints << k; });
    QObject::connect(&c, &TrainingController::logMessage, ctx, [&r](const QString &l) { r.log << l; });
    QObject::connect(&c, &TrainingController::finished, ctx, [&r](const RunFinished &f) { r.finished << f; });
}

} // namespace

class tst_LocalWorkers : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void onlyMultiWorkerAsksForWorkers();
    void findsTheCliFromTheEnvironment();
    void twoWorkersMatchOneWorker();
    void stopThenResume();
    void failedWorkerNamesItsRank();
    void missingWorkerProgramIsClear();
    void eventsRoundTrip();
};

void tst_LocalWorkers::initTestCase()
{
    QVERIFY2(QFile::exists(QString::fromLatin1(kCli)), kCli);
    qputenv("BERT_WORKBENCH_CLI", kCli);
}

void tst_LocalWorkers::onlyMultiWorkerAsksForWorkers()
{
    TrainingOptions s;
    s.distribution_strategy = "multi_worker_mirrored";
    s.num_local_workers = 2;
    QCOMPARE(planLocalWorkers(s).num_workers, 2);
    s.num_local_workers = 0;
    QCOMPARE(planLocalWorkers(s).num_workers, 0);
    s.num_local_workers = 2;
    s.distribution_strategy = "one_device";
    QCOMPARE(planLocalWorkers(s).num_workers, 0);
    s.distribution_strategy = "multi_worker_mirrored";
    s.mode = "predict";
    QCOMPARE(planLocalWorkers(s).num_workers, 0);
}

void tst_LocalWorkers::findsTheCliFromTheEnvironment()
{
    QCOMPARE(QString::fromStdString(findWorkerExecutable()), QFileInfo(QString::fromLatin1(kCli)).absoluteFilePath());
    qputenv("BERT_WORKBENCH_CLI", "/nonexistent/bert-workbench-cli");
    QCOMPARE(findWorkerExecutable(), std::string());
    qputenv("BERT_WORKBENCH_CLI", kCli);
}

void tst_LocalWorkers::twoWorkersMatchOneWorker()
{
    QTemporaryDir dir;
    // 64 training and 16 evaluation records, batch 8, 2 epochs. Without dropout: every
    // worker draws its own dropout masks, one worker draws them all.
    wbtest::TinyRun p;
    p.dropout_prob = 0.0;
    TrainingOptions one = wbtest::writeTinyRun(dir.path().toStdString(), p);
    one.model_dir = dir.filePath(QStringLiteral("one")).toStdString();
    TrainingOptions two = one;
    two.distribution_strategy = "multi_worker_mirrored";
    two.num_local_workers = 2;
    two.model_dir = dir.filePath(QStringLiteral("two")).toStdString();

    TrainingController c;
    Recorded a, b;
    {
        record(c, a);
        QVERIFY(c.start(prepareRun(one, RunPurpose::Train)));
        QTRY_COMPARE_WITH_TIMEOUT(a.finished.size(), 1, 60000);
        QObject::disconnect(&c, nullptr, &a.context, nullptr);
    }
    record(c, b);
    QVERIFY(c.start(prepareRun(two, RunPurpose::Train)));
    QTRY_COMPARE_WITH_TIMEOUT(b.finished.size(), 1, 120000);

    const RunFinished &end = b.finished.front();
    QVERIFY2(end.status == RunStatus::Completed, (end.field + ": " + end.message).c_str());
    QVERIFY(b.log.join(QLatin1Char('\n')).contains(QStringLiteral("Starting 2 local workers")));
    // The chief's curves reached the controller: the same schedule, every evaluation.
    QCOMPARE(b.started.size(), 1);
    QCOMPARE(b.started.front().total_steps, 16); // 2 epochs × 64 / 8
    QCOMPARE(b.steps.last().step, 16);
    QCOMPARE(b.evals.size(), a.evals.size());
    QCOMPARE(b.evals.size(), 2);
    for (int k = 0; k < b.evals.size(); ++k) {
        QCOMPARE(b.evals[k].step, a.evals[k].step);
        QCOMPARE(b.evals[k].num_examples, 16);
        // Parameters agree to ~1e-7, so at most one borderline example may flip.
        QVERIFY(std::abs(b.evals[k].eval_accuracy - a.evals[k].eval_accuracy) <= 1.0 / 16 + 1e-9);
        QVERIFY2(std::abs(b.evals[k].eval_loss - a.evals[k].eval_loss) < 1e-4,
                 qPrintable(QStringLiteral("%1 vs %2").arg(b.evals[k].eval_loss).arg(a.evals[k].eval_loss)));
    }
    // The last epoch's mean training loss (step reports are throttled by time, epochs are not).
    QVERIFY(std::abs(end.final_train_loss - a.finished.front().final_train_loss) < 1e-4);
    QVERIFY(end.final_train_loss > 0);
    // Only the chief wrote: checkpoints and metrics in its model_dir.
    QCOMPARE(b.checkpoints.size(), 2);
    QVERIFY(QFile::exists(QString::fromStdString(two.model_dir + "/ckpt-16")));
    QVERIFY(QFile::exists(QString::fromStdString(two.model_dir + "/metrics.jsonl")));
}

void tst_LocalWorkers::stopThenResume()
{
    QTemporaryDir dir;
    wbtest::TinyRun p;
    p.train_size = 800; // 100 steps per epoch, 200 in all
    TrainingOptions spec = wbtest::writeTinyRun(dir.path().toStdString(), p);
    spec.distribution_strategy = "multi_worker_mirrored";
    spec.num_local_workers = 2;

    TrainingController c;
    Recorded r;
    record(c, r);
    QObject::connect(&c, &TrainingController::stepCompleted, &r.context, [&c](const StepMetrics &) { c.requestStop(); });
    QVERIFY(c.start(prepareRun(spec, RunPurpose::Train)));
    QTRY_COMPARE_WITH_TIMEOUT(r.finished.size(), 1, 120000);
    const RunFinished &stopped = r.finished.front();
    QVERIFY2(stopped.status == RunStatus::Cancelled,
             qPrintable(QString::fromStdString(stopped.field + ": " + stopped.message + "\n") + r.log.join(QLatin1Char('\n'))));
    QVERIFY(stopped.last_step > 0 && stopped.last_step < 200);
    QVERIFY(!stopped.last_checkpoint.empty());
    QVERIFY(QFile::exists(QString::fromStdString(stopped.last_checkpoint)));
    QVERIFY(c.canResume());

    QObject::disconnect(&c, nullptr, &r.context, nullptr);
    Recorded again;
    record(c, again);
    QVERIFY(c.resume());
    QTRY_COMPARE_WITH_TIMEOUT(again.finished.size(), 1, 180000);
    QVERIFY2(again.finished.front().status == RunStatus::Completed, again.finished.front().message.c_str());
    QCOMPARE(again.started.front().start_step, stopped.last_step); // resumed from the chief's checkpoint
    QCOMPARE(again.steps.last().step, 200);
}

void tst_LocalWorkers::failedWorkerNamesItsRank()
{
    QTemporaryDir dir;
    TrainingOptions spec = wbtest::writeTinyRun(dir.path().toStdString());
    spec.distribution_strategy = "multi_worker_mirrored";
    spec.num_local_workers = 2;
    wbtest::RecordingObserver obs;
    StopToken stop;
    // /bin/false stands in for a worker that dies at once.
    const RunFinished r = runLocalWorkers(prepareRun(spec, RunPurpose::Train), obs, stop, "/bin/false");
    QVERIFY(r.status == RunStatus::Failed);
    QCOMPARE(r.field, std::string("cluster"));
    QVERIFY2(QString::fromStdString(r.message).contains(QRegularExpression(QStringLiteral("^worker rank [01] \\(pid \\d+\\) exited with code 1"))),
             r.message.c_str());
    QVERIFY(QString::fromStdString(r.hint).contains(QStringLiteral("[worker")));
    QVERIFY(obs.finished.empty()); // the caller reports the end
}

void tst_LocalWorkers::missingWorkerProgramIsClear()
{
    QTemporaryDir dir;
    TrainingOptions spec = wbtest::writeTinyRun(dir.path().toStdString());
    spec.distribution_strategy = "multi_worker_mirrored";
    spec.num_local_workers = 2;
    wbtest::RecordingObserver obs;
    StopToken stop;
    const RunFinished r = runLocalWorkers(prepareRun(spec, RunPurpose::Train), obs, stop, "");
    QVERIFY(r.status == RunStatus::Failed);
    QCOMPARE(r.field, std::string("num_local_workers"));
    QVERIFY(QString::fromStdString(r.message).contains(QStringLiteral("bert-workbench-cli was not found")));
    QVERIFY(QString::fromStdString(r.hint).contains(QStringLiteral("BERT_WORKBENCH_CLI")));
}

void tst_LocalWorkers::eventsRoundTrip()
{
    EvalMetrics e;
    e.step = 170;
    e.eval_loss = 0.25;
    e.eval_accuracy = 0.9;
    e.binary = true;
    e.eval_f1 = std::nan("");
    e.eval_mcc = 0.5;
    e.num_examples = 605;
    e.confusion = {{400, 10}, {20, 175}};
    wbtest::RecordingObserver obs;
    QCOMPARE(decodeRunEvent(runEventLine(e), obs), RunEventKind::Eval);
    QCOMPARE(obs.evals.size(), size_t(1));
    const EvalMetrics got = obs.evals.front();
    QCOMPARE(got.step, 170);
    QCOMPARE(got.eval_loss, 0.25);
    QCOMPARE(got.eval_accuracy, 0.9);
    QVERIFY(std::isnan(got.eval_f1)); // written as null
    QCOMPARE(got.confusion, e.confusion);
    QCOMPARE(got.num_examples, 605);

    RunFinished f;
    f.status = RunStatus::Cancelled;
    f.last_step = 42;
    f.message = "stopped by the user";
    f.last_checkpoint = "/m/ckpt-42";
    RunFinished back;
    QCOMPARE(decodeRunEvent(runEventLine(f), obs, &back), RunEventKind::Finished);
    QVERIFY(back.status == RunStatus::Cancelled);
    QCOMPARE(back.last_step, 42);
    QCOMPARE(back.last_checkpoint, f.last_checkpoint);
    QVERIFY(obs.finished.empty());

    QCOMPARE(decodeRunEvent("Segmentation fault", obs), RunEventKind::NotAnEvent);
    QCOMPARE(decodeRunEvent("{\"event\":\"unknown\"}", obs), RunEventKind::NotAnEvent);
    QCOMPARE(decodeRunEvent("{broken", obs), RunEventKind::NotAnEvent);
    QCOMPARE(decodeRunEvent(runEventLine(std::string("ab\xff")), obs), RunEventKind::Log); // bad UTF-8 replaced
    QCOMPARE(obs.logs.back(), std::string("ab\xEF\xBF\xBD"));
}

QTEST_GUILESS_MAIN(tst_LocalWorkers)
#include "tst_localworkers.moc"
