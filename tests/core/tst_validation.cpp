// SPDX-License-Identifier: Apache-2.0
#include "core/config/jsonfile.h"
#include "core/config/optionwords.h"
#include "core/engine/preflight.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

class tst_Validation : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TrainingOptions m_valid;

    std::string path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }
    static QStringList errors(const ValidationResult &r)
    {
        QStringList out;
        for (const auto &d : r.diagnostics.items())
            if (d.severity == Severity::Error)
                out << QString::fromStdString(d.field + ": " + d.message);
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        writeFileAtomic(path("bert_config.json"), R"({"vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2,
            "num_attention_heads": 2, "intermediate_size": 64, "max_position_embeddings": 64, "type_vocab_size": 2})");
        writeFileAtomic(path("input_meta_data.json"), R"({"processor_type": "FOLDERS", "train_data_size": 3668,
            "max_seq_length": 32, "task_type": "bert_classification", "num_labels": 2, "eval_data_size": 408})");
        writeFileAtomic(path("long_meta.json"), R"({"train_data_size": 100, "max_seq_length": 128,
            "task_type": "bert_classification", "num_labels": 2, "eval_data_size": 10})");
        m_valid.distribution_strategy = "one_device";
        m_valid.bert_config_file = path("bert_config.json");
        m_valid.input_meta_data_path = path("input_meta_data.json");
        m_valid.train_data_path = path("train.tf_record");
        m_valid.eval_data_path = path("eval.tf_record");
        m_valid.model_dir = path("model");
    }

    void validConfiguration()
    {
        const auto r = validateRun(m_valid, {false, false});
        QVERIFY2(r.ok(), r.diagnostics.format().c_str());
        QVERIFY(r.schedule);
        QCOMPARE(r.schedule->steps_per_epoch, int64_t(114));
        QCOMPARE(r.schedule->total_steps, int64_t(342));
        QCOMPARE(r.strategy.kind, StrategyKind::OneDevice);
    }

    void noStrategyComesFirstAndAllProblemsAreReported()
    {
        TrainingOptions o = m_valid;
        o.distribution_strategy.clear();
        o.train_batch_size = 0;
        o.input_meta_data_path = path("missing.json");
        const auto r = validateRun(o, {false, false});
        QVERIFY(!r.ok());
        const QStringList e = errors(r);
        QCOMPARE(e.first(), QStringLiteral("distribution_strategy: Distribution strategy has not been specified."));
        QVERIFY2(e.size() >= 3, qPrintable(e.join(QLatin1Char('\n'))));
        QVERIFY(e.join(QLatin1Char('\n')).contains(QStringLiteral("missing.json: file not found")));
        QVERIFY(e.join(QLatin1Char('\n')).contains(QStringLiteral("train_batch_size: train_batch_size must be > 0")));
    }

    void seqLongerThanPositions()
    {
        TrainingOptions o = m_valid;
        o.input_meta_data_path = path("long_meta.json");
        const auto r = validateRun(o, {false, false});
        QVERIFY(errors(r).join(QLatin1Char('\n'))
                    .contains(QStringLiteral("Cannot use sequence length 128 because the BERT model was only trained up to sequence length 64")));
    }

    void rules_data()
    {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no config") << "bert_config_file=" << "bert_config_file: no model config was given";
        QTest::newRow("no meta") << "input_meta_data_path=" << "input_meta_data_path: no input meta data file was given";
        QTest::newRow("no train data") << "train_data_path=" << "train_data_path: no training data was given";
        QTest::newRow("lr zero") << "learning_rate=0" << "learning_rate: learning_rate must be a positive number";
        QTest::newRow("lamb") << "optimizer_type=lamb" << "optimizer_type: Unsupported optimizer type: lamb";
        QTest::newRow("gpus on cpu") << "num_gpus=2" << "distribution_strategy: `OneDeviceStrategy` can not be used for more than one device.";
        QTest::newRow("mirrored gpus") << "mirrored_gpus=1" << "num_gpus: num_gpus is 1 but 0 CUDA device(s) are usable here";
        QTest::newRow("not divisible") << "local_workers=3" << "train_batch_size: the global batch 32 is not divisible by the 3 replicas";
        QTest::newRow("mode") << "mode=eval" << "mode: Unsupported mode is specified: eval";
        QTest::newRow("export path") << "mode=export_only" << "model_export_path: Export path is not specified: ";
        QTest::newRow("zero steps") << "train_batch_size=5000" << "train_batch_size: zero steps per epoch";
    }

    void rules()
    {
        QFETCH(QString, setting);
        QFETCH(QString, expected);
        TrainingOptions o = m_valid;
        const QString key = setting.section(QLatin1Char('='), 0, 0);
        const QString value = setting.section(QLatin1Char('='), 1);
        if (key == QLatin1String("bert_config_file"))
            o.bert_config_file = value.toStdString();
        else if (key == QLatin1String("input_meta_data_path"))
            o.input_meta_data_path = value.toStdString();
        else if (key == QLatin1String("train_data_path"))
            o.train_data_path = value.toStdString();
        else if (key == QLatin1String("learning_rate"))
            o.learning_rate = value.toDouble();
        else if (key == QLatin1String("optimizer_type"))
            o.optimizer_type = value.toStdString();
        else if (key == QLatin1String("num_gpus"))
            o.num_gpus = value.toInt();
        else if (key == QLatin1String("mirrored_gpus")) {
            o.distribution_strategy = "mirrored";
            o.num_gpus = value.toInt();
        } else if (key == QLatin1String("local_workers")) {
            o.distribution_strategy = "multi_worker_mirrored";
            o.num_local_workers = value.toInt();
        } else if (key == QLatin1String("mode"))
            o.mode = value.toStdString();
        else if (key == QLatin1String("train_batch_size"))
            o.train_batch_size = value.toLongLong();
        const auto r = validateRun(o, {false, false});
        const QString all = errors(r).join(QLatin1Char('\n'));
        QVERIFY2(all.contains(expected), qPrintable(all));
    }

    void tfConfig_data()
    {
        QTest::addColumn<QByteArray>("tfConfig");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad json") << QByteArray("{cluster") << "TF_CONFIG: invalid JSON";
        QTest::newRow("index out of range")
            << QByteArray(R"({"cluster": {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"]}, "task": {"type": "worker", "index": 2}})")
            << "TF_CONFIG: task.index: 2 is out of range for 2 worker(s)";
        QTest::newRow("duplicate")
            << QByteArray(R"({"cluster": {"worker": ["127.0.0.1:2000", "127.0.0.1:2000"]}, "task": {"type": "worker", "index": 0}})")
            << "address '127.0.0.1:2000' appears twice";
        QTest::newRow("ps task")
            << QByteArray(R"({"cluster": {"worker": ["127.0.0.1:2000"], "ps": ["127.0.0.1:3000"]}, "task": {"type": "ps", "index": 0}})")
            << "TF_CONFIG: task.type: task type 'ps' is not supported";
        QTest::newRow("valid") << QByteArray(R"({"cluster": {"worker": ["127.0.0.1:2000", "127.0.0.1:2001"]}, "task": {"type": "worker", "index": 1}})")
                               << "";
    }

    /// multi_worker_mirrored with no cluster at all is allowed but said out loud.
    void multiWorkerWithoutClusterWarns()
    {
        qunsetenv("TF_CONFIG");
        qunsetenv("WORLD_SIZE");
        TrainingOptions o = m_valid;
        o.distribution_strategy = "multi_worker_mirrored";
        auto r = validateRun(o, {false, false});
        QVERIFY(r.ok());
        bool warned = false;
        for (const auto &d : r.diagnostics.items())
            warned = warned
                     || (d.severity == Severity::Warning && d.field == "distribution_strategy"
                         && d.message == "multi_worker_mirrored without a cluster trains as a single worker on this machine");
        QVERIFY(warned);
        o.num_local_workers = 2; // a cluster: no warning
        r = validateRun(o, {false, false});
        for (const auto &d : r.diagnostics.items())
            QVERIFY2(d.field != "distribution_strategy", d.message.c_str());
        // Cluster settings with another strategy are named, not silently ignored.
        qputenv("TF_CONFIG", R"({"cluster": {"worker": ["127.0.0.1:2000"]}, "task": {"type": "worker", "index": 0}})");
        o.distribution_strategy = "one_device";
        r = validateRun(o, {false, false});
        qunsetenv("TF_CONFIG");
        QStringList fields;
        for (const auto &d : r.diagnostics.items())
            if (d.severity == Severity::Warning)
                fields << QString::fromStdString(d.field);
        QVERIFY(fields.contains(QStringLiteral("TF_CONFIG")));
        QVERIFY(fields.contains(QStringLiteral("num_local_workers")));
        QVERIFY(r.ok());
    }

    /// The hints name options as the front-end that shows them sets them: flags on the command
    /// line, the fields' labels in the window.
    void hintsNameOptionsInTheFrontEndsWords()
    {
        qunsetenv("TF_CONFIG");
        qunsetenv("WORLD_SIZE");
        const auto hintOf = [](const ValidationResult &r, const std::string &field) {
            for (const auto &d : r.diagnostics.items())
                if (d.field == field)
                    return d.hint;
            return std::string("(no finding on " + field + ")");
        };
        TrainingOptions o = m_valid;
        o.bert_config_file.clear();
        o.input_meta_data_path.clear();
        o.model_dir.clear();
        TrainingOptions multi = m_valid;
        multi.distribution_strategy = "multi_worker_mirrored";
        struct ResetWording
        {
            ~ResetWording() { setOptionWording(OptionWording::CommandLine); }
        } reset;

        ValidationResult r = validateRun(o, {false, false});
        QCOMPARE(hintOf(r, "bert_config_file"),
                 std::string("pass --bert_config_file=bert_config.json (the file that comes with the pre-trained "
                             "model, or a preset)"));
        QCOMPARE(hintOf(r, "model_dir"), std::string("pass --model_dir=<directory for checkpoints and metrics>"));
        QCOMPARE(hintOf(validateRun(multi, {false, false}), "distribution_strategy"),
                 std::string("set --num_local_workers (Local workers in the window) to train on several local "
                             "processes, or describe the cluster with TF_CONFIG, --worker_hosts and --task_index, or "
                             "MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK"));

        setOptionWording(OptionWording::Window);
        r = validateRun(o, {false, false});
        QCOMPARE(hintOf(r, "bert_config_file"),
                 std::string("set \u201cBERT config\u201d to bert_config.json (the file that comes with the "
                             "pre-trained model, or a preset)"));
        QCOMPARE(hintOf(r, "input_meta_data_path"),
                 std::string("set \u201cInput meta data\u201d to input_meta_data.json; File \u2192 Prepare Data\u2026 "
                             "(or create_finetuning_data.py) writes it next to the TFRecords"));
        QCOMPARE(hintOf(r, "model_dir"), std::string("fill in \u201cModel directory\u201d"));
        // Options outside the form are named by their labels in the option tables, never by flags.
        QCOMPARE(hintOf(validateRun(multi, {false, false}), "distribution_strategy"),
                 std::string("set \u201cLocal workers\u201d to train on several local processes, or describe the "
                             "cluster with TF_CONFIG, \u201cWorker hosts\u201d and \u201cTask index\u201d, or "
                             "MASTER_ADDR/MASTER_PORT/WORLD_SIZE/RANK"));
    }

    void tfConfig()
    {
        QFETCH(QByteArray, tfConfig);
        QFETCH(QString, expected);
        qputenv("TF_CONFIG", tfConfig);
        TrainingOptions o = m_valid;
        o.distribution_strategy = "multi_worker_mirrored";
        const auto r = validateRun(o, {false, false});
        qunsetenv("TF_CONFIG");
        const QString all = errors(r).join(QLatin1Char('\n'));
        if (expected.isEmpty())
            QVERIFY2(all.isEmpty(), qPrintable(all));
        else
            QVERIFY2(all.contains(expected), qPrintable(all));
    }
};

QTEST_APPLESS_MAIN(tst_Validation)
#include "tst_validation.moc"
