// SPDX-License-Identifier: Apache-2.0
#include "core/data/classifierdataset.h"
#include "core/prepare/dataprep.h"
#include "core/config/optionwords.h"
#include "core/events/stoptoken.h"
#include "core/data/example.pb.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/util/digest.h"
#include "core/util/error.h"

#include "support/textfiles.h"

#include <QtTest>

#include <fstream>

using namespace wb;
using wb::test::writeText;
using wb::test::readText;

namespace {

std::vector<ClassifierRecord> readRecords(const std::string &path, const RecordSpec &spec)
{
    std::vector<ClassifierRecord> out;
    TFRecordReader r(path);
    std::string p;
    while (r.read(p)) {
        ClassifierRecord rec;
        decodeClassifierRecord(p, spec, rec);
        out.push_back(rec);
    }
    return out;
}

/// The hint (or, with `what`, the message) of prepareData(o)'s error; "" when it succeeds.
std::string prepareError(const PrepareOptions &o, bool what = false)
{
    try {
        prepareData(o);
    } catch (const Error &e) {
        return what ? std::string(e.what()) : e.hint();
    }
    return {};
}

/// Sets the process-wide option wording for a scope and puts the command line's back after it.
struct WordingScope
{
    explicit WordingScope(OptionWording w) { setOptionWording(w); }
    ~WordingScope() { setOptionWording(OptionWording::CommandLine); }
};

// A small vocab: specials + a few words.
const std::vector<std::string> kVocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "hello", "world", "spam", "ham",
                                         "buy", "now", "cafe", "!", ",", "good", "bad", "movie", "##s", "a", "b"};

} // namespace

class tst_DataPrep : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_vocab;
    QString sub(const QString &name) const { return m_dir.path() + QLatin1Char('/') + name; }

private Q_SLOTS:
    /// FIPS 180-4 test vectors (the example's vocab check relies on it).
    void sha256KnownVectors()
    {
        QCOMPARE(wb::sha256Hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
        QCOMPARE(wb::sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
        QCOMPARE(wb::sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                 std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    }

    /// A file's digest is read in pieces: FIPS 180-4's million 'a', a file across several
    /// 1 MiB pieces equal to the digest of its bytes, and "" for what is not a readable file.
    void sha256OfFiles()
    {
        const QString million = sub(QStringLiteral("million-a.txt"));
        writeText(million, std::string(1000000, 'a'));
        QCOMPARE(wb::sha256FileHex(million.toStdString()),
                 std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
        std::string big(3 * 1048576 + 17, '\0');
        for (size_t i = 0; i < big.size(); ++i)
            big[i] = char((i * 2654435761u) >> 13);
        const QString bigPath = sub(QStringLiteral("pieces.bin"));
        writeText(bigPath, big);
        QCOMPARE(wb::sha256FileHex(bigPath.toStdString()), wb::sha256Hex(big));
        QCOMPARE(wb::sha256FileHex(sub(QStringLiteral("absent.bin")).toStdString()), std::string());
        QCOMPARE(wb::sha256FileHex(m_dir.path().toStdString()), std::string());
    }

    void initTestCase()
    {
        std::string v;
        for (const auto &t : kVocab)
            v += t + "\n";
        m_vocab = sub(QStringLiteral("vocab.txt")).toStdString();
        writeText(QString::fromStdString(m_vocab), v);
    }

    void folders()
    {
        const QString in = sub(QStringLiteral("folders"));
        for (int i = 0; i < 12; ++i)
            writeText(in + QStringLiteral("/spam/s%1.txt").arg(i), "buy now buy now buy now buy now !");
        for (int i = 0; i < 8; ++i)
            writeText(in + QStringLiteral("/ham/h%1.txt").arg(i), "hello world");
        writeText(in + QStringLiteral("/ham/bom.txt"), "\xEF\xBB\xBFhello");
        writeText(in + QStringLiteral("/ham/latin1.txt"), "caf\xE9 hello");  // é in Latin-1
        writeText(in + QStringLiteral("/ham/nul.txt"), std::string("hel\0lo", 6));
        writeText(in + QStringLiteral("/ham/.hidden"), "ignored");
        writeText(in + QStringLiteral("/.git/x"), "ignored");

        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.vocab_file = m_vocab;
        o.max_seq_length = 8;
        o.output_dir = sub(QStringLiteral("out-folders")).toStdString();
        o.eval_fraction = 0.25;
        std::vector<std::string> stages;
        const PrepareReport r = prepareData(o, [&](double f, const std::string &s) {
            QVERIFY(f >= 0.0 && f <= 1.0);
            if (stages.empty() || stages.back() != s)
                stages.push_back(s);
        });
        QCOMPARE(stages.front(), std::string("reading"));
        QCOMPARE(stages.back(), std::string("done"));
        QCOMPARE(r.labels, (std::vector<std::string>{"ham", "spam"}));
        QCOMPARE(r.train_examples + r.eval_examples, int64_t(23));
        QCOMPARE(r.eval_examples, int64_t(6)); // round(23 * 0.25)
        QCOMPARE(r.texts_with_bom, int64_t(1));
        QCOMPARE(r.texts_latin1, int64_t(1));
        QCOMPARE(r.texts_with_nul, int64_t(1));
        QCOMPARE(r.truncated_examples, int64_t(12)); // 9 tokens > 6
        QCOMPARE(readText(o.output_dir + "/labels.txt"), std::string("ham\nspam\n"));
        QCOMPARE(readText(o.output_dir + "/input_meta_data.json"),
                 "{\n    \"processor_type\": \"FOLDERS\",\n    \"train_data_size\": " + std::to_string(r.train_examples)
                     + ",\n    \"max_seq_length\": 8,\n    \"task_type\": \"bert_classification\",\n"
                       "    \"num_labels\": 2,\n    \"eval_data_size\": 6,\n    \"do_lower_case\": true\n}\n");

        RecordSpec spec;
        spec.max_seq_length = 8;
        spec.num_labels = 2;
        spec.vocab_size = int64_t(kVocab.size());
        spec.type_vocab_size = 2;
        const auto train = readRecords(r.train_path, spec);
        const auto eval = readRecords(r.eval_path, spec);
        QCOMPARE(int64_t(train.size()), r.train_examples);
        int spam = 0, latin = 0;
        for (const auto &rec : train) {
            QCOMPARE(rec.input_ids[0], int64_t(2)); // [CLS]
            if (rec.label_id == 1) {
                ++spam;
                // [CLS] buy now buy now buy now [SEP] (truncated)
                QCOMPARE(rec.input_ids, (std::vector<int64_t>{2, 8, 9, 8, 9, 8, 9, 3}));
                QCOMPARE(rec.input_mask, (std::vector<int64_t>(8, 1)));
            } else if (rec.input_ids[1] == 10) {
                ++latin; // "café hello" -> cafe hello
                QCOMPARE(rec.input_ids, (std::vector<int64_t>{2, 10, 4, 3, 0, 0, 0, 0}));
                QCOMPARE(rec.input_mask, (std::vector<int64_t>{1, 1, 1, 1, 0, 0, 0, 0}));
            }
            QCOMPARE(rec.segment_ids, (std::vector<int64_t>(8, 0)));
        }
        for (const auto &rec : eval)
            latin += rec.input_ids[1] == 10;
        QCOMPARE(latin, 1);
        QCOMPARE(r.train_label_counts.at("spam"), int64_t(spam));
        // Training order is shuffled (not all ham first).
        bool mixed = false;
        for (size_t i = 1; i < train.size(); ++i)
            mixed = mixed || train[i].label_id < train[i - 1].label_id;
        QVERIFY(mixed);
        // Same seed, same bytes.
        o.output_dir = sub(QStringLiteral("out-folders2")).toStdString();
        const PrepareReport r2 = prepareData(o);
        QCOMPARE(readText(r2.train_path), readText(r.train_path));
        QCOMPARE(readText(r2.eval_path), readText(r.eval_path));
    }

    void csvPairs()
    {
        const QString in = sub(QStringLiteral("pairs.csv"));
        writeText(in, "id,first,second,label\n"
                      "1,\"hello, world\",good movies,pos\n"
                      "2,bad,\"a \"\"b\"\"\nhello\",neg\n"
                      "3,hello hello hello hello,world world world,pos\n"
                      "4,a,b,neg\n");
        PrepareOptions o;
        o.input_data_dir = in.toStdString();
        o.classification_task_name = "csv";
        o.vocab_file = m_vocab;
        o.max_seq_length = 9;
        o.text_a_column = "first";
        o.text_b_column = "second";
        o.output_dir = sub(QStringLiteral("out-csv")).toStdString();
        o.eval_fraction = 0.0;
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.processor_type, std::string("CSV"));
        QCOMPARE(r.labels, (std::vector<std::string>{"neg", "pos"}));
        QCOMPARE(r.train_examples, int64_t(4));
        QCOMPARE(r.eval_examples, int64_t(0));
        RecordSpec spec;
        spec.max_seq_length = 9;
        spec.vocab_size = int64_t(kVocab.size());
        spec.type_vocab_size = 2;
        bool sawQuoted = false, sawTruncated = false;
        for (const auto &rec : readRecords(r.train_path, spec)) {
            if (rec.input_ids[1] == 4 && rec.input_ids[2] == 12) {
                sawQuoted = true; // [CLS] hello , world [SEP] good movie ##s [SEP]
                QCOMPARE(rec.input_ids, (std::vector<int64_t>{2, 4, 12, 5, 3, 13, 15, 16, 3}));
                QCOMPARE(rec.segment_ids, (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 1, 1, 1}));
                QCOMPARE(rec.label_id, int64_t(1));
            }
            if (rec.input_ids[1] == 4 && rec.input_ids[2] == 4) {
                sawTruncated = true; // 4 + 3 tokens into 6: longest first -> 3 + 3
                QCOMPARE(rec.input_ids, (std::vector<int64_t>{2, 4, 4, 4, 3, 5, 5, 5, 3}));
            }
        }
        QVERIFY(sawQuoted);
        QVERIFY(sawTruncated);
    }

    void glueMrpcAndStsb()
    {
        const QString mrpc = sub(QStringLiteral("MRPC"));
        writeText(mrpc + QStringLiteral("/train.tsv"),
                  "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\thello world\thello\n0\t3\t4\tbad\tgood\n");
        writeText(mrpc + QStringLiteral("/dev.tsv"), "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t5\t6\ta\tb\n");
        writeText(mrpc + QStringLiteral("/test.tsv"), "index\t#1 ID\t#2 ID\t#1 String\t#2 String\n0\t7\t8\ta\ta\n");
        PrepareOptions o;
        o.input_data_dir = mrpc.toStdString();
        o.classification_task_name = "MRPC";
        o.vocab_file = m_vocab;
        o.output_dir = sub(QStringLiteral("out-mrpc")).toStdString();
        o.write_test = true;
        PrepareReport r = prepareData(o);
        QCOMPARE(r.train_examples, int64_t(2));
        QCOMPARE(r.eval_examples, int64_t(1));
        QCOMPARE(r.test_examples, int64_t(1));
        QCOMPARE(readText(r.meta_path), std::string("{\n    \"processor_type\": \"MRPC\",\n    \"train_data_size\": 2,\n"
                                                    "    \"max_seq_length\": 128,\n    \"test_data_size\": 1,\n"
                                                    "    \"task_type\": \"bert_classification\",\n    \"num_labels\": 2,\n"
                                                    "    \"eval_data_size\": 1,\n    \"do_lower_case\": true\n}\n"));

        const QString stsb = sub(QStringLiteral("STS-B"));
        const std::string head = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n";
        writeText(stsb + QStringLiteral("/train.tsv"), head + "0\tx\tx\tx\tx\tx\tx\thello\tworld\t4.5\n"
                                                              "1\tx\tx\tx\tx\tx\tx\tbad\tgood\t0.25\n");
        writeText(stsb + QStringLiteral("/dev.tsv"), head + "0\tx\tx\tx\tx\tx\tx\ta\tb\t3\n");
        o.input_data_dir = stsb.toStdString();
        o.classification_task_name = "STS-B";
        o.output_dir = sub(QStringLiteral("out-stsb")).toStdString();
        o.write_test = false;
        r = prepareData(o);
        QVERIFY(r.regression);
        QCOMPARE(readText(r.meta_path), std::string("{\n    \"processor_type\": \"STS-B\",\n    \"train_data_size\": 2,\n"
                                                    "    \"max_seq_length\": 128,\n    \"task_type\": \"bert_regression\",\n"
                                                    "    \"label_type\": \"float\",\n    \"eval_data_size\": 1,\n    \"do_lower_case\": true\n}\n"));
        RecordSpec spec;
        spec.float_labels = true;
        const auto recs = readRecords(r.train_path, spec);
        std::vector<float> labels{recs[0].label_value, recs[1].label_value};
        std::sort(labels.begin(), labels.end());
        QCOMPARE(labels, (std::vector<float>{0.25f, 4.5f}));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("task");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("content");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown task") << "NOPE" << "x.tsv" << "a\n" << "classification_task_name" << "Task not found: NOPE";
        QTest::newRow("missing column") << "tsv" << "x.tsv" << "body\tlabel\nhello\t1\n" << "x.tsv:1"
                                        << "no text column was recognised in the header (columns: 'body', 'label')";
        QTest::newRow("short row") << "tsv" << "x.tsv" << "text\tlabel\nhello\t1\nworld\n" << "x.tsv:3"
                                   << "the row has 1 field, the header has 2 ('text', 'label')";
        QTest::newRow("unknown glue label") << "RTE" << "train.tsv"
                                            << "index\tsentence1\tsentence2\tlabel\n0\ta\tb\tmaybe\n"
                                            << "train.tsv:2"
                                            << "the label 'maybe' is not one of the labels of the task (entailment, not_entailment)";
        QTest::newRow("one label") << "csv" << "x.csv" << "text,label\na,1\nb,1\n" << "" << "1 distinct label";
        QTest::newRow("open quote") << "csv" << "x.csv" << "text,label\n\"a,1\n" << "x.csv:2" << "not closed";
    }

    void errors()
    {
        QFETCH(QString, task);
        QFETCH(QString, file);
        QFETCH(QString, content);
        QFETCH(QString, field);
        QFETCH(QString, message);
        QTemporaryDir dir;
        writeText(dir.path() + QLatin1Char('/') + file, content.toStdString());
        PrepareOptions o;
        o.input_data_dir = (task == QLatin1String("RTE") ? dir.path() : dir.path() + QLatin1Char('/') + file).toStdString();
        o.classification_task_name = task.toStdString();
        o.vocab_file = m_vocab;
        o.output_dir = (dir.path() + QStringLiteral("/out")).toStdString();
        try {
            prepareData(o);
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QString::fromStdString(e.field()).endsWith(field), e.field().c_str());
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
        QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/out/input_meta_data.json")));
        QVERIFY(!QFile::exists(dir.path() + QStringLiteral("/out/train.tf_record")));
    }

    /// Prepare's hints name options in the words of the front-end that shows them: flags on the
    /// command line, the window's fields ("fill in “Input data”") in the window.
    void messagesInWindowWording()
    {
        const QString mrpc = sub(QStringLiteral("MRPC-words"));
        writeText(mrpc + QStringLiteral("/train.tsv"),
                  "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\thello world\thello\n0\t3\t4\tbad\tgood\n");
        PrepareOptions glue;
        glue.input_data_dir = mrpc.toStdString();
        glue.classification_task_name = "MRPC";
        glue.label_list = "0,1";
        glue.vocab_file = m_vocab;
        glue.output_dir = sub(QStringLiteral("out-words")).toStdString();
        PrepareOptions noInput;
        noInput.vocab_file = m_vocab;
        const QString labelled = sub(QStringLiteral("folders-words"));
        writeText(labelled + QStringLiteral("/ham/h.txt"), "hello world");
        writeText(labelled + QStringLiteral("/spam/s.txt"), "buy now");
        PrepareOptions noOutput;
        noOutput.input_data_dir = labelled.toStdString();
        noOutput.vocab_file = m_vocab;
        PrepareOptions emptyLabel = noOutput;
        emptyLabel.output_dir = sub(QStringLiteral("out-words")).toStdString();
        emptyLabel.label_list = "ham,,spam";

        QCOMPARE(prepareError(noInput), std::string("Pass --input_data_dir=<folder or file>."));
        QCOMPARE(prepareError(glue), std::string("Leave out --label_list, or prepare the files as "
                                                 "--classification_task_name=tsv."));
        QCOMPARE(prepareError(noOutput), std::string("Pass --output_dir=<folder> (all outputs under default names) "
                                                     "or --meta_data_file_path."));
        QCOMPARE(prepareError(emptyLabel, true), std::string("an entry of --label_list is empty ('ham,,spam')"));
        {
            WordingScope window(OptionWording::Window);
            QCOMPARE(prepareError(noInput), std::string("Fill in \u201cInput data\u201d."));
            QCOMPARE(prepareError(glue), std::string("Leave out \u201cLabel list\u201d, or prepare the files as "
                                                     "\u201cFormat\u201d = tsv."));
            // a flag the window has no field for is named without the command line's dashes
            QCOMPARE(prepareError(noOutput), std::string("Fill in \u201cOutput folder\u201d (all outputs under "
                                                         "default names) or \u201cmeta_data_file_path\u201d."));
            QCOMPARE(prepareError(emptyLabel, true),
                     std::string("an entry of \u201cLabel list\u201d is empty ('ham,,spam')"));
            QCOMPARE(prepareError(emptyLabel),
                     std::string("Give the labels separated by commas, e.g. \u201cLabel list\u201d = neg,pos."));
        }
        QCOMPARE(optionWording(), OptionWording::CommandLine);
    }

    void cancelWritesNothing()
    {
        StopToken cancel;
        cancel.requestStop();
        PrepareOptions o;
        o.input_data_dir = sub(QStringLiteral("folders")).toStdString();
        o.vocab_file = m_vocab;
        o.output_dir = sub(QStringLiteral("out-cancel")).toStdString();
        QVERIFY_THROWS_EXCEPTION(Error, prepareData(o, {}, &cancel));
        QVERIFY(!QDir(sub(QStringLiteral("out-cancel"))).exists()
                || QDir(sub(QStringLiteral("out-cancel"))).isEmpty());
    }

    void spamassassinMini()
    {
        const QString mini = QStringLiteral(WB_SHARED_DATA_DIR "/spamassassin-mini");
        const std::string vocab = WB_SHARED_DATA_DIR "/vocab/bert-base-uncased-vocab.txt";
        if (!QDir(mini).exists() || !QFile::exists(QString::fromStdString(vocab)))
            QSKIP("shared data not available");
        PrepareOptions o;
        o.input_data_dir = mini.toStdString();
        o.vocab_file = vocab;
        o.output_dir = sub(QStringLiteral("out-mini")).toStdString();
        const PrepareReport r = prepareData(o);
        QCOMPARE(r.labels, (std::vector<std::string>{"ham", "spam"}));
        QCOMPARE(r.train_examples + r.eval_examples, int64_t(199));
        QCOMPARE(r.eval_examples, int64_t(20));
        QCOMPARE(r.truncated_examples, int64_t(199));
        DatasetOptions d;
        d.pattern = r.train_path;
        d.max_seq_length = 128;
        d.vocab_size = 30522;
        d.type_vocab_size = 2;
        d.batch_size = 1000;
        ClassifierDataset ds(d);
        ClassifierBatch b;
        QVERIFY(ds.next(b));
        QCOMPARE(b.size, r.train_examples);
        QCOMPARE(b.input_ids[0], int64_t(101));
        QCOMPARE(b.input_ids[127], int64_t(102));
    }
};

QTEST_APPLESS_MAIN(tst_DataPrep)
#include "tst_dataprep.moc"
