// SPDX-License-Identifier: Apache-2.0
#include "core/train/evaluation.h"

#include <QtTest>

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
    QCOMPARE(pearson({1, 1, 1}, {1, 2, 3}), 0.0);
}

void tst_Evaluation::spearmanTies()
{
    // ranks of {10,20,20,30} = {1,2.5,2.5,4}
    const double s = spearman({10, 20, 20, 30}, {1, 2, 3, 4});
    QVERIFY(std::abs(s - pearson({1, 2.5, 2.5, 4}, {1, 2, 3, 4})) < 1e-12);
}

QTEST_APPLESS_MAIN(tst_Evaluation)
#include "tst_evaluation.moc"
