// SPDX-License-Identifier: Apache-2.0
// Issue 48 (distillation; docs/distillation.md): the records' teacher_logits and has_label
// round-trip and are checked; the distillation loss equals its formula computed by hand; and
// `distil` end to end on a tiny BERT: a teacher trained with `train` on `prepare`d texts labels
// its training texts and a transfer file (a text equal to an eval text and a repeated one left
// out), the student trains on them, reports its agreement with the teacher on the eval set and
// agrees on nearly all of it; a second `distil` reuses the teacher's outputs; train refuses
// distillation settings on data without a teacher, and distil refuses data flags of its own;
// distil killed (kill -9) during the teacher's pass and at seeded steps, then run again, trains
// the student to the very losses of a run never killed.
#include "clirun.h"
#include "core/config/inputmetadata.h"
#include "core/data/examplecodec.h"
#include "core/distil/distillationdata.h"
#include "core/engine/batching.h"
#include "core/util/error.h"
#include "support/tinyrun.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <signal.h>

using namespace wb;
namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// The train lines of metrics.jsonl as step → loss (a last line cut by a kill is skipped);
/// `duplicates` counts repeated steps.
std::map<int64_t, double> trainLosses(const std::string &path, int *duplicates = nullptr)
{
    std::map<int64_t, double> out;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        const auto j = nlohmann::json::parse(line, nullptr, !in.eof());
        if (j.is_discarded() || j.value("kind", "") != "train")
            continue;
        const int64_t step = j.at("step").get<int64_t>();
        if (out.count(step) && duplicates)
            ++*duplicates;
        out[step] = j.at("loss").get<double>();
    }
    return out;
}

nlohmann::json lastEval(const std::string &metricsPath)
{
    nlohmann::json last;
    std::ifstream in(metricsPath);
    for (std::string line; std::getline(in, line);) {
        const auto j = nlohmann::json::parse(line);
        if (j.value("kind", "") == "eval")
            last = j;
    }
    return last;
}

} // namespace

class tst_Distil : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_root;

    std::string path(const std::string &name) const { return m_root + "/" + name; }

    /// transfer.txt: 200 new texts (seed 11), a repeat of the first, and the text of the first eval
    /// row of data.csv (split.jsonl of data/).
    void writeTransferTexts(const std::string &csv)
    {
        std::mt19937 rng(11);
        std::string transfer;
        std::string repeated;
        for (int i = 0; i < 200; ++i) {
            const std::string t = wbtest::twoClassText(rng, i % 2 == 0);
            transfer += t + "\n";
            if (i == 0)
                repeated = t;
        }
        transfer += repeated + "\n";
        std::vector<std::string> rows;
        std::istringstream lines(csv);
        for (std::string line; std::getline(lines, line);)
            rows.push_back(line);
        std::string evalText;
        std::ifstream split(path("data/split.jsonl"));
        for (std::string line; std::getline(split, line) && evalText.empty();) {
            const auto j = nlohmann::json::parse(line);
            if (j.value("split", "") == "eval") {
                const std::string row = rows.at(size_t(j.at("line").get<int64_t>() - 1));
                evalText = row.substr(0, row.find(','));
            }
        }
        QVERIFY2(!evalText.empty(), readAll(path("data/split.jsonl")).c_str());
        std::ofstream(path("transfer.txt")) << transfer << evalText << "\n";
    }

private Q_SLOTS:
    void initTestCase() { m_root = m_dir.path().toStdString(); }

    void teacherLogitsRoundTrip()
    {
        ClassifierRecord r;
        r.input_ids = {2, 10, 11, 3};
        r.input_mask = {1, 1, 1, 1};
        r.segment_ids = {0, 0, 0, 0};
        r.label_id = 1;
        r.teacher_logits = {-1.25f, 2.5f, 0.125f};
        r.has_label = 0;
        RecordSpec spec;
        spec.max_seq_length = 4;
        spec.num_labels = 3;
        spec.teacher_outputs = 3;
        ClassifierRecord back;
        decodeClassifierRecord(encodeClassifierRecord(r), spec, back);
        QCOMPARE(back.teacher_logits, r.teacher_logits);
        QCOMPARE(back.has_label, int64_t(0));
        QCOMPARE(back.label_id, int64_t(1));

        // Without teacher outputs in the spec, the features are ignored; with them, required.
        spec.teacher_outputs = 0;
        decodeClassifierRecord(encodeClassifierRecord(r), spec, back);
        QVERIFY(back.teacher_logits.empty());
        QCOMPARE(back.has_label, int64_t(1));
        spec.teacher_outputs = 3;
        ClassifierRecord plain = r;
        plain.teacher_logits.clear();
        plain.has_label = 1;
        try {
            decodeClassifierRecord(encodeClassifierRecord(plain), spec, back);
            QFAIL("a record without teacher_logits passed");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("'teacher_logits' is missing") != std::string::npos, e.what());
            QVERIFY2(e.hint().find("distil") != std::string::npos, e.hint().c_str());
        }
        spec.teacher_outputs = 2;
        try {
            decodeClassifierRecord(encodeClassifierRecord(r), spec, back);
            QFAIL("teacher_logits of 3 values passed for 2 labels");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("of 3 values, expected float_list[2]") != std::string::npos, e.what());
        }
        spec.teacher_outputs = 3;
        ClassifierRecord bad = r;
        bad.teacher_logits[1] = std::nanf("");
        QVERIFY_THROWS_EXCEPTION(Error, decodeClassifierRecord(encodeClassifierRecord(bad), spec, back));
    }

    /// α·T²·KL(softmax(t/T) ‖ softmax(s/T)) averaged over rows + (1 − α)·CE over the labelled rows.
    void distillationLossIsItsFormula()
    {
        const std::vector<std::vector<double>> s{{0.5, -1.0, 2.0}, {1.5, 0.25, -0.5}, {-2.0, 1.0, 0.0}};
        const std::vector<std::vector<double>> t{{1.0, 0.0, 3.0}, {-1.0, 2.0, 0.5}, {0.0, 0.0, 4.0}};
        const std::vector<int64_t> labels{2, 0, 1};
        const std::vector<double> hasLabel{1, 0, 1};
        const double T = 2.0, alpha = 0.7;
        const auto logSoftmax = [](const std::vector<double> &z, double temp) {
            double m = -1e300, sum = 0;
            for (double v : z)
                m = std::max(m, v / temp);
            for (double v : z)
                sum += std::exp(v / temp - m);
            std::vector<double> out;
            for (double v : z)
                out.push_back(v / temp - m - std::log(sum));
            return out;
        };
        double soft = 0, hard = 0;
        for (size_t i = 0; i < 3; ++i) {
            const auto lt = logSoftmax(t[i], T), ls = logSoftmax(s[i], T), l1 = logSoftmax(s[i], 1.0);
            for (size_t j = 0; j < 3; ++j)
                soft += std::exp(lt[j]) * (lt[j] - ls[j]);
            hard += hasLabel[i] * -l1[size_t(labels[i])];
        }
        const double expected = alpha * T * T * soft / 3.0 + (1 - alpha) * hard / 2.0;

        BatchTensors b;
        const auto rows = [](const std::vector<std::vector<double>> &v) {
            std::vector<float> flat;
            for (const auto &r : v)
                flat.insert(flat.end(), r.begin(), r.end());
            return torch::tensor(flat).reshape({3, 3});
        };
        b.labels = torch::tensor(labels);
        b.teacher = rows(t);
        b.has_label = torch::tensor(std::vector<float>{1, 0, 1});
        const double got = distillationLossFor(rows(s), b, ProblemType::SingleLabel, T, alpha).item<double>();
        QVERIFY2(std::abs(got - expected) < 1e-5, (std::to_string(got) + " vs " + std::to_string(expected)).c_str());
        // α = 1: the soft term alone; regression: the squared difference to the teacher.
        const double softOnly = distillationLossFor(rows(s), b, ProblemType::SingleLabel, T, 1.0).item<double>();
        QVERIFY(std::abs(softOnly - T * T * soft / 3.0) < 1e-5);
        BatchTensors r;
        r.teacher = torch::tensor(std::vector<float>{1.0f, -2.0f}).reshape({2, 1});
        r.has_label = torch::tensor(std::vector<float>{0, 0});
        r.values = torch::tensor(std::vector<float>{0.0f, 0.0f});
        const double mse = distillationLossFor(torch::tensor(std::vector<float>{0.5f, 0.0f}).reshape({2, 1}), r,
                                               ProblemType::Regression, 3.0, 1.0)
                               .item<double>();
        QVERIFY(std::abs(mse - (0.25 + 4.0) / 2.0) < 1e-6);
    }

    void summarySaysWhatTheStudentLearnsFrom()
    {
        DistillationData d;
        d.teacher_weights = "runs/t/ckpt-60";
        d.teacher_weights_label = "latest, step 60";
        d.labelled = 200;
        d.teacher_agreement_train = 0.995;
        d.transfer = 1234567;
        d.transfer_in_eval = 3;
        d.transfer_duplicates = 1200;
        d.eval = 605;
        d.teacher_seconds = 41.25;
        d.notes = {"a note"};
        const std::vector<std::string> want{
            "note: a note", "teacher: runs/t/ckpt-60 (latest, step 60)",
            "student's data: 200 labelled texts (the teacher gets 99.5 % of them right), 1,234,567 transfer texts "
            "labelled by the teacher (left out: 3 in the eval set, 1,200 repeated); evaluated on the teacher's 605 "
            "eval texts",
            "teacher's outputs: computed in 41.2 s, kept in out/distillation"};
        QCOMPARE(distillationSummary(d, "out/distillation"), want);
        d.cached = true;
        QCOMPARE(distillationSummary(d, "out/distillation").back(),
                 std::string("teacher's outputs: reused from out/distillation (teacher.json matches the teacher and the texts)"));
    }

    void distilEndToEnd()
    {
        wbtest::writeTeacherStudentProject(m_root);
        const std::string csv = readAll(path("data.csv"));
        std::string out, err;
        QCOMPARE(wbtest::runCli({"prepare", "--input_data_dir=" + path("data.csv"), "--classification_task_name=csv",
                                 "--vocab_file=" + path("vocab.txt"), "--max_seq_length=16", "--eval_fraction=0.25",
                                 "--bag_of_words_baseline=false", "--output_dir=" + path("data")},
                                out, err),
                 0);
        const std::vector<std::string> common{"--distribution_strategy=one_device", "--train_batch_size=8",
                                              "--eval_batch_size=8", "--num_threads=1", "--log_steps=0"};
        std::vector<std::string> teach{"train", "--bert_config_file=" + path("bert_config.json"),
                                       "--input_meta_data_path=" + path("data/input_meta_data.json"),
                                       "--train_data_path=" + path("data/train.tf_record"),
                                       "--eval_data_path=" + path("data/eval.tf_record"),
                                       "--model_dir=" + path("teacher"), "--num_train_epochs=20",
                                       "--learning_rate=3e-3"};
        teach.insert(teach.end(), common.begin(), common.end());
        QVERIFY2(wbtest::runCli(teach, out, err) == 0, err.c_str());
        QVERIFY2(lastEval(path("teacher/metrics.jsonl")).value("eval_accuracy", 0.0) >= 0.9, out.c_str());
        QVERIFY(!lastEval(path("teacher/metrics.jsonl")).contains("eval_teacher_agreement"));

        writeTransferTexts(csv);
        QVERIFY(!QTest::currentTestFailed());

        std::vector<std::string> distil{"distil", "--teacher_dir=" + path("teacher"),
                                        "--transfer_data=" + path("transfer.txt"),
                                        "--bert_config_file=" + path("student_config.json"),
                                        "--model_dir=" + path("student"), "--num_train_epochs=6",
                                        "--learning_rate=3e-3", "--distillation_temperature=2"};
        distil.insert(distil.end(), common.begin(), common.end());
        QVERIFY2(wbtest::runCli(distil, out, err) == 0, err.c_str());
        QVERIFY2(err.find("teacher's outputs: computed in") != std::string::npos, err.c_str());
        const auto teacherJson = nlohmann::json::parse(readAll(path("student/distillation/teacher.json")));
        const auto counts = teacherJson.at("counts");
        QCOMPARE(counts.at("labelled").get<int64_t>(), int64_t(45));
        QCOMPARE(counts.at("eval").get<int64_t>(), int64_t(15));
        QCOMPARE(counts.at("transfer_in_eval").get<int64_t>(), int64_t(1));
        QVERIFY(counts.at("transfer_duplicates").get<int64_t>() >= 1);
        QCOMPARE(counts.at("transfer").get<int64_t>() + counts.at("transfer_duplicates").get<int64_t>(), int64_t(201));
        const auto meta = nlohmann::json::parse(readAll(path("student/distillation/input_meta_data.json")));
        QCOMPARE(meta.at("has_teacher_logits").get<bool>(), true);
        QCOMPARE(meta.at("train_data_size").get<int64_t>(), 45 + counts.at("transfer").get<int64_t>());
        const nlohmann::json last = lastEval(path("student/metrics.jsonl"));
        QVERIFY2(last.contains("eval_teacher_agreement"), last.dump().c_str());
        QVERIFY2(last.at("eval_teacher_agreement").get<double>() >= 0.9, last.dump().c_str());
        QVERIFY2(out.find("teacher_agreement = ") != std::string::npos, out.c_str());
        // The student's run records the teacher's vocabulary (export and classify read it).
        QVERIFY(readAll(path("student/run_config.json")).find(path("vocab.txt")) != std::string::npos);

        // The student's model card says what it learned from.
        QVERIFY2(wbtest::runCli({"export", "--model_dir=" + path("student"), "--model_export_path=" + path("student-export")},
                                out, err) == 0,
                 err.c_str());
        // The export's input_meta_data.json describes the model's inputs, not the records.
        const auto exportedMeta = nlohmann::json::parse(readAll(path("student-export/input_meta_data.json")));
        QVERIFY2(!exportedMeta.contains("has_teacher_logits"), exportedMeta.dump().c_str());
        QCOMPARE(exportedMeta.at("num_labels").get<int64_t>(), meta.at("num_labels").get<int64_t>());
        const std::string card = readAll(path("student-export/README.md"));
        QVERIFY2(card.find("- Distillation: a student trained on a teacher's soft labels (temperature 2.0, soft-label "
                           "share 1.0): the teacher ")
                     != std::string::npos,
                 card.c_str());
        QVERIFY2(card.find(" labelled its 45 training texts and " + std::to_string(counts.at("transfer").get<int64_t>())
                           + " unlabelled transfer texts")
                     != std::string::npos,
                 card.c_str());

        // Again: the teacher's outputs are reused (the finished run is not trained again).
        QVERIFY2(wbtest::runCli(distil, out, err) == 0, err.c_str());
        QVERIFY2(err.find("teacher's outputs: reused from") != std::string::npos, err.c_str());
        // The temperature and the share define the student's run: another T does not resume it.
        std::vector<std::string> hotter = distil;
        hotter.push_back("--distillation_temperature=3");
        QCOMPARE(wbtest::runCli(hotter, out, err), 2);
        QVERIFY2(err.find("distillation_temperature: 2.0 → 3.0") != std::string::npos, err.c_str());
    }

    void killNineAndResumeRepeatsTheStudent()
    {
        // The teacher and transfer.txt of distilEndToEnd; a checkpoint every 3 steps.
        const auto flags = [&](const std::string &modelDir) {
            return std::vector<std::string>{
                "distil", "--teacher_dir=" + path("teacher"), "--transfer_data=" + path("transfer.txt"),
                "--bert_config_file=" + path("student_config.json"), "--model_dir=" + modelDir,
                "--num_train_epochs=2", "--learning_rate=3e-3", "--distillation_temperature=2",
                "--distribution_strategy=one_device", "--train_batch_size=8", "--eval_batch_size=8",
                "--num_threads=1", "--log_steps=0", "--steps_per_loop=1", "--save_checkpoints_steps=3"};
        };
        std::string out, err;
        QVERIFY2(wbtest::runCli(flags(path("ref")), out, err) == 0, err.c_str());
        const auto reference = trainLosses(path("ref/metrics.jsonl"));
        const int64_t steps = int64_t(reference.size());
        QVERIFY(steps > 40);

        QStringList args;
        for (const auto &a : flags(path("killed")))
            args << QString::fromStdString(a);
        const QString cli = QStringLiteral(WB_BINARY_DIR "/app/cli/bert-workbench-cli");
        std::mt19937 rng(48);
        int killed = 0, killedInTeacherPass = 0;
        for (int round = 0; round < 10; ++round) {
            const int64_t done = int64_t(trainLosses(path("killed/metrics.jsonl")).size());
            if (done >= steps - 1)
                break;
            // Round 0 kills during the teacher's pass (its folder still .partial) if it sees it,
            // else at a seeded step, as every later round does.
            const int64_t target = done + 1 + int64_t(rng() % uint32_t(std::min<int64_t>(12, steps - 1 - done)));
            QProcess proc;
            proc.start(cli, args);
            QVERIFY(proc.waitForStarted());
            while (proc.state() == QProcess::Running) {
                const bool inPass = round == 0 && fs::exists(path("killed/distillation.partial"));
                if (inPass || int64_t(trainLosses(path("killed/metrics.jsonl")).size()) >= target) {
                    ::kill(pid_t(proc.processId()), SIGKILL);
                    ++killed;
                    killedInTeacherPass += inPass ? 1 : 0;
                    break;
                }
                QThread::usleep(200);
            }
            proc.waitForFinished(60000);
        }
        QVERIFY(killed >= 1);
        QProcess last;
        last.start(cli, args);
        QVERIFY(last.waitForFinished(120000));
        QVERIFY2(last.exitCode() == 0, last.readAllStandardError().constData());

        int duplicates = 0;
        const auto losses = trainLosses(path("killed/metrics.jsonl"), &duplicates);
        QCOMPARE(duplicates, 0);
        QCOMPARE(int64_t(losses.size()), steps);
        for (const auto &[step, loss] : losses) // the same data, order and steps as the run never killed
            QVERIFY2(loss == reference.at(step), qPrintable(QStringLiteral("step %1: %2 vs %3")
                                                                .arg(step)
                                                                .arg(loss, 0, 'g', 17)
                                                                .arg(reference.at(step), 0, 'g', 17)));
        QVERIFY(!fs::exists(path("killed/distillation.partial")));
        QCOMPARE(nlohmann::json::parse(readAll(path("killed/distillation/teacher.json"))).at("counts"),
                 nlohmann::json::parse(readAll(path("ref/distillation/teacher.json"))).at("counts"));
        qInfo("killed %d times, %d in the teacher's pass", killed, killedInTeacherPass);
    }

    void refusesWhatWouldChangeNothing()
    {
        std::string out, err;
        std::vector<std::string> train{"train", "--bert_config_file=" + path("bert_config.json"),
                                       "--input_meta_data_path=" + path("data/input_meta_data.json"),
                                       "--train_data_path=" + path("data/train.tf_record"),
                                       "--eval_data_path=" + path("data/eval.tf_record"),
                                       "--model_dir=" + path("plain"), "--distribution_strategy=one_device",
                                       "--distillation_alpha=0.5"};
        QCOMPARE(wbtest::runCli(train, out, err), 2);
        QVERIFY2(err.find("distillation_alpha weighs a teacher's soft labels") != std::string::npos, err.c_str());
        QVERIFY(!fs::exists(path("plain/metrics.jsonl")));

        QCOMPARE(wbtest::runCli({"distil", "--teacher_dir=" + path("teacher"), "--model_dir=" + path("s2"),
                                 "--train_data_path=" + path("data/train.tf_record")},
                                out, err),
                 2);
        QVERIFY2(err.find("train_data_path: distil makes the student's data") != std::string::npos, err.c_str());
        // Wrong flags are reported before the teacher's pass: no distillation folder is made.
        const std::vector<std::string> student{"distil", "--teacher_dir=" + path("teacher"),
                                               "--bert_config_file=" + path("student_config.json"),
                                               "--distribution_strategy=one_device", "--model_dir=" + path("s4")};
        std::vector<std::string> bad = student;
        bad.push_back("--distillation_alpha=2");
        QCOMPARE(wbtest::runCli(bad, out, err), 2);
        QVERIFY2(err.find("error: distillation_alpha:") != std::string::npos, err.c_str());
        QVERIFY2(err.find("teacher's outputs") == std::string::npos, err.c_str());
        bad = {student.begin(), student.end() - 2};
        bad.push_back("--model_dir=" + path("s4"));
        QCOMPARE(wbtest::runCli(bad, out, err), 2); // no strategy
        QVERIFY2(err.find("Distribution strategy has not been specified.") != std::string::npos, err.c_str());
        std::ofstream(path("tiny_vocab_config.json"))
            << "{\"vocab_size\": 20, \"hidden_size\": 16, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, "
               "\"intermediate_size\": 32, \"max_position_embeddings\": 64, \"type_vocab_size\": 2}";
        bad = student;
        bad.push_back("--bert_config_file=" + path("tiny_vocab_config.json"));
        QCOMPARE(wbtest::runCli(bad, out, err), 2); // the teacher's wordpiece ids do not fit vocab_size 20
        QVERIFY2(err.find("error: teacher_dir: the teacher's records (") != std::string::npos, err.c_str());
        QVERIFY2(err.find("vocab_size") != std::string::npos, err.c_str());
        QVERIFY(!fs::exists(path("s4/distillation")));
        // A table without a text column: the hint names distil's own flag.
        std::ofstream(path("bodies.csv")) << "body,label\nw10 w11,low\n";
        bad = student;
        bad.push_back("--transfer_data=" + path("bodies.csv"));
        QCOMPARE(wbtest::runCli(bad, out, err), 2);
        QVERIFY2(err.find("--transfer_column=NAME") != std::string::npos, err.c_str());
        QVERIFY2(err.find("text_a_column") == std::string::npos, err.c_str());

        bad = student;
        bad.push_back("--teacher_checkpoint=ckpt-999");
        QCOMPARE(wbtest::runCli(bad, out, err), 2);
        QVERIFY2(err.find("error: teacher_checkpoint: 'ckpt-999' of the teacher run") != std::string::npos, err.c_str());

        QCOMPARE(wbtest::runCli({"distil", "--teacher_dir=" + path("nowhere"), "--model_dir=" + path("s3")}, out, err), 2);
        QVERIFY2(err.find("is not a folder") != std::string::npos, err.c_str());
    }
};

QTEST_GUILESS_MAIN(tst_Distil)
#include "tst_distil.moc"
