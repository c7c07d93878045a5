// SPDX-License-Identifier: Apache-2.0
#include "ui/plot/smoothing.h"

#include <QtTest>

#include <cmath>
#include <limits>

class tst_Smoothing : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void vectors_data();
    void vectors();
    void incrementalMatchesBatch();
    void emptyInput();
};

using Vec = std::vector<double>;
Q_DECLARE_METATYPE(Vec)

void tst_Smoothing::vectors_data()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    QTest::addColumn<Vec>("input");
    QTest::addColumn<double>("weight");
    QTest::addColumn<Vec>("expected");
    QTest::newRow("tensorboard [1,0,1] w=0.5") << Vec{1, 0, 1} << 0.5 << Vec{1, 1.0 / 3.0, 5.0 / 7.0};
    QTest::newRow("nan passes through") << Vec{1, nan, 3} << 0.5 << Vec{1, nan, 7.0 / 3.0};
    QTest::newRow("inf passes through") << Vec{2, inf, 2, 0} << 0.5 << Vec{2, inf, 2, 6.0 / 7.0};
    QTest::newRow("constant unchanged") << Vec{2, 2, 2} << 0.5 << Vec{2, 2, 2};
    QTest::newRow("w=0 identity") << Vec{3, -1, 4, 1} << 0.0 << Vec{3, -1, 4, 1};
    QTest::newRow("w=0.999 first point debiased") << Vec{5, 1} << 0.999 << Vec{5, (0.999 * 0.001 * 5 + 0.001 * 1) / (1 - 0.999 * 0.999)};
}

void tst_Smoothing::vectors()
{
    QFETCH(Vec, input);
    QFETCH(double, weight);
    QFETCH(Vec, expected);
    const Vec got = wb::smoothTensorBoard(input, weight);
    QCOMPARE(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(expected[i])) {
            QVERIFY2(std::isnan(got[i]), qPrintable(QStringLiteral("index %1").arg(i)));
        } else if (std::isinf(expected[i])) {
            QCOMPARE(got[i], expected[i]);
        } else {
            QVERIFY2(std::abs(got[i] - expected[i]) < 1e-9,
                     qPrintable(QStringLiteral("index %1: %2 != %3").arg(i).arg(got[i]).arg(expected[i])));
        }
    }
}

void tst_Smoothing::incrementalMatchesBatch()
{
    Vec values;
    for (int i = 0; i < 1000; ++i)
        values.push_back(std::sin(i * 0.1) + 2.0 / (1 + i));
    const Vec batch = wb::smoothTensorBoard(values, 0.9);
    wb::TensorBoardSmoother s(0.9);
    for (size_t i = 0; i < values.size(); ++i)
        QVERIFY(std::abs(s.add(values[i]) - batch[i]) < 1e-12);
    // smoothed values stay within the range of the raw data
    QVERIFY(batch.back() < 1.1 && batch.back() > -1.1);
}

void tst_Smoothing::emptyInput()
{
    QVERIFY(wb::smoothTensorBoard({}, 0.6).empty());
}

QTEST_APPLESS_MAIN(tst_Smoothing)
#include "tst_smoothing.moc"
