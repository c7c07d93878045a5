// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "clirun.h"
#include "app/cli/runflags.h"
#include "core/config/jsonfile.h"

#include <QTemporaryDir>
#include <QtTest>
#include <sstream>

using namespace wb;

class tst_CliValidate : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }

    int run(const std::vector<std::string> &args, std::string &out, std::string &err)
    {
        return wbtest::runCli(args, out, err);
    }

private Q_SLOTS:
    void initTestCase()
    {
        writeFileAtomic(path("bert_config.json"), R"({"vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 1,
            "num_attention_heads": 2, "intermediate_size": 64, "max_position_embeddings": 64, "type_vocab_size": 2})");
        writeFileAtomic(path("meta.json"), R"({"train_data_size": 3668, "max_seq_length": 32,
            "task_type": "bert_classification", "num_labels": 2, "eval_data_size": 408})");
    }

    /// toCommandLineFlags() (the GUI's local workers and "copy as command line") must read
    /// back through the CLI's own parser as the same options.
    void commandLineFlagsRoundTrip()
    {
        TrainingOptions o;
        o.distribution_strategy = "multi_worker_mirrored";
        o.num_gpus = 1;
        o.worker_timeout = 42;
        o.bert_config_file = "/data/my model/bert_config.json"; // a space
        o.input_meta_data_path = "meta.json";
        o.train_data_path = "train-*.tf_record,extra.tf_record";
        o.eval_data_path = "eval.tf_record";
        o.model_dir = "runs/it's";                              // a quote
        o.train_batch_size = 30;
        o.learning_rate = 5e-4;
        o.end_lr = 1.0 / 3.0;                                   // needs all 17 digits
        o.num_train_epochs = 2;
        o.num_eval_per_epoch = 4;
        o.train_data_size = 1000;
        o.weight_decay_rate = 0.0;
        o.warmup_fraction = 0.06;
        o.seed = 7;
        o.keep_checkpoint_max = 3;
        o.num_threads = 2;
        const std::vector<std::string> flags = toCommandLineFlags(o);
        QVERIFY(std::find(flags.begin(), flags.end(), "--learning_rate=5e-04") != flags.end());
        QVERIFY(std::find(flags.begin(), flags.end(), "--eval_batch_size=32") == flags.end()); // a default

        CLI::App app;
        TrainingOptions back;
        cli::addRunFlags(app, back);
        std::ostringstream out, err;
        int code = 0;
        QVERIFY2(cli::parseFlags(app, flags, out, err, code), err.str().c_str());
        QCOMPARE(toCommandLineFlags(back), flags);
        QCOMPARE(back.end_lr, o.end_lr);
        QCOMPARE(back.model_dir, o.model_dir);
        QCOMPARE(back.bert_config_file, o.bert_config_file);
        QCOMPARE(back.train_data_size.value_or(0), 1000);
        QCOMPARE(back.weight_decay_rate, 0.0);
        QCOMPARE(back.warmup_fraction, 0.06);

        QCOMPARE(shellJoin({"train", "--model_dir=runs/it's", "--bert_config_file=/data/my model/c.json", "--seed=7"}),
                 std::string("train '--model_dir=runs/it'\\''s' '--bert_config_file=/data/my model/c.json' --seed=7"));
    }

    void noStrategyExits2WithSeedMessage()
    {
        std::string out, err;
        const int code = run({"validate", "--bert_config_file", path("bert_config.json"),
                              "--input_meta_data_path=" + path("meta.json")},
                             out, err);
        QCOMPARE(code, 2);
        QVERIFY2(QString::fromStdString(err).startsWith(
                     QStringLiteral("error: distribution_strategy: Distribution strategy has not been specified.\n")),
                 err.c_str());
    }

    void brokenConfigNamesTheKey()
    {
        writeFileAtomic(path("bad.json"), R"({"vocab_size": 100, "hidden_size": 30, "num_attention_heads": 4})");
        std::string out, err;
        const int code = run({"validate", "--distribution_strategy=one_device", "--bert_config_file=" + path("bad.json"),
                              "--input_meta_data_path=" + path("meta.json"), "--mode=export_only",
                              "--model_export_path=/tmp/x"},
                             out, err);
        QCOMPARE(code, 2);
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("bad.json: num_attention_heads: The hidden size (30)")), err.c_str());
    }

    void validExits0()
    {
        std::string out, err;
        const int code = run({"validate", "--distribution_strategy=ONE_DEVICE", "--bert_config_file", path("bert_config.json"),
                              "--input_meta_data_path", path("meta.json"), "--mode=export_only", "--model_export_path",
                              path("export"), "--model_dir", path("run")},
                             out, err);
        QVERIFY2(code == 0, err.c_str());
        QVERIFY(QString::fromStdString(out).contains(QStringLiteral("configuration is valid: strategy one_device")));
    }

    void missingModelDirExits2()
    {
        // No default model directory: a run never resumes from whatever an old default holds.
        std::string out, err;
        const int code = run({"validate", "--distribution_strategy=one_device", "--bert_config_file", path("bert_config.json"),
                              "--input_meta_data_path", path("meta.json"), "--mode=export_only", "--model_export_path",
                              path("export")},
                             out, err);
        QCOMPARE(code, 2);
        QVERIFY2(QString::fromStdString(err).startsWith(QStringLiteral(
                     "error: model_dir: no model_dir was given\n  hint: pass --model_dir=<directory for checkpoints and metrics>")),
                 err.c_str());
    }

    void emptyFlagValueDoesNotSwallowTheNextFlag()
    {
        std::string out, err;
        const int code = run({"validate", "--distribution_strategy=one_device", "--model_dir=", "--learning_rate=1e-3"},
                             out, err);
        QCOMPARE(code, 2);
        QVERIFY2(QString::fromStdString(err).startsWith(QStringLiteral("error: model_dir: the flag has an empty value\n")),
                 err.c_str());
        // An empty strategy is "not specified", the seed's error.
        QCOMPARE(run({"validate", "--distribution_strategy=", "--bert_config_file=" + path("bert_config.json")}, out, err), 2);
        QVERIFY2(QString::fromStdString(err).startsWith(
                     QStringLiteral("error: distribution_strategy: Distribution strategy has not been specified.\n")),
                 err.c_str());
    }

    void unknownFlagExits2()
    {
        std::string out, err;
        QCOMPARE(run({"validate", "--no_such_flag=1"}, out, err), 2);
        QVERIFY(QString::fromStdString(err).startsWith(QStringLiteral("error: ")));
        QCOMPARE(run({"frobnicate"}, out, err), 2);
        QCOMPARE(run({"--version"}, out, err), 0);
        QVERIFY(QString::fromStdString(out).startsWith(QStringLiteral("bert-workbench-cli ")));
    }
};

QTEST_APPLESS_MAIN(tst_CliValidate)
#include "tst_clivalidate.moc"
