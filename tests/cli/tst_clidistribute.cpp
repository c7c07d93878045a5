// SPDX-License-Identifier: Apache-2.0
// bert-workbench-cli as a new user runs it (issue 6, "what will be checked"): two local
// workers train; a missing worker, a bad TF_CONFIG and a non-divisible batch each end
// with a clear error in bounded time.
#include "core/util/tcpport.h"
#include "core/data/examplecodec.h"
#include "core/data/tfrecordwriter.h"
#include "core/config/clusterspec.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

using namespace wb;

namespace {

constexpr int64_t kSeq = 8;

void writeRecords(const std::string &path, int n, uint32_t seed)
{
    std::mt19937 rng(seed);
    TFRecordWriter w(path);
    for (int k = 0; k < n; ++k) {
        ClassifierRecord r;
        r.label_id = k % 2;
        for (int64_t t = 0; t < kSeq; ++t) {
            r.input_ids.push_back(t == 0 ? 2 : (t == 1 ? (r.label_id ? 10 : 20) : 30 + int64_t(rng() % 60)));
            r.input_mask.push_back(1);
            r.segment_ids.push_back(0);
        }
        w.write(encodeClassifierRecord(r));
    }
    w.commit();
}

struct Result
{
    int code = -1;
    QString out, err;
    double seconds = 0;
};

} // namespace

class tst_CliDistribute : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_data = m_dir.path();
        const std::string d = m_data.toStdString();
        writeRecords(d + "/train.tf_record", 32, 1);
        writeRecords(d + "/eval.tf_record", 10, 2);
        nlohmann::json cfg = {{"vocab_size", 100},        {"hidden_size", 16},       {"num_hidden_layers", 1},
                              {"num_attention_heads", 2}, {"intermediate_size", 32}, {"max_position_embeddings", 16},
                              {"type_vocab_size", 2}};
        std::ofstream(d + "/bert_config.json") << cfg.dump(2);
        nlohmann::json meta = {{"task_type", "bert_classification"}, {"num_labels", 2}, {"max_seq_length", kSeq},
                               {"train_data_size", 32}, {"eval_data_size", 10}};
        std::ofstream(d + "/input_meta_data.json") << meta.dump(2);
    }

    void twoLocalWorkersTrain()
    {
        const QString modelDir = m_dir.filePath(QStringLiteral("two"));
        const Result r = cli(args(modelDir) << QStringLiteral("--num_local_workers=2"));
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("starting 2 local workers")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("multi_worker_mirrored: worker rank 0 of 2 (chief)")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("worker rank 1 of 2")), qPrintable(r.out)); // only the chief reports
        // 32 records / batch 8 = 4 steps per epoch, 1 epoch: one eval and ckpt-4, written once.
        QVERIFY(QFile::exists(modelDir + QStringLiteral("/ckpt-4")));
        QFile metrics(modelDir + QStringLiteral("/metrics.jsonl"));
        QVERIFY(metrics.open(QIODevice::ReadOnly));
        const QByteArray all = metrics.readAll();
        QCOMPARE(all.count("\"kind\":\"eval\""), 1);
    }

    /// --progress_format=jsonl with local workers: stdout is only JSON events, the chief's,
    /// ending with "finished"; a run that cannot start ends the same way.
    void jsonlStreamIsPureJson()
    {
        const QString modelDir = m_dir.filePath(QStringLiteral("jsonl"));
        const Result r = cli(args(modelDir) << QStringLiteral("--num_local_workers=2")
                                            << QStringLiteral("--progress_format=jsonl"));
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        const QStringList lines = r.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() > 3);
        QStringList events;
        for (const QString &line : lines) {
            const auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
            QVERIFY2(j.is_object() && j.contains("event"), qPrintable(line));
            events << QString::fromStdString(j["event"].get<std::string>());
        }
        QCOMPARE(events.count(QStringLiteral("run_started")), 1); // the chief's only
        QCOMPARE(events.count(QStringLiteral("eval")), 1);
        QCOMPARE(events.last(), QStringLiteral("finished"));
        const auto end = nlohmann::json::parse(lines.last().toStdString());
        QCOMPARE(end["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(end["last_step"].get<int64_t>(), 4);

        // Invalid input: exit 2, the problem on stderr, and still one "finished" event.
        const Result bad = cli(args(modelDir) << QStringLiteral("--num_local_workers=3")
                                              << QStringLiteral("--progress_format=jsonl"));
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(QStringLiteral("not divisible by the 3 replicas")), qPrintable(bad.err));
        const auto failed = nlohmann::json::parse(bad.out.trimmed().toStdString(), nullptr, false);
        QVERIFY2(failed.is_object(), qPrintable(bad.out));
        QCOMPARE(failed["event"].get<std::string>(), std::string("finished"));
        QCOMPARE(failed["status"].get<std::string>(), std::string("failed"));
        QCOMPARE(failed["field"].get<std::string>(), std::string("train_batch_size"));
    }

    void tfConfigCluster()
    {
        // A TF_CONFIG as a TensorFlow MultiWorkerMirroredStrategy setup has it, one per process.
        const int port = pickFreeTcpPort();
        const QString cluster = QStringLiteral("{\"cluster\": {\"worker\": [\"127.0.0.1:%1\", \"127.0.0.1:%2\"]}, "
                                               "\"task\": {\"type\": \"worker\", \"index\": %3}}");
        const QString modelDir = m_dir.filePath(QStringLiteral("tf"));
        std::vector<std::unique_ptr<QProcess>> procs;
        for (int index = 0; index < 2; ++index) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("TF_CONFIG"), cluster.arg(port).arg(port + 1).arg(index));
            procs.push_back(std::make_unique<QProcess>());
            procs.back()->setProcessEnvironment(env);
            procs.back()->start(QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli"), args(modelDir));
        }
        for (auto &p : procs) {
            QVERIFY(p->waitForFinished(120000));
            QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
        }
        QVERIFY(QString::fromUtf8(procs[0]->readAllStandardOutput())
                    .contains(QStringLiteral("multi_worker_mirrored: worker rank 0 of 2 (chief)")));
        QVERIFY(QFile::exists(modelDir + QStringLiteral("/ckpt-4")));
    }

    void missingWorkerIsNamed()
    {
        const int port = pickFreeTcpPort();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("WORLD_SIZE"), QStringLiteral("2"));
        env.insert(QStringLiteral("RANK"), QStringLiteral("0"));
        env.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("127.0.0.1"));
        env.insert(QStringLiteral("MASTER_PORT"), QString::number(port));
        const Result r = cli(args(m_dir.filePath(QStringLiteral("missing"))) << QStringLiteral("--worker_timeout=2"), env);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("error: cluster: 1 of 2 worker(s) did not join within 2 s: rank 1")),
                 qPrintable(r.err));
        QVERIFY2(r.seconds < 20, qPrintable(QString::number(r.seconds)));
    }

    void badTfConfig()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TF_CONFIG"), QStringLiteral("{\"cluster\": {\"worker\": [\"a:1\"]}, \"task\": {\"type\": \"ps\", \"index\": 0}}"));
        const Result r = cli(args(m_dir.filePath(QStringLiteral("bad"))), env);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("error: TF_CONFIG: task.type: task type 'ps' is not supported")), qPrintable(r.err));
    }

    void batchNotDivisible()
    {
        const Result r = cli(args(m_dir.filePath(QStringLiteral("odd"))) << QStringLiteral("--num_local_workers=3"));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("error: train_batch_size: the global batch 8 is not divisible by the 3 replicas")),
                 qPrintable(r.err));
    }

private:
    QStringList args(const QString &modelDir) const
    {
        return {QStringLiteral("train"),
                QStringLiteral("--distribution_strategy=multi_worker_mirrored"),
                QStringLiteral("--bert_config_file=") + m_data + QStringLiteral("/bert_config.json"),
                QStringLiteral("--input_meta_data_path=") + m_data + QStringLiteral("/input_meta_data.json"),
                QStringLiteral("--train_data_path=") + m_data + QStringLiteral("/train.tf_record"),
                QStringLiteral("--eval_data_path=") + m_data + QStringLiteral("/eval.tf_record"),
                QStringLiteral("--model_dir=") + modelDir,
                QStringLiteral("--train_batch_size=8"),
                QStringLiteral("--eval_batch_size=4"),
                QStringLiteral("--num_train_epochs=1"),
                QStringLiteral("--learning_rate=1e-3"),
                QStringLiteral("--num_threads=1")};
    }

    Result cli(const QStringList &arguments, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
    {
        QProcess p;
        p.setProcessEnvironment(env);
        QElapsedTimer timer;
        timer.start();
        p.start(QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli"), arguments);
        Result r;
        if (!p.waitForFinished(120000)) {
            p.kill();
            p.waitForFinished();
        }
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        r.seconds = double(timer.elapsed()) / 1000.0;
        return r;
    }

    QTemporaryDir m_dir;
    QString m_data;
};

QTEST_APPLESS_MAIN(tst_CliDistribute)
#include "tst_clidistribute.moc"
