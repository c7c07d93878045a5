// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli pretrain` end to end (issue 24): exit codes, metrics.jsonl (mlm_loss
// falling, perplexity = exp(eval MLM loss)), TensorBoard events, export as BertForMaskedLM,
// and fine-tuning from the result.
#include "app/cli/commands.h"
#include "clirun.h"
#include "core/model/initcheckpoint.h"
#include "core/weights/parameternames.h"
#include "core/model/pretrainingheads.h"
#include "core/engine/checkpointio.h"
#include "support/pretrainingrecords.h"
#include "support/tinyrun.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include "core/io/metricsreader.h"

#include <nlohmann/json.hpp>

using namespace wb;
namespace fs = std::filesystem;

class tst_CliPretrain : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TrainingOptions m_cls; ///< a classification run with the same model config
    std::string m_meta, m_train, m_eval, m_vocab;
    std::string path(const std::string &name) const { return (fs::path(m_dir.path().toStdString()) / name).string(); }

    std::vector<std::string> common(const std::string &modelDir, const std::string &meta) const
    {
        return {"--distribution_strategy=one_device", "--bert_config_file=" + m_cls.bert_config_file,
                "--input_meta_data_path=" + meta, "--train_data_path=" + m_train, "--eval_data_path=" + m_eval,
                "--model_dir=" + modelDir, "--train_batch_size=8", "--eval_batch_size=8", "--num_train_epochs=10",
                "--learning_rate=2e-3", "--num_threads=1"};
    }

    void writeMeta(const std::string &file, int64_t vocab, const std::string &task = "bert_pretraining",
                   bool nextSentence = false) const
    {
        std::ofstream(file) << "{\"task_type\": \"" << task << "\", \"max_seq_length\": 16, \"max_predictions_per_seq\": 5, "
                            << "\"train_data_size\": 64, \"eval_data_size\": 16, \"use_next_sentence_label\": " << (nextSentence ? "true" : "false") << ", "
                            << "\"masking\": \"static\", \"masked_lm_prob\": 0.15, \"whole_word_masking\": false, "
                            << "\"vocab_size\": " << vocab << ", \"do_lower_case\": true}";
    }

    static std::vector<nlohmann::json> lines(const std::string &file, const char *kind)
    {
        std::vector<nlohmann::json> out;
        std::ifstream in(file);
        std::string line;
        while (std::getline(in, line)) {
            auto j = nlohmann::json::parse(line);
            if (j.value("kind", "") == kind)
                out.push_back(j);
        }
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        wbtest::TinyRun p; // BERT L=2, H=32, vocab 100: the pretraining model is the same
        p.dropout_prob = 0.0;
        m_cls = wbtest::writeTinyRun(path("cls"), p);
        m_meta = path("pretraining_meta.json");
        m_train = path("train.tf_record");
        m_eval = path("eval.tf_record");
        writeMeta(m_meta, 100);
        wbtest::writeMaskedLmRecords(m_train, 64, 16, 5, 100, 1);
        wbtest::writeMaskedLmRecords(m_eval, 16, 16, 5, 100, 2);
        m_vocab = path("vocab.txt");
        std::ofstream v(m_vocab);
        for (int k = 0; k < 100; ++k)
            v << (k == 0 ? "[PAD]" : k == 1 ? "[UNK]" : k == 2 ? "[CLS]" : k == 3 ? "[SEP]" : k == 4 ? "[MASK]" : "w" + std::to_string(k)) << "\n";
    }

    void pretrainsAndWritesMetrics()
    {
        std::string out, err;
        auto args = common(path("pt"), m_meta);
        args.insert(args.begin(), "pretrain");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitOk));
        QVERIFY2(out.find("Pretraining from random weights") != std::string::npos, out.c_str());
        const auto evals = lines(path("pt") + "/metrics.jsonl", "eval");
        QCOMPARE(evals.size(), size_t(10)); // one per epoch of 8 steps
        for (const auto &e : evals) {
            const double loss = e.at("eval_mlm_loss").get<double>();
            QCOMPARE(e.at("eval_perplexity").get<double>(), std::exp(loss)); // exactly
            QCOMPARE(e.at("eval_loss").get<double>(), loss);
            QCOMPARE(e.at("eval_accuracy").get<double>(), e.at("eval_mlm_accuracy").get<double>());
            QCOMPARE(e.at("num_examples").get<int64_t>(), int64_t(16));
        }
        const double first = evals.front().at("eval_mlm_loss").get<double>();
        const double last = evals.back().at("eval_mlm_loss").get<double>();
        QVERIFY2(std::abs(first - std::log(100.0)) < 1.0, qPrintable(QString::number(first)));
        QVERIFY2(last < 0.8 * first, qPrintable(QStringLiteral("first %1 last %2").arg(first).arg(last)));
        QVERIFY(evals.back().at("eval_mlm_accuracy").get<double>() > evals.front().at("eval_mlm_accuracy").get<double>());
        // Train lines come at time intervals and at every evaluation boundary (fixed steps):
        // the loss falls from the first epoch's line to the last one's, whatever came between.
        const auto trains = lines(path("pt") + "/metrics.jsonl", "train");
        const auto atStep = [&trains](int64_t step) {
            for (const auto &t : trains)
                if (t.at("step").get<int64_t>() == step)
                    return t;
            return nlohmann::json();
        };
        const nlohmann::json epoch1 = atStep(8), epoch10 = atStep(80);
        QVERIFY(!epoch1.is_null() && !epoch10.is_null());
        for (const auto &t : trains)
            QVERIFY(t.contains("mlm_loss") && t.contains("mlm_accuracy"));
        QVERIFY2(epoch10.at("mlm_loss").get<double>() < epoch1.at("mlm_loss").get<double>(),
                 qPrintable(QString::fromStdString(epoch1.dump() + " " + epoch10.dump())));
        for (const EvalMetrics &e : readMetricsFile(path("pt") + "/metrics.jsonl").eval)
            QVERIFY(!e.next_sentence); // no next-sentence head, no next-sentence numbers
        QVERIFY(fs::exists(path("pt") + "/ckpt-80"));
        QVERIFY(fs::exists(path("pt") + "/run_config.json"));
        QVERIFY(!fs::is_empty(path("pt") + "/summaries/train"));
        QVERIFY(!fs::is_empty(path("pt") + "/summaries/validation"));
        // Running it again is a finished run: nothing changes.
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitOk));
        QVERIFY2(out.find("already complete at step 80") != std::string::npos, out.c_str());
    }

    /// With next-sentence pairs the next-sentence loss and accuracy reach metrics.jsonl, the
    /// observer's EvalMetrics (as the window's plot and the runs' history read them back) and
    /// TensorBoard, next to the MLM ones.
    void nextSentenceAccuracyIsReported()
    {
        const std::string meta = path("nsp_meta.json"), dir = path("pt-nsp");
        writeMeta(meta, 100, "bert_pretraining", true);
        std::string out, err;
        auto args = common(dir, meta);
        args.insert(args.begin(), "pretrain");
        args.push_back("--num_train_epochs=2");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitOk));
        const auto evals = lines(dir + "/metrics.jsonl", "eval");
        QCOMPARE(evals.size(), size_t(2));
        std::string readError;
        const MetricsLog log = readMetricsFile(dir + "/metrics.jsonl", &readError);
        QVERIFY2(readError.empty(), readError.c_str());
        QCOMPARE(log.eval.size(), size_t(2));
        for (size_t k = 0; k < evals.size(); ++k) {
            const double acc = evals[k].at("eval_nsp_accuracy").get<double>();
            QCOMPARE(acc * 16.0, std::round(acc * 16.0)); // a share of the 16 eval pairs
            QVERIFY(evals[k].at("eval_nsp_loss").get<double>() > 0.0);
            QVERIFY(log.eval[k].next_sentence);
            QCOMPARE(log.eval[k].eval_nsp_accuracy, acc);
            QCOMPARE(log.eval[k].eval_nsp_loss, evals[k].at("eval_nsp_loss").get<double>());
        }
        for (const auto &t : lines(dir + "/metrics.jsonl", "train"))
            QVERIFY(t.contains("nsp_loss") && t.contains("nsp_accuracy"));
        auto folderHolds = [](const std::string &folder, const std::string &tag) {
            for (const auto &f : fs::directory_iterator(folder)) {
                std::ifstream in(f.path(), std::ios::binary);
                if (std::string(std::istreambuf_iterator<char>(in), {}).find(tag) != std::string::npos)
                    return true;
            }
            return false;
        };
        QVERIFY(folderHolds(dir + "/summaries/train", "nsp_accuracy"));
        QVERIFY(folderHolds(dir + "/summaries/validation", "eval_nsp_accuracy"));
    }

    /// A model_dir with the temporaries a killed run leaves (kill -9 during a checkpoint and
    /// during writeFileAtomic): `pretrain` removes them, as `train` does, and trains. Names
    /// that are not the program's own stay.
    void killedRunsTemporariesAreRemoved()
    {
        const std::string dir = path("pt-killed");
        fs::create_directories(dir);
        std::ofstream(dir + "/ckpt-2.tmp") << "half a checkpoint";
        std::ofstream(dir + "/run_config.json.tmp.4242") << "{\"defin";
        std::ofstream(dir + "/notes.tmp") << "the user's"; // not a name this program writes
        std::string out, err;
        auto args = common(dir, m_meta);
        std::replace(args.begin(), args.end(), std::string("--num_train_epochs=10"), std::string("--num_train_epochs=1"));
        args.insert(args.begin(), "pretrain");
        QVERIFY2(wbtest::runCli(args, out, err) == int(cli::kExitOk), (out + err).c_str());
        QVERIFY2(out.find("Pretraining from random weights") != std::string::npos, out.c_str());
        QVERIFY(!fs::exists(dir + "/ckpt-2.tmp"));
        QVERIFY(!fs::exists(dir + "/run_config.json.tmp.4242"));
        QVERIFY(fs::exists(dir + "/notes.tmp"));
        QVERIFY(fs::exists(dir + "/ckpt-8")); // one epoch of 8 steps
        QVERIFY(fs::exists(dir + "/run_config.json"));
        QCOMPARE(lines(dir + "/metrics.jsonl", "eval").size(), size_t(1));
    }

    /// `pretrain --num_local_workers=2` as train has it: two processes on c10d Gloo, the chief
    /// writes metrics.jsonl and the checkpoints, the MLM loss falls; a run whose last checkpoint
    /// is gone resumes from the one before and ends where the whole run ended.
    void localWorkersPretrainAndResume()
    {
        const std::string dir = path("pt-local");
        std::string out, err;
        auto args = common(dir, m_meta);
        args.front() = "--distribution_strategy=multi_worker_mirrored"; // as train's local workers
        args.insert(args.begin(), "pretrain");
        args.push_back("--num_local_workers=2");
        // The launcher starts the workers as bert-workbench-cli processes: run the real binary.
        auto cliProcess = [&args](std::string &text) {
            QStringList a;
            for (const std::string &x : args)
                a << QString::fromStdString(x);
            QProcess p;
            p.start(QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli"), a);
            if (!p.waitForFinished(170000))
                p.kill();
            text = (p.readAllStandardOutput() + p.readAllStandardError()).toStdString();
            return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        };
        QVERIFY2(cliProcess(out) == int(cli::kExitOk), out.c_str());
        const auto evals = lines(dir + "/metrics.jsonl", "eval");
        QCOMPARE(evals.size(), size_t(10)); // the chief's only: one per epoch of 8 steps
        for (const auto &e : evals)
            QCOMPARE(e.at("num_examples").get<int64_t>(), int64_t(16)); // both workers' eval shards summed
        const double first = evals.front().at("eval_mlm_loss").get<double>();
        const double last = evals.back().at("eval_mlm_loss").get<double>();
        QVERIFY2(last < 0.8 * first, qPrintable(QStringLiteral("first %1 last %2").arg(first).arg(last)));
        QVERIFY(fs::exists(dir + "/ckpt-80"));
        QVERIFY(fs::exists(dir + "/ckpt-72"));
        fs::remove(dir + "/ckpt-80");
        QVERIFY2(cliProcess(out) == int(cli::kExitOk), out.c_str());
        QVERIFY2(out.find("at step 72") != std::string::npos, out.c_str());
        const auto again = lines(dir + "/metrics.jsonl", "eval");
        QCOMPARE(again.size(), size_t(10)); // the lines after step 72 were written anew
        QCOMPARE(again.back().at("step").get<int64_t>(), int64_t(80));
        const double resumed = again.back().at("eval_mlm_loss").get<double>();
        QVERIFY2(std::abs(resumed - last) < 1e-5 * last, qPrintable(QStringLiteral("whole %1 resumed %2").arg(last).arg(resumed)));
        QVERIFY(fs::exists(dir + "/ckpt-80"));
    }

    /// prepare_pretraining's default output (dynamic masking: records without masks) trains:
    /// the run draws the masks itself, says so, and the same seed gives the same losses.
    void dynamicMaskingFromPreparePretraining()
    {
        const std::string corpus = path("corpus.txt"), data = path("dynamic-data");
        {
            std::ofstream c(corpus);
            for (int doc = 0; doc < 60; ++doc) {
                for (int line = 0; line < 4; ++line) {
                    for (int w = 0; w < 6; ++w)
                        c << (w ? " " : "") << "w" << 5 + (doc * 7 + line * 3 + w * 11) % 95;
                    c << "\n";
                }
                c << "\n";
            }
        }
        std::string out, err;
        QVERIFY2(wbtest::runCli({"prepare_pretraining", "--input_file=" + corpus, "--vocab_file=" + m_vocab,
                                 "--max_seq_length=16", "--max_predictions_per_seq=4", "--output_dir=" + data},
                                out, err) == int(cli::kExitOk),
                 err.c_str());
        QVERIFY2(out.find("dynamic") != std::string::npos, out.c_str());
        const std::string meta = data + "/input_meta_data.json";
        QCOMPARE(nlohmann::json::parse(std::ifstream(meta)).at("masking").get<std::string>(), std::string("dynamic"));

        const auto runOnce = [&](const std::string &modelDir) {
            std::vector<std::string> args = {"pretrain", "--distribution_strategy=one_device",
                                             "--bert_config_file=" + m_cls.bert_config_file, "--input_meta_data_path=" + meta,
                                             "--train_data_path=" + data + "/train.tf_record",
                                             "--eval_data_path=" + data + "/eval.tf_record", "--model_dir=" + modelDir,
                                             "--train_batch_size=8", "--eval_batch_size=8", "--num_train_epochs=2",
                                             "--learning_rate=2e-3", "--num_threads=1"};
            std::string o, e;
            const int code = wbtest::runCli(args, o, e);
            // Evaluations come at fixed steps (train lines at time intervals): compare those.
            return std::make_tuple(code, o + e, lines(modelDir + "/metrics.jsonl", "eval"));
        };
        const auto [code, text, train] = runOnce(path("dynamic-run"));
        QVERIFY2(code == int(cli::kExitOk), text.c_str());
        QVERIFY2(text.find("masking: dynamic") != std::string::npos, text.c_str());
        QVERIFY(!train.empty());
        for (const auto &l : train)
            QVERIFY(std::isfinite(l.at("eval_mlm_loss").get<double>()));
        const auto [code2, text2, again] = runOnce(path("dynamic-run-2"));
        QCOMPARE(code2, int(cli::kExitOk));
        QCOMPARE(again.size(), train.size());
        for (size_t k = 0; k < train.size(); ++k)
            QCOMPARE(again[k].at("eval_mlm_loss").get<double>(), train[k].at("eval_mlm_loss").get<double>());
    }

    void badInputExits2()
    {
        std::string out, err;
        // The data's vocabulary is not the model's.
        writeMeta(path("meta_vocab.json"), 120);
        auto args = common(path("pt_bad"), path("meta_vocab.json"));
        args.insert(args.begin(), "pretrain");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("meta_vocab.json: vocab_size") != std::string::npos, err.c_str());
        QVERIFY2(err.find("120") != std::string::npos, err.c_str());
        // Classification data for pretrain, and pretraining data for train.
        args = common(path("pt_bad"), m_cls.input_meta_data_path);
        args.insert(args.begin(), "pretrain");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("prepare_pretraining") != std::string::npos, err.c_str());
        args = common(path("pt_bad"), m_meta);
        args.insert(args.begin(), "train");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("bert-workbench-cli pretrain") != std::string::npos, err.c_str());
        QVERIFY(!fs::exists(path("pt_bad") + "/checkpoint"));
    }

    void exportsBertForMaskedLm()
    {
        std::string out, err;
        const std::vector<std::string> args = {"export", "--distribution_strategy=one_device", "--bert_config_file=" + m_cls.bert_config_file,
                                               "--input_meta_data_path=" + m_meta, "--model_dir=" + path("pt"),
                                               "--model_export_path=" + path("pt_export"), "--vocab_file=" + m_vocab};
        QVERIFY2(wbtest::runCli(args, out, err) == int(cli::kExitOk), err.c_str());
        std::ifstream cfgIn(path("pt_export") + "/config.json");
        const auto config = nlohmann::json::parse(cfgIn);
        QCOMPARE(config.at("architectures"), nlohmann::json::array({"BertForMaskedLM"}));
        QVERIFY(!config.contains("id2label"));
        QVERIFY(fs::exists(path("pt_export") + "/vocab.txt"));
        std::ifstream tokIn(path("pt_export") + "/tokenizer_config.json");
        QCOMPARE(nlohmann::json::parse(tokIn).at("do_lower_case").get<bool>(), true);
        const auto exported = loadSafetensors(path("pt_export") + "/model.safetensors");
        // The checkpoint's tensors under Hugging Face names, the tied decoder included.
        torch::serialize::InputArchive ar;
        ar.load_from(path("pt") + "/ckpt-80");
        c10::IValue model;
        QVERIFY(ar.try_read("model", model));
        auto dict = c10::impl::toTypedDict<std::string, torch::Tensor>(model.toGenericDict());
        QVERIFY(torch::equal(exported.at("cls.predictions.decoder.weight"),
                             dict.at("bert.embeddings.word_embeddings.weight")));
        QVERIFY(torch::equal(exported.at("cls.predictions.decoder.bias"), dict.at("cls.predictions.bias")));
        for (const char *n : {"cls.predictions.transform.dense.weight", "cls.predictions.transform.LayerNorm.weight",
                              "bert.encoder.layer.1.output.dense.weight"})
            QVERIFY2(torch::equal(exported.at(n), dict.at(n)), n);
        QVERIFY(!exported.count("bert.pooler.dense.weight")); // BertForMaskedLM has no pooler

        // The model card: a fill-mask model's, with the evaluation of the exported checkpoint.
        QVERIFY2(out.find("Exported " + path("pt") + "/ckpt-80 to " + path("pt_export") + " as BertForMaskedLM:")
                     != std::string::npos,
                 out.c_str());
        QVERIFY2(out.find("\n  README.md  (") != std::string::npos, out.c_str());
        std::ifstream cardIn(path("pt_export") + "/README.md");
        const std::string card((std::istreambuf_iterator<char>(cardIn)), std::istreambuf_iterator<char>());
        const auto evals = lines(path("pt") + "/metrics.jsonl", "eval");
        const nlohmann::json last = evals.back();
        QCOMPARE(last.at("step").get<int64_t>(), int64_t(80));
        const auto exact = [](const nlohmann::json &v) { return nlohmann::json(v.get<double>()).dump(); };
        const auto fixed4 = [](const nlohmann::json &v) { return QString::number(v.get<double>(), 'f', 4).toStdString(); };
        for (const std::string &want :
             {std::string("pipeline_tag: fill-mask\n"), std::string("      type: fill-mask\n      name: Fill-Mask\n"),
              "    - type: accuracy\n      value: " + exact(last.at("eval_mlm_accuracy")) + "\n      name: eval_mlm_accuracy\n",
              "    - type: loss\n      value: " + exact(last.at("eval_mlm_loss")) + "\n      name: eval_mlm_loss\n",
              "    - type: perplexity\n      value: " + exact(last.at("eval_perplexity")) + "\n      name: eval_perplexity\n",
              "| eval_mlm_loss | " + fixed4(last.at("eval_mlm_loss")) + " |\n",
              "| eval_mlm_accuracy | " + fixed4(last.at("eval_mlm_accuracy")) + " |\n",
              "| eval_perplexity | " + fixed4(last.at("eval_perplexity")) + " |\n",
              std::string("The evaluation of the exported checkpoint, at step 80, on 16 evaluation sequences"),
              std::string("- Data: 64 training and 16 evaluation sequences (input_meta_data.json), at most 5 masked "
                          "tokens each\n"),
              std::string("- Start: random weights"),
              std::string("- Uniform guess over the vocabulary of 100 tokens: eval_mlm_loss 4.6052 (ln 100), "
                          "perplexity 100\n"),
              std::string("pipeline(\"fill-mask\", model=\"path/to/pt_export\")")})
            QVERIFY2(card.find(want) != std::string::npos, (want + "\n---\n" + card).c_str());
        for (const char *absent : {"text-classification", "## Labels", "eval_macro_f1"})
            QVERIFY2(card.find(absent) == std::string::npos, absent);
    }

    /// A pretraining run exported without a vocabulary: no vocab.txt and no tokenizer file (their
    /// token ids would be guesses), and the log says why; the model card is there.
    void exportWithoutVocabHasNoTokenizerFiles()
    {
        std::string out, err;
        const std::vector<std::string> args = {"export", "--distribution_strategy=one_device", "--bert_config_file=" + m_cls.bert_config_file,
                                               "--input_meta_data_path=" + m_meta, "--model_dir=" + path("pt"),
                                               "--model_export_path=" + path("pt_export_novocab")};
        QVERIFY2(wbtest::runCli(args, out, err) == int(cli::kExitOk), err.c_str());
        const std::string dir = path("pt_export_novocab");
        for (const char *f : {"vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"})
            QVERIFY2(!fs::exists(dir + "/" + f), f);
        for (const char *f : {"model.safetensors", "config.json", "bert_config.json", "input_meta_data.json", "README.md"})
            QVERIFY2(fs::exists(dir + "/" + f), f);
        QVERIFY2(err.find("warning: no vocab.txt in the export, and so no tokenizer files (tokenizer.json, "
                          "tokenizer_config.json, special_tokens_map.json): pass --vocab_file (the vocabulary the "
                          "corpus was prepared with)\n")
                     != std::string::npos,
                 err.c_str());
        // The model card lists the files the export has, and no tokenizer files.
        std::ifstream card(dir + "/README.md");
        const std::string text(std::istreambuf_iterator<char>(card), {});
        QVERIFY2(text.find("Files: model.safetensors (float32 weights, Hugging Face names), config.json, bert_config.json "
                           "and input_meta_data.json (google-research/bert's).\n")
                     != std::string::npos,
                 text.c_str());
    }

    void fineTunesFromPretraining()
    {
        // The export folder as --init_checkpoint: every encoder tensor of the pretraining run loads.
        Diagnostics diag;
        nn::BertForSequenceClassification m(*BertConfig::load(m_cls.bert_config_file, diag), 2, nn::makeGenerator(5));
        const CheckpointMatch match = loadInitCheckpoint(m, path("pt_export"));
        torch::serialize::InputArchive ar;
        ar.load_from(path("pt") + "/ckpt-80");
        c10::IValue model;
        QVERIFY(ar.try_read("model", model));
        auto dict = c10::impl::toTypedDict<std::string, torch::Tensor>(model.toGenericDict());
        auto params = m->named_parameters();
        size_t encoder = 0;
        for (const auto &p : params) {
            if (p.key().rfind("bert.embeddings.", 0) != 0 && p.key().rfind("bert.encoder.", 0) != 0)
                continue;
            ++encoder;
            QVERIFY2(torch::equal(p.value(), dict.at(p.key())), p.key().c_str());
        }
        QCOMPARE(match.loaded.size(), encoder); // the pooler is not in a BertForMaskedLM export
        QVERIFY(match.classifierMissing);
        // And `train` from it runs.
        std::string out, err;
        std::vector<std::string> args = {"train", "--distribution_strategy=one_device",
                                         "--bert_config_file=" + m_cls.bert_config_file,
                                         "--input_meta_data_path=" + m_cls.input_meta_data_path,
                                         "--train_data_path=" + m_cls.train_data_path,
                                         "--eval_data_path=" + m_cls.eval_data_path, "--model_dir=" + path("ft"),
                                         "--train_batch_size=8", "--eval_batch_size=8", "--num_train_epochs=1",
                                         "--learning_rate=1e-3", "--init_checkpoint=" + path("pt_export")};
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitOk));
        QVERIFY2(out.find("loaded " + std::to_string(encoder) + " tensors") != std::string::npos, out.c_str());
        // The pretraining ckpt-N itself (issue 23's loader): the encoder loads, the cls.* heads
        // are skipped and said so, the classifier is new.
        args.back() = "--init_checkpoint=" + path("pt") + "/ckpt-80";
        args[6] = "--model_dir=" + path("ft2");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitOk));
        size_t pooler = 0; // the pretraining model has the pooler too; the export above has none
        for (const auto &entry : dict)
            pooler += entry.key().rfind("bert.pooler.", 0) == 0 ? 1 : 0;
        QCOMPARE(pooler, size_t(2));
        QVERIFY2(out.find("loaded " + std::to_string(encoder + pooler) + " tensors, 0 missing") != std::string::npos,
                 out.c_str());
        QVERIFY2(out.find("skipped 5 pretraining-head tensors cls.") != std::string::npos, out.c_str());
    }
};

QTEST_APPLESS_MAIN(tst_CliPretrain)
#include "tst_clipretrain.moc"
