// SPDX-License-Identifier: Apache-2.0
#include "app/cli/commands.h"
#include "clirun.h"
#include "core/config/jsonfile.h"
#include "core/io/metricsreader.h"
#include "core/weights/safetensors.h"
#include "core/formats/trainingsummary.h"
#include "support/tinyrun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <sstream>

using namespace wb;

class tst_CliTrain : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TrainingOptions m_run; ///< the tiny run's files
    std::string path(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)).toStdString(); }

    int run(const std::vector<std::string> &args, std::string &out, std::string &err)
    {
        return wbtest::runCli(args, out, err);
    }

    std::vector<std::string> common(const std::string &modelDir) const
    {
        return {"--distribution_strategy=one_device", "--bert_config_file", m_run.bert_config_file,
                "--input_meta_data_path=" + m_run.input_meta_data_path, "--train_data_path=" + m_run.train_data_path,
                "--eval_data_path=" + m_run.eval_data_path, "--model_dir=" + modelDir, "--train_batch_size=8",
                "--eval_batch_size=8", "--num_train_epochs=1", "--learning_rate=1e-3"};
    }

private Q_SLOTS:
    void initTestCase()
    {
        // BERT L=1, H=32; 32 training records of max_seq_length 8: 4 steps at batch 8, 1 epoch.
        wbtest::TinyRun p;
        p.train_size = 32;
        p.eval_size = 32;
        p.max_seq_length = 8;
        p.num_hidden_layers = 1;
        p.num_train_epochs = 1;
        m_run = wbtest::writeTinyRun(m_dir.path().toStdString(), p);
    }

    void invalidInputExits2()
    {
        std::string out, err;
        auto args = common(path("m0"));
        args.erase(args.begin()); // no strategy
        args.insert(args.begin(), "train");
        QCOMPARE(run(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("error: distribution_strategy:")), err.c_str());
        QVERIFY(!std::filesystem::exists(path("m0") + "/checkpoint"));
    }

    void trainPredictExport()
    {
        std::string out, err;
        auto args = common(path("m1"));
        args.insert(args.begin(), "train");
        QCOMPARE(run(args, out, err), int(cli::kExitOk));
        QVERIFY2(QString::fromStdString(out).contains(QStringLiteral("eval_accuracy")), out.c_str());
        QVERIFY(std::filesystem::exists(path("m1") + "/ckpt-4"));
        args[0] = "predict";
        QCOMPARE(run(args, out, err), int(cli::kExitOk));
        QVERIFY(std::filesystem::exists(path("m1") + "/test_results.tsv"));
        args[0] = "export";
        args.push_back("--model_export_path=" + path("export"));
        QCOMPARE(run(args, out, err), int(cli::kExitOk));
        QVERIFY(std::filesystem::exists(path("export") + "/model.safetensors"));
    }

    void truncatedInitCheckpointExits2()
    {
        std::string out, err;
        writeFileAtomic(path("bad.safetensors"), std::string("\x40\x00\x00\x00\x00\x00\x00\x00{\"a\":", 13));
        auto args = common(path("m2"));
        args.insert(args.begin(), "train");
        args.push_back("--init_checkpoint=" + path("bad.safetensors"));
        QCOMPARE(run(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("bad.safetensors")), err.c_str());
    }

    void headOnlyInitCheckpointExits2()
    {
        // Only the classifier head (classifier.weight [2, 32], classifier.bias [2]): the whole encoder would be random.
        std::vector<SafetensorsEntry> entries{{"classifier.bias", "F32", {2}, 0, 0},
                                              {"classifier.weight", "F32", {2, 32}, 0, 0}};
        std::string bytes = buildSafetensorsHeader(entries, {{"format", "pt"}});
        bytes.append(size_t(2 + 64) * 4, '\0');
        writeFileAtomic(path("head.safetensors"), bytes);
        for (const char *command : {"validate", "train"}) {
            std::string out, err;
            auto args = common(path("m3"));
            args.insert(args.begin(), command);
            args.push_back("--init_checkpoint=" + path("head.safetensors"));
            QCOMPARE(run(args, out, err), int(cli::kExitInvalid));
            // BERT L=1: 5 embedding tensors + 16 of the layer; no pooler in the file (a warning).
            QVERIFY2(QString::fromStdString(err).contains(QStringLiteral(
                         "head.safetensors: 21 of the model's 21 encoder tensors are not in the checkpoint (first: "
                         "bert.embeddings.word_embeddings.weight) and would keep their random initialisation; the "
                         "checkpoint's names: 2 under 'classifier.' (e.g. classifier.bias)")),
                     err.c_str());
            QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("--allow_partial_init=true")), err.c_str());
            QVERIFY(!std::filesystem::exists(path("m3") + "/ckpt-4"));
            QVERIFY(QString::fromStdString(out).indexOf(QStringLiteral("configuration is valid")) < 0);
        }
        // Asked for: validate passes with a warning, train runs.
        for (const char *command : {"validate", "train"}) {
            std::string out, err;
            auto args = common(path("m3"));
            args.insert(args.begin(), command);
            args.push_back("--init_checkpoint=" + path("head.safetensors"));
            args.push_back("--allow_partial_init=true");
            QVERIFY2(run(args, out, err) == int(cli::kExitOk), err.c_str());
            QVERIFY2(QString::fromStdString(err + out).contains(QStringLiteral(
                         "21 of the model's 21 encoder tensors are not in the checkpoint (first: "
                         "bert.embeddings.word_embeddings.weight) and keep their random initialisation")),
                     (err + out).c_str());
        }
        QVERIFY(std::filesystem::exists(path("m3") + "/ckpt-4"));
    }

    void coachSaysItOnStderr()
    {
        // A run that cannot learn: 4 steps at learning_rate 1e-9 from random weights. The coach says
        // so on stderr (note: …) as it arises, lists it at the end, and records it in
        // metrics.jsonl and training_summary.json (core/advice/coach.h).
        std::string out, err;
        auto args = common(path("mc"));
        args.back() = "--learning_rate=1e-9";
        args.insert(args.begin(), "train");
        QVERIFY2(run(args, out, err) == int(cli::kExitOk), err.c_str());
        const QString e = QString::fromStdString(err);
        const QString few = QStringLiteral("the run has only 4 training steps: too few to learn much; train more epochs "
                                           "or use a smaller batch");
        const QString lr = QStringLiteral("learning_rate 1e-9 is far below the usual range for a model trained from random "
                                          "weights (1e-4 to 1e-3); try 5e-4 or Find Learning Rate");
        QVERIFY2(e.contains(QStringLiteral("note: ") + few + QStringLiteral("\nnote: ") + lr + QStringLiteral("\n")),
                 err.c_str());
        QVERIFY2(e.contains(QStringLiteral("\nthe coach's notes at the end of this run (")), err.c_str());
        QVERIFY2(e.contains(QStringLiteral("  step 0: ") + few + QStringLiteral("\n  step 0: ") + lr), err.c_str());
        QVERIFY(QString::fromStdString(out).indexOf(QStringLiteral("note: ")) < 0); // stdout keeps the progress
        std::string readError;
        const MetricsLog log = readMetricsFile(path("mc") + "/metrics.jsonl", &readError);
        QVERIFY2(readError.empty(), readError.c_str());
        QVERIFY(log.notes.size() >= 2);
        QCOMPARE(log.notes[0].id, std::string("few_steps"));
        QCOMPARE(log.notes[0].step, int64_t(0));
        QCOMPARE(log.notes[1].id, std::string("lr_scratch"));
        // The eval set of 32 examples is too small for any accuracy between 3 % and 97 %.
        bool small = false;
        for (const auto &n : log.notes)
            small = small || (n.id == "small_eval_set" && n.step == 4
                              && n.text.rfind("the eval set has 32 examples: its accuracy ", 0) == 0);
        QVERIFY(small);
        const auto summary = readTrainingSummary(path("mc"));
        QVERIFY(summary);
        QCOMPARE(summary->coach_notes.size(), log.notes.size());
        QCOMPARE(summary->coach_notes[1].text, lr.toStdString());
        // --progress_format=jsonl: the same notes as "note" events on stdout.
        args[args.size() - 1] = "--learning_rate=1e-9";
        args.push_back("--progress_format=jsonl");
        for (auto &a : args)
            if (a.rfind("--model_dir=", 0) == 0)
                a = "--model_dir=" + path("mcj");
        QVERIFY2(run(args, out, err) == int(cli::kExitOk), err.c_str());
        QVERIFY2(QString::fromStdString(out).contains(
                     QStringLiteral(R"({"event":"note","step":0,"id":"few_steps","severity":"warning","text":")") + few
                     + QStringLiteral(R"("})")),
                 out.c_str());
    }

    void missingCheckpointForPredictFails()
    {
        std::string out, err;
        auto args = common(path("empty"));
        args.insert(args.begin(), "predict");
        QCOMPARE(run(args, out, err), int(cli::kExitRuntime));
        QVERIFY2(QString::fromStdString(err).contains(QStringLiteral("no checkpoint found")), err.c_str());
    }
};

QTEST_APPLESS_MAIN(tst_CliTrain)
#include "tst_clitrain.moc"
