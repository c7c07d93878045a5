// SPDX-License-Identifier: Apache-2.0
// `bert-workbench-cli pretrain` as a drop-in for google-research/bert's run_pretraining.py
// (issue 41): records written as create_pretraining_data.py writes them, with no
// input_meta_data.json, pretrained with run_pretraining.py's own flags; the records' shapes
// checked against --max_seq_length / --max_predictions_per_seq; --input_file's glob lists.
#include "app/cli/commands.h"
#include "clirun.h"
#include "core/data/pretrainingdataset.h"
#include "core/engine/pretrainpreflight.h"
#include "core/util/error.h"
#include "support/createpretrainingdata.h"
#include "support/pretrainingrecords.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

using namespace wb;
namespace fs = std::filesystem;

class tst_CliRunPretraining : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_config, m_data;
    std::string path(const std::string &name) const { return (fs::path(m_dir.path().toStdString()) / name).string(); }

    /// run_pretraining.py's command line of google-research/bert's README, on the tiny model.
    std::vector<std::string> runPretrainingArgs(const std::string &outputDir) const
    {
        return {"pretrain",
                "--input_file=" + m_data + "/part-*.tfrecord," + m_data + "/extra.tfrecord",
                "--output_dir=" + outputDir,
                "--do_train=True",
                "--do_eval=True",
                "--bert_config_file=" + m_config,
                "--train_batch_size=8",
                "--max_seq_length=32",
                "--max_predictions_per_seq=5",
                "--num_train_steps=3",
                "--num_warmup_steps=1",
                "--learning_rate=1e-3"};
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
        QVERIFY(m_dir.isValid());
        // google-research/bert's bert_config.json keys, a tiny model.
        m_config = path("bert_config.json");
        std::ofstream(m_config) << R"({"attention_probs_dropout_prob": 0.0, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.0, "hidden_size": 32, "initializer_range": 0.02, "intermediate_size": 64,
            "max_position_embeddings": 64, "num_attention_heads": 2, "num_hidden_layers": 2,
            "type_vocab_size": 2, "vocab_size": 100})";
        // Two shards and one more file, 16 records each: L = 32, P = 5, sentence pairs.
        m_data = path("records");
        fs::create_directories(m_data);
        wbtest::writeCreatePretrainingDataRecords(m_data + "/part-00000.tfrecord", 16, 32, 5, 100, 1);
        wbtest::writeCreatePretrainingDataRecords(m_data + "/part-00001.tfrecord", 16, 32, 5, 100, 2);
        wbtest::writeCreatePretrainingDataRecords(m_data + "/extra.tfrecord", 16, 32, 5, 100, 3);
        wbtest::writeCreatePretrainingDataRecords(m_data + "/short.tfrecord", 8, 16, 5, 100, 4);
    }

    /// The shapes come from the records: every file of a glob list, counted.
    void recordShapesFromTheRecords()
    {
        const MaskedLmRecordShapes s = readMaskedLmRecordShapes(m_data + "/part-*.tfrecord," + m_data + "/extra.tfrecord");
        QCOMPARE(s.files.size(), size_t(3));
        QCOMPARE(s.records, int64_t(48));
        QCOMPARE(s.max_seq_length, int64_t(32));
        QCOMPARE(s.max_predictions_per_seq, int64_t(5));
        QVERIFY(s.has_masks);
        QVERIFY(s.next_sentence);
        // Records of two lengths in one set: an error naming the record and both lengths.
        try {
            readMaskedLmRecordShapes(m_data + "/extra.tfrecord," + m_data + "/short.tfrecord");
            QFAIL("mixed lengths were accepted");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.field()).find("short.tfrecord: record 0") != std::string::npos, e.field().c_str());
            QVERIFY2(std::string(e.what()).find("16") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("32") != std::string::npos, e.what());
        }
    }

    /// create_pretraining_data.py's records, no meta file, run_pretraining.py's flags: the loss
    /// is finite, ckpt-3 appears, the schedule is the flags' and the meta data is the records'.
    void pretrainsWithRunPretrainingFlags()
    {
        const std::string out = path("pretraining_output");
        auto args = runPretrainingArgs(out);
        args.push_back("--use_tpu=False");
        args.push_back("--iterations_per_loop=1");
        args.push_back("--max_eval_steps=100");
        args.push_back("--num_threads=1");
        std::string stdoutText, stderrText;
        const int code = wbtest::runCli(args, stdoutText, stderrText);
        QVERIFY2(code == int(cli::kExitOk), (stdoutText + stderrText).c_str());
        QVERIFY(fs::exists(out + "/ckpt-3"));
        QVERIFY(!fs::exists(out + "/ckpt-4"));
        const auto trains = lines(out + "/metrics.jsonl", "train");
        QVERIFY(!trains.empty());
        for (const auto &t : trains) {
            QVERIFY2(std::isfinite(t.at("loss").get<double>()), t.dump().c_str());
            QVERIFY(t.contains("nsp_loss")); // sentence pairs: run_pretraining.py's next-sentence loss
        }
        QCOMPARE(trains.back().at("step").get<int64_t>(), int64_t(3));
        const auto evals = lines(out + "/metrics.jsonl", "eval");
        QCOMPARE(evals.size(), size_t(1)); // at the last step
        QVERIFY(std::isfinite(evals[0].at("eval_mlm_loss").get<double>()));
        QCOMPARE(evals[0].at("num_examples").get<int64_t>(), int64_t(48)); // --input_file's records
        // The meta data read from the records of all three files.
        std::ifstream metaIn(out + "/" + kRecordsMetaDataName);
        const auto meta = nlohmann::json::parse(metaIn);
        QCOMPARE(meta.at("task_type").get<std::string>(), std::string("bert_pretraining"));
        QCOMPARE(meta.at("max_seq_length").get<int64_t>(), int64_t(32));
        QCOMPARE(meta.at("max_predictions_per_seq").get<int64_t>(), int64_t(5));
        QCOMPARE(meta.at("train_data_size").get<int64_t>(), int64_t(48));
        QCOMPARE(meta.at("use_next_sentence_label").get<bool>(), true);
        QCOMPARE(meta.at("masking").get<std::string>(), std::string("static"));
        std::ifstream runIn(out + "/run_config.json");
        const auto run = nlohmann::json::parse(runIn);
        QCOMPARE(run.at("defining").at("total_steps").get<int64_t>(), int64_t(3));
        QCOMPARE(run.at("defining").at("warmup_steps").get<int64_t>(), int64_t(1));
        QVERIFY2(stderrText.find("--max_eval_steps is ignored") != std::string::npos, stderrText.c_str());
        // The same command again: the run is complete, the meta data unchanged.
        const auto before = fs::last_write_time(out + "/" + kRecordsMetaDataName);
        QVERIFY2(wbtest::runCli(runPretrainingArgs(out), stdoutText, stderrText) == int(cli::kExitOk), stderrText.c_str());
        QVERIFY2(stdoutText.find("already complete at step 3") != std::string::npos, stdoutText.c_str());
        QVERIFY(fs::last_write_time(out + "/" + kRecordsMetaDataName) == before);
    }

    /// --padding=longest on records whose texts fill 10 to 12 of 32 positions: the same
    /// pretraining up to float rounding (no dropout in this model), the eval MLM loss and every
    /// logged train loss within 1e-4 of the padded run's.
    void paddingToTheLongestPretrainsTheSame()
    {
        const std::string data = path("short-texts.tfrecord");
        {
            std::mt19937_64 rng(11);
            TFRecordWriter w(data);
            for (int64_t k = 0; k < 24; ++k) {
                MaskedLmRecord r = wbtest::makeMaskedLmRecord(k, 14, 5, 100, rng); // 10 … 12 marked positions
                for (auto *v : {&r.input_ids, &r.input_mask, &r.segment_ids})
                    v->resize(32, 0);
                w.write(encodeMaskedLmRecord(r));
            }
            w.commit();
        }
        std::map<std::string, std::vector<nlohmann::json>> trains, evals;
        for (const std::string padding : {"max_length", "longest"}) {
            const std::string out = path("padding-" + padding);
            auto args = runPretrainingArgs(out);
            args[1] = "--input_file=" + data;
            args.push_back("--padding=" + padding);
            args.push_back("--num_threads=1");
            args.push_back("--iterations_per_loop=1"); // a report every step, whatever the clock says
            std::string stdoutText, stderrText;
            QVERIFY2(wbtest::runCli(args, stdoutText, stderrText) == int(cli::kExitOk), (stdoutText + stderrText).c_str());
            trains[padding] = lines(out + "/metrics.jsonl", "train");
            evals[padding] = lines(out + "/metrics.jsonl", "eval");
        }
        QCOMPARE(trains["longest"].size(), size_t(3));
        QCOMPARE(trains["max_length"].size(), size_t(3));
        for (size_t i = 0; i < trains["longest"].size(); ++i)
            QVERIFY2(std::abs(trains["longest"][i].at("loss").get<double>() - trains["max_length"][i].at("loss").get<double>())
                         < 1e-4,
                     (trains["longest"][i].dump() + " vs " + trains["max_length"][i].dump()).c_str());
        QCOMPARE(evals["longest"].size(), size_t(1));
        QVERIFY(std::abs(evals["longest"][0].at("eval_mlm_loss").get<double>()
                         - evals["max_length"][0].at("eval_mlm_loss").get<double>())
                < 1e-4);
    }

    /// --max_seq_length=64 on 32-token records (and the same for the predictions, and for a
    /// meta file that says otherwise): exit 2, naming both values and the file; nothing run.
    void shapeFlagsThatDisagreeAreErrors()
    {
        std::string out, err;
        auto args = runPretrainingArgs(path("mismatch"));
        args[7] = "--max_seq_length=64";
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("--max_seq_length=64") != std::string::npos, err.c_str());
        QVERIFY2(err.find("max_seq_length 32") != std::string::npos, err.c_str());
        QVERIFY2(err.find("part-00000.tfrecord") != std::string::npos, err.c_str());
        QVERIFY(!fs::exists(path("mismatch") + "/checkpoint"));

        args = runPretrainingArgs(path("mismatch"));
        args[8] = "--max_predictions_per_seq=20";
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("--max_predictions_per_seq=20") != std::string::npos, err.c_str());
        QVERIFY2(err.find("max_predictions_per_seq 5") != std::string::npos, err.c_str());

        // A meta file and flags: they must agree too.
        const std::string meta = path("meta.json");
        std::ofstream(meta) << R"({"task_type": "bert_pretraining", "max_seq_length": 32, "max_predictions_per_seq": 5,
            "train_data_size": 48, "eval_data_size": 48, "use_next_sentence_label": true, "masking": "static"})";
        args = runPretrainingArgs(path("mismatch"));
        args[7] = "--max_seq_length=64";
        args.push_back("--input_meta_data_path=" + meta);
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("--max_seq_length=64, but " + meta + " says max_seq_length 32") != std::string::npos,
                 err.c_str());
    }

    /// The flags a run_pretraining.py user may pass that pretrain cannot honour are named.
    void unsupportedRunPretrainingFlags()
    {
        std::string out, err;
        auto args = runPretrainingArgs(path("tpu"));
        args.push_back("--use_tpu=True");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("use_tpu") != std::string::npos && err.find("TPUs are not supported") != std::string::npos,
                 err.c_str());
        args = runPretrainingArgs(path("tpu"));
        args[3] = "--do_train=False";
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("do_train") != std::string::npos, err.c_str());
        // --input_file and --train_data_path naming different files.
        args = runPretrainingArgs(path("tpu"));
        args.push_back("--train_data_path=" + m_data + "/extra.tfrecord");
        QCOMPARE(wbtest::runCli(args, out, err), int(cli::kExitInvalid));
        QVERIFY2(err.find("input_file") != std::string::npos, err.c_str());
        QVERIFY(!fs::exists(path("tpu") + "/checkpoint"));
        // train counts epochs: run_pretraining.py's step counts are pretrain's.
        const std::string cls = path("cls_meta.json");
        std::ofstream(cls) << R"({"task_type": "bert_classification", "num_labels": 2, "max_seq_length": 32,
            "train_data_size": 48, "eval_data_size": 48})";
        QCOMPARE(wbtest::runCli({"train", "--distribution_strategy=one_device", "--bert_config_file=" + m_config,
                                 "--input_meta_data_path=" + cls, "--train_data_path=" + m_data + "/extra.tfrecord",
                                 "--eval_data_path=" + m_data + "/extra.tfrecord", "--model_dir=" + path("cls"),
                                 "--num_train_steps=3"},
                                out, err),
                 int(cli::kExitInvalid));
        QVERIFY2(err.find("num_train_steps: --num_train_steps is pretrain's flag") != std::string::npos, err.c_str());
    }
};

QTEST_APPLESS_MAIN(tst_CliRunPretraining)
#include "tst_clirunpretraining.moc"
