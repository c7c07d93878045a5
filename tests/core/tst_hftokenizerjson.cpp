// SPDX-License-Identifier: Apache-2.0
// The export's tokenizer.json (issue 26): Hugging Face's fast-tokenizer file for our
// tokenizer. Its fields, and Hugging Face's own tokenizer (npm `tokenizers`, the Rust
// implementation) loading it and giving our input_ids and token_type_ids on the SpamAssassin
// mails, uncased and cased, single texts and pairs, with truncation.
#include "core/prepare/exampledata.h"
#include "core/tokenize/fulltokenizer.h"
#include "core/tokenize/hftokenizerjson.h"
#include "core/prepare/preparefeatures.h"
#include "support/npmmodules.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

constexpr const char *kTokenizersPackage = "tokenizers@0.23.2";

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The text as JSON carries it: invalid UTF-8 bytes become U+FFFD (both tokenizers drop it).
std::string asValidUtf8(const std::string &bytes)
{
    return nlohmann::json::parse(nlohmann::json(bytes).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        .get<std::string>();
}

/// The mails under `dir`/ham and `dir`/spam (`dir` ends in a slash), each folder's in file name
/// order, as valid UTF-8.
std::vector<std::string> spamAssassinMails(const std::string &dir)
{
    std::vector<std::string> mails;
    for (const char *label : {"ham", "spam"}) {
        std::vector<fs::path> files;
        for (const auto &e : fs::directory_iterator(dir + label))
            files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto &f : files)
            mails.push_back(asValidUtf8(readAll(f.string())));
    }
    return mails;
}

/// One input of the tokenizers: a text, or a pair of texts.
struct TextRow
{
    std::string a, b;
    bool pair = false;
};

/// Every mail alone, then pairs of neighbouring mails (the second cut to a few lines so both
/// sides of _truncate_seq_pair are exercised: one long, one short; two long), then a pair of
/// accented and CJK text.
std::vector<TextRow> singleMailsAndPairs(const std::vector<std::string> &mails)
{
    std::vector<TextRow> rows;
    for (const auto &m : mails)
        rows.push_back({m, {}, false});
    for (size_t i = 0; i + 1 < mails.size() && i < 60; i += 2)
        rows.push_back({mails[i], i % 4 == 0 ? mails[i + 1].substr(0, 80) : mails[i + 1], true});
    rows.push_back({"Héllo WORLD, naïve café!", "東京 ünïcödé", true});
    return rows;
}

/// `rows` as hf_tokenizer_ids.cjs reads them: one {"text_a", "text_b"} object a line.
void writeTextsJsonl(const std::string &path, const std::vector<TextRow> &rows)
{
    std::ofstream out(path, std::ios::binary);
    for (const auto &r : rows) {
        nlohmann::json j{{"text_a", r.a}};
        if (r.pair)
            j["text_b"] = r.b;
        out << j.dump() << "\n";
    }
}

/// Runs hf_tokenizer_ids.cjs: the tokenizers package in `modules` loads `tokenizerPath` and
/// writes the ids of each text of `textsPath` to `outPath`. Fails the test when node fails.
void runHuggingFaceTokenizer(const std::string &modules, const std::string &tokenizerPath,
                             const std::string &textsPath, const std::string &outPath)
{
    QProcess node;
    node.setProcessChannelMode(QProcess::MergedChannels);
    node.start(QStandardPaths::findExecutable(QStringLiteral("node")),
               {QStringLiteral(WB_TEST_DATA_DIR "/../support/hf_tokenizer_ids.cjs"), QString::fromStdString(modules),
                QString::fromStdString(tokenizerPath), QString::fromStdString(textsPath),
                QString::fromStdString(outPath)});
    QVERIFY(node.waitForFinished(120000));
    QVERIFY2(node.exitCode() == 0, node.readAll().constData());
}

/// Our input_ids and token_type_ids of a row, without the padding, and whether it was cut.
struct OurIds
{
    std::vector<int64_t> ids, types;
    bool truncated = false;
};

OurIds ourIds(const FullTokenizer &ours, const Vocab &vocab, const TextRow &r, int64_t maxSeqLength)
{
    ExampleFeatures f;
    buildExampleFeatures(ours, r.a, r.b, r.pair, maxSeqLength, vocab.id("[CLS]"), vocab.id("[SEP]"), 16, f);
    size_t len = 0;
    while (len < f.input_mask.size() && f.input_mask[len])
        ++len;
    OurIds o;
    o.ids.assign(f.input_ids.begin(), f.input_ids.begin() + std::ptrdiff_t(len));
    o.types.assign(f.segment_ids.begin(), f.segment_ids.begin() + std::ptrdiff_t(len));
    o.truncated = f.truncated;
    return o;
}

/// The tokens of text_a, without [CLS] and its [SEP].
size_t firstSegmentLength(const std::vector<int64_t> &types)
{
    return size_t(std::count(types.begin(), types.end(), 0)) - 2;
}

/// Whether both texts of a pair are longer than half of the tokens left beside [CLS] and the
/// two [SEP]s.
bool bothTextsLongerThanHalf(const std::vector<int64_t> &types, int64_t maxSeqLength)
{
    return firstSegmentLength(types) > size_t(maxSeqLength - 3) / 2
        && types.size() - firstSegmentLength(types) - 3 >= size_t(maxSeqLength - 3) / 2;
}

/// Both texts longer than half of the 125 tokens left: google-research's _truncate_seq_pair
/// (and transformers' slow BertTokenizer) keep 63 of text_a and 62 of text_b; the tokenizers
/// library's LongestFirst gives the odd token to either text, by the texts' lengths. The one
/// known difference (docs/file-formats.md): the same length, and each text's tokens are the
/// same as far as both kept them.
void checkLongPairKeepsTheSameTokens(const OurIds &o, const std::vector<int64_t> &theirs,
                                     const std::vector<int64_t> &theirTypes, const Vocab &vocab)
{
    const std::vector<int64_t> &ids = o.ids;
    const size_t a = firstSegmentLength(o.types), theirA = firstSegmentLength(theirTypes);
    QCOMPARE(theirs.size(), ids.size());
    QVERIFY(theirA + 1 >= a && theirA <= a + 1);
    const size_t commonA = std::min(a, theirA), b = ids.size() - a - 3, theirB = theirs.size() - theirA - 3;
    QVERIFY(std::equal(ids.begin(), ids.begin() + std::ptrdiff_t(1 + commonA), theirs.begin()));
    QVERIFY(std::equal(ids.begin() + std::ptrdiff_t(a + 2), ids.begin() + std::ptrdiff_t(a + 2 + std::min(b, theirB)),
                       theirs.begin() + std::ptrdiff_t(theirA + 2)));
    QCOMPARE(theirs[theirA + 1], int64_t(vocab.id("[SEP]")));
}

/// Fails, naming row `row` and the first token that differs, unless `ids` equals `theirs`.
void checkSameIds(const std::vector<int64_t> &ids, const std::vector<int64_t> &theirs, const Vocab &vocab, size_t row,
                  bool pair)
{
    if (ids != theirs) {
        size_t k = 0;
        while (k < ids.size() && k < theirs.size() && ids[k] == theirs[k])
            ++k;
        QFAIL(qPrintable(QStringLiteral("row %1 (%2): ours has %3 ids, Hugging Face's %4; first difference at "
                                        "%5: %6 vs %7")
                             .arg(row)
                             .arg(QString::fromLatin1(pair ? "pair" : "single"))
                             .arg(ids.size())
                             .arg(theirs.size())
                             .arg(k)
                             .arg(k < ids.size() ? QString::fromStdString(vocab.token(int32_t(ids[k])))
                                                 : QStringLiteral("-"))
                             .arg(k < theirs.size() ? QString::fromStdString(vocab.token(int32_t(theirs[k])))
                                                    : QStringLiteral("-"))));
    }
}

} // namespace

class tst_HfTokenizerJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fieldsAreTheOnesTransformersWrites()
    {
        const Vocab vocab = Vocab::fromTokens({"[PAD]", "hello", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##s", "world"});
        const auto j = huggingFaceTokenizerJson(vocab, false, 64);
        std::vector<std::string> keys;
        for (const auto &[k, v] : j.items())
            keys.push_back(k);
        QCOMPARE(keys, (std::vector<std::string>{"version", "truncation", "padding", "added_tokens", "normalizer",
                                                  "pre_tokenizer", "post_processor", "decoder", "model"}));
        QCOMPARE(j["version"], nlohmann::ordered_json("1.0"));
        QCOMPARE(j["truncation"]["max_length"].get<int64_t>(), int64_t(64));
        QCOMPARE(j["truncation"]["strategy"], nlohmann::ordered_json("LongestFirst"));
        QVERIFY(j["padding"].is_null());
        // The special tokens in id order with their vocab ids.
        QCOMPARE(j["added_tokens"].size(), size_t(5));
        const std::vector<std::pair<int, std::string>> special{
            {0, "[PAD]"}, {2, "[UNK]"}, {3, "[CLS]"}, {4, "[SEP]"}, {5, "[MASK]"}};
        for (size_t k = 0; k < special.size(); ++k) {
            QCOMPARE(j["added_tokens"][k]["id"].get<int>(), special[k].first);
            QCOMPARE(j["added_tokens"][k]["content"].get<std::string>(), special[k].second);
            QCOMPARE(j["added_tokens"][k]["special"].get<bool>(), true);
            QCOMPARE(j["added_tokens"][k]["normalized"].get<bool>(), false);
        }
        // Cased: no lower-casing, no accent stripping; Chinese characters and clean-up as BasicTokenizer.
        QCOMPARE(j["normalizer"], (nlohmann::ordered_json{{"type", "BertNormalizer"}, {"clean_text", true},
                                                          {"handle_chinese_chars", true}, {"strip_accents", false},
                                                          {"lowercase", false}}));
        QCOMPARE(huggingFaceTokenizerJson(vocab, true, 64)["normalizer"]["lowercase"].get<bool>(), true);
        QCOMPARE(huggingFaceTokenizerJson(vocab, true, 64)["normalizer"]["strip_accents"].get<bool>(), true);
        QCOMPARE(j["pre_tokenizer"]["type"], nlohmann::ordered_json("BertPreTokenizer"));
        const auto &post = j["post_processor"];
        QCOMPARE(post["type"], nlohmann::ordered_json("TemplateProcessing"));
        QCOMPARE(post["single"].size(), size_t(3));
        QCOMPARE(post["pair"].size(), size_t(5));
        QCOMPARE(post["pair"][3]["Sequence"]["id"], nlohmann::ordered_json("B"));
        QCOMPARE(post["pair"][3]["Sequence"]["type_id"].get<int>(), 1);
        QCOMPARE(post["pair"][4]["SpecialToken"]["type_id"].get<int>(), 1);
        QCOMPARE(post["special_tokens"]["[CLS]"]["ids"], nlohmann::ordered_json::array({3}));
        QCOMPARE(post["special_tokens"]["[SEP]"]["ids"], nlohmann::ordered_json::array({4}));
        QCOMPARE(j["decoder"]["type"], nlohmann::ordered_json("WordPiece"));
        const auto &model = j["model"];
        QCOMPARE(model["type"], nlohmann::ordered_json("WordPiece"));
        QCOMPARE(model["unk_token"], nlohmann::ordered_json("[UNK]"));
        QCOMPARE(model["continuing_subword_prefix"], nlohmann::ordered_json("##"));
        QCOMPARE(model["max_input_chars_per_word"].get<int>(), 200); // FullTokenizer's (google-research/bert)
        QCOMPARE(model["vocab"].size(), size_t(8));
        QCOMPARE(model["vocab"]["##s"].get<int>(), 6);
        QCOMPARE(model["vocab"]["world"].get<int>(), 7);
        // A vocab without [CLS] cannot make the template: an error naming what is missing.
        QVERIFY_THROWS_EXCEPTION(std::exception, huggingFaceTokenizerJson(Vocab::fromTokens({"[UNK]", "[SEP]"}), true, 8));
    }

    /// tokenizer_config.json and special_tokens_map.json as transformers' save_pretrained writes
    /// them for BertTokenizerFast (issue 41): the special tokens with the vocab's ids (a vocab of
    /// another order), casing, lengths; a vocab without [PAD] pads with its token 0, one without
    /// [MASK] names none.
    void tokenizerConfigIsTheOneSavePretrainedWrites()
    {
        const Vocab vocab = Vocab::fromTokens({"[PAD]", "hello", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "##s", "world"});
        const auto j = huggingFaceTokenizerConfig(vocab, false, 64);
        std::vector<std::string> keys;
        for (const auto &[k, v] : j.items())
            keys.push_back(k);
        QCOMPARE(keys, (std::vector<std::string>{"added_tokens_decoder", "clean_up_tokenization_spaces", "cls_token",
                                                  "do_basic_tokenize", "do_lower_case", "mask_token", "max_seq_length",
                                                  "model_max_length", "never_split", "pad_token", "sep_token",
                                                  "strip_accents", "tokenize_chinese_chars", "tokenizer_class",
                                                  "unk_token"}));
        QCOMPARE(j["do_lower_case"], nlohmann::ordered_json(false));
        QCOMPARE(j["model_max_length"], nlohmann::ordered_json(64));
        QCOMPARE(j["pad_token"], nlohmann::ordered_json("[PAD]"));
        std::vector<std::string> ids;
        for (const auto &[id, e] : j["added_tokens_decoder"].items()) {
            ids.push_back(id + "=" + e["content"].get<std::string>());
            QCOMPARE(e["special"], nlohmann::ordered_json(true));
            QCOMPARE(e["normalized"], nlohmann::ordered_json(false));
        }
        QCOMPARE(ids, (std::vector<std::string>{"0=[PAD]", "2=[UNK]", "3=[CLS]", "4=[SEP]", "5=[MASK]"}));
        QCOMPARE(huggingFaceSpecialTokensMap(vocab),
                 (nlohmann::ordered_json{{"cls_token", "[CLS]"}, {"mask_token", "[MASK]"}, {"pad_token", "[PAD]"},
                                         {"sep_token", "[SEP]"}, {"unk_token", "[UNK]"}}));

        // No [PAD] nor [MASK]: the workbench pads with id 0, so that token pads; no mask_token.
        const Vocab bare = Vocab::fromTokens({"<pad>", "[UNK]", "[CLS]", "[SEP]", "a"});
        const auto b = huggingFaceTokenizerConfig(bare, true, 32);
        QCOMPARE(b["pad_token"], nlohmann::ordered_json("<pad>"));
        QVERIFY(!b.contains("mask_token"));
        QCOMPARE(b["added_tokens_decoder"]["0"]["content"], nlohmann::ordered_json("<pad>"));
        QVERIFY(!huggingFaceSpecialTokensMap(bare).contains("mask_token"));
        // Without [CLS]: refused, the vocab named.
        bool threw = false;
        try {
            (void)huggingFaceTokenizerConfig(Vocab::fromTokens({"[PAD]", "[UNK]", "[SEP]"}), true, 32);
        } catch (const std::exception &e) {
            threw = std::string(e.what()).find("[CLS]") != std::string::npos;
        }
        QVERIFY(threw);
    }

    void huggingFaceTokenizerGivesOurIds_data()
    {
        QTest::addColumn<bool>("lower");
        QTest::newRow("uncased") << true;
        QTest::newRow("cased") << false;
    }

    void huggingFaceTokenizerGivesOurIds()
    {
        QFETCH(bool, lower);
        const std::string data = WB_SHARED_DATA_DIR;
        const std::string vocabPath = data + "/vocab/bert-base-uncased-vocab.txt";
        if (!fs::exists(vocabPath) || !fs::is_directory(data + "/spamassassin-mini/ham"))
            QSKIP("the shared SpamAssassin mails are not here (WB_SHARED_DATA_DIR)");
        if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
            QSKIP("node is not installed (scripts/install-deps.sh installs nodejs)");
        QString why;
        const std::string modules = wbtest::npmTestModules("npm", {kTokenizersPackage}, why);
        if (modules.empty())
            QSKIP(qPrintable(why));

        const std::vector<std::string> mails = spamAssassinMails(data + "/spamassassin-mini/");
        QVERIFY(mails.size() >= 100);

        const int64_t maxSeqLength = 128; // most mails are longer: truncation is compared too
        QTemporaryDir dir;
        const std::string tokenizerPath = dir.filePath(QStringLiteral("tokenizer.json")).toStdString();
        const Vocab vocab = Vocab::load(vocabPath);
        std::ofstream(tokenizerPath) << huggingFaceTokenizerJson(vocab, lower, maxSeqLength).dump(2) << "\n";

        const std::vector<TextRow> rows = singleMailsAndPairs(mails);
        const std::string textsPath = dir.filePath(QStringLiteral("texts.jsonl")).toStdString();
        writeTextsJsonl(textsPath, rows);
        const std::string outPath = dir.filePath(QStringLiteral("hf.jsonl")).toStdString();
        runHuggingFaceTokenizer(modules, tokenizerPath, textsPath, outPath);
        if (QTest::currentTestFailed())
            return;

        const FullTokenizer ours(vocabPath, lower);
        std::istringstream hf(readAll(outPath));
        std::string line;
        size_t n = 0, truncated = 0, longPairs = 0;
        for (const auto &r : rows) {
            QVERIFY(std::getline(hf, line));
            const auto j = nlohmann::json::parse(line);
            const OurIds o = ourIds(ours, vocab, r, maxSeqLength);
            const auto theirs = j["input_ids"].get<std::vector<int64_t>>();
            const auto theirTypes = j["token_type_ids"].get<std::vector<int64_t>>();
            ++n;
            truncated += o.truncated ? 1 : 0;
            if (r.pair && bothTextsLongerThanHalf(o.types, maxSeqLength)) {
                checkLongPairKeepsTheSameTokens(o, theirs, theirTypes, vocab);
                if (QTest::currentTestFailed())
                    return;
                ++longPairs;
                continue;
            }
            checkSameIds(o.ids, theirs, vocab, n - 1, r.pair);
            if (QTest::currentTestFailed())
                return;
            QCOMPARE(theirTypes, o.types);
        }
        QCOMPARE(n, rows.size());
        QVERIFY(longPairs > 0 && longPairs < 30); // the other pairs are compared exactly
        QVERIFY2(truncated > 50, "the comparison should include truncated texts");
    }
};

QTEST_GUILESS_MAIN(tst_HfTokenizerJson)
#include "tst_hftokenizerjson.moc"
