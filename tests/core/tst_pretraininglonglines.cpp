// SPDX-License-Identifier: Apache-2.0
// Lines longer than the pretraining reader's limit (1 MiB, core/corpus/pretrainingtext.h) in every
// format it reads: cut between tokens, so the corpus tokenizes as a whole; counted and reported
// (prepare_report.json long_line_*). A single word longer than the limit is cut inside and
// counted apart.
#include "core/tokenize/fulltokenizer.h"
#include "core/corpus/pretrainingdata.h"
#include "core/data/pretrainingrecord.h"
#include "core/corpus/pretrainingtext.h"
#include "core/data/tfrecordreader.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

using namespace wb;
namespace fs = std::filesystem;

namespace {

constexpr size_t kMiB = size_t(1) << 20;

// Cased (do_lower_case false), so that the multi-byte words stay as written.
const char *const kVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\ncan\nthe\na\nab\nwords\n"
                           "caf\xC3\xA9\nna\xC3\xAFve\n\xCE\xA9\xCE\xBC\xCE\xAD\xCE\xB3\xCE\xB1\n"
                           "\xE6\x97\xA5\n\xE6\x9C\xAC\n";

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

// A line without line breaks of words of the vocabulary (1 to 15 bytes, ASCII and 2-, 3-byte
// UTF-8, separated by a space, two spaces or a tab) in which given words begin at given byte
// offsets (counted from `base`), so that they straddle the reader's 1 MiB limits and blocks.
class LongLine
{
public:
    /// `tabs`: some gaps are a tab (not in TSV fields and JSON strings).
    explicit LongLine(uint64_t base, bool tabs = true) : m_base(base), m_tabs(tabs) {}

    /// Appends words until the next one would begin at `offset` - m_base, then `word`.
    void put(uint64_t offset, const std::string &word)
    {
        QVERIFY(offset >= m_base + m_text.size() + 64);
        const size_t target = size_t(offset - m_base);
        static const char *const kWords[] = {"can", "the", "a", "ab", "words", "caf\xC3\xA9", "na\xC3\xAFve",
                                             "\xCE\xA9\xCE\xBC\xCE\xAD\xCE\xB3\xCE\xB1", "\xE6\x97\xA5\xE6\x9C\xAC"};
        static const char *const kGaps[] = {" ", " ", " ", "  ", "\t"};
        while (target - m_text.size() > 50) {
            m_text += kWords[m_next % 9];
            m_text += kGaps[m_next % (m_tabs ? 5 : 4)];
            ++m_next;
        }
        while (m_text.size() < target) // 38..50 bytes left: "ab " (3) once when odd, then "a " (2)
            m_text += (target - m_text.size()) % 2 ? "ab " : "a ";
        QCOMPARE(m_text.size(), target);
        m_text += word + " ";
    }
    const std::string &text() const { return m_text; }

private:
    uint64_t m_base;
    bool m_tabs;
    std::string m_text;
    size_t m_next = 0;
};

std::vector<int32_t> tokensOf(const FullTokenizer &tok, const std::vector<std::string> &texts)
{
    std::vector<int32_t> ids;
    for (const std::string &t : texts) {
        const std::vector<int32_t> v = tok.tokenizeToIds(t);
        ids.insert(ids.end(), v.begin(), v.end());
    }
    return ids;
}

// Every sentence the reader gives for `input` (format "auto"), and the reader's counts.
struct ReadResult
{
    std::vector<std::string> sentences;
    int64_t linesSplit = 0, cuts = 0, cutsInsideAWord = 0;
    std::vector<PretrainingLineSplit> splits;
};

ReadResult readAll(const std::string &input)
{
    PretrainingTextReader reader({input}, "auto", "");
    ReadResult r;
    PretrainingTextDocument d;
    while (reader.next(d))
        for (std::string &s : d.sentences) {
            if (s.size() > PretrainingTextReader::kMaxSentenceBytes)
                qWarning("a sentence of %zu bytes", s.size());
            r.sentences.push_back(std::move(s));
        }
    r.linesSplit = reader.linesSplit();
    r.cuts = reader.lineCuts();
    r.cutsInsideAWord = reader.lineCutsInsideAWord();
    r.splits = reader.lineSplits();
    return r;
}

bool separatesAt(const std::string &text, uint64_t offset)
{
    auto blank = [](char c) { return c == ' ' || c == '\t'; };
    return offset > 0 && offset < text.size() && (blank(text[offset]) || blank(text[offset - 1]));
}

} // namespace

class tst_PretrainingLongLines : public QObject
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

    // Line 1: > 1 MiB, "can" across its first 1 MiB. Line 2: > 2 MiB, "café" with its é across
    // 1 MiB of the line, "naïve" with its ï across 2 MiB - 1, "Ωμέγα" and "日本" across the file's
    // read blocks (2 and 3 MiB of the file) in the middle of a character.
    std::vector<std::string> plainLines()
    {
        LongLine one(0);
        one.put(kMiB - 1, "can");
        one.put(kMiB + 3001 - 40, "the");
        const uint64_t s2 = one.text().size() + 1;
        LongLine two(s2);
        two.put(2 * kMiB - 3, "\xCE\xA9\xCE\xBC\xCE\xAD\xCE\xB3\xCE\xB1");
        two.put(s2 + kMiB - 4, "caf\xC3\xA9");
        two.put(3 * kMiB - 4, "\xE6\x97\xA5\xE6\x9C\xAC");
        two.put(s2 + 2 * kMiB - 3, "na\xC3\xAFve");
        two.put(s2 + 2 * kMiB + 2000, "words");
        return {one.text(), two.text(), "the can", "words ab"};
    }

private Q_SLOTS:
    void tokenBoundaryCutFindsASeparator()
    {
        bool inside = true;
        QCOMPARE(tokenBoundaryCut("ab cd", 3, inside), size_t(3)); // "ab " | "cd"
        QVERIFY(!inside);
        QCOMPARE(tokenBoundaryCut("ab cd", 2, inside), size_t(2)); // "ab" | " cd"
        QCOMPARE(tokenBoundaryCut("a bcdef", 4, inside), size_t(2));
        QVERIFY(!inside);
        QCOMPARE(tokenBoundaryCut("abc", 5, inside), size_t(3)); // not longer: whole
        // Beside a CJK ideograph (a token of its own), and at a no-break space (Zs).
        QCOMPARE(tokenBoundaryCut("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", 4, inside), size_t(3));
        QVERIFY(!inside);
        QCOMPARE(tokenBoundaryCut("ab\xC2\xA0" "cdef", 5, inside), size_t(4));
        QVERIFY(!inside);
        // \f is a control character for BERT (dropped, not separating): no cut there.
        QCOMPARE(tokenBoundaryCut("ab\fcdef", 5, inside), size_t(5));
        QVERIFY(inside);
        // One word longer than the limit: at the last character boundary, counted as inside.
        QCOMPARE(tokenBoundaryCut("ab\xC3\xA9" "cd", 3, inside), size_t(2));
        QVERIFY(inside);
        QCOMPARE(tokenBoundaryCut("abcdef", 3, inside), size_t(3));
        QVERIFY(inside);
        // Bytes that are not UTF-8: never 0, never past the limit.
        QCOMPARE(tokenBoundaryCut("\x80\x80\x80\x80\x80", 3, inside), size_t(3));
        // Beside punctuation (a token of its own): "can," | "house", not "can,ho" | "use".
        QCOMPARE(tokenBoundaryCut("can,house", 6, inside), size_t(4));
        QVERIFY(!inside);
        QCOMPARE(tokenBoundaryCut("can(house", 6, inside), size_t(4));
        QVERIFY(!inside);
        // Not beside a case-ignorable one ('.', '\'', ':'): lower-casing reads across those
        // (final sigma), so "ΑΣ.Β" keeps its σ: the cut falls before, between "ab" and ",".
        QCOMPARE(tokenBoundaryCut("ab,\xCE\x91\xCE\xA3.\xCE\x92" "cd", 9, inside), size_t(3));
        QVERIFY(!inside);
        QCOMPARE(tokenBoundaryCut("abc.def", 5, inside), size_t(5));
        QVERIFY(inside);
    }

    /// A long line without blanks but with punctuation (text from tables, URLs, dumps) is cut
    /// beside a punctuation character: the same tokens as the whole line, no cut inside a word.
    void punctuationLongLineKeepsEveryToken()
    {
        std::string line;
        while (line.size() < PretrainingTextReader::kMaxSentenceBytes * 3 / 2)
            line += "can,house;";
        const std::string in = dir() + "/punct.txt";
        writeFile(in, line + "\n");
        const FullTokenizer tok(vocab(), false);
        const ReadResult r = readAll(in);
        QCOMPARE(r.linesSplit, int64_t(1));
        QVERIFY(r.cuts >= 1);
        QCOMPARE(r.cutsInsideAWord, int64_t(0));
        QVERIFY(tokensOf(tok, r.sentences) == tokensOf(tok, {line}));
    }

    /// Plain text: lines of more than 1 and 2 MiB with words across every limit and read block
    /// give the tokens of the whole lines; the split lines are counted with where they were cut.
    void plainTextLongLinesKeepEveryToken()
    {
        const std::vector<std::string> lines = plainLines();
        std::string text;
        for (const std::string &l : lines)
            text += l + "\n";
        const std::string in = dir() + "/long.txt";
        writeFile(in, text);
        const FullTokenizer tok(vocab(), false);
        const std::vector<int32_t> whole = tokensOf(tok, lines);
        QCOMPARE(std::count(whole.begin(), whole.end(), 1), 0L); // every word is in the vocabulary

        const ReadResult r = readAll(in);
        QVERIFY(tokensOf(tok, r.sentences) == whole);
        for (const std::string &s : r.sentences)
            QVERIFY(s.size() <= PretrainingTextReader::kMaxSentenceBytes);
        QCOMPARE(r.linesSplit, int64_t(2));
        QCOMPARE(r.cuts, int64_t(3));
        QCOMPARE(r.cutsInsideAWord, int64_t(0));
        QCOMPARE(r.splits.size(), size_t(2));
        QCOMPARE(r.splits[0].where, in + ":1");
        QCOMPARE(r.splits[1].where, in + ":2");
        QCOMPARE(r.splits[0].cuts, int64_t(1));
        QCOMPARE(r.splits[1].cuts, int64_t(2));
        QCOMPARE(r.splits[1].cut_offsets.size(), size_t(2));
        for (size_t l = 0; l < 2; ++l)
            for (const uint64_t at : r.splits[l].cut_offsets)
                QVERIFY2(separatesAt(lines[l], at), qPrintable(QString::number(at)));
        QVERIFY(r.splits[0].cut_offsets[0] <= kMiB && r.splits[0].cut_offsets[0] > kMiB - 64);

        // End to end: the report counts the tokens of the whole lines and the split lines; the
        // records hold exactly those tokens.
        PretrainingDataOptions o;
        o.input_files = {in};
        o.vocab_file = vocab();
        o.do_lower_case = false;
        o.max_seq_length = 512;
        o.short_seq_prob = 0.0;
        o.eval_fraction = 0.0;
        o.output_dir = dir() + "/out";
        const PretrainingDataReport rep = preparePretrainingData(o);
        QCOMPARE(rep.tokens, int64_t(whole.size()));
        QCOMPARE(rep.unk_tokens, int64_t(0));
        QCOMPARE(rep.long_lines_split, int64_t(2));
        QCOMPARE(rep.long_line_cuts, int64_t(3));
        QCOMPARE(rep.long_line_cuts_inside_a_word, int64_t(0));
        std::map<int64_t, int64_t> want, got;
        for (const int32_t id : whole)
            ++want[id];
        TFRecordReader records(dir() + "/out/train.tf_record");
        std::string payload;
        while (records.read(payload)) {
            PretrainingRecord rec;
            decodePretrainingRecord(payload, {512, 20, false, 0}, rec);
            for (size_t i = 0; i < rec.input_ids.size(); ++i)
                if (rec.input_mask[i] && rec.input_ids[i] != 2 && rec.input_ids[i] != 3)
                    ++got[rec.input_ids[i]];
        }
        QVERIFY(got == want);
        const auto rj = nlohmann::json::parse(readFile(dir() + "/out/prepare_report.json"));
        QCOMPARE(rj["long_lines_split"].get<int64_t>(), int64_t(2));
        QCOMPARE(rj["long_line_cuts"].get<int64_t>(), int64_t(3));
        QCOMPARE(rj["long_line_cuts_inside_a_word"].get<int64_t>(), int64_t(0));
        QCOMPARE(rj["long_line_splits"].size(), size_t(2));
        QCOMPARE(rj["long_line_splits"][1]["where"].get<std::string>(), in + ":2");
        QCOMPARE(rj["long_line_splits"][1]["cut_offsets"].get<std::vector<uint64_t>>(), r.splits[1].cut_offsets);
        QVERIFY(rep.warnings.empty() || rep.warnings.front().find("inside a word") == std::string::npos);
    }

    /// CSV, TSV and JSONL: a row whose text is a line of more than 2 MiB is cut between tokens
    /// too, and counted with the row's file:line and offsets within the text.
    void rowsWithLongTextsKeepEveryToken_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("csv") << "rows.csv";
        QTest::newRow("tsv") << "rows.tsv";
        QTest::newRow("jsonl") << "rows.jsonl";
    }
    void rowsWithLongTextsKeepEveryToken()
    {
        QFETCH(QString, name);
        LongLine line(0, false);
        line.put(kMiB - 2, "caf\xC3\xA9");
        line.put(2 * kMiB - 2, "can");
        line.put(2 * kMiB + 500, "words");
        const std::string &t = line.text();
        const std::string in = dir() + "/" + name.toStdString();
        if (name.endsWith(QLatin1String(".csv")))
            writeFile(in, "id,text\n1,the can\n2,\"" + t + "\"\n3,words\n");
        else if (name.endsWith(QLatin1String(".tsv")))
            writeFile(in, "id\ttext\n1\tthe can\n2\t" + t + "\n3\twords\n");
        else
            writeFile(in, "{\"text\": \"the can\"}\n{\"text\": \"" + t + "\"}\n{\"text\": \"words\"}\n");
        const FullTokenizer tok(vocab(), false);
        const ReadResult r = readAll(in);
        QVERIFY(tokensOf(tok, r.sentences) == tokensOf(tok, {"the can", t, "words"}));
        QCOMPARE(r.linesSplit, int64_t(1));
        QCOMPARE(r.cuts, int64_t(2));
        QCOMPARE(r.cutsInsideAWord, int64_t(0));
        QCOMPARE(r.splits.size(), size_t(1));
        QCOMPARE(r.splits[0].where, in + (name.endsWith(QLatin1String(".jsonl")) ? ":2" : ":3"));
        for (const uint64_t at : r.splits[0].cut_offsets)
            QVERIFY2(separatesAt(t, at), qPrintable(QString::number(at)));
    }

    /// A "word" of more than 1 MiB (no whitespace) is cut at a character boundary and counted
    /// apart; the report warns.
    void aWordLongerThanTheLimitIsCountedApart()
    {
        std::string word;
        while (word.size() < kMiB + 1000)
            word += "\xC3\xBC"; // ü: the cut must fall between two characters
        const std::string in = dir() + "/word.txt";
        writeFile(in, "the " + word + " can\nwords\n");
        const ReadResult r = readAll(in);
        // "the " | the first 1 MiB of the word (inside it) | the rest and " can".
        QCOMPARE(r.linesSplit, int64_t(1));
        QCOMPARE(r.cuts, int64_t(2));
        QCOMPARE(r.cutsInsideAWord, int64_t(1));
        QCOMPARE(r.splits[0].cuts_inside_a_word, int64_t(1));
        QCOMPARE(r.splits[0].cut_offsets, (std::vector<uint64_t>{4, 4 + kMiB}));
        for (const std::string &s : r.sentences)
            QCOMPARE(firstInvalidUtf8(s), std::string_view::npos);

        PretrainingDataOptions o;
        o.input_files = {in};
        o.vocab_file = vocab();
        o.do_lower_case = false;
        o.max_seq_length = 16;
        o.max_predictions_per_seq = 4;
        o.eval_fraction = 0.0;
        o.output_dir = dir() + "/word";
        const PretrainingDataReport rep = preparePretrainingData(o);
        QCOMPARE(rep.long_line_cuts_inside_a_word, int64_t(1));
        QCOMPARE(rep.unk_tokens, int64_t(2)); // the word, in two parts (over max_input_chars_per_word either way)
        bool warned = false;
        for (const std::string &w : rep.warnings)
            warned = warned || (w.find("1 cut(s) inside a word") != std::string::npos && w.find(in + ":1") != std::string::npos);
        QVERIFY2(warned, rep.warnings.empty() ? "no warning" : rep.warnings.front().c_str());
    }
};

QTEST_GUILESS_MAIN(tst_PretrainingLongLines)
#include "tst_pretraininglonglines.moc"
