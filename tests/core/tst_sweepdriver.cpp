// SPDX-License-Identifier: Apache-2.0
// The one loop of a sweep (SweepDriver: plan or resume, pending runs, next, started, ended over
// sweep.json), the seed group a sweep records, the sweep's event lines read back, and the
// in-process executor's stop rules.
#include "core/launch/runexecutor.h"
#include "core/formats/sweep.h"
#include "core/formats/sweepdriver.h"
#include "core/formats/sweepevents.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

SweepFile planned(const std::vector<std::string> &params)
{
    SweepFile f;
    for (const std::string &p : params)
        f.spec.parameters.push_back(parseSweepParameter(p));
    f.base_flags = {"--num_train_epochs=1"};
    return SweepDriver::withPlannedRuns(f);
}

/// Makes run `i` of `d` look completed on disk (training_summary.json with `trainLoss`).
void completeOnDisk(const SweepDriver &d, size_t i, double trainLoss)
{
    fs::create_directories(d.runDir(i));
    std::ofstream(d.runDir(i) + "/training_summary.json") << R"({"total_training_steps": 4, "train_loss": )" << trainLoss << "}";
}

} // namespace

class tst_SweepDriver : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void planStartEndAndResume()
    {
        QTemporaryDir root;
        const std::string dir = root.path().toStdString() + "/sweep";
        SweepDriver d = SweepDriver::planOrResume(dir, planned({"learning_rate=1e-3,5e-4", "seed=1,2"}), "other", "hint");
        QCOMPARE(d.file().runs.size(), size_t(4));
        QCOMPARE(d.trainArgs(3), (std::vector<std::string>{"--num_train_epochs=1", "--learning_rate=0.0005", "--seed=2",
                                                           "--model_dir=" + dir + "/run-004"}));
        d.save();
        QCOMPARE(d.pendingRuns(), (std::vector<size_t>{0, 1, 2, 3}));
        QCOMPARE(d.next(), std::optional<size_t>(0));
        QCOMPARE(d.next(), std::optional<size_t>(1));
        d.started(0);
        QCOMPARE(readSweepFile(dir)->runs[0].status, SweepRunStatus::Running);
        completeOnDisk(d, 0, 0.25);
        d.ended(0, SweepDriver::statusOfExitCode(0));
        d.started(1);
        d.ended(1, SweepDriver::statusOfExitCode(1));
        QCOMPARE(d.failedCount(), 1);
        const auto file = readSweepFile(dir);
        QCOMPARE(file->runs[0].status, SweepRunStatus::Completed);
        QCOMPARE(file->runs[0].final_metrics.at("train_loss"), 0.25);
        QCOMPARE(file->runs[1].status, SweepRunStatus::Failed);
        QCOMPARE(SweepDriver::statusOfExitCode(130), SweepRunStatus::Stopped);
        // The same plan again resumes sweep.json's state: run-001 is done, the others are left.
        SweepDriver again = SweepDriver::planOrResume(dir, planned({"learning_rate=1e-3,5e-4", "seed=1,2"}), "other", "hint");
        std::vector<size_t> skipped;
        QCOMPARE(again.pendingRuns(&skipped), (std::vector<size_t>{1, 2, 3}));
        QCOMPARE(skipped, (std::vector<size_t>{0}));
        QCOMPARE(again.indexOf("run-003"), std::optional<size_t>(2));
        QCOMPARE(again.indexOf("run-009"), std::nullopt);
        // Completed in sweep.json but its summary gone: trained again.
        fs::remove(again.runDir(0) + "/training_summary.json");
        QCOMPARE(again.pendingRuns().size(), size_t(4));
        // Another plan in the folder: the front-end's words.
        try {
            (void)SweepDriver::planOrResume(dir, planned({"seed=1,2"}), "holds another plan", "choose another folder");
            QFAIL("another plan was taken");
        } catch (const Error &e) {
            QCOMPARE(e.field() + ": " + e.what(), dir + "/sweep.json: holds another plan");
            QCOMPARE(e.hint(), std::string("choose another folder"));
        }
        QVERIFY(SweepDriver::resume(dir));
        QVERIFY(!SweepDriver::resume(dir + "-none"));
    }

    void resultsBestFirst()
    {
        SweepDriver d("/nowhere", planned({"seed=1,2,3"}));
        SweepFile f = d.file();
        f.runs[0].final_metrics = {{"eval_accuracy", 0.7}, {"eval_loss", 0.5}};
        f.runs[1].final_metrics = {{"eval_loss", 0.2}};
        f.runs[2].final_metrics = {{"eval_accuracy", 0.9}, {"eval_loss", 0.4}};
        QCOMPARE(SweepDriver("/nowhere", f).resultsOrder(), (std::vector<size_t>{2, 0, 1}));
        f.metric = "eval_loss";
        QCOMPARE(SweepDriver("/nowhere", f).resultsOrder(), (std::vector<size_t>{1, 2, 0}));
        QCOMPARE(SweepDriver("/nowhere", f).metricOf(1), 0.2);
        f.metric = "train_loss";
        QVERIFY(std::isnan(SweepDriver("/nowhere", f).metricOf(1)));
        QCOMPARE(SweepDriver("/nowhere", f).resultsOrder(), (std::vector<size_t>{0, 1, 2})); // none has it: plan order
    }

    void seedGroupOfASweep()
    {
        QTemporaryDir root;
        const std::string a = root.path().toStdString() + "/lr-sweep", b = root.path().toStdString() + "/lr-only";
        SweepDriver(a, planned({"learning_rate=1e-3,5e-4", "seed=1,2"})).save();
        SweepDriver(b, planned({"learning_rate=1e-3,5e-4"})).save();
        QCOMPARE(sweepSeedGroup(a + "/run-002"), std::string("lr-sweep learning_rate=0.001"));
        QCOMPARE(sweepSeedGroup(a + "/run-003/"), std::string("lr-sweep learning_rate=0.0005"));
        QCOMPARE(sweepSeedGroup(a + "/run-009"), std::string()); // not one of its runs
        QCOMPARE(sweepSeedGroup(b + "/run-001"), std::string());  // seed not swept
        QCOMPARE(sweepSeedGroup(root.path().toStdString() + "/model-seed-1"), std::string());
        std::ofstream(b + "/sweep.json") << "not json";
        QCOMPARE(sweepSeedGroup(b + "/run-001"), std::string()); // never throws
    }

    void eventLinesReadBack()
    {
        SweepEvent started;
        started.kind = SweepEventKind::RunStarted;
        started.run = "run-002";
        started.number = 2;
        started.runs = 4;
        started.values = {{"learning_rate", 5e-5}, {"seed", 2}};
        started.model_dir = "/s/run-002";
        const std::string line = sweepEventLine(started);
        QCOMPARE(line, std::string(R"({"event":"run_started","run":"run-002","number":2,"runs":4,)"
                                   R"("values":{"learning_rate":5e-05,"seed":2},"model_dir":"/s/run-002"})"));
        const SweepEvent back = decodeSweepEvent(line);
        QCOMPARE(back.kind, SweepEventKind::RunStarted);
        QCOMPARE(back.values, started.values);
        QCOMPARE(back.number, int64_t(2));

        SweepEvent ended;
        ended.kind = SweepEventKind::RunEnded;
        ended.run = "run-002";
        ended.status = "failed";
        ended.exit_code = 1;
        ended.metric = "eval_accuracy";
        ended.final_metrics = {{"eval_loss", NAN}};
        QCOMPARE(sweepEventLine(ended), std::string(R"({"event":"run_ended","run":"run-002","status":"failed","exit_code":1,)"
                                                    R"("metric":"eval_accuracy","value":null,"final_metrics":{"eval_loss":null}})"));
        QVERIFY(std::isnan(decodeSweepEvent(sweepEventLine(ended)).value));
        QVERIFY(std::isnan(decodeSweepEvent(sweepEventLine(ended)).final_metrics.at("eval_loss")));

        // A run's line that is not JSON is a run_log; its events come inside run_progress.
        SweepEvent progress;
        progress.kind = SweepEventKind::RunProgress;
        progress.run = "run-001";
        progress.data = "Resuming from checkpoint x";
        QCOMPARE(sweepEventLine(progress), std::string(R"({"event":"run_log","run":"run-001","line":"Resuming from checkpoint x"})"));
        progress.data = R"({"event":"checkpoint","step":4,"path":"/p"})";
        QCOMPARE(sweepEventLine(progress),
                 std::string(R"({"event":"run_progress","run":"run-001","data":{"event":"checkpoint","step":4,"path":"/p"}})"));
        QCOMPARE(decodeSweepEvent(sweepEventLine(progress)).data, std::string(R"({"event":"checkpoint","path":"/p","step":4})"));

        for (const char *notAnEvent : {"", "run-002 (2/4): seed=2", "{", "[1]", R"({"event":"step"})", R"({"event":3})"})
            QCOMPARE(decodeSweepEvent(notAnEvent).kind, SweepEventKind::NotAnEvent);
    }

    void sequentialExecutorStopsAfterAStoppedRun()
    {
        std::vector<std::string> said;
        const auto run = [&](std::vector<int> codes, const StopToken *stop) {
            said.clear();
            size_t k = 0;
            SequentialExecutor e([&](const RunJob &job) {
                said.push_back("train " + job.name);
                return codes[k++];
            }, stop);
            RunExecutorSinks sinks;
            sinks.started = [&](size_t j) { said.push_back("started " + std::to_string(j)); };
            sinks.ended = [&](size_t j, int code, const std::string &) {
                said.push_back("ended " + std::to_string(j) + " " + std::to_string(code));
            };
            sinks.finished = [&] { said.push_back("finished"); };
            e.run({{"a", {}}, {"b", {}}, {"c", {}}}, sinks);
            return e.notStarted();
        };
        // A failed run does not stop the others; a stopped one (130) does.
        QCOMPARE(run({1, 0, 0}, nullptr), std::vector<size_t>{});
        QCOMPARE(said, (std::vector<std::string>{"started 0", "train a", "ended 0 1", "started 1", "train b", "ended 1 0",
                                                 "started 2", "train c", "ended 2 0", "finished"}));
        QCOMPARE(run({0, 130, 0}, nullptr), std::vector<size_t>{2});
        QCOMPARE(said.back(), std::string("finished"));
        QCOMPARE(said.size(), size_t(7));
        StopToken stop;
        stop.requestStop();
        QCOMPARE(run({0, 0, 0}, &stop), (std::vector<size_t>{0, 1, 2}));
        QCOMPARE(said, std::vector<std::string>{"finished"});
    }
};

QTEST_GUILESS_MAIN(tst_SweepDriver)
#include "tst_sweepdriver.moc"
