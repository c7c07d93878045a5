// SPDX-License-Identifier: Apache-2.0
#include "core/prepare/datacheck.h"
#include "core/data/classifierdataset.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/util/error.h"

#include <QtTest>

#include <set>

using namespace wb;

namespace {

constexpr int64_t kSeq = 8;

// Record i: input_ids[1] = 1000 + i identifies it; label i % 3.
ClassifierRecord makeRecord(int64_t i)
{
    ClassifierRecord r;
    r.input_ids.assign(kSeq, 0);
    r.input_mask.assign(kSeq, 0);
    r.segment_ids.assign(kSeq, 0);
    r.input_ids[0] = 101;
    r.input_ids[1] = 1000 + i;
    r.input_ids[2] = 102;
    for (int k = 0; k < 3; ++k)
        r.input_mask[size_t(k)] = 1;
    r.label_id = i % 3;
    return r;
}

void writeRecords(const std::string &path, int64_t first, int64_t count,
                  const std::function<void(int64_t, ClassifierRecord &)> &tweak = {})
{
    TFRecordWriter w(path);
    for (int64_t i = first; i < first + count; ++i) {
        ClassifierRecord r = makeRecord(i);
        if (tweak)
            tweak(i, r);
        w.write(encodeClassifierRecord(r));
    }
    w.commit();
}

std::vector<int64_t> ids(const ClassifierBatch &b)
{
    std::vector<int64_t> out;
    for (int64_t i = 0; i < b.size; ++i)
        out.push_back(b.input_ids[size_t(i * b.seq_length + 1)] - 1000);
    return out;
}

} // namespace

class tst_ClassifierDataset : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string path(const QString &name) const { return (m_dir.path() + QLatin1Char('/') + name).toStdString(); }

    DatasetOptions options(const std::string &pattern, int64_t batch) const
    {
        DatasetOptions o;
        o.pattern = pattern;
        o.max_seq_length = kSeq;
        o.num_labels = 3;
        o.vocab_size = 30522;
        o.type_vocab_size = 2;
        o.batch_size = batch;
        return o;
    }

private Q_SLOTS:
    void initTestCase()
    {
        writeRecords(path(QStringLiteral("a.tf_record")), 0, 6);
        writeRecords(path(QStringLiteral("b.tf_record")), 6, 4);
    }

    void evalKeepsOrderAndPartialBatch()
    {
        ClassifierDataset ds(options(path(QStringLiteral("*.tf_record")), 4));
        QCOMPARE(ds.files().size(), size_t(2));
        QCOMPARE(ds.countRecords(), int64_t(10));
        ClassifierBatch b;
        std::vector<int64_t> sizes, seen;
        while (ds.next(b)) {
            sizes.push_back(b.size);
            const auto v = ids(b);
            seen.insert(seen.end(), v.begin(), v.end());
            QCOMPARE(b.input_ids.size(), size_t(b.size * kSeq));
            QCOMPARE(b.label_ids.size(), size_t(b.size));
            QCOMPARE(b.label_ids[0], v[0] % 3);
            QCOMPARE(b.record_indices, v); // record i holds id 1000 + i
            QCOMPARE(b.input_mask[2], int64_t(1));
            QCOMPARE(b.input_mask[3], int64_t(0));
        }
        QCOMPARE(sizes, (std::vector<int64_t>{4, 4, 2}));
        QCOMPARE(seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        QVERIFY(!ds.next(b));
        ds.reset();
        QVERIFY(ds.next(b));
        QCOMPARE(ids(b), (std::vector<int64_t>{0, 1, 2, 3}));
    }

    void trainingShufflesRepeatsAndDropsRemainder()
    {
        auto o = options(path(QStringLiteral("a.tf_record")) + "," + path(QStringLiteral("b.tf_record")), 4);
        o.training = true;
        o.seed = 7;
        auto firstRecords = [&](DatasetOptions opt, size_t n) -> std::vector<int64_t> {
            ClassifierDataset ds(opt);
            std::vector<int64_t> seen;
            ClassifierBatch b;
            while (seen.size() < n) {
                if (!ds.next(b) || b.size != 4)
                    return {}; // training never ends and never yields a partial batch

                const auto v = ids(b);
                if (b.record_indices != v)
                    return {}; // each row names its record, shuffled or not
                seen.insert(seen.end(), v.begin(), v.end());
            }
            return seen;
        };
        const auto run1 = firstRecords(o, 40);
        // Each epoch (buffer 100 > 10 records) is a permutation of all records.
        for (size_t e = 0; e < 4; ++e) {
            std::set<int64_t> epoch(run1.begin() + long(e * 10), run1.begin() + long(e * 10 + 10));
            QCOMPARE(epoch.size(), size_t(10));
            QCOMPARE(*epoch.begin(), int64_t(0));
            QCOMPARE(*epoch.rbegin(), int64_t(9));
        }
        std::vector<int64_t> identity{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        QVERIFY(std::vector<int64_t>(run1.begin(), run1.begin() + 10) != identity);
        QCOMPARE(firstRecords(o, 40), run1); // same seed, same order
        o.seed = 8;
        QVERIFY(firstRecords(o, 40) != run1);
        // Buffer of 1: no shuffling at all.
        o.shuffle_buffer = 1;
        const auto unshuffled = firstRecords(o, 12);
        QCOMPARE(std::vector<int64_t>(unshuffled.begin(), unshuffled.begin() + 10), identity);
    }

    void shardingAndTake()
    {
        auto o = options(path(QStringLiteral("*.tf_record")), 100);
        o.num_shards = 3;
        o.shard_index = 1;
        {
            ClassifierDataset ds(o);
            ClassifierBatch b;
            QVERIFY(ds.next(b));
            QCOMPARE(ids(b), (std::vector<int64_t>{1, 4, 7}));
            QCOMPARE(b.record_indices, (std::vector<int64_t>{1, 4, 7}));
        }
        o.num_shards = 1;
        o.shard_index = 0;
        o.take = 5;
        ClassifierDataset ds(o);
        ClassifierBatch b;
        QVERIFY(ds.next(b));
        QCOMPARE(ids(b), (std::vector<int64_t>{0, 1, 2, 3, 4}));
        o.shard_index = 1;
        QVERIFY_THROWS_EXCEPTION(Error, ClassifierDataset{o});
    }

    void floatLabelsAndWeights()
    {
        const std::string p = path(QStringLiteral("reg.tf_record"));
        writeRecords(p, 0, 3, [](int64_t i, ClassifierRecord &r) {
            r.float_label = true;
            r.label_value = 0.5f * float(i);
            r.weight = 2.0f;
        });
        auto o = options(p, 8);
        o.float_labels = true;
        o.has_sample_weights = true;
        ClassifierDataset ds(o);
        ClassifierBatch b;
        QVERIFY(ds.next(b));
        QCOMPARE(b.label_values, (std::vector<float>{0.0f, 0.5f, 1.0f}));
        QCOMPARE(b.weights, (std::vector<float>{2.0f, 2.0f, 2.0f}));
        QVERIFY(b.label_ids.empty());
    }

    void patterns()
    {
        QCOMPARE(expandFilePattern(path(QStringLiteral("b.tf_record")) + " , " + path(QStringLiteral("a.tf_*"))),
                 (std::vector<std::string>{path(QStringLiteral("b.tf_record")), path(QStringLiteral("a.tf_record"))}));
        try {
            expandFilePattern(path(QStringLiteral("*.nothing")));
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.field(), path(QStringLiteral("*.nothing")));
            QVERIFY(std::string(e.what()).find("matches no files") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(Error, expandFilePattern(path(QStringLiteral("missing.tf_record"))));
        QVERIFY_THROWS_EXCEPTION(Error, expandFilePattern(m_dir.path().toStdString()));
        QVERIFY_THROWS_EXCEPTION(Error, expandFilePattern(" , "));
    }

    void badRecordNamesLocation_data()
    {
        QTest::addColumn<int>("labels");
        QTest::addColumn<QString>("message");
        QTest::newRow("label out of range") << 2 << "label_ids = 2 is outside [0, num_labels = 2)";
        QTest::newRow("wrong seq length") << 3 << "max_seq_length is 9";
    }

    void badRecordNamesLocation()
    {
        QFETCH(int, labels);
        QFETCH(QString, message);
        auto o = options(path(QStringLiteral("a.tf_record")), 2);
        o.num_labels = labels;
        if (labels == 3)
            o.max_seq_length = 9;
        ClassifierDataset ds(o);
        ClassifierBatch b;
        try {
            int batches = 0;
            while (ds.next(b))
                ++batches;
            QFAIL("no error");
        } catch (const Error &e) {
            const std::string where = labels == 2 ? ": record 2 at byte " : ": record 0 at byte 0";
            QVERIFY2(e.field().find(path(QStringLiteral("a.tf_record")) + where) == 0, e.field().c_str());
            QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
        }
    }

    void checkDataFilesReports()
    {
        TrainingOptions t;
        t.train_data_path = path(QStringLiteral("*.tf_record"));
        t.eval_data_path = path(QStringLiteral("nothing-*.tf_record"));
        BertConfig cfg;
        cfg.vocab_size = 30522;
        cfg.type_vocab_size = 2;
        InputMetaData meta;
        meta.max_seq_length = kSeq;
        meta.num_labels = 3;
        meta.train_data_size = 12;
        meta.eval_data_size = 4;
        Diagnostics diag;
        // reg.tf_record has float labels: reported with its location.
        checkDataFiles(t, cfg, meta, diag);
        QCOMPARE(diag.errorCount(), 2);
        const std::string all = diag.format();
        QVERIFY2(all.find("reg.tf_record: record 0 at byte 0") != std::string::npos, all.c_str());
        QVERIFY2(all.find("matches no files") != std::string::npos, all.c_str());

        t.train_data_path = path(QStringLiteral("a.tf_record")) + "," + path(QStringLiteral("b.tf_record"));
        t.eval_data_path = path(QStringLiteral("b.tf_record"));
        Diagnostics d2;
        checkDataFiles(t, cfg, meta, d2);
        QCOMPARE(d2.errorCount(), 0);
        QCOMPARE(d2.items().size(), size_t(1)); // train_data_size 12 vs 10 records; eval 4 matches
        QVERIFY(d2.items()[0].message.find("train_data_size = 12 but the files hold 10 records") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(tst_ClassifierDataset)
#include "tst_classifierdataset.moc"
