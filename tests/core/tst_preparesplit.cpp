// SPDX-License-Identifier: Apache-2.0
// Issue 27, "Data": the eval split is stratified by label by default and recorded in
// split.jsonl (which --split_file reuses); a label written inside its texts is warned about.
#include "core/prepare/dataprep.h"
#include "core/data/examplecodec.h"
#include "core/prepare/preparesplit.h"
#include "core/data/tfrecordreader.h"
#include "core/util/error.h"

#include "support/textfiles.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

using namespace wb;
using wb::test::writeText;
using wb::test::readText;

namespace {

std::vector<nlohmann::json> readJsonLines(const std::string &path)
{
    std::vector<nlohmann::json> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        out.push_back(nlohmann::json::parse(line));
    return out;
}

std::vector<int64_t> recordLabels(const std::string &path, int64_t maxSeq)
{
    RecordSpec spec;
    spec.max_seq_length = maxSeq;
    spec.num_labels = 2;
    std::vector<int64_t> out;
    TFRecordReader r(path);
    std::string p;
    while (r.read(p)) {
        ClassifierRecord rec;
        decodeClassifierRecord(p, spec, rec);
        out.push_back(rec.label_id);
    }
    return out;
}

} // namespace

class tst_PrepareSplit : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_vocab;
    QString sub(const QString &name) const { return m_dir.path() + QLatin1Char('/') + name; }

    // A CSV of `a` rows labelled "a" then `b` rows labelled "b" (row i at line i + 2).
    std::string writeCsv(const QString &name, int a, int b)
    {
        std::string csv = "text,label\n";
        for (int i = 0; i < a + b; ++i)
            csv += "text number " + std::to_string(i) + "," + (i < a ? "a" : "b") + "\n";
        const QString path = sub(name);
        writeText(path, csv);
        return path.toStdString();
    }

    PrepareOptions csvOptions(const std::string &file, const QString &out, uint64_t seed)
    {
        PrepareOptions o;
        o.input_data_dir = file;
        o.classification_task_name = "csv";
        o.vocab_file = m_vocab;
        o.max_seq_length = 8;
        o.eval_fraction = 0.1;
        o.seed = seed;
        o.bag_of_words_baseline = false;
        o.output_dir = sub(out).toStdString();
        return o;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_vocab = sub(QStringLiteral("vocab.txt")).toStdString();
        writeText(QString::fromStdString(m_vocab), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ntext\nnumber\nacq\nearn\n");
    }

    /// 70 rows, 7 to eval: stratified, both labels are always in eval (66/4: 6 + 1; 60/10:
    /// 6 + 1); one random cut leaves the small label out for some seeds.
    void stratifiedSplitKeepsEveryLabel()
    {
        for (const auto &[a, b] : {std::pair<int, int>{66, 4}, {60, 10}}) {
            const std::string csv = writeCsv(QStringLiteral("s%1.csv").arg(a), a, b);
            int randomMissing = 0;
            for (uint64_t seed = 0; seed < 20; ++seed) {
                PrepareOptions o = csvOptions(csv, QStringLiteral("strat"), seed);
                const PrepareReport r = prepareData(o);
                QCOMPARE(r.split_method, std::string("stratified"));
                QCOMPARE(r.eval_examples, int64_t(7));
                QCOMPARE(r.eval_label_counts.at("a"), int64_t(6));
                QCOMPARE(r.eval_label_counts.at("b"), int64_t(1));
                QCOMPARE(r.train_label_counts.at("b"), int64_t(b - 1));
                for (const auto &w : r.warnings)
                    QVERIFY2(w.find("none in the eval set") == std::string::npos, w.c_str());
                o.stratify_split = false;
                const PrepareReport plain = prepareData(o);
                QCOMPARE(plain.split_method, std::string("random"));
                QCOMPARE(plain.eval_examples, int64_t(7));
                randomMissing += plain.eval_label_counts.count("b") && plain.eval_label_counts.at("b") > 0 ? 0 : 1;
            }
            if (a == 66)
                QVERIFY(randomMissing > 0); // what stratifying prevents
        }
    }

    /// split.jsonl lists every row once, on the side and at the record index it went to.
    void splitFileListsEveryRow()
    {
        const std::string csv = writeCsv(QStringLiteral("rows.csv"), 63, 7);
        // A bad row (no label) that is skipped, listed as such.
        writeText(QString::fromStdString(csv), readText(csv) + "a text without label,\n");
        PrepareOptions o = csvOptions(csv, QStringLiteral("split"), 42);
        o.skip_bad_rows = true;
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.split_path, o.output_dir + "/split.jsonl");
        const auto rows = readJsonLines(r.split_path);
        QCOMPARE(rows.size(), size_t(71));
        std::set<int64_t> lines;
        std::map<std::string, int64_t> sides;
        const std::vector<int64_t> trainLabels = recordLabels(r.train_path, 8);
        const std::vector<int64_t> evalLabels = recordLabels(r.eval_path, 8);
        for (const auto &row : rows) {
            QCOMPARE(row["file"].get<std::string>(), std::string("rows.csv"));
            const int64_t line = row["line"].get<int64_t>();
            QVERIFY(lines.insert(line).second); // once
            const std::string side = row["split"].get<std::string>();
            ++sides[side];
            if (side == "skipped") {
                QCOMPARE(line, int64_t(72));
                QCOMPARE(row["reason"].get<std::string>(), std::string("the label is empty"));
                continue;
            }
            const std::string label = line - 2 < 63 ? "a" : "b";
            QCOMPARE(row["label"].get<std::string>(), label);
            const size_t index = row["index"].get<size_t>();
            const std::vector<int64_t> &records = side == "train" ? trainLabels : evalLabels;
            QVERIFY(index < records.size());
            QCOMPARE(records[index], int64_t(label == "a" ? 0 : 1));
        }
        QCOMPARE(*lines.begin(), int64_t(2));
        QCOMPARE(*lines.rbegin(), int64_t(72));
        QCOMPARE(sides["train"], r.train_examples);
        QCOMPARE(sides["eval"], r.eval_examples);
        QCOMPARE(sides["eval"], int64_t(7));
        QCOMPARE(sides["skipped"], int64_t(1));
    }

    /// --split_file: another seed, the same sides; a row the file lacks is an error naming it.
    void splitFileIsReused()
    {
        const std::string csv = writeCsv(QStringLiteral("reuse.csv"), 50, 20);
        const PrepareReport first = prepareData(csvOptions(csv, QStringLiteral("reuse1"), 1));
        PrepareOptions o = csvOptions(csv, QStringLiteral("reuse2"), 2);
        o.split_file = first.split_path;
        const PrepareReport second = prepareData(o);
        QCOMPARE(second.split_method, std::string("split_file"));
        auto evalLines = [](const std::string &path) {
            std::set<int64_t> s;
            for (const auto &row : readJsonLines(path))
                if (row["split"] == "eval")
                    s.insert(row["line"].get<int64_t>());
            return s;
        };
        QCOMPARE(evalLines(second.split_path), evalLines(first.split_path));
        QCOMPARE(evalLines(first.split_path).size(), size_t(7));
        // A new split with the second seed picks other rows.
        PrepareOptions other = csvOptions(csv, QStringLiteral("reuse3"), 2);
        QVERIFY(evalLines(prepareData(other).split_path) != evalLines(first.split_path));

        std::string text = readText(first.split_path);
        const size_t cut = text.find("\"line\":5,");
        QVERIFY(cut != std::string::npos);
        const size_t begin = text.rfind('\n', cut) + 1;
        text.erase(begin, text.find('\n', cut) + 1 - begin);
        const QString partial = sub(QStringLiteral("partial-split.jsonl"));
        writeText(partial, text);
        o.split_file = partial.toStdString();
        try {
            prepareData(o);
            QFAIL("a row missing from the split file was accepted");
        } catch (const Error &e) {
            const std::string what = e.what();
            QVERIFY2(what.find("reuse.csv:5") != std::string::npos, what.c_str());
            QVERIFY2(what.find("not in the split file") != std::string::npos, what.c_str());
        }
    }

    /// A split file that puts one row on both sides is an error naming the line (found by
    /// fuzz_splitfile: the later line used to win silently); the same side twice is kept.
    void splitFileRowOnBothSidesIsAnError()
    {
        const QString path = sub(QStringLiteral("both-sides.jsonl"));
        writeText(path, "{\"file\":\"a.csv\",\"line\":2,\"split\":\"train\"}\n"
                        "{\"file\":\"a.csv\",\"line\":3,\"split\":\"eval\"}\n"
                        "{\"file\":\"a.csv\",\"line\":3,\"split\":\"eval\"}\n"
                        "\n"
                        "{\"file\":\"a.csv\",\"line\":2,\"split\":\"eval\"}\n");
        try {
            prep::readSplitFile(path.toStdString());
            QFAIL("a row on both sides was accepted");
        } catch (const Error &e) {
            QCOMPARE(e.field(), path.toStdString() + ":5");
            QCOMPARE(std::string(e.what()), std::string("the row a.csv:2 is on both sides: listed before as train, here as eval"));
        }
        writeText(path, "{\"file\":\"a.csv\",\"line\":2,\"split\":\"train\"}\n"
                        "{\"file\":\"a.csv\",\"line\":3,\"split\":\"eval\"}\n"
                        "{\"file\":\"a.csv\",\"line\":3,\"split\":\"eval\"}\n"
                        "{\"file\":\"t.csv\",\"line\":2,\"split\":\"test\"}\n");
        const auto sides = prep::readSplitFile(path.toStdString());
        QCOMPARE(sides.size(), size_t(2));
        QCOMPARE(sides.at(prep::splitKey("a.csv", 2)), false);
        QCOMPARE(sides.at(prep::splitKey("a.csv", 3)), true);
    }

    /// Without skip_bad_rows every bad row is named (up to 20), each with its fix.
    void everyBadRowIsNamed()
    {
        std::string csv = "text,label\n";
        for (int i = 0; i < 30; ++i)
            csv += i % 10 == 3 ? "noisy room, thin walls,a\n" : i == 5 ? "no label here,\n" : "text number,a\n";
        csv += "text number,b\n";
        const QString path = sub(QStringLiteral("bad.csv"));
        writeText(path, csv);
        PrepareOptions o = csvOptions(path.toStdString(), QStringLiteral("bad-out"), 1);
        try {
            prepareData(o);
            QFAIL("bad rows were accepted");
        } catch (const Error &e) {
            const std::string p = path.toStdString();
            QCOMPARE(e.field(), p + ":5"); // the first bad row (i = 3)
            const std::string m = e.what();
            QVERIFY2(m.find("3 more bad rows:") != std::string::npos, m.c_str());
            QVERIFY2(m.find(p + ":7: the label is empty") != std::string::npos, m.c_str());
            QVERIFY2(m.find(p + ":15: ") != std::string::npos, m.c_str());
            QVERIFY2(m.find(p + ":25: ") != std::string::npos, m.c_str());
            const std::string h = e.hint();
            QVERIFY2(h.find("double quotes when it contains commas") != std::string::npos, h.c_str());
            QVERIFY2(h.find("Fill in the label") != std::string::npos, h.c_str());
        }
        // More than 20: the first 20 are named, the rest counted.
        std::string many = "text,label\n";
        for (int i = 0; i < 25; ++i)
            many += "a, b, c\n";
        many += "text number,a\ntext number,b\n";
        writeText(path, many);
        try {
            prepareData(o);
            QFAIL("bad rows were accepted");
        } catch (const Error &e) {
            const std::string m = e.what();
            QVERIFY2(m.find("24 more bad rows:") != std::string::npos, m.c_str());
            QVERIFY2(m.find(":21: ") != std::string::npos && m.find(":22: ") == std::string::npos, m.c_str());
            QVERIFY2(m.find("(and 5 more)") != std::string::npos, m.c_str());
        }
    }

    /// A Reuters-like folder of XML files whose texts begin with their label.
    void labelInsideTheTextIsWarned()
    {
        const QString in = sub(QStringLiteral("reuters"));
        for (int i = 0; i < 12; ++i) {
            for (const char *label : {"acq", "earn"}) {
                const std::string other = std::string(label) == "acq" ? "earn" : "acq";
                std::string body = "<REUTERS NEWID=\"" + std::to_string(i) + "\">\n<TOPICS><D>" + label
                    + "</D></TOPICS>\n<BODY>text number " + std::to_string(i);
                if (i == 0)
                    body += " " + other; // the other label's name, once
                body += "</BODY>\n</REUTERS>\n";
                writeText(in + QStringLiteral("/%1/%2.xml").arg(QLatin1String(label)).arg(i), body);
            }
        }
        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.vocab_file = m_vocab;
        o.max_seq_length = 32;
        o.eval_fraction = 0;
        o.bag_of_words_baseline = false;
        o.output_dir = sub(QStringLiteral("reuters-out")).toStdString();
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.label_in_text.size(), size_t(2));
        const LabelInText &acq = r.label_in_text[0];
        QCOMPARE(acq.label, std::string("acq"));
        QCOMPARE(acq.token, std::string("acq"));
        QCOMPARE(acq.markup, false);
        QCOMPARE(acq.label_texts, int64_t(12));
        QCOMPARE(acq.label_texts_with, int64_t(12));
        QCOMPARE(acq.other_texts, int64_t(12));
        QCOMPARE(acq.other_texts_with, int64_t(1));
        QCOMPARE(acq.examples, (std::vector<std::string>{in.toStdString() + "/acq/0.xml:2", in.toStdString() + "/acq/1.xml:2",
                                                         in.toStdString() + "/acq/10.xml:2"}));
        QCOMPARE(r.label_in_text[1].label, std::string("earn"));
        bool warned = false;
        for (const auto &w : r.warnings)
            warned = warned
                || (w.find("the label's name 'acq' is in 100% of the texts labelled 'acq' and in 8% of the others")
                        != std::string::npos
                    && w.find("/acq/0.xml:2") != std::string::npos);
        QVERIFY(warned);
        // In the report file too.
        const auto back = readPrepareReport(r.meta_path);
        QCOMPARE(back->label_in_text.size(), size_t(2));
        QCOMPARE(back->label_in_text[0].examples, acq.examples);

        // Markup that only one label's texts carry; <TOPICS> and <D> are in all texts: not named.
        const QString in2 = sub(QStringLiteral("markup"));
        for (int i = 0; i < 5; ++i) {
            writeText(in2 + QStringLiteral("/x/%1.txt").arg(i), "<TOPICS><D>one</D></TOPICS> <SECRET> text number");
            writeText(in2 + QStringLiteral("/y/%1.txt").arg(i), "<TOPICS><D>two</D></TOPICS> text number");
        }
        o.input_data_dir = in2.toStdString();
        o.output_dir = sub(QStringLiteral("markup-out")).toStdString();
        const PrepareReport m = prepareData(o);
        QCOMPARE(m.label_in_text.size(), size_t(1));
        QCOMPARE(m.label_in_text[0].label, std::string("x"));
        QCOMPARE(m.label_in_text[0].token, std::string("<secret>"));
        QCOMPARE(m.label_in_text[0].markup, true);
        QCOMPARE(m.label_in_text[0].examples.front(), in2.toStdString() + "/x/0.txt:1");
    }
};

QTEST_APPLESS_MAIN(tst_PrepareSplit)
#include "tst_preparesplit.moc"
