// SPDX-License-Identifier: Apache-2.0
#include "core/io/metricswriter.h"

#include <QTemporaryDir>
#include <QtTest>

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
};

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
