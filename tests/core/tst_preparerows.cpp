// SPDX-License-Identifier: Apache-2.0
// prepareData()'s row, label and text rules on small CSV/TSV fixtures (docs/file-formats.md,
// "Raw text for Prepare data"): each case's exact error (file:line and text) or exact output.
#include "core/data/dataprep.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"

#include <QtTest>

#include <fstream>

using namespace wb;

namespace {

void writeText(const QString &path, const std::string &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

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
    Error expectError(const PrepareOptions &o)
    {
        try {
            prepareData(o);
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
        QCOMPARE(e.hint(), std::string("Put the text in double quotes when it contains commas (\"noisy room, thin walls\"), "
                                       "or pass --skip_bad_rows to skip such rows."));
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
        QVERIFY(anyContains(r.warnings, "read as Latin-1 (check the file's encoding; save it as UTF-8): " + path("a.csv") + ":3"));
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
};

QTEST_APPLESS_MAIN(tst_PrepareRows)
#include "tst_preparerows.moc"
