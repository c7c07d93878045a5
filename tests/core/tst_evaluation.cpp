// SPDX-License-Identifier: Apache-2.0
#include "core/engine/evaluation.h"
#include "core/io/runeventjson.h"
#include "core/engine/evalpass.h"

#include <QtTest>

#include <cmath>

using namespace wb;

class tst_Evaluation : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void binaryMetrics();
    void multiClassConfusion();
    void degenerateBinary();
    void regression();
    void spearmanTies();
    void perClassAndMacroF1();
    void metricsJsonCarriesTheSet();
};

void tst_Evaluation::binaryMetrics()
{
    // tp=3 (idx 0,1,2), fn=1 (3), fp=2 (4,5), tn=4 (6..9)
    const std::vector<int64_t> labels = {1, 1, 1, 1, 0, 0, 0, 0, 0, 0};
    const std::vector<int64_t> preds = {1, 1, 1, 0, 1, 1, 0, 0, 0, 0};
    EvalMetrics m;
    computeClassificationMetrics(labels, preds, 2, m);
    QVERIFY(m.binary);
    QCOMPARE(m.num_examples, int64_t(10));
    QCOMPARE(m.eval_accuracy, 0.7);
    QCOMPARE(m.confusion[1][1], int64_t(3));
    QCOMPARE(m.confusion[1][0], int64_t(1));
    QCOMPARE(m.confusion[0][1], int64_t(2));
    QCOMPARE(m.confusion[0][0], int64_t(4));
    QVERIFY(std::abs(m.eval_f1 - 6.0 / 9.0) < 1e-12);
    QVERIFY(std::abs(m.eval_mcc - (3.0 * 4 - 2.0 * 1) / std::sqrt(5.0 * 4 * 6 * 5)) < 1e-12);
}

void tst_Evaluation::multiClassConfusion()
{
    EvalMetrics m;
    computeClassificationMetrics({0, 1, 2, 2}, {0, 2, 2, 1}, 3, m);
    QVERIFY(!m.binary);
    QCOMPARE(m.eval_accuracy, 0.5);
    QCOMPARE(m.confusion[1][2], int64_t(1));
    QCOMPARE(m.confusion[2][1], int64_t(1));
    QCOMPARE(m.confusion[2][2], int64_t(1));
}

void tst_Evaluation::degenerateBinary()
{
    EvalMetrics m;
    computeClassificationMetrics({0, 0, 0}, {0, 0, 0}, 2, m);
    QCOMPARE(m.eval_accuracy, 1.0);
    QCOMPARE(m.eval_f1, 0.0);  // no positives: undefined → 0
    QCOMPARE(m.eval_mcc, 0.0); // empty marginal → 0
}

void tst_Evaluation::regression()
{
    EvalMetrics m;
    computeRegressionMetrics({1, 2, 3, 4}, {1.5, 2, 2.5, 5}, m);
    QVERIFY(m.regression);
    QVERIFY(std::abs(m.eval_mse - (0.25 + 0 + 0.25 + 1) / 4) < 1e-12);
    QVERIFY(std::abs(m.eval_spearman - 1.0) < 1e-12);
    QVERIFY(std::abs(m.eval_pearson - pearson({1, 2, 3, 4}, {1.5, 2, 2.5, 5})) < 1e-12);
    QVERIFY(m.eval_pearson > 0.9 && m.eval_pearson < 1.0);
    QVERIFY(std::abs(pearson({1, 2, 3}, {3, 2, 1}) + 1.0) < 1e-12);
    // A constant series has no correlation to measure: NaN, written as null (issue 41), never 0.
    QVERIFY(std::isnan(pearson({1, 1, 1}, {1, 2, 3})));
    QVERIFY(std::isnan(pearson({}, {})));
    EvalMetrics constant;
    computeRegressionMetrics({1, 2, 3, 4}, {2.5, 2.5, 2.5, 2.5}, constant);
    QCOMPARE(constant.eval_mse, 1.25);
    QVERIFY(std::isnan(constant.eval_pearson));
    QVERIFY(std::isnan(constant.eval_spearman));
    const nlohmann::json line = constant;
    QVERIFY2(line.at("eval_pearson").is_null() && line.at("eval_spearman").is_null(), line.dump().c_str());
    QCOMPARE(line.at("eval_mse").get<double>(), 1.25);
}

void tst_Evaluation::spearmanTies()
{
    // ranks of {10,20,20,30} = {1,2.5,2.5,4}
    const double s = spearman({10, 20, 20, 30}, {1, 2, 3, 4});
    QVERIFY(std::abs(s - pearson({1, 2.5, 2.5, 4}, {1, 2, 3, 4})) < 1e-12);
}

void tst_Evaluation::perClassAndMacroF1()
{
    // 3 labels; true → predicted: 0→0, 0→0, 0→1, 1→1, 1→2, 2→2, 2→2, 2→0.
    EvalMetrics m;
    computeClassificationMetrics({0, 0, 0, 1, 1, 2, 2, 2}, {0, 0, 1, 1, 2, 2, 2, 0}, 3, m);
    // class 0: tp 2, predicted 3, actual 3; class 1: tp 1, predicted 2, actual 2; class 2: tp 2, predicted 3, actual 3.
    QCOMPARE(m.class_precision, (std::vector<double>{2.0 / 3, 1.0 / 2, 2.0 / 3}));
    QCOMPARE(m.class_recall, (std::vector<double>{2.0 / 3, 1.0 / 2, 2.0 / 3}));
    QCOMPARE(m.class_f1, (std::vector<double>{4.0 / 6, 2.0 / 4, 4.0 / 6}));
    QCOMPARE(m.class_support, (std::vector<int64_t>{3, 2, 3}));
    QCOMPARE(m.eval_macro_f1, (4.0 / 6 + 2.0 / 4 + 4.0 / 6) / 3);
    QCOMPARE(m.eval_accuracy, 5.0 / 8);
    // A class never predicted nor present: 0, and it still counts in the macro mean.
    EvalMetrics z;
    computeClassificationMetrics({0, 1}, {0, 1}, 3, z);
    QCOMPARE(z.class_f1, (std::vector<double>{1.0, 1.0, 0.0}));
    QCOMPARE(z.eval_macro_f1, 2.0 / 3);
    // Binary: eval_f1 is the F1 of label 1, the positive class.
    EvalMetrics b;
    computeClassificationMetrics({0, 1, 1, 0}, {0, 1, 0, 1}, 2, b);
    QCOMPARE(b.positive_label, int64_t(1));
    QCOMPARE(b.eval_f1, b.class_f1[1]);
}

void tst_Evaluation::metricsJsonCarriesTheSet()
{
    EvalMetrics m;
    computeClassificationMetrics({0, 1, 1, 0}, {0, 1, 0, 0}, 2, m);
    m.label_names = {"ham", "spam"};
    nlohmann::json j = m;
    QCOMPARE(j["per_class"][1]["label"].get<std::string>(), std::string("spam"));
    QCOMPARE(j["per_class"][1]["recall"].get<double>(), 0.5);
    QCOMPARE(j["positive_label"].get<std::string>(), std::string("spam"));
    const EvalMetrics back = j.get<EvalMetrics>();
    QCOMPARE(back.class_f1, m.class_f1);
    QCOMPARE(back.class_support, m.class_support);
    QCOMPARE(back.label_names, m.label_names);
    QCOMPARE(back.eval_macro_f1, m.eval_macro_f1);
    // The CLI's line: eval_f1 names its class, macro_f1, one line per class.
    m.step = 7;
    m.eval_loss = 0.5;
    QCOMPARE(QString::fromStdString(evalLine(m)), QStringLiteral("Step: [7] eval_loss = 0.5, eval_accuracy = 0.75, eval_f1 = 0.6667 (positive class: "
                                      "spam), eval_mcc = 0.5774, macro_f1 = 0.7333 (4 examples)\n"
                                      "  ham: precision = 0.6667, recall = 1, f1 = 0.8 (2 examples)\n"
                                      "  spam: precision = 1, recall = 0.5, f1 = 0.6667 (2 examples)"));
}

QTEST_APPLESS_MAIN(tst_Evaluation)
#include "tst_evaluation.moc"
