// SPDX-License-Identifier: Apache-2.0
#include "ui/projectfile.h"
#include "ui/runhistory.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace wb;

class tst_ProjectFile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip();
    void relativePathsResolveAgainstProject();
    void wrongTypeIsNamed();
    void metricsHistory();
};

void tst_ProjectFile::roundTrip()
{
    TrainingOptions o;
    o.distribution_strategy = "one_device";
    o.num_gpus = 1;
    o.bert_config_file = "/data/bert_config.json";
    o.train_data_path = "/data/train-*.tf_record";
    o.learning_rate = 3e-5;
    o.train_data_size = 1000;
    o.seed = 7;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("p.bwproj"));
    ProjectFile::save(path, o);
    Diagnostics diag;
    const TrainingOptions back = ProjectFile::load(path, diag);
    QVERIFY2(diag.empty(), diag.format().c_str());
    QCOMPARE(back.distribution_strategy, o.distribution_strategy);
    QCOMPARE(back.num_gpus, 1);
    QCOMPARE(back.bert_config_file, o.bert_config_file);
    QCOMPARE(back.train_data_path, o.train_data_path);
    QCOMPARE(back.learning_rate, 3e-5);
    QCOMPARE(back.train_data_size.value_or(0), int64_t(1000));
    QCOMPARE(back.seed, int64_t(7));
    QCOMPARE(ProjectFile::toJson(back), ProjectFile::toJson(o));
}

void tst_ProjectFile::relativePathsResolveAgainstProject()
{
    Diagnostics diag;
    const auto j = nlohmann::json::parse(R"({"format":"bert-workbench-project","version":1,
        "options":{"bert_config_file":"cfg/bert_config.json","model_dir":"/abs/run"}})");
    const TrainingOptions o = ProjectFile::fromJson(j, QStringLiteral("/home/u/proj"), diag);
    QCOMPARE(o.bert_config_file, std::string("/home/u/proj/cfg/bert_config.json"));
    QCOMPARE(o.model_dir, std::string("/abs/run"));
}

void tst_ProjectFile::wrongTypeIsNamed()
{
    Diagnostics diag;
    const auto j = nlohmann::json::parse(R"({"format":"bert-workbench-project","options":{"train_batch_size":"big","colour":1}})");
    ProjectFile::fromJson(j, QString(), diag);
    QCOMPARE(diag.errorCount(), 1);
    QCOMPARE(diag.items().front().field, std::string("options.train_batch_size"));
    QVERIFY(diag.format().find("options.colour") != std::string::npos); // unknown key warned

    QTemporaryDir dir;
    diag = Diagnostics();
    ProjectFile::load(dir.filePath(QStringLiteral("nope.bwproj")), diag);
    QVERIFY(diag.hasErrors());
}

void tst_ProjectFile::metricsHistory()
{
    QTemporaryDir dir;
    QDir(dir.path()).mkpath(QStringLiteral("runs/a"));
    QDir(dir.path()).mkpath(QStringLiteral("runs/b"));
    const QString a = dir.filePath(QStringLiteral("runs/a/metrics.jsonl"));
    QFile f(a);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"kind":"train","step":1,"loss":0.9,"learning_rate":1e-5,"examples_per_second":10,"wall_time":100.5}
{"kind":"train","step":2,"loss":0.7,"learning_rate":2e-5,"examples_per_second":10,"wall_time":101.5}

{"kind":"eval","step":2,"eval_loss":0.6,"eval_accuracy":0.75,"wall_time":102}
{"kind":"train","step":3,"lo)");
    f.close();
    QString error;
    const RunHistory h = RunHistory::load(a, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error)); // a torn last line is ignored
    QCOMPARE(h.name, QStringLiteral("a"));
    QCOMPARE(h.trainStep, (std::vector<double>{1, 2}));
    QCOMPARE(h.trainLoss, (std::vector<double>{0.9, 0.7}));
    QCOMPARE(h.evalAccuracy, (std::vector<double>{0.75}));
    QCOMPARE(h.trainWallTime.front(), 100.5);

    QFile g(dir.filePath(QStringLiteral("runs/b/metrics.jsonl")));
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("not json\n{\"kind\":\"train\",\"step\":1,\"loss\":1}\n");
    g.close();
    RunHistory::load(g.fileName(), &error);
    QVERIFY(error.contains(QStringLiteral("line 1")));

    const QStringList runs = RunHistory::findRuns(dir.filePath(QStringLiteral("runs/a")));
    QCOMPARE(runs.size(), 2); // its own and its sibling's
}

QTEST_APPLESS_MAIN(tst_ProjectFile)
#include "tst_projectfile.moc"
