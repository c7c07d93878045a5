// SPDX-License-Identifier: Apache-2.0
// The weights-only reader of torch.save files (core/weights/torchpickle.h), sharded checkpoints
// (core/weights/shardindex.h) and their use as init checkpoints, on fixtures written by the real
// torch.save (tests/data/pretrained/make_fixtures.py, committed).
#include "core/model/initcheckpoint.h"
#include "core/weights/parameternames.h"
#include "core/weights/shardindex.h"
#include "core/weights/torchpickle.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

const std::string kFixtures = std::string(WB_TEST_DATA_DIR) + "/pretrained";
const char *const kMarker = "/tmp/wb-hostile-pickle-ran"; // what the hostile fixtures would create

std::string fixture(const std::string &rel)
{
    return kFixtures + "/" + rel;
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeAll(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string expectError(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return e.field() + " | " + e.what() + " | " + e.hint();
    }
    return "no error";
}

/// The configuration of the fixtures (tests/data/pretrained/*/config.json).
BertConfig fixtureConfig()
{
    Diagnostics diag;
    const auto c = BertConfig::load(fixture("tiny-bert-zip/config.json"), diag);
    if (!c)
        qFatal("cannot read the fixtures' config.json: %s", diag.format().c_str());
    return *c;
}

/// Bit-for-bit equality: same dtype, shape and bytes.
bool sameBits(const torch::Tensor &a, const torch::Tensor &b)
{
    if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes())
        return false;
    const auto ca = a.contiguous(), cb = b.contiguous();
    return std::memcmp(ca.data_ptr(), cb.data_ptr(), size_t(ca.numel()) * ca.element_size()) == 0;
}

std::map<std::string, torch::Tensor> reference()
{
    return loadSafetensors(fixture("tiny-bert-safetensors/model.safetensors"));
}

} // namespace

class tst_TorchCheckpoint : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { std::filesystem::remove(kMarker); }
    void equalsReference_data();
    void equalsReference();
    void tableKeepsViewsAndTypes();
    void refusesHostilePickles_data();
    void refusesHostilePickles();
    void truncatedFiles_data();
    void truncatedFiles();
    void corruptFiles();
    void initialisesModelFromFolder_data();
    void initialisesModelFromFolder();
    void preflightMatchesSafetensors();
    void shardingErrors();
    void unreadableFolders();

private:
    std::string tmp(const std::string &rel) { return m_dir.filePath(QString::fromStdString(rel)).toStdString(); }
    QTemporaryDir m_dir;
};

void tst_TorchCheckpoint::equalsReference_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<int>("format");
    QTest::newRow("zip folder") << QStringLiteral("tiny-bert-zip") << int(CheckpointFormat::PyTorch);
    QTest::newRow("zip file") << QStringLiteral("tiny-bert-zip/pytorch_model.bin") << int(CheckpointFormat::PyTorch);
    QTest::newRow("legacy") << QStringLiteral("tiny-bert-legacy") << int(CheckpointFormat::PyTorch);
    QTest::newRow("protocol 4") << QStringLiteral("tiny-bert-protocol4") << int(CheckpointFormat::PyTorch);
    QTest::newRow("float16") << QStringLiteral("tiny-bert-fp16") << int(CheckpointFormat::PyTorch);
    QTest::newRow("bfloat16 legacy") << QStringLiteral("tiny-bert-bf16-legacy") << int(CheckpointFormat::PyTorch);
    QTest::newRow("sharded bin") << QStringLiteral("tiny-bert-sharded-bin") << int(CheckpointFormat::Sharded);
    QTest::newRow("sharded bin index") << QStringLiteral("tiny-bert-sharded-bin/pytorch_model.bin.index.json")
                                       << int(CheckpointFormat::Sharded);
    QTest::newRow("sharded safetensors") << QStringLiteral("tiny-bert-sharded-safetensors") << int(CheckpointFormat::Sharded);
    QTest::newRow("safetensors") << QStringLiteral("tiny-bert-safetensors") << int(CheckpointFormat::Safetensors);
}

void tst_TorchCheckpoint::equalsReference()
{
    QFETCH(QString, input);
    QFETCH(int, format);
    const CheckpointSource src = locateCheckpoint(fixture(input.toStdString()));
    QCOMPARE(int(src.format), format);
    const auto ref = reference();
    const auto got = loadWeights(src);
    QCOMPARE(got.size(), ref.size());
    QCOMPARE(got.size(), size_t(44));
    for (const auto &[name, t] : ref) {
        QVERIFY2(got.count(name), name.c_str());
        QVERIFY2(sameBits(got.at(name), t), name.c_str());
    }
    // The table (read without the data) agrees with the tensors.
    const SafetensorsHeader table = readWeightsTable(src);
    QCOMPARE(table.tensors.size(), size_t(44));
    for (const auto &e : table.tensors)
        QCOMPARE(e.shape, got.at(e.name).sizes().vec());
}

void tst_TorchCheckpoint::tableKeepsViewsAndTypes()
{
    const TorchCheckpoint zip = readTorchCheckpoint(fixture("tiny-bert-zip/pytorch_model.bin"));
    QCOMPARE(QString::fromStdString(zip.format), QStringLiteral("zip"));
    QCOMPARE(zip.tensors.size(), size_t(44));
    QCOMPARE(zip.storages.size(), size_t(43)); // the tied decoder shares the word embeddings' storage
    QCOMPARE(QString::fromStdString(zip.tensors.front().name), QStringLiteral("bert.embeddings.position_ids"));
    QCOMPARE(QString::fromStdString(zip.tensors.front().dtype), QStringLiteral("I64"));
    const TorchTensorEntry *pooler = zip.find("bert.pooler.dense.weight");
    QVERIFY(pooler);
    QCOMPARE(pooler->stride, (std::vector<int64_t>{1, 8}));
    const TorchTensorEntry *bias = zip.find("classifier.bias");
    QCOMPARE(bias->storage_offset, int64_t(5));
    QCOMPARE(zip.storages.at(bias->storage).numel, uint64_t(10));
    QCOMPARE(zip.find("cls.predictions.decoder.weight")->storage, zip.find("bert.embeddings.word_embeddings.weight")->storage);

    const TorchCheckpoint legacy = readTorchCheckpoint(fixture("tiny-bert-legacy/pytorch_model.bin"));
    QCOMPARE(QString::fromStdString(legacy.format), QStringLiteral("legacy"));
    QCOMPARE(legacy.find("classifier.bias")->storage_offset, int64_t(5));
    QCOMPARE(legacy.find("bert.pooler.dense.weight")->stride, (std::vector<int64_t>{1, 8}));

    for (const auto &[file, dtype] : {std::pair<std::string, std::string>{"tiny-bert-fp16", "F16"}, {"tiny-bert-bf16-legacy", "BF16"}}) {
        const TorchCheckpoint c = readTorchCheckpoint(fixture(file + "/pytorch_model.bin"));
        QCOMPARE(c.find("bert.encoder.layer.1.output.dense.weight")->dtype, dtype);
        QCOMPARE(QString::fromStdString(c.find("bert.embeddings.position_ids")->dtype), QStringLiteral("I64"));
    }
}

void tst_TorchCheckpoint::refusesHostilePickles_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("global");
    QTest::newRow("zip, os.system") << QStringLiteral("hostile/system.bin") << QStringLiteral("'posix.system'");
    QTest::newRow("legacy, eval") << QStringLiteral("hostile/eval-legacy.bin") << QStringLiteral("'__builtin__.eval'");
    QTest::newRow("bare pickle 4, exec") << QStringLiteral("hostile/exec.pkl") << QStringLiteral("'builtins.exec'");
}

void tst_TorchCheckpoint::refusesHostilePickles()
{
    QFETCH(QString, file);
    QFETCH(QString, global);
    const std::string path = fixture(file.toStdString());
    QVERIFY(!fs::exists(kMarker));
    const std::string err = expectError([&] { readTorchCheckpoint(path); });
    QVERIFY2(err.rfind(path, 0) == 0, err.c_str()); // the field names the file
    QVERIFY2(err.find("refers to the global " + global.toStdString()) != std::string::npos, err.c_str());
    QVERIFY2(err.find("nothing in it is run") != std::string::npos, err.c_str());
    QVERIFY(!fs::exists(kMarker)); // the command was not run

    // As an init checkpoint: the pre-flight check reports it, loading throws it.
    const std::string dir = tmp("hostile-" + fs::path(path).stem().string());
    fs::create_directories(dir);
    fs::copy_file(path, dir + "/pytorch_model.bin", fs::copy_options::overwrite_existing);
    TrainingOptions o;
    o.init_checkpoint = dir;
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, fixtureConfig(), meta, diag);
    QCOMPARE(diag.errorCount(), 1);
    QVERIFY2(diag.items().front().message.find(global.toStdString()) != std::string::npos, diag.format().c_str());
    nn::BertForSequenceClassification model(fixtureConfig(), 2, nn::makeGenerator(42));
    QVERIFY(expectError([&] { loadInitCheckpoint(model, dir); }).find(global.toStdString()) != std::string::npos);
    QVERIFY(!fs::exists(kMarker));
}

void tst_TorchCheckpoint::truncatedFiles_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("zip") << QStringLiteral("tiny-bert-zip/pytorch_model.bin");
    QTest::newRow("legacy") << QStringLiteral("tiny-bert-legacy/pytorch_model.bin");
    QTest::newRow("protocol 4") << QStringLiteral("tiny-bert-protocol4/pytorch_model.bin");
}

void tst_TorchCheckpoint::truncatedFiles()
{
    QFETCH(QString, file);
    const std::string bytes = readAll(fixture(file.toStdString()));
    QVERIFY(bytes.size() > 10000);
    const std::string path = tmp("truncated.bin");
    // Every cut (in steps that reach into each part of the file) is a clear error, never a crash.
    for (size_t n = 0; n < bytes.size(); n += (n < 200 ? 1 : 61)) {
        const std::string err = expectError([&] {
            std::istringstream in(bytes.substr(0, n));
            parseTorchCheckpoint(in, n, path);
        });
        QVERIFY2(err.rfind(path, 0) == 0 && err.find(" | ") + 3 < err.size(),
                 (std::to_string(n) + " bytes: " + err).c_str());
    }
    writeAll(path, bytes.substr(0, bytes.size() - 1));
    const std::string err = expectError([&] { readTorchCheckpoint(path); });
    QVERIFY2(err.find("truncated") != std::string::npos || err.find("cut short") != std::string::npos, err.c_str());
}

void tst_TorchCheckpoint::corruptFiles()
{
    const std::string zip = readAll(fixture("tiny-bert-zip/pytorch_model.bin"));
    const std::string path = tmp("corrupt.bin");
    // A byte of data.pkl changed: its CRC-32 no longer matches.
    std::string b = zip;
    const size_t pkl = b.find("collections");
    QVERIFY(pkl != std::string::npos);
    b[pkl] = 'C';
    writeAll(path, b);
    std::string err = expectError([&] { readTorchCheckpoint(path); });
    QVERIFY2(err.find("data.pkl | the CRC-32 of data.pkl does not match") != std::string::npos, err.c_str());

    // A byte of a storage changed: the table reads, the data does not.
    b = zip;
    const TorchCheckpoint c = readTorchCheckpoint(fixture("tiny-bert-zip/pytorch_model.bin"));
    const TorchStorageEntry &s = c.storages.at(c.find("classifier.weight")->storage);
    b[size_t(s.offset) + 3] ^= 0x40;
    writeAll(path, b);
    QCOMPARE(readTorchCheckpoint(path).tensors.size(), size_t(44));
    err = expectError([&] { loadTorchWeights(path); });
    QVERIFY2(err.find("storage " + c.find("classifier.weight")->storage + " | the CRC-32 of the storage does not match")
                 != std::string::npos,
             err.c_str());

    // The central directory damaged.
    b = zip;
    const size_t cd = b.find(std::string("PK\x01\x02", 4));
    b[cd + 2] = 'X';
    writeAll(path, b);
    err = expectError([&] { readTorchCheckpoint(path); });
    QVERIFY2(err.find("the zip archive is corrupt: central directory entry 0 is damaged") != std::string::npos, err.c_str());

    // A zip that is not torch's, a pickle that is not torch's, text.
    writeAll(path, std::string("PK\x03\x04rest", 8));
    QVERIFY(expectError([&] { readTorchCheckpoint(path); }).find("no end-of-central-directory record") != std::string::npos);
    writeAll(path, std::string("\x80\x02}q\x00.", 6));
    err = expectError([&] { readTorchCheckpoint(path); });
    QVERIFY2(err.find("not a torch.save file (its first pickle is not torch's magic number)") != std::string::npos, err.c_str());
    writeAll(path, "hello world");
    QVERIFY(expectError([&] { readTorchCheckpoint(path); }).find("neither a zip archive nor a pickle") != std::string::npos);

    // A legacy file whose view reaches past its storage (classifier.bias: offset 5 → 9 of 10).
    std::string legacy = readAll(fixture("tiny-bert-legacy/pytorch_model.bin"));
    const size_t name = legacy.find("classifier.bias");
    const size_t offsetOp = legacy.find("K\x05", name); // BININT1 5: the storage offset
    QVERIFY(offsetOp != std::string::npos && offsetOp - name < 200);
    legacy[offsetOp + 1] = 9;
    writeAll(path, legacy);
    err = expectError([&] { readTorchCheckpoint(path); });
    QVERIFY2(err.find("a tensor view of size (2) reaches past the end of its 10-element storage") != std::string::npos,
             err.c_str());
}

void tst_TorchCheckpoint::initialisesModelFromFolder_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("format");
    QTest::newRow("zip") << QStringLiteral("tiny-bert-zip") << QStringLiteral("PyTorch");
    QTest::newRow("bin file") << QStringLiteral("tiny-bert-legacy/pytorch_model.bin") << QStringLiteral("PyTorch");
    QTest::newRow("float16") << QStringLiteral("tiny-bert-fp16") << QStringLiteral("PyTorch");
    QTest::newRow("sharded bin") << QStringLiteral("tiny-bert-sharded-bin") << QStringLiteral("sharded PyTorch");
    QTest::newRow("sharded safetensors") << QStringLiteral("tiny-bert-sharded-safetensors") << QStringLiteral("sharded safetensors");
}

void tst_TorchCheckpoint::initialisesModelFromFolder()
{
    QFETCH(QString, input);
    QFETCH(QString, format);
    torch::manual_seed(5);
    nn::BertForSequenceClassification model(fixtureConfig(), 2, nn::makeGenerator(42));
    const CheckpointMatch m = loadInitCheckpoint(model, fixture(input.toStdString()));
    QCOMPARE(QString::fromStdString(m.format), format);
    const size_t expected = expectedParameters(fixtureConfig(), 2).size();
    QCOMPARE(m.loaded.size(), expected); // every encoder tensor and the classifier head
    QVERIFY(m.missing.empty());
    QVERIFY(!m.classifierMissing);
    // The masked-LM head is skipped and said so, not "unexpected".
    QVERIFY(m.unexpected.empty());
    QCOMPARE(m.pretraining_head, (std::vector<std::string>{"cls.predictions.bias", "cls.predictions.decoder.weight"}));
    QVERIFY2(m.summary().rfind("loaded " + std::to_string(expected) + " tensors, 0 missing, 0 unexpected; skipped 2 "
                               "pretraining-head tensors cls.…", 0) == 0,
             m.summary().c_str());
    const auto ref = reference();
    for (const auto &p : model->named_parameters())
        QVERIFY2(sameBits(p.value().detach(), ref.at(p.key())), p.key().c_str());
}

void tst_TorchCheckpoint::preflightMatchesSafetensors()
{
    // A config of another width: the findings for the PyTorch file are those for safetensors.
    BertConfig wide = fixtureConfig();
    wide.hidden_size = 16;
    wide.intermediate_size = 32;
    InputMetaData meta;
    meta.num_labels = 2;
    auto check = [&](const std::string &input) {
        TrainingOptions o;
        o.init_checkpoint = fixture(input);
        Diagnostics diag;
        checkInitCheckpoint(o, wide, meta, diag);
        std::vector<std::string> findings;
        for (const auto &d : diag.items()) {
            if (d.message.find("folder's config.json describes another architecture") != std::string::npos)
                continue; // folders only, naming the folder
            std::string field = d.field;
            const size_t colon = field.find(": ");
            field = colon == std::string::npos ? "" : field.substr(colon); // without the file
            findings.push_back(std::to_string(int(d.severity)) + field + " " + d.message + " " + d.hint);
        }
        std::sort(findings.begin(), findings.end()); // safetensors headers are read in name order
        return std::make_pair(diag.errorCount(), findings);
    };
    const auto st = check("tiny-bert-safetensors");
    QCOMPARE(st.first, 1); // one error for the file, naming the fields that differ (not one per tensor)
    for (const char *input : {"tiny-bert-zip", "tiny-bert-legacy/pytorch_model.bin", "tiny-bert-sharded-bin",
                              "tiny-bert-sharded-safetensors"}) {
        const auto got = check(input);
        QCOMPARE(got.first, st.first);
        for (size_t k = 0; k < got.second.size() && k < st.second.size(); ++k)
            QCOMPARE(QString::fromStdString(got.second[k]), QString::fromStdString(st.second[k]));
        QCOMPARE(got.second.size(), st.second.size());
    }
    const auto findings = check("tiny-bert-zip").second;
    QVERIFY(std::any_of(findings.begin(), findings.end(), [](const std::string &f) {
        return f.find("the checkpoint was made for another architecture than the model config: hidden_size 8 in the "
                      "checkpoint but 16 in the config, intermediate_size ")
               != std::string::npos;
    }));
    // And a matching config: no finding at all.
    TrainingOptions o;
    o.init_checkpoint = fixture("tiny-bert-zip");
    Diagnostics ok;
    checkInitCheckpoint(o, fixtureConfig(), meta, ok);
    QVERIFY2(ok.errorCount() == 0, ok.format().c_str());
}

void tst_TorchCheckpoint::shardingErrors()
{
    const std::string dir = tmp("shards");
    auto fresh = [&] {
        fs::remove_all(dir);
        fs::copy(fixture("tiny-bert-sharded-bin"), dir);
    };
    const std::string index = dir + "/pytorch_model.bin.index.json";
    auto failure = [&] {
        TrainingOptions o;
        o.init_checkpoint = dir;
        InputMetaData meta;
        meta.num_labels = 2;
        Diagnostics diag;
        checkInitCheckpoint(o, fixtureConfig(), meta, diag);
        nn::BertForSequenceClassification model(fixtureConfig(), 2, nn::makeGenerator(42));
        const std::string err = expectError([&] { loadInitCheckpoint(model, dir); });
        if (diag.errorCount() != 1 || diag.items().front().message.empty()
            || err.find(diag.items().front().message) == std::string::npos)
            return "pre-flight and load disagree: " + diag.format() + " / " + err;
        return err;
    };
    fresh();
    nn::BertForSequenceClassification model(fixtureConfig(), 2, nn::makeGenerator(42));
    QCOMPARE(loadInitCheckpoint(model, dir).loaded.size(), expectedParameters(fixtureConfig(), 2).size());

    // A missing shard.
    fs::remove(dir + "/pytorch_model-00002-of-00002.bin");
    std::string err = failure();
    QVERIFY2(err.find("the shard pytorch_model-00002-of-00002.bin named by pytorch_model.bin.index.json is missing")
                 != std::string::npos,
             err.c_str());

    // A name mapped twice in weight_map.
    fresh();
    std::string text = readAll(index);
    const size_t wm = text.find("\"weight_map\": {") + 15;
    writeAll(index, text.substr(0, wm) + "\n    \"classifier.bias\": \"pytorch_model-00001-of-00002.bin\"," + text.substr(wm));
    err = failure();
    QVERIFY2(err.find("weight_map.classifier.bias | the tensor 'classifier.bias' is mapped twice in weight_map")
                 != std::string::npos,
             err.c_str());

    // The index maps a tensor to the other shard; a tensor no shard holds; a tensor no index maps.
    fresh();
    const std::string moved = "\"classifier.bias\": \"pytorch_model-00002-of-00002.bin\"";
    QVERIFY(text.find(moved) != std::string::npos);
    text.replace(text.find(moved), moved.size(), "\"classifier.bias\": \"pytorch_model-00001-of-00002.bin\"");
    writeAll(index, text);
    err = failure();
    QVERIFY2(err.find("pytorch_model-00002-of-00002.bin: classifier.bias | the shard holds 'classifier.bias', which the "
                      "index maps to pytorch_model-00001-of-00002.bin")
                 != std::string::npos,
             err.c_str());
    fresh();
    text = readAll(index);
    text.replace(text.find(moved), moved.size(), moved + ",\n    \"classifier.extra\": \"pytorch_model-00002-of-00002.bin\"");
    writeAll(index, text);
    err = failure();
    QVERIFY2(err.find("the index maps 'classifier.extra' to pytorch_model-00002-of-00002.bin, but the shard does not hold it")
                 != std::string::npos,
             err.c_str());
    fresh();
    text = readAll(index);
    text.replace(text.find(moved + ","), moved.size() + 1, "");
    writeAll(index, text);
    err = failure();
    QVERIFY2(err.find("the shard holds 'classifier.bias', which pytorch_model.bin.index.json does not map") != std::string::npos,
             err.c_str());

    // A shard outside the folder; no weight_map.
    QVERIFY(expectError([&] { parseShardIndex(R"({"weight_map": {"a": "../x.bin"}})", "i.json"); })
                .find("i.json: weight_map.a | the shard '../x.bin' is not a plain file name") != std::string::npos);
    QVERIFY(expectError([&] { parseShardIndex(R"({"metadata": {"weight_map": 1}})", "i.json"); })
                .find("has no weight_map") != std::string::npos);
    // Keys named like weight_map's inside metadata are not duplicates.
    const ShardIndex ok = parseShardIndex(R"({"metadata": {"a": 1}, "weight_map": {"a": "s.bin", "b": "s.bin"}})", "d/i.json");
    QCOMPARE(ok.weight_map.size(), size_t(2));
    QCOMPARE(ok.shards, (std::vector<std::string>{"d/s.bin"}));
}

void tst_TorchCheckpoint::unreadableFolders()
{
    const std::string dir = tmp("tf-flax");
    fs::create_directories(dir);
    for (const char *f : {"config.json", "vocab.txt", "tf_model.h5", "flax_model.msgpack"})
        writeAll(dir + "/" + f, "x");
    std::string err = expectError([&] { locateCheckpoint(dir); });
    QVERIFY2(err.find("the folder's weights are only in tf_model.h5, flax_model.msgpack (Keras HDF5, Flax, Rust or ONNX), "
                      "which are not read; the folder holds config.json, flax_model.msgpack, tf_model.h5, vocab.txt")
                 != std::string::npos
                 && err.find("model.safetensors or pytorch_model.bin") != std::string::npos,
             err.c_str());
    fs::remove(dir + "/tf_model.h5");
    fs::remove(dir + "/flax_model.msgpack");
    err = expectError([&] { locateCheckpoint(dir); });
    QVERIFY2(err.find("holds no checkpoint this program reads (it holds config.json, vocab.txt)") != std::string::npos,
             err.c_str());
}

QTEST_APPLESS_MAIN(tst_TorchCheckpoint)
#include "tst_torchcheckpoint.moc"
