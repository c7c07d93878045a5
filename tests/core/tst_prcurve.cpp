// SPDX-License-Identifier: Apache-2.0
// Issue 45: per-label precision–recall curves and average precision with scikit-learn's
// semantics (core/advice/prcurve.h), against numbers scikit-learn 1.2.1 computed. Torch-free.
//
// The reference numbers were computed once with Debian's python3-sklearn 1.2.1:
//   from sklearn.metrics import precision_recall_curve, average_precision_score
//   p, r, t = precision_recall_curve(y, s); ap = average_precision_score(y, s)
// for the (y, s) of each test below; p, r, t printed with repr(...tolist()).
#include "core/advice/prcurve.h"
#include "core/util/error.h"

#include <QtTest>

#include <cmath>

using namespace wb;

namespace {

/// scikit-learn's three arrays from our points: reversed (thresholds ascending), the end
/// point (precision 1, recall 0) appended to precision and recall.
struct SklearnArrays
{
    std::vector<double> precision, recall, thresholds;
};

SklearnArrays asSklearn(const PrecisionRecallCurve &c)
{
    SklearnArrays a;
    for (auto it = c.points.rbegin(); it != c.points.rend(); ++it) {
        a.precision.push_back(it->precision);
        a.recall.push_back(it->recall);
        a.thresholds.push_back(it->threshold);
    }
    a.precision.push_back(1.0);
    a.recall.push_back(0.0);
    return a;
}

void compareArrays(const std::vector<double> &got, const std::vector<double> &expected)
{
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i)
        QVERIFY2(std::abs(got[i] - expected[i]) <= 1e-15,
                 qPrintable(QStringLiteral("[%1] %2 != %3").arg(i).arg(got[i], 0, 'g', 17).arg(expected[i], 0, 'g', 17)));
}

} // namespace

class tst_PrCurve : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void scikitLearnDocsExample();
    void tiesGiveOnePointPerDistinctScore();
    void everyTruthPositive();
    void noPositiveIsUndefined();
    void countsScoresAndOperatingPoints();
    void lengthsMustAgree();
};

void tst_PrCurve::scikitLearnDocsExample()
{
    // y = [0, 0, 1, 1], s = [0.1, 0.4, 0.35, 0.8] (precision_recall_curve's docstring):
    // P [0.5, 0.6666666666666666, 0.5, 1.0, 1.0], R [1.0, 1.0, 0.5, 0.5, 0.0], T [0.1, 0.35, 0.4, 0.8],
    // AP 0.8333333333333333.
    const auto c = precisionRecallCurve({0.1, 0.4, 0.35, 0.8}, {0, 0, 1, 1});
    const auto a = asSklearn(c);
    compareArrays(a.precision, {0.5, 0.6666666666666666, 0.5, 1.0, 1.0});
    compareArrays(a.recall, {1.0, 1.0, 0.5, 0.5, 0.0});
    compareArrays(a.thresholds, {0.1, 0.35, 0.4, 0.8});
    QCOMPARE(c.average_precision, 0.8333333333333333);
    QCOMPARE(c.positives, 2);
    QCOMPARE(c.negatives, 2);
    QCOMPARE(c.points.front().threshold, 0.8); // descending
    QCOMPARE(c.points.front().tp, 1);
    QCOMPARE(c.points.front().fp, 0);
}

void tst_PrCurve::tiesGiveOnePointPerDistinctScore()
{
    // y = [1, 0, 1, 0, 1, 0, 0, 1], s = [0.9, 0.9, 0.6, 0.6, 0.6, 0.2, 0.9, 0.05]:
    // P [0.5, 0.42857142857142855, 0.5, 0.3333333333333333, 1.0], R [1.0, 0.75, 0.75, 0.25, 0.0],
    // T [0.05, 0.2, 0.6, 0.9], AP 0.4583333333333333.
    const auto c = precisionRecallCurve({0.9, 0.9, 0.6, 0.6, 0.6, 0.2, 0.9, 0.05}, {1, 0, 1, 0, 1, 0, 0, 1});
    const auto a = asSklearn(c);
    compareArrays(a.precision, {0.5, 0.42857142857142855, 0.5, 0.3333333333333333, 1.0});
    compareArrays(a.recall, {1.0, 0.75, 0.75, 0.25, 0.0});
    compareArrays(a.thresholds, {0.05, 0.2, 0.6, 0.9});
    QVERIFY(std::abs(c.average_precision - 0.4583333333333333) <= 1e-15);
    // The three examples at 0.9 (one positive) are one point: tp 1, fp 2.
    QCOMPARE(c.points.front().tp, 1);
    QCOMPARE(c.points.front().fp, 2);
}

void tst_PrCurve::everyTruthPositive()
{
    // y = [1, 1, 1], s = [0.3, 0.3, 0.8]: P [1.0, 1.0, 1.0], R [1.0, 0.3333333333333333, 0.0],
    // T [0.3, 0.8], AP 1.0.
    const auto c = precisionRecallCurve({0.3, 0.3, 0.8}, {1, 1, 1});
    const auto a = asSklearn(c);
    compareArrays(a.precision, {1.0, 1.0, 1.0});
    compareArrays(a.recall, {1.0, 0.3333333333333333, 0.0});
    compareArrays(a.thresholds, {0.3, 0.8});
    QCOMPARE(c.average_precision, 1.0);
}

void tst_PrCurve::noPositiveIsUndefined()
{
    // y = [0, 0, 0], s = [0.2, 0.7, 0.4]: scikit-learn 1.2.1 warns "No positive class found in
    // y_true, recall is set to one for all thresholds", gives P [0, 0, 0, 1], R [1, 1, 1, 0] and
    // AP -0.0 (older versions: recall nan). We say the curve is undefined: no points, AP NaN.
    const auto c = precisionRecallCurve({0.2, 0.7, 0.4}, {0, 0, 0});
    QVERIFY(c.points.empty());
    QVERIFY(std::isnan(c.average_precision));
    QCOMPARE(c.positives, 0);
    QCOMPARE(c.negatives, 3);
    // No example at all: the same.
    const auto none = precisionRecallCurve({}, {});
    QVERIFY(none.points.empty());
    QVERIFY(std::isnan(none.average_precision));
}

void tst_PrCurve::countsScoresAndOperatingPoints()
{
    const std::vector<double> s{0.9, 0.9, 0.6, 0.6, 0.6, 0.2, 0.9, 0.05};
    const std::vector<int64_t> y{1, 0, 1, 0, 1, 0, 0, 1};
    // score ≥ 0.6 predicted: tp 3 (0.9, 0.6, 0.6), fp 3, fn 1, tn 1.
    const auto at = binaryCountsAt(s, y, 0.6);
    QCOMPARE(at, (std::array<int64_t, 4>{1, 3, 1, 3}));
    const auto scores = binaryScores(at);
    QCOMPARE(scores.precision, 0.5);
    QCOMPARE(scores.recall, 0.75);
    QCOMPARE(scores.f1, 0.6);
    QCOMPARE(scores.support, 4);
    const auto p = operatingPoint(at); // on the curve: the point of threshold 0.6
    QVERIFY(!p.nothingPredicted);
    QCOMPARE(p.recall, 0.75);
    QCOMPARE(p.precision, 0.5);
    // Nothing reaches 0.95: zero_division=0 gives 0s, the operating point is the curve's end.
    const auto none = binaryCountsAt(s, y, 0.95);
    QCOMPARE(none, (std::array<int64_t, 4>{4, 0, 4, 0}));
    QCOMPARE(binaryScores(none).precision, 0.0);
    QCOMPARE(binaryScores(none).f1, 0.0);
    const auto end = operatingPoint(none);
    QVERIFY(end.nothingPredicted);
    QCOMPARE(end.recall, 0.0);
    QCOMPARE(end.precision, 1.0);
}

void tst_PrCurve::lengthsMustAgree()
{
    try {
        precisionRecallCurve({0.1, 0.2}, {1});
        QFAIL("no error");
    } catch (const Error &e) {
        QVERIFY2(std::string(e.what()).find("2 scores, 1 truths") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(Error, binaryCountsAt({0.1}, {}, 0.5));
    QVERIFY_THROWS_EXCEPTION(Error, precisionRecallCurve({std::nan("")}, {1}));
}

QTEST_APPLESS_MAIN(tst_PrCurve)
#include "tst_prcurve.moc"
