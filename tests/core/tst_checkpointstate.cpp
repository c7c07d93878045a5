// SPDX-License-Identifier: Apache-2.0
#include "core/formats/checkpointstate.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace wb;

class tst_CheckpointState : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void textRoundTrip();
    void stepFromName_data();
    void stepFromName();
    void latestAndPruning();
    void fallsBackToScan();
};

void tst_CheckpointState::textRoundTrip()
{
    CheckpointState s{"ckpt-342", {"ckpt-114", "ckpt-228", "ckpt-342"}};
    const std::string text = s.toText();
    QCOMPARE(QString::fromStdString(text), QStringLiteral("model_checkpoint_path: \"ckpt-342\"\n"
                                                          "all_model_checkpoint_paths: \"ckpt-114\"\n"
                                                          "all_model_checkpoint_paths: \"ckpt-228\"\n"
                                                          "all_model_checkpoint_paths: \"ckpt-342\"\n"));
    auto back = CheckpointState::parse(text);
    QVERIFY(back);
    QCOMPARE(QString::fromStdString(back->model_checkpoint_path), QStringLiteral("ckpt-342"));
    QCOMPARE(int(back->all_model_checkpoint_paths.size()), 3);
    QVERIFY(!CheckpointState::parse("garbage\n"));
}

void tst_CheckpointState::stepFromName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("step");
    QTest::newRow("plain") << "ckpt-57" << qint64(57);
    QTest::newRow("path") << "/a/b/ckpt-1200" << qint64(1200);
    QTest::newRow("tmp") << "ckpt-57.tmp" << qint64(-1);
    QTest::newRow("other") << "checkpoint" << qint64(-1);
    QTest::newRow("empty number") << "ckpt-" << qint64(-1);
}

void tst_CheckpointState::stepFromName()
{
    QFETCH(QString, name);
    QFETCH(qint64, step);
    QCOMPARE(qint64(checkpointStep(name.toStdString())), step);
}

void tst_CheckpointState::latestAndPruning()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    QCOMPARE(QString::fromStdString(latestCheckpoint(d)), QString());
    for (int step : {10, 20, 30}) {
        std::ofstream(d + "/ckpt-" + std::to_string(step)) << "x";
        recordCheckpoint(d, "ckpt-" + std::to_string(step), 2);
    }
    QVERIFY(!std::filesystem::exists(d + "/ckpt-10")); // pruned beyond keep 2
    QVERIFY(std::filesystem::exists(d + "/ckpt-20"));
    QCOMPARE(QString::fromStdString(latestCheckpoint(d)), QString::fromStdString(d + "/ckpt-30"));
    auto st = CheckpointState::read(d);
    QVERIFY(st);
    QCOMPARE(int(st->all_model_checkpoint_paths.size()), 2);
}

void tst_CheckpointState::fallsBackToScan()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    std::ofstream(d + "/ckpt-5") << "x";
    std::ofstream(d + "/ckpt-40") << "x";
    std::ofstream(d + "/ckpt-41.tmp") << "x";
    std::ofstream(d + "/checkpoint") << "model_checkpoint_path: \"ckpt-99\"\n"; // names a missing file
    QCOMPARE(QString::fromStdString(latestCheckpoint(d)), QString::fromStdString(d + "/ckpt-40"));
}

QTEST_APPLESS_MAIN(tst_CheckpointState)
#include "tst_checkpointstate.moc"
