// SPDX-License-Identifier: Apache-2.0
// A run owns its random state (issue 21, section 2; docs/architecture.md "Random state"):
// - a run with dropout stopped at its checkpoint and resumed takes exactly the steps of the
//   uninterrupted run (every step's loss and the final weights, bit for bit);
// - a run trained while other jobs use libtorch on other threads (Try it's TextClassifier
//   built and classifying, the learning-rate range test, and code drawing from and seeding
//   libtorch's default generator) is exactly the run trained alone.
#include "core/engine/lrfind.h"
#include "core/formats/trainingdynamics.h"
#include "core/engine/preparedrun.h"
#include "core/infer/textclassifier.h"
#include "core/launch/trainer.h"
#include "support/randomnessrun.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <torch/torch.h>

#include <QtTest>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

using namespace wb;
namespace fs = std::filesystem;

namespace {

/// The most a training step waits for the other jobs to make progress (a hang guard, not a
/// timing assertion: the test fails with a message instead of hanging).
constexpr auto kProgressWait = std::chrono::seconds(120);

/// The whole of a file (empty when missing).
std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Every step's loss of a run reported with steps_per_loop 1, by step.
std::map<int64_t, double> stepLosses(const wbtest::RecordingObserver &obs)
{
    std::map<int64_t, double> out;
    for (const auto &s : obs.steps)
        out[s.step] = s.loss;
    return out;
}

/// Counts the iterations of the other jobs; the training run's observer waits, after each
/// step, until every job has finished one more iteration, so that each step of the run
/// interleaves with all of them (no timing involved).
struct JobProgress
{
    std::mutex mutex;
    std::condition_variable changed;
    std::map<std::string, int64_t> counts;
    std::vector<std::string> errors;
    bool starved = false;

    void tick(const std::string &job)
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            ++counts[job];
        }
        changed.notify_all();
    }
    void fail(const std::string &job, const std::string &what)
    {
        {
            std::lock_guard<std::mutex> lock(mutex);
            errors.push_back(job + ": " + what);
            starved = true; // stop waiting for a job that has ended
        }
        changed.notify_all();
    }
    /// Waits until every one of `jobs` counted more than in `seen`; updates `seen`.
    void waitForEach(const std::vector<std::string> &jobs, std::map<std::string, int64_t> &seen)
    {
        std::unique_lock<std::mutex> lock(mutex);
        const auto ahead = [&] {
            for (const auto &j : jobs)
                if (counts[j] <= seen[j])
                    return false;
            return true;
        };
        if (!starved && !changed.wait_for(lock, kProgressWait, [&] { return starved || ahead(); }))
            starved = true;
        for (const auto &j : jobs)
            seen[j] = counts[j];
    }
};

/// The observer of the busy run: records, and after every step waits for the other jobs.
struct InterleavingObserver : wbtest::RecordingObserver
{
    JobProgress *progress = nullptr;
    std::vector<std::string> jobs;
    std::map<std::string, int64_t> seen;
    void stepCompleted(const StepMetrics &m) override
    {
        RecordingObserver::stepCompleted(m);
        progress->waitForEach(jobs, seen);
    }
};

} // namespace

class tst_RunRandomness : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void resumeContinuesTheRandomStream();
    void otherJobsDoNotChangeARun();

private:
    TrainingOptions options(const std::string &modelDir) const;

    QTemporaryDir m_dir;
    std::string m_root;
    TrainingOptions m_base;
};

void tst_RunRandomness::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_root = m_dir.path().toStdString();
    wbtest::TinyRun tiny;
    tiny.train_size = 80; // batch 8: 10 steps an epoch, 2 epochs = 20 steps, checkpoints at 10 and 20
    m_base = wbtest::writeDropoutRun(m_root, tiny, 11);
    m_base.num_threads = 0;
}

TrainingOptions tst_RunRandomness::options(const std::string &modelDir) const
{
    TrainingOptions o = m_base;
    o.model_dir = m_root + "/" + modelDir;
    return o;
}

void tst_RunRandomness::resumeContinuesTheRandomStream()
{
    Trainer trainer;
    wbtest::RecordingObserver whole;
    StopToken none;
    const TrainingOptions ref = options("uninterrupted");
    RunFinished r = trainer.run(ref, whole, none);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    QCOMPARE(r.last_step, int64_t(20));

    const TrainingOptions o = options("resumed");
    wbtest::RecordingObserver first, second;
    StopToken stop;
    first.stopAfterCheckpoints = &stop; // stops after ckpt-10
    r = trainer.run(o, first, stop);
    QCOMPARE(int(r.status), int(RunStatus::Cancelled));
    QCOMPARE(r.last_step, int64_t(10));
    // As if killed after writing training_dynamics.jsonl for a later checkpoint it never wrote:
    // the resume keeps only the steps up to ckpt-10 (docs/data-map.md).
    fs::copy_file(ref.model_dir + "/training_dynamics.jsonl", o.model_dir + "/training_dynamics.jsonl",
                  fs::copy_options::overwrite_existing);
    stop.reset();
    r = trainer.run(o, second, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    QVERIFY(second.logged("Resuming from checkpoint"));

    std::map<int64_t, double> resumed = stepLosses(first);
    for (const auto &[step, loss] : stepLosses(second))
        resumed[step] = loss;
    const std::map<int64_t, double> expected = stepLosses(whole);
    QCOMPARE(int(expected.size()), 20);
    QCOMPARE(resumed, expected); // every step's loss, bit for bit
    const std::string diff = wbtest::weightsDiffer(ref.model_dir + "/ckpt-20", o.model_dir + "/ckpt-20");
    QVERIFY2(diff.empty(), diff.c_str());
    // The training dynamics of the resumed run are the uninterrupted run's, byte for byte.
    QCOMPARE(readText(o.model_dir + "/training_dynamics.jsonl"), readText(ref.model_dir + "/training_dynamics.jsonl"));
    QCOMPARE(readTrainingDynamics(o.model_dir + "/training_dynamics.jsonl").size(), size_t(80));
    // The stream matters: another seed gives other losses.
    TrainingOptions other = options("other_seed");
    other.seed = 12;
    wbtest::RecordingObserver otherObs;
    trainer.run(other, otherObs, none);
    QVERIFY(stepLosses(otherObs) != expected);
}

void tst_RunRandomness::otherJobsDoNotChangeARun()
{
    // The run alone.
    Trainer trainer;
    StopToken none;
    wbtest::RecordingObserver alone;
    const TrainingOptions soloOptions = options("alone");
    RunFinished r = trainer.run(soloOptions, alone, none);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());

    // The same run while three other jobs run on their own threads, each interleaving
    // with every step: Try it (a TextClassifier loaded from the finished run and used),
    // the range test, and code using libtorch's default generator (seeding and drawing).
    JobProgress progress;
    std::atomic<bool> done{false};
    StopToken lrStop;
    std::vector<std::thread> jobs;
    jobs.emplace_back([&] {
        ClassifierSource src;
        src.model_dir = soloOptions.model_dir;
        src.bert_config_file = soloOptions.bert_config_file;
        src.input_meta_data_path = soloOptions.input_meta_data_path;
        src.vocab_file = m_root + "/vocab.txt";
        try {
            while (!done) {
                TextClassifier classifier(src);
                const Classification c = classifier.classify("w5 w60 w7", "w70");
                if (c.probabilities.size() != 2)
                    throw std::runtime_error("classify gave " + std::to_string(c.probabilities.size()) + " labels");
                progress.tick("try_it");
            }
        } catch (const std::exception &e) {
            progress.fail("try_it", e.what());
        }
    });
    jobs.emplace_back([&] {
        TrainingOptions lr = options("lr_find");
        lr.lr_find_steps = 12;
        lr.lr_find_start = 1e-6;
        lr.lr_find_end = 1e-2;
        wbtest::RecordingObserver lrObs;
        try {
            while (!done)
                findLearningRate(prepareRun(lr, RunPurpose::LrFind), lrObs, lrStop, [&](const LrFindResult &) { progress.tick("lr_find"); });
        } catch (const std::exception &e) {
            if (!done)
                progress.fail("lr_find", e.what());
        }
    });
    jobs.emplace_back([&] {
        for (uint64_t k = 0; !done; ++k) {
            torch::manual_seed(k);
            torch::rand({64});
            torch::dropout(torch::ones({64}), 0.5, true);
            progress.tick("default_generator");
        }
    });
    InterleavingObserver busy;
    busy.progress = &progress;
    busy.jobs = {"try_it", "lr_find", "default_generator"};
    const TrainingOptions busyOptions = options("busy");
    r = trainer.run(busyOptions, busy, none);
    done = true;
    lrStop.requestStop();
    progress.changed.notify_all();
    for (auto &t : jobs)
        t.join();
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    QVERIFY2(progress.errors.empty(), progress.errors.empty() ? "" : progress.errors.front().c_str());
    QVERIFY2(!progress.starved, "a job made no progress while the run trained");
    for (const auto &job : busy.jobs)
        QVERIFY2(progress.counts[job] >= 20, job.c_str()); // at least one iteration between any two steps

    QCOMPARE(int(stepLosses(alone).size()), 20);
    QCOMPARE(stepLosses(busy), stepLosses(alone)); // every step's loss, bit for bit
    QCOMPARE(busy.evals.back().eval_loss, alone.evals.back().eval_loss);
    const std::string diff = wbtest::weightsDiffer(soloOptions.model_dir + "/ckpt-20", busyOptions.model_dir + "/ckpt-20");
    QVERIFY2(diff.empty(), diff.c_str());
}

QTEST_APPLESS_MAIN(tst_RunRandomness)
#include "tst_runrandomness.moc"
