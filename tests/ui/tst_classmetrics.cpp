// SPDX-License-Identifier: Apache-2.0
#include "ui/evaluation/classmetrics.h"

#include <QtTest>

class tst_ClassMetrics : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void binary();
    void emptyClass();
};

void tst_ClassMetrics::binary()
{
    // true 0: 50 right, 10 predicted as 1; true 1: 5 predicted as 0, 35 right
    const auto m = wb::classMetrics({{50, 10}, {5, 35}});
    QCOMPARE(m.size(), size_t(2));
    QCOMPARE(m[0].precision, 50.0 / 55.0);
    QCOMPARE(m[0].recall, 50.0 / 60.0);
    QCOMPARE(m[1].precision, 35.0 / 45.0);
    QCOMPARE(m[1].recall, 35.0 / 40.0);
    QVERIFY(std::abs(m[1].f1 - 2 * (35.0 / 45) * (35.0 / 40) / (35.0 / 45 + 35.0 / 40)) < 1e-12);
    QCOMPARE(m[0].support, int64_t(60));
    QCOMPARE(m[1].support, int64_t(40));
}

void tst_ClassMetrics::emptyClass()
{
    const auto m = wb::classMetrics({{3, 0, 0}, {1, 0, 0}, {0, 0, 0}});
    QCOMPARE(m[1].precision, 0.0);
    QCOMPARE(m[1].recall, 0.0);
    QCOMPARE(m[1].f1, 0.0);
    QCOMPARE(m[2].support, int64_t(0));
    QCOMPARE(m[0].precision, 0.75);
}

QTEST_APPLESS_MAIN(tst_ClassMetrics)
#include "tst_classmetrics.moc"
