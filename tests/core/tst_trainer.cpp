// SPDX-License-Identifier: Apache-2.0
// End-to-end: Trainer::run on tiny synthetic TFRecords (hidden 32, 2 layers, vocab 100).
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/model/initcheckpoint.h"
#include "core/weights/safetensors.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

using namespace wb;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kSeq = 16;

void writeRecords(const std::string &path, int n, uint32_t seed)
{
    std::mt19937 rng(seed);
    TFRecordWriter w(path);
    for (int k = 0; k < n; ++k) {
        ClassifierRecord r;
        const int64_t label = k % 2;
        const int64_t len = 6 + int64_t(rng() % 10);
        for (int64_t t = 0; t < kSeq; ++t) {
            const bool real = t < len;
            int64_t id = real ? 30 + int64_t(rng() % 70) : 0;
            if (t == 0)
                id = 2; // [CLS]
            if (t == 1 || t == 3)
                id = label ? 10 : 20; // the signal
            r.input_ids.push_back(id);
            r.input_mask.push_back(real ? 1 : 0);
            r.segment_ids.push_back(0);
        }
        r.label_id = label;
        w.write(encodeClassifierRecord(r));
    }
    w.commit();
}

using Recorder = wbtest::RecordingObserver;

} // namespace

class tst_Trainer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void trainsAndWritesModelDir();
    void sameSeedSameLosses();
    void resumeContinuesExactly();
    void refusesOtherArchitecture();
    void nanLossFails();
    void predictAndExportRoundTrip();

private:
    TrainingOptions spec(const QString &modelDir) const;
    QTemporaryDir m_dir;
    std::string m_data;
};

void tst_Trainer::initTestCase()
{
    m_data = m_dir.path().toStdString();
    writeRecords(m_data + "/train.tf_record", 256, 1);
    writeRecords(m_data + "/eval.tf_record", 64, 2);
    nlohmann::json cfg = {{"vocab_size", 100},         {"hidden_size", 32},          {"num_hidden_layers", 2},
                          {"num_attention_heads", 2},  {"intermediate_size", 64},    {"hidden_act", "gelu"},
                          {"hidden_dropout_prob", 0.1}, {"attention_probs_dropout_prob", 0.1},
                          {"max_position_embeddings", 32}, {"type_vocab_size", 2},   {"initializer_range", 0.02}};
    std::ofstream(m_data + "/bert_config.json") << cfg.dump(2);
    cfg["hidden_size"] = 64;
    std::ofstream(m_data + "/bert_config_wide.json") << cfg.dump(2);
    // Word embeddings so large that the first forward pass overflows to inf, then NaN.
    saveSafetensors(m_data + "/overflow.safetensors",
                    {{"bert.embeddings.word_embeddings.weight", torch::full({100, 32}, 3e38f)}});
    nlohmann::json meta = {{"processor_type", "TEST"}, {"task_type", "bert_classification"}, {"num_labels", 2},
                           {"label_type", "int"},      {"max_seq_length", kSeq},              {"train_data_size", 256},
                           {"eval_data_size", 64}};
    std::ofstream(m_data + "/input_meta_data.json") << meta.dump(2);
}

TrainingOptions tst_Trainer::spec(const QString &modelDir) const
{
    TrainingOptions s;
    s.distribution_strategy = "one_device";
    s.bert_config_file = m_data + "/bert_config.json";
    s.input_meta_data_path = m_data + "/input_meta_data.json";
    s.train_data_path = m_data + "/train.tf_record";
    s.eval_data_path = m_data + "/eval.tf_record";
    s.model_dir = m_dir.filePath(modelDir).toStdString();
    s.train_batch_size = 16;
    s.eval_batch_size = 16;
    s.learning_rate = 2e-3;
    s.num_train_epochs = 3;
    s.num_eval_per_epoch = 1;
    s.seed = 7;
    s.log_steps = 0;
    return s;
}

void tst_Trainer::trainsAndWritesModelDir()
{
    Recorder rec;
    StopToken stop;
    Trainer t;
    const TrainingOptions s = spec(QStringLiteral("run1"));
    const RunFinished r = t.run(s, rec, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    QCOMPARE(int(rec.finished.size()), 1);
    QCOMPARE(r.last_step, int64_t(48)); // 3 epochs × 256/16
    QCOMPARE(int(rec.evals.size()), 3);
    QCOMPARE(rec.evals.back().num_examples, int64_t(64));
    QVERIFY2(rec.evals.back().eval_accuracy >= 0.9, std::to_string(rec.evals.back().eval_accuracy).c_str());
    QVERIFY(rec.evals.back().binary);
    QCOMPARE(int(rec.checkpoints.size()), 3);
    QVERIFY(fs::exists(s.model_dir + "/ckpt-16") && fs::exists(s.model_dir + "/ckpt-48"));
    std::ifstream idx(s.model_dir + "/checkpoint");
    std::string first;
    std::getline(idx, first);
    QCOMPARE(QString::fromStdString(first), QStringLiteral("model_checkpoint_path: \"ckpt-48\""));
    // metrics.jsonl: train lines with falling loss, eval lines
    std::ifstream in(s.model_dir + "/metrics.jsonl");
    std::string line;
    std::vector<double> trainLoss;
    int evalLines = 0;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line);
        if (j["kind"] == "train")
            trainLoss.push_back(j["loss"].get<double>());
        else if (j["kind"] == "eval")
            ++evalLines;
    }
    QCOMPARE(evalLines, 3);
    QVERIFY(trainLoss.size() >= 3);
    QVERIFY(trainLoss.back() < trainLoss.front());
    auto summary = nlohmann::json::parse(std::ifstream(s.model_dir + "/training_summary.json"));
    QCOMPARE(summary["total_training_steps"].get<int>(), 48);
    QVERIFY(summary["eval_metrics"].get<double>() >= 0.9);
}

void tst_Trainer::sameSeedSameLosses()
{
    Recorder a, b;
    StopToken stop;
    Trainer t;
    TrainingOptions s = spec(QStringLiteral("seedA"));
    s.num_train_epochs = 1;
    const RunFinished ra = t.run(s, a, stop);
    s.model_dir = m_dir.filePath(QStringLiteral("seedB")).toStdString();
    const RunFinished rb = t.run(s, b, stop);
    QCOMPARE(a.evals.size(), b.evals.size());
    QCOMPARE(a.evals.back().eval_loss, b.evals.back().eval_loss);
    QCOMPARE(ra.final_train_loss, rb.final_train_loss); // mean train loss of the epoch
    s.model_dir = m_dir.filePath(QStringLiteral("seedC")).toStdString();
    s.seed = 8;
    Recorder c;
    t.run(s, c, stop);
    QVERIFY(c.evals.back().eval_loss != a.evals.back().eval_loss); // the seed matters
}

void tst_Trainer::resumeContinuesExactly()
{
    // Reference: uninterrupted run1 (3 epochs). Now stop after the first checkpoint, restart.
    Recorder first;
    StopToken stop;
    first.stopAfterCheckpoints = &stop;
    Trainer t;
    const TrainingOptions s = spec(QStringLiteral("resume"));
    RunFinished r = t.run(s, first, stop);
    QCOMPARE(int(r.status), int(RunStatus::Cancelled));
    QCOMPARE(r.last_step, int64_t(16));
    stop.reset();
    Recorder second;
    r = t.run(s, second, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    QCOMPARE(int(second.evals.size()), 2); // steps 32 and 48
    Recorder ref;
    StopToken none;
    t.run(spec(QStringLiteral("resume_ref")), ref, none);
    QCOMPARE(second.evals.back().eval_loss, ref.evals.back().eval_loss); // bit-identical continuation
    // metrics.jsonl has each eval step once
    std::ifstream in(s.model_dir + "/metrics.jsonl");
    std::string line;
    std::vector<int> evalSteps;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line);
        if (j["kind"] == "eval")
            evalSteps.push_back(j["step"].get<int>());
    }
    QCOMPARE(evalSteps, (std::vector<int>{16, 32, 48}));
}

void tst_Trainer::refusesOtherArchitecture()
{
    Recorder rec;
    StopToken stop;
    Trainer t;
    TrainingOptions s = spec(QStringLiteral("run1")); // has checkpoints of the 32-wide model
    s.bert_config_file = m_data + "/bert_config_wide.json";
    const RunFinished r = t.run(s, rec, stop);
    QCOMPARE(int(r.status), int(RunStatus::Failed));
    // The pre-flight model_dir check (run_config.json) lists the difference; the hint gives the ways out.
    QVERIFY2(QString::fromStdString(r.message).contains(QStringLiteral("bert_config.hidden_size: 32 → 64")), r.message.c_str());
    QVERIFY2(r.hint.find("--init_checkpoint=") != std::string::npos, r.hint.c_str());
    QVERIFY(!fs::exists(s.model_dir + "/ckpt-49")); // nothing ran
}

void tst_Trainer::nanLossFails()
{
    Recorder rec;
    StopToken stop;
    Trainer t;
    TrainingOptions s = spec(QStringLiteral("nan"));
    s.init_checkpoint = m_data + "/overflow.safetensors"; // (a learning rate of 1e30 is refused before the run now)
    s.allow_partial_init = true; // only the word embeddings, on purpose
    const RunFinished r = t.run(s, rec, stop);
    QCOMPARE(int(r.status), int(RunStatus::Failed));
    QVERIFY2(QString::fromStdString(r.message).contains(QStringLiteral("at step")), r.message.c_str());
    QCOMPARE(QString::fromStdString(r.field), QStringLiteral("learning_rate"));
}

void tst_Trainer::predictAndExportRoundTrip()
{
    Recorder rec;
    StopToken stop;
    Trainer t;
    TrainingOptions s = spec(QStringLiteral("run1"));
    s.mode = "predict";
    RunFinished r = t.run(s, rec, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    std::ifstream in(s.model_dir + "/test_results.tsv");
    std::stringstream tsv;
    tsv << in.rdbuf();
    const std::string fromCkpt = tsv.str();
    std::istringstream lines(fromCkpt);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
        const auto tab = line.find('\t');
        QVERIFY(tab != std::string::npos);
        QVERIFY(std::abs(std::stod(line.substr(0, tab)) + std::stod(line.substr(tab + 1)) - 1.0) < 1e-5);
        ++n;
    }
    QCOMPARE(n, 64);

    s.mode = "export_only";
    s.model_export_path = m_dir.filePath(QStringLiteral("export")).toStdString();
    r = t.run(s, rec, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    const auto header = readSafetensorsHeader(s.model_export_path + "/model.safetensors");
    QVERIFY(header.find("bert.encoder.layer.1.output.LayerNorm.weight"));
    QVERIFY(header.find("classifier.weight"));
    QVERIFY(fs::exists(s.model_export_path + "/bert_config.json"));
    QVERIFY(fs::exists(s.model_export_path + "/labels.txt"));

    // The export predicts exactly like the checkpoint it came from.
    s.mode = "predict";
    s.model_dir = m_dir.filePath(QStringLiteral("fromexport")).toStdString();
    s.predict_checkpoint_path = s.model_export_path + "/model.safetensors";
    r = t.run(s, rec, stop);
    QVERIFY2(r.status == RunStatus::Completed, r.message.c_str());
    std::ifstream in2(s.model_dir + "/test_results.tsv");
    std::stringstream tsv2;
    tsv2 << in2.rdbuf();
    QCOMPARE(QString::fromStdString(tsv2.str()), QString::fromStdString(fromCkpt));
}

QTEST_APPLESS_MAIN(tst_Trainer)
#include "tst_trainer.moc"
