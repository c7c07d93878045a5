// SPDX-License-Identifier: Apache-2.0
#include "core/util/crc32c.h"
#include "core/data/example.pb.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordreader.h"
#include "core/data/tfrecordwriter.h"
#include "core/util/error.h"

#include "hex.h"

#include <QtTest>

#include <fstream>

using namespace wb;

namespace {

using wbtest::fromHex;

std::string toHex(const std::string &s)
{
    static const char *d = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        out.push_back(d[c >> 4]);
        out.push_back(d[c & 15]);
    }
    return out;
}

void writeBytes(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

std::string readBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> readAll(const std::string &path)
{
    TFRecordReader r(path);
    std::vector<std::string> out;
    std::string p;
    while (r.read(p))
        out.push_back(p);
    return out;
}

std::vector<std::string> samplePayloads()
{
    std::vector<std::string> v;
    for (int i = 0; i < 50; ++i)
        v.push_back(std::string(size_t(i * 37 % 1000), char('a' + i % 26)));
    v.push_back(std::string(300000, 'z')); // larger than one zlib refill
    v.push_back({});
    return v;
}

} // namespace

class tst_TFRecord : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string path(const char *name) const { return (m_dir.path() + QLatin1Char('/') + QLatin1String(name)).toStdString(); }

private Q_SLOTS:
    void crcVectors()
    {
        const std::string digits = "123456789";
        const std::string zeros(32, '\0'), ones(32, '\xFF');
        std::string ramp;
        for (int i = 0; i < 32; ++i)
            ramp.push_back(char(i));
        for (auto fn : {&crc32c, &crc32cPortable}) {
            QCOMPARE(fn(digits.data(), digits.size(), 0), 0xE3069283u);
            QCOMPARE(fn(zeros.data(), zeros.size(), 0), 0x8A9136AAu);
            QCOMPARE(fn(ones.data(), ones.size(), 0), 0x62A8AB43u);
            QCOMPARE(fn(ramp.data(), ramp.size(), 0), 0x46DD794Eu);
            // Incremental = one shot.
            QCOMPARE(fn(digits.data() + 4, 5, fn(digits.data(), 4, 0)), 0xE3069283u);
        }
        QCOMPARE(maskCrc(crc32c("", 0)), 0xA282EAD8u);
        QCOMPARE(unmaskCrc(maskCrc(0x12345678u)), 0x12345678u);
        std::string big(100003, '\0');
        for (size_t i = 0; i < big.size(); ++i)
            big[i] = char(i * 131 % 251);
        QCOMPARE(crc32c(big.data(), big.size()), crc32cPortable(big.data(), big.size()));
    }

    void frameVector()
    {
        QCOMPARE(toHex(TFRecordWriter::frame("hello")), std::string("0500000000000000eab2043e68656c6c6fbb1f1c19"));
    }

    void roundTrip_data()
    {
        QTest::addColumn<int>("compression");
        QTest::newRow("none") << int(RecordCompression::None);
        QTest::newRow("gzip") << int(RecordCompression::Gzip);
        QTest::newRow("zlib") << int(RecordCompression::Zlib);
    }

    void roundTrip()
    {
        QFETCH(int, compression);
        const auto c = RecordCompression(compression);
        const std::string p = path(QTest::currentDataTag());
        const auto payloads = samplePayloads();
        {
            TFRecordWriter w(p, c);
            for (const auto &s : payloads)
                w.write(s);
            QVERIFY(!QFile::exists(QString::fromStdString(p))); // not visible before commit
            w.commit();
            QCOMPARE(w.count(), int64_t(payloads.size()));
        }
        TFRecordReader r(p);
        QCOMPARE(int(r.compression()), compression);
        std::string s;
        size_t i = 0;
        while (r.read(s)) {
            QCOMPARE(s, payloads[i]);
            QCOMPARE(r.recordIndex(), int64_t(i));
            ++i;
        }
        QCOMPARE(i, payloads.size());
        TFRecordReader r2(p);
        int64_t n = 0;
        while (r2.skip(n % 2 == 0))
            ++n;
        QCOMPARE(n, int64_t(payloads.size()));
    }

    void uncommittedWriterLeavesNothing()
    {
        const std::string p = path("abandoned.tf_record");
        {
            TFRecordWriter w(p);
            w.write("x");
        }
        QVERIFY(!QFile::exists(QString::fromStdString(p)));
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("abandoned*")}, QDir::Files).size(), 0);
    }

    void emptyFileHasNoRecords()
    {
        const std::string p = path("empty.tf_record");
        writeBytes(p, {});
        QCOMPARE(readAll(p).size(), size_t(0));
    }

    void corrupt_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("location");
        QTest::addColumn<QString>("message");
        // Three records "aaaa", "bbbbbbbb", "cc": offsets 0, 20, 44.
        QTest::newRow("bad data crc") << "datacrc" << ": record 1 at byte 20" << "bad data CRC";
        QTest::newRow("bad length crc") << "lencrc" << ": record 2 at byte 44" << "bad length CRC";
        QTest::newRow("truncated payload") << "trunc-payload" << ": record 2 at byte 44" << "truncated record";
        QTest::newRow("truncated header") << "trunc-header" << ": record 2 at byte 44" << "inside the 12-byte record header";
        QTest::newRow("truncated footer") << "trunc-footer" << ": record 2 at byte 44" << "truncated record";
        QTest::newRow("text file") << "text" << ": record 0 at byte 0" << "not a TFRecord file";
        QTest::newRow("hostile length") << "hostile" << ": record 0 at byte 0" << "truncated record";
        QTest::newRow("huge length") << "huge" << ": record 0 at byte 0" << "limit";
        QTest::newRow("truncated gzip") << "trunc-gzip" << ": record" << "truncated GZIP stream";
        QTest::newRow("corrupt gzip") << "corrupt-gzip" << ": record" << "corrupted GZIP data|bad (data|length) CRC";
    }

    void corrupt()
    {
        QFETCH(QString, kind);
        QFETCH(QString, location);
        QFETCH(QString, message);
        std::string bytes = TFRecordWriter::frame("aaaa") + TFRecordWriter::frame("bbbbbbbb") + TFRecordWriter::frame("cc");
        auto header = [](uint64_t len) {
            std::string h(12, '\0');
            for (int i = 0; i < 8; ++i)
                h[size_t(i)] = char(len >> (8 * i));
            const uint32_t crc = maskCrc(crc32c(h.data(), 8));
            for (int i = 0; i < 4; ++i)
                h[size_t(8 + i)] = char(crc >> (8 * i));
            return h;
        };
        const std::string p = path("corrupt.tf_record");
        if (kind == QLatin1String("datacrc")) {
            bytes[20 + 12 + 3] ^= 1;
        } else if (kind == QLatin1String("lencrc")) {
            bytes[44 + 9] ^= 0x40;
        } else if (kind == QLatin1String("trunc-payload")) {
            bytes.resize(44 + 13);
        } else if (kind == QLatin1String("trunc-header")) {
            bytes.resize(44 + 5);
        } else if (kind == QLatin1String("trunc-footer")) {
            bytes.resize(bytes.size() - 2);
        } else if (kind == QLatin1String("text")) {
            bytes = "label,text\n1,hello world\n0,spam spam spam\n";
        } else if (kind == QLatin1String("hostile")) {
            bytes = header(uint64_t(1) << 30) + "xyz"; // valid CRC, 1 GiB announced, 3 bytes present
        } else if (kind == QLatin1String("huge")) {
            bytes = header(uint64_t(1) << 60) + "xyz";
        } else if (kind.contains(QLatin1String("gzip"))) {
            const std::string gz = path("tmp.gz");
            {
                TFRecordWriter w(gz, RecordCompression::Gzip);
                for (int i = 0; i < 200; ++i)
                    w.write(std::string(size_t(100 + i), char('a' + i % 26)) + std::to_string(i * 7919));
                w.commit();
            }
            bytes = readBytes(gz);
            if (kind == QLatin1String("trunc-gzip"))
                bytes.resize(bytes.size() / 2);
            else
                for (size_t i = 40; i < 60; ++i)
                    bytes[i] = char(0xFF);
        }
        writeBytes(p, bytes);
        try {
            readAll(p);
            QFAIL("no error");
        } catch (const Error &e) {
            const QString field = QString::fromStdString(e.field());
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(field.startsWith(QString::fromStdString(p)), qPrintable(field));
            QVERIFY2(field.contains(location), qPrintable(field));
            QVERIFY2(what.contains(QRegularExpression(message)), qPrintable(what));
        }
    }

    void missingAndDirectory()
    {
        QVERIFY_THROWS_EXCEPTION(Error, TFRecordReader(path("nope.tf_record")));
        try {
            TFRecordReader r(m_dir.path().toStdString());
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY(std::string(e.what()).find("directory") != std::string::npos);
        }
    }

    void exampleTestVector()
    {
        // formats.md §1.2: encoded independently and checked with protoc --decode_raw.
        const std::string wire = fromHex(
            "0a620a160a09696e7075745f69647312091a070a0565a83b66000a120a096c6162656c5f69647312051a030a01010a150a036e6567"
            "120e1a0c0a0affffffffffffffffff010a0d0a0177120812060a040000003f0a0e0a047465787412060a040a026869");
        const tensorflow::Example ex = parseExample(wire);
        const auto &f = ex.features().feature();
        const auto ids = f.at("input_ids").int64_list().value();
        QCOMPARE(std::vector<int64_t>(ids.begin(), ids.end()), (std::vector<int64_t>{101, 7592, 102, 0}));
        QCOMPARE(f.at("label_ids").int64_list().value(0), int64_t(1));
        QCOMPARE(f.at("neg").int64_list().value(0), int64_t(-1));
        QCOMPARE(f.at("w").float_list().value(0), 0.5f);
        QCOMPARE(f.at("text").bytes_list().value(0), std::string("hi"));
        QCOMPARE(describeFeatures(ex),
                 std::string("input_ids: int64[4], label_ids: int64[1], neg: int64[1], text: bytes[1], w: float[1]"));
        // Unpacked int64 encoding (0x08 varint per element) must be accepted too.
        tensorflow::Int64List unpacked;
        QVERIFY(unpacked.ParseFromString(fromHex("0865" "08a83b")));
        QCOMPARE(unpacked.value_size(), 2);
        QCOMPARE(unpacked.value(1), int64_t(7592));
    }

    void classifierRecordRoundTrip()
    {
        ClassifierRecord r;
        r.input_ids = {101, 7592, 102, 0};
        r.input_mask = {1, 1, 1, 0};
        r.segment_ids = {0, 0, 0, 0};
        r.label_id = 1;
        r.example_id = 7;
        const std::string wire = encodeClassifierRecord(r);
        RecordSpec spec;
        spec.max_seq_length = 4;
        spec.num_labels = 2;
        spec.vocab_size = 30522;
        spec.type_vocab_size = 2;
        ClassifierRecord back;
        decodeClassifierRecord(wire, spec, back);
        QCOMPARE(back.input_ids, r.input_ids);
        QCOMPARE(back.input_mask, r.input_mask);
        QCOMPARE(back.label_id, int64_t(1));
        QCOMPARE(back.example_id.value_or(-1), int64_t(7));
        const tensorflow::Example ex = parseExample(wire);
        QCOMPARE(ex.features().feature().at("is_real_example").int64_list().value(0), int64_t(1));
        QCOMPARE(describeFeatures(ex), std::string("example_id: int64[1], input_ids: int64[4], input_mask: int64[4], "
                                                   "is_real_example: int64[1], label_ids: int64[1], segment_ids: int64[4]"));
    }

    void classifierRecordErrors_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("message");
        QTest::newRow("short ids") << "short" << "'input_ids' has 3 values but max_seq_length is 4";
        QTest::newRow("label range") << "label" << "label_ids = 2 is outside [0, num_labels = 2)";
        QTest::newRow("float label") << "floatlabel" << "'label_ids' is a float_list";
        QTest::newRow("vocab range") << "vocab" << "input_ids[1] = 40000 is outside [0, vocab_size = 30522)";
        QTest::newRow("segment range") << "segment" << "segment_ids[2] = 2 is outside [0, type_vocab_size = 2)";
        QTest::newRow("missing mask") << "nomask" << "feature 'input_mask' is missing";
        QTest::newRow("bytes ids") << "bytes" << "'input_ids' is a bytes_list";
        QTest::newRow("not an example") << "garbage" << "not a serialized tf.train.Example";
    }

    void classifierRecordErrors()
    {
        QFETCH(QString, change);
        QFETCH(QString, message);
        tensorflow::Example ex;
        auto &f = *ex.mutable_features()->mutable_feature();
        auto set = [&](const char *name, std::vector<int64_t> v) {
            auto *l = f[name].mutable_int64_list();
            l->mutable_value()->Add(v.begin(), v.end());
        };
        set("input_ids", {101, change == QLatin1String("vocab") ? 40000 : 7592, 102, 0});
        if (change == QLatin1String("short"))
            f["input_ids"].mutable_int64_list()->mutable_value()->RemoveLast();
        if (change == QLatin1String("bytes"))
            f["input_ids"].mutable_bytes_list()->add_value("101 7592");
        if (change != QLatin1String("nomask"))
            set("input_mask", {1, 1, 1, 0});
        set("segment_ids", {0, 0, change == QLatin1String("segment") ? 2 : 0, 0});
        if (change == QLatin1String("floatlabel"))
            f["label_ids"].mutable_float_list()->add_value(1.0f);
        else
            set("label_ids", {change == QLatin1String("label") ? 2 : 1});
        std::string wire = ex.SerializeAsString();
        if (change == QLatin1String("garbage"))
            wire = "\xFF\xFF\xFF garbage";
        RecordSpec spec;
        spec.max_seq_length = 4;
        spec.num_labels = 2;
        spec.vocab_size = 30522;
        spec.type_vocab_size = 2;
        ClassifierRecord r;
        try {
            decodeClassifierRecord(wire, spec, r);
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
    }
};

QTEST_APPLESS_MAIN(tst_TFRecord)
#include "tst_tfrecord.moc"
