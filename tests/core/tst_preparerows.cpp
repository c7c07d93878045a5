// SPDX-License-Identifier: Apache-2.0
// prepareData()'s row, label and text rules on small CSV/TSV fixtures (docs/file-formats.md,
// "Raw text for Prepare data"): each case's exact error (file:line and text) or exact output.
#include "core/prepare/dataprep.h"
#include "core/data/examplecodec.h"
#include "core/config/labelnames.h"
#include "core/prepare/preparesource.h"
#include "core/data/tfrecordreader.h"
#include "core/util/digest.h"
#include "core/util/error.h"

#include "support/textfiles.h"

#include "core/config/fieldproblem.h"

#include <QtTest>

#include <fstream>

using namespace wb;
using wb::test::writeText;
using wb::test::readText;

namespace {

std::vector<int64_t> labelIds(const std::string &path)
{
    std::vector<int64_t> out;
    TFRecordReader r(path);
    std::string p;
    RecordSpec spec;
    spec.max_seq_length = 16;
    spec.num_labels = 10;
    spec.vocab_size = 100;
    spec.type_vocab_size = 2;
    while (r.read(p)) {
        ClassifierRecord rec;
        decodeClassifierRecord(p, spec, rec);
        out.push_back(rec.label_id);
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool anyContains(const std::vector<std::string> &v, const std::string &needle)
{
    return std::any_of(v.begin(), v.end(), [&](const std::string &s) { return s.find(needle) != std::string::npos; });
}

} // namespace

class tst_PrepareRows : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_vocab;
    int m_case = 0;

    // Writes `files` (name → content) into a fresh folder and returns options for it.
    PrepareOptions fixture(const std::vector<std::pair<QString, std::string>> &files, const std::string &task = "csv")
    {
        const QString dir = m_dir.path() + QStringLiteral("/case%1").arg(++m_case);
        for (const auto &[name, content] : files)
            writeText(dir + QLatin1Char('/') + name, content);
        PrepareOptions o;
        o.input_data_dir = files.size() == 1 ? (dir + QLatin1Char('/') + files[0].first).toStdString() : dir.toStdString();
        o.classification_task_name = task;
        o.vocab_file = m_vocab;
        o.max_seq_length = 16;
        o.eval_fraction = 0.0;
        o.output_dir = (dir + QStringLiteral("/out")).toStdString();
        return o;
    }

    std::string path(const std::string &name) const
    {
        return (m_dir.path() + QStringLiteral("/case%1/").arg(m_case)).toStdString() + name;
    }

    // Runs prepareData and returns the error; fails when there is none or outputs exist.
    /// The fixes of the last FieldError expectError caught: "option=value purpose" each, "; "
    /// between them, then " | recognised" when the problem lists what is recognised.
    std::string m_fixes;

    Error expectError(const PrepareOptions &o)
    {
        m_fixes.clear();
        try {
            prepareData(o);
        } catch (const FieldError &e) {
            for (const OptionFix &f : e.problem().fixes)
                m_fixes += (m_fixes.empty() ? "" : "; ") + f.option + "=" + f.value + (f.purpose.empty() ? "" : " " + f.purpose);
            if (!e.problem().recognised.empty())
                m_fixes += " | " + e.problem().recognised;
            return e;
        } catch (const Error &e) {
            if (QFile::exists(QString::fromStdString(o.output_dir + "/input_meta_data.json")))
                return Error("test", "outputs were written despite the error");
            return e;
        }
        return Error("test", "no error");
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_vocab = (m_dir.path() + QStringLiteral("/vocab.txt")).toStdString();
        writeText(QString::fromStdString(m_vocab), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\nbad\nmovie\nroom\n,\n");
    }

    /// Issue input 1: an unquoted comma in the text (header text,label).
    void unquotedCommaIsAnError()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\na quiet room,pos\n"
                                                           "noisy room, thin walls and a broken heater,neg\n"}});
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("a.csv") + ":3");
        QCOMPARE(std::string(e.what()), std::string("the row has 3 fields, the header has 2 ('text', 'label')"));
        // The row's fix is structured (FieldProblem): each front-end words skip_bad_rows itself.
        QCOMPARE(m_fixes, std::string("skip_bad_rows= to skip such rows"));
        QCOMPARE(e.hint(), std::string("Put the text in double quotes when it contains commas (\"noisy room, thin walls\"), "
                                       "or set skip_bad_rows on to skip such rows."));
    }

    /// Issue input 1, label column first: the text is no longer cut at the comma.
    void labelFirstUnquotedCommaIsAnError()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "label,text\npos,a quiet room\n"
                                                           "neg,noisy room, thin walls and a broken heater\n"}});
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("a.csv") + ":3");
        QCOMPARE(std::string(e.what()), std::string("the row has 3 fields, the header has 2 ('label', 'text')"));
    }

    /// --skip_bad_rows: the row is skipped and listed; quoted commas are text.
    void skipBadRowsListsEachRow()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "text,label\na quiet room,pos\n"
                                                     "noisy room, thin walls and a broken heater,neg\n"
                                                     "\"noisy room, thin walls\",neg\ngood movie,pos\n"}});
        o.skip_bad_rows = true;
        const PrepareReport r = prepareData(o);
        QCOMPARE(readText(r.labels_path), std::string("neg\npos\n"));
        QCOMPARE(r.train_examples, int64_t(3));
        QCOMPARE(r.skipped_rows, int64_t(1));
        QCOMPARE(r.skipped[0].where, path("a.csv") + ":3");
        QCOMPARE(r.skipped[0].reason, std::string("the row has 3 fields, the header has 2 ('text', 'label')"));
        QCOMPARE(labelIds(r.train_path), (std::vector<int64_t>{0, 1, 1}));
    }

    /// Issue input 2a: an empty label cell.
    void emptyLabelIsAnError()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood movie,1\nbad movie,0\nthe box was crushed,\n"}});
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("a.csv") + ":4");
        QCOMPARE(std::string(e.what()), std::string("the label is empty"));
    }

    /// Issue input 2b: 1, 1.0 and " 0" beside 0 and 1 are two classes.
    void numericLabelsAreUnified()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,0\nbad,1\nmovie,1.0\nroom, 0\ngood movie,1\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(readText(r.labels_path), std::string("0\n1\n"));
        QCOMPARE(r.labels, (std::vector<std::string>{"0", "1"}));
        QCOMPARE(labelIds(r.train_path), (std::vector<int64_t>{0, 0, 1, 1, 1}));
        QCOMPARE(r.train_label_counts.at("1"), int64_t(3));
        QVERIFY2(anyContains(r.warnings, "'1.0' first at " + path("a.csv") + ":4"), r.warnings.front().c_str());
    }

    /// Issue input 3: empty, space-only, "" and control-only texts are skipped and named.
    void emptyTextsAreSkipped()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood movie,pos\n,neg\nbad movie,neg\n   ,pos\n"
                                                           "good,pos\n\"\",neg\nbad,neg\n\x07,pos\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(4));
        QCOMPARE(r.empty_texts, int64_t(4));
        QCOMPARE(readText(r.labels_path), std::string("neg\npos\n"));
        std::vector<std::string> where;
        for (const auto &s : r.skipped)
            where.push_back(s.where);
        std::sort(where.begin(), where.end());
        QCOMPARE(where, (std::vector<std::string>{path("a.csv") + ":3", path("a.csv") + ":5", path("a.csv") + ":7",
                                                  path("a.csv") + ":9"}));
        QVERIFY(r.skipped[0].reason.find("empty after the tokenizer's clean-up") != std::string::npos);
    }

    void allTextsEmptyIsAnError()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\n,neg\n  ,pos\n"}});
        const Error e = expectError(o);
        QVERIFY2(std::string(e.what()).find("every text is empty after the tokenizer's clean-up (2 rows") == 0, e.what());
    }

    /// --label_list fixes the set and order; any other label names its row.
    void labelList()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,pos\nbad,neg\nmovie, pos\n"}});
        o.label_list = "pos,neg";
        PrepareReport r = prepareData(o);
        QCOMPARE(readText(r.labels_path), std::string("pos\nneg\n"));
        QCOMPARE(labelIds(r.train_path), (std::vector<int64_t>{0, 0, 1}));

        o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,pos\nbad,neutral\n"}});
        o.label_list = "pos,neg";
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("a.csv") + ":3");
        QCOMPARE(std::string(e.what()), std::string("the label 'neutral' is not one of the labels of --label_list (pos, neg)"));
    }

    /// A spreadsheet export: BOM, CRLF, ';' separator, quoted line breaks, trailing empty lines.
    void spreadsheetExport()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "\xEF\xBB\xBFtext;label\r\n\"good; movie\";pos\r\n"
                                                           "\"bad\r\nroom\";neg\r\n\r\n\r\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(2));
        QCOMPARE(r.texts_with_bom, int64_t(1));
        QCOMPARE(r.skipped_rows, int64_t(0));
        QVERIFY(anyContains(r.warnings, "separated by ';'"));
    }

    /// Invalid UTF-8 is read as Latin-1 and the row is named.
    void latin1RowIsNamed()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,pos\ncaf\xE9 room,neg\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.texts_latin1, int64_t(1));
        QVERIFY(anyContains(r.warnings, "read as Windows-1252 (Latin-1; check the file's encoding; save it as UTF-8): "
                                           + path("a.csv") + ":3"));
    }

    void headerOnlyIsAnError()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\n"}});
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("a.csv"));
        QCOMPARE(std::string(e.what()), std::string("the file has a header but no rows"));
    }

    /// A word among numeric labels (a shifted row) names its row.
    void wordInNumericLabelColumn()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,1\nbad,0\nmovie,1\nroom,positive\n"}});
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("a.csv") + ":5");
        QCOMPARE(std::string(e.what()),
                 std::string("the label 'positive' is a word, most labels in column 'label' are numbers"));
    }

    /// A class that is missing from the eval set, duplicates, and texts in both train and eval.
    void reportNamesGapsAndOverlaps()
    {
        const auto o = fixture({{QStringLiteral("train.csv"), "text,label\ngood movie,pos\nbad movie,neg\ngood movie,pos\n"
                                                               "room,rare\nbad,neg\n"},
                                {QStringLiteral("dev.csv"), "text,label\nbad,neg\ngood,pos\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(5));
        QCOMPARE(r.eval_examples, int64_t(2));
        QCOMPARE(r.eval_label_counts.at("neg"), int64_t(1));
        QCOMPARE(r.train_duplicates, int64_t(1));
        QCOMPARE(r.train_eval_overlap, int64_t(1));
        QCOMPARE(r.overlap_examples[0].second, path("dev.csv") + ":2");
        QVERIFY(anyContains(r.warnings, "the label 'rare' has 1 training example(s) and none in the eval set"));
        const std::string json = readText(r.report_path);
        QCOMPARE(QFileInfo(QString::fromStdString(r.report_path)).absolutePath(),
                 QFileInfo(QString::fromStdString(r.meta_path)).absolutePath());
        QVERIFY(json.find("\"eval_label_counts\": {\n    \"neg\": 1,\n    \"pos\": 1,\n    \"rare\": 0\n  }")
                != std::string::npos);
        QVERIFY(json.find("\"train_eval_overlap\": 1") != std::string::npos);
    }

    /// Issue 23, kind 6: duplicates and train/eval overlap are compared as the tokenizer reads
    /// the text: case and accents (uncased), white space, spaces around punctuation and the
    /// Unicode normal form count as the same text; each pair is named by both file:line.
    void duplicatesAfterNormalisation()
    {
        // Uncased: "Good Movie", "good  movie", "good\tmovie" and "GOOD MOVIE" are one text;
        // "bad, movie" and "bad ,movie" too; the dev set's "Bad, Movie" overlaps; "caf\u00e9" (NFC)
        // and "cafe\u0301" (NFD) and "CAFE" are one text after lower-casing and accent stripping.
        auto o = fixture({{QStringLiteral("train.csv"), "text,label\n"
                                                         "Good Movie,pos\n"        // 2
                                                         "good  movie,pos\n"       // 3
                                                         "\"bad, movie\",neg\n"    // 4
                                                         "\"good\tmovie \",neg\n"  // 5 (conflicting label)
                                                         "\"bad ,movie\",neg\n"    // 6
                                                         "caf\xc3\xa9,pos\n"        // 7
                                                         "cafe\xcc\x81,pos\n"       // 8
                                                         "CAFE,pos\n"              // 9
                                                         "room,neg\n"},            // 10
                          {QStringLiteral("dev.csv"), "text,label\n\"Bad, Movie\",neg\nroom service,neg\n"}});
        PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(9));
        QCOMPARE(r.train_duplicates, int64_t(5));
        QCOMPARE(r.conflicting_duplicates, int64_t(1));
        const std::string t = path("train.csv") + ":";
        std::vector<std::pair<std::string, std::string>> pairs;
        for (const auto &p : r.duplicate_examples)
            pairs.emplace_back(p.first, p.second);
        std::sort(pairs.begin(), pairs.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
        QCOMPARE(pairs, (std::vector<std::pair<std::string, std::string>>{
                            {t + "2", t + "3"}, {t + "2", t + "5"}, {t + "4", t + "6"}, {t + "7", t + "8"}, {t + "7", t + "9"}}));
        QCOMPARE(r.train_eval_overlap, int64_t(1));
        QCOMPARE(r.overlap_examples[0].first, t + "4");
        QCOMPARE(r.overlap_examples[0].second, path("dev.csv") + ":2");

        // Cased: letter case and accents are what the model sees, so they are different texts;
        // white space and punctuation spacing still are not.
        o.do_lower_case = false;
        o.output_dir += "-cased";
        r = prepareData(o);
        QCOMPARE(r.train_duplicates, int64_t(2)); // 5 repeats 3, 6 repeats 4; 2, 7, 8, 9 differ in case or form
        QCOMPARE(r.train_eval_overlap, int64_t(0));
    }

    /// A dev row whose label the training data lacks names the dev file and line.
    void unknownEvalLabel()
    {
        const auto o = fixture({{QStringLiteral("train.tsv"), "text\tlabel\ngood\tpos\nbad\tneg\n"},
                                {QStringLiteral("dev.tsv"), "text\tlabel\nroom\tmaybe\n"}},
                               "tsv");
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("dev.tsv") + ":2");
        QCOMPARE(std::string(e.what()),
                 std::string("the label 'maybe' is not one of the labels of the training data (neg, pos)"));
    }

    /// A row of empty fields (",,") is skipped and listed, not an error.
    void blankRowIsListed()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,pos\n,\nbad,neg\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(2));
        QCOMPARE(r.skipped_rows, int64_t(1));
        QCOMPARE(r.skipped[0].reason, std::string("the row is blank"));
    }

    void caseVariantsAreReported()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,pos\nbad,Pos\nroom,neg\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.labels, (std::vector<std::string>{"Pos", "neg", "pos"}));
        QVERIFY(anyContains(r.warnings, "the labels Pos, pos differ only in letter case"));
    }

    /// Issue 15 item 4: the usual header names are recognised without column options.
    void recognisesSentenceColumn()
    {
        const auto o = fixture({{QStringLiteral("train.tsv"), "sentence\tlabel\ngood movie\t1\nbad movie\t0\n"}}, "tsv");
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.text_a_column, std::string("sentence"));
        QCOMPARE(r.text_b_column, std::string());
        QCOMPARE(r.label_column, std::string("label"));
        QVERIFY(r.text_columns_recognised);
        QVERIFY(r.label_column_recognised);
        QCOMPARE(r.train_examples, int64_t(2));
        QCOMPARE(labelIds(r.train_path), (std::vector<int64_t>{0, 1}));
    }

    /// Header names are compared ignoring case; "Category" is a label column.
    void recognisesIgnoringCase()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "Id,Text,Category\n1,good movie,pos\n2,bad movie,neg\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.text_a_column, std::string("Text"));
        QCOMPARE(r.label_column, std::string("Category"));
        QCOMPARE(r.labels, (std::vector<std::string>{"neg", "pos"}));
    }

    /// Pairs: premise/hypothesis, question/sentence (before the single "sentence"),
    /// sentence1/sentence2; dev files use the train file's names.
    void recognisesPairs()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "premise,hypothesis,label\ngood,movie,entailment\nbad,room,neutral\n"}});
        PrepareReport r = prepareData(o);
        QCOMPARE(r.text_a_column, std::string("premise"));
        QCOMPARE(r.text_b_column, std::string("hypothesis"));
        QCOMPARE(r.mean_tokens, 5.0); // [CLS] a [SEP] b [SEP]

        o = fixture({{QStringLiteral("train.tsv"), "index\tquestion\tsentence\tlabel\n0\tgood\tmovie\tentailment\n"
                                                   "1\tbad\troom\tnot_entailment\n"},
                     {QStringLiteral("dev.tsv"), "index\tquestion\tsentence\tlabel\n0\tgood\troom\tentailment\n"}},
                    "tsv");
        r = prepareData(o);
        QCOMPARE(r.text_a_column, std::string("question"));
        QCOMPARE(r.text_b_column, std::string("sentence"));
        QCOMPARE(r.eval_examples, int64_t(1));

        o = fixture({{QStringLiteral("a.csv"), "sentence1,sentence2,labels\ngood,movie,1\nbad,room,0\n"}});
        r = prepareData(o);
        QCOMPARE(r.text_a_column + "+" + r.text_b_column + "+" + r.label_column, std::string("sentence1+sentence2+labels"));
    }

    /// A given --text_a_column reads single sentences even when a pair header is present.
    void givenColumnIsSingle()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "sentence1,sentence2,label\ngood,movie,1\nbad,room,0\n"}});
        o.text_a_column = "sentence2";
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.text_a_column, std::string("sentence2"));
        QCOMPARE(r.text_b_column, std::string());
        QVERIFY(!r.text_columns_recognised);
        QVERIFY(r.label_column_recognised);
        QCOMPARE(r.mean_tokens, 3.0);
    }

    /// Nothing recognisable, a wrong name, two candidates: the columns found and the flag.
    void columnErrorsNameTheColumns()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "id,body,stars\n1,good,5\n"}});
        Error e = expectError(o);
        QCOMPARE(e.field(), path("a.csv") + ":1");
        QCOMPARE(std::string(e.what()), std::string("no text column was recognised in the header (columns: 'id', 'body', 'stars')"));
        // The core names the options to give, not a front-end's words (the CLI says "Pass
        // --text_a_column=NAME", the window "Type the column's name into “Text column”").
        QCOMPARE(m_fixes, std::string("text_a_column=NAME; text_b_column=NAME for sentence pairs | sentence, text, review, "
                                      "text_a, sentence1 + sentence2, question + sentence, premise + hypothesis, "
                                      "question1 + question2, text_a + text_b"));
        QCOMPARE(e.hint(), std::string("Set text_a_column to NAME (and text_b_column to NAME for sentence pairs). "
                                       "Recognised without it: sentence, text, review, text_a, sentence1 + "
                                       "sentence2, question + sentence, premise + hypothesis, question1 + question2, "
                                       "text_a + text_b."));

        o.text_a_column = "body";
        e = expectError(o);
        QCOMPARE(std::string(e.what()), std::string("no label column was recognised in the header (columns: 'id', 'body', 'stars')"));
        QCOMPARE(m_fixes, std::string("label_column=NAME | label, labels, class, category, target, sentiment"));

        o.label_column = "rating";
        e = expectError(o);
        QCOMPARE(std::string(e.what()), std::string("the header has no column 'rating' (columns: 'id', 'body', 'stars')"));
        QCOMPARE(m_fixes, std::string("label_column=NAME with one of the columns found"));

        o = fixture({{QStringLiteral("a.csv"), "text,sentence,label\ngood,movie,1\n"}});
        e = expectError(o);
        QCOMPARE(std::string(e.what()), std::string("the header has several text columns ('sentence', 'text'); which one "
                                                    "holds the text? (columns: 'text', 'sentence', 'label')"));

        o = fixture({{QStringLiteral("a.csv"), "text,label,class\ngood,1,a\n"}});
        e = expectError(o);
        QCOMPARE(std::string(e.what()), std::string("the header has several label columns ('label', 'class'); which one "
                                                    "holds the labels? (columns: 'text', 'label', 'class')"));
        QCOMPARE(m_fixes, std::string("label_column=NAME"));
    }

    /// A ';' export is recognised from a recognisable header too.
    void semicolonWithRecognisedHeader()
    {
        const auto o = fixture({{QStringLiteral("a.csv"), "\xEF\xBB\xBFId;Sentence;Label\r\n1;good movie;pos\r\n2;bad;neg\r\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.text_a_column, std::string("Sentence"));
        QCOMPARE(r.train_examples, int64_t(2));
        QVERIFY(anyContains(r.warnings, "separated by ';'"));
    }

    /// Issue 14 item 2: the report records the tokenization; labels.txt is read back by id.
    void reportRecordsVocabAndLabelNames()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,spam\nbad,ham\nroom,spam\n"}});
        o.do_lower_case = false;
        const PrepareReport r = prepareData(o);
        const std::string json = readText(r.report_path);
        const std::string sha = sha256Hex(readText(m_vocab));
        QCOMPARE(r.vocab_sha256, sha);
        QCOMPARE(sha.size(), size_t(64));
        QVERIFY2(json.find("\"vocab_file\": \"" + QFileInfo(QString::fromStdString(m_vocab)).absoluteFilePath().toStdString()
                           + "\",\n  \"vocab_sha256\": \"" + sha + "\",\n  \"do_lower_case\": false,\n"
                           + "  \"max_seq_length\": 16,\n") != std::string::npos,
                 json.c_str());
        QVERIFY(json.find("\"columns\": {\n    \"text_a\": \"text\",\n    \"text_b\": null,\n    \"label\": \"label\",\n"
                          "    \"text_recognised\": true,\n    \"label_recognised\": true\n  }") != std::string::npos);
        QCOMPARE(readText(r.labels_path), std::string("ham\nspam\n"));
        // The window and classify read these names back through readLabelNames.
        const LabelNames names = readLabelNames(r.meta_path, 2);
        QCOMPARE(names.names, (std::vector<std::string>{"ham", "spam"}));
        QCOMPARE(names.source, r.labels_path);
        QCOMPARE(names.warning, std::string());

        const LabelNames wrong = readLabelNames(r.meta_path, 3);
        QCOMPARE(wrong.names, (std::vector<std::string>{"label 0", "label 1", "label 2"}));
        QCOMPARE(wrong.source, std::string());
        QCOMPARE(wrong.warning, r.labels_path + " has 2 names but num_labels is 3 (another preparation?); it is not used");
    }

    void labelNamesFallbacks()
    {
        const QString dir = m_dir.path() + QStringLiteral("/labelnames");
        const std::string meta = (dir + QStringLiteral("/input_meta_data.json")).toStdString();
        LabelNames n = readLabelNames(meta, 2);
        QCOMPARE(n.names, (std::vector<std::string>{"label 0", "label 1"}));
        QCOMPARE(n.source, std::string());

        // A spreadsheet-edited labels.txt: BOM, CRLF, an empty line, trailing empty lines.
        writeText(dir + QStringLiteral("/labels.txt"), "\xEF\xBB\xBFneg\r\n\r\npos\r\n\r\n");
        n = readLabelNames(meta, 3);
        QCOMPARE(n.names, (std::vector<std::string>{"neg", "label 1", "pos"}));
        QCOMPARE(n.source, (dir + QStringLiteral("/labels.txt")).toStdString());

        n = readLabelNames(meta, 0);
        QVERIFY(n.names.empty());
        QVERIFY(n.warning.empty());
    }

    /// An Excel export (BOM, CRLF, ';', a quoted ';', empty trailing columns, rows of empty
    /// cells): ';' is recognised from the header alone; the IMDB-style names are recognised.
    void excelExportWithUnusualHeader()
    {
        const auto o = fixture({{QStringLiteral("a.csv"),
                                 "\xEF\xBB\xBFReview;Sentiment;Score;;\r\ngood movie;Positive;4,5;;\r\n"
                                 "\"bad; bad room\";Negative;1,0;;\r\ngood;Positive;3,5;;\r\n;;;;\r\n ;;;;\r\n"}});
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.text_a_column, std::string("Review"));
        QCOMPARE(r.label_column, std::string("Sentiment"));
        QCOMPARE(r.train_examples, int64_t(3));
        QCOMPARE(r.labels, (std::vector<std::string>{"Negative", "Positive"}));
        QCOMPARE(r.skipped_rows, int64_t(2));
        QCOMPARE(r.skipped[1].where, path("a.csv") + ":6");
        QCOMPARE(r.skipped[1].reason, std::string("the row is blank"));
        QCOMPARE(r.mean_tokens, 13.0 / 3.0); // [CLS] good movie [SEP], [CLS] bad [UNK] bad room [SEP], [CLS] good [SEP]
    }

    /// Text that is not UTF-8 is decoded as windows-1252: typographic quotes, dashes and €
    /// survive instead of becoming C1 control characters that the tokenizer drops.
    void windows1252IsDecoded()
    {
        bool latin1 = false;
        QCOMPARE(prep::toUtf8("\x93good\x94 caf\xE9 \x96 5\x80 \x85", latin1),
                 std::string("\xE2\x80\x9Cgood\xE2\x80\x9D caf\xC3\xA9 \xE2\x80\x93 5\xE2\x82\xAC \xE2\x80\xA6"));
        QVERIFY(latin1);
        QCOMPARE(prep::toUtf8("\x81\xFF", latin1), std::string("\xC2\x81\xC3\xBF"));
        QCOMPARE(prep::toUtf8("caf\xC3\xA9", latin1), std::string("caf\xC3\xA9"));
        QVERIFY(!latin1);
    }

    /// Most texts longer than max_seq_length: a warning with the share and the fix.
    void truncationIsAWarning()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood good good good good,pos\nbad,neg\n"
                                                     "room room room room room room,neg\ngood,pos\nmovie,pos\n"}});
        o.max_seq_length = 5;
        PrepareReport r = prepareData(o);
        QCOMPARE(r.truncated_examples, int64_t(2));
        QVERIFY2(anyContains(r.warnings, "2 of 5 examples (40%) need more than max_seq_length=5 tokens and are cut: "
                                         "the model sees only their first tokens."),
                 r.warnings.empty() ? "none" : r.warnings.front().c_str());
        o.max_seq_length = 7;
        o.output_dir += "2";
        r = prepareData(o);
        QCOMPARE(r.truncated_examples, int64_t(1));
        QVERIFY(!anyContains(r.warnings, "need more than max_seq_length"));
    }

    /// Common wrong inputs name the fix: a CSV file under the folders format, one label's
    /// folder instead of its parent, a folder whose CSV is not called train.csv.
    void wrongInputNamesTheFix()
    {
        auto o = fixture({{QStringLiteral("a.csv"), "text,label\ngood,pos\nbad,neg\n"}}, "folders");
        Error e = expectError(o);
        QCOMPARE(std::string(e.what()), "'" + path("a.csv") + "' is not a folder (the format is folders)");
        QCOMPARE(m_fixes, std::string("classification_task_name=csv")); // the CLI: "For a CSV file: use --classification_task_name=csv."
        QCOMPARE(e.hint(), std::string("For a CSV file: set classification_task_name to csv."));

        o = fixture({{QStringLiteral("ham/1.txt"), "good"}, {QStringLiteral("ham/2.txt"), "bad"}}, "folders");
        o.input_data_dir = path("ham");
        e = expectError(o);
        QCOMPARE(std::string(e.what()), std::string("a folder-per-label data set needs at least two label folders, found 0"));
        QCOMPARE(e.hint(), std::string("The folder holds 2 file(s) and no label folders: is it one label's folder? Pass "
                                       "the folder above it, which holds one sub-folder per label."));

        o = fixture({{QStringLiteral("reviews.csv"), "text,label\ngood,pos\nbad,neg\n"}, {QStringLiteral("notes.md"), "x"}});
        e = expectError(o);
        QCOMPARE(std::string(e.what()), std::string("no train.csv in this folder"));
        QCOMPARE(e.hint(), "The folder holds 'reviews.csv': pass the data file itself as --input_data_dir (e.g. "
                           "--input_data_dir=" + path("reviews.csv") + "), or name it train.csv.");
    }

    /// A TSV export whose quoted fields hold a tab and a line break is read with quotes (and
    /// says so); a TSV whose quotes are plain text (GLUE) is read without.
    void quotedTsvExport()
    {
        auto o = fixture({{QStringLiteral("a.tsv"), "text\tlabel\n\"good\tmovie\"\tpos\n\"bad\nroom\"\tneg\ngood\tpos\n"}},
                         "tsv");
        PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(3));
        QCOMPARE(r.mean_tokens, 11.0 / 3.0); // [CLS] good movie [SEP], [CLS] bad room [SEP], [CLS] good [SEP]
        QVERIFY(anyContains(r.warnings, path("a.tsv") + ": some fields are in double quotes and hold tabs or line breaks"));

        o = fixture({{QStringLiteral("a.tsv"), "sentence\tlabel\n\" good movie\t1\nbad \" room\t0\n"}}, "tsv");
        r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(2));
        QVERIFY(!anyContains(r.warnings, "double quotes"));

        o = fixture({{QStringLiteral("a.tsv"), "text\tlabel\n\"good\tmovie\tpos\nbad\tneg\n"}}, "tsv");
        const Error e = expectError(o);
        QCOMPARE(e.field(), path("a.tsv") + ":2");
        QCOMPARE(std::string(e.what()), std::string("the row has 3 fields, the header has 2 ('text', 'label')"));
    }
};

QTEST_APPLESS_MAIN(tst_PrepareRows)
#include "tst_preparerows.moc"
