// SPDX-License-Identifier: Apache-2.0
// nn::ClassifierInference against the module it stands in for: the logits and pooled vectors of
// BertForSequenceClassification's eval forward pass without gradients, compared bit for bit
// (torch::equal), on shapes below and above the transposed-weight row count, with padding, token
// types, a projected embedding, one and two threads; and its refusals.
#include "core/config/bertconfig.h"
#include "core/kernels/fusedops.h"
#include "core/model/bertmodel.h"
#include "core/model/classifierinference.h"
#include "core/util/error.h"

#include <QtTest>

#include <torch/torch.h>

using namespace wb;

namespace {

BertConfig smallConfig()
{
    BertConfig c;
    c.vocab_size = 97;
    c.hidden_size = 48;
    c.num_hidden_layers = 3;
    c.num_attention_heads = 3;
    c.intermediate_size = 80;
    c.max_position_embeddings = 160;
    c.type_vocab_size = 2;
    return c;
}

struct Batch
{
    std::vector<int64_t> ids, mask, types;
};

/// Random ids and token types; sequence i has seq − 3·i real tokens (at least 1), the rest padding.
Batch randomBatch(const BertConfig &c, int64_t batch, int64_t seq, uint64_t seed)
{
    auto gen = nn::makeGenerator(seed);
    const auto ids = torch::randint(c.vocab_size, {batch * seq}, gen, torch::kInt64);
    const auto types = torch::randint(c.type_vocab_size, {batch * seq}, gen, torch::kInt64);
    Batch b;
    b.ids.assign(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + ids.numel());
    b.types.assign(types.data_ptr<int64_t>(), types.data_ptr<int64_t>() + types.numel());
    for (int64_t i = 0; i < batch; ++i)
        for (int64_t t = 0; t < seq; ++t)
            b.mask.push_back(t < std::max<int64_t>(1, seq - 3 * i) ? 1 : 0);
    return b;
}

torch::Tensor view(std::vector<int64_t> &v, int64_t batch, int64_t seq)
{
    return torch::from_blob(v.data(), {batch, seq}, torch::kInt64);
}

/// The module's logits and pooled vectors, eval mode, no gradients.
std::pair<torch::Tensor, torch::Tensor> moduleForward(nn::BertForSequenceClassification &m, Batch &b, int64_t batch,
                                                      int64_t seq)
{
    torch::NoGradGuard guard;
    const auto ids = view(b.ids, batch, seq), mask = view(b.mask, batch, seq), types = view(b.types, batch, seq);
    const auto hidden = m->encoder->forward(m->embeddings->forward(ids, types), mask);
    const auto pooled = torch::tanh(m->pooler->forward(hidden.select(1, 0)));
    return {m->forward(ids, mask, types), pooled};
}

} // namespace

class tst_ClassifierInference : public QObject
{
    Q_OBJECT

    void compare(const BertConfig &c, int64_t labels, int64_t batch, int64_t seq, uint64_t seed)
    {
        nn::BertForSequenceClassification model(c, labels, nn::makeGenerator(seed));
        model->eval();
        QVERIFY(nn::ClassifierInference::applies(model));
        nn::ClassifierInference inference(model);
        Batch b = randomBatch(c, batch, seq, seed + 1);
        const auto [expected, expectedPooled] = moduleForward(model, b, batch, seq);
        for (int pass = 0; pass < 2; ++pass) { // the second on the buffers (and transposes) of the first
            torch::Tensor pooled;
            const torch::Tensor logits =
                inference.forward(b.ids.data(), b.mask.data(), b.types.data(), batch, seq, &pooled);
            QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{batch, labels}));
            QVERIFY2(torch::equal(logits, expected),
                     "largest difference " + QByteArray::number((logits - expected).abs().max().item<double>(), 'g', 3));
            QVERIFY(torch::equal(pooled, expectedPooled));
        }
    }

private Q_SLOTS:
    void initTestCase() { torch::set_num_threads(1); }

    void equalsTheModule_data()
    {
        QTest::addColumn<qint64>("batch");
        QTest::addColumn<qint64>("seq");
        QTest::newRow("one text") << qint64(1) << qint64(23);
        QTest::newRow("one token") << qint64(1) << qint64(1);
        QTest::newRow("padded batch") << qint64(4) << qint64(19);
        QTest::newRow("300 rows: transposed weights") << qint64(5) << qint64(60);
        QTest::newRow("longest") << qint64(2) << qint64(160);
    }
    void equalsTheModule()
    {
        QFETCH(qint64, batch);
        QFETCH(qint64, seq);
        compare(smallConfig(), 3, batch, seq, 11);
    }

    void regressionHeadAndProjectedEmbeddings()
    {
        BertConfig c = smallConfig();
        c.embedding_size = 32;
        compare(c, 1, 3, 30, 5);
        compare(c, 1, 6, 50, 6);
    }

    void oneLayerAndManyHeads()
    {
        BertConfig c = smallConfig();
        c.num_hidden_layers = 1;
        c.num_attention_heads = 12; // heads of 4
        compare(c, 2, 2, 33, 8);
    }

    void twoThreadsGiveTheSameBits()
    {
        const BertConfig c = smallConfig();
        nn::BertForSequenceClassification model(c, 2, nn::makeGenerator(3));
        model->eval();
        nn::ClassifierInference inference(model);
        Batch b = randomBatch(c, 6, 64, 4);
        const torch::Tensor one = inference.forward(b.ids.data(), b.mask.data(), b.types.data(), 6, 64);
        torch::set_num_threads(2);
        const torch::Tensor two = inference.forward(b.ids.data(), b.mask.data(), b.types.data(), 6, 64);
        const auto [expected, pooled] = moduleForward(model, b, 6, 64);
        torch::set_num_threads(1);
        QVERIFY(torch::equal(one, two));
        QVERIFY(torch::equal(two, expected));
    }

    void refusesBadInputsBeforeAnyWork()
    {
        const BertConfig c = smallConfig();
        nn::BertForSequenceClassification model(c, 2, nn::makeGenerator(3));
        model->eval();
        nn::ClassifierInference inference(model);
        Batch b = randomBatch(c, 2, 8, 4);
        const auto fieldOf = [&](int64_t batch, int64_t seq) -> std::string {
            try {
                inference.forward(b.ids.data(), b.mask.data(), b.types.data(), batch, seq);
            } catch (const Error &e) {
                return e.field() + ": " + e.what();
            }
            return "no error";
        };
        b.ids[9] = c.vocab_size;
        QCOMPARE(fieldOf(2, 8), std::string("input_ids: token id 97 at position 1 of sequence 1 is outside the "
                                            "vocabulary (0 to 96)"));
        b.ids[9] = -1;
        QVERIFY(fieldOf(2, 8).rfind("input_ids: token id -1 at position 1 of sequence 1", 0) == 0);
        b.ids[9] = 5;
        b.types[3] = 2;
        QCOMPARE(fieldOf(2, 8), std::string("token_type_ids: token type 2 at position 3 of sequence 0 is outside 0 to 1"));
        b.types[3] = 0;
        QVERIFY(fieldOf(0, 8).rfind("input_ids: a batch of 0 sequences", 0) == 0);
        std::vector<int64_t> longIds(161, 1), longMask(161, 1), longTypes(161, 0);
        try {
            inference.forward(longIds.data(), longMask.data(), longTypes.data(), 1, 161);
            QFAIL("a sequence longer than max_position_embeddings was accepted");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("input_ids"));
            QVERIFY(std::string(e.what()).find("1 to 160") != std::string::npos);
        }
        QCOMPARE(fieldOf(2, 8), std::string("no error"));
    }

    void appliesOnlyWhereItComputesTheSameThing()
    {
        BertConfig c = smallConfig();
        nn::BertForSequenceClassification gelu(c, 2, nn::makeGenerator(1));
        QVERIFY(nn::ClassifierInference::applies(gelu));
        c.hidden_act = "relu";
        nn::BertForSequenceClassification relu(c, 2, nn::makeGenerator(1));
        QVERIFY(!nn::ClassifierInference::applies(relu));
        try {
            nn::ClassifierInference refused(relu);
            QFAIL("a relu model was accepted");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("hidden_act"));
        }
        nn::FastKernels off;
        off.gelu = false; // the module would run ATen's GELU
        nn::setFastKernels(off);
        QVERIFY(!nn::ClassifierInference::applies(gelu));
        nn::setFastKernels({});
        gelu->to(torch::kDouble);
        QVERIFY(!nn::ClassifierInference::applies(gelu));
    }
};

QTEST_GUILESS_MAIN(tst_ClassifierInference)
#include "tst_classifierinference.moc"
