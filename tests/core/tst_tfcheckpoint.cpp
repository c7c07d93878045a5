// SPDX-License-Identifier: Apache-2.0
#include "core/engine/preflight.h"
#include "core/util/crc32c.h"
#include "core/model/initcheckpoint.h"
#include "core/weights/parameternames.h"
#include "core/weights/tfcheckpoint.h"
#include "core/util/error.h"
#include "weights/tensorbundle.pb.h"
#include "support/checkpointfixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>

using namespace wb;
using wbtest::errorsOf;
using wbtest::expectError;
using wbtest::tinyConfig;
namespace fs = std::filesystem;

namespace {

void putVarint(std::string &out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(char(v | 0x80));
        v >>= 7;
    }
    out.push_back(char(v));
}

void putFixed32(std::string &out, uint32_t v)
{
    for (int k = 0; k < 4; ++k)
        out.push_back(char((v >> (8 * k)) & 0xff));
}

/// A test-side writer of LevelDB's table format (leveldb/doc/table_format.md), independent
/// of the reader: prefix-compressed entries, a restart point every `restartInterval`
/// entries, blocks cut at `blockSize` bytes, trailers with the masked CRC32C.
struct TableWriter
{
    size_t blockSize = 4096;
    int restartInterval = 16;
    unsigned char compressionType = 0; ///< written into every trailer (TF: always 0)
    bool misplaceRestart = false;      ///< moves the second restart point of the first data block by one byte
    std::string file;
    int dataBlocks = 0;

    void add(const std::string &key, const std::string &value)
    {
        size_t shared = 0;
        if (m_counter < restartInterval) {
            while (shared < m_last.size() && shared < key.size() && m_last[shared] == key[shared])
                ++shared;
        } else {
            m_restarts.push_back(uint32_t(m_block.size()));
            m_counter = 0;
        }
        putVarint(m_block, shared);
        putVarint(m_block, key.size() - shared);
        putVarint(m_block, value.size());
        m_block += key.substr(shared) + value;
        m_last = key;
        ++m_counter;
        if (m_block.size() >= blockSize)
            flush();
    }

    std::string finish()
    {
        flush();
        const auto meta = writeBlock(std::string(), {0});
        std::string index;
        std::vector<uint32_t> restarts;
        for (const auto &[key, handle] : m_index) { // restart interval 1, as LevelDB's index block
            restarts.push_back(uint32_t(index.size()));
            putVarint(index, 0);
            putVarint(index, key.size());
            putVarint(index, handle.size());
            index += key + handle;
        }
        const auto idx = writeBlock(index, restarts.empty() ? std::vector<uint32_t>{0} : restarts);
        std::string footer;
        putVarint(footer, meta.first);
        putVarint(footer, meta.second);
        putVarint(footer, idx.first);
        putVarint(footer, idx.second);
        footer.resize(40, '\0');
        putFixed32(footer, 0x8b80fb57u);
        putFixed32(footer, 0xdb477524u);
        return file + footer;
    }

private:
    void flush()
    {
        if (m_block.empty())
            return;
        if (misplaceRestart && dataBlocks == 0 && m_restarts.size() > 1)
            m_restarts[1] += 1;
        const auto h = writeBlock(m_block, m_restarts);
        std::string handle;
        putVarint(handle, h.first);
        putVarint(handle, h.second);
        m_index.emplace_back(m_last, handle);
        ++dataBlocks;
        m_block.clear();
        m_restarts = {0};
        m_counter = 0;
        m_last.clear();
    }

    std::pair<uint64_t, uint64_t> writeBlock(std::string contents, const std::vector<uint32_t> &restarts)
    {
        for (uint32_t r : restarts)
            putFixed32(contents, r);
        putFixed32(contents, uint32_t(restarts.size()));
        const uint64_t offset = file.size();
        file += contents;
        file.push_back(char(compressionType));
        putFixed32(file, maskCrc(crc32c(file.data() + offset, contents.size() + 1)));
        return {offset, contents.size()};
    }

    std::string m_block;
    std::vector<uint32_t> m_restarts{0};
    int m_counter = 0;
    std::string m_last;
    std::vector<std::pair<std::string, std::string>> m_index;
};

/// One tensor to write: name, TensorFlow dtype and shape, raw little-endian bytes, shard.
struct TfTensor
{
    std::string name;
    int dtype = tfdtype::kFloat;
    std::vector<int64_t> shape;
    std::string bytes;
    int shard = 0;
};

std::string floatBytes(const torch::Tensor &t)
{
    auto c = t.detach().to(torch::kFloat).contiguous();
    return std::string(static_cast<const char *>(c.data_ptr()), size_t(c.numel()) * 4);
}

TfTensor floatTensor(const std::string &name, const torch::Tensor &t)
{
    return {name, tfdtype::kFloat, t.sizes().vec(), floatBytes(t), 0};
}

/// Writes `<prefix>.index` and its data shards as TensorFlow's BundleWriter does; returns
/// the number of data blocks of the index.
int writeBundle(const std::string &prefix, std::vector<TfTensor> tensors, int numShards = 1, TableWriter table = {})
{
    std::sort(tensors.begin(), tensors.end(), [](const TfTensor &a, const TfTensor &b) { return a.name < b.name; });
    tfbundle::BundleHeaderProto header;
    header.set_num_shards(numShards);
    header.mutable_version()->set_producer(1);
    table.add("", header.SerializeAsString());
    std::vector<std::string> shards(static_cast<size_t>(numShards));
    for (const auto &t : tensors) {
        tfbundle::BundleEntryProto e;
        e.set_dtype(tfbundle::DataType(t.dtype));
        for (int64_t d : t.shape)
            e.mutable_shape()->add_dim()->set_size(d);
        e.set_shard_id(t.shard);
        e.set_offset(int64_t(shards[size_t(t.shard)].size()));
        e.set_size(int64_t(t.bytes.size()));
        e.set_crc32c(maskCrc(crc32c(t.bytes.data(), t.bytes.size())));
        shards[size_t(t.shard)] += t.bytes;
        table.add(t.name, e.SerializeAsString());
    }
    std::ofstream(prefix + ".index", std::ios::binary) << table.finish();
    for (int s = 0; s < numShards; ++s) {
        char suffix[40];
        std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", s, numShards);
        std::ofstream(prefix + suffix, std::ios::binary) << shards[size_t(s)];
    }
    return table.dataBlocks;
}

/// google-research/bert TF1 variables of `model` (kernels stored [in, out]).
std::vector<TfTensor> tf1Tensors(nn::BertForSequenceClassification &model)
{
    std::vector<TfTensor> out;
    for (auto &p : model->named_parameters()) {
        std::string n = p.key();
        torch::Tensor t = p.value();
        if (n == "classifier.weight") {
            out.push_back(floatTensor("output_weights", t));
            continue;
        }
        if (n == "classifier.bias") {
            out.push_back(floatTensor("output_bias", t));
            continue;
        }
        n = n.substr(5); // "bert."
        std::string tf = "bert/";
        const bool embeddingTable = n.find("_embeddings.weight") != std::string::npos;
        for (size_t k = 0; k < n.size(); ++k)
            tf += n[k] == '.' ? '/' : n[k];
        const std::string layer = "bert/encoder/layer/";
        if (tf.rfind(layer, 0) == 0) {
            const size_t slash = tf.find('/', layer.size());
            tf = "bert/encoder/layer_" + tf.substr(layer.size(), slash - layer.size()) + tf.substr(slash);
        }
        if (embeddingTable) {
            tf = tf.substr(0, tf.size() - 7);
        } else if (tf.find("LayerNorm/weight") != std::string::npos) {
            tf = tf.substr(0, tf.size() - 6) + "gamma";
        } else if (tf.find("LayerNorm/bias") != std::string::npos) {
            tf = tf.substr(0, tf.size() - 4) + "beta";
        } else if (tf.size() > 7 && tf.compare(tf.size() - 7, 7, "/weight") == 0) {
            tf = tf.substr(0, tf.size() - 6) + "kernel";
            t = t.t();
        }
        out.push_back(floatTensor(tf, t));
    }
    return out;
}

void expectEqualModels(nn::BertForSequenceClassification &a, nn::BertForSequenceClassification &b, bool withHead)
{
    std::string different;
    QVERIFY2(wbtest::equalModels(a, b, withHead, &different), different.c_str());
}

} // namespace

class tst_TfCheckpoint : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { torch::manual_seed(1); }
    void realTf1Index();
    void realTf1IndexMatchesTheModel();
    void mapsNames_data();
    void mapsNames();
    void endToEndTf1SeveralBlocks();
    void endToEndTf2Names();
    void corruptedTensorCrcIsNamed();
    void damagedIndexBlocks_data();
    void damagedIndexBlocks();
    void missingShardIsNamed();
    void shapeMismatchNamesTensorAndKey();
    void locatesInputs();
    void refusesPicklesAndTfNamesInSafetensors();
    void huggingFaceFolder();
    void tfHubScopeLoadsWholeEncoder();
    void missingEncoderIsAnErrorNamingCountAndScope();
    void twoNamesForOneTensorAreAnError();
    void absolutePathFromAnotherMachine();

private:
    std::string path(const char *name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }
    QTemporaryDir m_dir;
};

void tst_TfCheckpoint::realTf1Index()
{
    const std::string dir = std::string(WB_SHARED_DATA_DIR) + "/tf-checkpoint";
    if (!fs::exists(dir + "/bert_model.ckpt.index"))
        QSKIP("shared TF checkpoint index not present");
    const TfBundle b = readTfBundle(dir + "/bert_model.ckpt");
    QCOMPARE(b.num_shards, 1);
    QCOMPARE(int(b.entries.size()), 202); // 5 embeddings + 12 × 16 encoder + 5 cls/predictions
    struct Want
    {
        const char *name;
        std::vector<int64_t> shape;
        int64_t offset, size;
        uint32_t crc;
    };
    const Want wants[] = {
        {"bert/embeddings/LayerNorm/beta", {768}, 0, 3072, 3165747570u},
        {"bert/embeddings/LayerNorm/gamma", {768}, 3072, 3072, 563001070u},
        {"bert/embeddings/position_embeddings", {512, 768}, 6144, 1572864, 418087603u},
        {"bert/embeddings/token_type_embeddings", {2, 768}, 1579008, 6144, 1352073125u},
        {"bert/embeddings/word_embeddings", {5981, 768}, 1585152, 18373632, 3739440882u},
        {"cls/predictions/transform/dense/kernel", {768, 768}, 360209780, 2359296, 2637083952u},
    };
    for (const auto &w : wants) {
        const TfBundleEntry *e = b.find(w.name);
        QVERIFY2(e, w.name);
        QCOMPARE(e->dtype, tfdtype::kFloat);
        QCOMPARE(e->shape, w.shape);
        QCOMPARE(e->offset, w.offset);
        QCOMPARE(e->size, w.size);
        QCOMPARE(e->masked_crc32c, w.crc);
        QCOMPARE(e->shard_id, 0);
    }
    // Every tensor is float32 with size = numel × 4, and they tile the shard without gaps.
    std::vector<std::pair<int64_t, int64_t>> spans;
    int mapped = 0, other = 0;
    for (const auto &e : b.entries) {
        QCOMPARE(e.dtype, tfdtype::kFloat);
        int64_t n = 1;
        for (auto d : e.shape)
            n *= d;
        QCOMPARE(e.size, n * 4);
        spans.emplace_back(e.offset, e.size);
        const TfVariableKind kind = classifyTfVariable(e.name);
        if (kind == TfVariableKind::Parameter)
            ++mapped;
        else if (kind == TfVariableKind::Other && e.name.rfind("cls/", 0) == 0)
            ++other;
    }
    QCOMPARE(mapped, 197);
    QCOMPARE(other, 5);
    std::sort(spans.begin(), spans.end());
    int64_t end = 0;
    for (const auto &[off, size] : spans) {
        QCOMPARE(off, end);
        end = off + size;
    }
    QCOMPARE(end, int64_t(362569076));
    const auto q = mapTfVariableName("bert/encoder/layer_11/attention/self/query/kernel");
    QVERIFY(q && q->kernel);
    QCOMPARE(q->model_name, std::string("bert.encoder.layer.11.attention.self.query.weight"));

}

/// The same real index matched against its bert_config.json: what loads, what is missing or
/// skipped, and the pre-flight check's message about the absent data shard.
void tst_TfCheckpoint::realTf1IndexMatchesTheModel()
{
    const std::string dir = std::string(WB_SHARED_DATA_DIR) + "/tf-checkpoint";
    if (!fs::exists(dir + "/bert_model.ckpt.index"))
        QSKIP("shared TF checkpoint index not present");
    const TfBundle b = readTfBundle(dir + "/bert_model.ckpt");
    Diagnostics cfgDiag;
    const auto cfg = BertConfig::load(dir + "/bert_config.json", cfgDiag);
    QVERIFY(cfg && !cfgDiag.hasErrors());
    Diagnostics diag;
    const CheckpointMatch m = matchTfCheckpoint(b, *cfg, 2, diag);
    QVERIFY(!diag.hasErrors());
    QCOMPARE(int(m.loaded.size()), 197);
    QCOMPARE(m.missing, (std::vector<std::string>{"bert.pooler.dense.weight", "bert.pooler.dense.bias"}));
    QVERIFY(m.unexpected.empty());
    QCOMPARE(int(m.pretraining_head.size()), 5); // cls/predictions/…: skipped, and said so
    QVERIFY2(m.summary().find("skipped 5 pretraining-head tensors cls/… (the masked-LM and next-sentence heads")
                 != std::string::npos,
             m.summary().c_str());
    QVERIFY(m.classifierMissing);
    const auto shards = checkTfBundleShards(b);
    QCOMPARE(int(shards.size()), 1);
    QCOMPARE(shards[0].first, dir + "/bert_model.ckpt.data-00000-of-00001");

    // The pre-flight check resolves the folder through its `checkpoint` file and names the missing shard.
    TrainingOptions o;
    o.init_checkpoint = dir;
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics pre;
    checkInitCheckpoint(o, *cfg, meta, pre);
    QCOMPARE(pre.errorCount(), 1);
    bool named = false;
    for (const auto &d : pre.items())
        named |= d.severity == Severity::Error
                 && QString::fromStdString(d.message).contains(QStringLiteral("bert_model.ckpt.data-00000-of-00001"));
    QVERIFY(named);
}

void tst_TfCheckpoint::mapsNames_data()
{
    QTest::addColumn<QString>("tf");
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("kernel");
    QTest::newRow("word") << "bert/embeddings/word_embeddings" << "bert.embeddings.word_embeddings.weight" << false;
    QTest::newRow("emb ln") << "bert/embeddings/LayerNorm/beta" << "bert.embeddings.LayerNorm.bias" << false;
    QTest::newRow("out ln") << "bert/encoder/layer_3/output/LayerNorm/gamma"
                            << "bert.encoder.layer.3.output.LayerNorm.weight" << false;
    QTest::newRow("att out") << "bert/encoder/layer_0/attention/output/dense/kernel"
                             << "bert.encoder.layer.0.attention.output.dense.weight" << true;
    QTest::newRow("pooler") << "bert/pooler/dense/kernel" << "bert.pooler.dense.weight" << true;
    QTest::newRow("head") << "output_weights" << "classifier.weight" << false;
    QTest::newRow("adam") << "bert/pooler/dense/kernel/adam_m" << "" << false;
    QTest::newRow("mlm") << "cls/predictions/output_bias" << "" << false;
    QTest::newRow("tf1 Adam") << "bert/encoder/layer_0/output/dense/kernel/Adam_1" << "" << false;
    QTest::newRow("tf2 q") << "encoder/_transformer_layers/1/_attention_layer/_query_dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"
                           << "bert.encoder.layer.1.attention.self.query.weight" << true;
    QTest::newRow("tf2 ln") << "model/encoder/_transformer_layers/0/_output_layer_norm/beta/.ATTRIBUTES/VARIABLE_VALUE"
                            << "bert.encoder.layer.0.output.LayerNorm.bias" << false;
    QTest::newRow("tf2 type") << "encoder/_type_embedding_layer/embeddings/.ATTRIBUTES/VARIABLE_VALUE"
                              << "bert.embeddings.token_type_embeddings.weight" << false;
    QTest::newRow("tf2 slot")
        << "encoder/_pooler_layer/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE" << "" << false;
    // TF1 names under the scopes of run_classifier_with_tfhub.py (module/), Keras wrappers and nesting.
    QTest::newRow("tfhub") << "module/bert/encoder/layer_1/attention/self/key/kernel"
                           << "bert.encoder.layer.1.attention.self.key.weight" << true;
    QTest::newRow("bert/bert") << "bert/bert/embeddings/word_embeddings" << "bert.embeddings.word_embeddings.weight"
                               << false;
    QTest::newRow("model/encoder") << "model/encoder/bert/pooler/dense/bias" << "bert.pooler.dense.bias" << false;
    QTest::newRow("keras tf1") << "bert/encoder/layer_0/output/LayerNorm/gamma/.ATTRIBUTES/VARIABLE_VALUE"
                               << "bert.encoder.layer.0.output.LayerNorm.weight" << false;
    QTest::newRow("tfhub adam") << "module/bert/pooler/dense/kernel/adam_m" << "" << false;
    QTest::newRow("other scope") << "cls/bert/embeddings/word_embeddings" << "" << false; // not a recognised scope
}

void tst_TfCheckpoint::mapsNames()
{
    QFETCH(QString, tf);
    QFETCH(QString, model);
    QFETCH(bool, kernel);
    const auto m = mapTfVariableName(tf.toStdString());
    if (model.isEmpty()) {
        QVERIFY(!m);
        const TfVariableKind kind = classifyTfVariable(tf.toStdString());
        const bool slot = tf.contains(QStringLiteral("adam")) || tf.contains(QStringLiteral("Adam"))
                          || tf.contains(QStringLiteral("OPTIMIZER_SLOT"));
        QCOMPARE(kind, slot ? TfVariableKind::OptimizerSlot : TfVariableKind::Other);
        return;
    }
    QVERIFY(m);
    QCOMPARE(QString::fromStdString(m->model_name), model);
    QCOMPARE(m->kernel, kernel);
    // The scope removed: everything before the model's own names.
    const QString scope = QString::fromStdString(m->scope);
    if (tf.startsWith(QStringLiteral("module/bert/")))
        QCOMPARE(scope, QStringLiteral("module/"));
    else if (tf.startsWith(QStringLiteral("bert/bert/")))
        QCOMPARE(scope, QStringLiteral("bert/"));
    else if (tf.startsWith(QStringLiteral("model/encoder/bert/")))
        QCOMPARE(scope, QStringLiteral("model/encoder/"));
    else if (tf.startsWith(QStringLiteral("model/encoder/_")))
        QCOMPARE(scope, QStringLiteral("model/encoder/"));
    else if (tf.startsWith(QStringLiteral("encoder/_")))
        QCOMPARE(scope, QStringLiteral("encoder/"));
    else
        QCOMPARE(scope, QString());
}

void tst_TfCheckpoint::endToEndTf1SeveralBlocks()
{
    nn::BertForSequenceClassification a(tinyConfig(), 3, nn::makeGenerator(101));
    auto tensors = tf1Tensors(a);
    // The embeddings' LayerNorm gamma as DT_HALF (1.0 is exact in half precision).
    for (auto &t : tensors)
        if (t.name == "bert/embeddings/LayerNorm/gamma") {
            auto h = torch::ones({32}, torch::kHalf);
            t = {t.name, tfdtype::kHalf, {32}, std::string(static_cast<const char *>(h.data_ptr()), 64), 0};
        }
    std::string step(8, '\0');
    step[0] = 7;
    tensors.push_back({"global_step", tfdtype::kInt64, {}, step, 0});
    tensors.push_back(floatTensor("bert/pooler/dense/kernel/adam_m", torch::zeros({32, 32})));
    tensors.push_back(floatTensor("bert/pooler/dense/kernel/adam_v", torch::zeros({32, 32})));
    tensors.push_back(floatTensor("cls/predictions/output_bias", torch::zeros({100})));
    TableWriter table;
    table.blockSize = 256;
    table.restartInterval = 3;
    const std::string prefix = path("tf1/model.ckpt-12");
    fs::create_directories(path("tf1"));
    const int blocks = writeBundle(prefix, tensors, 1, table);
    QVERIFY2(blocks >= 4, std::to_string(blocks).c_str());

    std::ifstream in(prefix + ".index", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto kv = readLevelDbTable(bytes, prefix + ".index");
    QCOMPARE(kv.size(), tensors.size() + 1);
    QCOMPARE(kv.front().first, std::string());
    QCOMPARE(kv[1].first, std::string("bert/embeddings/LayerNorm/beta"));
    QCOMPARE(kv.back().first, std::string("output_weights"));

    nn::BertForSequenceClassification b(tinyConfig(), 3, nn::makeGenerator(5));
    const CheckpointMatch m = loadInitCheckpoint(b, prefix);
    QCOMPARE(m.format, std::string("TensorFlow checkpoint"));
    QCOMPARE(int(m.loaded.size()), int(expectedParameters(tinyConfig(), 3).size()));
    QVERIFY(m.missing.empty());
    QVERIFY(!m.classifierMissing);
    QVERIFY(m.unexpected.empty());
    QCOMPARE(m.pretraining_head, std::vector<std::string>{"cls/predictions/output_bias"});
    QVERIFY2(QString::fromStdString(m.summary()).contains(QStringLiteral("skipped 1 pretraining-head tensor cls/…")),
             m.summary().c_str());
    QCOMPARE(int(m.skipped.size()), 3);
    QVERIFY(QString::fromStdString(m.summary()).contains(QStringLiteral("skipped 3 optimizer")));
    expectEqualModels(a, b, true);
}

void tst_TfCheckpoint::endToEndTf2Names()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(102));
    auto p = a->named_parameters();
    const std::string attr = "/.ATTRIBUTES/VARIABLE_VALUE";
    std::vector<TfTensor> t;
    auto add = [&](const std::string &name, const torch::Tensor &x) { t.push_back(floatTensor("encoder/" + name + attr, x)); };
    add("_embedding_layer/embeddings", p["bert.embeddings.word_embeddings.weight"]);
    add("_position_embedding_layer/embeddings", p["bert.embeddings.position_embeddings.weight"]);
    add("_type_embedding_layer/embeddings", p["bert.embeddings.token_type_embeddings.weight"]);
    add("_embedding_norm_layer/gamma", p["bert.embeddings.LayerNorm.weight"]);
    add("_embedding_norm_layer/beta", p["bert.embeddings.LayerNorm.bias"]);
    for (int l = 0; l < 2; ++l) {
        const std::string L = "_transformer_layers/" + std::to_string(l) + "/";
        const std::string P = "bert.encoder.layer." + std::to_string(l) + ".";
        for (const char *qkv : {"query", "key", "value"}) {
            const std::string dense = L + "_attention_layer/_" + qkv + "_dense/";
            add(dense + "kernel", p[P + "attention.self." + qkv + ".weight"].t().reshape({32, 2, 16}));
            add(dense + "bias", p[P + "attention.self." + qkv + ".bias"].reshape({2, 16}));
        }
        add(L + "_attention_layer/_output_dense/kernel", p[P + "attention.output.dense.weight"].t().reshape({2, 16, 32}));
        add(L + "_attention_layer/_output_dense/bias", p[P + "attention.output.dense.bias"]);
        add(L + "_attention_layer_norm/gamma", p[P + "attention.output.LayerNorm.weight"]);
        add(L + "_attention_layer_norm/beta", p[P + "attention.output.LayerNorm.bias"]);
        add(L + "_intermediate_dense/kernel", p[P + "intermediate.dense.weight"].t());
        add(L + "_intermediate_dense/bias", p[P + "intermediate.dense.bias"]);
        add(L + "_output_dense/kernel", p[P + "output.dense.weight"].t());
        add(L + "_output_dense/bias", p[P + "output.dense.bias"]);
        add(L + "_output_layer_norm/gamma", p[P + "output.LayerNorm.weight"]);
        add(L + "_output_layer_norm/beta", p[P + "output.LayerNorm.bias"]);
    }
    add("_pooler_layer/kernel", p["bert.pooler.dense.weight"].t());
    add("_pooler_layer/bias", p["bert.pooler.dense.bias"]);
    std::string counter(8, '\0');
    t.push_back({"save_counter" + attr, tfdtype::kInt64, {}, counter, 0});
    fs::create_directories(path("tf2"));
    const std::string prefix = path("tf2/ckpt-1");
    writeBundle(prefix, t);
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(9));
    const CheckpointMatch m = loadInitCheckpoint(b, prefix + ".index");
    QCOMPARE(int(m.loaded.size()), int(expectedParameters(tinyConfig(), 2).size()) - 2);
    QVERIFY(m.classifierMissing);
    QVERIFY(m.missing.empty() && m.unexpected.empty());
    QCOMPARE(m.skipped, std::vector<std::string>{"save_counter" + attr});
    expectEqualModels(a, b, false);
}

void tst_TfCheckpoint::corruptedTensorCrcIsNamed()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(103));
    fs::create_directories(path("crc"));
    const std::string prefix = path("crc/bert_model.ckpt");
    writeBundle(prefix, tf1Tensors(a));
    const TfBundle bundle = readTfBundle(prefix);
    const TfBundleEntry *e = bundle.find("bert/encoder/layer_1/attention/self/query/kernel");
    QVERIFY(e);
    {
        std::fstream f(bundle.shardPath(0), std::ios::binary | std::ios::in | std::ios::out);
        f.seekp(std::streamoff(e->offset + 100));
        f.put('\x5a');
    }
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(104));
    const std::string err = expectError([&] { loadInitCheckpoint(b, prefix); });
    QVERIFY2(err.find("tensor 'bert/encoder/layer_1/attention/self/query/kernel'") != std::string::npos
                 && err.find("checksum mismatch") != std::string::npos,
             err.c_str());
    QVERIFY_THROWS_NO_EXCEPTION(readTfTensorBytes(bundle, *bundle.find("bert/encoder/layer_0/attention/self/query/kernel")));
}

void tst_TfCheckpoint::damagedIndexBlocks_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("flipped byte") << 0 << "block checksum mismatch";
    QTest::newRow("snappy") << 1 << "compression type 1 (Snappy)";
    QTest::newRow("restart") << 2 << "not at an entry boundary";
    QTest::newRow("magic") << 3 << "not LevelDB's";
    QTest::newRow("truncated") << 4 << "shorter than the 48-byte";
    QTest::newRow("hostile shape") << 5 << "size 8 bytes does not match DT_FLOAT";
}

void tst_TfCheckpoint::damagedIndexBlocks()
{
    QFETCH(int, kind);
    QFETCH(QString, expected);
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(105));
    TableWriter table;
    table.blockSize = 300;
    table.restartInterval = 4;
    table.compressionType = kind == 1 ? 1 : 0;
    table.misplaceRestart = kind == 2;
    fs::create_directories(path("damaged"));
    const std::string prefix = path("damaged/m.ckpt");
    auto tensors = tf1Tensors(a);
    if (kind == 5)
        tensors.push_back({"bert/huge", tfdtype::kFloat, {int64_t(1) << 62, 4}, std::string(8, '\0'), 0});
    writeBundle(prefix, tensors, 1, table);
    std::ifstream in(prefix + ".index", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    if (kind == 0)
        bytes[40] = char(bytes[40] ^ 0x01);
    if (kind == 3)
        bytes[bytes.size() - 1] = 0;
    if (kind == 4)
        bytes.resize(20);
    std::ofstream(prefix + ".index", std::ios::binary | std::ios::trunc) << bytes;
    const std::string err = expectError([&] { readTfBundle(prefix); });
    QVERIFY2(QString::fromStdString(err).contains(expected), err.c_str());
    QVERIFY2(err.find("m.ckpt.index") != std::string::npos, err.c_str());
}

void tst_TfCheckpoint::missingShardIsNamed()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(106));
    auto tensors = tf1Tensors(a);
    for (size_t k = 0; k < tensors.size(); k += 2)
        tensors[k].shard = 1;
    fs::create_directories(path("shards"));
    const std::string prefix = path("shards/bert_model.ckpt");
    writeBundle(prefix, tensors, 2);
    {
        nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(4));
        loadInitCheckpoint(b, prefix); // both shards present
        expectEqualModels(a, b, true);
    }
    fs::remove(prefix + ".data-00001-of-00002");
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(107));
    const std::string err = expectError([&] { loadInitCheckpoint(b, prefix); });
    QVERIFY2(err.find("bert_model.ckpt.data-00001-of-00002") != std::string::npos && err.find("missing") != std::string::npos,
             err.c_str());
    TrainingOptions o;
    o.init_checkpoint = prefix;
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QCOMPARE(diag.errorCount(), 1);
}

void tst_TfCheckpoint::shapeMismatchNamesTensorAndKey()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(108));
    fs::create_directories(path("shape"));
    const std::string prefix = path("shape/bert_model.ckpt");
    writeBundle(prefix, tf1Tensors(a));
    BertConfig wide = tinyConfig();
    wide.intermediate_size = 128;
    TrainingOptions o;
    o.init_checkpoint = prefix;
    InputMetaData meta;
    meta.num_labels = 5; // another head: a warning, not an error
    Diagnostics diag;
    checkInitCheckpoint(o, wide, meta, diag);
    QCOMPARE(diag.errorCount(), 1); // one for the file (6 tensors: intermediate kernel+bias, output kernel, ×2)
    const std::string e = errorsOf(diag);
    QVERIFY2(e.find(prefix + " | the checkpoint was made for another architecture than the model config: "
                             "intermediate_size 64 in the checkpoint but 128 in the config; 6 of the model's tensors "
                             "have another shape in the checkpoint (first: bert.encoder.layer.0.intermediate.dense.weight, "
                             "[64, 32] in the checkpoint, [128, 32] in the model)")
                 != std::string::npos,
             e.c_str());
    bool headWarning = false;
    for (const auto &d : diag.items())
        headWarning |= d.severity == Severity::Warning && d.field.find("output_weights") != std::string::npos;
    QVERIFY(headWarning);
}

void tst_TfCheckpoint::locatesInputs()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(109));
    fs::create_directories(path("loc/sub"));
    const std::string prefix = path("loc/sub/model.ckpt-5");
    writeBundle(prefix, tf1Tensors(a));
    std::ofstream(path("loc/checkpoint")) << "model_checkpoint_path: \"sub/model.ckpt-5\"\n"
                                          << "all_model_checkpoint_paths: \"sub/model.ckpt-5\"\n";
    QCOMPARE(locateCheckpoint(path("loc")).path, prefix);
    QCOMPARE(locateCheckpoint(prefix + ".index").path, prefix);
    QCOMPARE(locateCheckpoint(prefix + ".data-00000-of-00001").path, prefix);
    QCOMPARE(locateCheckpoint(path("loc/sub")).path, prefix); // one .index in the folder
    QVERIFY(locateCheckpoint(prefix).format == CheckpointFormat::TensorFlow);

    std::ofstream(path("loc/checkpoint"), std::ios::trunc) << "model_checkpoint_path: \"gone.ckpt\"\n";
    std::string err = expectError([&] { locateCheckpoint(path("loc")); });
    QVERIFY2(err.find("gone.ckpt.index (TensorFlow) nor " + path("loc/gone.ckpt") + " (a training checkpoint) exists")
                 != std::string::npos,
             err.c_str());

    fs::create_directories(path("noindex"));
    std::ofstream(path("noindex/bert_model.ckpt.data-00000-of-00001")) << "x";
    err = expectError([&] { locateCheckpoint(path("noindex/bert_model.ckpt")); });
    QVERIFY2(err.find(".index file is missing") != std::string::npos, err.c_str());
    err = expectError([&] { locateCheckpoint(path("nowhere/x.ckpt")); });
    QVERIFY2(err.find("does not exist") != std::string::npos, err.c_str());
}

void tst_TfCheckpoint::refusesPicklesAndTfNamesInSafetensors()
{
    fs::create_directories(path("pt"));
    // A pickle that is not a torch.save file: read by the weights-only reader (tst_torchcheckpoint), refused.
    std::ofstream(path("pt/pytorch_model.bin"), std::ios::binary) << std::string("\x80\x02}q\x00.", 6);
    for (const std::string &input : {path("pt/pytorch_model.bin"), path("pt")}) {
        QVERIFY(locateCheckpoint(input).format == CheckpointFormat::PyTorch);
        const std::string err = expectError([&] { readWeightsTable(locateCheckpoint(input)); });
        QVERIFY2(err.find("not a torch.save file") != std::string::npos, err.c_str());
    }
    std::ofstream(path("pt/weights.safetensors"), std::ios::binary) << std::string("PK\x03\x04rest", 8); // a zip: torch.save
    QVERIFY(locateCheckpoint(path("pt/weights.safetensors")).format == CheckpointFormat::PyTorch);
    QVERIFY(expectError([&] { readWeightsTable(locateCheckpoint(path("pt/weights.safetensors"))); })
                .find("zip archive is corrupt") != std::string::npos);

    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(110));
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (const auto &t : tf1Tensors(a))
        named.emplace_back(t.name, torch::zeros(t.shape));
    saveSafetensors(path("tfnames.safetensors"), named);
    TrainingOptions o;
    o.init_checkpoint = path("tfnames.safetensors");
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QCOMPARE(diag.errorCount(), 1);
    QVERIFY2(diag.items().front().message.find("TensorFlow variable names") != std::string::npos,
             diag.items().front().message.c_str());
}

void tst_TfCheckpoint::huggingFaceFolder()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(111));
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (auto &p : a->named_parameters())
        if (p.key().rfind("classifier.", 0) != 0)
            tensors.emplace_back(p.key().substr(5), p.value()); // without the "bert." prefix, no head
    fs::create_directories(path("hf"));
    saveSafetensors(path("hf/model.safetensors"), tensors);
    std::ofstream(path("hf/config.json")) << R"({"model_type": "bert", "vocab_size": 100})";
    const CheckpointSource src = locateCheckpoint(path("hf"));
    QVERIFY(src.format == CheckpointFormat::Safetensors);
    QCOMPARE(src.path, path("hf/model.safetensors"));
    QCOMPARE(src.config_json, path("hf/config.json"));
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(11));
    const CheckpointMatch m = loadInitCheckpoint(b, path("hf"));
    QVERIFY(m.classifierMissing);
    QCOMPARE(int(m.loaded.size()), int(expectedParameters(tinyConfig(), 2).size()) - 2);
    expectEqualModels(a, b, false);
    QVERIFY(QString::fromStdString(m.summary()).contains(QStringLiteral("expected when starting from a pretrained encoder")));
}

namespace {

/// `tensors` with every name starting with `from` renamed to start with `to` instead.
std::vector<TfTensor> rescoped(std::vector<TfTensor> tensors, const std::string &from, const std::string &to)
{
    for (auto &t : tensors)
        if (t.name.rfind(from, 0) == 0)
            t.name = to + t.name.substr(from.size());
    return tensors;
}

} // namespace

void tst_TfCheckpoint::tfHubScopeLoadsWholeEncoder()
{
    // run_classifier_with_tfhub.py: the encoder under module/bert/…, the head at the top level.
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(112));
    auto tensors = rescoped(tf1Tensors(a), "bert/", "module/bert/");
    tensors.push_back(floatTensor("module/bert/pooler/dense/kernel/adam_m", torch::zeros({32, 32})));
    fs::create_directories(path("tfhub"));
    const std::string prefix = path("tfhub/model.ckpt-30");
    writeBundle(prefix, tensors);

    TrainingOptions o;
    o.init_checkpoint = prefix;
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QVERIFY2(!diag.hasErrors(), errorsOf(diag).c_str());
    for (const auto &d : diag.items())
        QVERIFY2(d.severity != Severity::Warning, d.message.c_str());

    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(12));
    const CheckpointMatch m = loadInitCheckpoint(b, prefix);
    const int all = int(expectedParameters(tinyConfig(), 2).size());
    QCOMPARE(all, 41); // 5 embeddings + 2 × 16 + pooler 2 + head 2
    QCOMPARE(int(m.loaded.size()), all);
    QVERIFY(m.missing.empty() && m.unexpected.empty() && !m.classifierMissing);
    QCOMPARE(m.scope, std::string("module/"));
    QVERIFY2(m.summary().rfind("loaded 41 tensors (names under 'module/'), 0 missing", 0) == 0, m.summary().c_str());
    expectEqualModels(a, b, true);
}

void tst_TfCheckpoint::missingEncoderIsAnErrorNamingCountAndScope()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(113));
    std::vector<TfTensor> head;
    for (const auto &t : tf1Tensors(a))
        if (t.name == "output_weights" || t.name == "output_bias")
            head.push_back(t);
    QCOMPARE(int(head.size()), 2);
    fs::create_directories(path("headonly"));
    const std::string prefix = path("headonly/model.ckpt-1");
    writeBundle(prefix, head);
    TrainingOptions o;
    o.init_checkpoint = prefix;
    InputMetaData meta;
    meta.num_labels = 2;
    {
        Diagnostics diag;
        checkInitCheckpoint(o, tinyConfig(), meta, diag);
        QCOMPARE(diag.errorCount(), 1);
        const std::string e = errorsOf(diag);
        // 5 embeddings + 2 × 16 layer tensors; the pooler (none in the file) is a warning of its own.
        QVERIFY2(e.find("37 of the model's 37 encoder tensors are not in the checkpoint (first: "
                        "bert.embeddings.word_embeddings.weight) and would keep their random initialisation")
                     != std::string::npos,
                 e.c_str());
        QVERIFY2(e.find("the checkpoint's names: 2 at the top level (e.g. output_bias)") != std::string::npos, e.c_str());
        QVERIFY2(e.find("--allow_partial_init=true") != std::string::npos, e.c_str());
        nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(13));
        const std::string err = expectError([&] { loadInitCheckpoint(b, prefix); });
        QVERIFY2(err.find("37 of the model's 37 encoder tensors") != std::string::npos, err.c_str());
    }
    {
        o.allow_partial_init = true; // asked for: a warning, and the head loads
        Diagnostics diag;
        checkInitCheckpoint(o, tinyConfig(), meta, diag);
        QVERIFY2(!diag.hasErrors(), errorsOf(diag).c_str());
        bool warned = false;
        for (const auto &d : diag.items())
            warned |= d.severity == Severity::Warning && d.message.find("37 of the model's 37") != std::string::npos
                      && d.message.find("keep their random initialisation (--allow_partial_init=true)") != std::string::npos;
        QVERIFY(warned);
        nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(13));
        const CheckpointMatch m = loadInitCheckpoint(b, prefix, true);
        QCOMPARE(int(m.loaded.size()), 2);
        QVERIFY(torch::equal(b->classifier->weight, a->classifier->weight));
        o.allow_partial_init = false;
    }
    // The encoder under a scope that is not read: the error names that scope.
    fs::create_directories(path("tower"));
    const std::string tower = path("tower/model.ckpt-1");
    writeBundle(tower, rescoped(tf1Tensors(a), "bert/", "tower_0/bert/"));
    o.init_checkpoint = tower;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QCOMPARE(diag.errorCount(), 1);
    const std::string e = errorsOf(diag);
    QVERIFY2(e.find("37 of the model's 37 encoder tensors") != std::string::npos, e.c_str());
    QVERIFY2(e.find("39 under 'tower_0/' (e.g. tower_0/bert/embeddings/LayerNorm/beta), 2 at the top level") != std::string::npos,
             e.c_str());
    // Half a pooler is not "no pooler": the other half would stay random.
    auto halfPooler = tf1Tensors(a);
    halfPooler.erase(std::remove_if(halfPooler.begin(), halfPooler.end(),
                                    [](const TfTensor &t) { return t.name == "bert/pooler/dense/bias"; }),
                     halfPooler.end());
    fs::create_directories(path("halfpooler"));
    writeBundle(path("halfpooler/model.ckpt-1"), halfPooler);
    o.init_checkpoint = path("halfpooler/model.ckpt-1");
    Diagnostics half;
    checkInitCheckpoint(o, tinyConfig(), meta, half);
    QCOMPARE(half.errorCount(), 1);
    QVERIFY2(errorsOf(half).find("1 of the model's 39 encoder tensors are not in the checkpoint (first: "
                                 "bert.pooler.dense.bias)") != std::string::npos,
             errorsOf(half).c_str());
}

void tst_TfCheckpoint::twoNamesForOneTensorAreAnError()
{
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(114));
    auto tensors = tf1Tensors(a);
    // A second copy of one tensor under module/: never "the last one wins".
    for (const auto &t : tf1Tensors(a))
        if (t.name == "bert/encoder/layer_1/output/dense/kernel")
            tensors.push_back({"module/" + t.name, t.dtype, t.shape, t.bytes, 0});
    fs::create_directories(path("twice"));
    const std::string prefix = path("twice/model.ckpt-1");
    writeBundle(prefix, tensors);
    TrainingOptions o;
    o.init_checkpoint = prefix;
    o.allow_partial_init = true; // not about missing tensors
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QCOMPARE(diag.errorCount(), 1);
    const std::string e = errorsOf(diag);
    QVERIFY2(e.find("'bert/encoder/layer_1/output/dense/kernel' and 'module/bert/encoder/layer_1/output/dense/kernel' "
                    "both map to the model tensor bert.encoder.layer.1.output.dense.weight")
                 != std::string::npos,
             e.c_str());
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(14));
    const std::string err = expectError([&] { loadInitCheckpoint(b, prefix, true); });
    QVERIFY2(err.find("both map to the model tensor bert.encoder.layer.1.output.dense.weight") != std::string::npos,
             err.c_str());

    // TF1 and TF2 names of one tensor in one file.
    auto mixed = tf1Tensors(a);
    mixed.push_back(floatTensor("encoder/_embedding_norm_layer/gamma/.ATTRIBUTES/VARIABLE_VALUE",
                                a->named_parameters()["bert.embeddings.LayerNorm.weight"]));
    fs::create_directories(path("mixed"));
    writeBundle(path("mixed/ckpt-1"), mixed);
    o.init_checkpoint = path("mixed/ckpt-1");
    Diagnostics mixedDiag;
    checkInitCheckpoint(o, tinyConfig(), meta, mixedDiag);
    QCOMPARE(mixedDiag.errorCount(), 1);
    QVERIFY2(errorsOf(mixedDiag).find("'bert/embeddings/LayerNorm/gamma' and "
                                      "'encoder/_embedding_norm_layer/gamma/.ATTRIBUTES/VARIABLE_VALUE' both map")
                 != std::string::npos,
             errorsOf(mixedDiag).c_str());
}

void tst_TfCheckpoint::absolutePathFromAnotherMachine()
{
    // google-research/bert's output_dir copied from another machine: its `checkpoint` file keeps
    // that machine's absolute paths (TensorFlow's latest_checkpoint returns nothing here).
    nn::BertForSequenceClassification a(tinyConfig(), 2, nn::makeGenerator(114));
    fs::create_directories(path("copied"));
    writeBundle(path("copied/model.ckpt-1000"), tf1Tensors(a));
    std::ofstream(path("copied/checkpoint")) << "model_checkpoint_path: \"/home/someone/bert_output/model.ckpt-1000\"\n"
                                             << "all_model_checkpoint_paths: \"/home/someone/bert_output/model.ckpt-1000\"\n";
    const CheckpointSource src = locateCheckpoint(path("copied"));
    QVERIFY(src.format == CheckpointFormat::TensorFlow);
    QCOMPARE(src.path, path("copied/model.ckpt-1000"));
    QCOMPARE(src.notes, std::vector<std::string>{path("copied/checkpoint") + " names /home/someone/bert_output/model.ckpt-1000, "
                                                 "which does not exist here (a checkpoint copied from another machine?); "
                                                 "using " + path("copied/model.ckpt-1000") + " beside it"});
    TrainingOptions o;
    o.init_checkpoint = path("copied");
    InputMetaData meta;
    meta.num_labels = 2;
    Diagnostics diag;
    checkInitCheckpoint(o, tinyConfig(), meta, diag);
    QVERIFY2(!diag.hasErrors(), errorsOf(diag).c_str());
    QVERIFY2(wbtest::findingsOf(diag, Severity::Warning).find(src.notes.front()) != std::string::npos,
             wbtest::findingsOf(diag, Severity::Warning).c_str());
    nn::BertForSequenceClassification b(tinyConfig(), 2, nn::makeGenerator(14));
    const CheckpointMatch m = loadInitCheckpoint(b, path("copied"));
    QVERIFY2(m.summary().find(src.notes.front()) != std::string::npos, m.summary().c_str());
    expectEqualModels(a, b, true);

    // Neither there nor beside it: the error names both.
    fs::remove(path("copied/model.ckpt-1000.index"));
    const std::string err = expectError([&] { locateCheckpoint(path("copied")); });
    QVERIFY2(err.find("/home/someone/bert_output/model.ckpt-1000") != std::string::npos
                 && err.find("no file model.ckpt-1000 is beside it") != std::string::npos,
             err.c_str());
}

QTEST_APPLESS_MAIN(tst_TfCheckpoint)
#include "tst_tfcheckpoint.moc"
