// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"

#include <QProcess>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace wb::cli;

class tst_CliPrepare : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    void write(const QString &rel, const std::string &text)
    {
        const QString p = m_dir.path() + QLatin1Char('/') + rel;
        QDir().mkpath(QFileInfo(p).absolutePath());
        std::ofstream(p.toStdString(), std::ios::binary) << text;
    }

    struct Result
    {
        int code = -1;
        std::string out, err;
    };

    // Runs the real bert-workbench-cli binary (end to end: argument parsing, exit code, streams).
    Result runBinary(const QStringList &args)
    {
        QProcess p;
        p.start(QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli"), args);
        Result r;
        if (!p.waitForFinished(120000))
            return r;
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput().toStdString();
        r.err = p.readAllStandardError().toStdString();
        return r;
    }

    QStringList prepareArgs(const QString &input, const QString &out)
    {
        return {QStringLiteral("prepare"), QStringLiteral("--input_data_dir=") + input,
                QStringLiteral("--classification_task_name=csv"), QStringLiteral("--vocab_file=") + m_dir.path()
                    + QStringLiteral("/vocab.txt"),
                QStringLiteral("--max_seq_length=16"), QStringLiteral("--eval_fraction=0"),
                QStringLiteral("--output_dir=") + out};
    }

private Q_SLOTS:
    void preparesFolders()
    {
        write(QStringLiteral("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n");
        for (int i = 0; i < 5; ++i) {
            write(QStringLiteral("in/ham/%1.txt").arg(i), "hello");
            write(QStringLiteral("in/spam/%1.txt").arg(i), "spam spam");
        }
        const std::string dir = m_dir.path().toStdString();
        std::ostringstream out, err;
        const int rc = runCli({"prepare", "--input_data_dir=" + dir + "/in", "--vocab_file", dir + "/vocab.txt",
                               "--max_seq_length=16", "--output_dir=" + dir + "/out", "--eval_fraction=0.2"},
                              out, err);
        QVERIFY2(rc == kExitOk, err.str().c_str());
        QVERIFY(out.str().find("(8 examples)") != std::string::npos);
        QVERIFY(out.str().find("0=ham, 1=spam") != std::string::npos);
        std::ifstream meta(dir + "/out/input_meta_data.json");
        const std::string text((std::istreambuf_iterator<char>(meta)), {});
        QVERIFY(text.find("\"eval_data_size\": 2") != std::string::npos);
    }

    /// Issue input 1 end to end: exit 2, the row named with file:line, the count and the fix.
    void unquotedCommaExitsTwo()
    {
        write(QStringLiteral("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n");
        write(QStringLiteral("comma/a.csv"), "text,label\na quiet room,pos\nnoisy room, thin walls and a broken heater,neg\n");
        const QString in = m_dir.path() + QStringLiteral("/comma/a.csv");
        const Result r = runBinary(prepareArgs(in, m_dir.path() + QStringLiteral("/comma/out")));
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err, "reading...\nerror: " + in.toStdString()
                            + ":3: the row has 3 fields, the header has 2 ('text', 'label')\n"
                              "  hint: Put the text in double quotes when it contains commas (\"noisy room, thin walls\"), "
                              "or pass --skip_bad_rows to skip such rows.\n");
        QVERIFY(!QFile::exists(m_dir.path() + QStringLiteral("/comma/out/input_meta_data.json")));
    }

    /// Multi-label end to end (issue 45): the CLI says which reading it chose, the cardinality,
    /// the texts with no label and the pairs; an ambiguous delimiter exits 2 naming the one to pass.
    void multiLabelSaysHowItRead()
    {
        write(QStringLiteral("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n");
        write(QStringLiteral("multi/a.csv"), "text,labels\nhello,billing|urgent\nspam,billing\nhello spam,\n"
                                             "spam spam,refund|urgent\n");
        const QString in = m_dir.path() + QStringLiteral("/multi/a.csv");
        const Result r = runBinary(prepareArgs(in, m_dir.path() + QStringLiteral("/multi/out")));
        QVERIFY2(r.code == 0, r.err.c_str());
        for (const char *line : {"  labels: ", "0=billing, 1=refund, 2=urgent)\n",
                                 "  problem type: multi_label_classification (labels read from the label column "
                                 "'labels' split at '|' (2 rows hold several labels))\n",
                                 "  labels per text: 1.25 (train 1.25); texts with no label: 1; distinct "
                                 "label sets: 4\n",
                                 "  most frequent pairs: billing+urgent (1), refund+urgent (1)\n"})
            QVERIFY2(r.out.find(line) != std::string::npos, r.out.c_str());
        QVERIFY2(r.err.find("warning: 1 text(s) have no label (1 train, 0 eval)") != std::string::npos, r.err.c_str());

        write(QStringLiteral("multi/b.csv"), "text,labels\nhello,\"billing,urgent\"\nspam,\"refund,urgent\"\n");
        const QString bad = m_dir.path() + QStringLiteral("/multi/b.csv");
        const Result e = runBinary(prepareArgs(bad, m_dir.path() + QStringLiteral("/multi/out-b")));
        QCOMPARE(e.code, 2);
        QCOMPARE(e.err, "reading...\nerror: " + bad.toStdString() + ": the label column 'labels' never holds the label "
                            "delimiter '|', but ',' separates labels in 2 rows (e.g. " + bad.toStdString()
                            + ":2 ('billing,urgent'))\n  hint: Pass --label_delimiter=, to read several labels per text; "
                              "if ',' is part of the label names, pass --problem_type=single_label_classification.\n");
    }

    /// Issue input 2 end to end: an empty label exits 2 naming the row.
    void emptyLabelExitsTwo()
    {
        write(QStringLiteral("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n");
        write(QStringLiteral("label/a.csv"), "text,label\nhello,1\nspam,0\nthe box was crushed,\n");
        const QString in = m_dir.path() + QStringLiteral("/label/a.csv");
        const Result r = runBinary(prepareArgs(in, m_dir.path() + QStringLiteral("/label/out")));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("error: " + in.toStdString() + ":4: the label is empty\n") != std::string::npos, r.err.c_str());
    }

    /// --skip_bad_rows end to end: exit 0, each skipped row on stderr, the label-count table on stdout.
    void skipBadRowsListsRows()
    {
        write(QStringLiteral("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n");
        write(QStringLiteral("skip/a.csv"), "text,label\nhello,pos\nnoisy room, thin walls,neg\nspam,neg\n,pos\nhello spam,pos\n");
        const QString in = m_dir.path() + QStringLiteral("/skip/a.csv");
        QStringList args = prepareArgs(in, m_dir.path() + QStringLiteral("/skip/out"));
        args << QStringLiteral("--skip_bad_rows");
        const Result r = runBinary(args);
        QVERIFY2(r.code == 0, r.err.c_str());
        QVERIFY2(r.err.find("warning: " + in.toStdString() + ":3: skipped: the row has 3 fields, the header has 2") != std::string::npos,
                 r.err.c_str());
        QVERIFY2(r.err.find("warning: " + in.toStdString() + ":5: skipped: the text is empty") != std::string::npos,
                 r.err.c_str());
        QVERIFY2(r.out.find("  label     train      eval\n  neg           1         0\n  pos           2         0\n")
                     != std::string::npos,
                 r.out.c_str());
        QVERIFY(QFile::exists(m_dir.path() + QStringLiteral("/skip/out/prepare_report.json")));
        std::ifstream labels((m_dir.path() + QStringLiteral("/skip/out/labels.txt")).toStdString());
        QCOMPARE(std::string((std::istreambuf_iterator<char>(labels)), {}), std::string("neg\npos\n"));
    }

    /// Issue 15 item 4 end to end: the columns read are printed with where they came from.
    void printsRecognisedColumns()
    {
        write(QStringLiteral("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\n");
        write(QStringLiteral("cols/a.csv"), "sentence1,sentence2,Label\nhello,spam,1\nspam,hello,0\n");
        const QString in = m_dir.path() + QStringLiteral("/cols/a.csv");
        const Result r = runBinary(prepareArgs(in, m_dir.path() + QStringLiteral("/cols/out")));
        QVERIFY2(r.code == 0, r.err.c_str());
        QVERIFY2(r.out.find("  text column: sentence1 (recognised from the header)\n"
                            "  second text column: sentence2 (recognised from the header)\n"
                            "  label column: Label (recognised from the header)\n"
                            "  vocab: " + m_dir.path().toStdString() + "/vocab.txt (sha256 ") != std::string::npos,
                 r.out.c_str());
        QVERIFY2(r.out.find("…); do_lower_case=true; max_seq_length=16\n") != std::string::npos, r.out.c_str());

        QStringList args = prepareArgs(in, m_dir.path() + QStringLiteral("/cols/out2"));
        args << QStringLiteral("--text_a_column=sentence2") << QStringLiteral("--label_column=nope");
        const Result bad = runBinary(args);
        QCOMPARE(bad.code, 2);
        QCOMPARE(bad.err, "reading...\nerror: " + in.toStdString()
                              + ":1: the header has no column 'nope' (columns: 'sentence1', 'sentence2', 'Label')\n"
                                "  hint: Pass --label_column=NAME with one of the columns found.\n");
    }

    /// prepare prints and records the bag-of-words baseline; `baseline` computes it again from
    /// the records (the same numbers) and records it; bad input is a message, not a number.
    void baselineAtPrepareAndOnDemand()
    {
        write(QStringLiteral("bl/vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nspam\nbuy\nnow\nfriend\n");
        for (int i = 0; i < 12; ++i) {
            write(QStringLiteral("bl/in/ham/%1.txt").arg(i), i % 2 ? "hello friend" : "hello");
            write(QStringLiteral("bl/in/spam/%1.txt").arg(i), i % 2 ? "buy now spam" : "spam spam");
        }
        const std::string dir = (m_dir.path() + QStringLiteral("/bl")).toStdString();
        auto reportText = [](const std::string &path) {
            std::ifstream in(path);
            return std::string((std::istreambuf_iterator<char>(in)), {});
        };
        std::ostringstream out, err;
        int rc = runCli({"prepare", "--input_data_dir=" + dir + "/in", "--vocab_file=" + dir + "/vocab.txt",
                         "--max_seq_length=16", "--output_dir=" + dir + "/out", "--eval_fraction=0.25"},
                        out, err);
        QVERIFY2(rc == kExitOk, err.str().c_str());
        // C is chosen by cross-validation on the 18 training rows: every C of the grid separates
        // them, so the smallest (the strongest regularisation) wins the tie.
        const std::string line = "  bag-of-words baseline (TF-IDF of the wordpieces + logistic regression, C=0.01 by "
                                 "5-fold cross-validation on the train split): eval_accuracy = 1.0000, eval_macro_f1 = "
                                 "1.0000 (train 18, eval 6 examples, 5 features)\n";
        QVERIFY2(out.str().find(line) != std::string::npos, out.str().c_str());
        const std::string text = reportText(dir + "/out/prepare_report.json");
        QVERIFY2(text.find("\"bag_of_words_baseline\": {\n    \"eval_accuracy\": 1.0,\n    \"eval_macro_f1\": 1.0,")
                     != std::string::npos,
                 text.c_str());

        std::ostringstream out2, err2;
        rc = runCli({"baseline", "--data_dir=" + dir + "/out"}, out2, err2);
        QVERIFY2(rc == kExitOk, err2.str().c_str());
        QCOMPARE(out2.str().substr(0, out2.str().find('\n') + 1), line.substr(2));
        QVERIFY(out2.str().find("recorded in " + dir + "/out/prepare_report.json") != std::string::npos);
        QCOMPARE(reportText(dir + "/out/prepare_report.json"), text); // the same numbers, every other key kept

        // Without the baseline at prepare time the report has no key; baseline adds it.
        std::ostringstream out3, err3;
        rc = runCli({"prepare", "--input_data_dir=" + dir + "/in", "--vocab_file=" + dir + "/vocab.txt",
                     "--max_seq_length=16", "--output_dir=" + dir + "/none", "--eval_fraction=0.25",
                     "--bag_of_words_baseline=false"},
                    out3, err3);
        QVERIFY2(rc == kExitOk, err3.str().c_str());
        QVERIFY(out3.str().find("bag-of-words") == std::string::npos);
        QVERIFY(reportText(dir + "/none/prepare_report.json").find("bag_of_words_baseline") == std::string::npos);
        std::ostringstream out4, err4;
        rc = runCli({"baseline", "--data_dir=" + dir + "/none"}, out4, err4);
        QVERIFY2(rc == kExitOk, err4.str().c_str());
        QVERIFY(reportText(dir + "/none/prepare_report.json").find("\"bag_of_words_baseline\"") != std::string::npos);

        // No eval set: the report says why.
        std::ostringstream out5, err5;
        rc = runCli({"prepare", "--input_data_dir=" + dir + "/in", "--vocab_file=" + dir + "/vocab.txt",
                     "--max_seq_length=16", "--output_dir=" + dir + "/noeval", "--eval_fraction=0"},
                    out5, err5);
        QVERIFY2(rc == kExitOk, err5.str().c_str());
        QVERIFY2(out5.str().find("bag-of-words baseline: none (there is no eval set to score it on (set eval_fraction "
                                 "above 0, or add a dev file))")
                     != std::string::npos,
                 out5.str().c_str());
        // A missing file is named; a bad C is refused before reading.
        std::ostringstream out6, err6;
        rc = runCli({"baseline", "--data_dir=" + dir + "/nowhere"}, out6, err6);
        QCOMPARE(rc, int(kExitInvalid));
        QVERIFY2(err6.str().find("error: " + dir + "/nowhere/train.tf_record: the file does not exist") != std::string::npos,
                 err6.str().c_str());
        std::ostringstream out7, err7;
        rc = runCli({"baseline", "--data_dir=" + dir + "/out", "--C=-1"}, out7, err7);
        QCOMPARE(rc, int(kExitInvalid));
        QVERIFY2(err7.str().find("error: C: C is -1.000000; it must be above 0, or 0 for a C chosen by "
                                 "cross-validation")
                     != std::string::npos,
                 err7.str().c_str());
        // A given C is used as given, and said so.
        std::ostringstream out8, err8;
        rc = runCli({"baseline", "--data_dir=" + dir + "/out", "--C=1", "--write_report=false"}, out8, err8);
        QCOMPARE(rc, int(kExitOk));
        QVERIFY2(out8.str().rfind("bag-of-words baseline (TF-IDF of the wordpieces + logistic regression, C=1): ", 0) == 0,
                 out8.str().c_str());
    }

    void reportsBadInput()
    {
        std::ostringstream out, err;
        const int rc = runCli({"prepare", "--input_data_dir=/nonexistent", "--vocab_file=/nonexistent/vocab.txt",
                               "--output_dir=/tmp/x"},
                              out, err);
        QCOMPARE(rc, int(kExitInvalid));
        QVERIFY2(err.str().find("error: input_data_dir: '/nonexistent' does not exist") != std::string::npos,
                 err.str().c_str());
    }

    /// Issue 23, kind 4: every numeric option of prepare is range-checked before anything is
    /// read, exit 2, in the option table's words (was: --num_threads=0, --seed=-1 accepted).
    void rangesCheckedBeforeReading()
    {
        write(QStringLiteral("r/vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\n");
        write(QStringLiteral("r/a.csv"), "text,label\ngood,pos\ngood,neg\n");
        const std::string dir = (m_dir.path() + QStringLiteral("/r")).toStdString();
        const std::vector<std::pair<std::string, std::string>> cases{
            {"--num_threads=0", "error: num_threads: num_threads is 0; it must be between 1 and 1024\n"
                                "  hint: the default is 2\n"},
            {"--num_threads=100000", "error: num_threads: num_threads is 100000; it must be between 1 and 1024\n"},
            {"--max_seq_length=1000000", "error: max_seq_length: max_seq_length is 1000000; it must be between 3 and "
                                         "100000\n"},
            {"--eval_fraction=-0.5", "error: eval_fraction: eval_fraction is -0.5; it must be between 0 and 1\n"},
            {"--seed=-1", "error: seed: seed is -1; it must be between 0 and 9223372036854775807\n"},
            {"--mnli_type=both", "error: mnli_type: Invalid `mnli_type`: both\n"},
        };
        for (const auto &[flag, expected] : cases) {
            std::ostringstream out, err;
            const int rc = runCli({"prepare", "--input_data_dir=" + dir + "/a.csv", "--classification_task_name=csv",
                                   "--vocab_file=" + dir + "/vocab.txt", "--output_dir=" + dir + "/out", flag},
                                  out, err);
            QCOMPARE(rc, int(kExitInvalid));
            QVERIFY2(err.str().find(expected) != std::string::npos, (flag + ": " + err.str()).c_str());
            QVERIFY(!QFile::exists(QString::fromStdString(dir + "/out/input_meta_data.json")));
        }
    }
};

QTEST_APPLESS_MAIN(tst_CliPrepare)
#include "tst_cliprepare.moc"
