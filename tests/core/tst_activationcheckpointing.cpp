// SPDX-License-Identifier: Apache-2.0
// Per-layer activation checkpointing (issue 17, --activation_checkpointing): the same loss
// and gradients as the plain backward pass, dropout and bf16 autocast included.
#include "core/config/bertconfig.h"
#include "core/config/optiontable.h"
#include "core/model/bertmodel.h"
#include "core/engine/precision.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <mutex>

using namespace wb;

namespace {

BertConfig tinyConfig(double dropout)
{
    BertConfig c;
    c.vocab_size = 100;
    c.hidden_size = 32;
    c.num_hidden_layers = 3;
    c.num_attention_heads = 2;
    c.intermediate_size = 64;
    c.max_position_embeddings = 64;
    c.type_vocab_size = 2;
    c.hidden_dropout_prob = dropout;
    c.attention_probs_dropout_prob = dropout;
    return c;
}

struct Batch
{
    torch::Tensor ids, mask, segments, labels;
};

Batch makeBatch()
{
    torch::manual_seed(3);
    Batch b;
    b.ids = torch::randint(0, 100, {4, 16});
    b.mask = torch::ones({4, 16}, torch::kLong);
    b.mask.narrow(1, 11, 5).zero_(); // padding at the end, as the TFRecords have it
    b.segments = torch::zeros({4, 16}, torch::kLong);
    b.segments.narrow(1, 8, 8).fill_(1);
    b.labels = torch::tensor({0, 1, 1, 0}, torch::kLong);
    return b;
}

struct StepResult
{
    double loss = 0;
    std::map<std::string, torch::Tensor> grads;
    torch::Tensor nextRandom; ///< a draw from the model's generator after the step
};

/// One forward + backward from a zero gradient, with the model's generator seeded `seed`
/// just before the forward.
StepResult step(nn::BertForSequenceClassification &model, const Batch &b, bool checkpointing, NumberFormat format,
                uint64_t seed)
{
    model->zero_grad();
    model->setActivationCheckpointing(checkpointing);
    {
        std::lock_guard<std::mutex> lock(model->generator().mutex());
        model->generator().set_current_seed(seed);
    }
    torch::Tensor logits;
    {
        AutocastGuard autocast(format, c10::Device(c10::kCPU));
        logits = model->forward(b.ids, b.mask, b.segments);
    }
    auto loss = torch::nn::functional::cross_entropy(logits, b.labels);
    loss.backward();
    StepResult r;
    r.loss = loss.item<double>();
    for (const auto &p : model->named_parameters()) {
        if (!p.value().grad().defined())
            continue;
        r.grads[p.key()] = p.value().grad().clone();
    }
    r.nextRandom = torch::rand({8}, model->generator());
    return r;
}

/// The largest |a − b| over every parameter gradient; -1 when the names differ.
double maxGradientDifference(const StepResult &a, const StepResult &b)
{
    if (a.grads.size() != b.grads.size())
        return -1;
    double worst = 0;
    for (const auto &[name, g] : a.grads) {
        const auto it = b.grads.find(name);
        if (it == b.grads.end())
            return -1;
        worst = std::max(worst, (g - it->second).abs().max().item<double>());
    }
    return worst;
}

double maxGradient(const StepResult &a)
{
    double m = 0;
    for (const auto &[name, g] : a.grads)
        m = std::max(m, g.abs().max().item<double>());
    return m;
}

} // namespace

class tst_ActivationCheckpointing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(1); }
    void theCheckpointedPathIsTaken();
    void sameGradientsWithoutDropout();
    void sameGradientsWithDropout();
    void sameLossUnderBf16Autocast();
    void evaluationIsUnchanged();
    void optionReadsBooleans();
};

/// The encoder's output comes from the custom autograd function in training with
/// checkpointing on, and from the plain block otherwise.
void tst_ActivationCheckpointing::theCheckpointedPathIsTaken()
{
    nn::BertForSequenceClassification model(tinyConfig(0.0), 2, nn::makeGenerator(101));
    model->train();
    const Batch b = makeBatch();
    const auto embedded = model->embeddings->forward(b.ids, b.segments);
    model->setActivationCheckpointing(true);
    const auto on = model->encoder->forward(embedded, b.mask);
    QVERIFY(on.grad_fn());
    QVERIFY2(on.grad_fn()->name().find("CheckpointedLayer") != std::string::npos, on.grad_fn()->name().c_str());
    model->setActivationCheckpointing(false);
    const auto off = model->encoder->forward(embedded, b.mask);
    QVERIFY(off.grad_fn()->name().find("CheckpointedLayer") == std::string::npos);
    QVERIFY(on.sizes().vec() == std::vector<int64_t>({4, 1, 32})); // the last block's [CLS] only
    QVERIFY((on - off).abs().max().item<double>() < 1e-6);
}

/// (a) Dropout off: loss and every parameter gradient equal within 1e-6.
void tst_ActivationCheckpointing::sameGradientsWithoutDropout()
{
    nn::BertForSequenceClassification model(tinyConfig(0.0), 2, nn::makeGenerator(1));
    model->train();
    const Batch b = makeBatch();
    const StepResult plain = step(model, b, false, NumberFormat::Fp32, 5);
    const StepResult ckpt = step(model, b, true, NumberFormat::Fp32, 5);
    QCOMPARE(int(plain.grads.size()), int(model->parameters().size()));
    QVERIFY2(std::abs(plain.loss - ckpt.loss) < 1e-6, qPrintable(QString::number(plain.loss - ckpt.loss)));
    const double diff = maxGradientDifference(plain, ckpt);
    QVERIFY2(diff >= 0 && diff < 1e-6, qPrintable(QString::number(diff)));
    QVERIFY(maxGradient(plain) > 1e-3); // the gradients are not trivially zero
}

/// (b) Dropout 0.1 in train mode: with the same seed the recomputation draws the same
/// masks (the generator state is replayed), so loss and gradients are equal within 1e-6,
/// and the generator continues after the step as it does without checkpointing.
void tst_ActivationCheckpointing::sameGradientsWithDropout()
{
    nn::BertForSequenceClassification model(tinyConfig(0.1), 2, nn::makeGenerator(1));
    model->train();
    const Batch b = makeBatch();
    const StepResult plain = step(model, b, false, NumberFormat::Fp32, 11);
    const StepResult ckpt = step(model, b, true, NumberFormat::Fp32, 11);
    QVERIFY2(std::abs(plain.loss - ckpt.loss) < 1e-6, qPrintable(QString::number(plain.loss - ckpt.loss)));
    const double diff = maxGradientDifference(plain, ckpt);
    QVERIFY2(diff >= 0 && diff < 1e-6, qPrintable(QString::number(diff)));
    QVERIFY(torch::equal(plain.nextRandom, ckpt.nextRandom));
    // Dropout matters here: another seed (other masks) gives other gradients.
    const StepResult other = step(model, b, false, NumberFormat::Fp32, 12);
    QVERIFY2(maxGradientDifference(plain, other) > 1e-4, qPrintable(QString::number(maxGradientDifference(plain, other))));
}

/// (c) bf16 autocast: the recomputation runs under the forward pass's autocast, so loss
/// and gradients match bf16 without checkpointing far more closely than fp32 matches bf16.
void tst_ActivationCheckpointing::sameLossUnderBf16Autocast()
{
    nn::BertForSequenceClassification model(tinyConfig(0.1), 2, nn::makeGenerator(1));
    model->train();
    const Batch b = makeBatch();
    const StepResult plain = step(model, b, false, NumberFormat::Bf16, 21);
    const StepResult ckpt = step(model, b, true, NumberFormat::Bf16, 21);
    const StepResult fp32 = step(model, b, false, NumberFormat::Fp32, 21);
    // The bf16 loss itself is only good to ~1e-2 relative; both runs compute the same one.
    QVERIFY2(std::abs(plain.loss - ckpt.loss) < 1e-3 * std::abs(plain.loss),
             qPrintable(QString::number(plain.loss - ckpt.loss)));
    const double diff = maxGradientDifference(plain, ckpt);
    const double bf16VsFp32 = maxGradientDifference(plain, fp32);
    // The recomputation repeats the same bf16 arithmetic (measured: identical gradients); a
    // recomputation in fp32 differs by ~2e-4 of the largest gradient, fp32 throughout by ~1e-2.
    const double tolerance = 1e-6 * maxGradient(plain);
    QVERIFY2(diff >= 0 && diff < tolerance, qPrintable(QStringLiteral("%1 vs %2").arg(diff).arg(tolerance)));
    // fp32 gradients differ from bf16's by far more: the comparison can tell the formats apart.
    QVERIFY2(bf16VsFp32 > 100 * tolerance, qPrintable(QString::number(bf16VsFp32)));
}

/// In eval mode or without gradients the option changes nothing (no function in the graph).
void tst_ActivationCheckpointing::evaluationIsUnchanged()
{
    nn::BertForSequenceClassification model(tinyConfig(0.1), 2, nn::makeGenerator(102));
    model->setActivationCheckpointing(true);
    QVERIFY(model->encoder->activationCheckpointing());
    model->eval();
    const Batch b = makeBatch();
    const auto embedded = model->embeddings->forward(b.ids, b.segments);
    const auto out = model->encoder->forward(embedded, b.mask);
    QVERIFY(!out.grad_fn() || out.grad_fn()->name().find("CheckpointedLayer") == std::string::npos);
    model->train();
    torch::NoGradGuard noGrad;
    QVERIFY(!model->encoder->forward(embedded, b.mask).requires_grad());
}

/// The option is a boolean of the one option table: "true"/"false" (and absl's 1/0) on the
/// command line, a JSON boolean in the project file.
void tst_ActivationCheckpointing::optionReadsBooleans()
{
    const OptionSpec *spec = findOption("activation_checkpointing");
    QVERIFY(spec);
    QVERIFY(spec->isBoolean());
    QVERIFY(spec->type() == OptionType::Text);
    QVERIFY(spec->choices == std::vector<std::string>({"false", "true"}));
    QVERIFY(spec->group == FormGroup::Hyperparameters);
    QCOMPARE(std::string(spec->label), std::string("Recompute activations (saves memory)"));
    QCOMPARE(spec->defaultText(), std::string("false"));
    TrainingOptions o;
    QCOMPARE(spec->setText(o, "true"), std::string());
    QVERIFY(o.activation_checkpointing);
    QCOMPARE(spec->text(o), std::string("true"));
    QVERIFY(spec->isChanged(o));
    QVERIFY(spec->toJson(o) == nlohmann::json(true));
    QCOMPARE(spec->setText(o, "0"), std::string());
    QVERIFY(!o.activation_checkpointing);
    QCOMPARE(spec->setText(o, "yes"), std::string("expected true or false, found 'yes'"));
    QVERIFY(!o.activation_checkpointing); // unchanged
    QCOMPARE(spec->setJson(o, nlohmann::json(true)), std::string());
    QVERIFY(o.activation_checkpointing);
    QCOMPARE(spec->setJson(o, nlohmann::json("false")), std::string());
    QVERIFY(!o.activation_checkpointing);
    QCOMPARE(spec->setJson(o, nlohmann::json(2)), std::string("expected true or false, found 2"));
    o.activation_checkpointing = true;
    const auto flags = toCommandLineFlags(o);
    QVERIFY(std::find(flags.begin(), flags.end(), "--activation_checkpointing=true") != flags.end());
}

QTEST_APPLESS_MAIN(tst_ActivationCheckpointing)
#include "tst_activationcheckpointing.moc"
