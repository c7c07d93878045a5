// SPDX-License-Identifier: Apache-2.0
#include "core/tokenize/fulltokenizer.h"
#include "core/tokenize/unicodetext.h"
#include "core/util/error.h"

#include "hex.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>

using namespace wb;

namespace {

using wbtest::fromHex;

std::string vocabPath()
{
    return std::string(WB_SHARED_DATA_DIR) + "/vocab/bert-base-uncased-vocab.txt";
}

} // namespace

class tst_Tokenizer : public QObject
{
    Q_OBJECT

    std::unique_ptr<FullTokenizer> m_bert;

private Q_SLOTS:
    void initTestCase()
    {
        if (QFile::exists(QString::fromStdString(vocabPath())))
            m_bert = std::make_unique<FullTokenizer>(vocabPath(), true);
    }

    void toyVocabWordpiece()
    {
        // The example of google-research/bert's docstring.
        FullTokenizer tok(Vocab::fromTokens({"[UNK]", "[CLS]", "[SEP]", "want", "##want", "##ed", "wa", "un",
                                             "runn", "##ing", ",", "##aff", "##able", "low", "##est"}),
                          true);
        QCOMPARE(tok.tokenize("unaffable"), (std::vector<std::string>{"un", "##aff", "##able"}));
        QCOMPARE(tok.tokenize("UNwant\u00E9d,running"),
                 (std::vector<std::string>{"un", "##want", "##ed", ",", "runn", "##ing"}));
        QCOMPARE(tok.tokenize("lowest"), (std::vector<std::string>{"low", "##est"}));
        // No piece matches inside the word: the whole word is one [UNK].
        QCOMPARE(tok.tokenize("unx"), (std::vector<std::string>{"[UNK]"}));
        QCOMPARE(tok.tokenizeToIds("want wanted"), (std::vector<int32_t>{3, 3, 5}));
    }

    void casedKeepsAccents()
    {
        FullTokenizer tok(Vocab::fromTokens({"[UNK]", "Caf\u00E9", "cafe", "Hello"}), false);
        QCOMPARE(tok.tokenize("Caf\u00E9 Hello cafe"), (std::vector<std::string>{"Caf\u00E9", "Hello", "cafe"}));
    }

    void maxInputCharsPerWord()
    {
        FullTokenizer tok(Vocab::fromTokens({"[UNK]", "a", "##a"}), true, 5);
        QCOMPARE(tok.tokenize("aaaaa").size(), size_t(5));
        QCOMPARE(tok.tokenize("aaaaaa"), (std::vector<std::string>{"[UNK]"}));
    }

    void limitGivesPrefix()
    {
        if (!m_bert)
            QSKIP("shared vocab not available");
        const std::string text = "Subject: Make money fast!!! Click http://spam.example.com now, "
                                 "\u00FCber-cheap ΣΟΦΟΣ 中文 offers inside.";
        const auto all = m_bert->tokenizeToIds(text);
        QVERIFY(all.size() > 20);
        for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(17), all.size() - 1, all.size(), all.size() + 5}) {
            const auto part = m_bert->tokenizeToIds(text, n);
            QCOMPARE(part.size(), std::min(n, all.size()));
            QVERIFY(std::equal(part.begin(), part.end(), all.begin()));
        }
    }

    void corpus_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QStringList>("expected");
        std::ifstream in(std::string(WB_TEST_DATA_DIR) + "/tokenizer_cases.jsonl");
        QVERIFY(in);
        std::string line;
        while (std::getline(in, line)) {
            const auto j = nlohmann::json::parse(line);
            QStringList expected;
            for (const auto &t : j["tokens"])
                expected << QString::fromStdString(t.get<std::string>());
            const std::string bytes = fromHex(j["hex"].get<std::string>());
            QTest::newRow(j["name"].get<std::string>().c_str())
                << QByteArray(bytes.data(), int(bytes.size())) << expected;
        }
    }

    void corpus()
    {
        if (!m_bert)
            QSKIP("shared vocab not available");
        QFETCH(QByteArray, input);
        QFETCH(QStringList, expected);
        QStringList got;
        for (const auto &t : m_bert->tokenize(std::string_view(input.constData(), size_t(input.size()))))
            got << QString::fromStdString(t);
        QCOMPARE(got, expected);
    }

    void specialIds()
    {
        if (!m_bert)
            QSKIP("shared vocab not available");
        const Vocab &v = m_bert->vocab();
        QCOMPARE(v.size(), int64_t(30522));
        QCOMPARE(v.id("[PAD]"), 0);
        QCOMPARE(v.id("[UNK]"), 100);
        QCOMPARE(v.id("[CLS]"), 101);
        QCOMPARE(v.id("[SEP]"), 102);
        QCOMPARE(v.id("[MASK]"), 103);
        QCOMPARE(m_bert->tokenizeToIds("hello world"), (std::vector<int32_t>{7592, 2088}));
        QVERIFY_THROWS_EXCEPTION(Error, v.id("[NOPE]"));
    }

    void lenientUtf8()
    {
        size_t dropped = 0;
        QCOMPARE(decodeUtf8Lenient("a\xC3\xA9\xFF" "b\xE2\x82", &dropped), std::u32string(U"a\u00E9b"));
        QCOMPARE(dropped, size_t(3));
        QVERIFY(isValidUtf8("na\xC3\xAFve"));
        QVERIFY(!isValidUtf8("\xED\xA0\x80")); // surrogate
        QVERIFY(!isValidUtf8("\xC0\xAF"));     // overlong
        QCOMPARE(encodeUtf8(U"\U0001F600x"), std::string("\xF0\x9F\x98\x80x"));
    }

    void missingVocab()
    {
        try {
            FullTokenizer tok("/nonexistent/vocab.txt", true);
            QFAIL("no exception");
        } catch (const Error &e) {
            QCOMPARE(e.field(), std::string("/nonexistent/vocab.txt"));
            QVERIFY(std::string(e.what()).find("cannot open") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(Error, FullTokenizer(Vocab::fromTokens({"a", "b"}), true)); // no [UNK]
    }

    // A folder is named as a folder (not "empty"), with the vocab.txt inside it when there is one.
    void vocabFolderIsNamed()
    {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        const auto errorOf = [&]() -> std::pair<std::string, std::string> {
            try {
                Vocab::load(folder);
            } catch (const Error &e) {
                return {e.what(), e.hint()};
            }
            return {};
        };
        auto [message, hint] = errorOf();
        QCOMPARE(message, std::string("is a folder, not a vocab file"));
        QVERIFY2(hint.find("that belongs to the model") != std::string::npos, hint.c_str());
        std::ofstream(folder + "/vocab.txt") << "[UNK]\na\n";
        std::tie(message, hint) = errorOf();
        QVERIFY2(hint.find("=" + folder + "/vocab.txt") != std::string::npos, hint.c_str());
    }
};

QTEST_APPLESS_MAIN(tst_Tokenizer)
#include "tst_tokenizer.moc"
