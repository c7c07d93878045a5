// SPDX-License-Identifier: Apache-2.0
// --dtype and --gradient_accumulation_steps (issue 17): autocast scopes, bf16 training with
// float32 weights and checkpoints, accumulation equal to the whole batch.
#include "core/model/bertmodel.h"
#include "core/model/pretrainingheads.h"
#include "core/engine/checkpointio.h"
#include "core/engine/precision.h"
#include "core/launch/trainer.h"
#include "support/recordingobserver.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <ATen/autocast_mode.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace wb;

namespace {

/// Reads a checkpoint's model tensors (name → tensor) as saved: the "model" entry is a
/// generic dict of name → tensor (core/engine/checkpointio.h).
std::map<std::string, torch::Tensor> checkpointTensors(const std::string &path)
{
    torch::serialize::InputArchive archive;
    archive.load_from(path);
    c10::IValue model;
    if (!archive.try_read("model", model) || !model.isGenericDict())
        throw std::runtime_error(path + ": no model dict");
    std::map<std::string, torch::Tensor> out;
    for (const auto &entry : model.toGenericDict())
        out[entry.key().toStringRef()] = entry.value().toTensor();
    return out;
}

/// The options of a 40-example tiny run in `root` (batch 8, one epoch: 5 optimizer steps,
/// one loop of 5) with dropout `dropoutProb`: the runs the trainer-level equality tests compare.
TrainingOptions fiveStepRun(const std::string &root, double dropoutProb)
{
    wbtest::TinyRun p;
    p.train_size = 40;
    p.num_train_epochs = 1;
    p.dropout_prob = dropoutProb;
    TrainingOptions o = wbtest::writeTinyRun(root, p);
    o.steps_per_loop = 5;
    return o;
}

/// The largest absolute difference between same-named tensors of `a` and `b` (which must
/// have the same names); `worstName` gets the tensor where it is.
double largestDifference(const std::map<std::string, torch::Tensor> &a, const std::map<std::string, torch::Tensor> &b,
                         std::string *worstName = nullptr)
{
    double worst = 0;
    for (const auto &[name, t] : a) {
        const double d = (t - b.at(name)).abs().max().item<double>();
        if (d > worst) {
            worst = d;
            if (worstName)
                *worstName = name;
        }
    }
    return worst;
}

/// Rewrites the bert_config.json of `o` without dropout (deterministic steps).
void withoutDropout(const TrainingOptions &o)
{
    std::ifstream in(o.bert_config_file);
    nlohmann::json cfg = nlohmann::json::parse(in);
    in.close();
    cfg["hidden_dropout_prob"] = 0.0;
    cfg["attention_probs_dropout_prob"] = 0.0;
    std::ofstream(o.bert_config_file) << cfg.dump();
}

} // namespace

class tst_Precision : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(1); }
    void autocastScopesTheMatmuls();
    void lossScalerFollowsKeras();
    void bf16TrainsWithFloat32Weights();
    void bf16PretrainingHeads();
    void accumulationEqualsWholeBatch();
    void activationCheckpointingTrainsTheSame();

private:
    QTemporaryDir m_dir;
};

void tst_Precision::autocastScopesTheMatmuls()
{
    torch::manual_seed(1);
    torch::nn::Linear linear(8, 4);
    const auto x = torch::randn({3, 8});
    {
        AutocastGuard guard(NumberFormat::Bf16, c10::Device(c10::kCPU));
        QVERIFY(at::autocast::is_cpu_enabled());
        QCOMPARE(linear->forward(x).scalar_type(), c10::kBFloat16);
    }
    QVERIFY(!at::autocast::is_cpu_enabled());
    QCOMPARE(linear->forward(x).scalar_type(), c10::kFloat);
    {
        AutocastGuard guard(NumberFormat::Fp32, c10::Device(c10::kCPU));
        QVERIFY(!at::autocast::is_cpu_enabled());
        QCOMPARE(linear->forward(x).scalar_type(), c10::kFloat);
    }
    QVERIFY_THROWS_EXCEPTION(std::exception, AutocastGuard(NumberFormat::Fp16, c10::Device(c10::kCPU)));
    QVERIFY(!at::autocast::is_cpu_enabled());

    // The model under bf16: logits float32, close to the float32 logits but not equal
    // (the matmuls really ran in bf16), parameters untouched float32.
    BertConfig c;
    c.vocab_size = 100, c.hidden_size = 32, c.num_hidden_layers = 2, c.num_attention_heads = 2;
    c.intermediate_size = 64, c.max_position_embeddings = 32, c.type_vocab_size = 2;
    nn::BertForSequenceClassification model(c, 2, nn::makeGenerator(101));
    model->eval();
    const auto ids = torch::randint(1, 100, {4, 16});
    const auto mask = torch::ones({4, 16}, torch::kLong);
    const auto seg = torch::zeros({4, 16}, torch::kLong);
    torch::NoGradGuard noGrad;
    const auto ref = model->forward(ids, mask, seg);
    torch::Tensor low;
    {
        AutocastGuard guard(NumberFormat::Bf16, c10::Device(c10::kCPU));
        low = model->forward(ids, mask, seg);
    }
    QCOMPARE(low.scalar_type(), c10::kFloat);
    const double diff = (low - ref).abs().max().item<double>();
    QVERIFY2(diff > 0 && diff < 0.05, std::to_string(diff).c_str());
    for (const auto &p : model->parameters())
        QCOMPARE(p.scalar_type(), c10::kFloat);
}

void tst_Precision::lossScalerFollowsKeras()
{
    LossScaler s;
    QCOMPARE(s.scale(), 32768.0);
    auto w = torch::zeros({2}, torch::requires_grad());
    w.mutable_grad() = torch::tensor({32768.0f, -65536.0f});
    QVERIFY(s.unscale({w}));
    QCOMPARE(w.grad()[0].item<float>(), 1.0f); // unscaled in place
    QCOMPARE(w.grad()[1].item<float>(), -2.0f);
    QCOMPARE(s.scale(), 32768.0);
    w.mutable_grad() = torch::tensor({std::numeric_limits<float>::infinity(), 1.0f});
    QVERIFY(!s.unscale({w}));
    QCOMPARE(s.scale(), 16384.0); // halved, the step is skipped
    for (int64_t k = 0; k < LossScaler::kGrowthInterval - 1; ++k) {
        w.mutable_grad() = torch::ones({2});
        QVERIFY(s.unscale({w}));
    }
    QCOMPARE(s.scale(), 16384.0);
    w.mutable_grad() = torch::ones({2});
    QVERIFY(s.unscale({w}));
    QCOMPARE(s.scale(), 32768.0); // doubled after 2000 finite steps in a row
}

void tst_Precision::bf16TrainsWithFloat32Weights()
{
    wbtest::TinyRun p;
    p.train_size = 128;
    p.num_train_epochs = 3;
    p.model_dir = "bf16";
    TrainingOptions o = wbtest::writeTinyRun(m_dir.filePath(QStringLiteral("bf16")).toStdString(), p);
    o.dtype = "bf16";
    o.steps_per_loop = 4;
    wbtest::RecordingObserver rec;
    StopToken stop;
    Trainer t;
    const RunFinished r = t.run(o, rec, stop);
    QVERIFY2(r.status == RunStatus::Completed, (r.message + " " + r.hint).c_str());
    QCOMPARE(r.last_step, int64_t(48)); // 3 epochs × 128/8
    QVERIFY(rec.steps.size() >= 4);
    const double first = rec.steps.front().loss, last = rec.steps.back().loss;
    QVERIFY2(last < 0.75 * first, (std::to_string(first) + " → " + std::to_string(last)).c_str());
    QVERIFY2(rec.evals.back().eval_accuracy >= 0.9, std::to_string(rec.evals.back().eval_accuracy).c_str());

    // The checkpoint holds float32 tensors only, and an fp32 model loads it.
    const std::string ckpt = o.model_dir + "/ckpt-48";
    const auto tensors = checkpointTensors(ckpt);
    QVERIFY(tensors.size() > 10);
    for (const auto &[name, tensor] : tensors)
        QVERIFY2(tensor.scalar_type() == c10::kFloat, name.c_str());
    BertConfig c;
    Diagnostics diag;
    c = *BertConfig::load(o.bert_config_file, diag);
    nn::BertForSequenceClassification fp32(c, 2, nn::makeGenerator(102));
    QCOMPARE(loadCheckpoint(ckpt, fp32, nullptr, false).step, int64_t(48));
    QVERIFY(torch::equal(fp32->classifier->weight, tensors.at("classifier.weight")));

    // run_config.json records the dtype as informational: an fp32 run may resume this model_dir.
    std::ifstream in(o.model_dir + "/run_config.json");
    const auto runConfig = nlohmann::json::parse(in);
    QCOMPARE(runConfig["informational"]["dtype"].get<std::string>(), std::string("bf16"));
    QVERIFY(!runConfig["defining"].contains("dtype"));
    TrainingOptions resumed = o;
    resumed.dtype = "fp32";
    resumed.num_train_epochs = 3;
    wbtest::RecordingObserver rec2;
    const RunFinished r2 = t.run(resumed, rec2, stop);
    QVERIFY2(r2.status == RunStatus::Completed, (r2.message + " " + r2.hint).c_str());
    QCOMPARE(r2.last_step, int64_t(48)); // already complete: nothing refused, nothing changed
}

/// The masked-LM head under bf16 autocast (its transform's bf16 output once reached a float32
/// LayerNorm: "expected scalar type BFloat16 but found Float"): float32 logits close to fp32's,
/// and a backward pass that reaches the tied word embeddings.
void tst_Precision::bf16PretrainingHeads()
{
    BertConfig c;
    c.vocab_size = 50;
    c.hidden_size = 16;
    c.num_hidden_layers = 1;
    c.num_attention_heads = 2;
    c.intermediate_size = 32;
    c.max_position_embeddings = 16;
    c.hidden_dropout_prob = 0;
    c.attention_probs_dropout_prob = 0;
    nn::BertForPreTraining model(c, /*nextSentence=*/true, nn::makeGenerator(7));
    model->train();
    const auto ids = torch::randint(5, 50, {2, 8}, torch::kLong);
    const auto mask = torch::ones({2, 8}, torch::kLong);
    const auto segments = torch::zeros({2, 8}, torch::kLong);
    const auto positions = torch::tensor({1, 3, 2, 5}, torch::kLong).view({2, 2});
    const torch::Tensor fp32 = model->forward(ids, mask, segments, positions).mlm_logits.detach();
    nn::PretrainingOutput out;
    {
        AutocastGuard guard(NumberFormat::Bf16, c10::Device(c10::kCPU));
        out = model->forward(ids, mask, segments, positions);
    }
    QCOMPARE(out.mlm_logits.scalar_type(), c10::kFloat);
    QCOMPARE(out.mlm_logits.sizes().vec(), (std::vector<int64_t>{2, 2, 50}));
    QVERIFY(out.nsp_logits.defined());
    const double gap = (out.mlm_logits.detach() - fp32).abs().max().item<double>();
    QVERIFY2(gap < 0.1, std::to_string(gap).c_str()); // bf16 keeps ~3 significant digits
    out.mlm_logits.sum().backward();
    const torch::Tensor grad = model->embeddings->word_embeddings->weight.grad();
    QVERIFY(grad.defined());
    QVERIFY(torch::isfinite(grad).all().item<bool>());
    QVERIFY(grad.abs().sum().item<double>() > 0);
}

void tst_Precision::accumulationEqualsWholeBatch()
{
    // 40 examples, batch 8: 5 optimizer steps; no dropout, so the two runs compute the same
    // steps up to the rounding of the summed micro-batch gradients.
    std::map<std::string, torch::Tensor> params[2];
    double losses[2] = {0, 0};
    const int64_t accumulation[2] = {1, 4};
    for (int k = 0; k < 2; ++k) {
        TrainingOptions o = fiveStepRun(m_dir.filePath(QStringLiteral("accum%1").arg(k)).toStdString(), 0.1);
        withoutDropout(o);
        o.gradient_accumulation_steps = accumulation[k];
        wbtest::RecordingObserver rec;
        StopToken stop;
        Trainer t;
        const RunFinished r = t.run(o, rec, stop);
        QVERIFY2(r.status == RunStatus::Completed, (r.message + " " + r.hint).c_str());
        QCOMPARE(r.last_step, int64_t(5));
        QCOMPARE(int(rec.steps.size()), 1);
        QCOMPARE(rec.steps[0].step, int64_t(5));
        losses[k] = rec.steps[0].loss;
        params[k] = checkpointTensors(o.model_dir + "/ckpt-5");
    }
    QVERIFY2(std::abs(losses[0] - losses[1]) < 1e-6, (std::to_string(losses[0]) + " vs " + std::to_string(losses[1])).c_str());
    QCOMPARE(params[0].size(), params[1].size());
    std::string worstName;
    const double worst = largestDifference(params[0], params[1], &worstName);
    qInfo("N=4 vs N=1 after 5 steps: largest parameter difference %g (%s)", worst, worstName.c_str());
    QVERIFY2(worst < 1e-5, (worstName + ": " + std::to_string(worst)).c_str());
    // The parameters moved: the comparison is not between two initial states (the trainer
    // seeds the initialisation with --seed, 42 by default).
    Diagnostics diag;
    const BertConfig c = *BertConfig::load(m_dir.filePath(QStringLiteral("accum0/bert_config.json")).toStdString(), diag);
    nn::BertForSequenceClassification init(c, 2, nn::makeGenerator(42));
    const double moved = (init->classifier->weight - params[0].at("classifier.weight")).abs().max().item<double>();
    QVERIFY2(moved > 1e-3, std::to_string(moved).c_str());
}

/// --activation_checkpointing reaches the model and changes nothing but memory and time:
/// with dropout on (the recomputation replays the masks) the weights after 5 steps equal
/// those of the plain run.
void tst_Precision::activationCheckpointingTrainsTheSame()
{
    std::map<std::string, torch::Tensor> params[2];
    double losses[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        TrainingOptions o = fiveStepRun(m_dir.filePath(QStringLiteral("ckpt%1").arg(k)).toStdString(), 0.1);
        o.activation_checkpointing = k == 1;
        wbtest::RecordingObserver rec;
        StopToken stop;
        Trainer t;
        const RunFinished r = t.run(o, rec, stop);
        QVERIFY2(r.status == RunStatus::Completed, (r.message + " " + r.hint).c_str());
        QCOMPARE(r.last_step, int64_t(5));
        const bool logged = std::any_of(rec.logs.begin(), rec.logs.end(), [](const std::string &l) {
            return l.rfind("activation checkpointing:", 0) == 0;
        });
        QCOMPARE(logged, k == 1);
        losses[k] = rec.steps.at(0).loss;
        params[k] = checkpointTensors(o.model_dir + "/ckpt-5");
    }
    QVERIFY2(std::abs(losses[0] - losses[1]) < 1e-6, (std::to_string(losses[0]) + " vs " + std::to_string(losses[1])).c_str());
    QCOMPARE(params[0].size(), params[1].size());
    const double worst = largestDifference(params[0], params[1]);
    QVERIFY2(worst < 1e-6, std::to_string(worst).c_str());
}

QTEST_APPLESS_MAIN(tst_Precision)
#include "tst_precision.moc"
