// SPDX-License-Identifier: Apache-2.0
#include "core/config/distributionstrategy.h"

#include <QtTest>

using namespace wb;

class tst_DistributionStrategy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("numGpus");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("error"); // exact message of the first error, empty when valid
        const int none = int(StrategyKind::None);
        QTest::newRow("empty") << "" << 0 << none << "Distribution strategy has not been specified.";
        QTest::newRow("blank") << "  " << 0 << none << "Distribution strategy has not been specified.";
        QTest::newRow("off") << "off" << 0 << none << "Distribution strategy has not been specified.";
        QTest::newRow("OFF") << "OFF" << 1 << none << "Distribution strategy has not been specified.";
        QTest::newRow("off 2 gpus") << "off" << 2 << none
                                    << "When 2 GPUs are specified, distribution_strategy flag cannot be set to `off`.";
        QTest::newRow("one_device") << "one_device" << 0 << int(StrategyKind::OneDevice) << "";
        QTest::newRow("One_Device") << "One_Device" << 1 << int(StrategyKind::OneDevice) << "";
        QTest::newRow("one_device 2") << "one_device" << 2 << int(StrategyKind::OneDevice)
                                      << "`OneDeviceStrategy` can not be used for more than one device.";
        QTest::newRow("mirrored") << "MIRRORED" << 0 << int(StrategyKind::Mirrored) << "";
        QTest::newRow("mwm") << "multi_worker_mirrored" << 0 << int(StrategyKind::MultiWorkerMirrored) << "";
        QTest::newRow("negative") << "mirrored" << -1 << int(StrategyKind::Mirrored) << "`num_gpus` can not be negative.";
        QTest::newRow("collective") << "Collective" << 0 << none << "Unrecognized distribution strategy: 'collective'";
        QTest::newRow("tpu") << "tpu" << 0 << none
                             << "the tpu strategy is not supported: this workbench trains with libtorch on CPUs and CUDA GPUs";
        QTest::newRow("ps") << "parameter_server" << 0 << none
                            << "the parameter_server strategy is not supported: gradients are averaged synchronously by all-reduce";
    }

    void parse()
    {
        QFETCH(QString, name);
        QFETCH(int, numGpus);
        QFETCH(int, kind);
        QFETCH(QString, error);
        Diagnostics d;
        const auto s = DistributionStrategy::parse(name.toStdString(), numGpus, d);
        QCOMPARE(int(s.kind), kind);
        if (error.isEmpty()) {
            QVERIFY2(!d.hasErrors(), d.format().c_str());
        } else {
            QVERIFY(d.hasErrors());
            QCOMPARE(QString::fromStdString(d.items()[0].message), error);
            QVERIFY(!d.items()[0].hint.empty());
        }
    }

    void hintNamesTheChoices()
    {
        Diagnostics d;
        DistributionStrategy::parse("", 0, d);
        QCOMPARE(QString::fromStdString(d.items()[0].field), QStringLiteral("distribution_strategy"));
        const QString hint = QString::fromStdString(d.items()[0].hint);
        for (const auto &n : DistributionStrategy::validNames())
            QVERIFY(hint.contains(QString::fromStdString(n)));
    }

    void replicas()
    {
        Diagnostics d;
        QCOMPARE(DistributionStrategy::parse("mirrored", 0, d).localReplicas(), 1);
        QCOMPARE(DistributionStrategy::parse("mirrored", 4, d).localReplicas(), 4);
        QCOMPARE(DistributionStrategy::parse("one_device", 1, d).localReplicas(), 1);
        QCOMPARE(DistributionStrategy::parse("one_device", 0, d).name(), std::string("one_device"));
    }
};

QTEST_APPLESS_MAIN(tst_DistributionStrategy)
#include "tst_distributionstrategy.moc"
