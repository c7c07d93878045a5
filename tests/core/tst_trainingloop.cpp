// SPDX-License-Identifier: Apache-2.0
// The training loop on its own (docs/architecture.md, "The engine"): a task that is neither
// fine-tuning nor pretraining plugs into TrainingLoop without touching it, and gets the loop's
// checkpoints, resume, reports, the task's own metrics.jsonl fields, the NaN stop and the user's
// stop. The toy task classifies whether a sequence's first token id is above 50, from batches it
// makes itself (batch k is drawn from seed + k: the same batch at the same step, resumed or not).
#include "core/engine/preflight.h"
#include "core/engine/trainingloop.h"
#include "core/model/bertmodel.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

namespace fs = std::filesystem;
using namespace wb;

namespace {

class ToyTask final : public TrainingTask
{
public:
    ToyTask(const TrainingOptions &spec, const BertConfig &cfg, const InputMetaData &meta)
        : m_spec(spec), m_cfg(cfg), m_meta(meta)
    {
    }

    bool poisonFirstStep = false; ///< the first micro-batch's loss is NaN
    int reports = 0;

    std::string noun() const override { return "toy"; }
    torch::nn::Module &buildModel() override
    {
        m_model = nn::BertForSequenceClassification(m_cfg, 2, nn::makeGenerator(uint64_t(m_spec.seed)));
        return *m_model;
    }
    CheckpointModel checkpointModel() override { return {*m_model, m_model->config(), 2, m_model->generator()}; }
    const InputMetaData &checkpointMeta() const override { return m_meta; }
    void initialWeights(TrainingObserver &obs) override { obs.logMessage("toy: random weights"); }
    void describe(RunStarted &info, CoachSetup &coach) const override
    {
        info.num_labels = 2;
        coach.regression = true; // no classification verdicts on a toy
    }
    std::string announcement(const RunStarted &info) const override
    {
        return "Toy " + std::to_string(info.parameter_count) + " parameters";
    }
    void openData(const LoopParts &, int64_t start) override { m_next = start; }
    bool writesEvalExamples(const LoopParts &) const override { return false; }
    int64_t nextBatch(const LoopParts &) override
    {
        std::tie(m_ids, m_labels) = batch(uint64_t(m_spec.seed) * 1000 + uint64_t(m_next++), m_spec.train_batch_size);
        return m_spec.train_batch_size;
    }
    torch::Tensor microBatchLoss(const LoopParts &parts, int64_t k) override
    {
        const int64_t micro = m_ids.size(0) / parts.microBatches;
        const auto ids = m_ids.narrow(0, k * micro, micro), labels = m_labels.narrow(0, k * micro, micro);
        const auto logits = m_model->forward(ids, torch::ones_like(ids), torch::zeros_like(ids));
        auto loss = torch::nn::functional::cross_entropy(logits, labels);
        if (poisonFirstStep)
            loss = loss * std::nan("");
        m_correct += (logits.argmax(-1) == labels).sum().item<double>();
        m_seen += double(micro);
        return loss;
    }
    NamedScalars reportFields() override
    {
        ++reports;
        const double accuracy = m_seen > 0 ? m_correct / m_seen : 0.0;
        m_correct = m_seen = 0;
        return {{"toy_accuracy", accuracy}};
    }
    TaskEvaluation evaluate(const LoopParts &, EvalExtras &) override
    {
        torch::NoGradGuard noGrad;
        m_model->eval();
        const auto [ids, labels] = batch(424242, 64); // the same eval batch every time
        const auto logits = m_model->forward(ids, torch::ones_like(ids), torch::zeros_like(ids));
        m_model->train();
        TaskEvaluation ev;
        ev.metrics.eval_loss = torch::nn::functional::cross_entropy(logits, labels).item<double>();
        ev.metrics.eval_accuracy = (logits.argmax(-1) == labels).to(torch::kDouble).mean().item<double>();
        ev.metrics.num_examples = 64;
        ev.fields = {{"eval_toy_accuracy", ev.metrics.eval_accuracy}};
        ev.tensorboard = {{"eval_loss", ev.metrics.eval_loss}};
        ev.log_line = "Eval: toy_accuracy = " + std::to_string(ev.metrics.eval_accuracy);
        return ev;
    }

private:
    /// `rows` sequences of 8 token ids in [5, 100); label 1 when the first id is above 50.
    static std::pair<torch::Tensor, torch::Tensor> batch(uint64_t seed, int64_t rows)
    {
        std::mt19937_64 rng(seed);
        std::uniform_int_distribution<int64_t> id(5, 99);
        auto ids = torch::empty({rows, 8}, torch::kLong);
        auto labels = torch::empty({rows}, torch::kLong);
        for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < 8; ++c)
                ids[r][c] = id(rng);
            labels[r] = ids[r][0].item<int64_t>() > 50 ? 1 : 0;
        }
        return {ids, labels};
    }

    const TrainingOptions &m_spec;
    const BertConfig &m_cfg;
    const InputMetaData &m_meta;
    nn::BertForSequenceClassification m_model{nullptr};
    int64_t m_next = 0;
    torch::Tensor m_ids, m_labels;
    double m_correct = 0, m_seen = 0;
};

std::vector<nlohmann::json> metricsLines(const std::string &modelDir, const std::string &kind)
{
    std::vector<nlohmann::json> out;
    std::ifstream in(modelDir + "/metrics.jsonl");
    for (std::string line; std::getline(in, line);)
        if (auto j = nlohmann::json::parse(line); j.value("kind", "") == kind)
            out.push_back(j);
    return out;
}

std::string fileBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace

class TestTrainingLoop : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    /// A validated tiny run (4 steps an epoch, 3 epochs: 12 steps), in `name` under the temp dir.
    TrainingOptions options(const std::string &name) const
    {
        wbtest::TinyRun p;
        p.train_size = 32;
        p.num_train_epochs = 3;
        p.dropout_prob = 0.0;
        p.model_dir = name;
        TrainingOptions o = wbtest::writeTinyRun(m_dir.path().toStdString(), p);
        o.learning_rate = 3e-3;
        o.steps_per_loop = 1;
        o.num_threads = 1;
        return o;
    }

    struct Outcome
    {
        RunFinished finished;
        std::vector<std::string> logs;
        int reports = 0;
    };

    static Outcome run(const TrainingOptions &o, bool poison = false, int stopAfterCheckpoints = 0)
    {
        const ValidationResult v = validateRun(o);
        if (!v.ok())
            qFatal("the tiny run does not validate: %s", v.diagnostics.format().c_str());
        wbtest::RecordingObserver obs;
        StopToken stop;
        if (stopAfterCheckpoints) {
            obs.stopAfterCheckpoints = &stop;
            obs.stopAfterCount = stopAfterCheckpoints;
        }
        ToyTask task(o, *v.bert_config, *v.meta_data);
        task.poisonFirstStep = poison;
        RunFinished progress;
        Outcome out;
        out.finished = TrainingLoop(o, *v.bert_config, *v.meta_data, *v.schedule, obs, stop, progress).run(task);
        out.logs = obs.logs;
        out.reports = task.reports;
        return out;
    }

    static bool logged(const Outcome &o, const std::string &text)
    {
        for (const auto &l : o.logs)
            if (l.find(text) != std::string::npos)
                return true;
        return false;
    }

private Q_SLOTS:
    void aNewTaskTrainsThroughTheLoop()
    {
        const TrainingOptions o = options("toy");
        const Outcome r = run(o);
        QCOMPARE(int(r.finished.status), int(RunStatus::Completed));
        QCOMPARE(r.finished.message, std::string("toy completed at step 12"));
        QVERIFY(logged(r, "toy: random weights"));
        QVERIFY(logged(r, "Toy "));
        QVERIFY(logged(r, " parameters: steps_per_epoch 4, total_steps 12"));
        // The loop's checkpoints (one an epoch), its run identity and summary.
        for (const char *f : {"ckpt-4", "ckpt-8", "ckpt-12", "checkpoint", "run_config.json", "training_summary.json"})
            QVERIFY2(fs::exists(fs::path(o.model_dir) / f), f);
        // The task's own fields in metrics.jsonl, a report a step (--steps_per_loop 1).
        const auto train = metricsLines(o.model_dir, "train");
        QCOMPARE(train.size(), size_t(12));
        QCOMPARE(r.reports, 12);
        for (const auto &l : train)
            QVERIFY(l.contains("toy_accuracy"));
        const auto evals = metricsLines(o.model_dir, "eval");
        QCOMPARE(evals.size(), size_t(3));
        QCOMPARE(evals.back().at("eval_toy_accuracy").get<double>(), evals.back().at("eval_accuracy").get<double>());
        // It learns: the eval loss falls from the first evaluation to the last.
        QVERIFY2(evals.back().at("eval_loss").get<double>() < evals.front().at("eval_loss").get<double>(),
                 evals.back().dump().c_str());
    }

    void aStoppedTaskResumesToTheSameBits()
    {
        const TrainingOptions whole = options("whole");
        QCOMPARE(int(run(whole).finished.status), int(RunStatus::Completed));
        const TrainingOptions parts = options("parts");
        const Outcome first = run(parts, false, 1); // stop once ckpt-4 is written
        QCOMPARE(int(first.finished.status), int(RunStatus::Cancelled));
        QVERIFY(!fs::exists(fs::path(parts.model_dir) / "ckpt-12"));
        const Outcome second = run(parts);
        QCOMPARE(int(second.finished.status), int(RunStatus::Completed));
        QVERIFY(logged(second, "Resuming from checkpoint"));
        QVERIFY(!logged(second, "toy: random weights")); // a resumed run's weights are its checkpoint's
        QCOMPARE(fileBytes(parts.model_dir + "/ckpt-12"), fileBytes(whole.model_dir + "/ckpt-12"));
        // Run again: complete already, nothing changes.
        const Outcome third = run(parts);
        QCOMPARE(third.finished.message.rfind("training was already complete at step 12", 0), size_t(0));
    }

    void aNonFiniteLossStopsTheRunInTheTasksWords()
    {
        const TrainingOptions o = options("nan");
        const Outcome r = run(o, true);
        QCOMPARE(int(r.finished.status), int(RunStatus::Failed));
        QCOMPARE(r.finished.field, std::string("learning_rate"));
        QCOMPARE(r.finished.message.rfind("the toy loss became NaN at step 1 (learning_rate ", 0), size_t(0));
        QVERIFY(r.finished.message.find("no checkpoint was written") != std::string::npos);
        QVERIFY(!fs::exists(fs::path(o.model_dir) / "ckpt-1"));
    }
};

QTEST_GUILESS_MAIN(TestTrainingLoop)
#include "tst_trainingloop.moc"
