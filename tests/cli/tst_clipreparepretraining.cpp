// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli prepare_pretraining` end to end: the binary, its exit codes, its output
// read by an independent reader (tests/data/pretraining/tfrecord_example.py), a full disk.
#include "app/cli/commands.h"
#include "core/data/pretrainingrecord.h"
#include "core/data/tfrecordreader.h"

#include <QProcess>
#include <QStandardPaths>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

class tst_CliPreparePretraining : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string path(const std::string &rel) const { return m_dir.path().toStdString() + "/" + rel; }
    void write(const std::string &rel, const std::string &text)
    {
        fs::create_directories(fs::path(path(rel)).parent_path());
        std::ofstream(path(rel), std::ios::binary) << text;
    }
    struct Result
    {
        int code = -1;
        std::string out, err;
    };
    Result runProcess(const QString &program, const QStringList &args)
    {
        QProcess p;
        p.start(program, args);
        Result r;
        if (!p.waitForFinished(120000))
            return r;
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput().toStdString();
        r.err = p.readAllStandardError().toStdString();
        return r;
    }
    // In-process (wb::cli::runCli): the same flags, without the process start.
    Result runInProcess(const QStringList &args)
    {
        std::vector<std::string> v;
        for (const QString &a : args)
            v.push_back(a.toStdString());
        std::ostringstream out, err;
        Result r;
        r.code = wb::cli::runCli(v, out, err);
        r.out = out.str();
        r.err = err.str();
        return r;
    }
    static QString cli() { return QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli"); }
    QStringList args(const std::string &input, const std::string &out, const QStringList &more = {})
    {
        QStringList a = {QStringLiteral("prepare_pretraining"), QString::fromStdString("--input_file=" + path(input)),
                         QString::fromStdString("--vocab_file=" + path("vocab.txt")),
                         QStringLiteral("--max_seq_length=16"), QString::fromStdString("--output_dir=" + path(out))};
        if (!more.join(QLatin1Char(' ')).contains(QStringLiteral("--max_predictions_per_seq")))
            a << QStringLiteral("--max_predictions_per_seq=4");
        return a + more;
    }
    std::string corpus(int documents)
    {
        std::string text;
        for (int d = 0; d < documents; ++d)
            text += "the cat sat on the mat\nthe dog ran after the cats\n\n";
        return text;
    }
    void verifyEmpty(const std::string &dir)
    {
        if (!fs::exists(path(dir)))
            return;
        for (const auto &e : fs::directory_iterator(path(dir)))
            QFAIL(qPrintable(QString::fromStdString("left behind: " + e.path().string())));
    }

private Q_SLOTS:
    void initTestCase()
    {
        write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\ndog\nran\nafter\n##s\n");
    }

    /// Our records, read by the standard-library Python reader: the same values as our decoder
    /// reads, with google-research's feature names and kinds.
    void outputReadsInAnIndependentReader()
    {
        write("c.txt", corpus(30));
        const Result r = runInProcess(args("c.txt", "out", {QStringLiteral("--masking=static"),
                                                                 QStringLiteral("--dupe_factor=2"),
                                                                 QStringLiteral("--short_seq_prob=0"),
                                                                 QStringLiteral("--eval_fraction=0")}));
        QVERIFY2(r.code == 0, r.err.c_str());
        QVERIFY2(r.out.find("masking: static") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("documents: 30 ") != std::string::npos, r.out.c_str());
        // Each document (6 + 7 tokens) fills one sequence of 14: the next one does not fit after a [SEP].
        QVERIFY2(r.out.find("sequences: 60 train (dupe_factor 2), 0 eval") != std::string::npos, r.out.c_str());
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("python3 is not installed");
        const Result py = runProcess(python, {QStringLiteral(WB_TEST_DATA_DIR "/pretraining/tfrecord_example.py"),
                                              QStringLiteral("read"), QString::fromStdString(path("out/train.tf_record"))});
        QVERIFY2(py.code == 0, py.err.c_str());
        std::istringstream lines(py.out);
        std::string line;
        wb::TFRecordReader reader(path("out/train.tf_record"));
        std::string payload;
        int n = 0;
        while (std::getline(lines, line)) {
            QVERIFY(reader.read(payload));
            wb::PretrainingRecord rec;
            wb::decodePretrainingRecord(payload, {16, 4, true, 14}, rec);
            const auto j = nlohmann::json::parse(line);
            QCOMPARE(j.size(), size_t(7));
            QCOMPARE(j["input_ids"]["int64"].get<std::vector<int64_t>>(), rec.input_ids);
            QCOMPARE(j["input_mask"]["int64"].get<std::vector<int64_t>>(), rec.input_mask);
            QCOMPARE(j["segment_ids"]["int64"].get<std::vector<int64_t>>(), rec.segment_ids);
            QCOMPARE(j["masked_lm_positions"]["int64"].get<std::vector<int64_t>>(), rec.masked_lm_positions);
            QCOMPARE(j["masked_lm_ids"]["int64"].get<std::vector<int64_t>>(), rec.masked_lm_ids);
            QCOMPARE(j["masked_lm_weights"]["float"].get<std::vector<float>>(), rec.masked_lm_weights);
            QCOMPARE(j["next_sentence_labels"]["int64"].get<std::vector<int64_t>>(), std::vector<int64_t>{0});
            ++n;
        }
        QVERIFY(!reader.read(payload));
        const auto meta = nlohmann::json::parse(std::ifstream(path("out/input_meta_data.json")));
        QCOMPARE(meta["train_data_size"].get<int>(), n);
    }

    void defaultIsDynamicAndSaysSo()
    {
        write("d.txt", corpus(40));
        const Result r = runInProcess(args("d.txt", "dyn", {QStringLiteral("--eval_fraction=0.25")}));
        QVERIFY2(r.code == 0, r.err.c_str());
        QVERIFY2(r.out.find("masking: dynamic (the records hold unmasked sequences") != std::string::npos, r.out.c_str());
        QVERIFY(fs::exists(path("dyn/eval.tf_record")));
        const auto meta = nlohmann::json::parse(std::ifstream(path("dyn/input_meta_data.json")));
        QCOMPARE(meta["masking"].get<std::string>(), std::string("dynamic"));
        QVERIFY(meta["eval_data_size"].get<int>() > 0);
    }

    /// Without --max_predictions_per_seq, a short max_seq_length gets what it can fill (the
    /// default 20 was an error at 16 tokens); a value given is checked as given.
    void defaultPredictionsFollowTheLength()
    {
        write("p.txt", corpus(20));
        const QStringList base = {QStringLiteral("prepare_pretraining"), QString::fromStdString("--input_file=" + path("p.txt")),
                                  QString::fromStdString("--vocab_file=" + path("vocab.txt")), QStringLiteral("--max_seq_length=16")};
        const Result r = runInProcess(base + QStringList{QString::fromStdString("--output_dir=" + path("pred"))});
        QVERIFY2(r.code == 0, r.err.c_str());
        const auto meta = nlohmann::json::parse(std::ifstream(path("pred/input_meta_data.json")));
        QCOMPARE(meta["max_predictions_per_seq"].get<int>(), 4); // 16 × 0.15 = 2.4, in slots of 4
        const Result given = runInProcess(base + QStringList{QString::fromStdString("--output_dir=" + path("pred20")),
                                                             QStringLiteral("--max_predictions_per_seq=20")});
        QCOMPARE(given.code, 2);
        QVERIFY2(given.err.find("slots beyond 4 would always be padding") != std::string::npos, given.err.c_str());
        QVERIFY2(given.err.find("--max_predictions_per_seq=4 or less") != std::string::npos, given.err.c_str());
        verifyEmpty("pred20");
    }

    void badInputExitsTwo()
    {
        write("bin.txt", std::string("hello\0world", 11));
        Result r = runInProcess(args("bin.txt", "o1"));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("bin.txt: a NUL byte at byte offset 5") != std::string::npos, r.err.c_str());
        verifyEmpty("o1");
        write("c.txt", corpus(3));
        r = runInProcess(args("c.txt", "o2", {QStringLiteral("--max_predictions_per_seq=9")}));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("max_predictions_per_seq=9 is more than masked_lm_prob=0.15") != std::string::npos,
                 r.err.c_str());
        verifyEmpty("o2");
        write("tiny.txt", "the cat\n");
        r = runInProcess(args("tiny.txt", "o3"));
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.find("warning: only 1 training sequence(s): fewer than one batch of 32") != std::string::npos,
                 r.err.c_str());
        r = runInProcess({QStringLiteral("prepare_pretraining"), QString::fromStdString("--input_file=" + path("c.txt")),
                               QString::fromStdString("--output_dir=" + path("o4"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("vocab_file") != std::string::npos, r.err.c_str());
    }

    /// A line of more than 1 MiB (text extracted from a PDF) is read in parts cut between two
    /// words: no [UNK] appears, and the summary and the report say where the line was cut.
    void longLineIsCutBetweenWordsAndReported()
    {
        std::string line;
        while (line.size() < (size_t(1) << 20) + 5000)
            line += line.size() % 7 ? "the cat sat on the mat " : "the dogs ran after the cats ";
        write("pdf.txt", line + "\n");
        const Result r = runInProcess(args("pdf.txt", "pdf", {QStringLiteral("--eval_fraction=0")}));
        QVERIFY2(r.code == 0, r.err.c_str());
        QVERIFY2(r.out.find("[UNK]: 0 ") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("lines over 1 MiB read in parts: 1 (1 cut(s), all between tokens; first: " + path("pdf.txt")
                            + ":1 at byte ")
                     != std::string::npos,
                 r.out.c_str());
        const auto report = nlohmann::json::parse(std::ifstream(path("pdf/prepare_report.json")));
        QCOMPARE(report["long_lines_split"].get<int>(), 1);
        QCOMPARE(report["long_line_cuts_inside_a_word"].get<int>(), 0);
        const auto at = report["long_line_splits"][0]["cut_offsets"][0].get<size_t>();
        QVERIFY(at <= (size_t(1) << 20) && (line[at] == ' ' || line[at - 1] == ' '));
    }

    /// A full disk (the file size limit, SIGXFSZ ignored so that write() fails with EFBIG):
    /// exit 2, the file named, nothing left in the output folder.
    void fullDiskLeavesNothing()
    {
        write("big.txt", corpus(600));
        QStringList a = args("big.txt", "full", {QStringLiteral("--masking=static")});
        QString command = QStringLiteral("trap '' XFSZ; ulimit -f 64; exec '") + cli() + QStringLiteral("'");
        for (const QString &s : a)
            command += QStringLiteral(" '") + s + QStringLiteral("'");
        const Result r = runProcess(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), command});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("write failed: File too large") != std::string::npos, r.err.c_str());
        verifyEmpty("full");
    }

    /// --pretrained_model=<folder>: its vocab.txt, its casing (tokenizer_config.json) and its
    /// max_position_embeddings (16) as the default max_seq_length.
    void pretrainedModelGivesVocabCasingAndLength()
    {
        const std::string model = path("model");
        fs::create_directories(model);
        const std::string fixture = WB_TEST_DATA_DIR "/pretrained/tiny-bert-safetensors";
        fs::copy_file(fixture + "/config.json", model + "/config.json");
        fs::copy_file(fixture + "/model.safetensors", model + "/model.safetensors");
        fs::copy_file(path("vocab.txt"), model + "/vocab.txt");
        write("model/tokenizer_config.json", "{\"do_lower_case\": false}");
        write("cased.txt", corpus(5) + "The Cat\n");
        const Result r = runInProcess({QStringLiteral("prepare_pretraining"),
                                       QString::fromStdString("--input_file=" + path("cased.txt")),
                                       QString::fromStdString("--pretrained_model=" + model),
                                       QStringLiteral("--max_predictions_per_seq=4"), QStringLiteral("--eval_fraction=0"),
                                       QString::fromStdString("--output_dir=" + path("pm"))});
        QVERIFY2(r.code == 0, r.err.c_str());
        QVERIFY2(r.err.find("max_seq_length 128 → 16") != std::string::npos, r.err.c_str());
        QVERIFY2(r.out.find("do_lower_case=false; max_seq_length=16") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("[UNK]: 2 ") != std::string::npos, r.out.c_str()); // "The", "Cat" are not in the cased vocab
    }

    void helpListsTheFlags()
    {
        std::ostringstream out, err;
        QCOMPARE(wb::cli::runCli({"prepare_pretraining", "--help"}, out, err), 0);
        for (const char *flag : {"--input_file", "--max_seq_length", "--max_predictions_per_seq", "--masked_lm_prob",
                                 "--short_seq_prob", "--dupe_factor", "--random_seed", "--do_whole_word_mask",
                                 "--next_sentence", "--masking", "--eval_fraction", "--num_output_shards",
                                 "--pretrained_model", "--text_column"})
            QVERIFY2(out.str().find(flag) != std::string::npos, flag);
        std::ostringstream usage, e2;
        wb::cli::runCli({"--help"}, usage, e2);
        QVERIFY(usage.str().find("prepare_pretraining") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(tst_CliPreparePretraining)
#include "tst_clipreparepretraining.moc"
