// SPDX-License-Identifier: Apache-2.0
// Issue 47 (label to learn): the pool (core/label/labelpool.h: reading texts, their ids, the
// held-out rule) and the session's files and plan (core/label/labelsession.h).
#include "core/label/labelpool.h"
#include "core/label/labelsession.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace wb;

namespace {

void writeFile(const std::string &path, const std::string &bytes)
{
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return e.field() + " | " + e.what();
    }
    return "no error";
}

} // namespace

class tst_LabelSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void poolFromLinesCsvAndFolder()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        writeFile(root + "/texts.txt", "first text\n\n   \nsecond text\n");
        auto lines = readLabelPool(root + "/texts.txt");
        QCOMPARE(lines.size(), size_t(2));
        QCOMPARE(lines[1].text, std::string("second text"));
        QCOMPARE(lines[1].file, std::string("texts.txt"));
        QCOMPARE(lines[1].line, int64_t(4));

        writeFile(root + "/mails.csv", "id,body\n1,\"Hello, there\"\n2,\"two\nlines\"\n");
        PoolReadOptions o;
        o.text_column = "body";
        auto csv = readLabelPool(root + "/mails.csv", o);
        QCOMPARE(csv.size(), size_t(2));
        QCOMPARE(csv[0].text, std::string("Hello, there"));
        QCOMPARE(csv[1].text, std::string("two\nlines"));
        QCOMPARE(csv[1].line, int64_t(3));
        QCOMPARE(poolTextKey(csv[1]), std::string("mails.csv:3"));

        writeFile(root + "/folder/b/2.txt", "Subject: hi\nFrom: a@b\n\nthe body");
        writeFile(root + "/folder/a.txt", "plain");
        writeFile(root + "/folder/.hidden/x.txt", "never");
        writeFile(root + "/folder/labels.csv", "text,label\n");
        o = {};
        o.email_body_only = true;
        auto folder = readLabelPool(root + "/folder", o);
        QCOMPARE(folder.size(), size_t(2));
        QCOMPARE(folder[0].file, std::string("a.txt"));
        QCOMPARE(folder[1].file, std::string("b/2.txt"));
        QCOMPARE(folder[1].text, std::string("the body"));
        QCOMPARE(folder[1].line, int64_t(0));
        QCOMPARE(poolTextKey(folder[1]), std::string("b/2.txt"));
        o.max_texts = 1;
        QCOMPARE(readLabelPool(root + "/folder", o).size(), size_t(1));
        // A body in quoted-printable ISO-8859-1 decodes to bytes that are not UTF-8: read as
        // Windows-1252 after decoding, as the labels file needs.
        writeFile(root + "/qp/m.txt", "Content-Type: text/plain; charset=iso-8859-1\n"
                                      "Content-Transfer-Encoding: quoted-printable\n\ncaf=E9\n");
        o = {};
        o.email_body_only = true;
        const auto qp = readLabelPool(root + "/qp", o);
        QCOMPARE(qp.size(), size_t(1));
        QCOMPARE(qp[0].text.substr(0, 5), std::string("caf\xc3\xa9"));
    }

    void poolErrors()
    {
        QTemporaryDir tmp;
        const std::string root = tmp.path().toStdString();
        QCOMPARE(errorOf([&] { readLabelPool(root + "/nothing"); }),
                 root + "/nothing | no such file or folder");
        writeFile(root + "/empty.txt", "\n  \n");
        QCOMPARE(errorOf([&] { readLabelPool(root + "/empty.txt"); }),
                 root + "/empty.txt | holds no text to label (every text is empty)");
    }

    void keysAndHeldOut()
    {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector).
        QCOMPARE(poolTextKey({"a", "", 0}), std::string("#af63dc4c8601ec8c"));
        int held = 0;
        for (int i = 1; i <= 2000; ++i)
            held += isHeldOut({"t", "pool.csv", i}, 0.2) ? 1 : 0;
        QVERIFY2(held > 340 && held < 460, std::to_string(held).c_str()); // 400 expected, 20 %
        QVERIFY(!isHeldOut({"t", "pool.csv", 1}, 0.0));
        // The same text id gives the same answer whatever the text says.
        QCOMPARE(isHeldOut({"x", "pool.csv", 7}, 0.2), isHeldOut({"y", "pool.csv", 7}, 0.2));
    }

    void settingsRoundTrip()
    {
        QTemporaryDir tmp;
        const std::string path = labelSessionPath(tmp.path().toStdString());
        LabelSessionSettings s;
        s.pool_path = "/data/mails";
        s.email_body_only = true;
        s.label_names = {"ham", "spam"};
        s.batch_size = 5;
        s.strategy = "random";
        s.held_out_fraction = 0.25;
        writeLabelSession(path, s);
        const LabelSessionSettings r = readLabelSession(path);
        QCOMPARE(r.pool_path, s.pool_path);
        QCOMPARE(r.email_body_only, true);
        QCOMPARE(r.label_names, s.label_names);
        QCOMPARE(r.batch_size, int64_t(5));
        QCOMPARE(r.strategy, std::string("random"));
        QCOMPARE(r.held_out_fraction, 0.25);
        writeFile(path, "{\"strategy\": \"smart\"}");
        QCOMPARE(errorOf([&] { readLabelSession(path); }),
                 path + ": strategy | unknown order 'smart'");
        s.label_names = {"a", "a"};
        QCOMPARE(errorOf([&] { writeLabelSession(path, s); }),
                 path + ": label_names | the label 'a' is listed twice");
    }

    void curveRoundTripAndCutLine()
    {
        QTemporaryDir tmp;
        const std::string path = labelSessionCurvePath(tmp.path().toStdString());
        CurvePoint a;
        a.labels = 10;
        a.train_labels = 8;
        a.eval_examples = 2;
        a.accuracy = 0.5;
        a.strategy = "uncertain_diverse";
        CurvePoint b = a;
        b.labels = 20;
        b.accuracy = std::nan("");
        b.bag_of_words_accuracy = 0.75;
        appendCurvePoint(path, a);
        appendCurvePoint(path, b);
        std::ofstream(path, std::ios::app) << "{\"labels\": 3"; // a line cut while it was written
        const auto curve = readCurve(path);
        QCOMPARE(curve.size(), size_t(2));
        QCOMPARE(curve[0].accuracy, 0.5);
        QCOMPARE(curve[0].train_labels, int64_t(8));
        QVERIFY(std::isnan(curve[1].accuracy));
        QCOMPARE(curve[1].bag_of_words_accuracy, 0.75);
        QVERIFY(curvePointJson(b).find("\"accuracy\":null") != std::string::npos);
        QCOMPARE(errorOf([&] { parseCurvePoint("{\"labels\": \"ten\"}", "curve.jsonl:4"); }),
                 std::string("curve.jsonl:4: labels | has the wrong type (string)"));
    }

    void planMixesHeldOutDrawsIntoTheQueue()
    {
        LabelSessionSettings s;
        s.strategy = "random";
        s.held_out_every = 5;
        const int n = 50;
        std::vector<bool> labelled(n, false), held(n, false);
        for (int i = 0; i < n; i += 7)
            held[size_t(i)] = true; // 0, 7, 14, … 49
        const auto plan = planNextTexts(s, {}, labelled, held, /*shown=*/0, 10);
        QCOMPARE(plan.size(), size_t(10));
        for (size_t k = 0; k < plan.size(); ++k)
            QCOMPARE(bool(held[size_t(plan[k])]), k == 4 || k == 9); // the 5th and 10th shown
        // Random order: the same texts in the same order, whatever was labelled meanwhile.
        const auto order = randomOrder(n, 42);
        std::vector<int64_t> expected;
        for (const int64_t i : order)
            if (!held[size_t(i)] && expected.size() < 8)
                expected.push_back(i);
        std::vector<int64_t> got;
        for (const int64_t i : plan)
            if (!held[size_t(i)])
                got.push_back(i);
        QCOMPARE(got, expected);
        labelled[size_t(expected[0])] = true;
        const auto later = planNextTexts(s, {}, labelled, held, 1, 1);
        QCOMPARE(later, std::vector<int64_t>{expected[1]});
    }

    void planUsesTheScoresForTheQueue()
    {
        LabelSessionSettings s; // uncertain_diverse
        s.held_out_every = 0;
        PoolScores scores;
        scores.n = 4;
        scores.num_labels = 2;
        scores.dim = 1;
        scores.probabilities = {0.9f, 0.1f, 0.55f, 0.45f, 0.5f, 0.5f, 0.99f, 0.01f};
        scores.embeddings = {0, 1, 2, 3};
        std::vector<bool> labelled{false, false, true, false}, held(4, false);
        // Text 2 (margin 0) is labelled: text 1 (margin 0.1) is the most uncertain left.
        QCOMPARE(planNextTexts(s, scores, labelled, held, 0, 1), std::vector<int64_t>{1});
        QCOMPARE(errorOf([&] { planNextTexts(s, scores, std::vector<bool>(3, false), held, 0, 1); }),
                 std::string("planNextTexts | the pool's flags and scores have different sizes"));
    }
};

QTEST_GUILESS_MAIN(tst_LabelSession)
#include "tst_labelsession.moc"
