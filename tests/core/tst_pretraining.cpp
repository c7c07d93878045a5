// SPDX-License-Identifier: Apache-2.0
// Masked-LM pretraining (issue 24): the heads, their loss, the record reader, the names they
// load from and save to (Hugging Face and google-research TF1), the checkpoint format.
#include "core/config/inputmetadata.h"
#include "core/data/pretrainingdataset.h"
#include "core/data/tfrecordwriter.h"
#include "core/model/initcheckpoint.h"
#include "core/model/pretrainingheads.h"
#include "core/engine/adamw.h"
#include "core/engine/checkpointio.h"
#include "core/util/crc32c.h"
#include "core/util/error.h"
#include "weights/tensorbundle.pb.h"
#include "support/pretrainingrecords.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

using namespace wb;
namespace fs = std::filesystem;

namespace {

BertConfig tinyConfig(int64_t vocab = 100)
{
    BertConfig c;
    c.vocab_size = vocab;
    c.hidden_size = 32;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 2;
    c.intermediate_size = 64;
    c.max_position_embeddings = 64;
    c.type_vocab_size = 2;
    c.hidden_dropout_prob = 0.0;
    c.attention_probs_dropout_prob = 0.0;
    return c;
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

void expectSameParameters(torch::nn::Module &a, torch::nn::Module &b)
{
    auto pb = b.named_parameters();
    for (const auto &p : a.named_parameters()) {
        QVERIFY2(pb.contains(p.key()), p.key().c_str());
        QVERIFY2(torch::equal(p.value(), pb[p.key()]), p.key().c_str());
    }
    QCOMPARE(a.named_parameters().size(), b.named_parameters().size());
}

// --- a test-side TensorFlow tensor-bundle writer (independent of the reader) ---------------
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

/// One LevelDB block (no prefix sharing, a restart point at every entry) + trailer; returns its handle.
std::string writeBlock(std::string &file, const std::vector<std::pair<std::string, std::string>> &entries)
{
    std::string block;
    std::vector<uint32_t> restarts;
    for (const auto &[k, v] : entries) {
        restarts.push_back(uint32_t(block.size()));
        putVarint(block, 0);
        putVarint(block, k.size());
        putVarint(block, v.size());
        block += k + v;
    }
    if (restarts.empty())
        restarts.push_back(0);
    for (uint32_t r : restarts)
        putFixed32(block, r);
    putFixed32(block, uint32_t(restarts.size()));
    const uint64_t offset = file.size();
    file += block;
    file.push_back('\0');
    putFixed32(file, maskCrc(crc32c(file.data() + offset, block.size() + 1)));
    std::string handle;
    putVarint(handle, offset);
    putVarint(handle, block.size());
    return handle;
}

/// Writes `<prefix>.index` + `<prefix>.data-00000-of-00001` for float32 tensors (TF layout given).
void writeTfBundle(const std::string &prefix, std::vector<std::pair<std::string, torch::Tensor>> tensors)
{
    std::sort(tensors.begin(), tensors.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::pair<std::string, std::string>> entries;
    tfbundle::BundleHeaderProto header;
    header.set_num_shards(1);
    header.mutable_version()->set_producer(1);
    entries.emplace_back("", header.SerializeAsString());
    std::string data;
    for (const auto &[name, t] : tensors) {
        const auto c = t.detach().to(torch::kFloat).contiguous();
        const std::string bytes(static_cast<const char *>(c.data_ptr()), size_t(c.numel()) * 4);
        tfbundle::BundleEntryProto e;
        e.set_dtype(tfbundle::DataType(1));
        for (int64_t d : c.sizes())
            e.mutable_shape()->add_dim()->set_size(d);
        e.set_shard_id(0);
        e.set_offset(int64_t(data.size()));
        e.set_size(int64_t(bytes.size()));
        e.set_crc32c(maskCrc(crc32c(bytes.data(), bytes.size())));
        data += bytes;
        entries.emplace_back(name, e.SerializeAsString());
    }
    std::string file;
    const std::string dataHandle = writeBlock(file, entries);
    const std::string metaHandle = writeBlock(file, {});
    const std::string indexHandle = writeBlock(file, {{entries.back().first, dataHandle}});
    std::string footer = metaHandle + indexHandle;
    footer.resize(40, '\0');
    putFixed32(footer, 0x8b80fb57u);
    putFixed32(footer, 0xdb477524u);
    std::ofstream(prefix + ".index", std::ios::binary) << file + footer;
    std::ofstream(prefix + ".data-00000-of-00001", std::ios::binary) << data;
}

PretrainingDataOptions dataOptions(const std::string &pattern, int64_t L, int64_t P, int64_t batch, bool training)
{
    PretrainingDataOptions o;
    o.pattern = pattern;
    o.spec.max_seq_length = L;
    o.spec.max_predictions_per_seq = P;
    o.spec.vocab_size = 100;
    o.batch_size = batch;
    o.training = training;
    return o;
}

} // namespace

class tst_Pretraining : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void gatherAtPositionsEqualsFullSequence();
    void tiedDecoderSharesWordEmbeddings();
    void lossIsGoogleResearchFormula();
    void parameterNamesAreHuggingFaceAndClsPrefixed();
    void headNamesMapBothSchemes_data();
    void headNamesMapBothSchemes();
    void recordsRoundTripAndBatch();
    void recordErrorsNameFileAndRecord();
    void readsGlobsAndCommaLists();
    void dynamicMaskingDrawsNewMasksEachEpoch();
    void mlmLossFallsOnSmallCorpus();
    void huggingFaceRoundTrip();
    void tensorFlowRoundTrip();
    void otherVocabSizeIsClearError();
    void hubFixtureLoadsEncoderAndOutputBias();
    void checkpointFormatRoundTrip();
    void metaDataPretrainingKeys();
};

void tst_Pretraining::gatherAtPositionsEqualsFullSequence()
{
    nn::BertForPreTraining m(tinyConfig(), true, nn::makeGenerator(3));
    m->eval();
    torch::NoGradGuard guard;
    auto gen = nn::makeGenerator(11);
    auto ids = torch::randint(0, 100, {3, 16}, gen, torch::kLong);
    auto mask = torch::ones({3, 16}, torch::kLong);
    mask.index_put_({2, torch::indexing::Slice(10, 16)}, 0);
    auto seg = torch::zeros({3, 16}, torch::kLong);
    auto pos = torch::tensor({{1, 5, 0, 15}, {2, 3, 4, 7}, {9, 1, 0, 0}}, torch::kLong);
    const auto out = m->forward(ids, mask, seg, pos);
    QCOMPARE(out.mlm_logits.sizes().vec(), (std::vector<int64_t>{3, 4, 100}));
    QCOMPARE(out.nsp_logits.sizes().vec(), (std::vector<int64_t>{3, 2}));
    const auto full = m->mlmLogitsAllPositions(ids, mask, seg); // [3, 16, 100]
    for (int64_t b = 0; b < 3; ++b)
        for (int64_t p = 0; p < 4; ++p) {
            const auto a = out.mlm_logits[b][p];
            const auto f = full[b][pos[b][p].item<int64_t>()];
            // The same rows through the same ops: equal up to the reassociation of a GEMM over 4 vs 16 rows.
            QVERIFY2(torch::allclose(a, f, 1e-6, 1e-6), qPrintable(QString::number((a - f).abs().max().item<double>())));
        }
}

void tst_Pretraining::tiedDecoderSharesWordEmbeddings()
{
    nn::BertForPreTraining m(tinyConfig(), false, nn::makeGenerator(3));
    for (const auto &p : m->named_parameters())
        QVERIFY2(p.key().find("decoder") == std::string::npos, p.key().c_str()); // no decoder parameter of its own
    const auto hf = huggingFaceTensors(m, false);
    const auto decoder = std::find_if(hf.begin(), hf.end(), [](const auto &t) { return t.first == "cls.predictions.decoder.weight"; });
    QVERIFY(decoder != hf.end());
    QCOMPARE(decoder->second.data_ptr(), m->embeddings->word_embeddings->weight.data_ptr());
    // Changing the embedding table changes the logits exactly as the tied product says.
    torch::NoGradGuard guard;
    m->eval();
    auto h = torch::randn({5, 32}, nn::makeGenerator(5));
    m->embeddings->word_embeddings->weight[7].fill_(0.25);
    const auto logits = m->mlmHead(h);
    const auto t = m->transformLayerNorm->forward(
        nn::applyActivation("gelu", torch::nn::functional::linear(h, m->transform->weight, m->transform->bias)));
    const auto expected = torch::matmul(t, m->embeddings->word_embeddings->weight.t()) + m->outputBias;
    QVERIFY(torch::allclose(logits, expected, 1e-6, 1e-6));
    QVERIFY(torch::allclose(logits.select(1, 7), t.sum(1) * 0.25 + m->outputBias[7], 1e-5, 1e-5));
}

void tst_Pretraining::lossIsGoogleResearchFormula()
{
    auto gen = nn::makeGenerator(1);
    auto logits = torch::randn({2, 3, 10}, gen);
    auto ids = torch::tensor({{1, 4, 0}, {9, 0, 0}}, torch::kLong);
    auto w = torch::tensor({{1.0f, 1.0f, 0.0f}, {1.0f, 0.0f, 0.0f}});
    auto lp = torch::log_softmax(logits, -1);
    const double num = -(lp[0][0][1] + lp[0][1][4] + lp[1][0][9]).item<double>();
    const PretrainingLoss l = pretrainingLoss(logits, ids, w, {}, {});
    QVERIFY(std::abs(l.mlm_loss.item<double>() - num / (3.0 + 1e-5)) < 1e-6);
    QVERIFY(!l.nsp_loss.defined());
    QCOMPARE(l.loss.item<double>(), l.mlm_loss.item<double>());
    auto nsp = torch::tensor({{2.0f, -1.0f}, {0.5f, 0.25f}});
    auto labels = torch::tensor({1, 0}, torch::kLong);
    const PretrainingLoss l2 = pretrainingLoss(logits, ids, w, nsp, labels);
    auto nlp = torch::log_softmax(nsp, -1);
    const double nspLoss = -(nlp[0][1] + nlp[1][0]).item<double>() / 2.0;
    QVERIFY(std::abs(l2.nsp_loss.item<double>() - nspLoss) < 1e-6);
    QVERIFY(std::abs(l2.loss.item<double>() - (l2.mlm_loss.item<double>() + nspLoss)) < 1e-6);
    // Padded positions (weight 0) do not count, whatever their logits.
    auto changed = logits.clone();
    changed[0][2].fill_(100.0);
    QCOMPARE(pretrainingLoss(changed, ids, w, {}, {}).mlm_loss.item<double>(), l.mlm_loss.item<double>());
}

void tst_Pretraining::parameterNamesAreHuggingFaceAndClsPrefixed()
{
    for (bool nsp : {false, true}) {
        nn::BertForPreTraining m(tinyConfig(), nsp, nn::makeGenerator(3));
        const auto specs = pretrainingParameters(tinyConfig(), nsp);
        auto params = m->named_parameters();
        QCOMPARE(params.size(), specs.size());
        for (const auto &s : specs) {
            QVERIFY2(params.contains(s.name), s.name.c_str());
            QCOMPARE(params[s.name].sizes().vec(), s.shape);
            const bool encoder = s.name.rfind("bert.", 0) == 0, head = s.name.rfind("cls.", 0) == 0;
            QVERIFY2(encoder || head, s.name.c_str());
        }
        QCOMPARE(params.contains("cls.seq_relationship.weight"), nsp);
        QVERIFY(params.contains("cls.predictions.transform.LayerNorm.weight"));
        QCOMPARE(m->transformLayerNorm->options.eps(), 1e-12);
    }
    BertConfig eps = tinyConfig();
    eps.layer_norm_eps = 1e-5;
    nn::BertForPreTraining m(eps, false, nn::makeGenerator(3));
    QCOMPARE(m->transformLayerNorm->options.eps(), 1e-5);
}

void tst_Pretraining::headNamesMapBothSchemes_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("kernel");
    QTest::addColumn<bool>("tied");
    QTest::newRow("tf kernel") << QStringLiteral("cls/predictions/transform/dense/kernel") << QStringLiteral("cls.predictions.transform.dense.weight") << true << false;
    QTest::newRow("tf gamma") << QStringLiteral("cls/predictions/transform/LayerNorm/gamma") << QStringLiteral("cls.predictions.transform.LayerNorm.weight") << false << false;
    QTest::newRow("tf beta") << QStringLiteral("cls/predictions/transform/LayerNorm/beta") << QStringLiteral("cls.predictions.transform.LayerNorm.bias") << false << false;
    QTest::newRow("tf output_bias") << QStringLiteral("cls/predictions/output_bias") << QStringLiteral("cls.predictions.bias") << false << false;
    QTest::newRow("tf nsp weights") << QStringLiteral("cls/seq_relationship/output_weights") << QStringLiteral("cls.seq_relationship.weight") << false << false;
    QTest::newRow("tf nsp bias") << QStringLiteral("cls/seq_relationship/output_bias") << QStringLiteral("cls.seq_relationship.bias") << false << false;
    QTest::newRow("tf under module/") << QStringLiteral("module/cls/predictions/output_bias") << QStringLiteral("cls.predictions.bias") << false << false;
    QTest::newRow("hf dense") << QStringLiteral("cls.predictions.transform.dense.weight") << QStringLiteral("cls.predictions.transform.dense.weight") << false << false;
    QTest::newRow("hf LN gamma") << QStringLiteral("cls.predictions.transform.LayerNorm.gamma") << QStringLiteral("cls.predictions.transform.LayerNorm.weight") << false << false;
    QTest::newRow("hf bias") << QStringLiteral("cls.predictions.bias") << QStringLiteral("cls.predictions.bias") << false << false;
    QTest::newRow("hf decoder bias") << QStringLiteral("cls.predictions.decoder.bias") << QStringLiteral("cls.predictions.bias") << false << false;
    QTest::newRow("hf decoder") << QStringLiteral("cls.predictions.decoder.weight") << QStringLiteral("cls.predictions.decoder.weight") << false << true;
    QTest::newRow("hf nsp") << QStringLiteral("cls.seq_relationship.weight") << QStringLiteral("cls.seq_relationship.weight") << false << false;
    QTest::newRow("hf module.") << QStringLiteral("module.cls.seq_relationship.bias") << QStringLiteral("cls.seq_relationship.bias") << false << false;
}

void tst_Pretraining::headNamesMapBothSchemes()
{
    QFETCH(QString, name);
    QFETCH(QString, model);
    QFETCH(bool, kernel);
    QFETCH(bool, tied);
    const auto m = mapPretrainingHeadName(name.toStdString());
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->model_name), model);
    QCOMPARE(m->kernel, kernel);
    QCOMPARE(m->tied_decoder, tied);
    QVERIFY(!mapPretrainingHeadName("bert/embeddings/word_embeddings"));
    QVERIFY(!mapPretrainingHeadName("classifier.weight"));
    QVERIFY(!mapPretrainingHeadName("output_bias")); // a fine-tuned classifier's, not a head
}

void tst_Pretraining::recordsRoundTripAndBatch()
{
    std::mt19937_64 rng(1);
    const MaskedLmRecord r = wbtest::makeMaskedLmRecord(4, 16, 5, 100, rng);
    MaskedLmSpec spec;
    spec.max_seq_length = 16;
    spec.max_predictions_per_seq = 5;
    spec.vocab_size = 100;
    MaskedLmRecord back;
    decodeMaskedLmRecord(encodeMaskedLmRecord(r), spec, back);
    QCOMPARE(back.input_ids, r.input_ids);
    QCOMPARE(back.input_mask, r.input_mask);
    QCOMPARE(back.segment_ids, r.segment_ids);
    QCOMPARE(back.masked_lm_positions, r.masked_lm_positions);
    QCOMPARE(back.masked_lm_ids, r.masked_lm_ids);
    QCOMPARE(back.masked_lm_weights, r.masked_lm_weights);
    QCOMPARE(back.next_sentence_label, r.next_sentence_label);
    QVERIFY(back.has_masks);
    PretrainingBatch b;
    appendToBatch(b, r);
    appendToBatch(b, back);
    QCOMPARE(b.size, int64_t(2));
    QCOMPARE(b.input_ids.size(), size_t(32));
    QCOMPARE(b.masked_lm_weights.size(), size_t(10));
    QCOMPARE(b.next_sentence_labels, (std::vector<int64_t>{0, 0}));
    // A dynamic-masking record (no masked_lm_*): accepted only when masks are not required.
    MaskedLmRecord unmasked = r;
    unmasked.has_masks = false;
    spec.masks_required = false;
    decodeMaskedLmRecord(encodeMaskedLmRecord(unmasked), spec, back);
    QVERIFY(!back.has_masks);
    QCOMPARE(back.masked_lm_weights, std::vector<float>(5, 0.0f));
}

void tst_Pretraining::recordErrorsNameFileAndRecord()
{
    QTemporaryDir dir;
    const std::string path = (fs::path(dir.path().toStdString()) / "bad.tf_record").string();
    std::mt19937_64 rng(1);
    {
        TFRecordWriter w(path);
        w.write(encodeMaskedLmRecord(wbtest::makeMaskedLmRecord(0, 16, 5, 100, rng)));
        MaskedLmRecord shortPos = wbtest::makeMaskedLmRecord(1, 16, 5, 100, rng);
        shortPos.masked_lm_positions.pop_back(); // 4 values, P = 5
        w.write(encodeMaskedLmRecord(shortPos));
        w.commit();
    }
    PretrainingDataset data(dataOptions(path, 16, 5, 8, false));
    PretrainingBatch b;
    const std::string e = expectError([&] { data.next(b); });
    QVERIFY2(e.find("bad.tf_record: record 1") != std::string::npos, e.c_str());
    QVERIFY2(e.find("masked_lm_positions' has 4 values but max_predictions_per_seq is 5") != std::string::npos, e.c_str());
    // A missing feature, and a record without masks under static masking.
    {
        TFRecordWriter w(path);
        MaskedLmRecord unmasked = wbtest::makeMaskedLmRecord(0, 16, 5, 100, rng);
        unmasked.has_masks = false;
        w.write(encodeMaskedLmRecord(unmasked));
        w.commit();
    }
    StaticMaskingBatches masked(dataOptions(path, 16, 5, 8, false));
    const std::string e2 = expectError([&] { masked.next(b); });
    QVERIFY2(e2.find("record 0") != std::string::npos && e2.find("no masked_lm_positions") != std::string::npos, e2.c_str());
    QVERIFY2(e2.find("--masking=static") != std::string::npos, e2.c_str());
    // A wrong length of input_ids names max_seq_length.
    PretrainingDataset wrongLength(dataOptions(path, 32, 5, 8, false));
    const std::string e3 = expectError([&] { wrongLength.next(b); });
    QVERIFY2(e3.find("'input_ids' has 16 values but max_seq_length is 32") != std::string::npos, e3.c_str());
}

/// Records without masks get masks from the source's own seed: every real prediction is at a
/// real, non-special token and names the token that was there; the second epoch masks other
/// positions; the same seed gives the same masks; an evaluation pass after reset() repeats them.
void tst_Pretraining::dynamicMaskingDrawsNewMasksEachEpoch()
{
    QTemporaryDir dir;
    const std::string path = (fs::path(dir.path().toStdString()) / "dynamic.tf_record").string();
    std::mt19937_64 rng(3);
    std::vector<MaskedLmRecord> source;
    {
        TFRecordWriter w(path);
        for (int k = 0; k < 8; ++k) {
            MaskedLmRecord r = wbtest::makeMaskedLmRecord(k, 16, 5, 100, rng);
            for (int64_t t = 0; t < 16; ++t) // [CLS] w… [SEP], no padding; ids ≥ 5 are words
                r.input_ids[size_t(t)] = t == 0 ? 2 : t == 15 ? 3 : 5 + (k * 16 + t) % 95;
            r.input_mask.assign(16, 1);
            r.has_masks = false;
            w.write(encodeMaskedLmRecord(r));
            source.push_back(r);
        }
        w.commit();
    }
    std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (int k = 5; k < 100; ++k)
        tokens.push_back("w" + std::to_string(k));
    const Vocab vocab = Vocab::fromTokens(tokens);
    MlmMaskingOptions masking;
    masking.masked_lm_prob = 0.15;
    const auto epoch = [](DynamicMaskingBatches &d) {
        PretrainingBatch b;
        if (!d.next(b))
            b.size = -1; // no batch: the comparisons below fail
        return b;
    };
    DynamicMaskingBatches data(dataOptions(path, 16, 5, 8, false), vocab, masking);
    const PretrainingBatch first = epoch(data);
    QCOMPARE(first.size, int64_t(8));
    for (int64_t row = 0; row < 8; ++row) {
        int predictions = 0;
        for (int64_t j = 0; j < 5; ++j) {
            if (first.masked_lm_weights[size_t(row * 5 + j)] == 0.0f)
                continue;
            ++predictions;
            const int64_t pos = first.masked_lm_positions[size_t(row * 5 + j)];
            QVERIFY(pos > 0 && pos < 15); // never [CLS] or [SEP]
            QCOMPARE(first.masked_lm_ids[size_t(row * 5 + j)], source[size_t(row)].input_ids[size_t(pos)]);
        }
        QCOMPARE(predictions, 2); // round(14 × 0.15) = 2
    }
    PretrainingBatch none;
    QVERIFY(!data.next(none)); // evaluation: one pass
    data.reset();
    const PretrainingBatch again = epoch(data);
    QCOMPARE(again.masked_lm_positions, first.masked_lm_positions); // reset() repeats the masks
    QCOMPARE(again.input_ids, first.input_ids);

    DynamicMaskingBatches training(dataOptions(path, 16, 5, 8, true), vocab, masking);
    DynamicMaskingBatches twin(dataOptions(path, 16, 5, 8, true), vocab, masking);
    const PretrainingBatch e1 = epoch(training), e2 = epoch(training);
    QCOMPARE(epoch(twin).masked_lm_positions, e1.masked_lm_positions); // same seed, same masks
    // The second epoch draws again: other masks for the same sequences.
    QVERIFY(e1.masked_lm_positions != e2.masked_lm_positions || e1.masked_lm_ids != e2.masked_lm_ids);
    const std::string noMask = expectError([&] {
        DynamicMaskingBatches bad(dataOptions(path, 16, 5, 8, false), Vocab::fromTokens({"[PAD]", "[UNK]", "[CLS]", "[SEP]"}),
                                  masking);
    });
    QVERIFY2(noMask.find("[MASK]") != std::string::npos, noMask.c_str());
}

void tst_Pretraining::readsGlobsAndCommaLists()
{
    QTemporaryDir dir;
    const fs::path root = dir.path().toStdString();
    for (int s = 0; s < 3; ++s)
        wbtest::writeMaskedLmRecords((root / ("train.tf_record-0000" + std::to_string(s) + "-of-00003")).string(), 5, 16, 5, 100, uint64_t(s));
    const auto count = [](const std::string &pattern) {
        PretrainingDataset d(dataOptions(pattern, 16, 5, 4, false));
        MaskedLmRecord r;
        int n = 0;
        while (d.nextRecord(r))
            ++n;
        return n;
    };
    QCOMPARE(count((root / "train.tf_record-*").string()), 15);
    QCOMPARE(count((root / "train.tf_record-00000-of-00003").string() + "," + (root / "train.tf_record-00002-of-00003").string()), 10);
    // Training: whole batches, repeating past the end.
    PretrainingDataset training(dataOptions((root / "train.tf_record-*").string(), 16, 5, 4, true));
    PretrainingBatch b;
    for (int k = 0; k < 10; ++k) {
        QVERIFY(training.next(b));
        QCOMPARE(b.size, int64_t(4));
    }
}

void tst_Pretraining::mlmLossFallsOnSmallCorpus()
{
    QTemporaryDir dir;
    const std::string path = (fs::path(dir.path().toStdString()) / "train.tf_record").string();
    wbtest::writeMaskedLmRecords(path, 64, 16, 5, 100);
    StaticMaskingBatches data(dataOptions(path, 16, 5, 16, true));
    nn::BertForPreTraining m(tinyConfig(), false, nn::makeGenerator(42));
    m->train();
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto &p : m->named_parameters())
        named.emplace_back(p.key(), p.value());
    AdamW opt(named, AdamWOptions{0.01});
    PretrainingBatch b;
    std::vector<double> losses;
    for (int step = 0; step < 120; ++step) {
        data.next(b);
        const auto i64 = torch::TensorOptions().dtype(torch::kLong);
        auto ids = torch::from_blob(b.input_ids.data(), {b.size, 16}, i64);
        auto mask = torch::from_blob(b.input_mask.data(), {b.size, 16}, i64);
        auto seg = torch::from_blob(b.segment_ids.data(), {b.size, 16}, i64);
        auto pos = torch::from_blob(b.masked_lm_positions.data(), {b.size, 5}, i64);
        auto lm = torch::from_blob(b.masked_lm_ids.data(), {b.size, 5}, i64);
        auto w = torch::from_blob(b.masked_lm_weights.data(), {b.size, 5}, torch::kFloat);
        const auto out = m->forward(ids, mask, seg, pos);
        auto l = pretrainingLoss(out.mlm_logits, lm, w, {}, {});
        l.loss.backward();
        opt.step(2e-3);
        opt.zeroGrad();
        losses.push_back(l.mlm_loss.item<double>());
    }
    const double first = (losses[0] + losses[1] + losses[2] + losses[3]) / 4;
    const double last = (losses[116] + losses[117] + losses[118] + losses[119]) / 4;
    QVERIFY2(std::abs(first - std::log(100.0)) < 0.5, qPrintable(QString::number(first))); // random start: ≈ ln V
    QVERIFY2(last < 0.6 * first, qPrintable(QStringLiteral("first %1, last %2").arg(first).arg(last)));
}

void tst_Pretraining::huggingFaceRoundTrip()
{
    QTemporaryDir dir;
    const fs::path folder = fs::path(dir.path().toStdString()) / "hf";
    fs::create_directories(folder);
    nn::BertForPreTraining a(tinyConfig(), true, nn::makeGenerator(1));
    {
        torch::NoGradGuard guard; // heads away from their initial values, so a reset would show
        a->outputBias.uniform_(-1, 1, a->generator());
        a->transformLayerNorm->weight.uniform_(0.5, 1.5, a->generator());
        a->seqRelationship->bias.uniform_(-1, 1, a->generator());
    }
    saveSafetensors((folder / "model.safetensors").string(), huggingFaceTensors(a, true));
    const SafetensorsHeader h = readSafetensorsHeader((folder / "model.safetensors").string());
    std::set<std::string> names;
    for (const auto &e : h.tensors)
        names.insert(e.name);
    for (const char *n : {"bert.embeddings.word_embeddings.weight", "cls.predictions.transform.dense.weight",
                          "cls.predictions.transform.LayerNorm.weight", "cls.predictions.bias",
                          "cls.predictions.decoder.weight", "cls.predictions.decoder.bias", "cls.seq_relationship.weight",
                          "cls.seq_relationship.bias", "bert.pooler.dense.weight"})
        QVERIFY2(names.count(n), n);
    nn::BertForPreTraining b(tinyConfig(), true, nn::makeGenerator(2));
    const CheckpointMatch m = loadPretrainingCheckpoint(b, folder.string());
    QVERIFY2(m.missing.empty(), m.summary().c_str());
    QVERIFY2(m.unexpected.empty(), m.summary().c_str());
    QCOMPARE(m.loaded.size(), pretrainingParameters(tinyConfig(), true).size());
    expectSameParameters(*a, *b);
}

void tst_Pretraining::tensorFlowRoundTrip()
{
    QTemporaryDir dir;
    const std::string prefix = (fs::path(dir.path().toStdString()) / "bert_model.ckpt").string();
    nn::BertForPreTraining a(tinyConfig(), true, nn::makeGenerator(1));
    {
        torch::NoGradGuard guard;
        a->outputBias.uniform_(-1, 1, a->generator());
        a->transform->bias.uniform_(-1, 1, a->generator());
    }
    auto tensors = tensorFlowTensors(a);
    std::map<std::string, std::vector<int64_t>> shapes;
    for (const auto &[n, t] : tensors)
        shapes[n] = t.sizes().vec();
    // google-research's names and layouts: kernels [in, out], the NSP weights [2, hidden].
    QCOMPARE(shapes.at("bert/embeddings/word_embeddings"), (std::vector<int64_t>{100, 32}));
    QCOMPARE(shapes.at("bert/encoder/layer_1/intermediate/dense/kernel"), (std::vector<int64_t>{32, 64}));
    QCOMPARE(shapes.at("cls/predictions/transform/dense/kernel"), (std::vector<int64_t>{32, 32}));
    QVERIFY(shapes.count("cls/predictions/transform/LayerNorm/gamma"));
    QCOMPARE(shapes.at("cls/predictions/output_bias"), (std::vector<int64_t>{100}));
    QCOMPARE(shapes.at("cls/seq_relationship/output_weights"), (std::vector<int64_t>{2, 32}));
    tensors.emplace_back("global_step", torch::zeros({}));
    tensors.emplace_back("cls/predictions/output_bias/adam_m", torch::zeros({100}));
    writeTfBundle(prefix, tensors);
    nn::BertForPreTraining b(tinyConfig(), true, nn::makeGenerator(2));
    const CheckpointMatch m = loadPretrainingCheckpoint(b, prefix);
    QVERIFY2(m.missing.empty(), m.summary().c_str());
    QCOMPARE(m.loaded.size(), pretrainingParameters(tinyConfig(), true).size());
    expectSameParameters(*a, *b);
}

void tst_Pretraining::otherVocabSizeIsClearError()
{
    QTemporaryDir dir;
    const fs::path folder = dir.path().toStdString();
    nn::BertForPreTraining a(tinyConfig(120), false, nn::makeGenerator(1));
    saveSafetensors((folder / "model.safetensors").string(), huggingFaceTensors(a, false));
    nn::BertForPreTraining b(tinyConfig(100), false, nn::makeGenerator(2));
    const std::string e = expectError([&] { loadPretrainingCheckpoint(b, folder.string()); });
    QVERIFY2(e.find("word_embeddings") != std::string::npos, e.c_str());
    QVERIFY2(e.find("[120, 32]") != std::string::npos && e.find("[100, 32]") != std::string::npos, e.c_str());
    QVERIFY2(e.find("vocab_size") != std::string::npos, e.c_str());
}

void tst_Pretraining::hubFixtureLoadsEncoderAndOutputBias()
{
    // The tests' Hub fixture: a BertForSequenceClassification state dict that also carries
    // cls.predictions.bias and the tied decoder (as many Hub BERTs do), no transform.
    const std::string fixture = std::string(WB_TEST_DATA_DIR) + "/pretrained/tiny-bert-safetensors";
    Diagnostics diag;
    const auto cfg = BertConfig::load(fixture + "/config.json", diag);
    QVERIFY(cfg);
    nn::BertForPreTraining m(*cfg, false, nn::makeGenerator(1));
    const CheckpointMatch match = loadPretrainingCheckpoint(m, fixture);
    const auto file = loadSafetensors(fixture + "/model.safetensors");
    auto params = m->named_parameters();
    for (const auto &spec : pretrainingParameters(*cfg, false))
        if (spec.name.rfind("bert.", 0) == 0)
            QVERIFY2(torch::equal(params[spec.name], file.at(spec.name)), spec.name.c_str());
    QVERIFY(torch::equal(params["cls.predictions.bias"], file.at("cls.predictions.bias")));
    QVERIFY(std::find(match.missing.begin(), match.missing.end(), "cls.predictions.transform.dense.weight") != match.missing.end());
    QCOMPARE(params["cls.predictions.transform.LayerNorm.weight"].sum().item<double>(), double(cfg->hidden_size)); // initialised 1
    const std::string s = match.summary();
    QVERIFY2(s.find("classifier head newly initialised") == std::string::npos, s.c_str());
}

void tst_Pretraining::checkpointFormatRoundTrip()
{
    QTemporaryDir dir;
    const std::string path = (fs::path(dir.path().toStdString()) / "ckpt-3").string();
    nn::BertForPreTraining a(tinyConfig(), false, nn::makeGenerator(1));
    std::vector<std::pair<std::string, torch::Tensor>> named;
    for (auto &p : a->named_parameters())
        named.emplace_back(p.key(), p.value());
    AdamW opt(named);
    InputMetaData meta;
    meta.task_type = "bert_pretraining";
    meta.num_labels = 0;
    meta.max_seq_length = 16;
    meta.max_predictions_per_seq = 5;
    saveModelCheckpoint(path, {*a, a->config(), 0, a->generator()}, opt, 3, meta);
    torch::serialize::InputArchive ar;
    ar.load_from(path);
    c10::IValue model;
    QVERIFY(ar.try_read("model", model));
    auto dict = c10::impl::toTypedDict<std::string, torch::Tensor>(model.toGenericDict());
    for (const auto &e : dict)
        QVERIFY2(e.key().rfind("bert.", 0) == 0 || e.key().rfind("cls.", 0) == 0, e.key().c_str());
    QVERIFY(dict.contains("cls.predictions.transform.dense.weight"));
    nn::BertForPreTraining b(tinyConfig(), false, nn::makeGenerator(2));
    QCOMPARE(loadModelCheckpoint(path, {*b, b->config(), 0, b->generator()}, nullptr, false).step, int64_t(3));
    expectSameParameters(*a, *b);
    // A fine-tuning model reading it is told what it is.
    nn::BertForSequenceClassification c(tinyConfig(), 2, nn::makeGenerator(3));
    const std::string e = expectError([&] { loadCheckpoint(path, c, nullptr, false); });
    QVERIFY2(e.find("pretraining checkpoint (masked-LM heads, no classifier)") != std::string::npos, e.c_str());
}

void tst_Pretraining::metaDataPretrainingKeys()
{
    Diagnostics diag;
    const auto j = nlohmann::json::parse(R"({"task_type": "bert_pretraining", "max_seq_length": 128,
        "max_predictions_per_seq": 20, "train_data_size": 1000, "eval_data_size": 100,
        "use_next_sentence_label": true, "masking": "static", "masked_lm_prob": 0.15,
        "whole_word_masking": false, "vocab_size": 30522, "do_lower_case": true})");
    const InputMetaData m = InputMetaData::fromJson(j, "meta.json", diag);
    QVERIFY2(diag.empty(), diag.items().empty() ? "" : diag.items().front().message.c_str());
    QVERIFY(m.isPretraining());
    QCOMPARE(m.num_labels, int64_t(0));
    QCOMPARE(m.max_predictions_per_seq, int64_t(20));
    QVERIFY(m.use_next_sentence_label);
    QCOMPARE(m.masking, std::string("static"));
    QCOMPARE(*m.vocab_size, int64_t(30522));
    QCOMPARE(*m.masked_lm_prob, 0.15);
    QCOMPARE(nlohmann::json(m.toJson()), j); // written back with the same keys and values
    std::vector<std::string> order;
    const nlohmann::ordered_json written = m.toJson();
    for (auto it = written.begin(); it != written.end(); ++it)
        order.push_back(it.key());
    QCOMPARE(order.front(), std::string("task_type"));
    QCOMPARE(order[2], std::string("max_predictions_per_seq"));

    Diagnostics bad;
    InputMetaData::fromJson(nlohmann::json::parse(R"({"task_type": "bert_pretraining", "max_seq_length": 16,
        "max_predictions_per_seq": 20, "train_data_size": 10})"), "meta.json", bad);
    QVERIFY(bad.hasErrors());
    QCOMPARE(bad.items().front().field, std::string("meta.json: max_predictions_per_seq"));
    QVERIFY(bad.items().front().message.find("above max_seq_length 16") != std::string::npos);
    Diagnostics missing;
    InputMetaData::fromJson(nlohmann::json::parse(R"({"task_type": "bert_pretraining", "max_seq_length": 16})"),
                            "meta.json", missing);
    QVERIFY(missing.hasErrors());
    QVERIFY(missing.items().front().message.find("lacks max_predictions_per_seq") != std::string::npos);
}

QTEST_APPLESS_MAIN(tst_Pretraining)
#include "tst_pretraining.moc"
