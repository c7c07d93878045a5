// SPDX-License-Identifier: Apache-2.0
// Pure logic of issue 14: early stopping decisions, label names, eval examples, lr_find analysis.
#include "core/config/labelnames.h"
#include "core/prepare/preparereport.h"
#include "core/formats/bestmodel.h"
#include "core/formats/evalexamples.h"
#include "core/advice/lrfindanalysis.h"
#include "core/util/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace wb;

class tst_Teaching : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void earlyStopping_data();
    void earlyStopping();
    void trackerAndMetricValues();
    void labelNames();
    void evalExamplesRoundTripAndViews();
    void detokenize();
    void lrFindSchedule();
    void lrFindAnalysis();
    void lrFindNoisyStart();
};

void tst_Teaching::earlyStopping_data()
{
    QTest::addColumn<std::vector<double>>("values");
    QTest::addColumn<bool>("higher");
    QTest::addColumn<int>("patience");
    QTest::addColumn<int>("stopIndex");
    QTest::addColumn<int>("bestIndex");
    // eval_accuracy: best at evaluation 2 (0.9), then 2 without improvement → stops after 4.
    QTest::newRow("accuracy, patience 2") << std::vector<double>{0.5, 0.8, 0.9, 0.9, 0.85, 0.95} << true << 2 << 4 << 2;
    // The same sequence with patience 3 reaches the 0.95 at evaluation 5 and runs to the end.
    QTest::newRow("accuracy, patience 3") << std::vector<double>{0.5, 0.8, 0.9, 0.9, 0.85, 0.95} << true << 3 << -1 << 5;
    // eval_loss improves downwards; an equal value is no improvement.
    QTest::newRow("loss, patience 1") << std::vector<double>{0.7, 0.5, 0.5, 0.4} << false << 1 << 2 << 1;
    QTest::newRow("loss, never improves after the first") << std::vector<double>{0.3, 0.4, 0.5, 0.6} << false << 3 << 3 << 0;
    QTest::newRow("patience 0 never stops") << std::vector<double>{0.9, 0.1, 0.1, 0.1} << true << 0 << -1 << 0;
    QTest::newRow("empty") << std::vector<double>{} << true << 1 << -1 << -1;
}

void tst_Teaching::earlyStopping()
{
    QFETCH(std::vector<double>, values);
    QFETCH(bool, higher);
    QFETCH(int, patience);
    QFETCH(int, stopIndex);
    QFETCH(int, bestIndex);
    const EarlyStopDecision d = earlyStoppingDecision(values, higher, patience);
    QCOMPARE(d.stop_index, int64_t(stopIndex));
    QCOMPARE(d.best_index, int64_t(bestIndex));
}

void tst_Teaching::trackerAndMetricValues()
{
    BestModelTracker t;
    t.metric = "eval_mcc";
    t.patience = 2;
    QVERIFY(t.update(0.1, 10));
    QVERIFY(!t.update(0.05, 20));
    QVERIFY(!t.shouldStop());
    QVERIFY(t.update(0.2, 30));
    QCOMPARE(t.best_step, int64_t(30));
    QCOMPARE(t.evals_since_best, int64_t(0));
    QVERIFY(!t.update(0.2, 40));
    QVERIFY(!t.update(0.1, 50));
    QVERIFY(t.shouldStop());

    EvalMetrics m;
    m.eval_loss = 0.25;
    m.eval_accuracy = 0.75;
    QCOMPARE(*metricValue(m, "eval_loss"), 0.25);
    QCOMPARE(*metricValue(m, "eval_accuracy"), 0.75);
    QVERIFY(!metricValue(m, "eval_f1")); // not a binary task
    m.binary = true;
    m.eval_f1 = 0.6;
    QCOMPARE(*metricValue(m, "eval_f1"), 0.6);
    QVERIFY(!metricValue(m, "eval_bogus"));
    QVERIFY(!metricHigherIsBetter("eval_loss"));
    QVERIFY(metricHigherIsBetter("eval_accuracy"));
}

void tst_Teaching::labelNames()
{
    QTemporaryDir dir;
    const std::string meta = dir.path().toStdString() + "/input_meta_data.json";
    // No labels.txt: id2label, then "label N".
    LabelNames n = readLabelNames(meta, 2, {"NEG", "POS"});
    QCOMPARE(n.names, (std::vector<std::string>{"NEG", "POS"}));
    QCOMPARE(n.source, std::string("id2label"));
    n = readLabelNames(meta, 3, {"NEG", "POS"});
    QCOMPARE(n.names, (std::vector<std::string>{"label 0", "label 1", "label 2"}));
    // labels.txt with BOM, CRLF and a trailing empty line wins.
    std::ofstream(dir.path().toStdString() + "/labels.txt", std::ios::binary) << "\xEF\xBB\xBFham\r\nspam\r\n\r\n";
    n = readLabelNames(meta, 2, {"NEG", "POS"});
    QCOMPARE(n.names, (std::vector<std::string>{"ham", "spam"}));
    QVERIFY(n.source.find("labels.txt") != std::string::npos);
    // Of another length: not used, with a warning naming the file.
    n = readLabelNames(meta, 3);
    QCOMPARE(n.names.front(), std::string("label 0"));
    QVERIFY(n.warning.find("labels.txt has 2 names") != std::string::npos);
    QVERIFY(readLabelNames(meta, 1).names.empty() == false);
    QVERIFY(readLabelNames(meta, 0).names.empty());

    std::ofstream(dir.path().toStdString() + "/prepare_report.json")
        << R"({"vocab_file": "/x/vocab.txt", "do_lower_case": false, "max_seq_length": 64})";
    const PreparedTokenizer t = readPreparedTokenizer(meta);
    QCOMPARE(t.vocab_file, std::string("/x/vocab.txt"));
    QCOMPARE(*t.do_lower_case, false);
    QCOMPARE(*t.max_seq_length, int64_t(64));
}

void tst_Teaching::evalExamplesRoundTripAndViews()
{
    std::vector<EvalExample> ex;
    const auto add = [&](int64_t truth, int64_t pred, double loss) {
        EvalExample e;
        e.index = int64_t(ex.size());
        e.step = 40;
        e.true_label_id = truth;
        e.predicted_label_id = pred;
        e.true_label = truth ? "spam" : "ham";
        e.predicted_label = pred ? "spam" : "ham";
        e.probabilities = {pred ? 0.2 : 0.8, pred ? 0.8 : 0.2};
        e.loss = loss;
        e.text = "text \"" + std::to_string(e.index) + "\"\ttab";
        ex.push_back(e);
    };
    add(0, 0, 0.1);
    add(1, 0, 2.5); // spam called ham, most confidently wrong
    add(1, 0, 1.2);
    add(0, 1, 1.9);
    add(1, 1, 0.05);
    QTemporaryDir dir;
    const std::string path = evalExamplesPath(dir.path().toStdString());
    writeEvalExamples(path, ex);
    const auto back = readEvalExamples(path);
    QCOMPARE(back.size(), ex.size());
    QCOMPARE(back[1].text, ex[1].text);
    QCOMPARE(back[3].probabilities, ex[3].probabilities);
    QCOMPARE(back[1].true_label, std::string("spam"));

    const auto top = topLosses(back, 3);
    QCOMPARE(top.size(), size_t(3));
    QCOMPARE(top[0].index, int64_t(1));
    QCOMPARE(top[1].index, int64_t(3));
    QCOMPARE(top[2].index, int64_t(2));
    const auto cell = topLosses(back, 0, int64_t(1), int64_t(0)); // true spam, predicted ham
    QCOMPARE(cell.size(), size_t(2));
    QCOMPARE(cell[0].index, int64_t(1));
    QCOMPARE(cell[1].index, int64_t(2));
    QCOMPARE(topLosses(back, 0, std::nullopt, std::nullopt, true).size(), size_t(3));

    const auto pairs = mostConfusedPairs(back);
    QCOMPARE(pairs.size(), size_t(2));
    QCOMPARE(pairs[0].true_label, std::string("spam"));
    QCOMPARE(pairs[0].predicted_label, std::string("ham"));
    QCOMPARE(pairs[0].count, int64_t(2));
    QCOMPARE(pairs[1].count, int64_t(1));
    QCOMPARE(mostConfusedPairs(back, 2).size(), size_t(1));

    std::ofstream(path, std::ios::app) << "{\"index\": 5}\n";
    try {
        readEvalExamples(path);
        QFAIL("a malformed line was accepted");
    } catch (const Error &e) {
        QVERIFY(std::string(e.field()).find(":6") != std::string::npos);
    }
}

void tst_Teaching::detokenize()
{
    std::string b;
    QCOMPARE(detokenizeWordpieces({"[CLS]", "un", "##aff", "##able", "news", "[SEP]", "[PAD]", "[PAD]"}, &b),
             std::string("unaffable news"));
    QVERIFY(b.empty());
    QCOMPARE(detokenizeWordpieces({"[CLS]", "a", "[SEP]", "b", "##c", "[SEP]", "[PAD]"}, &b), std::string("a"));
    QCOMPARE(b, std::string("bc"));
    QCOMPARE(detokenizeWordpieces({"[CLS]", "a", "[SEP]", "b"}), std::string("a"));
}

void tst_Teaching::lrFindSchedule()
{
    QCOMPARE(lrFindLearningRate(0, 100, 1e-7, 1.0), 1e-7);
    QVERIFY(std::abs(lrFindLearningRate(99, 100, 1e-7, 1.0) - 1.0) < 1e-12);
    QVERIFY(std::abs(lrFindLearningRate(50, 101, 1e-6, 1e-2) - 1e-4) < 1e-12); // geometric midpoint
}

void tst_Teaching::lrFindAnalysis()
{
    // A loss that falls fastest around lr = 1e-3 and explodes after 1e-1.
    LrFindResult r;
    const int n = 100;
    for (int k = 0; k < n; ++k) {
        const double lr = lrFindLearningRate(k, n, 1e-7, 1.0);
        const double x = std::log10(lr);
        r.learning_rates.push_back(lr);
        r.losses.push_back(1.0 - 0.5 * std::tanh(2.0 * (x + 3.0)) + (x > -1 ? 5.0 * (x + 1) : 0.0));
    }
    analyzeLrFind(r);
    QCOMPARE(r.smoothed.size(), size_t(n));
    QCOMPARE(r.smoothed.front(), r.losses.front()); // bias-corrected first value
    QVERIFY(r.suggestion >= 1e-7 && r.suggestion <= 1.0);
    QCOMPARE(r.suggestion, r.learning_rates[size_t(r.suggestion_index)]);
    QVERIFY(r.suggestion_index < r.min_index);
    // The EMA lags: the steepest smoothed descent lies a little after 1e-3, well before the minimum.
    QVERIFY2(r.suggestion > 3e-4 && r.suggestion < 3e-2, std::to_string(r.suggestion).c_str());
    QCOMPARE(r.min_over_10, r.min_loss_lr / 10);
    QVERIFY(r.min_loss_lr > 1e-2 && r.min_loss_lr <= 0.2);
}

void tst_Teaching::lrFindNoisyStart()
{
    // Real losses are noisy: a flat 0.69 with ±0.02 step-to-step noise that falls around 3e-3
    // and explodes after 1e-1.
    // The first smoothed values follow the noise of single losses; they must not pass for the
    // steepest descent or the minimum.
    LrFindResult r;
    const int n = 300;
    for (int k = 0; k < n; ++k) {
        const double lr = lrFindLearningRate(k, n, 1e-6, 1.0);
        const double x = std::log10(lr);
        const double noise = (k % 2 == 0 ? 0.02 : -0.02) * (k < 3 ? 2.0 : 1.0);
        r.learning_rates.push_back(lr);
        r.losses.push_back(0.69 - 0.15 * (1 + std::tanh(2.0 * (x + 2.5))) + (x > -1 ? 3.0 * (x + 1) : 0.0) + noise);
    }
    analyzeLrFind(r);
    QVERIFY2(r.suggestion_index >= kLrFindSkipStart, std::to_string(r.suggestion_index).c_str());
    QVERIFY2(r.suggestion > 1e-3 && r.suggestion < 3e-2, std::to_string(r.suggestion).c_str());
    QVERIFY2(r.min_loss_lr > 1e-2 && r.min_loss_lr <= 0.2, std::to_string(r.min_loss_lr).c_str());
}

QTEST_APPLESS_MAIN(tst_Teaching)
#include "tst_teaching.moc"
