// SPDX-License-Identifier: Apache-2.0
// Every command that reads a run reads it the same way (issue 23, kinds 1, 5 and 7): what
// run_config.json recorded fills the flags not given, from any directory; predict writes a
// labelled predictions.jsonl beside test_results.tsv; the CLI, metrics.jsonl and
// training_summary.json report the same metrics; a kept best model is used first; a run's
// model_dir is an init checkpoint.
#include "app/cli/commands.h"
#include "clirun.h"
#include "core/config/jsonfile.h"
#include "support/tinyrun.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<std::string> linesOf(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            out.push_back(line);
    return out;
}

/// Runs with the process's current directory at `dir`, restored afterwards.
struct InDirectory
{
    explicit InDirectory(const std::string &dir) : before(fs::current_path()) { fs::current_path(dir); }
    ~InDirectory() { fs::current_path(before); }
    fs::path before;
};

} // namespace

class tst_CliRunReaders : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_project;  ///< where the run was started, with relative paths
    std::string m_elsewhere; ///< another directory the readers run from
    std::string m_modelDir;  ///< absolute

    std::string root() const { return m_dir.path().toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        // BERT L=1, H=32; 32 records of max_seq_length 8, labels ham/spam (labels.txt), 2
        // epochs of 4 steps, an evaluation (and a checkpoint) after each.
        m_project = root() + "/project";
        m_elsewhere = root() + "/elsewhere";
        fs::create_directories(m_elsewhere);
        wbtest::TinyRun p;
        p.train_size = 32;
        p.eval_size = 16;
        p.max_seq_length = 8;
        p.num_hidden_layers = 1;
        p.num_train_epochs = 2;
        p.mislabel_every = 3; // not every answer right: the metrics differ from 1
        wbtest::writeTinyRun(m_project, p);
        std::ofstream(m_project + "/labels.txt") << "ham\nspam\n";
        std::ofstream vocab(m_project + "/vocab.txt");
        vocab << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
        for (int k = 5; k < 100; ++k)
            vocab << "w" << k << "\n";
        vocab.close();
        m_modelDir = m_project + "/model";
        InDirectory in(m_project);
        std::string out, err;
        const int code = wbtest::runCli({"train", "--distribution_strategy=one_device", "--bert_config_file=bert_config.json",
                                         "--input_meta_data_path=input_meta_data.json", "--train_data_path=train.tf_record",
                                         "--eval_data_path=eval.tf_record", "--vocab_file=vocab.txt", "--model_dir=model",
                                         "--train_batch_size=8", "--eval_batch_size=8", "--learning_rate=1e-3",
                                         "--keep_checkpoint_max=0"},
                                        out, err);
        QVERIFY2(code == 0, (out + err).c_str());
        QVERIFY(fs::exists(m_modelDir + "/ckpt-4") && fs::exists(m_modelDir + "/ckpt-8"));
        m_trainOut = out;
    }

    void runConfigRecordsWhereItWasStarted()
    {
        const auto j = nlohmann::json::parse(readAll(m_modelDir + "/run_config.json"));
        const auto &info = j.at("informational");
        QCOMPARE(info.at("bert_config_file").get<std::string>(), std::string("bert_config.json"));
        QCOMPARE(info.at("vocab_file").get<std::string>(), std::string("vocab.txt"));
        QCOMPARE(fs::path(info.at("working_directory").get<std::string>()), fs::path(m_project));
    }

    void predictFillsWhatTheRunRecordedFromAnotherDirectory()
    {
        // Failed before with "no model config was given" although run_config.json names it.
        InDirectory in(m_elsewhere);
        std::string out, err;
        QCOMPARE(wbtest::runCli({"predict", "--distribution_strategy=one_device", "--model_dir=" + m_modelDir,
                                 "--eval_data_path=" + m_project + "/eval.tf_record", "--eval_batch_size=8"},
                                out, err),
                 0);
        const std::string source = m_modelDir + "/run_config.json";
        QVERIFY2(err.find("note: --bert_config_file not given: using the run's " + m_project + "/bert_config.json (from "
                          + source + ", recorded as bert_config.json)")
                     != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("note: --input_meta_data_path not given: using the run's " + m_project
                          + "/input_meta_data.json (from " + source)
                     != std::string::npos,
                 err.c_str());
        QVERIFY2(err.find("note: --vocab_file not given: using the run's " + m_project + "/vocab.txt") != std::string::npos,
                 err.c_str());

        // test_results.tsv stays as run_classifier writes it; predictions.jsonl says the same with names.
        const auto tsv = linesOf(readAll(m_modelDir + "/test_results.tsv"));
        const auto jsonl = linesOf(readAll(m_modelDir + "/predictions.jsonl"));
        QCOMPARE(int(tsv.size()), 16);
        QCOMPARE(int(jsonl.size()), 16);
        for (size_t i = 0; i < tsv.size(); ++i) {
            const auto tab = tsv[i].find('\t');
            QVERIFY2(tab != std::string::npos && tsv[i].find('\t', tab + 1) == std::string::npos, tsv[i].c_str());
            const double pHam = std::stod(tsv[i].substr(0, tab)), pSpam = std::stod(tsv[i].substr(tab + 1));
            const auto j = nlohmann::ordered_json::parse(jsonl[i]);
            std::vector<std::string> keys;
            for (const auto &[k, v] : j.items())
                keys.push_back(k);
            QCOMPARE(keys, (std::vector<std::string>{"index", "predicted_label", "probabilities", "label"}));
            QCOMPARE(j["index"].get<int64_t>(), int64_t(i));
            QCOMPARE(j["probabilities"]["ham"].get<double>(), double(float(pHam)));
            QCOMPARE(j["probabilities"]["spam"].get<double>(), double(float(pSpam)));
            QCOMPARE(j["predicted_label"].get<std::string>(), std::string(pSpam > pHam ? "spam" : "ham"));
            // The records' labels: i % 2, every third one moved to the next label (mislabel_every 3).
            const int64_t label = (int64_t(i) % 2 + (i % 3 == 2 ? 1 : 0)) % 2;
            QCOMPARE(j["label"].get<std::string>(), std::string(label ? "spam" : "ham"));
        }
    }

    void cliMetricsFilesAndSummaryReportOneSet()
    {
        // metrics.jsonl's last evaluation: per-class precision/recall/F1 with names, macro-F1,
        // and eval_f1 = the F1 of the named positive class.
        nlohmann::json last;
        for (const auto &line : linesOf(readAll(m_modelDir + "/metrics.jsonl"))) {
            const auto j = nlohmann::json::parse(line);
            if (j.value("kind", "") == "eval")
                last = j;
        }
        QVERIFY2(last.contains("per_class"), last.dump().c_str());
        // The confusion matrix of that evaluation, from eval_examples.jsonl (true → predicted per example).
        std::vector<std::vector<int64_t>> c(2, std::vector<int64_t>(2, 0));
        for (const auto &line : linesOf(readAll(m_modelDir + "/eval_examples.jsonl"))) {
            const auto e = nlohmann::json::parse(line);
            QCOMPARE(e["step"].get<int64_t>(), last["step"].get<int64_t>());
            ++c[size_t(e["true_label_id"].get<int64_t>())][size_t(e["predicted_label_id"].get<int64_t>())];
        }
        const auto &per = last["per_class"];
        QCOMPARE(int(per.size()), 2);
        double f1Sum = 0;
        for (int k = 0; k < 2; ++k) {
            const double tp = double(c[k][k]);
            const double predicted = double(c[0][k] + c[1][k]);
            const double actual = double(c[k][0] + c[k][1]);
            QCOMPARE(per[k]["label"].get<std::string>(), std::string(k ? "spam" : "ham"));
            QCOMPARE(per[k]["precision"].get<double>(), predicted > 0 ? tp / predicted : 0.0);
            QCOMPARE(per[k]["recall"].get<double>(), actual > 0 ? tp / actual : 0.0);
            QCOMPARE(per[k]["f1"].get<double>(), predicted + actual > 0 ? 2 * tp / (predicted + actual) : 0.0);
            QCOMPARE(per[k]["support"].get<int64_t>(), int64_t(actual));
            f1Sum += per[k]["f1"].get<double>();
        }
        QCOMPARE(last["eval_macro_f1"].get<double>(), f1Sum / 2);
        QCOMPARE(last["eval_f1"].get<double>(), per[1]["f1"].get<double>());
        QCOMPARE(last["positive_label"].get<std::string>(), std::string("spam"));
        QVERIFY(last.contains("eval_accuracy")); // the keys of before stay

        // training_summary.json holds the same set.
        const auto summary = nlohmann::json::parse(readAll(m_modelDir + "/training_summary.json"));
        QCOMPARE(summary["last_eval"]["per_class"], per);
        QCOMPARE(summary["last_eval"]["eval_macro_f1"], last["eval_macro_f1"]);
        QCOMPARE(summary["last_eval"]["positive_label"], last["positive_label"]);

        // The CLI prints them.
        QVERIFY2(m_trainOut.find("(positive class: spam)") != std::string::npos, m_trainOut.c_str());
        QVERIFY2(m_trainOut.find(", macro_f1 = ") != std::string::npos, m_trainOut.c_str());
        QVERIFY2(m_trainOut.find("\n  ham: precision = ") != std::string::npos
                     && m_trainOut.find("\n  spam: precision = ") != std::string::npos,
                 m_trainOut.c_str());
    }

    void keptBestModelIsUsedFirst()
    {
        // A best model kept at step 4 (as --best_checkpoint_metric leaves it), the latest at step 8.
        fs::create_directories(m_modelDir + "/best");
        fs::copy_file(m_modelDir + "/ckpt-4", m_modelDir + "/best/ckpt-4", fs::copy_options::overwrite_existing);
        writeFileAtomic(m_modelDir + "/best/best.json",
                        "{\"metric\": \"eval_accuracy\", \"value\": 0.6875, \"step\": 4, \"checkpoint\": \"best/ckpt-4\", "
                        "\"evaluations_since_best\": 1, \"last_evaluated_step\": 8}\n");
        InDirectory in(m_elsewhere);
        const auto exportWith = [&](const std::string &dir, const std::vector<std::string> &more, std::string &out) {
            std::vector<std::string> args{"export", "--distribution_strategy=one_device", "--model_dir=" + m_modelDir,
                                          "--model_export_path=" + root() + "/" + dir};
            args.insert(args.end(), more.begin(), more.end());
            std::string err;
            const int code = wbtest::runCli(args, out, err);
            return code == 0 ? readAll(root() + "/" + dir + "/model.safetensors") : "export failed: " + err;
        };
        std::string out, ignored;
        const std::string byDefault = exportWith("export-default", {}, out);
        QVERIFY2(out.find("Using the best checkpoint of the run (best, step 4 (eval_accuracy 0.6875)): " + m_modelDir
                          + "/best/ckpt-4; pass --predict_checkpoint_path=latest for the last one")
                     != std::string::npos,
                 out.c_str());
        QCOMPARE(byDefault, exportWith("export-best", {"--predict_checkpoint_path=best"}, ignored));
        const std::string latest = exportWith("export-latest", {"--predict_checkpoint_path=latest"}, ignored);
        QVERIFY(latest.rfind("export failed", 0) != 0);
        QVERIFY(latest != byDefault); // step 8's weights are not step 4's

        // classify says which checkpoint it answers with.
        std::string cout, cerr;
        QCOMPARE(wbtest::runCli({"classify", "--model_dir=" + m_modelDir, "--text=w5 w6"}, cout, cerr), 0);
        QVERIFY2(cerr.find("warning: using the best checkpoint of the run (best, step 4 (eval_accuracy 0.6875))")
                     != std::string::npos,
                 cerr.c_str());
        fs::remove_all(m_modelDir + "/best");
    }

    void classifyAndLrFindFromAnotherDirectory()
    {
        InDirectory in(m_elsewhere);
        std::string out, err;
        QCOMPARE(wbtest::runCli({"classify", "--model_dir=" + m_modelDir, "--text=w5 w6"}, out, err), 0);
        QVERIFY2(err.find("--bert_config_file not given: using the run's " + m_project + "/bert_config.json")
                     != std::string::npos,
                 err.c_str());
        QVERIFY2(out.rfind("text\tpredicted_label\tham\tspam\n", 0) == 0, out.c_str());

        QCOMPARE(wbtest::runCli({"lr_find", "--distribution_strategy=one_device", "--model_dir=" + m_modelDir,
                                 "--train_batch_size=8", "--lr_find_steps=4"},
                                out, err),
                 0);
        QVERIFY2(err.find("note: --train_data_path not given: using the run's " + m_project + "/train.tf_record")
                     != std::string::npos,
                 err.c_str());
        QVERIFY(fs::exists(m_modelDir + "/lr_find.json"));
    }

    void runModelDirIsAnInitCheckpoint()
    {
        // "cannot find a TensorFlow .index" before: a run's model_dir starts another run, every
        // tensor from its latest checkpoint (BERT L=1: 5 embeddings + 16 + 2 pooler + 2 head).
        std::string out, err;
        const int code = wbtest::runCli({"train", "--distribution_strategy=one_device",
                                         "--bert_config_file=" + m_project + "/bert_config.json",
                                         "--input_meta_data_path=" + m_project + "/input_meta_data.json",
                                         "--train_data_path=" + m_project + "/train.tf_record",
                                         "--eval_data_path=" + m_project + "/eval.tf_record",
                                         "--model_dir=" + root() + "/from-run", "--init_checkpoint=" + m_modelDir,
                                         "--train_batch_size=8", "--eval_batch_size=8", "--num_train_epochs=1"},
                                        out, err);
        QVERIFY2(code == 0, (out + err).c_str());
        QVERIFY2(out.find("Init checkpoint " + m_modelDir + ": loaded 25 tensors, 0 missing, 0 unexpected") != std::string::npos,
                 out.c_str());
    }

private:
    std::string m_trainOut;
};

QTEST_APPLESS_MAIN(tst_CliRunReaders)
#include "tst_clirunreaders.moc"
