// SPDX-License-Identifier: Apache-2.0
#include "core/engine/preflight.h"
#include "core/model/initcheckpoint.h"
#include "core/engine/adamw.h"
#include "core/engine/checkpointio.h"
#include "core/formats/checkpointstate.h"
#include "core/weights/parameternames.h"
#include "core/util/error.h"
#include "support/checkpointfixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace wb;
namespace fs = std::filesystem;
using wbtest::errorsOf;
using wbtest::modelTensors;
using wbtest::tinyConfig;

namespace {

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
    void runModelDirIsAnInitCheckpoint();
    void pretrainingCheckpointSkipsItsHeads();
    void otherArchitectureIsOneError();
    void otherLayerCountIsAnError();
    void nothingFoundListsWhatWasLookedFor();

private:
    std::string dirPath(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }
    static InputMetaData twoLabels()
    {
        InputMetaData meta;
        meta.num_labels = 2;
        meta.max_seq_length = 16;
        return meta;
    }
    std::string save(const char *name, const std::vector<std::pair<std::string, torch::Tensor>> &tensors)
    {
        const std::string path = m_dir.filePath(QString::fromLatin1(name)).toStdString();
        saveSafetensors(path, tensors);
        return path;
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
    std::string different;
    QVERIFY2(wbtest::equalModels(a, b, true, &different), different.c_str());
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
    QVERIFY(m.unexpected.empty()); // the pre-training head is skipped, and said so
    QCOMPARE(m.pretraining_head, std::vector<std::string>{"cls.predictions.bias"});
    QVERIFY(QString::fromStdString(m.summary()).contains(QStringLiteral("classifier head newly initialised")));
    QVERIFY2(QString::fromStdString(m.summary()).contains(QStringLiteral("skipped 1 pretraining-head tensor cls.…")),
             m.summary().c_str());
    QVERIFY(b->classifier->weight.abs().sum().item<double>() > 0); // initialised, not zero
    QVERIFY(torch::all(b->classifier->bias == 0).item<bool>());
}

void tst_InitCheckpoint::shapeMismatchNamesConfigKey()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(103));
    auto tensors = modelTensors(a);
    const std::string path = m_dir.filePath(QStringLiteral("v100.safetensors")).toStdString();
    saveSafetensors(path, tensors);
    BertConfig other = tinyConfig();
    other.vocab_size = 120;
    nn::BertForSequenceClassification b(other, 2, nn::makeGenerator(104));
    try {
        loadInitCheckpoint(b, path);
        QFAIL("no error for a vocab_size mismatch");
    } catch (const Error &e) {
        // One error for the file, naming the field with both values and the tensor affected.
        const std::string what = e.what();
        QVERIFY2(what.find("vocab_size 100 in the checkpoint but 120 in the config; 1 of the model's tensors have "
                           "another shape in the checkpoint (first: bert.embeddings.word_embeddings.weight, [100, 32] "
                           "in the checkpoint, [120, 32] in the model); the config is likely that of another model")
                     != std::string::npos,
                 e.what());
        QCOMPARE(e.field(), path);
        QVERIFY2(e.hint().find("bert_config.json (or config.json) that came with the checkpoint") != std::string::npos,
                 e.hint().c_str());
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
    auto tensors = modelTensors(a);
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
    QCOMPARE(bad.errorCount(), 1); // one for the file, not one per tensor (6: intermediate weight+bias, output weight, ×2)
    QVERIFY2(errorsOf(bad).find("intermediate_size 64 in the checkpoint but 128 in the config; 6 of the model's "
                                "tensors have another shape") != std::string::npos,
             errorsOf(bad).c_str());
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
    std::string different;
    QVERIFY2(wbtest::equalModels(a, b, true, &different), different.c_str());
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
    auto tensors = modelTensors(a);
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

void tst_InitCheckpoint::runModelDirIsAnInitCheckpoint()
{
    // A model_dir as a training run leaves it: ckpt-3, ckpt-7 and the `checkpoint` index naming ckpt-7.
    const std::string dir = dirPath("run");
    fs::create_directories(dir);
    nn::BertForSequenceClassification older(tinyConfig(), 2, nn::makeGenerator(119));
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(120));
    saveCheckpoint(dir + "/ckpt-3", older, AdamW(namedParameters(older)), 3, twoLabels());
    saveCheckpoint(dir + "/ckpt-7", a, AdamW(namedParameters(a)), 7, twoLabels());
    recordCheckpoint(dir, "ckpt-3", 0);
    recordCheckpoint(dir, "ckpt-7", 0);
    const int all = int(expectedParameters(tinyConfig(), 2).size());
    for (const std::string &input : {dir, dir + "/ckpt-7"}) {
        QVERIFY(locateCheckpoint(input).format == CheckpointFormat::Training);
        QCOMPARE(locateCheckpoint(input).path, dir + "/ckpt-7");
        nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(21));
        const CheckpointMatch m = loadInitCheckpoint(b, input);
        QCOMPARE(m.format, std::string("training checkpoint"));
        QCOMPARE(int(m.loaded.size()), all);
        QVERIFY(m.missing.empty() && m.unexpected.empty() && !m.classifierMissing);
        std::string different;
        QVERIFY2(wbtest::equalModels(a, b, true, &different), different.c_str());
    }
    TrainingOptions o;
    o.init_checkpoint = dir;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), twoLabels(), diag);
    QVERIFY2(!diag.hasErrors(), errorsOf(diag).c_str());

    // Another num_labels: a new head, as for any pretrained encoder (not an error).
    InputMetaData three = twoLabels();
    three.num_labels = 3;
    Diagnostics other;
    checkInitCheckpoint(o, tinyConfig(), three, other);
    QVERIFY2(!other.hasErrors(), errorsOf(other).c_str());
    nn::BertForSequenceClassification c(tinyConfig(), 3, nn::makeGenerator(22));
    QVERIFY(loadInitCheckpoint(c, dir).classifierMissing);

    // The index records an absolute path of another machine: the ckpt-7 beside it, and said so.
    std::ofstream(dir + "/checkpoint", std::ios::trunc) << "model_checkpoint_path: \"/home/someone/run/ckpt-7\"\n";
    const CheckpointSource moved = locateCheckpoint(dir);
    QCOMPARE(moved.path, dir + "/ckpt-7");
    QCOMPARE(int(moved.notes.size()), 1);
    QVERIFY2(moved.notes[0].find(dir + "/checkpoint names /home/someone/run/ckpt-7, which does not exist here")
                     != std::string::npos
                 && moved.notes[0].find("using " + dir + "/ckpt-7 beside it") != std::string::npos,
             moved.notes[0].c_str());
    Diagnostics warned;
    checkInitCheckpoint(o, tinyConfig(), twoLabels(), warned);
    QVERIFY(!warned.hasErrors());
    QVERIFY2(wbtest::findingsOf(warned, Severity::Warning).find("/home/someone/run/ckpt-7") != std::string::npos,
             wbtest::findingsOf(warned, Severity::Warning).c_str());
    nn::BertForSequenceClassification d(tinyConfig(), 2, nn::makeGenerator(23));
    QVERIFY(loadInitCheckpoint(d, dir).summary().find("/home/someone/run/ckpt-7") != std::string::npos);

    // Without the index: the ckpt-N with the largest N.
    fs::remove(dir + "/checkpoint");
    QCOMPARE(locateCheckpoint(dir).path, dir + "/ckpt-7");
}

void tst_InitCheckpoint::pretrainingCheckpointSkipsItsHeads()
{
    // A pre-training run's checkpoint, written with the training checkpoint's archive: the
    // encoder, the masked-LM and next-sentence heads (cls.…), no classifier.
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(121));
    c10::Dict<std::string, torch::Tensor> dict;
    for (auto &p : a->named_parameters())
        if (p.key().rfind("classifier.", 0) != 0)
            dict.insert(p.key(), p.value().detach().clone());
    dict.insert("cls.predictions.bias", torch::zeros({100}));
    dict.insert("cls.predictions.transform.dense.weight", torch::zeros({32, 32}));
    dict.insert("cls.seq_relationship.weight", torch::zeros({2, 32}));
    torch::serialize::OutputArchive ar;
    ar.write("model", c10::IValue(dict));
    ar.write("step", c10::IValue(int64_t(10)));
    ar.write("bert_config", c10::IValue(tinyConfig().toJson().dump()));
    const std::string dir = dirPath("pretrain-run");
    fs::create_directories(dir);
    ar.save_to(dir + "/ckpt-10");
    recordCheckpoint(dir, "ckpt-10", 0);

    TrainingOptions o;
    o.init_checkpoint = dir;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), twoLabels(), diag);
    QVERIFY2(!diag.hasErrors(), errorsOf(diag).c_str());
    const std::string infos = wbtest::findingsOf(diag, Severity::Info);
    QVERIFY2(infos.find("skipped 3 pretraining-head tensors cls.… (the masked-LM and next-sentence heads of "
                        "pre-training; a classifier does not use them)")
                 != std::string::npos,
             infos.c_str());
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(24));
    const CheckpointMatch m = loadInitCheckpoint(b, dir);
    QCOMPARE(int(m.pretraining_head.size()), 3);
    QVERIFY(m.unexpected.empty() && m.missing.empty() && m.classifierMissing);
    QVERIFY2(m.summary().find("skipped 3 pretraining-head tensors cls.…") != std::string::npos, m.summary().c_str());
    std::string different;
    QVERIFY2(wbtest::equalModels(a, b, false, &different), different.c_str());
}

void tst_InitCheckpoint::otherArchitectureIsOneError()
{
    // Weights of a hidden-64 BERT with a hidden-32 config: one error for the file, naming the field
    // (37 tensors: all 39 encoder tensors but the two intermediate biases, [64] in both).
    BertConfig wide = tinyConfig();
    wide.hidden_size = 64;
    nn::BertForSequenceClassification a(wide, 2, nn::makeGenerator(122));
    const std::string path = save("hidden64.safetensors", modelTensors(a));
    TrainingOptions o;
    o.init_checkpoint = path;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), twoLabels(), diag);
    QCOMPARE(diag.errorCount(), 1);
    const std::string e = errorsOf(diag);
    QVERIFY2(e.find(path + " | the checkpoint was made for another architecture than the model config: hidden_size 64 "
                           "in the checkpoint but 32 in the config; 37 of the model's tensors have another shape in the "
                           "checkpoint (first: bert.embeddings.word_embeddings.weight, [100, 64] in the checkpoint, "
                           "[100, 32] in the model); the config is likely that of another model | pass the "
                           "bert_config.json (or config.json) that came with the checkpoint as --bert_config_file")
                 != std::string::npos,
             e.c_str());
    // Two fields at once, each with both values.
    BertConfig other = tinyConfig();
    other.intermediate_size = 48;
    other.max_position_embeddings = 128;
    Diagnostics two;
    checkInitCheckpoint(o, other, twoLabels(), two);
    QCOMPARE(two.errorCount(), 1);
    QVERIFY2(errorsOf(two).find("hidden_size 64 in the checkpoint but 32 in the config, intermediate_size 64 in the "
                                "checkpoint but 48 in the config, max_position_embeddings 64 in the checkpoint but 128 "
                                "in the config;")
                 != std::string::npos,
             errorsOf(two).c_str());
}

void tst_InitCheckpoint::otherLayerCountIsAnError()
{
    // A 3-layer checkpoint into a 2-layer config loaded 2 layers and ignored the third without a word.
    BertConfig deep = tinyConfig();
    deep.num_hidden_layers = 3;
    nn::BertForSequenceClassification a(deep, 2, nn::makeGenerator(123));
    const std::string path = save("layers3.safetensors", modelTensors(a));
    TrainingOptions o;
    o.init_checkpoint = path;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), twoLabels(), diag);
    QCOMPARE(diag.errorCount(), 1);
    QVERIFY2(errorsOf(diag).find("num_hidden_layers 3 in the checkpoint but 2 in the config; the config is likely that "
                                 "of another model")
                 != std::string::npos,
             errorsOf(diag).c_str());
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(25));
    QVERIFY_THROWS_EXCEPTION(Error, loadInitCheckpoint(b, path));
    o.allow_partial_init = true; // on purpose: a warning, the two layers both have are loaded
    Diagnostics allowed;
    checkInitCheckpoint(o, tinyConfig(), twoLabels(), allowed);
    QVERIFY2(!allowed.hasErrors(), errorsOf(allowed).c_str());
    QCOMPARE(int(loadInitCheckpoint(b, path, true).loaded.size()), int(expectedParameters(tinyConfig(), 2).size()));

    // A 1-layer checkpoint into the 2-layer config: the same error, not "16 tensors are not in the checkpoint".
    BertConfig shallow = tinyConfig();
    shallow.num_hidden_layers = 1;
    nn::BertForSequenceClassification c(shallow, 2, nn::makeGenerator(124));
    o.init_checkpoint = save("layers1.safetensors", modelTensors(c));
    o.allow_partial_init = false;
    Diagnostics fewer;
    checkInitCheckpoint(o, tinyConfig(), twoLabels(), fewer);
    QCOMPARE(fewer.errorCount(), 1);
    QVERIFY2(errorsOf(fewer).find("num_hidden_layers 1 in the checkpoint but 2 in the config") != std::string::npos,
             errorsOf(fewer).c_str());
}

void tst_InitCheckpoint::nothingFoundListsWhatWasLookedFor()
{
    const std::string dir = dirPath("notes-only");
    fs::create_directories(dir);
    std::ofstream(dir + "/notes.txt") << "hello";
    for (const std::string &input : {dir, dir + "/missing"}) {
        const std::string err = wbtest::expectError([&] { locateCheckpoint(input); });
        for (const char *what : {"a TensorFlow checkpoint (<prefix>.index", "its `checkpoint` index and ckpt-N files",
                                 "a single ckpt-N file", "an export folder", "model.safetensors", "pytorch_model.bin",
                                 "a .safetensors file"})
            QVERIFY2(err.find(what) != std::string::npos, (std::string(what) + " not in: " + err).c_str());
    }
    QVERIFY(wbtest::expectError([&] { locateCheckpoint(dir); }).find("it holds notes.txt") != std::string::npos);
}

QTEST_APPLESS_MAIN(tst_InitCheckpoint)
#include "tst_initcheckpoint.moc"
