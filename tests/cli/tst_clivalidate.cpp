// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "clirun.h"
#include "app/cli/runflags.h"
#include "core/config/jsonfile.h"
#include "support/tinyrun.h"

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
        o.dtype = "bf16";
        o.gradient_accumulation_steps = 4;
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
        QCOMPARE(back.dtype, std::string("bf16"));
        QCOMPARE(back.gradient_accumulation_steps, int64_t(4));

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

    void fp16OnCpuExits2()
    {
        std::string out, err;
        const int code = run({"validate", "--distribution_strategy=one_device", "--bert_config_file", path("bert_config.json"),
                              "--input_meta_data_path", path("meta.json"), "--mode=export_only", "--model_export_path",
                              path("export"), "--dtype=fp16"},
                             out, err);
        QCOMPARE(code, 2);
        QVERIFY2(QString::fromStdString(err).startsWith(QStringLiteral("error: dtype: fp16 needs a CUDA GPU")), err.c_str());
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("--dtype=bf16")), err.c_str());
        const int bad = run({"validate", "--distribution_strategy=one_device", "--dtype=fp8"}, out, err);
        QCOMPARE(bad, 2); // not one of fp32, bf16, fp16
    }

    void memoryEstimateAndAccumulation()
    {
        const TrainingOptions o = wbtest::writeTinyRun(path("tiny"));
        const std::vector<std::string> common = {"validate",
                                                 "--distribution_strategy=one_device",
                                                 "--bert_config_file=" + o.bert_config_file,
                                                 "--input_meta_data_path=" + o.input_meta_data_path,
                                                 "--train_data_path=" + o.train_data_path,
                                                 "--eval_data_path=" + o.eval_data_path,
                                                 "--model_dir=" + o.model_dir,
                                                 "--train_batch_size=8"};
        std::string out, err;
        auto args = common;
        args.push_back("--gradient_accumulation_steps=4");
        QCOMPARE(run(args, out, err), 0);
        QVERIFY2(QString::fromStdString(out).contains(QRegularExpression(
                     QStringLiteral("\\nestimated peak memory: \\d+\\.\\d GiB \\(params 0\\.0, grads 0\\.0, optimizer 0\\.0, "
                                    "activations 0\\.0\\)\\n"))),
                 out.c_str());
        args = common;
        args.push_back("--gradient_accumulation_steps=3");
        QCOMPARE(run(args, out, err), 2);
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral(
                     "error: gradient_accumulation_steps: train_batch_size 8 is not divisible into 3 equal micro-batches")),
                 err.c_str());
    }

    /// --activation_checkpointing (issue 17): absl's boolean forms, and validate's estimate
    /// of BERT-Base shrinks with it.
    void activationCheckpointingFlag()
    {
        for (const std::vector<std::string> &form : std::vector<std::vector<std::string>>{
                 {"--activation_checkpointing"}, {"--activation_checkpointing=true"}, {"--activation_checkpointing", "true"}}) {
            CLI::App app;
            TrainingOptions o;
            cli::addRunFlags(app, o);
            std::ostringstream out, err;
            int code = 0;
            std::vector<std::string> args = form;
            args.push_back("--seed=3"); // the next flag is not swallowed
            QVERIFY2(cli::parseFlags(app, args, out, err, code), err.str().c_str());
            QVERIFY(o.activation_checkpointing);
            QCOMPARE(o.seed, int64_t(3));
        }
        {
            CLI::App app;
            TrainingOptions o;
            o.activation_checkpointing = true;
            cli::addRunFlags(app, o);
            std::ostringstream out, err;
            int code = 0;
            QVERIFY2(cli::parseFlags(app, {"--activation_checkpointing", "false"}, out, err, code), err.str().c_str());
            QVERIFY(!o.activation_checkpointing);
            QVERIFY(!cli::parseFlags(app, {"--activation_checkpointing=maybe"}, out, err, code));
            QCOMPARE(code, 2);
        }
        const TrainingOptions o = wbtest::writeTinyRun(path("ckpt"));
        writeFileAtomic(path("base.json"), R"({"vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12,
            "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2})");
        const std::vector<std::string> common = {"validate",
                                                 "--distribution_strategy=one_device",
                                                 "--bert_config_file=" + path("base.json"),
                                                 "--input_meta_data_path=" + o.input_meta_data_path,
                                                 "--train_data_path=" + o.train_data_path,
                                                 "--eval_data_path=" + o.eval_data_path,
                                                 "--model_dir=" + o.model_dir,
                                                 "--train_batch_size=8"};
        const QRegularExpression activations(QStringLiteral("estimated peak memory: .* activations (\\d+\\.\\d)\\)"));
        std::string plainOut, ckptOut, err;
        QCOMPARE(run(common, plainOut, err), 0);
        auto args = common;
        args.push_back("--activation_checkpointing");
        QCOMPARE(run(args, ckptOut, err), 0);
        const auto plain = activations.match(QString::fromStdString(plainOut));
        const auto ckpt = activations.match(QString::fromStdString(ckptOut));
        QVERIFY2(plain.hasMatch() && ckpt.hasMatch(), (plainOut + ckptOut).c_str());
        QVERIFY2(ckpt.captured(1).toDouble() < plain.captured(1).toDouble(), (plainOut + ckptOut).c_str());
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
