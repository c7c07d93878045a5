// SPDX-License-Identifier: Apache-2.0
#include "core/train/preflight.h"
#include "core/model/initcheckpoint.h"
#include "core/model/parameternames.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

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

void writeAll(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string header(const std::string &json, uint64_t n)
{
    std::string out(8, '\0');
    for (int k = 0; k < 8; ++k)
        out[k] = char((n >> (8 * k)) & 0xff);
    return out + json;
}
} // namespace

class tst_InitCheckpoint : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(1); }
    void roundTripWithLegacyNames();
    void reportsClassifierAndUnexpected();
    void shapeMismatchNamesConfigKey();
    void hostileFiles_data();
    void hostileFiles();
    void preflightCheck();
    void dataParallelScopeLoadsWhole();
    void headOnlyIsAnError();
    void twoNamesForOneTensorAreAnError();

private:
    std::string save(const char *name, const std::vector<std::pair<std::string, torch::Tensor>> &tensors)
    {
        const std::string path = m_dir.filePath(QString::fromLatin1(name)).toStdString();
        saveSafetensors(path, tensors);
        return path;
    }
    static std::string errorsOf(const Diagnostics &diag)
    {
        std::string s;
        for (const auto &d : diag.items())
            if (d.severity == Severity::Error)
                s += d.field + " | " + d.message + " | " + d.hint + "\n";
        return s;
    }

    QTemporaryDir m_dir;
};

void tst_InitCheckpoint::roundTripWithLegacyNames()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(101));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters()) {
        std::string n = p.key();
        if (n.rfind("bert.", 0) == 0)
            n = n.substr(5); // drop the optional prefix
        if (n.size() > 16 && n.compare(n.size() - 16, 16, "LayerNorm.weight") == 0)
            n = n.substr(0, n.size() - 6) + "gamma";
        else if (n.size() > 14 && n.compare(n.size() - 14, 14, "LayerNorm.bias") == 0)
            n = n.substr(0, n.size() - 4) + "beta";
        tensors.emplace_back(n, p.value());
    }
    tensors.emplace_back("embeddings.position_ids", torch::arange(64).to(torch::kFloat));
    const std::string path = m_dir.filePath(QStringLiteral("legacy.safetensors")).toStdString();
    saveSafetensors(path, tensors);
    QCOMPARE(readSafetensorsHeader(path).data_start % 8, uint64_t(0));
    QCOMPARE(QString::fromStdString(readSafetensorsHeader(path).metadata.at("format")), QStringLiteral("pt"));

    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(2));
    const CheckpointMatch m = loadInitCheckpoint(b, path);
    QCOMPARE(int(m.loaded.size()), int(expectedParameters(tinyConfig(), 2).size()));
    QVERIFY(m.missing.empty());
    QVERIFY(m.unexpected.empty()); // position_ids buffer ignored
    QVERIFY(!m.classifierMissing);
    auto pa = a->named_parameters(), pb = b->named_parameters();
    for (auto &p : pa)
        QVERIFY2(torch::equal(p.value(), pb[p.key()]), p.key().c_str());
}

void tst_InitCheckpoint::reportsClassifierAndUnexpected()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(102));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters())
        if (p.key().rfind("classifier.", 0) != 0)
            tensors.emplace_back(p.key(), p.value());
    tensors.emplace_back("cls.predictions.bias", torch::zeros({100}));
    const std::string path = m_dir.filePath(QStringLiteral("pretrain.safetensors")).toStdString();
    saveSafetensors(path, tensors);
    nn::BertForSequenceClassification b(tinyConfig(), 5, nn::makeGenerator(3));
    const CheckpointMatch m = loadInitCheckpoint(b, path);
    QVERIFY(m.classifierMissing);
    QCOMPARE(int(m.unexpected.size()), 1);
    QVERIFY(QString::fromStdString(m.summary()).contains(QStringLiteral("classifier head newly initialised")));
    QVERIFY(b->classifier->weight.abs().sum().item<double>() > 0); // initialised, not zero
    QVERIFY(torch::all(b->classifier->bias == 0).item<bool>());
}

void tst_InitCheckpoint::shapeMismatchNamesConfigKey()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(103));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters())
        tensors.emplace_back(p.key(), p.value());
    const std::string path = m_dir.filePath(QStringLiteral("v100.safetensors")).toStdString();
    saveSafetensors(path, tensors);
    BertConfig other = tinyConfig();
    other.vocab_size = 120;
    nn::BertForSequenceClassification b(other, 2, nn::makeGenerator(104));
    try {
        loadInitCheckpoint(b, path);
        QFAIL("no error for a vocab_size mismatch");
    } catch (const Error &e) {
        const QString what = QString::fromUtf8(e.what());
        QVERIFY2(what.contains(QStringLiteral("[100, 32]")) && what.contains(QStringLiteral("[120, 32]")), e.what());
        QVERIFY(QString::fromStdString(e.field()).contains(QStringLiteral("word_embeddings")));
        QVERIFY(QString::fromStdString(e.hint()).contains(QStringLiteral("vocab_size")));
    }
}

void tst_InitCheckpoint::hostileFiles_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const std::string ok = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    QTest::newRow("short") << QByteArray("abc") << "too short";
    QTest::newRow("huge header") << QByteArray::fromStdString(header("{}", 200000000)) << "exceeds";
    QTest::newRow("header past end") << QByteArray::fromStdString(header("{}", 5000)) << "past the end";
    QTest::newRow("not json") << QByteArray::fromStdString(header("[1,2]", 5)) << "not a JSON object";
    QTest::newRow("truncated data") << QByteArray::fromStdString(header(ok, ok.size()) + std::string(4, '\0'))
                                    << "outside";
    QTest::newRow("trailing bytes") << QByteArray::fromStdString(header(ok, ok.size()) + std::string(12, '\0'))
                                    << "trailing";
    const std::string bad = "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}";
    QTest::newRow("size mismatch") << QByteArray::fromStdString(header(bad, bad.size()) + std::string(8, '\0'))
                                   << "need 12";
    const std::string neg = "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,8]}}";
    QTest::newRow("negative dim") << QByteArray::fromStdString(header(neg, neg.size()) + std::string(8, '\0'))
                                  << "non-negative";
    const std::string gap = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}";
    QTest::newRow("gap") << QByteArray::fromStdString(header(gap, gap.size()) + std::string(8, '\0')) << "gap";
    const std::string big = "{\"a\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,4],\"data_offsets\":[0,8]}}";
    QTest::newRow("overflow") << QByteArray::fromStdString(header(big, big.size()) + std::string(8, '\0'))
                              << "too large";
}

void tst_InitCheckpoint::hostileFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const std::string path = m_dir.filePath(QStringLiteral("bad.safetensors")).toStdString();
    writeAll(path, bytes.toStdString());
    try {
        readSafetensorsHeader(path);
        QFAIL("accepted a bad file");
    } catch (const Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(expected), e.what());
    }
}

void tst_InitCheckpoint::preflightCheck()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(105));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters())
        tensors.emplace_back(p.key(), p.value());
    const std::string path = m_dir.filePath(QStringLiteral("good.safetensors")).toStdString();
    saveSafetensors(path, tensors);
    TrainingOptions o;
    o.init_checkpoint = path;
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics ok;
    checkInitCheckpoint(o, tinyConfig(), meta, ok);
    QVERIFY(!ok.hasErrors());
    BertConfig wide = tinyConfig();
    wide.intermediate_size = 128;
    Diagnostics bad;
    checkInitCheckpoint(o, wide, meta, bad);
    QCOMPARE(bad.errorCount(), 6); // intermediate weight+bias, output weight, in 2 layers
    o.init_checkpoint = m_dir.filePath(QStringLiteral("missing.safetensors")).toStdString();
    Diagnostics missing;
    checkInitCheckpoint(o, tinyConfig(), meta, missing);
    QCOMPARE(missing.errorCount(), 1);
}

void tst_InitCheckpoint::dataParallelScopeLoadsWhole()
{
    // torch.nn.DataParallel's state dict: every name under "module.".
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(106));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters())
        tensors.emplace_back("module." + p.key(), p.value());
    const std::string path = save("dataparallel.safetensors", tensors);
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(6));
    const CheckpointMatch m = loadInitCheckpoint(b, path);
    QCOMPARE(int(m.loaded.size()), int(expectedParameters(tinyConfig(), 2).size()));
    QVERIFY(m.missing.empty() && m.unexpected.empty() && !m.classifierMissing);
    QCOMPARE(m.scope, std::string("module."));
    auto pa = a->named_parameters(), pb = b->named_parameters();
    for (auto &p : pa)
        QVERIFY2(torch::equal(p.value(), pb[p.key()]), p.key().c_str());
}

void tst_InitCheckpoint::headOnlyIsAnError()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(107));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters())
        if (p.key().rfind("classifier.", 0) == 0 || p.key().rfind("bert.encoder.layer.1.", 0) == 0)
            tensors.emplace_back(p.key(), p.value());
    const std::string path = save("partial.safetensors", tensors); // layer 1 and the head only
    TrainingOptions o;
    o.init_checkpoint = path;
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QCOMPARE(diag.errorCount(), 1);
    const std::string e = errorsOf(diag);
    QVERIFY2(e.find("21 of the model's 37 encoder tensors are not in the checkpoint (first: "
                    "bert.embeddings.word_embeddings.weight)")
                 != std::string::npos,
             e.c_str());
    QVERIFY2(e.find("the checkpoint's names: 16 under 'bert.' (e.g. bert.encoder.layer.1.attention.output.LayerNorm.bias), "
                    "2 under 'classifier.'")
                 != std::string::npos,
             e.c_str());
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(7));
    QVERIFY_THROWS_EXCEPTION(Error, loadInitCheckpoint(b, path));
    QCOMPARE(int(loadInitCheckpoint(b, path, true).loaded.size()), 18);
    o.allow_partial_init = true;
    Diagnostics allowed;
    checkInitCheckpoint(o, tinyConfig(), meta, allowed);
    QVERIFY2(!allowed.hasErrors(), errorsOf(allowed).c_str());
}

void tst_InitCheckpoint::twoNamesForOneTensorAreAnError()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(108));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters())
        tensors.emplace_back(p.key(), p.value());
    tensors.emplace_back("bert.embeddings.LayerNorm.gamma", torch::zeros({32})); // the legacy spelling as well
    const std::string path = save("twice.safetensors", tensors);
    TrainingOptions o;
    o.init_checkpoint = path;
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QCOMPARE(diag.errorCount(), 1);
    const std::string e = errorsOf(diag);
    // (names in the order the file's header lists them: sorted)
    QVERIFY2(e.find("'bert.embeddings.LayerNorm.gamma' and 'bert.embeddings.LayerNorm.weight' both map to the model "
                    "tensor bert.embeddings.LayerNorm.weight")
                 != std::string::npos,
             e.c_str());
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(8));
    try {
        loadInitCheckpoint(b, path, true);
        QFAIL("two sources for one tensor were accepted");
    } catch (const Error &err) {
        QVERIFY2(std::string(err.what()).find("'bert.embeddings.LayerNorm.weight' both map") != std::string::npos,
                 err.what());
    }
}

QTEST_APPLESS_MAIN(tst_InitCheckpoint)
#include "tst_initcheckpoint.moc"
