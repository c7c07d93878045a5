// SPDX-License-Identifier: Apache-2.0
#include "core/config/bertconfig.h"
#include "core/model/bertmodel.h"
#include "core/kernels/fusedops.h"
#include "core/weights/parameternames.h"
#include "core/util/error.h"

#include <ATen/CPUGeneratorImpl.h>

#include <QtTest>

using namespace wb;

namespace {
BertConfig tinyConfig()
{
    BertConfig c;
    c.vocab_size = 100;
    c.hidden_size = 32;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 64;
    c.max_position_embeddings = 64;
    c.type_vocab_size = 2;
    return c;
}
} // namespace

class tst_BertModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(1); }
    void parameterNames_data();
    void parameterNames();
    void parameterOrderAndCount();
    void embeddingProjection();
    void outputShapes();
    void maskHidesPadding();
    void firstTokenOnlyMatchesFullLastLayer();
    void activations();
    void truncatedNormal();
    void initialisation();
    void modulesDrawAsLibtorchModules();
    void modelUsesOnlyItsGenerator();
};

void tst_BertModel::parameterNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("shape");
    QTest::newRow("word") << "bert.embeddings.word_embeddings.weight" << "[100, 32]";
    QTest::newRow("position") << "bert.embeddings.position_embeddings.weight" << "[64, 32]";
    QTest::newRow("type") << "bert.embeddings.token_type_embeddings.weight" << "[2, 32]";
    QTest::newRow("emb ln") << "bert.embeddings.LayerNorm.weight" << "[32]";
    QTest::newRow("query") << "bert.encoder.layer.0.attention.self.query.weight" << "[32, 32]";
    QTest::newRow("key bias") << "bert.encoder.layer.1.attention.self.key.bias" << "[32]";
    QTest::newRow("value") << "bert.encoder.layer.1.attention.self.value.weight" << "[32, 32]";
    QTest::newRow("att out") << "bert.encoder.layer.0.attention.output.dense.weight" << "[32, 32]";
    QTest::newRow("att ln") << "bert.encoder.layer.0.attention.output.LayerNorm.bias" << "[32]";
    QTest::newRow("intermediate") << "bert.encoder.layer.1.intermediate.dense.weight" << "[64, 32]";
    QTest::newRow("output") << "bert.encoder.layer.1.output.dense.weight" << "[32, 64]";
    QTest::newRow("out ln") << "bert.encoder.layer.1.output.LayerNorm.weight" << "[32]";
    QTest::newRow("pooler") << "bert.pooler.dense.weight" << "[32, 32]";
    QTest::newRow("classifier") << "classifier.weight" << "[3, 32]";
    QTest::newRow("classifier bias") << "classifier.bias" << "[3]";
}

void tst_BertModel::parameterNames()
{
    QFETCH(QString, name);
    QFETCH(QString, shape);
    nn::BertForSequenceClassification m(tinyConfig(), 3, nn::makeGenerator(101));
    auto params = m->named_parameters();
    const auto *p = params.find(name.toStdString());
    QVERIFY2(p, qPrintable(name));
    QCOMPARE(QString::fromStdString(shapeString(p->sizes().vec())), shape);
}

void tst_BertModel::parameterOrderAndCount()
{
    const BertConfig c = tinyConfig();
    nn::BertForSequenceClassification m(c, 2, nn::makeGenerator(102));
    const auto expected = expectedParameters(c, 2);
    const auto params = m->named_parameters();
    QCOMPARE(int(params.size()), int(expected.size()));
    int64_t count = 0;
    for (size_t k = 0; k < expected.size(); ++k) {
        QCOMPARE(QString::fromStdString(params[k].key()), QString::fromStdString(expected[k].name));
        QCOMPARE(params[k].value().sizes().vec(), expected[k].shape);
        count += params[k].value().numel();
    }
    // 100·32+64·32+2·32+64 | 2·(4·(32·32+32)+2·64+(32·64+64)+(64·32+32)+... ) computed by the config
    QCOMPARE(count, c.parameterCount(2).total());
    QCOMPARE(count, int64_t(32 * (100 + 64 + 2) + 64 + 2 * (4 * (32 * 32 + 32) + 2 * 64 + 32 * 64 + 64 + 64 * 32 + 32)
                            + 32 * 32 + 32 + 2 * 32 + 2));
}

void tst_BertModel::embeddingProjection()
{
    BertConfig c = tinyConfig();
    c.embedding_size = 16;
    nn::BertForSequenceClassification m(c, 2, nn::makeGenerator(103));
    auto params = m->named_parameters();
    QCOMPARE(params["bert.embeddings.word_embeddings.weight"].sizes().vec(), (std::vector<int64_t>{100, 16}));
    QCOMPARE(params["bert.embeddings.embedding_projection.weight"].sizes().vec(), (std::vector<int64_t>{32, 16}));
    int64_t count = 0;
    for (auto &p : m->parameters())
        count += p.numel();
    QCOMPARE(count, c.parameterCount(2).total());
    auto logits = m->forward(torch::randint(0, 100, {3, 8}), torch::ones({3, 8}, torch::kLong), torch::zeros({3, 8}, torch::kLong));
    QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{3, 2}));
}

void tst_BertModel::outputShapes()
{
    nn::BertForSequenceClassification m(tinyConfig(), 3, nn::makeGenerator(104));
    auto ids = torch::randint(0, 100, {4, 10});
    auto mask = torch::ones({4, 10}, torch::kLong);
    auto seg = torch::zeros({4, 10}, torch::kLong);
    QCOMPARE(m->forward(ids, mask, seg).sizes().vec(), (std::vector<int64_t>{4, 3}));
    nn::BertForSequenceClassification r(tinyConfig(), 1, nn::makeGenerator(105));
    QCOMPARE(r->forward(ids, mask, seg).sizes().vec(), (std::vector<int64_t>{4, 1}));
    auto hidden = m->encoder->forward(m->embeddings->forward(ids, seg), mask, true);
    QCOMPARE(hidden.sizes().vec(), (std::vector<int64_t>{4, 10, 32}));
}

void tst_BertModel::maskHidesPadding()
{
    nn::BertForSequenceClassification m(tinyConfig(), 2, nn::makeGenerator(106));
    m->eval();
    torch::NoGradGuard g;
    auto ids = torch::randint(1, 100, {2, 12});
    auto mask = torch::ones({2, 12}, torch::kLong);
    mask.narrow(1, 6, 6).zero_();
    auto seg = torch::zeros({2, 12}, torch::kLong);
    auto a = m->forward(ids, mask, seg);
    auto ids2 = ids.clone();
    ids2.narrow(1, 6, 6).fill_(7); // change only padded positions
    auto b = m->forward(ids2, mask, seg);
    QVERIFY(torch::allclose(a, b, 1e-5, 1e-6));
    auto ids3 = ids.clone();
    ids3.narrow(1, 2, 1).fill_(ids[0][2].item<int64_t>() % 99 + 1); // change a real token
    auto c = m->forward(ids3, mask, seg);
    QVERIFY(!torch::allclose(a, c, 1e-5, 1e-6));
    auto full = torch::ones({2, 12}, torch::kLong);
    QVERIFY(!torch::allclose(a, m->forward(ids2, full, seg), 1e-5, 1e-6)); // unmasked: it matters
}

void tst_BertModel::firstTokenOnlyMatchesFullLastLayer()
{
    nn::BertForSequenceClassification m(tinyConfig(), 2, nn::makeGenerator(107));
    m->eval();
    torch::NoGradGuard g;
    auto ids = torch::randint(0, 100, {3, 9});
    auto mask = torch::ones({3, 9}, torch::kLong);
    mask[1].narrow(0, 4, 5).zero_();
    auto seg = torch::randint(0, 2, {3, 9});
    auto emb = m->embeddings->forward(ids, seg);
    auto full = m->encoder->forward(emb, mask, true).select(1, 0);
    auto first = m->encoder->forward(emb, mask, false).select(1, 0);
    QVERIFY(torch::allclose(full, first, 1e-5, 1e-6));
}

void tst_BertModel::activations()
{
    auto x = torch::tensor({1.0f});
    QVERIFY(std::abs(nn::applyActivation("gelu", x).item<float>() - 0.8413447f) < 1e-6f);
    QVERIFY(std::abs(nn::applyActivation("gelu_new", x).item<float>() - 0.8411920f) < 1e-6f);
    QVERIFY(std::abs(nn::applyActivation("relu", -x).item<float>()) < 1e-7f);
    QVERIFY(std::abs(nn::applyActivation("tanh", x).item<float>() - 0.7615942f) < 1e-6f);
    QVERIFY(std::abs(nn::applyActivation("swish", x).item<float>() - 0.7310586f) < 1e-6f);
    QVERIFY(std::abs(nn::applyActivation("silu", x).item<float>() - 0.7310586f) < 1e-6f);
    QVERIFY_THROWS_EXCEPTION(std::exception, nn::applyActivation("softplus", x));
}

void tst_BertModel::truncatedNormal()
{
    auto t = torch::empty({200000});
    at::Generator gen = nn::makeGenerator(3);
    nn::truncatedNormal_(t, 0.02, gen);
    QVERIFY(t.abs().max().item<double>() <= 0.04 + 1e-7);
    QVERIFY(std::abs(t.mean().item<double>()) < 3e-4);
    // std of a normal truncated at ±2σ is 0.8796σ
    QVERIFY(std::abs(t.std().item<double>() - 0.8796 * 0.02) < 3e-4);
}

void tst_BertModel::initialisation()
{
    nn::BertForSequenceClassification m(tinyConfig(), 2, nn::makeGenerator(108));
    auto p = m->named_parameters();
    QVERIFY(torch::all(p["bert.embeddings.LayerNorm.weight"] == 1).item<bool>());
    QVERIFY(torch::all(p["bert.encoder.layer.0.output.LayerNorm.bias"] == 0).item<bool>());
    QVERIFY(torch::all(p["classifier.bias"] == 0).item<bool>());
    QVERIFY(p["bert.encoder.layer.0.attention.self.query.weight"].abs().max().item<double>() <= 0.04 + 1e-7);
    QVERIFY(p["bert.embeddings.word_embeddings.weight"].std().item<double>() > 0.01);
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(5));
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(5));
    QVERIFY(torch::equal(a->classifier->weight, b->classifier->weight)); // seeded
}

// nn::dropout's masks and generator use: tests/core/tst_fusedops.cpp (core.fusedops).

/// nn::Linear and nn::Embedding advance their generator exactly as torch::nn::Linear and
/// torch::nn::Embedding advance the default one (so init is unchanged), with the same values.
void tst_BertModel::modulesDrawAsLibtorchModules()
{
    torch::manual_seed(9);
    torch::nn::Linear tl(24, 10);
    torch::nn::Embedding te(50, 12);
    torch::nn::Linear tl2(12, 3);
    const torch::Tensor next = torch::rand({16});

    at::Generator gen = nn::makeGenerator(9);
    nn::Linear ol(24, 10, gen);
    nn::Embedding oe(50, 12, gen);
    nn::Linear ol2(12, 3, gen);
    QVERIFY(torch::equal(torch::rand({16}, gen), next));
    QVERIFY(torch::equal(oe->weight, te->weight));
    // Linear: U(±1/√in) as kaiming_uniform_(a = √5); the bound is computed another way (≤ 1 ulp).
    QVERIFY(torch::allclose(ol->weight, tl->weight, 1e-6, 1e-7));
    QVERIFY(torch::allclose(ol->bias, tl->bias, 1e-6, 1e-7));
    QVERIFY(torch::allclose(ol2->weight, tl2->weight, 1e-6, 1e-7));
    // The same weights give the same numbers as libtorch's module, forward and backward,
    // for 2-D and 3-D input (3-D: matmul, then the bias added): bit for bit on the ATen path,
    // within float rounding on the fp32 training step's oneDNN path (nn::fastLinear).
    {
        torch::NoGradGuard noGrad;
        ol->weight.copy_(tl->weight);
        ol->bias.copy_(tl->bias);
    }
    for (const bool fast : {false, true}) {
        nn::setFastKernels({fast, fast, fast, fast, fast, fast});
        const auto same = [fast](const torch::Tensor &a, const torch::Tensor &b) {
            return fast ? torch::allclose(a, b, 1e-5, 1e-5) : torch::equal(a, b);
        };
        for (const auto &in : {torch::randn({5, 24}), torch::randn({3, 7, 24})}) {
            ol->zero_grad();
            tl->zero_grad();
            const auto yo = ol->forward(in), yt = tl->forward(in);
            QVERIFY(same(yo, yt));
            (yo * yo).sum().backward();
            (yt * yt).sum().backward();
            QVERIFY(same(ol->weight.grad(), tl->weight.grad()));
            QVERIFY(same(ol->bias.grad(), tl->bias.grad()));
        }
    }
    nn::setFastKernels({});
    const auto ids = torch::tensor({3, 0, 49}, torch::kLong);
    QVERIFY(torch::equal(oe->forward(ids), te->forward(ids)));
}

/// Building a model and training passes draw from the model's generator only: libtorch's
/// default generator is untouched, and the same seed gives the same weights and masks.
void tst_BertModel::modelUsesOnlyItsGenerator()
{
    BertConfig c = tinyConfig();
    c.hidden_dropout_prob = 0.2;
    c.attention_probs_dropout_prob = 0.2;
    auto ids = torch::randint(0, 100, {3, 9});
    auto mask = torch::ones({3, 9}, torch::kLong);
    auto seg = torch::zeros({3, 9}, torch::kLong);
    auto defaultGen = at::detail::getDefaultCPUGenerator();
    const torch::Tensor before = defaultGen.get_state();
    nn::BertForSequenceClassification a(c, 2, nn::makeGenerator(21));
    a->train();
    const auto ya = a->forward(ids, mask, seg);
    QVERIFY(torch::equal(defaultGen.get_state(), before));

    torch::manual_seed(999); // whatever else happens to the default generator …
    torch::rand({1000});
    nn::BertForSequenceClassification b(c, 2, nn::makeGenerator(21));
    b->train();
    const auto yb = b->forward(ids, mask, seg);
    QVERIFY(torch::equal(ya, yb)); // … the same seed, the same init and masks
    QVERIFY(torch::equal(a->generator().get_state(), b->generator().get_state()));
    QVERIFY(!torch::equal(a->forward(ids, mask, seg), ya)); // a new draw: other masks
    b->eval();
    const auto stateBefore = b->generator().get_state();
    b->forward(ids, mask, seg);
    QVERIFY(torch::equal(b->generator().get_state(), stateBefore)); // inference draws nothing

    // A checkpoint written before runs owned a generator holds the default generator's state
    // as rng_state: it is the same kind of state and continues the same stream.
    torch::manual_seed(31);
    torch::rand({5});
    at::Generator restored = nn::makeGenerator(0);
    restored.set_state(defaultGen.get_state());
    QVERIFY(torch::equal(torch::rand({16}, restored), torch::rand({16})));

    // Without a generator a model is not built.
    QVERIFY_THROWS_EXCEPTION(wb::Error, nn::BertForSequenceClassification(c, 2, at::Generator()));
}

QTEST_APPLESS_MAIN(tst_BertModel)
#include "tst_bertmodel.moc"
