// SPDX-License-Identifier: Apache-2.0
// Issue 46: corrections.jsonl (core/prepare/corrections.h): the writer's exact lines, the reader
// back, and the reader's errors naming the file, line and key.
#include "core/prepare/corrections.h"
#include "core/prepare/dataprep.h"
#include "core/util/error.h"

#include <QtTest>

#include <algorithm>
#include <fstream>
#include <regex>

using namespace wb;

class tst_Corrections : public QObject
{
    Q_OBJECT

    static constexpr const char *kVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n";

    // Writes `text` to root/rel, creating its folder.
    static void writeFile(const std::string &root, const std::string &rel, const std::string &text)
    {
        QDir().mkpath(QFileInfo(QString::fromStdString(root + "/" + rel)).absolutePath());
        std::ofstream(root + "/" + rel, std::ios::binary) << text;
    }

    // prepare's options for the small inputs here: root/vocab.txt, 16 tokens, no baseline.
    static PrepareOptions smallOptions(const std::string &root, const std::string &input, double evalFraction)
    {
        PrepareOptions o;
        o.input_data_dir = root + "/" + input;
        o.vocab_file = root + "/vocab.txt";
        o.max_seq_length = 16;
        o.eval_fraction = evalFraction;
        o.bag_of_words_baseline = false;
        o.output_dir = root + "/before";
        return o;
    }

    // The error parseCorrections throws for `text`, as "field | message".
    static std::string errorOf(const std::string &text)
    {
        try {
            parseCorrections(text, "c.jsonl");
        } catch (const Error &e) {
            return e.field() + " | " + e.what();
        }
        return "no error";
    }

private Q_SLOTS:
    void writtenLinesReadBack()
    {
        Correction a;
        a.file = "reviews.csv";
        a.line = 7;
        a.index = 17;
        a.label = "pos";
        a.suggested_label = "neg";
        a.decision = CorrectionDecision::Accepted;
        a.corrected_label = "neg";
        a.time = "2026-12-05T18:20:00Z";
        Correction b;
        b.file = "ham/0042.txt";
        b.index = 3;
        b.label = "ham";
        b.suggested_label = "spam";
        b.decision = CorrectionDecision::Rejected;
        b.corrected_label = "ignored";
        const std::string text = correctionsJsonl({a, b});
        QCOMPARE(text, std::string("{\"file\":\"reviews.csv\",\"line\":7,\"index\":17,\"label\":\"pos\","
                                   "\"suggested_label\":\"neg\",\"decision\":\"accepted\",\"corrected_label\":\"neg\","
                                   "\"time\":\"2026-12-05T18:20:00Z\"}\n"
                                   "{\"file\":\"ham/0042.txt\",\"index\":3,\"label\":\"ham\",\"suggested_label\":\"spam\","
                                   "\"decision\":\"rejected\"}\n"));
        const std::vector<Correction> back = parseCorrections("\n" + text, "c.jsonl");
        QCOMPARE(back.size(), size_t(2));
        QCOMPARE(back[0].source_line, int64_t(2));
        QCOMPARE(back[0].line, int64_t(7));
        QCOMPARE(back[0].corrected_label, std::string("neg"));
        QVERIFY(back[0].relabels());
        QCOMPARE(back[1].line, int64_t(0));
        QCOMPARE(back[1].decision, CorrectionDecision::Rejected);
        QCOMPARE(back[1].corrected_label, std::string());
        QVERIFY(!back[1].relabels());
        // An accepted line may leave corrected_label out: it is the suggestion.
        const auto c = parseCorrections(R"({"file":"f","label":"a","suggested_label":"b","decision":"accepted"})",
                                        "c.jsonl");
        QCOMPARE(c[0].corrected_label, std::string("b"));
        QVERIFY(std::regex_match(correctionTimeNow(), std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")));
    }

    void errorsNameTheLineAndKey()
    {
        QCOMPARE(errorOf("{\"file\":\"f\"\n"), std::string("c.jsonl:1 | is not a JSON object"));
        QCOMPARE(errorOf("\n{\"label\":\"a\",\"decision\":\"rejected\"}"),
                 std::string("c.jsonl:2: file | is missing (expected a string)"));
        QCOMPARE(errorOf(R"({"file":"f","line":0,"label":"a","decision":"rejected"})"),
                 std::string("c.jsonl:1: line | is 0, expected an integer ≥ 1"));
        QCOMPARE(errorOf(R"({"file":"f","label":3,"decision":"rejected"})"),
                 std::string("c.jsonl:1: label | is number, expected a string"));
        QCOMPARE(errorOf(R"({"file":"f","label":"a","decision":"maybe"})"),
                 std::string("c.jsonl:1: decision | is 'maybe', expected suggested, accepted, rejected, changed or removed"));
        QCOMPARE(errorOf(R"({"file":"f","label":"a","decision":"accepted"})"),
                 std::string("c.jsonl:1: suggested_label | an accepted correction has no suggested_label"));
        QCOMPARE(errorOf(R"({"file":"f","label":"a","suggested_label":"b","decision":"accepted","corrected_label":"c"})"),
                 std::string("c.jsonl:1: corrected_label | is 'c' but the accepted suggestion is 'b'"));
        QCOMPARE(errorOf(R"({"file":"f","label":"a","decision":"changed"})"),
                 std::string("c.jsonl:1: corrected_label | a changed correction has no corrected_label"));
        QCOMPARE(errorOf(R"({"file":"f","label":"a","decision":"removed","corrected_label":"b"})"),
                 std::string("c.jsonl:1: corrected_label | a removed row takes no corrected_label ('b')"));
    }

    /// mergeCorrections: decided rows keep their lines, undecided ones take the listing's in
    /// place, new rows come last, other rows stay; the counts say so.
    void mergeKeepsDecisions()
    {
        auto line = [](int64_t n, CorrectionDecision d) {
            Correction c;
            c.file = "mail.csv";
            c.line = n;
            c.label = "ham";
            c.suggested_label = "spam";
            c.decision = d;
            return c;
        };
        using D = CorrectionDecision;
        const MergedCorrections m = mergeCorrections({line(3, D::Rejected), line(5, D::Suggested), line(9, D::Accepted)},
                                                     {line(5, D::Removed), line(9, D::Removed), line(12, D::Removed)});
        QCOMPARE(m.lines.size(), size_t(4));
        QCOMPARE(m.lines[0].line, int64_t(3));
        QCOMPARE(m.lines[0].decision, D::Rejected);
        QCOMPARE(m.lines[1].line, int64_t(5));
        QCOMPARE(m.lines[1].decision, D::Removed);
        QCOMPARE(m.lines[2].decision, D::Accepted); // decided before: kept
        QCOMPARE(m.lines[3].line, int64_t(12));
        QCOMPARE(m.written, size_t(2));
        QCOMPARE(m.kept_decided, size_t(1));
        QCOMPARE(m.kept_other, size_t(1));
    }

    /// A removed line: written without corrected_label, read back as Removed (neither relabels).
    void removedLinesReadBack()
    {
        Correction r;
        r.file = "mail.csv";
        r.line = 12;
        r.label = "ham";
        r.suggested_label = "spam";
        r.decision = CorrectionDecision::Removed;
        const std::string text = correctionsJsonl({r});
        QCOMPARE(text, std::string("{\"file\":\"mail.csv\",\"line\":12,\"label\":\"ham\",\"suggested_label\":\"spam\","
                                   "\"decision\":\"removed\"}\n"));
        const auto back = parseCorrections(text, "c.jsonl");
        QCOMPARE(back[0].decision, CorrectionDecision::Removed);
        QVERIFY(back[0].removes());
        QVERIFY(!back[0].relabels());
        QCOMPARE(back[0].corrected_label, std::string());
    }

    /// A folder-per-label input: a correction names the file (no line), through prepareData.
    void foldersAreCorrectedByFile()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        auto write = [&root](const std::string &rel, const std::string &text) { writeFile(root, rel, text); };
        write("vocab.txt", kVocab);
        for (int i = 0; i < 5; ++i) {
            write("in/ham/" + std::to_string(i) + ".txt", "hello " + std::to_string(i));
            write("in/spam/" + std::to_string(i) + ".txt", "spam " + std::to_string(i));
        }
        PrepareOptions o = smallOptions(root, "in", 0);
        const PrepareReport before = prepareData(o);
        write("c.jsonl", "{\"file\":\"spam/3.txt\",\"label\":\"spam\",\"decision\":\"changed\","
                         "\"corrected_label\":\"ham\"}\n");
        o.output_dir = root + "/after";
        o.split_file = before.split_path;
        o.corrections_file = root + "/c.jsonl";
        const PrepareReport after = prepareData(o);
        QCOMPARE(after.corrected_rows.size(), size_t(1));
        QCOMPARE(after.corrected_rows[0].where, std::string("spam/3.txt"));
        QCOMPARE(after.corrected_rows[0].decision, std::string("changed"));
        QCOMPARE(after.corrected_rows[0].correction_line, int64_t(1));
        QCOMPARE(after.train_label_counts.at("ham"), int64_t(6));
        QCOMPARE(after.train_label_counts.at("spam"), int64_t(4));
        std::ifstream split(after.split_path);
        const std::string text((std::istreambuf_iterator<char>(split)), {});
        QVERIFY2(std::regex_search(text, std::regex(R"(\{"file":"spam/3.txt","split":"train","index":\d+,"label":"ham",)"
                                                    R"("label_as_given":"spam"\})")),
                 text.c_str());
    }

    /// Removed rows are left out of the records, listed as skipped in split.jsonl with the line
    /// that removed them, counted in the report (read back from prepare_report.json), and a
    /// removed eval row of the split file is warned about.
    void removedRowsAreLeftOut()
    {
        QTemporaryDir dir;
        const std::string root = dir.path().toStdString();
        auto write = [&root](const std::string &rel, const std::string &text) { writeFile(root, rel, text); };
        write("vocab.txt", kVocab);
        std::string csv = "text,label\n";
        for (int i = 0; i < 10; ++i)
            csv += "hello " + std::to_string(i) + ",ham\nspam " + std::to_string(i) + ",spam\n";
        write("in.csv", csv);
        PrepareOptions o = smallOptions(root, "in.csv", 0.2);
        o.classification_task_name = "csv";
        const PrepareReport before = prepareData(o);
        // One train and one eval row of the split, by their lines.
        int64_t trainLine = 0, evalLine = 0;
        std::string trainLabel, evalLabel;
        for (const SplitRow &r : readSplitRows(before.split_path)) {
            if (r.split == "train" && !trainLine)
                trainLine = r.line, trainLabel = r.label;
            if (r.split == "eval" && !evalLine)
                evalLine = r.line, evalLabel = r.label;
        }
        QVERIFY(trainLine && evalLine);
        write("c.jsonl", "{\"file\":\"in.csv\",\"line\":" + std::to_string(trainLine) + ",\"label\":\"" + trainLabel
                             + "\",\"decision\":\"removed\"}\n{\"file\":\"in.csv\",\"line\":" + std::to_string(evalLine)
                             + ",\"label\":\"" + evalLabel + "\",\"decision\":\"removed\"}\n");
        o.output_dir = root + "/after";
        o.split_file = before.split_path;
        o.corrections_file = root + "/c.jsonl";
        const PrepareReport after = prepareData(o);
        QCOMPARE(after.removed_rows.size(), size_t(2));
        QCOMPARE(after.removed_rows[0].where, "in.csv:" + std::to_string(trainLine));
        QCOMPARE(after.removed_rows[0].label, trainLabel);
        QCOMPARE(after.removed_rows[1].correction_line, int64_t(2));
        QCOMPARE(after.corrected_rows.size(), size_t(0));
        QCOMPARE(after.train_examples, before.train_examples - 1);
        QCOMPARE(after.eval_examples, before.eval_examples - 1);
        QCOMPARE(after.train_label_counts.at(trainLabel), before.train_label_counts.at(trainLabel) - 1);
        std::ifstream split(after.split_path);
        const std::string text((std::istreambuf_iterator<char>(split)), {});
        const std::string skipped = "{\"file\":\"in.csv\",\"line\":" + std::to_string(trainLine)
            + ",\"split\":\"skipped\",\"reason\":\"removed by " + root + "/c.jsonl:1\"}";
        QVERIFY2(text.find(skipped) != std::string::npos, text.c_str());
        const auto warned = std::find_if(after.warnings.begin(), after.warnings.end(), [](const std::string &w) {
            return w.find("removed row(s) are in the eval set") != std::string::npos;
        });
        QVERIFY(warned != after.warnings.end());
        for (const std::string &w : after.warnings) // listed with the corrections, not as skipped rows
            QVERIFY2(w.find("row(s) skipped") == std::string::npos, w.c_str());
        QCOMPARE(after.skipped_rows, int64_t(2));
        QCOMPARE(*warned, "1 removed row(s) are in the eval set of " + before.split_path + " (in.csv:"
                              + std::to_string(evalLine) + "): the eval set lost them, so a run before the corrections "
                              "and one after are not scored on the same rows");
        const std::optional<PrepareReport> read = readPrepareReport(after.meta_path);
        QVERIFY(read);
        QCOMPARE(read->removed_rows.size(), size_t(2));
        QCOMPARE(read->removed_rows[1].where, "in.csv:" + std::to_string(evalLine));
        QCOMPARE(read->removed_rows[1].decision, std::string("removed"));
    }
};

QTEST_APPLESS_MAIN(tst_Corrections)
#include "tst_corrections.moc"
