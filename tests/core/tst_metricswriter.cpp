// SPDX-License-Identifier: Apache-2.0
#include "core/io/metricsreader.h"
#include "core/io/metricswriter.h"
#include "core/io/runevents.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <limits>

using namespace wb;

namespace {
std::vector<nlohmann::json> readLines(const std::string &path)
{
    std::ifstream in(path);
    std::vector<nlohmann::json> out;
    std::string line;
    while (std::getline(in, line))
        out.push_back(nlohmann::json::parse(line));
    return out;
}
} // namespace

class tst_MetricsWriter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void writesTrainAndEvalLines();
    void regressionKeys();
    void truncatesAfterResumeStep();
    void readerReadsWhatTheWriterWrites();
    void linesAreByteCompatible();
    void streamRoundTripsEveryEvent();
    void readerReportsBadLines();
};

void tst_MetricsWriter::readerReadsWhatTheWriterWrites()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    const double nan = std::numeric_limits<double>::quiet_NaN();
    {
        MetricsWriter w(path);
        StepMetrics s;
        s.step = 3;
        s.loss = 0.6931471805599453;
        s.learning_rate = 2e-5;
        s.examples_per_second = 37.25;
        s.wall_time = 1700000000.125;
        w.writeTrain(s);
        s.step = 4;
        s.loss = nan; // written as null, read back as NaN
        w.writeTrain(s);
        EvalMetrics binary;
        binary.step = 4;
        binary.wall_time = 1700000001.5;
        binary.eval_loss = 0.4;
        binary.eval_accuracy = 0.875;
        binary.binary = true;
        binary.eval_f1 = 0.8;
        binary.eval_mcc = -0.25;
        binary.num_examples = 16;
        binary.confusion = {{7, 1}, {1, 7}}; // not in metrics.jsonl
        w.writeEval(binary);
        EvalMetrics regression;
        regression.step = 5;
        regression.regression = true;
        regression.eval_loss = 1.5;
        regression.eval_mse = 1.5;
        regression.eval_pearson = 0.75;
        regression.eval_spearman = 0.5;
        regression.num_examples = 9;
        w.writeEval(regression);
    }
    std::string error;
    const MetricsLog log = readMetricsFile(path, &error);
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(int(log.train.size()), 2);
    QCOMPARE(log.train[0].step, int64_t(3));
    QCOMPARE(log.train[0].loss, 0.6931471805599453);
    QCOMPARE(log.train[0].learning_rate, 2e-5);
    QCOMPARE(log.train[0].examples_per_second, 37.25);
    QCOMPARE(log.train[0].wall_time, 1700000000.125);
    QCOMPARE(log.train[0].total_steps, int64_t(0)); // not a metrics.jsonl key
    QCOMPARE(log.train[1].step, int64_t(4));
    QVERIFY(std::isnan(log.train[1].loss));
    QCOMPARE(int(log.eval.size()), 2);
    const EvalMetrics &b = log.eval[0];
    QCOMPARE(b.step, int64_t(4));
    QCOMPARE(b.wall_time, 1700000001.5);
    QCOMPARE(b.eval_loss, 0.4);
    QCOMPARE(b.eval_accuracy, 0.875);
    QVERIFY(b.binary);      // inferred from eval_f1
    QVERIFY(!b.regression); // no eval_mse
    QCOMPARE(b.eval_f1, 0.8);
    QCOMPARE(b.eval_mcc, -0.25);
    QCOMPARE(b.num_examples, int64_t(16));
    QVERIFY(b.confusion.empty());
    const EvalMetrics &r = log.eval[1];
    QVERIFY(r.regression); // inferred from eval_mse
    QVERIFY(!r.binary);
    QCOMPARE(r.eval_mse, 1.5);
    QCOMPARE(r.eval_pearson, 0.75);
    QCOMPARE(r.eval_spearman, 0.5);
    QCOMPARE(r.eval_accuracy, 0.0);
    QCOMPARE(r.num_examples, int64_t(9));
}

void tst_MetricsWriter::linesAreByteCompatible()
{
    // The metrics.jsonl lines (and key order) of the releases before the nlohmann to_json formats.
    StepMetrics s;
    s.step = 7;
    s.total_steps = 100;
    s.epoch = 0.5;
    s.loss = 0.5;
    s.learning_rate = 0.25;
    s.examples_per_second = 120;
    s.wall_time = 1000.5;
    QCOMPARE(QString::fromStdString(MetricsWriter::trainJson(s).dump()),
             QStringLiteral(R"({"kind":"train","step":7,"loss":0.5,"learning_rate":0.25,"examples_per_second":120.0,)"
                            R"("wall_time":1000.5})"));
    EvalMetrics e;
    e.step = 7;
    e.wall_time = 2.5;
    e.eval_loss = 0.25;
    e.eval_accuracy = 0.75;
    e.binary = true;
    e.eval_f1 = 0.5;
    e.eval_mcc = std::numeric_limits<double>::infinity();
    e.num_examples = 4;
    e.confusion = {{1, 1}, {0, 2}};
    QCOMPARE(QString::fromStdString(MetricsWriter::evalJson(e).dump()),
             QStringLiteral(R"({"eval_accuracy":0.75,"eval_f1":0.5,"eval_loss":0.25,"eval_mcc":null,"kind":"eval",)"
                            R"("num_examples":4,"step":7,"wall_time":2.5})"));
    QCOMPARE(QString::fromStdString(runEventLine(s)),
             QStringLiteral(R"({"event":"step","step":7,"total_steps":100,"epoch":0.5,"loss":0.5,"learning_rate":0.25,)"
                            R"("examples_per_second":120.0,"wall_time":1000.5})"));
    QCOMPARE(QString::fromStdString(runEventLine(e)),
             QStringLiteral(R"({"binary":true,"confusion":[[1,1],[0,2]],"eval_accuracy":0.75,"eval_f1":0.5,)"
                            R"("eval_loss":0.25,"eval_mcc":null,"event":"eval","num_examples":4,"regression":false,)"
                            R"("step":7,"wall_time":2.5})"));
}

namespace {
struct Recorder : TrainingObserver
{
    std::vector<RunStarted> started;
    std::vector<StepMetrics> steps;
    std::vector<EvalMetrics> evals;
    std::vector<CheckpointSaved> checkpoints;
    std::vector<std::string> logs;
    void runStarted(const RunStarted &v) override { started.push_back(v); }
    void stepCompleted(const StepMetrics &v) override { steps.push_back(v); }
    void evaluationCompleted(const EvalMetrics &v) override { evals.push_back(v); }
    void checkpointSaved(const CheckpointSaved &v) override { checkpoints.push_back(v); }
    void logMessage(const std::string &v) override { logs.push_back(v); }
};
} // namespace

void tst_MetricsWriter::streamRoundTripsEveryEvent()
{
    Recorder rec;
    RunStarted info;
    info.total_steps = 340;
    info.steps_per_epoch = 170;
    info.warmup_steps = 34;
    info.eval_steps = 11;
    info.start_step = 5;
    info.num_labels = 2;
    info.parameter_count = 4386178;
    info.model_dir = "/tmp/run";
    info.device = "cpu";
    info.wall_time = 12.5;
    QCOMPARE(decodeRunEvent(runEventLine(info), rec), RunEventKind::RunStarted);
    QCOMPARE(rec.started.at(0).total_steps, int64_t(340));
    QCOMPARE(rec.started.at(0).warmup_steps, int64_t(34));
    QCOMPARE(rec.started.at(0).parameter_count, int64_t(4386178));
    QCOMPARE(rec.started.at(0).model_dir, std::string("/tmp/run"));
    QCOMPARE(rec.started.at(0).wall_time, 12.5);
    StepMetrics s;
    s.step = 12;
    s.total_steps = 340;
    s.epoch = 0.0705;
    s.loss = 0.69;
    s.learning_rate = 1.5e-5;
    s.examples_per_second = 250.5;
    s.wall_time = 13.25;
    QCOMPARE(decodeRunEvent(runEventLine(s), rec), RunEventKind::Step);
    QCOMPARE(rec.steps.at(0).epoch, 0.0705);
    QCOMPARE(rec.steps.at(0).learning_rate, 1.5e-5);
    QCOMPARE(rec.steps.at(0).total_steps, int64_t(340));
    EvalMetrics e;
    e.step = 170;
    e.eval_accuracy = 0.9;
    e.num_examples = 10;
    e.confusion = {{5, 0}, {1, 4}};
    QCOMPARE(decodeRunEvent(runEventLine(e), rec), RunEventKind::Eval);
    QCOMPARE(rec.evals.at(0).confusion, (std::vector<std::vector<int64_t>>{{5, 0}, {1, 4}}));
    QCOMPARE(rec.evals.at(0).eval_accuracy, 0.9);
    QVERIFY(!rec.evals.at(0).binary);
    QVERIFY(!rec.evals.at(0).next_sentence);
    EvalMetrics nsp; // pretraining with next-sentence pairs: the head's loss and accuracy travel too
    nsp.step = 40;
    nsp.eval_loss = 5.5;
    nsp.eval_accuracy = 0.125;
    nsp.next_sentence = true;
    nsp.eval_nsp_loss = 0.625;
    nsp.eval_nsp_accuracy = 0.75;
    QCOMPARE(decodeRunEvent(runEventLine(nsp), rec), RunEventKind::Eval);
    QVERIFY(rec.evals.at(1).next_sentence);
    QCOMPARE(rec.evals.at(1).eval_nsp_loss, 0.625);
    QCOMPARE(rec.evals.at(1).eval_nsp_accuracy, 0.75);
    QCOMPARE(rec.evals.at(1).eval_accuracy, 0.125);
    QCOMPARE(decodeRunEvent(runEventLine(CheckpointSaved{170, "/tmp/run/ckpt-170"}), rec), RunEventKind::Checkpoint);
    QCOMPARE(rec.checkpoints.at(0).path, std::string("/tmp/run/ckpt-170"));
    RunFinished f;
    f.status = RunStatus::Cancelled;
    f.last_step = 171;
    f.final_train_loss = 0.125;
    f.message = "stopped";
    f.field = "run";
    f.hint = "resume";
    f.last_checkpoint = "/tmp/run/ckpt-171";
    RunFinished got;
    QCOMPARE(decodeRunEvent(runEventLine(f), rec, &got), RunEventKind::Finished);
    QCOMPARE(got.status, RunStatus::Cancelled);
    QCOMPARE(got.last_step, int64_t(171));
    QCOMPARE(got.final_train_loss, 0.125);
    QCOMPARE(got.hint, std::string("resume"));
    QCOMPARE(got.last_checkpoint, std::string("/tmp/run/ckpt-171"));
    QCOMPARE(decodeRunEvent("Traceback: not json", rec), RunEventKind::NotAnEvent);
}

void tst_MetricsWriter::readerReportsBadLines()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    {
        std::ofstream out(path);
        out << R"({"kind":"train","step":1,"loss":1.0})" << "\n"
            << "not json\n"
            << R"({"kind":"train","step":2,"loss":0.5})" << "\n"
            << R"({"kind":"train","st)"; // torn last line
    }
    std::string error;
    const MetricsLog log = readMetricsFile(path, &error);
    QCOMPARE(QString::fromStdString(error), QString::fromStdString(path + ": line 2: not a JSON object"));
    QCOMPARE(int(log.train.size()), 1);
    QCOMPARE(log.train[0].loss, 1.0);

    {
        std::ofstream out(path);
        out << R"({"kind":"train","step":1,"loss":1.0})" << "\n" << R"({"kind":"train","st)";
    }
    error.clear();
    QCOMPARE(int(readMetricsFile(path, &error).train.size()), 1);
    QVERIFY2(error.empty(), error.c_str()); // a torn last line is a run still writing

    error.clear();
    readMetricsFile(path + ".missing", &error);
    QCOMPARE(QString::fromStdString(error),
             QString::fromStdString(path + ".missing: cannot open: No such file or directory"));
}

void tst_MetricsWriter::writesTrainAndEvalLines()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/sub/metrics.jsonl";
    {
        MetricsWriter w(path);
        StepMetrics s;
        s.step = 7;
        s.loss = 0.5;
        s.learning_rate = 1e-3;
        s.examples_per_second = 120;
        s.wall_time = 1000.5;
        w.writeTrain(s);
        EvalMetrics e;
        e.step = 7;
        e.eval_loss = 0.25;
        e.eval_accuracy = 0.9;
        e.binary = true;
        e.eval_f1 = 0.8;
        e.eval_mcc = std::numeric_limits<double>::quiet_NaN();
        w.writeEval(e);
    }
    std::ifstream raw(path);
    std::string first;
    std::getline(raw, first);
    QVERIFY(first.rfind("{\"kind\":\"train\",\"step\":7,\"loss\":0.5", 0) == 0); // documented key order
    const auto lines = readLines(path);
    QCOMPARE(int(lines.size()), 2);
    QCOMPARE(lines[0]["learning_rate"].get<double>(), 1e-3);
    QCOMPARE(lines[0]["examples_per_second"].get<double>(), 120.0);
    QCOMPARE(lines[1]["kind"].get<std::string>(), std::string("eval"));
    QCOMPARE(lines[1]["eval_accuracy"].get<double>(), 0.9);
    QCOMPARE(lines[1]["eval_f1"].get<double>(), 0.8);
    QVERIFY(lines[1]["eval_mcc"].is_null()); // NaN is not JSON
    QVERIFY(!lines[1].contains("eval_mse"));
}

void tst_MetricsWriter::regressionKeys()
{
    EvalMetrics e;
    e.regression = true;
    e.eval_mse = 0.3;
    e.eval_pearson = 0.7;
    e.eval_spearman = 0.6;
    const auto j = MetricsWriter::evalJson(e);
    QCOMPARE(j["eval_mse"].get<double>(), 0.3);
    QCOMPARE(j["eval_spearman"].get<double>(), 0.6);
    QVERIFY(!j.contains("eval_accuracy"));
}

void tst_MetricsWriter::truncatesAfterResumeStep()
{
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString() + "/metrics.jsonl";
    std::ofstream(path) << "{\"kind\":\"train\",\"step\":5}\n{\"kind\":\"eval\",\"step\":10}\n"
                           "{\"kind\":\"train\",\"step\":12}\n{\"kind\":\"tr";
    MetricsWriter::truncateAfterStep(path, 10);
    const auto lines = readLines(path);
    QCOMPARE(int(lines.size()), 2);
    QCOMPARE(lines[1]["step"].get<int>(), 10);
}

QTEST_APPLESS_MAIN(tst_MetricsWriter)
#include "tst_metricswriter.moc"
