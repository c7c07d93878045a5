// SPDX-License-Identifier: Apache-2.0
// Issue 27 "Sweeps": the plan (grid size, a reproducible random sample, the run names and the
// exact option values), sweep.json, and `bert-workbench-cli sweep` resuming a sweep (finished
// runs are skipped, an interrupted one continues).
#include "clirun.h"
#include "support/tinyrun.h"

#include "core/config/trainingoptions.h"
#include "core/engine/blascheck.h"
#include "core/formats/sweep.h"
#include "core/formats/sweepevents.h"
#include "core/formats/trainingsummary.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The message of the wb::Error `f` throws ("" when none).
template <typename F>
std::string errorOf(F f)
{
    try {
        f();
    } catch (const Error &e) {
        return e.field() + ": " + e.what();
    }
    return {};
}

/// The CLI the runs at the same time start (BERT_WORKBENCH_CLI, as the window finds it).
const char *const kCli = WB_BINARY_DIR "/app/cli/bert-workbench-cli";

/// metrics.jsonl without what differs between two identical runs (wall-clock times and rates).
std::string metricsWithoutTimes(const std::string &path)
{
    std::istringstream in(readAll(path));
    std::string out, line;
    while (std::getline(in, line)) {
        for (const char *key : {"\"wall_time\"", "\"elapsed_seconds\"", "\"examples_per_second\"", "\"steps_per_second\"",
                                "\"step_time_ms\"", "\"eval_seconds\"", "\"timestamp\""}) {
            for (size_t at; (at = line.find(key)) != std::string::npos;) {
                size_t end = line.find_first_of(",}", at);
                line.erase(at, end - at + (end < line.size() && line[end] == ',' ? 1 : 0));
            }
        }
        out += line + "\n";
    }
    return out;
}

/// The sweep command over `seeds` for the tiny run under `root` (its train flags, without
/// --model_dir and --seed), plus `extra`.
std::vector<std::string> sweepArgs(const TrainingOptions &o, const std::string &sweepDir, const std::string &seeds,
                                   const std::vector<std::string> &extra)
{
    std::vector<std::string> args = {"sweep", "--sweep_dir=" + sweepDir, "--param", "seed=" + seeds};
    for (const std::string &flag : toCommandLineFlags(o))
        if (flag.rfind("--model_dir", 0) != 0 && flag.rfind("--seed", 0) != 0 && flag.rfind("--num_threads", 0) != 0
            && flag.rfind("--steps_per_loop", 0) != 0)
            args.push_back(flag);
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

/// An output stream that raises SIGINT (as a terminal's Ctrl+C) once it has seen `trigger`
/// `count` times: a stop at a known point of the output, without timing.
class InterruptingBuf : public std::stringbuf
{
public:
    /// Raises SIGINT once `trigger` was written `count` times.
    InterruptingBuf(std::string trigger, int count) : m_triggers{std::move(trigger)}, m_count(count) {}
    /// Raises SIGINT once every one of `triggers` was written (at least once each).
    explicit InterruptingBuf(std::vector<std::string> triggers) : m_triggers(std::move(triggers)), m_count(1) {}
    bool raised = false;

protected:
    int sync() override
    {
        const std::string s = str();
        bool all = true;
        for (const std::string &t : m_triggers) {
            int seen = 0;
            for (size_t at = 0; (at = s.find(t, at)) != std::string::npos; at += t.size())
                ++seen;
            all = all && seen >= m_count;
        }
        if (!raised && all) {
            raised = true;
            std::raise(SIGINT);
        }
        return 0;
    }

private:
    std::vector<std::string> m_triggers;
    int m_count;
};

} // namespace

class tst_CliSweep : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gridPlan();
    void randomPlanIsReproducible();
    void parameterErrors();
    void sweepFileRoundTrip();
    void sweepResumesSkippingFinishedRuns();
    void concurrentRunsEqualRunsOneAfterAnother();
    void interruptedConcurrentSweepResumes();
    void jsonlEventsOfATinySweep();
};

void tst_CliSweep::gridPlan()
{
    SweepSpec spec;
    spec.parameters = {parseSweepParameter("learning_rate=1e-4,5e-5"), parseSweepParameter("seed=1,2,3")};
    const auto runs = planSweep(spec);
    QCOMPARE(runs.size(), size_t(6));
    QCOMPARE(runs[0].name, std::string("run-001"));
    QCOMPARE(runs[5].name, std::string("run-006"));
    // The first parameter changes slowest.
    QCOMPARE(runs[0].values, (std::vector<std::pair<std::string, double>>{{"learning_rate", 1e-4}, {"seed", 1}}));
    QCOMPARE(runs[2].values, (std::vector<std::pair<std::string, double>>{{"learning_rate", 1e-4}, {"seed", 3}}));
    QCOMPARE(runs[3].values, (std::vector<std::pair<std::string, double>>{{"learning_rate", 5e-5}, {"seed", 1}}));
    QCOMPARE(sweepRunFlags(runs[4]), (std::vector<std::string>{"--learning_rate=5e-05", "--seed=2"}));
    TrainingOptions o;
    applySweepRun(o, runs[4]);
    QCOMPARE(*o.learning_rate, 5e-5);
    QCOMPARE(o.seed, int64_t(2));
    // Every sweepable option.
    SweepSpec all;
    all.parameters = {parseSweepParameter("train_batch_size=16,32"), parseSweepParameter("num_train_epochs=2"),
                      parseSweepParameter("warmup_fraction=0,0.1"), parseSweepParameter("weight_decay_rate=0.01")};
    const auto four = planSweep(all);
    QCOMPARE(four.size(), size_t(4));
    QCOMPARE(sweepRunFlags(four[3]), (std::vector<std::string>{"--train_batch_size=32", "--num_train_epochs=2",
                                                               "--warmup_fraction=0.1", "--weight_decay_rate=0.01"}));
    applySweepRun(o, four[3]);
    QCOMPARE(o.train_batch_size, int64_t(32));
    QCOMPARE(o.num_train_epochs, int64_t(2));
    QCOMPARE(o.warmup_fraction, 0.1);
    QCOMPARE(o.weight_decay_rate, 0.01);
    // More than 999 runs: 4 digits.
    SweepSpec big;
    big.parameters = {parseSweepParameter("seed=" + [] {
        std::string s;
        for (int i = 0; i < 1000; ++i)
            s += (i ? "," : "") + std::to_string(i);
        return s;
    }())};
    QCOMPARE(planSweep(big).back().name, std::string("run-1000"));
    QCOMPARE(planSweep(big).front().name, std::string("run-0001"));
}

void tst_CliSweep::randomPlanIsReproducible()
{
    SweepSpec spec;
    spec.method = "random";
    spec.num_runs = 8;
    spec.sample_seed = 7;
    spec.parameters = {parseSweepParameter("learning_rate=1e-5:1e-3"), parseSweepParameter("train_batch_size=16,32"),
                       parseSweepParameter("warmup_fraction=0:0.2"), parseSweepParameter("seed=1:100")};
    const auto a = planSweep(spec), b = planSweep(spec);
    QCOMPARE(a.size(), size_t(8));
    for (size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(a[i].values, b[i].values); // bit for bit
        const double lr = a[i].values[0].second, bs = a[i].values[1].second, wf = a[i].values[2].second,
                     seed = a[i].values[3].second;
        QVERIFY(lr >= 1e-5 && lr <= 1e-3);
        QVERIFY(bs == 16 || bs == 32);
        QVERIFY(wf >= 0 && wf <= 0.2);
        QVERIFY(seed >= 1 && seed <= 100 && seed == std::round(seed));
    }
    // The first draw, exactly: mt19937_64(7)'s first output's top 53 bits, log-uniform in [1e-5, 1e-3].
    std::mt19937_64 rng(7);
    const double u = double(rng() >> 11) / 9007199254740992.0;
    QCOMPARE(a[0].values[0].second, std::exp(std::log(1e-5) + u * (std::log(1e-3) - std::log(1e-5))));
    QCOMPARE(a[0].values[1].second, double(rng() % 2 == 0 ? 16 : 32));
    spec.sample_seed = 8;
    QVERIFY(planSweep(spec)[0].values != a[0].values);
    // A range in a grid, a random sweep without a run count.
    SweepSpec grid;
    grid.parameters = {parseSweepParameter("learning_rate=1e-5:1e-3")};
    QCOMPARE(errorOf([&] { planSweep(grid); }),
             std::string("--param: learning_rate=1e-05:0.001: a grid needs a list of values, not a range"));
    spec.num_runs = 0;
    QCOMPARE(errorOf([&] { planSweep(spec); }), std::string("--num_runs: a random sweep needs 1 to 10000 runs, got 0"));
}

void tst_CliSweep::parameterErrors()
{
    QCOMPARE(errorOf([] { parseSweepParameter("dropout=0.1"); }), std::string("--param: \"dropout=0.1\": \"dropout\" cannot be swept"));
    QCOMPARE(errorOf([] { parseSweepParameter("seed=1.5"); }), std::string("--param: \"seed=1.5\": seed takes whole numbers, not 1.5"));
    QCOMPARE(errorOf([] { parseSweepParameter("learning_rate=1e-4,x"); }),
             std::string("--param: \"learning_rate=1e-4,x\": \"x\" is not a number"));
    QCOMPARE(errorOf([] { parseSweepParameter("learning_rate=0:1e-3"); }),
             std::string("--param: \"learning_rate=0:1e-3\": learning_rate is sampled on a log scale, so its range must be positive"));
    QCOMPARE(errorOf([] { parseSweepParameter("seed=1,1"); }), std::string("--param: \"seed=1,1\": 1 is listed twice"));
    QCOMPARE(sweepParameterText(parseSweepParameter("learning_rate=0.0001,5e-5")), std::string("learning_rate=0.0001,5e-05"));
    SweepSpec twice;
    twice.parameters = {parseSweepParameter("seed=1"), parseSweepParameter("seed=2")};
    QCOMPARE(errorOf([&] { planSweep(twice); }), std::string("--param: seed is given twice"));
}

void tst_CliSweep::sweepFileRoundTrip()
{
    QTemporaryDir dir;
    SweepFile f;
    f.spec.method = "random";
    f.spec.num_runs = 2;
    f.spec.sample_seed = 3;
    f.spec.parameters = {parseSweepParameter("learning_rate=1e-5:1e-3"), parseSweepParameter("seed=1,2")};
    f.base_flags = {"--distribution_strategy=one_device", "--train_batch_size=8"};
    f.metric = "eval_loss";
    for (const SweepRun &r : planSweep(f.spec))
        f.runs.push_back({r, SweepRunStatus::Pending, {}});
    f.runs[0].status = SweepRunStatus::Completed;
    f.runs[0].final_metrics = {{"eval_accuracy", 0.875}, {"eval_loss", NAN}};
    writeSweepFile(dir.path().toStdString(), f);
    const auto back = readSweepFile(dir.path().toStdString());
    QVERIFY(back);
    QVERIFY(samePlan(f, *back));
    QCOMPARE(back->spec.method, std::string("random"));
    QCOMPARE(back->spec.sample_seed, uint64_t(3));
    QCOMPARE(back->runs[0].status, SweepRunStatus::Completed);
    QCOMPARE(back->runs[1].status, SweepRunStatus::Pending);
    QCOMPARE(back->runs[0].final_metrics.at("eval_accuracy"), 0.875);
    QVERIFY(std::isnan(back->runs[0].final_metrics.at("eval_loss")));
    QCOMPARE(back->spec.parameters[0].low, 1e-5);
    QCOMPARE(back->spec.parameters[1].values, (std::vector<double>{1, 2}));
    QVERIFY(!readSweepFile(dir.path().toStdString() + "/none"));
    // A file that is not one: named with its key.
    std::ofstream(dir.path().toStdString() + "/sweep.json") << R"({"format": "bert-workbench sweep 1", "runs": [{"name": "run-001", "status": "done"}]})";
    QCOMPARE(errorOf([&] { readSweepFile(dir.path().toStdString()); }),
             dir.path().toStdString() + "/sweep.json: runs[0]: status: expected pending, running, completed, failed or stopped, got \"done\"");
}

void tst_CliSweep::sweepResumesSkippingFinishedRuns()
{
    QTemporaryDir root;
    wbtest::TinyRun tiny;
    tiny.train_size = 16;
    tiny.eval_size = 8;
    tiny.num_train_epochs = 1;
    const TrainingOptions o = wbtest::writeTinyRun(root.path().toStdString(), tiny);
    std::vector<std::string> args = {"sweep", "--sweep_dir=" + root.path().toStdString() + "/sweep", "--param", "seed=1,2"};
    for (const std::string &flag : toCommandLineFlags(o))
        if (flag.rfind("--model_dir", 0) != 0 && flag.rfind("--seed", 0) != 0)
            args.push_back(flag);
    std::string out, err;
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const std::string sweepDir = root.path().toStdString() + "/sweep";
    QVERIFY2(out.find("run-001 (1/2): seed=1") != std::string::npos, out.c_str());
    QVERIFY2(out.find("run-002 (2/2): seed=2") != std::string::npos, out.c_str());
    QVERIFY2(out.find("results by eval_accuracy (highest first):") != std::string::npos, out.c_str());
    auto file = readSweepFile(sweepDir);
    QVERIFY(file);
    QCOMPARE(file->runs.size(), size_t(2));
    for (const SweepRunRecord &r : file->runs) {
        QCOMPARE(r.status, SweepRunStatus::Completed);
        QVERIFY(r.final_metrics.count("eval_accuracy"));
        QVERIFY(fs::exists(sweepDir + "/" + r.run.name + "/training_summary.json"));
    }
    QCOMPARE(readAll(sweepDir + "/run-001/run_config.json").find("\"seed\": 1") != std::string::npos, true);
    QCOMPARE(readAll(sweepDir + "/run-002/run_config.json").find("\"seed\": 2") != std::string::npos, true);

    // Interrupted in run-002 (it has checkpoints but did not complete): the same command
    // skips run-001 and resumes run-002 from its checkpoint.
    const std::string firstMetrics = readAll(sweepDir + "/run-001/metrics.jsonl");
    fs::remove(sweepDir + "/run-002/training_summary.json");
    file->runs[1].status = SweepRunStatus::Running;
    file->runs[1].final_metrics.clear();
    writeSweepFile(sweepDir, *file);
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    QVERIFY2(out.find("run-001: completed, skipped") != std::string::npos, out.c_str());
    QVERIFY2(out.find("run-002 (2/2): seed=2") != std::string::npos, out.c_str());
    QVERIFY2(out.find("run-001 (1/2)") == std::string::npos, out.c_str());
    QCOMPARE(readAll(sweepDir + "/run-001/metrics.jsonl"), firstMetrics); // untouched
    // train continued run-002 from its checkpoint (here already at its last step).
    QVERIFY2(out.find("Resuming from checkpoint " + sweepDir + "/run-002/ckpt-2 at step 2") != std::string::npos, out.c_str());
    QCOMPARE(readSweepFile(sweepDir)->runs[1].status, SweepRunStatus::Completed);
    // Resuming with --sweep_dir alone works too; other flags are refused.
    std::ofstream(sweepDir + "/run-002/training_summary.json") << readAll(sweepDir + "/run-001/training_summary.json");
    QCOMPARE(wbtest::runCli({"sweep", "--sweep_dir=" + sweepDir}, out, err), 0);
    QVERIFY2(out.find("run-001: completed, skipped") != std::string::npos, out.c_str());
    QVERIFY2(out.find("run-002: completed, skipped") != std::string::npos, out.c_str());
    std::vector<std::string> other = args;
    other[3] = "seed=1,3";
    QCOMPARE(wbtest::runCli(other, out, err), 2);
    QVERIFY2(err.find("plans other runs or flags than this command") != std::string::npos, err.c_str());
    QCOMPARE(wbtest::runCli({"sweep", "--sweep_dir=" + sweepDir, "--param", "seed=1", "--model_dir=x"}, out, err), 2);
    QVERIFY2(err.find("--model_dir") != std::string::npos, err.c_str());
}

void tst_CliSweep::concurrentRunsEqualRunsOneAfterAnother()
{
    qputenv("BERT_WORKBENCH_CLI", kCli);
    QVERIFY2(fs::exists(kCli), kCli);
    QTemporaryDir root;
    wbtest::TinyRun tiny;
    tiny.train_size = 16;
    tiny.eval_size = 8;
    tiny.num_train_epochs = 1;
    const TrainingOptions o = wbtest::writeTinyRun(root.path().toStdString(), tiny);
    const std::string one = root.path().toStdString() + "/one", two = root.path().toStdString() + "/two";
    // One after another, in this process, with the threads each run at the same time gets.
    const int threads = threadsPerLocalWorker(2);
    std::string out, err;
    // --steps_per_loop=1: every step reported (without it the reports are throttled by time).
    QCOMPARE(wbtest::runCli(sweepArgs(o, one, "1,2", {"--steps_per_loop=1", "--num_threads=" + std::to_string(threads)}), out, err), 0);
    // Two at the same time, each a child process.
    QCOMPARE(wbtest::runCli(sweepArgs(o, two, "1,2", {"--steps_per_loop=1", "--max_concurrent_runs=2"}), out, err), 0);
    QVERIFY2(out.find("training up to 2 runs at the same time, each in its own process with " + std::to_string(threads)
                      + " intra-op thread" + (threads == 1 ? "" : "s") + " (--num_threads) each")
                 != std::string::npos,
             out.c_str());
    // Both started before either ended.
    const size_t start1 = out.find("run-001 (1/2): seed=1"), start2 = out.find("run-002 (2/2): seed=2");
    const size_t end1 = out.find("run-001: completed"), end2 = out.find("run-002: completed");
    QVERIFY2(start1 != std::string::npos && start2 != std::string::npos, out.c_str());
    QVERIFY2(end1 != std::string::npos && end2 != std::string::npos, out.c_str());
    QVERIFY2(std::max(start1, start2) < std::min(end1, end2), out.c_str());
    QVERIFY2(out.find("[run-001] ") != std::string::npos && out.find("[run-002] ") != std::string::npos, out.c_str());
    QVERIFY2(out.find("results by eval_accuracy (highest first):") != std::string::npos, out.c_str());
    const auto a = readSweepFile(one), b = readSweepFile(two);
    QVERIFY(a && b);
    for (size_t i = 0; i < 2; ++i) {
        QCOMPARE(b->runs[i].status, SweepRunStatus::Completed);
        const std::string name = b->runs[i].run.name;
        QVERIFY(fs::exists(two + "/" + name + "/training_summary.json"));
        // The same seed, the same run: the metrics of every step and evaluation are equal.
        const std::string ma = metricsWithoutTimes(one + "/" + name + "/metrics.jsonl");
        QVERIFY(ma.size() > 10);
        QCOMPARE(metricsWithoutTimes(two + "/" + name + "/metrics.jsonl"), ma);
        QCOMPARE(b->runs[i].final_metrics, a->runs[i].final_metrics);
        QVERIFY(b->runs[i].final_metrics.count("eval_accuracy"));
    }
    // The plan is the same format (only base_flags differ: --num_threads given to the first).
    QCOMPARE(b->runs.size(), a->runs.size());
    QCOMPARE(wbtest::runCli({"sweep", "--sweep_dir=" + two, "--max_concurrent_runs=0"}, out, err), 2);
    QVERIFY2(err.find("--max_concurrent_runs: \"0\" is not a whole number of at least 1") != std::string::npos, err.c_str());
}

void tst_CliSweep::interruptedConcurrentSweepResumes()
{
    qputenv("BERT_WORKBENCH_CLI", kCli);
    QTemporaryDir root;
    wbtest::TinyRun tiny;
    tiny.train_size = 16;
    tiny.eval_size = 8;
    tiny.batch_size = 1;
    tiny.num_train_epochs = 12; // 192 steps: far from the end when the stop comes
    TrainingOptions o = wbtest::writeTinyRun(root.path().toStdString(), tiny);
    o.save_checkpoints_steps = 5;
    const std::string dir = root.path().toStdString() + "/sweep";
    const std::vector<std::string> args = sweepArgs(o, dir, "1,2,3", {"--max_concurrent_runs=2"});
    // Ctrl+C once both runs, training at the same time, have each written a checkpoint (a
    // run's first line can come before its model_dir exists; a loaded machine showed it).
    InterruptingBuf buf(std::vector<std::string>{"[run-001] Saved checkpoint", "[run-002] Saved checkpoint"});
    std::ostream out(&buf);
    std::ostringstream err;
    QCOMPARE(wb::cli::runCli(args, out, err), 130);
    QVERIFY(buf.raised);
    const std::string said = buf.str();
    QVERIFY2(said.find("run-001: stopped") != std::string::npos, said.c_str());
    QVERIFY2(said.find("run-002: stopped") != std::string::npos, said.c_str());
    QVERIFY2(said.find("run-003 (3/3)") == std::string::npos, said.c_str()); // not started after the stop
    QVERIFY2(err.str().find("sweep stopped; run the same command again to resume it") != std::string::npos, err.str().c_str());
    auto file = readSweepFile(dir);
    QVERIFY(file);
    QCOMPARE(file->runs[0].status, SweepRunStatus::Stopped);
    QCOMPARE(file->runs[1].status, SweepRunStatus::Stopped);
    QCOMPARE(file->runs[2].status, SweepRunStatus::Pending);
    QVERIFY(!fs::exists(dir + "/run-001/training_summary.json"));
    std::set<std::string> stoppedWithCheckpoint;
    for (const std::string name : {"run-001", "run-002"})
        for (const auto &e : fs::directory_iterator(dir + "/" + name))
            if (e.path().filename().string().rfind("ckpt-", 0) == 0)
                stoppedWithCheckpoint.insert(name);

    // The same command: each interrupted run resumes, the third one starts; all complete.
    std::string again, againErr;
    QCOMPARE(wbtest::runCli(args, again, againErr), 0);
    QVERIFY2(again.find("run-003 (3/3): seed=3") != std::string::npos, again.c_str());
    file = readSweepFile(dir);
    for (const SweepRunRecord &r : file->runs) {
        QCOMPARE(r.status, SweepRunStatus::Completed);
        QVERIFY(fs::exists(dir + "/" + r.run.name + "/training_summary.json"));
    }
    // Each stopped run continued from the checkpoint it wrote when stopped.
    for (const std::string name : {"run-001", "run-002"}) {
        QVERIFY2(stoppedWithCheckpoint.count(name), name.c_str());
        QVERIFY2(again.find("[" + name + "] Resuming from checkpoint " + dir + "/" + name + "/ckpt-") != std::string::npos,
                 again.c_str());
    }
    // A finished sweep: every run skipped.
    QCOMPARE(wbtest::runCli(args, again, againErr), 0);
    QVERIFY2(again.find("run-003: completed, skipped") != std::string::npos, again.c_str());
}

/// The lines of `out` that are not a run's own output (run_progress, run_log).
std::vector<std::string> sweepLevelLines(const std::string &out)
{
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
        const SweepEventKind k = decodeSweepEvent(line).kind;
        if (k != SweepEventKind::RunProgress && k != SweepEventKind::RunLog)
            lines.push_back(line);
    }
    return lines;
}

/// run_ended's line for `r` of sweep.json, the numbers as JSON writes them.
std::string runEndedLine(const SweepRunRecord &r)
{
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto &[k, v] : r.final_metrics)
        m[k] = v;
    return "{\"event\":\"run_ended\",\"run\":\"" + r.run.name
           + "\",\"status\":\"completed\",\"exit_code\":0,\"metric\":\"eval_accuracy\",\"value\":"
           + nlohmann::ordered_json(r.final_metrics.at("eval_accuracy")).dump() + ",\"final_metrics\":" + m.dump() + "}";
}

void tst_CliSweep::jsonlEventsOfATinySweep()
{
    QTemporaryDir root;
    wbtest::TinyRun tiny;
    tiny.train_size = 16;
    tiny.eval_size = 8;
    tiny.num_train_epochs = 1;
    const TrainingOptions o = wbtest::writeTinyRun(root.path().toStdString(), tiny);
    const std::string dir = root.path().toStdString() + "/sweep";
    const std::vector<std::string> args = sweepArgs(o, dir, "1,2", {"--progress_format=jsonl"});
    std::string out, err;
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    const auto file = readSweepFile(dir);
    QVERIFY(file);
    QCOMPARE(file->runs.size(), size_t(2));
    // The best run by eval_accuracy (the first on a tie).
    const bool secondBetter = file->runs[1].final_metrics.at("eval_accuracy") > file->runs[0].final_metrics.at("eval_accuracy");
    const std::vector<std::string> expected = {
        "{\"event\":\"sweep_started\",\"sweep_dir\":\"" + dir
            + "\",\"method\":\"grid\",\"metric\":\"eval_accuracy\",\"runs\":2,\"to_train\":2,\"max_concurrent_runs\":1}",
        "{\"event\":\"run_started\",\"run\":\"run-001\",\"number\":1,\"runs\":2,\"values\":{\"seed\":1},\"model_dir\":\"" + dir
            + "/run-001\"}",
        runEndedLine(file->runs[0]),
        "{\"event\":\"run_started\",\"run\":\"run-002\",\"number\":2,\"runs\":2,\"values\":{\"seed\":2},\"model_dir\":\"" + dir
            + "/run-002\"}",
        runEndedLine(file->runs[1]),
        std::string("{\"event\":\"sweep_finished\",\"status\":\"completed\",\"exit_code\":0,\"runs\":2,\"completed\":2,"
                    "\"stopped\":0,\"failed\":0,\"best_run\":\"")
            + (secondBetter ? "run-002" : "run-001") + "\"}"};
    const std::vector<std::string> got = sweepLevelLines(out);
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i)
        QCOMPARE(QString::fromStdString(got[i]), QString::fromStdString(expected[i]));
    // Every line of stdout is an event; each run's own train events come inside run_progress,
    // from its run_started to its finished, between the sweep's run_started and run_ended.
    std::istringstream in(out);
    std::vector<std::string> trainEvents;
    for (std::string line; std::getline(in, line);) {
        const SweepEvent e = decodeSweepEvent(line);
        QVERIFY2(e.kind != SweepEventKind::NotAnEvent, line.c_str());
        if (e.kind == SweepEventKind::RunProgress) {
            const nlohmann::json data = nlohmann::json::parse(e.data);
            const std::string event = data.at("event").get<std::string>();
            if (event == "run_started" || event == "finished")
                trainEvents.push_back(e.run + " " + event + (event == "finished" ? " " + data.at("status").get<std::string>() : ""));
        }
    }
    QCOMPARE(trainEvents, (std::vector<std::string>{"run-001 run_started", "run-001 finished completed", "run-002 run_started",
                                                   "run-002 finished completed"}));
    QVERIFY2(out.find("results by") == std::string::npos, out.c_str()); // no text on stdout

    // The same command again: both runs skipped.
    QCOMPARE(wbtest::runCli(args, out, err), 0);
    QCOMPARE(sweepLevelLines(out),
             (std::vector<std::string>{
                 "{\"event\":\"sweep_started\",\"sweep_dir\":\"" + dir
                     + "\",\"method\":\"grid\",\"metric\":\"eval_accuracy\",\"runs\":2,\"to_train\":0,\"max_concurrent_runs\":1}",
                 "{\"event\":\"run_skipped\",\"run\":\"run-001\"}", "{\"event\":\"run_skipped\",\"run\":\"run-002\"}",
                 expected.back()}));
    // Flags it cannot start with: the stream still ends with sweep_finished.
    QCOMPARE(wbtest::runCli({"sweep", "--sweep_dir=" + dir + "-2", "--param", "seed=1,x", "--progress_format=jsonl"}, out, err), 2);
    QCOMPARE(out, std::string("{\"event\":\"sweep_finished\",\"status\":\"failed\",\"exit_code\":2,\"runs\":0,\"completed\":0,"
                              "\"stopped\":0,\"failed\":0,\"best_run\":null,\"message\":\"--param: \\\"seed=1,x\\\": \\\"x\\\" "
                              "is not a number\"}\n"));
    QCOMPARE(wbtest::runCli({"sweep", "--sweep_dir=" + dir, "--progress_format=xml"}, out, err), 2);
    QVERIFY2(err.find("--progress_format: \"xml\" is not text or jsonl") != std::string::npos, err.c_str());

    // Runs at the same time: each child's train events inside run_progress, nothing else on stdout.
    qputenv("BERT_WORKBENCH_CLI", kCli);
    const std::string two = root.path().toStdString() + "/two";
    QCOMPARE(wbtest::runCli(sweepArgs(o, two, "1,2", {"--progress_format=jsonl", "--max_concurrent_runs=2"}), out, err), 0);
    std::vector<std::string> kinds;
    std::set<std::string> finishedRuns;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        const SweepEvent e = decodeSweepEvent(line);
        QVERIFY2(e.kind != SweepEventKind::NotAnEvent, line.c_str());
        if (e.kind == SweepEventKind::SweepStarted)
            QCOMPARE(e.max_concurrent_runs, int64_t(2));
        if (e.kind == SweepEventKind::RunStarted)
            kinds.push_back("started " + e.run);
        if (e.kind == SweepEventKind::RunEnded)
            kinds.push_back("ended " + e.run + " " + e.status);
        if (e.kind == SweepEventKind::RunProgress && nlohmann::json::parse(e.data).at("event") == "finished")
            finishedRuns.insert(e.run);
    }
    QCOMPARE(kinds.size(), size_t(4));
    QCOMPARE(kinds[0].rfind("started ", 0), size_t(0)); // both start before either ends
    QCOMPARE(kinds[1].rfind("started ", 0), size_t(0));
    QCOMPARE(std::set<std::string>(kinds.begin() + 2, kinds.end()),
             (std::set<std::string>{"ended run-001 completed", "ended run-002 completed"}));
    QCOMPARE(finishedRuns, (std::set<std::string>{"run-001", "run-002"}));
    QCOMPARE(decodeSweepEvent(sweepLevelLines(out).back()).status, std::string("completed"));
}

QTEST_APPLESS_MAIN(tst_CliSweep)
#include "tst_clisweep.moc"
