// SPDX-License-Identifier: Apache-2.0
// Run lifecycle (issue 13): run_config.json and the model_dir check, "already complete"
// without touching results, write failures (EFBIG through ulimit -f, a read-only
// model_dir), interval checkpoints and kill -9 at seeded moments with exact resumes.
#include "app/cli/commands.h"
#include "clirun.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace wb;
namespace fs = std::filesystem;

namespace {

const QString kCli = QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli");

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The train lines of metrics.jsonl as step → loss; `duplicates` counts repeated steps.
std::map<int64_t, double> trainLosses(const std::string &path, int *duplicates = nullptr, int *evals = nullptr)
{
    std::map<int64_t, double> out;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        // While the run writes, the last line can be read half-written (no newline yet); the
        // product's readers skip such a line too (MetricsWriter::truncateAfterStep). Any
        // other line must parse.
        const bool torn = in.eof();
        const auto j = nlohmann::json::parse(line, nullptr, !torn);
        if (j.is_discarded())
            continue;
        if (j["kind"] == "eval") {
            if (evals)
                ++*evals;
            continue;
        }
        if (j["kind"] != "train") // e.g. the coach's "note" lines
            continue;
        const int64_t step = j["step"].get<int64_t>();
        if (out.count(step) && duplicates)
            ++*duplicates;
        out[step] = j["loss"].get<double>();
    }
    return out;
}

std::vector<std::string> flagsOf(const TrainingOptions &o)
{
    std::vector<std::string> f = toCommandLineFlags(o);
    f.insert(f.begin(), "train");
    return f;
}

int temporaries(const std::string &dir)
{
    int n = 0;
    for (const auto &e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp") != std::string::npos)
            ++n;
    return n;
}

/// Runs the CLI binary through bash (for ulimit); returns the exit code, stderr in `err`.
int runShell(const QString &script, const std::vector<std::string> &args, QString &err)
{
    QStringList a{QStringLiteral("-c"), script, QStringLiteral("bash"), kCli};
    for (const auto &s : args)
        a << QString::fromStdString(s);
    QProcess p;
    p.start(QStringLiteral("bash"), a);
    p.waitForFinished(120000);
    err = QString::fromUtf8(p.readAllStandardError());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

class tst_RunLifecycle : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string root() const { return m_dir.path().toStdString(); }

private Q_SLOTS:
    void completedRunIsLeftUntouched()
    {
        wbtest::TinyRun p;
        p.num_train_epochs = 1;
        p.model_dir = "done";
        const TrainingOptions o = wbtest::writeTinyRun(root() + "/a", p);
        std::string out, err;
        QCOMPARE(wbtest::runCli(flagsOf(o), out, err), int(cli::kExitOk));
        QVERIFY(fs::exists(o.model_dir + "/run_config.json"));
        const auto id = nlohmann::json::parse(readAll(o.model_dir + "/run_config.json"));
        QCOMPARE(id["defining"]["train_batch_size"].get<int>(), 8);
        QCOMPARE(id["defining"]["total_steps"].get<int>(), 8);
        QCOMPARE(id["defining"]["bert_config"]["hidden_size"].get<int>(), 32);
        const std::string summary = readAll(o.model_dir + "/training_summary.json");
        const std::string metrics = readAll(o.model_dir + "/metrics.jsonl");
        const auto files = std::distance(fs::recursive_directory_iterator(o.model_dir), {});
        const double trainLoss = nlohmann::json::parse(summary)["train_loss"].get<double>();
        QVERIFY(trainLoss > 0.0);

        QCOMPARE(wbtest::runCli(flagsOf(o), out, err), int(cli::kExitOk));
        QVERIFY2(QString::fromStdString(out).contains(QStringLiteral("already complete at step 8")), out.c_str());
        QCOMPARE(readAll(o.model_dir + "/training_summary.json"), summary); // real loss and eval block kept
        QCOMPARE(readAll(o.model_dir + "/metrics.jsonl"), metrics);
        QCOMPARE(std::distance(fs::recursive_directory_iterator(o.model_dir), {}), files); // no new event file

        // The window's path (Trainer::run) reports the real final loss.
        wbtest::RecordingObserver rec;
        StopToken stop;
        const RunFinished r = Trainer().run(o, rec, stop);
        QCOMPARE(int(r.status), int(RunStatus::Completed));
        QCOMPARE(r.final_train_loss, trainLoss);
    }

    void changedScheduleOrModelExits2()
    {
        wbtest::TinyRun p;
        p.num_train_epochs = 1;
        p.model_dir = "done";
        TrainingOptions o = wbtest::writeTinyRun(root() + "/a", p); // trained by the test above
        QVERIFY(fs::exists(o.model_dir + "/ckpt-8"));
        std::string out, err;
        o.num_train_epochs = 2;
        QCOMPARE(wbtest::runCli(flagsOf(o), out, err), int(cli::kExitInvalid));
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("error: num_train_epochs: 1 → 2")), err.c_str());
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("error: total_steps: 8 → 16")), err.c_str());
        QVERIFY2(QString::fromStdString(err).contains(QString::fromStdString("--init_checkpoint=" + o.model_dir + "/ckpt-8")),
                 err.c_str());
        auto args = flagsOf(o);
        args[0] = "validate";
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid)); // validate says the same
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("error: num_train_epochs: 1 → 2")), err.c_str());

        o.num_train_epochs = 1;
        o.train_batch_size = 16;
        QCOMPARE(wbtest::runCli(flagsOf(o), out, err), int(cli::kExitInvalid));
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("error: train_batch_size: 8 → 16")), err.c_str());
        QVERIFY(!fs::exists(o.model_dir + "/ckpt-4")); // nothing ran

        // The second way out: a new model_dir starting from that checkpoint's weights.
        o.train_batch_size = 8;
        o.num_train_epochs = 2;
        o.init_checkpoint = o.model_dir + "/ckpt-8";
        o.model_dir = root() + "/a/continued";
        QCOMPARE(wbtest::runCli(flagsOf(o), out, err), int(cli::kExitOk));
        QVERIFY(fs::exists(o.model_dir + "/ckpt-16"));
    }

    void validateComparesTheCheckpointWithTheConfig()
    {
        // A model_dir holding a 2-label, hidden-32 checkpoint, without run_config.json (older runs).
        wbtest::TinyRun p;
        p.num_train_epochs = 1;
        p.model_dir = "two";
        const TrainingOptions o = wbtest::writeTinyRun(root() + "/b", p);
        std::string out, err;
        QCOMPARE(wbtest::runCli(flagsOf(o), out, err), int(cli::kExitOk));
        fs::remove(o.model_dir + "/run_config.json");
        wbtest::TinyRun q = p;
        q.num_labels = 3;
        q.hidden_size = 64;
        q.bert_config_name = "wide_config.json";
        q.meta_data_name = "three_meta.json";
        TrainingOptions other = wbtest::writeTinyRun(root() + "/b", q);
        auto args = flagsOf(other);
        args[0] = "validate";
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("error: bert_config.hidden_size: 32 → 64")), err.c_str());
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("error: num_labels: 2 → 3")), err.c_str());
        args[0] = "predict";
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
    }

    void fullDiskDuringCheckpointFailsCleanly()
    {
        wbtest::TinyRun p;
        p.model_dir = "efbig";
        const TrainingOptions o = wbtest::writeTinyRun(root() + "/c", p);
        // A first checkpoint (ckpt-8) from a run stopped there.
        wbtest::RecordingObserver rec;
        StopToken stop;
        rec.stopAfterCheckpoints = &stop;
        QCOMPARE(int(Trainer().run(o, rec, stop).status), int(RunStatus::Cancelled));
        const auto size = fs::file_size(o.model_dir + "/ckpt-8");
        const std::string index = readAll(o.model_dir + "/checkpoint");
        // Every file may grow to half a checkpoint: ckpt-16 fails with EFBIG.
        QString err;
        const QString limited = QStringLiteral("trap '' XFSZ; ulimit -f %1; exec \"$@\"").arg(size / 2048);
        const int code = runShell(limited, flagsOf(o), err);
        QVERIFY2(code == 1, qPrintable(QStringLiteral("exit %1: %2").arg(code).arg(err)));
        QVERIFY2(err.contains(QString::fromStdString("error: " + o.model_dir + "/ckpt-16: could not write the checkpoint: File too large")),
                 qPrintable(err));
        QVERIFY2(!err.contains(QStringLiteral("terminate")), qPrintable(err));
        QCOMPARE(temporaries(o.model_dir), 0);
        QVERIFY(!fs::exists(o.model_dir + "/ckpt-16"));
        QCOMPARE(readAll(o.model_dir + "/checkpoint"), index);
        // A later run resumes from ckpt-8 and completes.
        QCOMPARE(runShell(QStringLiteral("exec \"$@\""), flagsOf(o), err), 0);
        QVERIFY2(err.isEmpty() || !err.contains(QStringLiteral("error:")), qPrintable(err));
        QVERIFY(fs::exists(o.model_dir + "/ckpt-16"));
        int duplicates = 0;
        const auto losses = trainLosses(o.model_dir + "/metrics.jsonl", &duplicates);
        QCOMPARE(duplicates, 0);
        QCOMPARE(losses.rbegin()->first, int64_t(16));
    }

    void readOnlyModelDirFailsCleanly()
    {
        if (::geteuid() == 0)
            QSKIP("running as root: a read-only mode does not stop root's writes (the EFBIG test covers write failures)");
        wbtest::TinyRun p;
        p.num_train_epochs = 1;
        p.model_dir = "ro";
        const TrainingOptions o = wbtest::writeTinyRun(root() + "/d", p);
        fs::create_directories(o.model_dir);
        fs::permissions(o.model_dir, fs::perms::owner_read | fs::perms::owner_exec);
        std::string out, err;
        const int code = wbtest::runCli(flagsOf(o), out, err);
        fs::permissions(o.model_dir, fs::perms::owner_all);
        QCOMPARE(code, int(cli::kExitRuntime));
        QVERIFY2(QString::fromStdString(err).contains(QString::fromStdString("error: " + o.model_dir)), err.c_str());
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("Permission denied")), err.c_str());
        QCOMPARE(temporaries(o.model_dir), 0);
    }

    void killNineAndResumeRepeatsTheRun()
    {
        // 64 records, batch 4: 16 steps per evaluation, 48 steps; a checkpoint every 3 steps.
        wbtest::TinyRun p;
        p.batch_size = 4;
        p.num_train_epochs = 3;
        p.model_dir = "reference";
        TrainingOptions o = wbtest::writeTinyRun(root() + "/e", p);
        o.steps_per_loop = 1;
        o.save_checkpoints_steps = 3;
        o.num_threads = 1;
        std::string out, err;
        QCOMPARE(wbtest::runCli(flagsOf(o), out, err), int(cli::kExitOk));
        const auto reference = trainLosses(o.model_dir + "/metrics.jsonl");
        QCOMPARE(int(reference.size()), 48);

        o.model_dir = root() + "/e/killed";
        QStringList args;
        for (const auto &a : flagsOf(o))
            args << QString::fromStdString(a);
        std::mt19937 rng(2026);
        int killed = 0;
        for (int round = 0; round < 10; ++round) {
            const int64_t done = trainLosses(o.model_dir + "/metrics.jsonl").size();
            if (done >= 47)
                break;
            const int64_t target = done + 1 + int64_t(rng() % uint32_t(std::min<int64_t>(12, 47 - done)));
            QProcess proc;
            proc.start(kCli, args);
            QVERIFY(proc.waitForStarted());
            // Kill at the first moment metrics.jsonl shows `target` steps (a seeded step, whatever is being written).
            while (proc.state() == QProcess::Running) {
                if (int64_t(trainLosses(o.model_dir + "/metrics.jsonl").size()) >= target) {
                    ::kill(pid_t(proc.processId()), SIGKILL);
                    ++killed;
                    break;
                }
                QThread::usleep(500);
            }
            proc.waitForFinished(60000);
        }
        QVERIFY(killed >= 1);
        QProcess last;
        last.start(kCli, args);
        QVERIFY(last.waitForFinished(120000));
        QCOMPARE(last.exitCode(), 0);

        int duplicates = 0, evals = 0;
        const auto losses = trainLosses(o.model_dir + "/metrics.jsonl", &duplicates, &evals);
        QCOMPARE(duplicates, 0);
        QCOMPARE(evals, 3);
        QCOMPARE(int(losses.size()), 48); // steps 1..48, none missing
        QCOMPARE(losses.begin()->first, int64_t(1));
        QCOMPARE(losses.rbegin()->first, int64_t(48));
        for (const auto &[step, loss] : losses) // the first step after each resume included
            QVERIFY2(loss == reference.at(step),
                     qPrintable(QStringLiteral("step %1: %2 vs %3").arg(step).arg(loss, 0, 'g', 17).arg(reference.at(step), 0, 'g', 17)));
        QCOMPARE(temporaries(o.model_dir), 0);
        qInfo("killed %d times", killed);
    }

    void stepsPerLoopReportsEveryNSteps()
    {
        wbtest::TinyRun p;
        p.num_train_epochs = 1;
        p.model_dir = "loop";
        TrainingOptions o = wbtest::writeTinyRun(root() + "/f", p);
        o.steps_per_loop = 3;
        wbtest::RecordingObserver rec;
        StopToken stop;
        QCOMPARE(int(Trainer().run(o, rec, stop).status), int(RunStatus::Completed));
        std::vector<int64_t> steps;
        for (const auto &s : rec.steps)
            steps.push_back(s.step);
        QCOMPARE(steps, (std::vector<int64_t>{3, 6, 8})); // every 3 steps, cut at the evaluation (step 8)
        QCOMPARE(int(rec.evals.size()), 1);
        QCOMPARE(int(rec.checkpoints.size()), 1);
    }
};

QTEST_GUILESS_MAIN(tst_RunLifecycle)
#include "tst_runlifecycle.moc"
