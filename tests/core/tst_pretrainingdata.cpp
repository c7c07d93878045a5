// SPDX-License-Identifier: Apache-2.0
// preparePretrainingData (core/corpus/pretrainingdata.h), the text reader and the record codec.
#include "core/data/example.pb.h"
#include "core/data/mlmmasking.h"
#include "core/corpus/pretrainingdata.h"
#include "core/data/pretrainingrecord.h"
#include "core/corpus/pretrainingtext.h"
#include "core/data/tfrecordreader.h"
#include "core/data/tfrecordwriter.h"
#include "core/util/digest.h"
#include "core/util/error.h"

#include <QtTest>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>

using namespace wb;
namespace fs = std::filesystem;

namespace {

// 0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK] 5 a … 20 p, 21 ##s
const char *const kVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\n##s\n";
int64_t idOf(char c)
{
    return 5 + (c - 'a');
}

void writeFile(const std::string &path, const std::string &bytes)
{
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<PretrainingRecord> readRecords(const std::string &path, const PretrainingRecordSpec &spec)
{
    std::vector<PretrainingRecord> out;
    TFRecordReader r(path);
    std::string p;
    while (r.read(p)) {
        PretrainingRecord rec;
        decodePretrainingRecord(p, spec, rec);
        out.push_back(rec);
    }
    return out;
}

std::vector<int64_t> realIds(const PretrainingRecord &r)
{
    std::vector<int64_t> v;
    for (size_t i = 0; i < r.input_ids.size(); ++i)
        if (r.input_mask[i])
            v.push_back(r.input_ids[i]);
    return v;
}

std::vector<int64_t> seq(const std::string &letters)
{
    std::vector<int64_t> v{2};
    for (char c : letters)
        v.push_back(c == '|' ? 3 : c == '?' ? 1 : idOf(c));
    v.push_back(3);
    return v;
}


// A fixed mixed corpus for the byte-identity test: ASCII words, case, punctuation, URLs,
// digits, accents, Greek (final sigma), CJK, emoji, controls, zero-width and no-break spaces,
// U+FFFD, words over the WordPiece length limit, blank-line document ends, repeats.
std::string mixedCorpus()
{
    static const char *const kWords[] = {
        "the", "meeting", "is", "on", "Monday", "Hello,", "WORLD!", "e-mail", "don't", "(call)", "555-1234",
        "http://www.example.com/a?b=c&d=1", "caf\xc3\xa9", "na\xc3\xafve", "\xc3\x85" "ngstr\xc3\xb6m",
        "\xce\xa3\xce\x9f\xce\xa6\xce\x9f\xce\xa3", "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97",
        "\xf0\x9f\x98\x80", "ab\x01" "cd", "zero\xe2\x80\x8bwidth", "no\xc2\xa0" "break", "wide\xe3\x80\x80space",
        "bad\xef\xbf\xbd" "byte", "unaffable", "running", "JUMPED", "$100.00", "a.b.c", "\xe2\x80\x94", "Stra\xc3\x9f" "e",
        "\xc4\xb0stanbul", "tab\there", "x", "...", "#tag", "@user", "30%", "r\xc3\xa9sum\xc3\xa9s"};
    const size_t n = sizeof kWords / sizeof kWords[0];
    uint64_t x = 88172645463325252ull;
    auto next = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    std::string text, previous;
    for (int d = 0; d < 400; ++d) {
        std::string doc;
        const int lines = 1 + int(next() % 12);
        for (int l = 0; l < lines; ++l) {
            const int words = 1 + int(next() % (d % 7 == 0 ? 90 : 20));
            for (int w = 0; w < words; ++w)
                doc += std::string(w ? " " : "") + kWords[next() % n];
            if (next() % 9 == 0)
                doc += " " + std::string(250, char('a' + d % 26)); // over max_input_chars_per_word: [UNK]
            doc += "\n";
        }
        text += (d % 25 == 24 ? previous : doc) + "\n"; // every 25th document repeats the one before
        previous = doc;
    }
    return text;
}

} // namespace

class tst_PretrainingData : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    std::string dir() const { return m_tmp.path().toStdString(); }
    std::string vocab()
    {
        const std::string p = dir() + "/vocab.txt";
        if (!fs::exists(p))
            writeFile(p, kVocab);
        return p;
    }
    PretrainingDataOptions options(const std::string &input, const std::string &out)
    {
        PretrainingDataOptions o;
        o.input_files = {input};
        o.vocab_file = vocab();
        o.max_seq_length = 8;
        o.max_predictions_per_seq = 4;
        o.short_seq_prob = 0.0;
        o.eval_fraction = 0.0;
        o.output_dir = out;
        return o;
    }
    std::string errorOf(const PretrainingDataOptions &o)
    {
        try {
            preparePretrainingData(o);
        } catch (const Error &e) {
            return e.field() + ": " + e.what() + " | " + e.hint();
        }
        return "no error";
    }
    // Nothing but the (possibly created) folder itself: no records, no meta data, no temporary files.
    void verifyNothingWritten(const std::string &out)
    {
        if (!fs::exists(out))
            return;
        for (const auto &e : fs::directory_iterator(out))
            QFAIL(qPrintable(QString::fromStdString("left behind: " + e.path().string())));
    }

private Q_SLOTS:
    /// The direct record encoder writes protobuf's own deterministic serialization of the same
    /// tf.train.Example, byte for byte (random records: with and without masks, large and
    /// negative ids, empty lists).
    void recordEncoderEqualsProtobuf()
    {
        std::mt19937_64 rng(7);
        for (int k = 0; k < 300; ++k) {
            PretrainingRecord r;
            const size_t L = size_t(rng() % 140), P = size_t(rng() % 24);
            auto value = [&] {
                switch (rng() % 4) {
                case 0: return int64_t(rng() % 128);
                case 1: return int64_t(rng() % 40000);
                case 2: return int64_t(rng() >> 1);
                default: return -int64_t(rng() % 1000);
                }
            };
            for (size_t i = 0; i < L; ++i) {
                r.input_ids.push_back(value());
                r.input_mask.push_back(int64_t(rng() % 2));
                r.segment_ids.push_back(int64_t(rng() % 2));
            }
            r.has_masked_lm = rng() % 3 != 0;
            if (r.has_masked_lm)
                for (size_t i = 0; i < P; ++i) {
                    r.masked_lm_positions.push_back(value());
                    r.masked_lm_ids.push_back(value());
                    r.masked_lm_weights.push_back(i % 3 ? 1.0f : float(rng() % 1000) / 7.0f);
                }
            r.next_sentence_labels = value();
            tensorflow::Example ex;
            auto &f = *ex.mutable_features()->mutable_feature();
            auto ints = [&](const char *name, const std::vector<int64_t> &v) {
                f[name].mutable_int64_list()->mutable_value()->Add(v.begin(), v.end());
            };
            ints("input_ids", r.input_ids);
            ints("input_mask", r.input_mask);
            ints("segment_ids", r.segment_ids);
            if (r.has_masked_lm) {
                ints("masked_lm_positions", r.masked_lm_positions);
                ints("masked_lm_ids", r.masked_lm_ids);
                f["masked_lm_weights"].mutable_float_list()->mutable_value()->Add(r.masked_lm_weights.begin(),
                                                                                   r.masked_lm_weights.end());
            }
            ints("next_sentence_labels", {r.next_sentence_labels});
            std::string want;
            {
                google::protobuf::io::StringOutputStream stream(&want);
                google::protobuf::io::CodedOutputStream coded(&stream);
                coded.SetSerializationDeterministic(true);
                ex.SerializeToCodedStream(&coded);
            }
            const std::string got = encodePretrainingRecord(r);
            if (got != want) {
                size_t at = 0;
                while (at < got.size() && at < want.size() && got[at] == want[at])
                    ++at;
                qInfo("sizes %zu %zu first difference at %zu: %s", got.size(), want.size(), at,
                      QByteArray::fromStdString(want.substr(at > 8 ? at - 8 : 0, 24)).toHex().constData());
            }
            if (got != want)
                QFAIL(qPrintable(QStringLiteral("record %1 (L %2, P %3) differs").arg(k).arg(L).arg(P)));
        }
    }

    /// The same seed writes the same bytes, pinned by SHA-256 on a fixed mixed corpus with the
    /// bert-base-uncased vocabulary (the values were taken before prepare_pretraining was made
    /// faster, so a speed-up that changes any record, report count or shard fails here).
    void recordsAreByteIdenticalForTheSameSeed_data()
    {
        QTest::addColumn<QString>("settingName");
        QTest::addColumn<QString>("train");
        QTest::addColumn<QString>("eval");
        QTest::addColumn<QString>("counts");
        QTest::newRow("dynamic") << QStringLiteral("dynamic")
                                 << QStringLiteral("c391267e20ff0088e652044fd345caa87186f98935e307d25eb038813da7d2e2")
                                 << QStringLiteral("e740aa593d12bd771e59354fbfb4f3a75cd38ec5f383a82f99e38ac2fa6843c3")
                                 << QStringLiteral("400 101296 2360 1988 220 15084 16");
        QTest::newRow("static, whole words, pairs, 2 shards") << QStringLiteral("static")
            << QStringLiteral("355f3c8b51c6a9930d3a3fae5b3eeee4c9842828c7592d9a6f0f31fcc342d5b4")
            << QStringLiteral("cf658fb006a7a5396fb3a7b7653bbcac9c127609fbf3d6bf46349373d5901a2d")
            << QStringLiteral("400 101296 2360 5365 195 47602 16");
        QTest::newRow("static, 1 thread") << QStringLiteral("static1")
            << QStringLiteral("355f3c8b51c6a9930d3a3fae5b3eeee4c9842828c7592d9a6f0f31fcc342d5b4")
            << QStringLiteral("cf658fb006a7a5396fb3a7b7653bbcac9c127609fbf3d6bf46349373d5901a2d")
            << QStringLiteral("400 101296 2360 5365 195 47602 16");
    }
    void recordsAreByteIdenticalForTheSameSeed()
    {
        QFETCH(QString, settingName);
        const std::string setting = settingName.toStdString();
        QFETCH(QString, train);
        QFETCH(QString, eval);
        QFETCH(QString, counts);
        const std::string vocabFile = std::string(WB_SHARED_DATA_DIR) + "/vocab/bert-base-uncased-vocab.txt";
        if (!fs::exists(vocabFile))
            QSKIP("shared vocab not available");
        const std::string in = dir() + "/mixed.txt", out = dir() + "/mixed-" + setting;
        if (!fs::exists(in))
            writeFile(in, mixedCorpus());
        PretrainingDataOptions o;
        o.input_files = {in};
        o.vocab_file = vocabFile;
        o.max_seq_length = 64;
        o.max_predictions_per_seq = 10;
        o.eval_fraction = 0.1;
        o.output_dir = out;
        if (setting != "dynamic") {
            o.masking = "static";
            o.do_whole_word_mask = true;
            o.next_sentence = true;
            o.dupe_factor = 3;
            o.num_output_shards = 2;
            o.num_threads = setting == "static1" ? 1 : 2;
        }
        const PretrainingDataReport r = preparePretrainingData(o);
        std::string trainBytes;
        for (const auto &f : r.train_files)
            trainBytes += readFile(f);
        const std::string got = std::to_string(r.documents) + " " + std::to_string(r.tokens) + " "
            + std::to_string(r.unk_tokens) + " " + std::to_string(r.train_sequences) + " "
            + std::to_string(r.eval_sequences) + " " + std::to_string(r.masked_positions) + " "
            + std::to_string(r.duplicate_documents + r.train_eval_overlap_documents);
        qInfo("%s: %s %s %s", setting.c_str(), sha256Hex(trainBytes).c_str(),
              sha256Hex(readFile(r.eval_file)).c_str(), got.c_str());
        QCOMPARE(QString::fromStdString(sha256Hex(trainBytes)), train);
        QCOMPARE(QString::fromStdString(sha256Hex(readFile(r.eval_file))), eval);
        QCOMPARE(QString::fromStdString(got), counts);
    }

    /// The report's numbers, exact, on a corpus worked through by hand (packing, L = 8:
    /// 6 tokens between [CLS] and [SEP]; short_seq_prob 0).
    void reportIsExactOnASmallCorpus()
    {
        const std::string in = dir() + "/small.txt";
        // doc 1: "a b c" + "d e" (5 tokens); doc 2: 9 tokens (a line longer than a sequence:
        // split 6 + 3) + "zzz" ([UNK]); blank lines of spaces separate documents too.
        writeFile(in, "a b c\r\nd e\n  \n\nf g h i j k l m n\nzzz\n");
        PretrainingDataOptions o = options(in, dir() + "/small");
        const PretrainingDataReport r = preparePretrainingData(o);
        QCOMPARE(r.documents, int64_t(2));
        QCOMPARE(r.sentences, int64_t(4));
        QCOMPARE(r.tokens, int64_t(15));
        QCOMPARE(r.unk_tokens, int64_t(1));
        QCOMPARE(r.unk_rate, 1.0 / 15.0);
        QCOMPARE(r.sentences_split, int64_t(1));
        QCOMPARE(r.documents_longer_than_a_sequence, int64_t(1));
        QCOMPARE(r.long_documents_cut, int64_t(0));
        QCOMPARE(r.train_documents, int64_t(2));
        QCOMPARE(r.eval_documents, int64_t(0));
        // [CLS] a b c d e [SEP] | [CLS] f g h i j k [SEP] | [CLS] l m n [UNK] [SEP]
        QCOMPARE(r.train_sequences, int64_t(3));
        QCOMPARE(r.eval_sequences, int64_t(0));
        QCOMPARE(r.sequence_tokens, int64_t(7 + 8 + 6));
        QCOMPARE(r.masking, std::string("dynamic"));
        QCOMPARE(r.dupe_factor, int64_t(1));
        QCOMPARE(r.masked_positions, int64_t(3)); // max(1, round(0.15 × 5|6|4)) each
        QCOMPARE(r.vocab_size, int64_t(22));
        QCOMPARE(r.input_format, std::string("text"));

        PretrainingRecordSpec spec{8, 4, false, 22};
        std::vector<std::vector<int64_t>> got;
        for (const PretrainingRecord &rec : readRecords(dir() + "/small/train.tf_record", spec)) {
            QVERIFY(!rec.has_masked_lm);
            QCOMPARE(rec.segment_ids, std::vector<int64_t>(8, 0));
            QCOMPARE(rec.next_sentence_labels, int64_t(0));
            got.push_back(realIds(rec));
            for (size_t i = got.back().size(); i < 8; ++i)
                QCOMPARE(rec.input_ids[i], int64_t(0));
        }
        std::sort(got.begin(), got.end());
        std::vector<std::vector<int64_t>> want = {seq("abcde"), seq("fghijk"), seq("lmn?")};
        std::sort(want.begin(), want.end());
        QCOMPARE(got, want);

        const auto meta = nlohmann::json::parse(readFile(dir() + "/small/input_meta_data.json"));
        QCOMPARE(meta.dump(), std::string("{\"do_lower_case\":true,\"eval_data_size\":0,\"masked_lm_prob\":0.15,"
                                          "\"masking\":\"dynamic\",\"max_predictions_per_seq\":4,\"max_seq_length\":8,"
                                          "\"task_type\":\"bert_pretraining\",\"train_data_size\":3,"
                                          "\"use_next_sentence_label\":false,\"vocab_size\":22,"
                                          "\"whole_word_masking\":false}"));
        QVERIFY(readFile(dir() + "/small/input_meta_data.json").rfind("{\n    \"task_type\": \"bert_pretraining\",\n    "
                                                                       "\"max_seq_length\": 8,", 0) == 0); // contract order
        const auto rj = nlohmann::json::parse(readFile(dir() + "/small/prepare_report.json"));
        QCOMPARE(rj["documents"].get<int64_t>(), int64_t(2));
        QCOMPARE(rj["tokens"].get<int64_t>(), int64_t(15));
        QCOMPARE(rj["unk_tokens"].get<int64_t>(), int64_t(1));
        QCOMPARE(rj["train_sequences"].get<int64_t>(), int64_t(3));
        QCOMPARE(rj["masked_positions"].get<int64_t>(), int64_t(3));
        QCOMPARE(rj["masking"].get<std::string>(), std::string("dynamic"));
        QCOMPARE(rj["sentences_split"].get<int64_t>(), int64_t(1));
        QCOMPARE(rj["do_lower_case"].get<bool>(), true);
        QCOMPARE(rj["vocab_sha256"].get<std::string>().size(), size_t(64));
    }

    /// Static masking: the masks are in the records, dupe_factor copies with their own masks.
    void staticMaskingWritesMaskedRecords()
    {
        const std::string in = dir() + "/static.txt";
        writeFile(in, "a b c d e f\n\ng h i j k l\n\nm n o p a b\n");
        PretrainingDataOptions o = options(in, dir() + "/static");
        o.masking = "static";
        o.masked_lm_prob = 0.5;
        o.dupe_factor = 4;
        const PretrainingDataReport r = preparePretrainingData(o);
        QCOMPARE(r.train_sequences, int64_t(12));
        QCOMPARE(r.masked_positions, int64_t(12 * 3)); // round(0.5 × 6)
        PretrainingRecordSpec spec{8, 4, true, 22};
        const auto recs = readRecords(dir() + "/static/train.tf_record", spec);
        QCOMPARE(recs.size(), size_t(12));
        std::set<std::vector<int64_t>> masks;
        for (const auto &rec : recs) {
            QVERIFY(rec.has_masked_lm);
            QCOMPARE(rec.masked_lm_weights, (std::vector<float>{1, 1, 1, 0}));
            for (int k = 0; k < 3; ++k) {
                const int64_t p = rec.masked_lm_positions[size_t(k)];
                QVERIFY(p >= 1 && p <= 6);
                QVERIFY(rec.masked_lm_ids[size_t(k)] >= 5);
            }
            masks.insert(rec.masked_lm_positions);
        }
        QVERIFY(masks.size() > 3); // the copies are masked differently
        // The same seed gives the same bytes.
        PretrainingDataOptions again = o;
        again.output_dir = dir() + "/static2";
        preparePretrainingData(again);
        QCOMPARE(readFile(dir() + "/static2/train.tf_record"), readFile(dir() + "/static/train.tf_record"));
    }

    /// google-research's A/B pairs: [CLS] A [SEP] B [SEP], segment ids 0 then 1, is_random_next.
    void nextSentencePairs()
    {
        std::string text;
        for (int d = 0; d < 40; ++d)
            text += "a b c\nd e f\ng h\ni j k\nl m\n\n";
        const std::string in = dir() + "/nsp.txt";
        writeFile(in, text);
        PretrainingDataOptions o = options(in, dir() + "/nsp");
        o.max_seq_length = 12;
        o.next_sentence = true;
        const PretrainingDataReport r = preparePretrainingData(o);
        QVERIFY(r.train_sequences > 40);
        QVERIFY(r.random_next_sequences > 0 && r.random_next_sequences < r.train_sequences);
        int64_t random = 0;
        for (const auto &rec : readRecords(dir() + "/nsp/train.tf_record", {12, 4, false, 22})) {
            const auto ids = realIds(rec);
            QCOMPARE(ids.front(), int64_t(2));
            QCOMPARE(ids.back(), int64_t(3));
            QCOMPARE(std::count(ids.begin(), ids.end(), int64_t(3)), long(2));
            const size_t firstSep = size_t(std::find(ids.begin(), ids.end(), int64_t(3)) - ids.begin());
            QVERIFY(firstSep >= 2 && firstSep + 2 < ids.size()); // A and B each at least one token
            for (size_t i = 0; i < ids.size(); ++i)
                QCOMPARE(rec.segment_ids[i], int64_t(i <= firstSep ? 0 : 1));
            random += rec.next_sentence_labels;
        }
        QCOMPARE(random, r.random_next_sequences);
        const auto meta = nlohmann::json::parse(readFile(dir() + "/nsp/input_meta_data.json"));
        QCOMPARE(meta["use_next_sentence_label"].get<bool>(), true);
    }

    /// Documents go to train or eval whole; shards hold every training record once; an earlier
    /// run's shards of another count are removed.
    void evalSplitAndShards()
    {
        std::string text;
        for (int d = 0; d < 200; ++d)
            text += std::string(1, char('a' + d % 16)) + " b c\n\n";
        const std::string in = dir() + "/split.txt", out = dir() + "/split";
        writeFile(in, text);
        PretrainingDataOptions o = options(in, out);
        o.eval_fraction = 0.2;
        o.num_output_shards = 3;
        const PretrainingDataReport r = preparePretrainingData(o);
        QCOMPARE(r.train_documents + r.eval_documents, int64_t(200));
        QVERIFY(r.eval_documents > 20 && r.eval_documents < 60);
        QCOMPARE(r.train_files.size(), size_t(3));
        int64_t n = 0;
        for (int i = 0; i < 3; ++i) {
            const std::string p = out + "/train.tf_record-0000" + std::to_string(i) + "-of-00003";
            QCOMPARE(r.train_files[size_t(i)], p);
            const auto recs = readRecords(p, {8, 4, false, 22});
            QVERIFY(recs.size() >= size_t(r.train_sequences / 3));
            n += int64_t(recs.size());
        }
        QCOMPARE(n, r.train_sequences);
        QCOMPARE(int64_t(readRecords(out + "/eval.tf_record", {8, 4, false, 22}).size()), r.eval_sequences);
        o.num_output_shards = 1;
        o.eval_fraction = 0.0;
        preparePretrainingData(o);
        QVERIFY(fs::exists(out + "/train.tf_record"));
        QVERIFY(!fs::exists(out + "/train.tf_record-00000-of-00003"));
        QVERIFY(!fs::exists(out + "/eval.tf_record"));
    }

    /// Repeated documents are found by hash: within a split, and between train and eval.
    void duplicateDocuments()
    {
        std::string text;
        for (int copy = 0; copy < 2; ++copy)
            for (int d = 0; d < 100; ++d)
                text += std::string(1, char('a' + d % 16)) + " " + std::string(1, char('a' + d / 16)) + " b\nA c\n\n";
        const std::string in = dir() + "/dupes.txt";
        writeFile(in, text);
        PretrainingDataOptions o = options(in, dir() + "/dupes");
        o.eval_fraction = 0.3;
        const PretrainingDataReport r = preparePretrainingData(o);
        QCOMPARE(r.documents, int64_t(200));
        QCOMPARE(r.duplicate_documents + r.train_eval_overlap_documents, int64_t(100)); // each second copy once
        QVERIFY(r.train_eval_overlap_documents > 10 && r.duplicate_documents > 10);
        QVERIFY(!r.duplicate_check_saturated);
        bool warned = false;
        for (const auto &w : r.warnings)
            warned = warned || w.find("eval document(s) are also in the training set") != std::string::npos;
        QVERIFY(warned);
    }

    void readsCsvTsvJsonlAndFolders()
    {
        writeFile(dir() + "/t.csv", "id,Text\n1,\"a b\nc d\"\n2,\n3,e f\n");
        PretrainingDataOptions o = options(dir() + "/t.csv", dir() + "/csv");
        PretrainingDataReport r = preparePretrainingData(o);
        QCOMPARE(r.input_format, std::string("csv"));
        QCOMPARE(r.text_column, std::string("Text"));
        QVERIFY(r.text_column_recognised);
        QCOMPARE(r.documents, int64_t(2));
        QCOMPARE(r.sentences, int64_t(3));
        QCOMPARE(r.empty_rows, int64_t(1));
        QCOMPARE(r.tokens, int64_t(6));

        writeFile(dir() + "/t.tsv", "body\tlabel\na b c\tx\nd\ty\n");
        o = options(dir() + "/t.tsv", dir() + "/tsv");
        o.text_column = "body";
        r = preparePretrainingData(o);
        QCOMPARE(r.documents, int64_t(2));
        QCOMPARE(r.tokens, int64_t(4));
        QVERIFY(!r.text_column_recognised);

        writeFile(dir() + "/t.jsonl", "{\"text\": \"a b\\nc\", \"n\": 1}\n\n{\"text\": \"d e f\"}\n");
        o = options(dir() + "/t.jsonl", dir() + "/jsonl");
        r = preparePretrainingData(o);
        QCOMPARE(r.input_format, std::string("jsonl"));
        QCOMPARE(r.documents, int64_t(2));
        QCOMPARE(r.sentences, int64_t(3));
        QCOMPARE(r.tokens, int64_t(6));

        writeFile(dir() + "/folder/b.txt", "c d\n\ne\n");
        writeFile(dir() + "/folder/a.txt", "a b\n");
        writeFile(dir() + "/folder/sub/c.txt", "f");
        writeFile(dir() + "/folder/.hidden.txt", "g");
        writeFile(dir() + "/folder/notes.md", "h");
        o = options(dir() + "/folder", dir() + "/folderout");
        r = preparePretrainingData(o);
        QCOMPARE(r.input_files, int64_t(3));
        QCOMPARE(r.documents, int64_t(4)); // a.txt, b.txt (2), sub/c.txt (no final line end)
        QCOMPARE(r.tokens, int64_t(6));

        o = options(dir() + "/folder/*.txt", dir() + "/globout");
        o.input_files.push_back(dir() + "/t.jsonl");
        r = preparePretrainingData(o);
        QCOMPARE(r.input_files, int64_t(3)); // a.txt, b.txt, t.jsonl
        QCOMPARE(r.documents, int64_t(5));
        QVERIFY(errorOf(options(dir() + "/folder/*.none", dir() + "/x")).find("matches no file") != std::string::npos);

        writeFile(dir() + "/cols.csv", "id,body\n1,a\n");
        const std::string e = errorOf(options(dir() + "/cols.csv", dir() + "/colsout"));
        QVERIFY2(e.find("cols.csv:1: no text column was recognised") != std::string::npos, e.c_str());
        QVERIFY2(e.find("'id', 'body'") != std::string::npos
                     && e.find("Set text_column to NAME with the column that holds the documents") != std::string::npos, e.c_str());
        writeFile(dir() + "/bad.jsonl", "{\"text\": \"a\"}\n{\"text\": 5}\n");
        const std::string j = errorOf(options(dir() + "/bad.jsonl", dir() + "/badjsonl"));
        QVERIFY2(j.find("bad.jsonl:2: 'text' is a JSON number, not a string") != std::string::npos, j.c_str());
    }

    /// email_body_only: each file of a folder (whatever its name) is one mail, its body one
    /// document; the header block never reaches the records; an HTML-only alternative gives its
    /// text; an image-only mail is counted and left out; a CSV row's text is a mail too.
    void readsEmailBodies()
    {
        const std::string d = dir() + "/mails";
        writeFile(d + "/ham/00001.abc", "From: h@i\nSubject: m k\n\na b\n\nc\n");
        writeFile(d + "/spam/00002.def",
                  "From: h@i\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=\"XX\"\n\n"
                  "--XX\nContent-Type: text/plain\n\n \n--XX\nContent-Type: text/html\n\n"
                  "<html><body><p>d <b>e</b></p></body></html>\n--XX--\n");
        writeFile(d + "/spam/00003.ghi",
                  "From: h@i\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"YY\"\n\n"
                  "--YY\nContent-Type: image/gif\nContent-Transfer-Encoding: base64\n\nR0lGODlh\n--YY--\n");
        writeFile(d + "/.hidden", "From: h@i\n\nk k k\n");
        PretrainingDataOptions o = options(d, dir() + "/mailout");
        o.email_body_only = true;
        PretrainingDataReport r = preparePretrainingData(o);
        QCOMPARE(r.input_format, std::string("mail"));
        QVERIFY(r.email_body_only);
        QCOMPARE(r.input_files, int64_t(3));
        QCOMPARE(r.documents, int64_t(2));
        QCOMPARE(r.sentences, int64_t(3)); // "a b", "c"; "d e"
        QCOMPARE(r.tokens, int64_t(5));    // no "h", "i", "m", "k" from the headers
        QCOMPARE(r.empty_rows, int64_t(1));
        QVERIFY(nlohmann::json::parse(readFile(r.report_path)).value("email_body_only", false));

        // Without the option the folder's files are not .txt: an error that names the folder.
        o.email_body_only = false;
        o.output_dir = dir() + "/mailout2";
        QVERIFY(errorOf(o).find("holds no .txt files") != std::string::npos);

        writeFile(dir() + "/mails.csv", "id,text\n1,\"From: h@i\nSubject: k\n\na b c\"\n");
        o = options(dir() + "/mails.csv", dir() + "/mailcsv");
        o.email_body_only = true;
        r = preparePretrainingData(o);
        QCOMPARE(r.input_format, std::string("csv"));
        QCOMPARE(r.documents, int64_t(1));
        QCOMPARE(r.tokens, int64_t(3));
    }

    /// A CSV larger than the reader's 1 MB blocks, quoted fields with line breaks across block
    /// ends: every row read once, and an error after the first block names its true line.
    void csvAcrossReadBlocks()
    {
        std::string csv = "n,text\r\n";
        int64_t line = 2;
        const int rows = 150000;
        for (int i = 0; i < rows; ++i) {
            csv += std::to_string(i) + ",\"a \"\"b\"\",\nc d\r\ne\"\r\n"; // 3 lines per row
            line += 3;
        }
        QVERIFY(csv.size() > 3 * PretrainingTextReader::kMaxDocumentPartBytes);
        writeFile(dir() + "/blocks.csv", csv);
        PretrainingTextReader reader({dir() + "/blocks.csv"}, "auto", "");
        PretrainingTextDocument d;
        int n = 0;
        while (reader.next(d)) {
            QCOMPARE(d.sentences, (std::vector<std::string>{"a \"b\",", "c d", "e"}));
            QCOMPARE(d.where, dir() + "/blocks.csv:" + std::to_string(2 + 3 * n));
            ++n;
        }
        QCOMPARE(n, rows);
        writeFile(dir() + "/blocks-bad.csv", csv + "1,\"open\"x\n");
        PretrainingTextReader bad({dir() + "/blocks-bad.csv"}, "auto", "");
        try {
            while (bad.next(d)) {
            }
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), dir() + "/blocks-bad.csv:" + std::to_string(line));
        }
    }

    /// Lines longer than the reader's sentence limit are cut at a character boundary; a
    /// document larger than a part comes in parts that continue it.
    void readerBoundsLongLinesAndDocuments()
    {
        std::string line;
        while (line.size() < PretrainingTextReader::kMaxSentenceBytes * 2 + 100)
            line += "é ab ";
        writeFile(dir() + "/long.txt", line + "\nx\n");
        PretrainingTextReader reader({dir() + "/long.txt"}, "auto", "");
        PretrainingTextDocument d;
        size_t bytes = 0, sentences = 0, parts = 0;
        while (reader.next(d)) {
            QCOMPARE(d.continues, parts > 0);
            ++parts;
            for (const auto &s : d.sentences) {
                QVERIFY(s.size() <= PretrainingTextReader::kMaxSentenceBytes);
                QCOMPARE(firstInvalidUtf8(s), std::string_view::npos);
                bytes += s.size();
                ++sentences;
            }
        }
        QCOMPARE(bytes, line.size() + 1);
        QCOMPARE(sentences, size_t(4)); // 3 pieces of the long line + "x"
        QVERIFY(parts >= 2);
        QCOMPARE(reader.bytesRead(), uint64_t(line.size() + 3));
    }

    void utf8Validation()
    {
        QCOMPARE(firstInvalidUtf8("abc"), std::string_view::npos);
        QCOMPARE(firstInvalidUtf8("a\xC3\xA9z"), std::string_view::npos);
        QCOMPARE(firstInvalidUtf8("ab\xE9z"), size_t(2));        // Latin-1 é
        QCOMPARE(firstInvalidUtf8("a\xC0\x80"), size_t(1));      // overlong NUL
        QCOMPARE(firstInvalidUtf8("a\xED\xA0\x80"), size_t(1));  // surrogate
        QCOMPARE(firstInvalidUtf8("\xF4\x90\x80\x80"), size_t(0)); // > U+10FFFF
        QCOMPARE(firstInvalidUtf8("ok\xE2\x82"), size_t(2));     // truncated
    }

    void badInputIsAnErrorAndWritesNothing()
    {
        // Empty corpus: blank lines only.
        writeFile(dir() + "/empty.txt", "\n  \n\n");
        std::string e = errorOf(options(dir() + "/empty.txt", dir() + "/o1"));
        QVERIFY2(e.find("empty.txt: the corpus holds no text") != std::string::npos, e.c_str());
        verifyNothingWritten(dir() + "/o1");
        // Binary: a NUL byte, named with its offset; a second file so that records were being written.
        writeFile(dir() + "/bin/a.txt", "a b c d e f\n\nb c\n");
        writeFile(dir() + "/bin/b.txt", std::string("abc\0def", 7));
        e = errorOf(options(dir() + "/bin", dir() + "/o2"));
        QVERIFY2(e.find("b.txt: a NUL byte at byte offset 3: this looks like a binary file") != std::string::npos,
                 e.c_str());
        verifyNothingWritten(dir() + "/o2");
        // Not UTF-8: the file and byte offset.
        writeFile(dir() + "/latin1.txt", "a b\ncaf\xE9\n");
        e = errorOf(options(dir() + "/latin1.txt", dir() + "/o3"));
        QVERIFY2(e.find("latin1.txt: the byte 0xE9 at byte offset 7 is not UTF-8") != std::string::npos, e.c_str());
        QVERIFY2(e.find("iconv") != std::string::npos, e.c_str());
        verifyNothingWritten(dir() + "/o3");
        // A vocabulary without [MASK].
        writeFile(dir() + "/nomask.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\na\n");
        writeFile(dir() + "/ok.txt", "a a a\n");
        PretrainingDataOptions o = options(dir() + "/ok.txt", dir() + "/o4");
        o.vocab_file = dir() + "/nomask.txt";
        e = errorOf(o);
        QVERIFY2(e.find("nomask.txt: the vocabulary has no [MASK] token") != std::string::npos, e.c_str());
        verifyNothingWritten(dir() + "/o4");
        // max_predictions_per_seq beyond what masked_lm_prob gives: both flags and the largest value.
        o = options(dir() + "/ok.txt", dir() + "/o5");
        o.max_seq_length = 128;
        o.max_predictions_per_seq = 40;
        e = errorOf(o);
        QVERIFY2(e.find("max_predictions_per_seq: max_predictions_per_seq=40 is more than masked_lm_prob=0.15 can fill "
                        "in a sequence of max_seq_length=128: about 19 positions") != std::string::npos, e.c_str());
        QVERIFY2(e.find("slots beyond 20 would always be padding") != std::string::npos, e.c_str());
        QVERIFY2(e.find("--max_predictions_per_seq=20 or less") != std::string::npos, e.c_str());
        verifyNothingWritten(dir() + "/o5");
        // The output folder cannot be made (a file is in the way).
        writeFile(dir() + "/afile", "x");
        e = errorOf(options(dir() + "/ok.txt", dir() + "/afile/out"));
        QVERIFY2(e.find("afile/out: cannot create the output folder") != std::string::npos, e.c_str());
        // An earlier complete data set stays as it was when a new run fails.
        PretrainingDataOptions good = options(dir() + "/ok.txt", dir() + "/keep");
        preparePretrainingData(good);
        const std::string before = readFile(dir() + "/keep/train.tf_record");
        good.input_files = {dir() + "/latin1.txt"};
        QVERIFY_THROWS_EXCEPTION(Error, preparePretrainingData(good));
        QCOMPARE(readFile(dir() + "/keep/train.tf_record"), before);
        size_t files = 0;
        for (const auto &entry : fs::directory_iterator(dir() + "/keep"))
            files += entry.path().filename().string()[0] == '.' ? 100 : 1;
        QCOMPARE(files, size_t(3)); // train.tf_record, input_meta_data.json, prepare_report.json
    }

    void largestUsefulPredictions()
    {
        QCOMPARE(maxUsefulPredictionsPerSeq(128, 0.15), int64_t(20)); // google-research's settings
        QCOMPARE(maxUsefulPredictionsPerSeq(512, 0.15), int64_t(80));
        QCOMPARE(maxUsefulPredictionsPerSeq(8, 0.15), int64_t(4));
        QCOMPARE(maxUsefulPredictionsPerSeq(128, 0.2), int64_t(28));
    }

    /// The fixture written by tests/data/pretraining/tfrecord_example.py (standard-library
    /// Python, bytes made by hand as create_pretraining_data.py's records) reads back with
    /// google-research's feature names and types.
    void readsIndependentlyWrittenRecords()
    {
        const std::string base = WB_TEST_DATA_DIR "/pretraining/google_research_format";
        const auto want = nlohmann::json::parse(readFile(base + ".json"));
        const auto recs = readRecords(base + ".tf_record", {16, 4, true, 30});
        QCOMPARE(recs.size(), want.size());
        for (size_t i = 0; i < recs.size(); ++i) {
            const auto &w = want[i];
            QCOMPARE(recs[i].input_ids, w["input_ids"]["int64"].get<std::vector<int64_t>>());
            QCOMPARE(recs[i].input_mask, w["input_mask"]["int64"].get<std::vector<int64_t>>());
            QCOMPARE(recs[i].segment_ids, w["segment_ids"]["int64"].get<std::vector<int64_t>>());
            QCOMPARE(recs[i].masked_lm_positions, w["masked_lm_positions"]["int64"].get<std::vector<int64_t>>());
            QCOMPARE(recs[i].masked_lm_ids, w["masked_lm_ids"]["int64"].get<std::vector<int64_t>>());
            QCOMPARE(recs[i].masked_lm_weights, w["masked_lm_weights"]["float"].get<std::vector<float>>());
            QCOMPARE(recs[i].next_sentence_labels, w["next_sentence_labels"]["int64"][0].get<int64_t>());
        }
        // Our encoder gives google-research's names and kinds.
        PretrainingRecord r = recs[1];
        tensorflow::Example ex;
        const std::string bytes = encodePretrainingRecord(r);
        QVERIFY(ex.ParseFromString(bytes));
        const auto &f = ex.features().feature();
        QCOMPARE(int(f.size()), 7);
        for (const char *name : {"input_ids", "input_mask", "segment_ids", "masked_lm_positions", "masked_lm_ids",
                                 "next_sentence_labels"})
            QCOMPARE(f.at(name).kind_case(), tensorflow::Feature::kInt64List);
        QCOMPARE(f.at("masked_lm_weights").kind_case(), tensorflow::Feature::kFloatList);
        r.has_masked_lm = false;
        QVERIFY(ex.ParseFromString(encodePretrainingRecord(r)));
        QCOMPARE(int(ex.features().feature().size()), 4);
        PretrainingRecord back;
        QVERIFY_THROWS_EXCEPTION(Error, decodePretrainingRecord(encodePretrainingRecord(r), {16, 4, true, 30}, back));
        QVERIFY_THROWS_EXCEPTION(Error, decodePretrainingRecord(bytes, {16, 4, true, 15}, back)); // ids ≥ vocab
        QVERIFY_THROWS_EXCEPTION(Error, decodePretrainingRecord(bytes, {17, 4, true, 30}, back)); // length
    }
};

QTEST_GUILESS_MAIN(tst_PretrainingData)
#include "tst_pretrainingdata.moc"
