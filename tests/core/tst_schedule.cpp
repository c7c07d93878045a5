// SPDX-License-Identifier: Apache-2.0
#include "core/config/schedule.h"

#include <QtTest>

using namespace wb;

class tst_Schedule : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formulas_data()
    {
        QTest::addColumn<qint64>("N");
        QTest::addColumn<qint64>("M");
        QTest::addColumn<qint64>("E");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<qint64>("B");
        QTest::addColumn<qint64>("cap"); // --train_data_size, 0 = unset
        QTest::addColumn<qint64>("stepsPerEpoch");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<qint64>("warmup");
        QTest::addColumn<qint64>("evalSteps");
        // Worked examples of run_classifier.py's step formulas (MRPC, 3 epochs, batch 32).
        QTest::newRow("MRPC n=1") << 3668LL << 408LL << 3LL << 1LL << 32LL << 0LL << 114LL << 342LL << 34LL << 13LL;
        QTest::newRow("MRPC n=2") << 3668LL << 408LL << 3LL << 2LL << 32LL << 0LL << 57LL << 342LL << 34LL << 13LL;
        // Capped by --train_data_size (min of N//n and the flag).
        QTest::newRow("cap") << 3668LL << 408LL << 3LL << 1LL << 32LL << 1000LL << 31LL << 93LL << 9LL << 13LL;
        // SpamAssassin 90/10 split: 5441 / 605, 2 epochs.
        QTest::newRow("spam") << 5441LL << 605LL << 2LL << 1LL << 32LL << 0LL << 170LL << 340LL << 34LL << 19LL;
        QTest::newRow("exact batch") << 64LL << 32LL << 1LL << 1LL << 32LL << 0LL << 2LL << 2LL << 0LL << 1LL;
    }

    void formulas()
    {
        QFETCH(qint64, N);
        QFETCH(qint64, M);
        QFETCH(qint64, E);
        QFETCH(qint64, n);
        QFETCH(qint64, B);
        QFETCH(qint64, cap);
        Diagnostics d;
        const auto s = Schedule::compute(N, M, E, n, B, B, cap ? std::optional<int64_t>(cap) : std::nullopt, 0.1, d);
        QVERIFY2(s, d.format().c_str());
        QTEST(qint64(s->steps_per_epoch), "stepsPerEpoch");
        QTEST(qint64(s->total_steps), "total");
        QTEST(qint64(s->warmup_steps), "warmup");
        QTEST(qint64(s->eval_steps), "evalSteps");
    }

    void degenerate_data()
    {
        QTest::addColumn<qint64>("N");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<qint64>("B");
        QTest::addColumn<qint64>("E");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("zero steps") << 10LL << 1LL << 32LL << 3LL << "train_batch_size"
                                    << "zero steps per epoch: 10 training examples per evaluation interval";
        QTest::newRow("n zero") << 100LL << 0LL << 32LL << 3LL << "num_eval_per_epoch" << "num_eval_per_epoch must be > 0";
        QTest::newRow("batch zero") << 100LL << 1LL << 0LL << 3LL << "train_batch_size" << "train_batch_size must be > 0";
        QTest::newRow("batch negative") << 100LL << 1LL << -4LL << 3LL << "train_batch_size" << "train_batch_size must be > 0";
        QTest::newRow("epochs zero") << 100LL << 1LL << 8LL << 0LL << "num_train_epochs" << "num_train_epochs must be > 0";
        QTest::newRow("n too large") << 100LL << 10LL << 32LL << 3LL << "train_batch_size" << "zero steps per epoch";
    }

    void degenerate()
    {
        QFETCH(qint64, N);
        QFETCH(qint64, n);
        QFETCH(qint64, B);
        QFETCH(qint64, E);
        QFETCH(QString, field);
        QFETCH(QString, message);
        Diagnostics d;
        QVERIFY(!Schedule::compute(N, 50, E, n, B, 32, std::nullopt, 0.1, d));
        QVERIFY(d.hasErrors());
        QCOMPARE(QString::fromStdString(d.items()[0].field), field);
        QVERIFY2(QString::fromStdString(d.items()[0].message).startsWith(message), d.format().c_str());
        QVERIFY(!d.items()[0].hint.empty());
    }

    void learningRate()
    {
        Diagnostics d;
        const auto s = Schedule::compute(3668, 408, 3, 1, 32, 32, std::nullopt, 0.1, d);
        QVERIFY(s);
        const double lr = 2e-5;
        QCOMPARE(s->learningRate(0, lr, 0.0), 0.0); // the first update uses LR 0
        QCOMPARE(s->learningRate(17, lr, 0.0), lr * 17.0 / 34.0);
        // At the end of warmup the decay is evaluated at the global step: lr·(1 − 34/342).
        QCOMPARE(s->learningRate(34, lr, 0.0), lr * (1.0 - 34.0 / 342.0));
        QCOMPARE(s->learningRate(171, lr, 0.0), lr * 0.5);
        QCOMPARE(s->learningRate(342, lr, 0.0), 0.0);
        QCOMPARE(s->learningRate(400, lr, 1e-6), 1e-6);
        QCOMPARE(s->learningRate(171, lr, 1e-6), (lr - 1e-6) * 0.5 + 1e-6);
    }
};

QTEST_APPLESS_MAIN(tst_Schedule)
#include "tst_schedule.moc"
