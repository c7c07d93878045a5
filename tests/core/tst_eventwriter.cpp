// SPDX-License-Identifier: Apache-2.0
// EventWriter / EventReader / SummaryWriter: TensorBoard event files (formats.md §2).
#include "core/data/tfrecordreader.h"
#include "core/data/tfrecordwriter.h"
#include "core/io/event.pb.h"
#include "core/io/eventreader.h"
#include "core/io/eventwriter.h"
#include "core/io/summarywriter.h"
#include "core/util/error.h"

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include "hex.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

namespace {

using wbtest::fromHex;

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string &path, const std::string &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> payloads(const std::string &path)
{
    wb::TFRecordReader reader(path);
    std::vector<std::string> out;
    std::string p;
    while (reader.read(p))
        out.push_back(p);
    return out;
}

std::vector<std::string> eventFiles(const std::string &dir)
{
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(dir))
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

// Formats.md §2 test vectors (payloads, before framing).
const char *kVersionEvent = "0900000040fc54d9411a0d627261696e2e4576656e743a32";
const char *kLossEvent = "0900006040fc54d94110012a0d0a0b0a046c6f7373150000003f";
const char *kTf2AccuracyEvent =
    "0900008040fc54d94110022a270a250a0861636375726163794a0d0a090a077363616c6172732001420a080112002a040000403f";

} // namespace

class tst_EventWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fileNameAndExactBytes();
    void uniqueFileNames();
    void roundTrip_data();
    void roundTrip();
    void protocDecodeRaw();
    void readsTf2TensorScalars();
    void summaryWriterLayout();
    void summaryWriterEvalTags_data();
    void summaryWriterEvalTags();
    void damagedFilesKeepEarlierRecords();
    void errors();
};

void tst_EventWriter::fileNameAndExactBytes()
{
    QTemporaryDir tmp;
    const std::string logdir = tmp.filePath(QStringLiteral("a/b")).toStdString();
    std::string path;
    {
        wb::EventWriter w(logdir, 1700000000.0);
        w.addScalar("loss", 1, 0.5, 1700000001.5);
        path = w.path();
        QCOMPARE(w.recordCount(), int64_t(2));
    }
    QCOMPARE(QString::fromStdString(fs::path(path).filename().string()),
             QStringLiteral("events.out.tfevents.1700000000.")
                 + QString::fromStdString(wb::EventWriter::hostName()));
    QCOMPARE(fs::path(path).parent_path().string(), logdir);
    const std::string expected =
        wb::TFRecordWriter::frame(fromHex(kVersionEvent)) + wb::TFRecordWriter::frame(fromHex(kLossEvent));
    QCOMPARE(readAll(path).size(), expected.size());
    QVERIFY(readAll(path) == expected);
}

void tst_EventWriter::uniqueFileNames()
{
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    wb::EventWriter a(dir, 1700000000.0);
    wb::EventWriter b(dir, 1700000000.0);
    QVERIFY(a.path() != b.path());
    QCOMPARE(b.path(), a.path() + ".1");
    QCOMPARE(eventFiles(dir).size(), size_t(2));
}

void tst_EventWriter::roundTrip_data()
{
    QTest::addColumn<QString>("tag");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<double>("value");
    QTest::newRow("loss") << QStringLiteral("loss") << qint64(10) << 0.6931471805599453;
    QTest::newRow("negative") << QStringLiteral("eval_mcc") << qint64(3) << -0.25;
    QTest::newRow("tiny lr") << QStringLiteral("learning_rate") << qint64(114) << 2e-5;
    QTest::newRow("big step") << QStringLiteral("examples_per_second") << (qint64(1) << 40) << 1234.5;
    QTest::newRow("zero step") << QStringLiteral("x/y") << qint64(0) << 0.0;
}

void tst_EventWriter::roundTrip()
{
    QFETCH(QString, tag);
    QFETCH(qint64, step);
    QFETCH(double, value);
    QTemporaryDir tmp;
    std::string path;
    {
        wb::EventWriter w(tmp.path().toStdString());
        w.addScalar(tag.toStdString(), step, value, 1700000123.25);
        w.addScalar(tag.toStdString(), step + 1, value * 2, 1700000124.0);
        w.flush();
        path = w.path();
        // Flushed records are visible while the writer is still open.
        const wb::EventFileContents live = wb::EventReader::readFile(path);
        QCOMPARE(live.scalars.size(), size_t(2));
    }
    const wb::EventFileContents c = wb::EventReader::readFile(path);
    QCOMPARE(QString::fromStdString(c.file_version), QStringLiteral("brain.Event:2"));
    QCOMPARE(c.records, int64_t(3));
    QCOMPARE(c.scalars.size(), size_t(2));
    QCOMPARE(QString::fromStdString(c.scalars[0].tag), tag);
    QCOMPARE(c.scalars[0].step, int64_t(step));
    QCOMPARE(c.scalars[1].step, int64_t(step + 1));
    QCOMPARE(c.scalars[0].wall_time, 1700000123.25);
    // simple_value is float32: exact after rounding to float.
    QCOMPARE(c.scalars[0].value, double(float(value)));
    QCOMPARE(c.scalars[1].value, double(float(value * 2)));
}

void tst_EventWriter::protocDecodeRaw()
{
    const QString protoc = QStandardPaths::findExecutable(QStringLiteral("protoc"));
    if (protoc.isEmpty())
        QSKIP("protoc (protobuf-compiler) is not installed");
    QTemporaryDir tmp;
    std::string path;
    {
        wb::EventWriter w(tmp.path().toStdString(), 1700000000.0);
        w.addScalar("loss", 7, 0.5, 1700000001.5);
        w.addScalar("learning_rate", 8, 0.25, 1700000002.0);
        path = w.path();
    }
    const std::vector<std::string> records = payloads(path);
    QCOMPARE(records.size(), size_t(3));
    QStringList decoded;
    for (const std::string &payload : records) {
        QProcess p;
        p.start(protoc, {QStringLiteral("--decode_raw")});
        QVERIFY(p.waitForStarted());
        p.write(payload.data(), qint64(payload.size()));
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        decoded << QString::fromUtf8(p.readAllStandardOutput()).simplified();
    }
    // Field 1 wall_time (fixed64 double), 2 step, 3 file_version, 5 summary{1 value{1 tag, 2 simple_value}}.
    QCOMPARE(decoded[0], QStringLiteral("1: 0x41d954fc40000000 3: \"brain.Event:2\""));
    QCOMPARE(decoded[1], QStringLiteral("1: 0x41d954fc40600000 2: 7 5 { 1 { 1: \"loss\" 2: 0x3f000000 } }"));
    QCOMPARE(decoded[2],
             QStringLiteral("1: 0x41d954fc40800000 2: 8 5 { 1 { 1: \"learning_rate\" 2: 0x3e800000 } }"));
}

void tst_EventWriter::readsTf2TensorScalars()
{
    QTemporaryDir tmp;
    const std::string path = tmp.filePath(QStringLiteral("events.out.tfevents.1700000000.tf")).toStdString();

    // A TF2-style file: the formats.md vector (float_val), a later value of the same tag
    // without metadata (tensor_content), a double scalar, and a histogram-plugin tensor.
    std::string bytes = wb::TFRecordWriter::frame(fromHex(kVersionEvent));
    bytes += wb::TFRecordWriter::frame(fromHex(kTf2AccuracyEvent));
    {
        wb::tb::Event e;
        e.set_wall_time(1700000003.0);
        e.set_step(3);
        auto *v = e.mutable_summary()->add_value();
        v->set_tag("accuracy");
        v->mutable_tensor()->set_dtype(1);
        const float f = 0.875f;
        v->mutable_tensor()->set_tensor_content(std::string(reinterpret_cast<const char *>(&f), 4));
        bytes += wb::TFRecordWriter::frame(e.SerializeAsString());
    }
    {
        wb::tb::Event e;
        e.set_wall_time(1700000004.0);
        e.set_step(4);
        auto *v = e.mutable_summary()->add_value();
        v->set_tag("epoch_loss");
        v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("scalars");
        v->mutable_tensor()->set_dtype(2);
        v->mutable_tensor()->add_double_val(0.123456789);
        auto *h = e.mutable_summary()->add_value();
        h->set_tag("weights");
        h->mutable_metadata()->mutable_plugin_data()->set_plugin_name("histograms");
        h->mutable_tensor()->set_dtype(1);
        h->mutable_tensor()->add_float_val(9.0f);
        bytes += wb::TFRecordWriter::frame(e.SerializeAsString());
    }
    writeAll(path, bytes);

    const wb::EventFileContents c = wb::EventReader::readFile(path);
    QCOMPARE(c.records, int64_t(4));
    QCOMPARE(c.scalars.size(), size_t(3));
    QCOMPARE(QString::fromStdString(c.scalars[0].tag), QStringLiteral("accuracy"));
    QCOMPARE(c.scalars[0].step, int64_t(2));
    QCOMPARE(c.scalars[0].wall_time, 1700000002.0);
    QCOMPARE(c.scalars[0].value, 0.75);
    QCOMPARE(c.scalars[1].step, int64_t(3));
    QCOMPARE(c.scalars[1].value, 0.875);
    QCOMPARE(QString::fromStdString(c.scalars[2].tag), QStringLiteral("epoch_loss"));
    QCOMPARE(c.scalars[2].value, 0.123456789);

    // The same file opened as a log directory: one run named ".".
    const std::vector<wb::ScalarRun> runs = wb::EventReader::readRuns(tmp.path().toStdString());
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(QString::fromStdString(runs[0].name), QStringLiteral("."));
    QCOMPARE(runs[0].series.size(), size_t(2));
    QCOMPARE(runs[0].series.at("accuracy").size(), size_t(2));
    QVERIFY(runs[0].warnings.empty());
}

void tst_EventWriter::summaryWriterLayout()
{
    QTemporaryDir tmp;
    const std::string modelDir = tmp.filePath(QStringLiteral("model")).toStdString();
    {
        wb::SummaryWriter sw(modelDir);
        QVERIFY(!fs::exists(modelDir));  // nothing is created before the first write
        for (int step = 10; step <= 30; step += 10) {
            wb::StepMetrics m;
            m.step = step;
            m.loss = 1.0 / step;
            m.learning_rate = 2e-5 * (1.0 - step / 100.0);
            m.examples_per_second = 100.0 + step;
            m.wall_time = 1700000000.0 + step;
            sw.writeTrain(m);
        }
        QVERIFY(!fs::exists(sw.validationDir()));
        wb::EvalMetrics e;
        e.step = 30;
        e.wall_time = 1700000031.0;
        e.eval_loss = 0.4;
        e.eval_accuracy = 0.9;
        sw.writeEval(e);
        // Visible before the writer is destroyed (flushed per call).
        QCOMPARE(wb::EventReader::readRuns(modelDir + "/summaries").size(), size_t(2));
    }
    const std::vector<wb::ScalarRun> runs = wb::EventReader::readRuns(modelDir + "/summaries");
    QCOMPARE(runs.size(), size_t(2));
    QCOMPARE(QString::fromStdString(runs[0].name), QStringLiteral("train"));
    QCOMPARE(QString::fromStdString(runs[1].name), QStringLiteral("validation"));
    QCOMPARE(runs[0].files.size(), size_t(1));
    QVERIFY(QString::fromStdString(fs::path(runs[0].files[0]).filename().string())
                .startsWith(QStringLiteral("events.out.tfevents.1700000010.")));

    const auto &train = runs[0].series;
    QCOMPARE(train.size(), size_t(3));
    QCOMPARE(train.at("loss").size(), size_t(3));
    QCOMPARE(train.at("loss")[1].step, int64_t(20));
    QCOMPARE(train.at("loss")[1].value, double(float(1.0 / 20)));
    QCOMPARE(train.at("loss")[1].wall_time, 1700000020.0);
    QCOMPARE(train.at("learning_rate")[2].value, double(float(2e-5 * 0.7)));
    QCOMPARE(train.at("examples_per_second")[0].value, 110.0);

    const auto &val = runs[1].series;
    QCOMPARE(val.size(), size_t(2));
    QCOMPARE(val.at("eval_loss")[0].step, int64_t(30));
    QCOMPARE(val.at("eval_loss")[0].value, double(float(0.4)));
    QCOMPARE(val.at("eval_accuracy")[0].value, double(float(0.9)));

    // The whole model_dir opens too (runs named by relative path).
    const std::vector<wb::ScalarRun> all = wb::EventReader::readRuns(modelDir);
    QCOMPARE(QString::fromStdString(all[0].name), QStringLiteral("summaries/train"));
}

void tst_EventWriter::summaryWriterEvalTags_data()
{
    QTest::addColumn<bool>("regression");
    QTest::addColumn<bool>("binary");
    QTest::addColumn<QStringList>("tags");
    QTest::newRow("multi-class") << false << false
                                 << QStringList{QStringLiteral("eval_accuracy"), QStringLiteral("eval_loss")};
    QTest::newRow("binary") << false << true
                            << QStringList{QStringLiteral("eval_accuracy"), QStringLiteral("eval_f1"),
                                           QStringLiteral("eval_loss"), QStringLiteral("eval_mcc")};
    QTest::newRow("regression") << true << false
                                << QStringList{QStringLiteral("eval_loss"), QStringLiteral("eval_mse"),
                                               QStringLiteral("eval_pearson"), QStringLiteral("eval_spearman")};
}

void tst_EventWriter::summaryWriterEvalTags()
{
    QFETCH(bool, regression);
    QFETCH(bool, binary);
    QFETCH(QStringList, tags);
    QTemporaryDir tmp;
    wb::SummaryWriter sw(tmp.path().toStdString());
    wb::EvalMetrics e;
    e.step = 5;
    e.regression = regression;
    e.binary = binary;
    e.eval_loss = 0.5;
    e.eval_accuracy = 0.75;
    e.eval_f1 = 0.625;
    e.eval_mcc = -0.125;
    e.eval_mse = 1.5;
    e.eval_pearson = 0.25;
    e.eval_spearman = 0.375;
    sw.writeEval(e);
    QVERIFY(!fs::exists(sw.trainDir()));
    const std::vector<wb::ScalarRun> runs = wb::EventReader::readRuns(sw.validationDir());
    QCOMPARE(runs.size(), size_t(1));
    QStringList got;
    for (const auto &[tag, points] : runs[0].series) {
        got << QString::fromStdString(tag);
        QCOMPARE(points.size(), size_t(1));
        QCOMPARE(points[0].step, int64_t(5));
    }
    QCOMPARE(got, tags);
    if (binary)
        QCOMPARE(runs[0].series.at("eval_mcc")[0].value, -0.125);
    if (regression)
        QCOMPARE(runs[0].series.at("eval_mse")[0].value, 1.5);
}

void tst_EventWriter::damagedFilesKeepEarlierRecords()
{
    QTemporaryDir tmp;
    std::string path;
    {
        wb::EventWriter w(tmp.path().toStdString(), 1700000000.0);
        for (int i = 1; i <= 3; ++i)
            w.addScalar("loss", i, 1.0 / i, 1700000000.0 + i);
        path = w.path();
    }
    const std::string good = readAll(path);

    // Truncated in the middle of the last record (a file still being written).
    writeAll(path, good.substr(0, good.size() - 5));
    QVERIFY_THROWS_EXCEPTION(wb::Error, wb::EventReader::readFile(path));
    std::vector<wb::ScalarRun> runs = wb::EventReader::readRuns(tmp.path().toStdString());
    QCOMPARE(runs[0].series.at("loss").size(), size_t(2));
    QCOMPARE(runs[0].warnings.size(), size_t(1));
    QVERIFY(QString::fromStdString(runs[0].warnings[0]).contains(QStringLiteral("truncated")));

    // A flipped payload byte in the last record: a CRC error naming the file.
    std::string bad = good;
    bad[bad.size() - 6] ^= 0x01;
    writeAll(path, bad);
    try {
        wb::EventReader::readFile(path);
        QFAIL("a CRC mismatch must throw");
    } catch (const wb::Error &e) {
        QVERIFY(QString::fromStdString(e.field()).contains(QString::fromStdString(path)));
        QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("CRC")));
    }
    runs = wb::EventReader::readRuns(tmp.path().toStdString());
    QCOMPARE(runs[0].series.at("loss").size(), size_t(2));
    QCOMPARE(runs[0].series.at("loss")[1].value, double(float(0.5)));
}

void tst_EventWriter::errors()
{
    QTemporaryDir tmp;
    const std::string missing = tmp.filePath(QStringLiteral("nope")).toStdString();
    try {
        wb::EventReader::readRuns(missing);
        QFAIL("a missing directory must throw");
    } catch (const wb::Error &e) {
        QCOMPARE(e.field(), missing);
        QVERIFY(!e.hint().empty());
    }
    // A directory with files but no event file.
    writeAll(tmp.filePath(QStringLiteral("notes.txt")).toStdString(), "hello");
    QVERIFY_THROWS_EXCEPTION(wb::Error, wb::EventReader::readRuns(tmp.path().toStdString()));
    // An "event file" that is not one.
    const std::string fake = tmp.filePath(QStringLiteral("events.out.tfevents.1.x")).toStdString();
    writeAll(fake, "this is not a TFRecord file at all");
    QVERIFY_THROWS_EXCEPTION(wb::Error, wb::EventReader::readFile(fake));
    // A valid record whose payload is not an Event.
    writeAll(fake, wb::TFRecordWriter::frame(std::string("\xff\xff\xff", 3)));
    QVERIFY_THROWS_EXCEPTION(wb::Error, wb::EventReader::readFile(fake));
    // The writer cannot create its directory below a regular file.
    QVERIFY_THROWS_EXCEPTION(wb::Error, wb::EventWriter(tmp.filePath(QStringLiteral("notes.txt/sub")).toStdString()));
    QVERIFY(wb::EventReader::isEventFile("/x/events.out.tfevents.1700000000.host"));
    QVERIFY(!wb::EventReader::isEventFile("/tfevents/notes.txt"));
}

QTEST_APPLESS_MAIN(tst_EventWriter)
#include "tst_eventwriter.moc"
